/* SPDX-License-Identifier: MIT */
/*
 * test-rows.c - a writer whose records go to a callback unencoded
 * (gpt_writer_opts.rows): the chunks a reader of the same writer's file
 * gives, held records released with their offset, strings defined before
 * the chunk that names them, the callback's error kept, misuse refused.
 */
#include "base/compat.h"
#include "tests/unit/test.h"
#include "tests/unit/trace/trace-test.h"

#include <unistd.h>

struct got {
	uint32_t chunks, kernels;
	uint64_t last_start;
	uint32_t strs_seen; /* string ids defined at the last kernel chunk */
	int fail;           /* return this from the next call (0: none) */
};

static int take(void *ctx, const struct gpt_writer *w, const struct gpt_chunk *ch)
{
	struct got *g = ctx;

	if (g->fail) {
		return g->fail;
	}
	CHECK_EQ_U(ch->index, g->chunks);
	g->chunks++;
	if (ch->kind == GPT_KIND_KERNEL) {
		const struct gpt_kernel *k = ch->records;
		for (uint32_t i = 0; i < ch->count; i++) {
			CHECK(gpt_writer_string(w, k[i].name) != NULL); /* named: defined already */
			CHECK(k[i].start >= g->last_start);
			g->last_start = k[i].start;
		}
		CHECK_EQ_U(ch->first_ts, k[0].start);
		CHECK_EQ_U(ch->last_ts, k[ch->count - 1].end);
		g->kernels += ch->count;
		g->strs_seen = gpt_writer_string_ids(w);
	}
	return 0;
}

static void add_kernels(struct gpt_writer *w, uint32_t from, uint32_t n)
{
	for (uint32_t i = from; i < from + n; i++) {
		char name[32];
		struct gpt_kernel k = {.start = 100 + 10 * i, .end = 105 + 10 * i, .device = 0};
		snprintf(name, sizeof(name), "kernel_%u", i);
		CHECK_EQ_I(gpt_writer_intern_cstr(w, name, &k.name), 0);
		CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, &k), 0);
	}
}

TEST(writer_rows_chunks_and_hold)
{
	struct got g = {0};
	struct gpt_writer_opts o = {.chunk_records = 4, .rows = take, .rows_ctx = &g};
	struct gpt_writer *w = NULL;

	REQUIRE(gpt_writer_open_fd(-1, "rows", &o, &w) == 0);
	add_kernels(w, 0, 9); /* two chunks handed over, one pending */
	CHECK_EQ_U(g.kernels, 8);
	CHECK_EQ_I(gpt_writer_flush(w), 0);
	CHECK_EQ_U(g.kernels, 9);
	/* held records come out with the offset, when released */
	CHECK_EQ_I(gpt_writer_hold(w), 0);
	add_kernels(w, 9, 6);
	CHECK_EQ_U(g.kernels, 9);
	CHECK_EQ_I(gpt_writer_release(w, 1000000), 0);
	CHECK_EQ_U(g.kernels, 13);
	CHECK(g.last_start >= 1000000);
	struct gpt_writer_stats st;
	gpt_writer_get_stats(w, &st);
	CHECK_EQ_U(st.records[GPT_KIND_KERNEL], 13);
	CHECK_EQ_U(st.file_bytes, 0); /* nothing written anywhere */
	CHECK_EQ_I(gpt_writer_close(w), 0);
	CHECK_EQ_U(g.kernels, 15);
	CHECK_EQ_U(g.strs_seen, 15);
}

TEST(writer_rows_error_and_misuse)
{
	struct got g = {.fail = -GP_ERR_NOMEM};
	struct gpt_writer_opts o = {.chunk_records = 2, .rows = take, .rows_ctx = &g};
	struct gpt_writer *w = NULL;
	char err[256] = "";

	REQUIRE(gpt_writer_open_fd(-1, "rows", &o, &w) == 0);
	struct gpt_kernel k = {.start = 1, .end = 2};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, &k), 0);
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, &k), -GP_ERR_NOMEM);
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, &k), -GP_ERR_NOMEM); /* sticky */
	CHECK_EQ_I(gpt_writer_close_err(w, err, sizeof(err)), -GP_ERR_NOMEM);
	CHECK_CONTAINS(err, "rows: cannot take kernel records");

	/* not with a chunk sink, nor compact */
	o.compact = true;
	CHECK_EQ_I(gpt_writer_open_fd(-1, "rows", &o, &w), -GP_ERR_API);
	CHECK(w == NULL);
	o.compact = false;
	o.sink = (int (*)(void *, const uint8_t *, size_t))1;
	CHECK_EQ_I(gpt_writer_open_fd(-1, "rows", &o, &w), -GP_ERR_API);
}
