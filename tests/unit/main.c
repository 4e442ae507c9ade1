/*
 * main.c - runs every unit-test suite (core/, host/, vcpuplaced/) in one
 * SRunner.  The topologies are read from $VP_TOPOLOGY_DIR.
 */
#include <stdlib.h>

#include <check.h>

#include "suites.h"

int main(void)
{
	SRunner *sr;
	int failed;

	sr = srunner_create(features_suite());
	srunner_add_suite(sr, cpuset_suite());
	srunner_add_suite(sr, cpulist_suite());
	srunner_add_suite(sr, topo_suite());
	srunner_add_suite(sr, idlemask_suite());
	srunner_add_suite(sr, prio_suite());
	srunner_add_suite(sr, scan_suite());
	srunner_add_suite(sr, place_suite());
	srunner_add_suite(sr, plan_suite());
	srunner_add_suite(sr, churn_suite());
	srunner_add_suite(sr, conflict_suite());
	srunner_add_suite(sr, wakedom_suite());
	srunner_add_suite(sr, coregrant_suite());
	srunner_add_suite(sr, policy_suite());
	srunner_add_suite(sr, policy_xml_suite());
	srunner_add_suite(sr, nova_xml_suite());
	srunner_add_suite(sr, choose_suite());
	srunner_add_suite(sr, domxml_suite());
	srunner_add_suite(sr, schedfeat_suite());
	srunner_add_suite(sr, smallfile_suite());
	srunner_add_suite(sr, peer_suite());
	srunner_add_suite(sr, isolation_suite());
	srunner_add_suite(sr, qemu_suite());
	srunner_add_suite(sr, cputune_suite());
	srunner_add_suite(sr, scx_suite());
	srunner_add_suite(sr, scxfeed_suite());
	srunner_add_suite(sr, procevents_suite());
	srunner_add_suite(sr, scxwake_suite());
	srunner_add_suite(sr, wakecheck_suite());
	srunner_add_suite(sr, command_suite());
	srunner_add_suite(sr, tick_suite());
	srunner_add_suite(sr, load_suite());
	srunner_add_suite(sr, inventory_suite());
	srunner_add_suite(sr, answers_suite());
	srunner_add_suite(sr, schedext_suite());
	srunner_add_suite(sr, kernelmode_suite());
	srunner_add_suite(sr, sampler_suite());
	srunner_add_suite(sr, hwtopo_suite());
	srunner_add_suite(sr, server_suite());
	srunner_add_suite(sr, atomicfile_suite());
	srunner_add_suite(sr, procstat_suite());
	srunner_add_suite(sr, privs_suite());
	srunner_add_suite(sr, privileges_suite());
	srunner_add_suite(sr, virt_suite());
	srunner_add_suite(sr, virt_msg_suite());

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
