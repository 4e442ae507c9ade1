/*
 * policy_xml.h - profiles (policies/NAME.xml) and a VM's domain <metadata>
 * policy element, parsed once with libxml2 and validated against the
 * RelaxNG schema policies/policy.rng, into struct vp_policy.
 *
 * The metadata element: <vp:policy xmlns:vp="urn:vcpuplace:policy:1"
 * profile="latency"><smt>isolate</smt></vp:policy>; child elements are
 * the fields of struct vp_policy (mode smt locality priority cache_hot
 * core_sched emulator), each overriding the named profile.
 */
#ifndef POLICY_XML_H
#define POLICY_XML_H

#include <stddef.h>

#include "core/vcpuplace.h"
#include "host/nova_xml.h"

#define VP_POLICY_NS	"urn:vcpuplace:policy:1"
#define VP_POLICY_PREFIX	"vp"
/* a profile's name, NUL included: 64 characters, as policy.rng says */
#define VP_PROFILE_NAME_MAX	65

struct vp_profiles;

/*
 * Loads every *.xml profile of @dir, each validated against
 * @dir/policy.rng; a file's name without .xml is the profile name, and
 * "balanced" must exist (the host default).  @dir/grants.xml, when
 * present, is the host's grants and rules (see profiles_grant(),
 * profiles_rule()), not a profile, and @dir/rules.d/NAME.xml, when
 * present, more rules (root <rules>), read in name order after
 * grants.xml's.  All or nothing: one bad file fails the whole load.
 * Keeps going so every bad file is reported, as "FILE:LINE: message" lines in @err; returns 0
 * with *ret set (free with profiles_free()), -EINVAL (with @err), -ENOENT
 * (no dir or no schema), -ENOMEM.  *ret untouched on failure.
 */
int profiles_load(const char *dir, struct vp_profiles **ret, char *err,
    size_t errlen) VP_MUST_CHECK;
void profiles_free(struct vp_profiles *p);	/* accepts NULL */
/* The named profile, or NULL.  Owned by @p. */
const struct vp_policy *profiles_get(const struct vp_profiles *p,
    const char *name);
/* Names, for listings: *ret_n names owned by @p. */
const char *const *profiles_names(const struct vp_profiles *p, int *ret_n);

/*
 * One profile file's bytes @text[@len] (need not be NUL-ended), checked
 * as profiles_load() checks each file, against @p's schema: 0 with *ret
 * set, or -EINVAL with "profile:LINE: message" in @err, -ENOMEM.  For
 * tests and fuzzing (tests/fuzz/); *ret untouched on failure.
 */
int profile_from_text(const struct vp_profiles *p, const char *text,
    size_t len, struct vp_policy *ret, char *err, size_t errlen)
	VP_MUST_CHECK;

/*
 * Parses the metadata element text @xml (as virDomainGetMetadata returns
 * it) against the schema, once: *ret is the named profile with the
 * overrides applied, and @ret_profile (may be NULL) that profile's name.
 * Returns 0, or -EINVAL with a one-line reason in @err naming what is
 * wrong ("unknown profile 'fast'", "element smt: bad value 'x'",
 * "not well-formed XML at line 1"); *ret and @ret_profile untouched on
 * failure.  At most
 * 64 KiB of text is accepted.  An unqualified root ("<policy ...>") is
 * taken as ours: virDomainGetMetadata() strips the namespace (libvirt
 * 9.0).  Field elements may be unqualified or in VP_POLICY_NS.
 */
int policy_from_metadata(const struct vp_profiles *p, const char *xml,
    struct vp_policy *ret, char ret_profile[VP_PROFILE_NAME_MAX], char *err,
    size_t errlen) VP_MUST_CHECK;

/*
 * The same for metadata a VM's owner wrote, under the host's rules: the
 * profile must say tenant="yes" and each field given must be one the
 * host lets tenants set (grants.xml's tenant_fields; by default smt but
 * not smt=isolate, locality, cache_hot, core_sched).  Returns -EPERM with
 * the reason in @err ("profile 'dedicated' is host-granted only: ...")
 * when the rules refuse a request that is otherwise valid.
 */
int policy_from_tenant(const struct vp_profiles *p, const char *xml,
    struct vp_policy *ret, char ret_profile[VP_PROFILE_NAME_MAX], char *err,
    size_t errlen) VP_MUST_CHECK;

/*
 * The host's grants (@dir/grants.xml, read by profiles_load(); optional,
 * must be owned by root and writable by no one else): the policy granted
 * to the VM of UUID @uuid ("xxxxxxxx-xxxx-..."), or NULL.  *ret_profile
 * (may be NULL) is the profile it names.  Owned by @p.
 */
const struct vp_policy *profiles_grant(const struct vp_profiles *p,
    const char *uuid, const char **ret_profile);
/* What a host rule may match a VM on. */
struct vp_rule_subject {
	const char *name;		/* the domain's name */
	int nvcpus;			/* its live vCPU count */
	const struct vp_nova *nova;	/* NULL: no Nova metadata */
};

/*
 * The host's rules (<rule> elements of grants.xml, then of each
 * rules.d file in name order, each in file order): the policy of the
 * first rule that matches @s, or NULL.  *ret_profile (may
 * be NULL) is the profile it names, *ret_label (may be NULL) says which
 * rule it is: "NAME (FILE:LINE)", or "FILE:LINE" for a rule with no
 * name.  Owned by @p.
 */
const struct vp_policy *profiles_rule(const struct vp_profiles *p,
    const struct vp_rule_subject *s, const char **ret_profile,
    const char **ret_label);
/* Whether any rule matches on Nova's metadata (else it need not be read). */
bool profiles_rules_read_nova(const struct vp_profiles *p);

/* The budget of exclusive cores grants.xml sets, else the defaults;
 * NULL (no budget) for no profiles. */
const struct vp_budget *profiles_budget(const struct vp_profiles *p);

/*
 * Builds metadata text for profile @profile with @n "field=value"
 * overrides, validated like policy_from_metadata().  *ret_xml is
 * malloc'd.  Returns 0 or -EINVAL (with @err).  The root carries no
 * namespace, as virDomainSetMetadata() wants it (it adds xmlns:vp itself
 * and fails on a text that already declares the prefix); values are
 * written in canonical spelling.
 */
int policy_to_metadata(const struct vp_profiles *p, const char *profile,
    char *const *overrides, int n, char **ret_xml, char *err, size_t errlen)
	VP_MUST_CHECK;

#endif /* POLICY_XML_H */
