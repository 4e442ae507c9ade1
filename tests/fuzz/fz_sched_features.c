/*
 * fz_sched_features.c - schedfeat_parse() (daemon/host/schedfeat.c):
 * /sys/kernel/debug/sched/features, a line of names, "NO_" for off.
 *
 * Properties: ON only when the text holds the word SIS_CORE, OFF only
 * when it holds NO_SIS_CORE, else ABSENT; never UNKNOWN (that is for an
 * unreadable file, not for its text).
 */
#include "host/schedfeat.h"
#include "fuzz.h"

/* @word appears in @s between blanks (or the ends). */
static bool
has_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(s, word); p; p = strstr(p + 1, word))
		if ((p == s || strchr(" \t\n", p[-1])) &&
		    (p[n] == '\0' || strchr(" \t\n", p[n])))
			return true;
	return false;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size), *copy = strdup(text);
	enum vp_sis_core s;

	if (!copy)
		abort();
	s = schedfeat_parse(copy);
	FZ_CHECK(s == VP_SIS_CORE_ABSENT || s == VP_SIS_CORE_ON ||
	    s == VP_SIS_CORE_OFF, "state %d", (int)s);
	if (s == VP_SIS_CORE_ON)
		FZ_CHECK(has_word(text, "SIS_CORE"), "ON without SIS_CORE");
	if (s == VP_SIS_CORE_OFF)
		FZ_CHECK(has_word(text, "NO_SIS_CORE"), "OFF without it");
	if (s == VP_SIS_CORE_ABSENT)
		FZ_CHECK(!has_word(text, "SIS_CORE") &&
		    !has_word(text, "NO_SIS_CORE"), "ABSENT, yet named");
	free(copy);
	free(text);
	return 0;
}
