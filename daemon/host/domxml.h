/*
 * domxml.h - a libvirt domain XML document, as `virsh dumpxml` writes it
 * or a VM manager (Nova, KubeVirt's virt-launcher) defines it, read for
 * what choosing its policy needs: name, UUID, vCPU count, and the text
 * of vcpuplace's and Nova's <metadata> elements.  `vcpuplacectl plan
 * --domains` reads a folder of them; choose_policy() (host/choose.h)
 * then chooses as the daemon does from libvirt.
 *
 * Parsed once with libxml2: no DTD, no network, bounded size.  Never
 * logs.
 */
#ifndef VP_DOMXML_H
#define VP_DOMXML_H

#include <stddef.h>

#include "core/vcpuplace.h"
#include "host/choose.h"

/* At most this much XML per domain: libvirt's own XML stays far below. */
#define DOMXML_MAX_BYTES	(1 << 20)

struct vp_domxml {
	char name[256];
	char uuid[40];		/* lower-case; "" when the XML has none
				 * (virt-launcher leaves it to libvirt) */
	int nvcpus;		/* <vcpu current=>, else <vcpu>'s count */
	char *policy;		/* vcpuplace's element, NULL: none (owned) */
	char *nova;		/* Nova's <instance>, NULL: none (owned) */
};

/*
 * Parses @text (@len bytes; @url names it in errors) into *ret: 0, or
 * -EINVAL with "LINE: reason" in @err (not well-formed, no <domain>
 * root, no name, a vCPU count outside 1..VP_MAX_PUS), -ENOMEM.  *ret is
 * untouched on failure; free its strings with domxml_release().
 */
int domxml_parse(const char *text, size_t len, const char *url,
    struct vp_domxml *ret, char *err, size_t errlen) VP_MUST_CHECK;
/* Frees what domxml_parse() allocated in @x (not @x); accepts NULL. */
void domxml_release(struct vp_domxml *x);

/*
 * The VM @x as choose_policy() takes it: readers that hand out copies of
 * @x's elements.  @x is borrowed and must outlive *ret.
 */
void domxml_choose_vm(const struct vp_domxml *x, struct vp_choose_vm *ret);

#endif /* VP_DOMXML_H */
