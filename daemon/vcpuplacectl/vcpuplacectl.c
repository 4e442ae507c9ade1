/*
 * vcpuplacectl - the command-line client of vcpuplace.
 *
 *   vcpuplacectl topology [--topology FILE.xml] [--json]
 *   vcpuplacectl plan [--topology FILE.xml] --scenario FILE.json [--json]
 *   vcpuplacectl policy get [--connect URI] [--policies DIR] VM
 *   vcpuplacectl policy set [--connect URI] [--policies DIR] VM PROFILE
 *       [field=value ...]
 *   vcpuplacectl status [--socket PATH] [--json]
 *   vcpuplacectl metrics [--socket PATH]
 *   vcpuplacectl explain [--socket PATH] VM VCPU
 *   vcpuplacectl reload [--socket PATH]
 *   vcpuplacectl top [--socket PATH]
 *
 * Exit status: 0 success, 1 bad input or failure, 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vcpuplacectl/ctl.h"
#include "host/hwtopo.h"

static void
usage(FILE *f)
{
	fputs("usage: vcpuplacectl topology [--topology FILE.xml] [--json]\n"
	    "       vcpuplacectl plan [--topology FILE.xml] "
	    "--scenario FILE.json [--json]\n"
	    "       vcpuplacectl policy get [--connect URI] "
	    "[--policies DIR] VM\n"
	    "       vcpuplacectl policy set [--connect URI] "
	    "[--policies DIR] VM PROFILE [field=value ...]\n"
	    "       vcpuplacectl status [--socket PATH] [--json]\n"
	    "       vcpuplacectl metrics [--socket PATH]\n"
	    "       vcpuplacectl explain [--socket PATH] VM VCPU\n"
	    "       vcpuplacectl reload [--socket PATH]\n"
	    "       vcpuplacectl top [--socket PATH]\n"
	    "The socket defaults to " VP_DEFAULT_SOCKET ".\n", f);
}

int
ctl_load_topo(const char *path, struct vp_topo **ret_topo)
{
	int r;

	r = path ? hwtopo_load_xml(path, ret_topo) :
	    hwtopo_load_host(ret_topo);
	if (r < 0)
		fprintf(stderr, "vcpuplacectl: topology %s: %s\n",
		    path ? path : "(live host)",
		    r == -EINVAL ? "hwloc cannot load it, or it has no PU" :
		    strerror(-r));
	return r;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "topology"))
		return ctl_topology(argc - 1, argv + 1);
	if (!strcmp(argv[1], "plan"))
		return ctl_plan(argc - 1, argv + 1);
	if (!strcmp(argv[1], "policy"))
		return ctl_policy(argc - 1, argv + 1);
	if (!strcmp(argv[1], "status"))
		return ctl_status(argc - 1, argv + 1);
	if (!strcmp(argv[1], "metrics"))
		return ctl_metrics(argc - 1, argv + 1);
	if (!strcmp(argv[1], "explain"))
		return ctl_explain(argc - 1, argv + 1);
	if (!strcmp(argv[1], "reload"))
		return ctl_reload(argc - 1, argv + 1);
	if (!strcmp(argv[1], "top"))
		return ctl_top(argc - 1, argv + 1);
	fprintf(stderr, "vcpuplacectl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
