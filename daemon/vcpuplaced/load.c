/*
 * load.c - what the planner needs to know of host load, once per tick:
 * which PUs are busy with work that is not our vCPUs', and how long each
 * vCPU ran and waited.  The numbers come from host/sampler.h.
 *
 * The planner must not flee from its own VMs: a PU busy only because a
 * managed vCPU runs there is not "host busy".  So each vCPU's run time
 * over the tick is taken off the PU it last ran on, and what remains
 * above VP_BUSY_SHARE of a tick marks the PU busy for the planner.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "host/clock.h"
#include "host/sampler.h"
#include "vcpuplaced/daemon.h"

int
load_open(const struct vp_topo *t, struct vp_load *ret)
{
	struct vp_load l = { .sampler = NULL };	/* the rest zero: nothing busy */
	int r;

	if ((r = sampler_open(t, &l.sampler)) < 0)
		return r;
	l.cpu_util = calloc(t->npus, sizeof(double));
	l.pu_util = calloc(t->npus, sizeof(double));
	if (!l.cpu_util || !l.pu_util) {
		load_free(&l);
		return -ENOMEM;
	}
	*ret = l;
	return 0;
}

void
load_free(struct vp_load *l)
{
	sampler_free(l->sampler);
	free(l->cpu_util);
	free(l->pu_util);
	memset(l, 0, sizeof(*l));
}

/* One vCPU's run and wait since the last update; its PU loses that run
 * time. */
static void
account_vcpu(struct vp_daemon *d, const struct vp_vm *vm, struct vp_vcpu *v,
    double interval_ns)
{
	struct vp_thread_sample s;
	int pu;

	if (!vm->pid || !v->tid || sampler_read_thread(vm->pid, v->tid, &s) < 0)
		return;
	pu = s.os_cpu >= 0 ? topo_pu_of_os(d->topo, (unsigned int)s.os_cpu) :
	    VP_PU_NONE;
	v->current = pu;
	v->delay_ns = v->wait_ns && s.wait_ns >= v->wait_ns ?
	    s.wait_ns - v->wait_ns : 0;
	v->util = v->run_ns && s.run_ns >= v->run_ns ?
	    (double)(s.run_ns - v->run_ns) / interval_ns : 0;
	if (pu != VP_PU_NONE)
		d->load.cpu_util[pu] -= v->util;
	v->run_ns = s.run_ns;
	v->wait_ns = s.wait_ns;
}

int
load_update(struct vp_daemon *d)
{
	return load_update_at(d, clock_now_ns());
}

/*
 * The interval is the time since the last update, not tick_ms: a tick
 * that waited on libvirtd (a stopped or busy daemon holds a call for
 * seconds) would otherwise turn a vCPU's seconds of run time into a
 * busy share of 10 or 20, and the planner would move VMs for it.  The
 * PU figures need no such care: /proc/stat's deltas are over their own
 * total.
 */
int
load_update_at(struct vp_daemon *d, uint64_t now_ns)
{
	double interval_ns = (double)d->tick_ms * 1e6;
	int i, k, pu, r;

	if (d->load.sampled_ns && now_ns > d->load.sampled_ns)
		interval_ns = (double)(now_ns - d->load.sampled_ns);
	d->load.sampled_ns = now_ns;
	if ((r = sampler_read_pus(d->load.sampler, d->load.cpu_util)) < 0)
		return r;
	memcpy(d->load.pu_util, d->load.cpu_util,
	    d->topo->npus * sizeof(double));
	for (i = 0; i < d->nvms; i++)
		for (k = 0; k < d->vm[i].nvcpus; k++)
			account_vcpu(d, &d->vm[i], &d->vm[i].vcpu[k],
			    interval_ns);
	cpuset_zero(&d->host_busy);
	cpuset_zero(&d->load.pu_busy);
	for (pu = 0; pu < d->topo->npus; pu++) {
		if (d->load.cpu_util[pu] > VP_BUSY_SHARE)
			cpuset_set(&d->host_busy, pu);
		if (d->load.pu_util[pu] > VP_BUSY_SHARE)
			cpuset_set(&d->load.pu_busy, pu);
	}
	return 0;
}

/*
 * The SMT-conflict rule is the core's (conflict.c); these apply it to
 * the busy set load_update() made, once a tick, for the status and the
 * metrics alike.
 */
/* What conflict_vcpu() needs of a vCPU: its load, its PU, its affinity. */
static struct vp_conflict_vcpu
conflict_of(const struct vp_vcpu *v)
{
	return (struct vp_conflict_vcpu){
		.busy = v->util > VP_BUSY_SHARE, .current = v->current,
		.allowed = &v->affinity,
	};
}

void
load_idle_core_pus(const struct vp_daemon *d, struct vp_cpuset *ret)
{
	conflict_idle_core_pus(d->topo, &d->load.pu_busy, ret);
}

/* The busy set is load_update()'s, made once a tick, not once a call. */
bool
load_smt_conflict(const struct vp_daemon *d, const struct vp_vcpu *v,
    const struct vp_cpuset *idle_cores)
{
	struct vp_conflict_vcpu c = conflict_of(v);

	return conflict_vcpu(d->topo, &d->load.pu_busy, idle_cores, &c);
}

int
load_smt_conflicts(const struct vp_daemon *d)
{
	struct vp_cpuset idle;
	int i, k, n = 0;

	load_idle_core_pus(d, &idle);
	for (i = 0; i < d->nvms; i++)
		for (k = 0; k < d->vm[i].nvcpus; k++)
			n += load_smt_conflict(d, &d->vm[i].vcpu[k], &idle);
	return n;
}
