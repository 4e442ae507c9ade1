/*
 * sim.h - the host simulator: types and prototypes, grouped by the file
 * that defines them.
 *
 * A discrete-event model of one KVM host.  The PUs come from an hwloc
 * XML file through daemon/host/hwtopo.c; the vCPU threads of the simulated
 * VMs run on them with run queues, time slices, SMT yield, cache
 * warm-up and scan costs.  Each strategy is only a wake-up decision
 * (plus, for daemon and vcpuplace, the planner's homes and allowed
 * sets), so all of them see the same host and the same seeded work.
 * bench/README.md documents every parameter and where it comes from.
 */
#ifndef SIM_H
#define SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/vcpuplace.h"

/* ---------------------------------------------------------------- */
/* rng.c: xoshiro256** seeded by splitmix64, never rand() */

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Exponential with mean @mean_ns, at least 1 ns. */
uint64_t rng_exp_ns(struct rng *r, double mean_ns);

/* ---------------------------------------------------------------- */
/* evq.c: the event queue, a binary heap ordered by (time, sequence) */

enum ev_type {
	EV_PU,		/* a PU's burst end or slice end (checked by gen) */
	EV_TIMER,	/* a sleeping thread's timer fires */
	EV_ENQUEUE,	/* a decided wake-up reaches its PU */
	EV_UTIL,	/* SIS_UTIL: refresh util and nr_idle_scan */
	EV_BALANCE,	/* the scheduler tick's balance work (balance.c) */
	EV_TICK,	/* the daemon's planning tick */
	EV_KICK,	/* sched_ext: a kicked idle PU is up (strategy_scx) */
	EV_PREEMPT,	/* sched_ext: a preempting wake-up's resched lands */
};

struct event {
	uint64_t t_ns;
	uint64_t seq;		/* ties broken by insertion order */
	enum ev_type type;
	int arg;
	uint32_t gen;		/* EV_PU, EV_TIMER: stale if gen moved on */
};

struct evq {
	struct event *h;
	int n, cap;
	uint64_t seq;
};

int evq_init(struct evq *q) VP_MUST_CHECK;
void evq_release(struct evq *q);
int evq_push(struct evq *q, uint64_t t_ns, enum ev_type type, int arg,
    uint32_t gen) VP_MUST_CHECK;
/* Pops the earliest event into *ret; false when empty. */
bool evq_pop(struct evq *q, struct event *ret);

/* ---------------------------------------------------------------- */
/* params.c: the model's parameters (see bench/README.md) */

struct sim_params {
	uint64_t slice_ns;	/* EEVDF base slice */
	bool eevdf;		/* stock's runqueues are EEVDF's (eevdf.c);
				 * false: the FIFO, fixed-slice model before */
	uint64_t jiffy_ns;	/* the scheduler tick (1 / HZ) */
	double smt_yield;	/* per-thread speed with one busy sibling */
	double line_ns[4];	/* per hot line refetched, by distance 1..4 */
	double warm_lines;	/* a vCPU's own hot lines */
	double msg_lines;	/* lines a wakee reads from its waker */
	double mlp;		/* cache misses in flight at once */
	double warm_scale;	/* sensitivity knob for all warm costs */
	uint64_t probe_ns;	/* one remote runqueue probe */
	uint64_t bpf_step_ns;	/* one CPU looked at by the BPF scan */
	uint64_t stopper_ns;	/* active balance's stopper round trip */
	uint64_t scx_kick_ns;	/* scx_bpf_kick_cpu() to the PU's wake-up */
	uint64_t scx_resched_ns;	/* a schedule() pass that keeps prev */
	double poll_smt_weight;	/* a halt-polling sibling, as busy threads */
	/* host tasks (hosttasks.c); a burst or a rate of 0 turns that kind
	 * off, all three off is the model before host tasks */
	uint64_t kthread_ns;	/* a per-CPU kthread's burst */
	uint64_t kthread_period_ns;	/* its period (the tick's) */
	uint64_t vhost_ns;	/* a vhost worker's burst per kick */
	unsigned int vhost_every;	/* a vCPU kicks it every Nth burst end */
	uint64_t iothread_ns;	/* a QEMU main-loop/I/O thread's burst */
	uint64_t iothread_period_ns;	/* its mean time between wake-ups */
	uint64_t migration_cost_ns;	/* newidle gate on avg_idle */
	uint64_t util_period_ns;	/* SIS_UTIL refresh period */
	double util_halflife_ns;	/* PELT half-life */
	uint64_t tick_ns;	/* the daemon's planning tick */
	uint64_t warmup_ns;	/* simulated, not measured */
	uint64_t measure_ns;	/* simulated and measured */
	/* the host costs (costs.h, costs.c, cpus.c) */
	unsigned int costs;	/* COST_* switches that are on */
	double migration_us;	/* > 0: an in-LLC cross-core migration
				 * costs this in all; <= 0: costs.c model */
	int64_t halt_poll_ns;	/* KVM's halt_poll_ns; < 0: arch default */
	double l2_hot_frac;	/* share of the L2 a migrated vCPU refetches */
	double cstate_scale;	/* actual / declared C-state exit latency */
	double l1d_bytes, l2_bytes;	/* from the XML (cpus_identify) */
	bool l2_shared;		/* the L2 spans more than one core */
	const struct cpu_model *cpu;	/* cpus.c; NULL: generic */
};

