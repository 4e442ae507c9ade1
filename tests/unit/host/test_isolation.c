/*
 * test_isolation.c - isolation.c: the kernel command line's isolcpus= and
 * nohz_full= as the kernel takes them (flags, the default domain flag,
 * an ignored parameter, init's arguments after --), the release, and the
 * verdict from a fake root holding proc/cmdline, the isolated file and
 * osrelease: refused for isolcpus= in the domain form, not for the nohz
 * or managed_irq forms nor nohz_full=; an empty isolated list is fine;
 * unreadable and garbled files are kept as errors, never a crash.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "host/isolation.h"
#include "../suites.h"
#include "../testutil.h"

static const struct {
	const char *cmdline;
	bool domain, other;
	const char *isolcpus, *nohz_full;
} cmd_cases[] = {
	{ "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet", false, false, "", "" },
	/* no flag: domain isolation, the kernel's default */
	{ "ro isolcpus=2-5 quiet", true, false, "2-5", "" },
	{ "isolcpus=domain,managed_irq,2-5", true, false,
	  "domain,managed_irq,2-5", "" },
	{ "isolcpus=managed_irq,domain,2-5,8", true, false,
	  "managed_irq,domain,2-5,8", "" },
	/* nohz or managed_irq alone: no domain isolation */
	{ "isolcpus=nohz,2-5", false, true, "nohz,2-5", "" },
	{ "isolcpus=nohz,managed_irq,2-5 nohz_full=2-5 rcu_nocbs=2-5", false,
	  true, "nohz,managed_irq,2-5", "2-5" },
	{ "isolcpus=managed_irq,2-5", false, true, "managed_irq,2-5", "" },
	{ "nohz_full=2-5", false, false, "", "2-5" },
	/* an unknown word sets no flag: still the default, domain */
	{ "isolcpus=future_flag,2-5", true, false, "future_flag,2-5", "" },
	{ "isolcpus=nohz,future,2-5", false, true, "nohz,future,2-5", "" },
	/* what the kernel ignores: an illegal flag, no or a bad CPU list */
	{ "isolcpus=bad-flag,2-5", false, false, "", "" },
	{ "isolcpus=domain,x", false, false, "", "" },
	{ "isolcpus=", false, false, "", "" },
	{ "isolcpus=domain,", false, false, "", "" },
	{ "isolcpus=2-5q", false, false, "", "" },
	/* groups and N are CPU lists too */
	{ "isolcpus=domain,0-7:2/4", true, false, "domain,0-7:2/4", "" },
	/* after --, init's arguments, not the kernel's */
	{ "ro -- isolcpus=2-5", false, false, "", "" },
	{ "ro --isolcpus=2-5", false, false, "", "" },
	/* quotes around the parameter or its value */
	{ "\"isolcpus=2-5\" ro", true, false, "2-5", "" },
	{ "isolcpus=\"domain,2-5\"", true, false, "domain,2-5", "" },
	{ "foo=\"a isolcpus=2-5\"", false, false, "", "" },
	/* a name that only ends in isolcpus */
	{ "xisolcpus=2-5 my.isolcpus=3", false, false, "", "" },
	/* each counts; the last one honoured is kept */
	{ "isolcpus=nohz,1 isolcpus=domain,1", true, true, "domain,1", "" },
	{ "\tisolcpus=3\n", true, false, "3", "" },
	{ "", false, false, "", "" },
};

START_TEST(test_parse_cmdline)
{
	struct isol_cmdline c;

	memset(&c, 0xa5, sizeof(c));
	isol_parse_cmdline(cmd_cases[_i].cmdline, &c);
	ck_assert_msg(c.domain == cmd_cases[_i].domain &&
	    c.other == cmd_cases[_i].other, "'%s': domain %d other %d",
	    cmd_cases[_i].cmdline, c.domain, c.other);
	ck_assert_str_eq(c.isolcpus, cmd_cases[_i].isolcpus);
	ck_assert_str_eq(c.nohz_full, cmd_cases[_i].nohz_full);
}
END_TEST

