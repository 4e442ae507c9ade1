#!/usr/bin/env python3
"""Runs the EXAMPLES of the manual pages, as a reader would type them,
and holds their output to what the page shows.

    examples.py BUILD_DIR POLICY_DIR_INSTALLED SYSCONFDIR PAGE.scd...

PAGE.scd is a page's source with the install paths written in (what
make puts in BUILD_DIR/man/).  In its EXAMPLES section, every line of a
literal block (```) that starts with "$ " is a command; the lines after
it, up to the next command or the block's end, are what the page says
it prints.  Each command runs in `sh -c`, in one scratch folder for all
the pages, in the order of the pages given, and must:

- exit 0 (an example that shows a failure says so itself, with
  `; echo "exit $?"`);
- print every line the page shows, in that order, other lines being
  allowed in between; spaces are compared collapsed, and "..." in a
  shown line stands for any text (a line of "..." alone for nothing);
- print something, unless the page shows no output.

What the commands reach instead of a live host's:
- vcpuplaced and vcpuplacectl are the build's, through wrappers that
  add what a command does not give itself: --connect to libvirt's test
  driver (a node file with VMs web1 and db1, web1 holding the policy of
  the policy page's web1-policy.xml), --policies to the tree's
  policies/, --socket to a scratch socket; virsh gets -c for the same
  test driver;
- the installed profiles folder (POLICY_DIR_INSTALLED) is read as the
  tree's policies/, and SYSCONFDIR as a scratch folder;
- `cat FILE` of a file that does not exist yet creates it from the
  lines the page shows (so the page's file is the one the next command
  reads); a FILE named .../default/vcpuplaced is then sourced and its
  VCPUPLACED_OPTS parsed by `vcpuplaced $VCPUPLACED_OPTS --help`;
- a command ending in " &" (the daemon) runs in the background; the
  next command waits until its socket answers; at the end it gets
  SIGTERM and must exit 0, and its log must hold the lines shown.

systemctl is not run (no systemd as PID 1 here, nor the installed
unit); it is reported as such.  A command of any other program is a
failure until this file says how to run it.

Prints PASS/FAIL/SKIP per example, then `man examples: N passed, N
failed`; exits 1 on any failure.  Before the pages, the checker checks
itself: a wrong shown line, a non-zero exit and a silent command must
each be caught.
"""
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WAIT_S = 60         # a bound on a hang, never a pace
RUNS = {"vcpuplaced", "vcpuplacectl", "xmllint", "lstopo-no-graphics",
        "virsh", "cat"}
NOT_RUN = {"systemctl": "needs systemd as PID 1 and the installed unit"}
SOCKET_CMDS = "status metrics explain reload pause resume top"
VCPUPLACED_WRAP = """#!/bin/sh
# adds --connect, --policies and --socket, each unless given
given() { o=$1; shift; for a in "$@"; do
	case $a in "$o"|"$o"=*) return 0;; esac; done; return 1; }
x1="" x2="" x3=""
given --connect "$@" || given -c "$@" || x1="--connect=@URI@"
given --policies "$@" || given -p "$@" || x2="--policies=@POL@"
given --socket "$@" || given -S "$@" || x3="--socket=@SOCK@"
exec @BUILD@/vcpuplaced "$@" $x1 $x2 $x3
"""
VCPUPLACECTL_WRAP = """#!/bin/sh
# a socket command gets --socket, policy gets --connect and --policies,
# each unless given
given() { o=$1; shift; for a in "$@"; do
	case $a in "$o"|"$o"=*) return 0;; esac; done; return 1; }
cmd=""
for a in "$@"; do
	case " @SOCKET_CMDS@ policy " in *" $a "*) cmd=$a; break;; esac
done
x1="" x2=""
if [ "$cmd" = policy ]; then
	given --connect "$@" || given -c "$@" || x1="--connect=@URI@"
	given --policies "$@" || given -p "$@" || x2="--policies=@POL@"
elif [ -n "$cmd" ]; then
	given --socket "$@" || given -s "$@" || x1="--socket=@SOCK@"
fi
exec @BUILD@/vcpuplacectl "$@" $x1 $x2
"""
VIRSH_WRAP = """#!/bin/sh
exec @VIRSH@ -c @URI@ "$@"
"""


class Fail(Exception):
    pass


def blocks(path):
    """The examples of one page: a list of blocks, each a list of
    (command, [shown line, ...])."""
    out, cur, in_ex, fence = [], None, False, False
    with open(path) as f:
        for line in f.read().split("\n"):
            if not fence and line.startswith("# "):
                in_ex = line.strip() == "# EXAMPLES"
                continue
            if not in_ex:
                continue
            if line.strip() == "```":
                fence = not fence
                if fence:
                    cur = []
                    out.append(cur)
                continue
            if not fence:
                continue
            if line.startswith("$ "):
                cur.append((line[2:], []))
            elif cur:
                cur[-1][1].append(line)
            elif line.strip():
                raise Fail("%s: example block starts with %r, not a "
                           "command" % (path, line))
    if fence:
        raise Fail("%s: EXAMPLES: a literal block is not closed" % path)
    return out


