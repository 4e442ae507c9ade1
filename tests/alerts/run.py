#!/usr/bin/env python3
"""Checks the operator's kit: the alerting rules
(systemd/vcpuplace.rules.yml, with their unit tests
vcpuplace.rules.test.yml) and the Grafana dashboard
(grafana/vcpuplace.json).

    run.py BUILD_DIR

1. promtool check rules (no warning either) and promtool test rules;
2. the dashboard: valid JSON, unique panel ids, every panel and target
   on the ${datasource} variable, the instance and vm variables there
   and used, every expr valid PromQL (promtool check rules on a
   recording rule of each, $__rate_interval as 5m);
3. every metric name in every alert expr and every panel expr is a
   family of a live daemon's `metrics` answer (a dry run on libvirt's
   test driver, started with tests/socket's helpers).  The families
   the daemon writes only while its BPF scheduler runs (metrics.c:
   write_sched_ext, write_wake_counters) cannot be had here; they are
   checked against the names in daemon/scx/vcpuplace_scx.h, built as
   metrics.c builds them (and as tests/unit test_life_reports checks);
4. that each check can fail: a dashboard with a made-up metric, a
   duplicate panel id, a panel off the variable and a broken expr; a
   rules file with a broken expr or a made-up metric, and one whose
   for: was shortened (the unit tests must catch it) are all reported.

Python 3 standard library only: the YAML is ours, and the exprs are
read from it by a small reader that must find one per rule.  Prints
PASS/FAIL per check and `alerts: N passed, N failed`; exits 1 on any
failure.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "socket"))
import run as sockrun  # noqa: E402  (tests/socket/run.py: Ctx, Daemon)
from ctlclient import ask  # noqa: E402

RULES = os.path.join(ROOT, "systemd", "vcpuplace.rules.yml")
RULES_TEST = os.path.join(ROOT, "systemd", "vcpuplace.rules.test.yml")
DASHBOARD = os.path.join(ROOT, "grafana", "vcpuplace.json")
SCX_H = os.path.join(ROOT, "daemon", "scx", "vcpuplace_scx.h")
METRICS_C = os.path.join(ROOT, "daemon", "vcpuplaced", "metrics.c")
DS_REF = "${datasource}"

Fail = sockrun.Fail
check = sockrun.check

# PromQL words that are not metric names when not followed by "(".
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right",
            "offset", "bool", "and", "or", "unless", "inf", "nan", "atan2",
            "start", "end"}


# ---- reading the exprs ------------------------------------------------

def rule_exprs(text):
    """[(alert name, expr)] of a rules file in our layout: `- alert: X`
    then `expr: ...` on one line or as a `|`/`>` block below it."""
    out, alert, lines = [], None, text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^\s*- alert:\s*(\S+)\s*$", line)
        if m:
            alert = m.group(1)
        m = re.match(r"^(\s*)expr:\s*(.*)$", line)
        if m:
            indent, val = len(m.group(1)), m.group(2).strip()
            if val in ("|", ">", "|-", ">-"):
                body = []
                i += 1
                while i < len(lines) and (not lines[i].strip() or
                                          len(lines[i]) - len(
                                              lines[i].lstrip()) > indent):
                    body.append(lines[i].strip())
                    i += 1
                out.append((alert, "\n".join(body).strip()))
                continue
            out.append((alert, val.strip("'\"")))
        i += 1
    return out


def metric_names(expr):
    """The metric names an expr reads: identifiers that are not
    functions (followed by "("), keywords, label names (inside {...} or
    the lists of by/without/on/ignoring/group_*), durations or
    Grafana variables."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)       # strings
    e = re.sub(r"\{[^}]*\}", " ", e)                    # matchers
    e = re.sub(r"\[[^\]]*\]", " ", e)                   # ranges
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*"
               r"\([^)]*\)", " ", e)                    # label lists
    e = re.sub(r"\$\{?\w+\}?", " ", e)                  # $vars
    names = set()
    for m in re.finditer(r"(?<![\w.:])([a-zA-Z_:][a-zA-Z0-9_:]*)", e):
        word, rest = m.group(1), e[m.end():]
        if re.match(r"\s*\(", rest) or word.lower() in KEYWORDS:
            continue
        names.add(word)
    return names


def panel_list(dash, with_rows=False):
    """Every panel, the ones inside (collapsed) rows too; with @with_rows
    [(title of the row above it, panel)]."""
    out, row = [], ""
    for p in dash.get("panels", []):
        if p.get("type") == "row":
            row = p.get("title", "")
        out.append((row, p))
        out.extend((row, q) for q in p.get("panels", []))
    return out if with_rows else [p for _, p in out]


