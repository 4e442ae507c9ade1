#!/bin/sh
# The manual pages as make built them (BUILD/man/), checked three ways:
#
# 1. lint: `mandoc -T lint -W warning` and groff's warnings (`man
#    --warnings -l`) say nothing about any page;
# 2. options: every long option in the binaries' real --help output is
#    in the page's OPTIONS, and every option there is in the --help (for
#    vcpuplacectl the COMMANDS too, against its usage lines); each
#    option the page lists is also tried on the binary, which must take
#    it, with an argument where the page gives one;
# 3. examples: tests/man/examples.py runs them (see there).
#
# Each check is also run on a broken copy (a page with a bad macro, a
# page missing an option, a --help with an option the page lacks, an
# option no binary takes), which it must catch: a check that cannot
# fail proves nothing.
#
#   check.sh BUILD POLICY_DIR_INSTALLED SYSCONFDIR
set -u
B=$1 POLDIR=$2 ETCDIR=$3
M=$B/man
D=$B/vcpuplaced C=$B/vcpuplacectl
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); echo "PASS $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }

# lint PAGE: what mandoc and groff say about it (nothing when clean)
lint() {
	mandoc -T lint -W warning "$1" 2>&1
	man --warnings -l "$1" 2>&1 >/dev/null
}

# page_opts PAGE.scd: the long options its OPTIONS section defines, one
# a line, sorted; a definition is a line starting "*-x*, *--name*" or
# "*--name*"
page_opts() {
	sed -n '/^# OPTIONS$/,/^# /p' "$1" |
		sed -n 's/^\*-[a-zA-Z]\*, \*--\([a-z][a-z-]*\)\*.*/\1/p;
		    s/^\*--\([a-z][a-z-]*\)\*.*/\1/p' | sort -u
}

# help_opts FILE: the long options a --help output names
help_opts() {
	grep -o -- '--[a-z][a-z-]*' "$1" | sed 's/^--//' | sort -u
}

# same_opts WHAT HELP_LIST PAGE_LIST: empty when the two agree, else
# what is missing where
same_opts() {
	comm -23 "$2" "$3" | sed "s/^/$1: in --help, not in the page: --/"
	comm -13 "$2" "$3" | sed "s/^/$1: in the page, not in --help: --/"
}

