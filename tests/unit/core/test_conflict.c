/*
 * test_conflict.c - conflict.c: idle cores and SMT conflicts, on
 * g4dnmetal (SMT2: OS CPUs n and n+48 share a core) and, for the idle
 * cores, on topologies of every SMT width.
 */
#include <string.h>

#include <check.h>

#include "../suites.h"
#include "../testutil.h"

/* The set of the OS CPUs listed, ended by -1. */
static struct vp_cpuset os_set(const struct vp_topo *t, const int *os)
{
	struct vp_cpuset s;

	cpuset_zero(&s);
	for (; *os >= 0; os++)
		cpuset_set(&s, os2pu(t, (unsigned int)*os));
	return s;
}

/* Is a busy vCPU on OS CPU 1, pinned to @allowed, a conflict in @busy? */
static bool conflict_on_1(const struct vp_topo *t, const int *busy_os,
    const int *allowed_os, bool vcpu_busy)
{
	struct vp_cpuset busy = os_set(t, busy_os);
	struct vp_cpuset allowed = os_set(t, allowed_os);
	struct vp_cpuset idle;
	struct vp_conflict_vcpu v = { .busy = vcpu_busy,
		.current = os2pu(t, 1), .allowed = &allowed };

	conflict_idle_core_pus(t, &busy, &idle);
	return conflict_vcpu(t, &busy, &idle, &v);
}

/*
 * Core {1,49} is full: our vCPU on 1, other work on 49.  Its allowed set
 * also has OS 2, whose core {2,50} is idle: a conflict.
 */
START_TEST(test_conflict_idle_core_allowed)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	static const int busy[] = { 1, 49, -1 }, allowed[] = { 1, 2, -1 };

	ck_assert(conflict_on_1(t, busy, allowed, true));
	/* a vCPU that was not busy is not one */
	ck_assert(!conflict_on_1(t, busy, allowed, false));
}
END_TEST

/* The same, but the other core of its allowed set is half busy. */
START_TEST(test_conflict_no_idle_core_allowed)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	static const int busy[] = { 1, 49, 51, -1 };
	static const int allowed[] = { 1, 3, -1 }, other[] = { 1, 2, -1 };

	ck_assert(!conflict_on_1(t, busy, allowed, true));
	/* with an idle core allowed, the same load is one */
	ck_assert(conflict_on_1(t, busy, other, true));
}
END_TEST

/* Alone on its core: no conflict, however many idle cores it may use. */
START_TEST(test_conflict_sibling_idle)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	static const int busy[] = { 1, 3, 51, -1 };
	static const int allowed[] = { 1, 2, 4, 6, -1 };

	ck_assert(!conflict_on_1(t, busy, allowed, true));
}
END_TEST

/* A vCPU not seen running yet is never counted. */
START_TEST(test_conflict_current_unknown)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	static const int busy_os[] = { 1, 49, -1 }, allowed_os[] = { 1, 2, -1 };
	struct vp_cpuset busy = os_set(t, busy_os);
	struct vp_cpuset allowed = os_set(t, allowed_os);
	struct vp_cpuset idle;
	struct vp_conflict_vcpu v = { .busy = true, .current = VP_PU_NONE,
		.allowed = &allowed };

	conflict_idle_core_pus(t, &busy, &idle);
	ck_assert(!conflict_vcpu(t, &busy, &idle, &v));
}
END_TEST

/* Idle cores against the per-core oracle, on random loads. */
START_TEST(test_conflict_idle_cores)
{
	static const char *const files[] = { "g4dnmetal.xml",
		"knl-snc4-flat-hwloc1.xml", "coral-lassen.xml",
		"128arm-2pa2n8cluster4co.xml" };
	_cleanup_topo_ struct vp_topo *t = load_topo(files[_i]);
	struct vp_cpuset busy, idle;
	struct rng r;
	int pct, pu, nidle = 0;

	rng_seed(&r, 42 + _i);
	for (pct = 0; pct <= 100; pct += 10) {
		rng_set(&r, t, pct, &busy);
		memset(&idle, 0xa5, sizeof(idle));	/* overwritten */
		conflict_idle_core_pus(t, &busy, &idle);
		for (pu = 0; pu < VP_MAX_PUS; pu++) {
			bool want = pu < t->npus && core_idle(t, &busy, pu);

			ck_assert_msg(cpuset_test(&idle, pu) == want,
			    "%s, %d%% busy: PU %d idle-core %d", files[_i],
			    pct, pu, !want);
			nidle += want;
		}
	}
	/* the loads went from all idle to all busy */
	ck_assert_int_gt(nidle, t->npus);
}
END_TEST

Suite *conflict_suite(void)
{
	Suite *s = suite_create("conflict");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_conflict_idle_core_allowed);
	tcase_add_test(tc, test_conflict_no_idle_core_allowed);
	tcase_add_test(tc, test_conflict_sibling_idle);
	tcase_add_test(tc, test_conflict_current_unknown);
	tcase_add_loop_test(tc, test_conflict_idle_cores, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}
