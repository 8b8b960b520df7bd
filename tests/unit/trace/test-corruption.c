/* SPDX-License-Identifier: MIT */
/*
 * test-corruption.c - damaged traces: bit flips in every field of chunk
 * headers, in payloads and in the file header; headers with a valid CRC but
 * hostile values; chunks built by hand with a valid CRC and hostile content.
 * The reader must name the chunk, its offset and the reason (reader.c and
 * codec.c hold the texts), skip what it cannot use, and read on.
 */
#include "base/compat.h"
#include "tests/unit/trace/trace-test.h"
#include "tests/unit/test.h"

#include <sys/resource.h>

/* ------------------------------------------------------------ fixtures */

struct fixture {
	struct tt_buf b;
	struct tt_unit u[TT_MAX_CHUNKS];
	size_t nu; /* chunks, then the trailer */
	struct tt_read ref;
};

static bool fixture_init(struct fixture *fx, int level, uint32_t chunk_records, uint64_t seed)
{
	struct gen_opts go;
	struct gpt_writer_opts wo = {.level = level, .chunk_records = chunk_records};

	gen_opts_default(&go);
	go.seed = seed;
	go.steps = 2;
	go.kernels_per_step = 12;
	go.copies_per_step = 2;
	go.nvtx_depth = 1;
	go.all_kinds = true;
	if (tt_gen_trace(&go, &wo, &fx->b)) {
		return false;
	}
	fx->nu = tt_units(&fx->b, fx->u, TT_MAX_CHUNKS);
	tt_read_all(fx->b.p, fx->b.len, "ref.gpz", &fx->ref);
	return fx->ref.open_ret == 0 && fx->ref.next_ret == 0 && fx->ref.st.has_footer &&
	       fx->ref.nproblems == 0 && fx->nu > 20;
}

static void fixture_release(struct fixture *fx)
{
	tt_read_release(&fx->ref);
	tt_buf_free(&fx->b);
}

static bool is_record_chunk(const struct tt_unit *u)
{
	return u->kind != GPT_KIND_STRING && u->kind != GPT_KIND_INDEX && u->kind != 0;
}

/* The fixture's first chunk of kind k, by unit index. */
static size_t find_chunk(const struct fixture *fx, unsigned k, size_t from)
{
	for (size_t i = from; i + 1 < fx->nu; i++) {
		if (fx->u[i].kind == k) {
			return i;
		}
	}
	return SIZE_MAX;
}

/*
 * rd holds exactly the reference's records minus those of the chunks marked
 * in skip (by unit index), in order.
 */
static bool records_except(const struct fixture *fx, const struct tt_read *rd, const bool *skip)
{
	size_t ref_pos[GPT_KIND__MAX] = {0}, pos[GPT_KIND__MAX] = {0};

	for (size_t i = 0; i < fx->nu; i++) {
		const struct tt_unit *u = &fx->u[i];
		if (!is_record_chunk(u)) {
			continue;
		}
		const struct gpt_kind_info *ki = gpt_kind_info(u->kind);
		if (skip && skip[i]) {
			ref_pos[u->kind] += u->count;
			continue;
		}
		for (uint32_t j = 0; j < u->count; j++) {
			if (pos[u->kind] >= rd->recs[u->kind].n) {
				TFAIL("too few %s records read", ki->name);
				return false;
			}
			const struct gpt_field *f =
				tt_rec_diff(ki, rd->recs[u->kind].v + pos[u->kind] * ki->size,
					    fx->ref.recs[u->kind].v + ref_pos[u->kind] * ki->size);
			if (f) {
				TFAIL("%s record %zu differs in %s", ki->name, pos[u->kind],
				      f->name);
				return false;
			}
			pos[u->kind]++;
			ref_pos[u->kind]++;
		}
	}
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		if (pos[k] != rd->recs[k].n) {
			TFAIL("%zu %s records read, %zu expected", rd->recs[k].n,
			      gpt_kind_info(k)->name, pos[k]);
			return false;
		}
	}
	return true;
}

/*
 * The outcome of one damaged chunk whose length can still be trusted (or is
 * found again by resync): one problem naming the chunk, its offset, the error
 * and the reason; the chunk's bytes skipped; every other record read; the
 * footer still found.
 */
static bool expect_one_skipped(const struct fixture *fx, const uint8_t *p, size_t len,
			       size_t victim, int err, const char *reason, bool reason_is_prefix,
			       const char *what)
{
	struct tt_read rd;
	bool skip[TT_MAX_CHUNKS] = {false};
	bool ok = false;
	char line[400];

	tt_read_all(p, len, "bad.gpz", &rd);
	skip[victim] = true;
	if (rd.open_ret || rd.next_ret) {
		TFAIL("%s: open %d, next %d: %s", what, rd.open_ret, rd.next_ret, rd.last_error);
		goto out;
	}
	if (rd.nproblems != 1 || rd.st.problems != 1) {
		TFAIL("%s: %zu problems (%" PRIu64 " counted), last: %s", what, rd.nproblems,
		      rd.st.problems, rd.last_error);
		goto out;
	}
	const struct gpt_problem *pr = &rd.problems[0];
	if (pr->chunk_index != victim || pr->offset != fx->u[victim].off || pr->err != err) {
		TFAIL("%s: problem at chunk %u offset %" PRIu64 " err %d (%s), want chunk %zu "
		      "offset %" PRIu64 " err %d",
		      what, pr->chunk_index, pr->offset, pr->err, pr->reason, victim,
		      fx->u[victim].off, err);
		goto out;
	}
	if (reason_is_prefix ? strncmp(pr->reason, reason, strlen(reason))
			     : strcmp(pr->reason, reason)) {
		TFAIL("%s: reason \"%s\", want \"%s\"%s", what, pr->reason, reason,
		      reason_is_prefix ? "..." : "");
		goto out;
	}
	snprintf(line, sizeof(line), "bad.gpz: chunk %zu at offset %" PRIu64 ": %s", victim,
		 fx->u[victim].off, pr->reason);
	if (strcmp(rd.last_error, line)) {
		TFAIL("%s: last error \"%s\", want \"%s\"", what, rd.last_error, line);
		goto out;
	}
	if (!rd.st.has_footer || rd.st.truncated ||
	    rd.st.bytes_skipped != fx->u[victim].end - fx->u[victim].off) {
		TFAIL("%s: footer %d truncated %d skipped %" PRIu64 " of %" PRIu64, what,
		      rd.st.has_footer, rd.st.truncated, rd.st.bytes_skipped,
		      fx->u[victim].end - fx->u[victim].off);
		goto out;
	}
	if (!records_except(fx, &rd, skip)) {
		TFAIL("%s: wrong records after the skipped chunk", what);
		goto out;
	}
	/* Records after a lost string chunk may lack their strings; others must not. */
	if (fx->u[victim].kind != GPT_KIND_STRING && !rd.strings_ok) {
		TFAIL("%s: strings lost with a record chunk", what);
		goto out;
	}
	ok = true;
out:
	tt_read_release(&rd);
	return ok;
}

/* Header field byte ranges (offset, size) and names. */
static const struct {
	unsigned off, size;
	const char *name;
} hdr_fields[] = {
	{0, 4, "magic"},    {4, 2, "kind"},        {6, 2, "flags"},       {8, 4, "count"},
	{12, 4, "raw_len"}, {16, 4, "stored_len"}, {20, 4, "raw_crc"},    {24, 8, "first_ts"},
	{32, 8, "last_ts"}, {40, 4, "reserved"},   {44, 4, "header crc"},
};

/* ------------------------------------------------ chunk header bit flips */

