/*
 * test_features.c - features.c: defaults, names and lookups.
 */
#include <errno.h>
#include <string.h>

#include <check.h>

#include "../suites.h"
#include "core/vcpuplace.h"

/* What feature_list.h says, read through the same X-macro. */
static const struct {
	const char *name;
	bool def;
} expect[] = {
#define VP_FEATURE(name, def, why) { #name, def },
#include "core/feature_list.h"
#undef VP_FEATURE
};

/*
 * The table written out by hand, not read through feature_list.h: the
 * tests above compare features.c with the same X-macro it was built
 * from, so they cannot see a row dropped, renamed or given another
 * default there.  Scenarios (scenario.c), benchmarks and status name
 * features, so such a change must fail here, and a new feature must be
 * added here on purpose.
 */
static const struct {
	const char *name;
	enum vp_feature f;
	bool def;
} table[] = {
	{ "SIS_CORE", VP_FEAT_SIS_CORE, true },
	{ "SIS_CACHE", VP_FEAT_SIS_CACHE, true },
	{ "CLUSTER_FIRST", VP_FEAT_CLUSTER_FIRST, true },
	{ "SMT_PRIO", VP_FEAT_SMT_PRIO, true },
	{ "FAIL_PRONE", VP_FEAT_FAIL_PRONE, true },
	{ "SOON_IDLE", VP_FEAT_SOON_IDLE, true },
	{ "HOST_PACK", VP_FEAT_HOST_PACK, true },
	{ "POLL_END", VP_FEAT_POLL_END, true },
	{ "YIELD_TO", VP_FEAT_YIELD_TO, true },
	{ "STAY_PREV", VP_FEAT_STAY_PREV, false },
	{ "JOIN_WAKER", VP_FEAT_JOIN_WAKER, true },
	{ "LLC_FIRST", VP_FEAT_LLC_FIRST, true },
	{ "RESUME_PREV", VP_FEAT_RESUME_PREV, true },
};
#define NTABLE ((int)(sizeof(table) / sizeof(table[0])))

START_TEST(test_features_table)
{
	struct vp_features on;
	int i, j;

	ck_assert_int_eq(VP_FEAT_COUNT, NTABLE);
	memset(&on, 0x5a, sizeof(on));
	features_default(&on);
	for (i = 0; i < NTABLE; i++) {
		const char *why = features_why(table[i].f);

		ck_assert_int_eq(features_lookup(table[i].name), table[i].f);
		ck_assert_str_eq(features_name(table[i].f), table[i].name);
		ck_assert_msg(on.on[table[i].f] == table[i].def,
		    "%s defaults to %d", table[i].name, on.on[table[i].f]);
		/* a one-line reason of its own, not a copied row's */
		ck_assert_msg(strlen(why) > 10, "%s: reason '%s'",
		    table[i].name, why);
		ck_assert_ptr_null(strchr(why, '\n'));
		for (j = 0; j < i; j++)
			ck_assert_str_ne(why, features_why(table[j].f));
	}
	/* names are exact: no other case, no blanks */
	ck_assert_int_eq(features_lookup("sis_core"), -EINVAL);
	ck_assert_int_eq(features_lookup("SIS_CORE "), -EINVAL);
	/* out of range reads as "?", not as a neighbour's row */
	ck_assert_str_eq(features_name(VP_FEAT_COUNT), "?");
	ck_assert_str_eq(features_why((enum vp_feature)-1), "?");
}
END_TEST

START_TEST(test_features_default)
{
	struct vp_features f;
	int i;

	/* Poison first: the defaults must overwrite every entry. */
	memset(&f, 0x5a, sizeof(f));
	features_default(&f);
	for (i = 0; i < VP_FEAT_COUNT; i++)
		ck_assert_msg(f.on[i] == expect[i].def, "%s default %d",
		    expect[i].name, f.on[i]);
	ck_assert(feat(&f, SIS_CORE));
	ck_assert(feat(&f, FAIL_PRONE));
}
END_TEST

START_TEST(test_features_names)
{
	int i, j;

	for (i = 0; i < VP_FEAT_COUNT; i++) {
		const char *n = features_name(i), *w = features_why(i);

		ck_assert_ptr_nonnull(n);
		ck_assert_str_eq(n, expect[i].name);
		ck_assert_ptr_nonnull(w);
		ck_assert_int_gt(strlen(w), 0);
		ck_assert_int_eq(features_lookup(n), i);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(n, features_name(j));
	}
}
END_TEST

START_TEST(test_features_lookup_unknown)
{
	ck_assert_int_eq(features_lookup("NO_SUCH_FEATURE"), -EINVAL);
	ck_assert_int_eq(features_lookup(""), -EINVAL);
	ck_assert_int_eq(features_lookup("SIS_CORE_"), -EINVAL);
	ck_assert_int_eq(features_lookup("SIS"), -EINVAL);
	ck_assert_int_eq(features_lookup("SIS_CORE"), VP_FEAT_SIS_CORE);
	ck_assert_int_eq(features_lookup("CLUSTER_FIRST"),
	    VP_FEAT_CLUSTER_FIRST);
}
END_TEST

Suite *features_suite(void)
{
	Suite *s = suite_create("features");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_features_table);
	tcase_add_test(tc, test_features_default);
	tcase_add_test(tc, test_features_names);
	tcase_add_test(tc, test_features_lookup_unknown);
	suite_add_tcase(s, tc);
	return s;
}
