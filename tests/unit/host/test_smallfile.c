/*
 * test_smallfile.c - smallfile.c, the one file-reading helper: short
 * reads joined, the buffer always NUL-ended, the bound of
 * read_whole_file() exact (max bytes read, max + 1 refused), and errors
 * as -errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "host/smallfile.h"
#include "../suites.h"

static char dir[64], path[96];

static void
setup(void)
{
	strcpy(dir, "/tmp/vp-smallfile-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
}

static void
teardown(void)
{
	unlink(path);
	rmdir(dir);
}

/* @path holds @n bytes of 'a'..'z' over and over. */
static void
fill(size_t n)
{
	FILE *f = fopen(path, "w");
	size_t i;

	ck_assert_ptr_nonnull(f);
	for (i = 0; i < n; i++)
		fputc('a' + (int)(i % 26), f);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_small_truncates_and_ends)
{
	char buf[8];

	fill(20);
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(read_small_file(path, buf, sizeof(buf)), 7);
	ck_assert_str_eq(buf, "abcdefg");
	ck_assert_int_eq(read_small_file(path, buf, 0), -EINVAL);
}
END_TEST

START_TEST(test_small_missing)
{
	char buf[8];

	ck_assert_int_eq(read_small_file("/nonexistent/vp", buf, sizeof(buf)),
	    -ENOENT);
}
END_TEST

/* A pipe hands out its bytes in as many reads as they were written:
 * the reader must join them, as for a seq_file. */
START_TEST(test_small_joins_short_reads)
{
	char buf[64], fifo[128];
	int fd;
	pid_t pid;

	snprintf(fifo, sizeof(fifo), "%s/p", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		fd = open(fifo, O_WRONLY);
		if (write(fd, "one ", 4) != 4)
			_exit(1);
		usleep(1000);	/* not a verdict: only splits the reads */
		if (write(fd, "two\n", 4) != 4)
			_exit(1);
		_exit(0);
	}
	ck_assert_int_eq(read_small_file(fifo, buf, sizeof(buf)), 8);
	ck_assert_str_eq(buf, "one two\n");
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	unlink(fifo);
}
END_TEST

START_TEST(test_whole_bound)
{
	char *buf = NULL;
	size_t len = 0;

	fill(100);
	ck_assert_int_eq(read_whole_file(path, 100, &buf, &len), 0);
	ck_assert_uint_eq(len, 100);
	ck_assert_uint_eq(strlen(buf), 100);
	ck_assert_int_eq(buf[99], 'a' + 99 % 26);
	free(buf);
	buf = NULL;
	ck_assert_int_eq(read_whole_file(path, 99, &buf, &len), -EFBIG);
	ck_assert_ptr_null(buf);
	fill(0);
	ck_assert_int_eq(read_whole_file(path, 10, &buf, NULL), 0);
	ck_assert_str_eq(buf, "");
	free(buf);
	ck_assert_int_eq(read_whole_file(dir, 10, &buf, &len), -EISDIR);
}
END_TEST

Suite *
smallfile_suite(void)
{
	Suite *s = suite_create("smallfile");
	TCase *tc = tcase_create("read");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_small_truncates_and_ends);
	tcase_add_test(tc, test_small_missing);
	tcase_add_test(tc, test_small_joins_short_reads);
	tcase_add_test(tc, test_whole_bound);
	suite_add_tcase(s, tc);
	return s;
}
