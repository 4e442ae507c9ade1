/*
 * test_place.c - place.c: the order of the tries of place_select(), the
 * reasons it gives, and that the result never leaves @allowed.
 */
#include <errno.h>
#include <string.h>

#include <check.h>

#include "../suites.h"
#include "../testutil.h"

static void req_init(struct vp_place_req *r, int home, int prev,
    const struct vp_cpuset *allowed)
{
	memset(r, 0, sizeof(*r));
	r->home = home;
	r->prev = prev;
	r->allowed = allowed;
	r->smt = VP_SMT_PREFER_IDLE_CORE;
	r->cache_hot = true;
	r->slept_ns = 1000;
	r->short_sleep_ns = 50000;
}

static struct vp_place_res place(struct tview *tv,
    const struct vp_place_req *r)
{
	struct vp_place_res res;

	memset(&res, 0xee, sizeof(res));
	tv->v.probes = 0;
	ck_assert_int_eq(place_select(&tv->v, r, &res), 0);
	ck_assert_int_ne(res.pu, VP_PU_NONE);
	ck_assert(cpuset_test(r->allowed, res.pu));
	return res;
}

START_TEST(test_place_home_idle)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_place_req r;
	struct vp_place_res res;
	struct tview tv;
	int home = os2pu(t, 7);

	tview_init(&tv, t);
	req_init(&r, home, os2pu(t, 9), &t->all);
	res = place(&tv, &r);
	ck_assert_int_eq(res.pu, home);
	ck_assert_int_eq(res.reason, VP_REASON_HOME_IDLE);
	ck_assert_uint_eq(res.probes, 2);	/* home and its sibling */
	tview_release(&tv);
}
END_TEST

/*
 * An idle home whose sibling is busy loses to a whole idle core of its
 * LLC (SIS_CORE + SMT_PRIO, as the kernel series' patch 3), but is kept
 * when no such core exists, or with SMT_PRIO off, or for smt=any.
 */
START_TEST(test_place_home_sibling_busy)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	int home = os2pu(t, 7), sib = os2pu(t, 55);	/* core 7's PUs */
	struct vp_place_req r;
	struct vp_place_res res;
	struct tview tv;
	int pu;

	ck_assert_int_eq(t->pu[home].core, t->pu[sib].core);
	tview_init(&tv, t);
	cpuset_set(&tv.busy, sib);
	tview_sync(&tv);
	req_init(&r, home, VP_PU_NONE, &t->all);
	res = place(&tv, &r);
	ck_assert_int_eq(res.reason, VP_REASON_IDLE_CORE);
	ck_assert_int_ne(t->pu[res.pu].core, t->pu[home].core);
	ck_assert_int_eq(t->pu[res.pu].llc, t->pu[home].llc);

	r.smt = VP_SMT_ANY;
	res = place(&tv, &r);
	ck_assert_int_eq(res.pu, home);
	ck_assert_int_eq(res.reason, VP_REASON_HOME_IDLE);

	r.smt = VP_SMT_PREFER_IDLE_CORE;
	tv.feat.on[VP_FEAT_SMT_PRIO] = false;
	res = place(&tv, &r);
	ck_assert_int_eq(res.pu, home);
	tv.feat.on[VP_FEAT_SMT_PRIO] = true;

	/* every other core of the LLC half busy: the home is as good */
	for (pu = t->llc[t->pu[home].llc].first_pu;
	    pu < t->llc[t->pu[home].llc].first_pu +
	    t->llc[t->pu[home].llc].npus; pu++)
		if (pu != home && t->core[t->pu[pu].core].first_pu == pu)
			cpuset_set(&tv.busy, pu == t->core[t->pu[home].core].first_pu ?
			    sib : pu);
	tview_sync(&tv);
	res = place(&tv, &r);
	ck_assert_int_eq(res.pu, home);
	ck_assert_int_eq(res.reason, VP_REASON_HOME_IDLE);
	tview_release(&tv);
}
END_TEST

/* llc_only: the wake path of the kernel never leaves the home's LLC. */
START_TEST(test_place_llc_only)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	const struct vp_llc *l;
	struct vp_place_req r;
	struct vp_place_res res;
	struct tview tv;
	int home = os2pu(t, 7);

	tview_init(&tv, t);
	l = &t->llc[t->pu[home].llc];
	cpuset_set_range(&tv.busy, l->first_pu, l->npus);
	tview_sync(&tv);
	req_init(&r, home, VP_PU_NONE, &t->all);
	res = place(&tv, &r);
	ck_assert_int_eq(res.reason, VP_REASON_OTHER_LLC);
	r.llc_only = true;
	res = place(&tv, &r);
	ck_assert_int_eq(res.reason, VP_REASON_FALLBACK);
	ck_assert_int_eq(res.pu, home);
	tview_release(&tv);
}
END_TEST

