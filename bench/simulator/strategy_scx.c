/*
 * strategy_scx.c - the `scx` strategy: the daemon's plan (plan.c, through
 * strategy.c's replan()) fed to the sched_ext scheduler the way the daemon
 * feeds it (scx/scxfeed.c), and that scheduler's own wake decision:
 * decide() of daemon/scx/vcpuplace_wake.h, the header vcpuplace.bpf.c
 * compiles, here over the simulator's state.
 *
 * What the BPF program does besides select_cpu is modelled here too:
 *   - a wake-up that is not dispatched straight to a claimed idle PU goes
 *     to a queue (vp_enqueue(), queue_of()), ordered by vtime, a sleeper
 *     banking at most one slice of credit: the queue of its PU if it may
 *     run on that PU alone (VP_SCX_DSQ_CPU), else the queue of the LLC
 *     of the PU select_cpu chose (VP_SCX_DSQ_LLC); an idle PU of the
 *     task's allowed set is kicked to drain it, a whole idle core first;
 *   - a PU with nothing to run takes, at once (sched_ext has no newidle
 *     gate and no idle balance), the earliest thread of its two queues
 *     that it may run and that is not held for another PU (find_due());
 *     with none, from the one of its two queues whose head is earlier,
 *     the first thread it may run (vp_dispatch() -> take_own() ->
 *     scx_bpf_consume(); 6.12's consume_dispatch_q() walks a queue in
 *     vtime order and skips tasks that may not run there), then from the
 *     other; with both empty, from another LLC's queue, the nearest LLC
 *     id first (steal());
 *   - at the end of a slice a thread keeps its PU when its local DSQ is
 *     empty and no queue holds a thread that may run there, or no thread
 *     of that PU's two queues is due before it: not later by vtime, not
 *     held for another PU (VP_SCX_KEPT: vp_dispatch() moves nothing and
 *     renews prev's slice: take_due()), else it goes to its queue with
 *     its vtime, held for its PU (RESUME_PREV: the other
 *     PUs pass it over while their thread is less than
 *     VP_SCX_RESUME_LAG_NS ahead of it, held_elsewhere()), and the PU
 *     runs the one found due.  A queued latency-profile vCPU is due
 *     before a thread that is not one up to VP_SCX_LAT_LEAD_NS later
 *     by vtime (lat_leads());
 *   - a slice is set where a thread starts, and where a kept one is
 *     renewed (vp_running(), vp_dispatch()): VP_SLICE_MAX / (n + 1), at
 *     least VP_SLICE_MIN, n the threads waiting where the PU would take
 *     them first (its local queue, its own PU's and its LLC's queues, as
 *     scx_bpf_dsq_nr_queued() counts them: nr_waiting()); ops.tick, once
 *     a jiffy (scx_tick()), cuts a slice that has run past the one that
 *     fits the waiters now, a halt poll's window included.  A
 *     latency-profile vCPU's wake-up that finds nothing to claim
 *     preempts its PU unless a latency vCPU or a per-CPU kthread runs
 *     there (vp_enqueue()'s enqueue_urgent(): scx_urgent(), host.c's
 *     preempt(), one kick's time late); the preempted thread goes back to
 *     its queue (scx_preempted()).  A per-CPU kthread's wake-up preempts
 *     its PU whatever runs there, with a VP_SLICE_KTHREAD slice
 *     (scx_select_host()), as stock's EEVDF wakeup preemption is
 *     modelled (eevdf.c);
 *   - the per-CPU run records (vp_cpu_runs) are written at each start
 *     (vp_running()) and at each direct dispatch (note_claim()); a
 *     thread's average run and vtime at each stop (vp_stopping()).
 * sched_ext's idle masks are exact: a PU is idle iff host_idle(), its
 * SMT bit iff host_core_idle(); a claimed PU is busy at once (host.c
 * counts the wake-up in flight on it).
 *
 * Host tasks (hosttasks.c) are not managed vCPUs: scx_select_host(), at
 * the end of this file, is vp_select_cpu()'s unmanaged path, HOST_PACK
 * included; the shared queue, kicks and slices are the same for them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scx/scxfeed.h"
#include "costs.h"
#include "sim.h"

/*
 * SCX_SLICE_DFL of Linux 6.12 (include/linux/sched/ext.h): 20 ms.  Only
 * the credit a sleeper banks is counted in it now (vp_enqueue()).
 */
#define SCX_SLICE_NS	20000000ULL
/* VP_SLICE_MAX and VP_SLICE_MIN of vcpuplace.bpf.c (why: there). */
#define SCX_SLICE_MAX_NS	VP_SCX_SLICE_MAX_NS
#define SCX_SLICE_MIN_NS	VP_SCX_SLICE_MIN_NS

/* Per thread: what the BPF side keeps in vp_task_store and p->scx. */
struct scx_th {
	uint64_t vtime;		/* p->scx.dsq_vtime */
	uint64_t ran_at;	/* when its current run started */
	uint64_t avg_run_ns;	/* 1/4 new, 3/4 old (vp_stopping()) */
	bool open;		/* a run started and not yet stopped */
	bool queued;		/* the last decision sent it to the queue */
	bool join;		/* ... to the waker's PU's own (JOIN_WAKER) */
	bool latency;		/* a latency-profile vCPU (VP_SCX_F_LATENCY) */
	bool urgent;		/* ... whose queued wake-up preempts its PU */
	bool kthread_wake;	/* vp_task.kthread_wake: a per-CPU kthread
				 * woken preempting, with VP_SLICE_KTHREAD */
	int resume_on;		/* vp_task.resume_on: 1 + the dense PU whose
				 * slice end queued it, while it waits; 0:
				 * none (a wake-up, or running) */
};

