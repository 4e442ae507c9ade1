/*
 * metrics.c - the "metrics" answer: Prometheus text exposition format
 * 0.0.4.  Every family has HELP and TYPE; units are in the names.  The
 * format is a few printf lines per family, so no client library is
 * needed; what it does need, label-value escaping, is label() below.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vcpuplaced/daemon.h"

/* One histogram: its family, help text and bucket upper bounds. */
struct hist_def {
	const char *name;
	const char *help;
	int nbounds;
	uint64_t bound_ns[VP_HIST_BUCKETS_MAX];
};

/* 10 us .. 250 ms */
static const struct hist_def plan_def = {
	"vcpuplace_plan_duration_seconds", "Time a tick spent planning: the "
	"planner when its inputs changed, then the move rules.", 12,
	{ 10000, 25000, 50000, 100000, 250000, 500000, 1000000, 2500000,
	  5000000, 10000000, 50000000, 250000000 },
};

/*
 * 5 ms .. 2.5 s.  An event round on this host takes a few ms to a few
 * tens; the tick it replaces waited up to 250 ms, a slow libvirt seconds.
 */
static const struct hist_def lat_def = {
	"vcpuplace_placement_latency_seconds", "From a libvirt event's "
	"receipt to the pins it caused for one VM.", 13,
	{ 5000000, 10000000, 20000000, 30000000, 50000000, 75000000,
	  100000000, 150000000, 200000000, 300000000, 500000000, 1000000000,
	  2500000000ULL },
};

static const char *const reject_names[VP_REJ_COUNT] = {
	[VP_REJ_NONE] = "none", [VP_REJ_UNKNOWN] = "unknown_command",
	[VP_REJ_BINARY] = "binary", [VP_REJ_OVERLONG] = "overlong",
	[VP_REJ_TIMEOUT] = "timeout", [VP_REJ_DENIED] = "denied",
	[VP_REJ_ARGS] = "bad_arguments", [VP_REJ_SLOW_READER] = "slow_reader",
	[VP_REJ_PERSON_LIMIT] = "person_limit", [VP_REJ_FULL] = "full",
	[VP_REJ_BUSY] = "busy",
};

static void
hist_observe(const struct hist_def *def, struct vp_hist *h, uint64_t ns)
{
	int i;

	for (i = 0; i < def->nbounds && ns > def->bound_ns[i]; i++)
		;
	if (i < def->nbounds)
		h->bucket[i]++;
	h->ns_sum += ns;
	h->count++;
}

void
metrics_observe_plan(struct vp_daemon *d, uint64_t ns)
{
	hist_observe(&plan_def, &d->c.plan_hist, ns);
}

void
metrics_observe_latency(struct vp_daemon *d, uint64_t ns)
{
	hist_observe(&lat_def, &d->c.lat_hist, ns);
}

/* A label value with \, " and newline escaped, as the format asks. */
static void
label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void
family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void
single(FILE *f, const char *name, const char *type, const char *help,
    double v)
{
	family(f, name, type, help);
	fprintf(f, "%s %.17g\n", name, v);
}

/*
 * What the loop thread holds, read from the kernel: a run in userspace
 * mode on a kernel without core scheduling shows 0 everywhere.
 */
static void
capability_metrics(FILE *f, const struct vp_daemon *d)
{
	bool held[VP_PRIV_COUNT];
	int i, n = privs_read(held);

	family(f, "vcpuplace_capability", "gauge", "1 for each capability "
	    "of the unit's set that the daemon still holds (vcpuplaced(8) "
	    "says which call needs it); the others were dropped for good.");
	for (i = 0; n >= 0 && i < VP_PRIV_COUNT; i++)
		fprintf(f, "vcpuplace_capability{name=\"%s\"} %d\n",
		    privs_name((enum vp_priv)i), held[i]);
	single(f, "vcpuplace_capabilities_held", "gauge", "How many "
	    "capabilities the daemon holds in all, its own or not (-1: "
	    "unreadable).", n < 0 ? -1 : n);
	single(f, "vcpuplace_bpf_syscall_denied", "gauge", "1 once bpf(2) "
	    "is filtered out for the daemon's life (no BPF scheduler can "
	    "load this run).", d->privs.bpf_denied);
	single(f, "vcpuplace_capability_drop_errors_total", "counter",
	    "Drops of unused capabilities that failed (logged).",
	    (double)d->privs.errors);
}

/* Both managed, under the same profile: counted in one series. */
static bool
same_profile(const struct vp_vm *a, const struct vp_vm *b)
{
	return vm_managed(a) && vm_managed(b) && !strcmp(a->profile,
	    b->profile);
}

