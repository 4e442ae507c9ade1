/*
 * test_policy_xml.c - policy_xml.c: the shipped profiles, metadata with
 * overrides, every kind of bad document (each refused with -EINVAL, a
 * message naming the culprit and *ret untouched), a profile directory
 * with a bad file, and policy_to_metadata() -> policy_from_metadata().
 *
 * The profiles are read from $VP_POLICY_DIR_TEST (default: policies, as
 * the Makefile runs the tests from the repository root).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <check.h>

#include "host/policy_xml.h"
#include "../suites.h"

#define NS	"xmlns:vp=\"urn:vcpuplace:policy:1\""

static struct vp_profiles *profs;

static const char *
policy_dir(void)
{
	const char *d = getenv("VP_POLICY_DIR_TEST");

	return d && *d ? d : "policies";
}

static void
setup(void)
{
	char err[1024];
	int r;

	r = profiles_load(policy_dir(), &profs, err, sizeof(err));
	ck_assert_msg(r == 0, "profiles_load(%s): %d: %s", policy_dir(), r,
	    err);
}

static void
teardown(void)
{
	profiles_free(profs);
	profs = NULL;
}

struct want {
	const char *name;
	enum vp_mode mode;
	enum vp_smt smt;
	enum vp_locality loc;
	enum vp_priority prio;
	bool cache_hot, core_sched;
	enum vp_emulator emu;
};

/* The values policies/README.md documents. */
static const struct want shipped[] = {
	{ "balanced", VP_MODE_SHARED, VP_SMT_PREFER_IDLE_CORE, VP_LOC_LLC,
	  VP_PRIO_NORMAL, false, false, VP_EMU_POOL },
	{ "latency", VP_MODE_SHARED, VP_SMT_PREFER_IDLE_CORE, VP_LOC_CLUSTER,
	  VP_PRIO_HIGH, true, false, VP_EMU_POOL },
	{ "throughput", VP_MODE_SHARED, VP_SMT_SIBLINGS, VP_LOC_LLC,
	  VP_PRIO_NORMAL, false, false, VP_EMU_POOL },
	{ "isolated", VP_MODE_SHARED, VP_SMT_ISOLATE, VP_LOC_LLC,
	  VP_PRIO_NORMAL, false, true, VP_EMU_POOL },
	{ "dedicated", VP_MODE_DEDICATED, VP_SMT_PREFER_IDLE_CORE, VP_LOC_LLC,
	  VP_PRIO_NORMAL, false, false, VP_EMU_HOUSEKEEPING },
	{ "off", VP_MODE_OFF, VP_SMT_PREFER_IDLE_CORE, VP_LOC_LLC,
	  VP_PRIO_NORMAL, false, false, VP_EMU_POOL },
};

static void
check_policy(const struct vp_policy *p, const struct want *w)
{
	ck_assert_msg(p->mode == w->mode, "%s: mode %s", w->name,
	    policy_mode_name(p->mode));
	ck_assert_msg(p->smt == w->smt, "%s: smt %s", w->name,
	    policy_smt_name(p->smt));
	ck_assert_msg(p->locality == w->loc, "%s: locality %s", w->name,
	    policy_locality_name(p->locality));
	ck_assert_msg(p->priority == w->prio, "%s: priority %s", w->name,
	    policy_priority_name(p->priority));
	ck_assert_msg(p->cache_hot == w->cache_hot, "%s: cache_hot", w->name);
	ck_assert_msg(p->core_sched == w->core_sched, "%s: core_sched",
	    w->name);
	ck_assert_msg(p->emulator == w->emu, "%s: emulator %s", w->name,
	    policy_emulator_name(p->emulator));
}

START_TEST(test_shipped_profiles)
{
	const char *const *names;
	struct vp_policy def;
	size_t i;
	int n;

	names = profiles_names(profs, &n);
	ck_assert_int_eq(n, (int)(sizeof(shipped) / sizeof(shipped[0])));
	ck_assert_ptr_null(names[n]);
	for (i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		const struct vp_policy *p = profiles_get(profs,
		    shipped[i].name);

		ck_assert_msg(p != NULL, "no profile %s", shipped[i].name);
		check_policy(p, &shipped[i]);
	}
	/* balanced is the host default of policy.c (compared field by
	 * field: the struct has padding) */
	memset(&def, 0, sizeof(def));
	policy_default(&def);
	check_policy(&def, &shipped[0]);
	ck_assert_ptr_null(profiles_get(profs, "nosuch"));
	ck_assert_ptr_null(profiles_get(profs, NULL));
}
END_TEST

