/*
 * ctl_policy.c - `vcpuplacectl policy get|set`: read or write a VM's
 * vcpuplace policy, the <vp:policy> element of its libvirt <metadata>.
 *
 *   policy get [--connect URI] [--policies DIR] VM
 *   policy set [--connect URI] [--policies DIR] VM PROFILE [field=value...]
 *
 * The text is checked against the profiles and policy.rng before it is
 * written, so the daemon never meets metadata this tool produced and
 * cannot read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "vcpuplacectl/ctl.h"
#include "host/defaults.h"
#include "host/policy_xml.h"


/* libvirt prints every error by default; we print our own, once. */
static void
virt_quiet(void *ud, virErrorPtr e)
{
	(void)ud;
	(void)e;
}

static const char *
virt_msg(void)
{
	const char *m = virGetLastErrorMessage();

	return m ? m : "unknown libvirt error";
}

static void
print_policy(const struct vp_policy *p)
{
	printf("mode: %s\n", policy_mode_name(p->mode));
	printf("smt: %s\n", policy_smt_name(p->smt));
	printf("locality: %s\n", policy_locality_name(p->locality));
	printf("priority: %s\n", policy_priority_name(p->priority));
	printf("cache_hot: %s\n", p->cache_hot ? "yes" : "no");
	printf("core_sched: %s\n", p->core_sched ? "yes" : "no");
	printf("emulator: %s\n", policy_emulator_name(p->emulator));
}

static virDomainPtr
lookup(virConnectPtr conn, const char *vm)
{
	virDomainPtr dom = virDomainLookupByName(conn, vm);

	if (!dom)
		dom = virDomainLookupByUUIDString(conn, vm);
	if (!dom)
		fprintf(stderr, "vcpuplacectl: VM '%s': no such domain\n", vm);
	return dom;
}

static int
policy_get(virConnectPtr conn, const struct vp_profiles *profs,
    const char *vm)
{
	char err[512], profile[VP_PROFILE_NAME_MAX], *xml;
	struct vp_policy pol;
	virDomainPtr dom;
	virErrorPtr e;
	int r;

	dom = lookup(conn, vm);
	if (!dom)
		return 1;
	/* CURRENT: the live config when running, else the persistent */
	xml = virDomainGetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT,
	    VP_POLICY_NS, VIR_DOMAIN_AFFECT_CURRENT);
	if (!xml) {
		e = virGetLastError();
		if (!e || e->code != VIR_ERR_NO_DOMAIN_METADATA) {
			fprintf(stderr, "vcpuplacectl: VM '%s': cannot read "
			    "metadata: %s\n", vm, virt_msg());
			virDomainFree(dom);
			return 1;
		}
		virDomainFree(dom);
		printf("no vcpuplace metadata: host default (balanced)\n");
		print_policy(profiles_get(profs, "balanced"));
		return 0;
	}
	virDomainFree(dom);
	r = policy_from_metadata(profs, xml, &pol, profile, err,
	    sizeof(err));
	if (r < 0) {
		fprintf(stderr, "vcpuplacectl: VM '%s': bad vcpuplace "
		    "metadata: %s\n", vm, err);
		free(xml);
		return 1;
	}
	printf("profile: %s\n", profile);
	print_policy(&pol);
	free(xml);
	return 0;
}

static int
policy_set(virConnectPtr conn, const struct vp_profiles *profs,
    const char *vm, const char *profile, char *const *ov, int n)
{
	unsigned int flags = 0;
	virDomainPtr dom;
	char err[512], *xml;
	int active, persistent, r;

	r = policy_to_metadata(profs, profile, ov, n, &xml, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "vcpuplacectl: VM '%s': %s\n", vm,
		    r == -EINVAL ? err : strerror(-r));
		return 1;
	}
	dom = lookup(conn, vm);
	if (!dom) {
		free(xml);
		return 1;
	}
	active = virDomainIsActive(dom);
	persistent = virDomainIsPersistent(dom);
	if (active < 0 || persistent < 0) {
		fprintf(stderr, "vcpuplacectl: VM '%s': %s\n", vm, virt_msg());
		goto fail;
	}
	/* the running VM now, and its definition for the next boot */
	if (active)
		flags |= VIR_DOMAIN_AFFECT_LIVE;
	if (persistent)
		flags |= VIR_DOMAIN_AFFECT_CONFIG;
	if (!flags) {
		fprintf(stderr, "vcpuplacectl: VM '%s': neither running nor "
		    "defined\n", vm);
		goto fail;
	}
	if (virDomainSetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT, xml,
	    VP_POLICY_PREFIX, VP_POLICY_NS, flags) < 0) {
		fprintf(stderr, "vcpuplacectl: VM '%s': cannot write metadata: "
		    "%s\n", vm, virt_msg());
		goto fail;
	}
	printf("%s: %s (%s%s%s)\n", vm, xml, active ? "live" : "",
	    active && persistent ? " and " : "",
	    persistent ? "persistent config" : "");
	virDomainFree(dom);
	free(xml);
	return 0;
fail:
	virDomainFree(dom);
	free(xml);
	return 1;
}

/* @argv: VM, or VM PROFILE [field=value ...] when @set (vcpuplacectl.c
 * has counted them). */
static int
run(const struct ctl_opts *o, bool set, int argc, char **argv)
{
	const char *uri = o->uri, *dir = o->policy_dir;
	struct vp_profiles *profs = NULL;
	virConnectPtr conn;
	char err[4096];
	int r;

	r = profiles_load(dir, &profs, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "vcpuplacectl: profiles %s: %s\n%s\n", dir,
		    strerror(-r), err);
		return 1;
	}
	virSetErrorFunc(NULL, virt_quiet);
	conn = set ? virConnectOpen(uri) : virConnectOpenReadOnly(uri);
	if (!conn) {
		fprintf(stderr, "vcpuplacectl: cannot connect to %s: %s\n", uri,
		    virt_msg());
		profiles_free(profs);
		return 1;
	}
	if (set)
		r = policy_set(conn, profs, argv[0], argv[1], argv + 2,
		    argc - 2);
	else
		r = policy_get(conn, profs, argv[0]);
	virConnectClose(conn);
	profiles_free(profs);
	return r;
}

int
ctl_policy_get(const struct ctl_opts *o, int argc, char **argv)
{
	return run(o, false, argc, argv);
}

int
ctl_policy_set(const struct ctl_opts *o, int argc, char **argv)
{
	return run(o, true, argc, argv);
}
