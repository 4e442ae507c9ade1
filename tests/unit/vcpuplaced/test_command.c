/*
 * test_command.c - the control socket's request parser and the commands
 * that need no libvirt: every line is parsed once into a struct
 * vp_request, with no side effect, before anything runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "vcpuplaced/daemon.h"
#include "../suites.h"

/* Parses @line, which must succeed, into *q. */
static void
parse_ok(const char *line, struct vp_request *q)
{
	char err[256] = "";
	int r = request_parse(line, q, err, sizeof(err));

	ck_assert_msg(r == 0, "'%s': %d (%s)", line, r, err);
}

/* Parses @line, which must fail with @why and a message holding @needle. */
static void
parse_fails(const char *line, int why, const char *needle)
{
	struct vp_request q, copy;
	char err[256] = "";
	int r;

	memset(&q, 0x5a, sizeof(q));
	copy = q;
	r = request_parse(line, &q, err, sizeof(err));
	ck_assert_msg(r == why, "'%s': %d, want %d (%s)", line, r, why, err);
	ck_assert_msg(strstr(err, needle), "'%s': '%s' lacks '%s'", line, err,
	    needle);
	ck_assert_msg(!strchr(err, '\n'), "'%s': message not one line", line);
	ck_assert_msg(!memcmp(&q, &copy, sizeof(q)), "'%s': *ret touched",
	    line);
}

/*
 * A quoted word is cut at 64 bytes (32 for a vCPU or an override), never
 * inside a UTF-8 sequence: "é" (c3 a9) across the cut goes whole.
 */
START_TEST(test_parse_cut_utf8)
{
	char line[160], err[256], *q;
	struct vp_request r;

	memset(line, 'a', 63);
	strcpy(line + 63, "\xc3\xa9tail");	/* bytes 63-64: the cut */
	ck_assert_int_eq(request_parse(line, &r, err, sizeof(err)),
	    VP_REJ_UNKNOWN);
	q = strchr(err, '\'');
	ck_assert_ptr_nonnull(q);
	ck_assert_msg(strstr(err, "\xc3'") == NULL, "split: '%s'", err);
	ck_assert_uint_eq(strchr(q + 1, '\'') - (q + 1), 63);
	/* a 3-byte "€" (e2 82 ac) at bytes 31-33 of a vCPU */
	memset(line, 0, sizeof(line));
	strcpy(line, "explain vm ");
	memset(line + 11, '1', 31);
	strcpy(line + 42, "\xe2\x82\xacx");
	ck_assert_int_eq(request_parse(line, &r, err, sizeof(err)),
	    VP_REJ_ARGS);
	ck_assert_msg(strstr(err, "\xe2'") == NULL &&
	    strstr(err, "\x82'") == NULL, "split: '%s'", err);
	/* whole sequences under the limit are kept */
	ck_assert_int_eq(request_parse("\xc3\xa9t\xc3\xa9", &r, err,
	    sizeof(err)), VP_REJ_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(err, "'\xc3\xa9t\xc3\xa9'"));
}
END_TEST

START_TEST(test_parse_commands)
{
	static const struct { const char *line; enum vp_cmd cmd; } ok[] = {
		{ "status", VP_CMD_STATUS }, { "  metrics\t", VP_CMD_METRICS },
		{ "reload", VP_CMD_RELOAD }, { "pause", VP_CMD_PAUSE },
		{ "resume", VP_CMD_RESUME }, { "help", VP_CMD_HELP },
		{ "help me please", VP_CMD_HELP },
	};
	struct vp_request q;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		parse_ok(ok[i].line, &q);
		ck_assert_int_eq(q.cmd, ok[i].cmd);
		ck_assert_str_eq(request_name(q.cmd), strtok(strdupa(
		    ok[i].line), " \t"));
	}
}
END_TEST

START_TEST(test_parse_rejects)
{
	char many[256] = "policy vm balanced";
	int i;

	parse_fails("", VP_REJ_UNKNOWN, "empty request");
	parse_fails("   ", VP_REJ_UNKNOWN, "empty request");
	parse_fails("bogus", VP_REJ_UNKNOWN, "unknown command 'bogus'");
	parse_fails("STATUS", VP_REJ_UNKNOWN, "unknown command");
	parse_fails("status extra", VP_REJ_ARGS, "status takes no arguments");
	parse_fails("pause now", VP_REJ_ARGS, "pause takes no arguments");
	parse_fails("explain vm", VP_REJ_ARGS, "usage: explain VM VCPU");
	parse_fails("explain vm x", VP_REJ_ARGS, "vCPU 'x' is not a number");
	parse_fails("explain vm -1", VP_REJ_ARGS, "is not a number");
	parse_fails("explain vm 99999999999", VP_REJ_ARGS, "not a number");
	parse_fails("policy vm", VP_REJ_ARGS, "usage: policy VM PROFILE");
	for (i = 0; i < VP_CMD_OVERRIDES_MAX + 1; i++)
		strcat(many, " smt=any");
	parse_fails(many, VP_REJ_ARGS, "more than");
}
END_TEST