struct scx_sim {
	struct vp_scx_pu pus[VP_SCX_MAX_CPUS];	/* vp_pus, by OS CPU */
	struct vp_scx_dom *doms;	/* vp_doms [ndoms] */
	unsigned int ndoms;
	struct vp_cpu_run *runs;	/* vp_cpu_runs, by dense PU */
	unsigned int *cursor;	/* distribute_cpu_mask_prev, per dense PU */
	struct scx_th *th;	/* [nth] */
	unsigned long run_reads;	/* vp_cpu_runs lines read, this wake */
	uint64_t scan_ns;	/* what the last select_cpu cost its waker */
	/*
	 * Every queued thread, in vtime order, each tagged with its queue
	 * (costs_dsq_llc() or costs_dsq_pu() ids): a queue's threads are
	 * the entries with its tag, in the same order.
	 */
	int *dsq;
	int ndsq;
	int *dsq_q;		/* per thread: the queue it waits in */
	uint64_t vtime_now;
	double *owed_ns;	/* per dense PU: its requeue's DSQ insert,
				 * paid by the next thread it consumes */
	bool *urgent_pu;	/* per dense PU: vp_cpu_urgent, a latency
				 * vCPU runs there (no preempting it) */
	struct scx_due {	/* per dense PU: what take_due() picked at */
		int thi;	/* its slice end, -1: nothing, and the */
		int walked;	/* threads it passed over to find it */
	} *due;
	/* whole run, printed at the end when $VP_SIM_SCX_STATS is set */
	unsigned long n_direct, n_queued, n_kick, n_consume, n_kept,
	    n_requeue, n_walked, n_queued_pu, n_stolen, n_poll_end,
	    n_stay_prev, n_cut, n_join, n_lat_preempt, n_poll_cut, n_held,
	    n_lat_first, n_kthread;
};

/* The wake decision's context: the simulator instead of a task. */
#define VPW_WAKE_CTX \
	struct sim *s; \
	int th; \
	int caller;	/* the PU running select_cpu (its cursor) */
#define vpw_feat(w, f)		((w)->s->scx_features & (f))
#define vpw_idle(w, cpu)	scx_idle((w)->s, cpu, false)
#define vpw_idle_core(w, cpu)	scx_idle((w)->s, cpu, true)
#define vpw_allowed(w, cpu)	scx_allowed((w)->s, (w)->th, cpu)
/* a claim in the simulator: the PU is idle; host_wake() makes it busy */
#define vpw_claim(w, cpu)	scx_idle((w)->s, cpu, false)
#define vpw_pu(w, cpu)		scx_pu((w)->s, cpu)
#define vpw_dom(w, id)		scx_dom((w)->s, id)
#define vpw_now(w)		((w)->s->now_ns)
#define vpw_cpu_run(w, cpu)	scx_run((w)->s, cpu)
#define vpw_slept_at(w)		((w)->s->th[(w)->th].sleep_t_ns)
#define vpw_pick_idle(w, core)	scx_pick_idle((w)->s, (w)->th, \
					(w)->caller, core)
#define vpw_any_allowed(w)	distribute((w)->s, (w)->th, (w)->caller, 0)
#define vpw_for(i, from, to)	for ((i) = (from); (i) < (to); (i)++)
#define vpw_claim_poll(w, cpu)	scx_polling((w)->s, cpu)
#define vpw_any_idle(w, core)	scx_any_idle((w)->s, (w)->th, core)
#define vpw_claim_stay(w, cpu)	scx_stay((w)->s, cpu)
#define vpw_avg_run(w)		((w)->s->scx->th[(w)->th].avg_run_ns)
#define vpw_waker_cpu(w)	scx_waker_cpu((w)->s, (w)->th)

static int
dense(const struct sim *s, __s32 cpu)
{
	if (cpu < 0 || (unsigned int)cpu >= s->t->os_limit)
		return VP_PU_NONE;
	return s->t->os_to_pu[cpu];
}

static bool
scx_idle(const struct sim *s, __s32 cpu, bool core)
{
	int pu = dense(s, cpu);

	if (pu == VP_PU_NONE)
		return false;
	return core ? host_core_idle(s, pu) : host_idle(s, pu);
}

/* @thi may run on one PU alone: p->nr_cpus_allowed == 1 (a pinned
 * thread, a per-CPU kthread). */
static bool
one_pu(const struct sim *s, int thi)
{
	return cpuset_count(&s->allowed[s->th[thi].allowed]) == 1;
}

static bool
scx_allowed(const struct sim *s, int thi, __s32 cpu)
{
	int pu = dense(s, cpu);

	return pu != VP_PU_NONE &&
	    cpuset_test(&s->allowed[s->th[thi].allowed], pu);
}

/*
 * Whether a PU of the thread's allowed set is idle (@core: its whole
 * core): one AND of two cpumasks on the BPF side, a probe.
 */
static bool
scx_any_idle(const struct sim *s, int thi, bool core)
{
	int pu;

	cpuset_for_each(pu, &s->allowed[s->th[thi].allowed], s->t->npus)
		if (core ? host_core_idle(s, pu) : host_idle(s, pu))
			return true;
	return false;
}

/* As the BPF array maps: any id below the bound has an entry. */
static const struct vp_scx_pu *
scx_pu(const struct sim *s, __s32 cpu)
{
	if (cpu < 0 || cpu >= VP_SCX_MAX_CPUS)
		return NULL;
	return &s->scx->pus[cpu];
}

/* Ids the daemon never wrote read as empty domains there: NULL here. */
static const struct vp_scx_dom *
scx_dom(const struct sim *s, __u32 id)
{
	return id < s->scx->ndoms ? &s->scx->doms[id] : NULL;
}

/*
 * The BPF side's poll record (fentry on kvm_vcpu_halt()): @cpu's thread
 * halt-polls.  Its claim: no wake-up is already on its way there (host.c
 * counts one in flight from select_cpu on), which is what the record's
 * compare-and-swap gives the BPF side.
 */
static bool
scx_polling(const struct sim *s, __s32 cpu)
{
	int pu = dense(s, cpu);

	if (pu == VP_PU_NONE || s->pu[pu].cur < 0)
		return false;
	return s->th[s->pu[pu].cur].polling && !s->pu[pu].inflight &&
	    !s->pu[pu].nq;
}

static int dsq_head(const struct scx_sim *x, int q);

/*
 * STAY_PREV's test of @cpu (the BPF side: its local DSQ and its own
 * queue are empty): a thread runs there and none waits to run next, on
 * its runqueue, on its way there, or in the PU's own queue.
 */
static bool
scx_stay(const struct sim *s, __s32 cpu)
{
	int pu = dense(s, cpu);

	if (pu == VP_PU_NONE || s->pu[pu].cur < 0)
		return false;
	return !s->th[s->pu[pu].cur].polling && !s->pu[pu].inflight &&
	    !s->pu[pu].nq && dsq_head(s->scx, costs_dsq_pu(s->t, pu)) < 0;
}

