/*
 * sis_core.c - the SIS_CORE kernel patch ("sched/fair: Wake on a whole
 * idle core, not beside a busy one"), on top of the 6.12 wake path of
 * stock.c, with sched_feat(SIS_CORE) on.  The strategy sis-core runs it
 * with the daemon's plan as the allowed sets; there is no wake hint, so
 * prev is the stock p->wake_cpu.  With the feature off the patch
 * changes nothing: that is strategy daemon.  It follows the patch as it
 * answered its second review (kvm-patches/0001): a core is probed
 * before it is claimed, the walk runs only when an idle CPU was kept
 * aside and then instead of the stock scan, within SIS_UTIL's budget
 * counted per CPU, a miss never clears has_idle_cores, and there is no
 * asym-packing walk.
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
 * The PUs of @pu's core in CPU-number order, as for_each_cpu() walks
 * cpu_smt_mask(): dense indices follow the topology, not the OS numbers.
 * Returns how many.
 */
static int
core_by_number(const struct sim *s, int pu, int out[VP_MAX_SMT])
{
	const struct vp_core *k = core_of(s, pu);
	int i, j, sb;

	for (i = 0; i < k->npus; i++) {
		sb = k->first_pu + i;
		for (j = i; j > 0 &&
		    s->t->pu[out[j - 1]].os_index > s->t->pu[sb].os_index; j--)
			out[j] = out[j - 1];
		out[j] = sb;
	}
	return k->npus;
}

/*
 * sis_core_claim(): test_and_clear of the core's first sibling (lowest
 * CPU number, cpumask_first(cpu_smt_mask())), then the other bits.
 */
static bool
claim(struct sis_core_wake *w, int pu)
{
	int sib[VP_MAX_SMT];

	core_by_number(w->s, pu, sib);
	if (!cpuset_test(&w->s->sis_idle_cores, sib[0]))
		return false;
	core_set(w->s, pu, false);
	w->s->sis_writes++;
	return true;
}

/*
 * sis_core_probe(): is the core of @pu whole idle?  Every sibling is asked
 * in CPU-number order, each one spending one of *@nr (select_idle_cpu()'s
 * budget is counted per CPU); a busy one drops the core (its bits were
 * stale).  Out of budget: not idle, and nothing dropped.
 */
static bool
probe_core(struct sis_core_wake *w, int pu, int *nr)
{
	int sib[VP_MAX_SMT], i, n = core_by_number(w->s, pu, sib);

	for (i = 0; i < n; i++) {
		if (--*nr < 0)
			return false;
		if (!w->probe(w->ctx, sib[i])) {
			if (core_set(w->s, pu, false))
				w->s->sis_writes++;
			return false;
		}
	}
	return true;
}

/*
 * sis_core_take(): an idle target, prev or recent CPU is taken at once if
 * its whole core is idle (probed, then claimed), or if no idle core of
 * the LLC in the mask is open to the task; otherwise the first is kept in
 * w->defer.  The patch's two other "take at once" cases cannot arise
 * here: the simulator has no SCHED_IDLE tasks, and stock_select() never
 * offers a CPU outside p->cpus_ptr (select_fallback_rq() comes first).
 */
bool
sis_core_take(struct sis_core_wake *w, int pu)
{
	const struct vp_llc *l = llc_of(w->s, pu);
	struct vp_cpuset open;
	int nr = INT_MAX;

	read_mask(w);
	if (cpuset_test(&w->s->sis_idle_cores, pu) &&
	    probe_core(w, pu, &nr) && claim(w, pu))
		return true;
	cpuset_and(&open, &w->s->sis_idle_cores, w->cpus);
	if (!cpuset_intersects_range(&open, l->first_pu, l->npus))
		return true;
	if (w->defer == VP_PU_NONE)
		w->defer = pu;
	return false;
}

/*
 * sis_core_walk(): the candidates @cand from the target on in CPU-number
 * order (for_each_cpu_wrap), only @cluster's if >= 0, one look per core
 * (its siblings leave the candidates); the first whole idle core is
 * claimed.  Stops when the budget *@nr is spent.
 */
static int
walk(struct sis_core_wake *w, struct vp_cpuset *cand, int target,
    int cluster, int *nr)
{
	const struct vp_topo *t = w->s->t;
	const struct vp_llc *l = llc_of(w->s, target);
	const struct vp_core *c;
	int i, pu, sb, start = t->pu_os_pos[target] + 1;

	for (i = 0; i < l->npus; i++) {
		pu = l->os_order[(start + i) % l->npus];
		if (!cpuset_test(cand, pu) ||
		    (cluster >= 0 && t->pu[pu].cluster != cluster))
			continue;
		if (*nr <= 0)
			break;
		c = &t->core[t->pu[pu].core];
		/* cpumask_andnot(cand, cand, cpu_smt_mask(cpu)) */
		for (sb = c->first_pu; sb < c->first_pu + c->npus; sb++)
			cpuset_clear(cand, sb);
		if (probe_core(w, pu, nr) && claim(w, pu))
			return pu;
	}
	return VP_PU_NONE;
}

/*
 * select_idle_core_sis(), called only when an early return kept an idle
 * CPU aside: it runs instead of the stock scan and spends its budget,
 * SIS_UTIL's nr_idle_scan CPUs probed.  A miss leaves has_idle_cores as
 * it was: the mask can miss an idle core, so only stock's full scan may
 * clear the flag.
 */
int
sis_core_select(struct sis_core_wake *w, int target)
{
	struct sim *s = w->s;
	const struct vp_llc *l = llc_of(s, target);
	struct vp_cpuset cand;
	int nr, i;

	/* cpumask_and(cand, idle_core_cpus, p->cpus_ptr): the LLC's mask */
	read_mask(w);
	cpuset_and(&cand, &s->sis_idle_cores, w->cpus);
	if (!cpuset_intersects_range(&cand, l->first_pu, l->npus))
		return VP_PU_NONE;
	nr = s->nr_idle_scan[s->t->pu[target].llc];
	if (!nr)
		return VP_PU_NONE;
	/* the target's cluster first, as select_idle_cpu() does */
	if (s->cluster_active) {
		i = walk(w, &cand, target, s->t->pu[target].cluster, &nr);
		if (i != VP_PU_NONE || nr <= 0)
			return i;
	}
	return walk(w, &cand, target, -1, &nr);
}
