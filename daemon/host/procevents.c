/* procevents.c - see procevents.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/filter.h>
#include <linux/netlink.h>

#include "host/procevents.h"

/* One PROC_CN_MCAST_LISTEN or _IGNORE request to the connector. */
static int
send_op(int fd, enum proc_cn_mcast_op op)
{
	/* cn_msg ends in a flexible array: the request is laid out by hand */
	unsigned char req[NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(op))];
	struct nlmsghdr nh = { .nlmsg_len = sizeof(req),
	    .nlmsg_type = NLMSG_DONE };
	struct cn_msg cm = { .id = { .idx = CN_IDX_PROC, .val = CN_VAL_PROC },
	    .len = sizeof(op) };

	memset(req, 0, sizeof(req));
	memcpy(req, &nh, sizeof(nh));
	memcpy(req + NLMSG_HDRLEN, &cm, sizeof(cm));
	memcpy(req + NLMSG_HDRLEN + sizeof(cm), &op, sizeof(op));
	return send(fd, req, sizeof(req), 0) < 0 ? -errno : 0;
}

/* Where the filter looks, from the start of the datagram. */
#define OFF_CN		NLMSG_HDRLEN
#define OFF_EV		(OFF_CN + sizeof(struct cn_msg))
#define OFF_WHAT	(OFF_EV + offsetof(struct proc_event, what))
#define OFF_TGID	(OFF_EV + offsetof(struct proc_event, \
	event_data.comm.process_tgid))
#define OFF_COMM	(OFF_EV + offsetof(struct proc_event, \
	event_data.comm.comm))
/* "CPU N/KVM": N of 1 to 4 digits puts the '/' at comm[5] to comm[8] */
#define SLASH_FIRST	5
#define SLASH_LAST	8
/* the name test, its drop, and the tgid test's load and drop */
#define NAME_LEN	(8 + 3 * (SLASH_LAST - SLASH_FIRST + 1))
#define FILTER_MAX	(NAME_LEN + 3 + 2 * PROCEV_FILTER_TGIDS_MAX + 1)

/*
 * Text as BPF_LD|BPF_ABS loads it: the bytes in network order.  A field
 * the kernel wrote in host order compares with htonl() of its value.
 */
static uint32_t
text4(const char *s)
{
	return (uint32_t)(unsigned char)s[0] << 24 |
	    (uint32_t)(unsigned char)s[1] << 16 |
	    (uint32_t)(unsigned char)s[2] << 8 | (unsigned char)s[3];
}

/*
 * The program: the name test (jumps go to DROP, just past it, or to
 * TGIDS), then DROP, then TGIDS: one JEQ per known tgid, each followed
 * by its own RET keep, so that no jump spans more than the 255
 * instructions a classic BPF jump can reach whatever the list's length.
 */
int
procev_attach_filter(int fd, const int *tgids, int ntgids)
{
	static struct sock_filter f[FILTER_MAX];
	struct sock_fprog prog = { .filter = f };
	const int drop = NAME_LEN, pids = NAME_LEN + 1;
	int n = 0, k;

	if (ntgids > PROCEV_FILTER_TGIDS_MAX)
		return -E2BIG;
#define LD(off)	f[n] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | \
	BPF_ABS, (off)), n++
#define NEED(v)	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | \
	BPF_K, (v), 0, drop - n - 1), n++
#define TAKE(v)	f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | \
	BPF_K, (v), pids - n - 1, 0), n++
#define RET(v)	f[n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, (v)), n++
	LD(OFF_CN + offsetof(struct cn_msg, id.idx));
	NEED(htonl(CN_IDX_PROC));
	LD(OFF_CN + offsetof(struct cn_msg, id.val));
	NEED(htonl(CN_VAL_PROC));
	LD(OFF_WHAT);
	NEED(htonl(PROC_EVENT_COMM));
	LD(OFF_COMM);
	NEED(text4("CPU "));
	for (k = SLASH_FIRST; k <= SLASH_LAST; k++) {
		LD(OFF_COMM + k);
		TAKE(text4("/KVM"));
		TAKE(text4("/TCG"));
	}
	RET(0);		/* drop */
	if (ntgids < 0) {
		RET(0xffffffff);	/* any process's vCPU name */
	} else {
		LD(OFF_TGID);
		for (k = 0; k < ntgids; k++) {
			f[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
			    BPF_K, htonl((uint32_t)tgids[k]), 0, 1);
			n++;
			RET(0xffffffff);
		}
		RET(0);
	}
