/*
 * fz_kvm_names.c - the names and small files of KVM's debugfs
 * (daemon/host/kvm_iface.c): a VM dir "<pid>-<fd>", a vCPU dir "vcpuN",
 * and vcpuN/pid, "<tid>\n".  Every input goes through all three.
 *
 * Properties: a rejection is -EINVAL with nothing set; an accepted name
 * is made of digits where the numbers are, and the numbers are what the
 * digits say, in range (pid >= 1, fd, N and tid >= 0).
 */
#include <errno.h>
#include <limits.h>

#include "host/kvm_iface.h"
#include "fuzz.h"

/* @s is digits up to @end (exclusive), and their value is @v. */
static void
check_digits(const char *s, const char *end, int v, const char *what)
{
	const char *p;

	FZ_CHECK(end > s, "%s: no digits", what);
	for (p = s; p < end; p++)
		FZ_CHECK(*p >= '0' && *p <= '9', "%s: '%c' in the number",
		    what, *p);
	FZ_CHECK(strtoll(s, NULL, 10) == v, "%s: %d for '%.*s'", what, v,
	    (int)(end - s), s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fz_cstr(data, size);
	int a = -7, b = -7, r;

	r = kvm_iface_parse_vm_dir_name(s, &a, &b);
	if (r) {
		FZ_CHECK(r == -EINVAL && a == -7 && b == -7, "returned %d", r);
	} else {
		char *dash = strchr(s, '-');

		FZ_CHECK(dash && a >= 1 && b >= 0, "pid %d fd %d", a, b);
		check_digits(s, dash, a, "vm dir pid");
		check_digits(dash + 1, s + strlen(s), b, "vm dir fd");
	}
	a = -7;
	r = kvm_iface_parse_vcpu_name(s, &a);
	if (r) {
		FZ_CHECK(r == -EINVAL && a == -7, "returned %d", r);
	} else {
		FZ_CHECK(!strncmp(s, "vcpu", 4) && a >= 0, "vcpu %d", a);
		check_digits(s + 4, s + strlen(s), a, "vcpu dir");
	}
	a = -7;
	r = kvm_iface_parse_tid(s, &a);
	if (r) {
		FZ_CHECK(r == -EINVAL && a == -7, "returned %d", r);
	} else {
		char *nl = strchr(s, '\n');

		FZ_CHECK(nl && a >= 0, "tid %d", a);
		check_digits(s, nl, a, "vcpuN/pid");
	}
	free(s);
	return 0;
}