void params_default(struct sim_params *ret);

/* ---------------------------------------------------------------- */
/* stats.c: what a run reports */

#define LAT_BUCKETS	704	/* log-linear, 16 per power of two, to 2^47 */

struct sim_stats {
	double useful_ns;	/* work completed at full speed */
	double overhead_ns;	/* warm-up and scan work */
	uint64_t wakes;
	uint64_t probes;
	uint64_t busy_sibling;	/* wake on a busy core, idle core allowed */
	uint64_t cross_cluster;
	uint64_t cross_llc;
	uint64_t migrations;
	double migr_cost_ns;	/* the host costs, each one's total */
	double cstate_ns;
	double poll_ns;		/* halt-poll spin: neither useful nor over */
	double idle_upkeep_ns;
	double kick_ns;		/* scx: kicks in flight, summed */
	double dsq_lock_ns;	/* scx: shared-DSQ operations, summed */
	double resched_ns;	/* scx: ENQ_LAST round trips, summed */
	uint64_t poll_hits;	/* wake-ups caught while polling: not in lat[] */
	uint64_t lat[LAT_BUCKETS];	/* wake-ups that went through a wake path */
	uint64_t nlat;
};

void stats_add_latency(struct sim_stats *s, uint64_t ns);
/* The @q quantile (0..1) of the recorded latencies, in ns. */
double stats_quantile(const struct sim_stats *s, double q);
/* The same with @nzero more samples of 0 ns (poll hits, as the older
 * model counted them). */
double stats_quantile_with(const struct sim_stats *s, double q,
    uint64_t nzero);

/* ---------------------------------------------------------------- */
/* The simulation state (host.c owns it; the other files read it). */

enum th_state { TH_SLEEP, TH_WAKING, TH_QUEUED, TH_RUNNING };

/* What a simulated thread is: a vCPU, or a host task (hosttasks.c). */
enum th_kind {
	TH_VCPU,	/* a QEMU vCPU thread */
	TH_KTHREAD,	/* a per-CPU kthread (kworker, ksoftirqd, rcu) */
	TH_VHOST,	/* a VM's vhost worker, kicked by its vCPUs */
	TH_IOTHREAD,	/* a VM's QEMU main-loop / I/O thread */
};

/*
 * What decides where a vCPU runs (strategy.c).  Each is the code that
 * really runs somewhere: the stock kernel, an admin's pins, the daemon in
 * userspace mode (two ways), the sched_ext scheduler, the kernel patch.
 * GREEDY is a reference heuristic that sees everything; it is no bound
 * (bound.c computes the bound).
 */
enum strategy {
	STRAT_STOCK, STRAT_PINNED, STRAT_DAEMON, STRAT_DAEMON_CORES,
	STRAT_SCX, STRAT_SIS_CORE, STRAT_GREEDY, STRAT_COUNT
};

enum rng_use { RNG_BURST, RNG_HALT, RNG_PHASE, RNG_PEER };

enum workload {
	WL_HACKBENCH, WL_TBENCH, WL_SCHBENCH, WL_HOGS, WL_DENSE, WL_COUNT
};

struct sim_thread {
	enum th_kind kind;
	int vm;			/* its VM; -1 for a per-CPU kthread */
	int idx;		/* vCPU number inside its VM; host task: -1 */
	int bind_pu;		/* TH_KTHREAD: the one PU it may run on */
	unsigned int kicks;	/* vCPU: burst ends, for vhost kicks */
	enum th_state state;
	int pu;			/* where it runs, queues or is headed */
	int last_pu;		/* where it last ran: the kernel's prev */
	int recent_pu;		/* the kernel's recent_used_cpu */
	int home;		/* planner's home, or VP_PU_NONE */
	int allowed;		/* index into sim.allowed[] */
	int next;		/* run-queue link */
	/* eevdf.c: its sched_entity, weight 1024 (nice 0) as every thread
	 * here: vruntime and deadline in ns on the runqueue it is on; vlag
	 * (V - vruntime) kept while it is on none (asleep, in flight) */
	int64_t vruntime, deadline, vlag;
	bool protect;		/* RUN_TO_PARITY: in the request it was
				 * picked with (set_protect_slice()) */
	bool rel_deadline;	/* migrating: deadline kept relative */
	bool placed;		/* enqueued before: PLACE_DEADLINE_INITIAL */
	double work_ns;		/* useful work left in this burst */
	double over_ns;		/* warm-up and scan work, done first */
	uint64_t wake_t_ns;	/* when the pending wake-up happened */
	uint64_t sleep_t_ns;	/* when it went to sleep */
	uint64_t sleep_avg_ns;	/* its usual short sleep (EWMA) */
	int waker_pu;		/* the PU that woke it, or VP_PU_NONE */
	bool woken;		/* next start is a wake-up (latency) */
	bool started;		/* had its first wake-up */
	bool polling;		/* halted, spinning on its PU (KVM) */
	uint64_t poll_win_ns;	/* KVM's vcpu->halt_poll_ns */
	/* stock.c: PELT load_avg (0..1024) and record_wakee() state */
	double load;
	uint64_t load_t_ns;
	unsigned int wakee_flips;
	uint64_t flip_decay_ns;
	int last_wakee;
	uint32_t timer_gen;
	/* workload state */
	int pending;		/* messages or requests waiting */
	/* schbench: when each pending request was posted, oldest first
	 * (a ring of posted_cap; pending entries from posted_head) */
	uint64_t *posted_ns;
	int posted_cap, posted_head;
	bool on;		/* dense mix: in a run phase */
	uint64_t phase_end_ns;
	/* what /proc/<tid>/schedstat shows: time on a CPU, time runnable
	 * but waiting, times it got a CPU; ss_since_ns: state change */
	uint64_t ss_run_ns, ss_wait_ns, ss_slices, ss_since_ns;
	/* its own streams, one per purpose, so that the k-th burst, halt,
	 * phase or message target is the same under every strategy */
	struct rng rng[4];
};