START_TEST(test_parse_explain_names)
{
	struct vp_request q;

	parse_ok("explain web-01 3", &q);
	ck_assert_int_eq(q.cmd, VP_CMD_EXPLAIN);
	ck_assert_str_eq(q.vm, "web-01");
	ck_assert_int_eq(q.vcpu, 3);
	/* libvirt allows blanks in names: all but the last word is the VM */
	parse_ok("explain  my vm  1 \t 2 ", &q);
	ck_assert_str_eq(q.vm, "my vm  1");
	ck_assert_int_eq(q.vcpu, 2);
	parse_ok("explain 7 7", &q);
	ck_assert_str_eq(q.vm, "7");
	ck_assert_int_eq(q.vcpu, 7);
}
END_TEST

START_TEST(test_parse_policy)
{
	struct vp_request q;

	parse_ok("policy db latency smt=isolate core_sched=yes", &q);
	ck_assert_int_eq(q.cmd, VP_CMD_POLICY);
	ck_assert_str_eq(q.vm, "db");
	ck_assert_str_eq(q.profile, "latency");
	ck_assert_int_eq(q.noverrides, 2);
	ck_assert_str_eq(q.override[0], "smt=isolate");
	ck_assert_str_eq(q.override[1], "core_sched=yes");
	parse_ok("policy db balanced", &q);
	ck_assert_int_eq(q.noverrides, 0);
}
END_TEST

/* Who may ask, and what waits for the tick because it calls libvirt. */
START_TEST(test_command_classes)
{
	int c;

	for (c = 0; c < VP_CMD_COUNT; c++) {
		bool writes = c == VP_CMD_RELOAD || c == VP_CMD_POLICY ||
		    c == VP_CMD_PAUSE || c == VP_CMD_RESUME;

		ck_assert_msg(request_needs_root(c) == writes, "%s",
		    request_name(c));
		ck_assert_msg(request_deferred(c) == (c == VP_CMD_POLICY),
		    "%s", request_name(c));
	}
}
END_TEST

/* Runs @line on @d; returns the answer (malloc'd) and the cause in *why. */
static char *
run(struct vp_daemon *d, const char *line, int *why)
{
	struct vp_request q;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	parse_ok(line, &q);
	f = open_memstream(&out, &len);
	ck_assert_ptr_nonnull(f);
	*why = command_run(d, &q, f);
	fclose(f);
	return out;
}

START_TEST(test_run_pause_resume)
{
	struct vp_daemon d;
	char *out;
	int why;

	memset(&d, 0, sizeof(d));
	out = run(&d, "pause", &why);
	ck_assert_int_eq(why, 0);
	ck_assert_str_eq(out, "ok: placement paused\n");
	ck_assert(d.paused);
	ck_assert_uint_eq(d.c.ctl_requests[VP_CMD_PAUSE], 1);
	free(out);
	out = run(&d, "resume", &why);
	ck_assert_str_eq(out, "ok: placement resumed\n");
	ck_assert(!d.paused);
	free(out);
	/* policy needs libvirt: without a connection, an error, no change */
	d.uri = "test:///nowhere";
	out = run(&d, "policy vm balanced", &why);
	ck_assert_int_eq(why, VP_REJ_ARGS);
	ck_assert_msg(!strncmp(out, "error: policy: not connected", 28), "%s",
	    out);
	ck_assert_uint_eq(d.c.invalid_metadata, 0);
	free(out);
}
END_TEST

Suite *
command_suite(void)
{
	Suite *s = suite_create("command");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_parse_commands);
	tcase_add_test(tc, test_parse_rejects);
	tcase_add_test(tc, test_parse_cut_utf8);
	tcase_add_test(tc, test_parse_explain_names);
	tcase_add_test(tc, test_parse_policy);
	tcase_add_test(tc, test_command_classes);
	tcase_add_test(tc, test_run_pause_resume);
	suite_add_tcase(s, tc);
	return s;
}
