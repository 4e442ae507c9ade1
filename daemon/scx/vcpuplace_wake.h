/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vcpuplace_wake.h: the wake-up decision for one managed vCPU (decide()
 * and its helpers), written once and compiled twice: by the sched_ext
 * scheduler (daemon/scx/vcpuplace.bpf.c) and by the host simulator's
 * `scx` strategy (bench/simulator/strategy_scx.c), so that the simulator
 * runs the rules the kernel runs, not a port of them.
 *
 * It uses only the tables of vcpuplace_scx.h, and reaches everything
 * else through accessors the includer defines before including it:
 *
 *   VPW_WAKE_CTX                 more members of struct wake: the task,
 *                                the masks, whatever the accessors need
 *   vpw_feat(w, f)               a vp_scx_feature bit is on
 *   vpw_idle(w, cpu)             @cpu (>= 0) is idle now
 *   vpw_idle_core(w, cpu)        ... and so is its whole core
 *   vpw_allowed(w, cpu)          @cpu (>= 0) is in the task's allowed set
 *   vpw_claim(w, cpu)            test-and-clear @cpu's idle bit: true if
 *                                this wake-up now owns it
 *   vpw_pu(w, cpu)               the vp_pus entry of @cpu, or NULL
 *   vpw_dom(w, id)               the vp_doms entry of domain @id, or NULL
 *   vpw_now(w)                   now, in ns
 *   vpw_cpu_run(w, cpu)          @cpu's struct vp_cpu_run, or NULL
 *   vpw_slept_at(w)              when the task last went to sleep, 0: never
 *   vpw_pick_idle(w, core)       claim an idle CPU of the allowed set (a
 *                                whole idle core only if @core), or < 0
 *   vpw_any_allowed(w)           some CPU of the allowed set, or < 0
 *   vpw_any_idle(w, core)        a CPU of the allowed set is idle (its
 *                                whole core, if @core); claims nothing
 *   vpw_claim_poll(w, cpu)       @cpu (>= 0) runs a vCPU that halt-polls,
 *                                and this wake-up now owns the end of
 *                                that poll (no other waker is sent there)
 *   vpw_claim_stay(w, cpu)       @cpu (>= 0) runs a task and nothing waits
 *                                to run there next (its local DSQ and its
 *                                own queue are empty): this wake-up may
 *                                wait there, first in line
 *   vpw_avg_run(w)               the task's usual run (ns), 0: unknown
 *   vpw_waker_cpu(w)             the CPU of the task waking this one if
 *                                that is a vCPU of the same VM, else -1
 *   vpw_for(i, from, to)         a bounded loop: bpf_for() in BPF, a plain
 *                                for in C
 *
 * CPUs are OS CPU ids, as in the tables.  The types are the __u32 style
 * both sides have (vmlinux.h, <linux/types.h>).
 */
#ifndef VCPUPLACE_WAKE_H
#define VCPUPLACE_WAKE_H

#include "vcpuplace_scx.h"

/*
 * Per CPU: when the task on it started its burst and how long its bursts
 * last, so a waker can tell a sibling about to idle (a vCPU near the end
 * of its usual run) from one that will stay busy (a host hog).  Written
 * by the CPU itself (ops.running) and by a waker that claims the CPU
 * (note_claim()), read by wakers on any CPU, without a lock: a reader may
 * see a record another CPU is writing, and a since stamped after the
 * reader's own now (busy_ran_ns()).
 */
struct vp_cpu_run {
	__u64 since;
	__u64 expect_ns;
	bool vcpu;		/* the task is a managed vCPU */
};

/*
 * Whether a task whose p->migration_disabled count is @count is held on
 * its CPU by something other than the BPF program reading the count.
 * 6.12's __bpf_prog_enter() calls migrate_disable() around every BPF
 * program, so for the task the program runs in (current: ops.enqueue at
 * a tick runs in the task it enqueues) one count is the program's own,
 * gone by the time the kernel acts on the verdict; for any other task
 * the count is what it is.  6.12 ext.c task_can_run_on_remote_rq()
 * ejects the scheduler (scx_ops_error) for a SCX_DSQ_LOCAL_ON verdict
 * that would move a migration-disabled task.
 */
