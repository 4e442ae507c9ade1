/*
 * active.c - when 6.12's periodic balance finds an imbalance that only
 * a running thread can fix: sched_balance_rq() of an idle CPU found
 * groups out of balance but nothing queued to detach (a running task
 * is never detached: can_migrate_task() refuses task_on_cpu()), so it
 * counts a failure and, once need_active_balance() agrees, asks the
 * busiest CPU's stopper (active_load_balance_cpu_stop()) to push its
 * running task over.  balance.c keeps the failure count and kicks it;
 * this file says whether the level is imbalanced and from where.
 *
 * The statistics are update_sg_lb_stats() reduced to task counts (a
 * vCPU at work is a whole CPU of util): per group of the level (the
 * child domain's spans) its runnable tasks, idle CPUs and cores; the
 * type has_spare < fully_busy < smt_balance < overloaded; the busiest by
 * update_sd_pick_busiest() (type, then fewer idle CPUs and more tasks).
 * sched_balance_find_src_group() then calls it balanced when the local
 * group has no spare capacity, when the busiest runs a single task, or
 * when the local group has at most one idle CPU more than the busiest
 * (groups wider than a CPU), unless prefer_sibling's
 * sibling_imbalance() exceeds 1 (every level below NUMA) or the busiest
 * is an SMT core with two tasks (group_smt_balance, smt_balance()).
 * calculate_imbalance() must leave a task to move: at the NUMA level
 * adjust_numa_imbalance() allows a small one.  The source CPU is the
 * busiest group's CPU with the most tasks (sched_balance_find_src_rq(),
 * migrate_task), and its running task must be allowed on the idle CPU.
 *
 * Besides those migrate_task imbalances (imbalanced_active_balance()),
 * ITMT's asym packing (active_asym_src()): on x86 hybrids with SMT and
 * amd-pstate's preferred cores 6.12 sets SD_ASYM_PACKING on the SMT,
 * cluster and MC levels (x86_sched_itmt_flags()), and an idle CPU of
 * higher arch_asym_cpu_priority() takes a running task from a lower one
 * (group_asym_packing, asym_active_balance()).  Misfit needs asym
 * capacity (GB10), whose pull is left out (bench/notes/stock.md).
 */
#include "sim.h"

enum ltype { L_SPARE, L_FULL, L_SMT, L_OVER };

struct lgs {
	int first, n, nr, idle, cores;
	enum ltype type;
};

static void
lb_stats(const struct sim *s, int first, int n, struct lgs *g)
{
	const struct vp_core *c0 = &s->t->core[s->t->pu[first].core];
	int i;

	g->first = first;
	g->n = n;
	g->nr = g->idle = g->cores = 0;
	for (i = first; i < first + n; i++) {
		g->nr += host_nr(s, i);
		g->idle += host_idle(s, i);
		g->cores += s->t->core[s->t->pu[i].core].first_pu == i;
	}
	if (g->nr > n)
		g->type = L_OVER;
	else if (n > 1 && c0->npus == n && g->nr > 1)
		g->type = L_SMT;	/* an SMT core running two tasks */
	else if (g->nr == n)
		g->type = L_FULL;
	else
		g->type = L_SPARE;
}

/* update_sd_pick_busiest(), reduced to task counts */
static bool
busier(const struct lgs *g, const struct lgs *b)
{
	if (g->type != b->type)
		return g->type > b->type;
	if (g->type == L_SPARE)
		return g->idle < b->idle ||
		    (g->idle == b->idle && g->nr > b->nr);
	return g->nr * b->n > b->nr * g->n;	/* avg_load */
}

/* sibling_imbalance(): spread tasks per core alike on both groups */
static int
sibling_imbalance(const struct lgs *b, const struct lgs *l)
{
	int imb;

	if (b->cores == l->cores)
		return b->nr > l->nr ? b->nr - l->nr : 0;
	imb = l->cores * b->nr - b->cores * l->nr;
	if (imb < 0)
		imb = 0;
	imb = (2 * imb + l->cores + b->cores) / (l->cores + b->cores);
	if (imb <= 1 && l->nr == 0 && b->nr > 1)
		imb = 2;
	return imb;
}

