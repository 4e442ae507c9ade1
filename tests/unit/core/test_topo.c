/*
 * test_topo.c - topo.c through hwtopo.c: every real topology against
 * hwloc-calc run at test time, the structural invariants of the dense
 * model, holes, priorities, synthetic shapes and topo_build() errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "host/hwtopo.h"
#include "../suites.h"
#include "../testutil.h"

/*
 * What SOURCES.md says beyond plain hwloc counts.  nclusters 0: one
 * cluster per core (private L2).  hi: OS CPUs of the faster cpukind on
 * the hybrid machines, NULL when every core is the same.
 */
static const struct expect {
	const char *file;
	int nclusters;
	int smt_max;
	int smt_min;
	const char *hi;
	bool capacity;	/* a uniform cpukind with LinuxCapacity */
} expects[] = {
	{ "128arm-2pa2n8cluster4co.xml", 32, 1, 1, NULL, true },
	{ "AMD-1Ah-Zen5StrixPoint-RyzenAI9HX370.xml", 0, 2, 2,
	    "0-3,12-15", false },
	{ "Intel-RaptorLake-Corei7-1370P.xml", 8, 2, 1, "0-11", false },
	{ "coral-lassen.xml", 20, 4, 4, NULL, false },
	{ "epyc-corona.xml", 0, 2, 2, NULL, false },
	{ "g4dnmetal.xml", 0, 2, 2, NULL, false },
	{ "knl-snc4-flat-hwloc1.xml", 34, 4, 4, NULL, false },
	{ "memorysidecaches.xml", 0, 2, 2, NULL, false },
	{ "nvidia-dgx-gb10.xml", 0, 1, 1, "5-9,15-19", false },
};

static const struct expect *expect_of(const char *file)
{
	unsigned int i;

	for (i = 0; i < sizeof(expects) / sizeof(expects[0]); i++)
		if (strcmp(expects[i].file, file) == 0)
			return &expects[i];
	ck_abort_msg("no expectations for %s", file);
	return NULL;
}

START_TEST(test_topo_files_listed)
{
	/* every file in the directory is in test_topo_files[] */
	char *out = hwloc_calc(test_topo_files[0], "--number-of pu all");
	char *dir = topo_path(""), *cmd;
	FILE *f;
	char line[256];
	int n = 0, i;

	free(out);
	ck_assert_int_ge(asprintf(&cmd, "ls '%s' | grep '\\.xml$'", dir), 0);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		bool found = false;

		line[strcspn(line, "\n")] = '\0';
		for (i = 0; i < test_ntopo; i++)
			found |= strcmp(line, test_topo_files[i]) == 0;
		ck_assert_msg(found, "%s not in test_topo_files", line);
		n++;
	}
	pclose(f);
	ck_assert_int_eq(n, test_ntopo);
	free(cmd);
	free(dir);
}
END_TEST

/* Counts against hwloc-calc on the very same file. */
START_TEST(test_topo_counts)
{
	const char *file = test_topo_files[_i];
	const struct expect *e = expect_of(file);
	_cleanup_topo_ struct vp_topo *t = load_topo(file);
	int l3 = hwloc_count(file, "l3cache");
	int l2 = l3 > 0 ? 0 : hwloc_count(file, "l2cache");
	int ncores = hwloc_count(file, "core");
	int l;

	ck_assert_int_eq(t->npackages, hwloc_count(file, "package"));
	ck_assert_int_eq(t->nnodes, hwloc_count(file, "numanode"));
	ck_assert_int_eq(t->ncores, ncores);
	ck_assert_int_eq(t->npus, hwloc_count(file, "pu"));
	ck_assert_int_gt(t->npus, 0);
	ck_assert_int_eq(t->nllcs, l3 > 0 ? l3 : l2);
	for (l = 0; l < t->nllcs; l++)
		ck_assert_int_eq(t->llc[l].cache_level, l3 > 0 ? 3 : 2);
	ck_assert_int_eq(t->nclusters, e->nclusters ? e->nclusters : ncores);
	ck_assert_int_eq(t->max_smt, e->smt_max);
	ck_assert_int_eq(cpuset_count(&t->all), t->npus);
	ck_assert_int_eq(cpuset_count_range(&t->all, 0, t->npus), t->npus);
}
END_TEST

