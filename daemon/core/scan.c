/*
 * scan.c - looking for an idle PU inside one LLC.
 *
 * scan_core() is vcpuplace's scan: the SIS_CORE idle mask (seed 000),
 * visited cluster-first (seed 003), candidates weighed by SMT-aware
 * priority (seed 002).  scan_linear() is the reference it is measured
 * against: the kernel's select_idle_cpu() before those ideas.  The seeds
 * are the kernel threads the ideas come from (doc/seeds.md).
 */
#include "core/vcpuplace.h"

static const char *const reason_tags[VP_REASON_COUNT] = {
	[VP_REASON_NONE] = "none",
	[VP_REASON_HOME_IDLE] = "home-idle",
	[VP_REASON_CACHE_HOT] = "cache-hot",
	[VP_REASON_IDLE_CORE] = "idle-core",
	[VP_REASON_IDLE_SIBLING] = "idle-sibling",
	[VP_REASON_IDLE_PU] = "idle-pu",
	[VP_REASON_OTHER_LLC] = "other-llc",
	[VP_REASON_FALLBACK] = "fallback",
	[VP_REASON_DEDICATED] = "dedicated",
	[VP_REASON_ISOLATED] = "isolated",
	[VP_REASON_NO_ROOM] = "no-room",
};

const char *
scan_reason_tag(enum vp_reason r)
{
	return (unsigned int)r < VP_REASON_COUNT && reason_tags[r] ?
	    reason_tags[r] : "?";
}

/* One core-granule scan in progress. */
struct core_scan {
	struct vp_view *v;
	const struct vp_cpuset *src;	/* idle mask, or the LLC span */
	const struct vp_cpuset *allowed;
	enum vp_smt smt;
	bool fail_prone;	/* probe siblings of false positives */
	bool blind;		/* hint says no idle core: skip siblings */
	unsigned int bound;	/* a score nothing in this LLC can beat */
	bool stopped;		/* stopped before visiting every candidate */
	int best;
	unsigned int best_score;
	int best_busy;
	bool saw_idle_core;
};

/*
 * Where the scan starts: the first PU of @from's cluster, so that the
 * vCPUs of one VM meet in the cluster that shares their L2 or L3 tag
 * (seed 003); without CLUSTER_FIRST, the PU after @from.
 */
static int
pick_scan_start(const struct vp_view *v, const struct vp_llc *l, int from)
{
	const struct vp_topo *t = v->topo;

	if (from < l->first_pu || from >= l->first_pu + l->npus)
		return l->first_pu;
	if (feat(v->feat, CLUSTER_FIRST))
		return t->cluster[t->pu[from].cluster].first_pu;
	return from + 1 < l->first_pu + l->npus ? from + 1 : l->first_pu;
}

/*
 * A false positive @pu was busy.  Its siblings are the PUs the core
 * granule rule kept out of the mask (true negatives): a fail-prone scan
 * looks at them before giving up on the core.
 */
static int
find_true_negative(struct core_scan *s, int pu)
{
	const struct vp_topo *t = s->v->topo;
	const struct vp_core *c = &t->core[t->pu[pu].core];
	int sib;

	for (sib = c->first_pu; sib < c->first_pu + c->npus; sib++)
		if (sib != pu && cpuset_test(s->allowed, sib) &&
		    view_probe_idle(s->v, sib))
			return sib;
	return VP_PU_NONE;
}

/* Weighs idle candidate @pu; true when nothing can beat the best. */
static bool
consider(struct core_scan *s, int pu)
{
	const struct vp_topo *t = s->v->topo;
	int npus = t->core[t->pu[pu].core].npus;
	unsigned int score;
	int nbusy;

	if (s->blind && s->smt != VP_SMT_ISOLATE)
		nbusy = npus > 1;	/* a sibling is busy, or it'd be hinted */
	else
		nbusy = prio_busy_siblings(s->v, pu);
	if (s->smt == VP_SMT_ISOLATE && nbusy) {
		view_trace(s->v, VP_STEP_SIBLING_BUSY, pu, nbusy);
		return false;
	}
	if (!nbusy)
		s->saw_idle_core = true;
	score = s->smt == VP_SMT_PREFER_IDLE_CORE || s->smt == VP_SMT_ISOLATE ?
	    prio_weigh(s->v, pu, nbusy) : t->pu[pu].prio;
	if (s->best == VP_PU_NONE || score > s->best_score) {
		if (s->best != VP_PU_NONE)
			view_trace(s->v, VP_STEP_OUTSCORED, s->best,
			    (int)s->best_score);
		s->best = pu;
		s->best_score = score;
		s->best_busy = nbusy;
	} else {
		view_trace(s->v, VP_STEP_OUTSCORED, pu, (int)score);
	}
	/* smt=any: the first idle PU, whatever it is worth */
	return s->smt == VP_SMT_ANY || s->best_score >= s->bound;
}

