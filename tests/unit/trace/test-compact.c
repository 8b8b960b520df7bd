/* SPDX-License-Identifier: MIT */
/*
 * test-compact.c - format 2.0 (trace/FORMAT.md section 12): scaled columns
 * in the codec, compact writers against plain ones, packed files cut,
 * flipped and built by hand, and which versions the reader accepts.
 */
#include "base/compat.h"
#include "tests/unit/test.h"
#include "tests/unit/trace/trace-test.h"

#include <zlib.h>

/* ---- a schema with one column of every encoding */

struct sc_rec {
	uint64_t d;  /* 1 DELTA */
	uint64_t r;  /* 2 REL on 1 */
	uint64_t k;  /* 3 KEYED on 4 */
	uint32_t key; /* 4 VARINT */
	uint32_t pad;
	uint64_t v;  /* 5 VARINT */
	int64_t z;   /* 6 ZIGZAG */
};

static const struct gpt_field sc_fields[] = {
	{1, GPT_TY_u64, GPT_ENC_DELTA, 0, offsetof(struct sc_rec, d), "d"},
	{2, GPT_TY_u64, GPT_ENC_REL, 1, offsetof(struct sc_rec, r), "r"},
	{3, GPT_TY_u64, GPT_ENC_KEYED, 4, offsetof(struct sc_rec, k), "k"},
	{4, GPT_TY_u32, GPT_ENC_VARINT, 0, offsetof(struct sc_rec, key), "key"},
	{5, GPT_TY_u64, GPT_ENC_VARINT, 0, offsetof(struct sc_rec, v), "v"},
	{6, GPT_TY_i64, GPT_ENC_ZIGZAG, 0, offsetof(struct sc_rec, z), "z"},
};
static const struct gpt_kind_info sc_info = {
	.kind = GPT_KIND_KERNEL, .name = "sc", .size = sizeof(struct sc_rec),
	.fields = sc_fields, .nfields = 6,
};

/* Encoding byte and scale (1 when unscaled) of each field's column; enc 0xff when absent. */
struct col_meta {
	uint8_t enc[7];
	uint64_t scale[7];
};

static bool parse_cols(const uint8_t *p, size_t len, struct col_meta *m)
{
	const uint8_t *end = p + len;
	uint64_t ncols, id, x, blen;

	memset(m->enc, 0xff, sizeof(m->enc));
	if (!gpt_get_varint(&p, end, &ncols)) {
		return false;
	}
	for (uint64_t c = 0; c < ncols; c++) {
		if (!gpt_get_varint(&p, end, &id) || id > 6 || p >= end) {
			return false;
		}
		uint8_t enc = *p++;
		m->enc[id] = enc;
		m->scale[id] = 1;
		if (enc & GPT_ENC_SCALED && !gpt_get_varint(&p, end, &m->scale[id])) {
			return false;
		}
		uint8_t base = enc & 0x3f;
		if (base == GPT_ENC_CONST) {
			if (!gpt_get_varint(&p, end, &x)) {
				return false;
			}
			continue;
		}
		if ((base == GPT_ENC_REL || base == GPT_ENC_KEYED) && !gpt_get_varint(&p, end, &x)) {
			return false;
		}
		if (!gpt_get_varint(&p, end, &blen) || blen > (uint64_t)(end - p)) {
			return false;
		}
		p += blen;
	}
	return p == end;
}

/* Encodes n records scaled, checks the columns, decodes them back (and refuses them unscaled). */
static bool sc_roundtrip(const struct sc_rec *in, uint32_t n, struct col_meta *m)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	uint64_t *tmp = calloc(3 * (size_t)n + 3, sizeof(uint64_t));
	struct sc_rec *out = calloc(n, sizeof(*out));
	char why[128] = "";
	bool ok = false;

	if (!tmp || !out) {
		goto out;
	}
	if (gpt_encode_records_ex(&sc_info, in, n, tmp, &sb, true)) {
		TFAIL("encode failed");
		goto out;
	}
	if (!parse_cols((const uint8_t *)sb.buf, sb.len, m)) {
		TFAIL("cannot parse the payload");
		goto out;
	}
	int ret = gpt_decode_records_ex(&sc_info, (const uint8_t *)sb.buf, sb.len, n, out,
					why, sizeof(why), true);
	if (ret) {
		TFAIL("decode: %s", why);
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct gpt_field *f = tt_rec_diff(&sc_info, &in[i], &out[i]);
		if (f) {
			TFAIL("record %u field %s differs", i, f->name);
			goto out;
		}
	}
	bool any_scaled = false;
	for (int i = 1; i <= 6; i++) {
		any_scaled |= m->enc[i] != 0xff && (m->enc[i] & GPT_ENC_SCALED);
	}
	if (any_scaled) {
		why[0] = '\0';
		ret = gpt_decode_records_ex(&sc_info, (const uint8_t *)sb.buf, sb.len, n, out,
					    why, sizeof(why), false);
		if (ret != -GP_ERR_FORMAT || strcmp(why, "unknown column encoding")) {
			TFAIL("a scaled column read as 1.x: ret %d, %s", ret, why[0] ? why : "-");
			goto out;
		}
	}
	ok = true;