/* Dense order: contiguous cores, clusters, LLCs, properly nested. */
START_TEST(test_topo_structure)
{
	const char *file = test_topo_files[_i];
	const struct expect *e = expect_of(file);
	_cleanup_topo_ struct vp_topo *t = load_topo(file);
	int p, c, k, l, min_smt = VP_MAX_SMT, next;

	next = 0;
	for (c = 0; c < t->ncores; c++) {
		const struct vp_core *co = &t->core[c];

		ck_assert_int_eq(co->first_pu, next);
		ck_assert_int_ge(co->npus, 1);
		ck_assert_int_le(co->npus, VP_MAX_SMT);
		ck_assert_int_le(co->npus, t->max_smt);
		if (co->npus < min_smt)
			min_smt = co->npus;
		next += co->npus;
		for (p = co->first_pu; p < co->first_pu + co->npus; p++) {
			ck_assert_int_eq(t->pu[p].core, c);
			ck_assert_int_eq(t->pu[p].cluster, co->cluster);
			ck_assert_int_eq(t->pu[p].llc, co->llc);
			ck_assert_int_eq(t->pu[p].prio,
			    t->pu[co->first_pu].prio);
			ck_assert_int_eq(t->pu[p].package,
			    t->pu[co->first_pu].package);
			if (p > co->first_pu)
				ck_assert_uint_gt(t->pu[p].os_index,
				    t->pu[p - 1].os_index);
		}
	}
	ck_assert_int_eq(next, t->npus);
	ck_assert_int_eq(min_smt, e->smt_min);

	next = 0;
	for (k = 0; k < t->nclusters; k++) {
		const struct vp_cluster *cl = &t->cluster[k];
		int npus = 0;

		ck_assert_int_eq(cl->first_pu, next);
		ck_assert_int_ge(cl->ncores, 1);
		ck_assert_int_eq(t->core[cl->first_core].first_pu,
		    cl->first_pu);
		for (c = cl->first_core; c < cl->first_core + cl->ncores; c++) {
			ck_assert_int_eq(t->core[c].cluster, k);
			ck_assert_int_eq(t->core[c].llc, cl->llc);
			npus += t->core[c].npus;
		}
		ck_assert_int_eq(npus, cl->npus);
		next += cl->npus;
	}
	ck_assert_int_eq(next, t->npus);

	next = 0;
	for (l = 0; l < t->nllcs; l++) {
		const struct vp_llc *ll = &t->llc[l];
		int ncores = 0, npus = 0;
		unsigned int maxp = 0;

		ck_assert_int_eq(ll->first_pu, next);
		ck_assert_int_ge(ll->nclusters, 1);
		ck_assert_int_eq(t->cluster[ll->first_cluster].first_pu,
		    ll->first_pu);
		ck_assert_int_eq(t->cluster[ll->first_cluster].first_core,
		    ll->first_core);
		for (k = ll->first_cluster;
		    k < ll->first_cluster + ll->nclusters; k++) {
			ck_assert_int_eq(t->cluster[k].llc, l);
			ncores += t->cluster[k].ncores;
			npus += t->cluster[k].npus;
		}
		ck_assert_int_eq(ncores, ll->ncores);
		ck_assert_int_eq(npus, ll->npus);
		ck_assert_ptr_nonnull(ll->os_order);
		for (p = ll->first_pu; p < ll->first_pu + ll->npus; p++) {
			int pos = t->pu_os_pos[p];

			ck_assert_int_eq(t->pu[p].llc, l);
			ck_assert_int_eq(t->pu[p].package, ll->package);
			ck_assert_int_ge(pos, 0);
			ck_assert_int_lt(pos, ll->npus);
			ck_assert_int_eq(ll->os_order[pos], p);
			if (t->pu[p].prio > maxp)
				maxp = t->pu[p].prio;
		}
		for (k = 1; k < ll->npus; k++)
			ck_assert_uint_gt(t->pu[ll->os_order[k]].os_index,
			    t->pu[ll->os_order[k - 1]].os_index);
		ck_assert_uint_eq(ll->max_prio, maxp);
		if (l > 0)
			ck_assert_int_ge(ll->package, t->llc[l - 1].package);
		next += ll->npus;
	}
	ck_assert_int_eq(next, t->npus);

	for (p = 0; p < t->npus; p++) {
		ck_assert_int_ge(t->pu[p].node, 0);
		ck_assert_int_lt(t->pu[p].node, t->nnodes);
		ck_assert_int_ge(t->pu[p].package, 0);
		ck_assert_int_lt(t->pu[p].package, t->npackages);
		ck_assert_uint_ge(t->pu[p].prio, 1);
		ck_assert_uint_le(t->pu[p].prio, 1024);
		if (p > 0)
			ck_assert_int_ge(t->pu[p].package,
			    t->pu[p - 1].package);
	}
}
END_TEST

