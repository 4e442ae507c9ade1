/*
 * inventory.c - the VMs the daemon manages, rebuilt from libvirt's live
 * state (never from a checkpoint of ours).
 *
 * What libvirt says comes as a snapshot of plain data from the libvirt
 * worker (libvirt.c, host/virt_worker.h), and the QEMU threads from
 * host/qemu.h; this file decides what it means for the daemon's state,
 * counts it, and logs it once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "host/cputune.h"
#include "host/choose.h"
#include "host/procstat.h"
#include "host/qemu.h"
#include "vcpuplaced/daemon.h"

static void
free_vm(struct vp_vm *vm)
{
	free(vm->vcpu);
	memset(vm, 0, sizeof(*vm));
}

void
inventory_free(struct vp_daemon *d)
{
	int i;

	for (i = 0; i < d->nvms; i++)
		free_vm(&d->vm[i]);
	free(d->vm);
	d->vm = NULL;
	d->nvms = 0;
}

/* Live affinity and current PU of every vCPU, in the model's indices. */
static int
read_affinity(struct vp_vm *vm, const struct vp_snap_dom *sd)
{
	int k;

	if (sd->aff_err < 0)
		return sd->aff_err;
	for (k = 0; k < vm->nvcpus; k++) {
		vm->vcpu[k].affinity = sd->aff[k];
		vm->vcpu[k].current = sd->cur[k];
	}
	return 0;
}

/*
 * Takes @pol under profile name @profile, chosen by @source (VP_SOURCE_*;
 * a rule's label is set by the caller); a VM whose policy or profile
 * changes is re-placed at once (vm->replace).
 */
static void
adopt_policy(struct vp_vm *vm, const struct vp_policy *pol,
    const char *profile, int source)
{
	vm->source = source;
	if (!vm->policy_known || !policy_equal(pol, &vm->policy) ||
	    strcmp(profile, vm->profile))
		vm->replace = true;
	vm->policy = *pol;
	snprintf(vm->profile, sizeof(vm->profile), "%s", profile);
	vm->policy_known = true;
}

/*
 * Says once, when the reason changes, that the host refused what the VM
 * asked for (@why; "" when it no longer does), and counts it by @cause.
 */
void
inventory_note_refused(struct vp_daemon *d, struct vp_vm *vm, int cause,
    const char *why)
{
	if (!strcmp(vm->refused, why))
		return;
	snprintf(vm->refused, sizeof(vm->refused), "%s", why);
	vm->refused_cause = why[0] ? cause : VP_REFUSED_NONE;
	if (!why[0]) {
		log_msg(LOG_NOTICE, "VM %s: no longer refused", vm->name);
		return;
	}
	d->c.refused[cause]++;
	log_msg(LOG_WARNING, "VM %s: refused: %s; placed as the host default "
	    "(balanced)", vm->name, why);
}

/*
 * choose_policy()'s readers: the elements of the running domain as the
 * worker read them (an element not read is a passing error).
 */
static int
snap_text(int err, const char *text, char **ret_xml)
{
	char *xml;

	if (err == -EAGAIN)
		return -EIO;
	if (err < 0)
		return err;
	if (!(xml = strdup(text)))
		return -ENOMEM;
	*ret_xml = xml;
	return 0;
}

static int
live_policy(void *ctx, char **ret_xml)
{
	const struct vp_snap_dom *sd = ctx;

	return snap_text(sd->policy_err, sd->policy, ret_xml);
}

static int
live_nova(void *ctx, char **ret_xml)
{
	const struct vp_snap_dom *sd = ctx;

	return snap_text(sd->nova_err, sd->nova, ret_xml);
}

/* Says once that the VM's Nova element cannot be read, and counts it. */
static void
note_nova(struct vp_daemon *d, struct vp_vm *vm, bool bad)
{
	if (bad && !vm->nova_bad) {
		d->c.invalid_metadata++;
		log_msg(LOG_ERR, "VM %s: Nova's metadata element cannot be "
		    "read: host rules on flavor or project do not match it",
		    vm->name);
	}
	vm->nova_bad = bad;
}

/*
 * Invalid metadata is logged with the VM's name and counted once per
 * change of the text, and leaves the previous policy (or, for a VM seen
 * for the first time, the default).
 */
