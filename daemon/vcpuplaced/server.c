/*
 * server.c - the metrics and control socket's plumbing.
 *
 * The protocol is one request line, one answer, close.  Everything here
 * is non-blocking and runs in the tick's sleep (server_serve), on the one
 * thread that owns the daemon's state, so commands need no locks and no
 * client, however slow, broken or hostile, can hold up a tick: a client
 * gets VP_CTL_READ_NS to send its line and VP_CTL_WRITE_NS to read its
 * answer (judged after reading what it sent: a loop back late is the
 * daemon's delay, not the client's), and no more than VP_CTL_CLIENTS_MAX are served at once, at
 * most VP_CTL_PERSON_MAX of them for one non-root person, whatever uids
 * that person connects as (accept_clients() refuses the rest at once, so
 * that no one waits behind a flood).  Answers are shared buffers, and no
 * new request is run while VP_CTL_QUEUED_MAX bytes of them wait to be
 * read (run_into()).
 *
 * A request is parsed (request.c) as soon as its line is in.  A command
 * that talks to libvirt is queued on its client and run by the tick
 * (server_run_queued); a policy write then goes to the libvirt worker
 * and its client waits for the worker's answer (server_policy_answered),
 * or VP_LIBVIRT_POLICY_WAIT_MS, while the socket goes on serving
 * everyone else.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "host/defaults.h"
#include "vcpuplaced/daemon.h"

struct vp_ctl_client {
	int fd;
	uid_t uid;
	enum vp_peer_kind kind;	/* what @person is */
	uid_t person;		/* whose share the slot is taken from */
	bool exempt;		/* root: in no share */
	uint64_t deadline;	/* monotonic ns */
	char in[VP_CTL_LINE_MAX];
	size_t inlen;
	struct vp_request *queued;	/* waits for the tick, owned */
	uint32_t wait_seq;	/* its policy write's request, 0 none */
	uint64_t wait_ns;	/* when that was sent */
	struct vp_ctl_buf *out;	/* the answer, once the request is run */
	size_t outoff;
};

/* A buffer of its own for @text (malloc'ed, taken over); NULL. */
static struct vp_ctl_buf *
buf_new(char *text, size_t len)
{
	struct vp_ctl_buf *b = calloc(1, sizeof(*b));

	if (!b) {
		free(text);
		return NULL;
	}
	b->refs = 1;
	b->text = text;
	b->len = len;
	return b;
}

static void
buf_unref(struct vp_ctl_buf *b)
{
	if (b && --b->refs == 0) {
		free(b->text);
		free(b);
	}
}

/* @cl sends @b: its bytes count in c->queued once, whoever else does. */
static void
buf_attach(struct vp_ctl *c, struct vp_ctl_client *cl, struct vp_ctl_buf *b)
{
	b->refs++;
	if (b->senders++ == 0)
		c->queued += b->len;
	cl->out = b;
	cl->outoff = 0;
}

static void
buf_detach(struct vp_ctl *c, struct vp_ctl_client *cl)
{
	struct vp_ctl_buf *b = cl->out;

	if (!b)
		return;
	if (--b->senders == 0)
		c->queued -= b->len;
	cl->out = NULL;
	buf_unref(b);
}

static int
fill_addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

/*
 * A socket file left by a daemon that died is removed; one that answers
 * belongs to a running daemon, and anything not a socket is not ours to
 * delete.
 */
static int
clear_stale(const char *path, const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, r;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		log_msg(LOG_ERR, "socket %s: exists and is not a socket", path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	close(fd);
	if (r == 0) {
		log_msg(LOG_ERR, "socket %s: another vcpuplaced is serving it",
		    path);
		return -EADDRINUSE;
	}
	return unlink(path) < 0 ? -errno : 0;
}

/*
 * Group "vcpuplace" (read access) if it exists, else root only.  Through
 * the checked folder's descriptor and without following a symlink: no
 * name is looked up again after check_parent().  The mode needs no
 * chmod: bind() made the file 0660 under its umask.  Changing the group
 * of a file we own to one we are not in needs CAP_CHOWN: only a daemon
 * started by hand as root does it.
 */
static void
set_group(int dirfd, const char *path, const char *base)
{
	struct group *g = getgrnam(VP_SOCKET_GROUP);
	struct stat st;

	if (!g) {
		log_msg(LOG_NOTICE, "socket %s: no group '%s' (sysusers.d "
		    "creates it): only root can connect", path, VP_SOCKET_GROUP);
		return;
	}
	/* under the unit's Group= bind() gave it already: no chown, which
	 * its syscall filter refuses and its capabilities would not allow */
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_gid == g->gr_gid)
		return;
	if (fchownat(dirfd, base, (uid_t)-1, g->gr_gid,
	    AT_SYMLINK_NOFOLLOW) < 0)
		log_msg(LOG_WARNING, "socket %s: chown to group %s: %s", path,
		    VP_SOCKET_GROUP, strerror(errno));
}

