/*
 * host.c - the simulated host: PUs with run queues and time slices,
 * SMT yield, cache warm-up on migration, scan time charged to the
 * waker, and the kernel's idle balance (newidle and periodic).
 *
 * A PU runs one thread at a time (struct sim_pu.cur); the others wait
 * in its run queue, in arrival order.  Under the stock kernel the next
 * thread, a slice's end and a wake-up's preemption follow 6.12's EEVDF
 * (eevdf.c); with that model off (--model-eevdf 0), and under sched_ext,
 * the queue is a FIFO and a slice ends at its set length (sched_ext's
 * own: strategy_scx.c).  Time advances only through events; a running
 * thread's progress is "settled" (work done = time * speed) whenever
 * anything that changes its speed happens, so speeds are piecewise
 * constant and the arithmetic is exact up to float rounding.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "costs.h"

int
host_distance(const struct vp_topo *t, int a, int b)
{
	if (a < 0 || b < 0 || t->pu[a].core == t->pu[b].core)
		return 0;
	if (t->pu[a].cluster == t->pu[b].cluster)
		return 1;
	if (t->pu[a].llc == t->pu[b].llc)
		return 2;
	if (t->pu[a].package == t->pu[b].package)
		return 3;
	return 4;
}

double
host_refetch_ns(const struct sim *s, double lines, int d)
{
	if (d <= 0)
		return 0;
	return s->p.warm_scale * lines * s->p.line_ns[d - 1] / s->p.mlp;
}

bool
host_core_idle(const struct sim *s, int pu)
{
	const struct vp_core *c = &s->t->core[s->t->pu[pu].core];

	return !cpuset_intersects_range(&s->busy, c->first_pu, c->npus);
}

int
host_nr(const struct sim *s, int pu)
{
	return (s->pu[pu].cur >= 0) + s->pu[pu].nq + s->pu[pu].inflight;
}

/*
 * Speed of a thread on @pu: its core's priority (hybrid hosts), shared
 * with k - 1 busy siblings.  Two busy siblings run at smt_yield each;
 * each further sibling adds the same gain (SMT4/8 cores).
 */
double
host_speed_with(const struct sim *s, int pu, double k)
{
	double base = s->t->pu[pu].prio / 1024.0, gain;

	if (k <= 1)
		return base;
	gain = 2 * s->p.smt_yield - 1;
	return base * (1 + (k - 1) * gain) / k;
}

static double
pu_speed(const struct sim *s, int pu)
{
	const struct vp_core *c = &s->t->core[s->t->pu[pu].core];
	double k = 0;
	int sb;

	/* a halt-polling sibling spins on PAUSE: it takes less of the core
	 * than a thread at work (params.c, poll_smt_weight) */
	for (sb = c->first_pu; sb < c->first_pu + c->npus; sb++)
		if (s->pu[sb].cur >= 0)
			k += s->th[s->pu[sb].cur].polling ?
			    s->p.poll_smt_weight : 1;
	return host_speed_with(s, pu, k) *
	    s->pkg_speed[s->t->pu[pu].package];
}

/* Accounts @pu's running thread's progress up to now. */
/* A host task's progress: its own figures, never the VMs' useful work. */
static void
settle_host(struct sim *s, int pu, struct sim_thread *th)
{
	struct sim_pu *p = &s->pu[pu];
	double prog = (double)(s->now_ns - p->settled_ns) * p->speed, o;

	if (s->measuring)
		s->host_run_ns += (double)(s->now_ns - p->settled_ns);
	p->settled_ns = s->now_ns;
	o = prog < th->over_ns ? prog : th->over_ns;
	th->over_ns -= o;
	prog -= o;
	if (prog > th->work_ns)
		prog = th->work_ns;
	th->work_ns -= prog;
	s->done_ns += prog;
	if (s->measuring) {
		s->host_st.overhead_ns += o;
		s->host_st.useful_ns += prog;
	}
}

static void
settle(struct sim *s, int pu)
{
	struct sim_pu *p = &s->pu[pu];
	struct sim_thread *th;
	double prog, o;

	if (p->cur < 0 || s->now_ns <= p->settled_ns) {
		p->settled_ns = s->now_ns;
		return;
	}
	th = &s->th[p->cur];
	if (th->kind != TH_VCPU) {
		settle_host(s, pu, th);
		return;
	}
	if (th->polling) {
		/* a halt-poll spin does no work: counted apart */
		if (s->measuring)
			s->st.poll_ns += (double)(s->now_ns - p->settled_ns);
		p->settled_ns = s->now_ns;
		return;
	}
	prog = (double)(s->now_ns - p->settled_ns) * p->speed;
	p->settled_ns = s->now_ns;
	o = prog < th->over_ns ? prog : th->over_ns;
	th->over_ns -= o;
	prog -= o;
	if (s->measuring)
		s->st.overhead_ns += o;
	if (prog > th->work_ns)
		prog = th->work_ns;
	th->work_ns -= prog;
	s->done_ns += prog;
	if (s->measuring) {
		struct sim_stats *cs = classes_stats(s, p->cur);

		s->st.useful_ns += prog;
		if (cs)
			cs->useful_ns += prog;
	}
}

