/*
 * virt.c - see virt.h.  The close callback and the domain events only
 * store into atomics and write to the eventfd: they run on libvirt's
 * event thread, while everything else of the daemon runs on the loop
 * thread.
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
#include "host/virt.h"

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
	atomic_compare_exchange_strong(&v->event_ns, &zero, t);
	atomic_store(&v->dirty, true);
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
virt_metadata_take(struct vp_virt *v, unsigned char ret[][VIR_UUID_BUFLEN])
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

void
virt_close(struct vp_virt *v)
{
	if (!v->conn)
		return;
	if (v->cb_lifecycle >= 0)
		virConnectDomainEventDeregisterAny(v->conn, v->cb_lifecycle);
	if (v->cb_metadata >= 0)
		virConnectDomainEventDeregisterAny(v->conn, v->cb_metadata);
	virConnectUnregisterCloseCallback(v->conn, on_close);
	virConnectClose(v->conn);
	v->conn = NULL;
	v->cb_lifecycle = v->cb_metadata = -1;
}

int
virt_open(struct vp_virt *v, const char *uri)
{
	virSetErrorFunc(NULL, silent_error);	/* per thread: this one too */
	virt_close(v);
	v->conn = virConnectOpen(uri);
	if (!v->conn)
		return -ECONNREFUSED;
	atomic_store(&v->lost, false);
	virConnectRegisterCloseCallback(v->conn, on_close, v, NULL);
	v->cb_lifecycle = virConnectDomainEventRegisterAny(v->conn, NULL,
	    VIR_DOMAIN_EVENT_ID_LIFECYCLE,
	    VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle), v, NULL);
	v->cb_metadata = virConnectDomainEventRegisterAny(v->conn, NULL,
	    VIR_DOMAIN_EVENT_ID_METADATA_CHANGE,
	    VIR_DOMAIN_EVENT_CALLBACK(on_metadata), v, NULL);
	atomic_store(&v->dirty, true);
	return 0;
}

bool
virt_connected(const struct vp_virt *v)
{
	return v->conn && !atomic_load(&v->lost);
}

int
virt_list_running(struct vp_virt *v, virDomainPtr **ret_doms)
{
	virDomainPtr *doms = NULL;
	int n;

	n = virConnectListAllDomains(v->conn, &doms,
	    VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (n < 0) {
		atomic_store(&v->lost, true);
		return -EIO;
	}
	*ret_doms = doms;
	return n;
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
