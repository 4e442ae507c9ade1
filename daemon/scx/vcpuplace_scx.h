/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vcpuplace_scx.h: what daemon/scx/vcpuplace.bpf.c and its loader
 * (daemon/scx/scx_loader.c) share: map layouts and constants.  Both
 * sides compile it (CONTRIBUTING.md rule 13), the BPF side after
 * vmlinux.h, userspace after <linux/types.h>, so it uses only the
 * __u32-style types both have.
 *
 * The daemon writes three tables each tick (the BPF side only reads them):
 *   vp_pus    per OS CPU: its priority, SMT siblings, cluster and LLC
 *   vp_doms   wake domains: lists of CPUs, core by core, in scan order
 *   vp_vcpus  per managed vCPU thread (by tid): home, domains, policy bits
 * and reads two: vp_stats (global, per CPU) and vp_vcpu_stats (per vCPU
 * thread, per CPU).  Every table entry is replaced whole by one
 * bpf_map_update_elem(), so a wake-up sees the old entry or the new one,
 * never half of each, and never waits for the daemon.
 */
#ifndef VCPUPLACE_SCX_H
#define VCPUPLACE_SCX_H

/* The scheduler's name, as /sys/kernel/sched_ext/root/ops shows it. */
#define VP_SCX_NAME "vcpuplace"

/* Bounds of the tables (the verifier wants every loop bounded). */
#define VP_SCX_MAX_CPUS		1024	/* OS CPU ids 0..1023 */
#define VP_SCX_MAX_SMT		8	/* threads per core (POWER: 8) */
#define VP_SCX_MAX_DOMS		2048	/* clusters + LLCs + nodes + packages */
#define VP_SCX_DOM_CPUS		512	/* CPUs of one wake domain */
#define VP_SCX_MAX_VCPUS	65536	/* managed vCPU threads */

/*
 * Wake-ups and queueing outcomes, one u64 each in the per-CPU array
 * vp_stats (index = the enum value).  Userspace sums the CPUs; the wake
 * path never touches a shared cache line.  Counts every SCHED_EXT task,
 * managed vCPU or not.
 */
enum vp_scx_stat {
	VP_SCX_WAKE,		/* select_cpu calls, every task */
	VP_SCX_WAKE_UNMANAGED,	/* ... of tasks that are not managed vCPUs */
	VP_SCX_WAKE_IDLE_CORE,	/* ... of vCPUs: sent to a whole idle core */
	VP_SCX_WAKE_IDLE_PU,	/* ... to an idle PU with a busy sibling */
	VP_SCX_WAKE_QUEUED,	/* ... nothing idle: the shared queue */
	VP_SCX_DIRECT,		/* dispatched straight to an idle PU */
	VP_SCX_QUEUED,		/* queued in an LLC's queue (enqueue) */
	VP_SCX_KICK_IDLE,	/* ... and an idle PU was woken to drain it */
	VP_SCX_KEPT,		/* slice over, nobody waiting: kept its PU */
	VP_SCX_HOST_PACKED,	/* a host task woke beside host work */
	VP_SCX_HOST_MOVED,	/* ... moved there when its slice ended */
	VP_SCX_BAD_INPUT,	/* a vp_vcpus entry named a CPU or domain
				 * out of range: ignored, stock path used */
	VP_SCX_QUEUED_CPU,	/* queued in one CPU's own queue: it may run
				 * nowhere else (pinned, per-CPU kthread) */
	VP_SCX_STOLEN,		/* a PU with nothing of its own queued took
				 * a task from another LLC's queue */
	VP_SCX_SLICE_CUT,	/* ops.tick ended a slice: others waited */
	VP_SCX_KTHREAD,		/* a per-CPU kthread woke straight onto
				 * its PU, preempting */
	VP_SCX_LAT_PREEMPT,	/* a latency vCPU woke onto its PU,
				 * preempting */
	VP_SCX_WAKE_POLL_END,	/* ... of vCPUs: nothing idle, sent to a
				 * PU whose vCPU halt-polled, ending it */
	VP_SCX_HALT_SEEN,	/* vCPU halts seen (kvm_vcpu_halt()): 0
				 * where the probe is not attached */
	VP_SCX_YIELD_TO,	/* a vCPU's yield_to() honoured: it gave its
				 * turn to a vCPU of its own VM */
	VP_SCX_YIELD_MOVED,	/* ... and that vCPU was brought to the
				 * yielder's PU from a queue */
	VP_SCX_CG_UNTRACKED,	/* a cgroup found the cgroup table full:
				 * its tasks are charged as the root's */
	VP_SCX_WAKE_STAY_PREV,	/* ... of vCPUs: nothing idle nor polling,
				 * waits on prev, whose task ends soon */
	VP_SCX_WAKE_JOIN_WAKER,	/* ... of vCPUs: nothing idle, queued on
				 * the PU of the vCPU of its VM that woke it */
	VP_SCX_TAKEN_RELEASED,	/* a PU took a task from the own queue of a
				 * PU of its LLC that RT or deadline held */
	VP_SCX_KICK_RELEASED,	/* ... nothing idled there: a busy PU of
				 * the LLC was made to dispatch at once */
	VP_SCX_RESUME_HELD,	/* a slice end kept its task: an earlier
				 * one waited to resume on another PU */
	VP_SCX_LAT_FIRST,	/* a slice end gave its PU to a queued
				 * latency vCPU later by vtime than prev */
	VP_SCX_STAT_NR
};

