/*
 * virt_worker.h - the libvirt worker thread (doc/libvirt-worker.md): it
 * owns the connection (struct vp_virt's link) and makes every libvirt
 * call the daemon makes, asked and answered through the messages of
 * host/virt_msg.h on its end of a socket pair.  The loop holds the
 * other end and never waits on it.
 *
 * The worker blocks (in libvirt, or on its socket); nothing else does
 * for it.  It keeps no state but the connection: every answer is data.
 * Never logs: libvirt's words travel in the answers.
 */
#ifndef VP_VIRT_WORKER_H
#define VP_VIRT_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "host/virt.h"

struct vp_virt_worker {
	struct vp_virt *virt;	/* borrowed; the worker's while it runs */
	const char *uri;	/* borrowed, for the life of the worker */
	int fd;			/* the worker's end, -1 none */
	pthread_t thread;
	bool running;		/* started and not joined */
	/*
	 * The worker needs no capability (it talks to libvirtd's socket
	 * only) and drops them all before its first request, as libvirt's
	 * event thread does (capabilities are per thread): 0 once it has,
	 * -errno if it could not, 1 before.
	 */
	atomic_int privs_err;
};

/*
 * Starts the worker on @virt (closed; the worker opens it when the first
 * REFRESH asks) and returns the loop's end of the socket pair, made
 * non-blocking, in *ret_fd (the caller closes it).  -errno on failure,
 * *w then not running.
 */
int virt_worker_start(struct vp_virt_worker *w, struct vp_virt *virt,
    const char *uri, int *ret_fd) VP_MUST_CHECK;
/*
 * Waits for the worker to end (after its BYE: it has closed the
 * connection and its end); accepts one not running.
 */
void virt_worker_join(struct vp_virt_worker *w);

#endif /* VP_VIRT_WORKER_H */
