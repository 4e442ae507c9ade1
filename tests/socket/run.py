#!/usr/bin/env python3
"""Protocol tests of vcpuplaced's control socket, and of the CLI views
that read it.

    run.py BUILD_DIR [TEST ...]

Each test starts its own daemon: a dry run against libvirt's test
driver (tests/integration/gen_testdriver.py: VMs without QEMU), on the
g4dnmetal topology file, with --socket in a scratch directory.  Prints
PASS/FAIL per test, then `socket: N passed, N failed`; exits 1 on any
failure.  Needs root (the permission tests switch to uid 65534).

No verdict here depends on how fast the machine is: a test waits for a
condition with a generous deadline (WAIT_S) whose expiry is a real
failure, compares answers of one frozen state (pause ... resume), or
checks an order of events or a lower bound that the daemon itself
keeps (a silent client is dropped no earlier than 2 s), never an upper
bound on elapsed time.
"""
import contextlib
import ctypes
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
WAIT_S = 60     # deadline of every wait for a condition: only a hang


class Fail(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def wait_for(what, probe, timeout=WAIT_S, pause=0.05):
    """Calls probe() until it returns something true, and returns that;
    fails after @timeout seconds."""
    end = time.monotonic() + timeout
    while True:
        v = probe()
        if v:
            return v
        if time.monotonic() > end:
            raise Fail("not within %ds: %s" % (timeout, what))
        time.sleep(pause)


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

    def wait_up(self, timeout=WAIT_S, placed=True):
        end = time.monotonic() + timeout
        st = {"vms": []}
        while time.monotonic() < end:
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

    def tick(self):
        return self.status()["tick"]

    def metrics(self):
        return metric_samples(ask(self.sock, b"metrics\n"))

    @contextlib.contextmanager
    def paused(self):
        """Placement held still: pause, wait until the status says so,
        run the block, resume (even if the block fails)."""
        text = ask(self.sock, b"pause\n")
        check(text == "ok: placement paused\n", "pause: %r" % text)
        try:
            yield wait_for("status paused", lambda: (
                lambda st: st if st["paused"] is True else None)(
                    self.status()))
        finally:
            try:
                ask(self.sock, b"resume\n")
            except OSError:
                pass    # the daemon is gone: the test says why

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
                              text=True, timeout=WAIT_S, **kw)


CLONE_NEWUSER = 0x10000000
LIBC = ctypes.CDLL(None, use_errno=True)


def set_login(login):
    """This process's audit login uid, as pam_loginuid sets it at login
    (root may, with CAP_AUDIT_CONTROL; it is inherited across setuid()
    and user namespaces).  The runner's own, which sudo keeps, would
    make every uid of the tests one person to the daemon."""
    if os.path.exists("/proc/self/loginuid"):
        with open("/proc/self/loginuid", "w") as f:
            f.write(str(login))


def drop_to(uid, login=None, userns=None):
    """Becomes @uid for good, a person of its own (login uid @login, else
    @uid; root's is left as it is), inside the user namespace of process
    @userns if given: groups first, root's gid 0 would let it in."""
    if login is not None or uid != 0:
        set_login(uid if login is None else login)
    if userns is not None:
        fd = os.open("/proc/%d/ns/user" % userns, os.O_RDONLY)
        if LIBC.setns(fd, CLONE_NEWUSER) != 0:
            raise OSError(ctypes.get_errno(), "setns")
        os.close(fd)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def ask_as(uid, path, data, login=None):
    """ask() from a child process running as @uid, login uid @login (else
    @uid) (no exec: nothing of the checkout has to be reachable by it).
    Returns the answer."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(r)
            drop_to(uid, login)
            os.write(w, ask(path, data).encode())
            code = 0
        except BaseException as e:     # noqa: BLE001 (report, exit)
            os.write(w, ("child: %r" % e).encode())
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        out = f.read().decode("utf-8", "replace")
    os.waitpid(pid, 0)
    return out


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
    st = d.status()     # before metrics: the counters only grow
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
                "vcpuplace_policy_refused_total",
                "vcpuplace_vcpu_runqueue_delay_seconds",
                "vcpuplace_plan_duration_seconds_bucket",
                "vcpuplace_plan_duration_seconds_count",
                "vcpuplace_kernel_mode", "vcpuplace_core_sched_supported",
                "vcpuplace_sched_ext_state",
                "vcpuplace_sched_ext_ejections_total",
                "vcpuplace_sched_ext_errors_total"):
        check(fam in names, "metrics lack %s" % fam)
    check(total(s, "vcpuplace_managed_vms") == 20, "managed VMs %g"
          % total(s, "vcpuplace_managed_vms"))
    check(total(s, "vcpuplace_managed_vcpus") == 80, "managed vCPUs %g"
          % total(s, "vcpuplace_managed_vcpus"))
    delays = [k for k in s if k[0] == "vcpuplace_vcpu_runqueue_delay_seconds"]
    check(len(delays) == 80, "%d delay series, want 80" % len(delays))
    llcs = [k for k in s if k[0] == "vcpuplace_llc_idle_cores"]
    check(len(llcs) == 2, "%d LLC series" % len(llcs))
    # the dry run "applies" every vCPU at least once (the test driver's
    # affinity is no plan's); a plan that changes moves some again, so
    # the count is at least, not exactly, the vCPUs moved by then
    moved = sum(c["reason"] != "none" for v in st["vms"] for c in v["vcpus"])
    check(moved == 80, "%d of 80 vCPUs moved by vcpuplace" % moved)
    check(total(s, "vcpuplace_moves_total") >= moved, "moves %g, %d vCPUs "
          "moved" % (total(s, "vcpuplace_moves_total"), moved))
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
    """explain VM VCPU: the path the plan took, with rejected candidates
    and a reason for each, and the live affinity that status shows; it
    ends at the home status shows unless a move is pending.  Read with
    placement paused, so status and explain see the same plan."""
    d = ctx.daemon()
    settled = rejected = 0
    with d.paused() as st:
        for vm in st["vms"]:
            for c in vm["vcpus"]:
                text = ask(d.sock, ("explain %s %d\n" % (
                    vm["name"], c["vcpu"])).encode())
                explain_agrees(vm["name"], c, text)
                settled += "(as planned)" in text
                rejected += bool(re.search(
                    r"rejected CPU \d+: busy: home of vptest-td-\d+ "
                    r"vCPU \d+", text))
        # 80 vCPUs on 48 cores: some scan meets a home taken before it
        check(rejected, "no explain names a rejected busy candidate")
        vm = st["vms"][3]
        text = ask(d.sock, ("explain %s 1\n" % vm["name"]).encode())
        r = ctx.ctl("explain", "--socket", d.sock, vm["name"], "1")
        check(r.returncode == 0 and r.stdout == text, "CLI explain differs:"
              "\n%s\nsocket:\n%s" % (r.stdout, text))
    print("    %d of 80 vCPUs at their plan's home, %d explains reject a "
          "busy home" % (settled, rejected))


def explain_agrees(name, c, text):
    """@text, the explain of vCPU @c (a status entry) of VM @name, both
    read while paused, agree: live affinity, and the home when the plan
    is applied; every candidate rejected with a reason."""
    check(text.startswith("VM %s vCPU %d" % (name, c["vcpu"])), text[:200])
    check("policy: profile balanced" in text, text)
    m = re.search(r"^plan: home CPU (\d+), allowed (\S+), reason", text,
                  re.M)
    check(m, "no plan line:\n" + text)
    # the path ends at the plan's home, unless too long to record
    check(re.search(r"chose CPU %s \(" % m.group(1), text) or
          re.search(r"\(\d+ more steps not recorded\)\nlive:", text),
          "explain does not end at its plan's home %s:\n%s"
          % (m.group(1), text))
    for line in re.findall(r"rejected CPU \d+:.*", text):
        check(re.match(r"rejected CPU \d+: \w", line), "rejected without "
              "a reason: %r" % line)
    check("live: allowed %s (" % c["allowed"] in text,
          "status allowed %s, explain:\n%s" % (c["allowed"], text))
    if m.group(2) == c["allowed"]:
        # the plan is applied: status shows its home
        check("live: allowed %s (as planned)" % c["allowed"] in text and
              int(m.group(1)) == c["home"], "explain does not end at home "
              "%d:\n%s" % (c["home"], text))
    else:
        # a move waits (hysteresis, cooldown): status shows the home of
        # the affinity in force
        check("(as planned)" not in text and
              c["home"] in expand(c["allowed"]),
              "pending move: status %r, explain:\n%s" % (c, text))


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
    """A client that connects and never writes gets an error, no earlier
    than 2 s after it connected; meanwhile others are served: a help
    asked after it connected is answered while it still waits."""
    d = ctx.daemon()
    t0 = time.monotonic()
    s = socket.socket(socket.AF_UNIX)
    s.connect(d.sock)
    text = ask(d.sock, b"help\n")
    check("explain VM VCPU" in text, "help: %r" % text)
    check(not pending_data(s), "the silent client was answered before "
          "the help asked after it")
    s.settimeout(WAIT_S)
    got = s.recv(4096).decode()
    dt = time.monotonic() - t0
    check(got.startswith("error: no request"), "silent client: %r" % got)
    check(dt >= 2.0, "silent client dropped after %.3fs, before its 2 s"
          % dt)
    s.close()


def pending_data(s):
    """True if something (data or EOF) is waiting on socket @s."""
    timeout = s.gettimeout()
    s.setblocking(False)
    try:
        s.recv(1, socket.MSG_PEEK)
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True     # reset: the daemon is done with it
    finally:
        s.settimeout(timeout)


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
    complete answer, and the daemon goes on ticking afterwards."""
    d = ctx.daemon()
    tick0 = d.tick()
    t0 = time.monotonic()
    socks = connect_many(d.sock, 500, WAIT_S)
    for s in socks:
        s.sendall(b"metrics\n")
    answers = []

    def reader(part):
        for s in part:
            try:
                answers.append(read_all(s))
            except OSError as e:
                answers.append(repr(e).encode())
    th = [threading.Thread(target=reader, args=(socks[i::8],))
          for i in range(8)]
    for t in th:
        t.start()
    for t in th:
        t.join()
    elapsed = time.monotonic() - t0
    check(len(answers) == 500, "%d answers" % len(answers))
    for a in answers:
        check(a.startswith(b"# HELP vcpuplace_") and
              b"vcpuplace_plan_duration_seconds_count" in a,
              "incomplete answer of %d bytes: %r" % (len(a), a[-80:]))
    # Not a pace (that is the machine's): the tick was not lost.  Only
    # test_silent_crowd and test_slow_reader can hold clients long
    # enough to see ticks go by while they wait.
    ticks = wait_for("2 ticks after tick %d" % tick0, lambda: (
        lambda t: t - tick0 if t >= tick0 + 2 else None)(d.tick()))
    print("    500 clients served in %.2fs; %d ticks by the end"
          % (elapsed, ticks))


