/*
 * fz_qemu_pidfile.c - qemu_parse_pid() (daemon/host/qemu.c): the text of
 * the pidfile libvirt keeps for a VM's QEMU.
 *
 * Properties: the result is 0 (none) or the pid the text spells: never a
 * wrapped value that would name another process (pid 1).
 */
#include "host/qemu.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size), *p = text;
	long long want;
	int pid;

	pid = qemu_parse_pid(text);
	FZ_CHECK(pid >= 0, "pid %d", pid);
	if (pid > 0) {
		p += strspn(p, " \t\n\v\f\r");
		want = strtoll(p, NULL, 10);
		FZ_CHECK(want == pid, "pid %d, the text says %lld", pid, want);
	}
	free(text);
	return 0;
}
