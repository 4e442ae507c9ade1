/*
 * test_privs.c - privs.c, in a child process each (capabilities are per
 * thread and cannot come back): what is kept is exactly what was asked
 * for and held, the rest is gone from the kernel's view, and one not
 * held is not invented, and bpf(2) filtered out means EPERM.  The
 * drops need capabilities to drop: as root.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "host/privs.h"
#include "../suites.h"

/* Runs @fn in a child; its exit status (0: every check held). */
static int
in_child(int (*fn)(void))
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn());
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static int
keep_two(void)
{
	bool keep[VP_PRIV_COUNT] = { 0 }, held[VP_PRIV_COUNT];
	int i;

	keep[VP_PRIV_NET_ADMIN] = keep[VP_PRIV_BPF] = true;
	if (privs_keep_only(keep) < 0)
		return 1;
	if (privs_read(held) != 2)
		return 2;
	for (i = 0; i < VP_PRIV_COUNT; i++)
		if (held[i] != keep[i])
			return 3;
	/* nothing more, and not the dropped ones back */
	keep[VP_PRIV_SYS_ADMIN] = true;
	keep[VP_PRIV_BPF] = false;
	if (privs_keep_only(keep) < 0 || privs_read(held) != 1 ||
	    !held[VP_PRIV_NET_ADMIN] || held[VP_PRIV_SYS_ADMIN])
		return 4;
	return 0;
}

static int
keep_none(void)
{
	bool held[VP_PRIV_COUNT];

	if (privs_keep_only(NULL) < 0)
		return 1;
	return privs_read(held) == 0 ? 0 : 2;
}

START_TEST(test_keep_only)
{
	bool held[VP_PRIV_COUNT];

	if (geteuid() != 0 || privs_read(held) < VP_PRIV_COUNT)
		return;		/* not root, or a container short of these */
	ck_assert_int_eq(in_child(keep_two), 0);
	ck_assert_int_eq(in_child(keep_none), 0);
	/* the parent kept everything */
	ck_assert_int_ge(privs_read(held), VP_PRIV_COUNT);
}
END_TEST

/* A bpf() command no kernel has: EINVAL from the kernel, EPERM filtered. */
static int
bogus_bpf(void)
{
	return syscall(SYS_bpf, 9999, NULL, 0) < 0 ? errno : 0;
}

static int
deny_bpf(void)
{
	if (bogus_bpf() != EINVAL)
		return 1;	/* the kernel's own answer, unfiltered */
	if (privs_deny_bpf() < 0)
		return 2;
	return bogus_bpf() == EPERM ? 0 : 3;
}

START_TEST(test_deny_bpf)
{
	ck_assert_int_eq(in_child(deny_bpf), 0);
	/* the parent is not filtered */
	ck_assert_int_eq(bogus_bpf(), EINVAL);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(privs_name(VP_PRIV_SYS_PTRACE), "CAP_SYS_PTRACE");
	ck_assert_str_eq(privs_name(VP_PRIV_COUNT), "?");
}
END_TEST

Suite *
privs_suite(void)
{
	Suite *s = suite_create("privs");
	TCase *tc = tcase_create("drop");

	tcase_add_test(tc, test_keep_only);
	tcase_add_test(tc, test_deny_bpf);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}
