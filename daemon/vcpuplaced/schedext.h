/*
 * schedext.h - vcpuplace's sched_ext BPF scheduler, from the daemon's side
 * (schedext.c): whether it loads, its tables, its vCPU entries.
 */
#ifndef VP_SCHEDEXT_H
#define VP_SCHEDEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/vcpuplace.h"
#include "host/isolation.h"
#include "scx/scx.h"
#include "vcpuplaced/inventory.h"

struct vp_daemon;

/*
 * vcpuplace's sched_ext BPF scheduler (schedext.c).  One prefix for it
 * everywhere, VP_SCX_ and vp_scx_: the names here are the daemon's own,
 * those of scx/scx.h and scx/vcpuplace_scx.h it shares with the BPF
 * side.
 */
/* --sched-ext */
enum vp_scx_opt { VP_SCX_OPT_AUTO, VP_SCX_OPT_ON, VP_SCX_OPT_OFF };
enum vp_scx_state {
	VP_SCX_OFF,		/* --sched-ext=off, or a dry run */
	VP_SCX_UNAVAILABLE,	/* this kernel, binary or host cannot */
	VP_SCX_DECLINED,	/* another BPF scheduler holds the kernel */
	VP_SCX_LOADED,		/* ours runs: kernel mode sched-ext */
	VP_SCX_EJECTED,	/* the kernel threw it out; never reloaded */
	VP_SCX_STATE_COUNT
};
/* Why it is not loaded (the metrics' cause label, status' "cause"). */
enum vp_scx_cause {
	VP_SCX_CAUSE_NONE,	/* loaded */
	VP_SCX_CAUSE_OPTION,	/* --sched-ext=off */
	VP_SCX_CAUSE_DRY_RUN,	/* --dry-run changes no scheduling */
	/* a kernel without CONFIG_SCHED_CLASS_EXT */
	VP_SCX_CAUSE_NO_SCHED_EXT,
	VP_SCX_CAUSE_NO_BTF,	/* kernel without BTF */
	/* isolcpus= domain isolation (isolation.h) */
	VP_SCX_CAUSE_ISOLCPUS,
	VP_SCX_CAUSE_NOT_BUILT, /* a binary built without the scheduler */
	VP_SCX_CAUSE_OTHER,	/* another BPF scheduler is loaded */
	VP_SCX_CAUSE_TOPOLOGY,	/* the host exceeds the BPF tables */
	/* scx_load() or a first table failed */
	VP_SCX_CAUSE_LOAD_FAILED,
	VP_SCX_CAUSE_EJECTED,	/* see struct vp_schedext.exit */
	/* auto, and a VM has a CPU quota (cpu.max), which the BPF
	 * scheduler does not enforce */
	VP_SCX_CAUSE_CPU_QUOTA,
	VP_SCX_CAUSE_COUNT
};

/* The table writes and thread moves, for counting and logging errors. */
enum vp_scx_op {
	VP_SCX_OP_VCPU_SET, VP_SCX_OP_VCPU_DEL, VP_SCX_OP_EXT_ON,
	VP_SCX_OP_EXT_OFF, VP_SCX_OP_STATS, VP_SCX_OP_TABLES, VP_SCX_OP_COUNT
};

/*
 * The loader calls schedext.c makes: scx/scx.h's (schedext_scx_loader),
 * or a unit test's fake, so that the lifecycle (the tables, the vCPU
 * entries, counters, an ejection) is tested without BPF.
 */
struct vp_scx_loader {
	/* @root: --kernel-root, NULL for / */
	int (*supported)(const char *root);
	int (*loaded_ops)(const char *root, char *buf, size_t len);
	/* optional (NULL: not asked): sched_ext's state file */
	int (*state_read)(const char *root, char *buf, size_t len);
	int (*load)(struct scx_sched **ret_sched, unsigned int flags);
	void (*features_set)(struct scx_sched *s, uint32_t features);
	int (*pu_set)(struct scx_sched *s, int cpu, const struct vp_scx_pu *pu);
	int (*dom_set)(struct scx_sched *s, unsigned int id,
	    const struct vp_scx_dom *dom);
	int (*vcpu_set)(struct scx_sched *s, int tid,
	    const struct vp_scx_vcpu *v);
	int (*vcpu_del)(struct scx_sched *s, int tid);
	int (*vcpu_stats_read)(const struct scx_sched *s, int tid,
	    struct vp_scx_vcpu_stats *ret);
	int (*stats_read)(const struct scx_sched *s,
	    uint64_t ret_stats[VP_SCX_STAT_NR]);
	bool (*exited)(const struct scx_sched *s);
	int (*exit_read)(const struct scx_sched *s, struct scx_exit *ret_exit);
	const char *(*exit_dump)(const struct scx_sched *s);
	void (*free)(struct scx_sched *s);
	int (*task_set_ext)(const struct scx_thread *t, bool ext);
	/* optional (NULL: never): the halt-poll probes are attached */
	const char *(*halt_probes)(const struct scx_sched *s);
	/* optional (NULL: false): loaded with the cgroup ops */
	bool (*cgroup_weights)(const struct scx_sched *s);
};
extern const struct vp_scx_loader schedext_scx_loader;

