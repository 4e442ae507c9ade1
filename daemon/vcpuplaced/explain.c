/*
 * explain.c - why one vCPU is where it is, in words: its policy, the
 * planner's decision path as the plan recorded it (struct vp_trace, the
 * real steps, not a replay), the candidates it turned down and why, and
 * how the live affinity compares with the plan.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vcpuplaced/daemon.h"

static unsigned int
os_of(const struct vp_daemon *d, int pu)
{
	return d->topo->pu[pu].os_index;
}

static void
print_cpus(const struct vp_daemon *d, FILE *f, const struct vp_cpuset *s)
{
	char buf[8192];

	if (cpulist_format(d->topo, s, buf, sizeof(buf)) < 0)
		snprintf(buf, sizeof(buf), "(%d CPUs)", cpuset_count(s));
	fputs(buf[0] ? buf : "(none)", f);
}

/* The plan of d->vm[@i], or NULL when the last plan does not cover it. */
static const struct vp_vm_plan *
plan_of(const struct vp_daemon *d, const struct vp_vm *vm)
{
	int i;

	for (i = 0; d->plan && i < d->plan_n; i++)
		if (d->plan_idx[i] >= 0 && &d->vm[d->plan_idx[i]] == vm)
			return &d->plan->vm[i];
	return NULL;
}

/*
 * Why @pu counted as busy when the plan was made: another vCPU's home,
 * host work, or not open to sharing at all.
 */
static void
why_busy(const struct vp_daemon *d, int pu, FILE *f)
{
	int i, k;

	for (i = 0; d->plan && i < d->plan_n; i++) {
		const struct vp_vm_plan *p = &d->plan->vm[i];

		for (k = 0; p->vcpu && k < p->nvcpus; k++)
			if (p->vcpu[k].home == pu) {
				fprintf(f, "busy: home of %s vCPU %d",
				    d->plan_idx[i] >= 0 ?
				    d->vm[d->plan_idx[i]].name :
				    "a VM that has gone", k);
				return;
			}
	}
	if (cpuset_test(&d->plan_busy, pu)) {
		fputs("busy: host work", f);
		return;
	}
	if (cpuset_test(&d->reserved, pu)) {
		fputs("reserved for the host (--reserve)", f);
		return;
	}
	if (d->plan && !cpuset_test(&d->plan->shared_pool, pu)) {
		fputs("held by an exclusive (dedicated or isolated) VM", f);
		return;
	}
	fputs("busy", f);
}

static void
explain_step(const struct vp_daemon *d, const struct vp_trace_step *s,
    FILE *f)
{
	const struct vp_topo *t = d->topo;
	struct vp_cpuset llc;

	switch (s->step) {
	case VP_STEP_ANCHOR:
		fprintf(f, "start from CPU %u: %s", os_of(d, s->pu), s->arg ?
		    "the home of the VM's previous vCPU, to keep the VM "
		    "together" : "in the last-level cache with the most room");
		break;
	case VP_STEP_SCAN_LLC:
		fprintf(f, "scan LLC %d (CPUs ", s->arg);
		cpuset_zero(&llc);
		cpuset_set_range(&llc, t->llc[s->arg].first_pu,
		    t->llc[s->arg].npus);
		print_cpus(d, f, &llc);
		fprintf(f, ") from CPU %u, the start of its cluster, idle "
		    "cores first", os_of(d, s->pu));
		break;
	case VP_STEP_BUSY:
		fprintf(f, "rejected CPU %u: ", os_of(d, s->pu));
		why_busy(d, s->pu, f);
		break;
	case VP_STEP_OUTSCORED:
		fprintf(f, "rejected CPU %u: idle, but scored %d; a busy SMT "
		    "sibling or a lower priority lost to a better core",
		    os_of(d, s->pu), s->arg);
		break;
	case VP_STEP_SIBLING_BUSY:
		fprintf(f, "rejected CPU %u: idle, but %d SMT sibling(s) busy "
		    "and the policy is smt=isolate", os_of(d, s->pu), s->arg);
		break;
	case VP_STEP_CHOSEN:
		fprintf(f, "chose CPU %u (%s)", os_of(d, s->pu),
		    scan_reason_tag((enum vp_reason)s->arg));
		if (s->arg == VP_REASON_FALLBACK)
			fputs(": no allowed PU was free, so the one homing "
			    "the fewest vCPUs", f);
		break;
	case VP_STEP_KEPT:
		fprintf(f, "kept CPU %u: an exclusive VM keeps its CPUs while "
		    "their cores stay free", os_of(d, s->pu));
		break;
	case VP_STEP_TOOK_CORE:
		fprintf(f, "took CPU %u of a free core in LLC %d, the LLC with "
		    "the most free cores", os_of(d, s->pu), s->arg);
		break;
	default:
		fprintf(f, "%s CPU %u", trace_step_tag(s->step),
		    os_of(d, s->pu));
	}
}

