/*
 * command.c - the commands of the control socket, run: a request that
 * request.c has parsed, with no side effect, is answered here.  Read
 * commands are open to anyone who can connect (the socket's mode and
 * group decide that); write commands change placement, so they need
 * uid 0, as the kernel told us through SO_PEERCRED, whatever the client
 * claims.
 *
 * A command that talks to libvirt (policy) is queued by server.c for the
 * tick, which sends it to the libvirt worker; its client is answered when
 * the worker answers (command_policy_done()), so the socket is never held
 * up by libvirtd.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "host/domain.h"
#include "vcpuplaced/daemon.h"

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
