#!/bin/sh
# Builds (once) the Debian root of SUITE (bookworm, trixie; default this
# host's release, whose libraries `make deb` links against) that the
# real-systemd test boots with systemd-nspawn, and prints its path.
#
# The root is debootstrap's minbase plus group boot-root of
# tools/deps/packages.list: systemd as PID 1, dbus, libvirt with its QEMU
# driver and QEMU itself (the test pins a real guest through libvirt
# inside it), and the libraries vcpuplace's package links against, so
# `apt install ./vcpuplace_*.deb` inside it needs no network.
# The test boots it with --volatile=overlay: every boot starts from this
# same pristine tree and nothing it does is written back.
#
# Cached outside the clone, under $VP_CACHE (default /var/cache/vcpuplace),
# as systemd-root-SUITE-KEY, KEY the hash of this script, the suite and
# the group's packages: editing either builds a new root, and the other
# roots of the same suite are removed, never another suite's (and the
# unsuffixed systemd-root-KEY of before the suites).  About 2 minutes
# and 450 MB a suite.
#
#   boot-root.sh [SUITE]
set -eu
suite=${1:-$(. /etc/os-release && echo "$VERSION_CODENAME")}
cache=${VP_CACHE:-/var/cache/vcpuplace}
# what goes in: group boot-root of the project's one package list (the
# library names are the same on Debian 12 and 13: no t64 rename among
# them, libxml2 is still libxml2)
pkgs=$(sh "$(dirname "$0")/../../tools/deps/install.sh" --list boot-root | tr '\n' ' ')
key=$({ cat "$0"; echo "$suite"; echo "$pkgs"; } | sha256sum | cut -c1-16)
root="$cache/systemd-root-$suite-$key"
log="$cache/systemd-root-$suite.log"
if [ -f "$root/.vp-complete" ]; then
	echo "$root"
	exit 0
fi

sh "$(dirname "$0")/../../tools/deps/install.sh" systemd-boot >&2
mkdir -p "$cache"
# 16 characters: the key alone, as named before the suites were
for old in "$cache/systemd-root-$suite"-* \
    "$cache"/systemd-root-????????????????; do
	[ -d "$old" ] && [ "$old" != "$root" ] && rm -rf "$old"
done
rm -rf "$root" "$root.tmp"
mirror=${VP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
echo "boot-root: debootstrap $suite into $root (once; log: $log)" >&2
# systemd-sysv makes systemd PID 1; the rest comes through apt below,
# whose resolver (unlike debootstrap's) takes virtual packages
# (polkitd needs a logind).
debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus \
	"$suite" "$root.tmp" "$mirror" >"$log" 2>&1 || {
	tail -20 "$log" >&2
	exit 1
}
# SUITE's -updates and -security too, so the guest's libraries are no
# older than those the package was built against
sh "$(dirname "$0")/../../tools/deps/sources.sh" "$suite" "$root.tmp"
# util-linux (essential) brings runuser, for the socket checks as a
# member of group vcpuplace.
chroot "$root.tmp" sh -c 'export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq &&
	apt-get install -y -qq --no-install-recommends $1 &&
	apt-get clean' boot-root "$pkgs" >>"$log" 2>&1 || {
	tail -20 "$log" >&2
	exit 1
}
# nspawn leaves the cgroup v1 controllers read-only inside the container
# on a host whose PID 1 is not systemd; without controllers, libvirt
# still pins (sched_setaffinity), which is all the test asks of it.
echo 'cgroup_controllers = [ ]' >>"$root.tmp/etc/libvirt/qemu.conf"
# the guests' consoles go here (QEMU runs as libvirt-qemu)
mkdir -p "$root.tmp/var/lib/vptest"
chmod 0777 "$root.tmp/var/lib/vptest"
touch "$root.tmp/.vp-complete"
mv "$root.tmp" "$root"
echo "$root"
