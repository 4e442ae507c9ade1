#!/usr/bin/env python3
"""make check-deps: every program the build and the tests run is installed
by tools/deps/packages.list.

A tool that the machine's image happens to carry (gdb on the machines CI
runs on, say) passes every suite there and fails on an operator's fresh host.
This finds such tools without a fresh host: it lists the programs that the
project's scripts, make recipes and Python tests run, finds the Debian
package that owns each one on this machine, and fails unless that package
is named by a group of packages.list or debian/control's Build-Depends, is
pulled in by one of those through Depends or Pre-Depends, or is of
Priority required (what debootstrap's minbase root already has).

What counts as "a program run":
  shell (*.sh, sh and bash scripts, make recipes, `sh -c` strings): the
      command word of every simple command, with the words of env, nice,
      nohup, timeout, exec, xargs, setsid and the like looked through;
      command substitutions and heredocs fed to python3 are read as well;
  Python: the first word of every argument list handed to subprocess,
      os.exec*, or a runner method (.run, .out) as a literal list or as
      separate string arguments, and any shell string with shell=True.
Scripts whose interpreter is busybox run inside a test guest, where
busybox-static provides every applet; they are not read.

  programs.py [--drop PKG ...] [--list]

--drop removes packages from the lists first: `--drop tmux` must fail
(make check-deps runs it so, to show the guard can fail).  --list prints
each program with its package and where it is run.
"""

import ast
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LIST = os.path.join(ROOT, "tools", "deps", "packages.list")
CONTROL = os.path.join(ROOT, "debian", "control")
# What is read: the tests, the build tools (this guard, the package
# installer, the layering check), the kernel series' scripts, the
# packaging, the benchmarks' drivers, CI's entry point and every make
# file (debian/rules among them).
SCAN_DIRS = ["tests", "tools", "kvm-patches", "pkg", "bench", ".ci"]
# Only Debian's own directories: a program in /usr/local or a user's
# toolchain shim (pyenv) is not what a fresh host has.
SYSTEM_PATH = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]

SHELL_RESERVED = set("""
if then else elif fi for while until do done case esac in function select
! { } [[ ]] time
""".split())
# Builtins of dash and bash, and words that are not programs.
SHELL_BUILTINS = set("""
. : [ alias bg break builtin cd command continue declare echo eval exec
exit export false fg getopts hash jobs kill let local mapfile printf pwd
read readarray readonly return set shift source test times trap true type
typeset ulimit umask unalias unset wait
""".split())
# Wrappers whose own arguments hold the command they run, after their
# options and this many other words (timeout's duration, flock's lock).
WRAPPERS = {"env": 0, "nice": 0, "nohup": 0, "exec": 0, "timeout": 1,
            "xargs": 0, "setsid": 0, "stdbuf": 0, "ionice": 0, "chrt": 1,
            "taskset": 1, "flock": 1, "runuser": 0, "unshare": 0, "sudo": 0}
# Options of those wrappers that take a value as the next word.
WRAPPER_VALUE_OPTS = {"-n", "-u", "-s", "-k", "-c", "-p", "-o", "-e", "-g",
                      "-i", "-E", "--signal", "--kill-after", "--user",
                      "-C", "--cpu-list", "--propagation"}
SUBPROCESS_FUNCS = {"run", "Popen", "check_output", "check_call", "call",
                    "execvp", "execv", "execlp", "execl", "spawnvp"}
# Runner methods of the test helpers that take the argv as separate
# strings: nspawn.Container.run(*argv), .out(*argv).
VARARG_RUNNERS = {"run", "out"}


class Found:
    def __init__(self):
        self.where = {}     # program -> first "file:line"
        self.imports = {}   # Python module -> first "file:line"

    def add_import(self, mod, path, line):
        self.imports.setdefault(mod, "%s:%d" % (os.path.relpath(path, ROOT),
                                                line))

    def add(self, prog, path, line):
        prog = prog.strip()
        if not prog or not re.match(r"^[A-Za-z0-9_./+-]+$", prog):
            return
        if prog.startswith("./") or prog.startswith("../"):
            return      # the project's own scripts
        if "/" in prog and not prog.startswith("/"):
            return      # a relative path into the tree or build/
        self.where.setdefault(prog, "%s:%d" % (os.path.relpath(path, ROOT),
                                               line))


# ---- shell ---------------------------------------------------------------

