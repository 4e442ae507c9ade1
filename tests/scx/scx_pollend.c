/*
 * scx_pollend.c - POLL_END in a booted kernel, with KVM's real halt polls
 * (nested in the scx-test guest, run by tests/scx/boot.sh): a wake-up
 * that finds no CPU idle takes the CPU of a vCPU that halt-polls.
 *
 * Two KVM guests of one vCPU each, each halting until an NMI wakes it
 * (guest_kvm_halt_code(), as scx_kvm's):
 *   - the poller, pinned to CPU X, in a VM whose halt polls may last
 *     POLL_NS (KVM_CAP_HALT_POLL), with kvm's halt_poll_ns_grow_start
 *     raised to match, so that its first short halt grows its window that
 *     far (6.12 kvm_vcpu_halt(), grow_halt_poll_ns()); under sched_ext
 *     its slice's end (need_resched()) may cut a poll short;
 *   - the wakee, managed as a vCPU whose home is on another core, free
 *     to run anywhere, in a VM that never polls (KVM_CAP_HALT_POLL 0):
 *     every halt sleeps, so every NMI is a wake-up the scheduler decides.
 * A hog is pinned on every CPU but X and K, and this thread, pinned to K,
 * never sleeps: it spins while it waits.  So when the wakee is woken no
 * CPU is idle, and X, whose vCPU polls, is busy only in name.  Each round
 * wakes the poller (it halts again and polls), spins until the
 * scheduler's poll record for X says so (scx_cpu_polling()), then wakes
 * the wakee and times its run.
 *
 * Two phases, POLL_END off and then on.  Where the halt probes attach
 * (kprobes or fentry on kvm_vcpu_halt()), the verdicts:
 *   - with POLL_END off, none of the wakee's wake-ups is a POLL_END;
 *   - with it on, at least one is, and the wakee ran on X at least once;
 *   - after each wake-up that ran on X, once the wakee halted, either
 *     the poller slept (its poll ended) or X's poll record came back:
 *     on 7.3.4 the poller, preempted for the wakee, polls on, and the
 *     scheduler must stamp its record again (ops.running);
 * and with KVM there and the probes not attached where the kernel has
 * kprobes or fentry, a failure.  Readings, not verdicts: each phase's
 * median wake-up latency (NMI to the vCPU's port exit) and KVM's halt
 * figures.  The last line: "scx_pollend: PASS" or "scx_pollend: FAIL
 * <why>".
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

#define ROUNDS		20	/* per phase */
#define POLL_NS		4000000000u	/* the poller's window: 4 s, about
					 * KVM's most (an unsigned int) */
#define WAIT_NS		5000000000ull	/* for anything: 5 s */
#define TRIES		20	/* wake-ups of the poller until it polls */
#define BACK_NS		2000000000ull	/* for the poll record to come back:
					 * inside the poller's window, and
					 * seven times the slowest wake-up
					 * seen under TCG (0.27 s) */
#define GROW_START	"/sys/module/kvm/parameters/halt_poll_ns_grow_start"

struct vcpu {
	int vm, fd, stats_fd;
	struct kvm_run *run;
	int pin;		/* OS CPU, or -1: anywhere */
	atomic_int tid;
	atomic_uint woke;	/* port exits so far */
	atomic_int woke_cpu;
	_Atomic uint64_t woke_ns;
};

static struct vcpu poller, wakee;

static void *
vcpu_main(void *arg)
{
	struct vcpu *v = arg;

	if (v->pin >= 0 && pin_self(v->pin))
		fail("pinning the poller to CPU %d", v->pin);
	atomic_store(&v->tid, (int)syscall(SYS_gettid));
	for (;;) {
		guest_kvm_run_to_wake(v->fd, v->run);
		atomic_store(&v->woke_ns, now_ns());
		atomic_store(&v->woke_cpu, sched_getcpu());
		atomic_fetch_add(&v->woke, 1);
	}
	return NULL;
}

