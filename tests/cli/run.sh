#!/bin/sh
# CLI tests: `vcpuplacectl topology` and `plan` on every shipped topology,
# checked against hwloc-calc and against the invariants of a plan; bad
# input must fail with a message naming the field at fault.
#
#   run.sh PATH/TO/vcpuplacectl
set -u
CTL=$1
TOPO=${VP_TOPOLOGY_DIR:-tests/topologies}
SCEN=tests/scenarios
. "$(dirname "$0")/lib.sh"

count() { hwloc-calc -i "$1" --number-of "$2" all 2>/dev/null || echo 0; }

for f in "$TOPO"/*.xml; do
	n=$(basename "$f")
	if ! "$CTL" topology --topology "$f" --json >"$tmp/t.json"; then
		ko "$n: topology --json exited non-zero"
		continue
	fi
	for pair in packages:package nodes:numanode cores:core pus:pu; do
		key=${pair%%:*}
		want=$(count "$f" "${pair#*:}")
		got=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['$key'])" "$tmp/t.json")
		[ "$got" = "$want" ] && ok || ko "$n: $key is $got, hwloc-calc says $want"
	done
	# every PU object carries the documented fields, siblings share a core
	python3 - "$tmp/t.json" <<'PY' && ok || ko "$n: pu objects malformed"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["pu"]) == d["pus"]
by_os = {p["os_index"]: p for p in d["pu"]}
for p in d["pu"]:
    for k in ("os_index", "core", "cluster", "llc", "node", "package",
              "siblings", "priority"):
        assert k in p, k
    for s in p["siblings"]:
        assert by_os[s]["core"] == p["core"]
PY
	"$CTL" topology --topology "$f" >"$tmp/t.txt" &&
		grep -q "^package 0" "$tmp/t.txt" && ok ||
		ko "$n: topology table has no package header"
	for s in "$SCEN"/*.json; do
		sn=$(basename "$s")
		if ! "$CTL" plan --topology "$f" --scenario "$s" --json \
		    >"$tmp/p.json" 2>"$tmp/p.err"; then
			# a scenario may name CPUs a small machine lacks
			grep -q "not in the topology" "$tmp/p.err" && ok ||
				ko "$n/$sn: plan failed: $(cat "$tmp/p.err")"
			continue
		fi
		python3 tests/cli/check_plan.py "$tmp/t.json" "$s" \
		    "$tmp/p.json" && ok || ko "$n/$sn: plan invariants"
	done
done

# Bad input: a clear error naming the field, exit status 1.
g4=$TOPO/g4dnmetal.xml
bad() {
	printf '%s' "$2" >"$tmp/bad.json"
	if "$CTL" plan --topology "$g4" --scenario "$tmp/bad.json" \
	    >/dev/null 2>"$tmp/err"; then
		ko "bad scenario accepted: $2"
	elif grep -q -- "$1" "$tmp/err"; then
		ok
	else
		ko "error for $2 does not name '$1': $(cat "$tmp/err")"
	fi
}
bad "not JSON" '{"vms": ['
bad "vms: missing" '{}'
bad "vms\[0\].vcpus" '{"vms":[{"name":"a","vcpus":0}]}'
bad "vms\[0\].name" '{"vms":[{"vcpus":2}]}'
bad "vms\[1\].policy.smt: unknown value" '{"vms":[{"name":"a","vcpus":1},{"name":"b","vcpus":1,"policy":{"smt":"sometimes"}}]}'
bad "vms\[0\].policy.colour: unknown field" '{"vms":[{"name":"a","vcpus":1,"policy":{"colour":"red"}}]}'
bad "busy: bad CPU list" '{"busy":"3-1","vms":[]}'
bad "reserve: CPU not in the topology" '{"reserve":"4000","vms":[]}'
bad "features.NOPE" '{"features":{"NOPE":true},"vms":[]}'
"$CTL" topology --topology /nonexistent.xml 2>"$tmp/err" && ko "missing file accepted" ||
	{ grep -q "/nonexistent.xml" "$tmp/err" && ok || ko "missing file error unnamed"; }
"$CTL" frobnicate 2>/dev/null; [ $? -eq 2 ] && ok || ko "unknown command not exit 2"

finish "cli"
