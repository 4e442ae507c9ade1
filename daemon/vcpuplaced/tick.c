/*
 * tick.c - one planning round: the pure planner on the live inventory,
 * then the rules that keep churn down.  A live pin costs ~4 ms
 * (measured here), so only deltas are applied, and only for a reason:
 *
 *  - must move now: a new VM or a new policy, an affinity that is
 *    empty, offline, reserved-only, or on PUs another VM holds
 *    exclusively;
 *  - may move: the plan differs for HYSTERESIS_TICKS ticks in a row and
 *    the vCPU has not moved for COOLDOWN_NS;
 *  - at most MOVE_BUDGET pins per tick, must-moves first.
 */
#include <errno.h>
#include <stdlib.h>
#include <syslog.h>

#include "vcpuplaced/daemon.h"

#define HYSTERESIS_TICKS	2	/* a plan must hold 0.5 s at 250 ms */
#define COOLDOWN_NS	(5ULL * 1000000000)	/* per vCPU between moves */
#define MOVE_BUDGET	16	/* 16 x 4 ms = 64 ms of a 250 ms tick */

/*
 * True when the vCPU's live affinity breaks a rule no matter what the
 * plan prefers: nothing to run on, PUs that are not online, only
 * host-reserved PUs, or PUs outside what the plan allows this VM while
 * the plan gives them to another VM exclusively.
 */
static bool
affinity_broken(const struct vp_daemon *d, const struct vp_plan *p,
    const struct vp_vcpu *v)
{
	struct vp_cpuset usable, excl;

	if (cpuset_empty(&v->affinity) ||
	    !cpuset_subset(&v->affinity, &d->topo->all))
		return true;
	cpuset_andnot(&usable, &v->affinity, &d->reserved);
	if (cpuset_empty(&usable))
		return true;
	/* exclusive = everything neither shared nor reserved */
	cpuset_andnot(&excl, &d->topo->all, &p->shared_pool);
	cpuset_andnot(&excl, &excl, &d->reserved);
	cpuset_andnot(&excl, &excl, &v->planned);
	return cpuset_intersects(&v->affinity, &excl);
}

static void
decide(struct vp_daemon *d, const struct vp_plan *p, struct vp_vm *vm,
    const struct vp_vm_plan *vp, uint64_t now, int *budget, bool urgent)
{
	int k;

	for (k = 0; k < vm->nvcpus; k++) {
		struct vp_vcpu *v = &vm->vcpu[k];
		bool must;

		v->planned = vp->vcpu[k].allowed;
		v->home = vp->vcpu[k].home;
		if (cpuset_equal(&v->planned, &v->affinity)) {
			v->pending_ticks = 0;
			v->placed_home = v->home;	/* e.g. after a restart */
			continue;
		}
		must = vm->replace || affinity_broken(d, p, v);
		if (must != urgent)
			continue;
		if (!must && (++v->pending_ticks < HYSTERESIS_TICKS ||
		    now - v->last_move_ns < COOLDOWN_NS))
			continue;
		if (*budget <= 0)
			continue;	/* next tick */
		(*budget)--;
		v->move = true;
		v->reason = vp->vcpu[k].reason;
	}
}

void
tick_free(struct vp_daemon *d)
{
	plan_free(d->plan);
	free(d->plan_idx);
	d->plan = NULL;
	d->plan_idx = NULL;
	d->plan_n = 0;
}

/*
 * Where a vCPU lives now: the home we applied, or after a restart of the
 * daemon, the one PU its live affinity allows (a dedicated vCPU's).
 */
static int
prev_home(const struct vp_vcpu *v)
{
	if (v->placed_home != VP_PU_NONE)
		return v->placed_home;
	if (cpuset_count(&v->affinity) == 1)
		return cpuset_first(&v->affinity);
	return VP_PU_NONE;
}

/*
 * Runs the planner when its inputs changed: the inventory (any refresh)
 * or the host's busy PUs.  On a quiet host with 800 vCPUs a plan costs
 * ~2.5 ms, 1 % of a 250 ms tick, for a result we already have.
 */
