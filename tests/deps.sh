#!/bin/sh
# Installs the Debian packages that building and testing vcpuplace need,
# and only those missing, so a second run is a no-op.  Run as root (CI
# and the developers' machines are); elsewhere it says what to install.
#
#   deps.sh [PACKAGE ...]   the given packages instead of the build set
set -eu

PKGS="build-essential pkg-config python3 libhwloc-dev hwloc-nox check libjson-c-dev libxml2-dev libvirt-dev libsystemd-dev libncurses-dev"

[ $# -gt 0 ] && PKGS="$*"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run 'make deps' as root)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