def dashboard_exprs(dash):
    """[(where, expr)] of every panel target and query variable."""
    out = []
    for p in panel_list(dash):
        for t in p.get("targets", []):
            out.append(("panel %s %r" % (p.get("id"), p.get("title")),
                        t.get("expr", "")))
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            q = v.get("query")
            q = q.get("query", "") if isinstance(q, dict) else q or ""
            m = re.match(r"^\s*label_values\((.*),\s*\w+\s*\)\s*$", q)
            out.append(("variable %s" % v["name"], m.group(1) if m else q))
    return out


# ---- the daemon's families ----------------------------------------------

def live_families(text):
    """{name: type} of the # TYPE lines of a metrics answer."""
    return dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))


def scx_only_families():
    """The families metrics.c writes only while the BPF scheduler runs,
    built from the header's name lists as metrics.c builds them."""
    src = open(METRICS_C).read()
    for fmt in ('"vcpuplace_scx_%s_total"', '"vcpuplace_vcpu_%ss_total"',
                '"vcpuplace_vcpu_wake_%s_total"'):
        check(fmt in src, "metrics.c no longer names families %s: update "
              "scx_only_families()" % fmt)
    h = open(SCX_H).read()

    def names(macro):
        m = re.search(r"#define %s \{(.*?)\}" % macro, h, re.S)
        check(m, "%s: no %s" % (SCX_H, macro))
        return re.findall(r'"(\w+)"', m.group(1))
    out = {"vcpuplace_scx_%s_total" % n for n in names("VP_SCX_STAT_NAMES")}
    for n in names("VP_SCX_VSTAT_NAMES"):
        out.add("vcpuplace_vcpu_%ss_total" % n if n == "wakeup" else
                "vcpuplace_vcpu_wake_%s_total" % n)
    return out


def unknown_names(exprs, fams, scx_only):
    """[(where, name)] of names that are neither a live family, nor a
    histogram's _bucket/_sum/_count, nor a sched-ext-only family."""
    bad = []
    for where, expr in exprs:
        names = metric_names(expr)
        if not names:
            bad.append((where, "(no metric name found in %r)" % expr))
        for n in sorted(names):
            base = re.sub(r"_(bucket|sum|count)$", "", n)
            if n in fams or fams.get(base) == "histogram" or n in scx_only:
                continue
            bad.append((where, n))
    return bad


# ---- the dashboard's shape ------------------------------------------------

def dashboard_problems(dash):
    """Problems of the dashboard's structure, as strings."""
    out = []
    ids = [p.get("id") for p in panel_list(dash)]
    dup = sorted({i for i in ids if ids.count(i) > 1}, key=str)
    if dup:
        out.append("panel ids used twice: %r" % dup)
    if None in ids:
        out.append("a panel without an id")
    if not 36 <= dash.get("schemaVersion", 0) <= 41:
        out.append("schemaVersion %r" % dash.get("schemaVersion"))
    tv = {v.get("name"): v for v in dash.get("templating", {}).get(
        "list", [])}
    ds = tv.get("datasource", {})
    if ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        out.append("no Prometheus datasource variable named datasource")
    for name in ("instance", "vm"):
        v = tv.get(name)
        if not v or v.get("type") != "query":
            out.append("no query variable %s" % name)
        elif (v.get("datasource") or {}).get("uid") != DS_REF:
            out.append("variable %s not on %s" % (name, DS_REF))
    for row, p in panel_list(dash, with_rows=True):
        if p.get("type") == "row":
            continue
        where = "panel %s %r" % (p.get("id"), p.get("title"))
        if (p.get("datasource") or {}).get("uid") != DS_REF:
            out.append("%s: datasource %r, not %s" % (
                where, p.get("datasource"), DS_REF))
        if not p.get("targets"):
            out.append("%s: no targets" % where)
        for t in p.get("targets", []):
            d = t.get("datasource")
            if d is not None and d.get("uid") != DS_REF:
                out.append("%s target %s: datasource %r" % (
                    where, t.get("refId"), d))
            if not t.get("expr", "").strip():
                out.append("%s target %s: no expr" % (where, t.get("refId")))
        if row.startswith("Per VM") and not all('vm=~"$vm"' in t.get("expr", "")
                              for t in p.get("targets", [])):
            out.append("%s: a per-VM panel that ignores $vm" % where)
        if not all('instance=~"$instance"' in t.get("expr", "")
                   for t in p.get("targets", [])):
            out.append("%s: a target that ignores $instance" % where)
    return out


# ---- promtool ---------------------------------------------------------------

def promtool(ctx, *args):
    return subprocess.run([ctx.promtool] + list(args), capture_output=True,
                          text=True, timeout=60)


