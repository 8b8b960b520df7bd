// SPDX-License-Identifier: MIT
/*
 * Tests of the pull JSON tokenizer (import/json-scan.c) and its gzip input:
 * token streams read in chunks of every size from 1 byte, escapes and UTF-8,
 * strict number and structure rules, error offsets and lines, nesting limit,
 * every truncation of a document, token size limits, skipping.
 */
#include "base/compat.h"
#include "base/base.h"
#include "import/json-raw.h"
#include "import/json-scan.h"
#include "tests/unit/test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* An in-memory source that hands out at most step bytes per read. */
struct mem {
	const char *p;
	size_t n, off, step;
};

static ssize_t mem_read(void *ctx, void *buf, size_t n)
{
	struct mem *m = ctx;
	size_t k = m->n - m->off;

	if (k > n) {
		k = n;
	}
	if (k > m->step) {
		k = m->step;
	}
	memcpy(buf, m->p + m->off, k);
	m->off += k;
	return (ssize_t)k;
}

/*
 * Tokenizes text (len bytes) in reads of step bytes and renders the tokens
 * as one line each into out; returns 0 or the error. err gets the message.
 */
static int render(const char *text, size_t len, size_t step, size_t max_token, char *out,
		  size_t outlen, char *err, size_t errlen, uint64_t *off, uint64_t *line)
{
	struct mem m = {text, len, 0, step};
	struct gpa_json_scan *s = NULL;
	struct gpa_json_tok t;
	size_t o = 0;
	int r;

	if (gpa_json_scan_new(mem_read, &m, max_token, &s)) {
		TFAIL("gpa_json_scan_new");
		return -GP_ERR_NOMEM;
	}
	out[0] = 0;
	for (;;) {
		static const char *names[] = {"eof", "null", "true", "false", "num", "str", "key",
					      "{", "}", "[", "]"};
		r = gpa_json_next(s, &t);
		if (r || t.type == GPA_JSON_EOF) {
			break;
		}
		o += (size_t)snprintf(out + o, outlen - o, "%s", names[t.type]);
		if (t.type == GPA_JSON_NUMBER || t.type == GPA_JSON_STRING ||
		    t.type == GPA_JSON_KEY) {
			o += (size_t)snprintf(out + o, outlen - o, " %zu:", t.n);
			for (size_t i = 0; i < t.n && o + 4 < outlen; i++) {
				unsigned char c = (unsigned char)t.s[i];
				o += (size_t)snprintf(out + o, outlen - o,
						      c >= 0x20 && c < 0x7f ? "%c" : "\\%02x", c);
			}
		}
		o += (size_t)snprintf(out + o, outlen - o, "\n");
		if (o >= outlen) {
			TFAIL("render: output too long");
			break;
		}
	}
	snprintf(err, errlen, "%s", gpa_json_error(s));
	if (off) {
		*off = gpa_json_offset(s);
	}
	if (line) {
		*line = gpa_json_line(s);
	}
	gpa_json_scan_free(s);
	return r;
}

static const char DOC[] =
	"{\"a\": [1, -2.5e+3, 0, -0.0, 1E9, true, false, null],\n"
	" \"s\": \"x\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\ud83d\\ude00y\",\n"
	" \"u\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\", \"e\": {}, \"f\": [],\n"
	" \"n\": {\"k\": [[{}]]}}  \n";

static const char DOC_TOKENS[] =
	"{\nkey 1:a\n[\nnum 1:1\nnum 7:-2.5e+3\nnum 1:0\nnum 4:-0.0\nnum 3:1E9\ntrue\nfalse\n"
	"null\n]\nkey 1:s\nstr 17:x\"\\/\\08\\0c\\0a\\0d\\09A\\c3\\a9\\f0\\9f\\98\\80y\n"
	"key 1:u\nstr 14:caf\\c3\\a9 \\e2\\82\\ac \\f0\\9f\\98\\80\nkey 1:e\n{\n}\nkey 1:f\n[\n]\n"
	"key 1:n\n{\nkey 1:k\n[\n[\n{\n}\n]\n]\n}\n}\n";

TEST(json_scan_tokens_every_read_size)
{
	char out[4096], err[200];

	for (size_t step = 1; step <= sizeof(DOC); step++) {
		int r = render(DOC, strlen(DOC), step, 1024, out, sizeof(out), err, sizeof(err),
			       NULL, NULL);
		CHECK_EQ_I(r, 0);
		CHECK_STR(out, DOC_TOKENS);
		if (r || strcmp(out, DOC_TOKENS)) {
			TFAIL("read size %zu", step);
			break;
		}
	}
}

