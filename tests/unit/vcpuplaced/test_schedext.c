/*
 * test_schedext.c - the daemon's side of the sched_ext scheduler without
 * BPF: the start decision for every option and every thing start-up can
 * find, the tables the BPF side reads, built from real topology files
 * (g4dn.metal: wide LLCs; KNL SNC4: 2-core tiles, 4 threads a core;
 * POWER9 lassen: core pairs, SMT4, holes in the CPU ids), the per-vCPU
 * entry for each policy, and the diff that writes only what changed.
 * On this host (no sched_ext, stub loader) start-up must say why it
 * stays in the other mode, and `on` must refuse to start.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <json-c/json.h>

#include "vcpuplaced/daemon.h"
#include "../suites.h"
#include "../testutil.h"

static const char *const topo_files[] = { "g4dnmetal.xml",
	"knl-snc4-flat-hwloc1.xml", "coral-lassen.xml" };

START_TEST(test_parse_opt)
{
	enum vp_scx_opt o = VP_SCX_OPT_ON;

	ck_assert_int_eq(schedext_parse_opt("auto", &o), 0);
	ck_assert_int_eq(o, VP_SCX_OPT_AUTO);
	ck_assert_int_eq(schedext_parse_opt("off", &o), 0);
	ck_assert_int_eq(o, VP_SCX_OPT_OFF);
	ck_assert_int_eq(schedext_parse_opt("on", &o), 0);
	ck_assert_int_eq(o, VP_SCX_OPT_ON);
	/* *ret untouched on failure */
	ck_assert_int_eq(schedext_parse_opt("bogus", &o), -EINVAL);
	ck_assert_int_eq(schedext_parse_opt("", &o), -EINVAL);
	ck_assert_int_eq(schedext_parse_opt("On", &o), -EINVAL);
	ck_assert_int_eq(o, VP_SCX_OPT_ON);
	ck_assert_str_eq(schedext_opt_name(VP_SCX_OPT_AUTO), "auto");
}
END_TEST

/* What start-up can find, and what each option makes of it. */
static const struct {
	const char *name;
	struct vp_scx_probe p;	/* opt filled per row below */
	enum vp_scx_state state;	/* auto and on; off is always off */
	enum vp_scx_cause cause;
} found[] = {
	{ "supported", { 0 }, VP_SCX_LOADED, VP_SCX_CAUSE_NONE },
	{ "no sched_ext", { .supported = -ENOENT }, VP_SCX_UNAVAILABLE,
	  VP_SCX_CAUSE_NO_SCHED_EXT },
	{ "no BTF", { .supported = -ENODATA }, VP_SCX_UNAVAILABLE,
	  VP_SCX_CAUSE_NO_BTF },
	{ "not built", { .supported = -EOPNOTSUPP }, VP_SCX_UNAVAILABLE,
	  VP_SCX_CAUSE_NOT_BUILT },
	{ "another loaded", { .other = "scx_rusty" }, VP_SCX_DECLINED,
	  VP_SCX_CAUSE_OTHER },
	{ "load -EBUSY", { .load_err = -EBUSY }, VP_SCX_DECLINED,
	  VP_SCX_CAUSE_OTHER },
	{ "load -EPERM", { .load_err = -EPERM }, VP_SCX_UNAVAILABLE,
	  VP_SCX_CAUSE_LOAD_FAILED },
	{ "too big", { .topo_err = -E2BIG, .topo_why = "1200 CPUs" },
	  VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_TOPOLOGY },
	/* what the kernel lacks outranks what the operator asked */
	{ "no sched_ext, other", { .supported = -ENOENT, .other = "x",
	  .load_err = -EBUSY }, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_NO_SCHED_EXT },
	/* a dry run looks, but loads nothing */
	{ "dry run", { .dry_run = true }, VP_SCX_OFF, VP_SCX_CAUSE_DRY_RUN },
	{ "dry run, no BTF", { .dry_run = true, .supported = -ENODATA },
	  VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_NO_BTF },
	/* isolcpus= domain isolation: the kernel refuses any scheduler */
	{ "isolcpus", { .isol = ISOL_BOOT }, VP_SCX_UNAVAILABLE,
	  VP_SCX_CAUSE_ISOLCPUS },
	{ "isolated", { .isol = ISOL_DOMAIN }, VP_SCX_UNAVAILABLE,
	  VP_SCX_CAUSE_ISOLCPUS },
	/* ... before this binary's lack, after the kernel's */
	{ "isolcpus, not built", { .supported = -EOPNOTSUPP,
	  .isol = ISOL_BOOT }, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_ISOLCPUS },
	{ "isolcpus, no sched_ext", { .supported = -ENOENT,
	  .isol = ISOL_BOOT }, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_NO_SCHED_EXT },
	{ "isolcpus, other", { .isol = ISOL_BOOT, .other = "x" },
	  VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_ISOLCPUS },
	/* a cpuset partition is tried; only 7.0's EINVAL is put down to it */
	{ "partition", { .isol = ISOL_PARTITION }, VP_SCX_LOADED,
	  VP_SCX_CAUSE_NONE },
	{ "partition, load -EINVAL", { .isol = ISOL_PARTITION,
	  .load_err = -EINVAL }, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_ISOLCPUS },
	{ "load -EINVAL", { .load_err = -EINVAL }, VP_SCX_UNAVAILABLE,
	  VP_SCX_CAUSE_LOAD_FAILED },
	{ "isolation unknown", { .isol = ISOL_UNKNOWN }, VP_SCX_LOADED,
	  VP_SCX_CAUSE_NONE },
	/* sched_ext enabling or disabling: scx_enable() says -EBUSY */
	{ "busy", { .busy = "disabling" }, VP_SCX_DECLINED, VP_SCX_CAUSE_OTHER },
};

START_TEST(test_decide)
{
	static const enum vp_scx_opt opts[] = { VP_SCX_OPT_AUTO, VP_SCX_OPT_ON,
		VP_SCX_OPT_OFF };
	size_t i, o;

	for (i = 0; i < sizeof(found) / sizeof(found[0]); i++)
		for (o = 0; o < 3; o++) {
			struct vp_scx_probe p = found[i].p;
			struct vp_scx_verdict v;
			bool off = opts[o] == VP_SCX_OPT_OFF;

			memset(&v, 0xa5, sizeof(v));
			p.opt = opts[o];
			schedext_decide(&p, &v);
			ck_assert_msg(v.state == (off ? VP_SCX_OFF :
			    found[i].state) && v.cause == (off ?
			    VP_SCX_CAUSE_OPTION : found[i].cause),
			    "%s, %s: state %s cause %s", found[i].name,
			    schedext_opt_name(opts[o]),
			    schedext_state_name(v.state),
			    schedext_cause_name(v.cause));
			/* only on turns "not loaded" into a start error,
			 * and a dry run is not a failure */
			ck_assert_msg(v.fatal == (opts[o] == VP_SCX_OPT_ON &&
			    v.state != VP_SCX_LOADED &&
			    v.cause != VP_SCX_CAUSE_DRY_RUN),
			    "%s, %s: fatal %d", found[i].name,
			    schedext_opt_name(opts[o]), v.fatal);
			/* a reason in words whenever it is not loaded */
			ck_assert_msg((v.why[0] != '\0') ==
			    (v.state != VP_SCX_LOADED), "%s: why '%s'",
			    found[i].name, v.why);
		}
}
END_TEST

