#!/bin/sh
# vcpuplaced under valgrind memcheck: a dry run against libvirt's test
# driver with 20 VMs for a few seconds, on a fake kernel root with
# isolcpus=, with every socket command, bad
# requests and a SIGHUP reload on the way, then SIGTERM.  Fails on any
# memcheck error and on definitely or indirectly lost memory.
set -eu
DAEMON=$1
sh "$(dirname "$0")/../tools/deps/install.sh" valgrind
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 tests/integration/gen_testdriver.py 20 4 "$tmp/td.xml" >/dev/null
# a kernel with sched_ext booted with isolcpus=, so that start-up reads
# and reports the isolation (--kernel-root) under memcheck too
k=$tmp/kroot
mkdir -p "$k/sys/kernel/sched_ext" "$k/sys/kernel/btf" "$k/proc/sys/kernel" \
    "$k/sys/devices/system/cpu"
echo disabled >"$k/sys/kernel/sched_ext/state"
: >"$k/sys/kernel/btf/vmlinux"
echo 6.12.118-amd64 >"$k/proc/sys/kernel/osrelease"
echo 'ro isolcpus=domain,managed_irq,2-5 nohz_full=2-5 -- x' >"$k/proc/cmdline"
echo 2-5 >"$k/sys/devices/system/cpu/isolated"
valgrind --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --log-file="$tmp/vg.log" \
    "$DAEMON" --connect "test://$tmp/td.xml" --dry-run --tick 250 \
    --policies policies --status-file "$tmp/st.json" \
    --socket "$tmp/s.sock" --kernel-root "$k" 2>"$tmp/err" &
pid=$!
# No fixed sleeps: under valgrind on a loaded machine the daemon may take
# any time to start.  Wait (at most 5 minutes: only a hang) until its
# socket lists the 20 VMs, send the requests, then wait until each
# reload (the socket's, then SIGHUP's) is counted before stopping it.
if python3 - "$tmp/s.sock" "$pid" <<'PY'
import json, os, re, signal, socket, sys, time
sock, pid = sys.argv[1], int(sys.argv[2])
end = time.monotonic() + 300

def ask(req):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(60)
    s.connect(sock)
    s.sendall(req)
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
    s.close()
    return out.decode("utf-8", "replace")

def wait(what, pred):
    while True:
        try:
            if pred():
                return
        except (OSError, ValueError):
            pass
        if time.monotonic() > end:
            sys.exit("valgrind: not within 300 s: %s" % what)
        try:        # the daemon must still be there (not a zombie)
            with open("/proc/%d/stat" % pid) as f:
                alive = f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            alive = False
        if not alive:
            sys.exit("valgrind: the daemon exited while waiting for %s"
                     % what)
        time.sleep(0.2)

def reloads():
    m = re.search(r"^vcpuplace_reloads_total (\S+)$", ask(b"metrics\n"),
                  re.M)
    return float(m.group(1))

wait("20 VMs on the socket",
     lambda: len(json.loads(ask(b"status\n"))["vms"]) == 20)
for req in (b"status\n", b"metrics\n", b"explain vptest-td-0001 1\n",
            b"help\n", b"reload\n", b"bogus\n", b"\x00\xff\n", b"x" * 3000,
            b"policy vptest-td-0003 latency\n", b"explain nosuch 0\n",
            b"pause\n", b"status\n", b"resume\n",
            b"policy vptest-td-0004 nosuch\n",
            b"explain a vm with blanks 0\n"):
    ask(req)
wait("the socket's reload", lambda: reloads() >= 1)
os.kill(pid, signal.SIGHUP)
wait("SIGHUP's reload", lambda: reloads() >= 2)
PY
then
	kill -TERM "$pid"
else
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" || true
	echo "valgrind: FAIL (see above)"
	cat "$tmp/err"
	exit 1
fi
rc=0
wait "$pid" || rc=$?
vms=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['vms']))" "$tmp/st.json")
grep -E "ERROR SUMMARY|definitely|indirectly" "$tmp/vg.log" || true
if [ "$rc" -ne 0 ] || [ "$vms" -ne 20 ]; then
	echo "valgrind: FAIL (exit $rc, $vms VMs in status)"
	cat "$tmp/vg.log" "$tmp/err"
	exit 1
fi
if ! grep -q 'sched-ext unavailable: the kernel refuses BPF schedulers under isolcpus=' "$tmp/err"; then
	echo "valgrind: FAIL the isolcpus= refusal is not in the log"
	cat "$tmp/err"
	exit 1
fi
echo "valgrind: 1 passed, 0 failed"
