/*
 * reload.c - SIGHUP and the socket's "reload": reread the policies, the
 * topology and sched/features without dropping a placement.
 *
 * A bad policy set or an unreadable topology keeps the previous one.  A
 * changed topology (CPU hot-plug, a new --topology file) renumbers the
 * dense PU indices, so everything the daemon holds in them is carried
 * over through OS CPU numbers; a PU that went away drops out, and the
 * next tick repins any vCPU whose affinity that left empty or offline.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "vcpuplaced/daemon.h"
#include "host/hwtopo.h"

static bool
reload_policies(struct vp_daemon *d)
{
	struct vp_profiles *p;
	char err[4096];
	int i;

	if (profiles_load(d->policy_dir, &p, err, sizeof(err)) < 0) {
		log_msg(LOG_ERR, "reload: policies %s: %s, keeping the "
		    "previous policies", d->policy_dir, err);
		return false;
	}
	profiles_free(d->profiles);
	d->profiles = p;
	for (i = 0; i < d->nvms; i++)
		d->vm[i].policy_known = false;	/* reread with new profiles */
	log_msg(LOG_NOTICE, "reloaded policies from %s", d->policy_dir);
	return true;
}

static bool
same_topology(const struct vp_topo *a, const struct vp_topo *b)
{
	int i;

	if (a->npus != b->npus || a->ncores != b->ncores ||
	    a->nclusters != b->nclusters || a->nllcs != b->nllcs ||
	    a->npackages != b->npackages)
		return false;
	for (i = 0; i < a->npus; i++)
		if (a->pu[i].os_index != b->pu[i].os_index ||
		    a->pu[i].core != b->pu[i].core ||
		    a->pu[i].cluster != b->pu[i].cluster ||
		    a->pu[i].llc != b->pu[i].llc ||
		    a->pu[i].prio != b->pu[i].prio)
			return false;
	return true;
}

static int
carry_pu(const struct vp_topo *from, const struct vp_topo *to, int pu)
{
	return pu < 0 ? pu : topo_pu_of_os(to, from->pu[pu].os_index);
}

static void
carry_set(const struct vp_topo *from, const struct vp_topo *to,
    struct vp_cpuset *s)
{
	struct vp_cpuset out;
	int pu, n;

	cpuset_zero(&out);
	cpuset_for_each(pu, s, from->npus)
		if ((n = carry_pu(from, to, pu)) != VP_PU_NONE)
			cpuset_set(&out, n);
	*s = out;
}

static void
carry_vms(struct vp_daemon *d, const struct vp_topo *to)
{
	const struct vp_topo *from = d->topo;
	int i, k;

	for (i = 0; i < d->nvms; i++) {
		struct vp_vm *vm = &d->vm[i];

		carry_set(from, to, &vm->emulator);
		for (k = 0; k < vm->nvcpus; k++) {
			struct vp_vcpu *v = &vm->vcpu[k];

			v->current = carry_pu(from, to, v->current);
			v->home = carry_pu(from, to, v->home);
			v->placed_home = carry_pu(from, to, v->placed_home);
			carry_set(from, to, &v->affinity);
			carry_set(from, to, &v->planned);
			v->pending_ticks = 0;
			v->move = false;
		}
	}
}

static bool
reload_topology(struct vp_daemon *d)
{
	struct vp_topo *t = NULL;
	struct vp_cpuset reserved = d->reserved;
	struct vp_load load;
	int r, old_npus = d->topo->npus;
	char err[256] = "";

	r = d->topology_file ? hwtopo_load_xml(d->topology_file, &t, err,
	    sizeof(err)) : hwtopo_load_host(&t, err, sizeof(err));
	if (r < 0) {
		log_msg(LOG_ERR, "reload: topology %s: %s, keeping the "
		    "previous one", d->topology_file ? d->topology_file :
		    "(host)", *err ? err : strerror(-r));
		return false;
	}
	if (same_topology(d->topo, t)) {
		topo_free(t);
		return true;
	}
	carry_set(d->topo, t, &reserved);
	if (cpuset_count(&reserved) >= t->npus) {
		log_msg(LOG_ERR, "reload: --reserve %s leaves no PU of the new "
		    "topology for VMs, keeping the previous topology",
		    d->reserve_list);
		topo_free(t);
		return false;
	}
	/*
	 * Everything the new topology needs is made before anything of the
	 * old one is let go: a failure here keeps the daemon whole on the
	 * old topology, never half on each (the next tick would otherwise
	 * sample into arrays that are not there).
	 */
	if ((r = load_open(t, &load)) < 0) {
		log_msg(LOG_ERR, "reload: topology %s: sampler: %s, keeping the "
		    "previous one", d->topology_file ? d->topology_file :
		    "(host)", strerror(-r));
		topo_free(t);
		return false;
	}
	carry_vms(d, t);
	tick_free(d);		/* a plan in the old numbering */
	load_free(&d->load);
	topo_free(d->topo);
	d->topo = t;
	d->load = load;
	d->reserved = reserved;
	cpuset_zero(&d->host_busy);
	cpuset_zero(&d->plan_busy);
	log_msg(LOG_NOTICE, "topology changed: %d PUs, %d cores, %d LLCs "
	    "(was %d PUs); placements carried over", t->npus, t->ncores,
	    t->nllcs, old_npus);
	schedext_topology_changed(d);	/* the BPF tables follow */
	return true;
}

/* The operator may have switched SIS_CORE: said with the whole mode. */
static void
reread_kernel_mode(struct vp_daemon *d)
{
	char what[PATH_MAX + 128];
	enum vp_sis_core was;

	if (!kernelmode_reread(d, &was))
		return;
	kernelmode_describe(d, what, sizeof(what));
	log_msg(LOG_NOTICE, "reload: kernel mode %s; %s (was %s)",
	    schedext_mode_label(d), what, schedfeat_sis_core_name(was));
	kernelmode_advise(d);
}

void
reload_all(struct vp_daemon *d)
{
	bool ok = reload_policies(d);

	ok = reload_topology(d) && ok;
	reread_kernel_mode(d);
	d->c.reloads++;
	d->c.reload_errors += !ok;
	d->c.reload_failed = !ok;
	virt_mark_dirty(&d->virt, 0);	/* reread the VMs' live state */
	d->inventory_gen++;
}
