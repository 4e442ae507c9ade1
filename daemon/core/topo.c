/*
 * topo.c - the host model: PUs, cores, clusters, LLCs, NUMA nodes and
 * packages as dense, contiguous index ranges (see vcpuplace.h).
 *
 * topo_build() is the only constructor; adapters (hwtopo.c, tests)
 * describe PUs with struct vp_pu_desc and never touch the arrays.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/vcpuplace.h"

/* Priority given to every PU when no source knows better. */
#define PRIO_UNKNOWN	1024

static int
cmp_desc(const void *pa, const void *pb)
{
	const struct vp_pu_desc *a = pa, *b = pb;

#define CMP(f) do { if (a->f != b->f) return a->f < b->f ? -1 : 1; } while (0)
	CMP(package_key);
	CMP(llc_key);
	CMP(cluster_key);
	CMP(core_key);
	CMP(os_index);
#undef CMP
	return 0;
}

static int
cmp_ulong(const void *pa, const void *pb)
{
	unsigned long a = *(const unsigned long *)pa;
	unsigned long b = *(const unsigned long *)pb;

	return a < b ? -1 : a > b;
}

/*
 * True when the @n keys, taken at each object's first PU, are all
 * distinct: an object split in two by the sort means the keys do not
 * nest (a core in two clusters, a cluster in two LLCs).
 */
static bool
keys_distinct(unsigned long *keys, int n)
{
	int i;

	qsort(keys, n, sizeof(*keys), cmp_ulong);
	for (i = 1; i < n; i++)
		if (keys[i] == keys[i - 1])
			return false;
	return true;
}

void
topo_free(struct vp_topo *t)
{
	if (!t)
		return;
	if (t->llc && t->nllcs > 0)
		free(t->llc[0].os_order);	/* one block for all LLCs */
	free(t->pu);
	free(t->core);
	free(t->cluster);
	free(t->llc);
	free(t->pu_os_pos);
	free(t->node_os);
	free(t->os_to_pu);
	free(t);
}

/* Dense NUMA node indices, in OS-number order. */
static int
assign_nodes(struct vp_topo *t, const struct vp_pu_desc *d)
{
	unsigned long *os;
	int i, j, n = 0;

	os = calloc(t->npus, sizeof(*os));
	t->node_os = calloc(t->npus, sizeof(*t->node_os));
	if (!os || !t->node_os) {
		free(os);
		return -ENOMEM;
	}
	for (i = 0; i < t->npus; i++)
		os[i] = d[i].node_os;
	qsort(os, t->npus, sizeof(*os), cmp_ulong);
	for (i = 0; i < t->npus; i++)
		if (i == 0 || os[i] != os[i - 1])
			t->node_os[n++] = (unsigned int)os[i];
	t->nnodes = n;
	for (i = 0; i < t->npus; i++)
		for (j = 0; j < n; j++)
			if (t->node_os[j] == d[i].node_os)
				t->pu[i].node = j;
	free(os);
	return 0;
}

/*
 * Walks the sorted descriptions and opens a new core, cluster, LLC or
 * package wherever a key changes.
 */
static int
assign_ranges(struct vp_topo *t, const struct vp_pu_desc *d)
{
	int i;

	for (i = 0; i < t->npus; i++) {
		const struct vp_pu_desc *p = i ? &d[i - 1] : NULL;
		bool new_pkg = !p || p->package_key != d[i].package_key;
		bool new_llc = new_pkg || p->llc_key != d[i].llc_key;
		bool new_clu = new_llc || p->cluster_key != d[i].cluster_key;
		bool new_core = new_clu || p->core_key != d[i].core_key;

		if (new_pkg)
			t->npackages++;
		if (new_llc) {
			struct vp_llc *l = &t->llc[t->nllcs++];

			l->first_pu = i;
			l->first_cluster = t->nclusters;
			l->first_core = t->ncores;
			l->package = t->npackages - 1;
			l->cache_level = d[i].llc_cache_level;
		}
		if (new_clu) {
			struct vp_cluster *c = &t->cluster[t->nclusters++];

			c->first_pu = i;
			c->first_core = t->ncores;
			c->llc = t->nllcs - 1;
		}
		if (new_core) {
			struct vp_core *c = &t->core[t->ncores++];

			c->first_pu = i;
			c->cluster = t->nclusters - 1;
			c->llc = t->nllcs - 1;
		}
		t->pu[i].os_index = d[i].os_index;
		t->pu[i].package = t->npackages - 1;
		t->pu[i].llc = t->nllcs - 1;
		t->pu[i].cluster = t->nclusters - 1;
		t->pu[i].core = t->ncores - 1;
		t->core[t->ncores - 1].npus++;
		t->cluster[t->nclusters - 1].npus++;
		t->llc[t->nllcs - 1].npus++;
		if (t->core[t->ncores - 1].npus > VP_MAX_SMT)
			return -EINVAL;
	}
	for (i = 0; i < t->nclusters; i++)
		t->cluster[i].ncores = (i + 1 < t->nclusters ?
		    t->cluster[i + 1].first_core : t->ncores) -
		    t->cluster[i].first_core;
	for (i = 0; i < t->nllcs; i++) {
		struct vp_llc *l = &t->llc[i];

		l->nclusters = (i + 1 < t->nllcs ? t->llc[i + 1].first_cluster :
		    t->nclusters) - l->first_cluster;
		l->ncores = (i + 1 < t->nllcs ? t->llc[i + 1].first_core :
		    t->ncores) - l->first_core;
	}
	for (i = 0; i < t->ncores; i++)
		if (t->core[i].npus > t->max_smt)
			t->max_smt = t->core[i].npus;
	return 0;
}