/*
 * VMs and vCPUs under a placement policy, by profile name; VMs left
 * alone; VMs whose metadata is rejected now (invalid_metadata_total
 * counts each bad text once, so a VM left broken stops adding to it:
 * this gauge is what stays up until the metadata is fixed).
 */
static void
write_managed(const struct vp_daemon *d, FILE *f)
{
	static const char *const names[2] = { "vcpuplace_managed_vms",
		"vcpuplace_managed_vcpus" };
	int w, i, j, unmanaged = 0, invalid = 0;

	for (w = 0; w < 2; w++) {
		family(f, names[w], "gauge", w ? "vCPUs under a placement "
		    "policy, by profile." : "VMs under a placement policy, "
		    "by profile.");
		for (i = 0; i < d->nvms; i++) {
			int n = 0;

			if (!vm_managed(&d->vm[i]))
				continue;
			for (j = 0; j < i; j++)	/* first VM of its profile */
				if (same_profile(&d->vm[j], &d->vm[i]))
					break;
			if (j < i)
				continue;
			for (j = i; j < d->nvms; j++)
				if (same_profile(&d->vm[j], &d->vm[i]))
					n += w ? d->vm[j].nvcpus : 1;
			fprintf(f, "%s{profile=\"", names[w]);
			label(f, d->vm[i].profile);
			fprintf(f, "\"} %d\n", n);
		}
	}
	for (i = 0; i < d->nvms; i++) {
		unmanaged += !vm_managed(&d->vm[i]);
		invalid += d->vm[i].error[0] != '\0';
	}
	single(f, "vcpuplace_unmanaged_vms", "gauge", "Running VMs left alone "
	    "(mode off, or no valid policy read yet).", unmanaged);
	single(f, "vcpuplace_invalid_metadata_vms", "gauge", "Running VMs "
	    "whose vcpuplace metadata is rejected now (each keeps its previous "
	    "policy; status names the error).", invalid);
}

static void
write_llcs(const struct vp_daemon *d, FILE *f)
{
	const struct vp_topo *t = d->topo;
	struct vp_cpuset idle;
	int l, c;

	load_idle_core_pus(d, &idle);
	family(f, "vcpuplace_llc_idle_cores", "gauge", "Cores with every PU "
	    "idle over the last tick, per last-level cache.");
	for (l = 0; l < t->nllcs; l++) {
		int n = 0;

		for (c = t->llc[l].first_core;
		    c < t->llc[l].first_core + t->llc[l].ncores; c++)
			n += cpuset_test(&idle, t->core[c].first_pu);
		fprintf(f, "vcpuplace_llc_idle_cores{llc=\"%d\",package=\"%d\"}"
		    " %d\n", l, t->llc[l].package, n);
	}
	family(f, "vcpuplace_llc_cores", "gauge", "Cores per last-level "
	    "cache.");
	for (l = 0; l < t->nllcs; l++)
		fprintf(f, "vcpuplace_llc_cores{llc=\"%d\",package=\"%d\"} "
		    "%d\n", l, t->llc[l].package, t->llc[l].ncores);
}

static void
vcpu_labels(FILE *f, const char *name, const struct vp_vm *vm, int k)
{
	fprintf(f, "%s{vm=\"", name);
	label(f, vm->name);
	fprintf(f, "\",vcpu=\"%d\"}", k);
}

static void
write_vcpus(const struct vp_daemon *d, FILE *f)
{
	static const struct {
		const char *name, *type, *help;
	} fam[] = {
		{ "vcpuplace_vcpu_runqueue_delay_seconds", "gauge",
		  "Time the vCPU thread waited on a run queue during the last "
		  "tick (schedstat)." },
		{ "vcpuplace_vcpu_wait_seconds_total", "counter",
		  "Time the vCPU thread waited on a run queue since it "
		  "started (schedstat)." },
		{ "vcpuplace_vcpu_busy_ratio", "gauge",
		  "Share of the last tick the vCPU thread ran." },
		{ "vcpuplace_vcpu_smt_conflict", "gauge",
		  "1 if the vCPU is one of vcpuplace_smt_conflicts: busy on a "
		  "core whose SMT sibling is busy while its allowed set has a "
		  "whole idle core." },
	};
	struct vp_cpuset idle;
	size_t m;
	int i, k;

	load_idle_core_pus(d, &idle);
	for (m = 0; m < sizeof(fam) / sizeof(fam[0]); m++) {
		family(f, fam[m].name, fam[m].type, fam[m].help);
		for (i = 0; i < d->nvms; i++)
			for (k = 0; k < d->vm[i].nvcpus; k++) {
				const struct vp_vcpu *v = &d->vm[i].vcpu[k];
				double x = m == 0 ? (double)v->delay_ns / 1e9 :
				    m == 1 ? (double)v->wait_ns / 1e9 :
				    m == 2 ? v->util :
				    load_smt_conflict(d, v, &idle);

				vcpu_labels(f, fam[m].name, &d->vm[i], k);
				fprintf(f, " %.9g\n", x);
			}
	}
}

