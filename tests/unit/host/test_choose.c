/*
 * test_choose.c - the precedence of vcpuplace-policy(5), as the daemon
 * and `vcpuplacectl plan` share it: a grant, the VM's own metadata, the
 * first matching host rule, the host default; each reader asked only
 * when the steps before it chose nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "host/choose.h"
#include "../suites.h"
#include "../testutil.h"

#define GRANTED	"56500000-0000-0000-0000-000000000001"

static char dir[] = "/tmp/vp-choose-XXXXXX";
static struct vp_profiles *profs;

/* A VM as the readers give it, and what they were asked. */
struct fake {
	const char *policy;	/* NULL: none */
	const char *nova;	/* NULL: none */
	int fail;		/* a reader's -errno, 0: none */
	int policy_calls, nova_calls;
};

static int
give(const char *text, int fail, char **ret)
{
	if (fail)
		return fail;
	if (!text)
		return -ENODATA;
	*ret = strdup(text);
	return *ret ? 0 : -ENOMEM;
}

static int
fake_policy(void *ctx, char **ret)
{
	struct fake *f = ctx;

	f->policy_calls++;
	return give(f->policy, f->fail, ret);
}

static int
fake_nova(void *ctx, char **ret)
{
	struct fake *f = ctx;

	f->nova_calls++;
	return give(f->nova, f->fail, ret);
}

static int
choose(const char *uuid, const char *name, struct fake *f,
    struct vp_choice *ret)
{
	struct vp_choose_vm vm = { .uuid = uuid, .name = name, .nvcpus = 2,
		.rd = { .policy = fake_policy, .nova = fake_nova, .ctx = f } };

	return choose_policy(profs, &vm, ret);
}

/* The shipped profiles, a grant, a rule in grants.xml, two in rules.d. */
static void
setup(void)
{
	char cmd[256], err[2048];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp policies/*.xml policies/policy.rng "
	    "'%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	tree_put(dir, "grants.xml", "<grants xmlns=\"urn:vcpuplace:policy:1\">\n"
	    "<vm uuid=\"" GRANTED "\" profile=\"isolated\"/>\n"
	    "<rule name=\"gold\" flavor=\"gold.*\" profile=\"dedicated\"/>\n"
	    "</grants>\n");
	tree_put(dir, "rules.d/50-prod.xml", "<rules xmlns=\"urn:vcpuplace:"
	    "policy:1\">\n"
	    "<rule name=\"web\" domain=\"prod_web*\" profile=\"latency\"/>\n"
	    "<rule name=\"prod\" domain=\"prod_*\" profile=\"throughput\"/>\n"
	    "</rules>\n");
	ck_assert_msg(profiles_load(dir, &profs, err, sizeof(err)) == 0, "%s",
	    err);
}

static void
teardown(void)
{
	profiles_free(profs);
	profs = NULL;
	tree_remove(dir);
	strcpy(dir, "/tmp/vp-choose-XXXXXX");
}

static const char gold_nova[] = "<instance xmlns=\"http://openstack.org/"
    "xmlns/libvirt/nova/1.1\"><flavor name=\"gold.large\"/></instance>";

/* Each step wins over the ones after it, and asks no more than it needs. */
START_TEST(test_precedence)
{
	struct fake f = { .policy = "<policy profile=\"latency\"/>",
		.nova = gold_nova };
	struct vp_choice c;

	/* the grant: neither metadata nor Nova read */
	ck_assert_int_eq(choose(GRANTED, "prod_web1", &f, &c), 0);
	ck_assert_int_eq(c.source, VP_SOURCE_GRANT);
	ck_assert_str_eq(c.profile, "isolated");
	ck_assert_int_eq(f.policy_calls + f.nova_calls, 0);
	/* the VM's own metadata beats every rule: Nova not read */
	f.policy = "<policy profile=\"balanced\"><smt>any</smt></policy>";
	ck_assert_int_eq(choose(NULL, "prod_web1", &f, &c), 0);
	ck_assert_int_eq(c.source, VP_SOURCE_METADATA);
	ck_assert_str_eq(c.profile, "balanced");
	ck_assert_int_eq(c.policy.smt, VP_SMT_ANY);
	ck_assert_ptr_null(c.rule);
	ck_assert_int_eq(f.nova_calls, 0);
	/* no metadata: grants.xml's rule before rules.d's */
	f.policy = NULL;
	ck_assert_int_eq(choose(NULL, "prod_web1", &f, &c), 0);
	ck_assert_int_eq(c.source, VP_SOURCE_RULE);
	ck_assert_str_eq(c.profile, "dedicated");
	ck_assert_ptr_nonnull(strstr(c.rule, "gold ("));
	ck_assert_int_eq(f.nova_calls, 1);
	/* no Nova: the first of rules.d's two that match */
	f.nova = NULL;
	ck_assert_int_eq(choose(NULL, "prod_web1", &f, &c), 0);
	ck_assert_str_eq(c.profile, "latency");
	ck_assert_ptr_nonnull(strstr(c.rule, "/rules.d/50-prod.xml:2)"));
	ck_assert_int_eq(choose(NULL, "prod_db1", &f, &c), 0);
	ck_assert_str_eq(c.profile, "throughput");
	/* nothing: the host default */
	ck_assert_int_eq(choose("", "test_db1", &f, &c), 0);
	ck_assert_int_eq(c.source, VP_SOURCE_DEFAULT);
	ck_assert_str_eq(c.profile, "balanced");
	ck_assert_ptr_null(c.rule);
	ck_assert_str_eq(choose_source_name(VP_SOURCE_RULE), "rule");
}
END_TEST

/* Refused, invalid and unreadable: what the caller is told. */
START_TEST(test_refused_invalid)
{
	struct fake f = { .policy = "<policy profile=\"dedicated\"/>" };
	struct vp_choice c;

	/* a tenant asking for a host-granted profile: the default, not a
	 * rule, and why */
	ck_assert_int_eq(choose(NULL, "prod_web1", &f, &c), 0);
	ck_assert_int_eq(c.source, VP_SOURCE_DEFAULT);
	ck_assert(c.refused);
	ck_assert_ptr_nonnull(strstr(c.why, "host-granted only"));
	/* invalid metadata: -EINVAL and why, the caller keeps what it had */
	f.policy = "<policy profile=\"nope\"/>";
	ck_assert_int_eq(choose(NULL, "prod_web1", &f, &c), -EINVAL);
	ck_assert_ptr_nonnull(strstr(c.why, "unknown profile 'nope'"));
	/* Nova's element unreadable: said, and no flavor rule holds */
	f = (struct fake){ .nova = "<instance" };
	ck_assert_int_eq(choose(NULL, "prod_db1", &f, &c), 0);
	ck_assert(c.nova_bad);
	ck_assert_str_eq(c.profile, "throughput");
	/* a reader's passing failure */
	f = (struct fake){ .fail = -EIO };
	ck_assert_int_eq(choose(NULL, "prod_db1", &f, &c), -EIO);
}
END_TEST

Suite *
choose_suite(void)
{
	Suite *s = suite_create("choose");
	TCase *tc = tcase_create("choose");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_precedence);
	tcase_add_test(tc, test_refused_invalid);
	suite_add_tcase(s, tc);
	return s;
}
