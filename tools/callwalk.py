#!/usr/bin/env python3
"""The static call graph walked from a root function, counted by layer.

Reads the .ci files GCC writes with -fcallgraph-info (GCC 10 or later:
one VCG graph per object, its nodes the functions with their defining
file and line in the label, its edges the direct calls); `make walk`
builds the daemon so, at -O0, into $(B)/walk, so that nothing is inlined
away and every call in the source is an edge.

Layers, lowest first: lib (anything not defined in the tree: libc,
libvirt, hwloc..., and functions defined in system headers), core/,
host/, vcpuplaced/ (the folder that holds the defining file, under
daemon/ or not).  Definitions:

  stop      a function reached in a depth-first walk from the root,
            pre-order, each function visited once, callees in the order
            of their first call in the caller's source;
  climb     a call edge, from a stop, to a function in a higher layer;
  zig-zag   the next stop in walk order is in a higher layer than the
            current one (the walk came back up to call on from higher);
  libvirt stop  a stop named vir + a capital letter (virDomainPinVcpuFlags;
            the adapter's own functions are virt_*).

Function pointers are not followed: a call through one (GCC's
"__indirect_call") is counted and shown, its targets are not walked, so a
thread's entry (pthread_create's argument) or a callback is a root of its
own.  Static functions are told apart by their defining file; a static
inline function of a header is one function wherever it is emitted.

  callwalk.py CI... [-v] [-r ROOT]... [--path ROOT [VIA...] TARGET]...

CI: .ci files, or folders searched for them (before the options: --path
takes any number of names).  ROOT: a function's name, or FILE:NAME to
choose among statics of that name (FILE a suffix of the path).  --path
prints the shortest call chain from ROOT to TARGET (ties go to the
earlier call), through each VIA in turn if given, each hop with its
layer, or "not reached".  -v also lists the libvirt stops, the stops in
walk order and the zig-zags.  Exit status 0; 1 if a root or
target is defined nowhere in the graph; 2 on bad options.
"""

import argparse
import collections
import os
import re
import sys

LAYERS = ["lib", "core", "host", "vcpuplaced"]
RANK = {name: i for i, name in enumerate(LAYERS)}
LIBVIRT = re.compile(r"^vir[A-Z]")
INDIRECT = "__indirect_call"
# key: "value" pairs of a VCG line; GCC writes one node or edge a line
PAIR = re.compile(r'(\w+)\s*:\s*"((?:[^"\\]|\\.)*)"')
SHAPE = re.compile(r"\bshape\s*:\s*(\w+)")


def unescape(s):
    return s.replace('\\n', '\n').replace('\\"', '"').replace('\\\\', '\\')


def layer_of(path):
    """The layer of a defining file: the folder that holds it."""
    if not path or path.startswith("/usr/"):
        return "lib"
    parent = os.path.basename(os.path.dirname(os.path.normpath(path)))
    if parent == "scx":
        return "host"       # sched_ext's adapter, beside its BPF program
    return parent if parent in RANK else "lib"


class Fn:
    def __init__(self, key, name, path, line):
        self.key, self.name, self.path, self.line = key, name, path, line
        self.layer = layer_of(path)
        self.calls = []         # (callee key, call site), first call first
        self.indirect = []      # call sites through a pointer

    def where(self):
        return "%s:%s" % (self.path, self.line) if self.path else "(outside)"


def read_ci(path):
    """(nodes, edges) of one .ci file: nodes title -> (name, file, line,
    defined here), edges (source title, target title, call site)."""
    nodes, edges = {}, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            kv = dict(PAIR.findall(line))
            if line.startswith("node:") and "title" in kv:
                label = unescape(kv.get("label", kv["title"])).split("\n")
                loc = label[1].rsplit(":", 2) if len(label) > 1 else []
                m = SHAPE.search(line)
                # an ellipse is a function declared, not defined, here
                nodes[kv["title"]] = (label[0], loc[0] if len(loc) == 3
                                      else None, loc[1] if len(loc) == 3
                                      else None, not (m and m.group(1) ==
                                                      "ellipse"))
            elif line.startswith("edge:") and "sourcename" in kv:
                edges.append((kv["sourcename"], kv["targetname"],
                              kv.get("label", "")))
    return nodes, edges


