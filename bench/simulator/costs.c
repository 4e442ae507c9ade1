/*
 * costs.c - the host costs, the same for every strategy: a vCPU
 * migration (cache refill, VMCS/VMCB reload, IPI, TLB warm-up), C-state
 * exit on an idle PU, the package's turbo frequency, KVM halt polling
 * and the idle-mask upkeep at idle entry and exit.  The values and
 * their sources are in cpus.c (per CPU model), params.c and
 * bench/notes/costs.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "costs.h"

/*
 * VMM part of a migration, ns, by hypervisor flavour.
 *  VMX: 6.12 vmx_vcpu_load_vmcs(): a vCPU whose VMCS was loaded on
 *   another CPU first runs loaded_vmcs_clear(), a synchronous
 *   smp_call_function_single() to the old CPU (VMCLEAR there), then
 *   VMPTRLD here, rewrites the per-CPU host state (TR, GDT, SYSENTER)
 *   and must VMLAUNCH instead of VMRESUME (SDM: "avoid unnecessary
 *   migration of a VMCS").  No public cycle counts were found for the
 *   IPI round trip or VMPTRLD: taken as 1000 ns for the synchronous
 *   IPI (range 500-3000) and 300 ns for VMCLEAR/VMPTRLD/VMLAUNCH and
 *   the VMWRITEs (range 100-1000).
 *  SVM: 6.12 svm_vcpu_load()/pre_svm_run(): no IPI; a new CPU resets
 *   the ASID generation and marks the VMCB all dirty: 300 ns assumed.
 *  arm64: 6.12 kvm_arch_vcpu_load(): when another vCPU last ran on
 *   this CPU, a local TLB flush of the VMID (__kvm_flush_cpu_context);
 *   no IPI: 200 ns assumed.  POWER: the same assumption.
 */
static double
vmm_ns(enum cpu_vmm v)
{
	switch (v) {
	case VMM_VMX:
		return 1000 + 300;
	case VMM_SVM:
		return 300;
	default:
		return 200;
	}
}

/*
 * TLB/EPT warm-up: vmx_vcpu_load_vmcs() requests KVM_REQ_TLB_FLUSH on
 * every change of pCPU (VPID does not save it: "the new pCPU may have
 * stale TLB entries"); SVM gets a new ASID; arm64 flushes the VMID.  So
 * the vCPU refills its L1 dTLB with two-dimensional walks.  Walk cost:
 * no public figure for a 2D walk that hits the paging-structure caches;
 * 40 ns assumed (range 20-150); 2 walks in flight (Skylake's two page
 * miss handlers, Intel optimization manual).
 */
#define WALK_NS		40.0
#define WALKERS		2.0

static const struct cpu_model *
model(const struct sim *s)
{
	return s->p.cpu ? s->p.cpu : &cpu_models[ncpu_models - 1];
}

/* The sourced model of one migration across distance class @d. */
static double
migration_model(const struct sim *s, int d)
{
	const struct cpu_model *m = model(s);
	double l1 = s->p.l1d_bytes / 64, l2 = s->p.l2_bytes / 64 *
	    s->p.l2_hot_frac, refill = 0;

	/* SMT siblings (d 0) share L1 and L2; a cluster-shared L2 (KNL
	 * tiles) saves the L2 part inside the cluster */
	if (d >= 1)
		refill = host_refetch_ns(s, l1 + (d == 1 && s->p.l2_shared ?
		    0 : l2), d);
	return refill + vmm_ns(m->vmm) + m->tlb_entries * WALK_NS / WALKERS;
}

/* Every shared line the model times (struct sim.line_last_ns). */
static int
nlines(const struct vp_topo *t)
{
	return 2 * t->nllcs + 2 + costs_dsq_count(t);
}

