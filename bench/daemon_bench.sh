#!/bin/sh
# bench-daemon: vcpuplaced --dry-run against libvirt's test driver with
# 200 running VMs of 4 vCPUs, 60 s at a 250 ms tick.  Reports the
# daemon's CPU use (% of one CPU), peak RSS and plan time per tick, and,
# measured in the same run, the same daemon with no VM as the baseline.
#
#   daemon_bench.sh PATH/TO/vcpuplaced [SECONDS] [VMS] [VCPUS]
# Last line: daemon_cpu_pct=<x> rss_mib=<y>
set -eu
DAEMON=$1
SECS=${2:-60}
NVMS=${3:-200}
NVCPUS=${4:-4}
WARMUP=${WARMUP:-15}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)

# run NAME VMS SECONDS: prints "cpu_pct rss_kib p50_ns p99_ns ticks"
run() {
	python3 tests/integration/gen_testdriver.py "$2" "$NVCPUS" \
	    "$tmp/$1.xml" >/dev/null
	"$DAEMON" --connect "test://$tmp/$1.xml" --dry-run --tick 250 \
	    --policies policies --status-file "$tmp/$1.json" \
	    --socket "$tmp/$1.sock" \
	    2>"$tmp/$1.log" &
	pid=$!
	# start-up places every vCPU, 16 pins a tick (50 ticks for 800):
	# that is not the steady state we measure
	sleep "$WARMUP"
	t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	sleep "$3"
	t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
	# the daemon's own memory, without the ~18 MiB of mapped libraries
	# (libvirt pulls in gnutls, libcrypto, glib, icu ...)
	anon=$(awk '/^Anonymous:/ {print $2}' "/proc/$pid/smaps_rollup")
	kill -TERM "$pid"
	wait "$pid" || { echo "daemon failed:"; cat "$tmp/$1.log"; exit 1; }
	python3 - "$tmp/$1.json" "$t0" "$t1" "$hz" "$3" "$rss" "$2" "$anon" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
t0, t1, hz, secs, rss, nvms, anon = (float(x) for x in sys.argv[2:])
assert len(st["vms"]) == int(nvms), "VMs missing from the status"
assert st["libvirt_errors"] == 0, "libvirt errors during the run"
print("%.3f %d %d %d %d %d" % (100.0 * (t1 - t0) / hz / secs, rss,
      st["plan_ns_p50"], st["plan_ns_p99"], st["tick"], anon))
PY
}

set -- $(run base 0 10)
b_cpu=$1 b_rss=$2 b_anon=$6
set -- $(run full "$NVMS" "$SECS")
cpu=$1 rss=$2 p50=$3 p99=$4 ticks=$5 anon=$6
rss_mib=$(awk -v k="$rss" 'BEGIN {printf "%.1f", k / 1024}')
echo "| run | VMs x vCPUs | CPU % of one CPU | peak RSS MiB | anon MiB | plan p50 ms | plan p99 ms | ticks |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
awk -v c="$b_cpu" -v r="$b_rss" -v a="$b_anon" 'BEGIN {printf "| baseline | 0 | %.2f | %.1f | %.1f | - | - | - |\n", c, r / 1024, a / 1024}'
awk -v n="$NVMS x $NVCPUS" -v c="$cpu" -v r="$rss" -v a="$p50" -v b="$p99" -v t="$ticks" -v an="$anon" \
    'BEGIN {printf "| dry run | %s | %.2f | %.1f | %.1f | %.3f | %.3f | %d |\n", n, c, r / 1024, an / 1024, a / 1e6, b / 1e6, t}'
awk -v c="$cpu" -v b="$b_cpu" -v r="$rss" -v s="$b_rss" \
    'BEGIN {printf "ratios against the baseline: cpu %.1fx, rss %.2fx (targets: < 1 %% CPU, < 16 MiB)\n", (b > 0 ? c / b : 0), r / s}'
echo "daemon_cpu_pct=$cpu rss_mib=$rss_mib"
