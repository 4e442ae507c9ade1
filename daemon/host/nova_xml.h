/*
 * nova_xml.h - what OpenStack Nova records of an instance in its own
 * libvirt metadata element, <nova:instance> (namespace NOVA_NS_1_1, or
 * the older NOVA_NS_1_0), for the host's rules (policy_xml.h,
 * profiles_rule()): the flavor's name and vCPUs, the owning project.
 *
 * Pure: parses text, never logs.  domain_nova_read() (host/domain.h)
 * fetches the element from libvirt.  Nova writes it, not the tenant, so
 * it is as trusted as Nova; it is still bounded and parsed with no
 * network and no entity substitution.
 */
#ifndef VP_NOVA_XML_H
#define VP_NOVA_XML_H

#include <stddef.h>

#define NOVA_NS_1_1	"http://openstack.org/xmlns/libvirt/nova/1.1"
#define NOVA_NS_1_0	"http://openstack.org/xmlns/libvirt/nova/1.0"

struct vp_nova {
	char flavor[256];	/* <nova:flavor name=>, "" unknown */
	char project[256];	/* <nova:owner><nova:project>'s text */
	char project_uuid[64];	/* ... its uuid= */
	int vcpus;		/* <nova:flavor><nova:vcpus>, 0 unknown */
};

/*
 * Parses the text @xml (@len bytes) of a <nova:instance> element, as
 * virDomainGetMetadata() returns it (its namespace may be stripped).
 * 0 with *ret filled (what Nova left out is "" or 0), -EINVAL when it is
 * not well-formed, not an <instance> root, holds a DTD, is over 64 KiB,
 * or a value does not fit; *ret untouched then.
 */
int nova_parse(const char *xml, size_t len, struct vp_nova *ret)
	__attribute__((warn_unused_result));

#endif /* VP_NOVA_XML_H */
