#!/bin/sh
# tests/sim/run.sh - the simulator's invariants, in a few seconds:
#   - with --check, after every event: one thread per PU at a time, a
#     thread in one place at a time, inside its allowed set; at the end,
#     every ns of work handed out is done or still owed (conserved);
#   - the oracle is never beaten on throughput by another strategy on
#     the same seed (short runs: within 2 %, the seeds' own noise), in
#     the issue-6 model (--costs none): greedy's estimates know nothing
#     of issue 12's costs, which tests/sim/costs.sh checks;
#   - the same seed gives the same JSON line twice (determinism).
#
#   run.sh SIM TOPODIR
set -eu
sim=$1
dir=$2
fail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

thr() {
	sed 's/.*"throughput":\([0-9.e+-]*\).*/\1/' "$1"
}

for topo in g4dnmetal.xml 128arm-2pa2n8cluster4co.xml; do
	for wl in hackbench tbench schbench hogs dense; do
		loads=150
		case $wl in hackbench|tbench) loads="60 150" ;; esac
		for load in $loads; do
			best=0
			for st in stock pinned daemon daemon-cores scx patch-0003 greedy; do
				if ! "$sim" --topology "$dir/$topo" --workload $wl \
				    --load $load --strategy $st --seed 7 --check \
				    --costs none \
				    --warmup-ms 2 --measure-ms 5 >"$out"; then
					echo "FAIL: invariant: $topo $wl $load $st"
					fail=1
					continue
				fi
				t=$(thr "$out")
				if [ $st = greedy ]; then
					if awk -v o="$t" -v b="$best" \
					    'BEGIN { exit !(o < 0.98 * b) }'; then
						echo "FAIL: oracle beaten: $topo $wl" \
						    "$load: oracle $t, best other $best"
						fail=1
					fi
				elif awk -v t="$t" -v b="$best" \
				    'BEGIN { exit !(t > b) }'; then
					best=$t
				fi
			done
		done
	done
done

# a hybrid host (P- and E-cores of unequal priority), invariants only
for st in stock pinned daemon daemon-cores scx patch-0003 greedy; do
	if ! "$sim" --topology "$dir/Intel-RaptorLake-Corei7-1370P.xml" \
	    --workload dense --load 150 --strategy $st --seed 5 --check \
	    --warmup-ms 2 --measure-ms 5 >"$out"; then
		echo "FAIL: invariant: RaptorLake dense 150 $st"
		fail=1
	fi
done

a=$("$sim" --topology "$dir/g4dnmetal.xml" --workload dense --load 125 \
    --strategy scx --seed 3 --measure-ms 10)
b=$("$sim" --topology "$dir/g4dnmetal.xml" --workload dense --load 125 \
    --strategy scx --seed 3 --measure-ms 10)
if [ "$a" != "$b" ]; then
	echo "FAIL: same seed, different result"
	fail=1
fi
sh "$(dirname "$0")/scx.sh" "$sim" "$dir" || fail=1
[ $fail = 0 ] && echo "check-sim: all invariants hold"
exit $fail