def shell_words(text):
    """Splits shell text into (word, line, kind) with kind "op" for
    operators and "word" for words; quotes are kept out of words, and a
    command substitution becomes one ("subst", text) item."""
    out = []
    i, n, line = 0, len(text), 1
    word, wline, quoted = "", 1, False

    def flush():
        nonlocal word, quoted
        if word or quoted:
            out.append((word, wline, "word"))
        word, quoted = "", False

    def subst_end(j):
        depth = 1
        while j < n and depth:
            c = text[j]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            elif c in "'\"":
                k = text.find(c, j + 1)
                j = k if k >= 0 else n
            j += 1
        return j

    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            if text[i + 1] == "\n":
                line += 1
            else:
                if not word:
                    wline = line
                word += text[i + 1]
            i += 2
            continue
        if c == "#" and not word and not quoted:
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "\n":
            flush()
            out.append(("\n", line, "op"))
            line += 1
            i += 1
            continue
        if c in " \t":
            flush()
            i += 1
            continue
        if c == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            if not word:
                wline = line
            word += text[i + 1:j]
            line += text.count("\n", i, j)
            quoted = True
            i = j + 1
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                if text[j] == "\\":
                    j += 1
                elif text.startswith("$(", j) and not text.startswith("$((", j):
                    k = subst_end(j + 2)
                    out.append((("subst", text[j + 2:k - 1]), line, "subst"))
                    j = k - 1
                j += 1
            if not word:
                wline = line
            # a double-quoted part: never a command name (\x00), but its
            # text is kept for sh -c "SCRIPT"
            word += "\x00" + text[i + 1:j]
            line += text.count("\n", i, j)
            quoted = True
            i = j + 1
            continue
        if text.startswith("$((", i):
            j = subst_end(i + 3)
            word += "$"
            i = j + 1 if j < n and text[j] == ")" else j
            continue
        if text.startswith("$(", i):
            j = subst_end(i + 2)
            out.append((("subst", text[i + 2:j - 1]), line, "subst"))
            if not word:
                wline = line
            word += "$"
            line += text.count("\n", i, j)
            i = j
            continue
        if c == "`":
            j = text.find("`", i + 1)
            j = n if j < 0 else j
            out.append((("subst", text[i + 1:j]), line, "subst"))
            word += "$"
            i = j + 1
            continue
        m = re.match(r"&&|\|\||;;|[;&|()]", text[i:])
        if m:
            flush()
            out.append((m.group(0), line, "op"))
            i += len(m.group(0))
            continue
        m = re.match(r"\d*(>>|>&|<&|<<<|<<-|<<|>|<)", text[i:])
        if m and re.match(r"^\{\w+\}$", word):
            word = ""           # exec {fd}>file: a named descriptor
        if m and not word:
            flush()
            out.append(("redir:" + m.group(1), line, "op"))
            i += len(m.group(0))
            continue
        if not word:
            wline = line
        word += c
        i += 1
    flush()
    return out


HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


def split_heredocs(text):
    """Takes heredoc bodies out of shell text.  Returns the text without
    them (line count kept) and [(body, first line, command line)]."""
    lines = text.split("\n")
    out, bodies, i = [], [], 0
    while i < len(lines):
        ln = lines[i]
        out.append(ln)
        m = HEREDOC.search(ln) if not ln.lstrip().startswith("#") else None
        i += 1
        if not m:
            continue
        end = m.group(2)
        start = i
        while i < len(lines) and lines[i].strip() != end:
            i += 1
        bodies.append(("\n".join(lines[start:i]), start + 1, ln))
        out.extend([""] * (i - start))
        if i < len(lines):
            out.append("")
            i += 1
    return "\n".join(out), bodies


