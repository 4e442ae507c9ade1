/*
 * test_tick.c - one planning round of the service on a real topology:
 * the planner and the core's churn rules wired to the daemon's state.
 * A new VM is moved at once; a round that cannot plan keeps every
 * placement, is counted every time, and remembers its cause (so it is
 * logged once, not every tick).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "vcpuplaced/daemon.h"
#include "../suites.h"
#include "../testutil.h"

#define NVCPUS	4

struct world {
	struct vp_daemon d;
	struct vp_vm vm;
	struct vp_vcpu vcpu[NVCPUS];
};

/* One running VM with the default policy, seen for the first time. */
static void
setup(struct world *w)
{
	int k;

	memset(w, 0, sizeof(*w));
	w->d.topo = load_topo("g4dnmetal.xml");
	features_default(&w->d.feat);
	w->d.tick_ms = 250;
	snprintf(w->vm.name, sizeof(w->vm.name), "web");
	policy_default(&w->vm.policy);
	w->vm.policy_known = true;
	w->vm.replace = true;
	w->vm.nvcpus = NVCPUS;
	w->vm.vcpu = w->vcpu;
	for (k = 0; k < NVCPUS; k++) {
		w->vcpu[k].current = w->vcpu[k].home =
		    w->vcpu[k].placed_home = VP_PU_NONE;
		w->vcpu[k].affinity = w->d.topo->all;	/* libvirt's default */
	}
	w->d.vm = &w->vm;
	w->d.nvms = 1;
	w->d.inventory_gen = 1;
}

static void
teardown(struct world *w)
{
	tick_free(&w->d);
	topo_free(w->d.topo);
}

START_TEST(test_new_vm_moves_at_once)
{
	struct world w;
	int k;

	setup(&w);
	tick_plan(&w.d);
	ck_assert_int_eq(w.d.plan_error, 0);
	ck_assert_uint_eq(w.d.c.plan_failures, 0);
	for (k = 0; k < NVCPUS; k++) {
		/* urgent: no hysteresis, no cooldown for a new VM */
		ck_assert_msg(w.vcpu[k].move, "vCPU %d not moved", k);
		ck_assert(!cpuset_empty(&w.vcpu[k].planned));
		ck_assert(cpuset_subset(&w.vcpu[k].planned, &w.d.topo->all));
		ck_assert(cpuset_test(&w.vcpu[k].planned, w.vcpu[k].home));
	}
	teardown(&w);
}
END_TEST

START_TEST(test_failed_round_keeps_placement)
{
	struct world w;
	struct vp_cpuset before;
	int k;

	setup(&w);
	/* every PU reserved for the host: the planner must refuse */
	w.d.reserved = w.d.topo->all;
	before = w.vcpu[0].affinity;
	for (k = 0; k < 3; k++)
		tick_plan(&w.d);
	ck_assert_int_eq(w.d.plan_error, -EINVAL);
	ck_assert_uint_eq(w.d.c.plan_failures, 3);
	for (k = 0; k < NVCPUS; k++)
		ck_assert_msg(!w.vcpu[k].move, "vCPU %d moved", k);
	ck_assert(cpuset_equal(&w.vcpu[0].affinity, &before));
	/* the host gives PUs back: planning works again, and places */
	cpuset_zero(&w.d.reserved);
	w.d.inventory_gen++;
	tick_plan(&w.d);
	ck_assert_int_eq(w.d.plan_error, 0);
	ck_assert_uint_eq(w.d.c.plan_failures, 3);
	ck_assert(w.vcpu[0].move);
	teardown(&w);
}
END_TEST

/* Paused or not, tick_plan() itself plans; the loop decides to call it. */
START_TEST(test_second_round_waits)
{
	struct world w;
	int k;

	setup(&w);
	tick_plan(&w.d);
	for (k = 0; k < NVCPUS; k++) {	/* as if actuate_apply() pinned */
		w.vcpu[k].affinity = w.vcpu[k].planned;
		w.vcpu[k].placed_home = w.vcpu[k].home;
		w.vcpu[k].move = false;
	}
	tick_plan(&w.d);
	for (k = 0; k < NVCPUS; k++)
		ck_assert_msg(!w.vcpu[k].move, "vCPU %d moved again", k);
	ck_assert(!w.vm.replace);
	teardown(&w);
}
END_TEST

/*
 * An event round moves a new VM at once but leaves a move that is not
 * urgent to the ticks: however many events come, its hysteresis does not
 * advance, and the ticks then move it after VP_CHURN_HYSTERESIS_TICKS.
 */
START_TEST(test_event_round_urgent_only)
{
	struct world w;
	int k, i;

	setup(&w);
	tick_plan_urgent(&w.d);
	for (k = 0; k < NVCPUS; k++) {
		ck_assert_msg(w.vcpu[k].move, "new VM: vCPU %d not moved", k);
		w.vcpu[k].affinity = w.vcpu[k].planned;
		w.vcpu[k].placed_home = w.vcpu[k].home;
		w.vcpu[k].move = false;
	}
	tick_plan(&w.d);
	ck_assert(!w.vm.replace);
	/* moved behind our back to a set that breaks no rule: not urgent */
	w.vcpu[0].affinity = w.d.topo->all;
	w.vcpu[0].last_move_ns = 0;
	for (i = 0; i < 5; i++) {
		tick_plan_urgent(&w.d);
		ck_assert_msg(!w.vcpu[0].move, "event round %d moved it", i);
		ck_assert_int_eq(w.vcpu[0].pending_ticks, 0);
	}
	for (i = 1; i < VP_CHURN_HYSTERESIS_TICKS; i++) {
		tick_plan(&w.d);
		ck_assert(!w.vcpu[0].move);
	}
	tick_plan(&w.d);
	ck_assert(w.vcpu[0].move);
	teardown(&w);
}
END_TEST

Suite *
tick_suite(void)
{
	Suite *s = suite_create("tick");
	TCase *tc = tcase_create("plan");

	tcase_add_test(tc, test_new_vm_moves_at_once);
	tcase_add_test(tc, test_failed_round_keeps_placement);
	tcase_add_test(tc, test_second_round_waits);
	tcase_add_test(tc, test_event_round_urgent_only);
	suite_add_tcase(s, tc);
	return s;
}
