# SPDX-License-Identifier: GPL-2.0
# Shared helpers for kvm-patches/check and kvm-patches/kvm-test.  Sourced,
# not run.  Everything generated lives under kvm-patches/build/ (gitignored):
#   build/linux-src/   Debian linux-source-6.12, a git repo, tag "base",
#                      branch "kp-series" = base + the series
#   build/obj-<variant>/  the O= build directory of one config variant
#                      (kp_configure): tiny, debian, debug
#   build/ccache/      compiler cache, so a second run rebuilds fast
#   build/logs/        logs of the last run

KP="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KP_BUILD="${KP_BUILD:-$KP/build}"
KP_SRC="$KP_BUILD/linux-src"
KP_LOGS="$KP_BUILD/logs"
KP_TARBALL=/usr/src/linux-source-6.12.tar.xz
KP_JOBS="${KP_JOBS:-$(nproc)}"
KP_GIT=(git -C "$KP_SRC" -c user.name="vcpuplace check"
	-c user.email=check@vcpuplace.invalid -c advice.detachedHead=false)

export CCACHE_DIR="$KP_BUILD/ccache"
export CCACHE_MAXSIZE=5G
# ccache through its gcc symlinks: the compiler command line stays "gcc", so
# Kbuild does not see a changed command when ccache appears or goes.
[ -d /usr/lib/ccache ] && export PATH="/usr/lib/ccache:$PATH"
export KBUILD_BUILD_TIMESTAMP="2025-01-01"
export KBUILD_BUILD_USER=vcpuplace KBUILD_BUILD_HOST=kvm-patches

kp_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
kp_die() { kp_log "ERROR: $*"; exit 1; }

# kp_ensure_pkgs GROUP...: install the Debian packages of those groups
# that are missing, through the project's one installer (it waits for
# apt's lock).  The groups and their packages are in
# tools/deps/packages.list: kernel-build (the toolchain and
# linux-source-6.12), kernel-check (Debian's own kernel configs),
# kernel-test (QEMU and busybox for the boots).
kp_ensure_pkgs() {
	sh "$KP/../tools/deps/install.sh" "$@" ||
		kp_die "installing the packages of $* failed"
}
KP_DEBIAN_CONFIG=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz

kp_series() { grep -v '^[[:space:]]*\(#\|$\)' "$KP/series"; }

kp_series_hash() {
	(cd "$KP" && cat series $(kp_series) config.fragment) | sha256sum | cut -c1-16
}

# kp_src_version: the installed linux-source-6.12 package's version
kp_src_version() { dpkg-query -W -f='${Version}' linux-source-6.12; }

# kp_extract DIR: DIR becomes a fresh copy of Debian's linux-source-6.12
# tree (whatever was there is removed).  Shared with tests/scx/kernel.sh.
kp_extract() {
	local dir="$1" tmp

	kp_log "extracting linux-source-6.12 $(kp_src_version) into $dir"
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	tmp=$(mktemp -d "$(dirname "$dir")/extract.XXXXXX")
	tar -C "$tmp" -xf "$KP_TARBALL"
	mv "$tmp"/linux-source-6.12 "$dir"
	rmdir "$tmp"
}

# Extract the Debian source into a git repo with tag "base".  Re-extract if
# Debian shipped a new linux-source-6.12 since.
kp_prepare_src() {
	local ver

	ver=$(kp_src_version)
	if [ -d "$KP_SRC/.git" ] && [ "$(cat "$KP_BUILD/base-version" 2>/dev/null)" = "$ver" ]; then
		return 0
	fi
	rm -rf "$KP_BUILD"/obj-* "$KP_BUILD/applied"
	kp_extract "$KP_SRC"
	# Debian's top-level .gitignore ignores everything: add with -f
	"${KP_GIT[@]}" init -q
	"${KP_GIT[@]}" add -A -f .
	"${KP_GIT[@]}" commit -q -m "linux-source-6.12 $ver"
	"${KP_GIT[@]}" tag base
	echo "$ver" >"$KP_BUILD/base-version"
}

