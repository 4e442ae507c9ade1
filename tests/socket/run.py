#!/usr/bin/env python3
"""Protocol tests of vcpuplaced's control socket, and of the CLI views
that read it.

    run.py BUILD_DIR [TEST ...]

Each test starts its own daemon: a dry run against libvirt's test
driver (tests/integration/gen_testdriver.py: VMs without QEMU), on the
g4dnmetal topology file, with --socket in a scratch directory.  Prints
PASS/FAIL per test, then `socket: N passed, N failed`; exits 1 on any
failure.  Needs root (the permission tests switch to uid 65534).
"""
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ctlclient import ask, read_all  # noqa: E402
import scratch  # noqa: E402
ROOT = os.path.dirname(os.path.dirname(HERE))
TOPO = os.path.join(ROOT, "tests", "topologies", "g4dnmetal.xml")
TICK_MS = 250
NOBODY = 65534


class Fail(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


class Daemon:
    def __init__(self, ctx, nvms=20, vcpus=4, extra=(), env=None,
                 topology=TOPO, placed=True, rename=None):
        self.dir = tempfile.mkdtemp(prefix="vpsock-", dir=ctx.tmp)
        os.chmod(self.dir, 0o755)
        self.sock = os.path.join(self.dir, "vcpuplaced.sock")
        self.td = os.path.join(self.dir, "td.xml")
        subprocess.run([sys.executable, os.path.join(
            ROOT, "tests", "integration", "gen_testdriver.py"), str(nvms),
            str(vcpus), self.td], check=True, stdout=subprocess.DEVNULL)
        for old, new in (rename or {}).items():     # XML-escaped names
            with open(self.td) as f:
                text = f.read()
            with open(self.td, "w") as f:
                f.write(text.replace("<name>%s</name>" % old,
                                     "<name>%s</name>" % new))
        self.err = open(os.path.join(self.dir, "stderr"), "w+")
        self.args = [os.path.join(ctx.build, "vcpuplaced"), "--connect",
                     "test://" + self.td, "--dry-run", "--tick",
                     str(TICK_MS), "--policies",
                     os.path.join(ROOT, "policies"), "--topology", topology,
                     "--socket", self.sock] + list(extra)
        self.p = subprocess.Popen(self.args, stderr=self.err,
                                  stdout=subprocess.DEVNULL,
                                  env=env or os.environ)
        ctx.daemons.append(self)    # stopped even if wait_up fails
        self.wait_up(placed=placed)

    def wait_up(self, timeout=30, placed=True):
        end = time.time() + timeout
        while time.time() < end:
            check(self.p.poll() is None, "daemon exited: " + self.stderr())
            try:
                st = json.loads(ask(self.sock, b"status\n"))
                # up: every vCPU placed (16 pins a tick, so a few ticks)
                if st["vms"] and (not placed or all(
                        c["home"] is not None for v in st["vms"]
                        for c in v["vcpus"])):
                    return st
            except (OSError, ValueError):
                pass
            time.sleep(0.1)
        raise Fail("daemon did not place every vCPU within %ds: %r" % (
            timeout, [(v["name"], [c["home"] for c in v["vcpus"]])
                      for v in st["vms"] if any(c["home"] is None
                                                for c in v["vcpus"])][:3]))

    def status(self):
        text = ask(self.sock, b"status\n")
        try:
            return json.loads(text)
        except ValueError:
            raise Fail("status is not JSON: %r" % text[:200])

    def stderr(self):
        self.err.flush()
        with open(self.err.name) as f:
            return f.read()[-2000:]

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.err.close()


class Ctx:
    def __init__(self, build):
        self.build = os.path.abspath(build)
        # uid 65534 must reach the sockets and the CLI: a 0755 folder
        # under a 0755 path, whatever the checkout sits under
        self.tmp = scratch.mkdtemp("vpsock-run-")
        self.daemons = []
        self.promtool = subprocess.run(
            ["sh", os.path.join(HERE, "promtool.sh"),
             os.path.join(self.build, "tools")], check=True,
            capture_output=True, text=True).stdout.strip()

    def daemon(self, **kw):
        return Daemon(self, **kw)

    def cleanup(self):
        for d in self.daemons:
            d.stop()
        self.daemons = []

    def ctl(self, *args, uid=None):
        """Runs vcpuplacectl ARGS, as @uid if given: then a copy in the
        scratch folder, since the build folder may be out of its reach
        (a checkout under /root), and from /, not from the checkout."""
        ctl = os.path.join(self.build, "vcpuplacectl")
        kw = {}
        if uid is not None:
            ctl = os.path.join(self.tmp, "bin", "vcpuplacectl")
            if not os.path.exists(ctl):
                scratch.copy_in(os.path.join(self.build, "vcpuplacectl"),
                                os.path.dirname(ctl), 0o755)
            kw["preexec_fn"] = lambda: drop_to(uid)
            kw["cwd"] = "/"
        return subprocess.run([ctl] + list(args), capture_output=True,
                              text=True, timeout=30, **kw)


def drop_to(uid):
    """Becomes @uid for good: groups first, root's gid 0 would let it in."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def metric_samples(text):
    """{(name, frozenset(labels.items())): value} of a metrics answer."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
        check(m, "metrics line does not parse: %r" % line)
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"',
                                 m.group(3) or ""))
        out[(m.group(1), frozenset(labels.items()))] = float(m.group(4))
    return out


