/* SPDX-License-Identifier: MIT */
/*
 * base.h - the public header of base/: errors, the logging sink, string
 * buffers, growable arrays, checked arithmetic, CRC32, clocks and hashing.
 *
 * base/ knows nothing about GPUs and depends on nothing but libc. Functions
 * marked "Signal-safe." may be called from the injected library's hot paths
 * and signal handlers; nothing else here may.
 */
#ifndef GP_BASE_H
#define GP_BASE_H

#include "base/compat.h"

#include <stdio.h>

/* ---------------------------------------------------------------- errors */

/*
 * Library functions return 0 on success or one of these, negated. Detail
 * goes into the handle's last-error string, never to stdout or stderr.
 */
enum gp_err {
	GP_OK = 0,
	GP_ERR_NOMEM = 1,     /* allocation failed or a limit on memory was hit */
	GP_ERR_IO = 2,        /* read, write, open or close failed (errno kept in detail) */
	GP_ERR_FORMAT = 3,    /* input bytes are not what the format allows */
	GP_ERR_VERSION = 4,   /* input written by a newer, incompatible version */
	GP_ERR_TRUNCATED = 5, /* input ends before a complete unit */
	GP_ERR_API = 6,       /* the caller misused the API; state unchanged */
	GP_ERR_CUPTI = 7,     /* CUPTI refused or failed */
	GP_ERR_CHECKSUM = 8,  /* stored CRC does not match the bytes */
	GP_ERR_NOTFOUND = 9,  /* a looked-up name or id does not exist */
	GP_ERR_RANGE = 10,    /* a value is outside what the format or API allows */
	GP_ERR__COUNT
};

/* Static, lower-case description of an error code (positive or negative). */
const char *gp_err_str(int err);

/* Abort with a message: for broken invariants in the CLI and analysis only. */
#define GP_BUG(...) gp_bug(__FILE__, __LINE__, __VA_ARGS__)
GP_NORETURN GP_PRINTF(3, 4) void gp_bug(const char *file, int line, const char *fmt, ...);

/* ------------------------------------------------------------------- log */

enum gp_log_level {
	GP_LOG_ERROR = 0,
	GP_LOG_WARN = 1,
	GP_LOG_INFO = 2,
	GP_LOG_DEBUG = 3,
	GP_LOG_TRACE = 4,
};

/*
 * The logging sink. Libraries call gp_log(); the host (the CLI, a test)
 * installs where the text goes. Without a sink nothing is printed.
 */
typedef void (*gp_log_sink_fn)(enum gp_log_level level, const char *tag, const char *msg,
			       void *data);

void gp_log_set_sink(gp_log_sink_fn fn, void *data, enum gp_log_level max_level);
bool gp_log_enabled(enum gp_log_level level);
GP_PRINTF(3, 4) void gp_log(enum gp_log_level level, const char *tag, const char *fmt, ...);

#ifndef GP_LOG_TAG
#define GP_LOG_TAG "gpuprof"
#endif
#define gp_error(...) gp_log(GP_LOG_ERROR, GP_LOG_TAG, __VA_ARGS__)
#define gp_warn(...) gp_log(GP_LOG_WARN, GP_LOG_TAG, __VA_ARGS__)
#define gp_info(...) gp_log(GP_LOG_INFO, GP_LOG_TAG, __VA_ARGS__)
#define gp_debug(...) gp_log(GP_LOG_DEBUG, GP_LOG_TAG, __VA_ARGS__)
#define gp_warn_once(...)                                                                          \
	do {                                                                                       \
		static bool gp_once_;                                                              \
		if (!gp_once_) {                                                                   \
			gp_once_ = true;                                                           \
			gp_warn(__VA_ARGS__);                                                      \
		}                                                                                  \
	} while (0)

/* The sink the CLI uses: "gpuprof: error: MSG" on stderr. */
void gp_log_stderr_sink(enum gp_log_level level, const char *tag, const char *msg, void *data);

/* -------------------------------------------------------------- strbuf */

/*
 * A growable, always NUL-terminated string. Invariant: buf[len] == '\0';
 * buf is never NULL after gp_strbuf_init (it points at a shared empty string
 * until the first append). Caller releases with gp_strbuf_release.
 * Allocation failure sets 'failed' and further appends do nothing, so a long
 * run of appends needs one check at the end.
 */
struct gp_strbuf {
	char *buf;
	size_t len;
	size_t alloc;
	bool failed;
};

#define GP_STRBUF_INIT {.buf = gp_strbuf_empty_, .len = 0, .alloc = 0, .failed = false}
extern char gp_strbuf_empty_[];

void gp_strbuf_init(struct gp_strbuf *sb);
void gp_strbuf_release(struct gp_strbuf *sb);
void gp_strbuf_reset(struct gp_strbuf *sb);
int gp_strbuf_grow(struct gp_strbuf *sb, size_t extra);
void gp_strbuf_add(struct gp_strbuf *sb, const void *data, size_t len);
void gp_strbuf_adds(struct gp_strbuf *sb, const char *s);
void gp_strbuf_addch(struct gp_strbuf *sb, char c);
GP_PRINTF(2, 3) void gp_strbuf_addf(struct gp_strbuf *sb, const char *fmt, ...);
void gp_strbuf_vaddf(struct gp_strbuf *sb, const char *fmt, va_list ap);
/* Appends s as a JSON string literal, quotes included. */
void gp_strbuf_add_json_str(struct gp_strbuf *sb, const char *s, size_t len);
/* Takes ownership of the buffer (malloc'ed, caller frees); sb is reset. */
char *gp_strbuf_detach(struct gp_strbuf *sb, size_t *len);