def test_silent_crowd(ctx):
    """500 clients that connect and say nothing: the daemon ticks on
    while they wait, all get the timeout error, none earlier than 2 s
    after connecting, and it serves a real client next."""
    d = ctx.daemon()
    t0 = time.monotonic()
    socks = connect_many(d.sock, 500, WAIT_S)
    tick0 = d.tick()
    wait_for("a tick after tick %d" % tick0, lambda: d.tick() > tick0)
    early = sum(pending_data(s) for s in socks)
    check(not early, "the tick waited for the silent crowd: %d of 500 "
          "already dropped when tick %d had passed" % (early, tick0))
    errors = 0
    for s in socks:
        try:
            errors += s.recv(4096).startswith(b"error: no request")
        except OSError:
            pass
        s.close()
    dt = time.monotonic() - t0
    check(errors == 500, "%d of 500 silent clients got the timeout error"
          % errors)
    check(dt >= 2.0, "silent crowd dropped after %.3fs" % dt)
    check(len(d.status()["vms"]) == 20, "no status after the crowd")


def test_slow_reader(ctx):
    """Clients that ask for a large status and never read it do not
    stall the tick or other clients while they are held; they are
    dropped no earlier than 10 s after asking, and counted."""
    d = ctx.daemon(nvms=600, placed=False)
    size = len(ask(d.sock, b"status\n"))
    slow = []
    t0 = time.monotonic()
    for _ in range(20):
        s = socket.socket(socket.AF_UNIX)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(d.sock)
        s.sendall(b"status\n")
        slow.append(s)
    tick0 = d.tick()

    def ticks_and_help():
        text = ask(d.sock, b"help\n")
        check("explain VM VCPU" in text, "help beside slow readers: %r"
              % text)
        return d.tick() >= tick0 + 2
    wait_for("2 ticks beside the slow readers", ticks_and_help)
    s = d.metrics()
    key = ("vcpuplace_socket_rejected_total",
           frozenset({("cause", "slow_reader")}))
    check(s[key] == 0, "%g slow readers already dropped: the ticks and "
          "help above did not come while all 20 were held" % s[key])

    def dropped():
        n = d.metrics()[key]
        check(n == 0 or time.monotonic() - t0 >= 10, "a slow reader "
              "dropped %.2fs after asking, before its 10 s"
              % (time.monotonic() - t0))
        return n == 20
    wait_for("20 slow readers dropped (status %d bytes)" % size, dropped,
             pause=0.25)
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
    # the answer comes first, the reload after it, between two ticks
    s = wait_for("the reload counted", lambda: (
        lambda s: s if s[("vcpuplace_reloads_total", frozenset())] else
        None)(d.metrics()))
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
    wait_for("profile latency adopted", lambda: profile_of(
        d.status(), "vptest-td-0002") == "latency")
    # refused before anything is written: the state after the answer
    # is final
    text = ask(d.sock, b"policy vptest-td-0002 warp-speed\n")
    check(text.startswith("error: policy vptest-td-0002:") and
          "warp-speed" in text, text)
    st = d.status()
    vm = [v for v in st["vms"] if v["name"] == "vptest-td-0002"][0]
    check(vm["policy"]["profile"] == "latency", "profile changed to %r"
          % vm["policy"])
    check(st["invalid_metadata"] >= 1, "invalid metadata not counted")


def placement(st):
    """{(VM, vCPU): (home, allowed)} of a status."""
    return {(v["name"], c["vcpu"]): (c["home"], c["allowed"])
            for v in st["vms"] for c in v["vcpus"]}


