/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vcpuplace_scx.h: what daemon/scx/vcpuplace.bpf.c and its loader
 * (daemon/host/scx.c) share: map layouts and constants.  Both sides compile
 * it (STYLE.md rule 13), the BPF side after vmlinux.h, userspace after
 * <stdint.h>, so it uses no type of either: only enums and macros.
 */
#ifndef VCPUPLACE_SCX_H
#define VCPUPLACE_SCX_H

/* The scheduler's name, as /sys/kernel/sched_ext/root/ops shows it. */
#define VP_SCX_NAME "vcpuplace"

/*
 * Wake-ups and queueing outcomes, one u64 each in the per-CPU array
 * vp_stats (index = the enum value).  Userspace sums the CPUs; the wake
 * path never touches a shared cache line.
 */
enum vp_scx_stat {
	VP_SCX_WAKE,		/* select_cpu calls: wake-ups of SCHED_EXT tasks */
	VP_SCX_WAKE_IDLE_CORE,	/* ... that found a whole idle core */
	VP_SCX_WAKE_PREV_IDLE,	/* ... none, and the previous PU was idle */
	VP_SCX_WAKE_PREV_BUSY,	/* ... none, and the previous PU was busy */
	VP_SCX_DIRECT,		/* dispatched straight to an idle PU */
	VP_SCX_QUEUED,		/* queued on the shared FIFO (enqueue) */
	VP_SCX_KICK_IDLE,	/* ... and an idle PU was woken to drain it */
	VP_SCX_STAT_NR
};

/* The names of the counters, in enum order, for logs and tests. */
#define VP_SCX_STAT_NAMES { "wake", "wake_idle_core", "wake_prev_idle", \
	"wake_prev_busy", "direct", "queued", "kick_idle" }

/* The shared FIFO: a user dispatch queue, drained by any PU that idles. */
#define VP_SCX_DSQ_SHARED 0

#endif /* VCPUPLACE_SCX_H */
