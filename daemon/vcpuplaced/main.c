/*
 * vcpuplaced - places the vCPU threads of libvirt VMs on the host
 * topology, by policy, every tick and on every libvirt event.
 *
 * main.c owns the loop: options, start-up, the tick's stages in order,
 * and the sleep in which the socket is served.  Signal handlers only set
 * flags.  Nothing includes it: the service's logic lives in the other
 * files of daemon/vcpuplaced/, linked into the unit tests as well.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "vcpuplaced/daemon.h"
#include "host/coresched.h"
#include "host/defaults.h"
#include "host/hwtopo.h"
#include "host/policy_xml.h"


static volatile sig_atomic_t quit_flag, reload_flag;

/* every 40 ticks (10 s at 250 ms) the inventory is reread even without
 * events, to see affinity changed behind our back; events cover the rest
 * (a refresh of 200 VMs was a third of the daemon's idle CPU at 5 s) */
#define FULL_REFRESH_TICKS	40

/*
 * Start-up waits this long (ms) for libvirt's first inventory where
 * sched_ext may load; past it the scheduler is decided without the VMs'
 * quotas, as when libvirtd is down.  10 s: libvirt's own keepalive gives
 * up on a dead daemon after 30 s (5 probes 5 s apart, plus the call).
 */
#define START_WAIT_MS	10000

/* SIGTERM waits this long (ms) for the worker's BYE (a worker stuck in
 * libvirt cannot be joined, and nothing is lost: pins are live only) */
#define STOP_WAIT_MS	2000

/*
 * Event rounds are coalesced and bounded.  The eventfd counts events and
 * one read takes them all, so events that arrive while a round runs make
 * one more round, not one each.  And after a round that used T of the
 * loop thread's CPU, the next starts no earlier than max(EVENT_GAP_MIN_NS,
 * T) after it ended: event rounds take at most half of the loop thread's
 * CPU whatever the burst (50 metadata changes, 200 VMs restarted by
 * libvirt), and the socket and the tick get the rest.  CPU time, not
 * wall time: a round that waited on libvirtd (which holds a domain's
 * lock while it kills its QEMU, 1.5 s for a TCG guest here) cost the
 * loop nothing, and a wall-time gap after it made the next VM's start
 * wait for the tick (a start right after a destroy: p50 68 ms instead of
 * under 5).  25 ms: one start gives libvirt two or three events a few ms
 * apart, which this folds into one or two rounds, and it is small beside
 * the 100 ms the placement latency is held to.
 */
#define EVENT_GAP_MIN_NS	(25ULL * 1000000)

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_flag = 1;
	else
		quit_flag = 1;
}

/*
 * SIGTERM, SIGINT and SIGHUP are blocked everywhere but in the loop's
 * ppoll() (server_serve), which unblocks them while it waits.  Else one
 * could be taken by libvirt's event thread, or arrive just before the
 * poll, and the flag its handler sets would wait for the poll's timeout:
 * up to a tick, a minute with --tick 60000.  Before any thread starts,
 * so that libvirt's inherits the mask.
 */
static void
block_loop_signals(struct vp_daemon *d)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &d->serve_sigmask);
}

static void
usage(FILE *f)
{
	fputs("usage: vcpuplaced [--connect URI] [--policies DIR] "
	    "[--tick MS] [--reserve CPULIST]\n"
	    "                  [--socket PATH] [--status-file PATH] "
	    "[--topology FILE.xml]\n"
	    "                  [--debugfs DIR] [--feature NAME=on|off ...]\n"
	    "                  [--sched-ext auto|on|off] [--dry-run] "
	    "[--foreground] [--debug]\n"
	    "                  [--no-proc-events] [--kernel-root DIR] "
	    "[--trust-metadata]\n"
	    "                  [--help] [--version]\n"
	    "--socket '' serves no socket; default " VP_DEFAULT_SOCKET "\n"
	    "--connect default " VP_DEFAULT_URI "; --policies default "
	    VP_DEFAULT_POLICY_DIR "\n"
	    "--sched-ext auto (default): load vcpuplace's BPF scheduler where "
	    "the kernel\n"
	    "  has sched_ext and no other BPF scheduler runs; on: the same, "
	    "or do not start;\n"
	    "  off: never\n"
	    "--debugfs default " SCHEDFEAT_ROOT ": where sched/features "
	    "says whether\n"
	    "  the kernel has the series' SIS_CORE (kernel mode "
	    "kernel-patch); read at start\n"
	    "  and on reload, never written\n"
	    "--kernel-root default /: where proc/ and sys/ are read to tell "
	    "whether the\n"
	    "  kernel takes a BPF scheduler (sched_ext, BTF, isolcpus=); for "
	    "tests\n"
	    "--trust-metadata: a VM's own metadata may select any profile and "
	    "override\n"
	    "  any field (a host whose VM owners are its operators)\n"
	    "See vcpuplaced(8).\n", f);
}

