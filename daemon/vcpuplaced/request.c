/*
 * request.c - a control-socket request line, parsed once into a
 * fixed-size struct vp_request with no side effect (command.c runs it),
 * and what each command is: its name, its arguments, whether it needs
 * root and whether it waits on libvirt.  The metrics and the server name
 * commands by this table.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vcpuplaced/daemon.h"

#define MAX_WORDS	(3 + VP_CMD_OVERRIDES_MAX)

static const struct {
	const char *name;
	int min_args, max_args;		/* words after the command */
	bool root;			/* changes placement */
	bool deferred;			/* blocks on libvirt: run in the tick */
	const char *usage;
} cmds[VP_CMD_COUNT] = {
	[VP_CMD_STATUS] = { "status", 0, 0, false, false, "status" },
	[VP_CMD_METRICS] = { "metrics", 0, 0, false, false, "metrics" },
	[VP_CMD_EXPLAIN] = { "explain", 2, MAX_WORDS, false, false,
	    "explain VM VCPU" },
	[VP_CMD_RELOAD] = { "reload", 0, 0, true, false, "reload" },
	[VP_CMD_POLICY] = { "policy", 2, 2 + VP_CMD_OVERRIDES_MAX, true, true,
	    "policy VM PROFILE [FIELD=VALUE ...]" },
	[VP_CMD_PAUSE] = { "pause", 0, 0, true, false, "pause" },
	[VP_CMD_RESUME] = { "resume", 0, 0, true, false, "resume" },
	[VP_CMD_HELP] = { "help", 0, MAX_WORDS, false, false, "help" },
};

const char *
request_name(enum vp_cmd cmd)
{
	return cmd >= 0 && cmd < VP_CMD_COUNT ? cmds[cmd].name : "?";
}

bool
request_needs_root(enum vp_cmd cmd)
{
	return cmds[cmd].root;
}

bool
request_deferred(enum vp_cmd cmd)
{
	return cmds[cmd].deferred;
}

static int
fail(char *err, size_t errlen, int why, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
fail(char *err, size_t errlen, int why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return why;
}

/*
 * How many bytes of @s to quote in a message, at most @max, never ending
 * inside a UTF-8 sequence: "%.64s" cut a name's 2-byte "é" after its
 * first byte, and the answer (and any log line quoting it) was no longer
 * UTF-8, which json and journalctl refuse or show as a blob.  A byte
 * that is no part of a sequence counts as one character.
 */
static int
utf8_cut(const char *s, int max)
{
	int n = (int)strnlen(s, (size_t)max), start = n;

	if (n < max || n == 0)
		return n;
	/* the last sequence's lead byte: back over continuation bytes */
	while (start > 0 && n - start < 4 &&
	    ((unsigned char)s[start - 1] & 0xc0) == 0x80)
		start--;
	if (start > 0) {
		unsigned char lead = (unsigned char)s[start - 1];
		int len = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 :
		    lead >= 0xc0 ? 2 : 1;

		if (n - (start - 1) < len)	/* the sequence goes on */
			return start - 1;
	}
	return n;
}

/* Splits @line on blanks into at most MAX_WORDS words of @buf. */
static int
split(char *buf, char **word)
{
	char *save = NULL, *w;
	int n = 0;

	for (w = strtok_r(buf, " \t", &save); w;
	    w = strtok_r(NULL, " \t", &save)) {
		if (n == MAX_WORDS)
			return -E2BIG;
		word[n++] = w;
	}
	return n;
}

/*
 * explain VM VCPU: a VM name may hold blanks (libvirt allows them), so
 * the name is everything between the command and the last word.
 */
static int
parse_explain(const char *line, char **word, int n, struct vp_request *q,
    char *err, size_t errlen)
{
	const char *last = word[n - 1], *start, *end;
	char *stop;
	long vcpu;

	errno = 0;
	vcpu = strtol(last, &stop, 10);
	if (errno || *stop || vcpu < 0 || vcpu >= VP_MAX_PUS)
		return fail(err, errlen, VP_REJ_ARGS, "explain: vCPU '%.*s' "
		    "is not a number", utf8_cut(last, 32), last);
	start = line + strspn(line, " \t") + strlen(word[0]);
	start += strspn(start, " \t");
	end = strstr(start, last);
	while (end && strstr(end + 1, last))	/* its last occurrence */
		end = strstr(end + 1, last);
	while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (!end || end == start || (size_t)(end - start) >= sizeof(q->vm))
		return fail(err, errlen, VP_REJ_ARGS, "usage: %s",
		    cmds[VP_CMD_EXPLAIN].usage);
	snprintf(q->vm, sizeof(q->vm), "%.*s", (int)(end - start), start);
	q->vcpu = (int)vcpu;
	return 0;
}

/* policy VM PROFILE [FIELD=VALUE ...]: checked against the profiles later. */
static int
parse_policy(char **word, int n, struct vp_request *q, char *err,
    size_t errlen)
{
	int i;

	if (strlen(word[1]) >= sizeof(q->vm) ||
	    strlen(word[2]) >= sizeof(q->profile))
		return fail(err, errlen, VP_REJ_ARGS, "policy: name too long");
	snprintf(q->vm, sizeof(q->vm), "%s", word[1]);
	snprintf(q->profile, sizeof(q->profile), "%s", word[2]);
	for (i = 3; i < n; i++) {
		if (strlen(word[i]) >= sizeof(q->override[0]))
			return fail(err, errlen, VP_REJ_ARGS, "policy: "
			    "override '%.*s...' too long",
			    utf8_cut(word[i], 32), word[i]);
		snprintf(q->override[q->noverrides++], sizeof(q->override[0]),
		    "%s", word[i]);
	}
	return 0;
}

int
request_parse(const char *line, struct vp_request *ret, char *err,
    size_t errlen)
{
	char buf[VP_CTL_LINE_MAX], *word[MAX_WORDS];
	struct vp_request q;
	int n, c, r = 0;

	memset(&q, 0, sizeof(q));
	snprintf(buf, sizeof(buf), "%s", line);
	if ((n = split(buf, word)) < 0)
		return fail(err, errlen, VP_REJ_ARGS, "more than %d words",
		    MAX_WORDS);
	if (n == 0)
		return fail(err, errlen, VP_REJ_UNKNOWN,
		    "empty request (try: help)");
	for (c = 0; c < VP_CMD_COUNT; c++)
		if (!strcmp(word[0], cmds[c].name))
			break;
	if (c == VP_CMD_COUNT)
		return fail(err, errlen, VP_REJ_UNKNOWN, "unknown command "
		    "'%.*s' (try: help)", utf8_cut(word[0], 64), word[0]);
	if (n - 1 < cmds[c].min_args || n - 1 > cmds[c].max_args)
		return fail(err, errlen, VP_REJ_ARGS, cmds[c].max_args ?
		    "usage: %s" : "%s takes no arguments", cmds[c].max_args ?
		    cmds[c].usage : cmds[c].name);
	q.cmd = (enum vp_cmd)c;
	if (c == VP_CMD_EXPLAIN)
		r = parse_explain(line, word, n, &q, err, errlen);
	else if (c == VP_CMD_POLICY)
		r = parse_policy(word, n, &q, err, errlen);
	if (r)
		return r;
	*ret = q;
	return 0;
}
