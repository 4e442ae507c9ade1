/*
 * test_coregrant.c - core grants: busy vCPUs (by run time or by wait per
 * slice) get whole distinct cores of their pool, sticky across ticks and
 * near their last PU; the others share the pool without the granted
 * cores; grants stop where the others' demand needs the PUs.  On
 * g4dn.metal (2 x 24 cores x 2 threads).
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "core/coregrant.h"
#include "../suites.h"
#include "../testutil.h"

#define TICK	250000000ull

static const struct vp_grant_cfg cfg = {
	.tick_ns = TICK, .busy_pct = 50, .wait_ns = 100000,
};

static struct vp_grant_stat
stat_of(uint64_t run, uint64_t wait, uint64_t slices, int last_pu)
{
	struct vp_grant_stat s = { run, wait, slices, last_pu };

	return s;
}

START_TEST(test_busy_rule)
{
	struct vp_grant_stat s;

	s = stat_of(TICK * 6 / 10, 0, 10, 0);	/* ran 60 % */
	ck_assert(coregrant_busy(&cfg, &s));
	s = stat_of(TICK * 4 / 10, 0, 10, 0);	/* ran 40 %, no wait */
	ck_assert(!coregrant_busy(&cfg, &s));
	s = stat_of(TICK / 10, 10 * 200000, 10, 0);	/* 200 us a slice */
	ck_assert(coregrant_busy(&cfg, &s));
	s = stat_of(TICK / 10, 10 * 50000, 10, 0);	/* 50 us a slice */
	ck_assert(!coregrant_busy(&cfg, &s));
	s = stat_of(0, 0, 0, VP_PU_NONE);	/* never ran */
	ck_assert(!coregrant_busy(&cfg, &s));
}
END_TEST

/* Four vCPUs in one LLC: two busy, two light. */
START_TEST(test_busy_get_whole_distinct_cores)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	const struct vp_llc *l = &t->llc[0];
	struct vp_grant_stat st[4];
	struct vp_cpuset pool[4], al[4];
	int core[4] = { -1, -1, -1, -1 }, i, pu;

	for (i = 0; i < 4; i++) {
		cpuset_zero(&pool[i]);
		cpuset_set_range(&pool[i], l->first_pu, l->npus);
	}
	st[0] = stat_of(TICK * 9 / 10, 0, 5, l->first_pu + 20);
	st[1] = stat_of(TICK / 20, 0, 100, l->first_pu);
	st[2] = stat_of(TICK / 5, 50 * 300000, 50, l->first_pu + 1);
	st[3] = stat_of(TICK / 20, 0, 100, l->first_pu + 1);
	ck_assert_int_eq(coregrant_plan(t, &cfg, st, NULL, pool, 4, core, al), 2);
	ck_assert_int_ge(core[0], 0);
	ck_assert_int_ge(core[2], 0);
	ck_assert_int_ne(core[0], core[2]);
	ck_assert_int_eq(core[1], -1);
	ck_assert_int_eq(core[3], -1);
	for (i = 0; i < 4; i += 2) {
		const struct vp_core *c = &t->core[core[i]];

		ck_assert_int_eq(cpuset_count(&al[i]), c->npus);
		ck_assert_int_eq(cpuset_count_range(&al[i], c->first_pu,
		    c->npus), c->npus);
		ck_assert(cpuset_subset(&al[i], &pool[i]));
	}
	/* the light ones share the pool less both granted cores */
	for (i = 1; i < 4; i += 2) {
		ck_assert(cpuset_subset(&al[i], &pool[i]));
		ck_assert(!cpuset_intersects(&al[i], &al[0]));
		ck_assert(!cpuset_intersects(&al[i], &al[2]));
		ck_assert_int_eq(cpuset_count(&al[i]), l->npus - 4);
	}
	/* the first busy one got the core of its last PU */
	pu = l->first_pu + 20;
	ck_assert_int_eq(core[0], t->pu[pu].core);
}
END_TEST

/* A grant sticks to its core while the vCPU stays busy, even when it
 * last ran elsewhere; it goes once the vCPU is idle. */
START_TEST(test_grant_sticks)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	const struct vp_llc *l = &t->llc[0];
	struct vp_grant_stat st[1];
	struct vp_cpuset pool[1], al[1];
	int core[1], want = t->pu[l->first_pu + 10].core;

	cpuset_zero(&pool[0]);
	cpuset_set_range(&pool[0], l->first_pu, l->npus);
	core[0] = want;
	st[0] = stat_of(TICK, 0, 1, l->first_pu);
	ck_assert_int_eq(coregrant_plan(t, &cfg, st, NULL, pool, 1, core, al), 1);
	ck_assert_int_eq(core[0], want);
	st[0] = stat_of(TICK / 100, 0, 10, l->first_pu);
	ck_assert_int_eq(coregrant_plan(t, &cfg, st, NULL, pool, 1, core, al), 0);
	ck_assert_int_eq(core[0], -1);
	ck_assert(cpuset_equal(&al[0], &pool[0]));
}
END_TEST

/* All busy, more vCPUs than cores: grants stop where the rest need the
 * PUs, and nobody is left without a PU. */
