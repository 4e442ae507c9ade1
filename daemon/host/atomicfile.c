/*
 * atomicfile.c - replaces a file whole (the --status-file), safe in a
 * folder others may write to: the old "PATH.tmp" opened with fopen()
 * followed a symlink planted there and wrote the status through it into
 * whatever file it named, with the daemon's rights.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/atomicfile.h"

/* All of @len bytes, through short writes and signals. */
static int
write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
atomicfile_write(const char *path, const char *text, mode_t mode)
{
	char tmp[PATH_MAX];
	int fd, r;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >=
	    sizeof(tmp))
		return -ENAMETOOLONG;
	/* O_CREAT | O_EXCL with mode 0600: nothing already there is used */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* on the descriptor, not the name: the file we made, umask aside */
	r = fchmod(fd, mode) < 0 ? -errno : 0;
	if (!r)
		r = write_all(fd, text, strlen(text));
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}
