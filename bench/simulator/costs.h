/*
 * costs.h - the host costs that every strategy pays alike:
 * vCPU migration, C-state exit, turbo, KVM halt polling and idle-mask
 * upkeep.  cpus.c holds the per-CPU-model tables (with their sources),
 * costs.c the functions; host.c calls them from a few small hooks.
 */
#ifndef SIM_COSTS_H
#define SIM_COSTS_H

#include <stdbool.h>
#include <stdint.h>

struct sim;

#define CPU_MAX_IDLE	5

/* One cpuidle state as the 6.12 driver declares it. */
struct cpu_idle_state {
	const char *name;
	uint32_t exit_ns;	/* exit_latency */
	uint32_t residency_ns;	/* target_residency */
	bool core_level;	/* reached only when all SMT siblings idle */
};

enum cpu_vmm { VMM_VMX, VMM_SVM, VMM_ARM64, VMM_PPC };

/* "VMX", "SVM", "arm64", "POWER HV": the KVM whose costs apply */
const char *cpus_vmm_name(enum cpu_vmm v);

/* What a CPU model contributes to the costs; cpus.c cites each value. */
struct cpu_model {
	const char *name;
	bool family;		/* an architecture's or vendor's fallback */
	const char *match[3];	/* substrings of hwloc info values */
	enum cpu_vmm vmm;
	/* idle states, shallowest first */
	struct cpu_idle_state idle[CPU_MAX_IDLE];
	int nidle;
	/* turbo: GHz with one active core and with all cores active */
	double f1_ghz, fall_ghz;
	/* L1 dTLB entries refilled after the migration's TLB flush */
	int tlb_entries;
	/* default L1d / L2 when the XML has no cache sizes */
	double l1d_bytes, l2_bytes;
};

/* Cost switches (struct sim_params.costs). */
#define COST_MIGRATION	0x01	/* costs.c's model, not the issue-6 L1d */
#define COST_CSTATES	0x02
#define COST_TURBO	0x04
#define COST_POLL	0x08
#define COST_UPKEEP	0x10
#define COST_SCX	0x20	/* sched_ext's own: kick, DSQ lock, walk */
#define COST_ALL	0x3f

/* cpus.c */
extern const struct cpu_model cpu_models[];
extern const int ncpu_models;
/* The model of the hwloc XML @path (its caches into *l1d, *l2 when
 * found, else the model's); never NULL: a generic model as fallback. */
const struct cpu_model *cpus_identify(const char *path, double *l1d,
    double *l2, bool *l2_shared);

/* costs.c */
/* Fills s->migr_ns[] and the turbo state; after host_init's arrays. */
int costs_init(struct sim *s);
void costs_release(struct sim *s);
/* Parses "all", "none" or a comma list (migration,cstates,turbo,poll,
 * upkeep,scx) into a mask; -1 when a name is unknown. */
int costs_parse(const char *list);
/* ns of work a vCPU pays to start on @to after running on @from. */
double costs_migration_ns(const struct sim *s, int from, int to);
/*
 * sched_ext dispatch queues, told apart for their locks: the host-wide
 * shared one, one per LLC (costs_dsq_llc()), one per PU (costs_dsq_pu()).
 */
#define COSTS_DSQ_SHARED	(-1)
static inline int costs_dsq_llc(int llc) { return llc; }
static inline int costs_dsq_pu(const struct vp_topo *t, int pu)
{
	return t->nllcs + pu;
}
static inline int costs_dsq_count(const struct vp_topo *t)
{
	return t->nllcs + t->npus;
}
/* ns one operation on DSQ @dsq costs CPU @pu (-1: unknown) doing it,
 * with @held_ns of work under the lock (0 without COST_SCX). */
double costs_dsq_op(struct sim *s, int dsq, int pu, double held_ns);
/* The exit latency of the C-state idle @pu sits in (no side effect). */
double costs_cstate_exit_ns(const struct sim *s, int pu);
/* ns before a wake-up on idle @pu can run: C-state exit + upkeep. */
uint64_t costs_wake_delay(struct sim *s, int pu);
/* Idle entry of @pu: pick the C-state, charge the upkeep. */
void costs_pu_idle(struct sim *s, int pu);
/* ns the waker pays for a placement's idle-mask clear on @pu. */
uint64_t costs_waker_upkeep(struct sim *s, int pu);
/* Speed factor of @pkg with @nactive busy cores: f(n) / f(1) <= 1. */
double costs_turbo(const struct sim *s, int pkg, int nactive);
/* KVM's halt-poll window of @th now (0: it does not poll). */
uint64_t costs_poll_window(const struct sim *s, int th);
/* A halt of @th ended at now: adapt its window as kvm_vcpu_halt(). */
void costs_halt_end(struct sim *s, int th);
/* Prints the cost tables for topology @t under @p as one JSON line
 * (vcpuplace-sim --print-costs); 0 or -ENOMEM. */
struct vp_topo;
struct sim_params;
int costs_print(const struct vp_topo *t, const struct sim_params *p);

#endif /* SIM_COSTS_H */