/*
 * Per-vCPU wake counters: our BPF scheduler's fourteen, while it decides
 * the wake-ups.  Without it nothing counts a vCPU's wake-ups (the kernel
 * series keeps no per-vCPU counters), so these families are not written.
 */
static const char *const vstat_help[VP_SCX_VSTAT_NR] = {
	[VP_SCX_V_WAKEUP] = "Wake-ups of the vCPU thread the BPF scheduler "
	    "decided (sched-ext).",
	[VP_SCX_V_HOME] = "Wake-ups of the vCPU on its home PU (sched-ext).",
	[VP_SCX_V_IDLE_CORE] = "Wake-ups of the vCPU on another PU whose whole "
	    "core was idle (sched-ext).",
	[VP_SCX_V_IDLE_SIBLING] = "Wake-ups of the vCPU on an idle PU next to "
	    "a busy SMT sibling (sched-ext).",
	[VP_SCX_V_PREV] = "Wake-ups of the vCPU on its idle previous PU when "
	    "no better one was idle (sched-ext).",
	[VP_SCX_V_QUEUED] = "Wake-ups of the vCPU that found nothing idle and "
	    "waited on the shared queue (sched-ext).",
	[VP_SCX_V_SMT_BUSY] = "Wake-ups of the vCPU on a PU whose SMT sibling "
	    "was busy (sched-ext).",
	[VP_SCX_V_SMT_BUSY_IDLE_CORE] = "Wake-ups of the vCPU next to a busy "
	    "SMT sibling while a whole idle core was in its allowed set: "
	    "wrong decisions, expected to stay near 0 (sched-ext).",
	[VP_SCX_V_MIGRATED] = "Wake-ups of the vCPU on another PU than it "
	    "slept on (sched-ext).",
	[VP_SCX_V_CROSS_CLUSTER] = "Migrated wake-ups of the vCPU into another "
	    "cluster (sched-ext).",
	[VP_SCX_V_CROSS_LLC] = "Migrated wake-ups of the vCPU into another "
	    "last-level cache (sched-ext).",
	[VP_SCX_V_CACHE_HOT] = "Wake-ups of the vCPU kept on its previous PU "
	    "after a short sleep, SIS_CACHE (sched-ext).",
	[VP_SCX_V_PROBES] = "CPUs the BPF scheduler looked at to place the "
	    "vCPU's wake-ups (sched-ext).",
	[VP_SCX_V_POLL_END] = "Wake-ups of the vCPU that found nothing idle "
	    "and went to a PU whose vCPU halt-polled, ending that poll "
	    "(sched-ext, POLL_END).",
	[VP_SCX_V_STAY_PREV] = "Wake-ups of the vCPU that found nothing idle "
	    "nor polling and waited on its previous PU, whose task was due "
	    "to stop within the shortest slice (sched-ext, STAY_PREV).",
	[VP_SCX_V_JOIN_WAKER] = "Wake-ups of the vCPU that found nothing "
	    "idle and queued on the PU of the vCPU of its VM that woke it "
	    "(sched-ext, JOIN_WAKER).",
};

/* "wakeup" is the count of wake-ups, the others wake_<what>. */
static void
vstat_family(char *buf, size_t len, int i)
{
	static const char *const names[VP_SCX_VSTAT_NR] = VP_SCX_VSTAT_NAMES;

	if (i == VP_SCX_V_WAKEUP)
		snprintf(buf, len, "vcpuplace_vcpu_%ss_total", names[i]);
	else
		snprintf(buf, len, "vcpuplace_vcpu_wake_%s_total", names[i]);
}

