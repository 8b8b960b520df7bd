/* SPDX-License-Identifier: MIT */
/*
 * test-corpus.c - every broken trace in tests/corpus/ (made by
 * tests/corpus/make-corpus.sh) against its NAME.expect: the reader's last
 * error after opening NAME.gpz by that relative name and reading it to the
 * end. The corpus is found through $TOP (the repository root), else in
 * tests/corpus below the current directory.
 */
#include "base/compat.h"
#include "tests/unit/trace/trace-test.h"
#include "tests/unit/test.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The corpus directory, or NULL. */
static const char *corpus_dir(void)
{
	static char dir[4096];
	const char *top = getenv("TOP");
	struct stat sb;

	if (top && *top) {
		snprintf(dir, sizeof(dir), "%s/tests/corpus", top);
	} else {
		snprintf(dir, sizeof(dir), "tests/corpus");
	}
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
		return NULL;
	}
	return dir;
}

static bool read_expect(const char *path, char *line, size_t size)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		return false;
	}
	if (!fgets(line, (int)size, f)) {
		line[0] = '\0';
	}
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	return true;
}

/* Opens name (relative to the current directory) and reads every chunk. */
static void read_whole(const char *name, char *err, size_t size, int *open_ret, int *next_ret)
{
	struct gpt_reader *r = NULL;
	struct gpt_chunk ch;

	*next_ret = 0;
	*open_ret = gpt_reader_open(name, &r);
	if (!*open_ret) {
		while ((*next_ret = gpt_reader_next(r, &ch)) == 1) {
		}
	}
	snprintf(err, size, "%s", r ? gpt_reader_last_error(r) : "(no reader)");
	gpt_reader_free(r);
}

TEST(corpus_broken_traces)
{
	const char *dir = corpus_dir();
	char *names[256];
	size_t n = 0, expects = 0;
	DIR *d;
	struct dirent *de;

	if (!dir) {
		TFAIL("no corpus: set TOP to the repository root or run from it");
		return;
	}
	d = opendir(dir);
	REQUIRE(d != NULL);
	while ((de = readdir(d)) && n < GP_ARRAY_SIZE(names)) {
		size_t len = strlen(de->d_name);
		if (len > 4 && !strcmp(de->d_name + len - 4, ".gpz")) {
			names[n++] = strndup(de->d_name, len - 4);
		} else if (len > 7 && !strcmp(de->d_name + len - 7, ".expect")) {
			expects++;
		}
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_names);
	/* The corpus is complete: at least the cases the format promises to explain. */
	CHECK(n >= 15);
	CHECK_EQ_U(expects, n);

	int here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	REQUIRE(here >= 0);
	REQUIRE(chdir(dir) == 0);
	for (size_t i = 0; i < n; i++) {
		char gpz[300], exp[300], want[512], got[512];
		struct stat sb;
		int open_ret, next_ret;

		snprintf(gpz, sizeof(gpz), "%s.gpz", names[i]);
		snprintf(exp, sizeof(exp), "%s.expect", names[i]);
		if (!read_expect(exp, want, sizeof(want))) {
			TFAIL("%s has no %s", gpz, exp);
			continue;
		}
		if (!stat(gpz, &sb) && sb.st_size > 20 * 1024) {
			TFAIL("%s is %lld bytes, over the corpus budget of 20 KB", gpz,
			      (long long)sb.st_size);
		}
		read_whole(gpz, got, sizeof(got), &open_ret, &next_ret);
		if (strcmp(got, want)) {
			TFAIL("%s:\n    got:  %s\n    want: %s", gpz, got, want);
		}
		/* Broken files end reading cleanly, never with an I/O or memory error. */
		if (next_ret < 0 || open_ret == -GP_ERR_IO || open_ret == -GP_ERR_NOMEM) {
			TFAIL("%s: open %d, next %d", gpz, open_ret, next_ret);
		}
	}
	if (fchdir(here)) {
		TFAIL("cannot return to the starting directory");
	}
	close(here);
	for (size_t i = 0; i < n; i++) {
		free(names[i]);
	}
}

TEST(corpus_from_memory_agrees)
{
	/* The same files through gpt_reader_open_mem give the same lines (the name as given). */
	const char *dir = corpus_dir();
	DIR *d;
	struct dirent *de;
	unsigned checked = 0;

	if (!dir) {
		TFAIL("no corpus: set TOP to the repository root or run from it");
		return;
	}
	d = opendir(dir);
	REQUIRE(d != NULL);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char path[4400], exp[4400], want[512];
		if (len <= 4 || strcmp(de->d_name + len - 4, ".gpz")) {
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		snprintf(exp, sizeof(exp), "%s/%.*s.expect", dir, (int)(len - 4), de->d_name);
		if (!read_expect(exp, want, sizeof(want))) {
			continue; /* reported by corpus_broken_traces */
		}
		FILE *f = fopen(path, "rb");
		REQUIRE(f != NULL);
		uint8_t *buf = malloc(32 * 1024);
		REQUIRE(buf != NULL);
		size_t n = fread(buf, 1, 32 * 1024, f);
		fclose(f);
		/* An exact-size copy, so reads past the end are caught under ASan. */
		uint8_t *exact = malloc(n ? n : 1);
		REQUIRE(exact != NULL);
		memcpy(exact, buf, n);
		free(buf);
		struct tt_read rd;
		tt_read_all(exact, n, de->d_name, &rd);
		CHECK_STR(rd.last_error, want);
		tt_read_release(&rd);
		free(exact);
		checked++;
	}
	closedir(d);
	CHECK(checked >= 15);
}
