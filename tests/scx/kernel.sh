#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/scx/kernel.sh: the sched_ext test kernel and its BPF toolchain,
# built once per machine into a cache outside the clone.
#
#   kernel.sh dir       print the kernel's cache directory (<key> below)
#   kernel.sh deps      install the Debian packages all of it needs
#   kernel.sh kernel    extract, configure and build bzImage + vmlinux (BTF)
#   kernel.sh all       the same (the BPF toolchain and vmlinux.h were
#                       built here too until the scheduler moved to
#                       Debian's libbpf-dev/bpftool and a committed
#                       vmlinux.h: daemon/scx/scx.mk)
#
# Cache layout, $VP_SCX_CACHE (default /var/cache/vcpuplace/scx-kernel):
#   src-<skey>/src/        Debian linux-source-6.12, extracted (+ patches)
#   <key>/obj/             the O= build: .config, vmlinux, bzImage
#   <key>/src              a symlink to src-<skey>/src
#   */logs/, */*.done      build logs; stamps with the timings
#   ccache/                compiler cache shared by every key
# <skey> hashes the linux-source-6.12 package version and the patches
# applied (none yet); <key> hashes <skey>, the base config's name
# (allnoconfig) and daemon/scx/config.fragment.  A second CI run on the
# same machine skips the build; a changed fragment builds a new kernel
# beside the old one and keeps the source.
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

# locked DIR NAME CMD...: one builder of each part per cache directory at
# a time; a second CI job waits for the first and then finds the part
# cached.
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
kernel|all)	locked "$K" kernel scx_kernel ;;
*)		echo "usage: $0 [dir|deps|kernel|all]" >&2; exit 2 ;;
esac