def test_pause(ctx):
    """pause and resume need root; while paused the daemon reads its
    inventory and serves the socket, but the placement and the plan hold
    still over many ticks although a VM's policy changes; resume
    re-places that VM.  With a pause that does nothing, the new policy
    would move the VM in the tick that adopts it.  The socket's policy
    command writes the VM's metadata, and only the host grants dedicated
    (vcpuplace-policy(5), HOST RULES): this host trusts its VMs' metadata."""
    d = ctx.daemon(extra=["--trust-metadata"])
    os.chmod(d.sock, 0o666)     # let nobody connect at all
    for cmd in ("pause", "resume"):
        text = ask_as(NOBODY, d.sock, cmd.encode() + b"\n")
        check(text.startswith("error: %s: permission denied" % cmd),
              "nobody %s: %r" % (cmd, text))
    check(d.status()["paused"] is False, "paused by nobody")
    s = d.metrics()
    check(s[("vcpuplace_paused", frozenset())] == 0, "paused gauge")
    check(s[("vcpuplace_socket_rejected_total",
             frozenset({("cause", "denied")}))] == 2, "denied count")
    vm = "vptest-td-0002"
    with d.paused() as st:
        check(d.metrics()[("vcpuplace_paused", frozenset())] == 1,
              "paused gauge")
        check(ask(d.sock, b"pause\n") == "ok: placement paused\n",
              "a second pause")
        before = placement(st)
        plans = {k: plan_part(ask(d.sock, ("explain %s %d\n" % k).encode()))
                 for k in before}
        text = ask(d.sock, ("policy %s dedicated\n" % vm).encode())
        check(text.startswith("ok:"), text)
        st = wait_for("profile dedicated read while paused", lambda: (
            lambda st: st if profile_of(st, vm) == "dedicated" else None)(
                d.status()))
        check(placement(st) == before, "placement changed in the tick that "
              "read the new policy: %r" % changes(before, placement(st)))
        tick = st["tick"]
        st = wait_for("8 ticks on", lambda: (
            lambda st: st if st["tick"] >= tick + 8 else None)(d.status()))
        check(st["paused"] is True, "no longer paused")
        check(placement(st) == before, "placement changed while paused: %r"
              % changes(before, placement(st)))
        for k, plan in plans.items():
            now = plan_part(ask(d.sock, ("explain %s %d\n" % k).encode()))
            check(now == plan, "plan of %s vCPU %d changed while paused:\n"
                  "%s\nnow:\n%s" % (k[0], k[1], plan, now))
    check(ask(d.sock, b"resume\n") == "ok: placement resumed\n",
          "a second resume")

    def dedicated(st):
        vcpus = [v for v in st["vms"] if v["name"] == vm][0]["vcpus"]
        return not st["paused"] and all(
            c["allowed"] == str(c["home"]) for c in vcpus)
    wait_for("%s placed as dedicated after resume" % vm,
             lambda: dedicated(d.status()))
    check(d.metrics()[("vcpuplace_paused", frozenset())] == 0,
          "paused gauge after resume")


def plan_part(text):
    """The plan lines of an explain answer (not the policy or the live
    lines, which follow the inventory)."""
    check("plan:" in text and "live:" in text, "explain: %r" % text)
    return text[text.index("plan:"):text.index("live:")]


def changes(a, b):
    return [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b))
            if a.get(k) != b.get(k)][:4]


def profile_of(st, name):
    vm = [v for v in st["vms"] if v["name"] == name]
    return vm and vm[0]["policy"]["profile"]


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
    p = subprocess.run(d.args, capture_output=True, text=True,
                       timeout=WAIT_S)
    check(p.returncode != 0 and "another vcpuplaced" in p.stderr,
          "second daemon: %d %r" % (p.returncode, p.stderr))
    d.p.kill()
    d.p.wait()
    check(os.path.exists(d.sock), "killed daemon left no socket")
    d.p = subprocess.Popen(d.args, stderr=d.err, stdout=subprocess.DEVNULL)
    d.wait_up()


def test_status_table(ctx):
    """vcpuplacectl status: one row per vCPU with the status' homes
    (both read while placement is paused: the same placement)."""
    d = ctx.daemon()
    with d.paused() as st:
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
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="1000000")
    d = ctx.daemon(env=env)
    msgs = notify_until(ns, lambda m: "WATCHDOG=1" in m)
    joined = "\n".join(msgs)
    check("READY=1" in joined and "STATUS=20 VMs, 80 vCPUs" in joined,
          "no READY/STATUS: %r" % msgs)
    d.p.send_signal(signal.SIGHUP)
    msgs = notify_until(ns, lambda m: m == "READY=1")
    check("RELOADING=1" in msgs and msgs.index("RELOADING=1") <
          msgs.index("READY=1"), "reload notifications: %r" % msgs)
    ns.close()


def notify_until(ns, last, timeout=WAIT_S):
    """The datagrams on @ns up to the first one for which last() holds;
    fails if none comes within @timeout seconds."""
    msgs = []
    end = time.monotonic() + timeout
    while not msgs or not last(msgs[-1]):
        ns.settimeout(max(0.01, end - time.monotonic()))
        try:
            msgs.append(ns.recv(4096).decode())
        except socket.timeout:
            raise Fail("not within %ds, got %r" % (timeout, msgs))
    return msgs


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
    st = wait_for("a new topology", lambda: (
        lambda st: st if st["host"]["topology"]["llcs"] != 2 else None)(
            d.status()))
    topo = st["host"]["topology"]
    check(topo["llcs"] == 16 and topo["numa_nodes"] == 8,
          "epyc-corona not adopted: %r" % topo)
    cpus = {p["cpu"] for p in st["host"]["pus"]}

    def inside(st):
        # an affinity the reload left empty is repinned by a next tick
        return len(st["vms"]) == 20 and all(
            c["allowed"] and expand(c["allowed"]) <= cpus
            for v in st["vms"] for c in v["vcpus"])
    try:
        wait_for("every VM kept, every allowed set inside the new CPUs",
                 lambda: inside(d.status()))
    except Fail as e:
        st = d.status()
        raise Fail("%s: %d VMs, e.g. %r" % (e, len(st["vms"]), [
            (v["name"], [c["allowed"] for c in v["vcpus"]])
            for v in st["vms"]][:3]))
    with open(path, "w") as f:
        f.write("<topology>not hwloc")
    d.p.send_signal(signal.SIGHUP)
    key = ("vcpuplace_reload_errors_total", frozenset())
    s = wait_for("the reload error counted", lambda: (
        lambda s: s if s[key] else None)(d.metrics()))
    check(s[key] == 1, "reload errors %g" % s[key])
    st = d.status()
    check(st["host"]["topology"] == topo, "broken file adopted")
    check("keeping the previous one" in d.stderr(), d.stderr())


def test_top_tmux(ctx):
    """vcpuplacectl top under tmux: the legend names every VM (30 of
    them: two-letter codes), the boxes name the packages and LLCs, and q
    quits."""
    d = ctx.daemon(nvms=30)
    names = [vm["name"] for vm in d.status()["vms"]]
    session = "vptop%d" % os.getpid()
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "200",
                    "-y", "60", os.path.join(ctx.build, "vcpuplacectl"),
                    "top", "--socket", d.sock], check=True)
    try:
        def missing():
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t",
                                     session], capture_output=True,
                                    text=True).stdout
            want = names + ["AA vptest-td-", "BD vptest-td-", "package 0",
                            "package 1", "LLC 0", "LLC 1"]
            return [w for w in want if w not in screen] + (
                ["48 cores"] if screen.count("[") < 48 else []), screen
        try:
            wait_for("a full screen", lambda: not missing()[0])
        except Fail as e:
            lack, screen = missing()
            raise Fail("%s: lacks %r:\n%s" % (e, lack, screen))
        subprocess.run(["tmux", "send-keys", "-t", session, "q"])
        wait_for("top quits on q", lambda: subprocess.run(
            ["tmux", "has-session", "-t", session],
            capture_output=True).returncode != 0)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session],
                       capture_output=True)


