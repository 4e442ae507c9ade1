/*
 * inventory.h - the VMs the daemon manages and their vCPUs, rebuilt from
 * libvirt's live state by inventory.c (the model every other file reads).
 */
#ifndef VP_INVENTORY_H
#define VP_INVENTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/vcpuplace.h"
#include "host/policy_xml.h"
#include "scx/scx.h"
#include "host/virt.h"

struct vp_daemon;
struct vp_snapshot;

/* One vCPU of a managed VM, as the daemon tracks it between ticks. */
struct vp_vcpu {
	int tid;			/* QEMU's "CPU N/..." thread, 0 unknown */
	uint64_t tid_start;		/* its start time (procstat.h), 0 unknown */
	struct vp_cpuset affinity;	/* live, as libvirt reported it */
	int current;			/* PU it last ran on, or VP_PU_NONE */
	int home;			/* the plan's home PU */
	int placed_home;		/* home of the applied affinity */
	struct vp_cpuset planned;	/* what the plan wants */
	int pending_ticks;		/* ticks the plan has differed */
	bool move;			/* tick_plan() wants planned applied */
	bool inflight;			/* a pin sent, not yet answered */
	uint64_t last_move_ns;		/* monotonic, for the cooldown */
	enum vp_reason reason;		/* why its last move */
	uint64_t run_ns, wait_ns;	/* schedstat, cumulative */
	uint64_t delay_ns;		/* run-queue wait over the last tick */
	double util;			/* share of the last tick it ran */

	/* with vcpuplace's BPF scheduler (schedext.c) */
	struct vp_scx_vcpu_stats scx;	/* cumulative, when scx_known */
	bool scx_known;
};

struct vp_vm {
	char name[256];
	/* the VM's handle on the connection (host/domain.h takes it) */
	unsigned char uuid[VP_UUID_LEN];
	char uuid_str[VP_UUID_STRING_LEN];	/* libvirt's text of it */
	int pid;			/* QEMU process, 0 unknown */
	char profile[VP_PROFILE_NAME_MAX];
	struct vp_policy policy;
	bool policy_known;		/* has a valid policy been read */
	char error[256];		/* last metadata error, "" none */
	/*
	 * Why the host refused what the VM asked for ("" none): its own
	 * metadata named what only the host grants (VP_REFUSED_TENANT), or
	 * its grant broke the budget of exclusive cores (VP_REFUSED_BUDGET).
	 * Either way it is placed as the host default.  Logged and counted
	 * once per change of the text.
	 */
	char refused[256];
	int refused_cause;		/* VP_REFUSED_* */
	bool granted;			/* its policy is a grants.xml grant */
	/*
	 * What chose its profile, by the precedence of vcpuplace-policy(5):
	 * a grant, its own metadata, the first matching host rule (rule[]
	 * says which, "NAME (FILE:LINE)"), else the host default.
	 */
	int source;			/* VP_SOURCE_* */
	char rule[384];
	bool nova_bad;			/* its Nova metadata was unreadable */
	bool seen;			/* found by this refresh */
	bool replace;			/* policy changed: bypass cooldown */
	int nvcpus;
	struct vp_vcpu *vcpu;		/* [nvcpus] */
	struct vp_cpuset emulator;	/* last emulator pin we applied */
	bool emulator_inflight;		/* its pin sent, not yet answered */
	bool cookie_done;		/* core-sched cookie given to its pid */
	int thread_problem;		/* VP_THREADS_*, logged when it changes */
	int thread_problem_seen;	/* what the last refresh found */
	/* a CPU quota (cpu.max) in its live <cputune>, host/cputune.h;
	 * read only while sched_ext is an option (not --sched-ext=off) */
	bool quota;
	char quota_words[96];		/* cputune_words() */
};

/* Has a valid policy that asks for placement (not mode off). */
static inline bool vm_managed(const struct vp_vm *vm)
{
	return vm->policy_known && vm->policy.mode != VP_MODE_OFF;
}

/* Why the host refused what a VM asked for (vp_vm.refused_cause). */
enum { VP_REFUSED_NONE, VP_REFUSED_TENANT, VP_REFUSED_BUDGET,
	VP_REFUSED_COUNT };

/*
 * Rebuilds the VM list from the snapshot @s (the worker's read, taken
 * as it is: libvirt.c frees it), carrying over what each VM's entry
 * knew.
 */
void inventory_adopt(struct vp_daemon *d, const struct vp_snapshot *s);
/*
 * Takes again the policy of the VMs whose metadata changed (@s holds
 * their UUIDs and policy texts), and nothing else of them or of any
 * other VM; a UUID not in the list (a VM started since) marks the whole
 * inventory dirty instead.  Returns how many known VMs were read.
 */
int inventory_adopt_policies(struct vp_daemon *d,
    const struct vp_snapshot *s);
/*
 * Records that the host refuses what @vm asked for, for @cause
 * (VP_REFUSED_*), because @why; "" clears it.  Logs and counts only when
 * @why changes.
 */
void inventory_note_refused(struct vp_daemon *d, struct vp_vm *vm,
    int cause, const char *why);
void inventory_free(struct vp_daemon *d);
/* The running VM named @name, or NULL. */
struct vp_vm *inventory_vm_by_name(const struct vp_daemon *d,
    const char *name);
/* The running VM of @uuid, or NULL. */
struct vp_vm *inventory_vm_by_uuid(const struct vp_daemon *d,
    const unsigned char *uuid);

#endif /* VP_INVENTORY_H */
