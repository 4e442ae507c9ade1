/* qemu.c - see qemu.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/qemu.h"
#include "host/smallfile.h"

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

/* The pid in @dir/@name.pid, 0 if none. */
static int
read_pidfile(const char *dir, const char *name)
{
	char path[1536], text[128];

	snprintf(path, sizeof(path), "%s/%s.pid", dir, name);
	if (read_small_file(path, text, sizeof(text)) < 0)
		return 0;
	return qemu_parse_pid(text);
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

int
qemu_vcpu_of_comm(const char *comm)
{
	const char *end;
	int n;

	/* sscanf("CPU %d/") took "CPU 1S/" for vCPU 1: the '/' is checked */
	if (strncmp(comm, "CPU ", 4))
		return -1;
	n = parse_uint(comm + 4, &end);
	/* QEMU writes plain decimal: "CPU 01/" is not its name */
	if (comm[4] == '0' && end > comm + 5)
		return -1;
	return n >= 0 && *end == '/' ? n : -1;
}

/* "CPU N/..." is a vCPU thread; its N, or -1. */
static int
vcpu_of_comm(int pid, int tid)
{
	char path[96], comm[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	if (read_small_file(path, comm, sizeof(comm)) < 0)
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
