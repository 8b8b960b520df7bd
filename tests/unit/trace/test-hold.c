/* SPDX-License-Identifier: MIT */
/*
 * test-hold.c - gpt_writer_hold / gpt_writer_release: records added while
 * holding come out with the offset added to their time and end fields, in
 * order, plain and compact; untimed kinds are written as usual; misuse and
 * times that would wrap are refused.
 */
#include "base/compat.h"
#include "tests/unit/test.h"
#include "tests/unit/trace/trace-test.h"

#include <unistd.h>

static struct gpt_kernel kern(uint64_t i)
{
	return (struct gpt_kernel){.start = 1000 + 10 * i, .end = 1005 + 10 * i, .device = 1,
				   .stream = 7, .correlation = (uint32_t)i + 1};
}

static void hold_case(bool compact)
{
	struct gpt_writer_opts o = {.level = 1, .chunk_records = 4, .compact = compact};
	struct tt_mem_writer mw;
	struct tt_buf b;
	struct tt_read rd;
	struct gpt_device dev = {.id = 1, .num_sms = 132};
	struct gpt_api a = {.start = 5, .end = 9, .tid = 3, .correlation = 1};
	const int64_t off = 1700000000000000000;

	REQUIRE(tt_writer_open(&mw, &o) == 0);
	/* before holding: written as they are */
	struct gpt_kernel k0 = kern(0);
	CHECK_EQ_I(gpt_writer_add(mw.w, GPT_KIND_KERNEL, &k0), 0);
	CHECK_EQ_I(gpt_writer_hold(mw.w), -GP_ERR_API); /* a timed record is pending */
	CHECK_EQ_I(gpt_writer_flush(mw.w), 0);
	CHECK_EQ_I(gpt_writer_hold(mw.w), 0);
	CHECK_EQ_I(gpt_writer_hold(mw.w), -GP_ERR_API); /* already holding */
	CHECK_EQ_U(gpt_writer_held_bytes(mw.w), 0);
	for (uint64_t i = 1; i <= 10; i++) {
		struct gpt_kernel k = kern(i);
		CHECK_EQ_I(gpt_writer_add(mw.w, GPT_KIND_KERNEL, &k), 0);
	}
	CHECK_EQ_I(gpt_writer_add(mw.w, GPT_KIND_API, &a), 0);
	for (int i = 0; i < 5; i++) {
		dev.id = (uint32_t)i;
		CHECK_EQ_I(gpt_writer_add(mw.w, GPT_KIND_DEVICE, &dev), 0); /* untimed: written */
	}
	/* two full kernel chunks held: 8 records */
	CHECK_EQ_U(gpt_writer_held_bytes(mw.w), 8 * sizeof(struct gpt_kernel));
	struct gpt_writer_stats st;
	gpt_writer_get_stats(mw.w, &st);
	CHECK_EQ_U(st.records[GPT_KIND_KERNEL], 1);
	CHECK_EQ_U(st.records[GPT_KIND_DEVICE], 4);
	/* a flush while holding holds the partial chunks too */
	CHECK_EQ_I(gpt_writer_flush(mw.w), 0);
	gpt_writer_get_stats(mw.w, &st);
	CHECK_EQ_U(st.records[GPT_KIND_KERNEL], 1);
	CHECK_EQ_U(st.records[GPT_KIND_API], 0);
	CHECK_EQ_U(st.records[GPT_KIND_DEVICE], 5);
	CHECK_EQ_U(gpt_writer_held_bytes(mw.w),
		   10 * sizeof(struct gpt_kernel) + sizeof(struct gpt_api));
	struct gpt_kernel k11 = kern(11); /* pending, not held, at release */
	CHECK_EQ_I(gpt_writer_add(mw.w, GPT_KIND_KERNEL, &k11), 0);
	CHECK_EQ_I(gpt_writer_release(mw.w, off), 0);
	CHECK_EQ_I(gpt_writer_release(mw.w, off), -GP_ERR_API); /* not holding */
	CHECK_EQ_U(gpt_writer_held_bytes(mw.w), 0);
	struct gpt_kernel k12 = kern(12); /* after release: as given */
	k12.start += (uint64_t)off;
	k12.end += (uint64_t)off;
	CHECK_EQ_I(gpt_writer_add(mw.w, GPT_KIND_KERNEL, &k12), 0);
	REQUIRE(tt_writer_finish(&mw, &b) == 0);

	tt_read_all(b.p, b.len, "hold.gpz", &rd);
	CHECK_EQ_I(rd.next_ret, 0);
	REQUIRE(rd.recs[GPT_KIND_KERNEL].n == 13);
	const struct gpt_kernel *k = (const struct gpt_kernel *)rd.recs[GPT_KIND_KERNEL].v;
	CHECK_EQ_U(k[0].start, 1000);
	for (uint64_t i = 1; i <= 12; i++) {
		CHECK_EQ_U(k[i].start, (uint64_t)off + 1000 + 10 * i);
		CHECK_EQ_U(k[i].end, (uint64_t)off + 1005 + 10 * i);
		CHECK_EQ_U(k[i].correlation, i + 1);
	}
	REQUIRE(rd.recs[GPT_KIND_API].n == 1);
	const struct gpt_api *ra = (const struct gpt_api *)rd.recs[GPT_KIND_API].v;
	CHECK_EQ_U(ra->start, (uint64_t)off + 5);
	CHECK_EQ_U(ra->end, (uint64_t)off + 9);
	CHECK_EQ_U(ra->tid, 3);
	CHECK_EQ_U(rd.recs[GPT_KIND_DEVICE].n, 5);
	tt_read_release(&rd);
	tt_buf_free(&b);
}

