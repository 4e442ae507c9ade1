/*
 * idlemask.c - SIS_CORE (seed 000): per-LLC masks of idle PUs at core
 * granule, plus each LLC's has_idle_core hint.  The seeds, the kernel
 * threads the wake rules come from, are listed in doc/seeds.md.
 *
 * The masks are a hint, not the truth.  A PU enters when it goes idle
 * and leaves only when a scan probes it and finds it busy, as in the
 * kernel, where clearing on every enqueue would cost a shared cache
 * line write per context switch.  The daemon, which samples every PU
 * each tick anyway, rebuilds them exactly instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/vcpuplace.h"

int
idlemask_init(struct vp_idlemask *m, const struct vp_topo *t)
{
	memset(m, 0, sizeof(*m));
	m->has_idle_core = calloc(t->nllcs, sizeof(*m->has_idle_core));
	if (!m->has_idle_core)
		return -ENOMEM;
	m->nllcs = t->nllcs;
	return 0;
}

void
idlemask_release(struct vp_idlemask *m)
{
	free(m->has_idle_core);
	m->has_idle_core = NULL;
	m->nllcs = 0;
}

void
idlemask_pu_idle(struct vp_idlemask *m, const struct vp_topo *t, int pu,
    const struct vp_cpuset *busy)
{
	const struct vp_core *c;

	if (pu < 0 || pu >= t->npus)
		return;
	c = &t->core[t->pu[pu].core];
	/* Core granule: one PU per core is enough to find the core. */
	if (!cpuset_intersects_range(&m->mask, c->first_pu, c->npus))
		cpuset_set(&m->mask, pu);
	if (!cpuset_intersects_range(busy, c->first_pu, c->npus))
		m->has_idle_core[c->llc] = true;
}

void
idlemask_rebuild(struct vp_idlemask *m, const struct vp_topo *t,
    const struct vp_cpuset *busy)
{
	int i, pu;

	cpuset_zero(&m->mask);
	memset(m->has_idle_core, 0, m->nllcs * sizeof(*m->has_idle_core));
	for (i = 0; i < t->ncores; i++) {
		const struct vp_core *c = &t->core[i];

		for (pu = c->first_pu; pu < c->first_pu + c->npus; pu++)
			if (!cpuset_test(busy, pu))
				break;
		if (pu == c->first_pu + c->npus)
			continue;
		cpuset_set(&m->mask, pu);
		if (!cpuset_intersects_range(busy, c->first_pu, c->npus))
			m->has_idle_core[c->llc] = true;
	}
}