/*
 * A VM with a CPU quota (cpu.max), which the scheduler does not
 * enforce: auto does not load, on loads (and warns, test_life_quota);
 * what the kernel refuses comes first.
 */
START_TEST(test_decide_quota)
{
	struct vp_scx_probe p = { .opt = VP_SCX_OPT_AUTO, .quota_vms = 1,
	    .quota_why = "VM vm0: <quota> 50000 us per 100000 us period" };
	struct vp_scx_verdict v;

	ck_assert(!scx_quota_enforced());
	schedext_decide(&p, &v);
	ck_assert_int_eq(v.state, VP_SCX_UNAVAILABLE);
	ck_assert_int_eq(v.cause, VP_SCX_CAUSE_CPU_QUOTA);
	ck_assert(!v.fatal);
	ck_assert_str_eq(schedext_cause_name(v.cause), "cpu-quota");
	ck_assert_msg(strstr(v.why, "a VM has a CPU quota (cpu.max), which "
	    "the BPF scheduler does not enforce") && strstr(v.why,
	    "(VM vm0: <quota> 50000 us per 100000 us period)"), "%s", v.why);
	p.opt = VP_SCX_OPT_ON;
	schedext_decide(&p, &v);
	ck_assert_int_eq(v.state, VP_SCX_LOADED);
	ck_assert(!v.fatal);
	p.opt = VP_SCX_OPT_OFF;
	schedext_decide(&p, &v);
	ck_assert_int_eq(v.cause, VP_SCX_CAUSE_OPTION);
	/* the kernel's refusal is named before the quota */
	p.opt = VP_SCX_OPT_AUTO;
	p.isol = ISOL_BOOT;
	schedext_decide(&p, &v);
	ck_assert_int_eq(v.cause, VP_SCX_CAUSE_ISOLCPUS);
	p.isol = ISOL_NONE;
	p.supported = -ENOENT;
	schedext_decide(&p, &v);
	ck_assert_int_eq(v.cause, VP_SCX_CAUSE_NO_SCHED_EXT);
	/* no quota: loaded */
	p = (struct vp_scx_probe){ .opt = VP_SCX_OPT_AUTO };
	schedext_decide(&p, &v);
	ck_assert_int_eq(v.state, VP_SCX_LOADED);
}
END_TEST

/* The words name what was found: the other scheduler, the limit. */
START_TEST(test_decide_words)
{
	struct vp_scx_probe p = { .other = "scx_rusty" };
	struct vp_scx_verdict v;

	schedext_decide(&p, &v);
	ck_assert_ptr_nonnull(strstr(v.why, "\"scx_rusty\""));
	p = (struct vp_scx_probe){ .topo_err = -E2BIG, .topo_why = "1200 CPUs" };
	schedext_decide(&p, &v);
	ck_assert_ptr_nonnull(strstr(v.why, "1200 CPUs"));
	p = (struct vp_scx_probe){ .supported = -ENOENT };
	schedext_decide(&p, &v);
	ck_assert_ptr_nonnull(strstr(v.why, "sched_ext"));
	p = (struct vp_scx_probe){ .isol = ISOL_BOOT,
	    .isol_why = "isolcpus=2-5 on the kernel command line" };
	schedext_decide(&p, &v);
	ck_assert_msg(strstr(v.why, "refuses BPF schedulers under isolcpus= "
	    "domain isolation (isolcpus=2-5 on the kernel command line)") !=
	    NULL, "%s", v.why);
	p = (struct vp_scx_probe){ .busy = "enabling" };
	schedext_decide(&p, &v);
	ck_assert_ptr_nonnull(strstr(v.why, "\"enabling\""));
}
END_TEST

/*
 * On a host without sched_ext (or with the stub loader): auto stays in
 * the other mode and says why, on refuses to start, off does nothing.
 * Skipped where the loader could really load (scx_loader.c on sched_ext).
 */
START_TEST(test_start_here)
{
	static const struct {
		int supported;
		enum vp_scx_cause cause;
	} here[] = {
		{ -ENOENT, VP_SCX_CAUSE_NO_SCHED_EXT },
		{ -ENODATA, VP_SCX_CAUSE_NO_BTF },
		{ -EOPNOTSUPP, VP_SCX_CAUSE_NOT_BUILT },
	};
	int sup = scx_supported(NULL);
	struct vp_daemon d;
	size_t i;

	if (sup == 0)
		return;
	memset(&d, 0, sizeof(d));
	d.topo = load_topo("g4dnmetal.xml");
	features_default(&d.feat);
	d.scx.opt = VP_SCX_OPT_AUTO;
	ck_assert_int_eq(schedext_start(&d), 0);
	ck_assert_int_eq(d.scx.state, VP_SCX_UNAVAILABLE);
	for (i = 0; i < sizeof(here) / sizeof(here[0]); i++)
		if (here[i].supported == sup &&
		    /* a host booted with isolcpus= says that first */
		    !(d.scx.cause == VP_SCX_CAUSE_ISOLCPUS &&
		    (d.scx.isol_verdict == ISOL_BOOT ||
		    d.scx.isol_verdict == ISOL_DOMAIN)))
			ck_assert_int_eq(d.scx.cause, here[i].cause);
	ck_assert(d.scx.why[0]);
	ck_assert_ptr_null(d.scx.sched);
	ck_assert_str_eq(schedext_mode_label(&d), kernelmode_label(&d));
	schedext_tick(&d);		/* nothing loaded: nothing done */
	schedext_stop(&d);
	ck_assert_uint_eq(d.scx.errors, 0);
	d.scx.opt = VP_SCX_OPT_ON;
	ck_assert_int_eq(schedext_start(&d), sup);
	d.scx.opt = VP_SCX_OPT_OFF;
	ck_assert_int_eq(schedext_start(&d), 0);
	ck_assert_int_eq(d.scx.state, VP_SCX_OFF);
	ck_assert_int_eq(d.scx.cause, VP_SCX_CAUSE_OPTION);
	topo_free(d.topo);
}
END_TEST

/* ---- the lifecycle, against a fake loader ---------------------- */

/*
 * A loader that keeps its tables in memory and writes every call to a
 * log ("set 100", "ext 100 1", "del 100", "free"), so a test can check
 * what was written, in which order, and what was not.
 */
#define FAKE_TIDS	64
static struct fake {
	int supported, load_err, pu_err, vcpu_set_err, ext_err;
	int own_class_tid;	/* this thread keeps its class (SCX_OWN_CLASS) */
	bool start_wrong;	/* a thread came with another start than its vCPU's */
	const char *ops, *ops_after_load;	/* loaded_ops() answers */
	int nload, nfree;
	unsigned int flags;
	uint32_t features;
	bool exited, ejected_read;
	struct scx_exit exit;
	struct vp_scx_pu pu[VP_SCX_MAX_CPUS];
	int npu_writes, ndom_writes;
	unsigned int dom_ids_written;	/* 1 + highest */
	struct {
		int tid;
		struct vp_scx_vcpu e;
	} map[FAKE_TIDS];
	int nmap;
	char log[8192];
} F;
static struct vp_scx_dom fake_dom[VP_SCX_MAX_DOMS];
#define FAKE_SCHED ((struct scx_sched *)&F)

