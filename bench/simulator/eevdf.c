/*
 * eevdf.c - the order of a stock runqueue: Linux 6.12's EEVDF
 * (kernel/sched/fair.c), under every strategy but scx, whose sched_ext
 * scheduler has its own local DSQ and slices.  host.c keeps each PU's
 * queue (the list of struct sim_pu, in the order the balance's
 * detach_tasks() walks) and calls here where 6.12 calls these functions:
 * enqueue_entity() when a thread arrives on a runqueue, dequeue_entity()
 * when it blocks or migrates, set_next_entity() when it starts,
 * pick_eevdf() for the next thread and for a wake-up's preemption,
 * update_curr() at the tick.
 *
 * What a thread carries (struct sim_thread): its vruntime, the virtual
 * deadline of its request, and, off every runqueue, its lag V - vruntime;
 * V is the mean vruntime of the runqueue's threads, the running one
 * included (avg_vruntime()), taken by a scan: the queues are short.
 *
 * Simplified, on purpose:
 *   - every thread weighs 1024 (nice 0: vCPUs, kworkers, vhost and QEMU
 *     threads all are), so calc_delta_fair() is the identity and the
 *     load terms of avg_vruntime() and place_entity() are thread counts;
 *   - the runqueue is flat: the cgroup hierarchy (each VM's threads in
 *     its machine.slice group, one entity on the CPU's runqueue) is not
 *     modelled;
 *   - DELAY_DEQUEUE (on in 6.12): a thread that blocks while not
 *     eligible stays on its runqueue until it is picked, eligible by
 *     then, and is dequeued with its lag clipped to 0 (DELAY_ZERO,
 *     finish_delayed_dequeue_entity()); an eligible one leaves with its
 *     lag, >= 0.  So a sleeper's lag is never negative; here it is 0 at
 *     once.  The stay itself is not modelled: such a thread does not
 *     weigh in V meanwhile, and a wake-up before it left (6.12
 *     ttwu_runnable() -> requeue_delayed_entity(), no select_task_rq())
 *     goes through the wake path like any other;
 *   - every slice is the base slice (no sched_attr custom slice), so
 *     PREEMPT_SHORT's do_preempt_short() never fires; its
 *     did_preempt_short() in update_curr() does: a running thread out
 *     of the request it was picked with and no longer eligible is
 *     rescheduled;
 *   - NEXT_BUDDY is off in 6.12 and nothing here yields: no buddies;
 *     HRTICK is off: a request's end is seen at the next tick or at the
 *     next update_curr() before it (an enqueue, a dequeue).
 */
#include "sim.h"

bool
eevdf_on(const struct sim *s)
{
	return s->p.eevdf && s->strat != STRAT_SCX;
}

/* entity_lag(): |lag| <= max(2 slices, TICK_NSEC), 6 ms at HZ 250. */
int64_t
eevdf_lag_limit(const struct sim *s)
{
	uint64_t l = 2 * s->p.slice_ns;

	return (int64_t)(l > s->p.jiffy_ns ? l : s->p.jiffy_ns);
}

/* The first tick at or after @t_ns: every CPU ticks at multiples of a
 * jiffy (sched_skew_tick=0). */
static uint64_t
tick_at(const struct sim *s, uint64_t t_ns)
{
	uint64_t j = s->p.jiffy_ns;

	return (t_ns + j - 1) / j * j;
}

/* cfs_rq->nr_running: the running thread (a halt-polling vCPU is one)
 * and the queued ones. */
static int
nr_running(const struct sim *s, int pu)
{
	return (s->pu[pu].cur >= 0) + s->pu[pu].nq;
}

/* cfs_rq->avg_vruntime: the sum of vruntime - zero_vruntime over the
 * runqueue, the running thread's as its last update_curr() left it. */
static int64_t
rq_sum(const struct sim *s, int pu)
{
	const struct sim_pu *p = &s->pu[pu];
	int64_t sum = 0;
	int i;

	if (p->cur >= 0)
		sum += s->th[p->cur].vruntime - p->zero_vruntime;
	for (i = p->head; i >= 0; i = s->th[i].next)
		sum += s->th[i].vruntime - p->zero_vruntime;
	return sum;
}

/* vruntime_eligible(): lag >= 0, that is V >= v, without the division
 * (@sum from rq_sum(), @n threads). */
static bool
eligible_in(const struct sim *s, int pu, int64_t sum, int n, int64_t v)
{
	return sum >= (v - s->pu[pu].zero_vruntime) * n;
}

