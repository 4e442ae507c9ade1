/*
 * guest_topo.h - the boot tests' topology: the guest's own, read from
 * sysfs (hwloc is not in the static initramfs), as the placement core's
 * model.
 */
#ifndef GUEST_TOPO_H
#define GUEST_TOPO_H

#include "core/vcpuplace.h"

/* The online CPUs' model; -errno.  Free with topo_free(). */
int guest_topo_load(struct vp_topo **ret_topo);

#endif /* GUEST_TOPO_H */