static void
write_wake_counters(const struct vp_daemon *d, FILE *f)
{
	char name[64];
	int m, i, k;

	if (!d->scx.sched)
		return;
	for (m = 0; m < VP_SCX_VSTAT_NR; m++) {
		vstat_family(name, sizeof(name), m);
		family(f, name, "counter", vstat_help[m]);
		for (i = 0; i < d->nvms; i++)
			for (k = 0; k < d->vm[i].nvcpus; k++) {
				const struct vp_vcpu *v = &d->vm[i].vcpu[k];

				if (!v->scx_known)
					continue;
				vcpu_labels(f, name, &d->vm[i], k);
				fprintf(f, " %llu\n",
				    (unsigned long long)v->scx.n[m]);
			}
	}
}

static const char *const stat_help[VP_SCX_STAT_NR] = {
	[VP_SCX_WAKE] = "The BPF scheduler's select_cpu calls: wake-ups of "
	    "every task it schedules.",
	[VP_SCX_WAKE_UNMANAGED] = "BPF scheduler wake-ups of tasks that are "
	    "not managed vCPUs.",
	[VP_SCX_WAKE_IDLE_CORE] = "vCPU wake-ups the BPF scheduler sent to a "
	    "whole idle core (home or another).",
	[VP_SCX_WAKE_IDLE_PU] = "vCPU wake-ups the BPF scheduler sent to an "
	    "idle PU beside a busy sibling.",
	[VP_SCX_WAKE_QUEUED] = "vCPU wake-ups that found nothing idle and "
	    "waited in a queue.",
	[VP_SCX_DIRECT] = "Tasks the BPF scheduler dispatched straight to an "
	    "idle PU.",
	[VP_SCX_QUEUED] = "Tasks the BPF scheduler queued in an LLC's queue.",
	[VP_SCX_KICK_IDLE] = "Idle PUs the BPF scheduler woke to drain an "
	    "LLC's queue.",
	[VP_SCX_KEPT] = "Slices that ran out with nobody waiting: the task "
	    "kept its PU.",
	[VP_SCX_HOST_PACKED] = "Host task wake-ups placed beside other host "
	    "work (HOST_PACK).",
	[VP_SCX_HOST_MOVED] = "Host tasks moved beside other host work at "
	    "the end of a slice, freeing a whole core (HOST_PACK).",
	[VP_SCX_BAD_INPUT] = "vCPU entries the BPF scheduler ignored because "
	    "they named a CPU or domain out of range (a daemon bug).",
	[VP_SCX_QUEUED_CPU] = "Tasks the BPF scheduler queued in one CPU's "
	    "own queue: pinned tasks and per-CPU kthreads.",
	[VP_SCX_STOLEN] = "Queued tasks a PU with nothing of its own took "
	    "from another LLC's queue.",
	[VP_SCX_SLICE_CUT] = "Slices ops.tick ended early because others "
	    "waited for the PU.",
	[VP_SCX_KTHREAD] = "Per-CPU kthread wake-ups that went straight onto "
	    "their PU, preempting.",
	[VP_SCX_LAT_PREEMPT] = "Latency-profile vCPU wake-ups that went onto "
	    "their PU, preempting.",
	[VP_SCX_WAKE_POLL_END] = "vCPU wake-ups that found nothing idle and "
	    "went to a PU whose vCPU halt-polled, ending its poll (POLL_END).",
	[VP_SCX_WAKE_STAY_PREV] = "vCPU wake-ups that found nothing idle "
	    "nor polling and waited on their previous PU, whose task was due "
	    "to stop within the shortest slice (STAY_PREV).",
	[VP_SCX_WAKE_JOIN_WAKER] = "vCPU wake-ups that found nothing idle "
	    "and queued on the PU of the vCPU of their VM that woke them "
	    "(JOIN_WAKER).",
	[VP_SCX_TAKEN_RELEASED] = "Queued tasks a PU took from the own queue "
	    "of a PU of its LLC that an RT or deadline task held.",
	[VP_SCX_KICK_RELEASED] = "Times a PU an RT or deadline task took "
	    "had a task queued that no idle PU could take: a busy PU of its "
	    "LLC was made to dispatch at once.",
	[VP_SCX_RESUME_HELD] = "Slice ends that kept their task although "
	    "an earlier one waited in the queue: it waited to resume on the "
	    "PU it ran on (its caches), less than two 5 ms slices of vtime "
	    "behind.",
	[VP_SCX_LAT_FIRST] = "Slice ends that gave the PU to a queued "
	    "latency-profile vCPU later by vtime than the task that ran, "
	    "which was not one (at most two 5 ms slices later).",
	[VP_SCX_HALT_SEEN] = "vCPU halts the kvm_vcpu_halt() probe saw (0 "
	    "while the probes are not attached).",
	[VP_SCX_YIELD_TO] = "Directed yields (KVM's yield_to()) honoured: a "
	    "vCPU gave its turn to another vCPU of its VM (YIELD_TO).",
	[VP_SCX_YIELD_MOVED] = "Directed yields whose target vCPU was taken "
	    "from a queue onto the yielder's PU.",
	[VP_SCX_CG_UNTRACKED] = "cgroups the BPF scheduler's cgroup table "
	    "had no room for: their tasks are weighed as the root's.",
};

