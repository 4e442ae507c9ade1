/*
 * vcpuplace.h - the placement core: types and prototypes, grouped by the
 * file that defines them (the file list is the architecture).
 *
 * Everything declared here is pure: no file descriptors, paths, clocks,
 * globals or logging.  Callers pass structs in and get decisions back, so
 * the daemon, the simulator, the benchmarks and the unit tests all run the
 * very same code.  hwtopo.h is the adapter that fills a struct vp_topo
 * from hwloc.
 *
 * Index spaces.  The core numbers PUs densely, 0..npus-1, in topology
 * order: sorted by package, then LLC, then cluster, then core, then OS
 * index.  So every core, cluster and LLC is a contiguous range of PU
 * indices, and a scan of a range is a word-at-a-time bit search.  OS
 * numbers (what the kernel, libvirt and /proc use) appear only in
 * struct vp_pu.os_index and at the edges (cpulist.c).
 */
#ifndef VCPUPLACE_H
#define VCPUPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the one "no PU" sentinel (CONTRIBUTING.md rule 4) */
#define VP_PU_NONE	(-1)
#define VP_MAX_PUS	8192	/* SGI UV hosts have 4096 PUs; twice that */
#define VP_MAX_SMT	8	/* POWER8/9 SMT8 is the widest core we know */
#define VP_MAX_OS_INDEX	65536	/* OS CPU numbers are below this */

#define VP_MUST_CHECK	__attribute__((warn_unused_result))

/* ---------------------------------------------------------------- */
/* features.c */

enum vp_feature {
#define VP_FEATURE(name, def, why) VP_FEAT_##name,
#include "core/feature_list.h"
#undef VP_FEATURE
	VP_FEAT_COUNT
};

/* Which heuristics are on.  Plain data: copy it, toggle it. */
struct vp_features {
	bool on[VP_FEAT_COUNT];
};

#define feat(f, X)	((f)->on[VP_FEAT_##X])

/* Fills @ret with every feature at its default from feature_list.h. */
void features_default(struct vp_features *ret);
/* "SIS_CORE" -> VP_FEAT_SIS_CORE, or -EINVAL for an unknown name. */
int features_lookup(const char *name);
/* Static strings: the feature's name and its one-line reason. */
const char *features_name(enum vp_feature f);
const char *features_why(enum vp_feature f);

/* ---------------------------------------------------------------- */
/* cpuset.c: fixed-size bitmaps over dense PU indices */

#define VP_CPUSET_WORDS	(VP_MAX_PUS / 64)

/*
 * A set of dense PU indices.  Invariant: bits at or above the topology's
 * npus are never set.  Plain value type: copy with '=', no free needed.
 */
struct vp_cpuset {
	uint64_t w[VP_CPUSET_WORDS];
};

void cpuset_zero(struct vp_cpuset *s);
/* Sets bits [first, first + count). */
void cpuset_set_range(struct vp_cpuset *s, int first, int count);
void cpuset_set(struct vp_cpuset *s, int pu);
void cpuset_clear(struct vp_cpuset *s, int pu);
bool cpuset_test(const struct vp_cpuset *s, int pu);
int cpuset_count(const struct vp_cpuset *s);
/* Number of set bits in [first, first + count). */
int cpuset_count_range(const struct vp_cpuset *s, int first, int count);
bool cpuset_empty(const struct vp_cpuset *s);
bool cpuset_equal(const struct vp_cpuset *a, const struct vp_cpuset *b);
bool cpuset_intersects(const struct vp_cpuset *a, const struct vp_cpuset *b);
/* True when every bit of @a is in @b (an empty @a is a subset). */
bool cpuset_subset(const struct vp_cpuset *a, const struct vp_cpuset *b);
/* True when some bit in [first, first + count) is set. */
bool cpuset_intersects_range(const struct vp_cpuset *s, int first, int count);
void cpuset_and(struct vp_cpuset *dst, const struct vp_cpuset *a,
    const struct vp_cpuset *b);
void cpuset_or(struct vp_cpuset *dst, const struct vp_cpuset *a,
    const struct vp_cpuset *b);
void cpuset_andnot(struct vp_cpuset *dst, const struct vp_cpuset *a,
    const struct vp_cpuset *b);