def total(samples, name):
    return sum(v for (n, _), v in samples.items() if n == name)


# ---- tests ----------------------------------------------------------

def test_status(ctx):
    """status: JSON with the host, the topology of the file the daemon
    models, and every VM's policy and vCPUs with home, allowed, current,
    reason and delay."""
    d = ctx.daemon()
    st = d.status()
    topo = st["host"]["topology"]
    check((topo["packages"], topo["llcs"], topo["cores"], topo["pus"],
           topo["smt"]) == (2, 2, 48, 96, 2), "topology %r" % topo)
    check(len(st["host"]["pus"]) == 96, "host.pus has %d entries"
          % len(st["host"]["pus"]))
    check(len(st["vms"]) == 20, "%d VMs in status" % len(st["vms"]))
    for vm in st["vms"]:
        check(vm["policy"]["profile"] == "balanced", vm["policy"])
        check(len(vm["vcpus"]) == 4, vm["name"])
        for c in vm["vcpus"]:
            for k in ("home", "allowed", "current", "reason",
                      "delay_seconds", "busy", "smt_conflict"):
                check(k in c, "vCPU entry lacks %s: %r" % (k, c))
            check(c["allowed"] and c["home"] is not None,
                  "%s vCPU %d unplaced: %r" % (vm["name"], c["vcpu"], c))