/* A VM of one vCPU whose halt polls last at most @poll_ns, its thread. */
static void
vm_create(struct vcpu *v, unsigned int poll_ns, int pin)
{
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_HALT_POLL, .args = { poll_ns },
	};
	struct guest_kvm g;
	pthread_t t;

	guest_kvm_vm(&g);
	if (ioctl(g.kvm, KVM_CHECK_EXTENSION, KVM_CAP_HALT_POLL) <= 0)
		fail("KVM has no KVM_CAP_HALT_POLL");
	if (ioctl(g.vm, KVM_ENABLE_CAP, &cap))
		fail("KVM_CAP_HALT_POLL %u: %s", poll_ns, strerror(errno));
	v->vm = g.vm;
	v->pin = pin;
	v->fd = guest_kvm_vcpu(&g, 0, guest_kvm_halt_code(&g), &v->run);
	v->stats_fd = guest_kvm_stats_fd(v->fd);
	close(g.kvm);
	if (pthread_create(&t, NULL, vcpu_main, v))
		fail("pthread_create");
	while (!atomic_load(&v->tid))
		sleep_ms(1);
}

static void *
hog_main(void *arg)
{
	if (pin_self((int)(intptr_t)arg))
		fail("pinning a hog to CPU %d", (int)(intptr_t)arg);
	for (;;)
		;
	return NULL;
}

/* Spins (this thread never leaves K) until @v's port exit number @n. */
static bool
spin_woke(const struct vcpu *v, unsigned int n)
{
	uint64_t end = now_ns() + WAIT_NS;

	while (atomic_load(&v->woke) < n)
		if (now_ns() > end)
			return false;
	return true;
}

/* Spins until @v's thread sleeps off its runqueue (its halt). */
static void
spin_blocked(const struct vcpu *v, const char *what)
{
	uint64_t end = now_ns() + WAIT_NS;

	while (!guest_thread_blocked(atomic_load(&v->tid)))
		if (now_ns() > end)
			fail("the %s's thread did not halt within 5 s", what);
}

/*
 * Wakes the poller until the scheduler's record says it halt-polls on
 * @x.  Its poll may end before it is seen (its slice ran out during it,
 * under sched_ext): it then sleeps, and the next NMI wakes it with a
 * fresh slice.
 */
static void
poller_polls(struct scx_sched *s, int x)
{
	int try, p;

	for (try = 0; try < TRIES; try++) {
		unsigned int n = atomic_load(&poller.woke) + 1;
		uint64_t end;

		guest_kvm_nmi(poller.vm, 0);
		if (!spin_woke(&poller, n))
			fail("the poller did not wake within 5 s of its NMI");
		end = now_ns() + WAIT_NS / 50;
		while ((p = scx_cpu_polling(s, x)) == 0 && now_ns() < end)
			;
		if (p < 0)
			fail("reading CPU %d's poll record: %s", x,
			    strerror(-p));
		if (p == 1)
			return;
	}
	fail("the poller never halt-polled on CPU %d in %d wake-ups", x,
	    TRIES);
}

/*
 * After the wakee ran on X and halted: 1 if X's poll record came back,
 * 0 if the poller slept, -1 if within BACK_NS neither did (it polled on
 * unseen).  A kernel that preempts at an interrupt's return (7.3.4)
 * preempts the poller for the wakee rather than ending its poll, and
 * KVM's loop polls on once the wakee is gone; the scheduler stamps the
 * record again when the poller runs (ops.running).  Where the poll loop
 * sees the wakee itself, the poller sleeps.
 */