static inline bool vpw_migration_held(__u32 count, bool is_current)
{
	return count > (is_current ? 1u : 0u);
}

/* One wake-up being decided: its inputs and what it cost. */
struct wake {
	VPW_WAKE_CTX
	const struct vp_scx_vcpu *v;
	__s32 prev;
	__u32 probes;
	bool sib_busy;	/* the PU claimed has a busy SMT sibling */
};

static bool allowed(const struct wake *w, __s32 cpu)
{
	return cpu >= 0 && vpw_allowed(w, cpu);
}

/*
 * SMT-aware priority (core/prio.c): a PU is worth its core's priority,
 * halved when a sibling is busy.  prio.c divides by one plus the number
 * of busy siblings; sched_ext's masks say only "whole core idle" or not,
 * so on SMT4/SMT8 cores a PU with two or more busy siblings scores a
 * little higher here.  Counting them would cost a loop per candidate at
 * every wake-up; on SMT2 (x86, most arm64) the two rules are the same.
 */
static __u32 score(const struct wake *w, __s32 cpu, const struct vp_scx_pu *pu)
{
	if (!vpw_feat(w, VP_SCX_FEAT_SMT_PRIO) || vpw_idle_core(w, cpu))
		return pu->prio;
	return pu->prio / 2;
}

/*
 * Claims idle @cpu for this wake-up (no other waker can take it), and
 * notes whether it comes with a busy sibling.  False: it was not idle,
 * or another waker was first.
 */
static bool claim(struct wake *w, __s32 cpu)
{
	bool whole = vpw_idle_core(w, cpu);

	if (!vpw_claim(w, cpu))
		return false;
	w->sib_busy = !whole;
	return true;
}

/*
 * Rule 2: a whole idle core of domain @id inside the allowed set, the
 * best priority first; a core at the domain's best priority ends the
 * scan.  Returns the claimed PU or -1.
 */
static __s32 claim_idle_core_in(struct wake *w, __u32 id)
{
	const struct vp_scx_dom *d = vpw_dom(w, id);
	__s32 best = -1;
	__u32 i, n, best_prio = 0;

	if (!d)
		return -1;
	n = d->ncpus;
	vpw_for(i, 0, n) {
		const struct vp_scx_pu *pu;
		__s32 cpu;

		if (i >= VP_SCX_DOM_CPUS)
			break;
		cpu = d->cpu[i];
		w->probes++;
		if (cpu < 0 || !vpw_idle_core(w, cpu) || !allowed(w, cpu))
			continue;
		pu = vpw_pu(w, cpu);
		if (!pu)
			continue;
		if (!vpw_feat(w, VP_SCX_FEAT_SMT_PRIO) ||
		    pu->prio >= d->max_prio) {
			/* nothing in the domain beats it: take it now */
			if (claim(w, cpu))
				return cpu;
			continue;	/* another waker was first */
		}
		if (pu->prio > best_prio) {
			best = cpu;
			best_prio = pu->prio;
		}
	}
	if (best >= 0 && claim(w, best))
		return best;
	return -1;
}

/*
 * How long the task of run record @r has run at @now.  A since later
 * than now is a record written on another CPU after this reader took
 * its now (a claim, ops.running): the task has only just started, so 0,
 * not the ~2^64 the unsigned difference would give (which read as "ran
 * far past its usual run", so "idles any moment").
 */
static __u64 busy_ran_ns(const struct vp_cpu_run *r, __u64 now)
{
	__u64 since = *(const volatile __u64 *)&r->since;

	return since < now ? now - since : 0;
}

/*
 * How long the busiest of @pu's siblings is likely to stay busy: the
 * usual burst of the task running there, less what it has run already.
 * A host hog's bursts are whole slices; a vCPU's, its run between halts.
 */
static __u64 busy_rest_ns(struct wake *w, const struct vp_scx_pu *pu)
{
	__u64 now = vpw_now(w), rest = 0;
	__u32 i, nsib = pu->nsib;

	vpw_for(i, 0, VP_SCX_MAX_SMT) {
		const struct vp_cpu_run *r;
		__u64 ran;

		if (i >= nsib)
			break;
		if (pu->sib[i] < 0 || vpw_idle(w, pu->sib[i]))
			continue;
		r = vpw_cpu_run(w, pu->sib[i]);
		if (!r)
			continue;
		ran = busy_ran_ns(r, now);
		if (r->expect_ns > ran && r->expect_ns - ran > rest)
			rest = r->expect_ns - ran;
	}
	return rest;
}

