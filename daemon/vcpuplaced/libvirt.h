/*
 * libvirt.h - the loop's side of the libvirt worker (libvirt.c,
 * host/virt_worker.h, doc/libvirt-worker.md): requests sent, answers
 * taken off the channel, none of it blocking.
 */
#ifndef VP_LIBVIRT_H
#define VP_LIBVIRT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/vcpuplace.h"
#include "host/cputune.h"
#include "host/virt.h"
#include "host/virt_msg.h"
#include "host/virt_worker.h"

struct vp_daemon;

/*
 * A request unanswered this long is a stall: longer than the 1.5 s
 * libvirtd holds a destroyed TCG guest's domain lock here (doc/daemon.md),
 * so a normal destroy is not one.
 */
#define VP_LIBVIRT_STALL_MS	2000
/* a socket policy command answers "not answering" after this (10 s) */
#define VP_LIBVIRT_POLICY_WAIT_MS	10000
/* requests outstanding at once: a read, an apply, the policy writes */
#define VP_LV_PENDING_MAX	8

enum vp_lv_kind { VP_LV_REFRESH, VP_LV_REREAD, VP_LV_APPLY, VP_LV_POLICY };

struct vp_lv_pending {
	uint32_t seq;
	enum vp_lv_kind kind;
	uint64_t sent_ns;	/* monotonic */
};

/* One domain of a snapshot, as the worker read it: plain data. */
struct vp_snap_dom {
	struct vp_dom_info info;
	int policy_err;		/* 0: policy holds the text; -ENODATA, ... */
	char *policy;		/* owned */
	int nova_err;		/* the same; -EAGAIN: not read */
	char *nova;		/* owned */
	int cputune_err;	/* 0: tune read; -EAGAIN: not read */
	struct vp_cputune tune;
	int aff_err;		/* 0 once every vCPU came; -EAGAIN: not read */
	int naff;		/* vCPUs received */
	struct vp_cpuset *aff;	/* owned, info.nvcpus of them */
	int *cur;		/* owned: PU each last ran on */
};

/* An inventory read, built aside and swapped in whole (rule 10). */
struct vp_snapshot {
	struct vp_snap_dom *dom;	/* owned */
	int n, cap;
};

/* A pin sent to the worker and not yet answered. */
struct vp_lv_pin {
	unsigned char uuid[VP_UUID_LEN];
	int pid;		/* the run of the VM it was for */
	int vcpu;		/* VP_MSG_EMULATOR: the emulator */
	int home;
	enum vp_reason reason;
	struct vp_cpuset set;
};

/* One whole answer of the worker, as libvirt_next() hands it out. */
enum vp_lv_answer_kind {
	VP_LV_ANS_INVENTORY,	/* a REFRESH: the snapshot of every domain */
	VP_LV_ANS_POLICIES,	/* a REREAD: the policies of some */
	VP_LV_ANS_PINS,		/* an APPLY's results, one per pin */
	VP_LV_ANS_POLICY_WRITE,	/* a policy write's result */
};
struct vp_lv_answer {
	enum vp_lv_answer_kind kind;
	uint32_t seq;
	const struct vp_snapshot *snap;		/* INVENTORY, POLICIES */
	bool event;				/* an event round asked it */
	/* PINS, POLICY_WRITE: @nres struct vp_msg_result, unaligned */
	const unsigned char *res;
	uint32_t nres;
	const struct vp_lv_pin *pin;		/* PINS: the batch sent */
	int npins;
	uint64_t apply_ns;			/* PINS: when it was sent */
};