/* Every proper prefix of an object ends inside it: truncated, never a crash or success. */
TEST(json_scan_every_truncation)
{
	char out[4096], err[200];
	size_t n = strlen(DOC);

	for (size_t cut = 0; cut < n - 4; cut++) { /* DOC ends with "}  \n" */
		uint64_t off = 0;
		int r = render(DOC, cut, 5, 1024, out, sizeof(out), err, sizeof(err), &off, NULL);
		int want = cut == 0 ? -GP_ERR_FORMAT : -GP_ERR_TRUNCATED; /* "": no value at all */
		CHECK_EQ_I(r, want);
		if (r != want) {
			TFAIL("cut at %zu: %s", cut, err);
			break;
		}
		CHECK(off <= cut);
	}
}

static void bad(const char *text, int want, const char *msg, uint64_t want_off)
{
	char out[4096], err[200];
	uint64_t off = 0;

	for (size_t step = 1; step <= 4096; step *= 4096) {
		int r = render(text, strlen(text), step, 64, out, sizeof(out), err, sizeof(err),
			       &off, NULL);
		CHECK_EQ_I(r, want);
		CHECK_CONTAINS(err, msg);
		if (want_off != UINT64_MAX) {
			CHECK_EQ_U(off, want_off);
		}
		if (r != want) {
			TFAIL("input '%s' read by %zu", text, step);
		}
	}
}

TEST(json_scan_strict)
{
	/* numbers */
	bad("[01]", -GP_ERR_FORMAT, "malformed number", 1);
	bad("[1.]", -GP_ERR_FORMAT, "malformed number", 1);
	bad("[.5]", -GP_ERR_FORMAT, "unexpected '.'", 1);
	bad("[-]", -GP_ERR_FORMAT, "malformed number", 1);
	bad("[1e]", -GP_ERR_FORMAT, "malformed number", 1);
	bad("[1e+]", -GP_ERR_FORMAT, "malformed number", 1);
	bad("[+1]", -GP_ERR_FORMAT, "unexpected '+'", 1);
	bad("[1-2]", -GP_ERR_FORMAT, "malformed number", 1);
	bad("[0x10]", -GP_ERR_FORMAT, "unexpected 'x'", 2);
	/* literals and structure */
	bad("[tru]", -GP_ERR_FORMAT, "invalid literal", 1);
	bad("[nul", -GP_ERR_TRUNCATED, "ends early", 4);
	bad("[1,]", -GP_ERR_FORMAT, "unexpected ']'", 3);
	bad("{\"a\":1,}", -GP_ERR_FORMAT, "expected a string key", 7);
	bad("{\"a\" 1}", -GP_ERR_FORMAT, "expected ':'", 5);
	bad("{1:2}", -GP_ERR_FORMAT, "expected a string key or '}'", 1);
	bad("[1 2]", -GP_ERR_FORMAT, "expected ',' or ']'", 3);
	bad("{\"a\":1]", -GP_ERR_FORMAT, "expected ',' or '}'", 6);
	bad("[1]]", -GP_ERR_FORMAT, "expected the end of the JSON", 3);
	bad("{} {}", -GP_ERR_FORMAT, "expected the end", 3);
	bad("// c\n{}", -GP_ERR_FORMAT, "unexpected '/'", 0);
	bad("  ", -GP_ERR_FORMAT, "no JSON value", 2);
	/* strings */
	bad("[\"a\\x\"]", -GP_ERR_FORMAT, "bad escape '\\x'", 3);
	bad("[\"\\u12G4\"]", -GP_ERR_FORMAT, "bad \\u escape", 2);
	bad("[\"a\tb\"]", -GP_ERR_FORMAT, "control character 0x09", 3);
	bad("[\"\xc0\x80\"]", -GP_ERR_FORMAT, "invalid UTF-8", 2);         /* overlong */
	bad("[\"\xed\xa0\x80\"]", -GP_ERR_FORMAT, "invalid UTF-8", 2);     /* surrogate */
	bad("[\"\xf4\x90\x80\x80\"]", -GP_ERR_FORMAT, "invalid UTF-8", 2); /* > U+10FFFF */
	bad("[\"\xe2\x82\"]", -GP_ERR_FORMAT, "invalid UTF-8", 2);         /* cut sequence */
	bad("[\"\xff\"]", -GP_ERR_FORMAT, "invalid UTF-8", 2);
	bad("[\"abc", -GP_ERR_TRUNCATED, "ends inside a string", 5);
	bad("[\"abc\\", -GP_ERR_TRUNCATED, "ends inside a string", 6);
	bad("[\"\\u00", -GP_ERR_TRUNCATED, "ends inside a string", 6);
	/* the token limit (64 here) */
	char big[200];
	memset(big, 'x', sizeof(big));
	big[0] = '[';
	big[1] = '"';
	memcpy(big + 150, "\"]", 3);
	bad(big, -GP_ERR_RANGE, "longer than 64", UINT64_MAX);
	memset(big + 1, '7', 149);
	bad(big, -GP_ERR_RANGE, "number longer than 64", UINT64_MAX);
}

