/* qemu.c - see qemu.h. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/qemu.h"

#define QEMU_RUN_DIR	"/run/libvirt/qemu"

static int
read_pidfile(const char *dir, const char *name)
{
	char path[1536];
	int pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.pid", dir, name);
	if (!(f = fopen(path, "re")))
		return 0;
	if (fscanf(f, "%d", &pid) != 1 || pid < 1)
		pid = 0;
	fclose(f);
	return pid;
}

/*
 * @name as XML text: libvirt 9.0 names the pidfile of a domain called
 * web "1" 'web &quot;1&quot;.pid' (seen on Debian 12).  false if it does
 * not fit.
 */
static bool
xml_escaped(const char *name, char *out, size_t size)
{
	size_t n = 0, k;
	const char *rep;
	char one[2] = "";

	for (; *name; name++) {
		switch (*name) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&apos;"; break;
		default: one[0] = *name; rep = one; break;
		}
		k = strlen(rep);
		if (n + k >= size)
			return false;
		memcpy(out + n, rep, k);
		n += k;
	}
	out[n] = '\0';
	return true;
}

int
qemu_pid(const char *run_dir, const char *name)
{
	const char *dir = run_dir ? run_dir : QEMU_RUN_DIR;
	char esc[1280];
	int pid = read_pidfile(dir, name);

	if (!pid && xml_escaped(name, esc, sizeof(esc)) && strcmp(esc, name))
		pid = read_pidfile(dir, esc);
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
