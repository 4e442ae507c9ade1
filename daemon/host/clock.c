/* clock.c - see clock.h. */
#include <time.h>

#include "host/clock.h"

static uint64_t
read_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

uint64_t
clock_now_ns(void)
{
	return read_ns(CLOCK_MONOTONIC);
}

uint64_t
clock_thread_cpu_ns(void)
{
	return read_ns(CLOCK_THREAD_CPUTIME_ID);
}
