// SPDX-License-Identifier: GPL-2.0
/*
 * sched_wake - boot test for SIS_CORE (patch 3): where do wake-ups land?
 *
 * Busy hogs are pinned on one SMT thread of some cores.  A ring of threads
 * passes a token through pipes (sync wake-ups, as a vCPU kick or an I/O
 * completion).  Each woken thread notes its CPU and the wake-up latency
 * (waker's timestamp to wakee running).  The ring starts on the hogs' idle
 * siblings, then is unpinned, so the wake-up path decides where it goes.
 *
 * Scenarios:
 *   idle-core  hogs on cores 0 and 1: a whole idle core always exists, so a
 *              wake-up on a hog's sibling is a bad placement.  Reports the
 *              share of those, and the latency.
 *   no-idle    a hog on every core: no idle core; the scan fails, and the
 *              latency shows the cost of a failing scan.
 *   all-idle   no hogs: latency when idle cores abound.
 *
 * Each scenario runs with SIS_CORE off and on (toggled in
 * /sys/kernel/debug/sched/features), twice, in the same boot.
 *
 * Output: "sched_wake: RESULT ..." lines, then "sched_wake: PASS" or
 * "sched_wake: FAIL ...".  It fails if SIS_CORE is missing, or if with
 * SIS_CORE on the bad share of idle-core is not below 5% and not above the off
 * share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS	64
#define RING		2
#define WARM_PASSES	200
#define RUN_NS		1500000000ULL	/* 1.5 s per phase (TCG is slow) */
#define FEATURES	"/sys/kernel/debug/sched/features"

static int ncpu, ncores;
static int core_of[MAX_CPUS];		/* core index of each CPU */
static int core_cpus[MAX_CPUS][4];	/* CPUs of each core */
static int core_n[MAX_CPUS];
static int hog_core[MAX_CPUS];		/* core has a hog */

static volatile int hog_stop, ring_stop;

struct token {
	uint64_t stamp;
	uint64_t pass;
};

struct ring_thread {
	int idx, in, out;
	int warm_cpu;
	uint64_t wakes, bad, lat_sum;
	uint64_t lat[1 << 16];
	unsigned int nlat;
};

static struct ring_thread ring[RING];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void pin_self(int cpu)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	if (cpu >= 0) {
		CPU_SET(cpu, &set);
	} else {
		for (i = 0; i < ncpu; i++)
			CPU_SET(i, &set);
	}
	sched_setaffinity(0, sizeof(set), &set);
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static void read_topology(void)
{
	char path[128], buf[128];
	int cpu, i, first;

	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > MAX_CPUS)
		ncpu = MAX_CPUS;
	ncores = 0;
	for (cpu = 0; cpu < ncpu; cpu++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
			 cpu);
		first = cpu;
		if (!read_file(path, buf, sizeof(buf)))
			first = atoi(buf);
		for (i = 0; i < ncores; i++)
			if (core_cpus[i][0] == first)
				break;
		if (i == ncores) {
			core_cpus[ncores][0] = first;
			core_n[ncores] = 0;
			ncores++;
		}
		if (core_n[i] < 4)
			core_cpus[i][core_n[i]++] = cpu;
		core_of[cpu] = i;
	}
}

