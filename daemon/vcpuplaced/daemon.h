/*
 * daemon.h - vcpuplaced: the state of the service (one struct, passed by
 * pointer) and the functions of daemon/vcpuplaced/, grouped by file.
 * The adapters it drives (daemon/host/) have headers and state of their
 * own and never see this struct.
 *
 * The tick reads like the design (main.c's tick()): libvirt_tick() asks
 * the libvirt worker for a refresh when libvirt said the inventory
 * changed, or every FULL_REFRESH_TICKS; server_run_queued();
 * load_update(); unless paused, tick_plan() and actuate_apply() (which
 * sends the pins to the worker); schedext_tick(); privileges_settle();
 * status_write() when something changed, and once a second.  A libvirt
 * event asks for a refresh between ticks (main.c's event_round()), and
 * the worker's answers run a shorter round when they come (main.c's
 * answers_round(): inventory_adopt(), hotplug_track(),
 * tick_plan_urgent(), actuate_apply()).  The loop never waits on
 * libvirt (doc/libvirt-worker.md).
 */
#ifndef DAEMON_H
#define DAEMON_H

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "host/clock.h"
#include "host/log.h"
#include "host/schedfeat.h"
#include "host/virt.h"
#include "host/domain.h"
#include "host/virt_msg.h"
#include "host/virt_worker.h"
#include "host/policy_xml.h"
#include "host/choose.h"
#include "host/isolation.h"
#include "host/peer.h"
#include "host/scx.h"
#include "host/scxfeed.h"
#include "core/vcpuplace.h"
#include "vcpuplaced/privileges.h"
/* VP_VERSION: debian/changelog's, through the Makefile */
#include "vp_paths.h"

/* A PU or vCPU busier than this share of a tick counts as busy. */
#define VP_BUSY_SHARE	0.5

/* One vCPU of a managed VM, as the daemon tracks it between ticks. */
struct vp_vcpu {
	int tid;			/* QEMU's "CPU N/..." thread, 0 unknown */
	uint64_t tid_start;		/* its start time (procstat.h), 0 unknown */
	struct vp_cpuset affinity;	/* live, as libvirt reported it */
	int current;			/* PU it last ran on, or VP_PU_NONE */
	int home;			/* the plan's home PU */
	int placed_home;		/* home of the applied affinity */
	struct vp_cpuset planned;	/* what the plan wants */
	int pending_ticks;		/* ticks the plan has differed */
	bool move;			/* tick_plan() wants planned applied */
	bool inflight;			/* a pin sent, not yet answered */
	uint64_t last_move_ns;		/* monotonic, for the cooldown */
	enum vp_reason reason;		/* why its last move */
	uint64_t run_ns, wait_ns;	/* schedstat, cumulative */
	uint64_t delay_ns;		/* run-queue wait over the last tick */
	double util;			/* share of the last tick it ran */

	/* with vcpuplace's BPF scheduler (schedext.c) */
	struct vp_scx_vcpu_stats scx;	/* cumulative, when scx_known */
	bool scx_known;
};

struct vp_vm {
	char name[256];
	/* the VM's handle on the connection (host/domain.h takes it) */
	unsigned char uuid[VP_UUID_LEN];
	char uuid_str[VP_UUID_STRING_LEN];	/* libvirt's text of it */
	int pid;			/* QEMU process, 0 unknown */
	char profile[VP_PROFILE_NAME_MAX];
	struct vp_policy policy;
	bool policy_known;		/* has a valid policy been read */
	char error[256];		/* last metadata error, "" none */
	/*
	 * Why the host refused what the VM asked for ("" none): its own
	 * metadata named what only the host grants (VP_REFUSED_TENANT), or
	 * its grant broke the budget of exclusive cores (VP_REFUSED_BUDGET).
	 * Either way it is placed as the host default.  Logged and counted
	 * once per change of the text.
	 */
	char refused[256];
	int refused_cause;		/* VP_REFUSED_* */
	bool granted;			/* its policy is a grants.xml grant */
	/*
	 * What chose its profile, by the precedence of vcpuplace-policy(5):
	 * a grant, its own metadata, the first matching host rule (rule[]
	 * says which, "NAME (FILE:LINE)"), else the host default.
	 */
	int source;			/* VP_SOURCE_* */
	char rule[384];
	bool nova_bad;			/* its Nova metadata was unreadable */
	bool seen;			/* found by this refresh */
	bool replace;			/* policy changed: bypass cooldown */
	int nvcpus;
	struct vp_vcpu *vcpu;		/* [nvcpus] */
	struct vp_cpuset emulator;	/* last emulator pin we applied */
	bool emulator_inflight;		/* its pin sent, not yet answered */
	bool cookie_done;		/* core-sched cookie given to its pid */
	int thread_problem;		/* VP_THREADS_*, logged when it changes */
	int thread_problem_seen;	/* what the last refresh found */
	/* a CPU quota (cpu.max) in its live <cputune>, host/cputune.h;
	 * read only while sched_ext is an option (not --sched-ext=off) */
	bool quota;
	char quota_words[96];		/* cputune_words() */
};