/*
 * Home busy; prev = OS 9 idle with its sibling busy; a whole idle core
 * (OS 20, 68) elsewhere in the home LLC.  Cache-hot takes prev, any
 * other path takes the idle core.
 */
static struct vp_place_res cache_case(bool cache_hot, bool feature,
    uint64_t slept, uint64_t short_sleep, bool prev_busy)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_place_req r;
	struct vp_place_res res;
	struct tview tv;

	tview_init(&tv, t);
	tv.feat.on[VP_FEAT_SIS_CACHE] = feature;
	tv.busy = t->all;
	cpuset_clear(&tv.busy, os2pu(t, 9));
	cpuset_clear(&tv.busy, os2pu(t, 20));
	cpuset_clear(&tv.busy, os2pu(t, 68));
	if (prev_busy)
		cpuset_set(&tv.busy, os2pu(t, 9));
	tview_sync(&tv);
	req_init(&r, os2pu(t, 7), os2pu(t, 9), &t->all);
	r.cache_hot = cache_hot;
	r.slept_ns = slept;
	r.short_sleep_ns = short_sleep;
	res = place(&tv, &r);
	if (res.reason != VP_REASON_CACHE_HOT) {
		ck_assert(res.pu == os2pu(t, 20) || res.pu == os2pu(t, 68));
		ck_assert_int_eq(res.reason, VP_REASON_IDLE_CORE);
	} else {
		ck_assert_int_eq(res.pu, os2pu(t, 9));
	}
	tview_release(&tv);
	return res;
}

START_TEST(test_place_cache_hot)
{
	ck_assert_int_eq(cache_case(true, true, 1000, 50000, false).reason,
	    VP_REASON_CACHE_HOT);
	ck_assert_int_eq(cache_case(true, true, 49999, 50000, false).reason,
	    VP_REASON_CACHE_HOT);
}
END_TEST

START_TEST(test_place_cache_hot_not)
{
	/* the policy does not allow it */
	ck_assert_int_eq(cache_case(false, true, 1000, 50000, false).reason,
	    VP_REASON_IDLE_CORE);
	/* SIS_CACHE off */
	ck_assert_int_eq(cache_case(true, false, 1000, 50000, false).reason,
	    VP_REASON_IDLE_CORE);
	/* a long sleep, or an unknown usual sleep */
	ck_assert_int_eq(cache_case(true, true, 50000, 50000, false).reason,
	    VP_REASON_IDLE_CORE);
	ck_assert_int_eq(cache_case(true, true, 90000, 50000, false).reason,
	    VP_REASON_IDLE_CORE);
	ck_assert_int_eq(cache_case(true, true, 1000, 0, false).reason,
	    VP_REASON_IDLE_CORE);
	/* the previous PU is busy */
	ck_assert_int_eq(cache_case(true, true, 1000, 50000, true).reason,
	    VP_REASON_IDLE_CORE);
}
END_TEST

/* Home busy: the home LLC's idle core, then an idle sibling. */
START_TEST(test_place_home_llc)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("coral-lassen.xml");
	int home = t->llc[4].first_pu + 1;
	const struct vp_core *c = &t->core[t->llc[4].first_core + 1];
	struct vp_place_req r;
	struct vp_place_res res;
	struct tview tv;

	tview_init(&tv, t);
	tv.busy = t->all;
	cpuset_clear(&tv.busy, c->first_pu + 1);
	/* an idle PU in another LLC does not beat the home LLC */
	cpuset_clear(&tv.busy, t->llc[5].first_pu);
	tview_sync(&tv);
	req_init(&r, home, VP_PU_NONE, &t->all);
	res = place(&tv, &r);
	ck_assert_int_eq(res.pu, c->first_pu + 1);
	ck_assert_int_eq(res.reason, VP_REASON_IDLE_SIBLING);

	cpuset_clear(&tv.busy, c->first_pu);
	cpuset_clear(&tv.busy, c->first_pu + 2);
	cpuset_clear(&tv.busy, c->first_pu + 3);
	tview_sync(&tv);
	res = place(&tv, &r);
	ck_assert_int_eq(t->pu[res.pu].core, t->llc[4].first_core + 1);
	ck_assert_int_eq(res.reason, VP_REASON_IDLE_CORE);
	tview_release(&tv);
}
END_TEST

/*
 * Home LLC fully busy: another allowed LLC, same package first.  Home is
 * in the last LLC of package 0, so the next package's first LLC is the
 * nearest by index but the farthest by package (epyc-corona).
 */
