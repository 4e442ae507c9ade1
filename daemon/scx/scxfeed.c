/*
 * scxfeed.c - what the BPF scheduler reads, made from the model:
 * one vp_pus entry per PU, one vp_doms entry per wake domain, one
 * vp_vcpus entry per managed vCPU thread, and the feature bits
 * (layouts: daemon/scx/vcpuplace_scx.h).  Pure: no BPF, no state, so the
 * unit tests check them on real topology files.
 *
 * Everything the BPF side sees is in OS CPU numbers (it has no other),
 * and every domain by a domain id: the clusters first, then the LLCs,
 * the NUMA nodes and the packages, each level's dense indices packed
 * after the previous level's (scxfeed_dom_id()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scx/scxfeed.h"

/* A core priority the BPF side can divide by: unknown counts as best. */
static unsigned int
prio_of(const struct vp_topo *t, int pu)
{
	return t->pu[pu].prio ? t->pu[pu].prio : 1024;
}

uint32_t
scxfeed_features(const struct vp_features *f)
{
	uint32_t bits = VP_SCX_FEAT_HOME;	/* no switch in the core */

	if (feat(f, SIS_CORE))
		bits |= VP_SCX_FEAT_SIS_CORE;
	if (feat(f, CLUSTER_FIRST))
		bits |= VP_SCX_FEAT_CLUSTER_FIRST;
	if (feat(f, SMT_PRIO))
		bits |= VP_SCX_FEAT_SMT_PRIO;
	if (feat(f, SIS_CACHE))
		bits |= VP_SCX_FEAT_SIS_CACHE;
	if (feat(f, SOON_IDLE))
		bits |= VP_SCX_FEAT_SOON_IDLE;
	if (feat(f, HOST_PACK))
		bits |= VP_SCX_FEAT_HOST_PACK;
	if (feat(f, POLL_END))
		bits |= VP_SCX_FEAT_POLL_END;
	if (feat(f, YIELD_TO))
		bits |= VP_SCX_FEAT_YIELD_TO;
	if (feat(f, STAY_PREV))
		bits |= VP_SCX_FEAT_STAY_PREV;
	if (feat(f, JOIN_WAKER))
		bits |= VP_SCX_FEAT_JOIN_WAKER;
	if (feat(f, LLC_FIRST))
		bits |= VP_SCX_FEAT_LLC_FIRST;
	if (feat(f, RESUME_PREV))
		bits |= VP_SCX_FEAT_RESUME_PREV;
	/* FAIL_PRONE has no BPF side: sched_ext's idle masks are exact */
	return bits;
}

unsigned int
scxfeed_dom_id(const struct vp_topo *t, enum vp_level l, int index)
{
	unsigned int base = 0;
	enum vp_level m;

	for (m = 0; m < l; m++)
		base += (unsigned int)wakedom_count(t, m);
	return base + (unsigned int)index;
}

unsigned int
scxfeed_ndoms(const struct vp_topo *t)
{
	return scxfeed_dom_id(t, VP_LEVEL_COUNT, 0);
}

int
scxfeed_dom_of(const struct vp_topo *t, unsigned int id,
    enum vp_level *ret_level, int *ret_index)
{
	enum vp_level l;

	for (l = 0; l < VP_LEVEL_COUNT; l++) {
		unsigned int n = (unsigned int)wakedom_count(t, l);

		if (id < n) {
			*ret_level = l;
			*ret_index = (int)id;
			return 0;
		}
		id -= n;
	}
	return -ERANGE;
}

int
scxfeed_topo_fits(const struct vp_topo *t, char *why, size_t len)
{
	struct vp_cpuset s;
	enum vp_level l;
	int c, i, n;

	if (t->os_limit > VP_SCX_MAX_CPUS) {
		snprintf(why, len, "CPU %u is above the BPF tables' last "
		    "CPU id, %d", t->os_limit - 1, VP_SCX_MAX_CPUS - 1);
		return -E2BIG;
	}
	if (scxfeed_ndoms(t) > VP_SCX_MAX_DOMS) {
		snprintf(why, len, "%u wake domains, more than the BPF "
		    "tables' %d", scxfeed_ndoms(t), VP_SCX_MAX_DOMS);
		return -E2BIG;
	}
	for (c = 0; c < t->ncores; c++)
		if (t->core[c].npus - 1 > VP_SCX_MAX_SMT) {
			snprintf(why, len, "a core of %d threads, more than "
			    "the BPF tables' %d siblings", t->core[c].npus,
			    VP_SCX_MAX_SMT);
			return -E2BIG;
		}
	for (l = 0; l < VP_LEVEL_COUNT; l++)
		for (i = 0; i < wakedom_count(t, l); i++) {
			wakedom_pus(t, l, i, &s);
			if ((n = cpuset_count(&s)) > VP_SCX_DOM_CPUS) {
				snprintf(why, len, "%s %d has %d CPUs, more "
				    "than a BPF wake domain's %d",
				    wakedom_level_name(l), i, n,
				    VP_SCX_DOM_CPUS);
				return -E2BIG;
			}
		}
	return 0;
}