/*
 * A Prometheus histogram of durations: the count in each bucket (not
 * cumulative), their sum and number.  Its bucket bounds are in metrics.c
 * (plan duration 12, placement latency 13).
 */
#define VP_HIST_BUCKETS_MAX	13
struct vp_hist {
	unsigned long bucket[VP_HIST_BUCKETS_MAX];
	uint64_t ns_sum;
	unsigned long count;
};

/* The control socket's commands; requests are counted by command. */
enum vp_cmd {
	VP_CMD_STATUS, VP_CMD_METRICS, VP_CMD_EXPLAIN, VP_CMD_RELOAD,
	VP_CMD_POLICY, VP_CMD_PAUSE, VP_CMD_RESUME, VP_CMD_HELP, VP_CMD_COUNT
};
/* Rejections are counted by cause. */
enum vp_reject {
	VP_REJ_NONE,		/* not rejected */
	VP_REJ_UNKNOWN,		/* not a command */
	VP_REJ_BINARY,		/* bytes that are not printable text */
	VP_REJ_OVERLONG,	/* no newline within VP_CTL_LINE_MAX */
	VP_REJ_TIMEOUT,		/* connected, sent no full line in time */
	VP_REJ_DENIED,		/* a write command from uid != 0 */
	VP_REJ_ARGS,		/* a known command with bad arguments */
	VP_REJ_SLOW_READER,	/* did not read its answer in time */
	VP_REJ_PERSON_LIMIT,	/* its person holds VP_CTL_PERSON_MAX slots */
	VP_REJ_FULL,		/* no slot left that this peer may take */
	VP_REJ_BUSY,		/* VP_CTL_QUEUED_MAX bytes wait to be read */
	VP_REJ_COUNT
};

/* One request line, parsed (request.c); fixed size, validated. */
#define VP_CMD_OVERRIDES_MAX	7	/* one per field of a policy */
struct vp_request {
	enum vp_cmd cmd;
	char vm[256];			/* explain, policy */
	int vcpu;			/* explain */
	char profile[VP_PROFILE_NAME_MAX];	/* policy */
	char override[VP_CMD_OVERRIDES_MAX][96];	/* "field=value" */
	int noverrides;
};

/* Has a valid policy that asks for placement (not mode off). */
static inline bool vm_managed(const struct vp_vm *vm)
{
	return vm->policy_known && vm->policy.mode != VP_MODE_OFF;
}


enum { VP_REFUSED_NONE, VP_REFUSED_TENANT, VP_REFUSED_BUDGET,
	VP_REFUSED_COUNT };

struct vp_counters {
	unsigned long ticks;
	unsigned long refused[VP_REFUSED_COUNT];	/* by cause */
	unsigned long reconnects;
	unsigned long libvirt_errors;
	unsigned long invalid_metadata;
	unsigned long thread_errors;	/* VMs whose vCPU threads went unknown */
	unsigned long name_errors;	/* domains named longer than we hold */
	unsigned long moves[VP_REASON_COUNT];
	unsigned long pins_failed;
	unsigned long vanished;		/* VM gone between plan and pin */
	unsigned long plan_probes;
	unsigned long plan_failures;	/* rounds that kept every placement */
	uint64_t plan_ns_last;
	uint64_t plan_ns_ring[256];	/* last 256 ticks, for p50/p99 */
	struct vp_hist plan_hist;
	unsigned long ctl_requests[VP_CMD_COUNT];
	unsigned long ctl_rejected[VP_REJ_COUNT];
	/* the VP_REJ_PERSON_LIMIT ones, by what told the person */
	unsigned long ctl_person_limit[VP_PEER_KIND_COUNT];
	unsigned long reloads, reload_errors;
	bool reload_failed;		/* the last reload kept old state */
	unsigned long event_rounds;	/* rounds run on a libvirt event */
	unsigned long refreshes;	/* whole-inventory reads */
	unsigned long policy_rereads;	/* one VM's, on its metadata event */
	struct vp_hist lat_hist;		/* event to pins, per VM */
};

/* hot-plugged vCPUs heard from process events (hotplug.c) */
#define VP_HP_FOLLOW_MAX	8
struct vp_hp_follow {
	int pid, vcpu;		/* QEMU's tgid, the vCPU its thread names */
	uint64_t event_ns;	/* receipt of the rename */
	uint64_t until;		/* followed until, then left to the ticks */
};
struct vp_hotplug {
	int fd;			/* proc connector; -1: periodic refresh only */
	bool disabled;		/* --no-proc-events */
	int open_error;		/* why it could not be opened, -errno */
	unsigned long seen;	/* process events read */
	unsigned long used;	/* vCPU renames in a known VM's QEMU */
	unsigned long overruns;	/* the kernel dropped events */
	unsigned long follow_rounds, follow_expired;
	struct vp_hp_follow follow[VP_HP_FOLLOW_MAX];
	int nfollow;
	uint64_t follow_next;	/* the next follow-up round */
	/* the QEMUs the kernel's filter lets through, sorted; -1: any */
	int *tgids;
	int ntgids;
	unsigned long filter_updates, filter_errors;
};

struct vp_ctl_client;

