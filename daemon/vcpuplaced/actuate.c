/*
 * actuate.c - applies the moves tick_plan() chose: live vCPU pins and
 * emulator pins through libvirt (so `virsh vcpupin` shows the truth),
 * and core-scheduling cookies where the kernel has them.
 *
 * It writes only deltas, never an empty or offline set, and sorts every
 * failure into one of enum vp_apply in one place.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <syslog.h>

#include <libvirt/virterror.h>

#include "vcpuplaced/daemon.h"

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE		62
#define PR_SCHED_CORE_GET	0
#define PR_SCHED_CORE_CREATE	1
#endif
#define PIDTYPE_TGID		1

/*
 * prctl(PR_SCHED_CORE) fails with EINVAL without CONFIG_SCHED_CORE (as
 * on this machine's kernel); then core_sched is reported unsupported
 * and isolated VMs rely on whole cores alone.
 */
bool
actuate_core_sched_probe(void)
{
	unsigned long cookie = 0;

	return prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0, PIDTYPE_TGID,
	    &cookie) == 0;
}

/*
 * One core-scheduling cookie for the whole QEMU process, so its vCPU
 * threads may share a core with each other but with no other VM (seed
 * 004: it costs throughput at high load, hence opt-in by policy).
 */
static void
give_cookie(struct vp_daemon *d, struct vp_vm *vm)
{
	if (vm->cookie_done || !d->core_sched_supported || d->dry_run ||
	    !vm->policy.core_sched || !vm->pid)
		return;
	if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, vm->pid, PIDTYPE_TGID,
	    0) < 0) {
		log_msg(LOG_WARNING, "VM %s: core-sched cookie for pid %d: %s, "
		    "ignoring", vm->name, vm->pid, strerror(errno));
	}
	vm->cookie_done = true;	/* once: a failure will not mend itself */
}

/* The libvirt error of the last call, sorted. */
static enum vp_apply
classify(void)
{
	virErrorPtr e = virGetLastError();

	switch (e ? e->code : VIR_ERR_INTERNAL_ERROR) {
	case VIR_ERR_NO_DOMAIN:
	case VIR_ERR_OPERATION_INVALID:	/* "domain is not running" */
		return VP_APPLY_GONE;
	case VIR_ERR_INVALID_ARG:
	case VIR_ERR_CONFIG_UNSUPPORTED:
	case VIR_ERR_OPERATION_UNSUPPORTED:
	case VIR_ERR_NO_SUPPORT:
		return VP_APPLY_REFUSED;
	default:			/* RPC, system errors: next tick */
		return VP_APPLY_RETRY;
	}
}

/* The OS-numbered bitmap libvirt takes; false for a set we never pin. */
static bool
to_cpumap(const struct vp_topo *t, const struct vp_cpuset *s,
    unsigned char *map, int maplen)
{
	int pu;

	if (cpuset_empty(s) || !cpuset_subset(s, &t->all))
		return false;
	memset(map, 0, maplen);
	cpuset_for_each(pu, s, t->npus)
		VIR_USE_CPU(map, t->pu[pu].os_index);
	return true;
}

static enum vp_apply
pin_vcpu(struct vp_daemon *d, struct vp_vm *vm, int k)
{
	int maplen = VIR_CPU_MAPLEN(d->topo->os_limit);
	unsigned char map[VIR_CPU_MAPLEN(VP_MAX_OS_INDEX)];
	struct vp_vcpu *v = &vm->vcpu[k];

	if (!to_cpumap(d->topo, &v->planned, map, maplen))
		return VP_APPLY_REFUSED;
	if (cpuset_equal(&v->planned, &v->affinity))
		return VP_APPLY_UNCHANGED;
	if (!d->dry_run && virDomainPinVcpuFlags(vm->dom, (unsigned int)k,
	    map, maplen, VIR_DOMAIN_AFFECT_LIVE) < 0)
		return classify();
	return VP_APPLY_APPLIED;
}

/* The emulator thread's set, from the policy's emulator field. */
static void
emulator_set(const struct vp_daemon *d, const struct vp_vm *vm,
    struct vp_cpuset *ret)
{
	int k;

	cpuset_zero(ret);
	if (vm->policy.emulator == VP_EMU_HOUSEKEEPING &&
	    !cpuset_empty(&d->reserved)) {
		*ret = d->reserved;
		return;
	}
	for (k = 0; k < vm->nvcpus; k++)
		cpuset_or(ret, ret, &vm->vcpu[k].planned);
	if (vm->policy.emulator == VP_EMU_POOL ||
	    vm->policy.emulator == VP_EMU_HOUSEKEEPING)
		cpuset_andnot(ret, &d->topo->all, &d->reserved);
}

static void
pin_emulator(struct vp_daemon *d, struct vp_vm *vm)
{
	int maplen = VIR_CPU_MAPLEN(d->topo->os_limit);
	unsigned char map[VIR_CPU_MAPLEN(VP_MAX_OS_INDEX)];
	struct vp_cpuset want;

	emulator_set(d, vm, &want);
	if (cpuset_equal(&want, &vm->emulator) ||
	    !to_cpumap(d->topo, &want, map, maplen))
		return;
	if (!d->dry_run && virDomainPinEmulator(vm->dom, map, maplen,
	    VIR_DOMAIN_AFFECT_LIVE) < 0) {
		if (classify() == VP_APPLY_RETRY)
			d->c.libvirt_errors++;
		return;
	}
	vm->emulator = want;
}

/* Logs and counts one failed pin; a vanished VM is not an error. */
static void
note_failure(struct vp_daemon *d, struct vp_vm *vm, int k, enum vp_apply a)
{
	virErrorPtr e = virGetLastError();

	if (a == VP_APPLY_GONE) {
		d->c.vanished++;
		atomic_store(&d->dirty, true);
		return;
	}
	d->c.pins_failed++;
	if (a == VP_APPLY_RETRY)
		d->c.libvirt_errors++;
	log_msg(LOG_WARNING, "VM %s vCPU %d: pin %s: %s", vm->name, k,
	    a == VP_APPLY_REFUSED ? "refused" : "failed, retrying",
	    e && e->message ? e->message : "invalid CPU set");
}

int
actuate_apply(struct vp_daemon *d)
{
	int i, k, pins = 0;

	for (i = 0; i < d->nvms; i++) {
		struct vp_vm *vm = &d->vm[i];
		bool gone = false, moved = false;

		if (!vm_managed(vm))
			continue;
		for (k = 0; k < vm->nvcpus && !gone; k++) {
			struct vp_vcpu *v = &vm->vcpu[k];
			enum vp_apply a;

			if (!v->move)
				continue;
			v->move = false;
			a = pin_vcpu(d, vm, k);
			if (a == VP_APPLY_APPLIED) {
				v->affinity = v->planned;
				v->placed_home = v->home;
				v->last_move_ns = now_ns();
				v->pending_ticks = 0;
				d->c.moves[v->reason]++;
				pins++;
				moved = true;
			} else if (a != VP_APPLY_UNCHANGED) {
				note_failure(d, vm, k, a);
				gone = a == VP_APPLY_GONE;
			}
		}
		/* the emulator follows its vCPUs: recompute only when they move */
		if (!gone && (moved || cpuset_empty(&vm->emulator)))
			pin_emulator(d, vm);
		if (!gone)
			give_cookie(d, vm);
	}
	return pins;
}