/* Why our BPF scheduler runs or not, and while it runs its counters. */
static void
write_sched_ext(const struct vp_daemon *d, FILE *f)
{
	static const char *const names[VP_SCX_STAT_NR] = VP_SCX_STAT_NAMES;
	const struct vp_schedext *s = &d->scx;
	char name[64];
	int i;

	family(f, "vcpuplace_sched_ext_state", "gauge", "1 for the state of "
	    "vcpuplace's BPF scheduler: loaded, unavailable, declined "
	    "(another is loaded), ejected or off; cause says why not.");
	fprintf(f, "vcpuplace_sched_ext_state{state=\"%s\",cause=\"%s\"} 1\n",
	    schedext_state_name(s->state), schedext_cause_name(s->cause));
	if (s->isol_known) {
		family(f, "vcpuplace_sched_ext_isolation", "gauge", "1 for "
		    "the CPU isolation read at start, which sched_ext may "
		    "refuse: none, isolcpus-domain or isolated (refused), "
		    "partition (cpuset, refused by Linux 7.0 only), unknown.");
		fprintf(f, "vcpuplace_sched_ext_isolation{verdict=\"%s\"} 1\n",
		    isol_verdict_name(s->isol_verdict));
	}
	single(f, "vcpuplace_sched_ext_ejections_total", "counter", "Times "
	    "the kernel ejected vcpuplace's BPF scheduler (never reloaded: "
	    "status says why).", (double)s->ejections);
	single(f, "vcpuplace_sched_ext_restarts_total", "counter", "Times "
	    "the kernel unloaded vcpuplace's BPF scheduler asking for a "
	    "restart (a CPU went on- or offline) and the daemon loaded it "
	    "again.", (double)s->restarts);
	single(f, "vcpuplace_sched_ext_halt_probes", "gauge", "1 while the "
	    "BPF scheduler's kvm_vcpu_halt() probes are attached, so a "
	    "wake-up that finds nothing idle can end a vCPU's halt poll "
	    "(POLL_END); 0 without them (no KVM at load, or neither kprobes nor "
	    "ftrace's fentry call sites).",
	    schedext_halt_probes(s) ? 1.0 : 0.0);
	single(f, "vcpuplace_sched_ext_errors_total", "counter", "Writes to "
	    "the BPF scheduler's tables and thread moves into or out of "
	    "SCHED_EXT that failed (the log says why, once per cause).",
	    (double)s->errors);
	single(f, "vcpuplace_sched_ext_threads_own_class", "gauge", "vCPU "
	    "threads left in a scheduling class of their own (real-time, "
	    "batch, idle: libvirt's <vcpusched>), outside the BPF scheduler.",
	    d->scx.own_class);
	single(f, "vcpuplace_sched_ext_quota_unenforced_vms", "gauge", "VMs "
	    "with a CPU quota (cpu.max) while vcpuplace's BPF scheduler runs, "
	    "which does not enforce it (--sched-ext=on; auto unloads "
	    "instead).", s->sched && !scx_quota_enforced() ?
	    (double)s->quota_vms : 0);
	single(f, "vcpuplace_sched_ext_cgroup_weight", "gauge", "1 while "
	    "vcpuplace's BPF scheduler runs with its cgroup ops, so cgroup "
	    "cpu.weight (libvirt's <shares>) is honoured; 0 otherwise, and "
	    "while it runs on a kernel without CONFIG_EXT_GROUP_SCHED "
	    "(status: sched_ext.cgroup_weight).", s->sched &&
	    s->cg_weights ? 1 : 0);
	if (!s->sched)
		return;
	for (i = 0; i < VP_SCX_STAT_NR; i++) {
		snprintf(name, sizeof(name), "vcpuplace_scx_%s_total",
		    names[i]);
		family(f, name, "counter", stat_help[i]);
		fprintf(f, "%s %llu\n", name, (unsigned long long)s->stats[i]);
	}
}