def norm(s):
    return " ".join(s.split())


def pattern(shown):
    return re.compile(".*".join(re.escape(p) for p in norm(shown).split(
        "...")) + r"\Z", re.S)


def match(shown, output):
    """None if @output holds the shown lines in order, else the first
    shown line that it does not hold (after the ones before it)."""
    lines = [norm(x) for x in output.split("\n")]
    i = 0
    for s in shown:
        if norm(s) in ("", "..."):
            continue
        p = pattern(s)
        while i < len(lines) and not p.match(lines[i]):
            i += 1
        if i == len(lines):
            return s
        i += 1
    return None


def verdict(cmd, rc, output, shown):
    """Raises Fail unless the command did what the page says."""
    if rc != 0:
        raise Fail("exit %d: %s" % (rc, output[-800:]))
    if any(norm(s) for s in shown) and not output.strip():
        raise Fail("printed nothing")
    miss = match(shown, output)
    if miss is not None:
        raise Fail("the page shows %r, not in the output:\n%s" % (
            miss, output[-1500:]))


class Runner:
    def __init__(self, build, poldir, etcdir, tmp):
        self.build, self.poldir, self.etcdir = build, poldir, etcdir
        self.tmp = tmp
        self.work = os.path.join(tmp, "work")
        self.bin = os.path.join(tmp, "bin")
        self.etc = os.path.join(tmp, "etc")
        self.sock = os.path.join(tmp, "vcpuplaced.sock")
        self.td = os.path.join(tmp, "td.xml")
        self.uri = "test://" + self.td
        self.bg = []        # (command, Popen, log path, shown)
        self.wait_bg = False
        self.passed = self.failed = self.skipped = 0
        for d in (self.work, self.bin, self.etc):
            os.makedirs(d)

    def testdriver(self, web1_policy):
        """Two running VMs of 2 vCPUs: web1 with @web1_policy in its
        metadata, db1 with none."""
        subprocess.run([sys.executable, os.path.join(
            ROOT, "tests", "integration", "gen_testdriver.py"), "2", "2",
            self.td], check=True, stdout=subprocess.DEVNULL)
        with open(self.td) as f:
            text = f.read()
        text = text.replace("<name>vptest-td-0000</name>",
                            "<name>web1</name>")
        text = text.replace("<name>vptest-td-0001</name>",
                            "<name>db1</name>")
        text, n = re.subn(r"<metadata>.*?</metadata>",
                          "<metadata>%s</metadata>" % web1_policy, text,
                          count=1, flags=re.S)
        if n != 1 or "<name>web1</name>" not in text:
            raise Fail("gen_testdriver.py: no metadata or no web1 to set")
        with open(self.td, "w") as f:
            f.write(text)

    def wrappers(self):
        # scratch paths: no space or quote in them (mkdtemp's)
        subst = {"@URI@": self.uri,
                 "@POL@": os.path.join(ROOT, "policies"),
                 "@SOCK@": self.sock,
                 "@BUILD@": self.build,
                 "@VIRSH@": shutil.which("virsh") or "virsh-missing",
                 "@SOCKET_CMDS@": SOCKET_CMDS}
        for name, text in (("vcpuplaced", VCPUPLACED_WRAP),
                           ("vcpuplacectl", VCPUPLACECTL_WRAP),
                           ("virsh", VIRSH_WRAP)):
            for k, v in subst.items():
                text = text.replace(k, v)
            path = os.path.join(self.bin, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)

    def env(self):
        e = dict(os.environ)
        e["PATH"] = self.bin + ":" + e.get("PATH", "/usr/bin:/bin")
        e["TERM"] = "xterm"
        e.pop("NOTIFY_SOCKET", None)
        return e

    def paths(self, cmd):
        """The install paths a page names, as this run has them."""
        cmd = cmd.replace(self.poldir, os.path.join(ROOT, "policies"))
        return cmd.replace(self.etcdir + "/", self.etc + "/")

    def wait_daemon(self):
        end = time.monotonic() + WAIT_S
        while time.monotonic() < end:
            for cmd, p, log, _ in self.bg:
                if p.poll() is not None:
                    with open(log) as f:
                        raise Fail("%s: exited %d before its socket "
                                   "answered: %s" % (cmd, p.returncode,
                                                     f.read()[-800:]))
            r = subprocess.run([os.path.join(self.build, "vcpuplacectl"),
                                "status", "--socket", self.sock],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                self.wait_bg = False
                return
            time.sleep(0.1)
        raise Fail("the daemon's socket did not answer within %d s" % WAIT_S)

    def cat(self, cmd, shown):
        """`cat FILE`: a file the page shows is made from what it shows."""
        words = shlex.split(cmd)
        if len(words) != 2:
            return
        path = os.path.join(self.work, words[1])
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("\n".join(shown).rstrip("\n") + "\n")
        if path.endswith("/default/vcpuplaced"):
            r = subprocess.run(
                ". %s && exec vcpuplaced $VCPUPLACED_OPTS --help" %
                shlex.quote(path), shell=True, cwd=self.work,
                env=self.env(), capture_output=True, text=True,
                timeout=WAIT_S)
            if r.returncode != 0:
                raise Fail("vcpuplaced refuses the VCPUPLACED_OPTS of %s: "
                           "%s" % (words[1], r.stderr[-500:]))

    def one(self, page, cmd, shown):
        prog = shlex.split(cmd)[0] if cmd.strip() else ""
        where = "%s: $ %s" % (os.path.basename(page), cmd)
        if prog in NOT_RUN:
            self.skipped += 1
            print("SKIP %s (not run: %s)" % (where, NOT_RUN[prog]))
            return
        try:
            if prog not in RUNS:
                raise Fail("no rule for %r: run it here or list it as "
                           "not run, with the reason" % prog)
            real = self.paths(cmd)
            if prog == "cat":
                self.cat(real, shown)
            if real.rstrip().endswith("&"):
                log = os.path.join(self.tmp, "bg%d.log" % len(self.bg))
                with open(log, "w") as out:
                    p = subprocess.Popen(
                        ["sh", "-c", "exec " + real.rstrip()[:-1]],
                        cwd=self.work, env=self.env(), stdout=out,
                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
                self.bg.append((where, p, log, shown))
                self.wait_bg = True
                return      # judged when it stops
            if self.wait_bg:
                self.wait_daemon()
            r = subprocess.run(["sh", "-c", real], cwd=self.work,
                               env=self.env(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=WAIT_S)
            verdict(cmd, r.returncode, r.stdout.decode("utf-8", "replace"),
                    shown)
        except (Fail, subprocess.TimeoutExpired) as e:
            self.failed += 1
            print("FAIL %s\n  %s" % (where, str(e).replace("\n", "\n  ")))
            return
        self.passed += 1
        print("PASS %s" % where)

    def stop_background(self):
        for where, p, log, shown in self.bg:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
            try:
                rc = p.wait(timeout=WAIT_S)
            except subprocess.TimeoutExpired:
                p.kill()
                rc = p.wait()
            with open(log) as f:
                text = f.read()
            try:
                verdict(where, rc, text, shown)
            except Fail as e:
                self.failed += 1
                print("FAIL %s (stopped by SIGTERM)\n  %s" % (
                    where, str(e).replace("\n", "\n  ")))
                continue
            self.passed += 1
            print("PASS %s (stopped by SIGTERM: exit 0, its log as shown)"
                  % where)


def self_test():
    """The checker must be able to fail: each of these must be caught."""
    cases = [
        ("a line the output lacks", 0, "usage: x\nmore\n", ["usage: y"]),
        ("lines out of order", 0, "b\na\n", ["a", "b"]),
        ("a non-zero exit", 1, "usage: x\n", ["usage: x"]),
        ("a silent command", 0, "", ["something"]),
    ]
    bad = []
    for what, rc, out, shown in cases:
        try:
            verdict("self-test", rc, out, shown)
            bad.append(what)
        except Fail:
            pass
    try:
        verdict("self-test", 0, "host vm: 2 PUs; tick 8\nx\n",
                ["host ...: ... PUs; tick ...", "..."])
    except Fail as e:
        bad.append("a matching output refused: %s" % e)
    return bad


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    build, poldir, etcdir, pages = (os.path.abspath(argv[0]), argv[1],
                                    argv[2], argv[3:])
    bad = self_test()
    for what in bad:
        print("FAIL the example checker let through %s" % what)
    if bad:
        return 1
    print("PASS the example checker catches a missing line, a wrong "
          "order, a non-zero exit and a silent command")
    tmp = tempfile.mkdtemp(prefix="vp-man-")
    r = Runner(build, poldir, etcdir, tmp)
    try:
        parsed = [(p, blocks(p)) for p in pages]
        web1 = [s for _, bl in parsed for b in bl for c, s in b
                if c.strip() == "cat web1-policy.xml"]
        if not web1:
            raise Fail("no page shows `cat web1-policy.xml`: the VM web1 "
                       "of the examples has no policy to carry")
        r.testdriver("\n".join(web1[0]))
        r.wrappers()
        for page, bl in parsed:
            if not bl:
                raise Fail("%s: no examples" % page)
            for b in bl:
                for cmd, shown in b:
                    r.one(page, cmd, shown)
        r.stop_background()
    except Fail as e:
        r.failed += 1
        print("FAIL %s" % e)
    finally:
        for _, p, _, _ in r.bg:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("man examples: %d passed, %d failed (%d not run)" % (
        r.passed + 1, r.failed, r.skipped))
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
