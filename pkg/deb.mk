# pkg/deb.mk: the Debian package, included by the top-level Makefile.
# Paths are relative to the root; the packaging itself is in debian/.
#
#   make deb        $(B)/vcpuplace_<version>_<arch>.deb, built by
#                   dpkg-buildpackage -b from a clean copy of the tree
#                   (what git tracks or would add, as it is in the working
#                   tree) in $(B)/deb/src, then lintian on the .changes:
#                   any error or warning fails.  Installs the build tools
#                   and the Build-Depends first (pkg/deb.sh).
#   make check-deb  make deb, then tests/deb/check.sh: the package's files
#                   against what `make install` writes, conffiles,
#                   maintainer scripts, hardening, and a broken copy that
#                   must fail (the rule is in tests/check.mk, with every
#                   check).
#   make deb-trixie, check-deb-trixie
#                   the same for Debian 13: built, linted and checked
#                   inside a cached debootstrap root of trixie with its
#                   own gcc 14, debhelper 13.24 and lintian 2.122
#                   (pkg/build-root.sh, entered read-only by
#                   pkg/in-root.sh), into $(B)/trixie/ and $(B)/deb-trixie/.
#
# Everything the build leaves is under $(B)/deb/ (or deb-trixie/):
# build.log (the whole dpkg-buildpackage output), lintian.txt, the
# .changes, .buildinfo and the -dbgsym package.  ~1.5 min on 2 CPUs (a
# full build and the unit tests); deb-trixie about 40 s with its root
# cached, and 1 to 3 minutes more to build the root the first time,
# depending on the mirror.

.PHONY: deb deb-trixie

deb:
	sh pkg/deb.sh $(B)

deb-trixie:
	sh pkg/deb.sh $(B) trixie
