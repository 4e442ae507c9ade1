#!/bin/sh
# `vcpuplacectl plan --domains`: a host's VMs from domain XML files, each
# profile chosen by the daemon's own precedence (host/choose.c) under the
# profiles, grants.xml and rules.d of --policies.  200 Nova instances
# (tests/cli/nova_domains.py, from tests/nova/instance-1.1.xml), a
# KubeVirt virt-launcher domain (tests/kubevirt/), bad files.
#
#   fleet.sh PATH/TO/vcpuplacectl
set -u
CTL=$1
TOPO=${VP_TOPOLOGY_DIR:-tests/topologies}/epyc-corona.xml
. "$(dirname "$0")/lib.sh"

pol=$tmp/policies
cp -r policies "$pol" && mkdir "$pol/rules.d"
cat >"$pol/rules.d/10-nova.xml" <<'X'
<rules xmlns="urn:vcpuplace:policy:1">
  <rule name="gold" flavor="gold.*" profile="latency"/>
  <rule name="silver" flavor="silver.*" profile="throughput"/>
</rules>
X
# matches every Nova VM, after 10-nova.xml's: the first match wins
cat >"$pol/rules.d/20-any.xml" <<'X'
<rules xmlns="urn:vcpuplace:policy:1">
  <rule name="any-nova" flavor="*" profile="balanced"><smt>any</smt></rule>
  <rule name="ns-shop" domain="shop_*" profile="latency"/>
</rules>
X
chmod 644 "$pol/rules.d"/*.xml

python3 tests/cli/nova_domains.py "$tmp/nova" 200
start=$(date +%s%N)
if "$CTL" plan --topology "$TOPO" --domains "$tmp/nova" --policies "$pol" \
    --json >"$tmp/plan.json" 2>"$tmp/plan.err"; then
	ok
else
	ko "plan --domains (200 Nova VMs) failed: $(cat "$tmp/plan.err")"
fi
end=$(date +%s%N)
echo "plan --domains: 200 Nova domain XMLs on $(basename "$TOPO"):" \
    "$(( (end - start) / 1000000 )) ms"
python3 - "$tmp/plan.json" <<'PY' && ok || ko "200 Nova VMs: sources"
import json, sys
vms = json.load(open(sys.argv[1]))["vms"]
assert len(vms) == 200, len(vms)
for i, vm in enumerate(vms):
    want = {0: ("latency", "rule", "gold ("), 1: ("throughput", "rule",
            "silver ("), 2: ("balanced", "rule", "any-nova (")}[i % 3]
    if i % 10 == 9:		# its own element beats every rule
        want = ("throughput", "metadata", None)
    got = (vm["profile"], vm["source"], vm["rule"])
    assert got[:2] == want[:2], (vm["name"], got, want)
    if want[2]:
        assert got[2].startswith(want[2]), got
        assert "/rules.d/" in got[2] and ".xml:" in got[2], got
    else:
        assert got[2] is None, got
    if vm["source"] == "rule" and want[2].startswith("any-nova"):
        assert vm["policy"]["smt"] == "any", vm["policy"]
    assert vm["error"] or vm["vcpus"], vm["name"]	# planned, or said why
    for v in vm["vcpus"]:
        assert v["allowed"], (vm["name"], v)	# never an empty set
PY
# the table says the same, a line a VM
"$CTL" plan --topology "$TOPO" --domains "$tmp/nova" --policies "$pol" \
    >"$tmp/plan.txt" 2>/dev/null
grep -Eq '^instance-00000001 +latency +rule +gold \(.*/rules.d/10-nova.xml:2\)$' \
    "$tmp/plan.txt" && grep -Eq '^instance-0000000a +throughput +metadata +-$' \
    "$tmp/plan.txt" && ok || ko "plan table: no source column as expected"

# KubeVirt: the namespace rule on virt-launcher's <namespace>_<vm> name
if "$CTL" plan --topology "$TOPO" --domains tests/kubevirt --policies "$pol" \
    --json >"$tmp/kv.json" 2>"$tmp/kv.err"; then
	python3 -c "
import json, sys
vm, = json.load(open(sys.argv[1]))['vms']
assert (vm['name'], vm['profile'], vm['source']) == ('shop_checkout', 'latency', 'rule'), vm
assert vm['rule'].startswith('ns-shop ('), vm
assert len(vm['vcpus']) == 4, vm" "$tmp/kv.json" && ok ||
		ko "KubeVirt domain: not placed by the namespace rule"
else
	ko "plan --domains tests/kubevirt failed: $(cat "$tmp/kv.err")"
fi

# a bad domain file: exit 1, named with its line; the others still said
mkdir "$tmp/bad" && cp "$tmp/nova/instance-00000001.xml" "$tmp/bad/" &&
printf '<domain>\n<name>x</name>\n<vcpu>lots</vcpu>\n</domain>\n' \
    >"$tmp/bad/broken.xml"
"$CTL" plan --topology "$TOPO" --domains "$tmp/bad" --policies "$pol" \
    >/dev/null 2>"$tmp/bad.err"
rc=$?
[ "$rc" = 1 ] && grep -q "bad/broken.xml:3: <vcpu>: want a count" \
    "$tmp/bad.err" && ok || ko "bad domain file: exit $rc, $(cat "$tmp/bad.err")"
# a bad rules file: refused naming FILE:LINE
printf '<rules xmlns="urn:vcpuplace:policy:1">\n<rule profile="fast"/>\n</rules>\n' \
    >"$pol/rules.d/30-bad.xml"
chmod 644 "$pol/rules.d/30-bad.xml"
"$CTL" plan --topology "$TOPO" --domains "$tmp/nova" --policies "$pol" \
    >/dev/null 2>"$tmp/rules.err"
rc=$?
[ "$rc" = 1 ] && grep -q "rules.d/30-bad.xml:2: element rule: unknown profile 'fast'" \
    "$tmp/rules.err" && ok || ko "bad rules file: exit $rc, $(cat "$tmp/rules.err")"

finish "fleet tests"
