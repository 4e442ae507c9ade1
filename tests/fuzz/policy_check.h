/*
 * policy_check.h - what both policy targets share: the profiles they load,
 * and the property they check on an accepted policy: every field inside
 * its enum, every boolean 0 or 1.
 */
#ifndef VP_FUZZ_POLICY_CHECK_H
#define VP_FUZZ_POLICY_CHECK_H

#include "core/vcpuplace.h"
#include "host/policy_xml.h"
#include "fuzz.h"

/* The profiles of policies/ ($VP_POLICY_DIR), loaded once; exits if not. */
static inline struct vp_profiles *
fz_load_profiles(const char *target)
{
	const char *dir = fz_dir("VP_POLICY_DIR", "policies");
	struct vp_profiles *profiles;
	char err[1024];

	if (profiles_load(dir, &profiles, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s: %s\n", target, dir, err);
		exit(2);
	}
	return profiles;
}

static inline void
fz_check_policy(const struct vp_policy *p)
{
	FZ_CHECK(p->mode >= VP_MODE_OFF && p->mode <= VP_MODE_DEDICATED,
	    "mode %d", (int)p->mode);
	FZ_CHECK(p->smt >= VP_SMT_PREFER_IDLE_CORE && p->smt <= VP_SMT_ANY,
	    "smt %d", (int)p->smt);
	FZ_CHECK(p->locality >= VP_LOC_CLUSTER && p->locality <= VP_LOC_ANY,
	    "locality %d", (int)p->locality);
	FZ_CHECK(p->priority >= VP_PRIO_HIGH && p->priority <= VP_PRIO_LOW,
	    "priority %d", (int)p->priority);
	FZ_CHECK(p->emulator >= VP_EMU_POOL && p->emulator <= VP_EMU_VCPUS,
	    "emulator %d", (int)p->emulator);
	FZ_CHECK(*(const unsigned char *)&p->cache_hot <= 1 &&
	    *(const unsigned char *)&p->core_sched <= 1, "a boolean not 0/1");
}

#endif /* VP_FUZZ_POLICY_CHECK_H */