/* The names of the counters, in enum order, for logs and metrics. */
#define VP_SCX_STAT_NAMES { "wake", "wake_unmanaged", "wake_idle_core", \
	"wake_idle_pu", "wake_queued", "direct", "queued", "kick_idle", \
	"kept", "host_packed", "host_moved", "bad_input", "queued_cpu", \
	"stolen", "slice_cut", "kthread", "lat_preempt", "wake_poll_end", \
	"halt_seen", "yield_to", "yield_moved", "cg_untracked", \
	"wake_stay_prev", "wake_join_waker", "taken_released", \
	"kick_released", "resume_held", "lat_first" }

/*
 * Per managed vCPU thread, per CPU (vp_vcpu_stats, a per-CPU hash keyed by
 * tid).  home, smt_busy and migrated were named after the
 * halt_wake_* counters of kvm-patches/0001, since dropped.  One wake-up
 * adds 1 to WAKEUP and to exactly one of HOME, IDLE_CORE, IDLE_SIBLING,
 * CACHE_HOT, PREV, POLL_END, STAY_PREV, JOIN_WAKER, QUEUED; the others
 * qualify it.
 */
enum vp_scx_vstat {
	VP_SCX_V_WAKEUP,	/* wake-ups decided (halt_wakeup) */
	VP_SCX_V_HOME,		/* on its home PU (halt_wake_home) */
	VP_SCX_V_IDLE_CORE,	/* on another PU whose whole core was idle */
	VP_SCX_V_IDLE_SIBLING,	/* on an idle PU next to a busy sibling */
	VP_SCX_V_PREV,		/* nothing idle: its previous PU, idle */
	VP_SCX_V_QUEUED,	/* nothing idle: the shared queue */
	VP_SCX_V_SMT_BUSY,	/* landed next to a busy sibling
				 * (halt_wake_smt_busy) */
	VP_SCX_V_SMT_BUSY_IDLE_CORE, /* ... while the idle-core mask showed
				 * a whole idle core in its allowed set: a
				 * wrong decision, expected to stay ~0 */
	VP_SCX_V_MIGRATED,	/* not its previous PU (halt_wake_migrated) */
	VP_SCX_V_CROSS_CLUSTER,	/* ... in another cluster than its previous */
	VP_SCX_V_CROSS_LLC,	/* ... in another LLC than its previous */
	VP_SCX_V_CACHE_HOT,	/* kept its previous PU: a short sleep */
	VP_SCX_V_PROBES,	/* CPUs looked at to decide (sum) */
	VP_SCX_V_POLL_END,	/* nothing idle: a PU whose vCPU halt-polled */
	VP_SCX_V_STAY_PREV,	/* nothing idle: waits on prev, whose task
				 * should stop within VP_SCX_STAY_PREV_NS */
	VP_SCX_V_JOIN_WAKER,	/* nothing idle: queued on the PU of the
				 * vCPU of its VM that woke it */
	VP_SCX_VSTAT_NR
};

#define VP_SCX_VSTAT_NAMES { "wakeup", "home", "idle_core", \
	"idle_sibling", "prev", "queued", "smt_busy", "smt_busy_idle_core", \
	"migrated", "cross_cluster", "cross_llc", "cache_hot", "probes", \
	"poll_end", "stay_prev", "join_waker" }

struct vp_scx_vcpu_stats {
	__u64 n[VP_SCX_VSTAT_NR];
};