static void
flog(const char *fmt, int a, int b)
{
	size_t n = strlen(F.log);

	snprintf(F.log + n, sizeof(F.log) - n, fmt, a, b);
}

static int
fake_supported(const char *root)
{
	(void)root;
	return F.supported;
}

static int
fake_loaded_ops(const char *root, char *buf, size_t len)
{
	(void)root;
	const char *o = F.nload ? F.ops_after_load : F.ops;

	if (!o)
		return -ENOENT;
	snprintf(buf, len, "%s", o);
	return 0;
}

static int
fake_load(struct scx_sched **ret, unsigned int flags)
{
	F.nload++;
	if (F.load_err)
		return F.load_err;
	F.flags = flags;
	*ret = FAKE_SCHED;
	flog("load;", 0, 0);
	return 0;
}

static void
fake_features_set(struct scx_sched *s, uint32_t f)
{
	ck_assert_ptr_eq(s, FAKE_SCHED);
	F.features = f;
}

static int
fake_pu_set(struct scx_sched *s, int cpu, const struct vp_scx_pu *pu)
{
	ck_assert_ptr_eq(s, FAKE_SCHED);
	ck_assert_int_lt(cpu, VP_SCX_MAX_CPUS);
	if (F.pu_err)
		return F.pu_err;
	F.pu[cpu] = *pu;
	F.npu_writes++;
	return 0;
}

static int
fake_dom_set(struct scx_sched *s, unsigned int id,
    const struct vp_scx_dom *dom)
{
	ck_assert_ptr_eq(s, FAKE_SCHED);
	ck_assert_uint_lt(id, VP_SCX_MAX_DOMS);
	fake_dom[id] = *dom;
	F.ndom_writes++;
	if (id + 1 > F.dom_ids_written)
		F.dom_ids_written = id + 1;
	return 0;
}

static int
fake_find(int tid)
{
	int i;

	for (i = 0; i < F.nmap; i++)
		if (F.map[i].tid == tid)
			return i;
	return -1;
}

static int
fake_vcpu_set(struct scx_sched *s, int tid, const struct vp_scx_vcpu *v)
{
	int i = fake_find(tid);

	ck_assert_ptr_eq(s, FAKE_SCHED);
	if (F.vcpu_set_err)
		return F.vcpu_set_err;
	flog("set %d;", tid, 0);
	if (i < 0) {
		ck_assert_int_lt(F.nmap, FAKE_TIDS);
		i = F.nmap++;
	}
	F.map[i].tid = tid;
	F.map[i].e = *v;
	return 0;
}

static int
fake_vcpu_del(struct scx_sched *s, int tid)
{
	int i = fake_find(tid);

	ck_assert_ptr_eq(s, FAKE_SCHED);
	flog("del %d;", tid, 0);
	if (i < 0)
		return -ENOENT;
	F.map[i] = F.map[--F.nmap];
	return 0;
}

/* tid's counter i is tid * 100 + i: recognisable in status, metrics */
static int
fake_vcpu_stats_read(const struct scx_sched *s, int tid,
    struct vp_scx_vcpu_stats *ret)
{
	int i;

	ck_assert_ptr_eq(s, FAKE_SCHED);
	if (fake_find(tid) < 0)
		return -ENOENT;
	for (i = 0; i < VP_SCX_VSTAT_NR; i++)
		ret->n[i] = (__u64)tid * 100 + i;
	return 0;
}

static int
fake_stats_read(const struct scx_sched *s, uint64_t ret[VP_SCX_STAT_NR])
{
	int i;

	ck_assert_ptr_eq(s, FAKE_SCHED);
	for (i = 0; i < VP_SCX_STAT_NR; i++)
		ret[i] = 7000 + i;
	return 0;
}

static bool fake_exited(const struct scx_sched *s) { (void)s; return F.exited; }

static int
fake_exit_read(const struct scx_sched *s, struct scx_exit *ret)
{
	(void)s;
	if (!F.exited)
		return -EAGAIN;
	*ret = F.exit;
	F.ejected_read = true;
	return 0;
}

static const char *
fake_exit_dump(const struct scx_sched *s)
{
	(void)s;
	return "runqueue 0: ...\ntask vcpu stalled";
}

static void
fake_free(struct scx_sched *s)
{
	if (!s)
		return;
	ck_assert_ptr_eq(s, FAKE_SCHED);
	F.nfree++;
	flog("free;", 0, 0);
}

/* life_setup()'s vCPU threads: QEMU pid 7, start time tid * 10. */
static int
fake_task_set_ext(const struct scx_thread *t, bool ext)
{
	flog("ext %d %d;", t->tid, ext);
	if (t->pid != 7 || t->start != (uint64_t)t->tid * 10)
		F.start_wrong = true;
	if (t->tid == F.own_class_tid)
		return SCX_OWN_CLASS;
	return ext ? F.ext_err : 0;
}

static const struct vp_scx_loader fake_loader = {
	.supported = fake_supported, .loaded_ops = fake_loaded_ops,
	.load = fake_load, .features_set = fake_features_set,
	.pu_set = fake_pu_set, .dom_set = fake_dom_set,
	.vcpu_set = fake_vcpu_set, .vcpu_del = fake_vcpu_del,
	.vcpu_stats_read = fake_vcpu_stats_read, .stats_read = fake_stats_read,
	.exited = fake_exited, .exit_read = fake_exit_read,
	.exit_dump = fake_exit_dump, .free = fake_free,
	.task_set_ext = fake_task_set_ext,
};

/*
 * The kernel the lifecycle sees: a fake root (life_setup() makes one,
 * isolation-free), so that a test host booted with isolcpus= does not
 * change what these tests find.
 */
static char kroot[64];

