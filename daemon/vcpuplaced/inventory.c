/*
 * virt.c - the libvirt side: connection with reconnect and backoff,
 * domain events, and the inventory of running VMs rebuilt from libvirt's
 * live state (never from a checkpoint of ours).
 *
 * Event callbacks run on libvirt's event thread and only set flags; the
 * tick reads them.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <libvirt/virterror.h>

#include "vcpuplaced/daemon.h"

#define BACKOFF_MIN_MS	250
#define BACKOFF_MAX_MS	8000	/* a restarting libvirtd is back in ~2 s */

static void
silent_error(void *opaque, virErrorPtr err)
{
	(void)opaque;
	(void)err;	/* we log once, where we act on it */
}

static void *
event_loop(void *arg)
{
	(void)arg;
	for (;;)
		if (virEventRunDefaultImpl() < 0)
			break;
	return NULL;
}

int
virt_events_start(void)
{
	pthread_t th;

	virSetErrorFunc(NULL, silent_error);
	if (virEventRegisterDefaultImpl() < 0)
		return -EIO;
	if (pthread_create(&th, NULL, event_loop, NULL) != 0)
		return -EAGAIN;
	pthread_detach(th);
	return 0;
}

static void
on_close(virConnectPtr conn, int reason, void *opaque)
{
	struct vp_daemon *d = opaque;

	(void)conn;
	(void)reason;
	atomic_store(&d->conn_lost, true);
}

static int
on_lifecycle(virConnectPtr conn, virDomainPtr dom, int event, int detail,
    void *opaque)
{
	struct vp_daemon *d = opaque;

	(void)conn;
	(void)dom;
	(void)event;
	(void)detail;
	atomic_store(&d->dirty, true);
	return 0;
}

static void
on_metadata(virConnectPtr conn, virDomainPtr dom, int type,
    const char *nsuri, void *opaque)
{
	struct vp_daemon *d = opaque;

	(void)conn;
	(void)dom;
	(void)type;
	(void)nsuri;
	atomic_store(&d->dirty, true);
}

void
virt_disconnect(struct vp_daemon *d)
{
	if (!d->conn)
		return;
	if (d->cb_lifecycle >= 0)
		virConnectDomainEventDeregisterAny(d->conn, d->cb_lifecycle);
	if (d->cb_metadata >= 0)
		virConnectDomainEventDeregisterAny(d->conn, d->cb_metadata);
	virConnectUnregisterCloseCallback(d->conn, on_close);
	virConnectClose(d->conn);
	d->conn = NULL;
	d->cb_lifecycle = d->cb_metadata = -1;
}

static void
register_events(struct vp_daemon *d)
{
	virConnectRegisterCloseCallback(d->conn, on_close, d, NULL);
	d->cb_lifecycle = virConnectDomainEventRegisterAny(d->conn, NULL,
	    VIR_DOMAIN_EVENT_ID_LIFECYCLE,
	    VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle), d, NULL);
	d->cb_metadata = virConnectDomainEventRegisterAny(d->conn, NULL,
	    VIR_DOMAIN_EVENT_ID_METADATA_CHANGE,
	    VIR_DOMAIN_EVENT_CALLBACK(on_metadata), d, NULL);
}

int
virt_ensure(struct vp_daemon *d)
{
	virErrorPtr err;

	if (d->conn && !atomic_load(&d->conn_lost))
		return 0;
	if (d->conn) {
		log_msg(LOG_WARNING, "lost connection to %s, reconnecting",
		    d->uri);
		virt_disconnect(d);
		d->reconnect_at_ns = now_ns();
	}
	if (now_ns() < d->reconnect_at_ns)
		return -EAGAIN;
	d->conn = virConnectOpen(d->uri);
	if (!d->conn) {
		err = virGetLastError();
		d->backoff_ms = d->backoff_ms ? d->backoff_ms * 2 :
		    BACKOFF_MIN_MS;
		if (d->backoff_ms > BACKOFF_MAX_MS)
			d->backoff_ms = BACKOFF_MAX_MS;
		d->reconnect_at_ns = now_ns() +
		    (uint64_t)d->backoff_ms * 1000000;
		log_msg(LOG_WARNING, "cannot connect to %s: %s; retrying in "
		    "%u ms", d->uri, err && err->message ? err->message : "?",
		    d->backoff_ms);
		return -ECONNREFUSED;
	}
	atomic_store(&d->conn_lost, false);
	d->backoff_ms = 0;
	if (d->ever_connected) {
		d->c.reconnects++;
		log_msg(LOG_NOTICE, "reconnected to %s", d->uri);
	}
	d->ever_connected = true;
	register_events(d);
	atomic_store(&d->dirty, true);
	return 0;
}

