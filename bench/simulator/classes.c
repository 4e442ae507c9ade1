/*
 * classes.c - VM classes: which profile each VM has, and each class's
 * own figures, so that a policy's promise can be checked on its own VMs
 * (the p99 of the latency-profile VMs, the throughput of the dense and
 * dedicated ones) rather than on the host's mean.
 *
 * With --vm-mix P1,P2,... VM v gets profile P(v mod n), read from the
 * profile files the daemon reads (policies/, policy_xml.c), and is
 * planned with it; the VMs' sizes and work are the workload's as
 * always, so every strategy sees the same VMs.  Without it every VM has
 * the run's policy and there is one class, "default".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "host/policy_xml.h"

/* @name as @p owns it (it outlives the --vm-mix copy), or NULL. */
static const char *
owned_name(const struct vp_profiles *p, const char *name)
{
	const char *const *names;
	int i, n;

	names = profiles_names(p, &n);
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return names[i];
	return NULL;
}

/* The index of class @name, added if new; -1 when full. */
static int
class_of(struct sim *s, const char *name)
{
	int i;

	for (i = 0; i < s->ncls; i++)
		if (!strcmp(s->cls_name[i], name))
			return i;
	if (s->ncls == SIM_MAX_CLASSES)
		return -1;
	s->cls_name[s->ncls] = name;
	return s->ncls++;
}

int
classes_setup(struct sim *s, const struct run_opts *o)
{
	static const char *const deflt = "default";
	char *mix = NULL, *save = NULL, *tok;
	const char *names[SIM_MAX_CLASSES];
	int n = 0, v, r = 0;

	s->ncls = 0;
	if (o->vm_mix) {
		if (!o->profiles || !(mix = strdup(o->vm_mix)))
			return o->profiles ? -ENOMEM : -EINVAL;
		for (tok = strtok_r(mix, ",", &save); tok && n <
		    SIM_MAX_CLASSES; tok = strtok_r(NULL, ",", &save)) {
			/* the profiles own the name; @mix is freed below */
			names[n] = owned_name(o->profiles, tok);
			if (!names[n++]) {
				r = -ENOENT;
				goto out;
			}
		}
		if (!n) {
			r = -EINVAL;
			goto out;
		}
	}
	for (v = 0; v < s->nvm; v++) {
		const char *name = n ? names[v % n] : deflt;

		s->vm[v].policy = n ? *profiles_get(o->profiles, name) :
		    s->policy;
		if ((s->vm[v].cls = class_of(s, name)) < 0) {
			r = -E2BIG;
			goto out;
		}
	}
	s->cls_st = calloc(s->ncls ? s->ncls : 1, sizeof(*s->cls_st));
	if (!s->cls_st)
		r = -ENOMEM;
out:
	free(mix);
	return r;
}

void
classes_release(struct sim *s)
{
	free(s->cls_st);
	s->cls_st = NULL;
}