static void
write_histogram(FILE *f, const struct hist_def *def, const struct vp_hist *h)
{
	unsigned long cum = 0;
	int i;

	family(f, def->name, "histogram", def->help);
	for (i = 0; i < def->nbounds; i++) {
		cum += h->bucket[i];
		fprintf(f, "%s_bucket{le=\"%g\"} %lu\n", def->name,
		    (double)def->bound_ns[i] / 1e9, cum);
	}
	fprintf(f, "%s_bucket{le=\"+Inf\"} %lu\n", def->name, h->count);
	fprintf(f, "%s_sum %.9f\n", def->name, (double)h->ns_sum / 1e9);
	fprintf(f, "%s_count %lu\n", def->name, h->count);
}

static void
write_latency(const struct vp_daemon *d, FILE *f)
{
	single(f, "vcpuplace_libvirt_events_total", "counter", "Domain "
	    "lifecycle and metadata events received from libvirt.",
	    (double)atomic_load(&d->virt.events));
	single(f, "vcpuplace_libvirt_events_ignored_total", "counter",
	    "Metadata events dropped on receipt: a title, a description or "
	    "another namespace's element, which do not concern placement.",
	    (double)atomic_load(&d->virt.events_ignored));
	single(f, "vcpuplace_inventory_refreshes_total", "counter", "Reads "
	    "of every running VM from libvirt (start, lifecycle events, "
	    "reconnects and the periodic check).", (double)d->c.refreshes);
	single(f, "vcpuplace_policy_rereads_total", "counter", "Reads of "
	    "one VM's policy alone, on a change of its vcpuplace metadata.",
	    (double)d->c.policy_rereads);
	single(f, "vcpuplace_event_rounds_total", "counter", "Rounds of "
	    "refresh, plan and urgent pins run on a libvirt event, off the "
	    "tick (a burst of events is coalesced into few).",
	    (double)d->c.event_rounds);
	single(f, "vcpuplace_proc_events_watching", "gauge", "1: hot-plugged "
	    "vCPUs are heard from the kernel's proc connector; 0: only the "
	    "periodic refresh finds them (no CAP_NET_ADMIN or connector).",
	    d->hp.fd >= 0 ? 1 : 0);
	single(f, "vcpuplace_proc_events_total", "counter", "Process events "
	    "read from the proc connector (most are dropped at once).",
	    (double)d->hp.seen);
	single(f, "vcpuplace_proc_events_used_total", "counter", "Of them, "
	    "vCPU thread names in a known VM's QEMU: a hot-plug.",
	    (double)d->hp.used);
	single(f, "vcpuplace_proc_events_overruns_total", "counter", "Times "
	    "the kernel dropped process events (every VM was reread).",
	    (double)d->hp.overruns);
	single(f, "vcpuplace_proc_events_filter_qemus", "gauge", "QEMU "
	    "processes whose vCPU renames the kernel's socket filter lets "
	    "through; -1: any process's (before the first refresh, or past "
	    "the filter's size).", d->hp.fd >= 0 ? d->hp.ntgids : 0);
	single(f, "vcpuplace_proc_events_filter_errors_total", "counter",
	    "Times the kernel refused the narrowed filter (the name-only "
	    "one was put back).", (double)d->hp.filter_errors);
	single(f, "vcpuplace_hotplug_follow_rounds_total", "counter", "Event "
	    "rounds run again for a hot-plugged vCPU libvirt did not count "
	    "yet or that was not in place.", (double)d->hp.follow_rounds);
	single(f, "vcpuplace_hotplug_following", "gauge", "Hot-plugged vCPUs "
	    "followed by rounds every 25 ms until found in place.",
	    d->hp.nfollow);
	single(f, "vcpuplace_hotplug_follow_expired_total", "counter",
	    "Hot-plugged vCPUs still not in place after the follow-up "
	    "rounds' time: left to the ticks.", (double)d->hp.follow_expired);
	write_histogram(f, &lat_def, &d->c.lat_hist);
}

