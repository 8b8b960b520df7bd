/* SPDX-License-Identifier: MIT */
/*
 * test-threads.c - reading on worker threads (gpt_reader_set_threads) gives
 * what one thread gives: the same chunks with the same records, the same
 * strings, problems (index, offset, error, reason) and status, on whole
 * files, on every cut of a file and on every byte of a file damaged in turn.
 */
#include "base/compat.h"
#include "tests/unit/trace/trace-test.h"
#include "tests/unit/test.h"

#include <unistd.h>

/* What a read gave, as text: every chunk, record byte sum, string, problem, status. */
static void read_digest(const uint8_t *p, size_t len, unsigned threads, struct gp_strbuf *sb)
{
	struct gpt_reader *r = NULL;
	struct gpt_chunk ch;
	struct gpt_reader_status st;
	int ret = gpt_reader_open_mem(p, len, "t.gpz", &r);

	gp_strbuf_addf(sb, "open %d\n", ret);
	if (!ret) {
		ret = gpt_reader_set_threads(r, threads);
	}
	while (!ret && (ret = gpt_reader_next(r, &ch)) > 0) {
		uint64_t h = 1469598103934665603ull;
		const uint8_t *b = ch.records;
		for (size_t i = 0; i < (size_t)ch.count * ch.info->size; i++) {
			h = (h ^ b[i]) * 1099511628211ull;
		}
		gp_strbuf_addf(sb, "chunk %u %s %u at %" PRIu64 " ts %" PRIu64 "-%" PRIu64
			       " %016" PRIx64 "\n", ch.index, ch.info->name, ch.count, ch.offset,
			       ch.first_ts, ch.last_ts, h);
		ret = 0;
	}
	gp_strbuf_addf(sb, "next %d %s\n", ret, r ? gpt_reader_last_error(r) : "");
	if (r) {
		size_t np;
		const struct gpt_problem *pr = gpt_reader_problems(r, &np);
		for (size_t i = 0; i < np; i++) {
			gp_strbuf_addf(sb, "problem %u at %" PRIu64 " %d %s\n", pr[i].chunk_index,
				       pr[i].offset, pr[i].err, pr[i].reason);
		}
		gpt_reader_get_status(r, &st);
		gp_strbuf_addf(sb, "status %" PRIu64 " chunks %" PRIu64 " strings %d %d %" PRIu64
			       " %" PRIu64 " %" PRIu64 "\n", st.chunks, st.strings, st.has_footer,
			       st.truncated, st.truncated_at, st.problems, st.bytes_skipped);
		for (uint32_t id = 1; id <= st.strings + 2; id++) {
			const char *s = gpt_reader_string(r, id);
			gp_strbuf_addf(sb, "s%u %s\n", id, s ? s : "(none)");
		}
	}
	gpt_reader_free(r);
}

/* One thread and four read p alike; returns false (said) when not. */
static bool alike(const uint8_t *p, size_t len, const char *what, size_t at)
{
	struct gp_strbuf one = GP_STRBUF_INIT, four = GP_STRBUF_INIT;
	bool same;

	read_digest(p, len, 1, &one);
	read_digest(p, len, 4, &four);
	same = !one.failed && !four.failed && one.len == four.len &&
	       !memcmp(one.buf, four.buf, one.len);
	if (!same) {
		TFAIL("%s at %zu: one thread and four differ", what, at);
	}
	gp_strbuf_release(&one);
	gp_strbuf_release(&four);
	return same;
}

static int gen(struct tt_buf *b, int level, uint32_t chunk_records, uint64_t seed)
{
	struct gen_opts go;
	struct gpt_writer_opts wo = {.level = level, .chunk_records = chunk_records};

	gen_opts_default(&go);
	go.seed = seed;
	go.steps = 2;
	go.kernels_per_step = 40;
	go.copies_per_step = 2;
	go.nvtx_depth = 1;
	go.all_kinds = true;
	return tt_gen_trace(&go, &wo, b);
}

TEST(threads_whole_and_cut)
{
	struct tt_buf b;

	REQUIRE(gen(&b, 1, 16, 5) == 0);
	CHECK(alike(b.p, b.len, "whole", b.len));
	for (size_t cut = 0; cut < b.len; cut += 13) {
		if (!alike(b.p, cut, "cut", cut)) {
			break;
		}
	}
	tt_buf_free(&b);
}

TEST(threads_every_byte_damaged)
{
	struct tt_buf b;

	REQUIRE(gen(&b, 1, 16, 6) == 0);
	uint8_t *d = malloc(b.len);
	REQUIRE(d);
	for (size_t at = 0; at < b.len; at += 3) {
		memcpy(d, b.p, b.len);
		d[at] ^= (uint8_t)(0x5a + at);
		if (!alike(d, b.len, "damaged byte", at)) {
			break;
		}
	}
	free(d);
	tt_buf_free(&b);
}

TEST(threads_stored_chunks_from_a_file)
{
	struct tt_buf b;
	char path[PATH_MAX];
	int fd;

	REQUIRE(gen(&b, 0, 7, 7) == 0);
	CHECK(alike(b.p, b.len, "stored", b.len));
	snprintf(path, sizeof(path), "%s/gpuprof-threads-XXXXXX", gp_tmpdir());
	fd = mkstemp(path);
	REQUIRE(fd >= 0);
	CHECK((size_t)write(fd, b.p, b.len) == b.len);
	close(fd);
	for (unsigned t = 1; t <= 4; t += 3) {
		struct gpt_reader *r;
		struct gpt_chunk ch;
		uint64_t n = 0;
		int ret = gpt_reader_open(path, &r);
		CHECK_EQ_I(ret, 0);
		CHECK_EQ_I(gpt_reader_set_threads(r, t), 0);
		while ((ret = gpt_reader_next(r, &ch)) > 0) {
			n += ch.count;
		}
		CHECK_EQ_I(ret, 0);
		struct gpt_reader_status st;
		gpt_reader_get_status(r, &st);
		CHECK(st.has_footer);
		CHECK(n > 100);
		gpt_reader_free(r);
	}
	unlink(path);
	tt_buf_free(&b);
}
