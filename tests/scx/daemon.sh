#!/bin/busybox sh
# tests/scx/daemon.sh, run by the scx-test guest's /init (tests/scx/init.sh)
# when the initramfs carries the daemon: vcpuplaced, built with the BPF
# scheduler, runs on a kernel with sched_ext and does it all by itself.
#
# libvirt's test driver (test:///tests/node.xml, no libvirtd) lists two
# running domains; scx_fakevm stands in for their QEMU processes (a
# pidfile, threads named "CPU n/KVM" that work and sleep like vCPUs).
#   1. --sched-ext=auto loads the scheduler: metrics and status say mode
#      sched-ext,
#      the fake vCPU threads become SCHED_EXT, their wake-ups are counted
#      per vCPU and show in explain; CPU 3 offline, then online: each
#      time the kernel unloads it asking for a restart, and the daemon
#      loads it again by itself (enabled, ops vcpuplace), counted once
#      each in restarts_total and logged once, never as an ejection;
#   2. SysRq-S ejects it: the daemon notices, counts it once, falls back to
#      userspace mode, moves the threads back to SCHED_OTHER, keeps
#      placing, and does not load it again;
#      Meanwhile it keeps sched_ext's four capabilities (it may reload)
#      and no other of the unit's; ejected, it drops those four too;
#   3. a new daemon loads it again, and a vCPU thread in a class of its
#      own (SCHED_BATCH, as <vcpusched> sets) is left in it, counted;
#      SIGKILL of the daemon: the kernel unloads it within a second (the
#      link dies with the process).
# The last line: "scx_daemon: PASS" or "scx_daemon: FAIL <why>".
T=/tests
SOCK=/run/vp.sock
LOG=/tmp/vcpuplaced.log
export HOME=/tmp

fail() {
	echo "scx_daemon: FAIL $*"
	echo "SCXTEST: daemon log:"
	tail -30 "$LOG" | sed 's/^/SCXTEST:   /'
	exit 1
}

ctl() { "$T/bin/vcpuplacectl" --socket "$SOCK" "$@"; }
metric() { ctl metrics 2>/dev/null | grep -E "^$1" ; }

# wait_for SECONDS CMD...: until CMD succeeds; the only timing here is a
# generous bound on a state that must come, never a verdict by itself
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

# policy of thread TID (field 41 of stat; comm may hold spaces)
policy_of() { sed 's/.*) //' "/proc/$1/task/$2/stat" | awk '{ print $39 }'; }

# all_threads_policy PID WANT [LAST]: every "CPU n/KVM" thread of PID
# has WANT, but for the last vCPU (CPU 1) which has LAST if given
all_threads_policy() {
	for t in /proc/"$1"/task/*; do
		grep -q '^CPU ' "$t/comm" || continue
		want=$2
		[ -n "$3" ] && grep -q '^CPU 1/' "$t/comm" && want=$3
		[ "$(policy_of "$1" "${t##*/}")" = "$want" ] || return 1
	done
}

# has_caps HELD NAME...: the daemon's metrics say each NAME is HELD (0/1)
has_caps() {
	held=$1
	shift
	for c in "$@"; do
		metric "vcpuplace_capability\\{name=\"$c\"\\} $held\$" || return 1
	done
}

mkdir -p /run/libvirt/qemu /tmp /etc
mount -t tmpfs tmpfs /tmp
"$T/scx_fakevm" vptest-td-0000 2 /run/libvirt/qemu &
vm_a=$!
"$T/scx_fakevm" vptest-td-0001 2 /run/libvirt/qemu &
vm_b=$!
wait_for 10 test -s /run/libvirt/qemu/vptest-td-0001.pid ||
	fail "the fake VMs wrote no pidfile"

start_daemon() {
	"$T/bin/vcpuplaced" --connect "test://$T/node.xml" --policies "$T/policies" \
		--socket "$SOCK" --tick 100 --sched-ext="$1" >>"$LOG" 2>&1 &
	daemon=$!
}

# 1. auto loads it
start_daemon auto
wait_for 30 sh -c "'$T/bin/vcpuplacectl' --socket $SOCK metrics | grep -q 'vcpuplace_kernel_mode{mode=\"sched-ext\"} 1'" ||
	fail "no sched-ext mode 30 s after start"
[ "$(cat /sys/kernel/sched_ext/root/ops)" = vcpuplace ] ||
	fail "root/ops is not vcpuplace"
grep -m1 'kernel mode' "$LOG" | sed 's/^/SCXTEST: log: /'
ctl status | grep -m1 '^kernel mode' | sed 's/^/SCXTEST: status: /'
ctl status | grep -q '^kernel mode sched-ext' || fail "status does not say kernel mode sched-ext"
"$T/bin/vcpuplaced" --version | sed 's/^/SCXTEST: version: /'
# cgroup cpu.weight: the gauge says whether it is honoured, and a kernel
# without cgroup ops in sched_ext (the 6.12 test kernel) is said in the log
cgw=$(metric 'vcpuplace_sched_ext_cgroup_weight ' | cut -d' ' -f2)
echo "SCXTEST: cgroup weights honoured: ${cgw:-no metric}"
case "$cgw" in
1) ;;
0) grep -q 'cgroup cpu.weight not honoured' "$LOG" ||
	fail "cgroup weights not honoured and the log does not say so" ;;
