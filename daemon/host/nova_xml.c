/*
 * nova_xml.c - Nova's <nova:instance> metadata element into struct
 * vp_nova, with libxml2.  Elements are matched by local name: libvirt
 * hands the element back with or without its namespace, and Nova's 1.0
 * and 1.1 namespaces name the same elements.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "host/nova_xml.h"
#include "host/xmlchild.h"

#define NOVA_MAX_BYTES	(64 * 1024)

/* Copies @v (may be NULL: "") into @buf[@len]; -EINVAL if it is cut. */
static int
copy_value(xmlChar *v, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s", v ? (const char *)v : "");

	xmlFree(v);
	return n < 0 || (size_t)n >= len ? -EINVAL : 0;
}

/* <nova:vcpus>'s count: at most 7 digits, so sscanf cannot overflow. */
static int
read_vcpus(xmlNodePtr flavor, int *ret)
{
	xmlNodePtr n = xml_child(flavor, "vcpus");
	char text[8];
	int used = 0;

	*ret = 0;
	if (!n)
		return 0;
	if (copy_value(xmlNodeGetContent(n), text, sizeof(text)) < 0 ||
	    sscanf(text, "%d%n", ret, &used) != 1 || text[used] || *ret < 0)
		return -EINVAL;
	return 0;
}

int
nova_parse(const char *xml, size_t len, struct vp_nova *ret)
{
	struct vp_nova nv;
	xmlNodePtr root, flavor, project;
	xmlDocPtr doc;
	int r;

	if (len > NOVA_MAX_BYTES || memmem(xml, len, "<!DOCTYPE", 9))
		return -EINVAL;
	memset(&nv, 0, sizeof(nv));
	/* no XML_PARSE_NOENT: entities are never substituted */
	doc = xmlReadMemory(xml, (int)len, "nova.xml", NULL, XML_PARSE_NONET |
	    XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc)
		return -EINVAL;
	root = xmlDocGetRootElement(doc);
	if (!root || strcmp((const char *)root->name, "instance") ||
	    (root->ns && strcmp((const char *)root->ns->href, NOVA_NS_1_1) &&
	    strcmp((const char *)root->ns->href, NOVA_NS_1_0))) {
		xmlFreeDoc(doc);
		return -EINVAL;
	}
	flavor = xml_child(root, "flavor");
	project = xml_child(xml_child(root, "owner"), "project");
	r = copy_value(flavor ? xmlGetNoNsProp(flavor, BAD_CAST "name") : NULL,
	    nv.flavor, sizeof(nv.flavor));
	if (r == 0)
		r = copy_value(project ? xmlNodeGetContent(project) : NULL,
		    nv.project, sizeof(nv.project));
	if (r == 0)
		r = copy_value(project ? xmlGetNoNsProp(project,
		    BAD_CAST "uuid") : NULL, nv.project_uuid,
		    sizeof(nv.project_uuid));
	if (r == 0)
		r = read_vcpus(flavor, &nv.vcpus);
	xmlFreeDoc(doc);
	if (r == 0)
		*ret = nv;
	return r;
}
