/*
 * virt_worker.c - see virt_worker.h.  One request at a time, in the
 * order the loop sent them; each answered in full before the next is
 * read, so the loop can tell which answer is whose by its seq.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/domain.h"
#include "host/privs.h"
#include "host/virt_msg.h"
#include "host/virt_worker.h"

/*
 * Both ends buffer this much: an inventory of a few hundred domains
 * goes out without the worker waiting on the loop.  The kernel caps it
 * at net.core.wmem_max (208 KiB by default), still over VP_MSG_MAX.
 */
#define CHANNEL_BUF	(1 << 20)

struct worker {
	struct vp_virt_worker *w;
	unsigned char *buf;	/* the request, VP_MSG_MAX bytes */
	bool said_connected;	/* what the last STATE said */
	uint32_t opens;
};

static void
copy_why(char *dst, const char *why)
{
	snprintf(dst, VP_MSG_ERR_LEN, "%s", why ? why : "");
}

/*
 * A failed send: the loop has gone (closed its end) or sent garbage;
 * the worker ends at its next receive.
 */
static int
send_msg(struct worker *k, unsigned int type, uint32_t seq, uint32_t n,
    const void *fixed, size_t fixed_len, const void *tail, size_t tail_len)
{
	return virt_msg_send(k->w->fd, type, seq, n, 0, fixed, fixed_len,
	    tail, tail_len, 0);
}

static int
send_state(struct worker *k, uint32_t seq, int err, const char *why)
{
	struct vp_msg_state st = {
		.connected = virt_connected(k->w->virt), .err = err,
		.opens = k->opens,
	};

	copy_why(st.why, why);
	k->said_connected = st.connected;
	return send_msg(k, VP_MSG_STATE, seq, 0, &st, sizeof(st), NULL, 0);
}

/*
 * Opens the connection when it is closed or libvirt said it was lost:
 * 0 when open.  Says every change in a STATE.
 */
static int
connect_now(struct worker *k, uint32_t seq)
{
	struct vp_virt *v = k->w->virt;

	if (virt_connected(v))
		return 0;
	if (virt_lost(v)) {
		virt_close(v);
		if (k->said_connected)
			(void)send_state(k, seq, 0, "connection lost");
	}
	if (virt_open(v, k->w->uri) < 0) {
		(void)send_state(k, seq, -ECONNREFUSED, virt_error());
		return -ECONNREFUSED;
	}
	k->opens++;
	(void)send_state(k, seq, 0, "");
	return 0;
}

/* After a request: a connection libvirt reported lost meanwhile. */
static void
note_lost(struct worker *k, uint32_t seq)
{
	if (k->said_connected && !virt_connected(k->w->virt))
		(void)send_state(k, seq, 0, "connection lost");
}

static int
send_end(struct worker *k, uint32_t seq, int err)
{
	struct vp_msg_end e = { .err = err };

	return send_msg(k, VP_MSG_INV_END, seq, 0, &e, sizeof(e), NULL, 0);
}

/*
 * One element's text as read: 0 with the text, else the read's error.
 * Call it after the read (never in the read's own argument list: the
 * order in which arguments are evaluated is unspecified).  A text over
 * VP_MSG_TEXT_MAX is cut at VP_MSG_TEXT_CUT (virt_msg.h): the loop's
 * parser refuses it as too large, as it would the whole.
 */
static int
text_err(int r, char *xml)
{
	if (r == 0 && !xml)
		return -EIO;
	if (r == 0 && strnlen(xml, VP_MSG_TEXT_CUT + 1) > VP_MSG_TEXT_CUT)
		xml[VP_MSG_TEXT_CUT] = '\0';
	return r;
}

static int
send_text(struct worker *k, uint32_t seq, const unsigned char *uuid,
    unsigned int kind, int err, const char *xml)
{
	struct vp_msg_text t = { .kind = kind, .err = err };

	memcpy(t.uuid, uuid, VP_UUID_LEN);
	if (err || !xml)
		return send_msg(k, VP_MSG_INV_TEXT, seq, 0, &t, sizeof(t),
		    NULL, 0);
	return send_msg(k, VP_MSG_INV_TEXT, seq, (uint32_t)strlen(xml) + 1,
	    &t, sizeof(t), xml, strlen(xml) + 1);
}

/*
 * The live affinity of every vCPU of @info, in as many INV_VCPUS as
 * VP_MSG_MAX takes; one with err and no vCPU when it cannot be read.
 */
