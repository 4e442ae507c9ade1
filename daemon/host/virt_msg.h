/*
 * virt_msg.h - the messages between the loop and the libvirt worker
 * (doc/libvirt-worker.md): a fixed header, then plain data, nothing that
 * points into the sender's memory, one message per datagram of a
 * SOCK_SEQPACKET socket pair.  Both sides compile this header, as both
 * sides of the BPF maps compile daemon/scx/vcpuplace_scx.h.
 *
 * A received datagram is taken only when virt_msg_check() passes it:
 * its type is known and travels in that direction, its length is the
 * type's exact size (a fixed part, plus @n items of the type's size, with
 * @n at most the type's maximum), a text holds its terminating NUL and
 * nothing after it, and a fixed name field holds a NUL.  Anything else
 * is -EBADMSG.
 *
 * CPU sets cross in libvirt's OS-numbered bitmaps (@maplen bytes each,
 * VIR_CPU_MAPLEN): the worker needs no topology, and the loop converts
 * (host/domain.h, domain_map_*).
 *
 * Never logs.
 */
#ifndef VP_VIRT_MSG_H
#define VP_VIRT_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host/cputune.h"
#include "host/virt.h"

enum vp_msg_type {
	/* loop to worker */
	VP_MSG_REFRESH = 1,	/* struct vp_msg_refresh */
	VP_MSG_REREAD,		/* n UUIDs (VP_UUID_LEN each) */
	VP_MSG_APPLY,		/* struct vp_msg_maps, n vp_msg_pin + map */
	VP_MSG_POLICY_WRITE,	/* struct vp_msg_policy, n bytes of text */
	VP_MSG_STOP,		/* nothing */
	/* worker to loop */
	VP_MSG_STATE,		/* struct vp_msg_state */
	VP_MSG_INV_BEGIN,	/* struct vp_msg_begin */
	VP_MSG_INV_DOMAIN,	/* struct vp_msg_domain */
	VP_MSG_INV_TEXT,	/* struct vp_msg_text, n bytes of text */
	VP_MSG_INV_VCPUS,	/* struct vp_msg_vcpus, n vp_msg_vcpu + map */
	VP_MSG_INV_END,		/* struct vp_msg_end */
	VP_MSG_APPLY_RESULT,	/* n struct vp_msg_result */
	VP_MSG_BYE,		/* nothing */
	VP_MSG_NTYPES
};

/* Who sends a message: virt_msg_check() takes it only from that side. */
enum vp_msg_dir { VP_MSG_TO_WORKER, VP_MSG_TO_LOOP };

/* @flags: the worker saw the libvirt connection lost during the request */
#define VP_MSG_F_LOST	1u

struct vp_msg_hdr {
	uint16_t type;		/* VP_MSG_* */
	uint16_t flags;		/* VP_MSG_F_* */
	uint32_t len;		/* the whole datagram, header included */
	uint32_t seq;		/* the request it is or answers */
	uint32_t n;		/* items in the array or text, else 0 */
};

/*
 * The largest datagram: a text at its maximum with its header, under
 * the 208 KiB a Unix socket buffers by default (net.core.wmem_default).
 */
#define VP_MSG_TEXT_MAX		(64 * 1024)	/* policy_xml.c's bound */
/*
 * A longer text is cut to this many bytes (and its NUL): still over the
 * bound, so the parser refuses it as too large ("larger than 64 KiB"),
 * as it would the whole.
 */
#define VP_MSG_TEXT_CUT		(VP_MSG_TEXT_MAX + 1)
#define VP_MSG_MAX		(VP_MSG_TEXT_MAX + 1024)
/* bytes of one CPU map: VIR_CPU_MAPLEN(VP_MAX_OS_INDEX) */
#define VP_MSG_MAPLEN_MAX	(VP_MAX_OS_INDEX / 8)
/* pins of one APPLY, and the answers of one APPLY_RESULT */
#define VP_MSG_PINS_MAX		256
/* vCPUs of one INV_VCPUS; more come in further datagrams */
#define VP_MSG_VCPUS_MAX	256
/* libvirt's words in an answer, NUL included */
#define VP_MSG_ERR_LEN		200

