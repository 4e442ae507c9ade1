/*
 * fz_task_stat.c - sampler_parse_last_cpu() (daemon/host/sampler.c),
 * field 39 (processor) of /proc/PID/task/TID/stat, whose field 2, comm,
 * is written by whoever names the thread and may hold spaces and ')'.
 *
 * Properties: the result is -1 (not found) or a CPU number >= 0, and a
 * number is what the text says after the last ')' and 36 more fields:
 * never a wrapped or negative value.
 */
#include <limits.h>

#include "host/sampler.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size), *p;
	long long want;
	int cpu, field;

	cpu = sampler_parse_last_cpu(text);
	FZ_CHECK(cpu >= -1, "cpu %d", cpu);
	if (cpu >= 0) {
		p = strrchr(text, ')');
		FZ_CHECK(p, "a CPU without a ')'");
		for (field = 2; *p && field < 39; p++)
			if (*p == ' ')
				field++;
		FZ_CHECK(*p >= '0' && *p <= '9', "field 39 is '%.12s'", p);
		want = strtoll(p, NULL, 10);
		FZ_CHECK(want == cpu, "cpu %d, the text says %lld", cpu, want);
	}
	free(text);
	return 0;
}