/* OS numbers: hwloc's PU list, os_limit, os_to_pu both ways. */
START_TEST(test_topo_os_map)
{
	const char *file = test_topo_files[_i];
	_cleanup_topo_ struct vp_topo *t = load_topo(file);
	char *list = hwloc_calc(file, "--po -I pu all");
	struct vp_cpuset s;
	unsigned int os, max = 0;
	char *tok, *save = NULL, *dup = strdup(list);
	int p;

	ck_assert_int_eq(cpulist_parse(t, list, &s), 0);
	ck_assert(cpuset_equal(&s, &t->all));
	for (tok = strtok_r(dup, ",", &save); tok;
	    tok = strtok_r(NULL, ",", &save))
		if ((unsigned int)atoi(tok) > max)
			max = (unsigned int)atoi(tok);
	ck_assert_uint_eq(t->os_limit, max + 1);
	for (p = 0; p < t->npus; p++) {
		ck_assert_uint_lt(t->pu[p].os_index, t->os_limit);
		ck_assert_int_eq(topo_pu_of_os(t, t->pu[p].os_index), p);
		ck_assert_int_eq(t->os_to_pu[t->pu[p].os_index], p);
	}
	for (os = 0; os < t->os_limit; os++) {
		p = topo_pu_of_os(t, os);
		ck_assert_int_eq(t->os_to_pu[os], p);
		if (p != VP_PU_NONE)
			ck_assert_uint_eq(t->pu[p].os_index, os);
	}
	ck_assert_int_eq(topo_pu_of_os(t, t->os_limit), VP_PU_NONE);
	ck_assert_int_eq(topo_pu_of_os(t, 65535), VP_PU_NONE);
	ck_assert_int_eq(topo_pu_of_os(t, ~0U), VP_PU_NONE);
	free(dup);
	free(list);
}
END_TEST

/*
 * hwloc's own PU set of @type:@idx (OS numbers in @list) matches
 * topo_add_*() of its first PU.  Returns that first PU.
 */
static int check_set(const struct vp_topo *t, const char *file,
    const char *what, const char *list,
    void (*add)(const struct vp_topo *, int, struct vp_cpuset *))
{
	struct vp_cpuset want, got;
	int pu;

	ck_assert_msg(*list, "%s %s: hwloc-calc lists no PU", file, what);
	ck_assert_int_eq(cpulist_parse(t, list, &want), 0);
	pu = cpuset_first(&want);
	cpuset_zero(&got);
	add(t, pu, &got);
	ck_assert_msg(cpuset_equal(&want, &got), "%s %s differs", file, what);
	/* adding is an OR: a second add changes nothing */
	add(t, cpuset_next(&want, pu + 1, t->npus) == VP_PU_NONE ? pu :
	    cpuset_next(&want, pu + 1, t->npus), &got);
	ck_assert(cpuset_equal(&want, &got));
	return pu;
}

static void check_object(const struct vp_topo *t, const char *file,
    const char *type, int idx,
    void (*add)(const struct vp_topo *, int, struct vp_cpuset *))
{
	char args[64], *list;

	snprintf(args, sizeof(args), "--po -I pu %s:%d", type, idx);
	list = hwloc_calc(file, args);
	check_set(t, file, args, list, add);
	free(list);
}

/*
 * Packages, LLCs and cores against hwloc's PU sets.  NUMA nodes too:
 * node_os lists every hwloc node (memory-only ones included), and each
 * PU's node is one whose hwloc PU set holds it (KNL's MCDRAM nodes
 * share their PUs with a DDR node).
 */
