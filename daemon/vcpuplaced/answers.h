/*
 * answers.h - the libvirt worker's answers, applied to the daemon's state
 * (answers.c), and the waits that only start-up and the tests make.
 */
#ifndef VP_ANSWERS_H
#define VP_ANSWERS_H

#include <stdint.h>

struct vp_daemon;

/* Takes every answer waiting on the channel: VP_LV_GOT_*.  Never waits. */
unsigned int answers_take(struct vp_daemon *d);
/* Blocks until request @seq is answered or @wait_ms pass: start, tests. */
int answers_wait(struct vp_daemon *d, uint32_t seq, unsigned int wait_ms);
/*
 * Blocking, for start-up and the unit tests only (the loop never waits
 * on libvirt): starts the worker, and unless connected has it connect
 * and read the inventory, waiting at most @wait_ms.  0 when connected.
 */
int answers_connect(struct vp_daemon *d);
int answers_connect_within(struct vp_daemon *d, unsigned int wait_ms);
/*
 * Blocking too, for the same callers: a whole read, waited for; its
 * -errno, or 0 with the inventory rebuilt.
 */
int answers_refresh(struct vp_daemon *d);

#endif /* VP_ANSWERS_H */
