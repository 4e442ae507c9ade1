/*
 * test_plan.c - plan.c: homes and allowed sets for shared, dedicated
 * and isolated VMs on real topologies, locality, errors, determinism.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "../suites.h"
#include "../testutil.h"

static const char *const plan_files[] = { "g4dnmetal.xml",
	"epyc-corona.xml", "128arm-2pa2n8cluster4co.xml",
	"Intel-RaptorLake-Corei7-1370P.xml", "coral-lassen.xml",
	"knl-snc4-flat-hwloc1.xml", "nvidia-dgx-gb10.xml" };
#define NPLAN_FILES ((int)(sizeof(plan_files) / sizeof(plan_files[0])))

static struct vp_vm_spec vm(const char *name, int n, enum vp_mode mode,
    enum vp_smt smt, enum vp_locality loc)
{
	struct vp_vm_spec s;

	memset(&s, 0, sizeof(s));
	s.name = name;
	s.nvcpus = n;
	policy_default(&s.policy);
	s.policy.mode = mode;
	s.policy.smt = smt;
	s.policy.locality = loc;
	return s;
}

struct world {
	struct vp_features feat;
	struct vp_cpuset busy;
	struct vp_cpuset reserved;
	struct vp_plan_input in;
};

/* No host load; the core of the PU of the lowest OS number reserved. */
static void world_init(struct world *w, const struct vp_topo *t,
    const struct vp_vm_spec *vms, int nvms)
{
	unsigned int os = 0;

	memset(w, 0, sizeof(*w));
	features_default(&w->feat);
	cpuset_zero(&w->busy);
	cpuset_zero(&w->reserved);
	while (topo_pu_of_os(t, os) == VP_PU_NONE)
		os++;
	topo_add_core(t, topo_pu_of_os(t, os), &w->reserved);
	w->in.vms = vms;
	w->in.nvms = nvms;
	w->in.busy = &w->busy;
	w->in.reserved = &w->reserved;
	w->in.feat = &w->feat;
}

static struct vp_plan *compute(const struct vp_topo *t,
    const struct world *w)
{
	struct vp_plan *p = NULL;
	int r = plan_compute(t, &w->in, &p);

	ck_assert_msg(r == 0, "plan_compute = %d", r);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* Union of the allowed sets of VM @i's vCPUs. */
static void vm_allowed(const struct vp_plan *p, int i, struct vp_cpuset *s)
{
	int k;

	cpuset_zero(s);
	if (!p->vm[i].vcpu)
		return;
	for (k = 0; k < p->vm[i].nvcpus; k++)
		cpuset_or(s, s, &p->vm[i].vcpu[k].allowed);
}

/* The rules every plan obeys, whatever the VMs. */
static void check_plan(const struct vp_topo *t, const struct world *w,
    const struct vp_plan *p)
{
	struct vp_cpuset usable, dedicated;
	int i, k, j;

	cpuset_andnot(&usable, &t->all, &w->reserved);
	cpuset_zero(&dedicated);
	ck_assert_int_eq(p->nvms, w->in.nvms);
	ck_assert_ptr_nonnull(p->vm);
	ck_assert_msg(!cpuset_intersects(&p->shared_pool, &w->reserved),
	    "shared pool has reserved PUs");
	for (i = 0; i < p->nvms; i++) {
		const struct vp_vm_spec *s = &w->in.vms[i];
		const struct vp_vm_plan *v = &p->vm[i];

		if (s->policy.mode == VP_MODE_OFF) {
			ck_assert_ptr_null(v->vcpu);
			ck_assert_int_eq(v->error, 0);
			continue;
		}
		if (v->error) {
			/* no vCPU plans: vcpu is NULL on error */
			ck_assert_int_eq(v->error, -ENOSPC);
			ck_assert_msg(v->vcpu == NULL,
			    "vm %s: -ENOSPC but a vcpu array (home %d)",
			    s->name, v->vcpu ? v->vcpu[0].home : -1);
			continue;
		}
		ck_assert_int_eq(v->nvcpus, s->nvcpus);
		ck_assert_ptr_nonnull(v->vcpu);
		for (k = 0; k < v->nvcpus; k++) {
			const struct vp_vcpu_plan *c = &v->vcpu[k];
			struct vp_cpuset out;

			ck_assert_int_ne(c->home, VP_PU_NONE);
			ck_assert_int_ge(c->home, 0);
			ck_assert_int_lt(c->home, t->npus);
			ck_assert(!cpuset_empty(&c->allowed));
			ck_assert_msg(cpuset_test(&c->allowed, c->home),
			    "vm %s vcpu %d: home outside allowed", s->name, k);
			cpuset_andnot(&out, &c->allowed, &usable);
			ck_assert_msg(cpuset_empty(&out),
			    "vm %s vcpu %d: allowed has reserved PUs",
			    s->name, k);
			/* over budget: planned as a shared VM */
			if (v->over_budget ||
			    (s->policy.mode == VP_MODE_SHARED &&
			    s->policy.smt != VP_SMT_ISOLATE)) {
				cpuset_andnot(&out, &c->allowed,
				    &p->shared_pool);
				ck_assert_msg(cpuset_empty(&out),
				    "vm %s vcpu %d: outside the shared pool",
				    s->name, k);
			}
			if (s->policy.mode != VP_MODE_DEDICATED ||
			    v->over_budget)
				continue;
			ck_assert(c->reason == VP_REASON_DEDICATED ||
			    c->reason == VP_REASON_ISOLATED);
			ck_assert_msg(!cpuset_test(&dedicated, c->home),
			    "vm %s vcpu %d: home %d given twice", s->name, k,
			    c->home);
			cpuset_set(&dedicated, c->home);
			ck_assert(!cpuset_test(&p->shared_pool, c->home));
			/* no other VM may run there */
			for (j = 0; j < p->nvms; j++) {
				struct vp_cpuset a;

				if (j == i)
					continue;
				vm_allowed(p, j, &a);
				ck_assert_msg(!cpuset_test(&a, c->home),
				    "vm %s vcpu %d: home %d in %s's allowed",
				    s->name, k, c->home, w->in.vms[j].name);
			}
		}
	}
}

START_TEST(test_plan_shared)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(plan_files[_i]);
	struct vp_vm_spec vms[3];
	_cleanup_plan_ struct vp_plan *p = NULL;
	struct world w;
	int i;

	vms[0] = vm("a", 4, VP_MODE_SHARED, VP_SMT_PREFER_IDLE_CORE,
	    VP_LOC_LLC);
	vms[1] = vm("b", 4, VP_MODE_SHARED, VP_SMT_ANY, VP_LOC_ANY);
	vms[2] = vm("c", 2, VP_MODE_SHARED, VP_SMT_PREFER_IDLE_CORE,
	    VP_LOC_NUMA);
	world_init(&w, t, vms, 3);
	p = compute(t, &w);
	check_plan(t, &w, p);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(p->vm[i].error, 0);
}
END_TEST