static void
explain_policy(const struct vp_vm *vm, FILE *f)
{
	if (!vm->policy_known) {
		fprintf(f, "policy: none valid yet: %s\n", vm->error[0] ?
		    vm->error : "not read");
		return;
	}
	fprintf(f, "policy: profile %s: mode %s, smt %s, locality %s, "
	    "priority %s\n", vm->profile, policy_mode_name(vm->policy.mode),
	    policy_smt_name(vm->policy.smt),
	    policy_locality_name(vm->policy.locality),
	    policy_priority_name(vm->policy.priority));
	if (vm->error[0])
		fprintf(f, "  metadata rejected, previous policy kept: %s\n",
		    vm->error);
	if (vm->granted)
		fputs("  granted by the host (grants.xml); its metadata is not "
		    "read\n", f);
	else if (vm->source == VP_SOURCE_RULE)
		fprintf(f, "  chosen by host rule %s (no grant, no metadata of "
		    "its own)\n", vm->rule);
	else if (vm->source == VP_SOURCE_METADATA)
		fputs("  chosen by its own vcpuplace metadata\n", f);
	else if (!vm->refused[0])
		fputs("  the host default: no grant, metadata or host rule "
		    "for it\n", f);
	if (vm->refused[0])
		fprintf(f, "  refused: %s; placed as the host default "
		    "(balanced)\n", vm->refused);
}

static void
explain_plan(const struct vp_daemon *d, const struct vp_vm *vm,
    const struct vp_vm_plan *p, int k, FILE *f)
{
	const struct vp_vcpu_plan *vp;
	int i;

	if (!vm_managed(vm)) {
		fputs("plan: none: vcpuplace leaves this VM's affinity as "
		    "it is\n", f);
		return;
	}
	if (!p) {
		fputs("plan: not planned yet (next tick)\n", f);
		return;
	}
	if (p->error || !p->vcpu) {
		fputs("plan: none: the policy does not fit on this host now "
		    "(not enough free cores); the previous placement stays\n",
		    f);
		return;
	}
	vp = &p->vcpu[k];
	fprintf(f, "plan: home CPU %u, allowed ", os_of(d, vp->home));
	print_cpus(d, f, &vp->allowed);
	fprintf(f, ", reason %s, %lu probe(s)\n", scan_reason_tag(vp->reason),
	    vp->probes);
	fputs("decision path:\n", f);
	for (i = 0; i < vp->trace.n; i++) {
		fprintf(f, "  %d. ", i + 1);
		explain_step(d, &vp->trace.s[i], f);
		fputc('\n', f);
	}
	if (vp->trace.dropped)
		fprintf(f, "  (%u more steps not recorded)\n",
		    vp->trace.dropped);
}

/* "cluster 3 (CPUs 12-15)": a BPF wake domain, in the model's words. */
static void
print_dom(const struct vp_daemon *d, FILE *f, unsigned int id)
{
	struct vp_cpuset s;
	enum vp_level l;
	int i;

	if (scxfeed_dom_of(d->topo, id, &l, &i) < 0) {
		fprintf(f, "domain %u (none)", id);
		return;
	}
	wakedom_pus(d->topo, l, i, &s);
	fprintf(f, "%s %d (CPUs ", wakedom_level_name(l), i);
	print_cpus(d, f, &s);
	fputc(')', f);
}

/* What the BPF scheduler was told about this vCPU. */
static void
explain_sched_ext(const struct vp_daemon *d, const struct vp_vcpu *v,
    FILE *f)
{
	const struct vp_scx_pushed *p = schedext_pushed(&d->scx, v->tid);

	if (!p) {
		fputs("wake path: vcpuplace's BPF scheduler, which has no "
		    "entry for this thread yet (next tick)\n", f);
		return;
	}
	fputs("wake path: vcpuplace's BPF scheduler: home ", f);
	if (p->e.home >= 0)
		fprintf(f, "CPU %d", p->e.home);
	else
		fputs("none", f);
	fputs(", then ", f);
	print_dom(d, f, p->e.near_dom);
	fputs(", then ", f);
	print_dom(d, f, p->e.far_dom);
	fprintf(f, "%s%s%s%s%s\n",
	    p->e.flags & VP_SCX_F_STAY_FAR_DOM ? ", never beyond it" : "",
	    p->e.flags & VP_SCX_F_CACHE_HOT ? "; cache-hot after a short "
	    "sleep" : "",
	    p->e.flags & VP_SCX_F_SMT_ISOLATE ? "; never next to a busy SMT "
	    "sibling" : "",
	    p->e.flags & VP_SCX_F_SMT_ANY ? "; first idle PU, SMT ignored" : "",
	    p->ext ? "" : "; the thread is not in SCHED_EXT (refused)");
}

