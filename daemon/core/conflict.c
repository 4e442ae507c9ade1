/*
 * conflict.c - SMT conflicts: a busy vCPU sharing a core with other busy
 * work while a whole idle core was allowed to it.  Two busy siblings
 * share one core's pipelines and caches, so this is the waste placement
 * exists to avoid; metrics and status count it.
 */
#include "core/vcpuplace.h"

void
conflict_idle_core_pus(const struct vp_topo *t, const struct vp_cpuset *busy,
    struct vp_cpuset *ret)
{
	int c;

	cpuset_zero(ret);
	for (c = 0; c < t->ncores; c++) {
		const struct vp_core *core = &t->core[c];

		if (!cpuset_intersects_range(busy, core->first_pu, core->npus))
			cpuset_set_range(ret, core->first_pu, core->npus);
	}
}

/* Some PU of @pu's core other than @pu is in @busy. */
static bool
sibling_busy(const struct vp_topo *t, const struct vp_cpuset *busy, int pu)
{
	const struct vp_core *c = &t->core[t->pu[pu].core];
	int s;

	for (s = c->first_pu; s < c->first_pu + c->npus; s++)
		if (s != pu && cpuset_test(busy, s))
			return true;
	return false;
}

bool
conflict_vcpu(const struct vp_topo *t, const struct vp_cpuset *busy,
    const struct vp_cpuset *idle_cores, const struct vp_conflict_vcpu *v)
{
	return v->busy && v->current != VP_PU_NONE &&
	    sibling_busy(t, busy, v->current) &&
	    cpuset_intersects(v->allowed, idle_cores);
}
