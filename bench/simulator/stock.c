/*
 * stock.c - Linux 6.12's wake-up path for a CFS task, modelled from
 * kernel/sched/fair.c: wake_affine() picks the target between the
 * waker's CPU and prev, then select_idle_sibling() tries, cheapest
 * first, the target, prev, recent_used_cpu, prev's SMT siblings, and
 * select_idle_cpu(): the target's cluster, then the rest of the LLC in
 * CPU-number order, looking for a whole idle core while the LLC's
 * has_idle_cores hint is set, else for any idle CPU within SIS_UTIL's
 * depth.  Every available_idle_cpu() on a CPU other than the waker's is
 * one probe, the unit the figures count.
 *
 * Written from the kernel's documented behaviour; none of the placement
 * core is used here, so the two can disagree and the figures show it.
 */
#include <limits.h>

#include "sim.h"

/* What one select_idle_sibling() call works with. */
struct sis {
	struct sim *s;
	const struct vp_cpuset *cpus;	/* p->cpus_ptr */
	unsigned long *probes;
	struct vp_cpuset skip;		/* cores select_idle_core() dropped */
	struct vp_cpuset seen;		/* runqueues read in this wake-up */
};

/*
 * available_idle_cpu() reads the remote runqueue's line; a second read
 * of the same line in one wake-up (prev in wake_affine_idle() and then
 * in select_idle_sibling()) hits the waker's cache, so it is one probe.
 */
static bool
probe_idle(struct sis *c, int pu)
{
	if (!cpuset_test(&c->seen, pu)) {
		cpuset_set(&c->seen, pu);
		(*c->probes)++;
	}
	return host_idle(c->s, pu);
}

static bool
share_llc(const struct sim *s, int a, int b)
{
	return s->t->pu[a].llc == s->t->pu[b].llc;
}

/* cpus_share_resources(): the same cluster (or core, without one). */
static bool
share_cluster(const struct sim *s, int a, int b)
{
	return s->t->pu[a].cluster == s->t->pu[b].cluster;
}

int
stock_nr_idle_scan(const struct vp_topo *t, int llc, double util_sum)
{
	/*
	 * update_idle_cpu_scan(): x = util per CPU (of 1024); the scan
	 * depth falls as 1 - (x * pct / 100)^2 and stops when the LLC is
	 * 85 % busy, pct being the LLC domain's imbalance_pct, 117.
	 */
	double w = t->llc[llc].npus, x = util_sum / w;
	double tmp = x * x * 117 * 117 / (10000.0 * 1024);

	if (tmp > 1024)
		tmp = 1024;
	return (int)((1024 - tmp) * w / 1024);
}

void
stock_pu_idle(struct sim *s, int pu)
{
	/* __update_idle_core(): a CPU entering idle on a now idle core */
	if (s->t->max_smt > 1 && host_core_idle(s, pu))
		s->has_idle_cores[s->t->pu[pu].llc] = true;
}

/*
 * wake_affine(): the waker's CPU or prev.  WA_IDLE: an idle prev wins;
 * WA_WEIGHT: the waker's CPU only if, with this task added, it is less
 * loaded than prev by the half imbalance_pct margin (100 vs 108).
 * vCPU kicks are not sync wake-ups.  Runnable counts stand in for load.
 */
static int
wake_affine(struct sis *c, int this, int prev)
{
	struct sim *s = c->s;

	if (host_idle(s, this) && share_llc(s, this, prev))
		return probe_idle(c, prev) ? prev : this;
	if (probe_idle(c, prev))
		return prev;
	if ((host_nr(s, this) + 1) * 100 < host_nr(s, prev) * 108)
		return this;
	return prev;
}

/* select_idle_smt(): an idle SMT sibling of prev. */
static int
select_idle_smt(struct sis *c, int prev)
{
	const struct vp_core *k = &c->s->t->core[c->s->t->pu[prev].core];
	int pu;

	for (pu = k->first_pu; pu < k->first_pu + k->npus; pu++)
		if (pu != prev && cpuset_test(c->cpus, pu) &&
		    probe_idle(c, pu))
			return pu;
	return VP_PU_NONE;
}

/*
 * select_idle_core(): is @pu's core all idle?  Remembers the first idle
 * allowed sibling in *idle_cpu; a failed core leaves the candidates.
 */
static int
select_idle_core(struct sis *c, int pu, int *idle_cpu)
{
	const struct vp_core *k = &c->s->t->core[c->s->t->pu[pu].core];
	bool idle = true;
	int sb;

	for (sb = k->first_pu; sb < k->first_pu + k->npus; sb++) {
		if (!probe_idle(c, sb)) {
			idle = false;
			if (*idle_cpu == VP_PU_NONE)
				continue;
			break;
		}
		if (*idle_cpu == VP_PU_NONE && cpuset_test(c->cpus, sb))
			*idle_cpu = sb;
	}
	if (idle)
		return pu;
	cpuset_set_range(&c->skip, k->first_pu, k->npus);
	return VP_PU_NONE;
}

/* One pass of select_idle_cpu() over the LLC in CPU-number order. */
enum pass { PASS_ALL, PASS_CLUSTER, PASS_REST };