static void
push(struct sim *s, uint64_t t, enum ev_type type, int arg, uint32_t gen)
{
	if (evq_push(&s->q, t, type, arg, gen) < 0)
		s->errors++;	/* out of memory: host_run reports it */
}

/* Schedules @pu's next burst end or slice end. */
static void
resched(struct sim *s, int pu)
{
	struct sim_pu *p = &s->pu[pu];
	const struct sim_thread *th;
	double left;
	uint64_t t;

	p->gen++;
	if (p->cur < 0)
		return;
	th = &s->th[p->cur];
	left = (th->over_ns + th->work_ns) / p->speed;
	t = s->now_ns + (uint64_t)ceil(left);
	/* a polling vCPU's window ends at slice_end_ns */
	if (t > p->slice_end_ns || th->polling)
		t = p->slice_end_ns;
	push(s, t, EV_PU, pu, p->gen);
}

void
host_cut_slice(struct sim *s, int pu)
{
	struct sim_pu *p = &s->pu[pu];

	if (p->cur < 0 || p->slice_end_ns <= s->now_ns)
		return;
	settle(s, pu);
	p->slice_end_ns = s->now_ns;
	resched(s, pu);
}

/*
 * Turbo: @pu's package gained (+1) or lost (-1) an active core.  Only
 * when that moves its frequency bin (costs_turbo()) are its running
 * PUs settled and re-sped; @pu's own core is left to the caller.
 */
static void
turbo_update(struct sim *s, int pu, int delta)
{
	int pkg = s->t->pu[pu].package, core = s->t->pu[pu].core, i, end;
	double f;

	s->pkg_active[pkg] += delta;
	f = costs_turbo(s, pkg, s->pkg_active[pkg]);
	if (f == s->pkg_speed[pkg])
		return;
	end = s->pkg_first[pkg] + s->pkg_npus[pkg];
	for (i = s->pkg_first[pkg]; i < end; i++)
		settle(s, i);
	s->pkg_speed[pkg] = f;
	for (i = s->pkg_first[pkg]; i < end; i++) {
		if (s->pu[i].cur < 0 || s->t->pu[i].core == core)
			continue;
		s->pu[i].speed = pu_speed(s, i);
		resched(s, i);
	}
}

/* @pu's thread started or stopped polling: its siblings' speeds move. */
static void
respeed_core(struct sim *s, int pu)
{
	const struct vp_core *c = &s->t->core[s->t->pu[pu].core];
	int sb;

	for (sb = c->first_pu; sb < c->first_pu + c->npus; sb++)
		settle(s, sb);
	for (sb = c->first_pu; sb < c->first_pu + c->npus; sb++) {
		if (s->pu[sb].cur < 0)
			continue;
		s->pu[sb].speed = pu_speed(s, sb);
		resched(s, sb);
	}
}

/* Puts @thi (or nobody, -1) on @pu and re-speeds its siblings. */
static void
set_running(struct sim *s, int pu, int thi)
{
	const struct vp_core *c = &s->t->core[s->t->pu[pu].core];
	struct sim_pu *p = &s->pu[pu];
	bool was = cpuset_intersects_range(&s->running, c->first_pu,
	    c->npus);
	int sb;

	for (sb = c->first_pu; sb < c->first_pu + c->npus; sb++)
		settle(s, sb);
	if (p->cur >= 0) {
		p->busy_ns += s->now_ns - p->busy_since_ns;
		/* schedstat: its time on the CPU ends */
		s->th[p->cur].ss_run_ns += s->now_ns - s->th[p->cur].ss_since_ns;
		s->th[p->cur].ss_since_ns = s->now_ns;
	}
	p->cur = thi;
	if (thi >= 0) {
		cpuset_set(&s->running, pu);
		p->busy_since_ns = s->now_ns;
	} else {
		cpuset_clear(&s->running, pu);
	}
	if (was != cpuset_intersects_range(&s->running, c->first_pu, c->npus))
		turbo_update(s, pu, was ? -1 : 1);
	for (sb = c->first_pu; sb < c->first_pu + c->npus; sb++) {
		if (s->pu[sb].cur < 0)
			continue;
		s->pu[sb].speed = pu_speed(s, sb);
		if (sb != pu)
			resched(s, sb);
	}
	resched(s, pu);
}

