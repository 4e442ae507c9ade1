/*
 * test_load.c - a vCPU's busy share is its run time over the time since
 * the last update.  A tick that waited seconds on libvirtd (stopped, or
 * holding a dying domain's lock) must not turn those seconds of run time
 * into a share of 10 or 20: the planner moved a bystander VM for one in
 * the integration suite's qemu_gone.  The vCPU is this test's own thread,
 * read from /proc like a QEMU's.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "host/clock.h"
#include "host/sampler.h"
#include "vcpuplaced/daemon.h"
#include "../suites.h"
#include "../testutil.h"

#define MS	1000000ULL

/* This thread's run time, after burning until it is at least @ms. */
static uint64_t
run_at_least(uint64_t ms)
{
	struct vp_thread_sample s;
	volatile unsigned long spin = 0;

	for (;;) {
		ck_assert_int_eq(sampler_read_thread(getpid(), gettid(), &s), 0);
		if (s.run_ns >= ms * MS)
			return s.run_ns;
		for (int i = 0; i < 100000; i++)
			spin++;
	}
}

START_TEST(test_share_over_the_real_interval)
{
	struct vp_daemon d;
	struct vp_vm vm;
	struct vp_vcpu v;
	uint64_t run, now;

	memset(&d, 0, sizeof(d));
	memset(&vm, 0, sizeof(vm));
	memset(&v, 0, sizeof(v));
	d.topo = load_synth("pack:1 core:1 pu:1");
	d.tick_ms = 250;
	ck_assert_int_eq(load_open(d.topo, &d.load), 0);
	vm.pid = getpid();
	vm.nvcpus = 1;
	vm.vcpu = &v;
	v.tid = gettid();
	d.vm = &vm;
	d.nvms = 1;

	/* last read when the thread had run 1 ns, 4 s ago: a stalled tick */
	run = run_at_least(50);
	v.run_ns = 1;
	now = clock_now_ns();
	d.load.sampled_ns = now - 4000 * MS;
	ck_assert_int_eq(load_update_at(&d, now), 0);
	/* run/4 s, with a few ms for the reads; over the 250 ms tick it
	 * would be 16 times as much */
	ck_assert_msg(v.util >= (double)(run - 1) / (4000.0 * MS) &&
	    v.util <= (double)(run + 10 * MS) / (4000.0 * MS),
	    "busy share %.4f for %.1f ms of run in 4 s", v.util,
	    (double)run / MS);
	ck_assert_uint_eq(d.load.sampled_ns, now);

	/* the next update 250 ms on: the share over those 250 ms */
	run = v.run_ns;
	ck_assert_int_eq(load_update_at(&d, now + 250 * MS), 0);
	ck_assert_msg(v.util <= (double)(v.run_ns - run + 1) / (250.0 * MS),
	    "busy share %.4f over 250 ms", v.util);
	load_free(&d.load);
	topo_free(d.topo);
}
END_TEST

Suite *
load_suite(void)
{
	Suite *s = suite_create("load");
	TCase *tc = tcase_create("load");

	tcase_add_test(tc, test_share_over_the_real_interval);
	suite_add_tcase(s, tc);
	return s;
}
