#!/usr/bin/env python3
"""A chaos soak of vcpuplaced against the real libvirtd and TCG QEMU VMs.

    soak.py [--seconds S] [--seed N] [--out DIR] BUILD_DIR

Runs BUILD_DIR/vcpuplaced (supervised: a death is counted as a crash,
its stderr kept, and it is restarted), boots the pool (pool.py), then
for S seconds runs a random schedule drawn from the seed (printed
first) of lifecycle actions, vCPU hot-plug, metadata bursts, kills of
QEMU and of libvirtd, SIGHUP to the daemon, while another thread sends
vcpuplacectl requests in parallel and the checker (checker.py) samples
the affinities every second.  Every action is logged with a timestamp
to DIR/actions.log (default BUILD_DIR/soak).  Last line:

  soak: seed=<s> actions=<n> libvirtd_kills=<k> daemon_crashes=<c>
        bad_affinity_samples=<b> fd_growth=<f> rss_growth_kib=<r>
        placed_p99_ms=<p>

Exit 1 when any rule failed (README.md), 2 on a setup failure, 130 on
SIGINT/SIGTERM; every vpsoak-* domain is removed on every exit, the
daemon stopped, libvirtd left running.
"""
import argparse
import datetime
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
sys.path.insert(0, os.path.join(ROOT, "tests", "socket"))
import checker  # noqa: E402
import pool  # noqa: E402
import procview  # noqa: E402
import selfcheck  # noqa: E402
import scratch  # noqa: E402
import vmlib  # noqa: E402

TICK_MS = 250
GRACE_S = 10.0          # a settled VM must be placed (R4): 40 ticks
LIBVIRT_GRACE_S = 20.0  # after libvirtd is back: reconnect backoff <= 8 s
WATCH_S = 10.0          # longest placement-latency watch
P99_BOUND_MS = 1000     # placed_p99_ms above this fails the run
FAULTS = ("kill_qemu", "kill_libvirtd", "sighup", "metadata", "setvcpus")
RSS_BOUND_KIB = 512     # rss growth above this (last - second third) fails
LIBVIRTD_KILL_GAP_S = 30.0
# a define, create or start may take ~45 s on a libvirtd that re-probes
# QEMU's capabilities on every lookup (seen here; see README.md)
VIRSH_TIMEOUT_S = 180
RESET_TIMEOUT_S = 20    # a reset answers in ms, or ~2 s when QEMU exits
LIBVIRT_UP = os.path.join(ROOT, "tests", "integration", "libvirt-up.sh")

# action: weight in the random draw
WEIGHTS = (
    ("start", 12), ("destroy", 4), ("shutdown", 2), ("reboot", 2),
    ("suspend", 3), ("resume", 5), ("save", 2), ("restore", 5),
    ("managedsave", 2), ("setvcpus", 6), ("metadata", 5),
    ("kill_qemu", 2), ("kill_libvirtd", 2), ("sighup", 2),
)


class World:
    """What the harness knows, shared with the checker under .lock."""

    def __init__(self, doms, online, groups, localities):
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.t0 = time.monotonic()
        self.doms = doms
        self.prefix = pool.PREFIX
        self.online = online
        self.groups = groups            # level -> {PU: PUs}, online only
        self.localities = localities    # profile -> locality
        self.grace_s = GRACE_S
        self.libvirt_grace_s = LIBVIRT_GRACE_S
        self.libvirt_down = False
        self.libvirt_epoch = 0
        self.libvirt_up_since = self.t0 - LIBVIRT_GRACE_S
        self.daemon_pid = None
        self.daemon_since = self.t0
        self.daemon_restarting = True
        self.ctl_inflight = 0
        self.ctl_epoch = 0


class ActionLog:
    def __init__(self, path, t0):
        self.f = open(path, "w", buffering=1)
        self.t0 = t0
        self.lock = threading.Lock()

    def write(self, msg):
        now = datetime.datetime.now(datetime.timezone.utc)
        with self.lock:
            self.f.write("%s %9.3f %s\n" % (
                now.strftime("%H:%M:%S.%f")[:-3],
                time.monotonic() - self.t0, msg))


