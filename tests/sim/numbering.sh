#!/bin/sh
# tests/sim/numbering.sh - the same machine under other CPU numbers gives
# the same answer.  Every shipped topology is renumbered at test time by
# tests/sim/renumber.py (a fixed permutation that turns the sibling
# interleave over: POWER's consecutive siblings numbered apart, x86's
# apart ones numbered together, cores riffled); every strategy must then
# give the same throughput, the mean of seeds 101-103, within the seeds'
# own spread (max - min, the larger of the two copies') plus 0.5 % for
# the order of float sums.  Hogs at 100 % (one vCPU per core: where the
# first placement decides the run) and the dense mix at 125 %.
#
# pinned is left out: an admin's `virsh vcpupin` in CPU order is a
# numbering by definition, and it is a strategy, not the judge.
# sis-core is held to the dense mix only.  The SIS_CORE patch's second
# draft walks the idle cores only for a wake-up that kept an idle CPU
# aside, and leaves the others to stock's scan; on g4dnmetal's hogs the
# share of each shifts with the numbering (seed 101: 302 walks and 125
# stock scans, renumbered 207 and 175), and so does the answer: 40.39
# cores against 40.79 over seeds 101-106, beyond the seeds' spread.
# That is the patch's own dependence on CPU numbers (its walk and stock's
# scan both go from target + 1 in CPU order), reported in
# bench/notes/stock.md, not a fault of the judge.
#
# Stock failed this before fork.c: its threads started on PUs in CPU
# order, so on POWER9 (coral-lassen) every sibling of a core was busy
# before the next core got a thread, and stayed so.
#
#   numbering.sh SIM TOPODIR
set -eu
sim=$1
dir=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
here=$(dirname "$0")

# thr3 TOPOLOGY WORKLOAD:LOAD:MS STRATEGY: the three seeds' throughputs
thr3() {
	w=${2%%:*}
	l=${2#*:}
	for seed in 101 102 103; do
		"$sim" --topology "$1" --workload "$w" --load "${l%%:*}" \
		    --strategy "$3" --seed $seed --warmup-ms 20 \
		    --measure-ms "${l#*:}" |
		    sed 's/.*"throughput":\([0-9.e+-]*\).*/\1/'
	done | tr '\n' ' '
}

for f in "$dir"/*.xml; do
	b=$(basename "$f")
	python3 "$here/renumber.py" "$f" "$tmp/$b"
	for wl in hogs:100:120 dense:125:40; do
		strats="stock daemon daemon-cores scx greedy"
		[ "${wl%%:*}" = hogs ] || strats="$strats sis-core"
		for st in $strats; do
			o=$(thr3 "$f" $wl $st)
			r=$(thr3 "$tmp/$b" $wl $st)
			echo "$o $r" | awk -v what="$b $wl $st" '{
			    mo = ($1 + $2 + $3) / 3; mr = ($4 + $5 + $6) / 3
			    lo = $1; hi = $1; for (i = 2; i <= 3; i++) {
			        if ($i < lo) lo = $i; if ($i > hi) hi = $i }
			    so = hi - lo
			    lo = $4; hi = $4; for (i = 5; i <= 6; i++) {
			        if ($i < lo) lo = $i; if ($i > hi) hi = $i }
			    sr = hi - lo
			    tol = (so > sr ? so : sr) + 0.005 * mo
			    d = mr - mo; if (d < 0) d = -d
			    if (d > tol) {
			        printf "FAIL: numbering: %s: %.3f cores, " \
			            "renumbered %.3f (spread %.3f)\n", what, mo, mr, tol
			        exit 1 } }' || fail=1
		done
	done
done
[ $fail = 0 ] && echo "check-sim: every strategy but pinned is" \
    "numbering-invariant (sis-core on the dense mix)"
exit $fail
