/*
 * fz_policy_meta.c - policy_from_metadata() (daemon/host/policy_xml.c),
 * the <vp:policy> element anyone who may edit a domain can write, against
 * the profiles of policies/ loaded once.
 *
 * Properties: a rejection is -EINVAL with a message; an accepted policy
 * names a loaded profile, has every field in range, and the metadata
 * policy_to_metadata() writes for it (the profile plus every field as an
 * override) parses back to the same policy.
 */
#include <errno.h>

#include "host/policy_xml.h"
#include "policy_check.h"

static struct vp_profiles *profiles;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	profiles = fz_load_profiles("fz_policy_meta");
	return 0;
}

/* The policy as "field=value" overrides, canonical spelling. */
static void
overrides_of(const struct vp_policy *p, char buf[7][64], char *ov[7])
{
	snprintf(buf[0], 64, "mode=%s", policy_mode_name(p->mode));
	snprintf(buf[1], 64, "smt=%s", policy_smt_name(p->smt));
	snprintf(buf[2], 64, "locality=%s", policy_locality_name(p->locality));
	snprintf(buf[3], 64, "priority=%s", policy_priority_name(p->priority));
	snprintf(buf[4], 64, "cache_hot=%s", p->cache_hot ? "yes" : "no");
	snprintf(buf[5], 64, "core_sched=%s", p->core_sched ? "yes" : "no");
	snprintf(buf[6], 64, "emulator=%s", policy_emulator_name(p->emulator));
	for (int i = 0; i < 7; i++)
		ov[i] = buf[i];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char profile[VP_PROFILE_NAME_MAX], profile2[VP_PROFILE_NAME_MAX];
	char err[512], ovbuf[7][64], *ov[7], *xml = NULL;
	struct vp_policy pol, back;
	char *in = fz_cstr(data, size);
	int r;

	r = policy_from_metadata(profiles, in, &pol, profile, err,
	    sizeof(err));
	if (r < 0) {
		FZ_CHECK(r == -EINVAL || r == -ENOMEM, "returned %d", r);
		FZ_CHECK(r != -EINVAL || err[0], "rejected without a message");
		free(in);
		return 0;
	}
	FZ_CHECK(r == 0, "returned %d", r);
	FZ_CHECK(profiles_get(profiles, profile), "profile '%s' not loaded",
	    profile);
	fz_check_policy(&pol);
	overrides_of(&pol, ovbuf, ov);
	r = policy_to_metadata(profiles, profile, ov, 7, &xml, err,
	    sizeof(err));
	FZ_CHECK(r == 0, "policy_to_metadata: %d %s", r, err);
	r = policy_from_metadata(profiles, xml, &back, profile2, err,
	    sizeof(err));
	FZ_CHECK(r == 0, "'%s' does not parse back: %s", xml, err);
	FZ_CHECK(policy_equal(&pol, &back) && !strcmp(profile, profile2),
	    "'%s' is another policy", xml);
	free(xml);
	free(in);
	return 0;
}
