/*
 * bound.c - a true upper bound on a run's throughput (useful work per
 * simulated second, in cores), computed before the run from the host,
 * the workload's definition and the threads' seeded streams, never from
 * what a strategy did.  No strategy can exceed it; tests/sim checks
 * that none does.
 *
 * The bound is the smaller of two:
 *
 *   concurrency x capacity  At any instant at most N threads can be
 *       doing useful work (N: the messages in flight for hackbench and
 *       tbench, each a chain that runs one burst at a time; the threads
 *       for the others).  Useful work accrues at the speed of the
 *       thread doing it, and host_speed_with() gives the speed of each
 *       of k threads on one core.  Adding the j-th running thread to a
 *       core adds at most m(c, j) = j * speed(j) - (j - 1) * speed(j - 1)
 *       to that core's rate, so any placement of at most N threads runs
 *       at most the sum of the N largest positive m(c, j) over all cores
 *       and j up to the core's PUs.  That holds at every instant, hence
 *       for the time average.  With N at least the PUs it is the plain
 *       capacity: every core at its best SMT occupancy.
 *
 *   work issued (schbench)  A worker gets one burst per message, and the
 *       message vCPU's timer fires at least one period after its last
 *       burst ended, so by the end of the run it has sent at most
 *       ceil((end - t0) / period) messages, t0 being its first timer (a
 *       draw of its own phase stream).  The k-th burst of a thread is the
 *       k-th draw of its own burst stream whatever the strategy, so a
 *       thread can do no more useful work than its first K draws, nor
 *       more than the measured window at its best speed.
 *
 * Why the model's costs cannot break it: warm-up, scan, migration,
 * C-state exit and halt-polling costs are work or time spent before or
 * instead of useful work (struct sim_thread.over_ns is done first and
 * counted as overhead), so they only lower useful work; a turbo factor
 * never exceeds 1.0, so the speeds here, read on an idle host before the
 * run, are the highest any thread can reach.
 *
 * What it ignores, so where it is loose: the dense mix (one core per
 * vCPU, about three times its demand at low load; at 100 % and up the
 * capacity term binds), schbench's work issued during warm-up and done
 * in the window (about 300 / 240 of its demand), and hackbench's
 * messages that meet on one vCPU.
 */
#include <math.h>
#include <stdlib.h>

#include "sim.h"

static int
cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The sum of the @n largest marginal rates: see the comment above. */
static double
concurrency_capacity(const struct sim *s, int n)
{
	const struct vp_topo *t = s->t;
	double *m = malloc(t->npus * sizeof(*m)), sum = 0;
	int c, k, nm = 0, i;

	if (!m)
		return INFINITY;	/* no bound is still a true one */
	for (c = 0; c < t->ncores; c++) {
		int pu = t->core[c].first_pu;
		double prev = 0;

		for (k = 1; k <= t->core[c].npus; k++) {
			double r = k * host_speed_with(s, pu, k);

			m[nm++] = r - prev;
			prev = r;
		}
	}
	qsort(m, nm, sizeof(*m), cmp_desc);
	for (i = 0; i < nm && i < n && m[i] > 0; i++)
		sum += m[i];
	free(m);
	return sum;
}

/* The fastest any one thread can run: alone on the best core. */
static double
best_speed(const struct sim *s)
{
	double best = 0, v;
	int pu;

	for (pu = 0; pu < s->t->npus; pu++)
		if ((v = host_speed_with(s, pu, 1)) > best)
			best = v;
	return best;
}

/* Threads that can run useful work at once. */
static int
concurrency(const struct sim *s, const struct wl_def *d)
{
	int v, n = 0, tok;

	if (!d->tokens)
		return s->nvcpu;
	/* workload_start() starts a message on vCPUs 0, 2, ... of each VM;
	 * send() and next_pending() never make a new one */
	for (v = 0; v < s->nvm; v++) {
		tok = (s->vm[v].n + 1) / 2;
		n += tok < d->tokens ? tok : d->tokens;
	}
	return n;
}

/* The first @k draws of @thi's burst stream, replayed on a copy. */
static double
draws_ns(const struct sim *s, int thi, double mean_ns, uint64_t k)
{
	struct rng r = s->th[thi].rng[RNG_BURST];
	double sum = 0;

	while (k--)
		sum += (double)rng_exp_ns(&r, mean_ns);
	return sum;
}

/* schbench: useful work (ns) each thread can be given by the end. */
static double
schbench_work_ns(const struct sim *s, const struct wl_def *d)
{
	uint64_t end = s->p.warmup_ns + s->p.measure_ns, t0, k;
	double cap = (double)s->p.measure_ns * best_speed(s), sum = 0, w;
	int v, i;

	for (v = 0; v < s->nvm; v++) {
		int first = s->vm[v].first;
		struct rng r = s->th[first].rng[RNG_PHASE];

		/* workload_start(): vCPU 0's first timer, its first draw */
		t0 = rng_below(&r, d->period_ns);
		k = t0 < end ? (end - t0 + d->period_ns - 1) / d->period_ns : 0;
		for (i = 0; i < s->vm[v].n; i++) {
			w = draws_ns(s, first + i, d->burst_ns[i ? 1 : 0], k);
			sum += w < cap ? w : cap;
		}
	}
	return sum;
}

double
bound_compute(const struct sim *s)
{
	struct wl_def d;
	double b, w;

	workload_def(s->wl, &d);
	b = concurrency_capacity(s, concurrency(s, &d));
	if (s->wl == WL_SCHBENCH && d.period_ns) {
		w = schbench_work_ns(s, &d) / (double)s->p.measure_ns;
		if (w < b)
			b = w;
	}
	return b;
}
