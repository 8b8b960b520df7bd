/* SPDX-License-Identifier: MIT */
/*
 * fuzz-kineto.c - libFuzzer target for the Kineto JSON importer.
 *
 * gpa_import_kineto takes a path (it reopens the file by name to look for
 * "baseTimeNanoseconds" ahead of the parse), so each input is put in an
 * anonymous in-memory file (memfd_create) and handed over as
 * /proc/self/fd/N: no temporary file touches the disk and every reopen sees
 * the same bytes. Inputs starting with the gzip magic go through zlib as
 * the importer detects them; a second pass gzips the input, so mutated JSON
 * also reaches the gzip path.
 *
 * The records go to a gpt_writer on another anonymous file, handled as
 * gpa_convert does: abandoned when the import failed, closed (flush, index,
 * trailer) when it succeeded, and then the close must succeed too. The
 * error text must be a terminated string and say something whenever the
 * import failed. Each input is imported twice, with the fast path and with
 * the token loop alone (gpa_import_kineto_fast_path): result, message and
 * written bytes must be the same.
 */
#include "base/compat.h"
#include "import/import.h"
#include "import/import-test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

static volatile uint64_t sink;

static bool write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0) {
			return false;
		}
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/*
 * One import of the file at path into a writer on an anonymous file, the
 * fast path on or off. Returns the import's result; *out gets the written
 * bytes (the header's "created" time and CRC zeroed) or NULL.
 */
static int import_once(const char *path, bool fast, unsigned threads, char *err, size_t errlen,
		       uint8_t **out, size_t *out_len)
{
	struct gpt_writer_opts opts = { .level = 0 };
	struct gpt_writer *w = NULL;
	int wfd, keep, ret;
	off_t len;

	*out = NULL;
	*out_len = 0;
	wfd = memfd_create("fuzz-kineto-out", MFD_CLOEXEC);
	if (wfd < 0) {
		return 1;
	}
	keep = dup(wfd);
	if (keep < 0 || gpt_writer_open_fd(wfd, "out.gpz", &opts, &w)) {
		if (w) {
			gpt_writer_close(w);
		}
		if (keep >= 0) {
			close(keep);
		}
		return 1;
	}
	memset(err, 'x', errlen);
	gpa_import_kineto_fast_path(fast);
	gpa_import_kineto_split_min(0); /* every buffer split, however small */
	ret = gpa_import_kineto_threads(path, w, NULL, threads, err, errlen);
	gpa_import_kineto_fast_path(true);
	if (!memchr(err, 0, errlen) || (ret && !err[0]) || ret > 0) {
		__builtin_trap();
	}
	sink += strlen(err) + (uint64_t)-ret;
	/* As gpa_convert does: a failed import's file is abandoned, a good one closed. */
	if (ret) {
		gpt_writer_abandon(w);
	} else if (gpt_writer_close(w)) {
		__builtin_trap();
	}
	len = lseek(keep, 0, SEEK_END);
	if (len > 0 && (*out = malloc((size_t)len))) {
		if (pread(keep, *out, (size_t)len, 0) == len) {
			*out_len = (size_t)len;
			if (*out_len >= 32) {
				memset(*out + 20, 0, 12);
			}
		}
	}
	close(keep);
	return ret;
}

/*
 * Imports the bytes three times, with the fast path (whole events read from
 * the buffer), with the fast path and its side thread (every buffer split)
 * and with the token loop alone: all must give the same result, the same
 * message and the same file, or the target traps.
 */
/* The chunks an analysis takes straight from the importer: each whole, its strings defined. */
static int take_check(void *ctx, const struct gpt_writer *w, const struct gpt_chunk *ch)
{
	uint64_t *n = ctx;

	if (!ch->info || !ch->count || ch->count > GPA_IMPORT_CHUNK_RECORDS || !ch->records ||
	    (gpt_writer_string_ids(w) > 0 && !gpt_writer_string(w, gpt_writer_string_ids(w)))) {
		__builtin_trap();
	}
	*n += ch->count;
	return 0;
}

/* gpa_input_take on path: the same result and message as the import into a file. */
static void take_once(const char *path, int want, const char *want_err)
{
	const struct gpa_input_opts o = {.threads = 2};
	char err[256];
	enum gpa_input_format fmt;
	uint64_t n = 0;
	int ret;

	if (gpa_input_detect(path, &fmt, err, sizeof(err)) || fmt != GPA_INPUT_KINETO) {
		return; /* what else detection says is not the importer's */
	}
	memset(err, 'x', sizeof(err));
	ret = gpa_input_take(path, &o, take_check, &n, err, sizeof(err));
	if (ret != want || !memchr(err, 0, sizeof(err)) || (ret && strcmp(err, want_err) != 0)) {
		__builtin_trap();
	}
	sink += n;
}

static void import_bytes(const uint8_t *data, size_t size)
{
	char path[64], err_fast[256], err_slow[256], err_two[256];
	uint8_t *a, *b, *c;
	size_t alen, blen, clen;
	int mfd, ra, rb, rc;

	mfd = memfd_create("fuzz-kineto", MFD_CLOEXEC);
	if (mfd < 0) {
		return;
	}
	if (!write_all(mfd, data, size)) {
		close(mfd);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	ra = import_once(path, true, 1, err_fast, sizeof(err_fast), &a, &alen);
	rb = import_once(path, false, 1, err_slow, sizeof(err_slow), &b, &blen);
	rc = import_once(path, true, 2, err_two, sizeof(err_two), &c, &clen);
	if (ra != rb || strcmp(err_fast, err_slow) != 0 || alen != blen ||
	    (alen && memcmp(a, b, alen) != 0)) {
		__builtin_trap();
	}
	if (ra != rc || strcmp(err_fast, err_two) != 0 || alen != clen ||
	    (alen && memcmp(a, c, alen) != 0)) {
		__builtin_trap();
	}
	take_once(path, ra, err_fast);
	free(a);
	free(b);
	free(c);
	close(mfd);
}

/* The input gzip-compressed, in a malloc'd buffer; NULL on failure. */
static uint8_t *gzip_bytes(const uint8_t *data, size_t size, size_t *out_len)
{
	z_stream zs;
	uLong cap = compressBound((uLong)size) + 32;
	uint8_t *out = malloc(cap);

	if (!out) {
		return NULL;
	}
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(out);
		return NULL;
	}
	zs.next_in = (Bytef *)data;
	zs.avail_in = (uInt)size;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&zs);
		free(out);
		return NULL;
	}
	*out_len = zs.total_out;
	deflateEnd(&zs);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *gz;
	size_t gz_len;

	import_bytes(data, size);
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		return 0; /* already gzip: the first pass took that path */
	}
	gz = gzip_bytes(data, size, &gz_len);
	if (gz) {
		import_bytes(gz, gz_len);
		free(gz);
	}
	return 0;
}
