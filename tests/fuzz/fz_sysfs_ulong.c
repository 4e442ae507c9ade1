/*
 * fz_sysfs_ulong.c - hwtopo_parse_sysfs_ulong() (daemon/host/hwtopo.c):
 * cpufreq's cpuinfo_max_freq and CPPC's highest_perf, which set the PUs'
 * priorities on the live host.
 *
 * Properties: a non-zero result is the unsigned number the text starts
 * with, in range: a negative text ("-1") or an overflow is no number,
 * not ULONG_MAX, which would make that PU the best of the host.
 */
#include <errno.h>

#include "host/hwtopo.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size), *p = text;
	unsigned long v;

	v = hwtopo_parse_sysfs_ulong(text);
	if (v) {
		p += strspn(p, " \t\n\v\f\r");
		FZ_CHECK(*p >= '0' && *p <= '9', "%lu from '%.20s'", v, text);
		errno = 0;
		FZ_CHECK(strtoul(p, NULL, 10) == v && !errno,
		    "%lu from '%.20s'", v, text);
	}
	free(text);
	return 0;
}