struct sim_pu {
	int cur;		/* running thread, or -1 */
	int head, tail, nq;	/* run queue of thread indices, in arrival
				 * order (EEVDF picks from it: eevdf.c) */
	int inflight;		/* decided wake-ups not yet arrived */
	double speed;		/* of the running thread, 0..1 */
	uint64_t settled_ns;	/* progress accounted up to here */
	uint64_t slice_end_ns;
	uint32_t gen;
	uint64_t idle_since_ns;
	uint64_t avg_idle_ns;	/* the kernel's rq->avg_idle */
	uint64_t busy_ns;	/* running time in this util period */
	uint64_t busy_since_ns;
	double util;		/* PELT-like running fraction, 0..1 */
	int cstate;		/* idle state picked at idle entry, or -1 */
	bool in_idle;		/* rq->curr is the idle task: from finding
				 * nothing to run to the next start */
	uint64_t upkeep_until_ns;	/* idle-entry upkeep runs until */
	bool kicked;		/* sched_ext: picked and kicked, not yet up;
				 * out of the idle masks (busy) meanwhile */
	/* eevdf.c: cfs_rq->zero_vruntime (V when last taken) and the
	 * running thread's se->exec_start (vruntime accounted to here) */
	int64_t zero_vruntime;
	uint64_t exec_start_ns;
	/* its running thread is in its burst end (workload_burst_end()):
	 * a wake-up's resched_curr() waits in need_resched until then, as
	 * TIF_NEED_RESCHED waits for the way out of the guest */
	bool ending, need_resched;
};

struct sim;

/* One wake-up decision: returns the PU, adds to *probes. */
typedef int (*select_fn)(struct sim *s, int th, int waker_pu,
    unsigned long *probes);

struct sim_vm {
	int first;		/* first thread */
	int n;
	int cls;		/* its class (classes.c): index of s->cls_* */
	struct vp_policy policy;	/* its own, from its profile */
};

#define SIM_MAX_CLASSES	8

struct sim {
	const struct vp_topo *t;
	struct sim_params p;
	struct vp_features feat;
	enum strategy strat;
	enum workload wl;
	select_fn select;
	select_fn select_host;	/* a host task's wake-up (not a vCPU's) */
	uint64_t now_ns;
	struct evq q;
	struct sim_pu *pu;	/* [t->npus] */
	struct sim_thread *th;	/* [nth] */
	int nth;		/* vCPUs, then host tasks */
	int nvcpu;		/* th[0 .. nvcpu) are the vCPUs */
	struct sim_vm *vm;	/* [nvm] */
	int nvm;
	struct vp_cpuset *allowed;	/* [nallowed] */
	int nallowed;
	struct vp_cpuset busy;	/* running, queued or a wake-up in flight */
	struct vp_cpuset running;	/* a thread is on the PU */
	/* stock: the kernel's per-LLC state */
	bool *has_idle_cores;	/* [nllcs] */
	int *nr_idle_scan;	/* [nllcs] */
	bool cluster_active;	/* a cluster level between core and LLC */
	/* scx: the BPF side's state (strategy_scx.c) and vp_features */
	struct scx_sim *scx;
	uint32_t scx_features;
	struct sim_balance *bal;	/* balance.c's sched domains */
	/* sis-core: SIS_CORE's idle_core_cpus, every PU of each whole idle
	 * core, all LLCs in one set; the mask writes the last wake-up's
	 * waker made (claims, stale drops), for costs_waker_upkeep() */
	struct vp_cpuset sis_idle_cores;
	unsigned int sis_writes;
	bool measuring;
	struct sim_stats st;	/* vCPUs only */
	/* host tasks' own figures: useful_ns is their CPU time at full
	 * speed, lat[] their wake-up latencies; host_wait_ns the sum of
	 * those latencies, host_run_ns their time on a PU */
	struct sim_stats host_st;
	double host_wait_ns, host_run_ns;
	/* schbench's request waits: each request's wait from its post to
	 * its worker starting on it, a request behind a busy worker
	 * included (workload.c); st counts only the wake-ups.  Not what
	 * schbench calls request latency (work start to end) */
	struct sim_stats req_st;
	struct cores_state *cores;	/* strategy_cores.c, or NULL */
	struct vp_policy policy;	/* the run's default (--policy-*) */
	/* VM classes (classes.c): each VM's profile, and each class's own
	 * figures (useful work, wake-ups, latencies) */
	int ncls;
	const char *cls_name[SIM_MAX_CLASSES];
	struct sim_stats *cls_st;	/* [ncls], or NULL */
	bool check;		/* verify invariants after every event */
	double issued_ns;	/* useful work handed out, for conservation */
	double done_ns;		/* useful work completed, whole run */
	double bound;		/* bound.c: no strategy can exceed it */
	int errors;
	/* costs.c: migration cost by distance class; turbo per package.
	 * A thread's speed never exceeds its core's prio / 1024: turbo
	 * only scales it down from the one-active-core frequency. */
	double migr_ns[5];
	int *pkg_active;	/* [npackages]: cores with a running PU */
	double *pkg_speed;	/* [npackages]: f(active) / f(1), <= 1 */
	int *pkg_first, *pkg_npus;	/* [npackages]: PU ranges */
	int *pkg_ncores;	/* [npackages] */
	/* idle-mask lines: [llc] has_idle_cores, [nllcs + llc] SIS_CORE's
	 * LLC mask, [2 nllcs] sched_ext's global masks */
	uint64_t *line_last_ns;
	double *line_gap_ns;	/* EWMA of the time between touches */
};