START_TEST(test_plan_dedicated)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(plan_files[_i]);
	struct vp_vm_spec vms[4];
	_cleanup_plan_ struct vp_plan *p = NULL;
	struct world w;
	int i, k;

	vms[0] = vm("d1", 3, VP_MODE_DEDICATED, VP_SMT_PREFER_IDLE_CORE,
	    VP_LOC_LLC);
	vms[1] = vm("s1", 4, VP_MODE_SHARED, VP_SMT_PREFER_IDLE_CORE,
	    VP_LOC_LLC);
	vms[2] = vm("d2", 2, VP_MODE_DEDICATED, VP_SMT_ANY, VP_LOC_ANY);
	vms[3] = vm("s2", 2, VP_MODE_SHARED, VP_SMT_ANY, VP_LOC_ANY);
	world_init(&w, t, vms, 4);
	p = compute(t, &w);
	check_plan(t, &w, p);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(p->vm[i].error, 0);
	for (k = 0; k < 3; k++)
		ck_assert_int_eq(p->vm[0].vcpu[k].reason,
		    VP_REASON_DEDICATED);
}
END_TEST

/*
 * smt=isolate, shared (whole cores of the VM's own, ISOLATED) or
 * dedicated: no other VM may use any PU of the VM's cores.
 */
START_TEST(test_plan_isolate)
{
	static const char *const files[] = { "g4dnmetal.xml",
		"coral-lassen.xml", "Intel-RaptorLake-Corei7-1370P.xml",
		"knl-snc4-flat-hwloc1.xml" };
	_cleanup_topo_ struct vp_topo *t = load_topo(files[_i]);
	struct vp_vm_spec vms[4];
	_cleanup_plan_ struct vp_plan *p = NULL;
	struct world w;
	int i, j, pu;

	vms[0] = vm("s", 4, VP_MODE_SHARED, VP_SMT_PREFER_IDLE_CORE,
	    VP_LOC_ANY);
	vms[1] = vm("iso", 3, VP_MODE_SHARED, VP_SMT_ISOLATE, VP_LOC_ANY);
	vms[2] = vm("d", 3, VP_MODE_DEDICATED, VP_SMT_ANY, VP_LOC_ANY);
	vms[3] = vm("diso", 2, VP_MODE_DEDICATED, VP_SMT_ISOLATE,
	    VP_LOC_LLC);
	world_init(&w, t, vms, 4);
	p = compute(t, &w);
	check_plan(t, &w, p);
	for (i = 1; i < 4; i += 2) {
		struct vp_cpuset mine, cores;

		ck_assert_int_eq(p->vm[i].error, 0);
		vm_allowed(p, i, &mine);
		cpuset_zero(&cores);
		cpuset_for_each(pu, &mine, t->npus)
			topo_add_core(t, pu, &cores);
		for (j = 0; j < p->nvms; j++) {
			struct vp_cpuset a;

			if (j == i)
				continue;
			vm_allowed(p, j, &a);
			ck_assert_msg(!cpuset_intersects(&a, &cores),
			    "%s: %s shares a core with %s", files[_i],
			    vms[i].name, vms[j].name);
		}
		for (j = 0; j < p->vm[i].nvcpus && i == 1; j++)
			ck_assert_int_eq(p->vm[i].vcpu[j].reason,
			    VP_REASON_ISOLATED);
	}
}
END_TEST