static int
poll_back(struct scx_sched *s, int x)
{
	uint64_t end;
	int p;

	spin_blocked(&wakee, "wakee");
	end = now_ns() + BACK_NS;
	for (;;) {
		if ((p = scx_cpu_polling(s, x)) < 0)
			fail("reading CPU %d's poll record: %s", x,
			    strerror(-p));
		if (p == 1)
			return 1;
		if (guest_thread_blocked(atomic_load(&poller.tid)))
			return 0;
		if (now_ns() > end)
			return -1;
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct phase {
	const char *name;
	int on_x;		/* wake-ups that ran on X */
	int back;		/* ... after which X's poll record came back */
	int slept;		/* ... after which the poller slept */
	uint64_t lat_ns[ROUNDS];
	uint64_t poll_end;	/* the wakee's POLL_END decisions */
	uint64_t halt[GUEST_KVM_NHALT];	/* the poller's, over the phase */
};

static void
run_phase(struct scx_sched *s, struct phase *ph, int x)
{
	struct vp_scx_vcpu_stats before, after;
	uint64_t h0[GUEST_KVM_NHALT] = { 0 };
	int r, tid = atomic_load(&wakee.tid);

	if (scx_vcpu_stats_read(s, tid, &before))
		fail("reading the wakee's counters");
	guest_kvm_halt_add(poller.stats_fd, h0);
	for (r = 0; r < ROUNDS; r++) {
		unsigned int n = atomic_load(&wakee.woke) + 1;
		uint64_t t0;

		spin_blocked(&wakee, "wakee");
		poller_polls(s, x);
		t0 = now_ns();
		guest_kvm_nmi(wakee.vm, 0);
		if (!spin_woke(&wakee, n))
			fail("%s: the wakee did not wake within 5 s of its NMI",
			    ph->name);
		ph->lat_ns[r] = atomic_load(&wakee.woke_ns) - t0;
		if (atomic_load(&wakee.woke_cpu) != x)
			continue;
		ph->on_x++;
		switch (poll_back(s, x)) {
		case 1:
			ph->back++;
			break;
		case 0:
			ph->slept++;
			break;
		}
	}
	if (scx_vcpu_stats_read(s, tid, &after))
		fail("reading the wakee's counters");
	ph->poll_end = after.n[VP_SCX_V_POLL_END] -
	    before.n[VP_SCX_V_POLL_END];
	guest_kvm_halt_add(poller.stats_fd, ph->halt);
	for (r = 0; r < GUEST_KVM_NHALT; r++)
		ph->halt[r] -= h0[r];
	qsort(ph->lat_ns, ROUNDS, sizeof(ph->lat_ns[0]), cmp_u64);
	printf("scx_pollend: PHASE %s rounds=%d wake_poll_end=%llu on_x=%d "
	    "poll_back=%d poller_slept=%d "
	    "median_wake_us=%.0f max_wake_us=%.0f poller_%s_ms=%.1f "
	    "poller_%s_ms=%.1f poller_%s_ms=%.1f\n", ph->name, ROUNDS,
	    (unsigned long long)ph->poll_end, ph->on_x, ph->back, ph->slept,
	    ph->lat_ns[ROUNDS / 2] / 1e3, ph->lat_ns[ROUNDS - 1] / 1e3,
	    guest_kvm_halt_names[0], ph->halt[0] / 1e6,
	    guest_kvm_halt_names[1], ph->halt[1] / 1e6,
	    guest_kvm_halt_names[2], ph->halt[2] / 1e6);
}

static char old_grow[32];	/* kvm's halt_poll_ns_grow_start before */

/* kvm's halt_poll_ns_grow_start: the old value into old_grow, @val
 * written. */
static void
grow_start_set(const char *val)
{
	FILE *f = fopen(GROW_START, "r+");

	if (!f)
		fail("open %s: %s", GROW_START, strerror(errno));
	if (!fgets(old_grow, sizeof(old_grow), f))
		fail("reading %s", GROW_START);
	rewind(f);
	if (fputs(val, f) < 0 || fclose(f))
		fail("writing %s to %s", val, GROW_START);
}

/* At exit, failed or not: kvm's parameter as it was, for what runs next
 * in the same boot. */
static void
grow_start_restore(void)
{
	FILE *f = fopen(GROW_START, "w");

	if (f) {
		fputs(old_grow, f);
		fclose(f);
	}
}

int
main(void)
{
	_cleanup_scx_ struct scx_sched *s = NULL;
	struct vp_topo *topo;
	struct vp_cpuset none;
	struct vp_policy pol;
	struct vp_scx_vcpu e;
	struct phase off = { .name = "without-poll-end" },
	    on = { .name = "with-poll-end" };
	char grow[32];
	int home, xp = -1, kp = -1, p, x, k, err;
	const char *probes;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_name = "scx_pollend";
	if (access("/dev/kvm", R_OK | W_OK) != 0)
		fail("no /dev/kvm in the guest: %s", strerror(errno));
	if (guest_topo_load(&topo))
		fail("cannot read the guest's topology");
	/* the wakee's home as the daemon plans it; X and K on other cores */
	cpuset_zero(&none);
	plan_vms(topo, 1, 1, &none, &home, NULL);
	for (p = 0; p < topo->npus; p++) {
		if (topo->pu[p].core == topo->pu[home].core)
			continue;
		if (xp < 0)
			xp = p;
		else if (kp < 0 && topo->pu[p].core != topo->pu[xp].core)
			kp = p;
	}
	if (xp < 0 || kp < 0)
		fail("the guest has fewer than three cores");
	x = (int)topo->pu[xp].os_index;
	k = (int)topo->pu[kp].os_index;

	/*
	 * The scheduler first: where its probes cannot attach there is
	 * nothing to judge, and the test leaves before it starts a VM, a
	 * hog or changes kvm's parameter (kallsyms is read with the guest's
	 * CPUs idle, not behind six hogs under TCG).
	 */
	s = load_described(topo);
	probes = scx_halt_probes(s);
	printf("scx_pollend: poller on CPU %d, test on CPU %d, wakee's home "
	    "CPU %u, halt probes %s\n", x, k, topo->pu[home].os_index,
	    probes ? probes : "not attached");
	if (!probes) {
		/* as scx_kvm: a kernel built with neither kprobes nor
		 * ftrace's call sites has nothing to attach to */
		if (guest_kernel_has_symbol("register_kprobe") ||
		    guest_kernel_has_symbol("__fentry__"))
			fail("KVM is there, and the kvm_vcpu_halt() probes "
			    "are not attached");
		printf("scx_pollend: neither kprobes nor fentry on this "
		    "kernel: POLL_END cannot act, nothing to judge\n");
		printf("scx_pollend: PASS\n");
		exit(0);
	}

	snprintf(grow, sizeof(grow), "%u\n", POLL_NS);
	grow_start_set(grow);
	atexit(grow_start_restore);
	vm_create(&poller, POLL_NS, x);
	vm_create(&wakee, 0, -1);
	if (pin_self(k))
		fail("pinning the test to CPU %d", k);
	for (p = 0; p < topo->npus; p++) {
		pthread_t t;
		int cpu = (int)topo->pu[p].os_index;

		if (cpu == x || cpu == k)
			continue;
		if (pthread_create(&t, NULL, hog_main, (void *)(intptr_t)cpu))
			fail("pthread_create");
	}
	policy_default(&pol);
	{
		const struct scxfeed_vcpu_in in = {
			.policy = &pol, .nvcpus = 1, .home = home,
			.anchor = VP_PU_NONE, .vm = 0, .vcpu = 0,
		};

		scxfeed_vcpu(topo, &in, &e);
	}
	if ((err = scx_vcpu_set(s, atomic_load(&wakee.tid), &e)))
		fail("scx_vcpu_set: %s", strerror(-err));

	scx_features_set(s, VP_SCX_FEAT_DEFAULT & ~VP_SCX_FEAT_POLL_END);
	/* the poller's first halt lasted the whole set-up: out of the
	 * phases' figures, and its window grown */
	poller_polls(s, x);
	run_phase(s, &off, x);
	scx_features_set(s, VP_SCX_FEAT_DEFAULT);
	run_phase(s, &on, x);
	expect_loaded(s, "after the wake-ups");
	stats_print(s);
	if (off.poll_end)
		fail("%llu POLL_END wake-ups with POLL_END off",
		    (unsigned long long)off.poll_end);
	if (!on.poll_end)
		fail("no wake-up of %d ended the poll on CPU %d with POLL_END "
		    "on (nothing else idle)", ROUNDS, x);
	if (!on.on_x)
		fail("%llu POLL_END wake-ups, and the wakee never ran on the "
		    "polling CPU %d", (unsigned long long)on.poll_end, x);
	if (on.back + on.slept < on.on_x)
		fail("after %d of %d wake-ups on CPU %d the poller polled on "
		    "for 2 s and its poll record stayed clear",
		    on.on_x - on.back - on.slept, on.on_x, x);
	printf("scx_pollend: PASS\n");
	/* the vCPU threads sleep in KVM_RUN; exit() takes them down */
	exit(0);
}
