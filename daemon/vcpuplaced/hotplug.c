/*
 * hotplug.c - a hot-plugged vCPU placed at once.  libvirt 9.0 sends no
 * domain event for `virsh setvcpus DOM N --live`; the kernel's proc
 * connector (host/procevents.h) does tell when QEMU names the new
 * thread "CPU N/...".  Such a name in a known VM's QEMU makes the VM
 * dirty and wakes an event round, like a libvirt event (coalesced the
 * same way, its receipt time the start of the placement latency).
 *
 * The race: QEMU names the thread before libvirt counts the vCPU as
 * online (libvirt does that, and sets its affinity and cgroup, after
 * QEMU answered), so the first round may not see it yet.  The vCPU is
 * then followed: a round every HP_FOLLOW_NS until a round finds it in
 * place without having to move it, for at most HP_FOLLOW_MAX_NS; then
 * the ticks (and the full refresh) take over.
 *
 * Without the connector (no CAP_NET_ADMIN, no CONFIG_PROC_EVENTS, a
 * container) a hot-plugged vCPU is found by the periodic full refresh:
 * logged once, shown in the metrics, not an error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "host/clock.h"
#include "host/log.h"
#include "host/procevents.h"
#include "host/qemu.h"
#include "daemon.h"

#define HP_FOLLOW_NS		(25 * 1000000ull)
#define HP_FOLLOW_MAX_NS	(2000 * 1000000ull)
#define HP_READ_MAX		64	/* events per read, the rest next */

void
hotplug_open(struct vp_daemon *d)
{
	int fd;

	d->hp.fd = -1;
	if (d->hp.disabled) {
		log_msg(LOG_INFO, "process events off (--no-proc-events): "
		    "hot-plugged vCPUs are found by the periodic refresh");
		return;
	}
	if ((fd = procev_open()) < 0) {
		d->hp.open_error = fd;
		log_msg(LOG_WARNING, "process events (proc connector): %s; "
		    "hot-plugged vCPUs are found by the periodic refresh",
		    strerror(-fd));
		return;
	}
	d->hp.fd = fd;
	d->hp.ntgids = -1;	/* procev_open()'s filter: names only */
}

