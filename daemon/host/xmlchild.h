/*
 * xmlchild.h - the one tree step the domain-XML readers (cputune.c,
 * nova_xml.c) share: an element's first element child of a given local
 * name, whatever its namespace (libvirt may strip or keep it).
 */
#ifndef VP_XMLCHILD_H
#define VP_XMLCHILD_H

#include <string.h>

#include <libxml/tree.h>

/* The first element child of @parent (may be NULL) named @name, or NULL. */
static inline xmlNodePtr
xml_child(xmlNodePtr parent, const char *name)
{
	xmlNodePtr c;

	for (c = parent ? parent->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE &&
		    !strcmp((const char *)c->name, name))
			return c;
	return NULL;
}

#endif /* VP_XMLCHILD_H */