void
scxfeed_pu(const struct vp_topo *t, int pu, struct vp_scx_pu *ret)
{
	const struct vp_core *core = &t->core[t->pu[pu].core];
	struct vp_scx_pu e;
	int i;

	memset(&e, 0, sizeof(e));
	e.prio = prio_of(t, pu);
	e.cluster_dom = scxfeed_dom_id(t, VP_LEVEL_CLUSTER, t->pu[pu].cluster);
	e.llc_dom = scxfeed_dom_id(t, VP_LEVEL_LLC, t->pu[pu].llc);
	e.llc_first = scxfeed_dom_id(t, VP_LEVEL_LLC, 0);
	e.nllcs = (__u32)wakedom_count(t, VP_LEVEL_LLC);
	/* a core's PUs are a contiguous dense range */
	for (i = core->first_pu; i < core->first_pu + core->npus &&
	    e.nsib < VP_SCX_MAX_SMT; i++)
		if (i != pu)
			e.sib[e.nsib++] = (__s32)t->pu[i].os_index;
	e.valid = 1;
	*ret = e;
}

int
scxfeed_dom(const struct vp_topo *t, enum vp_level l, int index,
    struct vp_scx_dom *ret)
{
	struct vp_cpuset s;
	int pu;

	wakedom_pus(t, l, index, &s);
	if (cpuset_count(&s) > VP_SCX_DOM_CPUS)
		return -E2BIG;
	memset(ret, 0, sizeof(*ret));
	/* dense order keeps each core's PUs together: core by core */
	cpuset_for_each(pu, &s, t->npus) {
		ret->cpu[ret->ncpus++] = (__s32)t->pu[pu].os_index;
		if (prio_of(t, pu) > ret->max_prio)
			ret->max_prio = prio_of(t, pu);
	}
	return 0;
}

/* The id of the domain around @pu, widened from @from for @ncores. */
static unsigned int
widened(const struct vp_topo *t, int pu, enum vp_level from, int ncores)
{
	enum vp_level l = wakedom_widen(t, pu, from, ncores);

	return scxfeed_dom_id(t, l, wakedom_index(t, pu, l));
}

void
scxfeed_vcpu(const struct vp_topo *t, const struct scxfeed_vcpu_in *in,
    struct vp_scx_vcpu *ret)
{
	const struct vp_policy *pol = in->policy;
	struct vp_scx_vcpu e;
	int anchor = in->home != VP_PU_NONE ? in->home :
	    in->anchor != VP_PU_NONE ? in->anchor : 0;
	int n = wakedom_cores_needed(t, in->policy->smt, in->nvcpus, anchor);
	enum vp_level stay;

	memset(&e, 0, sizeof(e));
	e.home = in->home != VP_PU_NONE ? (__s32)t->pu[in->home].os_index : -1;
	e.near_dom = widened(t, anchor, VP_LEVEL_CLUSTER, n);
	e.far_dom = widened(t, anchor, VP_LEVEL_LLC, n);
	if (pol->cache_hot) {
		e.flags |= VP_SCX_F_CACHE_HOT;
		e.short_sleep_ns = in->short_sleep_ns;
	}
	if (pol->smt == VP_SMT_ISOLATE)
		e.flags |= VP_SCX_F_SMT_ISOLATE;
	else if (pol->smt == VP_SMT_ANY)
		e.flags |= VP_SCX_F_SMT_ANY;
	/* the latency profile's priority: it may preempt on a wake-up */
	if (pol->priority == VP_PRIO_HIGH)
		e.flags |= VP_SCX_F_LATENCY;
	/*
	 * The locality's domain bounds every wake-up: the one the planner
	 * gives the vCPU as its allowed set (wakedom_locality_level()).
	 * With no home there is nothing to stay near.
	 */
	stay = wakedom_locality_level(t, anchor, pol->locality, n);
	if (stay < VP_LEVEL_COUNT && in->home != VP_PU_NONE) {
		e.flags |= VP_SCX_F_STAY_FAR_DOM;
		e.far_dom = scxfeed_dom_id(t, stay,
		    wakedom_index(t, anchor, stay));
	}
	e.vm = (__u32)in->vm;
	e.vcpu = (__u32)in->vcpu;
	*ret = e;
}

