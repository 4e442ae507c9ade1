/*
 * smallfile.h - the project's one way to read a file whole: small kernel
 * files (/proc, /sys, debugfs) into the caller's buffer, and bounded
 * input files (profiles, scenarios) into a new one.
 */
#ifndef VP_HOST_SMALLFILE_H
#define VP_HOST_SMALLFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Reads at most @len - 1 bytes of @path, NUL-ended; bytes or -errno.
 * seq_file may hand out a line in several reads: it reads until EOF. */
ssize_t read_small_file(const char *path, char *buf, size_t len);

/*
 * All of @path, at most @max bytes, into a new NUL-ended buffer (*@ret,
 * the caller frees it; its length in *@ret_len, which may be NULL).
 * -EFBIG if the file holds more than @max bytes, else -errno.
 */
int read_whole_file(const char *path, size_t max, char **ret,
    size_t *ret_len);

#endif
