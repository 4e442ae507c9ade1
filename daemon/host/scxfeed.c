/* scxfeed.c - see scxfeed.h. */
#include <errno.h>
#include <string.h>

#include "host/scxfeed.h"

/* A PU whose priority no source gave still needs one the scans can
 * compare: all equal, as the kernel's default capacity. */
#define SCXFEED_PRIO_DEFAULT 1024

int
scxfeed_pu(const struct vp_topo *t, int pu, struct vp_scx_pu *ret)
{
	const struct vp_pu *p = &t->pu[pu];
	const struct vp_core *c = &t->core[p->core];
	struct vp_scx_pu e;
	int s;

	if (c->npus - 1 > VP_SCX_MAX_SMT || p->os_index >= VP_SCX_MAX_CPUS)
		return -ERANGE;
	memset(&e, 0, sizeof(e));
	e.prio = p->prio ? p->prio : SCXFEED_PRIO_DEFAULT;
	e.cluster = (__u32)p->cluster;
	e.llc = (__u32)p->llc;
	e.llc_dom = scxfeed_dom_id(t, VP_LEVEL_LLC, p->llc);
	for (s = 0; s < VP_SCX_MAX_SMT; s++)
		e.sib[s] = -1;
	for (s = c->first_pu; s < c->first_pu + c->npus; s++)
		if (s != pu)
			e.sib[e.nsib++] = (__s32)t->pu[s].os_index;
	e.valid = 1;
	*ret = e;
	return 0;
}

int
scxfeed_dom(const struct vp_topo *t, enum vp_level l, int index,
    struct vp_scx_dom *ret)
{
	int pu;

	/* dense PU order is core by core, so the list is too */
	memset(ret, 0, sizeof(*ret));
	for (pu = 0; pu < t->npus; pu++) {
		if (wakedom_index(t, pu, l) != index)
			continue;
		if (ret->ncpus == VP_SCX_DOM_CPUS ||
		    t->pu[pu].os_index >= VP_SCX_MAX_CPUS)
			return -ERANGE;
		ret->cpu[ret->ncpus++] = (__s32)t->pu[pu].os_index;
		if (t->pu[pu].prio > ret->max_prio)
			ret->max_prio = t->pu[pu].prio;
	}
	if (!ret->max_prio)
		ret->max_prio = SCXFEED_PRIO_DEFAULT;
	return 0;
}

unsigned int
scxfeed_dom_id(const struct vp_topo *t, enum vp_level l, int index)
{
	unsigned int base = 0;
	enum vp_level k;

	for (k = 0; k < l; k++)
		base += (unsigned int)wakedom_count(t, k);
	return base + (unsigned int)index;
}

bool
scxfeed_fits(const struct vp_topo *t)
{
	return scxfeed_dom_id(t, VP_LEVEL_COUNT, 0) <= VP_SCX_MAX_DOMS;
}

int
scxfeed_topology(struct scx_sched *s, const struct vp_topo *t)
{
	/* static: a domain is 2 KiB, too big for the daemon's stack habits */
	static struct vp_scx_dom dom;
	struct vp_scx_pu pu;
	enum vp_level l;
	int i, err;

	if (!scxfeed_fits(t))
		return -ERANGE;
	for (i = 0; i < t->npus; i++) {
		if ((err = scxfeed_pu(t, i, &pu)) ||
		    (err = scx_pu_set(s, (int)t->pu[i].os_index, &pu)))
			return err;
	}
	for (l = 0; l < VP_LEVEL_COUNT; l++)
		for (i = 0; i < wakedom_count(t, l); i++) {
			if ((err = scxfeed_dom(t, l, i, &dom)) ||
			    (err = scx_dom_set(s, scxfeed_dom_id(t, l, i),
			    &dom)))
				return err;
		}
	return 0;
}

int
scxfeed_cores_needed(const struct vp_topo *t, int nvcpus,
    const struct vp_policy *p)
{
	if (p->smt == VP_SMT_SIBLINGS && t->max_smt > 1)
		return (nvcpus + t->max_smt - 1) / t->max_smt;
	return nvcpus;
}

/* The level a policy's locality keeps wake-ups in, or -1: anywhere. */
static int
locality_level(enum vp_locality loc)
{
	switch (loc) {
	case VP_LOC_CLUSTER:
		return VP_LEVEL_CLUSTER;
	case VP_LOC_LLC:
		return VP_LEVEL_LLC;
	case VP_LOC_NUMA:
		return VP_LEVEL_NODE;
	default:
		return -1;
	}
}

void
scxfeed_vcpu(const struct vp_topo *t, int home, int nvcpus,
    const struct vp_policy *p, uint64_t short_sleep_ns,
    struct vp_scx_vcpu *ret)
{
	int ncores = scxfeed_cores_needed(t, nvcpus, p);
	int anchor = home >= 0 && home < t->npus ? home : 0;
	int stay = locality_level(p->locality);
	enum vp_level near, far;
	struct vp_scx_vcpu e;

	memset(&e, 0, sizeof(e));
	e.home = home >= 0 && home < t->npus ?
	    (__s32)t->pu[home].os_index : -1;
	near = wakedom_widen(t, anchor, VP_LEVEL_CLUSTER, ncores);
	far = wakedom_widen(t, anchor, stay > VP_LEVEL_LLC ?
	    (enum vp_level)stay : VP_LEVEL_LLC, ncores);
	if (stay >= 0)
		e.flags |= VP_SCX_F_STAY_FAR_DOM;
	/* locality=cluster: the near domain is as far as it goes */
	if (stay == VP_LEVEL_CLUSTER)
		far = near;
	e.near_dom = scxfeed_dom_id(t, near, wakedom_index(t, anchor, near));
	e.far_dom = scxfeed_dom_id(t, far, wakedom_index(t, anchor, far));
	if (p->cache_hot)
		e.flags |= VP_SCX_F_CACHE_HOT;
	if (p->smt == VP_SMT_ISOLATE)
		e.flags |= VP_SCX_F_SMT_ISOLATE;
	/* siblings: the plan packed the homes; a wake-up takes any idle PU */
	if (p->smt == VP_SMT_ANY || p->smt == VP_SMT_SIBLINGS)
		e.flags |= VP_SCX_F_SMT_ANY;
	e.short_sleep_ns = short_sleep_ns;
	*ret = e;
}

uint32_t
scxfeed_features(const struct vp_features *f)
{
	uint32_t bits = VP_SCX_FEAT_HOME;

	if (feat(f, SOON_IDLE))
		bits |= VP_SCX_FEAT_SOON_IDLE;
	if (feat(f, HOST_PACK))
		bits |= VP_SCX_FEAT_HOST_PACK;

	if (feat(f, SIS_CORE))
		bits |= VP_SCX_FEAT_SIS_CORE;
	if (feat(f, CLUSTER_FIRST))
		bits |= VP_SCX_FEAT_CLUSTER_FIRST;
	if (feat(f, SMT_PRIO))
		bits |= VP_SCX_FEAT_SMT_PRIO;
	if (feat(f, SIS_CACHE))
		bits |= VP_SCX_FEAT_SIS_CACHE;
	return bits;
}