START_TEST(test_plan_mode_off)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_vm_spec vms[3];
	_cleanup_plan_ struct vp_plan *p = NULL;
	struct world w;

	vms[0] = vm("off", 8, VP_MODE_OFF, VP_SMT_ANY, VP_LOC_ANY);
	vms[1] = vm("on", 2, VP_MODE_SHARED, VP_SMT_ANY, VP_LOC_ANY);
	vms[2] = vm("off2", 1, VP_MODE_OFF, VP_SMT_ISOLATE, VP_LOC_LLC);
	world_init(&w, t, vms, 3);
	p = compute(t, &w);
	check_plan(t, &w, p);
	ck_assert_ptr_null(p->vm[0].vcpu);
	ck_assert_ptr_null(p->vm[2].vcpu);
	ck_assert_ptr_nonnull(p->vm[1].vcpu);
}
END_TEST

/* The cores @s touches. */
static int cores_in(const struct vp_topo *t, const struct vp_cpuset *s)
{
	int pu, last = -1, n = 0;

	/* dense order keeps each core's PUs together */
	cpuset_for_each(pu, s, t->npus) {
		if (t->pu[pu].core != last)
			n++;
		last = t->pu[pu].core;
	}
	return n;
}

/* The domain of locality @loc around @pu, at its own level. */
static void locality_dom(const struct vp_topo *t, enum vp_locality loc,
    int pu, struct vp_cpuset *ret)
{
	cpuset_zero(ret);
	if (loc == VP_LOC_CLUSTER)
		topo_add_cluster(t, pu, ret);
	if (loc == VP_LOC_LLC)
		topo_add_llc(t, pu, ret);
	if (loc == VP_LOC_NUMA)
		topo_add_node(t, pu, ret);
}

/*
 * A VM of @n vCPUs: each allowed set stays inside its home's cluster, LLC
 * or node when that domain holds a core per vCPU and more than one core;
 * else it is wider than that domain and holds as many cores.  Returns
 * how many vCPUs had a widened set.
 */
static int check_locality(const char *file, enum vp_locality loc, int n)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(file);
	struct vp_vm_spec vms[1];
	_cleanup_plan_ struct vp_plan *p = NULL;
	struct world w;
	int k, widened = 0, need = n > 2 ? n : 2;

	vms[0] = vm("x", n, VP_MODE_SHARED, VP_SMT_PREFER_IDLE_CORE, loc);
	world_init(&w, t, vms, 1);
	/* nothing reserved: the pool is the whole domain, core for core */
	cpuset_zero(&w.reserved);
	p = compute(t, &w);
	check_plan(t, &w, p);
	ck_assert_int_eq(p->vm[0].error, 0);
	for (k = 0; k < n; k++) {
		const struct vp_vcpu_plan *c = &p->vm[0].vcpu[k];
		struct vp_cpuset dom, out;

		locality_dom(t, loc, c->home, &dom);
		cpuset_andnot(&out, &c->allowed, &dom);
		if (cores_in(t, &dom) >= need) {
			ck_assert_msg(cpuset_empty(&out), "%s: vCPU %d left "
			    "its %s", file, k, policy_locality_name(loc));
			continue;
		}
		ck_assert_msg(!cpuset_empty(&out) &&
		    cores_in(t, &c->allowed) >= need, "%s: vCPU %d: %d "
		    "cores for %d vCPUs", file, k,
		    cores_in(t, &c->allowed), n);
		widened++;
	}
	return widened;
}

START_TEST(test_plan_locality_cluster)
{
	/* Kunpeng's clusters have 4 cores: a 4-vCPU VM stays in one, an
	 * 8-vCPU VM is widened */
	ck_assert_int_eq(check_locality("128arm-2pa2n8cluster4co.xml",
	    VP_LOC_CLUSTER, 4), 0);
	ck_assert_int_eq(check_locality("128arm-2pa2n8cluster4co.xml",
	    VP_LOC_CLUSTER, 8), 8);
	/* g4dn.metal has no clusters: a cluster is a core, no locality,
	 * even for one vCPU */
	ck_assert_int_eq(check_locality("g4dnmetal.xml", VP_LOC_CLUSTER, 1),
	    1);
	check_locality("Intel-RaptorLake-Corei7-1370P.xml", VP_LOC_CLUSTER, 6);
}
END_TEST

START_TEST(test_plan_locality_llc)
{
	check_locality("128arm-2pa2n8cluster4co.xml", VP_LOC_LLC, 8);
	/* EPYC's LLCs have 3 cores */
	ck_assert_int_eq(check_locality("epyc-corona.xml", VP_LOC_LLC, 3),
	    0);
	ck_assert_int_eq(check_locality("epyc-corona.xml", VP_LOC_LLC, 6),
	    6);
	/* KNL's LLC is a tile of two cores: 4 vCPUs are widened past it */
	ck_assert_int_eq(check_locality("knl-snc4-flat-hwloc1.xml",
	    VP_LOC_LLC, 4), 4);
}
END_TEST

START_TEST(test_plan_locality_numa)
{
	/* EPYC's nodes have 6 cores */
	ck_assert_int_eq(check_locality("epyc-corona.xml", VP_LOC_NUMA, 6),
	    0);
	ck_assert_int_eq(check_locality("epyc-corona.xml", VP_LOC_NUMA, 8),
	    8);
	check_locality("memorysidecaches.xml", VP_LOC_NUMA, 8);
}
END_TEST

