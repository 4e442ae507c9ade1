/*
 * patch0003.c - the kernel series as it is: kvm-patches/0003 (SIS_CORE)
 * on top of the 6.12 wake path of stock.c, with the daemon's plan and
 * its wake hint (kvm-patches/0002: the daemon writes each vCPU's home to
 * wake_hint, so p->wake_cpu, the prev of select_task_rq(), is the home
 * whenever the home is allowed).
 *
 * Modelled from the patch text, its behaviour included where it is
 * questionable:
 *  - the idle-core mask (one bit per core, at the core's first PU) is
 *    set at idle entry by __update_idle_core() when the whole core is
 *    idle, cleared only when a scan finds the core busy or places a task
 *    there; a task placed by the target/prev shortcut or by the stock
 *    fall-through leaves its core's bit set (the next scan pays for it);
 *  - the SIS_CORE branch runs first in select_idle_sibling(), before
 *    the idle target, the per-CPU kthread and recent_used_cpu paths;
 *  - the candidates are the mask and the LLC span, not p->cpus_ptr: a
 *    core outside the allowed set is probed sibling by sibling, then
 *    skipped, and its bit stays;
 *  - without asym packing the first whole idle core wins; with it
 *    (x86 ITMT) every candidate is probed, no early stop, the best
 *    npus * priority kept;
 *  - once the branch ran (mask empty or nothing found) the stock
 *    idle-core scan is skipped, so has_idle_cores is never cleared;
 *  - vCPU kicks are not sync wake-ups, so the sync-waker rule is idle.
 * Double booking between concurrent wakers needs two wake-ups in flight
 * at once; this simulator decides them one at a time, so it is absent.
 */
#include "sim.h"

static int
core_first(const struct sim *s, int pu)
{
	return s->t->core[s->t->pu[pu].core].first_pu;
}

void
patch0003_pu_idle(struct sim *s, int pu)
{
	/* __update_idle_core() with SIS_CORE: sis_core_set_idle() */
	if (s->t->max_smt > 1 && host_core_idle(s, pu))
		cpuset_set(&s->sis_idle_cores, core_first(s, pu));
}

/* sis_core_is_idle(), not sync: allowed, idle, every sibling idle. */
static bool
core_is_idle(struct sim *s, const struct vp_cpuset *cpus, int pu,
    bool (*probe)(void *, int), void *ctx)
{
	const struct vp_core *k = &s->t->core[s->t->pu[pu].core];
	int sb;

	if (!cpuset_test(cpus, pu) || !probe(ctx, pu))
		return false;
	for (sb = k->first_pu; sb < k->first_pu + k->npus; sb++)
		if (sb != pu && !probe(ctx, sb))
			return false;
	return true;
}

/* sis_core_probe(): a busy sibling drops the bit; else an allowed PU. */
static int
core_probe(struct sim *s, const struct vp_cpuset *cpus, int first,
    bool (*probe)(void *, int), void *ctx)
{
	const struct vp_core *k = &s->t->core[s->t->pu[first].core];
	int sb;

	for (sb = k->first_pu; sb < k->first_pu + k->npus; sb++)
		if (!probe(ctx, sb)) {
			cpuset_clear(&s->sis_idle_cores, first);
			return VP_PU_NONE;
		}
	for (sb = k->first_pu; sb < k->first_pu + k->npus; sb++)
		if (cpuset_test(cpus, sb))
			return sb;
	return VP_PU_NONE;
}

/*
 * sis_core_scan(): the mask's cores of the LLC from the target on, in
 * CPU-number order (for_each_cpu_wrap), inside @cluster if >= 0, else
 * outside the cluster already scanned (@skip_cluster).
 */
static int
core_scan(struct sim *s, const struct vp_cpuset *cpus, int target,
    int cluster, int skip_cluster, bool asym,
    bool (*probe)(void *, int), void *ctx)
{
	const struct vp_topo *t = s->t;
	const struct vp_llc *l = &t->llc[t->pu[target].llc];
	int k, pu, cpu, best = VP_PU_NONE, best_core = VP_PU_NONE;
	int start = t->pu_os_pos[target] + 1;
	long prio, best_prio = -1;

	for (k = 0; k < l->npus; k++) {
		pu = l->os_order[(start + k) % l->npus];
		if (pu != core_first(s, pu) ||
		    !cpuset_test(&s->sis_idle_cores, pu))
			continue;
		if (cluster >= 0 && t->pu[pu].cluster != cluster)
			continue;
		if (skip_cluster >= 0 && t->pu[pu].cluster == skip_cluster)
			continue;
		cpu = core_probe(s, cpus, pu, probe, ctx);
		if (cpu == VP_PU_NONE)
			continue;
		/* sis_core_prio(): siblings * arch_asym_cpu_priority() */
		prio = asym ? (long)t->core[t->pu[pu].core].npus *
		    t->pu[pu].prio : 0;
		if (prio > best_prio) {
			best = cpu;
			best_core = pu;
			best_prio = prio;
		}
		if (!asym)
			break;
	}
	if (best != VP_PU_NONE)
		cpuset_clear(&s->sis_idle_cores, best_core);
	return best;
}

static bool
mask_empty(const struct sim *s, int llc)
{
	const struct vp_llc *l = &s->t->llc[llc];

	return !cpuset_intersects_range(&s->sis_idle_cores, l->first_pu,
	    l->npus);
}

int
patch0003_core(struct sim *s, const struct vp_cpuset *cpus, int prev,
    int target, bool (*probe)(void *, int), void *ctx,
    unsigned long *probes)
{
	const struct vp_topo *t = s->t;
	int cluster = -1, i;
	bool asym;

	/* cpumask_empty() reads the LLC-shared mask, a line every CPU of
	 * the LLC writes at idle entry: one probe */
	(*probes)++;
	if (mask_empty(s, t->pu[target].llc))
		return VP_PU_NONE;
	if (core_is_idle(s, cpus, target, probe, ctx))
		return target;
	if (prev != target && t->pu[prev].llc == t->pu[target].llc &&
	    core_is_idle(s, cpus, prev, probe, ctx))
		return prev;
	/* sd_asym_packing: x86 ITMT, on with unequal core priorities */
	asym = false;
	for (i = 0; !asym && i < t->npus; i++)
		asym = t->pu[i].prio != t->pu[0].prio;
	if (s->cluster_active) {
		cluster = t->pu[target].cluster;
		i = core_scan(s, cpus, target, cluster, -1, asym, probe, ctx);
		if (i != VP_PU_NONE)
			return i;
	}
	return core_scan(s, cpus, target, -1, cluster, asym, probe, ctx);
}
