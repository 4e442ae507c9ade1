/*
 * load.h - host load and vCPU run/wait time as the planner sees it
 * (load.c, from host/sampler.h), and the SMT-conflict rule applied to it.
 */
#ifndef VP_LOAD_H
#define VP_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/vcpuplace.h"

struct vp_daemon;
struct vp_vcpu;

/* A PU or vCPU busier than this share of a tick counts as busy. */
#define VP_BUSY_SHARE	0.5

/* Host load as the planner sees it (load.c). */
struct vp_sampler;
struct vp_load {
	struct vp_sampler *sampler;	/* owned */
	double *cpu_util;		/* [npus], 0..1, work not our vCPUs' */
	double *pu_util;		/* [npus], 0..1, all work */
	struct vp_cpuset pu_busy;	/* pu_util above VP_BUSY_SHARE */
	uint64_t sampled_ns;		/* clock_now_ns() of the last update */
};

/* Opens a sampler for @t; *ret untouched on failure (-ENOMEM). */
int load_open(const struct vp_topo *t, struct vp_load *ret) VP_MUST_CHECK;
void load_free(struct vp_load *l);	/* accepts a zeroed one */
/* Reads per-PU busy time and per-vCPU run/wait time, fills host_busy. */
int load_update(struct vp_daemon *d);
/* The same at @now_ns (clock_now_ns()): a vCPU's busy share is its run
 * time over the time since the last update, not over a nominal tick. */
int load_update_at(struct vp_daemon *d, uint64_t now_ns);
/*
 * vCPUs running on a core whose sibling is busy while their allowed set
 * holds a whole idle core: the SMT conflicts placement exists to avoid.
 */
int load_smt_conflicts(const struct vp_daemon *d);
/* The PUs of every core none of whose PUs is busy. */
void load_idle_core_pus(const struct vp_daemon *d, struct vp_cpuset *ret);
/* One vCPU's part of load_smt_conflicts(). */
bool load_smt_conflict(const struct vp_daemon *d, const struct vp_vcpu *v,
    const struct vp_cpuset *idle_cores);

#endif /* VP_LOAD_H */