out:
	gp_strbuf_release(&sb);
	free(tmp);
	free(out);
	return ok;
}

/* Records whose residuals in every column are multiples of s. */
static void fill_scaled(struct sc_rec *r, uint32_t n, uint64_t s, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (uint32_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t a = x % 97 + 1, b = (x >> 8) % 89 + 1;
		r[i].key = (uint32_t)(i % 3);
		r[i].d = (i ? r[i - 1].d : 5 * s) + s * a;
		r[i].r = r[i].d + s * b;
		r[i].k = s * (i * 7 + a);
		r[i].v = s * b;
		r[i].z = (int64_t)(x & 1 ? s * a : 0 - s * a);
	}
}

TEST(compact_codec_scales_every_encoding)
{
	static const uint64_t scales[] = {2, 10, 1000, 1ull << 40, 123456789};
	struct sc_rec r[64];
	struct col_meta m;

	for (size_t si = 0; si < sizeof(scales) / sizeof(scales[0]); si++) {
		uint64_t s = scales[si];
		memset(r, 0, sizeof(r));
		fill_scaled(r, 64, s, 0x9e3779b97f4a7c15ull + si);
		REQUIRE(sc_roundtrip(r, 64, &m));
		/* Every non-constant column is scaled, by a multiple of s. */
		for (unsigned id = 1; id <= 6; id++) {
			if (id == 4) {
				continue; /* the key: 0, 1, 2 (gcd 1) */
			}
			CHECK(m.enc[id] & GPT_ENC_SCALED);
			CHECK(m.scale[id] >= s && m.scale[id] % s == 0);
		}
		CHECK(!(m.enc[4] & GPT_ENC_SCALED));
		CHECK_EQ_U(m.enc[1] & 0x3f, GPT_ENC_DELTA);
		CHECK_EQ_U(m.enc[2] & 0x3f, GPT_ENC_REL);
		CHECK_EQ_U(m.enc[3] & 0x3f, GPT_ENC_KEYED);
		CHECK_EQ_U(m.enc[5] & 0x3f, GPT_ENC_VARINT);
		CHECK_EQ_U(m.enc[6] & 0x3f, GPT_ENC_ZIGZAG);
	}
}

TEST(compact_codec_scale_is_the_gcd)
{
	struct sc_rec r[4] = {{0}};
	struct col_meta m;

	/* DELTA residuals 3000, 2000, 5000: gcd 1000; v 6, 9, 15, 21: gcd 3. */
	uint64_t d[4] = {3000, 5000, 10000, 13000}, v[4] = {6, 9, 15, 21};
	for (int i = 0; i < 4; i++) {
		r[i].d = d[i];
		r[i].r = d[i];
		r[i].v = v[i];
		r[i].key = (uint32_t)i;
	}
	REQUIRE(sc_roundtrip(r, 4, &m));
	CHECK_EQ_U(m.scale[1], 1000);
	CHECK_EQ_U(m.scale[5], 3);
	CHECK_EQ_U(m.enc[2], GPT_ENC_REL); /* r == d: all-zero residuals, nothing to scale */
}

TEST(compact_codec_residual_not_divisible_is_not_scaled)
{
	struct sc_rec r[50];
	struct col_meta m;

	memset(r, 0, sizeof(r));
	fill_scaled(r, 50, 1000, 42);
	r[49].v += 1;          /* one value breaks the VARINT column's factor */
	r[30].z += 1;          /* and the ZIGZAG column's */
	r[20].d += 1;          /* two DELTA residuals */
	r[20].r = r[20].d + 1000;
	REQUIRE(sc_roundtrip(r, 50, &m));
	CHECK(!(m.enc[5] & GPT_ENC_SCALED));
	CHECK(!(m.enc[6] & GPT_ENC_SCALED));
	CHECK(!(m.enc[1] & GPT_ENC_SCALED));
	CHECK(m.enc[2] & GPT_ENC_SCALED); /* r - d still multiples of 1000 */
	CHECK_EQ_U(m.scale[2], 1000);
}

