/* SPDX-License-Identifier: MIT */
/*
 * test-util.c - growable arrays, checked arithmetic, little-endian helpers,
 * the seeded RNG and error strings.
 */
#include "base/compat.h"
#include "base/base.h"
#include "tests/unit/test.h"

/* ------------------------------------------------------------- gp_vec */

TEST(vec_push_and_grow)
{
	GP_VEC(uint32_t) v = {0};
	size_t last_cap = 0;
	int regrowths = 0;

	for (uint32_t i = 0; i < 100000; i++) {
		if (gp_vec_push(&v, i * 7u + 1)) {
			TFAIL("push %u failed", i);
			break;
		}
		CHECK(v.n <= v.cap);
		if (v.cap != last_cap) {
			/* Capacity grows geometrically: few reallocations. */
			CHECK(v.cap >= 2 * last_cap);
			last_cap = v.cap;
			regrowths++;
		}
	}
	CHECK_EQ_U(v.n, 100000);
	CHECK(regrowths <= 20);
	for (uint32_t i = 0; i < v.n; i++) {
		if (v.v[i] != i * 7u + 1) {
			TFAIL("v[%u] = %u", i, v.v[i]);
			break;
		}
	}
	gp_vec_free(&v);
	CHECK(v.v == NULL);
	CHECK_EQ_U(v.n, 0);
	CHECK_EQ_U(v.cap, 0);
}

struct big {
	uint64_t a, b, c;
	char tag[13];
};

TEST(vec_reserve)
{
	GP_VEC(struct big) v = {0};

	CHECK_EQ_I(gp_vec_reserve(&v, 0), 0);
	CHECK_EQ_I(gp_vec_reserve(&v, 1000), 0);
	CHECK(v.cap >= 1000);
	CHECK_EQ_U(v.n, 0);
	size_t cap = v.cap;
	struct big *p = v.v;
	/* Pushing up to the reserved capacity never reallocates. */
	for (size_t i = 0; i < cap; i++) {
		struct big b = {.a = i, .b = ~i, .c = i * i};
		snprintf(b.tag, sizeof(b.tag), "t%u", (unsigned)(i % 100000));
		REQUIRE(gp_vec_push(&v, b) == 0);
	}
	CHECK(v.v == p);
	CHECK_EQ_U(v.cap, cap);
	/* Reserving less than the capacity is a no-op. */
	CHECK_EQ_I(gp_vec_reserve(&v, 10), 0);
	CHECK_EQ_U(v.cap, cap);
	CHECK(v.v == p);
	for (size_t i = 0; i < v.n; i++) {
		char tag[13];
		snprintf(tag, sizeof(tag), "t%u", (unsigned)(i % 100000));
		if (v.v[i].a != i || v.v[i].b != ~(uint64_t)i || strcmp(v.v[i].tag, tag)) {
			TFAIL("element %zu corrupted", i);
			break;
		}
	}
	gp_vec_free(&v);
}

TEST(vec_reserve_overflow)
{
	GP_VEC(uint64_t) v = {0};

	REQUIRE(gp_vec_push(&v, 11) == 0);
	REQUIRE(gp_vec_push(&v, 22) == 0);
	uint64_t *p = v.v;
	size_t cap = v.cap;

	/* Element count times size overflows. */
	CHECK_EQ_I(gp_vec_reserve(&v, SIZE_MAX / 4), -GP_ERR_NOMEM);
	/* Doubling the capacity overflows. */
	CHECK_EQ_I(gp_vec_reserve(&v, SIZE_MAX), -GP_ERR_NOMEM);
	CHECK_EQ_I(gp_vec_reserve(&v, (SIZE_MAX >> 1) + 2), -GP_ERR_NOMEM);
	/* The array keeps its old contents on failure. */
	CHECK(v.v == p);
	CHECK_EQ_U(v.cap, cap);
	CHECK_EQ_U(v.n, 2);
	CHECK_EQ_U(v.v[0], 11);
	CHECK_EQ_U(v.v[1], 22);
	gp_vec_free(&v);
}

/* ------------------------------------------------------ checked arithmetic */