START_TEST(test_metadata_override)
{
	static const char *const forms[] = {
		/* the header's example */
		"<vp:policy " NS " profile=\"latency\"><smt>isolate</smt>"
		"</vp:policy>",
		/* virDomainGetXMLDesc: children qualified, indented */
		"<vp:policy " NS " profile=\"latency\">\n"
		"  <vp:smt> isolate </vp:smt>\n</vp:policy>\n",
		/* virDomainGetMetadata: the namespace stripped */
		"<policy profile=\"latency\">\n  <smt>isolate</smt>\n"
		"</policy>",
		/* a default namespace */
		"<policy xmlns=\"urn:vcpuplace:policy:1\" profile=\"latency\">"
		"<!-- why --><smt>isolate</smt></policy>",
	};
	struct want w = shipped[1];
	struct vp_policy p;
	char err[256];
	size_t i;
	int r;

	w.smt = VP_SMT_ISOLATE;
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char profile[VP_PROFILE_NAME_MAX];

		memset(&p, 0x5a, sizeof(p));
		memset(profile, 'x', sizeof(profile));
		r = policy_from_metadata(profs, forms[i], &p, profile, err,
		    sizeof(err));
		ck_assert_msg(r == 0, "form %zu: %d: %s", i, r, err);
		check_policy(&p, &w);
		/* the same parse names the profile: no second parser */
		ck_assert_str_eq(profile, "latency");
	}
	/* no overrides: the profile itself; every field overridden */
	r = policy_from_metadata(profs, "<vp:policy " NS " profile=\"off\"/>",
	    &p, NULL, err, sizeof(err));
	ck_assert_msg(r == 0, "%s", err);
	check_policy(&p, &shipped[5]);
	r = policy_from_metadata(profs, "<vp:policy " NS " profile=\"off\">"
	    "<emulator>vcpus</emulator><core_sched>true</core_sched>"
	    "<cache_hot>yes</cache_hot><priority>low</priority>"
	    "<locality>numa</locality><smt>any</smt><mode>shared</mode>"
	    "</vp:policy>", &p, NULL, err, sizeof(err));
	ck_assert_msg(r == 0, "%s", err);
	ck_assert_int_eq(p.mode, VP_MODE_SHARED);
	ck_assert_int_eq(p.smt, VP_SMT_ANY);
	ck_assert_int_eq(p.locality, VP_LOC_NUMA);
	ck_assert_int_eq(p.priority, VP_PRIO_LOW);
	ck_assert(p.cache_hot && p.core_sched);
	ck_assert_int_eq(p.emulator, VP_EMU_VCPUS);
}
END_TEST

/* Fails with -EINVAL, @err contains @needle, *ret untouched. */
static void
meta_fail(const char *xml, const char *needle)
{
	char err[256], profile[VP_PROFILE_NAME_MAX] = "kept";
	struct vp_policy p, copy;
	int r;

	memset(&p, 0xa5, sizeof(p));
	memcpy(&copy, &p, sizeof(p));
	r = policy_from_metadata(profs, xml, &p, profile, err, sizeof(err));
	ck_assert_str_eq(profile, "kept");
	ck_assert_msg(r == -EINVAL, "%.80s: %d, want -EINVAL", xml, r);
	ck_assert_msg(strstr(err, needle) != NULL,
	    "%.80s: message '%s' does not name '%s'", xml, err, needle);
	ck_assert_msg(strchr(err, '\n') == NULL, "message '%s' not one line",
	    err);
	ck_assert_msg(memcmp(&p, &copy, sizeof(p)) == 0,
	    "%.80s: *ret touched", xml);
}

START_TEST(test_metadata_errors)
{
	meta_fail("<vp:policy " NS " profile=\"fast\"/>",
	    "unknown profile 'fast'");
	meta_fail("<vp:policy " NS " profile=\"latency\"><turbo>yes</turbo>"
	    "</vp:policy>", "unknown element 'turbo'");
	meta_fail("<vp:policy " NS " profile=\"latency\"><smt>x</smt>"
	    "</vp:policy>", "element smt: bad value 'x'");
	meta_fail("<vp:policy " NS " profile=\"latency\"><cache_hot>maybe"
	    "</cache_hot></vp:policy>", "element cache_hot: bad value 'maybe'");
	/* policy.c takes 1, the schema does not */
	meta_fail("<vp:policy " NS " profile=\"latency\"><cache_hot>1"
	    "</cache_hot></vp:policy>", "cache_hot");
	meta_fail("<vp:policy " NS " profile=\"latency\"><smt>any</smt>"
	    "<mode>off</mode><smt>isolate</smt></vp:policy>",
	    "duplicate element smt");
	meta_fail("<vp:policy " NS " profile=\"latency\"><smt>any</smt>"
	    "<vp:smt>isolate</vp:smt></vp:policy>", "duplicate element smt");
	meta_fail("<x:policy xmlns:x=\"urn:other\" profile=\"latency\"/>",
	    "wrong namespace 'urn:other'");
	meta_fail("<vp:policy " NS " profile=\"latency\"><x:smt "
	    "xmlns:x=\"urn:other\">any</x:smt></vp:policy>",
	    "element smt: wrong namespace 'urn:other'");
	meta_fail("<vp:policy " NS " profile=\"latency\"><smt>any</vp:policy>",
	    "not well-formed XML at line 1");
	meta_fail("", "not well-formed XML");
	meta_fail("<vp:policy " NS "/>", "missing attribute profile");
	meta_fail("<vp:policy " NS " profile=\"latency\" speed=\"9\"/>",
	    "unexpected attribute 'speed'");
	meta_fail("<vp:profile " NS " />", "root element is profile");
	meta_fail("<vp:policy " NS " profile=\"latency\"><smt unit=\"a\">any"
	    "</smt></vp:policy>", "element smt: unexpected attribute 'unit'");
	meta_fail("<vp:policy " NS " profile=\"latency\"><smt><b/></smt>"
	    "</vp:policy>", "element smt: must hold text only");
	meta_fail("<vp:policy " NS " profile=\"latency\">fast</vp:policy>",
	    "text outside a field element");
	/* an undeclared entity is a well-formedness error */
	meta_fail("<vp:policy " NS " profile=\"latency\"><smt>&x;</smt>"
	    "</vp:policy>", "not well-formed");
}
END_TEST

