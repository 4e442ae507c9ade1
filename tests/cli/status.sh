#!/bin/sh
# CLI tests of `vcpuplacectl status`'s table, from canned answers
# (tests/cli/canned_daemon.py serves a status JSON on a socket): the
# libvirt worker's line in each of its states, and a status from a
# daemon older than the worker (no "libvirt" object), which must still
# print, with the line saying "unknown".
#
#   status.sh PATH/TO/vcpuplacectl
set -u
CTL=$1
. "$(dirname "$0")/lib.sh"

S=$tmp/vp.sock
ANS=$tmp/answer.json
srv=
trap '[ -n "$srv" ] && kill "$srv" 2>/dev/null; rm -rf "$tmp"' EXIT

# answer LIBVIRT: the canned status, with LIBVIRT as its "libvirt" member
# (empty: none, as a daemon older than the worker sends)
answer() {
	lv=${1:+"\"libvirt\": $1,"}
	cat >"$ANS" <<JSON
{"host": {"hostname": "h1", "topology": {"packages": 1, "llcs": 1,
  "cores": 4, "pus": 8, "smt": 2}},
 "tick": 812, "tick_ms": 250, "connected": true, $lv
 "dry_run": false, "paused": false, "kernel_mode": "userspace",
 "sis_core": "absent", "smt_conflicts": 0, "invalid_metadata": 0,
 "libvirt_errors": 0, "plan_ns_p50": 120000, "plan_ns_p99": 480000,
 "vms": [{"name": "web1", "policy": {"profile": "latency",
   "mode": "shared"}, "vcpus": [{"vcpu": 0, "home": "3",
   "allowed": "2-3", "current": "3", "reason": "idle-core",
   "busy": 0.25, "delay_seconds": 0.0001, "smt_conflict": false}]}]}
JSON
}

# line WANT LIBVIRT: status exits 0, prints WANT as a whole line, and
# the VM's row after it
line() {
	answer "$2"
	"$CTL" status --socket "$S" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		ko "status: exit $rc: $(cat "$tmp/out")"
	elif ! grep -qxF -- "$1" "$tmp/out"; then
		ko "status lacks the line '$1': $(cat "$tmp/out")"
	elif ! grep -q "^web1 " "$tmp/out"; then
		ko "status lacks the VM's row: $(cat "$tmp/out")"
	else
		ok
	fi
}

answer ""
python3 "$(dirname "$0")/canned_daemon.py" "$S" "$ANS" &
srv=$!
i=0
while [ ! -S "$S" ] && [ "$i" -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -S "$S" ] || { ko "canned daemon: no socket $S after 10 s"; finish status; exit; }

line "libvirt: answering (snapshot 0.4 s old)" \
	'{"state": "answering", "request": null, "request_seq": 0,
	  "request_age_ms": 0, "snapshot_age_ms": 400, "stalls": 0}'
# a request out, not yet a stall: still answering; past stalls shown
line "libvirt: answering (snapshot 9.6 s old; stalls 2)" \
	'{"state": "answering", "request": "apply", "request_seq": 811,
	  "request_age_ms": 300, "snapshot_age_ms": 9600, "stalls": 2}'
line "libvirt: NOT answering: refresh 812 waiting 12.3 s (snapshot 14.3 s old; stalls 2)" \
	'{"state": "waiting", "request": "refresh", "request_seq": 812,
	  "request_age_ms": 12345, "snapshot_age_ms": 14300, "stalls": 2}'
line "libvirt: NOT answering: connecting, policy 9 waiting 40.0 s (no snapshot yet; stalls 1)" \
	'{"state": "connecting", "request": "policy", "request_seq": 9,
	  "request_age_ms": 40000, "snapshot_age_ms": -1, "stalls": 1}'
line "libvirt: DISCONNECTED (snapshot 3.0 s old)" \
	'{"state": "disconnected", "request": null, "request_seq": 0,
	  "request_age_ms": 0, "snapshot_age_ms": 3000, "stalls": 0}'
line "libvirt: unknown (the daemon does not report it)" ""

# --json passes the answer through as it came
answer ""
"$CTL" status --json --socket "$S" >"$tmp/out" 2>&1 &&
	cmp -s "$tmp/out" "$ANS" && ok || ko "status --json: not the answer"
grep -qvx "status" "$S.log" && ko "requests other than status: $(cat "$S.log")" || ok

finish status