def expected_scx_cause():
    """Why vcpuplace's BPF scheduler cannot load here, as the daemon
    names it: the kernel lacks sched_ext, or BTF, or (the normal build,
    whose loader is a stub) the binary lacks the scheduler."""
    if not os.path.exists("/sys/kernel/sched_ext"):
        return "no-sched-ext"
    if not os.access("/sys/kernel/btf/vmlinux", os.R_OK):
        return "no-btf"
    return "not-built"


def test_sched_ext_unavailable(ctx):
    """--sched-ext=auto (the default) on a host where the BPF scheduler
    cannot run: the daemon places anyway, in userspace mode, and says
    why in its log, status, metrics, explain and vcpuplacectl status."""
    cause = expected_scx_cause()
    d = ctx.daemon(nvms=4)
    st = d.status()
    sx = st["sched_ext"]
    check(st["kernel_mode"] == "userspace", "kernel_mode %r"
          % st["kernel_mode"])
    check(sx["option"] == "auto" and sx["state"] == "unavailable" and
          sx["cause"] == cause and sx["why"] and sx["ejections"] == 0 and
          sx["last_exit"] is None and sx["counters"] is None,
          "sched_ext %r, want unavailable/%s" % (sx, cause))
    check("kernel mode: userspace (sched-ext unavailable: %s)" % sx["why"]
          in d.stderr(), "log lacks the mode line: " + d.stderr())
    s = d.metrics()
    check(s.get(("vcpuplace_sched_ext_state", frozenset(
        {("state", "unavailable"), ("cause", cause)}))) == 1,
        "sched_ext_state: %r" % [k for k in s
                                 if k[0] == "vcpuplace_sched_ext_state"])
    check(len([k for k in s if k[0] == "vcpuplace_sched_ext_state"]) == 1,
          "more than one sched_ext state")
    check(s.get(("vcpuplace_kernel_mode", frozenset(
        {("mode", "userspace")}))) == 1, "kernel mode not userspace")
    check(s[("vcpuplace_sched_ext_ejections_total", frozenset())] == 0,
          "ejections")
    check(not [k for k in s if k[0].startswith("vcpuplace_scx_")],
          "global scheduler counters without a scheduler")
    r = ctx.ctl("status", "--socket", d.sock)
    check(r.returncode == 0 and "kernel mode userspace; sched_ext "
          "unavailable: %s\n" % sx["why"] in r.stdout,
          "vcpuplacectl status: %r" % r.stdout[:600])
    vm = st["vms"][0]["name"]
    text = ask(d.sock, ("explain %s 0\n" % vm).encode())
    check("wake path: the kernel's stock one, inside the allowed set "
          "(userspace mode, SIS_CORE absent)" in text, text)


def kernel_root(ctx, cmdline, isolated, release="7.3.4+deb13-amd64"):
    """A fake root for --kernel-root: a kernel with sched_ext and BTF,
    booted with @cmdline, whose isolated file says @isolated (None: a
    directory there, unreadable)."""
    root = tempfile.mkdtemp(prefix="vpkroot-", dir=ctx.tmp)
    files = {"sys/kernel/sched_ext/state": "disabled\n",
             "sys/kernel/btf/vmlinux": "",
             "proc/sys/kernel/osrelease": release + "\n",
             "proc/cmdline": cmdline + "\n"}
    if isolated is not None:
        files["sys/devices/system/cpu/isolated"] = isolated + "\n"
    else:
        os.makedirs(os.path.join(root, "sys/devices/system/cpu/isolated"))
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)
    return root


def test_sched_ext_isolcpus(ctx):
    """A kernel booted with isolcpus= in the domain form refuses any BPF
    scheduler: the daemon says so before loading (log, status, metrics,
    vcpuplacectl status) and places in userspace mode; --sched-ext=on
    does not start.  nohz_full= and isolcpus=nohz,... are no refusal (the
    normal build then says not-built); an unreadable file is named."""
    root = kernel_root(ctx, "BOOT_IMAGE=/vmlinuz ro isolcpus=domain,"
                       "managed_irq,2-5 nohz_full=2-5", "2-5")
    d = ctx.daemon(nvms=2, extra=("--kernel-root", root))
    st = d.status()
    sx = st["sched_ext"]
    check(st["kernel_mode"] == "userspace" and sx["state"] ==
          "unavailable" and sx["cause"] == "isolcpus" and
          "isolcpus=domain,managed_irq,2-5 on the kernel command line; "
          "CPUs 2-5 isolated" in sx["why"], "sched_ext %r" % sx)
    iso = sx["isolation"]
    check(iso["verdict"] == "isolcpus-domain" and iso["isolated"] == "2-5"
          and iso["isolcpus"] == "domain,managed_irq,2-5" and
          iso["isolcpus_domain"] and iso["nohz_full"] == "2-5" and
          iso["unreadable"] == {}, "isolation %r" % iso)
    check("kernel mode: userspace (sched-ext unavailable: %s)" % sx["why"]
          in d.stderr(), "log lacks the mode line: " + d.stderr())
    s = d.metrics()
    check(s.get(("vcpuplace_sched_ext_state", frozenset(
        {("state", "unavailable"), ("cause", "isolcpus")}))) == 1,
        "sched_ext_state: %r" % [k for k in s
                                 if k[0] == "vcpuplace_sched_ext_state"])
    check(s.get(("vcpuplace_sched_ext_isolation", frozenset(
        {("verdict", "isolcpus-domain")}))) == 1, "isolation metric: %r"
        % [k for k in s if k[0] == "vcpuplace_sched_ext_isolation"])
    r = ctx.ctl("status", "--socket", d.sock)
    check(r.returncode == 0 and "kernel mode userspace; sched_ext "
          "unavailable: %s\n" % sx["why"] in r.stdout,
          "vcpuplacectl status: %r" % r.stdout[:600])
    args = d.args[:d.args.index("--socket") + 1] + [
        os.path.join(d.dir, "on.sock")]
    p = subprocess.run(args + ["--kernel-root", root, "--sched-ext=on"],
                       capture_output=True, text=True, timeout=WAIT_S)
    check(p.returncode == 1 and "--sched-ext=on: cannot run the BPF "
          "scheduler: the kernel refuses BPF schedulers under isolcpus= "
          "domain isolation" in p.stderr,
          "on: %d %r" % (p.returncode, p.stderr))
    for bad in ("/nonexistent-root", os.path.join(root, "proc/cmdline")):
        p = subprocess.run(args + ["--kernel-root", bad], capture_output=True,
                           text=True, timeout=WAIT_S)
        check(p.returncode == 2 and "--kernel-root %s: " % bad in p.stderr,
              "%s: %d %r" % (bad, p.returncode, p.stderr))
    d.stop()

    # the nohz forms isolate without domain isolation: not refused
    root = kernel_root(ctx, "ro isolcpus=nohz,managed_irq,2-5 "
                       "nohz_full=2-5", "")
    d = ctx.daemon(nvms=2, extra=("--kernel-root", root))
    sx = d.status()["sched_ext"]
    check(sx["cause"] == "not-built" and sx["isolation"]["verdict"] ==
          "none" and not sx["isolation"]["isolcpus_domain"],
          "nohz forms: %r" % sx)
    check(d.metrics().get(("vcpuplace_sched_ext_isolation", frozenset(
        {("verdict", "none")}))) == 1, "isolation metric not none")
    d.stop()

    # unreadable: named in the log and status, and no refusal made of it
    root = kernel_root(ctx, "ro", None)
    d = ctx.daemon(nvms=2, extra=("--kernel-root", root))
    sx = d.status()["sched_ext"]
    check(sx["cause"] == "not-built" and sx["isolation"]["unreadable"] ==
          {"sys/devices/system/cpu/isolated": "Is a directory"},
          "unreadable: %r" % sx)
    check("sched-ext: %s/sys/devices/system/cpu/isolated: Is a directory"
          % root in d.stderr(), "log: " + d.stderr())


