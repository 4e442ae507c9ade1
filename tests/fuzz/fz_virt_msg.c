/*
 * fz_virt_msg.c - virt_msg_check() and virt_msg_recv() (host/virt_msg.c):
 * the decoder of every datagram between the loop and the libvirt worker
 * thread (doc/libvirt-worker.md), for both sides.  The sender is our own
 * other thread, but a bug there (a wrong n, a map length the items do not
 * have) must end as -EBADMSG, never as a read past the datagram.
 *
 * The input is one datagram.  For each side (VP_MSG_TO_WORKER,
 * VP_MSG_TO_LOOP) the properties are:
 *   - a rejection is -EBADMSG;
 *   - an accepted datagram is read whole as its receiver reads it
 *     (daemon/vcpuplaced/libvirt.c, daemon/host/virt_worker.c): the
 *     header, the fixed part, every item with its map, the text, out of
 *     a copy exactly @size bytes long, so that ASan sees any byte read
 *     past it;
 *   - what was accepted meets virt_msg.h's contract, restated here from
 *     the header rather than from virt_msg.c's table: the header's len is
 *     the datagram's, the type travels toward that side, n within the
 *     type's range, maps of 1..VP_MSG_MAPLEN_MAX bytes, a text ends at
 *     its only NUL, name and word fields hold a NUL;
 *   - no datagram is taken by both sides;
 *   - through a real SOCK_SEQPACKET pair, virt_msg_recv() gives the same
 *     verdict, and an accepted datagram re-encoded from its parts by
 *     virt_msg_send() arrives byte for byte.
 *
 * FZ_VIRT_MSG_SEEDS=DIR build/fuzz/fz_virt_msg writes the committed seed
 * corpus (corpus/virt_msg/) into DIR and exits: one message of each type
 * as virt_msg_send() encodes it, so the seeds follow the structs.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/virt_msg.h"
#include "fuzz.h"

#define HDR	sizeof(struct vp_msg_hdr)

/* the socket pair: [0] sends, [1] receives */
static int sp[2] = { -1, -1 };
static unsigned char rbuf[VP_MSG_MAX];
/* every byte the walk reads goes here, so none of the reads is dropped */
static volatile unsigned int sink;

static void
touch(const unsigned char *p, size_t n)
{
	unsigned int sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += p[i];
	sink += sum;
}