static int
replan(struct vp_daemon *d)
{
	struct vp_vm_spec *specs;
	struct vp_plan_input in;
	struct vp_plan *p = NULL;
	int *idx, **homes, i, k, n = 0, r;

	if (d->plan && d->plan_gen == d->inventory_gen &&
	    cpuset_equal(&d->plan_busy, &d->host_busy))
		return 0;
	specs = calloc(d->nvms ? d->nvms : 1, sizeof(*specs));
	idx = calloc(d->nvms ? d->nvms : 1, sizeof(*idx));
	homes = calloc(d->nvms ? d->nvms : 1, sizeof(*homes));
	if (!specs || !idx || !homes) {
		free(specs);
		free(idx);
		free(homes);
		return -ENOMEM;
	}
	for (i = 0; i < d->nvms; i++) {
		struct vp_vm *vm = &d->vm[i];

		if (!vm_managed(vm))
			continue;
		/* where it sits now, unless a new policy wants it elsewhere */
		homes[n] = vm->replace ? NULL : calloc(vm->nvcpus, sizeof(int));
		for (k = 0; homes[n] && k < vm->nvcpus; k++)
			homes[n][k] = prev_home(&vm->vcpu[k]);
		specs[n] = (struct vp_vm_spec){
			.name = vm->name, .nvcpus = vm->nvcpus,
			.policy = vm->policy, .prev_home = homes[n],
		};
		idx[n++] = i;
	}
	in = (struct vp_plan_input){
		.vms = specs, .nvms = n, .busy = &d->host_busy,
		.reserved = &d->reserved, .feat = &d->feat,
	};
	r = plan_compute(d->topo, &in, &p);
	for (i = 0; i < n; i++)
		free(homes[i]);
	free(homes);
	free(specs);
	if (r < 0) {
		free(idx);
		return r;
	}
	tick_free(d);
	d->plan = p;
	d->plan_idx = idx;
	d->plan_n = n;
	d->plan_gen = d->inventory_gen;
	d->plan_busy = d->host_busy;
	d->c.plan_probes += p->probes;
	return 0;
}

/* A new policy stays urgent until every vCPU of the VM got its move. */
static void
settle_replace(struct vp_daemon *d)
{
	int i, k;

	for (i = 0; i < d->plan_n; i++) {
		struct vp_vm *vm = &d->vm[d->plan_idx[i]];
		const struct vp_vm_plan *vp = &d->plan->vm[i];

		for (k = 0; k < vm->nvcpus && !vp->error; k++)
			if (!vm->vcpu[k].move && !cpuset_equal(
			    &vm->vcpu[k].planned, &vm->vcpu[k].affinity))
				break;
		if (vp->error || k == vm->nvcpus)
			vm->replace = false;
	}
}

void
tick_plan(struct vp_daemon *d)
{
	int i, pass, budget = MOVE_BUDGET;
	uint64_t t0 = clock_now_ns();

	if (replan(d) < 0) {
		log_msg(LOG_ERR, "planning failed (no PU left after "
		    "--reserve?), keeping every placement");
		goto out;
	}
	for (pass = 0; pass < 2; pass++)	/* must-moves first */
		for (i = 0; i < d->plan_n; i++) {
			struct vp_vm *vm = &d->vm[d->plan_idx[i]];
			const struct vp_vm_plan *vp = &d->plan->vm[i];

			if (vp->error) {
				if (pass == 0 && vm->replace)
					log_msg(LOG_WARNING, "VM %s: its policy "
					    "does not fit on this host, keeping "
					    "its placement", vm->name);
				continue;
			}
			decide(d, d->plan, vm, vp, t0, &budget, pass == 0);
		}
	settle_replace(d);
out:
	d->c.plan_ns_last = clock_now_ns() - t0;
	d->c.plan_ns_ring[d->c.ticks % 256] = d->c.plan_ns_last;
	metrics_observe_plan(d, d->c.plan_ns_last);
}
