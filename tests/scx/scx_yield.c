/*
 * scx_yield.c - KVM's directed yield under the vcpuplace scheduler, in
 * a nested KVM guest of the scx-test boot.
 *
 * A VM of two vCPUs whose threads are pinned to one CPU, so that one
 * waits while the other runs.  vCPU 1 spins ("jmp ."), standing for a
 * lock holder; vCPU 0 makes KVM's PV sched-yield hypercall
 * (KVM_HC_SCHED_YIELD, vmmcall, rbx = APIC ID 1) in a loop, standing for
 * a waiter that asks for the holder to run.  KVM's kvm_sched_yield()
 * counts each call (directed_yield_attempted) and calls yield_to() on
 * vCPU 1's thread when that thread was preempted (vcpu->ready); a yield
 * the scheduler honours counts as directed_yield_successful.  The same
 * calls run in three phases of one boot, each until vCPU 0 has made
 * CALLS more of them:
 *   - CFS (yield_to_task_fair()): printed, not judged;
 *   - vcpuplace with YIELD_TO off: no ops.yield verdict, so 6.12's
 *     yield_to_task_scx() answer, false: not one may succeed;
 *   - vcpuplace: at least MIN_OK succeed, and the scheduler's own
 *     counters say it honoured them (yield_to) and brought vCPU 1 from
 *     its queue (yield_moved).
 * Counts only: how many calls fit in a slice is TCG's business.
 * The last line: "scx_yield: PASS", "scx_yield: FAIL <why>", or
 * "scx_yield: SKIP <why>" without /dev/kvm.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "scx/scx.h"
#include "scx/scxfeed.h"
#include "guest_kvm.h"
#include "guest_topo.h"
#include "guest_util.h"

#define CALLS		2000	/* hypercalls per phase */
#define MIN_OK		5	/* yields vcpuplace must honour */
#define PHASE_S		120	/* a phase that makes no calls fails */
#define YIELD_ADDR	0x1000
#define SPIN_ADDR	0x1100

enum { ATTEMPTED, SUCCESSFUL, NSTAT };
static const char *const stat_names[NSTAT] = {
	"directed_yield_attempted", "directed_yield_successful",
};

struct vcpu {
	int fd;
	int stats_fd;	/* KVM_GET_STATS_FD, opened before KVM_RUN */
	struct kvm_run *run;
	atomic_int tid;
};

static struct vcpu vcpus[2];
static int cpu;			/* the one CPU both vCPU threads run on */

static void *
vcpu_main(void *arg)
{
	struct vcpu *v = arg;

	atomic_store(&v->tid, (int)syscall(SYS_gettid));
	if (pin_self(cpu))
		fail("pinning a vCPU thread to CPU %d", cpu);
	for (;;) {
		/* neither vCPU ever exits to user space: only a signal */
		if (ioctl(v->fd, KVM_RUN, 0) < 0 && errno != EINTR)
			fail("KVM_RUN: %s", strerror(errno));
		if (v->run->exit_reason != KVM_EXIT_INTR)
			fail("unexpected KVM exit %u", v->run->exit_reason);
	}
	return NULL;
}

static void
vm_create(void)
{
	static const unsigned char yield_loop[] = {
		0x66, 0xb8, 0x0b, 0x00, 0x00, 0x00,	/* mov eax, 11 */
		0x66, 0xbb, 0x01, 0x00, 0x00, 0x00,	/* mov ebx, 1 */
		0x0f, 0x01, 0xd9,			/* vmmcall */
		0xeb, 0xef,				/* jmp to the mov */
	};
	struct guest_kvm g;
	pthread_t t;
	int i;

	guest_kvm_vm(&g);
	memcpy(g.ram + YIELD_ADDR, yield_loop, sizeof(yield_loop));
	memcpy(g.ram + SPIN_ADDR, "\xeb\xfe", 2);	/* jmp . */
	for (i = 0; i < 2; i++) {
		vcpus[i].fd = guest_kvm_vcpu(&g, i, i ? SPIN_ADDR : YIELD_ADDR,
		    &vcpus[i].run);
		vcpus[i].stats_fd = guest_kvm_stats_fd(vcpus[i].fd);
		if (pthread_create(&t, NULL, vcpu_main, &vcpus[i]))
			fail("pthread_create");
	}
	for (i = 0; i < 2; i++)
		while (!atomic_load(&vcpus[i].tid))
			sleep_ms(1);
}

static void
yield_stats(uint64_t ret[NSTAT])
{
	memset(ret, 0, NSTAT * sizeof(ret[0]));
	guest_kvm_stats_add(vcpus[0].stats_fd, stat_names, NSTAT, ret);
}