/*
 * avg_vruntime(): V, floored (the kernel's left bias, so that a thread
 * placed at V is eligible); it becomes zero_vruntime, which an empty
 * runqueue keeps as its V for the next thread to come.
 */
static int64_t
avg_vruntime(struct sim *s, int pu)
{
	struct sim_pu *p = &s->pu[pu];
	int n = nr_running(s, pu);
	int64_t sum, d;

	if (!n)
		return p->zero_vruntime;
	sum = rq_sum(s, pu);
	d = sum / n;
	if (sum < 0 && d * n != sum)
		d--;
	p->zero_vruntime += d;
	return p->zero_vruntime;
}

/* Runs the running thread's vruntime on to @t_ns: one ns of vruntime
 * per ns on the CPU at weight 1024 (update_curr(): calc_delta_fair()). */
static void
advance(struct sim_pu *p, struct sim_thread *c, uint64_t t_ns)
{
	c->vruntime += (int64_t)(t_ns - p->exec_start_ns);
	p->exec_start_ns = t_ns;
}

/* update_deadline(): the request is used up, a new one from here.  The
 * deadline moved, so set_protect_slice()'s copy of it no longer matches:
 * RUN_TO_PARITY's protection ends. */
static void
update_deadline(struct sim *s, int pu, struct sim_thread *c)
{
	c->deadline = c->vruntime + (int64_t)s->p.slice_ns;
	c->protect = false;
	avg_vruntime(s, pu);
}

/*
 * The ticks since the last update_curr() that found the request used
 * up: each renewed it and would have rescheduled had another thread
 * been queued, but none was (a thread alone, or a halt-polling one:
 * host.c gives their ticks no event), so they only moved the deadline.
 * A request renewed at a tick ends tick_at(slice) later, at a tick too.
 */
static void
past_ticks(struct sim *s, int pu, struct sim_thread *c)
{
	struct sim_pu *p = &s->pu[pu];
	int64_t left = c->deadline - c->vruntime;
	uint64_t t1, step = tick_at(s, s->p.slice_ns);

	t1 = tick_at(s, p->exec_start_ns + (uint64_t)(left > 0 ? left : 0));
	if (t1 >= s->now_ns)
		return;
	if (!step)
		step = s->p.jiffy_ns;
	advance(p, c, t1 + (s->now_ns - 1 - t1) / step * step);
	update_deadline(s, pu, c);
}

bool
eevdf_update_curr(struct sim *s, int pu)
{
	struct sim_pu *p = &s->pu[pu];
	struct sim_thread *c;
	bool renewed = false;

	/* delta_exec <= 0: update_curr() returns at once */
	if (p->cur < 0 || s->now_ns <= p->exec_start_ns)
		return false;
	c = &s->th[p->cur];
	past_ticks(s, pu, c);
	advance(p, c, s->now_ns);
	if (c->vruntime >= c->deadline) {
		update_deadline(s, pu, c);
		renewed = true;
	}
	/* did_preempt_short(): out of its protected request and no longer
	 * eligible */
	return renewed || (!c->protect &&
	    !eligible_in(s, pu, rq_sum(s, pu), nr_running(s, pu),
	    c->vruntime));
}

/*
 * place_entity(): at V less its lag (PLACE_LAG), the lag first scaled
 * by (W + w) / W so that it survives the move of V as the thread joins,
 * (n + 1) / n for n threads of weight 1024 there; an empty runqueue
 * drops it (nr_running == 0).  A new request: a slice, half of one for
 * a new thread (PLACE_DEADLINE_INITIAL: ENQUEUE_INITIAL comes from
 * wake_up_new_task(), here a vCPU's first wake-up; host tasks are
 * older than the run), or the deadline it kept relative while it
 * migrated (PLACE_REL_DEADLINE).
 */
static void
place_entity(struct sim *s, int pu, int thi)
{
	struct sim_thread *th = &s->th[thi];
	int n = nr_running(s, pu);
	int64_t v = avg_vruntime(s, pu), lag = 0;
	int64_t vslice = (int64_t)s->p.slice_ns;

	if (n)
		lag = th->vlag * (n + 1) / n;
	th->vruntime = v - lag;
	if (th->rel_deadline) {
		th->deadline += th->vruntime;
		th->rel_deadline = false;
	} else {
		if (!th->placed && th->kind == TH_VCPU)
			vslice /= 2;
		th->deadline = th->vruntime + vslice;
	}
	th->placed = true;
}

bool
eevdf_enqueue(struct sim *s, int pu, int thi)
{
	bool resched = eevdf_update_curr(s, pu);

	place_entity(s, pu, thi);
	return resched;
}

