/*
 * hwtopo.c - fills the host model from hwloc (live host, XML, synthetic).
 *
 * All hwloc knowledge lives here; the core only sees struct vp_pu_desc.
 * Keys are the logical index of the first PU inside each object: hwloc's
 * logical order is topology order, so sorting by them nests packages,
 * LLCs, clusters and cores as ranges, whichever object type each is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <hwloc.h>

#include "host/hwtopo.h"

static int
cmp_uint(const void *pa, const void *pb)
{
	unsigned int a = *(const unsigned int *)pa, b = *(const unsigned int *)pb;

	return a < b ? -1 : a > b;
}

/*
 * Logical index of the first PU inside @o: the object's sort key.  The
 * map from OS to logical index is built once per load (@os_to_logical),
 * since hwloc's own lookups walk all PUs and 4096 of them made the load
 * quadratic.
 */
static unsigned long
first_pu_key(const unsigned int *os_to_logical, hwloc_obj_t o)
{
	int os = hwloc_bitmap_first(o->cpuset);

	return os < 0 ? 0 : os_to_logical[os];
}

static bool
is_data_cache(hwloc_obj_t o)
{
	return hwloc_obj_type_is_dcache(o->type) &&
	    o->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION;
}

/* The outermost data or unified cache above @core, or NULL. */
static hwloc_obj_t
find_llc(hwloc_obj_t core)
{
	hwloc_obj_t o, llc = NULL;

	for (o = core->parent; o; o = o->parent)
		if (is_data_cache(o))
			llc = o;
	return llc;
}

/*
 * The cluster of @core: a Group of cluster kind inside the LLC, else the
 * L2 above the core (which may hold one core, or be the LLC itself, as on
 * KNL's tiles), else the core.  A "Cluster" Group wider than the LLC (KNL
 * SNC4) is a NUMA quadrant, not what the scheduler calls a cluster.
 */
static hwloc_obj_t
find_cluster(hwloc_obj_t core, hwloc_obj_t llc)
{
	hwloc_obj_t o, l2 = NULL;

	for (o = core->parent; o; o = o->parent) {
		if (o->type == HWLOC_OBJ_GROUP && o->subtype &&
		    strcasecmp(o->subtype, "Cluster") == 0)
			return o;
		if (o->type == HWLOC_OBJ_L2CACHE && !l2)
			l2 = o;
		if (o == llc)
			break;
	}
	return l2 ? l2 : core;
}

/*
 * hwloc ranks CPU kinds by efficiency but gives no ratio.  Where a kind
 * has LinuxCapacity (arm64: 718 and 997 on GB10), that is the priority.
 * Else FrequencyMaxMHz scaled to 1024.  Else the rank on a ladder from
 * 614 to 1024: 0.6 is about what an E-core does per core against a
 * P-core, and it keeps the seed-002 order, idle P-core (1024) > idle
 * E-core (614) > idle sibling of a busy P-core (512).
 */
static unsigned int
kind_prio(hwloc_topology_t topo, unsigned int kind, unsigned int nr,
    int eff, int max_eff)
{
	struct hwloc_info_s *infos;
	unsigned int i, ninfos;
	double f, fmax = 0;
	unsigned int k;
	int e;

	if (hwloc_cpukinds_get_info(topo, kind, NULL, &e, &ninfos, &infos, 0))
		return 0;
	for (i = 0; i < ninfos; i++)
		if (strcmp(infos[i].name, "LinuxCapacity") == 0)
			return (unsigned int)strtoul(infos[i].value, NULL, 10);
	for (i = 0; i < ninfos; i++) {
		if (strcmp(infos[i].name, "FrequencyMaxMHz") != 0)
			continue;
		f = strtod(infos[i].value, NULL);
		for (k = 0; k < nr; k++) {
			struct hwloc_info_s *ki;
			unsigned int j, nki;

			if (hwloc_cpukinds_get_info(topo, k, NULL, NULL, &nki,
			    &ki, 0))
				continue;
			for (j = 0; j < nki; j++)
				if (!strcmp(ki[j].name, "FrequencyMaxMHz") &&
				    strtod(ki[j].value, NULL) > fmax)
					fmax = strtod(ki[j].value, NULL);
		}
		if (nr > 1 && fmax > 0 && f > 0)
			return (unsigned int)(1024 * f / fmax);
	}
	if (nr > 1 && eff >= 0 && max_eff > 0)
		return 614 + (unsigned int)(410 * eff / max_eff);
	return 0;
}

