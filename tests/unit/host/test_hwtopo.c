/*
 * test_hwtopo.c - the sysfs number parser behind the live host's PU
 * priorities (cpuinfo_max_freq, CPPC highest_perf), and hwloc XML that
 * contradicts itself: every index the adapter takes from hwloc is
 * checked, and the load says what was wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "host/hwtopo.h"
#include "../suites.h"

START_TEST(test_sysfs_ulong)
{
	ck_assert_uint_eq(hwtopo_parse_sysfs_ulong("3000000\n"), 3000000);
	ck_assert_uint_eq(hwtopo_parse_sysfs_ulong("255"), 255);
	ck_assert_uint_eq(hwtopo_parse_sysfs_ulong("<unsupported>\n"), 0);
	ck_assert_uint_eq(hwtopo_parse_sysfs_ulong(""), 0);
	/* found by tests/fuzz/fz_sysfs_ulong: both were ULONG_MAX */
	ck_assert_uint_eq(hwtopo_parse_sysfs_ulong("-1\n"), 0);
	ck_assert_uint_eq(hwtopo_parse_sysfs_ulong(
	    "99999999999999999999999\n"), 0);
}
END_TEST

/*
 * A small hwloc 2 XML (from lstopo -i "pack:1 l2:1 core:2 pu:2" --of
 * xml), its second core cut to one PU, with holes to fill: the cpuset of
 * the Machine, Package and L2 (@all), Core L#1's, PU L#2's OS index and
 * cpuset, PU L#1's OS index, and what follows the objects (cpukinds).
 * hwloc drops an object outside its parent's cpuset and wants siblings
 * in order, so only the last core may point elsewhere.
 */
struct xml_holes {
	const char *all, *core1, *pu2;
	unsigned int pu1_os, pu2_os;
	const char *tail;
};

#define XML_OK { "0x00000007", "0x00000004", "0x00000004", 1, 2, "" }

static char *
xml_of(const struct xml_holes *h)
{
	static const char fmt[] =
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
	    "<topology version=\"2.0\">\n"
	    "<object type=\"Machine\" os_index=\"0\" cpuset=\"%1$s\" "
	    "complete_cpuset=\"%1$s\" allowed_cpuset=\"%1$s\" "
	    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" "
	    "allowed_nodeset=\"0x00000001\" gp_index=\"1\">\n"
	    "<object type=\"Package\" os_index=\"0\" cpuset=\"%1$s\" "
	    "complete_cpuset=\"%1$s\" nodeset=\"0x00000001\" "
	    "complete_nodeset=\"0x00000001\" gp_index=\"9\">\n"
	    "<object type=\"NUMANode\" os_index=\"0\" cpuset=\"%1$s\" "
	    "complete_cpuset=\"%1$s\" nodeset=\"0x00000001\" "
	    "complete_nodeset=\"0x00000001\" gp_index=\"10\" "
	    "local_memory=\"1073741824\"/>\n"
	    "<object type=\"L2Cache\" cpuset=\"%1$s\" "
	    "complete_cpuset=\"%1$s\" nodeset=\"0x00000001\" "
	    "complete_nodeset=\"0x00000001\" gp_index=\"8\" "
	    "cache_size=\"4194304\" depth=\"2\" cache_linesize=\"64\" "
	    "cache_associativity=\"0\" cache_type=\"0\">\n"
	    "<object type=\"Core\" os_index=\"0\" cpuset=\"0x00000003\" "
	    "complete_cpuset=\"0x00000003\" nodeset=\"0x00000001\" "
	    "complete_nodeset=\"0x00000001\" gp_index=\"4\">\n"
	    "<object type=\"PU\" os_index=\"0\" cpuset=\"0x00000001\" "
	    "complete_cpuset=\"0x00000001\" nodeset=\"0x00000001\" "
	    "complete_nodeset=\"0x00000001\" gp_index=\"2\"/>\n"
	    "<object type=\"PU\" os_index=\"%4$u\" cpuset=\"0x00000002\" "
	    "complete_cpuset=\"0x00000002\" nodeset=\"0x00000001\" "
	    "complete_nodeset=\"0x00000001\" gp_index=\"3\"/>\n"
	    "</object>\n"
	    "<object type=\"Core\" os_index=\"1\" cpuset=\"%2$s\" "
	    "complete_cpuset=\"%2$s\" nodeset=\"0x00000001\" "
	    "complete_nodeset=\"0x00000001\" gp_index=\"7\">\n"
	    "<object type=\"PU\" os_index=\"%5$u\" cpuset=\"%3$s\" "
	    "complete_cpuset=\"%3$s\" nodeset=\"0x00000001\" "
	    "complete_nodeset=\"0x00000001\" gp_index=\"5\"/>\n"
	    "</object>\n</object>\n</object>\n</object>\n%6$s</topology>\n";
	char *x;

	ck_assert_int_ge(asprintf(&x, fmt, h->all, h->core1, h->pu2,
	    h->pu1_os, h->pu2_os, h->tail), 0);
	return x;
}

