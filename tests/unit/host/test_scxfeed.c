/*
 * test_scxfeed.c - the placement core's model as the sched_ext
 * scheduler's tables, on real topologies: siblings, domains and their
 * ids, one vCPU's entry (home, widened domains, policy bits), features.
 */
#include <errno.h>
#include <string.h>

#include <check.h>

#include "host/scxfeed.h"
#include "../suites.h"
#include "../testutil.h"

static const char *const files[] = { "g4dnmetal.xml",
	"knl-snc4-flat-hwloc1.xml", "coral-lassen.xml",
	"128arm-2pa2n8cluster4co.xml" };

/* A PU's siblings are exactly the other PUs of its core, as OS ids. */
START_TEST(test_pu_siblings)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(files[_i]);
	struct vp_scx_pu e;
	int pu, k;

	for (pu = 0; pu < t->npus; pu++) {
		const struct vp_core *c = &t->core[t->pu[pu].core];

		ck_assert_int_eq(scxfeed_pu(t, pu, &e), 0);
		ck_assert_uint_eq(e.nsib, (unsigned int)c->npus - 1);
		ck_assert_uint_gt(e.prio, 0);
		ck_assert_uint_eq(e.valid, 1);
		ck_assert_uint_eq(e.llc_dom,
		    scxfeed_dom_id(t, VP_LEVEL_LLC, t->pu[pu].llc));
		for (k = 0; k < (int)e.nsib; k++) {
			int s = topo_pu_of_os(t, (unsigned int)e.sib[k]);

			ck_assert_int_ne(s, pu);
			ck_assert_int_eq(t->pu[s].core, t->pu[pu].core);
		}
		for (; k < VP_SCX_MAX_SMT; k++)
			ck_assert_int_eq(e.sib[k], -1);
	}
}
END_TEST

/* Every domain holds exactly its PUs; the ids are distinct and fit. */
START_TEST(test_domains)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(files[_i]);
	static struct vp_scx_dom d;
	struct vp_cpuset want, got;
	unsigned int next = 0;
	enum vp_level l;
	int i, k;

	ck_assert(scxfeed_fits(t));
	for (l = 0; l < VP_LEVEL_COUNT; l++)
		for (i = 0; i < wakedom_count(t, l); i++) {
			/* ids run one after the other, level by level */
			ck_assert_uint_eq(scxfeed_dom_id(t, l, i), next++);
			ck_assert_int_eq(scxfeed_dom(t, l, i, &d), 0);
			wakedom_pus(t, l, i, &want);
			cpuset_zero(&got);
			for (k = 0; k < (int)d.ncpus; k++)
				cpuset_set(&got, topo_pu_of_os(t,
				    (unsigned int)d.cpu[k]));
			ck_assert(cpuset_equal(&got, &want));
			ck_assert_int_eq((int)d.ncpus, cpuset_count(&want));
			ck_assert_uint_gt(d.max_prio, 0);
		}
	ck_assert_uint_le(next, VP_SCX_MAX_DOMS);
}
END_TEST

/* The PUs of domain @id, as dense indices. */
static void
dom_pus(const struct vp_topo *t, unsigned int id, struct vp_cpuset *ret)
{
	static struct vp_scx_dom d;
	enum vp_level l;
	int i, k;

	cpuset_zero(ret);
	for (l = 0; l < VP_LEVEL_COUNT; l++)
		for (i = 0; i < wakedom_count(t, l); i++)
			if (scxfeed_dom_id(t, l, i) == id) {
				ck_assert_int_eq(scxfeed_dom(t, l, i, &d), 0);
				for (k = 0; k < (int)d.ncpus; k++)
					cpuset_set(ret, topo_pu_of_os(t,
					    (unsigned int)d.cpu[k]));
				return;
			}
	ck_abort_msg("no domain %u", id);
}

START_TEST(test_vcpu_entry)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(files[_i]);
	struct vp_cpuset near, far;
	struct vp_policy p;
	struct vp_scx_vcpu e;
	int home = t->npus / 3;

	policy_default(&p);
	scxfeed_vcpu(t, home, 2, &p, 12345, &e);
	ck_assert_int_eq(e.home, (int)t->pu[home].os_index);
	ck_assert_uint_eq(e.short_sleep_ns, 12345);
	dom_pus(t, e.near_dom, &near);
	dom_pus(t, e.far_dom, &far);
	ck_assert(cpuset_test(&near, home));
	ck_assert(cpuset_subset(&near, &far));
	/* no home: the scheduler must not be told one */
	scxfeed_vcpu(t, VP_PU_NONE, 2, &p, 0, &e);
	ck_assert_int_eq(e.home, -1);
}
END_TEST

