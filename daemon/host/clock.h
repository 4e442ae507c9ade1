/*
 * clock.h - the monotonic clock every deadline, cooldown and tick of the
 * daemon is measured on.  The core never reads a clock: callers pass it
 * times in nanoseconds.
 */
#ifndef VP_CLOCK_H
#define VP_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in ns: unaffected by settimeofday and NTP steps. */
uint64_t clock_now_ns(void);

#endif /* VP_CLOCK_H */
