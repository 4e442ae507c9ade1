/*
 * guest_kvm.c - see guest_kvm.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

#include "guest_kvm.h"
#include "guest_util.h"

void
guest_kvm_vm(struct guest_kvm *g)
{
	struct kvm_userspace_memory_region mem = { 0 };

	g->kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (g->kvm < 0)
		fail("open /dev/kvm: %s", strerror(errno));
	g->vm = ioctl(g->kvm, KVM_CREATE_VM, 0);
	if (g->vm < 0)
		fail("KVM_CREATE_VM: %s", strerror(errno));
	ioctl(g->vm, KVM_SET_TSS_ADDR, 0xfffbd000);	/* Intel wants one */
	if (ioctl(g->vm, KVM_CREATE_IRQCHIP, 0))
		fail("KVM_CREATE_IRQCHIP: %s", strerror(errno));
	g->ram = mmap(NULL, GUEST_KVM_MEM, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->ram == MAP_FAILED)
		fail("mmap");
	mem.memory_size = GUEST_KVM_MEM;
	mem.userspace_addr = (uintptr_t)g->ram;
	if (ioctl(g->vm, KVM_SET_USER_MEMORY_REGION, &mem))
		fail("KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
	g->run_size = ioctl(g->kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (g->run_size <= 0)
		fail("KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
}

int
guest_kvm_vcpu(const struct guest_kvm *g, int id, uint16_t ip,
    struct kvm_run **run)
{
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };
	struct kvm_lapic_state lapic;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	int fd = ioctl(g->vm, KVM_CREATE_VCPU, id);

	if (fd < 0)
		fail("KVM_CREATE_VCPU: %s", strerror(errno));
	*run = mmap(NULL, (size_t)g->run_size, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0);
	if (*run == MAP_FAILED)
		fail("mmap kvm_run");
	if (ioctl(fd, KVM_GET_SREGS, &sregs))
		fail("KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(fd, KVM_SET_SREGS, &sregs))
		fail("KVM_SET_SREGS");
	memset(&regs, 0, sizeof(regs));
	regs.rip = ip;
	regs.rflags = 2;
	if (ioctl(fd, KVM_SET_REGS, &regs))
		fail("KVM_SET_REGS");
	/* APs wait for a SIPI with an in-kernel LAPIC: run them all */
	if (ioctl(fd, KVM_SET_MP_STATE, &mp))
		fail("KVM_SET_MP_STATE: %s", strerror(errno));
	/* software-enable the LAPIC (SVR) so that it takes an MSI */
	if (ioctl(fd, KVM_GET_LAPIC, &lapic) == 0) {
		lapic.regs[0xf1] |= 1;
		lapic.regs[0xf0] = 0xff;
		ioctl(fd, KVM_SET_LAPIC, &lapic);
	}
	return fd;
}

int
guest_kvm_stats_fd(int fd)
{
	int sfd = ioctl(fd, KVM_GET_STATS_FD, NULL);

	if (sfd < 0)
		fail("KVM_GET_STATS_FD: %s", strerror(errno));
	return sfd;
}

void
guest_kvm_stats_add(int sfd, const char *const *names, int n, uint64_t *sum)
{
	struct kvm_stats_header h;
	size_t dsz;
	char *descs;
	int i, k;

	if (pread(sfd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		fail("reading the KVM stats header");
	dsz = sizeof(struct kvm_stats_desc) + h.name_size;
	descs = calloc(h.num_desc, dsz);
	if (!descs || pread(sfd, descs, dsz * h.num_desc, h.desc_offset) !=
	    (ssize_t)(dsz * h.num_desc))
		fail("reading the KVM stats descriptors");
	for (i = 0; i < (int)h.num_desc; i++) {
		const struct kvm_stats_desc *d =
		    (const void *)(descs + (size_t)i * dsz);
		uint64_t v;

		for (k = 0; k < n; k++) {
			if (strcmp(d->name, names[k]))
				continue;
			if (pread(sfd, &v, sizeof(v), h.data_offset +
			    d->offset) != (ssize_t)sizeof(v))
				fail("reading KVM stat %s", d->name);
			sum[k] += v;
		}
	}
	free(descs);
}

int
guest_kernel_has_symbol(const char *name)
{
	char line[256], want[128];
	FILE *f = fopen("/proc/kallsyms", "r");
	int found = 0;

	if (!f)
		fail("open /proc/kallsyms: %s", strerror(errno));
	snprintf(want, sizeof(want), " %s\n", name);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, want) != NULL;
	fclose(f);
	return found;
}

bool
guest_thread_blocked(int tid)
{
	char path[64], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/wchan", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, "0") != 0;
}

void
guest_kvm_nmi(int vm, int apic_id)
{
	struct kvm_msi msi = {
		/* destination APIC ID in bits 19:12; NMI delivery mode */
		.address_lo = 0xfee00000u | (unsigned int)apic_id << 12,
		.data = 4 << 8,
	};

	if (ioctl(vm, KVM_SIGNAL_MSI, &msi) < 0)
		fail("KVM_SIGNAL_MSI: %s", strerror(errno));
}

const char *const guest_kvm_halt_names[GUEST_KVM_NHALT] = {
	"halt_poll_success_ns", "halt_poll_fail_ns", "halt_wait_ns",
};

void
guest_kvm_halt_add(int sfd, uint64_t sum[GUEST_KVM_NHALT])
{
	guest_kvm_stats_add(sfd, guest_kvm_halt_names, GUEST_KVM_NHALT, sum);
}

#define HALT_CODE_ADDR	0x1000
#define HALT_NMI_ADDR	0x2000

uint16_t
guest_kvm_halt_code(const struct guest_kvm *g)
{
	memcpy(g->ram + HALT_CODE_ADDR, "\xf4\xe6\x10\xeb\xfb", 5);
	g->ram[HALT_NMI_ADDR] = 0xcf;
	g->ram[8] = HALT_NMI_ADDR & 0xff;	/* real-mode IVT entry 2 */
	g->ram[9] = HALT_NMI_ADDR >> 8;
	return HALT_CODE_ADDR;
}

void
guest_kvm_run_to_wake(int fd, const struct kvm_run *run)
{
	for (;;) {
		int r = ioctl(fd, KVM_RUN, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			fail("KVM_RUN: %s", strerror(errno));
		if (run->exit_reason != KVM_EXIT_IO ||
		    run->io.port != GUEST_KVM_PORT_WAKE)
			fail("unexpected KVM exit %u", run->exit_reason);
		return;
	}
}