/*
 * Rule 3: the idle PU of domain @id with the best SMT-aware priority,
 * which here always has a busy sibling (rule 2 found no whole core).
 * Between equals (SOON_IDLE): prev, whose caches still hold the vCPU and
 * where it pays no migration, as CFS's select_idle_sibling() tries its
 * target first; else the one whose busy sibling should idle soonest: the
 * vCPU then has a whole core sooner.
 */
static __s32 claim_idle_pu_in(struct wake *w, __u32 id)
{
	const struct vp_scx_dom *d = vpw_dom(w, id);
	__s32 best = -1;
	__u32 i, n, best_score = 0;
	__u64 rest, best_rest = ~0ULL;
	bool soon = vpw_feat(w, VP_SCX_FEAT_SOON_IDLE);

	if (!d)
		return -1;
	n = d->ncpus;
	vpw_for(i, 0, n) {
		const struct vp_scx_pu *pu;
		__u32 s;
		__s32 cpu;

		if (i >= VP_SCX_DOM_CPUS)
			break;
		cpu = d->cpu[i];
		w->probes++;
		if (cpu < 0 || !vpw_idle(w, cpu) || !allowed(w, cpu))
			continue;
		pu = vpw_pu(w, cpu);
		if (!pu)
			continue;
		if (w->v->flags & VP_SCX_F_SMT_ANY) {
			if (claim(w, cpu))
				return cpu;
			continue;
		}
		s = score(w, cpu, pu);
		rest = soon ? busy_rest_ns(w, pu) : 0;
		if (s > best_score ||
		    (s == best_score && best != w->prev &&
		     ((soon && cpu == w->prev) || rest < best_rest))) {
			best = cpu;
			best_score = s;
			best_rest = rest;
		}
	}
	if (best >= 0 && claim(w, best))
		return best;
	return -1;
}

/* SIS_CACHE: a vCPU that slept less than its short sleep goes back. */
static bool cache_hot(struct wake *w)
{
	const struct vp_scx_vcpu *v = w->v;
	__u64 slept_at;

	if (!vpw_feat(w, VP_SCX_FEAT_SIS_CACHE) ||
	    !(v->flags & VP_SCX_F_CACHE_HOT) ||
	    !v->short_sleep_ns || w->prev == v->home)
		return false;
	slept_at = vpw_slept_at(w);
	if (!slept_at || vpw_now(w) - slept_at >= v->short_sleep_ns)
		return false;
	return allowed(w, w->prev);
}

/* The home PU may be used at all: the feature is on and it is allowed. */
static bool home_usable(const struct wake *w)
{
	return vpw_feat(w, VP_SCX_FEAT_HOME) && allowed(w, w->v->home);
}

/*
 * Rule 1: home, if idle.  As in place.c's select_home_pu(): with SIS_CORE
 * and SMT_PRIO, a home next to a busy sibling waits until rule 2 has
 * looked for a whole idle core; smt=isolate never takes it.
 */
static __s32 try_home(struct wake *w)
{
	const struct vp_scx_vcpu *v = w->v;
	bool whole, half_ok;

	if (!home_usable(w))
		return -1;
	whole = vpw_idle_core(w, v->home);
	half_ok = (v->flags & VP_SCX_F_SMT_ANY) ||
	    (!(v->flags & VP_SCX_F_SMT_ISOLATE) &&
	     !(vpw_feat(w, VP_SCX_FEAT_SIS_CORE) &&
	       vpw_feat(w, VP_SCX_FEAT_SMT_PRIO)));
	w->probes++;
	if ((whole || (half_ok && vpw_idle(w, v->home))) &&
	    claim(w, v->home))
		return v->home;
	return -1;
}

/* SIS_CACHE: a short sleeper goes back to its previous PU, if idle. */
static __s32 try_cache_hot(struct wake *w)
{
	if (!cache_hot(w))
		return -1;
	w->probes++;
	return claim(w, w->prev) ? w->prev : -1;
}

