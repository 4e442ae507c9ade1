/*
 * libvirt.c - the loop's side of the libvirt worker
 * (doc/libvirt-worker.md).  The loop sends a request and goes on: the
 * socket, the status, the metrics, the ticks and the watchdog never wait
 * on libvirt.  The answers come back on the channel, which the loop polls
 * beside the control socket (server_serve()), and are taken here: a
 * snapshot is built aside and handed out whole at its INV_END, pins and
 * policy writes with their results.  What they mean for the daemon is
 * answers.c's: this file calls nothing above it.
 *
 * At most one read (REFRESH or REREAD) and one APPLY are outstanding, and
 * a few policy writes.  An event that comes while a read is out leaves
 * the dirty flag set, and the read that follows is sent when the first
 * one ends.  The loop reads only the event flags of struct vp_virt
 * (atomics and the metadata queue's lock, never held over a libvirt
 * call); the connection in it is the worker's.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/domain.h"
#include "vcpuplaced/daemon.h"

#define BACKOFF_MIN_MS	250
#define BACKOFF_MAX_MS	8000	/* a restarting libvirtd is back in ~2 s */

const char *
libvirt_kind_name(enum vp_lv_kind k)
{
	static const char *const names[] = {
		[VP_LV_REFRESH] = "refresh", [VP_LV_REREAD] = "reread",
		[VP_LV_APPLY] = "apply", [VP_LV_POLICY] = "policy",
	};

	return names[k];
}

void
snapshot_free(struct vp_snapshot *s)
{
	int i;

	for (i = 0; i < s->n; i++) {
		free(s->dom[i].policy);
		free(s->dom[i].nova);
		free(s->dom[i].aff);
		free(s->dom[i].cur);
	}
	free(s->dom);
	memset(s, 0, sizeof(*s));
}

int
libvirt_start(struct vp_daemon *d)
{
	struct vp_libvirt *lv = &d->lv;
	int r;

	if (lv->up)
		return 0;
	if (!lv->buf && !(lv->buf = malloc(VP_MSG_MAX)))
		return -ENOMEM;
	if ((r = virt_worker_start(&lv->w, &d->virt, d->uri, &lv->fd)) < 0)
		return r;
	lv->up = true;
	lv->bye = false;
	lv->stop_sent_ns = 0;
	return 0;
}

bool
libvirt_connected(const struct vp_daemon *d)
{
	return d->lv.up && d->lv.connected && !atomic_load(&d->virt.lost);
}

bool
libvirt_reading(const struct vp_daemon *d)
{
	return d->lv.read_seq != 0;
}

bool
libvirt_applying(const struct vp_daemon *d)
{
	return d->lv.apply_seq != 0;
}

const struct vp_lv_pending *
libvirt_oldest(const struct vp_daemon *d)
{
	return d->lv.nreq ? &d->lv.req[0] : NULL;
}

const char *
libvirt_state_name(const struct vp_daemon *d, uint64_t now)
{
	const struct vp_lv_pending *p = libvirt_oldest(d);

	if (p && now - p->sent_ns >= (uint64_t)VP_LIBVIRT_STALL_MS * 1000000)
		return libvirt_connected(d) ? "waiting" : "connecting";
	return libvirt_connected(d) ? "answering" : "disconnected";
}

/* Notes request @seq as sent, oldest first. */
static int
pend(struct vp_daemon *d, uint32_t seq, enum vp_lv_kind kind)
{
	struct vp_libvirt *lv = &d->lv;

	if (lv->nreq == VP_LV_PENDING_MAX)
		return -EBUSY;
	lv->req[lv->nreq++] = (struct vp_lv_pending){
		.seq = seq, .kind = kind, .sent_ns = clock_now_ns(),
	};
	return 0;
}

