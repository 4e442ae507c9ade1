/*
 * workload.c - the simulated VMs and what their vCPUs do, shaped after
 * the seeds' benchmarks (doc/seeds.md).  Load is the CPU demand the
 * workload offers, as a share of the host's cores (not PUs): 100 % on a
 * 48-core, 96-PU host is 48 cores' worth of runnable vCPUs, if nothing
 * delayed them.
 *
 *   hackbench  VMs of 4 vCPUs passing 2 messages around (seed 000's
 *              hackbench-process-pipes, but between vCPUs by IPI);
 *              one message in flight = one core of demand
 *   tbench     client/server VMs of 2 vCPUs, one request in flight,
 *              short bursts: a wake-up per burst (tbench4)
 *   schbench   VMs of one message vCPU and 4 workers it wakes every
 *              2 ms; what counts is the workers' wake-up latency (as
 *              schbench reports it), and the request wait, which
 *              counts a request that waits behind its busy worker too
 *   hogs       VMs of 4 vCPUs running 10 ms bursts with 100 us halts
 *   dense      many 1- and 2-vCPU VMs with 20 ms run and idle phases;
 *              in a run phase 100 us bursts, 50 us halts, and every
 *              other burst kicks the sibling vCPU
 *
 * Every thread draws from its own random stream, so the same seed
 * gives every strategy the same bursts, sleeps and message targets.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define US	1000.0
#define MS	1000000.0

static const char *const names[WL_COUNT] = {
	[WL_HACKBENCH] = "hackbench", [WL_TBENCH] = "tbench",
	[WL_SCHBENCH] = "schbench", [WL_HOGS] = "hogs",
	[WL_DENSE] = "dense",
};

/* The shape of each workload; README.md gives the reasons. */
static const struct shape {
	int vcpus;		/* per VM (dense alternates 1 and 2) */
	int tokens;		/* messages in flight per VM */
	double burst_ns[2];	/* mean burst: vCPU 0, the others */
	double duty;		/* demand per vCPU (or per token) */
	bool per_token;		/* demand counted per message in flight */
} shapes[WL_COUNT] = {
	[WL_HACKBENCH] = { 4, 2, { 20 * US, 20 * US }, 1, true },
	[WL_TBENCH] = { 2, 1, { 10 * US, 20 * US }, 1, true },
	/* 4 workers * 400 us per 2 ms = 0.8 core per VM, 0.2 per worker */
	[WL_SCHBENCH] = { 5, 0, { 5 * US, 400 * US }, 0.2, false },
	[WL_HOGS] = { 4, 0, { 10 * MS, 10 * MS }, 1, false },
	/* half the time on, 100 of every 150 us busy when on */
	[WL_DENSE] = { 2, 0, { 100 * US, 100 * US }, 1.0 / 3, false },
};

#define SCHBENCH_PERIOD_NS	(2 * MS)
#define HOG_HALT_NS		(100 * US)
#define DENSE_PHASE_NS		(20 * MS)
#define DENSE_HALT_NS		(50 * US)

const char *
workload_name(enum workload w)
{
	return (unsigned int)w < WL_COUNT ? names[w] : "?";
}

