// SPDX-License-Identifier: MIT
/*
 * json-scan.c - the pull JSON tokenizer and the (gzip) input file behind it.
 *
 * The buffer holds the bytes from the current token on; past the last byte
 * read sits a '"' sentinel and 16 bytes of padding, so the hot loops (string
 * body, whitespace, number digits) need no bounds check: they stop at the
 * sentinel at the latest, and a stop at the buffer's end means "read more
 * and look again". String bodies are scanned 16 bytes at a time with SSE2
 * where the compiler offers it.
 */
#include "base/compat.h"
#include "base/base.h"
#include "import/json-scan.h"
#include "import/json-raw.h"
#include "import/import.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <isa-l/igzip_lib.h>

#define PAD 32
#define IN_CAP (256u << 10)	/* compressed bytes read at a time */
/*
 * A gzip file may inflate to GZ_MAX_RATIO times the compressed bytes read so
 * far, or GZ_MAX_FLOOR bytes, whichever is more: past that it is a crafted
 * file (a gzip bomb), not a trace. Real Kineto traces inflate 8-23 times
 * (docs/reliability.md, "Memory").
 */
#define GZ_MAX_RATIO 128u
#define GZ_MAX_FLOOR (256ull << 20)
#define FIRST_CAP (256u << 10)

enum state {
	S_VALUE,	 /* a value is due */
	S_VALUE_OR_END,	 /* after '[': a value or ']' */
	S_KEY,		 /* after ',' in an object: a key */
	S_KEY_OR_END,	 /* after '{': a key or '}' */
	S_COLON,	 /* after a key */
	S_AFTER,	 /* after a value: ',' or the container's end (or the end of input) */
	S_DONE,		 /* the top-level value is complete */
};

struct gpa_json_scan {
	gpa_json_read_fn read;
	void *ctx;
	unsigned char *buf;
	size_t cap;		/* bytes usable, PAD more allocated */
	size_t pos, end;	/* next byte; end of data (buf[end] is the sentinel) */
	size_t max_token;
	uint64_t base;		/* file offset of buf[0] */
	uint64_t lines;		/* newlines before buf[0] (when no_lines is false) */
	bool no_lines;		/* the caller finds lines itself: gpa_json_line() says 0 */
	bool eof;
	enum state st;
	int depth;
	unsigned char stack[GPA_JSON_MAX_DEPTH]; /* '{' or '[' */
	int err;
	uint64_t err_off, err_line;
	char msg[160];
	char *tmp;		/* decoded strings */
	size_t tmpcap;
};

/* ------------------------------------------------------------ errors */

static uint64_t count_nl(const unsigned char *p, size_t n)
{
	uint64_t c = 0;
	size_t i = 0;

#ifdef __SSE2__
	/* per-byte counters (cmpeq gives -1), summed before they can wrap */
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	while (i + 16 <= n) {
		__m128i acc = zero;
		for (int k = 0; k < 255 && i + 16 <= n; k++, i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
		}
		__m128i sum = _mm_sad_epu8(acc, zero);
		c += (uint64_t)_mm_cvtsi128_si32(sum) + (uint64_t)_mm_extract_epi16(sum, 4);
	}
#endif
	for (; i < n; i++) {
		c += p[i] == '\n';
	}
	return c;
}