TEST(json_scan_lone_surrogates)
{
	char out[512], err[200];

	/* lone high, lone low, high followed by a non-low escape: each U+FFFD (ef bf bd) */
	CHECK_EQ_I(render("[\"\\ud800x\\udc00\\ud800\\u0041\"]", 29, 1, 64, out, sizeof(out), err,
			  sizeof(err), NULL, NULL),
		   0);
	CHECK_STR(out, "[\nstr 11:\\ef\\bf\\bdx\\ef\\bf\\bd\\ef\\bf\\bdA\n]\n");
	/* \u0000 is kept as a byte */
	CHECK_EQ_I(render("[\"a\\u0000b\"]", 12, 3, 64, out, sizeof(out), err, sizeof(err), NULL,
			  NULL),
		   0);
	CHECK_STR(out, "[\nstr 3:a\\00b\n]\n");
}

TEST(json_scan_nesting_limit)
{
	char doc[2 * GPA_JSON_MAX_DEPTH + 8], out[8192], err[200];
	int d;

	for (d = 0; d < GPA_JSON_MAX_DEPTH; d++) {
		doc[d] = '[';
		doc[GPA_JSON_MAX_DEPTH + d] = ']';
	}
	doc[2 * GPA_JSON_MAX_DEPTH] = 0;
	CHECK_EQ_I(render(doc, strlen(doc), 7, 64, out, sizeof(out), err, sizeof(err), NULL, NULL),
		   0);
	/* one more */
	memmove(doc + 1, doc, 2 * GPA_JSON_MAX_DEPTH + 1);
	doc[0] = '[';
	strcat(doc, "]");
	CHECK_EQ_I(render(doc, strlen(doc), 7, 64, out, sizeof(out), err, sizeof(err), NULL, NULL),
		   -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "nesting deeper than");
}

TEST(json_scan_error_position)
{
	char out[512], err[200];
	uint64_t off, line;
	const char *t = "{\n  \"a\": 1,\n  \"b\": [1, 2,, 3]\n}";

	CHECK_EQ_I(render(t, strlen(t), 2, 64, out, sizeof(out), err, sizeof(err), &off, &line),
		   -GP_ERR_FORMAT);
	CHECK_EQ_U(line, 3);
	CHECK_EQ_U(off, (uint64_t)(strstr(t, ",,") - t + 1));
}

