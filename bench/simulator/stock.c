/*
 * stock.c - Linux 6.12's wake-up path for a CFS task, modelled from
 * kernel/sched/fair.c: select_task_rq_fair() records the wakee and asks
 * wake_wide(); unless it says spread, wake_affine() picks the target
 * between the waker's CPU and prev (WA_IDLE, then WA_WEIGHT on PELT
 * load); then select_idle_sibling() tries, cheapest first, the target,
 * prev, recent_used_cpu, select_idle_capacity() on asym-capacity hosts,
 * prev's SMT siblings, and select_idle_cpu(): the target's cluster,
 * then the rest of the LLC in CPU-number order, looking for a whole
 * idle core while the LLC's has_idle_cores hint is set, else for any
 * idle CPU within SIS_UTIL's depth.  Every available_idle_cpu() read of
 * a runqueue not yet read in this wake-up is one probe, the unit the
 * figures count.
 *
 * Written from the kernel's documented behaviour; none of the placement
 * core is used here, so the two can disagree and the figures show it.
 */
#include <limits.h>
#include <math.h>

#include "sim.h"

/* What one select_idle_sibling() call works with. */
struct sis {
	struct sim *s;
	const struct vp_cpuset *cpus;	/* p->cpus_ptr */
	unsigned long *probes;
	struct vp_cpuset skip;		/* cores select_idle_core() dropped */
	struct vp_cpuset seen;		/* runqueues read in this wake-up */
	int thi;			/* the wakee */
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
	if (s->strat == STRAT_SIS_CORE) {
		sis_core_pu_idle(s, pu);
		return;
	}
	if (s->t->max_smt > 1 && host_core_idle(s, pu))
		s->has_idle_cores[s->t->pu[pu].llc] = true;
}

void
stock_pu_run(struct sim *s, int pu)
{
	/* 6.12's put_prev_task_idle() keeps no CFS idle state; the
	 * SIS_CORE patch adds update_busy_core() there */
	if (s->strat == STRAT_SIS_CORE)
		sis_core_pu_busy(s, pu);
}

static bool
probe_cb(void *ctx, int pu)
{
	return probe_idle(ctx, pu);
}

/*
 * sched_asym_cpucap_active(): unequal CPU capacities.  In 6.12 arm64
 * gets them from DT or ACPI CPPC (topology_init_cpu_capacity_cppc());
 * on x86 intel_pstate sets capacities on hybrid parts only without SMT
 * (hybrid_init_cpu_capacity_scaling(): !cpu_smt_possible()), otherwise
 * it enables ITMT asym packing, as amd-pstate does with preferred
 * cores: no asym capacity.  So: unequal priorities and no SMT.  An AMD
 * hybrid without SMT would be ITMT in 6.12; vp_topo cannot tell.
 */
static bool
asym_cpucap(const struct vp_topo *t)
{
	int pu;

	if (t->max_smt > 1)
		return false;
	for (pu = 1; pu < t->npus; pu++)
		if (t->pu[pu].prio != t->pu[0].prio)
			return true;
	return false;
}

/* capacity_of(): the core's priority as capacity, else all 1024. */
static unsigned int
capacity(const struct sim *s, int pu)
{
	return asym_cpucap(s->t) ? s->t->pu[pu].prio : 1024;
}

unsigned int
stock_capacity(const struct sim *s, int pu)
{
	return capacity(s, pu);
}

/*
 * A thread's PELT load_avg (nice 0, so weight 1024 x its runnable
 * fraction), with the util half-life (32 ms).  Brought up to date at
 * each of its wake-ups: runnable from the last update to its sleep,
 * then asleep.
 */
static double
decay(const struct sim *s, double v, uint64_t dt)
{
	return v * pow(0.5, (double)dt / s->p.util_halflife_ns);
}

static double
thread_load(const struct sim *s, const struct sim_thread *th)
{
	uint64_t run_end = s->now_ns;
	double l = th->load;

	if (th->state == TH_SLEEP && th->sleep_t_ns >= th->load_t_ns)
		run_end = th->sleep_t_ns;
	if (run_end > th->load_t_ns)
		l = decay(s, l, run_end - th->load_t_ns) + 1024 *
		    (1 - decay(s, 1, run_end - th->load_t_ns));
	return decay(s, l, s->now_ns - run_end);
}

