/*
 * actuate.c - applies the moves tick_plan() chose: live vCPU pins and
 * emulator pins (host/domain.h, so `virsh vcpupin` shows the truth), and
 * core-scheduling cookies where the kernel has them (host/coresched.h).
 *
 * It writes only deltas; the adapter refuses an empty or offline set and
 * sorts every libvirt failure into an enum vp_apply.  Here each outcome
 * is counted and, when it is a failure, logged once.
 */
#include <errno.h>
#include <string.h>

#include "host/coresched.h"
#include "host/domain.h"
#include "host/virt.h"
#include "vcpuplaced/daemon.h"

/*
 * One core-scheduling cookie for the whole QEMU process, so its vCPU
 * threads may share a core with each other but with no other VM (seed
 * 004: it costs throughput at high load, hence opt-in by policy).
 */
static void
give_cookie(struct vp_daemon *d, struct vp_vm *vm)
{
	int r;

	if (vm->cookie_done || !d->core_sched_supported || d->dry_run ||
	    !vm->policy.core_sched || !vm->pid)
		return;
	if ((r = coresched_give_cookie(vm->pid)) < 0)
		log_msg(LOG_WARNING, "VM %s: core-sched cookie for pid %d: %s, "
		    "ignoring", vm->name, vm->pid, strerror(-r));
	vm->cookie_done = true;	/* once: a failure will not mend itself */
}

static enum vp_apply
pin_vcpu(struct vp_daemon *d, struct vp_vm *vm, int k)
{
	struct vp_vcpu *v = &vm->vcpu[k];

	if (cpuset_equal(&v->planned, &v->affinity))
		return VP_APPLY_UNCHANGED;
	if (d->dry_run)		/* plan and count, as if it had been pinned */
		return cpuset_empty(&v->planned) ||
		    !cpuset_subset(&v->planned, &d->topo->all) ?
		    VP_APPLY_REFUSED : VP_APPLY_APPLIED;
	return domain_pin_vcpu(&d->virt, vm->uuid, d->topo, k, &v->planned);
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
	struct vp_cpuset want;
	enum vp_apply a = VP_APPLY_APPLIED;

	emulator_set(d, vm, &want);
	if (cpuset_equal(&want, &vm->emulator))
		return;
	if (!d->dry_run)
		a = domain_pin_emulator(&d->virt, vm->uuid, d->topo, &want);
	if (a == VP_APPLY_RETRY)
		d->c.libvirt_errors++;
	if (a == VP_APPLY_APPLIED)
		vm->emulator = want;
}

/* Logs and counts one failed pin; a vanished VM is not an error. */
static void
note_failure(struct vp_daemon *d, struct vp_vm *vm, int k, enum vp_apply a)
{
	if (a == VP_APPLY_GONE) {
		d->c.vanished++;
		virt_mark_dirty(&d->virt, 0);	/* the refresh drops it */
		return;
	}
	d->c.pins_failed++;
	if (a == VP_APPLY_RETRY)
		d->c.libvirt_errors++;
	log_msg(LOG_WARNING, "VM %s vCPU %d: pin %s: %s", vm->name, k,
	    a == VP_APPLY_REFUSED ? "refused" : "failed, retrying",
	    d->dry_run ? "invalid CPU set" :
	    virt_error_or("empty or offline CPU set"));
}

/* Pins what tick_plan() marked in one VM; false when the VM has gone. */
static bool
apply_vm(struct vp_daemon *d, struct vp_vm *vm, int *pins)
{
	bool moved = false;
	int k;

	for (k = 0; k < vm->nvcpus; k++) {
		struct vp_vcpu *v = &vm->vcpu[k];
		enum vp_apply a;

		if (!v->move)
			continue;
		v->move = false;
		a = pin_vcpu(d, vm, k);
		if (a == VP_APPLY_APPLIED) {
			v->affinity = v->planned;
			v->placed_home = v->home;
			v->last_move_ns = clock_now_ns();
			v->pending_ticks = 0;
			d->c.moves[v->reason]++;
			(*pins)++;
			moved = true;
		} else if (a != VP_APPLY_UNCHANGED) {
			note_failure(d, vm, k, a);
			if (a == VP_APPLY_GONE)
				return false;
		}
	}
	/* the emulator follows its vCPUs: recompute only when they move */
	if (moved || cpuset_empty(&vm->emulator))
		pin_emulator(d, vm);
	return true;
}

int
actuate_apply(struct vp_daemon *d)
{
	int i, pins = 0;

	for (i = 0; i < d->nvms; i++) {
		struct vp_vm *vm = &d->vm[i];

		if (vm_managed(vm) && apply_vm(d, vm, &pins))
			give_cookie(d, vm);
	}
	return pins;
}