/* ---------------------------------------------------------------- */
/* host.c: PUs, run queues, speeds, wake-ups, idle balance */

int host_init(struct sim *s) VP_MUST_CHECK;
void host_release(struct sim *s);
/* Runs the event loop to warmup + measure; 0 or -errno. */
int host_run(struct sim *s) VP_MUST_CHECK;
/* Handles the events before @until_ns, then sets the clock there (for
 * tests on hand-built states). */
void host_advance(struct sim *s, uint64_t until_ns);
/* Wakes sleeping thread @th now; @waker_pu is VP_PU_NONE for timers. */
void host_wake(struct sim *s, int th, int waker_pu);
/* Arms @th's timer to wake it @delay_ns from now. */
void host_timer(struct sim *s, int th, uint64_t delay_ns);
/* Gives @th a new burst of @work_ns useful work. */
void host_burst(struct sim *s, int th, uint64_t work_ns);
/* Ends the slice of what runs on @pu now (a tick's cut); it then goes
 * through the strategy's slice end like any slice that ran out. */
void host_cut_slice(struct sim *s, int pu);
/* True when @pu runs nothing, queues nothing and awaits nothing. */
static inline bool host_idle(const struct sim *s, int pu)
{
	return !cpuset_test(&s->busy, pu);
}
/* Whole core of @pu idle. */
bool host_core_idle(const struct sim *s, int pu);
/* Runnable threads on @pu (running + queued + in flight). */
int host_nr(const struct sim *s, int pu);
/* Distance class: 0 same PU/core, 1 cluster, 2 LLC, 3 package, 4 far. */
int host_distance(const struct vp_topo *t, int a, int b);
/* Work (ns at full speed) to refetch @lines from distance class @d. */
double host_refetch_ns(const struct sim *s, double lines, int d);
/* Per-thread speed on @pu's core with @k threads running on it. */
double host_speed_with(const struct sim *s, int pu, double k);
/* Links @th at the tail of @pu's run queue, queued there; nothing else
 * (rq_push() also tells the balance; tests/sim/rules.c builds queues). */
void host_rq_link(struct sim *s, int pu, int th);
/* Moves queued @th from @src to @dst (balance); @cost_ns delays it. */
void host_pull(struct sim *s, int src, int th, int dst, double cost_ns);
/* Active balance: @src's running thread is preempted by the stopper
 * and moved to idle @dst; @cost_ns delays it. */
void host_push_running(struct sim *s, int src, int dst, double cost_ns);
/* @ns of kernel work on @pu, done by the thread running there (not by
 * a halt-polling one: the poll loop does not run scheduler code). */
void host_charge(struct sim *s, int pu, double ns);

/* ---------------------------------------------------------------- */
/* eevdf.c: a stock runqueue's EEVDF order (6.12 kernel/sched/fair.c) */

/* The runqueues are EEVDF's: every strategy's but scx's, model on. */
bool eevdf_on(const struct sim *s);
/* update_curr() on @pu now: true when the kernel would reschedule if
 * another thread were queued there (a request renewed now, or the
 * running thread unprotected and no longer eligible). */
bool eevdf_update_curr(struct sim *s, int pu);
/* enqueue_entity() of @th on @pu: update_curr()'s answer, then
 * place_entity() against the runqueue as it is, @th not yet on it. */
bool eevdf_enqueue(struct sim *s, int pu, int th);
/* dequeue_entity() of @th (running or queued on @pu): update_curr()'s
 * answer, then the lag @th keeps; @sleep: it blocks, else it migrates. */
bool eevdf_dequeue(struct sim *s, int pu, int th, bool sleep);
/* set_next_entity(): @th starts running on @pu now. */
void eevdf_set_next(struct sim *s, int pu, int th);
/* pick_eevdf() over @pu's running thread and queue: the thread to run
 * (the running one when it keeps the PU), or -1 when both are empty. */
int eevdf_pick(const struct sim *s, int pu);
/* check_preempt_wakeup_fair(): does queued @th take @pu now? */
bool eevdf_wakeup_preempt(const struct sim *s, int pu, int th);
/* The tick at which @th, running on @pu, loses it if nothing else
 * happens there: always after now. */