def load(paths):
    """The whole program's graph: key -> Fn.  A global's key is its name;
    a static's is FILE:NAME with the file it is defined in."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            for d, _, names in sorted(os.walk(p)):
                files += [os.path.join(d, n) for n in sorted(names)
                          if n.endswith(".ci")]
        else:
            files.append(p)
    if not files:
        sys.exit("callwalk: no .ci files in %s (built with -fcallgraph-info?)"
                 % " ".join(paths))
    graphs = [read_ci(f) for f in files]
    fns = {}

    def key_of(title, node):
        name, path, _, _ = node
        # GCC titles a static "TU:name"; key it by its defining file
        return "%s:%s" % (path, name) if ":" in title else name

    for nodes, _ in graphs:
        for title, node in nodes.items():
            if node[3] and title != INDIRECT:
                k = key_of(title, node)
                fns.setdefault(k, Fn(k, node[0], node[1], node[2]))
    for nodes, edges in graphs:
        for src, dst, site in edges:
            caller = fns[key_of(src, nodes[src])]
            if dst == INDIRECT:
                if site not in caller.indirect:
                    caller.indirect.append(site)
                continue
            node = nodes.get(dst, (dst, None, None, False))
            k = key_of(dst, node) if node[3] else dst
            if k not in fns:    # called, defined nowhere in the tree
                fns[k] = Fn(k, dst, None, None)
            if k not in [c for c, _ in caller.calls]:
                caller.calls.append((k, site))
    return fns


def find(fns, spec):
    """The key of a function named SPEC (NAME or FILE:NAME)."""
    if spec in fns:
        return spec
    path, _, name = spec.rpartition(":")
    hits = [k for k, f in fns.items() if f.name == name and
            (not path or (f.path or "").endswith(path))]
    if len(hits) == 1:
        return hits[0]
    if hits:
        sys.exit("callwalk: %s is ambiguous: %s (use FILE:NAME)"
                 % (spec, ", ".join(sorted(hits))))
    return None


def walk(fns, root):
    """Stops in depth-first pre-order; an explicit stack, since the
    chains are deeper than Python's recursion limit likes."""
    seen, stops = {root}, [root]
    stack = [iter(fns[root].calls)]
    while stack:
        for callee, _ in stack[-1]:
            if callee not in seen:
                seen.add(callee)
                stops.append(callee)
                stack.append(iter(fns[callee].calls))
                break
        else:
            stack.pop()
    return stops


def climbs(fns, stops):
    """Every call edge out of a stop into a higher layer."""
    out = []
    for k in stops:
        for callee, site in fns[k].calls:
            if RANK[fns[callee].layer] > RANK[fns[k].layer]:
                out.append((k, callee, site))
    return out


def zigzags(fns, stops):
    return [(a, b) for a, b in zip(stops, stops[1:])
            if RANK[fns[b].layer] > RANK[fns[a].layer]]


def path(fns, root, target):
    """The shortest call chain root -> target (breadth first, calls in
    source order), or None."""
    back = {root: None}
    queue = collections.deque([root])
    while queue:
        k = queue.popleft()
        if k == target:
            chain = []
            while k is not None:
                chain.append(k)
                k = back[k]
            return chain[::-1]
        for callee, _ in fns[k].calls:
            if callee not in back:
                back[callee] = k
                queue.append(callee)
    return None


def label(f):
    return "%s [%s]" % (f.name, f.layer)


def report(fns, root, verbose):
    stops = walk(fns, root)
    up = climbs(fns, stops)
    zz = zigzags(fns, stops)
    vir = [k for k in stops if LIBVIRT.match(fns[k].name)]
    ind = sum(len(fns[k].indirect) for k in stops)
    by = collections.Counter(fns[k].layer for k in stops)
    f = fns[root]
    print("root %s (%s)" % (f.name, f.where()))
    print("  stops          %d  (%s)" % (len(stops), ", ".join(
        "%s %d" % (n, by[n]) for n in reversed(LAYERS))))
    print("  libvirt stops  %d" % len(vir))
    print("  climbs         %d" % len(up))
    for a, b, site in up:
        print("    %s -> %s  at %s" % (label(fns[a]), label(fns[b]), site))
    print("  zig-zags       %d" % len(zz))
    print("  indirect calls %d (not followed)" % ind)
    if verbose:
        for k in vir:
            print("    libvirt stop %s" % fns[k].name)
        print("  walk:")
        for k in stops:
            print("    %-12s %s" % (fns[k].layer, fns[k].name))
        for a, b in zz:
            print("    zig-zag %s -> %s" % (label(fns[a]), label(fns[b])))
    return (f.name, len(stops), len(vir), len(up), len(zz))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ci", nargs="+", help=".ci files or folders")
    ap.add_argument("-r", "--root", action="append", default=[])
    ap.add_argument("--path", nargs="+", action="append", default=[],
                    metavar="FN")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    fns = load(a.ci)
    status, rows = 0, []
    for spec in a.root:
        k = find(fns, spec)
        if k is None:
            print("callwalk: root %s: not defined in the graph" % spec,
                  file=sys.stderr)
            status = 1
            continue
        rows.append(report(fns, k, a.verbose))
        print()
    if rows:
        print("%-16s %6s %8s %7s %9s" % ("root", "stops", "libvirt",
                                         "climbs", "zig-zags"))
        for r in rows:
            print("%-16s %6d %8d %7d %9d" % r)
    for specs in a.path:
        print("\npath %s:" % " -> ".join(specs))
        if len(specs) < 2:
            print("  wants a root and a target")
            status = 1
            continue
        keys = [find(fns, s) for s in specs]
        if None in keys:
            print("  %s: not defined in the graph" % specs[keys.index(None)])
            status = 1
            continue
        # through each waypoint in turn: a chain of shortest legs
        chain = [keys[0]]
        for k, t in zip(keys, keys[1:]):
            leg = path(fns, k, t)
            if leg is None:
                chain = None
                break
            chain += leg[1:]
        if chain is None:
            print("  not reached")
            continue
        for i, c in enumerate(chain):
            print("  %s%s  %s" % ("-> " if i else "   ", label(fns[c]),
                                 fns[c].where()))
    return status


if __name__ == "__main__":
    sys.exit(main())
