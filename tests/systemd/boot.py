#!/usr/bin/env python3
"""vcpuplaced under a real systemd: the package installed in a Debian root
(12 or 13, the release the package was built for) booted with systemd as
PID 1 (nspawn.py), with libvirtd and a real TCG guest inside.

    boot.py ROOT DEB GUESTDIR

ROOT is boot-root.sh's cached root, DEB `make deb`'s package, GUESTDIR
the integration tests' guest
(tests/integration/guest/build.sh).  The steps share one container and
run in order; a step that fails stops the ones after it.  Prints
PASS/FAIL per step, then `systemd-boot: N passed, N failed`.

No verdict depends on how fast the machine is.  Waits have a generous
deadline whose expiry is a failure; "active only after READY=1" is
checked while libvirtd is frozen (SIGSTOP), so the daemon cannot finish
its first tick, whatever the timing; the watchdog step waits for
systemd's own record of the restart.
"""
import json
import os
import re
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
sys.path.insert(0, os.path.join(HERE, "..", "socket"))
import nspawn  # noqa: E402
import vmlib  # noqa: E402
# the socket suite's verdicts: Fail, check(), wait_for(what, probe, timeout)
from run import Fail, check, wait_for  # noqa: E402

UNIT = "vcpuplaced.service"
SOCKET = "/run/vcpuplace/vcpuplaced.sock"
SHARE = "/mnt/vp"                   # the package and the guest, read only
CONSOLES = "/var/lib/vptest"        # made 0777 by boot-root.sh
WAIT_S = 120                        # deadline of every wait: only a hang
MAX_EXPOSURE = 2.4                  # systemd-analyze security, at most
MEMBER, OUTSIDER = "vpmember", "vpoutsider"
PROFILE = "/etc/vcpuplace/policies/latency.xml"
ADMIN_EDIT = "<!-- edited by the admin: must survive apt remove -->\n"
DEFAULTS = "/etc/default/vcpuplaced"


class Ctx:
    def __init__(self, c, deb):
        self.c = c
        self.deb = deb
        self.vms = []

    def main_pid(self):
        return int(self.c.show(UNIT, "MainPID")["MainPID"])

    def cursor(self):
        """The journal's current end, to read only what comes after."""
        out = self.c.out("journalctl", "-n", "0", "--show-cursor",
                         "--no-pager")
        return out.split("cursor: ", 1)[1].strip()

    def journal_since(self, cursor, *args):
        return self.c.out("journalctl", "--after-cursor", cursor,
                          "--no-pager", "-o", "cat", *args)

    def status(self, user=MEMBER):
        r = self.c.run("vcpuplacectl", "status", "--json", user=user)
        return json.loads(r.stdout)

    def metrics(self):
        text = self.c.out("vcpuplacectl", "metrics", user=MEMBER)
        out = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                k, v = line.rsplit(" ", 1)
                out[k] = float(v)
        return out

    def libvirtd_pid(self):
        pid = int(self.c.show("libvirtd.service", "MainPID")["MainPID"])
        check(pid > 0, "libvirtd is not running in the container")
        return pid

    def start_vm(self, tag, vcpus, profile):
        name = vmlib.PREFIX + tag
        console = "%s/%s.console" % (CONSOLES, name)
        xml = vmlib.domain_xml(name, vcpus, SHARE + "/vmlinuz",
                               SHARE + "/initramfs.gz", console,
                               metadata=vmlib.policy_xml(profile))
        self.c.run("virsh", "-q", "-c", vmlib.URI, "create", "/dev/stdin",
                   input=xml)
        wait_for("%s's guest prints %r" % (name, vmlib.READY),
                 lambda: vmlib.READY in self.c.read(console), timeout=WAIT_S)
        self.vms.append((name, vcpus))
        return name

    def vcpupin(self, name):
        out = self.c.out("virsh", "-q", "-c", vmlib.URI, "vcpupin", name,
                         "--live")
        return {int(v.rstrip(":")): vmlib.parse_cpulist(cpus)
                for v, cpus in (line.split() for line in out.splitlines())}

    def thread_affinity(self, name, vcpu):
        """The kernel's view: Cpus_allowed_list of QEMU's "CPU n/TCG"."""
        pid = self.c.read("/run/libvirt/qemu/%s.pid" % name).strip()
        check(pid, "no pid file for %s" % name)
        for tid in os.listdir(self.c.path("/proc/%s/task" % pid)):
            base = "/proc/%s/task/%s/" % (pid, tid)
            if self.c.read(base + "comm").strip() == "CPU %d/TCG" % vcpu:
                m = re.search(r"^Cpus_allowed_list:\s*(\S+)$",
                              self.c.read(base + "status"), re.M)
                return vmlib.parse_cpulist(m.group(1))
        raise Fail("%s has no thread CPU %d/TCG" % (name, vcpu))