uint64_t eevdf_slice_end(const struct sim *s, int pu, int th);
/* The lag bound of entity_lag(), in ns. */
int64_t eevdf_lag_limit(const struct sim *s);

/* ---------------------------------------------------------------- */
/* balance.c: Linux 6.12's load balance, newidle and periodic */

int balance_init(struct sim *s) VP_MUST_CHECK;
void balance_release(struct sim *s);
/* The first EV_BALANCE events. */
void balance_start(struct sim *s);
/* @pu has just gone idle: sched_balance_newidle(). */
void balance_newidle(struct sim *s, int pu);
/* An EV_BALANCE event with @arg. */
void balance_event(struct sim *s, int arg);
/* A thread was queued behind another on @pu (rd->overloaded). */
void balance_queued(struct sim *s, int pu);
/* @pu's sched domains, bottom up (degenerate ones dropped), and the
 * span of level @lev: a range of dense PU indices. */
int balance_nlevels(const struct sim *s, int pu);
void balance_span(const struct sim *s, int pu, int lev, int *first, int *n);
/* The group of @i in a domain of @parent_n CPUs: @i's largest domain
 * below it (its child), or @i alone (a sched_group's span). */
void balance_group(const struct sim *s, int i, int parent_n, int *first,
    int *n);

/* active.c: active balance's imbalance (need_active_balance()) */

/* Idle @pu's periodic balance at level @lev (span [first, first + n))
 * found nothing queued to pull: the PU whose running thread the
 * stopper should push to @pu if the level is imbalanced, else -1. */
int active_imbalance(const struct sim *s, int pu, int first, int n, int lev);
/* ITMT asym packing (x86 hybrids with SMT, amd-pstate preferred cores):
 * the PU whose running thread idle @pu, of higher priority, takes from
 * the domain [first, first + n) at once, or -1. */
int active_asym_src(const struct sim *s, int pu, int first, int n);
/* The tick of busy @pu kicks the ILB for an idle CPU it prefers. */
bool active_asym_kick(const struct sim *s, int pu);

/* ---------------------------------------------------------------- */
/* fork.c: where 6.12 puts a new thread (the fork/exec slow path) */

/*
 * select_task_rq_fair() for a new task forked on @parent_pu (WF_FORK):
 * the PU it first runs on.  @nr[pu] counts the runnable tasks on each
 * PU (the caller adds the new one after; a booting vCPU is runnable).
 */
int fork_select(const struct sim *s, const int *nr, int parent_pu);

/* ---------------------------------------------------------------- */
/* check.c: invariants, verified after every event in --check mode */

void check_state(struct sim *s);
void check_end(struct sim *s);

/* ---------------------------------------------------------------- */
/* stock.c: Linux 6.12's wake-up path, modelled */

int stock_select(struct sim *s, int th, int waker_pu, unsigned long *probes);
/* SIS_UTIL: nr_idle_scan of @llc from its util (update_idle_cpu_scan). */
int stock_nr_idle_scan(const struct vp_topo *t, int llc, double util_sum);
/* A PU went idle: __update_idle_core() sets has_idle_cores. */
void stock_pu_idle(struct sim *s, int pu);
/* A PU leaves idle for a thread: put_prev_task_idle(). */
void stock_pu_run(struct sim *s, int pu);
/* capacity_of(@pu): its priority on asym-capacity hosts, else 1024. */
unsigned int stock_capacity(const struct sim *s, int pu);

/* ---------------------------------------------------------------- */
/* sis_core.c: the SIS_CORE patch, sched_feat(SIS_CORE) on */

/* What one select_idle_sibling() call of SIS_CORE works with. */
struct sis_core_wake {
	struct sim *s;
	const struct vp_cpuset *cpus;	/* p->cpus_ptr */
	bool (*probe)(void *ctx, int pu);	/* available_idle_cpu(), counted */
	void *ctx;
	unsigned long *probes;
	bool read;		/* the mask's line already read (one probe) */
	int defer;		/* first idle CPU kept aside, or VP_PU_NONE */
};

/* A domain rebuild (host_init): every bit set. */
void sis_core_rebuild(struct sim *s);
/* __update_idle_core() with SIS_CORE: @pu enters idle. */
void sis_core_pu_idle(struct sim *s, int pu);
/* __update_busy_core(): @pu leaves idle; true if the mask was written. */
bool sis_core_pu_busy(struct sim *s, int pu);
/* sis_core_mask() != NULL for this wake-up. */
bool sis_core_applies(const struct sim *s);
/* sis_core_take(): may idle @pu be taken at once?  Claims its core if
 * whole idle (probed first); else may keep it in w->defer. */
bool sis_core_take(struct sis_core_wake *w, int pu);
/* select_idle_core_sis(), once w->defer is set: a claimed whole idle
 * core's PU within SIS_UTIL's budget, or VP_PU_NONE. */
int sis_core_select(struct sis_core_wake *w, int target);

/* ---------------------------------------------------------------- */
/* strategy.c: the strategies' setup and their wake-up decisions */

