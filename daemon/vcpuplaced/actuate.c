/*
 * actuate.c - applies the moves tick_plan() chose: live vCPU pins and
 * emulator pins (sent to the libvirt worker as one APPLY, so `virsh
 * vcpupin` shows the truth), and core-scheduling cookies where the
 * kernel has them (host/coresched.h).
 *
 * It writes only deltas and never sends an empty or offline set (rule
 * 9); the worker sorts every libvirt failure into an enum vp_apply, and
 * here each outcome is counted when it comes back and, when it is a
 * failure, logged once.  A vCPU's affinity is the one asked for only
 * once the worker says it was applied.
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

/* Room for one more pin in the APPLY being built. */
static bool
batch_room(const struct vp_daemon *d, int npins)
{
	size_t item = sizeof(struct vp_msg_pin) +
	    (size_t)domain_maplen(d->topo);

	return npins < VP_MSG_PINS_MAX && sizeof(struct vp_msg_hdr) +
	    sizeof(struct vp_msg_maps) + (npins + 1) * item <= VP_MSG_MAX;
}

/* Adds a pin of @vm to the batch: vCPU @k, or VP_MSG_EMULATOR. */
static void
batch_add(struct vp_daemon *d, struct vp_vm *vm, int k,
    const struct vp_cpuset *set, int *npins)
{
	struct vp_lv_pin *p = &d->lv.pin[(*npins)++];

	memcpy(p->uuid, vm->uuid, VP_UUID_LEN);
	p->pid = vm->pid;
	p->vcpu = k;
	p->set = *set;
	p->home = k >= 0 ? vm->vcpu[k].home : VP_PU_NONE;
	p->reason = k >= 0 ? vm->vcpu[k].reason : 0;
}

/* A set never sent: empty, or holding a PU not online (rule 9). */
static bool
refused_set(const struct vp_daemon *d, const struct vp_cpuset *set)
{
	return cpuset_empty(set) || !cpuset_subset(set, &d->topo->all);
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

/* Logs and counts one failed pin; a vanished VM is not an error. */
static void
note_failure(struct vp_daemon *d, struct vp_vm *vm, int k, enum vp_apply a,
    const char *why)
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
	    why && *why ? why : "empty or offline CPU set");
}

/* A pin made (or a dry run's, as if made). */
static void
pinned(struct vp_daemon *d, struct vp_vcpu *v, const struct vp_cpuset *set,
    int home, enum vp_reason reason)
{
	v->affinity = *set;
	v->placed_home = home;
	v->last_move_ns = clock_now_ns();
	v->pending_ticks = 0;
	d->c.moves[reason]++;
}

/* A dry run plans and counts, as if it had pinned. */
static int
apply_dry(struct vp_daemon *d, struct vp_vm *vm)
{
	struct vp_cpuset want;
	int k, pins = 0;

	for (k = 0; k < vm->nvcpus; k++) {
		struct vp_vcpu *v = &vm->vcpu[k];

		if (!v->move)
			continue;
		v->move = false;
		if (cpuset_equal(&v->planned, &v->affinity))
			continue;
		if (refused_set(d, &v->planned)) {
			note_failure(d, vm, k, VP_APPLY_REFUSED,
			    "invalid CPU set");
			continue;
		}
		pinned(d, v, &v->planned, v->home, v->reason);
		pins++;
	}
	if (pins || cpuset_empty(&vm->emulator)) {
		emulator_set(d, vm, &want);
		vm->emulator = want;
	}
	return pins;
}

/*
 * Adds what tick_plan() marked in one VM to the batch; a vCPU whose pin
 * is in flight waits for its answer.  A set the adapter would refuse is
 * refused here (rule 9), never sent.
 */
