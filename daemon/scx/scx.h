/*
 * scx.h - the sched_ext scheduler of daemon/scx/ (Linux 6.12+ with
 * CONFIG_SCHED_CLASS_EXT): load it, attach it through a link, read its
 * counters and, when the kernel ejects it, why.
 *
 * The loader (daemon/scx/scx_loader.c) is built only by the scx make
 * targets (daemon/scx/scx.mk) or `make SCX=yes`, as the package is: they
 * build the BPF object and its libbpf skeleton from the committed
 * vmlinux.h.  The normal build links scx/scx_stub.c instead:
 * scx_load() then returns -EOPNOTSUPP and callers need no #ifdef
 * (CONTRIBUTING.md rule 6).  What needs no BPF (scx/scx.c:
 * scx_state_read(), scx_kernel_supports(), scx_task_set_ext()) is the
 * same in both.
 */
#ifndef VP_SCX_H
#define VP_SCX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "scx/vcpuplace_scx.h"

/* A loaded and attached scheduler.  Owned by the caller: scx_free(). */
struct scx_sched;

/* Why the scheduler stopped, as its ops.exit() recorded it. */
struct scx_exit {
	int kind;		/* enum scx_exit_kind: 64 unregistered, 1024+ error */
	int64_t exit_code;
	char reason[128];	/* the kernel's words, e.g. "runnable task stall" */
	char msg[1024];		/* details (the stalled task, the BPF error) */
	/*
	 * exit_code has the running kernel's SCX_ECODE_ACT_RESTART (its
	 * BTF's value): the kernel asks the loader to load it again, as
	 * after a CPU went on- or offline (6.12 handle_hotplug()).
	 */
	bool restart;
};

/*
 * <@root>/sys/kernel/sched_ext/state ("enabled", "disabled", "enabling",
 * "disabling") into @buf without the newline; @root NULL is "/", another
 * one a fake tree for tests.  -ENOENT: no sched_ext.
 */
int scx_state_read(const char *root, char *buf, size_t len);
/* One thread, as it was when the daemon last read it. */
struct scx_thread {
	int pid, tid;
	uint64_t start;		/* /proc's field 22 (procstat.h) */
};

/*
 * Moves thread @t into SCHED_EXT (@ext) or back to SCHED_OTHER, its nice
 * value kept.  A SCHED_EXT thread runs on CFS whenever no BPF scheduler
 * is loaded, so this is safe before scx_load() and after an ejection.
 *
 * Only what the daemon put there itself: a thread in any class but
 * SCHED_OTHER (libvirt's <vcpusched scheduler='fifo|rr|batch|idle'>, or
 * an operator's chrt) is left in it and SCX_OWN_CLASS returned, and only
 * a thread in SCHED_EXT is moved back.  A tid whose start time is no longer
 * @t's is another thread: -ESRCH, as for one gone, and nothing changed.
 * (It is checked just before the call; a tid reused within those
 * microseconds is the window left, as for any tid-based syscall.)
 * 0, SCX_OWN_CLASS or -errno.
 */
#define SCX_OWN_CLASS	1
int scx_task_set_ext(const struct scx_thread *t, bool ext);

/*
 * Whether this kernel can run the scheduler, as the files under @root
 * (NULL: "/") tell: 0 yes; -ENOENT no sched_ext (sys/kernel/sched_ext
 * absent); -ENODATA no kernel BTF (sys/kernel/btf/vmlinux), which
 * struct_ops needs; -EOPNOTSUPP this binary was built without the
 * scheduler.  What else the kernel refuses (isolcpus=) is
 * host/isolation.h's.
 */
int scx_supported(const char *root);
/* The kernel's part of scx_supported(), whatever this binary holds. */
int scx_kernel_supports(const char *root);
/*
 * What the scheduler was built with, "v1.4" (libbpf's version string),
 * or NULL in a binary without it: for --version, so an
 * operator can tell which daemon an install put in place.
 */
const char *scx_built_with(void);
/*
 * The name of the BPF scheduler loaded now
 * (<@root>/sys/kernel/sched_ext/root/ops) into @buf; -ENOENT when none is.
 */
int scx_loaded_ops(const char *root, char *buf, size_t len);

/* scx_load() flags */
enum scx_load_flag {
	/*
	 * SCX_OPS_SWITCH_PARTIAL: only SCHED_EXT tasks (the vCPUs) are
	 * scheduled by BPF, every host task stays on CFS, which runs above
	 * them.  Without it every task is (see daemon/scx/README.md: why the
	 * daemon loads it without).
	 */
	SCX_LOAD_PARTIAL = 1u << 0,
};

/*
 * Opens, loads and attaches the scheduler.  The struct_ops link belongs to
 * this process: if it dies, the kernel unloads the scheduler and every
 * task goes back to CFS.  -EBUSY: another BPF scheduler is loaded;
 * -EOPNOTSUPP: the stand-in (scx_stub.c).  *@ret_sched is set only on
 * success.  @flags: enum scx_load_flag.
 */
