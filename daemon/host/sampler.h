/*
 * sampler.h - host load from /proc/stat and a thread's run and wait time
 * from /proc/<pid>/task/<tid>/schedstat (CONFIG_SCHEDSTATS is not
 * needed: the kernel keeps these three numbers for every task).
 */
#ifndef VP_SAMPLER_H
#define VP_SAMPLER_H

#include <stdint.h>

#include "core/vcpuplace.h"

/* Per-CPU counters of the last read, to take differences against. */
struct vp_sampler;

/*
 * A sampler for the PUs of @t (which must outlive it).  0 with *ret set,
 * free with sampler_free(); -ENOMEM with *ret untouched.
 */
int sampler_open(const struct vp_topo *t, struct vp_sampler **ret)
	VP_MUST_CHECK;
void sampler_free(struct vp_sampler *s);	/* accepts NULL */

/*
 * The share of the time since the previous call each PU was busy (not
 * idle, not in iowait), 0..1, into ret_util[t->npus]; 0 on the first
 * call, and for a PU /proc/stat does not list (offline).  -errno when
 * /proc/stat cannot be read, ret_util untouched.
 */
int sampler_read_pus(struct vp_sampler *s, double *ret_util) VP_MUST_CHECK;

struct vp_thread_sample {
	uint64_t run_ns;	/* on a CPU, since the thread started */
	uint64_t wait_ns;	/* runnable on a run queue, not running */
	int os_cpu;		/* the CPU it last ran on (OS numbering), -1 */
};

/* One thread of process @pid; -errno (-ENOENT: gone), *ret untouched. */
int sampler_read_thread(int pid, int tid, struct vp_thread_sample *ret)
	VP_MUST_CHECK;

/*
 * The parsers behind the reads above, pure, for tests and fuzzing
 * (tests/fuzz/).  One "cpuN ..." line of /proc/stat into busy and total
 * jiffies: 0, or -EINVAL with nothing set.
 */
int sampler_parse_stat_line(const char *line, unsigned int *ret_cpu,
    uint64_t *ret_busy, uint64_t *ret_total) VP_MUST_CHECK;
/* schedstat's "run wait slices": run_ns and wait_ns only; 0 or -EINVAL. */
int sampler_parse_schedstat(const char *buf, struct vp_thread_sample *ret)
	VP_MUST_CHECK;
/* Field 39 (processor) of a task's stat text, or -1. */
int sampler_parse_last_cpu(const char *buf);

#endif /* VP_SAMPLER_H */
