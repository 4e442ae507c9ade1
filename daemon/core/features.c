/*
 * features.c - names, reasons and defaults of the placement heuristics
 * listed in feature_list.h.
 */
#include <errno.h>
#include <string.h>

#include "core/vcpuplace.h"

static const struct {
	const char *name;
	bool def;
	const char *why;
} features_table[VP_FEAT_COUNT] = {
#define VP_FEATURE(n, d, w) [VP_FEAT_##n] = { #n, d, w },
#include "core/feature_list.h"
#undef VP_FEATURE
};

void
features_default(struct vp_features *ret)
{
	int i;

	for (i = 0; i < VP_FEAT_COUNT; i++)
		ret->on[i] = features_table[i].def;
}

int
features_lookup(const char *name)
{
	int i;

	for (i = 0; i < VP_FEAT_COUNT; i++)
		if (strcmp(features_table[i].name, name) == 0)
			return i;
	return -EINVAL;
}

const char *
features_name(enum vp_feature f)
{
	return (unsigned int)f < VP_FEAT_COUNT ? features_table[f].name : "?";
}

const char *
features_why(enum vp_feature f)
{
	return (unsigned int)f < VP_FEAT_COUNT ? features_table[f].why : "?";
}
