#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/scx/debian-kernel.sh: Debian's own prebuilt sched_ext kernel,
# linux-image-7.3.4+deb13-amd64 from trixie-backports, fetched and
# unpacked once per machine into a cache, for the scx-test boot
# (tests/scx/boot.sh) and for the BTF that daemon/scx/include/x86/
# vmlinux.h is dumped from.
#
#   debian-kernel.sh dir    print the cache directory
#   debian-kernel.sh all    fetch and unpack (nothing if already done)
#
# Debian 12 hosts do not list trixie-backports, and the host's apt
# sources are not ours to change: kp_apt_fetch (kvm-patches/lib.sh) runs
# apt with a private sources list and state under the cache and
# downloads the .debs without installing anything; `dpkg-deb -x` unpacks
# them into the cache.
#
# linux-image-* is a metapackage of the same version: linux-binary-*
# holds the vmlinuz, linux-modules-* the modules (kvm.ko.xz ...),
# linux-base-* config and System.map.
#
# Cache layout ($VP_DEB_KERNEL_CACHE, default
# /var/cache/vcpuplace/debian-kernel/<release>):
#   apt/        the private sources list, lists and .deb archive
#   root/       the packages unpacked (usr/lib/modules/<release>/...)
#   vmlinuz     the kernel booted, a link into root/
#   vmlinux     the ELF inside vmlinuz (zstd), for its .BTF section
#   modules/    kvm, kvm-amd and what they depend on, decompressed (busybox
#               insmod reads no .ko.xz), with modules/order: load order
#   done        the package versions, once all of it is there
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/../../kvm-patches/lib.sh"

DEB_SUITE=trixie-backports
DEB_RELEASE=7.3.4+deb13-amd64
DEB_PKGS=(linux-image-$DEB_RELEASE linux-binary-$DEB_RELEASE
	linux-modules-$DEB_RELEASE linux-base-$DEB_RELEASE)
# what the nested-KVM test needs; modinfo adds their dependencies
DEB_MODULES=(kvm kvm-amd)
C="${VP_DEB_KERNEL_CACHE:-/var/cache/vcpuplace/debian-kernel/$DEB_RELEASE}"

fetch() {
	kp_apt_fetch "$C" "$DEB_SUITE" "${DEB_PKGS[@]}"
}

unpack() {
	local d m mods dep off

	rm -rf "$C/root" "$C/modules"
	for d in "$C"/debs/*.deb; do
		dpkg-deb -x "$d" "$C/root"
	done
	mods="$C/root/usr/lib/modules/$DEB_RELEASE"
	[ -f "$mods/vmlinuz" ] || kp_die "no vmlinuz in the unpacked packages"
	ln -sfn "root/usr/lib/modules/$DEB_RELEASE/vmlinuz" "$C/vmlinuz"
	# the bzImage carries vmlinux zstd-compressed after its setup code:
	# decompress from the first zstd frame magic (28 b5 2f fd)
	off=$(LC_ALL=C grep -m1 -obUaP '\x28\xb5\x2f\xfd' "$mods/vmlinuz" |
		LC_ALL=C sed -n '1s/:.*//p')
	[ -n "$off" ] || kp_die "no zstd payload in $mods/vmlinuz"
	tail -c +"$((off + 1))" "$mods/vmlinuz" | zstd -dcq 2>/dev/null \
		>"$C/vmlinux.tmp" || true
	[ "$(head -c4 "$C/vmlinux.tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] ||
		kp_die "the vmlinuz payload is not an ELF file"
	mv "$C/vmlinux.tmp" "$C/vmlinux"
	# the modules in load order: each one's dependencies first
	mkdir -p "$C/modules"
	: >"$C/modules/order"
	add_module() {
		local f dep

		grep -qx "$1.ko" "$C/modules/order" && return 0
		f=$(find "$mods/kernel" -name "$1.ko.xz" -o -name "$(echo "$1" | tr _ -).ko.xz" | head -1)
		[ -n "$f" ] || kp_die "module $1 not in linux-modules-$DEB_RELEASE"
		for dep in $(modinfo -F depends "$f" | tr , ' '); do
			add_module "$dep"
		done
		xz -dc "$f" >"$C/modules/$1.ko"
		echo "$1.ko" >>"$C/modules/order"
	}
	for m in "${DEB_MODULES[@]}"; do
		add_module "$(echo "$m" | tr - _)"
	done
}

all() {
	[ -f "$C/done" ] && return 0
	kp_ensure_pkgs debian-kernel
	[ -n "$(ls "$C"/debs/*.deb 2>/dev/null)" ] || fetch
	unpack
	dpkg-deb --showformat='${Package} ${Version}\n' -W "$C"/debs/linux-binary-*.deb >"$C/done"
	kp_log "Debian kernel $(cat "$C/done") in $C"
}

case "${1:-all}" in
dir)	echo "$C" ;;
all)	mkdir -p "$C"; exec {lock}>"$C/.lock"; flock "$lock"; all ;;
*)	echo "usage: $0 [dir|all]" >&2; exit 2 ;;
esac