static int set_feature(int on)
{
	const char *val = on ? "SIS_CORE" : "NO_SIS_CORE";
	int fd = open(FEATURES, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -1 : 0;
}

static int have_feature(void)
{
	static char buf[8192];

	if (read_file(FEATURES, buf, sizeof(buf)))
		return 0;
	return strstr(buf, "SIS_CORE") != NULL;
}

static void *hog(void *arg)
{
	pin_self((int)(intptr_t)arg);
	while (!hog_stop)
		;
	return NULL;
}

static void *ring_main(void *arg)
{
	struct ring_thread *t = arg;
	struct token tok;
	int unpinned = 0;

	pin_self(t->warm_cpu);
	for (;;) {
		if (read(t->in, &tok, sizeof(tok)) != sizeof(tok))
			break;
		uint64_t lat = now_ns() - tok.stamp;
		int cpu = sched_getcpu();

		if (ring_stop) {
			write(t->out, &tok, sizeof(tok));
			break;
		}
		if (tok.pass >= WARM_PASSES && !unpinned) {
			pin_self(-1);
			unpinned = 1;
		}
		/* measure from two ring turns after the unpin */
		if (tok.pass >= WARM_PASSES + 2 * RING) {
			t->wakes++;
			if (hog_core[core_of[cpu]])
				t->bad++;
			t->lat_sum += lat;
			if (t->nlat < sizeof(t->lat) / sizeof(t->lat[0]))
				t->lat[t->nlat++] = lat;
		}
		tok.pass++;
		tok.stamp = now_ns();
		if (write(t->out, &tok, sizeof(tok)) != sizeof(tok))
			break;
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct result {
	uint64_t wakes, bad, lat_avg, lat_p50;
};

/* One phase: @hogs hogs on the first thread of cores 0..hogs-1. */
static struct result run_phase(int hogs)
{
	pthread_t hog_t[MAX_CPUS], ring_t[RING];
	int pipes[RING][2], i, j;
	struct result r = { 0 };
	static uint64_t all[RING << 16];
	unsigned int nall = 0;
	struct token tok = { 0 };

	memset(hog_core, 0, sizeof(hog_core));
	hog_stop = 0;
	ring_stop = 0;
	for (i = 0; i < hogs; i++) {
		hog_core[i] = 1;
		pthread_create(&hog_t[i], NULL, hog,
			       (void *)(intptr_t)core_cpus[i][0]);
	}
	usleep(50000);

	for (i = 0; i < RING; i++)
		if (pipe(pipes[i]))
			exit(1);
	for (i = 0; i < RING; i++) {
		struct ring_thread *t = &ring[i];

		t->idx = i;
		t->in = pipes[i][0];
		t->out = pipes[(i + 1) % RING][1];
		t->wakes = t->bad = t->lat_sum = 0;
		t->nlat = 0;
		/* start on a hog's idle sibling (or anywhere if no hog) */
		j = hogs ? i % hogs : -1;
		t->warm_cpu = j >= 0 && core_n[j] > 1 ? core_cpus[j][1] : -1;
		pthread_create(&ring_t[i], NULL, ring_main, t);
	}
	usleep(10000);
	tok.stamp = now_ns();
	write(pipes[0][1], &tok, sizeof(tok));

	uint64_t end = now_ns() + RUN_NS;

	while (now_ns() < end)
		usleep(50000);
	ring_stop = 1;
	for (i = 0; i < RING; i++)
		pthread_join(ring_t[i], NULL);
	hog_stop = 1;
	for (i = 0; i < hogs; i++)
		pthread_join(hog_t[i], NULL);
	for (i = 0; i < RING; i++) {
		close(pipes[i][0]);
		close(pipes[i][1]);
	}

	uint64_t lat_sum = 0;

	for (i = 0; i < RING; i++) {
		r.wakes += ring[i].wakes;
		r.bad += ring[i].bad;
		lat_sum += ring[i].lat_sum;
		for (j = 0; j < (int)ring[i].nlat; j++)
			all[nall++] = ring[i].lat[j];
	}
	if (r.wakes)
		r.lat_avg = lat_sum / r.wakes;
	if (nall) {
		qsort(all, nall, sizeof(all[0]), cmp_u64);
		r.lat_p50 = all[nall / 2];
	}
	return r;
}

int main(void)
{
	static const struct {
		const char *name;
		int hogs;	/* -1: every core */
	} sc[] = {
		{ "idle-core", 2 },
		{ "no-idle", -1 },
		{ "all-idle", 0 },
	};
	double share[2] = { 0, 0 };
	int s, rep, on, feat, fail = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	read_topology();
	printf("sched_wake: %d CPUs, %d cores, %d threads per core\n", ncpu,
	       ncores, core_n[0]);
	feat = have_feature();
	printf("sched_wake: SIS_CORE feature %s\n", feat ? "present" : "MISSING");
	if (ncores < 4 || core_n[0] < 2) {
		printf("sched_wake: FAIL (need 4 cores with SMT)\n");
		return 1;
	}

	/*
	 * All "off" phases first, then one switch to "on": a feature switch
	 * patches kernel text (static keys), and QEMU TCG has been seen to
	 * oops on that (a stale int3); switch as few times as possible.
	 */
	struct result tot[3][2];
	uint64_t p50[3][2];

	memset(tot, 0, sizeof(tot));
	memset(p50, 0, sizeof(p50));
	for (on = 0; on <= feat; on++) {
		if (feat && set_feature(on)) {
			printf("sched_wake: cannot write %s\n", FEATURES);
			fail = 1;
		}
		for (s = 0; s < 3; s++) {
			int hogs = sc[s].hogs < 0 ? ncores : sc[s].hogs;

			for (rep = 0; rep < 2; rep++) {
				struct result r = run_phase(hogs);

				printf("sched_wake: phase scenario=%s SIS_CORE=%s rep=%d wakes=%llu on_busy_core=%llu lat_avg_ns=%llu lat_p50_ns=%llu\n",
				       sc[s].name, on ? "on" : "off", rep,
				       (unsigned long long)r.wakes,
				       (unsigned long long)r.bad,
				       (unsigned long long)r.lat_avg,
				       (unsigned long long)r.lat_p50);
				tot[s][on].wakes += r.wakes;
				tot[s][on].bad += r.bad;
				tot[s][on].lat_avg += r.lat_avg * r.wakes;
				p50[s][on] += r.lat_p50;
			}
		}
	}
	for (s = 0; s < 3; s++) {
		for (on = 0; on <= feat; on++) {
			struct result *t = &tot[s][on];
			double sh = t->wakes ? 100.0 * t->bad / t->wakes : 0;

			printf("sched_wake: RESULT scenario=%s SIS_CORE=%s wakes=%llu busy_sibling_share=%.1f%% wake_lat_avg_us=%.1f wake_lat_p50_us=%.1f\n",
			       sc[s].name, on ? "on" : "off",
			       (unsigned long long)t->wakes, sh,
			       t->wakes ? t->lat_avg / 1000.0 / t->wakes : 0,
			       p50[s][on] / 2000.0);
			if (s == 0)
				share[on] = sh;
		}
	}
	if (!feat) {
		printf("sched_wake: FAIL (SIS_CORE missing)\n");
		return 1;
	}
	if (!(share[1] < 5.0 && share[1] <= share[0]))
		fail = 1;
	if (fail)
		printf("sched_wake: FAIL (idle-core busy-sibling share off %.1f%% on %.1f%%)\n",
		       share[0], share[1]);
	else
		printf("sched_wake: PASS\n");
	return fail;
}
