/*
 * ctl_plan.c - `vcpuplacectl plan`: a dry run of the planner on a model
 * and a scenario, in the spirit of numad's advisory mode.  Nothing is
 * pinned; the output says where every vCPU would live and why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "vcpuplacectl/ctl.h"
#include "host/scenario.h"
#include "host/smallfile.h"

/* Scenarios are small; a larger file is a mistake, not a scenario. */
#define SCENARIO_MAX_BYTES	(4 << 20)

static const char *
os_list(const struct vp_topo *t, const struct vp_cpuset *s, char *buf,
    size_t len)
{
	if (cpulist_format(t, s, buf, len) < 0)
		snprintf(buf, len, "(too long)");
	return buf;
}

static json_object *
policy_json(const struct vp_policy *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "mode",
	    json_object_new_string(policy_mode_name(p->mode)));
	json_object_object_add(o, "smt",
	    json_object_new_string(policy_smt_name(p->smt)));
	json_object_object_add(o, "locality",
	    json_object_new_string(policy_locality_name(p->locality)));
	json_object_object_add(o, "priority",
	    json_object_new_string(policy_priority_name(p->priority)));
	json_object_object_add(o, "cache_hot",
	    json_object_new_boolean(p->cache_hot));
	return o;
}

static json_object *
vm_json(const struct vp_topo *t, const struct vp_vm_spec *vm,
    const struct vp_vm_plan *vp)
{
	json_object *o = json_object_new_object(), *arr;
	char buf[8192];
	int i;

	json_object_object_add(o, "name", json_object_new_string(vm->name));
	json_object_object_add(o, "policy", policy_json(&vm->policy));
	json_object_object_add(o, "error", vp->error ?
	    json_object_new_string(strerror(-vp->error)) : NULL);
	arr = json_object_new_array();
	for (i = 0; vp->vcpu && !vp->error && i < vp->nvcpus; i++) {
		const struct vp_vcpu_plan *c = &vp->vcpu[i];
		json_object *v = json_object_new_object();

		json_object_object_add(v, "vcpu", json_object_new_int(i));
		json_object_object_add(v, "home",
		    json_object_new_int(t->pu[c->home].os_index));
		json_object_object_add(v, "allowed", json_object_new_string(
		    os_list(t, &c->allowed, buf, sizeof(buf))));
		json_object_object_add(v, "reason", json_object_new_string(
		    scan_reason_tag(c->reason)));
		json_object_array_add(arr, v);
	}
	json_object_object_add(o, "vcpus", arr);
	return o;
}

static void
print_json(const struct vp_topo *t, const struct vp_scenario *s,
    const struct vp_plan *p)
{
	json_object *root = json_object_new_object(), *vms;
	char buf[8192];
	int i;

	vms = json_object_new_array();
	for (i = 0; i < s->nvms; i++)
		json_object_array_add(vms, vm_json(t, &s->vms[i], &p->vm[i]));
	json_object_object_add(root, "vms", vms);
	json_object_object_add(root, "shared_pool", json_object_new_string(
	    os_list(t, &p->shared_pool, buf, sizeof(buf))));
	json_object_object_add(root, "probes",
	    json_object_new_int64((int64_t)p->probes));
	puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY));
	json_object_put(root);
}

static void
print_table(const struct vp_topo *t, const struct vp_scenario *s,
    const struct vp_plan *p)
{
	char buf[8192];
	int i, k;

	printf("%-20s %5s %6s %-14s %s\n", "VM", "VCPU", "HOME", "REASON",
	    "ALLOWED");
	for (i = 0; i < s->nvms; i++) {
		const struct vp_vm_plan *vp = &p->vm[i];

		if (s->vms[i].policy.mode == VP_MODE_OFF) {
			printf("%-20s %5s %6s %-14s %s\n", s->vms[i].name, "-",
			    "-", "off", "(not managed)");
			continue;
		}
		if (vp->error) {
			printf("%-20s %5s %6s %-14s %s\n", s->vms[i].name, "-",
			    "-", "no-room", strerror(-vp->error));
			continue;
		}
		for (k = 0; k < vp->nvcpus; k++)
			printf("%-20s %5d %6u %-14s %s\n", s->vms[i].name, k,
			    t->pu[vp->vcpu[k].home].os_index,
			    scan_reason_tag(vp->vcpu[k].reason),
			    os_list(t, &vp->vcpu[k].allowed, buf, sizeof(buf)));
	}
	printf("shared pool: %s\n", os_list(t, &p->shared_pool, buf,
	    sizeof(buf)));
}

static int
run(const char *topo_path, const char *scen_path, bool json)
{
	_cleanup_topo_ struct vp_topo *t = NULL;
	_cleanup_plan_ struct vp_plan *p = NULL;
	struct vp_scenario *s = NULL;
	struct vp_plan_input in;
	char err[512], *text = NULL;
	int r;

	if (ctl_load_topo(topo_path, &t) < 0)
		return 1;
	if ((r = read_whole_file(scen_path, SCENARIO_MAX_BYTES, &text, NULL)) < 0) {
		fprintf(stderr, "vcpuplacectl plan: scenario %s: %s\n",
		    scen_path, strerror(-r));
		return 1;
	}
	r = scenario_parse(t, text, &s, err, sizeof(err));
	free(text);
	if (r < 0) {
		fprintf(stderr, "vcpuplacectl plan: %s: %s\n", scen_path,
		    r == -EINVAL ? err : strerror(-r));
		return 1;
	}
	in = (struct vp_plan_input){
		.vms = s->vms, .nvms = s->nvms, .busy = &s->busy,
		.reserved = &s->reserved, .feat = &s->feat,
	};
	if ((r = plan_compute(t, &in, &p)) < 0) {
		fprintf(stderr, "vcpuplacectl plan: %s: %s\n", scen_path,
		    r == -EINVAL ? "no PU left for VMs after 'reserve'" :
		    strerror(-r));
		scenario_free(s);
		return 1;
	}
	if (json)
		print_json(t, s, p);
	else
		print_table(t, s, p);
	scenario_free(s);
	return 0;
}

int
ctl_plan(const struct ctl_opts *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return run(o->topology, o->scenario, o->json);
}