def test_sched_ext_options(ctx):
    """--sched-ext=on where the scheduler cannot run: no start, exit 1,
    the reason on stderr, no socket left behind; a bad value: exit 2
    naming the option; off: state off for that reason."""
    d = ctx.daemon(nvms=2, extra=("--sched-ext", "off"))
    sx = d.status()["sched_ext"]
    check(sx["option"] == "off" and sx["state"] == "off" and
          sx["cause"] == "option", "off: %r" % sx)
    args = d.args[:d.args.index("--socket") + 1] + [
        os.path.join(d.dir, "on.sock")]
    p = subprocess.run(args + ["--sched-ext=on"], capture_output=True,
                       text=True, timeout=WAIT_S)
    check(p.returncode == 1 and "--sched-ext=on: cannot run the BPF "
          "scheduler: " in p.stderr, "on: %d %r" % (p.returncode, p.stderr))
    check(not os.path.exists(os.path.join(d.dir, "on.sock")),
          "--sched-ext=on left its socket")
    for bad in (["--sched-ext=bogus"], ["--sched-ext", "ON"],
                ["--sched-ext="]):
        p = subprocess.run(args + bad, capture_output=True, text=True,
                           timeout=WAIT_S)
        check(p.returncode == 2 and "--sched-ext" in p.stderr and
              "want auto, on or off" in p.stderr,
              "%s: %d %r" % (bad, p.returncode, p.stderr))
    p = subprocess.run([args[0], "--help"], capture_output=True, text=True,
                       timeout=WAIT_S)
    check(p.returncode == 0 and "--sched-ext" in p.stdout, p.stdout)


def expand(cpulist):
    out = set()
    for part in cpulist.split(","):
        if not part:
            continue
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out


def test_signals_to_loop_only(ctx):
    """SIGTERM, SIGINT and SIGHUP reach only the loop: every other thread
    of the daemon (libvirt's event loop) blocks them, so that none is
    taken where it cannot end the loop's wait; SIGTERM then stops a
    daemon whose next tick is a minute away (20 s: a bound on a hang,
    a third of the tick, not a pace)."""
    d = ctx.daemon(nvms=2, extra=("--tick", "60000"))
    pid = d.p.pid
    loop_signals = (1 << (signal.SIGHUP - 1)) | (1 << (signal.SIGINT - 1)) | \
        (1 << (signal.SIGTERM - 1))
    others = [t for t in os.listdir("/proc/%d/task" % pid) if int(t) != pid]
    check(others, "the daemon has no thread but the loop: nothing tested")
    for tid in others:
        with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
            blk = int(re.search(r"^SigBlk:\s*([0-9a-f]+)$", f.read(),
                                re.M).group(1), 16)
        check(blk & loop_signals == loop_signals, "thread %s does not "
              "block SIGTERM/SIGINT/SIGHUP (SigBlk %x)" % (tid, blk))
    d.p.send_signal(signal.SIGTERM)
    try:
        rc = d.p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        raise Fail("SIGTERM: still running after 20 s")
    check(rc == 0, "SIGTERM: exit %d" % rc)


# ---- fair shares: one person's flood ------------------------------

PERSON_MAX = 128        # VP_CTL_PERSON_MAX in daemon/vcpuplaced/server.h
CLIENTS_MAX = 1024      # VP_CTL_CLIENTS_MAX
ROOT_RESERVE = 64       # VP_CTL_ROOT_RESERVE


def classify(data):
    """What the daemon said on one flood connection."""
    if data is None:
        return "held"
    m = re.match(rb"error: (.*) already has %d connections open, the most "
                 rb"one person may have" % PERSON_MAX, data)
    if m:
        return "limit of " + m.group(1).decode()
    if data.startswith(b"error: all ") and b"are taken" in data:
        return "full"
    if data.startswith(b"error: no request line"):
        return "timeout"
    return "other %r" % data[:60]


class Flood:
    """@n silent connections to @path from a child process running as
    @uid (login uid @login, in the user namespace of process @userns:
    see drop_to()), opened in order; then, on request, a census of what
    the daemon did with each (held: nothing sent to it yet)."""
    parent_fds = []     # pipes of the floods alive: not for children

    def __init__(self, path, uid, n, login=None, userns=None):
        self.uid, self.n = uid, n
        self.login, self.userns = login, userns
        cr, self.cmd = os.pipe()
        self.rep, cw = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            code = 1
            try:
                os.close(self.cmd)
                os.close(self.rep)
                for fd in Flood.parent_fds:     # the other floods' pipes
                    os.close(fd)
                self._child(path, cr, cw)
                code = 0
            except BaseException as e:     # noqa: BLE001 (report, exit)
                os.write(cw, (json.dumps({"error": repr(e)}) +
                              "\n").encode())
            finally:
                os._exit(code)
        os.close(cr)
        os.close(cw)
        Flood.parent_fds += [self.cmd, self.rep]
        self.rf = os.fdopen(self.rep, "r")
        self.connected = self._report()["connected"]

    def _child(self, path, cr, cw):
        import resource
        need = self.n + 64
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < need:
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (need, max(hard, need)))
        drop_to(self.uid, self.login, self.userns)
        socks = []
        for _ in range(self.n):
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            socks.append(s)
        say = lambda obj: os.write(cw, (json.dumps(obj) + "\n").encode())
        say({"connected": len(socks)})
        cmds = os.fdopen(cr, "r")
        held = []
        for line in cmds:
            if line.strip() == "census":
                counts, held = {}, []
                for s in socks:
                    try:
                        what = classify(s.recv(256, socket.MSG_PEEK |
                                               socket.MSG_DONTWAIT))
                    except BlockingIOError:
                        what = "held"
                        held.append(s)
                    except OSError as e:
                        what = "reset %s" % e.errno
                    counts[what] = counts.get(what, 0) + 1
                say(counts)
            elif line.strip() == "finish":
                # the held ones end as every silent client does
                counts = {}
                for s in held:
                    s.settimeout(WAIT_S)
                    try:
                        what = classify(s.recv(256))
                    except OSError as e:
                        what = "lost %r" % e
                    counts[what] = counts.get(what, 0) + 1
                say(counts)
                break
        for s in socks:
            s.close()

    def _report(self):
        line = self.rf.readline()
        check(line, "flood child of uid %d died" % self.uid)
        obj = json.loads(line)
        check("error" not in obj, "flood child of uid %d: %s"
              % (self.uid, obj.get("error")))
        return obj

    def ask(self, what):
        os.write(self.cmd, (what + "\n").encode())
        return self._report()

    def close(self):
        """Ends the child: its command pipe's EOF ends its loop."""
        Flood.parent_fds.remove(self.cmd)
        Flood.parent_fds.remove(self.rep)
        os.close(self.cmd)
        self.rf.close()
        os.waitpid(self.pid, 0)


