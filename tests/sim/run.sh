#!/bin/sh
# tests/sim/run.sh - the simulator's invariants, in a few seconds:
#   - with --check, after every event: one thread per PU at a time, a
#     thread in one place at a time, inside its allowed set; at the end,
#     every ns of work handed out is done or still owed (conserved);
#   - no strategy's throughput exceeds the run's "bound" (bound.c: a
#     true upper bound, so no tolerance), and the bound is not loose
#     where the demand is known: hogs at 50 %, one vCPU = one core,
#     bound within 5 % of what stock realises;
#   - daemon-cores grants a core to every busy vCPU when cores allow:
#     hogs at 50 %, after its first 50 ms tick, from schedstat figures;
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

bound() {
	sed 's/.*"bound":\([0-9.e+-]*\).*/\1/' "$1"
}

for topo in g4dnmetal.xml 128arm-2pa2n8cluster4co.xml; do
	for wl in hackbench tbench schbench hogs dense; do
		loads=150
		case $wl in hackbench|tbench) loads="60 150" ;; esac
		for load in $loads; do
			for st in stock pinned daemon daemon-cores scx sis-core greedy; do
				if ! "$sim" --topology "$dir/$topo" --workload $wl \
				    --load $load --strategy $st --seed 7 --check \
				    --costs none \
				    --warmup-ms 2 --measure-ms 5 >"$out"; then
					echo "FAIL: invariant: $topo $wl $load $st"
					fail=1
					continue
				fi
				t=$(thr "$out")
				b=$(bound "$out")
				if awk -v t="$t" -v b="$b" \
				    'BEGIN { exit !(t > b * (1 + 1e-9)) }'; then
					echo "FAIL: bound beaten: $topo $wl $load" \
					    "$st: throughput $t, bound $b"
					fail=1
				fi
			done
		done
	done
done

# the bound is not absurdly loose where demand is known: hogs at 50 %,
# without the host costs (costs.c) (turbo, polling and C-states take their share
# of a real host's capacity, which the bound does not know)
for topo in g4dnmetal.xml 128arm-2pa2n8cluster4co.xml; do
	"$sim" --topology "$dir/$topo" --workload hogs --load 50 \
	    --strategy stock --seed 7 --warmup-ms 2 --measure-ms 5 \
	    --costs none >"$out"
	t=$(thr "$out")
	b=$(bound "$out")
	if awk -v t="$t" -v b="$b" 'BEGIN { exit !(b > 1.05 * t) }'; then
		echo "FAIL: bound loose: $topo hogs 50: bound $b," \
		    "stock $t"
		fail=1
	fi
done

# daemon-cores: every hog (busy all tick) holds a core after one tick
for topo in g4dnmetal.xml 128arm-2pa2n8cluster4co.xml; do
	"$sim" --topology "$dir/$topo" --workload hogs --load 50 \
	    --strategy daemon-cores --seed 7 --check --warmup-ms 50 \
	    --measure-ms 5 >"$out"
	g=$(sed 's/.*"grants":\([0-9-]*\).*/\1/' "$out")
	v=$(sed 's/.*"vcpus":\([0-9]*\).*/\1/' "$out")
	if [ "$g" != "$v" ]; then
		echo "FAIL: daemon-cores: $topo hogs 50: $g grants, $v vCPUs"
		fail=1
	fi
done

# a hybrid host (P- and E-cores of unequal priority): invariants, bound
for st in stock pinned daemon daemon-cores scx sis-core greedy; do
	if ! "$sim" --topology "$dir/Intel-RaptorLake-Corei7-1370P.xml" \
	    --workload dense --load 150 --strategy $st --seed 5 --check \
	    --warmup-ms 2 --measure-ms 5 >"$out"; then
		echo "FAIL: invariant: RaptorLake dense 150 $st"
		fail=1
	elif awk -v t="$(thr "$out")" -v b="$(bound "$out")" \
	    'BEGIN { exit !(t > b * (1 + 1e-9)) }'; then
		echo "FAIL: bound beaten: RaptorLake dense 150 $st"
		fail=1
	fi
done

# halt polling against the run queues, with every cost on: a balance pull
# or a wake-up that lands where a vCPU polls ends the poll (stock), and
# under sched_ext a thread in the shared queue counts on its task_cpu's
# runqueue, where no vCPU may poll (both broke --check once, at ~180 ms)
for st in stock scx; do
	if ! "$sim" --topology "$dir/128arm-2pa2n8cluster4co.xml" \
	    --workload hackbench --load 125 --strategy $st --seed 1 --check \
	    --warmup-ms 60 --measure-ms 140 >"$out"; then
		echo "FAIL: invariant: 128arm hackbench 125 $st, polling"
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