/* hwtopo_load_xml_buffer() of @x (freed): its return, the message. */
static int
load_of(char *x, char *err, size_t errlen)
{
	struct vp_topo *t = (struct vp_topo *)&t;
	int r;

	err[0] = '\0';
	r = hwtopo_load_xml_buffer(x, strlen(x), &t, err, errlen);
	free(x);
	if (r == 0)
		topo_free(t);
	else
		ck_assert_ptr_eq(t, (struct vp_topo *)&t);	/* untouched */
	return r;
}

/* The template as it is loads: 2 cores, of 2 PUs and 1. */
START_TEST(test_xml_template_loads)
{
	struct xml_holes h = XML_OK;
	struct vp_topo *t = NULL;
	char *x = xml_of(&h);

	ck_assert_int_eq(hwtopo_load_xml_buffer(x, strlen(x), &t, NULL, 0), 0);
	free(x);
	ck_assert_int_eq(t->npus, 3);
	ck_assert_int_eq(t->ncores, 2);
	ck_assert_int_eq(t->core[1].npus, 1);
	topo_free(t);
}
END_TEST

/* hwloc's bitmap text of CPU 65536 alone, and @low in the lowest word. */
static char *
cpuset_65536(const char *low)
{
	char *set = malloc(11 * (65536 / 32 + 1) + 1), *p;
	int i;

	ck_assert_ptr_nonnull(set);
	p = set + sprintf(set, "0x00000001");	/* 65536 = 2048 * 32 + 0 */
	for (i = 0; i < 65536 / 32 - 1; i++)
		p += sprintf(p, ",0x00000000");
	sprintf(p, ",%s", low);
	return set;
}

/*
 * Core L#1 and its PU (OS index 2) are CPU 65536 alone, one past the
 * OS-index map (VP_MAX_OS_INDEX entries), which hwloc accepts: the key
 * lookup read past the map's end (the ASan build: heap-buffer-overflow
 * in first_pu_key), now -EINVAL naming the core.
 */
START_TEST(test_xml_cpuset_past_map)
{
	struct xml_holes h = XML_OK;
	char err[256], *all = cpuset_65536("0x00000003"),
	    *one = cpuset_65536("0x00000000");
	int r;

	h.all = all;
	h.core1 = h.pu2 = one;
	r = load_of(xml_of(&h), err, sizeof(err));
	free(all);
	free(one);
	ck_assert_int_eq(r, -EINVAL);
	ck_assert_msg(strstr(err, "Core L#1") && strstr(err, "65536"),
	    "message '%s'", err);
}
END_TEST

/*
 * Core L#1 is CPUs 4-5, its one PU CPU 5: the core's key was taken at
 * CPU 4, no PU, so 0, Core L#0's, and the model had one core of 3 PUs.
 */