int
costs_init(struct sim *s)
{
	const struct vp_topo *t = s->t;
	double k = 1;
	int d, i, pkg;

	if (s->p.migration_us > 0)
		k = s->p.migration_us * 1000 / migration_model(s, 2);
	for (d = 0; d < 5; d++) {
		if (s->p.migration_us > 0)
			s->migr_ns[d] = k * migration_model(s, d);
		else if (s->p.costs & COST_MIGRATION)
			s->migr_ns[d] = migration_model(s, d);
		else	/* the first model's: the L1d refill only */
			s->migr_ns[d] = host_refetch_ns(s, s->p.warm_lines, d);
	}
	s->pkg_active = calloc(t->npackages, sizeof(*s->pkg_active));
	s->pkg_speed = calloc(t->npackages, sizeof(*s->pkg_speed));
	s->pkg_first = calloc(t->npackages, sizeof(*s->pkg_first));
	s->pkg_npus = calloc(t->npackages, sizeof(*s->pkg_npus));
	s->pkg_ncores = calloc(t->npackages, sizeof(*s->pkg_ncores));
	/* per LLC: its shared line and its SIS_CORE mask; host-wide: the
	 * scx idle masks and the shared DSQ's lock; then the lock of each
	 * LLC's and each PU's DSQ (costs_dsq_op()) */
	s->line_last_ns = calloc(nlines(t), sizeof(*s->line_last_ns));
	s->line_gap_ns = calloc(nlines(t), sizeof(*s->line_gap_ns));
	if (!s->pkg_active || !s->pkg_speed || !s->pkg_first ||
	    !s->pkg_npus || !s->pkg_ncores || !s->line_last_ns ||
	    !s->line_gap_ns)
		return -ENOMEM;
	/* untouched lines: as if last touched long ago */
	for (i = 0; i < nlines(t); i++)
		s->line_gap_ns[i] = 1e9;
	/* PUs are sorted by package: each is one range */
	for (i = t->npus - 1; i >= 0; i--) {
		pkg = t->pu[i].package;
		s->pkg_first[pkg] = i;
		s->pkg_npus[pkg]++;
	}
	for (i = 0; i < t->ncores; i++)
		s->pkg_ncores[t->pu[t->core[i].first_pu].package]++;
	for (pkg = 0; pkg < t->npackages; pkg++)
		s->pkg_speed[pkg] = 1;
	for (i = 0; i < t->npus; i++)
		s->pu[i].cstate = -1;
	return 0;
}

void
costs_release(struct sim *s)
{
	free(s->pkg_active);
	free(s->pkg_speed);
	free(s->pkg_first);
	free(s->pkg_npus);
	free(s->pkg_ncores);
	free(s->line_last_ns);
	free(s->line_gap_ns);
	s->line_last_ns = NULL;
	s->line_gap_ns = NULL;
	s->pkg_active = s->pkg_first = s->pkg_npus = s->pkg_ncores = NULL;
	s->pkg_speed = NULL;
}

int
costs_parse(const char *list)
{
	static const char *const names[] = {
		"migration", "cstates", "turbo", "poll", "upkeep", "scx",
	};
	const int nnames = (int)(sizeof(names) / sizeof(names[0]));
	const char *p = list;
	int mask = 0, i;

	if (!strcmp(list, "all"))
		return COST_ALL;
	if (!strcmp(list, "none"))
		return 0;
	while (*p) {
		size_t n = strcspn(p, ",");

		for (i = 0; i < nnames; i++)
			if (strlen(names[i]) == n && !strncmp(p, names[i], n))
				break;
		if (i == nnames)
			return -1;
		mask |= 1 << i;
		p += n + (p[n] == ',');
	}
	return mask;
}

double
costs_migration_ns(const struct sim *s, int from, int to)
{
	if (from < 0 || from == to)
		return 0;
	return s->migr_ns[host_distance(s->t, from, to)];
}

/* The shared lines the upkeep touches (struct sim.line_last_ns). */
enum line_kind { LINE_LLC_SHARED, LINE_SIS_CORE, LINE_SCX };

