#!/bin/busybox sh
# tests/scx/isolcpus.sh, run by the scx-test guest's /init in place of
# daemon.sh when the kernel was booted with isolcpus=domain,2-3
# (make scx-test-isolcpus, not part of scx-test or check):
#   1. the kernel's view: /sys/devices/system/cpu/isolated says 2-3;
#   2. vcpuplaced --sched-ext=auto sees the refusal before loading: its
#      log says "sched-ext unavailable: the kernel refuses ...", metrics
#      say cause isolcpus and mode userspace, sched_ext stays disabled and
#      the kernel printed no refusal (nothing was tried);
#   3. --sched-ext=on does not start (exit 1, the reason in the log);
#   4. the kernel does refuse: scx_smoke's load fails and dmesg has
#      "Not compatible with "isolcpus=" domain isolation".
# A kernel without CONFIG_CPU_ISOLATION (the test kernel's allnoconfig
# base) ignores isolcpus=: the isolated file is empty, and then the
# daemon must not refuse (no false refusal from the command line alone):
# it loads, the verdict is none, and scx_smoke loads too.
# The last line: "scx_isolcpus: PASS" or "scx_isolcpus: FAIL <why>".
T=/tests
SOCK=/run/vp.sock
LOG=/tmp/vcpuplaced.log
export HOME=/tmp

fail() {
	echo "scx_isolcpus: FAIL $*"
	echo "SCXTEST: daemon log:"
	tail -30 "$LOG" | sed 's/^/SCXTEST:   /'
	exit 1
}

ctl() { "$T/bin/vcpuplacectl" --socket "$SOCK" "$@"; }

wait_for() {
	n=$(($1 * 10))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

mkdir -p /run/libvirt/qemu /tmp /etc
mount -t tmpfs tmpfs /tmp
echo "SCXTEST: cmdline $(cat /proc/cmdline)"
grep -q 'isolcpus=domain,2-3' /proc/cmdline || fail "booted without isolcpus=domain,2-3"
iso=$(cat /sys/devices/system/cpu/isolated)
if [ -z "$iso" ]; then
	echo "SCXTEST: isolated is empty: a kernel without CONFIG_CPU_ISOLATION ignores isolcpus="
	"$T/bin/vcpuplaced" --connect "test://$T/node.xml" --policies "$T/policies" \
		--socket "$SOCK" --tick 100 --sched-ext=auto >>"$LOG" 2>&1 &
	daemon=$!
	wait_for 30 sh -c "'$T/bin/vcpuplacectl' --socket $SOCK metrics | grep -q 'vcpuplace_kernel_mode{mode=\"sched-ext\"} 1'" ||
		fail "not loaded where the kernel ignores isolcpus="
	ctl metrics | grep -q 'vcpuplace_sched_ext_isolation{verdict="none"} 1' ||
		fail "isolation verdict is not none"
	grep -m1 'kernel mode' "$LOG" | sed 's/^/SCXTEST: log: /'
	kill "$daemon"
	wait "$daemon"
	wait_for 5 grep -q disabled /sys/kernel/sched_ext/state || fail "not unloaded"
	"$T/scx_smoke" >/tmp/smoke.log 2>&1 || fail "scx_smoke: $(tail -2 /tmp/smoke.log)"
	echo "SCXTEST: no CPU isolation in this kernel: loaded; the refusal not exercised"
	echo "scx_isolcpus: PASS"
	exit 0
fi
[ "$iso" = 2-3 ] || fail "isolated is '$iso', not 2-3"

# 2. auto: refused before loading, said so, userspace mode
"$T/bin/vcpuplaced" --connect "test://$T/node.xml" --policies "$T/policies" \
	--socket "$SOCK" --tick 100 --sched-ext=auto >>"$LOG" 2>&1 &
daemon=$!
wait_for 30 sh -c "'$T/bin/vcpuplacectl' --socket $SOCK metrics | grep -q 'vcpuplace_sched_ext_state{state=\"unavailable\",cause=\"isolcpus\"} 1'" ||
	fail "no state unavailable/isolcpus 30 s after start"
ctl metrics | grep -q 'vcpuplace_kernel_mode{mode="userspace"} 1' ||
	fail "kernel mode is not userspace"
ctl metrics | grep -q 'vcpuplace_sched_ext_isolation{verdict="isolcpus-domain"} 1' ||
	fail "isolation verdict is not isolcpus-domain"
grep -q 'kernel mode: userspace (sched-ext unavailable: the kernel refuses BPF schedulers under isolcpus= domain isolation (isolcpus=domain,2-3 on the kernel command line; CPUs 2-3 isolated)' "$LOG" ||
	fail "the log lacks the refusal"
grep -m1 'kernel mode' "$LOG" | sed 's/^/SCXTEST: log: /'
ctl status | grep -m1 'sched_ext' | sed 's/^/SCXTEST: status: /'
[ "$(cat /sys/kernel/sched_ext/state)" = disabled ] || fail "sched_ext is not disabled"
dmesg | grep -q 'Not compatible with "isolcpus="' &&
	fail "the daemon tried to load (the kernel printed its refusal)"
kill "$daemon"
wait "$daemon"

# 3. on: no start
"$T/bin/vcpuplaced" --connect "test://$T/node.xml" --policies "$T/policies" \
	--socket "$SOCK.on" --tick 100 --sched-ext=on >>"$LOG" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "--sched-ext=on exited $rc, not 1"
grep -q -- '--sched-ext=on: cannot run the BPF scheduler: the kernel refuses' "$LOG" ||
	fail "--sched-ext=on did not say why"

# 4. the kernel's own refusal, which the daemon predicted
"$T/scx_smoke" >/tmp/smoke.log 2>&1 && fail "scx_smoke loaded a scheduler under isolcpus="
dmesg | grep -m1 'Not compatible with "isolcpus="' | sed 's/^/SCXTEST: dmesg: /'
dmesg | grep -q 'Not compatible with "isolcpus=" domain isolation' ||
	fail "the kernel did not print its refusal: $(tail -3 /tmp/smoke.log)"
echo "scx_isolcpus: PASS"
