/* rename_thread PID TID NAME: makes thread TID of process PID call
 * prctl(PR_SET_NAME, NAME) itself, so the integration tests can give a
 * QEMU thread a name QEMU never wrote.
 *
 * Why this way: the kernel lets only a thread of the same process write
 * /proc/PID/task/TID/comm (EINVAL even for root), so the rename has to
 * run inside QEMU.  gdb's `call` did that, but it saves and restores
 * the whole XSAVE area, and gdb 13 fails there on CPUs with a large one
 * ("Couldn't write extended state status: Bad address").  A syscall
 * needs only the general registers: seize the thread, stop it, point it
 * at a `syscall` instruction in one of its own executable mappings with
 * the name written below its stack pointer, step once, then put back
 * the registers and the bytes, so that an interrupted syscall restarts
 * as it would after any ptrace stop.  x86-64 only, as the test hosts.
 *
 * Exit 0 when the thread's prctl returned 0; 1 with the reason otherwise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#if !defined(__x86_64__)
#error "rename_thread injects an x86-64 syscall"
#endif

#define SCRATCH_BELOW_SP 512	/* past the 128-byte red zone */
#define NAME_MAX_LEN 16		/* TASK_COMM_LEN, NUL included */

static int fail(const char *what)
{
	fprintf(stderr, "rename_thread: %s: %s\n", what, strerror(errno));
	return -1;
}

/* The address of the bytes 0f 05 (syscall) in an executable mapping of
 * @pid, read through the tracer's view of its memory (@mem). */
static unsigned long find_syscall_insn(pid_t pid, int mem)
{
	char path[64], line[512];
	unsigned long found = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	FILE *maps = fopen(path, "r");
	if (!maps)
		return 0;
	while (!found && fgets(line, sizeof(line), maps)) {
		unsigned long lo, hi;
		char perms[5];

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3 ||
		    perms[2] != 'x' || strstr(line, "[vsyscall]"))
			continue;
		unsigned char buf[65536];
		for (unsigned long at = lo; !found && at < hi;
		     at += sizeof(buf) - 1) {
			size_t want = hi - at < sizeof(buf) ? hi - at : sizeof(buf);
			ssize_t got = pread(mem, buf, want, (off_t)at);
			if (got < 2)
				break;
			for (ssize_t i = 0; i + 1 < got; i++)
				if (buf[i] == 0x0f && buf[i + 1] == 0x05) {
					found = at + (unsigned long)i;
					break;
				}
		}
	}
	fclose(maps);
	return found;
}

/* Waits for the stop @want_event (PTRACE_EVENT_STOP) or, with 0, for the
 * single step's SIGTRAP.  Signals that arrive first are suppressed and
 * kept in @held, to be sent again once the thread is let go. */
static int wait_stop(pid_t tid, int want_event, sigset_t *held)
{
	for (;;) {
		int st;

		if (waitpid(tid, &st, __WALL) < 0)
			return fail("waitpid");
		if (!WIFSTOPPED(st)) {
			errno = ESRCH;
			return fail("the thread ended");
		}
		int event = st >> 16, sig = WSTOPSIG(st);
		if (want_event && event == want_event)
			return 0;
		if (!want_event && !event && sig == SIGTRAP)
			return 0;
		if (!event && sig != SIGTRAP)
			sigaddset(held, sig);
		if (ptrace(want_event ? PTRACE_CONT : PTRACE_SINGLESTEP, tid,
			   NULL, NULL) < 0)
			return fail("resume past a signal");
	}
}

static int rename_in(pid_t pid, pid_t tid, const char *name, sigset_t *held)
{
	char path[64];
	struct user_regs_struct saved, call;
	unsigned char old[NAME_MAX_LEN];
	size_t len = strlen(name) + 1;
	int rc = -1;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	int mem = open(path, O_RDWR | O_CLOEXEC);
	if (mem < 0)
		return fail(path);
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0 ||
	    wait_stop(tid, PTRACE_EVENT_STOP, held) < 0)
		goto out;
	if (ptrace(PTRACE_GETREGS, tid, NULL, &saved) < 0) {
		fail("PTRACE_GETREGS");
		goto out;
	}
	unsigned long insn = find_syscall_insn(pid, mem);
	unsigned long at = (saved.rsp - SCRATCH_BELOW_SP) & ~15UL;
	if (!insn) {
		errno = ENOENT;
		fail("no syscall instruction in an executable mapping");
		goto out;
	}
	if (pread(mem, old, len, (off_t)at) != (ssize_t)len ||
	    pwrite(mem, name, len, (off_t)at) != (ssize_t)len) {
		fail("the name below the stack pointer");
		goto out;
	}
	call = saved;
	call.rip = insn;
	call.rax = SYS_prctl;
	call.orig_rax = (unsigned long)-1;	/* no restart of what it was in */
	call.rdi = PR_SET_NAME;
	call.rsi = at;
	if (ptrace(PTRACE_SETREGS, tid, NULL, &call) < 0 ||
	    ptrace(PTRACE_SINGLESTEP, tid, NULL, NULL) < 0 ||
	    wait_stop(tid, 0, held) < 0 ||
	    ptrace(PTRACE_GETREGS, tid, NULL, &call) < 0) {
		fail("the injected prctl");
		goto restore;
	}
	if (call.rip != insn + 2) {
		errno = EFAULT;
		fail("the step did not run the syscall instruction");
	} else if ((long)call.rax != 0) {
		errno = (int)-(long)call.rax;
		fail("prctl(PR_SET_NAME) in the thread");
	} else {
		rc = 0;
	}
restore:
	if (pwrite(mem, old, len, (off_t)at) != (ssize_t)len ||
	    ptrace(PTRACE_SETREGS, tid, NULL, &saved) < 0)
		rc = fail("restoring the thread");
out:
	close(mem);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 4 || strlen(argv[3]) >= NAME_MAX_LEN) {
		fprintf(stderr, "usage: rename_thread PID TID NAME "
			"(NAME under %d bytes)\n", NAME_MAX_LEN);
		return 2;
	}
	pid_t pid = atoi(argv[1]), tid = atoi(argv[2]);
	sigset_t held;

	char task[64];

	snprintf(task, sizeof(task), "/proc/%d/task/%d", pid, tid);
	if (access(task, F_OK) < 0) {
		fail(task);
		return 1;
	}
	sigemptyset(&held);
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) {
		fail("PTRACE_SEIZE");
		return 1;
	}
	int rc = rename_in(pid, tid, argv[3], &held);
	if (ptrace(PTRACE_DETACH, tid, NULL, NULL) < 0)
		rc = fail("PTRACE_DETACH");
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&held, sig))
			syscall(SYS_tgkill, pid, tid, sig);
	return rc ? 1 : 0;
}