def step_boot_state(ctx):
    """The root booted to a running systemd with libvirtd up (done by
    main(); this step reports what it saw)."""
    check(ctx.boot_state == "running", "is-system-running says %r; failed "
          "units: %s" % (ctx.boot_state, ctx.c.out(
              "systemctl", "--failed", "--no-legend", check=False)))
    check(ctx.c.out("systemctl", "is-active", "libvirtd") == "active",
          "libvirtd is not active")
    ctx.online = vmlib.parse_cpulist(ctx.c.read(
        "/sys/devices/system/cpu/online"))


def step_install(ctx):
    """`apt install ./vcpuplace_*.deb` with a guest already running:
    debhelper's scripts create the group, the socket's folder, enable and
    start the service; it is active, its socket is group vcpuplace's."""
    ctx.vm1 = ctx.start_vm("sd-a", 1, "latency")
    before = ctx.vcpupin(ctx.vm1)
    check(before[0] == ctx.online, "before the daemon, vCPU 0 of %s is "
          "pinned to %s, not to every CPU" % (ctx.vm1, sorted(before[0])))
    r = ctx.c.run("apt-get", "install", "-y", "-q", "--no-install-recommends",
                  "%s/%s" % (SHARE, os.path.basename(ctx.deb)), check=False)
    check(r.returncode == 0, "apt install failed: %s %s" % (
        r.stdout[-2000:], r.stderr[-2000:]))
    check(re.match(r"vcpuplace:x:\d+:", ctx.c.out("getent", "group",
                                                  "vcpuplace")),
          "no group vcpuplace after install")
    check(ctx.c.out("systemctl", "is-enabled", UNIT) == "enabled",
          "%s is not enabled by the install" % UNIT)
    check(ctx.c.out("systemctl", "is-active", UNIT, check=False) == "active",
          "%s is not active after the install" % UNIT)
    st = ctx.c.out("stat", "-c", "%a %U %G", SOCKET)
    check(st == "660 root vcpuplace", "socket is %s, not 660 root vcpuplace"
          % st)
    ctx.c.run("useradd", "-G", "vcpuplace", MEMBER)
    ctx.c.run("useradd", OUTSIDER)


