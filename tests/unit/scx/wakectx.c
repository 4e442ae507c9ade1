/*
 * wakectx.c - the plain-C accessors of vcpuplace_wake.h over struct
 * tctx (wakectx.h), and one compiled copy of decide() over them.
 */
#include <stdlib.h>

#include <check.h>

#include "scx/scxfeed.h"
#include "wakectx.h"
#include "../testutil.h"

#include "scx/vcpuplace_wake.h"

int
tdense(const struct tctx *c, __s32 cpu)
{
	if (cpu < 0 || (unsigned int)cpu >= c->t->os_limit)
		return -1;
	return c->t->os_to_pu[cpu] == VP_PU_NONE ? -1 : c->t->os_to_pu[cpu];
}

bool
tidle(const struct tctx *c, __s32 cpu, bool core)
{
	int pu = tdense(c, cpu);

	if (pu < 0)
		return false;
	return core ? core_idle(c->t, &c->busy, pu) :
	    !cpuset_test(&c->busy, pu);
}

bool
tclaim(struct tctx *c, __s32 cpu)
{
	if (!tidle(c, cpu, false))
		return false;
	cpuset_set(&c->busy, tdense(c, cpu));
	return true;
}

bool
tclaim_poll(struct tctx *c, __s32 cpu)
{
	int pu = tdense(c, cpu);

	if (pu >= 0)
		c->poll_probes[pu]++;
	if (pu < 0 || !cpuset_test(&c->polling, pu))
		return false;
	cpuset_clear(&c->polling, pu);
	return true;
}

bool
tclaim_stay(struct tctx *c, __s32 cpu)
{
	int pu = tdense(c, cpu);

	if (pu < 0 || !cpuset_test(&c->busy, pu) ||
	    cpuset_test(&c->waiting, pu))
		return false;
	cpuset_set(&c->waiting, pu);
	return true;
}

bool
tany_idle(const struct tctx *c, bool core)
{
	int pu;

	cpuset_for_each(pu, &c->allowed, c->t->npus)
		if (tidle(c, (__s32)c->t->pu[pu].os_index, core))
			return true;
	return false;
}

__s32
tpick(struct tctx *c, int what)
{
	int pu, pass;

	for (pass = what == 0 ? 0 : 2; pass >= (what == 2 ? 2 : what); pass--)
		cpuset_for_each(pu, &c->allowed, c->t->npus) {
			if (pass == 2 && !core_idle(c->t, &c->busy, pu))
				continue;
			if (pass == 1 && cpuset_test(&c->busy, pu))
				continue;
			if (pass)
				cpuset_set(&c->busy, pu);
			return (__s32)c->t->pu[pu].os_index;
		}
	return -1;
}

struct vp_cpu_run *
trun(const struct tctx *c, __s32 cpu)
{
	int pu = tdense(c, cpu);

	return pu >= 0 ? &c->runs[pu] : NULL;
}

int
tdecide(struct tctx *c, const struct vp_scx_vcpu *v, int prev,
    enum vp_scx_vstat *why, bool *direct, __u32 *probes)
{
	struct wake w = {
		.c = c, .v = v,
		.prev = prev >= 0 ? (__s32)c->t->pu[prev].os_index : -1,
	};
	__s32 cpu = decide(&w, why, direct);

	*probes = w.probes;
	return tdense(c, cpu);
}

static int
feed_pu(struct scx_sched *s, int cpu, const struct vp_scx_pu *pu)
{
	struct tctx *c = (struct tctx *)s;

	ck_assert_int_lt(cpu, VP_SCX_MAX_CPUS);
	c->pus[cpu] = *pu;
	return 0;
}

static int
feed_dom(struct scx_sched *s, unsigned int id, const struct vp_scx_dom *d)
{
	struct tctx *c = (struct tctx *)s;

	ck_assert_uint_lt(id, c->ndoms);
	c->doms[id] = *d;
	return 0;
}

struct tctx *
tctx_new(struct vp_topo *t)
{
	static const struct scxfeed_writer w = { feed_pu, feed_dom };
	struct tctx *c = calloc(1, sizeof(*c));

	ck_assert_ptr_nonnull(c);
	c->t = t;
	c->ndoms = scxfeed_ndoms(t);
	c->doms = calloc(c->ndoms, sizeof(*c->doms));
	c->runs = calloc(t->npus, sizeof(*c->runs));
	c->poll_probes = calloc(t->npus, sizeof(*c->poll_probes));
	ck_assert_ptr_nonnull(c->doms);
	ck_assert_ptr_nonnull(c->runs);
	ck_assert_ptr_nonnull(c->poll_probes);
	/* the scheduler's tables as the daemon writes them */
	ck_assert_int_eq(scxfeed_topology((struct scx_sched *)c, t, 0, &w), 0);
	c->allowed = t->all;
	c->waker = -1;
	c->feat = VP_SCX_FEAT_ALL;
	c->now = 10000000;
	return c;
}

void
tctx_free(struct tctx *c)
{
	if (!c)
		return;
	free(c->doms);
	free(c->runs);
	free(c->poll_probes);
	free(c);
}