# kp_config SRC OBJ FRAGMENT...: OBJ/.config = the base $KP_CONFIG_BASE
# (default x86_64_defconfig) + the fragments, in order.  Shared with
# tests/scx/kernel.sh, which asks for allnoconfig.
#  - a defconfig: the fragments are merged into it; an option they do not
#    name keeps the defconfig's value, or its Kconfig default when a
#    fragment makes it visible;
#  - debian: Debian's amd64 config ($KP_DEBIAN_CONFIG), fragments merged
#    the same way;
#  - allnoconfig: the fragments are its KCONFIG_ALLCONFIG, so an option
#    they do not name is off, also below an option they turn on.
kp_config() {
	local src="$1" obj="$2" base="${KP_CONFIG_BASE:-x86_64_defconfig}"

	shift 2
	mkdir -p "$obj"
	case "$base" in
	*defconfig)
		make -C "$src" O="$obj" -s "$base"
		"$src"/scripts/kconfig/merge_config.sh -m -O "$obj" \
			"$obj/.config" "$@" >/dev/null ;;
	debian)
		xz -dc "$KP_DEBIAN_CONFIG" >"$obj/.config"
		[ $# -eq 0 ] || "$src"/scripts/kconfig/merge_config.sh -m \
			-O "$obj" "$obj/.config" "$@" >/dev/null ;;
	allnoconfig)
		# later fragments win: conf reads a repeated option's last value
		cat "$@" >"$obj/allconfig.fragment"
		make -C "$src" O="$obj" -s allnoconfig \
			KCONFIG_ALLCONFIG="$(cd "$obj" && pwd)/allconfig.fragment" ;;
	*)	kp_die "kp_config: unknown base config $base" ;;
	esac
	make -C "$src" O="$obj" -s olddefconfig
}

# kp_config_require OBJ OPT...: die unless each CONFIG_OPT=y survived
# olddefconfig (a missing dependency drops an option silently).
kp_config_require() {
	local obj="$1" opt

	shift
	for opt in "$@"; do
		grep -q "^CONFIG_$opt=y" "$obj/.config" ||
			kp_die "CONFIG_$opt did not stick"
	done
}

# kp_configure VARIANT: sets KP_OBJ to build/obj-VARIANT and configures
# it, again only when a fragment it uses is newer than the config.
#   tiny    allnoconfig + config.tiny: the smallest SMP kernel with the
#           scheduler topology levels; kvm-patches/check links it whole
#   debian  Debian's amd64 config (KVM=m, CPUMASK_OFFSTACK, NR_CPUS=8192,
#           PREEMPT_DYNAMIC): check compiles the touched objects
#   debug   x86_64_defconfig + config.fragment + config.debug (lockdep,
#           KASAN): what kvm-test boots
kp_configure() {
	local v="$1" base frags=() f fresh=1

	KP_OBJ="$KP_BUILD/obj-$v"
	case "$v" in
	tiny)	base=allnoconfig frags=("$KP/config.tiny") ;;
	debian)	base=debian ;;
	debug)	base=x86_64_defconfig
		frags=("$KP/config.fragment" "$KP/config.debug") ;;
	*)	kp_die "kp_configure: unknown variant $v" ;;
	esac
	[ -f "$KP_OBJ/.config" ] || fresh=0
	for f in "${frags[@]}"; do
		[ "$KP_OBJ/.config" -nt "$f" ] || fresh=0
	done
	[ "$fresh" -eq 1 ] && return 0
	kp_log "configuring $v: $base ${frags[*]##*/}"
	KP_CONFIG_BASE=$base kp_config "$KP_SRC" "$KP_OBJ" "${frags[@]}"
	kp_config_require "$KP_OBJ" SMP SCHED_SMT SCHED_MC SCHED_DEBUG
	case "$v" in
	debian)	kp_config_require "$KP_OBJ" CPUMASK_OFFSTACK
		grep -q '^CONFIG_KVM=m' "$KP_OBJ/.config" ||
			kp_die "Debian's config: KVM is not a module" ;;
	debug)	kp_config_require "$KP_OBJ" SCHED_CLUSTER SCHED_CORE KASAN \
			PROVE_LOCKING KPROBE_EVENTS DEBUG_FS ;;
	esac
}