START_TEST(test_metadata_too_large)
{
	size_t n = 64 * 1024 + 1, hdr;
	char *xml = malloc(n + 64);

	ck_assert_ptr_nonnull(xml);
	hdr = (size_t)sprintf(xml, "<policy profile=\"latency\">");
	memset(xml + hdr, ' ', n - hdr);
	strcpy(xml + n, "</policy>");
	meta_fail(xml, "larger than 64 KiB");
	/* just under the limit is fine */
	strcpy(xml + 64 * 1024 - 9, "</policy>");
	{
		struct vp_policy p;
		char err[256];

		ck_assert_int_eq(policy_from_metadata(profs, xml, &p, NULL, err,
		    sizeof(err)), 0);
	}
	free(xml);
}
END_TEST

START_TEST(test_metadata_billion_laughs)
{
	static const char xml[] =
	    "<?xml version=\"1.0\"?>\n"
	    "<!DOCTYPE policy [\n"
	    " <!ENTITY a \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\">\n"
	    " <!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">\n"
	    " <!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">\n"
	    " <!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">\n"
	    " <!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\">\n"
	    " <!ENTITY f \"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\">\n"
	    " <!ENTITY g \"&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;\">\n"
	    " <!ENTITY h \"&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;\">\n"
	    " <!ENTITY i \"&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;\">\n"
	    "]>\n"
	    "<policy profile=\"latency\"><smt>&i;</smt></policy>\n";
	struct timespec t0, t1;
	double ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	meta_fail(xml, "DTD not allowed");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	ck_assert_msg(ms < 500, "took %.0f ms", ms);
}
END_TEST

START_TEST(test_round_trip)
{
	char *const ov[] = { "smt=isolate", "cache_hot=1", "emulator=vcpus" };
	struct vp_policy p;
	char err[256], *xml = NULL;
	size_t i;
	int r;

	/* every profile, without and with overrides */
	for (i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		r = policy_to_metadata(profs, shipped[i].name, NULL, 0, &xml,
		    err, sizeof(err));
		ck_assert_msg(r == 0, "%s: %s", shipped[i].name, err);
		r = policy_from_metadata(profs, xml, &p, NULL, err, sizeof(err));
		ck_assert_msg(r == 0, "%s: %s: %s", shipped[i].name, xml,
		    err);
		check_policy(&p, &shipped[i]);
		free(xml);
	}
	r = policy_to_metadata(profs, "throughput", ov, 3, &xml, err,
	    sizeof(err));
	ck_assert_msg(r == 0, "%s", err);
	/* canonical spelling, schema order */
	ck_assert_str_eq(xml, "<policy profile=\"throughput\"><smt>isolate"
	    "</smt><cache_hot>yes</cache_hot><emulator>vcpus</emulator>"
	    "</policy>");
	r = policy_from_metadata(profs, xml, &p, NULL, err, sizeof(err));
	ck_assert_msg(r == 0, "%s", err);
	ck_assert_int_eq(p.smt, VP_SMT_ISOLATE);
	ck_assert(p.cache_hot);
	ck_assert_int_eq(p.emulator, VP_EMU_VCPUS);
	ck_assert_int_eq(p.locality, VP_LOC_LLC);
	free(xml);
}
END_TEST

static void
to_fail(const char *profile, char *const *ov, int n, const char *needle)
{
	char err[256], *xml = (char *)"untouched";
	int r;

	r = policy_to_metadata(profs, profile, ov, n, &xml, err, sizeof(err));
	ck_assert_msg(r == -EINVAL, "%s: %d", needle, r);
	ck_assert_msg(strstr(err, needle) != NULL, "'%s' lacks '%s'", err,
	    needle);
	ck_assert_str_eq(xml, "untouched");
}

START_TEST(test_to_metadata_errors)
{
	char *const bad_field[] = { "turbo=yes" };
	char *const bad_value[] = { "smt=sometimes" };
	char *const no_eq[] = { "isolate" };
	char *const twice[] = { "smt=any", "mode=off", "smt=isolate" };

	to_fail("fast", NULL, 0, "unknown profile 'fast'");
	to_fail("la\"tency", NULL, 0, "unknown profile");
	to_fail("latency", bad_field, 1, "unknown field 'turbo'");
	to_fail("latency", bad_value, 1, "field smt: bad value 'sometimes'");
	to_fail("latency", no_eq, 1, "override 'isolate': want field=value");
	to_fail("latency", twice, 3, "field smt given twice");
}
END_TEST

/* Writes @text to @dir/@name. */
static void
put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* Copies the shipped schema, balanced and dedicated profiles into @dir. */
static void
seed_dir(const char *dir)
{
	static const char *const files[] = { "policy.rng", "balanced.xml",
		"dedicated.xml" };
	char path[512], buf[65536];
	size_t i, n;
	FILE *f;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", policy_dir(), files[i]);
		f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		put(dir, files[i], buf);
	}
}

