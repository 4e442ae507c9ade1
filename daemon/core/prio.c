/*
 * prio.c - SMT-aware priority (seed 002: a kernel thread, doc/seeds.md).
 *
 * A core of priority P gives a thread all of P when its siblings are
 * idle and about P/2 when one sibling runs too.  So a PU is worth its
 * core's priority over one plus its busy siblings: N*P, N*P/2, ... in
 * the seed's per-thread terms.  With an idle E-core at 614 and a P-core
 * at 1024 (see hwtopo.c), the order is idle P-core 1024 > idle E-core
 * 614 > idle sibling of a busy P-core 512, which is what the seed fixed
 * in the load balancer and what we want at wake-up.
 */
#include "core/vcpuplace.h"

int
prio_busy_siblings(struct vp_view *v, int pu)
{
	const struct vp_core *c = &v->topo->core[v->topo->pu[pu].core];
	int s, n = 0;

	for (s = c->first_pu; s < c->first_pu + c->npus; s++)
		if (s != pu && !view_probe_idle(v, s))
			n++;
	return n;
}

unsigned int
prio_weigh(const struct vp_view *v, int pu, int busy_siblings)
{
	unsigned int p = v->topo->pu[pu].prio;

	if (!feat(v->feat, SMT_PRIO))
		return p;
	return p / (1 + (unsigned int)busy_siblings);
}

unsigned int
prio_score(struct vp_view *v, int pu)
{
	if (!feat(v->feat, SMT_PRIO))
		return v->topo->pu[pu].prio;
	return prio_weigh(v, pu, prio_busy_siblings(v, pu));
}
