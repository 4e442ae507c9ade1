/*
 * testutil.h - helpers shared by the unit tests: topology loading, the
 * hwloc-calc oracle, a seeded PRNG, views over a busy set and a
 * sched/features file in a temp dir.
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stdint.h>

#include "core/vcpuplace.h"

/* Every XML file in tests/topologies, and how many there are. */
extern const char *const test_topo_files[];
extern const int test_ntopo;

/* $VP_TOPOLOGY_DIR/@file, malloc'ed (default dir: tests/topologies). */
char *topo_path(const char *file);
/* Loads $VP_TOPOLOGY_DIR/@file with hwtopo_load_xml(); fails the test. */
struct vp_topo *load_topo(const char *file);
/* Loads a synthetic description; fails the test on error. */
struct vp_topo *load_synth(const char *desc);

/*
 * Runs "hwloc-calc -i $VP_TOPOLOGY_DIR/@file @args" and returns its
 * stdout without the trailing newline, malloc'ed ("" when it prints
 * nothing).  Fails the test when hwloc-calc cannot be run.
 */
char *hwloc_calc(const char *file, const char *args);
/* hwloc-calc --number-of @type all; 0 when hwloc-calc prints nothing. */
int hwloc_count(const char *file, const char *type);

/* Dense index of OS CPU @os; fails the test when it is not in @t. */
int os2pu(const struct vp_topo *t, unsigned int os);
/* Set of the PUs with OS numbers in [first, last]; all must exist. */
void os_range(const struct vp_topo *t, struct vp_cpuset *s,
    unsigned int first, unsigned int last);

/* True when every PU of @pu's core is clear in @busy. */
bool core_idle(const struct vp_topo *t, const struct vp_cpuset *busy,
    int pu);
/* True when every PU of @pu's core is in @s. */
bool core_inside(const struct vp_topo *t, const struct vp_cpuset *s, int pu);

/* Deterministic xorshift64* PRNG. */
struct rng {
	uint64_t s;
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, n). */
int rng_below(struct rng *r, int n);
/* Random subset of t->all: each PU with probability @pct percent. */
void rng_set(struct rng *r, const struct vp_topo *t, int pct,
    struct vp_cpuset *s);

/*
 * A decision's world for tests: the features, the busy set and an idle
 * mask, all owned here.  tview_init() starts with every PU idle and the
 * idle mask rebuilt; tview_release() frees the mask.
 */
struct tview {
	struct vp_features feat;
	struct vp_cpuset busy;
	struct vp_idlemask idle;
	struct vp_view v;
};

void tview_init(struct tview *tv, const struct vp_topo *t);
/* Rebuilds the idle mask from tv->busy and resets the probe count. */
void tview_sync(struct tview *tv);
void tview_release(struct tview *tv);

/*
 * <root>/sched/features, laid out as debugfs has it, holding @line; NULL
 * removes it; SCHED_FEATURES_UNREADABLE makes it a directory, which
 * even root cannot read (EISDIR), as lockdown's EPERM would be.
 */
#define SCHED_FEATURES_UNREADABLE	"(unreadable)"
void sched_features_put(const char *root, const char *line);
/* Removes sched/features, sched and @root itself (a mkdtemp dir). */
void sched_features_remove(const char *root);

/*
 * A fake root for adapters that take one (isolation.h, scx.h):
 * <root>/@rel holding @text, its folders made; NULL removes it;
 * TREE_UNREADABLE makes it a directory, which even root cannot read
 * (EISDIR).  tree_remove() removes @root and all under it.
 */
#define TREE_UNREADABLE	SCHED_FEATURES_UNREADABLE
void tree_put(const char *root, const char *rel, const char *text);
void tree_remove(const char *root);

/* This process's open file descriptors: a read must leave none behind. */
int open_fds(void);

#endif /* TESTUTIL_H */
