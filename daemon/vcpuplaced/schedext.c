/*
 * schedext.c - the daemon owns vcpuplace's sched_ext scheduler
 * (daemon/scx/): whether to load it at start, the tables it reads, kept
 * current each tick, its counters, and what happens when the kernel
 * ejects it.  The loader is scx/scx.h; the tables are
 * scx/scxfeed.c.
 *
 * Three kernel modes: sched-ext (our BPF scheduler decides every
 * wake-up), kernel-patch (kernelmode.c: the kernel series' SIS_CORE in
 * sched/features, on or off) and userspace (affinity only).  sched-ext, when it can be had, is
 * preferred; the others stay detected underneath, so an ejection falls
 * back to whatever the kernel offers without it.
 *
 * Rules: `auto` never displaces another BPF scheduler and never stops
 * the daemon; `on` makes every reason not to load a fatal start error;
 * an ejected scheduler is never reloaded (a scheduler the kernel threw
 * out once, for a stall or a BPF error, would be thrown out again: no
 * loop), but one the kernel unloaded asking for a restart (a CPU went on-
 * or offline) is loaded again at once: that is no fault of the
 * scheduler's.  The normal build's loader is a stub (scx_supported() says
 * -EOPNOTSUPP), so all of this runs, and says why it did not load, on
 * every host without an #ifdef.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "vcpuplaced/daemon.h"

static const char *const opt_names[] = {
	[VP_SCX_OPT_AUTO] = "auto", [VP_SCX_OPT_ON] = "on",
	[VP_SCX_OPT_OFF] = "off",
};

static const char *const state_names[VP_SCX_STATE_COUNT] = {
	[VP_SCX_OFF] = "off", [VP_SCX_UNAVAILABLE] = "unavailable",
	[VP_SCX_DECLINED] = "declined", [VP_SCX_LOADED] = "loaded",
	[VP_SCX_EJECTED] = "ejected",
};

static const char *const cause_names[VP_SCX_CAUSE_COUNT] = {
	[VP_SCX_CAUSE_NONE] = "none", [VP_SCX_CAUSE_OPTION] = "option",
	[VP_SCX_CAUSE_DRY_RUN] = "dry-run",
	[VP_SCX_CAUSE_NO_SCHED_EXT] = "no-sched-ext",
	[VP_SCX_CAUSE_NO_BTF] = "no-btf",
	[VP_SCX_CAUSE_ISOLCPUS] = "isolcpus",
	[VP_SCX_CAUSE_NOT_BUILT] = "not-built",
	[VP_SCX_CAUSE_OTHER] = "other-scheduler",
	[VP_SCX_CAUSE_TOPOLOGY] = "topology",
	[VP_SCX_CAUSE_LOAD_FAILED] = "load-failed",
	[VP_SCX_CAUSE_EJECTED] = "ejected",
	[VP_SCX_CAUSE_CPU_QUOTA] = "cpu-quota",
};

static const char *const op_names[VP_SCX_OP_COUNT] = {
	[VP_SCX_OP_VCPU_SET] = "writing the vCPU entry",
	[VP_SCX_OP_VCPU_DEL] = "deleting the vCPU entry",
	[VP_SCX_OP_EXT_ON] = "moving the thread into SCHED_EXT",
	[VP_SCX_OP_EXT_OFF] = "moving the thread back to SCHED_OTHER",
	[VP_SCX_OP_STATS] = "reading counters",
	[VP_SCX_OP_TABLES] = "writing the topology tables",
};

const struct vp_scx_loader schedext_scx_loader = {
	.supported = scx_supported, .loaded_ops = scx_loaded_ops,
	.state_read = scx_state_read, .load = scx_load, .features_set = scx_features_set,
	.pu_set = scx_pu_set, .dom_set = scx_dom_set,
	.vcpu_set = scx_vcpu_set, .vcpu_del = scx_vcpu_del,
	.vcpu_stats_read = scx_vcpu_stats_read, .stats_read = scx_stats_read,
	.exited = scx_exited, .exit_read = scx_exit_read,
	.exit_dump = scx_exit_dump, .free = scx_free,
	.task_set_ext = scx_task_set_ext, .halt_probes = scx_halt_probes,
	.cgroup_weights = scx_cgroup_weights,
};

/* The loader @s uses: scx/scx.h's unless a test gave a fake. */
#define LD(s) ((s)->ld ? (s)->ld : &schedext_scx_loader)

int
schedext_parse_opt(const char *arg, enum vp_scx_opt *ret)
{
	size_t o;

	for (o = 0; o < sizeof(opt_names) / sizeof(opt_names[0]); o++)
		if (!strcmp(arg, opt_names[o])) {
			*ret = (enum vp_scx_opt)o;
			return 0;
		}
	return -EINVAL;
}