/* Priority of @pu from hwloc cpukinds, 0 when unknown. */
static unsigned int
pu_kind_prio(hwloc_topology_t topo, hwloc_obj_t pu)
{
	unsigned int k, nr;
	int e, max_eff = -1, kind;

	nr = (unsigned int)hwloc_cpukinds_get_nr(topo, 0);
	if ((int)nr <= 0)
		return 0;
	for (k = 0; k < nr; k++)
		if (!hwloc_cpukinds_get_info(topo, k, NULL, &e, NULL, NULL, 0) &&
		    e > max_eff)
			max_eff = e;
	kind = hwloc_cpukinds_get_by_cpuset(topo, pu->cpuset, 0);
	if (kind < 0 || hwloc_cpukinds_get_info(topo, kind, NULL, &e, NULL,
	    NULL, 0))
		return 0;
	return kind_prio(topo, (unsigned int)kind, nr, e, max_eff);
}

static void
describe_pu(hwloc_topology_t topo, const unsigned int *map, hwloc_obj_t pu,
    struct vp_pu_desc *d)
{
	hwloc_obj_t core, llc, cluster, pkg;
	int node;

	core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
	if (!core)
		core = pu;
	llc = find_llc(core);
	cluster = find_cluster(core, llc);
	pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
	node = pu->nodeset ? hwloc_bitmap_first(pu->nodeset) : -1;

	memset(d, 0, sizeof(*d));
	d->os_index = pu->os_index;
	d->core_key = first_pu_key(map, core);
	d->cluster_key = first_pu_key(map, cluster);
	d->llc_key = first_pu_key(map, llc ? llc : core);
	d->package_key = pkg ? pkg->logical_index : 0;
	d->node_os = node < 0 ? 0 : (unsigned int)node;
	d->llc_cache_level = llc ? (int)llc->attr->cache.depth : 0;
	d->prio = pu_kind_prio(topo, pu);
}

/* Builds the model from a loaded hwloc topology; @descs receives the
 * descriptions (the caller may amend priorities and rebuild). */
static int
from_hwloc(hwloc_topology_t topo, struct vp_pu_desc **ret_descs, int *ret_n)
{
	struct vp_pu_desc *d;
	unsigned int *map;
	hwloc_obj_t pu = NULL;
	int n, i = 0;

	n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	if (n <= 0)
		return -EINVAL;
	if (n > VP_MAX_PUS)
		return -E2BIG;
	d = calloc(n, sizeof(*d));
	map = calloc(VP_MAX_OS_INDEX, sizeof(*map));
	if (!d || !map) {
		free(d);
		free(map);
		return -ENOMEM;
	}
	while ((pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu)))
		if (pu->os_index < VP_MAX_OS_INDEX)
			map[pu->os_index] = pu->logical_index;
	while ((pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu)) &&
	    i < n)
		describe_pu(topo, map, pu, &d[i++]);
	free(map);
	*ret_descs = d;
	*ret_n = i;
	return 0;
}

/* Every NUMA node hwloc knows, in OS order, memory-only ones too. */
static int
add_memory_nodes(hwloc_topology_t topo, struct vp_topo *t)
{
	hwloc_obj_t node = NULL;
	unsigned int *os;
	int n, i = 0, r;

	n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	if (n <= 0)
		return 0;
	os = calloc(n, sizeof(*os));
	if (!os)
		return -ENOMEM;
	while ((node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE,
	    node)) && i < n)
		os[i++] = node->os_index;
	qsort(os, i, sizeof(*os), cmp_uint);
	r = topo_set_nodes(t, os, i);
	free(os);
	return r;
}

