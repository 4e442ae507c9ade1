/*
 * scx_btf.h - sched_ext constants read from the running kernel's BTF
 * (/sys/kernel/btf/vmlinux), for the loader (scx_loader.c).  Only in the
 * build with the scheduler (daemon/scx/scx.mk): it needs libbpf.
 *
 * The BPF object reads its own constants by CO-RE (vp_scx/compat.bpf.h);
 * what the loader writes before load, the ops flags, it must read here:
 * a flag value taken from the vmlinux.h the object was built against
 * could be unknown to, or mean something else in, the running kernel,
 * which refuses unknown flags.
 */
#ifndef VP_SCX_BTF_H
#define VP_SCX_BTF_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The value of enumerator @name of enum @type (ENUM or ENUM64) in the
 * running kernel's BTF into @ret.  -ENOENT: the kernel has no such
 * enumerator; other negative errnos: no BTF.
 */
int scx_btf_enum_value(const char *type, const char *name, uint64_t *ret);

/*
 * 0 if struct @type of the running kernel's BTF has a member @member,
 * -ENOENT if not (or no such struct); other negative errnos: no BTF.
 */
int scx_btf_has_member(const char *type, const char *member);

/*
 * The ops flags the scheduler loads with, into @ret_flags: SCX_OPS_ENQ_LAST,
 * plus SCX_OPS_SWITCH_PARTIAL when @partial.  -EOPNOTSUPP when the kernel
 * lacks one of them (a kernel older than 6.12's sched_ext).
 */
int scx_btf_ops_flags(bool partial, uint64_t *ret_flags);

#endif
