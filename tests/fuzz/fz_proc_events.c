/*
 * fz_proc_events.c - procev_parse() (daemon/host/procevents.c): a
 * netlink datagram from the kernel's proc connector.  The kernel is
 * trusted more than a file, but the parser walks lengths it is given
 * (nlmsg_len, cn_msg.len): a wrong one must never read past the buffer.
 *
 * Properties: never more events than room, every one a COMM or an EXIT,
 * a COMM's name NUL-ended within its 16 bytes, and never more events
 * stored than proc events seen.
 */
#include "host/procevents.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly @size bytes: ASan sees any read past it */
	uint8_t *buf = malloc(size ? size : 1);
	struct vp_procev ev[4];
	unsigned long seen = 0;
	int i, n;

	memcpy(buf, data, size);
	n = procev_parse(buf, size, ev, 4, &seen);
	FZ_CHECK(n >= 0 && n <= 4, "%d events", n);
	FZ_CHECK((unsigned long)n <= seen, "%d stored, %lu seen", n, seen);
	for (i = 0; i < n; i++) {
		FZ_CHECK(ev[i].kind == VP_PROCEV_COMM ||
		    ev[i].kind == VP_PROCEV_EXIT, "kind %d", ev[i].kind);
		FZ_CHECK(memchr(ev[i].comm, '\0', sizeof(ev[i].comm)) != NULL,
		    "name not ended");
	}
	free(buf);
	return 0;
}
