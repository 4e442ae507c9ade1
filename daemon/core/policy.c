/*
 * policy.c - the fields of a VM's placement policy: names, values and
 * the host default.  Pure: the XML side (profiles, domain metadata) is
 * an adapter that calls policy_set_field() for each field it reads.
 */
#include <errno.h>
#include <string.h>

#include "core/vcpuplace.h"

static const char *const mode_names[] = {
	[VP_MODE_OFF] = "off", [VP_MODE_SHARED] = "shared",
	[VP_MODE_DEDICATED] = "dedicated",
};
static const char *const smt_names[] = {
	[VP_SMT_PREFER_IDLE_CORE] = "prefer-idle-core",
	[VP_SMT_ISOLATE] = "isolate", [VP_SMT_SIBLINGS] = "siblings",
	[VP_SMT_ANY] = "any",
};
static const char *const locality_names[] = {
	[VP_LOC_CLUSTER] = "cluster", [VP_LOC_LLC] = "llc",
	[VP_LOC_NUMA] = "numa", [VP_LOC_ANY] = "any",
};
static const char *const priority_names[] = {
	[VP_PRIO_HIGH] = "high", [VP_PRIO_NORMAL] = "normal",
	[VP_PRIO_LOW] = "low",
};
static const char *const emulator_names[] = {
	[VP_EMU_POOL] = "pool", [VP_EMU_HOUSEKEEPING] = "housekeeping",
	[VP_EMU_VCPUS] = "vcpus",
};
static const char *const bool_names[] = { "no", "yes" };

#define NELEM(a)	((int)(sizeof(a) / sizeof((a)[0])))
#define NAME(tab, v) \
	((unsigned int)(v) < (unsigned int)NELEM(tab) ? (tab)[v] : "?")

const char *policy_mode_name(enum vp_mode m) { return NAME(mode_names, m); }
const char *policy_smt_name(enum vp_smt s) { return NAME(smt_names, s); }
const char *policy_locality_name(enum vp_locality l)
{
	return NAME(locality_names, l);
}
const char *policy_priority_name(enum vp_priority p)
{
	return NAME(priority_names, p);
}
const char *policy_emulator_name(enum vp_emulator e)
{
	return NAME(emulator_names, e);
}

bool
policy_equal(const struct vp_policy *a, const struct vp_policy *b)
{
	return a->mode == b->mode && a->smt == b->smt &&
	    a->locality == b->locality && a->priority == b->priority &&
	    a->cache_hot == b->cache_hot && a->core_sched == b->core_sched &&
	    a->emulator == b->emulator;
}

void
policy_default(struct vp_policy *ret)
{
	ret->mode = VP_MODE_SHARED;
	ret->smt = VP_SMT_PREFER_IDLE_CORE;
	ret->locality = VP_LOC_LLC;
	ret->priority = VP_PRIO_NORMAL;
	ret->cache_hot = false;
	ret->core_sched = false;
	ret->emulator = VP_EMU_POOL;
}

static int
lookup(const char *const *names, int n, const char *value)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], value) == 0)
			return i;
	return -EINVAL;
}

/* Booleans also take the XML Schema spellings "true" and "false". */
static int
lookup_bool(const char *value)
{
	if (!strcmp(value, "true") || !strcmp(value, "1"))
		return 1;
	if (!strcmp(value, "false") || !strcmp(value, "0"))
		return 0;
	return lookup(bool_names, NELEM(bool_names), value);
}

int
policy_set_field(struct vp_policy *p, const char *field, const char *value)
{
	int v;

#define FIELD(f, tab, type) \
	if (strcmp(field, #f) == 0) { \
		if ((v = lookup(tab, NELEM(tab), value)) < 0) \
			return v; \
		p->f = (type)v; \
		return 0; \
	}
	FIELD(mode, mode_names, enum vp_mode)
	FIELD(smt, smt_names, enum vp_smt)
	FIELD(locality, locality_names, enum vp_locality)
	FIELD(priority, priority_names, enum vp_priority)
	FIELD(emulator, emulator_names, enum vp_emulator)
#undef FIELD
	if (strcmp(field, "cache_hot") == 0 ||
	    strcmp(field, "core_sched") == 0) {
		if ((v = lookup_bool(value)) < 0)
			return v;
		if (field[1] == 'a')
			p->cache_hot = v;
		else
			p->core_sched = v;
		return 0;
	}
	return -ENOENT;
}
