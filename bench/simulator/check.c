/*
 * check.c - the simulator's invariants, verified after every event when
 * --check is given (tests/sim runs it): one thread per PU at a time, a
 * thread in one place at a time and always inside its allowed set, the
 * busy set true to the PUs, EEVDF's requests and lags in their bounds,
 * and, at the end, work conserved.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

static void
fail(struct sim *s, const char *what, int a, int b)
{
	if (s->errors < 5)
		fprintf(stderr, "sim: invariant broken at %llu ns: %s (%d, %d)\n",
		    (unsigned long long)s->now_ns, what, a, b);
	s->errors++;
}

/* Each thread is seen at most once across all PUs (running + queued). */
static void
check_pu(struct sim *s, int pu, unsigned char *seen)
{
	const struct sim_pu *p = &s->pu[pu];
	int i, n = 0;

	if (p->cur >= 0) {
		const struct sim_thread *th = &s->th[p->cur];

		if ((th->state != TH_RUNNING && !th->polling) || th->pu != pu)
			fail(s, "PU runs a thread that is not running there",
			    pu, p->cur);
		if (seen[p->cur]++)
			fail(s, "thread on two PUs at once", pu, p->cur);
	}
	if ((p->cur >= 0) != cpuset_test(&s->running, pu))
		fail(s, "running set disagrees with PU", pu, p->cur);
	if ((p->cur >= 0 || p->nq || p->inflight || p->kicked) !=
	    cpuset_test(&s->busy, pu))
		fail(s, "busy set disagrees with PU", pu, p->nq);
	if (p->cur < 0 && p->nq)
		fail(s, "idle PU with a non-empty queue", pu, p->nq);
	for (i = p->head; i >= 0 && n <= s->nth; i = s->th[i].next, n++) {
		if (s->th[i].state != TH_QUEUED || s->th[i].pu != pu)
			fail(s, "queued thread not queued here", pu, i);
		if (seen[i]++)
			fail(s, "thread queued twice", pu, i);
	}
	if (n != p->nq)
		fail(s, "run queue length wrong", pu, n);
}

/*
 * EEVDF (eevdf.c): a thread on a runqueue is inside its request
 * (update_curr() renews it once used up, and a placement starts a new
 * one); one off every runqueue carries a lag within entity_lag()'s
 * bound, never negative after a sleep (DELAY_DEQUEUE), and no relative
 * deadline (only a migration has one, between two runqueues).
 */
static void
check_eevdf(struct sim *s, int i)
{
	const struct sim_thread *th = &s->th[i];
	bool on_rq = th->state == TH_RUNNING || th->state == TH_QUEUED ||
	    th->polling;

	if (!eevdf_on(s))
		return;
	if (on_rq && th->deadline <= th->vruntime)
		fail(s, "eevdf: runnable thread past its deadline", i, th->pu);
	if (!on_rq && (th->vlag < 0 || th->vlag > eevdf_lag_limit(s)))
		fail(s, "eevdf: sleeper's lag out of [0, limit]", i,
		    (int)(th->vlag / 1000));
	if (!on_rq && th->rel_deadline)
		fail(s, "eevdf: sleeper with a relative deadline", i, th->pu);
}

void
check_state(struct sim *s)
{
	unsigned char *seen = calloc(s->nth, 1);
	int pu, i, running = 0;

	if (!seen) {
		s->errors++;
		return;
	}
	for (pu = 0; pu < s->t->npus; pu++)
		check_pu(s, pu, seen);
	for (i = 0; i < s->nth; i++) {
		const struct sim_thread *th = &s->th[i];

		running += th->state == TH_RUNNING || th->polling;
		if (th->polling && (th->pu < 0 || s->pu[th->pu].cur != i))
			fail(s, "polling thread not on its PU", i, th->pu);
		if ((th->state == TH_RUNNING || th->state == TH_QUEUED) &&
		    !seen[i])
			fail(s, "runnable thread on no PU", i, th->pu);
		if (th->state != TH_SLEEP &&
		    !cpuset_test(&s->allowed[th->allowed], th->pu))
			fail(s, "thread outside its allowed set", i, th->pu);
		/* a per-CPU kthread (kthread_bind()) never leaves its PU */
		if (th->kind == TH_KTHREAD && th->state != TH_SLEEP &&
		    th->pu != th->bind_pu)
			fail(s, "kthread off its PU", i, th->pu);
		if (th->kind != TH_VCPU && th->polling)
			fail(s, "host task halt-polling", i, th->pu);
		if (th->work_ns < -1e-6 || th->over_ns < -1e-6)
			fail(s, "negative work", i, 0);
		check_eevdf(s, i);
	}
	if (!scx_check(s))
		fail(s, "scx shared queue broken", 0, 0);
	if (running != cpuset_count(&s->running))
		fail(s, "running threads != busy PUs", running,
		    cpuset_count(&s->running));
	free(seen);
}

void
check_end(struct sim *s)
{
	double left = 0;
	int i;

	for (i = 0; i < s->nth; i++)
		left += s->th[i].work_ns;
	/* every ns of work handed out is done or still owed */
	if (fabs(s->issued_ns - s->done_ns - left) > 1e-6 * s->issued_ns + 1)
		fail(s, "work not conserved", (int)(s->issued_ns / 1e6),
		    (int)((s->done_ns + left) / 1e6));
}
