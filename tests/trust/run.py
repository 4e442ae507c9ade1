#!/usr/bin/env python3
"""The trust boundary between the host and its VMs' owners, end to end:
can a VM's owner take other tenants' CPUs by writing its own domain metadata?

    run.py BUILD_DIR

A 16-PU host modelled from a real topology (tests/topologies'
Raptor Lake i7-1370P restricted to its PUs 0-15 with lstopo: six SMT-2
P-cores and four E-cores), --reserve 0,1, and four VMs in libvirt's
test driver (dry run, no QEMU): web, db and batch of 3 vCPUs with no
metadata, and greedy of 6 vCPUs whose own metadata asks for
profile="dedicated", <smt>isolate</smt>, <emulator>housekeeping</emulator>.

  attack  --trust-metadata and a budget of 100 %: the old behaviour,
          kept as the baseline: greedy takes 6 cores and the others'
          9 vCPUs are left 3 PUs.  Shows the test sees the attack.
  tenant  the host's rules as shipped: greedy is refused (status,
          explain, metric, one log line), placed as the host default;
          the other VMs' 9 vCPUs are spread over the pool (8 homes or
          more: 15 vCPUs on 14 PUs).
  budget  the host itself grants greedy that policy (grants.xml, by
          UUID) under the default budget (50 % of the cores): refused
          by the budget, planned shared; the others keep their cores.
  granted the same grant within a budget the operator raised: greedy
          gets its dedicated cores (a grant works).

Prints PASS/FAIL per case and `trust: N passed, N failed`.  No verdict
depends on time: each case waits (60 s at most: a hang, or a state it
must never reach) until every vCPU has a home and the state the case
expects holds (the applied homes follow a plan 16 pins a tick), then
checks that one status.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "socket"))
from ctlclient import ask  # noqa: E402

TEST_NS = "http://libvirt.org/schemas/domain/test/1.0"
GREEDY_UUID = "56500000-0000-0000-0000-00000000000b"
GREEDY_META = ("<vp:policy xmlns:vp='urn:vcpuplace:policy:1' "
               "profile='dedicated'><smt>isolate</smt>"
               "<emulator>housekeeping</emulator></vp:policy>")
VMS = [("web", 3, None), ("greedy", 6, GREEDY_META), ("db", 3, None),
       ("batch", 3, None)]
WAIT_S = 60


class Fail(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def node_xml():
    doms = []
    for i, (name, n, meta) in enumerate(VMS):
        u = GREEDY_UUID if name == "greedy" else \
            "56500000-0000-0000-0000-%012x" % i
        doms.append(
            "<domain type='test' xmlns:test='%s'><name>%s</name>"
            "<uuid>%s</uuid>%s<memory unit='KiB'>98304</memory>"
            "<vcpu placement='static'>%d</vcpu>"
            "<test:runstate>1</test:runstate>"
            "<os><type arch='x86_64'>hvm</type></os><devices/></domain>\n"
            % (TEST_NS, name, u, "<metadata>%s</metadata>" % meta
               if meta else "", n))
    return ("<node><cpu><nodes>1</nodes><sockets>1</sockets><cores>16"
            "</cores><threads>1</threads><active>16</active><mhz>2000"
            "</mhz><model>x86_64</model></cpu><memory>8388608</memory>\n"
            + "".join(doms) + "</node>\n")


def metric(text, name, **labels):
    want = ",".join('%s="%s"' % kv for kv in sorted(labels.items()))
    pat = re.compile(r"^%s(\{%s\})? (\S+)$" % (re.escape(name),
                                               re.escape(want)), re.M)
    m = pat.search(text)
    return float(m.group(2)) if m else None


class Daemon:
    def __init__(self, build, tmp, tag, grants=None, extra=()):
        self.dir = os.path.join(tmp, tag)
        os.mkdir(self.dir)
        pol = os.path.join(self.dir, "policies")
        shutil.copytree(os.path.join(ROOT, "policies"), pol)
        if grants:
            path = os.path.join(pol, "grants.xml")
            with open(path, "w") as f:
                f.write(grants)
            os.chmod(path, 0o644)
        self.sock = os.path.join(self.dir, "s.sock")
        td = os.path.join(self.dir, "td.xml")
        with open(td, "w") as f:
            f.write(node_xml())
        self.errpath = os.path.join(self.dir, "stderr")
        self.err = open(self.errpath, "w")
        self.p = subprocess.Popen(
            [os.path.join(build, "vcpuplaced"), "--connect", "test://" + td,
             "--dry-run", "--tick", "250", "--policies", pol,
             "--topology", os.path.join(tmp, "rl16.xml"),
             "--reserve", "0,1", "--socket", self.sock] + list(extra),
            stdout=subprocess.DEVNULL, stderr=self.err)

    def placed(self, what, settled):
        """The VMs by name once every vCPU has a home and @settled(vms)
        holds: the applied homes follow the plan a few pins a tick, so
        the verdict waits for the state, never for a time.  Fails after
        WAIT_S (a hang, or a state the case must never reach)."""
        end = time.monotonic() + WAIT_S
        vms = {}
        while time.monotonic() < end:
            check(self.p.poll() is None, "daemon exited: " + self.log())
            try:
                st = json.loads(ask(self.sock, b"status\n"))
                vms = {v["name"]: v for v in st["vms"]}
                if len(vms) == 4 and all(
                        c["home"] is not None for v in st["vms"]
                        for c in v["vcpus"]) and settled(vms):
                    return vms
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.1)
        raise Fail("not within %d s: %s; last: others' homes %s, greedy "
                   "%s" % (WAIT_S, what, others_homes(vms) if vms else None,
                           vms.get("greedy")))

    def log(self):
        with open(self.errpath) as f:
            return f.read()

    def stop(self):
        self.p.terminate()
        self.p.wait(timeout=30)
        self.err.close()


def others_homes(vms):
    return [c["home"] for n, v in vms.items() if n != "greedy"
            for c in v["vcpus"]]


def greedy_reasons(vms):
    return {c["reason"] for c in vms["greedy"]["vcpus"]}


def own_homes(vms):
    """The other VMs' 9 vCPUs spread over the pool: 15 vCPUs on the 14
    PUs outside --reserve leave one PU homing two, so at least 8 of
    theirs are distinct (under the attack they had 3)."""
    return len(set(others_homes(vms))) >= 8


def case_attack(d):
    vms = d.placed("greedy dedicated",
                   lambda v: greedy_reasons(v) == {"dedicated"})
    check(greedy_reasons(vms) == {"dedicated"}, "greedy reasons %s" %
          greedy_reasons(vms))
    homes = others_homes(vms)
    check(len(set(homes)) <= 3, "with the attack the others were to be "
          "squeezed, homes %s" % homes)
    return "others' 9 vCPUs on PUs %s" % sorted(set(homes))


def case_tenant(d):
    vms = d.placed("the other VMs' 9 vCPUs on 8 homes or more", own_homes)
    g = vms["greedy"]
    check(g["policy"]["profile"] == "balanced" and
          g["policy"]["mode"] == "shared", "greedy policy %s" % g["policy"])
    check("profile 'dedicated' is host-granted only" in (g["refused"] or ""),
          "greedy refused %r" % g["refused"])
    check(greedy_reasons(vms).isdisjoint({"dedicated", "isolated"}),
          "greedy reasons %s" % greedy_reasons(vms))
    homes = others_homes(vms)
    ex = ask(d.sock, b"explain greedy 0\n")
    check("refused: profile 'dedicated' is host-granted only" in ex and
          "host default" in ex, "explain: %s" % ex)
    m = metric(ask(d.sock, b"metrics\n"), "vcpuplace_policy_refused_total",
               cause="tenant")
    check(m == 1, "refused_total{tenant} %s" % m)
    n = d.log().count("VM greedy: refused")
    check(n == 1, "%d log lines for the refusal, want 1" % n)
    return "others' homes %s" % sorted(set(homes))


GRANT = ("<grants xmlns='urn:vcpuplace:policy:1'>%s<vm uuid='%s' "
         "profile='dedicated'><smt>isolate</smt></vm></grants>\n")


def case_budget(d):
    vms = d.placed("the other VMs' 9 vCPUs on 8 homes or more", own_homes)
    g = vms["greedy"]
    check(g["granted"] is True, "greedy not granted: %s" % g)
    check("over the host budget" in (g["refused"] or ""),
          "greedy refused %r" % g["refused"])
    check(greedy_reasons(vms).isdisjoint({"dedicated", "isolated"}),
          "greedy reasons %s" % greedy_reasons(vms))
    homes = others_homes(vms)
    m = metric(ask(d.sock, b"metrics\n"), "vcpuplace_policy_refused_total",
               cause="budget")
    check(m == 1, "refused_total{budget} %s" % m)
    check("refused: exclusive cores over the host budget" in
          ask(d.sock, b"explain greedy 0\n"), "explain")
    return "refused: %s" % g["refused"]


def case_granted(d):
    vms = d.placed("greedy dedicated",
                   lambda v: greedy_reasons(v) == {"dedicated"})
    g = vms["greedy"]
    check(g["granted"] is True and not g["refused"], "greedy %s" % g)
    check(greedy_reasons(vms) == {"dedicated"}, "greedy reasons %s" %
          greedy_reasons(vms))
    return "greedy dedicated on %s" % sorted(c["home"] for c in g["vcpus"])


def main(argv):
    build = argv[1]
    tmp = tempfile.mkdtemp(prefix="vptrust-")
    os.chmod(tmp, 0o755)
    passed = failed = 0
    try:
        subprocess.run(["lstopo-no-graphics", "-i", os.path.join(
            ROOT, "tests", "topologies", "Intel-RaptorLake-Corei7-1370P.xml"),
            "--restrict", "0x0000ffff", "--of", "xml",
            os.path.join(tmp, "rl16.xml")], check=True)
        cases = [
            ("attack", case_attack, GRANT % (
                "<budget exclusive_max_pct='100' shared_min_cores='0'/>",
                "00000000-0000-0000-0000-000000000000"), ["--trust-metadata"]),
            ("tenant", case_tenant, None, []),
            ("budget", case_budget, GRANT % ("", GREEDY_UUID), []),
            ("granted", case_granted, GRANT % (
                "<budget exclusive_max_pct='100' shared_min_cores='1'/>",
                GREEDY_UUID), []),
        ]
        for name, fn, grants, extra in cases:
            d = Daemon(build, tmp, name, grants, extra)
            try:
                print("PASS %s: %s" % (name, fn(d)))
                passed += 1
            except Fail as e:
                print("FAIL %s: %s" % (name, e))
                failed += 1
            finally:
                d.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("trust: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