static void header_flips(int level, uint64_t seed)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct gp_rng rng;
	unsigned fails = 0, cases = 0;

	REQUIRE(fx && fixture_init(fx, level, 5, seed));
	gp_rng_seed(&rng, seed);
	uint8_t *p = malloc(fx->b.len);
	REQUIRE(p != NULL);
	/* Every chunk but the index (its loss is the footer's: see index_chunk_corrupt). */
	for (size_t v = 0; v + 1 < fx->nu && fails < 5; v++) {
		if (fx->u[v].kind == GPT_KIND_INDEX) {
			continue;
		}
		for (size_t fi = 0; fi < GP_ARRAY_SIZE(hdr_fields); fi++) {
			for (int rep = 0; rep < 3; rep++) {
				unsigned bit =
					(unsigned)gp_rng_below(&rng, hdr_fields[fi].size * 8);
				size_t at = fx->u[v].off + hdr_fields[fi].off + bit / 8;
				char what[120], reason[120];
				memcpy(p, fx->b.p, fx->b.len);
				p[at] ^= (uint8_t)(1u << (bit % 8));
				snprintf(what, sizeof(what), "chunk %zu %s bit %u", v,
					 hdr_fields[fi].name, bit);
				bool magic = hdr_fields[fi].off == 0;
				snprintf(reason, sizeof(reason), "%s; skipped %" PRIu64 " bytes",
					 magic ? "bad chunk magic" : "bad chunk header crc",
					 fx->u[v].end - fx->u[v].off);
				fails += !expect_one_skipped(fx, p, fx->b.len, v,
							     magic ? -GP_ERR_FORMAT
								   : -GP_ERR_CHECKSUM,
							     reason, false, what);
				cases++;
			}
		}
	}
	CHECK(cases > 1000);
	free(p);
	fixture_release(fx);
	free(fx);
}

TEST(corrupt_chunk_header_bits_compressed)
{
	header_flips(6, 11);
}

TEST(corrupt_chunk_header_bits_uncompressed)
{
	header_flips(0, 12);
}

TEST(corrupt_chunk_header_every_bit)
{
	/* All 384 bits of the header of one kernel chunk, one at a time. */
	struct fixture *fx = calloc(1, sizeof(*fx));
	unsigned fails = 0;

	REQUIRE(fx && fixture_init(fx, 1, 5, 13));
	size_t v = find_chunk(fx, GPT_KIND_KERNEL, 0);
	REQUIRE(v != SIZE_MAX);
	uint8_t *p = malloc(fx->b.len);
	REQUIRE(p != NULL);
	for (unsigned bit = 0; bit < GPT_CHUNK_HEADER_SIZE * 8 && fails < 5; bit++) {
		char what[64], reason[120];
		memcpy(p, fx->b.p, fx->b.len);
		p[fx->u[v].off + bit / 8] ^= (uint8_t)(1u << (bit % 8));
		snprintf(what, sizeof(what), "header bit %u", bit);
		snprintf(reason, sizeof(reason), "%s; skipped %" PRIu64 " bytes",
			 bit < 32 ? "bad chunk magic" : "bad chunk header crc",
			 fx->u[v].end - fx->u[v].off);
		fails += !expect_one_skipped(fx, p, fx->b.len, v,
					     bit < 32 ? -GP_ERR_FORMAT : -GP_ERR_CHECKSUM, reason,
					     false, what);
	}
	free(p);
	fixture_release(fx);
	free(fx);
}

TEST(corrupt_two_headers_in_a_row)
{
	/* Resync skips both damaged chunks as one region, one problem. */
	struct fixture *fx = calloc(1, sizeof(*fx));

	REQUIRE(fx && fixture_init(fx, 1, 5, 14));
	size_t v = find_chunk(fx, GPT_KIND_API, 1);
	REQUIRE(v != SIZE_MAX && is_record_chunk(&fx->u[v + 1]));
	uint8_t *p = malloc(fx->b.len);
	REQUIRE(p != NULL);
	memcpy(p, fx->b.p, fx->b.len);
	p[fx->u[v].off + 9] ^= 0x10;
	p[fx->u[v + 1].off + 1] ^= 0x01;
	struct tt_read rd;
	bool skip[TT_MAX_CHUNKS] = {false};
	skip[v] = skip[v + 1] = true;
	tt_read_all(p, fx->b.len, "bad.gpz", &rd);
	CHECK_EQ_I(rd.next_ret, 0);
	CHECK_EQ_U(rd.nproblems, 1);
	CHECK_EQ_U(rd.problems[0].chunk_index, v);
	CHECK_EQ_U(rd.problems[0].offset, fx->u[v].off);
	char reason[100];
	snprintf(reason, sizeof(reason), "bad chunk header crc; skipped %" PRIu64 " bytes",
		 fx->u[v + 1].end - fx->u[v].off);
	CHECK_STR(rd.problems[0].reason, reason);
	CHECK_EQ_U(rd.st.bytes_skipped, fx->u[v + 1].end - fx->u[v].off);
	CHECK(rd.st.has_footer && !rd.st.truncated);
	CHECK(records_except(fx, &rd, skip));
	tt_read_release(&rd);
	free(p);
	fixture_release(fx);
	free(fx);
}

/* ------------------------------------ chunk headers with a valid CRC, bad values */

typedef void (*mutate_fn)(uint8_t *h, const struct tt_unit *u);

/* Applies m to the header of chunk v in a copy, fixes the header CRC, and checks the skip. */
static bool forged(const struct fixture *fx, size_t v, mutate_fn m, int err, const char *reason,
		   bool prefix, const char *what)
{
	uint8_t *p = malloc(fx->b.len);
	bool ok;

	if (!p) {
		abort();
	}
	memcpy(p, fx->b.p, fx->b.len);
	m(p + fx->u[v].off, &fx->u[v]);
	tt_fix_chunk_crc(p, fx->u[v].off);
	ok = expect_one_skipped(fx, p, fx->b.len, v, err, reason, prefix, what);
	free(p);
	return ok;
}

static void m_unknown_flag(uint8_t *h, const struct tt_unit *u)
{
	(void)u;
	gp_put_le16(h + 6, gp_get_le16(h + 6) | 0x8);
}
static void m_clear_deflate(uint8_t *h, const struct tt_unit *u)
{
	(void)u;
	gp_put_le16(h + 6, 0);
}
static void m_set_deflate(uint8_t *h, const struct tt_unit *u)
{
	(void)u;
	gp_put_le16(h + 6, GPT_CHUNK_FLAG_DEFLATE);
}
static void m_count_limit(uint8_t *h, const struct tt_unit *u)
{
	(void)u;
	gp_put_le32(h + 8, GPT_MAX_CHUNK_RECORDS + 1);
}
static void m_count_max(uint8_t *h, const struct tt_unit *u)
{
	(void)u;
	gp_put_le32(h + 8, UINT32_MAX);
}
static void m_count_plus(uint8_t *h, const struct tt_unit *u)
{
	gp_put_le32(h + 8, u->count + 1);
}
static void m_count_zero(uint8_t *h, const struct tt_unit *u)
{
	(void)u;
	gp_put_le32(h + 8, 0);
}
static void m_raw_len_limit(uint8_t *h, const struct tt_unit *u)
{
	(void)u;
	gp_put_le32(h + 12, GPT_MAX_CHUNK_BYTES + 1);
}
static void m_raw_len_plus(uint8_t *h, const struct tt_unit *u)
{
	(void)u;
	gp_put_le32(h + 12, gp_get_le32(h + 12) + 1);
}
static void m_raw_len_minus(uint8_t *h, const struct tt_unit *u)
{
	(void)u;
	gp_put_le32(h + 12, gp_get_le32(h + 12) - 1);
}
static void m_raw_crc(uint8_t *h, const struct tt_unit *u)
{
	(void)u;
	h[20] ^= 0x40;
}

