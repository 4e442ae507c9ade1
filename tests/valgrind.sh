#!/bin/sh
# vcpuplaced under valgrind memcheck: a dry run against libvirt's test
# driver with 20 VMs for a few seconds, with every socket command, bad
# requests and a SIGHUP reload on the way, then SIGTERM.  Fails on any
# memcheck error and on definitely or indirectly lost memory.
set -eu
DAEMON=$1
command -v valgrind >/dev/null || sh "$(dirname "$0")/deps.sh" valgrind
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 tests/integration/gen_testdriver.py 20 4 "$tmp/td.xml" >/dev/null
valgrind --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --log-file="$tmp/vg.log" \
    "$DAEMON" --connect "test://$tmp/td.xml" --dry-run --tick 250 \
    --policies policies --status-file "$tmp/st.json" \
    --socket "$tmp/s.sock" 2>"$tmp/err" &
pid=$!
sleep 8
python3 - "$tmp/s.sock" <<'PY'
import socket, sys
for req in (b"status\n", b"metrics\n", b"explain vptest-td-0001 1\n",
            b"help\n", b"reload\n", b"bogus\n", b"\x00\xff\n", b"x" * 3000,
            b"policy vptest-td-0003 latency\n", b"explain nosuch 0\n",
            b"pause\n", b"status\n", b"resume\n",
            b"policy vptest-td-0004 nosuch\n", b"explain a vm with blanks 0\n"):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    s.connect(sys.argv[1])
    s.sendall(req)
    while s.recv(65536):
        pass
    s.close()
PY
kill -HUP "$pid"
sleep 4
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
vms=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['vms']))" "$tmp/st.json")
grep -E "ERROR SUMMARY|definitely|indirectly" "$tmp/vg.log" || true
if [ "$rc" -ne 0 ] || [ "$vms" -ne 20 ]; then
	echo "valgrind: FAIL (exit $rc, $vms VMs in status)"
	cat "$tmp/vg.log" "$tmp/err"
	exit 1
fi
echo "valgrind: 1 passed, 0 failed"
