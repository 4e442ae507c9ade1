/*
 * wakedom.c - the domains a vCPU's wake-up searches, and how far they
 * widen.
 *
 * The natural wake domains are the home cluster and the home LLC.  Some
 * hosts have an LLC of one core (a per-core L3 or L2) or two (KNL's
 * tile, POWER9's core pair).  There, keeping a VM's wake-ups inside "its
 * LLC" stacks its vCPUs on SMT siblings while the rest of the package
 * idles.  So a domain that cannot give each vCPU a core of its own is
 * widened to the next level that can: cluster, LLC, NUMA node, package.
 */
#include "core/vcpuplace.h"

static const char *const level_names[VP_LEVEL_COUNT] = {
	[VP_LEVEL_CLUSTER] = "cluster",
	[VP_LEVEL_LLC] = "llc",
	[VP_LEVEL_NODE] = "node",
	[VP_LEVEL_PACKAGE] = "package",
};

const char *
wakedom_level_name(enum vp_level l)
{
	return (unsigned int)l < VP_LEVEL_COUNT ? level_names[l] : "?";
}

int
wakedom_count(const struct vp_topo *t, enum vp_level l)
{
	switch (l) {
	case VP_LEVEL_CLUSTER:
		return t->nclusters;
	case VP_LEVEL_LLC:
		return t->nllcs;
	case VP_LEVEL_NODE:
		return t->nnodes;
	case VP_LEVEL_PACKAGE:
		return t->npackages;
	default:
		return 0;
	}
}

int
wakedom_index(const struct vp_topo *t, int pu, enum vp_level l)
{
	const struct vp_pu *p = &t->pu[pu];

	switch (l) {
	case VP_LEVEL_CLUSTER:
		return p->cluster;
	case VP_LEVEL_LLC:
		return p->llc;
	case VP_LEVEL_NODE:
		return p->node;
	case VP_LEVEL_PACKAGE:
		return p->package;
	default:
		return -1;
	}
}

/*
 * Nodes need not be contiguous in the dense PU order (the keys nest
 * package > LLC > cluster > core, not nodes), so every level is matched
 * PU by PU rather than by range.
 */
void
wakedom_pus(const struct vp_topo *t, enum vp_level l, int index,
    struct vp_cpuset *ret)
{
	int pu;

	cpuset_zero(ret);
	for (pu = 0; pu < t->npus; pu++)
		if (wakedom_index(t, pu, l) == index)
			cpuset_set(ret, pu);
}

int
wakedom_ncores(const struct vp_topo *t, enum vp_level l, int index)
{
	int c, n = 0;

	for (c = 0; c < t->ncores; c++)
		if (wakedom_index(t, t->core[c].first_pu, l) == index)
			n++;
	return n;
}

enum vp_level
wakedom_widen(const struct vp_topo *t, int pu, enum vp_level from,
    int ncores)
{
	enum vp_level l;

	for (l = from; l < VP_LEVEL_PACKAGE; l++)
		if (wakedom_ncores(t, l, wakedom_index(t, pu, l)) >= ncores)
			return l;
	return VP_LEVEL_PACKAGE;
}

int
wakedom_cores_needed(const struct vp_topo *t, enum vp_smt smt, int nvcpus,
    int pu)
{
	/* the width of @pu's core: on a hybrid host the cores around it
	 * are like it */
	int width = t->core[t->pu[pu].core].npus;

	if (smt == VP_SMT_SIBLINGS)
		return (nvcpus + width - 1) / width;
	return nvcpus;
}

/*
 * A domain of one core is no locality: the kernel drops a cluster or LLC
 * sched domain that spans only one core's SMT siblings (its span equals
 * the SMT domain's), and an allowed set confined to it would leave even
 * a one-vCPU VM two PUs (or one) to run on while the LLC idles.  So it
 * takes two cores at least, whatever the VM's size.
 */
enum vp_level
wakedom_locality_level(const struct vp_topo *t, int pu, enum vp_locality loc,
    int ncores)
{
	static const enum vp_level from[] = {
		[VP_LOC_CLUSTER] = VP_LEVEL_CLUSTER,
		[VP_LOC_LLC] = VP_LEVEL_LLC,
		[VP_LOC_NUMA] = VP_LEVEL_NODE,
	};

	/* VP_LOC_ANY, and anything past it, has no domain */
	if ((unsigned int)loc >= VP_LOC_ANY)
		return VP_LEVEL_COUNT;
	return wakedom_widen(t, pu, from[loc], ncores > 2 ? ncores : 2);
}
