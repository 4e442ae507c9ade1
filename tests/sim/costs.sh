#!/bin/sh
# tests/sim/costs.sh - the host costs (bench/simulator/costs.c), each
# checked so that removing its rule fails a line here:
#   - migration: the sourced model costs more than the issue-6 L1d refill,
#     --migration-us X makes the in-LLC class exactly X and scales the
#     other classes by the same factor, and runs charge it;
#   - C-states: an idle PU's wake-up pays an exit latency;
#   - turbo: f(1) = 1, never above 1, never rising with more active
#     cores, all-core = 3.1/3.5 on g4dnmetal; a full host runs slower;
#   - halt polling: the window grows and shrinks as kvm_vcpu_halt()'s,
#     vCPUs poll, wake-ups are caught while polling, and --halt-poll-ns 0
#     stops it;
#   - idle upkeep: sched_ext's and SIS_CORE's mask updates are charged,
#     and a busy shared line queues its transfers;
#   - --cluster-line-ns moves the in-cluster migration cost;
#   - each machine its own architecture's costs (cpus.c): a POWER and an
#     arm64 host whose CPU model is unknown (the shipped XML with its
#     model names taken out) get their family's table, POWER HV's or
#     arm64's migration and halt-poll figures, never x86's; the run's
#     JSON line names the table it used;
#   - latency: poll hits are their own share, p50/p99/p99.9 are over
#     the wake-ups that waited.
#
#   costs.sh SIM TOPODIR
set -eu
sim=$1
dir=$2
g4=$dir/g4dnmetal.xml
arm=$dir/128arm-2pa2n8cluster4co.xml
fail=0

# field NAME JSON: a number or a JSON array of the line
field() {
	printf '%s\n' "$2" | sed "s/.*\"$1\":\(\[[^]]*\]\|[^,}]*\).*/\1/"
}
# nth N ARRAY (1-based)
nth() {
	printf '%s\n' "$2" | tr -d '[]' | cut -d, -f"$1"
}
check() {	# check DESCRIPTION AWK-CONDITION
	if ! awk "BEGIN { exit !($2) }"; then
		echo "FAIL: costs: $1 ($2)"
		fail=1
	fi
}
run() {
	"$sim" --seed 3 --warmup-ms 5 --measure-ms 10 "$@"
}

# migration tables
def=$(field migr_ns "$("$sim" --topology "$g4" --print-costs)")
old=$(field migr_ns "$("$sim" --topology "$g4" --print-costs --costs none)")
x7=$(field migr_ns "$("$sim" --topology "$g4" --print-costs --migration-us 7)")
check "model above the L1d refill" "$(nth 3 "$def") > 2.5 * $(nth 3 "$old")"
check "SMT-sibling move pays VMCS + TLB" "$(nth 1 "$def") > 0"
check "--migration-us sets the in-LLC class" "$(nth 3 "$x7") == 7000"
check "--migration-us scales the far class" \
    "($(nth 5 "$x7") - $(nth 5 "$def") * 7000 / $(nth 3 "$def"))^2 < 1"
a=$(field migr_ns "$("$sim" --topology "$arm" --print-costs)")
b=$(field migr_ns "$("$sim" --topology "$arm" --print-costs \
    --cluster-line-ns 30)")
check "--cluster-line-ns moves the cluster class" \
    "$(nth 2 "$b") > $(nth 2 "$a")"

# turbo table
tb=$(field turbo "$("$sim" --topology "$g4" --print-costs)")
check "turbo f(1) = 1" "$(nth 1 "$tb") == 1"
check "turbo all-core = 3.1 / 3.5" \
    "($(nth 24 "$tb") - 3.1 / 3.5)^2 < 1e-6"
printf '%s\n' "$tb" | tr -d '[]' | tr , '\n' | awk '
    $1 > 1 || (NR > 1 && $1 > prev) { bad = 1 } { prev = $1 }
    END { exit bad }' ||
    { echo "FAIL: costs: turbo above 1 or rising"; fail=1; }
nt=$(field turbo "$("$sim" --topology "$g4" --print-costs --no-turbo)")
check "--no-turbo is flat" "$(nth 24 "$nt") == 1"

