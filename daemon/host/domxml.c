/*
 * domxml.c - a domain XML document into struct vp_domxml, with libxml2.
 * The metadata elements are matched by namespace, as libvirt's
 * virDomainGetMetadata() matches them, and handed on as text so the
 * daemon's own parsers (policy_xml.c, nova_xml.c) read them as they read
 * what libvirt returns.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "host/domxml.h"
#include "host/nova_xml.h"
#include "host/policy_xml.h"
#include "host/xmlchild.h"

/* The element child of <metadata> in namespace @ns (@name: its local
 * name, or NULL for any), or NULL. */
static xmlNodePtr
meta_child(xmlNodePtr meta, const char *ns, const char *name)
{
	xmlNodePtr c;

	for (c = meta ? meta->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && c->ns && c->ns->href &&
		    !strcmp((const char *)c->ns->href, ns) &&
		    (!name || !strcmp((const char *)c->name, name)))
			return c;
	return NULL;
}

/*
 * @el as a document of its own, its namespace declared on it (copying
 * into a new document declares what an ancestor had): *ret malloc'd, or
 * NULL for no @el.  0 or -ENOMEM.
 */
static int
element_text(xmlNodePtr el, char **ret)
{
	xmlDocPtr doc;
	xmlNodePtr copy;
	xmlBufferPtr buf;
	int r = -ENOMEM;

	*ret = NULL;
	if (!el)
		return 0;
	doc = xmlNewDoc(BAD_CAST "1.0");
	buf = xmlBufferCreate();
	copy = doc ? xmlDocCopyNode(el, doc, 1) : NULL;
	if (copy && buf) {
		xmlDocSetRootElement(doc, copy);
		if (xmlNodeDump(buf, doc, copy, 0, 0) >= 0 &&
		    (*ret = strdup((const char *)xmlBufferContent(buf))))
			r = 0;
	} else if (copy) {
		xmlFreeNode(copy);
	}
	xmlBufferFree(buf);
	xmlFreeDoc(doc);
	return r;
}

/* <vcpu current='N'>M</vcpu>: N when given, else M; -EINVAL if neither
 * is a count in 1..VP_MAX_PUS. */
static int
read_vcpus(xmlNodePtr vcpu, int *ret)
{
	xmlChar *v = vcpu ? xmlGetNoNsProp(vcpu, BAD_CAST "current") : NULL;
	char *end;
	long n;

	if (vcpu && !v)
		v = xmlNodeGetContent(vcpu);
	if (!v)
		return -EINVAL;
	errno = 0;
	n = strtol((const char *)v, &end, 10);
	while (*end == ' ' || *end == '\n' || *end == '\t')
		end++;
	if (errno || end == (char *)v || *end || n < 1 || n > VP_MAX_PUS)
		n = -1;
	xmlFree(v);
	if (n < 0)
		return -EINVAL;
	*ret = (int)n;
	return 0;
}

/* A child element's text into @buf[@len]: -EINVAL if missing (@need)
 * or too long. */
static int
read_text(xmlNodePtr parent, const char *name, bool need, char *buf,
    size_t len)
{
	xmlNodePtr n = xml_child(parent, name);
	xmlChar *v = n ? xmlNodeGetContent(n) : NULL;
	int w;

	buf[0] = '\0';
	if (!v)
		return need ? -EINVAL : 0;
	w = snprintf(buf, len, "%s", (const char *)v);
	xmlFree(v);
	return w < 0 || (size_t)w >= len || (need && !buf[0]) ? -EINVAL : 0;
}

