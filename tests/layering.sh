#!/bin/sh
# The placement core does no I/O (STYLE.md rule 2).  Fails if any object of
# the core archive references a symbol outside libc's pure part: files,
# sockets, clocks, logging, libvirt, hwloc, json-c, libxml2, or a function
# of another layer (host, service, CLI).  The core's own symbols resolve
# inside the archive; whatever is left undefined must be on the list below.
#
#   layering.sh build/libvpcore.a
set -eu
lib=$1

# What the core may call: memory, strings, numbers, formatting into a
# buffer.  Anything else (open, read, printf, fprintf, clock_gettime,
# syslog, vir*, hwloc_*, json_*, xml*) fails.
allowed='^(malloc|calloc|realloc|free|memcpy|memmove|memset|memcmp|strlen|strnlen|strcmp|strncmp|strchr|strrchr|strspn|strcspn|strtol|strtoul|strtoll|strtoull|__errno_location|__ctype_b_loc|__ctype_tolower_loc|__ctype_toupper_loc|__assert_fail|__stack_chk_fail|qsort|qsort_r|bsearch|snprintf|vsnprintf|abs|labs|__builtin_.*|__popcountdi2|__udivti3|_GLOBAL_OFFSET_TABLE_|__tls_get_addr|__isoc23_strtol|__isoc23_strtoul)$'

[ -f "$lib" ] || { echo "layering: $lib not found" >&2; exit 2; }
defined=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 {print $3}' |
	sort -u)
undefined=$(nm -g --undefined-only "$lib" 2>/dev/null | awk '$1 == "U" {print $2}' |
	sort -u)
bad=""
for s in $undefined; do
	echo "$defined" | grep -qx "$s" && continue
	echo "$s" | grep -Eq "$allowed" && continue
	bad="$bad $s"
done
if [ -n "$bad" ]; then
	echo "layering: the core references symbols outside itself and pure libc:" >&2
	for s in $bad; do
		nm -A --undefined-only "$lib" 2>/dev/null | awk -F: -v s="$s" \
		    '{n = split($NF, w, " ")} w[n] == s {print "  " s " in " $2}' >&2
	done
	echo "layering: FAIL" >&2
	exit 1
fi
n=$(nm -A --defined-only "$lib" 2>/dev/null | awk -F: '{print $2}' | sort -u |
	grep -c .)
echo "layering: $n core objects reference only the core and pure libc: PASS"

# And the sources say so: a core file includes only core headers and libc.
src=$(dirname "$0")/../daemon/core
bad=$(grep -Hn '^#include' "$src"/*.c "$src"/*.h | grep -Ev \
	'#include (<(errno|limits|stdbool|stddef|stdint|stdio|stdlib|string)\.h>|"core/[a-z_]+\.h")' || true)
if [ -n "$bad" ]; then
	echo "layering: a core file includes something outside the core and libc:" >&2
	echo "$bad" >&2
	echo "layering: FAIL" >&2
	exit 1
fi
echo "layering: core sources include only the core and libc: PASS"