START_TEST(test_place_other_llc)
{
	static const char *const files[] = { "g4dnmetal.xml",
		"epyc-corona.xml" };
	_cleanup_topo_ struct vp_topo *t = load_topo(files[_i]);
	int hl = 0, home, far, near;
	struct vp_place_req r;
	struct vp_place_res res;
	struct tview tv;

	while (hl + 1 < t->nllcs && t->llc[hl + 1].package == t->llc[0].package)
		hl++;
	ck_assert_int_lt(hl + 1, t->nllcs);
	home = t->llc[hl].first_pu + 2;
	far = t->llc[hl + 1].first_pu + t->llc[hl + 1].npus - 1;
	ck_assert_int_ne(t->pu[far].package, t->pu[home].package);
	tview_init(&tv, t);
	tv.busy = t->all;
	cpuset_clear(&tv.busy, far);
	tview_sync(&tv);
	req_init(&r, home, VP_PU_NONE, &t->all);
	res = place(&tv, &r);
	ck_assert_int_eq(res.pu, far);
	ck_assert_int_eq(res.reason, VP_REASON_OTHER_LLC);

	if (hl > 0) {
		/* epyc: an LLC of the same package is preferred */
		near = t->llc[0].first_pu + 1;
		ck_assert_int_eq(t->pu[near].package, t->pu[home].package);
		cpuset_clear(&tv.busy, near);
		tview_sync(&tv);
		res = place(&tv, &r);
		ck_assert_int_eq(res.pu, near);
		ck_assert_int_eq(res.reason, VP_REASON_OTHER_LLC);
	}
	/* not when that LLC is outside allowed: fallback */
	{
		struct vp_cpuset a;

		cpuset_zero(&a);
		topo_add_llc(t, home, &a);
		r.allowed = &a;
		res = place(&tv, &r);
		ck_assert_int_eq(res.reason, VP_REASON_FALLBACK);
		ck_assert_int_eq(t->pu[res.pu].llc, hl);
	}
	tview_release(&tv);
}
END_TEST

START_TEST(test_place_fallback)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("epyc-corona.xml");
	struct vp_cpuset allowed;
	struct vp_place_req r;
	struct vp_place_res res;
	struct tview tv;

	tview_init(&tv, t);
	tv.busy = t->all;
	tview_sync(&tv);
	cpuset_zero(&allowed);
	os_range(t, &allowed, 30, 33);
	os_range(t, &allowed, 90, 90);
	/* home and prev outside allowed */
	req_init(&r, os2pu(t, 0), os2pu(t, 1), &allowed);
	res = place(&tv, &r);
	ck_assert_int_eq(res.reason, VP_REASON_FALLBACK);
	/* home idle but not allowed */
	cpuset_clear(&tv.busy, os2pu(t, 0));
	tview_sync(&tv);
	res = place(&tv, &r);
	ck_assert_int_eq(res.reason, VP_REASON_FALLBACK);
	ck_assert_int_ne(res.pu, os2pu(t, 0));
	/* no home, no prev */
	req_init(&r, VP_PU_NONE, VP_PU_NONE, &allowed);
	res = place(&tv, &r);
	ck_assert_int_eq(res.reason, VP_REASON_FALLBACK);
	tview_release(&tv);
}
END_TEST

START_TEST(test_place_empty_allowed)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_place_res res, copy;
	struct vp_place_req r;
	struct vp_cpuset none;
	struct tview tv;

	tview_init(&tv, t);
	cpuset_zero(&none);
	req_init(&r, 0, 1, &none);
	memset(&res, 0x77, sizeof(res));
	memcpy(&copy, &res, sizeof(res));
	ck_assert_int_eq(place_select(&tv.v, &r, &res), -EINVAL);
	ck_assert_mem_eq(&res, &copy, sizeof(res));
	tview_release(&tv);
}
END_TEST

/*
 * Property, fixed seed, several machines: the result is always inside
 * allowed, idle unless the reason is fallback, and a home-idle answer
 * costs one probe; with a whole idle core inside allowed, never a
 * fallback.
 */
static const char *const prop_files[] = { "g4dnmetal.xml",
	"epyc-corona.xml", "coral-lassen.xml",
	"Intel-RaptorLake-Corei7-1370P.xml", "128arm-2pa2n8cluster4co.xml",
	"knl-snc4-flat-hwloc1.xml" };

