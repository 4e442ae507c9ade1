/*
 * plan.c - the planner: a home PU and an allowed set for every managed
 * vCPU, from the model, the host's own load and the VMs' policies.
 *
 * Order of claims, most exclusive first: the host's reserved PUs leave
 * the pool; dedicated VMs take PUs 1:1; isolated VMs take whole cores,
 * each claim within the host's budget (budget.c) or refused; shared VMs, high priority first, get homes by the same decision the
 * wake-up path uses (place.c), on a view where every PU already chosen
 * as a home counts as busy, so homes spread over idle cores first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/vcpuplace.h"

struct planner {
	const struct vp_topo *t;
	const struct vp_plan_input *in;
	struct vp_cpuset pool;		/* PUs still open to sharing */
	struct vp_cpuset claimed;	/* homes so far, any VM */
	struct vp_cpuset exclusive;	/* PUs exclusive VMs hold so far */
	int *load;			/* [npus]: homes on each PU */
	struct vp_idlemask idle;
	unsigned long probes;
};

void
plan_free(struct vp_plan *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nvms; i++)
		free(p->vm[i].vcpu);
	free(p->vm);
	free(p);
}

/* Exclusive claims go first, then by priority, then input order. */
static int
claim_rank(const struct vp_vm_spec *vm)
{
	if (vm->policy.mode == VP_MODE_DEDICATED)
		return 0;
	if (vm->policy.smt == VP_SMT_ISOLATE)
		return 1;
	return 2 + (int)vm->policy.priority;
}

static int
cmp_order(const void *pa, const void *pb, void *ctx)
{
	const struct vp_vm_spec *vms = ctx;
	int a = *(const int *)pa, b = *(const int *)pb;
	int ra = claim_rank(&vms[a]), rb = claim_rank(&vms[b]);

	if (ra != rb)
		return ra - rb;
	return a - b;
}

/*
 * A core an exclusive VM may take: all of it in the pool and homing no
 * shared vCPU; with @quiet, also none of it busy with host work.
 */
static bool
core_free(const struct planner *p, const struct vp_core *core, bool quiet)
{
	if (cpuset_count_range(&p->pool, core->first_pu, core->npus) !=
	    core->npus)
		return false;
	if (cpuset_intersects_range(&p->claimed, core->first_pu, core->npus))
		return false;
	return !quiet || !p->in->busy ||
	    !cpuset_intersects_range(p->in->busy, core->first_pu, core->npus);
}

/* Whole free cores in LLC @llc. */
static int
free_cores_in_llc(const struct planner *p, int llc, bool quiet)
{
	const struct vp_llc *l = &p->t->llc[llc];
	int c, n = 0;

	for (c = l->first_core; c < l->first_core + l->ncores; c++)
		n += core_free(p, &p->t->core[c], quiet);
	return n;
}

/* The LLC with the most whole free cores: exclusive claims stay local. */
static int
pick_llc_for_cores(const struct planner *p, bool quiet)
{
	int i, best = 0, best_n = -1;

	for (i = 0; i < p->t->nllcs; i++) {
		int n = free_cores_in_llc(p, i, quiet);

		if (n > best_n) {
			best = i;
			best_n = n;
		}
	}
	return best;
}

/*
 * Takes the free cores (@quiet: and quiet ones) of LLC @llc for the
 * vCPUs of @vm from @placed on; returns the vCPUs placed after it.
 */
static int
take_llc(struct planner *p, const struct vp_vm_spec *vm, int llc,
    bool quiet, int placed, struct vp_vcpu_plan *vc,
    struct vp_cpuset *ret_taken)
{
	bool ded = vm->policy.mode == VP_MODE_DEDICATED;
	bool whole_core = vm->policy.smt == VP_SMT_ISOLATE;
	const struct vp_llc *l = &p->t->llc[llc];
	int c, s;

