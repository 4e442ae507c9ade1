/*
 * schedfeat.h - the scheduler's feature switches in debugfs, for the one
 * the kernel series (kvm-patches/0003) adds: SIS_CORE, the wake-up scan
 * of idle cores at core granule.  It is off by default; the daemon only
 * reads the file, the operator turns it on:
 *
 *	echo SIS_CORE > /sys/kernel/debug/sched/features
 *
 * The file is one line of names, "NO_" before those that are off.  It
 * is read and closed: nothing here stays open.  Failures are returned
 * as -errno; nothing here logs (CONTRIBUTING.md rule 8).
 */
#ifndef VP_SCHEDFEAT_H
#define VP_SCHEDFEAT_H

#include "core/vcpuplace.h"

/* debugfs' mount point; the file is <root>/sched/features */
#define SCHEDFEAT_ROOT	"/sys/kernel/debug"

enum vp_sis_core {
	VP_SIS_CORE_ABSENT,	/* no sched/features, or no SIS_CORE in it */
	VP_SIS_CORE_UNKNOWN,	/* sched/features unreadable (lockdown) */
	VP_SIS_CORE_OFF,	/* NO_SIS_CORE: the series, switched off */
	VP_SIS_CORE_ON,
};

/*
 * Reads <@root>/sched/features (@root NULL: SCHEDFEAT_ROOT) into
 * *ret_state: ABSENT when the file or debugfs is not there, else what
 * the text says.  -errno when it is there but cannot be read: -EPERM
 * under kernel lockdown (debugfs refuses every file that has a write
 * bit, even for reading), -ENAMETOOLONG for a root too long; *ret_state
 * is then untouched, and the caller says VP_SIS_CORE_UNKNOWN.
 */
int schedfeat_read(const char *root, enum vp_sis_core *ret_state)
	VP_MUST_CHECK;

/*
 * The parser behind it, pure, for tests and fuzzing (tests/fuzz/): the
 * whitespace-separated word SIS_CORE is ON, NO_SIS_CORE is OFF, else
 * ABSENT; never UNKNOWN.  @buf is NUL-ended and tokenized in place.
 */
enum vp_sis_core schedfeat_parse(char *buf);

/* "on", "off", "absent", "unknown": status, metrics and the log. */
const char *schedfeat_sis_core_name(enum vp_sis_core s);

#endif /* VP_SCHEDFEAT_H */
