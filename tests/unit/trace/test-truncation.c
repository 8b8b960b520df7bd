/* SPDX-License-Identifier: MIT */
/*
 * test-truncation.c - a small trace with many chunks, cut at every byte
 * offset. Each prefix is copied into a buffer of exactly its size (so a read
 * past the cut is caught under AddressSanitizer) and read: opening fails
 * cleanly inside the file header; after it the reader returns exactly the
 * records of the chunks that are whole before the cut, and says where and
 * how the file was cut.
 */
#include "base/compat.h"
#include "tests/unit/trace/trace-test.h"
#include "tests/unit/test.h"

/* Checks one cut; returns false (after TFAIL) when it is wrong. */
static bool check_cut(const struct tt_buf *full, const struct tt_read *ref, const struct tt_unit *u,
		      size_t nu, size_t cut, bool has_footer)
{
	uint8_t *prefix = malloc(cut ? cut : 1);
	struct tt_read rd;
	bool ok = true;

	if (!prefix) {
		abort();
	}
	memcpy(prefix, full->p, cut);
	tt_read_all(prefix, cut, "cut.gpz", &rd);
	free(prefix);

#define BAD(...)                                                                                   \
	do {                                                                                       \
		TFAIL("cut at %zu: " __VA_ARGS__);                                                 \
		ok = false;                                                                        \
		goto out;                                                                          \
	} while (0)

	if (cut < GPT_FILE_HEADER_SIZE) {
		if (rd.open_ret != -GP_ERR_TRUNCATED) {
			BAD("open returned %d, not -GP_ERR_TRUNCATED", cut, rd.open_ret);
		}
		char want[160];
		snprintf(want, sizeof(want),
			 "cut.gpz: truncated: %zu bytes, shorter than the 32-byte file header",
			 cut);
		if (strcmp(rd.last_error, want)) {
			BAD("error \"%s\"", cut, rd.last_error);
		}
		goto out;
	}
	if (rd.open_ret != 0 || rd.next_ret != 0) {
		BAD("open %d, next %d: %s", cut, rd.open_ret, rd.next_ret, rd.last_error);
	}

	/* Records: those of the record chunks whole before the cut, in order. */
	uint64_t want[GPT_KIND__MAX] = {0};
	size_t first_cut = nu; /* the first unit the cut reaches into, or at */
	for (size_t i = 0; i < nu; i++) {
		if (u[i].end > cut) {
			first_cut = i;
			break;
		}
		if (u[i].kind != GPT_KIND_STRING && u[i].kind != GPT_KIND_INDEX) {
			want[u[i].kind] += u[i].count;
		}
	}
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		if (rd.recs[k].n != want[k] || rd.st.records[k] != want[k]) {
			BAD("%zu %s records read (status %" PRIu64 "), %" PRIu64 " whole", cut,
			    rd.recs[k].n, gpt_kind_info(k)->name, rd.st.records[k], want[k]);
		}
		const struct gpt_kind_info *ki = gpt_kind_info(k);
		for (size_t i = 0; i < want[k]; i++) {
			const struct gpt_field *f = tt_rec_diff(ki, rd.recs[k].v + i * ki->size,
								ref->recs[k].v + i * ki->size);
			if (f) {
				BAD("%s record %zu differs in %s", cut, ki->name, i, f->name);
			}
		}
	}
	if (!rd.strings_ok) {
		BAD("a string id of a whole chunk does not resolve", cut);
	}
	if (rd.st.problems != 0 || rd.st.bytes_skipped != 0) {
		BAD("%" PRIu64 " corruption problems on a clean prefix: %s", cut, rd.st.problems,
		    rd.last_error);
	}

	if (cut == full->len) {
		if (rd.st.truncated == has_footer || rd.st.has_footer != has_footer ||
		    rd.nproblems != (has_footer ? 0u : 1u)) {
			BAD("whole file: truncated %d, footer %d, %zu problems", cut,
			    rd.st.truncated, rd.st.has_footer, rd.nproblems);
		}
		if (has_footer) {
			goto out;
		}
	}

	/*
	 * The cut is reported once, at the unit it falls in, with the exact
	 * reason. Past the last unit (a file without a footer, read whole) it is
	 * an empty unit at the end.
	 */
	struct tt_unit end_unit = {cut, cut, 0, 0};
	const struct tt_unit *x = first_cut < nu ? &u[first_cut] : &end_unit;
	char reason[160], line[400];
	if (cut == x->off) {
		snprintf(reason, sizeof(reason), "no footer: the writer did not finish the file");
	} else if (cut - x->off < GPT_CHUNK_HEADER_SIZE) {
		snprintf(reason, sizeof(reason),
			 "truncated: the file ends inside a chunk header (%" PRIu64 " of 48 bytes)",
			 cut - x->off);
	} else {
		snprintf(reason, sizeof(reason),
			 "truncated: the chunk needs %" PRIu64 " bytes, the file has %" PRIu64,
			 x->end - x->off, cut - x->off);
	}
	snprintf(line, sizeof(line), "cut.gpz: chunk %zu at offset %" PRIu64 ": %s", first_cut,
		 x->off, reason);
	if (!rd.st.truncated || rd.st.has_footer || rd.st.truncated_at != cut) {
		BAD("truncated %d at %" PRIu64 ", footer %d", cut, rd.st.truncated,
		    rd.st.truncated_at, rd.st.has_footer);
	}
	if (rd.nproblems != 1 || rd.problems[0].err != -GP_ERR_TRUNCATED ||
	    rd.problems[0].offset != x->off || rd.problems[0].chunk_index != first_cut ||
	    strcmp(rd.problems[0].reason, reason)) {
		BAD("%zu problems, first: chunk %u offset %" PRIu64
		    " err %d \"%s\"; want chunk %zu "
		    "offset %" PRIu64 " \"%s\"",
		    cut, rd.nproblems, rd.problems[0].chunk_index, rd.problems[0].offset,
		    rd.problems[0].err, rd.problems[0].reason, first_cut, x->off, reason);
	}
	if (strcmp(rd.last_error, line)) {
		BAD("last error \"%s\", want \"%s\"", cut, rd.last_error, line);
	}
