/* SPDX-License-Identifier: MIT */
/*
 * test-strbuf.c - struct gp_strbuf: appends, growth, formatted appends,
 * JSON string escaping, reset and detach.
 */
#include "base/compat.h"
#include "base/base.h"
#include "tests/unit/test.h"

/* The invariants base.h states for every strbuf. */
static void check_invariants(const struct gp_strbuf *sb)
{
	CHECK(sb->buf != NULL);
	CHECK(!sb->failed);
	if (sb->alloc) {
		CHECK(sb->len < sb->alloc);
	} else {
		CHECK_EQ_U(sb->len, 0);
	}
	CHECK_EQ_U(sb->buf[sb->len], 0);
	CHECK_EQ_U(strlen(sb->buf) <= sb->len, 1);
}

TEST(strbuf_init_is_empty)
{
	struct gp_strbuf a = GP_STRBUF_INIT, b;

	gp_strbuf_init(&b);
	CHECK_STR(a.buf, "");
	CHECK_STR(b.buf, "");
	CHECK_EQ_U(a.len, 0);
	CHECK_EQ_U(b.alloc, 0);
	check_invariants(&a);
	check_invariants(&b);
	/* Releasing a never-grown buffer must not free the shared empty string. */
	gp_strbuf_release(&a);
	gp_strbuf_release(&b);
	CHECK_STR(a.buf, "");
	CHECK_EQ_U(gp_strbuf_empty_[0], 0);
}

TEST(strbuf_append_kinds)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;

	gp_strbuf_adds(&sb, "abc");
	gp_strbuf_addch(&sb, '-');
	gp_strbuf_add(&sb, "xyz123", 3);
	gp_strbuf_adds(&sb, "");
	gp_strbuf_add(&sb, "ignored", 0);
	CHECK_STR(sb.buf, "abc-xyz");
	CHECK_EQ_U(sb.len, 7);
	check_invariants(&sb);

	/* Bytes after an embedded NUL are kept: len, not strlen, is the length. */
	gp_strbuf_add(&sb, "a\0b", 3);
	CHECK_EQ_U(sb.len, 10);
	CHECK(!memcmp(sb.buf, "abc-xyza\0b", 11));
	check_invariants(&sb);
	gp_strbuf_release(&sb);
	CHECK_EQ_U(sb.len, 0);
	CHECK_EQ_U(sb.alloc, 0);
}

TEST(strbuf_growth_keeps_content)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	struct gp_rng rng;
	char *shadow = malloc(1 << 20);
	size_t n = 0;

	REQUIRE(shadow != NULL);
	gp_rng_seed(&rng, 42);
	/* Appends of random sizes, crossing many reallocations. */
	while (n < (1 << 20) - 5000) {
		size_t len = (size_t)gp_rng_below(&rng, 4000);
		char chunk[4000];
		for (size_t i = 0; i < len; i++) {
			chunk[i] = (char)('a' + gp_rng_below(&rng, 26));
		}
		gp_strbuf_add(&sb, chunk, len);
		memcpy(shadow + n, chunk, len);
		n += len;
		if (sb.len != n) {
			break;
		}
	}
	CHECK_EQ_U(sb.len, n);
	CHECK(!memcmp(sb.buf, shadow, n));
	check_invariants(&sb);

	/* gp_strbuf_grow makes room without changing the content. */
	size_t before = sb.len;
	CHECK_EQ_I(gp_strbuf_grow(&sb, 3 << 20), 0);
	CHECK(sb.alloc >= before + (3 << 20) + 1);
	CHECK_EQ_U(sb.len, before);
	CHECK(!memcmp(sb.buf, shadow, n));
	check_invariants(&sb);

	/* A grow that overflows size_t fails and marks the buffer failed. */
	CHECK_EQ_I(gp_strbuf_grow(&sb, SIZE_MAX), -GP_ERR_NOMEM);
	CHECK(sb.failed);
	gp_strbuf_adds(&sb, "more");
	CHECK_EQ_U(sb.len, before);
	/* reset clears the failure. */
	gp_strbuf_reset(&sb);
	CHECK(!sb.failed);
	CHECK_EQ_U(sb.len, 0);
	CHECK_STR(sb.buf, "");
	gp_strbuf_adds(&sb, "again");
	CHECK_STR(sb.buf, "again");
	check_invariants(&sb);
	gp_strbuf_release(&sb);
	free(shadow);
}

