/*
 * command.h - a parsed request, run (command.c), its answer written.
 */
#ifndef VP_COMMAND_H
#define VP_COMMAND_H

#include <errno.h>
#include <stdio.h>

#include "host/virt_msg.h"
#include "vcpuplaced/request.h"

struct vp_daemon;

/*
 * Runs @q and counts it; the answer goes to @f.  Returns 0, or a
 * VP_REJ_* cause after writing one "error: ..." line to @f.
 */
int command_run(struct vp_daemon *d, const struct vp_request *q, FILE *f);
/*
 * command_run() returns this when the answer comes later: the policy
 * write went to the libvirt worker as request d->lv.seq, and
 * command_policy_done() writes the answer when it comes back.
 */
#define VP_CMD_LATER	(-EINPROGRESS)
int command_policy_done(struct vp_daemon *d, const struct vp_request *q,
    const struct vp_msg_result *res, FILE *f);
int command_policy_late(struct vp_daemon *d, const struct vp_request *q,
    FILE *f);

#endif /* VP_COMMAND_H */
