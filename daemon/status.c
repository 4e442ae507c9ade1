/*
 * status.c - the daemon's state as JSON (json-c), rewritten atomically
 * every tick to --status-file.  Until the control socket lands it is
 * how the CLI, tests and operators see placement.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <json-c/json.h>

#include "daemon.h"

static json_object *
cpus_json(const struct vp_topo *t, const struct vp_cpuset *s)
{
	char buf[8192];

	if (cpulist_format(t, s, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	return json_object_new_string(buf);
}

static json_object *
pu_json(const struct vp_topo *t, int pu)
{
	return pu == VP_PU_NONE ? NULL :
	    json_object_new_int((int)t->pu[pu].os_index);
}

static json_object *
vm_json(const struct vp_daemon *d, const struct vp_vm *vm)
{
	json_object *o = json_object_new_object(), *pol, *arr;
	int k;

	pol = json_object_new_object();
	json_object_object_add(pol, "profile",
	    json_object_new_string(vm->profile));
	json_object_object_add(pol, "mode",
	    json_object_new_string(policy_mode_name(vm->policy.mode)));
	json_object_object_add(pol, "smt",
	    json_object_new_string(policy_smt_name(vm->policy.smt)));
	json_object_object_add(pol, "locality", json_object_new_string(
	    policy_locality_name(vm->policy.locality)));
	json_object_object_add(pol, "priority", json_object_new_string(
	    policy_priority_name(vm->policy.priority)));
	json_object_object_add(o, "name", json_object_new_string(vm->name));
	json_object_object_add(o, "policy", pol);
	json_object_object_add(o, "error",
	    vm->error[0] ? json_object_new_string(vm->error) : NULL);
	arr = json_object_new_array();
	for (k = 0; k < vm->nvcpus; k++) {
		const struct vp_vcpu *v = &vm->vcpu[k];
		json_object *c = json_object_new_object();

		json_object_object_add(c, "vcpu", json_object_new_int(k));
		json_object_object_add(c, "tid", json_object_new_int(v->tid));
		/* the home of the affinity in force, not of a pending plan */
		json_object_object_add(c, "home",
		    pu_json(d->topo, v->placed_home));
		json_object_object_add(c, "allowed",
		    cpus_json(d->topo, &v->affinity));
		json_object_object_add(c, "current",
		    pu_json(d->topo, v->current));
		json_object_object_add(c, "reason",
		    json_object_new_string(scan_reason_tag(v->reason)));
		json_object_object_add(c, "delay_seconds",
		    json_object_new_double((double)v->delay_ns / 1e9));
		json_object_array_add(arr, c);
	}
	json_object_object_add(o, "vcpus", arr);
	return o;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median and 99th percentile of the plan times of the last ticks. */
static void
plan_quantiles(const struct vp_daemon *d, uint64_t *p50, uint64_t *p99)
{
	uint64_t v[256];
	size_t n = d->c.ticks < 256 ? d->c.ticks : 256;

	*p50 = *p99 = 0;
	if (!n)
		return;
	memcpy(v, d->c.plan_ns_ring, n * sizeof(v[0]));
	qsort(v, n, sizeof(v[0]), cmp_u64);
	*p50 = v[n / 2];
	*p99 = v[(n * 99) / 100];
}

static json_object *
root_json(const struct vp_daemon *d)
{
	uint64_t p50, p99;
	json_object *o = json_object_new_object(), *vms;
	int i;

#define NUM(k, v) json_object_object_add(o, k, json_object_new_int64((int64_t)(v)))
	NUM("tick", d->c.ticks);
	json_object_object_add(o, "connected", json_object_new_boolean(
	    d->conn && !atomic_load(&d->conn_lost)));
	json_object_object_add(o, "dry_run",
	    json_object_new_boolean(d->dry_run));
	json_object_object_add(o, "core_sched", json_object_new_string(
	    d->core_sched_supported ? "supported" : "unsupported"));
	NUM("reconnects", d->c.reconnects);
	NUM("libvirt_errors", d->c.libvirt_errors);
	NUM("invalid_metadata", d->c.invalid_metadata);
	NUM("pins_failed", d->c.pins_failed);
	NUM("vanished", d->c.vanished);
	NUM("plan_ns", d->c.plan_ns_last);
	plan_quantiles(d, &p50, &p99);
	NUM("plan_ns_p50", p50);
	NUM("plan_ns_p99", p99);
#undef NUM
	vms = json_object_new_array();
	for (i = 0; i < d->nvms; i++)
		json_object_array_add(vms, vm_json(d, &d->vm[i]));
	json_object_object_add(o, "vms", vms);
	return o;
}

int
status_write(const struct vp_daemon *d)
{
	char tmp[4096];
	json_object *o;
	FILE *f;
	int r = 0;

	if (!d->status_file)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", d->status_file);
	if (!(f = fopen(tmp, "we")))
		return -errno;
	o = root_json(d);
	if (fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
	    f) < 0)
		r = -EIO;
	json_object_put(o);
	if (fclose(f) != 0 && !r)
		r = -errno;
	if (!r && rename(tmp, d->status_file) < 0)
		r = -errno;
	return r;
}
