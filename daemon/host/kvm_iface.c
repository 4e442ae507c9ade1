/*
 * kvm_iface.c - KVM debugfs and sched/features, for the vcpuplace kernel
 * series: detection, per-vCPU wake hints and wake counters.
 *
 * Everything here is root-only (debugfs is mode 0700) and may disappear at
 * any moment (a VM exits), so every failure is an -errno for the caller to
 * classify, and the binary stats file is treated as untrusted input: every
 * offset it gives is checked against the bytes actually read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "host/kvm_iface.h"

/*
 * A vCPU stats file is ~5 KiB on x86 6.12 (48 stats, 64-byte descriptors,
 * three 32-bucket histograms); anything past 1 MiB is not a stats file.
 */
#define STATS_MAX_BYTES		(1u << 20)
/* KVM_STATS_NAME_SIZE is 48 since 5.14; allow growth, refuse nonsense. */
#define STATS_MAX_NAME_SIZE	256u
/* sched/features is one line of ~30 names (~700 bytes on 6.12). */
#define FEATURES_MAX_BYTES	8192

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Decimal int in [min, INT_MAX] filling all of @s up to @end_ch. */
static int
parse_int(const char *s, char end_ch, int min, int *ret)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9') {
		if (!(min < 0 && *s == '-'))
			return -EINVAL;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end != end_ch || v < min || v > INT_MAX)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

/* "<pid>-<fd>" as KVM names a VM dir (kvm_create_vm_debugfs()). */
int
kvm_iface_parse_vm_dir_name(const char *name, int *ret_pid, int *ret_fd)
{
	const char *dash = strchr(name, '-');
	int pid, fd;

	if (!dash || parse_int(name, '-', 1, &pid) ||
	    parse_int(dash + 1, '\0', 0, &fd))
		return -EINVAL;
	*ret_pid = pid;
	*ret_fd = fd;
	return 0;
}

/* "vcpuN" as KVM names a vCPU dir (kvm_create_vcpu_debugfs()). */
int
kvm_iface_parse_vcpu_name(const char *name, int *ret_id)
{
	if (strncmp(name, "vcpu", 4))
		return -EINVAL;
	return parse_int(name + 4, '\0', 0, ret_id);
}

static bool
is_dir_at(int dirfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode);
}

