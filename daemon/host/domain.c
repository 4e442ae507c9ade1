/*
 * domain.c - see domain.h.  Pins are live only (VIR_DOMAIN_AFFECT_LIVE):
 * placement follows load, so the persistent config keeps what the
 * operator wrote, and `virsh vcpupin` shows the truth while it runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/virterror.h>

#include "host/cputune.h"
#include "host/domain.h"
#include "host/nova_xml.h"
#include "host/policy_xml.h"
#include "host/virt_link.h"

void
domain_info(virDomainPtr dom, struct vp_dom_info *ret)
{
	virDomainInfo info;
	const char *name;

	ret->err = 0;
	if (virDomainGetInfo(dom, &info) < 0 || info.nrVirtCpu < 1 ||
	    !(name = virDomainGetName(dom)) ||
	    virDomainGetUUID(dom, ret->uuid) < 0 ||
	    virDomainGetUUIDString(dom, ret->uuid_str) < 0)
		ret->err = -ENOENT;	/* vanished meanwhile */
	else if (strlen(name) >= sizeof(ret->name))
		ret->err = -ENAMETOOLONG;
	else
		snprintf(ret->name, sizeof(ret->name), "%s", name);
	ret->nvcpus = ret->err ? 0 : (int)info.nrVirtCpu;
}

int
domain_maplen(const struct vp_topo *t)
{
	return VIR_CPU_MAPLEN(t->os_limit);
}

bool
domain_map_of_set(const struct vp_topo *t, const struct vp_cpuset *s,
    unsigned char *map, int maplen)
{
	int pu;

	if (cpuset_empty(s) || !cpuset_subset(s, &t->all))
		return false;
	memset(map, 0, maplen);
	cpuset_for_each(pu, s, t->npus)
		if (t->pu[pu].os_index / 8 < (unsigned int)maplen)
			VIR_USE_CPU(map, t->pu[pu].os_index);
	return true;
}

void
domain_set_of_map(const struct vp_topo *t, const unsigned char *map,
    int maplen, struct vp_cpuset *ret)
{
	unsigned int os;

	cpuset_zero(ret);
	for (os = 0; os < t->os_limit && os / 8 < (unsigned int)maplen;
	    os++)
		if (VIR_CPU_USED(map, os))
			cpuset_set(ret, topo_pu_of_os(t, os));
}

int
domain_pu_of_cpu(const struct vp_topo *t, int cpu)
{
	return cpu >= 0 && (unsigned int)cpu < t->os_limit ?
	    topo_pu_of_os(t, (unsigned int)cpu) : VP_PU_NONE;
}

int
domain_vcpu_maps(struct vp_virt *v, const unsigned char *uuid, int n,
    int maplen, unsigned char *ret_maps, int *ret_cpu)
{
	virDomainPtr dom = virt_domain(v, uuid);
	virVcpuInfoPtr info;
	int k;

	if (!dom)
		return -ENOENT;
	if (!(info = calloc(n, sizeof(*info))))
		return -ENOMEM;
	if (virDomainGetVcpuPinInfo(dom, n, ret_maps, maplen,
	    VIR_DOMAIN_AFFECT_LIVE) < n) {
		free(info);
		return -EIO;
	}
	for (k = 0; k < n; k++)
		ret_cpu[k] = -1;
	/* where each last ran: a hint for status, not worth failing over */
	if (virDomainGetVcpus(dom, info, n, NULL, 0) == n)
		for (k = 0; k < n; k++)
			ret_cpu[k] = info[k].cpu >= 0 ? info[k].cpu : -1;
	free(info);
	return 0;
}

int
domain_policy_read(struct vp_virt *v, const unsigned char *uuid, bool live,
    char **ret_xml)
{
	virDomainPtr dom = virt_domain(v, uuid);
	virErrorPtr e;
	char *xml;

	if (!dom)
		return -ENOENT;
	xml = virDomainGetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT,
	    VP_POLICY_NS, live ? VIR_DOMAIN_AFFECT_LIVE :
	    VIR_DOMAIN_AFFECT_CURRENT);
	if (!xml) {
		e = virGetLastError();
		return e && e->code == VIR_ERR_NO_DOMAIN_METADATA ? -ENODATA :
		    -EIO;
	}
	*ret_xml = xml;
	return 0;
}

int
domain_nova_read(struct vp_virt *v, const unsigned char *uuid,
    char **ret_xml)
{
	static const char *const ns[] = { NOVA_NS_1_1, NOVA_NS_1_0 };
	virDomainPtr dom = virt_domain(v, uuid);
	virErrorPtr e;
	char *xml;
	size_t i;

	if (!dom)
		return -ENOENT;
	/* Nova writes one of them: 1.1 today, 1.0 in older releases */
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		xml = virDomainGetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT,
		    ns[i], VIR_DOMAIN_AFFECT_LIVE);
		if (xml) {
			*ret_xml = xml;
			return 0;
		}
		e = virGetLastError();
		if (!e || e->code != VIR_ERR_NO_DOMAIN_METADATA)
			return -EIO;
	}
	return -ENODATA;
}