/* First set bit in [from, end), or VP_PU_NONE. */
int cpuset_next(const struct vp_cpuset *s, int from, int end);
/* First set bit in both @a and @b in [from, end), or VP_PU_NONE. */
int cpuset_next_and(const struct vp_cpuset *a, const struct vp_cpuset *b,
    int from, int end);
int cpuset_first(const struct vp_cpuset *s);

#define cpuset_for_each(pu, s, end) \
	for ((pu) = cpuset_next((s), 0, (end)); (pu) != VP_PU_NONE; \
	    (pu) = cpuset_next((s), (pu) + 1, (end)))

/* ---------------------------------------------------------------- */
/* topo.c: the host model */

struct vp_pu {
	unsigned int os_index;	/* the kernel's CPU number */
	int core;		/* dense indices into struct vp_topo arrays */
	int cluster;
	int llc;
	int node;
	int package;
	unsigned int prio;	/* per-core performance, 1..1024, see prio.c */
};

/* A core, cluster or LLC: a contiguous range of dense PU indices. */
struct vp_core {
	int first_pu;
	int npus;		/* SMT width of this core: 1..VP_MAX_SMT */
	int cluster;
	int llc;
};

struct vp_cluster {
	int first_pu;
	int npus;
	int first_core;
	int ncores;
	int llc;
};

struct vp_llc {
	int first_pu;
	int npus;
	int first_cluster;
	int nclusters;
	int first_core;
	int ncores;
	int package;
	int cache_level;	/* 3 for L3, 2 for L2, 0: the core has no cache */
	unsigned int max_prio;	/* best core priority in this LLC */
	/* this LLC's PUs in OS-index order: the order a linear scan walks */
	int *os_order;
};

/*
 * The model of one host.  Built by topo_build() and owned by the caller,
 * who frees it with topo_free().  Read-only once built: the core's
 * functions take it as const.
 */
struct vp_topo {
	int npus;
	int ncores;
	int nclusters;
	int nllcs;
	int nnodes;
	int npackages;
	int max_smt;		/* widest core */
	struct vp_pu *pu;	/* [npus] */
	struct vp_core *core;	/* [ncores] */
	struct vp_cluster *cluster;	/* [nclusters] */
	struct vp_llc *llc;	/* [nllcs] */
	int *pu_os_pos;		/* [npus]: position in its LLC's os_order */
	unsigned int *node_os;	/* [nnodes]: OS number of each NUMA node */
	unsigned int os_limit;	/* 1 + highest OS index of any PU */
	int *os_to_pu;		/* [os_limit]: dense index or VP_PU_NONE */
	struct vp_cpuset all;	/* every PU of the model */
	/* true when a source (hwloc cpukinds, CPPC, cpufreq) gave the
	 * priorities, which may still all be equal (Kunpeng's one kind) */
	bool prio_known;
};

/*
 * One PU as an adapter (hwloc, a test) describes it.  The *_key fields
 * order and group PUs: PUs with equal keys share the object.  Keys must
 * nest (a cluster lies in one LLC, an LLC in one package).
 */
struct vp_pu_desc {
	unsigned int os_index;
	unsigned long package_key;
	unsigned long llc_key;
	unsigned long cluster_key;
	unsigned long core_key;
	unsigned int node_os;	/* OS number of the PU's NUMA node */
	unsigned int prio;	/* 0: unknown */
	int llc_cache_level;	/* see struct vp_llc.cache_level */
};

/*
 * Builds a model from @n descriptions.  On success *ret_topo is a new
 * topology to be freed with topo_free().  Returns -EINVAL for n <= 0,
 * duplicate OS indices, more than VP_MAX_PUS PUs or VP_MAX_SMT PUs in a
 * core, or keys that do not nest; -ENOMEM.  *ret_topo is untouched on
 * failure.
 */
int topo_build(const struct vp_pu_desc *d, int n, struct vp_topo **ret_topo)
	VP_MUST_CHECK;
/* Accepts NULL. */
void topo_free(struct vp_topo *t);
/*
 * Replaces the NUMA node list with @n OS node numbers, which must
 * include every PU's node: memory-only nodes (KNL's MCDRAM, CXL) have no
 * PU, yet are nodes.  Returns 0, -EINVAL (a PU's node missing), -ENOMEM.
 */
