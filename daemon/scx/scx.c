/*
 * scx.c - see scx.h: what needs no BPF, in every build (sched_ext's
 * files in sysfs, a thread's class).  The loader is daemon/scx/
 * scx_loader.c, its stand-in without BPF scx_stub.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/sched.h>
#include <linux/sched/types.h>

#include "host/procstat.h"
#include "scx/scx.h"
#include "host/smallfile.h"

/* Linux 6.12 include/uapi/linux/sched.h; Debian 12's headers are 6.1 */
#ifndef SCHED_EXT
#define SCHED_EXT 7
#endif

#define SCX_STATE_PATH "sys/kernel/sched_ext/state"
#define SCX_OPS_PATH "sys/kernel/sched_ext/root/ops"
#define SCX_BTF_PATH "sys/kernel/btf/vmlinux"

/* <@root>/@rel into @path; -ENAMETOOLONG.  @root NULL: "/". */
static int
path_under(const char *root, const char *rel, char *path, size_t len)
{
	if ((size_t)snprintf(path, len, "%s/%s", root ? root : "", rel) >=
	    len)
		return -ENAMETOOLONG;
	return 0;
}

/* One line of a sysfs file under @root into @buf, without the newline. */
static int
read_line(const char *root, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int err;

	if ((err = path_under(root, rel, path, sizeof(path))) < 0)
		return err;
	if ((n = read_small_file(path, buf, len)) < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int
scx_state_read(const char *root, char *buf, size_t len)
{
	return read_line(root, SCX_STATE_PATH, buf, len);
}

int
scx_loaded_ops(const char *root, char *buf, size_t len)
{
	int err = read_line(root, SCX_OPS_PATH, buf, len);

	/* root/ops exists only while a scheduler is loaded */
	if (err == 0 && buf[0] == '\0')
		return -ENOENT;
	return err;
}

int
scx_kernel_supports(const char *root)
{
	char path[PATH_MAX];
	int err;

	if ((err = path_under(root, SCX_STATE_PATH, path, sizeof(path))) < 0)
		return err;
	if (access(path, F_OK) < 0)
		return -ENOENT;
	if ((err = path_under(root, SCX_BTF_PATH, path, sizeof(path))) < 0)
		return err;
	if (access(path, R_OK) < 0)
		return -ENODATA;
	return 0;
}

/* Whether @t is still the thread the daemon read: -ESRCH if not. */
static int
same_thread(const struct scx_thread *t)
{
	uint64_t start;
	int r;

	if ((r = procstat_read_u64(t->pid, t->tid, PROCSTAT_START_TIME,
	    &start)) < 0)
		return r;
	return start == t->start ? 0 : -ESRCH;
}

/*
 * Every class but the default is the thread's own choice, never
 * overridden: libvirt's <vcpusched> sets fifo, rr, batch or idle, and
 * an operator's chrt any of them or deadline.
 */
static bool
own_class(unsigned int policy)
{
	return policy != SCHED_NORMAL && policy != SCHED_EXT;
}

int
scx_task_set_ext(const struct scx_thread *t, bool ext)
{
	struct sched_attr attr;
	int r;

	if ((r = same_thread(t)) < 0)
		return r;
	/* glibc 2.36 has no wrappers; the nice value is read and kept */
	memset(&attr, 0, sizeof(attr));
	if (syscall(SYS_sched_getattr, t->tid, &attr, sizeof(attr), 0) < 0)
		return -errno;
	if (own_class(attr.sched_policy))
		return SCX_OWN_CLASS;
	/* back only from where we put it; there already: nothing to do */
	if (!ext && attr.sched_policy != SCHED_EXT)
		return 0;
	if (ext && attr.sched_policy == SCHED_EXT)
		return 0;
	attr.size = sizeof(attr);
	attr.sched_policy = ext ? SCHED_EXT : SCHED_NORMAL;
	attr.sched_flags = 0;
	attr.sched_priority = 0;
	if (syscall(SYS_sched_setattr, t->tid, &attr, 0) < 0)
		return -errno;
	return 0;
}

/* enum scx_exit_kind of Linux 6.12 (kernel/sched/ext.c) */
const char *
scx_exit_kind_name(int kind)
{
	switch (kind) {
	case 0: return "none";
	case 1: return "done";
	case 64: return "unregistered";
	case 65: return "unregistered-bpf";
	case 66: return "unregistered-kernel";
	case 67: return "sysrq";
	case 1024: return "error";
	case 1025: return "bpf-error";
	case 1026: return "stall";
	default: return "unknown";
	}
}

bool
scx_quota_enforced(void)
{
	/*
	 * vcpuplace.bpf.c has no ops.cgroup_set_bandwidth (7.3.4's
	 * sched_ext_ops has it, 6.12's not) and throttles nothing itself;
	 * CFS's bandwidth control throttles only CFS tasks, and a full
	 * switch moves every task out of CFS.
	 */
	return false;
}
