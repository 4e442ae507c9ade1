#!/bin/sh
# pkg/in-root.sh ROOT DIR CMD...: runs CMD inside ROOT (pkg/build-root.sh's
# cached tree) with DIR bound read-write on /build, as root, in a clean
# environment whose HOME is a fresh /tmp.
#
# ROOT is read-only in there, so a build can leave nothing behind in the
# cache; /tmp is a tmpfs; /proc is the namespace's own, /dev and /sys the
# host's (the unit tests read hwloc's view).  Entered through a private
# mount namespace and pivot_root, as tests/fresh/run.sh does, not chroot:
# the process's / is then the root itself, and nothing of the host's
# tree stays reachable behind it.
set -eu
root=${1:?usage: pkg/in-root.sh ROOT DIR CMD...}
dir=${2:?usage: pkg/in-root.sh ROOT DIR CMD...}
shift 2
[ -f "$root/.vp-complete" ] || { echo "in-root: $root is no built root" >&2; exit 1; }
exec unshare -m --propagation private sh -eu -c '
	root=$1 dir=$2
	shift 2
	mount --bind "$root" "$root"
	mount -o remount,bind,ro "$root"
	mount -t proc proc "$root/proc"
	mount --rbind /sys "$root/sys"
	mount --rbind /dev "$root/dev"
	mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
	mount --bind "$dir" "$root/build"
	cd "$root"
	pivot_root . .host
	umount -l /.host
	cd /build
	exec env -i HOME=/tmp TERM=dumb LC_ALL=C.UTF-8 \
	    PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
' in-root "$root" "$dir" "$@"