/*
 * Cost of one atomic or write on a shared idle-mask line: the line
 * comes from the core that wrote it last, a core-to-core transfer
 * (probe_ns, ~50 ns on Cascade Lake, params.c).  A host-wide mask on a
 * multi-package host bounces between packages: half the transfers
 * taken as remote (line_ns[3]).  Contention: the line serves one
 * transfer at a time, so with touches arriving every g ns on average
 * (a 1/8 EWMA per line) and a transfer of c ns, rho = c / g and each
 * touch also waits the M/D/1 queue's mean, c * rho / (2 (1 - rho))
 * (Pollaczek-Khinchine); rho is capped at 0.9.  A modelling choice,
 * not a measurement.
 */
static double
queued_op(struct sim *s, int id, double c)
{
	double gap, rho;

	gap = (double)(s->now_ns - s->line_last_ns[id]);
	s->line_last_ns[id] = s->now_ns;
	s->line_gap_ns[id] += (gap - s->line_gap_ns[id]) / 8;
	rho = s->line_gap_ns[id] > 0 ? c / s->line_gap_ns[id] : 1;
	if (rho > 0.9)
		rho = 0.9;
	return c * (1 + rho / (2 * (1 - rho)));
}

/* A host-wide line's transfer: half of them remote on 2+ packages. */
static double
host_line_ns(const struct sim *s)
{
	if (s->t->npackages > 1)
		return (s->p.probe_ns + s->p.line_ns[3]) / 2;
	return s->p.probe_ns;
}

static double
line_op(struct sim *s, int pu, enum line_kind k)
{
	int nl = s->t->nllcs, id = k == LINE_SCX ? 2 * nl :
	    (k == LINE_SIS_CORE ? nl : 0) + s->t->pu[pu].llc;

	return queued_op(s, id, k == LINE_SCX ? host_line_ns(s) :
	    s->p.probe_ns);
}

/*
 * One operation on the shared DSQ under its lock (6.12
 * dispatch_enqueue(), consume_dispatch_q(): raw_spin_lock(&dsq->lock)):
 * the lock's line comes from whoever took it last (a host-wide line),
 * and the lock is held that long plus @held_ns of work under it (the
 * consume walk).  Every CPU takes the same lock, so the hold is the
 * service time of one M/D/1 server, as the idle-mask lines above.
 */
/*
 * One operation under a DSQ's lock.  Each dispatch queue has its own
 * (6.12 struct scx_dispatch_q.lock, taken by dispatch_enqueue() and
 * consume_dispatch_q()), so queues used by different CPUs do not
 * contend.  The host-wide shared DSQ's line bounces as a host-wide
 * line; the line of an LLC's or a PU's queue comes from a core of that
 * LLC at in-LLC cost when @pu is one of its CPUs (or unknown, -1), else
 * from another LLC of the package or another package (line_ns[2], [3]).
 */
double
costs_dsq_op(struct sim *s, int dsq, int pu, double held_ns)
{
	const struct vp_topo *t = s->t;
	int id, home_llc;
	double line;
	double ns;

	if (!(s->p.costs & COST_SCX))
		return 0;
	if (dsq == COSTS_DSQ_SHARED) {
		id = 2 * t->nllcs + 1;
		line = host_line_ns(s);
	} else {
		id = 2 * t->nllcs + 2 + dsq;
		home_llc = dsq < t->nllcs ? dsq : t->pu[dsq - t->nllcs].llc;
		if (pu < 0 || t->pu[pu].llc == home_llc)
			line = s->p.probe_ns;
		else if (t->pu[pu].package == t->llc[home_llc].package)
			line = s->p.line_ns[2];
		else
			line = s->p.line_ns[3];
	}
	ns = queued_op(s, id, line + held_ns);
	if (s->measuring)
		s->st.dsq_lock_ns += ns;
	return ns;
}

static bool
smt_host(const struct sim *s)
{
	return s->t->max_smt > 1;	/* sched_smt_active() */
}

