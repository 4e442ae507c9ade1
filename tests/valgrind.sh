#!/bin/sh
# vcpuplaced under valgrind memcheck: a dry run against libvirt's test
# driver with 20 VMs for a few seconds, then SIGTERM.  Fails on any
# memcheck error and on definitely or indirectly lost memory.
set -eu
DAEMON=$1
command -v valgrind >/dev/null || apt-get install -y -qq valgrind
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 tests/integration/gen_testdriver.py 20 4 "$tmp/td.xml" >/dev/null
valgrind --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --log-file="$tmp/vg.log" \
    "$DAEMON" --connect "test://$tmp/td.xml" --dry-run --tick 250 \
    --policies policies --status-file "$tmp/st.json" 2>"$tmp/err" &
pid=$!
sleep 12
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