/*
 * The domain id of prev's LLC when the far domain spans more than that
 * LLC, else -1.  A far domain widened past the LLC (a VM larger than
 * its LLC: POWER9's core pairs, KNL's two-core tiles, EPYC's three-core
 * CCXs) is scanned from its first PU whoever wakes, so a wake-up whose
 * prev's LLC had an idle core took the domain's first one instead, in
 * another LLC, at the cross-LLC migration cost.  The kernel's
 * select_idle_sibling() looks in the target's LLC only and leaves the
 * spread across LLCs to the load balancer.  So the rules that scan the
 * far domain (2, 3 and 6) scan prev's LLC first.  Its PUs outside the
 * allowed set are passed over as in any scan.
 */
static __s64 prev_llc_first(struct wake *w)
{
	const struct vp_scx_vcpu *v = w->v;
	const struct vp_scx_dom *llc, *far;
	const struct vp_scx_pu *pu;

	if (!vpw_feat(w, VP_SCX_FEAT_LLC_FIRST) || !allowed(w, w->prev) ||
	    !(pu = vpw_pu(w, w->prev)) || !pu->valid ||
	    pu->llc_dom == v->far_dom || pu->llc_dom == v->near_dom)
		return -1;
	llc = vpw_dom(w, pu->llc_dom);
	far = vpw_dom(w, v->far_dom);
	if (!llc || !far || llc->ncpus >= far->ncpus)
		return -1;
	return pu->llc_dom;
}

/* Rule 2: a whole idle core, the near (cluster) domain first. */
static __s32 try_idle_core(struct wake *w)
{
	const struct vp_scx_vcpu *v = w->v;
	__s64 llc;
	__s32 cpu;

	if (!vpw_feat(w, VP_SCX_FEAT_SIS_CORE) ||
	    (v->flags & VP_SCX_F_SMT_ANY))
		return -1;
	/* no whole core idles in the allowed set: no walk for one */
	w->probes++;
	if (!vpw_any_idle(w, true))
		return -1;
	if (vpw_feat(w, VP_SCX_FEAT_CLUSTER_FIRST) &&
	    v->near_dom != v->far_dom &&
	    (cpu = claim_idle_core_in(w, v->near_dom)) >= 0)
		return cpu;
	if ((llc = prev_llc_first(w)) >= 0 &&
	    (cpu = claim_idle_core_in(w, (__u32)llc)) >= 0)
		return cpu;
	return claim_idle_core_in(w, v->far_dom);
}

/*
 * Rule 3: no whole core is free, so a PU beside a busy sibling: home
 * first, then the far domain's best (never for smt=isolate).
 */
static __s32 try_idle_pu(struct wake *w)
{
	const struct vp_scx_vcpu *v = w->v;
	__s64 llc;
	__s32 cpu;

	if (v->flags & VP_SCX_F_SMT_ISOLATE)
		return -1;
	if (home_usable(w) && !(v->flags & VP_SCX_F_SMT_ANY)) {
		w->probes++;
		if (claim(w, v->home))
			return v->home;
	}
	if ((llc = prev_llc_first(w)) >= 0 &&
	    (cpu = claim_idle_pu_in(w, (__u32)llc)) >= 0)
		return cpu;
	return claim_idle_pu_in(w, v->far_dom);
}

/*
 * Rule 4: any idle PU of the allowed set beyond the far domain, a whole
 * core first, unless the locality keeps the vCPU in its domain.  *@whole
 * says which kind it found.  sched_ext's own picks claim the PU they
 * return.
 */
static __s32 try_elsewhere(struct wake *w, bool *whole)
{
	__s32 cpu;

	if (w->v->flags & VP_SCX_F_STAY_FAR_DOM)
		return -1;
	w->probes++;
	if ((cpu = vpw_pick_idle(w, true)) >= 0) {
		w->sib_busy = false;
		*whole = true;
		return cpu;
	}
	if (w->v->flags & VP_SCX_F_SMT_ISOLATE)
		return -1;
	w->probes++;
	if ((cpu = vpw_pick_idle(w, false)) >= 0) {
		/* no whole core was idle a moment ago */
		w->sib_busy = true;
		*whole = false;
	}
	return cpu;
}

