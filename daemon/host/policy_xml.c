/*
 * policy_xml.c - profiles (policies/NAME.xml) and a VM's domain
 * <metadata> policy element into struct vp_policy, with libxml2.
 *
 * Every document is checked twice: a walk of the tree that applies each
 * field with policy_set_field() and names what is wrong in words a user
 * can act on ("element smt: bad value 'x'"), then the RelaxNG schema
 * policies/policy.rng, the authority, for anything the walk let through.
 *
 * Metadata comes from guests' owners, so it is untrusted: at most 64 KiB,
 * no DTD (so no entity can expand), no network, and libxml2's own
 * messages are captured, never printed.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "host/policy_xml.h"
#include "host/smallfile.h"

#define XML_MAX_BYTES	(64 * 1024)
#define SCHEMA_FILE	"policy.rng"
#define DEFAULT_PROFILE	"balanced"
#define GRANTS_FILE	"grants.xml"	/* not a profile: the host's rules */
#define RULES_DIR	"rules.d"	/* more host rules, a file each */
#define UUID_LEN	36
/* at most this many VMs granted in one file: bounded, like all input */
#define GRANTS_MAX	4096
#define NAME_MAX_LEN	(VP_PROFILE_NAME_MAX - 1)	/* policy.rng: profile_name */

struct grant {
	char uuid[UUID_LEN + 1];
	char profile[VP_PROFILE_NAME_MAX];
	struct vp_policy pol;
};

/* at most this many rules in grants.xml and rules.d together */
#define RULES_MAX	4096
/* a rule's match strings: as long as policy.rng lets them be */
#define MATCH_MAX	256

/*
 * One <rule> of grants.xml: every match it gives must hold (a rule that
 * gives none matches every VM); the first rule that matches, in file
 * order, chooses the VM's profile.
 */
struct rule {
	char label[MATCH_MAX + 128];	/* "NAME (FILE:LINE)" or "FILE:LINE" */
	char profile[VP_PROFILE_NAME_MAX];
	struct vp_policy pol;
	char flavor[MATCH_MAX];		/* Nova flavor name glob, "" any */
	char project[MATCH_MAX];	/* Nova project name or uuid, "" any */
	char domain[MATCH_MAX];		/* domain name glob, "" any */
	unsigned int vcpus_min, vcpus_max;	/* 0: no bound */
};

struct vp_profiles {
	int n;
	char **names;		/* [n + 1], NULL-terminated, sorted */
	struct vp_policy *pol;	/* [n] */
	bool *tenant;		/* [n]: VM metadata may name it */
	xmlRelaxNGPtr schema;	/* for metadata checked after loading */
	/* from grants.xml, or the defaults when there is none */
	unsigned int tenant_fields;	/* VP_TENANT_* bits */
	struct vp_budget budget;
	struct grant *grant;	/* [ngrants] */
	int ngrants;
	struct rule *rule;	/* [nrules], in file order */
	int nrules;
};

/* libxml2 2.12 made the structured error handler's argument const. */
#if LIBXML_VERSION >= 21200
typedef const xmlError *xml_error_t;
#else
typedef xmlError *xml_error_t;
#endif

/* The first error of one operation: libxml2's or ours. */
struct diag {
	char msg[256];
	long line;		/* 0: unknown */
	int code;		/* libxml2's code, 0 for ours */
	bool set;
	bool wf;		/* a well-formedness error */
};

static const char *const fields[] = {
	"mode", "smt", "locality", "priority", "cache_hot", "core_sched",
	"emulator",
};
#define NFIELDS		((int)(sizeof(fields) / sizeof(fields[0])))
/* tenant_fields bits: one per field (index in fields[]), and this one */
#define TENANT_SMT_ISOLATE	(1u << NFIELDS)
/*
 * What VM metadata may override when grants.xml does not say: smt (not
 * isolate), locality, cache_hot and core_sched, which only move a VM's
 * own vCPUs inside the shared pool.  Not mode (dedicated takes PUs 1:1),
 * smt=isolate (whole cores), priority (planned before the others) nor
 * emulator (housekeeping runs QEMU on the host's --reserve PUs): those
 * take from the other VMs or the host, as Nova keeps hw:cpu_policy and
 * hw:emulator_threads_policy in flavors only admins write.
 */
#define VP_TENANT_FIELDS_DEFAULT	((1u << 1) | (1u << 2) | (1u << 4) | \
	(1u << 5))

enum root_kind { ROOT_PROFILE, ROOT_POLICY, ROOT_GRANTS, ROOT_RULES };

/* What a parse_doc() of a policy asks of the authority, and learns. */
struct authority {
	bool check;		/* metadata from a VM's owner: apply the rules */
	bool tenant;		/* out, profile: tenant="yes" */
	bool refused;		/* out: the rules refused it (-EPERM) */
	struct vp_profiles *rules;	/* grants: filled on success */
};

static int __attribute__((format(printf, 3, 4)))
diag_set(struct diag *d, long line, const char *fmt, ...)
{
	va_list ap;

	if (d->set)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	d->line = line;
	d->set = true;
	return -EINVAL;
}

/* A file or metadata text longer than the parser takes. */
static int
too_large(struct diag *d)
{
	return diag_set(d, 0, "larger than %d KiB", XML_MAX_BYTES / 1024);
}

/* Structured error handler: keeps the first error, drops the rest. */
static void
capture(void *ctx, xml_error_t e)
{
	struct diag *d = ctx;
	size_t n;

	if (d->set || !e || e->level == XML_ERR_WARNING)
		return;
	snprintf(d->msg, sizeof(d->msg), "%s",
	    e->message ? e->message : "unknown libxml2 error");
	/* libxml2's messages end in a newline */
	n = strlen(d->msg);
	while (n > 0 && (d->msg[n - 1] == '\n' || d->msg[n - 1] == ' '))
		d->msg[--n] = '\0';
	d->line = e->line;
	if (d->line <= 0 && e->node)
		d->line = xmlGetLineNo((xmlNodePtr)e->node);
	d->code = e->code;
	d->wf = e->domain == XML_FROM_PARSER;
	d->set = true;
}

