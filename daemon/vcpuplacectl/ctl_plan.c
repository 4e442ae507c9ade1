/*
 * ctl_plan.c - `vcpuplacectl plan`: a dry run of the planner on a model
 * and a scenario, or a folder of domain XML files (ctl_fleet.c), in the
 * spirit of numad's advisory mode.  Nothing is pinned; the output says
 * where every vCPU would live and why, and for domain files what chose
 * each VM's profile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "vcpuplacectl/ctl.h"
#include "host/choose.h"
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

/* What a plan is of: the VMs, and for domain files why each has its
 * profile (NULL for a scenario). */
struct what {
	const struct vp_vm_spec *vms;
	int nvms;
	const struct ctl_fleet_vm *why;	/* [nvms] or NULL */
};

static void
why_json(json_object *o, const struct ctl_fleet_vm *w)
{
	json_object_object_add(o, "file", json_object_new_string(w->file));
	json_object_object_add(o, "profile",
	    json_object_new_string(w->profile));
	json_object_object_add(o, "source",
	    json_object_new_string(choose_source_name(w->source)));
	json_object_object_add(o, "rule", w->rule[0] ?
	    json_object_new_string(w->rule) : NULL);
}

static json_object *
vm_json(const struct vp_topo *t, const struct vp_vm_spec *vm,
    const struct ctl_fleet_vm *why, const struct vp_vm_plan *vp)
{
	json_object *o = json_object_new_object(), *arr;
	char buf[8192];
	int i;

	json_object_object_add(o, "name", json_object_new_string(vm->name));
	if (why)
		why_json(o, why);
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
print_json(const struct vp_topo *t, const struct what *w,
    const struct vp_plan *p)
{
	json_object *root = json_object_new_object(), *vms;
	char buf[8192];
	int i;

	vms = json_object_new_array();
	for (i = 0; i < w->nvms; i++)
		json_object_array_add(vms, vm_json(t, &w->vms[i],
		    w->why ? &w->why[i] : NULL, &p->vm[i]));
	json_object_object_add(root, "vms", vms);
	json_object_object_add(root, "shared_pool", json_object_new_string(
	    os_list(t, &p->shared_pool, buf, sizeof(buf))));
	json_object_object_add(root, "probes",
	    json_object_new_int64((int64_t)p->probes));
	puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY));
	json_object_put(root);
}

/* Domain files: each VM's profile and what chose it, then the plan. */
static void
print_sources(const struct what *w)
{
	int i;

	printf("%-20s %-12s %-9s %s\n", "VM", "PROFILE", "SOURCE", "RULE");
	for (i = 0; i < w->nvms; i++)
		printf("%-20s %-12s %-9s %s\n", w->vms[i].name,
		    w->why[i].profile, choose_source_name(w->why[i].source),
		    w->why[i].rule[0] ? w->why[i].rule : "-");
	putchar('\n');
}

static void
print_table(const struct vp_topo *t, const struct what *w,
    const struct vp_plan *p)
{
	const struct vp_vm_spec *vms = w->vms;
	char buf[8192];
	int i, k;

	if (w->why)
		print_sources(w);
	printf("%-20s %5s %6s %-14s %s\n", "VM", "VCPU", "HOME", "REASON",
	    "ALLOWED");
	for (i = 0; i < w->nvms; i++) {
		const struct vp_vm_plan *vp = &p->vm[i];

		if (vms[i].policy.mode == VP_MODE_OFF) {
			printf("%-20s %5s %6s %-14s %s\n", vms[i].name, "-",
			    "-", "off", "(not managed)");
			continue;
		}
		if (vp->error) {
			printf("%-20s %5s %6s %-14s %s\n", vms[i].name, "-",
			    "-", "no-room", strerror(-vp->error));
			continue;
		}
		for (k = 0; k < vp->nvcpus; k++)
			printf("%-20s %5d %6u %-14s %s\n", vms[i].name, k,
			    t->pu[vp->vcpu[k].home].os_index,
			    scan_reason_tag(vp->vcpu[k].reason),
			    os_list(t, &vp->vcpu[k].allowed, buf, sizeof(buf)));
	}
	printf("shared pool: %s\n", os_list(t, &p->shared_pool, buf,
	    sizeof(buf)));
}

/* Plans @in for @w and prints it; @src names the input in errors. */
static int
plan_print(const struct vp_topo *t, const struct vp_plan_input *in,
    const struct what *w, const char *src, bool json)
{
	_cleanup_plan_ struct vp_plan *p = NULL;
	int r;

	if ((r = plan_compute(t, in, &p)) < 0) {
		fprintf(stderr, "vcpuplacectl plan: %s: %s\n", src,
		    r == -EINVAL ? "no PU left for VMs after 'reserve'" :
		    strerror(-r));
		return 1;
	}
	if (json)
		print_json(t, w, p);
	else
		print_table(t, w, p);
	return 0;
}

static int
run_scenario(const struct vp_topo *t, const char *scen_path, bool json)
{
	struct vp_scenario *s = NULL;
	struct vp_plan_input in;
	struct what w;
	char err[512], *text = NULL;
	int r;

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
	w = (struct what){ .vms = s->vms, .nvms = s->nvms };
	r = plan_print(t, &in, &w, scen_path, json);
	scenario_free(s);
	return r;
}

/*
 * Domain files: no host load known (nothing busy, nothing reserved), the
 * default features, and the budget and fallback of the policies, as the
 * daemon plans at start.
 */
static int
run_domains(const struct vp_topo *t, const struct ctl_opts *o)
{
	struct ctl_fleet *f = NULL;
	struct vp_cpuset none;
	struct vp_features feat;
	struct vp_policy fallback;
	struct vp_plan_input in;
	struct what w;
	int r;

	if (ctl_fleet_load(o->policy_dir, o->domains, &f) < 0)
		return 1;
	cpuset_zero(&none);
	features_default(&feat);
	choose_default(f->profiles, &fallback);
	in = (struct vp_plan_input){
		.vms = f->vms, .nvms = f->n, .busy = &none, .reserved = &none,
		.feat = &feat, .budget = profiles_budget(f->profiles),
		.fallback = &fallback,
	};
	w = (struct what){ .vms = f->vms, .nvms = f->n, .why = f->why };
	r = plan_print(t, &in, &w, o->domains, o->json);
	ctl_fleet_free(f);
	return r;
}

int
ctl_plan(const struct ctl_opts *o, int argc, char **argv)
{
	_cleanup_topo_ struct vp_topo *t = NULL;

	(void)argc;
	(void)argv;
	if (ctl_load_topo(o->topology, &t) < 0)
		return 1;
	return o->domains ? run_domains(t, o) : run_scenario(t, o->scenario,
	    o->json);
}
