/*
 * cputune.c - see cputune.h.  libxml2, like policy_xml.c: the text is
 * libvirt's, but parsed with no network, no entity substitution, and no
 * messages of libxml2's own.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "host/cputune.h"
#include "host/xmlchild.h"

/* The elements of <cputune> that set a cpu.max quota. */
static const struct {
	const char *name;
	size_t off;
} quotas[] = {
	{ "quota", offsetof(struct vp_cputune, quota_us) },
	{ "global_quota", offsetof(struct vp_cputune, global_quota_us) },
	{ "emulator_quota", offsetof(struct vp_cputune, emulator_quota_us) },
	{ "iothread_quota", offsetof(struct vp_cputune, iothread_quota_us) },
	{ "period", offsetof(struct vp_cputune, period_us) },
};
#define NQUOTAS (sizeof(quotas) / sizeof(quotas[0]))

/* An element's integer text into *@ret: a negative one (-1) is no limit. */
static int
read_ll(xmlNodePtr n, long long *ret)
{
	xmlChar *text = xmlNodeGetContent(n);
	char *end;
	long long v;

	if (!text)
		return -ENOMEM;
	errno = 0;
	v = strtoll((const char *)text, &end, 10);
	if (errno || end == (char *)text || *end != '\0') {
		xmlFree(text);
		return -EINVAL;
	}
	xmlFree(text);
	*ret = v > 0 ? v : 0;
	return 0;
}

int
cputune_parse(const char *xml, size_t len, struct vp_cputune *ret)
{
	struct vp_cputune c;
	xmlDocPtr doc;
	xmlNodePtr root, tune, n;
	size_t i;
	int r = 0;

	if (len > INT_MAX)
		return -EINVAL;
	memset(&c, 0, sizeof(c));
	/* no XML_PARSE_NOENT: entities are never substituted */
	doc = xmlReadMemory(xml, (int)len, "domain.xml", NULL, XML_PARSE_NONET |
	    XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc)
		return -EINVAL;
	root = xmlDocGetRootElement(doc);
	if (!root || strcmp((const char *)root->name, "domain")) {
		xmlFreeDoc(doc);
		return -EINVAL;
	}
	tune = xml_child(root, "cputune");
	for (i = 0; tune && r == 0 && i < NQUOTAS; i++)
		if ((n = xml_child(tune, quotas[i].name)))
			r = read_ll(n, (long long *)((char *)&c +
			    quotas[i].off));
	xmlFreeDoc(doc);
	if (r == 0)
		*ret = c;
	return r;
}

bool
cputune_has_quota(const struct vp_cputune *c)
{
	return c->quota_us > 0 || c->global_quota_us > 0 ||
	    c->emulator_quota_us > 0 || c->iothread_quota_us > 0;
}

const char *
cputune_words(const struct vp_cputune *c, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < NQUOTAS; i++) {
		long long v = *(const long long *)((const char *)c +
		    quotas[i].off);

		if (v <= 0)
			continue;
		/* <period> is <quota>'s; the others have their own */
		if (i == 0 && c->period_us > 0)
			snprintf(buf, len, "<%s> %lld us per %lld us period",
			    quotas[i].name, v, c->period_us);
		else
			snprintf(buf, len, "<%s> %lld us per period",
			    quotas[i].name, v);
		return buf;
	}
	snprintf(buf, len, "no quota");
	return buf;
}