static int
nul_in(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

/* A text of @n bytes whose last byte is its only NUL. */
static int
text_ok(const unsigned char *t, uint32_t n)
{
	return n >= 1 && memchr(t, '\0', n) == t + n - 1;
}

/* Items of @item bytes, each followed by a map: @n of them after @fixed. */
static void
walk_maps(const unsigned char *body, size_t fixed, size_t item, uint32_t n,
    size_t left)
{
	struct vp_msg_maps m;
	uint32_t i;

	memcpy(&m, body, sizeof(m));
	FZ_CHECK(m.maplen >= 1 && m.maplen <= VP_MSG_MAPLEN_MAX,
	    "maplen %u taken", m.maplen);
	FZ_CHECK(left == fixed + (size_t)n * (item + m.maplen),
	    "%zu bytes for %u items of %zu + %u", left, n, item, m.maplen);
	for (i = 0; i < n; i++)
		touch(body + fixed + (size_t)i * (item + m.maplen),
		    item + m.maplen);
}

/*
 * The accepted datagram @p of @size bytes, read as its receiver reads it,
 * against virt_msg.h's contract.
 */
static void
walk(const unsigned char *p, size_t size, enum vp_msg_dir dir)
{
	const unsigned char *body = p + HDR;
	size_t left = size - HDR;
	struct vp_msg_refresh rq;
	struct vp_msg_state st;
	struct vp_msg_domain dm;
	struct vp_msg_text tx;
	struct vp_msg_result res;
	struct vp_msg_hdr h;
	uint32_t i;

	FZ_CHECK(size >= HDR && size <= VP_MSG_MAX, "%zu bytes taken", size);
	memcpy(&h, p, sizeof(h));
	FZ_CHECK(h.len == size, "len %u for a %zu-byte datagram", h.len, size);
	FZ_CHECK((dir == VP_MSG_TO_WORKER) == (h.type >= VP_MSG_REFRESH &&
	    h.type <= VP_MSG_STOP), "type %u taken by side %d", h.type, dir);
	switch (h.type) {
	case VP_MSG_REFRESH:
		FZ_CHECK(h.n == 0 && left == sizeof(rq), "REFRESH n %u", h.n);
		memcpy(&rq, body, sizeof(rq));
		FZ_CHECK(rq.maplen >= 1 && rq.maplen <= VP_MSG_MAPLEN_MAX,
		    "REFRESH maplen %u", rq.maplen);
		break;
	case VP_MSG_REREAD:
		FZ_CHECK(h.n >= 1 && h.n <= VP_VIRT_MD_MAX &&
		    left == (size_t)h.n * VP_UUID_LEN, "REREAD n %u", h.n);
		touch(body, left);
		break;
	case VP_MSG_APPLY:
		FZ_CHECK(h.n >= 1 && h.n <= VP_MSG_PINS_MAX, "APPLY n %u", h.n);
		walk_maps(body, sizeof(struct vp_msg_maps),
		    sizeof(struct vp_msg_pin), h.n, left);
		break;
	case VP_MSG_POLICY_WRITE:
		FZ_CHECK(left == sizeof(struct vp_msg_policy) + h.n &&
		    h.n <= VP_MSG_TEXT_CUT + 1, "POLICY_WRITE n %u", h.n);
		touch(body, sizeof(struct vp_msg_policy));
		FZ_CHECK(text_ok(body + sizeof(struct vp_msg_policy), h.n),
		    "POLICY_WRITE text not ended at its only NUL");
		break;
	case VP_MSG_STOP:
	case VP_MSG_BYE:
		FZ_CHECK(h.n == 0 && left == 0, "type %u: n %u, %zu bytes",
		    h.type, h.n, left);
		break;
	case VP_MSG_STATE:
		FZ_CHECK(h.n == 0 && left == sizeof(st), "STATE n %u", h.n);
		memcpy(&st, body, sizeof(st));
		FZ_CHECK(nul_in(st.why, sizeof(st.why)), "STATE why unended");
		break;
	case VP_MSG_INV_BEGIN:
	case VP_MSG_INV_END:
		FZ_CHECK(h.n == 0 && left == (h.type == VP_MSG_INV_BEGIN ?
		    sizeof(struct vp_msg_begin) : sizeof(struct vp_msg_end)),
		    "type %u: n %u, %zu bytes", h.type, h.n, left);
		touch(body, left);
		break;
	case VP_MSG_INV_DOMAIN:
		FZ_CHECK(h.n == 0 && left == sizeof(dm), "INV_DOMAIN n %u", h.n);
		memcpy(&dm, body, sizeof(dm));
		FZ_CHECK(nul_in(dm.info.name, sizeof(dm.info.name)) &&
		    nul_in(dm.info.uuid_str, sizeof(dm.info.uuid_str)),
		    "INV_DOMAIN name or uuid_str unended");
		FZ_CHECK(dm.info.nvcpus >= 0, "nvcpus %d", dm.info.nvcpus);
		break;
	case VP_MSG_INV_TEXT:
		FZ_CHECK(left == sizeof(tx) + h.n && h.n <= VP_MSG_TEXT_CUT + 1,
		    "INV_TEXT n %u, %zu bytes", h.n, left);
		memcpy(&tx, body, sizeof(tx));
		FZ_CHECK(tx.kind == VP_TEXT_POLICY || tx.kind == VP_TEXT_NOVA,
		    "INV_TEXT kind %u", tx.kind);
		FZ_CHECK((tx.err != 0) == (h.n == 0), "INV_TEXT err %d, n %u",
		    tx.err, h.n);
		FZ_CHECK(h.n == 0 || text_ok(body + sizeof(tx), h.n),
		    "INV_TEXT text not ended at its only NUL");
		break;
	case VP_MSG_INV_VCPUS:
		FZ_CHECK(h.n <= VP_MSG_VCPUS_MAX, "INV_VCPUS n %u", h.n);
		walk_maps(body, sizeof(struct vp_msg_maps),
		    sizeof(struct vp_msg_vcpu), h.n, left);
		break;
	case VP_MSG_APPLY_RESULT:
		FZ_CHECK(h.n >= 1 && h.n <= VP_MSG_PINS_MAX &&
		    left == (size_t)h.n * sizeof(res), "APPLY_RESULT n %u", h.n);
		for (i = 0; i < h.n; i++) {
			memcpy(&res, body + (size_t)i * sizeof(res), sizeof(res));
			FZ_CHECK(nul_in(res.why, sizeof(res.why)),
			    "APPLY_RESULT %u: why unended", i);
		}
		break;
	default:
		FZ_CHECK(0, "unknown type %u taken", h.type);
	}
}

/* @data sent as it is: virt_msg_recv() must say what the check said. */
static void
through_socket(const uint8_t *data, size_t size, enum vp_msg_dir dir,
    int verdict)
{
	struct vp_msg_hdr h;
	ssize_t r;

	/* an empty datagram reads as the peer's close (recv() 0) */
	if (size == 0 || size > VP_MSG_MAX)
		return;
	FZ_CHECK(send(sp[0], data, size, MSG_DONTWAIT) == (ssize_t)size,
	    "send: %s", strerror(errno));
	r = virt_msg_recv(sp[1], rbuf, dir, 1);
	FZ_CHECK(r == (verdict == 0 ? (ssize_t)size : -EBADMSG),
	    "virt_msg_recv() %zd, virt_msg_check() %d", r, verdict);
	if (verdict < 0)
		return;
	FZ_CHECK(!memcmp(rbuf, data, size), "received other bytes");
	/* re-encoded from its parts: the same bytes */
	memcpy(&h, data, sizeof(h));
	FZ_CHECK(virt_msg_send(sp[0], h.type, h.seq, h.n, h.flags, data + HDR,
	    size - HDR, NULL, 0, 1) == 0, "virt_msg_send() failed");
	r = virt_msg_recv(sp[1], rbuf, dir, 1);
	FZ_CHECK(r == (ssize_t)size && !memcmp(rbuf, data, size),
	    "re-encoded: %zd bytes, or other bytes", r);
}

static void
seed(const char *dir, const char *name, unsigned int type, uint32_t n,
    const void *fixed, size_t fixed_len, const void *tail, size_t tail_len)
{
	char path[4096];
	ssize_t r;
	int fd;

	if (virt_msg_send(sp[0], type, 7, n, 0, fixed, fixed_len, tail,
	    tail_len, 1) < 0)
		abort();
	r = virt_msg_recv(sp[1], rbuf, type <= VP_MSG_STOP ?
	    VP_MSG_TO_WORKER : VP_MSG_TO_LOOP, 1);
	FZ_CHECK(r > 0, "seed %s: virt_msg_recv() %zd", name, r);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, rbuf, (size_t)r) != r || close(fd) < 0)
		abort();
}

