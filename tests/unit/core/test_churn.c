/*
 * test_churn.c - churn.c: must-moves, hysteresis, cooldown and the move
 * budget, on g4dnmetal (2 packages, 48 cores, SMT2: OS CPUs n and n+48
 * share a core).  Each rule has a test that fails when the rule is gone.
 */
#include <string.h>

#include <check.h>

#include "../suites.h"
#include "../testutil.h"

#define SEC	1000000000ULL
#define TICK	(SEC / 4)		/* the daemon's 250 ms */
#define NOW	(1000 * SEC)		/* long after any last_move_ns of 0 */

/*
 * The host of most tests: core {0,48} reserved, core {5,53} held by some
 * dedicated VM, every other PU shared.
 */
struct world {
	struct vp_topo *t;
	struct vp_cpuset reserved, shared, foreign;
	struct vp_churn_host h;
	struct vp_churn_rules r;
};

static void world_init(struct world *w)
{
	memset(w, 0, sizeof(*w));
	w->t = load_topo("g4dnmetal.xml");
	cpuset_set(&w->reserved, os2pu(w->t, 0));
	cpuset_set(&w->reserved, os2pu(w->t, 48));
	cpuset_set(&w->foreign, os2pu(w->t, 5));
	cpuset_set(&w->foreign, os2pu(w->t, 53));
	cpuset_andnot(&w->shared, &w->t->all, &w->reserved);
	cpuset_andnot(&w->shared, &w->shared, &w->foreign);
	w->h = (struct vp_churn_host){ .topo = w->t,
		.reserved = &w->reserved, .shared_pool = &w->shared };
	churn_rules_default(&w->r);
}

static void world_release(struct world *w)
{
	topo_free(w->t);
}

/* The set of OS CPUs @a and @b (pass the same twice for one). */
static struct vp_cpuset os2(const struct vp_topo *t, unsigned int a,
    unsigned int b)
{
	struct vp_cpuset s;

	cpuset_zero(&s);
	cpuset_set(&s, os2pu(t, a));
	cpuset_set(&s, os2pu(t, b));
	return s;
}

/* A vCPU that never moved and whose plan differs for the first time. */
static struct vp_churn_vcpu vcpu(const struct vp_cpuset *aff,
    const struct vp_cpuset *planned)
{
	return (struct vp_churn_vcpu){ .affinity = aff, .planned = planned };
}

static enum vp_churn_verdict classify(struct world *w,
    struct vp_churn_vcpu *v, uint64_t now)
{
	return churn_classify(&w->h, &w->r, v, now);
}

START_TEST(test_churn_defaults)
{
	struct vp_churn_rules r;

	memset(&r, 0xff, sizeof(r));
	churn_rules_default(&r);
	ck_assert_uint_eq(r.hysteresis_ticks, 2);
	ck_assert_uint_eq(r.cooldown_ns, 5 * SEC);
	ck_assert_uint_eq(r.move_budget, 16);
}
END_TEST

/* As planned: nothing to do, and the hysteresis count starts over. */
START_TEST(test_churn_unchanged)
{
	struct world w;
	struct vp_cpuset aff, planned;
	struct vp_churn_vcpu v;

	world_init(&w);
	aff = os2(w.t, 1, 49);
	planned = aff;
	v = vcpu(&aff, &planned);
	v.pending_ticks = 7;
	v.urgent = true;	/* a new VM already where the plan wants it */
	ck_assert_int_eq(classify(&w, &v, NOW), VP_CHURN_UNCHANGED);
	ck_assert_int_eq(v.verdict, VP_CHURN_UNCHANGED);
	ck_assert_uint_eq(v.pending_ticks, 0);
	world_release(&w);
}
END_TEST

/*
 * The must-move cases below start in the worst state for a move: the plan
 * differs for the first time and the vCPU moved this very tick.  So a
 * vCPU that is not a must-move waits, and the verdict tells them apart.
 */
static void assert_must(struct world *w, const struct vp_cpuset *aff,
    const struct vp_cpuset *planned, const char *what)
{
	struct vp_churn_vcpu v = vcpu(aff, planned);

	v.last_move_ns = NOW;
	ck_assert_msg(churn_affinity_broken(&w->h, aff, planned),
	    "%s: not broken", what);
	ck_assert_msg(classify(w, &v, NOW) == VP_CHURN_MUST,
	    "%s: verdict %d, not a must-move", what, v.verdict);
	ck_assert_msg(v.pending_ticks == 0, "%s: must-moves are not "
	    "counted (%u)", what, v.pending_ticks);
}