/* The folder of @path into @dir ("." for a bare name); its name in it. */
static const char *
split_parent(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, size, ".");
	else if (slash == path)
		snprintf(dir, size, "/");
	else
		snprintf(dir, size, "%.*s", (int)(slash - path), path);
	return slash ? slash + 1 : path;
}

/*
 * systemd's RuntimeDirectory= (or tmpfiles.d) makes /run/vcpuplace; a
 * daemon started by hand makes it itself, like sshd its privsep dir.
 */
static void
make_parent(const char *dir)
{
	struct group *g;

	if (mkdir(dir, 0750) < 0)
		return;
	g = getgrnam(VP_SOCKET_GROUP);
	if (g && chown(dir, (uid_t)-1, g->gr_gid) < 0)
		log_msg(LOG_WARNING, "%s: chown: %s", dir, strerror(errno));
}

/*
 * The socket's folder must be ours alone, as sshd wants of its privsep
 * folder: a directory (not a symlink), owned by root or by us, writable
 * by no group and no other user.  Whoever may write there could swap
 * the socket for his own between bind() and chown(), or unlink it and
 * serve clients in our name.  Returns an O_PATH descriptor of the folder
 * checked, or -errno after one log line naming the folder and the fault.
 */
static int
check_parent(const char *dir)
{
	const char *why = NULL;
	struct stat st;
	int fd;

	fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		log_msg(LOG_ERR, "socket folder %s: %s", dir, e == ENOTDIR ?
		    "not a directory (or a symbolic link to one)" :
		    strerror(e));
		return -e;
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		log_msg(LOG_ERR, "socket folder %s: %s", dir, strerror(e));
		return -e;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid())
		why = "owned by another user (want root or the daemon's)";
	else if (st.st_mode & S_IWOTH)
		why = "world-writable";
	else if (st.st_mode & S_IWGRP)
		why = "group-writable";
	if (why) {
		close(fd);
		log_msg(LOG_ERR, "socket folder %s: %s (uid %ld, mode %04o): "
		    "refusing it", dir, why, (long)st.st_uid,
		    (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return fd;
}

/*
 * A thousand clients at once need a thousand descriptors beside
 * libvirt's: raise the soft limit to the hard one (systemd's default
 * hard limit is 512K; the soft 1024 is for select() users, not us).
 */
static void
raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max &&
	    rl.rlim_cur < 4096) {
		rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int
server_open(struct vp_daemon *d)
{
	struct vp_ctl *c = &d->ctl;
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct sockaddr_un sa;
	const char *base;
	mode_t old;
	int dirfd, r;

	c->fd = -1;
	if (!c->path)
		return 0;
	if (fill_addr(c->path, &sa) < 0) {
		log_msg(LOG_ERR, "socket %s: path longer than %zu bytes",
		    c->path, sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	base = split_parent(c->path, dir, sizeof(dir));
	make_parent(dir);
	if ((dirfd = check_parent(dir)) < 0)
		return dirfd;
	raise_fd_limit();
	c->queued = 0;
	c->queued_max = VP_CTL_QUEUED_MAX;
	c->euid = geteuid();
	c->client = calloc(VP_CTL_CLIENTS_MAX, sizeof(*c->client));
	if (!c->client) {
		close(dirfd);
		return -ENOMEM;
	}
	if ((r = clear_stale(c->path, &sa)) < 0) {
		if (r != -EEXIST && r != -EADDRINUSE)
			log_msg(LOG_ERR, "socket %s: %s", c->path,
			    strerror(-r));
		close(dirfd);
		return r;
	}
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		r = -errno;
		close(dirfd);
		return r;
	}
	/*
	 * The mode is set at creation: bind() makes the file 0777 less the
	 * umask, so 0660, never world-accessible, not even briefly.  fchmod()
	 * of the socket before bind() would do on Linux too, but fchown()
	 * there changes no file: the group is set by set_group().
	 */
	old = umask(0117);
	r = bind(c->fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0 || listen(c->fd, SOMAXCONN) < 0) {
		r = -errno;
		log_msg(LOG_ERR, "socket %s: %s", c->path, strerror(-r));
		close(c->fd);
		c->fd = -1;
		close(dirfd);
		return r;
	}
	set_group(dirfd, c->path, base);
	close(dirfd);
	return 0;
}

/*
 * Closing a UNIX socket with unread input resets the peer, which then
 * may lose the answer (or the error line) still queued for it: read
 * what is already there first, without waiting for more.
 */
static void
drain(int fd)
{
	char buf[4096];
	int n;

	for (n = 0; n < 16; n++)
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0)
			break;
}

static void
drop_client(struct vp_ctl *c, int i)
{
	drain(c->client[i].fd);
	close(c->client[i].fd);
	free(c->client[i].queued);
	buf_detach(c, &c->client[i]);
	c->client[i] = c->client[--c->nclients];
	memset(&c->client[c->nclients], 0, sizeof(c->client[0]));
}

void
server_close(struct vp_daemon *d)
{
	struct vp_ctl *c = &d->ctl;
	size_t i;

	while (c->nclients)
		drop_client(c, 0);
	free(c->client);
	c->client = NULL;
	if (c->fd >= 0) {
		close(c->fd);
		unlink(c->path);
	}
	c->fd = -1;
	for (i = 0; i < sizeof(c->cached) / sizeof(c->cached[0]); i++) {
		buf_unref(c->cached[i].buf);
		c->cached[i].buf = NULL;
	}
}

/* An error line for a client we are giving up on: best effort, no wait. */
static void
reject(struct vp_daemon *d, int i, enum vp_reject why, const char *msg)
{
	struct vp_ctl_client *cl = &d->ctl.client[i];
	ssize_t r;

	d->c.ctl_rejected[why]++;
	if (msg) {
		r = send(cl->fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
		(void)r;	/* a client that cannot take it loses it */
	}
	drop_client(&d->ctl, i);
}

/*
 * Fair shares of the client table.  The socket is open to the group
 * vcpuplace: people running vcpuplacectl and a metrics scraper, each
 * request one connection that lives a few milliseconds, so an honest
 * person holds a handful at once (a `top`, a scrape, a script's loop).
 * VP_CTL_PERSON_MAX (128) is far above that, and still an eighth of the
 * table: a flood from one person leaves the rest to everyone else, and
 * seven flooding together still leave room for an eighth.
 *
 * A share is a person's, not a uid's: a member of the group with a
 * subordinate uid range connects from a user namespace as thousands of
 * uids, and eight of them at 120 connections each took the whole table.
 * The person is the audit login uid, else the systemd user slice, else
 * the uid (host/peer.h): the first two stay the same across every uid
 * of the range, and the person cannot change them.  Numbers compare
 * alike whatever told them: login uid 1000 and user-1000.slice are the
 * same user.
 *
 * The last VP_CTL_ROOT_RESERVE slots are root's alone, so that root's
 * status, pause or reload gets in whoever floods; root (uid 0 with no
 * login uid: a service, a boot script, or the daemon's own uid) has no
 * cap of its own (it can stop the daemon anyway, and it is the uid that
 * runs hundreds of clients in the tests).  A peer SO_PEERCRED could not
 * tell ((uid_t)-1) is one more non-root person.
 */
static int
person_slots(const struct vp_ctl *c, uid_t person)
{
	int i, n = 0;

	for (i = 0; i < c->nclients; i++)
		n += !c->client[i].exempt && c->client[i].person == person;
	return n;
}

/* Why @cl (not in the table yet) may not have a slot now, or VP_REJ_NONE. */
static enum vp_reject
slot_refusal(const struct vp_ctl *c, const struct vp_ctl_client *cl)
{
	if (cl->exempt)
		return c->nclients < VP_CTL_CLIENTS_MAX ? VP_REJ_NONE :
		    VP_REJ_FULL;
	if (person_slots(c, cl->person) >= VP_CTL_PERSON_MAX)
		return VP_REJ_PERSON_LIMIT;
	if (c->nclients >= VP_CTL_CLIENTS_MAX - VP_CTL_ROOT_RESERVE)
		return VP_REJ_FULL;
	return VP_REJ_NONE;
}

/* One error line to a connection that gets no slot, then close it. */
static void
refuse(struct vp_daemon *d, const struct vp_ctl_client *cl,
    enum vp_reject why)
{
	char msg[192], who[48];
	ssize_t r;

	peer_person_words(cl->exempt ? VP_PEER_UID : cl->kind,
	    cl->exempt ? cl->uid : cl->person, who, sizeof(who));
	if (why == VP_REJ_PERSON_LIMIT) {
		snprintf(msg, sizeof(msg), "error: %s already has %d "
		    "connections open, the most one person may have; try "
		    "again when one closes\n", who, VP_CTL_PERSON_MAX);
		d->c.ctl_person_limit[cl->kind]++;
	} else {
		snprintf(msg, sizeof(msg), "error: all %d connections open to "
		    "%s are taken; try again shortly\n", cl->exempt ?
		    VP_CTL_CLIENTS_MAX : VP_CTL_CLIENTS_MAX - VP_CTL_ROOT_RESERVE,
		    who);
	}
	d->c.ctl_rejected[why]++;
	r = send(cl->fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)r;	/* a client that cannot take it loses it */
	drain(cl->fd);
	close(cl->fd);
}

/* Who is asking, from the kernel, not from anything it says. */
static void
identify(const struct vp_ctl *c, struct vp_ctl_client *cl)
{
	struct vp_peer p;

	if (peer_identify(cl->fd, &p) < 0) {
		cl->uid = cl->person = (uid_t)-1;
		cl->kind = VP_PEER_UID;
	} else {
		cl->uid = p.uid;
		cl->kind = p.kind;
		cl->person = p.person;
	}
	cl->exempt = (cl->uid == 0 && cl->kind != VP_PEER_LOGIN_UID) ||
	    cl->uid == c->euid;
}

/*
 * Takes what waits in the listen backlog: a slot for each connection
 * whose uid may have one, an error line at once for the others.  The
 * backlog is one queue for everyone, so it is always drained, even
 * with the table full: left there, a client queued behind a flood would
 * wait for the flood's 2 s read deadline.  At most VP_CTL_ACCEPT_BATCH
 * a call, so a client reconnecting as fast as it can does not keep the
 * loop from its tick's deadline.
 */
#define VP_CTL_ACCEPT_BATCH	64

static void
accept_clients(struct vp_daemon *d, uint64_t now)
{
	struct vp_ctl *c = &d->ctl;
	int n;

	for (n = 0; n < VP_CTL_ACCEPT_BATCH; n++) {
		struct vp_ctl_client peer = { 0 };
		enum vp_reject why;
		int fd;

		fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				log_msg(LOG_WARNING, "socket %s: accept: %s",
				    c->path, strerror(errno));
			return;
		}
		peer.fd = fd;
		identify(c, &peer);
		if ((why = slot_refusal(c, &peer)) != VP_REJ_NONE) {
			refuse(d, &peer, why);
			continue;
		}
		peer.deadline = now + VP_CTL_READ_NS;
		c->client[c->nclients++] = peer;
	}
}

/* Text only: control bytes (but tab) mean binary data, not a typo. */
static bool
is_text(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return false;
	}
	return true;
}

/* The cache slot of a status or metrics request, or NULL. */
static struct vp_ctl_answer *
cache_slot(struct vp_daemon *d, const struct vp_request *q)
{
	if (q->cmd == VP_CMD_STATUS)
		return &d->ctl.cached[0];
	if (q->cmd == VP_CMD_METRICS)
		return &d->ctl.cached[1];
	return NULL;
}

static bool
cache_fresh(const struct vp_daemon *d, const struct vp_ctl_answer *a)
{
	return a && a->buf && a->tick == d->c.ticks &&
	    a->gen == d->inventory_gen;
}

/* Keeps this tick's answer, the very buffer its clients send. */
static void
cache_keep(struct vp_daemon *d, struct vp_ctl_answer *a, struct vp_ctl_buf *b)
{
	buf_unref(a->buf);
	b->refs++;
	a->buf = b;
	a->tick = d->c.ticks;
	a->gen = d->inventory_gen;
}

/*
 * A new answer costs memory until its client has read it: with
 * c->queued_max bytes queued, nothing new is run and the client is told
 * to come back (the queue drains within VP_CTL_WRITE_NS).  The cached
 * answer that clients are already sending costs nothing more and is
 * still given.
 */
static bool
too_busy(struct vp_daemon *d, const struct vp_ctl_answer *a)
{
	const struct vp_ctl *c = &d->ctl;

	if (c->queued < c->queued_max)
		return false;
	return !(cache_fresh(d, a) && a->buf->senders > 0);
}

/* Starts sending @b (NULL: out of memory) to client @i. */
static void
send_answer(struct vp_daemon *d, int i, struct vp_ctl_buf *b, uint64_t now)
{
	struct vp_ctl_client *cl = &d->ctl.client[i];

	if (!b) {
		reject(d, i, VP_REJ_ARGS, "error: out of memory\n");
		return;
	}
	buf_attach(&d->ctl, cl, b);
	buf_unref(b);		/* the client's reference is the one kept */
	cl->deadline = now + VP_CTL_WRITE_NS;
}

/*
 * The client of @q waits for the worker's answer to request d->lv.seq:
 * kept queued (poll leaves it alone) with no deadline of its own.
 */
static void
wait_answer(struct vp_daemon *d, int i, const struct vp_request *q,
    uint64_t now)
{
	struct vp_ctl_client *cl = &d->ctl.client[i];

	if (!cl->queued && !(cl->queued = malloc(sizeof(*q)))) {
		reject(d, i, VP_REJ_ARGS, "error: out of memory\n");
		return;
	}
	if (cl->queued != q)
		*cl->queued = *q;
	cl->wait_seq = d->lv.seq;
	cl->wait_ns = now;
	cl->deadline = UINT64_MAX;
}

/* The answer of a waiting client (@res NULL: none came in time), sent. */
static void
finish_wait(struct vp_daemon *d, int i, const struct vp_msg_result *res)
{
	struct vp_ctl_client *cl = &d->ctl.client[i];
	struct vp_ctl_buf *b = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int r = VP_REJ_ARGS;

	if ((f = open_memstream(&text, &len))) {
		r = res ? command_policy_done(d, cl->queued, res, f) :
		    command_policy_late(d, cl->queued, f);
		if (fclose(f) != 0)
			free(text);
		else
			b = buf_new(text, len);
	}
	free(cl->queued);
	cl->queued = NULL;
	cl->wait_seq = 0;
	if (r > 0)
		d->c.ctl_rejected[r]++;
	send_answer(d, i, b, clock_now_ns());
}

bool
server_policy_answered(struct vp_daemon *d, uint32_t seq,
    const struct vp_msg_result *res)
{
	int i;

	for (i = 0; i < d->ctl.nclients; i++)
		if (d->ctl.client[i].wait_seq == seq) {
			finish_wait(d, i, res);
			return true;
		}
	return false;
}

/* Runs @q into the client's answer buffer, and starts sending it. */
static void
run_into(struct vp_daemon *d, int i, const struct vp_request *q,
    uint64_t now)
{
	struct vp_ctl_answer *a = cache_slot(d, q);
	struct vp_ctl_buf *b = NULL;
	char *text = NULL, msg[128];
	size_t len = 0;
	FILE *f;
	int r;

	if (too_busy(d, a)) {
		snprintf(msg, sizeof(msg), "error: busy: %zu bytes of answers "
		    "wait to be read; try again shortly\n", d->ctl.queued);
		reject(d, i, VP_REJ_BUSY, msg);
		return;
	}
	if (cache_fresh(d, a)) {
		d->c.ctl_requests[q->cmd]++;
		b = a->buf;
		b->refs++;
	} else if ((f = open_memstream(&text, &len))) {
		r = command_run(d, q, f);
		if (fclose(f) != 0 || r == VP_CMD_LATER)
			free(text);
		else if ((b = buf_new(text, len)) && r == 0 && a)
			cache_keep(d, a, b);
		if (r == VP_CMD_LATER) {
			wait_answer(d, i, q, now);
			return;
		}
		if (r > 0)
			d->c.ctl_rejected[r]++;
	}
	send_answer(d, i, b, now);
}

/* A whole request line: parse it, then run it now or queue it. */
static void
answer(struct vp_daemon *d, int i, uint64_t now)
{
	struct vp_ctl_client *cl = &d->ctl.client[i];
	char err[VP_CTL_LINE_MAX + 64], msg[sizeof(err) + 16];
	struct vp_request q;
	int why;

	if (!is_text(cl->in, cl->inlen)) {
		reject(d, i, VP_REJ_BINARY, "error: request is not text "
		    "(one line: status, metrics, explain VM VCPU, help)\n");
		return;
	}
	cl->in[cl->inlen] = '\0';
	if ((why = request_parse(cl->in, &q, err, sizeof(err))) != 0) {
		snprintf(msg, sizeof(msg), "error: %s\n", err);
		reject(d, i, why, msg);
		return;
	}
	if (request_needs_root(q.cmd) && cl->uid != 0) {
		snprintf(msg, sizeof(msg), "error: %s: permission denied "
		    "(uid %ld): write commands need root\n",
		    request_name(q.cmd), (long)cl->uid);
		reject(d, i, VP_REJ_DENIED, msg);
		return;
	}
	if (!request_deferred(q.cmd)) {
		run_into(d, i, &q, now);
		return;
	}
	if (!(cl->queued = malloc(sizeof(q)))) {
		reject(d, i, VP_REJ_ARGS, "error: out of memory\n");
		return;
	}
	*cl->queued = q;
	/* the next tick answers it: no read or write deadline meanwhile */
	cl->deadline = UINT64_MAX;
}

void
server_run_queued(struct vp_daemon *d)
{
	struct vp_ctl *c = &d->ctl;
	uint64_t now = clock_now_ns();
	int i;

	for (i = c->nclients - 1; i >= 0; i--) {
		struct vp_request *q = c->client[i].queued;

		if (!q)
			continue;
		if (c->client[i].wait_seq) {
			/* the worker's answer comes later, if ever */
			if (now - c->client[i].wait_ns >=
			    (uint64_t)VP_LIBVIRT_POLICY_WAIT_MS * 1000000)
				finish_wait(d, i, NULL);
			continue;
		}
		c->client[i].queued = NULL;
		run_into(d, i, q, now);
		if (c->client[i].queued != q)
			free(q);
	}
}

static void
read_request(struct vp_daemon *d, int i, uint64_t now)
{
	struct vp_ctl_client *cl = &d->ctl.client[i];
	ssize_t n;
	char *nl;

	/* one byte kept for the terminating NUL */
	n = recv(cl->fd, cl->in + cl->inlen, sizeof(cl->in) - 1 - cl->inlen,
	    0);
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			drop_client(&d->ctl, i);
		return;
	}
	if (n == 0 && cl->inlen == 0) {
		/* connected, said nothing, left */
		drop_client(&d->ctl, i);
		return;
	}
	cl->inlen += (size_t)n;
	if ((nl = memchr(cl->in, '\n', cl->inlen))) {
		cl->inlen = (size_t)(nl - cl->in);
		if (cl->inlen && cl->in[cl->inlen - 1] == '\r')
			cl->inlen--;
	} else if (cl->inlen >= sizeof(cl->in) - 1) {
		char msg[96];

		snprintf(msg, sizeof(msg), "error: request longer than %d "
		    "bytes\n", VP_CTL_LINE_MAX - 1);
		reject(d, i, VP_REJ_OVERLONG, msg);
		return;
	} else if (n > 0) {
		return;		/* more to come */
	}
	/* a newline, or EOF after a line without one (echo -n) */
	answer(d, i, now);
}