static void
rm_dir(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_load_bad_dir)
{
	char dir[] = "/tmp/vp-policy-XXXXXX", err[2048];
	struct vp_profiles *p = (struct vp_profiles *)&err;
	int r;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	seed_dir(dir);
	put(dir, "good.xml", "<profile xmlns=\"urn:vcpuplace:policy:1\">"
	    "<mode>shared</mode><smt>any</smt><locality>any</locality>"
	    "<priority>low</priority><cache_hot>no</cache_hot>"
	    "<core_sched>no</core_sched><emulator>pool</emulator></profile>");
	r = profiles_load(dir, &p, err, sizeof(err));
	ck_assert_msg(r == 0, "%s", err);
	ck_assert_int_eq(profiles_get(p, "good")->smt, VP_SMT_ANY);
	profiles_free(p);

	/* a bad value on line 4, and a missing field */
	put(dir, "fast.xml", "<?xml version=\"1.0\"?>\n"
	    "<profile xmlns=\"urn:vcpuplace:policy:1\">\n"
	    "<mode>shared</mode>\n<smt>sometimes</smt>\n</profile>\n");
	put(dir, "short.xml", "<profile xmlns=\"urn:vcpuplace:policy:1\">\n"
	    "<mode>shared</mode></profile>\n");
	p = (struct vp_profiles *)&err;
	r = profiles_load(dir, &p, err, sizeof(err));
	ck_assert_int_eq(r, -EINVAL);
	ck_assert_ptr_eq(p, (struct vp_profiles *)&err);
	ck_assert_msg(strstr(err, "/fast.xml:4: element smt: bad value "
	    "'sometimes'"), "%s", err);
	ck_assert_msg(strstr(err, "/short.xml:1: missing element smt"),
	    "%s", err);

	/* not well-formed, wrong root */
	put(dir, "fast.xml", "<profile xmlns=\"urn:vcpuplace:policy:1\">\n"
	    "<mode>shared\n</profile>\n");
	put(dir, "short.xml", "<policy xmlns=\"urn:vcpuplace:policy:1\" "
	    "profile=\"balanced\"/>\n");
	r = profiles_load(dir, &p, err, sizeof(err));
	ck_assert_int_eq(r, -EINVAL);
	ck_assert_msg(strstr(err, "/fast.xml:3: "), "%s", err);
	ck_assert_msg(strstr(err, "/short.xml:1: root element is policy"),
	    "%s", err);
	rm_dir(dir);
}
END_TEST

START_TEST(test_load_missing)
{
	char dir[] = "/tmp/vp-policy-XXXXXX", err[1024], path[600];
	struct vp_profiles *p = NULL;

	ck_assert_int_eq(profiles_load("/nonexistent/vcpuplace", &p, err,
	    sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "policy.rng"), "%s", err);
	ck_assert_ptr_null(p);

	/* no balanced.xml: no host default */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	seed_dir(dir);
	snprintf(path, sizeof(path), "%s/balanced.xml", dir);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(profiles_load(dir, &p, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "balanced.xml: missing"), "%s", err);

	/* a broken schema */
	seed_dir(dir);
	put(dir, "policy.rng", "<grammar xmlns=\"http://relaxng.org/ns/"
	    "structure/1.0\"><start><nonsense/></start></grammar>\n");
	ck_assert_int_eq(profiles_load(dir, &p, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "policy.rng"), "%s", err);
	ck_assert_ptr_null(p);
	rm_dir(dir);
}
END_TEST

/*
 * A profile or host file is read whole up to 64 KiB (read_whole_file());
 * one byte more is refused as metadata that long is, naming the file.
 */
static void
put_padded(const char *dir, const char *name, const char *head,
    const char *tail, size_t size)
{
	size_t h = strlen(head), t = strlen(tail);
	char *text = malloc(size + 1);

	ck_assert_ptr_nonnull(text);
	ck_assert_uint_ge(size, h + t + 7);
	memcpy(text, head, h);
	memcpy(text + h, "<!--", 4);
	memset(text + h + 4, 'x', size - h - t - 7);
	memcpy(text + size - t - 3, "-->", 3);
	memcpy(text + size - t, tail, t + 1);
	put(dir, name, text);
	free(text);
}

START_TEST(test_load_too_large)
{
	static const char head[] = "<profile xmlns=\"urn:vcpuplace:policy:1\">"
	    "<mode>shared</mode><smt>any</smt><locality>any</locality>"
	    "<priority>low</priority><cache_hot>no</cache_hot>"
	    "<core_sched>no</core_sched><emulator>pool</emulator>";
	char dir[] = "/tmp/vp-policy-XXXXXX", err[1024], path[600];
	struct vp_profiles *p = NULL;
	int r;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	seed_dir(dir);
	put_padded(dir, "big.xml", head, "</profile>\n", 64 * 1024);
	r = profiles_load(dir, &p, err, sizeof(err));
	ck_assert_msg(r == 0, "%s", err);
	profiles_free(p);
	p = NULL;

	put_padded(dir, "big.xml", head, "</profile>\n", 64 * 1024 + 1);
	ck_assert_int_eq(profiles_load(dir, &p, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "/big.xml: larger than 64 KiB"), "%s", err);
	ck_assert_ptr_null(p);

	snprintf(path, sizeof(path), "%s/big.xml", dir);
	ck_assert_int_eq(unlink(path), 0);
	put_padded(dir, "grants.xml",
	    "<grants xmlns=\"urn:vcpuplace:policy:1\">", "</grants>\n",
	    64 * 1024 + 1);
	ck_assert_int_eq(profiles_load(dir, &p, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "/grants.xml: larger than 64 KiB"), "%s",
	    err);
	rm_dir(dir);
}
END_TEST

