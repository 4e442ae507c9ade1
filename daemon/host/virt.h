/*
 * virt.h - the connection to libvirt: open, close, and the events that
 * tell the daemon to look again.  Callbacks run on libvirt's event thread
 * and only set the atomic flags below and write to an eventfd, which the
 * loop thread polls (virt_wake_fd()) to run an event round at once
 * instead of waiting for the tick.
 *
 * Like every adapter it never logs: failures come back as -errno, and
 * virt_error() gives libvirt's own words for the one log line the caller
 * writes.
 */
#ifndef VP_VIRT_H
#define VP_VIRT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libvirt/libvirt.h>

/* Domains whose metadata changed, kept until the loop takes them. */
#define VP_VIRT_MD_MAX	32

/* One connection.  Initialise it with VP_VIRT_INIT. */
struct vp_virt {
	virConnectPtr conn;	/* owned; NULL when closed */
	atomic_bool lost;	/* libvirt closed it (libvirtd went away) */
	atomic_bool dirty;	/* a domain started, stopped or changed */
	int cb_lifecycle, cb_metadata;
	int wake_fd;		/* eventfd: readable after an event; -1 none */
	/* monotonic ns of the oldest event not yet taken, 0 none */
	_Atomic uint64_t event_ns;
	atomic_ulong events;	/* events received, for the metrics */
	/*
	 * Metadata events matter only for an element in one of these
	 * namespaces (NULL-terminated; set before virt_open()); title and
	 * description edits and other namespaces are counted here and
	 * dropped, since any VM owner can make them at will.
	 */
	const char *const *watch_ns;
	atomic_ulong events_ignored;
	/*
	 * A watched metadata change re-reads only its own domain: the
	 * UUIDs wait here (under md_lock: written on libvirt's thread),
	 * deduplicated; when more than VP_VIRT_MD_MAX wait, the whole
	 * inventory is marked dirty instead.
	 */
	pthread_mutex_t md_lock;
	unsigned char md_uuid[VP_VIRT_MD_MAX][VIR_UUID_BUFLEN];
	int md_n;
};
#define VP_VIRT_INIT	{ .conn = NULL, .cb_lifecycle = -1, \
	.cb_metadata = -1, .wake_fd = -1, \
	.md_lock = PTHREAD_MUTEX_INITIALIZER }

/*
 * Once per process, before the first virt_open(): libvirt's default
 * event loop on a thread of its own, and libvirt's default error
 * printing turned off (the caller logs what matters).
 */
int virt_events_start(void);
/*
 * The event thread drops every capability before its first event: 0 once
 * it has, -errno if it could not, 1 while it has not started yet.
 */
int virt_events_privs(void);

/*
 * The eventfd a domain event makes readable, created on first use (the
 * loop polls it beside the socket); -1 when it cannot be had (the tick
 * then still sees the dirty flag).  Closed by virt_wake_close().
 */
int virt_wake_fd(struct vp_virt *v);
/* Empties the eventfd; true when an event had made it readable. */
bool virt_wake_take(struct vp_virt *v);
void virt_wake_close(struct vp_virt *v);
/*
 * Takes the receive time (monotonic ns) of the oldest event since the
 * last call, 0 when none came: the start of the placement latency.
 */
uint64_t virt_event_take(struct vp_virt *v);
/*
 * The inventory must be read again because of something seen at @t
 * (monotonic ns), the start of its placement latency: what a domain
 * event does, for news from elsewhere (a vCPU thread appeared).  No
 * wake-up: the caller runs on the loop.
 */
void virt_mark_dirty(struct vp_virt *v, uint64_t t);

/*
 * Moves the UUIDs of the domains whose watched metadata changed since
 * the last call into @ret (room for VP_VIRT_MD_MAX) and returns how
 * many.  Their event time is taken by virt_event_take() as any event's.
 */
int virt_metadata_take(struct vp_virt *v,
    unsigned char ret[][VIR_UUID_BUFLEN]);

/*
 * Connects to @uri and registers for lifecycle and metadata events.
 * Returns 0 with v->dirty set (the inventory must be read), or
 * -ECONNREFUSED (virt_error() says why).
 */
int virt_open(struct vp_virt *v, const char *uri);
/* Deregisters and closes; accepts a closed connection. */
void virt_close(struct vp_virt *v);
/* Open and not reported lost by libvirt. */
bool virt_connected(const struct vp_virt *v);

/*
 * The running domains, *ret_doms malloc'd (each one owned by the caller,
 * virDomainFree() them, then free() the array).  -EIO when the list
 * cannot be had: the connection is then marked lost.
 */
int virt_list_running(struct vp_virt *v, virDomainPtr **ret_doms);

/* libvirt's message for the last failed call on this thread. */
const char *virt_error(void);
/* The same, or @fallback when the last failure was not libvirt's. */
const char *virt_error_or(const char *fallback);

#endif /* VP_VIRT_H */
