#!/bin/sh
# tests/sim/stock.sh - the 6.12 wake and balance rules of the stock model, each
# with a short run that fails when the rule is taken out:
#   - one probe for prev (select_idle_sibling() after wake_affine()):
#     at 60 % load nearly every wake-up finds prev idle, one probe;
#   - newidle gated by max_newidle_lb_cost, not avg_idle >= 500 us:
#     schbench 125 % p99 on g4dn below 1.5 ms (the old gate: 2.3 ms);
#   - select_idle_capacity() on an asym-capacity host (GB10, no SMT):
#     the whole span, unbounded by SIS_UTIL, is scanned when the target,
#     prev and recent do not fit or are busy (without it: ~2.5 probes);
#   - sis-core (the SIS_CORE patch) takes a whole idle core before a
#     busy core's idle sibling: fewer busy-sibling wake-ups than daemon,
#     the same plan with the feature off (tests/sim/rules.c checks the
#     rules one by one).
#
# Each runs with --costs none: these check the wake and balance rules,
# and halt polling or C-state exits would hide what a rule changes.
#
#   stock.sh SIM TOPODIR
set -eu
sim=$1
dir=$2
fail=0

field() {
	sed "s/.*\"$1\":\([0-9.e+-]*\).*/\1/"
}

run() {
	"$sim" --topology "$dir/g4dnmetal.xml" --seed 7 --warmup-ms 20 \
	    --measure-ms 20 --costs none "$@"
}

p=$(run --workload hackbench --load 60 --strategy stock | \
    field probes_per_wake)
if awk -v p="$p" 'BEGIN { exit !(p >= 1.5) }'; then
	echo "FAIL: prev probed twice: $p probes per wake at 60 %"
	fail=1
fi

q=$(run --workload schbench --load 125 --strategy stock | field p99_ns)
if awk -v q="$q" 'BEGIN { exit !(q >= 1500000) }'; then
	echo "FAIL: newidle gate: schbench 125 % p99 $q ns"
	fail=1
fi

c=$("$sim" --topology "$dir/nvidia-dgx-gb10.xml" --seed 7 --warmup-ms 50 \
    --measure-ms 50 --costs none --workload dense --load 125 \
    --strategy stock | \
    field probes_per_wake)
if awk -v c="$c" 'BEGIN { exit !(c < 5) }'; then
	echo "FAIL: select_idle_capacity: GB10 dense $c probes per wake"
	fail=1
fi

a=$(run --workload schbench --load 125 --strategy sis-core | \
    field busy_sibling_share)
b=$(run --workload schbench --load 125 --strategy daemon | \
    field busy_sibling_share)
if awk -v a="$a" -v b="$b" 'BEGIN { exit !(a >= b) }'; then
	echo "FAIL: sis-core busy-sibling share $a, daemon $b"
	fail=1
fi
[ $fail = 0 ] && echo "check-sim: stock rules hold"
exit $fail
