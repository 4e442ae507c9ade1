/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vp_scx/common.bpf.h: the sched_ext interface vcpuplace.bpf.c uses, and
 * nothing more, declared here so that building the scheduler needs no
 * kernel tree.
 *
 * Types and enums come from the committed vmlinux.h (see ../README and
 * daemon/scx/README.md, "vmlinux.h"); every access to them is a CO-RE
 * relocation, so one object serves every kernel from 6.12 on.  The kfuncs
 * are declared below ourselves, all weak: a kfunc the running kernel does
 * not have then resolves to 0 instead of failing the load, and the code
 * that would call it must be guarded (compat.bpf.h), which the verifier
 * proves by pruning the guarded call.  The prototypes are those of the
 * kernels' BTF (6.12 and 7.3 agree on every one declared here); libbpf
 * refuses a kfunc whose prototype does not match the running kernel's.
 */
#ifndef VP_SCX_COMMON_BPF_H
#define VP_SCX_COMMON_BPF_H

/*
 * bpftool 7.5 also writes the dumped kernel's own kfunc prototypes into
 * vmlinux.h.  Those are one kernel's (7.3's names only); ours below are
 * the ones that hold from 6.12 on.
 */
#define BPF_NO_KFUNC_PROTOTYPES
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

/* errno values ops.init_task() returns (uapi asm-generic/errno-base.h) */
#define ENOMEM 12

/* --- kfuncs present in every kernel from 6.12 to 7.3 --- */

s32 scx_bpf_create_dsq(u64 dsq_id, s32 node) __ksym __weak;
s32 scx_bpf_dsq_nr_queued(u64 dsq_id) __ksym __weak;
void scx_bpf_kick_cpu(s32 cpu, u64 flags) __ksym __weak;
s32 scx_bpf_task_cpu(const struct task_struct *p) __ksym __weak;
s32 scx_bpf_select_cpu_dfl(struct task_struct *p, s32 prev_cpu,
			   u64 wake_flags, bool *is_idle) __ksym __weak;
s32 scx_bpf_pick_idle_cpu(const struct cpumask *cpus_allowed,
			  u64 flags) __ksym __weak;
bool scx_bpf_test_and_clear_cpu_idle(s32 cpu) __ksym __weak;
const struct cpumask *scx_bpf_get_idle_cpumask(void) __ksym __weak;
const struct cpumask *scx_bpf_get_idle_smtmask(void) __ksym __weak;
void scx_bpf_put_idle_cpumask(const struct cpumask *cpumask) __ksym __weak;
void scx_bpf_error_bstr(char *fmt, unsigned long long *data,
			u32 data__sz) __ksym __weak;
u32 scx_bpf_nr_cpu_ids(void) __ksym __weak;
/*
 * The iterator bpf_for_each() declares (libbpf's bpf_helpers.h names it
 * ___it), for the kfuncs that act on the task it is at.
 */
#define BPF_FOR_EACH_ITER	(&___it)
/* a DSQ's tasks in dispatch order, for bpf_for_each(scx_dsq, ...) */
int bpf_iter_scx_dsq_new(struct bpf_iter_scx_dsq *it, u64 dsq_id,
			 u64 flags) __ksym __weak;
struct task_struct *bpf_iter_scx_dsq_next(struct bpf_iter_scx_dsq *it)
	__ksym __weak;
void bpf_iter_scx_dsq_destroy(struct bpf_iter_scx_dsq *it) __ksym __weak;

/* the generic cpumask kfuncs (kernel/bpf/cpumask.c, 6.5 on) */
bool bpf_cpumask_test_cpu(u32 cpu, const struct cpumask *cpumask) __ksym __weak;
u32 bpf_cpumask_any_distribute(const struct cpumask *cpumask) __ksym __weak;
bool bpf_cpumask_intersects(const struct cpumask *src1,
			    const struct cpumask *src2) __ksym __weak;

/*
 * --- kfuncs that 6.13 renamed ---
 * The old names are in 6.12 only (deprecated in 6.13, gone since); the
 * new ones from 6.13.  Never call these directly: compat.bpf.h picks the
 * one the running kernel has.
 */
void scx_bpf_dispatch(struct task_struct *p, u64 dsq_id, u64 slice,
		      u64 enq_flags) __ksym __weak;
void scx_bpf_dispatch_vtime(struct task_struct *p, u64 dsq_id, u64 slice,
			    u64 vtime, u64 enq_flags) __ksym __weak;
bool scx_bpf_consume(u64 dsq_id) __ksym __weak;
void scx_bpf_dsq_insert(struct task_struct *p, u64 dsq_id, u64 slice,
			u64 enq_flags) __ksym __weak;
void scx_bpf_dsq_insert_vtime(struct task_struct *p, u64 dsq_id, u64 slice,
			      u64 vtime, u64 enq_flags) __ksym __weak;
bool scx_bpf_dsq_move_to_local(u64 dsq_id) __ksym __weak;
bool scx_bpf_dispatch_from_dsq(struct bpf_iter_scx_dsq *it__iter,
			       struct task_struct *p, u64 dsq_id,
			       u64 enq_flags) __ksym __weak;
bool scx_bpf_dsq_move(struct bpf_iter_scx_dsq *it__iter,
		      struct task_struct *p, u64 dsq_id,
		      u64 enq_flags) __ksym __weak;

/*
 * --- the local DSQ's re-enqueue, redone in 6.19 ---
 * 6.12 has scx_bpf_reenqueue_local(), callable from ops.cpu_release()
 * only; 7.3.4's BTF has it and scx_bpf_reenqueue_local___v2(), which
 * returns nothing.  The second is declared with libbpf's ___compat
 * flavour on top (stripped at resolution: the kernel name keeps its
 * ___v2).  compat.bpf.h's vp_reenqueue_local() picks one.
 */
u32 scx_bpf_reenqueue_local(void) __ksym __weak;
void scx_bpf_reenqueue_local___v2___compat(void) __ksym __weak;

/*
 * scx_bpf_error_bstr() takes its format from a map (here .rodata) and
 * its arguments packed as u64s; vp_scx_error() does that for a format
 * with exactly one integer argument, the one form we use.
 */
#define vp_scx_error(fmt, arg) ({					\
	static char ___vp_fmt[] = fmt;					\
	unsigned long long ___vp_arg[1] = { (unsigned long long)(arg) };\
	scx_bpf_error_bstr(___vp_fmt, ___vp_arg, sizeof(___vp_arg));	\
})

/*
 * A struct_ops callback: its section names the member of sched_ext_ops
 * it implements (libbpf matches them), BPF_PROG unpacks the arguments.
 * The sleepable form is for ops.init(), which may allocate.
 */
#define VP_SCX_OP(name, args...)					\
	SEC("struct_ops/" #name) BPF_PROG(name, ##args)
#define VP_SCX_OP_SLEEPABLE(name, args...)				\
	SEC("struct_ops.s/" #name) BPF_PROG(name, ##args)

/*
 * The ops table.  ".struct_ops.link" (libbpf 1.2 on) attaches it through
 * a BPF link, so the kernel unloads the scheduler when the loader's last
 * reference goes, a killed daemon included.  Members left out stay 0;
 * libbpf 1.4 skips the zero ones an older kernel's sched_ext_ops lacks.
 */
#define VP_SCX_OPS_DEFINE(var, ...)					\
	SEC(".struct_ops.link") struct sched_ext_ops var = { __VA_ARGS__ }

#endif /* VP_SCX_COMMON_BPF_H */
