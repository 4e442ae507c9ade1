#!/usr/bin/env python3
"""A stand-in for vcpuplaced, built on `virsh`, that implements the
daemon contract of run.py just well enough to test the tests:

    python3 tests/integration/run.py tests/integration/fake_vcpuplaced.py

It is NOT the daemon and makes no placement decision worth the name:
dedicated vCPUs get one PU each from the top of the pool down, shared
vCPUs the rest of the pool, homes round-robin.  Profiles it knows:
balanced, latency (shared) and dedicated; fields are checked against the
README's value lists.  "Connected" means virsh answers; a changed
libvirtd pid (or virsh failing, then answering) counts as a reconnect.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib  # noqa: E402

NS = vmlib.POLICY_NS
PROFILES = {
    "balanced": dict(profile="balanced", mode="shared",
                     smt="prefer-idle-core", locality="llc"),
    "latency": dict(profile="latency", mode="shared", smt="prefer-idle-core",
                    locality="cluster"),
    "dedicated": dict(profile="dedicated", mode="dedicated",
                      smt="prefer-idle-core", locality="llc"),
}
VALUES = {"mode": {"off", "shared", "dedicated"},
          "smt": {"prefer-idle-core", "isolate", "siblings", "any"},
          "locality": {"cluster", "llc", "numa", "any"},
          "priority": {"high", "normal", "low"}}
stop = False


def log(msg):
    print("fake-vcpuplaced: %s" % msg, file=sys.stderr, flush=True)


def parse_policy(text):
    if not text:
        return dict(PROFILES["balanced"]), None
    m = re.search(r'profile="([^"]*)"', text)
    prof = m.group(1) if m else "balanced"
    if prof not in PROFILES:
        return None, "unknown profile '%s'" % prof
    pol = dict(PROFILES[prof])
    for k, v in re.findall(r"<(?:\w+:)?(\w+)>([^<]*)</", text):
        if k in VALUES and v not in VALUES[k]:
            return None, "element %s: bad value '%s'" % (k, v)
        pol[k] = v
    return pol, None


def batch(uri, cmds):
    p = subprocess.run(["virsh", "-c", uri, " ; ".join(cmds)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    errs = [l for l in p.stderr.splitlines() if l.startswith("error:")
            and "metadata not found" not in l]
    return p.returncode, p.stdout, errs


def libvirtd_pid():
    try:
        with open("/run/libvirtd.pid") as f:
            return f.read().strip()
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--connect", required=True)
    ap.add_argument("--foreground", action="store_true")
    ap.add_argument("--tick", type=int, default=1000)
    ap.add_argument("--policies")
    ap.add_argument("--status-file", required=True)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--trust-metadata", action="store_true")
    ap.add_argument("--reserve", default="")
    # accepted but not served: the tests that ask the socket fail here
    ap.add_argument("--socket")
    ap.add_argument("--debugfs")
    a = ap.parse_args()
    uri = a.connect

    def term(*_):
        global stop
        stop = True
    signal.signal(signal.SIGTERM, term)

    host = sorted(vmlib.host_cpus() - vmlib.parse_cpulist(a.reserve))
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    topo = vmlib.load_topology(os.path.join(root, "build", "vcpuplacectl"))
    st = dict(tick=0, connected=False, reconnects=0, libvirt_errors=0,
              invalid_metadata=0, vms=[])
    seen_meta = {}      # name -> last metadata text
    good = {}           # name -> last valid policy
    was_connected = None
    lpid = libvirtd_pid()
    qemu = uri.startswith("qemu")
    while not stop:
        t0 = time.monotonic()
        st["tick"] += 1
        rc, out, errs = batch(uri, ["list --name"])
        ok = rc == 0
        if qemu and libvirtd_pid() != lpid and ok:
            lpid = libvirtd_pid()
            if was_connected:
                st["reconnects"] += 1
        if ok and was_connected is False:
            st["reconnects"] += 1
            log("reconnected to %s" % uri)
        if not ok and was_connected:
            log("lost %s" % uri)
        was_connected = ok
        st["connected"] = ok
        vms = []
        if ok:
            names = [n.strip() for n in out.splitlines() if n.strip()]
            cmds = []
            for n in names:
                cmds += ["echo @@M %s" % n, "metadata %s %s --live" % (n, NS),
                         "echo @@P %s" % n, "vcpupin %s --live" % n]
            info = {}
            if cmds:
                rc, out2, errs = batch(uri, cmds)
                st["libvirt_errors"] += len(errs)
                for e in errs:
                    log("libvirt: %s" % e)
                cur = None
                for line in out2.splitlines():
                    m = re.match(r"^@@([MP]) (\S+)$", line)
                    if m:
                        cur = (m.group(1), m.group(2))
                        info.setdefault(cur[1], {"M": "", "P": ""})
                        continue
                    if cur:
                        info[cur[1]][cur[0]] += line + "\n"
            # Plan: dedicated first, from the top of the pool.
            pool = list(host)
            plans = {}
            for n in sorted(info):
                text = info[n]["M"].strip()
                pins = vmlib.parse_vcpupin(info[n]["P"])
                if not pins:
                    continue        # went away meanwhile
                pol, err = parse_policy(text)
                if err:
                    if seen_meta.get(n) != text:
                        st["invalid_metadata"] += 1
                        log("vm %s: invalid metadata: %s" % (n, err))
                    seen_meta[n] = text
                    plans[n] = (good.get(n), err, pins)
                    continue
                seen_meta[n] = text
                good[n] = pol
                plans[n] = (pol, None, pins)
            ded = {}
            for n, (pol, err, pins) in plans.items():
                if pol and not err and pol["mode"] == "dedicated":
                    ded[n] = [pool.pop() if len(pool) > 1 else None
                              for _ in pins]
            apply = []
            for n, (pol, err, pins) in sorted(plans.items()):
                vcpus = []
                for i in sorted(pins):
                    if err or pol is None or pol["mode"] == "off":
                        allowed = pins[i]
                    elif pol["mode"] == "dedicated":
                        allowed = {ded[n][i]} if ded[n][i] is not None \
                            else set(pool)
                    else:
                        allowed = set(pool)
                        loc = pol.get("locality")
                        h = sorted(pool)[(sum(map(ord, n)) + i) % len(pool)]
                        if topo and loc in topo:
                            allowed = topo[loc][h] & set(pool) or allowed
                    home = sorted(allowed)[i % len(allowed)]
                    if not err and pol and pol["mode"] != "off" and \
                            allowed != pins[i]:
                        apply.append("vcpupin %s %d %s --live" % (
                            n, i, vmlib.format_cpulist(allowed)))
                    tid = None
                    if qemu:
                        try:
                            tid = vmlib.vcpu_threads(n).get(i)
                        except (OSError, RuntimeError, ValueError):
                            pass
                    vcpus.append(dict(vcpu=i, tid=tid, home=home,
                                      allowed=vmlib.format_cpulist(allowed),
                                      current=home, reason="fake"))
                vms.append(dict(name=n, policy=pol and {
                    k: pol[k] for k in ("profile", "mode", "smt",
                                        "locality")},
                    error=err, vcpus=vcpus))
            if apply and not a.dry_run:
                rc, _, errs = batch(uri, apply)
                st["libvirt_errors"] += len(errs)
        st["vms"] = vms
        tmp = a.status_file + ".tmp"
        with open(tmp, "w") as f:
            json.dump(st, f)
        os.replace(tmp, a.status_file)
        time.sleep(max(0, a.tick / 1000.0 - (time.monotonic() - t0)))
    log("SIGTERM, exiting")
    return 0


if __name__ == "__main__":
    sys.exit(main())