static void
write_answer(struct vp_daemon *d, int i)
{
	struct vp_ctl_client *cl = &d->ctl.client[i];
	ssize_t n;

	n = send(cl->fd, cl->out->text + cl->outoff, cl->out->len - cl->outoff,
	    MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			drop_client(&d->ctl, i);
		return;
	}
	cl->outoff += (size_t)n;
	if (cl->outoff == cl->out->len)
		drop_client(&d->ctl, i);
}

/* Clients past their deadline: silent ones and slow readers. */
static void
expire(struct vp_daemon *d, uint64_t now)
{
	struct vp_ctl *c = &d->ctl;
	int i;

	for (i = c->nclients - 1; i >= 0; i--) {
		if (now < c->client[i].deadline)
			continue;
		if (c->client[i].out)
			reject(d, i, VP_REJ_SLOW_READER, NULL);
		else
			reject(d, i, VP_REJ_TIMEOUT, "error: no request "
			    "line within 2 s\n");
	}
}

static int
poll_timeout_ms(const struct vp_ctl *c, uint64_t now, uint64_t deadline)
{
	uint64_t until = deadline;
	int i;

	for (i = 0; i < c->nclients; i++)
		if (c->client[i].deadline < until)
			until = c->client[i].deadline;
	return until <= now ? 0 : (int)((until - now + 999999) / 1000000);
}