/*
 * The host's rules for a VM owner's metadata (the owner writes it, so it
 * must not take other VMs' CPUs): the shipped
 * host-granted profiles are refused, and so are the fields tenants may
 * not set; what policy_from_metadata() (the operator's path) accepts.
 */
START_TEST(test_tenant_authority)
{
	static const struct { const char *xml, *why; } refused[] = {
		{ "<policy profile=\"dedicated\"/>",
		    "profile 'dedicated' is host-granted only" },
		{ "<policy profile=\"isolated\"/>",
		    "profile 'isolated' is host-granted only" },
		{ "<policy profile=\"off\"/>",
		    "profile 'off' is host-granted only" },
		{ "<policy profile=\"balanced\"><mode>dedicated</mode></policy>",
		    "field mode is not tenant-settable" },
		{ "<policy profile=\"balanced\"><smt>isolate</smt></policy>",
		    "smt=isolate is host-granted only" },
		{ "<policy profile=\"balanced\"><priority>high</priority>"
		    "</policy>", "field priority is not tenant-settable" },
		{ "<policy profile=\"latency\"><emulator>housekeeping"
		    "</emulator></policy>",
		    "field emulator is not tenant-settable" },
	};
	struct vp_policy pol, keep;
	char err[256], prof[VP_PROFILE_NAME_MAX];
	size_t i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		memset(&pol, 0x5a, sizeof(pol));
		keep = pol;
		ck_assert_int_eq(policy_from_tenant(profs, refused[i].xml,
		    &pol, prof, err, sizeof(err)), -EPERM);
		ck_assert_msg(strstr(err, refused[i].why), "%s: %s",
		    refused[i].xml, err);
		ck_assert(!memcmp(&pol, &keep, sizeof(pol)));
		/* the operator's own path takes it */
		ck_assert_int_eq(policy_from_metadata(profs, refused[i].xml,
		    &pol, prof, err, sizeof(err)), 0);
	}
	/* what tenants may do */
	ck_assert_int_eq(policy_from_tenant(profs, "<policy profile=\"latency\">"
	    "<smt>siblings</smt><locality>numa</locality><cache_hot>no"
	    "</cache_hot><core_sched>yes</core_sched></policy>", &pol, prof,
	    err, sizeof(err)), 0);
	ck_assert_str_eq(prof, "latency");
	ck_assert_int_eq(pol.smt, VP_SMT_SIBLINGS);
	ck_assert_int_eq(pol.priority, VP_PRIO_HIGH);	/* the profile's */
	ck_assert(pol.core_sched);
	/* a bad document is still -EINVAL, not a refusal */
	ck_assert_int_eq(policy_from_tenant(profs, "<policy profile=\"balanced\">"
	    "<smt>x</smt></policy>", &pol, prof, err, sizeof(err)), -EINVAL);
}
END_TEST

static const char *const grants_ok =
    "<grants xmlns=\"urn:vcpuplace:policy:1\">\n"
    "<tenant_fields>smt smt=isolate locality</tenant_fields>\n"
    "<budget exclusive_max_pct=\"75\" shared_min_cores=\"2\"/>\n"
    "<vm uuid=\"56500000-0000-0000-0000-000000000001\" "
    "profile=\"dedicated\"><smt>isolate</smt></vm>\n"
    "</grants>\n";