/* Rule 5: where it was, if idle. */
static __s32 try_prev(struct wake *w)
{
	w->probes++;
	return allowed(w, w->prev) && claim(w, w->prev) ? w->prev : -1;
}

/*
 * The domains rule 6 has scanned so far in this wake-up (ids of vp_doms,
 * unique across levels), and the PUs it probed alone: a later scan skips
 * a PU whose cluster or LLC is one of them, read once already.  Without
 * it a far domain scan read again every poll record the cluster and near
 * scans had just read (three reads of prev's sibling when prev shares
 * home's cluster).
 */
struct poll_scan {
	__u32 dom[3];
	__u32 ndom;
	__s32 tried;	/* home, when probed alone */
};

static bool poll_scanned(struct wake *w, const struct poll_scan *ps,
			 __s32 cpu)
{
	const struct vp_scx_pu *pu;
	__u32 i;

	if (cpu == w->prev || cpu == ps->tried)
		return true;
	pu = vpw_pu(w, cpu);
	if (!pu)
		return false;
	vpw_for(i, 0, 3) {
		if (i >= ps->ndom)
			break;
		if (pu->cluster_dom == ps->dom[i] || pu->llc_dom == ps->dom[i])
			return true;
	}
	return false;
}

/*
 * Rule 6 (POLL_END): nothing is idle, but a PU whose vCPU halt-polls is
 * busy only in name: KVM spins there until its window ends or another
 * task counts on that runqueue (6.12 kvm_vcpu_can_poll():
 * single_task_running() && !need_resched()).  Sent there, this wake-up
 * ends the poll at once and runs next on that PU, where a queued one
 * would wait for whichever PU frees first (and a queue entry counts only
 * on the one runqueue select_cpu returned, so every other polling PU
 * spins on).  prev first (its caches), then the rest of prev's cluster
 * (its SMT siblings and the cores that share its L2 or cluster tags: the
 * cheapest migration there is, costs.c's first classes), then home, then
 * the near and the far domain in scan order; never beyond what the vCPU
 * may run on.  A domain scan starts at its first PU whoever wakes, so
 * without the cluster step a poll ended for a vCPU lands wherever the
 * domain's first polling PU is, usually a whole LLC away from prev.  The
 * polling vCPU loses only the rest of a window that had not yet seen its
 * wake-up.
 */
static __s32 claim_polling_in(struct wake *w, __u32 id, struct poll_scan *ps)
{
	const struct vp_scx_dom *d = vpw_dom(w, id);
	__u32 i, n;

	if (!d)
		return -1;
	n = d->ncpus;
	vpw_for(i, 0, n) {
		__s32 cpu;

		if (i >= VP_SCX_DOM_CPUS)
			break;
		cpu = d->cpu[i];
		if (poll_scanned(w, ps, cpu))
			continue;
		w->probes++;
		if (allowed(w, cpu) && vpw_claim_poll(w, cpu))
			return cpu;
	}
	if (ps->ndom < 3)
		ps->dom[ps->ndom++] = id;
	return -1;
}

static __s32 try_polling(struct wake *w)
{
	const struct vp_scx_vcpu *v = w->v;
	struct poll_scan ps = { .ndom = 0, .tried = -1 };
	const struct vp_scx_pu *pu;
	__s64 llc;
	__s32 cpu;

	if (!vpw_feat(w, VP_SCX_FEAT_POLL_END))
		return -1;
	w->probes++;
	if (allowed(w, w->prev) && vpw_claim_poll(w, w->prev))
		return w->prev;
	if (w->prev >= 0 && (pu = vpw_pu(w, w->prev)) && pu->valid &&
	    (cpu = claim_polling_in(w, pu->cluster_dom, &ps)) >= 0)
		return cpu;
	if (home_usable(w) && !poll_scanned(w, &ps, v->home)) {
		w->probes++;
		if (vpw_claim_poll(w, v->home))
			return v->home;
		ps.tried = v->home;
	}
	if (v->near_dom != v->far_dom &&
	    (cpu = claim_polling_in(w, v->near_dom, &ps)) >= 0)
		return cpu;
	if ((llc = prev_llc_first(w)) >= 0 &&
	    (cpu = claim_polling_in(w, (__u32)llc, &ps)) >= 0)
		return cpu;
	return claim_polling_in(w, v->far_dom, &ps);
}

