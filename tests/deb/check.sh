#!/bin/sh
# tests/deb/check.sh WORK: checks the package that pkg/deb.sh built in
# WORK (B/deb, or B/deb-SUITE run inside that suite's root, see
# pkg/deb.mk): WORK holds the source copy in src/ and
# dpkg-buildpackage's output.  The file list is not written down here: it
# is compared with what `make install` writes with the package's own
# variables (VP_MAKE in debian/rules, as that release's make expands it),
# run in the package's build tree, so a file added to install (the man
# pages, say) must reach the package too.  Then the conffiles, the
# maintainer scripts debhelper generated, the control fields, the
# hardening of the binaries and the build log.  A broken copy of the
# package must fail the same checks.
set -eu
work=${1:?usage: tests/deb/check.sh WORK}
work=$(cd "$work" && pwd)
src="$work/src"
version=$(cd "$src" && dpkg-parsechangelog -S Version)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
deb="$work/vcpuplace_${version}_${arch}.deb"
release=$(. /etc/os-release && echo "$PRETTY_NAME")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -f "$deb" ] || { echo "FAIL no $deb (run make deb)"; exit 1; }

# What `make install` writes, from the tree the package was built in: the
# same objects and paths, so nothing is rebuilt.
# shellcheck disable=SC2016
vp_make=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$src" \
	-f debian/rules --eval 'vp-make: ; @echo $(VP_MAKE)' vp-make)
[ -n "$vp_make" ] || { echo "FAIL no VP_MAKE in debian/rules"; exit 1; }
# shellcheck disable=SC2086
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$src" $vp_make \
	DESTDIR="$tmp/ref" install >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; echo "FAIL make install"; exit 1; }
(cd "$tmp/ref" && find . ! -type d | sed 's|^\./|/|' | sort) >"$tmp/ref.list"
# the unit's folder is the release's (debian/rules asks systemd.pc)
unit=$(grep '/systemd/system/vcpuplaced\.service$' "$tmp/ref.list" || true)
[ -n "$unit" ] || { echo "FAIL make install writes no vcpuplaced.service"; exit 1; }

