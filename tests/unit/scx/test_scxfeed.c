/*
 * test_scxfeed.c - the tables the BPF scheduler reads, built from real
 * topology files (g4dn.metal: wide LLCs; KNL SNC4: 2-core tiles, 4
 * threads a core; POWER9 lassen: core pairs, SMT4, holes in the CPU ids):
 * PUs and their siblings, domains and their ids, what does not fit, and
 * the per-vCPU entry for each policy, widened on tiny LLCs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "host/policy_xml.h"
#include "scx/scxfeed.h"
#include "../suites.h"
#include "../testutil.h"

static const char *const topo_files[] = { "g4dnmetal.xml",
	"knl-snc4-flat-hwloc1.xml", "coral-lassen.xml" };

/* any value: the builder copies it when the policy says cache_hot */
#define TEST_SHORT_SLEEP_NS 50000ULL

START_TEST(test_features)
{
	struct vp_features f;
	static const struct {
		enum vp_feature feat;
		uint32_t bit;
	} map[] = {
		{ VP_FEAT_SIS_CORE, VP_SCX_FEAT_SIS_CORE },
		{ VP_FEAT_SIS_CACHE, VP_SCX_FEAT_SIS_CACHE },
		{ VP_FEAT_CLUSTER_FIRST, VP_SCX_FEAT_CLUSTER_FIRST },
		{ VP_FEAT_SMT_PRIO, VP_SCX_FEAT_SMT_PRIO },
		{ VP_FEAT_SOON_IDLE, VP_SCX_FEAT_SOON_IDLE },
		{ VP_FEAT_HOST_PACK, VP_SCX_FEAT_HOST_PACK },
		{ VP_FEAT_POLL_END, VP_SCX_FEAT_POLL_END },
		{ VP_FEAT_YIELD_TO, VP_SCX_FEAT_YIELD_TO },
		{ VP_FEAT_STAY_PREV, VP_SCX_FEAT_STAY_PREV },
		{ VP_FEAT_JOIN_WAKER, VP_SCX_FEAT_JOIN_WAKER },
		{ VP_FEAT_LLC_FIRST, VP_SCX_FEAT_LLC_FIRST },
		{ VP_FEAT_RESUME_PREV, VP_SCX_FEAT_RESUME_PREV },
	};
	size_t i;

	features_default(&f);
	ck_assert_uint_eq(scxfeed_features(&f), VP_SCX_FEAT_DEFAULT);
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		features_default(&f);
		f.on[map[i].feat] = false;
		ck_assert_uint_eq(scxfeed_features(&f),
		    VP_SCX_FEAT_DEFAULT & ~map[i].bit);
		f.on[map[i].feat] = true;
		ck_assert_uint_eq(scxfeed_features(&f),
		    VP_SCX_FEAT_DEFAULT | map[i].bit);
	}
	/* HOME has no switch; FAIL_PRONE no BPF side */
	for (i = 0; i < VP_FEAT_COUNT; i++)
		f.on[i] = false;
	ck_assert_uint_eq(scxfeed_features(&f), VP_SCX_FEAT_HOME);
}
END_TEST

/* The PUs of domain id @id, by its level and index, from the model. */
static void
dom_pus(const struct vp_topo *t, unsigned int id, struct vp_cpuset *ret)
{
	enum vp_level l;
	int i;

	ck_assert_int_eq(scxfeed_dom_of(t, id, &l, &i), 0);
	wakedom_pus(t, l, i, ret);
}

