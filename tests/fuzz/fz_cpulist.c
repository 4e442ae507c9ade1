/*
 * fz_cpulist.c - cpulist_parse() (daemon/core/cpulist.c), the one parser
 * of every CPU list from outside, against coral-lassen, whose OS numbers
 * have holes (PUs outside the cgroup are not in the model).
 *
 * Properties: a rejection is -EINVAL, -ERANGE or -ENOENT; an accepted set
 * holds only PUs of the topology, and cpulist_format() writes a list that
 * parses back to the same set.
 */
#include <errno.h>

#include "core/vcpuplace.h"
#include "topology_load.h"
#include "fuzz.h"

static struct vp_topo *topo;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	topo = fz_load_topology("cpulist");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[8 * VP_MAX_PUS];
	struct vp_cpuset s, back;
	char *in = fz_cstr(data, size);
	int r, pu, n;

	r = cpulist_parse(topo, in, &s);
	if (r < 0) {
		FZ_CHECK(r == -EINVAL || r == -ERANGE || r == -ENOENT,
		    "returned %d", r);
		free(in);
		return 0;
	}
	FZ_CHECK(r == 0, "returned %d", r);
	for (pu = 0; pu < VP_MAX_PUS; pu++)
		FZ_CHECK(!cpuset_test(&s, pu) || pu < topo->npus,
		    "PU %d is not in the topology (%d PUs)", pu, topo->npus);
	FZ_CHECK(!cpuset_empty(&s), "an accepted list is empty");
	n = cpulist_format(topo, &s, text, sizeof(text));
	FZ_CHECK(n > 0, "cpulist_format() returned %d", n);
	r = cpulist_parse(topo, text, &back);
	FZ_CHECK(r == 0, "'%s' does not parse back (%d)", text, r);
	FZ_CHECK(cpuset_equal(&s, &back), "'%s' is another set", text);
	free(in);
	return 0;
}