# KVM's window adaptation, on a fixed series of halts (--print-costs):
# 4 x 50 us and 150 us grow it from 0, 5 x 1 ms shrink it back to 0
pw=$(field poll_windows "$("$sim" --topology "$g4" --print-costs)")
[ "$pw" = "[10000,20000,40000,80000,160000,80000,40000,20000,10000,0]" ] ||
    { echo "FAIL: costs: halt-poll windows $pw"; fail=1; }
pw=$(field poll_windows "$("$sim" --topology "$g4" --print-costs \
    --halt-poll-ns 0)")
[ "$pw" = "[0,0,0,0,0,0,0,0,0,0]" ] ||
    { echo "FAIL: costs: halt-poll windows with polling off $pw"; fail=1; }

# a shared idle-mask line queues its transfers (M/D/1): touched every
# 1 ms it costs one transfer, every 200 ns clearly more
ul=$(field upkeep_line_ns "$("$sim" --topology "$g4" --print-costs)")
check "idle-mask line contention" "$(nth 1 "$ul") == 95 && \
    $(nth 2 "$ul") >= $(nth 1 "$ul") && $(nth 3 "$ul") > 1.3 * $(nth 1 "$ul")"

# runs, with the invariants checked after every event
for c in none migration cstates turbo poll upkeep all; do
	eval "h_$c=\$(run --topology \"\$g4\" --workload hackbench --load 60 \
	    --strategy stock --costs $c --check)" || {
		echo "FAIL: costs: invariants with --costs $c"; fail=1; }
done
mig_per() {	# mean cost of one migration in a run line
	awk -v c="$(field migr_cost_ns "$1")" \
	    -v m="$(field migrations_per_s "$1")" 'BEGIN { print c / (m * 0.01) }'
}
m0=$(run --topology "$g4" --workload hackbench --load 125 --strategy stock \
    --costs none)
m1=$(run --topology "$g4" --workload hackbench --load 125 --strategy stock \
    --costs migration)
check "runs charge the migration model" \
    "$(mig_per "$m1") > 2 * $(mig_per "$m0") && $(mig_per "$m0") > 0"
check "C-state exits charged" "$(field cstate_ns "$h_cstates") > 0"
check "C-state exits delay wake-ups" \
    "$(field p99_ns "$h_cstates") > $(field p99_ns "$h_none")"
check "no C-state cost when off" "$(field cstate_ns "$h_none") == 0"
check "vCPUs halt-poll" "$(field poll_ns "$h_poll") > 0"
check "wake-ups caught while polling" \
    "$(field poll_hit_share "$h_poll") > 0.2"
# latency as a VM sees it: a poll hit did not wait, so it is its own
# share (poll_share), and the quantiles are over the wake-ups that
# waited; tbench at 60 % is nearly all poll hits, whose p99 counted
# as 0 ns was 0.5 (the *_all_ns fields keep that old figure); without
# host tasks, whose arrivals end some polls (hosttasks.sh)
tp=$(run --topology "$g4" --workload tbench --load 60 --strategy stock \
    --host-tasks 0)
check "poll hits are their own share" "$(field poll_share "$tp") > 0.9"
check "p99 over wake-ups that waited" "$(field p99_ns "$tp") > 1000"
check "p99.9 at least p99" "$(field p999_ns "$tp") >= $(field p99_ns "$tp")"
check "p99 with the poll hits as zeros" "$(field p99_all_ns "$tp") < 1"
# --poll-smt-weight: a polling sibling that takes nothing of its core
# (0) leaves its busy sibling more than one that takes a full share (1)
if w0=$(run --topology "$g4" --workload hackbench --load 60 \
    --strategy stock --poll-smt-weight 0 2>/dev/null) &&
    w1=$(run --topology "$g4" --workload hackbench --load 60 \
    --strategy stock --poll-smt-weight 1 2>/dev/null); then
	check "--poll-smt-weight 0 above 1" \
	    "$(field throughput "$w0") > 1.01 * $(field throughput "$w1")"
else
	echo "FAIL: costs: --poll-smt-weight refused"
	fail=1
fi
np=$(run --topology "$g4" --workload hackbench --load 60 --strategy stock \
    --costs poll --halt-poll-ns 0)