def scan_shell(text, path, found, funcs, first_line=1):
    text, bodies = split_heredocs(text)
    for body, line, cmdline in bodies:
        if re.search(r"\bpython3?\b", cmdline):
            scan_python(body, path, found, first_line + line - 1)
    items = shell_words(text)
    at_start = True
    skip_words = 0
    wrapper, positional = None, 0
    probe = False
    for_list = False        # for NAME in WORDS: until the separator
    case_head = False       # case WORD in
    case_pattern = False    # a case arm's patterns, up to ")"
    i = 0
    while i < len(items):
        w, line, kind = items[i]
        line += first_line - 1
        i += 1
        if kind == "subst":
            scan_shell(w[1], path, found, funcs, line)
            continue
        if kind == "word" and w.endswith("=") and i < len(items) and \
                items[i][0] == "(":
            # NAME=( ... ): an array's words, not commands
            while i < len(items) and items[i][0] != ")":
                if items[i][2] == "subst":
                    scan_shell(items[i][0][1], path, found, funcs, line)
                i += 1
            i += 1
            continue
        if kind == "op":
            if w.startswith("redir:"):
                i += 1          # the redirection's target
                continue
            if case_pattern and w == ")":
                case_pattern = False
                at_start, wrapper, skip_words, probe = True, None, 0, False
                continue
            if w == ";;":
                case_pattern = True
            if w in ("\n", ";", "&&", "||", "|", "&", "(", ")", ";;"):
                at_start, wrapper, skip_words, probe = True, None, 0, False
                positional = 0
                for_list = False
            continue
        if for_list or case_pattern:
            if case_pattern and w == "esac":
                case_pattern = False
            continue
        if case_head:
            if w == "in":
                case_head, case_pattern = False, True
            continue
        if not at_start:
            continue
        if w == "for":
            for_list = True
            continue
        if w == "case":
            case_head = True
            continue
        if skip_words:
            skip_words -= 1
            continue
        if wrapper is None and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w):
            continue        # an assignment before the command
        if wrapper is not None and w.startswith("-"):
            if w in WRAPPER_VALUE_OPTS:
                skip_words = 1
            continue
        if wrapper == "env" and "=" in w:
            continue
        if wrapper is not None and positional:
            positional -= 1     # timeout's duration, flock's lock, ...
            continue
        if "\x00" in w or "$" in w:
            # a quoted or computed word: the command, whatever it is
            # (a wrapper's too: nohup env X=1 $(TOOL) all)
            at_start = False
            continue
        if w in SHELL_RESERVED:
            continue
        if w in ("then", "do", "else", "elif"):
            continue
        if probe:
            at_start = False
            continue
        if w == "command":
            if i < len(items) and items[i][0] in ("-v", "-V"):
                probe = True        # command -v X: asks, runs nothing
                i += 1
            continue
        if w in ("sh", "bash", "dash"):
            # sh [-eu...] -c SCRIPT: the script's commands are run too
            j = i
            while j < len(items) and items[j][2] == "word" and \
                    items[j][0].startswith("-") and items[j][0] != "-c":
                j += 1
            if j + 1 < len(items) and items[j][0] == "-c" and \
                    items[j + 1][2] == "word":
                body = text_of_quoted(items[j + 1][0])
                if body is not None:
                    scan_shell(body, path, found, funcs,
                               items[j + 1][1] + first_line - 1)
        if w in WRAPPERS:
            if w not in SHELL_BUILTINS:
                found.add(w, path, line)
            wrapper, positional = w, WRAPPERS[w]
            continue
        if w in SHELL_BUILTINS or w in funcs:
            at_start = False
            continue
        found.add(w, path, line)
        at_start = False


def text_of_quoted(word):
    # a double-quoted part is marked by \x00; single quotes keep the text
    return word.replace("\x00", "")


SHELL_FUNC = re.compile(r"^\s*(?:function\s+)?([A-Za-z_][A-Za-z0-9_-]*)\s*\(\)",
                        re.M)


# ---- make ----------------------------------------------------------------

MAKE_VAR = re.compile(r"\$\((?!shell )[^()]*(?:\([^()]*\)[^()]*)*\)|\$\{[^}]*\}|\$[@<^*?%|+]")


MAKE_VALUES = {}    # NAME = one-word value, from every make file read


def make_values(text):
    for m in re.finditer(r"^([A-Z][A-Z0-9_]*)\s*[?:]*=\s*([^\s$#]+)\s*$",
                         text, re.M):
        MAKE_VALUES.setdefault(m.group(1), m.group(2))