/* A dedicated request larger than the machine: -ENOSPC, others fine. */
START_TEST(test_plan_nospc)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_topo("Intel-RaptorLake-Corei7-1370P.xml");
	struct vp_vm_spec vms[4];
	_cleanup_plan_ struct vp_plan *p = NULL;
	struct world w;
	int i;

	vms[0] = vm("s", 2, VP_MODE_SHARED, VP_SMT_ANY, VP_LOC_ANY);
	vms[1] = vm("huge", t->npus + 4, VP_MODE_DEDICATED,
	    VP_SMT_ANY, VP_LOC_ANY);
	vms[2] = vm("d", 2, VP_MODE_DEDICATED, VP_SMT_ANY, VP_LOC_ANY);
	vms[3] = vm("s2", 3, VP_MODE_SHARED, VP_SMT_ANY, VP_LOC_ANY);
	world_init(&w, t, vms, 4);
	p = compute(t, &w);
	check_plan(t, &w, p);
	ck_assert_int_eq(p->vm[1].error, -ENOSPC);
	for (i = 0; i < 4; i++)
		if (i != 1) {
			ck_assert_int_eq(p->vm[i].error, 0);
			ck_assert_ptr_nonnull(p->vm[i].vcpu);
		}
}
END_TEST

/*
 * Dedicated VMs that fill the machine exactly fit; a shared VM left
 * with an empty pool gets -ENOSPC, with no vCPU plans.
 */
START_TEST(test_plan_pool_exhausted)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_topo("Intel-RaptorLake-Corei7-1370P.xml");
	_cleanup_plan_ struct vp_plan *p = NULL;
	struct vp_vm_spec vms[2];
	struct world w;
	int usable;

	world_init(&w, t, vms, 2);
	usable = t->npus - cpuset_count(&w.reserved);
	vms[0] = vm("all", usable, VP_MODE_DEDICATED, VP_SMT_ANY, VP_LOC_ANY);
	vms[1] = vm("s", 2, VP_MODE_SHARED, VP_SMT_ANY, VP_LOC_ANY);
	p = compute(t, &w);
	check_plan(t, &w, p);
	ck_assert_int_eq(p->vm[0].error, 0);
	ck_assert(cpuset_empty(&p->shared_pool));
	ck_assert_int_eq(p->vm[1].error, -ENOSPC);
}
END_TEST

/* 4096 PUs: many VMs of every kind, all rules hold. */
START_TEST(test_plan_capacity)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_synth("pack:4 l3:2 core:256 pu:2");
	_cleanup_plan_ struct vp_plan *p = NULL;
	struct vp_vm_spec vms[24];
	static char names[24][16];
	struct world w;
	int i;

	for (i = 0; i < 24; i++) {
		snprintf(names[i], sizeof(names[i]), "vm%d", i);
		vms[i] = vm(names[i], 1 + i * 7, i % 3 == 0 ?
		    VP_MODE_DEDICATED : VP_MODE_SHARED,
		    i % 4 == 1 ? VP_SMT_ISOLATE : VP_SMT_PREFER_IDLE_CORE,
		    (enum vp_locality)(i % 4));
	}
	world_init(&w, t, vms, 24);
	p = compute(t, &w);
	check_plan(t, &w, p);
	for (i = 0; i < 24; i++)
		ck_assert_int_eq(p->vm[i].error, 0);
}
END_TEST

/* No VM: everything but the reserved PUs is the shared pool. */
START_TEST(test_plan_no_vms)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("epyc-corona.xml");
	_cleanup_plan_ struct vp_plan *p = NULL;
	struct vp_cpuset usable;
	struct world w;

	world_init(&w, t, NULL, 0);
	p = compute(t, &w);
	ck_assert_int_eq(p->nvms, 0);
	cpuset_andnot(&usable, &t->all, &w.reserved);
	ck_assert(cpuset_equal(&p->shared_pool, &usable));
}
END_TEST

/* reserved may be NULL: the whole machine is usable. */
START_TEST(test_plan_no_reserved)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	_cleanup_plan_ struct vp_plan *p = NULL;
	struct vp_vm_spec vms[2];
	struct world w;

	vms[0] = vm("d", 2, VP_MODE_DEDICATED, VP_SMT_ANY, VP_LOC_ANY);
	vms[1] = vm("s", 2, VP_MODE_SHARED, VP_SMT_ANY, VP_LOC_ANY);
	world_init(&w, t, vms, 2);
	w.in.reserved = NULL;
	cpuset_zero(&w.reserved);
	p = compute(t, &w);
	check_plan(t, &w, p);
	ck_assert_int_eq(cpuset_count(&p->shared_pool), t->npus - 2);
}
END_TEST

START_TEST(test_plan_einval)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	static const int bad[] = { 0, -1, VP_MAX_PUS + 1 };
	struct vp_vm_spec vms[2];
	struct world w;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct vp_plan *p = NULL;

		vms[0] = vm("ok", 2, VP_MODE_SHARED, VP_SMT_ANY, VP_LOC_ANY);
		vms[1] = vm("bad", bad[i], VP_MODE_SHARED, VP_SMT_ANY,
		    VP_LOC_ANY);
		world_init(&w, t, vms, 2);
		ck_assert_int_eq(plan_compute(t, &w.in, &p), -EINVAL);
		ck_assert_ptr_null(p);
	}
	plan_free(NULL);
}
END_TEST