const char *strategy_name(enum strategy st);
int strategy_lookup(const char *name);
/* Homes and allowed sets before the run; 0 or -errno. */
int strategy_setup(struct sim *s) VP_MUST_CHECK;
/* The daemon's tick: replan (daemon and vcpuplace only). */
int strategy_tick(struct sim *s) VP_MUST_CHECK;
/* May idle @pu pull queued @th from @src?  Only greedy says no:
 * when the move's warm-up costs more than the wait it saves. */
bool strategy_may_pull(const struct sim *s, int src, int th, int pu);

/* ---------------------------------------------------------------- */
/* strategy_scx.c: the sched_ext scheduler (daemon/scx/vcpuplace_wake.h) */

/* Its tables and state; 0 or -errno.  scx_release() frees them. */
int scx_setup(struct sim *s) VP_MUST_CHECK;
void scx_release(struct sim *s);
/* select_cpu: the PU claimed, or where it waits if scx_queued(). */
int scx_select(struct sim *s, int th, int waker_pu, unsigned long *probes);
/* select_cpu of a task that is not a managed vCPU (a host task):
 * HOST_PACK's select_host_pack(), else scx_bpf_select_cpu_dfl(). */
int scx_select_host(struct sim *s, int th, int waker_pu,
    unsigned long *probes);
/* The last decision sent @th to the shared queue, not to a PU. */
bool scx_queued(const struct sim *s, int th);
/* Whether @th's wake-up, decided as queued, preempts its PU instead
 * (enqueue_urgent(): a latency vCPU); asked once, at its enqueue. */
bool scx_urgent(struct sim *s, int th);
/* @th, running on @pu, was preempted: back to its queue by vtime. */
void scx_preempted(struct sim *s, int pu, int th);
/* What the last scx_select() cost its waker, in ns. */
uint64_t scx_scan_ns(const struct sim *s);
/* Queues @th (a wake-up); returns an idle PU kicked to drain, or -1. */
int scx_enqueue(struct sim *s, int th);
/* A thread in the shared queue counts on @pu's runqueue: @pu is its
 * task_cpu (6.12 enqueue_task_scx() adds it to that rq's nr_running). */
bool scx_rq_waiting(const struct sim *s, int pu);
/* ops.dispatch of idle @pu: the thread it takes, or -1. */
int scx_consume(struct sim *s, int pu);
/* ops.running: @th starts on @pu (run record, vtime, its slice). */
void scx_running(struct sim *s, int pu, int th);
/* Where a thread whose slice ended on its PU goes (scx_slice_end()). */
enum scx_slice_fate {
	SCX_SLICE_KEPT,		/* runs on, a new slice */
	SCX_SLICE_SHARED,	/* into the shared queue */
};
enum scx_slice_fate scx_slice_end(struct sim *s, int pu, int th);
/* ops.tick on every PU, once a jiffy (balance.c's event, which CFS's
 * balance would take): ends a slice run past the one that fits the
 * waiters now. */
void scx_tick(struct sim *s);
/* The shared queue's invariants hold. */
bool scx_check(const struct sim *s);

/* strategy_cores.c: daemon-cores, core grants re-planned each tick */

/* After the planner's sets are in s->allowed; 0 or -errno. */
int cores_setup(struct sim *s) VP_MUST_CHECK;
int cores_tick(struct sim *s) VP_MUST_CHECK;
void cores_release(struct sim *s);
/* vCPUs holding a core grant now; -1 for the other strategies. */
int cores_granted(const struct sim *s);

/* ---------------------------------------------------------------- */
/* workload.c: VMs, their vCPU threads and what they do */

const char *workload_name(enum workload w);
int workload_lookup(const char *name);
/* Creates VMs and threads for @load_pct of the host's cores. */
int workload_create(struct sim *s, int load_pct, uint64_t seed)
	VP_MUST_CHECK;
/* The first wake-ups, at t = 0. */
void workload_start(struct sim *s);
/* @th finished its burst: continue (true, with a new burst) or sleep. */
bool workload_burst_end(struct sim *s, int th);
/* @th's timer fired while it slept. */
void workload_timer(struct sim *s, int th);
/* @th started on a CPU after a wake-up that waited @ns (0: a poll hit). */
void workload_woke(struct sim *s, int th, uint64_t ns);
void workload_release(struct sim *s);

/* The definition bound.c reads: messages in flight per VM, mean bursts,
 * the schbench period. */
struct wl_def {
	int tokens;
	double burst_ns[2];	/* vCPU 0, the others */
	uint64_t period_ns;
};
void workload_def(enum workload w, struct wl_def *ret);

/* ---------------------------------------------------------------- */
/* hosttasks.c: per-CPU kthreads, vhost workers, QEMU I/O threads */

static inline bool
th_is_host(const struct sim *s, int thi)
{
	return s->th[thi].kind != TH_VCPU;
}
/* Host tasks to add after @nvcpu vCPUs in @nvm VMs. */
int hosttasks_count(const struct sim *s);
/* Fills th[s->nvcpu .. s->nth) (after the vCPUs are made). */
void hosttasks_create(struct sim *s, uint64_t seed);
/* Their first timers, at t = 0. */
void hosttasks_start(struct sim *s);
/* Host task @thi finished its burst: continue (true) or sleep. */
bool hosttasks_burst_end(struct sim *s, int thi);
/* Host task @thi's timer fired. */
void hosttasks_timer(struct sim *s, int thi);
/* vCPU @thi ended a burst on its PU: every vhost_every-th kicks its
 * VM's vhost worker (an ioeventfd write). */
