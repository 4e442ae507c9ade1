/*
 * choose.c - a VM's policy by the precedence of vcpuplace-policy(5): a
 * grant, the VM's own metadata, the first matching host rule, the host
 * default.  Each step is tried only when the ones before it chose
 * nothing, so a granted VM's metadata and a VM's Nova element are read
 * only when they can matter.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/choose.h"
#include "host/nova_xml.h"

#define DEFAULT_PROFILE	"balanced"

const char *
choose_source_name(int source)
{
	static const char *const names[] = {
		[VP_SOURCE_DEFAULT] = "default", [VP_SOURCE_GRANT] = "grant",
		[VP_SOURCE_METADATA] = "metadata", [VP_SOURCE_RULE] = "rule",
	};

	return source >= 0 && source <= VP_SOURCE_RULE ? names[source] : "?";
}

void
choose_default(const struct vp_profiles *p, struct vp_policy *ret)
{
	const struct vp_policy *def = profiles_get(p, DEFAULT_PROFILE);

	if (def)
		*ret = *def;
	else
		policy_default(ret);
}

static void
take_default(const struct vp_profiles *p, struct vp_choice *c)
{
	choose_default(p, &c->policy);
	snprintf(c->profile, sizeof(c->profile), DEFAULT_PROFILE);
	c->source = VP_SOURCE_DEFAULT;
}

/* The host's grant for the VM's UUID: true when there is one. */
static bool
try_grant(const struct vp_profiles *p, const struct vp_choose_vm *vm,
    struct vp_choice *c)
{
	const char *profile = NULL;
	const struct vp_policy *g = profiles_grant(p, vm->uuid, &profile);

	if (!g)
		return false;
	c->policy = *g;
	snprintf(c->profile, sizeof(c->profile), "%s", profile);
	c->source = VP_SOURCE_GRANT;
	return true;
}

/*
 * The VM's own metadata: 0 (chosen, or refused and placed as the
 * default), -ENODATA (it has none), -EINVAL (invalid: c->why), or a
 * reader's -errno.
 */
static int
try_metadata(const struct vp_profiles *p, const struct vp_choose_vm *vm,
    struct vp_choice *c)
{
	char *xml = NULL;
	int r = vm->rd.policy(vm->rd.ctx, &xml);

	if (r < 0)
		return r;
	r = vm->trust_metadata ? policy_from_metadata(p, xml, &c->policy,
	    c->profile, c->why, sizeof(c->why)) : policy_from_tenant(p, xml,
	    &c->policy, c->profile, c->why, sizeof(c->why));
	free(xml);
	if (r == -EPERM) {		/* valid, but only the host grants it */
		c->refused = true;
		take_default(p, c);
		return 0;
	}
	if (r == 0)
		c->source = VP_SOURCE_METADATA;
	return r;
}

/*
 * What Nova recorded of the VM, read only when a rule asks for it: 0
 * with *ret, -ENODATA (none, or unreadable: c->nova_bad), or a reader's
 * -errno.
 */
static int
read_nova(const struct vp_profiles *p, const struct vp_choose_vm *vm,
    struct vp_choice *c, struct vp_nova *ret)
{
	char *xml = NULL;
	int r;

	if (!profiles_rules_read_nova(p) || !vm->rd.nova)
		return -ENODATA;
	r = vm->rd.nova(vm->rd.ctx, &xml);
	if (r < 0)
		return r;
	r = nova_parse(xml, strlen(xml), ret);
	free(xml);
	c->nova_bad = r < 0;
	return r < 0 ? -ENODATA : 0;
}

/* The first host rule that matches, else the host default. */
static int
try_rules(const struct vp_profiles *p, const struct vp_choose_vm *vm,
    struct vp_choice *c)
{
	struct vp_rule_subject s = { .name = vm->name, .nvcpus = vm->nvcpus };
	const struct vp_policy *rp;
	const char *profile = NULL;
	struct vp_nova nv;
	int r = read_nova(p, vm, c, &nv);

	if (r < 0 && r != -ENODATA)
		return r;
	s.nova = r == 0 ? &nv : NULL;
	rp = profiles_rule(p, &s, &profile, &c->rule);
	if (!rp) {
		take_default(p, c);
		return 0;
	}
	c->policy = *rp;
	snprintf(c->profile, sizeof(c->profile), "%s", profile);
	c->source = VP_SOURCE_RULE;
	return 0;
}

int
choose_policy(const struct vp_profiles *p, const struct vp_choose_vm *vm,
    struct vp_choice *ret)
{
	struct vp_choice c = { .rule = NULL };
	int r;

	if (try_grant(p, vm, &c)) {
		*ret = c;
		return 0;
	}
	r = try_metadata(p, vm, &c);
	if (r == -ENODATA)
		r = try_rules(p, vm, &c);
	if (r == -EINVAL)
		snprintf(ret->why, sizeof(ret->why), "%s", c.why);
	else if (r == 0)
		*ret = c;
	return r;
}