/*
 * waker_cpu_of() of vcpuplace.bpf.c: the PU of the vCPU of @thi's VM that
 * runs the wake-up (host.c: waker_pu, where the waker still runs), as an
 * OS CPU id; -1 when the wake-up came from a timer or a host task.
 */
static __s32
scx_waker_cpu(const struct sim *s, int thi)
{
	int pu = s->th[thi].waker_pu, cur;

	if (pu < 0)
		return -1;
	cur = s->pu[pu].cur;
	if (cur < 0 || cur == thi || th_is_host(s, cur) ||
	    s->th[cur].vm != s->th[thi].vm)
		return -1;
	return (__s32)s->t->pu[pu].os_index;
}

/* vp_cpu_runs: below, once vcpuplace_wake.h has defined the record */
static const struct vp_cpu_run *scx_run(const struct sim *s, __s32 cpu);

/*
 * cpumask_any_and_distribute() of 6.12 over the thread's allowed set and
 * the PUs that pass @what (0 any, 1 idle, 2 whole core idle): the first
 * after the calling CPU's last pick (distribute_cpu_mask_prev), wrapping.
 */
static __s32
distribute(struct sim *s, int thi, int caller, int what)
{
	const struct vp_topo *t = s->t;
	unsigned int *prev = &s->scx->cursor[caller], n = t->os_limit, k, os;
	int pu;

	for (k = 1; k <= n; k++) {
		os = (*prev + k) % n;
		pu = t->os_to_pu[os];
		if (pu == VP_PU_NONE ||
		    !cpuset_test(&s->allowed[s->th[thi].allowed], pu) ||
		    (what == 1 && !host_idle(s, pu)) ||
		    (what == 2 && !host_core_idle(s, pu)))
			continue;
		*prev = os;
		return (__s32)os;
	}
	return -1;
}

/*
 * scx_bpf_pick_idle_cpu() as 6.12's scx_pick_idle_cpu(): with SMT
 * active, a PU of a whole idle core first, and only that with
 * SCX_PICK_IDLE_CORE (@core); then any idle PU.  The PU returned is
 * claimed (host.c makes it busy).  An OS CPU id, or -1.
 */
static __s32
scx_pick_idle(struct sim *s, int thi, int caller, bool core)
{
	__s32 cpu;

	if (s->t->npus > s->t->ncores) {
		if ((cpu = distribute(s, thi, caller, 2)) >= 0 || core)
			return cpu;
	}
	return distribute(s, thi, caller, 1);
}

#include "scx/vcpuplace_wake.h"

/* Each record read is another CPU's line (it writes it at ops.running). */
static const struct vp_cpu_run *
scx_run(const struct sim *s, __s32 cpu)
{
	int pu = dense(s, cpu);

	if (pu == VP_PU_NONE)
		return NULL;
	s->scx->run_reads++;
	return &s->scx->runs[pu];
}