# check_deb DEB: one PASS or FAIL line per check; the number of
# failures is its exit status.
check_deb() {
	d=$tmp/x
	rm -rf "$d"
	mkdir -p "$d"
	nf=0
	ok() { echo "PASS $1"; }
	ko() { nf=$((nf + 1)); echo "FAIL $1"; }

	dpkg-deb -x "$1" "$d/root"
	dpkg-deb -e "$1" "$d/ctrl"
	# dpkg-deb -c: the package's own view of its files, not the unpacked
	# tree (which would hide a missing or an extra entry behind the
	# filesystem)
	dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' |
		sort >"$d/deb.list"

	# Debian's additions; man pages and the changelog are gzipped by
	# dh_compress (the .md documents are kept as they are: the unit's
	# Documentation= names README.md, which links to doc/*.md).
	awk '/^\/usr\/share\/man\// && !/\.gz$/ { $0 = $0 ".gz" } 1' \
		"$tmp/ref.list" >"$d/want"
	printf '%s\n' /usr/share/doc/vcpuplace/copyright \
		/usr/share/doc/vcpuplace/changelog.gz >>"$d/want"
	# the overrides only beside a unit under /lib (see debian/rules)
	[ "$unit" != /lib/systemd/system/vcpuplaced.service ] ||
		echo /usr/share/lintian/overrides/vcpuplace >>"$d/want"
	sort -o "$d/want" "$d/want"
	if cmp -s "$d/want" "$d/deb.list"; then
		ok "the package holds what make install writes ($(wc -l \
		    <"$d/deb.list") files)"
	else
		ko "file list: < make install, > package: $(diff "$d/want" \
		    "$d/deb.list" | grep '^[<>]' | tr '\n' ' ')"
	fi
	for f in /usr/bin/vcpuplacectl /usr/sbin/vcpuplaced \
	    "$unit" \
	    /usr/lib/sysusers.d/vcpuplace.conf \
	    /usr/lib/tmpfiles.d/vcpuplace.conf \
	    /usr/share/doc/vcpuplace/README.md; do
		if grep -qx "$f" "$d/deb.list"; then
			ok "has $f"
		else
			ko "lacks $f"
		fi
	done
	n_src=$(find "$src/policies" -name '*.xml' | wc -l)
	n_deb=$(grep -c '^/etc/vcpuplace/policies/.*\.xml$' "$d/deb.list" ||
	    true)
	if [ "$n_src" -gt 0 ] && [ "$n_src" = "$n_deb" ]; then
		ok "all $n_src profiles in /etc/vcpuplace/policies"
	else
		ko "profiles: $n_deb in the package, $n_src in policies/"
	fi
	# man pages iff make install writes them; then the overrides that
	# stand in for them must be gone
	ov="$src/debian/vcpuplace.lintian-overrides"
	if grep -q '^/usr/share/man/' "$tmp/ref.list"; then
		if grep -q '^/usr/share/man/' "$d/deb.list" &&
		    ! grep -q 'no-manual-page' "$ov"; then
			ok "man pages: $(grep -c '^/usr/share/man/' \
			    "$d/deb.list")"
		else
			ko "make install writes man pages: drop the" \
			    "no-manual-page overrides in" \
			    "debian/vcpuplace.lintian-overrides"
		fi
	elif grep -q '^/usr/share/man/' "$d/deb.list"; then
		ko "man pages in the package that make install does not write"
	else
		ok "no man pages (make install writes none yet)"
	fi
	# every override justified: a comment line above each block
	if awk '/^#/ { c = 1; next } /^[ \t]*$/ { c = 0; next }
	    !c { bad = 1; print "unjustified override: " $0 }
	    END { exit bad }' "$ov"; then
		ok "every lintian override has a comment"
	else
		ko "a lintian override without a comment"
	fi

	# everything under /etc is a conffile: remove keeps the admin's edits
	grep '^/etc/' "$d/deb.list" >"$d/etc.list" || true
	: >"$d/conffiles"
	[ ! -f "$d/ctrl/conffiles" ] || sort "$d/ctrl/conffiles" >"$d/conffiles"
	if [ -s "$d/etc.list" ] && cmp -s "$d/etc.list" "$d/conffiles"; then
		ok "conffiles: every file under /etc ($(wc -l <"$d/conffiles"))"
	else
		ko "conffiles differ from /etc: $(diff "$d/etc.list" \
		    "$d/conffiles" | grep '^[<>]' | tr '\n' ' ')"
	fi

	# the maintainer scripts are debhelper's: the group through
	# systemd-sysusers before anything starts the unit (Group=vcpuplace),
	# then tmpfiles, enable, start or restart; stop on remove; purge
	pi="$d/ctrl/postinst"
	line() { grep -n "$1" "$2" 2>/dev/null | head -n 1 | cut -d: -f1; }
	l_su=$(line 'systemd-sysusers .* vcpuplace.conf' "$pi")
	l_tf=$(line 'systemd-tmpfiles .*--create vcpuplace.conf' "$pi")
	l_en=$(line "deb-systemd-helper enable 'vcpuplaced.service'" "$pi")
	l_st=$(line "deb-systemd-invoke \$_dh_action 'vcpuplaced.service'" \
	    "$pi")
	if [ -n "$l_su" ] && [ -n "$l_tf" ] && [ -n "$l_en" ] &&
	    [ -n "$l_st" ] && [ "$l_su" -lt "$l_tf" ] &&
	    [ "$l_tf" -lt "$l_en" ] && [ "$l_en" -lt "$l_st" ]; then
		ok "postinst: sysusers, tmpfiles, enable, start (in that order)"
	else
		ko "postinst: sysusers=${l_su:-none} tmpfiles=${l_tf:-none}" \
		    "enable=${l_en:-none} start=${l_st:-none}"
	fi
	if grep -q '_dh_action=restart' "$pi" 2>/dev/null; then
		ok "postinst restarts the daemon after an upgrade"
	else
		ko "postinst does not restart after an upgrade"
	fi
	if grep -q "deb-systemd-invoke stop 'vcpuplaced.service'" \
	    "$d/ctrl/prerm" 2>/dev/null; then
		ok "prerm stops the daemon on remove"
	else
		ko "prerm does not stop the daemon"
	fi
	if grep -q "deb-systemd-helper purge 'vcpuplaced.service'" \
	    "$d/ctrl/postrm" 2>/dev/null; then
		ok "postrm forgets the unit's enablement on purge"
	else
		ko "postrm lacks deb-systemd-helper purge"
	fi
	if cat "$d/ctrl/postinst" "$d/ctrl/prerm" "$d/ctrl/postrm" \
	    "$d/ctrl/preinst" 2>/dev/null |
	    grep -Ev '^[[:space:]]*#' |
	    grep -Eq '(user|group)add|add(user|group)|systemctl (enable|start)'
	then
		ko "a hand-written useradd/groupadd/systemctl in the scripts"
	else
		ok "no hand-written useradd, groupadd or systemctl"
	fi

	# control: substvars filled, the sysusers and kill(1) dependencies
	dep=$(dpkg-deb -f "$1" Depends)
	# shellcheck disable=SC2016
	case $dep in
	*'${'*) ko "Depends has an unfilled substvar: $dep" ;;
	*libvirt0*systemd*|*systemd*libvirt0*)
		case $dep in
		*procps*) ok "Depends: shlibs, systemd-sysusers, procps" ;;
		*) ko "Depends lacks procps (ExecReload= runs kill): $dep" ;;
		esac ;;
	*) ko "Depends: $dep" ;;
	esac
	if [ "$(dpkg-deb -f "$1" Version)" = "$version" ] &&
	    [ "$(dpkg-deb -f "$1" Architecture)" = "$arch" ]; then
		ok "Version $version, Architecture $arch"
	else
		ko "Version/Architecture:" \
		    "$(dpkg-deb -f "$1" Version Architecture | tr '\n' ' ')"
	fi

	# the unit as installed: the package's paths
	u="$d/root$unit"
	doc=/usr/share/doc/vcpuplace/README.md
	if grep -q '^ExecStart=/usr/sbin/vcpuplaced ' "$u" 2>/dev/null &&
	    grep -q '^EnvironmentFile=-/etc/default/vcpuplaced$' "$u" &&
	    grep -q "^Documentation=.* file:$doc$" "$u"; then
		ok "unit: /usr/sbin/vcpuplaced, /etc/default/vcpuplaced, $doc"
	else
		ko "unit paths: $(grep -E \
		    '^(ExecStart|EnvironmentFile|Documentation)=' "$u" \
		    2>/dev/null | tr '\n' ' ')"
	fi

	# the daemon carries the BPF scheduler (debian/rules: SCX=yes), so
	# --sched-ext=auto can load it on a sched_ext kernel; the boot test
	# (make scx-test-deb) loads this very binary on Debian's 7.3.4
	v=$("$d/root/usr/sbin/vcpuplaced" --version 2>&1 || true)
	case $v in
	*"sched_ext scheduler: built in"*)
		ok "vcpuplaced carries the sched_ext scheduler ($(echo "$v" |
		    sed -n 's/^sched_ext scheduler: built in (\(.*\))$/\1/p'))" ;;
	*) ko "vcpuplaced without the sched_ext scheduler: $(echo "$v" |
		    tr '\n' ' ')" ;;
	esac

	# hardening from dpkg-buildflags (hardening=+all): PIE, full RELRO,
	# stack protector, fortified calls
	for b in usr/sbin/vcpuplaced usr/bin/vcpuplacectl; do
		f="$d/root/$b"
		if [ -f "$f" ] && readelf -h "$f" | grep -q 'Type:.*DYN' &&
		    readelf -lW "$f" | grep -q GNU_RELRO &&
		    readelf -dW "$f" | grep -q 'FLAGS.*BIND_NOW' &&
		    nm -D "$f" | grep -q '__stack_chk_fail' &&
		    nm -D "$f" | grep -q '__[a-z]*_chk@'; then
			ok "$b: PIE, RELRO, BIND_NOW, stack protector, fortify"
		else
			ko "$b: not hardened"
		fi
	done
	return "$nf"
}

