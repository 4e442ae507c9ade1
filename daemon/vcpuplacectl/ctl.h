/*
 * ctl.h - the subcommands of vcpuplacectl, one file each.
 */
#ifndef CTL_H
#define CTL_H

#include "core/vcpuplace.h"
#include "host/defaults.h"

/* vcpuplacectl.c */
/* Loads @path, or the live host when NULL; logs and returns -errno. */
int ctl_load_topo(const char *path, struct vp_topo **ret_topo);

/* ctl_topology.c */
int ctl_topology(int argc, char **argv);

/* ctl_plan.c */
int ctl_plan(int argc, char **argv);

/* ctl_policy.c */
int ctl_policy(int argc, char **argv);

/* client.c: the daemon's control socket */
/*
 * Sends @line, reads the whole answer into *ret (malloc'd).  Prints a
 * clear error and returns -errno when the daemon is not running or
 * cannot be reached, and -EINVAL (after printing it) when the daemon
 * answered "error: ...".
 */
int ctl_request(const char *path, const char *line, char **ret);

/* ctl_status.c: status, metrics, explain, reload */
int ctl_status(int argc, char **argv);
int ctl_metrics(int argc, char **argv);
int ctl_explain(int argc, char **argv);
int ctl_reload(int argc, char **argv);

/* ctl_top.c: the live full-screen view */
int ctl_top(int argc, char **argv);

#endif /* CTL_H */
