#!/bin/busybox sh
# /init of the scx-test initramfs (tests/scx/boot.sh): check that the
# kernel has sched_ext, run the test programs listed in /tests/list, power
# off.  boot.sh reads the lines that start with SCXTEST: or scx_ from the
# console.
/bin/busybox --install -s /bin
# a line of its own: Debian's kernel leaves the boot stub's output and a
# terminal reset on the console's current line
echo
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# A distribution kernel has KVM as modules: boot.sh puts them in
# /tests/modules, decompressed, with their load order (dependencies first)
if [ -f /tests/modules/order ]; then
	for m in $(cat /tests/modules/order); do
		insmod "/tests/modules/$m" ||
			echo "SCXTEST: insmod $m failed"
	done
	echo "SCXTEST: modules loaded: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
fi
echo "SCXTEST: kernel $(uname -r), $(nproc) CPUs, cpu0 siblings" \
	"$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)"
if [ ! -r /sys/kernel/sched_ext/state ]; then
	echo "scx_smoke: FAIL no /sys/kernel/sched_ext (kernel without sched_ext)"
	poweroff -f
fi
echo "SCXTEST: sched_ext state $(cat /sys/kernel/sched_ext/state)," \
	"switch_all $(cat /sys/kernel/sched_ext/switch_all 2>/dev/null)"
# The rest of what the tests need from the kernel (daemon/scx/
# config.fragment, an allnoconfig base, where a dropped option would go
# unnoticed): the BTF that libbpf reads, /dev/kvm for nested guests (TCG's
# -cpu max has SVM: kvm_amd), SysRq-S, which ejects a BPF scheduler.
for f in /sys/kernel/btf/vmlinux /dev/kvm /proc/sysrq-trigger; do
	if [ ! -e "$f" ]; then
		echo "scx_smoke: FAIL no $f (see daemon/scx/config.fragment)"
		poweroff -f
	fi
done
echo "SCXTEST: btf $(stat -c %s /sys/kernel/btf/vmlinux) bytes, /dev/kvm," \
	"$(dmesg | grep -m1 -o 'kvm_amd: Nested Virtualization enabled' ||
	echo 'no kvm_amd in dmesg')"
for t in $(cat /tests/list); do
	case "$t" in
	# run_ms holds its three arguments: split on purpose
	# shellcheck disable=SC2046
	scx_pingpong) /tests/"$t" $(cat /tests/run_ms) ;;
	*) /tests/"$t" ;;
	esac
	echo "SCXTEST: $t exit $?"
done
if [ -x /tests/daemon.sh ]; then
	/tests/daemon.sh
	echo "SCXTEST: daemon.sh exit $?"
fi
dmesg | grep -E 'sched_ext|WARNING|BUG|Oops' | sed 's/^/SCXTEST: dmesg: /' | head -40
echo "SCXTEST: DONE"
poweroff -f
