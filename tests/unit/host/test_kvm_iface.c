/*
 * test_kvm_iface.c - kvm_iface.c against a fake debugfs tree in a mkdtemp
 * directory, laid out like the patched kernel's (kvm-patches/0001-0003):
 * kvm/<pid>-<fd>/vcpuN/{pid,stats,wake_hint} and sched/features.
 *
 * The stats files are generated in KVM's binary layout (header, 48-byte id,
 * descriptors of sizeof(struct kvm_stats_desc) + 48 bytes, data), with the
 * offsets kvm_stats_read() serves.  wake_hint is a FIFO where writes are
 * checked: like the kernel file it is nonseekable (pwrite gives ESPIPE) and
 * each write arrives on its own, so the reader sees exactly what was sent.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kvm.h>

#include <check.h>

#include "host/kvm_iface.h"
#include "../suites.h"
#include "../testutil.h"

#define NAME_SIZE	48	/* KVM_STATS_NAME_SIZE */
#define HDR_SIZE	((uint32_t)sizeof(struct kvm_stats_header))
#define DESC_SIZE	((uint32_t)sizeof(struct kvm_stats_desc) + NAME_SIZE)
#define MAX_STATS_FILE	8192

#define COUNTER	(KVM_STATS_TYPE_CUMULATIVE | KVM_STATS_UNIT_NONE | \
	KVM_STATS_BASE_POW10)
#define HIST	(KVM_STATS_TYPE_LOG_HIST | KVM_STATS_UNIT_SECONDS | \
	KVM_STATS_BASE_POW10)
#define BOOLEAN	(KVM_STATS_TYPE_INSTANT | KVM_STATS_UNIT_BOOLEAN | \
	KVM_STATS_BASE_POW10)

static char root[64];

/* One stat of a generated file: its descriptor and first u64. */
struct fstat {
	const char *name;
	uint32_t flags;
	uint16_t size;		/* u64 items */
	uint64_t val;
};

/* Stock generic vCPU stats of 6.12, then patch 1's, in kernel order. */
static const struct fstat stock_stats[] = {
	{ "halt_successful_poll", COUNTER, 1, 11 },
	{ "halt_attempted_poll", COUNTER, 1, 12 },
	{ "halt_poll_invalid", COUNTER, 1, 13 },
	{ "halt_wakeup", COUNTER, 1, 14 },
	{ "halt_poll_success_ns", COUNTER, 1, 15 },
	{ "halt_poll_fail_ns", COUNTER, 1, 16 },
	{ "halt_wait_ns", COUNTER, 1, 17 },
	{ "halt_poll_success_hist", HIST, 32, 18 },
	{ "halt_poll_fail_hist", HIST, 32, 19 },
	{ "halt_wait_hist", HIST, 32, 20 },
	{ "blocking", BOOLEAN, 1, 1 },
};
#define NSTOCK	((int)(sizeof(stock_stats) / sizeof(stock_stats[0])))

struct fake_stats {
	struct fstat s[NSTOCK + 4];
	int n;
};

/* The stock stats plus the three wake counters (last: see truncation). */
static void
fake_stats_init(struct fake_stats *f, uint64_t home, uint64_t smt_busy,
    uint64_t migrated)
{
	memcpy(f->s, stock_stats, sizeof(stock_stats));
	f->n = NSTOCK;
	f->s[f->n++] = (struct fstat){ "halt_wake_home", COUNTER, 1, home };
	f->s[f->n++] = (struct fstat){ "halt_wake_smt_busy", COUNTER, 1,
	    smt_busy };
	f->s[f->n++] = (struct fstat){ "halt_wake_migrated", COUNTER, 1,
	    migrated };
}

static int
fake_stats_index(const struct fake_stats *f, const char *name)
{
	int i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->s[i].name, name))
			return i;
	ck_abort_msg("no stat %s", name);
	return -1;
}

/*
 * Serializes @f as kvm_stats_read() does, with names of @name_size bytes
 * (a name that long loses its NUL); returns the length.
 */
