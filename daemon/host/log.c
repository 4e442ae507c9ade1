/*
 * log.c - one line per message on stderr.  systemd's journal adds the
 * time, the unit and the priority (SyslogLevelPrefix is not used: the
 * level is spelt out so a foreground run reads the same).
 */
#include <stdarg.h>
#include <stdio.h>

#include "host/log.h"

/* the one mutable global besides the signal flags (STYLE.md rule 3) */
static int log_level = LOG_INFO;

void
log_set_level(int prio)
{
	log_level = prio;
}

void
log_msg(int prio, const char *fmt, ...)
{
	static const char *const names[] = {
		"emerg", "alert", "crit", "error", "warning", "notice", "info",
		"debug",
	};
	va_list ap;

	if (prio > log_level)
		return;
	fprintf(stderr, "vcpuplaced: %s: ", names[prio & 7]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