TEST(writer_hold_release_plain)
{
	hold_case(false);
}

TEST(writer_hold_release_compact)
{
	hold_case(true);
}

/* A writer holding from its start, with kernels 0..n-1 added. */
static void open_holding(struct tt_mem_writer *mw, const struct gpt_writer_opts *o, uint64_t n)
{
	REQUIRE(tt_writer_open(mw, o) == 0);
	CHECK_EQ_I(gpt_writer_hold(mw->w), 0);
	for (uint64_t i = 0; i < n; i++) {
		struct gpt_kernel k = kern(i);
		CHECK_EQ_I(gpt_writer_add(mw->w, GPT_KIND_KERNEL, &k), 0);
	}
}

/* Closes the writer, reads the file back: n kernels, the last one's start in *start. */
static void finish_last_start(struct tt_mem_writer *mw, size_t n, uint64_t *start)
{
	struct tt_buf b;
	struct tt_read rd;

	*start = 0;
	REQUIRE(tt_writer_finish(mw, &b) == 0);
	tt_read_all(b.p, b.len, "hold.gpz", &rd);
	CHECK_EQ_I(rd.next_ret, 0);
	CHECK_EQ_I(rd.st.has_footer, 1);
	REQUIRE(rd.recs[GPT_KIND_KERNEL].n == n);
	*start = ((const struct gpt_kernel *)rd.recs[GPT_KIND_KERNEL].v)[n - 1].start;
	tt_read_release(&rd);
	tt_buf_free(&b);
}

/* A negative offset, and offsets that would carry a time past 0 or 2^64. */
TEST(writer_hold_offset_range)
{
	struct gpt_writer_opts o = {.level = 0, .chunk_records = 2};
	struct tt_mem_writer mw;
	uint64_t start;

	open_holding(&mw, &o, 3);
	CHECK_EQ_I(gpt_writer_release(mw.w, -1000), 0);
	finish_last_start(&mw, 3, &start);
	CHECK_EQ_U(start, 20);

	for (int c = 0; c < 2; c++) {
		open_holding(&mw, &o, 3); /* the third stays pending: both paths */
		CHECK_EQ_I(gpt_writer_release(mw.w, c ? -1001 : INT64_MAX), c ? -GP_ERR_RANGE : 0);
		if (!c) {
			/* INT64_MAX fits a u64 time of 1000; a second hold pushes it over */
			CHECK_EQ_I(gpt_writer_hold(mw.w), -GP_ERR_API); /* one pending */
			CHECK_EQ_I(gpt_writer_flush(mw.w), 0);
			CHECK_EQ_I(gpt_writer_hold(mw.w), 0);
			struct gpt_kernel k = {.start = UINT64_MAX - 5, .end = UINT64_MAX - 5};
			CHECK_EQ_I(gpt_writer_add(mw.w, GPT_KIND_KERNEL, &k), 0);
			CHECK_EQ_I(gpt_writer_release(mw.w, 6), -GP_ERR_RANGE);
		}
		CHECK_CONTAINS(gpt_writer_last_error(mw.w), "out of range");
		CHECK_EQ_I(gpt_writer_add(mw.w, GPT_KIND_API, &(struct gpt_api){0}), -GP_ERR_RANGE);
		gpt_writer_abandon(mw.w);
		close(mw.keep_fd);
	}
}

/* Closing while holding writes the held records as they are. */
TEST(writer_hold_close)
{
	struct gpt_writer_opts o = {.level = 1, .chunk_records = 2};
	struct tt_mem_writer mw;

	uint64_t start;

	open_holding(&mw, &o, 5);
	finish_last_start(&mw, 5, &start);
	CHECK_EQ_U(start, 1040);
}
