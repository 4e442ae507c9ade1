/*
 * fz_scenario.c - scenario_parse() (daemon/host/scenario.c), the JSON of
 * `vcpuplacectl plan --scenario`, against coral-lassen (OS numbers with
 * holes), loaded once.
 *
 * Properties: a rejection is -EINVAL with a message naming the field;
 * an accepted scenario has named VMs of 1..8192 vCPUs, policies in
 * range, and busy and reserved sets made of the topology's PUs.
 */
#include <errno.h>

#include <json-c/json.h>

#include "topology_load.h"
#include "host/scenario.h"
#include "policy_check.h"

static struct vp_topo *topo;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* json-c seeds its string hash at random: fix it, for -seed= runs */
	json_global_set_string_hash(JSON_C_STR_HASH_PERLLIKE);
	topo = fz_load_topology("scenario");
	return 0;
}

static void
check_set(const struct vp_cpuset *s, const char *what)
{
	for (int pu = topo->npus; pu < VP_MAX_PUS; pu++)
		FZ_CHECK(!cpuset_test(s, pu), "%s holds PU %d of %d", what, pu,
		    topo->npus);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vp_scenario *s = NULL;
	char *text = fz_cstr(data, size), err[512];
	int r, i;

	err[0] = '\0';
	r = scenario_parse(topo, text, &s, err, sizeof(err));
	if (r < 0) {
		FZ_CHECK(r == -EINVAL || r == -ENOMEM, "returned %d", r);
		FZ_CHECK(r != -EINVAL || err[0], "rejected without a message");
		FZ_CHECK(!s, "*ret set on failure");
		free(text);
		return 0;
	}
	FZ_CHECK(r == 0 && s, "returned %d", r);
	FZ_CHECK(s->nvms >= 0, "nvms %d", s->nvms);
	for (i = 0; i < s->nvms; i++) {
		FZ_CHECK(s->vms[i].name, "vms[%d] has no name", i);
		FZ_CHECK(s->vms[i].nvcpus >= 1 && s->vms[i].nvcpus <= 8192,
		    "vms[%d].vcpus %d", i, s->vms[i].nvcpus);
		fz_check_policy(&s->vms[i].policy);
	}
	check_set(&s->busy, "busy");
	check_set(&s->reserved, "reserve");
	scenario_free(s);
	free(text);
	return 0;
}
