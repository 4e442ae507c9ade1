/*
 * test_wakecheck.c - one set of wake rules: the core's
 * place_select() (daemon/core/place.c, scan.c, idlemask.c, prio.c) and
 * the BPF scheduler's decide() (daemon/scx/vcpuplace_wake.h, through
 * wakectx.c) run on the same wake-up, on every shipped topology, and
 * must agree: the same PU, found by the same kind of rule (home,
 * cache-hot, an idle PU, nothing idle).  Fails on the first situation
 * where they do not, naming the topology, the seed and the situation.
 *
 * The two are not one source, and not everything in them is meant to be
 * the same.  What each side has alone, or does differently on purpose,
 * is mapped onto the other or kept out of the situations, each for a
 * reason (the E list); where the two disagree on a rule both have, the
 * situation is a known divergence (the K list, known_names[]): counted,
 * not compared, and the test fails if one of them no longer shows, so
 * the list stays true.  Neither side's rules were changed for this test:
 * that is a strategy change, measured by the benchmarks (bench/README.md).
 *
 * Mapped or kept out (not disagreements):
 * E1 the idle view: place.c reads an idle-mask hint that may hold busy
 *    PUs (FAIL_PRONE probes around them); sched_ext's masks are exact.
 *    Mapped: the mask and has_idle_core are rebuilt exactly from the busy
 *    set before each decision, as the daemon does each tick, and the
 *    fail-prone marks cleared, so FAIL_PRONE (switched at random) is inert.
 * E2 SMT4/SMT8 scoring: prio.c divides by 1 + busy siblings, wake.h
 *    halves for any (vcpuplace_wake.h's score(), daemon/scx/README.md).
 *    Kept out: a core is all idle, has one busy PU, or is all busy.
 * E3 allowed sets that split a core: the SIS_CORE mask holds one PU per
 *    core, and a core whose mask PU is not allowed is not visited.  Kept
 *    out: allowed sets are whole cores (the planner's are domains).
 * E4 claims: decide() claims what it picks; one wake-up at a time, a
 *    claim of an idle PU always succeeds.  Probes: each side counts its
 *    own cost; not compared.
 * E5 rules only wake.h has: POLL_END, STAY_PREV, JOIN_WAKER and SOON_IDLE
 *    are off (nothing polls, no run records, no waker); HOST_PACK and
 *    YIELD_TO are not in decide().
 *    Rule 5 (an idle prev, beyond what rules 1-4 may take) is mapped:
 *    place.c's fallback matches wake.h's PREV or QUEUED.
 * E6 nothing idle: place.c's fallback PU (home, prev, first allowed;
 *    plan.c replaces it) and wake.h's queue CPU (prev, home, any) are
 *    different things; compared: both find nothing, both name an allowed
 *    PU.
 * E7 domains: wake.h widens its near and far domains for a VM's vCPU
 *    count; place.c has no domains.  One-vCPU entries, so near is the
 *    home cluster and far the home LLC.  Localities: place.c has llc_only
 *    alone, so llc (STAY_FAR_DOM) and any; budgets and claimed homes are
 *    plan.c's, not place_select()'s.
 * E8 labels: wake.h counts any claim of home as HOME, and rule 3 says
 *    idle_sibling even of a whole core; compared are the kinds below.
 *
 * Known divergences, real disagreements on a rule both sides have (each
 * a counted name; see daemon/scx/README.md, "Differences from place.c"):
 * K1..K7 in known_names[] below, each with its predicate in known();
 * K8, the scan start, is mapped instead (order_far()), and K9, rule 4,
 * compared only as far as both sides define it (same_elsewhere()).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "scx/scxfeed.h"
#include "../suites.h"
#include "../testutil.h"
#include "wakectx.h"

/* per topology: ~1.5 s for all nine under ASan on a 2-CPU machine */
#define SITUATIONS	8000
/* SIS_CACHE's bound, as the daemon writes it */
#define SHORT_SLEEP_NS	SCXFEED_SHORT_SLEEP_NS
#define NEVER_SLEPT	UINT64_MAX

