#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/scx/kernel.sh: the sched_ext test kernel and its BPF toolchain,
# built once per machine into a cache outside the clone.
#
#   kernel.sh dir       print the kernel's cache directory (<key> below)
#   kernel.sh deps      install the Debian packages all of it needs
#   kernel.sh kernel    extract, configure and build bzImage + vmlinux (BTF)
#   kernel.sh tools     libbpf.a + headers and bpftool from the same source
#   kernel.sh vmlinux.h generate vmlinux.h from the kernel's BTF (bpftool)
#   kernel.sh all       all three
#
# Cache layout, $VP_SCX_CACHE (default /var/cache/vcpuplace/scx-kernel):
#   src-<skey>/src/        Debian linux-source-6.12, extracted (+ patches)
#   src-<skey>/tools/      libbpf (include/bpf/*.h, lib/libbpf.a) and
#                          bpftool (the bootstrap build: btf dump, gen)
#   <key>/obj/             the O= build: .config, vmlinux, bzImage
#   <key>/vmlinux.h        generated from obj/vmlinux, never by hand
#   <key>/src, <key>/tools symlinks into src-<skey>/
#   */logs/, */*.done      build logs; stamps with the timings
#   ccache/                compiler cache shared by every key
# <skey> hashes the linux-source-6.12 package version and the patches
# applied (none yet); <key> hashes <skey>, the base config's name
# (allnoconfig) and daemon/scx/config.fragment.  A second CI run on the
# same machine skips the build; a changed fragment builds a new kernel
# beside the old one and keeps the source and tools.
#
# The config is allnoconfig + daemon/scx/config.fragment alone (not
# kvm-patches/config.fragment, which is the kvm-test kernel's): the
# smallest kernel that runs the test, so that a CI machine without the
# cache can afford the cold build (see daemon/scx/README.md).
#
# Env: VP_SCX_CACHE, VP_SCX_JOBS (default nproc), VP_SCX_NICE (default 10),
# VP_SCX_CCACHE (default <cache>/ccache; an empty one times a cold build).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/../../kvm-patches/lib.sh"

top="$(cd "$here/../.." && pwd)"
SCX_CONFIG_BASE=allnoconfig
SCX_FRAGMENTS=("$top/daemon/scx/config.fragment")
# Kernel patches for the sched_ext kernel, in order (none: stock 6.12).
SCX_PATCHES=()
SCX_CACHE="${VP_SCX_CACHE:-/var/cache/vcpuplace/scx-kernel}"
SCX_JOBS="${VP_SCX_JOBS:-$(nproc)}"
SCX_NICE="${VP_SCX_NICE:-10}"