START_TEST(test_budget_leaves_the_rest_room)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	const struct vp_llc *l = &t->llc[0];
	enum { N = 30 };	/* 24 cores, 48 PUs in the LLC */
	struct vp_grant_stat st[N];
	struct vp_cpuset pool[N], al[N];
	int core[N], i, got, free_pus;

	for (i = 0; i < N; i++) {
		cpuset_zero(&pool[i]);
		cpuset_set_range(&pool[i], l->first_pu, l->npus);
		st[i] = stat_of(TICK, 0, 80, VP_PU_NONE);
		core[i] = -1;
	}
	got = coregrant_plan(t, &cfg, st, NULL, pool, N, core, al);
	/* g grants leave 48 - 2g PUs for N - g others: 2g <= 48 - (30 - g)
	 * gives g <= 18 */
	ck_assert_int_eq(got, 18);
	for (i = 0; i < N; i++) {
		ck_assert(!cpuset_empty(&al[i]));
		if (core[i] >= 0)
			continue;
		free_pus = cpuset_count(&al[i]);
		ck_assert_int_eq(free_pus, l->npus - 2 * got);
	}
}
END_TEST

/* Two busy vCPUs, a pool of exactly two cores: both get one, however
 * the doubles of their demands round (57 % + 51 % leaves 1e-16). */
START_TEST(test_budget_exact_fit)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_grant_stat st[2] = {
		stat_of(TICK * 57 / 100, 0, 10, VP_PU_NONE),
		stat_of(TICK * 51 / 100, 0, 10, VP_PU_NONE),
	};
	struct vp_cpuset pool[2], al[2];
	int core[2] = { -1, -1 };

	cpuset_zero(&pool[0]);
	cpuset_set_range(&pool[0], t->core[0].first_pu,
	    t->core[0].npus + t->core[1].npus);
	pool[1] = pool[0];
	ck_assert_int_eq(coregrant_plan(t, &cfg, st, NULL, pool, 2, core, al),
	    2);
}
END_TEST

/* A pool without a whole core gives no grant. */
START_TEST(test_no_partial_cores)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_grant_stat st[1] = { stat_of(TICK, 0, 1, 0) };
	struct vp_cpuset pool[1], al[1];
	const struct vp_core *c = &t->core[0];
	int core[1] = { -1 };

	ck_assert_int_eq(c->npus, 2);
	cpuset_zero(&pool[0]);
	cpuset_set(&pool[0], c->first_pu);
	ck_assert_int_eq(coregrant_plan(t, &cfg, st, NULL, pool, 1, core, al), 0);
	ck_assert(cpuset_equal(&al[0], &pool[0]));
	ck_assert_int_eq(coregrant_plan(t, NULL, st, NULL, pool, 1, core, al),
	    -EINVAL);
}
END_TEST

/* A busy VM of 2 vCPUs (a client/server pair, about one core's demand)
 * shares one core; a 4-vCPU VM of hogs gets 4 cores; a light VM none. */
START_TEST(test_vm_groups)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	const struct vp_llc *l = &t->llc[0];
	enum { N = 8 };
	static const int vm[N] = { 0, 0, 1, 1, 1, 1, 2, 2 };
	struct vp_grant_stat st[N];
	struct vp_cpuset pool[N], al[N];
	int core[N], i;

	for (i = 0; i < N; i++) {
		cpuset_zero(&pool[i]);
		cpuset_set_range(&pool[i], l->first_pu, l->npus);
		core[i] = -1;
	}
	st[0] = stat_of(TICK * 35 / 100, 0, 1000, l->first_pu);
	st[1] = stat_of(TICK * 60 / 100, 0, 1000, l->first_pu + 1);
	for (i = 2; i < 6; i++)
		st[i] = stat_of(TICK, 0, 25, l->first_pu + 20);
	st[6] = st[7] = stat_of(TICK / 10, 0, 100, VP_PU_NONE);
	/* 1 + 4 cores */
	ck_assert_int_eq(coregrant_plan(t, &cfg, st, vm, pool, N, core, al),
	    5);
	/* the pair: one core, the one it ran on, both PUs for both */
	ck_assert_int_eq(cpuset_count(&al[0]), t->core[0].npus);
	ck_assert(cpuset_equal(&al[0], &al[1]));
	ck_assert(cpuset_test(&al[0], l->first_pu));
	/* the hogs: 4 whole cores, the same set for all four */
	ck_assert_int_eq(cpuset_count(&al[2]), 8);
	for (i = 3; i < 6; i++)
		ck_assert(cpuset_equal(&al[i], &al[2]));
	ck_assert(!cpuset_intersects(&al[0], &al[2]));
	/* the light VM: what is left */
	ck_assert_int_eq(cpuset_count(&al[6]), l->npus - 10);
	ck_assert(!cpuset_intersects(&al[6], &al[0]));
	ck_assert(!cpuset_intersects(&al[6], &al[2]));
	/* next tick, same figures: the same cores */
	{
		struct vp_cpuset again[N];

		ck_assert_int_eq(coregrant_plan(t, &cfg, st, vm, pool, N, core,
		    again), 5);
		for (i = 0; i < N; i++)
			ck_assert(cpuset_equal(&again[i], &al[i]));
	}
}
END_TEST

Suite *
coregrant_suite(void)
{
	Suite *s = suite_create("coregrant");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_busy_rule);
	tcase_add_test(tc, test_busy_get_whole_distinct_cores);
	tcase_add_test(tc, test_grant_sticks);
	tcase_add_test(tc, test_budget_leaves_the_rest_room);
	tcase_add_test(tc, test_no_partial_cores);
	tcase_add_test(tc, test_vm_groups);
	tcase_add_test(tc, test_budget_exact_fit);
	suite_add_tcase(s, tc);
	return s;
}
