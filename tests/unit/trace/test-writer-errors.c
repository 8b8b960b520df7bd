/* SPDX-License-Identifier: MIT */
/*
 * test-writer-errors.c - the writer when writes fail: the error is kept and
 * returned by close, memory stays safe whatever the caller does next, and
 * the file on disk stays readable up to its last whole chunk.
 */
#include "base/compat.h"
#include "tests/unit/trace/trace-test.h"
#include "tests/unit/test.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

TEST(writer_header_write_fails)
{
	struct gpt_writer *w = NULL;
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "  note: no /dev/full, nothing to check\n");
		CHECK(errno != 0);
		return;
	}
	CHECK_EQ_I(gpt_writer_open_fd(fd, "full.gpz", NULL, &w), -GP_ERR_IO);
	if (w) {
		CHECK_CONTAINS(gpt_writer_last_error(w), "full.gpz: write failed");
		gpt_writer_abandon(w);
	}
}

TEST(writer_adds_after_a_failed_write)
{
	/*
	 * A chunk write fails (the reader of the pipe went away). The caller
	 * keeps adding records, as a writer thread draining buffers would: the
	 * writer must not store them past the end of its pending chunk.
	 */
	struct gpt_writer_opts o = {.level = 0, .chunk_records = 4};
	struct gpt_writer *w;
	struct gpt_kernel k = {.start = 100, .end = 200, .device = 1};
	int pfd[2], ret = 0;

	signal(SIGPIPE, SIG_IGN);
	REQUIRE(pipe(pfd) == 0);
	REQUIRE(gpt_writer_open_fd(pfd[1], "pipe.gpz", &o, &w) == 0);
	close(pfd[0]);
	for (int i = 0; i < 4 && !ret; i++) {
		ret = gpt_writer_add(w, GPT_KIND_KERNEL, &k);
	}
	CHECK_EQ_I(ret, -GP_ERR_IO);
	CHECK_CONTAINS(gpt_writer_last_error(w), "pipe.gpz: write failed");
	for (int i = 0; i < 5000; i++) {
		k.start += 10;
		gpt_writer_add(w, GPT_KIND_KERNEL, &k);
	}
	CHECK_EQ_I(gpt_writer_flush(w) < 0, 1);
	CHECK_EQ_I(gpt_writer_close(w), -GP_ERR_IO);
}

TEST(writer_disk_full)
{
	/* The file may grow to 3000 bytes: the chunk crossing that is torn. */
	struct gpt_writer_opts o = {.level = 0, .chunk_records = 5};
	struct rlimit old, rl;
	struct gpt_writer *w;
	struct gen_opts go;
	struct gen_stats gs;
	char path[300];

	signal(SIGXFSZ, SIG_IGN);
	REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
	snprintf(path, sizeof(path), "%s/full.gpz", test_tmpdir());
	REQUIRE(gpt_writer_open(path, &o, &w) == 0);
	rl = old;
	rl.rlim_cur = 3000;
	REQUIRE(setrlimit(RLIMIT_FSIZE, &rl) == 0);
	gen_opts_default(&go);
	go.steps = 2;
	go.kernels_per_step = 20;
	int gret = gen_write(w, &go, &gs);
	int cret = gpt_writer_close(w);
	REQUIRE(setrlimit(RLIMIT_FSIZE, &old) == 0);
	CHECK_EQ_I(gret, -GP_ERR_IO);
	CHECK_EQ_I(cret, -GP_ERR_IO);

	FILE *f = fopen(path, "rb");
	REQUIRE(f != NULL);
	struct tt_buf b = {malloc(4096), 0};
	REQUIRE(b.p != NULL);
	b.len = fread(b.p, 1, 4096, f);
	fclose(f);
	CHECK_EQ_U(b.len, 3000);

	/* Whole chunks: as far as their headers chain inside the file. */
	struct tt_chunk ch[256];
	uint64_t end;
	size_t n = tt_walk(b.p, b.len, ch, 256, &end), whole = 0;
	uint64_t want[GPT_KIND__MAX] = {0};
	for (size_t i = 0; i < n; i++) {
		if (ch[i].off + GPT_CHUNK_HEADER_SIZE + ch[i].stored_len <= b.len) {
			whole++;
			if (ch[i].kind != GPT_KIND_STRING) {
				want[ch[i].kind] += ch[i].count;
			}
		}
	}
	CHECK(whole >= 3);
	struct tt_read rd;
	tt_read_all(b.p, b.len, "full.gpz", &rd);
	CHECK_EQ_I(rd.open_ret, 0);
	CHECK_EQ_I(rd.next_ret, 0);
	CHECK(rd.st.truncated && !rd.st.has_footer);
	CHECK_EQ_U(rd.st.problems, 0);
	CHECK(rd.strings_ok);
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		CHECK_EQ_U(rd.recs[k].n, want[k]);
	}
	tt_read_release(&rd);
	tt_buf_free(&b);
}

TEST(writer_keep_going)
{
	/*
	 * keep_going: chunks that cannot be written are cut off and counted;
	 * once the disk has room again the writer goes on and closes cleanly.
	 */
	struct gpt_writer_opts o = {.level = 0, .chunk_records = 5, .keep_going = true};
	struct gpt_kernel k = {.start = 100, .end = 200, .device = 1};
	struct gpt_writer_stats st;
	struct rlimit old, rl;
	struct gpt_writer *w;
	char path[300];
	int ret = 0;

	signal(SIGXFSZ, SIG_IGN);
	REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
	snprintf(path, sizeof(path), "%s/again.gpz", test_tmpdir());
	REQUIRE(gpt_writer_open(path, &o, &w) == 0);
	for (int i = 0; i < 20; i++, k.start += 10, k.end += 10) {
		ret |= gpt_writer_add(w, GPT_KIND_KERNEL, &k);
	}
	gpt_writer_get_stats(w, &st);
	rl = old;
	rl.rlim_cur = st.file_bytes + 100; /* room for a chunk or so */
	REQUIRE(setrlimit(RLIMIT_FSIZE, &rl) == 0);
	for (int i = 0; i < 40; i++, k.start += 10, k.end += 10) {
		ret |= gpt_writer_add(w, GPT_KIND_KERNEL, &k);
	}
	REQUIRE(setrlimit(RLIMIT_FSIZE, &old) == 0);
	for (int i = 0; i < 20; i++, k.start += 10, k.end += 10) {
		ret |= gpt_writer_add(w, GPT_KIND_KERNEL, &k);
	}
	CHECK_EQ_I(ret, 0);
	gpt_writer_get_stats(w, &st);
	CHECK(st.lost_records > 0 && st.lost_records < 40);
	CHECK_EQ_I(st.lost_errno, EFBIG);
	CHECK_EQ_U(st.records[GPT_KIND_KERNEL] + st.lost_records, 80);
	CHECK_EQ_I(gpt_writer_close(w), 0);

	FILE *f = fopen(path, "rb");
	REQUIRE(f != NULL);
	struct tt_buf b = {malloc(1 << 16), 0};
	REQUIRE(b.p != NULL);
	b.len = fread(b.p, 1, 1 << 16, f);
	fclose(f);
	struct tt_read rd;
	tt_read_all(b.p, b.len, "again.gpz", &rd);
	CHECK_EQ_I(rd.open_ret, 0);
	CHECK(rd.st.has_footer && !rd.st.truncated);
	CHECK_EQ_U(rd.st.problems, 0);
	CHECK_EQ_U(rd.recs[GPT_KIND_KERNEL].n + st.lost_records, 80);
	tt_read_release(&rd);
	tt_buf_free(&b);
}