TEST(forged_chunk_headers)
{
	struct fixture *fx = calloc(1, sizeof(*fx)), *fu = calloc(1, sizeof(*fu));
	char reason[160];

	REQUIRE(fx && fixture_init(fx, 6, 5, 21));
	REQUIRE(fu && fixture_init(fu, 0, 5, 21));
	size_t k = find_chunk(fx, GPT_KIND_KERNEL, 0), ku = find_chunk(fu, GPT_KIND_KERNEL, 0);
	size_t s = find_chunk(fx, GPT_KIND_STRING, 0);
	REQUIRE(k != SIZE_MAX && ku != SIZE_MAX && s != SIZE_MAX);
	REQUIRE(gp_get_le16(fx->b.p + fx->u[k].off + 6) == GPT_CHUNK_FLAG_DEFLATE);
	REQUIRE(gp_get_le16(fu->b.p + fu->u[ku].off + 6) == 0);

	CHECK(forged(fx, k, m_unknown_flag, -GP_ERR_FORMAT, "unknown chunk flags 0x9", false,
		     "flags 0x9"));
	CHECK(forged(fu, ku, m_unknown_flag, -GP_ERR_FORMAT, "unknown chunk flags 0x8", false,
		     "flags 0x8"));
	CHECK(forged(fx, k, m_clear_deflate, -GP_ERR_FORMAT,
		     "stored and raw lengths differ in an uncompressed chunk", false,
		     "deflate flag cleared"));
	CHECK(forged(fu, ku, m_set_deflate, -GP_ERR_FORMAT, "cannot inflate the chunk: ", true,
		     "deflate flag on stored bytes"));
	snprintf(reason, sizeof(reason), "%u records exceed the format's limit of %u per chunk",
		 GPT_MAX_CHUNK_RECORDS + 1, GPT_MAX_CHUNK_RECORDS);
	CHECK(forged(fx, k, m_count_limit, -GP_ERR_FORMAT, reason, false, "count limit"));
	CHECK(forged(fx, s, m_count_limit, -GP_ERR_FORMAT, reason, false, "string count limit"));
	snprintf(reason, sizeof(reason), "%u records exceed the format's limit of %u per chunk",
		 UINT32_MAX, GPT_MAX_CHUNK_RECORDS);
	CHECK(forged(fx, k, m_count_max, -GP_ERR_FORMAT, reason, false, "count max"));
	/* Kernel columns vary from record to record: one more record cannot be filled. */
	CHECK(forged(fx, k, m_count_plus, -GP_ERR_FORMAT,
		     "bad kernel chunk: column does not hold one value per record", false,
		     "count + 1"));
	CHECK(forged(fu, ku, m_count_zero, -GP_ERR_FORMAT,
		     "bad kernel chunk: column does not hold one value per record", false,
		     "count 0"));
	CHECK(forged(fx, s, m_count_plus, -GP_ERR_FORMAT,
		     "bad string chunk: string longer than its chunk", false, "string count + 1"));
	snprintf(reason, sizeof(reason), "chunk of %u bytes exceeds the format's limit",
		 GPT_MAX_CHUNK_BYTES + 1);
	CHECK(forged(fx, k, m_raw_len_limit, -GP_ERR_FORMAT, reason, false, "raw_len limit"));
	CHECK(forged(fx, k, m_raw_len_plus, -GP_ERR_FORMAT,
		     "cannot inflate the chunk: wrong length", false, "raw_len + 1"));
	CHECK(forged(fx, k, m_raw_len_minus, -GP_ERR_FORMAT, "cannot inflate the chunk: ", true,
		     "raw_len - 1"));
	CHECK(forged(fu, ku, m_raw_len_plus, -GP_ERR_FORMAT,
		     "stored and raw lengths differ in an uncompressed chunk", false,
		     "stored raw_len + 1"));
	CHECK(forged(fx, k, m_raw_crc, -GP_ERR_CHECKSUM, "bad chunk crc", false, "raw_crc"));
	CHECK(forged(fu, ku, m_raw_crc, -GP_ERR_CHECKSUM, "bad chunk crc", false,
		     "stored raw_crc"));
	CHECK(forged(fx, s, m_raw_crc, -GP_ERR_CHECKSUM, "bad chunk crc", false, "string raw_crc"));
	fixture_release(fx);
	fixture_release(fu);
	free(fx);
	free(fu);
}

TEST(forged_header_accepted_fields)
{
	/*
	 * Fields the reader passes through: a kind it does not know (a newer
	 * minor's) is skipped silently; timestamps and the reserved word are
	 * not checked, the chunk reads as before.
	 */
	struct fixture *fx = calloc(1, sizeof(*fx));
	REQUIRE(fx && fixture_init(fx, 1, 5, 22));
	size_t k = find_chunk(fx, GPT_KIND_KERNEL, 0);
	REQUIRE(k != SIZE_MAX);
	uint8_t *p = malloc(fx->b.len);
	REQUIRE(p != NULL);

	memcpy(p, fx->b.p, fx->b.len);
	gp_put_le16(p + fx->u[k].off + 4, 100);
	tt_fix_chunk_crc(p, fx->u[k].off);
	struct tt_read rd;
	bool skip[TT_MAX_CHUNKS] = {false};
	skip[k] = true;
	tt_read_all(p, fx->b.len, "bad.gpz", &rd);
	CHECK_EQ_I(rd.next_ret, 0);
	CHECK_EQ_U(rd.nproblems, 0);
	CHECK(rd.st.has_footer && !rd.st.truncated);
	CHECK(records_except(fx, &rd, skip));
	tt_read_release(&rd);

	memcpy(p, fx->b.p, fx->b.len);
	gp_put_le64(p + fx->u[k].off + 24, 42);
	gp_put_le64(p + fx->u[k].off + 32, 4242);
	gp_put_le32(p + fx->u[k].off + 40, 0xdeadbeef);
	tt_fix_chunk_crc(p, fx->u[k].off);
	struct gpt_reader *r;
	struct gpt_chunk ch;
	REQUIRE(gpt_reader_open_mem(p, fx->b.len, "ts.gpz", &r) == 0);
	bool found = false;
	while (gpt_reader_next(r, &ch) == 1) {
		if (ch.offset == fx->u[k].off) {
			found = true;
			CHECK_EQ_U(ch.first_ts, 42);
			CHECK_EQ_U(ch.last_ts, 4242);
			CHECK_EQ_U(ch.count, fx->u[k].count);
		}
	}
	CHECK(found);
	size_t np;
	gpt_reader_problems(r, &np);
	CHECK_EQ_U(np, 0);
	gpt_reader_free(r);
	free(p);
	fixture_release(fx);
	free(fx);
}

TEST(forged_stored_len)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	REQUIRE(fx && fixture_init(fx, 6, 5, 23));
	size_t k = find_chunk(fx, GPT_KIND_KERNEL, 0);
	REQUIRE(k != SIZE_MAX && is_record_chunk(&fx->u[k + 1]));
	uint8_t *p = malloc(fx->b.len);
	REQUIRE(p != NULL);
	const struct tt_unit *u = &fx->u[k];
	struct tt_read rd;
	bool skip[TT_MAX_CHUNKS] = {false};
	skip[k] = true;

	/*
	 * One byte short: the stream is cut, and the next header is looked for
	 * one byte early; resync finds it one byte on. Two problems, nothing else lost.
	 */
	memcpy(p, fx->b.p, fx->b.len);
	gp_put_le32(p + u->off + 16, gp_get_le32(p + u->off + 16) - 1);
	tt_fix_chunk_crc(p, u->off);
	tt_read_all(p, fx->b.len, "bad.gpz", &rd);
	CHECK_EQ_I(rd.next_ret, 0);
	REQUIRE(rd.nproblems == 2);
	CHECK_EQ_U(rd.problems[0].chunk_index, k);
	CHECK_EQ_U(rd.problems[0].offset, u->off);
	CHECK_CONTAINS(rd.problems[0].reason, "cannot inflate the chunk: ");
	CHECK_EQ_U(rd.problems[1].chunk_index, k + 1);
	CHECK_EQ_U(rd.problems[1].offset, u->end - 1);
	CHECK_STR(rd.problems[1].reason, "bad chunk magic; skipped 1 bytes");
	CHECK(rd.st.has_footer && !rd.st.truncated);
	CHECK_EQ_U(rd.st.problems, 2);
	CHECK(records_except(fx, &rd, skip));
	tt_read_release(&rd);

	/*
	 * Past the end of a file that ends with its trailer: the file is whole,
	 * so the length is corrupt, not the file cut; reading goes on after it.
	 */
	memcpy(p, fx->b.p, fx->b.len);
	gp_put_le32(p + u->off + 16, (uint32_t)fx->b.len);
	tt_fix_chunk_crc(p, u->off);
	tt_read_all(p, fx->b.len, "bad.gpz", &rd);
	CHECK_EQ_I(rd.next_ret, 0);
	REQUIRE(rd.nproblems == 1);
	CHECK_EQ_I(rd.problems[0].err, -GP_ERR_FORMAT);
	CHECK_EQ_U(rd.problems[0].offset, u->off);
	char reason[160];
	snprintf(reason, sizeof(reason),
		 "bad chunk length: %" PRIu64 " bytes past the end of the file; skipped %" PRIu64
		 " bytes", u->off + GPT_CHUNK_HEADER_SIZE, u->end - u->off);
	CHECK_STR(rd.problems[0].reason, reason);
	CHECK(!rd.st.truncated && rd.st.has_footer);
	for (size_t i = 0; i < fx->nu; i++) {
		skip[i] = i == k;
	}
	CHECK(records_except(fx, &rd, skip));
	tt_read_release(&rd);
	free(p);
	fixture_release(fx);
	free(fx);
}

