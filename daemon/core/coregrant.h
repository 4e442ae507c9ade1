/*
 * coregrant.h - core grants: a userspace-only placement for a stock
 * kernel.  At each tick, from what /proc/<tid>/schedstat and
 * /proc/<tid>/stat tell about the last tick, each busy vCPU (or busy VM)
 * gets whole cores of its planner's allowed set as its own allowed set
 * while cores last; the others share what is left.  Pure: no I/O.
 */
#ifndef COREGRANT_H
#define COREGRANT_H

#include <stdint.h>

#include "core/vcpuplace.h"

/* One vCPU thread over the last tick, as userspace reads it. */
struct vp_grant_stat {
	uint64_t run_ns;	/* schedstat field 1 (on a CPU), delta */
	uint64_t wait_ns;	/* schedstat field 2 (runnable, waiting) */
	uint64_t slices;	/* schedstat field 3 (times it ran), delta */
	int last_pu;		/* stat field 39 (processor), or VP_PU_NONE */
};

struct vp_grant_cfg {
	uint64_t tick_ns;	/* the interval the deltas cover */
	unsigned int busy_pct;	/* busy: ran more than this % of the tick */
	uint64_t wait_ns;	/* or waited more than this per slice */
};

/*
 * Plans @n vCPUs.  pool[i] is vCPU i's allowed set from the planner;
 * group[i] its VM (NULL: each vCPU on its own).  A busy group gets
 * round(its demand) whole cores, at most one per vCPU, shared by its
 * vCPUs.  core[i] is a core granted to vCPU i's group at the previous
 * tick (-1: none), and on return one granted now.  allowed[i] gets its
 * new allowed set: its group's granted cores, or pool[i] without any
 * granted core (or pool[i] itself if nothing else is left).  Returns the
 * number of cores granted, or -EINVAL.
 */
int coregrant_plan(const struct vp_topo *t, const struct vp_grant_cfg *cfg,
    const struct vp_grant_stat *st, const int *group,
    const struct vp_cpuset *pool, int n, int *core,
    struct vp_cpuset *allowed) VP_MUST_CHECK;

/* True when @st shows a busy vCPU under @cfg. */
bool coregrant_busy(const struct vp_grant_cfg *cfg,
    const struct vp_grant_stat *st);

#endif /* COREGRANT_H */