#undef BAD
out:
	tt_read_release(&rd);
	return ok;
}

static void cut_everywhere(const struct tt_buf *b, bool has_footer, unsigned min_chunks)
{
	struct tt_unit *u = malloc(TT_MAX_CHUNKS * sizeof(*u));
	struct tt_read ref;
	size_t nu, strings = 0, fails = 0;

	REQUIRE(u != NULL);
	nu = tt_units(b, u, TT_MAX_CHUNKS);
	for (size_t i = 0; i < nu; i++) {
		strings += u[i].kind == GPT_KIND_STRING;
	}
	/* The trace is what the test needs: many chunks, several of strings. */
	CHECK(nu >= min_chunks);
	CHECK(strings >= 2);
	CHECK_EQ_U(u[nu - 1].end, b->len);
	tt_read_all(b->p, b->len, "ref.gpz", &ref);
	REQUIRE(ref.open_ret == 0 && ref.next_ret == 0 && ref.strings_ok);
	CHECK_EQ_U(ref.st.has_footer, has_footer);

	for (size_t cut = 0; cut <= b->len && fails < 5; cut++) {
		fails += !check_cut(b, &ref, u, nu, cut, has_footer);
	}
	tt_read_release(&ref);
	free(u);
}

static void small_trace(struct gen_opts *go)
{
	gen_opts_default(go);
	go->seed = 77;
	go->steps = 2;
	go->kernels_per_step = 12;
	go->copies_per_step = 2;
	go->nvtx_depth = 1;
	go->all_kinds = true;
}

TEST(truncation_every_offset_compressed)
{
	struct gen_opts go;
	struct gpt_writer_opts wo = {.level = 6, .chunk_records = 5};
	struct tt_buf b;

	small_trace(&go);
	REQUIRE(tt_gen_trace(&go, &wo, &b) == 0);
	cut_everywhere(&b, true, 30);
	tt_buf_free(&b);
}

TEST(truncation_every_offset_uncompressed)
{
	struct gen_opts go;
	struct gpt_writer_opts wo = {.level = 0, .chunk_records = 3};
	struct tt_buf b;

	small_trace(&go);
	go.steps = 1;
	go.seed = 78;
	REQUIRE(tt_gen_trace(&go, &wo, &b) == 0);
	cut_everywhere(&b, true, 30);
	tt_buf_free(&b);
}

