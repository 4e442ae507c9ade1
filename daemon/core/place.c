/*
 * place.c - the placement decision for one vCPU wake-up: an ordered list
 * of tries, cheapest first, like the kernel's select_idle_sibling().
 */
#include <errno.h>
#include <stdlib.h>

#include "core/vcpuplace.h"

static bool
valid_in(const struct vp_view *v, int pu, const struct vp_cpuset *allowed)
{
	return pu >= 0 && pu < v->topo->npus && cpuset_test(allowed, pu);
}

/* Probes @pu's siblings, stopping at the first busy one. */
static bool
any_sibling_busy(struct vp_view *v, int pu)
{
	const struct vp_core *c = &v->topo->core[v->topo->pu[pu].core];
	int s;

	for (s = c->first_pu; s < c->first_pu + c->npus; s++)
		if (s != pu && !view_probe_idle(v, s))
			return true;
	return false;
}

/*
 * The home PU when it is allowed and idle; but with SIS_CORE and
 * SMT_PRIO, an idle home whose SMT sibling is busy loses to a whole idle
 * core of its LLC (the has_idle_core hint says one may exist), as in the
 * kernel series' patch 3.  Taking it would give the vCPU half a core
 * while a whole one idles: the simulator measured a third of
 * hackbench's wake-ups doing just that.
 */
static int
select_home_pu(struct vp_view *v, const struct vp_place_req *r)
{
	if (!valid_in(v, r->home, r->allowed) || !view_probe_idle(v, r->home))
		return VP_PU_NONE;
	if (r->smt == VP_SMT_PREFER_IDLE_CORE && feat(v->feat, SIS_CORE) &&
	    feat(v->feat, SMT_PRIO) &&
	    v->idle->has_idle_core[v->topo->pu[r->home].llc] &&
	    any_sibling_busy(v, r->home))
		return VP_PU_NONE;
	return r->home;
}

/*
 * SIS_CACHE (seed 001, doc/seeds.md): a vCPU that slept less than its
 * usual short sleep still has a warm L1/L2 where it last ran; if that PU
 * is idle, going back beats any colder idle core.
 */
static int
select_cache_hot_pu(struct vp_view *v, const struct vp_place_req *r)
{
	if (!feat(v->feat, SIS_CACHE) || !r->cache_hot)
		return VP_PU_NONE;
	if (!r->short_sleep_ns || r->slept_ns >= r->short_sleep_ns)
		return VP_PU_NONE;
	if (r->prev == r->home || !valid_in(v, r->prev, r->allowed))
		return VP_PU_NONE;
	return view_probe_idle(v, r->prev) ? r->prev : VP_PU_NONE;
}

/* The PU a scan is anchored on: home, else prev, else first allowed. */
static int
pick_anchor(const struct vp_view *v, const struct vp_place_req *r)
{
	if (valid_in(v, r->home, r->allowed))
		return r->home;
	if (r->home >= 0 && r->home < v->topo->npus)
		return r->home;		/* its LLC still leads the search */
	if (valid_in(v, r->prev, r->allowed))
		return r->prev;
	return cpuset_next(r->allowed, 0, v->topo->npus);
}

/*
 * The allowed LLCs other than @home_llc, nearest first: the same
 * package before others, then by index distance.
 */
static int
select_other_llc(struct vp_view *v, const struct vp_place_req *r,
    int home_llc, enum vp_reason *ret_reason)
{
	const struct vp_topo *t = v->topo;
	int pass, d, pu, i;
	enum vp_reason why;

	for (pass = 0; pass < 2; pass++)
		for (d = 1; d < t->nllcs; d++)
			for (i = home_llc - d; i <= home_llc + d; i += 2 * d) {
				const struct vp_llc *l;

				if (i < 0 || i >= t->nllcs)
					continue;
				l = &t->llc[i];
				if ((l->package == t->llc[home_llc].package) ==
				    (pass == 1))
					continue;
				if (!cpuset_intersects_range(r->allowed,
				    l->first_pu, l->npus))
					continue;
				pu = scan_core(v, i, VP_PU_NONE, r->allowed,
				    r->smt, &why);
				if (pu != VP_PU_NONE) {
					*ret_reason = VP_REASON_OTHER_LLC;
					return pu;
				}
			}
	return VP_PU_NONE;
}

/*
 * Nothing idle anywhere allowed: stay home if allowed, else where it
 * was, else the first allowed PU.  Never outside @allowed.
 */
static int
select_fallback_pu(const struct vp_view *v, const struct vp_place_req *r)
{
	if (valid_in(v, r->home, r->allowed))
		return r->home;
	if (valid_in(v, r->prev, r->allowed))
		return r->prev;
	return cpuset_next(r->allowed, 0, v->topo->npus);
}

int
place_select(struct vp_view *v, const struct vp_place_req *r,
    struct vp_place_res *ret)
{
	unsigned long probes0 = v->probes;
	enum vp_reason why = VP_REASON_NONE;
	int pu, anchor, llc;

	if (!r->allowed || !cpuset_intersects(r->allowed, &v->topo->all))
		return -EINVAL;
	if ((pu = select_home_pu(v, r)) != VP_PU_NONE) {
		why = VP_REASON_HOME_IDLE;
		goto found;
	}
	if ((pu = select_cache_hot_pu(v, r)) != VP_PU_NONE) {
		why = VP_REASON_CACHE_HOT;
		goto found;
	}
	anchor = pick_anchor(v, r);
	llc = v->topo->pu[anchor].llc;
	if (cpuset_intersects_range(r->allowed, v->topo->llc[llc].first_pu,
	    v->topo->llc[llc].npus)) {
		pu = scan_core(v, llc, anchor, r->allowed, r->smt, &why);
		if (pu != VP_PU_NONE)
			goto found;
	}
	if (!r->llc_only &&
	    (pu = select_other_llc(v, r, llc, &why)) != VP_PU_NONE)
		goto found;
	pu = select_fallback_pu(v, r);
	why = VP_REASON_FALLBACK;
found:
	ret->pu = pu;
	ret->reason = why;
	ret->probes = v->probes - probes0;
	return 0;
}