const char *
schedext_opt_name(enum vp_scx_opt o)
{
	return (unsigned int)o <= VP_SCX_OPT_OFF ? opt_names[o] : "?";
}

const char *
schedext_state_name(enum vp_scx_state s)
{
	return (unsigned int)s < VP_SCX_STATE_COUNT ? state_names[s] : "?";
}

const char *
schedext_cause_name(enum vp_scx_cause c)
{
	return (unsigned int)c < VP_SCX_CAUSE_COUNT ? cause_names[c] : "?";
}

const char *
schedext_halt_probes(const struct vp_schedext *s)
{
	return s->state == VP_SCX_LOADED && s->sched && LD(s)->halt_probes ?
	    LD(s)->halt_probes(s->sched) : NULL;
}

const char *
schedext_mode_label(const struct vp_daemon *d)
{
	return d->scx.state == VP_SCX_LOADED ? "sched-ext" :
	    kernelmode_label(d);
}

/* Sets @v's outcome; fatal is the caller's to add. */
static void
verdict(struct vp_scx_verdict *v, enum vp_scx_state state,
    enum vp_scx_cause cause, const char *fmt, const char *arg)
{
	v->state = state;
	v->cause = cause;
	snprintf(v->why, sizeof(v->why), fmt, arg);
}

void
schedext_decide(const struct vp_scx_probe *p, struct vp_scx_verdict *ret)
{
	struct vp_scx_verdict v = { .state = VP_SCX_LOADED };

	if (p->opt == VP_SCX_OPT_OFF)
		verdict(&v, VP_SCX_OFF, VP_SCX_CAUSE_OPTION, "%s",
		    "--sched-ext=off");
	else if (p->supported == -ENOENT)
		verdict(&v, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_NO_SCHED_EXT, "%s",
		    "this kernel has no sched_ext (CONFIG_SCHED_CLASS_EXT: "
		    "/sys/kernel/sched_ext is absent)");
	else if (p->supported == -ENODATA)
		verdict(&v, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_NO_BTF, "%s",
		    "this kernel has no BTF (/sys/kernel/btf/vmlinux), which "
		    "a BPF scheduler needs");
	/* the kernel's own refusal goes before this binary's: a build
	 * with the scheduler would be refused the same */
	else if (p->isol == ISOL_BOOT || p->isol == ISOL_DOMAIN)
		verdict(&v, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_ISOLCPUS,
		    "the kernel refuses BPF schedulers under isolcpus= domain "
		    "isolation (%s); isolcpus=nohz,managed_irq,LIST or "
		    "nohz_full=LIST isolate without it",
		    p->isol_why ? p->isol_why : "isolated CPUs");
	else if (p->supported == -EOPNOTSUPP)
		verdict(&v, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_NOT_BUILT, "%s",
		    "this vcpuplaced was built without the BPF scheduler "
		    "(SCX=yes; see daemon/scx/README.md)");
	else if (p->supported < 0)
		verdict(&v, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_LOAD_FAILED,
		    "cannot tell whether the kernel has sched_ext: %s",
		    strerror(-p->supported));
	else if (p->other)
		verdict(&v, VP_SCX_DECLINED, VP_SCX_CAUSE_OTHER, "another BPF "
		    "scheduler, \"%s\", is loaded; vcpuplace does not "
		    "displace it", p->other);
	else if (p->busy)
		verdict(&v, VP_SCX_DECLINED, VP_SCX_CAUSE_OTHER, "sched_ext is "
		    "\"%s\": another BPF scheduler is being loaded or "
		    "unloaded; vcpuplace does not displace it", p->busy);
	else if (p->topo_err)
		verdict(&v, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_TOPOLOGY,
		    "the host does not fit the BPF tables: %s",
		    p->topo_why ? p->topo_why : strerror(-p->topo_err));
	/* on: loaded anyway, with a warning (quota_note()) */
	else if (p->quota_vms && p->opt == VP_SCX_OPT_AUTO &&
	    !scx_quota_enforced())
		verdict(&v, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_CPU_QUOTA,
		    "a VM has a CPU quota (cpu.max), which the BPF scheduler "
		    "does not enforce: it would be lost for every task (%s); "
		    "--sched-ext=on loads it anyway",
		    p->quota_why ? p->quota_why : "a VM");
	else if (p->dry_run)
		verdict(&v, VP_SCX_OFF, VP_SCX_CAUSE_DRY_RUN, "%s", "--dry-run "
		    "changes no scheduling: the BPF scheduler is not loaded");
	else if (p->load_err == -EBUSY)
		/* appeared between the look and the load, gone by the next */
		verdict(&v, VP_SCX_DECLINED, VP_SCX_CAUSE_OTHER, "%s",
		    "another BPF scheduler was loaded meanwhile; vcpuplace "
		    "does not displace it");
	else if (p->load_err == -EINVAL && p->isol == ISOL_PARTITION)
		/* Linux 7.0 before 6ae315d37924 counts cpuset partitions */
		verdict(&v, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_ISOLCPUS,
		    "the kernel refused the BPF scheduler (Invalid argument) "
		    "with CPUs isolated (%s): Linux 7.0 refuses cpuset "
		    "isolated partitions as it does isolcpus=",
		    p->isol_why ? p->isol_why : "isolated CPUs");
	else if (p->load_err == -EOPNOTSUPP)
		verdict(&v, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_NOT_BUILT, "%s",
		    "this vcpuplaced was built without the BPF scheduler "
		    "(SCX=yes; see daemon/scx/README.md)");
	else if (p->load_err < 0)
		verdict(&v, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_LOAD_FAILED,
		    "loading the BPF scheduler failed: %s",
		    strerror(-p->load_err));
	/* on: the operator asked for it, so not having it is an error;
	 * a dry run changes no scheduling, which is not a failure */
	v.fatal = p->opt == VP_SCX_OPT_ON && v.state != VP_SCX_LOADED &&
	    v.cause != VP_SCX_CAUSE_DRY_RUN;
	*ret = v;
}