/* grants.xml: tenant fields, budget and per-UUID grants; ownership. */
START_TEST(test_grants)
{
	char dir[] = "/tmp/vp-policy-XXXXXX", err[2048], path[600];
	char prof[VP_PROFILE_NAME_MAX];
	struct vp_profiles *p = NULL;
	const struct vp_policy *g;
	struct vp_policy pol;
	const char *gp = NULL;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	seed_dir(dir);
	/* none: the defaults */
	ck_assert_int_eq(profiles_load(dir, &p, err, sizeof(err)), 0);
	ck_assert_uint_eq(profiles_budget(p)->exclusive_max_pct,
	    VP_BUDGET_EXCLUSIVE_MAX_PCT);
	ck_assert_ptr_null(profiles_grant(p,
	    "56500000-0000-0000-0000-000000000001", NULL));
	profiles_free(p);

	put(dir, "grants.xml", grants_ok);
	snprintf(path, sizeof(path), "%s/grants.xml", dir);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(profiles_load(dir, &p, err, sizeof(err)), 0);
	ck_assert_uint_eq(profiles_budget(p)->exclusive_max_pct, 75);
	ck_assert_uint_eq(profiles_budget(p)->shared_min_cores, 2);
	g = profiles_grant(p, "56500000-0000-0000-0000-000000000001", &gp);
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(gp, "dedicated");
	ck_assert_int_eq(g->mode, VP_MODE_DEDICATED);
	ck_assert_int_eq(g->smt, VP_SMT_ISOLATE);
	ck_assert_int_eq(g->emulator, VP_EMU_HOUSEKEEPING);
	ck_assert_ptr_null(profiles_grant(p,
	    "56500000-0000-0000-0000-000000000002", NULL));
	/* the host let tenants set smt=isolate, not priority */
	ck_assert_int_eq(policy_from_tenant(p, "<policy profile=\"balanced\">"
	    "<smt>isolate</smt></policy>", &pol, prof, err, sizeof(err)), 0);
	ck_assert_int_eq(policy_from_tenant(p, "<policy profile=\"balanced\">"
	    "<cache_hot>yes</cache_hot></policy>", &pol, prof, err,
	    sizeof(err)), -EPERM);
	profiles_free(p);
	p = NULL;

	/* writable by others: refused, nothing loaded */
	ck_assert_int_eq(chmod(path, 0666), 0);
	ck_assert_int_eq(profiles_load(dir, &p, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "grants.xml: must be a file owned by root"),
	    "%s", err);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(chmod(path, 0644), 0);

	/* schema-checked, with the line */
	put(dir, "grants.xml", "<grants xmlns=\"urn:vcpuplace:policy:1\">\n"
	    "<vm uuid=\"56500000-0000-0000-0000-000000000001\" "
	    "profile=\"fast\"/>\n</grants>\n");
	ck_assert_int_eq(profiles_load(dir, &p, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "grants.xml:2: element vm: unknown profile "
	    "'fast'"), "%s", err);
	put(dir, "grants.xml", "<grants xmlns=\"urn:vcpuplace:policy:1\">\n"
	    "<budget exclusive_max_pct=\"150\" shared_min_cores=\"1\"/>\n"
	    "</grants>\n");
	ck_assert_int_eq(profiles_load(dir, &p, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "grants.xml:"), "%s", err);
	put(dir, "grants.xml", "<grants xmlns=\"urn:vcpuplace:policy:1\">\n"
	    "<tenant_fields>smt turbo</tenant_fields>\n</grants>\n");
	ck_assert_int_eq(profiles_load(dir, &p, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_null(p);
	rm_dir(dir);
}
END_TEST

/* Host rules in grants.xml, the first that matches wins. */
static const char *const rules_ok =
    "<grants xmlns=\"urn:vcpuplace:policy:1\">\n"
    "<rule name=\"gold\" flavor=\"gold.*\" profile=\"dedicated\">"
    "<smt>isolate</smt></rule>\n"
    "<rule project=\"moonshot\" profile=\"dedicated\"/>\n"
    "<rule project=\"F241E906-010E-4917-AE81-53F4FB8AA021\" "
    "profile=\"balanced\"><priority>high</priority></rule>\n"
    "<rule domain=\"prod_*\" vcpus_min=\"4\" vcpus_max=\"8\" "
    "profile=\"dedicated\"/>\n"
    "<rule name=\"catchall-gold\" flavor=\"*\" profile=\"balanced\"/>\n"
    "</grants>\n";

/* The rule that chooses for @s: its label, or "" for none. */
static const char *
rule_for(const struct vp_profiles *p, const char *name, int nvcpus,
    const struct vp_nova *nv, const char **ret_profile)
{
	struct vp_rule_subject s = { .name = name, .nvcpus = nvcpus,
		.nova = nv };
	const char *label = "";

	*ret_profile = "";
	return profiles_rule(p, &s, ret_profile, &label) ? label : "";
}

START_TEST(test_rules)
{
	char dir[] = "/tmp/vp-policy-XXXXXX", err[2048], path[600];
	struct vp_nova gold = { .flavor = "gold.large", .vcpus = 8 };
	struct vp_nova moon = { .flavor = "m1.small", .project = "moonshot",
		.project_uuid = "f241e906-010e-4917-ae81-53f4fb8aa021" };
	struct vp_nova other = { .flavor = "m1.small", .project = "other",
		.project_uuid = "f241e906-010e-4917-ae81-53f4fb8aa021" };
	struct vp_profiles *p = NULL;
	struct vp_rule_subject s = { .name = "x", .nvcpus = 8, .nova = &gold };
	const struct vp_policy *pol;
	const char *prof, *label;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	seed_dir(dir);
	put(dir, "grants.xml", rules_ok);
	snprintf(path, sizeof(path), "%s/grants.xml", dir);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_msg(profiles_load(dir, &p, err, sizeof(err)) == 0, "%s", err);
	ck_assert(profiles_rules_read_nova(p));

	/* flavor glob, with the rule's override, named by its name */
	pol = profiles_rule(p, &s, &prof, &label);
	ck_assert_ptr_nonnull(pol);
	ck_assert_str_eq(prof, "dedicated");
	ck_assert_int_eq(pol->smt, VP_SMT_ISOLATE);
	ck_assert_ptr_nonnull(strstr(label, "gold ("));
	ck_assert_ptr_nonnull(strstr(label, "grants.xml:2)"));
	/* project by name; then by uuid, in any case, for another name */
	ck_assert_str_eq(strrchr(rule_for(p, "x", 2, &moon, &prof), ':'),
	    ":3");
	ck_assert_str_eq(prof, "dedicated");
	ck_assert_str_eq(strrchr(rule_for(p, "x", 2, &other, &prof), ':'),
	    ":4");
	ck_assert_int_eq(profiles_rule(p, &(struct vp_rule_subject){ .name =
	    "x", .nvcpus = 2, .nova = &other }, NULL, NULL)->priority,
	    VP_PRIO_HIGH);
	/* domain glob and vCPU bounds, no Nova */
	ck_assert_str_eq(strrchr(rule_for(p, "prod_web", 4, NULL, &prof), ':'),
	    ":5");
	ck_assert_str_eq(strrchr(rule_for(p, "prod_web", 8, NULL, &prof), ':'),
	    ":5");
	ck_assert_str_eq(rule_for(p, "prod_web", 3, NULL, &prof), "");
	ck_assert_str_eq(rule_for(p, "prod_web", 9, NULL, &prof), "");
	ck_assert_str_eq(rule_for(p, "test_web", 4, NULL, &prof), "");
	/* a Nova match never holds without Nova's metadata; the last rule
	 * takes any flavor, after the others had their turn */
	ck_assert_ptr_nonnull(strstr(rule_for(p, "prod_web", 2, &(struct
	    vp_nova){ .flavor = "m1.tiny" }, &prof), "catchall-gold ("));
	ck_assert_str_eq(prof, "balanced");
	ck_assert_str_eq(rule_for(p, "prod_web", 2, &(struct vp_nova){
	    .project = "moonshot-2" }, &prof), "");
	profiles_free(p);
	rm_dir(dir);
}
END_TEST

/* A bad rule refuses the whole file, naming it and the line. */
START_TEST(test_rules_bad)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "<grants xmlns=\"urn:vcpuplace:policy:1\">\n<rule flavor="
		    "\"a\" profile=\"fast\"/>\n</grants>\n",
		    "grants.xml:2: element rule: unknown profile 'fast'" },
		{ "<grants xmlns=\"urn:vcpuplace:policy:1\">\n\n<rule "
		    "vcpus_min=\"8\" vcpus_max=\"4\" profile=\"balanced\"/>"
		    "\n</grants>\n", "grants.xml:3: element rule: vcpus_min 8 "
		    "is above vcpus_max 4" },
		{ "<grants xmlns=\"urn:vcpuplace:policy:1\">\n<rule flavor="
		    "\"\" profile=\"balanced\"/>\n</grants>\n",
		    "grants.xml:2: not valid per policy.rng: Invalid attribute "
		    "flavor" },
		/* the schema: an attribute no rule has */
		{ "<grants xmlns=\"urn:vcpuplace:policy:1\">\n<rule flavour="
		    "\"a\" profile=\"balanced\"/>\n</grants>\n",
		    "grants.xml:2: " },
		/* not well-formed */
		{ "<grants xmlns=\"urn:vcpuplace:policy:1\">\n<rule "
		    "profile=\"balanced\">\n</grants>\n", "grants.xml:3: " },
	};
	char dir[] = "/tmp/vp-policy-XXXXXX", err[2048], path[600];
	struct vp_profiles *p = NULL, *old = NULL;
	const char *prof;
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	seed_dir(dir);
	put(dir, "grants.xml", rules_ok);
	snprintf(path, sizeof(path), "%s/grants.xml", dir);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(profiles_load(dir, &old, err, sizeof(err)), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put(dir, "grants.xml", bad[i].text);
		p = NULL;
		ck_assert_int_eq(profiles_load(dir, &p, err, sizeof(err)),
		    -EINVAL);
		ck_assert_ptr_null(p);
		ck_assert_msg(strstr(err, bad[i].want), "case %zu: %s", i, err);
		ck_assert_msg(strstr(err, dir), "case %zu: %s", i, err);
	}
	/* what was loaded before is whole: the caller keeps it */
	ck_assert_ptr_nonnull(strstr(rule_for(old, "x", 2, &(struct vp_nova){
	    .flavor = "gold.1" }, &prof), "gold ("));
	profiles_free(old);
	rm_dir(dir);
}
END_TEST