/* ------------------------------------------------------------ payload flips */

static void payload_flips(int level, uint64_t seed)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct gp_rng rng;
	unsigned fails = 0, cases = 0, inflate_fail = 0, benign = 0;

	REQUIRE(fx && fixture_init(fx, level, 5, seed));
	gp_rng_seed(&rng, seed);
	uint8_t *p = malloc(fx->b.len);
	REQUIRE(p != NULL);
	for (size_t v = 0; v + 1 < fx->nu && fails < 5; v++) {
		const struct tt_unit *u = &fx->u[v];
		if (u->kind == GPT_KIND_INDEX) {
			continue;
		}
		bool deflated = gp_get_le16(fx->b.p + u->off + 6) & GPT_CHUNK_FLAG_DEFLATE;
		/* Each payload byte once, a random bit of it. */
		for (uint64_t at = u->off + GPT_CHUNK_HEADER_SIZE; at < u->end && fails < 5; at++) {
			unsigned bit = (unsigned)gp_rng_below(&rng, 8);
			char what[100];
			memcpy(p, fx->b.p, fx->b.len);
			p[at] ^= (uint8_t)(1u << bit);
			snprintf(what, sizeof(what), "chunk %zu payload byte %" PRIu64 " bit %u", v,
				 at - u->off - GPT_CHUNK_HEADER_SIZE, bit);
			if (!deflated) {
				fails += !expect_one_skipped(fx, p, fx->b.len, v, -GP_ERR_CHECKSUM,
							     "bad chunk crc", false, what);
				cases++;
				continue;
			}
			/* A damaged stream fails to inflate, or inflates to bytes the CRC rejects.
			 */
			struct tt_read rd;
			tt_read_all(p, fx->b.len, "bad.gpz", &rd);
			const char *rs = rd.nproblems ? rd.problems[0].reason : "";
			bool inflate = !strncmp(rs, "cannot inflate the chunk: ", 26);
			inflate_fail += inflate;
			if (rd.nproblems == 0) {
				/* Padding bits after the last block: the same bytes come out. */
				fails += !records_except(fx, &rd, NULL) || !rd.st.has_footer;
				benign++;
			} else if (rd.nproblems == 1 && inflate) {
				fails += !expect_one_skipped(fx, p, fx->b.len, v, -GP_ERR_FORMAT,
							     "cannot inflate the chunk: ", true,
							     what);
			} else {
				fails += !expect_one_skipped(fx, p, fx->b.len, v, -GP_ERR_CHECKSUM,
							     "bad chunk crc", false, what);
			}
			tt_read_release(&rd);
			cases++;
		}
	}
	CHECK(cases > 500);
	if (level > 0) {
		CHECK(inflate_fail > 10);
		CHECK(benign < cases / 20);
	} else {
		CHECK_EQ_U(benign, 0);
	}
	free(p);
	fixture_release(fx);
	free(fx);
}

TEST(corrupt_payload_uncompressed)
{
	payload_flips(0, 31);
}

TEST(corrupt_payload_compressed)
{
	payload_flips(9, 32);
}

/* ---------------------------------------------------------- file header */

static void open_expect(const uint8_t *p, size_t len, int err, const char *msg)
{
	struct gpt_reader *r = NULL;
	int ret = gpt_reader_open_mem(p, len, "hdr.gpz", &r);

	CHECK_EQ_I(ret, err);
	REQUIRE(r != NULL);
	CHECK_STR(gpt_reader_last_error(r), msg);
	gpt_reader_free(r);
}

TEST(corrupt_file_header)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	REQUIRE(fx && fixture_init(fx, 1, 5, 41));
	uint8_t *p = malloc(fx->b.len + 64);
	REQUIRE(p != NULL);

	/* Every bit of the magic. */
	for (unsigned bit = 0; bit < 64; bit++) {
		memcpy(p, fx->b.p, fx->b.len);
		p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		open_expect(p, fx->b.len, -GP_ERR_FORMAT,
			    "hdr.gpz: not a gpuprof trace (bad magic)");
	}
	/* A file shorter than the magic that does not start like it is no trace either. */
	open_expect((const uint8_t *)"\x89GQ", 3, -GP_ERR_FORMAT,
		    "hdr.gpz: not a gpuprof trace (bad magic)");
	open_expect((const uint8_t *)"\x89GP", 3, -GP_ERR_TRUNCATED,
		    "hdr.gpz: truncated: 3 bytes, shorter than the 32-byte file header");
	/*
	 * A newer major with a valid CRC is refused by name; the same bytes with
	 * a stale CRC are a damaged header (a flipped version bit), not a newer file.
	 */
	memcpy(p, fx->b.p, fx->b.len);
	gp_put_le16(p + 8, 3);
	gp_put_le16(p + 10, 0);
	open_expect(p, fx->b.len, -GP_ERR_CHECKSUM,
		    "hdr.gpz: bad file header: crc mismatch (it claims trace format 3.0)");
	tt_fix_file_crc(p);
	open_expect(p, fx->b.len, -GP_ERR_VERSION,
		    "hdr.gpz: written in trace format 3.0, newer than this gpuprof reads (2.x); "
		    "upgrade gpuprof");
	gp_put_le16(p + 8, 65535);
	gp_put_le16(p + 10, 7);
	tt_fix_file_crc(p);
	open_expect(
		p, fx->b.len, -GP_ERR_VERSION,
		"hdr.gpz: written in trace format 65535.7, newer than this gpuprof reads (2.x); "
		"upgrade gpuprof");
	memcpy(p, fx->b.p, fx->b.len);
	gp_put_le16(p + 8, 0);
	tt_fix_file_crc(p);
	open_expect(p, fx->b.len, -GP_ERR_FORMAT, "hdr.gpz: bad file header: format version 0");
	/* Every bit of flags, created time and the CRC itself. */
	for (unsigned byte = 12; byte < 32; byte++) {
		if (byte >= 16 && byte < 20) {
			continue; /* the header length: below */
		}
		for (unsigned bit = 0; bit < 8; bit++) {
			memcpy(p, fx->b.p, fx->b.len);
			p[byte] ^= (uint8_t)(1u << bit);
			open_expect(p, fx->b.len, -GP_ERR_CHECKSUM,
				    "hdr.gpz: bad file header: crc mismatch");
		}
	}
	/* The minor version is not checked by CRC-less means: flipping it breaks the CRC. */
	memcpy(p, fx->b.p, fx->b.len);
	p[10] ^= 1;
	open_expect(p, fx->b.len, -GP_ERR_CHECKSUM, "hdr.gpz: bad file header: crc mismatch");
	/* Header lengths outside 32..4096. */
	memcpy(p, fx->b.p, fx->b.len);
	gp_put_le32(p + 16, 16);
	tt_fix_file_crc(p);
	open_expect(p, fx->b.len, -GP_ERR_FORMAT, "hdr.gpz: bad file header: header length 16");
	gp_put_le32(p + 16, 4097);
	tt_fix_file_crc(p);
	open_expect(p, fx->b.len, -GP_ERR_FORMAT, "hdr.gpz: bad file header: header length 4097");
	gp_put_le32(p + 16, 0x40000020);
	tt_fix_file_crc(p);
	open_expect(p, fx->b.len, -GP_ERR_FORMAT,
		    "hdr.gpz: bad file header: header length 1073741856");
	/* A longer header whose CRC is then in the wrong place, and one longer than the file. */
	memcpy(p, fx->b.p, fx->b.len);
	gp_put_le32(p + 16, 64);
	tt_fix_file_crc(p);
	open_expect(p, fx->b.len, -GP_ERR_CHECKSUM, "hdr.gpz: bad file header: crc mismatch");
	open_expect(p, 40, -GP_ERR_TRUNCATED, "hdr.gpz: truncated inside the file header");
	free(p);
	fixture_release(fx);
	free(fx);
}