def step_ready_after_first_tick(ctx):
    """systemd calls the unit active only once the daemon said READY=1,
    which it does after its first tick.  With libvirtd frozen the first
    tick cannot end (virConnectOpen waits for an answer): the unit stays
    activating, with the daemon running; it turns active after libvirtd
    is let go, and systemd's ActiveEnterTimestamp follows that moment.
    The same probe on a Type=simple copy of the unit says active at once,
    so it can tell the two apart."""
    def frozen_start(dropin):
        ctx.c.run("systemctl", "stop", UNIT)
        dropdir = "/run/systemd/system/%s.d" % UNIT
        if dropin:
            ctx.c.run("mkdir", "-p", dropdir)
            ctx.c.run("sh", "-c", "cat > %s/test.conf" % dropdir,
                      input="[Service]\n" + dropin)
        else:
            ctx.c.run("rm", "-rf", dropdir)
        ctx.c.run("systemctl", "daemon-reload")
        lv = ctx.libvirtd_pid()
        cursor = ctx.cursor()
        ctx.c.run("kill", "-STOP", str(lv))
        try:
            ctx.c.run("systemctl", "start", "--no-block", UNIT)
            pid = wait_for("the daemon started", ctx.main_pid)
            # past setup(): the socket is bound, the first tick begins
            wait_for("the daemon's start-up line", lambda: "socket " + SOCKET
                     in ctx.journal_since(cursor, "-u", UNIT))
            wait_for("the daemon waits (state S)", lambda: ctx.c.read(
                "/proc/%d/stat" % pid).rsplit(")", 1)[1].split()[0] == "S")
            state = ctx.c.out("systemctl", "is-active", UNIT, check=False)
            t_cont = time.monotonic()
        finally:
            ctx.c.run("kill", "-CONT", str(lv))
        return pid, state, t_cont

    _, state, _ = frozen_start("Type=simple\n")
    check(state == "active", "the probe cannot fail: a Type=simple copy "
          "is %r, not active, while libvirtd is frozen" % state)
    pid, state, t_cont = frozen_start(None)
    check(state == "activating", "%s is %r while the daemon's first tick "
          "waits for libvirtd (READY=1 too early)" % (UNIT, state))
    wait_for("%s active once libvirtd answers" % UNIT,
             lambda: ctx.c.out("systemctl", "is-active", UNIT,
                               check=False) == "active")
    p = ctx.c.show(UNIT, "ActiveEnterTimestampMonotonic", "MainPID")
    check(int(p["MainPID"]) == pid, "the daemon was restarted meanwhile")
    # CLOCK_MONOTONIC is the host's inside the container (no time namespace)
    check(int(p["ActiveEnterTimestampMonotonic"]) > t_cont * 1e6,
          "active at %s us, before libvirtd was let go at %d us" % (
              p["ActiveEnterTimestampMonotonic"], t_cont * 1e6))