static void
log_mode(const struct vp_daemon *d, int prio)
{
	const struct vp_schedext *s = &d->scx;
	char sis[PATH_MAX + 128], probes[32];

	kernelmode_describe(d, sis, sizeof(sis));
	if (schedext_halt_probes(s))
		snprintf(probes, sizeof(probes), "attached (%s)",
		    schedext_halt_probes(s));
	else
		snprintf(probes, sizeof(probes), "not attached");
	if (s->state == VP_SCX_LOADED)
		log_msg(prio, "kernel mode: sched-ext (BPF scheduler \"%s\" "
		    "loaded, %s switch, halt-poll probes %s); %s", VP_SCX_NAME,
		    s->load_flags & SCX_LOAD_PARTIAL ? "partial" : "full",
		    probes, sis);
	else
		log_msg(prio, "kernel mode: %s (sched-ext %s: %s); %s",
		    schedext_mode_label(d), schedext_state_name(s->state),
		    s->why, sis);
}

/* The thread an entry was written for: its tid alone may be reused. */
#define THREAD_OF(p) ((struct scx_thread){ (p)->pid, (p)->tid, (p)->start })

/* Counts a refused write or move; logs it once per change of cause. */
static void
note_err(struct vp_daemon *d, enum vp_scx_op op, int tid, int err)
{
	struct vp_schedext *s = &d->scx;

	s->errors++;
	if (s->logged[op] == err)
		return;
	s->logged[op] = err;
	if (tid > 0)
		log_msg(LOG_WARNING, "sched-ext: %s of thread %d: %s (counted "
		    "in vcpuplace_sched_ext_errors_total, logged once)",
		    op_names[op], tid, strerror(-err));
	else
		log_msg(LOG_WARNING, "sched-ext: %s: %s (counted in "
		    "vcpuplace_sched_ext_errors_total, logged once)",
		    op_names[op], strerror(-err));
}

/*
 * vp_pus for every OS CPU id up to the highest ever written (a CPU gone
 * since is written invalid), then every wake domain.
 */
static int
push_topology(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;
	const struct scxfeed_writer w = { LD(s)->pu_set, LD(s)->dom_set };
	int r;

	/* CPUs the last topology had and this one lacks are cleared too */
	r = scxfeed_topology(s->sched, d->topo, s->pu_limit, &w);
	if (r == 0)
		s->pu_limit = d->topo->os_limit;
	return r;
}

/*
 * Every thread we moved goes back to SCHED_OTHER, then the scheduler is
 * freed: its link closed, the kernel unloads it.  A thread that has gone
 * meanwhile (-ESRCH) is no error.
 */
static void
unload(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;
	int i, k, r;

	for (i = 0; i < s->npushed; i++)
		if (s->pushed[i].ext && (r = LD(s)->task_set_ext(
		    &THREAD_OF(&s->pushed[i]), false)) < 0 && r != -ESRCH)
			note_err(d, VP_SCX_OP_EXT_OFF, s->pushed[i].tid, r);
	free(s->pushed);
	s->pushed = NULL;
	s->npushed = 0;
	s->own_class = 0;
	LD(s)->free(s->sched);
	s->sched = NULL;
	s->pu_limit = 0;
	memset(s->stats, 0, sizeof(s->stats));
	for (i = 0; i < d->nvms; i++)
		for (k = 0; k < d->vm[i].nvcpus; k++)
			d->vm[i].vcpu[k].scx_known = false;
}

/*
 * Whether the scheduler just loaded honours cgroup cpu.weight; said once
 * in the daemon's life when it does not: without it libvirt's <shares>
 * and every cgroup's cpu.weight are lost (each thread weighs by its nice
 * value alone), which an operator would otherwise find out only from the
 * shares.
 */