static void
batch_vm(struct vp_daemon *d, struct vp_vm *vm, int *npins)
{
	struct vp_cpuset want;
	bool moved = false;
	int k;

	for (k = 0; k < vm->nvcpus && batch_room(d, *npins); k++) {
		struct vp_vcpu *v = &vm->vcpu[k];

		if (!v->move || v->inflight)
			continue;
		v->move = false;
		if (cpuset_equal(&v->planned, &v->affinity))
			continue;
		if (refused_set(d, &v->planned)) {
			note_failure(d, vm, k, VP_APPLY_REFUSED, NULL);
			continue;
		}
		batch_add(d, vm, k, &v->planned, npins);
		v->inflight = true;
		moved = true;
	}
	/* the emulator follows its vCPUs: recompute only when they move */
	if (!(moved || cpuset_empty(&vm->emulator)) || vm->emulator_inflight ||
	    !batch_room(d, *npins))
		return;
	emulator_set(d, vm, &want);
	if (cpuset_equal(&want, &vm->emulator) || refused_set(d, &want))
		return;
	batch_add(d, vm, VP_MSG_EMULATOR, &want, npins);
	vm->emulator_inflight = true;
}

/* The batch could not be sent: its moves wait for the next round. */
static void
batch_undo(struct vp_daemon *d, int npins)
{
	int i;

	for (i = 0; i < npins; i++) {
		const struct vp_lv_pin *p = &d->lv.pin[i];
		struct vp_vm *vm = inventory_vm_by_uuid(d, p->uuid);

		if (!vm)
			continue;
		if (p->vcpu == VP_MSG_EMULATOR) {
			vm->emulator_inflight = false;
		} else {
			vm->vcpu[p->vcpu].inflight = false;
			vm->vcpu[p->vcpu].move = true;
		}
	}
}

int
actuate_apply(struct vp_daemon *d)
{
	int i, pins = 0;

	if (!libvirt_connected(d) || (!d->dry_run && libvirt_applying(d)))
		return 0;	/* the moves wait, marked, for the answer */
	for (i = 0; i < d->nvms; i++) {
		struct vp_vm *vm = &d->vm[i];

		if (!vm_managed(vm))
			continue;
		if (d->dry_run)
			pins += apply_dry(d, vm);
		else
			batch_vm(d, vm, &d->lv.npins);
		give_cookie(d, vm);
	}
	if (!d->dry_run && d->lv.npins &&
	    libvirt_apply(d, d->lv.npins) < 0) {
		batch_undo(d, d->lv.npins);
		d->lv.npins = 0;
	}
	return pins;
}

void
actuate_result(struct vp_daemon *d, const struct vp_lv_pin *p,
    enum vp_apply a, const char *why)
{
	struct vp_vm *vm = inventory_vm_by_uuid(d, p->uuid);
	struct vp_vcpu *v;

	/* gone meanwhile, or another run of it: not its vCPUs any more */
	if (!vm || vm->pid != p->pid || p->vcpu >= vm->nvcpus)
		return;
	if (p->vcpu == VP_MSG_EMULATOR) {
		vm->emulator_inflight = false;
		if (a == VP_APPLY_RETRY)
			d->c.libvirt_errors++;
		if (a == VP_APPLY_APPLIED)
			vm->emulator = p->set;
		return;
	}
	v = &vm->vcpu[p->vcpu];
	v->inflight = false;
	if (a == VP_APPLY_APPLIED) {
		pinned(d, v, &p->set, p->home, p->reason);
		d->status_dirty = true;
	} else if (a != VP_APPLY_UNCHANGED) {
		note_failure(d, vm, p->vcpu, a, why);
	}
}

void
actuate_note_latency(struct vp_daemon *d, uint64_t t0)
{
	int i, k;

	for (i = 0; d->event_ns && i < d->nvms; i++) {
		uint64_t last = 0;

		for (k = 0; k < d->vm[i].nvcpus; k++)
			if (d->vm[i].vcpu[k].last_move_ns >= t0 &&
			    d->vm[i].vcpu[k].last_move_ns > last)
				last = d->vm[i].vcpu[k].last_move_ns;
		if (last > d->event_ns)
			metrics_observe_latency(d, last - d->event_ns);
	}
	d->event_ns = 0;	/* one round answers an event */
}