static int fail_at(struct gpa_json_scan *s, size_t at, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_at(struct gpa_json_scan *s, size_t at, int err, const char *fmt, ...)
{
	va_list ap;

	if (s->err) {
		return s->err;
	}
	if (at > s->end) {
		at = s->end;
	}
	s->err = err;
	s->err_off = s->base + at;
	s->err_line = s->no_lines ? 0 : s->lines + 1 + count_nl(s->buf, at);
	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
	return err;
}

const char *gpa_json_error(const struct gpa_json_scan *s)
{
	return s->err ? s->msg : "";
}

uint64_t gpa_json_offset(const struct gpa_json_scan *s)
{
	return s->err ? s->err_off : s->base + s->pos;
}

uint64_t gpa_json_line(const struct gpa_json_scan *s)
{
	if (s->err) {
		return s->err_line;
	}
	return s->no_lines ? 0 : s->lines + 1 + count_nl(s->buf, s->pos);
}

int gpa_json_depth(const struct gpa_json_scan *s)
{
	return s->depth;
}

/* ------------------------------------------------------------ buffer */

int gpa_json_scan_new(gpa_json_read_fn read, void *ctx, size_t max_token,
		      struct gpa_json_scan **out)
{
	struct gpa_json_scan *s;

	*out = NULL;
	if (!read || max_token < 16) {
		return -GP_ERR_API;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		return -GP_ERR_NOMEM;
	}
	s->cap = FIRST_CAP;
	s->buf = malloc(s->cap + PAD);
	if (!s->buf) {
		free(s);
		return -GP_ERR_NOMEM;
	}
	gp_prefault(s->buf, s->cap + PAD); /* filled whole by the first read */
	memset(s->buf, 0, PAD);
	s->buf[0] = '"';
	s->read = read;
	s->ctx = ctx;
	s->max_token = max_token;
	s->st = S_VALUE;
	*out = s;
	return 0;
}

void gpa_json_scan_no_lines(struct gpa_json_scan *s)
{
	s->no_lines = true;
}

void gpa_json_scan_free(struct gpa_json_scan *s)
{
	if (!s) {
		return;
	}
	free(s->buf);
	free(s->tmp);
	free(s);
}

/*
 * Drops the bytes before keep, reads more behind the data. Returns the bytes
 * read (0 at the end of input) or a negative error. Indexes into the buffer
 * move down by keep; the caller recomputes its pointers.
 */
static ssize_t refill(struct gpa_json_scan *s, size_t keep)
{
	ssize_t got;

	if (s->eof) {
		return 0;
	}
	if (keep) {
		if (!s->no_lines) {
			s->lines += count_nl(s->buf, keep);
		}
		s->base += keep;
		memmove(s->buf, s->buf + keep, s->end - keep);
		s->end -= keep;
		s->pos = s->pos >= keep ? s->pos - keep : 0;
	}
	if (s->end == s->cap) {
		/* one token fills the buffer: grow it, up to the token limit */
		size_t ncap = s->cap * 2;
		unsigned char *nb;
		if (s->cap >= s->max_token + 64) {
			return fail_at(s, 0, -GP_ERR_RANGE, "token longer than %zu bytes",
				       s->max_token);
		}
		if (ncap > s->max_token + 64) {
			ncap = s->max_token + 64;
		}
		nb = realloc(s->buf, ncap + PAD);
		if (!nb) {
			return fail_at(s, 0, -GP_ERR_NOMEM, "out of memory");
		}
		s->buf = nb;
		s->cap = ncap;
	}
	got = s->read(s->ctx, s->buf + s->end, s->cap - s->end);
	if (got < 0) {
		s->buf[s->end] = '"';
		return fail_at(s, s->end, (int)got, "read failed");
	}
	if (got == 0) {
		s->eof = true;
	}
	s->end += (size_t)got;
	s->buf[s->end] = '"';
	memset(s->buf + s->end + 1, 0, PAD - 1);
	return got;
}

/* ------------------------------------------------------------ tables */




/* Past the number characters at p; stops at the sentinel at the latest. */
static inline const unsigned char *skip_numch(const unsigned char *p)
{
#ifdef __SSE2__
	const __m128i lo = _mm_set1_epi8('0' - 1), hi = _mm_set1_epi8('9' + 1);
	const __m128i dot = _mm_set1_epi8('.'), minus = _mm_set1_epi8('-');
	const __m128i plus = _mm_set1_epi8('+'), e = _mm_set1_epi8('e'), E = _mm_set1_epi8('E');
	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i m = _mm_and_si128(_mm_cmpgt_epi8(v, lo), _mm_cmplt_epi8(v, hi));
		m = _mm_or_si128(m, _mm_or_si128(_mm_cmpeq_epi8(v, dot), _mm_cmpeq_epi8(v, minus)));
		m = _mm_or_si128(m, _mm_or_si128(_mm_cmpeq_epi8(v, plus),
						  _mm_or_si128(_mm_cmpeq_epi8(v, e),
							       _mm_cmpeq_epi8(v, E))));
		unsigned mask = ~(unsigned)_mm_movemask_epi8(m) & 0xffffu;
		if (mask) {
			return p + __builtin_ctz(mask);
		}
		p += 16;
	}
#else
	while (jr_numch[*p]) {
		p++;
	}
	return p;
#endif
}


/* ------------------------------------------------------------ strings */


static size_t utf8_need(unsigned c)
{
	return c < 0xc2 || c > 0xf4 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

static int tmp_reserve(struct gpa_json_scan *s, size_t n)
{
	if (n <= s->tmpcap) {
		return 0;
	}
	size_t cap = s->tmpcap ? s->tmpcap : 256;
	while (cap < n) {
		cap *= 2;
	}
	char *t = realloc(s->tmp, cap);
	if (!t) {
		return -GP_ERR_NOMEM;
	}
	s->tmp = t;
	s->tmpcap = cap;
	return 0;
}

static void put_utf8(char **o, uint32_t cp)
{
	unsigned char *q = (unsigned char *)*o;

	if (cp < 0x80) {
		*q++ = (unsigned char)cp;
	} else if (cp < 0x800) {
		*q++ = (unsigned char)(0xc0 | cp >> 6);
		*q++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*q++ = (unsigned char)(0xe0 | cp >> 12);
		*q++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		*q++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else {
		*q++ = (unsigned char)(0xf0 | cp >> 18);
		*q++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		*q++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		*q++ = (unsigned char)(0x80 | (cp & 0x3f));
	}
	*o = (char *)q;
}

static uint32_t hex4(const unsigned char *p)
{
	return (uint32_t)(jr_hexval(p[0]) << 12 | jr_hexval(p[1]) << 8 | jr_hexval(p[2]) << 4 |
			  jr_hexval(p[3]));
}

/* Decodes the checked string body [a, b) into s->tmp. */
static int decode(struct gpa_json_scan *s, size_t a, size_t b, struct gpa_json_tok *tok)
{
	const unsigned char *p = s->buf + a, *e = s->buf + b;
	char *o;

	if (tmp_reserve(s, b - a + 1)) {
		return fail_at(s, a, -GP_ERR_NOMEM, "out of memory");
	}
	o = s->tmp;
	while (p < e) {
		if (*p != '\\') {
			*o++ = (char)*p++;
			continue;
		}
		switch (p[1]) {
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			uint32_t cp = hex4(p + 2);
			p += 6;
			if (cp >= 0xd800 && cp < 0xdc00 && e - p >= 6 && p[0] == '\\' &&
			    p[1] == 'u') {
				uint32_t lo = hex4(p + 2);
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				} else {
					cp = 0xfffd;
				}
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd; /* a lone surrogate */
			}
			put_utf8(&o, cp); /* at most as long as the escape(s) it replaces */
			continue;
		}
		default: *o++ = (char)p[1]; break; /* " \ / */
		}
		p += 2;
	}
	tok->s = s->tmp;
	tok->n = (size_t)(o - s->tmp);
	return 0;
}