static int
send_vcpus(struct worker *k, uint32_t seq, const struct vp_dom_info *info,
    uint32_t maplen)
{
	size_t item = sizeof(struct vp_msg_vcpu) + maplen;
	size_t room = (VP_MSG_MAX - sizeof(struct vp_msg_hdr) -
	    sizeof(struct vp_msg_maps)) / item;
	int n = info->nvcpus, first, i, r;
	unsigned char *maps = calloc(n, maplen), *out = NULL;
	int *cpu = calloc(n, sizeof(*cpu));
	struct vp_msg_maps m = { .maplen = maplen };

	memcpy(m.uuid, info->uuid, VP_UUID_LEN);
	if (room > VP_MSG_VCPUS_MAX)
		room = VP_MSG_VCPUS_MAX;
	r = maps && cpu ? domain_vcpu_maps(k->w->virt, info->uuid, n,
	    (int)maplen, maps, cpu) : -ENOMEM;
	if (r == 0 && !(out = malloc(room * item)))
		r = -ENOMEM;
	if (r < 0) {
		m.err = r;
		r = send_msg(k, VP_MSG_INV_VCPUS, seq, 0, &m, sizeof(m), NULL,
		    0);
	}
	for (first = 0; out && r == 0 && first < n; first += (int)room) {
		int cnt = n - first < (int)room ? n - first : (int)room;

		for (i = 0; i < cnt; i++) {
			struct vp_msg_vcpu vc = { .cpu = cpu[first + i] };

			memcpy(out + i * item, &vc, sizeof(vc));
			memcpy(out + i * item + sizeof(vc),
			    maps + (size_t)(first + i) * maplen, maplen);
		}
		m.first = (uint32_t)first;
		r = send_msg(k, VP_MSG_INV_VCPUS, seq, (uint32_t)cnt, &m,
		    sizeof(m), out, (size_t)cnt * item);
	}
	free(out);
	free(maps);
	free(cpu);
	return r;
}

/* One domain of the listing: its INV_DOMAIN, its texts, its vCPUs. */
static int
send_domain(struct worker *k, uint32_t seq, const struct vp_dom_info *info,
    const struct vp_msg_refresh *rq)
{
	struct vp_msg_domain dm = {
		.info = *info, .policy_err = -EAGAIN, .nova_err = -EAGAIN,
		.cputune_err = -EAGAIN,
	};
	char *pol = NULL, *nova = NULL;
	int r;

	if (info->err == 0) {
		dm.policy_err = domain_policy_read(k->w->virt, info->uuid,
		    true, &pol);
		dm.policy_err = text_err(dm.policy_err, pol);
		if (rq->what & VP_READ_NOVA) {
			dm.nova_err = domain_nova_read(k->w->virt, info->uuid,
			    &nova);
			dm.nova_err = text_err(dm.nova_err, nova);
		}
		if (rq->what & VP_READ_CPUTUNE)
			dm.cputune_err = domain_cputune(k->w->virt,
			    info->uuid, &dm.tune);
	}
	r = send_msg(k, VP_MSG_INV_DOMAIN, seq, 0, &dm, sizeof(dm), NULL, 0);
	if (r == 0 && dm.policy_err == 0)
		r = send_text(k, seq, info->uuid, VP_TEXT_POLICY, 0, pol);
	if (r == 0 && dm.nova_err == 0)
		r = send_text(k, seq, info->uuid, VP_TEXT_NOVA, 0, nova);
	if (r == 0 && info->err == 0 && (rq->what & VP_READ_AFFINITY))
		r = send_vcpus(k, seq, info, rq->maplen);
	free(pol);
	free(nova);
	return r;
}

/* A read's end: its INV_END, after any loss it saw is said. */
static int
end_read(struct worker *k, uint32_t seq, int r)
{
	note_lost(k, seq);
	return r == 0 ? send_end(k, seq, 0) : r;
}

static int
do_refresh(struct worker *k, uint32_t seq, const struct vp_msg_refresh *rq)
{
	struct vp_dom_info *infos = NULL;
	struct vp_msg_begin b;
	int n, i, r;

	if ((r = connect_now(k, seq)) < 0)
		return send_end(k, seq, r);
	n = virt_list_running(k->w->virt, &infos);
	if (n < 0) {
		note_lost(k, seq);
		return send_end(k, seq, n);
	}
	b = (struct vp_msg_begin){ .ndomains = (uint32_t)n };
	r = send_msg(k, VP_MSG_INV_BEGIN, seq, 0, &b, sizeof(b), NULL, 0);
	for (i = 0; r == 0 && i < n; i++)
		r = send_domain(k, seq, &infos[i], rq);
	free(infos);
	return end_read(k, seq, r);
}

static int
do_reread(struct worker *k, uint32_t seq, const unsigned char *uuids,
    uint32_t n)
{
	uint32_t i;
	int r = 0, e;
	char *pol;

	if (!virt_connected(k->w->virt))
		return send_end(k, seq, -ENOTCONN);
	for (i = 0; r == 0 && i < n; i++) {
		pol = NULL;
		e = domain_policy_read(k->w->virt, uuids + i * VP_UUID_LEN,
		    true, &pol);
		e = text_err(e, pol);
		r = send_text(k, seq, uuids + i * VP_UUID_LEN, VP_TEXT_POLICY,
		    e, pol);
		free(pol);
	}
	return end_read(k, seq, r);
}