/* Loads with I/O objects filtered out: we never need PCI devices. */
static int
load(hwloc_topology_t topo, struct vp_topo **ret_topo,
    void (*amend)(struct vp_pu_desc *, int))
{
	struct vp_pu_desc *d = NULL;
	struct vp_topo *t;
	int r, n = 0;

	if (hwloc_topology_load(topo) < 0)
		return -EINVAL;
	r = from_hwloc(topo, &d, &n);
	if (r < 0)
		return r;
	if (amend)
		amend(d, n);
	r = topo_build(d, n, &t);
	free(d);
	if (r < 0)
		return r;
	if ((r = add_memory_nodes(topo, t)) < 0) {
		topo_free(t);
		return r;
	}
	*ret_topo = t;
	return 0;
}

static int
open_topo(hwloc_topology_t *ret)
{
	if (hwloc_topology_init(ret) < 0)
		return -ENOMEM;
	hwloc_topology_set_io_types_filter(*ret, HWLOC_TYPE_FILTER_KEEP_NONE);
	return 0;
}

int
hwtopo_load_xml(const char *path, struct vp_topo **ret_topo)
{
	hwloc_topology_t topo;
	int r;

	if (access(path, R_OK) < 0)
		return -errno;
	if ((r = open_topo(&topo)) < 0)
		return r;
	r = hwloc_topology_set_xml(topo, path) < 0 ? -EINVAL :
	    load(topo, ret_topo, NULL);
	hwloc_topology_destroy(topo);
	return r;
}

int
hwtopo_load_synthetic(const char *desc, struct vp_topo **ret_topo)
{
	hwloc_topology_t topo;
	int r;

	if ((r = open_topo(&topo)) < 0)
		return r;
	r = hwloc_topology_set_synthetic(topo, desc) < 0 ? -EINVAL :
	    load(topo, ret_topo, NULL);
	hwloc_topology_destroy(topo);
	return r;
}

unsigned long
hwtopo_parse_sysfs_ulong(const char *text)
{
	unsigned long v;

	/*
	 * sscanf("%lu") read "-1" as ULONG_MAX, and strtoul() saturates an
	 * overflow there too: either would make this PU the host's best.
	 */
	text += strspn(text, " \t\n");
	if (*text < '0' || *text > '9')
		return 0;
	errno = 0;
	v = strtoul(text, NULL, 10);
	return errno ? 0 : v;
}

/* Reads one unsigned number from a sysfs file; 0 when absent. */
static unsigned long
sysfs_ulong(unsigned int cpu, const char *leaf)
{
	char path[128], text[64];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/%s", cpu,
	    leaf);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return hwtopo_parse_sysfs_ulong(text);
}

/*
 * Where cpukinds knew nothing, the live host's CPPC highest_perf (what
 * ITMT and asym packing use) or else the maximum frequency, scaled so
 * the best PU is 1024.  Equal values leave the priorities equal.
 */
static void
amend_from_sysfs(struct vp_pu_desc *d, int n)
{
	static const char *const leaf[] = {
		"acpi_cppc/highest_perf", "cpufreq/cpuinfo_max_freq",
	};
	unsigned long *v, max = 0;
	unsigned int i, s;
	int k;

	for (k = 0; k < n; k++)
		if (d[k].prio)
			return;
	v = calloc(n, sizeof(*v));
	if (!v)
		return;
	for (s = 0; s < sizeof(leaf) / sizeof(leaf[0]) && !max; s++)
		for (i = 0; i < (unsigned int)n; i++) {
			v[i] = sysfs_ulong(d[i].os_index, leaf[s]);
			if (v[i] > max)
				max = v[i];
		}
	for (k = 0; max && k < n; k++)
		d[k].prio = (unsigned int)(1024 * v[k] / max);
	free(v);
}

int
hwtopo_load_host(struct vp_topo **ret_topo)
{
	hwloc_topology_t topo;
	int r;

	if ((r = open_topo(&topo)) < 0)
		return r;
	r = load(topo, ret_topo, amend_from_sysfs);
	hwloc_topology_destroy(topo);
	return r;
}