/* The same input twice gives the same plan, field for field. */
START_TEST(test_plan_deterministic)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(plan_files[_i]);
	struct vp_vm_spec vms[5];
	_cleanup_plan_ struct vp_plan *a = NULL;
	_cleanup_plan_ struct vp_plan *b = NULL;
	struct world w;
	int i, k;

	vms[0] = vm("d", 2, VP_MODE_DEDICATED, VP_SMT_ISOLATE, VP_LOC_LLC);
	vms[1] = vm("s", 5, VP_MODE_SHARED, VP_SMT_PREFER_IDLE_CORE,
	    VP_LOC_LLC);
	vms[2] = vm("o", 3, VP_MODE_OFF, VP_SMT_ANY, VP_LOC_ANY);
	vms[3] = vm("e", 2, VP_MODE_DEDICATED, VP_SMT_ANY, VP_LOC_CLUSTER);
	vms[4] = vm("t", 3, VP_MODE_SHARED, VP_SMT_ANY, VP_LOC_NUMA);
	world_init(&w, t, vms, 5);
	cpuset_set(&w.busy, t->npus - 1);
	a = compute(t, &w);
	b = compute(t, &w);
	check_plan(t, &w, a);
	ck_assert_int_eq(a->nvms, b->nvms);
	ck_assert(cpuset_equal(&a->shared_pool, &b->shared_pool));
	ck_assert_uint_eq(a->probes, b->probes);
	for (i = 0; i < a->nvms; i++) {
		ck_assert_int_eq(a->vm[i].error, b->vm[i].error);
		ck_assert_int_eq(a->vm[i].nvcpus, b->vm[i].nvcpus);
		ck_assert((a->vm[i].vcpu == NULL) == (b->vm[i].vcpu == NULL));
		if (!a->vm[i].vcpu)
			continue;
		for (k = 0; k < a->vm[i].nvcpus; k++) {
			ck_assert_int_eq(a->vm[i].vcpu[k].home,
			    b->vm[i].vcpu[k].home);
			ck_assert_int_eq(a->vm[i].vcpu[k].reason,
			    b->vm[i].vcpu[k].reason);
			ck_assert(cpuset_equal(&a->vm[i].vcpu[k].allowed,
			    &b->vm[i].vcpu[k].allowed));
		}
	}
}
END_TEST

/*
 * A dedicated VM given its current homes keeps them when host load
 * shifts, even where a fresh plan would pick other PUs; a home whose
 * core is gone from the pool (reserved now) makes it replan.
 */
START_TEST(test_plan_dedicated_sticky)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_vm_spec vms[2];
	struct world w;
	struct vp_plan *p, *q;
	int prev[2], i;

	vms[0] = vm("ded", 2, VP_MODE_DEDICATED, VP_SMT_ISOLATE, VP_LOC_LLC);
	vms[1] = vm("web", 4, VP_MODE_SHARED, VP_SMT_PREFER_IDLE_CORE,
	    VP_LOC_LLC);
	world_init(&w, t, vms, 2);
	p = compute(t, &w);
	for (i = 0; i < 2; i++)
		prev[i] = p->vm[0].vcpu[i].home;
	/* load the host where the VM is: a fresh plan would go elsewhere */
	for (i = 0; i < 2; i++)
		topo_add_core(t, prev[i], &w.busy);
	q = compute(t, &w);
	ck_assert_int_ne(q->vm[0].vcpu[0].home, prev[0]);
	plan_free(q);
	vms[0].prev_home = prev;
	q = compute(t, &w);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(q->vm[0].vcpu[i].home, prev[i]);
		ck_assert_int_eq(cpuset_count(&q->vm[0].vcpu[i].allowed), 1);
	}
	plan_free(q);
	/* its first core is reserved for the host now: it must move */
	topo_add_core(t, prev[0], &w.reserved);
	q = compute(t, &w);
	ck_assert_int_eq(q->vm[0].error, 0);
	ck_assert(!cpuset_test(&w.reserved, q->vm[0].vcpu[0].home));
	plan_free(q);
	plan_free(p);
}
END_TEST

/*
 * An exclusive VM that needs every free core fits when some of those
 * cores are busy with host work, whatever the number of LLCs: the quiet
 * cores first, then the busy ones.  One busy PU in every LLC; a
 * dedicated VM with a vCPU per usable PU, then an isolated one with a
 * vCPU per usable core.  (The two kinds once shared one budget of tries,
 * which a one-LLC host ran out of: the live 2-PU host refused a
 * dedicated VM of two vCPUs whenever one PU was busy.)
 */