/* Skipping: a 3 MiB string under a 1 KiB token limit, nested containers, skip_rest. */
TEST(json_scan_skip)
{
	size_t n = 3u << 20;
	char *doc = malloc(n + n / 400 + 400);
	struct mem m;
	struct gpa_json_scan *s = NULL;
	struct gpa_json_tok t;

	REQUIRE(doc != NULL);
	strcpy(doc, "{\"big\": \"");
	size_t o = strlen(doc);
	for (size_t i = 0; i < n; i++) {
		doc[o++] = (char)('a' + i % 26);
		if (i % 1000 == 999) {
			doc[o++] = '\\';
			doc[o++] = 'n';
		}
	}
	strcpy(doc + o, "\", \"nest\": [{\"x\": [1, {\"y\": \"\\u0041\"}]}, 2], \"k\": 7, "
			"\"r\": {\"q\": 1, \"w\": [3]}, \"after\": true}");
	m = (struct mem){doc, strlen(doc), 0, 65536};
	REQUIRE(gpa_json_scan_new(mem_read, &m, 1024, &s) == 0);
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_BEGIN_OBJECT);
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_KEY && t.n == 3);
	CHECK_EQ_I(gpa_json_skip(s), 0);
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_KEY && t.n == 4);
	CHECK_EQ_I(gpa_json_skip(s), 0);
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_KEY && t.n == 1 && t.s[0] == 'k');
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_NUMBER && t.n == 1 &&
	      t.s[0] == '7');
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_KEY && t.s[0] == 'r');
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_BEGIN_OBJECT);
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_KEY && t.s[0] == 'q');
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_NUMBER);
	CHECK_EQ_I(gpa_json_depth(s), 2);
	CHECK_EQ_I(gpa_json_skip_rest(s), 0); /* the rest of "r", its '}' included */
	CHECK_EQ_I(gpa_json_depth(s), 1);
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_KEY && t.n == 5);
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_TRUE);
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_END_OBJECT);
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_EOF);
	gpa_json_scan_free(s);

	/* the same string read as a token exceeds the limit */
	m = (struct mem){doc, strlen(doc), 0, 65536};
	REQUIRE(gpa_json_scan_new(mem_read, &m, 1024, &s) == 0);
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_BEGIN_OBJECT);
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_KEY);
	CHECK_EQ_I(gpa_json_next(s, &t), -GP_ERR_RANGE);
	CHECK_EQ_I(gpa_json_next(s, &t), -GP_ERR_RANGE); /* sticky */
	gpa_json_scan_free(s);

	/* skipping is as strict as reading */
	const char *badskip = "{\"a\": [1, {\"b\": 01}], \"c\": 1}";
	m = (struct mem){badskip, strlen(badskip), 0, 3};
	REQUIRE(gpa_json_scan_new(mem_read, &m, 1024, &s) == 0);
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_BEGIN_OBJECT);
	CHECK(gpa_json_next(s, &t) == 0 && t.type == GPA_JSON_KEY);
	CHECK_EQ_I(gpa_json_skip(s), -GP_ERR_FORMAT);
	CHECK_CONTAINS(gpa_json_error(s), "malformed number");
	gpa_json_scan_free(s);
	free(doc);
}

/*
 * One skip of the value of "v" in {"a": 1, "v": VALUE, "z": 2} (rest: of the
 * rest of the object after "a": 1), the input read step bytes at a time;
 * renders the result, the error and its offset, the depth and the token
 * after into out.
 */
static void skip_once(const char *doc, size_t step, bool rest, char *out, size_t outlen)
{
	struct mem m = {doc, strlen(doc), 0, step};
	struct gpa_json_scan *s = NULL;
	struct gpa_json_tok t;
	int r;

	snprintf(out, outlen, "no scanner");
	if (gpa_json_scan_new(mem_read, &m, 1024, &s)) {
		return;
	}
	r = gpa_json_next(s, &t); /* { */
	r = r ? r : gpa_json_next(s, &t); /* "a" */
	r = r ? r : gpa_json_next(s, &t); /* 1 */
	if (!rest) {
		r = r ? r : gpa_json_next(s, &t); /* "v" */
		r = r ? r : gpa_json_skip(s);
	} else {
		r = r ? r : gpa_json_skip_rest(s);
	}
	int r2 = r ? r : gpa_json_next(s, &t);
	/* (the offset after a good skip depends on how much the reads brought in) */
	snprintf(out, outlen, "r=%d err=%s off=%llu depth=%d next=%d %.*s", r, gpa_json_error(s),
		 r ? (unsigned long long)gpa_json_offset(s) : 0ull, gpa_json_depth(s),
		 r2 ? -1 : (int)t.type,
		 !r2 && t.s ? (int)t.n : 0, !r2 && t.s ? t.s : "");
	gpa_json_scan_free(s);
}

/*
 * Skipping a value held wholly in the buffer (one read: the fast structural
 * pass) says exactly what skipping it token by token (1-byte reads) says:
 * the same position after it, or the same error at the same offset.
 */