class Supervisor(threading.Thread):
    """Runs the daemon; a death that was not our SIGTERM is a crash:
    counted, its stderr kept (daemon.N.stderr), the daemon restarted."""

    def __init__(self, world, argv, outdir, log):
        super().__init__(name="supervisor", daemon=True)
        self.w = world
        self.argv = argv
        self.outdir = outdir
        self.log = log
        self.n = 0
        self.proc = None
        self.crashes = []
        self.stopping = False
        self.start_daemon()

    def start_daemon(self):
        self.n += 1
        path = os.path.join(self.outdir, "daemon.%d.stderr" % self.n)
        with open(path, "w") as err:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                         stdout=err, stderr=err, cwd=ROOT)
        with self.w.lock:
            self.w.daemon_pid = self.proc.pid
            self.w.daemon_since = time.monotonic()
            self.w.daemon_restarting = False
        self.log.write("daemon started pid %d (stderr %s)" % (
            self.proc.pid, path))

    def run(self):
        while not self.stopping:
            rc = self.proc.poll()
            if rc is not None and not self.stopping:
                with self.w.lock:
                    self.w.daemon_restarting = True
                path = os.path.join(self.outdir, "daemon.%d.stderr" % self.n)
                self.crashes.append((self.proc.pid, rc, path))
                self.log.write("DAEMON CRASH pid %d rc %s (stderr %s)" % (
                    self.proc.pid, rc, path))
                time.sleep(0.5)
                if not self.stopping:
                    self.start_daemon()
            time.sleep(0.1)

    def stop_daemon(self):
        self.stopping = True
        p = self.proc
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        return p.returncode


class CtlLoad(threading.Thread):
    """vcpuplacectl requests in parallel: every 0.3-2 s, 2-6 at once.
    A `status` or `metrics` that fails while one daemon process lived
    through the whole request is counted as an error."""

    def __init__(self, world, ctl, sock, seed, log):
        super().__init__(name="ctl", daemon=True)
        self.w = world
        self.ctl = ctl
        self.sock = sock
        self.rng = random.Random(seed ^ 0x5eed)
        self.log = log
        self.requests = 0
        self.errors = []

    def commands(self):
        vm = self.rng.choice(self.w.doms).name
        return self.rng.choice((
            ["status"], ["status", "--json"], ["metrics"],
            ["explain", vm, "0"],
            ["plan", "--scenario", os.path.join(ROOT, "tests", "scenarios",
                                                 "mixed.json")],
            ["topology"]))

    def run(self):
        while not self.w.stop.wait(self.rng.uniform(0.3, 2.0)):
            k = self.rng.randint(2, 6)
            with self.w.lock:
                self.w.ctl_inflight += k
                self.w.ctl_epoch += 1
                pid0 = self.w.daemon_pid
            procs = []
            for _ in range(k):
                cmd = self.commands()
                argv = [self.ctl] + cmd
                if cmd[0] not in ("plan", "topology"):
                    argv += ["--socket", self.sock]
                procs.append((cmd, subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE, text=True)))
            for cmd, p in procs:
                try:
                    _, err = p.communicate(timeout=60)
                except subprocess.TimeoutExpired:
                    p.kill()
                    _, err = p.communicate()
                self.requests += 1
                with self.w.lock:
                    same = (self.w.daemon_pid == pid0 and
                            not self.w.daemon_restarting)
                if p.returncode != 0 and cmd[0] in ("status", "metrics") \
                        and same and procview.alive(pid0):
                    self.errors.append("%s rc %s: %s" % (
                        " ".join(cmd), p.returncode, err.strip()[:200]))
                    self.log.write("ctl error: %s" % self.errors[-1])
            with self.w.lock:
                self.w.ctl_inflight -= k
                self.w.ctl_epoch += 1