START_TEST(test_pu_table)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(topo_files[_i]);
	char why[200];
	int pu, q, j;

	ck_assert_int_eq(scxfeed_topo_fits(t, why, sizeof(why)), 0);
	for (pu = 0; pu < t->npus; pu++) {
		struct vp_scx_pu e;
		struct vp_cpuset s;
		int n = 0;

		memset(&e, 0xa5, sizeof(e));
		scxfeed_pu(t, pu, &e);
		ck_assert_uint_eq(e.valid, 1);
		ck_assert_uint_eq(e.prio, t->pu[pu].prio ? t->pu[pu].prio :
		    1024);
		ck_assert_uint_gt(e.prio, 0);
		/* siblings: every other PU of its core, by OS id, found by
		 * a scan of all PUs (not the core's range) */
		for (q = 0; q < t->npus; q++) {
			if (q == pu || t->pu[q].core != t->pu[pu].core)
				continue;
			n++;
			for (j = 0; j < (int)e.nsib; j++)
				if (e.sib[j] == (int)t->pu[q].os_index)
					break;
			ck_assert_msg(j < (int)e.nsib, "%s: CPU %u lacks "
			    "sibling %u", topo_files[_i], t->pu[pu].os_index,
			    t->pu[q].os_index);
		}
		ck_assert_int_eq((int)e.nsib, n);
		/* cluster and llc are the ids of its own domains */
		ck_assert_uint_eq(e.cluster_dom, scxfeed_dom_id(t,
		    VP_LEVEL_CLUSTER, t->pu[pu].cluster));
		ck_assert_uint_eq(e.llc_dom, scxfeed_dom_id(t, VP_LEVEL_LLC,
		    t->pu[pu].llc));
		dom_pus(t, e.cluster_dom, &s);
		ck_assert(cpuset_test(&s, pu));
		dom_pus(t, e.llc_dom, &s);
		ck_assert(cpuset_test(&s, pu));
		/* the LLC range holds its own LLC and every LLC domain: a
		 * PU with nothing queued looks in each of them */
		ck_assert_uint_le(e.llc_first, e.llc_dom);
		ck_assert_uint_lt(e.llc_dom, e.llc_first + e.nllcs);
		ck_assert_int_eq((int)e.nllcs, wakedom_count(t, VP_LEVEL_LLC));
		for (j = 0; j < (int)e.nllcs; j++) {
			enum vp_level lv;
			int idx;

			ck_assert_int_eq(scxfeed_dom_of(t, e.llc_first +
			    (unsigned int)j, &lv, &idx), 0);
			ck_assert_int_eq(lv, VP_LEVEL_LLC);
		}
		ck_assert_uint_le(e.nllcs, VP_SCX_MAX_STEAL);
	}
}
END_TEST

START_TEST(test_dom_table)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(topo_files[_i]);
	static struct vp_scx_dom e;
	unsigned int id, ndoms = scxfeed_ndoms(t), next = 0;
	enum vp_level l, gl;
	int i, gi, pu, k;

	ck_assert_uint_le(ndoms, VP_SCX_MAX_DOMS);
	for (l = 0; l < VP_LEVEL_COUNT; l++)
		for (i = 0; i < wakedom_count(t, l); i++) {
			unsigned int maxp = 0;
			int n = 0;

			/* ids: every domain one, unique, dense, in range */
			id = scxfeed_dom_id(t, l, i);
			ck_assert_uint_eq(id, next++);
			ck_assert_uint_lt(id, ndoms);
			ck_assert_int_eq(scxfeed_dom_of(t, id, &gl, &gi), 0);
			ck_assert(gl == l && gi == i);
			ck_assert_int_eq(scxfeed_dom(t, l, i, &e), 0);
			/* exactly its PUs, each once, as OS ids */
			for (pu = 0; pu < t->npus; pu++) {
				int hits = 0;

				for (k = 0; k < (int)e.ncpus; k++)
					hits += e.cpu[k] ==
					    (int)t->pu[pu].os_index;
				ck_assert_int_eq(hits,
				    wakedom_index(t, pu, l) == i);
				if (hits) {
					n++;
					if (t->pu[pu].prio > maxp)
						maxp = t->pu[pu].prio;
				}
			}
			ck_assert_int_eq((int)e.ncpus, n);
			ck_assert_uint_eq(e.max_prio, n ? (maxp ? maxp :
			    1024) : 0);
			/* core by core: a core's PUs are next to each other */
			for (k = 1; k < (int)e.ncpus; k++) {
				int a = topo_pu_of_os(t, e.cpu[k - 1]);
				int b = topo_pu_of_os(t, e.cpu[k]);
				int m;

				if (t->pu[a].core == t->pu[b].core)
					continue;
				for (m = k + 1; m < (int)e.ncpus; m++)
					ck_assert_int_ne(t->pu[topo_pu_of_os(t,
					    e.cpu[m])].core, t->pu[a].core);
			}
		}
	ck_assert_uint_eq(next, ndoms);
	ck_assert_int_eq(scxfeed_dom_of(t, ndoms, &gl, &gi), -ERANGE);
}
END_TEST

/*
 * The model always has a priority (unknown ones are made equal), but
 * the BPF side divides by it: a 0 that slips through is written as 1024.
 */
