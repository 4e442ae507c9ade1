/*
 * policy_check.h - the property both policy targets check on an accepted
 * policy: every field inside its enum, every boolean 0 or 1.
 */
#ifndef VP_FUZZ_POLICY_CHECK_H
#define VP_FUZZ_POLICY_CHECK_H

#include "core/vcpuplace.h"
#include "fuzz.h"

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
