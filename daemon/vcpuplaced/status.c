/*
 * status.c - the daemon's state as JSON (json-c): the answer to the
 * socket's "status", and the optional --status-file, rewritten
 * atomically when it changes (for tools that read files, and for
 * post-mortems of a daemon that is gone).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <json-c/json.h>

#include "host/atomicfile.h"
#include "vcpuplaced/daemon.h"

static json_object *
cpus_json(const struct vp_topo *t, const struct vp_cpuset *s)
{
	char buf[8192];

	if (cpulist_format(t, s, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	return json_object_new_string(buf);
}

static json_object *
pu_json(const struct vp_topo *t, int pu)
{
	return pu == VP_PU_NONE ? NULL :
	    json_object_new_int((int)t->pu[pu].os_index);
}

/*
 * The BPF scheduler's counters of one vCPU: the same "wake" object, its
 * home, smt_busy and migrated meaning what the kernel series' do, and
 * the others beside them, under vcpuplace_scx.h's names.
 */
static json_object *
scx_wake_json(const struct vp_scx_vcpu_stats *w)
{
	static const char *const names[VP_SCX_VSTAT_NR] = VP_SCX_VSTAT_NAMES;
	json_object *o = json_object_new_object();
	int i;

	for (i = 0; i < VP_SCX_VSTAT_NR; i++)
		json_object_object_add(o, names[i], json_object_new_int64(
		    (int64_t)w->n[i]));
	return o;
}

