#!/bin/sh
# Builds the integration-test guest from Debian packages:
#   OUTDIR/vmlinuz        the newest /boot/vmlinuz-* (linux-image-amd64)
#   OUTDIR/initramfs.gz   busybox-static and an /init (cpio newc, gzip)
# The guest's /init mounts proc and sys, reads vp.work= from the kernel
# command line (idle: sleep forever, so the vCPUs halt; burn: one busy
# loop per CPU), prints "VPGUEST READY" on the console and stays up.
# Cached: nothing is rebuilt while both files exist and the kernel is
# still the newest one.
#
#   build.sh OUTDIR
set -eu
[ $# -eq 1 ] || { echo "usage: build.sh OUTDIR" >&2; exit 2; }
out=$1
mkdir -p "$out"

kernel=$(find /boot -maxdepth 1 -name 'vmlinuz-*' | sort -V | tail -1)
[ -n "$kernel" ] || { echo "guest: no /boot/vmlinuz-* (install linux-image-amd64)" >&2; exit 1; }
bb=/bin/busybox
[ -x "$bb" ] || { echo "guest: no $bb (install busybox-static)" >&2; exit 1; }
if ! ldd "$bb" 2>&1 | grep -q "not a dynamic"; then
	echo "guest: $bb is not static (install busybox-static)" >&2; exit 1
fi

if [ -s "$out/vmlinuz" ] && [ -s "$out/initramfs.gz" ] &&
    [ "$(cat "$out/kernel-source" 2>/dev/null)" = "$kernel" ]; then
	exit 0
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/dev" "$stage/proc" "$stage/sys" "$stage/tmp"
cp "$bb" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
# The kernel opens /dev/console before running /init; without the node
# the init has no console (devtmpfs is mounted later, by /init itself).
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
mknod -m 666 "$stage/dev/null" c 1 3 2>/dev/null || true
cat >"$stage/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
/bin/busybox --install -s /bin
export PATH=/bin
work=idle
for a in $(cat /proc/cmdline); do
	case "$a" in vp.work=*) work=${a#vp.work=} ;; esac
done
n=$(nproc)
case "$work" in
burn)
	i=0
	while [ "$i" -lt "$n" ]; do
		(while :; do :; done) &
		i=$((i + 1))
	done
	;;
idle) ;;
*) echo "VPGUEST unknown vp.work=$work, idling" ;;
esac
echo "VPGUEST READY work=$work cpus=$n"
# Idle: the shell sleeps, every vCPU halts.  Never exit: PID 1 must live.
while :; do sleep 3600; done
INIT
chmod 755 "$stage/init"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -9) >"$out/initramfs.gz.tmp"
cp "$kernel" "$out/vmlinuz.tmp"
chmod 644 "$out/initramfs.gz.tmp" "$out/vmlinuz.tmp"
mv "$out/initramfs.gz.tmp" "$out/initramfs.gz"
mv "$out/vmlinuz.tmp" "$out/vmlinuz"
echo "$kernel" >"$out/kernel-source"
echo "guest: built $out (kernel $(basename "$kernel"))"