TEST(compact_codec_scale_wraps_mod_2_64)
{
	struct sc_rec r[5] = {{0}};
	struct col_meta m;

	/* DELTA around zero: residuals -2^63 (INT64_MIN), +2^63 and back; scale 2^62. */
	uint64_t d[5] = {0, 1ull << 63, 0, 1ull << 62, 3ull << 62};
	for (int i = 0; i < 5; i++) {
		r[i].d = d[i];
		r[i].r = d[i] - (1ull << 62); /* REL residual -2^62 mod 2^64 */
		r[i].v = (uint64_t)i << 62;
		r[i].key = 1;
		r[i].k = 0 - ((uint64_t)i << 62);
		r[i].z = i & 1 ? INT64_MIN : 0;
	}
	REQUIRE(sc_roundtrip(r, 5, &m));
	CHECK_EQ_U(m.scale[1], 1ull << 62);
	CHECK_EQ_U(m.scale[5], 1ull << 62);
	CHECK_EQ_U(m.scale[6], 1ull << 63);

	/* Values near 2^64: VARINT of UINT64_MAX - 2 and 2 * that (mod 2^64). */
	struct sc_rec q[3] = {{0}};
	q[0].v = UINT64_MAX; /* 3 * 0x5555555555555555 */
	q[1].v = 0x5555555555555555ull;
	q[2].v = 0;
	q[0].key = 0;
	q[1].key = 1;
	REQUIRE(sc_roundtrip(q, 3, &m));
	CHECK_EQ_U(m.scale[5], 0x5555555555555555ull);
}

/* Decodes a hand-made payload of one column; returns the reason or NULL. */
static const char *decode_one(const uint8_t *p, size_t len, uint32_t n, bool scaled)
{
	static char why[128];
	struct sc_rec out[8];

	why[0] = '\0';
	if (gpt_decode_records_ex(&sc_info, p, len, n, out, why, sizeof(why), scaled) == 0) {
		return NULL;
	}
	return why[0] ? why : "?";
}

TEST(compact_codec_rejects_bad_scales)
{
	/* field 5 VARINT scaled by 3: values 1, 2 */
	static const uint8_t good[] = {1, 5, 0x41, 3, 2, 1, 2};
	static const uint8_t scale0[] = {1, 5, 0x41, 0, 2, 1, 2};
	static const uint8_t scale1[] = {1, 5, 0x41, 1, 2, 1, 2};
	static const uint8_t cut[] = {1, 5, 0x41, 0x80};
	static const uint8_t cnst[] = {1, 5, 0x40, 3, 7};
	static const uint8_t hi[] = {1, 5, 0xc1, 3, 2, 1, 2};
	static const uint8_t enc6[] = {1, 5, 0x46, 3, 2, 1, 2};
	/* unknown field 9 scaled: skipped whole, scale included */
	static const uint8_t unknown[] = {2, 9, 0x41, 7, 2, 1, 2, 5, 0x41, 3, 2, 1, 2};
	/* field 6 i64 ZIGZAG scaled by 2^63: zz(-1) * 2^63 = 2^63 */
	static const uint8_t huge[] = {1, 6, 0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
				       0x80, 0x01, 2, 1, 2};
	struct sc_rec out[2];
	char why[128] = "";

	CHECK(decode_one(good, sizeof(good), 2, true) == NULL);
	REQUIRE(gpt_decode_records_ex(&sc_info, good, sizeof(good), 2, out, why, sizeof(why),
				      true) == 0);
	CHECK_EQ_U(out[0].v, 3);
	CHECK_EQ_U(out[1].v, 6);
	CHECK_STR(decode_one(good, sizeof(good), 2, false), "unknown column encoding");
	CHECK_STR(decode_one(scale0, sizeof(scale0), 2, true), "bad column scale");
	CHECK_STR(decode_one(scale1, sizeof(scale1), 2, true), "bad column scale");
	CHECK_STR(decode_one(cut, sizeof(cut), 2, true), "bad column scale");
	CHECK_STR(decode_one(cnst, sizeof(cnst), 2, true), "unknown column encoding");
	CHECK_STR(decode_one(hi, sizeof(hi), 2, true), "unknown column encoding");
	CHECK_STR(decode_one(enc6, sizeof(enc6), 2, true), "unknown column encoding");
	CHECK(decode_one(unknown, sizeof(unknown), 2, true) == NULL);
	REQUIRE(gpt_decode_records_ex(&sc_info, huge, sizeof(huge), 2, out, why, sizeof(why),
				      true) == 0);
	CHECK_EQ_U((uint64_t)out[0].z, 1ull << 63); /* -1 * 2^63 mod 2^64 */
	CHECK_EQ_U((uint64_t)out[1].z, 1ull << 63); /* +1 * 2^63 */
}

