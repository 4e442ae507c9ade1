/*
 * test_virt_msg.c - the size checks of the libvirt worker's messages
 * (virt_msg.c): each type at its exact size passes, and through a real
 * SOCK_SEQPACKET pair round-trips; one byte short or long, an unknown
 * type, n one over its maximum, an unterminated text or name, and a
 * message in the wrong direction are each -EBADMSG.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <check.h>

#include "host/virt_msg.h"
#include "../suites.h"

/* A message built by hand: header, fixed part, tail. */
static size_t
build(unsigned char *buf, unsigned int type, uint32_t n, const void *fixed,
    size_t fixed_len, const void *tail, size_t tail_len)
{
	struct vp_msg_hdr h = { .type = (uint16_t)type, .seq = 7, .n = n };

	h.len = (uint32_t)(sizeof(h) + fixed_len + tail_len);
	memcpy(buf, &h, sizeof(h));
	if (fixed_len)
		memcpy(buf + sizeof(h), fixed, fixed_len);
	if (tail_len)
		memcpy(buf + sizeof(h) + fixed_len, tail, tail_len);
	return h.len;
}

/* Rewrites the header's len, as a sender that lies about it would. */
static void
set_len(unsigned char *buf, size_t len)
{
	struct vp_msg_hdr h;

	memcpy(&h, buf, sizeof(h));
	h.len = (uint32_t)len;
	memcpy(buf, &h, sizeof(h));
}

static unsigned char *
msgbuf(void)
{
	unsigned char *b = calloc(1, VP_MSG_MAX + 64);

	ck_assert_ptr_nonnull(b);
	return b;
}

START_TEST(test_good_ones_pass)
{
	struct vp_msg_refresh rq = { .what = VP_READ_AFFINITY, .maplen = 1 };
	struct vp_msg_end e = { .err = -EIO };
	struct vp_msg_state st = { .connected = 1 };
	struct vp_msg_domain dm = { .policy_err = -ENODATA };
	struct vp_msg_text t = { .kind = VP_TEXT_POLICY };
	unsigned char uuids[2][VP_UUID_LEN] = { { 1 }, { 2 } };
	unsigned char *b = msgbuf();
	size_t len;

	len = build(b, VP_MSG_REFRESH, 0, &rq, sizeof(rq), NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), 0);
	len = build(b, VP_MSG_REREAD, 2, NULL, 0, uuids, sizeof(uuids));
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), 0);
	len = build(b, VP_MSG_STOP, 0, NULL, 0, NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), 0);
	len = build(b, VP_MSG_INV_END, 0, &e, sizeof(e), NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), 0);
	len = build(b, VP_MSG_STATE, 0, &st, sizeof(st), NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), 0);
	snprintf(dm.info.name, sizeof(dm.info.name), "vm");
	len = build(b, VP_MSG_INV_DOMAIN, 0, &dm, sizeof(dm), NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), 0);
	len = build(b, VP_MSG_INV_TEXT, 4, &t, sizeof(t), "<a/>", 5);
	ck_assert_int_eq(virt_msg_check(b, len - 1, VP_MSG_TO_LOOP),
	    -EBADMSG);	/* (len says one more) */
	len = build(b, VP_MSG_INV_TEXT, 5, &t, sizeof(t), "<a/>", 5);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), 0);
	free(b);
}
END_TEST

/* An APPLY of @n pins with maps of @maplen bytes, into @b. */
static size_t
apply_msg(unsigned char *b, uint32_t n, uint32_t maplen)
{
	struct vp_msg_maps m = { .maplen = maplen };
	size_t item = sizeof(struct vp_msg_pin) + maplen;
	unsigned char *tail = calloc(n ? n : 1, item);
	uint32_t i;
	size_t len;

	ck_assert_ptr_nonnull(tail);
	for (i = 0; maplen && i < n; i++)
		tail[i * item + sizeof(struct vp_msg_pin)] = 1;	/* CPU 0 */
	len = build(b, VP_MSG_APPLY, n, &m, sizeof(m), tail, n * item);
	free(tail);
	return len;
}

