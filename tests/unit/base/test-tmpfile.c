/* SPDX-License-Identifier: MIT */
/*
 * test-tmpfile.c - private temporaries and the list a signal handler empties
 * (base/tmpfile.c).
 */
#include "base/compat.h"
#include "base/base.h"
#include "tests/unit/test.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A fresh folder as TMPDIR; its path in dir. */
static void fresh_tmpdir(char *dir, size_t size)
{
	snprintf(dir, size, "%s/gp-test-tmpfile-XXXXXX", gp_tmpdir());
	CHECK(mkdtemp(dir) != NULL);
	CHECK(setenv("TMPDIR", dir, 1) == 0);
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	CHECK(d != NULL);
	while ((de = readdir(d))) {
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	}
	closedir(d);
	return n;
}

TEST(tmpfile_has_no_name)
{
	char dir[512], buf[8];
	int fd;

	fresh_tmpdir(dir, sizeof(dir));
	fd = gp_tmpfile();
	CHECK(fd >= 0);
	CHECK_EQ_I(entries(dir), 0);
	CHECK_EQ_I((int)write(fd, "abc", 3), 3);
	CHECK_EQ_I((int)pread(fd, buf, 3, 0), 3);
	CHECK(!memcmp(buf, "abc", 3));
	close(fd);
	CHECK_EQ_I(rmdir(dir), 0);
}

TEST(cleanup_list_removes_what_is_in_it)
{
	char dir[512], a[600], b[600];
	unsigned ia, ib;

	fresh_tmpdir(dir, sizeof(dir));
	snprintf(a, sizeof(a), "%s/a.tmp", dir);
	snprintf(b, sizeof(b), "%s/b.tmp", dir);
	close(open(a, O_CREAT | O_WRONLY, 0600));
	close(open(b, O_CREAT | O_WRONLY, 0600));
	ia = gp_cleanup_add(a);
	ib = gp_cleanup_add(b);
	CHECK(ia && ib && ia != ib);
	gp_cleanup_remove(ib); /* b was renamed: no longer ours to remove */
	gp_cleanup_run();
	CHECK(access(a, F_OK) != 0);
	CHECK(access(b, F_OK) == 0);
	gp_cleanup_remove(ia);
	gp_cleanup_remove(0); /* nothing */
	unlink(b);
	CHECK_EQ_I(rmdir(dir), 0);
}

TEST(cleanup_list_full_or_long)
{
	char path[PATH_MAX + 8];
	unsigned ids[40], n = 0;

	memset(path, 'x', sizeof(path) - 1);
	path[sizeof(path) - 1] = 0;
	CHECK_EQ_I((int)gp_cleanup_add(path), 0);
	for (unsigned i = 0; i < 40; i++) {
		ids[i] = gp_cleanup_add("/nonexistent/gp-test");
		n += ids[i] != 0;
	}
	CHECK(n >= 1 && n < 40); /* a fixed list: some refused, never a crash */
	for (unsigned i = 0; i < 40; i++) {
		gp_cleanup_remove(ids[i]);
	}
	CHECK(gp_cleanup_add("/nonexistent/gp-test") != 0);
}