static void assert_waits(struct world *w, const struct vp_cpuset *aff,
    const struct vp_cpuset *planned, const char *what)
{
	struct vp_churn_vcpu v = vcpu(aff, planned);

	v.last_move_ns = NOW;
	ck_assert_msg(!churn_affinity_broken(&w->h, aff, planned),
	    "%s: broken", what);
	ck_assert_msg(classify(w, &v, NOW) == VP_CHURN_WAIT,
	    "%s: verdict %d, not a wait", what, v.verdict);
}

START_TEST(test_churn_must_empty)
{
	struct world w;
	struct vp_cpuset aff, planned;

	world_init(&w);
	cpuset_zero(&aff);
	planned = os2(w.t, 2, 50);
	assert_must(&w, &aff, &planned, "empty affinity");
	world_release(&w);
}
END_TEST

/* A PU the model does not have: offline since the pin was made. */
START_TEST(test_churn_must_offline)
{
	struct world w;
	struct vp_cpuset aff, planned;

	world_init(&w);
	aff = os2(w.t, 1, 1);
	planned = os2(w.t, 2, 50);
	assert_waits(&w, &aff, &planned, "shared PU");
	cpuset_set(&aff, w.t->npus);	/* the first index past the model */
	assert_must(&w, &aff, &planned, "shared PU and an offline one");
	world_release(&w);
}
END_TEST

START_TEST(test_churn_must_reserved_only)
{
	struct world w;
	struct vp_cpuset aff, planned;

	world_init(&w);
	planned = os2(w.t, 2, 50);
	aff = w.reserved;
	assert_must(&w, &aff, &planned, "reserved core");
	aff = os2(w.t, 48, 48);
	assert_must(&w, &aff, &planned, "one reserved PU");
	/* only: one shared PU besides the reserved ones is a usable pin */
	cpuset_set(&aff, os2pu(w.t, 1));
	assert_waits(&w, &aff, &planned, "reserved and shared");
	world_release(&w);
}
END_TEST

START_TEST(test_churn_must_foreign_exclusive)
{
	struct world w;
	struct vp_cpuset aff, planned;

	world_init(&w);
	planned = os2(w.t, 2, 50);
	aff = os2(w.t, 1, 53);		/* a shared PU, a foreign one */
	assert_must(&w, &aff, &planned, "on a foreign exclusive PU");
	/* the same PU inside the vCPU's own plan is its own */
	cpuset_set(&planned, os2pu(w.t, 53));
	assert_waits(&w, &aff, &planned, "on its own exclusive PU");
	world_release(&w);
}
END_TEST

static struct vp_vm_spec spec(const char *name, int n, enum vp_mode mode)
{
	struct vp_vm_spec s;

	memset(&s, 0, sizeof(s));
	s.name = name;
	s.nvcpus = n;
	policy_default(&s.policy);
	s.policy.mode = mode;
	return s;
}

/*
 * The same rule on a real plan: a dedicated VM holds 2 PUs; a shared
 * vCPU left on one of them must leave at once, while the dedicated vCPU
 * on its own PU plus a shared one waits like any other difference.
 */
START_TEST(test_churn_must_foreign_exclusive_plan)
{
	struct world w;
	struct vp_vm_spec vms[2];
	struct vp_features feat;
	struct vp_cpuset busy, aff;
	struct vp_plan_input in;
	struct vp_plan *p = NULL;
	const struct vp_vcpu_plan *ded, *web;
	struct vp_churn_vcpu v;

	world_init(&w);
	vms[0] = spec("ded", 2, VP_MODE_DEDICATED);
	vms[1] = spec("web", 2, VP_MODE_SHARED);
	features_default(&feat);
	cpuset_zero(&busy);
	in = (struct vp_plan_input){ .vms = vms, .nvms = 2, .busy = &busy,
		.reserved = &w.reserved, .feat = &feat };
	ck_assert_int_eq(plan_compute(w.t, &in, &p), 0);
	ck_assert_int_eq(p->vm[0].error, 0);
	ck_assert_int_eq(p->vm[1].error, 0);
	ded = &p->vm[0].vcpu[0];
	web = &p->vm[1].vcpu[0];
	ck_assert(!cpuset_test(&p->shared_pool, ded->home));
	ck_assert(!cpuset_test(&web->allowed, ded->home));
	w.h.shared_pool = &p->shared_pool;

	cpuset_zero(&aff);
	cpuset_set(&aff, ded->home);
	assert_must(&w, &aff, &web->allowed, "web on ded's PU");
	/* ded's vCPU on its own PU: as planned */
	v = vcpu(&aff, &ded->allowed);
	ck_assert_int_eq(classify(&w, &v, NOW), VP_CHURN_UNCHANGED);
	/* ... and on its PU plus one of web's: differs, nothing broken */
	cpuset_set(&aff, web->home);
	assert_waits(&w, &aff, &ded->allowed, "ded on its PU and web's");
	plan_free(p);
	world_release(&w);
}
END_TEST