/* opendir() on a copy of @dirfd, so closedir() leaves @dirfd open. */
static DIR *
dir_from_fd(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

/* Reads at most @len - 1 bytes of @path (relative to @dirfd), NUL-ended. */
static ssize_t
read_small_file(int dirfd, const char *path, char *buf, size_t len)
{
	ssize_t n, total = 0;
	int fd, err;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* seq_file may hand out a line in several reads */
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - (size_t)total);
		if (n < 0) {
			err = -errno;
			close(fd);
			return err;
		}
		if (n == 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

int
kvm_iface_init(struct vp_kvm_iface *k, const char *root)
{
	const char *r = root ? root : KVM_IFACE_ROOT;

	if (strlen(r) >= sizeof(k->root))
		return -ENAMETOOLONG;
	memset(k, 0, sizeof(*k));
	strcpy(k->root, r);
	k->mode = VP_KVM_NONE;
	k->sis_core = VP_SIS_CORE_ABSENT;
	return 0;
}

/* An open fd of the first "vcpuN" dir below @vmfd, or -ENOENT. */
static int
open_first_vcpu_dir(int vmfd)
{
	struct dirent *de;
	DIR *d = dir_from_fd(vmfd);
	int id, fd = -ENOENT;

	if (!d)
		return -errno;
	while (fd < 0 && (de = readdir(d))) {
		if (!kvm_iface_parse_vcpu_name(de->d_name, &id) &&
		    is_dir_at(vmfd, de))
			fd = openat(vmfd, de->d_name,
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	closedir(d);
	return fd;
}

/*
 * The mode one vCPU dir shows.  wake_hint is opened for writing to learn
 * whether we may write it (lockdown refuses the open); opening writes
 * nothing, O_NONBLOCK so no odd file can hang us.
 */
static enum vp_kvm_mode
probe_vcpu_dir(int vcpufd, int *ret_hint_err)
{
	int fd;

	*ret_hint_err = 0;
	if (faccessat(vcpufd, "stats", F_OK, 0))
		return VP_KVM_NONE;
	if (faccessat(vcpufd, "wake_hint", F_OK, 0))
		return VP_KVM_STATS;
	fd = openat(vcpufd, "wake_hint", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*ret_hint_err = -errno;
		return VP_KVM_STATS;
	}
	close(fd);
	return VP_KVM_HINT;
}

/*
 * All vCPU dirs of a kernel carry the same files, so the first vCPU dir
 * of any VM decides.  VM dirs without vCPUs (QEMU starting) are skipped.
 */
static void
detect_mode(struct vp_kvm_iface *k, int kvmfd)
{
	struct dirent *de;
	DIR *d = dir_from_fd(kvmfd);
	int pid, vmfd_no, vmfd, vcpufd;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (kvm_iface_parse_vm_dir_name(de->d_name, &pid, &vmfd_no))
			continue;
		vmfd = openat(kvmfd, de->d_name,
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (vmfd < 0)
			continue;
		vcpufd = open_first_vcpu_dir(vmfd);
		close(vmfd);
		if (vcpufd < 0)
			continue;
		k->mode = probe_vcpu_dir(vcpufd, &k->hint_err);
		close(vcpufd);
		break;
	}
	closedir(d);
}

/* Whitespace-separated tokens: "SIS_CORE" on, "NO_SIS_CORE" off. */
enum vp_sis_core
kvm_iface_parse_features(char *buf)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(buf, " \t\n", &save); tok;
	    tok = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(tok, "SIS_CORE"))
			return VP_SIS_CORE_ON;
		if (!strcmp(tok, "NO_SIS_CORE"))
			return VP_SIS_CORE_OFF;
	}
	return VP_SIS_CORE_ABSENT;
}

/* sched/features is 0644, so lockdown refuses even reading it: UNKNOWN. */
static enum vp_sis_core
detect_sis_core(int rootfd)
{
	char buf[FEATURES_MAX_BYTES];
	ssize_t n;

	n = read_small_file(rootfd, "sched/features", buf, sizeof(buf));
	if (n == -ENOENT || n == -ENOTDIR)
		return VP_SIS_CORE_ABSENT;
	if (n < 0)
		return VP_SIS_CORE_UNKNOWN;
	return kvm_iface_parse_features(buf);
}

void
kvm_iface_detect(struct vp_kvm_iface *k)
{
	int rootfd, kvmfd;

	k->kvm_dir = false;
	k->mode = VP_KVM_NONE;
	k->hint_err = 0;
	k->sis_core = VP_SIS_CORE_ABSENT;
	rootfd = open(k->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return;
	k->sis_core = detect_sis_core(rootfd);
	kvmfd = openat(rootfd, "kvm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(rootfd);
	if (kvmfd < 0)
		return;
	k->kvm_dir = true;
	detect_mode(k, kvmfd);
	close(kvmfd);
}

static int
cmp_vcpu_id(const void *a, const void *b)
{
	const struct vp_kvm_vcpu *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static bool
has_vcpu_id(const struct vp_kvm_vm *vm, int id)
{
	int i;

	for (i = 0; i < vm->nvcpus; i++)
		if (vm->vcpu[i].id == id)
			return true;
	return false;
}

static int
append_vcpu(struct vp_kvm_vm *vm, int id)
{
	struct vp_kvm_vcpu *v;

	v = realloc(vm->vcpu, (size_t)(vm->nvcpus + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	vm->vcpu = v;
	v = &vm->vcpu[vm->nvcpus++];
	memset(v, 0, sizeof(*v));
	v->id = id;
	v->stats_fd = v->hint_fd = -1;
	v->hint = VP_KVM_HINT_UNSET;
	return 0;
}

/*
 * Appends the vCPU dirs not yet in vm->vcpu[]; existing entries keep their
 * index (hot-plug adds ids, KVM never removes one while the VM lives).
 */
static int
scan_vcpus(struct vp_kvm_vm *vm)
{
	struct dirent *de;
	DIR *d = dir_from_fd(vm->dirfd);
	int id, r = 0;

	if (!d)
		return -errno;
	while (!r && (de = readdir(d))) {
		if (kvm_iface_parse_vcpu_name(de->d_name, &id) ||
		    has_vcpu_id(vm, id) || !is_dir_at(vm->dirfd, de))
			continue;
		r = append_vcpu(vm, id);
	}
	closedir(d);
	return r;
}

/* Number of vCPU dirs below @vmfd; 0 on error. */
static int
count_vcpu_dirs(int vmfd)
{
	struct dirent *de;
	DIR *d = dir_from_fd(vmfd);
	int id, n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (!kvm_iface_parse_vcpu_name(de->d_name, &id) &&
		    is_dir_at(vmfd, de))
			n++;
	closedir(d);
	return n;
}

/*
 * The VM dir of @pid with the most vCPU dirs, ties to the lowest fd.
 * Returns its open fd and sets *ret_vm_fd, or -ENOENT.
 */
static int
find_vm_dir(int kvmfd, int pid, int *ret_vm_fd)
{
	struct dirent *de;
	DIR *d = dir_from_fd(kvmfd);
	int best = -ENOENT, best_n = 0, best_no = 0;
	int p, no, fd, n;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (kvm_iface_parse_vm_dir_name(de->d_name, &p, &no) || p != pid)
			continue;
		fd = openat(kvmfd, de->d_name,
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = count_vcpu_dirs(fd);
		if (n > best_n || (n == best_n && n > 0 && no < best_no)) {
			if (best >= 0)
				close(best);
			best = fd;
			best_n = n;
			best_no = no;
		} else {
			close(fd);
		}
	}
	closedir(d);
	if (best >= 0)
		*ret_vm_fd = best_no;
	return best;
}

int
kvm_iface_vm_open(const struct vp_kvm_iface *k, int pid,
    struct vp_kvm_vm **ret_vm)
{
	struct vp_kvm_vm *vm;
	char path[PATH_MAX + 8];
	int kvmfd, dirfd, vm_fd = -1, r;

	if (pid <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/kvm", k->root);
	kvmfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (kvmfd < 0)
		return -errno;
	dirfd = find_vm_dir(kvmfd, pid, &vm_fd);
	close(kvmfd);
	if (dirfd < 0)
		return dirfd;
	vm = calloc(1, sizeof(*vm));
	if (!vm) {
		close(dirfd);
		return -ENOMEM;
	}
	vm->pid = pid;
	vm->vm_fd = vm_fd;
	vm->dirfd = dirfd;
	r = scan_vcpus(vm);
	if (r == 0 && vm->nvcpus == 0)
		r = -ENOENT;	/* the vCPU dirs went away since counted */
	if (r < 0) {
		kvm_iface_vm_close(vm);
		return r;
	}
	qsort(vm->vcpu, (size_t)vm->nvcpus, sizeof(*vm->vcpu), cmp_vcpu_id);
	*ret_vm = vm;
	return 0;
}

static void
vcpu_release(struct vp_kvm_vcpu *v)
{
	close_fd(&v->stats_fd);
	close_fd(&v->hint_fd);
	free(v->data);
	v->data = NULL;
	v->layout_ok = false;
}

void
kvm_iface_vm_close(struct vp_kvm_vm *vm)
{
	int i;

	if (!vm)
		return;
	for (i = 0; i < vm->nvcpus; i++)
		vcpu_release(&vm->vcpu[i]);
	close_fd(&vm->dirfd);
	free(vm->vcpu);
	free(vm);
}

int
kvm_iface_parse_tid(const char *buf, int *ret_tid)
{
	return parse_int(buf, '\n', 0, ret_tid);
}

/* vcpuN/pid: "%llu\n", 0 before the vCPU's first KVM_RUN. */
static int
read_vcpu_tid(const struct vp_kvm_vm *vm, const struct vp_kvm_vcpu *v,
    int *ret_tid)
{
	char path[32], buf[32];
	ssize_t n;

	snprintf(path, sizeof(path), "vcpu%d/pid", v->id);
	n = read_small_file(vm->dirfd, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return kvm_iface_parse_tid(buf, ret_tid);
}

static int
find_tid(const struct vp_kvm_vm *vm, int tid)
{
	int i;

	for (i = 0; i < vm->nvcpus; i++)
		if (vm->vcpu[i].tid == tid)
			return i;
	return -ENOENT;
}

int
kvm_iface_vcpu_by_tid(struct vp_kvm_vm *vm, int tid)
{
	int i, r, t;

	if (tid <= 0)
		return -EINVAL;
	r = find_tid(vm, tid);
	if (r >= 0)
		return r;
	r = scan_vcpus(vm);
	if (r < 0)
		return r;
	/* a tid, once set, stays: QEMU runs each vCPU on one thread */
	for (i = 0; i < vm->nvcpus; i++) {
		struct vp_kvm_vcpu *v = &vm->vcpu[i];

		if (v->tid == 0 && !read_vcpu_tid(vm, v, &t))
			v->tid = t;
	}
	return find_tid(vm, tid);
}

/* Opens vcpuN/@file into *@fd unless already open. */
static int
vcpu_open_file(const struct vp_kvm_vm *vm, const struct vp_kvm_vcpu *v,
    const char *file, int flags, int *fd)
{
	char path[48];

	if (*fd >= 0)
		return 0;
	snprintf(path, sizeof(path), "vcpu%d/%s", v->id, file);
	*fd = openat(vm->dirfd, path, flags | O_CLOEXEC);
	return *fd < 0 ? -errno : 0;
}

int
kvm_iface_write_hint(struct vp_kvm_vm *vm, int idx, int cpu)
{
	struct vp_kvm_vcpu *v;
	char buf[16];
	ssize_t n;
	int len, r;

	if (idx < 0 || idx >= vm->nvcpus || cpu < -1)
		return -EINVAL;
	v = &vm->vcpu[idx];
	r = vcpu_open_file(vm, v, "wake_hint", O_WRONLY | O_NONBLOCK,
	    &v->hint_fd);
	if (r < 0)
		return r;
	len = snprintf(buf, sizeof(buf), "%d\n", cpu);
	n = write(v->hint_fd, buf, (size_t)len);
	if (n < 0) {
		r = -errno;
		/* a removed debugfs file answers EIO forever: reopen next */
		if (r != -EINVAL)
			close_fd(&v->hint_fd);
		return r;
	}
	if (n != len)
		return -EIO;
	v->hint = cpu;
	return 0;
}

/*
 * Reads the whole stats file from offset 0 into a malloc'ed buffer.
 * debugfs reports st_size 0, so read until EOF, growing the buffer.
 */
static int
stats_read_all(int fd, unsigned char **ret_buf, size_t *ret_len)
{
	unsigned char *buf = NULL, *nb;
	size_t cap = 0, len = 0;
	ssize_t n;

	do {
		if (len == cap) {
			if (cap >= STATS_MAX_BYTES) {
				free(buf);
				return -EBADMSG;
			}
			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		n = pread(fd, buf + len, cap - len, (off_t)len);
		if (n < 0) {
			n = -errno;
			free(buf);
			return (int)n;
		}
		len += (size_t)n;
	} while (n > 0);
	*ret_buf = buf;
	*ret_len = len;
	return 0;
}

/* [off, off + size) inside [0, len), without overflow. */
static bool
span_ok(uint64_t off, uint64_t size, uint64_t len)
{
	return off <= len && size <= len - off;
}

/* The header's own offsets: id string, descriptors, data block. */
static int
stats_check_header(const struct kvm_stats_header *h, size_t len,
    uint64_t *ret_stride)
{
	uint64_t stride;

	if (h->name_size == 0 || h->name_size > STATS_MAX_NAME_SIZE)
		return -EBADMSG;
	stride = sizeof(struct kvm_stats_desc) + (uint64_t)h->name_size;
	if (!span_ok(h->id_offset, h->name_size, len) ||
	    !span_ok(h->desc_offset, stride * h->num_desc, len) ||
	    h->data_offset > len || h->data_offset < sizeof(*h))
		return -EBADMSG;
	*ret_stride = stride;
	return 0;
}

/*
 * Offset in the data block of the u64 counter @name, KVM_STATS_OFF_NONE if
 * there is no such cumulative counter, -EBADMSG (via *ret_err) if the
 * descriptor points outside the block.
 */
static uint32_t
stats_find(const unsigned char *buf, const struct kvm_stats_header *h,
    uint64_t stride, uint64_t data_len, const char *name, int *ret_err)
{
	struct kvm_stats_desc d;
	const char *dname;
	uint32_t i;

	for (i = 0; i < h->num_desc; i++) {
		const unsigned char *p = buf + h->desc_offset + i * stride;

		memcpy(&d, p, sizeof(d));	/* p is not aligned */
		dname = (const char *)p + sizeof(d);
		if (strnlen(dname, h->name_size) == h->name_size ||
		    strcmp(dname, name))
			continue;
		if ((d.flags & KVM_STATS_TYPE_MASK) !=
		    KVM_STATS_TYPE_CUMULATIVE || d.size < 1)
			return KVM_STATS_OFF_NONE;	/* not a counter */
		if (!span_ok(d.offset, sizeof(uint64_t), data_len) ||
		    d.offset % sizeof(uint64_t)) {
			*ret_err = -EBADMSG;
			return KVM_STATS_OFF_NONE;
		}
		return d.offset;
	}
	return KVM_STATS_OFF_NONE;
}

/* Fills the layout of @v from a whole stats file. */
int
kvm_iface_stats_parse(struct vp_kvm_vcpu *v, const unsigned char *buf,
    size_t len)
{
	struct kvm_stats_header h;
	uint64_t stride, data_len;
	int err = 0;

	if (len < sizeof(h))
		return -EBADMSG;
	memcpy(&h, buf, sizeof(h));
	err = stats_check_header(&h, len, &stride);
	if (err)
		return err;
	data_len = len - h.data_offset;
	v->off_home = stats_find(buf, &h, stride, data_len, "halt_wake_home",
	    &err);
	v->off_smt_busy = stats_find(buf, &h, stride, data_len,
	    "halt_wake_smt_busy", &err);
	v->off_migrated = stats_find(buf, &h, stride, data_len,
	    "halt_wake_migrated", &err);
	v->off_halt_wakeup = stats_find(buf, &h, stride, data_len,
	    "halt_wakeup", &err);
	if (err)
		return err;
	if (v->off_home == KVM_STATS_OFF_NONE ||
	    v->off_smt_busy == KVM_STATS_OFF_NONE ||
	    v->off_migrated == KVM_STATS_OFF_NONE)
		return -EOPNOTSUPP;
	v->data_off = h.data_offset;
	v->data_len = (uint32_t)data_len;
	return 0;
}

/* Opens and parses the stats file of @v once; the layout is then cached. */
static int
stats_layout(const struct vp_kvm_vm *vm, struct vp_kvm_vcpu *v)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	int r;

	if (v->layout_ok)
		return 0;
	r = vcpu_open_file(vm, v, "stats", O_RDONLY, &v->stats_fd);
	if (r < 0)
		return r;
	r = stats_read_all(v->stats_fd, &buf, &len);
	if (r < 0)
		return r;
	r = kvm_iface_stats_parse(v, buf, len);
	free(buf);
	if (r < 0)
		return r;
	free(v->data);
	/* calloc(0) may return NULL: keep at least one word */
	v->data = calloc(v->data_len / sizeof(uint64_t) + 1, sizeof(uint64_t));
	if (!v->data)
		return -ENOMEM;
	v->layout_ok = true;
	return 0;
}

static uint64_t
stats_value(const struct vp_kvm_vcpu *v, uint32_t off)
{
	return v->data[off / sizeof(uint64_t)];
}

int
kvm_iface_read_wake_stats(struct vp_kvm_vm *vm, int idx,
    struct vp_kvm_wake_stats *ret)
{
	struct vp_kvm_vcpu *v;
	ssize_t n;
	int r;

	if (idx < 0 || idx >= vm->nvcpus)
		return -EINVAL;
	v = &vm->vcpu[idx];
	r = stats_layout(vm, v);
	if (r < 0)
		return r;
	n = pread(v->stats_fd, v->data, v->data_len, v->data_off);
	if (n < 0)
		return -errno;
	if ((size_t)n != v->data_len) {
		/* the file shrank under us: not what we parsed, start over */
		v->layout_ok = false;
		return -EBADMSG;
	}
	ret->home = stats_value(v, v->off_home);
	ret->smt_busy = stats_value(v, v->off_smt_busy);
	ret->migrated = stats_value(v, v->off_migrated);
	ret->has_halt_wakeup = v->off_halt_wakeup != KVM_STATS_OFF_NONE;
	ret->halt_wakeup = ret->has_halt_wakeup ?
	    stats_value(v, v->off_halt_wakeup) : 0;
	return 0;
}

const char *
kvm_iface_mode_name(enum vp_kvm_mode m)
{
	switch (m) {
	case VP_KVM_STATS:
		return "stats";
	case VP_KVM_HINT:
		return "hint";
	case VP_KVM_NONE:
		break;
	}
	return "none";
}

const char *
kvm_iface_sis_core_name(enum vp_sis_core s)
{
	switch (s) {
	case VP_SIS_CORE_UNKNOWN:
		return "unknown";
	case VP_SIS_CORE_OFF:
		return "off";
	case VP_SIS_CORE_ON:
		return "on";
	case VP_SIS_CORE_ABSENT:
		break;
	}
	return "absent";
}