def test_metrics_promtool(ctx):
    """metrics parses with promtool and has every family the operators
    were promised, consistent with status."""
    d = ctx.daemon()
    text = ask(d.sock, b"metrics\n")
    r = subprocess.run([ctx.promtool, "check", "metrics"], input=text,
                       capture_output=True, text=True)
    check(r.returncode == 0 and not r.stdout.strip() and
          not r.stderr.strip(), "promtool: %s %s" % (r.stdout, r.stderr))
    s = metric_samples(text)
    names = {n for n, _ in s}
    for fam in ("vcpuplace_managed_vms", "vcpuplace_managed_vcpus",
                "vcpuplace_llc_idle_cores", "vcpuplace_smt_conflicts",
                "vcpuplace_scan_probes_total", "vcpuplace_moves_total",
                "vcpuplace_libvirt_errors_total",
                "vcpuplace_libvirt_reconnects_total",
                "vcpuplace_invalid_metadata_total",
                "vcpuplace_vcpu_runqueue_delay_seconds",
                "vcpuplace_plan_duration_seconds_bucket",
                "vcpuplace_plan_duration_seconds_count",
                "vcpuplace_kernel_mode", "vcpuplace_core_sched_supported"):
        check(fam in names, "metrics lack %s" % fam)
    check(total(s, "vcpuplace_managed_vms") == 20, "managed VMs %g"
          % total(s, "vcpuplace_managed_vms"))
    check(total(s, "vcpuplace_managed_vcpus") == 80, "managed vCPUs %g"
          % total(s, "vcpuplace_managed_vcpus"))
    delays = [k for k in s if k[0] == "vcpuplace_vcpu_runqueue_delay_seconds"]
    check(len(delays) == 80, "%d delay series, want 80" % len(delays))
    llcs = [k for k in s if k[0] == "vcpuplace_llc_idle_cores"]
    check(len(llcs) == 2, "%d LLC series" % len(llcs))
    # dry run "applies" every vCPU once: 80 moves by reason
    check(total(s, "vcpuplace_moves_total") == 80, "moves %g"
          % total(s, "vcpuplace_moves_total"))
    check(total(s, "vcpuplace_scan_probes_total") > 0, "no probes counted")
    inf = s[("vcpuplace_plan_duration_seconds_bucket",
             frozenset({("le", "+Inf")}))]
    check(inf == s[("vcpuplace_plan_duration_seconds_count", frozenset())]
          and inf >= 2, "histogram +Inf %g" % inf)
    check(s[("vcpuplace_kernel_mode", frozenset({("mode", "userspace")}))]
          == 1, "kernel mode")
    # and promtool can fail: a broken exposition is reported
    bad = text.replace("# TYPE vcpuplace_ticks_total counter",
                       "# TYPE vcpuplace_ticks_total countr")
    r = subprocess.run([ctx.promtool, "check", "metrics"], input=bad,
                       capture_output=True, text=True)
    check(r.returncode != 0, "promtool accepted a bad TYPE line")


def test_metrics_label_escaping(ctx):
    """A VM name with a quote, a backslash and a blank still gives
    metrics promtool accepts, with the name escaped in its labels, and
    explain finds the VM by that name."""
    name = 'vptest odd "q\\x'
    d = ctx.daemon(nvms=4, rename={"vptest-td-0001":
                                   name.replace('"', "&quot;")})
    text = ask(d.sock, b"metrics\n")
    r = subprocess.run([ctx.promtool, "check", "metrics"], input=text,
                       capture_output=True, text=True)
    check(r.returncode == 0 and not r.stdout.strip(),
          "promtool: %s %s" % (r.stdout, r.stderr))
    want = 'vm="vptest odd \\"q\\\\x"'
    check(want in text, "no escaped label %s in:\n%s" % (want, "\n".join(
        l for l in text.splitlines() if "odd" in l)[:400]))
    s = metric_samples(text)
    check(any(dict(k[1]).get("vm") == 'vptest odd \\"q\\\\x'
              for k in s), "parsed labels lack the VM")
    ex = ask(d.sock, ("explain %s 0\n" % name).encode())
    check(ex.startswith("VM %s vCPU 0" % name), ex[:200])


def test_explain(ctx):
    """explain VM VCPU: the path the plan took, ending at the home that
    status shows, with rejected candidates and a reason for each."""
    d = ctx.daemon()
    st = d.status()
    vm = st["vms"][3]
    c = vm["vcpus"][1]
    text = ask(d.sock, ("explain %s 1\n" % vm["name"]).encode())
    check(text.startswith("VM %s vCPU 1" % vm["name"]), text[:200])
    check("policy: profile balanced" in text, text)
    check(re.search(r"chose CPU %d \(" % c["home"], text),
          "explain does not end at home %d:\n%s" % (c["home"], text))
    check(re.search(r"rejected CPU \d+: busy: home of vptest-td-\d+ vCPU "
                    r"\d+", text), "no rejected candidate:\n" + text)
    check("live: allowed %s (as planned)" % c["allowed"] in text, text)
    r = ctx.ctl("explain", "--socket", d.sock, vm["name"], "1")
    check(r.returncode == 0 and r.stdout == text, "CLI explain differs")