def make_recipes(text):
    """The recipe lines of a make file, continuations joined, with their
    first line number; $(shell ...) calls too.  Make variables become $V
    (a computed word), $$ becomes $."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        ln, start = lines[i], i + 1
        while ln.endswith("\\") and i + 1 < len(lines):
            i += 1
            ln = ln[:-1] + " " + lines[i].lstrip("\t")
        i += 1
        for m in re.finditer(r"\$\(shell ([^()]*(?:\([^()]*\)[^()]*)*)\)", ln):
            out.append((clean_make(m.group(1)), start))
        if ln.startswith("\t"):
            body = ln[1:].lstrip("@-+ \t")
            out.append((clean_make(body), start))
    return out


def clean_make(s):
    s = s.replace("$$", "\x01")
    # a tool named by a variable: SCX_CLANG ?= clang-19 runs clang-19
    s = re.sub(r"\$\(([A-Z][A-Z0-9_]*)\)",
               lambda m: MAKE_VALUES.get(m.group(1), m.group(0)), s)
    s = MAKE_VAR.sub("$V", s)
    return s.replace("\x01", "$")


# ---- Python --------------------------------------------------------------

CONSTS = {}     # the module's NAME = "string" constants, while it is read


def const_str(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return CONSTS.get(node.id)
    return None


def argv_literals(expr):
    """The list or tuple literals an argv expression is made of:
    [..] + [..], (..) + cmd, and a tuple of lists iterated over."""
    if isinstance(expr, (ast.List, ast.Tuple)):
        if expr.elts and all(isinstance(e, (ast.List, ast.Tuple))
                             for e in expr.elts):
            return [x for e in expr.elts for x in argv_literals(e)]
        return [expr]
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return argv_literals(expr.left)[:1]
    return []


def argvs_of(expr, bound):
    """The argv literals an argument stands for: itself, the head of a
    sum, what a name was bound to, and a command joined into a string
    argument of another (script -qfec shlex.join(cmd))."""
    if isinstance(expr, (ast.List, ast.Tuple)):
        out = argv_literals(expr)
        for e in expr.elts[1:]:
            if isinstance(e, ast.Call) and e.args and \
                    getattr(e.func, "attr", None) == "join":
                out += argvs_of(e.args[0], bound)
        return out
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return argvs_of(expr.left, bound)
    if isinstance(expr, ast.Name):
        return bound.get(expr.id, [])
    if isinstance(expr, ast.Attribute):
        return bound.get(expr.attr, [])
    if isinstance(expr, ast.Call) and expr.args and \
            getattr(expr.func, "id", None) in ("list", "tuple"):
        return argvs_of(expr.args[0], bound)
    return []


def bound_lists(tree):
    """name -> the argv literals assigned to it in this function (x = [...],
    self.x = [...], for x in ([...], [...]))."""
    out = {}

    def key(t):
        return t.id if isinstance(t, ast.Name) else \
            t.attr if isinstance(t, ast.Attribute) else None

    for node in ast.walk(tree):
        pairs = []
        if isinstance(node, ast.Assign):
            pairs = [(t, node.value) for t in node.targets]
        elif isinstance(node, ast.For):
            pairs = [(node.target, node.iter)]
        for t, v in pairs:
            k = key(t)
            if k:
                out.setdefault(k, []).extend(argv_literals(v))
    return out


def scan_python(text, path, found, first_line=1):
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    CONSTS.clear()
    for n in tree.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], ast.Name) and \
                isinstance(n.value, ast.Constant) and \
                isinstance(n.value.value, str):
            CONSTS[n.targets[0].id] = n.value.value
    scopes = [tree] + [n for n in ast.walk(tree)
                       if isinstance(n, (ast.FunctionDef,
                                         ast.AsyncFunctionDef))]
    owner = {}
    for sc in scopes:       # a call's innermost function (walk is outer first)
        for n in ast.walk(sc):
            owner[n] = sc
    bounds = {sc: bound_lists(sc) for sc in scopes}
    here = os.path.dirname(path)
    for node in ast.walk(tree):
        mods = []
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            mods = [node.module or ""]
        for m in mods:
            top = m.split(".")[0]
            # the tests' own modules sit beside them or are put on the path
            if top and not os.path.exists(os.path.join(here, top + ".py")) \
                    and not local_module(top):
                found.add_import(top, path, first_line + node.lineno - 1)
        if not isinstance(node, ast.Call):
            continue
        bound = bounds[owner[node]]
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else \
            f.id if isinstance(f, ast.Name) else None
        if name is None:
            continue
        line = first_line + node.lineno - 1
        shell = any(k.arg == "shell" and isinstance(k.value, ast.Constant)
                    and k.value.value for k in node.keywords)
        if name in ("system", "popen", "getoutput", "getstatusoutput"):
            shell = True
        args = node.args
        if not args:
            continue
        a0 = args[0]
        if name in SUBPROCESS_FUNCS or shell:
            lits = argvs_of(a0, bound)
            for lit in lits:
                s = const_str(lit.elts[0]) if lit.elts else None
                if s is not None:
                    argv_found(s, [const_str(e) for e in lit.elts[1:]],
                               path, line, found)
            if lits or const_str(a0) is None:
                continue
            s = const_str(a0)
            if s is not None and (shell or name.startswith("exec")):
                if shell:
                    scan_shell(s, path, found, set(), line)
                else:
                    found.add(s, path, line)
                continue
        if name in VARARG_RUNNERS and isinstance(f, ast.Attribute):
            s = const_str(a0)
            if s is not None and " " not in s:
                argv_found(s, [const_str(a) for a in args[1:]],
                           path, line, found)


def local_module(name):
    for d in SCAN_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            if name + ".py" in files:
                return True
    return False


def argv_found(prog, rest, path, line, found):
    if prog in ("sh", "bash") and len(rest) >= 2 and rest[0] == "-c" and \
            rest[1] is not None:
        found.add(prog, path, line)
        scan_shell(rest[1], path, found, set(), line)
        return
    found.add(prog, path, line)
    if prog in WRAPPERS:
        for r in rest:
            if r is None:
                return
            if r.startswith("-") or "=" in r or re.match(r"^[\d.]+[smhd]?$", r):
                continue
            found.add(r, path, line)
            return


# ---- the files -----------------------------------------------------------

def kind_of(path):
    base = os.path.basename(path)
    if base == "Makefile" or base.endswith(".mk") or \
            path.endswith("debian/rules"):
        return "make"
    if base.endswith(".py"):
        return "python"
    try:
        with open(path, "rb") as fh:
            head = fh.readline(200)
    except OSError:
        return None
    if head.startswith(b"#!"):
        if b"busybox" in head:
            return None     # runs inside a test guest
        if b"python" in head:
            return "python"
        if re.search(rb"\b(ba|da)?sh\b", head):
            return "shell"
    if base.endswith(".sh"):
        return "shell"
    return None


def tracked_files():
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"],
                         stdout=subprocess.PIPE, check=True).stdout
    files = [f for f in out.decode().split("\0") if f]
    keep = []
    for f in files:
        top = f.split("/")[0]
        if top in SCAN_DIRS or f in ("Makefile", "debian/rules") or \
                f.endswith(".mk"):
            keep.append(os.path.join(ROOT, f))
    return keep


def collect():
    found = Found()
    files = [(p, kind_of(p)) for p in tracked_files()]
    files = [(p, k) for p, k in files if k]
    funcs = set()
    texts = {}
    for p, k in files:
        with open(p, encoding="utf-8", errors="replace") as fh:
            texts[p] = fh.read()
        if k == "shell":
            funcs.update(SHELL_FUNC.findall(texts[p]))
    for p, k in files:
        if k == "make":
            make_values(texts[p])
    for p, k in files:
        if k == "shell":
            scan_shell(texts[p], p, found, funcs)
        elif k == "python":
            scan_python(texts[p], p, found)
        elif k == "make":
            for body, line in make_recipes(texts[p]):
                scan_shell(body, p, found, funcs, line)
    return found


# ---- packages ------------------------------------------------------------

def listed_packages(drop):
    pkgs = set()
    with open(LIST) as fh:
        for ln in fh:
            ln = ln.split("#")[0].split()
            if len(ln) >= 3:
                # PKG@SUITE: the package, from a suite install.sh adds
                pkgs.update(w.split("@")[0] for w in ln[2:])
    pkgs |= build_depends()
    return pkgs - set(drop)


def build_depends():
    out, on = set(), False
    with open(CONTROL) as fh:
        text = fh.read()
    m = re.search(r"^Build-Depends:(.*?)(?=^\S)", text, re.M | re.S)
    for rel in (m.group(1) if m else "").split(","):
        rel = rel.split("|")[0]
        rel = re.sub(r"\(.*?\)|<.*?>|\[.*?\]", "", rel).strip()
        if rel:
            out.add(rel.split(":")[0])
    return out


def installed():
    """name -> (priority, essential, [[alternatives] of Depends], provides)"""
    fmt = "${Package}\t${Status}\t${Priority}\t${Essential}\t" \
          "${Depends}\t${Pre-Depends}\t${Provides}\n"
    out = subprocess.run(["dpkg-query", "-W", "-f", fmt],
                         stdout=subprocess.PIPE, check=True,
                         universal_newlines=True).stdout
    db, provided = {}, {}
    for ln in out.splitlines():
        f = ln.split("\t")
        if len(f) < 7 or "ok installed" not in f[1]:
            continue
        deps = []
        for rel in (f[4] + "," + f[5]).split(","):
            alts = [re.sub(r"\(.*?\)", "", a).strip().split(":")[0]
                    for a in rel.split("|")]
            alts = [a for a in alts if a]
            if alts:
                deps.append(alts)
        db[f[0]] = (f[2], f[3] == "yes", deps)
        for p in f[6].split(","):
            p = re.sub(r"\(.*?\)", "", p).strip()
            if p:
                provided.setdefault(p, []).append(f[0])
    return db, provided


def closure(roots, db, provided):
    """What installing roots brings: their Depends and Pre-Depends, each
    satisfied by its first alternative (as apt on a fresh host does)
    unless that one is not installed here, then by an installed one."""
    seen, todo = set(), list(roots)
    while todo:
        p = todo.pop()
        for q in ([p] if p in db else provided.get(p, [])):
            if q in seen:
                continue
            seen.add(q)
            for alts in db[q][2]:
                pick = [a for a in alts if a in db or a in provided]
                if pick:
                    todo.append(pick[0])
    return seen


def owners(paths):
    """path -> package, by dpkg -S (in one call)."""
    if not paths:
        return {}
    r = subprocess.run(["dpkg", "-S"] + paths, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    own = {}
    for ln in r.stdout.splitlines():
        pkg, _, path = ln.partition(": ")
        if "diversion" in ln:
            continue
        own[path.strip()] = pkg.split(",")[0].split(":")[0].strip()
    return own


def candidates(prog):
    """The paths under which dpkg may know prog: as found on the system
    PATH, then its target through symlinks (alternatives), each also in
    the other half of the merged /usr."""
    if prog.startswith("/"):
        found = prog if os.path.exists(prog) else None
    else:
        found = None
        for d in SYSTEM_PATH:
            p = os.path.join(d, prog)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                found = p
                break
    if found is None:
        return []
    out = []
    for p in (found, os.path.realpath(found)):
        out.append(p)
        if p.startswith("/usr/"):
            out.append(p[4:])
        elif p.startswith(("/bin/", "/sbin/", "/lib/")):
            out.append("/usr" + p)
    return out


def project_program(prog):
    # the project's own binaries, installed by its package or make install
    return os.path.basename(prog).startswith("vcpuplace")


def main(argv):
    drop, show = [], False
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--drop":
            while args and not args[0].startswith("--"):
                drop.append(args.pop(0))
        elif a == "--list":
            show = True
        else:
            print(__doc__, file=sys.stderr)
            return 2
    found = collect()
    progs = sorted(p for p in found.where if not project_program(p))
    db, provided = installed()
    base = {p for p, (prio, ess, _) in db.items()
            if prio == "required" or ess} | {"apt"}
    listed = listed_packages(drop)
    ok_pkgs = closure(base | listed, db, provided)
    paths = {p: candidates(p) for p in progs}
    own = owners(sorted({c for cs in paths.values() for c in cs}))
    bad = []
    for p in progs:
        pkg = next((own[c] for c in paths[p] if c in own), None)
        where = found.where[p]
        if show:
            print("%-22s %-26s %s" % (p, pkg or "-", where))
        if not paths[p]:
            bad.append("deps: %s (run at %s) is not installed on this "
                       "machine: add the package that has it to a group "
                       "in tools/deps/packages.list" % (p, where))
        elif pkg is None:
            bad.append("deps: %s (run at %s) is %s, which no Debian "
                       "package owns: a fresh host will not have it"
                       % (p, where, paths[p][0]))
        elif pkg not in ok_pkgs:
            bad.append("deps: %s (run at %s) comes from package %s, which "
                       "no deps list installs: add %s to a group in "
                       "tools/deps/packages.list" % (p, where, pkg, pkg))
    for mod, where in sorted(found.imports.items()):
        if mod in sys.stdlib_module_names:
            continue
        pkg = "python3-" + mod.lower().replace("_", "-")
        if pkg not in listed:
            bad.append("deps: Python module %s (imported at %s) is not in "
                       "the standard library: add %s (or the package that "
                       "has it) to a group in tools/deps/packages.list"
                       % (mod, where, pkg))
    for b in bad:
        print(b)
    print("deps: %d programs run by the build and the tests, %d from "
          "packages no deps list installs%s" %
          (len(progs), len(bad),
           " (dropped: %s)" % " ".join(drop) if drop else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
