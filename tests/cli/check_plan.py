#!/usr/bin/env python3
"""Checks a `vcpuplacectl plan --json` output against its scenario and
the topology JSON: every invariant the planner promises, nothing about
which PU it happened to pick."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "integration"))
import locality  # noqa: E402


def cpus(text):
    out = set()
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


topo, scen, plan = (json.load(open(p)) for p in sys.argv[1:4])
pus = {p["os_index"]: p for p in topo["pu"]}
domains = locality.domains(topo["pu"])


reserved = cpus(scen.get("reserve", ""))
errors = []
exclusive = {}          # os cpu -> VM holding it exclusively
isolated_cores = {}     # core -> VM
used = {}               # os cpu -> VMs allowed there

for spec, vm in zip(scen["vms"], plan["vms"]):
    pol = spec.get("policy", {})
    name = vm["name"]
    if pol.get("mode") == "off":
        if vm["vcpus"]:
            errors.append(f"{name}: mode=off VM was planned")
        continue
    if vm["error"]:
        continue
    if len(vm["vcpus"]) != spec["vcpus"]:
        errors.append(f"{name}: {len(vm['vcpus'])} vCPUs planned")
    for v in vm["vcpus"]:
        allowed = cpus(v["allowed"])
        if not allowed:
            errors.append(f"{name}/{v['vcpu']}: empty allowed set")
        if v["home"] not in allowed:
            errors.append(f"{name}/{v['vcpu']}: home outside allowed")
        if allowed & reserved:
            errors.append(f"{name}/{v['vcpu']}: allowed has reserved PUs")
        if not allowed <= set(pus):
            errors.append(f"{name}/{v['vcpu']}: allowed has unknown PUs")
        for c in allowed:
            used.setdefault(c, set()).add(name)
        if pol.get("mode") == "dedicated":
            if len(allowed) != 1:
                errors.append(f"{name}: dedicated vCPU not 1:1")
            for c in allowed:
                if c in exclusive:
                    errors.append(f"{name}: PU {c} also given to {exclusive[c]}")
                exclusive[c] = name
        if pol.get("smt") == "isolate":
            for c in allowed:
                core = pus[c]["core"]
                if isolated_cores.setdefault(core, name) != name:
                    errors.append(f"{name}: shares core {core}")
        loc = pol.get("locality", "llc")
        if loc in ("cluster", "llc", "numa") and pol.get("mode") != "dedicated":
            lvl, dom = locality.widened_domain(domains, loc, v["home"],
                                               spec["vcpus"], pol.get("smt"))
            if not allowed <= dom:
                errors.append(f"{name}: allowed leaves the {lvl} of its "
                              f"home {v['home']}")

for c, vms in used.items():
    if c in exclusive and vms != {exclusive[c]}:
        errors.append(f"dedicated PU {c} of {exclusive[c]} also allowed for {sorted(vms)}")
for c, vms in used.items():
    core = pus[c]["core"]
    if core in isolated_cores and vms != {isolated_cores[core]}:
        errors.append(f"isolated core {core} of {isolated_cores[core]} shared with {sorted(vms)}")

for e in errors:
    print("  " + e)
sys.exit(1 if errors else 0)
