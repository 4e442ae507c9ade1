/*
 * domain.h - one libvirt domain: what it is, where its vCPUs may run,
 * its vcpuplace metadata, and live pins.  CPU sets are in the model's
 * PU indices (core/vcpuplace.h); the OS numbering libvirt speaks is
 * converted here and nowhere else.
 *
 * A domain is named by its UUID on a connection (host/virt.h): the
 * handle is looked up here, or kept from the last listing, and never
 * handed out.  A UUID that names no domain is -ENOENT (VP_APPLY_GONE for
 * a pin).
 *
 * Never logs.  Failures come back as -errno or an enum vp_apply;
 * virt_error() (host/virt.h) has libvirt's words for them.
 */
#ifndef VP_DOMAIN_H
#define VP_DOMAIN_H

#include "core/vcpuplace.h"
#include "host/virt.h"

/*
 * CPU sets as libvirt speaks them: OS-numbered bitmaps of maplen bytes
 * (VIR_CPU_MAPLEN), the form in which they cross to the libvirt worker
 * (host/virt_msg.h).  These four are pure: the conversions to and from
 * the model's PU indices, here and nowhere else.
 */
/* The bytes of a map that holds every OS CPU of @t. */
int domain_maplen(const struct vp_topo *t);
/*
 * @s as a map into @map (@maplen bytes); false, @map untouched, for a
 * set never pinned: empty, or holding a PU not online in @t.
 */
bool domain_map_of_set(const struct vp_topo *t, const struct vp_cpuset *s,
    unsigned char *map, int maplen);
/* The PUs of @t that @map (@maplen bytes) holds. */
void domain_set_of_map(const struct vp_topo *t, const unsigned char *map,
    int maplen, struct vp_cpuset *ret);
/* The PU of OS CPU @cpu, VP_PU_NONE for -1 or one @t does not have. */
int domain_pu_of_cpu(const struct vp_topo *t, int cpu);

/*
 * The live affinity of vCPUs 0..@n-1 as maps into ret_maps (@n times
 * @maplen bytes) and the OS CPU each last ran on into ret_cpu[n] (-1
 * when libvirt does not say).  -EIO, -ENOENT or -ENOMEM.
 */
int domain_vcpu_maps(struct vp_virt *v, const unsigned char *uuid, int n,
    int maplen, unsigned char *ret_maps, int *ret_cpu) VP_MUST_CHECK;

/*
 * The vcpuplace metadata element (VP_POLICY_NS) as text, *ret_xml
 * malloc'd.  @live: of the running domain, else of what is current
 * (live when running, the persistent config otherwise).  Returns 0,
 * -ENODATA when the domain has none, -ENOENT when there is no such
 * domain, -EIO for any other failure (a passing one must not be taken
 * for "no metadata").
 */
int domain_policy_read(struct vp_virt *v, const unsigned char *uuid,
    bool live, char **ret_xml) VP_MUST_CHECK;

/*
 * OpenStack Nova's own metadata element (<nova:instance>, namespace
 * NOVA_NS_1_1 or NOVA_NS_1_0, host/nova_xml.h) of the running domain as
 * text, *ret_xml malloc'd: 0, -ENODATA when it has none (not a Nova
 * instance), -ENOENT (no such domain), -EIO for any other failure.
 */
int domain_nova_read(struct vp_virt *v, const unsigned char *uuid,
    char **ret_xml) VP_MUST_CHECK;

/*
 * The domain's CPU quotas from its live XML's <cputune>
 * (host/cputune.h).  -EIO when libvirt does not give the XML, -EINVAL
 * when the XML cannot be read, -ENOENT, -ENOMEM; *ret untouched then.
 */
struct vp_cputune;
int domain_cputune(struct vp_virt *v, const unsigned char *uuid,
    struct vp_cputune *ret) VP_MUST_CHECK;

/* Where domain_policy_write() wrote. */
#define VP_WROTE_LIVE	1u
#define VP_WROTE_CONFIG	2u

/*
 * The one path that sets a VM's policy: writes @xml (from
 * policy_to_metadata()) to the running domain and, if it is persistent,
 * to its config, so the policy survives a restart and migrates with it.
 * Returns 0 with *ret_where a mask of VP_WROTE_*, -ENOENT when the
 * domain is neither running nor defined, -EIO when libvirt refuses.
 */
int domain_policy_write(struct vp_virt *v, const unsigned char *uuid,
    const char *xml, unsigned int *ret_where) VP_MUST_CHECK;

/* The outcome of a pin, every libvirt failure sorted into one of these. */
enum vp_apply {
	VP_APPLY_APPLIED,
	VP_APPLY_UNCHANGED,	/* nothing to do (decided by the caller) */
	VP_APPLY_RETRY,		/* RPC or system error: try next tick */
	VP_APPLY_GONE,		/* the domain stopped meanwhile */
	VP_APPLY_REFUSED,	/* libvirt or we will never take this set */
};

/*
 * Pins vCPU @k live to the OS CPUs of @map (@maplen bytes).  An empty
 * map is never written: VP_APPLY_REFUSED.
 */
enum vp_apply domain_pin_vcpu_map(struct vp_virt *v,
    const unsigned char *uuid, int k, const unsigned char *map, int maplen);
/* The same for the emulator threads (QEMU's main loop, I/O). */
enum vp_apply domain_pin_emulator_map(struct vp_virt *v,
    const unsigned char *uuid, const unsigned char *map, int maplen);
/*
 * Pins vCPU @k live to @set.  An empty set, or one holding a PU that is
 * not online in @t, is never written: VP_APPLY_REFUSED.
 */
enum vp_apply domain_pin_vcpu(struct vp_virt *v, const unsigned char *uuid,
    const struct vp_topo *t, int k, const struct vp_cpuset *set);
/* The same for the emulator threads (QEMU's main loop, I/O). */
enum vp_apply domain_pin_emulator(struct vp_virt *v,
    const unsigned char *uuid, const struct vp_topo *t,
    const struct vp_cpuset *set);

#endif /* VP_DOMAIN_H */
