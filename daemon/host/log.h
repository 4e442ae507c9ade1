/*
 * log.h - the daemon's one log sink: stderr, which journald stamps and
 * keeps under systemd.  Only the service layer (daemon/vcpuplaced/)
 * logs, once per failure, where it acts on it; the core and the other
 * adapters return -errno instead (CONTRIBUTING.md rule 8).
 */
#ifndef VP_LOG_H
#define VP_LOG_H

#include <syslog.h>	/* LOG_ERR ... LOG_DEBUG */

/* Messages above @prio (a LOG_* level) are dropped; LOG_INFO at start. */
void log_set_level(int prio);
/* One line "vcpuplaced: LEVEL: message" to stderr. */
void log_msg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* VP_LOG_H */
