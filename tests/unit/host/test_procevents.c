/*
 * test_procevents.c - the proc connector's datagrams, parsed from bytes
 * built here (well-formed, truncated, lying, other connectors'), and
 * live where the kernel allows it (root, CONFIG_PROC_EVENTS): this
 * process renames a thread "CPU 7/TCG" and must hear it.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include <check.h>

#include "host/procevents.h"
#include "../suites.h"

/* Appends one connector message carrying @ev (@evlen bytes) at @buf+*off. */
static void
put_msg(unsigned char *buf, size_t *off, unsigned idx,
    const struct proc_event *ev, size_t evlen)
{
	struct nlmsghdr nh = { .nlmsg_type = NLMSG_DONE };
	struct cn_msg cm = { .id = { .idx = idx, .val = CN_VAL_PROC },
	    .len = (unsigned short)evlen };

	nh.nlmsg_len = NLMSG_LENGTH(sizeof(cm) + evlen);
	memcpy(buf + *off, &nh, sizeof(nh));
	memcpy(buf + *off + NLMSG_HDRLEN, &cm, sizeof(cm));
	memcpy(buf + *off + NLMSG_HDRLEN + sizeof(cm), ev, evlen);
	*off += NLMSG_ALIGN(nh.nlmsg_len);
}

static struct proc_event
comm_event(int tgid, int tid, const char *name)
{
	struct proc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_COMM;
	ev.event_data.comm.process_tgid = tgid;
	ev.event_data.comm.process_pid = tid;
	/* not NUL-ended when it fills all 16 bytes, as the kernel's */
	memcpy(ev.event_data.comm.comm, name, strnlen(name,
	    sizeof(ev.event_data.comm.comm)));
	return ev;
}

START_TEST(test_parse_kinds)
{
	unsigned char buf[1024];
	struct vp_procev out[4];
	struct proc_event ev;
	unsigned long seen = 0;
	size_t off = 0;
	int n;

	ev = comm_event(100, 101, "CPU 1/TCG");
	put_msg(buf, &off, CN_IDX_PROC, &ev, sizeof(ev));
	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_FORK;	/* seen, not stored */
	put_msg(buf, &off, CN_IDX_PROC, &ev, sizeof(ev));
	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_EXIT;
	ev.event_data.exit.process_tgid = 100;
	ev.event_data.exit.process_pid = 100;
	put_msg(buf, &off, CN_IDX_PROC, &ev, sizeof(ev));
	ev = comm_event(5, 6, "x");
	put_msg(buf, &off, CN_IDX_PROC + 1, &ev, sizeof(ev)); /* not ours */
	n = procev_parse(buf, off, out, 4, &seen);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(seen, 3);
	ck_assert_int_eq(out[0].kind, VP_PROCEV_COMM);
	ck_assert_int_eq(out[0].tgid, 100);
	ck_assert_int_eq(out[0].tid, 101);
	ck_assert_str_eq(out[0].comm, "CPU 1/TCG");
	ck_assert_int_eq(out[1].kind, VP_PROCEV_EXIT);
	ck_assert_int_eq(out[1].tgid, 100);
}
END_TEST

/* A 16-byte name has no NUL in the event: ours ends it anyway. */
START_TEST(test_parse_full_comm)
{
	unsigned char buf[256];
	struct vp_procev out[1];
	struct proc_event ev = comm_event(1, 2, "");
	unsigned long seen = 0;
	size_t off = 0;

	memset(ev.event_data.comm.comm, 'A', 16);
	put_msg(buf, &off, CN_IDX_PROC, &ev, sizeof(ev));
	ck_assert_int_eq(procev_parse(buf, off, out, 1, &seen), 1);
	ck_assert_uint_eq(strlen(out[0].comm), 16);
}
END_TEST