/*
 * Scans a string whose opening quote is at s->pos. skip: the string is not
 * wanted, so bytes already checked may be dropped from the buffer and any
 * length is allowed. On return s->pos is past the closing quote.
 */

static int scan_string(struct gpa_json_scan *s, bool skip, struct gpa_json_tok *tok)
{
	size_t start = s->pos + 1; /* first byte of the body */
	size_t i = start;
	bool esc = false;

	for (;;) {
		const unsigned char *p = jr_string_stop(s->buf + i);
		i = (size_t)(p - s->buf);
		unsigned c = *p;
		size_t need = c == '\\' ? 2 : c >= 0x80 ? utf8_need(c) : 1;
		if (i + need > s->end) {
			/* the sentinel, or a sequence cut by the buffer's end */
			size_t keep = skip ? i : s->pos;
			ssize_t r;
			if (!skip && i - start > s->max_token) {
				return fail_at(s, s->pos, -GP_ERR_RANGE,
					       "string longer than %zu bytes", s->max_token);
			}
			r = refill(s, keep);
			if (r < 0) {
				return (int)r;
			}
			if (!skip) {
				start -= keep;
			} else {
				start = 0;
			}
			i -= keep;
			if (r == 0 && i + need > s->end) {
				return fail_at(s, s->end, -GP_ERR_TRUNCATED,
					       "the JSON ends inside a string");
			}
			if (skip) {
				s->pos = 0;
			}
			continue;
		}
		if (c == '"') {
			break;
		}
		if (c < 0x20) {
			return fail_at(s, i, -GP_ERR_FORMAT, "control character 0x%02x in a string",
				       c);
		}
		if (c >= 0x80) {
			if (!jr_utf8_len(s->buf + i, s->end - i)) {
				return fail_at(s, i, -GP_ERR_FORMAT, "invalid UTF-8 in a string");
			}
			i += need;
			continue;
		}
		/* a backslash */
		switch (s->buf[i + 1]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			i += 2;
			esc = true;
			continue;
		case 'u':
			while (i + 6 > s->end && !s->eof) {
				size_t keep = skip ? i : s->pos;
				ssize_t r = refill(s, keep);
				if (r < 0) {
					return (int)r;
				}
				start = skip ? 0 : start - keep;
				i -= keep;
				if (skip) {
					s->pos = 0;
				}
			}
			if (i + 6 > s->end) {
				return fail_at(s, s->end, -GP_ERR_TRUNCATED,
					       "the JSON ends inside a string");
			}
			for (int k = 2; k < 6; k++) {
				if (jr_hexval(s->buf[i + k]) < 0) {
					return fail_at(s, i, -GP_ERR_FORMAT,
						       "bad \\u escape in a string");
				}
			}
			i += 6;
			esc = true;
			continue;
		default:
			return fail_at(s, i, -GP_ERR_FORMAT, "bad escape '\\%c' in a string",
				       s->buf[i + 1] >= 0x20 && s->buf[i + 1] < 0x7f
					       ? s->buf[i + 1]
					       : '?');
		}
	}
	/* s->buf[i] is the closing quote */
	s->pos = i + 1;
	if (skip) {
		return 0;
	}
	if (i - start > s->max_token) {
		return fail_at(s, start - 1, -GP_ERR_RANGE, "string longer than %zu bytes",
			       s->max_token);
	}
	if (esc) {
		return decode(s, start, i, tok);
	}
	tok->s = (const char *)s->buf + start;
	tok->n = i - start;
	return 0;
}

/* ------------------------------------------------------------ numbers, literals */


static int scan_number(struct gpa_json_scan *s, struct gpa_json_tok *tok)
{
	/*
	 * Most numbers are short and end inside the buffer: the grammar walk
	 * alone finds their end when what follows cannot be part of a number.
	 */
	const unsigned char *b0 = s->buf + s->pos, *e0 = jr_number_end(b0);
	if (e0 && e0 < s->buf + s->end && !jr_numch[*e0] && (size_t)(e0 - b0) <= s->max_token) {
		tok->s = (const char *)b0;
		tok->n = (size_t)(e0 - b0);
		s->pos = (size_t)(e0 - s->buf);
		return 0;
	}
	for (;;) {
		const unsigned char *b = s->buf + s->pos, *run = skip_numch(b), *e;
		if (run == s->buf + s->end && !s->eof) {
			/* the number may go on in the next read */
			if (s->end - s->pos > s->max_token) {
				return fail_at(s, s->pos, -GP_ERR_RANGE,
					       "number longer than %zu bytes", s->max_token);
			}
			ssize_t r = refill(s, s->pos);
			if (r < 0) {
				return (int)r;
			}
			continue;
		}
		if (run == s->buf + s->end && s->depth) {
			return fail_at(s, s->end, -GP_ERR_TRUNCATED, "the JSON ends early");
		}
		e = jr_number_end(b);
		if (e != run) {
			return fail_at(s, s->pos, -GP_ERR_FORMAT, "malformed number");
		}
		if ((size_t)(e - b) > s->max_token) {
			return fail_at(s, s->pos, -GP_ERR_RANGE, "number longer than %zu bytes",
				       s->max_token);
		}
		tok->s = (const char *)b;
		tok->n = (size_t)(e - b);
		s->pos = (size_t)(e - s->buf);
		return 0;
	}
}

