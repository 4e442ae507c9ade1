/*
 * budget.c - the host's budget of exclusive cores: how many cores
 * dedicated and isolated VMs may hold together, and how many whole cores
 * always stay in the shared pool.  The planner asks before each claim.
 */
#include "core/vcpuplace.h"

void
budget_default(struct vp_budget *ret)
{
	ret->exclusive_max_pct = VP_BUDGET_EXCLUSIVE_MAX_PCT;
	ret->shared_min_cores = VP_BUDGET_SHARED_MIN_CORES;
}

/* Cores of @t with no PU in @reserved: the cores VMs can have. */
static unsigned int
vm_cores(const struct vp_topo *t, const struct vp_cpuset *reserved)
{
	unsigned int n = 0;
	int c;

	for (c = 0; c < t->ncores; c++)
		n += !reserved || !cpuset_intersects_range(reserved,
		    t->core[c].first_pu, t->core[c].npus);
	return n;
}

unsigned int
budget_max_cores(const struct vp_topo *t, const struct vp_cpuset *reserved,
    const struct vp_budget *b)
{
	unsigned int pct = b->exclusive_max_pct > 100 ? 100 :
	    b->exclusive_max_pct;

	return vm_cores(t, reserved) * pct / 100;
}

bool
budget_allows(const struct vp_topo *t, const struct vp_cpuset *reserved,
    const struct vp_budget *b, const struct vp_cpuset *exclusive,
    const struct vp_cpuset *pool, unsigned int *ret_cores)
{
	unsigned int held = 0, whole = 0;
	int c;

	for (c = 0; c < t->ncores; c++) {
		const struct vp_core *core = &t->core[c];

		held += cpuset_intersects_range(exclusive, core->first_pu,
		    core->npus);
		whole += cpuset_count_range(pool, core->first_pu,
		    core->npus) == core->npus;
	}
	*ret_cores = held;
	return held <= budget_max_cores(t, reserved, b) &&
	    whole >= b->shared_min_cores;
}
