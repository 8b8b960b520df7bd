/* SPDX-License-Identifier: MIT */
/*
 * base.h - the public header of base/: errors, the logging sink, string
 * buffers, growable arrays, checked arithmetic, CRC32, clocks, hashing and a
 * u64 hash map.
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
 * The logging sink. Libraries call gp_log() through the macros below; the
 * host (the CLI, a test) installs where the text goes and the most verbose
 * level it wants. Without a sink nothing is printed. Library code logs at
 * DEBUG (what happened to a file: chunks skipped, records counted, a
 * conversion's temporary file) and TRACE (per chunk or hand-over); never
 * ERROR or WARN, since what a user must see goes back through return values
 * and result structs (docs/dev/rules.md, "Logging").
 *
 * Each .c file that logs defines GP_LOG_TAG ("module/file") before its first
 * #include. The macros test the level first, so arguments cost nothing when
 * the level is off. Not signal-safe: inject/ has its own logger.
 */
typedef void (*gp_log_sink_fn)(enum gp_log_level level, const char *tag, const char *msg,
			       void *data);

void gp_log_set_sink(gp_log_sink_fn fn, void *data, enum gp_log_level max_level);
bool gp_log_enabled(enum gp_log_level level);
GP_PRINTF(3, 4) void gp_log(enum gp_log_level level, const char *tag, const char *fmt, ...);

#ifndef GP_LOG_TAG
#define GP_LOG_TAG "gpuprof"
#endif
#define gp_log_at_(level, ...)                                                                     \
	do {                                                                                       \
		if (gp_log_enabled(level)) {                                                       \
			gp_log(level, GP_LOG_TAG, __VA_ARGS__);                                    \
		}                                                                                  \
	} while (0)
#define gp_error(...) gp_log_at_(GP_LOG_ERROR, __VA_ARGS__)
#define gp_warn(...) gp_log_at_(GP_LOG_WARN, __VA_ARGS__)
#define gp_info(...) gp_log_at_(GP_LOG_INFO, __VA_ARGS__)
#define gp_debug(...) gp_log_at_(GP_LOG_DEBUG, __VA_ARGS__)
#define gp_trace(...) gp_log_at_(GP_LOG_TRACE, __VA_ARGS__)
#define gp_warn_once(...)                                                                          \
	do {                                                                                       \
		static bool gp_once_;                                                              \
		if (!gp_once_) {                                                                   \
			gp_once_ = true;                                                           \
			gp_warn(__VA_ARGS__);                                                      \
		}                                                                                  \
	} while (0)

/*
 * The sink the CLI uses: "gpuprof: warning: MSG" on stderr, and for DEBUG
 * and TRACE "gpuprof: debug: [TAG] MSG".
 */
void gp_log_stderr_sink(enum gp_log_level level, const char *tag, const char *msg, void *data);
/* "error", "warn", "info", "debug" or "trace" into *level; false for anything else. */
bool gp_log_level_parse(const char *name, enum gp_log_level *level);

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

/* -------------------------------------------------------- temporary files */

/*
 * The directory for temporary files: $TMPDIR when set and non-empty, else
 * "/tmp". The one place any gpuprof code reads TMPDIR; every temporary file
 * is created under it. Borrowed from the environment, not to be freed.
 */
const char *gp_tmpdir(void);

/*
 * A private temporary file in gp_tmpdir(), read-write, that has no name
 * (O_TMPFILE; where the file system lacks it, a name removed at once): it
 * disappears with its last descriptor, whatever ends the process. Returns
 * the descriptor, or -1 with errno set.
 */
int gp_tmpfile(void);

/*
 * Named temporaries a signal must remove: gp_cleanup_add() records a copy
 * of path and returns its id (0: not recorded, the list is full or the
 * path too long); gp_cleanup_remove(id) forgets it (0: nothing) once the
 * file is renamed or removed. gp_cleanup_run() unlinks every recorded path:
 * async-signal-safe, for a handler of SIGINT, SIGTERM and SIGHUP.
 */
