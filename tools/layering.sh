#!/bin/sh
# The layers of daemon/ as the linker sees them (CONTRIBUTING.md rules 1, 2, 8):
#
#   core/          pure C: no object references a symbol outside the core
#                  and the pure part of libc (no files, sockets, clocks,
#                  logging, libvirt, hwloc, json-c, libxml2), and no core
#                  source includes anything but core headers and libc;
#   host/          adapters: reference the core and libraries, never the
#                  service or the CLI, and never log (only log.o defines
#                  log_msg, and no other adapter calls it); the same for
#                  the BPF scheduler's loader (scx/scx_loader.o), when
#                  the build has it;
#   vcpuplaced/    the service: nothing in it needs main.o, which defines
#                  only main(), so the service links into the unit tests;
#   circles        none among the service's files: each object's calls
#                  into the others sort in one order (tsort), so a file
#                  is read knowing only those below it;
#   libvirt        only its adapter (host/virt.c, domain.c, domxml.c,
#                  policy_xml.c) references a libvirt symbol or includes a
#                  libvirt header: the service, the CLI, main.o and every
#                  other object name a domain by its UUID (host/virt.h).
#
#   layering.sh BUILD_DIR      (after `make`: its archives and main.o)
set -eu
b=$1
src=$(dirname "$0")/../daemon
fail=0

for f in "$b/libvpcore.a" "$b/libvphost.a" "$b/libvpservice.a" \
    "$b/daemon/vcpuplaced/main.o"; do
	[ -f "$f" ] || { echo "layering: $f not found (run make)" >&2; exit 2; }
done

defined() { nm -g --defined-only "$@" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u; }
undefined() { nm -g --undefined-only "$@" 2>/dev/null | awk '$1 == "U" {print $2}' | sort -u; }
# "  SYMBOL in OBJECT" for each object of $1 (archives and objects,
# blank-separated) that references $2
who() {
	# shellcheck disable=SC2086
	nm -A --undefined-only $1 2>/dev/null | awk -F: -v s="$2" \
	    '{n = split($NF, w, " ")} w[n] == s {print "  " s " in " $(NF - 1)}'
}
bad() {
	echo "layering: $1" >&2
	shift
	for s in "$@"; do who "$lib" "$s" >&2; done
	fail=1
}

# 1. the core: what it may call is memory, strings, numbers, formatting
# into a buffer; anything else (open, printf, clock_gettime, syslog,
# vir*, hwloc_*, json_*, xml*) fails
allowed='^(malloc|calloc|realloc|free|memcpy|memmove|memset|memcmp|strlen|strnlen|strcmp|strncmp|strchr|strrchr|strspn|strcspn|strtol|strtoul|strtoll|strtoull|__isoc23_strtol|__isoc23_strtoul|__errno_location|__ctype_b_loc|__ctype_tolower_loc|__ctype_toupper_loc|__assert_fail|__stack_chk_fail|qsort|qsort_r|bsearch|snprintf|vsnprintf|abs|labs|__popcountdi2|__udivti3|_GLOBAL_OFFSET_TABLE_)$'
lib=$b/libvpcore.a
core_defs=$(defined "$lib")
out=""
for s in $(undefined "$lib"); do
	echo "$core_defs" | grep -qx "$s" && continue
	echo "$s" | grep -Eq "$allowed" && continue
	out="$out $s"
