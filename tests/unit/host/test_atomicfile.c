/*
 * test_atomicfile.c - atomicfile_write() in a folder an attacker may
 * write to: a symlink planted at the old temporary name (PATH.tmp) or at
 * PATH itself never leads the write into the file it names; the file
 * gets the mode asked for whatever the umask; no temporary file is left.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "host/atomicfile.h"
#include "../suites.h"

struct fixture {
	char dir[64];
	char path[96];		/* the file written */
	char victim[96];	/* what a planted symlink points to */
};

static void
fixture_open(struct fixture *f)
{
	FILE *v;

	snprintf(f->dir, sizeof(f->dir), "/tmp/vp-test-atomic-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/status.json", f->dir);
	snprintf(f->victim, sizeof(f->victim), "%s/victim", f->dir);
	ck_assert_ptr_nonnull(v = fopen(f->victim, "w"));
	fputs("precious\n", v);
	fclose(v);
}

/* The whole of @path into @buf. */
static void
slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Entries of @dir besides . and .. */
static int
entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void
fixture_close(struct fixture *f)
{
	char p[128];

	unlink(f->path);
	unlink(f->victim);
	snprintf(p, sizeof(p), "%s.tmp", f->path);
	unlink(p);
	rmdir(f->dir);
}

START_TEST(test_symlink_at_tmp_name_not_followed)
{
	struct fixture f;
	char tmp[128], buf[64];

	fixture_open(&f);
	snprintf(tmp, sizeof(tmp), "%s.tmp", f.path);
	ck_assert_int_eq(symlink(f.victim, tmp), 0);
	ck_assert_int_eq(atomicfile_write(f.path, "{\"tick\":1}", 0644), 0);
	slurp(f.victim, buf, sizeof(buf));
	ck_assert_str_eq(buf, "precious\n");
	slurp(f.path, buf, sizeof(buf));
	ck_assert_str_eq(buf, "{\"tick\":1}");
	fixture_close(&f);
}
END_TEST

START_TEST(test_symlink_at_path_replaced)
{
	struct fixture f;
	char buf[64];
	struct stat st;

	fixture_open(&f);
	ck_assert_int_eq(symlink(f.victim, f.path), 0);
	ck_assert_int_eq(atomicfile_write(f.path, "new", 0644), 0);
	slurp(f.victim, buf, sizeof(buf));
	ck_assert_str_eq(buf, "precious\n");
	ck_assert_int_eq(lstat(f.path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	fixture_close(&f);
}
END_TEST

/* 0644 asked, umask 077: mkostemp's 0600 is widened by fchmod(). */
START_TEST(test_mode_whatever_umask)
{
	struct fixture f;
	struct stat st;
	mode_t old;
	int r;

	fixture_open(&f);
	old = umask(077);
	r = atomicfile_write(f.path, "x", 0644);
	umask(old);
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(stat(f.path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	ck_assert_int_eq(entries(f.dir), 2);	/* the file and the victim */
	fixture_close(&f);
}
END_TEST

/* A failed rename (PATH is a folder) leaves no temporary file behind. */
START_TEST(test_failure_leaves_nothing)
{
	struct fixture f;

	fixture_open(&f);
	ck_assert_int_eq(mkdir(f.path, 0700), 0);
	ck_assert_int_lt(atomicfile_write(f.path, "x", 0644), 0);
	ck_assert_int_eq(entries(f.dir), 2);	/* the folder and the victim */
	rmdir(f.path);
	fixture_close(&f);
}
END_TEST

Suite *
atomicfile_suite(void)
{
	Suite *s = suite_create("atomicfile");
	TCase *tc = tcase_create("planted");

	tcase_add_test(tc, test_symlink_at_tmp_name_not_followed);
	tcase_add_test(tc, test_symlink_at_path_replaced);
	tcase_add_test(tc, test_mode_whatever_umask);
	tcase_add_test(tc, test_failure_leaves_nothing);
	suite_add_tcase(s, tc);
	return s;
}