TEST(json_scan_skip_fast_equals_slow)
{
	static const char *vals[] = {
		"[[], [], [], [], []]", "[\"\", \"\", \"Scalar\"]", "{}", "[]", "0", "-0.5e+3",
		"123456789012345678901234567890", "true", "false", "null", "\"\"",
		"{\"k\": {\"q\": [1, -2.5E-3, true, false, null, \"x\"]}, \"e\": {}}",
		"\"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80\"",
		"\"a\\n\\t\\\\\\/\\\"\\u00e9\\uD83D\\uDE00\"",
		" [ 1 , { \"a\" : [ ] } ] ", "\t\r\n[\n]\n",
		/* malformed: every one must fail the same way */
		"01", "1.", "-", "1.e5", "1e", "+1", "1+", ".5", "tru", "nul", "fals", "truex",
		"nan", "[1,]", "[,1]", "{\"a\" 1}", "{\"a\":1,}", "{,}", "{1: 2}", "[1 2]", "[}",
		"{]", "[[]", "{\"a\": [}", "\"\x01\"", "\"\\q\"", "\"\\u12G4\"", "\"\xc0\x80\"",
		"\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xe2\x82\"", "\"\x80\"", "\"abc",
		"[\"abc]", "", "]", "}", "\"\\", "[1, 2",
	};
	char doc[4096], fast[512], slow[512];

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		for (int rest = 0; rest < 2; rest++) {
			snprintf(doc, sizeof(doc), "{\"a\": 1, \"v\": %s, \"z\": 2}", vals[i]);
			skip_once(doc, sizeof(doc), rest, fast, sizeof(fast));
			skip_once(doc, 1, rest, slow, sizeof(slow));
			if (strcmp(fast, slow) != 0) {
				TFAIL("value %zu (%s), rest=%d: one read says \"%s\", "
				      "1-byte reads say \"%s\"",
				      i, vals[i], rest, fast, slow);
			}
		}
	}
	/* a good value does skip; a bad one does fail (the comparison alone would not show it) */
	snprintf(doc, sizeof(doc), "{\"a\": 1, \"v\": %s, \"z\": 2}", vals[0]);
	skip_once(doc, sizeof(doc), false, fast, sizeof(fast));
	CHECK_CONTAINS(fast, "r=0 err= ");
	CHECK_CONTAINS(fast, "next=6 z");
	skip_once(doc, sizeof(doc), true, fast, sizeof(fast));
	CHECK_CONTAINS(fast, "r=0 err= ");
	CHECK_CONTAINS(fast, "depth=0 next=0");
	snprintf(doc, sizeof(doc), "{\"a\": 1, \"v\": %s, \"z\": 2}", "[1 2]");
	skip_once(doc, sizeof(doc), false, fast, sizeof(fast));
	CHECK_CONTAINS(fast, "unexpected '2'");

	/* nesting past the fast pass's 64 levels, up to and over the limit */
	for (int deep = 60; deep <= GPA_JSON_MAX_DEPTH + 2; deep += 1) {
		size_t o = (size_t)snprintf(doc, sizeof(doc), "{\"a\": 1, \"v\": ");
		for (int k = 0; k < deep; k++) {
			doc[o++] = k % 2 ? '[' : '{';
			if (k % 2 == 0) {
				o += (size_t)snprintf(doc + o, sizeof(doc) - o, "\"k\":");
			}
		}
		for (int k = deep - 1; k >= 0; k--) {
			if (k % 2 == 0) {
				doc[o++] = '{';
				doc[o++] = '}';
				doc[o++] = '}';
				continue;
			}
			doc[o++] = ']';
		}
		o += (size_t)snprintf(doc + o, sizeof(doc) - o, ", \"z\": 2}");
		for (int rest = 0; rest < 2; rest++) {
			skip_once(doc, sizeof(doc), rest, fast, sizeof(fast));
			skip_once(doc, 1, rest, slow, sizeof(slow));
			if (strcmp(fast, slow) != 0) {
				TFAIL("depth %d, rest=%d: one read says \"%s\", "
				      "1-byte reads say \"%s\"",
				      deep, rest, fast, slow);
			}
		}
	}
}

static void write_gz_member(FILE *f, const char *text, size_t n)
{
	z_stream z = {0};
	unsigned char out[4096];

	REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK);
	z.next_in = (unsigned char *)(uintptr_t)text;
	z.avail_in = (unsigned)n;
	int r;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		r = deflate(&z, Z_FINISH);
		fwrite(out, 1, sizeof(out) - z.avail_out, f);
	} while (r == Z_OK);
	CHECK_EQ_I(r, Z_STREAM_END);
	deflateEnd(&z);
}

/* Whether read_all() inflates on a thread of its own (gpa_json_file_read_ahead). */
static bool read_ahead;

