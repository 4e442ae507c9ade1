/*
 * virt.c - see virt.h and virt_link.h.  The close callback and the
 * domain events only store into atomics and write to the eventfd: they
 * run on libvirt's event thread, while everything else of the daemon
 * (the domain handles kept here among it) runs on the loop thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <libvirt/virterror.h>

#include "host/clock.h"
#include "host/privs.h"
#include "host/virt_link.h"

_Static_assert(VP_UUID_LEN == VIR_UUID_BUFLEN, "libvirt's UUID size");
_Static_assert(VP_UUID_STRING_LEN == VIR_UUID_STRING_BUFLEN,
    "libvirt's UUID text size");

/* A domain handle the connection keeps, by UUID. */
struct virt_dom {
	unsigned char uuid[VIR_UUID_BUFLEN];
	virDomainPtr dom;	/* owned */
};

struct virt_link {
	virConnectPtr conn;	/* owned */
	int cb_lifecycle, cb_metadata;	/* -1: not registered */
	bool close_cb;		/* on_close() registered */
	/*
	 * The handles of the last listing and of lookups since, so that a
	 * domain_*() call by UUID costs no lookup: replaced by each
	 * listing, freed with the connection.
	 */
	struct virt_dom *dom;	/* [ndom], room for cap */
	int ndom, cap;
};

static void
silent_error(void *opaque, virErrorPtr err)
{
	(void)opaque;
	(void)err;	/* the caller logs once, where it acts on it */
}

/* What the event thread's own capability drop returned (virt.h). */
static atomic_int events_privs_err = 1;

/*
 * The thread only reads libvirtd's socket and runs the callbacks below:
 * it needs no capability, so it holds none from its first step (they
 * are per thread, and it would keep what the loop thread drops later).
 */
static void *
event_loop(void *arg)
{
	(void)arg;
	atomic_store(&events_privs_err, privs_keep_only(NULL));
	for (;;)
		if (virEventRunDefaultImpl() < 0)
			break;
	return NULL;
}

int
virt_events_start(void)
{
	pthread_t th;

	virSetErrorFunc(NULL, silent_error);
	if (virEventRegisterDefaultImpl() < 0)
		return -EIO;
	if (pthread_create(&th, NULL, event_loop, NULL) != 0)
		return -EAGAIN;
	pthread_detach(th);
	return 0;
}

static void
on_close(virConnectPtr conn, int reason, void *opaque)
{
	struct vp_virt *v = opaque;

	(void)conn;
	(void)reason;
	atomic_store(&v->lost, true);
}

int
virt_events_privs(void)
{
	return atomic_load(&events_privs_err);
}

int
virt_wake_fd(struct vp_virt *v)
{
	if (v->wake_fd < 0)
		v->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return v->wake_fd;
}

bool
virt_wake_take(struct vp_virt *v)
{
	uint64_t n = 0;

	if (v->wake_fd < 0)
		return false;
	/* one read empties the counter, however many events wrote to it */
	return read(v->wake_fd, &n, sizeof(n)) == sizeof(n) && n > 0;
}

void
virt_wake_close(struct vp_virt *v)
{
	if (v->wake_fd >= 0)
		close(v->wake_fd);
	v->wake_fd = -1;
}

uint64_t
virt_event_take(struct vp_virt *v)
{
	return atomic_exchange(&v->event_ns, 0);
}

void
virt_mark_dirty(struct vp_virt *v, uint64_t t)
{
	uint64_t zero = 0;

	/* only the oldest time pending is kept: a coalesced round answers
	 * that one last */
	if (t)
		atomic_compare_exchange_strong(&v->event_ns, &zero, t);
	atomic_store(&v->dirty, true);
}

bool
virt_dirty(const struct vp_virt *v)
{
	return atomic_load(&v->dirty);
}

void
virt_clear_dirty(struct vp_virt *v)
{
	atomic_store(&v->dirty, false);
}

static void
wake_loop(struct vp_virt *v)
{
	if (v->wake_fd >= 0) {
		uint64_t one = 1;
		ssize_t r = write(v->wake_fd, &one, sizeof(one));

		(void)r;	/* full (2^64 - 2): the loop is woken anyway */
	}
}

/*
 * A domain event: its time and the flag, then the wake-up, in that
 * order, so that a loop that saw the wake-up also sees the flag.
 */
static void
note_event(struct vp_virt *v)
{
	atomic_fetch_add(&v->events, 1);
	virt_mark_dirty(v, clock_now_ns());
	wake_loop(v);
}

