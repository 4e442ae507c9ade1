/*
 * hosttasks.c - the host's own threads, beside the vCPUs: what a
 * full-switch scheduler (sched_ext) must also place.  They come on top of
 * the workload's load (its vCPU demand, unchanged), and have their own
 * figures (struct sim.host_st): never the VMs' useful work.
 *
 *   kthread   one per PU, allowed on that PU only (a per-CPU kworker,
 *             ksoftirqd, rcu: kthread_bind()), a burst every
 *             kthread_period_ns at a fixed phase, as tick-driven work
 *   vhost     one per VM, allowed everywhere (vhost_worker_create()
 *             forks it from QEMU, inheriting its affinity: libvirt's
 *             emulatorpin default is every host CPU), woken by one of
 *             the VM's vCPUs every vhost_every-th burst end (an
 *             ioeventfd write: vhost_poll_queue() -> vhost_worker's
 *             wake_up_process()), a burst of vhost_ns per kick
 *   iothread  one per VM, allowed everywhere, QEMU's main loop / I/O
 *             thread: woken by its own timers, exponential gaps of mean
 *             iothread_period_ns, a burst of iothread_ns
 *
 * Threads th[nvcpu .. nth): kthreads by PU, then per VM its vhost and
 * its iothread.  Each draws from its own streams, seeded from its index
 * after every vCPU, so the vCPUs' streams are those of the model
 * without host tasks.  A burst or rate of 0 turns a kind off.
 *
 * The daemon pins vCPU threads only (plan.c; the simulator's plan has no
 * reserved host PUs), so host tasks keep every PU under every strategy.
 */
#include "sim.h"

static bool
kthreads_on(const struct sim *s)
{
	return s->p.kthread_ns && s->p.kthread_period_ns;
}

static bool
vhost_on(const struct sim *s)
{
	return s->p.vhost_ns && s->p.vhost_every;
}

static bool
iothread_on(const struct sim *s)
{
	return s->p.iothread_ns && s->p.iothread_period_ns;
}

int
hosttasks_count(const struct sim *s)
{
	return (kthreads_on(s) ? s->t->npus : 0) +
	    s->nvm * (vhost_on(s) + iothread_on(s));
}

static void
make(struct sim *s, int k, enum th_kind kind, int vm, int bind,
    uint64_t seed)
{
	struct sim_thread *th = &s->th[k];
	int u;

	th->kind = kind;
	th->vm = vm;
	th->idx = -1;
	th->bind_pu = bind;
	th->state = TH_SLEEP;
	th->pu = th->waker_pu = th->last_pu = VP_PU_NONE;
	th->next = -1;
	for (u = 0; u < 4; u++)
		rng_seed(&th->rng[u], seed * 1000003u + (uint64_t)s->wl * 7919u +
		    (uint64_t)u * 17u + UINT64_C(0x51ed27) +
		    (uint64_t)k * UINT64_C(0x9e3779b97f4a7c15));
}

void
hosttasks_create(struct sim *s, uint64_t seed)
{
	int k = s->nvcpu, pu, v;

	if (kthreads_on(s))
		for (pu = 0; pu < s->t->npus; pu++)
			make(s, k++, TH_KTHREAD, -1, pu, seed);
	for (v = 0; v < s->nvm; v++) {
		if (vhost_on(s))
			make(s, k++, TH_VHOST, v, VP_PU_NONE, seed);
		if (iothread_on(s))
			make(s, k++, TH_IOTHREAD, v, VP_PU_NONE, seed);
	}
}

void
hosttasks_allow(struct sim *s)
{
	int i;

	for (i = s->nvcpu; i < s->nth; i++) {
		struct sim_thread *th = &s->th[i];

		th->home = VP_PU_NONE;
		if (th->kind == TH_KTHREAD) {
			cpuset_zero(&s->allowed[th->allowed]);
			cpuset_set(&s->allowed[th->allowed], th->bind_pu);
			th->last_pu = th->bind_pu;
		} else {
			s->allowed[th->allowed] = s->t->all;
		}
	}
}

static uint64_t
host_burst_ns(struct sim *s, int thi)
{
	const struct sim_thread *th = &s->th[thi];
	uint64_t mean = th->kind == TH_KTHREAD ? s->p.kthread_ns :
	    th->kind == TH_VHOST ? s->p.vhost_ns : s->p.iothread_ns;

	return rng_exp_ns(&s->th[thi].rng[RNG_BURST], (double)mean);
}

void
hosttasks_start(struct sim *s)
{
	int i;

	for (i = s->nvcpu; i < s->nth; i++) {
		struct sim_thread *th = &s->th[i];

		if (th->kind == TH_KTHREAD) {
			/* its tick's phase on this PU */
			th->phase_end_ns = rng_below(&th->rng[RNG_PHASE],
			    s->p.kthread_period_ns);
			host_timer(s, i, th->phase_end_ns);
		} else if (th->kind == TH_IOTHREAD) {
			host_timer(s, i, rng_exp_ns(&th->rng[RNG_PHASE],
			    (double)s->p.iothread_period_ns));
		}
	}
}

/* The next timer of a sleeping kthread or iothread. */
static void
rearm(struct sim *s, int thi)
{
	struct sim_thread *th = &s->th[thi];

	if (th->kind == TH_KTHREAD)
		host_timer(s, thi, th->phase_end_ns > s->now_ns ?
		    th->phase_end_ns - s->now_ns : 1);
	else if (th->kind == TH_IOTHREAD)
		host_timer(s, thi, rng_exp_ns(&th->rng[RNG_HALT],
		    (double)s->p.iothread_period_ns));
}

bool
hosttasks_burst_end(struct sim *s, int thi)
{
	struct sim_thread *th = &s->th[thi];

	if (th->pending) {	/* kicks that came while it ran */
		th->pending--;
		host_burst(s, thi, host_burst_ns(s, thi));
		return true;
	}
	rearm(s, thi);
	return false;
}

void
hosttasks_timer(struct sim *s, int thi)
{
	struct sim_thread *th = &s->th[thi];

	/* a kthread's work is due at a fixed period, late or not */
	if (th->kind == TH_KTHREAD)
		while (th->phase_end_ns <= s->now_ns)
			th->phase_end_ns += s->p.kthread_period_ns;
	th->started = true;
	host_burst(s, thi, host_burst_ns(s, thi));
	host_wake(s, thi, VP_PU_NONE);
}

/* The vhost worker of VM @vm: the first host task after its kthreads. */
static int
vhost_of(const struct sim *s, int vm)
{
	int per = vhost_on(s) + iothread_on(s);

	return s->nvcpu + (kthreads_on(s) ? s->t->npus : 0) + vm * per;
}

void
hosttasks_vcpu_burst_end(struct sim *s, int thi)
{
	struct sim_thread *th = &s->th[thi];
	int w;

	if (!vhost_on(s) || ++th->kicks % s->p.vhost_every)
		return;
	w = vhost_of(s, th->vm);
	if (s->th[w].state != TH_SLEEP) {
		s->th[w].pending++;
		return;
	}
	host_burst(s, w, host_burst_ns(s, w));
	host_wake(s, w, th->pu);
}
