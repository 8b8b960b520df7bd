/* SPDX-License-Identifier: MIT */
/*
 * json-raw.h - the JSON scanner's byte readers, inline, for its own hot
 * loops and for a caller's fast path over input already in its buffer (see
 * gpa_json_raw() in json-scan.h). Private to import/.
 *
 * Every reader works on [p, e) where *e is the scanner's sentinel, a '"'
 * followed by padding: loops stop there at the latest, and a result at or
 * past e means "not whole in the buffer". Each accepts only what the token
 * path (gpa_json_next) accepts and otherwise returns NULL, leaving the
 * token path to read more input or to report the error.
 */
#ifndef GPUPROF_IMPORT_JSON_RAW_H
#define GPUPROF_IMPORT_JSON_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#define JR_HAVE_SSE2 1 /* as compiled, whatever a later intrinsics header defines */
#endif

#include "import/json-scan.h"

/* 1 for bytes that may appear in a number */
static const unsigned char jr_numch[256] = {
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
	['8'] = 1, ['9'] = 1, ['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1,
};


/* Past the whitespace at p; stops at the sentinel at the latest. */
static inline bool jr_is_ws(unsigned c)
{
	return c <= ' ' && (c == ' ' || c == '\n' || c == '\t' || c == '\r');
}

static inline const unsigned char *jr_ws(const unsigned char *p)
{
	if (!jr_is_ws(*p)) {
		return p;
	}
	p++;
	if (!jr_is_ws(*p)) {
		return p;
	}
#ifdef __SSE2__
	/* indentation: long runs of blanks */
	const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n');
	const __m128i tab = _mm_set1_epi8('\t'), cr = _mm_set1_epi8('\r');
	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
					 _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, cr)));
		unsigned mask = ~(unsigned)_mm_movemask_epi8(m) & 0xffffu;
		if (mask) {
			return p + __builtin_ctz(mask);
		}
		p += 16;
	}
#else
	while (jr_is_ws(*p)) {
		p++;
	}
	return p;
#endif
}

static inline int jr_hexval(unsigned c)
{
	if (c - '0' < 10) {
		return (int)(c - '0');
	}
	c |= 0x20;
	if (c - 'a' < 6) {
		return (int)(c - 'a' + 10);
	}
	return -1;
}

/* Length of a valid UTF-8 sequence at p (n bytes available), 0 if invalid. */
static inline size_t jr_utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];

	if (c < 0xc2 || c > 0xf4) {
		return 0;
	}
	if (c < 0xe0) {
		return n >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
	}
	if (c < 0xf0) {
		if (n < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80) {
			return 0;
		}
		if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)) {
			return 0; /* overlong, or an encoded surrogate */
		}
		return 3;
	}
	if (n < 4 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80) {
		return 0;
	}
	if ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)) {
		return 0; /* overlong, or past U+10FFFF */
	}
	return 4;
}

/*
 * The long part of a string body (json-stop.c): as jr_string_stop from p on,
 * 32 bytes a step with AVX2 where the CPU has it (chosen at the first call),
 * else SSE2, else a byte at a time. The variants are there for the tests;
 * gpa_json_stop_avx2 falls back to SSE2 on a CPU without AVX2.
 */
typedef const unsigned char *(*gpa_json_stop_fn)(const unsigned char *p);
extern gpa_json_stop_fn gpa_json_stop_long;
const unsigned char *gpa_json_stop_bytes(const unsigned char *p);
const unsigned char *gpa_json_stop_sse2(const unsigned char *p);
const unsigned char *gpa_json_stop_avx2(const unsigned char *p);
bool gpa_json_stop_has_avx2(void);

#ifdef JR_HAVE_SSE2
/* Bit i set when p[i] (of 16) ends a string body's plain bytes. */
static inline unsigned jr_stop_mask16(const unsigned char *p)
{
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
	const __m128i sp = _mm_set1_epi8(0x20);
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	/* signed compare: bytes >= 0x80 count as below ' ' too */
	__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
				 _mm_cmplt_epi8(v, sp));
	return (unsigned)_mm_movemask_epi8(m);
}
#endif

/*
 * Past the plain bytes of a string body at p: stops at '"', '\\', a control
 * character or a byte >= 0x80 (UTF-8, checked by the caller), at the
 * buffer's sentinel at the latest. Most bodies (keys, names) end within
 * the two 16-byte steps read here; a longer one goes on in
 * gpa_json_stop_long.
 */