static bool
watched(const struct vp_virt *v, int type, const char *nsuri)
{
	const char *const *ns;

	if (type != VIR_DOMAIN_METADATA_ELEMENT || !nsuri)
		return false;	/* a title or a description */
	for (ns = v->watch_ns; ns && *ns; ns++)
		if (!strcmp(*ns, nsuri))
			return true;
	return false;
}

/* Queues @uuid for a re-read of that domain alone; false when full. */
static bool
queue_metadata(struct vp_virt *v, const unsigned char *uuid)
{
	bool ok = true;
	int i;

	pthread_mutex_lock(&v->md_lock);
	for (i = 0; i < v->md_n; i++)
		if (!memcmp(v->md_uuid[i], uuid, VIR_UUID_BUFLEN))
			break;
	if (i == v->md_n) {
		if (v->md_n < VP_VIRT_MD_MAX)
			memcpy(v->md_uuid[v->md_n++], uuid, VIR_UUID_BUFLEN);
		else
			ok = false;
	}
	pthread_mutex_unlock(&v->md_lock);
	return ok;
}

int
virt_metadata_take(struct vp_virt *v, unsigned char ret[][VP_UUID_LEN])
{
	int n;

	pthread_mutex_lock(&v->md_lock);
	n = v->md_n;
	memcpy(ret, v->md_uuid, (size_t)n * VIR_UUID_BUFLEN);
	v->md_n = 0;
	pthread_mutex_unlock(&v->md_lock);
	return n;
}

static int
on_lifecycle(virConnectPtr conn, virDomainPtr dom, int event, int detail,
    void *opaque)
{
	struct vp_virt *v = opaque;

	(void)conn;
	(void)dom;
	(void)event;
	(void)detail;
	note_event(v);
	return 0;
}

static void
on_metadata(virConnectPtr conn, virDomainPtr dom, int type,
    const char *nsuri, void *opaque)
{
	struct vp_virt *v = opaque;
	unsigned char uuid[VIR_UUID_BUFLEN];
	uint64_t zero = 0;

	(void)conn;
	atomic_fetch_add(&v->events, 1);
	if (!watched(v, type, nsuri)) {
		atomic_fetch_add(&v->events_ignored, 1);
		return;
	}
	/* the time first: a loop that takes the UUID then finds it */
	atomic_compare_exchange_strong(&v->event_ns, &zero, clock_now_ns());
	/* the UUID is the handle's own copy: no call to libvirtd */
	if (virDomainGetUUID(dom, uuid) < 0 || !queue_metadata(v, uuid))
		atomic_store(&v->dirty, true);	/* then read them all */
	wake_loop(v);
}

/* Frees the kept domain handles. */
static void
drop_domains(struct virt_link *l)
{
	int i;

	for (i = 0; i < l->ndom; i++)
		virDomainFree(l->dom[i].dom);
	free(l->dom);
	l->dom = NULL;
	l->ndom = l->cap = 0;
}

/* Keeps @dom (taken: freed here on failure); -ENOMEM. */
static int
keep_domain(struct virt_link *l, virDomainPtr dom)
{
	struct virt_dom *grown;
	int cap;

	if (l->ndom == l->cap) {
		cap = l->cap ? l->cap * 2 : 16;
		grown = realloc(l->dom, (size_t)cap * sizeof(*grown));
		if (!grown) {
			virDomainFree(dom);
			return -ENOMEM;
		}
		l->dom = grown;
		l->cap = cap;
	}
	if (virDomainGetUUID(dom, l->dom[l->ndom].uuid) < 0) {
		virDomainFree(dom);	/* a handle without a UUID: unusable */
		return -ENOENT;
	}
	l->dom[l->ndom++].dom = dom;
	return 0;
}

void
virt_close(struct vp_virt *v)
{
	struct virt_link *l = v->link;

	if (!l)
		return;
	if (l->cb_lifecycle >= 0)
		virConnectDomainEventDeregisterAny(l->conn, l->cb_lifecycle);
	if (l->cb_metadata >= 0)
		virConnectDomainEventDeregisterAny(l->conn, l->cb_metadata);
	if (l->close_cb)
		virConnectUnregisterCloseCallback(l->conn, on_close);
	drop_domains(l);
	virConnectClose(l->conn);
	free(l);
	v->link = NULL;
}

