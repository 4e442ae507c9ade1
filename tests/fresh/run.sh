#!/bin/sh
# make check-fresh: the README's commands run as a new user would, on a
# pristine Debian root.  Not part of `make check` (it takes an hour on two
# CPUs, most of it the two kernel builds); run it by hand before a change
# to what the project installs lands.
#
#   run.sh [SUITE] [TARGETS]   SUITE: bookworm (default) or trixie;
#                              TARGETS: what make runs (default "check")
#
# 1. debootstrap --variant=minbase SUITE into a new folder; apt's sources
#    are the host's Debian suites (main, -updates, -security), as a
#    standard install lists them.  The only packages added are git and
#    make, which a new user installs to get the clone and run it.
# 2. a clone of this checkout's HEAD (what is committed, nothing else)
#    in /root/vcpuplace, /root mode 0700 as on a real host.
# 3. make TARGETS in a private mount namespace whose / is the new root
#    (pivot_root, not chroot: systemctl, nsenter and libvirt's own checks
#    tell a chroot apart), with /proc, /sys and /dev of the host.
#
# The build caches (/var/cache/vcpuplace: the kernels, the systemd root)
# start empty, as on a new host; VP_FRESH_CACHE=host binds the host's
# instead, which tests the same packages in about 25 minutes.
# Env: VP_FRESH_DIR (default /var/tmp/vcpuplace-fresh), VP_DEBIAN_MIRROR.
# The log is DIR/SUITE-STAMP.log; the root is removed unless VP_FRESH_KEEP=1.
set -eu
suite=${1:-bookworm}
targets=${2:-check}
here=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "check-fresh: needs root" >&2; exit 1; }
sh "$here/tools/deps/install.sh" fresh

top=${VP_FRESH_DIR:-/var/tmp/vcpuplace-fresh}
stamp=$(date +%Y%m%d-%H%M%S)
root="$top/$suite-$stamp"
log="$top/$suite-$stamp.log"
mkdir -p "$top"
mirror=${VP_DEBIAN_MIRROR:-http://deb.debian.org/debian}

say() { echo "check-fresh: $*" | tee -a "$log" >&2; }
say "debootstrap --variant=minbase $suite into $root"
debootstrap --variant=minbase "$suite" "$root" "$mirror" >>"$log" 2>&1 || {
	tail -20 "$log" >&2
	exit 1
}
sh "$here/tools/deps/sources.sh" "$suite" "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
[ -f "$root/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n' \
	>"$root/etc/hosts"
chmod 0700 "$root/root"
git clone -q "$here" "$root/root/vcpuplace"
git -C "$root/root/vcpuplace" log -1 --format='check-fresh: at %h %s' | tee -a "$log"

if [ "${VP_FRESH_CACHE:-}" = host ]; then
	mkdir -p /var/cache/vcpuplace "$root/var/cache/vcpuplace"
	binds="mount --bind /var/cache/vcpuplace $root/var/cache/vcpuplace"
	say "caches: the host's /var/cache/vcpuplace"
else
	binds=:
	say "caches: empty, as on a new host"
fi

# /dev is the host's, and a package the root installs sets /dev/kvm's
# group to the root's own kvm gid: after one run the host's libvirt found
# KVM unusable, probed QEMU again at every domain start, and its
# integration tests ran 10 times slower.  The tests run TCG guests only,
# so the root gets an empty file over /dev/kvm and the host's node is
# left alone.
#
# The mount namespace's id, so that what the run left behind (libvirtd,
# virtlogd, a QEMU) is found and ended afterwards: they are host processes
# in every other respect.
enter() {
	unshare -m --propagation private sh -eu -c '
		root=$1 binds=$2 targets=$3
		mount --bind "$root" "$root"
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		if [ -e "$root/dev/kvm" ]; then
			: >"$root/var/lib/vp-no-kvm"
			mount --bind "$root/var/lib/vp-no-kvm" "$root/dev/kvm"
		fi
		mount -t tmpfs -o mode=0755 tmpfs "$root/run"
		eval "$binds"
		cd "$root"
		mkdir -p .host
		pivot_root . .host
		umount -l /.host
		rmdir /.host
		readlink /proc/self/ns/mnt >/root/.mntns
		exec env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		    sh -c "export DEBIAN_FRONTEND=noninteractive
			apt-get update -qq && apt-get install -y -qq git make >/dev/null &&
			cd /root/vcpuplace && make $targets"
	' enter "$root" "$binds" "$targets"
}

start=$(date +%s)
say "make $targets in the new root (log: $log)"
rc=0
enter >>"$log" 2>&1 || rc=$?
secs=$(($(date +%s) - start))

ns=$(cat "$root/root/.mntns" 2>/dev/null || true)
if [ -n "$ns" ]; then
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$ns" ] &&
			kill -9 "${p#/proc/}" 2>/dev/null || true
	done
fi
tail -5 "$log" >&2
say "$suite: make $targets exited $rc after $((secs / 60)) min $((secs % 60)) s"
if [ "${VP_FRESH_KEEP:-}" != 1 ]; then
	# the binds and mounts went with the namespace; only files are left
	rm -rf "$root"
fi
exit "$rc"