static void
kroot_make(void)
{
	strcpy(kroot, "/tmp/vp-schedext-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(kroot));
	tree_put(kroot, ISOL_RELEASE, "6.12.118-amd64\n");
	tree_put(kroot, ISOL_CMDLINE, "BOOT_IMAGE=/vmlinuz ro quiet\n");
	tree_put(kroot, ISOL_ISOLATED, "\n");
}

/* Two VMs of 2 vCPUs on g4dn.metal, homed and pinned, threads 101.. */
#define LNVMS	2
#define LNVCPUS	2
struct life {
	struct vp_daemon d;
	struct vp_vm vm[LNVMS];
	struct vp_vcpu vcpu[LNVMS][LNVCPUS];
};

static void
life_setup(struct life *w, enum vp_scx_opt opt)
{
	int i, k;

	memset(w, 0, sizeof(*w));
	memset(&F, 0, sizeof(F));
	w->d.topo = load_topo("g4dnmetal.xml");
	features_default(&w->d.feat);
	w->d.tick_ms = 250;
	w->d.uri = "test:///default";
	w->d.virt = (struct vp_virt)VP_VIRT_INIT;
	w->d.scx.ld = &fake_loader;
	w->d.scx.opt = opt;
	kroot_make();
	w->d.scx.root = kroot;
	for (i = 0; i < LNVMS; i++) {
		struct vp_vm *vm = &w->vm[i];

		snprintf(vm->name, sizeof(vm->name), "vm%d", i);
		snprintf(vm->profile, sizeof(vm->profile), "balanced");
		policy_default(&vm->policy);
		vm->policy_known = true;
		vm->nvcpus = LNVCPUS;
		vm->vcpu = w->vcpu[i];
		vm->pid = 7;
		for (k = 0; k < LNVCPUS; k++) {
			struct vp_vcpu *v = &w->vcpu[i][k];

			v->tid = 101 + i * LNVCPUS + k;
			v->tid_start = (uint64_t)v->tid * 10;
			v->placed_home = v->home = os2pu(w->d.topo,
			    (unsigned int)(2 * (i * LNVCPUS + k)));
			v->current = v->placed_home;
			v->affinity = w->d.topo->all;
			v->planned = v->affinity;
		}
	}
	w->d.vm = w->vm;
	w->d.nvms = LNVMS;
}

static void
life_teardown(struct life *w)
{
	schedext_stop(&w->d);
	free(w->d.scx.pushed);
	topo_free(w->d.topo);
	tree_remove(kroot);
}

/* Loaded, with the tables written and every vCPU in. */
static void
life_loaded(struct life *w)
{
	life_setup(w, VP_SCX_OPT_AUTO);
	ck_assert_int_eq(schedext_start(&w->d), 0);
	ck_assert_int_eq(w->d.scx.state, VP_SCX_LOADED);
	schedext_tick(&w->d);
	ck_assert_int_eq(F.nmap, LNVMS * LNVCPUS);
	F.log[0] = '\0';
}

START_TEST(test_life_load_writes_tables)
{
	struct life w;
	const struct vp_topo *t;
	static struct vp_scx_dom e;
	struct vp_scx_pu pu;
	enum vp_level l;
	unsigned int cpu;
	int i, holes;

	life_setup(&w, VP_SCX_OPT_AUTO);
	topo_free(w.d.topo);
	t = w.d.topo = load_topo(topo_files[_i]);
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_LOADED);
	ck_assert_int_eq(w.d.scx.cause, VP_SCX_CAUSE_NONE);
	ck_assert_str_eq(schedext_mode_label(&w.d), "sched-ext");
	ck_assert_int_eq(F.nload, 1);
	ck_assert_uint_eq(F.flags, 0);		/* a full switch */
	ck_assert_uint_eq(F.features, VP_SCX_FEAT_DEFAULT);
	/* every CPU id of the host, and nothing beyond */
	ck_assert_int_eq(F.npu_writes, (int)t->os_limit);
	for (cpu = 0, holes = 0; cpu < t->os_limit; cpu++) {
		i = topo_pu_of_os(t, cpu);
		if (i == VP_PU_NONE) {
			/* lassen: CPU ids outside the cgroup */
			ck_assert_uint_eq(F.pu[cpu].valid, 0);
			holes++;
			continue;
		}
		scxfeed_pu(t, i, &pu);
		ck_assert(memcmp(&pu, &F.pu[cpu], sizeof(pu)) == 0);
	}
	ck_assert_int_eq(holes, (int)t->os_limit - t->npus);
	/* every domain, as scxfeed_dom() makes it */
	ck_assert_int_eq(F.ndom_writes, (int)scxfeed_ndoms(t));
	ck_assert_uint_eq(F.dom_ids_written, scxfeed_ndoms(t));
	for (l = 0; l < VP_LEVEL_COUNT; l++)
		for (i = 0; i < wakedom_count(t, l); i++) {
			ck_assert_int_eq(scxfeed_dom(t, l, i, &e), 0);
			ck_assert(memcmp(&e, &fake_dom[scxfeed_dom_id(t, l, i)],
			    sizeof(e)) == 0);
		}
	/* no vCPU before the first tick */
	ck_assert_int_eq(F.nmap, 0);
	life_teardown(&w);
	ck_assert_int_eq(F.nfree, 1);
}
END_TEST

/* Another scheduler, or one that appears meanwhile: never displaced. */
START_TEST(test_life_declines)
{
	struct life w;

	life_setup(&w, VP_SCX_OPT_AUTO);
	F.ops = "scx_rusty";
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_DECLINED);
	ck_assert_int_eq(F.nload, 0);
	ck_assert_ptr_nonnull(strstr(w.d.scx.why, "\"scx_rusty\""));
	ck_assert_str_eq(w.d.scx.ops, "scx_rusty");
	w.d.scx.opt = VP_SCX_OPT_ON;
	ck_assert_int_eq(schedext_start(&w.d), -EBUSY);
	life_teardown(&w);

	life_setup(&w, VP_SCX_OPT_AUTO);
	F.load_err = -EBUSY;
	F.ops_after_load = "scx_lavd";
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_DECLINED);
	ck_assert_int_eq(w.d.scx.cause, VP_SCX_CAUSE_OTHER);
	ck_assert_ptr_nonnull(strstr(w.d.scx.why, "\"scx_lavd\""));
	ck_assert_ptr_null(w.d.scx.sched);
	life_teardown(&w);

	/* the tables cannot be written: unloaded, and said so */
	life_setup(&w, VP_SCX_OPT_AUTO);
	F.pu_err = -ENOMEM;
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_UNAVAILABLE);
	ck_assert_int_eq(w.d.scx.cause, VP_SCX_CAUSE_LOAD_FAILED);
	ck_assert_int_eq(F.nfree, 1);
	ck_assert_ptr_null(w.d.scx.sched);
	life_teardown(&w);

	/* a dry run changes no scheduling */
	life_setup(&w, VP_SCX_OPT_ON);
	w.d.dry_run = true;
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_OFF);
	ck_assert_int_eq(F.nload, 0);
	life_teardown(&w);
}
END_TEST

/* Metrics and status text of @d, malloc'ed. */
static char *
metrics_text(struct vp_daemon *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_int_eq(metrics_write(d, f), 0);
	fclose(f);
	return text;
}

static char *
status_text(const struct vp_daemon *d)
{
	struct json_object *st = status_json(d);
	char *text = strdup(json_object_to_json_string_ext(st,
	    JSON_C_TO_STRING_PLAIN));

	json_object_put(st);
	return text;
}

/*
 * isolcpus= domain isolation: never loaded, said in the log's words,
 * status and the metrics, and the other mode goes on; --sched-ext=on
 * does not start.  The nohz forms load.
 */