/* Per-vCPU policy bits (struct vp_scx_vcpu.flags). */
enum vp_scx_vflag {
	/* SIS_CACHE: a short sleeper goes back to its idle previous PU */
	VP_SCX_F_CACHE_HOT	= 1u << 0,
	/* smt=isolate: never an idle PU next to a busy sibling */
	VP_SCX_F_SMT_ISOLATE	= 1u << 1,
	/* smt=any: first idle PU, SMT ignored */
	VP_SCX_F_SMT_ANY	= 1u << 2,
	/* locality: never wake outside far_dom (cluster, LLC or node) */
	VP_SCX_F_STAY_FAR_DOM	= 1u << 3,
	/* priority=high (the latency profile): a wake-up that finds no idle
	 * PU preempts what runs on its PU, unless that is urgent too */
	VP_SCX_F_LATENCY	= 1u << 4,
};

/*
 * Per managed vCPU thread (vp_vcpus, a hash keyed by tid).  The allowed
 * set is not here: it is the thread's affinity (p->cpus_ptr), which the
 * daemon sets through libvirt, so the two cannot disagree.
 */
struct vp_scx_vcpu {
	__s32 home;		/* OS CPU, -1: none */
	__u32 near_dom;		/* first wake domain: the home cluster, widened */
	__u32 far_dom;		/* second: the home LLC, widened; may equal near */
	__u32 flags;		/* enum vp_scx_vflag */
	__u64 short_sleep_ns;	/* SIS_CACHE: a sleep shorter is cache-hot */
	__u32 vm;		/* the daemon's VM slot, for its own lookups */
	__u32 vcpu;		/* vCPU index in the VM */
};

/* Per OS CPU (vp_pus, an array indexed by CPU id). */
struct vp_scx_pu {
	__u32 prio;		/* core priority (ITMT/prefcore style), > 0 */
	__u32 cluster_dom;	/* its cluster's domain id in vp_doms */
	__u32 llc_dom;		/* its LLC's domain id */
	__u32 nsib;		/* SMT siblings below, this CPU excluded */
	__s32 sib[VP_SCX_MAX_SMT];
	__u32 valid;		/* 0 until the daemon filled it */
	/*
	 * The LLCs' domain ids are llc_first .. llc_first + nllcs - 1 (the
	 * daemon numbers each level's domains together): the queues a PU
	 * with nothing of its own queued looks in, nearest id first.
	 */
	__u32 llc_first;
	__u32 nllcs;
};

/* A wake domain (vp_doms, an array indexed by domain id). */
struct vp_scx_dom {
	__u32 ncpus;
	__u32 max_prio;		/* a whole idle core of this prio ends a scan */
	__s32 cpu[VP_SCX_DOM_CPUS];	/* core by core, scan order */
};

/*
 * The slice bounds, ns (why these values: VP_SLICE_MAX in
 * vcpuplace.bpf.c), here because the wake rules and the simulator need
 * them too: STAY_PREV waits on prev at most about the shortest slice.
 */
#define VP_SCX_SLICE_MAX_NS	5000000ULL
#define VP_SCX_SLICE_MIN_NS	1000000ULL
#define VP_SCX_SLICE_KTHREAD_NS	250000ULL
#define VP_SCX_STAY_PREV_NS	VP_SCX_SLICE_MIN_NS
/*
 * A task whose slice ended while others waited waits to resume on the PU
 * it ran on (its caches, its vCPU's VMCS and TLB are there), until that
 * PU's next slice end: the other PUs of its queue pass it over while
 * their own task is less than VP_SCX_RESUME_LAG_NS ahead of it by vtime,
 * and a PU about to idle takes it only when nothing else waits.  Why
 * this value: held_elsewhere() in vcpuplace.bpf.c.  A PU reads at most
 * VP_SCX_RESUME_SCAN tasks of each of its two queues to find one.
 */
#define VP_SCX_RESUME_LAG_NS	(2 * VP_SCX_SLICE_MAX_NS)
#define VP_SCX_RESUME_SCAN	16
/*
 * At a slice end, a queued latency-profile vCPU goes before a task that
 * is not one although it is up to this much later by vtime (lat_leads()
 * in vcpuplace.bpf.c): its wait is one slice, not the rotation, and it
 * runs at most this far ahead of its fair share.
 */
#define VP_SCX_LAT_LEAD_NS	(2 * VP_SCX_SLICE_MAX_NS)
/*
 * JOIN_WAKER's bound on the usual run of the vCPU woken and of the one
 * waking it: ping-pong partners whose bursts are a few migrations long
 * (tbench's 10-20 us; a migration costs 4-6 us in the simulator's
 * tables).  schbench's 400 us workers stay out.  Swept on the tuning set
 * at 30, 60 and 120 us (bench/README.md, "Joining the waker").
 */
