/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sis_util.h - what the SIS_CORE boot tests share: the SMT topology from
 * sysfs, the sched/features switch, futex ping-pong, a spin for a given
 * time, and kprobe hit counters from tracefs.  Static functions: each test
 * is one static binary in the initramfs.
 */
#ifndef SIS_UTIL_H
#define SIS_UTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS	64
#define FEATURES	"/sys/kernel/debug/sched/features"
#define TRACEFS		"/sys/kernel/tracing"

static const char *test_name;

static void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	printf("%s: FAIL ", test_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

/* The SMT topology: which core each CPU is on, and each core's CPUs. */
static int ncpus, ncores;
static int core_of[MAX_CPUS];
static int core_cpu[MAX_CPUS][2];	/* the two siblings of each core */

static inline void
read_topology(void)
{
	int cpu, a, b, c;
	char path[96];
	FILE *f;

	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 4 || ncpus > MAX_CPUS)
		fail("%d CPUs: want 4 to %d", ncpus, MAX_CPUS);
	for (cpu = 0; cpu < ncpus; cpu++)
		core_of[cpu] = -1;
	for (cpu = 0; cpu < ncpus; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/"
			 "topology/thread_siblings_list", cpu);
		f = fopen(path, "r");
		if (!f)
			fail("%s: %s", path, strerror(errno));
		/* "0-1" or "0,4" on two-thread cores */
		if (fscanf(f, "%d%*[-,]%d", &a, &b) != 2)
			fail("%s: not a two-thread core", path);
		fclose(f);
		if (a > b) {
			c = a;
			a = b;
			b = c;
		}
		if (b >= ncpus)
			fail("%s: sibling %d offline", path, b);
		if (core_of[a] < 0) {
			core_cpu[ncores][0] = a;
			core_cpu[ncores][1] = b;
			core_of[a] = core_of[b] = ncores++;
		}
	}
}

/* Pins the calling thread to @set, or to CPU @cpu if @set is NULL. */
static inline void
pin_self(const cpu_set_t *set, int cpu)
{
	cpu_set_t one;

	if (!set) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		set = &one;
	}
	if (sched_setaffinity(0, sizeof(*set), set))
		fail("sched_setaffinity: %s", strerror(errno));
}

static inline int
sibling_of(int cpu)
{
	const int *c = core_cpu[core_of[cpu]];

	return c[0] == cpu ? c[1] : c[0];
}

static inline void
write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	if (fd < 0)
		fail("%s: %s", path, strerror(errno));
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fail("%s < %s: %s", path, text, strerror(errno));
	close(fd);
}

