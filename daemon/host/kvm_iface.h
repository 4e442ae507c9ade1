/*
 * kvm_iface.h - the adapter for the vcpuplace kernel series (kvm-patches/):
 * per-vCPU wake statistics and wake hints in KVM's debugfs, and the
 * SIS_CORE scheduler feature.  I/O only; the placement core stays pure.
 *
 * Layout under the debugfs root (default /sys/kernel/debug):
 *
 *	kvm/<pid>-<fd>/vcpuN/stats	KVM binary stats (patch 1)
 *	kvm/<pid>-<fd>/vcpuN/wake_hint	"<cpu>\n"; "-1\n" clears (patch 2)
 *	kvm/<pid>-<fd>/vcpuN/pid	the vCPU thread's tid (stock)
 *	sched/features			"... SIS_CORE ..." (patch 3)
 *
 * <pid> is QEMU's pid, <fd> its VM fd number and N KVM's vcpu_id: on x86
 * the APIC ID, which is not libvirt's vCPU number once the guest topology
 * is not a power of two (cores=3: ids 0,1,2,4).  So vCPUs are matched by
 * thread id, through vcpuN/pid, never by N.
 *
 * Failures are returned as -errno; nothing here logs (STYLE.md 8).
 */
#ifndef KVM_IFACE_H
#define KVM_IFACE_H

#include <limits.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/vcpuplace.h"

#define KVM_IFACE_ROOT	"/sys/kernel/debug"

enum vp_kvm_mode {
	VP_KVM_NONE,	/* no root/kvm, or no VM with a vCPU dir seen yet */
	VP_KVM_STATS,	/* patch 1: vcpuN/stats */
	VP_KVM_HINT,	/* patches 1+2: vcpuN/wake_hint exists and opens */
};

enum vp_sis_core {
	VP_SIS_CORE_ABSENT,	/* no sched/features, or no SIS_CORE in it */
	VP_SIS_CORE_UNKNOWN,	/* sched/features unreadable (lockdown) */
	VP_SIS_CORE_OFF,	/* NO_SIS_CORE */
	VP_SIS_CORE_ON,
};

/*
 * What the host offers.  Filled by kvm_iface_detect(); the kernel only
 * creates vCPU dirs while a VM runs, so mode stays VP_KVM_NONE on a host
 * without VMs: re-run the detection when a VM appears and mode is NONE.
 */
struct vp_kvm_iface {
	char root[PATH_MAX];		/* debugfs mount point */
	bool kvm_dir;		/* root/kvm exists: mounted, KVM loaded */
	enum vp_kvm_mode mode;
	/*
	 * Why mode is STATS though wake_hint exists: the open's -errno,
	 * e.g. -EPERM under kernel lockdown (Secure Boot), which refuses
	 * every writable debugfs file; 0 otherwise.
	 */
	int hint_err;
	enum vp_sis_core sis_core;
};

/* Wake counters of one vCPU, cumulative since the vCPU was created. */
struct vp_kvm_wake_stats {
	uint64_t home;		/* halt_wake_home: on the hint/block PU */
	uint64_t smt_busy;	/* halt_wake_smt_busy: a sibling was busy */
	uint64_t migrated;	/* halt_wake_migrated: not the block PU */
	uint64_t halt_wakeup;	/* stock halt_wakeup, if has_halt_wakeup */
	bool has_halt_wakeup;
};

/*
 * One vCPU dir.  The layout fields cache the parse of the stats file:
 * it is fixed for the life of the fd, so names are looked up once.
 */
struct vp_kvm_vcpu {
	int id;			/* N of vcpuN: KVM vcpu_id, not libvirt's */
	int tid;		/* vcpuN/pid; 0 before its first KVM_RUN */
	int stats_fd;		/* -1 until the first stats read */
	int hint_fd;		/* -1 until the first hint write */
	int hint;		/* last written, else VP_KVM_HINT_UNSET */
	bool layout_ok;		/* data_off..off_* below are valid */
	uint32_t data_off;	/* stats file offset of the data block */
	uint32_t data_len;	/* its length in bytes */
	uint32_t off_home, off_smt_busy, off_migrated;	/* in the block */
	uint32_t off_halt_wakeup;	/* KVM_STATS_OFF_NONE if absent */
	uint64_t *data;		/* [data_len / 8], the read buffer */
};

#define VP_KVM_HINT_UNSET	INT_MIN
#define KVM_STATS_OFF_NONE	UINT32_MAX

/*
 * The debugfs dir of one QEMU process.  vcpu[] only grows: KVM never
 * destroys a vCPU before its VM, so indices stay valid until close.
 */
struct vp_kvm_vm {
	int pid;		/* QEMU */
	int vm_fd;		/* <fd> of <pid>-<fd>: QEMU's VM fd number */
	int dirfd;		/* open root/kvm/<pid>-<fd> */
	int nvcpus;
	struct vp_kvm_vcpu *vcpu;	/* [nvcpus], by id at open */
};

/*
 * Sets the root (NULL: KVM_IFACE_ROOT; tests pass a temp dir laid out like
 * debugfs) and clears the detection.  -ENAMETOOLONG if @root does not fit.
 */