void
costs_pu_idle(struct sim *s, int pu)
{
	const struct cpu_model *m = model(s);
	struct sim_pu *p = &s->pu[pu];
	double ns = 0;
	bool whole, known;
	int i;

	/*
	 * A menu-like governor: the deepest state whose target residency
	 * fits the predicted idle (the kernel's rq->avg_idle, capped at
	 * 2 x migration cost), as menu_select() compares
	 * target_residency_ns with its predicted_ns.  None: polling (-1).
	 */
	p->cstate = -1;
	if (s->p.costs & COST_CSTATES)
		for (i = 0; i < m->nidle; i++)
			if (m->idle[i].residency_ns <= p->avg_idle_ns)
				p->cstate = i;
	if (!(s->p.costs & COST_UPKEEP))
		return;
	/*
	 * The kernel's own upkeep at idle entry, under every strategy:
	 * 6.12 __update_idle_core() (from set_next_task_idle()) writes
	 * sd_llc_shared->has_idle_cores through set_idle_cores() when the
	 * whole core is idle and the flag was clear (SMT hosts only).
	 */
	whole = smt_host(s) && host_core_idle(s, pu);
	/* SIS_CORE's __update_idle_core() stops at a core already in its
	 * mask, and writes the mask only when it sets the core's bits */
	known = s->strat == STRAT_SIS_CORE &&
	    cpuset_test(&s->sis_idle_cores, pu);
	if (whole && !known && !s->has_idle_cores[s->t->pu[pu].llc])
		ns += line_op(s, pu, LINE_LLC_SHARED);
	switch (s->strat) {
	case STRAT_SCX:
		/* 6.12 update_builtin_idle(cpu, true): cpumask_set_cpu()
		 * on the host-wide idle_masks.cpu, and cpumask_or() on
		 * idle_masks.smt when the whole core is idle */
		ns += line_op(s, pu, LINE_SCX);
		if (smt_host(s) && host_core_idle(s, pu))
			ns += line_op(s, pu, LINE_SCX);
		break;
	case STRAT_SIS_CORE:
		/* sis_core_set(): the core's bits, tested before written */
		if (whole && !known)
			ns += line_op(s, pu, LINE_SIS_CORE);
		break;
	default:
		break;
	}
	p->upkeep_until_ns = s->now_ns + (uint64_t)ns;
	if (s->measuring)
		s->st.idle_upkeep_ns += ns;
}

double
costs_cstate_exit_ns(const struct sim *s, int pu)
{
	const struct cpu_model *m = model(s);
	int i = s->pu[pu].cstate;

	if (!(s->p.costs & COST_CSTATES) || i < 0)
		return 0;
	/* a core-level state (core C6, CC6) is reached only when every
	 * sibling idles; else the PU sat in the deepest thread-level state
	 * at or below its pick */
	if (!host_core_idle(s, pu))
		while (i >= 0 && m->idle[i].core_level)
			i--;
	return i >= 0 ? m->idle[i].exit_ns * s->p.cstate_scale : 0;
}

uint64_t
costs_wake_delay(struct sim *s, int pu)
{
	struct sim_pu *p = &s->pu[pu];
	double exit = costs_cstate_exit_ns(s, pu), up = 0;

	p->cstate = -1;
	if (s->p.costs & COST_UPKEEP) {
		/* the idle-entry upkeep may still be running */
		if (p->upkeep_until_ns > s->now_ns)
			up = (double)(p->upkeep_until_ns - s->now_ns);
		/* SIS_CORE drops a core still in its mask at idle exit
		 * (put_prev_task_idle() -> __update_busy_core()); after a
		 * claim the bit is gone and nothing is written.  Charged
		 * here, when the wake-up is decided; a pull's is not */
		if (s->strat == STRAT_SIS_CORE &&
		    cpuset_test(&s->sis_idle_cores, pu)) {
			double x = line_op(s, pu, LINE_SIS_CORE);

			up += x;
			if (s->measuring)
				s->st.idle_upkeep_ns += x;
		}
		/* sched_ext clears the PU at idle exit too:
		 * update_builtin_idle(cpu, false), both masks */
		if (s->strat == STRAT_SCX) {
			double x = line_op(s, pu, LINE_SCX);

			if (smt_host(s))
				x += line_op(s, pu, LINE_SCX);

			up += x;
			if (s->measuring)
				s->st.idle_upkeep_ns += x;
		}
	}
	if (s->measuring)
		s->st.cstate_ns += exit;
	return (uint64_t)(exit + up);
}