/* cpu_load(): the cfs_rq's load_avg, with the blocked load of the
 * threads that last ran there (it decays on that runqueue). */
static double
cpu_load(const struct sim *s, int pu)
{
	double sum = 0;
	int i;

	for (i = 0; i < s->nth; i++) {
		const struct sim_thread *th = &s->th[i];
		int on = th->state == TH_SLEEP ? th->last_pu : th->pu;

		if (on == pu)
			sum += thread_load(s, th);
	}
	return sum;
}

/*
 * record_wakee() on the waker, then wake_wide(): spread when both
 * flip counts reach the LLC size and the larger is that factor above
 * the smaller.  Flips halve once a second (HZ jiffies).
 */
static bool
wake_wide(struct sim *s, int thi, int waker_pu)
{
	struct sim_thread *w;
	unsigned int master, slave, factor;

	if (waker_pu < 0 || s->pu[waker_pu].cur < 0)
		return false;	/* a timer: no waking task */
	w = &s->th[s->pu[waker_pu].cur];
	if (s->now_ns > w->flip_decay_ns + 1000000000ull) {
		w->wakee_flips >>= 1;
		w->flip_decay_ns = s->now_ns;
	}
	if (w->last_wakee != thi) {
		w->last_wakee = thi;
		w->wakee_flips++;
	}
	master = w->wakee_flips;
	slave = s->th[thi].wakee_flips;
	factor = s->t->llc[s->t->pu[waker_pu].llc].npus;
	if (master < slave) {
		unsigned int x = master;

		master = slave;
		slave = x;
	}
	return !(slave < factor || master < slave * factor);
}

/*
 * wake_affine(): the waker's CPU or prev.  WA_IDLE: an idle waker's
 * CPU sharing the LLC with prev gives prev if idle, else itself; an
 * idle prev wins.  WA_WEIGHT (wake_affine_weight()): the waker's CPU if
 * its load plus the task's, times 100, is below prev's load minus the
 * task's, times 100 + (imbalance_pct - 100) / 2, capacities crossed.
 * imbalance_pct is that of the lowest domain spanning both (sd_init():
 * 110 for SMT, 117 above).  vCPU kicks are not sync wake-ups.
 */