/*
 * libxml2 sends some errors (the RelaxNG parser's, I/O) to its global
 * handler whatever the context says; route those into @d too while we
 * work, then put the caller's handler back.
 */
struct quiet {
	xmlStructuredErrorFunc fn;
	void *ctx;
};

static void
quiet_begin(struct quiet *q, struct diag *d)
{
	q->fn = xmlStructuredError;
	q->ctx = xmlStructuredErrorContext;
	xmlSetStructuredErrorFunc(d, capture);
}

static void
quiet_end(const struct quiet *q)
{
	xmlSetStructuredErrorFunc(q->ctx, q->fn);
}

static int
field_index(const char *name)
{
	int i;

	for (i = 0; i < NFIELDS; i++)
		if (!strcmp(fields[i], name))
			return i;
	return -1;
}

static bool
in_vp_ns(const xmlNode *n)
{
	return n->ns && n->ns->href &&
	    !strcmp((const char *)n->ns->href, VP_POLICY_NS);
}

static bool
xml_blank(const char *s)
{
	for (; *s; s++)
		if (!strchr(" \t\r\n", *s))
			return false;
	return true;
}

/* Strips XML whitespace in place, as the schema's token type does. */
static char *
trim(char *s)
{
	char *e;

	while (*s && strchr(" \t\r\n", *s))
		s++;
	e = s + strlen(s);
	while (e > s && strchr(" \t\r\n", e[-1]))
		*--e = '\0';
	return s;
}

/* Names a profile may have: policy.rng's profile_name pattern. */
static bool
name_ok(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > NAME_MAX_LEN)
		return false;
	for (i = 0; i < len; i++) {
		char c = s[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9');

		if (!alnum && (i == 0 || !strchr("_.-", c)))
			return false;
	}
	return true;
}

/* Applies one field element to @pol (untouched on failure). */
static int
read_field(xmlNodePtr el, struct vp_policy *pol, struct diag *d)
{
	const char *name = (const char *)el->name;
	xmlNodePtr c;
	char *text, *v;
	int r;

	if (el->properties)
		return diag_set(d, xmlGetLineNo(el),
		    "element %s: unexpected attribute '%s'", name,
		    (const char *)el->properties->name);
	for (c = el->children; c; c = c->next)
		if (c->type != XML_TEXT_NODE &&
		    c->type != XML_CDATA_SECTION_NODE &&
		    c->type != XML_COMMENT_NODE)
			return diag_set(d, xmlGetLineNo(el),
			    "element %s: must hold text only", name);
	text = (char *)xmlNodeGetContent(el);
	if (!text)
		return -ENOMEM;
	v = trim(text);
	r = policy_set_field(pol, name, v);
	if (r < 0)
		diag_set(d, xmlGetLineNo(el), "element %s: bad value '%.64s'",
		    name, v);
	xmlFree(text);
	return r < 0 ? -EINVAL : 0;
}

/*
 * Applies the field elements under @root to @pol.  @all: a profile,
 * which must give every field.
 */
static int
read_fields(xmlNodePtr root, bool all, struct vp_policy *pol,
    struct diag *d, unsigned int *ret_seen)
{
	unsigned int seen = 0;
	xmlNodePtr c;
	int i, r;

	for (c = root->children; c; c = c->next) {
		const char *name = (const char *)c->name;

		if (c->type == XML_TEXT_NODE ||
		    c->type == XML_CDATA_SECTION_NODE) {
			if (c->content && !xml_blank((const char *)c->content))
				return diag_set(d, xmlGetLineNo(c),
				    "text outside a field element");
			continue;
		}
		if (c->type != XML_ELEMENT_NODE)
			continue;	/* comments, processing instructions */
		if (c->ns && !in_vp_ns(c))
			return diag_set(d, xmlGetLineNo(c),
			    "element %s: wrong namespace '%.80s'", name,
			    (const char *)c->ns->href);
		i = field_index(name);
		if (i < 0)
			return diag_set(d, xmlGetLineNo(c),
			    "unknown element '%.64s'", name);
		if (seen & (1u << i))
			return diag_set(d, xmlGetLineNo(c),
			    "duplicate element %s", name);
		seen |= 1u << i;
		r = read_field(c, pol, d);
		if (r < 0)
			return r;
	}
	for (i = 0; all && i < NFIELDS; i++)
		if (!(seen & (1u << i)))
			return diag_set(d, xmlGetLineNo(root),
			    "missing element %s", fields[i]);
	if (ret_seen)
		*ret_seen = seen;
	return 0;
}

/* The RelaxNG check, after read_fields() found nothing to say. */
static int
validate(xmlRelaxNGPtr schema, xmlDocPtr doc, struct diag *d)
{
	xmlRelaxNGValidCtxtPtr v;
	int r;

	v = xmlRelaxNGNewValidCtxt(schema);
	if (!v)
		return -ENOMEM;
	xmlRelaxNGSetValidStructuredErrors(v, capture, d);
	r = xmlRelaxNGValidateDoc(v, doc);
	xmlRelaxNGFreeValidCtxt(v);
	if (r == 0)
		return 0;
	if (d->set) {
		char msg[sizeof(d->msg)];

		/* say where the message comes from */
		snprintf(msg, sizeof(msg), "%s", d->msg);
		snprintf(d->msg, sizeof(d->msg), "not valid per "
		    SCHEMA_FILE ": %.200s", msg);
		return -EINVAL;
	}
	return diag_set(d, 0, "not valid per " SCHEMA_FILE);
}

