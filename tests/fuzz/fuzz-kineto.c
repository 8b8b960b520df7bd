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
 * The records go to a gpt_writer on /dev/null, handled as gpa_convert does:
 * abandoned when the import failed, closed (flush, index, trailer) when it
 * succeeded, and then the close must succeed too. The error text must be a
 * terminated string and say something whenever the import failed.
 */
#include "base/compat.h"
#include "analyze/analyze.h"

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

static void import_bytes(const uint8_t *data, size_t size)
{
	struct gpt_writer_opts opts = { .level = 0 };
	struct gpt_writer *w = NULL;
	char path[64], err[256];
	int mfd, nfd, ret;

	mfd = memfd_create("fuzz-kineto", MFD_CLOEXEC);
	if (mfd < 0) {
		return;
	}
	if (!write_all(mfd, data, size)) {
		goto out;
	}
	nfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (nfd < 0) {
		goto out;
	}
	if (gpt_writer_open_fd(nfd, "/dev/null", &opts, &w)) {
		if (w) {
			gpt_writer_close(w);
		}
		goto out;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	memset(err, 'x', sizeof(err));
	ret = gpa_import_kineto(path, w, err, sizeof(err));
	if (!memchr(err, 0, sizeof(err)) || (ret && !err[0]) || ret > 0) {
		__builtin_trap();
	}
	sink += strlen(err) + (uint64_t)-ret;
	/* As gpa_convert does: a failed import's file is abandoned, a good one closed. */
	if (ret) {
		gpt_writer_abandon(w);
	} else if (gpt_writer_close(w)) {
		__builtin_trap();
	}
out:
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