/* Keeps s->busy true to the PU's state; runs the idle-entry hooks. */
static void
update_busy(struct sim *s, int pu)
{
	struct sim_pu *p = &s->pu[pu];
	bool b = p->cur >= 0 || p->nq > 0 || p->inflight > 0 || p->kicked;
	int64_t d;

	if (b == cpuset_test(&s->busy, pu))
		return;
	if (b) {
		/* the kernel's update_avg(&rq->avg_idle, delta): 1/8 */
		d = (int64_t)(s->now_ns - p->idle_since_ns) -
		    (int64_t)p->avg_idle_ns;
		p->avg_idle_ns = (uint64_t)((int64_t)p->avg_idle_ns + d / 8);
		if (p->avg_idle_ns > 2 * s->p.migration_cost_ns)
			p->avg_idle_ns = 2 * s->p.migration_cost_ns;
		cpuset_set(&s->busy, pu);
		return;
	}
	cpuset_clear(&s->busy, pu);
	p->idle_since_ns = s->now_ns;
	costs_pu_idle(s, pu);	/* before has_idle_cores moves */
	stock_pu_idle(s, pu);
}

/* @thi starts running on idle @pu: warm-up, latency, migration. */
static void
start_run(struct sim *s, int pu, int thi)
{
	struct sim_thread *th = &s->th[thi];
	/* costs.c's migration is a vCPU's (its L1d/L2 state, the VMCS or
	 * its arch's equivalent, the TLB): host tasks do not pay it */
	double m = th->kind == TH_VCPU ?
	    costs_migration_ns(s, th->last_pu, pu) : 0;

	if (th->kind == TH_VCPU && th->last_pu >= 0 && th->last_pu != pu &&
	    s->measuring) {
		s->st.migrations++;
		s->st.migr_cost_ns += m;
	}
	th->over_ns += m;
	if (th->woken) {
		/* kvm_vcpu_halt() times the halt around kvm_vcpu_block(),
		 * which returns once the vCPU thread runs again: the halt
		 * that adapts the poll window ends here, wait included */
		if (th->kind == TH_VCPU)
			costs_halt_end(s, thi);
		if (th->kind != TH_VCPU && s->measuring) {
			stats_add_latency(&s->host_st, s->now_ns - th->wake_t_ns);
			s->host_wait_ns += (double)(s->now_ns - th->wake_t_ns);
		} else if (s->measuring) {
			struct sim_stats *cs = classes_stats(s, thi);

			stats_add_latency(&s->st, s->now_ns - th->wake_t_ns);
			if (cs)
				stats_add_latency(cs, s->now_ns - th->wake_t_ns);
			workload_woke(s, thi, s->now_ns - th->wake_t_ns);
		}
		th->over_ns += host_refetch_ns(s, s->p.msg_lines,
		    host_distance(s->t, th->waker_pu, pu));
		th->woken = false;
	}
	/* schedstat: the wait since its wake-up or preemption ends */
	th->ss_wait_ns += s->now_ns - th->ss_since_ns;
	th->ss_slices++;
	th->ss_since_ns = s->now_ns;
	th->last_pu = pu;
	th->pu = pu;
	th->state = TH_RUNNING;
	if (s->pu[pu].in_idle) {	/* put_prev_task_idle() */
		s->pu[pu].in_idle = false;
		stock_pu_run(s, pu);
	}
	if (eevdf_on(s)) {	/* set_next_entity() */
		eevdf_set_next(s, pu, thi);
		s->pu[pu].slice_end_ns = eevdf_slice_end(s, pu, thi);
	} else {
		s->pu[pu].slice_end_ns = s->now_ns + s->p.slice_ns;
	}
	if (s->strat == STRAT_SCX)	/* ops.running, sched_ext's slice */
		scx_running(s, pu, thi);
	set_running(s, pu, thi);
	update_busy(s, pu);
}

void
host_rq_link(struct sim *s, int pu, int thi)
{
	struct sim_pu *p = &s->pu[pu];

	s->th[thi].next = -1;
	s->th[thi].state = TH_QUEUED;
	s->th[thi].pu = pu;
	if (p->nq)
		s->th[p->tail].next = thi;
	else
		p->head = thi;
	p->tail = thi;
	p->nq++;
}

static void
rq_push(struct sim *s, int pu, int thi)
{
	host_rq_link(s, pu, thi);
	balance_queued(s, pu);
}

/* Unlinks queued @thi from @pu's run queue. */
static void
rq_remove(struct sim *s, int pu, int thi)
{
	struct sim_pu *p = &s->pu[pu];
	int prev = -1, i;

	for (i = p->head; i >= 0 && i != thi; i = s->th[i].next)
		prev = i;
	if (i < 0)
		return;
	if (prev < 0)
		p->head = s->th[i].next;
	else
		s->th[prev].next = s->th[i].next;
	if (p->tail == thi)
		p->tail = prev;
	p->nq--;
}

static void arrive(struct sim *s, int pu, int thi);
static void dispatch(struct sim *s, int pu);

/* EEVDF: @pu's running thread's slice end, after its queue changed
 * (settled first: resched() counts its work left from now). */
static void
rearm_slice(struct sim *s, int pu)
{
	settle(s, pu);
	s->pu[pu].slice_end_ns = eevdf_slice_end(s, pu, s->pu[pu].cur);
	resched(s, pu);
}