static void
note_cgroup_weights(struct vp_schedext *s)
{
	s->cg_weights = LD(s)->cgroup_weights &&
	    LD(s)->cgroup_weights(s->sched);
	if (s->cg_weights || s->cg_told)
		return;
	s->cg_told = true;
	log_msg(LOG_WARNING, "sched-ext: cgroup cpu.weight not honoured: this "
	    "kernel's sched_ext has no cgroup support (CONFIG_EXT_GROUP_SCHED), "
	    "so every task is weighed by its nice value alone and a VM's "
	    "<shares> are ignored (status sched_ext.cgroup_weight, metric "
	    "vcpuplace_sched_ext_cgroup_weight)");
}

/* Loads, then fills the tables a wake-up reads before any vCPU is in. */
static int
load(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;
	struct scx_sched *sched = NULL;
	int r;

	if ((r = LD(s)->load(&sched, s->load_flags)) < 0)
		return r;
	s->sched = sched;
	note_cgroup_weights(s);
	s->features = scxfeed_features(&d->feat);
	LD(s)->features_set(sched, s->features);
	if ((r = push_topology(d)) < 0)
		unload(d);
	return r;
}

void
schedext_isolation_words(const struct vp_schedext *s, char *buf, size_t len)
{
	const struct isol_info *in = &s->isol;
	const char *root = s->root ? s->root : "";
	bool boot = !in->cmdline_err && in->cmd.domain;
	bool isolated = !in->isolated_err && in->isolated[0];

	if (boot && isolated)
		snprintf(buf, len, "isolcpus=%s on the kernel command line; "
		    "CPUs %s isolated", in->cmd.isolcpus, in->isolated);
	else if (boot)
		snprintf(buf, len, "isolcpus=%s on the kernel command line",
		    in->cmd.isolcpus);
	else if (isolated)
		snprintf(buf, len, "CPUs %s in %s/%s%s", in->isolated, root,
		    ISOL_ISOLATED, in->cmdline_err ? "" :
		    ", no isolcpus= domain form on the command line");
	else
		snprintf(buf, len, "no CPU isolated");
}

/* Once at start: a file that could not be read is said, with its path. */
static void
tell_isolation_errors(const struct vp_schedext *s)
{
	const char *root = s->root ? s->root : "";
	const struct isol_info *in = &s->isol;

	if (in->cmdline_err)
		log_msg(LOG_WARNING, "sched-ext: %s/%s: %s; isolcpus= is not "
		    "checked before loading", root, ISOL_CMDLINE,
		    strerror(-in->cmdline_err));
	if (in->isolated_err)
		log_msg(LOG_WARNING, "sched-ext: %s/%s: %s; the isolated CPUs "
		    "are not checked before loading", root, ISOL_ISOLATED,
		    in->isolated_err == -EINVAL ? "not a CPU list" :
		    strerror(-in->isolated_err));
	if (in->release_err)
		log_msg(LOG_NOTICE, "sched-ext: %s/%s: %s; the kernel release "
		    "is unknown", root, ISOL_RELEASE,
		    in->release_err == -EINVAL ? "no release number in it" :
		    strerror(-in->release_err));
}

/* Reads the isolation into @s; sets @p's verdict and its words. */
static void
probe_isolation(struct vp_schedext *s, struct vp_scx_probe *p, char *why,
    size_t len)
{
	int r = isol_read(s->root, &s->isol);

	if (r < 0) {
		memset(&s->isol, 0, sizeof(s->isol));
		s->isol.cmdline_err = s->isol.isolated_err =
		    s->isol.release_err = r;
	}
	s->isol_known = true;
	s->isol_verdict = isol_judge(&s->isol);
	tell_isolation_errors(s);
	schedext_isolation_words(s, why, len);
	p->isol = s->isol_verdict;
	p->isol_why = why;
}

/*
 * Counts the VMs with a CPU quota into s->quota_vms, the first in words
 * into s->quota_first.  Every VM libvirt runs, managed or not: under a
 * full switch every thread of the host is the BPF scheduler's, so an
 * unmanaged VM's quota is lost as well.
 */
static void
quota_count(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;
	unsigned int n = 0;
	int i;

	s->quota_first[0] = '\0';
	for (i = 0; i < d->nvms; i++) {
		if (!d->vm[i].quota)
			continue;
		if (!n++)
			snprintf(s->quota_first, sizeof(s->quota_first),
			    "%s: %s", d->vm[i].name, d->vm[i].quota_words);
	}
	s->quota_vms = n;
}

/* "2 VMs, the first vm1: <quota> 50000 us per 100000 us period" */
static void
quota_words(const struct vp_schedext *s, char *buf, size_t len)
{
	if (s->quota_vms == 1)
		snprintf(buf, len, "VM %s", s->quota_first);
	else
		snprintf(buf, len, "%u VMs, the first %s", s->quota_vms,
		    s->quota_first);
}

