/*
 * test_cputune.c - cputune.c on domain XML as libvirt writes it: no
 * <cputune>, each quota element alone, libvirt's -1 (no limit), and
 * text that is not a domain or not a number.
 */
#include <errno.h>
#include <string.h>

#include <check.h>

#include "host/cputune.h"
#include "../suites.h"

#define DOM(tune) "<domain type='kvm'><name>vm</name><vcpu>4</vcpu>" \
	tune "<os><type>hvm</type></os></domain>"

static int
parse(const char *xml, struct vp_cputune *ret)
{
	return cputune_parse(xml, strlen(xml), ret);
}

START_TEST(test_no_quota)
{
	struct vp_cputune c;
	char w[96];

	ck_assert_int_eq(parse(DOM(""), &c), 0);
	ck_assert(!cputune_has_quota(&c));
	ck_assert_str_eq(cputune_words(&c, w, sizeof(w)), "no quota");
	/* shares (cpu.weight) and pins are no quota; -1 is no limit */
	ck_assert_int_eq(parse(DOM("<cputune><shares>2048</shares><vcpupin "
	    "vcpu='0' cpuset='1'/><quota>-1</quota><period>100000</period>"
	    "</cputune>"), &c), 0);
	ck_assert(!cputune_has_quota(&c));
	ck_assert_int_eq(c.quota_us, 0);
	ck_assert_int_eq(c.period_us, 100000);
}
END_TEST

START_TEST(test_each_quota)
{
	static const struct {
		const char *xml, *words;
	} rows[] = {
		{ DOM("<cputune><period>100000</period><quota>50000</quota>"
		  "</cputune>"), "<quota> 50000 us per 100000 us period" },
		{ DOM("<cputune><quota>25000</quota></cputune>"),
		  "<quota> 25000 us per period" },
		{ DOM("<cputune><global_period>100000</global_period>"
		  "<global_quota>200000</global_quota></cputune>"),
		  "<global_quota> 200000 us per period" },
		{ DOM("<cputune><emulator_quota>10000</emulator_quota>"
		  "</cputune>"), "<emulator_quota> 10000 us per period" },
		{ DOM("<cputune><iothread_quota>10000</iothread_quota>"
		  "</cputune>"), "<iothread_quota> 10000 us per period" },
	};
	struct vp_cputune c;
	char w[96];
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_int_eq(parse(rows[i].xml, &c), 0);
		ck_assert_msg(cputune_has_quota(&c), "row %zu", i);
		ck_assert_str_eq(cputune_words(&c, w, sizeof(w)),
		    rows[i].words);
	}
}
END_TEST

START_TEST(test_bad_text)
{
	static const char *const bad[] = {
		"", "not xml", "<domain><cputune><quota>",
		"<capabilities/>",
		DOM("<cputune><quota>lots</quota></cputune>"),
		DOM("<cputune><quota>50000us</quota></cputune>"),
		DOM("<cputune><quota>99999999999999999999</quota></cputune>"),
	};
	struct vp_cputune c, was;
	size_t i;

	memset(&was, 0x5a, sizeof(was));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = was;
		ck_assert_msg(parse(bad[i], &c) == -EINVAL, "%zu: %s", i,
		    bad[i]);
		/* left alone on failure */
		ck_assert(!memcmp(&c, &was, sizeof(c)));
	}
}
END_TEST

Suite *
cputune_suite(void)
{
	Suite *s = suite_create("cputune");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_no_quota);
	tcase_add_test(tc, test_each_quota);
	tcase_add_test(tc, test_bad_text);
	suite_add_tcase(s, tc);
	return s;
}