/*
 * resched_curr() on @pu under EEVDF, and the __schedule() it leads to:
 * pick_eevdf() over the running thread and the queue.  Picked again,
 * the running thread runs on (put_prev_set_next_task() does nothing for
 * next == prev, so set_next_entity() gives it no new protection); else
 * it goes back to the queue (put_prev_entity()) and the pick starts.
 * A thread in its burst end is rescheduled once it is done
 * (need_resched, on_pu()).
 */
static void
resched_curr(struct sim *s, int pu)
{
	struct sim_pu *p = &s->pu[pu];
	int cur = p->cur, next;

	if (p->ending) {
		p->need_resched = true;
		return;
	}
	next = eevdf_pick(s, pu);
	if (next == cur || next < 0) {
		rearm_slice(s, pu);
		return;
	}
	set_running(s, pu, -1);
	rq_push(s, pu, cur);
	rq_remove(s, pu, next);
	start_run(s, pu, next);
}

/*
 * EEVDF: a thread left busy @pu's queue (dequeue_entity(), whose
 * update_curr() asked for a reschedule when @resched): the running
 * thread is picked again or runs on to its new slice end.
 */
static void
queue_left(struct sim *s, int pu, bool resched)
{
	if (s->pu[pu].cur < 0)
		return;
	if (resched && s->pu[pu].nq)
		resched_curr(s, pu);
	else
		rearm_slice(s, pu);
}

void
host_pull(struct sim *s, int src, int thi, int dst, double cost_ns)
{
	/* detach_task(): dequeued as a migration, its lag and what is
	 * left of its request kept for the new runqueue */
	bool resched = eevdf_on(s) && eevdf_dequeue(s, src, thi, false);

	rq_remove(s, src, thi);
	update_busy(s, src);
	if (eevdf_on(s))
		queue_left(s, src, resched);
	s->th[thi].over_ns += cost_ns;
	arrive(s, dst, thi);
}

void
host_charge(struct sim *s, int pu, double ns)
{
	if (ns <= 0 || pu < 0 || s->pu[pu].cur < 0 ||
	    s->th[s->pu[pu].cur].polling)
		return;
	settle(s, pu);
	s->th[s->pu[pu].cur].over_ns += ns;
	resched(s, pu);
}

void
host_push_running(struct sim *s, int src, int dst, double cost_ns)
{
	int thi = s->pu[src].cur;

	/* the stopper preempts it and detaches it: a migration */
	if (eevdf_on(s))
		(void)eevdf_dequeue(s, src, thi, false);
	set_running(s, src, -1);
	s->th[thi].over_ns += cost_ns;
	arrive(s, dst, thi);
	dispatch(s, src);
}

/* @pu has nobody running: next from its queue, else go idle. */
static void
dispatch(struct sim *s, int pu)
{
	struct sim_pu *p = &s->pu[pu];
	int thi;

	if (p->nq) {	/* EEVDF: pick_eevdf(); else the FIFO's head */
		thi = eevdf_on(s) ? eevdf_pick(s, pu) : p->head;
		rq_remove(s, pu, thi);
		start_run(s, pu, thi);
		return;
	}
	/* sched_ext: the shared queue at once, no newidle balance */
	if (s->strat == STRAT_SCX && (thi = scx_consume(s, pu)) >= 0) {
		start_run(s, pu, thi);
		return;
	}
	/* the idle task runs, even with a wake-up in flight */
	p->in_idle = true;
	update_busy(s, pu);
	/* sched_ext switches the whole system: no CFS balance at all */
	if (s->strat == STRAT_SCX)
		return;
	balance_newidle(s, pu);
}

/*
 * Halt polling (6.12 kvm_vcpu_halt()): a halting vCPU keeps its PU and
 * spins for its window.  poll_start() begins it when nothing else waits
 * there (kvm_vcpu_can_poll(): single_task_running()); poll_stop() ends
 * it (window over, or another thread arrives: need_resched()) and the
 * vCPU really sleeps; poll_hit() is a wake-up inside the window: it
 * continues on the same PU without any wake-up path.
 */
static bool
poll_start(struct sim *s, int pu, int thi)
{
	struct sim_pu *p = &s->pu[pu];
	uint64_t w;

	/* KVM's halt polling is a vCPU's; a host task just sleeps */
	if (th_is_host(s, thi))
		return false;
	w = costs_poll_window(s, thi);
	if (!w || p->nq || p->inflight)
		return false;
	/* under sched_ext a thread waiting in the shared queue may count
	 * on this runqueue: then single_task_running() is false */
	if (s->strat == STRAT_SCX && scx_rq_waiting(s, pu))
		return false;
	p->slice_end_ns = s->now_ns + w;
	s->th[thi].polling = true;
	respeed_core(s, pu);
	return true;
}

static void
poll_stop(struct sim *s, int pu)
{
	settle(s, pu);
	s->th[s->pu[pu].cur].polling = false;
	/* it blocks only now: dequeue_entity(DEQUEUE_SLEEP) */
	if (eevdf_on(s))
		(void)eevdf_dequeue(s, pu, s->pu[pu].cur, true);
	set_running(s, pu, -1);
}

