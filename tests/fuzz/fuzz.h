/*
 * fuzz.h - what every libFuzzer target of tests/fuzz/ shares: the entry
 * points' prototypes, a NUL-ended copy of the input, and FZ_CHECK(), which
 * turns a broken property into a crash libFuzzer reports and saves.
 *
 * A target checks what the parser promises, not only that it returned:
 * a rejection names its cause, an acceptance lies inside the documented
 * ranges, and where a formatter exists, the result survives a round trip.
 */
#ifndef VP_FUZZ_H
#define VP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional (libFuzzer's is weak): only targets with set-up define it. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FZ_CHECK(cond, ...) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz property broken: %s: ", #cond);	\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		abort();						\
	}								\
} while (0)

/* @data as a C string (cut at its first NUL, as a C reader sees it). */
static inline char *
fz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* $@env, else @def: where the targets find policies/ and topologies. */
static inline const char *
fz_dir(const char *env, const char *def)
{
	const char *v = getenv(env);

	return v && *v ? v : def;
}

#endif /* VP_FUZZ_H */