int topo_set_nodes(struct vp_topo *t, const unsigned int *node_os, int n)
	VP_MUST_CHECK;
/* Dense index of OS CPU @os_index, or VP_PU_NONE (hole, offline). */
int topo_pu_of_os(const struct vp_topo *t, unsigned int os_index);
/* Adds the PUs of the core/cluster/LLC/NUMA node/package of @pu. */
void topo_add_core(const struct vp_topo *t, int pu, struct vp_cpuset *s);
void topo_add_cluster(const struct vp_topo *t, int pu, struct vp_cpuset *s);
void topo_add_llc(const struct vp_topo *t, int pu, struct vp_cpuset *s);
void topo_add_node(const struct vp_topo *t, int pu, struct vp_cpuset *s);
void topo_add_package(const struct vp_topo *t, int pu, struct vp_cpuset *s);

static inline void topo_free_p(struct vp_topo **t) { topo_free(*t); }
#define _cleanup_topo_ __attribute__((cleanup(topo_free_p)))

/* ---------------------------------------------------------------- */
/* cpulist.c: "0-3,8,10-11" <-> struct vp_cpuset, in OS numbers */

/*
 * Parses a kernel-style CPU list of OS numbers into dense indices; one
 * trailing newline is accepted, as sysfs files end in one.  Returns 0, -EINVAL for bad syntax or a reversed range, -ERANGE for a
 * number above 65535 or overflow, -ENOENT when a listed CPU is not in
 * the model (hole or offline).  *ret is untouched on failure.
 */
int cpulist_parse(const struct vp_topo *t, const char *text,
    struct vp_cpuset *ret) VP_MUST_CHECK;
/*
 * Writes @s as a CPU list of OS numbers, NUL-terminated, into buf.
 * Returns the length, or -ENOSPC when @len is too small.
 */
int cpulist_format(const struct vp_topo *t, const struct vp_cpuset *s,
    char *buf, size_t len);

/* ---------------------------------------------------------------- */
/* idlemask.c: SIS_CORE idle masks, one per LLC, at core granule */

/*
 * Invariants: for every core, at most one of its PUs is in @mask
 * (core granule); a PU in @mask may be busy by now (a false positive,
 * dropped by the next scan that probes it); an idle PU may be missing
 * when a sibling of it is in the mask (a true negative).
 */
struct vp_idlemask {
	struct vp_cpuset mask;		/* LLC ranges are disjoint */
	struct vp_cpuset fail_prone;	/* scan from here failed last time */
	bool *has_idle_core;		/* [nllcs]: hint, may be stale true */
	int nllcs;
};

/* Empty masks for @t.  Returns 0 or -ENOMEM. */
int idlemask_init(struct vp_idlemask *m, const struct vp_topo *t)
	VP_MUST_CHECK;
/* Frees what init allocated; accepts a zeroed or released mask. */
void idlemask_release(struct vp_idlemask *m);
/*
 * @pu went idle.  It enters the mask only if no sibling is there; the
 * LLC's has_idle_core is set when all its siblings are idle in @busy.
 */
void idlemask_pu_idle(struct vp_idlemask *m, const struct vp_topo *t,
    int pu, const struct vp_cpuset *busy);
/*
 * Rebuilds the masks from exact knowledge (the daemon samples every PU
 * each tick): for every core with an idle PU, its first idle PU.
 */
void idlemask_rebuild(struct vp_idlemask *m, const struct vp_topo *t,
    const struct vp_cpuset *busy);

/* ---------------------------------------------------------------- */
/* trace.c: the steps of one decision, for "explain" */

/*
 * What a decision did, step by step.  Planning records one trace per
 * vCPU so that an operator can later ask why a vCPU sits where it does
 * and be told the real path, not a reconstruction of it.
 */
enum vp_step {
	VP_STEP_ANCHOR,		/* pu: the scan starts from here; arg: 1
				 * when it is the VM's previous vCPU's home */
	VP_STEP_SCAN_LLC,	/* arg: the LLC scanned; pu: first visited */
	VP_STEP_BUSY,		/* pu: probed, busy */
	VP_STEP_OUTSCORED,	/* pu: idle, lost on score; arg: its score */
	VP_STEP_SIBLING_BUSY,	/* pu: idle, refused by smt=isolate;
				 * arg: busy siblings */
	VP_STEP_CHOSEN,		/* pu: the decision; arg: enum vp_reason */
	VP_STEP_KEPT,		/* pu: an exclusive VM keeps its PU */
	VP_STEP_TOOK_CORE,	/* pu: from a free core; arg: its LLC */
	VP_STEP_COUNT
};

