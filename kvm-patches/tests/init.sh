#!/bin/busybox sh
# /init of the kvm-test initramfs: run the boot tests, print the verdict on
# the console, power off.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
echo "KVMTEST: kernel $(uname -r), $(nproc) CPUs"
echo "KVMTEST: cpu0 siblings $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)"
echo "KVMTEST: sched features: $(cat /sys/kernel/debug/sched/features)"
if [ ! -c /dev/kvm ]; then
	echo "KVMTEST: no /dev/kvm"
	dmesg | grep -i -E 'kvm|svm|vmx' | head -20
fi
# Feature switches patch kernel text; QEMU TCG has oopsed on that (stale
# int3), so switch once here and once in sched_wake.
echo NO_SIS_CORE > /sys/kernel/debug/sched/features
/tests/kvm_wake_hint
r1=$?
/tests/sched_wake
r2=$?
if [ "$r1" -eq 0 ] && [ "$r2" -eq 0 ]; then
	echo "KVMTEST: RESULT PASS"
else
	echo "KVMTEST: RESULT FAIL kvm_wake_hint=$r1 sched_wake=$r2"
fi
dmesg | grep -E 'WARNING|BUG|Oops' | head -20
echo "KVMTEST: DONE"
poweroff -f
