/*
 * ctl_fleet.c - `vcpuplacectl plan --domains DIR`: the VMs of a host as
 * their domain XML files say (`virsh dumpxml` of each, or what a VM
 * manager writes), each VM's profile chosen by choose_policy(), the code
 * the daemon chooses with, under the profiles, grants.xml and rules.d of
 * --policies.  So an operator sees what a host full of real instances
 * would get, and why, before turning the daemon on.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vcpuplacectl/ctl.h"
#include "host/choose.h"
#include "host/domxml.h"
#include "host/smallfile.h"

/* A host has at most this many VMs to plan: one per PU, at most. */
#define FLEET_MAX	VP_MAX_PUS

static int
xml_name(const struct dirent *e)
{
	size_t len = strlen(e->d_name);

	return e->d_name[0] != '.' && len > 4 &&
	    !strcmp(e->d_name + len - 4, ".xml");
}

/*
 * VM @i of @f from @dir/@file: read, parsed and chosen for; prints what
 * is wrong.  Invalid vcpuplace metadata is placed as the host default,
 * as the daemon places a VM it sees for the first time.
 */
static int
load_vm(struct ctl_fleet *f, int i, const char *dir, const char *file)
{
	struct ctl_fleet_vm *w = &f->why[i];
	struct vp_domxml x;
	struct vp_choose_vm vm;
	struct vp_choice c;
	char path[4096], err[512] = "", *text = NULL;
	size_t len = 0;
	int r;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	r = read_whole_file(path, DOMXML_MAX_BYTES, &text, &len);
	if (r == 0)
		r = domxml_parse(text, len, path, &x, err, sizeof(err));
	free(text);
	if (r < 0) {
		fprintf(stderr, "vcpuplacectl plan: %s%s%s\n", path,
		    err[0] ? ":" : ": ", err[0] ? err : strerror(-r));
		return r;
	}
	domxml_choose_vm(&x, &vm);
	r = choose_policy(f->profiles, &vm, &c);
	if (r == -EINVAL) {
		fprintf(stderr, "vcpuplacectl plan: %s: VM %s: invalid "
		    "vcpuplace metadata: %s; planned as the host default\n",
		    path, x.name, c.why);
		choose_default(f->profiles, &c.policy);
		snprintf(c.profile, sizeof(c.profile), "balanced");
		c.source = VP_SOURCE_DEFAULT;
		c.rule = NULL;
		r = 0;
	} else if (r == 0 && c.refused) {
		fprintf(stderr, "vcpuplacectl plan: %s: VM %s: refused: %s; "
		    "planned as the host default\n", path, x.name, c.why);
	}
	if (r == 0) {
		snprintf(f->names[i], sizeof(f->names[i]), "%s", x.name);
		f->vms[i] = (struct vp_vm_spec){ .name = f->names[i],
			.nvcpus = x.nvcpus, .policy = c.policy };
		snprintf(w->profile, sizeof(w->profile), "%s", c.profile);
		snprintf(w->rule, sizeof(w->rule), "%s", c.rule ? c.rule : "");
		snprintf(w->file, sizeof(w->file), "%s", file);
		w->source = c.source;
	}
	domxml_release(&x);
	return r;
}

/* The arrays for @n VMs; -ENOMEM. */
static int
alloc_vms(struct ctl_fleet *f, int n)
{
	f->vms = calloc((size_t)n + 1, sizeof(*f->vms));
	f->why = calloc((size_t)n + 1, sizeof(*f->why));
	f->names = calloc((size_t)n + 1, sizeof(*f->names));
	return f->vms && f->why && f->names ? 0 : -ENOMEM;
}

int
ctl_fleet_load(const char *policy_dir, const char *dir,
    struct ctl_fleet **ret)
{
	struct dirent **ents = NULL;
	struct ctl_fleet *f = calloc(1, sizeof(*f));
	char err[4096];
	int nents = 0, i, r, bad = 0;

	if (!f)
		return -ENOMEM;
	r = profiles_load(policy_dir, &f->profiles, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "vcpuplacectl plan: policies %s: %s\n",
		    policy_dir, r == -ENOMEM ? strerror(-r) : err);
		goto out;
	}
	nents = scandir(dir, &ents, xml_name, alphasort);
	if (nents < 0 || nents > FLEET_MAX) {
		r = nents < 0 ? -errno : -E2BIG;
		fprintf(stderr, "vcpuplacectl plan: --domains %s: %s\n", dir,
		    nents < 0 ? strerror(-r) : "more domain files than PUs "
		    "a host can have");
		goto out;
	}
	if ((r = alloc_vms(f, nents)) < 0)
		goto out;
	/* keep going: one run says what is wrong with every file */
	for (i = 0; i < nents; i++) {
		r = load_vm(f, f->n, dir, ents[i]->d_name);
		if (r == -ENOMEM)
			goto out;
		if (r < 0)
			bad++;
		else
			f->n++;
	}
	r = bad ? -EINVAL : 0;
out:
	for (i = 0; i < nents; i++)
		free(ents[i]);
	free(ents);
	if (r < 0)
		ctl_fleet_free(f);
	else
		*ret = f;
	return r;
}

void
ctl_fleet_free(struct ctl_fleet *f)
{
	if (!f)
		return;
	profiles_free(f->profiles);
	free(f->vms);
	free(f->why);
	free(f->names);
	free(f);
}
