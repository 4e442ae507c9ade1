/*
 * scx_loader.c - the loader of scx/scx.h: opens the BPF object's libbpf
 * skeleton, sizes it for this kernel, loads and attaches it, writes its
 * tables and reads its counters and exit record.  Built only with the
 * scheduler (daemon/scx/scx.mk, `make SCX=yes`), which links it in place
 * of scx/scx_stub.c; the parts that need no BPF are scx/scx.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "scx/scx.h"
#include "scx/scx_btf.h"
/* the skeleton declares the BPF side's globals with vmlinux.h's names */
typedef __u32 u32;
#include "vcpuplace.skel.h"

/*
 * What ops.exit() may copy of the kernel's debug dump (runqueues, the
 * stalled task) when it ejects the scheduler: 32 KiB, the size
 * tools/sched_ext's loaders default to.
 */
#define SCX_DUMP_LEN 32768u

_Static_assert(sizeof(((struct scx_exit *)0)->reason) ==
    VP_SCX_EXIT_REASON_LEN &&
    sizeof(((struct scx_exit *)0)->msg) == VP_SCX_EXIT_MSG_LEN,
    "struct scx_exit mirrors struct vp_scx_exit_rec");

struct scx_sched {
	struct vcpuplace *skel;	/* owned; its .bss holds vp_exit_rec */
	struct bpf_link *link;	/* owned; NULL once detached */
	/* the halt-poll probes' pair attached; NULL: none */
	struct bpf_link *halt_in, *halt_out;
	const char *halt_via;	/* "kprobe", "fentry" or NULL */
	bool cg_weights;	/* loaded with the cgroup ops (cpu.weight) */
};

/* The exit dump buffer is a 1-byte array until resized before load. */
static int
dump_resize(struct vcpuplace *skel, uint32_t len)
{
	size_t sz;
	int err;

	err = bpf_map__set_value_size(skel->maps.data_vp_exit_dump, len);
	if (err)
		return err;
	skel->data_vp_exit_dump =
	    bpf_map__initial_value(skel->maps.data_vp_exit_dump, &sz);
	if (!skel->data_vp_exit_dump || sz < len)
		return -ENOMEM;
	skel->rodata->vp_exit_dump_len = len;
	return 0;
}

int
scx_supported(const char *root)
{
	return scx_kernel_supports(root);
}

const char *
scx_built_with(void)
{
	return libbpf_version_string();
}

/*
 * The kernel's count of CPU hot-plug events into @ret, 0 when it has no
 * /sys/kernel/sched_ext/hotplug_seq.  Given to the kernel in the ops
 * (hotplug_seq), it makes a load that raced with a hot-plug event fail
 * with a restart request instead of running on a stale CPU set (6.12
 * check_hotplug_seq()).
 */
static int
hotplug_seq_read(uint64_t *ret)
{
	unsigned long long v;
	FILE *f = fopen("/sys/kernel/sched_ext/hotplug_seq", "r");
	int n;

	*ret = 0;
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	n = fscanf(f, "%llu", &v);
	fclose(f);
	if (n != 1)
		return -EINVAL;
	*ret = v;
	return 0;
}

/*
 * cgroup cpu.weight (vcpuplace.bpf.c, vp_cg_on): the cgroup ops exist in
 * sched_ext_ops only on a kernel built with CONFIG_EXT_GROUP_SCHED (6.12's
 * allnoconfig test kernel has none; Debian's has), and libbpf refuses a
 * set member the kernel lacks.  So they are kept, and the BPF side told,
 * only when the running kernel's sched_ext_ops has them; else they are
 * taken out of the ops and not loaded, and the scheduler runs with
 * per-task weights.  SCX_OPS_HAS_CGROUP_WEIGHT is added where the
 * kernel knows it (6.12 to 7.0 warn without it; 7.3.4 has dropped it)
 * into *@flags.  -errno only when the BTF cannot be read.
 */
