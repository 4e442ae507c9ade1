/*
 * peer.c - the person behind a socket's peer (peer.h): SO_PEERCRED for
 * the uid, SO_PEERPIDFD to hold the process while its /proc files are
 * read, then its audit login uid or its systemd user slice.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/peer.h"
#include "host/smallfile.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD	77	/* Linux 6.5 */
#endif

/* A decimal uid that ends at @end's first character; 0 or -EINVAL. */
static int
parse_uid(const char *s, char **end, uid_t *ret)
{
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, end, 10);
	if (errno || v > UINT32_MAX)
		return -EINVAL;
	*ret = (uid_t)v;
	return 0;
}

int
peer_parse_loginuid(const char *text, uid_t *ret)
{
	char *end;
	uid_t v;

	if (parse_uid(text, &end, &v) < 0 || (*end && strcmp(end, "\n")))
		return -EINVAL;
	if (v == (uid_t)-1)
		return -ENOENT;
	*ret = v;
	return 0;
}

/* The uid of @path if it starts /user.slice/user-N.slice; -ENOENT. */
static int
slice_of(const char *path, uid_t *ret)
{
	static const char top[] = "/user.slice/user-";
	char *end;
	uid_t v;

	if (strncmp(path, top, sizeof(top) - 1) ||
	    parse_uid(path + sizeof(top) - 1, &end, &v) < 0 ||
	    strncmp(end, ".slice", 6) ||
	    (end[6] != '/' && end[6] != '\n' && end[6] != '\0'))
		return -ENOENT;
	*ret = v;
	return 0;
}

/* The line after @line's in its text, or NULL after the last. */
static const char *
next_line(const char *line)
{
	const char *nl = strchr(line, '\n');

	return nl && nl[1] ? nl + 1 : NULL;
}

int
peer_parse_slice(const char *text, uid_t *ret)
{
	const char *line, *v1 = NULL, *v2 = NULL;

	for (line = text; line && *line; line = next_line(line)) {
		size_t id = strcspn(line, ":\n");

		if (!strncmp(line, "0::", 3))
			v2 = line + 3;
		else if (line[id] == ':' &&
		    !strncmp(line + id + 1, "name=systemd:", 13))
			v1 = line + id + 14;	/* "ID:name=systemd:/path" */
	}
	if (v2 && slice_of(v2, ret) == 0)
		return 0;
	if (v1 && slice_of(v1, ret) == 0)
		return 0;
	return -ENOENT;
}

int
peer_parse_fdinfo_pid(const char *text, pid_t *ret)
{
	const char *line;
	char *end;
	long v;

	for (line = text; line && *line; line = next_line(line)) {
		if (strncmp(line, "Pid:", 4))
			continue;
		errno = 0;
		v = strtol(line + 4, &end, 10);
		if (errno || end == line + 4 || v < -1 || v > INT32_MAX ||
		    (*end && *end != '\n'))
			return -EINVAL;
		*ret = (pid_t)v;
		return 0;
	}
	return -ENOENT;
}

const char *
peer_kind_label(enum vp_peer_kind kind)
{
	switch (kind) {
	case VP_PEER_LOGIN_UID:
		return "login_uid";
	case VP_PEER_SLICE:
		return "slice";
	default:
		return "uid";
	}
}

void
peer_person_words(enum vp_peer_kind kind, uid_t person, char *buf,
    size_t len)
{
	if (kind == VP_PEER_LOGIN_UID)
		snprintf(buf, len, "login uid %lu", (unsigned long)person);
	else if (kind == VP_PEER_SLICE)
		snprintf(buf, len, "user-%lu.slice", (unsigned long)person);
	else
		snprintf(buf, len, "uid %ld", person == (uid_t)-1 ? -1L :
		    (long)person);
}

/* /proc/@pid/@file parsed by @parse into *@ret; false: none. */
static bool
read_field(pid_t pid, const char *file, int (*parse)(const char *, uid_t *),
    uid_t *ret)
{
	char path[64], buf[8192];

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, file);
	return read_small_file(path, buf, sizeof(buf)) > 0 &&
	    parse(buf, ret) == 0;
}

/* The person of process @pid from its files, into @ret; false: none. */
static bool
read_person(pid_t pid, struct vp_peer *ret)
{
	uid_t v;

	if (read_field(pid, "loginuid", peer_parse_loginuid, &v))
		ret->kind = VP_PEER_LOGIN_UID;
	else if (read_field(pid, "cgroup", peer_parse_slice, &v))
		ret->kind = VP_PEER_SLICE;
	else
		return false;
	ret->person = v;
	return true;
}

/*
 * The pid that @pidfd holds, its files read into @ret, and whether the
 * process was still alive after that: a signal 0 through the pidfd fails
 * with ESRCH once it has exited, whoever got its pid since.  EPERM (a
 * daemon that is not root asking of another user's process) says it is
 * alive too.
 */
static bool
read_by_pidfd(int pidfd, struct vp_peer *ret)
{
	char path[64], buf[1024];
	struct vp_peer p = *ret;
	pid_t pid;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if (read_small_file(path, buf, sizeof(buf)) <= 0 ||
	    peer_parse_fdinfo_pid(buf, &pid) < 0 || pid <= 0)
		return false;
	p.pid = pid;
	if (!read_person(pid, &p))
		return false;
	if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0 &&
	    errno != EPERM)
		return false;
	*ret = p;
	return true;
}

int
peer_identify(int fd, struct vp_peer *ret)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int pidfd;

	memset(ret, 0, sizeof(*ret));
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	ret->uid = cred.uid;
	ret->kind = VP_PEER_UID;
	ret->person = cred.uid;
	len = sizeof(pidfd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0) {
		ret->by_pidfd = true;
		read_by_pidfd(pidfd, ret);
		close(pidfd);
		return 0;
	}
	/* before Linux 6.5: the pid as it was at connect(), unheld */
	if (cred.pid > 0 && read_person(cred.pid, ret))
		ret->pid = cred.pid;
	return 0;
}
