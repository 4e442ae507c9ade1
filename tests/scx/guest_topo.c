/* guest_topo.c - see guest_topo.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "guest_topo.h"

#define CPU_DIR "/sys/devices/system/cpu/cpu%d/%s"

/* One number from a sysfs file of CPU @cpu; @fallback when it is absent. */
static long
cpu_attr(int cpu, const char *attr, long fallback)
{
	char path[128];
	long v;
	FILE *f;

	snprintf(path, sizeof(path), CPU_DIR, cpu, attr);
	f = fopen(path, "r");
	if (!f)
		return fallback;
	if (fscanf(f, "%ld", &v) != 1)
		v = fallback;
	fclose(f);
	return v;
}

int
guest_topo_load(struct vp_topo **ret_topo)
{
	int n = (int)sysconf(_SC_NPROCESSORS_ONLN), cpu, err;
	struct vp_pu_desc *d;

	if (n <= 0)
		return -ENODEV;
	d = calloc(n, sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (cpu = 0; cpu < n; cpu++) {
		long pkg = cpu_attr(cpu, "topology/physical_package_id", 0);
		long core = cpu_attr(cpu, "topology/core_id", cpu);
		long cl = cpu_attr(cpu, "topology/cluster_id", -1);

		/* no cluster level (x86 reports 65535): the core is one */
		if (cl < 0 || cl >= 65535)
			cl = core;
		d[cpu].os_index = (unsigned int)cpu;
		d[cpu].package_key = (unsigned long)pkg;
		/*
		 * The package is the LLC: under QEMU TCG with -cpu max,
		 * cache/index3/id reads 0..7 on 8 CPUs (a private L3 per
		 * thread, splitting SMT siblings), which no real host has.
		 */
		d[cpu].llc_key = (unsigned long)pkg;
		d[cpu].cluster_key = (unsigned long)(pkg << 20 | cl);
		d[cpu].core_key = (unsigned long)(pkg << 20 | core);
		d[cpu].node_os = 0;
		d[cpu].llc_cache_level = 3;
	}
	err = topo_build(d, n, ret_topo);
	if (err)	/* the values, so a failure can be understood */
		for (cpu = 0; cpu < n; cpu++)
			fprintf(stderr, "guest_topo: cpu %d package %lu llc "
			    "%#lx cluster %#lx core %#lx\n", cpu,
			    d[cpu].package_key, d[cpu].llc_key,
			    d[cpu].cluster_key, d[cpu].core_key);
	free(d);
	return err;
}