START_TEST(test_prio_never_zero)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("coral-lassen.xml");
	static struct vp_scx_dom e;
	struct vp_scx_pu pu;
	int i;

	for (i = 0; i < t->npus; i++)
		t->pu[i].prio = 0;
	scxfeed_pu(t, 0, &pu);
	ck_assert_uint_eq(pu.prio, 1024);
	ck_assert_int_eq(scxfeed_dom(t, VP_LEVEL_LLC, 0, &e), 0);
	ck_assert_uint_eq(e.max_prio, 1024);
}
END_TEST

/* Refused whole, never truncated: each limit of the BPF tables. */
START_TEST(test_topo_too_big)
{
	static const struct {
		const char *synth, *needle;
	} big[] = {
		/* OS ids 0..1199: beyond CPU id 1023 */
		{ "pack:2 core:600 pu:1", "CPU 1199" },
		/* 1024 cores, each its own cluster and LLC: 2050 domains */
		{ "pack:1 core:1024 pu:1", "wake domains" },
		/* 520 CPUs fit, but not in one domain */
		{ "pack:1 l3:1 core:260 pu:2", "520 CPUs" },
	};
	static struct vp_scx_dom e;
	char why[200];
	size_t i;

	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		_cleanup_topo_ struct vp_topo *t = load_synth(big[i].synth);

		why[0] = '\0';
		ck_assert_int_eq(scxfeed_topo_fits(t, why, sizeof(why)),
		    -E2BIG);
		ck_assert_msg(strstr(why, big[i].needle), "%s: '%s'",
		    big[i].synth, why);
	}
	{
		_cleanup_topo_ struct vp_topo *t =
		    load_synth("pack:1 l3:1 core:260 pu:2");

		ck_assert_int_eq(scxfeed_dom(t, VP_LEVEL_LLC, 0, &e),
		    -E2BIG);
	}
}
END_TEST

/* A vCPU of @nvcpus homed on OS CPU @os under @pol. */
static void
entry(const struct vp_topo *t, const struct vp_policy *pol, int nvcpus,
    unsigned int os, struct vp_scx_vcpu *ret)
{
	struct scxfeed_vcpu_in in = {
		.policy = pol, .nvcpus = nvcpus, .home = os2pu(t, os),
		.anchor = VP_PU_NONE, .vm = 3, .vcpu = 1,
		.short_sleep_ns = TEST_SHORT_SLEEP_NS,
	};

	scxfeed_vcpu(t, &in, ret);
}

/* The level of domain id @id. */
static enum vp_level
level_of(const struct vp_topo *t, unsigned int id)
{
	enum vp_level l;
	int i;

	ck_assert_int_eq(scxfeed_dom_of(t, id, &l, &i), 0);
	return l;
}

/* near within far, both around home: for every file, PU and VM size. */
START_TEST(test_vcpu_near_in_far)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(topo_files[_i]);
	struct vp_cpuset near, far;
	struct vp_policy pol;
	struct vp_scx_vcpu e;
	int pu, n, loc;

	policy_default(&pol);
	for (loc = 0; loc <= VP_LOC_ANY; loc++)
		for (pu = 0; pu < t->npus; pu += 5)
			for (n = 1; n <= 64; n *= 2) {
				pol.locality = (enum vp_locality)loc;
				entry(t, &pol, n, t->pu[pu].os_index, &e);
				ck_assert_int_eq(e.home,
				    (int)t->pu[pu].os_index);
				ck_assert_uint_lt(e.near_dom, VP_SCX_MAX_DOMS);
				ck_assert_uint_lt(e.far_dom, VP_SCX_MAX_DOMS);
				dom_pus(t, e.near_dom, &near);
				dom_pus(t, e.far_dom, &far);
				ck_assert(cpuset_test(&near, pu));
				ck_assert_msg(cpuset_subset(&near, &far),
				    "%s CPU %u, %d vCPUs, locality %s: near "
				    "%u not in far %u", topo_files[_i],
				    t->pu[pu].os_index, n,
				    policy_locality_name(pol.locality),
				    e.near_dom, e.far_dom);
				ck_assert_uint_eq(e.vm, 3);
				ck_assert_uint_eq(e.vcpu, 1);
			}
}
END_TEST

