/* coresched.c - see coresched.h. */
#include <errno.h>
#include <sys/prctl.h>

#include "host/coresched.h"

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE		62
#define PR_SCHED_CORE_GET	0
#define PR_SCHED_CORE_CREATE	1
#endif
#define PIDTYPE_TGID		1

bool
coresched_supported(void)
{
	unsigned long cookie = 0;

	return prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0, PIDTYPE_TGID,
	    &cookie) == 0;
}

int
coresched_give_cookie(int pid)
{
	if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, pid, PIDTYPE_TGID,
	    0) < 0)
		return -errno;
	return 0;
}
