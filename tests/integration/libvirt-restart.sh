#!/bin/sh
# Kills libvirtd (SIGTERM, then SIGKILL after 10 s) and starts it again
# the way libvirt-up.sh does.  Running QEMU guests survive: libvirtd
# reattaches to them when it comes back.
set -u
here=$(dirname "$0")

if [ "$(cat /proc/1/comm 2>/dev/null)" = systemd ]; then
	if systemctl cat libvirtd.service >/dev/null 2>&1; then
		systemctl kill -s TERM libvirtd; systemctl restart libvirtd
	else
		systemctl restart virtqemud
	fi
	exec sh "$here/libvirt-up.sh"
fi

# The pid file libvirtd -d writes, else the process of that exact name.
libvirtd_pids() {
	if [ -r /run/libvirtd.pid ]; then
		p=$(cat /run/libvirtd.pid 2>/dev/null)
		if [ -n "$p" ] && [ "$(cat /proc/"$p"/comm 2>/dev/null)" = libvirtd ]; then
			echo "$p"; return
		fi
	fi
	# only ours: a chroot sees the host's processes too
	for p in $(pgrep -x libvirtd); do
		# shellcheck disable=SC3013 # dash, Debian's sh, has -ef
		[ /proc/"$p"/root/ -ef / ] && echo "$p"
	done
}

pids=$(libvirtd_pids)
if [ -n "$pids" ]; then
	# shellcheck disable=SC2086
	kill -TERM $pids 2>/dev/null
	i=0
	while [ "$i" -lt 40 ] && [ -n "$(libvirtd_pids)" ]; do
		sleep 0.25
		i=$((i + 1))
	done
	pids=$(libvirtd_pids)
	if [ -n "$pids" ]; then
		echo "libvirt-restart: libvirtd ignored SIGTERM, sending SIGKILL" >&2
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null
		sleep 0.5
	fi
fi
# A killed libvirtd can leave its pid file behind; libvirtd -d refuses
# to start only if the pid in it is alive, so a stale one is harmless.
exec sh "$here/libvirt-up.sh"
