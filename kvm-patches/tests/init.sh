#!/bin/busybox sh
# /init of the kvm-test initramfs: run the SIS_CORE boot tests, print the
# verdict and the whole kernel log on the console, power off.  kvm-test
# reads the verdict and looks for splats.
#
# Which tests run comes from the kernel command line:
#   kvmtest.run=TEST[:ARG],...   (default: sis_wake,sis_probe,sis_rules,sis_cost)
# so that one initramfs serves every boot kvm-test makes.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
echo "KVMTEST: kernel $(uname -r), $(nproc) CPUs"
echo "KVMTEST: cmdline $(cat /proc/cmdline)"
echo "KVMTEST: cpu0 siblings $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)"
echo "KVMTEST: sched features: $(cat /sys/kernel/debug/sched/features)"
# kvm-test boots a lockdep kernel: it must be on at the start, and still
# on at the end (lockdep turns itself off at its first report).
lockdep() { sed -n 's/^ *debug_locks: *\([0-9]*\)/\1/p' /proc/lockdep_stats; }
echo "KVMTEST: debug_locks at start: $(lockdep)"
run=sis_wake,sis_probe,sis_rules,sis_cost
for word in $(cat /proc/cmdline); do
	case "$word" in
	kvmtest.run=*) run=${word#kvmtest.run=} ;;
	esac
done
rc=0
for spec in $(echo "$run" | tr ',' ' '); do
	t=${spec%%:*}
	arg=
	[ "$t" = "$spec" ] || arg=${spec#*:}
	/tests/$t $arg
	r=$?
	echo "KVMTEST: $spec exit $r"
	[ "$r" -eq 0 ] || rc=1
done
echo "KVMTEST: debug_locks=$(lockdep)"
echo "KVMTEST: DMESG BEGIN"
dmesg
echo "KVMTEST: DMESG END"
[ "$rc" -eq 0 ] && echo "KVMTEST: RESULT PASS" || echo "KVMTEST: RESULT FAIL"
echo "KVMTEST: DONE"
poweroff -f