#undef LD
#undef NEED
#undef TAKE
#undef RET
	prog.len = (unsigned short)n;
	/* replaces the socket's filter at once, nothing queued is lost */
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
	    sizeof(prog)) < 0 ? -errno : 0;
}

int
procev_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
	    .nl_groups = CN_IDX_PROC };
	int fd, r;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    NETLINK_CONNECTOR);
	if (fd < 0)
		return -errno;
	/* nl_pid 0: the kernel picks a unique port (two daemons in tests) */
	/* the filter before the subscription: no event it drops is queued */
	if ((r = procev_attach_filter(fd, NULL, -1)) == 0 &&
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		r = -errno;
	if (r == 0)
		r = send_op(fd, PROC_CN_MCAST_LISTEN);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

void
procev_close(int fd)
{
	if (fd < 0)
		return;
	send_op(fd, PROC_CN_MCAST_IGNORE);	/* the kernel counts listeners */
	close(fd);
}

/*
 * One connector message's payload at @p, @len bytes, copied out (a
 * datagram's bytes need not be aligned for the structs).
 */
static int
parse_proc(const unsigned char *p, size_t len, struct vp_procev *ret)
{
	struct proc_event ev;
	size_t head = offsetof(struct proc_event, event_data);

	if (len < head)
		return 0;
	memset(&ev, 0, sizeof(ev));
	memcpy(&ev, p, len < sizeof(ev) ? len : sizeof(ev));
	switch (ev.what) {
	case PROC_EVENT_COMM:
		if (len < head + sizeof(ev.event_data.comm))
			return 0;
		ret->kind = VP_PROCEV_COMM;
		ret->tgid = (int)ev.event_data.comm.process_tgid;
		ret->tid = (int)ev.event_data.comm.process_pid;
		memcpy(ret->comm, ev.event_data.comm.comm, 16);
		ret->comm[16] = '\0';
		return 1;
	case PROC_EVENT_EXIT:
		if (len < head + offsetof(struct exit_proc_event, exit_code))
			return 0;
		ret->kind = VP_PROCEV_EXIT;
		ret->tgid = (int)ev.event_data.exit.process_tgid;
		ret->tid = (int)ev.event_data.exit.process_pid;
		ret->comm[0] = '\0';
		return 1;
	default:
		return 0;
	}
}

bool
procev_from_kernel(const struct sockaddr_nl *from, socklen_t len)
{
	return len >= sizeof(*from) && from->nl_family == AF_NETLINK &&
	    from->nl_pid == 0;
}

int
procev_parse(const void *buf, size_t len, struct vp_procev *ret, int max,
    unsigned long *ret_seen)
{
	const unsigned char *p = buf;
	int n = 0;

	while (len >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr nh;
		struct cn_msg cm;
		size_t step;

		memcpy(&nh, p, sizeof(nh));
		if (nh.nlmsg_len < sizeof(nh) || nh.nlmsg_len > len)
			break;		/* truncated or lying: stop here */
		step = NLMSG_ALIGN(nh.nlmsg_len);
		if (nh.nlmsg_len >= NLMSG_LENGTH(sizeof(cm)) &&
		    nh.nlmsg_type == NLMSG_DONE) {
			memcpy(&cm, p + NLMSG_HDRLEN, sizeof(cm));
			if (cm.id.idx == CN_IDX_PROC &&
			    cm.id.val == CN_VAL_PROC && cm.len <=
			    nh.nlmsg_len - NLMSG_LENGTH(sizeof(cm))) {
				(*ret_seen)++;
				if (n < max && parse_proc(p + NLMSG_HDRLEN +
				    sizeof(cm), cm.len, &ret[n]))
					n++;
			}
		}
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return n;
}

int
procev_read(int fd, struct vp_procev *ret, int max, unsigned long *ret_seen)
{
	/* aligned for the kernel's copy; a datagram is one or a few events */
	union {
		struct nlmsghdr nh;
		unsigned char b[4096];
	} buf;
	int n = 0;

	while (n < max) {
		struct sockaddr_nl from;
		socklen_t flen = sizeof(from);
		ssize_t len = recvfrom(fd, buf.b, sizeof(buf.b), MSG_DONTWAIT,
		    (struct sockaddr *)&from, &flen);

		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			return -errno;	/* ENOBUFS: the kernel dropped some */
		}
		if (len == 0)
			break;
		if (!procev_from_kernel(&from, flen))
			continue;	/* a local process's forgery */
		n += procev_parse(buf.b, (size_t)len, ret + n, max - n,
		    ret_seen);
	}
	return n;
}
