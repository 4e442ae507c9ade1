/*
 * privs.h - the capabilities this process holds, and giving them up.
 *
 * Through libcap-ng, on this process only: a capability dropped from the
 * effective and permitted sets cannot come back (the unit sets
 * no_new_privs and the daemon never execs), so a drop is for the
 * process's life.  The bounding set is left as the unit made it:
 * changing it needs CAP_SETPCAP, which the daemon is never given.
 */
#ifndef VP_PRIVS_H
#define VP_PRIVS_H

#include <stdbool.h>
#include <stddef.h>

/* The capabilities the service may hold at all (vcpuplaced(8) says why
 * each one): sched_ext's four, the proc connector's, core scheduling's. */
enum vp_priv {
	VP_PRIV_SYS_NICE,	/* sched_setattr(SCHED_EXT) on QEMU's threads */
	VP_PRIV_BPF,		/* the BPF scheduler's maps and programs */
	VP_PRIV_PERFMON,	/* its programs read kernel structures */
	VP_PRIV_SYS_ADMIN,	/* its struct_ops attach, BTF by id */
	VP_PRIV_NET_ADMIN,	/* joining the proc connector's group */
	VP_PRIV_SYS_PTRACE,	/* PR_SCHED_CORE on another user's QEMU */
	VP_PRIV_COUNT
};

/* "CAP_SYS_NICE" and so on. */
const char *privs_name(enum vp_priv p);
/*
 * Keeps, of every capability the process has, only those in @keep
 * (VP_PRIV_COUNT flags, true = keep; NULL keeps none): all others, the
 * ones listed above or not, leave the effective, permitted and
 * inheritable sets.  Capabilities are per thread: this changes only the
 * calling thread's, and threads created afterwards inherit them.  0 or
 * -errno (-EPERM where capset is filtered out), nothing changed then.
 */
int privs_keep_only(const bool keep[VP_PRIV_COUNT]);
/*
 * From now on bpf(2) fails with EPERM in every thread of the process (a
 * seccomp filter through libseccomp, synchronised to all threads; it
 * sets no_new_privs, which the unit sets anyway).  For a daemon that
 * will never load a BPF scheduler: without CAP_BPF the call can do
 * little, but a host with kernel.unprivileged_bpf_disabled=0 would still
 * let it load socket filters and make maps.  Filters cannot be removed.
 * 0 or -errno.
 */
int privs_deny_bpf(void);

/*
 * The main thread's effective set now: @held[p] for each of the above,
 * and the count of all the kernel's capabilities it holds, or -errno.
 */
int privs_read(bool held[VP_PRIV_COUNT]);

#endif /* VP_PRIVS_H */
