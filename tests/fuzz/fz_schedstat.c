/*
 * fz_schedstat.c - sampler_parse_schedstat() (daemon/host/sampler.c),
 * /proc/PID/task/TID/schedstat: "run_ns wait_ns slices\n".
 *
 * Properties: a rejection is -EINVAL and leaves *ret as it was; an
 * accepted text starts with two numbers.
 */
#include <errno.h>

#include "host/sampler.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vp_thread_sample t = { 7, 7, 7 };
	char *text = fz_cstr(data, size);
	int r;

	r = sampler_parse_schedstat(text, &t);
	if (r < 0) {
		FZ_CHECK(r == -EINVAL, "returned %d", r);
		FZ_CHECK(t.run_ns == 7 && t.wait_ns == 7 && t.os_cpu == 7,
		    "*ret changed on failure");
	} else {
		FZ_CHECK(r == 0, "returned %d", r);
		FZ_CHECK(t.os_cpu == 7, "os_cpu is not the parser's");
	}
	free(text);
	return 0;
}