static int
cgroup_ops_setup(struct vcpuplace *skel, uint64_t *flags, bool *ret_on)
{
	struct vcpuplace__vcpuplace_ops__sched_ext_ops *ops =
	    skel->struct_ops.vcpuplace_ops;
	uint64_t has_weight;
	int err;

	err = scx_btf_has_member("sched_ext_ops", "cgroup_set_weight");
	if (err && err != -ENOENT)
		return err;
	*ret_on = err == 0;
	if (*ret_on) {
		skel->rodata->vp_cg_on = true;
		if (scx_btf_enum_value("scx_ops_flags",
		    "SCX_OPS_HAS_CGROUP_WEIGHT", &has_weight) == 0)
			*flags |= has_weight;
		return 0;
	}
	ops->cgroup_init = NULL;
	ops->cgroup_exit = NULL;
	ops->cgroup_set_weight = NULL;
	bpf_program__set_autoload(skel->progs.vp_cgroup_init, false);
	bpf_program__set_autoload(skel->progs.vp_cgroup_exit, false);
	bpf_program__set_autoload(skel->progs.vp_cgroup_set_weight, false);
	return 0;
}

/* Which halt-poll programs a load includes (enum, in falling order). */
enum halt_progs {
	HALT_PROGS_NONE,
	HALT_PROGS_KPROBE,	/* needs nothing of KVM at load */
	HALT_PROGS_ALL,		/* and fentry: kvm_vcpu_halt() in a BTF */
};

/*
 * Opens and loads the skeleton into @s->skel, with the halt-poll
 * programs @halt names.
 */
static int
open_load(struct scx_sched *s, unsigned int flags, enum halt_progs halt)
{
	uint64_t ops_flags, hp_seq;
	int err;

	s->skel = vcpuplace__open();
	if (!s->skel)
		return -errno;
	err = dump_resize(s->skel, SCX_DUMP_LEN);
	if (err)
		return err;
	/* the flags' values are the running kernel's (scx_btf.h) */
	err = scx_btf_ops_flags(flags & SCX_LOAD_PARTIAL, &ops_flags);
	if (err)
		return err;
	err = cgroup_ops_setup(s->skel, &ops_flags, &s->cg_weights);
	if (err)
		return err;
	s->skel->struct_ops.vcpuplace_ops->flags = ops_flags;
	err = hotplug_seq_read(&hp_seq);
	if (err)
		return err;
	s->skel->struct_ops.vcpuplace_ops->hotplug_seq = hp_seq;
	bpf_program__set_autoload(s->skel->progs.vp_halt_kprobe,
	    halt >= HALT_PROGS_KPROBE);
	bpf_program__set_autoload(s->skel->progs.vp_halt_kretprobe,
	    halt >= HALT_PROGS_KPROBE);
	bpf_program__set_autoload(s->skel->progs.vp_halt_enter,
	    halt >= HALT_PROGS_ALL);
	bpf_program__set_autoload(s->skel->progs.vp_halt_exit,
	    halt >= HALT_PROGS_ALL);
	return vcpuplace__load(s->skel);
}

/* Attaches the pair @in and @out, both or neither; true if both. */
static bool
halt_pair_attach(struct scx_sched *s, struct bpf_program *in,
    struct bpf_program *out, const char *via)
{
	if (!bpf_program__autoload(in))
		return false;
	s->halt_in = bpf_program__attach(in);
	s->halt_out = bpf_program__attach(out);
	if (s->halt_in && s->halt_out) {
		s->halt_via = via;
		return true;
	}
	bpf_link__destroy(s->halt_in);
	bpf_link__destroy(s->halt_out);
	s->halt_in = s->halt_out = NULL;
	return false;
}

/*
 * The halt-poll probes, best effort: the scheduler runs without them
 * (POLL_END then finds no polling PU).  The kprobe pair first (see
 * vcpuplace.bpf.c: Debian's 7.3.4 attaches fentry and never runs it),
 * fentry where the kernel has no kprobes.
 */
static void
halt_probes_attach(struct scx_sched *s)
{
	struct vcpuplace *k = s->skel;

	if (!halt_pair_attach(s, k->progs.vp_halt_kprobe,
	    k->progs.vp_halt_kretprobe, "kprobe"))
		halt_pair_attach(s, k->progs.vp_halt_enter,
		    k->progs.vp_halt_exit, "fentry");
}