def status_text_counts(ctx):
    text = ctx.c.show(UNIT, "StatusText")["StatusText"]
    m = re.match(r"(\d+) VMs, (\d+) vCPUs; libvirt connected$", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def step_status_text(ctx):
    """StatusText (systemctl status's Status: line) counts the VMs and
    vCPUs; a second guest is counted within the daemon's 10 s refresh."""
    check(status_text_counts(ctx) == (1, 1), "StatusText is %r, not 1 VM "
          "and 1 vCPU" % ctx.c.show(UNIT, "StatusText")["StatusText"])
    ctx.vm2 = ctx.start_vm("sd-b", 2, "balanced")
    wait_for("StatusText counts 2 VMs and 3 vCPUs",
             lambda: status_text_counts(ctx) == (2, 3))


def step_hardening_allows(ctx):
    """Under the unit's hardening (checked to be in force: no
    CAP_DAC_*, CAP_CHOWN or CAP_FOWNER, no capability held at all after
    start-up, no_new_privs, a seccomp filter) the daemon reads
    schedstat, pins through libvirt (the plan's sets; narrower than every
    CPU once step_host_options reserves one), and serves its socket to
    group vcpuplace only."""
    pid = ctx.main_pid()
    st = ctx.c.read("/proc/%d/status" % pid)
    fields = dict(re.findall(r"^(\w+):\s*(.*)$", st, re.M))
    check(fields.get("NoNewPrivs") == "1", "no_new_privs is not set")
    check(fields.get("Seccomp") == "2", "no seccomp filter")
    # systemd's, and the daemon's own that takes bpf() away (no sched_ext
    # here); Seccomp_filters is in Linux 5.9 and later
    check(int(fields.get("Seccomp_filters", "2")) >= 2, "Seccomp_filters "
          "%s: the daemon added no filter of its own" % fields.get(
              "Seccomp_filters"))
    bnd = int(fields["CapBnd"], 16)
    for bit, name in ((0, "CAP_CHOWN"), (1, "CAP_DAC_OVERRIDE"),
                      (2, "CAP_DAC_READ_SEARCH"), (3, "CAP_FOWNER")):
        check(not bnd & (1 << bit), "%s is in the bounding set" % name)
    # nspawn's kernel here has neither sched_ext nor core scheduling: the
    # daemon holds nothing once started, on every thread (libvirt's
    # event thread too), and says so in its status
    for tid in ctx.c.out("ls", "/proc/%d/task" % pid).split():
        t = dict(re.findall(r"^(\w+):\s*(.*)$", ctx.c.read(
            "/proc/%d/task/%s/status" % (pid, tid)), re.M))
        check(int(t["CapEff"], 16) == 0 and int(t["CapPrm"], 16) == 0,
              "thread %s of the daemon holds CapEff %s CapPrm %s" % (
                  tid, t["CapEff"], t["CapPrm"]))
    caps = ctx.status()["capabilities"]
    check(caps == {"held": 0, "names": [], "bpf_denied": True},
          "status says capabilities %r" % (caps,))

    def moves():
        return sum(v for k, v in ctx.metrics().items()
                   if k.startswith("vcpuplace_moves_total"))

    def snapshot():
        """The daemon's view and libvirt's and the kernel's, taken while
        the daemon applied no pin: its loop serves the socket between
        ticks, so a pin counted in neither moves figure was not under way
        in between.  A snapshot a move fell into is not judged (the
        daemon re-pins as the guests' load changes); the next one is."""
        before = moves()
        s = ctx.status()
        have = {v["name"]: len(v["vcpus"]) for v in s["vms"]}
        if have != dict(ctx.vms):
            return None
        seen = {vm["name"]: (ctx.vcpupin(vm["name"]),
                             {v["vcpu"]: ctx.thread_affinity(vm["name"],
                                                             v["vcpu"])
                              for v in vm["vcpus"]})
                for vm in s["vms"]}
        return (s, seen) if moves() == before else None
    s, seen = wait_for("both guests' vCPUs in the status, no pin under "
                       "way", snapshot)
    for vm in s["vms"]:
        pins, threads = seen[vm["name"]]
        for v in vm["vcpus"]:
            allowed = vmlib.parse_cpulist(v["allowed"])
            check(allowed and allowed <= ctx.online,
                  "%s/%d allowed %r" % (vm["name"], v["vcpu"], v["allowed"]))
            check(pins[v["vcpu"]] == allowed, "%s/%d: libvirt pins %s, the "
                  "daemon planned %s" % (vm["name"], v["vcpu"],
                                         sorted(pins[v["vcpu"]]),
                                         sorted(allowed)))
            check(threads[v["vcpu"]] == allowed,
                  "%s/%d: the thread's affinity is not the plan's"
                  % (vm["name"], v["vcpu"]))
    # the latency guest's cluster is one core here (a host without
    # clusters): no locality, so its set spans more than that core.  On
    # a host this small that is every CPU, the set libvirt starts with:
    # pins narrower than that are step_host_options' to prove.
    check(len(seen[ctx.vm1][0][0]) > 1, "%s confined to %s, one core"
          % (ctx.vm1, sorted(seen[ctx.vm1][0][0])))
    m = ctx.metrics()
    check(m.get("vcpuplace_pins_failed_total") == 0, "pins failed")
    check(m.get("vcpuplace_vcpu_thread_errors_total") == 0,
          "vCPU thread errors")
    wait_key = 'vcpuplace_vcpu_wait_seconds_total{vm="%s",vcpu="0"}' % ctx.vm1
    check(wait_key in m, "no schedstat figure for %s" % ctx.vm1)
    wait_for("schedstat's run-queue wait of %s above 0" % ctx.vm1,
             lambda: ctx.metrics().get(wait_key, 0) > 0)
    r = ctx.c.run("vcpuplacectl", "status", user=OUTSIDER, check=False)
    check(r.returncode != 0 and "permission denied" in r.stderr,
          "a user outside group vcpuplace: exit %d, %r" % (r.returncode,
                                                          r.stderr))
    check(not ctx.c.out("journalctl", "-u", UNIT, "-p", "err", "-o", "cat",
                        "--no-pager"),
          "errors in the journal: %s" % ctx.c.out(
              "journalctl", "-u", UNIT, "-p", "err", "--no-pager"))


def step_reload(ctx):
    """`systemctl reload` sends SIGHUP; the daemon answers RELOADING=1,
    rereads, then READY=1, and systemd goes reload -> running with the
    same process.  Read from systemd's own debug log."""
    pid = ctx.main_pid()
    before = ctx.metrics()["vcpuplace_reloads_total"]
    ctx.c.run("systemd-analyze", "log-level", "debug")
    cursor = ctx.cursor()
    try:
        ctx.c.run("systemctl", "reload", UNIT)
    finally:
        ctx.c.run("systemd-analyze", "log-level", "info")
    log = ctx.journal_since(cursor, "-u", UNIT)
    # the daemon's own line reaches the journal through its stdout, not
    # in order with systemd's: only systemd's lines are held to an order
    check("reloaded policies" in log, "the daemon did not log the "
          "reload:\n%s" % log[-3000:])
    # systemd 252 (Debian 12) logs "from PID 7 (READY=1)", 257 (Debian
    # 13) "from PID 7: READY=1".  257 has a state reload-notify too:
    # when kill(1) exits before READY=1 comes, it goes reload ->
    # reload-notify -> running; when after, reload -> running.
    note = r"Got notification message from PID %d(?: \(|: )%s\)?$"
    want = [note % (pid, "RELOADING=1"), note % (pid, "READY=1"),
            r"Changed reload(?:-notify)? -> running$"]
    at = -1
    for w in want:
        m = re.compile(w, re.M).search(log, at + 1)
        check(m, "no %r after the reload's earlier steps in:\n%s"
              % (w, log[-3000:]))
        at = m.start()
    check(ctx.main_pid() == pid, "the reload restarted the daemon")
    m = ctx.metrics()
    check(m["vcpuplace_reloads_total"] == before + 1, "reloads_total %s, "
          "was %s" % (m["vcpuplace_reloads_total"], before))
    check(m["vcpuplace_reload_errors_total"] == 0, "reload errors")


def step_watchdog(ctx):
    """A daemon stopped with SIGSTOP sends no WATCHDOG=1: systemd kills it
    after WatchdogSec= (result 'watchdog') and Restart= starts a new one,
    which becomes ready and keeps the guests placed."""
    pid = ctx.main_pid()
    n0 = int(ctx.c.show(UNIT, "NRestarts")["NRestarts"])
    cursor = ctx.cursor()
    ctx.c.run("kill", "-STOP", str(pid))
    def restarted():
        p = ctx.c.show(UNIT, "MainPID", "ActiveState")
        return p["ActiveState"] == "active" and \
            int(p["MainPID"]) not in (0, pid)
    wait_for("a new daemon after the watchdog", restarted, timeout=WAIT_S)
    log = ctx.journal_since(cursor, "-u", UNIT)
    check("Failed with result 'watchdog'" in log,
          "no watchdog kill in the journal:\n%s" % log[-3000:])
    check(int(ctx.c.show(UNIT, "NRestarts")["NRestarts"]) == n0 + 1,
          "NRestarts did not go up by one")
    wait_for("the new daemon sees both guests",
             lambda: status_text_counts(ctx) == (2, 3))
    for name, n in ctx.vms:
        for v, cpus in ctx.vcpupin(name).items():
            check(cpus and cpus <= ctx.online, "%s/%d pinned to %s after "
                  "the restart" % (name, v, sorted(cpus)))


def step_security(ctx):
    """systemd-analyze security rates the running unit no worse than the
    2.4 the unit was hardened to (2.7 before the capability review),
    under Debian 12's systemd 252 and Debian 13's 257 alike."""
    out = ctx.c.out("systemd-analyze", "security", UNIT, "--no-pager")
    m = re.search(r"Overall exposure level for %s: (\d+\.\d+)" % UNIT, out)
    check(m, "no exposure level in:\n%s" % out[-1000:])
    print("  systemd-analyze security: %s" % m.group(1))
    check(float(m.group(1)) <= MAX_EXPOSURE, "exposure %s > %s" % (
        m.group(1), MAX_EXPOSURE))


def step_host_options(ctx):
    """The host options file, a commented template in the package, feeds
    ExecStart=: --reserve 0 set there keeps every vCPU off CPU 0 after a
    restart (not a reload: options are read at start)."""
    def off_cpu0():
        s = ctx.status()
        return all(0 not in vmlib.parse_cpulist(v["allowed"])
                   for vm in s["vms"] for v in vm["vcpus"]) and \
            all(0 not in cpus for name, _ in ctx.vms
                for cpus in ctx.vcpupin(name).values())
    # or the step would prove nothing
    check(not off_cpu0(), "every vCPU is off CPU 0 before --reserve 0")
    text = ctx.c.read(DEFAULTS)
    check(re.search(r'^VCPUPLACED_OPTS=""$', text, re.M),
          "%s is not the package's template:\n%s" % (DEFAULTS, text))
    ctx.c.run("sh", "-c", "cat > " + DEFAULTS,
              input='VCPUPLACED_OPTS="--reserve 0"\n')
    ctx.c.run("systemctl", "restart", UNIT)
    cmdline = ctx.c.read("/proc/%d/cmdline" % ctx.main_pid()).split("\0")
    check(cmdline[1:3] == ["--reserve", "0"], "the daemon runs as %r"
          % cmdline)
    wait_for("every vCPU off the reserved CPU 0", off_cpu0)


def step_remove_keeps_edits(ctx):
    """`apt remove` stops the service and keeps the admin's edited
    profile and host options (conffiles); `apt purge` removes them."""
    ctx.c.run("sh", "-c", "cat >> " + PROFILE, input=ADMIN_EDIT)
    ctx.c.run("apt-get", "remove", "-y", "-q", "vcpuplace")
    check(ctx.c.out("systemctl", "is-active", UNIT, check=False) !=
          "active", "%s still active after apt remove" % UNIT)
    check(not os.path.exists(ctx.c.path("/usr/sbin/vcpuplaced")),
          "the daemon's binary is still installed")
    check(ADMIN_EDIT in ctx.c.read(PROFILE), "the admin's edit of %s is "
          "gone after apt remove" % PROFILE)
    check("--reserve 0" in ctx.c.read(DEFAULTS), "the admin's %s is gone "
          "after apt remove" % DEFAULTS)
    ctx.c.run("apt-get", "purge", "-y", "-q", "vcpuplace")
    for f in (PROFILE, DEFAULTS):
        check(not os.path.exists(ctx.c.path(f)),
              "%s is left after apt purge" % f)


STEPS = [step_boot_state, step_install, step_ready_after_first_tick,
         step_status_text, step_hardening_allows, step_reload, step_watchdog,
         step_security, step_host_options, step_remove_keeps_edits]


def share_dir(deb, guestdir):
    """The package and the guest in one 0755 folder: QEMU (as libvirt-qemu
    inside) must reach the guest, whatever the checkout sits under."""
    d = tempfile.mkdtemp(prefix="vpboot-")
    os.chmod(d, 0o755)
    for src in [deb] + [os.path.join(guestdir, f) for f in vmlib.GUEST_FILES]:
        dst = os.path.join(d, os.path.basename(src))
        shutil.copyfile(src, dst)
        os.chmod(dst, 0o644)
    return d


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: boot.py ROOT DEB GUESTDIR")
    root, deb, guestdir = sys.argv[1:]
    share = share_dir(deb, guestdir)
    c = nspawn.Container(root, {share: SHARE},
                         os.path.join(share, "console.log"),
                         "vptest-%d" % os.getpid())
    ctx = Ctx(c, deb)
    passed = failed = 0
    try:
        ctx.boot_state = c.boot(WAIT_S)
        for step in STEPS:
            t0 = time.monotonic()
            try:
                step(ctx)
            except (Fail, nspawn.ContainerError, KeyError, ValueError) as e:
                failed += 1
                print("FAIL %s: %s" % (step.__name__, e))
                print("  the steps after it need its state: stopping here")
                break
            passed += 1
            print("PASS %s (%.1fs)" % (step.__name__, time.monotonic() - t0))
    except nspawn.ContainerError as e:
        failed += 1
        print("FAIL boot: %s\nconsole:\n%s" % (e, c.console()))
    finally:
        # the guests first: on shutdown libvirt-guests would wait minutes
        # for their (busybox) kernels to answer ACPI
        for name, _ in ctx.vms:
            try:
                c.run("virsh", "-q", "-c", vmlib.URI, "destroy", name,
                      check=False)
            except nspawn.ContainerError:
                pass
        c.stop()
        shutil.rmtree(share, ignore_errors=True)
    print("systemd-boot: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