unsigned gp_cleanup_add(const char *path);
void gp_cleanup_remove(unsigned id);
void gp_cleanup_run(void);

/* --------------------------------------------------------------- clocks */

/* Signal-safe. Nanoseconds of the named clock; 0 if the clock fails. */
uint64_t gp_clock_realtime_ns(void);
uint64_t gp_clock_monotonic_ns(void);

/*
 * Progress of a long job (loading, importing, exporting), passed to a callback
 * now and then; libraries never print it, the command line draws it.
 */
struct gp_progress {
	const char *what; /* "reading", "importing", "exporting" */
	const char *unit; /* what done and total count: "bytes", "events", "rows" */
	uint64_t done;    /* so far */
	uint64_t total;   /* in all; 0 when not known */
	uint64_t records; /* records written or read so far; 0 when not counted */
};
struct gp_progress_cb {
	void (*fn)(const struct gp_progress *p, void *data); /* NULL: no progress */
	void *data;
};

static inline void gp_progress_call(const struct gp_progress_cb *cb, const struct gp_progress *p)
{
	if (cb && cb->fn) {
		cb->fn(p, cb->data);
	}
}
uint64_t gp_clock_monotonic_raw_ns(void);

/*
 * Asks for transparent huge pages over the 2 MiB-aligned part of [p, p + n)
 * (n of 4 MiB or more; errno kept): a large array written front to back
 * then faults once per 2 MiB instead of per 4 KiB page. Advice only.
 */
void gp_huge_pages(void *p, size_t n);
/* malloc(n) with gp_huge_pages: for an array of millions of rows filled at once. */
void *gp_malloc_big(size_t n);
/*
 * Gives the free pages of the heap back to the system (glibc's malloc_trim;
 * nothing elsewhere): arrays grown by realloc inside the heap leave their
 * old blocks free but resident until then.
 */
void gp_heap_trim(void);
/*
 * Maps in the pages of [p, p + n) (whole pages around it) with one call
 * instead of one page fault per page as they are first written: where faults
 * are dear (about 12 us each on the virtual machine of docs/dev/performance-history.md,
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

/* ------------------------------------------------------- u64 hash map */

/*
 * struct gp_u64map: a hash map from uint64_t keys to uint64_t values (a row
 * index, a count, a string offset, or a pointer through uintptr_t). Open
 * addressing with linear probing over one array of {key, value} slots,
 * hashed with gp_hash_u64 and grown to keep at most half the slots used, so
 * a lookup usually touches one cache line. Every key is allowed: key 0 marks
 * an empty slot, so the key 0 itself is kept beside the array.
 *
 * Lifecycle: GP_U64MAP_INIT, gp_u64map_init or a zeroed struct is an empty
 * map that has allocated nothing; gp_u64map_release frees it and leaves it
 * empty again. Functions that may allocate return -GP_ERR_NOMEM on failure
 * with the map unchanged. A value pointer (gp_u64map_find,
 * gp_u64map_get_or_insert) is borrowed until the next call that adds a key.
 * There is no removal of one key; gp_u64map_clear removes all. Not
 * thread-safe, not signal-safe.
 */
struct gp_u64map_slot {
	uint64_t key; /* 0: an empty slot */
	uint64_t val;
};

struct gp_u64map {
	struct gp_u64map_slot *slots;
	size_t cap;        /* slots: 0 or a power of two >= 16 */
	size_t n;          /* keys in slots (the key 0 is not among them) */
	bool has_zero;     /* the key 0 is in the map, its value in zero_val */
	uint64_t zero_val;
};

#define GP_U64MAP_INIT {.slots = NULL, .cap = 0, .n = 0, .has_zero = false, .zero_val = 0}