/* Connects to @uri, no callback registered yet (virt_open()'s first half). */
static int
connect_to(struct vp_virt *v, const char *uri, bool read_only)
{
	struct virt_link *l;

	virSetErrorFunc(NULL, silent_error);	/* per thread: this one too */
	virt_close(v);
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->cb_lifecycle = l->cb_metadata = -1;
	l->conn = read_only ? virConnectOpenReadOnly(uri) :
	    virConnectOpen(uri);
	if (!l->conn) {
		free(l);
		return -ECONNREFUSED;
	}
	v->link = l;
	atomic_store(&v->lost, false);
	return 0;
}

int
virt_open(struct vp_virt *v, const char *uri)
{
	struct virt_link *l;
	int r = connect_to(v, uri, false);

	if (r < 0)
		return r;
	l = v->link;
	l->close_cb = virConnectRegisterCloseCallback(l->conn, on_close, v,
	    NULL) == 0;
	l->cb_lifecycle = virConnectDomainEventRegisterAny(l->conn, NULL,
	    VIR_DOMAIN_EVENT_ID_LIFECYCLE,
	    VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle), v, NULL);
	l->cb_metadata = virConnectDomainEventRegisterAny(l->conn, NULL,
	    VIR_DOMAIN_EVENT_ID_METADATA_CHANGE,
	    VIR_DOMAIN_EVENT_CALLBACK(on_metadata), v, NULL);
	atomic_store(&v->dirty, true);
	return 0;
}

int
virt_open_once(struct vp_virt *v, const char *uri, bool read_only)
{
	return connect_to(v, uri, read_only);
}

bool
virt_connected(const struct vp_virt *v)
{
	return v->link && !atomic_load(&v->lost);
}

bool
virt_lost(const struct vp_virt *v)
{
	return v->link && atomic_load(&v->lost);
}

virConnectPtr
virt_conn(const struct vp_virt *v)
{
	return v->link ? v->link->conn : NULL;
}

int
virt_list_running(struct vp_virt *v, struct vp_dom_info **ret_infos)
{
	virDomainPtr *doms = NULL;
	struct vp_dom_info *infos;
	struct virt_link *l = v->link;
	int n, i, r;

	if (!l)
		return -EIO;
	n = virConnectListAllDomains(l->conn, &doms,
	    VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (n < 0) {
		atomic_store(&v->lost, true);
		return -EIO;
	}
	infos = calloc(n ? n : 1, sizeof(*infos));
	if (!infos) {
		for (i = 0; i < n; i++)
			virDomainFree(doms[i]);
		free(doms);
		return -ENOMEM;
	}
	/* the listing replaces what was kept: a domain gone is forgotten */
	drop_domains(l);
	for (i = 0; i < n; i++) {
		domain_info(doms[i], &infos[i]);
		r = keep_domain(l, doms[i]);	/* takes doms[i] */
		if (r == -ENOMEM) {
			while (++i < n)
				virDomainFree(doms[i]);
			free(doms);
			free(infos);
			return -ENOMEM;
		}
		if (r < 0)
			infos[i].err = -ENOENT;	/* vanished meanwhile */
	}
	free(doms);
	*ret_infos = infos;
	return n;
}

virDomainPtr
virt_domain(struct vp_virt *v, const unsigned char *uuid)
{
	struct virt_link *l = v->link;
	virDomainPtr dom;
	int i;

	if (!l)
		return NULL;
	for (i = 0; i < l->ndom; i++)
		if (!memcmp(l->dom[i].uuid, uuid, VIR_UUID_BUFLEN))
			return l->dom[i].dom;
	dom = virDomainLookupByUUID(l->conn, uuid);
	if (!dom || keep_domain(l, dom) < 0)
		return NULL;
	return dom;
}

int
virt_lookup(struct vp_virt *v, const char *name_or_uuid,
    unsigned char ret_uuid[VP_UUID_LEN])
{
	struct virt_link *l = v->link;
	virDomainPtr dom;
	int r;

	if (!l)
		return -ENOENT;
	dom = virDomainLookupByName(l->conn, name_or_uuid);
	if (!dom)
		dom = virDomainLookupByUUIDString(l->conn, name_or_uuid);
	if (!dom)
		return -ENOENT;
	if ((r = keep_domain(l, dom)) < 0)
		return r;
	memcpy(ret_uuid, l->dom[l->ndom - 1].uuid, VP_UUID_LEN);
	return 0;
}

const char *
virt_error(void)
{
	return virt_error_or("unknown libvirt error");
}

const char *
virt_error_or(const char *fallback)
{
	virErrorPtr e = virGetLastError();

	return e && e->message ? e->message : fallback;
}