START_TEST(test_plan_exclusive_busy_cores)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(plan_files[_i]);
	struct vp_vm_spec vms[1];
	struct vp_cpuset usable, homes;
	struct world w;
	int l, c, k, ncores = 0;

	world_init(&w, t, vms, 1);
	cpuset_andnot(&usable, &t->all, &w.reserved);
	for (l = 0; l < t->nllcs; l++) {
		const struct vp_llc *llc = &t->llc[l];
		const struct vp_core *last =
		    &t->core[llc->first_core + llc->ncores - 1];

		if (cpuset_test(&usable, last->first_pu))
			cpuset_set(&w.busy, last->first_pu);
	}
	for (c = 0; c < t->ncores; c++)
		ncores += cpuset_test(&usable, t->core[c].first_pu);
	ck_assert_int_gt(cpuset_count(&w.busy), 0);

	vms[0] = vm("ded", cpuset_count(&usable), VP_MODE_DEDICATED,
	    VP_SMT_ANY, VP_LOC_ANY);
	{
		_cleanup_plan_ struct vp_plan *p = compute(t, &w);

		ck_assert_msg(p->vm[0].error == 0, "%s: dedicated VM of %d "
		    "vCPUs with %d busy PUs: error %d", plan_files[_i],
		    vms[0].nvcpus, cpuset_count(&w.busy), p->vm[0].error);
		check_plan(t, &w, p);
		cpuset_zero(&homes);
		for (k = 0; k < p->vm[0].nvcpus; k++)
			cpuset_set(&homes, p->vm[0].vcpu[k].home);
		ck_assert(cpuset_equal(&homes, &usable));
	}
	vms[0] = vm("iso", ncores, VP_MODE_DEDICATED, VP_SMT_ISOLATE,
	    VP_LOC_ANY);
	{
		_cleanup_plan_ struct vp_plan *p = compute(t, &w);

		ck_assert_msg(p->vm[0].error == 0, "%s: isolated VM of %d "
		    "vCPUs with %d busy PUs: error %d", plan_files[_i],
		    vms[0].nvcpus, cpuset_count(&w.busy), p->vm[0].error);
		check_plan(t, &w, p);
	}
}
END_TEST

/*
 * The trace is the decision's real path.  On g4dnmetal (one LLC per
 * package, SMT2), with the first PU of package 1 busy, a shared vCPU is
 * anchored there (the roomiest LLC), sees that core's idle sibling,
 * prefers the next whole idle core and says so step by step.
 */
START_TEST(test_plan_trace_shared)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	_cleanup_plan_ struct vp_plan *p = NULL;
	static const enum vp_step want[] = { VP_STEP_ANCHOR,
		VP_STEP_SCAN_LLC, VP_STEP_BUSY, VP_STEP_OUTSCORED,
		VP_STEP_CHOSEN };
	const struct vp_trace *tr;
	struct vp_vm_spec vms[1];
	struct world w;
	int first, k;

	ck_assert_int_eq(t->nllcs, 2);
	first = t->llc[1].first_pu;
	ck_assert_int_eq(t->core[t->pu[first].core].npus, 2);
	vms[0] = vm("a", 2, VP_MODE_SHARED, VP_SMT_PREFER_IDLE_CORE,
	    VP_LOC_LLC);
	world_init(&w, t, vms, 1);
	cpuset_set(&w.busy, first);
	p = compute(t, &w);
	tr = &p->vm[0].vcpu[0].trace;
	ck_assert_int_eq(tr->n, (int)(sizeof(want) / sizeof(want[0])));
	for (k = 0; k < tr->n; k++)
		ck_assert_msg(tr->s[k].step == want[k], "step %d is %s", k,
		    trace_step_tag(tr->s[k].step));
	ck_assert_int_eq(tr->s[0].pu, first);
	ck_assert_int_eq(tr->s[0].arg, 0);	/* first vCPU: no follow */
	ck_assert_int_eq(tr->s[1].arg, 1);	/* LLC 1 */
	ck_assert_int_eq(tr->s[2].pu, first);
	ck_assert_int_eq(tr->s[3].pu, first + 1);	/* the idle sibling */
	ck_assert_int_eq(tr->s[3].arg, (int)t->pu[first + 1].prio / 2);
	ck_assert_int_eq(tr->s[4].pu, p->vm[0].vcpu[0].home);
	ck_assert_int_eq(tr->s[4].arg, VP_REASON_IDLE_CORE);
	ck_assert_int_eq(p->vm[0].vcpu[0].home, first + 2);
	ck_assert_uint_eq(p->vm[0].vcpu[0].probes, 4);	/* 2 PUs x 2 cores */
	/* the second vCPU follows the first */
	tr = &p->vm[0].vcpu[1].trace;
	ck_assert_int_eq(tr->s[0].step, VP_STEP_ANCHOR);
	ck_assert_int_eq(tr->s[0].pu, first + 2);
	ck_assert_int_eq(tr->s[0].arg, 1);
	ck_assert_int_eq(tr->s[tr->n - 1].pu, p->vm[0].vcpu[1].home);
}
END_TEST