int
domain_cputune(struct vp_virt *v, const unsigned char *uuid,
    struct vp_cputune *ret)
{
	virDomainPtr dom = virt_domain(v, uuid);
	char *xml;
	int r;

	if (!dom)
		return -ENOENT;
	xml = virDomainGetXMLDesc(dom, 0);
	if (!xml)
		return -EIO;
	r = cputune_parse(xml, strlen(xml), ret);
	free(xml);
	return r;
}

int
domain_policy_write(struct vp_virt *v, const unsigned char *uuid,
    const char *xml, unsigned int *ret_where)
{
	virDomainPtr dom = virt_domain(v, uuid);
	unsigned int flags = 0, where = 0;
	int active, persistent;

	if (!dom)
		return -ENOENT;
	active = virDomainIsActive(dom);
	persistent = virDomainIsPersistent(dom);
	if (active < 0 || persistent < 0)
		return -EIO;
	/* the running VM now, and its definition for the next boot */
	if (active) {
		flags |= VIR_DOMAIN_AFFECT_LIVE;
		where |= VP_WROTE_LIVE;
	}
	if (persistent) {
		flags |= VIR_DOMAIN_AFFECT_CONFIG;
		where |= VP_WROTE_CONFIG;
	}
	if (!flags)
		return -ENOENT;
	/* libvirt declares xmlns:vp itself: the text must not */
	if (virDomainSetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT, xml,
	    VP_POLICY_PREFIX, VP_POLICY_NS, flags) < 0)
		return -EIO;
	*ret_where = where;
	return 0;
}

/* The libvirt error of the last call, sorted. */
static enum vp_apply
classify(void)
{
	virErrorPtr e = virGetLastError();

	switch (e ? e->code : VIR_ERR_INTERNAL_ERROR) {
	case VIR_ERR_NO_DOMAIN:
	case VIR_ERR_OPERATION_INVALID:	/* "domain is not running" */
		return VP_APPLY_GONE;
	case VIR_ERR_INVALID_ARG:
	case VIR_ERR_CONFIG_UNSUPPORTED:
	case VIR_ERR_OPERATION_UNSUPPORTED:
	case VIR_ERR_NO_SUPPORT:
		return VP_APPLY_REFUSED;
	default:			/* RPC, system errors: next tick */
		return VP_APPLY_RETRY;
	}
}

/* A map with no CPU in it is never written. */
static bool
map_empty(const unsigned char *map, int maplen)
{
	int i;

	for (i = 0; i < maplen; i++)
		if (map[i])
			return false;
	return true;
}

enum vp_apply
domain_pin_vcpu_map(struct vp_virt *v, const unsigned char *uuid, int k,
    const unsigned char *map, int maplen)
{
	virDomainPtr dom;

	virResetLastError();	/* a refusal of ours is not libvirt's */
	if (k < 0 || maplen < 1 || map_empty(map, maplen))
		return VP_APPLY_REFUSED;
	if (!(dom = virt_domain(v, uuid)))
		return classify();
	if (virDomainPinVcpuFlags(dom, (unsigned int)k, (unsigned char *)map,
	    maplen, VIR_DOMAIN_AFFECT_LIVE) < 0)
		return classify();
	return VP_APPLY_APPLIED;
}

enum vp_apply
domain_pin_emulator_map(struct vp_virt *v, const unsigned char *uuid,
    const unsigned char *map, int maplen)
{
	virDomainPtr dom;

	virResetLastError();
	if (maplen < 1 || map_empty(map, maplen))
		return VP_APPLY_REFUSED;
	if (!(dom = virt_domain(v, uuid)))
		return classify();
	if (virDomainPinEmulator(dom, (unsigned char *)map, maplen,
	    VIR_DOMAIN_AFFECT_LIVE) < 0)
		return classify();
	return VP_APPLY_APPLIED;
}

enum vp_apply
domain_pin_vcpu(struct vp_virt *v, const unsigned char *uuid,
    const struct vp_topo *t, int k, const struct vp_cpuset *set)
{
	unsigned char map[VIR_CPU_MAPLEN(VP_MAX_OS_INDEX)];
	int maplen = domain_maplen(t);

	virResetLastError();
	if (!domain_map_of_set(t, set, map, maplen))
		return VP_APPLY_REFUSED;
	return domain_pin_vcpu_map(v, uuid, k, map, maplen);
}

enum vp_apply
domain_pin_emulator(struct vp_virt *v, const unsigned char *uuid,
    const struct vp_topo *t, const struct vp_cpuset *set)
{
	unsigned char map[VIR_CPU_MAPLEN(VP_MAX_OS_INDEX)];
	int maplen = domain_maplen(t);

	virResetLastError();
	if (!domain_map_of_set(t, set, map, maplen))
		return VP_APPLY_REFUSED;
	return domain_pin_emulator_map(v, uuid, map, maplen);
}