static int
wake_affine(struct sis *c, int thi, int this, int prev)
{
	struct sim *s = c->s;
	double tl, this_eff, prev_eff;
	int pct;

	if (host_idle(s, this) && share_llc(s, this, prev))
		return probe_idle(c, prev) ? prev : this;
	if (probe_idle(c, prev))
		return prev;
	pct = s->t->pu[this].core == s->t->pu[prev].core ? 110 : 117;
	tl = thread_load(s, &s->th[thi]);
	this_eff = (cpu_load(s, this) + tl) * 100 * capacity(s, prev);
	prev_eff = (cpu_load(s, prev) - tl) * (100 + (pct - 100) / 2) *
	    capacity(s, this);
	return this_eff < prev_eff ? this : prev;
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

/*
 * asym_fits_cpu(): on asym-capacity hosts the task's util must fit the
 * CPU, util * 1280 < capacity * 1024 (fits_capacity(), no uclamp).
 * task_util_est() is taken as the thread's PELT load (a vCPU is mostly
 * alone on its runqueue, so runnable ~ running).
 */
static bool
fits(struct sis *c, int pu)
{
	double util = c->s->th[c->thi].load;

	return !asym_cpucap(c->s->t) || util * 1280 < capacity(c->s, pu) *
	    1024.0;
}

/*
 * sd_asym_cpucapacity of @target: the lowest of its LLC, package and
 * machine that holds every capacity (SD_ASYM_CPUCAPACITY_FULL).
 */
static void
asym_span(const struct vp_topo *t, int target, int *first, int *n)
{
	const struct vp_llc *l = &t->llc[t->pu[target].llc];
	unsigned int lo = 1024, hi = 0, llo = 1024, lhi = 0;
	int pu;

	for (pu = 0; pu < t->npus; pu++) {
		unsigned int p = t->pu[pu].prio;

		lo = p < lo ? p : lo;
		hi = p > hi ? p : hi;
		if (pu >= l->first_pu && pu < l->first_pu + l->npus) {
			llo = p < llo ? p : llo;
			lhi = p > lhi ? p : lhi;
		}
	}
	*first = 0;
	*n = t->npus;
	if (llo == lo && lhi == hi) {
		*first = l->first_pu;
		*n = l->npus;
	}
}

/*
 * select_idle_capacity(): from the target on, in CPU-number order over
 * sd_asym_cpucapacity and p->cpus_ptr, the first idle CPU the task
 * fits, else the idle CPU of the highest capacity, else none.
 */
static int
select_idle_capacity(struct sis *c, int target)
{
	const struct vp_topo *t = c->s->t;
	int first, n, k, pu, best = VP_PU_NONE;
	unsigned int best_cap = 0;

	asym_span(t, target, &first, &n);
	for (k = 0; k < n; k++) {
		pu = first + (target - first + k) % n;
		if (!cpuset_test(c->cpus, pu) || !probe_idle(c, pu))
			continue;
		if (fits(c, pu))
			return pu;
		if (capacity(c->s, pu) > best_cap) {
			best_cap = capacity(c->s, pu);
			best = pu;
		}
	}
	return best;
}

/*
 * select_idle_sibling(), cheapest try first.  With SIS_CORE (sis_core.c)
 * each idle target, prev or recent CPU is taken at once only if
 * sis_core_take() says so; when one was kept aside, the walk of the idle
 * cores replaces the stock scan, with that CPU as its fallback.
 */
static int
select_idle_sibling(struct sis *c, struct sim_thread *th, int prev,
    int target)
{
	struct sim *s = c->s;
	struct sis_core_wake w = {
		.s = s, .cpus = c->cpus, .probe = probe_cb, .ctx = c,
		.probes = c->probes, .defer = VP_PU_NONE,
	};
	bool sc = sis_core_applies(s);
	int prev_aff = VP_PU_NONE, recent, i;
	bool has_idle_core = false;

	if (probe_idle(c, target) && fits(c, target) &&
	    (!sc || sis_core_take(&w, target)))
		return target;
	/* If the previous CPU is cache affine and idle, don't be stupid */
	if (prev != target && share_llc(s, prev, target) &&
	    probe_idle(c, prev) && fits(c, prev)) {
		if ((!s->cluster_active || share_cluster(s, prev, target)) &&
		    (!sc || sis_core_take(&w, prev)))
			return prev;
		prev_aff = prev;
	}
	recent = th->recent_pu;
	th->recent_pu = prev;
	if (recent >= 0 && recent != prev && recent != target &&
	    share_llc(s, recent, target) && probe_idle(c, recent) &&
	    cpuset_test(c->cpus, recent) && fits(c, recent)) {
		if ((!s->cluster_active || share_cluster(s, recent, target)) &&
		    (!sc || sis_core_take(&w, recent)))
			return recent;
	} else {
		recent = VP_PU_NONE;
	}
	if (asym_cpucap(s->t)) {
		i = select_idle_capacity(c, target);
		return i != VP_PU_NONE ? i : target;
	}
	/* SIS_CORE kept an idle CPU aside: the walk of the idle cores, or
	 * that CPU; nothing kept aside: the stock path, unchanged */
	if (w.defer != VP_PU_NONE) {
		i = sis_core_select(&w, target);
		return i != VP_PU_NONE ? i : w.defer;
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
		.thi = thi,
	};
	int prev = th->last_pu, target;

	s->sis_writes = 0;
	/* the load is brought up to date at each wake-up */
	th->load = thread_load(s, th);
	th->load_t_ns = s->now_ns;
	/* one allowed CPU: select_task_rq() does not even ask */
	if (cpuset_count(c.cpus) == 1)
		return cpuset_first(c.cpus);
	/* a prev outside the allowed set: select_fallback_rq() */
	if (prev < 0 || !cpuset_test(c.cpus, prev))
		prev = th->home >= 0 && cpuset_test(c.cpus, th->home) ?
		    th->home : cpuset_first(c.cpus);
	cpuset_zero(&c.seen);
	target = prev;
	if (!wake_wide(s, thi, waker_pu) && waker_pu >= 0 &&
	    waker_pu != prev && cpuset_test(c.cpus, waker_pu))
		target = wake_affine(&c, thi, waker_pu, prev);

	cpuset_zero(&c.skip);
	return select_idle_sibling(&c, th, prev, target);
}