done
# shellcheck disable=SC2086
[ -z "$out" ] || bad "the core references symbols outside itself and pure libc:" $out
inc=$(grep -Hn '^#include' "$src"/core/*.c "$src"/core/*.h | grep -Ev \
	'#include (<(errno|limits|stdbool|stddef|stdint|stdio|stdlib|string)\.h>|"core/[a-z_]+\.h")' || true)
if [ -n "$inc" ]; then
	echo "layering: a core file includes something outside the core and libc:" >&2
	echo "$inc" >&2
	fail=1
fi

# 2. the adapters: no symbol of the service, the CLI or main; no logging.
# The BPF scheduler's loader is one too, outside the archive: built only
# with the scheduler (daemon/scx/scx.mk), checked when the build has it.
lib=$b/libvphost.a
for o in "$b/scx/scx_loader.o" "$b/scx/scx_btf.o"; do
	[ -f "$o" ] && lib="$lib $o"
done
upper=$(defined "$b/libvpservice.a" "$b/daemon/vcpuplaced/main.o" \
	"$b"/daemon/vcpuplacectl/*.o)
out=""
# shellcheck disable=SC2086
for s in $(undefined $lib); do
	echo "$upper" | grep -qx "$s" && out="$out $s"
done
# shellcheck disable=SC2086
[ -z "$out" ] || bad "an adapter references the service or the CLI:" $out
logs=$(who "$lib" log_msg)
[ -z "$logs" ] || { echo "layering: adapters that log:" >&2; echo "$logs" >&2; fail=1; }
if grep -ln 'vcpuplaced/daemon\.h\|struct vp_daemon' "$src"/host/*.[ch] \
    "$src"/scx/*.[ch] >&2; then
	echo "layering: the adapters above take the daemon's struct" >&2
	fail=1
fi

# 3. the service does not need main.o
main_defs=$(defined "$b/daemon/vcpuplaced/main.o")
if [ "$main_defs" != "main" ]; then
	echo "layering: main.o exports more than main():" "$main_defs" >&2
	fail=1
fi

# 4. libvirt behind its adapter.  libvirt's symbols are vir + a capital
# (virDomainFree, virConnectOpen); the adapter's own are virt_*.
virt_ok=" virt.o domain.o domxml.o policy_xml.o "
out=$(nm -A --undefined-only "$b/libvpcore.a" "$b/libvphost.a" \
	"$b/libvpservice.a" "$b/daemon/vcpuplaced/main.o" \
	"$b"/daemon/vcpuplacectl/*.o 2>/dev/null | awk -F: -v ok="$virt_ok" '
	NF < 2 { next }
	{ n = split($NF, w, " "); s = w[n]; o = $(NF - 1) }
	s !~ /^vir[A-Z]/ { next }
	$1 ~ /libvphost\.a$/ && index(ok, " " o " ") { next }
	{ print "  " s " in " o }')
if [ -n "$out" ]; then
	echo "layering: objects outside the libvirt adapter reference libvirt:" >&2
	echo "$out" >&2
	fail=1
fi
# its types too, which nm cannot see: no libvirt header, and not the
# adapter's own side of it (host/virt_link.h), outside the adapter
inc=$(grep -Hn '^#include.*\(<libvirt/\|"host/virt_link\.h"\)' \
	"$src"/core/*.[ch] "$src"/host/*.[ch] "$src"/vcpuplaced/*.[ch] \
	"$src"/vcpuplacectl/*.[ch] | grep -Ev \
	'^[^:]*/host/(virt|virt_link|domain|domxml|policy_xml)\.[ch]:' || true)
if [ -n "$inc" ]; then
	echo "layering: a file outside the libvirt adapter includes libvirt:" >&2
	echo "$inc" >&2
	fail=1
fi

# 5. no circle among the service's objects: "caller callee" pairs, one
# for each symbol one object takes from another, must sort (tsort names
# the objects of a loop)
lib=$b/libvpservice.a
pairs=$(nm -A "$lib" 2>/dev/null | awk -F: '
	{ n = split($NF, w, " "); o = $(NF - 1); s = w[n] }
	n == 3 && w[2] ~ /^[TDBR]$/ { def[s] = o }
	n == 2 && w[1] == "U" { use[o, s] = 1 }
	END {
		for (k in use) {
			split(k, p, SUBSEP)
			if ((p[2] in def) && def[p[2]] != p[1])
				print p[1], def[p[2]]
		}
	}' | sort -u)
if ! loop=$(printf '%s\n' "$pairs" | tsort 2>&1 >/dev/null) || [ -n "$loop" ]; then
	echo "layering: the service's files call each other in a circle:" >&2
	echo "$loop" | grep -v '^tsort: -: input contains a loop:$' |
	    sed 's/^tsort: /  /' >&2
	fail=1
fi

if [ "$fail" != 0 ]; then
	echo "layering: FAIL" >&2
	exit 1
fi
echo "layering: core pure ($(defined "$b/libvpcore.a" | grep -c .) symbols)," \
    "adapters apart, main.o imported by nothing, no circle among the" \
    "service's $(echo "$pairs" | wc -l) file-to-file links, libvirt" \
    "behind its adapter: PASS"