/* Exclusive vCPUs record the core taken, then on a replan that they kept it. */
START_TEST(test_plan_trace_exclusive)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_vm_spec vms[1];
	struct vp_plan *p, *p2;
	int homes[3], k;
	struct world w;

	vms[0] = vm("d", 3, VP_MODE_DEDICATED, VP_SMT_PREFER_IDLE_CORE,
	    VP_LOC_LLC);
	world_init(&w, t, vms, 1);
	p = compute(t, &w);
	for (k = 0; k < 3; k++) {
		const struct vp_trace *tr = &p->vm[0].vcpu[k].trace;

		ck_assert_int_eq(tr->n, 1);
		ck_assert_int_eq(tr->s[0].step, VP_STEP_TOOK_CORE);
		ck_assert_int_eq(tr->s[0].pu, p->vm[0].vcpu[k].home);
		ck_assert_int_eq(tr->s[0].arg, t->pu[tr->s[0].pu].llc);
		homes[k] = p->vm[0].vcpu[k].home;
	}
	vms[0].prev_home = homes;
	p2 = compute(t, &w);
	for (k = 0; k < 3; k++) {
		ck_assert_int_eq(p2->vm[0].vcpu[k].trace.s[0].step,
		    VP_STEP_KEPT);
		ck_assert_int_eq(p2->vm[0].vcpu[k].trace.s[0].pu, homes[k]);
	}
	plan_free(p);
	plan_free(p2);
}
END_TEST

/*
 * Overcommitted (two vCPUs per PU): once every PU homes a vCPU, new VMs
 * still spread over the LLCs instead of all landing in the first one.
 */
START_TEST(test_plan_overcommit_spread)
{
	static const char *const files[] = { "128arm-2pa2n8cluster4co.xml",
		"epyc-corona.xml", "g4dnmetal.xml" };
	_cleanup_topo_ struct vp_topo *t = load_topo(files[_i]);
	struct vp_vm_spec vms[256];
	_cleanup_plan_ struct vp_plan *p = NULL;
	int nvms = 2 * t->npus / 4, per_llc[64] = { 0 };
	int i, k, lo = 1 << 30, hi = 0;
	char names[256][16];
	struct world w;

	ck_assert_int_le(nvms, 256);
	ck_assert_int_le(t->nllcs, 64);
	for (i = 0; i < nvms; i++) {
		snprintf(names[i], sizeof(names[i]), "v%d", i);
		vms[i] = vm(names[i], 4, VP_MODE_SHARED,
		    VP_SMT_PREFER_IDLE_CORE, VP_LOC_LLC);
	}
	world_init(&w, t, vms, nvms);
	p = compute(t, &w);
	check_plan(t, &w, p);
	for (i = 0; i < nvms; i++)
		for (k = 0; k < 4; k++)
			per_llc[t->pu[p->vm[i].vcpu[k].home].llc]++;
	for (i = 0; i < t->nllcs; i++) {
		int share = per_llc[i] * 100 / t->llc[i].npus;	/* % of PUs */

		lo = share < lo ? share : lo;
		hi = share > hi ? share : hi;
	}
	/* 200 % on average; no LLC far above or below it */
	ck_assert_msg(hi <= 260 && lo >= 140, "%s: homes per PU from %d%% to "
	    "%d%%", files[_i], lo, hi);
}
END_TEST

/* A full trace keeps its first steps and counts the rest. */
START_TEST(test_trace_bounded)
{
	struct vp_trace tr = { 0 };
	int k;

	for (k = 0; k < VP_TRACE_MAX + 5; k++)
		trace_step(&tr, VP_STEP_BUSY, k, 0);
	ck_assert_int_eq(tr.n, VP_TRACE_MAX);
	ck_assert_uint_eq(tr.dropped, 5);
	ck_assert_int_eq(tr.s[VP_TRACE_MAX - 1].pu, VP_TRACE_MAX - 1);
	ck_assert_str_eq(trace_step_tag(VP_STEP_OUTSCORED), "outscored");
	ck_assert_str_eq(trace_step_tag(VP_STEP_COUNT), "?");
}
END_TEST

/*
 * The host budget (budget.c): a VM that asks for more exclusive cores
 * than the host grants may not take them from the others, on a 16-PU host
 * of 8 SMT-2 cores, core 0 reserved, so 7 cores for VMs and a 50 %
 * budget of 3 cores.  A dedicated smt=isolate VM of 6 vCPUs would take
 * 6 of them; it is refused and planned shared, and the three other VMs
 * keep homes of their own on the cores it asked for.
 */
START_TEST(test_plan_budget_refuses)
{
	_cleanup_topo_ struct vp_topo *t = load_synth("pack:1 l3:1 core:8 pu:2");
	struct vp_vm_spec vms[4];
	_cleanup_plan_ struct vp_plan *p = NULL;
	struct vp_budget b = { 50, 1 };
	struct vp_cpuset homes;
	struct world w;
	int i, k;

	vms[0] = vm("web", 3, VP_MODE_SHARED, VP_SMT_PREFER_IDLE_CORE,
	    VP_LOC_LLC);
	vms[1] = vm("greedy", 6, VP_MODE_DEDICATED, VP_SMT_ISOLATE,
	    VP_LOC_LLC);
	vms[1].policy.emulator = VP_EMU_HOUSEKEEPING;
	vms[2] = vm("db", 3, VP_MODE_SHARED, VP_SMT_PREFER_IDLE_CORE,
	    VP_LOC_LLC);
	vms[3] = vm("batch", 3, VP_MODE_SHARED, VP_SMT_PREFER_IDLE_CORE,
	    VP_LOC_LLC);
	world_init(&w, t, vms, 4);
	w.in.budget = &b;
	p = compute(t, &w);
	check_plan(t, &w, p);
	ck_assert(p->vm[1].over_budget);
	ck_assert_int_eq(p->vm[1].error, 0);
	ck_assert_uint_eq(p->vm[1].want_cores, 6);
	ck_assert_uint_eq(p->vm[1].max_cores, 3);
	/* nothing left the pool: every PU but the reserved core is shared */
	ck_assert_int_eq(cpuset_count(&p->shared_pool), 14);
	cpuset_zero(&homes);
	for (i = 0; i < 4; i++) {
		ck_assert(i == 1 || !p->vm[i].over_budget);
		for (k = 0; k < p->vm[i].nvcpus; k++) {
			ck_assert_int_ne(p->vm[i].vcpu[k].reason,
			    VP_REASON_DEDICATED);
			ck_assert_int_ne(p->vm[i].vcpu[k].reason,
			    VP_REASON_ISOLATED);
			if (i != 1)
				cpuset_set(&homes, p->vm[i].vcpu[k].home);
		}
	}
	/* the other VMs' 9 vCPUs have 9 homes, not 2 PUs to share */
	ck_assert_int_eq(cpuset_count(&homes), 9);
}
END_TEST