	for (c = l->first_core; c < l->first_core + l->ncores &&
	    placed < vm->nvcpus; c++) {
		const struct vp_core *core = &p->t->core[c];
		int per = ded && whole_core ? 1 : core->npus;

		if (!core_free(p, core, quiet))
			continue;
		for (s = 0; s < per && placed < vm->nvcpus; s++) {
			vc[placed].home = core->first_pu + s;
			vc[placed].reason = ded ? VP_REASON_DEDICATED :
			    VP_REASON_ISOLATED;
			trace_step(&vc[placed].trace, VP_STEP_TOOK_CORE,
			    core->first_pu + s, llc);
			cpuset_set(&vc[placed].allowed, core->first_pu + s);
			cpuset_set(ret_taken, core->first_pu + s);
			placed++;
		}
		if (!ded || whole_core)
			cpuset_set_range(ret_taken, core->first_pu,
			    core->npus);
		cpuset_andnot(&p->pool, &p->pool, ret_taken);
	}
	return placed;
}

/*
 * Takes whole free cores for an exclusive VM, LLC by LLC starting with
 * the roomiest.  Dedicated vCPUs get one PU each, packed onto siblings
 * (as Nova's "prefer" thread policy does) unless smt isolate, where each
 * gets a core to itself; isolated VMs fill their cores and may run on
 * any PU of them.  Cores quiet of host work go first, in a pass of their
 * own, then cores the host also uses: each pass visits every LLC once,
 * so a VM that needs some of both kinds fits wherever the cores exist
 * (one shared budget of tries for both passes ran out on a one-LLC host:
 * a dedicated VM of two vCPUs on two PUs, one busy, did not fit).  What
 * was taken leaves the pool and is in *ret_taken.  Returns the vCPUs
 * placed.
 */
static int
take_cores(struct planner *p, const struct vp_vm_spec *vm,
    struct vp_vcpu_plan *vc, struct vp_cpuset *ret_taken)
{
	int placed = 0, pass, tries, s;

	cpuset_zero(ret_taken);
	for (pass = 0; pass < 2 && placed < vm->nvcpus; pass++) {
		bool quiet = pass == 0;

		for (tries = 0; tries < p->t->nllcs && placed < vm->nvcpus;
		    tries++) {
			int llc = pick_llc_for_cores(p, quiet);

			if (free_cores_in_llc(p, llc, quiet) == 0)
				break;	/* none of this kind left anywhere */
			placed = take_llc(p, vm, llc, quiet, placed, vc,
			    ret_taken);
		}
	}
	for (s = 0; vm->policy.mode != VP_MODE_DEDICATED && s < placed; s++)
		vc[s].allowed = *ret_taken;
	return placed;
}

/*
 * Takes again the PUs an exclusive VM already has, when each one's core
 * is still free; false (nothing taken) otherwise.
 */
static bool
keep_previous(struct planner *p, const struct vp_vm_spec *vm,
    struct vp_vcpu_plan *vc, struct vp_cpuset *ret_taken)
{
	bool ded = vm->policy.mode == VP_MODE_DEDICATED;
	bool whole_core = vm->policy.smt == VP_SMT_ISOLATE;
	struct vp_cpuset cores, homes;
	int i, c, pu;

	if (!vm->prev_home)
		return false;
	cpuset_zero(&cores);
	cpuset_zero(&homes);
	for (i = 0; i < vm->nvcpus; i++) {
		pu = vm->prev_home[i];
		if (pu < 0 || pu >= p->t->npus || cpuset_test(&homes, pu))
			return false;
		c = p->t->pu[pu].core;
		if (!cpuset_test(&cores, pu) &&
		    !core_free(p, &p->t->core[c], false))
			return false;
		if (ded && whole_core && cpuset_test(&cores, pu))
			return false;	/* two vCPUs on one isolated core */
		cpuset_set(&homes, pu);
		topo_add_core(p->t, pu, &cores);
	}
	*ret_taken = ded && !whole_core ? homes : cores;
	for (i = 0; i < vm->nvcpus; i++) {
		vc[i].home = vm->prev_home[i];
		vc[i].reason = ded ? VP_REASON_DEDICATED : VP_REASON_ISOLATED;
		trace_step(&vc[i].trace, VP_STEP_KEPT, vc[i].home, 0);
		cpuset_zero(&vc[i].allowed);
		if (ded)
			cpuset_set(&vc[i].allowed, vc[i].home);
		else
			vc[i].allowed = cores;
	}
	cpuset_andnot(&p->pool, &p->pool, ret_taken);
	return true;
}