kp_make() {
	make -C "$KP_SRC" O="$KP_OBJ" -j"$KP_JOBS" "$@"
}

# Put the tree at base + the first N patches (all if N is empty).  Files are
# only rewritten when the applied set changes, so make stays incremental.
kp_apply() {
	local n="${1:-}" want p i=0

	[ -n "$n" ] || n=$(kp_series | wc -l)
	want="$(kp_series_hash) $n"
	if [ "$(cat "$KP_BUILD/applied" 2>/dev/null)" = "$want" ] &&
	   [ -z "$("${KP_GIT[@]}" status --porcelain --untracked-files=no)" ]; then
		# back from kp-test or a mutant: only their files change
		"${KP_GIT[@]}" checkout -q kp-series
		return 0
	fi
	rm -f "$KP_BUILD/applied"
	"${KP_GIT[@]}" am --abort >/dev/null 2>&1 || true
	"${KP_GIT[@]}" checkout -q -f -B kp-series base
	for p in $(kp_series); do
		[ "$i" -lt "$n" ] || break
		"${KP_GIT[@]}" am -q "$KP/$p" || kp_die "$p does not apply"
		i=$((i + 1))
	done
	echo "$want" >"$KP_BUILD/applied"
}

# kp_test_hook: the tree at the whole series plus the test-only hook
# tests/sis_core_debugfs.c, which kernel/sched/fair.c #includes at its end
# so that the hook sees SIS_CORE's static helpers: branch kp-test, one
# commit on kp-series.  Never part of the series; kvm-patches/check does
# not see it.
kp_test_hook() {
	local hook="$KP_SRC/kernel/sched/sis_core_debugfs.c"

	kp_apply
	if "${KP_GIT[@]}" rev-parse -q --verify kp-test >/dev/null &&
	   [ "$("${KP_GIT[@]}" rev-parse kp-test^)" = "$("${KP_GIT[@]}" rev-parse kp-series)" ] &&
	   "${KP_GIT[@]}" show kp-test:kernel/sched/sis_core_debugfs.c |
		cmp -s - "$KP/tests/sis_core_debugfs.c"; then
		"${KP_GIT[@]}" checkout -q kp-test
		return 0
	fi
	"${KP_GIT[@]}" checkout -q -B kp-test kp-series
	cp "$KP/tests/sis_core_debugfs.c" "$hook"
	printf '\n#ifdef CONFIG_SCHED_SMT\n#include "sis_core_debugfs.c"\n#endif\n' \
		>>"$KP_SRC/kernel/sched/fair.c"
	"${KP_GIT[@]}" add -f "$hook" kernel/sched/fair.c
	"${KP_GIT[@]}" commit -q -m "test only: /sys/kernel/debug/sis_core"
}

# kp_test_initramfs: the boot tests, static, and tests/init.sh as /init,
# in build/initramfs.cpio.gz.  Which tests a boot runs is on its command
# line (kvmtest.run=), so every boot uses this one initramfs.
KP_TESTS=(sis_wake sis_probe sis_rules sis_cost)
kp_test_initramfs() {
	local tdir="$KP_BUILD/tests" root="$KP_BUILD/initramfs" t

	rm -rf "$root"
	mkdir -p "$tdir" "$root/tests"
	for t in "${KP_TESTS[@]}"; do
		gcc -O2 -Wall -Wextra -Werror -static -pthread -o "$tdir/$t" \
			"$KP/tests/$t.c"
		cp "$tdir/$t" "$root/tests/"
	done
	kp_initramfs "$root" "$KP_BUILD/initramfs.cpio.gz" "$KP/tests/init.sh"
}