START_TEST(test_topo_objects_vs_hwloc)
{
	const char *file = test_topo_files[_i];
	_cleanup_topo_ struct vp_topo *t = load_topo(file);
	bool l3 = hwloc_count(file, "l3cache") > 0;
	const char *llc = l3 ? "l3cache" : "l2cache";
	char *nodes = hwloc_calc(file, "--po -I numanode all");
	char *tok, *save = NULL;
	struct vp_cpuset ok, seen;
	int i, p;

	for (i = 0; i < t->npackages; i++)
		check_object(t, file, "package", i, topo_add_package);
	check_object(t, file, llc, 0, topo_add_llc);
	if (t->nllcs > 2)
		check_object(t, file, llc, t->nllcs / 2, topo_add_llc);
	if (t->nllcs > 1)
		check_object(t, file, llc, t->nllcs - 1, topo_add_llc);
	check_object(t, file, "core", 0, topo_add_core);
	check_object(t, file, "core", t->ncores - 1, topo_add_core);

	/* hwloc-calc lists the nodes in logical order */
	cpuset_zero(&ok);
	cpuset_zero(&seen);
	for (i = 0; i < t->nnodes; i++) {
		ck_assert_uint_lt(t->node_os[i], VP_MAX_PUS);
		ck_assert(!cpuset_test(&seen, (int)t->node_os[i]));
		cpuset_set(&seen, (int)t->node_os[i]);
	}
	for (i = 0, tok = strtok_r(nodes, ",", &save); tok;
	    i++, tok = strtok_r(NULL, ",", &save)) {
		unsigned int os = (unsigned int)atoi(tok);
		struct vp_cpuset pus;
		char args[64], *list;

		ck_assert_msg(cpuset_test(&seen, (int)os),
		    "%s: node %u missing", file, os);
		cpuset_clear(&seen, (int)os);
		snprintf(args, sizeof(args), "--po -I pu numanode:%d", i);
		list = hwloc_calc(file, args);
		if (*list) {
			ck_assert_int_eq(cpulist_parse(t, list, &pus), 0);
			cpuset_for_each(p, &pus, t->npus)
				if (t->node_os[t->pu[p].node] == os)
					cpuset_set(&ok, p);
		}
		free(list);
	}
	ck_assert_msg(cpuset_empty(&seen), "%s: extra nodes", file);
	ck_assert_int_eq(i, t->nnodes);
	ck_assert_msg(cpuset_equal(&ok, &t->all), "%s: PU nodes", file);
	/* a node's PUs are the PUs whose node it is */
	for (p = 0; p < t->npus; p += t->npus / 4 + 1) {
		struct vp_cpuset s;
		int q;

		cpuset_zero(&s);
		topo_add_node(t, p, &s);
		for (q = 0; q < t->npus; q++)
			ck_assert(cpuset_test(&s, q) ==
			    (t->pu[q].node == t->pu[p].node));
	}
	free(nodes);
}
END_TEST

/* Clusters and LLCs are unions of whole cores; add_* match ranges. */
START_TEST(test_topo_add_ranges)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(test_topo_files[_i]);
	int p;

	for (p = 0; p < t->npus; p++) {
		const struct vp_pu *u = &t->pu[p];
		struct vp_cpuset s, r;

		cpuset_zero(&s);
		topo_add_core(t, p, &s);
		cpuset_zero(&r);
		cpuset_set_range(&r, t->core[u->core].first_pu,
		    t->core[u->core].npus);
		ck_assert(cpuset_equal(&s, &r));
		cpuset_zero(&s);
		topo_add_cluster(t, p, &s);
		cpuset_zero(&r);
		cpuset_set_range(&r, t->cluster[u->cluster].first_pu,
		    t->cluster[u->cluster].npus);
		ck_assert(cpuset_equal(&s, &r));
		cpuset_zero(&s);
		topo_add_llc(t, p, &s);
		cpuset_zero(&r);
		cpuset_set_range(&r, t->llc[u->llc].first_pu,
		    t->llc[u->llc].npus);
		ck_assert(cpuset_equal(&s, &r));
	}
}
END_TEST

/* Priorities: hybrid kinds ordered, uniform machines equal. */
START_TEST(test_topo_prio)
{
	const char *file = test_topo_files[_i];
	const struct expect *e = expect_of(file);
	_cleanup_topo_ struct vp_topo *t = load_topo(file);
	struct vp_cpuset hi;
	unsigned int phi, plo;
	int p;

	if (!e->hi) {
		/*
		 * Every PU the same priority.  prio_known stays false
		 * unless hwloc gave a value (Kunpeng's uniform
		 * LinuxCapacity), see struct vp_topo.
		 */
		for (p = 0; p < t->npus; p++)
			ck_assert_uint_eq(t->pu[p].prio, t->pu[0].prio);
		ck_assert_msg(t->prio_known == e->capacity,
		    "%s: uniform, prio_known %d", file, t->prio_known);
		return;
	}
	ck_assert(t->prio_known);
	ck_assert_int_eq(cpulist_parse(t, e->hi, &hi), 0);
	phi = t->pu[cpuset_first(&hi)].prio;
	plo = 0;
	for (p = 0; p < t->npus; p++) {
		if (cpuset_test(&hi, p)) {
			ck_assert_uint_eq(t->pu[p].prio, phi);
		} else {
			if (!plo)
				plo = t->pu[p].prio;
			ck_assert_uint_eq(t->pu[p].prio, plo);
		}
	}
	ck_assert_msg(phi > plo, "%s: fast %u slow %u", file, phi, plo);
}
END_TEST

