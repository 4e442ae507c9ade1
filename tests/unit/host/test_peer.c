/*
 * test_peer.c - peer.c: the person behind a socket's peer.  The parsers
 * on the kernel's texts (a login uid, unset or not a number; a user
 * slice at the top of the cgroup path only, below it a user names
 * cgroups as he likes; a pidfd's Pid), and, live, a child that set its
 * login uid and connected: told by that login uid while it lives (also
 * as a zombie), and by its uid alone once it is reaped, when its pid
 * could be anyone's.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "host/peer.h"
#include "../suites.h"

/* One text for a parser, and what it should say of it. */
struct text_case {
	const char *text;
	int r;		/* 0 or -errno */
	uid_t v;	/* when r is 0 */
};

/* Each case through @parse; *ret is left alone on an error. */
static void
check_cases(int (*parse)(const char *, uid_t *), const struct text_case *c,
    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uid_t v = 7;
		int r = parse(c[i].text, &v);

		ck_assert_msg(r == c[i].r && v == (c[i].r ? 7 : c[i].v),
		    "'%s': %d, %u; want %d, %u", c[i].text, r, (unsigned)v,
		    c[i].r, (unsigned)(c[i].r ? 7 : c[i].v));
	}
}

START_TEST(test_loginuid_text)
{
	static const struct text_case c[] = {
		{ "1000", 0, 1000 },
		{ "0\n", 0, 0 },
		/* unset: what pam_loginuid never wrote */
		{ "4294967295", -ENOENT, 0 },
		{ "", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "12x", -EINVAL, 0 },
		{ "4294967296", -EINVAL, 0 },
	};

	check_cases(peer_parse_loginuid, c, sizeof(c) / sizeof(c[0]));
}
END_TEST

START_TEST(test_slice_text)
{
	static const struct text_case c[] = {
		{ "0::/user.slice/user-1000.slice/session-3.scope\n", 0, 1000 },
		/* v1 (and hybrid): systemd's own hierarchy */
		{ "12:memory:/foo\n1:name=systemd:/user.slice/user-42.slice/"
		  "user@42.service\n", 0, 42 },
		{ "0::/user.slice/user-5.slice\n", 0, 5 },
		/* a cgroup the user made in his own delegated subtree: his */
		{ "0::/user.slice/user-1000.slice/user@1000.service/user.slice/"
		  "user-0.slice\n", 0, 1000 },
		{ "0::/system.slice/user-0.slice\n", -ENOENT, 0 },
		{ "0::/user.slice/user-1000.slicex\n", -ENOENT, 0 },
		{ "0::/user.slice/user-.slice\n", -ENOENT, 0 },
		{ "0::/\n", -ENOENT, 0 },
		{ "", -ENOENT, 0 },
	};

	check_cases(peer_parse_slice, c, sizeof(c) / sizeof(c[0]));
}
END_TEST

START_TEST(test_fdinfo_text)
{
	pid_t v = 7;

	ck_assert_int_eq(peer_parse_fdinfo_pid("pos:\t0\nflags:\t02000002\n"
	    "mnt_id:\t15\nino:\t1062\nPid:\t1234\nNSpid:\t1234\n", &v), 0);
	ck_assert_int_eq(v, 1234);
	/* a process gone */
	ck_assert_int_eq(peer_parse_fdinfo_pid("Pid:\t-1\nNSpid:\t-1\n", &v),
	    0);
	ck_assert_int_eq(v, -1);
	ck_assert_int_eq(peer_parse_fdinfo_pid("pos:\t0\n", &v), -ENOENT);
	ck_assert_int_eq(peer_parse_fdinfo_pid("Pid:\tx\n", &v), -EINVAL);
}
END_TEST

START_TEST(test_words)
{
	char buf[48];

	peer_person_words(VP_PEER_LOGIN_UID, 1000, buf, sizeof(buf));
	ck_assert_str_eq(buf, "login uid 1000");
	peer_person_words(VP_PEER_SLICE, 1000, buf, sizeof(buf));
	ck_assert_str_eq(buf, "user-1000.slice");
	peer_person_words(VP_PEER_UID, 100007, buf, sizeof(buf));
	ck_assert_str_eq(buf, "uid 100007");
	peer_person_words(VP_PEER_UID, (uid_t)-1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "uid -1");
	ck_assert_str_eq(peer_kind_label(VP_PEER_SLICE), "slice");
}
END_TEST

/*
 * A child that sets login uid 4242 (root may), connects to @path and
 * waits for a byte on @hold before it exits.
 */
static pid_t
spawn_peer(const char *path, int hold)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	pid_t pid = fork();
	FILE *f;
	char c;
	int s;

	ck_assert_int_ge(pid, 0);
	if (pid > 0)
		return pid;
	f = fopen("/proc/self/loginuid", "w");
	if (!f || fputs("4242", f) < 0 || fclose(f) != 0)
		_exit(2);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		_exit(3);
	if (read(hold, &c, 1) < 0)
		_exit(4);
	_exit(0);
}

START_TEST(test_live_peer)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/vp-test-peer-XXXXXX";
	struct vp_peer p;
	int l, fd, hold[2], status;
	siginfo_t si;
	pid_t pid;

	if (geteuid() != 0)
		return;		/* setting a login uid needs root */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/s", dir);
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(l, 0);
	ck_assert_int_eq(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(l, 4), 0);
	ck_assert_int_eq(pipe(hold), 0);
	pid = spawn_peer(sa.sun_path, hold[0]);
	fd = accept(l, NULL, NULL);
	ck_assert_int_ge(fd, 0);

	ck_assert_int_eq(peer_identify(fd, &p), 0);
	ck_assert_int_eq(p.kind, VP_PEER_LOGIN_UID);
	ck_assert_uint_eq(p.person, 4242);
	ck_assert_uint_eq(p.uid, 0);
	ck_assert_int_eq(p.pid, pid);

	/* exited, not reaped: a zombie still holds its pid and its files */
	ck_assert_int_eq(write(hold[1], "x", 1), 1);
	ck_assert_int_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT),
	    0);
	ck_assert_int_eq(peer_identify(fd, &p), 0);
	ck_assert_int_eq(p.kind, VP_PEER_LOGIN_UID);
	ck_assert_uint_eq(p.person, 4242);

	/* reaped: the pid may be anyone's now, so only the uid is said */
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(status, 0);
	ck_assert_int_eq(peer_identify(fd, &p), 0);
	ck_assert_int_eq(p.kind, VP_PEER_UID);
	ck_assert_uint_eq(p.person, 0);
	ck_assert_uint_eq(p.uid, 0);

	/* not a socket */
	ck_assert_int_eq(peer_identify(hold[0], &p), -ENOTSOCK);
	close(fd);
	close(l);
	close(hold[0]);
	close(hold[1]);
	unlink(sa.sun_path);
	rmdir(dir);
}
END_TEST

Suite *
peer_suite(void)
{
	Suite *s = suite_create("peer");
	TCase *tc = tcase_create("peer");

	tcase_add_test(tc, test_loginuid_text);
	tcase_add_test(tc, test_slice_text);
	tcase_add_test(tc, test_fdinfo_text);
	tcase_add_test(tc, test_words);
	tcase_add_test(tc, test_live_peer);
	suite_add_tcase(s, tc);
	return s;
}
