/*
 * peer.h - who is at the other end of a UNIX socket: its uid, and the
 * person behind it.  One person may hold many uids (a subordinate uid
 * range, mapped into a user namespace, gives a group member thousands);
 * the audit login uid and the systemd user slice stay the same across
 * all of them and cannot be changed by that person.
 */
#ifndef VP_HOST_PEER_H
#define VP_HOST_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What vp_peer.person is, in the order it is looked for. */
enum vp_peer_kind {
	VP_PEER_LOGIN_UID,	/* /proc/PID/loginuid, set by pam_loginuid */
	VP_PEER_SLICE,		/* /proc/PID/cgroup: /user.slice/user-N.slice */
	VP_PEER_UID,		/* neither: the uid itself */
	VP_PEER_KIND_COUNT
};

struct vp_peer {
	uid_t uid;		/* SO_PEERCRED's */
	pid_t pid;		/* in the reader's pid namespace; 0: unknown */
	enum vp_peer_kind kind;
	uid_t person;		/* the login uid, the slice's uid, or uid */
	bool by_pidfd;		/* the process was held by SO_PEERPIDFD */
};

/*
 * The peer of connected socket @fd.  Where the kernel has SO_PEERPIDFD
 * the files are read from the process that pidfd holds, and trusted only
 * if it is still alive after they were read, so that a pid reused after
 * the client exited is not taken for it; elsewhere SO_PEERCRED's pid is
 * read as it is.  A peer whose files cannot be read (gone, another pid
 * namespace) is keyed by its uid.  0, or -errno when SO_PEERCRED fails.
 */
int peer_identify(int fd, struct vp_peer *ret);

/* The parsers peer_identify() uses, for the tests. */
/* /proc/PID/loginuid's text: 0, or -ENOENT unset (4294967295), -EINVAL. */
int peer_parse_loginuid(const char *text, uid_t *ret);
/*
 * /proc/PID/cgroup's text: the N of a path starting /user.slice/user-N.slice
 * on the cgroup v2 line (0::) or, failing that, v1's name=systemd line;
 * 0, or -ENOENT.  Only the top of the path counts: below user@N.service a
 * user may make cgroups of any name.
 */
int peer_parse_slice(const char *text, uid_t *ret);
/* A pidfd's fdinfo text: its "Pid:" (-1 once the process is gone). */
int peer_parse_fdinfo_pid(const char *text, pid_t *ret);
/* The one-word name of @kind, for metrics labels: "login_uid", ... */
const char *peer_kind_label(enum vp_peer_kind kind);
/* The person in words, for error lines: "login uid 1000",
 * "user-1000.slice", "uid 100007". */
void peer_person_words(enum vp_peer_kind kind, uid_t person, char *buf,
    size_t len);

#endif