START_TEST(test_wrong_length)
{
	struct vp_msg_end e = { 0 };
	unsigned char *b = msgbuf();
	size_t len;

	/* a fixed type one byte short or long, len saying so or not */
	len = build(b, VP_MSG_INV_END, 0, &e, sizeof(e), NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len - 1, VP_MSG_TO_LOOP),
	    -EBADMSG);
	/* the right size, but a header that says another */
	set_len(b, len + 1);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	set_len(b, len - 1);
	ck_assert_int_eq(virt_msg_check(b, len - 1, VP_MSG_TO_LOOP),
	    -EBADMSG);
	set_len(b, len + 1);
	ck_assert_int_eq(virt_msg_check(b, len + 1, VP_MSG_TO_LOOP),
	    -EBADMSG);
	/* an array: n items, not n and a byte, not n less a byte */
	len = apply_msg(b, 3, 2);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), 0);
	set_len(b, len + 1);
	ck_assert_int_eq(virt_msg_check(b, len + 1, VP_MSG_TO_WORKER),
	    -EBADMSG);
	set_len(b, len - 1);
	ck_assert_int_eq(virt_msg_check(b, len - 1, VP_MSG_TO_WORKER),
	    -EBADMSG);
	/* shorter than a header; longer than any datagram */
	ck_assert_int_eq(virt_msg_check(b, 3, VP_MSG_TO_WORKER), -EBADMSG);
	ck_assert_int_eq(virt_msg_check(b, VP_MSG_MAX + 1, VP_MSG_TO_WORKER),
	    -EBADMSG);
	/* a map length of 0 or past the largest host */
	len = apply_msg(b, 1, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), -EBADMSG);
	len = apply_msg(b, 1, VP_MSG_MAPLEN_MAX + 1);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), -EBADMSG);
	free(b);
}
END_TEST

START_TEST(test_unknown_type_and_direction)
{
	struct vp_msg_end e = { 0 };
	unsigned char *b = msgbuf();
	size_t len;

	len = build(b, 0, 0, NULL, 0, NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	len = build(b, VP_MSG_NTYPES, 0, NULL, 0, NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), -EBADMSG);
	len = build(b, 0xffff, 0, NULL, 0, NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	/* an answer sent to the worker, a request sent to the loop */
	len = build(b, VP_MSG_INV_END, 0, &e, sizeof(e), NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), -EBADMSG);
	len = build(b, VP_MSG_STOP, 0, NULL, 0, NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	ck_assert_str_eq(virt_msg_name(VP_MSG_APPLY), "APPLY");
	ck_assert_str_eq(virt_msg_name(999), "unknown");
	free(b);
}
END_TEST

START_TEST(test_n_over_maximum)
{
	unsigned char uuids[VP_VIRT_MD_MAX + 1][VP_UUID_LEN];
	struct vp_msg_result *res = calloc(VP_MSG_PINS_MAX + 1, sizeof(*res));
	unsigned char *b = msgbuf();
	size_t len;

	ck_assert_ptr_nonnull(res);
	memset(uuids, 0, sizeof(uuids));
	len = build(b, VP_MSG_REREAD, VP_VIRT_MD_MAX, NULL, 0, uuids,
	    VP_VIRT_MD_MAX * VP_UUID_LEN);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), 0);
	len = build(b, VP_MSG_REREAD, VP_VIRT_MD_MAX + 1, NULL, 0, uuids,
	    sizeof(uuids));
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), -EBADMSG);
	/* and none where at least one is due */
	len = build(b, VP_MSG_REREAD, 0, NULL, 0, NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), -EBADMSG);
	len = build(b, VP_MSG_APPLY_RESULT, VP_MSG_PINS_MAX, NULL, 0, res,
	    VP_MSG_PINS_MAX * sizeof(*res));
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), 0);
	len = build(b, VP_MSG_APPLY_RESULT, VP_MSG_PINS_MAX + 1, NULL, 0, res,
	    (VP_MSG_PINS_MAX + 1) * sizeof(*res));
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	len = apply_msg(b, VP_MSG_PINS_MAX + 1, 1);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), -EBADMSG);
	free(res);
	free(b);
}
END_TEST