void hosttasks_vcpu_burst_end(struct sim *s, int thi);
/* The allowed set of each host task, after the strategy's setup. */
void hosttasks_allow(struct sim *s);

/* ---------------------------------------------------------------- */
/* bound.c: a true upper bound on throughput, from the definitions */

/* Cores' worth of useful work no strategy can exceed on this run;
 * call after workload_create() (it reads the threads' fresh streams). */
double bound_compute(const struct sim *s);

/* ---------------------------------------------------------------- */
/* classes.c: VM classes, each VM's profile and each class's figures */

struct run_opts;

/* After workload_create(); 0 or -errno (an unknown profile: -ENOENT). */
int classes_setup(struct sim *s, const struct run_opts *o) VP_MUST_CHECK;
void classes_release(struct sim *s);
/* The class figures of @thi's VM, or NULL (no classes set up). */
static inline struct sim_stats *
classes_stats(const struct sim *s, int thi)
{
	if (s->th[thi].kind != TH_VCPU)
		return NULL;
	return s->cls_st ? &s->cls_st[s->vm[s->th[thi].vm].cls] : NULL;
}

/* ---------------------------------------------------------------- */
/* report.c: one run's figures as JSON (json-c) */

struct run_cfg {
	const char *topology;
	enum workload wl;
	int load_pct;
	enum strategy strat;
	uint64_t seed;
	const char *variant;	/* "", or the feature/parameter tweak */
};

/* Returns a new JSON string to free(), or NULL. */
char *report_json(const struct sim *s, const struct run_cfg *c);

/* ---------------------------------------------------------------- */
/* run.c: one point, from a topology to its JSON line */

struct vp_profiles;

struct run_opts {
	struct sim_params p;
	struct vp_features feat;
	struct vp_policy policy;
	bool check;
	/* VM classes: VM v gets profile v mod n of this comma list, from
	 * @profiles; NULL: every VM the run's policy, one class "default" */
	const char *vm_mix;
	const struct vp_profiles *profiles;
};

/* Runs one point on @t; returns the JSON line (free()) or NULL. */
char *run_point(const struct vp_topo *t, const struct run_cfg *c,
    const struct run_opts *o, int *ret_errors);

/* ---------------------------------------------------------------- */
/* sweep.c: the sweep behind `make bench`, run in worker processes;
 * points.c: which points it runs */

/* A topology of the sweep, and which set it belongs to. */
struct sweep_topo {
	const char *file;	/* e.g. "g4dnmetal.xml" */
	const char *label;	/* short name for tables */
	bool heldout;		/* never used to tune a rule */
};

/* The families of points; each table reads only its own. */
enum family {
	FAM_STANDARD,		/* the model as it is */
	FAM_SEED,		/* a seed's feature turned off */
	FAM_CLUSTER,		/* seed 003 with another cluster line cost */
	FAM_SMT,		/* SMT yield curve */
	FAM_MIGRATION,		/* migration cost curve */
	FAM_BPF,		/* scx: cost of a BPF scan step curve */
	FAM_NOPOLL,		/* KVM halt polling off */
	FAM_POLLW,		/* a polling sibling's weight curve */
	FAM_MIX,		/* VMs of two profiles: each class's figures */
	FAM_KICK,		/* scx: cost of a kick curve */
};

struct point {
	int topo;		/* index into struct sweep.topo */
	enum workload wl;
	int load_pct;
	enum strategy strat;
	uint64_t seed;
	enum family fam;
	const char *variant;	/* "" for the standard model */
	double smt_yield;	/* 0: the default */
	double warm_scale;	/* < 0: the default */
	double migration_us;	/* 0: the sourced migration cost */
	double cluster_line_ns;	/* 0: the default */
	double bpf_step_ns;	/* 0: the default */
	bool no_poll;		/* halt_poll_ns = 0 */
	double poll_smt_weight;	/* < 0: the default (0 is a value) */
	double scx_kick_ns;	/* < 0: the default (0 is a value) */
	const char *feature_off;	/* a feature turned off, or NULL */
	const char *locality;	/* the VMs' locality, or NULL: default */
	const char *vm_mix;	/* --vm-mix, or NULL: one class */
};

struct result {
	bool ok;
	double thr, p50, p99, probes, bs, xcl, xllc, mig;
	double bound;		/* bound.c's, for the bound check */
	double poll_share;	/* wake-ups that were halt-poll hits */
	double lat_p99;		/* p99 of the latency-profile VMs, or 0 */
	double host_p99;	/* p99 of the host tasks' wake-ups, or 0 */
};

struct sweep {
	const char *outdir;
	const struct sweep_topo *topo;
	struct vp_topo **t;	/* [ntopo], loaded */
	struct sweep_cpu {	/* [ntopo]: cpus_identify() of each file */
		const struct cpu_model *model;
		double l1d_bytes, l2_bytes;
		bool l2_shared;
	} *cpu;
	int ntopo;
	struct point *pt;	/* [npt] */
	struct result *res;	/* [npt] */
	int npt;
	const struct vp_profiles *profiles;	/* for FAM_MIX's --vm-mix */
};