static int scan_literal(struct gpa_json_scan *s, const char *word, size_t n)
{
	while (s->end - s->pos < n && !s->eof) {
		ssize_t r = refill(s, s->pos);
		if (r < 0) {
			return (int)r;
		}
	}
	if (s->end - s->pos < n) {
		if (memcmp(s->buf + s->pos, word, s->end - s->pos) == 0) {
			return fail_at(s, s->end, -GP_ERR_TRUNCATED, "the JSON ends early");
		}
		return fail_at(s, s->pos, -GP_ERR_FORMAT, "invalid literal");
	}
	if (memcmp(s->buf + s->pos, word, n) != 0) {
		return fail_at(s, s->pos, -GP_ERR_FORMAT, "invalid literal");
	}
	s->pos += n;
	return 0;
}

/* ------------------------------------------------------------ tokens */

static const char *expected(enum state st, int depth, const unsigned char *stack)
{
	switch (st) {
	case S_VALUE: return "a value";
	case S_VALUE_OR_END: return "a value or ']'";
	case S_KEY: return "a string key";
	case S_KEY_OR_END: return "a string key or '}'";
	case S_COLON: return "':'";
	case S_AFTER:
		return depth == 0 ? "the end of the JSON"
		       : stack[depth - 1] == '{' ? "',' or '}'" : "',' or ']'";
	case S_DONE: return "the end of the JSON";
	}
	return "?";
}

/* After a key: takes the ':' and the blanks around it when they are in the buffer. */
static inline void eat_colon(struct gpa_json_scan *s)
{
	const unsigned char *p = jr_ws(s->buf + s->pos);
	if (*p == ':') {
		p = jr_ws(p + 1);
		s->st = S_VALUE;
	}
	s->pos = (size_t)(p - s->buf);
}

/* After a value: takes a ',' that follows in the buffer. */
static inline void after_value(struct gpa_json_scan *s)
{
	const unsigned char *p;

	if (!s->depth) {
		s->st = S_DONE;
		return;
	}
	s->st = S_AFTER;
	p = jr_ws(s->buf + s->pos);
	if (*p == ',') {
		p++;
		s->st = s->stack[s->depth - 1] == '{' ? S_KEY : S_VALUE;
	}
	s->pos = (size_t)(p - s->buf);
}

/* ------------------------------------------------------------ fast skip */


/* ------------------------------------------------------------ fast skip */

/*
 * fast_skip - passes over JSON held wholly in the buffer without handing
 * out tokens: the next value (rest false; s->st is S_VALUE), or the rest of
 * the innermost open container (rest true), by jr_skip(). Anything it does
 * not accept returns false with the scanner untouched, and the caller takes
 * the token by token path, which reads more input or reports the error.
 */
static bool fast_skip(struct gpa_json_scan *s, bool rest)
{
	const unsigned char *p;
	enum jr_at at;

	switch (s->st) {
	case S_VALUE: at = JR_VALUE; break;
	case S_VALUE_OR_END: at = JR_VALUE_OR_END; break;
	case S_KEY: at = JR_KEY; break;
	case S_KEY_OR_END: at = JR_KEY_OR_END; break;
	case S_AFTER: at = JR_AFTER; break;
	default: return false;
	}
	if (rest ? !s->depth : s->st != S_VALUE) {
		return false;
	}
	p = jr_skip(s->buf + s->pos, s->buf + s->end, rest,
		    rest && s->stack[s->depth - 1] == '{', at, s->depth, s->max_token);
	if (!p) {
		return false;
	}
	s->pos = (size_t)(p - s->buf);
	if (rest) {
		s->depth--;
	}
	after_value(s);
	return true;
}

/* ------------------------------------------------------------ raw access */

enum gpa_json_raw_state gpa_json_raw(const struct gpa_json_scan *s, const unsigned char **p,
				     const unsigned char **e)
{
	*p = s->buf + s->pos;
	*e = s->buf + s->end;
	if (s->err) {
		return GPA_JSON_RAW_NONE;
	}
	switch (s->st) {
	case S_VALUE: return GPA_JSON_RAW_VALUE;
	case S_VALUE_OR_END: return GPA_JSON_RAW_VALUE_OR_END;
	case S_KEY: return GPA_JSON_RAW_KEY;
	case S_KEY_OR_END: return GPA_JSON_RAW_KEY_OR_END;
	case S_AFTER: return GPA_JSON_RAW_AFTER;
	default: return GPA_JSON_RAW_NONE;
	}
}

size_t gpa_json_max_token(const struct gpa_json_scan *s)
{
	return s->max_token;
}

