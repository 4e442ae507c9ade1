/*
 * fork.c - where Linux 6.12 puts a new task: select_task_rq_fair() with
 * WF_FORK takes the slow path, sched_balance_find_dst_cpu(), from the
 * highest domain of the parent's CPU down (every level of balance.c has
 * SD_BALANCE_FORK: sd_init() sets it, and the only NUMA distances that
 * clear it are above node_reclaim_distance, which no shipped host has).
 *
 * At each level sched_balance_find_dst_group() (find_idlest_group())
 * compares the domain's groups (the child domain's spans, single CPUs
 * at the lowest level) by update_sg_wakeup_stats(): group type first
 * (has spare < fully busy < overloaded), then more idle CPUs and less
 * util among groups with spare capacity, less average load among busy
 * ones; the local group is kept unless another beats it by those rules.
 * sched_balance_find_dst_group_cpu() then takes an idle CPU of that group
 * (every idle CPU here is in the same state at VM start, so the first),
 * else the least loaded one, and the search goes on below it.
 *
 * Nothing here reads a CPU number: groups are topology objects, and
 * ties go to the first in the domain's group order, which starts at the
 * local group as the kernel's sd->groups does.  Loads are whole tasks:
 * a new task's load_avg and runnable start at its weight (1024,
 * init_entity_runnable_average()) and a booting vCPU runs, so each PU's
 * util is its task count times 1024, capped at its capacity (cpu_util()).
 */
#include <stdlib.h>

#include "sim.h"

/* enum group_type of 6.12, the three a fork can see on these hosts
 * (misfit only with SD_ASYM_CPUCAPACITY, where capacities differ; the
 * others are set by the load balance's statistics only) */
enum gtype { HAS_SPARE, FULLY_BUSY, OVERLOADED };

struct sgs {
	int idle, nr, weight;
	double load, util, runnable, cap, avg_load;
	enum gtype type;
};

/* imbalance_pct of sd_init(): 110 at the SMT level, 117 above it */
static unsigned int
imbalance_pct(const struct sim *s, int pu, int lev)
{
	int first, n;

	balance_span(s, pu, lev, &first, &n);
	return n == s->t->core[s->t->pu[pu].core].npus &&
	    s->t->max_smt > 1 && lev == 0 ? 110 : 117;
}

/* group_is_overloaded(), group_has_capacity(), group_classify() */
static enum gtype
classify(const struct sgs *g, unsigned int pct)
{
	if (g->nr > g->weight && (g->cap * 100 < g->util * pct ||
	    g->cap * pct < g->runnable * 100))
		return OVERLOADED;
	if (g->nr < g->weight)
		return HAS_SPARE;
	if (g->cap * pct < g->runnable * 100)
		return FULLY_BUSY;
	return g->cap * 100 > g->util * pct ? HAS_SPARE : FULLY_BUSY;
}

/* update_sg_wakeup_stats() of the group [first, first + n) */
static void
wakeup_stats(const struct sim *s, const int *nr, int first, int n,
    unsigned int pct, struct sgs *g)
{
	int i;

	*g = (struct sgs){ .weight = n };
	for (i = first; i < first + n; i++) {
		double cap = stock_capacity(s, i), u = 1024.0 * nr[i];

		g->load += u;
		g->runnable += u;
		g->util += u < cap ? u : cap;
		g->cap += cap;
		g->nr += nr[i];
		g->idle += !nr[i];
	}
	g->type = classify(g, pct);
	if (g->type != HAS_SPARE)
		g->avg_load = g->load * 1024 / g->cap;
}

/* update_pick_idlest(): does @g beat the idlest so far, @best? */
static bool
pick_idlest(const struct sgs *best, const struct sgs *g)
{
	if (g->type != best->type)
		return g->type < best->type;
	if (g->type != HAS_SPARE)
		return g->avg_load < best->avg_load;
	if (best->idle != g->idle)
		return g->idle > best->idle;
	return g->util < best->util;
}

