/*
 * kernelmode.h - the kernel series' SIS_CORE, read from sched/features
 * (kernelmode.c): the kernel mode when our BPF scheduler is not loaded.
 */
#ifndef VP_KERNELMODE_H
#define VP_KERNELMODE_H

#include <stdbool.h>
#include <stddef.h>

#include "host/schedfeat.h"

struct vp_daemon;

/* Reads it under d->debugfs_root; if it is off, says once how to turn it on. */
void kernelmode_init(struct vp_daemon *d);
/* Reload: reads it again; true (and the status dirty) if it changed,
 * *was what it was before.  The caller logs, then advises. */
bool kernelmode_reread(struct vp_daemon *d, enum vp_sis_core *was);
/* Once per daemon, if SIS_CORE is off: how to turn it on. */
void kernelmode_advise(struct vp_daemon *d);
/* "kernel-patch" (SIS_CORE named, on or off) or "userspace". */
const char *kernelmode_label(const struct vp_daemon *d);
/* "SIS_CORE off", "SIS_CORE unknown (PATH: why)": for the log. */
void kernelmode_describe(const struct vp_daemon *d, char *buf, size_t len);

#endif /* VP_KERNELMODE_H */