#ifndef VP_SCX_JOIN_RUN_NS	/* -D for the sweep of the bound only */
#define VP_SCX_JOIN_RUN_NS	60000ULL
#endif

/* Global switches (the .bss's vp_features), one bit per rule. */
enum vp_scx_feature {
	VP_SCX_FEAT_HOME	= 1u << 0,	/* rule 1: the home PU if idle */
	VP_SCX_FEAT_SIS_CORE	= 1u << 1,	/* rule 2: whole idle cores */
	VP_SCX_FEAT_CLUSTER_FIRST = 1u << 2,	/* near_dom before far_dom */
	VP_SCX_FEAT_SMT_PRIO	= 1u << 3,	/* rule 3: SMT-aware priority */
	VP_SCX_FEAT_SIS_CACHE	= 1u << 4,	/* cache-hot short sleepers */
	/* rule 3's tie-break: the sibling whose busy partner idles soonest */
	VP_SCX_FEAT_SOON_IDLE	= 1u << 5,
	/* host tasks wake next to other host work, leaving whole cores */
	VP_SCX_FEAT_HOST_PACK	= 1u << 6,
	/* nothing idle: a PU whose vCPU halt-polls ends its poll for us */
	VP_SCX_FEAT_POLL_END	= 1u << 7,
	/* a vCPU's yield_to() another vCPU of its VM is honoured */
	VP_SCX_FEAT_YIELD_TO	= 1u << 8,
	/* nothing idle nor polling: wait on prev if its task ends soon */
	VP_SCX_FEAT_STAY_PREV	= 1u << 9,
	/* nothing idle: a short-run vCPU woken by a short-run vCPU of its
	 * VM queues on the waker's PU */
	VP_SCX_FEAT_JOIN_WAKER	= 1u << 10,
	/* a far domain wider than prev's LLC: that LLC is scanned first */
	VP_SCX_FEAT_LLC_FIRST	= 1u << 11,
	/* a task queued by its slice end waits for its own PU's next one */
	VP_SCX_FEAT_RESUME_PREV	= 1u << 12,
	VP_SCX_FEAT_ALL		= (1u << 13) - 1,
	/*
	 * What the program runs before the daemon writes its switches, and
	 * the core's defaults (feature_list.h): all but STAY_PREV, which the
	 * held-out set did not bear out (bench/README.md, "Waiting on prev").
	 */
	VP_SCX_FEAT_DEFAULT	= VP_SCX_FEAT_ALL & ~VP_SCX_FEAT_STAY_PREV,
};

/*
 * Dispatch queues, each ordered by vtime (sched_ext user DSQs; ids below
 * 2^63, and no two alike):
 *   - one per CPU, for a task that may run on that CPU alone (one
 *     allowed CPU): no other CPU walks past it;
 *   - one per LLC, by the LLC's domain id, for every other task that
 *     found no idle PU, at the LLC of the CPU select_cpu chose.  Its
 *     CPUs take the earlier of their own queue's and their LLC's head;
 *     with both empty they take from another LLC's queue (stolen);
 *   - the shared one, for what wakes before the daemon has written a
 *     CPU's vp_pus entry (its LLC is not known yet); drained by all.
 */
#define VP_SCX_DSQ_SHARED	0
#define VP_SCX_DSQ_CPU(cpu)	((1ULL << 32) | (__u32)(cpu))
#define VP_SCX_DSQ_LLC(dom)	((2ULL << 32) | (__u32)(dom))
/* LLC queues a PU with nothing of its own looks in, at most */
#define VP_SCX_MAX_STEAL	256

/*
 * Why the kernel ejected the scheduler (the .bss's vp_exit_rec): ops.exit()
 * copies the kernel's struct scx_exit_info into it, kind last, and the
 * loader reads it once kind is non-zero.  The lengths are the kernel's
 * (SCX_EXIT_REASON_LEN, SCX_EXIT_MSG_LEN in 6.12 to 7.3); a longer text
 * is cut, NUL-terminated.
 */
#define VP_SCX_EXIT_REASON_LEN	128
#define VP_SCX_EXIT_MSG_LEN	1024

struct vp_scx_exit_rec {
	int kind;		/* enum scx_exit_kind; 0 while loaded */
	__s64 exit_code;
	char reason[VP_SCX_EXIT_REASON_LEN];
	char msg[VP_SCX_EXIT_MSG_LEN];
};

#endif /* VCPUPLACE_SCX_H */
