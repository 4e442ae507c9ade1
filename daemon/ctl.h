/*
 * ctl.h - the subcommands of vcpuplacectl, one file each.
 */
#ifndef CTL_H
#define CTL_H

#include "vcpuplace.h"

/* vcpuplacectl.c */
/* Loads @path, or the live host when NULL; logs and returns -errno. */
int ctl_load_topo(const char *path, struct vp_topo **ret_topo);

/* ctl_topology.c */
int ctl_topology(int argc, char **argv);

/* ctl_plan.c */
int ctl_plan(int argc, char **argv);

/* ctl_policy.c */
int ctl_policy(int argc, char **argv);

#endif /* CTL_H */