/*
 * --sched-ext=on with the scheduler loaded: the quotas it does not
 * enforce are said once, at warning, while there are any (again after
 * none was left), and counted in
 * vcpuplace_sched_ext_quota_unenforced_vms.
 */
static void
quota_note(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;
	char words[sizeof(s->quota_first) + 64];

	if (!s->quota_vms || scx_quota_enforced()) {
		s->quota_warned = false;
		return;
	}
	if (s->quota_warned)
		return;
	s->quota_warned = true;
	quota_words(s, words, sizeof(words));
	log_msg(LOG_WARNING, "sched-ext: CPU quotas not enforced: %s; the "
	    "BPF scheduler (--sched-ext=on) does not enforce cpu.max, and no "
	    "task is left on CFS to do it (vcpuplace_sched_ext_quota_"
	    "unenforced_vms)", words);
}

bool
schedext_may_load(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;

	return s->opt != VP_SCX_OPT_OFF && !d->dry_run &&
	    LD(s)->supported(s->root) == 0;
}

bool
schedext_needs_bpf(const struct vp_daemon *d)
{
	const struct vp_schedext *s = &d->scx;

	return s->state == VP_SCX_LOADED || (s->opt == VP_SCX_OPT_AUTO &&
	    s->state == VP_SCX_UNAVAILABLE &&
	    s->cause == VP_SCX_CAUSE_CPU_QUOTA);
}

int
schedext_start(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;
	struct vp_scx_probe p = { .opt = s->opt, .dry_run = d->dry_run };
	struct vp_scx_verdict v;
	char topo_why[200] = "", ops[sizeof(s->ops)], state[32];
	char isol_why[sizeof(s->isol.cmd.isolcpus) +
	    sizeof(s->isol.isolated) + PATH_MAX + 128];
	char quota_why[sizeof(s->quota_first) + 64];

	s->ops[0] = '\0';
	/* the VMs main.c's first inventory found */
	quota_count(d);
	quota_words(s, quota_why, sizeof(quota_why));
	p.quota_vms = s->quota_vms;
	p.quota_why = quota_why;
	if (p.opt != VP_SCX_OPT_OFF)
		p.supported = LD(s)->supported(s->root);
	/* with sched_ext and BTF, what the kernel would refuse anyway */
	if (p.opt != VP_SCX_OPT_OFF && p.supported != -ENOENT &&
	    p.supported != -ENODATA)
		probe_isolation(s, &p, isol_why, sizeof(isol_why));
	if (p.opt != VP_SCX_OPT_OFF && p.supported == 0) {
		if (LD(s)->loaded_ops(s->root, ops, sizeof(ops)) == 0)
			p.other = strcpy(s->ops, ops);
		/* -EBUSY from scx_enable() while not disabled */
		else if (LD(s)->state_read && LD(s)->state_read(s->root,
		    state, sizeof(state)) == 0 && strcmp(state, "disabled"))
			p.busy = state;
		p.topo_err = scxfeed_topo_fits(d->topo, topo_why,
		    sizeof(topo_why));
		p.topo_why = topo_why;
	}
	schedext_decide(&p, &v);
	if (v.state == VP_SCX_LOADED) {
		p.load_err = load(d);
		/* -EBUSY: one appeared meanwhile; named if still there */
		if (p.load_err == -EBUSY &&
		    LD(s)->loaded_ops(s->root, ops, sizeof(ops)) == 0)
			p.other = strcpy(s->ops, ops);
		schedext_decide(&p, &v);
	}
	s->state = v.state;
	s->cause = v.cause;
	snprintf(s->why, sizeof(s->why), "%s", v.why);
	if (v.fatal) {
		log_msg(LOG_ERR, "--sched-ext=on: cannot run the BPF "
		    "scheduler: %s", v.why);
		/* isolcpus=: -EINVAL, as scx_enable() would say */
		return p.supported < 0 ? p.supported : p.other || p.busy ?
		    -EBUSY : p.topo_err < 0 ? p.topo_err : p.load_err < 0 ?
		    p.load_err : -EINVAL;
	}
	log_mode(d, LOG_INFO);
	if (s->state == VP_SCX_LOADED)
		quota_note(d);
	return 0;
}

const struct vp_scx_pushed *
schedext_pushed(const struct vp_schedext *s, int tid)
{
	return scxfeed_pushed_find(s->pushed, s->npushed, tid);
}

/*
 * What the plan wants now: an entry for every vCPU of a managed VM whose
 * thread is known, sorted by tid (a tid claimed twice, by stale data,
 * keeps one entry).  Returns the count, or -ENOMEM.
 */
