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

START_TEST(test_features_count)
{
	ck_assert_int_eq(sizeof(expect) / sizeof(expect[0]), VP_FEAT_COUNT);
	ck_assert_int_ge(VP_FEAT_COUNT, 5);
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

	tcase_add_test(tc, test_features_count);
	tcase_add_test(tc, test_features_default);
	tcase_add_test(tc, test_features_names);
	tcase_add_test(tc, test_features_lookup_unknown);
	suite_add_tcase(s, tc);
	return s;
}
