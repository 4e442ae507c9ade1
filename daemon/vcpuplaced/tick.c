/*
 * tick.c - one planning round: the pure planner on the live inventory,
 * then the churn rules (core/churn.c) on every planned vCPU: a move is
 * made when it must be (a new VM or policy, a broken affinity), or when
 * the plan has held and the vCPU has cooled down, within a budget of
 * pins per tick.  The rules are pure; this file runs the planner when
 * its inputs changed and carries the daemon's state to and from them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vcpuplaced/daemon.h"

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
 * The VMs whose grant the budget of exclusive cores refused this plan,
 * and those it no longer refuses: said once per change.
 */
static void
note_budget(struct vp_daemon *d)
{
	const struct vp_budget *b = profiles_budget(d->profiles);
	char why[256];
	int i;

	for (i = 0; i < d->plan_n; i++) {
		const struct vp_vm_plan *p = &d->plan->vm[i];
		struct vp_vm *vm = &d->vm[d->plan_idx[i]];

		if (p->over_budget && b) {
			snprintf(why, sizeof(why), "exclusive cores over the "
			    "host budget: the exclusive VMs would hold %u "
			    "cores, at most %u (%u %%) and %u left shared",
			    p->want_cores, p->max_cores, b->exclusive_max_pct,
			    b->shared_min_cores);
			inventory_note_refused(d, vm, VP_REFUSED_BUDGET, why);
		} else if (vm->refused_cause == VP_REFUSED_BUDGET) {
			inventory_note_refused(d, vm, VP_REFUSED_BUDGET, "");
		}
	}
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
		.budget = profiles_budget(d->profiles),
		.fallback = profiles_get(d->profiles, "balanced"),
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
	note_budget(d);
	return 0;
}

/*
 * Says once that a VM's new policy does not fit: settle_replace() then
 * clears vm->replace, and the VM keeps its placement.
 */
static void
warn_unfit(const struct vp_daemon *d)
{
	int i;

	for (i = 0; i < d->plan_n; i++) {
		const struct vp_vm *vm = &d->vm[d->plan_idx[i]];

		if (d->plan->vm[i].error && vm->replace)
			log_msg(LOG_WARNING, "VM %s: its policy does not fit "
			    "on this host, keeping its placement", vm->name);
	}
}

/* The vCPUs the plan placed: those of every VM whose request fit. */
static int
count_planned(const struct vp_daemon *d)
{
	int i, n = 0;

	for (i = 0; i < d->plan_n; i++)
		if (!d->plan->vm[i].error)
			n += d->vm[d->plan_idx[i]].nvcpus;
	return n;
}

/*
 * Copies the plan into every planned vCPU and fills @cv (plan order: VM,
 * then vCPU) with what the churn rules look at.
 */
static void
take_plan(struct vp_daemon *d, struct vp_churn_vcpu *cv)
{
	int i, k, j = 0;

	for (i = 0; i < d->plan_n; i++) {
		struct vp_vm *vm = &d->vm[d->plan_idx[i]];
		const struct vp_vm_plan *vp = &d->plan->vm[i];

		for (k = 0; k < vm->nvcpus && !vp->error; k++, j++) {
			struct vp_vcpu *v = &vm->vcpu[k];

			v->planned = vp->vcpu[k].allowed;
			v->home = vp->vcpu[k].home;
			cv[j] = (struct vp_churn_vcpu){
				.affinity = &v->affinity,
				.planned = &v->planned,
				.pending_ticks = (unsigned int)v->pending_ticks,
				.last_move_ns = v->last_move_ns,
				.urgent = vm->replace,
			};
		}
	}
}

/*
 * An event round (a VM started, a policy changed) makes only the moves
 * that must be made now: the others keep the anti-churn rules, and only
 * ticks count towards their hysteresis, so that a burst of events cannot
 * age a pending move faster than the tick would.
 */
