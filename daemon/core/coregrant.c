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

/* Waited longer per time it got a CPU than the threshold. */
static bool
waits_long(const struct vp_grant_cfg *cfg, const struct vp_grant_stat *st)
{
	return st->slices && st->wait_ns / st->slices > cfg->wait_ns;
}

/* Ran more than busy_pct of the tick. */
static bool
runs_long(const struct vp_grant_cfg *cfg, uint64_t run_ns)
{
	return run_ns * 100 > (uint64_t)cfg->busy_pct * cfg->tick_ns;
}

bool
coregrant_busy(const struct vp_grant_cfg *cfg, const struct vp_grant_stat *st)
{
	return runs_long(cfg, st->run_ns) || waits_long(cfg, st);
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
	struct vp_cpuset free;	/* union of the pools less granted cores */
	int *owner;		/* [ncores] the group granted it, or -1 */
	double rest;		/* demand of the vCPUs without a grant */
	/* per group, indexed by group id */
	struct vp_cpuset *gpool;	/* cores must lie inside it */
	double *dem;		/* demand, PUs' worth */
	int *want, *got, *size;
	int *lead_pu;		/* a member's last PU, or VP_PU_NONE */
	bool *busy;
};

/* May group @g have core @c: free, inside its pool, and leaving the
 * others at least their demand in PUs? */
static bool
may_grant(const struct grant_ctx *g, int grp, int c)
{
	const struct vp_core *k = &g->t->core[c];
	double rest = g->rest - (g->got[grp] ? 0 : g->dem[grp]);
	int left;

	if (c < 0 || c >= g->t->ncores || g->owner[c] >= 0 ||
	    cpuset_count_range(&g->gpool[grp], k->first_pu, k->npus) !=
	    k->npus)
		return false;
	left = cpuset_count(&g->free) - k->npus;
	/* rest is a running sum of doubles: a residue of 1e-15 must not
	 * refuse the last core */
	return (double)left >= rest - 1e-6;
}

static void
grant(struct grant_ctx *g, int grp, int c)
{
	const struct vp_core *k = &g->t->core[c];
	int pu;

	if (!g->got[grp])
		g->rest -= g->dem[grp];
	g->got[grp]++;
	g->owner[c] = grp;
	for (pu = k->first_pu; pu < k->first_pu + k->npus; pu++)
		cpuset_clear(&g->free, pu);
}

/* The free core of @grp's pool nearest @pu, or -1. */
static int
nearest(const struct grant_ctx *g, int grp, int pu)
{
	int c, best = -1, bd = 5, x;

	for (c = 0; c < g->t->ncores; c++) {
		if (!may_grant(g, grp, c))
			continue;
		if ((x = dist(g->t, c, pu)) < bd) {
			best = c;
			bd = x;
		}
	}
	return best;
}

/* Busy groups, most demanding first (ties: lower id); their count. */
static int
busy_order(const struct grant_ctx *g, int n, int *ord)
{
	int i, j, m = 0;

	for (i = 0; i < n; i++) {
		if (!g->size[i] || !g->busy[i])
			continue;
		for (j = m; j > 0 && g->dem[ord[j - 1]] < g->dem[i]; j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
		m++;
	}
	return m;
}

/* A core one of @grp's vCPUs last ran on that it may have, or -1. */
static int
where_ran(const struct grant_ctx *g, int grp, const struct vp_grant_stat *st,
    const int *gid, int n)
{
	int i, c;

	for (i = 0; i < n; i++) {
		if (gid[i] != grp || st[i].last_pu < 0 ||
		    st[i].last_pu >= g->t->npus)
			continue;
		c = g->t->pu[st[i].last_pu].core;
		if (may_grant(g, grp, c))
			return c;
	}
	return -1;
}

/* The first PU of a core granted to @grp. */
static int
first_core_pu(const struct grant_ctx *g, int grp)
{
	int c;

	for (c = 0; c < g->t->ncores; c++)
		if (g->owner[c] == grp)
			return g->t->core[c].first_pu;
	return VP_PU_NONE;
}

static void
ctx_free(struct grant_ctx *g)
{
	free(g->owner);
	free(g->gpool);
	free(g->dem);
	free(g->want);
	free(g->got);
	free(g->size);
	free(g->lead_pu);
	free(g->busy);
}

static int
ctx_alloc(struct grant_ctx *g, int n)
{
	g->owner = malloc(g->t->ncores * sizeof(*g->owner));
	g->gpool = calloc(n, sizeof(*g->gpool));
	g->dem = calloc(n, sizeof(*g->dem));
	g->want = calloc(n, sizeof(*g->want));
	g->got = calloc(n, sizeof(*g->got));
	g->size = calloc(n, sizeof(*g->size));
	g->lead_pu = calloc(n, sizeof(*g->lead_pu));
	g->busy = calloc(n, sizeof(*g->busy));
	if (!g->owner || !g->gpool || !g->dem || !g->want || !g->got ||
	    !g->size || !g->lead_pu || !g->busy) {
		ctx_free(g);
		return -ENOMEM;
	}
	return 0;
}

/* Groups' pools (intersection), demand, size, busy and wanted cores. */
static int
gather(struct grant_ctx *g, const struct vp_grant_cfg *cfg,
    const struct vp_grant_stat *st, const int *gid,
    const struct vp_cpuset *pool, int n)
{
	uint64_t *run = calloc(n + 1, sizeof(*run));
	int i, x;

	if (!run)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		x = gid[i];
		if (!g->size[x]++) {
			g->gpool[x] = pool[i];
			g->lead_pu[x] = VP_PU_NONE;
		} else {
			cpuset_and(&g->gpool[x], &g->gpool[x], &pool[i]);
		}
		cpuset_or(&g->free, &g->free, &pool[i]);
		g->dem[x] += demand(cfg, &st[i]);
		g->rest += demand(cfg, &st[i]);
		if (g->lead_pu[x] == VP_PU_NONE)
			g->lead_pu[x] = st[i].last_pu;
		run[x] += st[i].run_ns;
		/* one vCPU's long waits make its group busy */
		if (waits_long(cfg, &st[i]))
			g->busy[x] = true;
	}
	for (x = 0; x < n; x++) {
		if (!g->size[x])
			continue;
		/* the group's run time against one CPU's tick */
		if (runs_long(cfg, run[x]))
			g->busy[x] = true;
		/* round(demand) cores, at least one, at most one a vCPU */
		g->want[x] = (int)(g->dem[x] + 0.5);
		if (g->want[x] < 1)
			g->want[x] = 1;
		if (g->want[x] > g->size[x])
			g->want[x] = g->size[x];
	}
	free(run);
	return 0;
}