void gp_u64map_init(struct gp_u64map *m);
void gp_u64map_release(struct gp_u64map *m);
/* Removes every key; keeps the slots for reuse. */
void gp_u64map_clear(struct gp_u64map *m);
/* Makes room for n keys in all, so that adding up to n never grows it. 0 or -GP_ERR_NOMEM. */
int gp_u64map_reserve(struct gp_u64map *m, size_t n);
/* Bytes allocated (for memory accounting). */
size_t gp_u64map_bytes(const struct gp_u64map *m);

static inline size_t gp_u64map_count(const struct gp_u64map *m)
{
	return m->n + m->has_zero;
}

/* Internal: the slot of key (not 0) in a map with slots: its own, or the empty one it would get. */
static inline struct gp_u64map_slot *gp_u64map_slot_(const struct gp_u64map *m, uint64_t key)
{
	size_t mask = m->cap - 1;
	size_t i = (size_t)gp_hash_u64(key) & mask;

	while (m->slots[i].key != key && m->slots[i].key != 0) {
		i = (i + 1) & mask;
	}
	return &m->slots[i];
}

/* The value of key, to read or change; NULL when key is absent. */
static inline uint64_t *gp_u64map_find(struct gp_u64map *m, uint64_t key)
{
	struct gp_u64map_slot *s;

	if (GP_UNLIKELY(key == 0)) {
		return m->has_zero ? &m->zero_val : NULL;
	}
	if (!m->cap) {
		return NULL;
	}
	s = gp_u64map_slot_(m, key);
	return s->key ? &s->val : NULL;
}

/* The value of key, or missing when key is absent. */
static inline uint64_t gp_u64map_get(const struct gp_u64map *m, uint64_t key, uint64_t missing)
{
	const struct gp_u64map_slot *s;

	if (GP_UNLIKELY(key == 0)) {
		return m->has_zero ? m->zero_val : missing;
	}
	if (!m->cap) {
		return missing;
	}
	s = gp_u64map_slot_(m, key);
	return s->key ? s->val : missing;
}

int gp_u64map_get_or_insert_slow_(struct gp_u64map *m, uint64_t key, uint64_t val,
				  uint64_t **valp);

/*
 * Finds key, adding it with value val when absent (an existing value stays).
 * Returns 1 when it was added, 0 when it was there, or -GP_ERR_NOMEM. When
 * valp is not NULL and the result is not an error, *valp points at its value.
 */
static inline int gp_u64map_get_or_insert(struct gp_u64map *m, uint64_t key, uint64_t val,
					  uint64_t **valp)
{
	if (GP_LIKELY(key != 0 && (m->n + 1) * 2 <= m->cap)) {
		struct gp_u64map_slot *s = gp_u64map_slot_(m, key);
		int added = s->key == 0;
		if (added) {
			s->key = key;
			s->val = val;
			m->n++;
		}
		if (valp) {
			*valp = &s->val;
		}
		return added;
	}
	return gp_u64map_get_or_insert_slow_(m, key, val, valp);
}

/* Sets the value of key, adding it when absent: 1 when added, 0 when replaced, or -GP_ERR_NOMEM. */
static inline int gp_u64map_put(struct gp_u64map *m, uint64_t key, uint64_t val)
{
	uint64_t *v;
	int ret = gp_u64map_get_or_insert(m, key, val, &v);

	if (ret >= 0) {
		*v = val;
	}
	return ret;
}

/*
 * Walks the map: start with *pos = 0; each call stores the next key and its
 * value and returns true, then false once every key was seen. The order is
 * the key 0 first, then slot order: the same for the same sequence of calls
 * on the map, but otherwise arbitrary (sort where output depends on it).
 * Values may be changed during a walk; keys may not be added.
 */
bool gp_u64map_next(const struct gp_u64map *m, size_t *pos, uint64_t *key, uint64_t *val);

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
 * *key and *val, 0 at the end of the line, or -GP_ERR_FORMAT when a word has
 * no '=' or a quote is not closed, with "PATH:LINE: what" in errbuf.
 */
int gp_kv_next(char **s, char **key, char **val, const char *path, size_t line, char *errbuf,
	       size_t errlen);

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
