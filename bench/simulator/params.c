/*
 * params.c - the model's parameters, each with its source.  They were
 * fixed, and written into bench/README.md, before any result was seen;
 * change one only with a public source, and then say so.
 */
#include "sim.h"
#include "costs.h"

void
params_default(struct sim_params *ret)
{
	/*
	 * EEVDF base slice of Linux 6.12: 0.75 ms * (1 + ilog2(min(ncpus,
	 * 8))) with the default log tunable scaling = 3 ms on any host of
	 * 8 CPUs or more: a thread's request (update_deadline()).
	 */
	ret->slice_ns = 3000000;
	/*
	 * The stock runqueues are 6.12's EEVDF (eevdf.c): picks by earliest
	 * eligible deadline, lag kept across sleep and migration, wakeup
	 * preemption with RUN_TO_PARITY, slices that end at a tick.  Off
	 * (--model-eevdf 0): the model before it, a FIFO per PU, fixed 3 ms
	 * slices and no wakeup preemption.  sched_ext keeps its own either
	 * way.
	 */
	ret->eevdf = true;
	/*
	 * The tick: HZ = 250, the default of 6.12's kernel/Kconfig.hz (no
	 * arch override on x86 or arm64) and CONFIG_HZ_250=y in Debian's
	 * amd64 config (checked on /boot/config-6.1.0-57-amd64 here; the
	 * 6.12 package's was not).  Every CPU's tick at the same instants
	 * (sched_skew_tick=0).  The periodic balance (balance.c) and EEVDF's
	 * slice ends (update_curr() from entity_tick()) run on it.  Range
	 * for a sweep: HZ 100..1000 (10..1 ms).
	 */
	ret->jiffy_ns = 4000000;
	/*
	 * Intel: Hyper-Threading gives "up to 30 %" more throughput per
	 * core (Marr et al., Intel Technology Journal 6(1), 2002), so each
	 * of two busy siblings runs at 1.3 / 2 = 0.65 of a lone thread.
	 */
	ret->smt_yield = 0.65;
	/*
	 * Extra latency per refetched cache line, by distance class:
	 * [0] other core, same cluster (the cluster's shared L2 or L3 tag;
	 *     no public per-cluster figure: 3/4 of the LLC hit),
	 * [1] other cluster, same LLC: an L3 hit, ~20 ns on Skylake-SP
	 *     (7-cpu.com, Intel Skylake-X: L3 ~ 68-79 cycles at 3.x GHz),
	 * [2] other LLC, same package (Kunpeng's second die; no public
	 *     figure: taken as 100 ns, between L3 and the remote socket),
	 * [3] other package: ~140 ns, Intel MLC remote-socket latency on
	 *     2-socket Cascade Lake.
	 */
	ret->line_ns[0] = 15;
	ret->line_ns[1] = 20;
	ret->line_ns[2] = 100;
	ret->line_ns[3] = 140;
	/* a vCPU's own hot state: 32 KiB, the L1d of Cascade Lake */
	ret->warm_lines = 512;
	/* a message and its wake-up bookkeeping: 1 KiB read from the waker */
	ret->msg_lines = 16;
	/* misses in flight: Skylake has 10-12 L1d fill buffers (Intel SDM
	 * optimization manual); we take 10 */
	ret->mlp = 10;
	ret->warm_scale = 1.0;
	/*
	 * One probe reads another CPU's runqueue: a line most likely dirty
	 * in that core's cache.  Core-to-core latency on Cascade Lake is
	 * ~50 ns in published measurements (AnandTech, Chips and Cheese).
	 */
	ret->probe_ns = 50;
	/*
	 * One CPU looked at by the sched_ext scheduler's scan: an iterator
	 * step (bpf_iter_num_next(), a kfunc call), a kfunc bit test
	 * (bpf_cpumask_test_cpu()) and an inlined array-map lookup, all on
	 * lines the waker already holds.  No published per-step figure was
	 * found; a kfunc call is a direct call of a few instructions, so a
	 * few ns: 5 ns, swept 2-50 in make bench (50: as dear as a runqueue
	 * read, the pessimistic end).
	 */
	ret->bpf_step_ns = 5;
	/*
	 * How much of its core a halt-polling vCPU takes from its SMT
	 * sibling.  KVM's loop (6.12 kvm_vcpu_halt()) checks for a wake-up,
	 * reads the clock and runs cpu_relax(): PAUSE, whose latency is ~140
	 * cycles from Skylake on (Intel optimization manual, "Pause latency
	 * in Skylake microarchitecture") so that a spinning thread leaves
	 * the core to its sibling.  No measured figure of the sibling's
	 * slowdown was found: half a busy thread, with 0 (PAUSE alone) and
	 * 1 (a thread at work) the ends of the range.
	 */
	ret->poll_smt_weight = 0.5;
	/*
	 * Host tasks (hosttasks.c).  No published figure for any of these
	 * on a KVM host; each is an option to sweep.
	 *   Per-CPU kthreads: work due once a tick (CONFIG_HZ=250, Debian's
	 *   and Ubuntu's generic kernels: 4 ms; vmstat_update, RCU,
	 *   ksoftirqd's timer softirqs), 5 us a burst; range 1-50 us, 1-10
	 *   ms.  0.125 % of each PU.
	 *   vhost: one kick every 16 burst ends of a vCPU (a virtio queue
	 *   notification: a guest doing I/O or network), 5 us a kick;
	 *   range every 1-256, 1-50 us.  On hackbench's 20 us bursts that
	 *   is 5 / 320 = 1.6 % of the vCPUs' demand, on 10 ms hogs nothing.
	 *   QEMU main loop / I/O thread: a wake-up every 2 ms on average
	 *   (its timers, the monitor, block I/O completions), 10 us each;
	 *   range 0.1-20 ms, 1-100 us.  0.5 % of a core per VM.
	 * Together 1-2 % of the host's PU time on the seeds' workloads
	 * (host_share in each JSON line).
	 */
	ret->kthread_ns = 5000;
	ret->kthread_period_ns = 4000000;
	ret->vhost_ns = 5000;
	ret->vhost_every = 16;
	ret->iothread_ns = 10000;
	ret->iothread_period_ns = 2000000;
	/*
	 * Active balance's stopper (6.12 stop_one_cpu_nowait() ->
	 * active_load_balance_cpu_stop()): an IPI to the busiest CPU, a
	 * switch to its stopper thread, which detaches the preempted task,
	 * and a switch on.  No published figure for the whole: an IPI
	 * ~1 us and a context switch ~1.5 us (lmbench lat_ctx on current
	 * x86 is 1-3 us), so 4 us, before the migration's own cost.
	 */
	ret->stopper_ns = 4000;
	/*
	 * sched_ext's kick (6.12 scx_bpf_kick_cpu()): the kicking CPU
	 * queues an irq_work on itself (a self-IPI), whose handler
	 * (kick_cpus_irq_workfn() -> kick_one_cpu()) takes the idle CPU's
	 * runqueue lock and calls resched_curr() on it: a reschedule IPI,
	 * or a store to the polled flag of an mwait idle.  No published
	 * figure for the whole; the same ~1 us as an IPI above.  The
	 * kicked CPU's C-state exit comes on top (costs_wake_delay()).
	 */
	ret->scx_kick_ns = 1000;
	/*
	 * A slice that runs out with nothing else to run is not renewed
	 * for free under sched_ext: the slice's end sets need_resched,
	 * schedule() runs balance_scx(), whose ops.dispatch finds the
	 * shared queue empty and gives prev a new slice (vp_dispatch();
	 * until the scheduler's stall fix, put_prev_task_scx() sent prev
	 * through ops.enqueue with SCX_ENQ_LAST instead), and
	 * pick_next_task_scx() takes prev again: one pass of schedule()
	 * that ends where it began.  No published figure for it: half of
	 * lmbench's lat_ctx low end (1 us), 0.5 us.
	 */
	ret->scx_resched_ns = 500;
	/* sysctl_sched_migration_cost: newidle balance only when the CPU
	 * expects to stay idle longer than this (rq->avg_idle) */
	ret->migration_cost_ns = 500000;
	/* SIS_UTIL refreshes nr_idle_scan from periodic load balancing; the
	 * LLC's many CPUs make that about once per millisecond */
	ret->util_period_ns = 1000000;
	/* PELT: y^32 = 1/2 with 1 ms periods */
	ret->util_halflife_ns = 32e6;
	/* the daemon's default tick, 250 ms (vcpuplaced --tick; doc/daemon.md) */
	ret->tick_ns = 250000000;
	/* long enough for PELT (32 ms half-life) to settle */
	ret->warmup_ns = 60000000;
	ret->measure_ns = 240000000;
	/* every cost on; see costs.c, cpus.c, bench/notes */
	ret->costs = COST_ALL;
	ret->migration_us = 0;
	ret->halt_poll_ns = -1;	/* the arch's KVM_HALT_POLL_NS_DEFAULT */
	/*
	 * Share of the L2 a migrated vCPU refetches besides its L1d.  No
	 * public figure: 1/16 (64 KiB of a 1 MiB Cascade Lake L2, twice
	 * the L1d) assumed; range 0-0.5 for a sweep.
	 */
	ret->l2_hot_frac = 1.0 / 16;
	/*
	 * The cpuidle tables declare worst-case exit latencies; measured
	 * exits are often shorter, but no per-state measurement for these
	 * CPUs was found: 1 (the declared value), range 0.2-1 to sweep.
	 */
	ret->cstate_scale = 1;
	/* Cascade Lake when no XML told us (cpus_identify()) */
	ret->l1d_bytes = 32768;
	ret->l2_bytes = 1048576;
	ret->l2_shared = false;
	ret->cpu = NULL;
}
