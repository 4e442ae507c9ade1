/*
 * virt_msg.c - see virt_msg.h.  Every size check lives in one table,
 * one row per type, read by virt_msg_check().
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "host/virt_msg.h"

/* How an array's item is sized. */
enum item_kind {
	ITEM_NONE,	/* no items: n is 0 */
	ITEM_FIXED,	/* n items of .item bytes */
	ITEM_MAP,	/* n items of .item bytes plus the maplen of fixed */
	ITEM_TEXT,	/* n bytes of text, its NUL included */
};

struct msg_shape {
	const char *name;
	enum vp_msg_dir dir;
	size_t fixed;		/* bytes after the header */
	enum item_kind kind;
	size_t item;
	uint32_t nmin, nmax;
};

static const struct msg_shape shapes[VP_MSG_NTYPES] = {
	[VP_MSG_REFRESH] = { "REFRESH", VP_MSG_TO_WORKER,
	    sizeof(struct vp_msg_refresh), ITEM_NONE, 0, 0, 0 },
	[VP_MSG_REREAD] = { "REREAD", VP_MSG_TO_WORKER, 0, ITEM_FIXED,
	    VP_UUID_LEN, 1, VP_VIRT_MD_MAX },
	[VP_MSG_APPLY] = { "APPLY", VP_MSG_TO_WORKER,
	    sizeof(struct vp_msg_maps), ITEM_MAP, sizeof(struct vp_msg_pin),
	    1, VP_MSG_PINS_MAX },
	[VP_MSG_POLICY_WRITE] = { "POLICY_WRITE", VP_MSG_TO_WORKER,
	    sizeof(struct vp_msg_policy), ITEM_TEXT, 1, 1,
	    VP_MSG_TEXT_CUT + 1 },
	[VP_MSG_STOP] = { "STOP", VP_MSG_TO_WORKER, 0, ITEM_NONE, 0, 0, 0 },
	[VP_MSG_STATE] = { "STATE", VP_MSG_TO_LOOP,
	    sizeof(struct vp_msg_state), ITEM_NONE, 0, 0, 0 },
	[VP_MSG_INV_BEGIN] = { "INV_BEGIN", VP_MSG_TO_LOOP,
	    sizeof(struct vp_msg_begin), ITEM_NONE, 0, 0, 0 },
	[VP_MSG_INV_DOMAIN] = { "INV_DOMAIN", VP_MSG_TO_LOOP,
	    sizeof(struct vp_msg_domain), ITEM_NONE, 0, 0, 0 },
	[VP_MSG_INV_TEXT] = { "INV_TEXT", VP_MSG_TO_LOOP,
	    sizeof(struct vp_msg_text), ITEM_TEXT, 1, 0,
	    VP_MSG_TEXT_CUT + 1 },
	[VP_MSG_INV_VCPUS] = { "INV_VCPUS", VP_MSG_TO_LOOP,
	    sizeof(struct vp_msg_maps), ITEM_MAP, sizeof(struct vp_msg_vcpu),
	    0, VP_MSG_VCPUS_MAX },
	[VP_MSG_INV_END] = { "INV_END", VP_MSG_TO_LOOP,
	    sizeof(struct vp_msg_end), ITEM_NONE, 0, 0, 0 },
	[VP_MSG_APPLY_RESULT] = { "APPLY_RESULT", VP_MSG_TO_LOOP, 0,
	    ITEM_FIXED, sizeof(struct vp_msg_result), 1, VP_MSG_PINS_MAX },
	[VP_MSG_BYE] = { "BYE", VP_MSG_TO_LOOP, 0, ITEM_NONE, 0, 0, 0 },
};

const char *
virt_msg_name(unsigned int type)
{
	return type < VP_MSG_NTYPES && shapes[type].name ?
	    shapes[type].name : "unknown";
}