/* Reads a whole file through gpa_json_file; returns 0 or the error, text in buf. */
static int read_all_step(const char *path, char *buf, size_t cap, size_t *n, char *err,
			 size_t errlen, size_t step)
{
	struct gpa_json_file *f = NULL;
	int r = gpa_json_file_open(path, &f, err, errlen);
	ssize_t got;

	*n = 0;
	if (r) {
		return r;
	}
	if (read_ahead) {
		CHECK_EQ_I(gpa_json_file_read_ahead(f), 0);
	}
	while ((got = gpa_json_file_read(f, buf + *n, cap - *n > step ? step : cap - *n)) > 0) {
		*n += (size_t)got;
	}
	snprintf(err, errlen, "%s", got < 0 ? gpa_json_file_error(f) : "");
	gpa_json_file_close(f);
	return got < 0 ? (int)got : 0;
}

static int read_all(const char *path, char *buf, size_t cap, size_t *n, char *err, size_t errlen)
{
	return read_all_step(path, buf, cap, n, err, errlen, 7);
}

static void gzip_cases(void);

static size_t first_diff(const char *x, const char *y, size_t n)
{
	size_t i = 0;
	while (i < n && x[i] == y[i]) {
		i++;
	}
	return i;
}

TEST(json_file_gzip)
{
	read_ahead = false;
	gzip_cases();
}

/* The same through the inflater thread: the same bytes, the same errors. */
TEST(json_file_gzip_read_ahead)
{
	read_ahead = true;
	gzip_cases();
}

/*
 * Members larger than the inflater thread's buffers, read in pieces of every
 * size against one read: the same bytes; a file cut short says the same thing
 * after the same bytes with and without the thread, in large reads and small.
 */
TEST(json_file_read_ahead_large)
{
	size_t len = (9u << 20) + 12345, n1, n2;
	char *text = malloc(len), *a = malloc(len + 1), *b = malloc(len + 1);
	char path[512], err[256];
	uint64_t x = 88172645463325252ull;

	REQUIRE(text && a && b);
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		text[i] = (char)('a' + (x % 7 == 0 ? x % 26 : i % 13)); /* compressible, not trivially */
	}
	snprintf(path, sizeof(path), "%s/big.json.gz", test_tmpdir());
	FILE *f = fopen(path, "wb");
	REQUIRE(f != NULL);
	write_gz_member(f, text, len / 3);
	write_gz_member(f, text + len / 3, len - len / 3);
	long size = ftell(f);
	fclose(f);
	read_ahead = false;
	CHECK_EQ_I(read_all_step(path, a, len + 1, &n1, err, sizeof(err), 1u << 20), 0);
	CHECK_EQ_U(n1, len);
	CHECK(memcmp(a, text, len) == 0);
	read_ahead = true;
	static const size_t steps[] = {1000003, 4096, 1u << 20, 3u << 20};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		CHECK_EQ_I(read_all_step(path, b, len + 1, &n2, err, sizeof(err), steps[i]), 0);
		CHECK_EQ_U(n2, len);
		CHECK(memcmp(b, text, len) == 0);
	}
	for (long cut = size / 7; cut < size; cut += size / 7) {
		REQUIRE(truncate(path, cut) == 0);
		read_ahead = false;
		int r1 = read_all_step(path, a, len + 1, &n1, err, sizeof(err), 1u << 18);
		char err1[256];
		snprintf(err1, sizeof(err1), "%s", err);
		read_ahead = true;
		int r2 = read_all_step(path, b, len + 1, &n2, err, sizeof(err), 1u << 18);
		CHECK_EQ_I(r2, r1);
		CHECK_STR(err, err1);
		/* the same bytes before the error (ISA-L's: they may end in what it made of the cut) */
		CHECK(r1 < 0);
		CHECK_EQ_U(n2, n1);
		CHECK(first_diff(b, a, n1) == n1);
		/* and in small reads without the thread */
		read_ahead = false;
		CHECK_EQ_I(read_all_step(path, b, len + 1, &n2, err, sizeof(err), 4099), r1);
		CHECK_STR(err, err1);
		CHECK_EQ_U(n2, n1);
		CHECK(first_diff(b, a, n1) == n1);
	}
	read_ahead = false;
	free(text);
	free(a);
	free(b);
}