#define N(i) ((unsigned long long)v->scx.n[i])
static void
explain_wakeups(const struct vp_vcpu *v, FILE *f)
{
	if (v->scx_known)
		fprintf(f, "wake-ups: %llu decided: %llu on home, %llu on an "
		    "idle core, %llu on an idle sibling, %llu on the previous "
		    "PU, %llu queued; %llu next to a busy SMT sibling (%llu "
		    "while a whole idle core was free), %llu migrated (%llu "
		    "across clusters, %llu across LLCs), %llu cache-hot; %llu "
		    "CPUs probed\n", N(VP_SCX_V_WAKEUP), N(VP_SCX_V_HOME),
		    N(VP_SCX_V_IDLE_CORE), N(VP_SCX_V_IDLE_SIBLING),
		    N(VP_SCX_V_PREV), N(VP_SCX_V_QUEUED), N(VP_SCX_V_SMT_BUSY),
		    N(VP_SCX_V_SMT_BUSY_IDLE_CORE), N(VP_SCX_V_MIGRATED),
		    N(VP_SCX_V_CROSS_CLUSTER), N(VP_SCX_V_CROSS_LLC),
		    N(VP_SCX_V_CACHE_HOT), N(VP_SCX_V_PROBES));
}
#undef N

static void
explain_live(const struct vp_daemon *d, const struct vp_vcpu *v, FILE *f)
{
	fputs("live: allowed ", f);
	print_cpus(d, f, &v->affinity);
	if (cpuset_equal(&v->affinity, &v->planned))
		fputs(" (as planned)", f);
	else if (d->paused)
		fputs(" (differs from the plan: placement is paused)", f);
	else if (v->pending_ticks)
		fprintf(f, " (differs from the plan for %d tick(s): a move "
		    "waits for the plan to hold and for the vCPU's cooldown)",
		    v->pending_ticks);
	else
		fputs(" (differs from the plan: a move is due)", f);
	if (v->current != VP_PU_NONE)
		fprintf(f, "; running on CPU %u, the kernel's choice inside "
		    "the allowed set", os_of(d, v->current));
	fprintf(f, "; busy %.0f%% and %.3f ms run-queue delay over the last "
	    "tick\n", v->util * 100, (double)v->delay_ns / 1e6);
	if (d->scx.state == VP_SCX_LOADED)
		explain_sched_ext(d, v, f);
	else if (d->sis_core == VP_SIS_CORE_ON)
		fputs("wake path: the kernel's, inside the allowed set, with "
		    "SIS_CORE on: idle cores scanned at core granule "
		    "(kernel-patch mode)\n", f);
	else
		fprintf(f, "wake path: the kernel's stock one, inside the "
		    "allowed set (%s mode, SIS_CORE %s)\n",
		    schedext_mode_label(d),
		    schedfeat_sis_core_name(d->sis_core));
	explain_wakeups(v, f);
	fprintf(f, "last move: %s\n", v->reason == VP_REASON_NONE ?
	    "none by vcpuplace" : scan_reason_tag(v->reason));
}

int
explain_vcpu(const struct vp_daemon *d, const char *name, int k, FILE *f)
{
	const struct vp_vm *vm = inventory_vm_by_name(d, name);

	if (!vm) {
		fprintf(f, "error: no running VM '%s'\n", name);
		return -ENOENT;
	}
	if (k < 0 || k >= vm->nvcpus) {
		fprintf(f, "error: VM '%s' has vCPUs 0..%d, not %d\n", name,
		    vm->nvcpus - 1, k);
		return -ENOENT;
	}
	fprintf(f, "VM %s vCPU %d (thread %d)\n", vm->name, k, vm->vcpu[k].tid);
	explain_policy(vm, f);
	explain_plan(d, vm, plan_of(d, vm), k, f);
	explain_live(d, &vm->vcpu[k], f);
	return 0;
}