/*
 * Until vCPU 0 has begun at least @n hypercalls since the counters @from;
 * the counters then, in @ret.  The phase fails after PHASE_S from @t0.
 */
static void
await_calls(const char *name, const uint64_t from[NSTAT], uint64_t n,
    uint64_t ret[NSTAT], long t0)
{
	do {
		if (now_ms() - t0 > PHASE_S * 1000L)
			fail("%s: vCPU 0 made fewer than %llu hypercalls in "
			    "%d s", name, (unsigned long long)n, PHASE_S);
		sleep_ms(1);
		yield_stats(ret);
	} while (ret[ATTEMPTED] - from[ATTEMPTED] < n);
}

/*
 * Until vCPU 0 has made CALLS more calls; the successful ones.  The phase
 * counts from the first hypercall begun after the caller's change, not
 * from the change: a yield that succeeds puts its caller to sleep inside
 * yield_to() before KVM counts the success, so the last call made under
 * the old settings can be counted a whole slice later.  vCPU 0 makes its
 * calls one after another, so once a call begun after `first` is counted,
 * every earlier call's success is too: whatever the counters gain from
 * `before` on belongs to the new settings.
 */
static uint64_t
phase(const char *name)
{
	uint64_t first[NSTAT], before[NSTAT], now[NSTAT];
	long t0 = now_ms();

	yield_stats(first);
	await_calls(name, first, 1, before, t0);
	await_calls(name, before, CALLS, now, t0);
	printf("scx_yield: PHASE %s attempted=%llu successful=%llu\n", name,
	    (unsigned long long)(now[ATTEMPTED] - before[ATTEMPTED]),
	    (unsigned long long)(now[SUCCESSFUL] - before[SUCCESSFUL]));
	return now[SUCCESSFUL] - before[SUCCESSFUL];
}

int
main(void)
{
	_cleanup_scx_ struct scx_sched *s = NULL;
	struct vp_topo *topo;
	struct vp_policy pol;
	uint64_t ok_off, ok_on, st[VP_SCX_STAT_NR];
	int i, err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_name = "scx_yield";
	if (access("/dev/kvm", R_OK | W_OK) != 0) {
		printf("scx_yield: SKIP no /dev/kvm in the guest: %s\n",
		    strerror(errno));
		return 0;
	}
	if (guest_topo_load(&topo))
		fail("cannot read the guest's topology");
	/* the last CPU for the vCPUs, this thread anywhere else */
	cpu = (int)topo->pu[topo->npus - 1].os_index;
	if (pin_self((int)topo->pu[0].os_index))
		fail("pinning the test thread");
	vm_create();

	(void)phase("cfs");

	s = load_described(topo);
	policy_default(&pol);
	for (i = 0; i < 2; i++) {
		struct vp_scx_vcpu e;
		const struct scxfeed_vcpu_in in = {
			.policy = &pol, .nvcpus = 2,
			.home = topo_pu_of_os(topo, (unsigned int)cpu),
			.anchor = VP_PU_NONE, .vm = 0, .vcpu = i,
		};

		scxfeed_vcpu(topo, &in, &e);
		if ((err = scx_vcpu_set(s, atomic_load(&vcpus[i].tid), &e)))
			fail("scx_vcpu_set: %s", strerror(-err));
	}
	scx_features_set(s, VP_SCX_FEAT_DEFAULT & ~VP_SCX_FEAT_YIELD_TO);
	ok_off = phase("vcpuplace-without-yield-to");
	scx_features_set(s, VP_SCX_FEAT_DEFAULT);
	ok_on = phase("vcpuplace");
	expect_loaded(s, "after the yields");
	if (scx_stats_read(s, st))
		fail("reading the scheduler's counters");
	stats_print(s);
	if (ok_off)
		fail("%llu yields succeeded with YIELD_TO off: sched_ext "
		    "without ops.yield refuses them all",
		    (unsigned long long)ok_off);
	if (ok_on < MIN_OK)
		fail("%llu of %d hypercalls yielded under vcpuplace, want >= %d",
		    (unsigned long long)ok_on, CALLS, MIN_OK);
	if (st[VP_SCX_YIELD_TO] < ok_on)
		fail("the scheduler honoured %llu yields, KVM saw %llu",
		    (unsigned long long)st[VP_SCX_YIELD_TO],
		    (unsigned long long)ok_on);
	if (!st[VP_SCX_YIELD_MOVED])
		fail("no yield brought vCPU 1 from its queue");
	printf("scx_yield: PASS\n");
	/* the vCPU threads run on in KVM_RUN; exit() takes them down */
	exit(0);
}