*) fail "no vcpuplace_sched_ext_cgroup_weight metric" ;;
esac
wait_for 30 all_threads_policy "$vm_a" 7 || fail "vm a's vCPU threads are not SCHED_EXT"
wait_for 30 all_threads_policy "$vm_b" 7 || fail "vm b's vCPU threads are not SCHED_EXT"
wait_for 30 sh -c "'$T/bin/vcpuplacectl' --socket $SOCK metrics | grep -E '^vcpuplace_vcpu_wakeups_total\\{.*vptest-td-0001' | grep -qv ' 0\$'" ||
	fail "no per-vCPU wake-up counted"
metric 'vcpuplace_vcpu_wake(ups|_home)_total\{' | head -4 | sed 's/^/SCXTEST: /'
ctl explain vptest-td-0000 1 | grep -i 'wake' | head -3 | sed 's/^/SCXTEST: explain: /'
ctl explain vptest-td-0000 1 | grep -qi 'wake-ups' || fail "explain shows no wake-ups"
# the scheduler may reload (hot-plug below): its four kept, the rest not
has_caps 1 CAP_SYS_NICE CAP_BPF CAP_PERFMON CAP_SYS_ADMIN ||
	fail "sched_ext's capabilities not all held: $(metric 'vcpuplace_capabilit')"
has_caps 0 CAP_NET_ADMIN || fail "CAP_NET_ADMIN kept after start-up"
metric 'vcpuplace_capabilit' | sed 's/^/SCXTEST: caps: /'

# 1b. CPU hot-plug: the kernel unloads the scheduler asking for a restart
# (6.12 handle_hotplug(): it has no ops.cpu_online/offline), and the
# daemon loads it again by itself: each event counted once as a restart,
# logged once, never as an ejection
hotplug() {
	echo "$2" >"/sys/devices/system/cpu/cpu$1/online" ||
		fail "cannot set cpu$1 online=$2"
	wait_for 30 sh -c "'$T/bin/vcpuplacectl' --socket $SOCK metrics | grep -q '^vcpuplace_sched_ext_restarts_total $3\$'" ||
		fail "cpu$1 online=$2: restarts_total not $3 after 30 s ($(metric 'vcpuplace_sched_ext_restarts_total'))"
	wait_for 30 grep -q enabled /sys/kernel/sched_ext/state ||
		fail "cpu$1 online=$2: sched_ext $(cat /sys/kernel/sched_ext/state) after the restart"
	[ "$(cat /sys/kernel/sched_ext/root/ops)" = vcpuplace ] ||
		fail "cpu$1 online=$2: root/ops is not vcpuplace after the restart"
}
hotplug 3 0 1
hotplug 3 1 2
wait_for 30 all_threads_policy "$vm_a" 7 || fail "vCPU threads not SCHED_EXT after the restarts"
metric 'vcpuplace_sched_ext_(restarts|ejections)_total' | sed 's/^/SCXTEST: hotplug: /'
grep 'asked for a restart' "$LOG" | sed 's/^/SCXTEST: hotplug: log: /'
metric 'vcpuplace_sched_ext_ejections_total 0$' >/dev/null ||
	fail "a hot-plug restart was counted as an ejection"
[ "$(grep -c 'asked for a restart' "$LOG")" = 2 ] ||
	fail "the two restarts are not logged once each"

# 2. SysRq-S: ejected, counted once, fallback, no reload
echo S >/proc/sysrq-trigger
wait_for 10 sh -c "'$T/bin/vcpuplacectl' --socket $SOCK metrics | grep -q 'vcpuplace_kernel_mode{mode=\"userspace\"} 1'" ||
	fail "still not in userspace mode 10 s after SysRq-S"
metric 'vcpuplace_sched_ext_(state|ejections_total)' | sed 's/^/SCXTEST: /'
metric 'vcpuplace_sched_ext_ejections_total 1$' >/dev/null ||
	fail "the ejection was not counted once"
wait_for 10 all_threads_policy "$vm_a" 0 || fail "vCPU threads not back to SCHED_OTHER"
kill -0 "$daemon" || fail "the daemon died after the ejection"
wait_for 10 has_caps 0 CAP_SYS_NICE CAP_BPF CAP_PERFMON CAP_SYS_ADMIN ||
	fail "sched_ext's capabilities kept after the ejection: $(metric 'vcpuplace_capabilit')"
sleep 1
[ "$(cat /sys/kernel/sched_ext/state)" = disabled ] || fail "loaded again after the ejection"
metric 'vcpuplace_sched_ext_ejections_total 1$' >/dev/null || fail "ejection counted again"
[ "$(grep -c 'ejected' "$LOG")" -ge 1 ] || fail "the ejection is not in the log"
kill "$daemon"
wait "$daemon"

# 3. a thread in a class of its own stays there; SIGKILL of the daemon:
# unloaded within a second
kill -USR1 "$vm_b"
wait_for 10 all_threads_policy "$vm_b" 0 3 || fail "vm b's CPU 1 not in SCHED_BATCH"
start_daemon on
wait_for 30 grep -q enabled /sys/kernel/sched_ext/state || fail "--sched-ext=on did not load it"
wait_for 30 all_threads_policy "$vm_b" 7 3 ||
	fail "vm b's vCPU 0 not SCHED_EXT, or its SCHED_BATCH vCPU 1 moved, after restart"
wait_for 10 metric 'vcpuplace_sched_ext_threads_own_class 1$' ||
	fail "the SCHED_BATCH thread is not counted: $(metric vcpuplace_sched_ext_threads_own_class)"
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
wait_for 1 grep -q disabled /sys/kernel/sched_ext/state ||
	fail "still $(cat /sys/kernel/sched_ext/state) 1 s after SIGKILL of the daemon"
kill "$vm_a" "$vm_b"
echo "scx_daemon: PASS"
