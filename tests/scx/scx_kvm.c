/*
 * scx_kvm.c - real KVM vCPUs under the vcpuplace scheduler, nested in the
 * scx-test guest (run by tests/scx/boot.sh when the guest has /dev/kvm).
 *
 * A KVM guest of NVCPU vCPUs, each running "hlt; out 0x10; jmp" in real
 * mode with an in-kernel LAPIC: a halted vCPU's thread sleeps in the
 * kernel (kvm_vcpu_halt), as a real idle vCPU does.  The test wakes one
 * vCPU at a time with an IPI (an NMI sent through KVM_SIGNAL_MSI to its
 * APIC ID); the vCPU runs its NMI handler, exits to user space on the
 * port write, and its thread notes the CPU it woke on.  Two unpinned CPU
 * hogs run beside them.
 *
 * The same kicks run under CFS and under vcpuplace (homes from the
 * placement core's planner, fed as the daemon feeds them), in one boot.
 * The hogs and the kicking thread are pinned to the cores that hold no
 * home, so a home's core is whole and idle at each kick: the home rule
 * always applies, and where the test's own threads happened to run no
 * longer decides the share (unpinned, it read 20 % to 75 % under
 * vcpuplace and 0 % to 40 % under CFS, and the comparison of the two
 * could go either way).  It reports the share of wake-ups on the vCPU's
 * home, measured in user space for both, and the scheduler's own count
 * for vcpuplace; it fails if a kick is lost or not decided, or if fewer
 * than HOME_MIN_PCT % of vcpuplace's wake-ups are on the home.  Without
 * the home rule a vCPU would take either idle core, its own home's or
 * the other vCPU's.  CFS's share is printed, not judged: it has no
 * homes, and its share is wherever a thread last ran.
 *
 * KVM's own halt figures (its binary stats, KVM_GET_STATS_FD:
 * halt_poll_success_ns, halt_poll_fail_ns, halt_wait_ns, summed over the
 * vCPUs) are read around each phase of kicks and printed: under CFS,
 * under vcpuplace with POLL_END off (the scheduler as it was) and with it
 * on.  The kicks wake a vCPU whose home is idle, so POLL_END (which acts
 * only when nothing is idle) is not what they measure; the line is a
 * reading, not a verdict.  The verdict on the probes POLL_END needs: with
 * KVM there they are attached, and they saw at least one halt per kick.
 * The last line: "scx_kvm: PASS" or "scx_kvm: FAIL <why>".
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "scx/scx.h"
#include "scx/scxfeed.h"
#include "guest_kvm.h"
#include "guest_topo.h"
#include "guest_util.h"

#define NVCPU		2
#define NHOGS		2
#define KICKS		50	/* per vCPU, scheduler and phase */
#define HOME_MIN_PCT	90	/* a kernel thread may take a home now and then */

struct vcpu {
	int fd;
	int stats_fd;	/* KVM_GET_STATS_FD, opened before KVM_RUN */
	struct kvm_run *run;
	pthread_t thread;
	atomic_int tid;
	atomic_int woke_cpu;
	sem_t woke;
};

static struct vp_topo *topo;
static int vm_fd;
static struct vcpu vcpus[NVCPU];
static atomic_int stop;

static void *
vcpu_main(void *arg)
{
	struct vcpu *v = arg;

	atomic_store(&v->tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&stop)) {
		guest_kvm_run_to_wake(v->fd, v->run);
		/* woken by the IPI: where did the scheduler put us? */
		atomic_store(&v->woke_cpu, sched_getcpu());
		sem_post(&v->woke);
	}
	return NULL;
}

static void
vm_create(void)
{
	struct guest_kvm g;
	uint16_t ip;
	int i;

	guest_kvm_vm(&g);
	vm_fd = g.vm;
	ip = guest_kvm_halt_code(&g);
	for (i = 0; i < NVCPU; i++) {
		struct vcpu *v = &vcpus[i];

		v->fd = guest_kvm_vcpu(&g, i, ip, &v->run);
		v->stats_fd = guest_kvm_stats_fd(v->fd);
		sem_init(&v->woke, 0, 0);
		if (pthread_create(&v->thread, NULL, vcpu_main, v))
			fail("pthread_create");
	}
	close(g.kvm);
}

/* One IPI to vCPU @i once it halted; the CPU it woke on.  Fails the
 * test if it never halts, or does not wake, within 5 s. */