static int
want_entries(const struct vp_daemon *d, struct vp_scx_pushed **ret)
{
	struct vp_scx_pushed *w;
	int i, k, n = 0, m;

	for (i = 0; i < d->nvms; i++)
		for (k = 0; vm_managed(&d->vm[i]) && k < d->vm[i].nvcpus; k++)
			n += d->vm[i].vcpu[k].tid > 0;
	if (!(w = calloc(n ? n : 1, sizeof(*w))))
		return -ENOMEM;
	n = 0;
	for (i = 0; i < d->nvms; i++) {
		const struct vp_vm *vm = &d->vm[i];

		for (k = 0; vm_managed(vm) && k < vm->nvcpus; k++) {
			const struct vp_vcpu *v = &vm->vcpu[k];
			struct scxfeed_vcpu_in in = {
				.policy = &vm->policy, .nvcpus = vm->nvcpus,
				/* the home of the affinity in force: the BPF
				 * side's allowed set is the live affinity */
				.home = v->placed_home,
				.anchor = v->current != VP_PU_NONE ?
				    v->current : cpuset_first(&v->affinity),
				.vm = i, .vcpu = k,
				.short_sleep_ns = SCXFEED_SHORT_SLEEP_NS,
			};

			if (v->tid <= 0)
				continue;
			w[n].tid = v->tid;
			w[n].pid = vm->pid;
			w[n].start = v->tid_start;
			scxfeed_vcpu(d->topo, &in, &w[n].e);
			n++;
		}
	}
	qsort(w, (size_t)n, sizeof(*w), scxfeed_pushed_cmp);
	for (i = m = 0; i < n; i++)
		if (!m || w[i].tid != w[m - 1].tid)
			w[m++] = w[i];
	*ret = w;
	return m;
}

/* Per @want entry, what became of its actions. */
enum { SET_FAILED = 1, EXT_ISSUED = 2, EXT_DONE = 4, OWN_CLASS = 8 };

/* Makes @a; sets @fate[a->want]; counts and logs what fails. */
static void
run_act(struct vp_daemon *d, const struct vp_scx_act *a,
    const struct vp_scx_pushed *want, unsigned char *fate)
{
	struct vp_schedext *s = &d->scx;
	const struct vp_scx_pushed *o;
	int r;

	switch (a->kind) {
	case VP_SCX_SET:
		r = LD(s)->vcpu_set(s->sched, a->tid, &want[a->want].e);
		if (r < 0) {
			fate[a->want] |= SET_FAILED;
			note_err(d, VP_SCX_OP_VCPU_SET, a->tid, r);
		}
		break;
	case VP_SCX_EXT_ON:
		/* never into SCHED_EXT without its entry */
		if (fate[a->want] & SET_FAILED)
			break;
		fate[a->want] |= EXT_ISSUED;
		r = LD(s)->task_set_ext(&THREAD_OF(&want[a->want]), true);
		if (r == 0)
			fate[a->want] |= EXT_DONE;
		else if (r == SCX_OWN_CLASS)	/* asked again each tick */
			fate[a->want] |= OWN_CLASS;
		else if (r != -ESRCH)	/* gone: a refresh drops it */
			note_err(d, VP_SCX_OP_EXT_ON, a->tid, r);
		break;
	case VP_SCX_EXT_OFF:
		/* s->pushed is still what was written: the thread moved */
		if ((o = schedext_pushed(s, a->tid)) &&
		    (r = LD(s)->task_set_ext(&THREAD_OF(o), false)) < 0 &&
		    r != -ESRCH)
			note_err(d, VP_SCX_OP_EXT_OFF, a->tid, r);
		break;
	case VP_SCX_DEL:
		if ((r = LD(s)->vcpu_del(s->sched, a->tid)) < 0 && r != -ENOENT)
			note_err(d, VP_SCX_OP_VCPU_DEL, a->tid, r);
		break;
	}
}

/*
 * How many vCPU threads keep a class of their own, outside the BPF
 * scheduler; said when some first do, and when none do any more.
 */
static void
note_own_class(struct vp_daemon *d, int n)
{
	struct vp_schedext *s = &d->scx;

	if (n && !s->own_class)
		log_msg(LOG_NOTICE, "sched-ext: %d vCPU thread(s) run in a "
		    "scheduling class of their own (real-time, batch or idle, "
		    "e.g. libvirt's <vcpusched>): left in it, outside the BPF "
		    "scheduler (vcpuplace_sched_ext_threads_own_class)", n);
	else if (!n && s->own_class)
		log_msg(LOG_INFO, "sched-ext: no vCPU thread keeps a class of "
		    "its own any more");
	s->own_class = n;
}

/*
 * Writes the vCPU entries that changed and moves threads in and out,
 * then records what the map now holds: a failed write keeps the entry
 * written before (so it differs again, and is retried, next tick).
 */
