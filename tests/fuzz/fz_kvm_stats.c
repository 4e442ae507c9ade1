/*
 * fz_kvm_stats.c - kvm_iface_stats_parse() (daemon/host/kvm_iface.c): a
 * vCPU's KVM binary stats file (header, descriptors, data), read whole
 * from debugfs; its offsets are the kernel's word, checked, never trusted.
 *
 * Properties: a rejection is -EBADMSG or -EOPNOTSUPP; an accepted layout
 * has its data block inside the file and every counter's 8 bytes inside
 * the data block, aligned; the optional halt_wakeup is absent or the same.
 */
#include <errno.h>

#include "host/kvm_iface.h"
#include "fuzz.h"

static void
check_off(uint32_t off, uint32_t data_len, const char *what)
{
	FZ_CHECK(off % 8 == 0 && (uint64_t)off + 8 <= data_len,
	    "%s at %u of a %u-byte block", what, off, data_len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vp_kvm_vcpu v;
	unsigned char *buf;
	int r;

	/* an exact-size copy, so ASan sees any read past the file's end */
	buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	memset(&v, 0, sizeof(v));
	r = kvm_iface_stats_parse(&v, buf, size);
	if (r < 0) {
		FZ_CHECK(r == -EBADMSG || r == -EOPNOTSUPP, "returned %d", r);
	} else {
		FZ_CHECK(r == 0, "returned %d", r);
		FZ_CHECK((uint64_t)v.data_off + v.data_len == size,
		    "data block %u+%u in a %zu-byte file", v.data_off,
		    v.data_len, size);
		check_off(v.off_home, v.data_len, "halt_wake_home");
		check_off(v.off_smt_busy, v.data_len, "halt_wake_smt_busy");
		check_off(v.off_migrated, v.data_len, "halt_wake_migrated");
		if (v.off_halt_wakeup != KVM_STATS_OFF_NONE)
			check_off(v.off_halt_wakeup, v.data_len,
			    "halt_wakeup");
	}
	free(buf);
	return 0;
}
