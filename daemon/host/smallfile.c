/*
 * smallfile.c - one small kernel file read whole, for the adapters that
 * parse /proc and /sys text (schedfeat.c, isolation.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "host/smallfile.h"

ssize_t
read_small_file(const char *path, char *buf, size_t len)
{
	ssize_t n, total = 0;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - (size_t)total);
		if (n < 0) {
			err = -errno;
			close(fd);
			return err;
		}
		if (n == 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}