# takes BINARY PAGE.scd NAME: does BINARY take --NAME the way the page
# says (an argument if the page's definition line gives one after it)?
# An option with an argument, given none, must be refused for want of
# one (exit 2), not as unknown; a flag, followed by --help, must exit 0.
takes() {
	def=$(sed -n '/^# OPTIONS$/,/^# /p' "$2" |
		grep -E "^(\*-[a-zA-Z]\*, )?\*--$3\*" | head -1)
	arg=${def#*\*--$3\*}
	if [ -n "$arg" ]; then
		"$1" "--$3" >"$tmp/o" 2>&1 </dev/null
		rc=$?
		[ $rc = 2 ] && grep -qE "requires an argument|needs an argument" \
			"$tmp/o"
	else
		"$1" "--$3" --help >"$tmp/o" 2>&1 </dev/null
	fi
}

for p in vcpuplaced.8 vcpuplacectl.1 vcpuplace-policy.5; do
	if [ ! -s "$M/$p" ]; then
		ko "$M/$p: not built"
		continue
	fi
	out=$(lint "$M/$p")
	if [ -z "$out" ]; then ok "lint $p"; else ko "lint $p: $out"; fi
done
# a broken copy: an unknown macro, which both linters must report
sed 's/^\.SH OPTIONS$/.XZ bogus\n&/' "$M/vcpuplaced.8" >"$tmp/broken.8"
if ! grep -q '^\.XZ' "$tmp/broken.8"; then
	ko "the broken copy has no bad macro: the test is stale"
elif [ -n "$(mandoc -T lint -W warning "$tmp/broken.8" 2>&1)" ] &&
    [ -n "$(man --warnings -l "$tmp/broken.8" 2>&1 >/dev/null)" ]; then
	ok "a page with an unknown macro fails mandoc's and groff's lint"
else
	ko "a page with an unknown macro went through the lint"
fi

# The options, from the binaries' own --help.
"$D" --help >"$tmp/d.help" 2>&1 || ko "vcpuplaced --help: exit $?"
"$C" --help >"$tmp/c.help" 2>&1 || ko "vcpuplacectl --help: exit $?"
for b in d:vcpuplaced.8:"$D" c:vcpuplacectl.1:"$C"; do
	k=${b%%:*} rest=${b#*:}
	page=$M/${rest%%:*}.scd bin=${rest#*:}
	name=$(basename "$bin")
	help_opts "$tmp/$k.help" >"$tmp/$k.hopts"
	page_opts "$page" >"$tmp/$k.popts"
	if [ ! -s "$tmp/$k.hopts" ] || [ ! -s "$tmp/$k.popts" ]; then
		ko "$name: no options found in --help or in the page"
		continue
	fi
	out=$(same_opts "$name" "$tmp/$k.hopts" "$tmp/$k.popts")
	if [ -z "$out" ]; then
		ok "$name: the page's options are those of --help:$(sed \
		    's/^/ --/' "$tmp/$k.popts" | tr -d '\n')"
	else
		ko "$out"
	fi
	while read -r o; do
		if takes "$bin" "$page" "$o"; then
			ok "$name takes --$o as the page says"
		else
			ko "$name --$o: not as the page says: $(cat "$tmp/o")"
		fi
	done <"$tmp/$k.popts"
	sec=${rest%%:*}
	sec=${sec##*.}
	if [ "$(tail -1 "$tmp/$k.help")" = "See $name($sec)." ]; then
		ok "$name --help ends pointing at its page"
	else
		ko "$name --help: last line $(tail -1 "$tmp/$k.help")"
	fi
	# broken copies: a page without its first option, a --help with
	# one more; and an option no binary takes
	first=$(head -1 "$tmp/$k.popts")
	grep -v -E "^(\*-[a-zA-Z]\*, )?\*--$first\*" "$page" >"$tmp/nopt.scd"
	page_opts "$tmp/nopt.scd" >"$tmp/nopt"
	out=$(same_opts "$name" "$tmp/$k.hopts" "$tmp/nopt")
	case $out in
	*"not in the page: --$first"*)
		ok "a page without --$first is caught" ;;
	*) ko "a page without --$first went through: '$out'" ;;
	esac
	{ cat "$tmp/$k.help"; echo "  --frobnicate  a new option"; } \
		>"$tmp/more.help"
	help_opts "$tmp/more.help" >"$tmp/more"
	out=$(same_opts "$name" "$tmp/more" "$tmp/$k.popts")
	case $out in
	*"not in the page: --frobnicate"*)
		ok "an option --help has and the page lacks is caught" ;;
	*) ko "--frobnicate in --help only went through: '$out'" ;;
	esac
	printf '# OPTIONS\n\n*--frobnicate*\n\tno such.\n' >"$tmp/frob.scd"
	if takes "$bin" "$tmp/frob.scd" frobnicate; then
		ko "$name seems to take --frobnicate: the check cannot fail"
	else
		ok "$name refusing an option the page invents is caught"
	fi
done

# vcpuplacectl's commands: its usage lines against COMMANDS.
sed -n 's/^.*vcpuplacectl \([a-z]*\)\( get\| set\)\{0,1\} .*/\1\2/p;
    s/^.*vcpuplacectl \([a-z]*\)$/\1/p' "$tmp/c.help" | sort -u >"$tmp/hcmd"
sed -n '/^# COMMANDS$/,/^# /p' "$M/vcpuplacectl.1.scd" |
	sed -n 's/^\*\([a-z]*\( get\| set\)\{0,1\}\)\*.*/\1/p' |
	sort -u >"$tmp/pcmd"
out=$(comm -3 "$tmp/hcmd" "$tmp/pcmd")
if [ -s "$tmp/hcmd" ] && [ -z "$out" ]; then
	ok "vcpuplacectl: COMMANDS are the usage's: $(tr '\n' ',' \
	    <"$tmp/hcmd")"
else
	ko "vcpuplacectl commands, usage vs page: $out"
fi

echo "man pages: $pass passed, $fail failed"
python3 "$(dirname "$0")/examples.py" "$B" "$POLDIR" "$ETCDIR" \
	"$M/vcpuplaced.8.scd" "$M/vcpuplacectl.1.scd" \
	"$M/vcpuplace-policy.5.scd" || fail=$((fail + 1))
[ "$fail" -eq 0 ]