/*
 * Whether the claim @taken keeps the exclusive VMs within the host's
 * budget; if not, gives it back and says so in @out (-EDQUOT), with the
 * vCPU plans cleared for planning the VM as a shared one.
 */
static int
within_budget(struct planner *p, const struct vp_vm_spec *vm,
    const struct vp_cpuset *taken, struct vp_vm_plan *out)
{
	struct vp_cpuset all;
	unsigned int cores;

	if (!p->in->budget)
		return 0;
	cpuset_or(&all, &p->exclusive, taken);
	if (budget_allows(p->t, p->in->reserved, p->in->budget, &all,
	    &p->pool, &cores)) {
		p->exclusive = all;
		return 0;
	}
	cpuset_or(&p->pool, &p->pool, taken);
	out->over_budget = true;
	out->want_cores = cores;
	out->max_cores = budget_max_cores(p->t, p->in->reserved,
	    p->in->budget);
	memset(out->vcpu, 0, vm->nvcpus * sizeof(*out->vcpu));
	return -EDQUOT;
}

static int
plan_exclusive(struct planner *p, const struct vp_vm_spec *vm,
    struct vp_vm_plan *out)
{
	struct vp_cpuset taken;

	if (keep_previous(p, vm, out->vcpu, &taken) ||
	    take_cores(p, vm, out->vcpu, &taken) == vm->nvcpus)
		return within_budget(p, vm, &taken, out);
	/* did not fit: give everything back, plan nothing */
	cpuset_or(&p->pool, &p->pool, &taken);
	free(out->vcpu);
	out->vcpu = NULL;
	return -ENOSPC;
}

/*
 * The PUs a shared vCPU homed at @home may run on: its locality's domain,
 * widened until it holds a core per vCPU and more than one core
 * (wakedom_locality_level()), as the sched_ext scheduler's wake domain is.
 */
static void
allowed_for(const struct planner *p, const struct vp_vm_spec *vm, int home,
    struct vp_cpuset *ret)
{
	struct vp_cpuset dom;
	enum vp_level l = wakedom_locality_level(p->t, home,
	    vm->policy.locality,
	    wakedom_cores_needed(p->t, vm->policy.smt, vm->nvcpus, home));

	if (l < VP_LEVEL_COUNT)
		wakedom_pus(p->t, l, wakedom_index(p->t, home, l), &dom);
	else
		dom = p->t->all;
	cpuset_and(ret, &dom, &p->pool);
	if (cpuset_empty(ret))
		cpuset_set(ret, home);
}

/* Homes on @pu, plus one when the host itself keeps it busy. */
static int
pu_load(const struct planner *p, int pu)
{
	return p->load[pu] + (p->in->busy && cpuset_test(p->in->busy, pu));
}

/* Least loaded pool PU, searching @anchor's LLC first, then all. */
static int
least_loaded(const struct planner *p, int anchor)
{
	const struct vp_llc *l = &p->t->llc[p->t->pu[anchor].llc];
	int pass, pu, best = VP_PU_NONE;

	for (pass = 0; pass < 2 && best == VP_PU_NONE; pass++) {
		int lo = pass ? 0 : l->first_pu;
		int hi = pass ? p->t->npus : l->first_pu + l->npus;

		cpuset_for_each(pu, &p->pool, hi) {
			if (pu < lo)
				continue;
			if (best == VP_PU_NONE ||
			    pu_load(p, pu) < pu_load(p, best))
				best = pu;
		}
	}
	return best;
}

