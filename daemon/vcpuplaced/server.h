/*
 * server.h - the control socket's plumbing (server.c): accept, read,
 * per-person limits, shared answers, write.
 */
#ifndef VP_SERVER_H
#define VP_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/vcpuplace.h"
#include "host/virt_msg.h"

struct vp_daemon;

struct vp_ctl_client;

/* The control socket: one listening fd and its non-blocking clients. */
/*
 * One answer's bytes, shared by every client sending it and by the
 * cache: freed with the last reference.  @senders of the @refs are
 * clients; while there is one, @len counts once in vp_ctl.queued.
 */
struct vp_ctl_buf {
	unsigned int refs, senders;
	size_t len;
	char *text;			/* NUL-ended */
};
/*
 * status and metrics of one tick are the same for every client: each is
 * rendered once per tick, so 500 clients asking at once cost one
 * rendering, not 500, and the tick keeps its time; and they share one
 * buffer, so 500 slow readers of it hold one answer's memory, not 500.
 */
struct vp_ctl_answer {
	unsigned long tick, gen;	/* d->c.ticks, d->inventory_gen */
	struct vp_ctl_buf *buf;		/* NULL: none yet */
};

struct vp_ctl {
	const char *path;	/* NULL: no socket */
	int fd;
	struct vp_ctl_client *client;	/* [VP_CTL_CLIENTS_MAX] */
	int nclients;
	struct vp_ctl_answer cached[2];	/* status, metrics */
	size_t queued;		/* bytes of answers clients still read */
	size_t queued_max;	/* VP_CTL_QUEUED_MAX (tests lower it) */
	uid_t euid;		/* the daemon's: exempt from the shares */
};

#define VP_CTL_LINE_MAX	1024	/* one request line, newline included */
#define VP_CTL_CLIENTS_MAX	1024	/* at once; more are refused at once */
#define VP_CTL_PERSON_MAX	128	/* at once per non-root person (server.c) */
#define VP_CTL_ROOT_RESERVE	64	/* slots only uid 0 may take */
#define VP_CTL_READ_NS	(2ULL * 1000000000)	/* to send the request */
#define VP_CTL_WRITE_NS	(10ULL * 1000000000)	/* to read the answer */
/* answers not yet read, a shared one once: new requests wait past it */
#define VP_CTL_QUEUED_MAX	((size_t)32 << 20)
/*
 * Binds and listens on d->ctl.path (mode 0660, group vcpuplace); -EPERM,
 * -ENOTDIR (a symlink) when its folder may be written by others.
 */
int server_open(struct vp_daemon *d) VP_MUST_CHECK;
void server_close(struct vp_daemon *d);
/* Serves clients until the monotonic time @deadline: the tick's sleep. */
void server_serve(struct vp_daemon *d, uint64_t deadline);
/* Runs the commands queued because they talk to libvirt (the tick's). */
void server_run_queued(struct vp_daemon *d);
/*
 * The worker answered the policy write @seq: its client gets the answer;
 * false when none waits for it any more.
 */
bool server_policy_answered(struct vp_daemon *d, uint32_t seq,
    const struct vp_msg_result *res);

#endif /* VP_SERVER_H */