int
workload_lookup(const char *name)
{
	int i;

	for (i = 0; i < WL_COUNT; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -EINVAL;
}

void
workload_def(enum workload w, struct wl_def *ret)
{
	const struct shape *sh = &shapes[w];

	ret->tokens = sh->tokens;
	ret->burst_ns[0] = sh->burst_ns[0];
	ret->burst_ns[1] = sh->burst_ns[1];
	ret->period_ns = w == WL_SCHBENCH ? (uint64_t)SCHBENCH_PERIOD_NS : 0;
}

static uint64_t
burst(struct sim *s, int thi)
{
	const struct shape *sh = &shapes[s->wl];
	struct sim_thread *th = &s->th[thi];

	return rng_exp_ns(&th->rng[RNG_BURST], sh->burst_ns[th->idx ? 1 : 0]);
}

/* VM sizes for the load: returns the number of VMs, sizes in *sizes. */
static int
plan_vms(const struct sim *s, int load_pct, int **ret_sizes)
{
	const struct shape *sh = &shapes[s->wl];
	double demand = load_pct / 100.0 * s->t->ncores;
	int nvm, i, nth, *sz;

	if (sh->per_token) {
		int tokens = (int)(demand + 0.5);

		nvm = (tokens + sh->tokens - 1) / sh->tokens;
	} else if (s->wl == WL_DENSE) {
		nth = (int)(demand / sh->duty + 0.5);
		nvm = (nth * 2 + 2) / 3;	/* 1, 2, 1, 2 ... vCPUs */
	} else if (s->wl == WL_SCHBENCH) {
		nvm = (int)(demand / (sh->duty * (sh->vcpus - 1)) + 0.5);
	} else {
		nth = (int)(demand + 0.5);
		nvm = (nth + sh->vcpus - 1) / sh->vcpus;
	}
	if (nvm < 1)
		nvm = 1;
	sz = calloc(nvm, sizeof(*sz));
	if (!sz)
		return -ENOMEM;
	for (i = 0; i < nvm; i++)
		sz[i] = s->wl == WL_DENSE ? 1 + i % 2 : sh->vcpus;
	if (s->wl == WL_HOGS) {
		nth = (int)(demand + 0.5);
		if (nth < 1)
			nth = 1;
		sz[nvm - 1] = nth - (nvm - 1) * sh->vcpus;
	}
	*ret_sizes = sz;
	return nvm;
}

int
workload_create(struct sim *s, int load_pct, uint64_t seed)
{
	int *sz = NULL, nvm, v, i, u, k = 0;

	nvm = plan_vms(s, load_pct, &sz);
	if (nvm < 0)
		return nvm;
	s->nvm = nvm;
	s->vm = calloc(nvm, sizeof(*s->vm));
	for (v = 0, s->nth = 0; v < nvm; v++)
		s->nth += sz[v];
	/* the host's own tasks after the vCPUs (hosttasks.c) */
	s->nvcpu = s->nth;
	s->nth += hosttasks_count(s);
	s->th = calloc(s->nth, sizeof(*s->th));
	if (!s->vm || !s->th) {
		free(sz);
		return -ENOMEM;
	}
	for (v = 0; v < nvm; v++) {
		s->vm[v].first = k;
		s->vm[v].n = sz[v];
		for (i = 0; i < sz[v]; i++, k++) {
			struct sim_thread *th = &s->th[k];

			th->vm = v;
			th->idx = i;
			th->state = TH_SLEEP;
			th->pu = th->waker_pu = VP_PU_NONE;
			th->next = -1;
			/* the stream depends on seed, workload, load, thread */
			for (u = 0; u < 4; u++)
				rng_seed(&th->rng[u], seed * 1000003u +
				    (uint64_t)s->wl * 7919u +
				    (uint64_t)load_pct * 131u + (uint64_t)u * 17u +
				    (uint64_t)k * UINT64_C(0x9e3779b97f4a7c15));
		}
	}
	free(sz);
	hosttasks_create(s, seed);
	return 0;
}

/* Starts a thread: its first wake-up within the first millisecond. */
static void
start_soon(struct sim *s, int thi)
{
	host_timer(s, thi, rng_below(&s->th[thi].rng[RNG_PHASE],
	    (uint64_t)MS));
}

void
workload_start(struct sim *s)
{
	const struct shape *sh = &shapes[s->wl];
	int v, i;

	for (v = 0; v < s->nvm; v++)
		for (i = 0; i < s->vm[v].n; i++) {
			int thi = s->vm[v].first + i;
			struct sim_thread *th = &s->th[thi];

			switch (s->wl) {
			case WL_HACKBENCH:
			case WL_TBENCH:
				/* the messages start on vCPUs 0, 2, ... */
				if (i % 2 == 0 && i / 2 < sh->tokens)
					start_soon(s, thi);
				break;
			case WL_SCHBENCH:
				if (i == 0)
					host_timer(s, thi, rng_below(
					    &th->rng[RNG_PHASE],
					    (uint64_t)SCHBENCH_PERIOD_NS));
				break;
			case WL_DENSE:
				/* half the vCPUs start in a run phase */
				if (rng_below(&th->rng[RNG_PHASE], 2))
					start_soon(s, thi);
				else
					host_timer(s, thi, rng_exp_ns(
					    &th->rng[RNG_PHASE], DENSE_PHASE_NS));
				break;
			default:
				start_soon(s, thi);
				break;
			}
		}
	hosttasks_start(s);
}

/*
 * schbench -R's request list (its worker.c splices the requests the
 * message thread posted while it ran and works through them in order):
 * remembers when a request was posted to busy @th.  0 or -ENOMEM.
 */
static int
post_request(struct sim_thread *th, uint64_t now_ns)
{
	if (th->pending == th->posted_cap) {
		int cap = th->posted_cap ? th->posted_cap * 2 : 8, i;
		uint64_t *ring = malloc(sizeof(*ring) * (size_t)cap);

		if (!ring)
			return -ENOMEM;
		for (i = 0; i < th->pending; i++)
			ring[i] = th->posted_ns[(th->posted_head + i) %
			    th->posted_cap];
		free(th->posted_ns);
		th->posted_ns = ring;
		th->posted_cap = cap;
		th->posted_head = 0;
	}
	th->posted_ns[(th->posted_head + th->pending) % th->posted_cap] =
	    now_ns;
	return 0;
}

/* The oldest pending request of @th starts now: its wait since its post. */
static void
start_request(struct sim *s, struct sim_thread *th)
{
	uint64_t posted = th->posted_ns[th->posted_head];

	th->posted_head = (th->posted_head + 1) % th->posted_cap;
	if (s->measuring)
		stats_add_latency(&s->req_st, s->now_ns - posted);
}

void
workload_woke(struct sim *s, int thi, uint64_t ns)
{
	if (s->wl == WL_SCHBENCH && s->th[thi].idx && s->measuring)
		stats_add_latency(&s->req_st, ns);
}

void
workload_release(struct sim *s)
{
	int i;

	for (i = 0; s->th && i < s->nth; i++)
		free(s->th[i].posted_ns);
}

/* Gives @thi a burst and wakes it, or leaves it a message pending. */
static void
send(struct sim *s, int thi, int waker_pu)
{
	struct sim_thread *th = &s->th[thi];

	if (th->state != TH_SLEEP) {
		if (s->wl == WL_SCHBENCH && post_request(th, s->now_ns) < 0) {
			s->errors++;
			return;
		}
		th->pending++;
		return;
	}
	host_burst(s, thi, burst(s, thi));
	host_wake(s, thi, waker_pu);
}

/* A random other vCPU of @th's VM. */
static int
peer_of(struct sim *s, int thi)
{
	struct sim_thread *th = &s->th[thi];
	const struct sim_vm *vm = &s->vm[th->vm];
	int j;

	if (vm->n < 2)
		return -1;
	j = (int)rng_below(&th->rng[RNG_PEER], (uint64_t)(vm->n - 1));
	if (j >= th->idx)
		j++;
	return vm->first + j;
}

/* Continues with the next pending message, if any. */
static bool
next_pending(struct sim *s, int thi)
{
	if (!s->th[thi].pending)
		return false;
	if (s->wl == WL_SCHBENCH)
		start_request(s, &s->th[thi]);
	s->th[thi].pending--;
	host_burst(s, thi, burst(s, thi));
	return true;
}

static bool
dense_burst_end(struct sim *s, int thi)
{
	struct sim_thread *th = &s->th[thi];
	int peer;

	if (s->now_ns >= th->phase_end_ns) {
		th->on = false;
		host_timer(s, thi, rng_exp_ns(&th->rng[RNG_PHASE],
		    DENSE_PHASE_NS));
		return false;
	}
	/* every other burst ends with an IPI to the sibling vCPU */
	peer = peer_of(s, thi);
	if (peer >= 0 && rng_below(&th->rng[RNG_PEER], 2) &&
	    s->th[peer].on &&
	    s->th[peer].state == TH_SLEEP)
		send(s, peer, th->pu);
	host_timer(s, thi, rng_exp_ns(&th->rng[RNG_HALT], DENSE_HALT_NS));
	return false;
}

bool
workload_burst_end(struct sim *s, int thi)
{
	struct sim_thread *th = &s->th[thi];
	int v, i;

	if (th_is_host(s, thi))
		return hosttasks_burst_end(s, thi);
	hosttasks_vcpu_burst_end(s, thi);
	switch (s->wl) {
	case WL_HACKBENCH:
	case WL_TBENCH:
		send(s, peer_of(s, thi), th->pu);
		return next_pending(s, thi);
	case WL_SCHBENCH:
		if (th->idx)
			return next_pending(s, thi);
		v = th->vm;
		for (i = 1; i < s->vm[v].n; i++)
			send(s, s->vm[v].first + i, th->pu);
		host_timer(s, thi, (uint64_t)SCHBENCH_PERIOD_NS);
		return false;
	case WL_HOGS:
		host_timer(s, thi, rng_exp_ns(&th->rng[RNG_HALT], HOG_HALT_NS));
		return false;
	case WL_DENSE:
		return dense_burst_end(s, thi);
	default:
		return false;
	}
}

void
workload_timer(struct sim *s, int thi)
{
	struct sim_thread *th = &s->th[thi];

	if (th_is_host(s, thi)) {
		hosttasks_timer(s, thi);
		return;
	}
	if (s->wl == WL_DENSE && !th->on) {
		th->on = true;
		th->phase_end_ns = s->now_ns +
		    rng_exp_ns(&th->rng[RNG_PHASE], DENSE_PHASE_NS);
	}
	th->started = true;
	host_burst(s, thi, burst(s, thi));
	host_wake(s, thi, VP_PU_NONE);
}