/* tenant_fields' text, a list of field names and "smt=isolate". */
static int
read_tenant_fields(xmlNodePtr el, unsigned int *ret, struct diag *d)
{
	char *text, *tok, *save = NULL;
	unsigned int bits = 0;
	int i, r = 0;

	text = (char *)xmlNodeGetContent(el);
	if (!text)
		return -ENOMEM;
	for (tok = strtok_r(text, " \t\r\n", &save); tok && r == 0;
	    tok = strtok_r(NULL, " \t\r\n", &save)) {
		i = field_index(tok);
		if (i >= 0)
			bits |= 1u << i;
		else if (!strcmp(tok, "smt=isolate"))
			bits |= TENANT_SMT_ISOLATE;
		else
			r = diag_set(d, xmlGetLineNo(el), "element "
			    "tenant_fields: unknown field '%.64s'", tok);
	}
	xmlFree(text);
	if (r == 0)
		*ret = bits;
	return r;
}

/* An unsigned attribute of at most @max; the schema says the same. */
static int
read_uint_attr(xmlNodePtr el, const char *name, unsigned int max,
    unsigned int *ret, struct diag *d)
{
	xmlChar *v = xmlGetNoNsProp(el, BAD_CAST name);
	unsigned long n;
	char *end;
	int r = 0;

	if (!v)
		return diag_set(d, xmlGetLineNo(el), "element %s: missing "
		    "attribute %s", (const char *)el->name, name);
	errno = 0;
	n = strtoul((const char *)v, &end, 10);
	if (errno || end == (char *)v || *end || n > max ||
	    ((const char *)v)[0] == '-')
		r = diag_set(d, xmlGetLineNo(el), "element %s: attribute %s: "
		    "want 0-%u, not '%.32s'", (const char *)el->name, name, max,
		    (const char *)v);
	else
		*ret = (unsigned int)n;
	xmlFree(v);
	return r;
}

/* One <vm uuid= profile=> of grants.xml: the profile and overrides. */
static int
read_grant(const struct vp_profiles *p, xmlNodePtr el, struct grant *g,
    struct diag *d)
{
	xmlChar *uuid = xmlGetNoNsProp(el, BAD_CAST "uuid");
	xmlChar *prof = xmlGetNoNsProp(el, BAD_CAST "profile");
	const struct vp_policy *base;
	int r = -EINVAL;

	if (!uuid || strlen((const char *)uuid) != UUID_LEN)
		diag_set(d, xmlGetLineNo(el), "element vm: attribute uuid: "
		    "want a UUID of %d characters", UUID_LEN);
	else if (!prof || !(base = profiles_get(p, (const char *)prof)))
		diag_set(d, xmlGetLineNo(el), "element vm: unknown profile "
		    "'%.64s'", prof ? (const char *)prof : "");
	else {
		memcpy(g->uuid, uuid, UUID_LEN + 1);
		snprintf(g->profile, sizeof(g->profile), "%s",
		    (const char *)prof);
		g->pol = *base;
		r = read_fields(el, false, &g->pol, d, NULL);
	}
	xmlFree(uuid);
	xmlFree(prof);
	return r;
}

/* An optional string attribute of a rule into @buf ("" when absent). */
static int
read_match(xmlNodePtr el, const char *name, char buf[MATCH_MAX],
    struct diag *d)
{
	xmlChar *v = xmlGetNoNsProp(el, BAD_CAST name);
	int r = 0;

	buf[0] = '\0';
	if (v && (!v[0] || strlen((const char *)v) >= MATCH_MAX))
		r = diag_set(d, xmlGetLineNo(el), "element rule: attribute "
		    "%s: want 1-%d characters", name, MATCH_MAX - 1);
	else if (v)
		memcpy(buf, v, strlen((const char *)v) + 1);
	xmlFree(v);
	return r;
}

/* An optional vCPU bound of a rule (0 when absent). */
static int
read_bound(xmlNodePtr el, const char *name, unsigned int *ret,
    struct diag *d)
{
	*ret = 0;
	return xmlHasProp(el, BAD_CAST name) ?
	    read_uint_attr(el, name, VP_MAX_PUS, ret, d) : 0;
}

/* One <rule profile= [name=] [flavor= project= domain= vcpus_min=
 * vcpus_max=]> of grants.xml: what it matches, the profile and overrides. */
static int
read_rule(const struct vp_profiles *p, xmlNodePtr el, struct rule *ru,
    struct diag *d)
{
	xmlChar *prof = xmlGetNoNsProp(el, BAD_CAST "profile");
	xmlChar *name = xmlGetNoNsProp(el, BAD_CAST "name");
	const char *file = el->doc->URL ? (const char *)el->doc->URL : "?";
	const struct vp_policy *base = prof ?
	    profiles_get(p, (const char *)prof) : NULL;
	int r;

	memset(ru, 0, sizeof(*ru));
	r = read_match(el, "flavor", ru->flavor, d) ?:
	    read_match(el, "project", ru->project, d) ?:
	    read_match(el, "domain", ru->domain, d) ?:
	    read_bound(el, "vcpus_min", &ru->vcpus_min, d) ?:
	    read_bound(el, "vcpus_max", &ru->vcpus_max, d);
	if (r == 0 && ru->vcpus_max && ru->vcpus_min > ru->vcpus_max)
		r = diag_set(d, xmlGetLineNo(el), "element rule: vcpus_min "
		    "%u is above vcpus_max %u", ru->vcpus_min, ru->vcpus_max);
	if (r == 0 && !base)
		r = diag_set(d, xmlGetLineNo(el), "element rule: unknown "
		    "profile '%.64s'", prof ? (const char *)prof : "");
	if (r == 0) {
		snprintf(ru->profile, sizeof(ru->profile), "%s",
		    (const char *)prof);
		/* the schema bounds a name to 64 characters: it fits */
		if (name)
			snprintf(ru->label, sizeof(ru->label), "%.64s (%.200s:%ld)",
			    (const char *)name, file, xmlGetLineNo(el));
		else
			snprintf(ru->label, sizeof(ru->label), "%.200s:%ld",
			    file, xmlGetLineNo(el));
		ru->pol = *base;
		r = read_fields(el, false, &ru->pol, d, NULL);
	}
	xmlFree(prof);
	xmlFree(name);
	return r;
}

