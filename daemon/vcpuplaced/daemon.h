/*
 * daemon.h - vcpuplaced: the state of the service, one struct passed by
 * pointer.  Each part of it is owned by one file of daemon/vcpuplaced/,
 * which declares the part's type and its functions in a header of its
 * own (inventory.h, libvirt.h, schedext.h, ...); this header puts the
 * parts together and includes them all.  The adapters it drives
 * (daemon/host/) have headers and state of their own and never see
 * this struct.
 *
 * The tick reads like the design (main.c's tick()): libvirt_tick() asks
 * the libvirt worker for a refresh when libvirt said the inventory
 * changed, or every FULL_REFRESH_TICKS; server_run_queued();
 * load_update(); unless paused, tick_plan() and actuate_apply() (which
 * sends the pins to the worker); schedext_tick(); privileges_settle();
 * status_write() when something changed, and once a second.  A libvirt
 * event asks for a refresh between ticks (main.c's event_round()), and
 * the worker's answers run a shorter round when they come (main.c's
 * answers_round(): inventory_adopt(), hotplug_track(),
 * tick_plan_urgent(), actuate_apply()).  The loop never waits on
 * libvirt (doc/libvirt-worker.md).
 */
#ifndef DAEMON_H
#define DAEMON_H

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "host/clock.h"
#include "host/log.h"
#include "host/schedfeat.h"
#include "host/virt.h"
#include "host/domain.h"
#include "host/virt_msg.h"
#include "host/virt_worker.h"
#include "host/policy_xml.h"
#include "host/choose.h"
#include "host/isolation.h"
#include "host/peer.h"
#include "scx/scx.h"
#include "scx/scxfeed.h"
#include "core/vcpuplace.h"
#include "vcpuplaced/inventory.h"
#include "vcpuplaced/request.h"
#include "vcpuplaced/metrics.h"
#include "vcpuplaced/hotplug.h"
#include "vcpuplaced/load.h"
#include "vcpuplaced/server.h"
#include "vcpuplaced/schedext.h"
#include "vcpuplaced/libvirt.h"
#include "vcpuplaced/answers.h"
#include "vcpuplaced/kernelmode.h"
#include "vcpuplaced/tick.h"
#include "vcpuplaced/actuate.h"
#include "vcpuplaced/status.h"
#include "vcpuplaced/explain.h"
#include "vcpuplaced/command.h"
#include "vcpuplaced/reload.h"
#include "vcpuplaced/privileges.h"
/* VP_VERSION: debian/changelog's, through the Makefile */
#include "vp_paths.h"

struct vp_daemon {
	/* options */
	const char *uri;
	const char *policy_dir;
	const char *status_file;
	const char *topology_file;
	unsigned int tick_ms;
	bool dry_run;
	/* --trust-metadata: VM metadata may ask for anything (a lab) */
	bool trust_metadata;
	const char *reserve_list;	/* --reserve, reparsed on reload */
	struct vp_cpuset reserved;
	atomic_bool reload_asked;	/* SIGHUP or the "reload" command */
	bool paused;			/* "pause": no plan, no pin */
	char hostname[256];
	uint64_t started_ns;

	/* model and policies */
	struct vp_topo *topo;
	struct vp_profiles *profiles;
	struct vp_features feat;
	bool core_sched_supported;
	/* the kernel series' SIS_CORE (kernelmode.c), reread on reload */
	const char *debugfs_root;	/* --debugfs, NULL: SCHEDFEAT_ROOT */
	enum vp_sis_core sis_core;
	int sis_core_err;		/* why UNKNOWN: -errno; else 0 */
	bool sis_core_told;		/* the notice how to turn it on */
	struct vp_schedext scx;		/* our BPF scheduler, if loaded */

	/* libvirt */
	struct vp_virt virt;		/* the worker's; the loop reads only
					 * the event flags (libvirt.c) */
	struct vp_libvirt lv;		/* the worker, from the loop's side */
	bool ever_connected;
	int long_names;		/* domains skipped by the last refresh */
	uint64_t reconnect_at_ns;
	unsigned int backoff_ms;
	uint64_t event_ns;		/* oldest event the last refresh took */

	/* inventory */
	struct vp_vm *vm;
	int nvms;
	unsigned long inventory_gen;	/* bumped by every refresh */
	unsigned long status_gen;	/* inventory the status file shows */
	bool status_dirty;		/* a pin, an error: write it now */

	/* the last plan, reused while its inputs are unchanged */
	struct vp_plan *plan;
	int *plan_idx;			/* plan VM i is d->vm[plan_idx[i]],
					 * -1 once gone (remapped by every
					 * inventory refresh) */
	int plan_n;
	unsigned long plan_gen;
	struct vp_cpuset plan_busy;
	int plan_error;			/* the last round's, 0 or -errno */

	/* host load */
	struct vp_load load;
	struct vp_cpuset host_busy;	/* busy with work not our vCPUs */

	struct vp_counters c;
	struct vp_ctl ctl;
	sigset_t serve_sigmask;		/* while serving: the loop's signals
					 * unblocked (main.c) */
	bool notify;			/* under systemd: sd_notify works */
	bool ready_told;		/* READY=1 sent (main.c) */
	uint64_t watchdog_usec;		/* 0: no watchdog */
	uint64_t watchdog_last_ns;
	uint64_t event_quiet_until;	/* no event round before (main.c) */
	bool event_poll;		/* server_serve() returns on an event */
	struct vp_hotplug hp;		/* process events (hotplug.c) */
	struct vp_privileges privs;	/* capabilities (privileges.c) */
};

#endif /* DAEMON_H */