/*
 * The version, and whether this binary carries the BPF scheduler: the
 * normal build does not, the package and `make install-scx` do, and
 * --sched-ext=auto can only ever load it in the latter.
 */
static void
version(void)
{
	const char *bpf = scx_built_with();

	printf("vcpuplaced %s\n", VP_VERSION);
	if (bpf)
		printf("sched_ext scheduler: built in (libbpf %s)\n", bpf);
	else
		printf("sched_ext scheduler: not built in (kernel modes "
		    "userspace and kernel-patch only)\n");
}

/* --feature NAME=on|off: a heuristic of feature_list.h, switched. */
static int
set_feature(struct vp_features *feat, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[32];
	int f;

	if (!eq || (size_t)(eq - arg) >= sizeof(name))
		goto bad;
	snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
	if ((f = features_lookup(name)) < 0) {
		fprintf(stderr, "vcpuplaced: --feature %s: no feature %s; "
		    "there are:", arg, name);
		for (f = 0; f < VP_FEAT_COUNT; f++)
			fprintf(stderr, " %s", features_name(f));
		fputc('\n', stderr);
		return -EINVAL;
	}
	if (!strcmp(eq + 1, "on") || !strcmp(eq + 1, "off")) {
		feat->on[f] = !strcmp(eq + 1, "on");
		return 0;
	}
bad:
	fprintf(stderr, "vcpuplaced: --feature %s: want NAME=on or NAME=off\n",
	    arg);
	return -EINVAL;
}