/* Request @seq answered: 0, or -ENOENT when it is not outstanding. */
static int
unpend(struct vp_daemon *d, uint32_t seq)
{
	struct vp_libvirt *lv = &d->lv;
	int i;

	for (i = 0; i < lv->nreq && lv->req[i].seq != seq; i++)
		;
	if (i == lv->nreq)
		return -ENOENT;
	memmove(&lv->req[i], &lv->req[i + 1],
	    (size_t)(lv->nreq - i - 1) * sizeof(lv->req[0]));
	lv->nreq--;
	return 0;
}

bool
libvirt_pending(const struct vp_daemon *d, uint32_t seq)
{
	int i;

	for (i = 0; i < d->lv.nreq; i++)
		if (d->lv.req[i].seq == seq)
			return true;
	return false;
}

/* Sends one request: 0 with its seq noted, or -errno (nothing sent). */
static int
send_req(struct vp_daemon *d, enum vp_lv_kind kind, unsigned int type,
    uint32_t n, const void *fixed, size_t fixed_len, const void *tail,
    size_t tail_len)
{
	struct vp_libvirt *lv = &d->lv;
	uint32_t seq = lv->seq + 1 ? lv->seq + 1 : 1;
	int r;

	if (!lv->up || lv->stop_sent_ns)
		return -ENOTCONN;
	if (lv->nreq == VP_LV_PENDING_MAX)
		return -EBUSY;
	/* never blocks: a full channel is a request not made (-EAGAIN) */
	r = virt_msg_send(lv->fd, type, seq, n, 0, fixed, fixed_len, tail,
	    tail_len, 1);
	if (r < 0)
		return r;
	lv->seq = seq;
	return pend(d, seq, kind);
}

/* What a refresh reads besides the list and the policy elements. */
static struct vp_msg_refresh
refresh_req(const struct vp_daemon *d)
{
	struct vp_msg_refresh rq = {
		.what = 0, .maplen = (uint32_t)domain_maplen(d->topo),
	};

	if (profiles_rules_read_nova(d->profiles))
		rq.what |= VP_READ_NOVA;
	if (d->scx.opt != VP_SCX_OPT_OFF)
		rq.what |= VP_READ_CPUTUNE;
	rq.what |= VP_READ_AFFINITY;
	return rq;
}

int
libvirt_refresh(struct vp_daemon *d, bool event)
{
	struct vp_libvirt *lv = &d->lv;
	struct vp_msg_refresh rq;
	int r;

	if (lv->read_seq)
		return -EBUSY;
	rq = refresh_req(d);
	virt_clear_dirty(&d->virt);
	/* after the flag: an event from now on makes another refresh */
	lv->read_event_ns = virt_event_take(&d->virt);
	r = send_req(d, VP_LV_REFRESH, VP_MSG_REFRESH, 0, &rq, sizeof(rq),
	    NULL, 0);
	if (r < 0) {
		/* not sent: the next tick tries again, the event time kept */
		virt_mark_dirty(&d->virt, lv->read_event_ns);
		return r;
	}
	d->c.refreshes++;
	lv->read_seq = lv->seq;
	lv->read_event = event;
	lv->read_sent_ns = clock_now_ns();
	snapshot_free(&lv->snap);
	return 0;
}

int
libvirt_reread(struct vp_daemon *d, unsigned char uuids[][VP_UUID_LEN],
    int n)
{
	struct vp_libvirt *lv = &d->lv;
	uint64_t t;
	int r;

	if (lv->read_seq)
		return -EBUSY;
	t = virt_event_take(&d->virt);
	r = send_req(d, VP_LV_REREAD, VP_MSG_REREAD, (uint32_t)n, NULL, 0,
	    uuids, (size_t)n * VP_UUID_LEN);
	if (r < 0) {
		virt_mark_dirty(&d->virt, t);	/* a whole refresh instead */
		return r;
	}
	lv->read_seq = lv->seq;
	lv->read_event = true;
	lv->read_event_ns = t;
	lv->read_sent_ns = clock_now_ns();
	snapshot_free(&lv->snap);
	return 0;
}