/*
 * Serves until @deadline (or a reload, a signal, an event).  Each pass
 * polls first and judges the clients' deadlines after reading what they
 * sent: a deadline measures the client, not the daemon.  The loop may
 * come back late from a tick or an event round that waited on libvirtd
 * (seconds, while it holds a dying domain's lock), and a request that
 * sat in its socket meanwhile is answered, not refused as "no request
 * line within 2 s" (seen once in a 30-minute soak, before).  A pass
 * entered past @deadline still polls once, without waiting.
 */
void
server_serve(struct vp_daemon *d, uint64_t deadline)
{
	struct vp_ctl *c = &d->ctl;
	struct pollfd pfd[VP_CTL_CLIENTS_MAX + 4];
	bool listening, due;
	uint64_t now;
	int i, n, r, ms, wake_i = -1, proc_i = -1, lv_i = -1, listen_i;
	struct timespec ts;

	for (;;) {
		now = clock_now_ns();
		due = now >= deadline || atomic_load(&d->reload_asked);
		/* a queued client waits for the tick: poll ignores fd -1 */
		for (i = 0; i < c->nclients; i++)
			pfd[i] = (struct pollfd){ .fd = c->client[i].queued ?
			    -1 : c->client[i].fd,
			    .events = c->client[i].out ? POLLOUT : POLLIN };
		n = c->nclients;
		/* even when full: see accept_clients() */
		listening = c->fd >= 0;
		listen_i = n;
		if (listening)
			pfd[n++] = (struct pollfd){ .fd = c->fd,
			    .events = POLLIN };
		/* a libvirt event: back to the loop for an event round */
		if (d->event_poll && d->virt.wake_fd >= 0) {
			wake_i = n;
			pfd[n++] = (struct pollfd){ .fd = d->virt.wake_fd,
			    .events = POLLIN };
		}
		/* the libvirt worker answered: back to the loop to take it */
		if (d->lv.up) {
			lv_i = n;
			pfd[n++] = (struct pollfd){ .fd = d->lv.fd,
			    .events = POLLIN };
		}
		/* a process event (a vCPU hot-plugged): the same */
		if (d->event_poll && d->hp.fd >= 0) {
			proc_i = n;
			pfd[n++] = (struct pollfd){ .fd = d->hp.fd,
			    .events = POLLIN };
		}
		ms = due ? 0 : poll_timeout_ms(c, now, deadline);
		ts = (struct timespec){ .tv_sec = ms / 1000,
		    .tv_nsec = (long)(ms % 1000) * 1000000 };
		/* the daemon's signals arrive here only: see main.c */
		r = ppoll(pfd, (nfds_t)n, &ts, &d->serve_sigmask);
		if (r < 0 && errno == EINTR)
			return;		/* a signal: let the loop look at it */
		now = clock_now_ns();
		/* backwards: drop_client() moves the last client into i */
		for (i = c->nclients - 1; r > 0 && i >= 0; i--) {
			if (!pfd[i].revents || c->client[i].queued)
				continue;
			if (c->client[i].out)
				write_answer(d, i);
			else
				read_request(d, i, now);
		}
		if (r > 0 && listening && pfd[listen_i].revents)
			accept_clients(d, now);
		expire(d, now);
		if (due || (r > 0 && ((wake_i >= 0 && pfd[wake_i].revents) ||
		    (lv_i >= 0 && pfd[lv_i].revents) ||
		    (proc_i >= 0 && pfd[proc_i].revents))))
			return;
	}
}