/* Rejects keys that do not nest: see keys_distinct(). */
static int
check_nesting(const struct vp_topo *t, const struct vp_pu_desc *d)
{
	unsigned long *k;
	bool ok = true;
	int i;

	k = calloc(t->npus, sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (i = 0; i < t->ncores; i++)
		k[i] = d[t->core[i].first_pu].core_key;
	ok = ok && keys_distinct(k, t->ncores);
	for (i = 0; i < t->nclusters; i++)
		k[i] = d[t->cluster[i].first_pu].cluster_key;
	ok = ok && keys_distinct(k, t->nclusters);
	for (i = 0; i < t->nllcs; i++)
		k[i] = d[t->llc[i].first_pu].llc_key;
	ok = ok && keys_distinct(k, t->nllcs);
	free(k);
	return ok ? 0 : -EINVAL;
}

/*
 * Priorities: as given; all equal when none is known; a PU with no
 * value among known ones gets the lowest known, never more.
 */
static void
assign_prio(struct vp_topo *t, const struct vp_pu_desc *d)
{
	unsigned int lo = 0;
	int i;

	for (i = 0; i < t->npus; i++)
		if (d[i].prio && (!lo || d[i].prio < lo))
			lo = d[i].prio;
	t->prio_known = lo != 0;
	for (i = 0; i < t->npus; i++) {
		unsigned int p = d[i].prio ? d[i].prio : lo;

		t->pu[i].prio = p ? p : PRIO_UNKNOWN;
	}
	for (i = 0; i < t->npus; i++) {
		struct vp_llc *l = &t->llc[t->pu[i].llc];

		if (t->pu[i].prio > l->max_prio)
			l->max_prio = t->pu[i].prio;
	}
}

/* Orders dense PU indices by OS number (qsort_r context: the model). */
static int
cmp_pu_os(const void *pa, const void *pb, void *ctx)
{
	const struct vp_topo *t = ctx;
	unsigned int a = t->pu[*(const int *)pa].os_index;
	unsigned int b = t->pu[*(const int *)pb].os_index;

	return a < b ? -1 : a > b;
}

/* Each LLC's PUs in OS order, for the reference linear scan. */
static int
assign_os_order(struct vp_topo *t)
{
	int *block;
	int i, j;

	block = calloc(t->npus, sizeof(*block));
	t->pu_os_pos = calloc(t->npus, sizeof(*t->pu_os_pos));
	if (!block || !t->pu_os_pos) {
		free(block);
		return -ENOMEM;
	}
	for (i = 0; i < t->nllcs; i++) {
		struct vp_llc *l = &t->llc[i];

		l->os_order = block + l->first_pu;
		for (j = 0; j < l->npus; j++)
			l->os_order[j] = l->first_pu + j;
		qsort_r(l->os_order, l->npus, sizeof(int), cmp_pu_os, t);
		for (j = 0; j < l->npus; j++)
			t->pu_os_pos[l->os_order[j]] = j;
	}
	return 0;
}

static int
assign_os_map(struct vp_topo *t)
{
	int i;

	for (i = 0; i < t->npus; i++)
		if (t->pu[i].os_index >= t->os_limit)
			t->os_limit = t->pu[i].os_index + 1;
	t->os_to_pu = malloc(t->os_limit * sizeof(*t->os_to_pu));
	if (!t->os_to_pu)
		return -ENOMEM;
	for (i = 0; i < (int)t->os_limit; i++)
		t->os_to_pu[i] = VP_PU_NONE;
	for (i = 0; i < t->npus; i++) {
		if (t->os_to_pu[t->pu[i].os_index] != VP_PU_NONE)
			return -EINVAL;		/* the same CPU twice */
		t->os_to_pu[t->pu[i].os_index] = i;
	}
	cpuset_set_range(&t->all, 0, t->npus);
	return 0;
}

int
topo_build(const struct vp_pu_desc *desc, int n, struct vp_topo **ret_topo)
{
	struct vp_pu_desc *d = NULL;
	struct vp_topo *t;
	int r = -ENOMEM;

	if (n <= 0 || n > VP_MAX_PUS)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	d = malloc(n * sizeof(*d));
	if (!t || !d)
		goto fail;
	memcpy(d, desc, n * sizeof(*d));
	for (r = 0; r < n; r++)
		if (d[r].os_index >= VP_MAX_OS_INDEX) {
			r = -EINVAL;
			goto fail;
		}
	r = -ENOMEM;
	qsort(d, n, sizeof(*d), cmp_desc);
	t->npus = n;
	t->pu = calloc(n, sizeof(*t->pu));
	t->core = calloc(n, sizeof(*t->core));
	t->cluster = calloc(n, sizeof(*t->cluster));
	t->llc = calloc(n, sizeof(*t->llc));
	if (!t->pu || !t->core || !t->cluster || !t->llc)
		goto fail;
	if ((r = assign_ranges(t, d)) < 0 || (r = check_nesting(t, d)) < 0 ||
	    (r = assign_nodes(t, d)) < 0 || (r = assign_os_order(t)) < 0 ||
	    (r = assign_os_map(t)) < 0)
		goto fail;
	assign_prio(t, d);
	free(d);
	*ret_topo = t;
	return 0;
fail:
	free(d);
	topo_free(t);
	return r;
}

int
topo_pu_of_os(const struct vp_topo *t, unsigned int os_index)
{
	return os_index < t->os_limit ? t->os_to_pu[os_index] : VP_PU_NONE;
}

static bool
valid_pu(const struct vp_topo *t, int pu)
{
	return pu >= 0 && pu < t->npus;
}

void
topo_add_core(const struct vp_topo *t, int pu, struct vp_cpuset *s)
{
	const struct vp_core *c;

	if (!valid_pu(t, pu))
		return;
	c = &t->core[t->pu[pu].core];
	cpuset_set_range(s, c->first_pu, c->npus);
}

void
topo_add_cluster(const struct vp_topo *t, int pu, struct vp_cpuset *s)
{
	const struct vp_cluster *c;

	if (!valid_pu(t, pu))
		return;
	c = &t->cluster[t->pu[pu].cluster];
	cpuset_set_range(s, c->first_pu, c->npus);
}

void
topo_add_llc(const struct vp_topo *t, int pu, struct vp_cpuset *s)
{
	const struct vp_llc *l;

	if (!valid_pu(t, pu))
		return;
	l = &t->llc[t->pu[pu].llc];
	cpuset_set_range(s, l->first_pu, l->npus);
}

/* NUMA nodes need not be contiguous in topology order: test each PU. */
void
topo_add_node(const struct vp_topo *t, int pu, struct vp_cpuset *s)
{
	int i;

	if (!valid_pu(t, pu))
		return;
	for (i = 0; i < t->npus; i++)
		if (t->pu[i].node == t->pu[pu].node)
			cpuset_set(s, i);
}

void
topo_add_package(const struct vp_topo *t, int pu, struct vp_cpuset *s)
{
	int i;

	if (!valid_pu(t, pu))
		return;
	for (i = 0; i < t->npus; i++)
		if (t->pu[i].package == t->pu[pu].package)
			cpuset_set(s, i);
}

int
topo_set_nodes(struct vp_topo *t, const unsigned int *node_os, int n)
{
	unsigned int *nodes;
	int *map;
	int i, j;

	if (n <= 0)
		return -EINVAL;
	nodes = malloc(n * sizeof(*nodes));
	map = malloc(t->nnodes * sizeof(*map));
	if (!nodes || !map) {
		free(nodes);
		free(map);
		return -ENOMEM;
	}
	memcpy(nodes, node_os, n * sizeof(*nodes));
	for (i = 0; i < t->nnodes; i++) {
		map[i] = -1;
		for (j = 0; j < n; j++)
			if (nodes[j] == t->node_os[i])
				map[i] = j;
		if (map[i] < 0) {
			free(nodes);
			free(map);
			return -EINVAL;
		}
	}
	for (i = 0; i < t->npus; i++)
		t->pu[i].node = map[t->pu[i].node];
	free(t->node_os);
	free(map);
	t->node_os = nodes;
	t->nnodes = n;
	return 0;
}