def test_errors_one_line(ctx):
    """Garbage, unknown commands, bad arguments, binary data and an
    overlong line: one "error: ..." line, the connection closes, the
    rejection is counted, and the daemon answers the next client."""
    d = ctx.daemon()
    cases = [
        (b"bogus\n", "unknown command 'bogus'", "unknown_command"),
        (b"status extra\n", "status takes no arguments", "bad_arguments"),
        (b"explain vptest-td-0001\n", "usage: explain", "bad_arguments"),
        (b"explain nosuchvm 0\n", "no running VM 'nosuchvm'",
         "bad_arguments"),
        (b"explain vptest-td-0001 9\n", "has vCPUs 0..3, not 9",
         "bad_arguments"),
        (b"\x00\x01\x02\xff\xfe binary\n", "not text", "binary"),
        (bytes(random.Random(1).randrange(256) for _ in range(600)) + b"\n",
         "", None),
        (b"x" * 5000, "longer than 1023 bytes", "overlong"),
        (b"\n", "empty request", "unknown_command"),
    ]
    for data, want, _ in cases:
        text = ask(d.sock, data)
        check(text.startswith("error: ") and text.count("\n") == 1 and
              text.endswith("\n"), "not one error line for %r: %r"
              % (data[:20], text))
        check(want in text, "%r: want %r in %r" % (data[:20], want, text))
    s = metric_samples(ask(d.sock, b"metrics\n"))
    for cause in ("unknown_command", "bad_arguments", "binary", "overlong"):
        n = s[("vcpuplace_socket_rejected_total",
               frozenset({("cause", cause)}))]
        want = sum(1 for _, _, c in cases if c == cause)
        check(n >= want, "rejected{%s} = %g, want >= %d" % (cause, n, want))
    check(len(d.status()["vms"]) == 20, "daemon state changed")


def test_silent_client(ctx):
    """A client that connects and never writes gets an error after 2 s;
    meanwhile others are served at once."""
    d = ctx.daemon()
    s = socket.socket(socket.AF_UNIX)
    s.connect(d.sock)
    t0 = time.time()
    text = ask(d.sock, b"help\n")
    check(time.time() - t0 < 1.0 and "explain VM VCPU" in text,
          "help behind a silent client took %.2fs" % (time.time() - t0))
    s.settimeout(10)
    got = s.recv(4096).decode()
    dt = time.time() - t0
    check(got.startswith("error: no request") and 1.5 < dt < 4,
          "silent client: %r after %.2fs" % (got, dt))
    s.close()


def connect_many(path, n, timeout):
    """@n connections at once, none of them writing yet."""
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(timeout)
        s.connect(path)
        socks.append(s)
    return socks


def test_500_clients(ctx):
    """500 clients at once, each asking for metrics: every one gets a
    complete answer, and the tick keeps its pace meanwhile."""
    d = ctx.daemon()
    tick0 = d.status()["tick"]
    t0 = time.time()
    socks = connect_many(d.sock, 500, 30)
    for s in socks:
        s.sendall(b"metrics\n")
    answers = []

    def reader(part):
        for s in part:
            answers.append(read_all(s))
    th = [threading.Thread(target=reader, args=(socks[i::8],))
          for i in range(8)]
    for t in th:
        t.start()
    for t in th:
        t.join(60)
    elapsed = time.time() - t0
    check(len(answers) == 500, "%d answers" % len(answers))
    for a in answers:
        check(a.startswith(b"# HELP vcpuplace_") and
              b"vcpuplace_plan_duration_seconds_count" in a,
              "incomplete answer of %d bytes" % len(a))
    time.sleep(0.5)
    ticks = d.status()["tick"] - tick0
    want = (time.time() - t0) / (TICK_MS / 1000.0)
    check(ticks >= want * 0.6, "tick stalled: %d ticks in %.1fs"
          % (ticks, time.time() - t0))
    print("    500 clients served in %.2fs; %d ticks meanwhile"
          % (elapsed, ticks))


def test_silent_crowd(ctx):
    """500 clients that connect and say nothing: all get the timeout
    error, the daemon's tick goes on, and it serves a real client next."""
    d = ctx.daemon()
    tick0 = d.status()["tick"]
    t0 = time.time()
    socks = connect_many(d.sock, 500, 15)
    errors = 0
    for s in socks:
        try:
            errors += s.recv(4096).startswith(b"error: no request")
        except OSError:
            pass
        s.close()
    check(errors == 500, "%d of 500 silent clients got the timeout error"
          % errors)
    st = d.status()
    want = (time.time() - t0) / (TICK_MS / 1000.0)
    check(st["tick"] - tick0 >= want * 0.6, "tick stalled: %d ticks in "
          "%.1fs" % (st["tick"] - tick0, time.time() - t0))


