/*
 * scenario.h - the dry-run input of `vcpuplacectl plan`: VMs with their
 * policies and the host PUs that are busy, as JSON (see README.md).
 */
#ifndef SCENARIO_H
#define SCENARIO_H

#include "core/vcpuplace.h"

/* A parsed scenario; owns its VM names.  Free with scenario_free(). */
struct vp_scenario {
	struct vp_vm_spec *vms;
	int nvms;
	struct vp_cpuset busy;
	struct vp_cpuset reserved;
	struct vp_features feat;
};

/*
 * Parses JSON @text against model @t (CPU lists are OS numbers of @t).
 * Returns 0 with *ret set, or -EINVAL with a message naming the field at
 * fault in @err (e.g. "vms[1].policy.smt: unknown value 'sometimes'"),
 * or -ENOMEM.  *ret is untouched on failure.
 */
int scenario_parse(const struct vp_topo *t, const char *text,
    struct vp_scenario **ret, char *err, size_t errlen) VP_MUST_CHECK;
/* Accepts NULL. */
void scenario_free(struct vp_scenario *s);

#endif /* SCENARIO_H */