def timed_ask(path, data, uid=None):
    """The answer to @data, asked as @uid (root if None), and the seconds
    it took; no deadline but the generous WAIT_S of any ask."""
    t0 = time.monotonic()
    if uid is None:
        text = ask(path, data, timeout=WAIT_S)
    else:
        text = ask_as(uid, path, data)
    return text, time.monotonic() - t0


def test_uid_flood(ctx):
    """One non-root person (one uid, its login uid the same) opens 1100
    silent connections: it gets VP_CTL_PERSON_MAX slots and every other
    connection is refused at once with one error line naming the person
    and the cap; root and another non-root uid,
    connecting behind the whole flood in the listen backlog, are
    answered while the flood still holds its slots (its held
    connections have not been dropped yet: an order of events, not a
    pace); the refusals are counted in metrics."""
    d = ctx.daemon(nvms=4)
    os.chmod(d.sock, 0o666)     # let the other uids connect at all
    flood = Flood(d.sock, NOBODY, 1100)
    try:
        check(flood.connected == 1100, "flood: %d connections"
              % flood.connected)
        root_text, root_s = timed_ask(d.sock, b"status\n")
        other_text, other_s = timed_ask(d.sock, b"status\n", uid=65533)
        # both connected after the flood, and accept() takes the
        # backlog in order: each flood connection was held or refused
        # before they were served; none of the held ones has timed out
        census = flood.ask("census")
        limit = "limit of login uid %d" % NOBODY
        check(census == {"held": PERSON_MAX, limit: 1100 - PERSON_MAX},
              "flood while the others were answered: %r, want %d held "
              "and %d refused for its person" % (census, PERSON_MAX,
                                                1100 - PERSON_MAX))
        for who, text in (("root", root_text), ("uid 65533", other_text)):
            try:
                st = json.loads(text)
            except ValueError:
                raise Fail("%s: status is not JSON: %r" % (who, text[:200]))
            check(len(st["vms"]) == 4 and st["vms"][0]["name"].startswith(
                "vptest-td-"), "%s: status %r" % (who, text[:200]))
        s = d.metrics()
        n = s[("vcpuplace_socket_rejected_total",
               frozenset({("cause", "person_limit")}))]
        check(n == 1100 - PERSON_MAX, "rejected{person_limit} = %g, want "
              "%d" % (n, 1100 - PERSON_MAX))
        n = s[("vcpuplace_socket_person_limit_total",
               frozenset({("key", "login_uid")}))]
        check(n == 1100 - PERSON_MAX, "person_limit{login_uid} = %g" % n)
        check(s[("vcpuplace_socket_rejected_total",
                 frozenset({("cause", "full")}))] == 0, "rejected{full}")
        done = flood.ask("finish")
        check(done == {"timeout": PERSON_MAX}, "the held connections ended "
              "%r, want %d timeouts" % (done, PERSON_MAX))
    finally:
        flood.close()
    print("    status answered in %.1f ms (root) and %.1f ms (uid 65533) "
          "beside a 1100-connection flood of uid %d" % (
              root_s * 1000, other_s * 1000, NOBODY))


def test_root_reserve(ctx):
    """Eight non-root people (each its own uid and login uid) flood
    together: between them they get every slot but root's reserve (the
    last one's surplus refused as full), a ninth is refused with one
    line naming the limit, and root is still answered, while all of them
    hold their slots."""
    d = ctx.daemon(nvms=4)
    os.chmod(d.sock, 0o666)
    floods = []
    open_to_users = CLIENTS_MAX - ROOT_RESERVE
    try:
        for k in range(8):      # one after the other: in backlog order
            floods.append(Flood(d.sock, 60001 + k, PERSON_MAX))
        other_text, _ = timed_ask(d.sock, b"status\n", uid=60009)
        root_text, root_s = timed_ask(d.sock, b"status\n")
        census = [f.ask("census") for f in floods]
        want = [{"held": PERSON_MAX}] * 7 + [{
            "held": open_to_users - 7 * PERSON_MAX,
            "full": 8 * PERSON_MAX - open_to_users}]
        check(census == want, "floods while root was answered: %r, want "
              "%r" % (census, want))
        check(other_text == "error: all %d connections open to login uid "
              "60009 are taken; try again shortly\n" % open_to_users,
              "ninth uid: %r" % other_text)
        try:
            st = json.loads(root_text)
        except ValueError:
            raise Fail("root: status is not JSON: %r" % root_text[:200])
        check(len(st["vms"]) == 4, "root: status %r" % root_text[:200])
        s = d.metrics()
        full = s[("vcpuplace_socket_rejected_total",
                  frozenset({("cause", "full")}))]
        check(full == 8 * PERSON_MAX - open_to_users + 1,
              "rejected{full} = %g" % full)
        check(s[("vcpuplace_socket_rejected_total",
                 frozenset({("cause", "person_limit")}))] == 0,
              "rejected{person_limit}")
    finally:
        for f in floods:
            f.close()
    print("    root answered in %.1f ms with %d slots held by 8 uids"
          % (root_s * 1000, open_to_users))


def test_full_table_refuses(ctx):
    """With every slot taken (by root, who has no cap of its own), a
    connection is still taken from the backlog and refused at once with
    one line naming the limit, root's own and another uid's alike,
    rather than left waiting behind the full table."""
    d = ctx.daemon(nvms=4)
    os.chmod(d.sock, 0o666)
    flood = Flood(d.sock, 0, CLIENTS_MAX + 1)
    try:
        other_text, _ = timed_ask(d.sock, b"status\n", uid=NOBODY)
        census = flood.ask("census")
        check(census == {"held": CLIENTS_MAX, "full": 1}, "root's flood "
              "of %d: %r" % (CLIENTS_MAX + 1, census))
        check(other_text == "error: all %d connections open to login "
              "uid %d are taken; try again shortly\n" % (
                  CLIENTS_MAX - ROOT_RESERVE, NOBODY),
              "uid %d beside a full table: %r" % (NOBODY, other_text))
    finally:
        flood.close()
    st = d.status()     # and the daemon serves once the flood is gone
    check(len(st["vms"]) == 4, "status after the flood")
    full = d.metrics()[("vcpuplace_socket_rejected_total",
                        frozenset({("cause", "full")}))]
    check(full == 2, "rejected{full} = %g, want 2" % full)


class UserNs:
    """A user namespace mapping @count uids and gids from @base outside
    to 0.. inside, as a member of the socket group with a subordinate
    range (/etc/subuid) has: held by a child that made it and waits;
    root writes its maps from here, as newuidmap would."""

    def __init__(self, base, count):
        r, w = os.pipe()
        self.hold_r, self.hold_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            code = 1
            try:
                os.close(r)
                os.close(self.hold_w)
                if LIBC.unshare(CLONE_NEWUSER) != 0:
                    raise OSError(ctypes.get_errno(), "unshare")
                os.write(w, b"ok")
                os.read(self.hold_r, 1)     # EOF: the test is done
                code = 0
            except BaseException as e:     # noqa: BLE001 (report, exit)
                os.write(w, repr(e).encode())
            finally:
                os._exit(code)
        os.close(w)
        os.close(self.hold_r)
        said = os.read(r, 256)
        os.close(r)
        check(said == b"ok", "user namespace: %r" % said)
        for name in ("uid_map", "gid_map"):
            with open("/proc/%d/%s" % (self.pid, name), "w") as f:
                f.write("0 %d %d\n" % (base, count))
        Flood.parent_fds.append(self.hold_w)

    def close(self):
        Flood.parent_fds.remove(self.hold_w)
        os.close(self.hold_w)
        os.waitpid(self.pid, 0)