static void
note_invalid(struct vp_daemon *d, struct vp_vm *vm, const char *why)
{
	struct vp_policy pol;

	if (strcmp(vm->error, why)) {
		d->c.invalid_metadata++;
		log_msg(LOG_ERR, "VM %s: invalid vcpuplace metadata: %s, "
		    "keeping previous policy", vm->name, why);
		snprintf(vm->error, sizeof(vm->error), "%s", why);
	}
	if (vm->policy_known)
		return;
	choose_default(d->profiles, &pol);
	adopt_policy(vm, &pol, "balanced", VP_SOURCE_DEFAULT);
}

/*
 * Reads the VM's policy by the precedence choose_policy() holds (grant,
 * metadata under the host's tenant rules unless --trust-metadata, first
 * host rule, default).  A passing libvirt failure changes nothing.
 * Metadata the rules refuse is valid but asks for what only the host
 * grants: the VM gets the host default, never what it asked for.
 */
static void
read_policy(struct vp_daemon *d, struct vp_vm *vm,
    const struct vp_snap_dom *sd)
{
	/* libvirt's own text of the UUID, lower-case hex as grants.xml
	 * keys it */
	struct vp_choose_vm in = {
		.uuid = vm->uuid_str, .name = vm->name, .nvcpus = vm->nvcpus,
		.trust_metadata = d->trust_metadata,
		.rd = { .policy = live_policy, .nova = live_nova,
		    .ctx = (void *)sd },
	};
	struct vp_choice c;
	int r;

	r = choose_policy(d->profiles, &in, &c);
	if (r == -EINVAL) {
		vm->granted = false;
		note_invalid(d, vm, c.why);
		return;
	}
	if (r < 0) {
		d->c.libvirt_errors++;	/* passing error: change nothing */
		return;
	}
	note_nova(d, vm, c.nova_bad);
	vm->granted = c.source == VP_SOURCE_GRANT;
	snprintf(vm->rule, sizeof(vm->rule), "%s", c.rule ? c.rule : "");
	adopt_policy(vm, &c.policy, c.profile, c.source);
	vm->error[0] = '\0';
	if (c.refused)
		inventory_note_refused(d, vm, VP_REFUSED_TENANT, c.why);
	else if (vm->refused_cause == VP_REFUSED_TENANT)
		inventory_note_refused(d, vm, VP_REFUSED_TENANT, "");
}

/*
 * The VM's CPU quotas (schedext.c decides what they mean for the BPF
 * scheduler), only while sched_ext is an option.  A failure keeps what
 * was known, counted as libvirt's.
 */
static void
read_cputune(struct vp_daemon *d, struct vp_vm *vm,
    const struct vp_snap_dom *sd)
{
	if (d->scx.opt == VP_SCX_OPT_OFF || sd->cputune_err == -EAGAIN)
		return;
	if (sd->cputune_err < 0) {
		d->c.libvirt_errors++;
		return;
	}
	vm->quota = cputune_has_quota(&sd->tune);
	cputune_words(&sd->tune, vm->quota_words, sizeof(vm->quota_words));
}

struct vp_vm *
inventory_vm_by_name(const struct vp_daemon *d, const char *name)
{
	int i;

	for (i = 0; i < d->nvms; i++)
		if (!strcmp(d->vm[i].name, name))
			return &d->vm[i];
	return NULL;
}

struct vp_vm *
inventory_vm_by_uuid(const struct vp_daemon *d, const unsigned char *uuid)
{
	int i;

	for (i = 0; i < d->nvms; i++)
		if (!memcmp(d->vm[i].uuid, uuid, VP_UUID_LEN))
			return &d->vm[i];
	return NULL;
}

/* A fresh entry for a VM first seen (or whose vCPU count changed). */
static int
new_vm(struct vp_vm *vm, int nvcpus)
{
	int k;

	memset(vm, 0, sizeof(*vm));
	vm->vcpu = calloc(nvcpus, sizeof(*vm->vcpu));
	if (!vm->vcpu)
		return -ENOMEM;
	vm->nvcpus = nvcpus;
	for (k = 0; k < nvcpus; k++) {
		vm->vcpu[k].current = vm->vcpu[k].home =
		    vm->vcpu[k].placed_home = VP_PU_NONE;
	}
	vm->replace = true;
	return 0;
}

enum { VP_THREADS_OK, VP_THREADS_GONE, VP_THREADS_MISSING, VP_THREADS_DUP };

/*
 * Says once, when it changes, why some vCPU threads are unknown.  A
 * problem is said, and counted, only once a second refresh finds it in
 * the same QEMU (the entry is carried over only then): a VM caught
 * between libvirt listing it and QEMU naming its vCPU threads (a start),
 * or between its QEMU's exit and libvirt's cleanup (a destroy, or a
 * crash: libvirtd holds the domain while it reaps QEMU), is in a normal
 * passing state that the next refresh no longer sees.  One in three
 * `virsh destroy` here was caught so and logged as an error.
 */