START_TEST(test_topo_coral_holes)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("coral-lassen.xml");
	unsigned int os;

	for (os = 0; os < 8; os++)
		ck_assert_int_eq(topo_pu_of_os(t, os), VP_PU_NONE);
	for (os = 88; os < 96; os++)
		ck_assert_int_eq(topo_pu_of_os(t, os), VP_PU_NONE);
	ck_assert_int_ne(topo_pu_of_os(t, 8), VP_PU_NONE);
	ck_assert_int_ne(topo_pu_of_os(t, 87), VP_PU_NONE);
	ck_assert_int_ne(topo_pu_of_os(t, 96), VP_PU_NONE);
	ck_assert_int_eq(t->os_limit, 176);
	/* L2 and L3 shared by pairs of SMT4 cores: cluster == LLC */
	ck_assert_int_eq(t->nllcs, 20);
	for (os = 0; os < 20; os++) {
		ck_assert_int_eq(t->cluster[os].ncores, 2);
		ck_assert_int_eq(t->cluster[os].npus, 8);
		ck_assert_int_eq(t->llc[os].nclusters, 1);
	}
}
END_TEST

/* KNL: hwloc 1.x XML, no L3, clusters are the 2-core L2 tiles. */
START_TEST(test_topo_knl)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_topo("knl-snc4-flat-hwloc1.xml");
	int k;

	ck_assert_int_eq(t->nllcs, 34);
	for (k = 0; k < t->nllcs; k++) {
		ck_assert_int_eq(t->llc[k].cache_level, 2);
		ck_assert_int_eq(t->llc[k].ncores, 2);
		ck_assert_int_eq(t->llc[k].nclusters, 1);
	}
	for (k = 0; k < t->nclusters; k++)
		ck_assert_int_eq(t->cluster[k].npus, 8);
	/* core 0 = P#0,68,136,204 */
	k = os2pu(t, 0);
	ck_assert_int_eq(t->pu[os2pu(t, 68)].core, t->pu[k].core);
	ck_assert_int_eq(t->pu[os2pu(t, 136)].core, t->pu[k].core);
	ck_assert_int_eq(t->pu[os2pu(t, 204)].core, t->pu[k].core);
	ck_assert_int_ne(t->pu[os2pu(t, 1)].core, t->pu[k].core);
}
END_TEST

/* Kunpeng 920: 4 L3, each with 8 clusters of 4 cores. */
START_TEST(test_topo_arm_clusters)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_topo("128arm-2pa2n8cluster4co.xml");
	int k;

	ck_assert_int_eq(t->nllcs, 4);
	for (k = 0; k < t->nllcs; k++)
		ck_assert_int_eq(t->llc[k].nclusters, 8);
	for (k = 0; k < t->nclusters; k++) {
		ck_assert_int_eq(t->cluster[k].ncores, 4);
		ck_assert_int_eq(t->cluster[k].npus, 4);
	}
}
END_TEST

/* RaptorLake: 6 P-cores of 2 PUs, 2 E-core modules of 4 cores. */
START_TEST(test_topo_raptorlake)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_topo("Intel-RaptorLake-Corei7-1370P.xml");
	unsigned int os;
	int k, p, big = 0, small = 0;

	ck_assert_int_eq(t->nllcs, 1);
	for (k = 0; k < t->nclusters; k++) {
		if (t->cluster[k].ncores == 1 && t->cluster[k].npus == 2)
			small++;
		if (t->cluster[k].ncores == 4 && t->cluster[k].npus == 4)
			big++;
	}
	ck_assert_int_eq(small, 6);
	ck_assert_int_eq(big, 2);
	for (os = 0; os < 12; os += 2) {
		p = os2pu(t, os);
		ck_assert_int_eq(t->pu[os2pu(t, os + 1)].core, t->pu[p].core);
		ck_assert_int_eq(t->core[t->pu[p].core].npus, 2);
	}
	for (os = 12; os < 20; os++)
		ck_assert_int_eq(t->core[t->pu[os2pu(t, os)].core].npus, 1);
	ck_assert_int_eq(t->pu[os2pu(t, 12)].cluster,
	    t->pu[os2pu(t, 15)].cluster);
	ck_assert_int_eq(t->pu[os2pu(t, 16)].cluster,
	    t->pu[os2pu(t, 19)].cluster);
	ck_assert_int_ne(t->pu[os2pu(t, 15)].cluster,
	    t->pu[os2pu(t, 16)].cluster);
}
END_TEST

