/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "base/base.h"

#include <errno.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

int gp_vec_reserve_(void **v, size_t *cap, size_t want, size_t elem)
{
	size_t nc, bytes;
	void *nv;

	if (want <= *cap) {
		return 0;
	}
	nc = *cap ? *cap : 8;
	while (nc < want) {
		if (gp_mul_overflow_size(nc, 2, &nc)) {
			return -GP_ERR_NOMEM;
		}
	}
	if (gp_mul_overflow_size(nc, elem, &bytes)) {
		return -GP_ERR_NOMEM;
	}
	nv = realloc(*v, bytes);
	if (!nv) {
		return -GP_ERR_NOMEM;
	}
	gp_huge_pages(nv, bytes);
	*v = nv;
	*cap = nc;
	return 0;
}

/* --- CRC-32, slicing by 8 over a table built once (thread-safe: idempotent). */

static uint32_t crc_table[8][256];
static volatile int crc_ready;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++) {
			c = (c & 1) ? 0xedb88320U ^ (c >> 1) : c >> 1;
		}
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++) {
		for (int t = 1; t < 8; t++) {
			crc_table[t][i] =
				(crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
		}
	}
	__atomic_store_n(&crc_ready, 1, __ATOMIC_RELEASE);
}

uint32_t gp_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (!__atomic_load_n(&crc_ready, __ATOMIC_ACQUIRE)) {
		crc_init();
	}
	crc = ~crc;
	while (len >= 8) {
		uint32_t a = gp_get_le32(p) ^ crc;
		uint32_t b = gp_get_le32(p + 4);
		crc = crc_table[7][a & 0xff] ^ crc_table[6][(a >> 8) & 0xff] ^
		      crc_table[5][(a >> 16) & 0xff] ^ crc_table[4][a >> 24] ^
		      crc_table[3][b & 0xff] ^ crc_table[2][(b >> 8) & 0xff] ^
		      crc_table[1][(b >> 16) & 0xff] ^ crc_table[0][b >> 24];
		p += 8;
		len -= 8;
	}
	while (len--) {
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	}
	return ~crc;
}

/* --- clocks */

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts)) {
		return 0;
	}
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t gp_clock_realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

uint64_t gp_clock_monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t gp_clock_monotonic_raw_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC_RAW);
}

/* --- hashing */

uint64_t gp_hash_bytes(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len >= 8) {
		h = (h ^ gp_get_le64(p)) * 0x100000001b3ULL;
		h ^= h >> 29;
		p += 8;
		len -= 8;
	}
	while (len--) {
		h = (h ^ *p++) * 0x100000001b3ULL;
	}
	return gp_hash_u64(h);
}

/* --- RNG */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void gp_rng_seed(struct gp_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		r->s[i] = splitmix64(&seed);
	}
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t gp_rng_next(struct gp_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t gp_rng_below(struct gp_rng *r, uint64_t n)
{
	if (!n) {
		return 0;
	}
	return (uint64_t)(((unsigned __int128)gp_rng_next(r) * n) >> 64);
}

double gp_rng_double(struct gp_rng *r)
{
	return (double)(gp_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

void gp_huge_pages(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(huge - 1);

	if (p && n >= 2 * huge && e > a) {
		int saved = errno;
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
		errno = saved;
	}
#else
	(void)p;
	(void)n;
#endif
}

void *gp_malloc_big(size_t n)
{
	void *p = malloc(n);

	gp_huge_pages(p, n);
	return p;
}

/*
 * Not under AddressSanitizer: its allocator replaces glibc's, whose arenas
 * malloc_trim would then walk unset (a crash when two models load at once).
 */
void gp_heap_trim(void)
{
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
	int saved = errno;

	(void)malloc_trim(0);
	errno = saved;
#endif
}

void gp_prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	int saved = errno;
	long page = sysconf(_SC_PAGESIZE); /* once per call: cheap, and no shared state */

	if (page > 0 && p && n) {
		/*
		 * Whole pages around the range: a range that ends inside a page is
		 * followed by one that starts there, and rounding inwards left that
		 * page (one in eight of the writer's 32 KiB steps) to fault anyway.
		 */
		uintptr_t a = (uintptr_t)p & ~((uintptr_t)page - 1);
		uintptr_t e = ((uintptr_t)p + n + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
	}
	errno = saved;
#else
	(void)p;
	(void)n;
#endif
}

const char *gp_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}