/* Appends a zeroed slot to the array *@arr of *@n elements of @size. */
static void *
grow(void *arr, int n, size_t size)
{
	char *na = realloc(arr, (size_t)(n + 1) * size);

	if (na)
		memset(na + (size_t)n * size, 0, size);
	return na;
}

/*
 * Reads <rule> @el into a new slot of *@arr (*@n rules), counted with
 * the @p->nrules already loaded against RULES_MAX.
 */
static int
add_rule(const struct vp_profiles *p, xmlNodePtr el, struct rule **arr,
    int *n, struct diag *d)
{
	struct rule *nru;
	int r;

	if (p->nrules + *n >= RULES_MAX)
		return diag_set(d, xmlGetLineNo(el), "more than %d rules",
		    RULES_MAX);
	nru = grow(*arr, *n, sizeof(**arr));
	if (!nru)
		return -ENOMEM;
	*arr = nru;
	r = read_rule(p, el, &nru[*n], d);
	*n += r == 0;
	return r;
}

/*
 * The <rule> children of a rules.d file's root, appended after @p's
 * rules in file order, all or nothing: @p changes only when every rule
 * is good.
 */
static int
read_rules(xmlNodePtr root, struct vp_profiles *p, struct diag *d)
{
	struct rule *ru = NULL, *all;
	int nr = 0, r = 0;
	xmlNodePtr c;

	for (c = root->children; c && r == 0; c = c->next)
		if (c->type == XML_ELEMENT_NODE)	/* the schema: rules */
			r = add_rule(p, c, &ru, &nr, d);
	all = r == 0 && nr ? realloc(p->rule, (size_t)(p->nrules + nr) *
	    sizeof(*all)) : NULL;
	if (r == 0 && nr && !all)
		r = -ENOMEM;
	if (r < 0) {
		free(ru);
		return r;
	}
	if (nr) {
		memcpy(all + p->nrules, ru, (size_t)nr * sizeof(*ru));
		p->rule = all;
		p->nrules += nr;
	}
	free(ru);
	return 0;
}

/*
 * The children of grants.xml's root into @rules' host fields, all or
 * nothing: *@rules is changed only when every element is good.
 */
static int
read_grants(xmlNodePtr root, struct vp_profiles *rules, struct diag *d)
{
	unsigned int fields_bits = rules->tenant_fields;
	struct vp_budget b = rules->budget;
	struct grant *g = NULL;
	struct rule *ru = NULL;
	int n = 0, nr = 0, r = 0, i;
	xmlNodePtr c;

	for (c = root->children; c && r == 0; c = c->next) {
		const char *name = (const char *)c->name;

		if (c->type != XML_ELEMENT_NODE)
			continue;	/* the schema checks stray text */
		if (!strcmp(name, "tenant_fields"))
			r = read_tenant_fields(c, &fields_bits, d);
		else if (!strcmp(name, "budget"))
			r = read_uint_attr(c, "exclusive_max_pct", 100,
			    &b.exclusive_max_pct, d) ?:
			    read_uint_attr(c, "shared_min_cores", 4096,
			    &b.shared_min_cores, d);
		else if (!strcmp(name, "rule"))
			r = add_rule(rules, c, &ru, &nr, d);
		else if (strcmp(name, "vm"))
			r = diag_set(d, xmlGetLineNo(c), "unknown element "
			    "'%.64s'", name);
		else if (n >= GRANTS_MAX)
			r = diag_set(d, xmlGetLineNo(c), "more than %d VMs",
			    GRANTS_MAX);
		else {
			struct grant *ng = realloc(g, (n + 1) * sizeof(*g));

			if (!ng) {
				r = -ENOMEM;
				break;
			}
			g = ng;
			r = read_grant(rules, c, &g[n], d);
			for (i = 0; r == 0 && i < n; i++)
				if (!strcasecmp(g[i].uuid, g[n].uuid))
					r = diag_set(d, xmlGetLineNo(c),
					    "VM %s granted twice", g[n].uuid);
			n += r == 0;
		}
	}
	if (r < 0) {
		free(g);
		free(ru);
		return r;
	}
	free(rules->grant);
	rules->grant = g;
	rules->ngrants = n;
	free(rules->rule);
	rules->rule = ru;
	rules->nrules = nr;
	rules->tenant_fields = fields_bits;
	rules->budget = b;
	return 0;
}

/* A profile root's one attribute, tenant="yes|no" (default no). */
static int
profile_attrs(xmlNodePtr root, struct authority *auth, struct diag *d)
{
	xmlAttrPtr a;
	xmlChar *v;
	int r = 0;

	for (a = root->properties; a; a = a->next) {
		if (a->ns || strcmp((const char *)a->name, "tenant"))
			return diag_set(d, xmlGetLineNo(root),
			    "unexpected attribute '%.64s'",
			    (const char *)a->name);
		v = xmlGetNoNsProp(root, BAD_CAST "tenant");
		if (!v)
			return -ENOMEM;
		if (!strcmp((const char *)v, "yes") ||
		    !strcmp((const char *)v, "true")) {
			if (auth)
				auth->tenant = true;
		} else if (strcmp((const char *)v, "no") &&
		    strcmp((const char *)v, "false")) {
			r = diag_set(d, xmlGetLineNo(root), "attribute tenant: "
			    "bad value '%.64s'", (const char *)v);
		}
		xmlFree(v);
	}
	return r;
}

/*
 * Parses one document of kind @kind into *ret (untouched on failure).
 * @p resolves a policy's profile; NULL while loading profiles.
 */
/*
 * The host's rules for metadata a VM's owner wrote: the profile must say
 * tenant="yes", and every field given must be one grants.xml (or the
 * default) lets tenants set.  -EPERM with the reason in @d.
 */