#define VP_TRACE_MAX	24

struct vp_trace_step {
	enum vp_step step;
	int pu;
	int arg;
};

struct vp_trace {
	int n;
	unsigned int dropped;	/* steps past VP_TRACE_MAX */
	struct vp_trace_step s[VP_TRACE_MAX];
};

/* Appends one step; a full trace counts the rest in ->dropped. */
void trace_step(struct vp_trace *tr, enum vp_step step, int pu, int arg);
/* "busy", "outscored", ...: a stable tag for each step. */
const char *trace_step_tag(enum vp_step step);

/* ---------------------------------------------------------------- */
/* struct vp_view (inline, here): what a placement decision may look at */

/*
 * A decision's world: the model, the idle-mask hint it may update, and
 * the truth.  Reading one PU of @busy is one probe, the analogue of the
 * kernel touching a remote runqueue; @probes counts them.
 */
struct vp_view {
	const struct vp_topo *topo;
	struct vp_idlemask *idle;
	const struct vp_cpuset *busy;
	const struct vp_features *feat;
	unsigned long probes;
	struct vp_trace *trace;	/* NULL: no one asked */
};

static inline bool view_probe_idle(struct vp_view *v, int pu)
{
	bool idle;

	v->probes++;
	idle = !cpuset_test(v->busy, pu);
	if (!idle && v->trace)
		trace_step(v->trace, VP_STEP_BUSY, pu, 0);
	return idle;
}

static inline void view_trace(struct vp_view *v, enum vp_step step, int pu,
    int arg)
{
	if (v->trace)
		trace_step(v->trace, step, pu, arg);
}

/* ---------------------------------------------------------------- */
/* policy.c: the fields a VM's placement policy has (pure names) */

enum vp_mode { VP_MODE_OFF, VP_MODE_SHARED, VP_MODE_DEDICATED };
enum vp_smt {
	VP_SMT_PREFER_IDLE_CORE,	/* score by SMT-aware priority */
	VP_SMT_ISOLATE,			/* whole cores, never a busy sibling */
	VP_SMT_SIBLINGS,		/* pack a VM's vCPUs onto siblings */
	VP_SMT_ANY,			/* first idle PU, SMT ignored */
};
enum vp_locality {
	VP_LOC_CLUSTER, VP_LOC_LLC, VP_LOC_NUMA, VP_LOC_ANY,
};
enum vp_priority { VP_PRIO_HIGH, VP_PRIO_NORMAL, VP_PRIO_LOW };
enum vp_emulator {
	VP_EMU_POOL,	/* the shared pool of the VM's vCPUs' LLCs */
	VP_EMU_HOUSEKEEPING,	/* the host's reserved PUs */
	VP_EMU_VCPUS,	/* same allowed set as the VM's vCPUs */
};

struct vp_policy {
	enum vp_mode mode;
	enum vp_smt smt;
	enum vp_locality locality;
	enum vp_priority priority;
	bool cache_hot;
	bool core_sched;
	enum vp_emulator emulator;
};

/* Field by field: the struct has padding, so never memcmp() it. */
bool policy_equal(const struct vp_policy *a, const struct vp_policy *b);
/* The host default (the "balanced" profile's values). */
void policy_default(struct vp_policy *ret);
/*
 * Sets field @field of @p from text @value ("smt", "isolate").  Returns
 * 0, -ENOENT for an unknown field, -EINVAL for a bad value; @p is
 * untouched on failure.
 */
int policy_set_field(struct vp_policy *p, const char *field,
    const char *value) VP_MUST_CHECK;
/* Static strings for each enum value, e.g. "prefer-idle-core". */
const char *policy_mode_name(enum vp_mode m);
const char *policy_smt_name(enum vp_smt s);
const char *policy_locality_name(enum vp_locality l);
const char *policy_priority_name(enum vp_priority p);
const char *policy_emulator_name(enum vp_emulator e);