struct vp_libvirt {
	struct vp_virt_worker w;
	bool up;		/* the worker started and not stopped */
	int fd;			/* the loop's end, when up */
	uint32_t seq;		/* the last request's */
	struct vp_lv_pending req[VP_LV_PENDING_MAX];
	int nreq;
	unsigned char *buf;	/* one datagram, VP_MSG_MAX bytes */
	/* the connection, as the worker's last STATE said */
	bool connected;
	uint32_t opens;
	/* the read outstanding, if any */
	uint32_t read_seq;		/* 0: none */
	bool read_event;		/* an event round asked it */
	uint64_t read_event_ns;		/* the oldest event it answers */
	uint64_t read_sent_ns;
	int read_err;			/* the snapshot's own, 0 */
	uint32_t done_seq;		/* the last read that ended */
	int done_err;			/* and its result */
	struct vp_snapshot snap;	/* being built, or handed out */
	bool snap_out;			/* handed out: freed at the next */
	uint64_t snapshot_ns;		/* the last whole one, 0 none */
	/* the apply outstanding, if any */
	uint32_t apply_seq;		/* 0: none */
	uint64_t apply_ns;
	struct vp_lv_pin pin[VP_MSG_PINS_MAX];
	int npins;
	/* a stall, said once when it starts and once when it ends */
	bool stalled;
	uint64_t stall_ns;		/* the stalled request's send time */
	unsigned long stalls, bad_messages, late_answers;
	uint64_t stop_sent_ns;		/* STOP sent, 0 not */
	bool bye;			/* the worker said BYE, or is gone */
	bool abandoned;			/* stopped without BYE: not joined */
};

/* What answers_take() took in (a mask). */
#define VP_LV_GOT_INVENTORY	1u	/* a snapshot swapped in */
#define VP_LV_GOT_EVENT		2u	/* ... that an event round asked */
#define VP_LV_GOT_PINS		4u	/* an APPLY answered */
#define VP_LV_GOT_POLICIES	8u	/* a REREAD answered */
/* Starts the worker (once); -errno, logged by the caller. */
int libvirt_start(struct vp_daemon *d) VP_MUST_CHECK;
/*
 * Asks the worker to stop and waits for its BYE at most @wait_ms (a
 * worker stuck in libvirt cannot be joined: then it is left behind);
 * frees what the loop's side holds.
 */
void libvirt_stop(struct vp_daemon *d, unsigned int wait_ms);
/* Connected, as the worker last said and libvirt has not said lost. */
bool libvirt_connected(const struct vp_daemon *d);
/* A read (REFRESH or REREAD) is outstanding. */
bool libvirt_reading(const struct vp_daemon *d);
/* An APPLY is outstanding. */
bool libvirt_applying(const struct vp_daemon *d);
/*
 * Sends a REFRESH (unless a read is outstanding: the dirty flag then
 * brings one when it ends); @event: an event round asked, which the
 * answer's round counts and times.  0 sent, -EBUSY, -EAGAIN, -errno.
 */
int libvirt_refresh(struct vp_daemon *d, bool event);
/* The same for the policies of @n domains (REREAD). */
int libvirt_reread(struct vp_daemon *d, unsigned char uuids[][VP_UUID_LEN],
    int n);
/* Sends d->lv.pin[0..npins) as one APPLY: 0, -EBUSY, -errno. */
int libvirt_apply(struct vp_daemon *d, int npins);
/* Sends a policy write: 0 with its seq in *ret_seq, or -errno. */
int libvirt_policy_write(struct vp_daemon *d, const unsigned char *uuid,
    const char *xml, uint32_t *ret_seq) VP_MUST_CHECK;
/* The tick's: a read when one is due, a stall noticed. */
void libvirt_tick(struct vp_daemon *d, bool full);
/*
 * Takes datagrams off the channel until one completes an answer: 1 with
 * it in *@a (valid until the next call), 0 when none is left.  Requests
 * that failed are counted here and give no answer.
 */
int libvirt_next(struct vp_daemon *d, struct vp_lv_answer *a);
/* Request @seq is sent and not yet answered. */
bool libvirt_pending(const struct vp_daemon *d, uint32_t seq);
/* For status and metrics: "answering", "waiting", "connecting", ... */
const char *libvirt_state_name(const struct vp_daemon *d, uint64_t now);
/* The oldest outstanding request, NULL none. */
const struct vp_lv_pending *libvirt_oldest(const struct vp_daemon *d);
const char *libvirt_kind_name(enum vp_lv_kind k);
void snapshot_free(struct vp_snapshot *s);

#endif /* VP_LIBVIRT_H */