START_TEST(test_topo_synthetic_smt8)
{
	_cleanup_topo_ struct vp_topo *t = load_synth("pack:1 core:4 pu:8");
	int c;

	ck_assert_int_eq(t->npus, 32);
	ck_assert_int_eq(t->ncores, 4);
	ck_assert_int_eq(t->max_smt, 8);
	for (c = 0; c < 4; c++)
		ck_assert_int_eq(t->core[c].npus, 8);
	ck_assert_int_eq(t->nllcs, 4);	/* no cache: each core its own */
	for (c = 0; c < t->nllcs; c++)
		ck_assert_int_eq(t->llc[c].cache_level, 0);
}
END_TEST

START_TEST(test_topo_synthetic_capacity)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_synth("pack:4 l3:2 core:256 pu:2");
	_cleanup_topo_ struct vp_topo *u =
	    load_synth("pack:4 l3:2 core:128 pu:8");
	struct vp_topo *v = (struct vp_topo *)&v;

	ck_assert_int_eq(t->npus, 4096);
	ck_assert_int_eq(t->ncores, 2048);
	ck_assert_int_eq(t->nllcs, 8);
	ck_assert_int_eq(t->npackages, 4);
	ck_assert_int_eq(t->llc[7].first_pu + t->llc[7].npus, 4096);
	ck_assert_int_eq(u->npus, VP_MAX_PUS);
	ck_assert(cpuset_test(&u->all, VP_MAX_PUS - 1));
	ck_assert_int_eq(u->max_smt, 8);
	ck_assert_int_eq(hwtopo_load_synthetic("pack:4 l3:2 core:513 pu:2",
	    &v), -E2BIG);
	ck_assert_ptr_eq(v, (struct vp_topo *)&v);
}
END_TEST

START_TEST(test_topo_load_errors)
{
	struct vp_topo *t = (struct vp_topo *)&t;
	char tmpl[] = "/tmp/vp-test-XXXXXX";
	const char junk[] = "<?xml version=\"1.0\"?>\n<this is not hwloc";
	int fd;

	ck_assert_int_eq(hwtopo_load_xml("/nonexistent/vp/none.xml", &t,
	    NULL, 0),
	    -ENOENT);
	ck_assert_ptr_eq(t, (struct vp_topo *)&t);
	fd = mkstemp(tmpl);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, junk, sizeof(junk) - 1),
	    (ssize_t)sizeof(junk) - 1);
	close(fd);
	ck_assert_int_eq(hwtopo_load_xml(tmpl, &t, NULL, 0), -EINVAL);
	ck_assert_ptr_eq(t, (struct vp_topo *)&t);
	unlink(tmpl);
	ck_assert_int_eq(hwtopo_load_synthetic("pack:x core:", &t),
	    -EINVAL);
	ck_assert_ptr_eq(t, (struct vp_topo *)&t);
}
END_TEST

/* topo_build() directly, with descriptions in shuffled order. */
static void desc(struct vp_pu_desc *d, unsigned int os, unsigned long pkg,
    unsigned long llc, unsigned long core, unsigned int prio)
{
	memset(d, 0, sizeof(*d));
	d->os_index = os;
	d->package_key = pkg;
	d->llc_key = llc;
	d->cluster_key = core;
	d->core_key = core;
	d->node_os = (unsigned int)pkg;
	d->prio = prio;
	d->llc_cache_level = 3;
}