struct vp_schedext {
	const struct vp_scx_loader *ld;	/* NULL: schedext_scx_loader */
	enum vp_scx_opt opt;		/* --sched-ext */
	const char *root;		/* --kernel-root, NULL: / */
	unsigned int load_flags;	/* scx_load()'s: 0, a full switch */
	enum vp_scx_state state;
	enum vp_scx_cause cause;
	char why[320];			/* in words, "" when loaded */
	char ops[64];			/* the other scheduler's name */
	struct scx_sched *sched;	/* owned; NULL unless loaded */
	uint32_t features;		/* enum vp_scx_feature bits written */
	unsigned int pu_limit;		/* vp_pus entries written: 0..limit-1 */
	struct vp_scx_pushed *pushed;	/* [npushed], sorted by tid */
	int npushed;
	uint64_t stats[VP_SCX_STAT_NR]; /* global counters, when loaded */
	unsigned long ejections;
	unsigned long restarts;		/* reloads the kernel asked for */
	unsigned long errors;		/* refused writes and moves */
	int own_class;			/* threads left in their own class */
	/* the last error logged per op, 0 none */
	int logged[VP_SCX_OP_COUNT];
	bool exit_known;
	struct scx_exit exit;		/* the ejection, when exit_known */
	/* CPU isolation as read at start (not with --sched-ext=off) */
	bool isol_known;
	struct isol_info isol;
	enum isol_verdict isol_verdict;
	/*
	 * VMs with a CPU quota (vp_vm.quota), as of the last tick or start,
	 * and the first of them in words for the log and status.  auto does
	 * not load (or unloads) while there is one; on loads and warns once.
	 */
	unsigned int quota_vms;
	char quota_first[sizeof(((struct vp_vm *)0)->name) +
	    sizeof(((struct vp_vm *)0)->quota_words) + 2];
	bool quota_warned;		/* on: the warning said */
	/*
	 * Loaded with its cgroup ops: cgroup cpu.weight honoured.  False on a
	 * kernel without CONFIG_EXT_GROUP_SCHED, said once in the log.
	 */
	bool cg_weights;
	bool cg_told;			/* the log line said */
};

/* "auto", "on", "off" into *ret (untouched on failure); -EINVAL. */
int schedext_parse_opt(const char *arg, enum vp_scx_opt *ret) VP_MUST_CHECK;
const char *schedext_opt_name(enum vp_scx_opt o);
const char *schedext_state_name(enum vp_scx_state s);
const char *schedext_cause_name(enum vp_scx_cause c);
/*
 * What start-up found, in the order it asks.  A field is read only when
 * every earlier one allowed going on, so a caller fills them one by one
 * and asks again (schedext_start()).
 */
struct vp_scx_probe {
	enum vp_scx_opt opt;
	bool dry_run;
	int supported;		/* scx_supported(): 0 or -errno */
	/* isol_judge(); ISOL_NONE while not read */
	enum isol_verdict isol;
	const char *isol_why;	/* ... the isolation in words */
	const char *other;	/* scx_loaded_ops(): a scheduler; NULL none */
	const char *busy;	/* sched_ext's state when not "disabled" and
				 * no scheduler is named; NULL otherwise */
	int topo_err;		/* scxfeed_topo_fits(): 0 or -E2BIG */
	const char *topo_why;	/* ... its words */
	int load_err;		/* scx_load(), then the first tables: 0 or
				 * -errno; 0 also while not tried yet */
	unsigned int quota_vms;	/* VMs with a CPU quota (cpu.max) */
	const char *quota_why;	/* ... the first in words */
};
struct vp_scx_verdict {
	enum vp_scx_state state;	/* LOADED: load it (or keep it) */
	enum vp_scx_cause cause;
	bool fatal;		/* --sched-ext=on and it cannot be: exit */
	char why[320];		/* "" when LOADED */
};
/*
 * The isolation start-up read (s->isol), in words for the log and
 * status: "isolcpus=2-5 on the kernel command line; CPUs 2-5 isolated".
 */
void schedext_isolation_words(const struct vp_schedext *s, char *buf,
    size_t len);
/* The start decision: a pure function of what start-up found. */
void schedext_decide(const struct vp_scx_probe *p, struct vp_scx_verdict *ret);
/*
 * Start-up, after the topology and the socket: probes, decides, loads
 * and fills the topology tables; logs the kernel mode.  Returns 0, or
 * -errno when --sched-ext=on cannot be honoured (logged: a fatal error).
 */
/*
 * Whether schedext_start() may load the scheduler at all: the option is
 * not off, no dry run, and the kernel has sched_ext and BTF.  Only then
 * does start-up read the VMs (their CPU quotas) before it, so a host
 * without sched_ext starts without waiting on libvirt, as before.
 */
bool schedext_may_load(struct vp_daemon *d);
/*
 * After schedext_start(): whether this run may still touch BPF or
 * SCHED_EXT.  True while our scheduler runs, or while auto has it
 * unloaded for a CPU quota (it loads again when none is left); false
 * once off, unavailable for any other cause, declined or ejected, none
 * of which is ever retried.
 */
bool schedext_needs_bpf(const struct vp_daemon *d);
int schedext_start(struct vp_daemon *d) VP_MUST_CHECK;
/*
 * Each tick after planning and pinning: notices an ejection (and falls
 * back), else writes what changed (features, vCPU entries) and reads
 * the counters.
 */
void schedext_tick(struct vp_daemon *d);
/* The topology was replaced (reload): rewrites the tables, or unloads. */
void schedext_topology_changed(struct vp_daemon *d);
/* Daemon exit: threads back to SCHED_OTHER, the scheduler unloaded. */
void schedext_stop(struct vp_daemon *d);
/*
 * Whether the loaded scheduler sees halt polls (its kvm_vcpu_halt()
 * probes attached, so POLL_END can act); false when not loaded.
 */
const char *schedext_halt_probes(const struct vp_schedext *s);
/* "sched-ext", else kernelmode_label(): the kernel mode everywhere. */
const char *schedext_mode_label(const struct vp_daemon *d);
/* The entry last written for thread @tid, or NULL. */
const struct vp_scx_pushed *schedext_pushed(const struct vp_schedext *s,
    int tid);
#endif /* VP_SCHEDEXT_H */