/*
 * Rule 7 (STAY_PREV): nothing idle and no poll to end, so the vCPU must
 * wait somewhere.  In its LLC's queue it runs on whichever PU frees
 * first, which is seldom prev: a migration (5.65 us in-LLC on a
 * g4dn.metal, more in refilled caches; bench/simulator/costs.c) paid by
 * a vCPU that mostly runs short bursts.  The kernel's CFS keeps such a
 * wake-up on prev's runqueue instead (select_idle_sibling() returns its
 * target when nothing idles).  So: when prev's task should stop within
 * VP_SCX_STAY_PREV_NS by its usual run, the vCPU waits on prev's own
 * runqueue, behind that task alone.  The bound is the shortest slice
 * (VP_SLICE_MIN of vcpuplace.bpf.c): a wait a busy PU would impose on
 * its queue anyway, so a task that runs past its usual burst delays
 * this one no longer than a slice end would.  A task already past its
 * usual run is not counted on to stop (a hog's bursts are whole
 * slices), nor is a PU where someone already waits.
 */
static __s32 try_stay_prev(struct wake *w)
{
	const struct vp_cpu_run *r;
	__u64 ran;

	if (!vpw_feat(w, VP_SCX_FEAT_STAY_PREV) || !allowed(w, w->prev))
		return -1;
	w->probes++;
	r = vpw_cpu_run(w, w->prev);
	if (!r || !r->vcpu)
		return -1;
	ran = busy_ran_ns(r, vpw_now(w));
	if (r->expect_ns <= ran || r->expect_ns - ran > VP_SCX_STAY_PREV_NS)
		return -1;
	return vpw_claim_stay(w, w->prev) ? w->prev : -1;
}

/*
 * Rule 8 (JOIN_WAKER): nothing idle, and the wake-up comes from a vCPU of
 * the same VM, running on its own PU: a guest IPI, one vCPU handing work
 * to another (tbench's client and server, a pipe between two guest
 * threads).  When both run short bursts, the waker halts about as soon
 * as its wake-up lands, so the wakee waits behind it on that PU's own
 * queue instead of taking some other PU: it runs there next, the waker's
 * caches still warm, and the pair settles on one PU, each burst a
 * hand-off rather than a migration.  This is what the kernel's
 * wake_affine() gets to on a busy host; without it the wake-up ends a
 * poll elsewhere (POLL_END) or waits in the LLC's queue for whichever PU
 * frees first, a migration nearly every time (Kunpeng 920 tbench at
 * 125 %: one per wake-up, 23 cores' worth; bench/README.md).  Both usual
 * runs must be under VP_SCX_JOIN_RUN_NS: a long-running waker would keep
 * the wakee waiting, and a long wakee gains nothing from its caches.
 * The BPF program reads the bound from a variable its boot tests raise
 * (QEMU TCG runs a burst many times slower); elsewhere it is the constant.
 */
#ifndef vpw_join_run_ns
#define vpw_join_run_ns(w)	VP_SCX_JOIN_RUN_NS
#endif
static __s32 try_join_waker(struct wake *w)
{
	const struct vp_cpu_run *r;
	__u64 run;
	__s32 cpu;

	if (!vpw_feat(w, VP_SCX_FEAT_JOIN_WAKER))
		return -1;
	run = vpw_avg_run(w);
	if (!run || run > vpw_join_run_ns(w))
		return -1;
	cpu = vpw_waker_cpu(w);
	if (cpu < 0 || !allowed(w, cpu))
		return -1;
	w->probes++;
	r = vpw_cpu_run(w, cpu);
	if (!r || !r->vcpu || !r->expect_ns ||
	    r->expect_ns > vpw_join_run_ns(w))
		return -1;
	return cpu;
}

/*
 * Nothing idle: the CPU whose queue the vCPU waits on.  prev, else home,
 * else any PU it may run on (re-pinned while asleep, it may have
 * neither).  Never an invalid CPU: the kernel ejects a scheduler whose
 * select_cpu returns one.
 */
