// SPDX-License-Identifier: MIT
/*
 * json-stop.c - the long part of a JSON string body, past the bytes
 * jr_string_stop() (json-raw.h) reads inline: 32 bytes a step with AVX2
 * where the CPU has it, else 16 with SSE2, else a byte at a time. The
 * choice is made once, at the first long string, with
 * __builtin_cpu_supports; every variant stops at the same byte.
 */
#include "base/compat.h"
#include "import/json-raw.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_VARIANT 1
#endif

const unsigned char *gpa_json_stop_bytes(const unsigned char *p)
{
	while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') {
		p++;
	}
	return p;
}

const unsigned char *gpa_json_stop_sse2(const unsigned char *p)
{
#ifdef JR_HAVE_SSE2
	for (;;) {
		unsigned mask = jr_stop_mask16(p);
		if (mask) {
			return p + __builtin_ctz(mask);
		}
		p += 16;
	}
#else
	return gpa_json_stop_bytes(p);
#endif
}

#ifdef HAVE_AVX2_VARIANT
/* The scanner's buffer has 32 bytes of padding past its sentinel: a load at or before it fits. */
__attribute__((target("avx2"))) static const unsigned char *stop_avx2(const unsigned char *p)
{
	const __m256i q = _mm256_set1_epi8('"'), bs = _mm256_set1_epi8('\\');
	const __m256i sp = _mm256_set1_epi8(0x20);
	for (;;) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
		__m256i m = _mm256_or_si256(
			_mm256_or_si256(_mm256_cmpeq_epi8(v, q), _mm256_cmpeq_epi8(v, bs)),
			_mm256_cmpgt_epi8(sp, v));
		unsigned mask = (unsigned)_mm256_movemask_epi8(m);
		if (mask) {
			return p + __builtin_ctz(mask);
		}
		p += 32;
	}
}
#endif

bool gpa_json_stop_has_avx2(void)
{
#ifdef HAVE_AVX2_VARIANT
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
#else
	return false;
#endif
}

const unsigned char *gpa_json_stop_avx2(const unsigned char *p)
{
#ifdef HAVE_AVX2_VARIANT
	if (gpa_json_stop_has_avx2()) {
		return stop_avx2(p);
	}
#endif
	return gpa_json_stop_sse2(p);
}

/* The first call chooses, and every later one goes straight to the choice. */
static const unsigned char *stop_choose(const unsigned char *p)
{
	gpa_json_stop_fn fn = gpa_json_stop_sse2;

#ifdef HAVE_AVX2_VARIANT
	if (gpa_json_stop_has_avx2()) {
		fn = stop_avx2;
	}
#endif
	__atomic_store_n(&gpa_json_stop_long, fn, __ATOMIC_RELAXED);
	return fn(p);
}

gpa_json_stop_fn gpa_json_stop_long = stop_choose;