def test_slow_reader(ctx):
    """Clients that ask for a large status and never read it do not
    stall the tick; they are dropped after 10 s, and counted."""
    d = ctx.daemon(nvms=600, placed=False)
    size = len(ask(d.sock, b"status\n"))
    slow = []
    for _ in range(20):
        s = socket.socket(socket.AF_UNIX)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(d.sock)
        s.sendall(b"status\n")
        slow.append(s)
    tick0 = d.status()["tick"]
    t0 = time.time()
    for _ in range(10):
        t1 = time.time()
        ask(d.sock, b"help\n")
        check(time.time() - t1 < 1.0, "help took %.2fs beside slow "
              "readers" % (time.time() - t1))
        time.sleep(0.3)
    ticks = d.status()["tick"] - tick0
    want = (time.time() - t0) / (TICK_MS / 1000.0)
    check(ticks >= want * 0.6, "tick stalled: %d in %.1fs"
          % (ticks, time.time() - t0))
    time.sleep(max(0, 11.5 - (time.time() - t0)))
    s = metric_samples(ask(d.sock, b"metrics\n"))
    n = s[("vcpuplace_socket_rejected_total",
           frozenset({("cause", "slow_reader")}))]
    check(n == 20, "slow readers dropped: %g, want 20 (status %d bytes)"
          % (n, size))
    for sk in slow:
        sk.close()


def test_write_needs_root(ctx):
    """reload and policy need uid 0 by SO_PEERCRED; reads do not."""
    d = ctx.daemon()
    os.chmod(d.sock, 0o666)     # let nobody connect at all
    r = ctx.ctl("reload", "--socket", d.sock, uid=NOBODY)
    check(r.returncode == 1 and "permission denied" in r.stderr,
          "nobody reload: %d %r" % (r.returncode, r.stderr))
    r = ctx.ctl("status", "--socket", d.sock, uid=NOBODY)
    check(r.returncode == 0 and "vptest-td-0000" in r.stdout,
          "nobody status: %r" % r.stderr)
    r = ctx.ctl("reload", "--socket", d.sock)
    check(r.returncode == 0 and r.stdout.startswith("ok"), r.stderr)
    time.sleep(0.6)
    s = metric_samples(ask(d.sock, b"metrics\n"))
    check(s[("vcpuplace_reloads_total", frozenset())] == 1, "reloads")
    check(s[("vcpuplace_socket_rejected_total",
             frozenset({("cause", "denied")}))] == 1, "denied count")


def test_socket_mode(ctx):
    """The socket is 0660; a user outside its group cannot connect, and
    the CLI says so."""
    d = ctx.daemon()
    mode = os.stat(d.sock).st_mode & 0o777
    check(mode == 0o660, "socket mode %o" % mode)
    r = ctx.ctl("status", "--socket", d.sock, uid=NOBODY)
    check(r.returncode == 1 and "permission denied" in r.stderr and
          "group vcpuplace" in r.stderr, "nobody: %r" % r.stderr)


def test_policy_command(ctx):
    """policy VM PROFILE writes the VM's metadata; the next refresh
    adopts it.  An unknown profile is refused and changes nothing."""
    d = ctx.daemon()
    text = ask(d.sock, b"policy vptest-td-0002 latency\n")
    check(text.startswith("ok:"), text)
    end = time.time() + 5
    while time.time() < end:
        vm = [v for v in d.status()["vms"] if v["name"] == "vptest-td-0002"]
        if vm and vm[0]["policy"]["profile"] == "latency":
            break
        time.sleep(0.2)
    else:
        raise Fail("profile not adopted: %r" % vm[0]["policy"])
    text = ask(d.sock, b"policy vptest-td-0002 warp-speed\n")
    check(text.startswith("error: policy vptest-td-0002:") and
          "warp-speed" in text, text)
    time.sleep(0.6)
    st = d.status()
    vm = [v for v in st["vms"] if v["name"] == "vptest-td-0002"][0]
    check(vm["policy"]["profile"] == "latency", "profile changed to %r"
          % vm["policy"])
    check(st["invalid_metadata"] >= 1, "invalid metadata not counted")