/* KNL: an LLC is a 2-core tile, so a 4-vCPU VM wakes across its node. */
START_TEST(test_vcpu_widens_on_knl)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("knl-snc4-flat-hwloc1.xml");
	struct vp_policy pol;
	struct vp_scx_vcpu e;
	unsigned int os = t->pu[0].os_index;

	policy_default(&pol);		/* locality llc */
	entry(t, &pol, 4, os, &e);
	ck_assert_int_eq(level_of(t, e.far_dom), VP_LEVEL_NODE);
	ck_assert_uint_eq(e.far_dom, scxfeed_dom_id(t, VP_LEVEL_NODE,
	    t->pu[0].node));
	ck_assert(e.flags & VP_SCX_F_STAY_FAR_DOM);
	/* 2 vCPUs fit the tile */
	entry(t, &pol, 2, os, &e);
	ck_assert_int_eq(level_of(t, e.far_dom), VP_LEVEL_LLC);
	ck_assert_uint_eq(e.far_dom, scxfeed_dom_id(t, VP_LEVEL_LLC,
	    t->pu[0].llc));
	/* smt=siblings packs 4 vCPUs on one 4-thread core: no widening */
	pol.smt = VP_SMT_SIBLINGS;
	entry(t, &pol, 4, os, &e);
	ck_assert_int_eq(level_of(t, e.far_dom), VP_LEVEL_LLC);
	ck_assert_int_eq(level_of(t, e.near_dom), VP_LEVEL_CLUSTER);
	/* ... but 8 need two cores, 12 three: a tile, then the node */
	entry(t, &pol, 8, os, &e);
	ck_assert_int_eq(level_of(t, e.far_dom), VP_LEVEL_LLC);
	entry(t, &pol, 12, os, &e);
	ck_assert_int_eq(level_of(t, e.far_dom), VP_LEVEL_NODE);
}
END_TEST

START_TEST(test_vcpu_flags)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_policy pol;
	struct vp_scx_vcpu e;
	struct scxfeed_vcpu_in in;
	int pu = os2pu(t, 5);

	policy_default(&pol);		/* prefer-idle-core, llc, no cache_hot */
	entry(t, &pol, 4, 5, &e);
	ck_assert_uint_eq(e.flags, VP_SCX_F_STAY_FAR_DOM);
	ck_assert_uint_eq(e.far_dom, scxfeed_dom_id(t, VP_LEVEL_LLC,
	    t->pu[pu].llc));
	ck_assert_uint_eq(e.short_sleep_ns, 0);
	pol.cache_hot = true;
	entry(t, &pol, 4, 5, &e);
	ck_assert(e.flags & VP_SCX_F_CACHE_HOT);
	ck_assert_uint_eq(e.short_sleep_ns, TEST_SHORT_SLEEP_NS);
	pol.cache_hot = false;
	pol.smt = VP_SMT_ISOLATE;
	entry(t, &pol, 4, 5, &e);
	ck_assert_uint_eq(e.flags & (VP_SCX_F_SMT_ISOLATE | VP_SCX_F_SMT_ANY),
	    VP_SCX_F_SMT_ISOLATE);
	pol.smt = VP_SMT_ANY;
	entry(t, &pol, 4, 5, &e);
	ck_assert_uint_eq(e.flags & (VP_SCX_F_SMT_ISOLATE | VP_SCX_F_SMT_ANY),
	    VP_SCX_F_SMT_ANY);
	pol.smt = VP_SMT_SIBLINGS;
	entry(t, &pol, 4, 5, &e);
	ck_assert_uint_eq(e.flags & (VP_SCX_F_SMT_ISOLATE | VP_SCX_F_SMT_ANY),
	    0);
	/* locality: far is that level's domain.  g4dn has no clusters (a
	 * cluster is a core), and a domain of one core is no locality: even
	 * a 1-vCPU VM's far domain is its LLC, while near stays the core */
	pol.smt = VP_SMT_PREFER_IDLE_CORE;
	pol.locality = VP_LOC_CLUSTER;
	entry(t, &pol, 1, 5, &e);
	ck_assert(e.flags & VP_SCX_F_STAY_FAR_DOM);
	ck_assert_uint_eq(e.far_dom, scxfeed_dom_id(t, VP_LEVEL_LLC,
	    t->pu[pu].llc));
	ck_assert_uint_eq(e.near_dom, scxfeed_dom_id(t, VP_LEVEL_CLUSTER,
	    t->pu[pu].cluster));
	pol.locality = VP_LOC_NUMA;
	entry(t, &pol, 4, 5, &e);
	ck_assert(e.flags & VP_SCX_F_STAY_FAR_DOM);
	ck_assert_uint_eq(e.far_dom, scxfeed_dom_id(t, VP_LEVEL_NODE,
	    t->pu[pu].node));
	pol.locality = VP_LOC_ANY;
	entry(t, &pol, 4, 5, &e);
	ck_assert_uint_eq(e.flags & VP_SCX_F_STAY_FAR_DOM, 0);
	ck_assert_uint_eq(e.far_dom, scxfeed_dom_id(t, VP_LEVEL_LLC,
	    t->pu[pu].llc));
	/* no home yet: -1, domains around where it runs, nothing to stay in */
	pol.locality = VP_LOC_LLC;
	in = (struct scxfeed_vcpu_in){ .policy = &pol, .nvcpus = 4,
		.home = VP_PU_NONE, .anchor = pu };
	scxfeed_vcpu(t, &in, &e);
	ck_assert_int_eq(e.home, -1);
	ck_assert_uint_eq(e.flags & VP_SCX_F_STAY_FAR_DOM, 0);
	ck_assert_uint_eq(e.far_dom, scxfeed_dom_id(t, VP_LEVEL_LLC,
	    t->pu[pu].llc));
}
END_TEST