/* ---------------------------------------------------------------- */
/* prio.c: SMT-aware priority (seed 002, doc/seeds.md) */

/*
 * The worth of running on @pu now: its core's priority divided by one
 * plus the number of busy SMT siblings (N*P, N*P/2, ... in the seed's
 * terms, per core).  So a fully idle core of medium priority beats the
 * busy sibling of a fast core.  Probes the siblings through @v when
 * SMT_PRIO is on; otherwise it is the plain core priority.
 */
unsigned int prio_score(struct vp_view *v, int pu);
/* Number of busy siblings of @pu (probing each). */
int prio_busy_siblings(struct vp_view *v, int pu);
/* The score of @pu given its busy sibling count (no probes). */
unsigned int prio_weigh(const struct vp_view *v, int pu, int busy_siblings);

/* ---------------------------------------------------------------- */
/* scan.c: looking for an idle PU inside one LLC */

enum vp_reason {
	VP_REASON_NONE,
	VP_REASON_HOME_IDLE,	/* home PU was idle */
	VP_REASON_CACHE_HOT,	/* short sleeper's previous PU was idle */
	VP_REASON_IDLE_CORE,	/* a whole idle core in the home LLC */
	VP_REASON_IDLE_SIBLING,	/* an idle PU whose sibling is busy */
	VP_REASON_IDLE_PU,	/* an idle PU, siblings not looked at */
	VP_REASON_OTHER_LLC,	/* found idle in another allowed LLC */
	VP_REASON_FALLBACK,	/* nothing idle: least bad allowed PU */
	VP_REASON_DEDICATED,	/* planner: exclusive PU */
	VP_REASON_ISOLATED,	/* planner: a whole core of the VM's own */
	VP_REASON_NO_ROOM,	/* planner: request could not be met */
	VP_REASON_COUNT
};

/* Machine-readable tag: "home-idle", "idle-core", ... */
const char *scan_reason_tag(enum vp_reason r);

/*
 * The core-granule scan (SIS_CORE + CLUSTER_FIRST + SMT_PRIO).  Visits
 * the idle mask of @llc inside @allowed, starting at the first PU of
 * @from's cluster and wrapping through the LLC; drops false positives,
 * and from a fail-prone @from also probes the siblings of each.  Among
 * idle candidates keeps the best prio_score(), stopping early at one
 * that cannot be beaten.  @smt narrows the candidates (isolate: whole
 * idle cores only; any: the first idle PU).  Returns the PU or
 * VP_PU_NONE and sets *ret_reason (IDLE_CORE or IDLE_SIBLING) on success.
 * When the LLC's has_idle_core hint is clear, no candidate can be a
 * whole idle core, so siblings are not probed and the first idle PU of
 * the LLC's best priority wins.  With SIS_CORE off the candidates are
 * every PU of the LLC instead of the idle mask; the rest is unchanged.
 */
int scan_core(struct vp_view *v, int llc, int from,
    const struct vp_cpuset *allowed, enum vp_smt smt,
    enum vp_reason *ret_reason);

/*
 * The reference: the kernel's select_idle_cpu() before these ideas.
 * Walks @llc in OS order from @target + 1, wrapping, inside @allowed;
 * returns the first idle PU, or, when the LLC's has_idle_core hint is
 * set, the first PU of a whole idle core (clearing the hint when it
 * finds none).  Kept for benchmarks and tests.
 */
int scan_linear(struct vp_view *v, int llc, int target,
    const struct vp_cpuset *allowed, enum vp_reason *ret_reason);

/* ---------------------------------------------------------------- */
/* place.c: the placement decision for one vCPU wake-up */

struct vp_place_req {
	int home;		/* soft affinity, or VP_PU_NONE */
	int prev;		/* where it last ran, or VP_PU_NONE */
	const struct vp_cpuset *allowed;	/* hard affinity */
	enum vp_smt smt;
	bool cache_hot;		/* the policy allows SIS_CACHE */
	uint64_t slept_ns;	/* how long it slept this time */
	uint64_t short_sleep_ns;	/* its usual short sleep; 0 unknown */
	/*
	 * Stay in the anchor's LLC, as the kernel's wake path does
	 * (select_idle_sibling() never leaves it): a wake-up that crosses
	 * LLCs pays a cold cache.  The planner, placing homes, may look
	 * further.
	 */
	bool llc_only;
};

