/* qemu.c - see qemu.h. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/qemu.h"

#define QEMU_RUN_DIR	"/run/libvirt/qemu"

int
qemu_pid(const char *run_dir, const char *name)
{
	char path[512];
	int pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.pid", run_dir ? run_dir :
	    QEMU_RUN_DIR, name);
	if (!(f = fopen(path, "re")))
		return 0;
	if (fscanf(f, "%d", &pid) != 1 || pid < 1)
		pid = 0;
	fclose(f);
	return pid;
}

/* "CPU N/..." (N plain decimal digits) is a vCPU thread; its N, or -1. */
static int
vcpu_of_comm(int pid, int tid)
{
	char path[96], comm[64], *p;
	FILE *f;
	int n = -1;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	if (!(f = fopen(path, "re")))
		return -1;
	if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "CPU ", 4)) {
		/* not sscanf's %d: " +1", "-0" or "01" are not QEMU's */
		for (n = 0, p = comm + 4; *p >= '0' && *p <= '9' && n < 100000;
		    p++)
			n = n * 10 + (*p - '0');
		if (p == comm + 4 || *p != '/' || (comm[4] == '0' && p > comm + 5))
			n = -1;
	}
	fclose(f);
	return n;
}

int
qemu_vcpu_tids(int pid, int nvcpus, int *ret_tids)
{
	char path[64];
	struct dirent *e;
	DIR *dir;
	int k, n, found = 0;

	if (pid < 1)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (!(dir = opendir(path)))
		return -errno;
	for (k = 0; k < nvcpus; k++)
		ret_tids[k] = 0;
	while ((e = readdir(dir))) {
		int tid = atoi(e->d_name);

		if (tid < 1 || (n = vcpu_of_comm(pid, tid)) < 0 ||
		    n >= nvcpus)
			continue;
		if (!ret_tids[n]) {
			ret_tids[n] = tid;
			found++;
		} else if (ret_tids[n] > 0) {
			ret_tids[n] = QEMU_TID_AMBIGUOUS;
			found--;
		}
	}
	closedir(dir);
	return found;
}