TEST(checked_arith)
{
	uint64_t r;
	size_t s;

	CHECK(!gp_add_overflow_u64(1, 2, &r));
	CHECK_EQ_U(r, 3);
	CHECK(!gp_add_overflow_u64(UINT64_MAX - 5, 5, &r));
	CHECK_EQ_U(r, UINT64_MAX);
	CHECK(gp_add_overflow_u64(UINT64_MAX - 5, 6, &r));
	CHECK(gp_add_overflow_u64(UINT64_MAX, UINT64_MAX, &r));
	CHECK(!gp_add_overflow_u64(0, 0, &r));
	CHECK_EQ_U(r, 0);

	CHECK(!gp_mul_overflow_u64(0, UINT64_MAX, &r));
	CHECK_EQ_U(r, 0);
	CHECK(!gp_mul_overflow_u64(1ULL << 32, (1ULL << 32) - 1, &r));
	CHECK_EQ_U(r, (1ULL << 32) * ((1ULL << 32) - 1));
	CHECK(gp_mul_overflow_u64(1ULL << 32, 1ULL << 32, &r));
	CHECK(gp_mul_overflow_u64(3, UINT64_MAX / 3 + 1, &r));
	CHECK(!gp_mul_overflow_u64(3, UINT64_MAX / 3, &r));
	CHECK_EQ_U(r, UINT64_MAX / 3 * 3);

	CHECK(!gp_add_overflow_size(SIZE_MAX - 1, 1, &s));
	CHECK_EQ_U(s, SIZE_MAX);
	CHECK(gp_add_overflow_size(SIZE_MAX, 1, &s));
	CHECK(gp_mul_overflow_size(SIZE_MAX / 2 + 1, 2, &s));
	CHECK(!gp_mul_overflow_size(SIZE_MAX / 2, 2, &s));
	CHECK_EQ_U(s, SIZE_MAX - 1);

	/* Against 128-bit arithmetic on random operands of every magnitude. */
	struct gp_rng rng;
	gp_rng_seed(&rng, 7);
	for (int i = 0; i < 200000; i++) {
		uint64_t a = gp_rng_next(&rng) >> gp_rng_below(&rng, 64);
		uint64_t b = gp_rng_next(&rng) >> gp_rng_below(&rng, 64);
		unsigned __int128 sum = (unsigned __int128)a + b, prod = (unsigned __int128)a * b;
		bool ao = gp_add_overflow_u64(a, b, &r);
		if (ao != (sum > UINT64_MAX) || (!ao && r != (uint64_t)sum)) {
			TFAIL("add %" PRIu64 " + %" PRIu64, a, b);
			break;
		}
		bool mo = gp_mul_overflow_u64(a, b, &r);
		if (mo != (prod > UINT64_MAX) || (!mo && r != (uint64_t)prod)) {
			TFAIL("mul %" PRIu64 " * %" PRIu64, a, b);
			break;
		}
	}
}

/* ------------------------------------------------------ little-endian bytes */

TEST(le_known_bytes)
{
	uint8_t b[16];

	memset(b, 0xee, sizeof(b));
	gp_put_le16(b + 1, 0x1234);
	CHECK_EQ_U(b[0], 0xee);
	CHECK_EQ_U(b[1], 0x34);
	CHECK_EQ_U(b[2], 0x12);
	CHECK_EQ_U(b[3], 0xee);

	memset(b, 0xee, sizeof(b));
	gp_put_le32(b + 3, 0xdeadbeef);
	CHECK(!memcmp(b + 2, "\xee\xef\xbe\xad\xde\xee", 6));

	memset(b, 0xee, sizeof(b));
	gp_put_le64(b + 5, 0x0102030405060708ULL);
	CHECK(!memcmp(b + 4, "\xee\x08\x07\x06\x05\x04\x03\x02\x01\xee", 10));

	static const uint8_t src[] = {0x01, 0x80, 0xff, 0x7f, 0x00, 0xaa, 0x55, 0x10, 0x99};
	CHECK_EQ_U(gp_get_le16(src), 0x8001);
	CHECK_EQ_U(gp_get_le16(src + 1), 0xff80);
	CHECK_EQ_U(gp_get_le32(src), 0x7fff8001u);
	CHECK_EQ_U(gp_get_le32(src + 1), 0x007fff80u);
	CHECK_EQ_U(gp_get_le64(src), 0x1055aa007fff8001ULL);
	CHECK_EQ_U(gp_get_le64(src + 1), 0x991055aa007fff80ULL);
	static const uint8_t ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	CHECK_EQ_U(gp_get_le16(ones), 0xffff);
	CHECK_EQ_U(gp_get_le32(ones), 0xffffffffu);
	CHECK_EQ_U(gp_get_le64(ones), UINT64_MAX);
}