echo "deb: $deb (checked on $release; unit $unit)"
fails=0
check_deb "$deb" || fails=$?

# gcc's warnings in the package build (no -Werror there, see debian/rules)
if grep -E '^[^ :]+\.[ch]:[0-9]+:[0-9]+: warning:' "$work/build.log" \
    >"$tmp/warnings"; then
	fails=$((fails + 1))
	echo "FAIL compiler warnings in the package build:"
	cat "$tmp/warnings"
else
	echo "PASS no compiler warning with $release's compiler and build flags"
fi
if grep -q 'Checks: [0-9]*, Failures: 0, Errors: 0' "$work/build.log"; then
	echo "PASS the unit tests ran in the package build (dh_auto_test)"
else
	case ${DEB_BUILD_OPTIONS:-} in
	*nocheck*) echo "PASS unit tests skipped (DEB_BUILD_OPTIONS=nocheck)" ;;
	*)
		fails=$((fails + 1))
		echo "FAIL no unit test result in the build log"
		;;
	esac
fi

# The checks must be able to fail: a copy without the sysusers entry,
# with its systemd-sysusers call dropped, a conffile mark lost and the
# daemon of the build without the scheduler (the same tree's
# build/vcpuplaced, which SCX=yes builds too) in place of the package's.
dpkg-deb -R "$deb" "$tmp/broken"
cp "$src/build/vcpuplaced" "$tmp/broken/usr/sbin/vcpuplaced"
rm "$tmp/broken/usr/lib/sysusers.d/vcpuplace.conf"
sed -i '/systemd-sysusers/d' "$tmp/broken/DEBIAN/postinst"
sed -i '1d' "$tmp/broken/DEBIAN/conffiles"
dpkg-deb --root-owner-group -b "$tmp/broken" "$tmp/broken.deb" >/dev/null
check_deb "$tmp/broken.deb" >"$tmp/broken.out" || true
for want in "FAIL file list" "FAIL lacks /usr/lib/sysusers.d/vcpuplace.conf" \
    "FAIL postinst: sysusers=none" "FAIL conffiles differ" \
    "FAIL vcpuplaced without the sched_ext scheduler"; do
	if grep -q "^$want" "$tmp/broken.out"; then
		echo "PASS a broken copy is caught: $want"
	else
		fails=$((fails + 1))
		echo "FAIL a broken copy went unnoticed: no '$want' in:"
		cat "$tmp/broken.out"
	fi
done
echo "deb: $([ "$fails" -eq 0 ] && echo passed || echo "$fails failed")"
[ "$fails" -eq 0 ]
