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

#include "host/virt_link.h"
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
	ck_assert_int_eq(answers_connect(d), 0);
}

static void
teardown(struct vp_daemon *d)
{
	tick_free(d);
	libvirt_stop(d, 60000);	/* the worker closes the connection */
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
	dom = virDomainCreateXML(virt_conn(&d->virt), xml, 0);
	ck_assert_msg(dom != NULL, "cannot start %s: %s", name, virt_error());
	return dom;
}

START_TEST(test_refresh_reads_domains)
{
	struct vp_daemon d;
	const struct vp_vm *vm;

	setup(&d);
	ck_assert_int_eq(answers_refresh(&d), 0);
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
	dom = virDomainCreateXML(virt_conn(&d.virt), "<domain type='test'>"
	    "<name>capped</name><memory>8192</memory><vcpu>1</vcpu><cputune>"
	    "<period>100000</period><quota>50000</quota></cputune><os><type>"
	    "hvm</type></os></domain>", 0);
	ck_assert_msg(dom != NULL, "%s", virt_error());
	ck_assert_int_eq(answers_refresh(&d), 0);
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
	d.scx.opt = VP_SCX_OPT_OFF;
	ck_assert_int_eq(answers_refresh(&d), 0);
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
	ck_assert_int_eq(answers_refresh(&d), 0);
	tick_plan(&d);
	ck_assert_int_eq(d.plan_n, 2);
	/* a third VM arrives: libvirt's order shifts the others */
	virDomainFree(start_vm(&d, "beta"));
	ck_assert_int_eq(answers_refresh(&d), 0);
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
	test = virDomainLookupByName(virt_conn(&d.virt), "test");
	ck_assert_int_eq(virDomainDestroy(test), 0);
	virDomainFree(test);
	ck_assert_int_eq(answers_refresh(&d), 0);
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

/* A copy of the shipped profiles in a new temporary @dir, and @grants. */
static void
rules_dir(char *dir, const char *grants)
{
	char cmd[512];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp policies/*.xml policies/policy.rng "
	    "'%s'/", dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/grants.xml", dir);
	f = fopen(cmd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(grants, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* Starts @name (@uuid, or libvirt's) with @meta in its <metadata>. */
static virDomainPtr
start_with(struct vp_daemon *d, const char *name, const char *uuid,
    const char *meta)
{
	char xml[8192];
	virDomainPtr dom;

	snprintf(xml, sizeof(xml), "<domain type='test'><name>%s</name>%s%s%s"
	    "<memory>8192</memory><vcpu>2</vcpu><metadata>%s</metadata>"
	    "<os><type>hvm</type></os></domain>", name, uuid ? "<uuid>" : "",
	    uuid ? uuid : "", uuid ? "</uuid>" : "", meta);
	dom = virDomainCreateXML(virt_conn(&d->virt), xml, 0);
	ck_assert_msg(dom != NULL, "cannot start %s: %s", name, virt_error());
	return dom;
}

/* tests/nova/instance-1.1.xml (flavor gold.large, project webshop) */
static char *
nova_fixture(void)
{
	char *buf = calloc(1, 65536);
	FILE *f = fopen("tests/nova/instance-1.1.xml", "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_gt(fread(buf, 1, 65535, f), 0);
	fclose(f);
	return buf;
}

#define GRANTED_UUID	"56500000-0000-0000-0000-0000000000aa"

static const char *const prec_grants =
    "<grants xmlns=\"urn:vcpuplace:policy:1\">\n"
    "<vm uuid=\"" GRANTED_UUID "\" profile=\"throughput\"/>\n"
    "<rule name=\"gold\" flavor=\"gold.*\" profile=\"dedicated\"/>\n"
    "<rule project=\"webshop\" profile=\"latency\"/>\n"
    "<rule domain=\"kv-*_*\" profile=\"latency\"/>\n"
    "</grants>\n";

/*
 * The precedence of vcpuplace-policy(5): a grant, then the VM's own
 * metadata, then the first matching rule, then the host default; and a
 * bad rules file on reload keeps the rules in force.
 */
START_TEST(test_policy_precedence)
{
	static const char own[] = "<vp:policy xmlns:vp=\"urn:vcpuplace:"
	    "policy:1\" profile=\"throughput\"/>";
	char dir[] = "/tmp/vp-rules-XXXXXX", meta[70000];
	char *nova = nova_fixture(), *topo = topo_path("g4dnmetal.xml");
	virDomainPtr doms[5];
	struct vp_daemon d;
	const struct vp_vm *vm;
	unsigned long errs;
	FILE *f;
	int i;

	setup(&d);
	rules_dir(dir, prec_grants);
	profiles_free(d.profiles);
	d.profiles = NULL;
	d.policy_dir = dir;
	d.topology_file = topo;
	ck_assert_int_eq(profiles_load(dir, &d.profiles, meta,
	    sizeof(meta)), 0);
	doms[0] = start_with(&d, "nova-rule", NULL, nova);
	snprintf(meta, sizeof(meta), "%s%s", nova, own);
	doms[1] = start_with(&d, "nova-own", NULL, meta);
	doms[2] = start_with(&d, "nova-granted", GRANTED_UUID, meta);
	doms[3] = start_with(&d, "kv-prod_web", NULL, "");
	doms[4] = start_with(&d, "plain", NULL, "");
	ck_assert_int_eq(answers_refresh(&d), 0);

	/* the first matching rule: gold before webshop */
	vm = inventory_vm_by_name(&d, "nova-rule");
	ck_assert_str_eq(vm->profile, "dedicated");
	ck_assert_int_eq(vm->source, VP_SOURCE_RULE);
	ck_assert_msg(strstr(vm->rule, "gold (") && strstr(vm->rule,
	    "grants.xml:3)"), "%s", vm->rule);
	/* its own metadata beats the rules */
	vm = inventory_vm_by_name(&d, "nova-own");
	ck_assert_str_eq(vm->profile, "throughput");
	ck_assert_int_eq(vm->source, VP_SOURCE_METADATA);
	ck_assert_str_eq(vm->rule, "");
	/* a grant beats both (throughput here, dedicated by the rule) */
	vm = inventory_vm_by_name(&d, "nova-granted");
	ck_assert_int_eq(vm->source, VP_SOURCE_GRANT);
	ck_assert(vm->granted);
	ck_assert_str_eq(vm->profile, "throughput");
	/* the domain-name rule, KubeVirt's <namespace>_<vm> */
	vm = inventory_vm_by_name(&d, "kv-prod_web");
	ck_assert_str_eq(vm->profile, "latency");
	ck_assert_str_eq(strrchr(vm->rule, ':'), ":5");
	/* nothing matches: the host default */
	vm = inventory_vm_by_name(&d, "plain");
	ck_assert_str_eq(vm->profile, "balanced");
	ck_assert_int_eq(vm->source, VP_SOURCE_DEFAULT);

	/* a broken rules file on reload: counted, the rules stay */
	snprintf(meta, sizeof(meta), "%s/grants.xml", dir);
	f = fopen(meta, "w");
	ck_assert_ptr_nonnull(f);
	fputs("<grants xmlns=\"urn:vcpuplace:policy:1\">\n<rule flavor=\"*\" "
	    "profile=\"nosuch\"/>\n</grants>\n", f);
	ck_assert_int_eq(fclose(f), 0);
	errs = d.c.reload_errors;
	reload_all(&d);
	ck_assert_uint_eq(d.c.reload_errors, errs + 1);
	ck_assert(d.c.reload_failed);
	ck_assert_int_eq(answers_refresh(&d), 0);
	vm = inventory_vm_by_name(&d, "nova-rule");
	ck_assert_str_eq(vm->profile, "dedicated");
	ck_assert_int_eq(vm->source, VP_SOURCE_RULE);

	for (i = 0; i < 5; i++) {
		virDomainDestroy(doms[i]);
		virDomainFree(doms[i]);
	}
	snprintf(meta, sizeof(meta), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(meta), 0);
	free(nova);
	free(topo);
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
	tcase_add_test(tc, test_policy_precedence);
	suite_add_tcase(s, tc);
	return s;
}
