#!/bin/sh
# pkg/deb.sh B: builds the Debian package from a clean copy of the tree
# and runs lintian on it (see pkg/deb.mk).  Outputs B/vcpuplace_*.deb;
# the rest stays in B/deb/.
set -eu
B=${1:?usage: pkg/deb.sh BUILDDIR}
mkdir -p "$B"
B=$(cd "$B" && pwd)
work="$B/deb"
src="$work/src"

# dpkg-checkbuilddeps needs dpkg-dev; lintian and fakeroot are not build
# dependencies but `make deb` runs them.
sh tests/deps/install.sh deb
# The Build-Depends that are missing, as dpkg-checkbuilddeps names them:
# versions, profiles and later alternatives dropped.
unmet=$(dpkg-checkbuilddeps 2>&1 |
	sed -n 's/^.*Unmet build dependencies: //p' |
	sed -e 's/ *([^)]*)//g' -e 's/ *<[^>]*>//g' -e 's/ *| *[^ ]*//g')
# shellcheck disable=SC2086
[ -z "$unmet" ] || sh tests/deps/install.sh --build-depends $unmet

# dpkg-buildpackage wants a clean tree and writes next to it, so the copy
# goes one level down in a folder of its own.  Deleted but still tracked
# files are skipped (tar warns about them).
rm -rf "$work"
mkdir -p "$src"
git ls-files -z --cached --others --exclude-standard |
	tar --null --files-from=- --ignore-failed-read -cf - |
	tar -xf - -C "$src"

version=$(cd "$src" && dpkg-parsechangelog -S Version)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
deb="vcpuplace_${version}_${arch}.deb"
changes="vcpuplace_${version}_${arch}.changes"

# A clean environment, as a build daemon has: the make that ran us must
# not leak its MAKEFLAGS, B= or CFLAGS into the package (dh takes CFLAGS
# from dpkg-buildflags only when they are unset).
echo "deb: dpkg-buildpackage -us -uc -b in $src (log: $work/build.log)"
# DEB_BUILD_OPTIONS (nocheck, noopt, ...) and DEB_BUILD_PROFILES pass.
opts=${DEB_BUILD_OPTIONS:-}
profiles=${DEB_BUILD_PROFILES:-}
if ! (cd "$src" && env -i PATH="$PATH" HOME="${HOME:-/root}" \
    LC_ALL=C.UTF-8 ${opts:+DEB_BUILD_OPTIONS="$opts"} \
    ${profiles:+DEB_BUILD_PROFILES="$profiles"} \
    dpkg-buildpackage -us -uc -b -J) >"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log" >&2
	echo "deb: dpkg-buildpackage failed; the whole log: $work/build.log" >&2
	exit 1
fi
rm -f "$B"/vcpuplace_*.deb
cp "$work/$deb" "$B/$deb"

# --fail-on error,warning: info and pedantic tags are shown, not fatal.
# Every override has its reason above it in
# debian/vcpuplace.lintian-overrides (not --show-overrides: lintian 2.116
# would then count the overridden tags against --fail-on).
echo "deb: lintian --display-info --pedantic --fail-on error,warning $changes"
rc=0
(cd "$work" && lintian --display-info --pedantic --fail-on error,warning \
	"$changes") >"$work/lintian.txt" 2>&1 || rc=$?
grep -v 'running with root privileges' "$work/lintian.txt" || true
if [ "$rc" -ne 0 ]; then
	echo "deb: lintian failed (exit $rc)" >&2
	exit 1
fi
echo "deb: lintian: no error, no warning," \
	"$(grep -c '^[a-z]' debian/vcpuplace.lintian-overrides) overrides" \
	"(debian/vcpuplace.lintian-overrides)"
echo "deb: $B/$deb"