def promtool_clean(r):
    """Passed, and nothing but the SUCCESS lines said."""
    noise = [l for l in (r.stdout + r.stderr).splitlines() if l.strip() and
             not re.match(r"^\s*(Checking |SUCCESS|Unit Testing: )", l)]
    return r.returncode == 0 and not noise, noise


def exprs_parse(ctx, exprs, tmp):
    """promtool's verdict on @exprs [(where, expr)] as recording rules,
    with Grafana's $__rate_interval and friends as 5m: None if they all
    parse, else promtool's complaint."""
    lines = ["groups:", "  - name: dashboard", "    rules:"]
    for i, (where, e) in enumerate(exprs):
        e = re.sub(r"\$__(rate_interval|interval|range)", "5m", e)
        lines += ["      - record: dashboard:expr_%d" % i,
                  "        expr: %s" % json.dumps(e)]
    path = os.path.join(tmp, "dashboard.rules.yml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    r = promtool(ctx, "check", "rules", path)
    if r.returncode == 0:
        return None
    m = re.search(r"rule (\d+)", r.stdout + r.stderr)
    where = exprs[int(m.group(1)) - 1][0] if m else "?"
    return "%s: %s%s" % (where, r.stdout, r.stderr)


# ---- the checks -----------------------------------------------------------

def test_rules_check(ctx):
    """promtool check rules: valid, no warning, one rule per alert."""
    r = promtool(ctx, "check", "rules", RULES)
    ok, noise = promtool_clean(r)
    check(ok, "promtool check rules: %s%s" % (r.stdout, r.stderr))
    m = re.search(r"SUCCESS: (\d+) rules found", r.stdout)
    exprs = rule_exprs(open(RULES).read())
    check(m and int(m.group(1)) == len(exprs) and all(a for a, _ in exprs),
          "promtool found %s rules, the reader %d exprs" % (
              m and m.group(1), len(exprs)))


def test_rules_unit(ctx):
    """promtool test rules: every alert fires and clears as tested."""
    r = promtool(ctx, "test", "rules", RULES_TEST)
    ok, noise = promtool_clean(r)
    check(ok, "promtool test rules: %s%s" % (r.stdout[-3000:], r.stderr))
    tested = set(re.findall(r"^\s*alertname:\s*(\S+)", open(
        RULES_TEST).read(), re.M))
    alerts = {a for a, _ in rule_exprs(open(RULES).read())}
    check(alerts <= tested, "alerts without a unit test: %s" % sorted(
        alerts - tested))
    # every alert has a case where it fires and one where it does not
    text = open(RULES_TEST).read()
    for a in sorted(alerts):
        cases = re.findall(r"alertname: %s\n\s+exp_alerts:( \[\])?" % a, text)
        check(any(c == "" for c in cases) and any(c for c in cases),
              "%s: not both a firing and a clear case" % a)


def test_dashboard_shape(ctx):
    """The dashboard is JSON with unique ids, every panel on
    ${datasource}, the instance and vm variables."""
    with open(DASHBOARD) as f:
        dash = json.load(f)
    problems = dashboard_problems(dash)
    check(not problems, "; ".join(problems))
    check(len(panel_list(dash)) >= 10, "only %d panels" % len(panel_list(
        dash)))
    tmp = tempfile.mkdtemp(prefix="vpdash-", dir=ctx.tmp)
    err = exprs_parse(ctx, dashboard_exprs(dash), tmp)
    check(err is None, "a panel expr does not parse: %s" % err)


def test_names_live(ctx):
    """Every metric of every alert and panel expr is a family the daemon
    writes (live answer, or sched-ext-only as the header names them)."""
    fams, _ = ctx.live
    dash = json.load(open(DASHBOARD))
    exprs = [("alert " + a, e) for a, e in rule_exprs(open(RULES).read())]
    exprs += dashboard_exprs(dash)
    bad = unknown_names(exprs, fams, ctx.scx_only)
    check(not bad, "names the daemon does not export: %s" % bad)
    used = set().union(*(metric_names(e) for _, e in exprs))
    scx = sorted(n for n in used if n not in fams and not fams.get(
        re.sub(r"_(bucket|sum|count)$", "", n)) == "histogram")
    check(all(n in ctx.scx_only for n in scx), scx)
    print("    %d names checked, %d of them sched-ext-only (%s)" % (
        len(used), len(scx), ", ".join(scx)))


def test_can_fail(ctx):
    """Each check reports what it should: a made-up metric, a duplicate
    id and a panel off the variable in a copy of the dashboard; a broken
    expr, a made-up metric and a shortened for: in copies of the rules."""
    fams, _ = ctx.live
    dash = json.load(open(DASHBOARD))
    bad = json.loads(json.dumps(dash))
    panels = [p for p in panel_list(bad) if p.get("targets")]
    panels[0]["targets"][0]["expr"] = \
        'rate(vcpuplace_made_up_total{instance=~"$instance"}[5m])'
    panels[1]["id"] = panels[2]["id"]
    panels[3]["datasource"] = {"type": "prometheus", "uid": "prom-1"}
    found = unknown_names(dashboard_exprs(bad), fams, ctx.scx_only)
    check([n for _, n in found] == ["vcpuplace_made_up_total"],
          "made-up dashboard metric: reported %r" % found)
    problems = dashboard_problems(bad)
    check(any("used twice" in p for p in problems) and
          any("prom-1" in p for p in problems), problems)
    panels[4]["targets"][0]["expr"] = "sum by (instance (vcpuplace_paused)"
    err = exprs_parse(ctx, dashboard_exprs(bad), tempfile.mkdtemp(
        prefix="vpdash-", dir=ctx.tmp))
    check(err and "panel %s " % panels[4]["id"] in err,
          "a broken panel expr: %r" % err)
    # the name reader itself: functions, labels, keywords are no names
    check(metric_names('histogram_quantile(0.99, sum by (instance, le) '
                       '(rate(a_bucket{le="1",x=~"$x"}[5m]))) > 0.1 and '
                       'on (instance) b offset 5m unless c{d="e"} * 1e9')
          == {"a_bucket", "b", "c"}, "metric_names")

    rules = open(RULES).read()
    tmp = tempfile.mkdtemp(prefix="vpalerts-", dir=ctx.tmp)

    def rules_copy(old, new):
        check(old in rules, "not in the rules: %r" % old)
        path = os.path.join(tmp, "vcpuplace.rules.yml")
        with open(path, "w") as f:
            f.write(rules.replace(old, new, 1))
        return path
    path = rules_copy("expr: vcpuplace_smt_conflicts > 0",
                      "expr: rate(vcpuplace_smt_conflicts) > 0")
    r = promtool(ctx, "check", "rules", path)
    check(r.returncode != 0 and re.search(
        r'"VcpuplaceSMTConflicts": could not parse', r.stdout + r.stderr),
        "promtool accepted a broken expr: %s%s" % (r.stdout, r.stderr))
    path = rules_copy("expr: vcpuplace_paused == 1",
                      "expr: vcpuplace_pause == 1")
    found = unknown_names([("alert " + a, e) for a, e in rule_exprs(
        open(path).read())], fams, ctx.scx_only)
    check([n for _, n in found] == ["vcpuplace_pause"],
          "made-up alert metric: reported %r" % found)
    # the unit tests catch a for: that no longer holds the alert back
    rules_copy("expr: vcpuplace_smt_conflicts > 0\n        for: 15m",
               "expr: vcpuplace_smt_conflicts > 0\n        for: 1m")
    shutil.copy(RULES_TEST, tmp)
    r = promtool(ctx, "test", "rules", os.path.join(
        tmp, os.path.basename(RULES_TEST)))
    out = r.stdout + r.stderr
    check(r.returncode != 0 and "alertname: VcpuplaceSMTConflicts, time: "
          "15m" in out, "promtool test rules passed with for: 1m: %s"
          % out[-1000:])


TESTS = [test_rules_check, test_rules_unit, test_dashboard_shape,
         test_names_live, test_can_fail]


def main():
    ctx = sockrun.Ctx(sys.argv[1])
    passed = failed = 0
    try:
        ctx.scx_only = scx_only_families()
        d = ctx.daemon(nvms=2, vcpus=2)
        text = ask(d.sock, b"metrics\n")
        fams = live_families(text)
        st = [l for l in text.splitlines()
              if l.startswith("vcpuplace_sched_ext_state{")]
        # the exemption holds only while the scheduler is not loaded
        check(st and 'state="loaded"' not in st[0], st)
        check(not ctx.scx_only & set(fams), "sched-ext families in a "
              "daemon without the scheduler: %s" % (ctx.scx_only & set(fams)))
        ctx.live = (fams, text)
        ctx.cleanup()
    except Exception as e:     # noqa: BLE001 (report, stop)
        ctx.cleanup()
        print("FAIL start: %s" % e)
        sys.exit(1)
    for t in TESTS:
        try:
            t(ctx)
            passed += 1
            print("PASS %s" % t.__name__)
        except Exception as e:     # noqa: BLE001 (report, go on)
            failed += 1
            print("FAIL %s: %s" % (t.__name__, e))
        sys.stdout.flush()
    shutil.rmtree(ctx.tmp, ignore_errors=True)
    print("alerts: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