/* What choosing needs of the tree under <domain> @root, into *@x. */
static int
read_domain(xmlNodePtr root, struct vp_domxml *x, char *err, size_t errlen)
{
	xmlNodePtr meta = xml_child(root, "metadata"), vcpu;
	size_t i;
	int r;

	if (read_text(root, "name", true, x->name, sizeof(x->name)) < 0) {
		snprintf(err, errlen, "%ld: no <name>, or longer than %zu "
		    "bytes", xmlGetLineNo(root), sizeof(x->name) - 1);
		return -EINVAL;
	}
	if (read_text(root, "uuid", false, x->uuid, sizeof(x->uuid)) < 0) {
		snprintf(err, errlen, "%ld: <uuid> too long",
		    xmlGetLineNo(root));
		return -EINVAL;
	}
	for (i = 0; x->uuid[i]; i++)	/* grants.xml keys it lower-case */
		if (x->uuid[i] >= 'A' && x->uuid[i] <= 'F')
			x->uuid[i] += 'a' - 'A';
	vcpu = xml_child(root, "vcpu");
	if (read_vcpus(vcpu, &x->nvcpus) < 0) {
		snprintf(err, errlen, "%ld: <vcpu>: want a count of 1 to %d",
		    xmlGetLineNo(vcpu ? vcpu : root), VP_MAX_PUS);
		return -EINVAL;
	}
	r = element_text(meta_child(meta, VP_POLICY_NS, NULL), &x->policy);
	if (r == 0) {
		xmlNodePtr nv = meta_child(meta, NOVA_NS_1_1, "instance");

		r = element_text(nv ? nv : meta_child(meta, NOVA_NS_1_0,
		    "instance"), &x->nova);
	}
	return r;
}

int
domxml_parse(const char *text, size_t len, const char *url,
    struct vp_domxml *ret, char *err, size_t errlen)
{
	struct vp_domxml x = { .nvcpus = 0 };
	const xmlError *e;
	xmlDocPtr doc;
	xmlNodePtr root;
	int r = -EINVAL;

	if (len > DOMXML_MAX_BYTES || len > INT_MAX) {
		snprintf(err, errlen, "larger than %d KiB",
		    DOMXML_MAX_BYTES / 1024);
		return -EINVAL;
	}
	/* only a DTD can declare entities: none is read at all */
	if (memmem(text, len, "<!DOCTYPE", 9)) {
		snprintf(err, errlen, "DTD not allowed");
		return -EINVAL;
	}
	xmlResetLastError();
	doc = xmlReadMemory(text, (int)len, url, NULL, XML_PARSE_NONET |
	    XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		e = xmlGetLastError();
		snprintf(err, errlen, "%d: not well-formed: %.160s",
		    e ? e->line : 0, e && e->message ? e->message : "?");
		len = strlen(err);
		while (len && err[len - 1] == '\n')
			err[--len] = '\0';
		return -EINVAL;
	}
	root = xmlDocGetRootElement(doc);
	if (!root || strcmp((const char *)root->name, "domain"))
		snprintf(err, errlen, "%ld: the root is not <domain>",
		    root ? xmlGetLineNo(root) : 1L);
	else
		r = read_domain(root, &x, err, errlen);
	xmlFreeDoc(doc);
	if (r < 0) {
		domxml_release(&x);
		return r;
	}
	*ret = x;
	return 0;
}

void
domxml_release(struct vp_domxml *x)
{
	if (!x)
		return;
	free(x->policy);
	free(x->nova);
	x->policy = x->nova = NULL;
}

/* A copy of @text, or -ENODATA for none. */
static int
hand_out(const char *text, char **ret)
{
	if (!text)
		return -ENODATA;
	*ret = strdup(text);
	return *ret ? 0 : -ENOMEM;
}

static int
give_policy(void *ctx, char **ret_xml)
{
	const struct vp_domxml *x = ctx;

	return hand_out(x->policy, ret_xml);
}

static int
give_nova(void *ctx, char **ret_xml)
{
	const struct vp_domxml *x = ctx;

	return hand_out(x->nova, ret_xml);
}

void
domxml_choose_vm(const struct vp_domxml *x, struct vp_choose_vm *ret)
{
	*ret = (struct vp_choose_vm){
		.uuid = x->uuid, .name = x->name, .nvcpus = x->nvcpus,
		.rd = { .policy = give_policy, .nova = give_nova,
			.ctx = (void *)x },
	};
}