void gpa_json_raw_resume(struct gpa_json_scan *s, const unsigned char *p, int nopen,
			 enum gpa_json_raw_state st)
{
	for (int i = 0; i < nopen; i++) {
		s->stack[s->depth++] = '{';
	}
	s->pos = (size_t)(p - s->buf);
	switch (st) {
	case GPA_JSON_RAW_VALUE: s->st = S_VALUE; break;
	case GPA_JSON_RAW_VALUE_OR_END: s->st = S_VALUE_OR_END; break;
	case GPA_JSON_RAW_KEY: s->st = S_KEY; break;
	case GPA_JSON_RAW_KEY_OR_END: s->st = S_KEY_OR_END; break;
	case GPA_JSON_RAW_AFTER: s->st = S_AFTER; break;
	case GPA_JSON_RAW_NONE: break;
	}
}

static int next(struct gpa_json_scan *s, struct gpa_json_tok *tok, bool skip)
{
	int r;

	if (s->err) {
		return s->err;
	}
	for (;;) {
		const unsigned char *p = s->buf + s->pos;
		unsigned c;

		p = jr_ws(p);
		s->pos = (size_t)(p - s->buf);
		if (s->pos == s->end) {
			ssize_t got;
			if (s->eof) {
				if (s->st == S_DONE) {
					tok->type = GPA_JSON_EOF;
					return 0;
				}
				if (s->st == S_VALUE && s->depth == 0) {
					return fail_at(s, s->pos, -GP_ERR_FORMAT, "no JSON value");
				}
				return fail_at(s, s->pos, -GP_ERR_TRUNCATED,
					       "the JSON ends early (truncated file?)");
			}
			got = refill(s, s->pos);
			if (got < 0) {
				return (int)got;
			}
			continue;
		}
		c = *p;
		switch (s->st) {
		case S_COLON:
			if (c != ':') {
				goto unexpected;
			}
			s->pos++;
			s->st = S_VALUE;
			continue;
		case S_AFTER:
			if (c == ',') {
				s->pos++;
				s->st = s->stack[s->depth - 1] == '{' ? S_KEY : S_VALUE;
				continue;
			}
			if (c == '}' || c == ']') {
				goto close;
			}
			goto unexpected;
		case S_DONE:
			goto unexpected;
		case S_KEY_OR_END:
			if (c == '}') {
				goto close;
			}
			/* fall through */
		case S_KEY:
			if (c != '"') {
				goto unexpected;
			}
			r = scan_string(s, skip, tok);
			if (r) {
				return r;
			}
			tok->type = GPA_JSON_KEY;
			s->st = S_COLON;
			eat_colon(s);
			return 0;
		case S_VALUE_OR_END:
			if (c == ']') {
				goto close;
			}
			/* fall through */
		case S_VALUE:
			break;
		}
		/* a value is due */
		switch (c) {
		case '"':
			r = scan_string(s, skip, tok);
			if (r) {
				return r;
			}
			tok->type = GPA_JSON_STRING;
			after_value(s);
			return 0;
		case '{':
		case '[':
			if (s->depth >= GPA_JSON_MAX_DEPTH) {
				return fail_at(s, s->pos, -GP_ERR_FORMAT, "nesting deeper than %d",
					       GPA_JSON_MAX_DEPTH);
			}
			s->stack[s->depth++] = (unsigned char)c;
			s->pos++;
			s->st = c == '{' ? S_KEY_OR_END : S_VALUE_OR_END;
			tok->type = c == '{' ? GPA_JSON_BEGIN_OBJECT : GPA_JSON_BEGIN_ARRAY;
			return 0;
		case 't':
			r = scan_literal(s, "true", 4);
			tok->type = GPA_JSON_TRUE;
			break;
		case 'f':
			r = scan_literal(s, "false", 5);
			tok->type = GPA_JSON_FALSE;
			break;
		case 'n':
			r = scan_literal(s, "null", 4);
			tok->type = GPA_JSON_NULL;
			break;
		default:
			if (c == '-' || (c >= '0' && c <= '9')) {
				r = scan_number(s, tok);
				tok->type = GPA_JSON_NUMBER;
				break;
			}
			goto unexpected;
		}
		if (r) {
			return r;
		}
		after_value(s);
		return 0;
close:
		if (s->depth == 0 || s->stack[s->depth - 1] != (c == '}' ? '{' : '[')) {
			goto unexpected;
		}
		s->depth--;
		s->pos++;
		tok->type = c == '}' ? GPA_JSON_END_OBJECT : GPA_JSON_END_ARRAY;
		after_value(s);
		return 0;
unexpected:
		if (c >= 0x20 && c < 0x7f) {
			return fail_at(s, s->pos, -GP_ERR_FORMAT, "unexpected '%c', expected %s", c,
				       expected(s->st, s->depth, s->stack));
		}
		return fail_at(s, s->pos, -GP_ERR_FORMAT, "unexpected byte 0x%02x, expected %s",
			       c, expected(s->st, s->depth, s->stack));
	}
}

int gpa_json_next(struct gpa_json_scan *s, struct gpa_json_tok *tok)
{
	tok->s = NULL;
	tok->n = 0;
	return next(s, tok, false);
}