static void
sync_vcpus(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;
	struct vp_scx_pushed *want = NULL, *next;
	const struct vp_scx_pushed *o;
	struct vp_scx_act *acts;
	unsigned char *fate;
	int nwant, nacts, i, n = 0, own = 0;

	if ((nwant = want_entries(d, &want)) < 0) {
		note_err(d, VP_SCX_OP_VCPU_SET, 0, nwant);
		return;
	}
	acts = calloc(2 * (s->npushed + nwant) + 1, sizeof(*acts));
	fate = calloc(nwant + 1, 1);
	next = calloc(nwant + 1, sizeof(*next));
	if (!acts || !fate || !next) {
		note_err(d, VP_SCX_OP_VCPU_SET, 0, -ENOMEM);
		goto out;
	}
	nacts = scxfeed_diff(s->pushed, s->npushed, want, nwant, acts);
	for (i = 0; i < nacts; i++)
		run_act(d, &acts[i], want, fate);
	for (i = 0; i < nwant; i++) {
		o = schedext_pushed(s, want[i].tid);
		if (fate[i] & SET_FAILED) {
			if (o)
				next[n++] = *o;
			continue;
		}
		next[n] = want[i];
		next[n].ext = fate[i] & EXT_ISSUED ? fate[i] & EXT_DONE :
		    o && o->ext;
		next[n].own_class = fate[i] & EXT_ISSUED ? fate[i] & OWN_CLASS :
		    o && o->own_class;
		own += next[n++].own_class;
	}
	note_own_class(d, own);
	free(s->pushed);
	s->pushed = next;
	s->npushed = n;
	next = NULL;
out:
	free(want);
	free(acts);
	free(fate);
	free(next);
}

/* The counters of every managed vCPU in the map, and the global ones. */
static void
read_stats(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;
	struct vp_scx_vcpu_stats vs;
	uint64_t st[VP_SCX_STAT_NR];
	int i, k, r;

	for (i = 0; i < d->nvms; i++)
		for (k = 0; k < d->vm[i].nvcpus; k++) {
			struct vp_vcpu *v = &d->vm[i].vcpu[k];

			v->scx_known = false;
			if (v->tid <= 0 || !schedext_pushed(s, v->tid))
				continue;
			r = LD(s)->vcpu_stats_read(s->sched, v->tid, &vs);
			if (r == 0) {
				v->scx = vs;
				v->scx_known = true;
			} else if (r != -ENOENT) {
				note_err(d, VP_SCX_OP_STATS, v->tid, r);
			}
		}
	if ((r = LD(s)->stats_read(s->sched, st)) == 0)
		memcpy(s->stats, st, sizeof(st));
	else
		note_err(d, VP_SCX_OP_STATS, 0, r);
}

/* The kernel's debug dump, a line at a time, for --debug. */
static void
log_dump(const char *dump)
{
	int n = 0;

	while (dump && *dump && n++ < 200) {
		size_t len = strcspn(dump, "\n");

		log_msg(LOG_DEBUG, "sched-ext dump: %.*s", (int)len, dump);
		dump += len + (dump[len] == '\n');
	}
}

/*
 * The kernel ejected the scheduler (a stall, a BPF error, sysrq-S):
 * said once, counted, threads back to SCHED_OTHER, and placement goes
 * on in the mode the kernel offers without it.  Never reloaded.
 */
static void
eject(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;
	struct scx_exit ex;

	memset(&ex, 0, sizeof(ex));
	if (LD(s)->exit_read(s->sched, &ex) == 0) {
		s->exit = ex;
		s->exit_known = true;
	}
	log_dump(LD(s)->exit_dump(s->sched));
	unload(d);
	s->ejections++;
	s->state = VP_SCX_EJECTED;
	s->cause = VP_SCX_CAUSE_EJECTED;
	snprintf(s->why, sizeof(s->why), "ejected: %s",
	    ex.reason[0] ? ex.reason : "no reason recorded");
	log_msg(LOG_ERR, "sched-ext: the kernel ejected the BPF scheduler "
	    "(%s, kind %d): %s%s%.*s; kernel mode now %s, placing by "
	    "affinity, not reloading", scx_exit_kind_name(ex.kind),
	    ex.kind, ex.reason[0] ? ex.reason : "no reason recorded",
	    ex.msg[0] ? ": " : "", (int)strcspn(ex.msg, "\n"), ex.msg,
	    schedext_mode_label(d));
	d->status_dirty = true;
}

/*
 * The kernel unloaded the scheduler and asks its loader to load it again
 * (exit_code has SCX_ECODE_ACT_RESTART: a CPU went on- or offline and the
 * scheduler has no ops.cpu_online/offline, 6.12 handle_hotplug(); or a
 * load raced with one, check_hotplug_seq()).  Not an ejection: loaded
 * again here, counted (restarts), one log line each; the vCPU entries go
 * back at the next tick's sync, as after the first load.  False: no
 * restart was asked for, or the reload failed (then it is an ejection
 * after all, with its cause).
 */
