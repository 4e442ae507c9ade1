/* privs.c - see privs.h. */
#include <errno.h>
#include <linux/capability.h>
#include <cap-ng.h>
#include <seccomp.h>

#include "host/privs.h"

static const struct {
	int cap;
	const char *name;
} privs[VP_PRIV_COUNT] = {
	[VP_PRIV_SYS_NICE] = { CAP_SYS_NICE, "CAP_SYS_NICE" },
	[VP_PRIV_BPF] = { CAP_BPF, "CAP_BPF" },
	[VP_PRIV_PERFMON] = { CAP_PERFMON, "CAP_PERFMON" },
	[VP_PRIV_SYS_ADMIN] = { CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
	[VP_PRIV_NET_ADMIN] = { CAP_NET_ADMIN, "CAP_NET_ADMIN" },
	[VP_PRIV_SYS_PTRACE] = { CAP_SYS_PTRACE, "CAP_SYS_PTRACE" },
};

const char *
privs_name(enum vp_priv p)
{
	return p < VP_PRIV_COUNT ? privs[p].name : "?";
}

int
privs_keep_only(const bool keep[VP_PRIV_COUNT])
{
	bool have[VP_PRIV_COUNT];
	int i;

	if (capng_get_caps_process() < 0)
		return -EIO;
	/* what we do not hold now cannot be kept: capset would refuse it */
	for (i = 0; i < VP_PRIV_COUNT; i++)
		have[i] = keep && keep[i] && capng_have_capability(
		    CAPNG_PERMITTED, (unsigned)privs[i].cap);
	/* the bounding set is not ours to change (no CAP_SETPCAP) */
	capng_clear(CAPNG_SELECT_CAPS);
	for (i = 0; i < VP_PRIV_COUNT; i++)
		if (have[i] && capng_update(CAPNG_ADD, CAPNG_EFFECTIVE |
		    CAPNG_PERMITTED, (unsigned)privs[i].cap) < 0)
			return -EINVAL;
	errno = 0;
	if (capng_apply(CAPNG_SELECT_CAPS) < 0)
		return errno ? -errno : -EPERM;
	return 0;
}

int
privs_deny_bpf(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	if (!ctx)
		return -ENOMEM;
	/* every thread at once: libvirt's event thread is running already */
	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1)) == 0 &&
	    (r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(bpf),
	    0)) == 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r < 0 ? r : 0;
}

int
privs_read(bool held[VP_PRIV_COUNT])
{
	unsigned cap;
	int i, n = 0;

	if (capng_get_caps_process() < 0)
		return -EIO;
	for (i = 0; i < VP_PRIV_COUNT; i++)
		held[i] = capng_have_capability(CAPNG_EFFECTIVE,
		    (unsigned)privs[i].cap);
	for (cap = 0; cap <= CAP_LAST_CAP; cap++)
		n += capng_have_capability(CAPNG_EFFECTIVE, cap);
	return n;
}
