/*
 * smallfile.h - one small kernel file (/proc, /sys, debugfs) read whole.
 */
#ifndef VP_HOST_SMALLFILE_H
#define VP_HOST_SMALLFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Reads at most @len - 1 bytes of @path, NUL-ended; bytes or -errno.
 * seq_file may hand out a line in several reads: it reads until EOF. */
ssize_t read_small_file(const char *path, char *buf, size_t len);

#endif
