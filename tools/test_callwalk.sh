#!/bin/sh
# tools/callwalk.py on a tiny tree whose walk is known by hand (make
# check-layering runs it).  Walked from tick:
#
#   tick      vcpuplaced   calls show, then step; cb only through a pointer
#   show      vcpuplaced
#   step      host         calls calc, then virDomainPinVcpuFlags
#   calc      core         calls hook: the one climb (core -> host),
#                          then its own static note
#   hook      host         the one zig-zag (calc, core, then hook, host);
#                          calls host's static note
#   virDomainPinVcpuFlags  lib, declared only: the one libvirt stop
#
# 8 stops (the two notes apart, cb not one: pointers are not followed), 1
# libvirt stop, 1 climb, 1 zig-zag, and the path tick -> step ->
# virDomainPinVcpuFlags.
#
#   test_callwalk.sh [CC]       (gcc by default: -fcallgraph-info is GCC's)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cc=${1:-gcc}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/core" "$t/host" "$t/vcpuplaced"
cat > "$t/vcpuplaced/main.c" <<'EOF'
void step(void);
static void show(void) {}
static void cb(void) {}
void tick(void);
void tick(void)
{
	void (*volatile fp)(void) = cb;

	show();
	step();
	fp();
}
EOF
cat > "$t/host/h.c" <<'EOF'
int calc(void);
void hook(void);
void step(void);
int virDomainPinVcpuFlags(void *dom, unsigned int vcpu, unsigned char *map,
    int maplen, unsigned int flags);
static void note(void) {}
void hook(void) { note(); }
void step(void)
{
	calc();
	virDomainPinVcpuFlags(0, 0, 0, 0, 0);
}
EOF
cat > "$t/core/c.c" <<'EOF'
void hook(void);
int calc(void);
static void note(void) {}
int calc(void)
{
	hook();
	note();
	return 0;
}
EOF
for f in vcpuplaced/main core/c host/h; do
	(cd "$t" && "$cc" -O0 -fcallgraph-info -c -o "$f.o" "$f.c")
done
python3 "$here/callwalk.py" "$t" -r tick -v \
    --path tick virDomainPinVcpuFlags > "$t/out"

fail=0
want() {
	grep -qx "$1" "$t/out" || { echo "callwalk: wanted the line '$1'" >&2; fail=1; }
}
want '  stops          8  (vcpuplaced 2, host 3, core 2, lib 1)'
want '  libvirt stops  1'
want '  climbs         1'
want '    calc \[core\] -> hook \[host\]  at core/c.c:6:2'
want '  zig-zags       1'
want '    zig-zag calc \[core\] -> hook \[host\]'
want '  indirect calls 1 (not followed)'
want 'tick                  8        1       1         1'
want '     tick \[vcpuplaced\]  vcpuplaced/main.c:5'
want '  -> step \[host\]  host/h.c:8'
want '  -> virDomainPinVcpuFlags \[lib\]  (outside)'
# the walk's order, and neither cb nor the host's note among the stops
walk=$(sed -n '/^  walk:/,/zig-zag/p' "$t/out" | awk 'NF == 2 {print $2}' |
    tr '\n' ' ')
[ "$walk" = "tick show step calc hook note note virDomainPinVcpuFlags " ] ||
	{ echo "callwalk: walk order '$walk'" >&2; fail=1; }
if [ "$fail" != 0 ]; then
	cat "$t/out" >&2
	echo "callwalk: FAIL" >&2
	exit 1
fi
echo "callwalk: 8 stops, 1 libvirt stop, 1 climb, 1 zig-zag on a known tree: PASS"
