/*
 * hotplug.h - a vCPU hot-plugged by `setvcpus --live` placed at once, on
 * the kernel's process events (libvirt sends no event for it).
 */
#ifndef VP_HOTPLUG_H
#define VP_HOTPLUG_H

#include <stdbool.h>
#include <stdint.h>

struct vp_daemon;

/* hot-plugged vCPUs heard from process events (hotplug.c) */
#define VP_HP_FOLLOW_MAX	8
struct vp_hp_follow {
	int pid, vcpu;		/* QEMU's tgid, the vCPU its thread names */
	uint64_t event_ns;	/* receipt of the rename */
	uint64_t until;		/* followed until, then left to the ticks */
};
struct vp_hotplug {
	int fd;			/* proc connector; -1: periodic refresh only */
	bool disabled;		/* --no-proc-events */
	int open_error;		/* why it could not be opened, -errno */
	unsigned long seen;	/* process events read */
	unsigned long used;	/* vCPU renames in a known VM's QEMU */
	unsigned long overruns;	/* the kernel dropped events */
	unsigned long follow_rounds, follow_expired;
	struct vp_hp_follow follow[VP_HP_FOLLOW_MAX];
	int nfollow;
	uint64_t follow_next;	/* the next follow-up round */
	/* the QEMUs the kernel's filter lets through, sorted; -1: any */
	int *tgids;
	int ntgids;
	unsigned long filter_updates, filter_errors;
};

/* Opens the connector, or logs once that the periodic refresh will do. */
void hotplug_open(struct vp_daemon *d);
void hotplug_close(struct vp_daemon *d);
/* Reads the events; true when an event round is due (the VM is dirty). */
bool hotplug_take(struct vp_daemon *d);
/* After an event round that started at @round_ns: who is still followed. */
void hotplug_after_round(struct vp_daemon *d, uint64_t round_ns);
/* @until, or earlier when a follow-up round is due before. */
uint64_t hotplug_deadline(const struct vp_daemon *d, uint64_t until);
/* After a refresh: the kernel's filter narrowed to the known QEMUs. */
void hotplug_track(struct vp_daemon *d);

#endif /* VP_HOTPLUG_H */