/* A new VM or a new policy bypasses hysteresis and cooldown. */
START_TEST(test_churn_must_urgent)
{
	struct world w;
	struct vp_cpuset aff, planned;
	struct vp_churn_vcpu v;

	world_init(&w);
	aff = os2(w.t, 1, 49);
	planned = os2(w.t, 2, 50);
	v = vcpu(&aff, &planned);
	v.last_move_ns = NOW - SEC;
	ck_assert_int_eq(classify(&w, &v, NOW), VP_CHURN_WAIT);
	v = vcpu(&aff, &planned);
	v.last_move_ns = NOW - SEC;
	v.urgent = true;
	ck_assert_int_eq(classify(&w, &v, NOW), VP_CHURN_MUST);
	ck_assert_uint_eq(v.pending_ticks, 0);
	world_release(&w);
}
END_TEST

/* A plan must differ 2 ticks in a row; the third tick changes nothing. */
START_TEST(test_churn_hysteresis)
{
	struct world w;
	struct vp_cpuset aff, planned;
	struct vp_churn_vcpu v;

	world_init(&w);
	aff = os2(w.t, 1, 49);
	planned = os2(w.t, 2, 50);
	v = vcpu(&aff, &planned);
	ck_assert_int_eq(classify(&w, &v, NOW), VP_CHURN_WAIT);
	ck_assert_uint_eq(v.pending_ticks, 1);
	ck_assert_int_eq(classify(&w, &v, NOW + TICK), VP_CHURN_MAY);
	ck_assert_uint_eq(v.pending_ticks, 2);
	/* not moved (no budget): still due */
	ck_assert_int_eq(classify(&w, &v, NOW + 2 * TICK), VP_CHURN_MAY);

	/* the tunable is the one obeyed: 3 ticks */
	w.r.hysteresis_ticks = 3;
	v = vcpu(&aff, &planned);
	ck_assert_int_eq(classify(&w, &v, NOW), VP_CHURN_WAIT);
	ck_assert_int_eq(classify(&w, &v, NOW + TICK), VP_CHURN_WAIT);
	ck_assert_int_eq(classify(&w, &v, NOW + 2 * TICK), VP_CHURN_MAY);
	world_release(&w);
}
END_TEST

/* A plan that flips back to the live affinity starts the count over. */
START_TEST(test_churn_hysteresis_reset)
{
	struct world w;
	struct vp_cpuset aff, there, back;
	struct vp_churn_vcpu v;

	world_init(&w);
	aff = os2(w.t, 1, 49);
	there = os2(w.t, 2, 50);
	back = aff;
	v = vcpu(&aff, &there);
	ck_assert_int_eq(classify(&w, &v, NOW), VP_CHURN_WAIT);
	v.planned = &back;
	ck_assert_int_eq(classify(&w, &v, NOW + TICK), VP_CHURN_UNCHANGED);
	ck_assert_uint_eq(v.pending_ticks, 0);
	v.planned = &there;
	ck_assert_int_eq(classify(&w, &v, NOW + 2 * TICK), VP_CHURN_WAIT);
	ck_assert_uint_eq(v.pending_ticks, 1);
	ck_assert_int_eq(classify(&w, &v, NOW + 3 * TICK), VP_CHURN_MAY);
	world_release(&w);
}
END_TEST

/*
 * A vCPU that moved waits 5 s, its plan held or not; the count goes on
 * meanwhile, so it moves on the first tick after the cooldown.
 */
START_TEST(test_churn_cooldown)
{
	struct world w;
	struct vp_cpuset aff, planned;
	struct vp_churn_vcpu v;
	uint64_t moved = NOW;
	unsigned int i;

	world_init(&w);
	aff = os2(w.t, 1, 49);
	planned = os2(w.t, 2, 50);
	v = vcpu(&aff, &planned);
	v.last_move_ns = moved;
	for (i = 1; i < 20; i++) {
		ck_assert_msg(classify(&w, &v, moved + i * TICK) ==
		    VP_CHURN_WAIT, "tick %u: verdict %d", i, v.verdict);
		ck_assert_uint_eq(v.pending_ticks, i);
	}
	ck_assert_int_eq(classify(&w, &v, moved + 5 * SEC - 1),
	    VP_CHURN_WAIT);
	ck_assert_int_eq(classify(&w, &v, moved + 5 * SEC), VP_CHURN_MAY);

	/* a must-move ignores it: empty affinity 1 s after a move */
	cpuset_zero(&aff);
	v = vcpu(&aff, &planned);
	v.last_move_ns = moved;
	ck_assert_int_eq(classify(&w, &v, moved + SEC), VP_CHURN_MUST);
	world_release(&w);
}
END_TEST