uint64_t
costs_waker_upkeep(struct sim *s, int pu)
{
	double ns = 0;
	unsigned int k;

	if (!(s->p.costs & COST_UPKEEP))
		return 0;
	/* SIS_CORE's waker writes the mask for each core it claims or
	 * finds stale (sis_core.c counts them), idle target or not */
	if (s->strat == STRAT_SIS_CORE)
		for (k = 0; k < s->sis_writes; k++)
			ns += line_op(s, pu, LINE_SIS_CORE);
	/* sched_ext's scx_pick_idle_cpu() claims the idle PU it picked:
	 * test_and_clear_cpu() on idle_masks.cpu */
	if (s->strat == STRAT_SCX && host_idle(s, pu))
		ns = line_op(s, pu, LINE_SCX);
	if (s->measuring)
		s->st.idle_upkeep_ns += ns;
	return (uint64_t)ns;
}

double
costs_turbo(const struct sim *s, int pkg, int nactive)
{
	const struct cpu_model *m = model(s);
	int n = s->pkg_ncores[pkg];
	double f;

	if (!(s->p.costs & COST_TURBO) || m->f1_ghz <= m->fall_ghz ||
	    nactive <= 1 || n <= 1)
		return 1;
	f = m->f1_ghz - (m->f1_ghz - m->fall_ghz) * (nactive - 1) / (n - 1);
	/* turbo ratios are 100 MHz bins: the nearest one */
	f = round(f * 10) / 10;
	return f >= m->f1_ghz ? 1 : f / m->f1_ghz;
}

/* KVM_HALT_POLL_NS_DEFAULT in 6.12: x86 200000, arm64 500000, powerpc
 * 10000 (arch/<arch>/include/asm/kvm_host.h) */
static uint64_t
poll_max(const struct sim *s)
{
	if (!(s->p.costs & COST_POLL))
		return 0;
	if (s->p.halt_poll_ns >= 0)
		return (uint64_t)s->p.halt_poll_ns;
	switch (model(s)->vmm) {
	case VMM_ARM64:
		return 500000;
	case VMM_PPC:
		return 10000;
	default:
		return 200000;
	}
}

uint64_t
costs_poll_window(const struct sim *s, int th)
{
	uint64_t max = poll_max(s), w = s->th[th].poll_win_ns;

	return w > max ? max : w;
}

/*
 * 6.12 defaults: halt_poll_ns_grow 2, halt_poll_ns_grow_start 10000,
 * halt_poll_ns_shrink 2 (virt/kvm/kvm_main.c; shrink was 0 before
 * "KVM: Enable halt polling shrink parameter by default", 6.4).
 * POWER's KVM HV polls in its own kvmppc_vcore_blocked()
 * (arch/powerpc/kvm/book3s_hv.c) with its own module parameters:
 * grow 2 from 10 us, and a shrink of 0, which resets the window to 0
 * (not re-read in the 6.12 tree this session; the generic change did
 * not touch book3s_hv.c).  Its window is per vcore, not per vCPU: not
 * modelled, each vCPU keeps its own.
 */
#define POLL_GROW	2
#define POLL_GROW_START	10000

/* The shrink divisor of @s's KVM; 0 resets the window. */
static unsigned int
poll_shrink(const struct sim *s)
{
	return model(s)->vmm == VMM_PPC ? 0 : 2;
}

