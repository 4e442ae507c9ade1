/*
 * churn.c - the rules that keep churn down: which of the moves the plan
 * wants a tick applies.  A live pin costs ~4 ms (measured), so only
 * deltas are applied, and only for a reason:
 *
 *  - must move now: a new VM or a new policy, an affinity that is
 *    empty, offline, reserved-only, or on PUs another VM holds
 *    exclusively;
 *  - may move: the plan differs for hysteresis_ticks ticks in a row and
 *    the vCPU has not moved for cooldown_ns;
 *  - at most move_budget pins per tick, must-moves first.
 */
#include "core/vcpuplace.h"

void
churn_rules_default(struct vp_churn_rules *ret)
{
	ret->hysteresis_ticks = VP_CHURN_HYSTERESIS_TICKS;
	ret->cooldown_ns = VP_CHURN_COOLDOWN_NS;
	ret->move_budget = VP_CHURN_MOVE_BUDGET;
}

/* A PU the model does not have: offline, or gone since a hot-unplug. */
static bool
off_model(const struct vp_churn_host *h, const struct vp_cpuset *affinity)
{
	return !cpuset_subset(affinity, &h->topo->all);
}

/* Only host-reserved PUs: the VM would compete with housekeeping. */
static bool
reserved_only(const struct vp_churn_host *h, const struct vp_cpuset *affinity)
{
	return !cpuset_empty(affinity) && cpuset_subset(affinity, h->reserved);
}

/*
 * A PU outside what the plan allows this vCPU while the plan gives it to
 * another VM exclusively: that VM's vCPU would share its PU with ours.
 */
static bool
on_foreign_exclusive(const struct vp_churn_host *h,
    const struct vp_cpuset *affinity, const struct vp_cpuset *planned)
{
	struct vp_cpuset excl;

	/* exclusive = everything neither shared nor reserved */
	cpuset_andnot(&excl, &h->topo->all, h->shared_pool);
	cpuset_andnot(&excl, &excl, h->reserved);
	cpuset_andnot(&excl, &excl, planned);
	return cpuset_intersects(affinity, &excl);
}

bool
churn_affinity_broken(const struct vp_churn_host *h,
    const struct vp_cpuset *affinity, const struct vp_cpuset *planned)
{
	return cpuset_empty(affinity) || off_model(h, affinity) ||
	    reserved_only(h, affinity) ||
	    on_foreign_exclusive(h, affinity, planned);
}

/* Counts one more tick of a differing plan; true once it has held. */
static bool
plan_held(const struct vp_churn_rules *r, struct vp_churn_vcpu *v)
{
	return ++v->pending_ticks >= r->hysteresis_ticks;
}

/* Unsigned: a last move "in the future" (a clock bug) reads as long ago. */
static bool
cooled_down(const struct vp_churn_rules *r, const struct vp_churn_vcpu *v,
    uint64_t now_ns)
{
	return now_ns - v->last_move_ns >= r->cooldown_ns;
}

enum vp_churn_verdict
churn_classify(const struct vp_churn_host *h, const struct vp_churn_rules *r,
    struct vp_churn_vcpu *v, uint64_t now_ns)
{
	if (cpuset_equal(v->planned, v->affinity)) {
		v->pending_ticks = 0;
		v->verdict = VP_CHURN_UNCHANGED;
	} else if (v->urgent ||
	    churn_affinity_broken(h, v->affinity, v->planned)) {
		v->verdict = VP_CHURN_MUST;
	} else if (!plan_held(r, v) || !cooled_down(r, v, now_ns)) {
		/* plan_held() first: the count goes on during a cooldown */
		v->verdict = VP_CHURN_WAIT;
	} else {
		v->verdict = VP_CHURN_MAY;
	}
	return v->verdict;
}

/* Takes the vCPUs of @verdict in array order while @left allows. */
static unsigned int
take(struct vp_churn_vcpu *v, int n, enum vp_churn_verdict verdict,
    unsigned int left)
{
	unsigned int taken = 0;
	int i;

	for (i = 0; i < n && taken < left; i++)
		if (v[i].verdict == verdict) {
			v[i].move = true;
			taken++;
		}
	return taken;
}

unsigned int
churn_pick(struct vp_churn_vcpu *v, int n, unsigned int budget)
{
	unsigned int taken;
	int i;

	for (i = 0; i < n; i++)
		v[i].move = false;
	taken = take(v, n, VP_CHURN_MUST, budget);
	return taken + take(v, n, VP_CHURN_MAY, budget - taken);
}