static bool
restart(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;
	struct scx_exit ex;
	const char *words;
	int r;

	memset(&ex, 0, sizeof(ex));
	if (LD(s)->exit_read(s->sched, &ex) != 0 || !ex.restart)
		return false;
	words = ex.msg[0] ? ex.msg : ex.reason;
	unload(d);
	s->restarts++;
	d->status_dirty = true;
	if ((r = load(d)) == 0) {
		log_msg(LOG_NOTICE, "sched-ext: the kernel asked for a restart "
		    "of the BPF scheduler (%.*s); reloaded (restart %lu)",
		    (int)strcspn(words, "\n"), words, s->restarts);
		return true;
	}
	s->exit = ex;
	s->exit_known = true;
	s->ejections++;
	s->state = VP_SCX_EJECTED;
	s->cause = VP_SCX_CAUSE_LOAD_FAILED;
	snprintf(s->why, sizeof(s->why), "restart asked by the kernel (%s), "
	    "reload failed: %s", ex.reason[0] ? ex.reason : "no reason",
	    strerror(-r));
	log_msg(LOG_ERR, "sched-ext: %s; kernel mode now %s, placing by "
	    "affinity", s->why, schedext_mode_label(d));
	return true;
}

/*
 * auto: a VM with a CPU quota appeared (started, or given one by virsh
 * schedtune) while the scheduler runs: unloaded, threads back to CFS,
 * which enforces it, kernel mode the fallback, said once at warning.  And
 * when none is left, loaded again (this is the daemon's choice, not an
 * ejection, so the never-reload rule is not at stake).  on: warned.
 */
static void
quota_tick(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;
	char words[sizeof(s->quota_first) + 64];
	struct vp_scx_verdict v;
	struct vp_scx_probe p = { .opt = s->opt };
	int r;

	quota_count(d);
	if (s->opt == VP_SCX_OPT_ON && s->sched)
		quota_note(d);
	if (s->opt != VP_SCX_OPT_AUTO)
		return;
	if (s->sched && s->quota_vms) {
		quota_words(s, words, sizeof(words));
		p.quota_vms = s->quota_vms;
		p.quota_why = words;
		schedext_decide(&p, &v);
		if (v.cause != VP_SCX_CAUSE_CPU_QUOTA)
			return;
		unload(d);
		s->state = v.state;
		s->cause = v.cause;
		snprintf(s->why, sizeof(s->why), "%s", v.why);
		d->status_dirty = true;
		log_mode(d, LOG_WARNING);
	} else if (!s->sched && !s->quota_vms && s->state ==
	    VP_SCX_UNAVAILABLE && s->cause == VP_SCX_CAUSE_CPU_QUOTA) {
		d->status_dirty = true;
		if ((r = load(d)) < 0) {
			s->cause = VP_SCX_CAUSE_LOAD_FAILED;
			snprintf(s->why, sizeof(s->why), "no VM has a CPU "
			    "quota any more, but loading the BPF scheduler "
			    "failed: %s", strerror(-r));
			log_mode(d, LOG_WARNING);
			return;
		}
		s->state = VP_SCX_LOADED;
		s->cause = VP_SCX_CAUSE_NONE;
		s->why[0] = '\0';
		log_mode(d, LOG_NOTICE);
	}
}

void
schedext_tick(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;
	uint32_t f;

	quota_tick(d);
	if (!s->sched)
		return;
	if (LD(s)->exited(s->sched)) {
		if (!restart(d))
			eject(d);
		return;
	}
	if ((f = scxfeed_features(&d->feat)) != s->features) {
		LD(s)->features_set(s->sched, f);
		s->features = f;
	}
	sync_vcpus(d);
	read_stats(d);
}

void
schedext_topology_changed(struct vp_daemon *d)
{
	struct vp_schedext *s = &d->scx;
	char why[200];
	int r;

	if (!s->sched)
		return;
	if (scxfeed_topo_fits(d->topo, why, sizeof(why)) < 0) {
		unload(d);
		s->state = VP_SCX_UNAVAILABLE;
		s->cause = VP_SCX_CAUSE_TOPOLOGY;
		snprintf(s->why, sizeof(s->why), "the new topology does not "
		    "fit the BPF tables: %s", why);
		log_mode(d, LOG_WARNING);
		return;
	}
	/* the vCPU entries follow at the next tick: they hold OS and
	 * domain ids, so an entry that reads the same still means the same */
	if ((r = push_topology(d)) < 0)
		note_err(d, VP_SCX_OP_TABLES, 0, r);
}

void
schedext_stop(struct vp_daemon *d)
{
	/*
	 * The kernel would unload the scheduler anyway when this process
	 * exits (the struct_ops link closes with it), and a SCHED_EXT
	 * thread runs on CFS with no BPF scheduler; moving the threads back
	 * first leaves them as we found them.
	 */
	if (d->scx.sched)
		unload(d);
}