START_TEST(test_life_isolcpus)
{
	struct life w;
	char *text;

	life_setup(&w, VP_SCX_OPT_AUTO);
	tree_put(kroot, ISOL_CMDLINE, "ro isolcpus=domain,managed_irq,2-5\n");
	tree_put(kroot, ISOL_ISOLATED, "2-5\n");
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(F.nload, 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_UNAVAILABLE);
	ck_assert_int_eq(w.d.scx.cause, VP_SCX_CAUSE_ISOLCPUS);
	ck_assert_int_eq(w.d.scx.isol_verdict, ISOL_BOOT);
	ck_assert_msg(strstr(w.d.scx.why, "(isolcpus=domain,managed_irq,2-5 on "
	    "the kernel command line; CPUs 2-5 isolated)") != NULL, "%s",
	    w.d.scx.why);
	ck_assert_str_eq(schedext_mode_label(&w.d), kernelmode_label(&w.d));
	schedext_tick(&w.d);		/* nothing loaded: nothing written */
	ck_assert_int_eq(F.nmap, 0);
	text = metrics_text(&w.d);
	ck_assert_ptr_nonnull(strstr(text, "\nvcpuplace_sched_ext_state{"
	    "state=\"unavailable\",cause=\"isolcpus\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nvcpuplace_sched_ext_isolation{"
	    "verdict=\"isolcpus-domain\"} 1\n"));
	free(text);
	text = status_text(&w.d);
	ck_assert_msg(strstr(text, "\"cause\":\"isolcpus\"") &&
	    strstr(text, "\"isolation\":{\"verdict\":\"isolcpus-domain\",") &&
	    strstr(text, "\"isolated\":\"2-5\",\"isolcpus\":\"domain,"
	    "managed_irq,2-5\",\"isolcpus_domain\":true"), "%s", text);
	free(text);
	w.d.scx.opt = VP_SCX_OPT_ON;
	ck_assert_int_eq(schedext_start(&w.d), -EINVAL);
	ck_assert_int_eq(F.nload, 0);
	life_teardown(&w);

	/* nohz_full= and the nohz isolcpus= form: loaded */
	life_setup(&w, VP_SCX_OPT_AUTO);
	tree_put(kroot, ISOL_CMDLINE, "isolcpus=nohz,managed_irq,2-5 "
	    "nohz_full=2-5\n");
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_LOADED);
	ck_assert_int_eq(w.d.scx.isol_verdict, ISOL_NONE);
	text = status_text(&w.d);
	ck_assert_msg(strstr(text, "\"isolated\":null,\"isolcpus\":\"nohz,"
	    "managed_irq,2-5\",\"isolcpus_domain\":false,\"nohz_full\":"
	    "\"2-5\",\"unreadable\":{}"), "%s", text);
	free(text);
	life_teardown(&w);

	/* 7.x, a cpuset partition: tried; an EINVAL is put down to it */
	life_setup(&w, VP_SCX_OPT_AUTO);
	tree_put(kroot, ISOL_RELEASE, "7.3.4+deb13-amd64\n");
	tree_put(kroot, ISOL_ISOLATED, "4-7\n");
	F.load_err = -EINVAL;
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(F.nload, 1);
	ck_assert_int_eq(w.d.scx.cause, VP_SCX_CAUSE_ISOLCPUS);
	ck_assert_ptr_nonnull(strstr(w.d.scx.why, "CPUs 4-7 in "));
	life_teardown(&w);

	/* nothing readable: the kernel decides, and the files are named */
	life_setup(&w, VP_SCX_OPT_AUTO);
	tree_put(kroot, ISOL_CMDLINE, TREE_UNREADABLE);
	tree_put(kroot, ISOL_ISOLATED, TREE_UNREADABLE);
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_LOADED);
	ck_assert_int_eq(w.d.scx.isol_verdict, ISOL_UNKNOWN);
	text = status_text(&w.d);
	ck_assert_msg(strstr(text, "\"unreadable\":{\"proc\\/cmdline\":\"Is "
	    "a directory\",\"sys\\/devices\\/system\\/cpu\\/isolated\":"
	    "\"Is a directory\"}"), "%s", text);
	free(text);
	life_teardown(&w);
}
END_TEST

static void
quota_set(struct life *w, int vm, bool on)
{
	w->vm[vm].quota = on;
	snprintf(w->vm[vm].quota_words, sizeof(w->vm[vm].quota_words), "%s",
	    on ? "<quota> 50000 us per 100000 us period" : "no quota");
}

/*
 * auto and a VM with a CPU quota: not loaded at start, and why in
 * status and metrics; loaded once no VM has one; unloaded (threads back
 * to CFS) when a VM gets one.  on: loaded all along, the quota counted.
 */
START_TEST(test_life_quota)
{
	struct life w;
	char *text;

	life_setup(&w, VP_SCX_OPT_AUTO);
	quota_set(&w, 1, true);
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(F.nload, 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_UNAVAILABLE);
	ck_assert_int_eq(w.d.scx.cause, VP_SCX_CAUSE_CPU_QUOTA);
	ck_assert_int_eq(w.d.scx.quota_vms, 1);
	ck_assert_msg(strstr(w.d.scx.why, "(VM vm1: <quota> 50000 us per "
	    "100000 us period)"), "%s", w.d.scx.why);
	ck_assert_str_eq(schedext_mode_label(&w.d), kernelmode_label(&w.d));
	text = metrics_text(&w.d);
	ck_assert_ptr_nonnull(strstr(text, "\nvcpuplace_sched_ext_state{"
	    "state=\"unavailable\",cause=\"cpu-quota\"} 1\n"));
	/* not loaded: no quota is left unenforced */
	ck_assert_ptr_nonnull(strstr(text,
	    "\nvcpuplace_sched_ext_quota_unenforced_vms 0\n"));
	free(text);
	text = status_text(&w.d);
	ck_assert_msg(strstr(text, "\"cause\":\"cpu-quota\"") &&
	    strstr(text, "\"quota_vms\":1,\"quota_first\":\"vm1: <quota> "
	    "50000 us per 100000 us period\""), "%s", text);
	free(text);
	schedext_tick(&w.d);		/* still there: still not loaded */
	ck_assert_int_eq(F.nload, 0);
	ck_assert_int_eq(F.nmap, 0);
	/* gone: loaded at the next tick, its vCPUs in */
	quota_set(&w, 1, false);
	schedext_tick(&w.d);
	ck_assert_int_eq(F.nload, 1);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_LOADED);
	ck_assert_int_eq(w.d.scx.cause, VP_SCX_CAUSE_NONE);
	ck_assert_str_eq(w.d.scx.why, "");
	ck_assert_int_eq(F.nmap, LNVMS * LNVCPUS);
	/* a VM gets one: unloaded, every thread back first */
	F.log[0] = '\0';
	quota_set(&w, 0, true);
	schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "ext 101 0;ext 102 0;ext 103 0;ext 104 0;"
	    "free;");
	ck_assert_ptr_null(w.d.scx.sched);
	ck_assert_int_eq(w.d.scx.cause, VP_SCX_CAUSE_CPU_QUOTA);
	ck_assert_ptr_nonnull(strstr(w.d.scx.why, "VM vm0: "));
	ck_assert_int_eq(w.d.scx.ejections, 0);
	life_teardown(&w);

	/* on: loaded, and the quota it does not enforce counted */
	life_setup(&w, VP_SCX_OPT_ON);
	quota_set(&w, 0, true);
	quota_set(&w, 1, true);
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_LOADED);
	ck_assert(w.d.scx.quota_warned);
	schedext_tick(&w.d);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_LOADED);
	text = metrics_text(&w.d);
	ck_assert_ptr_nonnull(strstr(text,
	    "\nvcpuplace_sched_ext_quota_unenforced_vms 2\n"));
	free(text);
	text = status_text(&w.d);
	ck_assert_msg(strstr(text, "\"quota_vms\":2,\"quota_first\":\"vm0: "
	    "<quota> 50000 us per 100000 us period\",\"quota_enforced\":"
	    "false"), "%s", text);
	free(text);
	/* none left: the warning is re-armed for the next */
	quota_set(&w, 0, false);
	quota_set(&w, 1, false);
	schedext_tick(&w.d);
	ck_assert(!w.d.scx.quota_warned);
	life_teardown(&w);
}
END_TEST

