/* scx_btf.c - see scx_btf.h.  Built with the scheduler only. */
#include <errno.h>
#include <string.h>

#include <bpf/btf.h>

#include "scx/scx_btf.h"

/* @name's value in enum type @t of @btf; -ENOENT if it has none. */
static int
enum_find(const struct btf *btf, const struct btf_type *t, const char *name,
    uint64_t *ret)
{
	unsigned int i, n = btf_vlen(t);

	for (i = 0; i < n; i++) {
		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t) + i;

			if (strcmp(btf__name_by_offset(btf, e->name_off),
			    name) == 0) {
				/* the kernel's flag enums are unsigned */
				*ret = (uint32_t)e->val;
				return 0;
			}
		} else {
			const struct btf_enum64 *e = btf_enum64(t) + i;

			if (strcmp(btf__name_by_offset(btf, e->name_off),
			    name) == 0) {
				*ret = btf_enum64_value(e);
				return 0;
			}
		}
	}
	return -ENOENT;
}

int
scx_btf_enum_value(const char *type, const char *name, uint64_t *ret)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	int id, err = -ENOENT;

	if (!btf)
		return errno ? -errno : -ENODATA;
	/* 6.12 dumps these enums as ENUM64 or ENUM, by their width */
	id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM64);
	if (id < 0)
		id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	if (id > 0) {
		t = btf__type_by_id(btf, id);
		err = t ? enum_find(btf, t, name, ret) : -ENOENT;
	}
	btf__free(btf);
	return err;
}

int
scx_btf_has_member(const char *type, const char *member)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_member *m;
	unsigned int i, n;
	int id, err = -ENOENT;

	if (!btf)
		return errno ? -errno : -ENODATA;
	id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	n = t ? btf_vlen(t) : 0;
	m = t ? btf_members(t) : NULL;
	for (i = 0; i < n; i++)
		if (strcmp(btf__name_by_offset(btf, m[i].name_off), member) == 0)
			err = 0;
	btf__free(btf);
	return err;
}

int
scx_btf_ops_flags(bool partial, uint64_t *ret_flags)
{
	uint64_t enq_last, sw_partial = 0;
	int err;

	err = scx_btf_enum_value("scx_ops_flags", "SCX_OPS_ENQ_LAST",
	    &enq_last);
	if (err == 0 && partial)
		err = scx_btf_enum_value("scx_ops_flags",
		    "SCX_OPS_SWITCH_PARTIAL", &sw_partial);
	if (err == -ENOENT)
		return -EOPNOTSUPP;
	if (err)
		return err;
	*ret_flags = enq_last | sw_partial;
	return 0;
}
