/*
 * cpulist.c - kernel-style CPU lists ("0-3,8") in OS numbers, to and
 * from sets of dense PU indices.  The one parser for every list that
 * comes from outside: the command line, scenarios, libvirt, sysfs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/vcpuplace.h"

/* Parses one number; CVE-2013-5651 was an unchecked one. */
static int
parse_num(const char **p, unsigned int *ret)
{
	unsigned long v;
	char *end;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(*p, &end, 10);
	if (errno == ERANGE || v >= VP_MAX_OS_INDEX)
		return -ERANGE;
	*p = end;
	*ret = (unsigned int)v;
	return 0;
}

int
cpulist_parse(const struct vp_topo *t, const char *text,
    struct vp_cpuset *ret)
{
	struct vp_cpuset s;
	const char *p = text;
	unsigned int lo, hi, os;
	int r, pu;

	cpuset_zero(&s);
	for (;;) {
		if ((r = parse_num(&p, &lo)) < 0)
			return r;
		hi = lo;
		if (*p == '-') {
			p++;
			if ((r = parse_num(&p, &hi)) < 0)
				return r;
			if (hi < lo)
				return -EINVAL;
		}
		for (os = lo; os <= hi; os++) {
			pu = topo_pu_of_os(t, os);
			if (pu == VP_PU_NONE)
				return -ENOENT;
			cpuset_set(&s, pu);
		}
		if (*p != ',')
			break;
		p++;
	}
	/* sysfs files end in a newline; nothing else may follow */
	if (*p == '\n')
		p++;
	if (*p != '\0')
		return -EINVAL;
	*ret = s;
	return 0;
}

/* Appends "a" or "a-b" (with a leading comma after the first). */
static int
put_range(char *buf, size_t len, size_t *off, unsigned int a, unsigned int b)
{
	int n;

	n = snprintf(buf + *off, len - *off, "%s%u", *off ? "," : "", a);
	if (n >= 0 && b != a && (size_t)n < len - *off)
		n += snprintf(buf + *off + n, len - *off - n, "-%u", b);
	if (n < 0 || (size_t)n >= len - *off)
		return -ENOSPC;
	*off += n;
	return 0;
}

int
cpulist_format(const struct vp_topo *t, const struct vp_cpuset *s,
    char *buf, size_t len)
{
	unsigned int os, start = 0;
	bool open = false;
	size_t off = 0;
	int pu;

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (os = 0; os <= t->os_limit; os++) {
		pu = os < t->os_limit ? t->os_to_pu[os] : VP_PU_NONE;
		if (pu != VP_PU_NONE && cpuset_test(s, pu)) {
			if (!open)
				start = os;
			open = true;
			continue;
		}
		if (open && put_range(buf, len, &off, start, os - 1) < 0)
			return -ENOSPC;
		open = false;
	}
	return (int)off;
}