static void
write_counters(const struct vp_daemon *d, FILE *f)
{
	int r;

	single(f, "vcpuplace_ticks_total", "counter", "Ticks run.",
	    (double)d->c.ticks);
	single(f, "vcpuplace_scan_probes_total", "counter", "PUs probed by "
	    "the planner's scans (one probe: one PU's state looked at).",
	    (double)d->c.plan_probes);
	single(f, "vcpuplace_plan_failures_total", "counter", "Planning "
	    "rounds that failed and kept every placement (the log says why, "
	    "once per cause).", (double)d->c.plan_failures);
	family(f, "vcpuplace_moves_total", "counter", "vCPU pins applied, by "
	    "the reason of the new home.");
	for (r = 1; r < VP_REASON_COUNT; r++)
		fprintf(f, "vcpuplace_moves_total{reason=\"%s\"} %lu\n",
		    scan_reason_tag(r), d->c.moves[r]);
	single(f, "vcpuplace_pins_failed_total", "counter", "Pins libvirt "
	    "refused; the vCPU kept its affinity.", (double)d->c.pins_failed);
	single(f, "vcpuplace_vms_vanished_total", "counter", "VMs that went "
	    "away between planning and pinning.", (double)d->c.vanished);
	single(f, "vcpuplace_libvirt_errors_total", "counter", "Failed "
	    "libvirt calls.", (double)d->c.libvirt_errors);
	single(f, "vcpuplace_libvirt_reconnects_total", "counter",
	    "Connections to libvirt made again after one was lost.",
	    (double)d->c.reconnects);
	single(f, "vcpuplace_invalid_metadata_total", "counter", "Policy "
	    "metadata rejected (the VM kept its previous policy), or Nova "
	    "metadata that cannot be read.",
	    (double)d->c.invalid_metadata);
	family(f, "vcpuplace_policy_refused_total", "counter", "Requests "
	    "the host refused, each once per change of its reason: a VM's "
	    "own metadata asking for what only the host grants (tenant), or "
	    "a grant past the budget of exclusive cores (budget); the VM is "
	    "placed as the host default.");
	fprintf(f, "vcpuplace_policy_refused_total{cause=\"tenant\"} %lu\n",
	    d->c.refused[VP_REFUSED_TENANT]);
	fprintf(f, "vcpuplace_policy_refused_total{cause=\"budget\"} %lu\n",
	    d->c.refused[VP_REFUSED_BUDGET]);
	single(f, "vcpuplace_vcpu_thread_errors_total", "counter", "VMs "
	    "whose vCPU threads could not be told (QEMU gone, or a 'CPU N/' "
	    "thread name missing or duplicated): those threads are left "
	    "alone.", (double)d->c.thread_errors);
	single(f, "vcpuplace_vm_name_errors_total", "counter", "Running "
	    "domains left alone because their name is longer than 255 bytes.",
	    (double)d->c.name_errors);
	single(f, "vcpuplace_reloads_total", "counter", "Reloads (SIGHUP or "
	    "the reload command).", (double)d->c.reloads);
	single(f, "vcpuplace_reload_errors_total", "counter", "Reloads that "
	    "kept the previous policies or topology because the new ones "
	    "were bad.", (double)d->c.reload_errors);
	single(f, "vcpuplace_last_reload_successful", "gauge", "0 while the "
	    "last reload kept the previous policies or topology, else 1 (also "
	    "before any reload): alert on 0.", d->c.reload_failed ? 0 : 1);
	family(f, "vcpuplace_socket_requests_total", "counter", "Control "
	    "socket requests, by command.");
	for (r = 0; r < VP_CMD_COUNT; r++)
		fprintf(f, "vcpuplace_socket_requests_total{command=\"%s\"} "
		    "%lu\n", request_name(r), d->c.ctl_requests[r]);
	family(f, "vcpuplace_socket_rejected_total", "counter", "Control "
	    "socket requests answered with an error, by cause.");
	for (r = 1; r < VP_REJ_COUNT; r++)
		fprintf(f, "vcpuplace_socket_rejected_total{cause=\"%s\"} "
		    "%lu\n", reject_names[r], d->c.ctl_rejected[r]);
	family(f, "vcpuplace_socket_person_limit_total", "counter",
	    "Connections refused because their person already held its "
	    "share of the socket, by what told the person (login_uid, "
	    "slice, uid).");
	for (r = 0; r < VP_PEER_KIND_COUNT; r++)
		fprintf(f, "vcpuplace_socket_person_limit_total{key=\"%s\"} "
		    "%lu\n", peer_kind_label(r), d->c.ctl_person_limit[r]);
	single(f, "vcpuplace_socket_queued_bytes", "gauge", "Bytes of "
	    "answers that clients have still to read, an answer shared by "
	    "several counted once; new requests are refused as busy past "
	    "32 MiB.", (double)d->ctl.queued);
}

