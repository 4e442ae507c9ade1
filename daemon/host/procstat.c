/* procstat.c - see procstat.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/procstat.h"
#include "host/smallfile.h"

const char *
procstat_field(const char *buf, int field)
{
	const char *p = strrchr(buf, ')');
	int n;

	if (!p || field < 3)
		return NULL;
	/* ") S 1 ...": field 3 starts after the ')' and one space */
	for (n = 2; *p && n < field; p++)
		if (*p == ' ')
			n++;
	return n == field && *p ? p : NULL;
}

int
procstat_parse_u64(const char *buf, int field, uint64_t *ret)
{
	const char *p = procstat_field(buf, field);
	unsigned long long v;
	char *end;

	if (!p || *p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
		return -EINVAL;
	*ret = v;
	return 0;
}

int
procstat_read_u64(int pid, int tid, int field, uint64_t *ret)
{
	char path[96], buf[1024];
	ssize_t r;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	if ((r = read_small_file(path, buf, sizeof(buf))) < 0)
		return r == -ENOENT ? -ESRCH : (int)r;
	return procstat_parse_u64(buf, field, ret);
}
