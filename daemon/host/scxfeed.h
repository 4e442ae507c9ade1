/*
 * scxfeed.h - the placement core's model and plan as the sched_ext
 * scheduler's tables (daemon/scx/vcpuplace_scx.h): what the daemon writes
 * each tick, and what the boot test writes to drive the scheduler the same
 * way.  The scxfeed_*() builders are pure; scxfeed_topology() writes
 * through the loader (host/scx.h).
 */
#ifndef VP_SCXFEED_H
#define VP_SCXFEED_H

#include <stdint.h>

#include "core/vcpuplace.h"
#include "host/scx.h"

/* PU @pu's entry (indexed by its OS id).  -ERANGE: too many SMT threads. */
int scxfeed_pu(const struct vp_topo *t, int pu, struct vp_scx_pu *ret);
/*
 * Domain @index of level @l: its PUs as OS ids, core by core.  -ERANGE:
 * more than VP_SCX_DOM_CPUS, or an OS id past VP_SCX_MAX_CPUS.
 */
int scxfeed_dom(const struct vp_topo *t, enum vp_level l, int index,
    struct vp_scx_dom *ret);
/* Its id in vp_doms: the levels one after the other. */
unsigned int scxfeed_dom_id(const struct vp_topo *t, enum vp_level l,
    int index);
/* Whether every domain of @t fits in vp_doms. */
bool scxfeed_fits(const struct vp_topo *t);
/*
 * Writes every PU and every domain of every level.  -ERANGE: the
 * topology is bigger than the tables (nothing is half-written that a
 * wake-up would use: vCPU entries come after).
 */
int scxfeed_topology(struct scx_sched *s, const struct vp_topo *t);

/*
 * The cores a VM of @nvcpus needs so that none of its vCPUs shares a core
 * with another of them: one each, or one per SMT width when its policy
 * packs them onto siblings.
 */
int scxfeed_cores_needed(const struct vp_topo *t, int nvcpus,
    const struct vp_policy *p);
/*
 * The entry of one vCPU of a VM of @nvcpus homed on dense PU @home
 * (VP_PU_NONE: none).  Near domain: the home cluster, far: the home LLC,
 * each widened (wakedom_widen()) until it holds a core per vCPU; with
 * locality cluster, llc or numa, wake-ups never leave the far domain,
 * which is then that level's, widened.
 */
void scxfeed_vcpu(const struct vp_topo *t, int home, int nvcpus,
    const struct vp_policy *p, uint64_t short_sleep_ns,
    struct vp_scx_vcpu *ret);
/* The core's feature switches as enum vp_scx_feature bits. */
uint32_t scxfeed_features(const struct vp_features *f);

#endif /* VP_SCXFEED_H */
