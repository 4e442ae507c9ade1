/*
 * fz_kernel_cmdline.c - isol_parse_cmdline(), isol_cpulist_check() and
 * isol_parse_release() (daemon/host/isolation.c): /proc/cmdline, the
 * isolated file and osrelease, as sched_ext's isolcpus= refusal reads
 * them.
 *
 * Properties: the input is not changed; domain or other only when the
 * text (its quotes dropped) holds "isolcpus=", and then the kept value is
 * in it and holds a CPU list; nohz_full
 * only when it holds "nohz_full="; a release is only accepted as two
 * numbers up to 1000.
 */
#include <stdbool.h>

#include "host/isolation.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size), *copy = strdup(text), *bare;
	struct isol_cmdline c;
	const char *list;
	size_t i, n = 0;
	int maj = -1, min = -1;
	bool cut;

	if (!copy || !(bare = malloc(strlen(text) + 1)))
		abort();
	for (i = 0; text[i]; i++)
		if (text[i] != '"')
			bare[n++] = text[i];
	bare[n] = '\0';
	isol_parse_cmdline(text, &c);
	FZ_CHECK(!strcmp(text, copy), "the input changed");
	if (c.domain || c.other) {
		FZ_CHECK(strstr(bare, "isolcpus="), "isolcpus without it");
		/* the value kept is in the text, and holds a CPU list, which
		 * has a number (or N) in it, unless cut at 127 bytes */
		cut = strlen(c.isolcpus) == sizeof(c.isolcpus) - 1;
		FZ_CHECK(cut || strstr(bare, c.isolcpus), "'%s' not in the "
		    "text", c.isolcpus);
		list = c.isolcpus + strcspn(c.isolcpus, "0123456789N");
		FZ_CHECK(cut || *list, "no CPU list in '%s'", c.isolcpus);
	} else {
		FZ_CHECK(!c.isolcpus[0], "a value without a verdict");
	}
	if (c.nohz_full[0])
		FZ_CHECK(strstr(bare, "nohz_full="), "nohz_full without it");
	(void)isol_cpulist_check(text);
	if (isol_parse_release(text, &maj, &min) == 0)
		FZ_CHECK(maj >= 0 && maj <= 1000 && min >= 0 && min <= 1000,
		    "release %d.%d", maj, min);
	else
		FZ_CHECK(maj == -1 && min == -1, "touched on failure");
	free(bare);
	free(copy);
	free(text);
	return 0;
}
