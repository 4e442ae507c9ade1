/*
 * hwtopo.c - fills the host model from hwloc (live host, XML, synthetic).
 *
 * All hwloc knowledge lives here; the core only sees struct vp_pu_desc.
 * Keys are the logical index of the first PU inside each object: hwloc's
 * logical order is topology order, so sorting by them nests packages,
 * LLCs, clusters and cores as ranges, whichever object type each is.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <hwloc.h>

#include "host/hwtopo.h"
#include "host/smallfile.h"

/*
 * Where a load says what was wrong: an hwloc XML is outside input (a
 * file given with --topology, a fuzzer's bytes), and hwloc checks its
 * objects' cpusets and indices against each other only in its debug
 * builds.  @err may be NULL.
 */
struct diag {
	char *err;
	size_t errlen;
};

static int
bad(struct diag *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
bad(struct diag *g, const char *fmt, ...)
{
	va_list ap;

	if (g->err && g->errlen) {
		va_start(ap, fmt);
		vsnprintf(g->err, g->errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int
cmp_uint(const void *pa, const void *pb)
{
	unsigned int a = *(const unsigned int *)pa, b = *(const unsigned int *)pb;

	return a < b ? -1 : a > b;
}

/*
 * Logical index of the first PU inside @o, plus one: the object's sort
 * key, into *ret.  The map from OS index to that (@pu_key, 0 for no PU)
 * is built once per load, since hwloc's own lookups walk all PUs and
 * 4096 of them made the load quadratic.  An XML may give an object an
 * empty cpuset, or one naming a CPU no PU has, or one past the map:
 * -EINVAL naming the object.
 */
static int
first_pu_key(const unsigned int *pu_key, hwloc_obj_t o, struct diag *g,
    unsigned long *ret)
{
	int os = o->cpuset ? hwloc_bitmap_first(o->cpuset) : -1;

	if (os < 0)
		return bad(g, "%s L#%u: empty cpuset", hwloc_obj_type_string(
		    o->type), o->logical_index);
	if (os >= VP_MAX_OS_INDEX || !pu_key[os])
		return bad(g, "%s L#%u: its cpuset's first CPU %d is no PU of "
		    "the topology", hwloc_obj_type_string(o->type),
		    o->logical_index, os);
	*ret = pu_key[os];
	return 0;
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
 * A cpukind's number from the XML, checked: a capacity is 1..1024
 * (SCHED_CAPACITY_SCALE, the kernel's cpu_capacity at most), a frequency
 * a finite 1..1000000 MHz; a cast of anything else (inf, nan, 1e30) to
 * unsigned int is undefined.  Returns the value, or -1 after bad().
 */
static double
kind_number(unsigned int kind, const struct hwloc_info_s *info, double max,
    struct diag *g)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(info->value, &end);
	if (errno || end == info->value || !isfinite(v) || v < 1 || v > max) {
		bad(g, "cpukind %u: %s '%.32s' is not a number 1..%.0f", kind,
		    info->name, info->value, max);
		return -1;
	}
	return v;
}

/*
 * hwloc ranks CPU kinds by efficiency but gives no ratio.  Where a kind
 * has LinuxCapacity (arm64: 718 and 997 on GB10), that is the priority.
 * Else FrequencyMaxMHz scaled to 1024.  Else the rank on a ladder from
 * 614 to 1024: 0.6 is about what an E-core does per core against a
 * P-core, and it keeps the seed-002 order, idle P-core (1024) > idle
 * E-core (614) > idle sibling of a busy P-core (512).  Into *ret (0:
 * unknown); -EINVAL for a number out of range.
 */
static int
kind_prio(hwloc_topology_t topo, unsigned int kind, unsigned int nr,
    int eff, int max_eff, struct diag *g, unsigned int *ret)
{
	struct hwloc_info_s *infos;
	unsigned int i, ninfos;
	double f, fmax = 0;
	unsigned int k;
	int e;

	*ret = 0;
	if (hwloc_cpukinds_get_info(topo, kind, NULL, &e, &ninfos, &infos, 0))
		return 0;
	for (i = 0; i < ninfos; i++)
		if (strcmp(infos[i].name, "LinuxCapacity") == 0) {
			if ((f = kind_number(kind, &infos[i], 1024, g)) < 0)
				return -EINVAL;
			*ret = (unsigned int)f;
			return 0;
		}
	for (i = 0; i < ninfos; i++) {
		if (strcmp(infos[i].name, "FrequencyMaxMHz") != 0)
			continue;
		if ((f = kind_number(kind, &infos[i], 1e6, g)) < 0)
			return -EINVAL;
		for (k = 0; k < nr; k++) {
			struct hwloc_info_s *ki;
			unsigned int j, nki;
			double v;

			if (hwloc_cpukinds_get_info(topo, k, NULL, NULL, &nki,
			    &ki, 0))
				continue;
			for (j = 0; j < nki; j++) {
				if (strcmp(ki[j].name, "FrequencyMaxMHz"))
					continue;
				if ((v = kind_number(k, &ki[j], 1e6, g)) < 0)
					return -EINVAL;
				if (v > fmax)
					fmax = v;
			}
		}
		if (nr > 1) {
			*ret = (unsigned int)(1024 * f / fmax);
			return 0;
		}
	}
	if (nr > 1 && eff >= 0 && max_eff > 0)
		*ret = 614 + (unsigned int)(410 * (long)eff / max_eff);
	return 0;
}

/* Priority of @pu from hwloc cpukinds into *ret, 0 when unknown. */
static int
pu_kind_prio(hwloc_topology_t topo, hwloc_obj_t pu, struct diag *g,
    unsigned int *ret)
{
	unsigned int k, nr;
	int e, max_eff = -1, kind;

	*ret = 0;
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
	return kind_prio(topo, (unsigned int)kind, nr, e, max_eff, g, ret);
}

static int
describe_pu(hwloc_topology_t topo, const unsigned int *map, hwloc_obj_t pu,
    struct diag *g, struct vp_pu_desc *d)
{
	hwloc_obj_t core, llc, cluster, pkg;
	int node, r;

	core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
	if (!core)
		core = pu;
	llc = find_llc(core);
	cluster = find_cluster(core, llc);
	pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
	node = pu->nodeset ? hwloc_bitmap_first(pu->nodeset) : -1;

	memset(d, 0, sizeof(*d));
	d->os_index = pu->os_index;
	if ((r = first_pu_key(map, core, g, &d->core_key)) < 0 ||
	    (r = first_pu_key(map, cluster, g, &d->cluster_key)) < 0 ||
	    (r = first_pu_key(map, llc ? llc : core, g, &d->llc_key)) < 0)
		return r;
	d->package_key = pkg ? pkg->logical_index : 0;
	d->node_os = node < 0 ? 0 : (unsigned int)node;
	d->llc_cache_level = llc ? (int)llc->attr->cache.depth : 0;
	return pu_kind_prio(topo, pu, g, &d->prio);
}

/*
 * The OS-index map of every PU (see first_pu_key()): an OS index past
 * VP_MAX_OS_INDEX, or one two PUs share, is -EINVAL naming the PU.
 */
static int
map_pus(hwloc_topology_t topo, unsigned int *map, struct diag *g)
{
	hwloc_obj_t pu = NULL;

	while ((pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu))) {
		if (pu->os_index >= VP_MAX_OS_INDEX)
			return bad(g, "PU L#%u: OS index %u, want below %u",
			    pu->logical_index, pu->os_index, VP_MAX_OS_INDEX);
		if (map[pu->os_index])
			return bad(g, "PU L#%u: OS index %u taken by PU L#%u",
			    pu->logical_index, pu->os_index,
			    map[pu->os_index] - 1);
		map[pu->os_index] = pu->logical_index + 1;
	}
	return 0;
}

/* Builds the model from a loaded hwloc topology; @descs receives the
 * descriptions (the caller may amend priorities and rebuild). */
static int
from_hwloc(hwloc_topology_t topo, struct diag *g,
    struct vp_pu_desc **ret_descs, int *ret_n)
{
	struct vp_pu_desc *d;
	unsigned int *map;
	hwloc_obj_t pu = NULL;
	int n, i = 0, r;

	n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	if (n <= 0)
		return bad(g, "no PU");
	if (n > VP_MAX_PUS) {
		bad(g, "%d PUs, at most %d", n, VP_MAX_PUS);
		return -E2BIG;
	}
	d = calloc(n, sizeof(*d));
	map = calloc(VP_MAX_OS_INDEX, sizeof(*map));
	if (!d || !map) {
		free(d);
		free(map);
		return -ENOMEM;
	}
	r = map_pus(topo, map, g);
	while (!r && (pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu))
	    && i < n)
		r = describe_pu(topo, map, pu, g, &d[i++]);
	free(map);
	if (r < 0) {
		free(d);
		return r;
	}
	*ret_descs = d;
	*ret_n = i;
	return 0;
}

/*
 * Every NUMA node hwloc knows, in OS order, memory-only ones too.  A PU
 * whose nodeset names none of them (an XML can say so) is -EINVAL.
 */
static int
add_memory_nodes(hwloc_topology_t topo, struct vp_topo *t, struct diag *g)
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
	if (r == -EINVAL)
		bad(g, "a PU's nodeset names no NUMANode object");
	return r;
}

/* Loads with I/O objects filtered out: we never need PCI devices. */
static int
load(hwloc_topology_t topo, struct vp_topo **ret_topo,
    void (*amend)(struct vp_pu_desc *, int), struct diag *g)
{
	struct vp_pu_desc *d = NULL;
	struct vp_topo *t;
	int r, n = 0;

	if (hwloc_topology_load(topo) < 0)
		return bad(g, "hwloc cannot load it");
	r = from_hwloc(topo, g, &d, &n);
	if (r < 0)
		return r;
	if (amend)
		amend(d, n);
	r = topo_build(d, n, &t);
	free(d);
	if (r == -EINVAL)
		return bad(g, "the model rejects it: cores, clusters, LLCs and "
		    "packages do not nest, or a core has over %d PUs",
		    VP_MAX_SMT);
	if (r < 0)
		return r;
	if ((r = add_memory_nodes(topo, t, g)) < 0) {
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
hwtopo_load_xml(const char *path, struct vp_topo **ret_topo, char *err,
    size_t errlen)
{
	struct diag g = { err, errlen };
	hwloc_topology_t topo;
	int r;

	if (access(path, R_OK) < 0) {
		r = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s", strerror(-r));
		return r;
	}
	if ((r = open_topo(&topo)) < 0)
		return r;
	r = hwloc_topology_set_xml(topo, path) < 0 ?
	    bad(&g, "hwloc rejects it as XML") : load(topo, ret_topo, NULL, &g);
	hwloc_topology_destroy(topo);
	return r;
}

int
hwtopo_load_xml_buffer(const char *buf, size_t len, struct vp_topo **ret_topo,
    char *err, size_t errlen)
{
	struct diag g = { err, errlen };
	hwloc_topology_t topo;
	char *text;
	int r;

	/* hwloc's own parser wants the text NUL-ended, the NUL counted */
	if (len >= INT_MAX)
		return bad(&g, "%zu bytes of XML, too many", len);
	if (!(text = malloc(len + 1)))
		return -ENOMEM;
	memcpy(text, buf, len);
	text[len] = '\0';
	if ((r = open_topo(&topo)) < 0) {
		free(text);
		return r;
	}
	r = hwloc_topology_set_xmlbuffer(topo, text, (int)len + 1) < 0 ?
	    bad(&g, "hwloc rejects it as XML") : load(topo, ret_topo, NULL, &g);
	hwloc_topology_destroy(topo);
	free(text);
	return r;
}

int
hwtopo_load_synthetic(const char *desc, struct vp_topo **ret_topo)
{
	struct diag g = { NULL, 0 };
	hwloc_topology_t topo;
	int r;

	if ((r = open_topo(&topo)) < 0)
		return r;
	r = hwloc_topology_set_synthetic(topo, desc) < 0 ? -EINVAL :
	    load(topo, ret_topo, NULL, &g);
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

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/%s", cpu,
	    leaf);
	if (read_small_file(path, text, sizeof(text)) < 0)
		return 0;
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
hwtopo_load_host(struct vp_topo **ret_topo, char *err, size_t errlen)
{
	struct diag g = { err, errlen };
	hwloc_topology_t topo;
	int r;

	if ((r = open_topo(&topo)) < 0)
		return r;
	r = load(topo, ret_topo, amend_from_sysfs, &g);
	hwloc_topology_destroy(topo);
	return r;
}