/* A fixed field of @size bytes must hold a NUL. */
static bool
has_nul(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

/* The fixed fields that carry names or words: each must be terminated. */
static int
check_fields(unsigned int type, const unsigned char *body, uint32_t n)
{
	struct vp_msg_state st;
	struct vp_msg_domain dm;
	struct vp_msg_result res;
	uint32_t i;

	switch (type) {
	case VP_MSG_STATE:
		memcpy(&st, body, sizeof(st));
		return has_nul(st.why, sizeof(st.why)) ? 0 : -EBADMSG;
	case VP_MSG_INV_DOMAIN:
		memcpy(&dm, body, sizeof(dm));
		return has_nul(dm.info.name, sizeof(dm.info.name)) &&
		    has_nul(dm.info.uuid_str, sizeof(dm.info.uuid_str)) &&
		    dm.info.nvcpus >= 0 ? 0 : -EBADMSG;
	case VP_MSG_APPLY_RESULT:
		for (i = 0; i < n; i++) {
			memcpy(&res, body + i * sizeof(res), sizeof(res));
			if (!has_nul(res.why, sizeof(res.why)))
				return -EBADMSG;
		}
		return 0;
	default:
		return 0;
	}
}

/* A text of @n bytes: its last one its only NUL; and INV_TEXT's err. */
static int
check_text(unsigned int type, const unsigned char *fixed,
    const unsigned char *text, uint32_t n)
{
	struct vp_msg_text t;

	if (type == VP_MSG_INV_TEXT) {
		memcpy(&t, fixed, sizeof(t));
		if ((t.err != 0) != (n == 0) ||
		    (t.kind != VP_TEXT_POLICY && t.kind != VP_TEXT_NOVA))
			return -EBADMSG;
		if (n == 0)
			return 0;
	}
	if (n == 0 || text[n - 1] != '\0' || memchr(text, '\0', n) !=
	    text + n - 1)
		return -EBADMSG;
	return 0;
}

int
virt_msg_check(const void *buf, size_t len, enum vp_msg_dir dir)
{
	const unsigned char *p = buf;
	const struct msg_shape *s;
	struct vp_msg_hdr h;
	struct vp_msg_maps m;
	size_t item, want;

	if (len < sizeof(h) || len > VP_MSG_MAX)
		return -EBADMSG;
	memcpy(&h, p, sizeof(h));
	if (h.type == 0 || h.type >= VP_MSG_NTYPES || h.len != len)
		return -EBADMSG;
	s = &shapes[h.type];
	if (s->dir != dir || h.n < s->nmin || h.n > s->nmax ||
	    len < sizeof(h) + s->fixed)
		return -EBADMSG;
	item = s->item;
	if (s->kind == ITEM_MAP) {
		memcpy(&m, p + sizeof(h), sizeof(m));
		if (m.maplen < 1 || m.maplen > VP_MSG_MAPLEN_MAX)
			return -EBADMSG;
		item += m.maplen;
	}
	want = sizeof(h) + s->fixed + (size_t)h.n * item;
	if (len != want)
		return -EBADMSG;
	if (h.type == VP_MSG_REFRESH) {
		struct vp_msg_refresh r;

		memcpy(&r, p + sizeof(h), sizeof(r));
		if (r.maplen < 1 || r.maplen > VP_MSG_MAPLEN_MAX)
			return -EBADMSG;
	}
	if (s->kind == ITEM_TEXT && check_text(h.type, p + sizeof(h),
	    p + sizeof(h) + s->fixed, h.n) < 0)
		return -EBADMSG;
	return check_fields(h.type, p + sizeof(h), h.n);
}

int
virt_msg_send(int fd, unsigned int type, uint32_t seq, uint32_t n,
    uint16_t flags, const void *fixed, size_t fixed_len, const void *tail,
    size_t tail_len, int dontwait)
{
	struct vp_msg_hdr h = {
		.type = (uint16_t)type, .flags = flags, .seq = seq, .n = n,
	};
	struct iovec iov[3] = {
		{ .iov_base = &h, .iov_len = sizeof(h) },
		{ .iov_base = (void *)fixed, .iov_len = fixed_len },
		{ .iov_base = (void *)tail, .iov_len = tail_len },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 3 };
	size_t len = sizeof(h) + fixed_len + tail_len;
	ssize_t r;

	if (len > VP_MSG_MAX)
		return -EMSGSIZE;
	h.len = (uint32_t)len;
	do
		r = sendmsg(fd, &mh, MSG_NOSIGNAL |
		    (dontwait ? MSG_DONTWAIT : 0));
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return (size_t)r == len ? 0 : -EIO;
}

ssize_t
virt_msg_recv(int fd, void *buf, enum vp_msg_dir dir, int dontwait)
{
	ssize_t r;

	do
		r = recv(fd, buf, VP_MSG_MAX, MSG_TRUNC |
		    (dontwait ? MSG_DONTWAIT : 0));
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (r == 0)
		return 0;
	/* MSG_TRUNC: the datagram's real length, even past the buffer */
	if (virt_msg_check(buf, (size_t)r, dir) < 0)
		return -EBADMSG;
	return r;
}