# kp_test_boot BZIMAGE APPEND CONSOLE: one boot of the test initramfs,
# with panic_on_warn and KASAN reports fatal; CONSOLE.txt is the console
# without carriage returns.
# la57=off: 4-level paging.  With 5-level paging a KASAN kernel can die
# at boot on a false report: identify_cpu() zeroes boot_cpu_data's
# x86_capability before it reads CPUID again, with interrupts already
# on, and until alternatives are patched pgtable_l5_enabled() reads that
# array; an interrupt in the window computes KASAN's shadow start for 47
# bits and calls its 5-level direct-map lock "wild-memory-access in
# do_raw_spin_lock" (RIP just after the memset).  That was the early-boot
# report of 2 in 15 patched and 0 in 15 stock boots: no scheduler code
# has run then.
kp_test_boot() {
	KP_QEMU_CPU="${KP_TEST_CPU:-max,la57=off}" \
	KP_QEMU_APPEND="panic_on_warn=1 kasan.fault=panic $2" \
		kp_qemu "$1" "$KP_BUILD/initramfs.cpio.gz" "$3" \
		"${KP_QEMU_TIMEOUT:-1500}"
	tr -d '\r' <"$3" >"$3.txt"
}

# kp_test_boot_cluster BZIMAGE APPEND CONSOLE: kp_test_boot on the
# cluster machine (kp_cluster_qemu): two clusters of two cores of two
# threads in one LLC, an Intel vendor so that Linux reads the L2's
# sharing.
kp_test_boot_cluster() {
	local bin

	bin=$(kp_cluster_qemu)
	KP_QEMU_BIN="$bin" KP_QEMU_ARGS="$(kp_cluster_qemu_args "$bin")" \
	KP_TEST_CPU=max,la57=off,vendor=GenuineIntel \
		kp_test_boot "$@"
}

# kp_test_verdict CONSOLE.txt TEST...: prints what failed (tests without
# a PASS line, lockdep off, no DONE, a splat) and fails if anything did.
kp_test_verdict() {
	local log="$1" t bad=

	shift
	for t in "$@"; do
		grep -q "^$t: PASS" "$log" || bad="$bad $t"
	done
	grep -q '^KVMTEST: debug_locks=1' "$log" || bad="$bad lockdep-off"
	grep -q '^KVMTEST: DONE' "$log" || bad="$bad no-DONE"
	kp_splats "$log" >/dev/null && bad="$bad splat"
	echo "$bad"
	[ -z "$bad" ]
}

