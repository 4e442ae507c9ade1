/*
 * kvmhint.c - the daemon's use of the kernel series (kvm-patches/):
 * a wake hint for every vCPU whose home changes, so it wakes on its
 * home PU when that is idle, and its wake-placement counters.
 *
 * Without the series nothing here does anything but say so once: the
 * daemon then works through affinity alone ("userspace" mode).  The
 * interface (kvm_iface.c) is re-detected when a VM appears, because a
 * host without running VMs has no per-vCPU directory to detect.
 */
#include <errno.h>
#include <string.h>
#include <syslog.h>

#include "vcpuplaced/daemon.h"

const char *
kvmhint_mode_label(const struct vp_daemon *d)
{
	switch (d->kvm.mode) {
	case VP_KVM_HINT:
		return "kernel-hint";
	case VP_KVM_STATS:
		return "kernel-stats";
	default:
		return "userspace";
	}
}

static void
log_mode(const struct vp_daemon *d, int prio)
{
	log_msg(prio, "kernel support: %s (debugfs %s: wake hints %s%s%s); "
	    "SIS_CORE %s", kvmhint_mode_label(d), d->kvm.root,
	    d->kvm.mode == VP_KVM_HINT ? "written" : "not available",
	    d->kvm.hint_err ? ": " : "",
	    d->kvm.hint_err ? strerror(-d->kvm.hint_err) : "",
	    kvm_iface_sis_core_name(d->kvm.sis_core));
}

void
kvmhint_init(struct vp_daemon *d)
{
	if (kvm_iface_init(&d->kvm, d->kvm_root) < 0) {
		log_msg(LOG_ERR, "--kvm-debugfs %s: path too long, kernel "
		    "support off", d->kvm_root);
		memset(&d->kvm, 0, sizeof(d->kvm));	/* mode none */
		return;
	}
	kvm_iface_detect(&d->kvm);
	log_mode(d, LOG_INFO);
}

void
kvmhint_attach(struct vp_daemon *d)
{
	enum vp_kvm_mode before = d->kvm.mode;
	int i, k;

	for (i = 0; i < d->nvms; i++) {
		struct vp_vm *vm = &d->vm[i];

		if (vm->kvm && vm->kvm->pid != vm->pid) {
			/* QEMU restarted under the same UUID: a new dir */
			kvm_iface_vm_close(vm->kvm);
			vm->kvm = NULL;
			for (k = 0; k < vm->nvcpus; k++)
				vm->vcpu[k].kvm_idx = -1;
		}
		if (vm->kvm || vm->pid <= 0)
			continue;
		if (d->kvm.mode == VP_KVM_NONE)
			kvm_iface_detect(&d->kvm);
		if (d->kvm.mode == VP_KVM_NONE)
			return;
		/* -ENOENT until QEMU created its vCPUs: next refresh */
		if (kvm_iface_vm_open(&d->kvm, vm->pid, &vm->kvm) < 0)
			vm->kvm = NULL;
	}
	if (d->kvm.mode != before)
		log_mode(d, LOG_NOTICE);
}

/* Index of vCPU @k in its VM's debugfs dir, found by thread id. */
static int
vcpu_index(struct vp_vm *vm, struct vp_vcpu *v)
{
	if (v->kvm_idx < 0 && v->tid > 0 && vm->kvm)
		v->kvm_idx = kvm_iface_vcpu_by_tid(vm->kvm, v->tid);
	return v->kvm_idx;
}

/* One hint; false when the VM's dir is gone (closed here). */
static bool
write_hint(struct vp_daemon *d, struct vp_vm *vm, int k, int pu)
{
	struct vp_vcpu *v = &vm->vcpu[k];
	int cpu = pu == VP_PU_NONE ? -1 : (int)d->topo->pu[pu].os_index;
	int r = kvm_iface_write_hint(vm->kvm, v->kvm_idx, cpu);

	if (r == 0) {
		v->hinted = pu;
		v->hinted_move_ns = v->last_move_ns;
		d->hints_written++;
		return true;
	}
	d->hint_errors++;
	if (r == -EPERM) {
		/* lockdown: every writable debugfs file is refused */
		d->kvm.mode = VP_KVM_STATS;
		d->kvm.hint_err = r;
		log_mode(d, LOG_WARNING);
	} else if (r == -ENOENT || r == -EIO) {
		kvm_iface_vm_close(vm->kvm);
		vm->kvm = NULL;
		for (k = 0; k < vm->nvcpus; k++)
			vm->vcpu[k].kvm_idx = -1;
		return false;
	} else {
		log_msg(LOG_WARNING, "VM %s vCPU %d: wake hint %d: %s, "
		    "ignoring", vm->name, k, cpu, strerror(-r));
		v->hinted = pu;		/* do not retry every tick */
	}
	return true;
}

void
kvmhint_sync(struct vp_daemon *d)
{
	int i, k;

	if (d->kvm.mode != VP_KVM_HINT || d->dry_run)
		return;
	for (i = 0; i < d->nvms; i++) {
		struct vp_vm *vm = &d->vm[i];

		for (k = 0; vm->kvm && k < vm->nvcpus &&
		    d->kvm.mode == VP_KVM_HINT; k++) {
			struct vp_vcpu *v = &vm->vcpu[k];
			int want = vm_managed(vm) ? v->placed_home : VP_PU_NONE;

			if (vcpu_index(vm, v) < 0)
				continue;
			/* a re-pin needs the hint again, even if unchanged */
			if (want == v->hinted &&
			    v->hinted_move_ns == v->last_move_ns)
				continue;
			if (!write_hint(d, vm, k, want))
				break;
		}
	}
}

void
kvmhint_read_stats(struct vp_daemon *d)
{
	int i, k;

	if (d->kvm.mode == VP_KVM_NONE)
		return;
	for (i = 0; i < d->nvms; i++) {
		struct vp_vm *vm = &d->vm[i];

		for (k = 0; vm->kvm && k < vm->nvcpus; k++) {
			struct vp_vcpu *v = &vm->vcpu[k];

			if (vcpu_index(vm, v) < 0)
				continue;
			v->wake_known = kvm_iface_read_wake_stats(vm->kvm,
			    v->kvm_idx, &v->wake) == 0;
		}
	}
}