int
libvirt_apply(struct vp_daemon *d, int npins)
{
	struct vp_libvirt *lv = &d->lv;
	int maplen = domain_maplen(d->topo), i, r;
	size_t item = sizeof(struct vp_msg_pin) + (size_t)maplen;
	struct vp_msg_maps m = { .maplen = (uint32_t)maplen };
	unsigned char *tail;

	if (lv->apply_seq)
		return -EBUSY;
	if (!(tail = calloc(npins, item)))
		return -ENOMEM;
	for (i = 0; i < npins; i++) {
		struct vp_msg_pin p = { .id = (uint32_t)i,
		    .vcpu = lv->pin[i].vcpu };

		memcpy(p.uuid, lv->pin[i].uuid, VP_UUID_LEN);
		memcpy(tail + i * item, &p, sizeof(p));
		/* actuate.c sends no set that would not convert */
		(void)domain_map_of_set(d->topo, &lv->pin[i].set,
		    tail + i * item + sizeof(p), maplen);
	}
	r = send_req(d, VP_LV_APPLY, VP_MSG_APPLY, (uint32_t)npins, &m,
	    sizeof(m), tail, (size_t)npins * item);
	free(tail);
	if (r < 0)
		return r;
	lv->apply_seq = lv->seq;
	lv->apply_ns = clock_now_ns();
	lv->npins = npins;
	return 0;
}

int
libvirt_policy_write(struct vp_daemon *d, const unsigned char *uuid,
    const char *xml, uint32_t *ret_seq)
{
	struct vp_msg_policy pw = { .id = 0 };
	size_t len = strlen(xml) + 1;
	int r;

	if (len > VP_MSG_TEXT_MAX + 1)
		return -EMSGSIZE;
	memcpy(pw.uuid, uuid, VP_UUID_LEN);
	/* one slot is kept for the read, one for the apply */
	if (d->lv.nreq >= VP_LV_PENDING_MAX - 2)
		return -EBUSY;
	r = send_req(d, VP_LV_POLICY, VP_MSG_POLICY_WRITE, (uint32_t)len, &pw,
	    sizeof(pw), xml, len);
	if (r == 0)
		*ret_seq = d->lv.seq;
	return r;
}

/* Waits out the backoff after a failure: twice as long each time. */
static void
backoff(struct vp_daemon *d)
{
	d->backoff_ms = d->backoff_ms ? d->backoff_ms * 2 : BACKOFF_MIN_MS;
	if (d->backoff_ms > BACKOFF_MAX_MS)
		d->backoff_ms = BACKOFF_MAX_MS;
	d->reconnect_at_ns = clock_now_ns() + (uint64_t)d->backoff_ms * 1000000;
}

/* A stall said once when it starts (the tick looks) and once at its end. */
static void
note_stall(struct vp_daemon *d, uint64_t now)
{
	const struct vp_lv_pending *p = libvirt_oldest(d);
	struct vp_libvirt *lv = &d->lv;

	if (lv->stalled && (!p || p->sent_ns != lv->stall_ns)) {
		log_msg(LOG_NOTICE, "libvirt answering again after %.1f s",
		    (double)(now - lv->stall_ns) / 1e9);
		lv->stalled = false;
	}
	if (!lv->stalled && p && now - p->sent_ns >=
	    (uint64_t)VP_LIBVIRT_STALL_MS * 1000000) {
		lv->stalls++;
		lv->stalled = true;
		lv->stall_ns = p->sent_ns;
		log_msg(LOG_WARNING, "libvirt not answering the %s of %u for "
		    "%u s; the socket, status and metrics go on",
		    libvirt_kind_name(p->kind), p->seq,
		    VP_LIBVIRT_STALL_MS / 1000);
	}
}

void
libvirt_tick(struct vp_daemon *d, bool full)
{
	uint64_t now = clock_now_ns();

	note_stall(d, now);
	if (!d->lv.up || d->lv.read_seq)
		return;
	if (!libvirt_connected(d)) {
		/* the worker connects first: as often as the backoff allows */
		if (now >= d->reconnect_at_ns)
			(void)libvirt_refresh(d, false);
		return;
	}
	if (virt_dirty(&d->virt) || full)
		(void)libvirt_refresh(d, false);
}