/* ---- whole files: compact against plain */

static void gen_file(uint64_t seed, bool compact, uint32_t pack_bytes, int level,
		     struct tt_buf *out)
{
	struct gen_opts go;
	struct gpt_writer_opts wo = {.level = level, .chunk_records = 64, .compact = compact,
				     .pack_bytes = pack_bytes};

	gen_opts_default(&go);
	go.seed = seed;
	go.steps = 3;
	go.kernels_per_step = 20;
	go.all_kinds = true;
	go.start_ns = 1000000000ull * seed;
	if (tt_gen_trace(&go, &wo, out)) {
		abort();
	}
}

/* Same records of every kind, in order, and every string resolved. */
static bool same_records(const struct tt_read *a, const struct tt_read *b)
{
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		const struct gpt_kind_info *ki = gpt_kind_info(k);
		if (!ki) {
			continue;
		}
		if (a->recs[k].n != b->recs[k].n) {
			TFAIL("kind %s: %zu records against %zu", ki->name, a->recs[k].n,
			      b->recs[k].n);
			return false;
		}
		for (size_t i = 0; i < a->recs[k].n; i++) {
			const struct gpt_field *f = tt_rec_diff(ki, a->recs[k].v + i * ki->size,
								b->recs[k].v + i * ki->size);
			if (f) {
				TFAIL("kind %s record %zu: field %s differs", ki->name, i, f->name);
				return false;
			}
		}
	}
	return a->strings_ok && b->strings_ok && a->st.strings == b->st.strings;
}

TEST(compact_roundtrip_matches_plain)
{
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct tt_buf plain, packed, streamed;
		struct tt_read rp, rk, rs;
		int level = (int)(seed % 3) * 4 - 1; /* -1, 3, 7 */

		gen_file(seed, false, 0, level, &plain);
		gen_file(seed, true, 0, level, &packed);
		gen_file(seed, true, 4096, level, &streamed); /* past the limit: streamed */
		tt_read_all(plain.p, plain.len, "plain.gpz", &rp);
		tt_read_all(packed.p, packed.len, "packed.gpz", &rk);
		tt_read_all(streamed.p, streamed.len, "streamed.gpz", &rs);
		CHECK(same_records(&rp, &rk));
		CHECK(same_records(&rp, &rs));
		CHECK_EQ_U(rp.st.major, 1);
		CHECK_EQ_U(rp.st.minor, GPT_FORMAT_STREAM_MINOR);
		CHECK_EQ_U(rk.st.major, 2);
		CHECK_EQ_U(rk.st.minor, GPT_FORMAT_MINOR);
		CHECK_EQ_U(rs.st.major, 2);
		/* All three closed cleanly, without a problem. */
		CHECK(rp.st.has_footer && rk.st.has_footer && rs.st.has_footer);
		CHECK(!rk.st.truncated && rk.st.problems == 0 && rk.nproblems == 0);
		CHECK(!rs.st.truncated && rs.st.problems == 0 && rs.nproblems == 0);
		CHECK_EQ_U(rk.st.chunks, rp.st.chunks);
		/* Packed: one chunk of kind 126 and nothing after it; streamed: many, then a trailer. */
		struct tt_chunk ch[TT_MAX_CHUNKS];
		uint64_t end;
		CHECK_EQ_U(tt_walk(packed.p, packed.len, ch, TT_MAX_CHUNKS, &end), 1);
		CHECK_EQ_U(ch[0].kind, GPT_KIND_PACKED);
		CHECK_EQ_U(end, packed.len);
		size_t ns = tt_walk(streamed.p, streamed.len, ch, TT_MAX_CHUNKS, &end);
		CHECK(ns > 3 && ch[0].kind != GPT_KIND_PACKED && ch[ns - 1].kind == GPT_KIND_INDEX);
		CHECK_EQ_U(streamed.len - end, GPT_TRAILER_SIZE);
		CHECK(packed.len < plain.len);
		tt_read_release(&rp);
		tt_read_release(&rk);
		tt_read_release(&rs);
		tt_buf_free(&plain);
		tt_buf_free(&packed);
		tt_buf_free(&streamed);
	}
}