/* The fake loader attached the halt-poll probes, as kprobes. */
static const char *
fake_halt_probes(const struct scx_sched *s)
{
	(void)s;
	return "kprobe";
}

/*
 * A yes-or-no of the loaded scheduler, as both outputs say it: gauge
 * @gauge reads 1 or 0, and status's sched_ext.@key true or false.
 */
static void
loaded_fact_expect(struct life *w, const char *gauge, const char *key,
    bool on)
{
	char want[128], *text = metrics_text(&w->d);

	snprintf(want, sizeof(want), "\n%s %d\n", gauge, on);
	ck_assert_msg(strstr(text, want), "%s", text);
	free(text);
	text = status_text(&w->d);
	snprintf(want, sizeof(want), "\"%s\":%s", key, on ? "true" : "false");
	ck_assert_msg(strstr(text, want), "%s", text);
	free(text);
}

/*
 * status and the gauge say whether POLL_END can see halt polls, and
 * status how (@via, or null).
 */
static void
halt_probes_expect(struct life *w, const char *via)
{
	char want[64], *text;

	loaded_fact_expect(w, "vcpuplace_sched_ext_halt_probes", "halt_probes",
	    via != NULL);
	snprintf(want, sizeof(want), via ? "\"halt_probes_via\":\"%s\"" :
	    "\"halt_probes_via\":null", via);
	text = status_text(&w->d);
	ck_assert_msg(strstr(text, want), "%s", text);
	free(text);
}

START_TEST(test_life_halt_probes)
{
	struct vp_scx_loader ld = fake_loader;
	struct life w;

	ld.halt_probes = fake_halt_probes;
	life_setup(&w, VP_SCX_OPT_AUTO);
	w.d.scx.ld = &ld;
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_LOADED);
	halt_probes_expect(&w, "kprobe");
	life_teardown(&w);
	/* a loader that cannot say (NULL): not attached */
	life_setup(&w, VP_SCX_OPT_AUTO);
	ck_assert_int_eq(schedext_start(&w.d), 0);
	halt_probes_expect(&w, NULL);
	life_teardown(&w);
}
END_TEST

/* The fake kernel's sched_ext has cgroup ops (CONFIG_EXT_GROUP_SCHED). */
static bool fake_cg;

static bool
fake_cgroup_weights(const struct scx_sched *s)
{
	(void)s;
	return fake_cg;
}

/*
 * cgroup cpu.weight: honoured or not, as the loader says, in status and
 * the gauge; a kernel without it is said once in the log (cg_told), not
 * at every reload.
 */
START_TEST(test_life_cgroup_weight)
{
	struct vp_scx_loader ld = fake_loader;
	struct life w;

	ld.cgroup_weights = fake_cgroup_weights;
	life_setup(&w, VP_SCX_OPT_AUTO);
	w.d.scx.ld = &ld;
	fake_cg = true;
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_LOADED);
	ck_assert(w.d.scx.cg_weights);
	ck_assert(!w.d.scx.cg_told);
	loaded_fact_expect(&w, "vcpuplace_sched_ext_cgroup_weight",
	    "cgroup_weight", true);
	life_teardown(&w);

	life_setup(&w, VP_SCX_OPT_AUTO);
	w.d.scx.ld = &ld;
	fake_cg = false;
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_LOADED);
	ck_assert(!w.d.scx.cg_weights);
	ck_assert(w.d.scx.cg_told);
	loaded_fact_expect(&w, "vcpuplace_sched_ext_cgroup_weight",
	    "cgroup_weight", false);
	life_teardown(&w);

	/* a loader that cannot say (NULL): not honoured */
	life_setup(&w, VP_SCX_OPT_AUTO);
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert(!w.d.scx.cg_weights);
	life_teardown(&w);
}
END_TEST

/* sched_ext being enabled or disabled by someone else: declined. */
static int
fake_state_busy(const char *root, char *buf, size_t len)
{
	(void)root;
	snprintf(buf, len, "%s", "enabling");
	return 0;
}

START_TEST(test_life_busy)
{
	struct vp_scx_loader ld = fake_loader;
	struct life w;

	life_setup(&w, VP_SCX_OPT_AUTO);
	ld.state_read = fake_state_busy;
	w.d.scx.ld = &ld;
	ck_assert_int_eq(schedext_start(&w.d), 0);
	ck_assert_int_eq(F.nload, 0);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_DECLINED);
	ck_assert_int_eq(w.d.scx.cause, VP_SCX_CAUSE_OTHER);
	w.d.scx.opt = VP_SCX_OPT_ON;
	ck_assert_int_eq(schedext_start(&w.d), -EBUSY);
	life_teardown(&w);
}
END_TEST

