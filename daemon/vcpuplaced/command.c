/*
 * command.c - the commands of the control socket: a request line is
 * parsed once, with no side effect, into a struct vp_request; only then
 * is it run.  Read commands are open to anyone who can connect (the
 * socket's mode and group decide that); write commands change
 * placement, so they need uid 0, as the kernel told us through
 * SO_PEERCRED, whatever the client claims.
 *
 * A command that talks to libvirt (policy) may block for as long as
 * libvirtd takes to answer, so it never runs while the socket is served:
 * server.c queues it, and the tick, which talks to libvirt anyway, runs
 * it and sends the answer (ctl_run_queued()).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "host/domain.h"
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

static const char help_text[] =
	"commands (one line, then the answer, then the connection closes):\n"
	"  status                 placement of every VM as JSON\n"
	"  metrics                Prometheus text format 0.0.4\n"
	"  explain VM VCPU        why that vCPU is where it is\n"
	"  reload                 reread policies and topology (root)\n"
	"  policy VM PROFILE [FIELD=VALUE ...]\n"
	"                         set a VM's policy metadata (root)\n"
	"  pause                  hold every placement as it is (root)\n"
	"  resume                 place again (root)\n"
	"  help                   this text\n";

const char *
command_name(enum vp_cmd cmd)
{
	return cmd >= 0 && cmd < VP_CMD_COUNT ? cmds[cmd].name : "?";
}

bool
command_needs_root(enum vp_cmd cmd)
{
	return cmds[cmd].root;
}

bool
command_deferred(enum vp_cmd cmd)
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
command_parse(const char *line, struct vp_request *ret, char *err,
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

static int
run_status(const struct vp_daemon *d, FILE *f)
{
	json_object *o = status_json(d);

	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), f);
	fputc('\n', f);
	json_object_put(o);
	return 0;
}

static int
answer_error(FILE *f, int why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
answer_error(FILE *f, int why, const char *fmt, ...)
{
	va_list ap;

	fputs("error: ", f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	return why;
}

/*
 * The VM's metadata is where its policy lives, so this writes it there
 * (through the libvirt worker: live, and to the config of a persistent
 * VM) and lets the metadata event re-place the VM, exactly as `virsh
 * metadata` would.  The answer comes with the worker's
 * (command_policy_done()); the loop does not wait for it.
 */
static int
run_policy(struct vp_daemon *d, const struct vp_request *q, FILE *f)
{
	char err[512], *xml = NULL, *ov[VP_CMD_OVERRIDES_MAX];
	struct vp_vm *vm;
	uint32_t seq;
	int i, r;

	if (!libvirt_connected(d))
		return answer_error(f, VP_REJ_ARGS, "policy: not connected to "
		    "libvirt (%s), try again", d->uri);
	if (!(vm = inventory_vm_by_name(d, q->vm)))
		return answer_error(f, VP_REJ_ARGS, "policy: no running VM "
		    "'%s'", q->vm);
	for (i = 0; i < q->noverrides; i++)
		ov[i] = (char *)q->override[i];
	if (policy_to_metadata(d->profiles, q->profile, ov, q->noverrides,
	    &xml, err, sizeof(err)) < 0) {
		d->c.invalid_metadata++;
		return answer_error(f, VP_REJ_ARGS, "policy %s: %s", vm->name,
		    err);
	}
	r = libvirt_policy_write(d, vm->uuid, xml, &seq);
	free(xml);
	if (r < 0)
		return answer_error(f, VP_REJ_ARGS, "policy %s: %s, try "
		    "again", vm->name, r == -EBUSY || r == -EAGAIN ?
		    "libvirt is busy with earlier requests" : strerror(-r));
	return VP_CMD_LATER;
}

int
command_policy_done(struct vp_daemon *d, const struct vp_request *q,
    const struct vp_msg_result *res, FILE *f)
{
	(void)d;
	if (res->result < 0)
		return answer_error(f, VP_REJ_ARGS, "policy %s: libvirt "
		    "refused the metadata: %s", q->vm, res->why);
	log_msg(LOG_NOTICE, "VM %s: policy set to profile %s over the "
	    "socket", q->vm, q->profile);
	fprintf(f, "ok: %s: profile %s\n", q->vm, q->profile);
	return 0;
}

int
command_policy_late(struct vp_daemon *d, const struct vp_request *q,
    FILE *f)
{
	(void)d;
	return answer_error(f, VP_REJ_ARGS, "policy %s: libvirt is not "
	    "answering (%u s); the write may still be made, see the log",
	    q->vm, VP_LIBVIRT_POLICY_WAIT_MS / 1000);
}

/*
 * pause holds every placement where it is: the daemon goes on reading
 * the inventory and the load and serving the socket, but neither plans
 * nor pins, so an operator can work on the host (or a test can read a
 * plan that holds still) without stopping it.
 */
static int
run_pause(struct vp_daemon *d, bool pause, FILE *f)
{
	if (d->paused != pause)
		log_msg(LOG_NOTICE, "placement %s over the socket",
		    pause ? "paused" : "resumed");
	d->paused = pause;
	d->status_dirty = true;
	fprintf(f, "ok: placement %s\n", pause ? "paused" : "resumed");
	return 0;
}

int
command_run(struct vp_daemon *d, const struct vp_request *q, FILE *f)
{
	d->c.ctl_requests[q->cmd]++;
	switch (q->cmd) {
	case VP_CMD_STATUS:
		return run_status(d, f);
	case VP_CMD_METRICS:
		return metrics_write(d, f) < 0 ? VP_REJ_ARGS : 0;
	case VP_CMD_EXPLAIN:
		return explain_vcpu(d, q->vm, q->vcpu, f) < 0 ? VP_REJ_ARGS : 0;
	case VP_CMD_RELOAD:
		atomic_store(&d->reload_asked, true);
		fputs("ok: rereading policies and topology\n", f);
		return 0;
	case VP_CMD_POLICY:
		return run_policy(d, q, f);
	case VP_CMD_PAUSE:
	case VP_CMD_RESUME:
		return run_pause(d, q->cmd == VP_CMD_PAUSE, f);
	case VP_CMD_HELP:
	default:
		fputs(help_text, f);
		return 0;
	}
}