def test_person_userns_flood(ctx):
    """One person (login uid 1000) floods from a user namespace as 8
    uids (200000..200007 outside), 120 silent connections each: the
    whole table open to non-root users if the uid were the key.  The
    person gets VP_CTL_PERSON_MAX slots in all, whatever its uids, every
    other connection of it is refused with one line naming its login
    uid, and another person (login uid 2000, uid 65534), connecting
    behind the flood, is answered while the flood holds its slots; the
    refusals are counted by the key that told the person."""
    d = ctx.daemon(nvms=4)
    os.chmod(d.sock, 0o666)
    ns = UserNs(200000, 8)
    floods = []
    try:
        for k in range(8):      # one after the other: in backlog order
            floods.append(Flood(d.sock, k, 120, login=1000,
                                userns=ns.pid))
        other_text, other_s = timed_ask(d.sock, b"status\n", uid=NOBODY)
        # the other person connected after the whole flood, and accept()
        # takes the backlog in order: the census is of then
        census = [f.ask("census") for f in floods]
        limit = "limit of login uid 1000"
        want = [{"held": 120}, {"held": PERSON_MAX - 120,
                                limit: 120 - (PERSON_MAX - 120)}] + \
            [{limit: 120}] * 6
        check(census == want, "the person's floods: %r, want %r"
              % (census, want))
        held = sum(c.get("held", 0) for c in census)
        check(held == PERSON_MAX, "the person holds %d slots" % held)
        try:
            st = json.loads(other_text)
        except ValueError:
            raise Fail("login uid 2000: status is not JSON: %r"
                       % other_text[:200])
        check(len(st["vms"]) == 4, "login uid 2000: status %r"
              % other_text[:200])
        s = d.metrics()
        refused = 8 * 120 - PERSON_MAX
        for key, want_n in ((("cause", "person_limit"), refused),
                            (("cause", "full"), 0)):
            n = s[("vcpuplace_socket_rejected_total", frozenset({key}))]
            check(n == want_n, "rejected{%s} = %g, want %d"
                  % (key[1], n, want_n))
        n = s[("vcpuplace_socket_person_limit_total",
               frozenset({("key", "login_uid")}))]
        check(n == refused, "person_limit{login_uid} = %g, want %d"
              % (n, refused))
    finally:
        for f in floods:
            f.close()
        ns.close()
    print("    login uid 2000 answered in %.1f ms beside login uid 1000's "
          "960 connections as 8 uids" % (other_s * 1000))