/*
 * Sets v[i].verdict from @pattern: 'm' must, 'y' may, 'w' wait, '='
 * unchanged.  Returns the length of @pattern.
 */
static int verdicts(struct vp_churn_vcpu *v, const char *pattern)
{
	int i;

	for (i = 0; pattern[i]; i++) {
		memset(&v[i], 0, sizeof(v[i]));
		v[i].move = true;	/* stale: churn_pick() must clear it */
		v[i].verdict = pattern[i] == 'm' ? VP_CHURN_MUST :
		    pattern[i] == 'y' ? VP_CHURN_MAY :
		    pattern[i] == 'w' ? VP_CHURN_WAIT : VP_CHURN_UNCHANGED;
	}
	return i;
}

/* The indices churn_pick() took, as a pattern of 'x' and '.'. */
static void taken(const struct vp_churn_vcpu *v, int n, char *out)
{
	int i;

	for (i = 0; i < n; i++)
		out[i] = v[i].move ? 'x' : '.';
	out[n] = '\0';
}

START_TEST(test_churn_pick_only_due)
{
	struct vp_churn_vcpu v[8];
	char got[9];
	int n = verdicts(v, "w=ym=wym");

	ck_assert_uint_eq(churn_pick(v, n, 16), 4);
	taken(v, n, got);
	ck_assert_str_eq(got, "..xx..xx");
}
END_TEST

/* Must-moves go first even when they come last; order is kept. */
START_TEST(test_churn_pick_must_first)
{
	struct vp_churn_vcpu v[25];
	char got[26];
	int n = verdicts(v, "yyyyyyyyyyyyyyyyyyyymmmmm");

	ck_assert_uint_eq(churn_pick(v, n, 16), 16);
	taken(v, n, got);
	ck_assert_str_eq(got, "xxxxxxxxxxx.........xxxxx");
	/* more must-moves than budget: the first ones, in order */
	n = verdicts(v, "ymwmmmmmmmmmmmmmmmmmmm");
	ck_assert_uint_eq(churn_pick(v, n, 16), 16);
	taken(v, n, got);
	ck_assert_str_eq(got, ".x.xxxxxxxxxxxxxxx....");
}
END_TEST

/*
 * 40 vCPUs whose plan has held: 16 move per tick, in order; the rest
 * stay due and go on the next ticks, without counting hysteresis again.
 */
START_TEST(test_churn_budget)
{
	struct world w;
	struct vp_cpuset aff[40], planned;
	struct vp_churn_vcpu v[40];
	unsigned int total = 0;
	int i, tick;

	world_init(&w);
	planned = os2(w.t, 2, 50);
	for (i = 0; i < 40; i++) {
		aff[i] = os2(w.t, 10 + i % 30, 10 + i % 30);
		v[i] = vcpu(&aff[i], &planned);
		ck_assert_int_eq(classify(&w, &v[i], NOW), VP_CHURN_WAIT);
	}
	for (tick = 1; tick <= 3; tick++) {
		uint64_t now = NOW + tick * TICK;

		for (i = 0; i < 40; i++)
			classify(&w, &v[i], now);
		ck_assert_uint_eq(churn_pick(v, 40, w.r.move_budget),
		    tick < 3 ? 16 : 8);
		for (i = 0; i < 40; i++) {
			/* in order: tick 1 takes 0..15, tick 2 16..31 */
			ck_assert_msg(v[i].move == (i >= (tick - 1) * 16 &&
			    i < tick * 16), "tick %d vCPU %d move %d", tick,
			    i, v[i].move);
			if (!v[i].move)
				continue;
			/* what the daemon's actuator does after a pin */
			aff[i] = planned;
			v[i].pending_ticks = 0;
			v[i].last_move_ns = now;
			total++;
		}
	}
	ck_assert_uint_eq(total, 40);
	world_release(&w);
}
END_TEST

Suite *churn_suite(void)
{
	Suite *s = suite_create("churn");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_churn_defaults);
	tcase_add_test(tc, test_churn_unchanged);
	tcase_add_test(tc, test_churn_must_empty);
	tcase_add_test(tc, test_churn_must_offline);
	tcase_add_test(tc, test_churn_must_reserved_only);
	tcase_add_test(tc, test_churn_must_foreign_exclusive);
	tcase_add_test(tc, test_churn_must_foreign_exclusive_plan);
	tcase_add_test(tc, test_churn_must_urgent);
	tcase_add_test(tc, test_churn_hysteresis);
	tcase_add_test(tc, test_churn_hysteresis_reset);
	tcase_add_test(tc, test_churn_cooldown);
	tcase_add_test(tc, test_churn_pick_only_due);
	tcase_add_test(tc, test_churn_pick_must_first);
	tcase_add_test(tc, test_churn_budget);
	suite_add_tcase(s, tc);
	return s;
}
