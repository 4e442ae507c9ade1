/*
 * isolation.c - see isolation.h.  Three small files, each opened, read
 * and closed once per call (start-up); never an fd kept.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/isolation.h"
#include "host/smallfile.h"

/* The kernel's COMMAND_LINE_SIZE is 2048 on x86, 4096 on some others. */
#define CMDLINE_MAX_BYTES	8192

/* @buf without leading and trailing white space, in place. */
static char *
trim(char *buf)
{
	size_t n;

	while (isspace((unsigned char)*buf))
		buf++;
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return buf;
}

int
isol_cpulist_check(const char *s)
{
	bool digit = false;

	/* lib/bitmap-str.c: numbers, ranges a-b, groups a-b:used/size, N */
	for (; *s; s++) {
		if (isdigit((unsigned char)*s) || *s == 'N')
			digit = true;
		else if (*s != ',' && *s != '-' && *s != ':' && *s != '/')
			return -EINVAL;
	}
	return digit ? 0 : -EINVAL;
}

/*
 * isolcpus=@val as kernel/sched/isolation.c takes it: leading flags
 * ("nohz,", "domain,", "managed_irq,", unknown words skipped, anything
 * else makes the whole parameter ignored), then the CPU list; no known
 * flag at all means domain.
 */
static void
take_isolcpus(const char *val, struct isol_cmdline *c)
{
	const char *v = val;
	bool domain = false, flags = false;
	size_t len;

	while (isalpha((unsigned char)*v)) {
		if (!strncmp(v, "nohz,", 5)) {
			flags = true;
			v += 5;
			continue;
		}
		if (!strncmp(v, "domain,", 7)) {
			flags = domain = true;
			v += 7;
			continue;
		}
		if (!strncmp(v, "managed_irq,", 12)) {
			flags = true;
			v += 12;
			continue;
		}
		/* an unknown word is skipped and sets no flag */
		len = strcspn(v, ",");
		for (size_t i = 0; i < len; i++)
			if (!isalpha((unsigned char)v[i]) && v[i] != '_')
				return;		/* "Invalid flag": ignored */
		if (!v[len])
			return;			/* flags and no CPU list */
		v += len + 1;
	}
	if (!flags)
		domain = true;
	if (isol_cpulist_check(v) < 0)
		return;				/* "incorrect CPU range" */
	if (domain)
		c->domain = true;
	else
		c->other = true;
	snprintf(c->isolcpus, sizeof(c->isolcpus), "%s", val);
}

void
isol_parse_cmdline(const char *cmdline, struct isol_cmdline *ret)
{
	struct isol_cmdline c;
	char *buf, *p, *arg, *val;
	bool quoted;

	memset(&c, 0, sizeof(c));
	if (!(buf = strdup(cmdline))) {
		*ret = c;
		return;
	}
	p = buf;
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		/* one parameter: quotes (around it or its value) hide spaces */
		arg = p;
		quoted = false;
		for (; *p && (quoted || !isspace((unsigned char)*p)); p++)
			if (*p == '"')
				quoted = !quoted;
		if (*p)
			*p++ = '\0';
		/* the quotes themselves go */
		for (val = arg; *val; val++)
			if (*val == '"')
				memmove(val, val + 1, strlen(val));
		if (!strcmp(arg, "--"))
			break;		/* the rest is init's */
		if (!strncmp(arg, "isolcpus=", 9))
			take_isolcpus(arg + 9, &c);
		else if (!strncmp(arg, "nohz_full=", 10))
			snprintf(c.nohz_full, sizeof(c.nohz_full), "%s",
			    arg + 10);
	}
	free(buf);
	*ret = c;
}

int
isol_parse_release(const char *s, int *ret_major, int *ret_minor)
{
	char *end;
	long maj, min;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	maj = strtol(s, &end, 10);
	if (errno || *end != '.' || !isdigit((unsigned char)end[1]))
		return -EINVAL;
	min = strtol(end + 1, &end, 10);
	if (errno || maj > 1000 || min > 1000)
		return -EINVAL;
	*ret_major = (int)maj;
	*ret_minor = (int)min;
	return 0;
}

/* <@root>/@rel into @buf: bytes or -errno. */
static ssize_t
read_under(const char *root, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	return read_small_file(path, buf, len);
}

int
isol_read(const char *root, struct isol_info *ret)
{
	struct isol_info in;
	char *buf, *t;
	ssize_t n;

	if (!root || !*root)
		root = "";
	if (strlen(root) + sizeof(ISOL_ISOLATED) + 2 > PATH_MAX)
		return -ENAMETOOLONG;
	if (!(buf = malloc(CMDLINE_MAX_BYTES)))
		return -ENOMEM;
	memset(&in, 0, sizeof(in));

	n = read_under(root, ISOL_CMDLINE, buf, CMDLINE_MAX_BYTES);
	if (n < 0)
		in.cmdline_err = (int)n;
	else
		isol_parse_cmdline(buf, &in.cmd);

	n = read_under(root, ISOL_ISOLATED, buf, CMDLINE_MAX_BYTES);
	if (n < 0) {
		in.isolated_err = (int)n;
	} else {
		t = trim(buf);
		if (*t && (isol_cpulist_check(t) < 0 ||
		    strlen(t) >= sizeof(in.isolated)))
			in.isolated_err = -EINVAL;
		else
			snprintf(in.isolated, sizeof(in.isolated), "%s", t);
	}

	n = read_under(root, ISOL_RELEASE, buf, CMDLINE_MAX_BYTES);
	if (n < 0)
		in.release_err = (int)n;
	else if (isol_parse_release(trim(buf), &in.major, &in.minor) < 0)
		in.release_err = -EINVAL;

	free(buf);
	*ret = in;
	return 0;
}

enum isol_verdict
isol_judge(const struct isol_info *in)
{
	bool before7 = !in->release_err && in->major < 7;
	bool isolated = !in->isolated_err && in->isolated[0];
	bool boot = !in->cmdline_err && in->cmd.domain;

	/* before 7.0 the isolated file is the kernel's own test, exactly */
	if (before7 && !in->isolated_err)
		return !isolated ? ISOL_NONE : boot ? ISOL_BOOT : ISOL_DOMAIN;
	/* 7.0 with 6ae315d37924 tests the boot flag alone */
	if (boot)
		return ISOL_BOOT;
	if (isolated)
		return ISOL_PARTITION;
	if (in->cmdline_err && in->isolated_err)
		return ISOL_UNKNOWN;
	return ISOL_NONE;
}

const char *
isol_verdict_name(enum isol_verdict v)
{
	static const char *const names[ISOL_VERDICT_COUNT] = {
		[ISOL_NONE] = "none", [ISOL_BOOT] = "isolcpus-domain",
		[ISOL_DOMAIN] = "isolated", [ISOL_PARTITION] = "partition",
		[ISOL_UNKNOWN] = "unknown",
	};

	return (unsigned int)v < ISOL_VERDICT_COUNT ? names[v] : "?";
}