/* Within the budget a claim is granted; the next one past it is not. */
START_TEST(test_plan_budget_grants_within)
{
	_cleanup_topo_ struct vp_topo *t = load_synth("pack:1 l3:1 core:8 pu:2");
	struct vp_vm_spec vms[2];
	_cleanup_plan_ struct vp_plan *p = NULL;
	struct vp_budget b = { 50, 1 };
	struct world w;
	int k;

	vms[0] = vm("d1", 3, VP_MODE_DEDICATED, VP_SMT_ISOLATE, VP_LOC_LLC);
	vms[1] = vm("i1", 2, VP_MODE_SHARED, VP_SMT_ISOLATE, VP_LOC_LLC);
	world_init(&w, t, vms, 2);
	w.in.budget = &b;
	p = compute(t, &w);
	check_plan(t, &w, p);
	ck_assert(!p->vm[0].over_budget);
	for (k = 0; k < 3; k++)
		ck_assert_int_eq(p->vm[0].vcpu[k].reason,
		    VP_REASON_DEDICATED);
	/* 3 cores held: one more is past 3 of 7 */
	ck_assert(p->vm[1].over_budget);
	ck_assert_uint_eq(p->vm[1].want_cores, 4);
	ck_assert_int_eq(cpuset_count(&p->shared_pool), 8);
}
END_TEST

/* The minimum shared pool holds even when the share would allow all. */
START_TEST(test_plan_budget_shared_min)
{
	_cleanup_topo_ struct vp_topo *t = load_synth("pack:1 l3:1 core:8 pu:2");
	struct vp_vm_spec vms[1];
	_cleanup_plan_ struct vp_plan *p = NULL, *q = NULL;
	struct vp_budget b = { 100, 2 };
	struct world w;

	vms[0] = vm("i1", 12, VP_MODE_SHARED, VP_SMT_ISOLATE, VP_LOC_LLC);
	world_init(&w, t, vms, 1);
	w.in.budget = &b;
	p = compute(t, &w);
	ck_assert(p->vm[0].over_budget);	/* 6 cores: 1 left, want 2 */
	b.shared_min_cores = 1;
	q = compute(t, &w);
	ck_assert(!q->vm[0].over_budget);
	ck_assert_int_eq(q->vm[0].vcpu[0].reason, VP_REASON_ISOLATED);
	ck_assert_int_eq(cpuset_count(&q->shared_pool), 2);
}
END_TEST

Suite *plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_plan_shared, 0, NPLAN_FILES);
	tcase_add_loop_test(tc, test_plan_dedicated, 0, NPLAN_FILES);
	tcase_add_test(tc, test_plan_dedicated_sticky);
	tcase_add_loop_test(tc, test_plan_exclusive_busy_cores, 0,
	    NPLAN_FILES);
	tcase_add_loop_test(tc, test_plan_isolate, 0, 4);
	tcase_add_test(tc, test_plan_mode_off);
	tcase_add_test(tc, test_plan_locality_cluster);
	tcase_add_test(tc, test_plan_locality_llc);
	tcase_add_test(tc, test_plan_locality_numa);
	tcase_add_test(tc, test_plan_nospc);
	tcase_add_test(tc, test_plan_einval);
	tcase_add_test(tc, test_plan_no_vms);
	tcase_add_test(tc, test_plan_capacity);
	tcase_add_test(tc, test_plan_pool_exhausted);
	tcase_add_test(tc, test_plan_no_reserved);
	tcase_add_loop_test(tc, test_plan_deterministic, 0, NPLAN_FILES);
	tcase_add_test(tc, test_plan_trace_shared);
	tcase_add_test(tc, test_plan_trace_exclusive);
	tcase_add_test(tc, test_trace_bounded);
	tcase_add_loop_test(tc, test_plan_overcommit_spread, 0, 3);
	tcase_add_test(tc, test_plan_budget_refuses);
	tcase_add_test(tc, test_plan_budget_grants_within);
	tcase_add_test(tc, test_plan_budget_shared_min);
	suite_add_tcase(s, tc);
	return s;
}