/* VP_MSG_REFRESH: what to read besides the list and the policy element */
#define VP_READ_NOVA		1u	/* Nova's element */
#define VP_READ_CPUTUNE		2u	/* <cputune> */
#define VP_READ_AFFINITY	4u	/* live vCPU affinity */
struct vp_msg_refresh {
	uint32_t what;		/* VP_READ_* */
	uint32_t maplen;	/* bytes of a CPU map, 1..VP_MSG_MAPLEN_MAX */
};

/* VP_MSG_APPLY and VP_MSG_INV_VCPUS start with this. */
struct vp_msg_maps {
	uint32_t maplen;	/* bytes of each item's map, 1.. */
	uint32_t first;		/* INV_VCPUS: the first vCPU; APPLY: 0 */
	unsigned char uuid[VP_UUID_LEN];	/* INV_VCPUS: the domain */
	int32_t err;		/* INV_VCPUS: 0 or the read's -errno */
	uint32_t pad;
};

/* One APPLY item, followed by its map (maplen bytes). */
struct vp_msg_pin {
	uint32_t id;		/* the loop's, echoed in the result */
	int32_t vcpu;		/* >= 0; VP_MSG_EMULATOR: the emulator */
	unsigned char uuid[VP_UUID_LEN];
};
#define VP_MSG_EMULATOR	(-1)

/* One INV_VCPUS item, followed by its affinity map (maplen bytes). */
struct vp_msg_vcpu {
	int32_t cpu;		/* OS CPU it last ran on, -1 unknown */
};

struct vp_msg_policy {
	uint32_t id;
	uint32_t pad;
	unsigned char uuid[VP_UUID_LEN];
};

struct vp_msg_state {
	int32_t connected;	/* 1: open and not lost */
	int32_t err;		/* the last open's -errno, 0 */
	uint32_t opens;		/* successful opens so far */
	uint32_t pad;
	char why[VP_MSG_ERR_LEN];	/* libvirt's words for err */
};

struct vp_msg_begin {
	uint32_t ndomains;
	uint32_t pad;
};

struct vp_msg_domain {
	struct vp_dom_info info;
	int32_t policy_err;	/* 0 (an INV_TEXT follows), -ENODATA, ... */
	int32_t nova_err;	/* the same; -EAGAIN: not asked */
	int32_t cputune_err;	/* 0: tune is read; -EAGAIN: not asked */
	int32_t pad;
	struct vp_cputune tune;
};

#define VP_TEXT_POLICY	1u
#define VP_TEXT_NOVA	2u
struct vp_msg_text {
	unsigned char uuid[VP_UUID_LEN];
	uint32_t kind;		/* VP_TEXT_* */
	int32_t err;		/* 0: n bytes of text follow; else n is 0 */
};

struct vp_msg_end {
	int32_t err;		/* 0, or the -errno that cut the read short */
	uint32_t pad;
};

struct vp_msg_result {
	uint32_t id;
	int32_t result;		/* a pin's enum vp_apply; a write's -errno */
	uint32_t where;		/* a write's VP_WROTE_* */
	uint32_t pad;
	char why[VP_MSG_ERR_LEN];	/* libvirt's words, "" none */
};

/* The name of @type, for the one log line; "unknown" when none. */
const char *virt_msg_name(unsigned int type);

/*
 * Whether the @len bytes at @buf are one whole message of a known type
 * that the side @dir receives: 0, or -EBADMSG.
 */
int virt_msg_check(const void *buf, size_t len, enum vp_msg_dir dir)
	VP_MUST_CHECK;

/*
 * Sends one message: the header (its len computed), then @fixed_len
 * bytes of @fixed and @tail_len bytes of @tail (either may be NULL/0).
 * @dontwait: never block (the loop).  0, -EAGAIN when the socket is
 * full, -EMSGSIZE over VP_MSG_MAX, or another -errno.
 */
int virt_msg_send(int fd, unsigned int type, uint32_t seq, uint32_t n,
    uint16_t flags, const void *fixed, size_t fixed_len, const void *tail,
    size_t tail_len, int dontwait) VP_MUST_CHECK;

/*
 * Receives one datagram into @buf (VP_MSG_MAX bytes) and checks it for
 * side @dir: its length, 0 when the other side closed, -EAGAIN (only
 * with @dontwait), -EBADMSG, or another -errno.
 */
ssize_t virt_msg_recv(int fd, void *buf, enum vp_msg_dir dir, int dontwait)
	VP_MUST_CHECK;

#endif /* VP_VIRT_MSG_H */
