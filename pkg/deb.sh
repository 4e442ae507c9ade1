#!/bin/sh
# pkg/deb.sh B [SUITE]: builds the Debian package from a clean copy of the
# tree and runs lintian on it (see pkg/deb.mk).
#
# Without SUITE, on this host: outputs B/vcpuplace_*.deb, the rest stays
# in B/deb/.  With SUITE (trixie, bookworm), inside pkg/build-root.sh's
# root of that release (entered by pkg/in-root.sh), with its compiler,
# debhelper and lintian: outputs B/SUITE/vcpuplace_*.deb, the rest stays
# in B/deb-SUITE/.  The same source builds on both: Depends come from
# ${shlibs:Depends}, paths from debian/rules.
set -eu
B=${1:?usage: pkg/deb.sh BUILDDIR [SUITE]}
suite=${2:-}
mkdir -p "$B"
B=$(cd "$B" && pwd)
here=$(pwd)

if [ -z "$suite" ]; then
	work="$B/deb"
	out="$B"
	# dpkg-checkbuilddeps needs dpkg-dev; lintian and fakeroot are not
	# build dependencies but `make deb` runs them.  Group scx first: on
	# Debian 12 it takes libbpf-dev and bpftool from bookworm-backports,
	# which the Build-Depends' versions need (a plain install of them by
	# name below would take main's, too old).
	sh tools/deps/install.sh deb scx
	# The Build-Depends that are missing, as dpkg-checkbuilddeps names
	# them: versions and profiles dropped, and of alternatives the
	# first that apt has (systemd-dev on Debian 13, systemd on 12).
	unmet=$(dpkg-checkbuilddeps 2>&1 |
		sed -n 's/^.*Unmet build dependencies: //p' |
		sed -e 's/ *([^)]*)//g' -e 's/ *<[^>]*>//g' -e 's/ *| */|/g')
	pick=""
	for alts in $unmet; do
		first=""
		for p in $(echo "$alts" | tr '|' ' '); do
			if apt-cache policy "$p" 2>/dev/null |
			    grep -q 'Candidate: [^(]'; then
				first=$p
				break
			fi
		done
		pick="$pick ${first:-${alts%%|*}}"
	done
	unmet=$pick
	# shellcheck disable=SC2086
	[ -z "$unmet" ] || sh tools/deps/install.sh --build-depends $unmet
	# in WORK, as the host's build has always run
	inside() { (cd "$work" && "$@"); }
	where="this host"
	home=${HOME:-/root}
else
	work="$B/deb-$suite"
	out="$B/$suite"
	root=$(sh pkg/build-root.sh "$suite")
	# WORK is /build in there; dpkg-buildpackage finds its
	# Build-Depends installed (the root was made from them)
	inside() { sh "$here/pkg/in-root.sh" "$root" "$work" "$@"; }
	where="a $suite root ($root)"
	home=/tmp
fi

# dpkg-buildpackage wants a clean tree and writes next to it, so the copy
# goes one level down in a folder of its own.  Deleted but still tracked
# files are skipped (tar warns about them).
src="$work/src"
rm -rf "$work"
mkdir -p "$src" "$out"
git ls-files -z --cached --others --exclude-standard |
	tar --null --files-from=- --ignore-failed-read -cf - |
	tar -xf - -C "$src"

version=$(cd "$src" && dpkg-parsechangelog -S Version)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
deb="vcpuplace_${version}_${arch}.deb"
changes="vcpuplace_${version}_${arch}.changes"

# A clean environment, as a build daemon has: the make that ran us must
# not leak its MAKEFLAGS, B= or CFLAGS into the package (dh takes CFLAGS
# from dpkg-buildflags only when they are unset).  in-root.sh clears the
# environment by itself.
echo "deb: dpkg-buildpackage -us -uc -b on $where (log: $work/build.log)"
# DEB_BUILD_OPTIONS (nocheck, noopt, ...) and DEB_BUILD_PROFILES pass.
opts=${DEB_BUILD_OPTIONS:-}
profiles=${DEB_BUILD_PROFILES:-}
if ! inside env -i PATH="$PATH" HOME="$home" \
    LC_ALL=C.UTF-8 ${opts:+DEB_BUILD_OPTIONS="$opts"} \
    ${profiles:+DEB_BUILD_PROFILES="$profiles"} \
    sh -c 'cd src && exec dpkg-buildpackage -us -uc -b -J' \
    >"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log" >&2
	echo "deb: dpkg-buildpackage failed; the whole log: $work/build.log" >&2
	exit 1
fi
rm -f "$out"/vcpuplace_*.deb
cp "$work/$deb" "$out/$deb"

# --fail-on error,warning: info and pedantic tags are shown, not fatal.
# Every override has its reason above it in
# debian/vcpuplace.lintian-overrides (not --show-overrides: lintian 2.116
# would then count the overridden tags against --fail-on).
lintian_v=$(inside lintian --version)
echo "deb: $lintian_v --display-info --pedantic --fail-on error,warning $changes"
rc=0
inside lintian --display-info --pedantic --fail-on error,warning \
	"$changes" >"$work/lintian.txt" 2>&1 || rc=$?
grep -v 'running with root privileges' "$work/lintian.txt" || true
if [ "$rc" -ne 0 ]; then
	echo "deb: lintian failed (exit $rc)" >&2
	exit 1
fi
# the overrides the package carries (debian/rules puts them in only
# where the release's lintian knows their tag)
n_ov=$(dpkg-deb --fsys-tarfile "$out/$deb" |
	tar -xOf - ./usr/share/lintian/overrides/vcpuplace 2>/dev/null |
	grep -c '^[a-z]' || true)
echo "deb: lintian: no error, no warning, $n_ov overrides" \
	"(debian/vcpuplace.lintian-overrides)"
echo "deb: $out/$deb"
