/*
 * scx_fakevm.c - a stand-in for a QEMU process, for the boot test of the
 * daemon (tests/scx/daemon.sh): libvirt's test driver lists a running
 * domain NAME, and the daemon finds its vCPU threads the way it finds
 * QEMU's, through /run/libvirt/qemu/NAME.pid and the threads' names
 * ("CPU <n>/KVM").  Each thread behaves like a halting vCPU: it works
 * about 200 us and sleeps about 1 ms, so every round is a wake-up for the
 * scheduler to place.
 *
 *   scx_fakevm NAME NVCPUS PIDDIR
 *
 * Runs until killed.  SIGUSR1 puts its last vCPU thread in SCHED_BATCH,
 * as libvirt's <vcpusched scheduler='batch'> would: a class of its own,
 * which the daemon must leave alone.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_VCPUS 64

static volatile sig_atomic_t batch_asked;
static int nvcpus;

static void
on_usr1(int sig)
{
	(void)sig;
	batch_asked = 1;
}

static unsigned long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL +
	    (unsigned long long)ts.tv_nsec;
}

static void *
vcpu_main(void *arg)
{
	struct timespec nap = { 0, 1000000 };
	struct sched_param none = { 0 };
	int k = (int)(long)arg, batch = 0;
	char name[16];
	unsigned long long t0;

	snprintf(name, sizeof(name), "CPU %d/KVM", k);
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		if (batch_asked && !batch && k == nvcpus - 1 &&
		    sched_setscheduler(0, SCHED_BATCH, &none) == 0)
			batch = 1;
		t0 = now_ns();
		while (now_ns() - t0 < 200000)
			;
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t th;
	char path[512];
	FILE *f;
	int n, i;

	if (argc != 4 || (n = atoi(argv[2])) < 1 || n > MAX_VCPUS) {
		fprintf(stderr, "usage: scx_fakevm NAME NVCPUS PIDDIR\n");
		return 2;
	}
	nvcpus = n;
	signal(SIGUSR1, on_usr1);
	for (i = 0; i < n; i++)
		if (pthread_create(&th, NULL, vcpu_main, (void *)(long)i)) {
			fprintf(stderr, "scx_fakevm: pthread_create failed\n");
			return 1;
		}
	/* the pidfile last: once it exists, every vCPU thread is named */
	usleep(100000);
	snprintf(path, sizeof(path), "%s/%s.pid", argv[3], argv[1]);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
		fprintf(stderr, "scx_fakevm: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;)
		pause();
}
