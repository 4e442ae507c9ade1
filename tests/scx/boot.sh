#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/scx/boot.sh OUTDIR TEST...: boot the cached sched_ext kernel
# (tests/scx/kernel.sh) under QEMU TCG with a busybox initramfs whose /init
# (tests/scx/init.sh) runs the static test programs TEST... one after the
# other; the initramfs and the console log go into OUTDIR.
#
# Each program prints "<name>: PASS" or "<name>: FAIL <reason>".  The
# lines printed last are every program's verdict, then the ping-pong
# figures (scx_busy_sibling_pct=... ejections_unexpected=...), when
# scx_pingpong ran.  Exit 0 only if every program passed and the console
# has no kernel WARNING, BUG or Oops and no sched_ext watchdog report.
#
# Env: VP_QEMU_SMP (default 8,sockets=1,cores=4,threads=2), VP_SCX_CACHE,
# VP_SCX_QEMU_TIMEOUT (default 900 s), VP_SCX_RUN_MS (scx_pingpong's
# measured time per run, default 4000).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/../../kvm-patches/lib.sh"

out="$1"
shift
K="$(bash "$here/kernel.sh" dir)"
bzimage="$K/obj/arch/x86/boot/bzImage"
[ -f "$K/kernel.done" ] && [ -f "$bzimage" ] ||
	{ echo "scx-test: FAIL no cached kernel in $K (make scx-kernel)"; exit 1; }
kp_ensure_pkgs "${KP_TEST_PKGS[@]}"

root="$out/initramfs"
rm -rf "$root"
mkdir -p "$root/tests"
names=()
for t in "$@"; do
	cp "$t" "$root/tests/"
	names+=("$(basename "$t")")
done
echo "${names[*]}" >"$root/tests/list"
echo "${VP_SCX_RUN_MS:-2500} ${VP_SCX_ROUNDS:-3}" >"$root/tests/run_ms"
kp_initramfs "$root" "$out/initramfs.cpio.gz" "$here/init.sh"

console="$out/console.log"
kp_log "booting $bzimage under QEMU TCG," \
	"-smp ${VP_QEMU_SMP:-8,sockets=1,cores=4,threads=2} (console: $console)"
t0=$(date +%s)
kp_qemu "$bzimage" "$out/initramfs.cpio.gz" "$console" \
	"${VP_SCX_QEMU_TIMEOUT:-900}"
t1=$(date +%s)

clean="$out/console.txt"
tr -d '\r' <"$console" >"$clean"
grep -E '^(SCXTEST|scx_[a-z]+):' "$clean" || true
kp_log "scx-test: boot and tests took $((t1 - t0)) s"

ok=1
for n in "${names[@]}"; do
	v=$(grep -E "^$n: (PASS|FAIL)" "$clean" | tail -1 || true)
	[ -n "$v" ] || v="$n: FAIL no verdict on the console (see $console)"
	echo "$v"
	[ "$v" = "$n: PASS" ] || ok=0
done
if grep -qE '\b(WARNING|BUG|Oops)[: ]' "$clean"; then
	grep -E -m5 -A5 '\b(WARNING|BUG|Oops)[: ]' "$clean" || true
	echo "scx-test: FAIL kernel WARNING/BUG/Oops on the console (see $console)"
	ok=0
fi
# the sched_ext watchdog ejects a scheduler that lets a task wait 30 s
if grep -qE 'sched_ext: .*(stall|watchdog)' "$clean"; then
	grep -E 'sched_ext: .*(stall|watchdog)' "$clean"
	echo "scx-test: FAIL the sched_ext watchdog fired"
	ok=0
fi
grep -E '^scx_busy_sibling_pct=' "$clean" | tail -1 || true
[ "$ok" = 1 ]