/* One wake-up, as both sides are given it. */
struct sit {
	int home, prev;			/* dense, or VP_PU_NONE */
	struct vp_cpuset busy, allowed;
	enum vp_smt smt;
	enum vp_locality loc;		/* VP_LOC_ANY or VP_LOC_LLC */
	bool cache_hot;			/* the policy's */
	uint64_t slept_ns;		/* NEVER_SLEPT: no sleep on record */
	struct vp_features feat;
};

/* What a decision found: the kinds both sides have. */
enum kind { K_NONE, K_HOME, K_CACHE_HOT, K_IDLE, K_PREV };

static const char *const kind_names[] = {
	"nothing idle", "home", "cache-hot", "idle", "prev",
};

struct out {
	enum kind k;
	int pu;				/* dense, or VP_PU_NONE */
};

enum known {
	KNOWN_SIBLINGS,
	KNOWN_ISOLATE_HALF_HOME,
	KNOWN_SIS_CORE_NO_SMT_PRIO,
	KNOWN_ISOLATE_NO_SIS_CORE,
	KNOWN_HINT_NOT_ALLOWED,
	KNOWN_HALF_HOME_BEFORE_CACHE_HOT,
	KNOWN_NEAR_PRIO,
	KNOWN_SCAN_START,
	KNOWN_ELSEWHERE,
	KNOWN_COUNT
};

static const char *const known_names[KNOWN_COUNT] = {
	/* K1: scxfeed.c sends no flag for smt=siblings, so wake.h runs it
	 * as prefer-idle-core; place.c scores it by plain priority and
	 * takes a home beside a busy sibling */
	[KNOWN_SIBLINGS] = "K1 smt=siblings",
	/* K2: select_home_pu() takes an idle home beside a busy sibling
	 * under smt=isolate; try_home() and try_idle_pu() never do */
	[KNOWN_ISOLATE_HALF_HOME] = "K2 isolate takes a half-idle home",
	/* K3: SMT_PRIO off, SIS_CORE on: wake.h's rule 2 still takes a
	 * whole idle core first; scan_core() takes the first idle PU of
	 * the best plain priority, busy sibling or not */
	[KNOWN_SIS_CORE_NO_SMT_PRIO] = "K3 SIS_CORE without SMT_PRIO",
	/* K4: SIS_CORE off is rule 2 off in wake.h, and rule 3 skips
	 * smt=isolate, so no whole core of the domain is found; in
	 * scan_core() SIS_CORE only says which PUs the scan visits */
	[KNOWN_ISOLATE_NO_SIS_CORE] = "K4 isolate without SIS_CORE",
	/* K5: a half-idle home waits for a whole idle core: place.c asks
	 * the LLC's has_idle_core, which counts cores outside the allowed
	 * set; wake.h asks the allowed set (vpw_any_idle()) */
	[KNOWN_HINT_NOT_ALLOWED] = "K5 idle-core hint ignores the allowed set",
	/* K6: with no whole idle core in the home LLC, place.c takes a
	 * half-idle home before the cache-hot prev; wake.h tries cache-hot
	 * first (try_home() takes only a whole core) */
	[KNOWN_HALF_HOME_BEFORE_CACHE_HOT] = "K6 half-idle home before cache-hot",
	/* K7: CLUSTER_FIRST on a hybrid LLC: wake.h's near domain ends its
	 * scan at its own best priority (an E-core cluster's); place.c's
	 * scan goes on to an idle core of the LLC's best (a P-core) */
	[KNOWN_NEAR_PRIO] = "K7 near domain's best priority wins",
	/* K8: place.c scans the home LLC from the home cluster's first PU
	 * (without CLUSTER_FIRST, the PU after the anchor) and wraps, as
	 * select_idle_cpu() does; wake.h walks the far domain from its first
	 * CPU.  Mapped by order_far(); counted where the order mattered */
	[KNOWN_SCAN_START] = "K8 scan start (mapped)",
	/* K9: beyond the home LLC wake.h takes sched_ext's pick (a whole
	 * idle core anywhere in the allowed set, then any idle PU); place.c
	 * the nearest LLC, same package first, by its scan.  Compared: both
	 * find an idle allowed PU outside the home LLC */
	[KNOWN_ELSEWHERE] = "K9 beyond the home LLC (compared in part)",
};