int
scx_load(struct scx_sched **ret_sched, unsigned int flags)
{
	struct scx_sched *s;
	/* KVM is there, built in or as a loaded module (whose BTF fentry
	 * then needs: /sys/kernel/btf/kvm) */
	enum halt_progs halt = access("/sys/module/kvm", F_OK) == 0 ?
	    HALT_PROGS_ALL : HALT_PROGS_NONE;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	err = open_load(s, flags, halt);
	/* fentry's target not found (a kvm without BTF for it), then a
	 * kernel that cannot load kprobe programs: fewer probes each time */
	while (err && halt > HALT_PROGS_NONE) {
		vcpuplace__destroy(s->skel);
		s->skel = NULL;
		err = open_load(s, flags, --halt);
	}
	if (err)
		goto fail;
	/* .struct_ops.link: a BPF link, closed (and the scheduler unloaded)
	 * when this process dies; -EBUSY if a BPF scheduler is loaded */
	s->link = bpf_map__attach_struct_ops(s->skel->maps.vcpuplace_ops);
	if (!s->link) {
		err = -errno;
		goto fail;
	}
	halt_probes_attach(s);
	*ret_sched = s;
	return 0;
fail:
	scx_free(s);
	return err < 0 ? err : -EINVAL;
}

const char *
scx_halt_probes(const struct scx_sched *s)
{
	return s ? s->halt_via : NULL;
}

bool
scx_cgroup_weights(const struct scx_sched *s)
{
	return s && s->cg_weights;
}

void
scx_features_set(struct scx_sched *s, uint32_t features)
{
	/* .data is mmapped: the next wake-up sees the new value */
	__atomic_store_n(&s->skel->data->vp_features, features,
	    __ATOMIC_RELAXED);
}

void
scx_resume_lag_set(struct scx_sched *s, uint64_t ns)
{
	__atomic_store_n(&s->skel->data->vp_resume_lag_ns, ns,
	    __ATOMIC_RELAXED);
}

void
scx_lat_lead_set(struct scx_sched *s, uint64_t ns)
{
	__atomic_store_n(&s->skel->data->vp_lat_lead_ns, ns,
	    __ATOMIC_RELAXED);
}

void
scx_join_run_set(struct scx_sched *s, uint64_t ns)
{
	__atomic_store_n(&s->skel->data->vp_join_run_ns, ns,
	    __ATOMIC_RELAXED);
}

int
scx_cpu_polling(const struct scx_sched *s, int cpu)
{
	uint32_t key = (uint32_t)cpu;
	__u64 since;

	if (cpu < 0 || cpu >= VP_SCX_MAX_CPUS)
		return -EINVAL;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.vp_cpu_poll), &key,
	    &since) < 0)
		return -errno;
	return since != 0;
}

void
scx_force_error(struct scx_sched *s)
{
	__atomic_store_n(&s->skel->bss->vp_force_error, true,
	    __ATOMIC_RELAXED);
}

/* One whole entry of an array or hash map: -errno, never half written. */
static int
map_put(const struct bpf_map *m, uint32_t key, const void *val)
{
	if (bpf_map_update_elem(bpf_map__fd(m), &key, val, BPF_ANY) < 0)
		return -errno;
	return 0;
}

/*
 * Entry @key of per-CPU map @m, whose value is @n u64 counters, summed over
 * the possible CPUs into @ret[0..n).  -errno (-ENOENT: no such key).
 */
static int
percpu_sum(const struct bpf_map *m, uint32_t key, int n, __u64 *ret)
{
	__u64 *percpu;
	int ncpu, cpu, i, err = 0;

	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return ncpu < 0 ? ncpu : -EINVAL;
	percpu = calloc((size_t)ncpu * (size_t)n, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(m), &key, percpu) < 0)
		err = -errno;
	for (i = 0; !err && i < n; i++) {
		ret[i] = 0;
		for (cpu = 0; cpu < ncpu; cpu++)
			ret[i] += percpu[(size_t)cpu * (size_t)n + (size_t)i];
	}
	free(percpu);
	return err;
}

int
scx_pu_set(struct scx_sched *s, int cpu, const struct vp_scx_pu *pu)
{
	if (cpu < 0 || cpu >= VP_SCX_MAX_CPUS)
		return -ERANGE;
	return map_put(s->skel->maps.vp_pus, (uint32_t)cpu, pu);
}

int
scx_dom_set(struct scx_sched *s, unsigned int id,
    const struct vp_scx_dom *dom)
{
	if (id >= VP_SCX_MAX_DOMS || dom->ncpus > VP_SCX_DOM_CPUS)
		return -ERANGE;
	return map_put(s->skel->maps.vp_doms, id, dom);
}

/*
 * The counters' entry is made first, zeroed, when the tid is new, so the
 * BPF side only ever looks entries up (no allocation in the wake path).
 */