TEST(le_roundtrip_unaligned)
{
	struct gp_rng rng;
	uint8_t buf[32];

	gp_rng_seed(&rng, 99);
	for (int i = 0; i < 100000; i++) {
		uint64_t v = gp_rng_next(&rng);
		size_t at = (size_t)gp_rng_below(&rng, 24);
		memset(buf, 0x5a, sizeof(buf));
		gp_put_le64(buf + at, v);
		gp_put_le32(buf + 24 - at % 8, (uint32_t)(v >> 7));
		if (gp_get_le32(buf + 24 - at % 8) != (uint32_t)(v >> 7)) {
			TFAIL("le32 at %zu", 24 - at % 8);
			break;
		}
		gp_put_le64(buf + at, v);
		uint64_t byhand = 0;
		for (int k = 7; k >= 0; k--) {
			byhand = byhand << 8 | buf[at + (size_t)k];
		}
		if (gp_get_le64(buf + at) != v || byhand != v || buf[at] != (uint8_t)v) {
			TFAIL("le64 %" PRIx64 " at %zu", v, at);
			break;
		}
		gp_put_le16(buf + at, (uint16_t)v);
		if (gp_get_le16(buf + at) != (uint16_t)v || buf[at + 1] != (uint8_t)(v >> 8)) {
			TFAIL("le16 at %zu", at);
			break;
		}
	}
}

/* ------------------------------------------------------------------ rng */

TEST(rng_deterministic)
{
	struct gp_rng a, b, c;
	uint64_t first[64];
	bool differs = false;

	gp_rng_seed(&a, 12345);
	gp_rng_seed(&b, 12345);
	gp_rng_seed(&c, 12346);
	for (int i = 0; i < 64; i++) {
		first[i] = gp_rng_next(&a);
		CHECK_EQ_U(first[i], gp_rng_next(&b));
		differs |= first[i] != gp_rng_next(&c);
	}
	CHECK(differs);
	/* Reseeding restarts the sequence. */
	gp_rng_seed(&a, 12345);
	for (int i = 0; i < 64; i++) {
		CHECK_EQ_U(gp_rng_next(&a), first[i]);
	}
	/* The sequence is not constant and seed 0 works too. */
	gp_rng_seed(&a, 0);
	uint64_t x = gp_rng_next(&a), y = gp_rng_next(&a);
	CHECK(x != y);
	CHECK(x != 0 || y != 0);

	/* Same seed, same doubles, all in [0, 1). */
	gp_rng_seed(&a, 5);
	gp_rng_seed(&b, 5);
	for (int i = 0; i < 10000; i++) {
		double d = gp_rng_double(&a);
		CHECK(d == gp_rng_double(&b));
		if (!(d >= 0.0 && d < 1.0)) {
			TFAIL("gp_rng_double gave %g", d);
			break;
		}
	}
}

TEST(rng_below_bounds)
{
	struct gp_rng r;
	static const uint64_t bounds[] = {
		1, 2, 3, 7, 10, 255, 256, 1000, 1ULL << 32, (1ULL << 63) + 1, UINT64_MAX};

	gp_rng_seed(&r, 2024);
	CHECK_EQ_U(gp_rng_below(&r, 0), 0);
	for (size_t b = 0; b < GP_ARRAY_SIZE(bounds); b++) {
		uint64_t n = bounds[b], max = 0;
		for (int i = 0; i < 20000; i++) {
			uint64_t v = gp_rng_below(&r, n);
			if (v >= n) {
				TFAIL("gp_rng_below(%" PRIu64 ") gave %" PRIu64, n, v);
				break;
			}
			if (v > max) {
				max = v;
			}
		}
		/* The top of the range is reached (or nearly, for wide ranges). */
		if (n <= 1000) {
			CHECK_EQ_U(max, n - 1);
		} else {
			CHECK(max >= n - n / 100);
		}
	}
	/* Roughly uniform: every bucket of 10 within 10% of its share. */
	unsigned hist[10] = {0};
	for (int i = 0; i < 100000; i++) {
		hist[gp_rng_below(&r, 10)]++;
	}
	for (int i = 0; i < 10; i++) {
		if (hist[i] < 9000 || hist[i] > 11000) {
			TFAIL("bucket %d has %u of 100000", i, hist[i]);
		}
	}
}

