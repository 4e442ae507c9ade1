/*
 * hwtopo.h - the adapter that builds a struct vp_topo from hwloc: the live
 * host, an hwloc XML file (1.x or 2.x format) or a synthetic description.
 *
 * Clusters: an hwloc Group of cluster kind that lies inside the LLC, else
 * the cores sharing an L2, else the core itself.  LLC: the deepest cache
 * above the core; a core with no cache at all is its own LLC (level 0).
 * Priority: see prio.c; hwloc cpukinds, then sysfs on the live host.
 */
#ifndef HWTOPO_H
#define HWTOPO_H

#include "core/vcpuplace.h"

/*
 * Loads @path.  Returns 0 with *ret_topo set (free with topo_free()),
 * -ENOENT when the file is missing, -EINVAL when hwloc rejects it or it
 * has no PU, -E2BIG over VP_MAX_PUS PUs, -ENOMEM.
 */
int hwtopo_load_xml(const char *path, struct vp_topo **ret_topo)
	VP_MUST_CHECK;
/* hwloc's synthetic syntax, e.g. "pack:2 l3:1 core:8 pu:2" (tests). */
int hwtopo_load_synthetic(const char *desc, struct vp_topo **ret_topo)
	VP_MUST_CHECK;
/*
 * The live host; priorities from hwloc cpukinds, else from
 * /sys/devices/system/cpu/cpuN/acpi_cppc/highest_perf, else cpufreq's
 * cpuinfo_max_freq.  Same returns as hwtopo_load_xml().
 */
int hwtopo_load_host(struct vp_topo **ret_topo) VP_MUST_CHECK;

/*
 * The parser of those sysfs files, pure, for tests and fuzzing
 * (tests/fuzz/): the number a file's text starts with, 0 for none.
 */
unsigned long hwtopo_parse_sysfs_ulong(const char *text);

#endif /* HWTOPO_H */
