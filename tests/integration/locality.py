"""The planner's locality rule, for the Python tests that judge its
placements (tests/cli/check_plan.py, tests/integration/run.py,
tests/soak/checker.py): one copy, so the three cannot drift apart.

A shared vCPU's allowed set lies in its locality's domain around its
home, widened (cluster, llc, numa, package) until that domain holds a
core per vCPU (a core's worth of vCPUs with smt=siblings) and more than
one core: daemon/core/wakedom.c, wakedom_locality_level()."""

LEVELS = ("cluster", "llc", "numa", "package")
# the level's key in a `vcpuplacectl topology --json` or `plan --json` PU
KEYS = {"cluster": "cluster", "llc": "llc", "numa": "node",
        "package": "package", "core": "core"}


def domains(pus):
    """{'cluster'|'llc'|'numa'|'package'|'core': {pu: set of the PUs
    sharing it}} from the PU records of the topology JSON."""
    out = {}
    for lvl, key in KEYS.items():
        groups = {}
        for p in pus:
            groups.setdefault(p[key], set()).add(p["os_index"])
        out[lvl] = {p["os_index"]: groups[p[key]] for p in pus}
    return out


def widened_domain(topo, loc, pu, nvcpus, smt=None):
    """(level, PUs): the domain of @loc around @pu, widened for a VM of
    @nvcpus vCPUs.  @topo is domains()'s map; a level it lacks is
    passed over.  Where no level has cores enough the package stays, as
    in the planner; locality "any", or a map without packages, gives
    every PU the map knows, level "any"."""
    core = topo["core"]
    width = len(core[pu])
    need = -(-nvcpus // width) if smt == "siblings" else nvcpus
    start = LEVELS.index(loc) if loc in LEVELS else len(LEVELS)
    for lvl in LEVELS[start:]:
        if lvl not in topo:
            continue
        dom = topo[lvl][pu]
        if len({min(core[p]) for p in dom}) >= max(need, 2):
            return lvl, dom
    if start < len(LEVELS) and "package" in topo:
        return "package", topo["package"][pu]
    return "any", set(core)