/* The group of level @lev of @pu that holds @i: @i's child domain. */
static void
group_of(const struct sim *s, int pu, int lev, int i, int *first, int *n)
{
	int f, w;

	balance_span(s, pu, lev, &f, &w);
	balance_group(s, i, w, first, n);
}

/*
 * sched_balance_find_dst_group(): the idlest group of @pu's level @lev
 * into *gfirst, *gn, or false (stay in the local group).  @numa: the
 * level spans packages (SD_NUMA), whose spare-capacity case allows the
 * small imbalance of adjust_numa_imbalance().
 */
static bool
find_idlest_group(const struct sim *s, const int *nr, int pu, int lev,
    int *gfirst, int *gn)
{
	unsigned int pct = imbalance_pct(s, pu, lev);
	struct sgs local, g, best = { 0 };
	int first, n, lf, ln, i, f, k, done;
	bool found = false;

	balance_span(s, pu, lev, &first, &n);
	group_of(s, pu, lev, pu, &lf, &ln);
	wakeup_stats(s, nr, lf, ln, pct, &local);
	/* the other groups, in order from the one after the local group */
	for (done = ln, i = lf + ln; done < n; done += k, i = f + k) {
		if (i >= first + n)
			i = first;
		group_of(s, pu, lev, i, &f, &k);
		wakeup_stats(s, nr, f, k, pct, &g);
		if (!found || pick_idlest(&best, &g)) {
			best = g;
			*gfirst = f;
			*gn = k;
			found = true;
		}
	}
	if (!found || local.type < best.type)
		return false;
	if (local.type > best.type)
		return true;
	if (local.type != HAS_SPARE) {
		/* imbalance = NICE_0_LOAD * (imbalance_pct - 100) / 100 */
		double imb = 1024.0 * (pct - 100) / 100;

		if (best.avg_load >= local.avg_load + imb)
			return false;
		return 100 * local.avg_load > pct * best.avg_load;
	}
	if (n == s->t->npus && s->t->npackages > 1) {
		/* adjust_numa_imbalance(): stay while the local group
		 * would run at most imb_numa_nr tasks and the idle counts
		 * differ by at most NUMA_IMBALANCE_MIN (2).  imb_numa_nr
		 * (build_sched_domains()): the LLCs under the first level
		 * above the LLC, here the packages' LLCs, or every LLC when
		 * each package is one */
		int imb_nr = s->t->nllcs / s->t->npackages, d;

		if (imb_nr <= 1)
			imb_nr = s->t->nllcs;
		d = local.idle - best.idle;
		if (d < 0)
			d = -d;
		if (local.nr + 1 <= imb_nr && d <= 2)
			return false;
	}
	return local.idle < best.idle;
}

/* sched_balance_find_dst_group_cpu(): an idle CPU, else least loaded. */
static int
find_idlest_cpu(const int *nr, int first, int n)
{
	int i, best = first;

	for (i = first; i < first + n; i++) {
		if (!nr[i])
			return i;
		if (nr[i] < nr[best])
			best = i;
	}
	return best;
}

int
fork_select(const struct sim *s, const int *nr, int parent_pu)
{
	int cpu = parent_pu, lev, gf, gn, first, weight, l, c;

	lev = balance_nlevels(s, cpu) - 1;
	while (lev >= 0) {
		if (!find_idlest_group(s, nr, cpu, lev, &gf, &gn)) {
			lev--;
			continue;
		}
		c = find_idlest_cpu(nr, gf, gn);
		if (c == cpu) {
			lev--;
			continue;
		}
		/* on to the new CPU's domains below the span just done */
		balance_span(s, cpu, lev, &first, &weight);
		cpu = c;
		for (lev = -1, l = 0; l < balance_nlevels(s, cpu); l++) {
			balance_span(s, cpu, l, &first, &gn);
			if (gn >= weight)
				break;
			lev = l;
		}
	}
	return cpu;
}