TEST(file_header_newer_minor_and_longer_header)
{
	/* A newer minor and a longer header (fields this reader does not know) read fine. */
	struct fixture *fx = calloc(1, sizeof(*fx));
	REQUIRE(fx && fixture_init(fx, 1, 5, 42));
	uint8_t *p = malloc(fx->b.len + 32);
	REQUIRE(p != NULL);
	struct tt_read rd;

	memcpy(p, fx->b.p, fx->b.len);
	gp_put_le16(p + 10, 9);
	tt_fix_file_crc(p);
	tt_read_all(p, fx->b.len, "minor.gpz", &rd);
	CHECK_EQ_I(rd.open_ret, 0);
	CHECK_EQ_U(rd.st.major, 1);
	CHECK_EQ_U(rd.st.minor, 9);
	CHECK(rd.st.has_footer && rd.nproblems == 0);
	CHECK(records_except(fx, &rd, NULL));
	tt_read_release(&rd);

	/* 64-byte header: the first 28 bytes, 32 new ones, the CRC of all 60 at the end. */
	memcpy(p, fx->b.p, 28);
	memset(p + 28, 0x5c, 32);
	gp_put_le32(p + 16, 64);
	gp_put_le32(p + 60, gp_crc32(0, p, 60));
	memcpy(p + 64, fx->b.p + 32, fx->b.len - 32);
	tt_read_all(p, fx->b.len + 32, "long.gpz", &rd);
	CHECK_EQ_I(rd.open_ret, 0);
	CHECK_EQ_I(rd.next_ret, 0);
	CHECK(rd.nproblems == 0 && rd.st.has_footer);
	CHECK_EQ_U(rd.st.created_realtime, gp_get_le64(fx->b.p + 20));
	CHECK(records_except(fx, &rd, NULL));
	tt_read_release(&rd);
	free(p);
	fixture_release(fx);
	free(fx);
}

/* -------------------------------------------------- around the footer */

TEST(garbage_after_footer)
{
	/*
	 * Bytes appended after a complete file. FORMAT.md 7.2: the trailer counts
	 * only as the file's last 24 bytes, so the file has no footer; 9.2: the
	 * old trailer is a bad chunk header with nothing valid after it, one
	 * problem, and the file is marked cut at that offset. Every record is
	 * still read.
	 */
	struct fixture *fx = calloc(1, sizeof(*fx));
	REQUIRE(fx && fixture_init(fx, 1, 5, 51));
	uint8_t *p = malloc(fx->b.len + 100);
	REQUIRE(p != NULL);
	memcpy(p, fx->b.p, fx->b.len);
	memset(p + fx->b.len, 'x', 100);
	uint64_t trailer = fx->u[fx->nu - 1].off;
	struct tt_read rd;
	char want[120];

	tt_read_all(p, fx->b.len + 100, "bad.gpz", &rd);
	CHECK_EQ_I(rd.next_ret, 0);
	CHECK(records_except(fx, &rd, NULL));
	CHECK(rd.strings_ok);
	REQUIRE(rd.nproblems == 1);
	CHECK_EQ_U(rd.problems[0].offset, trailer);
	CHECK_EQ_U(rd.problems[0].chunk_index, fx->nu - 1);
	CHECK_EQ_I(rd.problems[0].err, -GP_ERR_FORMAT);
	snprintf(want, sizeof(want), "bad chunk magic; skipped %d bytes", GPT_TRAILER_SIZE + 100);
	CHECK_STR(rd.problems[0].reason, want);
	CHECK_EQ_U(rd.st.problems, 1);
	CHECK_EQ_U(rd.st.bytes_skipped, GPT_TRAILER_SIZE + 100);
	CHECK(!rd.st.has_footer);
	CHECK(rd.st.truncated);
	CHECK_EQ_U(rd.st.truncated_at, trailer);
	tt_read_release(&rd);

	/* Fewer than 24 bytes appended: less than a chunk header is left at the old trailer. */
	tt_read_all(p, fx->b.len + 10, "bad.gpz", &rd);
	CHECK_EQ_I(rd.next_ret, 0);
	CHECK(records_except(fx, &rd, NULL));
	REQUIRE(rd.nproblems == 1);
	CHECK_EQ_U(rd.problems[0].offset, trailer);
	CHECK_EQ_I(rd.problems[0].err, -GP_ERR_TRUNCATED);
	snprintf(want, sizeof(want),
		 "truncated: the file ends inside a chunk header (%d of 48 bytes)",
		 GPT_TRAILER_SIZE + 10);
	CHECK_STR(rd.problems[0].reason, want);
	CHECK(rd.st.truncated && !rd.st.has_footer);
	CHECK_EQ_U(rd.st.problems, 0);
	tt_read_release(&rd);
	free(p);
	fixture_release(fx);
	free(fx);
}

TEST(index_chunk_corrupt)
{
	/*
	 * The index chunk damaged (header or payload): every record is still
	 * read and the damage is one problem. FORMAT.md 7: without a decoded
	 * index the file has no footer, but its trailer says it is whole: it
	 * is corrupt, not cut (9.1).
	 */
	struct fixture *fx = calloc(1, sizeof(*fx));
	REQUIRE(fx && fixture_init(fx, 1, 8192, 52));
	size_t ix = find_chunk(fx, GPT_KIND_INDEX, 0);
	REQUIRE(ix != SIZE_MAX && ix + 2 == fx->nu); /* one index chunk, then the trailer */
	uint8_t *p = malloc(fx->b.len);
	REQUIRE(p != NULL);
	for (int mode = 0; mode < 2; mode++) {
		struct tt_read rd;
		char want[100];
		memcpy(p, fx->b.p, fx->b.len);
		if (mode == 0) {
			p[fx->u[ix].off + 9] ^= 4; /* header: bad header crc */
			snprintf(want, sizeof(want),
				 "bad chunk header crc; skipped %" PRIu64 " bytes",
				 fx->u[ix].end - fx->u[ix].off);
		} else {
			p[fx->u[ix].off + 20] ^= 4; /* payload crc: bad chunk crc */
			tt_fix_chunk_crc(p, fx->u[ix].off);
			snprintf(want, sizeof(want), "bad chunk crc");
		}
		tt_read_all(p, fx->b.len, "bad.gpz", &rd);
		CHECK_EQ_I(rd.next_ret, 0);
		CHECK(records_except(fx, &rd, NULL));
		REQUIRE(rd.nproblems == 1);
		CHECK_EQ_U(rd.problems[0].offset, fx->u[ix].off);
		CHECK_EQ_U(rd.problems[0].chunk_index, ix);
		CHECK_STR(rd.problems[0].reason, want);
		CHECK_EQ_U(rd.st.problems, 1);
		CHECK(!rd.st.has_footer && !rd.st.truncated);
		tt_read_release(&rd);
	}
	free(p);
	fixture_release(fx);
	free(fx);
}