/* Homes on the pool PUs of LLC @l. */
static int
llc_load(const struct planner *p, const struct vp_llc *l)
{
	int pu, n = 0;

	cpuset_for_each(pu, &p->pool, l->first_pu + l->npus)
		if (pu >= l->first_pu)
			n += pu_load(p, pu);
	return n;
}

/*
 * The PU of the roomiest LLC a new VM starts from: the most pool PUs
 * left after the homes already there.  Counting homes, not PUs with a
 * home, keeps an overcommitted host balanced: once every PU homes a
 * vCPU, each LLC would count as "0 free" and the first would take every
 * further VM (the simulator caught this on Kunpeng 920).
 */
static int
pick_first_anchor(const struct planner *p)
{
	int i, best = VP_PU_NONE, best_free = 0;

	for (i = 0; i < p->t->nllcs; i++) {
		const struct vp_llc *l = &p->t->llc[i];
		int pool = cpuset_count_range(&p->pool, l->first_pu, l->npus);
		int n = pool - llc_load(p, l);

		if (pool && (best == VP_PU_NONE || n > best_free)) {
			best_free = n;
			best = cpuset_next(&p->pool, l->first_pu,
			    l->first_pu + l->npus);
		}
	}
	return best;
}

/*
 * One shared vCPU: the wake-up decision on a view where host-busy PUs,
 * PUs outside the pool and PUs already homing a vCPU are all busy.
 */
static void
plan_shared_vcpu(struct planner *p, const struct vp_vm_spec *vm, int anchor,
    bool follow, struct vp_vcpu_plan *out)
{
	struct vp_cpuset busy;
	struct vp_view v = {
		.topo = p->t, .idle = &p->idle, .busy = &busy,
		.feat = p->in->feat, .trace = &out->trace,
	};
	struct vp_place_req r = {
		.home = VP_PU_NONE, .prev = anchor, .allowed = &p->pool,
		.smt = vm->policy.smt == VP_SMT_ISOLATE ?
		    VP_SMT_PREFER_IDLE_CORE : vm->policy.smt,
	};
	struct vp_place_res res;

	cpuset_andnot(&busy, &p->t->all, &p->pool);
	cpuset_or(&busy, &busy, &p->claimed);
	if (p->in->busy)
		cpuset_or(&busy, &busy, p->in->busy);
	idlemask_rebuild(&p->idle, p->t, &busy);
	view_trace(&v, VP_STEP_ANCHOR, anchor, follow);
	if (place_select(&v, &r, &res) < 0 ||
	    res.reason == VP_REASON_FALLBACK) {
		res.pu = least_loaded(p, anchor);
		res.reason = VP_REASON_FALLBACK;
	}
	view_trace(&v, VP_STEP_CHOSEN, res.pu, res.reason);
	p->probes += v.probes;
	out->probes = v.probes;
	out->home = res.pu;
	out->reason = res.reason;
	p->load[res.pu]++;
	cpuset_set(&p->claimed, res.pu);
	allowed_for(p, vm, res.pu, &out->allowed);
}

static int
plan_shared(struct planner *p, const struct vp_vm_spec *vm,
    struct vp_vm_plan *out)
{
	int i, anchor;

	anchor = pick_first_anchor(p);
	if (anchor == VP_PU_NONE) {
		free(out->vcpu);
		out->vcpu = NULL;
		return -ENOSPC;
	}
	for (i = 0; i < vm->nvcpus; i++) {
		plan_shared_vcpu(p, vm, anchor, i > 0, &out->vcpu[i]);
		anchor = out->vcpu[i].home;	/* keep the VM together */
	}
	return 0;
}

/*
 * The exclusive VMs the budget refused, planned last as shared VMs with
 * the fallback policy: after every claim, so their shared homes never
 * keep a granted VM from a core.
 */