def test_not_running(ctx):
    """Every socket view says clearly that the daemon is not running."""
    sock = os.path.join(ctx.tmp, "absent.sock")
    for args in (["status"], ["metrics"], ["explain", "vm", "0"], ["top"],
                 ["reload"]):
        r = ctx.ctl(args[0], "--socket", sock, *args[1:])
        check(r.returncode == 1 and "vcpuplaced is not running" in r.stderr,
              "%s: %d %r" % (args[0], r.returncode, r.stderr))


def test_stale_and_busy_socket(ctx):
    """A second daemon on a live socket refuses to start; a socket left
    by a killed daemon is taken over."""
    d = ctx.daemon()
    p = subprocess.run(d.args, capture_output=True, text=True, timeout=20)
    check(p.returncode != 0 and "another vcpuplaced" in p.stderr,
          "second daemon: %d %r" % (p.returncode, p.stderr))
    d.p.kill()
    d.p.wait()
    check(os.path.exists(d.sock), "killed daemon left no socket")
    d.p = subprocess.Popen(d.args, stderr=d.err, stdout=subprocess.DEVNULL)
    d.wait_up()


def test_status_table(ctx):
    """vcpuplacectl status: one row per vCPU with the status' homes."""
    d = ctx.daemon()
    st = d.status()
    r = ctx.ctl("status", "--socket", d.sock)
    check(r.returncode == 0, r.stderr)
    rows = [l for l in r.stdout.splitlines() if l.startswith("vptest-td-")]
    check(len(rows) == 20, "%d VM rows" % len(rows))
    for vm in st["vms"]:
        line = [l for l in rows if l.split()[0] == vm["name"]][0]
        f = line.split()
        check(f[4] == str(vm["vcpus"][0]["home"]) and
              f[5] == vm["vcpus"][0]["allowed"],
              "row %r vs status %r" % (line, vm["vcpus"][0]))
    r = ctx.ctl("metrics", "--socket", d.sock)
    check(r.returncode == 0 and "vcpuplace_managed_vms" in r.stdout,
          r.stderr)


def test_sd_notify(ctx):
    """Type=notify: READY=1 after the first tick, STATUS=, WATCHDOG=1
    from the tick loop, RELOADING=1 then READY=1 on SIGHUP."""
    path = os.path.join(ctx.tmp, "notify.sock")
    ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    ns.bind(path)
    ns.settimeout(10)
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="1000000")
    d = ctx.daemon(env=env)
    msgs = []
    end = time.time() + 5
    while time.time() < end and not any("WATCHDOG=1" in m for m in msgs):
        msgs.append(ns.recv(4096).decode())
    joined = "\n".join(msgs)
    check("READY=1" in joined and "STATUS=20 VMs, 80 vCPUs" in joined,
          "no READY/STATUS: %r" % msgs)
    check("WATCHDOG=1" in joined, "no WATCHDOG=1 in 5 s: %r" % msgs)
    d.p.send_signal(signal.SIGHUP)
    msgs = []
    end = time.time() + 5
    while time.time() < end and "READY=1" not in msgs:
        msgs.append(ns.recv(4096).decode())
    check("RELOADING=1" in msgs and msgs.index("RELOADING=1") <
          msgs.index("READY=1"), "reload notifications: %r" % msgs)
    ns.close()


