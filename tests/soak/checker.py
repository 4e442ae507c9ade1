"""The soak's independent checker: a thread that samples, every second,
what the kernel says (/proc, /sys) and what libvirt says (`virsh vcpupin
--live`), never the daemon's socket or status file, and counts every
rule broken as one bad sample (one per vCPU, or per VM, and rule).

The rules, and when each one is judged (tests/soak/README.md says why):

  R1 affinity   every vCPU thread of every pool VM: Cpus_allowed_list
                non-empty and inside /sys/devices/system/cpu/online.
                Always judged.
  R2 agree      the thread's list equals `virsh vcpupin --live`.  Not
                judged for a VM while an action on it is in flight (the
                harness's begin..end), nor while libvirtd is down (a
                libvirtd kill in flight), nor for a thread whose list
                changed between the /proc reads before and after the
                virsh call (a pin was landing).
  R3 off        `mode off` pool VMs (defined off, metadata never
                changed): every thread keeps libvirt's default, the
                whole online set.  Always judged.
  R4 placed     a managed VM that is settled has every vCPU placed: its
                list lies inside one domain of its locality, widened as
                the planner widens it (vcpu_placed()); a dedicated VM's
                list is one PU.
  R5 exclusive  the PU of a settled, placed dedicated VM is in no other
                settled managed VM's list.
  R6 alive      the daemon's process exists (the supervisor counts the
                crashes; the checker counts the samples without it).

A VM is settled when nothing on it, on libvirtd or on the daemon
happened within the grace: its last action ended >= grace_s ago, the
daemon (re)started >= grace_s ago, and libvirtd has been back
>= libvirt_grace_s (the daemon's reconnect backs off to 8 s).
"""
import os
import subprocess
import sys
import threading
import time

import procview

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), "tests", "integration"))
import locality  # noqa: E402

URI = "qemu:///system"


