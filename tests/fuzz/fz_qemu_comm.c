/*
 * fz_qemu_comm.c - qemu_vcpu_of_comm() (daemon/host/qemu.c): a thread's
 * name from /proc/PID/task/TID/comm, "CPU 3/KVM" for QEMU's vCPU 3.  Any
 * thread of the QEMU process may be renamed by whoever runs in it.
 *
 * Properties: the result is -1 (not a vCPU thread) or the number the
 * name spells after "CPU ", exactly: never a wrapped value that would
 * take another vCPU's slot.
 */
#include "host/qemu.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *comm = fz_cstr(data, size), *end;
	long long want;
	int n;

	n = qemu_vcpu_of_comm(comm);
	FZ_CHECK(n >= -1, "vcpu %d", n);
	if (n >= 0) {
		FZ_CHECK(!strncmp(comm, "CPU ", 4) && comm[4] >= '0' &&
		    comm[4] <= '9', "vcpu %d from '%.20s'", n, comm);
		want = strtoll(comm + 4, &end, 10);
		FZ_CHECK(want == n && *end == '/', "vcpu %d, the name says "
		    "'%.24s'", n, comm);
	}
	free(comm);
	return 0;
}
