#!/bin/sh
# Installs the Debian packages that building and testing vcpuplace need,
# and only those missing, so a second run is a no-op.  The packages are
# named in one place, tests/deps/packages.list, by group.  Run as root
# (CI and the developers' machines are); elsewhere it says what to
# install.
#
#   install.sh                every group `make check` needs (make deps)
#   install.sh GROUP ...      those groups (a suite run on its own)
#   install.sh --list [GROUP ...]   print the packages, one a line
#   install.sh --build-depends PKG ...   packages that debian/control's
#                             Build-Depends name (pkg/deb.sh), the one
#                             list kept outside packages.list
#   install.sh --update       only refresh apt's lists (waiting for its lock)
set -eu
LIST="$(dirname "$0")/packages.list"

# packages GROUP...: the packages of those groups (no group: every group
# whose WHEN is "check"), in the list's order, each once
packages() {
	awk -v want=" $* " '
		/^[ \t]*(#|$)/ { next }
		(want == "  " && $2 == "check") || index(want, " " $1 " ") {
			seen_group[$1] = 1
			for (i = 3; i <= NF; i++)
				if (!($i in done)) { done[$i] = 1; print $i }
		}
		END {
			n = split(want, w, " ")
			for (i = 1; i <= n; i++)
				if (!(w[i] in seen_group)) {
					print "deps: no group \"" w[i] "\" in " FILENAME > "/dev/stderr"
					exit 2
				}
		}' "$LIST"
}

update_only=""
case "${1:-}" in
--update) update_only=1; shift; PKGS="" ;;
--list) shift; packages "$@"; exit ;;
--build-depends) shift; PKGS="$*" ;;
*) PKGS=$(packages "$@") ;;
esac

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
