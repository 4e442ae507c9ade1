#!/bin/sh
# Installs the Debian packages the integration tests need (libvirt, QEMU,
# a kernel and busybox for the guest), only those missing, so a second
# run is a no-op.  Run as root; elsewhere it says what to install.
set -eu

PKGS="libvirt-daemon-system libvirt-clients qemu-system-x86 linux-image-amd64 busybox-static cpio gzip python3"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "integration deps: missing packages:$missing (run as root)" >&2
	exit 1
fi
echo "integration deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
