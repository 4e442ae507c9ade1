/*
 * trace.c - recording the steps of a placement decision.  Bounded: a
 * scan over a 272-PU LLC must not grow a plan by kilobytes per vCPU,
 * so past VP_TRACE_MAX steps only a count is kept.
 */
#include "core/vcpuplace.h"

static const char *const step_tags[VP_STEP_COUNT] = {
	[VP_STEP_ANCHOR] = "anchor",
	[VP_STEP_SCAN_LLC] = "scan-llc",
	[VP_STEP_BUSY] = "busy",
	[VP_STEP_OUTSCORED] = "outscored",
	[VP_STEP_SIBLING_BUSY] = "sibling-busy",
	[VP_STEP_CHOSEN] = "chosen",
	[VP_STEP_KEPT] = "kept",
	[VP_STEP_TOOK_CORE] = "took-core",
};

void
trace_step(struct vp_trace *tr, enum vp_step step, int pu, int arg)
{
	if (tr->n >= VP_TRACE_MAX) {
		tr->dropped++;
		return;
	}
	tr->s[tr->n++] = (struct vp_trace_step){
		.step = step, .pu = pu, .arg = arg,
	};
}

const char *
trace_step_tag(enum vp_step step)
{
	return (unsigned int)step < VP_STEP_COUNT ? step_tags[step] : "?";
}