static void
note_threads(struct vp_daemon *d, struct vp_vm *vm, int problem, int k,
    int r)
{
	bool first_sight = problem != vm->thread_problem_seen;

	vm->thread_problem_seen = problem;
	if (problem == vm->thread_problem ||
	    (problem != VP_THREADS_OK && first_sight))
		return;
	vm->thread_problem = problem;
	if (problem == VP_THREADS_OK) {
		log_msg(LOG_NOTICE, "VM %s: every vCPU thread known again",
		    vm->name);
		return;
	}
	d->c.thread_errors++;
	if (problem == VP_THREADS_GONE)
		log_msg(LOG_ERR, "VM %s: QEMU process %d cannot be read (%s) "
		    "while libvirt lists the VM: its vCPU threads are left "
		    "alone", vm->name, vm->pid, strerror(-r));
	else if (problem == VP_THREADS_DUP)
		log_msg(LOG_ERR, "VM %s: more than one thread of QEMU process "
		    "%d is named 'CPU %d/...': cannot tell which is vCPU %d, "
		    "so no thread is taken for it", vm->name, vm->pid, k, k);
	else
		log_msg(LOG_ERR, "VM %s: no thread of QEMU process %d is named "
		    "'CPU %d/...': vCPU %d's thread is unknown", vm->name,
		    vm->pid, k, k);
}

/*
 * vCPU thread ids, from QEMU's thread names, read afresh each time: a
 * thread id kept from an earlier read may belong to anyone by now.  A
 * vCPU without exactly one thread named for it gets none (tid 0: its
 * load, wake hint and BPF placement are skipped); the VM is still
 * placed, through libvirt, which knows its threads from QEMU itself.
 */
static void
read_tids(struct vp_daemon *d, struct vp_vm *vm)
{
	int *tids = calloc(vm->nvcpus, sizeof(*tids));
	int k, r, bad = -1, problem = VP_THREADS_OK;

	if (!tids)
		return;		/* short of memory: keep what we knew */
	r = vm->pid ? qemu_vcpu_tids(vm->pid, vm->nvcpus, tids) : -ESRCH;
	for (k = 0; k < vm->nvcpus; k++) {
		struct vp_vcpu *v = &vm->vcpu[k];

		v->tid = r >= 0 && tids[k] > 0 ? tids[k] : 0;
		/* with its start time, read now: sched_ext's moves act on
		 * this thread only, not on whoever has the tid later */
		if (!v->tid || procstat_read_u64(vm->pid, v->tid,
		    PROCSTAT_START_TIME, &v->tid_start) < 0)
			v->tid_start = 0;
		if (r < 0 || tids[k] > 0 || problem == VP_THREADS_DUP)
			continue;
		problem = tids[k] ? VP_THREADS_DUP : VP_THREADS_MISSING;
		bad = k;
	}
	/* no pid: not QEMU's driver, or not started yet: nothing to say */
	if (vm->pid && r < 0)
		problem = VP_THREADS_GONE;
	note_threads(d, vm, problem, bad, r);
	free(tids);
}

/* Fills @vm for the domain of @info, carrying over what @old knew. */
static int
describe_vm(struct vp_daemon *d, const struct vp_snap_dom *sd,
    struct vp_vm *old, struct vp_vm *vm)
{
	const struct vp_dom_info *info = &sd->info;
	int pid = qemu_pid(NULL, info->name);
	/*
	 * The same UUID with another QEMU is a new run of the VM (destroyed
	 * and started, restored, restarted after a crash), often between two
	 * refreshes: its threads are new, with libvirt's affinity, and what
	 * the old run's entry knew (homes applied, cooldowns) is not theirs.
	 */
	bool carried = old && old->nvcpus == info->nvcpus && old->pid == pid;

	if (carried) {
		*vm = *old;		/* keeps cooldowns and pending moves */
		memset(old, 0, sizeof(*old));
	} else {
		if (old)
			free_vm(old);
		if (new_vm(vm, info->nvcpus) < 0)
			return -ENOMEM;
	}
	memcpy(vm->uuid, info->uuid, sizeof(vm->uuid));
	snprintf(vm->uuid_str, sizeof(vm->uuid_str), "%s", info->uuid_str);
	snprintf(vm->name, sizeof(vm->name), "%s", info->name);
	vm->pid = pid;
	read_policy(d, vm, sd);
	read_cputune(d, vm, sd);
	read_tids(d, vm);
	/* a dry run never pins: keep the affinity it pretended to apply */
	if (d->dry_run && carried)
		return 0;
	return read_affinity(vm, sd);
}