struct vp_place_res {
	int pu;
	unsigned long probes;
	enum vp_reason reason;
};

/*
 * Picks a PU for one vCPU, cheapest tries first: the idle home PU (not
 * when its sibling is busy and a whole idle core may exist), the
 * cache-hot previous PU of a short sleeper, the core-granule scan of the
 * home LLC, the other allowed LLCs (same package first; not with
 * llc_only), and last a fallback inside @allowed.  Returns 0 and fills *ret, or -EINVAL when
 * @allowed has no PU of the model (*ret untouched).
 */
int place_select(struct vp_view *v, const struct vp_place_req *r,
    struct vp_place_res *ret) VP_MUST_CHECK;

/* ---------------------------------------------------------------- */
/* plan.c: homes and allowed sets for every managed vCPU */

struct vp_vm_spec {
	const char *name;	/* borrowed: must outlive the plan call */
	int nvcpus;
	struct vp_policy policy;
	/*
	 * The homes its vCPUs have now ([nvcpus], borrowed), or NULL.  An
	 * exclusive VM keeps them while they are still free: a dedicated
	 * VM must not hop PUs because the host's load moved.
	 */
	const int *prev_home;
};

/*
 * The host's budget of exclusive cores: what dedicated and isolated VMs
 * (mode dedicated, smt isolate) may hold together, so that no grant, a
 * host's or a mistaken one, can empty the pool the other VMs share.
 * Counted in whole cores of the model outside the reserved PUs.
 */
struct vp_budget {
	/* most of those cores exclusive VMs may hold, in percent (0-100) */
	unsigned int exclusive_max_pct;
	/* fewest whole cores left to the shared pool, never given away */
	unsigned int shared_min_cores;
};
/*
 * The defaults: half the cores, and one core always shared.  Half: a
 * host that grants more than half of itself away has no pool left to
 * absorb the shared VMs' bursts (Nova's equivalent, cpu_dedicated_set,
 * is sized by the operator by hand; this is the default when none is).
 */
#define VP_BUDGET_EXCLUSIVE_MAX_PCT	50
#define VP_BUDGET_SHARED_MIN_CORES	1
void budget_default(struct vp_budget *ret);
/* The most cores the exclusive VMs may hold together under @b. */
unsigned int budget_max_cores(const struct vp_topo *t,
    const struct vp_cpuset *reserved, const struct vp_budget *b);
/*
 * Whether exclusive VMs holding the PUs @exclusive (all of them so far,
 * the new claim included) keep within @b: at most budget_max_cores()
 * cores touched, and at least shared_min_cores whole cores left in
 * @pool.  *ret_cores: the cores @exclusive touches.
 */
bool budget_allows(const struct vp_topo *t, const struct vp_cpuset *reserved,
    const struct vp_budget *b, const struct vp_cpuset *exclusive,
    const struct vp_cpuset *pool, unsigned int *ret_cores);

struct vp_plan_input {
	const struct vp_vm_spec *vms;
	int nvms;
	const struct vp_cpuset *busy;	/* host PUs busy outside the VMs */
	const struct vp_cpuset *reserved;	/* host-only PUs, or NULL */
	const struct vp_features *feat;
	/*
	 * NULL: no limit.  An exclusive VM whose claim would break it is
	 * planned as a shared VM instead (the host default's placement)
	 * and flagged over_budget.
	 */
	const struct vp_budget *budget;
	/* the policy an over-budget VM is planned with; NULL: built in */
	const struct vp_policy *fallback;
};

struct vp_vcpu_plan {
	int home;
	struct vp_cpuset allowed;	/* never empty when home is set */
	enum vp_reason reason;
	unsigned long probes;	/* PUs probed to choose home */
	struct vp_trace trace;	/* how home was chosen */
};

struct vp_vm_plan {
	int nvcpus;
	int error;		/* 0, or -ENOSPC: the request did not fit */
	/*
	 * Its exclusive claim would have broken the budget: it was planned
	 * with in->fallback instead.  The cores it would have held, and
	 * the budget's limit, for the refusal's message.
	 */
	bool over_budget;
	unsigned int want_cores, max_cores;
	struct vp_vcpu_plan *vcpu;	/* [nvcpus]; NULL for mode=off or error */
};