static int
pick_anchor(const struct vp_topo *t, const struct sit *s)
{
	/* place.c's pick_anchor(), which scxfeed_vcpu() gets as .anchor */
	if (s->home != VP_PU_NONE)
		return s->home;
	if (s->prev != VP_PU_NONE && cpuset_test(&s->allowed, s->prev))
		return s->prev;
	return cpuset_next(&s->allowed, 0, t->npus);
}

static bool
llc_only(const struct sit *s)
{
	/* scxfeed_vcpu(): no home, nothing to stay near */
	return s->loc != VP_LOC_ANY && s->home != VP_PU_NONE;
}

static void
set_core(const struct vp_topo *t, int core, struct vp_cpuset *s)
{
	cpuset_set_range(s, t->core[core].first_pu, t->core[core].npus);
}

/* E2: each core all idle, one PU busy, or all busy. */
static void
gen_busy(struct rng *r, const struct vp_topo *t, struct sit *s)
{
	static const int pcts[] = { 0, 15, 40, 60, 85, 100 };
	int pct = pcts[rng_below(r, 6)], c;

	cpuset_zero(&s->busy);
	for (c = 0; c < t->ncores; c++) {
		if (rng_below(r, 100) >= pct)
			continue;
		if (rng_below(r, 2))
			set_core(t, c, &s->busy);
		else
			cpuset_set(&s->busy, t->core[c].first_pu +
			    rng_below(r, t->core[c].npus));
	}
}

/* E3: all, whole LLCs, or whole cores; never empty. */
static void
gen_allowed(struct rng *r, const struct vp_topo *t, struct sit *s)
{
	int mode = rng_below(r, 4), i;

	if (mode == 0) {
		s->allowed = t->all;
		return;
	}
	do {
		cpuset_zero(&s->allowed);
		if (mode == 1)
			for (i = 0; i < t->nllcs; i++) {
				if (rng_below(r, 2))
					cpuset_set_range(&s->allowed,
					    t->llc[i].first_pu,
					    t->llc[i].npus);
			}
		else
			for (i = 0; i < t->ncores; i++)
				if (rng_below(r, 2))
					set_core(t, i, &s->allowed);
	} while (cpuset_empty(&s->allowed));
}

static void
gen(struct rng *r, const struct vp_topo *t, struct sit *s)
{
	static const enum vp_smt smts[8] = {
		VP_SMT_PREFER_IDLE_CORE, VP_SMT_PREFER_IDLE_CORE,
		VP_SMT_PREFER_IDLE_CORE, VP_SMT_ISOLATE, VP_SMT_ISOLATE,
		VP_SMT_ANY, VP_SMT_ANY, VP_SMT_SIBLINGS,
	};

	memset(s, 0, sizeof(*s));
	gen_busy(r, t, s);
	gen_allowed(r, t, s);
	s->home = rng_below(r, 8) ? rng_below(r, t->npus) : VP_PU_NONE;
	s->prev = rng_below(r, 8) ? rng_below(r, t->npus) : VP_PU_NONE;
	if (s->home != VP_PU_NONE && !rng_below(r, 4))
		s->prev = s->home;
	/* siblings, wholly a known divergence (K1), one time in eight */
	s->smt = smts[rng_below(r, 8)];
	s->loc = rng_below(r, 2) ? VP_LOC_ANY : VP_LOC_LLC;
	s->cache_hot = rng_below(r, 2);
	s->slept_ns = !rng_below(r, 3) ? NEVER_SLEPT :
	    (uint64_t)rng_below(r, 2 * SHORT_SLEEP_NS);
	features_default(&s->feat);
	s->feat.on[VP_FEAT_SIS_CORE] = rng_below(r, 4);
	s->feat.on[VP_FEAT_SMT_PRIO] = rng_below(r, 4);
	s->feat.on[VP_FEAT_CLUSTER_FIRST] = rng_below(r, 4);
	s->feat.on[VP_FEAT_SIS_CACHE] = rng_below(r, 2);
	s->feat.on[VP_FEAT_FAIL_PRONE] = rng_below(r, 2);
	/* E5: the rules only wake.h has */
	s->feat.on[VP_FEAT_SOON_IDLE] = false;
	s->feat.on[VP_FEAT_POLL_END] = false;
	s->feat.on[VP_FEAT_STAY_PREV] = false;
	s->feat.on[VP_FEAT_JOIN_WAKER] = false;
	s->feat.on[VP_FEAT_LLC_FIRST] = false;
}