TEST(compact_plain_writer_bytes_unchanged)
{
	/* A writer without compact writes 1.x; the same records twice give the same bytes. */
	struct tt_buf a, b;

	gen_file(7, false, 0, 1, &a);
	gen_file(7, false, 0, 1, &b);
	CHECK_EQ_U(gp_get_le16(a.p + 8), 1);
	CHECK_EQ_U(gp_get_le16(a.p + 10), GPT_FORMAT_STREAM_MINOR);
	CHECK(a.len == b.len && !memcmp(a.p, b.p, a.len));
	tt_buf_free(&a);
	tt_buf_free(&b);
}

TEST(compact_empty_file)
{
	struct tt_mem_writer mw;
	struct gpt_writer_opts wo = {.level = 9, .compact = true};
	struct tt_buf b;
	struct tt_read rd;

	REQUIRE(tt_writer_open(&mw, &wo) == 0);
	REQUIRE(tt_writer_finish(&mw, &b) == 0);
	CHECK_EQ_U(b.len, GPT_FILE_HEADER_SIZE + GPT_CHUNK_HEADER_SIZE);
	tt_read_all(b.p, b.len, "empty.gpz", &rd);
	CHECK(rd.st.has_footer && !rd.st.truncated && rd.nproblems == 0 && rd.chunks == 0);
	tt_read_release(&rd);
	tt_buf_free(&b);

	/* Abandoned before close: only the header, "no footer". */
	REQUIRE(tt_writer_open(&mw, &wo) == 0);
	REQUIRE(tt_writer_abandon_finish(&mw, &b) == 0);
	tt_read_all(b.p, b.len, "abandoned.gpz", &rd);
	CHECK(!rd.st.has_footer && rd.st.truncated && rd.nproblems == 1);
	tt_read_release(&rd);
	tt_buf_free(&b);
}

TEST(compact_packed_cut_at_every_byte)
{
	struct tt_buf b;
	unsigned fails = 0;
	uint64_t kept = 0;

	gen_file(11, true, 0, 6, &b);
	for (size_t cut = GPT_FILE_HEADER_SIZE; cut < b.len; cut++) {
		struct tt_read rd;
		tt_read_all(b.p, cut, "cut.gpz", &rd);
		/*
		 * Everything is in the one chunk: a cut keeps the inner chunks
		 * before it, never fewer for a longer file, and says so.
		 */
		if (rd.open_ret || rd.next_ret || !rd.st.truncated || rd.st.has_footer ||
		    rd.chunks < kept || rd.nproblems != 1 || rd.st.problems != 0 ||
		    rd.problems[0].err != -GP_ERR_TRUNCATED ||
		    rd.problems[0].offset != GPT_FILE_HEADER_SIZE) {
			if (fails++ < 5) {
				TFAIL("cut at %zu: open %d next %d truncated %d footer %d chunks %" PRIu64
				      " problems %zu",
				      cut, rd.open_ret, rd.next_ret, rd.st.truncated, rd.st.has_footer,
				      rd.chunks, rd.nproblems);
			}
		}
		kept = rd.chunks;
		tt_read_release(&rd);
	}
	CHECK_EQ_U(fails, 0);
	CHECK(kept > 0); /* a cut near the end keeps most of the file */
	tt_buf_free(&b);
}

TEST(compact_packed_every_byte_flip_is_caught)
{
	struct tt_buf b;
	struct tt_read ref;
	unsigned fails = 0;

	gen_file(12, true, 0, 6, &b);
	tt_read_all(b.p, b.len, "ref.gpz", &ref);
	REQUIRE(ref.st.has_footer && ref.nproblems == 0);
	for (size_t i = 0; i < b.len; i++) {
		for (unsigned bit = 0; bit < 8; bit += 3) {
			struct tt_read rd;
			b.p[i] ^= (uint8_t)(1u << bit);
			tt_read_all(b.p, b.len, "flip.gpz", &rd);
			b.p[i] ^= (uint8_t)(1u << bit);
			/*
			 * Every byte is under a CRC: the file header's, the chunk
			 * header's or the raw payload's. A flip in the deflate stream
			 * may still inflate to the same bytes (an unused code length,
			 * padding after the last block): then the records are the same.
			 */
			bool caught = rd.open_ret != 0 || rd.st.problems > 0 || rd.st.truncated;
			bool same = !caught && i >= GPT_FILE_HEADER_SIZE + GPT_CHUNK_HEADER_SIZE &&
				    same_records(&ref, &rd);
			if (caught ? rd.st.has_footer : !same) {
				if (fails++ < 5) {
					TFAIL("flip of bit %u at %zu: open %d problems %" PRIu64
					      " footer %d",
					      bit, i, rd.open_ret, rd.st.problems, rd.st.has_footer);
				}
			}
			tt_read_release(&rd);
		}
	}
	CHECK_EQ_U(fails, 0);
	tt_read_release(&ref);
	tt_buf_free(&b);
}

