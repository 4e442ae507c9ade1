#!/usr/bin/env python3
"""The guard's readers on small texts: each case names the programs a
snippet runs, and the readers must find exactly those (a program missed
is a tool that can slip through; a word taken for one is a false alarm)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import programs  # noqa: E402

SHELL = [
    ("for x in a b; do foo $x; done", {"foo"}),
    ("case $1 in a|b) bar ;; c) baz; qux ;; esac", {"bar", "baz", "qux"}),
    ('X=1 Y="2" nice -n 5 env A=B timeout 5 strace -f ls | grep q',
     {"nice", "env", "timeout", "strace", "grep"}),
    ("timeout \"$4\" qemu-system-x86_64 -m 2G", {"timeout",
                                               "qemu-system-x86_64"}),
    ("arr=(one two)\nnames+=(three)", set()),
    ("v=$(lsof -p 1) && echo \"$(ps -e)\"", {"lsof", "ps"}),
    ("sh -eu -c \"echo hi; curl x\"", {"sh", "curl"}),
    ("if command -v gdb >/dev/null; then :; fi", set()),
    ("exec {fd}>&-\nflock \"$fd\"\n\"$@\"", {"flock"}),
    ("f() { g; }\nf", {"g"}),
    ("python3 - <<'PY'\nimport subprocess\nsubprocess.run(['ip', 'a'])\nPY\n"
     "cat <<EOF\nnot a command\nEOF", {"python3", "ip", "cat"}),
    ("# a comment naming wget\nnohup env X=1 $TOOL all", {"nohup", "env"}),
]

PYTHON = [
    ("import subprocess\nsubprocess.run(['virsh', '-c', 'x'])", {"virsh"}),
    ("def f(a):\n    cmd = ['tmux', 'new']\n    subprocess.run(cmd)\n"
     "def g():\n    cmd = ['status']\n    print(cmd)", {"tmux"}),
    ("QEMU = '/usr/bin/qemu-system-x86_64'\nsubprocess.Popen([QEMU, '-m'])",
     {"/usr/bin/qemu-system-x86_64"}),
    ("def f():\n    cmd = ['systemd-nspawn', '--boot']\n"
     "    subprocess.Popen(['script', '-qfec', shlex.join(cmd)])",
     {"script", "systemd-nspawn"}),
    ("c.run('apt-get', 'install', '-y')", {"apt-get"}),
    ("subprocess.run('mount | grep x', shell=True)", {"mount", "grep"}),
    ("def f(args):\n    for bad in (['--x'], ['--y']):\n"
     "        subprocess.run(args + bad)", set()),
]

MAKE = [
    ("CLANGX ?= clang-19\nall:\n\t@$(CLANGX) -c x.c\n\t-rm -f y\n"
     "\t$(MAKE) other\n\tcd d && $$(which z) foo", {"clang-19", "rm", "which"}),
]


def main():
    bad = 0
    for text, want in SHELL:
        f = programs.Found()
        programs.scan_shell(text, os.path.join(programs.ROOT, "t.sh"), f,
                            programs.SHELL_FUNC.findall(text))
        bad += report(text, set(f.where), want)
    for text, want in PYTHON:
        f = programs.Found()
        programs.scan_python(text, os.path.join(programs.ROOT, "t.py"), f)
        bad += report(text, set(f.where), want)
    for text, want in MAKE:
        f = programs.Found()
        programs.make_values(text)
        for body, line in programs.make_recipes(text):
            programs.scan_shell(body, os.path.join(programs.ROOT, "t.mk"),
                                f, set(), line)
        bad += report(text, set(f.where), want)
    n = len(SHELL) + len(PYTHON) + len(MAKE)
    print("deps readers: %d passed, %d failed" % (n - bad, bad))
    return 1 if bad else 0


def report(text, got, want):
    if got == want:
        return 0
    print("FAIL %r: found %s, want %s" % (text, sorted(got), sorted(want)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
