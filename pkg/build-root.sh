#!/bin/sh
# pkg/build-root.sh SUITE: builds (once) a Debian root of SUITE (trixie,
# bookworm) in which `pkg/deb.sh B SUITE` (`make deb-trixie`) builds the
# package and runs lintian, and prints its path.
#
# The root is debootstrap's minbase, group deb-root of
# tools/deps/packages.list (dpkg-dev, debhelper, fakeroot, lintian), and
# debian/control's Build-Depends as apt resolves them there (`apt-get
# satisfy`, which takes the field as it is: versions, alternatives and
# the virtual debhelper-compat), so the package is built with that
# release's compiler, headers, debhelper and lintian, as a build daemon
# of that release would build it.  pkg/in-root.sh enters it read-only.
#
# Cached under $VP_CACHE (default /var/cache/vcpuplace) as
# deb-root-SUITE-KEY, KEY the hash of this script, the group and the
# Build-Depends: editing any of them builds a new root, and the other
# roots of the same suite are removed (never another suite's).  About
# 3 minutes and 600 MB.
set -eu
suite=${1:?usage: pkg/build-root.sh SUITE}
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${VP_CACHE:-/var/cache/vcpuplace}
pkgs=$(sh "$here/tools/deps/install.sh" --list deb-root | tr '\n' ' ')
# the field's lines joined, comments and the trailing comma dropped
bdeps=$(sed -n '/^Build-Depends:/,/^[^ ]/{/^Build-Depends:/d;/^[^ ]/d;p}' \
	"$here/debian/control" | sed 's/#.*//' | tr -d '\n' |
	sed -e 's/^ *//' -e 's/, *$//' -e 's/  */ /g')
key=$({ cat "$0"; echo "$suite"; echo "$pkgs"; echo "$bdeps"; } |
	sha256sum | cut -c1-16)
root="$cache/deb-root-$suite-$key"
if [ -f "$root/.vp-complete" ]; then
	echo "$root"
	exit 0
fi

sh "$here/tools/deps/install.sh" systemd-boot >&2
mkdir -p "$cache"
for old in "$cache/deb-root-$suite"-*; do
	[ -e "$old" ] && [ "$old" != "$root" ] && rm -rf "$old"
done
rm -rf "$root.tmp"
log="$cache/deb-root-$suite.log"
mirror=${VP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
echo "build-root: debootstrap $suite into $root (once; log: $log)" >&2
debootstrap --variant=minbase "$suite" "$root.tmp" "$mirror" >"$log" 2>&1 || {
	tail -20 "$log" >&2
	exit 1
}
sh "$here/tools/deps/sources.sh" "$suite" "$root.tmp"
chroot "$root.tmp" sh -c 'export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq &&
	apt-get install -y -qq --no-install-recommends $1 &&
	apt-get satisfy -y -qq --no-install-recommends "$2" &&
	apt-get clean' build-root "$pkgs" "$bdeps" >>"$log" 2>&1 || {
	tail -20 "$log" >&2
	exit 1
}
# in-root.sh binds the build folder on /build and pivots onto /.host:
# the root is read-only then, so the mount points are made here
mkdir -p "$root.tmp/build" "$root.tmp/.host"
touch "$root.tmp/.vp-complete"
mv "$root.tmp" "$root"
echo "$root"