TEST(strbuf_addf)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	char expect[8192];

	gp_strbuf_addf(&sb, "%d-%s-%05.1f", 42, "x", 3.14159);
	CHECK_STR(sb.buf, "42-x-003.1");
	check_invariants(&sb);

	/* Longer than the first 64-byte growth: the second vsnprintf path. */
	gp_strbuf_reset(&sb);
	gp_strbuf_addf(&sb, "[%*s]", 300, "r");
	CHECK_EQ_U(sb.len, 302);
	CHECK_EQ_U(sb.buf[0], '[');
	CHECK_EQ_U(sb.buf[300], 'r');
	CHECK_EQ_U(sb.buf[301], ']');
	check_invariants(&sb);

	/* Many formatted appends of growing length, checked against snprintf. */
	gp_strbuf_release(&sb);
	size_t n = 0;
	for (int i = 0; i < 60; i++) {
		char piece[200];
		int len = snprintf(piece, sizeof(piece), "%d:%.*s;", i, i * 3,
				   "0123456789012345678901234567890123456789012345678901234567890"
				   "1234567890123456789012345678901234567890123456789012345678901"
				   "2345678901234567890123456789012345678901234567890123456789");
		gp_strbuf_addf(&sb, "%d:%.*s;", i, i * 3,
			       "0123456789012345678901234567890123456789012345678901234567890"
			       "1234567890123456789012345678901234567890123456789012345678901"
			       "2345678901234567890123456789012345678901234567890123456789");
		memcpy(expect + n, piece, (size_t)len);
		n += (size_t)len;
	}
	expect[n] = '\0';
	CHECK_EQ_U(sb.len, n);
	CHECK_STR(sb.buf, expect);
	check_invariants(&sb);

	/* A format that produces nothing leaves the buffer as it was. */
	size_t before = sb.len;
	gp_strbuf_addf(&sb, "%s", "");
	CHECK_EQ_U(sb.len, before);
	check_invariants(&sb);
	gp_strbuf_release(&sb);
}

static void check_json(const char *in, size_t len, const char *want)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;

	gp_strbuf_adds(&sb, "<");
	gp_strbuf_add_json_str(&sb, in, len);
	gp_strbuf_adds(&sb, ">");
	CHECK_STR(sb.buf, want);
	check_invariants(&sb);
	gp_strbuf_release(&sb);
}

TEST(strbuf_json_escaping)
{
	check_json("", 0, "<\"\">");
	check_json("plain text", 10, "<\"plain text\">");
	check_json("say \"hi\"", 8, "<\"say \\\"hi\\\"\">");
	check_json("back\\slash", 10, "<\"back\\\\slash\">");
	check_json("\\\"", 2, "<\"\\\\\\\"\">");
	check_json("a\nb\tc\rd", 7, "<\"a\\nb\\tc\\rd\">");
	check_json("\b\f", 2, "<\"\\u0008\\u000c\">");
	check_json("\x01\x1f\x7f", 3, "<\"\\u0001\\u001f\\u007f\">");
	/* An embedded NUL is escaped, and len (not the NUL) ends the input. */
	check_json("a\0b", 3, "<\"a\\u0000b\">");
	check_json("abc", 1, "<\"a\">");
	/* UTF-8 and other bytes >= 0x80 pass through unchanged. */
	check_json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80", 14,
		   "<\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80\">");
	check_json(" ~", 2, "<\" ~\">");
}

TEST(strbuf_json_every_byte)
{
	/* Every byte value on its own, against the rules written out here. */
	for (unsigned c = 1; c < 256; c++) {
		char in = (char)c, want[16];
		if (c == '"') {
			strcpy(want, "\"\\\"\"");
		} else if (c == '\\') {
			strcpy(want, "\"\\\\\"");
		} else if (c == '\n') {
			strcpy(want, "\"\\n\"");
		} else if (c == '\t') {
			strcpy(want, "\"\\t\"");
		} else if (c == '\r') {
			strcpy(want, "\"\\r\"");
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(want, sizeof(want), "\"\\u%04x\"", c);
		} else {
			want[0] = '"';
			want[1] = (char)c;
			want[2] = '"';
			want[3] = '\0';
		}
		struct gp_strbuf sb = GP_STRBUF_INIT;
		gp_strbuf_add_json_str(&sb, &in, 1);
		if (strcmp(sb.buf, want)) {
			TFAIL("byte 0x%02x: got %s, want %s", c, sb.buf, want);
		}
		gp_strbuf_release(&sb);
	}
}

TEST(strbuf_detach)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	size_t len = 99;
	char *s;

	/* Detaching a never-grown buffer still gives a string the caller may free. */
	s = gp_strbuf_detach(&sb, &len);
	REQUIRE(s != NULL);
	CHECK_STR(s, "");
	CHECK_EQ_U(len, 0);
	free(s);

	gp_strbuf_addf(&sb, "value=%u", 7u);
	s = gp_strbuf_detach(&sb, &len);
	REQUIRE(s != NULL);
	CHECK_STR(s, "value=7");
	CHECK_EQ_U(len, 7);
	CHECK_EQ_U(sb.len, 0);
	CHECK_EQ_U(sb.alloc, 0);
	CHECK_STR(sb.buf, "");
	/* The strbuf is usable again and does not share the detached memory. */
	gp_strbuf_adds(&sb, "new");
	CHECK_STR(s, "value=7");
	CHECK_STR(sb.buf, "new");
	free(s);
	s = gp_strbuf_detach(&sb, NULL);
	CHECK_STR(s, "new");
	free(s);
}
