/*
 * test_domxml.c - domain XML documents as VM managers write them, read
 * for choosing a policy (`vcpuplacectl plan --domains`), and the
 * daemon's precedence run on them: KubeVirt's virt-launcher XML
 * (tests/kubevirt/SOURCES) chosen by a namespace rule on its name, a
 * Nova instance (tests/nova/SOURCES) by its flavor.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "host/domxml.h"
#include "../suites.h"
#include "../testutil.h"

/* @path whole; malloc'd. */
static char *
slurp(const char *path, size_t *ret_len)
{
	char *buf = malloc(65536);
	FILE *f = fopen(path, "r");

	ck_assert_msg(f != NULL, "%s", path);
	ck_assert_ptr_nonnull(buf);
	*ret_len = fread(buf, 1, 65535, f);
	buf[*ret_len] = '\0';
	fclose(f);
	return buf;
}

/* The shipped profiles with @rules as rules.d/10-site.xml, in @dir. */
static struct vp_profiles *
load_with_rules(char *dir, const char *rules)
{
	struct vp_profiles *p = NULL;
	char cmd[256], err[2048];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp policies/*.xml policies/policy.rng "
	    "'%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	tree_put(dir, "rules.d/10-site.xml", rules);
	ck_assert_msg(profiles_load(dir, &p, err, sizeof(err)) == 0, "%s",
	    err);
	return p;
}

/*
 * KubeVirt: a rule on the namespace through the domain name places the
 * VM; KubeVirt's own element is not vcpuplace's metadata.
 */
START_TEST(test_kubevirt_namespace_rule)
{
	char dir[] = "/tmp/vp-domxml-XXXXXX", err[256];
	struct vp_profiles *p = load_with_rules(dir,
	    "<rules xmlns=\"urn:vcpuplace:policy:1\">\n"
	    "<rule name=\"ns-shop\" domain=\"shop_*\" profile=\"latency\"/>\n"
	    "<rule name=\"ns-jobs\" domain=\"jobs_*\" "
	    "profile=\"throughput\"/>\n</rules>\n");
	struct vp_domxml x;
	struct vp_choose_vm vm;
	struct vp_choice c;
	size_t len;
	char *text = slurp("tests/kubevirt/shop_checkout.xml", &len);

	ck_assert_msg(domxml_parse(text, len, "shop_checkout.xml", &x, err,
	    sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(x.name, "shop_checkout");
	ck_assert_str_eq(x.uuid, "");		/* virt-launcher writes none */
	ck_assert_int_eq(x.nvcpus, 4);
	ck_assert_ptr_null(x.policy);
	ck_assert_ptr_null(x.nova);
	domxml_choose_vm(&x, &vm);
	ck_assert_int_eq(choose_policy(p, &vm, &c), 0);
	ck_assert_int_eq(c.source, VP_SOURCE_RULE);
	ck_assert_str_eq(c.profile, "latency");
	ck_assert_ptr_nonnull(strstr(c.rule, "ns-shop ("));
	ck_assert_ptr_nonnull(strstr(c.rule, "/rules.d/10-site.xml:2)"));
	domxml_release(&x);

	/* another namespace, same XML: the next rule, else the default */
	free(text);
	text = slurp("tests/kubevirt/shop_checkout.xml", &len);
	memcpy(strstr(text, "<name>shop_checkout") + 6, "jobs", 4);
	ck_assert_int_eq(domxml_parse(text, len, "b.xml", &x, err,
	    sizeof(err)), 0);
	domxml_choose_vm(&x, &vm);
	ck_assert_int_eq(choose_policy(p, &vm, &c), 0);
	ck_assert_str_eq(c.profile, "throughput");
	domxml_release(&x);
	memcpy(strstr(text, "<name>jobs") + 6, "misc", 4);
	ck_assert_int_eq(domxml_parse(text, len, "o.xml", &x, err,
	    sizeof(err)), 0);
	domxml_choose_vm(&x, &vm);
	ck_assert_int_eq(choose_policy(p, &vm, &c), 0);
	ck_assert_int_eq(c.source, VP_SOURCE_DEFAULT);
	domxml_release(&x);
	free(text);
	profiles_free(p);
	tree_remove(dir);
}
END_TEST

/*
 * A Nova instance as `virsh dumpxml` writes it: Nova's element found by
 * its namespace, and the VM's own vcpuplace element, declared with a
 * prefix, beats the flavor rule.
 */
START_TEST(test_nova_and_own_metadata)
{
	char dir[] = "/tmp/vp-domxml-XXXXXX", err[256], *doc;
	struct vp_profiles *p = load_with_rules(dir,
	    "<rules xmlns=\"urn:vcpuplace:policy:1\">\n"
	    "<rule name=\"gold\" flavor=\"gold.*\" profile=\"dedicated\"/>\n"
	    "</rules>\n");
	struct vp_domxml x;
	struct vp_choose_vm vm;
	struct vp_choice c;
	size_t len;
	char *nova = slurp("tests/nova/instance-1.1.xml", &len);
	int n;

	n = asprintf(&doc, "<domain type='kvm'>\n<name>instance-00000007"
	    "</name>\n<uuid>5A0E3C2E-8F43-4C39-9D43-0C9D6C1A7B11</uuid>\n"
	    "<metadata>\n%s%s</metadata>\n<vcpu placement='static' "
	    "current='2'>8</vcpu>\n</domain>\n", nova, "");
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(domxml_parse(doc, strlen(doc), "i.xml", &x, err,
	    sizeof(err)), 0);
	ck_assert_str_eq(x.uuid, "5a0e3c2e-8f43-4c39-9d43-0c9d6c1a7b11");
	ck_assert_int_eq(x.nvcpus, 2);
	ck_assert_ptr_nonnull(x.nova);
	domxml_choose_vm(&x, &vm);
	ck_assert_int_eq(choose_policy(p, &vm, &c), 0);
	ck_assert_int_eq(c.source, VP_SOURCE_RULE);
	ck_assert_str_eq(c.profile, "dedicated");
	domxml_release(&x);
	free(doc);

	n = asprintf(&doc, "<domain type='kvm'>\n<name>instance-00000007"
	    "</name>\n<metadata>\n%s<vp:policy xmlns:vp=\"urn:vcpuplace:"
	    "policy:1\" profile=\"throughput\"><vp:smt>any</vp:smt>"
	    "</vp:policy>\n</metadata>\n<vcpu>2</vcpu>\n</domain>\n", nova);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(domxml_parse(doc, strlen(doc), "i.xml", &x, err,
	    sizeof(err)), 0);
	domxml_choose_vm(&x, &vm);
	ck_assert_int_eq(choose_policy(p, &vm, &c), 0);
	ck_assert_int_eq(c.source, VP_SOURCE_METADATA);
	ck_assert_str_eq(c.profile, "throughput");
	ck_assert_int_eq(c.policy.smt, VP_SMT_ANY);
	domxml_release(&x);
	free(doc);
	free(nova);
	profiles_free(p);
	tree_remove(dir);
}
END_TEST

/* What is not a domain to plan for: said with the line. */
START_TEST(test_bad_domains)
{
	static const struct { const char *xml, *want; } bad[] = {
		{ "<domain><name>a</name>", "not well-formed" },
		{ "<domains/>", "1: the root is not <domain>" },
		{ "<domain>\n<vcpu>2</vcpu></domain>", "1: no <name>" },
		{ "<domain><name>a</name>\n<vcpu>0</vcpu></domain>",
		    "2: <vcpu>: want a count" },
		{ "<domain><name>a</name>\n<vcpu>2x</vcpu></domain>",
		    "2: <vcpu>: want a count" },
		{ "<domain><name>a</name></domain>", "<vcpu>: want a count" },
		{ "<!DOCTYPE d [<!ENTITY e \"x\">]><domain/>", "DTD" },
	};
	struct vp_domxml x = { .policy = (char *)"untouched" };
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_int_eq(domxml_parse(bad[i].xml, strlen(bad[i].xml),
		    "bad.xml", &x, err, sizeof(err)), -EINVAL);
		ck_assert_msg(strstr(err, bad[i].want), "case %zu: %s", i, err);
		ck_assert_str_eq(x.policy, "untouched");
	}
}
END_TEST

Suite *
domxml_suite(void)
{
	Suite *s = suite_create("domxml");
	TCase *tc = tcase_create("domxml");

	tcase_add_test(tc, test_kubevirt_namespace_rule);
	tcase_add_test(tc, test_nova_and_own_metadata);
	tcase_add_test(tc, test_bad_domains);
	suite_add_tcase(s, tc);
	return s;
}