TEST(truncation_abandoned_writer)
{
	/* A writer killed after a flush: no index, no trailer; every prefix still reads. */
	struct gen_opts go;
	struct gpt_writer_opts wo = {.level = 1, .chunk_records = 4};
	struct tt_mem_writer mw;
	struct gen_stats gs;
	struct tt_buf b;

	small_trace(&go);
	go.steps = 1;
	REQUIRE(tt_writer_open(&mw, &wo) == 0);
	REQUIRE(gen_write(mw.w, &go, &gs) == 0);
	REQUIRE(gpt_writer_flush(mw.w) == 0);
	REQUIRE(tt_writer_abandon_finish(&mw, &b) == 0);
	/* Without a footer the walk ends at the file's end, not 24 bytes before it. */
	struct tt_chunk ch[TT_MAX_CHUNKS];
	uint64_t end;
	size_t n = tt_walk(b.p, b.len, ch, TT_MAX_CHUNKS, &end);
	CHECK(n > 10);
	CHECK_EQ_U(end, b.len);
	for (size_t i = 0; i < n; i++) {
		CHECK(ch[i].kind != GPT_KIND_INDEX);
	}
	/* tt_units() takes the last 24 bytes as a trailer; fake one so the layout holds. */
	uint8_t *p = realloc(b.p, b.len + GPT_TRAILER_SIZE);
	REQUIRE(p != NULL);
	b.p = p;
	memset(b.p + b.len, 'x', GPT_TRAILER_SIZE);
	struct tt_unit *u = malloc(TT_MAX_CHUNKS * sizeof(*u));
	REQUIRE(u != NULL);
	struct tt_buf whole = {b.p, b.len + GPT_TRAILER_SIZE};
	size_t nu = tt_units(&whole, u, TT_MAX_CHUNKS);
	CHECK_EQ_U(nu, n + 1);
	/* The footerless file read whole, then every prefix of it. */
	struct tt_read ref;
	tt_read_all(b.p, b.len, "ref.gpz", &ref);
	REQUIRE(ref.open_ret == 0 && ref.next_ret == 0);
	CHECK(!ref.st.has_footer && ref.st.truncated);
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		CHECK_EQ_U(ref.recs[k].n, gs.records[k]);
	}
	size_t fails = 0;
	for (size_t cut = 0; cut <= b.len && fails < 5; cut++) {
		fails += !check_cut(&b, &ref, u, nu - 1, cut, false);
	}
	tt_read_release(&ref);
	free(u);
	tt_buf_free(&b);
}

TEST(truncation_file_on_disk)
{
	/* The same through gpt_reader_open on real files, at a few cuts. */
	struct gen_opts go;
	struct gpt_writer_opts wo = {.level = 1, .chunk_records = 7};
	struct tt_buf b;
	char path[300];

	small_trace(&go);
	REQUIRE(tt_gen_trace(&go, &wo, &b) == 0);
	snprintf(path, sizeof(path), "%s/cut.gpz", test_tmpdir());
	const size_t cuts[] = {0,         5,          31,         32,        33,   100,
			       b.len / 2, b.len - 25, b.len - 24, b.len - 1, b.len};
	for (size_t i = 0; i < GP_ARRAY_SIZE(cuts); i++) {
		FILE *f = fopen(path, "wb");
		REQUIRE(f != NULL);
		CHECK_EQ_U(fwrite(b.p, 1, cuts[i], f), cuts[i]);
		fclose(f);
		struct gpt_reader *r = NULL;
		struct gpt_chunk ch;
		int ret = gpt_reader_open(path, &r);
		REQUIRE(r != NULL);
		if (cuts[i] < GPT_FILE_HEADER_SIZE) {
			CHECK_EQ_I(ret, -GP_ERR_TRUNCATED);
			CHECK_CONTAINS(gpt_reader_last_error(r), "truncated");
			gpt_reader_free(r);
			continue;
		}
		REQUIRE(ret == 0);
		while ((ret = gpt_reader_next(r, &ch)) == 1) {
		}
		CHECK_EQ_I(ret, 0);
		struct gpt_reader_status st;
		gpt_reader_get_status(r, &st);
		CHECK_EQ_U(st.file_bytes, cuts[i]);
		CHECK_EQ_U(st.truncated, cuts[i] != b.len);
		CHECK_EQ_U(st.has_footer, cuts[i] == b.len);
		CHECK_STR(gpt_reader_name(r), path);
		gpt_reader_free(r);
	}
	/* A missing file and a directory are I/O errors with an explanation. */
	struct gpt_reader *r = NULL;
	snprintf(path, sizeof(path), "%s/missing.gpz", test_tmpdir());
	CHECK_EQ_I(gpt_reader_open(path, &r), -GP_ERR_IO);
	REQUIRE(r != NULL);
	CHECK_CONTAINS(gpt_reader_last_error(r), "cannot open");
	gpt_reader_free(r);
	r = NULL;
	CHECK_EQ_I(gpt_reader_open(test_tmpdir(), &r), -GP_ERR_IO);
	REQUIRE(r != NULL);
	CHECK_CONTAINS(gpt_reader_last_error(r), "not a regular file");
	gpt_reader_free(r);
	tt_buf_free(&b);
}
