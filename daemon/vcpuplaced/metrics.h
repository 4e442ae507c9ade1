/*
 * metrics.h - the daemon's counters and histograms, and their rendering in
 * the Prometheus text exposition format 0.0.4 (metrics.c).  Every file
 * counts into struct vp_counters; only metrics.c and status.c read it.
 */
#ifndef VP_METRICS_H
#define VP_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/vcpuplace.h"
#include "host/peer.h"
#include "vcpuplaced/inventory.h"
#include "vcpuplaced/request.h"

struct vp_daemon;

/*
 * A Prometheus histogram of durations: the count in each bucket (not
 * cumulative), their sum and number.  Its bucket bounds are in metrics.c
 * (plan duration 12, placement latency 13).
 */
#define VP_HIST_BUCKETS_MAX	13
struct vp_hist {
	unsigned long bucket[VP_HIST_BUCKETS_MAX];
	uint64_t ns_sum;
	unsigned long count;
};

struct vp_counters {
	unsigned long ticks;
	unsigned long refused[VP_REFUSED_COUNT];	/* by cause */
	unsigned long reconnects;
	unsigned long libvirt_errors;
	unsigned long invalid_metadata;
	unsigned long thread_errors;	/* VMs whose vCPU threads went unknown */
	unsigned long name_errors;	/* domains named longer than we hold */
	unsigned long moves[VP_REASON_COUNT];
	unsigned long pins_failed;
	unsigned long vanished;		/* VM gone between plan and pin */
	unsigned long plan_probes;
	unsigned long plan_failures;	/* rounds that kept every placement */
	uint64_t plan_ns_last;
	uint64_t plan_ns_ring[256];	/* last 256 ticks, for p50/p99 */
	struct vp_hist plan_hist;
	unsigned long ctl_requests[VP_CMD_COUNT];
	unsigned long ctl_rejected[VP_REJ_COUNT];
	/* the VP_REJ_PERSON_LIMIT ones, by what told the person */
	unsigned long ctl_person_limit[VP_PEER_KIND_COUNT];
	unsigned long reloads, reload_errors;
	bool reload_failed;		/* the last reload kept old state */
	unsigned long event_rounds;	/* rounds run on a libvirt event */
	unsigned long refreshes;	/* whole-inventory reads */
	unsigned long policy_rereads;	/* one VM's, on its metadata event */
	struct vp_hist lat_hist;		/* event to pins, per VM */
};

/* Counts one plan duration into the histogram. */
void metrics_observe_plan(struct vp_daemon *d, uint64_t ns);
/* Counts one event-to-pins latency of one VM into its histogram. */
void metrics_observe_latency(struct vp_daemon *d, uint64_t ns);
/* Writes every metric to @f; -errno on a write error. */
int metrics_write(const struct vp_daemon *d, FILE *f);

#endif /* VP_METRICS_H */