static json_object *
vm_json(const struct vp_daemon *d, const struct vp_vm *vm,
    const struct vp_cpuset *idle_cores)
{
	json_object *o = json_object_new_object(), *pol, *arr;
	int k;

	pol = json_object_new_object();
	json_object_object_add(pol, "profile",
	    json_object_new_string(vm->profile));
	json_object_object_add(pol, "mode",
	    json_object_new_string(policy_mode_name(vm->policy.mode)));
	json_object_object_add(pol, "smt",
	    json_object_new_string(policy_smt_name(vm->policy.smt)));
	json_object_object_add(pol, "locality", json_object_new_string(
	    policy_locality_name(vm->policy.locality)));
	json_object_object_add(pol, "priority", json_object_new_string(
	    policy_priority_name(vm->policy.priority)));
	json_object_object_add(o, "name", json_object_new_string(vm->name));
	json_object_object_add(o, "policy", pol);
	json_object_object_add(o, "error",
	    vm->error[0] ? json_object_new_string(vm->error) : NULL);
	/* what the host refused it, and so placed it as the host default */
	json_object_object_add(o, "refused",
	    vm->refused[0] ? json_object_new_string(vm->refused) : NULL);
	json_object_object_add(o, "granted",
	    json_object_new_boolean(vm->granted));
	/* what chose the profile, and which host rule when one did */
	json_object_object_add(o, "source",
	    json_object_new_string(choose_source_name(vm->source)));
	json_object_object_add(o, "rule", vm->source == VP_SOURCE_RULE ?
	    json_object_new_string(vm->rule) : NULL);
	arr = json_object_new_array();
	for (k = 0; k < vm->nvcpus; k++) {
		const struct vp_vcpu *v = &vm->vcpu[k];
		json_object *c = json_object_new_object();

		json_object_object_add(c, "vcpu", json_object_new_int(k));
		json_object_object_add(c, "tid", json_object_new_int(v->tid));
		/* the home of the affinity in force, not of a pending plan */
		json_object_object_add(c, "home",
		    pu_json(d->topo, v->placed_home));
		json_object_object_add(c, "allowed",
		    cpus_json(d->topo, &v->affinity));
		json_object_object_add(c, "current",
		    pu_json(d->topo, v->current));
		json_object_object_add(c, "reason",
		    json_object_new_string(scan_reason_tag(v->reason)));
		json_object_object_add(c, "delay_seconds",
		    json_object_new_double((double)v->delay_ns / 1e9));
		json_object_object_add(c, "busy", json_object_new_double(
		    v->util));
		json_object_object_add(c, "smt_conflict",
		    json_object_new_boolean(load_smt_conflict(d, v,
		    idle_cores)));
		/* only our BPF scheduler counts a vCPU's wake-ups */
		if (v->scx_known)
			json_object_object_add(c, "wake",
			    scx_wake_json(&v->scx));
		json_object_array_add(arr, c);
	}
	json_object_object_add(o, "vcpus", arr);
	return o;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median and 99th percentile of the plan times of the last ticks. */
static void
plan_quantiles(const struct vp_daemon *d, uint64_t *p50, uint64_t *p99)
{
	uint64_t v[256];
	size_t n = d->c.ticks < 256 ? d->c.ticks : 256;

	*p50 = *p99 = 0;
	if (!n)
		return;
	memcpy(v, d->c.plan_ns_ring, n * sizeof(v[0]));
	qsort(v, n, sizeof(v[0]), cmp_u64);
	*p50 = v[n / 2];
	*p99 = v[(n * 99) / 100];
}

/* The model the daemon plans on, in the counts an operator checks. */
static json_object *
topology_json(const struct vp_topo *t)
{
	json_object *o = json_object_new_object();
	char buf[8192];

#define INT(k, v) json_object_object_add(o, k, json_object_new_int(v))
	INT("packages", t->npackages);
	INT("numa_nodes", t->nnodes);
	INT("llcs", t->nllcs);
	INT("clusters", t->nclusters);
	INT("cores", t->ncores);
	INT("pus", t->npus);
	INT("smt", t->max_smt);
#undef INT
	if (cpulist_format(t, &t->all, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	json_object_object_add(o, "cpus", json_object_new_string(buf));
	return o;
}

/*
 * Every PU with its place in the tree and how busy it was: what
 * `vcpuplacectl top` draws, whichever host or topology file the daemon
 * models.
 */
static json_object *
pus_json(const struct vp_daemon *d)
{
	const struct vp_topo *t = d->topo;
	json_object *arr = json_object_new_array();
	int pu;

	for (pu = 0; pu < t->npus; pu++) {
		json_object *o = json_object_new_object();

#define INT(k, v) json_object_object_add(o, k, json_object_new_int(v))
		INT("cpu", (int)t->pu[pu].os_index);
		INT("package", t->llc[t->pu[pu].llc].package);
		INT("llc", t->pu[pu].llc);
		INT("cluster", t->pu[pu].cluster);
		INT("core", t->pu[pu].core);
#undef INT
		json_object_object_add(o, "busy", json_object_new_double(
		    d->load.pu_util ? d->load.pu_util[pu] : 0));
		json_object_object_add(o, "reserved", json_object_new_boolean(
		    cpuset_test(&d->reserved, pu)));
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *
host_json(const struct vp_daemon *d)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "hostname",
	    json_object_new_string(d->hostname));
	json_object_object_add(o, "uri", json_object_new_string(d->uri));
	json_object_object_add(o, "uptime_seconds", json_object_new_double(
	    (double)(clock_now_ns() - d->started_ns) / 1e9));
	json_object_object_add(o, "topology", topology_json(d->topo));
	json_object_object_add(o, "pus", pus_json(d));
	return o;
}

/* A CPU list, or null when none or unread. */
static json_object *
list_or_null(int err, const char *list)
{
	return !err && list[0] ? json_object_new_string(list) : NULL;
}

/*
 * The CPU isolation start-up read, which sched_ext may refuse:
 * "verdict" (isolation.h's names), the kernel's lists, and the files
 * that could not be read.
 */
static json_object *
isolation_json(const struct vp_schedext *s)
{
	const struct isol_info *in = &s->isol;
	json_object *o = json_object_new_object(), *errs;
	char words[512];

	json_object_object_add(o, "verdict", json_object_new_string(
	    isol_verdict_name(s->isol_verdict)));
	schedext_isolation_words(s, words, sizeof(words));
	json_object_object_add(o, "words", json_object_new_string(words));
	json_object_object_add(o, "isolated", list_or_null(in->isolated_err,
	    in->isolated));
	json_object_object_add(o, "isolcpus", list_or_null(in->cmdline_err,
	    in->cmd.isolcpus));
	json_object_object_add(o, "isolcpus_domain", json_object_new_boolean(
	    !in->cmdline_err && in->cmd.domain));
	json_object_object_add(o, "nohz_full", list_or_null(in->cmdline_err,
	    in->cmd.nohz_full));
	errs = json_object_new_object();
	if (in->cmdline_err)
		json_object_object_add(errs, ISOL_CMDLINE,
		    json_object_new_string(strerror(-in->cmdline_err)));
	if (in->isolated_err)
		json_object_object_add(errs, ISOL_ISOLATED,
		    json_object_new_string(in->isolated_err == -EINVAL ?
		    "not a CPU list" : strerror(-in->isolated_err)));
	if (in->release_err)
		json_object_object_add(errs, ISOL_RELEASE,
		    json_object_new_string(strerror(-in->release_err)));
	json_object_object_add(o, "unreadable", errs);
	return o;
}

/* Why the BPF scheduler runs or not, its last exit, its counters. */
static json_object *
sched_ext_json(const struct vp_schedext *s)
{
	static const char *const names[VP_SCX_STAT_NR] = VP_SCX_STAT_NAMES;
	json_object *o = json_object_new_object(), *ex = NULL, *st = NULL;
	const char *probes_via = schedext_halt_probes(s);
	int i;

	json_object_object_add(o, "option", json_object_new_string(
	    schedext_opt_name(s->opt)));
	json_object_object_add(o, "state", json_object_new_string(
	    schedext_state_name(s->state)));
	json_object_object_add(o, "cause", json_object_new_string(
	    schedext_cause_name(s->cause)));
	json_object_object_add(o, "why", json_object_new_string(s->why));
	json_object_object_add(o, "ops", s->state == VP_SCX_LOADED ?
	    json_object_new_string(VP_SCX_NAME) : s->ops[0] ?
	    json_object_new_string(s->ops) : NULL);
	json_object_object_add(o, "partial", json_object_new_boolean(
	    (s->load_flags & SCX_LOAD_PARTIAL) != 0));
	json_object_object_add(o, "ejections", json_object_new_int64(
	    (int64_t)s->ejections));
	json_object_object_add(o, "restarts", json_object_new_int64(
	    (int64_t)s->restarts));
	json_object_object_add(o, "halt_probes", json_object_new_boolean(
	    probes_via != NULL));
	json_object_object_add(o, "halt_probes_via", probes_via ?
	    json_object_new_string(probes_via) : NULL);
	json_object_object_add(o, "errors", json_object_new_int64(
	    (int64_t)s->errors));
	json_object_object_add(o, "threads_own_class", json_object_new_int(
	    s->own_class));
	json_object_object_add(o, "quota_vms", json_object_new_int64(
	    (int64_t)s->quota_vms));
	json_object_object_add(o, "quota_first", s->quota_vms ?
	    json_object_new_string(s->quota_first) : NULL);
	json_object_object_add(o, "quota_enforced", json_object_new_boolean(
	    scx_quota_enforced()));
	json_object_object_add(o, "cgroup_weight", json_object_new_boolean(
	    s->sched && s->cg_weights));
	if (s->exit_known) {
		ex = json_object_new_object();
		json_object_object_add(ex, "kind", json_object_new_int(
		    s->exit.kind));
		json_object_object_add(ex, "kind_name", json_object_new_string(
		    scx_exit_kind_name(s->exit.kind)));
		json_object_object_add(ex, "reason", json_object_new_string(
		    s->exit.reason));
		json_object_object_add(ex, "msg", json_object_new_string(
		    s->exit.msg));
	}
	json_object_object_add(o, "last_exit", ex);
	json_object_object_add(o, "isolation", s->isol_known ?
	    isolation_json(s) : NULL);
	if (s->sched) {
		st = json_object_new_object();
		for (i = 0; i < VP_SCX_STAT_NR; i++)
			json_object_object_add(st, names[i],
			    json_object_new_int64((int64_t)s->stats[i]));
	}
	json_object_object_add(o, "counters", st);
	return o;
}

/* Every placement heuristic by name: true when on. */
static json_object *
features_json(const struct vp_features *feat)
{
	json_object *o = json_object_new_object();
	int i;

	for (i = 0; i < VP_FEAT_COUNT; i++)
		json_object_object_add(o, features_name(i),
		    json_object_new_boolean(feat->on[i]));
	return o;
}

/*
 * The capabilities the loop thread holds now (read from the kernel, not
 * from our own bookkeeping): the names of the service's own, and how
 * many it holds in all ("held", -1 when unreadable), and whether bpf(2)
 * is filtered out.
 */
static json_object *
capabilities_json(const struct vp_daemon *d)
{
	json_object *o = json_object_new_object(), *a;
	bool held[VP_PRIV_COUNT];
	int i, n = privs_read(held);

	a = json_object_new_array();
	for (i = 0; n >= 0 && i < VP_PRIV_COUNT; i++)
		if (held[i])
			json_object_array_add(a, json_object_new_string(
			    privs_name((enum vp_priv)i)));
	json_object_object_add(o, "held", json_object_new_int(n < 0 ? -1 : n));
	json_object_object_add(o, "names", a);
	json_object_object_add(o, "bpf_denied",
	    json_object_new_boolean(d->privs.bpf_denied));
	return o;
}

/*
 * The libvirt worker, as the loop sees it: whether libvirt answers, the
 * oldest request still out and its age, the age of the inventory the
 * plans are made from (doc/libvirt-worker.md).
 */
static json_object *
libvirt_json(const struct vp_daemon *d)
{
	json_object *o = json_object_new_object();
	const struct vp_lv_pending *p = libvirt_oldest(d);
	uint64_t now = clock_now_ns();

	json_object_object_add(o, "state", json_object_new_string(
	    libvirt_state_name(d, now)));
	json_object_object_add(o, "request", p ? json_object_new_string(
	    libvirt_kind_name(p->kind)) : NULL);
	json_object_object_add(o, "request_seq",
	    json_object_new_int64(p ? (int64_t)p->seq : 0));
	json_object_object_add(o, "request_age_ms", json_object_new_int64(
	    p ? (int64_t)((now - p->sent_ns) / 1000000) : 0));
	json_object_object_add(o, "snapshot_age_ms", json_object_new_int64(
	    d->lv.snapshot_ns ? (int64_t)((now - d->lv.snapshot_ns) /
	    1000000) : -1));
	json_object_object_add(o, "stalls",
	    json_object_new_int64((int64_t)d->lv.stalls));
	return o;
}

json_object *
status_json(const struct vp_daemon *d)
{
	uint64_t p50, p99;
	json_object *o = json_object_new_object(), *vms;
	struct vp_cpuset idle;
	int i;

#define NUM(k, v) \
	json_object_object_add(o, k, json_object_new_int64((int64_t)(v)))
	json_object_object_add(o, "host", host_json(d));
	NUM("tick", d->c.ticks);
	NUM("tick_ms", d->tick_ms);
	json_object_object_add(o, "connected", json_object_new_boolean(
	    libvirt_connected(d)));
	json_object_object_add(o, "libvirt", libvirt_json(d));
	json_object_object_add(o, "dry_run",
	    json_object_new_boolean(d->dry_run));
	json_object_object_add(o, "paused",
	    json_object_new_boolean(d->paused));
	json_object_object_add(o, "features", features_json(&d->feat));
	json_object_object_add(o, "core_sched", json_object_new_string(
	    d->core_sched_supported ? "supported" : "unsupported"));
	json_object_object_add(o, "kernel_mode", json_object_new_string(
	    schedext_mode_label(d)));
	json_object_object_add(o, "capabilities", capabilities_json(d));
	json_object_object_add(o, "sched_ext", sched_ext_json(&d->scx));
	json_object_object_add(o, "sis_core", json_object_new_string(
	    schedfeat_sis_core_name(d->sis_core)));
	NUM("reconnects", d->c.reconnects);
	NUM("libvirt_errors", d->c.libvirt_errors);
	NUM("invalid_metadata", d->c.invalid_metadata);
	NUM("refused_tenant", d->c.refused[VP_REFUSED_TENANT]);
	NUM("refused_budget", d->c.refused[VP_REFUSED_BUDGET]);
	NUM("pins_failed", d->c.pins_failed);
	NUM("vanished", d->c.vanished);
	NUM("plan_ns", d->c.plan_ns_last);
	plan_quantiles(d, &p50, &p99);
	NUM("plan_ns_p50", p50);
	NUM("plan_ns_p99", p99);
	NUM("smt_conflicts", load_smt_conflicts(d));
#undef NUM
	vms = json_object_new_array();
	load_idle_core_pus(d, &idle);
	for (i = 0; i < d->nvms; i++)
		json_object_array_add(vms, vm_json(d, &d->vm[i], &idle));
	json_object_object_add(o, "vms", vms);
	return o;
}

int
status_write(const struct vp_daemon *d)
{
	json_object *o;
	int r;

	if (!d->status_file)
		return 0;
	o = status_json(d);
	/* 0644: readable by the tools that read it, written by us only */
	r = atomicfile_write(d->status_file, json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN), 0644);
	json_object_put(o);
	return r;
}
