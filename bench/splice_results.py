#!/usr/bin/env python3
"""splice_results.py - put one strategy's figures from a partial sweep
into the committed tables of a full one.

    splice_results.py PARTIAL NEW OLD [RESULTS]

PARTIAL is the output directory of a partial sweep (points.c:
VP_SWEEP_STRATS=stock,NEW VP_SWEEP_FAMILIES=...), RESULTS the full
sweep's (default bench/results).  In every per-topology table, its .dat
and .gp, and summary.md, strategy OLD's rows, columns and cells are
replaced by NEW's from PARTIAL, and the plots are drawn again.

Why: a full sweep takes hours on a shared machine, and every other
strategy's runs are deterministic and unchanged by a change to one
strategy.  That holds only if stock's figures are the same in both
sweeps, so every stock row, column and cell is compared first, and the
script stops, writing nothing, at the first difference.  Figures over
all strategies at once (the greedy-beaten count) cannot be spliced:
they are marked as from the full sweep.
"""
import glob
import os
import subprocess
import sys


def fail(msg):
    sys.exit("splice_results: " + msg)


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table_rows(lines, strat):
    """Rows '| L % | strat | ...' of a per-topology table, by load."""
    return {cells(x)[0]: x for x in lines
            if x.startswith("|") and len(cells(x)) > 1 and
            cells(x)[1] == strat}


def splice_table(old_lines, new_lines, new, old):
    ref = table_rows(new_lines, "stock")
    if table_rows(old_lines, "stock") != ref:
        return None, "stock rows differ"
    repl = table_rows(new_lines, new)
    out = []
    for x in old_lines:
        c = cells(x) if x.startswith("|") else []
        if len(c) > 1 and c[1] == old:
            if c[0] not in repl:
                return None, "no %s row at %s" % (new, c[0])
            out.append(repl[c[0]])
        else:
            out.append(x)
    return out, None


def gp_names(path):
    with open(path) as f:
        first = f.readline()
    return first.split("'")[1].split()


def splice_dat(old_dat, new_dat, old_idx, new_idx, stock_old, stock_new):
    out = []
    if len(old_dat) != len(new_dat):
        return None, "row counts differ"
    for a, b in zip(old_dat, new_dat):
        fa, fb = a.split(), b.split()
        if fa[0] != fb[0]:
            return None, "loads differ"
        so, sn = 1 + 6 * stock_old, 1 + 6 * stock_new
        if fa[so:so + 6] != fb[sn:sn + 6]:
            return None, "stock columns differ at %s" % fa[0]
        o, n = 1 + 6 * old_idx, 1 + 6 * new_idx
        fa[o:o + 6] = fb[n:n + 6]
        out.append(" ".join(fa) + "\n")
    return out, None


def splice_summary(old_lines, new_lines, new, old):
    """Line by line: both are written by the same summary.c."""
    if len(old_lines) != len(new_lines):
        return None, "summary.md line counts differ"
    out, col_old, col_new, stock_col = [], -1, -1, -1
    for a, b in zip(old_lines, new_lines):
        if not a.startswith("|"):
            col_old = -1	# a table ended
            if "greedy heuristic" in a:
                a = a.rstrip("\n") + (" (From the full sweep, with %s: "
                                      "not re-run.)\n" % old)
            elif a.strip() != b.strip() and "runs above their bound" in a:
                if not b.startswith("0 of"):
                    return None, "partial sweep has runs above the bound"
            out.append(a)
            continue
        ca, cb = cells(a), cells(b)
        if old in ca:		# a header row
            col_old, col_new = ca.index(old), cb.index(new)
            stock_col = ca.index("stock (cores)") if \
                "stock (cores)" in ca else -1
            out.append(a.replace(" %s |" % old, " %s |" % new))
            continue
        if col_old < 0 or len(ca) <= col_old or set(a) <= set("|-: \n"):
            out.append(a)
            continue
        if ca[0] != cb[0] or (stock_col >= 0 and
                              ca[stock_col] != cb[stock_col]):
            return None, "rows differ: %s / %s" % (a.strip(), b.strip())
        ca[col_old] = cb[col_new]
        out.append("| " + " | ".join(ca) + " |\n")
    return out, None


def main():
    if len(sys.argv) not in (4, 5):
        fail("usage: splice_results.py PARTIAL NEW OLD [RESULTS]")
    part, new, old = sys.argv[1:4]
    res = sys.argv[4] if len(sys.argv) == 5 else "bench/results"
    writes = {}
    for path in sorted(glob.glob(os.path.join(res, "*-*.md"))):
        name = os.path.basename(path)
        if name in ("summary.md", "seeds.md", "sensitivity.md"):
            continue
        with open(path) as f:
            ol = f.readlines()
        with open(os.path.join(part, name)) as f:
            nl = f.readlines()
        out, err = splice_table(ol, nl, new, old)
        if err:
            fail("%s: %s" % (name, err))
        writes[path] = out
        stem = name[:-3]
        ogp = os.path.join(res, "plots", stem + ".gp")
        ngp = os.path.join(part, "plots", stem + ".gp")
        on, nn = gp_names(ogp), gp_names(ngp)
        with open(os.path.join(res, "plots", stem + ".dat")) as f:
            od = f.readlines()
        with open(os.path.join(part, "plots", stem + ".dat")) as f:
            nd = f.readlines()
        out, err = splice_dat(od, nd, on.index(old), nn.index(new),
                              on.index("stock"), nn.index("stock"))
        if err:
            fail("%s.dat: %s" % (stem, err))
        writes[os.path.join(res, "plots", stem + ".dat")] = out
        with open(ogp) as f:
            gp = f.read()
        writes[ogp] = [gp.replace(" %s " % old, " %s " % new, 1)]
    path = os.path.join(res, "summary.md")
    with open(path) as f:
        ol = f.readlines()
    with open(os.path.join(part, "summary.md")) as f:
        nl = f.readlines()
    out, err = splice_summary(ol, nl, new, old)
    if err:
        fail("summary.md: " + err)
    writes[path] = out
    for path, lines in writes.items():
        with open(path, "w") as f:
            f.writelines(lines)
    for gp in sorted(glob.glob(os.path.join(res, "plots", "*-*.gp"))):
        if os.path.basename(gp).startswith("sens-"):
            continue
        subprocess.run(["gnuplot", os.path.basename(gp)],
                       cwd=os.path.dirname(gp), check=True,
                       stderr=subprocess.DEVNULL)
    print("splice_results: %d files, %s in place of %s" %
          (len(writes), new, old))


if __name__ == "__main__":
    main()
