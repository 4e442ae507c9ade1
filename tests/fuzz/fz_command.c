/*
 * fz_command.c - request_parse() (daemon/vcpuplaced/request.c), the
 * control socket's request line, from any local user.
 *
 * Properties: a request is either rejected with a cause (a vp_reject
 * value) and a message, or names a known command whose fields are what
 * that command takes: explain a non-empty VM name and a vCPU number in
 * range, policy a VM, a profile and at most VP_CMD_OVERRIDES_MAX
 * overrides, every string NUL-ended inside its field.
 */
#include "vcpuplaced/daemon.h"
#include "fuzz.h"

static void
check_request(const struct vp_request *q)
{
	int i;

	FZ_CHECK(q->cmd >= 0 && q->cmd < VP_CMD_COUNT, "cmd %d", (int)q->cmd);
	FZ_CHECK(memchr(q->vm, '\0', sizeof(q->vm)), "vm not NUL-ended");
	FZ_CHECK(memchr(q->profile, '\0', sizeof(q->profile)),
	    "profile not NUL-ended");
	FZ_CHECK(q->noverrides >= 0 && q->noverrides <= VP_CMD_OVERRIDES_MAX,
	    "%d overrides", q->noverrides);
	for (i = 0; i < q->noverrides; i++)
		FZ_CHECK(memchr(q->override[i], '\0', sizeof(q->override[i])),
		    "override %d not NUL-ended", i);
	if (q->cmd == VP_CMD_EXPLAIN) {
		FZ_CHECK(q->vm[0], "explain without a VM name");
		FZ_CHECK(q->vcpu >= 0 && q->vcpu < VP_MAX_PUS, "vcpu %d",
		    q->vcpu);
	}
	if (q->cmd == VP_CMD_POLICY)
		FZ_CHECK(q->vm[0] && q->profile[0], "policy without names");
	else
		FZ_CHECK(q->noverrides == 0, "overrides on %s",
		    request_name(q->cmd));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fz_cstr(data, size), err[VP_CTL_LINE_MAX + 64];
	struct vp_request q;
	int why;

	err[0] = '\0';
	memset(&q, 0xa5, sizeof(q));	/* untouched on failure: poison */
	why = request_parse(line, &q, err, sizeof(err));
	if (why) {
		FZ_CHECK(why > VP_REJ_NONE && why < VP_REJ_COUNT, "cause %d",
		    why);
		FZ_CHECK(err[0], "rejected without a message");
	} else {
		check_request(&q);
	}
	free(line);
	return 0;
}
