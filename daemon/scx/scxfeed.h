/*
 * scxfeed.h - the placement core's model and plan as the sched_ext
 * scheduler's tables (daemon/scx/vcpuplace_scx.h): what the daemon writes
 * (vcpuplaced/schedext.c), and what the boot tests write to drive the
 * scheduler the same way (tests/scx/).  Everything the BPF side sees is
 * in OS CPU numbers, and every domain by a domain id: the clusters first,
 * then the LLCs, the NUMA nodes and the packages.  The builders are pure;
 * scxfeed_topology() writes them all, through the loader (scx/scx.h) or
 * the daemon's seam.
 */
#ifndef VP_SCXFEED_H
#define VP_SCXFEED_H

#include <stddef.h>
#include <stdint.h>

#include "core/vcpuplace.h"
#include "scx/scx.h"

/*
 * The daemon does not see how long a vCPU sleeps (schedstat gives run
 * and wait time, not sleep lengths), so SIS_CACHE's "short sleep" is one
 * constant for every cache_hot vCPU: a tenth of the kernel's own
 * cache-hot horizon for a migration (sysctl_sched_migration_cost, 500
 * us), so that only ping-pong wake-ups (an IPI, a short I/O completion)
 * count as cache-hot.
 */
#define SCXFEED_SHORT_SLEEP_NS	50000ULL

/* enum vp_scx_feature bits of the core's switches; HOME always on. */
uint32_t scxfeed_features(const struct vp_features *f);
/* The id of domain @index of level @l: levels in enum order, packed. */
unsigned int scxfeed_dom_id(const struct vp_topo *t, enum vp_level l,
    int index);
/* How many domain ids there are (every level's domains). */
unsigned int scxfeed_ndoms(const struct vp_topo *t);
/* The level and index of domain id @id; -ERANGE when it is none. */
int scxfeed_dom_of(const struct vp_topo *t, unsigned int id,
    enum vp_level *ret_level, int *ret_index) VP_MUST_CHECK;
/*
 * 0 when the model fits the BPF tables (OS CPU ids below
 * VP_SCX_MAX_CPUS, at most VP_SCX_MAX_DOMS domains of at most
 * VP_SCX_DOM_CPUS CPUs, at most VP_SCX_MAX_SMT siblings), else -E2BIG
 * with the first excess in @why.
 */
int scxfeed_topo_fits(const struct vp_topo *t, char *why, size_t len);
/* The vp_pus entry of dense PU @pu. */
void scxfeed_pu(const struct vp_topo *t, int pu, struct vp_scx_pu *ret);
/* The vp_doms entry of domain @index of @l; -E2BIG when too many CPUs. */
int scxfeed_dom(const struct vp_topo *t, enum vp_level l, int index,
    struct vp_scx_dom *ret) VP_MUST_CHECK;
/* What one vCPU's vp_vcpus entry is made of. */
struct scxfeed_vcpu_in {
	const struct vp_policy *policy;
	int nvcpus;		/* its VM's */
	int home;		/* dense PU of the affinity in force, or NONE */
	int anchor;		/* dense PU the domains are around when it
				 * has no home (where it runs); NONE: PU 0 */
	int vm, vcpu;		/* the daemon's indexes */
	uint64_t short_sleep_ns;	/* SIS_CACHE's bound, with cache_hot */
};
void scxfeed_vcpu(const struct vp_topo *t,
    const struct scxfeed_vcpu_in *in, struct vp_scx_vcpu *ret);
/* Field by field (the struct has padding): equal entries are not rewritten. */
bool scxfeed_vcpu_equal(const struct vp_scx_vcpu *a,
    const struct vp_scx_vcpu *b);

/* Where scxfeed_topology() writes: the loader's setters, or a seam. */
struct scxfeed_writer {
	int (*pu_set)(struct scx_sched *s, int cpu, const struct vp_scx_pu *pu);
	int (*dom_set)(struct scx_sched *s, unsigned int id,
	    const struct vp_scx_dom *dom);
};
/*
 * Writes every PU and every domain of every level through @w (NULL: the
 * loader's scx_pu_set() and scx_dom_set()).  CPU ids below @cpu_limit
 * that @t has no PU for (holes, or CPUs an earlier topology had) are
 * written invalid.  -E2BIG: the model does not fit the tables.
 */
int scxfeed_topology(struct scx_sched *s, const struct vp_topo *t,
    unsigned int cpu_limit, const struct scxfeed_writer *w);

/* One vCPU thread as its vp_vcpus entry was last written. */
struct vp_scx_pushed {
	int tid;
	int pid;		/* its QEMU */
	uint64_t start;		/* its start time: (tid, start) is one thread */
	bool ext;		/* moved into SCHED_EXT */
	bool own_class;		/* left in its own real-time class */
	struct vp_scx_vcpu e;
};

/*
 * Orders entries by tid, for qsort() and bsearch(): the daemon keeps
 * what it wrote sorted so that a tick's changes are one merge.
 */
int scxfeed_pushed_cmp(const void *a, const void *b);
/* The entry of thread @tid among @n sorted by tid, or NULL. */
const struct vp_scx_pushed *scxfeed_pushed_find(
    const struct vp_scx_pushed *p, int n, int tid);
/*
 * One tick's vp_vcpus changes, in the order they are made: for a new
 * thread its entry, then the move into SCHED_EXT (so it never runs
 * there without one); for a gone thread the move out, then the delete.
 */
enum vp_scx_act_kind { VP_SCX_SET, VP_SCX_EXT_ON, VP_SCX_EXT_OFF, VP_SCX_DEL };
struct vp_scx_act {
	enum vp_scx_act_kind kind;
	int tid;
	int want;		/* SET, EXT_ON: index into @want; else -1 */
};
/*
 * Compares what was written (@old, sorted by tid) with what the plan
 * wants now (@want, sorted by tid, tids unique, .ext ignored): an entry
 * that differs is written again, an equal one is not; a thread not yet
 * in SCHED_EXT is moved (again).  Fills @ret (room for 2 * (nold +
 * nwant)) and returns how many.  Pure.
 */
int scxfeed_diff(const struct vp_scx_pushed *old, int nold,
    const struct vp_scx_pushed *want, int nwant, struct vp_scx_act *ret);

#endif /* VP_SCXFEED_H */