scx_src_key() {
	{
		echo "linux-source-6.12 $(kp_src_version)"
		[ ${#SCX_PATCHES[@]} -eq 0 ] || cat "${SCX_PATCHES[@]}"
	} | sha256sum | cut -c1-16
}

scx_key() {
	{
		echo "src $1"
		echo "base $SCX_CONFIG_BASE"
		cat "${SCX_FRAGMENTS[@]}"
	} | sha256sum | cut -c1-16
}

skey=$(scx_src_key)
S="$SCX_CACHE/src-$skey"
K="$SCX_CACHE/$(scx_key "$skey")"
SRC="$S/src"
TOOLS="$S/tools"
OBJ="$K/obj"
LOGS="$K/logs"

# The kernel tree path differs per key; relative paths let ccache hit
# across keys (a fragment change recompiles only what the change touches).
export CCACHE_DIR="${VP_SCX_CCACHE:-$SCX_CACHE/ccache}" \
	CCACHE_BASEDIR="$SCX_CACHE" \
	CCACHE_NOHASHDIR=1
export KBUILD_BUILD_HOST=vcpuplace-scx

# run_logged LOG CMD...: run at low priority (others share the 2 CPUs),
# keep the output in LOG, show its tail on failure.
run_logged() {
	local log="$1"

	shift
	if ! nice -n "$SCX_NICE" "$@" >"$log" 2>&1; then
		tail -40 "$log"
		kp_die "failed: $* (log: $log)"
	fi
}

scx_src() {
	[ -f "$S/src.done" ] || locked "$S" src scx_src_extract
	mkdir -p "$K"
	ln -sfn "$SRC" "$K/src"
	ln -sfn "$TOOLS" "$K/tools"
}

scx_src_extract() {
	[ -f "$S/src.done" ] && return 0
	kp_ensure_pkgs kernel-build
	kp_extract "$SRC"
	local p
	for p in ${SCX_PATCHES[@]+"${SCX_PATCHES[@]}"}; do
		patch -d "$SRC" -p1 -s <"$p" || kp_die "$p does not apply"
	done
	kp_src_version >"$S/src.done"
}

scx_kernel() {
	local t0 t1 load0

	[ -f "$K/kernel.done" ] && { kp_log "kernel: cached in $K"; return 0; }
	scx_src
	mkdir -p "$LOGS"
	if [ ! -f "$OBJ/.config" ]; then
		kp_log "configuring: $SCX_CONFIG_BASE + ${SCX_FRAGMENTS[*]#$top/}"
		KP_CONFIG_BASE=$SCX_CONFIG_BASE kp_config "$SRC" "$OBJ" \
			"${SCX_FRAGMENTS[@]}"
		# every "=y" of the fragment: on an allnoconfig base each one
		# is there because the test needs it, and a missing dependency
		# would drop it silently
		# shellcheck disable=SC2046 # one option name per word
		kp_config_require "$OBJ" $(sed -n 's/^CONFIG_\([A-Z0-9_]*\)=y$/\1/p' \
			"${SCX_FRAGMENTS[@]}")
	fi
	kp_log "building bzImage -j$SCX_JOBS at nice $SCX_NICE (log: $LOGS/kernel.log)"
	t0=$(date +%s)
	load0=$(cut -d' ' -f1 /proc/loadavg)
	run_logged "$LOGS/kernel.log" make -C "$SRC" O="$OBJ" -j"$SCX_JOBS" bzImage
	t1=$(date +%s)
	kp_log "bzImage built in $(((t1 - t0) / 60)) min $(((t1 - t0) % 60)) s"
	# compiles: Kbuild's "  CC path" and "  AS path" lines, the kernel's
	# own C and assembly (not the host tools), what ccache can serve
	echo "build_s=$((t1 - t0)) jobs=$SCX_JOBS nice=$SCX_NICE" \
		"compiles=$(grep -cE '^  (CC|AS) ' "$LOGS/kernel.log" || true)" \
		"load_at_start=$load0 load_at_end=$(cut -d' ' -f1 /proc/loadavg)" \
		>"$K/kernel.done"
}

# libbpf and bpftool from the same tree: Debian 12's libbpf 1.1.2 has no
# ".struct_ops.link" section (libbpf 1.2), so struct_ops would attach
# without a link and stay loaded when the loader dies; its bpftool 7.1
# emits no struct_ops shadow types, which sched_ext loaders write through.
scx_tools() {
	local t0 t1

	scx_src
	[ -f "$S/tools.done" ] && { kp_log "tools: cached in $TOOLS"; return 0; }
	kp_ensure_pkgs scx
	mkdir -p "$S/logs" "$TOOLS/libbpf-obj" "$TOOLS/bpftool-obj"
	t0=$(date +%s)
	kp_log "building libbpf.a and bpftool (logs: $S/logs/)"
	run_logged "$S/logs/libbpf.log" make -C "$SRC/tools/lib/bpf" -j"$SCX_JOBS" \
		OUTPUT="$TOOLS/libbpf-obj/" DESTDIR="$TOOLS/libbpf" prefix= \
		EXTRA_CFLAGS="-O2 -g -fPIC" \
		"$TOOLS/libbpf-obj/libbpf.a" install_headers
	mkdir -p "$TOOLS/libbpf/lib"
	cp "$TOOLS/libbpf-obj/libbpf.a" "$TOOLS/libbpf/lib/"
	# bootstrap: btf dump and gen skeleton are all we need, and it links
	# neither LLVM nor libbfd
	run_logged "$S/logs/bpftool.log" make -C "$SRC/tools/bpf/bpftool" \
		-j"$SCX_JOBS" OUTPUT="$TOOLS/bpftool-obj/" bootstrap
	cp "$TOOLS/bpftool-obj/bootstrap/bpftool" "$TOOLS/bpftool"
	t1=$(date +%s)
	kp_log "tools built in $((t1 - t0)) s"
	echo "build_s=$((t1 - t0))" >"$S/tools.done"
}

scx_vmlinux_h() {
	[ -f "$K/kernel.done" ] || kp_die "no kernel in $K: run 'make scx-kernel'"
	[ -x "$TOOLS/bpftool" ] || scx_tools
	if [ -f "$K/vmlinux.h" ] && [ "$K/vmlinux.h" -nt "$OBJ/vmlinux" ]; then
		return 0
	fi
	kp_log "generating $K/vmlinux.h from $OBJ/vmlinux"
	"$TOOLS/bpftool" btf dump file "$OBJ/vmlinux" format c >"$K/vmlinux.h.tmp"
	mv "$K/vmlinux.h.tmp" "$K/vmlinux.h"
}

# locked DIR NAME CMD...: one builder of each part per cache directory at
# a time; a second CI job waits for the first and then finds the part
# cached.  The parts lock apart, so the tools build while the kernel does.
locked() {
	local fd

	mkdir -p "$1"
	exec {fd}>"$1/$2.lock"
	shift 2
	flock "$fd"
	"$@"
	exec {fd}>&-
}

case "${1:-all}" in
dir)		echo "$K" ;;
deps)		kp_ensure_pkgs kernel-build scx kernel-test ;;
kernel)		locked "$K" kernel scx_kernel ;;
tools)		locked "$S" tools scx_tools ;;
vmlinux.h)	locked "$K" kernel locked "$S" tools scx_vmlinux_h ;;
all)		kp_ensure_pkgs scx
		locked "$K" kernel scx_kernel; locked "$S" tools scx_tools
		locked "$K" kernel locked "$S" tools scx_vmlinux_h ;;
*)		echo "usage: $0 [dir|deps|kernel|tools|vmlinux.h|all]" >&2; exit 2 ;;
esac