/* Owned by the caller, freed with plan_free(). */
struct vp_plan {
	int nvms;
	struct vp_vm_plan *vm;	/* [nvms], same order as the input */
	struct vp_cpuset shared_pool;	/* PUs left for shared VMs */
	unsigned long probes;	/* PUs probed while planning */
};

/*
 * Computes a plan.  Returns 0 with *ret_plan set (free with plan_free()),
 * -EINVAL for bad input (nvcpus < 1 or > VP_MAX_PUS, no PU left for the
 * host), -ENOMEM.  A VM whose request cannot be met gets error -ENOSPC
 * and no vCPU plans; the others are planned.
 */
int plan_compute(const struct vp_topo *t, const struct vp_plan_input *in,
    struct vp_plan **ret_plan) VP_MUST_CHECK;
/* Accepts NULL. */
void plan_free(struct vp_plan *p);

static inline void plan_free_p(struct vp_plan **p) { plan_free(*p); }
#define _cleanup_plan_ __attribute__((cleanup(plan_free_p)))

/* ---------------------------------------------------------------- */
/* churn.c: which of the plan's moves a tick applies */

/*
 * A live pin costs ~4 ms (measured) and leaves the vCPU on a cold
 * cache, so a move the plan wants is made only for a reason, and only
 * a few per tick.  Defaults, for a 250 ms tick:
 */
/* a plan must differ 2 ticks in a row (0.5 s) before a vCPU follows it:
 * one tick of host load is noise, and would move it there and back */
#define VP_CHURN_HYSTERESIS_TICKS	2
/* 5 s (20 ticks) between two moves of one vCPU: a vCPU whose plan
 * flips with the host's load pays at most one pin and one cold cache
 * per 5 s */
#define VP_CHURN_COOLDOWN_NS	(5ULL * 1000000000)
/* 16 pins x 4 ms = 64 ms, a quarter of a 250 ms tick */
#define VP_CHURN_MOVE_BUDGET	16

/* The tunables of the rules.  Plain data: copy it, change it. */
struct vp_churn_rules {
	unsigned int hysteresis_ticks;	/* 0 or 1: follow the plan at once */
	uint64_t cooldown_ns;
	unsigned int move_budget;	/* pins per tick, must-moves included */
};

/*
 * What the must-move rule looks at, all borrowed from the caller for the
 * call: the model, the host's reserved PUs (an empty set when none, never
 * NULL) and the plan's shared pool (struct vp_plan.shared_pool).  Every
 * PU of the model in neither set belongs to one VM exclusively.
 */
struct vp_churn_host {
	const struct vp_topo *topo;
	const struct vp_cpuset *reserved;
	const struct vp_cpuset *shared_pool;
};

enum vp_churn_verdict {
	VP_CHURN_UNCHANGED,	/* the live affinity is the plan's */
	VP_CHURN_WAIT,		/* differs: hysteresis or cooldown holds it */
	VP_CHURN_MAY,		/* differs long enough, cooled down: moves
				 * when the budget allows */
	VP_CHURN_MUST,		/* broken affinity, new VM or new policy:
				 * moves now, before any may-move */
};

/*
 * One vCPU as the rules see it.  The caller fills the inputs and keeps
 * pending_ticks and last_move_ns between ticks (the rules never reset
 * pending_ticks after a move: whoever applies the move does, as it sets
 * last_move_ns).  Invariant: after churn_classify(), pending_ticks is 0
 * when the live affinity equals the plan.
 */
struct vp_churn_vcpu {
	const struct vp_cpuset *affinity;	/* live; borrowed */
	const struct vp_cpuset *planned;	/* the plan's; borrowed */
	unsigned int pending_ticks;	/* in/out: ticks the plan differed */
	uint64_t last_move_ns;		/* 0 never; on the clock of now_ns */
	bool urgent;			/* new VM or policy: move now */
	enum vp_churn_verdict verdict;	/* out: churn_classify() */
	bool move;			/* out: churn_pick() took it */
};

/* Fills @ret with the VP_CHURN_* defaults above. */
void churn_rules_default(struct vp_churn_rules *ret);
/*
 * True when @affinity breaks a rule whatever the plan prefers: it is
 * empty, holds a PU the model does not have (offline), holds only
 * reserved PUs, or holds a PU that is outside @planned and belongs to
 * another VM exclusively.
 */
