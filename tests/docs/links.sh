#!/bin/sh
# make check-docs: the README is a front door of fewer than $MAX lines, and
# every relative link in it and in doc/*.md names a file or folder of this
# checkout.  A moved or deleted document then fails here, not in a reader's
# browser.  Usage: tests/docs/links.sh [ROOT]  (default: the checkout)
set -eu
root=${1:-$(dirname "$0")/../..}
MAX=150
fail=0

lines=$(wc -l <"$root/README.md")
if [ "$lines" -ge "$MAX" ]; then
	echo "docs: README.md has $lines lines, at most $((MAX - 1)) allowed:" \
	    "move the detail to doc/ and link it"
	fail=1
fi

# Markdown links [text](target): skip URLs and in-page anchors, drop a
# #fragment, resolve against the linking file's folder.
for f in "$root/README.md" "$root"/doc/*.md; do
	dir=$(dirname "$f")
	grep -o '\]([^)]*)' "$f" | sed 's/^](//; s/)$//' |
	while IFS= read -r t; do
		case $t in
		*://*|mailto:*|'#'*) continue ;;
		esac
		p=${t%%#*}
		if [ ! -e "$dir/$p" ]; then
			echo "docs: ${f#"$root"/} links to $t, which does not exist"
			echo x
		fi
	done
done >"${TMPDIR:-/tmp}/vp-doc-links.$$"
if grep -q '^docs:' "${TMPDIR:-/tmp}/vp-doc-links.$$"; then
	grep '^docs:' "${TMPDIR:-/tmp}/vp-doc-links.$$"
	fail=1
fi
n=$(cat "$root/README.md" "$root"/doc/*.md | grep -o '\]([^)]*)' | wc -l)
rm -f "${TMPDIR:-/tmp}/vp-doc-links.$$"
[ $fail -eq 0 ] || exit 1
echo "docs: README.md $lines lines (< $MAX), $n links in README.md and doc/*.md, all resolve"
