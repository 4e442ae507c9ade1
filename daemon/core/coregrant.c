/*
 * coregrant.c - core grants (see coregrant.h): which busy vCPUs get a
 * whole core to themselves for the next tick.
 *
 * Why it could help on a stock kernel: a busy vCPU that shares its core
 * with another busy thread runs at the SMT yield, and one that waits in
 * a run queue loses the wait; a core of its own removes both for it,
 * while the stock wake path still places everything else.  Why it could
 * hurt: a granted core idles when its vCPU halts, and the others have
 * fewer PUs.  The budget below keeps enough PUs for the others' measured
 * demand, and a grant sticks to its core while the vCPU stays busy, so
 * that re-planning does not itself cause migrations.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/coregrant.h"

bool
coregrant_busy(const struct vp_grant_cfg *cfg, const struct vp_grant_stat *st)
{
	if (st->run_ns * 100 > (uint64_t)cfg->busy_pct * cfg->tick_ns)
		return true;
	return st->slices && st->wait_ns / st->slices > cfg->wait_ns;
}

/* Demand in PUs' worth: what it ran and what it wanted to run. */
static double
demand(const struct vp_grant_cfg *cfg, const struct vp_grant_stat *st)
{
	return (double)(st->run_ns + st->wait_ns) / (double)cfg->tick_ns;
}

/* Distance of core @c from @pu: 0 same core .. 4 elsewhere. */
static int
dist(const struct vp_topo *t, int c, int pu)
{
	const struct vp_pu *a = &t->pu[t->core[c].first_pu], *b;

	if (pu < 0)
		return 4;
	b = &t->pu[pu];
	if (a->core == b->core)
		return 0;
	if (a->cluster == b->cluster)
		return 1;
	if (a->llc == b->llc)
		return 2;
	return a->package == b->package ? 3 : 4;
}

struct grant_ctx {
	const struct vp_topo *t;
	const struct vp_cpuset *pool;
	struct vp_cpuset free;	/* union of the pools less granted cores */
	bool *taken;		/* [ncores] */
	double rest;		/* demand of the vCPUs without a grant */
};

/* May vCPU @i (demand @d) have core @c: free, inside its pool, and
 * leaving the others at least their demand in PUs? */
static bool
may_grant(const struct grant_ctx *g, int i, int c, double d)
{
	const struct vp_core *k = &g->t->core[c];
	int left;

	if (c < 0 || c >= g->t->ncores || g->taken[c] ||
	    cpuset_count_range(&g->pool[i], k->first_pu, k->npus) != k->npus)
		return false;
	left = cpuset_count(&g->free) - k->npus;
	return (double)left >= g->rest - d;
}

static void
grant(struct grant_ctx *g, int c, double d)
{
	const struct vp_core *k = &g->t->core[c];
	int pu;

	g->taken[c] = true;
	g->rest -= d;
	for (pu = k->first_pu; pu < k->first_pu + k->npus; pu++)
		cpuset_clear(&g->free, pu);
}

/* The free core of @i's pool nearest its last PU, or -1. */
static int
nearest(const struct grant_ctx *g, int i, int last_pu, double d)
{
	int c, best = -1, bd = 5, x;

	for (c = 0; c < g->t->ncores; c++) {
		if (!may_grant(g, i, c, d))
			continue;
		if ((x = dist(g->t, c, last_pu)) < bd) {
			best = c;
			bd = x;
		}
	}
	return best;
}

/* Busy vCPUs, most demanding first (ties: lower index). */
static int
busy_order(const struct vp_grant_cfg *cfg, const struct vp_grant_stat *st,
    int n, int *ord)
{
	int i, j, m = 0;

	for (i = 0; i < n; i++) {
		if (!coregrant_busy(cfg, &st[i]))
			continue;
		for (j = m; j > 0 && demand(cfg, &st[ord[j - 1]]) <
		    demand(cfg, &st[i]); j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
		m++;
	}
	return m;
}

int
coregrant_plan(const struct vp_topo *t, const struct vp_grant_cfg *cfg,
    const struct vp_grant_stat *st, const struct vp_cpuset *pool, int n,
    int *core, struct vp_cpuset *allowed)
{
	struct grant_ctx g = { .t = t, .pool = pool };
	int *ord, *prev, m, i, k, ngrants = 0;

	if (!t || !cfg || !cfg->tick_ns || n < 0 || (n && (!st || !pool ||
	    !core || !allowed)))
		return -EINVAL;
	ord = malloc((n + 1) * sizeof(*ord));
	prev = malloc((n + 1) * sizeof(*prev));
	g.taken = calloc(t->ncores, sizeof(*g.taken));
	if (!ord || !prev || !g.taken) {
		free(ord);
		free(prev);
		free(g.taken);
		return -ENOMEM;
	}
	cpuset_zero(&g.free);
	for (i = 0; i < n; i++) {
		cpuset_or(&g.free, &g.free, &pool[i]);
		g.rest += demand(cfg, &st[i]);
		prev[i] = core[i];
		core[i] = -1;
	}
	m = busy_order(cfg, st, n, ord);
	/* first the grants that stick: a re-plan should not move them */
	for (k = 0; k < m; k++) {
		i = ord[k];
		if (may_grant(&g, i, prev[i], demand(cfg, &st[i]))) {
			core[i] = prev[i];
			grant(&g, core[i], demand(cfg, &st[i]));
			ngrants++;
		}
	}
	for (k = 0; k < m; k++) {
		i = ord[k];
		if (core[i] >= 0)
			continue;
		core[i] = nearest(&g, i, st[i].last_pu, demand(cfg, &st[i]));
		if (core[i] >= 0) {
			grant(&g, core[i], demand(cfg, &st[i]));
			ngrants++;
		}
	}
	for (i = 0; i < n; i++) {
		if (core[i] >= 0) {
			cpuset_zero(&allowed[i]);
			cpuset_set_range(&allowed[i], t->core[core[i]].first_pu,
			    t->core[core[i]].npus);
			continue;
		}
		cpuset_and(&allowed[i], &pool[i], &g.free);
		if (cpuset_empty(&allowed[i]))
			allowed[i] = pool[i];
	}
	free(ord);
	free(prev);
	free(g.taken);
	return ngrants;
}
