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
 *
 * Only the libvirt adapter (virt.c, domain.c, domxml.c, policy_xml.c)
 * holds libvirt's types: the service and the CLI name a domain by its
 * UUID and never see a connection or a domain handle (tools/layering.sh
 * holds them to it), so this header includes no libvirt header.
 * host/virt_link.h is the adapter's own side.
 */
#ifndef VP_VIRT_H
#define VP_VIRT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/vcpuplace.h"

/* libvirt's sizes of a UUID, raw and as text (virt.c checks them) */
#define VP_UUID_LEN		16
#define VP_UUID_STRING_LEN	37

/* Domains whose metadata changed, kept until the loop takes them. */
#define VP_VIRT_MD_MAX	32

/*
 * The libvirt side of an open connection: libvirt's handle, the event
 * callbacks and the domain handles looked up on it (virt_link.h).
 */
struct virt_link;

/* One connection.  Initialise it with VP_VIRT_INIT. */
struct vp_virt {
	struct virt_link *link;	/* owned; NULL when closed */
	atomic_bool lost;	/* libvirt closed it (libvirtd went away) */
	atomic_bool dirty;	/* a domain started, stopped or changed */
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
	unsigned char md_uuid[VP_VIRT_MD_MAX][VP_UUID_LEN];
	int md_n;
};
#define VP_VIRT_INIT	{ .link = NULL, .wake_fd = -1, \
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
 * event does, for news from elsewhere (a vCPU thread appeared).  @t 0:
 * nothing to time (a pin found the domain gone, a policy was written).
 * No wake-up: the caller runs on the loop.
 */
void virt_mark_dirty(struct vp_virt *v, uint64_t t);
/* Whether the inventory must be read again. */
bool virt_dirty(const struct vp_virt *v);
/*
 * A refresh starts: from now on an event marks it dirty again.  Call it
 * before virt_event_take() and the listing, so no event falls between.
 */
void virt_clear_dirty(struct vp_virt *v);

/*
 * Moves the UUIDs of the domains whose watched metadata changed since
 * the last call into @ret (room for VP_VIRT_MD_MAX) and returns how
 * many.  Their event time is taken by virt_event_take() as any event's.
 */
int virt_metadata_take(struct vp_virt *v, unsigned char ret[][VP_UUID_LEN]);

/*
 * Connects to @uri and registers for lifecycle and metadata events.
 * Returns 0 with v->dirty set (the inventory must be read),
 * -ECONNREFUSED (virt_error() says why) or -ENOMEM.
 */
int virt_open(struct vp_virt *v, const char *uri);
/*
 * A connection with no events, for one command (vcpuplacectl policy):
 * read-only when @read_only.  0, -ECONNREFUSED (virt_error() says why)
 * or -ENOMEM.  Closed by virt_close().
 */
int virt_open_once(struct vp_virt *v, const char *uri, bool read_only);
/* Deregisters and closes; accepts a closed connection. */
void virt_close(struct vp_virt *v);
/* Open and not reported lost by libvirt. */
bool virt_connected(const struct vp_virt *v);
/* Open, but reported lost by libvirt: to be closed and opened again. */
bool virt_lost(const struct vp_virt *v);

/* One running domain, as virt_list_running() found it. */
struct vp_dom_info {
	/*
	 * 0; -ENOENT when the domain went meanwhile; -ENAMETOOLONG (uuid
	 * filled, name not) when its name does not fit name[]: a truncated
	 * name could be another VM's.  Only an entry at 0 is complete.
	 */
	int err;
	char name[256];
	unsigned char uuid[VP_UUID_LEN];
	char uuid_str[VP_UUID_STRING_LEN];	/* lower-case, libvirt's text */
	int nvcpus;		/* live, >= 1 */
};

/*
 * The running domains, *ret_infos malloc'd (the caller frees it), in
 * libvirt's order.  Their handles stay with the connection until the
 * next listing or virt_close(), so that the domain_*() calls
 * (host/domain.h) on these UUIDs cost no lookup.  -EIO when the list
 * cannot be had: the connection is then marked lost; -ENOMEM.
 */
int virt_list_running(struct vp_virt *v, struct vp_dom_info **ret_infos)
	VP_MUST_CHECK;

/*
 * The domain named @name_or_uuid (its name, else its UUID as text),
 * running or only defined: 0 with its UUID in @ret_uuid, for the
 * domain_*() calls; -ENOENT when there is none.
 */
int virt_lookup(struct vp_virt *v, const char *name_or_uuid,
    unsigned char ret_uuid[VP_UUID_LEN]) VP_MUST_CHECK;

/* libvirt's message for the last failed call on this thread. */
const char *virt_error(void);
/* The same, or @fallback when the last failure was not libvirt's. */
const char *virt_error_or(const char *fallback);

#endif /* VP_VIRT_H */