void
hotplug_close(struct vp_daemon *d)
{
	procev_close(d->hp.fd);
	d->hp.fd = -1;
	free(d->hp.tgids);
	d->hp.tgids = NULL;
	d->hp.ntgids = -1;
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * The kernel's filter lets through only the known VMs' QEMUs once they
 * are known: a local user's thread named like a vCPU's ("CPU 0/KVM")
 * is then dropped in the kernel as well, and costs the daemon nothing.
 * A hot-plugged vCPU's QEMU is always one of them: a new VM is heard
 * from libvirt, and the refresh that finds it reads its threads.
 * Re-attached only when that set changes.  Past
 * PROCEV_FILTER_TGIDS_MAX QEMUs, or when the kernel refuses, the
 * name-only filter is put back: a rename missed is worse than work.
 */
void
hotplug_track(struct vp_daemon *d)
{
	int *pids, n = 0, i, r;

	if (d->hp.fd < 0)
		return;
	pids = malloc((d->nvms ? d->nvms : 1) * sizeof(*pids));
	if (!pids)
		return;		/* the filter before stays: a wider one */
	for (i = 0; i < d->nvms; i++)
		if (d->vm[i].pid > 0)
			pids[n++] = d->vm[i].pid;
	qsort(pids, n, sizeof(*pids), cmp_int);
	if (n == d->hp.ntgids && (n == 0 ||
	    !memcmp(pids, d->hp.tgids, n * sizeof(*pids)))) {
		free(pids);
		return;
	}
	if (n > PROCEV_FILTER_TGIDS_MAX ||
	    (r = procev_attach_filter(d->hp.fd, pids, n)) < 0) {
		if (n <= PROCEV_FILTER_TGIDS_MAX)
			d->hp.filter_errors++;
		free(pids);
		pids = NULL;
		n = -1;
		if (d->hp.ntgids < 0 ||
		    procev_attach_filter(d->hp.fd, NULL, -1) < 0) {
			/* names only already, or it could not even be put back */
			return;
		}
	}
	free(d->hp.tgids);
	d->hp.tgids = pids;
	d->hp.ntgids = n;
	d->hp.filter_updates++;
}

static struct vp_vm *
vm_of_pid(const struct vp_daemon *d, int pid)
{
	int i;

	for (i = 0; pid > 0 && i < d->nvms; i++)
		if (d->vm[i].pid == pid)
			return &d->vm[i];
	return NULL;
}

/* Follows vCPU @vcpu of QEMU @pid; a full list follows the oldest. */
static void
follow(struct vp_daemon *d, int pid, int vcpu, uint64_t now)
{
	struct vp_hp_follow *f = NULL;
	int i;

	for (i = 0; i < d->hp.nfollow && !f; i++)
		if (d->hp.follow[i].pid == pid && d->hp.follow[i].vcpu == vcpu)
			f = &d->hp.follow[i];
	if (!f && d->hp.nfollow < VP_HP_FOLLOW_MAX)
		f = &d->hp.follow[d->hp.nfollow++];
	if (!f)
		return;		/* the ticks find the rest */
	*f = (struct vp_hp_follow){ .pid = pid, .vcpu = vcpu,
	    .event_ns = now, .until = now + HP_FOLLOW_MAX_NS };
}

/*
 * After an overrun: the known QEMUs with a vCPU thread past the vCPUs we
 * know (a hot-plug whose rename the kernel dropped) are followed.  Only
 * their task lists are read, not libvirt's whole inventory: whoever can
 * overrun the socket (a local user renaming threads "CPU N/KVM" in a
 * loop, which the filter lets through) then costs one /proc read per VM.
 */
static bool
rescan_known(struct vp_daemon *d, uint64_t now)
{
	bool want = false;
	int i, r, *tids;

	for (i = 0; i < d->nvms; i++) {
		struct vp_vm *vm = &d->vm[i];

		if (vm->pid <= 0)
			continue;
		tids = calloc(vm->nvcpus + 1, sizeof(*tids));
		if (!tids) {
			virt_mark_dirty(&d->virt, now);	/* the refresh finds it */
			return true;
		}
		r = qemu_vcpu_tids(vm->pid, vm->nvcpus + 1, tids);
		if (r >= 0 && tids[vm->nvcpus] != 0) {
			follow(d, vm->pid, vm->nvcpus, now);
			virt_mark_dirty(&d->virt, now);
			want = true;
		}
		free(tids);
	}
	return want;
}

bool
hotplug_take(struct vp_daemon *d)
{
	struct vp_procev ev[HP_READ_MAX];
	bool want = false;
	uint64_t now;
	int i, n;

	if (d->hp.fd < 0)
		goto follow_up;
	n = procev_read(d->hp.fd, ev, HP_READ_MAX, &d->hp.seen);
	now = clock_now_ns();
	if (n == -ENOBUFS) {
		/* the kernel dropped events: one of them may have been ours */
		d->hp.overruns++;
		return rescan_known(d, now);
	}
	for (i = 0; i < n; i++) {
		int k;

		/* cheap first: most renames on a host are not vCPUs' */
		if (ev[i].kind != VP_PROCEV_COMM ||
		    (k = qemu_vcpu_of_comm(ev[i].comm)) < 0 ||
		    !vm_of_pid(d, ev[i].tgid))
			continue;
		d->hp.used++;
		follow(d, ev[i].tgid, k, now);
		virt_mark_dirty(&d->virt, now);
		want = true;
	}
	if (want)
		return true;
follow_up:
	now = clock_now_ns();
	if (d->hp.nfollow && now >= d->hp.follow_next) {
		/* the latency still runs from the first event's receipt */
		for (i = 0; i < d->hp.nfollow; i++)
			virt_mark_dirty(&d->virt, d->hp.follow[i].event_ns);
		d->hp.follow_rounds++;
		return true;
	}
	return false;
}

/* Found in place by the refresh of a round that did not have to pin it. */
static bool
in_place(const struct vp_daemon *d, const struct vp_hp_follow *f,
    uint64_t round_ns)
{
	const struct vp_vm *vm = vm_of_pid(d, f->pid);
	const struct vp_vcpu *v;

	if (!vm)
		return false;		/* not listed yet, or QEMU gone */
	if (vm->policy_known && !vm_managed(vm))
		return true;		/* not ours to place */
	if (f->vcpu >= vm->nvcpus)
		return false;		/* libvirt does not count it yet */
	v = &vm->vcpu[f->vcpu];
	return v->tid && !cpuset_empty(&v->planned) &&
	    cpuset_equal(&v->affinity, &v->planned) &&
	    v->last_move_ns < round_ns;
}

void
hotplug_after_round(struct vp_daemon *d, uint64_t round_ns)
{
	uint64_t now = clock_now_ns();
	int i;

	for (i = 0; i < d->hp.nfollow; ) {
		struct vp_hp_follow *f = &d->hp.follow[i];

		if (in_place(d, f, round_ns) || now >= f->until) {
			if (now >= f->until)
				d->hp.follow_expired++;
			*f = d->hp.follow[--d->hp.nfollow];
			continue;
		}
		i++;
	}
	d->hp.follow_next = now + HP_FOLLOW_NS;
}

uint64_t
hotplug_deadline(const struct vp_daemon *d, uint64_t until)
{
	return d->hp.nfollow && d->hp.follow_next < until ?
	    d->hp.follow_next : until;
}
