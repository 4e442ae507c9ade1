/*
 * test_inventory.c - the inventory against libvirt's test driver
 * (test:///default: one running domain "test" with 2 vCPUs, in process,
 * no libvirtd), with the real adapters underneath.  The last plan names
 * its VMs by index; a refresh that reorders or drops VMs must leave it
 * pointing at the same VMs, or at none, never at another VM's entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "vcpuplaced/daemon.h"
#include "../suites.h"
#include "../testutil.h"

static void
setup(struct vp_daemon *d)
{
	char err[4096];

	memset(d, 0, sizeof(*d));
	d->virt = (struct vp_virt)VP_VIRT_INIT;
	d->topo = load_topo("g4dnmetal.xml");	/* holds the driver's 16 */
	features_default(&d->feat);
	d->tick_ms = 250;
	d->uri = "test:///default";
	d->dry_run = true;
	ck_assert_msg(profiles_load("policies", &d->profiles, err,
	    sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(inventory_connect(d), 0);
}

static void
teardown(struct vp_daemon *d)
{
	tick_free(d);
	inventory_free(d);
	virt_close(&d->virt);
	profiles_free(d->profiles);
	topo_free(d->topo);
}

/* A running 1-vCPU domain named @name on the test driver. */
static virDomainPtr
start_vm(struct vp_daemon *d, const char *name)
{
	char xml[512];
	virDomainPtr dom;

	snprintf(xml, sizeof(xml), "<domain type='test'><name>%s</name>"
	    "<memory>8192</memory><vcpu>1</vcpu><os><type>hvm</type></os>"
	    "</domain>", name);
	dom = virDomainCreateXML(d->virt.conn, xml, 0);
	ck_assert_msg(dom != NULL, "cannot start %s: %s", name, virt_error());
	return dom;
}

START_TEST(test_refresh_reads_domains)
{
	struct vp_daemon d;
	const struct vp_vm *vm;

	setup(&d);
	ck_assert_int_eq(inventory_refresh(&d), 0);
	ck_assert_int_eq(d.nvms, 1);
	vm = inventory_vm_by_name(&d, "test");
	ck_assert_ptr_nonnull(vm);
	ck_assert_int_eq(vm->nvcpus, 2);
	/* no metadata: the host default, the shipped "balanced" */
	ck_assert(vm->policy_known);
	ck_assert_str_eq(vm->profile, "balanced");
	ck_assert(!cpuset_empty(&vm->vcpu[0].affinity));
	ck_assert_ptr_null(inventory_vm_by_name(&d, "nosuch"));
	teardown(&d);
}
END_TEST

/*
 * A VM's CPU quota, from the live XML's <cputune> the test driver keeps:
 * read while sched_ext is an option, not with --sched-ext=off.
 */
START_TEST(test_refresh_reads_quota)
{
	struct vp_daemon d;
	const struct vp_vm *vm;
	virDomainPtr dom;

	setup(&d);
	dom = virDomainCreateXML(d.virt.conn, "<domain type='test'><name>"
	    "capped</name><memory>8192</memory><vcpu>1</vcpu><cputune>"
	    "<period>100000</period><quota>50000</quota></cputune><os><type>"
	    "hvm</type></os></domain>", 0);
	ck_assert_msg(dom != NULL, "%s", virt_error());
	ck_assert_int_eq(inventory_refresh(&d), 0);
	vm = inventory_vm_by_name(&d, "capped");
	ck_assert_ptr_nonnull(vm);
	ck_assert(vm->quota);
	ck_assert_str_eq(vm->quota_words, "<quota> 50000 us per 100000 us "
	    "period");
	vm = inventory_vm_by_name(&d, "test");
	ck_assert(!vm->quota);
	ck_assert_str_eq(vm->quota_words, "no quota");
	/* off: not asked */
	inventory_free(&d);
	d.scx.opt = VP_SX_OPT_OFF;
	ck_assert_int_eq(inventory_refresh(&d), 0);
	ck_assert(!inventory_vm_by_name(&d, "capped")->quota);
	virDomainDestroy(dom);
	virDomainFree(dom);
	teardown(&d);
}
END_TEST

START_TEST(test_plan_follows_vms_across_refresh)
{
	struct vp_daemon d;
	virDomainPtr test, alpha;
	int i, planned_test = -1;

	setup(&d);
	alpha = start_vm(&d, "alpha");
	ck_assert_int_eq(inventory_refresh(&d), 0);
	tick_plan(&d);
	ck_assert_int_eq(d.plan_n, 2);
	/* a third VM arrives: libvirt's order shifts the others */
	virDomainFree(start_vm(&d, "beta"));
	ck_assert_int_eq(inventory_refresh(&d), 0);
	ck_assert_int_eq(d.nvms, 3);
	for (i = 0; i < d.plan_n; i++) {
		ck_assert_int_ge(d.plan_idx[i], 0);
		ck_assert_int_eq(d.plan->vm[i].nvcpus,
		    d.vm[d.plan_idx[i]].nvcpus);
		if (!strcmp(d.vm[d.plan_idx[i]].name, "test"))
			planned_test = i;
	}
	ck_assert_int_ge(planned_test, 0);
	/* the planned "test" goes away: its entry points at no VM */
	test = virDomainLookupByName(d.virt.conn, "test");
	ck_assert_int_eq(virDomainDestroy(test), 0);
	virDomainFree(test);
	ck_assert_int_eq(inventory_refresh(&d), 0);
	ck_assert_int_eq(d.nvms, 2);
	ck_assert_int_eq(d.plan_idx[planned_test], -1);
	for (i = 0; i < d.plan_n; i++)
		ck_assert(d.plan_idx[i] == -1 ||
		    strcmp(d.vm[d.plan_idx[i]].name, "test") != 0);
	virDomainDestroy(alpha);
	virDomainFree(alpha);
	teardown(&d);
}
END_TEST

Suite *
inventory_suite(void)
{
	Suite *s = suite_create("inventory");
	TCase *tc = tcase_create("test-driver");

	tcase_add_test(tc, test_refresh_reads_domains);
	tcase_add_test(tc, test_refresh_reads_quota);
	tcase_add_test(tc, test_plan_follows_vms_across_refresh);
	suite_add_tcase(s, tc);
	return s;
}
