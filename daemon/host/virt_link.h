/*
 * virt_link.h - the libvirt adapter's own side of a connection
 * (host/virt.h): libvirt's handles, for virt.c and domain.c alone (and
 * the tests that drive libvirt's test driver).  The service and the CLI
 * include host/virt.h and host/domain.h, which name no libvirt type.
 */
#ifndef VP_VIRT_LINK_H
#define VP_VIRT_LINK_H

#include <libvirt/libvirt.h>

#include "host/virt.h"

/* libvirt's connection, borrowed; NULL when closed. */
virConnectPtr virt_conn(const struct vp_virt *v);

/*
 * The handle of the domain @uuid, borrowed (the connection keeps it
 * until the next listing or virt_close()): one listed or looked up
 * already, else looked up now.  NULL when there is no such domain or
 * no connection.
 */
virDomainPtr virt_domain(struct vp_virt *v, const unsigned char *uuid);

/*
 * Fills *ret from @dom: ret->err is 0, -ENOENT when the domain has gone
 * meanwhile, -ENAMETOOLONG (uuid filled) when its name does not fit
 * (host/virt.h).  domain.c's, called by virt_list_running().
 */
void domain_info(virDomainPtr dom, struct vp_dom_info *ret);

#endif /* VP_VIRT_LINK_H */
