"""The soak's self-check against real VMs: proof that the checker can
fail.  With the daemon stopped (SIGSTOP, so it cannot repair anything
in between), it breaks two rules behind the daemon's back, takes one
checker sample, puts everything back as it was, takes another, and
only then lets the daemon go on (SIGCONT):

  R5  `virsh vcpupin --live` of a settled shared VM's vCPU 0 onto the
      PU of the settled dedicated VM (libvirt agrees, so only R5 sees it)
  R2  sched_setaffinity() of a `mode off` VM's vCPU 0 thread to one
  R3  PU, behind libvirt's back (/proc and `virsh vcpupin --live`
      disagree, and the off VM lost libvirt's default).  Not a managed
      VM's: libvirt's per-vCPU cgroup cpuset holds it to the daemon's
      set, so a wider mask changes nothing and a managed VM on this
      host's 2 PUs has one PU, nothing narrower to move it to.

The injected sample must count at least one bad sample of each rule,
the one after the repair none.  Neither is counted in the run's bad
samples.  Returns (ok, message lines).
"""
import os
import signal
import subprocess
import time

import checker
import procview

URI = checker.URI


def pick(w, pids, now):
    """(ded VM, its PU, shared VM A, off VM B) all settled, the first
    two placed, or None."""
    with w.lock:
        ready = [d for d in w.doms if d.name in pids and
                 d.state == "running" and checker.is_settled(w, d, now)]
        modes = {d.name: d.mode() for d in ready}
    ded = [d for d in ready if modes[d.name] == "dedicated"]
    shared = [d for d in ready if modes[d.name] == "shared"]
    off = [d for d in ready if modes[d.name] == "off" and d.off_pool]
    if not ded or not shared or not off or len(w.online) < 2:
        return None
    affs = procview.vcpu_affinities(pids[ded[0].name])
    if 0 not in affs or len(affs[0][1]) != 1:
        return None
    pu = next(iter(affs[0][1]))
    ok = []
    for d in shared:
        a = procview.vcpu_affinities(pids[d.name])
        if 0 in a and pu not in a[0][1]:
            ok.append(d)
    a = procview.vcpu_affinities(pids[off[0].name])
    if not ok or 0 not in a or a[0][1] != w.online:
        return None
    return ded[0], pu, ok[0], off[0]


def virsh_pin(name, vcpu, cpus):
    p = subprocess.run(["virsh", "-q", "-c", URI, "vcpupin", name,
                        str(vcpu), ",".join(str(c) for c in sorted(cpus)),
                        "--live"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=60)
    return p.returncode == 0, p.stdout.strip()


def take(chk):
    """One checker sample; returns {rule: count} it added, and takes
    those counts back out of the run's totals."""
    bad0 = dict(chk.bad_by_rule)
    n0, first0 = chk.bad, len(chk.first_bad)
    cmp0, skip0 = chk.compared, chk.skipped
    chk.sample()
    chk.compared, chk.skipped = cmp0, skip0
    delta = {r: c - bad0.get(r, 0) for r, c in chk.bad_by_rule.items()
             if c != bad0.get(r, 0)}
    chk.bad = n0
    chk.bad_by_rule = bad0
    del chk.first_bad[first0:]
    chk.samples -= 1
    return delta


def run(w, chk, timeout_s=90):
    out = []
    end = time.monotonic() + timeout_s
    got = None
    while time.monotonic() < end and got is None:
        got = pick(w, procview.qemu_pids(w.prefix), time.monotonic())
        if got is None:
            time.sleep(0.5)
    if got is None:
        return False, ["no settled dedicated, shared and off VM within "
                       "%d s" % timeout_s]
    ded, pu, a, b = got
    pids = procview.qemu_pids(w.prefix)
    with w.lock:
        dpid = w.daemon_pid
    with chk.sample_lock:
        a_orig = procview.vcpu_affinities(pids[a.name])[0][1]
        b_tid, b_orig = procview.vcpu_affinities(pids[b.name])[0]
        b_bad = frozenset([min(w.online)])
        os.kill(dpid, signal.SIGSTOP)
        try:
            ok_a, msg = virsh_pin(a.name, 0, [pu])
            if not ok_a:
                out.append("virsh vcpupin %s 0 %d: %s" % (a.name, pu, msg))
            os.sched_setaffinity(b_tid, b_bad)
            inj = take(chk)
            os.sched_setaffinity(b_tid, b_orig)
            ok_r, msg = virsh_pin(a.name, 0, a_orig)
            if not ok_r:
                out.append("virsh vcpupin %s 0 back: %s" % (a.name, msg))
            clean = take(chk)
        finally:
            os.kill(dpid, signal.SIGCONT)
    out.append("injected: %s vcpu 0 onto %s's PU %d (virsh), %s vcpu 0 "
                "tid %d to %s behind libvirt; checker saw %s; after the "
                "repair %s" % (
                    a.name, ded.name, pu, b.name, b_tid,
                    checker.fmt(b_bad), fmt_counts(inj),
                    fmt_counts(clean) or "nothing"))
    ok = (ok_a and ok_r and not clean and all(
        inj.get(r, 0) > 0 for r in ("R5-exclusive", "R2-agree",
                                    "R3-off-touched")))
    return ok, out


def fmt_counts(d):
    return " ".join("%s=%d" % kv for kv in sorted(d.items()))
