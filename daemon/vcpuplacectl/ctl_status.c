/*
 * ctl_status.c - vcpuplacectl status, metrics, explain, reload, pause and
 * resume: the daemon's socket answers, printed for people (status as a
 * table) or passed through (metrics, explain, status --json).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "vcpuplacectl/ctl.h"

/* Asks, prints the answer as it came; 0 or 1. */
static int
pass_through(const char *sock, const char *line)
{
	char *text;

	if (client_request(sock, line, &text) < 0)
		return 1;
	fputs(text, stdout);
	free(text);
	return 0;
}

int
ctl_metrics(const struct ctl_opts *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return pass_through(o->socket, "metrics");
}

int
ctl_reload(const struct ctl_opts *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return pass_through(o->socket, "reload");
}

/* Holds every placement as it is, until resume (root). */
int
ctl_pause(const struct ctl_opts *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return pass_through(o->socket, "pause");
}

int
ctl_resume(const struct ctl_opts *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return pass_through(o->socket, "resume");
}

int
ctl_explain(const struct ctl_opts *o, int argc, char **argv)
{
	char line[1024];

	(void)argc;
	snprintf(line, sizeof(line), "explain %s %s", argv[0], argv[1]);
	return pass_through(o->socket, line);
}

static const char *
str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return "-";
	return json_object_get_string(v);
}

static double
num(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ?
	    json_object_get_double(v) : 0;
}

/*
 * "kernel mode userspace; sched_ext unavailable: this kernel has no ...":
 * which kernel path places wake-ups, and why not ours when it is not;
 * "kernel mode kernel-patch (SIS_CORE off); ..." with the kernel series.
 */
static void
print_kernel_mode(json_object *st)
{
	json_object *sx = NULL;
	const char *state, *sis = str(st, "sis_core");

	printf("kernel mode %s", str(st, "kernel_mode"));
	if (strcmp(sis, "absent") && strcmp(sis, "-"))
		printf(" (SIS_CORE %s)", sis);
	if (!json_object_object_get_ex(st, "sched_ext", &sx) || !sx) {
		fputs("\n\n", stdout);
		return;
	}
	state = str(sx, "state");
	if (!strcmp(state, "loaded"))
		printf("; sched_ext loaded (\"%s\", %s switch)", str(sx, "ops"),
		    json_object_get_boolean(json_object_object_get(sx,
		    "partial")) ? "partial" : "full");
	/* --sched-ext=on under a CPU quota: loaded, the quota lost */
	if (!strcmp(state, "loaded") && num(sx, "quota_vms") > 0 &&
	    !json_object_get_boolean(json_object_object_get(sx,
	    "quota_enforced")))
		printf("; CPU quota not enforced for %ld VM(s) (%s)",
		    (long)num(sx, "quota_vms"), str(sx, "quota_first"));
	else if (strcmp(state, "loaded"))
		printf("; sched_ext %s: %s", state, str(sx, "why"));
	if (num(sx, "ejections") > 0)
		printf("; %ld ejection(s)", (long)num(sx, "ejections"));
	if (num(sx, "errors") > 0)
		printf("; %ld error(s)", (long)num(sx, "errors"));
	fputs("\n\n", stdout);
}

/*
 * The libvirt worker in one line (doc/libvirt-worker.md): "libvirt:
 * answering (snapshot 0.4 s old)", or "libvirt: NOT answering: refresh
 * 812 waiting 12.3 s (snapshot 14.2 s old; stalls 2)" while a request is
 * out past the daemon's stall bound (2 s).  The header's "libvirt
 * connected" cannot say that: a stopped libvirtd keeps the connection
 * open.  A daemon older than the worker sends no "libvirt" object; the
 * line then says "unknown" rather than going, so that a missing line
 * never reads as a healthy one and the table keeps its shape.
 */
static void
print_libvirt(json_object *st)
{
	json_object *lv = NULL;
	const char *state;
	double snap_ms, stalls;

	if (!json_object_object_get_ex(st, "libvirt", &lv) ||
	    !json_object_is_type(lv, json_type_object)) {
		puts("libvirt: unknown (the daemon does not report it)");
		return;
	}
	state = str(lv, "state");
	if (!strcmp(state, "waiting") || !strcmp(state, "connecting"))
		printf("libvirt: NOT answering: %s%s %ld waiting %.1f s",
		    strcmp(state, "connecting") ? "" : "connecting, ",
		    str(lv, "request"), (long)num(lv, "request_seq"),
		    num(lv, "request_age_ms") / 1e3);
	else if (!strcmp(state, "disconnected"))
		fputs("libvirt: DISCONNECTED", stdout);
	else	/* answering, or a state newer than this CLI: as it came */
		printf("libvirt: %s", state);
	/* -1 (or absent): no inventory read yet since the daemon started */
	snap_ms = json_object_object_get_ex(lv, "snapshot_age_ms", NULL) ?
	    num(lv, "snapshot_age_ms") : -1;
	if (snap_ms < 0)
		fputs(" (no snapshot yet", stdout);
	else
		printf(" (snapshot %.1f s old", snap_ms / 1e3);
	stalls = num(lv, "stalls");
	if (stalls > 0)
		printf("; stalls %ld", (long)stalls);
	fputs(")\n", stdout);
}