static __s32 queue_cpu(const struct wake *w)
{
	__s32 cpu;

	if (allowed(w, w->prev))
		return w->prev;
	if (allowed(w, w->v->home))
		return w->v->home;
	/* not scx_bpf_pick_any_cpu(): it would claim an idle PU, unused */
	cpu = vpw_any_allowed(w);
	return cpu >= 0 && cpu < VP_SCX_MAX_CPUS &&
	       allowed(w, cpu) ? cpu : w->prev;
}

/* What a claimed idle @cpu is counted as: home wins over the rule's name. */
static enum vp_scx_vstat idle_why(const struct wake *w, __s32 cpu,
				  enum vp_scx_vstat rule)
{
	return cpu == w->v->home ? VP_SCX_V_HOME : rule;
}

/*
 * The tries that claim an idle PU, cheapest first, as place.c's
 * place_select() orders them: the PU (-1 when none), and in *@why the
 * vstat that says which rule chose it.
 */
static __s32 decide_idle(struct wake *w, enum vp_scx_vstat *why)
{
	bool whole = false;
	__s32 cpu;

	if ((cpu = try_home(w)) >= 0) {
		*why = VP_SCX_V_HOME;
		return cpu;
	}
	if ((cpu = try_cache_hot(w)) >= 0) {
		*why = VP_SCX_V_CACHE_HOT;
		return cpu;
	}
	if ((cpu = try_idle_core(w)) >= 0) {
		*why = idle_why(w, cpu, VP_SCX_V_IDLE_CORE);
		return cpu;
	}
	if ((cpu = try_idle_pu(w)) >= 0) {
		*why = idle_why(w, cpu, VP_SCX_V_IDLE_SIBLING);
		return cpu;
	}
	if ((cpu = try_elsewhere(w, &whole)) >= 0) {
		*why = idle_why(w, cpu, whole ? VP_SCX_V_IDLE_CORE :
		    VP_SCX_V_IDLE_SIBLING);
		return cpu;
	}
	if ((cpu = try_prev(w)) >= 0)
		*why = VP_SCX_V_PREV;
	return cpu;
}

/*
 * No idle PU could be claimed: the waker's PU joined (its own queue), a
 * halt poll ended, prev kept, or the queue.  *@direct is false only for
 * the queues.
 */
static __s32 decide_busy(struct wake *w, enum vp_scx_vstat *why,
    bool *direct)
{
	__s32 cpu;

	if ((cpu = try_join_waker(w)) >= 0) {
		/* queued, but on that PU's own queue (the caller's part) */
		w->sib_busy = false;
		*direct = false;
		*why = VP_SCX_V_JOIN_WAKER;
		return cpu;
	}
	if ((cpu = try_polling(w)) >= 0) {
		/* its SMT sibling is unknown: not counted as either */
		w->sib_busy = false;
		*why = VP_SCX_V_POLL_END;
		return cpu;
	}
	if ((cpu = try_stay_prev(w)) >= 0) {
		/* its task runs on: not a claimed PU, no sibling counted */
		w->sib_busy = false;
		*why = VP_SCX_V_STAY_PREV;
		return cpu;
	}
	*direct = false;
	*why = VP_SCX_V_QUEUED;
	return queue_cpu(w);
}

/*
 * The decision for one managed vCPU.  Returns the PU and sets *@why to
 * the vstat that says which rule chose it; *@direct when the PU was
 * claimed (idle, or its halt poll) and the task may be dispatched to it
 * straight away.
 */
static __s32 decide(struct wake *w, enum vp_scx_vstat *why, bool *direct)
{
	__s32 cpu;

	*direct = true;
	/*
	 * Nothing of the allowed set idles: every idle try needs an idle
	 * PU, so one test of the masks replaces their walks of the domains,
	 * on the busy host where wake-ups are most frequent
	 * (select_idle_cpu() bounds its scan by the LLC's idleness for the
	 * same reason: SIS_UTIL).
	 */
	w->probes++;
	if (vpw_any_idle(w, false) && (cpu = decide_idle(w, why)) >= 0)
		return cpu;
	return decide_busy(w, why, direct);
}

#endif /* VCPUPLACE_WAKE_H */
