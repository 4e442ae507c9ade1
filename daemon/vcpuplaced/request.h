/*
 * request.h - a control-socket request line, parsed into data (request.c):
 * the commands, their rejections and what each takes.
 */
#ifndef VP_REQUEST_H
#define VP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/vcpuplace.h"
#include "host/policy_xml.h"

/* The control socket's commands; requests are counted by command. */
enum vp_cmd {
	VP_CMD_STATUS, VP_CMD_METRICS, VP_CMD_EXPLAIN, VP_CMD_RELOAD,
	VP_CMD_POLICY, VP_CMD_PAUSE, VP_CMD_RESUME, VP_CMD_HELP, VP_CMD_COUNT
};
/* Rejections are counted by cause. */
enum vp_reject {
	VP_REJ_NONE,		/* not rejected */
	VP_REJ_UNKNOWN,		/* not a command */
	VP_REJ_BINARY,		/* bytes that are not printable text */
	VP_REJ_OVERLONG,	/* no newline within VP_CTL_LINE_MAX */
	VP_REJ_TIMEOUT,		/* connected, sent no full line in time */
	VP_REJ_DENIED,		/* a write command from uid != 0 */
	VP_REJ_ARGS,		/* a known command with bad arguments */
	VP_REJ_SLOW_READER,	/* did not read its answer in time */
	VP_REJ_PERSON_LIMIT,	/* its person holds VP_CTL_PERSON_MAX slots */
	VP_REJ_FULL,		/* no slot left that this peer may take */
	VP_REJ_BUSY,		/* VP_CTL_QUEUED_MAX bytes wait to be read */
	VP_REJ_COUNT
};

/* One request line, parsed (request.c); fixed size, validated. */
#define VP_CMD_OVERRIDES_MAX	7	/* one per field of a policy */
struct vp_request {
	enum vp_cmd cmd;
	char vm[256];			/* explain, policy */
	int vcpu;			/* explain */
	char profile[VP_PROFILE_NAME_MAX];	/* policy */
	char override[VP_CMD_OVERRIDES_MAX][96];	/* "field=value" */
	int noverrides;
};

/*
 * Parses one request line into *ret, with no side effect.  Returns 0, or
 * a VP_REJ_* cause with a one-line reason in @err (*ret untouched).
 */
int request_parse(const char *line, struct vp_request *ret, char *err,
    size_t errlen) VP_MUST_CHECK;
const char *request_name(enum vp_cmd cmd);	/* "status", ... */
/* Changes placement: only uid 0 may ask. */
bool request_needs_root(enum vp_cmd cmd);
/* Blocks on libvirt: queued, and run by the tick, not while serving. */
bool request_deferred(enum vp_cmd cmd);

#endif /* VP_REQUEST_H */
