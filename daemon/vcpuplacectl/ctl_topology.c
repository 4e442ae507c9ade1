/*
 * ctl_topology.c - `vcpuplacectl topology`: the host model as a table
 * grouped by package, LLC, cluster and core, or as JSON.
 */
#include <stdio.h>

#include <json-c/json.h>

#include "vcpuplacectl/ctl.h"

static json_object *
pu_json(const struct vp_topo *t, int pu)
{
	const struct vp_pu *p = &t->pu[pu];
	const struct vp_core *c = &t->core[p->core];
	json_object *o = json_object_new_object(), *sib;
	int s;

	sib = json_object_new_array();
	for (s = c->first_pu; s < c->first_pu + c->npus; s++)
		if (s != pu)
			json_object_array_add(sib,
			    json_object_new_int(t->pu[s].os_index));
	json_object_object_add(o, "os_index", json_object_new_int(p->os_index));
	json_object_object_add(o, "core", json_object_new_int(p->core));
	json_object_object_add(o, "cluster", json_object_new_int(p->cluster));
	json_object_object_add(o, "llc", json_object_new_int(p->llc));
	json_object_object_add(o, "node",
	    json_object_new_int(t->node_os[p->node]));
	json_object_object_add(o, "package", json_object_new_int(p->package));
	json_object_object_add(o, "siblings", sib);
	json_object_object_add(o, "priority", json_object_new_int(p->prio));
	return o;
}

static void
print_json(const struct vp_topo *t)
{
	json_object *root = json_object_new_object(), *pus;
	int pu;

	json_object_object_add(root, "packages",
	    json_object_new_int(t->npackages));
	json_object_object_add(root, "nodes", json_object_new_int(t->nnodes));
	json_object_object_add(root, "llcs", json_object_new_int(t->nllcs));
	json_object_object_add(root, "clusters",
	    json_object_new_int(t->nclusters));
	json_object_object_add(root, "cores", json_object_new_int(t->ncores));
	json_object_object_add(root, "pus", json_object_new_int(t->npus));
	json_object_object_add(root, "max_smt", json_object_new_int(t->max_smt));
	json_object_object_add(root, "priority_known",
	    json_object_new_boolean(t->prio_known));
	pus = json_object_new_array();
	for (pu = 0; pu < t->npus; pu++)
		json_object_array_add(pus, pu_json(t, pu));
	json_object_object_add(root, "pu", pus);
	puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY));
	json_object_put(root);
}

static void
print_core(const struct vp_topo *t, int c)
{
	const struct vp_core *core = &t->core[c];
	char list[256];
	struct vp_cpuset s;

	cpuset_zero(&s);
	cpuset_set_range(&s, core->first_pu, core->npus);
	if (cpulist_format(t, &s, list, sizeof(list)) < 0)
		list[0] = '\0';
	printf("      core %-4d node %-3u prio %-5u PUs %s\n", c,
	    t->node_os[t->pu[core->first_pu].node],
	    t->pu[core->first_pu].prio, list);
}

static void
print_table(const struct vp_topo *t)
{
	int pkg = -1, l, cl, c;

	printf("%d packages, %d NUMA nodes, %d LLCs, %d clusters, %d cores, "
	    "%d PUs, SMT up to %d, priorities %s\n", t->npackages, t->nnodes,
	    t->nllcs, t->nclusters, t->ncores, t->npus, t->max_smt,
	    t->prio_known ? "known" : "unknown (all equal)");
	for (l = 0; l < t->nllcs; l++) {
		const struct vp_llc *llc = &t->llc[l];

		if (llc->package != pkg)
			printf("package %d\n", pkg = llc->package);
		if (llc->cache_level)
			printf("  llc %d: L%d, %d PUs\n", l, llc->cache_level,
			    llc->npus);
		else
			printf("  llc %d: no cache, %d PUs\n", l, llc->npus);
		for (cl = llc->first_cluster;
		    cl < llc->first_cluster + llc->nclusters; cl++) {
			const struct vp_cluster *clu = &t->cluster[cl];

			printf("    cluster %d: %d cores\n", cl, clu->ncores);
			for (c = clu->first_core;
			    c < clu->first_core + clu->ncores; c++)
				print_core(t, c);
		}
	}
}

int
ctl_topology(const struct ctl_opts *o, int argc, char **argv)
{
	_cleanup_topo_ struct vp_topo *t = NULL;

	(void)argc;
	(void)argv;
	if (ctl_load_topo(o->topology, &t) < 0)
		return 1;
	if (o->json)
		print_json(t);
	else
		print_table(t);
	return 0;
}
