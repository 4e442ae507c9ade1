/*
 * domain.h - one libvirt domain: what it is, where its vCPUs may run,
 * its vcpuplace metadata, and live pins.  CPU sets are in the model's
 * PU indices (core/vcpuplace.h); the OS numbering libvirt speaks is
 * converted here and nowhere else.
 *
 * Never logs.  Failures come back as -errno or an enum vp_apply;
 * virt_error() (host/virt.h) has libvirt's words for them.
 */
#ifndef VP_DOMAIN_H
#define VP_DOMAIN_H

#include <libvirt/libvirt.h>

#include "core/vcpuplace.h"

struct vp_dom_info {
	char name[256];
	unsigned char uuid[VIR_UUID_BUFLEN];
	int nvcpus;		/* live, >= 1 */
};

/*
 * Fills *ret; -ENOENT when the domain has gone meanwhile, -ENAMETOOLONG
 * (uuid filled) when its name does not fit name[]: a truncated name
 * could be another VM's.
 */
int domain_info(virDomainPtr dom, struct vp_dom_info *ret) VP_MUST_CHECK;

/*
 * The live affinity of vCPUs 0..@n-1 into ret_aff[n] and the PU each
 * last ran on into ret_current[n] (VP_PU_NONE when libvirt does not
 * say).  -EIO, or -ENOMEM; the arrays are untouched on failure.
 */
int domain_vcpu_affinity(virDomainPtr dom, const struct vp_topo *t, int n,
    struct vp_cpuset *ret_aff, int *ret_current) VP_MUST_CHECK;

/*
 * The vcpuplace metadata element (VP_POLICY_NS) as text, *ret_xml
 * malloc'd.  @live: of the running domain, else of what is current
 * (live when running, the persistent config otherwise).  Returns 0,
 * -ENODATA when the domain has none, -EIO for any other failure (a
 * passing one must not be taken for "no metadata").
 */
int domain_policy_read(virDomainPtr dom, bool live, char **ret_xml)
	VP_MUST_CHECK;

/*
 * OpenStack Nova's own metadata element (<nova:instance>, namespace
 * NOVA_NS_1_1 or NOVA_NS_1_0, host/nova_xml.h) of the running domain as
 * text, *ret_xml malloc'd: 0, -ENODATA when it has none (not a Nova
 * instance), -EIO for any other failure.
 */
int domain_nova_read(virDomainPtr dom, char **ret_xml) VP_MUST_CHECK;

/*
 * The domain's CPU quotas from its live XML's <cputune>
 * (host/cputune.h).  -EIO when libvirt does not give the XML, -EINVAL
 * when the XML cannot be read, -ENOMEM; *ret untouched then.
 */
struct vp_cputune;
int domain_cputune(virDomainPtr dom, struct vp_cputune *ret) VP_MUST_CHECK;

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
int domain_policy_write(virDomainPtr dom, const char *xml,
    unsigned int *ret_where) VP_MUST_CHECK;

/* The outcome of a pin, every libvirt failure sorted into one of these. */
enum vp_apply {
	VP_APPLY_APPLIED,
	VP_APPLY_UNCHANGED,	/* nothing to do (decided by the caller) */
	VP_APPLY_RETRY,		/* RPC or system error: try next tick */
	VP_APPLY_GONE,		/* the domain stopped meanwhile */
	VP_APPLY_REFUSED,	/* libvirt or we will never take this set */
};

/*
 * Pins vCPU @k live to @set.  An empty set, or one holding a PU that is
 * not online in @t, is never written: VP_APPLY_REFUSED.
 */
enum vp_apply domain_pin_vcpu(virDomainPtr dom, const struct vp_topo *t,
    int k, const struct vp_cpuset *set);
/* The same for the emulator threads (QEMU's main loop, I/O). */
enum vp_apply domain_pin_emulator(virDomainPtr dom, const struct vp_topo *t,
    const struct vp_cpuset *set);

#endif /* VP_DOMAIN_H */
