/*
 * sampler.c - see sampler.h.  Jiffies from /proc/stat, nanoseconds from
 * schedstat; nothing here knows about VMs.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/procstat.h"
#include "host/sampler.h"
#include "host/smallfile.h"

struct vp_sampler {
	const struct vp_topo *t;
	uint64_t *busy_prev, *total_prev;	/* [t->os_limit], jiffies */
};

int
sampler_open(const struct vp_topo *t, struct vp_sampler **ret)
{
	struct vp_sampler *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->t = t;
	s->busy_prev = calloc(t->os_limit, sizeof(uint64_t));
	s->total_prev = calloc(t->os_limit, sizeof(uint64_t));
	if (!s->busy_prev || !s->total_prev) {
		sampler_free(s);
		return -ENOMEM;
	}
	*ret = s;
	return 0;
}

void
sampler_free(struct vp_sampler *s)
{
	if (!s)
		return;
	free(s->busy_prev);
	free(s->total_prev);
	free(s);
}

int
sampler_parse_stat_line(const char *line, unsigned int *ret_cpu, uint64_t *ret_busy,
    uint64_t *ret_total)
{
	unsigned long long v[8] = { 0 };
	unsigned int cpu;
	int n, i;
	uint64_t total = 0;

	n = sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu,
	    &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (n < 5)
		return -EINVAL;
	for (i = 0; i < 8; i++)
		total += v[i];
	*ret_cpu = cpu;
	*ret_total = total;
	*ret_busy = total - v[3] - v[4];	/* minus idle and iowait */
	return 0;
}

int
sampler_read_pus(struct vp_sampler *s, double *ret_util)
{
	char line[512];
	FILE *f;

	f = fopen("/proc/stat", "re");
	if (!f)
		return -errno;
	memset(ret_util, 0, s->t->npus * sizeof(*ret_util));
	while (fgets(line, sizeof(line), f)) {
		uint64_t busy, total, db, dt;
		unsigned int cpu;
		int pu;

		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		if (sampler_parse_stat_line(line, &cpu, &busy, &total) < 0)
			continue;
		pu = topo_pu_of_os(s->t, cpu);
		if (pu == VP_PU_NONE)
			continue;	/* hot-plugged since the model was read */
		db = busy - s->busy_prev[cpu];
		dt = total - s->total_prev[cpu];
		ret_util[pu] = dt && s->total_prev[cpu] ?
		    (double)db / (double)dt : 0;
		s->busy_prev[cpu] = busy;
		s->total_prev[cpu] = total;
	}
	fclose(f);
	return 0;
}

int
sampler_parse_last_cpu(const char *buf)
{
	uint64_t v;

	/* atoi() wrapped "4294967296" to CPU 0 and let "-5" through */
	if (procstat_parse_u64(buf, PROCSTAT_PROCESSOR, &v) < 0 ||
	    v > INT_MAX)
		return -1;
	return (int)v;
}

/* Field 39 of /proc/.../stat: the CPU the task last ran on, or -1. */
static int
last_cpu(int pid, int tid)
{
	char path[96], buf[1024];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	if (read_small_file(path, buf, sizeof(buf)) < 0)
		return -1;
	return sampler_parse_last_cpu(buf);
}

int
sampler_parse_schedstat(const char *buf, struct vp_thread_sample *ret)
{
	unsigned long long run, wait;

	if (sscanf(buf, "%llu %llu", &run, &wait) != 2)
		return -EINVAL;
	ret->run_ns = run;
	ret->wait_ns = wait;
	return 0;
}

int
sampler_read_thread(int pid, int tid, struct vp_thread_sample *ret)
{
	struct vp_thread_sample t;
	char path[96], buf[256];
	int r;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	if ((r = read_small_file(path, buf, sizeof(buf))) < 0)
		return r;
	if ((r = sampler_parse_schedstat(buf, &t)) < 0)
		return r;
	t.os_cpu = last_cpu(pid, tid);
	*ret = t;
	return 0;
}
