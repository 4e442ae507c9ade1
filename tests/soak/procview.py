"""What the kernel says, read from /proc and /sys only: the QEMU process
of each pool domain, its vCPU threads and their Cpus_allowed_list, and
a process's fd count and RSS.  Nothing here asks libvirt or the daemon.
"""
import os
import re

_GUEST = re.compile(rb"^guest=([^,]+)")
_VCPU_COMM = re.compile(r"^CPU (\d+)/(TCG|KVM)$")


def parse_cpulist(s):
    """'0-2,5' -> {0,1,2,5}."""
    out = set()
    for part in s.strip().split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    return out


def online_cpus():
    with open("/sys/devices/system/cpu/online") as f:
        return frozenset(parse_cpulist(f.read()))


def qemu_pids(prefix):
    """{domain name: QEMU pid} for every QEMU whose -name guest=... starts
    with @prefix, found by its command line (libvirt's pid files would
    outlive a kill -9 of QEMU)."""
    out = {}
    for ent in os.listdir("/proc"):
        if not ent.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % ent, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if not argv or not argv[0].endswith(b"qemu-system-x86_64"):
            continue
        for i, a in enumerate(argv[:-1]):
            if a == b"-name":
                m = _GUEST.match(argv[i + 1])
                if m and m.group(1).startswith(prefix.encode()):
                    if not _zombie(int(ent)):
                        out[m.group(1).decode()] = int(ent)
                break
    return out


def _zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


def tid_affinity(pid, tid):
    """Cpus_allowed_list of thread @tid of @pid as a frozenset, or None
    if the thread is gone."""
    try:
        with open("/proc/%d/task/%d/status" % (pid, tid)) as f:
            for line in f:
                if line.startswith("Cpus_allowed_list:"):
                    return frozenset(parse_cpulist(line.split(":", 1)[1]))
    except OSError:
        return None
    return None


def vcpu_threads(pid):
    """{vCPU index: tid} from QEMU's threads named "CPU N/TCG"."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                m = _VCPU_COMM.match(f.read().strip())
        except OSError:
            continue
        if m:
            out[int(m.group(1))] = int(tid)
    return out


def vcpu_affinities(pid):
    """{vCPU index: (tid, frozenset)} of QEMU @pid; threads that vanish
    while read are left out."""
    out = {}
    for vcpu, tid in vcpu_threads(pid).items():
        aff = tid_affinity(pid, tid)
        if aff is not None:
            out[vcpu] = (tid, aff)
    return out


def alive(pid):
    return pid is not None and os.path.exists("/proc/%d" % pid) and \
        not _zombie(pid)


def fd_count(pid):
    try:
        return len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return None


def rss_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None
