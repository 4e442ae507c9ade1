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

#include <stddef.h>

#include "core/vcpuplace.h"

/*
 * Loads @path.  Returns 0 with *ret_topo set (free with topo_free()),
 * -ENOENT when the file is missing, -EINVAL when hwloc rejects it or it
 * has no PU, or when its objects contradict each other (an object whose
 * cpuset names no PU, an OS index past VP_MAX_OS_INDEX or twice, a node
 * no NUMANode is, a cpukind number out of range, objects that do not
 * nest), -E2BIG over VP_MAX_PUS PUs, -ENOMEM.  On failure, @err (NULL:
 * none) gets one line saying what was wrong, without the path: the
 * caller names it.  An XML is outside input: whatever it says, the
 * answer is one of these, never a read out of bounds (tests/fuzz/
 * fz_hwloc_xml.c).
 */
int hwtopo_load_xml(const char *path, struct vp_topo **ret_topo, char *err,
    size_t errlen) VP_MUST_CHECK;
/* The same from @len bytes of XML at @buf (borrowed; tests, fuzzing). */
int hwtopo_load_xml_buffer(const char *buf, size_t len,
    struct vp_topo **ret_topo, char *err, size_t errlen) VP_MUST_CHECK;
/* hwloc's synthetic syntax, e.g. "pack:2 l3:1 core:8 pu:2" (tests). */
int hwtopo_load_synthetic(const char *desc, struct vp_topo **ret_topo)
	VP_MUST_CHECK;
/*
 * The live host; priorities from hwloc cpukinds, else from
 * /sys/devices/system/cpu/cpuN/acpi_cppc/highest_perf, else cpufreq's
 * cpuinfo_max_freq.  Same returns as hwtopo_load_xml().
 */
int hwtopo_load_host(struct vp_topo **ret_topo, char *err, size_t errlen)
	VP_MUST_CHECK;

/*
 * The parser of those sysfs files, pure, for tests and fuzzing
 * (tests/fuzz/): the number a file's text starts with, 0 for none.
 */
unsigned long hwtopo_parse_sysfs_ulong(const char *text);

#endif /* HWTOPO_H */