static inline const unsigned char *jr_string_stop(const unsigned char *p)
{
#ifdef JR_HAVE_SSE2
	for (int i = 0; i < 2; i++, p += 16) {
		unsigned mask = jr_stop_mask16(p);
		if (mask) {
			return p + __builtin_ctz(mask);
		}
	}
	return __atomic_load_n(&gpa_json_stop_long, __ATOMIC_RELAXED)(p);
#else
	return gpa_json_stop_bytes(p);
#endif
}

/*
 * Number text at p, checked against the grammar in the same pass; the
 * sentinel stops every loop. Returns the end, or NULL for a malformed number.
 */
static inline const unsigned char *jr_number_end(const unsigned char *p)
{
	if (*p == '-') {
		p++;
	}
	if (*p == '0') {
		p++;
	} else if ((unsigned)(*p - '1') < 9u) {
		p++;
		while ((unsigned)(*p - '0') < 10u) {
			p++;
		}
	} else {
		return NULL;
	}
	if (*p == '.') {
		p++;
		if ((unsigned)(*p - '0') >= 10u) {
			return NULL;
		}
		while ((unsigned)(*p - '0') < 10u) {
			p++;
		}
	}
	if ((*p | 0x20) == 'e') {
		p++;
		if (*p == '+' || *p == '-') {
			p++;
		}
		if ((unsigned)(*p - '0') >= 10u) {
			return NULL;
		}
		while ((unsigned)(*p - '0') < 10u) {
			p++;
		}
	}
	return p;
}

/*
 * The string body from p (past the opening quote) to past its closing
 * quote, checked as scan_string() checks it, or NULL when it is not wholly
 * in the buffer before e or is not valid (the caller then takes the slow
 * path, which reads more or reports the error).
 */
static inline const unsigned char *jr_string_any(const unsigned char *p, const unsigned char *e)
{
	for (;;) {
		p = jr_string_stop(p);
		if (p >= e) {
			return NULL; /* the sentinel: the string goes on past the buffer */
		}
		unsigned c = *p;
		if (c == '"') {
			return p + 1;
		}
		if (c >= 0x80) {
			size_t n = jr_utf8_len(p, (size_t)(e - p));
			if (!n) {
				return NULL;
			}
			p += n;
			continue;
		}
		if (c != '\\' || e - p < 6) {
			return NULL; /* a control character, or an escape near the end */
		}
		switch (p[1]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			p += 2;
			continue;
		case 'u':
			if ((jr_hexval(p[2]) | jr_hexval(p[3]) | jr_hexval(p[4]) | jr_hexval(p[5])) < 0) {
				return NULL;
			}
			p += 6;
			continue;
		default:
			return NULL;
		}
	}
}

/* What is due at the start of jr_skip()'s rest of a container. */
enum jr_at { JR_VALUE, JR_VALUE_OR_END, JR_KEY, JR_KEY_OR_END, JR_AFTER };

/*
 * jr_skip - past JSON held wholly in [p, e) ('*e' the sentinel), checked as
 * the token path checks it, without decoding: the value at p (rest false,
 * at JR_VALUE), or the rest of the container open at p (rest true; obj: it
 * is an object; at: what is due at p), its closing bracket included. depth:
 * the containers open around p, that one included. NULL for anything it
 * does not accept (not whole in the buffer, invalid, nesting past
 * GPA_JSON_MAX_DEPTH or 64 levels in here): the token path then reads more
 * input or reports the error.
 */
