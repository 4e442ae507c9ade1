/*
 * vcpuplaced - places the vCPU threads of libvirt VMs on the host
 * topology, by policy, every tick and on every libvirt event.
 *
 * main.c owns the loop and is the one place that logs.  Signal handlers
 * only set flags.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "vcpuplaced/daemon.h"
#include "host/defaults.h"
#include "host/hwtopo.h"


static volatile sig_atomic_t quit_flag, reload_flag;
static int log_level = LOG_INFO;

/* every 40 ticks (10 s at 250 ms) the inventory is reread even without
 * events, to see affinity changed behind our back; events cover the rest
 * (a refresh of 200 VMs was a third of the daemon's idle CPU at 5 s) */
#define FULL_REFRESH_TICKS	40

uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

void
log_msg(int prio, const char *fmt, ...)
{
	static const char *const names[] = {
		"emerg", "alert", "crit", "error", "warning", "notice", "info",
		"debug",
	};
	va_list ap;

	if (prio > log_level)
		return;
	fprintf(stderr, "vcpuplaced: %s: ", names[prio & 7]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_flag = 1;
	else
		quit_flag = 1;
}

static void
usage(FILE *f)
{
	fputs("usage: vcpuplaced [--connect URI] [--policies DIR] "
	    "[--tick MS] [--reserve CPULIST]\n"
	    "                  [--socket PATH] [--status-file PATH] "
	    "[--topology FILE.xml]\n"
	    "                  [--kvm-debugfs DIR] [--dry-run] [--foreground] "
	    "[--debug]\n"
	    "--socket '' serves no socket; default " VP_DEFAULT_SOCKET "\n", f);
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
		{ "kvm-debugfs", required_argument, NULL, 'K' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "c:p:t:r:s:S:T:K:nfdh", opts,
	    NULL)) != -1) {
		switch (c) {
		case 'c': d->uri = optarg; break;
		case 'p': d->policy_dir = optarg; break;
		case 'r': d->reserve_list = optarg; break;
		case 's': d->status_file = optarg; break;
		case 'S': d->ctl.path = *optarg ? optarg : NULL; break;
		case 'T': d->topology_file = optarg; break;
		case 'K': d->kvm_root = optarg; break;
		case 'n': d->dry_run = true; break;
		case 'f': break;	/* always foreground: systemd forks */
		case 'd': log_level = LOG_DEBUG; break;
		case 'h': usage(stdout); exit(0);
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
	char err[4096];
	int r;

	r = d->topology_file ? hwtopo_load_xml(d->topology_file, &d->topo) :
	    hwtopo_load_host(&d->topo);
	if (r < 0) {
		log_msg(LOG_ERR, "topology %s: %s", d->topology_file ?
		    d->topology_file : "(host)", strerror(-r));
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
	features_default(&d->feat);
	d->core_sched_supported = actuate_core_sched_probe();
	kvmhint_init(d);
	if ((r = sampler_init(d)) < 0 || (r = virt_events_start()) < 0 ||
	    (r = ctl_open(d)) < 0)
		return r;
	if (gethostname(d->hostname, sizeof(d->hostname) - 1) < 0)
		snprintf(d->hostname, sizeof(d->hostname), "unknown");
	d->started_ns = now_ns();
	log_msg(LOG_INFO, "%d PUs, %d cores, %d LLCs; %s; socket %s; "
	    "core_sched %s%s", d->topo->npus, d->topo->ncores,
	    d->topo->nllcs, d->uri, d->ctl.path ? d->ctl.path : "none",
	    d->core_sched_supported ? "supported" : "unsupported",
	    d->dry_run ? "; dry run: nothing is pinned" : "");
	return 0;
}

static void
tick(struct vp_daemon *d)
{
	if (virt_ensure(d) == 0 && (atomic_load(&d->dirty) ||
	    d->c.ticks % FULL_REFRESH_TICKS == 0) && virt_refresh(d) == 0)
		kvmhint_attach(d);
	sampler_read(d);
	kvmhint_read_stats(d);
	tick_plan(d);
	if (d->conn && !atomic_load(&d->conn_lost) && actuate_apply(d) > 0)
		d->status_dirty = true;
	kvmhint_sync(d);
	/*
	 * Building the status JSON of 800 vCPUs was 60 % of the daemon's CPU
	 * (callgrind): write it when something changed, else once a second.
	 */
	if (d->status_dirty || d->status_gen != d->inventory_gen ||
	    d->c.ticks % (1000 / d->tick_ms + 1) == 0) {
		status_write(d);
		d->status_dirty = false;
		d->status_gen = d->inventory_gen;
	}
	d->c.ticks++;
}

/*
 * systemd: READY=1 once the first tick ran (the socket answers with real
 * data by then), STATUS= a line for `systemctl status`, and WATCHDOG=1
 * from the tick loop, so a loop that hangs gets the daemon restarted.
 */
static void
notify_tick(struct vp_daemon *d)
{
	char msg[256];
	int i, vcpus = 0;
	uint64_t now;

	if (!d->notify)
		return;
	now = now_ns();
	if (d->c.ticks == 1 || d->c.ticks % (10000 / d->tick_ms + 1) == 0) {
		for (i = 0; i < d->nvms; i++)
			vcpus += d->vm[i].nvcpus;
		snprintf(msg, sizeof(msg), "%sSTATUS=%d VMs, %d vCPUs; "
		    "libvirt %s%s", d->c.ticks == 1 ? "READY=1\n" : "",
		    d->nvms, vcpus, d->conn && !atomic_load(&d->conn_lost) ?
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

int
main(int argc, char **argv)
{
	struct vp_daemon d = {
		.uri = VP_DEFAULT_URI, .policy_dir = VP_DEFAULT_POLICY_DIR,
		.tick_ms = 250, .cb_lifecycle = -1, .cb_metadata = -1,
		.ctl = { .path = VP_DEFAULT_SOCKET, .fd = -1 },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t next;

	if (parse_args(&d, argc, argv) < 0)
		return 2;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (setup(&d) < 0)
		return 1;
	d.notify = getenv("NOTIFY_SOCKET") != NULL;
	if (sd_watchdog_enabled(0, &d.watchdog_usec) <= 0)
		d.watchdog_usec = 0;
	next = now_ns();
	while (!quit_flag) {
		if (reload_flag || atomic_load(&d.reload_asked)) {
			reload_flag = 0;
			do_reload(&d);
		}
		tick(&d);
		notify_tick(&d);
		next += (uint64_t)d.tick_ms * 1000000;
		if (next < now_ns())
			next = now_ns();	/* overran: do not catch up */
		/* the socket is served while the tick sleeps */
		while (!quit_flag && !reload_flag &&
		    !atomic_load(&d.reload_asked) && now_ns() < next)
			ctl_serve(&d, next);
	}
	log_msg(LOG_INFO, "stopping after %lu ticks", d.c.ticks);
	if (d.notify)
		sd_notify(0, "STOPPING=1");
	ctl_close(&d);
	tick_free(&d);
	virt_free_vms(&d);
	virt_disconnect(&d);
	sampler_free(&d);
	profiles_free(d.profiles);
	topo_free(d.topo);
	return 0;
}