START_TEST(test_topo_build_order)
{
	struct vp_pu_desc d[8];
	struct vp_topo *t = NULL;
	int p;

	/* 2 packages x 1 LLC x 2 cores x 2 PUs; siblings at OS +4 */
	desc(&d[0], 7, 2, 20, 204, 0);
	desc(&d[1], 0, 1, 10, 100, 0);
	desc(&d[2], 5, 1, 10, 101, 0);
	desc(&d[3], 2, 2, 20, 203, 0);
	desc(&d[4], 4, 1, 10, 100, 0);
	desc(&d[5], 1, 1, 10, 101, 0);
	desc(&d[6], 6, 2, 20, 203, 0);
	desc(&d[7], 3, 2, 20, 204, 0);
	ck_assert_int_eq(topo_build(d, 8, &t), 0);
	ck_assert_int_eq(t->npus, 8);
	ck_assert_int_eq(t->ncores, 4);
	ck_assert_int_eq(t->nclusters, 4);
	ck_assert_int_eq(t->nllcs, 2);
	ck_assert_int_eq(t->npackages, 2);
	ck_assert_int_eq(t->nnodes, 2);
	ck_assert_int_eq(t->max_smt, 2);
	ck_assert_uint_eq(t->os_limit, 8);
	{
		static const unsigned int os[8] = { 0, 4, 1, 5, 2, 6, 3, 7 };

		for (p = 0; p < 8; p++) {
			ck_assert_uint_eq(t->pu[p].os_index, os[p]);
			ck_assert_int_eq(t->pu[p].core, p / 2);
			ck_assert_int_eq(t->pu[p].llc, p / 4);
			ck_assert_int_eq(t->pu[p].package, p / 4);
		}
	}
	/* LLC 0 in OS order: 0, 1, 4, 5 = dense 0, 2, 1, 3 */
	ck_assert_int_eq(t->llc[0].os_order[0], 0);
	ck_assert_int_eq(t->llc[0].os_order[1], 2);
	ck_assert_int_eq(t->llc[0].os_order[2], 1);
	ck_assert_int_eq(t->llc[0].os_order[3], 3);
	ck_assert_int_eq(t->pu_os_pos[1], 2);
	ck_assert(!t->prio_known);
	for (p = 0; p < 8; p++)
		ck_assert_uint_eq(t->pu[p].prio, t->pu[0].prio);
	ck_assert_uint_eq(t->node_os[t->pu[0].node], 1);
	ck_assert_uint_eq(t->node_os[t->pu[7].node], 2);
	topo_free(t);
}
END_TEST

START_TEST(test_topo_build_prio)
{
	struct vp_pu_desc d[4];
	struct vp_topo *t = NULL;

	desc(&d[0], 0, 1, 10, 100, 1024);
	desc(&d[1], 1, 1, 10, 100, 1024);
	desc(&d[2], 2, 1, 10, 101, 512);
	desc(&d[3], 3, 1, 11, 102, 300);
	ck_assert_int_eq(topo_build(d, 4, &t), 0);
	ck_assert(t->prio_known);
	ck_assert_uint_gt(t->pu[0].prio, t->pu[2].prio);
	ck_assert_uint_gt(t->pu[2].prio, t->pu[3].prio);
	ck_assert_uint_eq(t->llc[0].max_prio, t->pu[0].prio);
	ck_assert_uint_eq(t->llc[1].max_prio, t->pu[3].prio);
	topo_free(t);
	topo_free(NULL);
}
END_TEST