START_TEST(test_life_sync)
{
	struct life w;
	struct vp_vcpu *v;
	int i, k;

	life_setup(&w, VP_SCX_OPT_AUTO);
	ck_assert_int_eq(schedext_start(&w.d), 0);
	F.log[0] = '\0';
	schedext_tick(&w.d);
	/* each new thread: its entry, then SCHED_EXT; in tid order */
	ck_assert_str_eq(F.log, "set 101;ext 101 1;set 102;ext 102 1;"
	    "set 103;ext 103 1;set 104;ext 104 1;");
	for (i = 0; i < LNVMS; i++)
		for (k = 0; k < LNVCPUS; k++) {
			struct vp_scx_vcpu want;
			struct scxfeed_vcpu_in in = {
				.policy = &w.vm[i].policy, .nvcpus = LNVCPUS,
				.home = w.vcpu[i][k].placed_home,
				.anchor = VP_PU_NONE, .vm = i, .vcpu = k,
				.short_sleep_ns = SCXFEED_SHORT_SLEEP_NS,
			};
			int j = fake_find(w.vcpu[i][k].tid);

			ck_assert_int_ge(j, 0);
			scxfeed_vcpu(w.d.topo, &in, &want);
			ck_assert(scxfeed_vcpu_equal(&F.map[j].e, &want));
			ck_assert_int_eq(F.map[j].e.home,
			    2 * (i * LNVCPUS + k));
			/* counters read back into the vCPU */
			ck_assert(w.vcpu[i][k].scx_known);
			ck_assert_uint_eq(w.vcpu[i][k].scx.n[VP_SCX_V_HOME],
			    (uint64_t)w.vcpu[i][k].tid * 100 + VP_SCX_V_HOME);
		}
	ck_assert_uint_eq(w.d.scx.stats[VP_SCX_WAKE], 7000);
	/* nothing changed: nothing written, nothing moved */
	F.log[0] = '\0';
	schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "");
	/* a new home: that entry alone */
	w.vcpu[0][1].placed_home = os2pu(w.d.topo, 30);
	schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "set 102;");
	ck_assert_int_eq(F.map[fake_find(102)].e.home, 30);
	/* a features switch reaches the scheduler */
	w.d.feat.on[VP_FEAT_SIS_CACHE] = false;
	schedext_tick(&w.d);
	ck_assert_uint_eq(F.features, VP_SCX_FEAT_DEFAULT & ~VP_SCX_FEAT_SIS_CACHE);
	/* a new thread id (QEMU restarted the vCPU): old out, new in */
	F.log[0] = '\0';
	w.vcpu[1][0].tid = 150;
	schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "ext 103 0;del 103;set 150;ext 150 1;");
	/* a VM's mode turns off: its threads leave */
	F.log[0] = '\0';
	w.vm[1].policy.mode = VP_MODE_OFF;
	schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "ext 104 0;del 104;ext 150 0;del 150;");
	ck_assert(!w.vcpu[1][1].scx_known);
	/* a VM goes away */
	F.log[0] = '\0';
	w.d.nvms = 1;
	w.vm[1].policy.mode = VP_MODE_SHARED;
	schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "");
	w.d.nvms = 0;
	schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "ext 101 0;del 101;ext 102 0;del 102;");
	ck_assert_int_eq(F.nmap, 0);
	ck_assert_uint_eq(w.d.scx.errors, 0);
	/* a refused write: counted, the thread stays out, retried */
	w.d.nvms = 1;
	F.log[0] = '\0';
	F.vcpu_set_err = -E2BIG;
	schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "");
	ck_assert_uint_eq(w.d.scx.errors, 2);
	ck_assert_int_eq(w.d.scx.npushed, 0);
	F.vcpu_set_err = 0;
	schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "set 101;ext 101 1;set 102;ext 102 1;");
	/* a thread gone before its move (ESRCH): quiet, retried */
	v = &w.vcpu[0][0];
	v->tid = 160;
	F.log[0] = '\0';
	F.ext_err = -ESRCH;
	schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "ext 101 0;del 101;set 160;ext 160 1;");
	ck_assert_uint_eq(w.d.scx.errors, 2);
	F.ext_err = 0;
	F.log[0] = '\0';
	schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "ext 160 1;");
	life_teardown(&w);
}
END_TEST

/* Ejected: said once, threads out, freed, the other mode, no reload. */
/*
 * A vCPU thread in a class of its own (libvirt's <vcpusched>): the loader
 * says so, the thread is not counted as moved, so it is never moved back;
 * it is asked again each tick (it may leave that class), and the gauge
 * counts it.  Every move names the thread by pid and start time too.
 */
START_TEST(test_life_own_class)
{
	struct life w;

	life_setup(&w, VP_SCX_OPT_AUTO);
	F.own_class_tid = 102;
	ck_assert_int_eq(schedext_start(&w.d), 0);
	schedext_tick(&w.d);
	ck_assert(!schedext_pushed(&w.d.scx, 102)->ext);
	ck_assert(schedext_pushed(&w.d.scx, 102)->own_class);
	ck_assert(schedext_pushed(&w.d.scx, 101)->ext);
	ck_assert_int_eq(w.d.scx.own_class, 1);
	ck_assert_uint_eq(w.d.scx.errors, 0);
	F.log[0] = '\0';
	schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "ext 102 1;");
	/* it left its class: moved in like the others, the gauge at 0 */
	F.own_class_tid = 0;
	F.log[0] = '\0';
	schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "ext 102 1;");
	ck_assert(schedext_pushed(&w.d.scx, 102)->ext);
	ck_assert_int_eq(w.d.scx.own_class, 0);
	/* in a class of its own again before the unload: not moved back */
	F.own_class_tid = 150;
	w.vcpu[1][0].tid = 150;
	w.vcpu[1][0].tid_start = 1500;
	schedext_tick(&w.d);
	F.log[0] = '\0';
	schedext_stop(&w.d);
	ck_assert_ptr_null(strstr(F.log, "ext 150 0;"));
	ck_assert_ptr_nonnull(strstr(F.log, "ext 101 0;"));
	ck_assert(!F.start_wrong);
	life_teardown(&w);
}
END_TEST

START_TEST(test_life_ejection)
{
	struct life w;
	int i, k;

	life_loaded(&w);
	F.exited = true;
	F.exit.kind = 1026;
	snprintf(F.exit.reason, sizeof(F.exit.reason), "runnable task stall");
	snprintf(F.exit.msg, sizeof(F.exit.msg), "CPU 1/KVM[103] stalled for "
	    "30s\nmore");
	schedext_tick(&w.d);
	ck_assert(F.ejected_read);
	ck_assert_str_eq(F.log, "ext 101 0;ext 102 0;ext 103 0;ext 104 0;"
	    "free;");
	ck_assert_ptr_null(w.d.scx.sched);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_EJECTED);
	ck_assert_int_eq(w.d.scx.cause, VP_SCX_CAUSE_EJECTED);
	ck_assert_str_eq(w.d.scx.why, "ejected: runnable task stall");
	ck_assert_uint_eq(w.d.scx.ejections, 1);
	ck_assert(w.d.scx.exit_known);
	ck_assert_int_eq(w.d.scx.exit.kind, 1026);
	ck_assert_str_eq(scx_exit_kind_name(w.d.scx.exit.kind), "stall");
	ck_assert_str_eq(schedext_mode_label(&w.d), kernelmode_label(&w.d));
	ck_assert_int_eq(w.d.scx.npushed, 0);
	for (i = 0; i < LNVMS; i++)
		for (k = 0; k < LNVCPUS; k++)
			ck_assert(!w.vcpu[i][k].scx_known);
	/* never reloaded, nothing more done */
	F.log[0] = '\0';
	for (i = 0; i < 3; i++)
		schedext_tick(&w.d);
	ck_assert_str_eq(F.log, "");
	ck_assert_int_eq(F.nload, 1);
	ck_assert_uint_eq(w.d.scx.ejections, 1);
	life_teardown(&w);
	ck_assert_int_eq(F.nfree, 1);
}
END_TEST

/*
 * The kernel unloaded it asking for a restart (a CPU went offline):
 * loaded again at once, counted as a restart, not an ejection; the
 * vCPU entries go back at the next tick.  A failed reload is an ejection.
 */
START_TEST(test_life_restart)
{
	struct life w;

	life_loaded(&w);
	F.exited = true;
	F.exit.kind = 66;
	F.exit.restart = true;
	snprintf(F.exit.msg, sizeof(F.exit.msg), "cpu 3 going offline, "
	    "exiting scheduler");
	schedext_tick(&w.d);
	F.exited = false;
	ck_assert_int_eq(F.nload, 2);
	ck_assert_ptr_eq(w.d.scx.sched, FAKE_SCHED);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_LOADED);
	ck_assert_uint_eq(w.d.scx.restarts, 1);
	ck_assert_uint_eq(w.d.scx.ejections, 0);
	F.log[0] = '\0';
	schedext_tick(&w.d);
	ck_assert_int_eq(w.d.scx.npushed, LNVMS * LNVCPUS);
	/* again, and this time the load fails: ejected, with its cause */
	F.exited = true;
	F.load_err = -EBUSY;
	schedext_tick(&w.d);
	ck_assert_ptr_null(w.d.scx.sched);
	ck_assert_uint_eq(w.d.scx.restarts, 2);
	ck_assert_uint_eq(w.d.scx.ejections, 1);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_EJECTED);
	ck_assert_int_eq(w.d.scx.cause, VP_SCX_CAUSE_LOAD_FAILED);
	F.load_err = 0;
	life_teardown(&w);
}
END_TEST