/* update_entity_lag(): V - v, @thi still in V, clamped (entity_lag()). */
static int64_t
entity_lag(struct sim *s, int pu, int thi)
{
	int64_t lim = eevdf_lag_limit(s);
	int64_t lag = avg_vruntime(s, pu) - s->th[thi].vruntime;

	return lag < -lim ? -lim : lag > lim ? lim : lag;
}

bool
eevdf_dequeue(struct sim *s, int pu, int thi, bool sleep)
{
	struct sim_thread *th = &s->th[thi];
	bool resched = eevdf_update_curr(s, pu);

	th->vlag = entity_lag(s, pu, thi);
	if (sleep) {
		/* DELAY_DEQUEUE and DELAY_ZERO (see the top): a sleeper
		 * not eligible leaves with lag 0 */
		if (th->vlag < 0)
			th->vlag = 0;
		return resched;
	}
	/* PLACE_REL_DEADLINE: a migration keeps what is left of its
	 * request, relative, and its lag, negative or not */
	th->deadline -= th->vruntime;
	th->rel_deadline = true;
	return resched;
}

/* set_next_entity(): its time on the CPU counts from now, and
 * set_protect_slice() marks the request it was picked with. */
void
eevdf_set_next(struct sim *s, int pu, int thi)
{
	s->pu[pu].exec_start_ns = s->now_ns;
	s->th[thi].protect = true;
}

/*
 * pick_eevdf(): the earliest deadline among the eligible threads, the
 * running one included unless it is no longer eligible; the running
 * one outright while it is eligible and still in the request it was
 * picked with (RUN_TO_PARITY).  With one thread, that one.  Equal
 * deadlines go to the queued thread, the one queued first (the tree's
 * leftmost; the running thread only when strictly earlier:
 * entity_before()).
 */
int
eevdf_pick(const struct sim *s, int pu)
{
	const struct sim_pu *p = &s->pu[pu];
	int n = nr_running(s, pu), cur = p->cur, best = -1, i;
	int64_t sum;

	if (n <= 1)
		return cur >= 0 ? cur : p->head;
	sum = rq_sum(s, pu);
	if (cur >= 0 && !eligible_in(s, pu, sum, n, s->th[cur].vruntime))
		cur = -1;
	if (cur >= 0 && s->th[cur].protect)
		return cur;
	for (i = p->head; i >= 0; i = s->th[i].next)
		if (eligible_in(s, pu, sum, n, s->th[i].vruntime) &&
		    (best < 0 || s->th[i].deadline < s->th[best].deadline))
			best = i;
	if (best < 0 ||
	    (cur >= 0 && s->th[cur].deadline < s->th[best].deadline))
		best = cur;
	return best;
}

/* check_preempt_wakeup_fair(): the woken thread preempts when
 * pick_eevdf() now gives it (WAKEUP_PREEMPTION; do_preempt_short()
 * needs a shorter slice than the running thread's: never here). */
bool
eevdf_wakeup_preempt(const struct sim *s, int pu, int thi)
{
	return s->pu[pu].cur >= 0 && eevdf_pick(s, pu) == thi;
}

/*
 * When running @thi turns ineligible with the queue as it is: it gains
 * a ns of vruntime per ns, the queued threads none, so once
 * nq * v > the sum of theirs.  @thi's vruntime is at exec_start_ns.
 */
static uint64_t
ineligible_at(const struct sim *s, int pu, int thi)
{
	const struct sim_pu *p = &s->pu[pu];
	int64_t d = 0, v = s->th[thi].vruntime;
	int i;

	for (i = p->head; i >= 0; i = s->th[i].next)
		d += s->th[i].vruntime - v;
	if (d < 0)
		return p->exec_start_ns;
	return p->exec_start_ns + (uint64_t)(d / p->nq) + 1;
}

/*
 * The first tick at or after @thi's request runs out (update_deadline()
 * from entity_tick(): a reschedule when another thread waits), or,
 * once it is out of its protected request with another thread queued,
 * the first tick at which it is no longer eligible (did_preempt_short()).
 */
uint64_t
eevdf_slice_end(const struct sim *s, int pu, int thi)
{
	const struct sim_thread *c = &s->th[thi];
	int64_t left = c->deadline - c->vruntime;
	uint64_t t, u;

	t = tick_at(s, s->pu[pu].exec_start_ns +
	    (uint64_t)(left > 0 ? left : 0));
	if (!c->protect && s->pu[pu].nq) {
		u = tick_at(s, ineligible_at(s, pu, thi));
		if (u < t)
			t = u;
	}
	return t > s->now_ns ? t : tick_at(s, s->now_ns + 1);
}