START_TEST(test_topo_build_errors)
{
	struct vp_topo *t = (struct vp_topo *)&t;
	struct vp_pu_desc d[VP_MAX_SMT + 1], *big;
	int i;

	desc(&d[0], 0, 1, 10, 100, 0);
	ck_assert_int_eq(topo_build(d, 0, &t), -EINVAL);
	ck_assert_int_eq(topo_build(d, -1, &t), -EINVAL);
	ck_assert_ptr_eq(t, (struct vp_topo *)&t);

	/* duplicate OS index */
	desc(&d[1], 0, 1, 10, 101, 0);
	ck_assert_int_eq(topo_build(d, 2, &t), -EINVAL);
	ck_assert_ptr_eq(t, (struct vp_topo *)&t);

	/* VP_MAX_SMT + 1 PUs in one core */
	for (i = 0; i <= VP_MAX_SMT; i++)
		desc(&d[i], (unsigned int)i, 1, 10, 100, 0);
	ck_assert_int_eq(topo_build(d, VP_MAX_SMT, &t), 0);
	ck_assert_int_eq(t->max_smt, VP_MAX_SMT);
	topo_free(t);
	t = (struct vp_topo *)&t;
	ck_assert_int_eq(topo_build(d, VP_MAX_SMT + 1, &t), -EINVAL);
	ck_assert_ptr_eq(t, (struct vp_topo *)&t);

	/* one core key in two LLCs: keys do not nest */
	desc(&d[0], 0, 1, 10, 100, 0);
	desc(&d[1], 1, 1, 11, 100, 0);
	ck_assert_int_eq(topo_build(d, 2, &t), -EINVAL);
	ck_assert_ptr_eq(t, (struct vp_topo *)&t);
	/* one LLC key in two packages */
	desc(&d[0], 0, 1, 10, 100, 0);
	desc(&d[1], 1, 2, 10, 101, 0);
	ck_assert_int_eq(topo_build(d, 2, &t), -EINVAL);
	ck_assert_ptr_eq(t, (struct vp_topo *)&t);

	/* more than VP_MAX_PUS PUs */
	big = calloc(VP_MAX_PUS + 1, sizeof(*big));
	ck_assert_ptr_nonnull(big);
	for (i = 0; i <= VP_MAX_PUS; i++)
		desc(&big[i], (unsigned int)i, 1, 10, (unsigned long)i, 0);
	ck_assert_int_eq(topo_build(big, VP_MAX_PUS + 1, &t), -EINVAL);
	ck_assert_ptr_eq(t, (struct vp_topo *)&t);
	free(big);
}
END_TEST

/* Memory-only nodes join the list; a PU's node may not be dropped. */
START_TEST(test_topo_set_nodes)
{
	struct vp_pu_desc d[4];
	struct vp_topo *t = NULL;
	static const unsigned int more[] = { 9, 2, 1, 8 };
	static const unsigned int less[] = { 1, 9 };
	int p;

	desc(&d[0], 0, 1, 10, 100, 0);
	desc(&d[1], 1, 1, 10, 101, 0);
	desc(&d[2], 2, 2, 20, 200, 0);
	desc(&d[3], 3, 2, 20, 201, 0);
	ck_assert_int_eq(topo_build(d, 4, &t), 0);
	ck_assert_int_eq(t->nnodes, 2);
	ck_assert_int_eq(topo_set_nodes(t, less, 2), -EINVAL);
	ck_assert_int_eq(t->nnodes, 2);
	ck_assert_uint_eq(t->node_os[t->pu[0].node], 1);
	ck_assert_uint_eq(t->node_os[t->pu[3].node], 2);
	ck_assert_int_eq(topo_set_nodes(t, more, 4), 0);
	ck_assert_int_eq(t->nnodes, 4);
	for (p = 0; p < 4; p++) {
		ck_assert_int_ge(t->pu[p].node, 0);
		ck_assert_int_lt(t->pu[p].node, 4);
		ck_assert_uint_eq(t->node_os[t->pu[p].node], p < 2 ? 1 : 2);
	}
	topo_free(t);
}
END_TEST

Suite *topo_suite(void)
{
	Suite *s = suite_create("topo");
	TCase *tc = tcase_create("files");
	TCase *tb = tcase_create("build");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_topo_files_listed);
	tcase_add_loop_test(tc, test_topo_counts, 0, test_ntopo);
	tcase_add_loop_test(tc, test_topo_structure, 0, test_ntopo);
	tcase_add_loop_test(tc, test_topo_os_map, 0, test_ntopo);
	tcase_add_loop_test(tc, test_topo_objects_vs_hwloc, 0, test_ntopo);
	tcase_add_loop_test(tc, test_topo_add_ranges, 0, test_ntopo);
	tcase_add_loop_test(tc, test_topo_prio, 0, test_ntopo);
	tcase_add_test(tc, test_topo_coral_holes);
	tcase_add_test(tc, test_topo_knl);
	tcase_add_test(tc, test_topo_arm_clusters);
	tcase_add_test(tc, test_topo_raptorlake);
	suite_add_tcase(s, tc);

	tcase_set_timeout(tb, 30);
	tcase_add_test(tb, test_topo_synthetic_smt8);
	tcase_add_test(tb, test_topo_synthetic_capacity);
	tcase_add_test(tb, test_topo_load_errors);
	tcase_add_test(tb, test_topo_build_order);
	tcase_add_test(tb, test_topo_build_prio);
	tcase_add_test(tb, test_topo_build_errors);
	tcase_add_test(tb, test_topo_set_nodes);
	suite_add_tcase(s, tb);
	return s;
}