static int
parse_args(struct vp_daemon *d, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "connect", required_argument, NULL, 'c' },
		{ "policies", required_argument, NULL, 'p' },
		{ "tick", required_argument, NULL, 't' },
		{ "reserve", required_argument, NULL, 'r' },
		{ "status-file", required_argument, NULL, 's' },
		{ "socket", required_argument, NULL, 'S' },
		{ "topology", required_argument, NULL, 'T' },
		{ "debugfs", required_argument, NULL, 'D' },
		{ "feature", required_argument, NULL, 'F' },
		{ "sched-ext", required_argument, NULL, 'x' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "no-proc-events", no_argument, NULL, 'P' },
		{ "kernel-root", required_argument, NULL, 'K' },
		{ "trust-metadata", no_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	struct stat st;
	char *end;
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "c:p:t:r:s:S:T:D:F:x:nfdh", opts,
	    NULL)) != -1) {
		switch (c) {
		case 'c': d->uri = optarg; break;
		case 'p': d->policy_dir = optarg; break;
		case 'r': d->reserve_list = optarg; break;
		case 's': d->status_file = optarg; break;
		case 'S': d->ctl.path = *optarg ? optarg : NULL; break;
		case 'T': d->topology_file = optarg; break;
		case 'D': d->debugfs_root = optarg; break;
		case 'F':
			if (set_feature(&d->feat, optarg) < 0)
				return -EINVAL;
			break;
		case 'x':
			if (schedext_parse_opt(optarg, &d->scx.opt) < 0) {
				fprintf(stderr, "vcpuplaced: --sched-ext %s: want "
				    "auto, on or off\n", optarg);
				return -EINVAL;
			}
			break;
		case 'n': d->dry_run = true; break;
		case 'M': d->trust_metadata = true; break;
		case 'f': break;	/* always foreground: systemd forks */
		case 'd': log_set_level(LOG_DEBUG); break;
		case 'h': usage(stdout); exit(0);
		case 'V': version(); exit(0);
		case 'P': d->hp.disabled = true; break;
		case 'K':
			if (stat(optarg, &st) < 0 || !S_ISDIR(st.st_mode)) {
				fprintf(stderr, "vcpuplaced: --kernel-root %s: "
				    "%s\n", optarg, stat(optarg, &st) < 0 ?
				    strerror(errno) : "not a directory");
				return -EINVAL;
			}
			d->scx.root = optarg;
			break;
		case 't':
			errno = 0;
			v = strtol(optarg, &end, 10);
			/* below 50 ms the pins alone (4 ms each) dominate */
			if (errno || *end || v < 50 || v > 60000) {
				fprintf(stderr, "vcpuplaced: --tick %s: must be "
				    "50..60000 ms\n", optarg);
				return -EINVAL;
			}
			d->tick_ms = (unsigned int)v;
			break;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/* Startup only: what fails here is fatal, with a message naming it. */
static int
setup(struct vp_daemon *d)
{
	const char *reserve = d->reserve_list;
	char err[4096] = "";
	int r;

	r = d->topology_file ? hwtopo_load_xml(d->topology_file, &d->topo,
	    err, sizeof(err)) : hwtopo_load_host(&d->topo, err, sizeof(err));
	if (r < 0) {
		log_msg(LOG_ERR, "topology %s: %s", d->topology_file ?
		    d->topology_file : "(host)", *err ? err : strerror(-r));
		return r;
	}
	if (reserve && (r = cpulist_parse(d->topo, reserve, &d->reserved)) < 0) {
		log_msg(LOG_ERR, "--reserve %s: not a CPU list of this host",
		    reserve);
		return r;
	}
	if (cpuset_count(&d->reserved) >= d->topo->npus) {
		log_msg(LOG_ERR, "--reserve %s leaves no PU for VMs", reserve);
		return -EINVAL;
	}
	if ((r = profiles_load(d->policy_dir, &d->profiles, err,
	    sizeof(err))) < 0) {
		log_msg(LOG_ERR, "policies %s: %s", d->policy_dir,
		    r == -EINVAL ? err : strerror(-r));
		return r;
	}
	d->core_sched_supported = coresched_supported();
	kernelmode_init(d);
	if ((r = load_open(d->topo, &d->load)) < 0) {
		log_msg(LOG_ERR, "sampler: %s", strerror(-r));
		return r;
	}
	if ((r = virt_events_start()) < 0) {
		log_msg(LOG_ERR, "libvirt event loop: %s", strerror(-r));
		return r;
	}
	if (virt_wake_fd(&d->virt) < 0)
		log_msg(LOG_WARNING, "eventfd: %s; placing on ticks only",
		    strerror(errno));
	if ((r = libvirt_start(d)) < 0) {
		log_msg(LOG_ERR, "libvirt worker: %s", strerror(-r));
		return r;
	}
	hotplug_open(d);
	if ((r = server_open(d)) < 0)
		return r;
	/*
	 * The VMs first, so that sched_ext is decided knowing their CPU
	 * quotas (auto does not load under one, schedext.c): a daemon
	 * started on a busy host never loads a scheduler only to unload
	 * it at its first tick.  Not connected: the first tick tries again.
	 * Only where it may load, and for at most START_WAIT_MS: elsewhere
	 * start-up does not wait on libvirt (a frozen libvirtd holds no
	 * start-up line back).
	 */
	if (schedext_may_load(d) && answers_connect_within(d,
	    START_WAIT_MS) == 0)
		hotplug_track(d);
	/* after the socket: a second daemon stops there, never loads */
	if ((r = schedext_start(d)) < 0) {
		server_close(d);
		return r;
	}
	/* the socket bound, the connector joined, the kernel mode chosen */
	privileges_settle(d);
	if (gethostname(d->hostname, sizeof(d->hostname) - 1) < 0)
		snprintf(d->hostname, sizeof(d->hostname), "unknown");
	d->started_ns = clock_now_ns();
	log_msg(LOG_INFO, "%d PUs, %d cores, %d LLCs; %s; socket %s; "
	    "core_sched %s%s", d->topo->npus, d->topo->ncores,
	    d->topo->nllcs, d->uri, d->ctl.path ? d->ctl.path : "none",
	    d->core_sched_supported ? "supported" : "unsupported",
	    d->dry_run ? "; dry run: nothing is pinned" : "");
	if (d->trust_metadata)
		log_msg(LOG_NOTICE, "--trust-metadata: VM metadata may ask for "
		    "dedicated cores, isolation and the host's reserved PUs");
	return 0;
}

/*
 * The pins the last plan chose: sent to the worker, whose answer counts
 * them (libvirt.c); a dry run's are counted at once, with their latency
 * (since @t0).
 */
static void
pin_planned(struct vp_daemon *d, uint64_t t0)
{
	if (actuate_apply(d) > 0)
		d->status_dirty = true;
	if (d->dry_run)
		actuate_note_latency(d, t0);
}

/*
 * The status file, when something changed or @due.  Building the status
 * JSON of 800 vCPUs was 60 % of the daemon's CPU (callgrind): not every
 * round.
 */
static void
write_status(struct vp_daemon *d, bool due)
{
	if (!due && !d->status_dirty && d->status_gen == d->inventory_gen)
		return;
	/*
	 * Pins on their way: the file shows a placement once libvirt took
	 * it (a new VM is listed placed), unless libvirt stalls on them.
	 */
	if (libvirt_applying(d) && clock_now_ns() - d->lv.apply_ns <
	    (uint64_t)VP_LIBVIRT_STALL_MS * 1000000)
		return;
	status_write(d);
	d->status_dirty = false;
	d->status_gen = d->inventory_gen;
}

/*
 * A libvirt event woke the loop: ask the worker for a refresh (or only
 * the policies whose metadata changed); answers_round() plans and pins
 * when the answer comes.  A read already out leaves the dirty flag: the
 * read after it is sent when it ends.
 */
static void
event_round(struct vp_daemon *d)
{
	unsigned char md[VP_VIRT_MD_MAX][VP_UUID_LEN];
	int nmd = virt_metadata_take(&d->virt, md);

	if (!libvirt_connected(d))
		return;
	if (libvirt_reading(d)) {
		if (nmd)	/* their UUIDs are dropped: read them all */
			virt_mark_dirty(&d->virt, 0);
		return;
	}
	/*
	 * A metadata change re-reads its own VM; anything else, them all.
	 * So does a metadata change while a host rule reads Nova's element,
	 * which a REREAD does not carry (a VM whose own policy went may fall
	 * to such a rule).
	 */
	if (nmd && !virt_dirty(&d->virt) &&
	    !profiles_rules_read_nova(d->profiles))
		(void)libvirt_reread(d, md, nmd);
	else if (nmd || virt_dirty(&d->virt))
		(void)libvirt_refresh(d, true);
}

/*
 * The worker answered.  A new inventory is planned at once and its
 * urgent moves made (a new VM, a new policy, a broken affinity), off the
 * tick, whose cadence does not change; the load is left to the tick.
 * Answered pins let the moves that waited for them go.
 */
static void
answers_round(struct vp_daemon *d)
{
	uint64_t t0 = clock_now_ns(), cpu0 = clock_thread_cpu_ns(), cpu;
	unsigned int got = answers_take(d);

	if (got & VP_LV_GOT_INVENTORY)
		hotplug_track(d);
	if (got & VP_LV_GOT_EVENT)
		d->c.event_rounds++;
	if ((got & (VP_LV_GOT_INVENTORY | VP_LV_GOT_POLICIES |
	    VP_LV_GOT_PINS)) && !d->paused) {
		tick_plan_urgent(d);
		pin_planned(d, t0);
	}
	if (got & VP_LV_GOT_EVENT)
		hotplug_after_round(d, d->lv.read_sent_ns);
	if (got)
		write_status(d, false);
	/* what came meanwhile: the next read now, not at the tick */
	if (!libvirt_reading(d) && libvirt_connected(d) &&
	    virt_dirty(&d->virt))
		(void)libvirt_refresh(d, true);
	if (got & VP_LV_GOT_EVENT) {
		cpu = clock_thread_cpu_ns() - cpu0;
		d->event_quiet_until = clock_now_ns() + (cpu >
		    EVENT_GAP_MIN_NS ? cpu : EVENT_GAP_MIN_NS);
	}
}

static void
tick(struct vp_daemon *d)
{
	uint64_t t0 = clock_now_ns();

	libvirt_tick(d, d->c.ticks % FULL_REFRESH_TICKS == 0);
	server_run_queued(d);
	load_update(d);
	/* paused: the inventory and the load stay current, placement holds */
	if (!d->paused) {
		tick_plan(d);
		pin_planned(d, t0);
	}
	schedext_tick(d);
	/* an ejection or a fallback for good needs fewer */
	privileges_settle(d);
	/* and once a second */
	write_status(d, d->c.ticks % (1000 / d->tick_ms + 1) == 0);
	d->c.ticks++;
}

/*
 * Whether start-up is over for systemd: the first inventory read ended
 * (taken, or failed: libvirtd down), or START_WAIT_MS passed without an
 * answer (libvirtd stopped).  Before the worker, the first tick read
 * the inventory itself, so READY=1 came with the VMs known.
 */
static bool
started(const struct vp_daemon *d, uint64_t now)
{
	return !d->lv.up || d->lv.done_seq != 0 ||
	    now - d->started_ns >= (uint64_t)START_WAIT_MS * 1000000;
}

/*
 * systemd: READY=1 once started() (the socket answers with real data
 * by then), STATUS= a line for `systemctl status`, and WATCHDOG=1 from
 * the tick loop, so a loop that hangs gets the daemon restarted; none
 * before READY=1, which comes within START_WAIT_MS (10 s), under the
 * unit's WatchdogSec=30s.
 */
static void
notify_tick(struct vp_daemon *d)
{
	char msg[256];
	int i, vcpus = 0;
	bool first = false;
	uint64_t now;

	if (!d->notify)
		return;
	now = clock_now_ns();
	if (!d->ready_told) {
		if (!started(d, now))
			return;
		d->ready_told = first = true;
	}
	if (first || d->c.ticks % (10000 / d->tick_ms + 1) == 0) {
		for (i = 0; i < d->nvms; i++)
			vcpus += d->vm[i].nvcpus;
		snprintf(msg, sizeof(msg), "%sSTATUS=%d VMs, %d vCPUs; "
		    "libvirt %s%s", first ? "READY=1\n" : "",
		    d->nvms, vcpus, libvirt_connected(d) ?
		    "connected" : "disconnected", d->dry_run ? "; dry run" : "");
		sd_notify(0, msg);
	}
	if (d->watchdog_usec &&
	    now - d->watchdog_last_ns >= d->watchdog_usec * 1000 / 4) {
		sd_notify(0, "WATCHDOG=1");
		d->watchdog_last_ns = now;
	}
}

static void
do_reload(struct vp_daemon *d)
{
	atomic_store(&d->reload_asked, false);
	if (d->notify)
		sd_notify(0, "RELOADING=1");
	reload_all(d);
	if (d->notify)
		sd_notify(0, "READY=1");
}

/*
 * Serves the socket until @next, or until an event asks for a round
 * (not before d->event_quiet_until: events meanwhile wait, coalesced).
 */
static void
serve_until(struct vp_daemon *d, uint64_t next)
{
	uint64_t until = next;

	d->event_poll = clock_now_ns() >= d->event_quiet_until;
	if (!d->event_poll && d->event_quiet_until < until)
		until = d->event_quiet_until;
	until = hotplug_deadline(d, until);
	server_serve(d, until);
	answers_round(d);
	if (clock_now_ns() >= d->event_quiet_until) {
		uint64_t t0 = clock_now_ns();
		/* both, always: each empties what woke the poll */
		bool wake = virt_wake_take(&d->virt);

		if (hotplug_take(d) | wake) {
			event_round(d);
			hotplug_after_round(d, t0);
		}
	}
}

int
main(int argc, char **argv)
{
	struct vp_daemon d = {
		.uri = VP_DEFAULT_URI, .policy_dir = VP_DEFAULT_POLICY_DIR,
		.tick_ms = 250, .virt = VP_VIRT_INIT,
		.ctl = { .path = VP_DEFAULT_SOCKET, .fd = -1 },
		.hp = { .fd = -1 },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t next;

	/* the metadata events that concern placement: vcpuplace's own */
	static const char *const watched_ns[] = { VP_POLICY_NS, NULL };

	d.virt.watch_ns = watched_ns;
	features_default(&d.feat);
	if (parse_args(&d, argc, argv) < 0)
		return 2;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	block_loop_signals(&d);
	if (setup(&d) < 0)
		return 1;
	d.notify = getenv("NOTIFY_SOCKET") != NULL;
	if (sd_watchdog_enabled(0, &d.watchdog_usec) <= 0)
		d.watchdog_usec = 0;
	/*
	 * The first inventory before the first tick, as when the tick read
	 * it itself: the first answers on the socket know the VMs.  At most
	 * START_WAIT_MS, before the loop starts; never again, and not after
	 * setup() waited that long already (a read still out).
	 */
	if (!libvirt_connected(&d) && !libvirt_reading(&d) &&
	    answers_connect_within(&d, START_WAIT_MS) == 0)
		hotplug_track(&d);
	next = clock_now_ns();
	while (!quit_flag) {
		if (reload_flag || atomic_load(&d.reload_asked)) {
			reload_flag = 0;
			do_reload(&d);
		}
		tick(&d);
		notify_tick(&d);
		next += (uint64_t)d.tick_ms * 1000000;
		if (next < clock_now_ns())
			next = clock_now_ns();	/* overran: do not catch up */
		/* the socket is served while the tick sleeps; events wake it */
		while (!quit_flag && !reload_flag &&
		    !atomic_load(&d.reload_asked) && clock_now_ns() < next)
			serve_until(&d, next);
	}
	log_msg(LOG_INFO, "stopping after %lu ticks", d.c.ticks);
	if (d.notify)
		sd_notify(0, "STOPPING=1");
	schedext_stop(&d);
	server_close(&d);
	hotplug_close(&d);
	libvirt_stop(&d, STOP_WAIT_MS);
	tick_free(&d);
	inventory_free(&d);
	if (!d.lv.abandoned) {	/* else the worker may still hold it */
		virt_close(&d.virt);
		virt_wake_close(&d.virt);
	}
	load_free(&d.load);
	profiles_free(d.profiles);
	topo_free(d.topo);
	return 0;
}