int
scx_vcpu_set(struct scx_sched *s, int tid, const struct vp_scx_vcpu *v)
{
	uint32_t key = (uint32_t)tid;
	struct vp_scx_vcpu_stats *zero;
	int ncpu, err;

	if (tid <= 0)
		return -EINVAL;
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return ncpu < 0 ? ncpu : -EINVAL;
	zero = calloc(ncpu, sizeof(*zero));
	if (!zero)
		return -ENOMEM;
	err = bpf_map_update_elem(bpf_map__fd(s->skel->maps.vp_vcpu_stats),
	    &key, zero, BPF_NOEXIST) < 0 ? -errno : 0;
	free(zero);
	if (err && err != -EEXIST)
		return err;
	return map_put(s->skel->maps.vp_vcpus, key, v);
}

int
scx_vcpu_del(struct scx_sched *s, int tid)
{
	uint32_t key = (uint32_t)tid;
	int err = 0;

	if (bpf_map_delete_elem(bpf_map__fd(s->skel->maps.vp_vcpus), &key) < 0)
		err = -errno;
	/* the counters go too: a reused tid starts from zero */
	bpf_map_delete_elem(bpf_map__fd(s->skel->maps.vp_vcpu_stats), &key);
	return err;
}

int
scx_vcpu_stats_read(const struct scx_sched *s, int tid,
    struct vp_scx_vcpu_stats *ret)
{
	struct vp_scx_vcpu_stats sum;
	int err;

	err = percpu_sum(s->skel->maps.vp_vcpu_stats, (uint32_t)tid,
	    VP_SCX_VSTAT_NR, sum.n);
	if (err)
		return err;
	*ret = sum;
	return 0;
}

int
scx_stats_read(const struct scx_sched *s, uint64_t ret_stats[VP_SCX_STAT_NR])
{
	__u64 sum[VP_SCX_STAT_NR];
	uint32_t key;
	int err;

	_Static_assert(sizeof(sum[0]) == sizeof(ret_stats[0]), "u64");
	for (key = 0; key < VP_SCX_STAT_NR; key++)
		if ((err = percpu_sum(s->skel->maps.vp_stats, key, 1, &sum[key])))
			return err;
	memcpy(ret_stats, sum, sizeof(sum));
	return 0;
}

bool
scx_exited(const struct scx_sched *s)
{
	/* ops.exit() stores kind last, with a full barrier */
	return __atomic_load_n(&s->skel->bss->vp_exit_rec.kind, __ATOMIC_ACQUIRE) !=
	    0;
}

/* @code has SCX_ECODE_ACT_RESTART, as the running kernel's BTF says. */
static bool
exit_wants_restart(int64_t code)
{
	uint64_t act;

	if (scx_btf_enum_value("scx_exit_code", "SCX_ECODE_ACT_RESTART",
	    &act) != 0)
		return false;
	return ((uint64_t)code & act) != 0;
}

int
scx_exit_read(const struct scx_sched *s, struct scx_exit *ret_exit)
{
	const struct vp_scx_exit_rec *rec = &s->skel->bss->vp_exit_rec;
	struct scx_exit e;

	if (!scx_exited(s))
		return -EAGAIN;
	memset(&e, 0, sizeof(e));
	e.kind = rec->kind;
	e.exit_code = rec->exit_code;
	/* the kernel NUL-terminates them; the last byte stays 0 regardless */
	memcpy(e.reason, rec->reason, sizeof(e.reason) - 1);
	memcpy(e.msg, rec->msg, sizeof(e.msg) - 1);
	e.restart = exit_wants_restart(e.exit_code);
	*ret_exit = e;
	return 0;
}

const char *
scx_exit_dump(const struct scx_sched *s)
{
	const char *d = s->skel->data_vp_exit_dump->vp_exit_dump;

	return scx_exited(s) && d[0] ? d : NULL;
}

void
scx_detach(struct scx_sched *s)
{
	if (s->link) {
		bpf_link__destroy(s->link);
		s->link = NULL;
	}
	bpf_link__destroy(s->halt_in);
	bpf_link__destroy(s->halt_out);
	s->halt_in = s->halt_out = NULL;
	s->halt_via = NULL;
}

void
scx_free(struct scx_sched *s)
{
	if (!s)
		return;
	scx_detach(s);
	vcpuplace__destroy(s->skel);
	free(s);
}

