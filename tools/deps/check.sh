#!/bin/sh
# make check-deps: the guard's readers on small texts (test_programs.py),
# the programs the build and the tests run against the packages
# tools/deps/packages.list installs (programs.py), then the same
# guard with tmux's package dropped from the lists, which must fail and
# name tmux: the demo runs it, and only this list brings it.
set -eu
here=$(dirname "$0")
python3 "$here/test_programs.py"
python3 "$here/programs.py"
out=$(python3 "$here/programs.py" --drop tmux) && rc=0 || rc=$?
if [ "$rc" = 1 ] && printf '%s\n' "$out" |
    grep -q '^deps: tmux (run at .*) comes from package tmux, which no deps list installs'; then
	echo "deps: the guard fails without tmux in the lists, naming it: PASS"
else
	printf '%s\n' "$out"
	echo "deps: with tmux dropped the guard exited $rc without naming tmux: FAIL"
	exit 1
fi
