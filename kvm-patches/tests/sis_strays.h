/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sis_strays.h - keep the rest of the guest off a test's cores.
 *
 * sis_rules judges a round only when the cores it reads kept still.  The
 * guest's own wake-ups spoil those rounds: RCU's grace-period kthread and
 * unbound workers wake every few milliseconds on a debug kernel, and both
 * SIS_CORE's walk and stock's idle-core scan send them to exactly the idle
 * core a rule advertises.  So for the test's length every task that may
 * run on more than one CPU (and is not the test), the unbound workqueues
 * and every IRQ are moved to one housekeeping CPU, and put back after.
 * Per-CPU kthreads stay where they are: they refuse, and they are what a
 * host runs beside its vCPUs too.
 */
#ifndef SIS_STRAYS_H
#define SIS_STRAYS_H

#include "sis_util.h"	/* first: it defines _GNU_SOURCE */

#include <dirent.h>

#define STRAYS_MAX	2048
#define WQ_CPUMASK	"/sys/devices/virtual/workqueue/cpumask"

static struct {
	int n;
	pid_t tid[STRAYS_MAX];
	cpu_set_t was[STRAYS_MAX];
	char wq_was[64];
} strays;

/* Points every IRQ's affinity (and the default) at @mask, a hex string. */
static inline void
irqs_to(const char *mask)
{
	char path[64];
	struct dirent *e;
	DIR *d = opendir("/proc/irq");
	int fd;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, "default_smp_affinity"))
			snprintf(path, sizeof(path), "/proc/irq/%s",
				 "default_smp_affinity");
		else if (atoi(e->d_name) > 0 || !strcmp(e->d_name, "0"))
			snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity",
				 atoi(e->d_name));
		else
			continue;
		/* per-CPU and managed IRQs refuse: they stay */
		fd = open(path, O_WRONLY);
		if (fd >= 0) {
			if (write(fd, mask, strlen(mask)) < 0)
				errno = 0;
			close(fd);
		}
	}
	closedir(d);
}

/* Moves every movable task but this process's to @cpu; IRQs and unbound
 * workqueues too.  Returns how many tasks moved. */
static inline int
strays_to(int cpu)
{
	char path[64], mask[20];
	struct dirent *p, *t;
	DIR *procs, *tasks;
	cpu_set_t one, cur;
	pid_t self = getpid(), tid;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	snprintf(mask, sizeof(mask), "%llx", 1ULL << cpu);
	read_file(WQ_CPUMASK, strays.wq_was, sizeof(strays.wq_was));
	write_file(WQ_CPUMASK, mask);
	irqs_to(mask);
	procs = opendir("/proc");
	if (!procs)
		fail("/proc: %s", strerror(errno));
	while ((p = readdir(procs))) {
		if (atoi(p->d_name) <= 0 || atoi(p->d_name) == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", atoi(p->d_name));
		tasks = opendir(path);
		if (!tasks)
			continue;	/* exited meanwhile */
		while ((t = readdir(tasks)) && strays.n < STRAYS_MAX) {
			tid = atoi(t->d_name);
			if (tid <= 0 || sched_getaffinity(tid, sizeof(cur), &cur) ||
			    CPU_COUNT(&cur) < 2 ||
			    sched_setaffinity(tid, sizeof(one), &one))
				continue;
			strays.tid[strays.n] = tid;
			strays.was[strays.n++] = cur;
		}
		closedir(tasks);
	}
	closedir(procs);
	if (strays.n == STRAYS_MAX)
		fail("more than %d movable tasks", STRAYS_MAX);
	return strays.n;
}

/* Puts back what strays_to() moved: tasks that still exist, the unbound
 * workqueues' mask, every IRQ on every CPU. */
static inline void
strays_back(void)
{
	char all[20];
	int i;

	for (i = 0; i < strays.n; i++)
		sched_setaffinity(strays.tid[i], sizeof(strays.was[i]),
				  &strays.was[i]);
	strays.n = 0;
	write_file(WQ_CPUMASK, strays.wq_was);
	snprintf(all, sizeof(all), "%llx", (1ULL << ncpus) - 1);
	irqs_to(all);
}

#endif