static void
poll_hit(struct sim *s, int thi, int waker_pu)
{
	struct sim_thread *th = &s->th[thi];
	int pu = th->pu;

	settle(s, pu);
	costs_halt_end(s, thi);
	th->polling = false;
	respeed_core(s, pu);
	th->state = TH_RUNNING;
	th->timer_gen++;
	th->over_ns += host_refetch_ns(s, s->p.msg_lines,
	    host_distance(s->t, waker_pu, pu));
	/* no wait at all: its own share, not a 0 in the latencies */
	if (s->measuring) {
		struct sim_stats *cs = classes_stats(s, thi);

		s->st.wakes++;
		s->st.poll_hits++;
		workload_woke(s, thi, 0);
		if (cs) {
			cs->wakes++;
			cs->poll_hits++;
		}
	}
	if (eevdf_on(s)) {	/* still on the CPU: its request runs on */
		(void)eevdf_update_curr(s, pu);
		s->pu[pu].slice_end_ns = eevdf_slice_end(s, pu, thi);
	} else {
		s->pu[pu].slice_end_ns = s->now_ns + s->p.slice_ns;
	}
	resched(s, pu);
}

/*
 * EEVDF: @thi was queued on @pu beside a running thread.  It takes the
 * PU when enqueue_entity()'s update_curr() asked for a reschedule
 * (@resched) or check_preempt_wakeup_fair() picks it (a balance's pull
 * too: attach_task() calls wakeup_preempt()); else the running thread's
 * slice end moves with the queue.
 */
static void
wakeup_preempt(struct sim *s, int pu, int thi, bool resched)
{
	if (resched || eevdf_wakeup_preempt(s, pu, thi))
		resched_curr(s, pu);
	else
		rearm_slice(s, pu);
}

/*
 * @thi arrives on @pu's runqueue: it runs at once on an idle PU, else it
 * queues, and under EEVDF may preempt the running thread.  A vCPU
 * halt-polling there stops (need_resched(), and single_task_running()
 * fails: 6.12 kvm_vcpu_can_poll()), and the PU then takes the next of
 * its queue.  This is where a remote wake-up's enqueue happens (the
 * wake list's IPI has landed: EV_ENQUEUE).
 */
static void
arrive(struct sim *s, int pu, int thi)
{
	bool resched = false;

	if (s->pu[pu].cur >= 0 && s->th[s->pu[pu].cur].polling)
		poll_stop(s, pu);
	if (eevdf_on(s))	/* enqueue_entity() */
		resched = eevdf_enqueue(s, pu, thi);
	if (s->pu[pu].cur < 0 && s->pu[pu].nq == 0) {
		start_run(s, pu, thi);
		return;
	}
	rq_push(s, pu, thi);
	if (s->pu[pu].cur < 0)
		dispatch(s, pu);
	else if (eevdf_on(s))
		wakeup_preempt(s, pu, thi, resched);
	update_busy(s, pu);
}

/*
 * sched_ext's kick of an idle PU picked for a queued thread (6.12
 * scx_bpf_kick_cpu(SCX_KICK_IDLE)): the pick took it out of the idle
 * masks (scx_pick_idle_cpu() clears its bit), and it looks at the
 * shared queue only once the kick has reached it (the irq_work, its
 * runqueue lock and resched_curr(): scx_kick_ns) and it has left its
 * C-state.  Meanwhile a PU that frees up may take the thread first.
 */
static void
kick(struct sim *s, int pu)
{
	uint64_t up;

	if (!(s->p.costs & COST_SCX)) {
		dispatch(s, pu);
		return;
	}
	up = s->p.scx_kick_ns + costs_wake_delay(s, pu);
	s->pu[pu].kicked = true;
	update_busy(s, pu);
	if (s->measuring)
		s->st.kick_ns += up;
	push(s, s->now_ns + up, EV_KICK, pu, 0);
}

/* The kick has landed: ops.dispatch, or idle again if it was taken. */
static void
on_kick(struct sim *s, int pu)
{
	struct sim_pu *p = &s->pu[pu];

	p->kicked = false;
	if (p->cur >= 0 || p->nq || p->inflight) {
		update_busy(s, pu);
		return;
	}
	dispatch(s, pu);
}

/*
 * sched_ext's SCX_ENQ_PREEMPT into @pu's local DSQ (6.12
 * dispatch_enqueue()): @thi goes to its head, and the task running there
 * loses the rest of its slice (slice = 0, resched_curr()) and goes back
 * through ops.enqueue to its queue by vtime.  A halt-polling vCPU there
 * just stops polling.
 */
static void
preempt_in(struct sim *s, int pu, int thi)
{
	int cur = s->pu[pu].cur;

	if (cur >= 0 && s->th[cur].polling) {
		poll_stop(s, pu);
		cur = -1;
	}
	if (cur >= 0) {
		settle(s, pu);
		set_running(s, pu, -1);
		scx_preempted(s, pu, cur);
	}
	start_run(s, pu, thi);
}

