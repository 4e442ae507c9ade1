/*
 * main.c - the simulator's command line.
 *
 *   vcpuplace-sim --topology F --workload W --load L --strategy S --seed N
 *       [--smt-yield X] [--warm-scale X] [--measure-ms N] [--warmup-ms N]
 *       [--feature [-]NAME] [--policy-FIELD VALUE] [--check]
 *       [--costs all|none|LIST] [--no-cstates] [--no-turbo]
 *       [--migration-us X] [--halt-poll-ns N] [--cluster-line-ns X]
 *       [--bpf-step-ns N] [--scx-kick-ns N] [--scx-resched-ns N]
 *       [--cstate-scale X] [--poll-smt-weight X]
 *       [--host-tasks 0|1] [--kthread-ns N] [--kthread-period-ns N]
 *       [--vhost-ns N] [--vhost-every N] [--iothread-ns N]
 *       [--iothread-period-ns N]   host tasks (hosttasks.c; 0 turns a
 *       kind off)
 *       [--model-eevdf 0|1] [--jiffy-ns N]   stock's runqueues as 6.12's
 *       EEVDF (1, the default; eevdf.c) or the FIFO with fixed slices
 *       before it (0); the tick
 *       [--vm-mix PROFILE[,PROFILE...]] [--profiles DIR]
 *       runs one point; --vm-mix gives VM v the profile v mod n of the
 *       list (from DIR, default policies/) and reports each class
 *   vcpuplace-sim --topology F --print-costs [cost options]
 *       the cost tables (migration by distance, idle states, turbo) and prints one JSON line with every figure
 *   vcpuplace-sim --sweep TOPODIR OUTDIR [--jobs N]
 *       the standard sweep: tables and plots in OUTDIR
 *
 * Exit status: 0, 1 for bad arguments or a failed run, 2 when --check
 * found a broken invariant.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/hwtopo.h"
#include "host/policy_xml.h"
#include "sim.h"
#include "costs.h"

static void
usage(void)
{
	fprintf(stderr, "usage: vcpuplace-sim --topology F --workload W "
	    "--load PCT --strategy S --seed N [--smt-yield X] "
	    "[--warm-scale X] [--measure-ms N] [--warmup-ms N] "
	    "[--feature [-]NAME] [--policy-FIELD VALUE] [--check] "
	    "[--costs all|none|migration,cstates,turbo,poll,upkeep,scx] "
	    "[--no-cstates] [--no-turbo] [--migration-us X] "
	    "[--halt-poll-ns N] [--cluster-line-ns X] [--cstate-scale X] "
	    "[--poll-smt-weight X]\n"
	    "       [--bpf-step-ns N] [--scx-kick-ns N] [--scx-resched-ns N] "
	    "[--vm-mix PROFILE[,...]] [--profiles DIR]\n"
	    "       [--host-tasks 0|1] [--kthread-ns N] "
	    "[--kthread-period-ns N] [--vhost-ns N] [--vhost-every N] "
	    "[--iothread-ns N] [--iothread-period-ns N]\n"
	    "       [--model-eevdf 0|1] [--jiffy-ns N]\n"
	    "       vcpuplace-sim --sweep TOPODIR OUTDIR [--jobs N]\n");
	exit(1);
}

/* --profiles: where --vm-mix's profile files are */
static const char *profiles_dir = "policies";

/* Parses a number with end pointer and range, or exits. */
static double
num(const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "vcpuplace-sim: bad number '%s'\n", s);
		exit(1);
	}
	return v;
}

/* --feature NAME turns a feature on, -NAME off. */
static void
set_feature(struct vp_features *f, const char *arg)
{
	bool on = arg[0] != '-';
	int i = features_lookup(on ? arg : arg + 1);

	if (i < 0) {
		fprintf(stderr, "vcpuplace-sim: unknown feature '%s'\n", arg);
		exit(1);
	}
	f->on[i] = on;
}