/* Writes rules.d/@name under @dir, mode 0644 as the loader wants it. */
static void
put_rule_file(const char *dir, const char *name, const char *text,
    mode_t mode)
{
	char sub[600];

	snprintf(sub, sizeof(sub), "%s/rules.d", dir);
	mkdir(sub, 0755);
	put(sub, name, text);
	snprintf(sub, sizeof(sub), "%s/rules.d/%s", dir, name);
	ck_assert_int_eq(chmod(sub, mode), 0);
}

#define RULES_HEAD	"<rules xmlns=\"urn:vcpuplace:policy:1\">\n"

/*
 * rules.d: each file's rules after grants.xml's, files in name order
 * whatever order they were written in; hidden and non-.xml files are not
 * rules.
 */
START_TEST(test_rules_dir)
{
	char dir[] = "/tmp/vp-policy-XXXXXX", err[2048], path[600];
	struct vp_nova gold = { .flavor = "gold.large" };
	struct vp_profiles *p = NULL;
	const char *prof;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	seed_dir(dir);
	put(dir, "grants.xml", "<grants xmlns=\"urn:vcpuplace:policy:1\">\n"
	    "<rule name=\"gold\" flavor=\"gold.*\" profile=\"dedicated\"/>\n"
	    "</grants>\n");
	snprintf(path, sizeof(path), "%s/grants.xml", dir);
	ck_assert_int_eq(chmod(path, 0644), 0);
	put_rule_file(dir, "20-prod.xml", RULES_HEAD
	    "<rule name=\"prod\" domain=\"prod_*\" profile=\"balanced\">"
	    "<priority>high</priority></rule>\n</rules>\n", 0644);
	put_rule_file(dir, "10-web.xml", RULES_HEAD "<!-- web first -->\n"
	    "<rule name=\"web\" domain=\"prod_web*\" profile=\"dedicated\"/>\n"
	    "<rule name=\"web2\" domain=\"prod_*\" profile=\"dedicated\"/>\n"
	    "</rules>\n", 0644);
	put_rule_file(dir, ".hidden.xml", "not even XML", 0644);
	put_rule_file(dir, "README", "not a rules file", 0644);
	ck_assert_msg(profiles_load(dir, &p, err, sizeof(err)) == 0, "%s",
	    err);

	/* grants.xml's rule first, then 10-web.xml's, in file order */
	ck_assert_ptr_nonnull(strstr(rule_for(p, "prod_web1", 2, &gold,
	    &prof), "gold ("));
	ck_assert_ptr_nonnull(strstr(rule_for(p, "prod_web1", 2, NULL,
	    &prof), "web ("));
	ck_assert_ptr_nonnull(strstr(rule_for(p, "prod_web1", 2, NULL,
	    &prof), "/rules.d/10-web.xml:3)"));
	ck_assert_str_eq(prof, "dedicated");
	ck_assert_ptr_nonnull(strstr(rule_for(p, "prod_db", 2, NULL, &prof),
	    "web2 ("));
	/* 20-prod.xml only where no earlier rule holds */
	put_rule_file(dir, "10-web.xml", RULES_HEAD "</rules>\n", 0644);
	profiles_free(p);
	p = NULL;
	ck_assert_msg(profiles_load(dir, &p, err, sizeof(err)) == 0, "%s",
	    err);
	ck_assert_ptr_nonnull(strstr(rule_for(p, "prod_db", 2, NULL, &prof),
	    "/rules.d/20-prod.xml:2)"));
	ck_assert_int_eq(profiles_rule(p, &(struct vp_rule_subject){ .name =
	    "prod_db", .nvcpus = 2 }, NULL, NULL)->priority, VP_PRIO_HIGH);
	ck_assert_str_eq(rule_for(p, "test_db", 2, NULL, &prof), "");
	profiles_free(p);
	rm_dir(dir);
}
END_TEST