static size_t
fake_stats_build_ns(const struct fake_stats *f, unsigned char *out,
    uint32_t name_size)
{
	struct kvm_stats_header h = { 0 };
	struct kvm_stats_desc d;
	uint32_t data_off, off = 0, stride;
	size_t nlen;
	int i;

	stride = (uint32_t)sizeof(d) + name_size;
	h.name_size = name_size;
	h.num_desc = (uint32_t)f->n;
	h.id_offset = HDR_SIZE;
	h.desc_offset = HDR_SIZE + name_size;
	h.data_offset = data_off = h.desc_offset + (uint32_t)f->n * stride;
	memset(out, 0, MAX_STATS_FILE);
	memcpy(out, &h, sizeof(h));
	memcpy(out + h.id_offset, "kvm-4242/vcpu-0", 15);
	for (i = 0; i < f->n; i++) {
		unsigned char *p = out + h.desc_offset + (uint32_t)i * stride;

		memset(&d, 0, sizeof(d));
		d.flags = f->s[i].flags;
		d.exponent = f->s[i].flags == HIST ? -9 : 0;
		d.size = f->s[i].size;
		d.offset = off;
		memcpy(p, &d, sizeof(d));
		nlen = strlen(f->s[i].name);
		memcpy(p + sizeof(d), f->s[i].name,
		    nlen < name_size ? nlen : name_size);
		memcpy(out + data_off + off, &f->s[i].val, sizeof(uint64_t));
		off += f->s[i].size * (uint32_t)sizeof(uint64_t);
		ck_assert_uint_le(data_off + off, MAX_STATS_FILE);
	}
	return data_off + off;
}

static size_t
fake_stats_build(const struct fake_stats *f, unsigned char *out)
{
	return fake_stats_build_ns(f, out, NAME_SIZE);
}

/* Patches field @field_off of the descriptor of @name in a built file. */
static void
patch_desc_u32(const struct fake_stats *f, unsigned char *buf,
    const char *name, size_t field_off, uint32_t v)
{
	size_t p = HDR_SIZE + NAME_SIZE +
	    (size_t)fake_stats_index(f, name) * DESC_SIZE + field_off;

	memcpy(buf + p, &v, sizeof(v));
}

static char *
fpath(const char *fmt, ...)
{
	static char buf[512];
	char rel[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(buf, sizeof(buf), "%s/%s", root, rel);
	return buf;
}

/* mkdir -p of @abs, a path below root (from fpath()). */
static void
fake_mkdir(const char *abs)
{
	char path[512], *p;

	snprintf(path, sizeof(path), "%s", abs);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		ck_assert_msg(mkdir(path, 0700) == 0 || errno == EEXIST,
		    "mkdir %s: %s", path, strerror(errno));
		*p = '/';
	}
	ck_assert_msg(mkdir(path, 0700) == 0 || errno == EEXIST, "mkdir %s",
	    path);
}

/* Writes @len bytes at offset 0 of @path in place, then truncates there. */
static void
put_bytes(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0600);

	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	ck_assert_int_eq(pwrite(fd, buf, len, 0), (ssize_t)len);
	ck_assert_int_eq(ftruncate(fd, (off_t)len), 0);
	close(fd);
}

static void
put_str(const char *path, const char *s)
{
	put_bytes(path, s, strlen(s));
}

static void
put_stats(const char *path, const struct fake_stats *f)
{
	unsigned char buf[MAX_STATS_FILE];

	put_bytes(path, buf, fake_stats_build(f, buf));
}

enum { WITH_STATS = 1, WITH_HINT = 2 };

/* tid of vCPU @id of QEMU @pid in the fake tree. */
static int
fake_tid(int pid, int id)
{
	return pid * 10 + id + 1;
}

static void
fake_vcpu(int pid, int vmfd, int id, int what)
{
	struct fake_stats f;
	char buf[32];

	fake_mkdir(fpath("kvm/%d-%d/vcpu%d", pid, vmfd, id));
	snprintf(buf, sizeof(buf), "%d\n", fake_tid(pid, id));
	put_str(fpath("kvm/%d-%d/vcpu%d/pid", pid, vmfd, id), buf);
	if (what & WITH_STATS) {
		fake_stats_init(&f, 100 + id, 200 + id, 300 + id);
		put_stats(fpath("kvm/%d-%d/vcpu%d/stats", pid, vmfd, id), &f);
	}
	if (what & WITH_HINT)
		put_str(fpath("kvm/%d-%d/vcpu%d/wake_hint", pid, vmfd, id),
		    "-1\n");
}

/* A VM dir with vCPUs 0..n-1 and a per-VM stat file, as KVM makes it. */
static void
fake_vm(int pid, int vmfd, int nvcpus, int what)
{
	int i;

	fake_mkdir(fpath("kvm/%d-%d", pid, vmfd));
	put_str(fpath("kvm/%d-%d/halt_wakeup", pid, vmfd), "0\n");
	for (i = 0; i < nvcpus; i++)
		fake_vcpu(pid, vmfd, i, what);
}

static void
fake_features(const char *line)
{
	fake_mkdir(fpath("sched"));
	put_str(fpath("sched/features"), line);
}

