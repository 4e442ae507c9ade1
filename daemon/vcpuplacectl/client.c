/*
 * client.c - vcpuplacectl's side of the control socket: one request
 * line, read the answer to EOF, and errors an operator can act on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "vcpuplacectl/ctl.h"

/* An answer the daemon builds in one tick comes in well under this. */
#define ANSWER_TIMEOUT_S	10

static int
connect_daemon(const char *path)
{
	struct timeval tv = { .tv_sec = ANSWER_TIMEOUT_S };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, e;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "vcpuplacectl: socket path %s is too long\n",
		    path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	e = errno;
	close(fd);
	if (e == ENOENT || e == ECONNREFUSED)
		fprintf(stderr, "vcpuplacectl: vcpuplaced is not running "
		    "(nothing listens on %s); start it with `systemctl "
		    "start vcpuplaced`\n", path);
	else if (e == EACCES)
		fprintf(stderr, "vcpuplacectl: %s: permission denied; "
		    "members of group vcpuplace and root may connect\n", path);
	else
		fprintf(stderr, "vcpuplacectl: %s: %s\n", path, strerror(e));
	return -e;
}

int
client_request(const char *path, const char *line, char **ret)
{
	size_t len = 0, cap = 65536;
	char *buf;
	ssize_t n;
	int fd;

	if ((fd = connect_daemon(path)) < 0)
		return fd;
	if (dprintf(fd, "%s\n", line) < 0 || !(buf = malloc(cap))) {
		close(fd);
		return -EIO;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 == cap) {
			char *b = realloc(buf, cap *= 2);

			if (!b) {
				n = -1;
				break;
			}
			buf = b;
		}
	}
	close(fd);
	if (n < 0) {
		fprintf(stderr, "vcpuplacectl: %s: no complete answer: %s\n",
		    path, errno == EAGAIN ? "timed out" : strerror(errno));
		free(buf);
		return -EIO;
	}
	buf[len] = '\0';
	if (!strncmp(buf, "error: ", 7)) {
		fprintf(stderr, "vcpuplacectl: %s", buf + 7);
		free(buf);
		return -EINVAL;
	}
	*ret = buf;
	return 0;
}
