/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vcpuplace.bpf.c: the sched_ext scheduler for vCPU threads (issue 11).
 *
 * Phase 1, the toolchain's proof: a global FIFO whose select_cpu takes a
 * whole idle core when there is one and otherwise keeps the previous PU.
 * SCX_OPS_SWITCH_PARTIAL: only tasks that asked for SCHED_EXT (the
 * daemon's vCPU threads) are scheduled here; every other task stays on
 * CFS.  Phase 2 replaces select_vcpu_cpu() with the rules of
 * daemon/core/place.c (home, cluster, LLC, priority, previous PU), fed
 * by the daemon through maps.
 *
 * Counters are per-CPU (vp_stats), summed by the loader: the wake path
 * writes only its own CPU's line.
 */
#include <scx/common.bpf.h>
#include "vcpuplace_scx.h"

char _license[] SEC("license") = "GPL";

UEI_DEFINE(uei);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u64));
	__uint(max_entries, VP_SCX_STAT_NR);
} vp_stats SEC(".maps");

static void stat_inc(enum vp_scx_stat idx)
{
	u32 key = idx;
	u64 *cnt = bpf_map_lookup_elem(&vp_stats, &key);

	/* a miss cannot happen (key < max_entries); it would only lose a count */
	if (cnt)
		(*cnt)++;
}

/*
 * A PU whose whole core is idle, inside the task's allowed set, or -1.
 * sched_ext's per-core idle mask answers without a scan of ours, and the
 * PU it returns is already claimed (no longer idle for other wakers).
 */
static s32 select_idle_core(const struct task_struct *p)
{
	return scx_bpf_pick_idle_cpu(p->cpus_ptr, SCX_PICK_IDLE_CORE);
}

s32 BPF_STRUCT_OPS(vp_select_cpu, struct task_struct *p, s32 prev_cpu,
		   u64 wake_flags)
{
	s32 cpu;

	stat_inc(VP_SCX_WAKE);
	cpu = select_idle_core(p);
	if (cpu >= 0) {
		stat_inc(VP_SCX_WAKE_IDLE_CORE);
		goto direct;
	}
	/*
	 * No idle core: keep the previous PU, whose caches are warm.  If it
	 * is idle (claiming it is atomic), run there at once; if not, the
	 * task waits on the shared FIFO (enqueue) for whichever PU idles.
	 */
	cpu = prev_cpu;
	if (!scx_bpf_test_and_clear_cpu_idle(cpu)) {
		stat_inc(VP_SCX_WAKE_PREV_BUSY);
		return cpu;
	}
	stat_inc(VP_SCX_WAKE_PREV_IDLE);
direct:
	stat_inc(VP_SCX_DIRECT);
	scx_bpf_dispatch(p, SCX_DSQ_LOCAL, SCX_SLICE_DFL, 0);
	return cpu;
}

void BPF_STRUCT_OPS(vp_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 cpu;

	stat_inc(VP_SCX_QUEUED);
	scx_bpf_dispatch(p, VP_SCX_DSQ_SHARED, SCX_SLICE_DFL, enq_flags);
	/*
	 * An idle PU sleeps until something wakes it: without a kick the task
	 * would wait for a busy PU to finish its slice (20 ms) while a PU of
	 * its allowed set idles.  The PU picked is claimed, so two enqueues
	 * do not kick the same one.
	 */
	cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	if (cpu >= 0) {
		stat_inc(VP_SCX_KICK_IDLE);
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
	}
}

void BPF_STRUCT_OPS(vp_dispatch, s32 cpu, struct task_struct *prev)
{
	scx_bpf_consume(VP_SCX_DSQ_SHARED);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(vp_init)
{
	/* -1: the queue's memory on any NUMA node */
	return scx_bpf_create_dsq(VP_SCX_DSQ_SHARED, -1);
}

void BPF_STRUCT_OPS(vp_exit, struct scx_exit_info *ei)
{
	UEI_RECORD(uei, ei);
}

SCX_OPS_DEFINE(vcpuplace_ops,
	       .select_cpu	= (void *)vp_select_cpu,
	       .enqueue		= (void *)vp_enqueue,
	       .dispatch	= (void *)vp_dispatch,
	       .init		= (void *)vp_init,
	       .exit		= (void *)vp_exit,
	       .flags		= SCX_OPS_SWITCH_PARTIAL,
	       .name		= VP_SCX_NAME);