def proc_state(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def test_shared_answer(ctx):
    """50 clients ask for metrics in one tick and read nothing: they
    share one buffer, so vcpuplace_socket_queued_bytes, rendered while
    49 of them still wait, is one answer's length (not 49 copies'), and
    every one of them gets the same bytes.  The answer (3200 vCPUs) is
    larger than a socket takes in, so unread it stays queued.  One tick:
    the requests are all sent while the daemon is stopped (SIGSTOP), and
    after SIGCONT it accepts them in one batch and reads them in one
    pass, no tick between."""
    d = ctx.daemon(nvms=400, vcpus=8, placed=False)
    with open("/proc/sys/net/core/wmem_default") as f:
        sock_buf = int(f.read())
    n = 50      # under the daemon's accept batch of 64
    readers = []
    os.kill(d.p.pid, signal.SIGSTOP)
    try:
        wait_for("daemon stopped", lambda: proc_state(d.p.pid) == "T")
        for _ in range(n):
            sk = socket.socket(socket.AF_UNIX)
            sk.settimeout(WAIT_S)
            sk.connect(d.sock)
            sk.sendall(b"metrics\n")
            readers.append(sk)
    finally:
        os.kill(d.p.pid, signal.SIGCONT)
    first = read_all(readers[0])
    check(len(first) > 2 * sock_buf, "metrics of %d bytes: not more than "
          "a socket takes in (%d)" % (len(first), sock_buf))
    tick = metric_samples(first.decode())[("vcpuplace_ticks_total",
                                           frozenset())]
    later = wait_for("metrics of a later tick", lambda: (
        lambda s: s if s[("vcpuplace_ticks_total", frozenset())] > tick
        else None)(d.metrics()))
    queued = later[("vcpuplace_socket_queued_bytes", frozenset())]
    slow = later[("vcpuplace_socket_rejected_total",
                  frozenset({("cause", "slow_reader")}))]
    check(slow == 0, "%g readers dropped as slow before the gauge was "
          "read" % slow)
    check(queued == len(first), "queued bytes %g with %d readers of one "
          "%d-byte answer" % (queued, n - 1, len(first)))
    for i, sk in enumerate(readers[1:], 1):
        check(read_all(sk) == first, "reader %d got other bytes" % i)
    wait_for("the queue empty", lambda: d.metrics()[
        ("vcpuplace_socket_queued_bytes", frozenset())] == 0)
    print("    %d readers of a %d-byte metrics answer: %d bytes queued"
          % (n, len(first), queued))


def test_long_vm_name(ctx):
    """A running domain whose name is longer than the daemon holds (255
    bytes; libvirt's test driver takes it, QEMU's could not start it):
    left alone, never listed under a truncated name that could be
    another VM's, said once with its UUID and counted once, not again at
    the next refresh; the other VMs are placed."""
    long_name = "vptest-td-" + "L" * 300
    d = ctx.daemon(nvms=4, rename={"vptest-td-0001": long_name})
    st = d.status()
    names = sorted(v["name"] for v in st["vms"])
    check(names == ["vptest-td-0000", "vptest-td-0002", "vptest-td-0003"],
          "VMs in status: %r" % [n[:40] for n in names])
    lines = [l for l in d.stderr().splitlines()
             if "name longer than 255 bytes" in l]
    check(len(lines) == 1 and re.search(r"error: domain [0-9a-f-]{36}: ",
                                        lines[0]), "log: %r" % lines)
    key = ("vcpuplace_vm_name_errors_total", frozenset())
    check(d.metrics()[key] == 1, "name errors %g" % d.metrics()[key])
    # a metadata event makes the next tick refresh: counted no more
    text = ask(d.sock, b"policy vptest-td-0002 latency\n")
    check(text.startswith("ok"), "policy: %r" % text)
    wait_for("the refresh after the policy", lambda: profile_of(
        d.status(), "vptest-td-0002") == "latency")
    check(d.metrics()[key] == 1, "name errors %g after another refresh"
          % d.metrics()[key])
    check(len([l for l in d.stderr().splitlines()
               if "name longer than" in l]) == 1, "said again")


def test_log_one_line_per_message(ctx):
    """A VM name with a newline (libvirt accepts one) cannot forge a log
    line: its invalid metadata is said on one line naming it with the
    newline written as \\x0a, and every line of the log is the
    daemon's."""
    meta = ("<metadata><vp:policy xmlns:vp='urn:vcpuplace:policy:1' "
            "profile='nonexistent'/></metadata>")
    # the metadata rides in on the rename (the test driver reads the
    # first <name>; the second, "x", is ignored)
    d = ctx.daemon(nvms=3, rename={"vptest-td-0001": "vptest-nl&#10;"
                                   "vcpuplaced: error: forged</name>" +
                                   meta + "<name>x"})
    names = [v["name"] for v in d.status()["vms"]]
    check("vptest-nl\nvcpuplaced: error: forged" in names, names)
    lines = d.stderr().splitlines()
    check([l for l in lines if l.startswith(
        "vcpuplaced: error: VM vptest-nl\\x0avcpuplaced: error: forged: "
        "invalid vcpuplace metadata")], "no escaped line: %r" % lines)
    check(not [l for l in lines if l.startswith("vcpuplaced: error: "
                                                "forged")],
          "a forged line in the log: %r" % lines)


def test_alert_metrics(ctx):
    """The gauges the alerting rules (systemd/vcpuplace.rules.yml) need:
    vcpuplace_invalid_metadata_vms stays 1 while a VM's metadata is
    rejected (the counter counts the bad text once) and drops to 0 once
    it is fixed; vcpuplace_last_reload_successful is 0 after a reload
    that kept the old topology and 1 again after a good one; and the
    per-vCPU vcpuplace_vcpu_smt_conflict adds up to the host's
    vcpuplace_smt_conflicts and agrees with status."""
    meta = ("<metadata><vp:policy xmlns:vp='urn:vcpuplace:policy:1' "
            "profile='nonexistent'/></metadata>")
    path = os.path.join(ctx.tmp, "topo-alerts.xml")
    shutil.copy(TOPO, path)
    d = ctx.daemon(nvms=3, topology=path, rename={
        "vptest-td-0001": "vptest-td-0001</name>" + meta + "<name>x"})
    gauge = ("vcpuplace_invalid_metadata_vms", frozenset())
    counter = ("vcpuplace_invalid_metadata_total", frozenset())
    last = ("vcpuplace_last_reload_successful", frozenset())
    s = d.metrics()
    check(s[gauge] == 1 and s[counter] == 1, "invalid metadata: gauge %g, "
          "counter %g" % (s[gauge], s[counter]))
    check(s[last] == 1, "last reload successful %g before any" % s[last])
    # the next refreshes read the same bad text: counted once, still up
    t = d.tick()
    wait_for("two more ticks", lambda: d.tick() >= t + 2)
    s = d.metrics()
    check(s[gauge] == 1 and s[counter] == 1, "after more ticks: gauge %g, "
          "counter %g" % (s[gauge], s[counter]))
    text = ask(d.sock, b"policy vptest-td-0001 latency\n")
    check(text.startswith("ok"), "policy: %r" % text)
    s = wait_for("the gauge back at 0", lambda: (
        lambda s: s if s[gauge] == 0 else None)(d.metrics()))
    check(s[counter] == 1, "counter %g after the fix" % s[counter])
    # a reload that fails, then one that works
    with open(path, "w") as f:
        f.write("<topology>not hwloc")
    d.p.send_signal(signal.SIGHUP)
    s = wait_for("the failed reload", lambda: (lambda s: s if s[(
        "vcpuplace_reloads_total", frozenset())] == 1 else None)(
            d.metrics()))
    check(s[last] == 0, "last reload successful %g after a bad one"
          % s[last])
    shutil.copy(TOPO, path)
    d.p.send_signal(signal.SIGHUP)
    s = wait_for("the good reload", lambda: (lambda s: s if s[(
        "vcpuplace_reloads_total", frozenset())] == 2 else None)(
            d.metrics()))
    check(s[last] == 1 and s[("vcpuplace_reload_errors_total",
                              frozenset())] == 1,
          "after a good reload: last %g" % s[last])
    # one series a vCPU, adding up to the host's gauge, as status says
    with d.paused():
        st = d.status()
        s = d.metrics()
    per = {dict(k[1])["vm"] + "/" + dict(k[1])["vcpu"]: v
           for k, v in s.items() if k[0] == "vcpuplace_vcpu_smt_conflict"}
    want = {"%s/%d" % (v["name"], c["vcpu"]): float(bool(c["smt_conflict"]))
            for v in st["vms"] for c in v["vcpus"]}
    check(per == want, "per-vCPU SMT conflicts %r, status %r" % (per, want))
    check(sum(per.values()) == s[("vcpuplace_smt_conflicts", frozenset())],
          "per-vCPU sum %g, host gauge %g" % (
              sum(per.values()), s[("vcpuplace_smt_conflicts", frozenset())]))


def cap_sets(pid, tid):
    """(CapEff, CapPrm) of thread @tid of @pid, as numbers."""
    with open("/proc/%d/task/%d/status" % (pid, tid)) as f:
        fields = dict(re.findall(r"^(\w+):\s*(.*)$", f.read(), re.M))
    return int(fields["CapEff"], 16), int(fields["CapPrm"], 16)


def test_capabilities_dropped(ctx):
    """Started by root with every capability, on a host where the BPF
    scheduler cannot run (or a dry run) and without core scheduling, the
    daemon holds none once it is up: on every thread (libvirt's event
    thread too), as the kernel says, as its status and metrics say, and
    its log names what it kept.  It still answers and still plans."""
    if os.geteuid() != 0 or cap_sets(os.getpid(), os.getpid())[0] == 0:
        print("    skipped: the suite holds no capability to drop")
        return
    d = ctx.daemon(nvms=2)
    tids = [int(t) for t in os.listdir("/proc/%d/task" % d.p.pid)]
    check(len(tids) >= 2, "one thread only: %r" % tids)
    for tid in tids:
        eff, prm = cap_sets(d.p.pid, tid)
        check(eff == 0 and prm == 0, "thread %d holds CapEff %x CapPrm %x"
              % (tid, eff, prm))
    st = d.status()
    check(st["capabilities"] == {"held": 0, "names": [], "bpf_denied": True},
          "status says %r" % (st["capabilities"],))
    with open("/proc/%d/status" % d.p.pid) as f:
        filters = re.search(r"^Seccomp_filters:\s*(\d+)", f.read(), re.M)
    check(filters and int(filters.group(1)) >= 1, "no seccomp filter on "
          "the daemon: bpf() is not filtered out")
    s = d.metrics()
    check(s[("vcpuplace_capabilities_held", frozenset())] == 0 and
          s[("vcpuplace_capability", frozenset({("name", "CAP_BPF")}))]
          == 0 and s[("vcpuplace_capability_drop_errors_total",
                      frozenset())] == 0, "capability metrics: %r" % [
                          (k, v) for k, v in s.items()
                          if "capabilit" in k[0]])
    check("capabilities: keeping none" in d.stderr(), "no capability line "
          "in the log: " + d.stderr())
    check(len(st["vms"]) == 2, "VMs %r" % [v["name"] for v in st["vms"]])


TESTS = [test_status, test_metrics_promtool, test_metrics_label_escaping,
         test_explain,
         test_errors_one_line, test_silent_client, test_500_clients,
         test_silent_crowd, test_slow_reader, test_write_needs_root,
         test_socket_mode, test_policy_command, test_pause,
         test_not_running,
         test_stale_and_busy_socket, test_status_table, test_sd_notify,
         test_reload_topology, test_top_tmux, test_sched_ext_unavailable,
         test_sched_ext_isolcpus, test_sched_ext_options, test_uid_flood, test_root_reserve,
         test_person_userns_flood, test_shared_answer,
         test_full_table_refuses, test_long_vm_name,
         test_log_one_line_per_message, test_signals_to_loop_only,
         test_alert_metrics, test_capabilities_dropped]


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
