#!/bin/sh
# CLI tests of `vcpuplacectl policy` against libvirt's test driver: get on
# VMs with no, good and bad metadata (tests/cli/policy-node.xml), set with
# good and bad input.  The test driver keeps state per connection, so a
# set cannot be read back by a second process; the round trip itself is
# in tests/unit/test_policy_xml.c.
#
#   policy.sh PATH/TO/vcpuplacectl
set -u
CTL=$1
POL=${VP_POLICY_DIR_TEST:-policies}
NODE="test://$(cd "$(dirname "$0")" && pwd)/policy-node.xml"
. "$(dirname "$0")/lib.sh"

# expect RC NEEDLE ARGS...: exit status RC, NEEDLE in stdout+stderr
expect() {
	want=$1 needle=$2
	shift 2
	"$CTL" policy "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		ko "policy $*: exit $rc, want $want: $(cat "$tmp/out")"
	elif ! grep -qF -- "$needle" "$tmp/out"; then
		ko "policy $*: output lacks '$needle': $(cat "$tmp/out")"
	else
		ok
	fi
}

expect 0 "no vcpuplace metadata: host default (balanced)" \
	get --policies "$POL" --connect "$NODE" plain
expect 0 "locality: llc" get --policies "$POL" --connect "$NODE" plain
expect 0 "profile: latency" get --policies "$POL" --connect "$NODE" lat1
expect 0 "smt: isolate" get --policies "$POL" --connect "$NODE" lat1
expect 0 "locality: cluster" get --policies "$POL" --connect "$NODE" lat1
# lat1's owner asked for smt=isolate: the host's rules refuse it
# (vcpuplace-policy(5), HOST RULES)
expect 0 "refused: smt=isolate is host-granted only" \
	get --policies "$POL" --connect "$NODE" lat1
expect 1 "VM 'bad1': bad vcpuplace metadata: element smt: bad value 'sometimes'" \
	get --policies "$POL" --connect "$NODE" bad1
expect 1 "VM 'nosuch': no such domain" \
	get --policies "$POL" --connect "$NODE" nosuch

expect 0 '<policy profile="latency"><smt>isolate</smt></policy> (live and persistent config)' \
	set --policies "$POL" --connect test:///default test latency smt=isolate
expect 1 "VM 'test': unknown profile 'fast'" \
	set --policies "$POL" --connect test:///default test fast
expect 1 "VM 'test': field smt: bad value 'sometimes'" \
	set --policies "$POL" --connect test:///default test latency \
	smt=sometimes
expect 1 "VM 'test': unknown field 'turbo'" \
	set --policies "$POL" --connect test:///default test latency turbo=1
expect 1 "VM 'nosuch': no such domain" \
	set --policies "$POL" --connect test:///default nosuch latency
expect 1 "policy.rng" get --policies /nonexistent --connect "$NODE" plain
expect 2 "usage:" get --connect "$NODE"
expect 2 "usage:" set --connect "$NODE" test
expect 2 "unknown command 'frob'" frob

finish "policy CLI tests"
