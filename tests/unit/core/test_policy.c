/*
 * test_policy.c - policy.c: every field, every value name, and the
 * errors that leave the policy untouched.
 */
#include <errno.h>
#include <string.h>

#include <check.h>

#include "../suites.h"
#include "core/vcpuplace.h"

static void set_ok(struct vp_policy *p, const char *field, const char *val)
{
	int r = policy_set_field(p, field, val);

	ck_assert_msg(r == 0, "%s=%s: %d", field, val, r);
}

/* A failure returns @err and leaves @p byte for byte as it was. */
static void set_fail(const char *field, const char *val, int err)
{
	struct vp_policy p, copy;
	int r;

	memset(&p, 0x3c, sizeof(p));
	policy_default(&p);
	memcpy(&copy, &p, sizeof(p));
	r = policy_set_field(&p, field, val);
	ck_assert_msg(r == err, "%s=%s: %d, want %d", field, val, r, err);
	ck_assert_msg(memcmp(&p, &copy, sizeof(p)) == 0,
	    "%s=%s touched the policy", field, val);
}

/* Names are non-empty and distinct within an enum. */
static void check_names(const char *(*name)(int), int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(name(i));
		ck_assert_int_gt(strlen(name(i)), 0);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(name(i), name(j));
	}
}

static const char *mode_name(int v) { return policy_mode_name(v); }
static const char *smt_name(int v) { return policy_smt_name(v); }
static const char *loc_name(int v) { return policy_locality_name(v); }
static const char *prio_name(int v) { return policy_priority_name(v); }
static const char *emu_name(int v) { return policy_emulator_name(v); }

START_TEST(test_policy_names)
{
	check_names(mode_name, VP_MODE_DEDICATED + 1);
	check_names(smt_name, VP_SMT_ANY + 1);
	check_names(loc_name, VP_LOC_ANY + 1);
	check_names(prio_name, VP_PRIO_LOW + 1);
	check_names(emu_name, VP_EMU_VCPUS + 1);
	/* the header's own example */
	ck_assert_str_eq(policy_smt_name(VP_SMT_PREFER_IDLE_CORE),
	    "prefer-idle-core");
	ck_assert_str_eq(policy_smt_name(VP_SMT_ISOLATE), "isolate");
}
END_TEST

START_TEST(test_policy_default)
{
	struct vp_policy p;

	memset(&p, 0xff, sizeof(p));
	policy_default(&p);
	ck_assert_int_le((unsigned int)p.mode, VP_MODE_DEDICATED);
	ck_assert_int_le((unsigned int)p.smt, VP_SMT_ANY);
	ck_assert_int_le((unsigned int)p.locality, VP_LOC_ANY);
	ck_assert_int_le((unsigned int)p.priority, VP_PRIO_LOW);
	ck_assert_int_le((unsigned int)p.emulator, VP_EMU_VCPUS);
	ck_assert(p.cache_hot == true || p.cache_hot == false);
	ck_assert(p.core_sched == true || p.core_sched == false);
}
END_TEST

/* Each enum field takes every name its *_name() function prints. */
START_TEST(test_policy_enum_fields)
{
	struct vp_policy p;
	int v;

	policy_default(&p);
	for (v = VP_MODE_DEDICATED; v >= 0; v--) {
		set_ok(&p, "mode", policy_mode_name(v));
		ck_assert_int_eq(p.mode, v);
	}
	for (v = VP_SMT_ANY; v >= 0; v--) {
		set_ok(&p, "smt", policy_smt_name(v));
		ck_assert_int_eq(p.smt, v);
	}
	for (v = VP_LOC_ANY; v >= 0; v--) {
		set_ok(&p, "locality", policy_locality_name(v));
		ck_assert_int_eq(p.locality, v);
	}
	for (v = VP_PRIO_LOW; v >= 0; v--) {
		set_ok(&p, "priority", policy_priority_name(v));
		ck_assert_int_eq(p.priority, v);
	}
	for (v = VP_EMU_VCPUS; v >= 0; v--) {
		set_ok(&p, "emulator", policy_emulator_name(v));
		ck_assert_int_eq(p.emulator, v);
	}
	/* one field changes, the others stay */
	policy_default(&p);
	set_ok(&p, "smt", "isolate");
	{
		struct vp_policy d;

		policy_default(&d);
		ck_assert_int_eq(p.smt, VP_SMT_ISOLATE);
		ck_assert_int_eq(p.mode, d.mode);
		ck_assert_int_eq(p.locality, d.locality);
		ck_assert_int_eq(p.priority, d.priority);
		ck_assert_int_eq(p.emulator, d.emulator);
		ck_assert(p.cache_hot == d.cache_hot);
		ck_assert(p.core_sched == d.core_sched);
	}
}
END_TEST

START_TEST(test_policy_bool_fields)
{
	struct vp_policy p;

	policy_default(&p);
	set_ok(&p, "cache_hot", "yes");
	ck_assert(p.cache_hot);
	set_ok(&p, "cache_hot", "no");
	ck_assert(!p.cache_hot);
	set_ok(&p, "cache_hot", "true");
	ck_assert(p.cache_hot);
	set_ok(&p, "core_sched", "yes");
	ck_assert(p.core_sched);
	ck_assert(p.cache_hot);
	set_ok(&p, "core_sched", "false");
	ck_assert(!p.core_sched);
	ck_assert(p.cache_hot);
}
END_TEST

START_TEST(test_policy_errors)
{
	static const char *const fields[] = { "mode", "smt", "locality",
		"priority", "emulator", "cache_hot", "core_sched" };
	unsigned int i;

	set_fail("no_such_field", "shared", -ENOENT);
	set_fail("", "shared", -ENOENT);
	set_fail("Smt", "isolate", -ENOENT);
	set_fail("smt ", "isolate", -ENOENT);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		set_fail(fields[i], "", -EINVAL);
		set_fail(fields[i], "bogus", -EINVAL);
		set_fail(fields[i], "?", -EINVAL);
	}
	set_fail("smt", "Isolate", -EINVAL);
	set_fail("smt", "isolate ", -EINVAL);
	set_fail("mode", "shared,dedicated", -EINVAL);
	set_fail("locality", "numa2", -EINVAL);
	/* a value of another field */
	set_fail("mode", "isolate", -EINVAL);
	set_fail("priority", "llc", -EINVAL);
	set_fail("cache_hot", "maybe", -EINVAL);
	set_fail("cache_hot", "2", -EINVAL);
}
END_TEST

Suite *policy_suite(void)
{
	Suite *s = suite_create("policy");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_policy_names);
	tcase_add_test(tc, test_policy_default);
	tcase_add_test(tc, test_policy_enum_fields);
	tcase_add_test(tc, test_policy_bool_fields);
	tcase_add_test(tc, test_policy_errors);
	suite_add_tcase(s, tc);
	return s;
}