START_TEST(test_life_stop_and_reload)
{
	struct life w;
	struct vp_topo *old;
	int writes;

	life_loaded(&w);
	schedext_stop(&w.d);
	ck_assert_str_eq(F.log, "ext 101 0;ext 102 0;ext 103 0;ext 104 0;"
	    "free;");
	ck_assert_ptr_null(w.d.scx.sched);
	life_teardown(&w);

	/* a reloaded topology that fits: the tables are written again */
	life_loaded(&w);
	writes = F.npu_writes;
	schedext_topology_changed(&w.d);
	ck_assert_int_eq(F.npu_writes, 2 * writes);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_LOADED);
	/* one that does not: unloaded, in the other mode, and why */
	old = w.d.topo;
	w.d.topo = load_synth("pack:2 core:600 pu:1");
	F.log[0] = '\0';
	schedext_topology_changed(&w.d);
	ck_assert_int_eq(w.d.scx.state, VP_SCX_UNAVAILABLE);
	ck_assert_int_eq(w.d.scx.cause, VP_SCX_CAUSE_TOPOLOGY);
	ck_assert_ptr_nonnull(strstr(w.d.scx.why, "CPU 1199"));
	ck_assert_str_eq(F.log, "ext 101 0;ext 102 0;ext 103 0;ext 104 0;"
	    "free;");
	topo_free(w.d.topo);
	w.d.topo = old;
	life_teardown(&w);
}
END_TEST

/* What status, metrics and explain say while the scheduler runs. */
START_TEST(test_life_reports)
{
	static const char *const vnames[] = VP_SCX_VSTAT_NAMES;
	static const char *const gnames[] = VP_SCX_STAT_NAMES;
	struct life w;
	struct json_object *st;
	char *text = NULL, want[256];
	size_t len = 0;
	FILE *f;
	int i;

	life_loaded(&w);
	schedext_tick(&w.d);
	/* metrics: the mode, the state, every family with HELP and TYPE */
	f = open_memstream(&text, &len);
	ck_assert_int_eq(metrics_write(&w.d, f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text,
	    "\nvcpuplace_kernel_mode{mode=\"sched-ext\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nvcpuplace_sched_ext_state{"
	    "state=\"loaded\",cause=\"none\"} 1\n"));
	for (i = 0; i < VP_SCX_STAT_NR; i++) {
		snprintf(want, sizeof(want), "# TYPE vcpuplace_scx_%s_total "
		    "counter\nvcpuplace_scx_%s_total %d\n", gnames[i],
		    gnames[i], 7000 + i);
		ck_assert_msg(strstr(text, want), "lacks %s", want);
		/* every counter has its help text */
		snprintf(want, sizeof(want), "# HELP vcpuplace_scx_%s_total "
		    "(null)\n", gnames[i]);
		ck_assert_msg(!strstr(text, want), "has %s", want);
	}
	for (i = 0; i < VP_SCX_VSTAT_NR; i++) {
		const char *fam = i == VP_SCX_V_WAKEUP ? "wakeups" : vnames[i];

		snprintf(want, sizeof(want), "# TYPE vcpuplace_vcpu_%s%s_total "
		    "counter\n", i == VP_SCX_V_WAKEUP ? "" : "wake_", fam);
		ck_assert_msg(strstr(text, want), "lacks %s", want);
		snprintf(want, sizeof(want), "vcpuplace_vcpu_%s%s_total{vm=\""
		    "vm1\",vcpu=\"1\"} %d\n", i == VP_SCX_V_WAKEUP ? "" :
		    "wake_", fam, 104 * 100 + i);
		ck_assert_msg(strstr(text, want), "lacks %s", want);
	}
	ck_assert_ptr_nonnull(strstr(text, "vcpuplace_vcpu_wakeups_total{"));
	ck_assert_ptr_nonnull(strstr(text, "vcpuplace_vcpu_wake_home_total{"));
	free(text);
	/* status: the mode, the state, the wake object of a vCPU */
	st = status_json(&w.d);
	text = strdup(json_object_to_json_string_ext(st,
	    JSON_C_TO_STRING_PLAIN));
	json_object_put(st);
	ck_assert_ptr_nonnull(strstr(text, "\"kernel_mode\":\"sched-ext\""));
	ck_assert_ptr_nonnull(strstr(text, "\"state\":\"loaded\""));
	ck_assert_ptr_nonnull(strstr(text, "\"ops\":\"vcpuplace\""));
	snprintf(want, sizeof(want), "\"wake\":{\"%s\":%d,\"%s\":%d,",
	    vnames[0], 10400, vnames[1], 10401);
	ck_assert_msg(strstr(text, want), "lacks %s", want);
	snprintf(want, sizeof(want), "\"%s\":%d}", vnames[VP_SCX_VSTAT_NR - 1],
	    10400 + VP_SCX_VSTAT_NR - 1);
	ck_assert_msg(strstr(text, want), "lacks %s", want);
	free(text);
	/* explain: what the scheduler was told, and the wake-ups */
	text = NULL;
	f = open_memstream(&text, &len);
	ck_assert_int_eq(explain_vcpu(&w.d, "vm1", 1, f), 0);
	fclose(f);
	ck_assert_msg(strstr(text, "wake path: vcpuplace's BPF scheduler: home "
	    "CPU 6, then llc 0 (CPUs ") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "wake-ups: 10400 decided: 10401 on home, ")
	    != NULL, "%s", text);
	free(text);
	life_teardown(&w);
}
END_TEST

Suite *
schedext_suite(void)
{
	Suite *s = suite_create("schedext");
	TCase *tc = tcase_create("decisions");
	TCase *tl = tcase_create("lifecycle");

	tcase_add_test(tc, test_parse_opt);
	tcase_add_test(tc, test_decide);
	tcase_add_test(tc, test_decide_words);
	tcase_add_test(tc, test_decide_quota);
	tcase_add_test(tc, test_start_here);
	tcase_add_loop_test(tl, test_life_load_writes_tables, 0, 3);
	tcase_add_test(tl, test_life_declines);
	tcase_add_test(tl, test_life_isolcpus);
	tcase_add_test(tl, test_life_quota);
	tcase_add_test(tl, test_life_busy);
	tcase_add_test(tl, test_life_sync);
	tcase_add_test(tl, test_life_own_class);
	tcase_add_test(tl, test_life_ejection);
	tcase_add_test(tl, test_life_restart);
	tcase_add_test(tl, test_life_stop_and_reload);
	tcase_add_test(tl, test_life_reports);
	tcase_add_test(tl, test_life_cgroup_weight);
	tcase_add_test(tl, test_life_halt_probes);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tl);
	return s;
}
