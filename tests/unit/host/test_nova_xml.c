/*
 * test_nova_xml.c - what host rules read of Nova's <nova:instance>
 * element, on fixtures of the shape Nova writes (tests/nova/SOURCES),
 * in both of Nova's namespaces and as libvirt hands it back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "host/nova_xml.h"
#include "../suites.h"

/* tests/nova/@file, whole; malloc'd. */
static char *
fixture(const char *file, size_t *ret_len)
{
	char path[256], *buf = malloc(65536);
	FILE *f;

	snprintf(path, sizeof(path), "tests/nova/%s", file);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s", path);
	ck_assert_ptr_nonnull(buf);
	*ret_len = fread(buf, 1, 65535, f);
	buf[*ret_len] = '\0';
	fclose(f);
	return buf;
}

/* Both of Nova's namespaces, as Nova writes the element. */
START_TEST(test_nova_fixtures)
{
	static const struct {
		const char *file, *flavor, *project, *uuid;
		int vcpus;
	} want[] = {
		{ "instance-1.1.xml", "gold.large", "webshop",
		    "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", 2 },
		{ "instance-1.0.xml", "m1.small", "research",
		    "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9", 1 },
	};
	struct vp_nova nv;
	size_t i, len;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char *xml = fixture(want[i].file, &len);

		ck_assert_int_eq(nova_parse(xml, len, &nv), 0);
		ck_assert_str_eq(nv.flavor, want[i].flavor);
		ck_assert_str_eq(nv.project, want[i].project);
		ck_assert_str_eq(nv.project_uuid, want[i].uuid);
		ck_assert_int_eq(nv.vcpus, want[i].vcpus);
		free(xml);
	}
}
END_TEST

/* As virDomainGetMetadata() may give it: no namespace; parts missing. */
START_TEST(test_nova_partial)
{
	static const char bare[] = "<instance><flavor name=\"m1.tiny\"/>"
	    "</instance>";
	struct vp_nova nv;

	ck_assert_int_eq(nova_parse(bare, strlen(bare), &nv), 0);
	ck_assert_str_eq(nv.flavor, "m1.tiny");
	ck_assert_str_eq(nv.project, "");
	ck_assert_int_eq(nv.vcpus, 0);
}
END_TEST

START_TEST(test_nova_bad)
{
	static const char *const bad[] = {
		"<instance><flavor name=\"a\">",		/* not well-formed */
		"<flavor name=\"a\"/>",				/* wrong root */
		"<n:instance xmlns:n=\"urn:other\"/>",		/* wrong namespace */
		"<!DOCTYPE instance [<!ENTITY a \"b\">]><instance/>",
		"<instance><flavor name=\"a\"><vcpus>two</vcpus></flavor>"
		    "</instance>",
	};
	struct vp_nova nv = { .vcpus = 77 };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(nova_parse(bad[i], strlen(bad[i]), &nv) ==
		    -EINVAL, "case %zu", i);
	ck_assert_int_eq(nv.vcpus, 77);		/* untouched */
}
END_TEST

Suite *
nova_xml_suite(void)
{
	Suite *s = suite_create("nova_xml");
	TCase *tc = tcase_create("nova_xml");

	tcase_add_test(tc, test_nova_fixtures);
	tcase_add_test(tc, test_nova_partial);
	tcase_add_test(tc, test_nova_bad);
	suite_add_tcase(s, tc);
	return s;
}
