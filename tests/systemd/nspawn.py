"""A Debian root booted with systemd as PID 1 in systemd-nspawn, for the
real-systemd test (boot.py).  Python 3 standard library only.

The host's PID 1 need not be systemd: nspawn runs with --register=no and
--keep-unit (no machined or scope to register with), after a tmpfs is
mounted on /run/systemd/nspawn, where it keeps its runtime files;
`script` gives it the terminal it insists on for the console.  The root
is booted --volatile=overlay, so the cached tree stays pristine.

Commands run inside through nsenter(1) into all of the container's
namespaces, with a clean environment; files inside are read through
/proc/LEADER/root.
"""
import os
import shlex
import signal
import subprocess
import time

NSPAWN_RUN = "/run/systemd/nspawn"
ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
       "DEBIAN_FRONTEND": "noninteractive", "SYSTEMD_PAGER": "",
       "SYSTEMD_COLORS": "0"}


class ContainerError(RuntimeError):
    pass


def _children(pid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        # the command may hold spaces and parentheses: ppid follows the last ')'
        if int(st.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(d))
    return out


def _comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


class Container:
    def __init__(self, root, binds, console_log, name):
        self.root = root
        self.binds = binds          # {host folder: folder inside}, read only
        self.console_log = console_log
        self.name = name
        self.proc = None
        self.leader = None
        self.mounted_run = False

    def _nspawn_pid(self):
        """systemd-nspawn's PID, below script and its shell; None while
        it is not started yet or after it exited."""
        todo = [self.proc.pid]
        while todo:
            pid = todo.pop()
            if _comm(pid) == "systemd-nspawn":
                return pid
            todo.extend(_children(pid))
        return None

    def _find_leader(self):
        """The container's PID 1 (host PID): systemd-nspawn's child."""
        nspawn = self._nspawn_pid()
        kids = _children(nspawn) if nspawn else []
        return kids[0] if kids else None

    def boot(self, timeout):
        os.makedirs(NSPAWN_RUN, exist_ok=True)
        if subprocess.run(["mountpoint", "-q", NSPAWN_RUN]).returncode != 0:
            subprocess.run(["mount", "-t", "tmpfs", "tmpfs", NSPAWN_RUN],
                           check=True)
            self.mounted_run = True
        cmd = ["systemd-nspawn", "--boot", "--register=no", "--keep-unit",
               "--volatile=overlay", "--directory=" + self.root,
               "--machine=" + self.name]
        cmd += ["--bind-ro=%s:%s" % kv for kv in self.binds.items()]
        self.proc = subprocess.Popen(
            ["script", "-qfec", shlex.join(cmd), self.console_log],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        end = time.monotonic() + timeout
        while self.leader is None or _comm(self.leader) != "systemd":
            if self.proc.poll() is not None:
                raise ContainerError("systemd-nspawn exited %d; console:\n%s"
                                     % (self.proc.returncode, self.console()))
            if time.monotonic() > end:
                raise ContainerError("no systemd in the container within %ds"
                                     % timeout)
            time.sleep(0.1)
            self.leader = self._find_leader()
        # --wait: until the boot job queue is empty, then the state; it
        # fails outright while systemd's private socket is not up yet
        while True:
            r = self.run("systemctl", "is-system-running", "--wait",
                         check=False, timeout=timeout)
            state = r.stdout.strip()
            if state not in ("", "offline", "unknown"):
                return state
            if time.monotonic() > end:
                raise ContainerError("systemd does not answer: %s" %
                                     r.stderr.strip())
            time.sleep(0.2)

    def console(self):
        try:
            with open(self.console_log, errors="replace") as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    def run(self, *cmd, check=True, timeout=120, input=None, user=None):
        """Runs CMD inside (as @user through runuser if given)."""
        if user is not None:
            cmd = ("runuser", "-u", user, "--") + cmd
        argv = ["nsenter", "--target", str(self.leader), "--all", "--"]
        argv += list(cmd)
        try:
            r = subprocess.run(argv, env=ENV, input=input, text=True,
                               capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ContainerError("timeout after %ds: %s" % (timeout,
                                                            " ".join(cmd)))
        if check and r.returncode != 0:
            raise ContainerError("%s: exit %d: %s%s" % (
                " ".join(cmd), r.returncode, r.stdout[-1500:],
                r.stderr[-1500:]))
        return r

    def out(self, *cmd, **kw):
        return self.run(*cmd, **kw).stdout.strip()

    def path(self, inside):
        """The host path of a file inside the running container."""
        return "/proc/%d/root%s" % (self.leader, inside)

    def read(self, inside):
        try:
            with open(self.path(inside), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def show(self, unit, *props):
        """systemctl show's properties of @unit, as a dict."""
        r = self.out("systemctl", "show", unit,
                     "--property=" + ",".join(props))
        return dict(line.split("=", 1) for line in r.splitlines()
                    if "=" in line)

    def stop(self):
        """Powers the container off (SIGTERM to nspawn: systemd inside
        shuts down, which takes its QEMU guests with it), then kills
        what is left: the container's PID 1 first, whose death ends
        every process of its PID namespace.  Not the process group
        alone: `script` puts nspawn in a session of its own, so killing
        script's group left nspawn's container booted, orphaned, with
        libvirt-guests waiting on guests that ignore ACPI."""
        if self.proc is not None and self.proc.poll() is None:
            nspawn = self._nspawn_pid()
            if nspawn:
                os.kill(nspawn, signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                for pid in (self.leader, nspawn):
                    if pid:
                        try:
                            os.kill(pid, signal.SIGKILL)
                        except ProcessLookupError:
                            pass
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if self.mounted_run:
            subprocess.run(["umount", NSPAWN_RUN], check=False)
            self.mounted_run = False