def percentile(xs, p):
    xs = sorted(xs)
    if not xs:
        return None
    k = max(0, min(len(xs) - 1, int(-(-p * len(xs) // 100)) - 1))
    return xs[k]


class Schedule:
    """The random schedule: one action at a time, each logged as
    `begin #N ACTION VM` ... `end #N ACTION VM ok|failed (MS ms) ...`.
    An action is in flight for its VM from begin to end (checker.py)."""

    def __init__(self, world, rng, log, sup, rundir):
        self.w = world
        self.rng = rng
        self.log = log
        self.sup = sup
        self.rundir = rundir
        self.n = 0
        self.counts = {}    # action -> [ok, failed]
        self.libvirtd_kills = 0
        self.last_libvirtd_kill = -1e9
        self.latency = []   # (kind, ms, counted)
        self.unplaced_watch = 0
        self.nothing_to_do = {}  # kind -> VMs placed when virsh returned
        self.forced = {}    # action -> monotonic time it is due by
        self.done = set()   # action kinds that ran at least once

    # ---- bookkeeping ------------------------------------------------

    def begin(self, action, doms):
        self.n += 1
        with self.w.lock:
            for d in doms:
                d.busy = True
                d.gen += 1
        self.log.write("begin #%d %s %s" % (
            self.n, action, " ".join(d.name for d in doms) or "-"))
        return self.n, time.monotonic()

    def end(self, tok, action, doms, ok, detail=""):
        n, t = tok
        now = time.monotonic()
        with self.w.lock:
            for d in doms:
                d.busy = False
                d.gen += 1
                d.settle_from = now
        self.done.add(action)
        c = self.counts.setdefault(action, [0, 0])
        c[0 if ok else 1] += 1
        self.log.write("end #%d %s %s %s (%.0f ms)%s" % (
            n, action, " ".join(d.name for d in doms) or "-",
            "ok" if ok else "failed", (now - t) * 1000,
            (" " + detail) if detail else ""))

    def virsh(self, *args, timeout=VIRSH_TIMEOUT_S):
        cmd = ["virsh", "-q", "-c", vmlib.URI] + [str(a) for a in args]
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return False, "timeout after %ss" % timeout
        return p.returncode == 0, (p.stderr.strip() or p.stdout.strip())

    def resync(self, d):
        """After a failed action: ask libvirt what the VM is.  A state
        the pool does not model is ended with `virsh destroy`, so that
        the harness and libvirt agree again: "in shutdown" is a QEMU
        that did not exit after a reset (about one reset in 45 under
        the soak's load), and a transient VM left so made every later
        create fail ("already exists": 107 failed starts in one run)."""
        ok, out = self.virsh("domstate", d.name)
        if ok and out.startswith(("in shutdown", "crashed", "pmsuspended")):
            self.virsh("destroy", d.name)
            ok, out = self.virsh("domstate", d.name)
        if not ok:
            d.state = "saved" if d.save_file else "shutoff"
        elif out.startswith("running"):
            d.state = "running"
        elif out.startswith("paused"):
            d.state = "paused"
        elif d.state not in ("saved", "managedsaved"):
            d.state = "shutoff"

    # ---- placement latency --------------------------------------------

    def placed(self, d, affs, want_vcpus, ded_pu):
        if len(affs) < want_vcpus:
            return False
        return all(checker.vcpu_placed(self.w, d.mode(),
                                       d.locality(self.w.localities),
                                       aff, ded_pu, d.vcpus_max)
                   for tid, aff in affs.values())

    def ded_pu(self, d):
        """The PU the dedicated VM holds now, if it is not @d and holds
        exactly one."""
        for o in self.w.doms:
            if o is d or o.mode() != "dedicated":
                continue
            pid = procview.qemu_pids(pool.PREFIX).get(o.name)
            affs = procview.vcpu_affinities(pid) if pid else {}
            for tid, aff in affs.values():
                if len(aff) == 1:
                    return next(iter(aff))
        return None

    def watch(self, d, kind, t_ret, want_vcpus):
        """Polls the VM's vCPU threads every ~1 ms from the virsh
        command's return until all are placed; records the latency.
        Only where the daemon had something to change: a VM placed
        already when virsh returned counts apart.  Not counted in the
        p99 when libvirtd or the daemon restarted within their grace
        (reconnect backoff, first tick)."""
        if d.mode() == "off":
            return
        with self.w.lock:
            recent = (t_ret - self.w.libvirt_up_since < LIBVIRT_GRACE_S or
                      t_ret - self.w.daemon_since < GRACE_S)
        try:
            pid = vmlib.qemu_pid(d.name)
        except (OSError, RuntimeError, ValueError):
            return
        ded = self.ded_pu(d)
        ms = None
        first = True
        limit = WATCH_S
        while time.monotonic() - t_ret < limit:
            affs = procview.vcpu_affinities(pid)
            if not procview.alive(pid):
                return
            if self.placed(d, affs, want_vcpus, ded):
                if first:
                    self.nothing_to_do[kind] = \
                        self.nothing_to_do.get(kind, 0) + 1
                    return
                ms = (time.monotonic() - t_ret) * 1000
                break
            first = False
            time.sleep(0.001)
        if ms is None:
            self.unplaced_watch += 1
            ms = limit * 1000
        self.latency.append((kind, ms, not recent))
        self.log.write("placed %s %s %.1f ms%s" % (
            d.name, kind, ms, " (after a restart: not in p99)"
            if recent else ""))

    # ---- actions ------------------------------------------------------

    def eligible(self, action):
        doms = self.w.doms
        st = lambda *s: [d for d in doms if d.state in s]  # noqa: E731
        if action == "start":
            return [d for d in st("shutoff", "managedsaved")]
        if action in ("destroy", "kill_qemu", "save", "metadata"):
            got = st("running", "paused")
            if action == "metadata":
                got = [d for d in got if not d.off_pool]
            return got
        if action in ("shutdown", "reboot", "suspend"):
            return st("running")
        if action == "resume":
            return st("paused")
        if action == "restore":
            return st("saved")
        if action == "managedsave":
            return [d for d in st("running", "paused") if d.persistent]
        if action == "setvcpus":
            # plug only: the busybox guest never acknowledges an ACPI
            # unplug (libvirt: "vcpu unplug request timed out"), so an
            # unplug cannot succeed here; a VM goes back to 1 vCPU when
            # it is started again
            return [d for d in st("running") if d.hotplug and
                    self.vcpus_now(d) < d.vcpus_max]
        if action == "kill_libvirtd":
            t = time.monotonic()
            ok = (t - self.last_libvirtd_kill >= LIBVIRTD_KILL_GAP_S and
                  self.deadline - t > LIBVIRT_GRACE_S)
            return [None] if ok else []
        if action == "sighup":
            return [None]
        return []

    def plan_forced(self, seconds):
        """Every action kind once at a time drawn from the seed, in the
        first 60 % of a run of >= 90 s, so that a short run has every
        fault (the random draw alone gave seed 13 no libvirtd kill)."""
        self.forced = {}
        if seconds < 90:
            return
        frng = random.Random(self.rng.random())
        for action, _ in WEIGHTS:
            self.forced[action] = self.t_start + frng.uniform(
                0.05, 0.6) * seconds

    def step(self):
        now = time.monotonic()
        for action, due in sorted(self.forced.items(), key=lambda x: x[1]):
            if action in self.done or now < due:
                continue
            targets = self.eligible(action)
            if targets:
                self.log.write("forced %s" % action)
                getattr(self, "do_" + action)(self.rng.choice(targets))
                return
        running = sum(d.state == "running" for d in self.w.doms)
        choices = []
        for action, weight in WEIGHTS:
            if action == "start" and running < len(self.w.doms) // 2:
                weight *= 3
            if self.eligible(action):
                choices.append((action, weight))
        total = sum(w for _, w in choices)
        r = self.rng.uniform(0, total)
        for action, weight in choices:
            r -= weight
            if r <= 0:
                break
        target = self.rng.choice(self.eligible(action))
        getattr(self, "do_" + action)(target)

    def do_start(self, d):
        kind = "restore" if d.state == "managedsaved" else "start"
        tok = self.begin(kind if kind == "start" else "start-managedsave",
                         [d])
        if d.persistent:
            ok, msg = self.virsh("start", d.name)
        else:
            ok, msg = self.virsh("create", d.xml)
        t_ret = time.monotonic()
        if ok:
            if kind == "start":
                d.live = (d.profile, None)
            d.state = "running"
        else:
            self.resync(d)
        self.end(tok, "start", [d], ok, msg if not ok else "")
        if ok:
            self.watch(d, kind, t_ret, d.initial_vcpus() if kind == "start"
                       else 1)

    def do_destroy(self, d):
        tok = self.begin("destroy", [d])
        ok, msg = self.virsh("destroy", d.name)
        self.resync(d) if not ok else setattr(d, "state", "shutoff")
        self.end(tok, "destroy", [d], ok, "" if ok else msg)

    def do_shutdown(self, d):
        """ACPI shutdown: the busybox guest has no ACPI button driver
        (button and evdev are modules it does not load), so it ignores
        it; after 1 s the VM is destroyed."""
        tok = self.begin("shutdown", [d])
        ok, msg = self.virsh("shutdown", d.name, "--mode", "acpi")
        time.sleep(1.0)
        self.virsh("destroy", d.name)
        self.resync(d)
        self.end(tok, "shutdown", [d], ok,
                 "acpi sent, ignored by the guest, destroyed" if ok else msg)

    def do_reboot(self, d):
        """`virsh reset`: the guest cannot reboot by ACPI either.  The
        pool's XML has <on_reboot>destroy</on_reboot> (QEMU runs with
        -no-reboot), so a reset powers the VM off: wait for libvirt to
        say so (the harness once kept it as running and a later destroy
        failed), then resync."""
        tok = self.begin("reboot", [d])
        # one reset in the soaks hung 180 s (its QEMU never exited) and
        # held the whole schedule: bounded here, then resync destroys it
        ok, msg = self.virsh("reset", d.name, timeout=RESET_TIMEOUT_S)
        end = time.monotonic() + 10
        while ok and time.monotonic() < end:
            okk, out = self.virsh("domstate", d.name)
            if not okk or not out.startswith(("running", "paused")):
                break
            time.sleep(0.1)
        self.resync(d)
        self.end(tok, "reboot", [d], ok, "" if ok else msg)

    def do_suspend(self, d):
        tok = self.begin("suspend", [d])
        ok, msg = self.virsh("suspend", d.name)
        self.resync(d) if not ok else setattr(d, "state", "paused")
        self.end(tok, "suspend", [d], ok, "" if ok else msg)

    def do_resume(self, d):
        tok = self.begin("resume", [d])
        ok, msg = self.virsh("resume", d.name)
        t_ret = time.monotonic()
        self.resync(d) if not ok else setattr(d, "state", "running")
        self.end(tok, "resume", [d], ok, "" if ok else msg)
        if ok:
            self.watch(d, "resume", t_ret, 1)

    def do_save(self, d):
        tok = self.begin("save", [d])
        path = os.path.join(self.rundir, d.name + ".save")
        ok, msg = self.virsh("save", d.name, path, timeout=VIRSH_TIMEOUT_S)
        if ok:
            d.state, d.save_file = "saved", path
        else:
            self.resync(d)
        self.end(tok, "save", [d], ok, "" if ok else msg)

    def do_restore(self, d):
        tok = self.begin("restore", [d])
        ok, msg = self.virsh("restore", d.save_file, timeout=120)
        t_ret = time.monotonic()
        if ok:
            try:
                os.unlink(d.save_file)
            except OSError:
                pass
            d.save_file = None
            d.state = "running"
        else:
            self.resync(d)
        self.end(tok, "restore", [d], ok, "" if ok else msg)
        if ok:
            self.watch(d, "restore", t_ret, 1)

    def do_managedsave(self, d):
        tok = self.begin("managedsave", [d])
        ok, msg = self.virsh("managedsave", d.name, timeout=120)
        if ok:
            d.state = "managedsaved"
        else:
            self.resync(d)
        self.end(tok, "managedsave", [d], ok, "" if ok else msg)

    def vcpus_now(self, d):
        pid = procview.qemu_pids(pool.PREFIX).get(d.name)
        return len(procview.vcpu_threads(pid)) if pid else d.vcpus_max

    def do_setvcpus(self, d):
        n = self.vcpus_now(d)
        want = d.vcpus_max
        tok = self.begin("setvcpus", [d])
        ok, msg = self.virsh("setvcpus", d.name, want, "--live")
        t_ret = time.monotonic()
        if not ok:
            self.resync(d)
        self.end(tok, "setvcpus", [d], ok, "%d -> %d%s" % (
            n, want, "" if ok else ": " + msg))
        if ok and want > n:
            self.watch(d, "setvcpus", t_ret, want)

    def do_metadata(self, d):
        """A burst: 1-4 bad writes, each followed by a short pause, then
        a good one, so the VM is never left with bad metadata."""
        tok = self.begin("metadata", [d])
        texts = [(False, self.rng.choice(pool.BAD))
                 for _ in range(self.rng.randint(1, 4))]
        if d.dedicated:
            good = ("dedicated", None)
        else:
            good = self.rng.choice(pool.GOOD_SHARED)
        texts.append((True, vmlib.policy_xml(good[0], good[1], ns=False)))
        ok = True
        msgs = []
        for is_good, text in texts:
            okk, msg = self.virsh("metadata", d.name, "--uri",
                                  vmlib.POLICY_NS, "--key", vmlib.POLICY_KEY,
                                  "--set", text, "--live")
            if not okk:
                ok = False
                msgs.append(msg)
            time.sleep(self.rng.uniform(0, 0.3))
        if ok:
            d.live = good
        else:
            self.resync(d)
        self.end(tok, "metadata", [d], ok, "%d bad, then %s%s" % (
            len(texts) - 1, good[0] + (str(good[1]) if good[1] else ""),
            "" if ok else ": " + "; ".join(msgs)))

    def do_kill_qemu(self, d):
        tok = self.begin("kill_qemu", [d])
        pid = procview.qemu_pids(pool.PREFIX).get(d.name)
        ok = pid is not None
        if ok:
            os.kill(pid, signal.SIGKILL)
            end = time.monotonic() + 30
            while time.monotonic() < end:
                okk, out = self.virsh("domstate", d.name)
                if not okk or not out.startswith(("running", "paused")):
                    break
                time.sleep(0.1)
        self.resync(d)
        if d.state in ("running", "paused"):
            ok = False
        self.end(tok, "kill_qemu", [d], ok, "pid %s" % pid)

    def do_kill_libvirtd(self, _):
        tok = self.begin("kill_libvirtd", [])
        pid = libvirtd_pid()
        if pid is None:
            self.end(tok, "kill_libvirtd", [], False, "no libvirtd found")
            return
        delay = self.rng.uniform(0.2, 6.0)
        with self.w.lock:
            self.w.libvirt_down = True
            self.w.libvirt_epoch += 1
        try:
            os.kill(pid, signal.SIGKILL)
            self.libvirtd_kills += 1
            self.last_libvirtd_kill = time.monotonic()
            self.log.write("libvirtd pid %d killed, restart in %.1f s" % (
                pid, delay))
            time.sleep(delay)
            p = subprocess.run(["sh", LIBVIRT_UP], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               timeout=120)
        finally:
            with self.w.lock:
                self.w.libvirt_down = False
                self.w.libvirt_epoch += 1
                self.w.libvirt_up_since = time.monotonic()
        self.end(tok, "kill_libvirtd", [], p.returncode == 0,
                 "down %.1f s %s" % (delay, p.stdout.strip()))

    def do_sighup(self, _):
        tok = self.begin("sighup", [])
        with self.w.lock:
            pid = self.w.daemon_pid
        ok = procview.alive(pid)
        if ok:
            os.kill(pid, signal.SIGHUP)
        self.end(tok, "sighup", [], ok, "pid %s" % pid)

    # ---- the run --------------------------------------------------------

    def boot_pool(self):
        for d in self.w.doms:
            self.do_start(d)

    def run(self, seconds):
        self.t_start = time.monotonic()
        self.deadline = self.t_start + seconds
        self.plan_forced(seconds)
        while time.monotonic() < self.deadline:
            self.step()
            time.sleep(self.rng.uniform(0.1, 1.0))


def libvirtd_pid():
    """libvirtd's pid (its pid file, else the process of that name whose
    root is ours), or None."""
    try:
        with open("/run/libvirtd.pid") as f:
            pid = int(f.read().strip())
        with open("/proc/%d/comm" % pid) as f:
            if f.read().strip() == "libvirtd":
                return pid
    except (OSError, ValueError):
        pass
    p = subprocess.run(["pgrep", "-x", "libvirtd"], stdout=subprocess.PIPE,
                       text=True)
    for s in p.stdout.split():
        if os.path.samefile("/proc/%s/root" % s, "/"):
            return int(s)
    return None


def ensure_libvirt():
    p = subprocess.run(["sh", LIBVIRT_UP], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    return p.returncode == 0, p.stdout.strip()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--self-check", action="store_true",
                    help="before the chaos, inject two faults with the "
                    "daemon stopped and require the checker to see them "
                    "(selfcheck.py)")
    args = ap.parse_args(argv)
    seed = args.seed
    if seed is None:
        seed = random.SystemRandom().randrange(1, 1 << 31)
    print("soak: seed=%d seconds=%g (replay the schedule with "
          "SOAK_SEED=%d)" % (seed, args.seconds, seed), flush=True)
    build = os.path.abspath(args.build)
    daemon_bin = os.path.join(build, "vcpuplaced")
    ctl = os.path.join(build, "vcpuplacectl")
    outdir = os.path.abspath(args.out or os.path.join(build, "soak"))
    os.makedirs(outdir, exist_ok=True)
    for f in os.listdir(outdir):
        if f.startswith("daemon.") or f.endswith(".log"):
            os.unlink(os.path.join(outdir, f))

    def on_term(signum, frame):
        print("soak: signal %d" % signum, flush=True)
        raise KeyboardInterrupt
    signal.signal(signal.SIGINT, on_term)
    signal.signal(signal.SIGTERM, on_term)

    ok, out = ensure_libvirt()
    if not ok:
        print("soak: libvirt-up.sh failed: %s" % out)
        return 2
    guest = os.environ.get("VP_GUEST_DIR") or os.path.join(
        ROOT, "build", "integration-guest")
    p = subprocess.run(["sh", os.path.join(ROOT, "tests", "integration",
                                           "guest", "build.sh"), guest],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=300)
    if p.returncode != 0:
        print("soak: guest build failed: %s" % p.stdout)
        return 2
    gone = pool.cleanup()
    if gone:
        print("soak: removed leftover domains %s" % " ".join(gone))
    rundir = scratch.mkdtemp("vpsoak-run-")
    guestdir = vmlib.guest_copy(guest, rundir)
    online = procview.online_cpus()
    topo = vmlib.load_topology(ctl)
    if not topo:
        print("soak: %s topology --json failed" % ctl)
        return 2
    groups = pool.locality_groups(topo, online)
    localities = pool.profile_localities(os.path.join(ROOT, "policies"))

    sup = ctlload = chk = None
    world = None
    failed_setup = None
    try:
        doms = pool.build(guestdir, rundir)
        world = World(doms, online, groups, localities)
        log = ActionLog(os.path.join(outdir, "actions.log"), world.t0)
        log.write("seed %d seconds %g rundir %s" % (seed, args.seconds,
                                                   rundir))
        sock = os.path.join(outdir, "vcpuplaced.sock")
        argv_d = [daemon_bin, "--connect", vmlib.URI, "--foreground",
                  "--tick", str(TICK_MS), "--policies",
                  os.path.join(ROOT, "policies"), "--status-file",
                  os.path.join(outdir, "status.json"), "--socket", sock,
                  "--trust-metadata"]     # its VMs' metadata asks dedicated
        sup = Supervisor(world, argv_d, outdir, log)
        sup.start()
        chk = checker.Checker(world, os.path.join(outdir, "checker.log"))
        chk.start()
        rng = random.Random(seed)
        sched = Schedule(world, rng, log, sup, rundir)
        sched.deadline = time.monotonic() + args.seconds
        t_boot = time.monotonic()
        sched.boot_pool()
        print("soak: pool of %d booted in %.1f s; chaos for %g s" % (
            len(doms), time.monotonic() - t_boot, args.seconds), flush=True)
        if args.self_check:
            ok, lines = selfcheck.run(world, chk)
            for line in lines:
                print("soak: self-check: " + line, flush=True)
                log.write("self-check: " + line)
            if not ok:
                raise RuntimeError("self-check: the checker missed an "
                                   "injected fault")
        ctlload = CtlLoad(world, ctl, sock, seed, log)
        ctlload.start()
        t_chaos = time.monotonic()
        sched.run(args.seconds)
        t_end = time.monotonic()
    except KeyboardInterrupt:
        failed_setup = "interrupted"
    except Exception as e:
        failed_setup = "%s: %s" % (type(e).__name__, e)
        import traceback
        traceback.print_exc()
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if world:
            world.stop.set()
        for t in (ctlload, chk):
            if t:
                t.join(60)
        rc_d = sup.stop_daemon() if sup else None
        if world and world.libvirt_down or not libvirtd_pid():
            ensure_libvirt()
        # twice: a virsh start/create cut short by a signal may still
        # bring its domain up after the first listing
        for _ in range(2):
            try:
                pool.cleanup()
            except vmlib.VirshError as e:
                print("soak: cleanup: %s" % e)
            time.sleep(2)
        left = [n for n in vmlib.list_domains() if n.startswith(pool.PREFIX)]
        if left:
            print("soak: cleanup left %s" % " ".join(left))
    if failed_setup:
        print("soak: stopped: %s (logs in %s, VMs in %s)" % (
            failed_setup, outdir, rundir))
        return 130 if failed_setup == "interrupted" else 2
    return report(seed, sched, sup, chk, ctlload, rc_d, t_chaos, t_end,
                  outdir, rundir)


def report(seed, sched, sup, chk, ctlload, rc_d, t_chaos, t_end, outdir,
           rundir):
    fails = []
    acts = " ".join("%s=%d/%d" % (a, c[0], c[0] + c[1])
                    for a, c in sorted(sched.counts.items()))
    print("soak: actions ok/all: %s" % acts)
    # a hot-plugged vCPU counts like a start: the daemon hears it from
    # the proc connector (hotplug.c), not at its 10 s refresh
    lat = [ms for k, ms, counted in sched.latency if counted]
    for kind in ("start", "restore", "resume", "setvcpus"):
        xs = [ms for k, ms, c in sched.latency if k == kind and c]
        if xs:
            print("soak: placed after %-8s n=%3d p50=%.0f p99=%.0f max=%.0f"
                  " ms" % (kind, len(xs), percentile(xs, 50),
                           percentile(xs, 99), max(xs)))
    if sched.nothing_to_do:
        print("soak: placed already when virsh returned (not timed): %s" % (
            " ".join("%s=%d" % kv for kv in sorted(
                sched.nothing_to_do.items()))))
    excl = [ms for _, ms, counted in sched.latency if not counted]
    if excl:
        print("soak: placed within a restart's grace (not in p99): n=%d "
              "max=%.0f ms" % (len(excl), max(excl)))
    p99 = percentile(lat, 99)
    if p99 is not None and p99 > P99_BOUND_MS:
        fails.append("placed_p99_ms %.0f > %d" % (p99, P99_BOUND_MS))
    if sched.unplaced_watch:
        fails.append("%d VMs not placed within %.0f s of the action" % (
            sched.unplaced_watch, WATCH_S))
    if sched.forced:
        missing = [a for a in FAULTS if a not in sched.done]
        never = [a for a, _ in WEIGHTS if a not in sched.done]
        print("soak: action kinds never run: %s" % (
            " ".join(never) or "none"))
        if missing:
            fails.append("faults never injected: %s" % " ".join(missing))
    print("soak: checker samples=%d compared=%d skipped=%d bad=%d %s" % (
        chk.samples, chk.compared, chk.skipped, chk.bad,
        " ".join("%s=%d" % kv for kv in sorted(chk.bad_by_rule.items()))))
    for line in chk.first_bad:
        print("soak:   " + line)
    if chk.bad:
        fails.append("bad_affinity_samples %d" % chk.bad)
    if chk.compared == 0:
        fails.append("the checker compared nothing")
    fd, rss, n2, n3 = checker.growth(chk.daemon_samples, t_chaos, t_end,
                                     sup.proc.pid)
    # over less than 10 min after warm-up, one step of the allocator's
    # high-water mark reads as megabytes an hour: not worth printing
    slope = None
    if (t_end - t_chaos) * 2 / 3 >= 600:
        slope = checker.rss_slope(chk.daemon_samples, t_chaos, t_end,
                                  sup.proc.pid)
    checker.write_samples(os.path.join(outdir, "daemon_samples.tsv"),
                          chk.daemon_samples, t_chaos)
    print("soak: daemon clean samples second third %d, last third %d; "
          "fds %s; rss KiB %s; rss slope after warm-up %s" % (
              n2, n3, describe(chk.daemon_samples, 2, sup.proc.pid),
              describe(chk.daemon_samples, 3, sup.proc.pid),
              "not taken (run too short)" if slope is None else
              "%.0f KiB/h" % slope))
    if fd is None:
        fails.append("too few clean daemon samples to judge leaks")
        fd, rss = 0, 0
    fd_growth = max(0, int(round(fd)))
    rss_growth = max(0, int(round(rss)))
    if fd_growth > 0:
        fails.append("fd_growth %d" % fd_growth)
    if rss_growth > RSS_BOUND_KIB:
        fails.append("rss_growth_kib %d > %d" % (rss_growth, RSS_BOUND_KIB))
    if sup.crashes:
        fails.append("daemon_crashes %d" % len(sup.crashes))
        for pid, rc, path in sup.crashes:
            print("soak: daemon pid %d died rc %s, stderr %s:" % (pid, rc,
                                                                 path))
            with open(path, errors="replace") as f:
                for l in f.read().splitlines()[-10:]:
                    print("soak:   " + l)
    if rc_d not in (0, None):
        fails.append("daemon exited %s on SIGTERM" % rc_d)
    print("soak: ctl requests=%d errors=%d" % (ctlload.requests,
                                               len(ctlload.errors)))
    for e in ctlload.errors[:5]:
        print("soak:   ctl " + e)
    if fails:
        print("soak: FAILED: %s (logs in %s)" % ("; ".join(fails), outdir))
    else:
        shutil.rmtree(rundir, ignore_errors=True)
    print("soak: seed=%d actions=%d libvirtd_kills=%d daemon_crashes=%d "
          "bad_affinity_samples=%d fd_growth=%d rss_growth_kib=%d "
          "placed_p99_ms=%s" % (
              seed, sched.n, sched.libvirtd_kills, len(sup.crashes), chk.bad,
              fd_growth, rss_growth, "-" if p99 is None else "%.0f" % p99))
    return 1 if fails else 0


def describe(samples, i, pid):
    xs = [s[i] for s in samples if s[1] == pid and s[4]]
    if not xs:
        return "-"
    return "min %d median %g max %d" % (min(xs), checker.median(xs), max(xs))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
