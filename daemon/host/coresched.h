/*
 * coresched.h - core-scheduling cookies (prctl PR_SCHED_CORE, Linux 5.14+
 * with CONFIG_SCHED_CORE): threads with different cookies never share a
 * core at the same time.  Seed 004 measured what that costs at high
 * load, so the policy asks for it (core_sched) and it is opt-in.
 */
#ifndef VP_CORESCHED_H
#define VP_CORESCHED_H

#include <stdbool.h>

/* Whether this kernel has core scheduling (EINVAL without it). */
bool coresched_supported(void);
/*
 * One new cookie for every thread of process @pid, so a VM's vCPUs may
 * share a core with each other but with no other VM.  0 or -errno.
 */
int coresched_give_cookie(int pid);

#endif /* VP_CORESCHED_H */