int scx_load(struct scx_sched **ret_sched, unsigned int flags);
/*
 * How the halt-poll probes (kvm_vcpu_halt()) are attached: "kprobe",
 * "fentry", or NULL when they are not (no KVM at scx_load(), a kernel
 * with neither kprobes nor ftrace's call sites; NULL for NULL).
 * POLL_END can only see polling vCPUs with them.
 */
const char *scx_halt_probes(const struct scx_sched *s);

/*
 * The daemon's inputs.  Each call replaces one table entry whole (see
 * vcpuplace_scx.h); a wake-up never waits for it.
 */
/*
 * Whether @s honours cgroup cpu.weight: loaded with its cgroup ops, which
 * a kernel without CONFIG_EXT_GROUP_SCHED lacks (then every task is
 * weighed by its nice value alone).  False for NULL.
 */
bool scx_cgroup_weights(const struct scx_sched *s);
/* Rule switches, enum vp_scx_feature bits; takes effect at once. */
void scx_features_set(struct scx_sched *s, uint32_t features);
int scx_pu_set(struct scx_sched *s, int cpu, const struct vp_scx_pu *pu);
int scx_dom_set(struct scx_sched *s, unsigned int id,
    const struct vp_scx_dom *dom);
/* Creates or replaces @tid's entry; its counters start at 0 when new. */
int scx_vcpu_set(struct scx_sched *s, int tid, const struct vp_scx_vcpu *v);
/* Forgets @tid and its counters; -ENOENT when it was not there. */
int scx_vcpu_del(struct scx_sched *s, int tid);
/* @tid's counters summed over CPUs; -ENOENT when it is not managed. */
int scx_vcpu_stats_read(const struct scx_sched *s, int tid,
    struct vp_scx_vcpu_stats *ret);
/*
 * Test hook: the next wake-up of a managed vCPU calls scx_bpf_error(), so
 * the kernel ejects the scheduler as on any BPF error.
 */
void scx_force_error(struct scx_sched *s);
/*
 * Test hook: JOIN_WAKER's bound on the usual runs of a vCPU woken and of
 * its waker (VP_SCX_JOIN_RUN_NS until set).  The boot tests raise it:
 * under QEMU TCG a ping-pong burst takes hundreds of microseconds.
 */
void scx_join_run_set(struct scx_sched *s, uint64_t ns);
/*
 * Test hook: RESUME_PREV's bound on how far by vtime a task held for its
 * own PU may fall behind another PU's task (VP_SCX_RESUME_LAG_NS until
 * set).  scx_resume raises it: QEMU TCG's slices run past the bound.
 */
void scx_resume_lag_set(struct scx_sched *s, uint64_t ns);
/*
 * Test hook: how far by vtime a queued latency vCPU may be later than a
 * PU's task and still go first at its slice end (VP_SCX_LAT_LEAD_NS until
 * set; 0 turns that off).  scx_slice raises it past QEMU TCG's slices.
 */
void scx_lat_lead_set(struct scx_sched *s, uint64_t ns);
/*
 * Whether the task running on OS CPU @cpu halt-polls in KVM, as the halt
 * probes last told the program (its vp_cpu_poll record): 1 or 0, or
 * -errno.  For the boot tests (scx_pollend), which wait for a poll.
 */
int scx_cpu_polling(const struct scx_sched *s, int cpu);
/* The counters summed over CPUs, indexed by enum vp_scx_stat. */
int scx_stats_read(const struct scx_sched *s,
    uint64_t ret_stats[VP_SCX_STAT_NR]);
/* Whether the scheduler has stopped: ejected by the kernel or detached. */
bool scx_exited(const struct scx_sched *s);
/* Fills @ret_exit once scx_exited(); -EAGAIN while it still runs. */
int scx_exit_read(const struct scx_sched *s, struct scx_exit *ret_exit);
/*
 * The kernel's debug dump (runqueues, the stalled task) if it ejected the
 * scheduler with one, else NULL.  Belongs to @s: valid until scx_free().
 */
const char *scx_exit_dump(const struct scx_sched *s);
/*
 * Detaches (destroys the link): the kernel unloads the scheduler and
 * records the exit.  The skeleton stays, so counters and the exit can
 * still be read.  Safe to call twice.
 */
void scx_detach(struct scx_sched *s);
/* Detaches if needed and frees; accepts NULL. */
void scx_free(struct scx_sched *s);

static inline void scx_free_p(struct scx_sched **s) { scx_free(*s); }
#define _cleanup_scx_ __attribute__((cleanup(scx_free_p)))

/* "stall", "bpf-error", ...: enum scx_exit_kind, for people. */
const char *scx_exit_kind_name(int kind);
/*
 * Whether our BPF scheduler enforces cgroup cpu.max quotas: no, on every
 * kernel (it implements no ops.cgroup_set_bandwidth, which 7.3.4's
 * sched_ext_ops has, and 6.12's enforces quotas for CFS tasks only, which
 * a full switch leaves none of).  The one place that says so.
 */
bool scx_quota_enforced(void);

#endif /* VP_SCX_H */