static inline const unsigned char *jr_skip(const unsigned char *p, const unsigned char *e,
					   bool rest, bool obj0, enum jr_at at, int depth,
					   size_t max_token)
{
	const unsigned char *r;
	uint64_t obj = 0;	/* bit k: level k is an object */
	int d = 0;		/* levels open in here (with rest, level 0 is the one to leave) */
	int room = GPA_JSON_MAX_DEPTH - depth;
	unsigned c;

	if (rest) {
		obj = obj0;
		d = 1;
		room++;
		switch (at) {
		case JR_AFTER: goto after;
		case JR_KEY: goto key;
		case JR_KEY_OR_END:
			p = jr_ws(p);
			if (*p == '}' && p < e) {
				p++;
				d--;
				goto after;
			}
			goto key;
		case JR_VALUE: goto value;
		case JR_VALUE_OR_END:
			p = jr_ws(p);
			if (*p == ']' && p < e) {
				p++;
				d--;
				goto after;
			}
			goto value;
		}
		return NULL;
	}
	if (at != JR_VALUE) {
		return NULL;
	}
value:
	p = jr_ws(p);
	if (p >= e) {
		return NULL;
	}
	c = *p;
	switch (c) {
	case '"':
		p = jr_string_any(p + 1, e);
		if (!p) {
			return NULL;
		}
		goto after;
	case '{':
	case '[':
		if (d >= 64 || d >= room) {
			return NULL;
		}
		obj = c == '{' ? obj | (uint64_t)1 << d : obj & ~((uint64_t)1 << d);
		d++;
		p = jr_ws(p + 1);
		if (*p == (c == '{' ? '}' : ']') && p < e) {
			p++;
			d--;
			goto after;
		}
		if (c == '{') {
			goto key;
		}
		goto value;
	case 't':
		if (e - p < 4 || memcmp(p, "true", 4) != 0) {
			return NULL;
		}
		p += 4;
		goto after;
	case 'f':
		if (e - p < 5 || memcmp(p, "false", 5) != 0) {
			return NULL;
		}
		p += 5;
		goto after;
	case 'n':
		if (e - p < 4 || memcmp(p, "null", 4) != 0) {
			return NULL;
		}
		p += 4;
		goto after;
	default:
		r = jr_number_end(p);
		if (!r || r >= e || jr_numch[*r] || (size_t)(r - p) > max_token) {
			return NULL; /* may go on past the buffer, or malformed */
		}
		p = r;
		goto after;
	}
after:
	if (d == 0) {
		goto done;
	}
	p = jr_ws(p);
	if (p >= e) {
		return NULL;
	}
	c = *p++;
	if (c == ',') {
		if (obj >> (d - 1) & 1) {
			goto key;
		}
		goto value;
	}
	if (c != ((obj >> (d - 1) & 1) ? '}' : ']')) {
		return NULL;
	}
	d--;
	goto after;
key:
	p = jr_ws(p);
	if (*p != '"' || p >= e) {
		return NULL;
	}
	p = jr_string_any(p + 1, e);
	if (!p) {
		return NULL;
	}
	p = jr_ws(p);
	if (*p != ':' || p >= e) {
		return NULL;
	}
	p++;
	goto value;
done:
	return p;
}

/*
 * jr_string - a string at p (its opening quote) wholly in [p, e), without
 * escapes, checked as the token path checks it and no longer than
 * max_token: past its closing quote, or NULL.
 */
static inline const unsigned char *jr_string(const unsigned char *p, const unsigned char *e,
					     size_t max_token)
{
	const unsigned char *b = p + 1;

	p = b;
	for (;;) {
		p = jr_string_stop(p);
		if (*p == '"') {
			break;
		}
		if (*p < 0x80 || p >= e) {
			return NULL; /* an escape, a control character, or the buffer's end */
		}
		size_t n = jr_utf8_len(p, (size_t)(e - p));
		if (!n) {
			return NULL;
		}
		p += n;
	}
	if (p >= e || (size_t)(p - b) > max_token) {
		return NULL;
	}
	return p + 1;
}

/*
 * jr_key - an object key at p (blanks before it allowed) and its ':' in
 * [p, e), checked as the token path checks them, without escapes and no
 * longer than max_token: sets key/n (the key's bytes) and returns where its
 * value starts (blanks skipped); NULL otherwise.
 */
static inline const unsigned char *jr_key(const unsigned char *p, const unsigned char *e,
					  size_t max_token, const unsigned char **key, size_t *n)
{
	const unsigned char *q;

	p = jr_ws(p);
	if (*p != '"' || p >= e) {
		return NULL;
	}
	q = jr_string(p, e, max_token);
	if (!q) {
		return NULL;
	}
	*key = p + 1;
	*n = (size_t)(q - p - 2);
	q = jr_ws(q);
	if (*q != ':' || q >= e) {
		return NULL;
	}
	q = jr_ws(q + 1);
	return q < e ? q : NULL;
}

/*
 * jr_number - the number at p in [p, e), checked, ended by a byte in the
 * buffer that cannot go on a number, no longer than max_token: its end, or
 * NULL (the token path then reads more or reports it).
 */
static inline const unsigned char *jr_number(const unsigned char *p, const unsigned char *e,
					     size_t max_token)
{
	const unsigned char *q = jr_number_end(p);

	if (!q || q >= e || jr_numch[*q] || (size_t)(q - p) > max_token) {
		return NULL;
	}
	return q;
}

#endif