static struct out
run_core(struct tview *tv, const struct sit *s)
{
	struct vp_place_req q = {
		.home = s->home, .prev = s->prev, .allowed = &s->allowed,
		.smt = s->smt, .cache_hot = s->cache_hot,
		.slept_ns = s->slept_ns, .short_sleep_ns = SHORT_SLEEP_NS,
		.llc_only = llc_only(s),
	};
	struct vp_place_res res;
	struct out o;

	tv->feat = s->feat;
	tv->busy = s->busy;
	tview_sync(tv);			/* E1: an exact mask and hint */
	cpuset_zero(&tv->idle.fail_prone);
	ck_assert_int_eq(place_select(&tv->v, &q, &res), 0);
	o.pu = res.pu;
	if (res.reason == VP_REASON_FALLBACK)
		o.k = K_NONE;
	else if (res.reason == VP_REASON_CACHE_HOT)
		o.k = K_CACHE_HOT;
	else
		o.k = res.pu == s->home ? K_HOME : K_IDLE;
	return o;
}

/* Position of dense @pu in LLC @l, counted from @start and wrapping. */
static int
rotpos(const struct vp_llc *l, int start, int pu)
{
	return (pu - start + l->npus) % l->npus;
}

/*
 * The visiting position of @pu in scan_core()'s order: from @start,
 * wrapping; with SIS_CORE a core is visited where its mask PU (its first
 * idle PU, E1) stands, its PUs in dense order after it.
 */
static int
scan_pos(const struct vp_topo *t, const struct sit *s, int start, int pu)
{
	const struct vp_llc *l = &t->llc[t->pu[pu].llc];
	const struct vp_core *c = &t->core[t->pu[pu].core];
	int at = pu, j;

	if (s->feat.on[VP_FEAT_SIS_CORE]) {
		at = c->first_pu;
		for (j = c->first_pu; j < c->first_pu + c->npus; j++)
			if (!cpuset_test(&s->busy, j)) {
				at = j;
				break;
			}
	}
	return rotpos(l, start, at) * VP_MAX_SMT + (pu - c->first_pu);
}

/*
 * K8 mapped: the far domain (the anchor's LLC, E7) in the order
 * scan_core() visits it, so that equal candidates fall the same way on
 * both sides.  The near domain needs nothing: it is the home cluster,
 * which scan_core() visits first from its first PU too.
 */
static void
order_far(const struct vp_topo *t, const struct sit *s, int anchor,
    struct vp_scx_dom *d)
{
	const struct vp_llc *l = &t->llc[t->pu[anchor].llc];
	int start = s->feat.on[VP_FEAT_CLUSTER_FIRST] ?
	    t->cluster[t->pu[anchor].cluster].first_pu :
	    anchor + 1 < l->first_pu + l->npus ? anchor + 1 : l->first_pu;
	int k, j;

