/*
 * sampler.c - host load from /proc/stat, vCPU run and wait time from
 * /proc/<pid>/task/<tid>/schedstat, once per tick.
 *
 * The planner must not flee from its own VMs: a PU busy only because a
 * managed vCPU runs there is not "host busy".  So each vCPU's run time
 * over the tick is taken off the PU it last ran on, and what remains
 * above half a tick marks the PU busy for the planner.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vcpuplaced/daemon.h"

int
sampler_init(struct vp_daemon *d)
{
	d->cpu_busy_prev = calloc(d->topo->os_limit, sizeof(uint64_t));
	d->cpu_total_prev = calloc(d->topo->os_limit, sizeof(uint64_t));
	d->cpu_util = calloc(d->topo->npus, sizeof(double));
	d->pu_util = calloc(d->topo->npus, sizeof(double));
	if (!d->cpu_busy_prev || !d->cpu_total_prev || !d->cpu_util ||
	    !d->pu_util)
		return -ENOMEM;
	return 0;
}

void
sampler_free(struct vp_daemon *d)
{
	free(d->cpu_busy_prev);
	free(d->cpu_total_prev);
	free(d->cpu_util);
	free(d->pu_util);
	d->cpu_busy_prev = d->cpu_total_prev = NULL;
	d->cpu_util = d->pu_util = NULL;
}

/* One "cpuN ..." line of /proc/stat into busy and total jiffies. */
static int
parse_stat_line(const char *line, unsigned int *ret_cpu, uint64_t *ret_busy,
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

static int
read_proc_stat(struct vp_daemon *d)
{
	char line[512];
	FILE *f;

	f = fopen("/proc/stat", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		uint64_t busy, total, db, dt;
		unsigned int cpu;
		int pu;

		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		if (parse_stat_line(line, &cpu, &busy, &total) < 0)
			continue;
		pu = topo_pu_of_os(d->topo, cpu);
		if (pu == VP_PU_NONE)
			continue;	/* hot-plugged since the model was read */
		db = busy - d->cpu_busy_prev[cpu];
		dt = total - d->cpu_total_prev[cpu];
		d->cpu_util[pu] = dt && d->cpu_total_prev[cpu] ?
		    (double)db / (double)dt : 0;
		d->cpu_busy_prev[cpu] = busy;
		d->cpu_total_prev[cpu] = total;
	}
	fclose(f);
	return 0;
}

/* schedstat: "run_ns wait_ns timeslices"; stat field 39: last CPU. */
static int
read_thread(int pid, int tid, uint64_t *ret_run, uint64_t *ret_wait,
    int *ret_cpu)
{
	char path[96], buf[1024], *p;
	unsigned long long run, wait;
	int n, field, cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	if (!(f = fopen(path, "re")))
		return -errno;
	n = fscanf(f, "%llu %llu", &run, &wait);
	fclose(f);
	if (n != 2)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	if (!(f = fopen(path, "re")))
		return -errno;
	n = (int)fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	/* comm may hold spaces ("CPU 0/KVM"): count fields after ')' */
	p = strrchr(buf, ')');
	for (field = 2; p && *p && field < 39; p++)
		if (*p == ' ')
			field++;
	if (p && field == 39)
		cpu = atoi(p);
	*ret_run = run;
	*ret_wait = wait;
	*ret_cpu = cpu;
	return 0;
}

int
sampler_read(struct vp_daemon *d)
{
	double tick_ns = (double)d->tick_ms * 1e6;
	int i, k, pu, r;

	if ((r = read_proc_stat(d)) < 0)
		return r;
	memcpy(d->pu_util, d->cpu_util, d->topo->npus * sizeof(double));
	for (i = 0; i < d->nvms; i++) {
		struct vp_vm *vm = &d->vm[i];

		for (k = 0; k < vm->nvcpus; k++) {
			struct vp_vcpu *v = &vm->vcpu[k];
			uint64_t run, wait;
			int cpu;

			if (!vm->pid || !v->tid ||
			    read_thread(vm->pid, v->tid, &run, &wait, &cpu) < 0)
				continue;
			pu = cpu >= 0 ? topo_pu_of_os(d->topo, cpu) :
			    VP_PU_NONE;
			v->current = pu;
			v->delay_ns = v->wait_ns && wait >= v->wait_ns ?
			    wait - v->wait_ns : 0;
			v->util = v->run_ns && run >= v->run_ns ?
			    (double)(run - v->run_ns) / tick_ns : 0;
			if (pu != VP_PU_NONE)
				d->cpu_util[pu] -= v->util;
			v->run_ns = run;
			v->wait_ns = wait;
		}
	}
	cpuset_zero(&d->host_busy);
	for (pu = 0; pu < d->topo->npus; pu++)
		if (d->cpu_util[pu] > VP_BUSY_SHARE)
			cpuset_set(&d->host_busy, pu);
	return 0;
}
