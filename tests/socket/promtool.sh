#!/bin/sh
# Prints the path of a promtool, the Prometheus project's own parser of
# the text exposition format.  Debian ships it in the "prometheus"
# package; installing that would also install (and on systemd hosts
# start) a Prometheus server, so we unpack the package's promtool into
# build/tools instead.  A promtool already on PATH wins.
set -eu
if command -v promtool >/dev/null 2>&1; then
	command -v promtool
	exit 0
fi
dir=${1:-build/tools}
if [ ! -x "$dir/usr/bin/promtool" ]; then
	mkdir -p "$dir"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download -qq prometheus >/dev/null 2>&1) || {
		sh "$(dirname "$0")/../../tools/deps/install.sh" --update >/dev/null
		(cd "$tmp" && apt-get download -qq prometheus >/dev/null)
	}
	dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/x"
	mkdir -p "$dir/usr/bin"
	cp "$tmp/x/usr/bin/promtool" "$dir/usr/bin/promtool"
fi
echo "$dir/usr/bin/promtool"