/*
 * A sensitivity curve: one knob swept at 125 %.  points.c runs its points
 * under the variant tags curve_tag() writes; curves.c finds them back by
 * the same tags.
 */
struct curve {
	enum family fam;
	const char *what;	/* for titles */
	const char *fmt;	/* the variant tag of one value */
	const double *x;
	int n;
	unsigned int strats;	/* strategies run, a bit each */
	bool smt_only;		/* only on hosts with SMT */
};

extern const struct curve smt_curve, migration_curve, bpf_curve,
    pollw_curve, kick_curve;
/* The variant tag of value @k of @c, into @buf. */
void curve_tag(const struct curve *c, int k, char *buf, size_t len);
/* The loads of a set: the held-out set runs fewer. */
void points_loads(bool heldout, const int **ret, int *n);
/* The cheaper cluster lines of seed 003's family (points.c). */
extern const double cluster_curve[];
extern const int ncluster_curve;
/* Their variant tag: the line cost, CLUSTER_FIRST on or @off. */
void cluster_tag(double ns, bool off, char *buf, size_t len);

/* Fills @sw's topology list. */
void points_topos(struct sweep *sw);
/* Fills @sw's points, once sw->t is loaded; 0 or -ENOMEM. */
int points_build(struct sweep *sw) VP_MUST_CHECK;
/* The run options of point @p. */
void points_opts(const struct point *p, struct run_opts *o);
int sweep_main(const char *topodir, const char *outdir, int jobs,
    const char *profiles_dir);

/* ---------------------------------------------------------------- */
/* results.c: the sweep's figures, averaged over seeds */

struct agg {
	int n;
	double thr, thr_lo, thr_hi, p50, p99, p99_lo, p99_hi;
	double probes, bs, xcl, xllc, mig, bound, poll_share, lat_p99;
	double host_p99;
};

/* Mean over the seeds of one (topology, workload, load, strategy,
 * variant); n = 0 when no point matched. */
struct agg results_find(const struct sweep *sw, int topo, int wl, int load,
    int strat, const char *variant);
/* a / b, or 0 when b is not positive. */
double results_ratio(double a, double b);
/*
 * The (topology, workload) pairs of one set where both @strat and stock
 * ran at @load in @variant, one per call: start from RESULTS_PAIR_START;
 * false once there are no more.  Every ratio to stock over a set (the
 * summary's spans, the headroom and p99 figures) walks this one loop.
 */
struct results_pair {
	int t, w;
	struct agg a, stock;	/* @strat's runs and stock's */
};
#define RESULTS_PAIR_START { .t = 0, .w = -1 }
bool results_pair_next(const struct sweep *sw, bool heldout, int load,
    int strat, const char *variant, struct results_pair *p);
/* Opens OUTDIR/@name for writing, or NULL. */
FILE *results_open(const struct sweep *sw, const char *name);
/* Runs gnuplot on OUTDIR/plots/@name.gp; 0 or -1. */
int results_plot(const struct sweep *sw, const char *name);

/* tables.c: a table and plots per topology and workload */
int tables_write(const struct sweep *sw) VP_MUST_CHECK;

/* summary.c: both sets at 125 %, the bound check, the last line */
int summary_write(const struct sweep *sw) VP_MUST_CHECK;
/* Runs above their bound, plus runs that have no bound to check. */
int summary_bound_violations(const struct sweep *sw);

/*
 * headroom.c: how much a strategy could still gain, and how far the
 * bound is from what any strategy reached; the per-class and polling
 * figures of the last line.  Each over one set at @load, the standard
 * model, geometric means over its topology-workload pairs (0: none).
 */
struct headroom {
	int n;
	double bound_stock;	/* bound / stock */
	double best_stock;	/* the best strategy / stock: reached */
	double best_bound;	/* the best strategy / bound: tightness */
};
struct headroom headroom_of(const struct sweep *sw, bool heldout, int load,
    int wl);	/* @wl < 0: every workload */
/* The same for one topology @t and workload @w (n = 0: not run). */
struct headroom headroom_pair(const struct sweep *sw, int t, int w,
    int load);
/* Arithmetic mean of @strat's poll-hit share over the set's pairs. */
double headroom_poll_share(const struct sweep *sw, bool heldout, int load,
    int strat);
/* @strat's host-task p99 over stock's, the standard runs. */
double headroom_host_p99_ratio(const struct sweep *sw, bool heldout,
    int load, int strat);
/* @strat's p99 over stock's, latency-profile VMs only (FAM_MIX runs). */
double headroom_latency_vm_ratio(const struct sweep *sw, bool heldout,
    int load, int strat);

/* curves.c: gain against SMT yield and migration cost, break-even */
int curves_write(const struct sweep *sw) VP_MUST_CHECK;
/* Where curve @g over @x first reaches 1.0, interpolated; x[0] - 1 if it
 * starts there, x[n-1] + 1 if it never gets there. */
double curves_crossing(const double *x, const double *g, int n);
/* Break-even migration cost (us) of the held-out set, or a value out of
 * the curve's range (< first: lost already; > last: never lost). */
double curves_breakeven(const struct sweep *sw);

/* seeds.c: the comparison with seeds 000 and 003 */
int seeds_write(const struct sweep *sw) VP_MUST_CHECK;

#endif /* SIM_H */