static struct vp_kvm_iface
detect(void)
{
	struct vp_kvm_iface k;

	ck_assert_int_eq(kvm_iface_init(&k, root), 0);
	kvm_iface_detect(&k);
	return k;
}

static struct vp_kvm_vm *
open_vm(int pid)
{
	struct vp_kvm_iface k = detect();
	struct vp_kvm_vm *vm = NULL;
	int r;

	r = kvm_iface_vm_open(&k, pid, &vm);
	ck_assert_msg(r == 0, "vm_open(%d): %s", pid, strerror(-r));
	ck_assert_ptr_nonnull(vm);
	return vm;
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void
setup(void)
{
	strcpy(root, "/tmp/vp-kvm-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void
teardown(void)
{
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- detection ---- */

START_TEST(test_init)
{
	struct vp_kvm_iface k;
	char *big = malloc(PATH_MAX + 10);

	ck_assert_int_eq(kvm_iface_init(&k, NULL), 0);
	ck_assert_str_eq(k.root, "/sys/kernel/debug");
	ck_assert_int_eq(k.mode, VP_KVM_NONE);
	memset(big, 'a', PATH_MAX + 9);
	big[PATH_MAX + 9] = '\0';
	ck_assert_int_eq(kvm_iface_init(&k, big), -ENAMETOOLONG);
	free(big);
}
END_TEST

START_TEST(test_detect_no_tree)
{
	struct vp_kvm_iface k = detect();

	ck_assert(!k.kvm_dir);
	ck_assert_int_eq(k.mode, VP_KVM_NONE);
	ck_assert_int_eq(k.sis_core, VP_SIS_CORE_ABSENT);

	/* debugfs not mounted at all: the root does not exist */
	ck_assert_int_eq(kvm_iface_init(&k, fpath("nonexistent")), 0);
	kvm_iface_detect(&k);
	ck_assert(!k.kvm_dir);
	ck_assert_int_eq(k.mode, VP_KVM_NONE);
}
END_TEST

START_TEST(test_detect_no_vcpus)
{
	struct vp_kvm_iface k;

	fake_mkdir(fpath("kvm"));
	k = detect();
	ck_assert(k.kvm_dir);
	ck_assert_int_eq(k.mode, VP_KVM_NONE);

	/* QEMU made its VM but no vCPU yet */
	fake_vm(700, 12, 0, WITH_STATS | WITH_HINT);
	k = detect();
	ck_assert_int_eq(k.mode, VP_KVM_NONE);

	/* an unpatched kernel: vCPU dirs without stats */
	fake_vcpu(700, 12, 0, 0);
	k = detect();
	ck_assert_int_eq(k.mode, VP_KVM_NONE);
}
END_TEST

START_TEST(test_detect_stats_only)
{
	struct vp_kvm_iface k;

	fake_vm(700, 12, 2, WITH_STATS);
	k = detect();
	ck_assert(k.kvm_dir);
	ck_assert_int_eq(k.mode, VP_KVM_STATS);
	ck_assert_int_eq(k.hint_err, 0);
	ck_assert_str_eq(kvm_iface_mode_name(k.mode), "stats");
}
END_TEST

START_TEST(test_detect_hint)
{
	struct vp_kvm_iface k;

	fake_vm(700, 12, 0, 0);	/* a starting VM first: skipped */
	fake_vm(701, 13, 1, WITH_STATS | WITH_HINT);
	k = detect();
	ck_assert_int_eq(k.mode, VP_KVM_HINT);
	ck_assert_int_eq(k.hint_err, 0);
	ck_assert_str_eq(kvm_iface_mode_name(k.mode), "hint");
}
END_TEST

/* wake_hint there but not writable (lockdown gives EPERM): stats only. */
START_TEST(test_detect_hint_unwritable)
{
	struct vp_kvm_iface k;

	fake_vm(700, 12, 1, WITH_STATS);
	fake_mkdir(fpath("kvm/700-12/vcpu0/wake_hint"));
	k = detect();
	ck_assert_int_eq(k.mode, VP_KVM_STATS);
	ck_assert_int_eq(k.hint_err, -EISDIR);
}
END_TEST

START_TEST(test_detect_rerun)
{
	struct vp_kvm_iface k = detect();

	ck_assert_int_eq(k.mode, VP_KVM_NONE);
	fake_vm(700, 12, 1, WITH_STATS | WITH_HINT);
	fake_features("SIS_UTIL NO_SIS_CORE\n");
	kvm_iface_detect(&k);
	ck_assert_int_eq(k.mode, VP_KVM_HINT);
	ck_assert_int_eq(k.sis_core, VP_SIS_CORE_OFF);
	ck_assert_int_eq(remove(fpath("sched/features")), 0);
	kvm_iface_detect(&k);
	ck_assert_int_eq(k.sis_core, VP_SIS_CORE_ABSENT);
}
END_TEST

static const struct {
	const char *line;
	enum vp_sis_core want;
} features_cases[] = {
	{ "GENTLE_FAIR_SLEEPERS START_DEBIT SIS_UTIL SIS_CORE \n",
	  VP_SIS_CORE_ON },
	{ "GENTLE_FAIR_SLEEPERS SIS_UTIL NO_SIS_CORE \n", VP_SIS_CORE_OFF },
	{ "SIS_CORE", VP_SIS_CORE_ON },
	{ "NO_SIS_CORE", VP_SIS_CORE_OFF },
	{ "PLACE_LAG SIS_UTIL WARN_DOUBLE_CLOCK \n", VP_SIS_CORE_ABSENT },
	{ "NO_SIS_COREX SIS_CORE_X XSIS_CORE \n", VP_SIS_CORE_ABSENT },
	{ "", VP_SIS_CORE_ABSENT },
};

START_TEST(test_sis_core)
{
	struct vp_kvm_iface k;

	fake_features(features_cases[_i].line);
	k = detect();
	ck_assert_msg(k.sis_core == features_cases[_i].want,
	    "'%s': got %s", features_cases[_i].line,
	    kvm_iface_sis_core_name(k.sis_core));
}
END_TEST

START_TEST(test_sis_core_missing_unreadable)
{
	struct vp_kvm_iface k;

	fake_mkdir(fpath("sched"));
	k = detect();
	ck_assert_int_eq(k.sis_core, VP_SIS_CORE_ABSENT);
	/* a file we cannot read (lockdown: EPERM) says nothing */
	fake_mkdir(fpath("sched/features"));
	k = detect();
	ck_assert_int_eq(k.sis_core, VP_SIS_CORE_UNKNOWN);
	ck_assert_str_eq(kvm_iface_sis_core_name(k.sis_core), "unknown");
}
END_TEST

/* ---- VM dirs and vCPUs ---- */

START_TEST(test_vm_missing)
{
	struct vp_kvm_iface k = detect();
	struct vp_kvm_vm *vm = (struct vp_kvm_vm *)&k;	/* must stay */

	ck_assert_int_eq(kvm_iface_vm_open(&k, 700, &vm), -ENOENT);
	fake_vm(7000, 1, 1, WITH_STATS);	/* "7000-1" is not pid 700 */
	fake_vm(70, 1, 1, WITH_STATS);
	fake_vm(700, 12, 0, WITH_STATS);	/* no vCPU yet */
	fake_mkdir(fpath("kvm/700-x/vcpu0"));	/* not a VM dir */
	ck_assert_int_eq(kvm_iface_vm_open(&k, 700, &vm), -ENOENT);
	ck_assert_int_eq(kvm_iface_vm_open(&k, 0, &vm), -EINVAL);
	ck_assert_ptr_eq(vm, (struct vp_kvm_vm *)&k);
	kvm_iface_vm_close(NULL);
}
END_TEST

START_TEST(test_vm_pick_dir)
{
	struct vp_kvm_vm *vm;
	static const int want[] = { 0, 1, 2, 4 };
	int i;

	fake_vm(700, 11, 0, WITH_STATS);	/* a probe VM without vCPUs */
	fake_vm(700, 12, 0, WITH_STATS);
	/* x86 APIC IDs of a cores=3 guest: 3 is skipped */
	for (i = 0; i < 4; i++)
		fake_vcpu(700, 12, want[i], WITH_STATS);
	fake_vm(700, 9, 1, WITH_STATS);
	put_str(fpath("kvm/700-12/vcpux"), "not a vcpu\n");
	put_str(fpath("kvm/700-12/vcpu7"), "a file, not a dir\n");
	vm = open_vm(700);
	ck_assert_int_eq(vm->pid, 700);
	ck_assert_int_eq(vm->vm_fd, 12);
	ck_assert_int_eq(vm->nvcpus, 4);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(vm->vcpu[i].id, want[i]);
		ck_assert_int_eq(vm->vcpu[i].stats_fd, -1);	/* lazily */
		ck_assert_int_eq(vm->vcpu[i].hint, VP_KVM_HINT_UNSET);
	}
	kvm_iface_vm_close(vm);

	/* equal vCPU counts: the lowest fd, whatever readdir's order */
	fake_vm(700, 15, 4, WITH_STATS);
	fake_vm(700, 11, 4, WITH_STATS);
	fake_vm(700, 13, 4, WITH_STATS);
	vm = open_vm(700);
	ck_assert_int_eq(vm->vm_fd, 11);
	kvm_iface_vm_close(vm);
}
END_TEST

START_TEST(test_vcpu_by_tid)
{
	struct vp_kvm_vm *vm;
	int idx;

	fake_vm(700, 12, 2, WITH_STATS);
	put_str(fpath("kvm/700-12/vcpu1/pid"), "0\n");	/* never ran */
	vm = open_vm(700);
	ck_assert_int_eq(kvm_iface_vcpu_by_tid(vm, fake_tid(700, 0)), 0);
	ck_assert_int_eq(vm->vcpu[0].tid, fake_tid(700, 0));
	ck_assert_int_eq(kvm_iface_vcpu_by_tid(vm, fake_tid(700, 1)),
	    -ENOENT);
	ck_assert_int_eq(kvm_iface_vcpu_by_tid(vm, 0), -EINVAL);
	ck_assert_int_eq(kvm_iface_vcpu_by_tid(vm, -5), -EINVAL);

	/* vCPU 1 enters KVM_RUN: found on the next miss */
	put_str(fpath("kvm/700-12/vcpu1/pid"), "7002\n");
	ck_assert_int_eq(kvm_iface_vcpu_by_tid(vm, 7002), 1);

	/* hot-plugged vCPU 5: appended, earlier indices unchanged */
	fake_vcpu(700, 12, 5, WITH_STATS);
	idx = kvm_iface_vcpu_by_tid(vm, fake_tid(700, 5));
	ck_assert_int_eq(idx, 2);
	ck_assert_int_eq(vm->vcpu[idx].id, 5);
	ck_assert_int_eq(kvm_iface_vcpu_by_tid(vm, fake_tid(700, 0)), 0);
	ck_assert_int_eq(kvm_iface_vcpu_by_tid(vm, 7002), 1);
	ck_assert_int_eq(vm->nvcpus, 3);

	/* garbage in a pid file: not a match, no crash */
	fake_vcpu(700, 12, 6, WITH_STATS);
	put_str(fpath("kvm/700-12/vcpu6/pid"), "12abc\n");
	ck_assert_int_eq(kvm_iface_vcpu_by_tid(vm, 12), -ENOENT);
	ck_assert_int_eq(vm->vcpu[3].tid, 0);
	kvm_iface_vm_close(vm);
}
END_TEST

/* ---- wake hints ---- */

/* Replaces vcpuN/wake_hint by a FIFO; returns its non-blocking reader. */
static int
hint_fifo(int pid, int vmfd, int id)
{
	const char *p = fpath("kvm/%d-%d/vcpu%d/wake_hint", pid, vmfd, id);
	int fd;

	unlink(p);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	fd = open(p, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(fd, 0);
	return fd;
}

/* The next write that reached the FIFO, "" if none. */
static const char *
fifo_next(int fd)
{
	static char buf[64];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

START_TEST(test_hint_write)
{
	struct vp_kvm_vm *vm;
	int rfd;

	fake_vm(700, 12, 2, WITH_STATS | WITH_HINT);
	rfd = hint_fifo(700, 12, 1);
	vm = open_vm(700);
	ck_assert_int_eq(kvm_iface_write_hint(vm, 1, 3), 0);
	ck_assert_str_eq(fifo_next(rfd), "3\n");
	ck_assert_int_eq(vm->vcpu[1].hint, 3);
	ck_assert_int_eq(kvm_iface_write_hint(vm, 1, -1), 0);
	ck_assert_str_eq(fifo_next(rfd), "-1\n");
	ck_assert_int_eq(vm->vcpu[1].hint, -1);
	/* unchanged values are written again (re-pin while asleep) */
	ck_assert_int_eq(kvm_iface_write_hint(vm, 1, 1023), 0);
	ck_assert_int_eq(kvm_iface_write_hint(vm, 1, 1023), 0);
	ck_assert_str_eq(fifo_next(rfd), "1023\n1023\n");

	/* refused before any I/O */
	ck_assert_int_eq(kvm_iface_write_hint(vm, 1, -2), -EINVAL);
	ck_assert_int_eq(kvm_iface_write_hint(vm, 2, 0), -EINVAL);
	ck_assert_int_eq(kvm_iface_write_hint(vm, -1, 0), -EINVAL);
	ck_assert_str_eq(fifo_next(rfd), "");
	ck_assert_int_eq(vm->vcpu[1].hint, 1023);
	ck_assert_int_eq(vm->vcpu[0].hint, VP_KVM_HINT_UNSET);
	kvm_iface_vm_close(vm);
	close(rfd);
}
END_TEST

START_TEST(test_hint_missing)
{
	struct vp_kvm_vm *vm;

	fake_vm(700, 12, 1, WITH_STATS);	/* patch 1 only */
	vm = open_vm(700);
	ck_assert_int_eq(kvm_iface_write_hint(vm, 0, 3), -ENOENT);
	ck_assert_int_eq(vm->vcpu[0].hint, VP_KVM_HINT_UNSET);
	kvm_iface_vm_close(vm);
}
END_TEST

/* ---- wake counters ---- */

static const char *
stats_path(int id)
{
	return fpath("kvm/700-12/vcpu%d/stats", id);
}

static void
assert_stats(struct vp_kvm_vm *vm, int idx, uint64_t home, uint64_t smt,
    uint64_t migr)
{
	struct vp_kvm_wake_stats ws;
	int r;

	memset(&ws, 0xa5, sizeof(ws));
	r = kvm_iface_read_wake_stats(vm, idx, &ws);
	ck_assert_msg(r == 0, "read_wake_stats: %s", strerror(-r));
	ck_assert_uint_eq(ws.home, home);
	ck_assert_uint_eq(ws.smt_busy, smt);
	ck_assert_uint_eq(ws.migrated, migr);
	ck_assert(ws.has_halt_wakeup);
	ck_assert_uint_eq(ws.halt_wakeup, 14);
}

/* An error, with *ret untouched. */
static int
read_fails(struct vp_kvm_vm *vm, int idx)
{
	struct vp_kvm_wake_stats ws, orig;
	int r;

	memset(&ws, 0x5a, sizeof(ws));
	memcpy(&orig, &ws, sizeof(ws));
	r = kvm_iface_read_wake_stats(vm, idx, &ws);
	ck_assert_msg(r < 0, "read_wake_stats succeeded on a bad file");
	ck_assert(!memcmp(&ws, &orig, sizeof(ws)));
	return r;
}

START_TEST(test_stats_read)
{
	struct fake_stats f;
	struct vp_kvm_vm *vm;

	fake_vm(700, 12, 2, WITH_STATS | WITH_HINT);
	vm = open_vm(700);
	assert_stats(vm, 0, 100, 200, 300);
	assert_stats(vm, 1, 101, 201, 301);
	ck_assert_int_ge(vm->vcpu[0].stats_fd, 0);
	ck_assert(vm->vcpu[0].layout_ok);
	ck_assert_uint_eq(vm->vcpu[0].data_off, HDR_SIZE + NAME_SIZE +
	    (NSTOCK + 3) * DESC_SIZE);

	/* the counters move: same fd, same layout, new values */
	fake_stats_init(&f, 5000, 6000, 7000);
	put_stats(stats_path(0), &f);
	assert_stats(vm, 0, 5000, 6000, 7000);
	fake_stats_init(&f, UINT64_MAX, 0, 1ULL << 40);
	put_stats(stats_path(0), &f);
	assert_stats(vm, 0, UINT64_MAX, 0, 1ULL << 40);
	assert_stats(vm, 1, 101, 201, 301);
	ck_assert_int_eq(kvm_iface_read_wake_stats(vm, 2, NULL), -EINVAL);
	kvm_iface_vm_close(vm);
}
END_TEST

START_TEST(test_stats_optional_and_missing)
{
	struct fake_stats f;
	struct vp_kvm_wake_stats ws;
	struct vp_kvm_vm *vm;

	fake_vm(700, 12, 3, WITH_STATS);
	/* vcpu0: no halt_wakeup (renamed), the rest is there */
	fake_stats_init(&f, 1, 2, 3);
	f.s[fake_stats_index(&f, "halt_wakeup")].name = "halt_wakeupx";
	put_stats(stats_path(0), &f);
	/* vcpu1: stock stats only, an unpatched layout */
	fake_stats_init(&f, 1, 2, 3);
	f.n = NSTOCK;
	put_stats(stats_path(1), &f);
	/* vcpu2: halt_wake_home is not a counter */
	fake_stats_init(&f, 1, 2, 3);
	f.s[fake_stats_index(&f, "halt_wake_home")].flags = HIST;
	put_stats(stats_path(2), &f);

	vm = open_vm(700);
	ck_assert_int_eq(kvm_iface_read_wake_stats(vm, 0, &ws), 0);
	ck_assert(!ws.has_halt_wakeup);
	ck_assert_uint_eq(ws.home, 1);
	ck_assert_uint_eq(ws.migrated, 3);
	ck_assert_int_eq(read_fails(vm, 1), -EOPNOTSUPP);
	ck_assert_int_eq(read_fails(vm, 2), -EOPNOTSUPP);

	/* the file goes away before the first read */
	kvm_iface_vm_close(vm);
	ck_assert_int_eq(remove(fpath("kvm/700-12/vcpu0/stats")), 0);
	vm = open_vm(700);
	ck_assert_int_eq(read_fails(vm, 0), -ENOENT);
	kvm_iface_vm_close(vm);
}
END_TEST

/* Every truncation of a good file fails: the wake counters come last. */
START_TEST(test_stats_truncated)
{
	unsigned char buf[MAX_STATS_FILE];
	struct fake_stats f;
	struct vp_kvm_vm *vm;
	size_t len, cut;

	fake_vm(700, 12, 1, WITH_STATS);
	fake_stats_init(&f, 1, 2, 3);
	len = fake_stats_build(&f, buf);
	vm = open_vm(700);
	for (cut = 0; cut < len; cut++) {
		put_bytes(stats_path(0), buf, cut);
		ck_assert_msg(read_fails(vm, 0) == -EBADMSG, "cut %zu", cut);
	}
	put_bytes(stats_path(0), buf, len);
	assert_stats(vm, 0, 1, 2, 3);

	/* shrinks after the layout was cached: error, then re-parsed */
	put_bytes(stats_path(0), buf, len - 8);
	ck_assert_int_eq(read_fails(vm, 0), -EBADMSG);
	ck_assert(!vm->vcpu[0].layout_ok);
	fake_stats_init(&f, 10, 20, 30);
	put_stats(stats_path(0), &f);
	assert_stats(vm, 0, 10, 20, 30);
	kvm_iface_vm_close(vm);
}
END_TEST

/* Header fields, each broken on its own. */
static const struct {
	const char *what;
	size_t field;		/* offsetof in struct kvm_stats_header */
	uint32_t value;
} bad_headers[] = {
	{ "name_size 0", offsetof(struct kvm_stats_header, name_size), 0 },
	{ "name_size huge", offsetof(struct kvm_stats_header, name_size),
	  0x10000000 },
	{ "num_desc overflow", offsetof(struct kvm_stats_header, num_desc),
	  0xffffffff },
	{ "num_desc past end", offsetof(struct kvm_stats_header, num_desc),
	  100 },
	{ "id_offset past end", offsetof(struct kvm_stats_header, id_offset),
	  0xfffffff0 },
	{ "desc_offset past end",
	  offsetof(struct kvm_stats_header, desc_offset), 0xfffffff0 },
	{ "data_offset past end",
	  offsetof(struct kvm_stats_header, data_offset), 0x7fffffff },
	{ "data_offset inside header",
	  offsetof(struct kvm_stats_header, data_offset), 4 },
};

START_TEST(test_stats_bad_header)
{
	unsigned char buf[MAX_STATS_FILE];
	struct fake_stats f;
	struct vp_kvm_vm *vm;
	size_t len;

	fake_vm(700, 12, 1, WITH_STATS);
	fake_stats_init(&f, 1, 2, 3);
	len = fake_stats_build(&f, buf);
	memcpy(buf + bad_headers[_i].field, &bad_headers[_i].value,
	    sizeof(uint32_t));
	put_bytes(stats_path(0), buf, len);
	vm = open_vm(700);
	ck_assert_msg(read_fails(vm, 0) == -EBADMSG, "%s",
	    bad_headers[_i].what);
	kvm_iface_vm_close(vm);
}
END_TEST

START_TEST(test_stats_bad_desc)
{
	static const uint32_t offsets[] = { 0, 0, 0xfffffff8, 0xffffffff, 4 };
	unsigned char buf[MAX_STATS_FILE];
	struct fake_stats f;
	struct vp_kvm_vm *vm;
	size_t len;
	uint32_t data_len;
	int i;

	fake_vm(700, 12, 1, WITH_STATS);
	fake_stats_init(&f, 1, 2, 3);
	vm = open_vm(700);
	for (i = 0; i < 5; i++) {
		len = fake_stats_build(&f, buf);
		data_len = (uint32_t)(len - vm->vcpu[0].data_off);
		/* just past the block, then overlapping its end, then far */
		patch_desc_u32(&f, buf, "halt_wake_smt_busy",
		    offsetof(struct kvm_stats_desc, offset),
		    i == 0 ? data_len : i == 1 ? data_len - 4 : offsets[i]);
		put_bytes(stats_path(0), buf, len);
		ck_assert_msg(read_fails(vm, 0) == -EBADMSG, "case %d", i);
	}
	/* a name without its NUL is no name */
	len = fake_stats_build(&f, buf);
	memset(buf + HDR_SIZE + NAME_SIZE +
	    (size_t)fake_stats_index(&f, "halt_wake_migrated") * DESC_SIZE +
	    sizeof(struct kvm_stats_desc) + strlen("halt_wake_migrated"), 'x',
	    NAME_SIZE - strlen("halt_wake_migrated"));
	put_bytes(stats_path(0), buf, len);
	ck_assert_int_eq(read_fails(vm, 0), -EOPNOTSUPP);

	/*
	 * name_size 18: "halt_wake_smt_busy" fills it without a NUL and the
	 * next descriptor starts with a 0 byte, so strcmp() alone would
	 * take it; "halt_wake_migrated" is followed by a 0 data word.
	 */
	f.s[0].val = 0;
	len = fake_stats_build_ns(&f, buf, 18);
	put_bytes(stats_path(0), buf, len);
	ck_assert_int_eq(read_fails(vm, 0), -EOPNOTSUPP);
	kvm_iface_vm_close(vm);
}
END_TEST

/*
 * Random files, and a good file with random bytes changed: whatever the
 * verdict, no out-of-bounds access (ASan/UBSan run these too) and an error
 * leaves *ret untouched.
 */
START_TEST(test_stats_garbage)
{
	unsigned char good[MAX_STATS_FILE], buf[MAX_STATS_FILE];
	struct vp_kvm_wake_stats ws, orig;
	struct fake_stats f;
	struct vp_kvm_vm *vm;
	struct rng rng;
	size_t len, n;
	int i, j, r, ok = 0;

	fake_vm(700, 12, 1, WITH_STATS);
	fake_stats_init(&f, 1, 2, 3);
	len = fake_stats_build(&f, good);
	vm = open_vm(700);
	rng_seed(&rng, 42);
	for (i = 0; i < 400; i++) {
		if (i < 100) {	/* pure noise, sometimes all 0xff */
			n = (size_t)rng_below(&rng, (int)len + 64);
			for (j = 0; j < (int)n; j++)
				buf[j] = i % 10 ? (unsigned char)rng_next(&rng)
				    : 0xff;
		} else {	/* a good file with a few bytes changed */
			n = len;
			memcpy(buf, good, len);
			for (j = 0; j < 1 + i % 4; j++)
				buf[rng_below(&rng, (int)len)] =
				    (unsigned char)rng_next(&rng);
		}
		put_bytes(stats_path(0), buf, n);
		memset(&ws, 0x77, sizeof(ws));
		memcpy(&orig, &ws, sizeof(ws));
		r = kvm_iface_read_wake_stats(vm, 0, &ws);
		if (i < 100)
			ck_assert_msg(r < 0, "noise %d accepted", i);
		if (r < 0)
			ck_assert(!memcmp(&ws, &orig, sizeof(ws)));
		else
			ok++;
		/* parse every file afresh, as a new fd would */
		vm->vcpu[0].layout_ok = false;
	}
	/* most single-byte changes hit data or padding and still parse */
	ck_assert_int_gt(ok, 0);
	kvm_iface_vm_close(vm);
}
END_TEST

Suite *
kvm_iface_suite(void)
{
	Suite *s = suite_create("kvm_iface");
	TCase *tc = tcase_create("detect");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_init);
	tcase_add_test(tc, test_detect_no_tree);
	tcase_add_test(tc, test_detect_no_vcpus);
	tcase_add_test(tc, test_detect_stats_only);
	tcase_add_test(tc, test_detect_hint);
	tcase_add_test(tc, test_detect_hint_unwritable);
	tcase_add_test(tc, test_detect_rerun);
	tcase_add_loop_test(tc, test_sis_core, 0,
	    (int)(sizeof(features_cases) / sizeof(features_cases[0])));
	tcase_add_test(tc, test_sis_core_missing_unreadable);
	suite_add_tcase(s, tc);

	tc = tcase_create("vm");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_vm_missing);
	tcase_add_test(tc, test_vm_pick_dir);
	tcase_add_test(tc, test_vcpu_by_tid);
	tcase_add_test(tc, test_hint_write);
	tcase_add_test(tc, test_hint_missing);
	suite_add_tcase(s, tc);

	tc = tcase_create("stats");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_stats_read);
	tcase_add_test(tc, test_stats_optional_and_missing);
	tcase_add_test(tc, test_stats_truncated);
	tcase_add_loop_test(tc, test_stats_bad_header, 0,
	    (int)(sizeof(bad_headers) / sizeof(bad_headers[0])));
	tcase_add_test(tc, test_stats_bad_desc);
	tcase_add_test(tc, test_stats_garbage);
	suite_add_tcase(s, tc);
	return s;
}