/* Reads @path into @buf (at most @len - 1 bytes, NUL-terminated). */
static inline void
read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, got = 0;

	if (fd < 0)
		fail("%s: %s", path, strerror(errno));
	while ((n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
}

/* SIS_CORE on or off; fails if the kernel has no such feature. */
static inline void
set_sis_core(int on)
{
	char buf[4096];

	read_file(FEATURES, buf, sizeof(buf));
	if (!strstr(buf, "SIS_CORE"))
		fail("no SIS_CORE in %s: not a patched kernel", FEATURES);
	write_file(FEATURES, on ? "SIS_CORE" : "NO_SIS_CORE");
	read_file(FEATURES, buf, sizeof(buf));
	if (!!strstr(buf, "NO_SIS_CORE") == !!on)
		fail("SIS_CORE did not turn %s", on ? "on" : "off");
}

static inline uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline long
futex(atomic_int *word, int op, int val, const struct timespec *timeout)
{
	return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

/*
 * Waits until *@turn is @me.  Returns 1 if the last wait slept and was
 * woken, so the wake-up path placed this thread; 0 if the turn came
 * without a wake-up (it was already there, or came during a timeout), and
 * -1 if *@stop was set.  The timeout only lets a stopped run end.
 */
static inline int
await_turn(atomic_int *turn, int me, const atomic_int *stop)
{
	const struct timespec tick = { 0, 100000000L };
	int t, woke = 0;

	while ((t = atomic_load(turn)) != me) {
		if (atomic_load(stop))
			return -1;
		woke = futex(turn, FUTEX_WAIT_PRIVATE, t, &tick) == 0;
	}
	return woke;
}

static inline void
pass_turn(atomic_int *turn, int to)
{
	atomic_store(turn, to);
	futex(turn, FUTEX_WAKE_PRIVATE, 1, NULL);
}

/*
 * kprobe events: KPROBES[i] counts calls of the function of that name.
 * Hits are counted while the event is enabled; tracing_on stays 0, so
 * nothing is written to the trace buffer.
 */
/*
 * Defines kprobe event sis_@name as @spec (after "p:sis_@name "), with
 * @filter unless NULL, and enables it.  An event an earlier test made is
 * left as it is.
 */
static inline void
kprobe_add(const char *name, const char *spec, const char *filter)
{
	char line[160];

	snprintf(line, sizeof(line), TRACEFS "/events/kprobes/sis_%s", name);
	if (access(line, F_OK) == 0)
		return;
	snprintf(line, sizeof(line), "p:sis_%s %s\n", name, spec);
	write_file(TRACEFS "/kprobe_events", line);
	if (filter) {
		snprintf(line, sizeof(line),
			 TRACEFS "/events/kprobes/sis_%s/filter", name);
		write_file(line, filter);
	}
	snprintf(line, sizeof(line), TRACEFS "/events/kprobes/sis_%s/enable",
		 name);
	write_file(line, "1");
}

static inline void
kprobes_setup(const char *const *funcs, int n)
{
	int i;

	write_file(TRACEFS "/tracing_on", "0");
	/* counted in kprobe_profile, never written to the trace buffer */
	for (i = 0; i < n; i++)
		kprobe_add(funcs[i], funcs[i], "common_pid < 0");
}

/* The hit count of the kprobe event of @func, from kprobe_profile. */
static inline uint64_t
kprobe_hits(const char *func)
{
	char buf[4096], name[64], *p;
	unsigned long long hits;

	read_file(TRACEFS "/kprobe_profile", buf, sizeof(buf));
	snprintf(name, sizeof(name), "sis_%s", func);
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n")) {
		char ev[64];

		if (sscanf(p, "%63s %llu", ev, &hits) == 2 && !strcmp(ev, name))
			return hits;
	}
	fail("no %s in %s/kprobe_profile", name, TRACEFS);
}

/*
 * The two counts the tests read: probes of one CPU's idleness
 * (available_idle_cpu()) and placements (select_task_rq_fair()).
 */
static const char *const probe_funcs[] = {
	"available_idle_cpu", "select_task_rq_fair",
};

struct probe_count {
	uint64_t probes, placements;
};

static inline void
probes_setup(void)
{
	kprobes_setup(probe_funcs, 2);
}

/*
 * Probes of the core of CPUs @a and @b made from other CPUs, i.e. by
 * wake-ups and balancing, not by the core's own idle entries:
 * kprobe_profile counts every hit, so these go through a filtered event
 * into the trace buffer, which counts what it was given
 * ("entries-written").  CPU is the filter's name for the CPU an event
 * fires on.
 */
static inline void
far_probes_setup(int a, int b)
{
	char filter[128];

	snprintf(filter, sizeof(filter), "(target == %d || target == %d) && "
		 "CPU != %d && CPU != %d", a, b, a, b);
	kprobe_add("far", "available_idle_cpu target=%di:s32", filter);
	write_file(TRACEFS "/tracing_on", "1");
}

/* Empties the trace buffer, and with it the count. */
static inline void
far_probes_reset(void)
{
	int fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		fail(TRACEFS "/trace: %s", strerror(errno));
	close(fd);
}

static inline uint64_t
far_probes(void)
{
	unsigned long long in_buffer, written;
	char buf[4096], *p;

	read_file(TRACEFS "/trace", buf, sizeof(buf));
	p = strstr(buf, "entries-written: ");
	if (!p || sscanf(p, "entries-written: %llu/%llu", &in_buffer,
			 &written) != 2)
		fail("no entries-written in " TRACEFS "/trace");
	return written;
}

static inline struct probe_count
probe_count(void)
{
	struct probe_count c = {
		kprobe_hits(probe_funcs[0]), kprobe_hits(probe_funcs[1]),
	};

	return c;
}

/* Probes per placement between @a and @b, and their placements. */
static inline double
probes_per_placement(struct probe_count a, struct probe_count b,
		     uint64_t *placements)
{
	*placements = b.placements - a.placements;
	return *placements ? (double)(b.probes - a.probes) / *placements : 0;
}

/*
 * A run's length: @run_s seconds, then on, a second at a time, while
 * @done(@arg) is false, up to @cap_s seconds in all.  Under TCG the guest
 * makes progress at the host's pace: beside a kernel build a fixed 8 s
 * run once counted 810 placements where 1000 were wanted.  A run that
 * ends on its count, not on the clock, gives a verdict that does not
 * depend on the host's load; the cap only stops a hung guest earlier
 * than the boot's timeout would.  Returns the seconds it ran.
 */
static inline int
run_until(int run_s, int cap_s, int (*done)(void *), void *arg)
{
	int s;

	sleep_ms(run_s * 1000);
	for (s = run_s; s < cap_s && !done(arg); s++)
		sleep_ms(1000);
	return s;
}

#endif /* SIS_UTIL_H */
