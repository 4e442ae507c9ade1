/*
 * scenario.c - parses a dry-run scenario (JSON, with json-c) into plain
 * data, once, with every error naming the field at fault.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "host/scenario.h"

void
scenario_free(struct vp_scenario *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nvms; i++)
		free((char *)s->vms[i].name);
	free(s->vms);
	free(s);
}

static int
fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int
parse_cpulist(const struct vp_topo *t, json_object *o, const char *what,
    struct vp_cpuset *ret, char *err, size_t len)
{
	static const char *const why[] = {
		[EINVAL] = "bad CPU list syntax",
		[ERANGE] = "CPU number out of range",
		[ENOENT] = "CPU not in the topology (hole or offline)",
	};
	int r;

	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_string))
		return fail(err, len, "%s: must be a CPU list string", what);
	r = cpulist_parse(t, json_object_get_string(o), ret);
	if (r < 0)
		return fail(err, len, "%s: %s: '%s'", what,
		    -r < (int)(sizeof(why) / sizeof(why[0])) && why[-r] ?
		    why[-r] : "invalid", json_object_get_string(o));
	return 0;
}

static int
parse_policy(json_object *o, struct vp_policy *pol, int idx, char *err,
    size_t len)
{
	int r;

	policy_default(pol);
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return fail(err, len, "vms[%d].policy: must be an object", idx);
	json_object_object_foreach(o, key, val) {
		const char *v;

		if (json_object_is_type(val, json_type_boolean))
			v = json_object_get_boolean(val) ? "yes" : "no";
		else if (json_object_is_type(val, json_type_string))
			v = json_object_get_string(val);
		else
			return fail(err, len, "vms[%d].policy.%s: must be a "
			    "string or boolean", idx, key);
		r = policy_set_field(pol, key, v);
		if (r == -ENOENT)
			return fail(err, len, "vms[%d].policy.%s: unknown "
			    "field", idx, key);
		if (r < 0)
			return fail(err, len, "vms[%d].policy.%s: unknown "
			    "value '%s'", idx, key, v);
	}
	return 0;
}

static int
parse_vm(json_object *o, struct vp_vm_spec *vm, int idx, char *err,
    size_t len)
{
	json_object *name, *vcpus, *pol = NULL;
	int64_t n;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, len, "vms[%d]: must be an object", idx);
	if (!json_object_object_get_ex(o, "name", &name) ||
	    !json_object_is_type(name, json_type_string) ||
	    json_object_get_string_len(name) == 0)
		return fail(err, len, "vms[%d].name: missing or not a "
		    "non-empty string", idx);
	if (!json_object_object_get_ex(o, "vcpus", &vcpus) ||
	    !json_object_is_type(vcpus, json_type_int))
		return fail(err, len, "vms[%d].vcpus: missing or not an "
		    "integer", idx);
	n = json_object_get_int64(vcpus);
	if (n < 1 || n > VP_MAX_PUS)
		return fail(err, len, "vms[%d].vcpus: %lld is not in 1..%d",
		    idx, (long long)n, VP_MAX_PUS);
	json_object_object_get_ex(o, "policy", &pol);
	vm->nvcpus = (int)n;
	vm->name = strdup(json_object_get_string(name));
	if (!vm->name)
		return -ENOMEM;
	return parse_policy(pol, &vm->policy, idx, err, len);
}

static int
parse_features(json_object *o, struct vp_features *f, char *err, size_t len)
{
	int i;

	features_default(f);
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return fail(err, len, "features: must be an object");
	json_object_object_foreach(o, key, val) {
		if ((i = features_lookup(key)) < 0)
			return fail(err, len, "features.%s: unknown feature",
			    key);
		if (!json_object_is_type(val, json_type_boolean))
			return fail(err, len, "features.%s: must be true or "
			    "false", key);
		f->on[i] = json_object_get_boolean(val);
	}
	return 0;
}

static int
parse_root(const struct vp_topo *t, json_object *root, struct vp_scenario *s,
    char *err, size_t len)
{
	json_object *vms = NULL, *o = NULL;
	int i, r;

	if (!json_object_is_type(root, json_type_object))
		return fail(err, len, "scenario: must be a JSON object");
	json_object_object_get_ex(root, "busy", &o);
	if ((r = parse_cpulist(t, o, "busy", &s->busy, err, len)) < 0)
		return r;
	o = NULL;
	json_object_object_get_ex(root, "reserve", &o);
	if ((r = parse_cpulist(t, o, "reserve", &s->reserved, err, len)) < 0)
		return r;
	o = NULL;
	json_object_object_get_ex(root, "features", &o);
	if ((r = parse_features(o, &s->feat, err, len)) < 0)
		return r;
	if (!json_object_object_get_ex(root, "vms", &vms) ||
	    !json_object_is_type(vms, json_type_array))
		return fail(err, len, "vms: missing or not an array");
	s->nvms = (int)json_object_array_length(vms);
	s->vms = calloc(s->nvms ? s->nvms : 1, sizeof(*s->vms));
	if (!s->vms)
		return -ENOMEM;
	for (i = 0; i < s->nvms; i++)
		if ((r = parse_vm(json_object_array_get_idx(vms, i),
		    &s->vms[i], i, err, len)) < 0)
			return r;
	return 0;
}

int
scenario_parse(const struct vp_topo *t, const char *text,
    struct vp_scenario **ret, char *err, size_t errlen)
{
	enum json_tokener_error jerr;
	struct vp_scenario *s;
	json_object *root;
	int r;

	root = json_tokener_parse_verbose(text, &jerr);
	if (!root)
		return fail(err, errlen, "scenario: not JSON: %s",
		    json_tokener_error_desc(jerr));
	s = calloc(1, sizeof(*s));
	if (!s) {
		json_object_put(root);
		return -ENOMEM;
	}
	r = parse_root(t, root, s, err, errlen);
	json_object_put(root);
	if (r < 0) {
		scenario_free(s);
		return r;
	}
	*ret = s;
	return 0;
}
