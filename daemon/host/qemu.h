/*
 * qemu.h - what libvirt's QEMU driver leaves on the host for us to read:
 * the QEMU process of a VM and its vCPU threads.  Thread ids come from
 * QEMU's own thread names ("CPU 3/KVM", "CPU 3/TCG"), never from a guess
 * by position.
 */
#ifndef VP_QEMU_H
#define VP_QEMU_H

/*
 * QEMU's pid for the VM @name, from the pidfile libvirt keeps under
 * @run_dir (NULL: /run/libvirt/qemu, qemu:///system's).  0 when unknown
 * (another driver, a session URI, or QEMU gone).
 */
int qemu_pid(const char *run_dir, const char *name);

/*
 * The thread id of each vCPU 0..@nvcpus-1 of process @pid into
 * ret_tids[] (0 where no thread is named for it, QEMU_TID_AMBIGUOUS
 * where more than one is).  Returns how many vCPUs have exactly one
 * thread, or -errno when /proc/@pid/task cannot be read.
 */
int qemu_vcpu_tids(int pid, int nvcpus, int *ret_tids);

/*
 * Thread names are only a convention: anyone who may write the process's
 * /proc/PID/task/TID/comm can name another thread "CPU 0/TCG".  Two
 * threads named for one vCPU cannot be told apart, and guessing could
 * hand a thread that is not the vCPU to the scheduler's placement.
 */
#define QEMU_TID_AMBIGUOUS	(-1)

/*
 * The parsers behind them, pure, for tests and fuzzing (tests/fuzz/):
 * a pidfile's text (its pid, or 0 when it names none), and a thread's
 * comm ("CPU 3/KVM": 3; -1 for a thread that is not a vCPU's).
 */
int qemu_parse_pid(const char *text);
int qemu_vcpu_of_comm(const char *comm);

#endif /* VP_QEMU_H */
