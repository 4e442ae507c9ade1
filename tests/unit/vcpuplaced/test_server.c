/*
 * test_server.c - server.c's deadlines, on a real socket in a scratch
 * folder.  A client's read deadline measures the client, not the
 * daemon: a request that waited in its socket while the loop was away
 * past that deadline (a tick or event round blocked on libvirtd, which
 * holds a dying domain's lock for seconds) is answered.  A client that
 * sent nothing is still refused once its deadline has passed.  "Away"
 * is a sleep past VP_CTL_READ_NS between two calls of server_serve():
 * the verdict does not depend on the machine's speed, only on the
 * order in which the server reads and judges.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "host/clock.h"
#include "vcpuplaced/daemon.h"
#include "../suites.h"

#define MS	1000000ULL

struct fixture {
	struct vp_daemon d;
	char dir[64];
	char path[96];
	int client;
};

/* A listening server and one client it has accepted. */
static void
fixture_open(struct fixture *f)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	memset(&f->d, 0, sizeof(f->d));
	f->d.virt = (struct vp_virt)VP_VIRT_INIT;
	f->d.hp.fd = -1;
	sigemptyset(&f->d.serve_sigmask);
	snprintf(f->dir, sizeof(f->dir), "/tmp/vp-test-server-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/s.sock", f->dir);
	f->d.ctl.path = f->path;
	ck_assert_int_eq(server_open(&f->d), 0);
	f->client = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(f->client, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
	ck_assert_int_eq(connect(f->client, (struct sockaddr *)&sa,
	    sizeof(sa)), 0);
	server_serve(&f->d, clock_now_ns() + 50 * MS);
	ck_assert_int_eq(f->d.ctl.nclients, 1);
}

static void
fixture_close(struct fixture *f)
{
	close(f->client);
	server_close(&f->d);
	rmdir(f->dir);
}

/* The loop away from the socket for longer than a client's read time. */
static void
loop_away(void)
{
	struct timespec ts = { .tv_sec = (time_t)(VP_CTL_READ_NS /
	    1000000000ULL), .tv_nsec = 300 * (long)MS };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* What the server sent @fd, served until it has closed the connection. */
static void
answer_of(struct fixture *f, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int i;

	for (i = 0; i < 40 && f->d.ctl.nclients; i++)
		server_serve(&f->d, clock_now_ns() + 50 * MS);
	ck_assert_int_eq(f->d.ctl.nclients, 0);
	while (len < size - 1 && (n = recv(f->client, buf + len,
	    size - 1 - len, MSG_DONTWAIT)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
}

START_TEST(test_request_waiting_is_answered)
{
	struct fixture f;
	char buf[4096];

	fixture_open(&f);
	ck_assert_int_eq(send(f.client, "help\n", 5, MSG_NOSIGNAL), 5);
	loop_away();
	/* back late: the first pass reads before it judges deadlines */
	server_serve(&f.d, clock_now_ns());
	answer_of(&f, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "explain VM VCPU") != NULL,
	    "a request sent in time was refused: '%s'", buf);
	ck_assert_uint_eq(f.d.c.ctl_rejected[VP_REJ_TIMEOUT], 0);
	fixture_close(&f);
}
END_TEST

START_TEST(test_silent_client_refused)
{
	struct fixture f;
	char buf[4096];

	fixture_open(&f);
	loop_away();
	server_serve(&f.d, clock_now_ns());
	answer_of(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "error: no request line within 2 s\n");
	ck_assert_uint_eq(f.d.c.ctl_rejected[VP_REJ_TIMEOUT], 1);
	fixture_close(&f);
}
END_TEST

Suite *
server_suite(void)
{
	Suite *s = suite_create("server");
	TCase *tc = tcase_create("deadlines");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_request_waiting_is_answered);
	tcase_add_test(tc, test_silent_client_refused);
	suite_add_tcase(s, tc);
	return s;
}
