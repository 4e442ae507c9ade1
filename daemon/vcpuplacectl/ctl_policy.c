/*
 * ctl_policy.c - `vcpuplacectl policy get|set`: read or write a VM's
 * vcpuplace policy, the <vp:policy> element of its libvirt <metadata>.
 *
 *   policy get [--connect URI] [--policies DIR] VM
 *   policy set [--connect URI] [--policies DIR] VM PROFILE [field=value...]
 *
 * The text is checked against the profiles and policy.rng before it is
 * written, so the daemon never meets metadata this tool produced and
 * cannot read.  libvirt is reached through the daemon's own adapter
 * (host/virt.h, host/domain.h), the same calls its "policy" command
 * makes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vcpuplacectl/ctl.h"
#include "host/defaults.h"
#include "host/domain.h"
#include "host/policy_xml.h"
#include "host/virt.h"

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

/* The domain @vm names (its name or UUID) into @ret_uuid; -ENOENT said. */
static int
lookup(struct vp_virt *v, const char *vm, unsigned char *ret_uuid)
{
	int r = virt_lookup(v, vm, ret_uuid);

	if (r == -ENOENT)
		fprintf(stderr, "vcpuplacectl: VM '%s': no such domain\n", vm);
	else if (r < 0)
		fprintf(stderr, "vcpuplacectl: VM '%s': %s\n", vm,
		    strerror(-r));
	return r;
}

static int
policy_get(struct vp_virt *v, const struct vp_profiles *profs,
    const char *vm)
{
	char err[512], profile[VP_PROFILE_NAME_MAX], *xml = NULL;
	unsigned char uuid[VP_UUID_LEN];
	struct vp_policy pol;
	int r;

	if (lookup(v, vm, uuid) < 0)
		return 1;
	/* current: the live config when running, else the persistent */
	r = domain_policy_read(v, uuid, false, &xml);
	if (r < 0 && r != -ENODATA) {
		fprintf(stderr, "vcpuplacectl: VM '%s': cannot read "
		    "metadata: %s\n", vm, virt_error());
		return 1;
	}
	if (r == -ENODATA) {
		printf("no vcpuplace metadata: host default (balanced)\n");
		print_policy(profiles_get(profs, "balanced"));
		return 0;
	}
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
	/*
	 * The VM's owner may have written it: say whether the host's rules
	 * let vcpuplaced follow it (a grants.xml grant by UUID, which the
	 * daemon reads first, or --trust-metadata, may still).
	 */
	if (policy_from_tenant(profs, xml, &pol, profile, err,
	    sizeof(err)) == -EPERM)
		printf("refused: %s; vcpuplaced places the VM as the host "
		    "default (balanced) unless grants.xml grants it\n", err);
	free(xml);
	return 0;
}

static int
policy_set(struct vp_virt *v, const struct vp_profiles *profs,
    const char *vm, const char *profile, char *const *ov, int n)
{
	unsigned char uuid[VP_UUID_LEN];
	unsigned int where = 0;
	char err[512], *xml;
	int r;

	r = policy_to_metadata(profs, profile, ov, n, &xml, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "vcpuplacectl: VM '%s': %s\n", vm,
		    r == -EINVAL ? err : strerror(-r));
		return 1;
	}
	if (lookup(v, vm, uuid) < 0) {
		free(xml);
		return 1;
	}
	/* the one set-policy path, the daemon's "policy" command's too */
	r = domain_policy_write(v, uuid, xml, &where);
	if (r == -ENOENT)
		fprintf(stderr, "vcpuplacectl: VM '%s': neither running nor "
		    "defined\n", vm);
	else if (r < 0)
		fprintf(stderr, "vcpuplacectl: VM '%s': cannot write metadata: "
		    "%s\n", vm, virt_error());
	else
		printf("%s: %s (%s%s%s)\n", vm, xml,
		    where & VP_WROTE_LIVE ? "live" : "",
		    where == (VP_WROTE_LIVE | VP_WROTE_CONFIG) ? " and " : "",
		    where & VP_WROTE_CONFIG ? "persistent config" : "");
	free(xml);
	return r < 0;
}

/* @argv: VM, or VM PROFILE [field=value ...] when @set (vcpuplacectl.c
 * has counted them). */
static int
run(const struct ctl_opts *o, bool set, int argc, char **argv)
{
	const char *uri = o->uri, *dir = o->policy_dir;
	struct vp_virt v = VP_VIRT_INIT;
	struct vp_profiles *profs = NULL;
	char err[4096];
	int r;

	r = profiles_load(dir, &profs, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "vcpuplacectl: profiles %s: %s\n%s\n", dir,
		    strerror(-r), err);
		return 1;
	}
	/* only set writes: get connects read-only */
	r = virt_open_once(&v, uri, !set);
	if (r < 0) {
		fprintf(stderr, "vcpuplacectl: cannot connect to %s: %s\n", uri,
		    r == -ECONNREFUSED ? virt_error() : strerror(-r));
		profiles_free(profs);
		return 1;
	}
	if (set)
		r = policy_set(&v, profs, argv[0], argv[1], argv + 2,
		    argc - 2);
	else
		r = policy_get(&v, profs, argv[0]);
	virt_close(&v);
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