static int
tenant_allows(const struct vp_profiles *p, const struct vp_policy *base,
    const char *profile, const struct vp_policy *pol, unsigned int seen,
    long line, struct diag *d)
{
	int i;

	if (!p->tenant[base - p->pol]) {
		diag_set(d, line, "profile '%s' is host-granted only: a VM's "
		    "own metadata may not select it", profile);
		return -EPERM;
	}
	for (i = 0; i < NFIELDS; i++)
		if ((seen & (1u << i)) && !(p->tenant_fields & (1u << i))) {
			diag_set(d, line, "field %s is not tenant-settable on "
			    "this host", fields[i]);
			return -EPERM;
		}
	if ((seen & (1u << field_index("smt"))) &&
	    pol->smt == VP_SMT_ISOLATE && base->smt != VP_SMT_ISOLATE &&
	    !(p->tenant_fields & TENANT_SMT_ISOLATE)) {
		diag_set(d, line, "smt=isolate is host-granted only");
		return -EPERM;
	}
	return 0;
}

static int
parse_doc(const struct vp_profiles *p, xmlRelaxNGPtr schema,
    const char *text, size_t len, const char *url, enum root_kind kind,
    struct vp_policy *ret, char *ret_profile, struct diag *d,
    struct authority *auth)
{
	const struct vp_policy *base = NULL;
	unsigned int seen = 0;
	char profile[VP_PROFILE_NAME_MAX] = "";
	const char *want = kind == ROOT_PROFILE ? "profile" :
	    kind == ROOT_POLICY ? "policy" : kind == ROOT_GRANTS ? "grants" :
	    "rules";
	struct vp_policy pol;
	struct quiet q;
	xmlDocPtr doc;
	xmlNodePtr root;
	xmlChar *prof;
	int r;

	if (len > XML_MAX_BYTES)
		return too_large(d);
	/*
	 * Only a DTD can declare entities; refusing it up front keeps a
	 * billion-laughs document from costing anything at all, whatever
	 * the libxml2 version's own amplification limits are.
	 */
	if (memmem(text, len, "<!DOCTYPE", 9))
		return diag_set(d, 0, "DTD not allowed");

	quiet_begin(&q, d);
	/* no XML_PARSE_NOENT: entities are never substituted */
	doc = xmlReadMemory(text, (int)len, url, NULL, XML_PARSE_NONET |
	    XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		quiet_end(&q);
		if (d->code == XML_ERR_NO_MEMORY)
			return -ENOMEM;
		if (!d->set)
			diag_set(d, 0, "cannot parse");
		d->wf = true;
		return -EINVAL;
	}
	root = xmlDocGetRootElement(doc);
	r = -EINVAL;
	if (doc->intSubset || doc->extSubset) {
		diag_set(d, 1, "DTD not allowed");
		goto out;
	}
	if (!root) {
		diag_set(d, 1, "no root element");
		goto out;
	}
	/*
	 * virDomainGetMetadata() hands back the element with its namespace
	 * stripped (libvirt 9.0: "<policy profile=...>"), having looked it
	 * up by our URI: an unqualified metadata root is ours.
	 */
	if (kind == ROOT_POLICY && !root->ns) {
		xmlNsPtr ns = xmlNewNs(root, BAD_CAST VP_POLICY_NS, NULL);

		if (!ns) {
			diag_set(d, xmlGetLineNo(root),
			    "root element %s: cannot set its namespace",
			    (const char *)root->name);
			goto out;
		}
		xmlSetNs(root, ns);
	}
	if (!in_vp_ns(root)) {
		diag_set(d, xmlGetLineNo(root),
		    "root element %.64s: wrong namespace '%.80s', want '%s'",
		    (const char *)root->name,
		    root->ns ? (const char *)root->ns->href : "",
		    VP_POLICY_NS);
		goto out;
	}
	if (strcmp((const char *)root->name, want)) {
		diag_set(d, xmlGetLineNo(root),
		    "root element is %.64s, want %s",
		    (const char *)root->name, want);
		goto out;
	}

	policy_default(&pol);
	if (kind == ROOT_POLICY) {
		xmlAttrPtr a;

		for (a = root->properties; a; a = a->next)
			if (a->ns || strcmp((const char *)a->name, "profile")) {
				diag_set(d, xmlGetLineNo(root),
				    "unexpected attribute '%.64s'",
				    (const char *)a->name);
				goto out;
			}
		prof = xmlGetNoNsProp(root, BAD_CAST "profile");
		if (!prof) {
			diag_set(d, xmlGetLineNo(root),
			    "missing attribute profile");
			goto out;
		}
		base = p ? profiles_get(p, (const char *)prof) : NULL;
		if (!base)
			diag_set(d, xmlGetLineNo(root),
			    "unknown profile '%.64s'", (const char *)prof);
		else	/* a known profile's name fits: profiles_load said so */
			snprintf(profile, sizeof(profile), "%s",
			    (const char *)prof);
		xmlFree(prof);
		if (!base)
			goto out;
		pol = *base;
	} else if (kind == ROOT_GRANTS || kind == ROOT_RULES) {
		r = validate(schema, doc, d);
		if (r == 0 && root->properties)
			r = diag_set(d, xmlGetLineNo(root), "unexpected "
			    "attribute '%.64s'",
			    (const char *)root->properties->name);
		if (r == 0)
			r = kind == ROOT_GRANTS ?
			    read_grants(root, auth->rules, d) :
			    read_rules(root, auth->rules, d);
		goto out;
	} else if (profile_attrs(root, auth, d) < 0) {
		goto out;
	}
	r = read_fields(root, kind == ROOT_PROFILE, &pol, d, &seen);
	if (r == 0)
		r = validate(schema, doc, d);
	if (r == 0 && auth && auth->check && kind == ROOT_POLICY &&
	    (r = tenant_allows(p, base, profile, &pol, seen,
	    xmlGetLineNo(root), d)) < 0)
		auth->refused = true;
	if (r == 0) {
		*ret = pol;
		if (ret_profile)
			memcpy(ret_profile, profile, sizeof(profile));
	}
out:
	quiet_end(&q);
	xmlFreeDoc(doc);
	return r;
}