	ck_assert_int_eq((int)d->ncpus, l->npus);
	ck_assert_int_eq(d->cpu[0], (__s32)t->pu[l->first_pu].os_index);
	/* insertion sort: a few hundred CPUs at most */
	for (k = 0; k < l->npus; k++) {
		int pu = l->first_pu + k, key = scan_pos(t, s, start, pu);

		for (j = k; j > 0 && scan_pos(t, s, start,
		    topo_pu_of_os(t, (unsigned int)d->cpu[j - 1])) > key; j--)
			d->cpu[j] = d->cpu[j - 1];
		d->cpu[j] = (__s32)t->pu[pu].os_index;
	}
}

static struct out
run_bpf(struct tctx *c, const struct sit *s, bool map_start)
{
	static struct vp_scx_dom saved;
	struct vp_policy pol;
	struct scxfeed_vcpu_in in = {
		.policy = &pol, .nvcpus = 1, .home = s->home,
		.anchor = pick_anchor(c->t, s),
		.short_sleep_ns = SHORT_SLEEP_NS,
	};
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	__u32 probes;
	struct out o;

	policy_default(&pol);
	pol.smt = s->smt;
	pol.locality = s->loc;
	pol.cache_hot = s->cache_hot;
	scxfeed_vcpu(c->t, &in, &v);
	saved = c->doms[v.far_dom];
	if (map_start)
		order_far(c->t, s, in.anchor, &c->doms[v.far_dom]);
	c->busy = s->busy;
	c->allowed = s->allowed;
	c->feat = scxfeed_features(&s->feat);
	c->slept_at = s->slept_ns == NEVER_SLEPT ? 0 : c->now - s->slept_ns;
	o.pu = tdecide(c, &v, s->prev, &why, &direct, &probes);
	c->doms[v.far_dom] = saved;
	switch (why) {
	case VP_SCX_V_QUEUED:
		o.k = K_NONE;
		break;
	case VP_SCX_V_HOME:
		o.k = K_HOME;
		break;
	case VP_SCX_V_CACHE_HOT:
		o.k = K_CACHE_HOT;
		break;
	case VP_SCX_V_PREV:
		o.k = K_PREV;
		break;
	default:
		o.k = K_IDLE;
	}
	return o;
}

static bool
half_idle(const struct vp_topo *t, const struct sit *s, int pu)
{
	return pu != VP_PU_NONE && !cpuset_test(&s->busy, pu) &&
	    !core_idle(t, &s->busy, pu);
}

/* The half-idle allowed home that SIS_CORE + SMT_PRIO make wait. */
static bool
waiting_home(const struct vp_topo *t, const struct sit *s)
{
	return s->smt == VP_SMT_PREFER_IDLE_CORE &&
	    s->feat.on[VP_FEAT_SIS_CORE] && s->feat.on[VP_FEAT_SMT_PRIO] &&
	    s->home != VP_PU_NONE && cpuset_test(&s->allowed, s->home) &&
	    half_idle(t, s, s->home);
}

static bool
cache_hot_fires(const struct sit *s)
{
	return s->feat.on[VP_FEAT_SIS_CACHE] && s->cache_hot &&
	    s->slept_ns < SHORT_SLEEP_NS && s->prev != s->home &&
	    s->prev != VP_PU_NONE && cpuset_test(&s->allowed, s->prev) &&
	    !cpuset_test(&s->busy, s->prev);
}

/* Whole idle cores in dense range [first, first + n): any, any allowed. */
static void
whole_idle_in(const struct vp_topo *t, const struct sit *s, int first,
    int n, bool *ret_any, bool *ret_allowed)
{
	int pu;

	*ret_any = *ret_allowed = false;
	for (pu = first; pu < first + n; pu++)
		if (core_idle(t, &s->busy, pu)) {
			*ret_any = true;
			if (cpuset_test(&s->allowed, pu))
				*ret_allowed = true;
		}
}