START_TEST(test_unterminated_text)
{
	struct vp_msg_text t = { .kind = VP_TEXT_NOVA };
	struct vp_msg_policy pw = { .id = 1 };
	struct vp_msg_state st = { .connected = 0 };
	struct vp_msg_domain dm = { .policy_err = -ENODATA };
	struct vp_msg_result res = { .id = 1 };
	unsigned char *b = msgbuf();
	size_t len;

	/* a text's last byte is its NUL, and its only one */
	len = build(b, VP_MSG_INV_TEXT, 4, &t, sizeof(t), "<ab>", 4);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	len = build(b, VP_MSG_INV_TEXT, 5, &t, sizeof(t), "<a\0b", 5);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	len = build(b, VP_MSG_POLICY_WRITE, 3, &pw, sizeof(pw), "abc", 3);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), -EBADMSG);
	len = build(b, VP_MSG_POLICY_WRITE, 4, &pw, sizeof(pw), "abc", 4);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), 0);
	/* a text with an error, or none without one */
	t.err = -EIO;
	len = build(b, VP_MSG_INV_TEXT, 4, &t, sizeof(t), "abc", 4);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	t.err = 0;
	len = build(b, VP_MSG_INV_TEXT, 0, &t, sizeof(t), NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	/* a text past the bound: one byte past its cut, and at it */
	len = build(b, VP_MSG_POLICY_WRITE, VP_MSG_TEXT_CUT + 2, &pw,
	    sizeof(pw), NULL, 0);
	memset(b + len, 'x', VP_MSG_TEXT_CUT + 1);
	b[len + VP_MSG_TEXT_CUT + 1] = '\0';
	len += VP_MSG_TEXT_CUT + 2;
	set_len(b, len);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), -EBADMSG);
	len = build(b, VP_MSG_POLICY_WRITE, VP_MSG_TEXT_CUT + 1, &pw,
	    sizeof(pw), NULL, 0);
	memset(b + len, 'x', VP_MSG_TEXT_CUT);
	b[len + VP_MSG_TEXT_CUT] = '\0';
	len += VP_MSG_TEXT_CUT + 1;
	set_len(b, len);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_WORKER), 0);
	/* fixed name fields: no NUL in them */
	memset(st.why, 'x', sizeof(st.why));
	len = build(b, VP_MSG_STATE, 0, &st, sizeof(st), NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	memset(dm.info.name, 'x', sizeof(dm.info.name));
	len = build(b, VP_MSG_INV_DOMAIN, 0, &dm, sizeof(dm), NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	dm.info.name[0] = '\0';
	memset(dm.info.uuid_str, 'x', sizeof(dm.info.uuid_str));
	len = build(b, VP_MSG_INV_DOMAIN, 0, &dm, sizeof(dm), NULL, 0);
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	memset(res.why, 'x', sizeof(res.why));
	len = build(b, VP_MSG_APPLY_RESULT, 1, NULL, 0, &res, sizeof(res));
	ck_assert_int_eq(virt_msg_check(b, len, VP_MSG_TO_LOOP), -EBADMSG);
	free(b);
}
END_TEST

/* Through a real socket pair: sent, received whole, checked. */
START_TEST(test_round_trip)
{
	struct vp_msg_text t = { .kind = VP_TEXT_POLICY, .uuid = { 9 } };
	struct vp_msg_end e = { .err = -ENOENT };
	unsigned char *b = msgbuf();
	struct vp_msg_hdr h;
	struct vp_msg_text got;
	int sv[2];
	ssize_t r;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	ck_assert_int_eq(virt_msg_send(sv[0], VP_MSG_INV_TEXT, 42, 6, 0, &t,
	    sizeof(t), "<p/>x", 6, 0), 0);
	r = virt_msg_recv(sv[1], b, VP_MSG_TO_LOOP, 1);
	ck_assert_int_eq(r, (ssize_t)(sizeof(h) + sizeof(t) + 6));
	memcpy(&h, b, sizeof(h));
	memcpy(&got, b + sizeof(h), sizeof(got));
	ck_assert_uint_eq(h.type, VP_MSG_INV_TEXT);
	ck_assert_uint_eq(h.seq, 42);
	ck_assert_uint_eq(h.n, 6);
	ck_assert_uint_eq(got.uuid[0], 9);
	ck_assert_str_eq((char *)b + sizeof(h) + sizeof(t), "<p/>x");
	/* the same datagram the other way is refused */
	ck_assert_int_eq(virt_msg_send(sv[1], VP_MSG_INV_TEXT, 43, 6, 0, &t,
	    sizeof(t), "<p/>x", 6, 0), 0);
	ck_assert_int_eq(virt_msg_recv(sv[0], b, VP_MSG_TO_WORKER, 1),
	    -EBADMSG);
	ck_assert_int_eq(virt_msg_recv(sv[0], b, VP_MSG_TO_WORKER, 1),
	    -EAGAIN);
	ck_assert_int_eq(virt_msg_send(sv[1], VP_MSG_INV_END, 44, 0, 0, &e,
	    sizeof(e), NULL, 0, 0), 0);
	ck_assert_int_eq(virt_msg_recv(sv[0], b, VP_MSG_TO_WORKER, 1),
	    -EBADMSG);
	/* nothing waiting: -EAGAIN, never a wait */
	ck_assert_int_eq(virt_msg_recv(sv[0], b, VP_MSG_TO_WORKER, 1),
	    -EAGAIN);
	/* over the largest datagram: never sent */
	ck_assert_int_eq(virt_msg_send(sv[0], VP_MSG_POLICY_WRITE, 1, 1, 0,
	    NULL, 0, b, VP_MSG_MAX, 1), -EMSGSIZE);
	/* the other end gone: 0 */
	close(sv[1]);
	ck_assert_int_eq(virt_msg_recv(sv[0], b, VP_MSG_TO_WORKER, 1), 0);
	close(sv[0]);
	free(b);
}
END_TEST

Suite *
virt_msg_suite(void)
{
	Suite *s = suite_create("virt_msg");
	TCase *tc = tcase_create("checks");

	tcase_add_test(tc, test_good_ones_pass);
	tcase_add_test(tc, test_wrong_length);
	tcase_add_test(tc, test_unknown_type_and_direction);
	tcase_add_test(tc, test_n_over_maximum);
	tcase_add_test(tc, test_unterminated_text);
	tcase_add_test(tc, test_round_trip);
	suite_add_tcase(s, tc);
	return s;
}
