/*
 * defaults.h - where vcpuplaced and vcpuplacectl look for things on a
 * host.  Each default is defined here and nowhere else; the install paths
 * come from the Makefile (vp_paths.h, rewritten when PREFIX, SYSCONFDIR
 * or RUNSTATEDIR change, so the binaries follow `make install`).
 */
#ifndef VP_DEFAULTS_H
#define VP_DEFAULTS_H

#include "vp_paths.h"

/* libvirt's system instance: where KVM hosts run their VMs */
#define VP_DEFAULT_URI		"qemu:///system"
/* the control socket; tmpfiles.d makes its folder (0750 root:vcpuplace) */
#define VP_DEFAULT_SOCKET	VP_RUNSTATEDIR "/vcpuplace/vcpuplaced.sock"
/* the shipped profiles and the RelaxNG schema, as `make install` puts them */
#define VP_DEFAULT_POLICY_DIR	VP_POLICY_DIR_INSTALLED
/* the group that may read the socket (sysusers.d) */
#define VP_SOCKET_GROUP		"vcpuplace"

#endif /* VP_DEFAULTS_H */
