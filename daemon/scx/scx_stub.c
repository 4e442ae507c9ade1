/*
 * scx_stub.c - the loader of scx/scx.h in a build without BPF (the
 * normal one): the kernel may have sched_ext, this binary has no
 * scheduler to load, so scx_load() and its kin say -EOPNOTSUPP and
 * callers need no #ifdef.  The scheduler's build (daemon/scx/scx.mk)
 * links daemon/scx/scx_loader.c before the archive that holds this, so
 * this object is never pulled in there.
 */
#include <errno.h>
#include <stddef.h>

#include "scx/scx.h"
const char *
scx_built_with(void)
{
	return NULL;
}

int
scx_supported(const char *root)
{
	int err = scx_kernel_supports(root);

	return err ? err : -EOPNOTSUPP;
}

int
scx_load(struct scx_sched **ret_sched, unsigned int flags)
{
	(void)ret_sched;
	(void)flags;
	return -EOPNOTSUPP;
}

const char *
scx_halt_probes(const struct scx_sched *s)
{
	(void)s;
	return NULL;
}

void
scx_features_set(struct scx_sched *s, uint32_t features)
{
	(void)s;
	(void)features;
}

bool
scx_cgroup_weights(const struct scx_sched *s)
{
	(void)s;
	return false;
}

int
scx_pu_set(struct scx_sched *s, int cpu, const struct vp_scx_pu *pu)
{
	(void)s;
	(void)cpu;
	(void)pu;
	return -EOPNOTSUPP;
}

int
scx_dom_set(struct scx_sched *s, unsigned int id,
    const struct vp_scx_dom *dom)
{
	(void)s;
	(void)id;
	(void)dom;
	return -EOPNOTSUPP;
}

int
scx_vcpu_set(struct scx_sched *s, int tid, const struct vp_scx_vcpu *v)
{
	(void)s;
	(void)tid;
	(void)v;
	return -EOPNOTSUPP;
}

int
scx_vcpu_del(struct scx_sched *s, int tid)
{
	(void)s;
	(void)tid;
	return -EOPNOTSUPP;
}

int
scx_vcpu_stats_read(const struct scx_sched *s, int tid,
    struct vp_scx_vcpu_stats *ret)
{
	(void)s;
	(void)tid;
	(void)ret;
	return -EOPNOTSUPP;
}

void
scx_force_error(struct scx_sched *s)
{
	(void)s;
}

void
scx_join_run_set(struct scx_sched *s, uint64_t ns)
{
	(void)s;
	(void)ns;
}

void
scx_resume_lag_set(struct scx_sched *s, uint64_t ns)
{
	(void)s;
	(void)ns;
}

void
scx_lat_lead_set(struct scx_sched *s, uint64_t ns)
{
	(void)s;
	(void)ns;
}

int
scx_cpu_polling(const struct scx_sched *s, int cpu)
{
	(void)s;
	(void)cpu;
	return -EOPNOTSUPP;
}

int
scx_stats_read(const struct scx_sched *s, uint64_t ret_stats[VP_SCX_STAT_NR])
{
	(void)s;
	(void)ret_stats;
	return -EOPNOTSUPP;
}

bool
scx_exited(const struct scx_sched *s)
{
	(void)s;
	return true;
}

int
scx_exit_read(const struct scx_sched *s, struct scx_exit *ret_exit)
{
	(void)s;
	(void)ret_exit;
	return -EOPNOTSUPP;
}

const char *
scx_exit_dump(const struct scx_sched *s)
{
	(void)s;
	return NULL;
}

void
scx_detach(struct scx_sched *s)
{
	(void)s;
}

void
scx_free(struct scx_sched *s)
{
	(void)s;
}
