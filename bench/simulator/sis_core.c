/*
 * sis_core.c - the SIS_CORE kernel patch ("sched/fair: Wake on a whole
 * idle core, not beside a busy one"), on top of the 6.12 wake path of
 * stock.c, with sched_feat(SIS_CORE) on.  The strategy sis-core runs it
 * with the daemon's plan as the allowed sets; there is no wake hint, so
 * prev is the stock p->wake_cpu.  With the feature off the patch
 * changes nothing: that is strategy daemon.
 *
 * The mask (sd_llc_shared->idle_core_cpus) holds every PU of each whole
 * idle core of an LLC.  One vp_cpuset holds all the LLCs' masks, since
 * LLC spans do not overlap.  Bits of a core are set, dropped and claimed
 * together, so here they are always all set or all clear.
 *
 * Concurrent wakers cannot double book a core in this simulator: it
 * decides one wake-up at a time and marks the PU busy at once (host.c),
 * so the claim's test_and_clear never loses a race, and no sibling race
 * leaves a stale bit.  Stale bits do arise from the domain rebuild (all
 * set at t = 0) and from a core taken by the stock fall-through or a
 * balance pull before the PU leaves idle; the scan drops them.
 */
#include <limits.h>

#include "sim.h"

/* The LLC mask's range of @pu: the LLC's PUs are contiguous. */
static const struct vp_llc *
llc_of(const struct sim *s, int pu)
{
	return &s->t->llc[s->t->pu[pu].llc];
}

static const struct vp_core *
core_of(const struct sim *s, int pu)
{
	return &s->t->core[s->t->pu[pu].core];
}

/* sis_core_set(), sis_core_drop(): every sibling's bit, tested first
 * (a write only when the core changes state: one mask write). */
static bool
core_set(struct sim *s, int pu, bool on)
{
	const struct vp_core *k = core_of(s, pu);
	bool wrote = false;
	int sb;

	for (sb = k->first_pu; sb < k->first_pu + k->npus; sb++) {
		if (cpuset_test(&s->sis_idle_cores, sb) == on)
			continue;
		if (on)
			cpuset_set(&s->sis_idle_cores, sb);
		else
			cpuset_clear(&s->sis_idle_cores, sb);
		wrote = true;
	}
	return wrote;
}

void
sis_core_rebuild(struct sim *s)
{
	/* sd_init(): every core counts as idle until shown otherwise */
	s->sis_idle_cores = s->t->all;
}

void
sis_core_pu_idle(struct sim *s, int pu)
{
	/*
	 * __update_idle_core() with SIS_CORE.  "Already known": its own bit
	 * set stops it before has_idle_cores too.  "A wake-up is on its
	 * way here" (rq->ttwu_pending): host.c calls this only when nothing
	 * is in flight to @pu, so that case never reaches here.
	 */
	if (s->t->max_smt < 2 || cpuset_test(&s->sis_idle_cores, pu) ||
	    !host_core_idle(s, pu))
		return;
	s->has_idle_cores[s->t->pu[pu].llc] = true;
	core_set(s, pu, true);
}

bool
sis_core_pu_busy(struct sim *s, int pu)
{
	/* __update_busy_core(), from put_prev_task_idle(): leaving idle
	 * drops the core, if its bit was still there */
	if (s->t->max_smt < 2 || !cpuset_test(&s->sis_idle_cores, pu))
		return false;
	return core_set(s, pu, false);
}

/*
 * sis_core_mask() is not NULL: the feature is on (this strategy),
 * sched_smt_active(), and no asymmetric capacity, which keeps the stock
 * path (stock.c: only hosts without SMT get it in 6.12, so the second
 * test implies the third).
 */
bool
sis_core_applies(const struct sim *s)
{
	return s->strat == STRAT_SIS_CORE && s->t->max_smt > 1;
}

/* The first read of the mask's line in this wake-up costs one probe:
 * every idle entry and exit of the LLC may write it. */
static void
read_mask(struct sis_core_wake *w)
{
	if (!w->read) {
		w->read = true;
		(*w->probes)++;
	}
}

/*
 * sis_core_claim(): test_and_clear of the core's first sibling (lowest
 * CPU number, cpumask_first(cpu_smt_mask())), then the other bits.
 */
static bool
claim(struct sis_core_wake *w, int pu)
{
	const struct vp_core *k = core_of(w->s, pu);
	int sb, first = k->first_pu;

	for (sb = k->first_pu; sb < k->first_pu + k->npus; sb++)
		if (w->s->t->pu[sb].os_index < w->s->t->pu[first].os_index)
			first = sb;
	if (!cpuset_test(&w->s->sis_idle_cores, first))
		return false;
	core_set(w->s, pu, false);
	w->s->sis_writes++;
	return true;
}

