#!/bin/sh
# tools/deps/sources.sh SUITE ROOT: apt's sources in a new Debian root of
# SUITE: the host's Debian suites (main, -updates, -security) with the
# host's release name replaced by SUITE, as a standard install of SUITE
# lists them, so the root's packages are no older than that release's
# current ones.  Nothing changes when the host has no deb822 sources
# (debootstrap's own sources.list, the release alone, stays).
set -eu
suite=${1:?usage: tools/deps/sources.sh SUITE ROOT}
root=${2:?usage: tools/deps/sources.sh SUITE ROOT}
src=/etc/apt/sources.list.d/debian.sources
[ -f "$src" ] || exit 0
host_suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
sed "s/\b$host_suite\b/$suite/g" "$src" \
	>"$root/etc/apt/sources.list.d/debian.sources"
rm -f "$root/etc/apt/sources.list"
