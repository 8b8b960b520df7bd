/* SPDX-License-Identifier: MIT */
/*
 * test-le.c - little-endian records (base/le.h): the bytes written, values
 * read back, and every way a damaged record is refused.
 */
#include "base/compat.h"
#include "base/le.h"
#include "tests/unit/test.h"

#include <string.h>

TEST(le_put_bytes_least_significant_first)
{
	struct gp_strbuf o = GP_STRBUF_INIT;
	const unsigned char want[] = {0x01, 0x02, 0x01, 0x04, 0x03, 0x02, 0x01,
				      0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};

	gp_le_put(&o, 0x01, 1);
	gp_le_put(&o, 0x0102, 2);
	gp_le_put(&o, 0x01020304, 4);
	gp_le_put(&o, 0x0102030405060708ull, 8);
	CHECK_EQ_U(o.len, sizeof(want));
	CHECK(!memcmp(o.buf, want, sizeof(want)));
	/* only the low bytes of a wider value */
	gp_strbuf_reset(&o);
	gp_le_put(&o, 0xaabbccddull, 2);
	CHECK_EQ_U(o.len, 2);
	CHECK_EQ_U((unsigned char)o.buf[0], 0xdd);
	CHECK_EQ_U((unsigned char)o.buf[1], 0xcc);
	gp_strbuf_release(&o);
}

TEST(le_put_string_and_double)
{
	struct gp_strbuf o = GP_STRBUF_INIT;
	double d = -1.5;
	uint64_t bits;

	gp_le_put_str(&o, "abc");
	gp_le_put_str(&o, "");
	gp_le_put_f64(&o, d);
	CHECK_EQ_U(o.len, 4 + 3 + 4 + 8);
	CHECK(!memcmp(o.buf, "\x03\x00\x00\x00" "abc" "\x00\x00\x00\x00", 11));
	memcpy(&bits, &d, sizeof(bits));
	for (unsigned i = 0; i < 8; i++) {
		CHECK_EQ_U((unsigned char)o.buf[11 + i], (bits >> (8 * i)) & 0xff);
	}
	gp_strbuf_release(&o);
}

TEST(le_round_trip)
{
	struct gp_strbuf o = GP_STRBUF_INIT;

	gp_le_put(&o, 200, 1);
	gp_le_put(&o, 65000, 2);
	gp_le_put(&o, (uint32_t)-7, 4);
	gp_le_put(&o, UINT64_MAX - 1, 8);
	gp_le_put_str(&o, "rank 0");
	gp_le_put_f64(&o, 0.1);
	struct gp_le_rd r = gp_le_rd_init(o.buf, o.len);
	CHECK_EQ_U(gp_le_get(&r, 1), 200);
	CHECK_EQ_U(gp_le_get(&r, 2), 65000);
	CHECK_EQ_I((int32_t)(uint32_t)gp_le_get(&r, 4), -7);
	CHECK_EQ_U(gp_le_get(&r, 8), UINT64_MAX - 1);
	char *s = gp_le_get_str(&r);
	CHECK_STR(s, "rank 0");
	free(s);
	CHECK(gp_le_get_f64(&r) == 0.1);
	CHECK_EQ_U(gp_le_left(&r), 0);
	CHECK(r.bad == NULL);
	gp_strbuf_release(&o);
}

TEST(le_read_past_the_end)
{
	const unsigned char b[3] = {1, 2, 3};
	struct gp_le_rd r = gp_le_rd_init(b, sizeof(b));

	CHECK_EQ_U(gp_le_get(&r, 2), 0x0201);
	CHECK_EQ_U(gp_le_get(&r, 4), 0);
	CHECK_STR(r.bad, "ends early");
	/* once bad, nothing more is read, not even what is left */
	CHECK_EQ_U(gp_le_left(&r), 1);
	CHECK_EQ_U(gp_le_get(&r, 1), 0);
	CHECK_EQ_U(gp_le_left(&r), 1);
	CHECK(gp_le_get_str(&r) == NULL);
	CHECK(!gp_le_fits(&r, 0, 1));
}

TEST(le_counts_and_strings_refused)
{
	/* a length of 5 with 3 bytes left */
	const unsigned char longer[] = {5, 0, 0, 0, 'a', 'b', 'c'};
	struct gp_le_rd r = gp_le_rd_init(longer, sizeof(longer));
	CHECK(gp_le_get_str(&r) == NULL);
	CHECK_STR(r.bad, "count larger than the record");

	/* a NUL inside a string */
	const unsigned char nul[] = {3, 0, 0, 0, 'a', 0, 'c'};
	r = gp_le_rd_init(nul, sizeof(nul));
	CHECK(gp_le_get_str(&r) == NULL);
	CHECK_STR(r.bad, "string holds a NUL byte");

	/* n items of min bytes: 7 bytes hold 3 of 2 but not 4 */
	r = gp_le_rd_init(longer, sizeof(longer));
	CHECK(gp_le_fits(&r, 3, 2));
	CHECK(r.bad == NULL);
	CHECK(!gp_le_fits(&r, 4, 2));
	CHECK_STR(r.bad, "count larger than the record");
	/* the first problem stays */
	gp_le_fail(&r, "later");
	gp_le_get(&r, 8);
	CHECK_STR(r.bad, "count larger than the record");
}