int kvm_iface_init(struct vp_kvm_iface *k, const char *root) VP_MUST_CHECK;

/*
 * Probes the first vCPU dir under root/kvm (stats, then wake_hint opened
 * write-only and closed, which writes nothing) and reads sched/features.
 * Never fails: what it cannot see is NONE/ABSENT/UNKNOWN.  Re-runnable.
 */
void kvm_iface_detect(struct vp_kvm_iface *k);

/*
 * Opens root/kvm/<pid>-<fd> of QEMU @pid and lists its vCPU dirs; no file
 * is opened yet.  A process may own several VM fds (QEMU owns one): the dir
 * with the most vCPU dirs wins, ties to the lowest fd.  -ENOENT when no dir
 * of @pid has a vCPU dir (not started yet, or gone: retry next refresh).
 * On success free *ret_vm with kvm_iface_vm_close(); it is untouched on
 * failure.
 */
int kvm_iface_vm_open(const struct vp_kvm_iface *k, int pid,
    struct vp_kvm_vm **ret_vm) VP_MUST_CHECK;

/*
 * Closes every cached fd and frees @vm; NULL is fine.  Call it as soon as
 * the VM leaves libvirt's list: an open stats fd holds a reference on the
 * KVM VM, so the dir outlives QEMU while we hold it, and a new QEMU that
 * gets the same pid and fd number would then get no debugfs dir at all.
 */
void kvm_iface_vm_close(struct vp_kvm_vm *vm);

/*
 * Index in vm->vcpu[] of the vCPU whose thread is @tid.  On a miss it
 * re-reads the vCPU dirs (hot-plug) and the pid files still 0, then
 * retries.  -ENOENT if no vCPU runs as @tid (yet), -EINVAL for tid <= 0.
 */
int kvm_iface_vcpu_by_tid(struct vp_kvm_vm *vm, int tid) VP_MUST_CHECK;

/*
 * Writes @cpu ("<cpu>\n", OS CPU number) or -1 (clear) as the wake hint of
 * vCPU @idx, in one write(2): the file is nonseekable (pwrite gives
 * ESPIPE) and each write is parsed on its own.  Always writes, even an
 * unchanged value: the kernel applies a hint at once only when it is
 * written while the vCPU sleeps, which is what fixes the stale wake CPU of
 * a thread re-pinned in its sleep; so call it after every re-pin.  A hint
 * outside the affinity is accepted and ignored by the kernel.  Hints
 * survive a daemon restart: write or clear them all at startup.
 * Returns -EINVAL (cpu < -1, idx out of range, or cpu >= nr_cpu_ids as the
 * kernel says), -ENOENT/-EIO when the vCPU dir is gone, -EPERM under
 * lockdown.  On success vm->vcpu[idx].hint = @cpu.
 */
int kvm_iface_write_hint(struct vp_kvm_vm *vm, int idx, int cpu)
    VP_MUST_CHECK;

/*
 * Reads the wake counters of vCPU @idx.  The first call opens the stats
 * file, reads it whole and finds the counters by name; later calls pread
 * the data block only (the kernel's recommended use, binary_stats.c).
 * Every offset is bounds-checked against what was read (debugfs reports
 * size 0, so st_size is useless).  Returns -EBADMSG for a malformed or
 * short file (the layout is then dropped and re-parsed next time),
 * -EOPNOTSUPP when the halt_wake_* counters are missing (no patch 1),
 * -ENOENT when the dir is gone, -EINVAL for a bad @idx.  *ret is untouched
 * on failure.
 */
int kvm_iface_read_wake_stats(struct vp_kvm_vm *vm, int idx,
    struct vp_kvm_wake_stats *ret) VP_MUST_CHECK;

const char *kvm_iface_mode_name(enum vp_kvm_mode m);
const char *kvm_iface_sis_core_name(enum vp_sis_core s);

/*
 * The parsers behind the above, pure, for tests and fuzzing (tests/fuzz/).
 * A VM dir's name "<pid>-<fd>", a vCPU dir's name "vcpuN", a vcpuN/pid
 * file's text "<tid>\n": 0 with the numbers set, or -EINVAL with nothing
 * set.  sched/features' text (modified: tokenized in place).  A whole
 * stats file @buf[@len] into the layout fields of @v (data_off, data_len,
 * off_*): 0, -EBADMSG or -EOPNOTSUPP as kvm_iface_read_wake_stats() says;
 * on success every offset lies inside @buf.
 */
int kvm_iface_parse_vm_dir_name(const char *name, int *ret_pid, int *ret_fd)
	VP_MUST_CHECK;
int kvm_iface_parse_vcpu_name(const char *name, int *ret_id) VP_MUST_CHECK;
int kvm_iface_parse_tid(const char *buf, int *ret_tid) VP_MUST_CHECK;
enum vp_sis_core kvm_iface_parse_features(char *buf);
int kvm_iface_stats_parse(struct vp_kvm_vcpu *v, const unsigned char *buf,
    size_t len) VP_MUST_CHECK;

#endif /* KVM_IFACE_H */