static void
keep_urgent(struct vp_churn_vcpu *cv, int n, const unsigned int *pending)
{
	int j;

	for (j = 0; j < n; j++) {
		cv[j].pending_ticks = pending[j];
		if (cv[j].verdict == VP_CHURN_MAY)
			cv[j].verdict = VP_CHURN_WAIT;
	}
}

/* Carries the rules' verdicts back, in the order take_plan() used. */
static void
store_moves(struct vp_daemon *d, const struct vp_churn_vcpu *cv)
{
	int i, k, j = 0;

	for (i = 0; i < d->plan_n; i++) {
		struct vp_vm *vm = &d->vm[d->plan_idx[i]];
		const struct vp_vm_plan *vp = &d->plan->vm[i];

		for (k = 0; k < vm->nvcpus && !vp->error; k++, j++) {
			struct vp_vcpu *v = &vm->vcpu[k];

			v->pending_ticks = (int)cv[j].pending_ticks;
			/* as planned, e.g. after a restart: adopt its home */
			if (cv[j].verdict == VP_CHURN_UNCHANGED)
				v->placed_home = v->home;
			if (cv[j].move) {
				v->move = true;
				v->reason = vp->vcpu[k].reason;
			}
		}
	}
}

/*
 * Marks the moves of this tick (v->move) under the churn rules.  One
 * allocation a tick, 48 bytes a planned vCPU: 38 KB for 800 vCPUs.
 */
static int
choose_moves(struct vp_daemon *d, uint64_t now, bool urgent_only)
{
	struct vp_churn_host h = {
		.topo = d->topo, .reserved = &d->reserved,
		.shared_pool = &d->plan->shared_pool,
	};
	struct vp_churn_rules rules;
	struct vp_churn_vcpu *cv;
	unsigned int *pending;
	int j, n = count_planned(d);

	cv = calloc(n ? n : 1, sizeof(*cv));
	pending = calloc(n ? n : 1, sizeof(*pending));
	if (!cv || !pending) {
		free(cv);
		free(pending);
		return -ENOMEM;
	}
	churn_rules_default(&rules);
	take_plan(d, cv);
	for (j = 0; j < n; j++) {
		pending[j] = cv[j].pending_ticks;
		churn_classify(&h, &rules, &cv[j], now);
	}
	if (urgent_only)
		keep_urgent(cv, n, pending);
	churn_pick(cv, n, rules.move_budget);
	store_moves(d, cv);
	free(pending);
	free(cv);
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

/*
 * A failed round keeps every placement.  It is counted each time, but
 * logged once per change of cause (a host that stays out of memory
 * would otherwise log four lines a second), and once when it recovers.
 */
static void
note_plan_result(struct vp_daemon *d, int r)
{
	if (r < 0)
		d->c.plan_failures++;
	if (r == d->plan_error)
		return;
	if (r == -EINVAL)
		log_msg(LOG_ERR, "planning failed: no PU is left for VMs "
		    "(--reserve %s) or a VM has more vCPUs than the host "
		    "model holds; keeping every placement",
		    d->reserve_list ? d->reserve_list : "none");
	else if (r < 0)
		log_msg(LOG_ERR, "planning failed: %s; keeping every "
		    "placement", strerror(-r));
	else
		log_msg(LOG_NOTICE, "planning works again");
	d->plan_error = r;
}

static int
plan_round(struct vp_daemon *d, uint64_t now, bool urgent_only)
{
	int r;

	if ((r = replan(d)) == 0) {
		warn_unfit(d);
		if ((r = choose_moves(d, now, urgent_only)) == 0)
			settle_replace(d);
	}
	note_plan_result(d, r);
	return r;
}

void
tick_plan_urgent(struct vp_daemon *d)
{
	plan_round(d, clock_now_ns(), true);
}

void
tick_plan(struct vp_daemon *d)
{
	uint64_t t0 = clock_now_ns();

	plan_round(d, t0, false);
	d->c.plan_ns_last = clock_now_ns() - t0;
	d->c.plan_ns_ring[d->c.ticks % 256] = d->c.plan_ns_last;
	metrics_observe_plan(d, d->c.plan_ns_last);
}
