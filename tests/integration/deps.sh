#!/bin/sh
# Installs the Debian packages the integration tests need (libvirt, QEMU,
# a kernel and busybox for the guest), only those missing, through the
# project's one installer, tests/deps.sh.
set -eu
exec sh "$(dirname "$0")/../deps.sh" libvirt-daemon-system libvirt-clients \
	qemu-system-x86 linux-image-amd64 busybox-static cpio gzip python3 tmux gdb