START_TEST(test_parse_truncated)
{
	unsigned char buf[512];
	struct vp_procev out[2];
	struct proc_event ev = comm_event(1, 2, "CPU 0/KVM");
	struct nlmsghdr nh;
	unsigned long seen = 0;
	size_t off = 0, len;

	/* the event cut before its name: skipped */
	put_msg(buf, &off, CN_IDX_PROC, &ev,
	    offsetof(struct proc_event, event_data) + 8);
	ck_assert_int_eq(procev_parse(buf, off, out, 2, &seen), 0);
	/* a datagram shorter than its header says: nothing read past it */
	off = 0;
	put_msg(buf, &off, CN_IDX_PROC, &ev, sizeof(ev));
	for (len = 0; len < off; len++)
		ck_assert_int_eq(procev_parse(buf, len, out, 2, &seen), 0);
	/* a cn_msg.len past its netlink message: skipped */
	memcpy(&nh, buf, sizeof(nh));
	nh.nlmsg_len -= 4;
	memcpy(buf, &nh, sizeof(nh));
	ck_assert_int_eq(procev_parse(buf, off, out, 2, &seen), 0);
	/* no room: seen, not stored */
	seen = 0;
	off = 0;
	put_msg(buf, &off, CN_IDX_PROC, &ev, sizeof(ev));
	ck_assert_int_eq(procev_parse(buf, off, out, 0, &seen), 0);
	ck_assert_uint_eq(seen, 1);
}
END_TEST

static pthread_barrier_t named;
static int renamed_tid;

static void *
rename_self(void *arg)
{
	(void)arg;
	renamed_tid = (int)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), "CPU 7/TCG");
	pthread_barrier_wait(&named);
	return NULL;
}

/* Runs @fn, which renames its own thread, in a thread of ours to its end. */
static void
rename_in_thread(void *(*fn)(void *))
{
	pthread_t t;

	pthread_barrier_init(&named, NULL, 2);
	ck_assert_int_eq(pthread_create(&t, NULL, fn, NULL), 0);
	pthread_barrier_wait(&named);
	pthread_join(t, NULL);
	pthread_barrier_destroy(&named);
}

/*
 * Reads @fd until @match, shown every event read, says it saw the one it
 * waits for; fails if that never comes.  Generous: a busy host may have
 * many events queued before ours.  Returns what procev_read() counted.
 */
static unsigned long
read_until(int fd, bool (*match)(const struct vp_procev *))
{
	struct vp_procev ev[32];
	unsigned long seen = 0;
	bool found = false;
	int i, n, polls;

	for (polls = 0; !found && polls < 500; polls++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 20) <= 0)
			continue;
		n = procev_read(fd, ev, 32, &seen);
		ck_assert_int_ge(n, 0);
		for (i = 0; i < n; i++)
			found |= match(&ev[i]);
	}
	ck_assert(found);
	return seen;
}

/* rename_self()'s rename, with our tgid and its name. */
static bool
is_rename_self(const struct vp_procev *e)
{
	if (e->kind != VP_PROCEV_COMM || e->tid != renamed_tid)
		return false;
	ck_assert_int_eq(e->tgid, getpid());
	ck_assert_str_eq(e->comm, "CPU 7/TCG");
	return true;
}

/* Live: a thread of ours renamed is heard, with its tgid and tid. */
START_TEST(test_live_rename)
{
	int fd;

	fd = procev_open();
	if (fd < 0) {
		/* no CAP_NET_ADMIN or no connector: the degraded mode */
		ck_assert(fd == -EPERM || fd == -EPROTONOSUPPORT ||
		    fd == -ENOENT || fd == -EACCES || fd == -ECONNREFUSED);
		return;
	}
	rename_in_thread(rename_self);
	ck_assert_uint_ge(read_until(fd, is_rename_self), 1);
	procev_close(fd);
}
END_TEST

/*
 * The socket filter (procevents.h: other processes' events are dropped
 * by the kernel, so they can neither wake the daemon nor overrun its
 * socket), run by the kernel on datagrams a Unix socket pair carries:
 * only a COMM event naming a vCPU thread of QEMU ("CPU N/KVM",
 * "CPU N/TCG", N of 1 to 4 digits) passes.
 */