/* Who a plan entry was for: enough to find the VM again after a refresh. */
struct plan_vm_id {
	unsigned char uuid[VP_UUID_LEN];
	int nvcpus;		/* 0: none */
};

/*
 * The last plan names its VMs by index into d->vm, which a refresh
 * rebuilds in libvirt's order (and describe_vm() empties the old entries
 * it carries over, so who they were is noted first).  Until the next
 * plan (none is made while paused, or when planning fails) explain and
 * status read the old plan: each of its entries is pointed at the same
 * VM in the new list, by UUID, or at -1 when that VM has gone or its
 * vCPU count changed (the plan's vCPU arrays would no longer fit it).
 */
static struct plan_vm_id *
note_plan_vms(const struct vp_daemon *d)
{
	struct plan_vm_id *ids = calloc(d->plan_n ? d->plan_n : 1,
	    sizeof(*ids));
	int i;

	for (i = 0; ids && i < d->plan_n; i++)
		if (d->plan_idx[i] >= 0) {
			memcpy(ids[i].uuid, d->vm[d->plan_idx[i]].uuid,
			    VP_UUID_LEN);
			ids[i].nvcpus = d->vm[d->plan_idx[i]].nvcpus;
		}
	return ids;
}

static void
remap_plan(struct vp_daemon *d, const struct plan_vm_id *ids,
    const struct vp_vm *vms, int nvms)
{
	int i, j;

	for (i = 0; i < d->plan_n; i++) {
		d->plan_idx[i] = -1;
		for (j = 0; ids && ids[i].nvcpus && j < nvms; j++)
			if (!memcmp(vms[j].uuid, ids[i].uuid, VP_UUID_LEN) &&
			    vms[j].nvcpus == ids[i].nvcpus) {
				d->plan_idx[i] = j;
				break;
			}
	}
}

/*
 * A domain whose name does not fit is left alone (a truncated name could
 * name another VM to explain and policy); said and counted when the
 * number of such domains grows, not at every refresh.
 */
static void
note_long_name(struct vp_daemon *d, const struct vp_dom_info *info, int nth)
{
	if (nth <= d->long_names)
		return;
	d->c.name_errors++;
	log_msg(LOG_ERR, "domain %s: name longer than %zu bytes, which "
	    "vcpuplaced cannot hold: VM left alone", info->uuid_str,
	    sizeof(info->name) - 1);
}

void
inventory_adopt(struct vp_daemon *d, const struct vp_snapshot *s)
{
	struct plan_vm_id *ids;
	struct vp_vm *vms;
	int i, nvms = 0, nlong = 0;

	vms = calloc(s->n ? s->n : 1, sizeof(*vms));
	ids = note_plan_vms(d);
	if (!vms || !ids) {
		free(vms);
		free(ids);
		d->c.libvirt_errors++;	/* short of memory: keep the old */
		return;
	}
	for (i = 0; i < s->n; i++) {
		const struct vp_dom_info *info = &s->dom[i].info;

		if (info->err == -ENAMETOOLONG)
			note_long_name(d, info, ++nlong);
		if (info->err < 0)
			continue;		/* vanished meanwhile */
		if (describe_vm(d, &s->dom[i],
		    inventory_vm_by_uuid(d, info->uuid), &vms[nvms]) < 0) {
			free_vm(&vms[nvms]);
			continue;
		}
		nvms++;
	}
	d->long_names = nlong;
	remap_plan(d, ids, vms, nvms);
	free(ids);
	inventory_free(d);	/* what was not carried over has gone */
	d->vm = vms;
	d->nvms = nvms;
	d->inventory_gen++;
}

int
inventory_adopt_policies(struct vp_daemon *d, const struct vp_snapshot *s)
{
	int i, nread = 0;

	for (i = 0; i < s->n; i++) {
		struct vp_vm *vm = inventory_vm_by_uuid(d, s->dom[i].info.uuid);

		if (!vm) {
			virt_mark_dirty(&d->virt, 0);
			continue;
		}
		read_policy(d, vm, &s->dom[i]);
		d->c.policy_rereads++;
		nread++;
	}
	/* what the plan and the answers were made from has changed */
	if (nread)
		d->inventory_gen++;
	return nread;
}