/* KNL: an LLC is a 2-core tile; a 4-vCPU VM's far domain is its node. */
START_TEST(test_vcpu_widened_on_knl)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("knl-snc4-flat-hwloc1.xml");
	struct vp_policy p;
	struct vp_scx_vcpu e;

	policy_default(&p);
	scxfeed_vcpu(t, 0, 2, &p, 0, &e);
	ck_assert_uint_eq(e.far_dom, scxfeed_dom_id(t, VP_LEVEL_LLC,
	    t->pu[0].llc));
	scxfeed_vcpu(t, 0, 4, &p, 0, &e);
	ck_assert_uint_eq(e.far_dom, scxfeed_dom_id(t, VP_LEVEL_NODE,
	    t->pu[0].node));
	/* smt=siblings packs 4 vCPUs onto one 4-thread core: no widening */
	p.smt = VP_SMT_SIBLINGS;
	ck_assert_int_eq(scxfeed_cores_needed(t, 4, &p), 1);
	scxfeed_vcpu(t, 0, 4, &p, 0, &e);
	ck_assert_uint_eq(e.far_dom, scxfeed_dom_id(t, VP_LEVEL_LLC,
	    t->pu[0].llc));
}
END_TEST

START_TEST(test_vcpu_policy_bits)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("128arm-2pa2n8cluster4co.xml");
	struct vp_policy p;
	struct vp_scx_vcpu e;

	policy_default(&p);
	p.locality = VP_LOC_ANY;
	p.cache_hot = false;
	p.smt = VP_SMT_PREFER_IDLE_CORE;
	scxfeed_vcpu(t, 5, 2, &p, 0, &e);
	ck_assert_uint_eq(e.flags, 0);
	p.cache_hot = true;
	scxfeed_vcpu(t, 5, 2, &p, 0, &e);
	ck_assert_uint_eq(e.flags, VP_SCX_F_CACHE_HOT);
	p.cache_hot = false;
	p.smt = VP_SMT_ISOLATE;
	scxfeed_vcpu(t, 5, 2, &p, 0, &e);
	ck_assert_uint_eq(e.flags, VP_SCX_F_SMT_ISOLATE);
	p.smt = VP_SMT_ANY;
	scxfeed_vcpu(t, 5, 2, &p, 0, &e);
	ck_assert_uint_eq(e.flags, VP_SCX_F_SMT_ANY);
	/* locality=cluster: it never leaves its (widened) cluster */
	p.smt = VP_SMT_PREFER_IDLE_CORE;
	p.locality = VP_LOC_CLUSTER;
	scxfeed_vcpu(t, 5, 2, &p, 0, &e);
	ck_assert_uint_eq(e.flags, VP_SCX_F_STAY_FAR_DOM);
	ck_assert_uint_eq(e.far_dom, e.near_dom);
	ck_assert_uint_eq(e.near_dom, scxfeed_dom_id(t, VP_LEVEL_CLUSTER,
	    t->pu[5].cluster));
	/* locality=numa: the far domain is the node */
	p.locality = VP_LOC_NUMA;
	scxfeed_vcpu(t, 5, 2, &p, 0, &e);
	ck_assert_uint_eq(e.far_dom, scxfeed_dom_id(t, VP_LEVEL_NODE,
	    t->pu[5].node));
}
END_TEST

START_TEST(test_features)
{
	struct vp_features f;
	uint32_t all;

	features_default(&f);
	all = scxfeed_features(&f);
	ck_assert_uint_eq(all, VP_SCX_FEAT_ALL);
	f.on[VP_FEAT_SIS_CORE] = false;
	ck_assert_uint_eq(scxfeed_features(&f), all & ~VP_SCX_FEAT_SIS_CORE);
	f.on[VP_FEAT_HOST_PACK] = false;
	ck_assert_uint_eq(scxfeed_features(&f), all &
	    ~(VP_SCX_FEAT_SIS_CORE | VP_SCX_FEAT_HOST_PACK));
}
END_TEST

/* The normal build's loader is a stub: nothing is written, no crash. */
START_TEST(test_topology_stub)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");

	ck_assert_int_eq(scxfeed_topology(NULL, t), -EOPNOTSUPP);
}
END_TEST

Suite *
scxfeed_suite(void)
{
	Suite *s = suite_create("scxfeed");
	TCase *tc = tcase_create("tables");

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_pu_siblings, 0, 4);
	tcase_add_loop_test(tc, test_domains, 0, 4);
	tcase_add_loop_test(tc, test_vcpu_entry, 0, 4);
	tcase_add_test(tc, test_vcpu_widened_on_knl);
	tcase_add_test(tc, test_vcpu_policy_bits);
	tcase_add_test(tc, test_features);
	tcase_add_test(tc, test_topology_stub);
	suite_add_tcase(s, tc);
	return s;
}