bool churn_affinity_broken(const struct vp_churn_host *h,
    const struct vp_cpuset *affinity, const struct vp_cpuset *planned);
/*
 * Classifies @v for the tick at @now_ns, sets v->verdict and returns it.
 * Counts v->pending_ticks: reset when the plan is the live affinity, one
 * more for a plan that differs and is not a must-move (so a vCPU in its
 * cooldown goes on counting).  Leaves v->move alone.
 */
enum vp_churn_verdict churn_classify(const struct vp_churn_host *h,
    const struct vp_churn_rules *r, struct vp_churn_vcpu *v, uint64_t now_ns);
/*
 * Picks the moves of one tick among @n classified vCPUs: the must-moves in
 * array order, then the may-moves in array order, at most @budget in all.
 * Sets every v[i].move; returns how many it took.  The ones left out keep
 * their verdict and pending_ticks, so they stay due the next tick.
 */
unsigned int churn_pick(struct vp_churn_vcpu *v, int n, unsigned int budget);

/* ---------------------------------------------------------------- */
/* conflict.c: SMT conflicts, the waste placement exists to avoid */

/* One vCPU's load and place, for the conflict count. */
struct vp_conflict_vcpu {
	bool busy;		/* ran more than half of the last tick */
	int current;		/* PU it last ran on, or VP_PU_NONE */
	const struct vp_cpuset *allowed;	/* live affinity; borrowed */
};

/* Sets @ret to the PUs of every core none of whose PUs is in @busy. */
void conflict_idle_core_pus(const struct vp_topo *t,
    const struct vp_cpuset *busy, struct vp_cpuset *ret);
/*
 * True when @v is an SMT conflict: busy, on a core with another PU in
 * @busy, while @v->allowed holds a PU of @idle_cores (from
 * conflict_idle_core_pus() on the same @busy), so a whole idle core was
 * there for it.  @busy holds all work, the vCPU's own included.
 */
bool conflict_vcpu(const struct vp_topo *t, const struct vp_cpuset *busy,
    const struct vp_cpuset *idle_cores, const struct vp_conflict_vcpu *v);

/* ---------------------------------------------------------------- */
/* wakedom.c: the domains a wake-up searches, widened on tiny LLCs */

enum vp_level {
	VP_LEVEL_CLUSTER, VP_LEVEL_LLC, VP_LEVEL_NODE, VP_LEVEL_PACKAGE,
	VP_LEVEL_COUNT
};

const char *wakedom_level_name(enum vp_level l);
/* How many domains level @l has (clusters, LLCs, nodes, packages). */
int wakedom_count(const struct vp_topo *t, enum vp_level l);
/* The index, at level @l, of the domain that holds @pu. */
int wakedom_index(const struct vp_topo *t, int pu, enum vp_level l);
/* The PUs of domain @index of level @l. */
void wakedom_pus(const struct vp_topo *t, enum vp_level l, int index,
    struct vp_cpuset *ret);
/* Its cores. */
int wakedom_ncores(const struct vp_topo *t, enum vp_level l, int index);
/*
 * The smallest level, @from or wider (cluster, LLC, node, package), whose
 * domain around @pu has at least @ncores cores: a VM of @ncores vCPUs
 * then finds a core for each without stacking on SMT siblings.  The
 * package when none has.
 */
enum vp_level wakedom_widen(const struct vp_topo *t, int pu,
    enum vp_level from, int ncores);
/*
 * Cores a VM of @nvcpus vCPUs needs in one domain around @pu: one per
 * vCPU, or with smt=siblings one per core's worth of vCPUs.
 */
int wakedom_cores_needed(const struct vp_topo *t, enum vp_smt smt,
    int nvcpus, int pu);
/*
 * The level a vCPU homed at @pu may run in under @loc, for a VM needing
 * @ncores cores: the locality's own level widened as wakedom_widen(),
 * and never a domain of one core (VP_LEVEL_COUNT for VP_LOC_ANY).
 */
enum vp_level wakedom_locality_level(const struct vp_topo *t, int pu,
    enum vp_locality loc, int ncores);

#endif /* VCPUPLACE_H */
