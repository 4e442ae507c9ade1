/*
 * log.c - one line per message on stderr.  systemd's journal adds the
 * time, the unit and the priority (SyslogLevelPrefix is not used: the
 * level is spelt out so a foreground run reads the same).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "host/log.h"

/* the one mutable global besides the signal flags (CONTRIBUTING.md rule 3) */
static int log_level = LOG_INFO;

void
log_set_level(int prio)
{
	log_level = prio;
}

/*
 * One message, one line: a control byte in what a message quotes is
 * written as \xNN.  A VM name may hold a newline or a carriage return
 * (libvirt 9 starts a VM so named; XML keeps out the other control
 * bytes), and whoever may name a domain must not forge a line of ours.
 */
static void
put_escaped(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
}

void
log_msg(int prio, const char *fmt, ...)
{
	static const char *const names[] = {
		"emerg", "alert", "crit", "error", "warning", "notice", "info",
		"debug",
	};
	char *msg;
	va_list ap;
	int r;

	if (prio > log_level)
		return;
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "vcpuplaced: %s: ", names[prio & 7]);
	if (r < 0) {
		fputs("(out of memory for a message)\n", stderr);
		return;
	}
	put_escaped(msg);
	free(msg);
	fputc('\n', stderr);
}
