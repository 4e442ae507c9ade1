/*
 * procstat.h - fields of /proc/PID/task/TID/stat (proc(5)).
 *
 * A thread's comm may hold spaces and parentheses ("CPU 0/KVM"), so
 * fields are counted after the last ')'.  Field 22, the start time,
 * tells a thread from a later one that was given the same tid: the pair
 * (tid, start time) names one thread for the life of the boot.
 */
#ifndef VP_HOST_PROCSTAT_H
#define VP_HOST_PROCSTAT_H

#include <stdint.h>

#define PROCSTAT_START_TIME	22	/* clock ticks after boot */
#define PROCSTAT_PROCESSOR	39	/* the CPU it last ran on */

/* The start of field @field (1-based, as proc(5) numbers them, > 2) of
 * the stat line @buf, or NULL if the line is shorter. */
const char *procstat_field(const char *buf, int field);
/* Field @field of @buf as a number into *@ret: 0, or -EINVAL. */
int procstat_parse_u64(const char *buf, int field, uint64_t *ret);
/* /proc/@pid/task/@tid/stat's field @field: 0, or -errno (-ESRCH: gone). */
int procstat_read_u64(int pid, int tid, int field, uint64_t *ret);

#endif
