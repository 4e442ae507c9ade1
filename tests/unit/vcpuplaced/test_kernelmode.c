/*
 * test_kernelmode.c - the kernel mode the daemon reports without its BPF
 * scheduler, from sched/features in a mkdtemp directory (--debugfs): in
 * its log, status and metrics, at start and after a reload.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include <check.h>

#include "vcpuplaced/daemon.h"
#include "../suites.h"
#include "../testutil.h"

static char root[64], logpath[80];

/* The daemon's log from here on goes to logpath (each test forks). */
static void
capture_log(void)
{
	int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	close(fd);
}

/* How many times @s is in the log so far. */
static int
log_count(const char *s)
{
	char buf[8192];
	const char *p;
	FILE *f = fopen(logpath, "r");
	size_t n;
	int c = 0;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (p = strstr(buf, s); p; p = strstr(p + 1, s))
		c++;
	return c;
}

static void
daemon_init(struct vp_daemon *d)
{
	memset(d, 0, sizeof(*d));
	d->topo = load_topo("g4dnmetal.xml");
	features_default(&d->feat);
	d->tick_ms = 250;
	d->debugfs_root = root;
	d->uri = "test:///default";
	ck_assert_int_eq(load_open(d->topo, &d->load), 0);
}

static void
daemon_free(struct vp_daemon *d)
{
	load_free(&d->load);
	profiles_free(d->profiles);
	topo_free(d->topo);
	free((char *)d->topology_file);
	free((char *)d->policy_dir);
}

/* The status' kernel_mode and sis_core are @mode and @sis. */
static void
check_status(const struct vp_daemon *d, const char *mode, const char *sis)
{
	json_object *st = status_json(d), *v;

	ck_assert(json_object_object_get_ex(st, "kernel_mode", &v));
	ck_assert_str_eq(json_object_get_string(v), mode);
	ck_assert(json_object_object_get_ex(st, "sis_core", &v));
	ck_assert_str_eq(json_object_get_string(v), sis);
	json_object_put(st);
}

/* The metrics have one kernel_mode and one sis_core line: these. */
static void
check_metrics(const struct vp_daemon *d, const char *mode, const char *sis)
{
	char *text = NULL, want[128];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_int_eq(metrics_write(d, f), 0);
	fclose(f);
	snprintf(want, sizeof(want), "\nvcpuplace_kernel_mode{mode=\"%s\"} 1\n",
	    mode);
	ck_assert_msg(strstr(text, want), "lacks %s", want);
	snprintf(want, sizeof(want), "\nvcpuplace_kernel_sis_core{state=\"%s\"} "
	    "1\n", sis);
	ck_assert_msg(strstr(text, want), "lacks %s", want);
	ck_assert_ptr_eq(strstr(strstr(text, "\nvcpuplace_kernel_mode{") + 1,
	    "\nvcpuplace_kernel_mode{"), NULL);
	ck_assert_ptr_eq(strstr(strstr(text, "\nvcpuplace_kernel_sis_core{") +
	    1, "\nvcpuplace_kernel_sis_core{"), NULL);
	/* the series' per-vCPU wake counters and hints are gone */
	ck_assert_ptr_eq(strstr(text, "wake_hint"), NULL);
	ck_assert_ptr_eq(strstr(text, "vcpuplace_vcpu_wake"), NULL);
	free(text);
}