int
active_imbalance(const struct sim *s, int pu, int first, int n, int lev)
{
	bool numa = n == s->t->npus && s->t->npackages > 1;
	struct lgs local, g, best = { 0 };
	int i, k, lf, ln, src, imb;
	bool found = false;

	(void)lev;
	balance_group(s, pu, n, &lf, &ln);
	lb_stats(s, lf, ln, &local);
	for (i = first; i < first + n; i += k) {
		int f;

		balance_group(s, i, n, &f, &k);
		if (f == lf)
			continue;
		lb_stats(s, f, k, &g);
		if (!found || busier(&g, &best)) {
			best = g;
			found = true;
		}
	}
	if (!found || local.type != L_SPARE || best.type == L_OVER ||
	    best.nr <= 1)
		return -1;
	/* prefer_sibling forces it; else one idle CPU more is balance */
	if ((numa || sibling_imbalance(&best, &local) <= 1) && best.n > 1 &&
	    local.idle <= best.idle + 1)
		return -1;
	if (best.type == L_SMT) {
		imb = 1;	/* reduce the tasks sharing a core */
	} else if (!numa) {
		imb = sibling_imbalance(&best, &local) >> 1;
	} else {
		imb = local.idle - best.idle;
		/* adjust_numa_imbalance(), imb_numa_nr as in fork.c */
		k = s->t->nllcs / s->t->npackages;
		if (k <= 1)
			k = s->t->nllcs;
		if (local.nr + 1 <= k && imb <= 2)
			imb = 0;
		imb >>= 1;
	}
	if (imb <= 0)
		return -1;
	/* sched_balance_find_src_rq(): the CPU with the most tasks */
	src = -1;
	for (i = best.first; i < best.first + best.n; i++)
		if (src < 0 || host_nr(s, i) > host_nr(s, src))
			src = i;
	/* its running task must be allowed here (else LBF_ALL_PINNED);
	 * a halt-polling vCPU would stop polling and block, not move */
	if (s->pu[src].cur < 0 || s->th[s->pu[src].cur].polling ||
	    !cpuset_test(&s->allowed[s->th[s->pu[src].cur].allowed], pu))
		return -1;
	return src;
}

/* ITMT: SMT with unequal core priorities (stock.c's asym_cpucap() is
 * the other case: unequal priorities without SMT) */
static bool
itmt(const struct vp_topo *t)
{
	int pu;

	if (t->max_smt <= 1)
		return false;
	for (pu = 1; pu < t->npus; pu++)
		if (t->pu[pu].prio != t->pu[0].prio)
			return true;
	return false;
}

/* sched_use_asym_prio() with SMT active: the SMT level, or a whole
 * idle core (@pu's core busy only with what runs on @pu, for a source) */
static bool
use_asym_prio(const struct sim *s, int pu, int n, bool src)
{
	const struct vp_core *c = &s->t->core[s->t->pu[pu].core];
	int i;

	if (n == c->npus)
		return true;
	for (i = c->first_pu; i < c->first_pu + c->npus; i++)
		if (!host_idle(s, i) && (!src || i != pu))
			return false;
	return true;
}

/* sched_asym(): @dst may pack from @src in a domain of @n CPUs */
static bool
sched_asym(const struct sim *s, int dst, int src, int n)
{
	return use_asym_prio(s, dst, n, false) &&
	    s->t->pu[dst].prio > s->t->pu[src].prio;
}

int
active_asym_src(const struct sim *s, int pu, int first, int n)
{
	int i, k, f, prefer, best = -1, best_prio = 0, src = -1;

	/* SD_ASYM_PACKING only up to the LLC (the MC level) */
	if (!itmt(s->t) || n > s->t->llc[s->t->pu[pu].llc].npus ||
	    !use_asym_prio(s, pu, n, false))
		return -1;
	balance_group(s, pu, n, &f, &k);
	for (i = first; i < first + n; i += k) {
		int g = i, gn, j, nr = 0;

		balance_group(s, i, n, &g, &gn);
		k = gn;
		if (g == f)
			continue;
		/* sg->asym_prefer_cpu: the group's best priority */
		prefer = g;
		for (j = g; j < g + gn; j++) {
			nr += host_nr(s, j);
			if (s->t->pu[j].prio > s->t->pu[prefer].prio)
				prefer = j;
		}
		if (!nr || !sched_asym(s, pu, prefer, n))
			continue;
		/* update_sd_pick_busiest(): the lowest priority's work */
		if (best < 0 || (int)s->t->pu[prefer].prio < best_prio) {
			best = g;
			best_prio = (int)s->t->pu[prefer].prio;
		}
	}
	if (best < 0)
		return -1;
	/* sched_balance_find_src_rq(): the most tasks, skipping a CPU
	 * that is itself preferred to @pu and runs one task */
	balance_group(s, best, n, &f, &k);
	for (i = f; i < f + k; i++) {
		if (host_nr(s, i) == 1 && sched_asym(s, i, pu, n))
			continue;
		if (host_nr(s, i) && (src < 0 || host_nr(s, i) > host_nr(s, src)))
			src = i;
	}
	/* asym_active_balance(): @pu is preferred, or @src's core is not
	 * idle enough to count; its running task must be allowed here */
	if (src < 0 || s->pu[src].cur < 0 || s->th[s->pu[src].cur].polling ||
	    !cpuset_test(&s->allowed[s->th[s->pu[src].cur].allowed], pu) ||
	    !(s->t->pu[pu].prio > s->t->pu[src].prio ||
	    !use_asym_prio(s, src, n, true)))
		return -1;
	return src;
}

bool
active_asym_kick(const struct sim *s, int pu)
{
	const struct vp_llc *l = &s->t->llc[s->t->pu[pu].llc];
	int i;

	if (!itmt(s->t))
		return false;
	/* sd_asym_packing: the LLC here; its idle CPUs (tick stopped) */
	for (i = l->first_pu; i < l->first_pu + l->npus; i++)
		if (host_idle(s, i) && sched_asym(s, i, pu, l->npus))
			return true;
	return false;
}