static void gzip_cases(void)
{
	char path[600], buf[1 << 16], err[256];
	size_t n;
	long size;
	FILE *f;

	snprintf(path, sizeof(path), "%s/m.json.gz", test_tmpdir());
	/* two members, as `cat a.gz b.gz` makes */
	f = fopen(path, "wb");
	REQUIRE(f != NULL);
	write_gz_member(f, "{\"traceEvents\": [", 17);
	write_gz_member(f, "]}\n", 3);
	size = ftell(f);
	fclose(f);
	CHECK_EQ_I(read_all(path, buf, sizeof(buf), &n, err, sizeof(err)), 0);
	CHECK_EQ_U(n, 20);
	CHECK(memcmp(buf, "{\"traceEvents\": []}\n", 20) == 0);

	/* cut anywhere inside: truncated or corrupt, never a silent short read */
	for (long cut = 2; cut < size; cut++) {
		REQUIRE(truncate(path, cut) == 0);
		int r = read_all(path, buf, sizeof(buf), &n, err, sizeof(err));
		if (r == 0 && n == 17) {
			/* the first member is whole and the second has not started */
			continue;
		}
		CHECK(r == -GP_ERR_TRUNCATED || r == -GP_ERR_FORMAT);
		CHECK_CONTAINS(err, "gzip");
		if (!(r == -GP_ERR_TRUNCATED || r == -GP_ERR_FORMAT)) {
			TFAIL("cut at %ld: r=%d n=%zu", cut, r, n);
			break;
		}
	}

	/* garbage after a member; a flipped byte in the deflate data */
	f = fopen(path, "wb");
	REQUIRE(f != NULL);
	write_gz_member(f, "{\"traceEvents\": []}", 19);
	fputs("junk", f);
	fclose(f);
	CHECK_EQ_I(read_all(path, buf, sizeof(buf), &n, err, sizeof(err)), -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "garbage after gzip member");

	f = fopen(path, "wb");
	REQUIRE(f != NULL);
	write_gz_member(f, "{\"traceEvents\": [], \"abcdefabcdefabcdef\": 1}", 44);
	size = ftell(f);
	fclose(f);
	f = fopen(path, "r+b");
	REQUIRE(f != NULL);
	fseek(f, size - 7, SEEK_SET); /* inside the CRC32 */
	int c = fgetc(f);
	fseek(f, size - 7, SEEK_SET);
	fputc(0x55 ^ c, f);
	fclose(f);
	int r = read_all(path, buf, sizeof(buf), &n, err, sizeof(err));
	CHECK_EQ_I(r, -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "bad gzip data");

	CHECK_EQ_I(read_all("/nonexistent/x.json", buf, sizeof(buf), &n, err, sizeof(err)),
		   -GP_ERR_IO);
	CHECK_CONTAINS(err, "/nonexistent/x.json");
}

/*
 * Every way of finding the end of a string body's plain bytes (a byte at a
 * time, SSE2, AVX2 when this CPU has it, the one chosen at run time and the
 * inline reader) stops at the same byte: each kind of stop byte at every
 * position up to 300, from every start before it, the sentinel and its
 * 32 bytes of padding behind the text as in the scanner's buffer.
 */
TEST(json_string_stop_variants_agree)
{
	enum { LEN = 300, PAD = 32 };
	static const unsigned char stops[] = {'"', '\\', 0x01, 0x1f, 0x80, 0xc3, 0xff};
	unsigned char *buf = malloc(LEN + 1 + PAD);
	struct gp_rng rng;

	REQUIRE(buf != NULL);
	gp_rng_seed(&rng, 38);
	printf("# avx2 %s\n", gpa_json_stop_has_avx2() ? "present: both paths run" : "absent: sse2 twice");
	for (size_t k = 0; k <= LEN; k++) {
		for (size_t i = 0; i < LEN; i++) {
			unsigned char c;
			do {
				c = (unsigned char)(0x20 + gp_rng_below(&rng, 0x60));
			} while (c == '"' || c == '\\');
			buf[i] = c;
		}
		buf[LEN] = '"';
		memset(buf + LEN + 1, 0, PAD);
		if (k < LEN) {
			buf[k] = stops[k % sizeof(stops)];
		}
		for (size_t s = 0; s <= k; s += 1 + s / 40) {
			const unsigned char *want = buf + k;
			CHECK(gpa_json_stop_bytes(buf + s) == want);
			CHECK(gpa_json_stop_sse2(buf + s) == want);
			CHECK(gpa_json_stop_avx2(buf + s) == want);
			CHECK(gpa_json_stop_long(buf + s) == want);
			CHECK(jr_string_stop(buf + s) == want);
		}
	}
	free(buf);
}