/* Host load as the planner sees it (load.c). */
struct vp_sampler;
struct vp_load {
	struct vp_sampler *sampler;	/* owned */
	double *cpu_util;		/* [npus], 0..1, work not our vCPUs' */
	double *pu_util;		/* [npus], 0..1, all work */
	struct vp_cpuset pu_busy;	/* pu_util above VP_BUSY_SHARE */
	uint64_t sampled_ns;		/* clock_now_ns() of the last update */
};

/* The control socket: one listening fd and its non-blocking clients. */
/*
 * One answer's bytes, shared by every client sending it and by the
 * cache: freed with the last reference.  @senders of the @refs are
 * clients; while there is one, @len counts once in vp_ctl.queued.
 */
struct vp_ctl_buf {
	unsigned int refs, senders;
	size_t len;
	char *text;			/* NUL-ended */
};
/*
 * status and metrics of one tick are the same for every client: each is
 * rendered once per tick, so 500 clients asking at once cost one
 * rendering, not 500, and the tick keeps its time; and they share one
 * buffer, so 500 slow readers of it hold one answer's memory, not 500.
 */
struct vp_ctl_answer {
	unsigned long tick, gen;	/* d->c.ticks, d->inventory_gen */
	struct vp_ctl_buf *buf;		/* NULL: none yet */
};

/*
 * vcpuplace's sched_ext BPF scheduler (schedext.c).  VP_SX_* names are
 * the daemon's; VP_SCX_* ones (host/scx.h, scx/vcpuplace_scx.h) are what
 * it shares with the BPF side.
 */
/* --sched-ext */
enum vp_sx_opt { VP_SX_OPT_AUTO, VP_SX_OPT_ON, VP_SX_OPT_OFF };
enum vp_sx_state {
	VP_SX_OFF,		/* --sched-ext=off, or a dry run */
	VP_SX_UNAVAILABLE,	/* this kernel, binary or host cannot */
	VP_SX_DECLINED,		/* another BPF scheduler holds the kernel */
	VP_SX_LOADED,		/* ours runs: kernel mode sched-ext */
	VP_SX_EJECTED,		/* the kernel threw it out; never reloaded */
	VP_SX_STATE_COUNT
};
/* Why it is not loaded (the metrics' cause label, status' "cause"). */
enum vp_sx_cause {
	VP_SX_CAUSE_NONE,	/* loaded */
	VP_SX_CAUSE_OPTION,	/* --sched-ext=off */
	VP_SX_CAUSE_DRY_RUN,	/* --dry-run changes no scheduling */
	VP_SX_CAUSE_NO_SCHED_EXT,	/* kernel without CONFIG_SCHED_CLASS_EXT */
	VP_SX_CAUSE_NO_BTF,	/* kernel without BTF */
	VP_SX_CAUSE_ISOLCPUS,	/* isolcpus= domain isolation (isolation.h) */
	VP_SX_CAUSE_NOT_BUILT,	/* binary without VP_HAVE_SCX */
	VP_SX_CAUSE_OTHER,	/* another BPF scheduler is loaded */
	VP_SX_CAUSE_TOPOLOGY,	/* the host exceeds the BPF tables */
	VP_SX_CAUSE_LOAD_FAILED,	/* scx_load() or a first table failed */
	VP_SX_CAUSE_EJECTED,	/* see struct vp_schedext.exit */
	VP_SX_CAUSE_CPU_QUOTA,	/* auto, and a VM has a CPU quota (cpu.max),
				 * which the BPF scheduler does not enforce */
	VP_SX_CAUSE_COUNT
};

/* One vCPU thread as its vp_vcpus entry was last written. */
struct vp_sx_pushed {
	int tid;
	int pid;		/* its QEMU */
	uint64_t start;		/* its start time: (tid, start) is one thread */
	bool ext;		/* moved into SCHED_EXT */
	bool own_class;		/* left in its own real-time class */
	struct vp_scx_vcpu e;
};

/* The table writes and thread moves, for counting and logging errors. */
enum vp_sx_op {
	VP_SX_OP_VCPU_SET, VP_SX_OP_VCPU_DEL, VP_SX_OP_EXT_ON,
	VP_SX_OP_EXT_OFF, VP_SX_OP_STATS, VP_SX_OP_TABLES, VP_SX_OP_COUNT
};

/*
 * The loader calls schedext.c makes: host/scx.h's (schedext_scx_loader),
 * or a unit test's fake, so that the lifecycle (the tables, the vCPU
 * entries, counters, an ejection) is tested without BPF.
 */
