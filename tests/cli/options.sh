#!/bin/sh
# CLI tests of the command line's grammar: options before the command,
# after its operands and among them, "--", POSIXLY_CORRECT=1, --help at
# both levels, and the usage errors (exit 2, naming the option).
#
# No daemon runs: a socket command then says "nothing listens on PATH"
# and exits 1, which shows which --socket was read.  policy runs against
# libvirt's test driver (VM "test", no vcpuplace metadata: it prints
# balanced), with a copy of the profiles whose balanced differs.
#
#   options.sh PATH/TO/vcpuplacectl
set -u
CTL=$1
POL=${VP_POLICY_DIR_TEST:-policies}
TOPO=${VP_TOPOLOGY_DIR:-tests/topologies}/g4dnmetal.xml
SCEN=tests/scenarios/mixed.json
VIRT=test:///default
. "$(dirname "$0")/lib.sh"

S=$tmp/vp.sock
DOWN="nothing listens on $S)"
mkdir "$tmp/pol" "$tmp/norng"
cp "$POL"/*.xml "$POL"/policy.rng "$tmp/pol"/
cp "$POL"/*.xml "$tmp/norng"/
sed 's|<locality>llc</locality>|<locality>cluster</locality>|' \
	"$POL/balanced.xml" >"$tmp/pol/balanced.xml"
MINE="locality: cluster"

# expect RC NEEDLE ARGS...: exit status RC, NEEDLE in stdout+stderr
expect() {
	want=$1 needle=$2
	shift 2
	"$CTL" "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		ko "$*: exit $rc, want $want: $(cat "$tmp/out")"
	elif ! grep -qF -- "$needle" "$tmp/out"; then
		ko "$*: output lacks '$needle': $(cat "$tmp/out")"
	else
		ok
	fi
}

# usage_err NEEDLE ARGS...: exit 2, NEEDLE on stderr, then a usage line
usage_err() {
	needle=$1
	shift
	"$CTL" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != 2 ]; then
		ko "$*: exit $rc, want 2: $(cat "$tmp/err")"
	elif ! grep -qF -- "$needle" "$tmp/err" ||
	    ! grep -q "^usage: vcpuplacectl" "$tmp/err"; then
		ko "$*: stderr lacks '$needle' or usage: $(cat "$tmp/err")"
	else
		ok
	fi
}

# help NEEDLE ABSENT ARGS...: exit 0, NEEDLE on stdout and ABSENT not
help() {
	needle=$1 absent=$2
	shift 2
	"$CTL" "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" != 0 ] || ! grep -qF -- "$needle" "$tmp/out" ||
	    grep -qF -- "$absent" "$tmp/out"; then
		ko "$*: exit $rc, want 0, '$needle' and no '$absent':" \
		    "$(cat "$tmp/out")"
	else
		ok
	fi
}

# same FILE ARGS...: exit 0 and the output of FILE, byte for byte
same() {
	want=$1
	shift
	if "$CTL" "$@" >"$tmp/out" 2>&1 && cmp -s "$want" "$tmp/out"; then
		ok
	else
		ko "$*: differs from the canonical form: $(head -3 "$tmp/out")"
	fi
}

"$CTL" topology --topology "$TOPO" --json >"$tmp/topo.json" ||
	ko "topology --topology $TOPO --json failed"
"$CTL" plan --topology "$TOPO" --scenario "$SCEN" --json >"$tmp/plan.json" ||
	ko "plan --topology $TOPO --scenario $SCEN --json failed"

# Before the command, as `virsh -c URI` takes them.
expect 1 "$DOWN" --socket "$S" status
expect 1 "$DOWN" --socket "$S" status --json
expect 1 "$DOWN" -s "$S" metrics
expect 1 "$DOWN" --socket "$S" explain vm 0
expect 1 "$DOWN" --socket="$S" reload
expect 1 "$DOWN" --socket "$S" top
expect 1 "$DOWN" --sock "$S" status
expect 0 "$MINE" --connect "$VIRT" --policies "$tmp/pol" policy get test
same "$tmp/topo.json" --topology "$TOPO" topology --json
same "$tmp/plan.json" --topology "$TOPO" --json plan --scenario "$SCEN"

# After the operands.
expect 1 "$DOWN" explain vm 0 --socket "$S"
expect 1 "$DOWN" status --json --socket "$S"
expect 1 "$DOWN" top --frames 1 --socket "$S"
expect 0 "$MINE" policy get test --policies "$tmp/pol" --connect "$VIRT"
expect 1 "profiles $tmp/norng:" \
	policy get test --connect "$VIRT" --policies "$tmp/norng"
expect 0 '<policy profile="latency"><smt>isolate</smt></policy>' \
	policy set test latency smt=isolate --connect "$VIRT" --policies "$POL"

# Among them; the last of a kind wins.
expect 1 "$DOWN" explain vm --socket "$S" 0
expect 1 "$DOWN" --socket "$tmp/first.sock" status --socket "$S"
expect 0 "$MINE" policy --connect "$VIRT" get --policies "$tmp/pol" test
expect 0 '<policy profile="latency"><smt>isolate</smt></policy>' \
	policy set test --connect "$VIRT" latency --policies "$POL" smt=isolate
same "$tmp/plan.json" plan -t "$TOPO" -j -s "$SCEN"

# "--" ends the options: what follows is an operand, "-vm" too.
expect 1 "$DOWN" --socket "$S" explain -- -vm 0
expect 1 "$DOWN" explain --socket "$S" vm -- 0
expect 1 "$DOWN" explain --socket "$S" -- -vm --json
expect 1 "VM '-nosuch': no such domain" \
	--connect "$VIRT" --policies "$POL" policy get -- -nosuch
usage_err "unexpected argument '--policies'" \
	policy get --connect "$VIRT" -- test --policies "$POL"

# POSIXLY_CORRECT asks getopt to stop at the first operand: not ours.
export POSIXLY_CORRECT=1
expect 1 "$DOWN" explain vm 0 --socket "$S"
expect 1 "$DOWN" --socket "$S" status --json
expect 0 "$MINE" policy get test --connect "$VIRT" --policies "$tmp/pol"
unset POSIXLY_CORRECT

# Unknown options, missing arguments, options the command does not take.
usage_err "unknown option '--frob'" status --frob --socket "$S"
usage_err "unknown option '--frob'" --frob status --socket "$S"
usage_err "unknown option '-x'" explain vm 0 -x --socket "$S"
usage_err "option '--socket' needs an argument" status --socket
usage_err "option '-s' needs an argument" status -s
usage_err "option '--json' takes no argument" status --json=yes
usage_err "option '--s' is ambiguous" --s "$S" status
usage_err "metrics does not take --json" metrics --json --socket "$S"
usage_err "reload does not take --json" --json reload --socket "$S"
usage_err "top does not take --json" top --json --socket "$S"
usage_err "topology does not take --socket" topology --socket "$S"
usage_err "topology does not take -s" topology -s "$S"
usage_err "status does not take --policies" status --policies "$POL"
usage_err "explain does not take --connect" explain vm 0 --connect "$VIRT"
usage_err "policy get does not take --socket" \
	policy get test --connect "$VIRT" --socket "$S"
usage_err "plan needs --scenario" --topology "$TOPO" plan
usage_err "explain needs VM VCPU" explain vm --socket "$S"
usage_err "status: unexpected argument 'now'" status now --socket "$S"
usage_err "--frames 'x': not a number" top --frames x --socket "$S"
usage_err "no command given" --socket "$S"
usage_err "policy needs a command" --connect "$VIRT" policy
usage_err "unknown command 'frob'" --socket "$S" frob

# --help at both levels: that command's usage, on stdout.
help "usage: vcpuplacectl topology" "no command" --help
help "usage: vcpuplacectl status [--socket PATH] [--json]" "explain" \
	status --help
help "usage: vcpuplacectl explain" "status" --help explain vm
help "vcpuplacectl policy set" "policy get" --connect "$VIRT" policy set -h
help "vcpuplacectl policy get" "status" policy --help

finish "option tests"