def test_reload_topology(ctx):
    """SIGHUP rereads the topology: a changed file is adopted with every
    VM kept and every allowed set inside the new CPUs; a broken file is
    refused and the old topology stays."""
    path = os.path.join(ctx.tmp, "topo.xml")
    shutil.copy(TOPO, path)
    d = ctx.daemon(topology=path)
    shutil.copy(os.path.join(ROOT, "tests", "topologies",
                             "epyc-corona.xml"), path)
    d.p.send_signal(signal.SIGHUP)
    end = time.time() + 5
    while time.time() < end:
        st = d.status()
        if st["host"]["topology"]["llcs"] != 2:
            break
        time.sleep(0.2)
    topo = st["host"]["topology"]
    check(topo["llcs"] == 16 and topo["numa_nodes"] == 8,
          "epyc-corona not adopted: %r" % topo)
    cpus = {p["cpu"] for p in st["host"]["pus"]}
    time.sleep(1)
    st = d.status()
    check(len(st["vms"]) == 20, "%d VMs after reload" % len(st["vms"]))
    for vm in st["vms"]:
        for c in vm["vcpus"]:
            allowed = expand(c["allowed"])
            check(allowed and allowed <= cpus, "%s vCPU %d allowed %r "
                  "outside the new CPUs" % (vm["name"], c["vcpu"],
                                            c["allowed"]))
    with open(path, "w") as f:
        f.write("<topology>not hwloc")
    d.p.send_signal(signal.SIGHUP)
    time.sleep(1)
    st = d.status()
    check(st["host"]["topology"] == topo, "broken file adopted")
    s = metric_samples(ask(d.sock, b"metrics\n"))
    check(s[("vcpuplace_reload_errors_total", frozenset())] == 1,
          "reload error not counted")
    check("keeping the previous one" in d.stderr(), d.stderr())


def test_top_tmux(ctx):
    """vcpuplacectl top under tmux: the legend names every VM (30 of
    them: two-letter codes), the boxes name the packages and LLCs, and q
    quits."""
    d = ctx.daemon(nvms=30)
    session = "vptop%d" % os.getpid()
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "200",
                    "-y", "60", os.path.join(ctx.build, "vcpuplacectl"),
                    "top", "--socket", d.sock], check=True)
    try:
        time.sleep(2)
        screen = subprocess.run(["tmux", "capture-pane", "-p", "-t",
                                 session], capture_output=True,
                                text=True).stdout
        for vm in d.status()["vms"]:
            check(vm["name"] in screen, "%s not on screen:\n%s"
                  % (vm["name"], screen))
        for code in ("AA vptest-td-", "BD vptest-td-"):
            check(code in screen, "legend lacks %r" % code)
        for word in ("package 0", "package 1", "LLC 0", "LLC 1"):
            check(word in screen, "%r not on screen" % word)
        check(screen.count("[") >= 48, "fewer than 48 cores drawn")
        subprocess.run(["tmux", "send-keys", "-t", session, "q"])
        time.sleep(1)
        alive = subprocess.run(["tmux", "has-session", "-t", session],
                               capture_output=True).returncode == 0
        check(not alive, "top did not quit on q")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session],
                       capture_output=True)


def expand(cpulist):
    out = set()
    for part in cpulist.split(","):
        if not part:
            continue
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out


TESTS = [test_status, test_metrics_promtool, test_metrics_label_escaping,
         test_explain,
         test_errors_one_line, test_silent_client, test_500_clients,
         test_silent_crowd, test_slow_reader, test_write_needs_root,
         test_socket_mode, test_policy_command, test_not_running,
         test_stale_and_busy_socket, test_status_table, test_sd_notify,
         test_reload_topology, test_top_tmux]


def main():
    ctx = Ctx(sys.argv[1])
    want = sys.argv[2:]
    passed = failed = 0
    for t in TESTS:
        if want and t.__name__ not in want:
            continue
        t0 = time.time()
        try:
            t(ctx)
            passed += 1
            print("PASS %s (%.1fs)" % (t.__name__, time.time() - t0))
        except Exception as e:     # noqa: BLE001 (report, go on)
            failed += 1
            print("FAIL %s: %s" % (t.__name__, e))
            if not isinstance(e, Fail):
                traceback.print_exc()
            for d in ctx.daemons:
                print("    daemon stderr: " + d.stderr().replace(
                    "\n", "\n    "))
        finally:
            ctx.cleanup()
        sys.stdout.flush()
    shutil.rmtree(ctx.tmp, ignore_errors=True)
    print("socket: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
