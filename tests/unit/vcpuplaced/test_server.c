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
 *
 * Answers are shared: clients reading the same cached answer hold one
 * buffer, counted once in d->ctl.queued, and past d->ctl.queued_max a
 * new request is told "busy" at once, but for the one already queued.
 *
 * The socket's folder: server_open() refuses one others may write to
 * (group- or world-writable, another user's, a symlink), and makes the
 * socket 0660 in a good one.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

/* Another client of the fixture's server, not accepted yet. */
static int
connect_to(const struct fixture *f)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* A few passes: accepts, reads and answers what is there. */
static void
serve_a_while(struct fixture *f)
{
	int i;

	for (i = 0; i < 4; i++)
		server_serve(&f->d, clock_now_ns() + 20 * MS);
}

/* What @fd was sent before the server closed it. */
static void
read_closed(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && (n = recv(fd, buf + len, size - 1 - len,
	    MSG_DONTWAIT)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
}

/*
 * The cached metrics answer of this tick, 4 MiB: far more than a socket
 * takes in, so that a client that does not read keeps it queued.
 */
#define BIG	((size_t)4 << 20)

static struct vp_ctl_buf *
cache_big_metrics(struct fixture *f)
{
	struct vp_ctl_buf *b = calloc(1, sizeof(*b));

	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(b->text = malloc(BIG + 1));
	memset(b->text, 'm', BIG);
	b->text[BIG] = '\0';
	b->len = BIG;
	b->refs = 1;
	f->d.ctl.cached[1] = (struct vp_ctl_answer){ .tick = f->d.c.ticks,
	    .gen = f->d.inventory_gen, .buf = b };
	return b;
}

START_TEST(test_shared_answer_and_cap)
{
	struct fixture f;
	struct vp_ctl_buf *b;
	int fd[6], i, busy, late;
	char buf[256];

	fixture_open(&f);
	b = cache_big_metrics(&f);
	/* six readers of metrics who read nothing: one buffer, not six */
	fd[0] = f.client;
	for (i = 1; i < 6; i++)
		fd[i] = connect_to(&f);
	serve_a_while(&f);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(send(fd[i], "metrics\n", 8, MSG_NOSIGNAL), 8);
	serve_a_while(&f);
	ck_assert_int_eq(f.d.ctl.nclients, 6);
	ck_assert_uint_eq(b->senders, 6);
	ck_assert_uint_eq(b->refs, 7);		/* and the cache's */
	ck_assert_uint_eq(f.d.ctl.queued, BIG);

	/* at the cap: a new answer is refused at once, the queued one not */
	f.d.ctl.queued_max = BIG;
	busy = connect_to(&f);
	late = connect_to(&f);
	serve_a_while(&f);
	ck_assert_int_eq(send(busy, "help\n", 5, MSG_NOSIGNAL), 5);
	ck_assert_int_eq(send(late, "metrics\n", 8, MSG_NOSIGNAL), 8);
	serve_a_while(&f);
	read_closed(busy, buf, sizeof(buf));
	ck_assert_str_eq(buf, "error: busy: 4194304 bytes of answers wait "
	    "to be read; try again shortly\n");
	ck_assert_uint_eq(f.d.c.ctl_rejected[VP_REJ_BUSY], 1);
	ck_assert_int_eq(f.d.ctl.nclients, 7);
	ck_assert_uint_eq(b->senders, 7);
	ck_assert_uint_eq(f.d.ctl.queued, BIG);
	close(busy);

	/* the readers gone, nothing is queued and help is answered again */
	for (i = 0; i < 6; i++)
		close(fd[i]);
	close(late);
	serve_a_while(&f);
	ck_assert_int_eq(f.d.ctl.nclients, 0);
	ck_assert_uint_eq(f.d.ctl.queued, 0);
	ck_assert_uint_eq(b->refs, 1);
	f.client = connect_to(&f);
	serve_a_while(&f);
	ck_assert_int_eq(send(f.client, "help\n", 5, MSG_NOSIGNAL), 5);
	answer_of(&f, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "explain VM VCPU") != NULL, "help: '%s'",
	    buf);
	ck_assert_uint_eq(f.d.c.ctl_rejected[VP_REJ_BUSY], 1);
	fixture_close(&f);
}
END_TEST

/* server_open() on DIR/s.sock, DIR made with @mode (and owner @uid). */
static int
open_in(char *dir, size_t size, mode_t mode, uid_t uid, struct vp_daemon *d,
    char *path, size_t psize)
{
	snprintf(dir, size, "/tmp/vp-test-sockdir-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, mode), 0);
	if (uid != (uid_t)-1)
		ck_assert_int_eq(chown(dir, uid, (gid_t)-1), 0);
	snprintf(path, psize, "%s/s.sock", dir);
	memset(d, 0, sizeof(*d));
	d->ctl.path = path;
	return server_open(d);
}

/* Refused with -EPERM, and nothing bound there. */
static void
assert_refused(mode_t mode, uid_t uid)
{
	struct vp_daemon d;
	char dir[64], path[96];
	struct stat st;

	ck_assert_int_eq(open_in(dir, sizeof(dir), mode, uid, &d, path,
	    sizeof(path)), -EPERM);
	ck_assert_int_eq(d.ctl.fd, -1);
	ck_assert_int_lt(lstat(path, &st), 0);
	server_close(&d);
	rmdir(dir);
}

START_TEST(test_group_writable_dir_refused)
{
	assert_refused(0770, (uid_t)-1);
}
END_TEST

START_TEST(test_world_writable_dir_refused)
{
	assert_refused(0757, (uid_t)-1);	/* not group-writable */
}
END_TEST

/* Root runs the suite here; as another user chown() would fail. */
START_TEST(test_other_users_dir_refused)
{
	if (geteuid() != 0)
		return;
	assert_refused(0750, 4242);
}
END_TEST

START_TEST(test_symlinked_dir_refused)
{
	struct vp_daemon d;
	char dir[64], link[96], path[128];
	struct stat st;

	snprintf(dir, sizeof(dir), "/tmp/vp-test-sockdir-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0750), 0);
	snprintf(link, sizeof(link), "%s.link", dir);
	ck_assert_int_eq(symlink(dir, link), 0);
	snprintf(path, sizeof(path), "%s/s.sock", link);
	memset(&d, 0, sizeof(d));
	d.ctl.path = path;
	ck_assert_int_eq(server_open(&d), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/s.sock", dir);
	ck_assert_int_lt(lstat(path, &st), 0);
	server_close(&d);
	unlink(link);
	rmdir(dir);
}
END_TEST

/* A folder of ours, 0750: served, the socket 0660 from its creation. */
START_TEST(test_private_dir_served)
{
	struct vp_daemon d;
	char dir[64], path[96];
	struct stat st;

	ck_assert_int_eq(open_in(dir, sizeof(dir), 0750, (uid_t)-1, &d, path,
	    sizeof(path)), 0);
	ck_assert_int_ge(d.ctl.fd, 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0660);
	server_close(&d);
	rmdir(dir);
}
END_TEST

Suite *
server_suite(void)
{
	Suite *s = suite_create("server");
	TCase *tc = tcase_create("deadlines");
	TCase *dir = tcase_create("folder");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_request_waiting_is_answered);
	tcase_add_test(tc, test_silent_client_refused);
	tcase_add_test(tc, test_shared_answer_and_cap);
	suite_add_tcase(s, tc);
	tcase_add_test(dir, test_group_writable_dir_refused);
	tcase_add_test(dir, test_world_writable_dir_refused);
	tcase_add_test(dir, test_other_users_dir_refused);
	tcase_add_test(dir, test_symlinked_dir_refused);
	tcase_add_test(dir, test_private_dir_served);
	suite_add_tcase(s, dir);
	return s;
}