struct vp_sx_loader {
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
extern const struct vp_sx_loader schedext_scx_loader;

struct vp_schedext {
	const struct vp_sx_loader *ld;	/* NULL: schedext_scx_loader */
	enum vp_sx_opt opt;		/* --sched-ext */
	const char *root;		/* --kernel-root, NULL: / */
	unsigned int load_flags;	/* scx_load()'s: 0, a full switch */
	enum vp_sx_state state;
	enum vp_sx_cause cause;
	char why[320];			/* in words, "" when loaded */
	char ops[64];			/* the other scheduler's name */
	struct scx_sched *sched;	/* owned; NULL unless loaded */
	uint32_t features;		/* enum vp_scx_feature bits written */
	unsigned int pu_limit;		/* vp_pus entries written: 0..limit-1 */
	struct vp_sx_pushed *pushed;	/* [npushed], sorted by tid */
	int npushed;
	uint64_t stats[VP_SCX_STAT_NR];	/* global counters, when loaded */
	unsigned long ejections;
	unsigned long restarts;		/* reloads the kernel asked for */
	unsigned long errors;		/* refused writes and moves */
	int own_class;			/* threads left in their own class */
	int logged[VP_SX_OP_COUNT];	/* last error logged per op, 0 none */
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

struct vp_ctl {
	const char *path;	/* NULL: no socket */
	int fd;
	struct vp_ctl_client *client;	/* [VP_CTL_CLIENTS_MAX] */
	int nclients;
	struct vp_ctl_answer cached[2];	/* status, metrics */
	size_t queued;		/* bytes of answers clients still read */
	size_t queued_max;	/* VP_CTL_QUEUED_MAX (tests lower it) */
	uid_t euid;		/* the daemon's: exempt from the shares */
};

/*
 * libvirt.c: the loop's side of the libvirt worker (host/virt_worker.h,
 * doc/libvirt-worker.md).  The loop sends requests and never waits for
 * their answers; these say what is outstanding and what came back.
 */
/*
 * A request unanswered this long is a stall: longer than the 1.5 s
 * libvirtd holds a destroyed TCG guest's domain lock here (doc/daemon.md),
 * so a normal destroy is not one.
 */
#define VP_LIBVIRT_STALL_MS	2000
/* a socket policy command answers "not answering" after this (10 s) */
#define VP_LIBVIRT_POLICY_WAIT_MS	10000
/* requests outstanding at once: a read, an apply, the policy writes */
#define VP_LV_PENDING_MAX	8

enum vp_lv_kind { VP_LV_REFRESH, VP_LV_REREAD, VP_LV_APPLY, VP_LV_POLICY };

struct vp_lv_pending {
	uint32_t seq;
	enum vp_lv_kind kind;
	uint64_t sent_ns;	/* monotonic */
};

/* One domain of a snapshot, as the worker read it: plain data. */
struct vp_snap_dom {
	struct vp_dom_info info;
	int policy_err;		/* 0: policy holds the text; -ENODATA, ... */
	char *policy;		/* owned */
	int nova_err;		/* the same; -EAGAIN: not read */
	char *nova;		/* owned */
	int cputune_err;	/* 0: tune read; -EAGAIN: not read */
	struct vp_cputune tune;
	int aff_err;		/* 0 once every vCPU came; -EAGAIN: not read */
	int naff;		/* vCPUs received */
	struct vp_cpuset *aff;	/* owned, info.nvcpus of them */
	int *cur;		/* owned: PU each last ran on */
};

/* An inventory read, built aside and swapped in whole (rule 10). */
struct vp_snapshot {
	struct vp_snap_dom *dom;	/* owned */
	int n, cap;
};

/* A pin sent to the worker and not yet answered. */
struct vp_lv_pin {
	unsigned char uuid[VP_UUID_LEN];
	int pid;		/* the run of the VM it was for */
	int vcpu;		/* VP_MSG_EMULATOR: the emulator */
	int home;
	enum vp_reason reason;
	struct vp_cpuset set;
};

/* One whole answer of the worker, as libvirt_next() hands it out. */
enum vp_lv_answer_kind {
	VP_LV_ANS_INVENTORY,	/* a REFRESH: the snapshot of every domain */
	VP_LV_ANS_POLICIES,	/* a REREAD: the policies of some */
	VP_LV_ANS_PINS,		/* an APPLY's results, one per pin */
	VP_LV_ANS_POLICY_WRITE,	/* a policy write's result */
};
struct vp_lv_answer {
	enum vp_lv_answer_kind kind;
	uint32_t seq;
	const struct vp_snapshot *snap;		/* INVENTORY, POLICIES */
	bool event;				/* an event round asked it */
	/* PINS, POLICY_WRITE: @nres struct vp_msg_result, unaligned */
	const unsigned char *res;
	uint32_t nres;
	const struct vp_lv_pin *pin;		/* PINS: the batch sent */
	int npins;
	uint64_t apply_ns;			/* PINS: when it was sent */
};

struct vp_libvirt {
	struct vp_virt_worker w;
	bool up;		/* the worker started and not stopped */
	int fd;			/* the loop's end, when up */
	uint32_t seq;		/* the last request's */
	struct vp_lv_pending req[VP_LV_PENDING_MAX];
	int nreq;
	unsigned char *buf;	/* one datagram, VP_MSG_MAX bytes */
	/* the connection, as the worker's last STATE said */
	bool connected;
	uint32_t opens;
	/* the read outstanding, if any */
	uint32_t read_seq;		/* 0: none */
	bool read_event;		/* an event round asked it */
	uint64_t read_event_ns;		/* the oldest event it answers */
	uint64_t read_sent_ns;
	int read_err;			/* the snapshot's own, 0 */
	uint32_t done_seq;		/* the last read that ended */
	int done_err;			/* and its result */
	struct vp_snapshot snap;	/* being built, or handed out */
	bool snap_out;			/* handed out: freed at the next */
	uint64_t snapshot_ns;		/* the last whole one, 0 none */
	/* the apply outstanding, if any */
	uint32_t apply_seq;		/* 0: none */
	uint64_t apply_ns;
	struct vp_lv_pin pin[VP_MSG_PINS_MAX];
	int npins;
	/* a stall, said once when it starts and once when it ends */
	bool stalled;
	uint64_t stall_ns;		/* the stalled request's send time */
	unsigned long stalls, bad_messages, late_answers;
	uint64_t stop_sent_ns;		/* STOP sent, 0 not */
	bool bye;			/* the worker said BYE, or is gone */
	bool abandoned;			/* stopped without BYE: not joined */
};

struct vp_daemon {
	/* options */
	const char *uri;
	const char *policy_dir;
	const char *status_file;
	const char *topology_file;
	unsigned int tick_ms;
	bool dry_run;
	/* --trust-metadata: VM metadata may ask for anything (a lab) */
	bool trust_metadata;
	const char *reserve_list;	/* --reserve, reparsed on reload */
	struct vp_cpuset reserved;
	atomic_bool reload_asked;	/* SIGHUP or the "reload" command */
	bool paused;			/* "pause": no plan, no pin */
	char hostname[256];
	uint64_t started_ns;

