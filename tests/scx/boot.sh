#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/scx/boot.sh SMOKE OUTDIR: boot the cached sched_ext kernel
# (tests/scx/kernel.sh) under QEMU TCG with a busybox initramfs whose /init
# (tests/scx/init.sh) runs the static smoke test SMOKE; the initramfs and
# the console log go into OUTDIR.  The last line printed is the verdict:
# "scx_smoke: PASS" or "scx_smoke: FAIL <reason>".
#
# Env: VP_QEMU_SMP (default 8,sockets=1,cores=4,threads=2), VP_SCX_CACHE,
# VP_SCX_QEMU_TIMEOUT (default 600 s; the boot and test take about a
# minute under TCG).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/../../kvm-patches/lib.sh"

smoke="$1"
out="$2"
K="$(bash "$here/kernel.sh" dir)"
bzimage="$K/obj/arch/x86/boot/bzImage"
[ -f "$K/kernel.done" ] && [ -f "$bzimage" ] ||
	{ echo "scx_smoke: FAIL no cached kernel in $K (make scx-kernel)"; exit 1; }
kp_ensure_pkgs "${KP_TEST_PKGS[@]}"

root="$out/initramfs"
rm -rf "$root"
mkdir -p "$root/tests"
cp "$smoke" "$root/tests/scx_smoke"
kp_initramfs "$root" "$out/initramfs.cpio.gz" "$here/init.sh"

console="$out/console.log"
kp_log "booting $bzimage under QEMU TCG," \
	"-smp ${VP_QEMU_SMP:-8,sockets=1,cores=4,threads=2} (console: $console)"
t0=$(date +%s)
kp_qemu "$bzimage" "$out/initramfs.cpio.gz" "$console" \
	"${VP_SCX_QEMU_TIMEOUT:-600}"
t1=$(date +%s)

tr -d '\r' <"$console" | grep -E '^(SCXTEST|scx_smoke):' || true
kp_log "scx-test: boot and test took $((t1 - t0)) s"
verdict=$(tr -d '\r' <"$console" | grep -E '^scx_smoke: (PASS|FAIL)' | tail -1 || true)
if [ -z "$verdict" ]; then
	tail -30 "$console"
	verdict="scx_smoke: FAIL no verdict on the console (see $console)"
elif tr -d '\r' <"$console" | grep -qE '\b(WARNING|BUG|Oops)[: ]'; then
	# a kernel warning during the test fails it, even if the smoke passed
	tr -d '\r' <"$console" | grep -E -m5 -A5 '\b(WARNING|BUG|Oops)[: ]' || true
	verdict="scx_smoke: FAIL kernel WARNING/BUG/Oops on the console (see $console)"
fi
echo "$verdict"
[ "$verdict" = "scx_smoke: PASS" ]