/*
 * The resched that preempts reaches @pu as a kick does (an IPI to a
 * remote PU, its runqueue lock, schedule(): scx_kick_ns); on the waker's
 * own PU it is a local resched_curr().
 */
static void
preempt(struct sim *s, int pu, int thi)
{
	const struct sim_thread *th = &s->th[thi];

	if (!(s->p.costs & COST_SCX) || th->waker_pu == pu) {
		preempt_in(s, pu, thi);
		return;
	}
	if (s->measuring)
		s->st.kick_ns += s->p.scx_kick_ns;
	push(s, s->now_ns + s->p.scx_kick_ns, EV_PREEMPT, thi, 0);
}

static void
on_enqueue(struct sim *s, int thi)
{
	struct sim_thread *th = &s->th[thi];
	int pu = th->pu;

	/* vp_enqueue()'s enqueue_urgent(): a latency vCPU preempts */
	if (s->strat == STRAT_SCX && scx_urgent(s, thi)) {
		preempt(s, pu, thi);
		return;
	}
	if (s->strat == STRAT_SCX && scx_queued(s, thi)) {
		int kicked;
		bool freed = false;

		/*
		 * It waits in the shared queue, yet counts on the runqueue of
		 * the CPU select_cpu returned (6.12 enqueue_task_scx():
		 * add_nr_running()), so a vCPU halt-polling there sees
		 * single_task_running() fail and stops (kvm_vcpu_can_poll()).
		 */
		if (s->pu[pu].cur >= 0 && s->th[s->pu[pu].cur].polling) {
			poll_stop(s, pu);
			freed = true;
		}
		/* the shared queue; an idle PU kicked drains it */
		kicked = scx_enqueue(s, thi);
		if (freed)
			dispatch(s, pu);
		if (kicked >= 0 && kicked != pu)
			kick(s, kicked);
		/* a per-CPU kthread's own idle PU: its timer fired there,
		 * so that PU is awake and its resched_curr() is local
		 * (6.12 kick_one_cpu() on this_rq): it dispatches now */
		else if (kicked == pu && !freed && th_is_host(s, thi) &&
		    s->pu[pu].cur < 0 && !s->pu[pu].nq && !s->pu[pu].inflight)
			dispatch(s, pu);
		return;
	}
	s->pu[pu].inflight--;
	arrive(s, pu, thi);
}

/* A wake-up that lands on a busy core while a whole core was idle. */
static bool
busy_sibling_wake(const struct sim *s, int thi, int pu)
{
	const struct vp_cpuset *a = &s->allowed[s->th[thi].allowed];
	const struct vp_core *c = &s->t->core[s->t->pu[pu].core];
	int i;

	if (c->npus < 2 ||
	    !cpuset_intersects_range(&s->running, c->first_pu, c->npus))
		return false;
	for (i = 0; i < s->t->ncores; i++) {
		c = &s->t->core[i];
		if (cpuset_intersects_range(a, c->first_pu, c->npus) &&
		    !cpuset_intersects_range(&s->busy, c->first_pu, c->npus))
			return true;
	}
	return false;
}

static void
count_wake(struct sim *s, int thi, int pu, unsigned long probes)
{
	const struct sim_thread *th = &s->th[thi];

	if (!s->measuring)
		return;
	if (th->kind != TH_VCPU) {	/* host tasks: their own figures */
		s->host_st.wakes++;
		s->host_st.probes += probes;
		return;
	}
	if (classes_stats(s, thi))
		classes_stats(s, thi)->wakes++;
	s->st.wakes++;
	s->st.probes += probes;
	if (busy_sibling_wake(s, thi, pu))
		s->st.busy_sibling++;
	if (th->last_pu < 0)
		return;
	if (s->t->pu[th->last_pu].cluster != s->t->pu[pu].cluster)
		s->st.cross_cluster++;
	if (s->t->pu[th->last_pu].llc != s->t->pu[pu].llc)
		s->st.cross_llc++;
}

void
host_wake(struct sim *s, int thi, int waker_pu)
{
	struct sim_thread *th = &s->th[thi];
	unsigned long probes = 0;
	uint64_t slept, delay, exit;
	int pu;

	if (th->state != TH_SLEEP) {
		s->errors++;
		return;
	}
	if (th->polling) {
		if (cpuset_test(&s->allowed[th->allowed], th->pu)) {
			poll_hit(s, thi, waker_pu);
			return;
		}
		poll_stop(s, th->pu);
		dispatch(s, th->pu);
	}
	slept = s->now_ns - th->sleep_t_ns;
	th->sleep_avg_ns = th->sleep_avg_ns ?
	    (7 * th->sleep_avg_ns + slept) / 8 : slept;
	th->woken = true;
	th->wake_t_ns = s->now_ns;
	th->ss_since_ns = s->now_ns;
	th->waker_pu = waker_pu;
	th->timer_gen++;		/* a pending timer is now moot */
	pu = th->kind == TH_VCPU ? s->select(s, thi, waker_pu, &probes) :
	    s->select_host(s, thi, waker_pu, &probes);
	count_wake(s, thi, pu, probes);
	/* the waker's CPU does the scan: it pays, and the wakee waits */
	delay = (s->strat == STRAT_SCX ? scx_scan_ns(s) :
	    probes * s->p.probe_ns) + costs_waker_upkeep(s, pu);
	/* an idle PU first leaves its C-state and idle upkeep */
	exit = host_idle(s, pu) ? costs_wake_delay(s, pu) : 0;
	host_charge(s, waker_pu, (double)delay);
	th->state = TH_WAKING;
	th->pu = pu;
	if (!(s->strat == STRAT_SCX && scx_queued(s, thi))) {
		s->pu[pu].inflight++;
		update_busy(s, pu);
	}
	if (delay + exit)
		push(s, s->now_ns + delay + exit, EV_ENQUEUE, thi, 0);
	else
		on_enqueue(s, thi);
}

