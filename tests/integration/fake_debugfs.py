"""A directory laid out like debugfs on a host running the kernel series
(kvm-patches/), for vcpuplaced --kvm-debugfs: per QEMU process
kvm/<pid>-<fd>/vcpuN/{pid,stats,wake_hint} and sched/features.

stats is written in KVM's binary stats format (struct kvm_stats_header,
then the id string, the descriptors and the data block; see the kernel's
Documentation/virt/kvm/api.rst, "KVM_GET_STATS_FD"), with the stock
halt_wakeup counter and the series' three wake-placement counters.
wake_hint is a regular file here: the daemon's writes land in it in turn.
"""
import os
import struct

COUNTERS = ("halt_wakeup", "halt_wake_home", "halt_wake_smt_busy",
            "halt_wake_migrated")
NAME_SIZE = 48          # KVM_STATS_NAME_SIZE
HEADER = struct.Struct("<6I")           # flags name_size num_desc id desc data
DESC = struct.Struct("<IhHII")          # flags exponent size offset bucket
CUMULATIVE = 0          # KVM_STATS_TYPE_CUMULATIVE | UNIT_NONE | BASE_POW10


def stats_blob(values):
    """Bytes of a stats file holding COUNTERS = @values (a dict)."""
    stride = DESC.size + NAME_SIZE
    id_off = HEADER.size
    desc_off = id_off + NAME_SIZE
    data_off = desc_off + len(COUNTERS) * stride
    out = bytearray(HEADER.pack(0, NAME_SIZE, len(COUNTERS), id_off,
                                desc_off, data_off))
    out += b"kvm-fake/vcpu".ljust(NAME_SIZE, b"\0")
    for i, name in enumerate(COUNTERS):
        out += DESC.pack(CUMULATIVE, 0, 1, i * 8, 0)
        out += name.encode().ljust(NAME_SIZE, b"\0")
    for name in COUNTERS:
        out += struct.pack("<Q", values.get(name, 0))
    return bytes(out)


def vcpu_dir(root, pid, vm_fd, vcpu_id):
    return os.path.join(root, "kvm", "%d-%d" % (pid, vm_fd),
                        "vcpu%d" % vcpu_id)


def add_vm(root, pid, tids, vm_fd=11, values=None):
    """One VM: vcpu<i> for each thread id in @tids (index = vCPU id)."""
    for i, tid in enumerate(tids):
        d = vcpu_dir(root, pid, vm_fd, i)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "pid"), "w") as f:
            f.write("%d\n" % tid)
        write_stats(root, pid, i, values or {}, vm_fd)
        with open(os.path.join(d, "wake_hint"), "w"):
            pass


def write_stats(root, pid, vcpu_id, values, vm_fd=11):
    """Rewrites vcpu<vcpu_id>/stats in place, as the kernel's counters
    change under an open fd."""
    path = os.path.join(vcpu_dir(root, pid, vm_fd, vcpu_id), "stats")
    mode = "r+b" if os.path.exists(path) else "wb"
    with open(path, mode) as f:
        f.seek(0)
        f.write(stats_blob(values))


def hints(root, pid, vcpu_id, vm_fd=11):
    """Every hint written so far, in order ("3", "-1", ...)."""
    with open(os.path.join(vcpu_dir(root, pid, vm_fd, vcpu_id),
                           "wake_hint")) as f:
        return f.read().split()


def set_features(root, sis_core=True):
    os.makedirs(os.path.join(root, "sched"), exist_ok=True)
    with open(os.path.join(root, "sched", "features"), "w") as f:
        f.write("GENTLE_FAIR_SLEEPERS START_DEBIT %sSIS_CORE SIS_UTIL "
                "WARN_DOUBLE_CLOCK\n" % ("" if sis_core else "NO_"))