bool
scxfeed_vcpu_equal(const struct vp_scx_vcpu *a, const struct vp_scx_vcpu *b)
{
	return a->home == b->home && a->near_dom == b->near_dom &&
	    a->far_dom == b->far_dom && a->flags == b->flags &&
	    a->short_sleep_ns == b->short_sleep_ns && a->vm == b->vm &&
	    a->vcpu == b->vcpu;
}

int
scxfeed_topology(struct scx_sched *s, const struct vp_topo *t,
    unsigned int cpu_limit, const struct scxfeed_writer *w)
{
	static const struct scxfeed_writer loader = { scx_pu_set, scx_dom_set };
	/* static: a domain is 2 KiB */
	static struct vp_scx_dom dom;
	struct vp_scx_pu pu;
	unsigned int cpu;
	enum vp_level l;
	char why[160];
	int i, err;

	if (!w)
		w = &loader;
	if ((err = scxfeed_topo_fits(t, why, sizeof(why))) < 0)
		return err;
	if (cpu_limit < t->os_limit)
		cpu_limit = t->os_limit;
	for (cpu = 0; cpu < cpu_limit; cpu++) {
		i = topo_pu_of_os(t, cpu);
		if (i != VP_PU_NONE)
			scxfeed_pu(t, i, &pu);
		else
			memset(&pu, 0, sizeof(pu));	/* valid 0 */
		if ((err = w->pu_set(s, (int)cpu, &pu)))
			return err;
	}
	for (l = 0; l < VP_LEVEL_COUNT; l++)
		for (i = 0; i < wakedom_count(t, l); i++)
			if ((err = scxfeed_dom(t, l, i, &dom)) ||
			    (err = w->dom_set(s, scxfeed_dom_id(t, l, i),
			    &dom)))
				return err;
	return 0;
}

int
scxfeed_pushed_cmp(const void *a, const void *b)
{
	int x = ((const struct vp_scx_pushed *)a)->tid;
	int y = ((const struct vp_scx_pushed *)b)->tid;

	return (x > y) - (x < y);
}

const struct vp_scx_pushed *
scxfeed_pushed_find(const struct vp_scx_pushed *p, int n, int tid)
{
	struct vp_scx_pushed key = { .tid = tid };

	if (!n)
		return NULL;
	return bsearch(&key, p, (size_t)n, sizeof(*p), scxfeed_pushed_cmp);
}

int
scxfeed_diff(const struct vp_scx_pushed *old, int nold,
    const struct vp_scx_pushed *want, int nwant, struct vp_scx_act *ret)
{
	int i = 0, j = 0, n = 0;

#define ACT(k, t, w) (ret[n++] = (struct vp_scx_act){ (k), (t), (w) })
	while (i < nold || j < nwant) {
		if (j == nwant || (i < nold && old[i].tid < want[j].tid)) {
			/* gone: its VM, its policy's placement, or its tid */
			if (old[i].ext)
				ACT(VP_SCX_EXT_OFF, old[i].tid, -1);
			ACT(VP_SCX_DEL, old[i].tid, -1);
			i++;
		} else if (i == nold || want[j].tid < old[i].tid) {
			ACT(VP_SCX_SET, want[j].tid, j);
			ACT(VP_SCX_EXT_ON, want[j].tid, j);
			j++;
		} else {
			if (!scxfeed_vcpu_equal(&old[i].e, &want[j].e))
				ACT(VP_SCX_SET, want[j].tid, j);
			if (!old[i].ext)	/* a move that failed: again */
				ACT(VP_SCX_EXT_ON, want[j].tid, j);
			i++;
			j++;
		}
	}
#undef ACT
	return n;
}
