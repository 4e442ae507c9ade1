# Sourced by the CLI test scripts: pass/fail counters, a scratch folder
# removed on exit, and the closing line CI reads ("NAME: N passed, N failed").
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# finish NAME: prints the closing line; the exit status says if all passed
finish() {
	echo "$1: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