/* One option with its value into @c / @o; false if unknown. */
static bool
parse_opt(const char *a, const char *v, struct run_cfg *c,
    struct run_opts *o, const char **topo, bool *have_seed)
{
	if (!strcmp(a, "--topology"))
		*topo = v;
	else if (!strcmp(a, "--workload"))
		c->wl = workload_lookup(v);
	else if (!strcmp(a, "--load"))
		c->load_pct = (int)num(v, 1, 1000);
	else if (!strcmp(a, "--strategy"))
		c->strat = strategy_lookup(v);
	else if (!strcmp(a, "--seed")) {
		c->seed = (uint64_t)num(v, 0, 1e15);
		*have_seed = true;
	} else if (!strcmp(a, "--smt-yield"))
		o->p.smt_yield = num(v, 0.5, 1);
	else if (!strcmp(a, "--warm-scale"))
		o->p.warm_scale = num(v, 0, 100);
	else if (!strcmp(a, "--measure-ms"))
		o->p.measure_ns = (uint64_t)num(v, 1, 100000) * 1000000;
	else if (!strcmp(a, "--warmup-ms"))
		o->p.warmup_ns = (uint64_t)num(v, 0, 100000) * 1000000;
	else if (!strcmp(a, "--feature"))
		set_feature(&o->feat, v);
	else if (!strcmp(a, "--costs")) {
		int m = costs_parse(v);

		if (m < 0)
			return false;
		o->p.costs = (unsigned int)m;
	} else if (!strcmp(a, "--migration-us"))
		o->p.migration_us = num(v, 0.001, 1000);
	else if (!strcmp(a, "--halt-poll-ns"))
		o->p.halt_poll_ns = (int64_t)num(v, 0, 1e9);
	else if (!strcmp(a, "--scx-kick-ns"))
		o->p.scx_kick_ns = (uint64_t)num(v, 0, 1e6);
	else if (!strcmp(a, "--scx-resched-ns"))
		o->p.scx_resched_ns = (uint64_t)num(v, 0, 1e6);
	else if (!strcmp(a, "--bpf-step-ns"))
		o->p.bpf_step_ns = (uint64_t)num(v, 0, 10000);
	else if (!strcmp(a, "--cluster-line-ns"))
		o->p.line_ns[0] = num(v, 0, 1000);
	else if (!strcmp(a, "--cstate-scale"))
		o->p.cstate_scale = num(v, 0, 10);
	else if (!strcmp(a, "--poll-smt-weight"))
		o->p.poll_smt_weight = num(v, 0, 1);
	else if (!strcmp(a, "--kthread-ns"))
		o->p.kthread_ns = (uint64_t)num(v, 0, 1e7);
	else if (!strcmp(a, "--kthread-period-ns"))
		o->p.kthread_period_ns = (uint64_t)num(v, 0, 1e9);
	else if (!strcmp(a, "--vhost-ns"))
		o->p.vhost_ns = (uint64_t)num(v, 0, 1e7);
	else if (!strcmp(a, "--vhost-every"))
		o->p.vhost_every = (unsigned int)num(v, 0, 1e6);
	else if (!strcmp(a, "--iothread-ns"))
		o->p.iothread_ns = (uint64_t)num(v, 0, 1e7);
	else if (!strcmp(a, "--iothread-period-ns"))
		o->p.iothread_period_ns = (uint64_t)num(v, 0, 1e9);
	else if (!strcmp(a, "--host-tasks")) {
		/* --host-tasks 0: none at all, the model before them */
		if (!num(v, 0, 1))
			o->p.kthread_ns = o->p.vhost_ns = o->p.iothread_ns = 0;
	} else if (!strcmp(a, "--model-eevdf"))
		/* 0: the FIFO, fixed-slice runqueues before eevdf.c */
		o->p.eevdf = num(v, 0, 1) != 0;
	else if (!strcmp(a, "--jiffy-ns"))	/* HZ 1000 .. 100 */
		o->p.jiffy_ns = (uint64_t)num(v, 1e6, 1e7);
	else if (!strcmp(a, "--vm-mix"))
		o->vm_mix = v;
	else if (!strcmp(a, "--profiles"))
		profiles_dir = v;
	else if (!strncmp(a, "--policy-", 9))
		return policy_set_field(&o->policy, a + 9, v) == 0;
	else
		return false;
	return true;
}