/*
 * A malformed one, a byte or a field from valid, which both sides must
 * refuse: seeds the random search cannot easily reach (a 200-byte field
 * with no NUL, a map length one over).
 */
static void
bad_seed(const char *dir, const char *name, unsigned int type, uint32_t n,
    const void *fixed, size_t fixed_len, const void *tail, size_t tail_len)
{
	struct vp_msg_hdr h = { .type = (uint16_t)type, .seq = 7, .n = n };
	char path[4096];
	size_t len = HDR + fixed_len + tail_len;
	int fd;

	h.len = (uint32_t)len;
	memcpy(rbuf, &h, HDR);
	if (fixed_len)
		memcpy(rbuf + HDR, fixed, fixed_len);
	if (tail_len)
		memcpy(rbuf + HDR + fixed_len, tail, tail_len);
	FZ_CHECK(virt_msg_check(rbuf, len, VP_MSG_TO_WORKER) == -EBADMSG &&
	    virt_msg_check(rbuf, len, VP_MSG_TO_LOOP) == -EBADMSG,
	    "bad seed %s taken", name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, rbuf, len) != (ssize_t)len || close(fd) < 0)
		abort();
}

/*
 * One of each type with believable fields, a few at their limits (the
 * largest text, a 64-byte map for a 512-CPU host), then malformed ones
 * (bad_seed).
 */
