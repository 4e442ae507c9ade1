#!/bin/sh
# Installs the Debian packages that building and testing vcpuplace need,
# and only those missing, so a second run is a no-op.  The packages are
# named in one place, tools/deps/packages.list, by group.  Run as root
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
#
# A package named PKG@SUITE in the list comes, on the release SUITE
# belongs to (bookworm for bookworm-backports), from SUITE: this script
# then adds SUITE to apt's sources, once, in its own file
# /etc/apt/sources.list.d/vcpuplace-SUITE.sources (the archive URI of the
# host's own Debian entry, Debian's archive key), and installs those
# packages as PKG/SUITE.  Backports suites are NotAutomatic: apt takes
# nothing else from them unless asked, so the rest of the host is not
# upgraded (see install_from below).  On any other release PKG comes
# from the release's own suites
# (Debian 13 has libbpf 1.5 in main).  Installed counts only at or above
# SUITE's version.
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

CODENAME=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
# the suite a PKG@SUITE word asks for on this release, or nothing
suite_of() {
	case $1 in
	*@"$CODENAME"-*) echo "${1#*@}" ;;
	esac
}

# installed P: P (PKG or PKG@SUITE) is installed, at SUITE's version or
# newer when SUITE applies here and apt's lists know it
installed() {
	name=${1%%@*}
	dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "ok installed" ||
		return 1
	suite=$(suite_of "$1")
	[ -n "$suite" ] || return 0
	want=$(apt-cache madison "$name" 2>/dev/null |
		awk -F' [|] ' -v s="$suite" '$3 ~ " " s "/" { print $2; exit }')
	[ -n "$want" ] || return 1
	dpkg --compare-versions "$(dpkg-query -W -f='${Version}' "$name")" ge "$want"
}

# add_suite SUITE: SUITE in apt's sources, from the host's Debian archive
add_suite() {
	f=/etc/apt/sources.list.d/vcpuplace-$1.sources
	[ -f "$f" ] && return 0
	uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' |
		awk -v c="$CODENAME" '$2 == c { print $1; exit }')
	if [ -z "$uri" ]; then
		echo "deps: no $CODENAME entry in apt's sources to take $1 from" >&2
		exit 1
	fi
	echo "deps: adding $1 to apt's sources ($f)"
	printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
	    "$uri" "$1" /usr/share/keyrings/debian-archive-keyring.gpg >"$f"
}

update_only=""
case "${1:-}" in
--update) update_only=1; shift; PKGS="" ;;
--list) shift; packages "$@" | sed 's/@.*//'; exit ;;
--build-depends) shift; PKGS="$*" ;;
*) PKGS=$(packages "$@") ;;
esac

missing=""
for p in $PKGS; do
	installed "$p" || missing="$missing $p"
done
[ -n "$update_only" ] && missing=" (lists only)"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run 'make deps' as root)" >&2
	exit 1
fi
[ -n "$update_only" ] || echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" = 0 ]; then
	for p in $missing; do
		suite=$(suite_of "$p")
		[ -z "$suite" ] || add_suite "$suite"
	done
fi

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
# install_from PKG...
install_from() {
	# shellcheck disable=SC2086
	apt-get -o DPkg::Lock::Timeout="$wait_s" install -y -qq \
	    --no-install-recommends "$@"
}
# PKG/SUITE takes PKG, and the dependencies only SUITE can satisfy
# (libbpf1 1.4 for libbpf-dev), from SUITE and nothing else: -t SUITE
# would raise the suite for the whole transaction and upgrade unrelated
# installed packages from it (it took linux-perf and linux-libc-dev).
plain="" suites=""
for p in $missing; do
	suite=$(suite_of "$p")
	if [ -n "$suite" ]; then
		case " $suites " in *" $suite "*) ;; *) suites="$suites $suite" ;; esac
	else
		plain="$plain ${p%%@*}"
	fi
done
ok=1
# shellcheck disable=SC2086
[ -z "$plain" ] || install_from $plain || ok=""
for suite in $suites; do
	pk=""
	for p in $missing; do
		if [ "$(suite_of "$p")" = "$suite" ]; then pk="$pk ${p%%@*}/$suite"; fi
	done
	# shellcheck disable=SC2086
	install_from $pk || ok=""
done
if [ -z "$ok" ]; then
	for p in $missing; do
		p=${p%%@*}
		apt-cache show "$p" >/dev/null 2>&1 && continue
		echo "deps: $p is in none of apt's sources;" \
		    "linux-source-6.12 comes from bookworm-security, which a" \
		    "standard Debian 12 install lists in /etc/apt/sources.list" >&2
	done
	exit 1
fi
