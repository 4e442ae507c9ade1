/*
 * isolation.h - the CPU isolation the kernel was booted with, read before
 * the daemon loads its sched_ext scheduler, because sched_ext refuses to
 * enable any BPF scheduler under isolcpus= domain isolation:
 *
 *   Linux 6.12 .. 6.19, scx_ops_enable() (later named scx_enable()): -EINVAL,
 *	"sched_ext: Not compatible with "isolcpus=" domain isolation", when
 *	housekeeping_cpumask(HK_TYPE_DOMAIN) differs from cpu_possible_mask
 *	(commit 9f391f94a173, in sched_ext since before its 6.12 merge).
 *	/sys/devices/system/cpu/isolated prints exactly that difference.
 *   Linux 7.0: HK_TYPE_DOMAIN takes cpuset isolated partitions too
 *	(commit 03ff73510169), so the same test refuses those as well, and
 *	the isolated file lists them;
 *   commit 6ae315d37924 (stable: 7.0+) tests housekeeping_enabled(
 *	HK_TYPE_DOMAIN_BOOT) instead: isolcpus= in the domain form alone.
 *
 * isolcpus= sets domain isolation when its flags name "domain" or when
 * it has no flags (kernel/sched/isolation.c); "nohz" and "managed_irq"
 * alone do not, nor does nohz_full=.
 *
 * Files are read under a root directory prefix (NULL: "/"), so tests
 * point it at a fake tree.  Nothing here logs (CONTRIBUTING.md rule 8);
 * each file's failure is kept as -errno beside the data.
 */
#ifndef VP_ISOLATION_H
#define VP_ISOLATION_H

#include <stdbool.h>

#include "core/vcpuplace.h"

/* Under the root, without a leading slash. */
#define ISOL_CMDLINE	"proc/cmdline"
#define ISOL_ISOLATED	"sys/devices/system/cpu/isolated"
#define ISOL_RELEASE	"proc/sys/kernel/osrelease"

/* A kernel command line's isolation parameters, as the kernel honours them. */
struct isol_cmdline {
	bool domain;		/* an isolcpus= with domain isolation */
	bool other;		/* an isolcpus= without it (nohz, managed_irq) */
	char isolcpus[128];	/* the last honoured isolcpus= value, "" none */
	char nohz_full[128];	/* the last nohz_full= value, "" none */
};

struct isol_info {
	int cmdline_err;	/* 0, or -errno reading ISOL_CMDLINE */
	int isolated_err;	/* 0, or -errno (-EINVAL: not a CPU list) */
	int release_err;	/* 0, or -errno (-EINVAL: no "M.m" in it) */
	struct isol_cmdline cmd;	/* valid when !cmdline_err */
	char isolated[128];	/* the isolated file's CPU list, "" none */
	int major, minor;	/* the kernel release, when !release_err */
};

/* What the kernel will do with a BPF scheduler, as far as this tells. */
enum isol_verdict {
	ISOL_NONE,		/* no domain isolation: not refused */
	ISOL_BOOT,		/* isolcpus= in the domain form: refused */
	ISOL_DOMAIN,		/* CPUs isolated on a kernel before 7.0, the
				 * command line unread or silent: refused */
	ISOL_PARTITION,		/* CPUs isolated on 7.0+ (or an unknown
				 * release) without isolcpus= domain: cpuset
				 * partitions, refused by 7.0 before
				 * 6ae315d37924 only; not refused up front */
	ISOL_UNKNOWN,		/* neither the command line nor the isolated
				 * file could be read */
	ISOL_VERDICT_COUNT
};

/*
 * Reads the three files under @root (NULL: "/") into *ret, each one's
 * failure in its *_err.  -ENAMETOOLONG for a root too long (nothing
 * read); else 0.
 */
int isol_read(const char *root, struct isol_info *ret) VP_MUST_CHECK;

/*
 * The parsers behind it, pure, for tests and fuzzing.  The command line
 * ends at " -- " (what follows is init's); quoted parameters are taken
 * whole; an isolcpus= the kernel would ignore (an illegal flag, no valid
 * CPU list) counts for nothing.  @cmdline is not changed.
 */
void isol_parse_cmdline(const char *cmdline, struct isol_cmdline *ret);
/* A kernel CPU list ("2-5,8", "0-7:2/4", "N"): 0, or -EINVAL. */
int isol_cpulist_check(const char *s) VP_MUST_CHECK;
/* "7.3.4+deb13-amd64" into 7 and 3: 0, or -EINVAL. */
int isol_parse_release(const char *s, int *ret_major, int *ret_minor)
	VP_MUST_CHECK;

/* The verdict from what was read: see enum isol_verdict. */
enum isol_verdict isol_judge(const struct isol_info *in);
/* "none", "isolcpus-domain", ...: status and the log. */
const char *isol_verdict_name(enum isol_verdict v);

#endif /* VP_ISOLATION_H */