/*
 * A bad rules.d file fails the whole load, naming FILE:LINE, and the
 * rules loaded before stay whole in the caller's hands.
 */
START_TEST(test_rules_dir_bad)
{
	static const struct {
		const char *text, *want;
		mode_t mode;
	} bad[] = {
		{ RULES_HEAD "\n<rule domain=\"a*\" profile=\"fast\"/>\n"
		    "</rules>\n", "/rules.d/30-bad.xml:3: element rule: "
		    "unknown profile 'fast'", 0644 },
		/* the schema: a grant is grants.xml's alone */
		{ RULES_HEAD "<vm uuid=\"56500000-0000-0000-0000-000000000001\" "
		    "profile=\"dedicated\"/>\n</rules>\n",
		    "/rules.d/30-bad.xml:2: not valid per policy.rng", 0644 },
		{ "<grants xmlns=\"urn:vcpuplace:policy:1\"/>\n",
		    "/rules.d/30-bad.xml:1: root element is grants, want rules",
		    0644 },
		{ RULES_HEAD "<rule profile=\"balanced\">\n</rules>\n",
		    "/rules.d/30-bad.xml:3: ", 0644 },
		{ RULES_HEAD "</rules>\n", "/rules.d/30-bad.xml: must be a "
		    "file owned by root and writable by its owner alone",
		    0664 },
	};
	char dir[] = "/tmp/vp-policy-XXXXXX", err[2048];
	struct vp_profiles *p = NULL, *old = NULL;
	const char *prof;
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	seed_dir(dir);
	put_rule_file(dir, "10-web.xml", RULES_HEAD "<rule name=\"web\" "
	    "domain=\"prod_*\" profile=\"dedicated\"/>\n</rules>\n", 0644);
	ck_assert_msg(profiles_load(dir, &old, err, sizeof(err)) == 0, "%s",
	    err);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put_rule_file(dir, "30-bad.xml", bad[i].text, bad[i].mode);
		p = NULL;
		ck_assert_int_eq(profiles_load(dir, &p, err, sizeof(err)),
		    -EINVAL);
		ck_assert_ptr_null(p);
		ck_assert_msg(strstr(err, bad[i].want), "case %zu: %s", i, err);
		ck_assert_msg(strstr(err, dir), "case %zu: %s", i, err);
	}
	/* two bad files: both said */
	put_rule_file(dir, "40-bad.xml", RULES_HEAD "<rule/>\n</rules>\n",
	    0644);
	ck_assert_int_eq(profiles_load(dir, &p, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "/rules.d/30-bad.xml") &&
	    strstr(err, "/rules.d/40-bad.xml:2:"), "%s", err);
	/* what was loaded before is whole: the caller keeps it */
	ck_assert_ptr_nonnull(strstr(rule_for(old, "prod_a", 2, NULL, &prof),
	    "web ("));
	profiles_free(old);
	rm_dir(dir);
}
END_TEST

Suite *
policy_xml_suite(void)
{
	Suite *s = suite_create("policy_xml");
	TCase *tc = tcase_create("policy_xml");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_shipped_profiles);
	tcase_add_test(tc, test_metadata_override);
	tcase_add_test(tc, test_metadata_errors);
	tcase_add_test(tc, test_metadata_too_large);
	tcase_add_test(tc, test_metadata_billion_laughs);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_to_metadata_errors);
	tcase_add_test(tc, test_load_bad_dir);
	tcase_add_test(tc, test_load_missing);
	tcase_add_test(tc, test_load_too_large);
	tcase_add_test(tc, test_tenant_authority);
	tcase_add_test(tc, test_grants);
	tcase_add_test(tc, test_rules);
	tcase_add_test(tc, test_rules_bad);
	tcase_add_test(tc, test_rules_dir);
	tcase_add_test(tc, test_rules_dir_bad);
	suite_add_tcase(s, tc);
	return s;
}
