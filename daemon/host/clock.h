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

/*
 * CPU time the calling thread has used, in ns (CLOCK_THREAD_CPUTIME_ID):
 * what a piece of work cost, without the time it slept waiting on
 * someone else (libvirtd holding a domain's lock, say).
 */
uint64_t clock_thread_cpu_ns(void);

#endif /* VP_CLOCK_H */