static void
plan_over_budget(struct planner *p, struct vp_plan *pl)
{
	int i;

	for (i = 0; i < pl->nvms; i++) {
		struct vp_vm_spec vm;

		if (pl->vm[i].error != -EDQUOT)
			continue;
		vm = p->in->vms[i];
		if (p->in->fallback)
			vm.policy = *p->in->fallback;
		else
			policy_default(&vm.policy);
		if (vm.policy.mode != VP_MODE_SHARED ||
		    vm.policy.smt == VP_SMT_ISOLATE)
			policy_default(&vm.policy);	/* never exclusive */
		pl->vm[i].error = plan_shared(p, &vm, &pl->vm[i]);
	}
}

static int
check_input(const struct vp_topo *t, const struct vp_plan_input *in,
    struct vp_cpuset *ret_pool)
{
	int i;

	if (in->nvms < 0 || (in->nvms > 0 && !in->vms) || !in->feat)
		return -EINVAL;
	for (i = 0; i < in->nvms; i++)
		if (in->vms[i].nvcpus < 1 || in->vms[i].nvcpus > VP_MAX_PUS)
			return -EINVAL;
	*ret_pool = t->all;
	if (in->reserved)
		cpuset_andnot(ret_pool, &t->all, in->reserved);
	return cpuset_empty(ret_pool) ? -EINVAL : 0;
}

static int
alloc_plan(const struct vp_plan_input *in, struct vp_plan **ret)
{
	struct vp_plan *pl;
	int i;

	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return -ENOMEM;
	pl->vm = calloc(in->nvms ? in->nvms : 1, sizeof(*pl->vm));
	if (!pl->vm) {
		free(pl);
		return -ENOMEM;
	}
	pl->nvms = in->nvms;
	for (i = 0; i < in->nvms; i++) {
		pl->vm[i].nvcpus = in->vms[i].nvcpus;
		if (in->vms[i].policy.mode == VP_MODE_OFF)
			continue;
		pl->vm[i].vcpu = calloc(in->vms[i].nvcpus,
		    sizeof(*pl->vm[i].vcpu));
		if (!pl->vm[i].vcpu) {
			plan_free(pl);
			return -ENOMEM;
		}
	}
	*ret = pl;
	return 0;
}

int
plan_compute(const struct vp_topo *t, const struct vp_plan_input *in,
    struct vp_plan **ret_plan)
{
	struct planner p = { .t = t, .in = in };
	struct vp_plan *pl = NULL;
	int *order = NULL;
	int i, r;

	if ((r = check_input(t, in, &p.pool)) < 0)
		return r;
	if ((r = alloc_plan(in, &pl)) < 0)
		return r;
	r = -ENOMEM;
	order = calloc(in->nvms ? in->nvms : 1, sizeof(*order));
	p.load = calloc(t->npus, sizeof(*p.load));
	if (!order || !p.load || idlemask_init(&p.idle, t) < 0)
		goto out;
	for (i = 0; i < in->nvms; i++)
		order[i] = i;
	qsort_r(order, in->nvms, sizeof(*order), cmp_order,
	    (void *)in->vms);
	for (i = 0; i < in->nvms; i++) {
		const struct vp_vm_spec *vm = &in->vms[order[i]];
		struct vp_vm_plan *out = &pl->vm[order[i]];

		if (vm->policy.mode == VP_MODE_OFF)
			continue;
		out->error = claim_rank(vm) < 2 ? plan_exclusive(&p, vm, out) :
		    plan_shared(&p, vm, out);
	}
	plan_over_budget(&p, pl);
	pl->shared_pool = p.pool;
	pl->probes = p.probes;
	*ret_plan = pl;
	pl = NULL;
	r = 0;
out:
	idlemask_release(&p.idle);
	free(p.load);
	free(order);
	plan_free(pl);
	return r;
}
