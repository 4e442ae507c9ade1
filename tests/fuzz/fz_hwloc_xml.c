/*
 * fz_hwloc_xml.c - hwtopo_load_xml_buffer() (daemon/host/hwtopo.c): an
 * hwloc XML export, what --topology and vcpuplacectl's --topology read,
 * through hwloc's own import and then the adapter.  hwloc accepts
 * objects whose cpusets and indices contradict each other (it checks
 * them only with HWLOC_DEBUG_CHECK), so every index the adapter takes
 * from hwloc must be checked by the adapter.
 *
 * Properties: a rejection is -EINVAL or -E2BIG with a message, or
 * -ENOMEM; an accepted topology has 1..VP_MAX_PUS PUs, OS indices below
 * VP_MAX_OS_INDEX that map back to their PU, every PU's core, cluster,
 * LLC, node and package index in range, cores of 1..VP_MAX_SMT PUs and
 * priorities 1..1024.  ASan and UBSan do the rest (a read past the
 * OS-index map, a cast of inf to unsigned).
 */
#include <errno.h>

#include "host/hwtopo.h"
#include "fuzz.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* hwloc's banners about broken XML, once per input, fill the log */
	setenv("HWLOC_HIDE_ERRORS", "2", 1);
	return 0;
}

static void
check_pu(const struct vp_topo *t, int i)
{
	const struct vp_pu *p = &t->pu[i];

	FZ_CHECK(p->os_index < VP_MAX_OS_INDEX, "PU %d: OS index %u", i,
	    p->os_index);
	FZ_CHECK(topo_pu_of_os(t, p->os_index) == i, "PU %d: OS %u maps to %d",
	    i, p->os_index, topo_pu_of_os(t, p->os_index));
	FZ_CHECK(p->core >= 0 && p->core < t->ncores, "PU %d: core %d of %d",
	    i, p->core, t->ncores);
	FZ_CHECK(p->cluster >= 0 && p->cluster < t->nclusters,
	    "PU %d: cluster %d of %d", i, p->cluster, t->nclusters);
	FZ_CHECK(p->llc >= 0 && p->llc < t->nllcs, "PU %d: LLC %d of %d", i,
	    p->llc, t->nllcs);
	FZ_CHECK(p->node >= 0 && p->node < t->nnodes, "PU %d: node %d of %d",
	    i, p->node, t->nnodes);
	FZ_CHECK(p->package >= 0 && p->package < t->npackages,
	    "PU %d: package %d of %d", i, p->package, t->npackages);
	FZ_CHECK(p->prio >= 1 && p->prio <= 1024, "PU %d: priority %u", i,
	    p->prio);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vp_topo *t = NULL;
	char err[512];
	int r, i;

	err[0] = '\0';
	r = hwtopo_load_xml_buffer((const char *)data, size, &t, err,
	    sizeof(err));
	if (r < 0) {
		FZ_CHECK(r == -EINVAL || r == -E2BIG || r == -ENOMEM,
		    "returned %d", r);
		FZ_CHECK(r == -ENOMEM || err[0], "rejected (%d) without a "
		    "message", r);
		FZ_CHECK(t == NULL, "*ret_topo set on failure");
		return 0;
	}
	FZ_CHECK(r == 0, "returned %d", r);
	FZ_CHECK(t->npus >= 1 && t->npus <= VP_MAX_PUS, "%d PUs", t->npus);
	for (i = 0; i < t->npus; i++)
		check_pu(t, i);
	for (i = 0; i < t->ncores; i++)
		FZ_CHECK(t->core[i].npus >= 1 && t->core[i].npus <= VP_MAX_SMT,
		    "core %d: %d PUs", i, t->core[i].npus);
	topo_free(t);
	return 0;
}