/* ------------------------------------------------------- growable arrays */

/*
 * GP_VEC(type) declares an anonymous struct {type *v; size_t n, cap;}.
 * gp_vec_push returns 0 or -GP_ERR_NOMEM; the array keeps its old contents on
 * failure. Release with gp_vec_free.
 */
#define GP_VEC(type)                                                                               \
	struct {                                                                                   \
		type *v;                                                                           \
		size_t n, cap;                                                                     \
	}
int gp_vec_reserve_(void **v, size_t *cap, size_t want, size_t elem);
#define gp_vec_reserve(vec, want)                                                                  \
	gp_vec_reserve_((void **)&(vec)->v, &(vec)->cap, (want), sizeof(*(vec)->v))
#define gp_vec_push(vec, val)                                                                      \
	(gp_vec_reserve((vec), (vec)->n + 1) ? -GP_ERR_NOMEM : ((vec)->v[(vec)->n++] = (val), 0))
#define gp_vec_free(vec)                                                                           \
	do {                                                                                       \
		free((vec)->v);                                                                    \
		(vec)->v = NULL;                                                                   \
		(vec)->n = (vec)->cap = 0;                                                         \
	} while (0)

/* qsort that accepts an empty (possibly NULL) array, which qsort itself may not get. */
static inline void gp_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1) {
		qsort(base, n, size, cmp);
	}
}

/* ------------------------------------------------------ checked arithmetic */

/* Each returns true when the result overflowed; *out is then unspecified. */
static inline bool gp_add_overflow_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_add_overflow(a, b, out);
}
static inline bool gp_mul_overflow_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_mul_overflow(a, b, out);
}
static inline bool gp_add_overflow_size(size_t a, size_t b, size_t *out)
{
	return __builtin_add_overflow(a, b, out);
}
static inline bool gp_mul_overflow_size(size_t a, size_t b, size_t *out)
{
	return __builtin_mul_overflow(a, b, out);
}

/* ------------------------------------------------------------------ CRC */

/* CRC-32 (IEEE 802.3, as zlib and gzip). Start with crc = 0. Signal-safe. */
uint32_t gp_crc32(uint32_t crc, const void *data, size_t len);

/* --------------------------------------------------------------- clocks */

/* Signal-safe. Nanoseconds of the named clock; 0 if the clock fails. */
uint64_t gp_clock_realtime_ns(void);
uint64_t gp_clock_monotonic_ns(void);
uint64_t gp_clock_monotonic_raw_ns(void);

/*
 * Maps in the pages of [p, p + n) (whole pages around it) with one call
 * instead of one page fault per page as they are first written: where faults
 * are dear (about 12 us each on the virtual machine of docs/performance.md,
 * against under 1 us per page this way) they took a tenth of a Kineto
 * import. p must lie in a heap or mmap'd allocation (its pages, whole,
 * belong to the same mapping); populating changes no byte. Advice only:
 * any failure (an older kernel, pages already there) changes nothing, and
 * errno is kept.
 */
void gp_prefault(void *p, size_t n);

/* -------------------------------------------------------------- hashing */

/* 64-bit FNV-1a style hash with a final mix; not for adversaries. Signal-safe. */
uint64_t gp_hash_bytes(const void *data, size_t len);
static inline uint64_t gp_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* ---------------------------------------------------- little-endian bytes */

static inline void gp_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}
static inline void gp_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}
static inline void gp_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}
static inline uint16_t gp_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t gp_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}
static inline uint64_t gp_get_le64(const uint8_t *p)
{
	return (uint64_t)gp_get_le32(p) | ((uint64_t)gp_get_le32(p + 4) << 32);
}

/* ------------------------------------------------------ deterministic RNG */

/* splitmix64 / xoshiro256** for seeded generators and tests. */
struct gp_rng {
	uint64_t s[4];
};
void gp_rng_seed(struct gp_rng *r, uint64_t seed);
uint64_t gp_rng_next(struct gp_rng *r);
/* Uniform in [0, n); n == 0 gives 0. */
uint64_t gp_rng_below(struct gp_rng *r, uint64_t n);
double gp_rng_double(struct gp_rng *r);

/* ------------------------------------------------------ key=value lines */

/*
 * The next key=value pair of a user file's line at *s (device files,
 * roofline rules): blanks separate pairs, a value may be "quoted", '#'
 * starts a comment. Cuts the line in place and advances *s. Returns 1 with
 * *key and *val, 0 at the end of the line, -1 when a word has no '=' (*key
 * is that word), -2 for an unterminated quote; *why says which.
 */
int gp_kv_next(char **s, char **key, char **val, const char **why);

#define GP_KV_LINE_MAX 4096
/* "PATH:LINE: WHAT 'VAL'" (VAL may be NULL) into errbuf; returns -GP_ERR_FORMAT. */
int gp_kv_error(char *errbuf, size_t errlen, const char *path, size_t line, const char *what,
		const char *val);
/*
 * The next line of text[*pos, len) into line, a trailing CR cut; *ln counts
 * lines. Returns 1, 0 at the end, or -GP_ERR_FORMAT for a line over
 * GP_KV_LINE_MAX bytes or with a NUL byte (errbuf names path and line).
 */
int gp_kv_line(const char *path, const char *text, size_t len, size_t *pos, size_t *ln,
	       char line[GP_KV_LINE_MAX + 1], char *errbuf, size_t errlen);

#endif /* GP_BASE_H */