static void
print_header(json_object *st)
{
	json_object *host, *topo;

	json_object_object_get_ex(st, "host", &host);
	json_object_object_get_ex(host, "topology", &topo);
	printf("host %s: %d packages, %d LLCs, %d cores, %d PUs (SMT%d); "
	    "libvirt %s; tick %ld%s\n", str(host, "hostname"),
	    (int)num(topo, "packages"), (int)num(topo, "llcs"),
	    (int)num(topo, "cores"), (int)num(topo, "pus"),
	    (int)num(topo, "smt"), json_object_get_boolean(
	    json_object_object_get(st, "connected")) ? "connected" :
	    "DISCONNECTED", (long)num(st, "tick"),
	    json_object_get_boolean(json_object_object_get(st, "dry_run")) ?
	    "; dry run" : "");
	print_libvirt(st);
	printf("smt conflicts %d; invalid metadata %ld; libvirt errors %ld; "
	    "plan p50 %.3f ms p99 %.3f ms\n", (int)num(st, "smt_conflicts"),
	    (long)num(st, "invalid_metadata"), (long)num(st, "libvirt_errors"),
	    num(st, "plan_ns_p50") / 1e6, num(st, "plan_ns_p99") / 1e6);
	print_kernel_mode(st);
}

static int name_w = 20;	/* the VM column: the longest name */

static void
print_vm(json_object *vm)
{
	json_object *pol, *vcpus, *err;
	size_t k;

	json_object_object_get_ex(vm, "policy", &pol);
	json_object_object_get_ex(vm, "vcpus", &vcpus);
	for (k = 0; k < json_object_array_length(vcpus); k++) {
		json_object *c = json_object_array_get_idx(vcpus, k);

		printf("%-*s %4d  %-10s %-9s %5s  %-16s %7s  %-12s %4.0f%% "
		    "%9.3f%s\n", name_w, k ? "" : str(vm, "name"),
		    (int)num(c, "vcpu"),
		    k ? "" : str(pol, "profile"), k ? "" : str(pol, "mode"),
		    str(c, "home"), str(c, "allowed"), str(c, "current"),
		    str(c, "reason"), num(c, "busy") * 100,
		    num(c, "delay_seconds") * 1e3,
		    json_object_get_boolean(json_object_object_get(c,
		    "smt_conflict")) ? "  SMT-CONFLICT" : "");
	}
	if (json_object_object_get_ex(vm, "error", &err) && err)
		printf("%-*s metadata error: %s\n", name_w, "",
		    json_object_get_string(err));
}

int
ctl_status(const struct ctl_opts *o, int argc, char **argv)
{
	json_object *st, *vms;
	char *text;
	size_t i;

	(void)argc;
	(void)argv;
	if (o->json)
		return pass_through(o->socket, "status");
	if (client_request(o->socket, "status", &text) < 0)
		return 1;
	st = json_tokener_parse(text);
	free(text);
	if (!st || !json_object_object_get_ex(st, "vms", &vms)) {
		fprintf(stderr, "vcpuplacectl: the daemon's status is not the "
		    "JSON expected\n");
		json_object_put(st);
		return 1;
	}
	print_header(st);
	for (i = 0; i < json_object_array_length(vms); i++) {
		int n = (int)strlen(str(json_object_array_get_idx(vms, i),
		    "name"));

		name_w = n > name_w ? n : name_w;
	}
	printf("%-*s %4s  %-10s %-9s %5s  %-16s %7s  %-12s %5s %9s\n", name_w,
	    "VM",
	    "VCPU", "PROFILE", "MODE", "HOME", "ALLOWED", "CURRENT", "REASON",
	    "BUSY", "DELAY(ms)");
	for (i = 0; i < json_object_array_length(vms); i++)
		print_vm(json_object_array_get_idx(vms, i));
	json_object_put(st);
	return 0;
}