static int
kick(int i)
{
	struct timespec ts;
	int n;

	for (n = 0; !guest_thread_blocked(atomic_load(&vcpus[i].tid)); n++) {
		if (n > 5000)
			fail("vCPU %d did not halt within 5 s", i);
		sleep_ms(1);
	}
	/* the vCPU sleeps a little longer, like an idle guest */
	sleep_ms(2);
	guest_kvm_nmi(vm_fd, i);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	if (sem_timedwait(&vcpus[i].woke, &ts))
		fail("vCPU %d did not wake within 5 s of its IPI", i);
	return atomic_load(&vcpus[i].woke_cpu);
}

/* Every vCPU's halt figures, summed, into @ret. */
static void
halt_stats(uint64_t ret[GUEST_KVM_NHALT])
{
	int i;

	memset(ret, 0, GUEST_KVM_NHALT * sizeof(ret[0]));
	for (i = 0; i < NVCPU; i++)
		guest_kvm_halt_add(vcpus[i].stats_fd, ret);
}

/*
 * Every vCPU's halt figures as a phase starts, into @ret.  KVM adds a
 * halt's time when the halt ends, so a halt begun before the phase (the
 * vCPUs halt while the scheduler loads: 10 to 26 s under TCG) would be
 * counted in it whole; one kick per vCPU first, not counted, ends it.
 */
static void
halt_phase_start(uint64_t ret[GUEST_KVM_NHALT])
{
	int i;

	for (i = 0; i < NVCPU; i++)
		(void)kick(i);
	halt_stats(ret);
}

/* One phase's halt figures: what @before became, in ms. */
static void
halt_print(const char *phase, const uint64_t before[GUEST_KVM_NHALT])
{
	uint64_t now[GUEST_KVM_NHALT];
	int k;

	halt_stats(now);
	printf("scx_kvm: KVM_STATS %s", phase);
	for (k = 0; k < GUEST_KVM_NHALT; k++)
		printf(" %s_ms=%.1f", guest_kvm_halt_names[k],
		    (double)(now[k] - before[k]) / 1e6);
	printf("\n");
}

static cpu_set_t away;	/* OS CPUs of the cores that hold no home */

static void *
hog_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		;
	return NULL;
}

/* Homes from the placement core: the guest is a VM of NVCPU vCPUs. */
static void
plan_homes(int homes[NVCPU])
{
	struct vp_cpuset busy;

	cpuset_zero(&busy);
	plan_vms(topo, 1, NVCPU, &busy, homes, NULL);
}

/* @away: every PU whose core holds none of @homes. */
static void
away_from(const int homes[NVCPU])
{
	int p, i;

	CPU_ZERO(&away);
	for (p = 0; p < topo->npus; p++) {
		bool home_core = false;

		for (i = 0; i < NVCPU; i++)
			home_core |= topo->pu[homes[i]].core == topo->pu[p].core;
		if (!home_core)
			CPU_SET(topo->pu[p].os_index, &away);
	}
	if (CPU_COUNT(&away) == 0)
		fail("every core holds a home: nowhere to put the hogs");
}

/* KICKS kicks of every vCPU; returns how many woke on their home. */
static int
kick_all(const int homes[NVCPU], int *ret_kicks)
{
	int i, k, on_home = 0, cpu;

	*ret_kicks = 0;
	for (k = 0; k < KICKS; k++)
		for (i = 0; i < NVCPU; i++) {
			cpu = kick(i);
			(*ret_kicks)++;
			if (topo_pu_of_os(topo, (unsigned int)cpu) == homes[i])
				on_home++;
		}
	return on_home;
}

