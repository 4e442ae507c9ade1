/*
 * cputune.h - a domain's CPU bandwidth limits (cgroup cpu.max), from the
 * <cputune> of its live XML: <quota> (each vCPU; libvirt's vcpu_quota,
 * OpenStack's quota:cpu_quota), <global_quota>, <emulator_quota>,
 * <iothread_quota>, each in microseconds per its period.  libvirt writes
 * the live XML's <cputune> whenever it applies one of them, also through
 * virDomainSetSchedulerParameters (virsh schedtune --live), so the live
 * XML says what is in force.
 *
 * Pure: parses text, never logs.  domain_cputune() (host/domain.h)
 * fetches the text.
 */
#ifndef VP_CPUTUNE_H
#define VP_CPUTUNE_H

#include <stdbool.h>
#include <stddef.h>

/* The quotas; 0 where there is none (absent, or libvirt's -1: no limit). */
struct vp_cputune {
	long long quota_us;		/* <quota>: per vCPU */
	long long global_quota_us;	/* <global_quota>: the whole VM */
	long long emulator_quota_us;	/* <emulator_quota> */
	long long iothread_quota_us;	/* <iothread_quota> */
	long long period_us;		/* <period>, 0 absent */
};

/*
 * Parses domain XML @xml (@len bytes) into *@ret.  -EINVAL: not a
 * <domain> document, or a quota that is no integer (ret untouched);
 * -ENOMEM.
 */
int cputune_parse(const char *xml, size_t len, struct vp_cputune *ret)
	__attribute__((warn_unused_result));

/* Whether any of the quotas limits the domain. */
bool cputune_has_quota(const struct vp_cputune *c);

/*
 * The first quota in words into @buf ("<quota> 50000 us per 100000 us
 * period"; "no quota" when none); returns @buf.
 */
const char *cputune_words(const struct vp_cputune *c, char *buf, size_t len);

#endif