/* vp_stopping(): the run that ends at @end_ns, in vtime and average. */
/* @a is before @b, across the u64's wrap (vtime_before() of the program) */
static bool
vtime_before(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

static void
stopping(struct scx_th *x, uint64_t end_ns)
{
	uint64_t ran = end_ns > x->ran_at ? end_ns - x->ran_at : 0;

	if (!x->open)
		return;
	/* all threads have the default weight (100): vtime += runtime */
	x->vtime += ran;
	if (x->ran_at && end_ns > x->ran_at)
		x->avg_run_ns = (3 * x->avg_run_ns + ran) / 4;
	x->open = false;
}

/* nr_waiting() of vcpuplace.bpf.c: the threads waiting where @pu takes
 * them first (its local queue, its PU's and its LLC's queues). */
static uint64_t
nr_waiting(const struct sim *s, int pu)
{
	const struct scx_sim *x = s->scx;
	int cq = costs_dsq_pu(s->t, pu), lq = costs_dsq_llc(s->t->pu[pu].llc);
	uint64_t n = (uint64_t)s->pu[pu].nq;
	int i;

	for (i = 0; i < x->ndsq; i++)
		if (x->dsq_q[x->dsq[i]] == cq || x->dsq_q[x->dsq[i]] == lq)
			n++;
	return n;
}

/* slice_of() of vcpuplace.bpf.c: the slice that fits @n waiters. */
static uint64_t
slice_of(uint64_t n)
{
	uint64_t slice = SCX_SLICE_MAX_NS / (n + 1);

	return slice < SCX_SLICE_MIN_NS ? SCX_SLICE_MIN_NS : slice;
}

/* slice_for() of vcpuplace.bpf.c: the slice that fits @pu's waiters. */
static uint64_t
slice_for(const struct sim *s, int pu)
{
	return slice_of(nr_waiting(s, pu));
}

/*
 * vp_tick() of vcpuplace.bpf.c, from 6.12 task_tick_scx(): the slice of
 * the thread running on a PU ends once it has run the slice that fits
 * the waiters now (slice_for() counted them when it started), so that a
 * waiter that came mid-slice waits for the next tick, not for the whole
 * VP_SLICE_MAX.  A halt-polling vCPU is that PU's running task too (its
 * run goes on until it really sleeps: no ops.stopping in between), so
 * the tick cuts its window the same way: task_tick_scx() reschedules
 * once the slice is 0, and 6.12 kvm_vcpu_can_poll() then sees
 * need_resched(), so the vCPU stops polling and sleeps, and the PU takes
 * a waiter (host_cut_slice() ends the window: on_pu(), poll_stop()).
 * Stock has nothing to mirror: a vCPU polls there only while its
 * runqueue holds nothing else, and CFS's tick reschedules only for a
 * task of that runqueue.
 */
void
scx_tick(struct sim *s)
{
	struct scx_sim *x = s->scx;
	int pu;

	for (pu = 0; pu < s->t->npus; pu++) {
		int cur = s->pu[pu].cur;
		uint64_t n;

		/* nr_waiting() walks the queues: only where a task runs */
		if (cur < 0)
			continue;
		n = nr_waiting(s, pu);
		if (!n || s->now_ns - x->th[cur].ran_at < slice_of(n))
			continue;
		if (s->th[cur].polling)
			x->n_poll_cut++;
		else
			x->n_cut++;
		host_cut_slice(s, pu);
	}
}

void
scx_running(struct sim *s, int pu, int thi)
{
	struct scx_sim *x = s->scx;
	struct scx_th *t = &x->th[thi];

	if (vtime_before(x->vtime_now, t->vtime))
		x->vtime_now = t->vtime;
	t->ran_at = s->now_ns;
	t->open = true;
	t->resume_on = 0;
	/* vp_running(): what runs here now is urgent, or not: a latency
	 * vCPU, or a per-CPU kthread (in the program it woke preempting) */
	x->urgent_pu[pu] = th_is_host(s, thi) ? one_pu(s, thi) : t->latency;
	x->runs[pu].since = s->now_ns;
	x->runs[pu].expect_ns = t->avg_run_ns;
	/* vp_running(): a host task's record says host work (HOST_PACK) */
	x->runs[pu].vcpu = !th_is_host(s, thi);
	/* a per-CPU kthread woken by enqueue_urgent() keeps its short one */
	s->pu[pu].slice_end_ns = s->now_ns + (t->kthread_wake ?
	    VP_SCX_SLICE_KTHREAD_NS : slice_for(s, pu));
	t->kthread_wake = false;
}

/*
 * queue_of() of vp_enqueue(): the queue of @pu if the thread may run
 * there alone (a pinned thread, a per-CPU kthread), else the queue of
 * @pu's LLC.
 */
static int
queue_of(const struct sim *s, int thi, int pu)
{
	if (one_pu(s, thi) || s->scx->th[thi].join)
		return costs_dsq_pu(s->t, pu);
	return costs_dsq_llc(s->t->pu[pu].llc);
}

/* Into queue @q at its vtime, after every equal one. */
static void
dsq_insert(struct scx_sim *x, int thi, int q)
{
	uint64_t v = x->th[thi].vtime;
	int i = x->ndsq;

	/* a sleeper banks at most one slice of credit (vp_enqueue()) */
	if (vtime_before(v, x->vtime_now - SCX_SLICE_NS))
		v = x->th[thi].vtime = x->vtime_now - SCX_SLICE_NS;
	while (i > 0 && vtime_before(v, x->th[x->dsq[i - 1]].vtime))
		i--;
	memmove(&x->dsq[i + 1], &x->dsq[i], (x->ndsq - i) * sizeof(int));
	x->dsq[i] = thi;
	x->dsq_q[thi] = q;
	x->ndsq++;
}

/*
 * @thi, stopped on @pu with work left, back to the back of its vtime in
 * its queue: vp_enqueue() without SCX_ENQ_WAKEUP.  Its DSQ insert is paid
 * by the next thread @pu consumes.
 */
static void
requeue(struct sim *s, int pu, int thi)
{
	struct scx_sim *x = s->scx;
	int q = queue_of(s, thi, pu);

	s->th[thi].state = TH_WAKING;
	x->th[thi].resume_on = pu + 1;
	dsq_insert(x, thi, q);
	x->owed_ns[pu] += costs_dsq_op(s, q, pu, 0);
	x->n_requeue++;
}

int
scx_select(struct sim *s, int thi, int waker_pu, unsigned long *probes)
{
	struct scx_sim *x = s->scx;
	struct sim_thread *th = &s->th[thi];
	struct scx_th *t = &x->th[thi];
	const struct sim_vm *vm = &s->vm[th->vm];
	struct scxfeed_vcpu_in in = {
		.policy = &vm->policy, .nvcpus = vm->n,
		.home = th->home, .anchor = th->last_pu,
		.vm = th->vm, .vcpu = th->idx,
		.short_sleep_ns = SCXFEED_SHORT_SLEEP_NS,
	};
	struct vp_scx_vcpu e;
	struct wake w;
	enum vp_scx_vstat why;
	bool direct;
	__s32 cpu;
	int pu;

	/* it went to sleep at sleep_t_ns: that stop, now */
	stopping(t, th->sleep_t_ns);
	/* the daemon's vp_vcpus entry for it, from the plan in force */
	scxfeed_vcpu(s->t, &in, &e);
	memset(&w, 0, sizeof(w));
	w.s = s;
	w.th = thi;
	/* a timer fires where the thread slept */
	w.caller = waker_pu >= 0 ? waker_pu : th->last_pu >= 0 ?
	    th->last_pu : 0;
	w.v = &e;
	w.prev = th->last_pu >= 0 ? (__s32)s->t->pu[th->last_pu].os_index : -1;
	x->run_reads = 0;
	cpu = decide(&w, &why, &direct);
	*probes += w.probes;
	/*
	 * What the scan cost the waker.  Not a runqueue read per CPU looked
	 * at, as in the kernel's paths: the BPF program tests bits of
	 * sched_ext's two idle cpumasks (a remote line each, written at
	 * every idle entry and exit), spends a loop step per CPU, and reads
	 * the run record of each busy sibling it weighs (SOON_IDLE).
	 */
	x->scan_ns = 2 * s->p.probe_ns + w.probes * s->p.bpf_step_ns +
	    x->run_reads * s->p.probe_ns;
	pu = dense(s, cpu);
	if (pu == VP_PU_NONE) {
		/* the kernel would eject the scheduler */
		s->errors++;
		return cpuset_first(&s->allowed[th->allowed]);
	}
	t->queued = !direct;
	t->join = why == VP_SCX_V_JOIN_WAKER;
	/*
	 * vp_enqueue()'s enqueue_urgent(): a latency vCPU's wake-up that
	 * found nothing to claim goes to the head of its PU's local DSQ with
	 * SCX_ENQ_PREEMPT, unless a latency vCPU runs there too.
	 */
	t->latency = (e.flags & VP_SCX_F_LATENCY) != 0;
	t->urgent = !direct && t->latency && !x->urgent_pu[pu];
	if (t->join)
		x->n_join++;
	if (!direct)
		x->n_queued++;
	if (why == VP_SCX_V_POLL_END)
		x->n_poll_end++;
	if (why == VP_SCX_V_STAY_PREV)
		x->n_stay_prev++;
	if (direct)
		x->n_direct++;
	/*
	 * note_claim(): the run record says who is coming.  Not STAY_PREV's:
	 * it waits behind prev's task, whose record it stays.
	 */
	if (direct && why != VP_SCX_V_STAY_PREV) {
		x->runs[pu].since = s->now_ns;
		x->runs[pu].expect_ns = t->avg_run_ns;
		x->runs[pu].vcpu = true;
	}
	return pu;
}

bool
scx_urgent(struct sim *s, int thi)
{
	bool u = s->scx->th[thi].urgent;

	s->scx->th[thi].urgent = false;
	if (u) {
		s->scx->th[thi].queued = false;
		if (s->scx->th[thi].kthread_wake)
			s->scx->n_kthread++;
		else
			s->scx->n_lat_preempt++;
	}
	return u;
}

void
scx_preempted(struct sim *s, int pu, int thi)
{
	/* its run ends here (vp_stopping()); no kick (vp_enqueue()) */
	stopping(&s->scx->th[thi], s->now_ns);
	requeue(s, pu, thi);
}

uint64_t
scx_scan_ns(const struct sim *s)
{
	return s->scx->scan_ns;
}

bool
scx_queued(const struct sim *s, int thi)
{
	return s->scx->th[thi].queued;
}

int
scx_enqueue(struct sim *s, int thi)
{
	struct scx_sim *x = s->scx;
	struct sim_thread *th = &s->th[thi];
	int caller = th->waker_pu >= 0 ? th->waker_pu : th->pu;
	__s32 cpu;
	int q;

	x->th[thi].queued = false;
	x->th[thi].resume_on = 0;	/* a wake-up: any PU takes it */
	q = queue_of(s, thi, th->pu);
	dsq_insert(x, thi, q);
	if (q >= s->t->nllcs)
		x->n_queued_pu++;
	/* the waker's CPU runs ops.enqueue and takes the DSQ's lock */
	if (th->waker_pu >= 0)
		host_charge(s, th->waker_pu,
		    costs_dsq_op(s, q, th->waker_pu, 0));
	/* JOIN_WAKER, once: the waker's PU takes it, kicked only if idle
	 * (vp_enqueue()'s own-CPU kick) */
	if (x->th[thi].join) {
		x->th[thi].join = false;
		return host_idle(s, th->pu) ? th->pu : -1;
	}
	/* kick an idle PU of its allowed set, a whole idle core first */
	cpu = scx_pick_idle(s, thi, caller, true);
	if (cpu < 0)
		cpu = scx_pick_idle(s, thi, caller, false);
	if (cpu < 0)
		return -1;
	/* its own task_cpu is no remote kick: host.c sends none there (a
	 * per-CPU kthread's timer fires on its own PU, already awake) */
	if (dense(s, cpu) != th->pu)
		x->n_kick++;
	return dense(s, cpu);
}

/* The index in x->dsq of queue @q's first thread, or -1. */
static int
dsq_head(const struct scx_sim *x, int q)
{
	int i;

	for (i = 0; i < x->ndsq; i++)
		if (x->dsq_q[x->dsq[i]] == q)
			return i;
	return -1;
}

/*
 * scx_bpf_consume(@q) on @pu: under queue @q's lock, in vtime order,
 * each of its tasks that may not run here is skipped
 * (nldsq_for_each_task(), task_can_run_on_remote_rq(): its task_struct,
 * a line of another CPU's); a task of another CPU's runqueue is then
 * moved under both runqueue locks (consume_remote_task()): one more
 * remote line.  @probe_ns: what finding the queue cost before.
 */
static int
take_entry(struct sim *s, int pu, int i, int walked, double probe_ns)
{
	struct scx_sim *x = s->scx;
	int thi = x->dsq[i], q = x->dsq_q[thi];
	double ns;

	memmove(&x->dsq[i], &x->dsq[i + 1], (x->ndsq - i - 1) * sizeof(int));
	x->ndsq--;
	x->n_consume++;
	x->n_walked += walked;
	ns = costs_dsq_op(s, q, pu, (double)walked * s->p.probe_ns) +
	    x->owed_ns[pu];
	if (ns > 0 && s->th[thi].pu != pu)
		ns += s->p.probe_ns;
	if (ns > 0)
		ns += probe_ns;
	x->owed_ns[pu] = 0;
	s->th[thi].over_ns += ns;
	return thi;
}

static int
consume_from(struct sim *s, int pu, int q, double probe_ns)
{
	struct scx_sim *x = s->scx;
	int i, thi, walked = 0;

	for (i = 0; i < x->ndsq; i++) {
		thi = x->dsq[i];
		if (x->dsq_q[thi] != q)
			continue;
		if (!cpuset_test(&s->allowed[s->th[thi].allowed], pu)) {
			walked++;
			continue;
		}
		return take_entry(s, pu, i, walked, probe_ns);
	}
	/* the whole walk, for nothing: the lock was held all the same */
	x->n_walked += walked;
	(void)costs_dsq_op(s, q, pu, (double)walked * s->p.probe_ns);
	return -1;
}

/*
 * held_elsewhere() of vcpuplace.bpf.c: queued @thi waits to resume on
 * the PU whose slice end queued it, which is not @pu, and @pu's own
 * thread (@prev, of vtime @v) is not yet VP_SCX_RESUME_LAG_NS ahead of
 * it.  A PU about to idle (!@prev) leaves it too, in the first pass.
 */
static bool
held_elsewhere(const struct sim *s, int thi, int pu, bool prev, uint64_t v)
{
	const struct scx_sim *x = s->scx;
	int on = x->th[thi].resume_on;

	if (!(s->scx_features & VP_SCX_FEAT_RESUME_PREV) || !on ||
	    on == pu + 1)
		return false;
	return !prev || vtime_before(v, x->th[thi].vtime + VP_SCX_RESUME_LAG_NS);
}

/* What find_due() looks for at a slice end: prev runs on unless a thread
 * is due before it (vp_due_scan of vcpuplace.bpf.c). */
struct due_scan {
	bool prev;		/* a runnable prev whose slice ended */
	bool prev_latency;	/* ... a latency-profile vCPU */
	uint64_t v;		/* ... of this vtime */
};

/*
 * lat_leads() of vcpuplace.bpf.c: queued @thi, later by vtime than
 * prev, is due before it all the same if it is a latency-profile vCPU.
 * find_due() has already stopped at the first thread past
 * VP_SCX_LAT_LEAD_NS, or, with a latency prev, at the first one later
 * than prev.
 */
static bool
lat_leads(const struct sim *s, int thi)
{
	return s->scx->th[thi].latency;
}

/*
 * find_due() of vcpuplace.bpf.c: the x->dsq index of the first thread,
 * in vtime order, of @pu's two queues (its CPU's and its LLC's) that @pu
 * may run and that is not held_elsewhere(); with a prev, only one not
 * later than its vtime, or one lat_leads() puts first.  Each queue is
 * read for at most VP_SCX_RESUME_SCAN threads; *@walked: those passed
 * over, *@held: of them, those held elsewhere.  -1: none.
 */
static int
find_due(const struct sim *s, int pu, const struct due_scan *sc, int *walked,
    int *held)
{
	const struct scx_sim *x = s->scx;
	int cq = costs_dsq_pu(s->t, pu), lq = costs_dsq_llc(s->t->pu[pu].llc);
	int i, thi, q, seen_c = 0, seen_l = 0;
	bool prev = sc->prev;
	uint64_t v = sc->v;

	*walked = *held = 0;
	for (i = 0; i < x->ndsq; i++) {
		thi = x->dsq[i];
		q = x->dsq_q[thi];
		if (q != cq && q != lq)
			continue;
		if (++*(q == cq ? &seen_c : &seen_l) > VP_SCX_RESUME_SCAN)
			continue;
		/* each queue is in vtime order: past the latency lead, the
		 * rest are later still (a tie goes to the queue, as it did
		 * to its head) */
		if (prev && vtime_before(v + (sc->prev_latency ? 0 :
		    VP_SCX_LAT_LEAD_NS), x->th[thi].vtime))
			return -1;
		if (prev && vtime_before(v, x->th[thi].vtime) &&
		    !lat_leads(s, thi))
			continue;
		if (!cpuset_test(&s->allowed[s->th[thi].allowed], pu)) {
			++*walked;
			continue;
		}
		if (!held_elsewhere(s, thi, pu, prev, v))
			return i;
		++*walked;
		++*held;
	}
	return -1;
}

/* Whether @pu's CPU or LLC queue holds anything (head_vtime()). */
static bool
own_queued(const struct sim *s, int pu)
{
	const struct scx_sim *x = s->scx;

	return dsq_head(x, costs_dsq_pu(s->t, pu)) >= 0 ||
	    dsq_head(x, costs_dsq_llc(s->t->pu[pu].llc)) >= 0;
}

int
scx_consume(struct sim *s, int pu)
{
	struct scx_sim *x = s->scx;
	const struct vp_topo *t = s->t;
	int cq = costs_dsq_pu(t, pu), lq = costs_dsq_llc(t->pu[pu].llc);
	int ch, lh, first, second, thi, i, k, own = t->pu[pu].llc;
	int walked, held;
	struct scx_due due = x->due[pu];
	double probe = 0;

	x->due[pu].thi = -1;
	/* a PU claimed by a wake-up in flight waits for it */
	if (s->pu[pu].inflight)
		return -1;
	/* consume_dispatch_q() tests an empty queue without the lock */
	if (!x->ndsq)
		return -1;
	/* what find_due() picked at this PU's slice end (take_due()) */
	for (i = 0; due.thi >= 0 && i < x->ndsq; i++)
		if (x->dsq[i] == due.thi)
			return take_entry(s, pu, i, due.walked, 0);
	/* about to idle: what is not held for another PU, first */
	if ((i = find_due(s, pu, &(struct due_scan){ .prev = false },
	    &walked, &held)) >= 0)
		return take_entry(s, pu, i, walked, 0);
	/* take_own(): the queue with the earlier head first */
	ch = dsq_head(x, cq);
	lh = dsq_head(x, lq);
	first = ch >= 0 && (lh < 0 || ch < lh) ? cq : lq;
	second = first == cq ? lq : cq;
	if ((first == cq ? ch : lh) >= 0 &&
	    (thi = consume_from(s, pu, first, 0)) >= 0)
		return thi;
	if ((second == cq ? ch : lh) >= 0 &&
	    (thi = consume_from(s, pu, second, 0)) >= 0)
		return thi;
	/*
	 * steal(): the other LLCs' queues, the nearest id first; each one
	 * looked at is a read of its count (scx_bpf_dsq_nr_queued(): a
	 * line of that queue's), paid by the task it finds.
	 */
	for (i = 1; i < t->nllcs && i < VP_SCX_MAX_STEAL; i++) {
		k = (own + i) % t->nllcs;
		probe += s->p.probe_ns;
		if (dsq_head(x, costs_dsq_llc(k)) < 0)
			continue;
		if ((thi = consume_from(s, pu, costs_dsq_llc(k), probe)) >= 0) {
			x->n_stolen++;
			return thi;
		}
	}
	return -1;
}

bool
scx_rq_waiting(const struct sim *s, int pu)
{
	const struct scx_sim *x = s->scx;
	int i;

	for (i = 0; i < x->ndsq; i++)
		if (s->th[x->dsq[i]].pu == pu)
			return true;
	return false;
}

/* The shared queue holds a thread that may run on @pu (6.12's
 * consume_dispatch_q() skips the others). */
static bool
dsq_has_runnable(const struct sim *s, int pu)
{
	const struct scx_sim *x = s->scx;
	int i;

	for (i = 0; i < x->ndsq; i++)
		if (cpuset_test(&s->allowed[s->th[x->dsq[i]].allowed], pu))
			return true;
	return false;
}

/*
 * take_due() of vp_dispatch(), at @thi's slice end on @pu (its run
 * already charged: stopping()): whether it runs on (the program's
 * VP_DUE_PREV, or VP_DUE_NONE with nothing to steal).  With threads in
 * @pu's own two queues, it runs on unless find_due() finds one earlier
 * by vtime that is not held for another PU; that one is @pu's next
 * (x->due, for scx_consume()).  With none there, it runs on unless
 * another LLC's queue holds one @pu may run (steal()).
 */
static bool
take_due(struct sim *s, int pu, int thi)
{
	struct scx_sim *x = s->scx;
	struct due_scan sc = {
		.prev = true, .prev_latency = x->th[thi].latency,
		.v = x->th[thi].vtime,
	};
	int i, walked, held;

	if (!own_queued(s, pu))
		return !dsq_has_runnable(s, pu);
	i = find_due(s, pu, &sc, &walked, &held);
	if (i < 0) {
		/* an earlier thread waits, held for its own PU */
		if (held)
			x->n_held++;
		return true;
	}
	if (vtime_before(sc.v, x->th[x->dsq[i]].vtime))
		x->n_lat_first++;
	x->due[pu].thi = x->dsq[i];
	x->due[pu].walked = walked;
	return false;
}

enum scx_slice_fate
scx_slice_end(struct sim *s, int pu, int thi)
{
	struct scx_sim *x = s->scx;
	double ns;

	stopping(&x->th[thi], s->now_ns);
	/* a task in the local DSQ runs first (6.12 balance_one()) */
	if (!s->pu[pu].nq && take_due(s, pu, thi)) {
		/*
		 * VP_SCX_KEPT: nothing in its local DSQ (6.12 balance_one()
		 * would run that first), and nothing in the queues this PU
		 * may run or nothing earlier there by vtime, so vp_dispatch()
		 * moves nothing and gives prev a new slice.  It runs on,
		 * after the schedule() pass that ends where it began
		 * (params.c, scx_resched_ns).
		 */
		x->n_kept++;
		if (s->p.costs & COST_SCX) {
			ns = (double)s->p.scx_resched_ns;
			s->th[thi].over_ns += ns;
			if (s->measuring)
				s->st.resched_ns += ns;
		}
		scx_running(s, pu, thi);
		return SCX_SLICE_KEPT;
	}
	/* its own PU dispatches next, no kick */
	requeue(s, pu, thi);
	return SCX_SLICE_SHARED;
}

/* The daemon's table writer, pointed at our copies. */
static struct scx_sim *feed_target;

static int
feed_pu(struct scx_sched *sched, int cpu, const struct vp_scx_pu *pu)
{
	(void)sched;
	if (cpu < 0 || cpu >= VP_SCX_MAX_CPUS)
		return -ERANGE;
	feed_target->pus[cpu] = *pu;
	return 0;
}

static int
feed_dom(struct scx_sched *sched, unsigned int id,
    const struct vp_scx_dom *dom)
{
	(void)sched;
	if (id >= feed_target->ndoms)
		return -ERANGE;
	feed_target->doms[id] = *dom;
	return 0;
}

int
scx_setup(struct sim *s)
{
	static const struct scxfeed_writer w = { feed_pu, feed_dom };
	struct scx_sim *x = calloc(1, sizeof(*x));
	int r;

	if (!x)
		return -ENOMEM;
	s->scx = x;
	x->ndoms = scxfeed_ndoms(s->t);
	x->doms = calloc(x->ndoms ? x->ndoms : 1, sizeof(*x->doms));
	x->runs = calloc(s->t->npus, sizeof(*x->runs));
	x->cursor = calloc(s->t->npus, sizeof(*x->cursor));
	x->th = calloc(s->nth, sizeof(*x->th));
	x->dsq = calloc(s->nth, sizeof(*x->dsq));
	x->dsq_q = calloc(s->nth, sizeof(*x->dsq_q));
	x->owed_ns = calloc(s->t->npus, sizeof(*x->owed_ns));
	x->urgent_pu = calloc(s->t->npus, sizeof(*x->urgent_pu));
	x->due = malloc(s->t->npus * sizeof(*x->due));
	if (!x->doms || !x->runs || !x->cursor || !x->th || !x->dsq ||
	    !x->dsq_q || !x->owed_ns || !x->urgent_pu || !x->due)
		return -ENOMEM;
	for (r = 0; r < s->t->npus; r++)
		x->due[r].thi = -1;
	/* the daemon's own writer: every PU and every domain of every level */
	feed_target = x;
	r = scxfeed_topology(NULL, s->t, 0, &w);
	feed_target = NULL;
	if (r < 0)
		return r;
	/* the daemon's switches, as schedext.c maps the core's */
	s->scx_features = scxfeed_features(&s->feat);
	return 0;
}

void
scx_release(struct sim *s)
{
	struct scx_sim *x = s->scx;

	if (!x)
		return;
	/* for tests/sim/scx.sh: the queueing rules at work */
	if (getenv("VP_SIM_SCX_STATS"))
		fprintf(stderr, "scx: direct %lu queued %lu kick %lu consume "
		    "%lu kept %lu requeue %lu walked %lu queued_pu %lu "
		    "stolen %lu poll_end %lu stay_prev %lu cut %lu join %lu "
		    "lat_preempt %lu poll_cut %lu held %lu lat_first %lu "
		    "kthread %lu\n",
		    x->n_direct, x->n_queued, x->n_kick, x->n_consume,
		    x->n_kept, x->n_requeue, x->n_walked, x->n_queued_pu,
		    x->n_stolen, x->n_poll_end, x->n_stay_prev, x->n_cut,
		    x->n_join, x->n_lat_preempt, x->n_poll_cut, x->n_held,
		    x->n_lat_first, x->n_kthread);
	free(x->doms);
	free(x->runs);
	free(x->cursor);
	free(x->th);
	free(x->dsq);
	free(x->dsq_q);
	free(x->owed_ns);
	free(x->urgent_pu);
	free(x->due);
	free(x);
	s->scx = NULL;
}

/* The queues: waiting threads only, each once, in vtime order, a
 * thread of a PU's queue allowed on that PU. */
bool
scx_check(const struct sim *s)
{
	const struct scx_sim *x = s->scx;
	int i, j, thi;

	for (i = 0; x && i < x->ndsq; i++) {
		thi = x->dsq[i];
		if (s->th[thi].state != TH_WAKING)
			return false;
		for (j = 0; j < i; j++)
			if (x->dsq[j] == thi)
				return false;
		if (i && vtime_before(x->th[thi].vtime,
		    x->th[x->dsq[i - 1]].vtime))
			return false;
		if (x->dsq_q[thi] >= s->t->nllcs && !cpuset_test(
		    &s->allowed[s->th[thi].allowed], x->dsq_q[thi] -
		    s->t->nllcs))
			return false;
		/* a queued thread counts on its task_cpu's runqueue: no
		 * vCPU may halt-poll there (single_task_running()) */
		if (s->pu[s->th[thi].pu].cur >= 0 &&
		    s->th[s->pu[s->th[thi].pu].cur].polling)
			return false;
	}
	return true;
}

/*
 * Host tasks (hosttasks.c) are not in vp_vcpus, so vp_select_cpu() takes
 * its unmanaged path: select_host_pack() when HOST_PACK is on, else
 * sched_ext's own scx_bpf_select_cpu_dfl(); an idle PU found is claimed
 * and the task dispatched to its local DSQ (note_claim(cpu, p, false):
 * the run record says host work is coming), else it goes through
 * vp_enqueue() to the shared queue like any wake-up.  Modelled from the
 * BPF source, not compiled from it: the functions below follow
 * vcpuplace.bpf.c's host_work_beside() and select_host_pack(), and
 * 6.12's scx_select_cpu_dfl() (kernel/sched/ext.c).
 *
 * host_pack_move() acts when a host task's slice ends; the host tasks
 * modelled here run bursts of microseconds and never reach even the
 * shortest slice (VP_SLICE_MIN), so it has nothing to do and is not
 * modelled.
 */

/* host_work_beside(): a busy SMT sibling of @pu whose run record says
 * host work (vp_cpu_runs[sib].vcpu false). */
static bool
host_work_beside(const struct sim *s, int pu)
{
	const struct vp_core *c = &s->t->core[s->t->pu[pu].core];
	int sib;

	for (sib = c->first_pu; sib < c->first_pu + c->npus; sib++) {
		if (sib == pu || host_idle(s, sib))
			continue;
		s->scx->run_reads++;
		if (!s->scx->runs[sib].vcpu)
			return true;
	}
	return false;
}

static bool
host_pack_ok(const struct sim *s, int thi, int pu)
{
	return cpuset_test(&s->allowed[s->th[thi].allowed], pu) &&
	    host_idle(s, pu) && host_work_beside(s, pu);
}

/* select_host_pack(): prev, then up to 64 PUs of prev's LLC domain from
 * one that depends on the task (p->pid % n: here its thread index). */
#define SCX_HOST_PACK_PROBES	64

static int
host_pack(struct sim *s, int thi, int prev, unsigned long *probes)
{
	const struct vp_scx_pu *ppu;
	const struct vp_scx_dom *d;
	unsigned int i, n, k;
	int pu;

	if (!(s->scx_features & VP_SCX_FEAT_HOST_PACK) || prev < 0)
		return VP_PU_NONE;
	ppu = scx_pu(s, (__s32)s->t->pu[prev].os_index);
	if (!ppu || !ppu->valid || !(d = scx_dom(s, ppu->llc_dom)))
		return VP_PU_NONE;
	(*probes)++;
	if (host_pack_ok(s, thi, prev))
		return prev;
	n = d->ncpus;
	for (i = 0; i < SCX_HOST_PACK_PROBES && i < n; i++) {
		k = ((unsigned int)thi % n + i) % n;
		if (k >= VP_SCX_DOM_CPUS)
			break;
		(*probes)++;
		pu = dense(s, d->cpu[k]);
		if (pu != VP_PU_NONE && host_pack_ok(s, thi, pu))
			return pu;
	}
	return VP_PU_NONE;
}

static bool
idle_allowed(const struct sim *s, int thi, int pu, bool core)
{
	return pu >= 0 && cpuset_test(&s->allowed[s->th[thi].allowed], pu) &&
	    (core ? host_core_idle(s, pu) : host_idle(s, pu));
}

/*
 * 6.12 scx_select_cpu_dfl(): with SMT,
 * prev if its whole core is idle, then any whole idle core; then prev if
 * idle, then any idle PU; else prev, not claimed (queued).  Its WF_SYNC
 * branch is left out: a kthread's timer, an ioeventfd kick and a QEMU
 * timer are not synchronous wake-ups.
 */
static int
select_dfl(struct sim *s, int thi, int caller, bool *found)
{
	const struct sim_thread *th = &s->th[thi];
	int prev = th->last_pu;
	__s32 cpu;

	*found = true;
	if (s->t->npus > s->t->ncores) {
		if (idle_allowed(s, thi, prev, true))
			return prev;
		if ((cpu = distribute(s, thi, caller, 2)) >= 0)
			return dense(s, cpu);
	}
	if (idle_allowed(s, thi, prev, false))
		return prev;
	if ((cpu = distribute(s, thi, caller, 1)) >= 0)
		return dense(s, cpu);
	*found = false;
	return prev >= 0 && cpuset_test(&s->allowed[th->allowed], prev) ?
	    prev : cpuset_first(&s->allowed[th->allowed]);
}

int
scx_select_host(struct sim *s, int thi, int waker_pu, unsigned long *probes)
{
	struct scx_sim *x = s->scx;
	struct sim_thread *th = &s->th[thi];
	struct scx_th *t = &x->th[thi];
	int caller = waker_pu >= 0 ? waker_pu : th->last_pu >= 0 ?
	    th->last_pu : 0;
	unsigned long steps = 0;
	bool found;
	int pu;

	stopping(t, th->sleep_t_ns);
	x->run_reads = 0;
	/*
	 * 6.12 select_task_rq() (kernel/sched/core.c) calls the class's
	 * select_task_rq() only when p->nr_cpus_allowed > 1: a per-CPU
	 * kthread never reaches ops.select_cpu and costs its waker no scan.
	 * vp_enqueue()'s enqueue_urgent() puts its wake-up at the head of
	 * its PU's local DSQ with SCX_ENQ_PREEMPT and VP_SLICE_KTHREAD
	 * (6.12 dispatch_enqueue(): the running task's slice is zeroed and
	 * resched_curr() called; on_enqueue(): scx_urgent(), preempt()).
	 * Any other host task bound to one PU goes to that PU's own queue.
	 */
	if (one_pu(s, thi)) {
		x->scan_ns = 0;
		t->queued = true;
		t->urgent = t->kthread_wake = th->kind == TH_KTHREAD;
		if (!t->urgent)
			x->n_queued++;
		return cpuset_first(&s->allowed[th->allowed]);
	}
	pu = host_pack(s, thi, th->last_pu, &steps);
	found = pu != VP_PU_NONE;
	if (!found)
		pu = select_dfl(s, thi, caller, &found);
	*probes += steps;
	/* the idle masks' lines, a loop step per PU host_pack looked at,
	 * and each sibling's run record it read */
	x->scan_ns = 2 * s->p.probe_ns + steps * s->p.bpf_step_ns +
	    x->run_reads * s->p.probe_ns;
	t->queued = !found;
	if (found) {
		x->n_direct++;
		x->runs[pu].since = s->now_ns;
		x->runs[pu].expect_ns = t->avg_run_ns;
		x->runs[pu].vcpu = false;
	} else {
		x->n_queued++;
	}
	return pu;
}