START_TEST(test_filter_keeps_vcpu_names)
{
	static const struct { const char *name; bool keep; } cases[] = {
		{ "CPU 0/KVM", true }, { "CPU 7/TCG", true },
		{ "CPU 12/KVM", true }, { "CPU 123/TCG", true },
		{ "CPU 1023/KVM", true }, { "bash", false },
		{ "CPU 0/XYZ", false }, { "CPU 12345/KVM", false },
		{ "cpu 0/KVM", false }, { "qemu-system-x86", false },
	};
	unsigned char buf[512], got[512];
	struct proc_event ev;
	size_t off, i;
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	ck_assert_int_eq(procev_attach_filter(sv[1], NULL, -1), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		off = 0;
		ev = comm_event(10, 11, cases[i].name);
		put_msg(buf, &off, CN_IDX_PROC, &ev, sizeof(ev));
		ck_assert_int_eq(send(sv[0], buf, off, 0), (ssize_t)off);
		ck_assert_int_eq(recv(sv[1], got, sizeof(got), MSG_DONTWAIT) ==
		    (ssize_t)off, cases[i].keep);
	}
	/* other events and other connectors, whatever their bytes */
	off = 0;
	ev = comm_event(10, 11, "CPU 0/KVM");
	ev.what = PROC_EVENT_EXIT;
	put_msg(buf, &off, CN_IDX_PROC, &ev, sizeof(ev));
	ck_assert_int_eq(send(sv[0], buf, off, 0), (ssize_t)off);
	off = 0;
	ev = comm_event(10, 11, "CPU 0/KVM");
	put_msg(buf, &off, CN_IDX_PROC + 1, &ev, sizeof(ev));
	ck_assert_int_eq(send(sv[0], buf, off, 0), (ssize_t)off);
	ck_assert_int_lt(recv(sv[1], got, sizeof(got), MSG_DONTWAIT), 0);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* Whether a "CPU 0/KVM" rename by @tgid passes the filter on @sv[1]. */
static bool
passes(const int sv[2], int tgid)
{
	unsigned char buf[512], got[512];
	struct proc_event ev = comm_event(tgid, tgid + 1, "CPU 0/KVM");
	size_t off = 0;

	put_msg(buf, &off, CN_IDX_PROC, &ev, sizeof(ev));
	ck_assert_int_eq(send(sv[0], buf, off, 0), (ssize_t)off);
	return recv(sv[1], got, sizeof(got), MSG_DONTWAIT) == (ssize_t)off;
}

/*
 * Narrowed to known QEMUs, the filter passes a vCPU name only from one
 * of them: a local user's thread named "CPU 0/KVM" is dropped too.  The
 * longest list (each entry two instructions, far past the 255 a jump
 * can span) still finds its first and last entries.
 */
START_TEST(test_filter_keeps_known_tgids)
{
	static int many[PROCEV_FILTER_TGIDS_MAX];
	const int two[] = { 100, 4000000 };
	int sv[2], i;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	ck_assert_int_eq(procev_attach_filter(sv[1], two, 2), 0);
	ck_assert(passes(sv, 100));
	ck_assert(passes(sv, 4000000));
	ck_assert(!passes(sv, 101));
	ck_assert(!passes(sv, 0x64000000));	/* 100 byte-swapped */
	ck_assert_int_eq(procev_attach_filter(sv[1], two, 0), 0);
	ck_assert(!passes(sv, 100));		/* no VM: nothing passes */
	for (i = 0; i < PROCEV_FILTER_TGIDS_MAX; i++)
		many[i] = 1000 + 3 * i;
	ck_assert_int_eq(procev_attach_filter(sv[1], many,
	    PROCEV_FILTER_TGIDS_MAX), 0);
	ck_assert(passes(sv, 1000));
	ck_assert(passes(sv, many[PROCEV_FILTER_TGIDS_MAX - 1]));
	ck_assert(!passes(sv, 1001));
	ck_assert_int_eq(procev_attach_filter(sv[1], many,
	    PROCEV_FILTER_TGIDS_MAX + 1), -E2BIG);
	ck_assert(passes(sv, 1000));		/* refused: the old one stays */
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* Only the kernel sends process events: nl_pid 0. */
START_TEST(test_from_kernel)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_pid = 0 };

	ck_assert(procev_from_kernel(&a, sizeof(a)));
	a.nl_pid = 4242;	/* a local process unicasting to our port */
	ck_assert(!procev_from_kernel(&a, sizeof(a)));
	a.nl_pid = 0;
	ck_assert(!procev_from_kernel(&a, 2));
}
END_TEST