check "--halt-poll-ns 0 stops polling" "$(field poll_ns "$np") == 0"
scx=$(run --topology "$g4" --workload hackbench --load 60 --strategy scx \
    --costs upkeep)
sc=$(run --topology "$g4" --workload hackbench --load 60 \
    --strategy sis-core --costs upkeep)
st=$(run --topology "$g4" --workload hackbench --load 60 --strategy stock \
    --costs upkeep)
check "sched_ext idle-mask upkeep charged" \
    "$(field idle_upkeep_ns "$scx") > $(field idle_upkeep_ns "$sc")"
check "SIS_CORE's idle-mask upkeep charged" \
    "$(field idle_upkeep_ns "$sc") > $(field idle_upkeep_ns "$st")"

# turbo on a full host: every core busy runs at the all-core bin
ho=$(run --topology "$g4" --workload hogs --load 100 --strategy pinned \
    --costs none)
ht=$(run --topology "$g4" --workload hogs --load 100 --strategy pinned \
    --costs turbo)
check "turbo slows a full host to about 3.1 / 3.5" \
    "$(field throughput "$ht") / $(field throughput "$ho") < 0.95 && \
    $(field throughput "$ht") / $(field throughput "$ho") > 0.87"

# every strategy with every cost on, invariants after every event
for st in stock pinned daemon daemon-cores scx sis-core greedy; do
	for tw in g4dnmetal.xml:hackbench 128arm-2pa2n8cluster4co.xml:dense; do
		if ! "$sim" --topology "$dir/${tw%%:*}" --workload "${tw#*:}" \
		    --load 150 --strategy $st --seed 7 --check --costs all \
		    --warmup-ms 2 --measure-ms 5 >/dev/null; then
			echo "FAIL: costs: invariants: $tw 150 $st"
			fail=1
		fi
	done
done

# an unknown CPU model falls back to its own architecture's family
tmp=$(mktemp -d)
for f in coral-lassen.xml 128arm-2pa2n8cluster4co.xml; do
	sed '/name="CPUModel"/d; /name="DMI/d' "$dir/$f" >"$tmp/$f"
done
pc() {	# pc XML FIELD: a field of --print-costs, quotes dropped
	field "$2" "$("$sim" --topology "$1" --print-costs)" | tr -d '"'
}
expect_eq() {	# expect_eq WHAT GOT WANT
	[ "$2" = "$3" ] || { echo "FAIL: costs: $1: $2, want $3"; fail=1; }
}
p9=$tmp/coral-lassen.xml
a64=$tmp/128arm-2pa2n8cluster4co.xml
expect_eq "unknown POWER model's table" "$(pc "$p9" cpu)" "POWER (generic)"
expect_eq "unknown POWER model's KVM" "$(pc "$p9" vmm)" "POWER HV"
expect_eq "unknown POWER model's halt_poll_ns" \
    "$(pc "$p9" halt_poll_max_ns)" 10000
expect_eq "POWER KVM HV's shrink resets" "$(pc "$p9" halt_poll_shrink)" 0
expect_eq "POWER9's own table" "$(pc "$dir/coral-lassen.xml" cpu)" POWER9
expect_eq "unknown arm64 model's table" "$(pc "$a64" cpu)" "arm64 (generic)"
expect_eq "unknown arm64 model's KVM" "$(pc "$a64" vmm)" arm64
expect_eq "unknown arm64 model's halt_poll_ns" \
    "$(pc "$a64" halt_poll_max_ns)" 500000
expect_eq "GB10's KVM" "$(pc "$dir/nvidia-dgx-gb10.xml" vmm)" arm64
expect_eq "x86's shrink" "$(pc "$g4" halt_poll_shrink)" 2
check "POWER HV's migration is not VMX's" \
    "$(nth 1 "$(pc "$p9" migr_ns)") < $(nth 1 "$(pc "$g4" migr_ns)")"
l=$(run --topology "$p9" --workload hogs --load 50 --strategy stock)
expect_eq "a run names its table" "$(field cpu_table "$l" | tr -d '"')" \
    "POWER (generic)"
rm -rf "$tmp"

[ $fail = 0 ] && echo "check-sim costs: all cost checks hold"
exit $fail