int gpa_json_skip(struct gpa_json_scan *s)
{
	struct gpa_json_tok t;
	int d0 = s->depth, r;

	if (s->err) {
		return s->err;
	}
	if (s->st != S_VALUE && s->st != S_VALUE_OR_END && s->st != S_COLON) {
		return fail_at(s, s->pos, -GP_ERR_API, "no value to skip here");
	}
	if (fast_skip(s, false)) {
		return 0;
	}
	do {
		r = next(s, &t, true);
		if (r) {
			return r;
		}
		if (t.type == GPA_JSON_END_ARRAY && s->depth < d0) {
			return fail_at(s, s->pos, -GP_ERR_API, "no value to skip here");
		}
	} while (s->depth > d0);
	return 0;
}

int gpa_json_skip_rest(struct gpa_json_scan *s)
{
	struct gpa_json_tok t;
	int d0 = s->depth, r;

	if (s->err) {
		return s->err;
	}
	if (!d0 || s->st == S_COLON) {
		return fail_at(s, s->pos, -GP_ERR_API, "no container to leave here");
	}
	if (fast_skip(s, true)) {
		return 0;
	}
	do {
		if (s->st == S_VALUE) {
			r = gpa_json_skip(s);
			if (r) {
				return r;
			}
			continue;
		}
		r = next(s, &t, true);
		if (r) {
			return r;
		}
	} while (s->depth >= d0);
	return 0;
}

/* ------------------------------------------------------------ input file */

int gpa_json_file_line(const char *path, uint64_t offset, uint64_t *line)
{
	struct gpa_json_file *f = NULL;
	char err[256];
	unsigned char *buf;
	uint64_t done = 0, n = 1;
	int r = gpa_json_file_open(path, &f, err, sizeof(err));

	*line = 0;
	if (r) {
		return r;
	}
	buf = malloc(IN_CAP);
	if (!buf) {
		gpa_json_file_close(f);
		return -GP_ERR_NOMEM;
	}
	while (done < offset) {
		size_t want = offset - done < IN_CAP ? (size_t)(offset - done) : IN_CAP;
		ssize_t got = gpa_json_file_read(f, buf, want);
		if (got <= 0) {
			break; /* the error or the end: lines up to there */
		}
		n += count_nl(buf, (size_t)got);
		done += (uint64_t)got;
	}
	free(buf);
	gpa_json_file_close(f);
	*line = n;
	return 0;
}

/*
 * gzip is inflated in units of GZ_UNIT bytes, each filled from its start by
 * calls asking for the rest of the unit: so the inflater's calls, and with
 * them where an error or the gzip bomb limit stops the reading, do not depend
 * on the sizes the reads ask for, nor on whether a thread inflates. Without
 * one, a read inflates whole units straight into the reader's buffer, and a
 * read of less than a unit takes it from a unit of its own (stage), filled
 * when a read finds it empty. Inflating ahead
 * (gpa_json_file_read_ahead): a thread of its own fills AHEAD_SLOTS slots in
 * turn. A slot is handed over whole, with what the inflater said after its
 * bytes (the end, or an error and its message); the reader then says it too,
 * and goes on saying it. The inflater waits while every slot is full, so the
 * memory is the slots' whatever the file.
 */
#define GZ_UNIT (64u << 10)
#define AHEAD_SLOTS 8
#define AHEAD_SLOT (4 * GZ_UNIT)

struct ahead_slot {
	unsigned char *data;
	size_t len, off;	/* bytes in the slot; bytes the reader took */
	bool last;		/* the inflater stopped after these bytes: err says why */
	int err;		/* 0 at the end of the file, else a negative enum gp_err */
	uint64_t consumed;	/* the file's bytes read when the slot was filled */
	char msg[160];
};

struct ahead {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t filled, freed;
	unsigned head, count;	/* the reader's slot; slots filled and not yet read */
	bool stop;		/* the reader closes the file */
	struct ahead_slot slot[AHEAD_SLOTS];
};

struct gpa_json_file {
	int fd;
	bool gz;
	bool in_eof;
	uint64_t consumed;	/* bytes read from the file */
	uint64_t inflated;	/* bytes handed out (gzip) */
	bool member_done;	/* between gzip members */
	uint64_t members;
	struct inflate_state st;
	unsigned char *in;
	char msg[160];
	struct ahead_slot stage; /* gzip read without a thread: the inflated bytes */
	/* inflating ahead: the fields above are the inflater thread's */
	struct ahead *ahead;
	uint64_t ahead_consumed; /* the reader's view of consumed */
	char ahead_msg[160];	/* the reader's view of msg */
};

int gpa_json_file_open(const char *path, struct gpa_json_file **out, char *errbuf, size_t errlen)
{
	struct gpa_json_file *f;
	unsigned char magic[2];
	ssize_t got;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return -GP_ERR_NOMEM;
	}
	f->fd = gpa_input_open_fd(path); /* a stream's copy (stream.c) */
	if (f->fd < 0) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		free(f);
		return -GP_ERR_IO;
	}
	got = pread(f->fd, magic, 2, 0);
	f->gz = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	if (f->gz) {
		f->in = malloc(IN_CAP);
		f->stage.data = malloc(GZ_UNIT);
		if (f->in) {
			gp_prefault(f->in, IN_CAP);
		}
		if (!f->in || !f->stage.data) {
			free(f->in);
			free(f->stage.data);
			snprintf(errbuf, errlen, "%s: out of memory", path);
			close(f->fd);
			free(f);
			return -GP_ERR_NOMEM;
		}
		isal_inflate_init(&f->st);
		f->st.crc_flag = ISAL_GZIP;
	}
	*out = f;
	return 0;
}