int
main(void)
{
	_cleanup_scx_ struct scx_sched *s = NULL;
	pthread_t hogs[NHOGS];
	struct vp_scx_vcpu_stats st;
	struct vp_policy pol;
	int homes[NVCPU], i, err, n_cfs, n_scx, n_old, home_cfs, home_scx;
	unsigned long wakes = 0, home = 0;
	uint64_t halts[GUEST_KVM_NHALT], stats[VP_SCX_STAT_NR];
	const char *probes;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_name = "scx_kvm";
	if (access("/dev/kvm", R_OK | W_OK) != 0)
		fail("no /dev/kvm in the guest: %s", strerror(errno));
	if (guest_topo_load(&topo))
		fail("cannot read the guest's topology");
	vm_create();
	for (i = 0; i < NVCPU; i++)
		while (!atomic_load(&vcpus[i].tid))
			sleep_ms(1);
	plan_homes(homes);
	away_from(homes);
	/* the kicker and both hogs stay off the homes' cores */
	if (sched_setaffinity(0, sizeof(away), &away))
		fail("sched_setaffinity: %s", strerror(errno));
	for (i = 0; i < NHOGS; i++) {
		if (pthread_create(&hogs[i], NULL, hog_main, NULL))
			fail("pthread_create");
		if (pthread_setaffinity_np(hogs[i], sizeof(away), &away))
			fail("pthread_setaffinity_np");
	}

	halt_phase_start(halts);
	home_cfs = kick_all(homes, &n_cfs);
	halt_print("cfs", halts);

	s = load_described(topo);
	policy_default(&pol);
	for (i = 0; i < NVCPU; i++) {
		struct vp_scx_vcpu e;
		const struct scxfeed_vcpu_in in = {
			.policy = &pol, .nvcpus = NVCPU, .home = homes[i],
			.anchor = VP_PU_NONE, .vm = 0, .vcpu = i,
		};

		scxfeed_vcpu(topo, &in, &e);
		if ((err = scx_vcpu_set(s, atomic_load(&vcpus[i].tid), &e)))
			fail("scx_vcpu_set: %s", strerror(-err));
	}
	/* the scheduler as it was, without POLL_END, then as it is */
	scx_features_set(s, VP_SCX_FEAT_DEFAULT & ~VP_SCX_FEAT_POLL_END);
	halt_phase_start(halts);
	(void)kick_all(homes, &n_old);
	halt_print("vcpuplace-without-poll-end", halts);
	scx_features_set(s, VP_SCX_FEAT_DEFAULT);
	halt_phase_start(halts);
	home_scx = kick_all(homes, &n_scx);
	halt_print("vcpuplace", halts);
	if (scx_stats_read(s, stats))
		fail("reading the scheduler's counters");
	probes = scx_halt_probes(s);	/* scx_detach() drops them */
	for (i = 0; i < NVCPU; i++) {
		if (scx_vcpu_stats_read(s, atomic_load(&vcpus[i].tid), &st))
			fail("reading the vCPU counters");
		wakes += st.n[VP_SCX_V_WAKEUP];
		home += st.n[VP_SCX_V_HOME];
	}
	if (scx_exited(s))
		fail("the scheduler was ejected during the kicks");
	scx_detach(s);
	atomic_store(&stop, 1);
	for (i = 0; i < NHOGS; i++)
		pthread_join(hogs[i], NULL);

	printf("scx_kvm: RESULT vcpus=%d hogs=%d kicks=%d cfs_home_pct=%.1f "
	    "scx_home_pct=%.1f scx_decisions=%lu scx_decided_home_pct=%.1f\n",
	    NVCPU, NHOGS, n_scx, 100.0 * home_cfs / n_cfs,
	    100.0 * home_scx / n_scx, wakes,
	    wakes ? 100.0 * (double)home / (double)wakes : 0.0);
	printf("scx_kvm: HALT_PROBES attached=%s halts_seen=%llu kicks=%d "
	    "wake_poll_end=%llu\n", probes ? probes : "no",
	    (unsigned long long)stats[VP_SCX_HALT_SEEN], n_old + n_scx,
	    (unsigned long long)stats[VP_SCX_WAKE_POLL_END]);
	/*
	 * kprobes need CONFIG_KPROBES (register_kprobe), fentry ftrace's
	 * call sites (__fentry__); a kernel with neither (the 6.12 test
	 * kernel had neither until its fragment named KPROBES) runs the
	 * scheduler on without the probes
	 */
	if (!probes && (guest_kernel_has_symbol("register_kprobe") ||
	    guest_kernel_has_symbol("__fentry__")))
		fail("KVM is there, and the kvm_vcpu_halt() probes are not "
		    "attached");
	if (!probes)
		printf("scx_kvm: neither kprobes nor fentry on this kernel: "
		    "the probes are not judged\n");
	/* each kick wakes a vCPU that halted for it: one halt at least */
	else if (stats[VP_SCX_HALT_SEEN] < (uint64_t)(n_old + n_scx))
		fail("the %s probes saw %llu halts for %d kicks", probes,
		    (unsigned long long)stats[VP_SCX_HALT_SEEN], n_old + n_scx);
	if (wakes < (unsigned long)(n_old + n_scx))
		fail("the scheduler decided %lu wake-ups for %d kicks", wakes,
		    n_old + n_scx);
	if (home_scx * 100 < HOME_MIN_PCT * n_scx)
		fail("%d of %d wake-ups on the home under vcpuplace, want %d %%"
		    " with every home's core idle", home_scx, n_scx,
		    HOME_MIN_PCT);
	printf("scx_kvm: PASS\n");
	/* the vCPU threads sleep in KVM_RUN; exit() takes them down */
	exit(0);
}