/* ---- packed chunks built by hand */

static void put_inner(struct gp_strbuf *sb, uint64_t kind, uint64_t count, const void *p,
		      uint64_t len, uint64_t claimed_len)
{
	uint8_t v[50];
	size_t n = 0;

	n += gpt_put_varint(v + n, kind);
	n += gpt_put_varint(v + n, count);
	n += gpt_put_varint(v + n, claimed_len ? claimed_len : len);
	n += gpt_put_varint(v + n, 0);
	n += gpt_put_varint(v + n, 0);
	gp_strbuf_add(sb, v, n);
	gp_strbuf_add(sb, p, (size_t)len);
}

/* One string "abc" (id 1) and one kernel whose name is it. */
static const uint8_t str_payload[] = {1, 3, 'a', 'b', 'c'};
/* kernel: 2 columns: name (field 4? see below) CONST 1, start CONST 5 */
static uint8_t kern_payload[16];
static size_t kern_len;

static void make_kernel_payload(void)
{
	const struct gpt_kind_info *ki = gpt_kind_info(GPT_KIND_KERNEL);
	const struct gpt_field *name = NULL;
	for (size_t i = 0; i < ki->nfields; i++) {
		if (!strcmp(ki->fields[i].name, "name")) {
			name = &ki->fields[i];
		}
	}
	size_t n = 0;
	kern_payload[n++] = 2;
	n += gpt_put_varint(kern_payload + n, name->id);
	kern_payload[n++] = GPT_ENC_CONST;
	kern_payload[n++] = 1;
	n += gpt_put_varint(kern_payload + n, ki->time_field);
	kern_payload[n++] = GPT_ENC_CONST;
	kern_payload[n++] = 5;
	kern_len = n;
}

struct hand {
	struct tt_read rd;
	struct tt_buf b;
};

/* A file of header (major) + one packed chunk of count inner chunks from inner; then extra. */
static void hand_file(struct hand *h, uint16_t major, uint32_t count, const struct gp_strbuf *inner,
		      const void *extra, size_t extra_len, bool deflated)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;

	tt_put_file_header(&sb, major, major == 2 ? 0 : 1);
	tt_put_chunk(&sb, GPT_KIND_PACKED, count, inner->buf, inner->len, deflated);
	if (extra_len) {
		gp_strbuf_add(&sb, extra, extra_len);
	}
	h->b.len = sb.len;
	h->b.p = (uint8_t *)gp_strbuf_detach(&sb, NULL);
	tt_read_all(h->b.p, h->b.len, "hand.gpz", &h->rd);
}

static void hand_free(struct hand *h)
{
	tt_read_release(&h->rd);
	tt_buf_free(&h->b);
}

static bool has_reason(const struct tt_read *rd, const char *want)
{
	for (size_t i = 0; i < rd->nproblems && i < 16; i++) {
		if (strstr(rd->problems[i].reason, want)) {
			return true;
		}
	}
	TFAIL("no problem says \"%s\" (%zu problems, last error %s)", want, rd->nproblems,
	      rd->last_error);
	return false;
}