static void
write_seeds(const char *dir)
{
	static unsigned char big[VP_MSG_TEXT_CUT + 1];
	static const char xml[] = "<vp:policy xmlns:vp=\"urn:vcpuplace:"
	    "policy:1\" profile=\"latency\"/>";
	static const unsigned char uuids[2][VP_UUID_LEN] = { { 0x5f, 1 },
	    { 0x5f, 2 } };
	struct vp_msg_refresh rq = { .what = VP_READ_NOVA | VP_READ_CPUTUNE |
	    VP_READ_AFFINITY, .maplen = 1 };
	struct vp_msg_maps m = { .maplen = 1 };
	struct vp_msg_policy pol = { .id = 3 };
	struct vp_msg_state st = { .connected = 0, .err = -ECONNREFUSED,
	    .why = "Failed to connect socket" };
	struct vp_msg_begin b = { .ndomains = 2 };
	struct vp_msg_domain dm = { .info = { .name = "vptest-latency",
	    .uuid_str = "5f010000-0000-0000-0000-000000000000", .nvcpus = 2 },
	    .nova_err = -EAGAIN, .tune = { .quota_us = -1,
	    .period_us = 100000 } };
	struct vp_msg_text tx = { .kind = VP_TEXT_POLICY };
	struct vp_msg_end e = { .err = 0 };
	struct vp_msg_result res[2] = { { .id = 1 }, { .id = 2, .result = -5,
	    .why = "Requested operation is not valid" } };
	unsigned char pins[2 * (sizeof(struct vp_msg_pin) + 64)];
	unsigned char vcpus[2 * (sizeof(struct vp_msg_vcpu) + 1)];
	struct vp_msg_pin pin = { .id = 1, .vcpu = 0 };
	struct vp_msg_vcpu vc = { .cpu = 3 };

	memset(big, 'x', sizeof(big) - 1);
	seed(dir, "refresh", VP_MSG_REFRESH, 0, &rq, sizeof(rq), NULL, 0);
	seed(dir, "reread", VP_MSG_REREAD, 2, NULL, 0, uuids, sizeof(uuids));
	m.maplen = 64;
	memcpy(pin.uuid, uuids[0], VP_UUID_LEN);
	memcpy(pins, &pin, sizeof(pin));
	memset(pins + sizeof(pin), 0, 64);
	pins[sizeof(pin)] = 0x0c;
	pin.id = 2;
	pin.vcpu = VP_MSG_EMULATOR;
	memcpy(pins + sizeof(pin) + 64, &pin, sizeof(pin));
	memset(pins + 2 * sizeof(pin) + 64, 0xff, 64);
	seed(dir, "apply", VP_MSG_APPLY, 2, &m, sizeof(m), pins, sizeof(pins));
	memcpy(pol.uuid, uuids[0], VP_UUID_LEN);
	seed(dir, "policy_write", VP_MSG_POLICY_WRITE, sizeof(xml), &pol,
	    sizeof(pol), xml, sizeof(xml));
	seed(dir, "stop", VP_MSG_STOP, 0, NULL, 0, NULL, 0);
	seed(dir, "state", VP_MSG_STATE, 0, &st, sizeof(st), NULL, 0);
	seed(dir, "inv_begin", VP_MSG_INV_BEGIN, 0, &b, sizeof(b), NULL, 0);
	memcpy(dm.info.uuid, uuids[0], VP_UUID_LEN);
	seed(dir, "inv_domain", VP_MSG_INV_DOMAIN, 0, &dm, sizeof(dm), NULL,
	    0);
	memcpy(tx.uuid, uuids[0], VP_UUID_LEN);
	seed(dir, "inv_text", VP_MSG_INV_TEXT, sizeof(xml), &tx, sizeof(tx),
	    xml, sizeof(xml));
	seed(dir, "inv_text_cut", VP_MSG_INV_TEXT, sizeof(big), &tx,
	    sizeof(tx), big, sizeof(big));
	tx.kind = VP_TEXT_NOVA;
	tx.err = -ENODATA;
	seed(dir, "inv_text_none", VP_MSG_INV_TEXT, 0, &tx, sizeof(tx), NULL,
	    0);
	m.maplen = 1;
	memcpy(m.uuid, uuids[0], VP_UUID_LEN);
	memcpy(vcpus, &vc, sizeof(vc));
	vcpus[sizeof(vc)] = 0x0f;
	vc.cpu = -1;
	memcpy(vcpus + sizeof(vc) + 1, &vc, sizeof(vc));
	vcpus[2 * sizeof(vc) + 1] = 0x0f;
	seed(dir, "inv_vcpus", VP_MSG_INV_VCPUS, 2, &m, sizeof(m), vcpus,
	    sizeof(vcpus));
	seed(dir, "inv_end", VP_MSG_INV_END, 0, &e, sizeof(e), NULL, 0);
	seed(dir, "apply_result", VP_MSG_APPLY_RESULT, 2, NULL, 0, res,
	    sizeof(res));
	seed(dir, "bye", VP_MSG_BYE, 0, NULL, 0, NULL, 0);

	memset(st.why, 'x', sizeof(st.why));
	bad_seed(dir, "bad_state_why", VP_MSG_STATE, 0, &st, sizeof(st), NULL,
	    0);
	memset(dm.info.name, 'v', sizeof(dm.info.name));
	bad_seed(dir, "bad_domain_name", VP_MSG_INV_DOMAIN, 0, &dm,
	    sizeof(dm), NULL, 0);
	memset(res[1].why, 'w', sizeof(res[1].why));
	bad_seed(dir, "bad_result_why", VP_MSG_APPLY_RESULT, 2, NULL, 0, res,
	    sizeof(res));
	/* 65-byte maps, the items sized to match */
	m.maplen = VP_MSG_MAPLEN_MAX + 1;
	bad_seed(dir, "bad_apply_maplen", VP_MSG_APPLY, 1, &m, sizeof(m),
	    big, sizeof(struct vp_msg_pin) + VP_MSG_MAPLEN_MAX + 1);
	/* a header alone where a fixed part must follow */
	bad_seed(dir, "bad_state_short", VP_MSG_STATE, 0, NULL, 0, NULL, 0);
	bad_seed(dir, "bad_apply_short", VP_MSG_APPLY, 1, NULL, 0, NULL, 0);
	/* n one item more than the bytes hold */
	m.maplen = 1;
	bad_seed(dir, "bad_vcpus_n", VP_MSG_INV_VCPUS, 3, &m, sizeof(m), vcpus,
	    sizeof(vcpus));
	/* a NUL inside a policy text that ends at one */
	tx.kind = VP_TEXT_POLICY;
	tx.err = 0;
	big[10] = '\0';
	big[63] = '\0';
	bad_seed(dir, "bad_text_nul", VP_MSG_INV_TEXT, 64, &tx, sizeof(tx), big,
	    64);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seeds = getenv("FZ_VIRT_MSG_SEEDS");

	(void)argc;
	(void)argv;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
		abort();
	if (seeds && *seeds) {
		write_seeds(seeds);
		exit(0);
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int to_worker = virt_msg_check(data, size, VP_MSG_TO_WORKER);
	int to_loop = virt_msg_check(data, size, VP_MSG_TO_LOOP);

	FZ_CHECK(to_worker == 0 || to_worker == -EBADMSG, "returned %d",
	    to_worker);
	FZ_CHECK(to_loop == 0 || to_loop == -EBADMSG, "returned %d", to_loop);
	FZ_CHECK(to_worker < 0 || to_loop < 0, "taken by both sides");
	if (to_worker == 0)
		walk(data, size, VP_MSG_TO_WORKER);
	if (to_loop == 0)
		walk(data, size, VP_MSG_TO_LOOP);
	through_socket(data, size, VP_MSG_TO_WORKER, to_worker);
	through_socket(data, size, VP_MSG_TO_LOOP, to_loop);
	return 0;
}