void
costs_halt_end(struct sim *s, int thi)
{
	struct sim_thread *th = &s->th[thi];
	uint64_t max = poll_max(s), halt = s->now_ns - th->sleep_t_ns;
	uint64_t w = th->poll_win_ns > max ? max : th->poll_win_ns;

	if (!max) {
		th->poll_win_ns = 0;
		return;
	}
	/* kvm_vcpu_halt()'s adaptation after every halt */
	if (halt <= w)
		;
	else if (w && halt > max) {
		/* shrink_halt_poll_ns() */
		w = poll_shrink(s) ? w / poll_shrink(s) : 0;
		if (w < POLL_GROW_START)
			w = 0;
	} else if (w < max && halt < max) {
		/* grow_halt_poll_ns() */
		w *= POLL_GROW;
		if (w < POLL_GROW_START)
			w = POLL_GROW_START;
	}
	th->poll_win_ns = w;
}

/* One line for tests and notes: the cost tables this run would use. */
int
costs_print(const struct vp_topo *t, const struct sim_params *p)
{
	/* halts (us) whose poll windows the line shows: four short ones
	 * grow it, a long run of long ones shrinks it to 0 */
	static const int halts_us[] = {
		50, 50, 50, 50, 150, 1000, 1000, 1000, 1000, 1000,
	};
	const struct cpu_model *m;
	struct sim_thread th;
	struct sim s;
	int d, n;

	memset(&s, 0, sizeof(s));
	memset(&th, 0, sizeof(th));
	s.t = t;
	s.p = *p;
	s.th = &th;
	s.nth = 1;
	m = model(&s);
	s.pu = calloc(t->npus, sizeof(*s.pu));
	if (!s.pu || costs_init(&s) < 0) {
		free(s.pu);
		costs_release(&s);
		return -ENOMEM;
	}
	printf("{\"cpu\":\"%s\",\"cpu_table\":\"%s\",\"vmm\":\"%s\","
	    "\"l1d\":%.0f,\"l2\":%.0f,\"l2_shared\":%d,\"migr_ns\":[",
	    m->name, m->family ? "family" : "model",
	    cpus_vmm_name(m->vmm), p->l1d_bytes, p->l2_bytes, p->l2_shared);
	for (d = 0; d < 5; d++)
		printf("%s%.1f", d ? "," : "", s.migr_ns[d]);
	printf("],\"idle\":[");
	for (d = 0; d < m->nidle; d++)
		printf("%s[\"%s\",%u,%u,%d]", d ? "," : "", m->idle[d].name,
		    m->idle[d].exit_ns, m->idle[d].residency_ns,
		    m->idle[d].core_level);
	printf("],\"turbo\":[");
	for (n = 1; n <= s.pkg_ncores[0]; n++)
		printf("%s%.4f", n > 1 ? "," : "", costs_turbo(&s, 0, n));
	printf("],\"halt_poll_max_ns\":%llu,\"halt_poll_shrink\":%u,"
	    "\"poll_windows\":[", (unsigned long long)poll_max(&s),
	    poll_shrink(&s));
	for (n = 0; n < (int)(sizeof(halts_us) / sizeof(halts_us[0])); n++) {
		th.sleep_t_ns = s.now_ns;
		s.now_ns += (uint64_t)halts_us[n] * 1000;
		costs_halt_end(&s, 0);
		printf("%s%llu", n ? "," : "",
		    (unsigned long long)th.poll_win_ns);
	}
	/* a global idle-mask line touched every 1 ms, 1 us, 200 ns */
	printf("],\"upkeep_line_ns\":[");
	for (d = 0; d < 3; d++) {
		static const int gaps[] = { 1000000, 1000, 200 };
		double c = 0;

		for (n = 0; n < 200; n++) {
			s.now_ns += (uint64_t)gaps[d];
			c = line_op(&s, 0, LINE_SCX);
		}
		printf("%s%.1f", d ? "," : "", c);
	}
	printf("]}\n");
	free(s.pu);
	costs_release(&s);
	return 0;
}
