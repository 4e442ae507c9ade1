#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/scx/boot.sh OUTDIR TEST... [-- VCPUPLACED VCPUPLACECTL FAKEVM]:
# boot the cached sched_ext kernel (tests/scx/kernel.sh) under QEMU TCG
# with a busybox initramfs whose /init (tests/scx/init.sh) runs the static
# test programs TEST... one after the other, then, when the daemon is
# given, tests/scx/daemon.sh (verdict "scx_daemon").  The daemon and the
# CLI are dynamic: they go in with the libraries ldd names.  The
# initramfs and the console log go into OUTDIR.
#
# Each program prints "<name>: PASS" or "<name>: FAIL <reason>", or
# "<name>: SKIP <reason>" for what the kernel booted cannot have (it
# does not fail the run).  The
# lines printed last are every program's verdict, then the ping-pong
# figures (scx_busy_sibling_pct=... ejections_unexpected=...), when
# scx_pingpong ran.  Exit 0 only if every program passed and the console
# has no kernel WARNING, BUG or Oops and no sched_ext watchdog report.
#
# Which kernel: VP_SCX_KERNEL=test (default) is the project's 6.12 build
# (tests/scx/kernel.sh); VP_SCX_KERNEL=debian is Debian's prebuilt 7.3.4
# (tests/scx/debian-kernel.sh), whose KVM modules go into the initramfs
# (/tests/modules, loaded by init.sh in their dependency order).  Every
# line printed at the end starts with the guest's kernel release
# ("[7.3.4+deb13-amd64] scx_smoke: PASS"), read from its own uname -r, so
# each figure says which kernel it came from.
#
# Env: VP_QEMU_SMP (default 8,sockets=1,cores=4,threads=2), VP_SCX_CACHE,
# VP_SCX_QEMU_TIMEOUT (default 900 s), VP_SCX_RUN_MS (scx_pingpong's
# measured time per run, default 2500), VP_SCX_ROUNDS (default 3),
# VP_SCX_FEATURES (the rule switches of its vcpuplace runs, default 0x7f:
# all; enum vp_scx_feature), VP_SCX_GUEST (default daemon: the guest
# script tests/scx/<it>.sh run with the daemon, verdict "scx_<it>"; any
# other one gets the TEST programs in /tests without running them, for
# the script to run: isolcpus.sh, with KP_QEMU_APPEND=isolcpus=...).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/../../kvm-patches/lib.sh"

out="$1"
shift
modules=""
case "${VP_SCX_KERNEL:-test}" in
test)
	K="$(bash "$here/kernel.sh" dir)"
	bzimage="$K/obj/arch/x86/boot/bzImage"
	[ -f "$K/kernel.done" ] && [ -f "$bzimage" ] ||
		{ echo "scx-test: FAIL no cached kernel in $K (make scx-kernel)"; exit 1; } ;;
debian)
	K="$(bash "$here/debian-kernel.sh" dir)"
	bzimage="$K/vmlinuz"
	modules="$K/modules"
	[ -f "$K/done" ] && [ -f "$bzimage" ] ||
		{ echo "scx-test: FAIL no Debian kernel in $K (make scx-debian-kernel)"; exit 1; } ;;
*)	echo "boot.sh: VP_SCX_KERNEL is test or debian" >&2; exit 2 ;;
esac
kp_ensure_pkgs kernel-test

root="$out/initramfs"
rm -rf "$root"
mkdir -p "$root/tests"
[ -z "$modules" ] || cp -r "$modules" "$root/tests/modules"
names=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	cp "$1" "$root/tests/"
	names+=("$(basename "$1")")
	shift
done
guest="${VP_SCX_GUEST:-daemon}"
[ -f "$here/$guest.sh" ] || { echo "boot.sh: no tests/scx/$guest.sh" >&2; exit 2; }
# another guest script runs the programs itself, and only its verdict counts
[ "$guest" = daemon ] || names=()
echo "${names[*]}" >"$root/tests/list"

