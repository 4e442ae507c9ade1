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
#                   must fail.
#
# Everything the build leaves is under $(B)/deb/: build.log (the whole
# dpkg-buildpackage output), lintian.txt, the .changes, .buildinfo and
# the -dbgsym package.  ~1.5 min on 2 CPUs (a full build and the unit
# tests).

.PHONY: deb check-deb

deb:
	sh pkg/deb.sh $(B)

check-deb: deb
	sh tests/deb/check.sh $(B)