void
host_timer(struct sim *s, int thi, uint64_t delay_ns)
{
	struct sim_thread *th = &s->th[thi];

	push(s, s->now_ns + delay_ns, EV_TIMER, thi, ++th->timer_gen);
}

void
host_burst(struct sim *s, int thi, uint64_t work_ns)
{
	s->th[thi].work_ns += (double)work_ns;
	s->issued_ns += (double)work_ns;
}

/*
 * EEVDF's tick at slice_end_ns (entity_tick() -> update_curr()): a
 * request used up, or an unprotected thread no longer eligible,
 * reschedules when another thread is queued; else the thread runs on
 * to its next such tick.
 */
static void
entity_tick(struct sim *s, int pu)
{
	if (eevdf_update_curr(s, pu) && s->pu[pu].nq)
		resched_curr(s, pu);
	else
		rearm_slice(s, pu);
}

/*
 * @thi, running on @pu, ended its burst: the workload says what next
 * (the wake-ups it sends meanwhile may ask to preempt it: need_resched,
 * dealt with by the caller).  False when it sleeps, and then the PU has
 * moved on.
 */
static bool
burst_end(struct sim *s, int pu, int thi)
{
	struct sim_pu *p = &s->pu[pu];
	struct sim_thread *th = &s->th[thi];
	bool more;

	th->work_ns = th->over_ns = 0;
	p->ending = true;
	more = workload_burst_end(s, thi);
	p->ending = false;
	if (more)
		return true;
	p->need_resched = false;	/* it leaves anyway */
	th->state = TH_SLEEP;
	th->sleep_t_ns = s->now_ns;
	if (poll_start(s, pu, thi))
		return false;
	if (eevdf_on(s))	/* dequeue_entity(DEQUEUE_SLEEP) */
		(void)eevdf_dequeue(s, pu, thi, true);
	set_running(s, pu, -1);
	dispatch(s, pu);
	return false;
}

/* The running thread of @pu finished its burst or its slice. */
static void
on_pu(struct sim *s, int pu)
{
	struct sim_pu *p = &s->pu[pu];
	int thi = p->cur;
	struct sim_thread *th = &s->th[thi];

	if (th->polling) {	/* the window ran out: really sleep */
		poll_stop(s, pu);
		dispatch(s, pu);
		return;
	}
	settle(s, pu);
	if (th->over_ns + th->work_ns <= 1e-6 && !burst_end(s, pu, thi))
		return;
	if (p->need_resched) {	/* a wake-up it sent preempts it */
		p->need_resched = false;
		resched_curr(s, pu);
		return;
	}
	if (s->now_ns < p->slice_end_ns) {
		resched(s, pu);
		return;
	}
	if (s->strat == STRAT_SCX) {
		switch (scx_slice_end(s, pu, thi)) {
		case SCX_SLICE_KEPT:	/* nobody waits */
			resched(s, pu);
			return;
		case SCX_SLICE_SHARED:	/* in the shared queue now */
			set_running(s, pu, -1);
			dispatch(s, pu);
			return;
		}
	}
	if (eevdf_on(s)) {
		entity_tick(s, pu);
		return;
	}
	if (!p->nq) {
		p->slice_end_ns = s->now_ns + s->p.slice_ns;
		resched(s, pu);
		return;
	}
	/* slice used up and someone waits: round robin */
	set_running(s, pu, -1);
	rq_push(s, pu, thi);
	dispatch(s, pu);
}

/* SIS_UTIL: PELT-like util per PU, then each LLC's nr_idle_scan. */
static void
on_util(struct sim *s)
{
	double y = pow(0.5, (double)s->p.util_period_ns /
	    s->p.util_halflife_ns);
	int pu, i;

	for (pu = 0; pu < s->t->npus; pu++) {
		struct sim_pu *p = &s->pu[pu];
		double frac;

		if (p->cur >= 0) {
			p->busy_ns += s->now_ns - p->busy_since_ns;
			p->busy_since_ns = s->now_ns;
		}
		frac = (double)p->busy_ns / (double)s->p.util_period_ns;
		p->util = p->util * y + (frac > 1 ? 1 : frac) * (1 - y);
		p->busy_ns = 0;
	}
	for (i = 0; i < s->t->nllcs; i++) {
		const struct vp_llc *l = &s->t->llc[i];
		double sum = 0;

		for (pu = l->first_pu; pu < l->first_pu + l->npus; pu++)
			sum += s->pu[pu].util * 1024;
		s->nr_idle_scan[i] = stock_nr_idle_scan(s->t, i, sum);
	}
	push(s, s->now_ns + s->p.util_period_ns, EV_UTIL, 0, 0);
}