/* ------------------------------------ hand-made chunks with hostile content */

/* A kernel chunk of one record with device = 3: what must still be read after damage. */
static const uint8_t good_payload[] = {1, 6, GPT_ENC_CONST, 3};

struct hostile {
	const char *name;
	uint16_t kind;
	uint32_t count;
	const uint8_t *raw;
	size_t len;
	int err;
	const char *reason;
};

#define B(...) (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})

/*
 * Field ids used below: kernel 1 start (KEYED 8), 2 end (REL 1), 6 device;
 * memset 9 flags (u8); stream 3 priority (i32).
 */
static const struct hostile hostiles[] = {
	{"cut column count", GPT_KIND_KERNEL, 1, B(0x80), -GP_ERR_FORMAT,
	 "bad kernel chunk: bad column count"},
	{"cut column header", GPT_KIND_KERNEL, 1, B(1, 6), -GP_ERR_FORMAT,
	 "bad kernel chunk: cut column header"},
	{"cut column id", GPT_KIND_KERNEL, 1, B(1, 0x86), -GP_ERR_FORMAT,
	 "bad kernel chunk: cut column header"},
	{"unknown encoding 6", GPT_KIND_KERNEL, 1, B(1, 6, 6, 0), -GP_ERR_FORMAT,
	 "bad kernel chunk: unknown column encoding"},
	{"unknown encoding 255", GPT_KIND_KERNEL, 1, B(1, 6, 255, 0), -GP_ERR_FORMAT,
	 "bad kernel chunk: unknown column encoding"},
	{"cut constant", GPT_KIND_KERNEL, 1, B(1, 6, GPT_ENC_CONST), -GP_ERR_FORMAT,
	 "bad kernel chunk: cut constant column"},
	{"column longer than chunk", GPT_KIND_KERNEL, 2, B(1, 6, GPT_ENC_VARINT, 100, 1, 2),
	 -GP_ERR_FORMAT, "bad kernel chunk: column longer than its chunk"},
	{"column length huge", GPT_KIND_KERNEL, 2,
	 B(1, 6, GPT_ENC_VARINT, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 1, 2),
	 -GP_ERR_FORMAT, "bad kernel chunk: column longer than its chunk"},
	{"column too short", GPT_KIND_KERNEL, 2, B(1, 6, GPT_ENC_VARINT, 1, 5), -GP_ERR_FORMAT,
	 "bad kernel chunk: column does not hold one value per record"},
	{"column too long", GPT_KIND_KERNEL, 1, B(1, 6, GPT_ENC_VARINT, 2, 5, 5), -GP_ERR_FORMAT,
	 "bad kernel chunk: column does not hold one value per record"},
	{"overlong varint", GPT_KIND_KERNEL, 1,
	 B(1, 6, GPT_ENC_VARINT, 11, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1),
	 -GP_ERR_FORMAT, "bad kernel chunk: column does not hold one value per record"},
	{"varint past 64 bits", GPT_KIND_KERNEL, 1,
	 B(1, 6, GPT_ENC_VARINT, 10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02),
	 -GP_ERR_FORMAT, "bad kernel chunk: column does not hold one value per record"},
	{"repeated column", GPT_KIND_KERNEL, 1, B(2, 6, GPT_ENC_CONST, 3, 6, GPT_ENC_CONST, 4),
	 -GP_ERR_FORMAT, "bad kernel chunk: column repeated"},
	{"repeated varint column", GPT_KIND_KERNEL, 1,
	 B(2, 6, GPT_ENC_VARINT, 1, 3, 6, GPT_ENC_CONST, 4), -GP_ERR_FORMAT,
	 "bad kernel chunk: column repeated"},
	{"u8 const 256", GPT_KIND_MEMSET, 1, B(1, 9, GPT_ENC_CONST, 0x80, 0x02), -GP_ERR_FORMAT,
	 "bad memset chunk: value out of range for its field"},
	{"u8 varint 300", GPT_KIND_MEMSET, 2, B(1, 9, GPT_ENC_VARINT, 3, 1, 0xac, 0x02),
	 -GP_ERR_FORMAT, "bad memset chunk: value out of range for its field"},
	{"u32 2^32", GPT_KIND_KERNEL, 1, B(1, 6, GPT_ENC_CONST, 0x80, 0x80, 0x80, 0x80, 0x10),
	 -GP_ERR_FORMAT, "bad kernel chunk: value out of range for its field"},
	{"i32 not sign-extended", GPT_KIND_STREAM, 1,
	 B(1, 3, GPT_ENC_CONST, 0xff, 0xff, 0xff, 0xff, 0x0f), -GP_ERR_FORMAT,
	 "bad stream chunk: value out of range for its field"},
	{"i32 zigzag 2^31", GPT_KIND_STREAM, 1,
	 B(1, 3, GPT_ENC_ZIGZAG, 5, 0x80, 0x80, 0x80, 0x80, 0x10), -GP_ERR_FORMAT,
	 "bad stream chunk: value out of range for its field"},
	{"REL reference 0", GPT_KIND_KERNEL, 1, B(1, 2, GPT_ENC_REL, 0, 1, 0), -GP_ERR_FORMAT,
	 "bad kernel chunk: bad reference field"},
	{"REL reference 65536", GPT_KIND_KERNEL, 1, B(1, 2, GPT_ENC_REL, 0x80, 0x80, 0x04, 1, 0),
	 -GP_ERR_FORMAT, "bad kernel chunk: bad reference field"},
	{"REL to unknown field", GPT_KIND_KERNEL, 1, B(1, 2, GPT_ENC_REL, 99, 1, 0), -GP_ERR_FORMAT,
	 "bad kernel chunk: reference to an unknown field"},
	{"REL to itself", GPT_KIND_KERNEL, 1, B(1, 2, GPT_ENC_REL, 2, 1, 0), -GP_ERR_FORMAT,
	 "bad kernel chunk: reference to an unknown field"},
	{"KEYED on itself", GPT_KIND_KERNEL, 1, B(1, 1, GPT_ENC_KEYED, 1, 1, 0), -GP_ERR_FORMAT,
	 "bad kernel chunk: column keyed on itself"},
	{"column after its dependant", GPT_KIND_KERNEL, 1,
	 B(2, 2, GPT_ENC_REL, 1, 1, 0, 1, GPT_ENC_CONST, 5), -GP_ERR_FORMAT,
	 "bad kernel chunk: column after a column predicted from it"},
	{"bytes after the last column", GPT_KIND_KERNEL, 1, B(1, 6, GPT_ENC_CONST, 3, 0),
	 -GP_ERR_FORMAT, "bad kernel chunk: bytes after the last column"},
	{"count over the limit", GPT_KIND_KERNEL, GPT_MAX_CHUNK_RECORDS + 1, B(1, 6, 0, 3),
	 -GP_ERR_FORMAT, "131073 records exceed the format's limit of 131072 per chunk"},
	{"string id 0", GPT_KIND_STRING, 1, B(0, 1, 'a'), -GP_ERR_FORMAT,
	 "bad string chunk: bad first string id"},
	{"string id past 32 bits", GPT_KIND_STRING, 1, B(0x80, 0x80, 0x80, 0x80, 0x10, 1, 'a'),
	 -GP_ERR_FORMAT, "bad string chunk: bad first string id"},
	{"string ids past 32 bits", GPT_KIND_STRING, 2,
	 B(0xff, 0xff, 0xff, 0xff, 0x0f, 1, 'a', 1, 'b'), -GP_ERR_FORMAT,
	 "bad string chunk: string ids out of range"},
	{"fewer strings than count", GPT_KIND_STRING, 2, B(1, 1, 'a'), -GP_ERR_FORMAT,
	 "bad string chunk: string longer than its chunk"},
	{"string longer than chunk", GPT_KIND_STRING, 1, B(1, 5, 'a'), -GP_ERR_FORMAT,
	 "bad string chunk: string longer than its chunk"},
	{"string over the limit", GPT_KIND_STRING, 1, B(1, 0x81, 0x80, 0x40), -GP_ERR_FORMAT,
	 "bad string chunk: string longer than its chunk"},
	{"bytes after the last string", GPT_KIND_STRING, 1, B(1, 1, 'a', 'b'), -GP_ERR_FORMAT,
	 "bad string chunk: bytes after the last string"},
};