	/* model and policies */
	struct vp_topo *topo;
	struct vp_profiles *profiles;
	struct vp_features feat;
	bool core_sched_supported;
	/* the kernel series' SIS_CORE (kernelmode.c), reread on reload */
	const char *debugfs_root;	/* --debugfs, NULL: SCHEDFEAT_ROOT */
	enum vp_sis_core sis_core;
	int sis_core_err;		/* why UNKNOWN: -errno; else 0 */
	bool sis_core_told;		/* the notice how to turn it on */
	struct vp_schedext scx;		/* our BPF scheduler, if loaded */

	/* libvirt */
	struct vp_virt virt;		/* the worker's; the loop reads only
					 * the event flags (libvirt.c) */
	struct vp_libvirt lv;		/* the worker, from the loop's side */
	bool ever_connected;
	int long_names;		/* domains skipped by the last refresh */
	uint64_t reconnect_at_ns;
	unsigned int backoff_ms;
	uint64_t event_ns;		/* oldest event the last refresh took */

	/* inventory */
	struct vp_vm *vm;
	int nvms;
	unsigned long inventory_gen;	/* bumped by every refresh */
	unsigned long status_gen;	/* inventory the status file shows */
	bool status_dirty;		/* a pin, an error: write it now */

	/* the last plan, reused while its inputs are unchanged */
	struct vp_plan *plan;
	int *plan_idx;			/* plan VM i is d->vm[plan_idx[i]],
					 * -1 once gone (remapped by every
					 * inventory refresh) */
	int plan_n;
	unsigned long plan_gen;
	struct vp_cpuset plan_busy;
	int plan_error;			/* the last round's, 0 or -errno */

	/* host load */
	struct vp_load load;
	struct vp_cpuset host_busy;	/* busy with work not our vCPUs */

