/*
 * test_privileges.c - privileges_wanted(): sched_ext's four only while
 * its scheduler runs or may load again (auto, unloaded for a CPU quota),
 * CAP_SYS_PTRACE only with core scheduling, never CAP_NET_ADMIN after
 * start-up, and nothing in a dry run.
 */
#include <string.h>

#include <check.h>

#include "vcpuplaced/daemon.h"
#include "../suites.h"

static int
count(const bool want[VP_PRIV_COUNT])
{
	int i, n = 0;

	for (i = 0; i < VP_PRIV_COUNT; i++)
		n += want[i];
	return n;
}

START_TEST(test_wanted_by_mode)
{
	static const struct {
		enum vp_scx_opt opt;
		enum vp_scx_state state;
		enum vp_scx_cause cause;
		bool bpf;	/* sched_ext's four wanted */
	} cases[] = {
		{ VP_SCX_OPT_AUTO, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_NO_SCHED_EXT, 0 },
		{ VP_SCX_OPT_AUTO, VP_SCX_LOADED, VP_SCX_CAUSE_NONE, 1 },
		/* auto unloaded it for a quota: it loads again, so they stay */
		{ VP_SCX_OPT_AUTO, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_CPU_QUOTA, 1 },
		/* on never unloads for a quota; ejected, declined: never again */
		{ VP_SCX_OPT_ON, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_CPU_QUOTA, 0 },
		{ VP_SCX_OPT_AUTO, VP_SCX_EJECTED, VP_SCX_CAUSE_EJECTED, 0 },
		{ VP_SCX_OPT_AUTO, VP_SCX_DECLINED, VP_SCX_CAUSE_OTHER, 0 },
		{ VP_SCX_OPT_OFF, VP_SCX_OFF, VP_SCX_CAUSE_OPTION, 0 },
	};
	struct vp_daemon d;
	bool want[VP_PRIV_COUNT];
	size_t i;

	memset(&d, 0, sizeof(d));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		d.scx.opt = cases[i].opt;
		d.scx.state = cases[i].state;
		d.scx.cause = cases[i].cause;
		privileges_wanted(&d, want);
		ck_assert_msg(count(want) == (cases[i].bpf ? 4 : 0), "case %zu",
		    i);
		ck_assert(want[VP_PRIV_BPF] == cases[i].bpf &&
		    want[VP_PRIV_PERFMON] == cases[i].bpf &&
		    want[VP_PRIV_SYS_ADMIN] == cases[i].bpf &&
		    want[VP_PRIV_SYS_NICE] == cases[i].bpf);
		ck_assert(!want[VP_PRIV_NET_ADMIN]);
	}
}
END_TEST

START_TEST(test_wanted_core_sched)
{
	struct vp_daemon d;
	bool want[VP_PRIV_COUNT];

	memset(&d, 0, sizeof(d));
	d.scx.state = VP_SCX_OFF;
	d.core_sched_supported = true;
	privileges_wanted(&d, want);
	ck_assert_int_eq(count(want), 1);
	ck_assert(want[VP_PRIV_SYS_PTRACE]);
	d.dry_run = true;
	privileges_wanted(&d, want);
	ck_assert_int_eq(count(want), 0);
}
END_TEST

Suite *
privileges_suite(void)
{
	Suite *s = suite_create("privileges");
	TCase *tc = tcase_create("wanted");

	tcase_add_test(tc, test_wanted_by_mode);
	tcase_add_test(tc, test_wanted_core_sched);
	suite_add_tcase(s, tc);
	return s;
}
