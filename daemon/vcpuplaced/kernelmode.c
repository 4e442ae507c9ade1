/*
 * kernelmode.c - which kernel places the vCPUs' wake-ups, as far as the
 * daemon can tell without our BPF scheduler (schedext.c): "kernel-patch"
 * when sched/features names SIS_CORE (the series' patch 0003, on or
 * off), else "userspace" (affinity only, the stock wake path inside it).
 *
 * The daemon never writes sched/features: turning SIS_CORE on is the
 * operator's call, and the notice that says how is logged once.  The
 * file is reread on reload, so the operator's change shows up then.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "vcpuplaced/daemon.h"

const char *
kernelmode_label(const struct vp_daemon *d)
{
	return d->sis_core == VP_SIS_CORE_ON ||
	    d->sis_core == VP_SIS_CORE_OFF ? "kernel-patch" : "userspace";
}

void
kernelmode_describe(const struct vp_daemon *d, char *buf, size_t len)
{
	if (d->sis_core_err)
		snprintf(buf, len, "SIS_CORE unknown (%s/sched/features: %s)",
		    d->debugfs_root ? d->debugfs_root : SCHEDFEAT_ROOT,
		    strerror(-d->sis_core_err));
	else
		snprintf(buf, len, "SIS_CORE %s",
		    schedfeat_sis_core_name(d->sis_core));
}

/* Reads the file into d->sis_core; an unreadable one is UNKNOWN. */
static void
read_sis_core(struct vp_daemon *d)
{
	enum vp_sis_core s;
	int r = schedfeat_read(d->debugfs_root, &s);

	d->sis_core = r < 0 ? VP_SIS_CORE_UNKNOWN : s;
	d->sis_core_err = r < 0 ? r : 0;
}

/* Once per daemon: a kernel with the series, the feature left off. */
void
kernelmode_advise(struct vp_daemon *d)
{
	if (d->sis_core != VP_SIS_CORE_OFF || d->sis_core_told)
		return;
	d->sis_core_told = true;
	log_msg(LOG_NOTICE, "SIS_CORE is off (the kernel series' default); "
	    "to turn it on: echo SIS_CORE > %s/sched/features, then reload",
	    d->debugfs_root ? d->debugfs_root : SCHEDFEAT_ROOT);
}

void
kernelmode_init(struct vp_daemon *d)
{
	char what[PATH_MAX + 128];

	read_sis_core(d);
	kernelmode_describe(d, what, sizeof(what));
	log_msg(LOG_DEBUG, "sched/features: %s", what);
	kernelmode_advise(d);
}

/*
 * The caller says what changed (reload.c, which knows the whole mode,
 * the BPF scheduler's included) and then advises.
 */
bool
kernelmode_reread(struct vp_daemon *d, enum vp_sis_core *was)
{
	int was_err = d->sis_core_err;

	*was = d->sis_core;
	read_sis_core(d);
	if (d->sis_core == *was && d->sis_core_err == was_err)
		return false;
	d->status_dirty = true;
	return true;
}
