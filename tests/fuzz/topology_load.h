/*
 * topology_load.h - the topology the targets that need one plan on:
 * coral-lassen (tests/topologies/, $VP_TOPOLOGY_DIR), whose OS CPU
 * numbers have holes, the input most likely to trip a CPU-list or
 * scenario parser.  Loaded once, from LLVMFuzzerInitialize(); a target
 * that cannot load it exits 2 naming the file, before any input runs.
 */
#ifndef VP_FUZZ_TOPOLOGY_LOAD_H
#define VP_FUZZ_TOPOLOGY_LOAD_H

#include "host/hwtopo.h"
#include "fuzz.h"

static inline struct vp_topo *
fz_load_topology(const char *target)
{
	struct vp_topo *topo = NULL;
	char path[4096];

	snprintf(path, sizeof(path), "%s/coral-lassen.xml",
	    fz_dir("VP_TOPOLOGY_DIR", "tests/topologies"));
	if (hwtopo_load_xml(path, &topo, NULL, 0) < 0) {
		fprintf(stderr, "fz_%s: cannot load %s\n", target, path);
		exit(2);
	}
	return topo;
}

#endif /* VP_FUZZ_TOPOLOGY_LOAD_H */
