/*
 * choose.h - which policy a VM gets, by the precedence vcpuplace-policy(5)
 * states: a grant of the host's (grants.xml, by UUID), then the VM's own
 * vcpuplace metadata, then the first host rule that matches it, then the
 * host default.  One code for the daemon (inventory.c, which reads
 * libvirt) and `vcpuplacectl plan` (which reads domain XML files): each
 * hands its own readers, called only when the precedence gets that far.
 *
 * Never logs: the caller says what it needs to (rule 8).
 */
#ifndef VP_CHOOSE_H
#define VP_CHOOSE_H

#include <stdbool.h>

#include "core/vcpuplace.h"
#include "host/policy_xml.h"

/* What chose a VM's profile, in the order the precedence tries them. */
enum { VP_SOURCE_DEFAULT, VP_SOURCE_GRANT, VP_SOURCE_METADATA,
	VP_SOURCE_RULE };

/*
 * Where a VM's metadata elements come from.  Each reader gives the
 * element's text in *ret_xml (malloc'd, the caller of choose_policy()
 * frees nothing: choose_policy() does), or returns -ENODATA (the VM has
 * none) or another -errno (a passing failure).
 */
struct vp_choose_reader {
	int (*policy)(void *ctx, char **ret_xml);	/* vcpuplace's */
	int (*nova)(void *ctx, char **ret_xml);		/* Nova's */
	void *ctx;
};

/* One VM as the precedence sees it; every pointer borrowed. */
struct vp_choose_vm {
	const char *uuid;	/* lower-case text; NULL or "": no grant */
	const char *name;	/* the domain's name, for rules */
	int nvcpus;
	bool trust_metadata;	/* --trust-metadata: no tenant rules */
	struct vp_choose_reader rd;
};

struct vp_choice {
	int source;			/* VP_SOURCE_* */
	struct vp_policy policy;
	char profile[VP_PROFILE_NAME_MAX];
	const char *rule;	/* VP_SOURCE_RULE: its label, owned by the
				 * profiles ("NAME (FILE:LINE)"); else NULL */
	bool refused;		/* the metadata asked for what only the host
				 * grants: placed as the default, @why says */
	bool nova_bad;		/* Nova's element unreadable: no rule on
				 * flavor or project matched it */
	char why[256];		/* refused, or the -EINVAL reason */
};

/*
 * The policy of @vm under @p: 0 with *ret set.  -EINVAL: the VM's
 * metadata is invalid, and only ret->why is set (the daemon keeps the
 * VM's previous policy).  Another -errno: a reader's passing failure
 * (change nothing), *ret untouched.
 */
int choose_policy(const struct vp_profiles *p, const struct vp_choose_vm *vm,
    struct vp_choice *ret) VP_MUST_CHECK;

/* The host default's policy: "balanced" as loaded, else built in. */
void choose_default(const struct vp_profiles *p, struct vp_policy *ret);

/* "default", "grant", "metadata", "rule": for explain, status, plan. */
const char *choose_source_name(int source);

#endif /* VP_CHOOSE_H */
