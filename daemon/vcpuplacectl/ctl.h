/*
 * ctl.h - the subcommands of vcpuplacectl, one file each.
 */
#ifndef CTL_H
#define CTL_H

#include "core/vcpuplace.h"
#include "host/defaults.h"
#include "host/policy_xml.h"

/*
 * The options of the whole line, read once by vcpuplacectl.c; each field
 * a command does not take keeps its default, from host/defaults.h.  The
 * strings belong to argv.
 */
struct ctl_opts {
	const char *socket;	/* --socket: the daemon's control socket */
	const char *uri;	/* --connect: libvirt */
	const char *policy_dir;	/* --policies: profiles and policy.rng */
	const char *topology;	/* --topology: hwloc XML; NULL: live host */
	const char *scenario;	/* --scenario: plan's input, or ... */
	const char *domains;	/* --domains: ... a folder of domain XMLs */
	bool json;		/* --json */
	int frames;		/* --frames: top quits after; 0: on q */
};

/*
 * Every command is run as cmd(o, argc, argv): argv holds its operands
 * only, the command words and options taken off, as many as its entry in
 * vcpuplacectl.c's table allows.  Returns the exit status.
 */

/* vcpuplacectl.c */
/* Loads @path, or the live host when NULL; logs and returns -errno. */
int ctl_load_topo(const char *path, struct vp_topo **ret_topo);

/* ctl_topology.c */
int ctl_topology(const struct ctl_opts *o, int argc, char **argv);

/* ctl_plan.c */
int ctl_plan(const struct ctl_opts *o, int argc, char **argv);

/* ctl_fleet.c: plan --domains, VMs from domain XML files */
struct ctl_fleet_vm {
	char profile[VP_PROFILE_NAME_MAX];
	int source;		/* VP_SOURCE_* (host/choose.h) */
	char rule[384];		/* the rule's label, "" unless source rule */
	char file[256];		/* the domain XML's name in the folder */
};
struct ctl_fleet {
	struct vp_vm_spec *vms;		/* [n]; names owned by names[] */
	struct ctl_fleet_vm *why;	/* [n] */
	char (*names)[256];		/* [n] */
	int n;
	struct vp_profiles *profiles;
};
/*
 * Every *.xml of @dir, in name order, each VM's policy chosen with
 * choose_policy() under the profiles, grants and rules of @policy_dir.
 * Prints every error (a bad file, a bad policy set) and returns -errno;
 * 0 with *ret (free with ctl_fleet_free()).
 */
int ctl_fleet_load(const char *policy_dir, const char *dir,
    struct ctl_fleet **ret);
void ctl_fleet_free(struct ctl_fleet *f);	/* accepts NULL */

/* ctl_policy.c: VM */
int ctl_policy_get(const struct ctl_opts *o, int argc, char **argv);
/* ctl_policy.c: VM PROFILE [field=value ...] */
int ctl_policy_set(const struct ctl_opts *o, int argc, char **argv);

/* client.c: the daemon's control socket */
/*
 * Sends @line, reads the whole answer into *ret (malloc'd).  Prints a
 * clear error and returns -errno when the daemon is not running or
 * cannot be reached, and -EINVAL (after printing it) when the daemon
 * answered "error: ...".
 */
int client_request(const char *path, const char *line, char **ret);

/* ctl_status.c: status, metrics, explain (VM VCPU), reload, pause, resume */
int ctl_status(const struct ctl_opts *o, int argc, char **argv);
int ctl_metrics(const struct ctl_opts *o, int argc, char **argv);
int ctl_explain(const struct ctl_opts *o, int argc, char **argv);
int ctl_reload(const struct ctl_opts *o, int argc, char **argv);
int ctl_pause(const struct ctl_opts *o, int argc, char **argv);
int ctl_resume(const struct ctl_opts *o, int argc, char **argv);

/* ctl_top.c: the live full-screen view */
int ctl_top(const struct ctl_opts *o, int argc, char **argv);

#endif /* CTL_H */