static int
do_apply(struct worker *k, uint32_t seq, const unsigned char *body,
    uint32_t n)
{
	struct vp_msg_result *res = calloc(n, sizeof(*res));
	const unsigned char *p = body + sizeof(struct vp_msg_maps);
	bool up = virt_connected(k->w->virt);
	struct vp_msg_maps m;
	struct vp_msg_pin pin;
	uint32_t i;
	int r;

	if (!res)
		return -ENOMEM;
	memcpy(&m, body, sizeof(m));
	for (i = 0; i < n; i++, p += sizeof(pin) + m.maplen) {
		enum vp_apply a = VP_APPLY_RETRY;

		memcpy(&pin, p, sizeof(pin));
		if (up && pin.vcpu >= 0)
			a = domain_pin_vcpu_map(k->w->virt, pin.uuid, pin.vcpu,
			    p + sizeof(pin), (int)m.maplen);
		else if (up)
			a = domain_pin_emulator_map(k->w->virt, pin.uuid,
			    p + sizeof(pin), (int)m.maplen);
		res[i].id = pin.id;
		res[i].result = (int32_t)a;
		if (a != VP_APPLY_APPLIED)
			copy_why(res[i].why, !up ? "not connected to libvirt" :
			    virt_error_or("empty CPU set"));
	}
	note_lost(k, seq);
	r = send_msg(k, VP_MSG_APPLY_RESULT, seq, n, NULL, 0, res,
	    n * sizeof(*res));
	free(res);
	return r;
}

static int
do_policy(struct worker *k, uint32_t seq, const unsigned char *body)
{
	struct vp_msg_result res = { .result = -ENOTCONN };
	struct vp_msg_policy pw;
	unsigned int where = 0;

	memcpy(&pw, body, sizeof(pw));
	res.id = pw.id;
	if (virt_connected(k->w->virt)) {
		res.result = domain_policy_write(k->w->virt, pw.uuid,
		    (const char *)body + sizeof(pw), &where);
		res.where = where;
	}
	if (res.result < 0)
		copy_why(res.why, res.result == -ENOTCONN ? "not connected "
		    "to libvirt" : virt_error_or(strerror(-res.result)));
	note_lost(k, seq);
	return send_msg(k, VP_MSG_APPLY_RESULT, seq, 1, NULL, 0, &res,
	    sizeof(res));
}

/* Runs one request; 1 after STOP, -errno when the channel failed. */
static int
serve(struct worker *k)
{
	const unsigned char *body = k->buf + sizeof(struct vp_msg_hdr);
	struct vp_msg_refresh rq;
	struct vp_msg_hdr h;
	ssize_t got = virt_msg_recv(k->w->fd, k->buf, VP_MSG_TO_WORKER, 0);

	if (got == -EBADMSG)
		return 0;	/* the loop's bug: dropped, never run */
	if (got <= 0)
		return got == 0 ? -EPIPE : (int)got;
	memcpy(&h, k->buf, sizeof(h));
	switch (h.type) {
	case VP_MSG_REFRESH:
		memcpy(&rq, body, sizeof(rq));
		return do_refresh(k, h.seq, &rq);
	case VP_MSG_REREAD:
		return do_reread(k, h.seq, body, h.n);
	case VP_MSG_APPLY:
		return do_apply(k, h.seq, body, h.n);
	case VP_MSG_POLICY_WRITE:
		return do_policy(k, h.seq, body);
	case VP_MSG_STOP:
		virt_close(k->w->virt);
		(void)send_msg(k, VP_MSG_BYE, h.seq, 0, NULL, 0, NULL, 0);
		return 1;
	default:
		return 0;	/* virt_msg_check() lets no other through */
	}
}

static void *
worker_main(void *arg)
{
	struct worker k = { .w = arg };

	atomic_store(&k.w->privs_err, privs_keep_only(NULL));
	k.buf = malloc(VP_MSG_MAX);
	while (k.buf && serve(&k) == 0)
		;
	/* after STOP, or the loop gone: nothing may stay open */
	virt_close(k.w->virt);
	free(k.buf);
	return NULL;
}

static void
set_buffers(int fd)
{
	int sz = CHANNEL_BUF;

	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

int
virt_worker_start(struct vp_virt_worker *w, struct vp_virt *virt,
    const char *uri, int *ret_fd)
{
	sigset_t all, old;
	int sv[2], r;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	set_buffers(sv[0]);
	set_buffers(sv[1]);
	if (fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK) < 0) {
		r = -errno;
		close(sv[0]);
		close(sv[1]);
		return r;
	}
	*w = (struct vp_virt_worker){ .virt = virt, .uri = uri, .fd = sv[1],
	    .privs_err = 1 };
	/* every signal is the loop's (main.c): the worker takes none */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = -pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0) {
		close(sv[0]);
		close(sv[1]);
		w->fd = -1;
		return r;
	}
	w->running = true;
	*ret_fd = sv[0];
	return 0;
}

void
virt_worker_join(struct vp_virt_worker *w)
{
	if (!w->running)
		return;
	pthread_join(w->thread, NULL);
	close(w->fd);
	w->fd = -1;
	w->running = false;
}