def virsh_vcpupins(names, timeout=30):
    """{name: {vcpu: frozenset}} from one virsh process running
    `vcpupin NAME --live` for each; a name whose command failed is
    missing.  None when virsh itself failed or timed out."""
    if not names:
        return {}
    script = "; ".join("echo @@%s; vcpupin %s --live" % (n, n)
                       for n in names)
    try:
        p = subprocess.run(["virsh", "-q", "-c", URI, script],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return parse_vcpupins(p.stdout)


def parse_vcpupins(text):
    """{name: {vcpu: frozenset}} from the output of the batched
    `echo @@NAME; vcpupin NAME --live` run; names without rows left out."""
    out = {}
    cur = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("@@"):
            # virsh -q prints the first row of the table on the echo's
            # line ("@@NAME 0   0-1"): the marker is the first word only
            word, _, line = line.partition(" ")
            cur = word[2:]
            out[cur] = {}
            line = line.strip()
        if cur is None or not line:
            continue
        parts = line.replace(":", " ").split()
        if len(parts) == 2 and parts[0].isdigit():
            try:
                out[cur][int(parts[0])] = frozenset(
                    procview.parse_cpulist(parts[1]))
            except ValueError:
                pass
    return {n: v for n, v in out.items() if v}


class Checker(threading.Thread):
    def __init__(self, world, log_path):
        super().__init__(name="checker", daemon=True)
        self.w = world
        self.log = open(log_path, "a", buffering=1)
        self.bad = 0
        self.bad_by_rule = {}
        self.first_bad = []
        self.samples = 0
        self.compared = 0
        self.skipped = 0
        self.daemon_samples = []    # (t, pid, fds, rss_kib, clean)
        # held around each sample, so the self-check can sample alone
        self.sample_lock = threading.Lock()

    def note_bad(self, now, rule, what):
        self.bad += 1
        self.bad_by_rule[rule] = self.bad_by_rule.get(rule, 0) + 1
        line = "%.3f BAD %s %s" % (now - self.w.t0, rule, what)
        self.log.write(line + "\n")
        if len(self.first_bad) < 12:
            self.first_bad.append(line)

    def run(self):
        while not self.w.stop.wait(1.0):
            try:
                with self.sample_lock:
                    self.sample()
            except Exception as e:  # a checker bug must not pass silently
                self.note_bad(time.monotonic(), "checker-error", repr(e))

    def snapshot(self):
        """Under the lock: libvirt epoch, per-VM generation and busy."""
        w = self.w
        with w.lock:
            return (w.libvirt_epoch, w.libvirt_down,
                    {d.name: (d.gen, d.busy) for d in w.doms})

    def sample(self):
        w = self.w
        now = time.monotonic()
        self.samples += 1
        online = w.online
        snap0 = self.snapshot()
        self.sample_daemon(now)
        pids = procview.qemu_pids(w.prefix)
        before = {n: procview.vcpu_affinities(p) for n, p in pids.items()}
        pins = None
        if not snap0[1]:
            pins = virsh_vcpupins(sorted(before))
        after = {n: procview.vcpu_affinities(p) for n, p in pids.items()}
        snap1 = self.snapshot()
        libvirt_steady = (pins is not None and not snap0[1] and
                          snap0[0] == snap1[0] and not snap1[1])
        doms = {d.name: d for d in w.doms}
        settled = {}
        with w.lock:
            for d in w.doms:
                settled[d.name] = is_settled(w, d, now)
            modes = {d.name: d.mode() for d in w.doms}
            locs = {d.name: d.locality(w.localities) for d in w.doms}
        for name, vcpus in sorted(before.items()):
            d = doms.get(name)
            if d is None:
                continue
            steady = (libvirt_steady and snap0[2][name] == snap1[2][name]
                      and not snap0[2][name][1])
            for vcpu, (tid, aff) in sorted(vcpus.items()):
                # R1
                if not aff or not aff <= online:
                    self.note_bad(now, "R1-affinity", "%s vcpu %d tid %d "
                                  "allowed %s, online %s" % (
                                      name, vcpu, tid, fmt(aff),
                                      fmt(online)))
                # R3
                if d.off_pool and aff != online:
                    self.note_bad(now, "R3-off-touched", "%s vcpu %d "
                                  "allowed %s, want libvirt's %s" % (
                                      name, vcpu, fmt(aff), fmt(online)))
                # R2
                a2 = after.get(name, {}).get(vcpu)
                if not steady or a2 is None or a2[1] != aff:
                    self.skipped += 1
                    continue
                pin = (pins.get(name) or {}).get(vcpu)
                if pin is None:
                    self.skipped += 1
                    continue
                self.compared += 1
                if pin != aff:
                    self.note_bad(now, "R2-agree", "%s vcpu %d thread %s, "
                                  "virsh vcpupin --live %s" % (
                                      name, vcpu, fmt(aff), fmt(pin)))
        # R4 and R5, for settled managed VMs.  First the PUs of placed
        # dedicated VMs, then every other VM's vCPUs against them.
        ded_pus = {}
        for name, vcpus in sorted(before.items()):
            if not settled.get(name) or modes.get(name) != "dedicated":
                continue
            for vcpu, (tid, aff) in sorted(vcpus.items()):
                if len(aff) == 1:
                    ded_pus.setdefault(next(iter(aff)), []).append(
                        (name, vcpu))
        for pu, owners in sorted(ded_pus.items()):
            if len(owners) > 1:
                self.note_bad(now, "R5-exclusive", "PU %d dedicated to %s" % (
                    pu, " and ".join("%s/%d" % o for o in owners)))
        for name, vcpus in sorted(before.items()):
            d = doms.get(name)
            if d is None or not settled.get(name) or modes[name] == "off":
                continue
            for vcpu, (tid, aff) in sorted(vcpus.items()):
                if not vcpu_placed(w, modes[name], locs[name], aff, None,
                                   d.vcpus_max):
                    self.note_bad(now, "R4-unplaced", "%s (%s, %s) vcpu %d "
                                  "allowed %s, settled for %.1fs" % (
                                      name, modes[name], locs[name], vcpu,
                                      fmt(aff), now - d.settle_from))
                for pu, owners in ded_pus.items():
                    if pu in aff and owners[0][0] != name:
                        self.note_bad(now, "R5-exclusive", "%s vcpu %d "
                                      "allowed %s holds PU %d of %s/%d" % (
                                          name, vcpu, fmt(aff), pu,
                                          owners[0][0], owners[0][1]))

    def sample_daemon(self, now):
        """R6 and the daemon's fd count and RSS.  A sample is clean when
        no vcpuplacectl request was in flight around it, libvirtd was up
        and settled, and the daemon had run past its grace: then its fd
        count should be exactly flat."""
        w = self.w
        with w.lock:
            pid = w.daemon_pid
            ctl0 = w.ctl_epoch
            busy = w.ctl_inflight > 0
            lv_ok = (not w.libvirt_down and
                     now - w.libvirt_up_since >= w.libvirt_grace_s)
            dm_ok = now - w.daemon_since >= w.grace_s
        if not procview.alive(pid):
            if not w.daemon_restarting:
                self.note_bad(now, "R6-daemon-dead", "pid %s" % pid)
            return
        fds = procview.fd_count(pid)
        rss = procview.rss_kib(pid)
        with w.lock:
            clean = (not busy and w.ctl_inflight == 0 and
                     w.ctl_epoch == ctl0 and lv_ok and dm_ok)
        if fds is not None and rss is not None:
            self.daemon_samples.append((now, pid, fds, rss, clean))


def is_settled(w, d, now):
    """Under w.lock: nothing happened to @d, libvirtd or the daemon
    within the grace (module docstring)."""
    return (not d.busy and now - d.settle_from >= w.grace_s and
            now - w.daemon_since >= w.grace_s and not w.libvirt_down and
            now - w.libvirt_up_since >= w.libvirt_grace_s)


def widened_groups(topo, locality_name, nvcpus):
    """The domains an allowed set of @locality_name may lie in, for a VM
    of @nvcpus vCPUs: each PU's domain of that level, widened as the
    planner widens it (locality.widened_domain()).  smt=siblings needs
    fewer cores; counting one per vCPU only widens more, so no placement
    is judged wrong for it."""
    return sorted({frozenset(locality.widened_domain(
        topo, locality_name, pu, nvcpus)[1]) for pu in topo["core"]},
        key=min)


def vcpu_placed(w, mode, locality, aff, ded_pu, nvcpus=1):
    """True when @aff is a placement the daemon could have made for a
    vCPU of that mode and locality, of a VM of @nvcpus vCPUs: one PU
    when dedicated, else inside one domain of the locality, widened as
    the planner widens it (widened_groups()), and off @ded_pu (another
    VM's dedicated PU, or None).  On a host of one LLC without clusters
    that domain is the whole host, libvirt's default too: there only a
    dedicated VM's placement shows."""
    if mode == "dedicated":
        return len(aff) == 1
    if ded_pu is not None and ded_pu in aff:
        return False
    return any(aff <= g for g in widened_groups(w.groups, locality, nvcpus))


def fmt(cpus):
    if cpus is None:
        return "-"
    if not cpus:
        return "(empty)"
    return ",".join(str(c) for c in sorted(cpus))


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if not n:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2.0


def growth(samples, t0, t_end, pid):
    """(fd_growth, rss_growth_kib, n2, n3): the medians of the clean
    samples of daemon @pid in the last third of [t0, t_end] minus those
    of the second third (the first third is warm-up)."""
    third = (t_end - t0) / 3.0
    mid = [s for s in samples if s[1] == pid and s[4] and
           t0 + third <= s[0] < t0 + 2 * third]
    last = [s for s in samples if s[1] == pid and s[4] and
            s[0] >= t0 + 2 * third]
    if not mid or not last:
        return None, None, len(mid), len(last)
    fd = median(s[2] for s in last) - median(s[2] for s in mid)
    rss = median(s[3] for s in last) - median(s[3] for s in mid)
    return fd, rss, len(mid), len(last)


def rss_slope(samples, t0, t_end, pid):
    """The least-squares slope of daemon @pid's clean RSS samples after
    warm-up (the last two thirds of [t0, t_end]), in KiB per hour, or
    None with fewer than two.  A leak grows with the actions, so with
    time: a slope says more than two medians do, which an allocator's
    high-water mark can move once."""
    start = t0 + (t_end - t0) / 3.0
    pts = [(s[0], s[3]) for s in samples
           if s[1] == pid and s[4] and s[0] >= start]
    if len(pts) < 2:
        return None
    mt = sum(t for t, _ in pts) / len(pts)
    mr = sum(r for _, r in pts) / len(pts)
    var = sum((t - mt) ** 2 for t, _ in pts)
    if var == 0:
        return None
    return sum((t - mt) * (r - mr) for t, r in pts) / var * 3600.0


def write_samples(path, samples, t0):
    """The daemon's samples as a table (seconds since the chaos began,
    pid, fds, RSS KiB, clean), for a plot or a second look."""
    with open(path, "w") as f:
        f.write("t_s\tpid\tfds\trss_kib\tclean\n")
        for t, pid, fds, rss, clean in samples:
            f.write("%.1f\t%d\t%d\t%d\t%d\n" % (t - t0, pid, fds, rss,
                                                int(clean)))

