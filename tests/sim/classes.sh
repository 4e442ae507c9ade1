#!/bin/sh
# tests/sim/classes.sh - each VM class's own figures (classes.c):
#   - --vm-mix latency,dedicated,balanced gives the VMs those profiles
#     in turn (a third each), every strategy runs with them under
#     --check, and the classes' figures add up to the run's: their
#     vCPUs and VMs to the run's, their throughputs to its throughput;
#   - under daemon the dedicated VMs own their PUs (the planner reads
#     each VM's profile): their p99 is below the latency class's,
#     whose VMs share the rest of the host at 125 %;
#   - without --vm-mix one class, "default", is the whole run: its p99
#     is the run's p99.
#
#   classes.sh SIM TOPODIR
set -eu
sim=$1
dir=$2
fail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run() {
	"$sim" --topology "$dir/g4dnmetal.xml" --workload dense --load 125 \
	    --seed 1 --warmup-ms 20 --measure-ms 40 "$@"
}

# verdict WHAT PYTHON-CONDITION: on the JSON line in $out (as d)
verdict() {
	if ! python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = {k["class"]: k for k in d.get("vm_classes", [])}
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$out" "$2"; then
		echo "FAIL: classes: $1"
		fail=1
	fi
}

for st in stock pinned daemon daemon-cores scx sis-core greedy; do
	if ! run --strategy $st --check \
	    --vm-mix latency,dedicated,balanced >"$out"; then
		echo "FAIL: classes: invariants with --vm-mix, $st"
		fail=1
		continue
	fi
	verdict "$st: three classes of a third each" \
	    'sorted(c) == ["balanced", "dedicated", "latency"] and
	     sum(k["vms"] for k in c.values()) == d["vms"] and
	     sum(k["vcpus"] for k in c.values()) == d["vcpus"] and
	     max(k["vms"] for k in c.values()) -
	     min(k["vms"] for k in c.values()) <= 1'
	verdict "$st: class throughputs add up to the run's" \
	    'abs(sum(k["throughput"] for k in c.values()) - d["throughput"])
	     <= 1e-9 * d["throughput"]'
done
run --strategy daemon --vm-mix latency,dedicated,balanced >"$out"
verdict "daemon: dedicated VMs wait less than latency VMs at 125 %" \
    'c["dedicated"]["p99_ns"] < c["latency"]["p99_ns"]'
run --strategy stock >"$out"
verdict "one class without --vm-mix, the whole run" \
    'list(c) == ["default"] and c["default"]["p99_ns"] == d["p99_ns"]
     and c["default"]["vms"] == d["vms"]'
[ $fail = 0 ] && echo "check-sim: VM classes add up"
exit $fail
