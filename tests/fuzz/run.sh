#!/bin/sh
# tests/fuzz/run.sh - runs the libFuzzer targets built by fuzz.mk.
#
#   run.sh fuzz  BUILD SECONDS TARGET...   each target for SECONDS from
#                its committed corpus (FUZZ_RUNS=N: N executions instead);
#                new inputs go to BUILD/new/TARGET, crashes to
#                BUILD/artifacts/TARGET/
#   run.sh check BUILD 0 TARGET...         each target over its committed
#                corpus and tests/fuzz/regress/TARGET, then CHECK_RUNS
#                (20000, or TARGET.runs) executions of fuzzing from
#                -seed=1, without comparison tracing: reproducible
#
# One line per target: execs, exec/s, corpus size, whether it found
# anything.  Exits 1 if any target crashed, hung or broke a property.
set -u
mode=$1 build=$2 secs=$3
shift 3
here=$(dirname "$0")
fail=0

for t in "$@"; do
	bin=$build/fz_$t
	corpus=$here/corpus/$t
	regress=$here/regress/$t
	art=$build/artifacts/$t
	log=$build/log/$t.$mode.log
	mkdir -p "$art" "$build/log"
	set -- -error_exitcode=77 -timeout_exitcode=78 -timeout=25 \
		-print_final_stats=1 -artifact_prefix="$art/"
	[ -f "$here/$t.dict" ] && set -- "$@" -dict="$here/$t.dict"
	if [ "$mode" = check ]; then
		scratch=$build/check/$t
		rm -rf "$scratch"
		mkdir -p "$scratch"
		# comparison tracing sees pointers, which ASLR moves: without
		# it a seeded run mutates the same way every time
		# TARGET.runs: that target's own count (hwloc_xml: 0, the
		# corpus and regression inputs only, see README.md)
		runs=${CHECK_RUNS:-20000}
		[ -z "${CHECK_RUNS:-}" ] && [ -f "$here/$t.runs" ] &&
			runs=$(cat "$here/$t.runs")
		set -- "$@" -seed=1 -runs="$runs" -use_cmp=0 \
			-use_memmem=0 "$scratch" "$corpus"
		[ -d "$regress" ] && set -- "$@" "$regress"
	else
		scratch=$build/new/$t
		mkdir -p "$scratch"
		if [ -n "${FUZZ_RUNS:-}" ]; then
			set -- "$@" -runs="$FUZZ_RUNS"
		else
			set -- "$@" -max_total_time="$secs"
		fi
		set -- "$@" "$scratch" "$corpus"
	fi
	"$bin" "$@" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	ncorp=$(ls "$corpus" | wc -l)
	nnew=$(ls "$scratch" | wc -l)
	if [ $rc -eq 0 ]; then
		found=none
	else
		fail=1
		found="CRASH rc=$rc $(ls -t "$art" | head -n 1) (log: $log)"
		grep -m 3 -E 'ERROR:|runtime error|fuzz property' "$log" |
			sed 's/^/    /'
	fi
	echo "fuzz: $t execs=${execs:-?} exec_per_s=${rate:-?}" \
		"corpus=$ncorp new=$nnew found=$found"
done
exit $fail
