/*
 * wakectx.h - vcpuplace_wake.h's accessors in plain C over a crafted
 * state of a real or synthetic topology (what sched_ext's masks and the
 * daemon's maps would hold), shared by the tests that compile decide():
 * test_wake.c (one rule at a time) and test_wakecheck.c (decide()
 * against place.c).  Include this, then "scx/vcpuplace_wake.h".
 */
#ifndef WAKECTX_H
#define WAKECTX_H

#include <linux/types.h>

#include "core/vcpuplace.h"
#include "scx/vcpuplace_scx.h"

/* struct vp_cpu_run, which vcpuplace_wake.h defines */
struct vp_cpu_run;

/* The state a wake-up sees: what sched_ext's masks and maps would hold. */
struct tctx {
	struct vp_topo *t;		/* borrowed */
	struct vp_cpuset busy;		/* not idle (dense) */
	struct vp_cpuset allowed;	/* the task's affinity (dense) */
	struct vp_cpuset polling;	/* a vCPU halt-polls there (dense) */
	struct vp_cpuset waiting;	/* a task waits to run there next */
	struct vp_scx_pu pus[VP_SCX_MAX_CPUS];
	struct vp_scx_dom *doms;
	unsigned int ndoms;
	struct vp_cpu_run *runs;	/* by dense PU */
	unsigned int *poll_probes;	/* tclaim_poll() calls, by dense PU */
	__u64 now, slept_at;
	__u64 avg_run;			/* the task's usual run, 0: none */
	__s32 waker;			/* a vCPU of its VM waking it (OS
					 * CPU id), -1: none */
	__u32 feat;
};

/*
 * A context for @t (borrowed: it must outlive the context) with the
 * daemon's own tables (scxfeed_topology()), every PU idle and allowed,
 * every feature on; fails the test on error.  Free with tctx_free().
 */
struct tctx *tctx_new(struct vp_topo *t);
/* Frees the context, not its topology; accepts NULL. */
void tctx_free(struct tctx *c);

/* Dense PU of OS CPU @cpu, or -1. */
int tdense(const struct tctx *c, __s32 cpu);
/* @cpu is idle (@core: its whole core is). */
bool tidle(const struct tctx *c, __s32 cpu, bool core);
/* test-and-clear: an idle PU becomes busy, so a claim is exclusive */
bool tclaim(struct tctx *c, __s32 cpu);
/* a poll is taken once: the record is cleared, as the BPF CAS does */
bool tclaim_poll(struct tctx *c, __s32 cpu);
/*
 * Busy, and nobody waits there yet; the wake-up then waits there (set in
 * waiting), as the BPF side's local DSQ then counts it
 */
bool tclaim_stay(struct tctx *c, __s32 cpu);
/* an allowed PU idles (@core: its whole core); nothing is claimed */
bool tany_idle(const struct tctx *c, bool core);
/*
 * 0: any allowed PU; 1: claims an idle one (a whole idle core first);
 * 2: claims a PU of a whole idle core.  Dense order, -1 when none.
 */
__s32 tpick(struct tctx *c, int what);
/* The vp_cpu_runs entry of OS CPU @cpu, or NULL. */
struct vp_cpu_run *trun(const struct tctx *c, __s32 cpu);
/*
 * decide() for the vCPU of entry @v that last ran on dense @prev (-1:
 * nowhere), compiled in wakectx.c.  Returns the dense PU (-1: none) and
 * sets *@why, *@direct and *@probes as decide() and its wake say.
 */
int tdecide(struct tctx *c, const struct vp_scx_vcpu *v, int prev,
    enum vp_scx_vstat *why, bool *direct, __u32 *probes);

#define VPW_WAKE_CTX		struct tctx *c;
#define vpw_feat(w, f)		((w)->c->feat & (f))
#define vpw_idle(w, cpu)	tidle((w)->c, cpu, false)
#define vpw_idle_core(w, cpu)	tidle((w)->c, cpu, true)
#define vpw_allowed(w, cpu)	(tdense((w)->c, cpu) >= 0 && \
				 cpuset_test(&(w)->c->allowed, \
				 tdense((w)->c, cpu)))
#define vpw_claim(w, cpu)	tclaim((w)->c, cpu)
#define vpw_pu(w, cpu)		((cpu) >= 0 && (cpu) < VP_SCX_MAX_CPUS ? \
				 &(w)->c->pus[cpu] : NULL)
#define vpw_dom(w, id)		((id) < (w)->c->ndoms ? \
				 &(w)->c->doms[id] : NULL)
#define vpw_now(w)		((w)->c->now)
#define vpw_cpu_run(w, cpu)	trun((w)->c, cpu)
#define vpw_slept_at(w)		((w)->c->slept_at)
#define vpw_avg_run(w)		((w)->c->avg_run)
#define vpw_waker_cpu(w)	((w)->c->waker)
#define vpw_pick_idle(w, core)	tpick((w)->c, (core) ? 2 : 1)
#define vpw_any_allowed(w)	tpick((w)->c, 0)
#define vpw_for(i, from, to)	for ((i) = (from); (i) < (to); (i)++)
#define vpw_claim_poll(w, cpu)	tclaim_poll((w)->c, cpu)
#define vpw_claim_stay(w, cpu)	tclaim_stay((w)->c, cpu)
#define vpw_any_idle(w, core)	tany_idle((w)->c, core)

#endif /* WAKECTX_H */