START_TEST(test_cpulist_check)
{
	static const char *const good[] = { "2-5", "0,2,4-7", "0-7:2/4", "N",
		"1-N", "3" };
	static const char *const bad[] = { "", ",", "2-5x", " 2", "two",
		"2;3" };
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(isol_cpulist_check(good[i]) == 0, "%s", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(isol_cpulist_check(bad[i]) == -EINVAL, "'%s'",
		    bad[i]);
}
END_TEST

START_TEST(test_parse_release)
{
	static const char *const bad[] = { "", "abc", "7", "7.", "-1.2",
		"7.x", ".3", "99999.1" };
	int maj = -1, min = -1;
	size_t i;

	ck_assert_int_eq(isol_parse_release("6.12.118-amd64", &maj, &min), 0);
	ck_assert(maj == 6 && min == 12);
	ck_assert_int_eq(isol_parse_release("7.3.4+deb13-amd64", &maj, &min),
	    0);
	ck_assert(maj == 7 && min == 3);
	ck_assert_int_eq(isol_parse_release("7.0", &maj, &min), 0);
	ck_assert(maj == 7 && min == 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		maj = min = -1;
		ck_assert_msg(isol_parse_release(bad[i], &maj, &min) ==
		    -EINVAL, "'%s'", bad[i]);
		/* untouched on failure */
		ck_assert(maj == -1 && min == -1);
	}
}
END_TEST

/* ---- a fake root ----------------------------------------------- */

static char root[64];

static void
setup(void)
{
	strcpy(root, "/tmp/vp-isolation-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void
teardown(void)
{
	tree_remove(root);
}

#define U TREE_UNREADABLE
static const struct {
	const char *name;
	const char *release, *cmdline, *isolated;	/* NULL: absent */
	enum isol_verdict want;
} tree_cases[] = {
	{ "6.12 isolcpus=LIST", "6.12.118-amd64\n", "ro isolcpus=2-5\n",
	  "2-5\n", ISOL_BOOT },
	{ "6.12 isolcpus=domain,...", "6.12.118-amd64\n",
	  "isolcpus=domain,managed_irq,2-5\n", "2-5\n", ISOL_BOOT },
	{ "6.12 nohz-only isolcpus, nohz_full", "6.12.118-amd64\n",
	  "isolcpus=nohz,managed_irq,2-5 nohz_full=2-5\n", "\n", ISOL_NONE },
	{ "6.12 nohz_full alone", "6.12.118-amd64\n", "nohz_full=2-5\n", "\n",
	  ISOL_NONE },
	{ "6.12 nothing", "6.12.118-amd64\n", "ro quiet\n", "\n", ISOL_NONE },
	/* before 7.0 the isolated file is the kernel's own test */
	{ "6.12 isolcpus= the kernel ignored", "6.12.118-amd64\n",
	  "isolcpus=2-5\n", "\n", ISOL_NONE },
	{ "6.12 cmdline unreadable, CPUs isolated", "6.12.118-amd64\n", U,
	  "2-3\n", ISOL_DOMAIN },
	{ "6.12 cmdline silent, CPUs isolated", "6.12.118-amd64\n", "ro\n",
	  "2-3\n", ISOL_DOMAIN },
	{ "6.12 isolated unreadable, isolcpus=", "6.12.118-amd64\n",
	  "isolcpus=2-5\n", U, ISOL_BOOT },
	{ "7.3 isolcpus=LIST", "7.3.4+deb13-amd64\n", "isolcpus=2-5\n",
	  "2-5\n", ISOL_BOOT },
	{ "7.3 nohz-only", "7.3.4+deb13-amd64\n", "isolcpus=nohz,2-5\n",
	  "\n", ISOL_NONE },
	/* 7.0+: isolated CPUs without the boot form are cpuset partitions */
	{ "7.3 partition", "7.3.4+deb13-amd64\n", "ro\n", "4-7\n",
	  ISOL_PARTITION },
	{ "7.3 isolcpus=, isolated empty", "7.3.4+deb13-amd64\n",
	  "isolcpus=2-5\n", "\n", ISOL_BOOT },
	{ "release unknown, CPUs isolated", NULL, "ro\n", "4-7\n",
	  ISOL_PARTITION },
	{ "release garbled, isolcpus=", "linux\n", "isolcpus=1\n", "1\n",
	  ISOL_BOOT },
	{ "both unreadable", "7.3.4\n", U, U, ISOL_UNKNOWN },
	{ "empty tree", NULL, NULL, NULL, ISOL_UNKNOWN },
	{ "isolated garbled", "6.12.1\n", "ro\n", "hello\n", ISOL_NONE },
};

START_TEST(test_read_tree)
{
	struct isol_info in;
	int fds = open_fds();

	if (tree_cases[_i].release)
		tree_put(root, ISOL_RELEASE, tree_cases[_i].release);
	if (tree_cases[_i].cmdline)
		tree_put(root, ISOL_CMDLINE, tree_cases[_i].cmdline);
	if (tree_cases[_i].isolated)
		tree_put(root, ISOL_ISOLATED, tree_cases[_i].isolated);
	ck_assert_int_eq(isol_read(root, &in), 0);
	ck_assert_int_eq(open_fds(), fds);
	ck_assert_msg(isol_judge(&in) == tree_cases[_i].want, "%s: %s, want "
	    "%s", tree_cases[_i].name, isol_verdict_name(isol_judge(&in)),
	    isol_verdict_name(tree_cases[_i].want));
}
END_TEST

/* What could not be read is kept, per file, as -errno. */
START_TEST(test_read_errors)
{
	char longroot[5000];
	struct isol_info in;

	tree_put(root, ISOL_CMDLINE, U);
	tree_put(root, ISOL_ISOLATED, "2-5 and more\n");
	ck_assert_int_eq(isol_read(root, &in), 0);
	ck_assert_int_eq(in.cmdline_err, -EISDIR);
	ck_assert_int_eq(in.isolated_err, -EINVAL);
	ck_assert_int_eq(in.release_err, -ENOENT);
	ck_assert_str_eq(in.isolated, "");
	tree_put(root, ISOL_ISOLATED, " 0-3,8\n");
	tree_put(root, ISOL_RELEASE, "6.12.0\n");
	tree_put(root, ISOL_CMDLINE, "isolcpus=domain,0-3,8 nohz_full=1\n");
	ck_assert_int_eq(isol_read(root, &in), 0);
	ck_assert(!in.cmdline_err && !in.isolated_err && !in.release_err);
	ck_assert_str_eq(in.isolated, "0-3,8");
	ck_assert_str_eq(in.cmd.isolcpus, "domain,0-3,8");
	ck_assert_str_eq(in.cmd.nohz_full, "1");
	ck_assert(in.major == 6 && in.minor == 12);
	/* a root too long reads nothing */
	memset(longroot, 'a', sizeof(longroot) - 1);
	longroot[sizeof(longroot) - 1] = '\0';
	ck_assert_int_eq(isol_read(longroot, &in), -ENAMETOOLONG);
	/* NULL is "/": this host's files, whatever they say */
	ck_assert_int_eq(isol_read(NULL, &in), 0);
	ck_assert_int_lt(isol_judge(&in), ISOL_VERDICT_COUNT);
	ck_assert_str_eq(isol_verdict_name(ISOL_BOOT), "isolcpus-domain");
	ck_assert_str_eq(isol_verdict_name(ISOL_VERDICT_COUNT), "?");
}
END_TEST

Suite *
isolation_suite(void)
{
	Suite *s = suite_create("isolation");
	TCase *tc = tcase_create("parse");
	TCase *tt = tcase_create("tree");

	tcase_add_loop_test(tc, test_parse_cmdline, 0,
	    sizeof(cmd_cases) / sizeof(cmd_cases[0]));
	tcase_add_test(tc, test_cpulist_check);
	tcase_add_test(tc, test_parse_release);
	tcase_add_checked_fixture(tt, setup, teardown);
	tcase_add_loop_test(tt, test_read_tree, 0,
	    sizeof(tree_cases) / sizeof(tree_cases[0]));
	tcase_add_test(tt, test_read_errors);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tt);
	return s;
}
