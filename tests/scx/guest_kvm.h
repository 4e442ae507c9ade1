/*
 * guest_kvm.h - the small KVM guests of the boot tests (scx_kvm,
 * scx_yield): a VM with an in-kernel LAPIC and 64 KiB of RAM at guest
 * address 0, vCPUs that start in real mode at a given address, and
 * KVM's binary statistics (KVM_GET_STATS_FD).  Every failure ends the
 * test (fail()).
 */
#ifndef GUEST_KVM_H
#define GUEST_KVM_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GUEST_KVM_MEM	0x10000

struct guest_kvm {
	int kvm;		/* /dev/kvm */
	int vm;
	uint8_t *ram;		/* GUEST_KVM_MEM bytes at guest address 0 */
	int run_size;		/* of each vCPU's struct kvm_run */
};

/* A VM with an in-kernel LAPIC (IPIs and KVM's APIC map) and its RAM. */
void guest_kvm_vm(struct guest_kvm *g);
/*
 * vCPU @id, runnable (an AP does not wait for a SIPI), in real mode at
 * @ip with its LAPIC software-enabled; its fd, and its kvm_run in *@run.
 */
int guest_kvm_vcpu(const struct guest_kvm *g, int id, uint16_t ip,
    struct kvm_run **run);
/*
 * vCPU @fd's statistics file (KVM_GET_STATS_FD), opened before the vCPU
 * first runs: the ioctl takes the vCPU's mutex, which KVM_RUN holds for
 * as long as the vCPU stays in the kernel (halted, or making hypercalls
 * KVM answers itself), while reading the file takes no lock.
 */
int guest_kvm_stats_fd(int fd);
/*
 * Adds the statistics of stats file @sfd named @names[0..n) to @sum[0..n): the stats
 * file's header, then its descriptors (each followed by a name of
 * header.name_size bytes), then the u64 data at each descriptor's offset
 * (Documentation/virt/kvm/api.rst, KVM_GET_STATS_FD).  A name the kernel
 * does not have adds nothing.
 */
void guest_kvm_stats_add(int sfd, const char *const *names, int n,
    uint64_t *sum);
/* KVM's halt figures (binary stats), in guest_kvm_halt_names order. */
enum { GUEST_KVM_HALT_POLL_OK, GUEST_KVM_HALT_POLL_FAIL, GUEST_KVM_HALT_WAIT,
	GUEST_KVM_NHALT };
extern const char *const guest_kvm_halt_names[GUEST_KVM_NHALT];
/* Adds stats file @sfd's halt figures to @sum (guest_kvm_stats_add()). */
void guest_kvm_halt_add(int sfd, uint64_t sum[GUEST_KVM_NHALT]);
/*
 * The halting guest of scx_kvm and scx_pollend, in @g's RAM: at the
 * returned address, "1: hlt; out GUEST_KVM_PORT_WAKE, al; jmp 1b" in
 * real mode, and an NMI handler (iret), so that each NMI wakes the vCPU
 * once and it exits to user space on the port write, then halts again.
 */
#define GUEST_KVM_PORT_WAKE	0x10
uint16_t guest_kvm_halt_code(const struct guest_kvm *g);
/*
 * Runs vCPU @fd until the guest writes GUEST_KVM_PORT_WAKE (an EINTR is
 * run again); any other exit fails the test.
 */
void guest_kvm_run_to_wake(int fd, const struct kvm_run *run);
/*
 * Whether thread @tid of this process is blocked and off its runqueue:
 * a halted vCPU's thread asleep in kvm_vcpu_halt(), whose next wake-up
 * goes through select_task_rq().  State S alone is not enough: a thread
 * preempted between set_current_state() and schedule() shows S while
 * still on_rq, and a wake-up then finds it runnable (ttwu_runnable())
 * and asks no scheduler.  Under single-threaded TCG a guest CPU can
 * stall in that window for longer than any sleep.  /proc/TID/wchan names
 * a function only when get_wchan() saw the thread blocked with !on_rq,
 * under its pi_lock (CONFIG_KALLSYMS), else "0".
 */
bool guest_thread_blocked(int tid);
/* An NMI to the vCPU of APIC ID @apic_id of VM @vm (KVM_SIGNAL_MSI). */
void guest_kvm_nmi(int vm, int apic_id);
/* Whether the running kernel has symbol @name (in vmlinux, not a
 * module): /proc/kallsyms. */
int guest_kernel_has_symbol(const char *name);

#endif /* GUEST_KVM_H */