static void
free_vm(struct vp_vm *vm)
{
	if (vm->dom)
		virDomainFree(vm->dom);
	/* an open stats fd would keep a dead VM's KVM state alive */
	kvm_iface_vm_close(vm->kvm);
	free(vm->vcpu);
	memset(vm, 0, sizeof(*vm));
}

void
virt_free_vms(struct vp_daemon *d)
{
	int i;

	for (i = 0; i < d->nvms; i++)
		free_vm(&d->vm[i]);
	free(d->vm);
	d->vm = NULL;
	d->nvms = 0;
}

/* QEMU's pid, from the pidfile libvirt's QEMU driver keeps. */
static int
read_qemu_pid(const char *name)
{
	char path[512];
	int pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/run/libvirt/qemu/%s.pid", name);
	if (!(f = fopen(path, "re")))
		return 0;
	if (fscanf(f, "%d", &pid) != 1)
		pid = 0;
	fclose(f);
	return pid;
}

/* vCPU thread ids from QEMU's thread names "CPU N/KVM" or "CPU N/TCG". */
static void
read_vcpu_tids(struct vp_vm *vm)
{
	char path[96], comm[64];
	struct dirent *e;
	DIR *dir;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/task", vm->pid);
	if (!vm->pid || !(dir = opendir(path)))
		return;
	while ((e = readdir(dir))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", vm->pid,
		    atoi(e->d_name));
		if (!(f = fopen(path, "re")))
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    sscanf(comm, "CPU %d/", &n) == 1 && n >= 0 &&
		    n < vm->nvcpus)
			vm->vcpu[n].tid = atoi(e->d_name);
		fclose(f);
	}
	closedir(dir);
}

/* Live affinity and current PU of every vCPU, in the model's indices. */
static int
read_affinity(struct vp_daemon *d, struct vp_vm *vm)
{
	const struct vp_topo *t = d->topo;
	int maplen = VIR_CPU_MAPLEN(t->os_limit), n, k;
	unsigned int os;
	unsigned char *maps;
	virVcpuInfoPtr info;

	maps = calloc(vm->nvcpus, maplen);
	info = calloc(vm->nvcpus, sizeof(*info));
	if (!maps || !info) {
		free(maps);
		free(info);
		return -ENOMEM;
	}
	n = virDomainGetVcpuPinInfo(vm->dom, vm->nvcpus, maps, maplen,
	    VIR_DOMAIN_AFFECT_LIVE);
	for (k = 0; k < vm->nvcpus && k < n; k++) {
		cpuset_zero(&vm->vcpu[k].affinity);
		for (os = 0; os < t->os_limit; os++)
			if (VIR_CPU_USABLE(maps, maplen, k, os))
				cpuset_set(&vm->vcpu[k].affinity,
				    topo_pu_of_os(t, os));
	}
	if (n >= 0 && virDomainGetVcpus(vm->dom, info, vm->nvcpus, NULL,
	    0) > 0)
		for (k = 0; k < vm->nvcpus; k++)
			vm->vcpu[k].current = info[k].cpu >= 0 ?
			    topo_pu_of_os(t, info[k].cpu) : VP_PU_NONE;
	free(maps);
	free(info);
	return n < 0 ? -EIO : 0;
}

/* The last libvirt call failed only because there is no metadata. */
static bool
no_metadata(void)
{
	virErrorPtr e = virGetLastError();

	return e && e->code == VIR_ERR_NO_DOMAIN_METADATA;
}

/*
 * Takes @pol under profile name @profile; a VM whose policy or profile
 * changes is re-placed at once (vm->replace).
 */
static void
adopt_policy(struct vp_vm *vm, const struct vp_policy *pol,
    const char *profile)
{
	if (!vm->policy_known || !policy_equal(pol, &vm->policy) ||
	    strcmp(profile, vm->profile))
		vm->replace = true;
	vm->policy = *pol;
	snprintf(vm->profile, sizeof(vm->profile), "%s", profile);
	vm->policy_known = true;
}

/* The host default: the "balanced" profile as loaded, else built in. */
static void
host_default(const struct vp_daemon *d, struct vp_policy *ret)
{
	const struct vp_policy *def = profiles_get(d->profiles, "balanced");

	if (def)
		*ret = *def;
	else
		policy_default(ret);
}

/*
 * Reads the VM's policy from its metadata.  Bad metadata is logged with
 * the VM's name, counted once per change of the text, and leaves the
 * previous policy (or, for a VM seen for the first time, the default).
 */
