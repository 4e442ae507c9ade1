/* privileges.c - see privileges.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "vcpuplaced/daemon.h"
#include "vcpuplaced/privileges.h"

void
privileges_wanted(const struct vp_daemon *d, bool want[VP_PRIV_COUNT])
{
	bool bpf = schedext_needs_bpf(d);

	memset(want, 0, VP_PRIV_COUNT * sizeof(*want));
	/* sched_setattr(SCHED_EXT) and back on another user's threads, and
	 * the scheduler's load, attach and map updates */
	want[VP_PRIV_SYS_NICE] = bpf;
	want[VP_PRIV_BPF] = bpf;
	want[VP_PRIV_PERFMON] = bpf;
	want[VP_PRIV_SYS_ADMIN] = bpf;
	/* prctl(PR_SCHED_CORE_CREATE) asks ptrace_may_access() of QEMU */
	want[VP_PRIV_SYS_PTRACE] = d->core_sched_supported && !d->dry_run;
}

/* "CAP_BPF CAP_PERFMON" into @buf, or "none". */
static void
names(const bool set[VP_PRIV_COUNT], char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < VP_PRIV_COUNT; i++)
		if (set[i] && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
			    off ? " " : "", privs_name((enum vp_priv)i));
	if (!off)
		snprintf(buf, len, "none");
}

void
privileges_settle(struct vp_daemon *d)
{
	struct vp_privileges *p = &d->privs;
	bool want[VP_PRIV_COUNT];
	char kept[160];
	int r;

	/* libvirt's event thread drops its own (virt.c); said if it could not */
	if ((r = virt_events_privs()) < 0 && !p->thread_told) {
		p->thread_told = true;
		p->errors++;
		log_msg(LOG_WARNING, "capabilities: libvirt's event thread "
		    "could not drop its own: %s (counted in "
		    "vcpuplace_capability_drop_errors_total)", strerror(-r));
	}
	/* and so does the libvirt worker (host/virt_worker.c) */
	if (d->lv.up && (r = atomic_load(&d->lv.w.privs_err)) < 0 &&
	    !p->worker_told) {
		p->worker_told = true;
		p->errors++;
		log_msg(LOG_WARNING, "capabilities: the libvirt worker could "
		    "not drop its own: %s (counted in "
		    "vcpuplace_capability_drop_errors_total)", strerror(-r));
	}
	privileges_wanted(d, want);
	if (p->settled && !memcmp(want, p->want, sizeof(want)))
		return;
	if ((r = privs_keep_only(want)) < 0) {
		p->errors++;
		if (p->err != r)
			log_msg(LOG_WARNING, "capabilities: cannot drop those "
			    "no longer used: %s (counted in "
			    "vcpuplace_capability_drop_errors_total)",
			    strerror(-r));
		p->err = r;
		return;
	}
	/* the call too, where it can no longer be of use */
	if (!want[VP_PRIV_BPF] && !p->bpf_denied) {
		if ((r = privs_deny_bpf()) < 0) {
			p->errors++;
			log_msg(LOG_WARNING, "capabilities: cannot filter bpf() "
			    "out: %s (counted in "
			    "vcpuplace_capability_drop_errors_total)",
			    strerror(-r));
		}
		p->bpf_denied = r == 0;
	}
	names(want, kept, sizeof(kept));
	log_msg(LOG_INFO, "capabilities: keeping %s (%s); the others "
	    "dropped%s", kept, schedext_needs_bpf(d) ? "sched_ext may run "
	    "the BPF scheduler" : "no BPF scheduler this run: pins go "
	    "through libvirt", p->bpf_denied ? ", bpf() filtered out" : "");
	memcpy(p->want, want, sizeof(want));
	p->settled = true;
	p->err = 0;
}
