/*
 * actuate.h - live pins through the libvirt worker, deltas only
 * (actuate.c).
 */
#ifndef VP_ACTUATE_H
#define VP_ACTUATE_H

#include <stdint.h>

#include "host/domain.h"
#include "vcpuplaced/libvirt.h"

struct vp_daemon;

/*
 * Sends the pins tick_plan() decided to the worker (one APPLY at a time:
 * while one is out the moves wait); a dry run counts them at once.
 * Returns the pins made now (a dry run's), 0 otherwise.
 */
int actuate_apply(struct vp_daemon *d);
/* The worker's answer to pin @p: counted, applied to the VM, logged. */
void actuate_result(struct vp_daemon *d, const struct vp_lv_pin *p,
    enum vp_apply a, const char *why);
/*
 * The placement latency of each VM whose pins since @t0 were made:
 * from the oldest event the refresh answered (d->event_ns) to its last
 * pin.  Once per event: it clears d->event_ns.
 */
void actuate_note_latency(struct vp_daemon *d, uint64_t t0);

#endif /* VP_ACTUATE_H */