/* K7: the anchor's cluster has a whole idle core below the LLC's best. */
static bool
near_below_llc(const struct vp_topo *t, const struct sit *s)
{
	int a = pick_anchor(t, s), pu;
	const struct vp_cluster *cl = &t->cluster[t->pu[a].cluster];
	unsigned int best = 0;
	bool any, allowed;

	if (!s->feat.on[VP_FEAT_CLUSTER_FIRST] ||
	    !s->feat.on[VP_FEAT_SIS_CORE] || s->smt == VP_SMT_ANY)
		return false;
	for (pu = cl->first_pu; pu < cl->first_pu + cl->npus; pu++)
		if (t->pu[pu].prio > best)
			best = t->pu[pu].prio;
	whole_idle_in(t, s, cl->first_pu, cl->npus, &any, &allowed);
	return allowed && best < t->llc[t->pu[a].llc].max_prio;
}

/* The known divergence (K1-K7) @s falls in, or KNOWN_COUNT: none. */
static enum known
known(const struct vp_topo *t, const struct sit *s)
{
	const struct vp_llc *l;
	bool any, allowed;

	if (s->smt == VP_SMT_SIBLINGS)
		return KNOWN_SIBLINGS;
	if (s->smt == VP_SMT_ISOLATE && s->home != VP_PU_NONE &&
	    cpuset_test(&s->allowed, s->home) && half_idle(t, s, s->home))
		return KNOWN_ISOLATE_HALF_HOME;
	if (s->smt != VP_SMT_ANY && s->feat.on[VP_FEAT_SIS_CORE] &&
	    !s->feat.on[VP_FEAT_SMT_PRIO])
		return KNOWN_SIS_CORE_NO_SMT_PRIO;
	if (s->smt == VP_SMT_ISOLATE && !s->feat.on[VP_FEAT_SIS_CORE])
		return KNOWN_ISOLATE_NO_SIS_CORE;
	if (waiting_home(t, s)) {
		l = &t->llc[t->pu[s->home].llc];
		whole_idle_in(t, s, l->first_pu, l->npus, &any, &allowed);
		if (any && !allowed)
			return KNOWN_HINT_NOT_ALLOWED;
		if (!any && cache_hot_fires(s))
			return KNOWN_HALF_HOME_BEFORE_CACHE_HOT;
	}
	if (near_below_llc(t, s))
		return KNOWN_NEAR_PRIO;
	return KNOWN_COUNT;
}

/* K9: both found an idle allowed PU beyond the home LLC (E7). */
static bool
same_elsewhere(const struct vp_topo *t, const struct sit *s,
    const struct out *a, const struct out *b)
{
	int llc = t->pu[pick_anchor(t, s)].llc;

	return !llc_only(s) && a->k == K_IDLE && b->k == K_IDLE &&
	    t->pu[a->pu].llc != llc && t->pu[b->pu].llc != llc &&
	    cpuset_test(&s->allowed, b->pu) && !cpuset_test(&s->busy, b->pu);
}

static bool
agree(const struct sit *s, const struct out *a, const struct out *b)
{
	/* E6, and rule 5 mapped onto the fallback (E5) */
	if (a->k == K_NONE)
		return (b->k == K_NONE || b->k == K_PREV) &&
		    cpuset_test(&s->allowed, a->pu) &&
		    cpuset_test(&s->allowed, b->pu);
	return a->k == b->k && a->pu == b->pu;
}

static const char *
os_of(const struct vp_topo *t, int pu, char *buf, size_t len)
{
	if (pu == VP_PU_NONE)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%u", t->pu[pu].os_index);
	return buf;
}

static void
features_line(const struct vp_features *f, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < VP_FEAT_COUNT && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s ",
		    f->on[i] ? "+" : "-", features_name((enum vp_feature)i));
}

