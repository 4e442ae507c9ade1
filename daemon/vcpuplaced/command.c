/*
 * ctlcmd.c - the commands of the control socket.  Read commands are open
 * to anyone who can connect (the socket's mode and group decide that);
 * write commands change placement, so they need uid 0, as the kernel
 * told us through SO_PEERCRED, whatever the client claims.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <json-c/json.h>
#include <libvirt/virterror.h>

#include "vcpuplaced/daemon.h"

#define MAX_WORDS	16

struct request {
	char *word[MAX_WORDS];
	int n;
	const char *rest;	/* the line after the first word */
};

static const char help_text[] =
	"commands (one line, then the answer, then the connection closes):\n"
	"  status                 placement of every VM as JSON\n"
	"  metrics                Prometheus text format 0.0.4\n"
	"  explain VM VCPU        why that vCPU is where it is\n"
	"  reload                 reread policies and topology (root)\n"
	"  policy VM PROFILE [FIELD=VALUE ...]\n"
	"                         set a VM's policy metadata (root)\n"
	"  help                   this text\n";

static int
fail(FILE *f, enum vp_reject why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
fail(FILE *f, enum vp_reject why, const char *fmt, ...)
{
	va_list ap;

	fputs("error: ", f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	return why;
}

static int
cmd_status(struct vp_daemon *d, FILE *f)
{
	json_object *o = status_json(d);

	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), f);
	fputc('\n', f);
	json_object_put(o);
	return 0;
}

static int
cmd_explain(struct vp_daemon *d, const struct request *q, FILE *f)
{
	const char *last;
	char vm[256], *end;
	size_t len;
	long vcpu;

	if (q->n < 3)
		return fail(f, VP_REJ_ARGS, "usage: explain VM VCPU");
	last = q->word[q->n - 1];
	errno = 0;
	vcpu = strtol(last, &end, 10);
	if (errno || *end || vcpu < 0 || vcpu >= VP_MAX_PUS)
		return fail(f, VP_REJ_ARGS, "explain: vCPU '%s' is not a "
		    "number", last);
	/* a VM name may hold blanks: it is everything before the vCPU */
	len = strlen(q->rest);
	while (len && (q->rest[len - 1] == ' ' || q->rest[len - 1] == '\t'))
		len--;
	len -= strlen(last);
	while (len && (q->rest[len - 1] == ' ' || q->rest[len - 1] == '\t'))
		len--;
	snprintf(vm, sizeof(vm), "%.*s", (int)len, q->rest);
	return explain_vcpu(d, vm, (int)vcpu, f) < 0 ? VP_REJ_ARGS : 0;
}

static int
cmd_reload(struct vp_daemon *d, FILE *f)
{
	atomic_store(&d->reload_asked, true);
	fputs("ok: rereading policies and topology\n", f);
	return 0;
}

/*
 * The VM's metadata is where its policy lives, so this writes it there
 * (live, and to the config of a persistent VM) and lets the metadata
 * event re-place the VM, exactly as `virsh metadata` would.
 */
static int
cmd_policy(struct vp_daemon *d, const struct request *q, FILE *f)
{
	unsigned int flags = VIR_DOMAIN_AFFECT_LIVE;
	struct vp_vm *vm;
	char err[512], *xml = NULL;
	int r;

	if (q->n < 3)
		return fail(f, VP_REJ_ARGS, "usage: policy VM PROFILE "
		    "[FIELD=VALUE ...]");
	if (!(vm = virt_vm_by_name(d, q->word[1])))
		return fail(f, VP_REJ_ARGS, "policy: no running VM '%s'",
		    q->word[1]);
	if (policy_to_metadata(d->profiles, q->word[2], q->word + 3,
	    q->n - 3, &xml, err, sizeof(err)) < 0) {
		d->c.invalid_metadata++;
		return fail(f, VP_REJ_ARGS, "policy %s: %s", vm->name, err);
	}
	if (virDomainIsPersistent(vm->dom) == 1)
		flags |= VIR_DOMAIN_AFFECT_CONFIG;
	r = virDomainSetMetadata(vm->dom, VIR_DOMAIN_METADATA_ELEMENT, xml,
	    VP_POLICY_PREFIX, VP_POLICY_NS, flags);
	free(xml);
	if (r < 0) {
		d->c.libvirt_errors++;
		return fail(f, VP_REJ_ARGS, "policy %s: libvirt refused the "
		    "metadata: %s", vm->name, virGetLastErrorMessage());
	}
	atomic_store(&d->dirty, true);
	log_msg(LOG_NOTICE, "VM %s: policy set to profile %s over the "
	    "socket", vm->name, q->word[2]);
	fprintf(f, "ok: %s: profile %s\n", vm->name, q->word[2]);
	return 0;
}

/* Splits @line in place on blanks; false when it has too many words. */
static bool
split(char *line, const char *orig, struct request *q)
{
	char *save = NULL, *w;

	q->n = 0;
	q->rest = orig;
	for (w = strtok_r(line, " \t", &save); w;
	    w = strtok_r(NULL, " \t", &save)) {
		if (q->n == MAX_WORDS)
			return false;
		q->word[q->n++] = w;
	}
	if (q->n) {
		q->rest = orig + strspn(orig, " \t") + strlen(q->word[0]);
		q->rest += strspn(q->rest, " \t");
	}
	return true;
}

int
ctlcmd_run(struct vp_daemon *d, const char *line, uid_t uid, FILE *f)
{
	char buf[VP_CTL_LINE_MAX];
	struct request q;
	const char *cmd;

	snprintf(buf, sizeof(buf), "%s", line);
	if (!split(buf, line, &q))
		return fail(f, VP_REJ_ARGS, "more than %d words", MAX_WORDS);
	if (q.n == 0)
		return fail(f, VP_REJ_UNKNOWN, "empty request (try: help)");
	cmd = q.word[0];
	if (!strcmp(cmd, "status") && q.n == 1) {
		d->c.ctl_requests[VP_CMD_STATUS]++;
		return cmd_status(d, f);
	}
	if (!strcmp(cmd, "metrics") && q.n == 1) {
		d->c.ctl_requests[VP_CMD_METRICS]++;
		return metrics_write(d, f) < 0 ? VP_REJ_ARGS : 0;
	}
	if (!strcmp(cmd, "help")) {
		d->c.ctl_requests[VP_CMD_HELP]++;
		fputs(help_text, f);
		return 0;
	}
	if (!strcmp(cmd, "explain")) {
		d->c.ctl_requests[VP_CMD_EXPLAIN]++;
		return cmd_explain(d, &q, f);
	}
	if (!strcmp(cmd, "reload") || !strcmp(cmd, "policy")) {
		if (uid != 0)
			return fail(f, VP_REJ_DENIED, "%s: permission denied "
			    "(uid %ld): write commands need root", cmd,
			    (long)uid);
		if (!strcmp(cmd, "reload") && q.n == 1) {
			d->c.ctl_requests[VP_CMD_RELOAD]++;
			return cmd_reload(d, f);
		}
		if (!strcmp(cmd, "policy")) {
			d->c.ctl_requests[VP_CMD_POLICY]++;
			return cmd_policy(d, &q, f);
		}
	}
	if (!strcmp(cmd, "status") || !strcmp(cmd, "metrics") ||
	    !strcmp(cmd, "reload"))
		return fail(f, VP_REJ_ARGS, "%s takes no arguments", cmd);
	return fail(f, VP_REJ_UNKNOWN, "unknown command '%.64s' (try: help)",
	    cmd);
}