static int
idle_cpu_pass(struct sis *c, int target, enum pass which,
    bool has_idle_core, int *nr, int *idle_cpu, bool *stop)
{
	const struct vp_topo *t = c->s->t;
	const struct vp_llc *l = &t->llc[t->pu[target].llc];
	int k, pu, start = t->pu_os_pos[target] + 1, i;
	int cluster = t->pu[target].cluster;

	for (k = 0; k < l->npus; k++) {
		pu = l->os_order[(start + k) % l->npus];
		if (which != PASS_ALL &&
		    (t->pu[pu].cluster == cluster) != (which == PASS_CLUSTER))
			continue;
		if (!cpuset_test(c->cpus, pu) || cpuset_test(&c->skip, pu))
			continue;
		if (has_idle_core) {
			i = select_idle_core(c, pu, idle_cpu);
			if (i != VP_PU_NONE)
				return i;
			continue;
		}
		if (--*nr <= 0) {
			*stop = true;
			return VP_PU_NONE;
		}
		if (probe_idle(c, pu))
			return pu;
	}
	return VP_PU_NONE;
}

/*
 * select_idle_cpu(): SIS_UTIL's depth first (an LLC over ~85 % util is
 * not scanned at all), then the target's cluster, then the rest of the
 * LLC.  A failed idle-core scan clears the LLC's hint.
 */
static int
select_idle_cpu(struct sis *c, bool has_idle_core, int target)
{
	struct sim *s = c->s;
	int llc = s->t->pu[target].llc;
	int nr = s->nr_idle_scan[llc] + 1, idle_cpu = VP_PU_NONE, i;
	bool stop = false;

	/* overloaded LLC is unlikely to have idle cpu/core */
	if (nr == 1)
		return VP_PU_NONE;
	if (s->cluster_active) {
		i = idle_cpu_pass(c, target, PASS_CLUSTER, has_idle_core, &nr,
		    &idle_cpu, &stop);
		if (i != VP_PU_NONE || stop)
			return i;
		i = idle_cpu_pass(c, target, PASS_REST, has_idle_core, &nr,
		    &idle_cpu, &stop);
	} else {
		i = idle_cpu_pass(c, target, PASS_ALL, has_idle_core, &nr,
		    &idle_cpu, &stop);
	}
	if (i != VP_PU_NONE || stop)
		return i;
	if (has_idle_core)
		s->has_idle_cores[llc] = false;
	return idle_cpu;
}

/* select_idle_sibling(), cheapest try first. */
static int
select_idle_sibling(struct sis *c, struct sim_thread *th, int prev,
    int target)
{
	struct sim *s = c->s;
	int prev_aff = VP_PU_NONE, recent, i;
	bool has_idle_core = false;

	if (probe_idle(c, target))
		return target;
	/* If the previous CPU is cache affine and idle, don't be stupid */
	if (prev != target && share_llc(s, prev, target) &&
	    probe_idle(c, prev)) {
		if (!s->cluster_active || share_cluster(s, prev, target))
			return prev;
		prev_aff = prev;
	}
	recent = th->recent_pu;
	th->recent_pu = prev;
	if (recent >= 0 && recent != prev && recent != target &&
	    share_llc(s, recent, target) && probe_idle(c, recent) &&
	    cpuset_test(c->cpus, recent)) {
		if (!s->cluster_active || share_cluster(s, recent, target))
			return recent;
	} else {
		recent = VP_PU_NONE;
	}
	if (s->t->max_smt > 1) {
		has_idle_core = s->has_idle_cores[s->t->pu[target].llc];
		if (!has_idle_core && share_llc(s, prev, target) &&
		    (i = select_idle_smt(c, prev)) != VP_PU_NONE)
			return i;
	}
	i = select_idle_cpu(c, has_idle_core, target);
	if (i != VP_PU_NONE)
		return i;
	/* cluster machines: prev or recent beat a busy target */
	if (prev_aff != VP_PU_NONE)
		return prev_aff;
	if (recent != VP_PU_NONE)
		return recent;
	return target;
}

int
stock_select(struct sim *s, int thi, int waker_pu, unsigned long *probes)
{
	struct sim_thread *th = &s->th[thi];
	struct sis c = {
		.s = s, .cpus = &s->allowed[th->allowed], .probes = probes,
	};
	int prev = th->last_pu, target;

	/* one allowed CPU: select_task_rq() does not even ask */
	if (cpuset_count(c.cpus) == 1)
		return cpuset_first(c.cpus);
	/* a prev outside the allowed set: select_fallback_rq() */
	if (prev < 0 || !cpuset_test(c.cpus, prev))
		prev = th->home >= 0 && cpuset_test(c.cpus, th->home) ?
		    th->home : cpuset_first(c.cpus);
	cpuset_zero(&c.seen);
	target = prev;
	if (waker_pu >= 0 && waker_pu != prev &&
	    cpuset_test(c.cpus, waker_pu))
		target = wake_affine(&c, waker_pu, prev);
	cpuset_zero(&c.skip);
	return select_idle_sibling(&c, th, prev, target);
}