/*
 * priority=high, which the shipped latency profile has, and only it, is
 * fed as VP_SCX_F_LATENCY (the BPF side's preemption on a wake-up).
 */
START_TEST(test_vcpu_latency_flag)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	static const char *const names[] = { "latency", "balanced",
		"throughput", "isolated", "dedicated" };
	struct vp_profiles *profs = NULL;
	const struct vp_policy *prof;
	struct vp_policy pol;
	struct vp_scx_vcpu e;
	char err[1024];
	size_t i;

	policy_default(&pol);
	pol.priority = VP_PRIO_HIGH;
	entry(t, &pol, 4, 5, &e);
	ck_assert(e.flags & VP_SCX_F_LATENCY);
	pol.priority = VP_PRIO_NORMAL;
	entry(t, &pol, 4, 5, &e);
	ck_assert_uint_eq(e.flags & VP_SCX_F_LATENCY, 0);
	pol.priority = VP_PRIO_LOW;
	entry(t, &pol, 4, 5, &e);
	ck_assert_uint_eq(e.flags & VP_SCX_F_LATENCY, 0);
	ck_assert_msg(profiles_load("policies", &profs, err, sizeof(err)) == 0,
	    "profiles_load: %s", err);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		prof = profiles_get(profs, names[i]);
		ck_assert_msg(prof, "no profile %s", names[i]);
		entry(t, prof, 4, 5, &e);
		ck_assert_msg(!(e.flags & VP_SCX_F_LATENCY) == (i != 0),
		    "profile %s: flags %#x", names[i], e.flags);
	}
	profiles_free(profs);
}
END_TEST

/* The normal build's loader is a stub: nothing is written, no crash. */
START_TEST(test_topology_stub)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");

	ck_assert_int_eq(scxfeed_topology(NULL, t, 0, NULL), -EOPNOTSUPP);
}
END_TEST

/* An entry as the diff sees it. */
static struct vp_scx_pushed
pushed(int tid, bool ext, int home)
{
	struct vp_scx_pushed p;

	memset(&p, 0, sizeof(p));
	p.tid = tid;
	p.ext = ext;
	p.e.home = home;
	return p;
}

#define NACT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void
check_acts(const struct vp_scx_act *got, int n, const struct vp_scx_act *want,
    int nwant)
{
	int i;

	ck_assert_int_eq(n, nwant);
	for (i = 0; i < n; i++)
		ck_assert_msg(got[i].kind == want[i].kind &&
		    got[i].tid == want[i].tid && got[i].want == want[i].want,
		    "action %d: kind %d tid %d want %d, expected %d %d %d",
		    i, got[i].kind, got[i].tid, got[i].want, want[i].kind,
		    want[i].tid, want[i].want);
}

