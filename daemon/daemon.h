/*
 * daemon.h - vcpuplaced: the state of the daemon (one struct, passed by
 * pointer) and the adapters around the pure core, grouped by file.
 *
 * The tick reads like the design: sampler_read(); virt_refresh();
 * tick_plan(); actuate_apply(); status_write().
 */
#ifndef DAEMON_H
#define DAEMON_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include <libvirt/libvirt.h>

#include "policy_xml.h"
#include "vcpuplace.h"

/* One vCPU of a managed VM, as the daemon tracks it between ticks. */
struct vp_vcpu {
	int tid;			/* QEMU's "CPU N/..." thread, 0 unknown */
	struct vp_cpuset affinity;	/* live, as libvirt reported it */
	int current;			/* PU it last ran on, or VP_PU_NONE */
	int home;			/* the plan's home PU */
	int placed_home;		/* home of the applied affinity */
	struct vp_cpuset planned;	/* what the plan wants */
	int pending_ticks;		/* ticks the plan has differed */
	bool move;			/* tick_plan() wants planned applied */
	uint64_t last_move_ns;		/* monotonic, for the cooldown */
	enum vp_reason reason;		/* why its last move */
	uint64_t run_ns, wait_ns;	/* schedstat, cumulative */
	uint64_t delay_ns;		/* run-queue wait over the last tick */
};

struct vp_vm {
	char name[256];
	unsigned char uuid[VIR_UUID_BUFLEN];
	virDomainPtr dom;		/* owned reference */
	int pid;			/* QEMU process, 0 unknown */
	char profile[64];
	struct vp_policy policy;
	bool policy_known;		/* has a valid policy been read */
	char error[256];		/* last metadata error, "" none */
	bool seen;			/* found by this refresh */
	bool replace;			/* policy changed: bypass cooldown */
	int nvcpus;
	struct vp_vcpu *vcpu;		/* [nvcpus] */
	struct vp_cpuset emulator;	/* last emulator pin we applied */
	bool cookie_done;		/* core-sched cookie given to its pid */
};

struct vp_counters {
	unsigned long ticks;
	unsigned long reconnects;
	unsigned long libvirt_errors;
	unsigned long invalid_metadata;
	unsigned long moves[VP_REASON_COUNT];
	unsigned long pins_failed;
	unsigned long vanished;		/* VM gone between plan and pin */
	unsigned long plan_probes;
	uint64_t plan_ns_last;
	uint64_t plan_ns_ring[256];	/* last 256 ticks, for p50/p99 */
};

struct vp_daemon {
	/* options */
	const char *uri;
	const char *policy_dir;
	const char *status_file;
	const char *topology_file;
	unsigned int tick_ms;
	bool dry_run;
	struct vp_cpuset reserved;

	/* model and policies */
	struct vp_topo *topo;
	struct vp_profiles *profiles;
	struct vp_features feat;
	bool core_sched_supported;

	/* libvirt */
	virConnectPtr conn;
	atomic_bool conn_lost;		/* set by libvirt's close callback */
	atomic_bool dirty;		/* set by domain events */
	int cb_lifecycle, cb_metadata;
	bool ever_connected;
	uint64_t reconnect_at_ns;
	unsigned int backoff_ms;

	/* inventory */
	struct vp_vm *vm;
	int nvms;
	unsigned long inventory_gen;	/* bumped by every refresh */
	unsigned long status_gen;	/* inventory the status file shows */
	bool status_dirty;		/* a pin, an error: write it now */

	/* the last plan, reused while its inputs are unchanged */
	struct vp_plan *plan;
	int *plan_idx;			/* plan VM i is d->vm[plan_idx[i]] */
	int plan_n;
	unsigned long plan_gen;
	struct vp_cpuset plan_busy;

	/* sampler */
	uint64_t *cpu_busy_prev, *cpu_total_prev;	/* [os_limit] */
	double *cpu_util;		/* [npus], 0..1 over the last tick */
	struct vp_cpuset host_busy;	/* busy with work not our vCPUs */

	struct vp_counters c;
};

/* main.c */
uint64_t now_ns(void);
void log_msg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* sampler.c: /proc/stat and /proc/<tid>/schedstat */
int sampler_init(struct vp_daemon *d) VP_MUST_CHECK;
void sampler_free(struct vp_daemon *d);
/* Reads per-PU busy time and per-vCPU run/wait time, fills host_busy. */
int sampler_read(struct vp_daemon *d);

/* virt.c: libvirt inventory, events, reconnect */
int virt_events_start(void) VP_MUST_CHECK;
/* Connects if not connected and the backoff allows; 0 when connected. */
int virt_ensure(struct vp_daemon *d);
void virt_disconnect(struct vp_daemon *d);
/* Rebuilds the VM list from libvirt's live state; -errno on failure. */
int virt_refresh(struct vp_daemon *d);
void virt_free_vms(struct vp_daemon *d);

/* tick.c: the planner with hysteresis, cooldown and a move budget */
void tick_plan(struct vp_daemon *d);
void tick_free(struct vp_daemon *d);

/* actuate.c: live pins through libvirt, deltas only */
enum vp_apply {
	VP_APPLY_APPLIED, VP_APPLY_UNCHANGED, VP_APPLY_RETRY, VP_APPLY_GONE,
	VP_APPLY_REFUSED,
};
/* Applies what tick_plan() decided; returns the pins made. */
int actuate_apply(struct vp_daemon *d);
bool actuate_core_sched_probe(void);

/* status.c */
int status_write(const struct vp_daemon *d);

#endif /* DAEMON_H */