	struct vp_counters c;
	struct vp_ctl ctl;
	sigset_t serve_sigmask;		/* while serving: the loop's signals
					 * unblocked (main.c) */
	bool notify;			/* under systemd: sd_notify works */
	bool ready_told;		/* READY=1 sent (main.c) */
	uint64_t watchdog_usec;		/* 0: no watchdog */
	uint64_t watchdog_last_ns;
	uint64_t event_quiet_until;	/* no event round before (main.c) */
	bool event_poll;		/* server_serve() returns on an event */
	struct vp_hotplug hp;		/* process events (hotplug.c) */
	struct vp_privileges privs;	/* capabilities (privileges.c) */
};

/*
 * hotplug.c: a vCPU hot-plugged by `setvcpus --live` placed at once, on
 * the kernel's process events (libvirt sends no event for it).
 */
/* Opens the connector, or logs once that the periodic refresh will do. */
void hotplug_open(struct vp_daemon *d);
void hotplug_close(struct vp_daemon *d);
/* Reads the events; true when an event round is due (the VM is dirty). */
bool hotplug_take(struct vp_daemon *d);
/* After an event round that started at @round_ns: who is still followed. */
void hotplug_after_round(struct vp_daemon *d, uint64_t round_ns);
/* @until, or earlier when a follow-up round is due before. */
uint64_t hotplug_deadline(const struct vp_daemon *d, uint64_t until);
/* After a refresh: the kernel's filter narrowed to the known QEMUs. */
void hotplug_track(struct vp_daemon *d);

/* load.c: host load and vCPU run/wait time, from host/sampler.h */
/* Opens a sampler for @t; *ret untouched on failure (-ENOMEM). */
int load_open(const struct vp_topo *t, struct vp_load *ret) VP_MUST_CHECK;
void load_free(struct vp_load *l);	/* accepts a zeroed one */
/* Reads per-PU busy time and per-vCPU run/wait time, fills host_busy. */
int load_update(struct vp_daemon *d);
/* The same at @now_ns (clock_now_ns()): a vCPU's busy share is its run
 * time over the time since the last update, not over a nominal tick. */
int load_update_at(struct vp_daemon *d, uint64_t now_ns);
/*
 * vCPUs running on a core whose sibling is busy while their allowed set
 * holds a whole idle core: the SMT conflicts placement exists to avoid.
 */
int load_smt_conflicts(const struct vp_daemon *d);
/* The PUs of every core none of whose PUs is busy. */
void load_idle_core_pus(const struct vp_daemon *d, struct vp_cpuset *ret);
/* One vCPU's part of load_smt_conflicts(). */
bool load_smt_conflict(const struct vp_daemon *d, const struct vp_vcpu *v,
    const struct vp_cpuset *idle_cores);

/* inventory.c: the managed VMs from libvirt's live state */
/*
 * Rebuilds the VM list from the snapshot @s (the worker's read, taken
 * as it is: libvirt.c frees it), carrying over what each VM's entry
 * knew.
 */
void inventory_adopt(struct vp_daemon *d, const struct vp_snapshot *s);
/*
 * Takes again the policy of the VMs whose metadata changed (@s holds
 * their UUIDs and policy texts), and nothing else of them or of any
 * other VM; a UUID not in the list (a VM started since) marks the whole
 * inventory dirty instead.  Returns how many known VMs were read.
 */
int inventory_adopt_policies(struct vp_daemon *d,
    const struct vp_snapshot *s);
/*
 * Records that the host refuses what @vm asked for, for @cause
 * (VP_REFUSED_*), because @why; "" clears it.  Logs and counts only when
 * @why changes.
 */
void inventory_note_refused(struct vp_daemon *d, struct vp_vm *vm,
    int cause, const char *why);
void inventory_free(struct vp_daemon *d);
/* The running VM named @name, or NULL. */
struct vp_vm *inventory_vm_by_name(const struct vp_daemon *d,
    const char *name);
/* The running VM of @uuid, or NULL. */
struct vp_vm *inventory_vm_by_uuid(const struct vp_daemon *d,
    const unsigned char *uuid);

/* tick.c: the planner with hysteresis, cooldown and a move budget */
void tick_plan(struct vp_daemon *d);
/*
 * The same on a libvirt event, off the tick: only the moves the churn
 * rules call urgent (new VM, new policy, broken affinity); the hysteresis
 * of the others is left to the ticks.
 */
void tick_plan_urgent(struct vp_daemon *d);
void tick_free(struct vp_daemon *d);

/* actuate.c: live pins through the libvirt worker, deltas only */
/*
 * Sends the pins tick_plan() decided to the worker (one APPLY at a time:
 * while one is out the moves wait); a dry run counts them at once.
 * Returns the pins made now (a dry run's), 0 otherwise.
 */
int actuate_apply(struct vp_daemon *d);
/* The worker's answer to pin @p: counted, applied to the VM, logged. */
void actuate_result(struct vp_daemon *d, const struct vp_lv_pin *p,
    enum vp_apply a, const char *why);
/*
 * The placement latency of each VM whose pins since @t0 were made:
 * from the oldest event the refresh answered (d->event_ns) to its last
 * pin.  Once per event: it clears d->event_ns.
 */
void actuate_note_latency(struct vp_daemon *d, uint64_t t0);

/* libvirt.c: the loop's side of the worker; none of these blocks */
/* What answers_take() took in (a mask). */
#define VP_LV_GOT_INVENTORY	1u	/* a snapshot swapped in */
#define VP_LV_GOT_EVENT		2u	/* ... that an event round asked */
#define VP_LV_GOT_PINS		4u	/* an APPLY answered */
#define VP_LV_GOT_POLICIES	8u	/* a REREAD answered */
/* Starts the worker (once); -errno, logged by the caller. */
int libvirt_start(struct vp_daemon *d) VP_MUST_CHECK;
/*
 * Asks the worker to stop and waits for its BYE at most @wait_ms (a
 * worker stuck in libvirt cannot be joined: then it is left behind);
 * frees what the loop's side holds.
 */
void libvirt_stop(struct vp_daemon *d, unsigned int wait_ms);
/* Connected, as the worker last said and libvirt has not said lost. */
bool libvirt_connected(const struct vp_daemon *d);
/* A read (REFRESH or REREAD) is outstanding. */
bool libvirt_reading(const struct vp_daemon *d);
/* An APPLY is outstanding. */
bool libvirt_applying(const struct vp_daemon *d);
/*
 * Sends a REFRESH (unless a read is outstanding: the dirty flag then
 * brings one when it ends); @event: an event round asked, which the
 * answer's round counts and times.  0 sent, -EBUSY, -EAGAIN, -errno.
 */
int libvirt_refresh(struct vp_daemon *d, bool event);
/* The same for the policies of @n domains (REREAD). */
int libvirt_reread(struct vp_daemon *d, unsigned char uuids[][VP_UUID_LEN],
    int n);
/* Sends d->lv.pin[0..npins) as one APPLY: 0, -EBUSY, -errno. */
int libvirt_apply(struct vp_daemon *d, int npins);
/* Sends a policy write: 0 with its seq in *ret_seq, or -errno. */
int libvirt_policy_write(struct vp_daemon *d, const unsigned char *uuid,
    const char *xml, uint32_t *ret_seq) VP_MUST_CHECK;
/* The tick's: a read when one is due, a stall noticed. */
void libvirt_tick(struct vp_daemon *d, bool full);
/*
 * Takes datagrams off the channel until one completes an answer: 1 with
 * it in *@a (valid until the next call), 0 when none is left.  Requests
 * that failed are counted here and give no answer.
 */
int libvirt_next(struct vp_daemon *d, struct vp_lv_answer *a);
/* Request @seq is sent and not yet answered. */
bool libvirt_pending(const struct vp_daemon *d, uint32_t seq);
/* For status and metrics: "answering", "waiting", "connecting", ... */
const char *libvirt_state_name(const struct vp_daemon *d, uint64_t now);
/* The oldest outstanding request, NULL none. */
const struct vp_lv_pending *libvirt_oldest(const struct vp_daemon *d);
const char *libvirt_kind_name(enum vp_lv_kind k);
void snapshot_free(struct vp_snapshot *s);

/* answers.c: the worker's answers, applied to the daemon's state */
/* Takes every answer waiting on the channel: VP_LV_GOT_*.  Never waits. */
unsigned int answers_take(struct vp_daemon *d);
/* Blocks until request @seq is answered or @wait_ms pass: start, tests. */
int answers_wait(struct vp_daemon *d, uint32_t seq, unsigned int wait_ms);
/*
 * Blocking, for start-up and the unit tests only (the loop never waits
 * on libvirt): starts the worker, and unless connected has it connect
 * and read the inventory, waiting at most @wait_ms.  0 when connected.
 */
int answers_connect(struct vp_daemon *d);
int answers_connect_within(struct vp_daemon *d, unsigned int wait_ms);
/*
 * Blocking too, for the same callers: a whole read, waited for; its
 * -errno, or 0 with the inventory rebuilt.
 */
int answers_refresh(struct vp_daemon *d);

/* kernelmode.c: the kernel series' SIS_CORE, read from sched/features */
/* Reads it under d->debugfs_root; if it is off, says once how to turn it on. */
void kernelmode_init(struct vp_daemon *d);
/* Reload: reads it again; true (and the status dirty) if it changed,
 * *was what it was before.  The caller logs, then advises. */
bool kernelmode_reread(struct vp_daemon *d, enum vp_sis_core *was);
/* Once per daemon, if SIS_CORE is off: how to turn it on. */
void kernelmode_advise(struct vp_daemon *d);
/* "kernel-patch" (SIS_CORE named, on or off) or "userspace". */
const char *kernelmode_label(const struct vp_daemon *d);
/* "SIS_CORE off", "SIS_CORE unknown (PATH: why)": for the log. */
void kernelmode_describe(const struct vp_daemon *d, char *buf, size_t len);

/* schedext.c: vcpuplace's sched_ext scheduler, when the kernel has it */
/* "auto", "on", "off" into *ret (untouched on failure); -EINVAL. */
/*
 * The daemon does not see how long a vCPU sleeps (schedstat gives run
 * and wait time, not sleep lengths), so SIS_CACHE's "short sleep" is one
 * constant for every cache_hot vCPU: a tenth of the kernel's own
 * cache-hot horizon for a migration (sysctl_sched_migration_cost, 500
 * us), so that only ping-pong wake-ups (an IPI, a short I/O completion)
 * count as cache-hot.
 */
#define VP_SX_SHORT_SLEEP_NS	50000ULL
int schedext_parse_opt(const char *arg, enum vp_sx_opt *ret) VP_MUST_CHECK;
const char *schedext_opt_name(enum vp_sx_opt o);
const char *schedext_state_name(enum vp_sx_state s);
const char *schedext_cause_name(enum vp_sx_cause c);
/* "stall", "bpf-error", ...: enum scx_exit_kind, for people. */
const char *schedext_exit_kind_name(int kind);
/*
 * What start-up found, in the order it asks.  A field is read only when
 * every earlier one allowed going on, so a caller fills them one by one
 * and asks again (schedext_start()).
 */
struct vp_sx_probe {
	enum vp_sx_opt opt;
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
struct vp_sx_verdict {
	enum vp_sx_state state;	/* LOADED: load it (or keep it) */
	enum vp_sx_cause cause;
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
void schedext_decide(const struct vp_sx_probe *p, struct vp_sx_verdict *ret);
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
 * Whether our BPF scheduler enforces cgroup cpu.max quotas: no, on every
 * kernel (it implements no ops.cgroup_set_bandwidth, which 7.3.4's
 * sched_ext_ops has, and 6.12's enforces quotas for CFS tasks only, which
 * a full switch leaves none of).  The one place that says so.
 */
bool schedext_quota_enforced(void);
/*
 * Whether the loaded scheduler sees halt polls (its kvm_vcpu_halt()
 * probes attached, so POLL_END can act); false when not loaded.
 */
const char *schedext_halt_probes(const struct vp_schedext *s);
/* "sched-ext", else kernelmode_label(): the kernel mode everywhere. */
const char *schedext_mode_label(const struct vp_daemon *d);
/* The entry last written for thread @tid, or NULL. */
const struct vp_sx_pushed *schedext_pushed(const struct vp_schedext *s,
    int tid);
/*
 * One tick's vp_vcpus changes, in the order they are made: for a new
 * thread its entry, then the move into SCHED_EXT (so it never runs
 * there without one); for a gone thread the move out, then the delete.
 */
enum vp_sx_act_kind { VP_SX_SET, VP_SX_EXT_ON, VP_SX_EXT_OFF, VP_SX_DEL };
struct vp_sx_act {
	enum vp_sx_act_kind kind;
	int tid;
	int want;		/* SET, EXT_ON: index into @want; else -1 */
};
/*
 * Compares what was written (@old, sorted by tid) with what the plan
 * wants now (@want, sorted by tid, tids unique, .ext ignored): an entry
 * that differs is written again, an equal one is not; a thread not yet
 * in SCHED_EXT is moved (again).  Fills @ret (room for 2 * (nold +
 * nwant)) and returns how many.  Pure.
 */
int schedext_diff(const struct vp_sx_pushed *old, int nold,
    const struct vp_sx_pushed *want, int nwant, struct vp_sx_act *ret);


/* status.c: the daemon's state as JSON (json-c) */
struct json_object;
/* The "status" document; the caller puts it. */
struct json_object *status_json(const struct vp_daemon *d);
/* Writes status_json() atomically to --status-file, if one was given
 * (atomicfile_write(): a planted symlink is never followed); -errno. */
int status_write(const struct vp_daemon *d);

/* metrics.c: Prometheus text exposition format 0.0.4 */
/* Counts one plan duration into the histogram. */
void metrics_observe_plan(struct vp_daemon *d, uint64_t ns);
/* Counts one event-to-pins latency of one VM into its histogram. */
void metrics_observe_latency(struct vp_daemon *d, uint64_t ns);
/* Writes every metric to @f; -errno on a write error. */
int metrics_write(const struct vp_daemon *d, FILE *f);

/* explain.c: why one vCPU is where it is, in words */
/* Writes the explanation to @f; -ENOENT (with a message) if no such vCPU. */
int explain_vcpu(const struct vp_daemon *d, const char *vm, int vcpu, FILE *f);

/* server.c: the socket's plumbing (accept, read, limits, write) */
#define VP_CTL_LINE_MAX	1024	/* one request line, newline included */
#define VP_CTL_CLIENTS_MAX	1024	/* at once; more are refused at once */
#define VP_CTL_PERSON_MAX	128	/* at once per non-root person (server.c) */
#define VP_CTL_ROOT_RESERVE	64	/* slots only uid 0 may take */
#define VP_CTL_READ_NS	(2ULL * 1000000000)	/* to send the request */
#define VP_CTL_WRITE_NS	(10ULL * 1000000000)	/* to read the answer */
/* answers not yet read, a shared one once: new requests wait past it */
#define VP_CTL_QUEUED_MAX	((size_t)32 << 20)
/*
 * Binds and listens on d->ctl.path (mode 0660, group vcpuplace); -EPERM,
 * -ENOTDIR (a symlink) when its folder may be written by others.
 */
int server_open(struct vp_daemon *d) VP_MUST_CHECK;
void server_close(struct vp_daemon *d);
/* Serves clients until the monotonic time @deadline: the tick's sleep. */
void server_serve(struct vp_daemon *d, uint64_t deadline);
/* Runs the commands queued because they talk to libvirt (the tick's). */
void server_run_queued(struct vp_daemon *d);
/*
 * The worker answered the policy write @seq: its client gets the answer;
 * false when none waits for it any more.
 */
bool server_policy_answered(struct vp_daemon *d, uint32_t seq,
    const struct vp_msg_result *res);

/* request.c: a request line parsed into a struct vp_request; the commands */
/*
 * Parses one request line into *ret, with no side effect.  Returns 0, or
 * a VP_REJ_* cause with a one-line reason in @err (*ret untouched).
 */
int request_parse(const char *line, struct vp_request *ret, char *err,
    size_t errlen) VP_MUST_CHECK;
const char *request_name(enum vp_cmd cmd);	/* "status", ... */
/* Changes placement: only uid 0 may ask. */
bool request_needs_root(enum vp_cmd cmd);
/* Blocks on libvirt: queued, and run by the tick, not while serving. */
bool request_deferred(enum vp_cmd cmd);
/* command.c: a parsed request, run */
/*
 * Runs @q and counts it; the answer goes to @f.  Returns 0, or a
 * VP_REJ_* cause after writing one "error: ..." line to @f.
 */
int command_run(struct vp_daemon *d, const struct vp_request *q, FILE *f);
/*
 * command_run() returns this when the answer comes later: the policy
 * write went to the libvirt worker as request d->lv.seq, and
 * command_policy_done() writes the answer when it comes back.
 */
#define VP_CMD_LATER	(-EINPROGRESS)
int command_policy_done(struct vp_daemon *d, const struct vp_request *q,
    const struct vp_msg_result *res, FILE *f);
int command_policy_late(struct vp_daemon *d, const struct vp_request *q,
    FILE *f);

/* reload.c: SIGHUP and the "reload" command */
/* Rereads the policies and the topology, keeping placements. */
void reload_all(struct vp_daemon *d);

#endif /* DAEMON_H */