bool
sis_core_take(struct sis_core_wake *w, int pu)
{
	const struct vp_llc *l = llc_of(w->s, pu);
	struct vp_cpuset open;

	/* sis_core_take(): a whole idle core is claimed and taken */
	read_mask(w);
	if (cpuset_test(&w->s->sis_idle_cores, pu) && claim(w, pu))
		return true;
	/* no idle core of the LLC open to the task: the stock answer */
	cpuset_and(&open, &w->s->sis_idle_cores, w->cpus);
	if (!cpuset_intersects_range(&open, l->first_pu, l->npus))
		return true;
	/* kept aside for when the scan finds no whole idle core */
	if (w->defer == VP_PU_NONE)
		w->defer = pu;
	return false;
}

/* sis_core_probe(): every sibling available_idle_cpu(); a busy one
 * drops the core from the mask (its bits were stale). */
static bool
probe_core(struct sis_core_wake *w, int pu)
{
	const struct vp_core *k = core_of(w->s, pu);
	int sb;

	for (sb = k->first_pu; sb < k->first_pu + k->npus; sb++)
		if (!w->probe(w->ctx, sb)) {
			if (core_set(w->s, pu, false))
				w->s->sis_writes++;
			return false;
		}
	return true;
}

/* What sis_core_walk() carries between its two passes. */
struct walk {
	struct vp_cpuset cand;	/* mask & LLC span & p->cpus_ptr, left */
	int nr;			/* SIS_UTIL's cores still to probe, + 1 */
	bool asym;		/* sd_asym_packing of the target */
};

/*
 * sis_core_walk(): the candidates from the target on in CPU-number
 * order (for_each_cpu_wrap), only @cluster's if >= 0, one look per core
 * (its other siblings leave the candidates).  Non-asym: claim the first
 * whole idle core.  Asym packing: a core whose priority cannot beat the
 * best so far is skipped unprobed; the best is claimed at the end.
 */
static int
walk(struct sis_core_wake *w, struct walk *k, int target, int cluster)
{
	const struct vp_topo *t = w->s->t;
	const struct vp_llc *l = llc_of(w->s, target);
	const struct vp_core *c;
	int i, pu, sb, start = t->pu_os_pos[target] + 1, best = VP_PU_NONE;
	long best_prio = LONG_MIN;

	for (i = 0; i < l->npus; i++) {
		pu = l->os_order[(start + i) % l->npus];
		if (!cpuset_test(&k->cand, pu) ||
		    (cluster >= 0 && t->pu[pu].cluster != cluster))
			continue;
		c = &t->core[t->pu[pu].core];
		/* cpumask_andnot(cand, cand, cpu_smt_mask(cpu)) */
		for (sb = c->first_pu; sb < c->first_pu + c->npus; sb++)
			cpuset_clear(&k->cand, sb);
		if (k->asym && (long)t->pu[pu].prio <= best_prio)
			continue;
		if (--k->nr <= 0)
			break;
		if (!probe_core(w, pu))
			continue;
		if (k->asym) {
			best = pu;
			best_prio = t->pu[pu].prio;
		} else if (claim(w, pu)) {
			return pu;
		}
	}
	if (best != VP_PU_NONE && claim(w, best))
		return best;
	return VP_PU_NONE;
}

/* sd_asym_packing: x86 ITMT or amd-pstate preferred cores, on where
 * the core priorities differ (stock.c's asym_cpucap() note) */
static bool
asym_packing(const struct vp_topo *t)
{
	int pu;

	for (pu = 1; pu < t->npus; pu++)
		if (t->pu[pu].prio != t->pu[0].prio)
			return true;
	return false;
}

int
sis_core_select(struct sis_core_wake *w, int target)
{
	struct sim *s = w->s;
	const struct vp_llc *l = llc_of(s, target);
	struct walk k = { .nr = INT_MAX, .asym = asym_packing(s->t) };
	int llc = s->t->pu[target].llc, i;

	/* select_idle_core_sis(): mask & sched_domain_span(sd_llc) &
	 * p->cpus_ptr; nothing there: the stock path */
	read_mask(w);
	cpuset_and(&k.cand, &s->sis_idle_cores, w->cpus);
	if (!cpuset_intersects_range(&k.cand, l->first_pu, l->npus))
		return VP_PU_NONE;
	/* SIS_UTIL: an overloaded LLC is not scanned at all */
	k.nr = s->nr_idle_scan[llc] + 1;
	if (k.nr == 1)
		return VP_PU_NONE;
	/* the target's cluster first, as select_idle_cpu() does */
	if (s->cluster_active) {
		i = walk(w, &k, target, s->t->pu[target].cluster);
		if (i != VP_PU_NONE || k.nr <= 0)
			return i;
	}
	i = walk(w, &k, target, -1);
	/* keep has_idle_cores, which numa_idle_core() reads, in step */
	if (i == VP_PU_NONE &&
	    !cpuset_intersects_range(&s->sis_idle_cores, l->first_pu,
	    l->npus))
		s->has_idle_cores[llc] = false;
	return i;
}