static void
read_policy(struct vp_daemon *d, struct vp_vm *vm)
{
	struct vp_policy pol;
	char err[256], profile[VP_PROFILE_NAME_MAX];
	char *xml;

	xml = virDomainGetMetadata(vm->dom, VIR_DOMAIN_METADATA_ELEMENT,
	    VP_POLICY_NS, VIR_DOMAIN_AFFECT_LIVE);
	if (!xml && !no_metadata()) {
		d->c.libvirt_errors++;	/* passing error: change nothing */
		return;
	}
	if (xml && policy_from_metadata(d->profiles, xml, &pol, profile, err,
	    sizeof(err)) < 0) {
		if (strcmp(vm->error, err)) {
			d->c.invalid_metadata++;
			log_msg(LOG_ERR, "VM %s: invalid vcpuplace metadata: %s, "
			    "keeping previous policy", vm->name, err);
			snprintf(vm->error, sizeof(vm->error), "%s", err);
		}
		if (!vm->policy_known) {
			host_default(d, &pol);
			adopt_policy(vm, &pol, "balanced");
		}
		free(xml);
		return;
	}
	if (xml) {
		free(xml);
	} else {
		host_default(d, &pol);		/* no metadata at all */
		snprintf(profile, sizeof(profile), "balanced");
	}
	adopt_policy(vm, &pol, profile);
	vm->error[0] = '\0';
}

struct vp_vm *
virt_vm_by_name(const struct vp_daemon *d, const char *name)
{
	int i;

	for (i = 0; i < d->nvms; i++)
		if (!strcmp(d->vm[i].name, name))
			return &d->vm[i];
	return NULL;
}

static struct vp_vm *
find_vm(struct vp_daemon *d, const unsigned char *uuid)
{
	int i;

	for (i = 0; i < d->nvms; i++)
		if (!memcmp(d->vm[i].uuid, uuid, VIR_UUID_BUFLEN))
			return &d->vm[i];
	return NULL;
}

/* Fills @vm for @dom, carrying over what the old entry knew. */
static int
describe_vm(struct vp_daemon *d, virDomainPtr dom, struct vp_vm *old,
    struct vp_vm *vm)
{
	virDomainInfo info;
	bool carried;
	int k;

	if (virDomainGetInfo(dom, &info) < 0 || info.nrVirtCpu < 1) {
		virDomainFree(dom);
		return -ENOENT;		/* vanished meanwhile */
	}
	carried = old && old->nvcpus == (int)info.nrVirtCpu;
	if (carried) {
		*vm = *old;		/* keeps cooldowns and pending moves */
		memset(old, 0, sizeof(*old));
		virDomainFree(vm->dom);
	} else {
		if (old)
			free_vm(old);
		memset(vm, 0, sizeof(*vm));
		vm->nvcpus = (int)info.nrVirtCpu;
		vm->vcpu = calloc(vm->nvcpus, sizeof(*vm->vcpu));
		if (!vm->vcpu)
			return -ENOMEM;
		for (k = 0; k < vm->nvcpus; k++) {
			vm->vcpu[k].current = vm->vcpu[k].home =
			    vm->vcpu[k].placed_home = VP_PU_NONE;
			vm->vcpu[k].kvm_idx = -1;
			vm->vcpu[k].hinted = VP_HINT_UNKNOWN;
		}
		vm->replace = true;
	}
	vm->dom = dom;
	virDomainGetUUID(dom, vm->uuid);
	snprintf(vm->name, sizeof(vm->name), "%s", virDomainGetName(dom));
	vm->pid = read_qemu_pid(vm->name);
	read_policy(d, vm);
	read_vcpu_tids(vm);
	/* a dry run never pins: keep the affinity it pretended to apply */
	if (d->dry_run && carried)
		return 0;
	return read_affinity(d, vm);
}

int
virt_refresh(struct vp_daemon *d)
{
	virDomainPtr *doms = NULL;
	struct vp_vm *vms;
	int n, i, nvms = 0;

	atomic_store(&d->dirty, false);
	n = virConnectListAllDomains(d->conn, &doms,
	    VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (n < 0) {
		d->c.libvirt_errors++;
		atomic_store(&d->conn_lost, true);
		return -EIO;
	}
	vms = calloc(n ? n : 1, sizeof(*vms));
	if (!vms) {
		for (i = 0; i < n; i++)
			virDomainFree(doms[i]);
		free(doms);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		unsigned char uuid[VIR_UUID_BUFLEN];

		virDomainGetUUID(doms[i], uuid);
		if (describe_vm(d, doms[i], find_vm(d, uuid), &vms[nvms]) < 0) {
			free_vm(&vms[nvms]);	/* frees doms[i] too */
			continue;
		}
		nvms++;
	}
	free(doms);
	virt_free_vms(d);	/* what was not carried over has gone */
	d->vm = vms;
	d->nvms = nvms;
	d->inventory_gen++;
	return 0;
}
