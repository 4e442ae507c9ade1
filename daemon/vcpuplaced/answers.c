/*
 * answers.c - what the libvirt worker's answers mean for the daemon: a
 * snapshot adopted as the inventory, pins applied to the VMs, a policy
 * write answered to its client.  libvirt.c takes them off the channel and
 * calls nothing above it; this file sits above it, the inventory, the
 * actuator and the server, so the service's files call each other in one
 * direction only (tools/layering.sh).
 *
 * The loop takes what has come (answers_take()) and never waits.  Only
 * start-up and the unit tests wait for an answer, at most as long as
 * they say (answers_wait()).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <syslog.h>

#include "vcpuplaced/daemon.h"

static unsigned int
adopt_snapshot(struct vp_daemon *d, const struct vp_lv_answer *a)
{
	unsigned int got = 0;

	if (a->kind == VP_LV_ANS_POLICIES) {
		if (inventory_adopt_policies(d, a->snap) > 0)
			got |= VP_LV_GOT_POLICIES | VP_LV_GOT_EVENT;
		return got;
	}
	inventory_adopt(d, a->snap);
	got |= VP_LV_GOT_INVENTORY;
	if (a->event)
		got |= VP_LV_GOT_EVENT;
	return got;
}

/*
 * A policy write's results: a written one makes the metadata to be read
 * again, a failed one is counted; either way its client hears, or only
 * the log when none waits any more.
 */
static void
answer_policy_write(struct vp_daemon *d, const struct vp_lv_answer *a)
{
	struct vp_msg_result res;
	uint32_t i;

	for (i = 0; i < a->nres; i++) {
		memcpy(&res, a->res + i * sizeof(res), sizeof(res));
		if (res.result == 0)
			virt_mark_dirty(&d->virt, 0);
		else
			d->c.libvirt_errors++;
		if (!server_policy_answered(d, a->seq, &res))
			log_msg(res.result ? LOG_WARNING : LOG_NOTICE,
			    "policy write %u answered late: %s", a->seq,
			    res.result ? res.why : "written");
	}
}

/* An APPLY's results, each applied to the vCPU its pin was for. */
static void
apply_pins(struct vp_daemon *d, const struct vp_lv_answer *a)
{
	struct vp_msg_result res;
	uint32_t i;

	for (i = 0; i < a->nres; i++) {
		memcpy(&res, a->res + i * sizeof(res), sizeof(res));
		if (res.id < (uint32_t)a->npins)
			actuate_result(d, &a->pin[res.id],
			    (enum vp_apply)res.result, res.why);
	}
	actuate_note_latency(d, a->apply_ns);
}

unsigned int
answers_take(struct vp_daemon *d)
{
	struct vp_lv_answer a;
	unsigned int got = 0;

	while (libvirt_next(d, &a) > 0) {
		switch (a.kind) {
		case VP_LV_ANS_INVENTORY:
		case VP_LV_ANS_POLICIES:
			got |= adopt_snapshot(d, &a);
			break;
		case VP_LV_ANS_PINS:
			apply_pins(d, &a);
			got |= VP_LV_GOT_PINS;
			break;
		case VP_LV_ANS_POLICY_WRITE:
			answer_policy_write(d, &a);
			break;
		}
	}
	return got;
}

int
answers_wait(struct vp_daemon *d, uint32_t seq, unsigned int wait_ms)
{
	uint64_t end = clock_now_ns() + (uint64_t)wait_ms * 1000000;
	struct pollfd pfd;
	uint64_t now;

	while (d->lv.up && libvirt_pending(d, seq) && !d->lv.bye) {
		now = clock_now_ns();
		if (now >= end)
			return -ETIMEDOUT;
		pfd = (struct pollfd){ .fd = d->lv.fd, .events = POLLIN };
		(void)poll(&pfd, 1, (int)((end - now) / 1000000) + 1);
		(void)answers_take(d);
	}
	return libvirt_pending(d, seq) ? -EIO : 0;
}

int
answers_connect_within(struct vp_daemon *d, unsigned int wait_ms)
{
	int r;

	if ((r = libvirt_start(d)) < 0)
		return r;
	if (libvirt_connected(d))
		return 0;
	if (libvirt_reading(d) || (r = libvirt_refresh(d, false)) == 0)
		(void)answers_wait(d, d->lv.read_seq, wait_ms);
	return libvirt_connected(d) ? 0 : -ECONNREFUSED;
}

int
answers_connect(struct vp_daemon *d)
{
	/* long enough for a test driver under valgrind */
	return answers_connect_within(d, 60000);
}

int
answers_refresh(struct vp_daemon *d)
{
	uint32_t seq;
	int r;

	if (!d->lv.up)
		return -ENOTCONN;
	if (libvirt_reading(d))
		(void)answers_wait(d, d->lv.read_seq, 60000);
	if ((r = libvirt_refresh(d, false)) < 0)
		return r;
	seq = d->lv.read_seq;
	if ((r = answers_wait(d, seq, 60000)) < 0)
		return r;
	return d->lv.done_seq == seq ? d->lv.done_err : -EIO;
}
