/*
 * procevents.h - the kernel's process events (the proc connector,
 * NETLINK_CONNECTOR / CN_IDX_PROC): a thread renamed (PROC_EVENT_COMM)
 * and a process gone (PROC_EVENT_EXIT).  QEMU names a hot-plugged vCPU's
 * thread "CPU N/TCG" or "CPU N/KVM" the moment it creates it, and
 * libvirt 9.0 sends no domain event for a `setvcpus --live`: this is
 * how the daemon hears of the new vCPU at once.
 *
 * Needs CAP_NET_ADMIN and CONFIG_PROC_EVENTS; without them procev_open()
 * fails and the caller falls back to its periodic refresh.  Like every
 * adapter it never logs: failures come back as -errno.
 */
#ifndef VP_PROCEVENTS_H
#define VP_PROCEVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include <linux/netlink.h>

enum vp_procev_kind {
	VP_PROCEV_COMM = 1,	/* thread tid of process tgid renamed */
	VP_PROCEV_EXIT,		/* a thread exited (tid == tgid: process) */
};

struct vp_procev {
	enum vp_procev_kind kind;
	int tgid, tid;
	char comm[17];		/* COMM only: the new name, NUL-ended */
};

/*
 * A non-blocking, close-on-exec socket subscribed to process events;
 * its fd, or -errno (-EPERM without CAP_NET_ADMIN, -EPROTONOSUPPORT or
 * -ENOENT without the connector).
 */
int procev_open(void);

/*
 * Attaches to @fd a classic BPF filter (as udev and systemd filter their
 * netlink sockets): only PROC_EVENT_COMM of a thread named "CPU N/KVM"
 * or "CPU N/TCG", QEMU's vCPU threads, of one of the @ntgids processes
 * @tgids, reaches the daemon (@ntgids < 0: of any process, as
 * procev_open() starts; 0: none).  Any other rename, fork or exit of
 * any local user, a thread of theirs named like a vCPU's included, is
 * dropped by the kernel before it is queued, so it can neither wake the
 * daemon nor overrun the socket.  Replaces the filter attached before.
 * 0, -E2BIG past PROCEV_FILTER_TGIDS_MAX, or -errno.  For tests, on any
 * socket.  Not thread-safe (one static program buffer).
 */
#define PROCEV_FILTER_TGIDS_MAX	1024
int procev_attach_filter(int fd, const int *tgids, int ntgids);
/* True when @from (@len bytes) is the kernel (nl_pid 0), not a process. */
bool procev_from_kernel(const struct sockaddr_nl *from, socklen_t len);
void procev_close(int fd);

/*
 * Reads what is pending on @fd without blocking, parses it into up to
 * @max events at @ret (events past @max are dropped, and counted in
 * *ret_seen like every event read).  Returns how many were stored, or
 * -ENOBUFS when the kernel dropped events (the socket buffer overran:
 * the caller must assume it missed something), or another -errno.
 */
int procev_read(int fd, struct vp_procev *ret, int max,
    unsigned long *ret_seen);

/*
 * The parser behind it, pure, for tests and fuzzing (tests/fuzz/): the
 * netlink datagram @buf of @len bytes.  COMM and EXIT events go to
 * @ret (up to @max); other events, other connectors' messages and
 * truncated ones are skipped.  *ret_seen is incremented per proc event
 * of any kind.  Returns how many were stored.
 */
int procev_parse(const void *buf, size_t len, struct vp_procev *ret,
    int max, unsigned long *ret_seen);

#endif /* VP_PROCEVENTS_H */
