/*
 * test_virt.c - the libvirt adapter as the service and the CLI use it,
 * by UUID only (host/virt.h, host/domain.h), against libvirt's test
 * driver (test:///default: one running, persistent domain "test", in
 * process).  A domain is looked up by name or UUID text, listed with its
 * UUID, written and read by UUID; a UUID that names nothing is refused
 * as gone, never applied to another domain.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "host/domain.h"
#include "host/policy_xml.h"
#include "host/virt.h"
#include "../suites.h"
#include "../testutil.h"

#define TEST_URI	"test:///default"

/* No domain has this UUID on the test driver. */
static const unsigned char nosuch[VP_UUID_LEN] = { 0x56, 0x50, 0xde, 0xad };

START_TEST(test_lookup_and_list)
{
	struct vp_virt v = VP_VIRT_INIT;
	unsigned char by_name[VP_UUID_LEN], by_uuid[VP_UUID_LEN];
	unsigned char untouched[VP_UUID_LEN];
	struct vp_dom_info *infos = NULL;
	int n;

	ck_assert_int_eq(virt_open_once(&v, TEST_URI, true), 0);
	ck_assert(virt_connected(&v));
	ck_assert_int_eq(virt_lookup(&v, "test", by_name), 0);
	n = virt_list_running(&v, &infos);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(infos[0].err, 0);
	ck_assert_str_eq(infos[0].name, "test");
	ck_assert_int_eq(infos[0].nvcpus, 2);
	ck_assert_mem_eq(infos[0].uuid, by_name, VP_UUID_LEN);
	/* the UUID's text names the same domain */
	ck_assert_int_eq(virt_lookup(&v, infos[0].uuid_str, by_uuid), 0);
	ck_assert_mem_eq(by_uuid, by_name, VP_UUID_LEN);
	/* no such domain: -ENOENT, the output left alone */
	memset(untouched, 0xaa, sizeof(untouched));
	ck_assert_int_eq(virt_lookup(&v, "nosuch", untouched), -ENOENT);
	ck_assert_int_eq(untouched[0], 0xaa);
	free(infos);
	virt_close(&v);
	ck_assert(!virt_connected(&v));
	/* closed: nothing to look up, nothing listed */
	ck_assert_int_eq(virt_lookup(&v, "test", by_name), -ENOENT);
	ck_assert_int_lt(virt_list_running(&v, &infos), 0);
}
END_TEST

/* The CLI's and the daemon's one set-policy path, read back by UUID. */
START_TEST(test_policy_by_uuid)
{
	struct vp_virt v = VP_VIRT_INIT;
	struct vp_profiles *profs = NULL;
	unsigned char uuid[VP_UUID_LEN];
	unsigned int where = 0;
	char err[4096], *xml = NULL, *back = NULL;

	ck_assert_msg(profiles_load("policies", &profs, err, sizeof(err)) == 0,
	    "%s", err);
	ck_assert_int_eq(policy_to_metadata(profs, "throughput", NULL, 0, &xml,
	    err, sizeof(err)), 0);
	ck_assert_int_eq(virt_open_once(&v, TEST_URI, false), 0);
	ck_assert_int_eq(virt_lookup(&v, "test", uuid), 0);
	ck_assert_int_eq(domain_policy_read(&v, uuid, true, &back), -ENODATA);
	ck_assert_int_eq(domain_policy_write(&v, uuid, xml, &where), 0);
	ck_assert(where & VP_WROTE_LIVE);
	ck_assert_int_eq(domain_policy_read(&v, uuid, true, &back), 0);
	ck_assert_msg(strstr(back, "throughput") != NULL, "%s", back);
	free(back);
	back = NULL;
	/* a UUID that names no domain: refused, nothing written */
	where = 0;
	ck_assert_int_eq(domain_policy_write(&v, nosuch, xml, &where),
	    -ENOENT);
	ck_assert_uint_eq(where, 0);
	ck_assert_int_eq(domain_policy_read(&v, nosuch, true, &back), -ENOENT);
	ck_assert_ptr_null(back);
	virt_close(&v);
	/* closed: the same calls fail, they do not reach a stale handle */
	ck_assert_int_eq(domain_policy_read(&v, uuid, true, &back), -ENOENT);
	free(xml);
	profiles_free(profs);
}
END_TEST

/* A pin by a UUID that names no running domain: gone, not applied. */
START_TEST(test_pin_unknown_uuid)
{
	struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_virt v = VP_VIRT_INIT;
	struct vp_cpuset set;

	cpuset_zero(&set);
	cpuset_set(&set, 0);
	ck_assert_int_eq(virt_open_once(&v, TEST_URI, false), 0);
	ck_assert_int_eq(domain_pin_vcpu(&v, nosuch, t, 0, &set),
	    VP_APPLY_GONE);
	ck_assert_int_eq(domain_pin_emulator(&v, nosuch, t, &set),
	    VP_APPLY_GONE);
	virt_close(&v);
	topo_free(t);
}
END_TEST

Suite *
virt_suite(void)
{
	Suite *s = suite_create("virt");
	TCase *tc = tcase_create("test-driver");

	tcase_add_test(tc, test_lookup_and_list);
	tcase_add_test(tc, test_policy_by_uuid);
	tcase_add_test(tc, test_pin_unknown_uuid);
	suite_add_tcase(s, tc);
	return s;
}