/* ---------------------------------------------------------------- errors */

TEST(err_str_each_code)
{
	static const struct {
		int code;
		const char *text;
	} want[] = {
		{GP_OK, "success"},
		{GP_ERR_NOMEM, "out of memory"},
		{GP_ERR_IO, "input/output error"},
		{GP_ERR_FORMAT, "invalid format"},
		{GP_ERR_VERSION, "unsupported version"},
		{GP_ERR_TRUNCATED, "truncated input"},
		{GP_ERR_API, "API misuse"},
		{GP_ERR_CUPTI, "CUPTI error"},
		{GP_ERR_CHECKSUM, "checksum mismatch"},
		{GP_ERR_NOTFOUND, "not found"},
		{GP_ERR_RANGE, "value out of range"},
	};

	CHECK_EQ_U(GP_ARRAY_SIZE(want), GP_ERR__COUNT);
	for (size_t i = 0; i < GP_ARRAY_SIZE(want); i++) {
		CHECK_STR(gp_err_str(want[i].code), want[i].text);
		/* Functions return errors negated: both signs give the same text. */
		CHECK_STR(gp_err_str(-want[i].code), want[i].text);
		for (size_t j = 0; j < i; j++) {
			CHECK(strcmp(gp_err_str(want[i].code), gp_err_str(want[j].code)) != 0);
		}
	}
	CHECK_STR(gp_err_str(GP_ERR__COUNT), "unknown error");
	CHECK_STR(gp_err_str(-GP_ERR__COUNT), "unknown error");
	CHECK_STR(gp_err_str(1000), "unknown error");
	CHECK_STR(gp_err_str(INT_MAX), "unknown error");
	CHECK_STR(gp_err_str(-INT_MAX), "unknown error");
}

/*
 * base.h: "description of an error code (positive or negative)": any int.
 * INT_MIN cannot be negated; err.c must not index its table with it.
 */
TEST(err_str_int_min)
{
	volatile int code = INT_MIN;

	CHECK_STR(gp_err_str(code), "unknown error");
}

/* --------------------------------------------------------------- hashing */

TEST(hash_values)
{
	/* gp_hash_u64 is the murmur3 finalizer; values computed outside C (FORMAT.md 6.2). */
	CHECK_EQ_U(gp_hash_u64(0), 0);
	CHECK_EQ_U(gp_hash_u64(1), 0xb456bcfc34c2cb2cULL);
	CHECK_EQ_U(gp_hash_u64(7), 0x740729cbe468d1ddULL);
	CHECK_EQ_U(gp_hash_u64(UINT64_MAX), 0x64b5720b4b825f21ULL);
	CHECK_EQ_U(gp_hash_u64(0x123456789abcdef0ULL), 0x18b8c062f6f42398ULL);

	/* gp_hash_bytes: deterministic, any single changed byte or length changes it. */
	uint8_t buf[64];
	for (size_t i = 0; i < sizeof(buf); i++) {
		buf[i] = (uint8_t)(i * 37 + 1);
	}
	uint64_t h = gp_hash_bytes(buf, sizeof(buf));
	CHECK_EQ_U(gp_hash_bytes(buf, sizeof(buf)), h);
	for (size_t len = 0; len < sizeof(buf); len++) {
		CHECK(gp_hash_bytes(buf, len) != h);
	}
	for (size_t i = 0; i < sizeof(buf); i++) {
		buf[i] ^= 0x01;
		CHECK(gp_hash_bytes(buf, sizeof(buf)) != h);
		buf[i] ^= 0x01;
	}
	CHECK(gp_hash_bytes("ab", 2) != gp_hash_bytes("ba", 2));
}

TEST(tmpdir_from_environment)
{
	const char *was = getenv("TMPDIR");
	char *saved = was ? strdup(was) : NULL;

	CHECK(setenv("TMPDIR", "/var/scratch", 1) == 0);
	CHECK_STR(gp_tmpdir(), "/var/scratch");
	CHECK(setenv("TMPDIR", "", 1) == 0);
	CHECK_STR(gp_tmpdir(), "/tmp");
	CHECK(unsetenv("TMPDIR") == 0);
	CHECK_STR(gp_tmpdir(), "/tmp");
	if (saved) {
		setenv("TMPDIR", saved, 1);
		free(saved);
	}
}
