/*
 * tick.h - the planner with hysteresis, cooldown and a move budget (tick.c).
 */
#ifndef VP_TICK_H
#define VP_TICK_H

struct vp_daemon;

void tick_plan(struct vp_daemon *d);
/*
 * The same on a libvirt event, off the tick: only the moves the churn
 * rules call urgent (new VM, new policy, broken affinity); the hysteresis
 * of the others is left to the ticks.
 */
void tick_plan_urgent(struct vp_daemon *d);
void tick_free(struct vp_daemon *d);

#endif /* VP_TICK_H */
