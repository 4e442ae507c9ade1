/*
 * guest_util.h - what every boot test program (tests/scx/scx_*.c) needs:
 * its verdict line, time, sleep, and homes from the placement core's
 * planner as the daemon would compute them.
 */
#ifndef GUEST_UTIL_H
#define GUEST_UTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/vcpuplace.h"
#include "scx/scx.h"

/* The program's name, the first word of its verdict; main() sets it. */
extern const char *test_name;

/* Prints "<test_name>: FAIL <why>" and exits 1. */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2),
    noreturn));
uint64_t now_ns(void);		/* CLOCK_MONOTONIC */
uint64_t thread_cpu_ns(void);	/* CLOCK_THREAD_CPUTIME_ID */
/* The calling thread on @cpu alone: pthread_setaffinity_np()'s error. */
int pin_self(int cpu);
/*
 * Starts @fn(@arg) in a thread that is SCHED_FIFO (priority 10) and pinned
 * to @cpu from its first instruction, so that it wakes there as an RT task
 * and preempts what runs; fail()s naming @what if it cannot.
 */
void rt_thread_start(pthread_t *ret, int cpu, void *(*fn)(void *),
    void *arg, const char *what);
long now_ms(void);
void sleep_ms(long ms);		/* the whole of it, across signals */

/*
 * Homes and allowed sets for @nvms VMs of @nvcpus vCPUs each (default
 * policy), around the PUs in @busy (host work): ret_homes[vm * nvcpus +
 * k], ret_allowed likewise.  Fails the test if the planner cannot.
 */
void plan_vms(const struct vp_topo *t, int nvms, int nvcpus,
    const struct vp_cpuset *busy, int *ret_homes,
    struct vp_cpuset *ret_allowed);

/*
 * scx_task_set_ext() on thread @tid of this process, named as the daemon
 * names it (tid and start time); -ESRCH if @tid is not ours.
 */
int set_ext(int tid, bool ext);
/* set_ext(@tid, true), or fail() naming the thread and the error. */
void ext_or_fail(int tid);
/*
 * The scheduler loaded (a full switch) and told the topology @t, as the
 * daemon does at start; fails the test if either is refused.
 */
struct scx_sched *load_described(const struct vp_topo *t);
/* fail() naming @when if the kernel has ejected the scheduler. */
void expect_loaded(struct scx_sched *s, const char *when);
/* "TEST: counters NAME=N ..." of the global counters @st. */
void counters_print(const uint64_t st[VP_SCX_STAT_NR]);
/* The same, read from the loaded scheduler. */
void stats_print(struct scx_sched *s);

#endif /* GUEST_UTIL_H */