/* Fails the test with everything needed to replay @s. */
static void
fail_with(const char *file, uint64_t seed, const struct vp_topo *t,
    const struct sit *s, const struct out *a, const struct out *b)
{
	static char busy[8192], allowed[8192], feats[512];
	char h[16], p[16], x[16], y[16];

	cpulist_format(t, &s->busy, busy, sizeof(busy));
	cpulist_format(t, &s->allowed, allowed, sizeof(allowed));
	features_line(&s->feat, feats, sizeof(feats));
	ck_abort_msg("%s seed %" PRIu64 ": place.c %s on %s, decide() %s "
	    "on %s; home %s prev %s smt %s locality %s cache_hot %d slept "
	    "%" PRIu64 " ns; features %s; busy [%s] allowed [%s]", file, seed,
	    kind_names[a->k], os_of(t, a->pu, x, sizeof(x)),
	    kind_names[b->k], os_of(t, b->pu, y, sizeof(y)),
	    os_of(t, s->home, h, sizeof(h)), os_of(t, s->prev, p, sizeof(p)),
	    policy_smt_name(s->smt), policy_locality_name(s->loc),
	    s->cache_hot, s->slept_ns, feats, busy, allowed);
}

/*
 * Every topology, SITUATIONS wake-ups each: the two sides agree, but in
 * the known divergences, every one of which shows somewhere.  One test
 * over all topologies, so that the last check sees every count.
 */
START_TEST(test_place_and_decide_agree)
{
	unsigned long seen[KNOWN_COUNT] = { 0 }, compared = 0;
	int f, i, k;

	for (f = 0; f < test_ntopo; f++) {
		_cleanup_topo_ struct vp_topo *t = load_topo(test_topo_files[f]);
		struct tctx *c = tctx_new(t);
		struct tview tv;

		tview_init(&tv, t);
		for (i = 0; i < SITUATIONS; i++) {
			uint64_t seed = 27000000ULL * (uint64_t)(f + 1) +
			    (uint64_t)i;
			struct out a, b;
			struct sit s;
			struct rng r;
			enum known why;

			rng_seed(&r, seed);
			gen(&r, t, &s);
			a = run_core(&tv, &s);
			b = run_bpf(c, &s, true);
			why = known(t, &s);
			if (why != KNOWN_COUNT) {
				seen[why] += !agree(&s, &a, &b);
				continue;
			}
			compared++;
			if (same_elsewhere(t, &s, &a, &b) && a.pu != b.pu) {
				seen[KNOWN_ELSEWHERE]++;
				continue;
			}
			if (!agree(&s, &a, &b))
				fail_with(test_topo_files[f], seed, t, &s, &a,
				    &b);
			/* where the mapped start decided, count it */
			if (a.k == K_IDLE && run_bpf(c, &s, false).pu != a.pu)
				seen[KNOWN_SCAN_START]++;
		}
		tview_release(&tv);
		tctx_free(c);
	}
	/* VP_WAKECHECK_REPORT=1: how often each divergence showed */
	if (getenv("VP_WAKECHECK_REPORT"))
		for (k = 0; k < KNOWN_COUNT; k++)
			printf("wakecheck: %lu of %lu compared; %s: %lu\n",
			    compared, (unsigned long)test_ntopo * SITUATIONS,
			    known_names[k], seen[k]);
	/* most situations are compared, not set aside */
	ck_assert_uint_gt(compared, (unsigned long)test_ntopo * SITUATIONS / 2);
	for (k = 0; k < KNOWN_COUNT; k++)
		ck_assert_msg(seen[k] > 0, "%s: no disagreement left; drop it "
		    "from test_wakecheck.c, daemon/scx/README.md and the docs",
		    known_names[k]);
}
END_TEST

Suite *
wakecheck_suite(void)
{
	Suite *s = suite_create("wakecheck");
	TCase *tc = tcase_create("agree");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_place_and_decide_agree);
	suite_add_tcase(s, tc);
	return s;
}
