/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vp_scx/compat.bpf.h: what differs between the kernels vcpuplace.bpf.c
 * loads on (6.12 to 7.3), decided at load time on the running kernel.
 *
 * Kfuncs: 6.13 renamed three of them, and later kernels dropped the old
 * names.  Each wrapper calls the new name when the running kernel has it,
 * else the old one.  bpf_ksym_exists() on a weak ksym that libbpf could
 * not resolve is a constant 0, so the verifier never walks the call that
 * is not there (a removed kfunc is never reached, hence never refused).
 *
 * Enum values: constants such as SCX_DSQ_LOCAL are read from the running
 * kernel's BTF (CO-RE enum relocations), not frozen at the values of the
 * vmlinux.h we compiled against.  Every one used here exists from 6.12
 * on; a kernel without one fails the load instead of running with a
 * wrong value.  Ops flags are the loader's (daemon/scx/scx_btf.c).
 */
#ifndef VP_SCX_COMPAT_BPF_H
#define VP_SCX_COMPAT_BPF_H

#include "vp_scx/common.bpf.h"

/* The running kernel's value of enumerator @name of enum @type. */
#define VP_SCX_ENUM(type, name)	bpf_core_enum_value(enum type, name)

#define VP_DSQ_LOCAL		VP_SCX_ENUM(scx_dsq_id_flags, SCX_DSQ_LOCAL)
#define VP_DSQ_LOCAL_ON		VP_SCX_ENUM(scx_dsq_id_flags, SCX_DSQ_LOCAL_ON)
#define VP_SLICE_DFL		VP_SCX_ENUM(scx_public_consts, SCX_SLICE_DFL)
#define VP_ENQ_WAKEUP		VP_SCX_ENUM(scx_enq_flags, SCX_ENQ_WAKEUP)
#define VP_ENQ_LAST		VP_SCX_ENUM(scx_enq_flags, SCX_ENQ_LAST)
#define VP_ENQ_REENQ		VP_SCX_ENUM(scx_enq_flags, SCX_ENQ_REENQ)
#define VP_ENQ_PREEMPT		VP_SCX_ENUM(scx_enq_flags, SCX_ENQ_PREEMPT)
#define VP_TASK_QUEUED		VP_SCX_ENUM(scx_ent_flags, SCX_TASK_QUEUED)
#define VP_KICK_IDLE		VP_SCX_ENUM(scx_kick_flags, SCX_KICK_IDLE)
#define VP_KICK_PREEMPT		VP_SCX_ENUM(scx_kick_flags, SCX_KICK_PREEMPT)
#define VP_PICK_IDLE_CORE	VP_SCX_ENUM(scx_pick_idle_cpu_flags, \
					    SCX_PICK_IDLE_CORE)

/*
 * PF_KTHREAD of include/linux/sched.h, the same bit from 2.6 to 7.3: a
 * #define, so not in the BTF that CO-RE reads.
 */
#define VP_PF_KTHREAD		0x00200000

/* Put @p on @dsq_id with @slice: scx_bpf_dsq_insert (6.13+), dispatch. */
static __always_inline void
vp_dsq_insert(struct task_struct *p, u64 dsq_id, u64 slice, u64 enq_flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_insert))
		scx_bpf_dsq_insert(p, dsq_id, slice, enq_flags);
	else
		scx_bpf_dispatch(p, dsq_id, slice, enq_flags);
}

/* The same, ordered by @vtime: scx_bpf_dsq_insert_vtime, dispatch_vtime. */
static __always_inline void
vp_dsq_insert_vtime(struct task_struct *p, u64 dsq_id, u64 slice, u64 vtime,
		    u64 enq_flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_insert_vtime))
		scx_bpf_dsq_insert_vtime(p, dsq_id, slice, vtime, enq_flags);
	else
		scx_bpf_dispatch_vtime(p, dsq_id, slice, vtime, enq_flags);
}

/* Run the first task of @dsq_id here: dsq_move_to_local, consume. */
static __always_inline bool vp_dsq_move_to_local(u64 dsq_id)
{
	if (bpf_ksym_exists(scx_bpf_dsq_move_to_local))
		return scx_bpf_dsq_move_to_local(dsq_id);
	return scx_bpf_consume(dsq_id);
}

/*
 * Move @p, the task the DSQ iterator @it is at, to @dsq_id:
 * scx_bpf_dsq_move (6.13+), scx_bpf_dispatch_from_dsq (6.12).  From
 * ops.dispatch, inside bpf_for_each(scx_dsq, ...): @it is &___it.
 */
static __always_inline bool
vp_dsq_move(struct bpf_iter_scx_dsq *it, struct task_struct *p, u64 dsq_id,
	    u64 enq_flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_move))
		return scx_bpf_dsq_move(it, p, dsq_id, enq_flags);
	return scx_bpf_dispatch_from_dsq(it, p, dsq_id, enq_flags);
}

/*
 * Send every task of this PU's local DSQ back through ops.enqueue (with
 * SCX_ENQ_REENQ): the ___v2 kfunc where the kernel has it, else 6.12's.
 * Called from ops.cpu_release only, where both are allowed.
 */
static __always_inline void vp_reenqueue_local(void)
{
	if (bpf_ksym_exists(scx_bpf_reenqueue_local___v2___compat))
		scx_bpf_reenqueue_local___v2___compat();
	else if (bpf_ksym_exists(scx_bpf_reenqueue_local))
		scx_bpf_reenqueue_local();
}

#endif /* VP_SCX_COMPAT_BPF_H */