TEST(compact_packed_hostile_inner_headers)
{
	struct gp_strbuf in = GP_STRBUF_INIT;
	struct hand h;

	make_kernel_payload();
	/* The good file: strings then one kernel, stored and deflated. */
	for (int z = 0; z < 2; z++) {
		gp_strbuf_reset(&in);
		put_inner(&in, GPT_KIND_STRING, 1, str_payload, sizeof(str_payload), 0);
		put_inner(&in, GPT_KIND_KERNEL, 1, kern_payload, kern_len, 0);
		hand_file(&h, 2, 2, &in, NULL, 0, z);
		CHECK(h.rd.st.has_footer && h.rd.nproblems == 0 && h.rd.chunks == 1);
		CHECK_EQ_U(h.rd.recs[GPT_KIND_KERNEL].n, 1);
		CHECK(h.rd.strings_ok && h.rd.st.strings == 1);
		hand_free(&h);
	}

	/* The same packed chunk in a 1.1 file: kind 126 is unknown there, skipped. */
	hand_file(&h, 1, 2, &in, NULL, 0, false);
	CHECK(h.rd.chunks == 0 && h.rd.st.problems == 0 && !h.rd.st.has_footer);
	hand_free(&h);

	/* Inner count over the limit: that chunk is a problem; the next still reads. */
	gp_strbuf_reset(&in);
	put_inner(&in, GPT_KIND_STRING, 1, str_payload, sizeof(str_payload), 0);
	put_inner(&in, GPT_KIND_KERNEL, GPT_MAX_CHUNK_RECORDS + 1, kern_payload, kern_len, 0);
	put_inner(&in, GPT_KIND_KERNEL, 1, kern_payload, kern_len, 0);
	hand_file(&h, 2, 3, &in, NULL, 0, true);
	CHECK(has_reason(&h.rd, "exceed the format's limit"));
	CHECK_EQ_U(h.rd.recs[GPT_KIND_KERNEL].n, 1);
	CHECK(!h.rd.st.has_footer && h.rd.st.problems == 1);
	hand_free(&h);

	/* An inner length past the end of the packed payload. */
	gp_strbuf_reset(&in);
	put_inner(&in, GPT_KIND_STRING, 1, str_payload, sizeof(str_payload), 0);
	put_inner(&in, GPT_KIND_KERNEL, 1, kern_payload, kern_len, kern_len + 1);
	hand_file(&h, 2, 2, &in, NULL, 0, false);
	CHECK(has_reason(&h.rd, "bad packed chunk: inner chunk longer than the packed chunk"));
	CHECK(h.rd.chunks == 0 && !h.rd.st.has_footer);
	hand_free(&h);
	/* A huge one (2^63). */
	gp_strbuf_reset(&in);
	put_inner(&in, GPT_KIND_KERNEL, 1, kern_payload, kern_len, 1ull << 63);
	hand_file(&h, 2, 1, &in, NULL, 0, true);
	CHECK(has_reason(&h.rd, "inner chunk longer than the packed chunk"));
	hand_free(&h);

	/* The outer count promises more inner chunks than there are. */
	gp_strbuf_reset(&in);
	put_inner(&in, GPT_KIND_STRING, 1, str_payload, sizeof(str_payload), 0);
	hand_file(&h, 2, 2, &in, NULL, 0, false);
	CHECK(has_reason(&h.rd, "bad packed chunk: cut inner chunk header"));
	CHECK(!h.rd.st.has_footer && h.rd.st.strings == 1);
	hand_free(&h);

	/* ... or fewer: bytes after the last inner chunk. */
	put_inner(&in, GPT_KIND_KERNEL, 1, kern_payload, kern_len, 0);
	hand_file(&h, 2, 1, &in, NULL, 0, false);
	CHECK(has_reason(&h.rd, "bad packed chunk: bytes after the last inner chunk"));
	hand_free(&h);

	/* Inner index and packed kinds are problems; an unknown kind is skipped silently. */
	gp_strbuf_reset(&in);
	put_inner(&in, GPT_KIND_INDEX, 0, "\0", 1, 0);
	put_inner(&in, GPT_KIND_PACKED, 0, "", 0, 0);
	put_inner(&in, 99, 1, "xyz", 3, 0);
	put_inner(&in, GPT_KIND_STRING, 1, str_payload, sizeof(str_payload), 0);
	put_inner(&in, GPT_KIND_KERNEL, 1, kern_payload, kern_len, 0);
	hand_file(&h, 2, 5, &in, NULL, 0, true);
	CHECK(has_reason(&h.rd, "inner chunk of kind 127"));
	CHECK(has_reason(&h.rd, "inner chunk of kind 126"));
	CHECK_EQ_U(h.rd.st.problems, 2);
	CHECK_EQ_U(h.rd.recs[GPT_KIND_KERNEL].n, 1);
	hand_free(&h);

	/* A bad record payload and a bad string payload: reported as for any chunk. */
	gp_strbuf_reset(&in);
	put_inner(&in, GPT_KIND_STRING, 2, str_payload, sizeof(str_payload), 0);
	put_inner(&in, GPT_KIND_KERNEL, 1, "\x01\x01\x09", 3, 0);
	hand_file(&h, 2, 2, &in, NULL, 0, false);
	CHECK(has_reason(&h.rd, "bad string chunk: string longer than its chunk"));
	CHECK(has_reason(&h.rd, "bad kernel chunk: unknown column encoding"));
	CHECK_EQ_U(h.rd.st.problems, 2);
	hand_free(&h);

	/* Bytes after the packed chunk; a packed chunk after another chunk. */
	gp_strbuf_reset(&in);
	put_inner(&in, GPT_KIND_STRING, 1, str_payload, sizeof(str_payload), 0);
	hand_file(&h, 2, 1, &in, "junk", 4, false);
	CHECK(has_reason(&h.rd, "4 bytes after the packed chunk"));
	CHECK(!h.rd.st.has_footer);
	hand_free(&h);
	{
		struct gp_strbuf sb = GP_STRBUF_INIT;
		struct tt_read rd;
		tt_put_file_header(&sb, 2, 0);
		tt_put_chunk(&sb, GPT_KIND_STRING, 1, str_payload, sizeof(str_payload), false);
		tt_put_chunk(&sb, GPT_KIND_PACKED, 1, in.buf, in.len, true);
		tt_read_all((const uint8_t *)sb.buf, sb.len, "late.gpz", &rd);
		CHECK(has_reason(&rd, "packed chunk after other chunks"));
		tt_read_release(&rd);
		gp_strbuf_release(&sb);
	}
	gp_strbuf_release(&in);
}

