/*
 * schedfeat.c - SIS_CORE in /sys/kernel/debug/sched/features: one
 * open, read and close per call (start-up and reload), never an fd kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/schedfeat.h"
#include "host/smallfile.h"

/* sched/features is one line of ~30 names (~700 bytes on 6.12). */
#define FEATURES_MAX_BYTES	8192

enum vp_sis_core
schedfeat_parse(char *buf)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(buf, " \t\n", &save); tok;
	    tok = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(tok, "SIS_CORE"))
			return VP_SIS_CORE_ON;
		if (!strcmp(tok, "NO_SIS_CORE"))
			return VP_SIS_CORE_OFF;
	}
	return VP_SIS_CORE_ABSENT;
}

int
schedfeat_read(const char *root, enum vp_sis_core *ret_state)
{
	char path[PATH_MAX], buf[FEATURES_MAX_BYTES];
	ssize_t n;

	if ((size_t)snprintf(path, sizeof(path), "%s/sched/features",
	    root ? root : SCHEDFEAT_ROOT) >= sizeof(path))
		return -ENAMETOOLONG;
	n = read_small_file(path, buf, sizeof(buf));
	/* no debugfs mounted, or a kernel without sched/ in it */
	if (n == -ENOENT || n == -ENOTDIR) {
		*ret_state = VP_SIS_CORE_ABSENT;
		return 0;
	}
	if (n < 0)
		return (int)n;
	*ret_state = schedfeat_parse(buf);
	return 0;
}

const char *
schedfeat_sis_core_name(enum vp_sis_core s)
{
	switch (s) {
	case VP_SIS_CORE_UNKNOWN:
		return "unknown";
	case VP_SIS_CORE_OFF:
		return "off";
	case VP_SIS_CORE_ON:
		return "on";
	case VP_SIS_CORE_ABSENT:
		break;
	}
	return "absent";
}