START_TEST(test_xml_cpuset_without_pu)
{
	struct xml_holes h = { "0x00000033", "0x00000030", "0x00000020", 1, 5,
	    "" };
	char err[256];

	ck_assert_int_eq(load_of(xml_of(&h), err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "Core L#1") && strstr(err, "CPU 4 is no PU"),
	    "message '%s'", err);
}
END_TEST

START_TEST(test_xml_os_index_too_big)
{
	struct xml_holes h = XML_OK;
	char err[256];

	h.pu1_os = 65536;
	ck_assert_int_eq(load_of(xml_of(&h), err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "PU L#1: OS index 65536"), "message '%s'",
	    err);
}
END_TEST

START_TEST(test_xml_os_index_twice)
{
	struct xml_holes h = XML_OK;
	char err[256];

	h.pu1_os = 2;
	ck_assert_int_eq(load_of(xml_of(&h), err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "OS index 2 taken by"), "message '%s'",
	    err);
}
END_TEST

/* inf / inf was cast to unsigned int (undefined); 5000 is no capacity. */
START_TEST(test_xml_cpukind_numbers)
{
	static const char *const bad[] = {
		"<info name=\"FrequencyMaxMHz\" value=\"inf\"/>",
		"<info name=\"FrequencyMaxMHz\" value=\"nan\"/>",
		"<info name=\"FrequencyMaxMHz\" value=\"-5\"/>",
		"<info name=\"LinuxCapacity\" value=\"5000\"/>",
	};
	struct xml_holes h = XML_OK;
	char err[256], tail[512];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(tail, sizeof(tail),
		    "<cpukind cpuset=\"0x00000003\" forced_efficiency=\"1\">"
		    "%s</cpukind>\n<cpukind cpuset=\"0x00000004\" "
		    "forced_efficiency=\"0\"><info name=\"FrequencyMaxMHz\" "
		    "value=\"2000\"/></cpukind>\n", bad[i]);
		h.tail = tail;
		ck_assert_int_eq(load_of(xml_of(&h), err, sizeof(err)),
		    -EINVAL);
		ck_assert_msg(strstr(err, "cpukind") && strstr(err,
		    "is not a number"), "%s: message '%s'", bad[i], err);
	}
}
END_TEST

/* The same kinds with numbers in range load, the faster kind first. */
START_TEST(test_xml_cpukind_in_range)
{
	struct xml_holes h = XML_OK;
	struct vp_topo *t = NULL;
	char *x;

	h.tail = "<cpukind cpuset=\"0x00000003\" forced_efficiency=\"1\">"
	    "<info name=\"FrequencyMaxMHz\" value=\"4000\"/></cpukind>\n"
	    "<cpukind cpuset=\"0x00000004\" forced_efficiency=\"0\">"
	    "<info name=\"FrequencyMaxMHz\" value=\"2000\"/></cpukind>\n";
	x = xml_of(&h);
	ck_assert_int_eq(hwtopo_load_xml_buffer(x, strlen(x), &t, NULL, 0), 0);
	free(x);
	ck_assert_uint_eq(t->pu[0].prio, 1024);
	ck_assert_uint_eq(t->pu[2].prio, 512);
	topo_free(t);
}
END_TEST

Suite *
hwtopo_suite(void)
{
	Suite *s = suite_create("hwtopo");
	TCase *tc = tcase_create("sysfs");
	TCase *xml = tcase_create("xml");

	tcase_add_test(tc, test_sysfs_ulong);
	suite_add_tcase(s, tc);
	tcase_add_test(xml, test_xml_template_loads);
	tcase_add_test(xml, test_xml_cpuset_past_map);
	tcase_add_test(xml, test_xml_cpuset_without_pu);
	tcase_add_test(xml, test_xml_os_index_too_big);
	tcase_add_test(xml, test_xml_os_index_twice);
	tcase_add_test(xml, test_xml_cpukind_numbers);
	tcase_add_test(xml, test_xml_cpukind_in_range);
	suite_add_tcase(s, xml);
	return s;
}
