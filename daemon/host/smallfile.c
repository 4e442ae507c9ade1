/*
 * smallfile.c - files read whole: kernel text for the adapters that parse
 * /proc and /sys (sampler.c, qemu.c, procstat.c, schedfeat.c, isolation.c,
 * peer.c, hwtopo.c, scx.c), and the bounded input files: profiles and host
 * rules (policy_xml.c), plan's scenario and domain XMLs (vcpuplacectl).
 * /proc/stat alone is read line by line (sampler_read_pus()): it grows
 * with the CPUs and interrupts, and only its cpuN lines are wanted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "host/smallfile.h"

/* Up to @len bytes of @fd, retrying short reads until EOF; bytes or
 * -errno. */
static ssize_t
read_fd(int fd, char *buf, size_t len)
{
	ssize_t n, total = 0;

	while ((size_t)total < len) {
		n = read(fd, buf + total, len - (size_t)total);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		total += n;
	}
	return total;
}

ssize_t
read_small_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (len == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	n = read_fd(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	return n;
}

int
read_whole_file(const char *path, size_t max, char **ret, size_t *ret_len)
{
	char *buf;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	/* one byte past @max tells "too large" from "exactly @max" */
	if (!(buf = malloc(max + 2))) {
		close(fd);
		return -ENOMEM;
	}
	n = read_fd(fd, buf, max + 1);
	close(fd);
	if (n < 0 || (size_t)n > max) {
		free(buf);
		return n < 0 ? (int)n : -EFBIG;
	}
	buf[n] = '\0';
	*ret = buf;
	if (ret_len)
		*ret_len = (size_t)n;
	return 0;
}