const char *gpa_json_file_error(const struct gpa_json_file *f)
{
	return f->ahead ? f->ahead_msg : f->msg;
}

static void ahead_stop(struct gpa_json_file *f);

void gpa_json_file_close(struct gpa_json_file *f)
{
	if (!f) {
		return;
	}
	ahead_stop(f);
	free(f->stage.data);
	if (f->fd >= 0) {
		close(f->fd);
	}
	free(f->in);
	free(f);
}

static ssize_t raw_read(struct gpa_json_file *f, void *buf, size_t n)
{
	ssize_t got;

	do {
		got = read(f->fd, buf, n);
	} while (got < 0 && errno == EINTR);
	if (got < 0) {
		snprintf(f->msg, sizeof(f->msg), "read: %s", strerror(errno));
		return -GP_ERR_IO;
	}
	f->consumed += (uint64_t)got;
	return got;
}

uint64_t gpa_json_file_consumed(const struct gpa_json_file *f)
{
	return f->ahead ? f->ahead_consumed : f->consumed;
}

static const char *isal_msg(int r)
{
	switch (r) {
	case ISAL_INVALID_BLOCK: return "invalid deflate block";
	case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
	case ISAL_INVALID_LOOKBACK: return "invalid deflate distance";
	case ISAL_INVALID_WRAPPER: return "invalid gzip header";
	case ISAL_UNSUPPORTED_METHOD: return "unsupported compression method";
	case ISAL_INCORRECT_CHECKSUM: return "checksum mismatch";
	default: return "corrupt stream";
	}
}

static ssize_t ahead_read(struct gpa_json_file *f, void *buf, size_t n);
static ssize_t staged_read(struct gpa_json_file *f, void *buf, size_t n);

/* The inflater's read: up to n bytes inflated from the file (gzip). */
static ssize_t gz_read(struct gpa_json_file *f, void *buf, size_t n)
{
	if (n > UINT32_MAX) {
		n = UINT32_MAX;
	}
	for (int stuck = 0;; ) {
		int r;
		uint32_t before;
		if (!f->st.avail_in && !f->in_eof) {
			ssize_t got = raw_read(f, f->in, IN_CAP);
			if (got < 0) {
				return got;
			}
			if (got == 0) {
				f->in_eof = true;
			}
			f->st.next_in = f->in;
			f->st.avail_in = (uint32_t)got;
		}
		if (f->member_done) {
			/* between members: another gzip member, or the end */
			if (!f->st.avail_in) {
				return 0;
			}
			if (f->st.next_in[0] != 0x1f) {
				snprintf(f->msg, sizeof(f->msg),
					 "bad gzip data: garbage after gzip member %llu",
					 (unsigned long long)f->members);
				return -GP_ERR_FORMAT;
			}
			isal_inflate_reset(&f->st);
			f->st.crc_flag = ISAL_GZIP;
			f->member_done = false;
		}
		f->st.next_out = buf;
		f->st.avail_out = (uint32_t)n;
		before = f->st.avail_in;
		r = isal_inflate(&f->st);
		if (r < 0) {
			snprintf(f->msg, sizeof(f->msg), "bad gzip data: %s", isal_msg(r));
			return -GP_ERR_FORMAT;
		}
		size_t out = n - f->st.avail_out;
		f->inflated += out;
		if (f->inflated > GZ_MAX_FLOOR && f->inflated / GZ_MAX_RATIO > f->consumed) {
			snprintf(f->msg, sizeof(f->msg),
				 "gzip data inflates more than %u times (%llu bytes from %llu): "
				 "not read further", GZ_MAX_RATIO, (unsigned long long)f->inflated,
				 (unsigned long long)f->consumed);
			return -GP_ERR_RANGE;
		}
		if (f->st.block_state == ISAL_BLOCK_FINISH) {
			f->member_done = true;
			f->members++;
		} else if (!out && !f->st.avail_in && f->in_eof) {
			snprintf(f->msg, sizeof(f->msg),
				 "bad gzip data: the gzip stream ends early (truncated file?)");
			return -GP_ERR_TRUNCATED;
		}
		if (out) {
			return (ssize_t)out;
		}
		/* guard against a stream that neither ends nor moves */
		if (f->st.avail_in == before && before && ++stuck > 8) {
			snprintf(f->msg, sizeof(f->msg), "bad gzip data: the inflater makes no progress");
			return -GP_ERR_FORMAT;
		}
	}
}

ssize_t gpa_json_file_read(void *ctx, void *buf, size_t n)
{
	struct gpa_json_file *f = ctx;

	if (f->ahead) {
		return ahead_read(f, buf, n);
	}
	return f->gz ? staged_read(f, buf, n) : raw_read(f, buf, n);
}

/*
 * One unit of GZ_UNIT bytes at dst, filled from its start: its length; when
 * the file stops in it (the end, an error), s->last is set, with what the
 * inflater said in s->err and s->msg.
 */
