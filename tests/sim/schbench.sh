#!/bin/sh
# tests/sim/schbench.sh - schbench's request wait counts every request
# (workload.c): one the message vCPU posts while its worker is still busy
# waits in the worker's list (schbench -R) and has no wake-up of its own,
# so the wake-up latencies alone miss it.  Each period wakes the message
# vCPU once and posts to its 4 workers, so without the requests that
# waited behind a busy worker the requests would be at most 4/5 of the
# wake-ups; at 150 % on stock many workers are busy at the post, and the
# requests must come out above that.  Fails when workload.c stops
# timing a pending request (start_request()).
#
#   schbench.sh SIM TOPODIR
set -eu
sim=$1
dir=$2

field() {
	sed "s/.*\"$1\":\([0-9.e+-]*\).*/\1/"
}

line=$("$sim" --topology "$dir/g4dnmetal.xml" --seed 7 --warmup-ms 20 \
    --measure-ms 20 --workload schbench --load 150 --strategy stock)
req=$(echo "$line" | field requests_per_s)
wakes=$(echo "$line" | field wakes_per_s)
if ! awk -v r="$req" -v w="$wakes" 'BEGIN { exit !(r > 0.82 * w) }'; then
	echo "FAIL: schbench 150 %: $req requests/s for $wakes wake-ups/s:" \
	    "the requests that waited behind a busy worker are not counted"
	exit 1
fi
echo "check-sim: schbench counts every request ($req/s, $wakes wake-ups/s)"