/*
 * header, [prefix chunks], the hostile chunk, the good chunk; no footer.
 * Checks: the hostile chunk is one problem with its reason, the good chunk
 * is read, and the end is reported as a missing footer.
 */
static void check_hostile(const struct hostile *h, bool deflated, const uint8_t *prefix,
			  size_t prefix_len, uint32_t prefix_chunks)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	struct gpt_reader *r;
	struct gpt_chunk ch;
	size_t np;
	int ret;

	tt_put_file_header(&sb, GPT_FORMAT_STREAM_MAJOR, GPT_FORMAT_STREAM_MINOR);
	if (prefix_len) {
		gp_strbuf_add(&sb, prefix, prefix_len);
	}
	uint64_t off = sb.len;
	tt_put_chunk(&sb, h->kind, h->count, h->raw, h->len, deflated);
	uint64_t good = sb.len;
	tt_put_chunk(&sb, GPT_KIND_KERNEL, 1, good_payload, sizeof(good_payload), false);
	REQUIRE(!sb.failed);

	REQUIRE(gpt_reader_open_mem(sb.buf, sb.len, "hostile.gpz", &r) == 0);
	ret = gpt_reader_next(r, &ch);
	if (ret != 1) {
		TFAIL("%s%s: the good chunk after it was not read (%d): %s", h->name,
		      deflated ? " (deflated)" : "", ret, gpt_reader_last_error(r));
	} else {
		CHECK_EQ_U(ch.kind, GPT_KIND_KERNEL);
		CHECK_EQ_U(ch.count, 1);
		CHECK_EQ_U(ch.offset, good);
		CHECK_EQ_U(ch.index, prefix_chunks + 1);
		CHECK_EQ_U(((const struct gpt_kernel *)ch.records)->device, 3);
		CHECK_EQ_I(gpt_reader_next(r, &ch), 0);
	}
	const struct gpt_problem *pr = gpt_reader_problems(r, &np);
	if (np != 2 || pr[0].offset != off || pr[0].chunk_index != prefix_chunks ||
	    pr[0].err != h->err || strcmp(pr[0].reason, h->reason)) {
		TFAIL("%s%s: %zu problems, first at chunk %u offset %" PRIu64 " err %d: \"%s\"; "
		      "want chunk %u offset %" PRIu64 " err %d: \"%s\"",
		      h->name, deflated ? " (deflated)" : "", np, np ? pr[0].chunk_index : 0,
		      np ? pr[0].offset : 0, np ? pr[0].err : 0, np ? pr[0].reason : "",
		      prefix_chunks, off, h->err, h->reason);
	} else {
		CHECK_EQ_I(pr[1].err, -GP_ERR_TRUNCATED);
		CHECK_STR(pr[1].reason, "no footer: the writer did not finish the file");
	}
	struct gpt_reader_status st;
	gpt_reader_get_status(r, &st);
	CHECK_EQ_U(st.problems, 1);
	CHECK_EQ_U(st.bytes_skipped, good - off);
	gpt_reader_free(r);
	gp_strbuf_release(&sb);
}

TEST(hostile_chunks)
{
	for (size_t i = 0; i < GP_ARRAY_SIZE(hostiles); i++) {
		check_hostile(&hostiles[i], false, NULL, 0, 0);
		/* The same content deflated: the codec sees the same bytes. */
		check_hostile(&hostiles[i], true, NULL, 0, 0);
	}
}

TEST(hostile_string_redefinition)
{
	/* Ids 1 and 2 defined, then a chunk defining 2 again: refused, the table unchanged. */
	struct gp_strbuf pre = GP_STRBUF_INIT;
	tt_put_chunk(&pre, GPT_KIND_STRING, 2, B(1, 1, 'a', 1, 'b'), false);
	const struct hostile redefine[] = {
		{"ids defined twice", GPT_KIND_STRING, 1, B(2, 1, 'c'), -GP_ERR_FORMAT,
		 "bad string chunk: string ids defined twice"},
		{"id 1 again", GPT_KIND_STRING, 3, B(1, 1, 'x', 1, 'y', 1, 'z'), -GP_ERR_FORMAT,
		 "bad string chunk: string ids defined twice"},
	};
	for (size_t i = 0; i < GP_ARRAY_SIZE(redefine); i++) {
		check_hostile(&redefine[i], false, (const uint8_t *)pre.buf, pre.len, 1);
	}

	/* And the table still holds the first definitions. */
	struct gp_strbuf sb = GP_STRBUF_INIT;
	struct gpt_reader *r;
	struct gpt_chunk ch;
	tt_put_file_header(&sb, 1, 0);
	gp_strbuf_add(&sb, pre.buf, pre.len);
	tt_put_chunk(&sb, GPT_KIND_STRING, 2, B(1, 1, 'x', 1, 'y'), false);
	/* A gap is fine: ids 3 and 4 lost, 5 defined. */
	tt_put_chunk(&sb, GPT_KIND_STRING, 1, B(5, 1, 'e'), false);
	tt_put_chunk(&sb, GPT_KIND_KERNEL, 1, good_payload, sizeof(good_payload), false);
	REQUIRE(gpt_reader_open_mem(sb.buf, sb.len, "strings.gpz", &r) == 0);
	CHECK_EQ_I(gpt_reader_next(r, &ch), 1);
	CHECK_STR(gpt_reader_string(r, 1), "a");
	CHECK_STR(gpt_reader_string(r, 2), "b");
	CHECK(gpt_reader_string(r, 3) == NULL);
	CHECK(gpt_reader_string(r, 4) == NULL);
	CHECK_STR(gpt_reader_string(r, 5), "e");
	CHECK(gpt_reader_string(r, 6) == NULL);
	CHECK_STR(gpt_reader_string_or(r, 3, "?"), "?");
	struct gpt_reader_status st;
	gpt_reader_get_status(r, &st);
	CHECK_EQ_U(st.strings, 3);
	CHECK_EQ_U(st.problems, 1);
	gpt_reader_free(r);
	gp_strbuf_release(&sb);
	gp_strbuf_release(&pre);
}

TEST(hostile_accepted_content)
{
	/*
	 * Content a newer minor version may write: a column for a field this
	 * reader does not know (skipped, CONST or not), a chunk of an unknown
	 * kind (skipped whole). Neither is a problem.
	 */
	struct gp_strbuf sb = GP_STRBUF_INIT;
	struct gpt_reader *r;
	struct gpt_chunk ch;
	size_t np;

	tt_put_file_header(&sb, 1, 3);
	tt_put_chunk(&sb, GPT_KIND_KERNEL, 2,
		     B(3, 99, GPT_ENC_CONST, 5, 0xc8, 0x01 /* 200 */, GPT_ENC_VARINT, 3, 0x80, 0x01,
		       7, 6, GPT_ENC_CONST, 3),
		     false);
	/* Field ids 0 and 70000 are unknown too; an unknown field's REL needs a valid ref id. */
	tt_put_chunk(&sb, GPT_KIND_KERNEL, 1,
		     B(4, 0, GPT_ENC_CONST, 9, 0xf0, 0xa2, 0x04 /* 70000 */, GPT_ENC_VARINT, 1, 5,
		       77, GPT_ENC_REL, 99, 1, 4, 6, GPT_ENC_CONST, 3),
		     false);
	tt_put_chunk(&sb, 50, 1, B(0xde, 0xad), false);
	tt_put_chunk(&sb, 126, 1, B(0xbe, 0xef), true);
	tt_put_chunk(&sb, GPT_KIND_KERNEL, 1, good_payload, sizeof(good_payload), true);
	REQUIRE(gpt_reader_open_mem(sb.buf, sb.len, "newer.gpz", &r) == 0);
	REQUIRE(gpt_reader_next(r, &ch) == 1);
	CHECK_EQ_U(ch.count, 2);
	CHECK_EQ_U(ch.index, 0);
	CHECK_EQ_U(((const struct gpt_kernel *)ch.records)[0].device, 3);
	CHECK_EQ_U(((const struct gpt_kernel *)ch.records)[1].device, 3);
	CHECK_EQ_U(((const struct gpt_kernel *)ch.records)[1].start, 0);
	REQUIRE(gpt_reader_next(r, &ch) == 1);
	CHECK_EQ_U(ch.count, 1);
	CHECK_EQ_U(ch.index, 1);
	CHECK_EQ_U(((const struct gpt_kernel *)ch.records)[0].device, 3);
	REQUIRE(gpt_reader_next(r, &ch) == 1);
	CHECK_EQ_U(ch.count, 1);
	CHECK_EQ_U(ch.index, 4); /* the unknown chunks still count as chunks */
	CHECK_EQ_I(gpt_reader_next(r, &ch), 0);
	const struct gpt_problem *pr = gpt_reader_problems(r, &np);
	CHECK_EQ_U(np, 1);
	CHECK_STR(pr[0].reason, "no footer: the writer did not finish the file");
	struct gpt_reader_status st;
	gpt_reader_get_status(r, &st);
	CHECK_EQ_U(st.minor, 3);
	CHECK_EQ_U(st.problems, 0);
	CHECK_EQ_U(st.records[GPT_KIND_KERNEL], 4);
	gpt_reader_free(r);
	gp_strbuf_release(&sb);
}