static void
settle_all(struct sim *s)
{
	int pu;

	for (pu = 0; pu < s->t->npus; pu++)
		settle(s, pu);
}

static void
handle(struct sim *s, const struct event *e)
{
	switch (e->type) {
	case EV_PU:
		if (e->gen == s->pu[e->arg].gen && s->pu[e->arg].cur >= 0)
			on_pu(s, e->arg);
		break;
	case EV_TIMER:
		if (e->gen == s->th[e->arg].timer_gen &&
		    s->th[e->arg].state == TH_SLEEP)
			workload_timer(s, e->arg);
		break;
	case EV_ENQUEUE:
		on_enqueue(s, e->arg);
		break;
	case EV_KICK:
		on_kick(s, e->arg);
		break;
	case EV_PREEMPT:
		preempt_in(s, s->th[e->arg].pu, e->arg);
		break;
	case EV_UTIL:
		on_util(s);
		break;
	case EV_BALANCE:
		balance_event(s, e->arg);
		break;
	case EV_TICK:
		if (strategy_tick(s) < 0)
			s->errors++;
		push(s, s->now_ns + s->p.tick_ns, EV_TICK, 0, 0);
		break;
	}
}

int
host_init(struct sim *s)
{
	const struct vp_topo *t = s->t;
	int i, c, r;

	s->pu = calloc(t->npus, sizeof(*s->pu));
	s->has_idle_cores = calloc(t->nllcs, sizeof(*s->has_idle_cores));
	s->nr_idle_scan = calloc(t->nllcs, sizeof(*s->nr_idle_scan));
	if (!s->pu || !s->has_idle_cores || !s->nr_idle_scan)
		return -ENOMEM;
	if (evq_init(&s->q) < 0)
		return -ENOMEM;
	for (i = 0; i < t->npus; i++) {
		s->pu[i].cur = -1;
		s->pu[i].head = s->pu[i].tail = -1;
		s->pu[i].avg_idle_ns = 2 * s->p.migration_cost_ns;
		s->pu[i].in_idle = true;
	}
	cpuset_zero(&s->busy);
	cpuset_zero(&s->running);
	/* every PU starts idle: the kernel boots with all LLCs idle */
	for (i = 0; i < t->nllcs; i++) {
		s->has_idle_cores[i] = true;
		s->nr_idle_scan[i] = t->llc[i].npus;
	}
	sis_core_rebuild(s);
	/* the kernel has a cluster level when a cluster is wider than a
	 * core and narrower than its LLC (sched_cluster_active); turning
	 * CLUSTER_FIRST off models the kernel before seed 003 */
	for (c = 0; c < t->nclusters; c++)
		if (t->cluster[c].ncores > 1 &&
		    t->cluster[c].npus < t->llc[t->cluster[c].llc].npus)
			s->cluster_active = feat(&s->feat, CLUSTER_FIRST);
	if ((r = costs_init(s)) < 0)
		return r;
	return balance_init(s);
}

void
host_release(struct sim *s)
{
	evq_release(&s->q);
	costs_release(s);
	balance_release(s);
	free(s->pu);
	free(s->has_idle_cores);
	free(s->nr_idle_scan);
	s->pu = NULL;
	s->has_idle_cores = NULL;
	s->nr_idle_scan = NULL;
}

void
host_advance(struct sim *s, uint64_t until_ns)
{
	struct event e;

	while (evq_pop(&s->q, &e)) {
		if (e.t_ns >= until_ns) {
			push(s, e.t_ns, e.type, e.arg, e.gen);
			break;
		}
		s->now_ns = e.t_ns;
		handle(s, &e);
	}
	s->now_ns = until_ns;
}

int
host_run(struct sim *s)
{
	uint64_t end = s->p.warmup_ns + s->p.measure_ns;
	struct event e;

	push(s, s->p.util_period_ns, EV_UTIL, 0, 0);
	balance_start(s);
	push(s, s->p.tick_ns, EV_TICK, 0, 0);
	workload_start(s);
	while (evq_pop(&s->q, &e)) {
		if (!s->measuring && e.t_ns >= s->p.warmup_ns) {
			s->now_ns = s->p.warmup_ns;
			settle_all(s);
			s->measuring = true;
		}
		if (e.t_ns >= end)
			break;
		s->now_ns = e.t_ns;
		handle(s, &e);
		if (s->check)
			check_state(s);
		if (s->errors)
			return -EIO;
	}
	s->now_ns = end;
	settle_all(s);
	if (s->check)
		check_end(s);
	return s->errors ? -EIO : 0;
}