/* The worker's STATE: the log lines of the connection, and the backoff. */
static void
take_state(struct vp_daemon *d, const struct vp_msg_state *st)
{
	struct vp_libvirt *lv = &d->lv;
	bool was = lv->connected;

	lv->connected = st->connected;
	if (st->connected && st->opens != lv->opens) {
		d->backoff_ms = 0;
		if (d->ever_connected) {
			d->c.reconnects++;
			log_msg(LOG_NOTICE, "reconnected to %s", d->uri);
		}
		d->ever_connected = true;
	} else if (!st->connected && st->err) {
		backoff(d);
		log_msg(LOG_WARNING, "cannot connect to %s: %s; retrying in "
		    "%u ms", d->uri, st->why, d->backoff_ms);
	} else if (!st->connected && was) {
		log_msg(LOG_WARNING, "lost connection to %s, reconnecting",
		    d->uri);
		d->reconnect_at_ns = clock_now_ns();
	}
	lv->opens = st->opens;
}

static struct vp_snap_dom *
snap_add(struct vp_snapshot *s)
{
	struct vp_snap_dom *dom;
	int cap;

	if (s->n == s->cap) {
		cap = s->cap ? 2 * s->cap : 16;
		dom = realloc(s->dom, (size_t)cap * sizeof(*dom));
		if (!dom)
			return NULL;
		s->dom = dom;
		s->cap = cap;
	}
	dom = &s->dom[s->n++];
	memset(dom, 0, sizeof(*dom));
	dom->policy_err = dom->nova_err = dom->cputune_err = -EAGAIN;
	dom->aff_err = -EAGAIN;
	return dom;
}

static struct vp_snap_dom *
snap_find(struct vp_snapshot *s, const unsigned char *uuid)
{
	int i;

	/* the worker sends a domain's parts right after it: the last */
	for (i = s->n - 1; i >= 0; i--)
		if (!memcmp(s->dom[i].info.uuid, uuid, VP_UUID_LEN))
			return &s->dom[i];
	return NULL;
}

static int
take_domain(struct vp_libvirt *lv, const struct vp_msg_domain *m)
{
	struct vp_snap_dom *dom = snap_add(&lv->snap);

	if (!dom)
		return -ENOMEM;
	dom->info = m->info;
	dom->policy_err = m->policy_err;
	dom->nova_err = m->nova_err;
	dom->cputune_err = m->cputune_err;
	dom->tune = m->tune;
	return 0;
}

/* A text: of a domain listed (REFRESH), or one of its own (REREAD). */
static int
take_text(struct vp_libvirt *lv, const unsigned char *body, uint32_t n)
{
	struct vp_snap_dom *dom;
	struct vp_msg_text t;
	char *text = NULL;

	memcpy(&t, body, sizeof(t));
	dom = snap_find(&lv->snap, t.uuid);
	if (!dom) {
		if (!(dom = snap_add(&lv->snap)))
			return -ENOMEM;
		memcpy(dom->info.uuid, t.uuid, VP_UUID_LEN);
	}
	/* virt_msg_check() saw its NUL at n - 1 */
	if (n && !(text = strndup((const char *)body + sizeof(t), n - 1)))
		return -ENOMEM;
	if (t.kind == VP_TEXT_POLICY) {
		free(dom->policy);
		dom->policy = text;
		dom->policy_err = t.err;
	} else {
		free(dom->nova);
		dom->nova = text;
		dom->nova_err = t.err;
	}
	return 0;
}