static void
setup(void)
{
	strcpy(root, "/tmp/vp-kmode-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(logpath, sizeof(logpath), "%s.log", root);
}

static void
teardown(void)
{
	sched_features_remove(root);
	remove(logpath);
}

static const struct {
	const char *line;	/* as sched_features_put() takes it */
	enum vp_sis_core sis;
	const char *mode;
	int err;
} mode_cases[] = {
	{ NULL, VP_SIS_CORE_ABSENT, "userspace", 0 },
	{ "PLACE_LAG SIS_UTIL\n", VP_SIS_CORE_ABSENT, "userspace", 0 },
	{ "PLACE_LAG NO_SIS_CORE SIS_UTIL\n", VP_SIS_CORE_OFF, "kernel-patch",
	  0 },
	{ "PLACE_LAG SIS_CORE SIS_UTIL\n", VP_SIS_CORE_ON, "kernel-patch", 0 },
	/* cannot tell whether the series is there: not claimed */
	{ SCHED_FEATURES_UNREADABLE, VP_SIS_CORE_UNKNOWN, "userspace", -EISDIR },
};

/* Start-up: the mode and the state, in status and metrics. */
START_TEST(test_mode_detect)
{
	struct vp_daemon d;

	daemon_init(&d);
	sched_features_put(root, mode_cases[_i].line);
	capture_log();
	kernelmode_init(&d);
	ck_assert_int_eq(d.sis_core, mode_cases[_i].sis);
	ck_assert_int_eq(d.sis_core_err, mode_cases[_i].err);
	ck_assert_str_eq(kernelmode_label(&d), mode_cases[_i].mode);
	ck_assert_str_eq(schedext_mode_label(&d), mode_cases[_i].mode);
	check_status(&d, mode_cases[_i].mode,
	    schedfeat_sis_core_name(mode_cases[_i].sis));
	check_metrics(&d, mode_cases[_i].mode,
	    schedfeat_sis_core_name(mode_cases[_i].sis));
	/* the notice how to turn it on: only when it is there and off */
	ck_assert_int_eq(log_count("echo SIS_CORE > "),
	    mode_cases[_i].sis == VP_SIS_CORE_OFF);
	daemon_free(&d);
}
END_TEST

/* The log says why SIS_CORE is unknown. */
START_TEST(test_describe)
{
	struct vp_daemon d;
	char buf[PATH_MAX + 128], want[PATH_MAX + 128];
	enum vp_sis_core was;

	daemon_init(&d);
	sched_features_put(root, SCHED_FEATURES_UNREADABLE);
	kernelmode_init(&d);
	kernelmode_describe(&d, buf, sizeof(buf));
	snprintf(want, sizeof(want), "SIS_CORE unknown (%s/sched/features: %s)",
	    root, strerror(EISDIR));
	ck_assert_str_eq(buf, want);
	sched_features_put(root, "NO_SIS_CORE\n");
	ck_assert(kernelmode_reread(&d, &was));
	ck_assert_int_eq(was, VP_SIS_CORE_UNKNOWN);
	ck_assert(!kernelmode_reread(&d, &was));
	kernelmode_describe(&d, buf, sizeof(buf));
	ck_assert_str_eq(buf, "SIS_CORE off");
	daemon_free(&d);
}
END_TEST

/*
 * The operator turns it on, and a reload (reload_all(), what SIGHUP
 * runs) shows it; then lockdown, then a kernel without it.  The notice
 * how to turn it on is said once, however often it is seen off.
 */
START_TEST(test_reload_rereads)
{
	struct vp_daemon d;
	char err[4096];

	daemon_init(&d);
	d.topology_file = topo_path("g4dnmetal.xml");
	d.policy_dir = topo_path("../../policies");
	ck_assert_int_eq(profiles_load(d.policy_dir, &d.profiles, err,
	    sizeof(err)), 0);
	sched_features_put(root, "NO_SIS_CORE\n");
	capture_log();
	kernelmode_init(&d);
	check_status(&d, "kernel-patch", "off");
	ck_assert_int_eq(log_count("echo SIS_CORE > "), 1);

	sched_features_put(root, "SIS_CORE\n");
	check_status(&d, "kernel-patch", "off");	/* until a reload */
	reload_all(&d);
	ck_assert_uint_eq(d.c.reload_errors, 0);
	ck_assert(d.status_dirty);
	check_status(&d, "kernel-patch", "on");
	check_metrics(&d, "kernel-patch", "on");
	ck_assert_int_eq(log_count("reload: kernel mode kernel-patch; "
	    "SIS_CORE on (was off)"), 1);

	sched_features_put(root, SCHED_FEATURES_UNREADABLE);
	reload_all(&d);
	check_status(&d, "userspace", "unknown");
	check_metrics(&d, "userspace", "unknown");

	sched_features_put(root, NULL);
	reload_all(&d);
	check_status(&d, "userspace", "absent");

	sched_features_put(root, "NO_SIS_CORE\n");
	d.status_dirty = false;
	reload_all(&d);
	check_status(&d, "kernel-patch", "off");
	ck_assert_int_eq(log_count("echo SIS_CORE > "), 1);
	/* unchanged: no line, nothing dirty */
	d.status_dirty = false;
	reload_all(&d);
	ck_assert(!d.status_dirty);
	ck_assert_int_eq(log_count("reload: kernel mode"), 4);
	ck_assert_uint_eq(d.c.reloads, 5);
	daemon_free(&d);
}
END_TEST

Suite *
kernelmode_suite(void)
{
	Suite *s = suite_create("kernelmode");
	TCase *tc = tcase_create("kernelmode");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_mode_detect, 0,
	    (int)(sizeof(mode_cases) / sizeof(mode_cases[0])));
	tcase_add_test(tc, test_describe);
	tcase_add_test(tc, test_reload_rereads);
	suite_add_tcase(s, tc);
	return s;
}