/* Appends one line to @err, cutting it short rather than overflowing. */
static void __attribute__((format(printf, 3, 4)))
err_append(char *err, size_t errlen, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!err || errlen == 0)
		return;
	used = strnlen(err, errlen);
	if (used >= errlen - 1)
		return;
	if (used > 0) {
		err[used++] = '\n';
		err[used] = '\0';
	}
	va_start(ap, fmt);
	vsnprintf(err + used, errlen - used, fmt, ap);
	va_end(ap);
}

static void
err_diag(char *err, size_t errlen, const char *file, const struct diag *d)
{
	if (d->line > 0)
		err_append(err, errlen, "%s:%ld: %s", file, d->line, d->msg);
	else
		err_append(err, errlen, "%s: %s", file, d->msg);
}

/*
 * All of @path (read_whole_file()); a file past XML_MAX_BYTES is -EINVAL
 * in @d, in the words parse_doc() has for text that long.
 */
static int
read_text(const char *path, char **ret, size_t *ret_len, struct diag *d)
{
	int r = read_whole_file(path, XML_MAX_BYTES, ret, ret_len);

	return r == -EFBIG ? too_large(d) : r;
}

/* NAME.xml, not hidden: a profile, or a rules.d file */
static int
xml_file(const struct dirent *e)
{
	size_t len = strlen(e->d_name);

	return e->d_name[0] != '.' && len > 4 &&
	    !strcmp(e->d_name + len - 4, ".xml");
}

static int
profile_file(const struct dirent *e)
{
	return xml_file(e) && strcmp(e->d_name, GRANTS_FILE);
}

static int
load_schema(const char *dir, xmlRelaxNGPtr *ret, char *err, size_t errlen)
{
	xmlRelaxNGParserCtxtPtr pc;
	struct diag d = { .set = false };
	struct quiet q;
	char *path;
	FILE *f;

	if (asprintf(&path, "%s/%s", dir, SCHEMA_FILE) < 0)
		return -ENOMEM;
	f = fopen(path, "re");
	if (!f) {
		int r = -errno;

		err_append(err, errlen, "%s: %s", path, strerror(-r));
		free(path);
		return r == -ENOMEM ? r : -ENOENT;
	}
	fclose(f);
	quiet_begin(&q, &d);
	pc = xmlRelaxNGNewParserCtxt(path);
	if (pc) {
		xmlRelaxNGSetParserStructuredErrors(pc, capture, &d);
		*ret = xmlRelaxNGParse(pc);
		xmlRelaxNGFreeParserCtxt(pc);
	}
	quiet_end(&q);
	if (!pc) {
		free(path);
		return -ENOMEM;
	}
	if (!*ret) {
		if (!d.set)
			diag_set(&d, 0, "not a valid RelaxNG schema");
		err_diag(err, errlen, path, &d);
		free(path);
		return -EINVAL;
	}
	free(path);
	return 0;
}

/* Loads @dir/@file into profile slot p->n; -EINVAL is reported. */
static int
load_one(struct vp_profiles *p, const char *dir, const char *file,
    char *err, size_t errlen)
{
	struct diag d = { .set = false };
	struct authority auth = { .check = false };
	size_t nlen = strlen(file) - 4, len = 0;
	struct vp_policy pol;
	char *path, *text = NULL;
	int r;

	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return -ENOMEM;
	if (!name_ok(file, nlen)) {
		err_append(err, errlen, "%s: profile name '%.*s' is not "
		    "[A-Za-z0-9][A-Za-z0-9_.-]* of at most %d characters",
		    path, (int)nlen, file, NAME_MAX_LEN);
		r = -EINVAL;
		goto out;
	}
	r = read_text(path, &text, &len, &d);
	if (r < 0) {
		if (d.set)
			err_diag(err, errlen, path, &d);
		else if (r != -ENOMEM)
			err_append(err, errlen, "%s: %s", path, strerror(-r));
		if (r != -ENOMEM)
			r = -EINVAL;
		goto out;
	}
	r = parse_doc(NULL, p->schema, text, len, path, ROOT_PROFILE, &pol,
	    NULL, &d, &auth);
	free(text);
	if (r == -EINVAL)
		err_diag(err, errlen, path, &d);
	if (r < 0)
		goto out;
	p->names[p->n] = strndup(file, nlen);
	if (!p->names[p->n]) {
		r = -ENOMEM;
		goto out;
	}
	p->tenant[p->n] = auth.tenant;
	p->pol[p->n++] = pol;
out:
	free(path);
	return r;
}

/*
 * One host file, @path: grants.xml (@kind ROOT_GRANTS) or a rules.d file
 * (ROOT_RULES).  It grants what no VM owner may ask for, so only root
 * (or the daemon's own user) may have written it.  @optional: a missing
 * file is no error.  -EINVAL is reported in @err as "FILE:LINE: ...".
 */