/* vCPU affinities, converted to the model's PUs as they come. */
static int
take_vcpus(struct vp_daemon *d, const unsigned char *body, uint32_t n)
{
	struct vp_snap_dom *dom;
	struct vp_msg_maps m;
	struct vp_msg_vcpu vc;
	const unsigned char *p = body + sizeof(m);
	uint32_t i;
	int nv;

	memcpy(&m, body, sizeof(m));
	if (!(dom = snap_find(&d->lv.snap, m.uuid)))
		return -EBADMSG;
	nv = dom->info.nvcpus;
	if (m.err) {
		dom->aff_err = m.err;
		return 0;
	}
	if (m.first != (uint32_t)dom->naff || m.first + n > (uint32_t)nv)
		return -EBADMSG;	/* in order, and no more than it has */
	if (!dom->aff) {
		dom->aff = calloc(nv, sizeof(*dom->aff));
		dom->cur = calloc(nv, sizeof(*dom->cur));
		if (!dom->aff || !dom->cur)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++, p += sizeof(vc) + m.maplen) {
		memcpy(&vc, p, sizeof(vc));
		domain_set_of_map(d->topo, p + sizeof(vc), (int)m.maplen,
		    &dom->aff[m.first + i]);
		dom->cur[m.first + i] = domain_pu_of_cpu(d->topo, vc.cpu);
	}
	dom->naff += (int)n;
	if (dom->naff == nv)
		dom->aff_err = 0;
	return 0;
}

/*
 * The read ended.  A failed one is counted here and gives no answer (the
 * old inventory stays); a whole one is handed out (answers.c adopts it)
 * and freed at the next libvirt_next().
 */
static int
take_end(struct vp_daemon *d, uint32_t seq, int err, struct vp_lv_answer *a)
{
	struct vp_libvirt *lv = &d->lv;
	bool reread = false;
	int i;

	/* still pending: unpend() comes after */
	for (i = 0; i < lv->nreq; i++)
		if (lv->req[i].seq == seq)
			reread = lv->req[i].kind == VP_LV_REREAD;
	(void)unpend(d, seq);
	lv->read_seq = 0;
	lv->done_seq = seq;
	lv->done_err = err;
	d->event_ns = lv->read_event_ns;
	if (err < 0) {
		d->c.libvirt_errors++;
		if (err == -ECONNREFUSED)
			d->event_ns = 0;
		/* the events it answered are still to be answered */
		virt_mark_dirty(&d->virt, lv->read_event_ns);
		snapshot_free(&lv->snap);
		return 0;
	}
	*a = (struct vp_lv_answer){
		.kind = reread ? VP_LV_ANS_POLICIES : VP_LV_ANS_INVENTORY,
		.seq = seq, .snap = &lv->snap, .event = lv->read_event,
	};
	if (!reread)
		lv->snapshot_ns = clock_now_ns();
	lv->snap_out = true;
	return 1;
}

/*
 * An APPLY's results, or a policy write's.  The pins are handed out with
 * the batch they answer, and a new APPLY may go at once.
 */
static int
take_results(struct vp_daemon *d, uint32_t seq, const unsigned char *body,
    uint32_t n, struct vp_lv_answer *a)
{
	struct vp_libvirt *lv = &d->lv;

	*a = (struct vp_lv_answer){ .seq = seq, .res = body, .nres = n };
	if (seq != lv->apply_seq) {
		a->kind = VP_LV_ANS_POLICY_WRITE;
		return 1;
	}
	a->kind = VP_LV_ANS_PINS;
	a->pin = lv->pin;
	a->npins = lv->npins;
	a->apply_ns = lv->apply_ns;
	lv->apply_seq = 0;
	lv->npins = 0;
	return 1;
}

/* A datagram refused or out of place: counted, said once per kind. */
static void
note_bad(struct vp_daemon *d, const char *what, unsigned int type)
{
	if (!d->lv.bad_messages++)
		log_msg(LOG_ERR, "libvirt worker: %s (%s): dropped; a bug, "
		    "please report it", what, virt_msg_name(type));
}