/* Visits candidates in [first, end); true when the scan may stop. */
static bool
scan_range(struct core_scan *s, int first, int end)
{
	struct vp_idlemask *m = s->v->idle;
	bool sis_core = s->src == &m->mask;
	int pu;

	for (pu = cpuset_next_and(s->src, s->allowed, first, end);
	    pu != VP_PU_NONE;
	    pu = cpuset_next_and(s->src, s->allowed, pu + 1, end)) {
		int cand = pu;

		if (!view_probe_idle(s->v, pu)) {
			if (!sis_core)
				continue;
			/* false positive: it stays out until it idles again */
			cpuset_clear(&m->mask, pu);
			if (!s->fail_prone)
				continue;
			cand = find_true_negative(s, pu);
			if (cand == VP_PU_NONE)
				continue;
			cpuset_set(&m->mask, cand);
		}
		if (consider(s, cand))
			return s->stopped = true;
	}
	return false;
}

/* Clears the LLC's hint when a complete scan over it saw no idle core. */
static void
update_hint(struct core_scan *s, const struct vp_llc *l, int llc)
{
	if (s->blind || s->stopped || s->saw_idle_core)
		return;
	if (cpuset_count_range(s->allowed, l->first_pu, l->npus) == l->npus)
		s->v->idle->has_idle_core[llc] = false;
}

int
scan_core(struct vp_view *v, int llc, int from,
    const struct vp_cpuset *allowed, enum vp_smt smt,
    enum vp_reason *ret_reason)
{
	const struct vp_llc *l = &v->topo->llc[llc];
	struct vp_idlemask *m = v->idle;
	struct core_scan s = {
		.v = v, .allowed = allowed, .smt = smt, .best = VP_PU_NONE,
	};
	int start, end = l->first_pu + l->npus;

	s.src = feat(v->feat, SIS_CORE) ? &m->mask : &v->topo->all;
	s.fail_prone = feat(v->feat, SIS_CORE) && feat(v->feat, FAIL_PRONE) &&
	    from != VP_PU_NONE && cpuset_test(&m->fail_prone, from);
	s.blind = !m->has_idle_core[llc] && smt != VP_SMT_ISOLATE;
	s.bound = s.blind && smt == VP_SMT_PREFER_IDLE_CORE &&
	    feat(v->feat, SMT_PRIO) ? l->max_prio / 2 : l->max_prio;
	start = pick_scan_start(v, l, from);
	view_trace(v, VP_STEP_SCAN_LLC, start, llc);
	if (!scan_range(&s, start, end))
		scan_range(&s, l->first_pu, start);
	update_hint(&s, l, llc);
	if (from != VP_PU_NONE && feat(v->feat, FAIL_PRONE)) {
		if (s.best == VP_PU_NONE)
			cpuset_set(&m->fail_prone, from);
		else
			cpuset_clear(&m->fail_prone, from);
	}
	if (s.best != VP_PU_NONE)
		*ret_reason = s.best_busy ? VP_REASON_IDLE_SIBLING :
		    VP_REASON_IDLE_CORE;
	return s.best;
}

/*
 * The kernel's select_idle_core() for one core: probes its PUs, noting
 * the first idle allowed one in *idle_pu, and gives up on the first busy
 * PU once it has such a fallback.  Returns @pu if the core is all idle.
 */
static int
linear_idle_core(struct vp_view *v, int pu, const struct vp_cpuset *allowed,
    int *idle_pu)
{
	const struct vp_core *c = &v->topo->core[v->topo->pu[pu].core];
	bool idle = true;
	int s;

	for (s = c->first_pu; s < c->first_pu + c->npus; s++) {
		if (!view_probe_idle(v, s)) {
			idle = false;
			if (*idle_pu != VP_PU_NONE)
				break;
			continue;
		}
		if (*idle_pu == VP_PU_NONE && cpuset_test(allowed, s))
			*idle_pu = s;
	}
	return idle ? pu : VP_PU_NONE;
}

int
scan_linear(struct vp_view *v, int llc, int target,
    const struct vp_cpuset *allowed, enum vp_reason *ret_reason)
{
	const struct vp_topo *t = v->topo;
	const struct vp_llc *l = &t->llc[llc];
	bool idle_core = v->idle->has_idle_core[llc];
	int k, pu, start = 0, idle_pu = VP_PU_NONE;
	struct vp_cpuset done;

	if (target >= l->first_pu && target < l->first_pu + l->npus)
		start = t->pu_os_pos[target] + 1;
	if (idle_core)
		cpuset_zero(&done);
	for (k = 0; k < l->npus; k++) {
		pu = l->os_order[(start + k) % l->npus];
		if (!cpuset_test(allowed, pu))
			continue;
		if (!idle_core) {
			if (!view_probe_idle(v, pu))
				continue;
			*ret_reason = t->core[t->pu[pu].core].npus > 1 ?
			    VP_REASON_IDLE_PU : VP_REASON_IDLE_CORE;
			return pu;
		}
		if (cpuset_test(&done, pu))
			continue;
		topo_add_core(t, pu, &done);
		if (linear_idle_core(v, pu, allowed, &idle_pu) != VP_PU_NONE) {
			*ret_reason = VP_REASON_IDLE_CORE;
			return pu;
		}
	}
	if (!idle_core)
		return VP_PU_NONE;
	/* Failed to find an idle core: stop looking for one. */
	v->idle->has_idle_core[llc] = false;
	if (idle_pu != VP_PU_NONE)
		*ret_reason = VP_REASON_IDLE_SIBLING;
	return idle_pu;
}