/* The libvirt worker (doc/libvirt-worker.md): is libvirt answering. */
static void
libvirt_metrics(const struct vp_daemon *d, FILE *f)
{
	const struct vp_lv_pending *p = libvirt_oldest(d);
	uint64_t now = clock_now_ns();

	single(f, "vcpuplace_libvirt_answering", "gauge", "1 while libvirt "
	    "answers: connected, and no request out longer than 2 s.",
	    !strcmp(libvirt_state_name(d, now), "answering"));
	single(f, "vcpuplace_libvirt_request_age_seconds", "gauge", "Age of "
	    "the oldest request to libvirt still unanswered, 0 when none.",
	    p ? (double)(now - p->sent_ns) / 1e9 : 0);
	single(f, "vcpuplace_libvirt_stalls_total", "counter", "Requests to "
	    "libvirt unanswered for 2 s.", (double)d->lv.stalls);
	single(f, "vcpuplace_libvirt_snapshot_age_seconds", "gauge", "Age of "
	    "the inventory the plans are made from, -1 before the first.",
	    d->lv.snapshot_ns ? (double)(now - d->lv.snapshot_ns) / 1e9 : -1);
	single(f, "vcpuplace_libvirt_bad_messages_total", "counter",
	    "Messages from the libvirt worker refused by the size checks, "
	    "or out of place (a bug).", (double)d->lv.bad_messages);
}

static void
write_state(const struct vp_daemon *d, FILE *f)
{
	const struct vp_topo *t = d->topo;
	int i;

	family(f, "vcpuplace_info", "gauge", "Always 1; the labels say what "
	    "runs.");
	fprintf(f, "vcpuplace_info{version=\"%s\",hostname=\"", VP_VERSION);
	label(f, d->hostname);
	fputs("\"} 1\n", f);
	family(f, "vcpuplace_kernel_mode", "gauge", "1 for the mode the "
	    "daemon runs in: sched-ext (its BPF scheduler), kernel-patch (the "
	    "kernel series' SIS_CORE in sched/features) or userspace "
	    "(affinity only).");
	fprintf(f, "vcpuplace_kernel_mode{mode=\"%s\"} 1\n",
	    schedext_mode_label(d));
	family(f, "vcpuplace_kernel_sis_core", "gauge", "1 for the state of "
	    "the series' SIS_CORE scheduler feature: on, off, absent (stock "
	    "kernel, or no debugfs) or unknown (unreadable, e.g. lockdown); "
	    "reread on reload.");
	fprintf(f, "vcpuplace_kernel_sis_core{state=\"%s\"} 1\n",
	    schedfeat_sis_core_name(d->sis_core));
	single(f, "vcpuplace_core_sched_supported", "gauge", "1 when "
	    "prctl(PR_SCHED_CORE) works on this kernel.",
	    d->core_sched_supported);
	capability_metrics(f, d);
	single(f, "vcpuplace_dry_run", "gauge", "1 when the daemon plans but "
	    "never pins.", d->dry_run);
	single(f, "vcpuplace_paused", "gauge", "1 while placement is paused "
	    "(the pause command): nothing is planned or pinned.", d->paused);
	family(f, "vcpuplace_feature", "gauge", "1 for each placement "
	    "heuristic that is on (feature_list.h; --feature NAME=off).");
	for (i = 0; i < VP_FEAT_COUNT; i++)
		fprintf(f, "vcpuplace_feature{name=\"%s\"} %d\n",
		    features_name(i), d->feat.on[i] ? 1 : 0);
	single(f, "vcpuplace_libvirt_connected", "gauge", "1 while connected "
	    "to libvirt.", libvirt_connected(d));
	libvirt_metrics(d, f);
	family(f, "vcpuplace_topology_objects", "gauge", "Objects of the "
	    "host model, by type.");
	fprintf(f, "vcpuplace_topology_objects{type=\"package\"} %d\n"
	    "vcpuplace_topology_objects{type=\"numa_node\"} %d\n"
	    "vcpuplace_topology_objects{type=\"llc\"} %d\n"
	    "vcpuplace_topology_objects{type=\"cluster\"} %d\n"
	    "vcpuplace_topology_objects{type=\"core\"} %d\n"
	    "vcpuplace_topology_objects{type=\"pu\"} %d\n", t->npackages,
	    t->nnodes, t->nllcs, t->nclusters, t->ncores, t->npus);
	single(f, "vcpuplace_smt_conflicts", "gauge", "Busy vCPUs on a core "
	    "whose SMT sibling is busy while their allowed set has a whole "
	    "idle core.", load_smt_conflicts(d));
}

int
metrics_write(const struct vp_daemon *d, FILE *f)
{
	write_state(d, f);
	write_managed(d, f);
	write_llcs(d, f);
	write_counters(d, f);
	write_histogram(f, &plan_def, &d->c.plan_hist);
	write_latency(d, f);
	write_sched_ext(d, f);
	write_vcpus(d, f);
	write_wake_counters(d, f);
	return ferror(f) ? -EIO : 0;
}