/* Runs one point and prints its line; the exit status. */
static int
run_one(const char *topo, struct run_cfg *c, const struct run_opts *o)
{
	struct vp_topo *t = NULL;
	int r, errors = 0;
	char *line;

	c->topology = strrchr(topo, '/') ? strrchr(topo, '/') + 1 : topo;
	if ((r = hwtopo_load_xml(topo, &t, NULL, 0)) < 0) {
		fprintf(stderr, "vcpuplace-sim: %s: %s\n", topo, strerror(-r));
		return 1;
	}
	line = run_point(t, c, o, &errors);
	topo_free(t);
	if (!line) {
		fprintf(stderr, "vcpuplace-sim: run failed\n");
		return 1;
	}
	puts(line);
	free(line);
	if (errors)
		fprintf(stderr, "vcpuplace-sim: %d invariant errors\n", errors);
	return errors ? 2 : 0;
}

/* --print-costs: the cost tables of @topo, one JSON line. */
static int
print_costs_of(const char *topo, const struct run_opts *o)
{
	struct vp_topo *t = NULL;
	int r;

	if ((r = hwtopo_load_xml(topo, &t, NULL, 0)) < 0) {
		fprintf(stderr, "vcpuplace-sim: %s: %s\n", topo, strerror(-r));
		return 1;
	}
	r = costs_print(t, &o->p);
	topo_free(t);
	return r < 0;
}

int
main(int argc, char **argv)
{
	struct run_cfg c = { .load_pct = -1, .variant = "", .wl = -1,
	    .strat = -1 };
	struct run_opts o = { .check = false };
	const char *topo = NULL;
	bool have_seed = false, print_costs = false;
	int i;

	params_default(&o.p);
	features_default(&o.feat);
	policy_default(&o.policy);
	if (argc >= 4 && !strcmp(argv[1], "--sweep")) {
		int jobs = 2;

		if (argc == 6 && !strcmp(argv[4], "--jobs"))
			jobs = (int)num(argv[5], 1, 64);
		else if (argc != 4)
			usage();
		return sweep_main(argv[2], argv[3], jobs, profiles_dir) < 0;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--check")) {
			o.check = true;
			continue;
		}
		if (!strcmp(argv[i], "--print-costs")) {
			print_costs = true;
			continue;
		}
		if (!strcmp(argv[i], "--no-cstates") ||
		    !strcmp(argv[i], "--no-turbo")) {
			o.p.costs &= argv[i][5] == 'c' ? ~COST_CSTATES :
			    ~COST_TURBO;
			continue;
		}
		if (i + 1 >= argc ||
		    !parse_opt(argv[i], argv[i + 1], &c, &o, &topo, &have_seed))
			usage();
		i++;
	}
	if (!topo)
		usage();
	/* the topology's CPU model and caches, behind the costs (cpus.c) */
	o.p.cpu = cpus_identify(topo, &o.p.l1d_bytes, &o.p.l2_bytes,
	    &o.p.l2_shared);
	if (print_costs)
		return print_costs_of(topo, &o);
	if ((int)c.wl < 0 || (int)c.strat < 0 || c.load_pct < 0 || !have_seed)
		usage();
	if (o.vm_mix) {
		struct vp_profiles *pr = NULL;
		char err[1024] = "";

		if (profiles_load(profiles_dir, &pr, err, sizeof(err)) < 0) {
			fprintf(stderr, "vcpuplace-sim: profiles in %s: %s\n",
			    profiles_dir, err);
			return 1;
		}
		o.profiles = pr;
		i = run_one(topo, &c, &o);
		profiles_free(pr);
		return i;
	}
	return run_one(topo, &c, &o);
}