START_TEST(test_diff)
{
	struct vp_scx_act a[16];
	struct vp_scx_pushed old[3], want[3];
	int n;

	/* unchanged: nothing written, nothing moved */
	old[0] = pushed(100, true, 4);
	want[0] = pushed(100, false, 4);	/* .ext of @want is ignored */
	n = scxfeed_diff(old, 1, want, 1, a);
	ck_assert_int_eq(n, 0);
	/* a new home: the entry, nothing else */
	want[0].e.home = 5;
	n = scxfeed_diff(old, 1, want, 1, a);
	check_acts(a, n, (struct vp_scx_act[]){ { VP_SCX_SET, 100, 0 } }, 1);
	/* any field counts */
	want[0] = pushed(100, false, 4);
	want[0].e.far_dom = 7;
	n = scxfeed_diff(old, 1, want, 1, a);
	check_acts(a, n, (struct vp_scx_act[]){ { VP_SCX_SET, 100, 0 } }, 1);
	/* new: the entry first, then into SCHED_EXT */
	n = scxfeed_diff(NULL, 0, want, 1, a);
	check_acts(a, n, (struct vp_scx_act[]){ { VP_SCX_SET, 100, 0 },
	    { VP_SCX_EXT_ON, 100, 0 } }, 2);
	/* gone: out of SCHED_EXT, then deleted; never moved: deleted */
	n = scxfeed_diff(old, 1, NULL, 0, a);
	check_acts(a, n, (struct vp_scx_act[]){ { VP_SCX_EXT_OFF, 100, -1 },
	    { VP_SCX_DEL, 100, -1 } }, 2);
	old[0].ext = false;
	n = scxfeed_diff(old, 1, NULL, 0, a);
	check_acts(a, n, (struct vp_scx_act[]){ { VP_SCX_DEL, 100, -1 } }, 1);
	/* a move that failed is retried, the entry is not rewritten */
	want[0] = pushed(100, true, 4);
	n = scxfeed_diff(old, 1, want, 1, a);
	check_acts(a, n, (struct vp_scx_act[]){ { VP_SCX_EXT_ON, 100, 0 } }, 1);
	/* a tid changed (QEMU restarted a vCPU thread), one went, one came,
	 * one stayed: in tid order */
	old[0] = pushed(100, true, 4);
	old[1] = pushed(200, true, 5);
	old[2] = pushed(300, true, 6);
	want[0] = pushed(150, false, 4);
	want[1] = pushed(200, false, 5);
	n = scxfeed_diff(old, 3, want, 2, a);
	check_acts(a, n, (struct vp_scx_act[]){
	    { VP_SCX_EXT_OFF, 100, -1 }, { VP_SCX_DEL, 100, -1 },
	    { VP_SCX_SET, 150, 0 }, { VP_SCX_EXT_ON, 150, 0 },
	    { VP_SCX_EXT_OFF, 300, -1 }, { VP_SCX_DEL, 300, -1 } }, 6);
}
END_TEST

/* The entry of a thread among those written, by tid, or none. */
START_TEST(test_pushed_find)
{
	struct vp_scx_pushed p[3] = { pushed(300, true, 6),
	    pushed(100, true, 4), pushed(200, false, 5) };

	qsort(p, 3, sizeof(p[0]), scxfeed_pushed_cmp);
	ck_assert_int_eq(p[0].tid, 100);
	ck_assert_int_eq(p[2].tid, 300);
	ck_assert_int_eq(scxfeed_pushed_find(p, 3, 200)->e.home, 5);
	ck_assert_int_eq(scxfeed_pushed_find(p, 3, 300)->e.home, 6);
	ck_assert_ptr_null(scxfeed_pushed_find(p, 3, 150));
	ck_assert_ptr_null(scxfeed_pushed_find(NULL, 0, 100));
}
END_TEST

Suite *
scxfeed_suite(void)
{
	Suite *s = suite_create("scxfeed");
	TCase *tt = tcase_create("tables");

	tcase_set_timeout(tt, 60);
	tcase_add_test(tt, test_features);
	tcase_add_loop_test(tt, test_pu_table, 0, 3);
	tcase_add_loop_test(tt, test_dom_table, 0, 3);
	tcase_add_test(tt, test_topo_too_big);
	tcase_add_test(tt, test_prio_never_zero);
	tcase_add_loop_test(tt, test_vcpu_near_in_far, 0, 3);
	tcase_add_test(tt, test_vcpu_widens_on_knl);
	tcase_add_test(tt, test_vcpu_flags);
	tcase_add_test(tt, test_vcpu_latency_flag);
	tcase_add_test(tt, test_topology_stub);
	tcase_add_test(tt, test_diff);
	tcase_add_test(tt, test_pushed_find);
	suite_add_tcase(s, tt);
	return s;
}
