/* qemu.c - see qemu.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/qemu.h"

#define QEMU_RUN_DIR	"/run/libvirt/qemu"

/*
 * An unsigned decimal int at @s, then *ret_end after it; -1 for no digit
 * or a value past INT_MAX.  sscanf("%d") took a sign and wrapped an
 * overflow: "4294967297" became 1, init's pid; "CPU 4294967296/" vCPU 0.
 */
static int
parse_uint(const char *s, const char **ret_end)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || v > INT_MAX)
		return -1;
	*ret_end = end;
	return (int)v;
}

int
qemu_parse_pid(const char *text)
{
	const char *end;
	int pid;

	text += strspn(text, " \t\n");
	pid = parse_uint(text, &end);
	if (pid < 1 || (*end && !strchr(" \t\n", *end)))
		return 0;
	return pid;
}

/* The first @len - 1 bytes of @path, NUL-ended; -1 if it cannot be read. */
static int
read_text(const char *path, char *buf, size_t len)
{
	FILE *f;
	size_t n;

	if (!(f = fopen(path, "re")))
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

int
qemu_pid(const char *run_dir, const char *name)
{
	char path[512], text[128];

	snprintf(path, sizeof(path), "%s/%s.pid", run_dir ? run_dir :
	    QEMU_RUN_DIR, name);
	if (read_text(path, text, sizeof(text)) < 0)
		return 0;
	return qemu_parse_pid(text);
}

int
qemu_vcpu_of_comm(const char *comm)
{
	const char *end;
	int n;

	/* sscanf("CPU %d/") took "CPU 1S/" for vCPU 1: the '/' is checked */
	if (strncmp(comm, "CPU ", 4))
		return -1;
	n = parse_uint(comm + 4, &end);
	return n >= 0 && *end == '/' ? n : -1;
}

/* "CPU N/..." is a vCPU thread; its N, or -1. */
static int
vcpu_of_comm(int pid, int tid)
{
	char path[96], comm[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	if (read_text(path, comm, sizeof(comm)) < 0)
		return -1;
	comm[strcspn(comm, "\n")] = '\0';	/* one line, as fgets() read it */
	return qemu_vcpu_of_comm(comm);
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
		if (!ret_tids[n])
			found++;
		ret_tids[n] = tid;
	}
	closedir(dir);
	return found;
}
