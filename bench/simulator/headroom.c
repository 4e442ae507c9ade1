/*
 * headroom.c - how much room the bound leaves above stock, and how much
 * of it any strategy reached.
 *
 * bound.c's bound is a true upper bound, not a reachable figure: where
 * it sits far above every strategy (hackbench, where messages meet on
 * one vCPU and every hop pays a wake-up; the dense mix, whose demand it
 * does not know), bound / stock overstates what placement could gain.
 * The best throughput any strategy reached on the same seeds is a lower
 * bound of what is reachable.  So the true headroom over stock lies
 * between best / stock and bound / stock, and best / bound says how
 * tight the bound is at least: a bound with best / bound near 1 is
 * tight; at 0.5 at most half of it is reachable by anything we know.
 *
 * The latency-profile figure reads the FAM_MIX runs (points.c), where
 * VMs alternate between two profiles and each class reports its own
 * p99 (classes.c), so a policy's promise is checked on its own VMs.
 */
#include <math.h>

#include "sim.h"

/* The best mean throughput of any strategy at one pair. */
static double
best_thr(const struct sweep *sw, int t, int w, int load)
{
	double best = 0;
	int st;

	for (st = 0; st < STRAT_COUNT; st++) {
		struct agg a = results_find(sw, t, w, load, st, "");

		if (a.n && a.thr > best)
			best = a.thr;
	}
	return best;
}

struct headroom
headroom_pair(const struct sweep *sw, int t, int w, int load)
{
	struct agg b = results_find(sw, t, w, load, STRAT_STOCK, "");
	double best = best_thr(sw, t, w, load);
	struct headroom h = { 0 };

	if (!b.n || b.thr <= 0 || b.bound <= 0 || best <= 0)
		return h;
	h.n = 1;
	h.bound_stock = b.bound / b.thr;
	h.best_stock = best / b.thr;
	h.best_bound = best / b.bound;
	return h;
}

struct headroom
headroom_of(const struct sweep *sw, bool heldout, int load, int wl)
{
	struct results_pair p = RESULTS_PAIR_START;
	struct headroom h = { 0 };
	double lbs = 0, lbest = 0, lbb = 0;

	while (results_pair_next(sw, heldout, load, STRAT_STOCK, "", &p)) {
		struct headroom r;

		if (wl >= 0 && p.w != wl)
			continue;
		r = headroom_pair(sw, p.t, p.w, load);
		if (!r.n)
			continue;
		lbs += log(r.bound_stock);
		lbest += log(r.best_stock);
		lbb += log(r.best_bound);
		h.n++;
	}
	if (h.n) {
		h.bound_stock = exp(lbs / h.n);
		h.best_stock = exp(lbest / h.n);
		h.best_bound = exp(lbb / h.n);
	}
	return h;
}

/* Over the pairs where stock ran too, so that stock's and @strat's shares
 * are means over the same pairs. */
double
headroom_poll_share(const struct sweep *sw, bool heldout, int load,
    int strat)
{
	struct results_pair p = RESULTS_PAIR_START;
	double sum = 0;
	int n = 0;

	while (results_pair_next(sw, heldout, load, strat, "", &p)) {
		sum += p.a.poll_share;
		n++;
	}
	return n ? sum / n : 0;
}

/* Geometric mean of @strat's figure over stock's, one variant's runs;
 * @host: the host tasks' p99, else the latency-profile VMs'. */
static double
p99_ratio(const struct sweep *sw, bool heldout, int load, int strat,
    const char *variant, bool host)
{
	struct results_pair p = RESULTS_PAIR_START;
	double lsum = 0, x, y;
	int n = 0;

	while (results_pair_next(sw, heldout, load, strat, variant, &p)) {
		x = host ? p.a.host_p99 : p.a.lat_p99;
		y = host ? p.stock.host_p99 : p.stock.lat_p99;
		if (x <= 0 || y <= 0)
			continue;
		lsum += log(x / y);
		n++;
	}
	return n ? exp(lsum / n) : 0;
}

double
headroom_latency_vm_ratio(const struct sweep *sw, bool heldout, int load,
    int strat)
{
	return p99_ratio(sw, heldout, load, strat, "mix", false);
}

double
headroom_host_p99_ratio(const struct sweep *sw, bool heldout, int load,
    int strat)
{
	return p99_ratio(sw, heldout, load, strat, "", true);
}