static size_t fill_unit(struct gpa_json_file *f, unsigned char *dst, struct ahead_slot *s)
{
	size_t len = 0;

	while (len < GZ_UNIT) {
		ssize_t got = gz_read(f, dst + len, GZ_UNIT - len);
		if (got <= 0) {
			s->last = true;
			s->err = (int)got;
			memcpy(s->msg, f->msg, sizeof(s->msg));
			break;
		}
		len += (size_t)got;
	}
	return len;
}

/* Fills slot s as far as the file goes; the inflater thread's part. */
static void ahead_fill(struct gpa_json_file *f, struct ahead_slot *s)
{
	s->len = 0;
	s->last = false;
	while (s->len < AHEAD_SLOT && !s->last) {
		s->len += fill_unit(f, s->data + s->len, s);
	}
	s->off = 0;
	s->consumed = f->consumed;
}

static void *ahead_main(void *arg)
{
	struct gpa_json_file *f = arg;
	struct ahead *a = f->ahead;
	unsigned tail = 0;

	for (;;) {
		pthread_mutex_lock(&a->mu);
		while (a->count == AHEAD_SLOTS && !a->stop) {
			pthread_cond_wait(&a->freed, &a->mu);
		}
		bool stop = a->stop;
		pthread_mutex_unlock(&a->mu);
		if (stop) {
			break;
		}
		struct ahead_slot *s = &a->slot[tail];
		ahead_fill(f, s); /* a slot the reader does not hold */
		pthread_mutex_lock(&a->mu);
		a->count++;
		pthread_cond_signal(&a->filled);
		pthread_mutex_unlock(&a->mu);
		if (s->last) {
			break;
		}
		tail = (tail + 1) % AHEAD_SLOTS;
	}
	return NULL;
}

/* Up to n bytes of slot s into buf; at its end, what the inflater said after it. */
static ssize_t slot_take(struct gpa_json_file *f, struct ahead_slot *s, void *buf, size_t n)
{
	if (s->off == s->len) {
		/* only a last slot is read when empty: the end, or the error */
		memcpy(f->ahead ? f->ahead_msg : f->msg, s->msg, sizeof(f->msg));
		return s->err;
	}
	size_t take = n < s->len - s->off ? n : s->len - s->off;
	memcpy(buf, s->data + s->off, take);
	s->off += take;
	return (ssize_t)take;
}

/* The read without a thread: out of the one slot, filled again when it is empty. */
static ssize_t staged_read(struct gpa_json_file *f, void *buf, size_t n)
{
	struct ahead_slot *s = &f->stage;

	if (s->off == s->len && !s->last) {
		size_t got = 0;
		/* whole units straight into the reader's buffer; the rest through the slot */
		while (n - got >= GZ_UNIT && !s->last) {
			got += fill_unit(f, (unsigned char *)buf + got, s);
		}
		s->len = s->off = 0;
		if (got) {
			return (ssize_t)got; /* and what stopped the file, if it did, at the next read */
		}
		if (!s->last) {
			s->len = fill_unit(f, s->data, s);
		}
	}
	return slot_take(f, s, buf, n);
}

/* The reader's read: out of the slot at the head, the next one when it is empty. */
static ssize_t ahead_read(struct gpa_json_file *f, void *buf, size_t n)
{
	struct ahead *a = f->ahead;
	struct ahead_slot *s = &a->slot[a->head];

	pthread_mutex_lock(&a->mu);
	while (!a->count) {
		pthread_cond_wait(&a->filled, &a->mu);
	}
	pthread_mutex_unlock(&a->mu);
	f->ahead_consumed = s->consumed;
	ssize_t take = slot_take(f, s, buf, n);
	if (s->off == s->len && !s->last) {
		pthread_mutex_lock(&a->mu);
		a->head = (a->head + 1) % AHEAD_SLOTS;
		a->count--;
		pthread_cond_signal(&a->freed);
		pthread_mutex_unlock(&a->mu);
	}
	return take;
}

static void ahead_free(struct ahead *a)
{
	for (unsigned i = 0; i < AHEAD_SLOTS; i++) {
		free(a->slot[i].data);
	}
	free(a);
}

int gpa_json_file_read_ahead(struct gpa_json_file *f)
{
	struct ahead *a;

	if (!f->gz || f->ahead || f->inflated || f->consumed) {
		return 0; /* a plain file is read as it is; a file already read stays as it is */
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		return -GP_ERR_NOMEM;
	}
	for (unsigned i = 0; i < AHEAD_SLOTS; i++) {
		if (!(a->slot[i].data = malloc(AHEAD_SLOT))) {
			ahead_free(a);
			return -GP_ERR_NOMEM;
		}
	}
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->filled, NULL);
	pthread_cond_init(&a->freed, NULL);
	f->ahead = a;
	if (pthread_create(&a->th, NULL, ahead_main, f)) {
		f->ahead = NULL;
		pthread_mutex_destroy(&a->mu);
		pthread_cond_destroy(&a->filled);
		pthread_cond_destroy(&a->freed);
		ahead_free(a);
		return -GP_ERR_NOMEM;
	}
	return 0;
}

static void ahead_stop(struct gpa_json_file *f)
{
	struct ahead *a = f->ahead;

	if (!a) {
		return;
	}
	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_signal(&a->freed);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->th, NULL);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->filled);
	pthread_cond_destroy(&a->freed);
	ahead_free(a);
	f->ahead = NULL;
}