static int
load_host_file(struct vp_profiles *p, const char *path, enum root_kind kind,
    bool optional, char *err, size_t errlen)
{
	struct diag d = { .set = false };
	struct authority auth = { .rules = p };
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	int r;

	if (stat(path, &st) < 0) {
		r = errno == ENOENT && optional ? 0 : -errno;
		if (r < 0)
			err_append(err, errlen, "%s: %s", path, strerror(-r));
		return r == 0 || r == -ENOMEM ? r : -EINVAL;
	}
	if ((st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || !S_ISREG(st.st_mode)) {
		err_append(err, errlen, "%s: must be a file owned by root and "
		    "writable by its owner alone (uid %u, mode %04o): it "
		    "grants exclusive cores", path, (unsigned int)st.st_uid,
		    (unsigned int)(st.st_mode & 07777));
		return -EINVAL;
	}
	r = read_text(path, &text, &len, &d);
	if (r == 0)
		r = parse_doc(p, p->schema, text, len, path, kind, NULL, NULL,
		    &d, &auth);
	else if (r != -ENOMEM && !d.set) {
		err_append(err, errlen, "%s: %s", path, strerror(-r));
		r = -EINVAL;
	}
	free(text);
	if (r == -EINVAL && d.set)
		err_diag(err, errlen, path, &d);
	return r;
}

static int
load_grants(struct vp_profiles *p, const char *dir, char *err,
    size_t errlen)
{
	char *path;
	int r;

	if (asprintf(&path, "%s/" GRANTS_FILE, dir) < 0)
		return -ENOMEM;
	r = load_host_file(p, path, ROOT_GRANTS, true, err, errlen);
	free(path);
	return r;
}

/*
 * DIR/rules.d/NAME.xml, when there is such a folder: each file's rules
 * after grants.xml's and the files before it, in name order.  Keeps
 * going so every bad file is reported; -EINVAL if any was.
 */
static int
load_rules_dir(struct vp_profiles *p, const char *dir, char *err,
    size_t errlen)
{
	struct dirent **ents = NULL;
	char *rdir, *path;
	int nents, i, r = 0, bad = 0;

	if (asprintf(&rdir, "%s/" RULES_DIR, dir) < 0)
		return -ENOMEM;
	nents = scandir(rdir, &ents, xml_file, alphasort);
	if (nents < 0) {
		r = errno == ENOENT ? 0 : -errno;
		if (r < 0 && r != -ENOMEM) {
			err_append(err, errlen, "%s: %s", rdir, strerror(-r));
			r = -EINVAL;
		}
		free(rdir);
		return r;
	}
	for (i = 0; i < nents && r != -ENOMEM; i++) {
		if (asprintf(&path, "%s/%s", rdir, ents[i]->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		r = load_host_file(p, path, ROOT_RULES, false, err, errlen);
		bad += r < 0;
		free(path);
	}
	for (i = 0; i < nents; i++)
		free(ents[i]);
	free(ents);
	free(rdir);
	return r == -ENOMEM ? r : bad ? -EINVAL : 0;
}

int
profiles_load(const char *dir, struct vp_profiles **ret, char *err,
    size_t errlen)
{
	struct dirent **ents = NULL;
	struct vp_profiles *p;
	int nents = 0, i, r, bad = 0;

	if (err && errlen)
		err[0] = '\0';
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->tenant_fields = VP_TENANT_FIELDS_DEFAULT;
	budget_default(&p->budget);
	r = load_schema(dir, &p->schema, err, errlen);
	if (r < 0)
		goto fail;
	nents = scandir(dir, &ents, profile_file, alphasort);
	if (nents < 0) {
		r = -errno;
		err_append(err, errlen, "%s: %s", dir, strerror(-r));
		if (r != -ENOMEM)
			r = -ENOENT;
		nents = 0;
		goto fail;
	}
	p->names = calloc(nents + 1, sizeof(*p->names));
	p->pol = calloc(nents + 1, sizeof(*p->pol));
	p->tenant = calloc(nents + 1, sizeof(*p->tenant));
	if (!p->names || !p->pol || !p->tenant) {
		r = -ENOMEM;
		goto fail;
	}
	/* keep going: one run reports every bad file */
	for (i = 0; i < nents; i++) {
		r = load_one(p, dir, ents[i]->d_name, err, errlen);
		if (r == -ENOMEM)
			goto fail;
		if (r < 0)
			bad++;
	}
	if (!bad && !profiles_get(p, DEFAULT_PROFILE)) {
		err_append(err, errlen, "%s/" DEFAULT_PROFILE ".xml: missing "
		    "(the host default profile)", dir);
		bad++;
	}
	/* the host's rules need the profiles their grants name */
	if (!bad && (r = load_grants(p, dir, err, errlen)) < 0) {
		if (r == -ENOMEM)
			goto fail;
		bad++;
	}
	/* rules.d's come after grants.xml's: all of them, or none */
	if (!bad && (r = load_rules_dir(p, dir, err, errlen)) < 0) {
		if (r == -ENOMEM)
			goto fail;
		bad++;
	}
	r = bad ? -EINVAL : 0;
	if (r < 0)
		goto fail;
	for (i = 0; i < nents; i++)
		free(ents[i]);
	free(ents);
	*ret = p;
	return 0;
fail:
	for (i = 0; i < nents; i++)
		free(ents[i]);
	free(ents);
	profiles_free(p);
	return r;
}

void
profiles_free(struct vp_profiles *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; p->names && i < p->n; i++)
		free(p->names[i]);
	free(p->names);
	free(p->pol);
	free(p->tenant);
	free(p->grant);
	free(p->rule);
	if (p->schema)
		xmlRelaxNGFree(p->schema);
	free(p);
}

const struct vp_policy *
profiles_get(const struct vp_profiles *p, const char *name)
{
	int i;

	for (i = 0; p && name && i < p->n; i++)
		if (!strcmp(p->names[i], name))
			return &p->pol[i];
	return NULL;
}

const char *const *
profiles_names(const struct vp_profiles *p, int *ret_n)
{
	*ret_n = p->n;
	return (const char *const *)p->names;
}

static int
metadata_parse(const struct vp_profiles *p, const char *xml,
    struct vp_policy *ret, char ret_profile[VP_PROFILE_NAME_MAX], char *err,
    size_t errlen, struct authority *auth)
{
	struct diag d = { .set = false };
	size_t len;
	int r;

	if (err && errlen)
		err[0] = '\0';
	if (!p || !xml) {
		err_append(err, errlen, "no profiles or no metadata");
		return -EINVAL;
	}
	len = strnlen(xml, XML_MAX_BYTES + 1);
	r = parse_doc(p, p->schema, xml, len, "metadata", ROOT_POLICY, ret,
	    ret_profile, &d, auth);
	if (r == -EINVAL) {
		if (d.wf)
			err_append(err, errlen,
			    "not well-formed XML at line %ld: %s", d.line,
			    d.msg);
		else
			err_append(err, errlen, "%s", d.msg);
	}
	if (r == -EPERM)
		err_append(err, errlen, "%s", d.msg);
	return r;
}

int
policy_from_metadata(const struct vp_profiles *p, const char *xml,
    struct vp_policy *ret, char ret_profile[VP_PROFILE_NAME_MAX], char *err,
    size_t errlen)
{
	return metadata_parse(p, xml, ret, ret_profile, err, errlen, NULL);
}

int
policy_from_tenant(const struct vp_profiles *p, const char *xml,
    struct vp_policy *ret, char ret_profile[VP_PROFILE_NAME_MAX], char *err,
    size_t errlen)
{
	struct authority auth = { .check = true };

	return metadata_parse(p, xml, ret, ret_profile, err, errlen, &auth);
}

const struct vp_budget *
profiles_budget(const struct vp_profiles *p)
{
	return p ? &p->budget : NULL;
}

const struct vp_policy *
profiles_grant(const struct vp_profiles *p, const char *uuid,
    const char **ret_profile)
{
	int i;

	for (i = 0; p && uuid && i < p->ngrants; i++)
		if (!strcasecmp(p->grant[i].uuid, uuid)) {
			if (ret_profile)
				*ret_profile = p->grant[i].profile;
			return &p->grant[i].pol;
		}
	return NULL;
}

/* Whether rule @ru holds for @s. */
static bool
rule_matches(const struct rule *ru, const struct vp_rule_subject *s)
{
	const struct vp_nova *nv = s->nova;

	if (ru->domain[0] && (!s->name || fnmatch(ru->domain, s->name, 0)))
		return false;
	if (ru->vcpus_min && s->nvcpus < (int)ru->vcpus_min)
		return false;
	if (ru->vcpus_max && s->nvcpus > (int)ru->vcpus_max)
		return false;
	/* a Nova match never holds for a VM Nova did not describe */
	if (ru->flavor[0] && (!nv || !nv->flavor[0] ||
	    fnmatch(ru->flavor, nv->flavor, 0)))
		return false;
	if (ru->project[0] && (!nv || ((!nv->project[0] ||
	    strcmp(ru->project, nv->project)) && (!nv->project_uuid[0] ||
	    strcasecmp(ru->project, nv->project_uuid)))))
		return false;
	return true;
}

const struct vp_policy *
profiles_rule(const struct vp_profiles *p, const struct vp_rule_subject *s,
    const char **ret_profile, const char **ret_label)
{
	int i;

	for (i = 0; p && s && i < p->nrules; i++)
		if (rule_matches(&p->rule[i], s)) {
			if (ret_profile)
				*ret_profile = p->rule[i].profile;
			if (ret_label)
				*ret_label = p->rule[i].label;
			return &p->rule[i].pol;
		}
	return NULL;
}

bool
profiles_rules_read_nova(const struct vp_profiles *p)
{
	int i;

	for (i = 0; p && i < p->nrules; i++)
		if (p->rule[i].flavor[0] || p->rule[i].project[0])
			return true;
	return false;
}

int
profile_from_text(const struct vp_profiles *p, const char *text, size_t len,
    struct vp_policy *ret, char *err, size_t errlen)
{
	struct diag d = { .set = false };
	int r;

	if (err && errlen)
		err[0] = '\0';
	r = parse_doc(NULL, p->schema, text, len, "profile", ROOT_PROFILE, ret,
	    NULL, &d, NULL);
	if (r == -EINVAL)
		err_diag(err, errlen, "profile", &d);
	return r;
}

/* The canonical text of field @i of @pol. */
static const char *
field_value(const struct vp_policy *pol, int i)
{
	switch (i) {
	case 0: return policy_mode_name(pol->mode);
	case 1: return policy_smt_name(pol->smt);
	case 2: return policy_locality_name(pol->locality);
	case 3: return policy_priority_name(pol->priority);
	case 4: return pol->cache_hot ? "yes" : "no";
	case 5: return pol->core_sched ? "yes" : "no";
	default: return policy_emulator_name(pol->emulator);
	}
}

int
policy_to_metadata(const struct vp_profiles *p, const char *profile,
    char *const *overrides, int n, char **ret_xml, char *err, size_t errlen)
{
	struct vp_policy scratch, check;
	unsigned int given = 0;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int i, r;

	if (err && errlen)
		err[0] = '\0';
	if (!profile || !profiles_get(p, profile)) {
		err_append(err, errlen, "unknown profile '%.64s'",
		    profile ? profile : "");
		return -EINVAL;
	}
	policy_default(&scratch);
	for (i = 0; i < n; i++) {
		const char *eq = strchr(overrides[i], '=');
		char field[32];
		int k;

		if (!eq || eq == overrides[i] ||
		    (size_t)(eq - overrides[i]) >= sizeof(field)) {
			err_append(err, errlen, "override '%.64s': want "
			    "field=value", overrides[i]);
			return -EINVAL;
		}
		memcpy(field, overrides[i], eq - overrides[i]);
		field[eq - overrides[i]] = '\0';
		k = field_index(field);
		if (k < 0) {
			err_append(err, errlen, "unknown field '%s'", field);
			return -EINVAL;
		}
		if (given & (1u << k)) {
			err_append(err, errlen, "field %s given twice", field);
			return -EINVAL;
		}
		if (policy_set_field(&scratch, field, eq + 1) < 0) {
			err_append(err, errlen, "field %s: bad value '%.64s'",
			    field, eq + 1);
			return -EINVAL;
		}
		given |= 1u << k;
	}

	/*
	 * No namespace on the root: this is the text virDomainSetMetadata()
	 * takes (it declares xmlns:vp itself and refuses a text that
	 * already does) and virDomainGetMetadata() returns.  Values are
	 * written in their canonical spelling ("1" becomes "yes").
	 */
	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	fprintf(f, "<policy profile=\"%s\">", profile);
	for (i = 0; i < NFIELDS; i++)
		if (given & (1u << i))
			fprintf(f, "<%s>%s</%s>", fields[i],
			    field_value(&scratch, i), fields[i]);
	fputs("</policy>", f);
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	r = policy_from_metadata(p, buf, &check, NULL, err, errlen);
	if (r < 0) {
		free(buf);
		return r;
	}
	*ret_xml = buf;
	return 0;
}