static void *
rename_twice(void *arg)
{
	(void)arg;
	renamed_tid = (int)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), "not-a-vcpu");
	pthread_setname_np(pthread_self(), "CPU 9/KVM");
	pthread_barrier_wait(&named);
	return NULL;
}

/* Every event read is a vCPU rename; true at rename_twice()'s second. */
static bool
only_vcpu_names(const struct vp_procev *e)
{
	ck_assert_msg(e->kind == VP_PROCEV_COMM &&
	    !strncmp(e->comm, "CPU ", 4), "filtered event read: kind %d "
	    "comm '%s'", e->kind, e->comm);
	return e->tid == renamed_tid && !strcmp(e->comm, "CPU 9/KVM");
}

/*
 * Live: a rename to any other name never reaches the socket.  The two
 * renames are queued in order, so once the second is read the first
 * would have been read before it.
 */
START_TEST(test_live_filter)
{
	int fd;

	fd = procev_open();
	if (fd < 0)
		return;		/* no connector here: test_live_rename says */
	rename_in_thread(rename_twice);
	read_until(fd, only_vcpu_names);
	procev_close(fd);
}
END_TEST

static void *
rename_vcpu_like(void *arg)
{
	renamed_tid = (int)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), arg);
	pthread_barrier_wait(&named);
	return NULL;
}

static void *
rename_not_ours(void *arg)
{
	(void)arg;
	return rename_vcpu_like("CPU 5/KVM");
}

static void *
rename_ours(void *arg)
{
	(void)arg;
	return rename_vcpu_like("CPU 6/KVM");
}

/* Every event read is rename_ours()'s; true once it is read. */
static bool
only_ours(const struct vp_procev *e)
{
	ck_assert_msg(strcmp(e->comm, "CPU 5/KVM") != 0, "a rename by a "
	    "process outside the filter's list was read");
	return e->tid == renamed_tid && !strcmp(e->comm, "CPU 6/KVM");
}

/*
 * Live: narrowed to processes that are not us, our vCPU-named rename
 * is dropped by the kernel; let through again, the next one is read
 * (after the first, had it been queued).
 */
START_TEST(test_live_filter_tgids)
{
	int fd, me = getpid(), other = getppid();

	fd = procev_open();
	if (fd < 0)
		return;		/* no connector here: test_live_rename says */
	ck_assert_int_eq(procev_attach_filter(fd, &other, 1), 0);
	rename_in_thread(rename_not_ours);
	ck_assert_int_eq(procev_attach_filter(fd, &me, 1), 0);
	rename_in_thread(rename_ours);
	read_until(fd, only_ours);
	procev_close(fd);
}
END_TEST

Suite *
procevents_suite(void)
{
	Suite *s = suite_create("procevents");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_parse_kinds);
	tcase_add_test(tc, test_parse_full_comm);
	tcase_add_test(tc, test_parse_truncated);
	tcase_add_test(tc, test_live_rename);
	tcase_add_test(tc, test_filter_keeps_vcpu_names);
	tcase_add_test(tc, test_from_kernel);
	tcase_add_test(tc, test_live_filter);
	tcase_add_test(tc, test_filter_keeps_known_tgids);
	tcase_add_test(tc, test_live_filter_tgids);
	suite_add_tcase(s, tc);
	return s;
}