/* vCPU @i's allowed set and recorded core from its group's grants. */
static void
result(const struct grant_ctx *g, int grp, int rank, int i,
    const struct vp_cpuset *pool, int *core, struct vp_cpuset *allowed)
{
	const struct vp_topo *t = g->t;
	int c, k = 0;

	core[i] = -1;
	if (!g->got[grp]) {
		cpuset_and(&allowed[i], &pool[i], &g->free);
		if (cpuset_empty(&allowed[i]))
			allowed[i] = pool[i];
		return;
	}
	cpuset_zero(&allowed[i]);
	for (c = 0; c < t->ncores; c++) {
		if (g->owner[c] != grp)
			continue;
		cpuset_set_range(&allowed[i], t->core[c].first_pu,
		    t->core[c].npus);
		/* members remember the group's cores in turn (stickiness) */
		if (k++ == rank % g->got[grp] || core[i] < 0)
			core[i] = c;
	}
}

int
coregrant_plan(const struct vp_topo *t, const struct vp_grant_cfg *cfg,
    const struct vp_grant_stat *st, const int *group,
    const struct vp_cpuset *pool, int n, int *core,
    struct vp_cpuset *allowed)
{
	struct grant_ctx g = { .t = t };
	int *ord, *gid, *prev, *rank, m, i, k, x, c, ngrants = 0;
	bool more;

	if (!t || !cfg || !cfg->tick_ns || n < 0 || (n && (!st || !pool ||
	    !core || !allowed)))
		return -EINVAL;
	for (i = 0; group && i < n; i++)
		if (group[i] < 0 || group[i] >= n)
			return -EINVAL;
	ord = malloc((n + 1) * sizeof(*ord));
	gid = malloc((n + 1) * sizeof(*gid));
	prev = malloc((n + 1) * sizeof(*prev));
	rank = calloc(n + 1, sizeof(*rank));
	if (!ord || !gid || !prev || !rank || ctx_alloc(&g, n) < 0) {
		free(ord);
		free(gid);
		free(prev);
		free(rank);
		return -ENOMEM;
	}
	for (c = 0; c < t->ncores; c++)
		g.owner[c] = -1;
	cpuset_zero(&g.free);
	for (i = 0; i < n; i++) {
		gid[i] = group ? group[i] : i;
		prev[i] = core[i];
	}
	if (gather(&g, cfg, st, gid, pool, n) < 0) {
		ngrants = -ENOMEM;
		goto out;
	}
	m = busy_order(&g, n, ord);
	/* first the grants that stick: a re-plan should not move them */
	for (k = 0; k < m; k++)
		for (i = 0; i < n; i++) {
			x = ord[k];
			if (gid[i] == x && g.got[x] < g.want[x] &&
			    prev[i] >= 0 && prev[i] < t->ncores &&
			    may_grant(&g, x, prev[i]))
				grant(&g, x, prev[i]);
		}
	/* then a first core for each, near its last PU, before any group
	 * takes a second one; then one more for each in turn (a shortage
	 * falls on all alike), where its vCPUs ran, else near its cores */
	for (k = 0; k < m; k++) {
		x = ord[k];
		if (!g.got[x] && (c = nearest(&g, x, g.lead_pu[x])) >= 0)
			grant(&g, x, c);
	}
	do {
		more = false;
		for (k = 0; k < m; k++) {
			x = ord[k];
			if (!g.got[x] || g.got[x] >= g.want[x])
				continue;
			if ((c = where_ran(&g, x, st, gid, n)) < 0)
				c = nearest(&g, x, first_core_pu(&g, x));
			if (c >= 0) {
				grant(&g, x, c);
				more = true;
			}
		}
	} while (more);
	for (x = 0; x < n; x++)
		ngrants += g.got[x];
	for (i = 0; i < n; i++) {
		x = gid[i];
		result(&g, x, rank[x]++, i, pool, core, allowed);
	}
out:
	free(ord);
	free(gid);
	free(prev);
	free(rank);
	ctx_free(&g);
	return ngrants;
}