/* One datagram: 1 when it completed an answer, in *@a. */
static int
take_one(struct vp_daemon *d, size_t len, struct vp_lv_answer *a)
{
	struct vp_libvirt *lv = &d->lv;
	const unsigned char *body = lv->buf + sizeof(struct vp_msg_hdr);
	struct vp_msg_state st;
	struct vp_msg_end e;
	struct vp_msg_hdr h;
	int r = 0;

	(void)len;
	memcpy(&h, lv->buf, sizeof(h));
	if (h.type == VP_MSG_STATE) {
		memcpy(&st, body, sizeof(st));
		take_state(d, &st);
		return 0;
	}
	if (h.type == VP_MSG_BYE) {
		lv->bye = true;
		return 0;
	}
	if (!libvirt_pending(d, h.seq)) {
		lv->late_answers++;	/* one the loop gave up on */
		return 0;
	}
	switch (h.type) {
	case VP_MSG_INV_BEGIN:
		snapshot_free(&lv->snap);
		return 0;
	case VP_MSG_INV_DOMAIN:
		r = take_domain(lv, (const struct vp_msg_domain *)(const void *)
		    body);
		break;
	case VP_MSG_INV_TEXT:
		r = take_text(lv, body, h.n);
		break;
	case VP_MSG_INV_VCPUS:
		r = take_vcpus(d, body, h.n);
		break;
	case VP_MSG_INV_END:
		memcpy(&e, body, sizeof(e));
		/* a snapshot short of memory or out of order is not taken */
		if (lv->read_err < 0 && e.err == 0)
			e.err = lv->read_err;
		lv->read_err = 0;
		return take_end(d, h.seq, e.err, a);
	case VP_MSG_APPLY_RESULT:
		(void)unpend(d, h.seq);
		return take_results(d, h.seq, body, h.n, a);
	}
	if (r == -EBADMSG)
		note_bad(d, "vCPUs of an unknown domain or out of order",
		    h.type);
	if (r < 0)
		lv->read_err = r;
	return 0;
}

int
libvirt_next(struct vp_daemon *d, struct vp_lv_answer *a)
{
	struct vp_libvirt *lv = &d->lv;
	ssize_t r;

	if (lv->snap_out) {
		snapshot_free(&lv->snap);
		lv->snap_out = false;
	}
	while (lv->up) {
		r = virt_msg_recv(lv->fd, lv->buf, VP_MSG_TO_LOOP, 1);
		if (r == -EAGAIN)
			break;
		if (r == -EBADMSG) {
			note_bad(d, "a message the size checks refuse", 0);
			continue;
		}
		if (r <= 0) {
			lv->bye = true;	/* the worker is gone */
			break;
		}
		if (take_one(d, (size_t)r, a))
			return 1;
	}
	note_stall(d, clock_now_ns());
	return 0;
}

void
libvirt_stop(struct vp_daemon *d, unsigned int wait_ms)
{
	struct vp_libvirt *lv = &d->lv;
	uint64_t end = clock_now_ns() + (uint64_t)wait_ms * 1000000;
	struct vp_lv_answer a;
	struct pollfd pfd;
	uint64_t now;

	if (lv->up) {
		if (virt_msg_send(lv->fd, VP_MSG_STOP, lv->seq + 1, 0, 0, NULL,
		    0, NULL, 0, 1) == 0)
			lv->stop_sent_ns = clock_now_ns();
		while (lv->stop_sent_ns && !lv->bye &&
		    (now = clock_now_ns()) < end) {
			pfd = (struct pollfd){ .fd = lv->fd, .events = POLLIN };
			(void)poll(&pfd, 1, (int)((end - now) / 1000000) + 1);
			/* the process ends: what is still answered is dropped */
			while (libvirt_next(d, &a) > 0)
				;
		}
		/* one stuck in libvirt is left behind: the process ends */
		if (lv->bye)
			virt_worker_join(&lv->w);
		else
			lv->abandoned = true;
		close(lv->fd);
		lv->up = false;
	}
	snapshot_free(&lv->snap);
	lv->snap_out = false;
	free(lv->buf);
	lv->buf = NULL;
	lv->nreq = 0;
	lv->read_seq = lv->apply_seq = 0;
	lv->connected = false;
}