TEST(compact_packed_inflated_size_lies)
{
	struct gp_strbuf in = GP_STRBUF_INIT, sb = GP_STRBUF_INIT;
	struct tt_read rd;

	make_kernel_payload();
	put_inner(&in, GPT_KIND_STRING, 1, str_payload, sizeof(str_payload), 0);
	put_inner(&in, GPT_KIND_KERNEL, 1, kern_payload, kern_len, 0);
	for (int delta = -1; delta <= 1; delta += 2) {
		gp_strbuf_reset(&sb);
		tt_put_file_header(&sb, 2, 0);
		uint64_t off = sb.len;
		tt_put_chunk(&sb, GPT_KIND_PACKED, 2, in.buf, in.len, true);
		uint8_t *h = (uint8_t *)sb.buf + off;
		gp_put_le32(h + 12, (uint32_t)((int)in.len + delta)); /* raw length lies */
		tt_fix_chunk_crc((uint8_t *)sb.buf, off);
		tt_read_all((const uint8_t *)sb.buf, sb.len, "lie.gpz", &rd);
		CHECK(has_reason(&rd, "cannot inflate the chunk"));
		CHECK(rd.chunks == 0 && rd.st.problems == 1 && !rd.st.has_footer);
		tt_read_release(&rd);
	}
	/* A raw length over the 64 MiB limit. */
	gp_strbuf_reset(&sb);
	tt_put_file_header(&sb, 2, 0);
	tt_put_chunk(&sb, GPT_KIND_PACKED, 2, in.buf, in.len, true);
	gp_put_le32((uint8_t *)sb.buf + 32 + 12, GPT_MAX_CHUNK_BYTES + 1);
	tt_fix_chunk_crc((uint8_t *)sb.buf, 32);
	tt_read_all((const uint8_t *)sb.buf, sb.len, "big.gpz", &rd);
	CHECK(has_reason(&rd, "exceeds the format's limit"));
	tt_read_release(&rd);
	gp_strbuf_release(&sb);
	gp_strbuf_release(&in);
}

TEST(compact_reader_versions)
{
	struct tt_buf b;
	struct gpt_reader *r;

	gen_file(3, true, 0, 1, &b);
	/* A 2.0 header is read. */
	REQUIRE(gpt_reader_open_mem(b.p, b.len, "v2.gpz", &r) == 0);
	struct gpt_reader_status st;
	gpt_reader_get_status(r, &st);
	CHECK_EQ_U(st.major, 2);
	gpt_reader_free(r);
	/* A 3.0 one is refused by name, naming what this reader reads. */
	gp_put_le16(b.p + 8, 3);
	gp_put_le16(b.p + 10, 0);
	tt_fix_file_crc(b.p);
	CHECK_EQ_I(gpt_reader_open_mem(b.p, b.len, "v3.gpz", &r), -GP_ERR_VERSION);
	CHECK_STR(gpt_reader_last_error(r),
		  "v3.gpz: written in trace format 3.0, newer than this gpuprof reads (2.x); "
		  "upgrade gpuprof");
	gpt_reader_free(r);
	/* A compact file relabelled 1.1: its packed chunk is an unknown kind, nothing is read. */
	gp_put_le16(b.p + 8, 1);
	gp_put_le16(b.p + 10, 1);
	tt_fix_file_crc(b.p);
	struct tt_read rd;
	tt_read_all(b.p, b.len, "v1.gpz", &rd);
	CHECK(rd.open_ret == 0 && rd.chunks == 0 && !rd.st.has_footer);
	tt_read_release(&rd);
	tt_buf_free(&b);

	/* A streamed compact file relabelled 1.1: its scaled columns are unknown encodings. */
	gen_file(4, true, 1024, 1, &b);
	gp_put_le16(b.p + 8, 1);
	gp_put_le16(b.p + 10, 1);
	tt_fix_file_crc(b.p);
	tt_read_all(b.p, b.len, "v1s.gpz", &rd);
	CHECK(has_reason(&rd, "unknown column encoding"));
	tt_read_release(&rd);
	tt_buf_free(&b);
}