# copy_dynamic BIN: BIN into /tests/bin, and every library it loads at its
# own path (the dynamic loader included), so it runs in the initramfs
copy_dynamic() {
	local lib

	install -D -m 755 "$1" "$root/tests/bin/$(basename "$1")"
	for lib in $(ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }'); do
		cp -L --parents "$lib" "$root"
	done
}

if [ "${1:-}" = -- ]; then
	[ $# -eq 4 ] || { echo "usage: boot.sh OUTDIR TEST... [-- DAEMON CTL FAKEVM]" >&2; exit 2; }
	copy_dynamic "$2"
	copy_dynamic "$3"
	cp "$4" "$root/tests/"
	# getgrnam() for the socket's group loads NSS's files module
	cp -L --parents "$(ldconfig -p | awk '/libnss_files\.so\.2 .*x86-64/ { print $NF; exit }')" "$root"
	mkdir -p "$root/etc"
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\nvcpuplace:x:990:\n' >"$root/etc/group"
	cp -r "$here/../../policies" "$root/tests/policies"
	python3 "$here/../integration/gen_testdriver.py" 2 2 "$root/tests/node.xml" \
		--host-cpus "$(echo "${VP_QEMU_SMP:-8}" | cut -d, -f1)" >/dev/null
	install -m 755 "$here/$guest.sh" "$root/tests/daemon.sh"
	names+=("scx_$guest")
fi
echo "${VP_SCX_RUN_MS:-2500} ${VP_SCX_ROUNDS:-3} ${VP_SCX_FEATURES:-0x7f}" >"$root/tests/run_ms"
kp_initramfs "$root" "$out/initramfs.cpio.gz" "$here/init.sh"

console="$out/console.log"
kp_log "booting $bzimage under QEMU TCG," \
	"-smp ${VP_QEMU_SMP:-8,sockets=1,cores=4,threads=2}" \
	"${KP_QEMU_APPEND:+(+ $KP_QEMU_APPEND) }(console: $console)"
t0=$(date +%s)
kp_qemu "$bzimage" "$out/initramfs.cpio.gz" "$console" \
	"${VP_SCX_QEMU_TIMEOUT:-900}"
t1=$(date +%s)

clean="$out/console.txt"
tr -d '\r' <"$console" >"$clean"
# the guest's own uname -r (init.sh), so no figure is credited to the
# kernel we meant to boot rather than the one that ran
rel=$(sed -n 's/^SCXTEST: kernel \([^ ,]*\),.*/\1/p' "$clean" | head -1)
rel="[${rel:-no kernel release on the console}]"
say() { sed "s/^/$rel /"; }
grep -E '^(SCXTEST|scx_[a-z]+):' "$clean" | say || true
kp_log "scx-test $rel: boot and tests took $((t1 - t0)) s"

ok=1
for n in "${names[@]}"; do
	v=$(grep -E "^$n: (PASS|FAIL|SKIP)" "$clean" | tail -1 || true)
	[ -n "$v" ] || v="$n: FAIL no verdict on the console (see $console)"
	echo "$v" | say
	# SKIP: what this kernel cannot have (said with the reason), no failure
	case "$v" in "$n: PASS" | "$n: SKIP "*) ;; *) ok=0 ;; esac
done
if grep -qE '\b(WARNING|BUG|Oops)[: ]' "$clean"; then
	grep -E -m5 -A5 '\b(WARNING|BUG|Oops)[: ]' "$clean" | say || true
	echo "scx-test: FAIL kernel WARNING/BUG/Oops on the console (see $console)" | say
	ok=0
fi
# the sched_ext watchdog ejects a scheduler that lets a task wait 30 s
if grep -qE 'sched_ext: .*(stall|watchdog)' "$clean"; then
	grep -E 'sched_ext: .*(stall|watchdog)' "$clean" | say
	echo "scx-test: FAIL the sched_ext watchdog fired" | say
	ok=0
fi
grep -E '^scx_busy_sibling_pct=' "$clean" | tail -1 | say || true
[ "$ok" = 1 ]
