#!/bin/sh
# Starts what the integration tests need (virtlogd, libvirtd) and waits
# until `virsh -c qemu:///system version` answers.  Idempotent: running
# daemons are left alone.  Under systemd it asks systemd; otherwise it
# daemonizes them itself (containers, CI runners without an init).
set -u
URI=qemu:///system
TIMEOUT=${VP_LIBVIRT_TIMEOUT:-60}

# A daemon of that name whose root is ours: a chroot shares /proc with
# the host, whose libvirtd would otherwise pass for the chroot's own.
running() {
	for p in $(pgrep -x "$1"); do
		# shellcheck disable=SC3013 # dash, Debian's sh, has -ef
		[ /proc/"$p"/root/ -ef / ] && return 0
	done
	return 1
}

if [ "$(cat /proc/1/comm 2>/dev/null)" = systemd ]; then
	systemctl start virtlogd.socket virtlogd 2>/dev/null || true
	if systemctl cat libvirtd.service >/dev/null 2>&1; then
		systemctl start libvirtd
	else
		systemctl start virtqemud
	fi
else
	mkdir -p /run/libvirt
	running virtlogd || virtlogd -d || { echo "libvirt-up: virtlogd failed" >&2; exit 1; }
	running libvirtd || libvirtd -d || { echo "libvirt-up: libvirtd failed" >&2; exit 1; }
fi

i=0
while [ "$i" -lt $((TIMEOUT * 4)) ]; do
	if virsh -c "$URI" version >/dev/null 2>&1; then
		exit 0
	fi
	sleep 0.25
	i=$((i + 1))
done
echo "libvirt-up: $URI did not answer within ${TIMEOUT}s" >&2
virsh -c "$URI" version >&2
exit 1