# Objects to compile for a patch: those of the .c files it touches, plus
# arch/x86/kvm/x86.o when it touches KVM headers (x86.c checks that the stats
# descriptors match struct kvm_vcpu_stat).
kp_objects_for() {
	local f

	for f in $(sed -n 's|^+++ b/||p' "$1"); do
		case "$f" in
		# KVM's generic code is built from arch/x86/kvm/Makefile
		virt/kvm/*.c)		echo "arch/x86/kvm/../../../${f%.c}.o" ;;
		kernel/sched/core.c|kernel/sched/fair.c)
					echo "${f%.c}.o" ;;
		kernel/sched/topology.c|kernel/sched/clock.c|kernel/sched/cpufreq.c|\
		kernel/sched/debug.c|kernel/sched/stats.c|kernel/sched/membarrier.c|\
		kernel/sched/isolation.c|kernel/sched/loadavg.c|kernel/sched/wait*.c|\
		kernel/sched/completion.c|kernel/sched/swait.c|kernel/sched/cpupri.c)
					echo kernel/sched/build_utility.o ;;
		kernel/sched/features.h) printf '%s\n' kernel/sched/fair.o \
					kernel/sched/build_utility.o ;;
		kernel/sched/*.c)	echo kernel/sched/build_policy.o ;;
		include/linux/kvm*.h)	echo arch/x86/kvm/x86.o ;;
		*.c)			echo "${f%.c}.o" ;;
		esac
	done | sort -u
}

# kp_apt_fetch CACHE SUITE PKG...: download PKG... (.debs, nothing
# installed) from Debian's SUITE into CACHE/debs, with apt's state kept
# under CACHE/apt.  A host's apt sources are not ours to change, and a
# Debian 12 host does not list trixie-backports or, by default, its own
# backports: apt runs with a private sources list, lists and archive
# directory (Dir::Etc::sourcelist, Dir::Etc::sourceparts=-,
# Dir::State::Lists, Dir::Cache), the archive URI borrowed from the
# host's own Debian entry, and the Release file checked against
# debian-archive-keyring (signed-by), as apt always does.
# Shared with tests/scx/debian-kernel.sh.
kp_apt_fetch() {
	local cache="$1" suite="$2" uri codename apt_opts
	shift 2

	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' |
		awk -v c="$codename" '$2 == c { print $1; exit }')
	[ -n "$uri" ] || kp_die "no Debian archive in the host's apt sources"
	mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" \
		"$cache/debs"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
		"$uri $suite main" >"$cache/apt/sources.list"
	# Dir::State::status=/dev/null: the host's installed packages are not
	# this tree's; the lists lock is the private one, not the host's
	apt_opts=(-o Dir::Etc::sourcelist="$cache/apt/sources.list"
		-o Dir::Etc::sourceparts=- -o Dir::State::Lists="$cache/apt/lists"
		-o Dir::Cache="$cache/apt/cache" -o Dir::State::status=/dev/null
		-o APT::Architecture=amd64 -o APT::Sandbox::User=root)
	kp_log "fetching $* from $suite (private apt state: $cache/apt)"
	apt-get "${apt_opts[@]}" -qq update
	(cd "$cache/debs" && apt-get "${apt_opts[@]}" -qq download "$@")
}

# kp_cluster_qemu: print the path of a qemu-system-x86_64 that can give an
# x86 guest clusters: two or more cores under one L2 inside the LLC,
# which Linux on x86 makes its CLS domain (cpu_l2c_shared_mask()).  QEMU
# 9.2 added "-machine smp-cache" for that; Debian 12's QEMU 7.2 keeps L2
# per core.  The host's QEMU if it has smp-cache (Debian 13's 10.0), else
# the same major version from the host's backports, unpacked once into a
# cache (VP_QEMU_CACHE, default /var/cache/vcpuplace/qemu-cluster) and
# run from there: its libraries are the host release's, its firmware is
# in its own share/qemu (kp_cluster_qemu_args passes -L).
KP_QEMU_CACHE="${VP_QEMU_CACHE:-/var/cache/vcpuplace/qemu-cluster}"
kp_cluster_qemu() {
	local codename d

	if qemu-system-x86_64 -machine q35,help 2>/dev/null | grep -q smp-cache; then
		command -v qemu-system-x86_64
		return 0
	fi
	mkdir -p "$KP_QEMU_CACHE"
	(
		flock 9
		[ -f "$KP_QEMU_CACHE/done" ] && exit 0
		codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
		rm -rf "$KP_QEMU_CACHE/debs" "$KP_QEMU_CACHE/root"
		kp_apt_fetch "$KP_QEMU_CACHE" "$codename-backports" \
			qemu-system-x86 qemu-system-common qemu-system-data >&2
		for d in "$KP_QEMU_CACHE"/debs/*.deb; do
			dpkg-deb -x "$d" "$KP_QEMU_CACHE/root"
		done
		"$KP_QEMU_CACHE/root/usr/bin/qemu-system-x86_64" -machine q35,help |
			grep -q smp-cache || kp_die "$codename-backports' QEMU has no smp-cache"
		dpkg-deb --showformat='${Package} ${Version}\n' -W \
			"$KP_QEMU_CACHE"/debs/qemu-system-x86_*.deb >"$KP_QEMU_CACHE/done"
	) 9>"$KP_QEMU_CACHE/.lock" || exit 1
	echo "$KP_QEMU_CACHE/root/usr/bin/qemu-system-x86_64"
}

# kp_cluster_qemu_args QEMU: the machine options of the cluster boot for
# that binary: 4 cores x 2 threads as two modules (Linux's clusters) of
# two cores, L2 shared per module, L3 per socket; an Intel vendor, since
# Linux reads the L2's sharing from CPUID leaf 4 only on Intel
# (init_intel_cacheinfo() sets l2c_id).  qboot, not SeaBIOS: SeaBIOS's
# CPUID 0x1f loop stops QEMU 10.0.2 at an assertion in
# encode_topo_cpuid1f() once modules > 1; Linux's own loop does not.
kp_cluster_qemu_args() {
	local share

	share="$(dirname "$(dirname "$1")")/share/qemu"
	echo "-L $share -bios qboot.rom" \
		"-machine q35,smp-cache.0.cache=l2,smp-cache.0.topology=module" \
		"-smp 8,sockets=1,modules=2,cores=2,threads=2"
}

# kp_initramfs ROOT OUT INIT: pack ROOT, plus busybox-static and INIT as
# /init, into the gzipped newc cpio OUT.  The caller puts its test
# programs under ROOT first (static binaries: there is no libc in there).
# Shared with tests/scx/boot.sh.
kp_initramfs() {
	local root="$1" out="$2" init="$3"

	mkdir -p "$root"/{bin,dev,proc,sys}
	cp /bin/busybox "$root/bin/busybox"
	install -m 755 "$init" "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
}

# kp_qemu BZIMAGE INITRD CONSOLE_LOG TIMEOUT_S: boot under QEMU TCG, 2 GiB,
# the console into CONSOLE_LOG; the guest's /init powers it off.
# KP_QEMU_APPEND adds to the kernel command line, KP_QEMU_CPU sets -cpu
# (default max), KP_QEMU_BIN the binary.  The topology comes from
# VP_QEMU_SMP (default 4 cores x 2 threads, one socket), so other shapes
# can be tried without editing files; KP_QEMU_ARGS, if set, replaces -smp
# with its own machine options (the cluster boot's).
# thread=single: with multi-threaded TCG the guest oopsed twice on "int3"
# right when a scheduler feature switch patched kernel text (a text-poke
# breakpoint executed after its removal: cross-vCPU code modification).
# Shared with tests/scx/boot.sh.
# no_timer_check: at boot, check_timer() (arch/x86/kernel/apic/io_apic.c)
# counts timer interrupts over a busy-wait of a few jiffies and panics
# with "IO-APIC + timer doesn't work!" when too few arrive; under TCG on
# a loaded host they arrive late, so the verdict was the host's load
# (seen once in a 6.12 scx-test boot).  The guest's timer is QEMU's
# emulated one, which works; skipping the check makes the boot
# independent of load (many cloud images' command lines carry it).
kp_qemu() {
	# shellcheck disable=SC2086 # KP_QEMU_ARGS: words, from kp_cluster_qemu_args
	timeout "$4" "${KP_QEMU_BIN:-qemu-system-x86_64}" \
		-accel tcg,thread="${KP_TCG_THREAD:-single}" \
		-cpu "${KP_QEMU_CPU:-max}" \
		${KP_QEMU_ARGS:--smp ${VP_QEMU_SMP:-8,sockets=1,cores=4,threads=2}} \
		-m 2G -nographic -no-reboot \
		-kernel "$1" -initrd "$2" \
		-append "console=ttyS0 panic=-1 oops=panic loglevel=4 no_timer_check ${KP_QEMU_APPEND:-}" \
		</dev/null >"$3" 2>&1 || true
}

# kp_splats LOG: print the kernel splats in LOG (a console log), and
# succeed if there is any: warnings, bugs, oopses, KASAN and UBSAN
# reports, every kind of lockdep report, RCU misuse, sleeping in atomic
# context, list corruption, hung tasks, panics.
kp_splats() {
	grep -E -e 'WARNING:|BUG:|Oops|Kernel panic|KASAN|UBSAN' \
		-e 'possible (circular|recursive) locking|inconsistent lock state' \
		-e 'lock held when returning|bad unlock balance|DEBUG_LOCKS_WARN_ON' \
		-e 'suspicious RCU usage|sleeping function called from invalid' \
		-e 'list_(add|del) corruption|blocked for more than|Call Trace:' \
		"$1"
}