START_TEST(test_place_property)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(prop_files[_i]);
	struct tview tv;
	struct rng r;
	int trial;

	tview_init(&tv, t);
	rng_seed(&r, 4242 + _i);
	for (trial = 0; trial < 300; trial++) {
		struct vp_cpuset allowed;
		struct vp_place_req q;
		struct vp_place_res res;
		bool idle_core = false;
		int p;

		rng_set(&r, t, 30 + rng_below(&r, 71), &tv.busy);
		do
			rng_set(&r, t, 1 + rng_below(&r, 99), &allowed);
		while (cpuset_empty(&allowed));
		tview_sync(&tv);
		cpuset_for_each(p, &allowed, t->npus)
			if (core_inside(t, &allowed, p) &&
			    core_idle(t, &tv.busy, p))
				idle_core = true;
		req_init(&q, rng_below(&r, 5) ? rng_below(&r, t->npus) :
		    VP_PU_NONE, rng_below(&r, 2) ? rng_below(&r, t->npus) :
		    VP_PU_NONE, &allowed);
		q.smt = (enum vp_smt)rng_below(&r, VP_SMT_ANY + 1);
		q.slept_ns = (uint64_t)rng_below(&r, 100000);
		res = place(&tv, &q);
		ck_assert(res.reason > VP_REASON_NONE &&
		    res.reason <= VP_REASON_FALLBACK);
		if (res.reason != VP_REASON_FALLBACK)
			ck_assert_msg(!cpuset_test(&tv.busy, res.pu),
			    "%s trial %d: busy PU, reason %s",
			    prop_files[_i], trial,
			    scan_reason_tag(res.reason));
		if (idle_core)
			ck_assert_msg(res.reason != VP_REASON_FALLBACK,
			    "%s trial %d: fallback with an idle core",
			    prop_files[_i], trial);
		if (res.reason == VP_REASON_HOME_IDLE) {
			ck_assert_int_eq(res.pu, q.home);
			/* the home, then its siblings up to a busy one */
			ck_assert_uint_le(res.probes,
			    t->core[t->pu[q.home].core].npus);
		}
		if (res.reason == VP_REASON_CACHE_HOT)
			ck_assert_int_eq(res.pu, q.prev);
		ck_assert_uint_eq(res.probes, tv.v.probes);
	}
	tview_release(&tv);
}
END_TEST

/* 4096 PUs: every try works across the whole model. */
START_TEST(test_place_capacity)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_synth("pack:4 l3:2 core:256 pu:2");
	struct vp_place_req q;
	struct vp_place_res res;
	struct tview tv;
	int far = t->npus - 1;

	ck_assert_int_eq(t->npus, 4096);
	tview_init(&tv, t);
	tv.busy = t->all;
	cpuset_clear(&tv.busy, far);
	tview_sync(&tv);
	req_init(&q, 0, 1, &t->all);
	res = place(&tv, &q);
	ck_assert_int_eq(res.pu, far);
	ck_assert_int_eq(res.reason, VP_REASON_OTHER_LLC);
	req_init(&q, far - 3, VP_PU_NONE, &t->all);
	res = place(&tv, &q);
	ck_assert_int_eq(res.pu, far);
	ck_assert_int_eq(res.reason, VP_REASON_IDLE_SIBLING);
	cpuset_set(&tv.busy, far);
	tview_sync(&tv);
	res = place(&tv, &q);
	ck_assert_int_eq(res.reason, VP_REASON_FALLBACK);
	tview_release(&tv);
}
END_TEST

START_TEST(test_place_reason_tags)
{
	int i, j;

	for (i = 0; i < VP_REASON_COUNT; i++) {
		const char *tag = scan_reason_tag(i);

		ck_assert_ptr_nonnull(tag);
		ck_assert_int_gt(strlen(tag), 0);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(tag, scan_reason_tag(j));
	}
	ck_assert_str_eq(scan_reason_tag(VP_REASON_HOME_IDLE), "home-idle");
	ck_assert_str_eq(scan_reason_tag(VP_REASON_IDLE_CORE), "idle-core");
}
END_TEST

Suite *place_suite(void)
{
	Suite *s = suite_create("place");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_place_home_idle);
	tcase_add_test(tc, test_place_home_sibling_busy);
	tcase_add_test(tc, test_place_llc_only);
	tcase_add_test(tc, test_place_cache_hot);
	tcase_add_test(tc, test_place_cache_hot_not);
	tcase_add_test(tc, test_place_home_llc);
	tcase_add_loop_test(tc, test_place_other_llc, 0, 2);
	tcase_add_test(tc, test_place_fallback);
	tcase_add_test(tc, test_place_empty_allowed);
	tcase_add_loop_test(tc, test_place_property, 0,
	    sizeof(prop_files) / sizeof(prop_files[0]));
	tcase_add_test(tc, test_place_capacity);
	tcase_add_test(tc, test_place_reason_tags);
	suite_add_tcase(s, tc);
	return s;
}
