/*
 * privileges.h - the daemon keeps only the capabilities it still uses.
 *
 * The unit gives a bounding set (systemd/vcpuplaced.service.in); this
 * narrows the loop thread to what this run can still need, once start-up
 * has done its privileged steps (the socket, the proc connector) and
 * again whenever the kernel mode settles for good (a scheduler ejected is
 * never reloaded).  Dropping is for the process's life.
 */
#ifndef VP_PRIVILEGES_H
#define VP_PRIVILEGES_H

#include <stdbool.h>

#include "host/privs.h"

struct vp_daemon;

struct vp_privileges {
	bool settled;			/* the first drop was made */
	bool want[VP_PRIV_COUNT];	/* as of the last drop */
	int err;			/* its -errno, 0 */
	unsigned long errors;		/* drops that failed */
	bool thread_told;		/* the event thread's failure, said */
	bool worker_told;		/* the libvirt worker's, said */
	bool bpf_denied;		/* bpf(2) filtered out for good */
};

/*
 * What this run may still need, from what the daemon now knows: sched_ext's
 * four while its scheduler runs or may load again, CAP_SYS_PTRACE where
 * the kernel has core scheduling, nothing else (pins go through libvirt,
 * the proc connector was joined at start-up).
 */
void privileges_wanted(const struct vp_daemon *d, bool want[VP_PRIV_COUNT]);
/*
 * Drops what is no longer wanted, and once no BPF capability is wanted
 * filters bpf(2) out too; says what is kept, and why, on change.
 */
void privileges_settle(struct vp_daemon *d);

#endif /* VP_PRIVILEGES_H */
