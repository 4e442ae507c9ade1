#!/bin/sh
# Installs the Debian packages that building and testing vcpuplace need,
# and only those missing, so a second run is a no-op.  Run as root (CI
# and the developers' machines are); elsewhere it says what to install.
#
#   deps.sh [PACKAGE ...]   the given packages instead of the build set
#   deps.sh --update        only refresh apt's lists (waiting for its lock)
set -eu

PKGS="build-essential pkg-config python3 libhwloc-dev hwloc-nox check libjson-c-dev libxml2-dev libvirt-dev libsystemd-dev libncurses-dev scdoc mandoc"

update_only=""
if [ "${1:-}" = --update ]; then
	update_only=1
	shift
fi
[ $# -gt 0 ] && PKGS="$*"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -n "$update_only" ] && missing=" (lists only)"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run 'make deps' as root)" >&2
	exit 1
fi
[ -n "$update_only" ] || echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive

# On a new cloud host unattended-upgrades holds apt's locks for minutes
# after boot, and another apt may be running: wait for it (up to
# VP_APT_WAIT_S, default 30 min) instead of failing.  apt-get install
# waits on dpkg's lock by itself (DPkg::Lock::Timeout); apt-get update
# does not wait on the lists lock (apt 2.6), so it is tried again while
# the only complaint is a held lock.
wait_s=${VP_APT_WAIT_S:-1800}
start=$(date +%s)
said=""
while ! out=$(apt-get -o DPkg::Lock::Timeout="$wait_s" update -qq 2>&1); do
	case $out in
	*"Could not get lock"*|*"Unable to lock"*) ;;
	*) echo "$out" >&2; exit 1 ;;
	esac
	if [ $(($(date +%s) - start)) -ge "$wait_s" ]; then
		echo "$out" >&2
		echo "deps: apt stayed locked for ${wait_s} s, giving up" >&2
		exit 1
	fi
	[ -n "$said" ] || echo "deps: apt is busy (another apt or" \
	    "unattended-upgrades holds its lock); waiting" >&2
	said=1
	sleep 5
done
[ -z "$out" ] || echo "$out"
[ -z "$update_only" ] || exit 0
# shellcheck disable=SC2086
if ! apt-get -o DPkg::Lock::Timeout="$wait_s" install -y -qq \
	--no-install-recommends $missing; then
	for p in $missing; do
		apt-cache show "$p" >/dev/null 2>&1 && continue
		echo "deps: $p is in none of apt's sources;" \
		    "linux-source-6.12 comes from bookworm-security, which a" \
		    "standard Debian 12 install lists in /etc/apt/sources.list" >&2
	done
	exit 1
fi