TEST(hostile_chunk_sizes)
{
	/* stored_len and raw_len over the format's limit, on chunks that claim to fit the file. */
	struct gp_strbuf sb = GP_STRBUF_INIT;
	struct gpt_chunk_header h = {.kind = GPT_KIND_KERNEL,
				     .count = 1,
				     .flags = 1,
				     .raw_len = GPT_MAX_CHUNK_BYTES + 1,
				     .stored_len = 4};
	uint8_t hb[GPT_CHUNK_HEADER_SIZE];
	struct gpt_reader *r;
	struct gpt_chunk ch;
	size_t np;

	tt_put_file_header(&sb, 1, 0);
	gpt_chunk_header_pack(&h, hb);
	gp_strbuf_add(&sb, hb, sizeof(hb));
	gp_strbuf_add(&sb, "\x03\x00\x00\x00", 4);
	/* Uncompressed, with stored and raw lengths that differ. */
	h.flags = 0;
	h.raw_len = 5;
	gpt_chunk_header_pack(&h, hb);
	gp_strbuf_add(&sb, hb, sizeof(hb));
	gp_strbuf_add(&sb, "\x01\x06\x00\x03", 4);
	tt_put_chunk(&sb, GPT_KIND_KERNEL, 1, good_payload, sizeof(good_payload), false);
	REQUIRE(gpt_reader_open_mem(sb.buf, sb.len, "sizes.gpz", &r) == 0);
	CHECK_EQ_I(gpt_reader_next(r, &ch), 1);
	CHECK_EQ_U(ch.index, 2);
	CHECK_EQ_I(gpt_reader_next(r, &ch), 0);
	const struct gpt_problem *pr = gpt_reader_problems(r, &np);
	REQUIRE(np == 3);
	CHECK_STR(pr[0].reason, "chunk of 67108865 bytes exceeds the format's limit");
	CHECK_EQ_U(pr[0].chunk_index, 0);
	CHECK_STR(pr[1].reason, "stored and raw lengths differ in an uncompressed chunk");
	CHECK_EQ_U(pr[1].chunk_index, 1);
	gpt_reader_free(r);
	gp_strbuf_release(&sb);
}

/*
 * The whole-binary allocator limits under AddressSanitizer: a failed huge
 * allocation returns NULL (as it does without ASan) instead of aborting.
 */
#if defined(__SANITIZE_ADDRESS__)
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:max_allocation_size_mb=3072";
}
#endif

TEST(hostile_string_id_gap)
{
	/*
	 * reader.c: "memory is bounded by the limits in trace.h whatever the
	 * file says". A 60-byte file whose one string chunk starts at id
	 * 0xfffffff0 must not make the reader allocate and fill a table for
	 * four billion ids: the chunk may be refused or kept, but reading goes
	 * on to the next chunk, within 3 GB of address space.
	 */
#if !defined(__SANITIZE_ADDRESS__)
	struct rlimit rl = {.rlim_cur = 3ULL << 30, .rlim_max = 3ULL << 30};
	REQUIRE(setrlimit(RLIMIT_AS, &rl) == 0);
#endif
	struct gp_strbuf sb = GP_STRBUF_INIT;
	struct gpt_reader *r;
	struct gpt_chunk ch;

	tt_put_file_header(&sb, 1, 0);
	tt_put_chunk(&sb, GPT_KIND_STRING, 1, B(0xf0, 0xff, 0xff, 0xff, 0x0f, 1, 'x'), false);
	tt_put_chunk(&sb, GPT_KIND_KERNEL, 1, good_payload, sizeof(good_payload), false);
	REQUIRE(gpt_reader_open_mem(sb.buf, sb.len, "gap.gpz", &r) == 0);
	int ret = gpt_reader_next(r, &ch);
	CHECK_EQ_I(ret, 1);
	if (ret < 0) {
		TFAIL("reading stopped: %s", gpt_reader_last_error(r));
	}
	CHECK_EQ_I(gpt_reader_next(r, &ch), 0);
	gpt_reader_free(r);
	gp_strbuf_release(&sb);
}

TEST(string_pointer_outlives_later_chunks)
{
	/*
	 * trace.h does not say how long gpt_reader_string's pointer lives, and
	 * callers keep it across gpt_reader_next (tests/fakecuda/check-trace.c
	 * prints a process status string after reading on). Later string chunks
	 * must not invalidate it: the text of id 1 stays readable while the
	 * reader lives.
	 */
	struct gp_strbuf sb = GP_STRBUF_INIT, big = GP_STRBUF_INIT;
	struct gpt_reader *r;
	struct gpt_chunk ch;

	tt_put_file_header(&sb, 1, 0);
	tt_put_chunk(&sb, GPT_KIND_STRING, 1, B(1, 5, 'f', 'i', 'r', 's', 't'), false);
	tt_put_chunk(&sb, GPT_KIND_KERNEL, 1, good_payload, sizeof(good_payload), false);
	/* Then 1 MB of strings, in 16 chunks, after the records that use id 1. */
	for (uint32_t c = 0; c < 16; c++) {
		uint8_t vb[10];
		gp_strbuf_reset(&big);
		gp_strbuf_add(&big, vb, gpt_put_varint(vb, 2 + c));
		gp_strbuf_add(&big, vb, gpt_put_varint(vb, 65536));
		for (int i = 0; i < 65536; i++) {
			gp_strbuf_addch(&big, (char)('a' + i % 26));
		}
		tt_put_chunk(&sb, GPT_KIND_STRING, 1, big.buf, big.len, true);
	}
	tt_put_chunk(&sb, GPT_KIND_KERNEL, 1, good_payload, sizeof(good_payload), false);
	REQUIRE(!sb.failed && !big.failed);
	REQUIRE(gpt_reader_open_mem(sb.buf, sb.len, "strings.gpz", &r) == 0);
	REQUIRE(gpt_reader_next(r, &ch) == 1);
	const char *first = gpt_reader_string(r, 1);
	REQUIRE(first != NULL);
	CHECK_STR(first, "first");
	CHECK_EQ_I(gpt_reader_next(r, &ch), 1);
	CHECK_EQ_I(gpt_reader_next(r, &ch), 0);
	CHECK_EQ_U(strlen(gpt_reader_string(r, 17)), 65536);
	CHECK_STR(first, "first");
	gpt_reader_free(r);
	gp_strbuf_release(&sb);
	gp_strbuf_release(&big);
}
