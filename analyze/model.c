/* SPDX-License-Identifier: MIT */
/*
 * model.c - loading traces into the model: one pass over each file's
 * chunks appends rows to struct-of-arrays tables, then every table is
 * sorted by start time (radix sort, linear in rows) and the indexes are
 * built: correlation (GPU op -> API call), NVTX nesting and the enclosing
 * range of every API call (one sweep per thread), device timelines.
 *
 * Memory is the tables plus, while building, one index array per table
 * and a correlation hash; nothing is kept per record beyond the columns.
 */
#define GP_LOG_TAG "analyze/model"
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/ops.h"
#include "analyze/file-info.h"
#include "analyze/sanity.h"
#include "analyze/import-ahead.h"
#include "import/import.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ tables */

/*
 * Columns are written once, front to back: transparent huge pages cut the
 * page faults of filling them (a fifth of load time with 4 KiB pages).
 */
#define COL_RESERVE_(type, col)                                                                    \
	{                                                                                          \
		void *p_ = realloc(t->col, ncap * sizeof(type));                                   \
		if (!p_) {                                                                         \
			return -GP_ERR_NOMEM;                                                      \
		}                                                                                  \
		t->col = p_;                                                                       \
		gp_huge_pages(p_, ncap * sizeof(type));                                            \
	}
/* An optional column grows with its table once it exists. */
#define COL_RESERVE_OPT_(type, col)                                                                \
	if (t->col) {                                                                              \
		void *p_ = realloc(t->col, ncap * sizeof(type));                                   \
		if (!p_) {                                                                         \
			return -GP_ERR_NOMEM;                                                      \
		}                                                                                  \
		t->col = p_;                                                                       \
		gp_huge_pages(p_, ncap * sizeof(type));                                            \
	}
#define COL_FREE_(type, col)                                                                       \
	free(t->col);                                                                              \
	t->col = NULL;
/*
 * Gathers into scratch; an 8-byte column then trades places with scratch
 * when both hold exactly n 8-byte values (so the scratch that comes back is
 * as large as the one that went), narrower ones are copied back.
 */
#define COL_PERMUTE_(type, col)                                                                    \
	if (t->col) { /* NULL: dropped (gpa_load_opts.drop) */                                    \
		type *p_ = *scratch;                                                               \
		for (size_t i_ = 0; i_ < t->n; i_++) {                                             \
			p_[i_] = t->col[perm[i_]];                                                 \
		}                                                                                  \
		if (sizeof(type) == 8 && t->cap == t->n && t->n == *scratch_n) {                   \
			*scratch = t->col;                                                         \
			t->col = p_;                                                               \
		} else {                                                                           \
			memcpy(t->col, p_, t->n * sizeof(type));                                   \
		}                                                                                  \
	}
#define COL_PERMUTE_OPT_(type, col)                                                                \
	if (t->col) {                                                                              \
		COL_PERMUTE_(type, col)                                                            \
	}
#define COL_SHRINK_OPT_(type, col)                                                                 \
	if (t->col) {                                                                              \
		COL_SHRINK_(type, col)                                                             \
	}
#define COL_SHRINK_(type, col)                                                                     \
	if (t->col) {                                                                              \
		void *p_ = realloc(t->col, (t->n ? t->n : 1) * sizeof(type));                      \
		if (p_) {                                                                          \
			t->col = p_;                                                               \
		}                                                                                  \
	}

#define DEFINE_TABLE_FNS_(tname, COLS, OPT)                                                        \
	static int tname##_reserve(struct tname *t, size_t want)                                   \
	{                                                                                          \
		size_t ncap;                                                                       \
		if (want <= t->cap) {                                                              \
			return 0;                                                                  \
		}                                                                                  \
		ncap = t->cap + t->cap / 2;                                                        \
		if (ncap < want) {                                                                 \
			ncap = want > 1024 ? want : 1024;                                          \
		}                                                                                  \
		COLS(COL_RESERVE_)                                                                 \
		OPT(COL_RESERVE_OPT_)                                                              \
		t->cap = ncap;                                                                     \
		return 0;                                                                          \
	}                                                                                          \
	static void tname##_free(struct tname *t)                                                  \
	{                                                                                          \
		COLS(COL_FREE_)                                                                    \
		OPT(COL_FREE_)                                                                     \
		t->n = t->cap = 0;                                                                 \
	}                                                                                          \
	/* *scratch: room for *scratch_n >= n 8-byte values; may come back as another such. */ \
	GP_UNUSED static void tname##_permute(struct tname *t, const uint32_t *perm, void **scratch, \
				    size_t *scratch_n)                                             \
	{                                                                                          \
		COLS(COL_PERMUTE_)                                                                 \
		OPT(COL_PERMUTE_OPT_)                                                              \
	}                                                                                          \
	/* Gives back the capacity beyond n (mremap for large columns: no copy). */              \
	GP_UNUSED static void tname##_shrink(struct tname *t)                                             \
	{                                                                                          \
		if (t->cap > t->n) {                                                               \
			COLS(COL_SHRINK_)                                                          \
			OPT(COL_SHRINK_OPT_)                                                       \
			t->cap = t->n;                                                             \
		}                                                                                  \
	}

DEFINE_TABLE_FNS_(gpa_kernels, GPA_KERNEL_COLS, GPA_KERNEL_OPT_COLS_)
DEFINE_TABLE_FNS_(gpa_memcpys, GPA_MEMCPY_COLS, GPA_GRAPH_COLS_)
DEFINE_TABLE_FNS_(gpa_memsets, GPA_MEMSET_COLS, GPA_GRAPH_COLS_)
DEFINE_TABLE_FNS_(gpa_apis, GPA_API_COLS, GPA_API_OPT_COLS_)
DEFINE_TABLE_FNS_(gpa_syncs, GPA_SYNC_COLS, GPA_NO_COLS_)
DEFINE_TABLE_FNS_(gpa_nvtxs, GPA_NVTX_COLS, GPA_NVTX_OPT_COLS_)
DEFINE_TABLE_FNS_(gpa_overheads, GPA_OVERHEAD_COLS, GPA_NO_COLS_)
DEFINE_TABLE_FNS_(gpa_gpus, GPA_GPU_COLS, GPA_NO_COLS_)
DEFINE_TABLE_FNS_(gpa_mems, GPA_MEM_COLS, GPA_MEM_OPT_COLS_)

/* Row r of optional column col of table t: allocated (rows so far 0) with the first nonzero v. */
#define SET_OPT_(t, col, r, v)                                                                     \
	do {                                                                                       \
		if (!(t)->col && (v)) {                                                            \
			(t)->col = calloc((t)->cap, sizeof(*(t)->col));                            \
			if (!(t)->col) {                                                           \
				return -GP_ERR_NOMEM;                                              \
			}                                                                          \
			gp_huge_pages((t)->col, (t)->cap * sizeof(*(t)->col));                     \
		}                                                                                  \
		if ((t)->col) {                                                                    \
			(t)->col[r] = (v);                                                         \
		}                                                                                  \
	} while (0)

/* ------------------------------------------------------------ strings */

const char *gpa_model_str(const struct gpa_model *m, uint32_t id)
{
	if (id == 0 || id > m->strs.off.n) {
		return "";
	}
	return m->strs.text.buf + m->strs.off.v[id - 1];
}

static uint64_t str_hash(const char *s, size_t len)
{
	return gp_hash_bytes(s, len);
}

static int strtab_grow(struct gpa_strtab *st)
{
	size_t nn = st->nslots ? st->nslots * 2 : 4096;
	uint32_t *ns = calloc(nn, sizeof(*ns));

	if (!ns) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < st->nslots; i++) {
		uint32_t id = st->slots[i];
		if (id) {
			const char *s = st->text.buf + st->off.v[id - 1];
			size_t j = str_hash(s, strlen(s)) & (nn - 1);
			while (ns[j]) {
				j = (j + 1) & (nn - 1);
			}
			ns[j] = id;
		}
	}
	free(st->slots);
	st->slots = ns;
	st->nslots = nn;
	return 0;
}

uint32_t gpa_model_intern(struct gpa_model *m, const char *s)
{
	struct gpa_strtab *st = &m->strs;
	size_t len = strlen(s), j;

	if (!len) {
		return 0;
	}
	if ((st->off.n + 1) * 2 > st->nslots && strtab_grow(st)) {
		return GPA_NONE;
	}
	for (j = str_hash(s, len) & (st->nslots - 1); st->slots[j]; j = (j + 1) & (st->nslots - 1)) {
		const char *t = st->text.buf + st->off.v[st->slots[j] - 1];
		if (!strcmp(t, s)) {
			return st->slots[j];
		}
	}
	if (st->text.len + len + 1 > UINT32_MAX) {
		return GPA_NONE;
	}
	uint32_t off = (uint32_t)st->text.len;
	gp_strbuf_add(&st->text, s, len + 1); /* keeps the NUL */
	if (st->text.failed || gp_vec_push(&st->off, off)) {
		return GPA_NONE;
	}
	st->text.len = off + len + 1;
	st->slots[j] = (uint32_t)st->off.n;
	return st->slots[j];
}

/* ------------------------------------------------ u64 -> row hash maps */

/* The row stored under key, or GPA_NONE (rows are below GPA_NONE). */
static uint32_t map_row(const struct gp_u64map *h, uint64_t key)
{
	return (uint32_t)gp_u64map_get(h, key, GPA_NONE);
}

/* ------------------------------------------------------------ sorting */

/* Sorted runs of rows up to this many are merged; more are radix sorted. */
#define MERGE_RUNS_MAX 64

/*
 * The sort keys: an array, or (array NULL) the starts of the timeline rows
 * first + i or of the API rows, read from their tables rather than copied
 * (8 bytes a row).
 */
struct keysrc {
	const uint64_t *key;
	const struct gpa_model *m;
	bool api; /* with key NULL: the starts of the API rows, else of timeline op values */
};

/* The start of timeline op value v (kind and row: gpa_gpus.op). */
static inline uint64_t op_start(const struct gpa_model *m, uint32_t v)
{
	uint32_t r = v & GPA_GPU_ROW_MAX, k = v >> GPA_GPU_KIND_SHIFT;

	return k == GPA_GPU_KERNEL ? gpa_kern_start(m, r) : k == GPA_GPU_MEMCPY ? m->copy.start[r]
										: m->set.start[r];
}

static inline uint64_t key_at(const struct keysrc *ks, size_t i)
{
	if (ks->key) {
		return ks->key[i];
	}
	return ks->api ? gpa_api_start(ks->m, i) : op_start(ks->m, (uint32_t)i);
}

/*
 * perm = runs [b[r], b[r+1]) of src merged pairwise into dst, stably (on equal
 * keys the lower row first); b and *nruns updated to the merged runs.
 */
static void merge_pass(const struct keysrc *key, const uint32_t *src, uint32_t *dst, size_t *b,
		       size_t *nruns)
{
	size_t out = 0;

	for (size_t r = 0; r < *nruns; r += 2) {
		size_t i = b[r], mid = b[r + 1], e = r + 2 <= *nruns ? b[r + 2] : mid, j = mid;
		size_t o = i;
		while (i < mid && j < e) {
			uint64_t kj = key_at(key, src[j]), ki = key_at(key, src[i]);
			/* ties by row: runs need not be in row order (sort_ops_grouped) */
			bool first_j = kj < ki || (kj == ki && src[j] < src[i]);
			dst[o++] = first_j ? src[j++] : src[i++];
		}
		while (i < mid) {
			dst[o++] = src[i++];
		}
		while (j < e) {
			dst[o++] = src[j++];
		}
		b[out++] = b[r];
	}
	b[out] = b[*nruns];
	*nruns = out;
}

static int sort_perm_keys(const struct keysrc *key, size_t n, uint32_t *perm, bool *moved);

/* Up to this many sorted runs are merged in one pass, more pairwise. */
#define MERGE_WAYS 8

/*
 * perm = runs [b[r], b[r+1]) of src (nruns <= MERGE_WAYS) merged at once
 * into dst, stably: the least (key, row) of the runs' heads first.
 */
static void merge_ways(const struct keysrc *key, const uint32_t *src, uint32_t *dst,
		       const size_t *b, size_t nruns)
{
	size_t at[MERGE_WAYS], end[MERGE_WAYS], live = nruns, o = 0;
	uint64_t head[MERGE_WAYS];

	for (size_t r = 0; r < nruns; r++) {
		at[r] = b[r];
		end[r] = b[r + 1];
		head[r] = key_at(key, src[at[r]]);
	}
	while (live) {
		size_t best = SIZE_MAX;
		for (size_t r = 0; r < nruns; r++) {
			if (at[r] < end[r] &&
			    (best == SIZE_MAX || head[r] < head[best] ||
			     (head[r] == head[best] && src[at[r]] < src[at[best]]))) {
				best = r;
			}
		}
		dst[o++] = src[at[best]++];
		if (at[best] < end[best]) {
			head[best] = key_at(key, src[at[best]]);
		} else {
			live--;
		}
	}
}

/*
 * Radix sort of perm (identity on entry) by key, lo and hi the key's
 * extremes; scratch: room for n, or NULL.
 */
static int radix_perm(const struct keysrc *key, size_t n, uint64_t lo, uint64_t hi, uint32_t *perm,
		      uint32_t *scratch)
{
	uint32_t *own = scratch ? NULL : gp_malloc_big(n * sizeof(*own));
	uint32_t *tmp = scratch ? scratch : own;
	size_t *count = calloc(65536, sizeof(*count));
	if (!tmp || !count) {
		free(own);
		free(count);
		return -GP_ERR_NOMEM;
	}
	uint64_t range = hi - lo;
	for (unsigned shift = 0; shift < 64 && (range >> shift); shift += 16) {
		memset(count, 0, 65536 * sizeof(*count));
		for (size_t i = 0; i < n; i++) {
			count[((key_at(key, perm[i]) - lo) >> shift) & 0xffff]++;
		}
		size_t sum = 0;
		for (size_t b = 0; b < 65536; b++) {
			size_t c = count[b];
			count[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			tmp[count[((key_at(key, perm[i]) - lo) >> shift) & 0xffff]++] = perm[i];
		}
		memcpy(perm, tmp, n * sizeof(*perm));
	}
	free(own);
	free(count);
	return 0;
}

/*
 * perm = the stable order of rows by key ascending. Rows that come in a few
 * sorted runs (records of a few streams or devices, or of a few tables, one
 * after another: the common case) are merged run by run, reading the keys in
 * order; others go through an LSD radix sort on the bits that vary. Both give
 * the one stable order. Returns -GP_ERR_NOMEM or 0.
 */
static int sort_perm(const uint64_t *key, size_t n, uint32_t *perm, bool *moved)
{
	struct keysrc ks = {.key = key};

	return sort_perm_keys(&ks, n, perm, moved);
}

/*
 * The sorted runs of the n elements e (by key, ties by element): how many,
 * the starts of the first MERGE_RUNS_MAX in b, the keys' extremes in *lo, *hi.
 */
static size_t find_runs(const struct keysrc *key, const uint32_t *e, size_t n, size_t *b,
			uint64_t *lo, uint64_t *hi)
{
	size_t runs = n ? 1 : 0;
	uint64_t prev = 0;

	*lo = UINT64_MAX;
	*hi = 0;
	b[0] = 0;
	for (size_t i = 0; i < n; prev = key_at(key, e[i]), i++) {
		uint64_t k = key_at(key, e[i]);
		*lo = k < *lo ? k : *lo;
		*hi = k > *hi ? k : *hi;
		if (i && (k < prev || (k == prev && e[i] < e[i - 1]))) {
			if (runs < MERGE_RUNS_MAX) {
				b[runs] = i;
			}
			runs++;
		}
	}
	return runs;
}

/*
 * The runs [b[r], b[r+1]) of src (runs <= MERGE_RUNS_MAX, b[runs] = n)
 * merged stably, the result left in out (src or dst); dst: room for n.
 */
static void merge_runs(const struct keysrc *key, uint32_t *src, uint32_t *dst, size_t *b,
		       size_t runs, size_t n, uint32_t *out)
{
	if (runs > 1 && runs <= MERGE_WAYS) {
		merge_ways(key, src, dst, b, runs);
		src = dst;
		runs = 1;
	}
	while (runs > 1) {
		merge_pass(key, src, dst, b, &runs);
		uint32_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != out) {
		memcpy(out, src, n * sizeof(*out));
	}
}

/* sort_perm with the keys of a keysrc (an array, or starts read from the tables). */
static int sort_perm_keys(const struct keysrc *key, size_t n, uint32_t *perm, bool *moved)
{
	size_t b[MERGE_RUNS_MAX + 1];
	uint64_t lo, hi;

	for (size_t i = 0; i < n; i++) {
		perm[i] = (uint32_t)i;
	}
	size_t runs = find_runs(key, perm, n, b, &lo, &hi);
	*moved = runs > 1;
	if (runs <= 1) {
		return 0;
	}
	if (runs > MERGE_RUNS_MAX) { /* perm is still the identity: stable radix passes */
		return radix_perm(key, n, lo, hi, perm, NULL);
	}
	b[runs] = n;
	uint32_t *own = gp_malloc_big(n * sizeof(*own));
	if (!own) {
		return -GP_ERR_NOMEM;
	}
	merge_runs(key, perm, own, b, runs, n, perm);
	free(own);
	return 0;
}

/*
 * The op values of one device's timeline rows (vals: ascending, which is
 * file order) sorted in place by (start, value), the starts read from the
 * tables; cls: each row's stream group; tmp: room for n. The order
 * sort_perm gives rows, with no permutation beside the values: runs are
 * looked for in each stream group's rows, so a few interleaved queues (the
 * streams of a device, each in order) are merged, not radix sorted.
 */
static int sort_ops_grouped(const struct keysrc *key, const uint8_t *cls, size_t n, uint32_t *vals,
			    uint32_t *tmp)
{
	size_t b[MERGE_RUNS_MAX + 1];
	uint32_t at[MERGE_RUNS_MAX + 1] = {0};
	uint64_t lo, hi;

	for (size_t i = 0; i < n; i++) { /* tmp = the values by group, a stable counting sort */
		at[cls[i] + 1]++;
	}
	for (size_t c = 0; c < MERGE_RUNS_MAX; c++) {
		at[c + 1] += at[c];
	}
	for (size_t i = 0; i < n; i++) {
		tmp[at[cls[i]]++] = vals[i];
	}
	size_t runs = find_runs(key, tmp, n, b, &lo, &hi);
	if (runs > MERGE_RUNS_MAX) { /* vals is still in file order: stable radix passes */
		return radix_perm(key, n, lo, hi, vals, tmp);
	}
	b[runs] = n;
	merge_runs(key, tmp, vals, b, runs, n, vals);
	return 0;
}

/* --------------------------------------------------------- per-file load */

struct fcache {
	uint32_t fn;        /* GPA_NONE: not seen yet */
	uint32_t demangled; /* file string id it was seen with */
	uint32_t shape;     /* last launch configuration, GPA_NONE */
};

/* The last sites met, by a hash of what they hold: most rows repeat a recent one. */
#define SITE_CACHE 256
struct kcache {
	struct gpa_ksite k;
	uint32_t site; /* GPA_NONE: empty */
};
struct acache {
	uint32_t name, tid; /* file string id, thread id */
	uint32_t site;      /* GPA_NONE: empty */
};

struct file_ctx {
	struct gpa_model *m;
	struct gpt_reader *r;
	uint32_t proc;
	GP_VEC(uint32_t) remap; /* file string id -> model id; GPA_NONE not yet */
	GP_VEC(struct fcache) fcache; /* by file string id of the kernel name */
	struct fcache fc_undefined;   /* for a name id above every id the file defines */
	struct gp_u64map threads;   /* tid -> model thread */
	struct gp_u64map funcs;     /* (file name id, file demangled id) -> func */
	struct gp_u64map *m_funcs;  /* (model name, model demangled) -> func, across files */
	struct gp_u64map *m_shapes; /* shape hash -> shape, across files */
	struct gp_u64map *m_ksites; /* ksite hash (+ probes) -> ksite, across files */
	struct gp_u64map *m_asites; /* (model name, model thread) -> asite, across files */
	struct kcache kc[SITE_CACHE];
	struct acache ac[SITE_CACHE];
	int64_t offset;
	unsigned drop; /* gpa_load_opts.drop */
	bool have_anchor;
	/* first rows of this file in each table, to shift times once the anchor is known */
	size_t k0, c0, s0, a0, y0, n0, o0;
};

static uint32_t map_str(struct file_ctx *f, uint32_t id)
{
	if (id == 0) {
		return 0;
	}
	if (id > gpt_reader_string_ids(f->r)) {
		/* Not defined (yet): no table up to an id the file picked at will. */
		char buf[48];
		snprintf(buf, sizeof(buf), "<missing string %" PRIu32 ">", id);
		return gpa_model_intern(f->m, buf);
	}
	if (id >= f->remap.n) {
		size_t old = f->remap.n;
		if (gp_vec_reserve(&f->remap, (size_t)id + 1)) {
			return GPA_NONE;
		}
		for (size_t i = old; i <= id; i++) {
			f->remap.v[i] = GPA_NONE;
		}
		f->remap.n = (size_t)id + 1;
	}
	if (f->remap.v[id] == GPA_NONE) {
		const char *s = gpt_reader_string(f->r, id);
		char buf[48];
		if (!s) {
			snprintf(buf, sizeof(buf), "<missing string %" PRIu32 ">", id);
			s = buf;
		}
		f->remap.v[id] = gpa_model_intern(f->m, s);
	}
	return f->remap.v[id];
}

/* Per file name id: its function and last launch configuration. */
static struct fcache *func_cache(struct file_ctx *f, uint32_t name)
{
	if (name > gpt_reader_string_ids(f->r)) {
		f->fc_undefined = (struct fcache){GPA_NONE, 0, GPA_NONE};
		return &f->fc_undefined;
	}
	if (name >= f->fcache.n) {
		size_t old = f->fcache.n;
		if (gp_vec_reserve(&f->fcache, (size_t)name + 1)) {
			return NULL;
		}
		for (size_t i = old; i <= name; i++) {
			f->fcache.v[i] = (struct fcache){GPA_NONE, 0, GPA_NONE};
		}
		f->fcache.n = (size_t)name + 1;
	}
	return &f->fcache.v[name];
}

/* The function row for a (mangled, demangled) pair of file string ids. */
static uint32_t map_func(struct file_ctx *f, uint32_t name, uint32_t demangled)
{
	uint64_t key = ((uint64_t)name << 32) | demangled;
	uint32_t fn = map_row(&f->funcs, key);

	if (fn != GPA_NONE) {
		return fn;
	}
	struct gpa_func gf = {map_str(f, name), map_str(f, demangled)};
	if (gf.name == GPA_NONE || gf.demangled == GPA_NONE) {
		return GPA_NONE;
	}
	/* The same pair from another file is the same function. */
	uint64_t mkey = ((uint64_t)gf.name << 32) | gf.demangled;
	fn = map_row(&f->m_funcs[0], mkey);
	if (fn == GPA_NONE) {
		if (gp_vec_push(&f->m->funcs, gf) ||
		    gp_u64map_put(&f->m_funcs[0], mkey, (uint32_t)(f->m->funcs.n - 1)) < 0) {
			return GPA_NONE;
		}
		fn = (uint32_t)(f->m->funcs.n - 1);
	}
	return gp_u64map_put(&f->funcs, key, fn) < 0 ? GPA_NONE : fn;
}

static uint32_t map_shape(struct file_ctx *f, const struct gpa_shape *sh)
{
	uint64_t h = gp_hash_bytes(sh, sizeof(*sh));
	uint32_t i = map_row(f->m_shapes, h);

	if (i != GPA_NONE && !memcmp(&f->m->shapes.v[i], sh, sizeof(*sh))) {
		return i;
	}
	if (gp_vec_push(&f->m->shapes, *sh)) {
		return GPA_NONE;
	}
	i = (uint32_t)(f->m->shapes.n - 1);
	/* On a (rare) hash collision the newer shape just is not found again. */
	if (gp_u64map_get_or_insert(f->m_shapes, h, i, NULL) < 0) {
		return GPA_NONE;
	}
	return i;
}

static uint32_t map_thread(struct file_ctx *f, uint32_t tid)
{
	uint32_t t = map_row(&f->threads, tid);

	if (t != GPA_NONE) {
		return t;
	}
	struct gpa_thread th = {.proc = f->proc, .tid = tid};
	if (gp_vec_push(&f->m->threads, th) ||
	    gp_u64map_put(&f->threads, tid, (uint32_t)(f->m->threads.n - 1)) < 0) {
		return GPA_NONE;
	}
	return (uint32_t)(f->m->threads.n - 1);
}

static uint32_t map_dev(struct file_ctx *f, uint32_t id)
{
	struct gpa_model *m = f->m;

	for (size_t i = m->devs.n; i-- > 0;) {
		if (m->devs.v[i].proc != f->proc) {
			break;
		}
		if (m->devs.v[i].id == id) {
			return (uint32_t)i;
		}
	}
	if (m->devs.n >= UINT16_MAX) {
		return GPA_NONE;
	}
	/* A device seen only through its activity: a placeholder until its record comes. */
	struct gpa_dev d = {.proc = f->proc, .id = id};
	if (gp_vec_push(&m->devs, d)) {
		return GPA_NONE;
	}
	return (uint32_t)(m->devs.n - 1);
}

/* The kernel site row holding *ks: an equal one, or a new one. */
static uint32_t map_ksite(struct file_ctx *f, const struct gpa_ksite *ks)
{
	struct gpa_model *m = f->m;
	uint32_t h = ks->func * 0x9e3779b1u ^ ks->shape * 0x85ebca6bu ^ ks->stream * 0xc2b2ae35u ^
		     ks->dev * 0x27d4eb2fu;
	struct kcache *c = &f->kc[h >> 24 & (SITE_CACHE - 1)];

	if (c->site != GPA_NONE && !memcmp(&c->k, ks, sizeof(*ks))) {
		return c->site;
	}
	/* Keyed by a hash of the four values; an unequal site under it: the next key. */
	for (uint64_t key = gp_hash_bytes(ks, sizeof(*ks));; key++) {
		uint32_t i = map_row(f->m_ksites, key);
		if (i == GPA_NONE) {
			if (m->ksites.n >= GPA_NONE - 1 || gp_vec_push(&m->ksites, *ks) ||
			    gp_u64map_put(f->m_ksites, key, (uint32_t)(m->ksites.n - 1)) < 0) {
				return GPA_NONE;
			}
			i = (uint32_t)(m->ksites.n - 1);
		} else if (memcmp(&m->ksites.v[i], ks, sizeof(*ks))) {
			continue;
		}
		c->k = *ks;
		c->site = i;
		return i;
	}
}

/* The API site row of a call named by file string id name on thread tid. */
static uint32_t map_asite(struct file_ctx *f, uint32_t name, uint32_t tid)
{
	struct gpa_model *m = f->m;
	struct acache *c = &f->ac[(name * 0x9e3779b1u ^ tid * 0x85ebca6bu) >> 24 & (SITE_CACHE - 1)];

	if (c->site != GPA_NONE && c->name == name && c->tid == tid) {
		return c->site;
	}
	struct gpa_asite as = {map_str(f, name), map_thread(f, tid), 0};
	if (as.name == GPA_NONE || as.thread == GPA_NONE) {
		return GPA_NONE;
	}
	uint64_t key = (uint64_t)as.name << 32 | as.thread;
	uint32_t i = map_row(f->m_asites, key);
	if (i == GPA_NONE) {
		if (m->asites.n >= GPA_NONE - 1 || gp_vec_push(&m->asites, as) ||
		    gp_u64map_put(f->m_asites, key, (uint32_t)(m->asites.n - 1)) < 0) {
			return GPA_NONE;
		}
		i = (uint32_t)(m->asites.n - 1);
	}
	*c = (struct acache){name, tid, i};
	return i;
}

#define CHECK_ID(x)                                                                                \
	do {                                                                                       \
		if ((x) == GPA_NONE) {                                                             \
			return -GP_ERR_NOMEM;                                                      \
		}                                                                                  \
	} while (0)

/*
 * One take_<kind> per record kind the model keeps, behind take_kind[]: each
 * appends a chunk's count records (info->size bytes apart) to its table.
 */
typedef int (*take_fn)(struct file_ctx *f, const struct gpt_chunk *ch);

/* A kernel's launch configuration as the shape table keeps it. */
static void kernel_shape(const struct gpt_kernel *k, struct gpa_shape *sh)
{
	memset(sh, 0, sizeof(*sh)); /* padding too: shapes are hashed as bytes */
	sh->grid_x = k->grid_x;
	sh->grid_y = k->grid_y;
	sh->grid_z = k->grid_z;
	sh->block_x = k->block_x;
	sh->block_y = k->block_y;
	sh->block_z = k->block_z;
	sh->static_smem = k->static_smem;
	sh->dynamic_smem = k->dynamic_smem;
	sh->regs = k->registers;
	sh->carveout = k->smem_carveout_is_requested && k->smem_carveout_requested <= 100
			       ? (int8_t)k->smem_carveout_requested
			       : -1;
	sh->cache_config = k->cache_config_requested;
	sh->optin = k->shmem_limit_config == 1;
	sh->cluster_x = k->cluster_x;
	sh->cluster_y = k->cluster_y;
	sh->cluster_z = k->cluster_z;
	sh->src_occupancy_bp = k->src_occupancy_bp;
	sh->src_blocks_per_sm_milli = k->src_blocks_per_sm_milli;
	sh->src_warps_per_sm_milli = k->src_warps_per_sm_milli;
}

/* An end before its start is counted (analyze/sanity.c) and cut to the start. */
static uint64_t end_of(struct file_ctx *f, uint64_t start, uint64_t end)
{
	if (end >= start) {
		return end;
	}
	f->m->procs.v[f->proc].negative_durations++;
	return start;
}

/* Row r of a dur column: d, or GPA_DUR_LONG with d in the table's long list (rows come in order). */
static int set_dur(struct gpa_long_durs *l, uint32_t *col, size_t r, uint64_t d)
{
	if (d < GPA_DUR_LONG) {
		col[r] = (uint32_t)d;
		return 0;
	}
	col[r] = GPA_DUR_LONG;
	struct gpa_long_dur e = {(uint32_t)r, d};
	return gp_vec_push(l, e);
}

/*
 * Start v of row r of a table of start offsets (col), rows set in order
 * from 0: a block's base comes from its first row.
 */
static int set_start(struct gpa_starts *s, uint32_t *col, size_t r, uint64_t v)
{
	size_t b = r >> GPA_START_BLOCK_SHIFT;

	if (b >= s->base.n) {
		if (gp_vec_reserve(&s->base, b + 1)) {
			return -GP_ERR_NOMEM;
		}
		while (s->base.n <= b) {
			s->base.v[s->base.n++] = v > (1ull << 31) ? v - (1ull << 31) : 0;
		}
	}
	uint64_t base = s->base.v[b];
	if (v >= base && v - base < GPA_START_FAR) {
		col[r] = (uint32_t)(v - base);
		return 0;
	}
	col[r] = GPA_START_FAR;
	struct gpa_long_dur e = {(uint32_t)r, v};
	return gp_vec_push(&s->far, e);
}

/* The starts of rows 0 .. n - 1 written anew from v (by row) into col and *s (emptied). */
static int encode_starts(struct gpa_starts *s, uint32_t *col, const uint64_t *v, size_t n)
{
	s->base.n = 0;
	s->far.n = 0;
	for (size_t r = 0; r < n; r++) {
		if (set_start(s, col, r, v[r])) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

/* Every start of a table, 64 bits each (NULL: out of memory). */
static uint64_t *decode_starts(const struct gpa_starts *s, const uint32_t *col, size_t n)
{
	uint64_t *v = gp_malloc_big((n ? n : 1) * sizeof(*v));

	for (size_t r = 0; v && r < n; r++) {
		v[r] = gpa_start_of(col, s, r);
	}
	return v;
}

uint64_t gpa_long_dur(const struct gpa_long_durs *l, size_t row)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->v[mid].row < row) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < l->n && l->v[lo].row == row ? l->v[lo].dur : 0;
}

static int take_kernel(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_kernels *t = &f->m->kern;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_kernels_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_kernel *k = (const void *)rec;
		size_t r = t->n++;
		uint32_t dev = map_dev(f, k->device);
		CHECK_ID(dev);
		if (set_start(&f->m->kern_starts, t->start_off, r, k->start) ||
		    set_dur(&f->m->kern_long, t->dur, r, end_of(f, k->start, k->end) - k->start)) {
			return -GP_ERR_NOMEM;
		}
		struct fcache *fc = func_cache(f, k->name);
		if (!fc) {
			return -GP_ERR_NOMEM;
		}
		if (fc->fn == GPA_NONE || fc->demangled != k->demangled) {
			fc->fn = map_func(f, k->name, k->demangled);
			fc->demangled = k->demangled;
			fc->shape = GPA_NONE;
			CHECK_ID(fc->fn);
		}
		struct gpa_ksite ks = {.func = fc->fn, .stream = k->stream, .dev = dev};
		if (!(f->drop & GPA_DROP_SHAPES)) {
			struct gpa_shape sh;
			kernel_shape(k, &sh);
			/* Launches of one kernel mostly repeat its last configuration. */
			if (fc->shape == GPA_NONE ||
			    memcmp(&f->m->shapes.v[fc->shape], &sh, sizeof(sh))) {
				fc->shape = map_shape(f, &sh);
				CHECK_ID(fc->shape);
			}
			ks.shape = fc->shape;
		}
		t->site[r] = map_ksite(f, &ks);
		CHECK_ID(t->site[r]);
		/* Without a column of their own, the ids wait in api until linked. */
		if (f->drop & GPA_DROP_CORR) {
			t->api[r] = k->correlation;
		} else {
			t->api[r] = GPA_NONE;
			SET_OPT_(t, corr, r, k->correlation);
		}
		SET_OPT_(t, graph, r, k->graph_id);
	}
	return 0;
}

static int take_memcpy(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_memcpys *t = &f->m->copy;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_memcpys_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_memcpy *c = (const void *)rec;
		size_t r = t->n++;
		uint32_t dev = map_dev(f, c->device);
		CHECK_ID(dev);
		t->start[r] = c->start;
		t->end[r] = end_of(f, c->start, c->end);
		t->bytes[r] = c->bytes;
		t->stream[r] = c->stream;
		t->corr[r] = c->correlation;
		t->rcorr[r] = c->runtime_correlation;
		t->api[r] = GPA_NONE;
		SET_OPT_(t, graph, r, c->graph_id);
		t->dev[r] = (uint16_t)dev;
		t->copy_kind[r] = c->is_p2p && !c->copy_kind ? GPT_COPY_KIND_PTOP : c->copy_kind;
		t->src_kind[r] = c->src_kind;
		t->dst_kind[r] = c->dst_kind;
		t->flags[r] = c->flags;
	}
	return 0;
}

static int take_memset(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_memsets *t = &f->m->set;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_memsets_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_memset *s = (const void *)rec;
		size_t r = t->n++;
		uint32_t dev = map_dev(f, s->device);
		CHECK_ID(dev);
		t->start[r] = s->start;
		t->end[r] = end_of(f, s->start, s->end);
		t->bytes[r] = s->bytes;
		t->stream[r] = s->stream;
		t->corr[r] = s->correlation;
		t->api[r] = GPA_NONE;
		SET_OPT_(t, graph, r, s->graph_id);
		t->dev[r] = (uint16_t)dev;
		t->memory_kind[r] = s->memory_kind;
	}
	return 0;
}

static int take_api(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_apis *t = &f->m->api;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_apis_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_api *a = (const void *)rec;
		size_t r = t->n++;
		if (set_start(&f->m->api_starts, t->start_off, r, a->start) ||
		    set_dur(&f->m->api_long, t->dur, r, end_of(f, a->start, a->end) - a->start)) {
			return -GP_ERR_NOMEM;
		}
		t->site[r] = map_asite(f, a->name, a->tid);
		CHECK_ID(t->site[r]);
		if (!(f->drop & GPA_DROP_API_IDS)) {
			SET_OPT_(t, cbid, r, a->cbid);
			SET_OPT_(t, domain, r, a->domain);
		}
		t->corr[r] = a->correlation;
		t->nvtx[r] = GPA_NONE;
		SET_OPT_(t, ret, r, a->return_value);
	}
	return 0;
}

static int take_sync(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_syncs *t = &f->m->sync;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_syncs_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_sync *s = (const void *)rec;
		if (s->type == 5) {
			struct gpa_evrec e = {f->proc, s->correlation, s->stream, s->event_id,
					      s->event_sync_id};
			if (gp_vec_push(&f->m->evrec, e)) {
				return -GP_ERR_NOMEM;
			}
			continue;
		}
		size_t r = t->n++;
		t->start[r] = s->start;
		t->end[r] = end_of(f, s->start, s->end);
		t->corr[r] = s->correlation;
		t->stream[r] = s->stream;
		t->api[r] = GPA_NONE;
		t->proc[r] = f->proc;
		t->context[r] = s->context;
		t->event_id[r] = s->event_id;
		t->dev_id[r] = s->device_plus1 ? s->device_plus1 - 1 : GPA_NONE;
		t->sync_id[r] = s->event_sync_id;
		t->rec_corr[r] = s->record_correlation;
		t->rec_stream[r] = s->record_stream;
		t->rec_api[r] = GPA_NONE;
		t->type[r] = s->type;
	}
	return 0;
}

static int take_nvtx(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_nvtxs *t = &f->m->nvtx;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_nvtxs_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_nvtx *n = (const void *)rec;
		size_t r = t->n++;
		t->start[r] = n->start;
		t->end[r] = n->end < n->start ? n->start : n->end;
		t->name[r] = map_str(f, n->message);
		t->domain[r] = map_str(f, n->domain);
		CHECK_ID(t->name[r]);
		CHECK_ID(t->domain[r]);
		t->thread[r] = map_thread(f, n->start_tid);
		CHECK_ID(t->thread[r]);
		t->parent[r] = GPA_NONE;
		t->color[r] = n->color;
		t->depth[r] = 0;
		t->type[r] = n->type;
		if (n->args) {
			uint32_t a = map_str(f, n->args);
			CHECK_ID(a);
			SET_OPT_(t, args, r, a);
		} else {
			SET_OPT_(t, args, r, 0u);
		}
		/* Domains repeat: decide once per run of the same one. */
		if (r == 0 || t->domain[r] != t->domain[r - 1]) {
			t->origin[r] = (uint8_t)gpa_range_origin_of(gpa_model_str(f->m, t->domain[r]));
		} else {
			t->origin[r] = t->origin[r - 1];
		}
	}
	return 0;
}

enum gpa_range_origin gpa_range_origin_of(const char *domain)
{
	if (!strcmp(domain, "cpu_op") || !strcmp(domain, "Operator")) {
		return GPA_RANGE_CPU_OP;
	}
	if (!strcmp(domain, "user_annotation")) {
		return GPA_RANGE_ANNOTATION;
	}
	if (!strcmp(domain, "python_function")) {
		return GPA_RANGE_PYTHON;
	}
	if (!strcmp(domain, "gpu_user_annotation")) {
		return GPA_RANGE_GPU_ANNOTATION;
	}
	return GPA_RANGE_NVTX;
}

static int take_overhead(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_overheads *t = &f->m->ovh;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_overheads_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_overhead *o = (const void *)rec;
		size_t r = t->n++;
		t->start[r] = o->start;
		t->end[r] = o->end < o->start ? o->start : o->end;
		t->kind[r] = o->overhead_kind;
		t->proc[r] = f->proc;
	}
	return 0;
}

static int take_process(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_proc *p = &f->m->procs.v[f->proc];
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_process *pr = (const void *)rec;
		if (pr->phase == 2 && p->pid) {
			continue;
		}
		p->pid = pr->pid;
		p->rank = pr->rank;
		p->world_size = pr->world_size;
		p->host = map_str(f, pr->host);
		p->cmdline = map_str(f, pr->cmdline);
		const char *st = pr->settings ? gpt_reader_string(f->r, pr->settings) : NULL;
		p->ts_epoch_decimals = st && strcmp(st, GPA_KINETO_SETTINGS_EPOCH_DECIMALS) == 0;
		CHECK_ID(p->host);
		CHECK_ID(p->cmdline);
	}
	return 0;
}

static int take_device(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_device *d = (const void *)rec;
		uint32_t di = map_dev(f, d->id);
		CHECK_ID(di);
		struct gpa_dev *md = &f->m->devs.v[di];
		md->name = map_str(f, d->name);
		CHECK_ID(md->name);
		md->cc_major = d->cc_major;
		md->cc_minor = d->cc_minor;
		md->num_sms = d->num_sms;
		md->global_mem_bytes = d->global_mem_bytes;
		md->global_mem_bw_kbps = d->global_mem_bw_kbps;
		md->warp_size = d->warp_size;
		md->max_warps_per_sm = d->max_warps_per_sm;
		md->max_threads_per_sm = d->max_threads_per_sm;
		md->max_blocks_per_sm = d->max_blocks_per_sm;
		md->max_threads_per_block = d->max_threads_per_block;
		md->max_regs_per_sm = d->max_regs_per_sm;
		md->max_regs_per_block = d->max_regs_per_block;
		md->max_smem_per_sm = d->max_smem_per_sm;
		md->max_smem_per_block = d->max_smem_per_block;
		md->max_smem_per_block_optin = d->max_smem_per_block_optin;
		md->reserved_smem_per_block = d->reserved_smem_per_block;
		md->core_clock_khz = d->core_clock_khz;
		md->mem_clock_khz = d->mem_clock_khz;
		md->mem_bus_width_bits = d->mem_bus_width_bits;
		md->has_device_record = true;
	}
	return 0;
}

static int take_thread(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_thread *th = (const void *)rec;
		uint32_t ti = map_thread(f, th->tid);
		CHECK_ID(ti);
		uint32_t name = map_str(f, th->name);
		CHECK_ID(name);
		f->m->threads.v[ti].name = name;
	}
	return 0;
}

static int take_clock(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_clock *c = (const void *)rec;
		if (!f->have_anchor && c->realtime) {
			f->have_anchor = true;
			f->offset = (int64_t)(c->realtime - c->ts);
		}
	}
	return 0;
}

static int take_loss(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_proc *p = &f->m->procs.v[f->proc];
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_loss *l = (const void *)rec;
		p->losses[l->cause < GPT_LOSS__MAX ? l->cause : 0] += l->count;
	}
	return 0;
}

static int take_stack_node(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		if (gpa_stacks_add_node(f->m, f->proc, (const void *)rec)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int take_stack(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		if (gpa_stacks_add_stack(f->m, f->proc, (const void *)rec)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int take_module(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_module *mo = (const void *)rec;
		uint32_t path = map_str(f, mo->path), bid = map_str(f, mo->build_id);
		CHECK_ID(path);
		CHECK_ID(bid);
		if (gpa_stacks_add_module(f->m, f->proc, mo, path, bid)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int take_nccl(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_nccl *r = (const void *)rec;
		uint32_t fn = map_str(f, r->func), al = map_str(f, r->algorithm);
		uint32_t pr = map_str(f, r->protocol), cn = map_str(f, r->comm_name);
		CHECK_ID(fn);
		CHECK_ID(al);
		CHECK_ID(pr);
		CHECK_ID(cn);
		if (gpa_nccl_add_op(f->m, f->proc, r, fn, al, pr, cn)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int take_nccl_channel(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		if (gpa_nccl_add_channel(f->m, f->proc, (const void *)rec)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int take_extcorr(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		if (gpa_nccl_add_extcorr(f->m, f->proc, (const void *)rec)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

/* The row of gpa_model.mem_where for a memory event of this file; GPA_NONE out of memory. */
static uint32_t map_where(struct file_ctx *f, const struct gpt_memory *r)
{
	struct gpa_model *m = f->m;
	bool host = r->flags & GPT_MEMORY_HOST;

	for (size_t i = m->mem_where.n; i-- > 0;) {
		const struct gpa_mem_where *w = &m->mem_where.v[i];
		if (w->proc == f->proc && w->dev_id == r->device && w->dev_type == r->device_type &&
		    w->host == host) {
			return (uint32_t)i;
		}
	}
	struct gpa_mem_where w = {.proc = f->proc,
				  .dev_id = r->device,
				  .dev_type = r->device_type,
				  .host = host};
	if (m->mem_where.n >= GPA_NONE - 1 || gp_vec_push(&m->mem_where, w)) {
		return GPA_NONE;
	}
	return (uint32_t)(m->mem_where.n - 1);
}

/*
 * Memory events come in long runs from one thread and one device: the last
 * thread and place are kept, so most records cost no lookup.
 */
static int take_memory(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_mems *t = &f->m->mem;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;
	uint32_t last_tid = 0, last_thread = GPA_NONE, last_where = GPA_NONE;
	uint32_t wdev = 0;
	uint8_t wtype = 0, whost = 0;

	if (t->n + ch->count > UINT32_MAX - 1) {
		return -GP_ERR_NOMEM;
	}
	if (gpa_mems_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_memory *r = (const void *)rec;
		if (r->op != GPT_MEMORY_ALLOC && r->op != GPT_MEMORY_FREE) {
			continue; /* an operation this version does not know */
		}
		size_t k = t->n++;
		t->ts[k] = r->ts;
		t->addr[k] = r->address;
		t->bytes[k] = r->bytes;
		SET_OPT_(t, total_alloc, k, r->total_allocated);
		SET_OPT_(t, total_res, k, r->total_reserved);
		SET_OPT_(t, corr, k, r->correlation);
		if (!r->tid) {
			t->thread[k] = GPA_NONE;
		} else if (r->tid == last_tid && last_thread != GPA_NONE) {
			t->thread[k] = last_thread;
		} else {
			last_thread = map_thread(f, r->tid);
			CHECK_ID(last_thread);
			last_tid = r->tid;
			t->thread[k] = last_thread;
		}
		uint8_t host = (r->flags & GPT_MEMORY_HOST) != 0;
		if (last_where == GPA_NONE || r->device != wdev || r->device_type != wtype ||
		    host != whost) {
			last_where = map_where(f, r);
			CHECK_ID(last_where);
			wdev = r->device;
			wtype = r->device_type;
			whost = host;
		}
		t->where[k] = last_where;
		t->op[k] = r->op;
		t->flags[k] = r->flags;
	}
	return 0;
}

/* The kinds the model keeps; the others (contexts, streams, metrics...) are skipped. */
static const take_fn take_kind[GPT_KIND__MAX] = {
	[GPT_KIND_KERNEL] = take_kernel,
	[GPT_KIND_MEMCPY] = take_memcpy,
	[GPT_KIND_MEMSET] = take_memset,
	[GPT_KIND_API] = take_api,
	[GPT_KIND_SYNC] = take_sync,
	[GPT_KIND_NVTX] = take_nvtx,
	[GPT_KIND_OVERHEAD] = take_overhead,
	[GPT_KIND_PROCESS] = take_process,
	[GPT_KIND_DEVICE] = take_device,
	[GPT_KIND_THREAD] = take_thread,
	[GPT_KIND_CLOCK] = take_clock,
	[GPT_KIND_LOSS] = take_loss,
	[GPT_KIND_STACK_NODE] = take_stack_node,
	[GPT_KIND_STACK] = take_stack,
	[GPT_KIND_MODULE] = take_module,
	[GPT_KIND_NCCL] = take_nccl,
	[GPT_KIND_NCCL_CHANNEL] = take_nccl_channel,
	[GPT_KIND_EXTCORR] = take_extcorr,
	[GPT_KIND_MEMORY] = take_memory,
};

static int take_chunk(struct file_ctx *f, const struct gpt_chunk *ch)
{
	take_fn take = (unsigned)ch->kind < GPT_KIND__MAX ? take_kind[ch->kind] : NULL;

	if (take) {
		int ret = take(f, ch);
		if (ret) {
			return ret;
		}
	}
	if (gpa_kind_is_event(ch->kind)) {
		f->m->procs.v[f->proc].events += ch->count;
	}
	return 0;
}

/* First rows of one file in each table (rows are in file order until sorted). */
struct file_rows {
	size_t k0, c0, s0, a0, y0, n0, o0;
};

/* Tables with an end column; kernels and API calls move their start alone. */
#define SHIFT_(tab, from, to)                                                                      \
	for (size_t i_ = (from); i_ < (to); i_++) {                                                \
		(tab).start[i_] += d;                                                              \
		(tab).end[i_] += d;                                                                \
	}
#define SHIFT_START_(starts, from, to)                                                             \
	for (size_t i_ = (from); i_ < (to); i_++) {                                                \
		(starts)[i_] += d;                                                                 \
	}

/*
 * Moves one file's rows onto the model timeline; next: the next file's first
 * rows; ks, as: the kernels' and API calls' starts, decoded.
 */
static void shift_file(struct file_ctx *f, const struct file_rows *next, uint64_t *ks,
		       uint64_t *as)
{
	struct gpa_model *m = f->m;
	uint64_t d = (uint64_t)f->offset;

	SHIFT_START_(ks, f->k0, next ? next->k0 : m->kern.n);
	SHIFT_(m->copy, f->c0, next ? next->c0 : m->copy.n);
	SHIFT_(m->set, f->s0, next ? next->s0 : m->set.n);
	SHIFT_START_(as, f->a0, next ? next->a0 : m->api.n);
	SHIFT_(m->sync, f->y0, next ? next->y0 : m->sync.n);
	SHIFT_(m->nvtx, f->n0, next ? next->n0 : m->nvtx.n);
	SHIFT_(m->ovh, f->o0, next ? next->o0 : m->ovh.n);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

/* A .gpz (a stream's copy for a stream: import/stream.c), named path in messages. */
static int open_gpz(const char *path, struct gpt_reader **r, char *errbuf, size_t errlen)
{
	int fd = gpa_input_open_fd(path);
	int ret;

	if (fd < 0) {
		ret = gpt_reader_open(path, r); /* says why, as it always did */
	} else {
		ret = gpt_reader_open_fd(fd, path, r);
	}
	if (ret) {
		snprintf(errbuf, errlen, "%s", *r ? gpt_reader_last_error(*r) : gp_err_str(ret));
	}
	return ret;
}

/*
 * The reader's limits on an import's temporary .gpz are those of the input
 * it came from, whose importer bounded what it wrote (a regular file: its
 * size; a stream, whose size is not known: none but the format's).
 */
static void import_limits(struct gpt_reader *r, const char *path)
{
	struct stat sb;

	gpt_reader_limit_as(r, stat(path, &sb) || !S_ISREG(sb.st_mode) ? UINT64_MAX
									: (uint64_t)sb.st_size);
}

/*
 * Opens a trace for reading: a .gpz directly; a Kineto JSON or nsys export
 * through its importer into an unlinked temporary .gpz (every analysis then
 * reads every input the same way).
 */
static int open_input(const char *path, const struct gpa_nsys_import_opts *nsys,
		      const struct gp_progress_cb *progress, unsigned threads,
		      struct gpt_reader **r, char *errbuf, size_t errlen)
{
	enum gpa_input_format fmt;
	int ret = gpa_input_detect(path, &fmt, errbuf, errlen);

	*r = NULL;
	if (ret) {
		return ret;
	}
	if (fmt == GPA_INPUT_GPZ) {
		return open_gpz(path, r, errbuf, errlen);
	}
	struct gpt_writer *w = NULL;
	/* A file with no name: nothing is left behind, whatever ends the process. */
	int fd = gp_tmpfile();
	int rfd = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3); /* the writer closes fd */
	if (rfd < 0) {
		snprintf(errbuf, errlen, "%s: cannot create a temporary file in %s: %s", path,
			 gp_tmpdir(), strerror(errno));
		if (fd >= 0) {
			close(fd);
		}
		return -GP_ERR_IO;
	}
	gp_debug("%s: %s, converted through a temporary file in %s", path,
		 fmt == GPA_INPUT_NSYS ? "an Nsight Systems export" : "a Kineto trace",
		 gp_tmpdir());
	const struct gpt_writer_opts wo = {.chunk_records = GPA_IMPORT_CHUNK_RECORDS};
	ret = gpt_writer_open_fd(fd, path, &wo, &w);
	if (!ret) {
		struct gpa_nsys_import_opts no = {.progress = progress};
		if (nsys) {
			no.one_process = nsys->one_process;
			no.process = nsys->process;
		}
		ret = fmt == GPA_INPUT_NSYS
			      ? gpa_import_nsys_opts(path, w, &no, NULL, errbuf, errlen)
			      : gpa_import_kineto_threads(path, w, progress, threads, errbuf,
							  errlen);
		if (ret) {
			gpt_writer_abandon(w);
		} else {
			ret = gpt_writer_close(w);
			if (ret) {
				snprintf(errbuf, errlen, "%s: cannot write the converted trace: %s",
					 path, gp_err_str(ret));
			}
		}
	} else {
		snprintf(errbuf, errlen, "%s: %s", path, gp_err_str(ret));
	}
	if (!ret) {
		ret = gpt_reader_open_fd(rfd, path, r);
		if (ret) {
			snprintf(errbuf, errlen, "%s", *r ? gpt_reader_last_error(*r) : gp_err_str(ret));
		} else {
			import_limits(*r, path);
		}
	} else {
		close(rfd);
	}
	return ret;
}

/*
 * What a damaged file kept: where it was cut, where the first corrupt chunk
 * was. A file that was damaged and gave no record at all is an error: the
 * analyses would report an empty run as if it were one.
 */
static int damage(struct gpt_reader *r, const struct gpt_reader_status *st, struct gpa_proc *p,
		  char *errbuf, size_t errlen)
{
	size_t np;
	const struct gpt_problem *pr = gpt_reader_problems(r, &np);

	p->truncated = st->truncated;
	p->truncated_at = st->truncated_at;
	p->has_footer = st->has_footer;
	p->corrupt_chunks = st->problems;
	p->records = 0;
	for (size_t k = 0; k < GPT_KIND__MAX; k++) {
		p->records += st->records[k];
	}
	for (size_t i = 0; i < np; i++) {
		if (pr[i].err != -GP_ERR_TRUNCATED) {
			p->corrupt_at = pr[i].offset;
			break;
		}
	}
	if (p->records || (!st->truncated && !st->problems)) {
		return 0;
	}
	if (np) {
		snprintf(errbuf, errlen, "%s: no records could be read: chunk %" PRIu32
			 " at offset %" PRIu64 ": %s", p->path, pr[0].chunk_index, pr[0].offset,
			 pr[0].reason);
	} else {
		snprintf(errbuf, errlen, "%s: no records could be read: %s at offset %" PRIu64,
			 p->path, st->truncated ? "truncated" : "corrupt",
			 st->truncated ? st->truncated_at : p->corrupt_at);
	}
	return st->truncated ? -GP_ERR_TRUNCATED : -GP_ERR_FORMAT;
}

int gpa_input_open(const char *path, struct gpt_reader **r, int *format, char *errbuf,
		   size_t errlen)
{
	enum gpa_input_format fmt = GPA_INPUT_UNKNOWN;
	int ret = gpa_input_is_stream(path) ? gpa_stream_spool(path, errbuf, errlen) : 0;

	*r = NULL;
	if (ret) {
		return ret;
	}
	ret = gpa_input_detect(path, &fmt, errbuf, errlen);
	if (format) {
		*format = ret ? GPA_INPUT_GPZ : (int)fmt;
	}
	if (ret) {
		/* Unreadable: the trace reader says why, as it did before imports were read. */
		ret = gpt_reader_open(path, r);
		snprintf(errbuf, errlen, "%s", *r ? gpt_reader_last_error(*r) : gp_err_str(ret));
		return ret ? ret : -GP_ERR_IO;
	}
	return open_input(path, NULL, NULL, 1, r, errbuf, errlen);
}

/* nsys: one process of an export (NULL: the whole input as one process). */
/* ahead: inputs converted on worker threads (NULL: none), of which path is number idx. */
/*
 * The pages of the columns a file will fill, faulted in on a thread of their
 * own: the calling thread, which takes every record into the columns, is
 * what a load waits for (the decoding threads are mostly idle), and a
 * quarter to a third of its time went to the kernel zeroing the pages it
 * touched first. The columns are filled front to back together, so they
 * are faulted in together, a slice of each at a time, ahead of the writer.
 */
#define PREFAULT_SLICES 64
#define PREFAULT_MIN_BYTES (16u << 20) /* less is not worth a thread */

struct prefault {
	struct {
		char *p;
		size_t n;
	} r[64];
	size_t nr, bytes;
	atomic_bool stop;
	pthread_t th;
	bool running;
};

#define PREFAULT_COL_(type, col)                                                                   \
	if (t->col && p->nr < GP_ARRAY_SIZE(p->r) && t->cap > n0) {                                \
		p->r[p->nr].p = (char *)t->col + n0 * sizeof(type);                                \
		p->r[p->nr].n = (t->cap - n0) * sizeof(type);                                      \
		p->bytes += p->r[p->nr++].n;                                                       \
	}
#define PREFAULT_TABLE_(tname, COLS, OPT)                                                          \
	static void tname##_prefault(struct prefault *p, const struct tname *t, size_t n0)         \
	{                                                                                          \
		COLS(PREFAULT_COL_)                                                                \
		OPT(PREFAULT_COL_)                                                                 \
	}
PREFAULT_TABLE_(gpa_kernels, GPA_KERNEL_COLS, GPA_KERNEL_OPT_COLS_)
PREFAULT_TABLE_(gpa_apis, GPA_API_COLS, GPA_API_OPT_COLS_)
PREFAULT_TABLE_(gpa_gpus, GPA_GPU_COLS, GPA_NO_COLS_)

static void *prefault_main(void *arg)
{
	struct prefault *p = arg;

	for (size_t s = 0; s < PREFAULT_SLICES && !atomic_load(&p->stop); s++) {
		for (size_t i = 0; i < p->nr; i++) {
			size_t a = p->r[i].n * s / PREFAULT_SLICES;
			size_t b = p->r[i].n * (s + 1) / PREFAULT_SLICES;
			gp_prefault(p->r[i].p + a, b - a);
		}
	}
	return NULL;
}

/* Starts faulting in the kernel and API rows from k0 and a0 on (when large and threads > 1). */
static void prefault_start(struct prefault *p, const struct gpa_model *m, size_t k0, size_t a0,
			   unsigned threads)
{
	p->nr = p->bytes = 0;
	atomic_init(&p->stop, false);
	p->running = false;
	gpa_kernels_prefault(p, &m->kern, k0);
	gpa_apis_prefault(p, &m->api, a0);
	/* the timeline's index, built after the load: its rows' pages too */
	gpa_gpus_prefault(p, &m->gpu, k0 + m->copy.n + m->set.n);
	if (threads > 1 && p->bytes >= PREFAULT_MIN_BYTES) {
		p->running = pthread_create(&p->th, NULL, prefault_main, p) == 0;
	}
}

static void prefault_stop(struct prefault *p)
{
	if (p->running) {
		atomic_store(&p->stop, true);
		pthread_join(p->th, NULL);
		p->running = false;
	}
}

static int load_file(struct gpa_model *m, const char *path, const struct gpa_nsys_import_opts *nsys,
		     const struct gpa_load_opts *opts, struct gp_u64map *maps, uint64_t *done,
		     uint64_t total, uint64_t *records, struct gpa_import_ahead *ahead, size_t idx,
		     char *errbuf, size_t errlen)
{
	struct file_ctx f = {.m = m, .m_funcs = &maps[0], .m_shapes = &maps[1],
			     .m_ksites = &maps[2], .m_asites = &maps[3],
			     .drop = opts ? opts->drop : 0};
	for (size_t i = 0; i < SITE_CACHE; i++) {
		f.kc[i].site = f.ac[i].site = GPA_NONE;
	}
	struct gpt_reader_status st;
	struct gpt_chunk ch;
	struct gpa_proc proc = {.rank = -1};
	struct prefault pf = {.running = false};
	int ret;

	proc.path = strdup(path);
	if (!proc.path || gp_vec_push(&m->procs, proc)) {
		free(proc.path);
		return -GP_ERR_NOMEM;
	}
	f.proc = (uint32_t)(m->procs.n - 1);
	if (gp_u64map_reserve(&f.threads, 64) || gp_u64map_reserve(&f.funcs, 256)) {
		gp_u64map_release(&f.threads);
		return -GP_ERR_NOMEM;
	}
	ret = gpa_import_ahead_take(ahead, idx, &f.r, errbuf, errlen);
	if (ret == 1) {
		ret = open_input(path, nsys, opts ? &opts->progress : NULL,
				 opts ? opts->threads : 1, &f.r, errbuf, errlen);
	}
	if (ret) {
		goto out;
	}
	if (opts && gpt_reader_set_threads(f.r, opts->threads)) {
		gp_debug("%s: no worker threads (out of memory): reading on one", path);
	}
	/* Size the tables once from the chunk headers: no growth while reading. */
	uint64_t counts[GPT_KIND__MAX];
	size_t k0 = m->kern.n, a0 = m->api.n;
	if (!gpt_reader_count_records(f.r, counts) &&
	    (gpa_kernels_reserve(&m->kern, m->kern.n + counts[GPT_KIND_KERNEL]) ||
	     gpa_memcpys_reserve(&m->copy, m->copy.n + counts[GPT_KIND_MEMCPY]) ||
	     gpa_memsets_reserve(&m->set, m->set.n + counts[GPT_KIND_MEMSET]) ||
	     gpa_apis_reserve(&m->api, m->api.n + counts[GPT_KIND_API]) ||
	     gpa_syncs_reserve(&m->sync, m->sync.n + counts[GPT_KIND_SYNC]) ||
	     gpa_nvtxs_reserve(&m->nvtx, m->nvtx.n + counts[GPT_KIND_NVTX]) ||
	     gpa_overheads_reserve(&m->ovh, m->ovh.n + counts[GPT_KIND_OVERHEAD]) ||
	     gpa_mems_reserve(&m->mem, m->mem.n + counts[GPT_KIND_MEMORY]) ||
	     gpa_gpus_reserve(&m->gpu, m->kern.cap + m->copy.cap + m->set.cap))) {
		snprintf(errbuf, errlen, "%s: out of memory loading the trace", path);
		ret = -GP_ERR_NOMEM;
		goto out;
	}
	prefault_start(&pf, m, k0, a0, opts ? opts->threads : 1);
	while ((ret = gpt_reader_next(f.r, &ch)) > 0) {
		ret = take_chunk(&f, &ch);
		if (ret) {
			snprintf(errbuf, errlen, "%s: out of memory loading the trace", path);
			goto out;
		}
		*records += ch.count;
		if (opts && opts->progress.fn) {
			struct gp_progress pg = {.what = "reading", .unit = "bytes",
						 .done = *done + ch.offset, .total = total,
						 .records = *records};
			gp_progress_call(&opts->progress, &pg);
		}
	}
	prefault_stop(&pf);
	if (ret < 0) {
		snprintf(errbuf, errlen, "%s", gpt_reader_last_error(f.r));
		goto out;
	}
	gpt_reader_get_status(f.r, &st);
	*done += st.file_bytes;
	ret = damage(f.r, &st, &m->procs.v[f.proc], errbuf, errlen);
	if (ret) {
		goto out;
	}
	struct gpa_proc *p = &m->procs.v[f.proc];
	p->aligned = f.have_anchor;
	p->clock_offset = f.have_anchor ? f.offset : 0;
	p->anchor_offset = p->clock_offset;
	ret = 0;
out:
	prefault_stop(&pf);
	gpt_reader_free(f.r);
	gp_u64map_release(&f.threads);
	gp_u64map_release(&f.funcs);
	gp_vec_free(&f.remap);
	gp_vec_free(&f.fcache);
	return ret;
}

/* ------------------------------------------------------------ indexes */

#define SORT_TABLE_(tname, tab)                                                                    \
	do {                                                                                       \
		bool moved_;                                                                       \
		tname##_shrink(&(tab));                                                            \
		ret = sort_perm((tab).start, (tab).n, perm, &moved_);                              \
		if (ret) {                                                                         \
			goto out;                                                                  \
		}                                                                                  \
		if (moved_) {                                                                      \
			tname##_permute(&(tab), perm, &scratch, &most);                                    \
		}                                                                                  \
	} while (0)

/* A long list after its table's rows moved: row i was row perm[i]. */
static int remap_long(struct gpa_long_durs *l, const uint32_t *dur, size_t n, const uint32_t *perm)
{
	struct gpa_long_durs out = {0};

	if (!l->n) {
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (dur[i] != GPA_DUR_LONG) {
			continue;
		}
		struct gpa_long_dur e = {(uint32_t)i, gpa_long_dur(l, perm[i])};
		if (gp_vec_push(&out, e)) {
			gp_vec_free(&out);
			return -GP_ERR_NOMEM;
		}
	}
	gp_vec_free(l);
	*l = out;
	return 0;
}

/*
 * Memory events onto the model timeline (their file's offset), then by time,
 * ties in load order (a stable sort).
 */
static int sort_memory(struct gpa_model *m)
{
	struct gpa_mems *t = &m->mem;
	bool shift = false, moved;
	uint32_t *perm;
	void *scratch;
	size_t sn = t->n;
	int ret;

	for (size_t p = 0; p < m->procs.n; p++) {
		shift |= m->procs.v[p].clock_offset != 0;
	}
	for (size_t i = 0; shift && i < t->n; i++) {
		int64_t off = m->procs.v[m->mem_where.v[t->where[i]].proc].clock_offset;
		t->ts[i] = off < 0 && (uint64_t)-off > t->ts[i] ? 0 : t->ts[i] + (uint64_t)off;
	}
	size_t i = 1;
	while (i < t->n && t->ts[i - 1] <= t->ts[i]) {
		i++;
	}
	if (i >= t->n) {
		return 0; /* already in order (the usual case): no permutation to build */
	}
	perm = gp_malloc_big(t->n * sizeof(*perm));
	if (!perm) {
		return -GP_ERR_NOMEM;
	}
	ret = sort_perm(t->ts, t->n, perm, &moved);
	if (!ret && moved) {
		scratch = gp_malloc_big(t->n * sizeof(uint64_t));
		if (!scratch) {
			ret = -GP_ERR_NOMEM;
		} else {
			gpa_mems_permute(t, perm, &scratch, &sn);
			free(scratch);
		}
	}
	free(perm);
	return ret;
}

static int sort_tables(struct gpa_model *m)
{
	size_t most = 0;
	uint32_t *perm;
	void *scratch;
	int ret = 0;

	most = m->api.n > most ? m->api.n : most;
	most = m->sync.n > most ? m->sync.n : most;
	most = m->nvtx.n > most ? m->nvtx.n : most;
	most = m->ovh.n > most ? m->ovh.n : most;
	if (most > UINT32_MAX - 1) {
		return -GP_ERR_RANGE;
	}
	perm = gp_malloc_big((most ? most : 1) * sizeof(*perm));
	scratch = gp_malloc_big((most ? most : 1) * sizeof(uint64_t));
	if (!perm || !scratch) {
		free(perm);
		free(scratch);
		return -GP_ERR_NOMEM;
	}
	/* Kernels, copies and sets stay in file order: gpa_model.gpu is their time order. */
	/* API calls by start (perm: where each row came from), unless in order already */
	gpa_apis_shrink(&m->api);
	size_t in_order = 1;
	while (in_order < m->api.n && gpa_api_start(m, in_order - 1) <= gpa_api_start(m, in_order)) {
		in_order++;
	}
	if (in_order < m->api.n) {
		struct keysrc ks = {.m = m, .api = true};
		bool moved;
		ret = sort_perm_keys(&ks, m->api.n, perm, &moved);
		if (!ret && moved) {
			/* the offsets are from their blocks' bases: encoded anew in the new order */
			uint64_t *v = gp_malloc_big((m->api.n ? m->api.n : 1) * sizeof(*v));
			for (size_t i = 0; v && i < m->api.n; i++) {
				v[i] = gpa_api_start(m, perm[i]);
			}
			if (v) {
				gpa_apis_permute(&m->api, perm, &scratch, &most);
			}
			ret = v ? encode_starts(&m->api_starts, m->api.start_off, v, m->api.n)
				: -GP_ERR_NOMEM;
			free(v);
		}
		ret = ret ? ret : remap_long(&m->api_long, m->api.dur, m->api.n, perm);
		if (ret) {
			goto out;
		}
	}
	SORT_TABLE_(gpa_syncs, m->sync);
	SORT_TABLE_(gpa_overheads, m->ovh);
	/* NVTX: outer ranges before the ranges they enclose when both start together. */
	{
		uint64_t *negend = scratch;
		bool moved;
		gpa_nvtxs_shrink(&m->nvtx);
		for (size_t i = 0; i < m->nvtx.n; i++) {
			negend[i] = UINT64_MAX - m->nvtx.end[i];
		}
		/* negend lives in scratch: sort by it into perm, then permute with another buffer. */
		uint32_t *perm2 = gp_malloc_big((m->nvtx.n ? m->nvtx.n : 1) * sizeof(*perm2));
		uint64_t *tmp = malloc((m->nvtx.n ? m->nvtx.n : 1) * sizeof(*tmp));
		if (!perm2 || !tmp) {
			free(perm2);
			free(tmp);
			ret = -GP_ERR_NOMEM;
			goto out;
		}
		ret = sort_perm(negend, m->nvtx.n, perm2, &moved);
		if (!ret && moved) {
			{
				void *tp = tmp;
				size_t tn = m->nvtx.n;
				gpa_nvtxs_permute(&m->nvtx, perm2, &tp, &tn);
				tmp = tp;
			}
		}
		free(perm2);
		free(tmp);
		if (!ret) {
			SORT_TABLE_(gpa_nvtxs, m->nvtx);
		}
	}
out:
	free(perm);
	free(scratch);
	return ret;
}

/*
 * GPU ops and sync records -> the API call with their correlation id.
 * CUPTI hands out correlation ids from one counter per process, so a table
 * indexed by (id - smallest id) is dense; per process, within limits, else
 * a hash map. Runtime and driver calls may share an id: the outer (earlier)
 * call wins.
 */
struct corr_index {
	uint32_t lo, hi;  /* ids covered by dense */
	uint32_t *dense;  /* api row by id - lo, GPA_NONE */
	struct gp_u64map map; /* when the ids are too sparse */
	/*
	 * Neither, when every API row has an id and the ids rise with the rows
	 * (one process, its calls made on one thread: the common case): the
	 * row is found in api.corr itself, from the last one found.
	 */
	const uint32_t *rising;
	size_t n, hint;
};

/* The row of id c in ci->rising (ascending), searched outwards from the last one found. */
static uint32_t corr_search(struct corr_index *ci, uint32_t c)
{
	const uint32_t *v = ci->rising;
	size_t h = ci->hint, lo, hi, step = 1;

	if (c < ci->lo || c > ci->hi) {
		return GPA_NONE;
	}
	if (v[h] < c) { /* the first row >= c is in (h, n): doubling steps bound it */
		while (h + step < ci->n && v[h + step] < c) {
			step *= 2;
		}
		lo = h + step / 2 + 1;
		hi = h + step < ci->n ? h + step + 1 : ci->n;
	} else { /* in [0, h] */
		while (step <= h && v[h - step] >= c) {
			step *= 2;
		}
		lo = step <= h ? h - step + 1 : 0;
		hi = h - step / 2 + 1;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < c) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo >= ci->n || v[lo] != c) {
		return GPA_NONE;
	}
	ci->hint = lo;
	return (uint32_t)lo;
}

static uint32_t corr_find(struct corr_index *ci, uint32_t corr)
{
	if (ci->rising) {
		return corr_search(ci, corr);
	}
	if (ci->dense) {
		return corr >= ci->lo && corr <= ci->hi ? ci->dense[corr - ci->lo] : GPA_NONE;
	}
	return map_row(&ci->map, corr);
}

static int cmp_evrec(const void *a, const void *b)
{
	const struct gpa_evrec *x = a, *y = b;

	if (x->proc != y->proc) {
		return x->proc < y->proc ? -1 : 1;
	}
	if (x->sync_id != y->sync_id) {
		return x->sync_id < y->sync_id ? -1 : 1;
	}
	return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static bool sync_id_valid(uint64_t id)
{
	return id && id != 0xffffffffu && id != UINT64_MAX;
}

/*
 * Event syncs and stream waits whose source named no recording call (CUPTI,
 * nsys): the event record with the same event sync id, in the same process.
 */
static void link_event_waits(struct gpa_model *m)
{
	const struct gpa_evrec *v = m->evrec.v;
	size_t n = m->evrec.n;

	if (!n) {
		return;
	}
	qsort(m->evrec.v, n, sizeof(*v), cmp_evrec);
	for (size_t i = 0; i < m->sync.n; i++) {
		uint32_t p = m->sync.proc[i];
		uint64_t id = m->sync.sync_id[i];
		if (m->sync.rec_corr[i] || (m->sync.type[i] != 1 && m->sync.type[i] != 2) ||
		    !sync_id_valid(id)) {
			continue;
		}
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (v[mid].proc < p || (v[mid].proc == p && v[mid].sync_id < id)) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		if (lo < n && v[lo].proc == p && v[lo].sync_id == id) {
			m->sync.rec_corr[i] = v[lo].corr;
			m->sync.rec_stream[i] = v[lo].stream;
		}
	}
}

static int link_correlation(struct gpa_model *m, bool corr_in_api)
{
	size_t np = m->procs.n;
	struct corr_index *ci = calloc(np ? np : 1, sizeof(*ci));
	size_t *cnt = calloc(np ? np : 1, sizeof(*cnt));
	int ret = -GP_ERR_NOMEM;

	if (!ci || !cnt) {
		goto out;
	}
	for (size_t p = 0; p < np; p++) {
		ci[p].lo = UINT32_MAX;
	}
	for (size_t i = 0; i < m->api.n; i++) {
		uint32_t p = m->threads.v[gpa_api_thread(m, i)].proc, c = m->api.corr[i];
		if (c) {
			ci[p].lo = c < ci[p].lo ? c : ci[p].lo;
			ci[p].hi = c > ci[p].hi ? c : ci[p].hi;
			cnt[p]++;
		}
	}
	if (np == 1 && cnt[0] == m->api.n && m->api.n) {
		bool rising = true;
		for (size_t i = 1; i < m->api.n && rising; i++) {
			rising = m->api.corr[i] > m->api.corr[i - 1];
		}
		if (rising) {
			ci[0].rising = m->api.corr;
			ci[0].n = m->api.n;
			cnt[0] = 0; /* no index to build */
		}
	}
	for (size_t p = 0; p < np; p++) {
		if (!cnt[p]) {
			continue;
		}
		uint64_t range = (uint64_t)ci[p].hi - ci[p].lo + 1;
		if (range <= 4 * (uint64_t)cnt[p] + 1024) {
			ci[p].dense = malloc(range * sizeof(uint32_t));
			if (!ci[p].dense) {
				goto out;
			}
			memset(ci[p].dense, 0xff, range * sizeof(uint32_t));
		} else if (gp_u64map_reserve(&ci[p].map, cnt[p])) {
			goto out;
		}
	}
	for (size_t i = 0; i < m->api.n && !ci[0].rising; i++) {
		uint32_t p = m->threads.v[gpa_api_thread(m, i)].proc, c = m->api.corr[i];
		if (!c || corr_find(&ci[p], c) != GPA_NONE) {
			continue; /* rows are in start order: the first is the outer call */
		}
		if (ci[p].dense) {
			ci[p].dense[c - ci[p].lo] = (uint32_t)i;
		} else if (gp_u64map_put(&ci[p].map, c, (uint32_t)i) < 0) {
			goto out;
		}
	}
	/*
	 * A kernel's id is in its corr column, or (GPA_DROP_CORR) waits in its
	 * api column: copied out first when NCCL operations will want it
	 * (gpa_nccl_link; build_indexes frees it after).
	 */
	if (corr_in_api && m->nccl && m->kern.n) {
		m->kern.corr = gp_malloc_big(m->kern.n * sizeof(*m->kern.corr));
		if (!m->kern.corr) {
			goto out;
		}
		memcpy(m->kern.corr, m->kern.api, m->kern.n * sizeof(*m->kern.corr));
	}
	for (size_t i = 0; i < m->kern.n; i++) {
		uint32_t c = corr_in_api ? m->kern.api[i] : gpa_col_opt(m->kern.corr, i);
		m->kern.api[i] = corr_find(&ci[gpa_dev_proc(m, gpa_kern_dev(m, i))], c);
	}
	for (size_t i = 0; i < m->copy.n; i++) {
		struct corr_index *c = &ci[gpa_dev_proc(m, m->copy.dev[i])];
		uint32_t a = m->copy.rcorr[i] ? corr_find(c, m->copy.rcorr[i]) : GPA_NONE;
		m->copy.api[i] = a != GPA_NONE ? a : corr_find(c, m->copy.corr[i]);
	}
	for (size_t i = 0; i < m->set.n; i++) {
		m->set.api[i] = corr_find(&ci[gpa_dev_proc(m, m->set.dev[i])], m->set.corr[i]);
	}
	for (size_t i = 0; i < m->sync.n; i++) {
		m->sync.api[i] = corr_find(&ci[m->sync.proc[i]], m->sync.corr[i]);
	}
	link_event_waits(m);
	for (size_t i = 0; i < m->sync.n; i++) {
		if (m->sync.rec_corr[i] && m->sync.proc[i] < np) {
			m->sync.rec_api[i] = corr_find(&ci[m->sync.proc[i]], m->sync.rec_corr[i]);
		}
	}
	ret = 0;
out:
	for (size_t p = 0; ci && p < np; p++) {
		free(ci[p].dense);
		gp_u64map_release(&ci[p].map);
	}
	free(ci);
	free(cnt);
	return ret;
}

/* Rows of a start-sorted table grouped by thread, keeping start order (counting sort). */
static int by_thread(const uint32_t *thread, size_t n, size_t nthreads, uint32_t **rows,
		     size_t **first)
{
	size_t *cnt = calloc(nthreads + 1, sizeof(*cnt));
	uint32_t *r = gp_malloc_big((n ? n : 1) * sizeof(*r));

	if (!cnt || !r) {
		free(cnt);
		free(r);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		cnt[thread[i] + 1]++;
	}
	for (size_t t = 0; t < nthreads; t++) {
		cnt[t + 1] += cnt[t];
	}
	size_t *pos = malloc((nthreads + 1) * sizeof(*pos));
	if (!pos) {
		free(cnt);
		free(r);
		return -GP_ERR_NOMEM;
	}
	memcpy(pos, cnt, (nthreads + 1) * sizeof(*pos));
	for (size_t i = 0; i < n; i++) {
		r[pos[thread[i]]++] = (uint32_t)i;
	}
	free(pos);
	*rows = r;
	*first = cnt;
	return 0;
}

/* One thread's sweep: its next range (rows ni .. ne of the by-thread order) and its stack. */
struct nvtx_sweep {
	size_t ni, ne;
	uint32_t *stack; /* room for its ranges */
	size_t sp;
};

/* Closes the ranges on top of the thread's stack that end by t0. */
static void sweep_pop(const struct gpa_model *m, struct nvtx_sweep *s, uint64_t t0)
{
	while (s->sp && m->nvtx.end[s->stack[s->sp - 1]] <= t0 &&
	       m->nvtx.end[s->stack[s->sp - 1]] != m->nvtx.start[s->stack[s->sp - 1]]) {
		s->sp--;
	}
	/* Zero-length ranges close at once. */
	while (s->sp && m->nvtx.end[s->stack[s->sp - 1]] < t0) {
		s->sp--;
	}
}

/* The thread's ranges that start by t0 (every one left when all) opened in order. */
static void sweep_ranges(struct gpa_model *m, const uint32_t *nrows, struct nvtx_sweep *s,
			 uint64_t t0, bool all)
{
	while (s->ni < s->ne && (all || m->nvtx.start[nrows[s->ni]] <= t0)) {
		uint32_t nr = nrows[s->ni++];
		sweep_pop(m, s, m->nvtx.start[nr]);
		if (m->nvtx.type[nr] != GPT_NVTX_PUSH_POP) {
			continue;
		}
		m->nvtx.parent[nr] = s->sp ? s->stack[s->sp - 1] : GPA_NONE;
		m->nvtx.depth[nr] = (uint16_t)(s->sp < UINT16_MAX ? s->sp : UINT16_MAX);
		s->stack[s->sp++] = nr;
	}
}

/*
 * One sweep over the API calls in start order, each thread with a stack of
 * its open push/pop ranges, opened as the calls reach their starts: gives
 * each range its parent and depth, and each API call its innermost
 * enclosing range (a range starting with the call encloses it). Per thread
 * the same steps as a sweep of that thread alone, with no list of each
 * thread's calls.
 */
static int link_nvtx(struct gpa_model *m)
{
	size_t nth = m->threads.n;
	uint32_t *nrows = NULL, *stack = NULL;
	size_t *nfirst = NULL;
	struct nvtx_sweep *sw = NULL;
	int ret;

	ret = by_thread(m->nvtx.thread, m->nvtx.n, nth, &nrows, &nfirst);
	if (!ret) {
		stack = malloc((m->nvtx.n ? m->nvtx.n : 1) * sizeof(*stack));
		sw = calloc(nth ? nth : 1, sizeof(*sw));
		ret = stack && sw ? 0 : -GP_ERR_NOMEM;
	}
	for (size_t t = 0; !ret && t < nth; t++) {
		sw[t] = (struct nvtx_sweep){nfirst[t], nfirst[t + 1], stack + nfirst[t], 0};
	}
	for (size_t ar = 0; !ret && ar < m->api.n; ar++) {
		struct nvtx_sweep *s = &sw[gpa_api_thread(m, ar)];
		uint64_t t0 = gpa_api_start(m, ar);
		sweep_ranges(m, nrows, s, t0, false);
		sweep_pop(m, s, t0);
		m->api.nvtx[ar] = s->sp ? s->stack[s->sp - 1] : GPA_NONE;
	}
	for (size_t t = 0; !ret && t < nth; t++) {
		sweep_ranges(m, nrows, &sw[t], 0, true);
	}
	free(nrows);
	free(nfirst);
	free(stack);
	free(sw);
	return ret;
}

/*
 * cls[j] = a group for timeline row first + j (rows of one device): one per
 * stream, the first MERGE_RUNS_MAX - 1 streams met; the rest share the last
 * group (the sort is the same, only slower).
 */
static void stream_groups(const struct gpa_model *m, size_t first, size_t n, uint8_t *cls)
{
	uint32_t seen[MERGE_RUNS_MAX - 1], last = 0;
	size_t nseen = 0;
	uint8_t last_cls = 0;

	for (size_t j = 0; j < n; j++) {
		uint32_t st = gpa_gpu_stream(m, first + j);
		if (j && st == last) {
			cls[j] = last_cls;
			continue;
		}
		size_t c = 0;
		while (c < nseen && seen[c] != st) {
			c++;
		}
		if (c == nseen && nseen < MERGE_RUNS_MAX - 1) {
			seen[nseen++] = st;
		}
		last = st;
		last_cls = cls[j] = (uint8_t)c;
	}
}

/*
 * Timeline rows [first, first + n) (one device's, in file order) sorted by
 * (start, file order), the starts read from the tables; tmp and cls have
 * room for n.
 */
static int sort_device(struct gpa_gpus *g, const struct gpa_model *m, size_t first, size_t n,
		       uint32_t *tmp, uint8_t *cls)
{
	struct keysrc ks = {.m = m};

	stream_groups(m, first, n, cls);
	return sort_ops_grouped(&ks, cls, n, g->op + first, tmp);
}

/*
 * The device timelines: every kernel, copy and memset by (device, start,
 * file order). The three tables stay in file order; only this index is
 * sorted. Rows are placed by device at once (a counting sort), then each
 * device's are sorted alone: they come in few sorted runs (one or a few per
 * stream), where the whole timeline's alternate between devices.
 */
static int build_gpu(struct gpa_model *m)
{
	struct gpa_gpus *g = &m->gpu;
	size_t total = m->kern.n + m->copy.n + m->set.n, nd = m->devs.n, cmax = 1;
	int ret;

	if (m->kern.n > GPA_GPU_ROW_MAX || m->copy.n > GPA_GPU_ROW_MAX ||
	    m->set.n > GPA_GPU_ROW_MAX) {
		return -GP_ERR_RANGE;
	}
	ret = gpa_gpus_reserve(g, total ? total : 1);
	size_t *at = calloc(nd + 1, sizeof(*at));
	if (ret || !at) {
		free(at);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < m->kern.n; i++) {
		at[gpa_kern_dev(m, i) + 1]++;
	}
	for (size_t i = 0; i < m->copy.n; i++) {
		at[m->copy.dev[i] + 1]++;
	}
	for (size_t i = 0; i < m->set.n; i++) {
		at[m->set.dev[i] + 1]++;
	}
	for (size_t d = 0; d < nd; d++) {
		cmax = at[d + 1] > cmax ? at[d + 1] : cmax;
		at[d + 1] += at[d];
		m->devs.v[d].gpu_first = (uint32_t)at[d];
		m->devs.v[d].gpu_count = (uint32_t)(at[d + 1] - at[d]);
	}
#define GPU_ROWS_(tab, DEV, KIND)                                                                  \
	for (size_t i_ = 0; i_ < (tab).n; i_++) {                                                  \
		g->op[at[DEV]++] = (uint32_t)KIND << GPA_GPU_KIND_SHIFT | (uint32_t)i_;            \
	}
	GPU_ROWS_(m->kern, gpa_kern_dev(m, i_), GPA_GPU_KERNEL);
	GPU_ROWS_(m->copy, m->copy.dev[i_], GPA_GPU_MEMCPY);
	GPU_ROWS_(m->set, m->set.dev[i_], GPA_GPU_MEMSET);
#undef GPU_ROWS_
	g->n = total;
	gpa_gpus_shrink(g); /* sized while reading from the chunk headers, which may overcount */
	free(at);
	uint32_t *tmp = gp_malloc_big(cmax * sizeof(*tmp));
	uint8_t *cls = gp_malloc_big(cmax);
	ret = tmp && cls ? 0 : -GP_ERR_NOMEM;
	for (size_t d = 0; !ret && d < nd; d++) {
		ret = sort_device(g, m, m->devs.v[d].gpu_first, m->devs.v[d].gpu_count, tmp, cls);
	}
	free(tmp);
	free(cls);
	return ret;
}

struct gpu_job {
	struct gpa_model *m;
	pthread_t th;
	int ret;
};

static void *build_gpu_main(void *arg)
{
	struct gpu_job *j = arg;

	j->ret = build_gpu(j->m);
	return NULL;
}

static void span(struct gpa_model *m)
{
	bool any = false;

#define SPAN_(tab, START, END)                                                                     \
	for (size_t i_ = 0; i_ < (tab).n; i_++) {                                                  \
		if (!any || (START) < m->t0) {                                                     \
			m->t0 = (START);                                                           \
		}                                                                                  \
		if (!any || (END) > m->t1) {                                                       \
			m->t1 = (END);                                                             \
		}                                                                                  \
		any = true;                                                                        \
	}
	SPAN_(m->kern, gpa_kern_start(m, i_), gpa_kern_end(m, i_));
	SPAN_(m->copy, m->copy.start[i_], m->copy.end[i_]);
	SPAN_(m->set, m->set.start[i_], m->set.end[i_]);
	SPAN_(m->api, gpa_api_start(m, i_), gpa_api_end(m, i_));
	SPAN_(m->sync, m->sync.start[i_], m->sync.end[i_]);
	SPAN_(m->nvtx, m->nvtx.start[i_], m->nvtx.end[i_]);
#undef SPAN_
}

/*
 * What the analyses need once every file is read: CPU operators from NVTX,
 * the tables sorted, the links, the device timelines. -GP_ERR_NOMEM or 0.
 */
static int build_indexes(struct gpa_model *m, const struct gpa_load_opts *opts)
{
	/* PyTorch operators recorded as NVTX ranges (emit_nvtx): CPU operators (analyze/ops-nvtx.c) */
	if (gpa_ops_nvtx_convert(m)) {
		return -GP_ERR_NOMEM;
	}
	/*
	 * The device timelines read only the GPU ops' devices, starts and
	 * streams: built on a second thread while this one sorts the calls and
	 * links them (which write none of those).
	 */
	struct gpu_job gj = {.m = m};
	/* their columns move no more once the timeline's thread reads them */
	gpa_kernels_shrink(&m->kern);
	gpa_memcpys_shrink(&m->copy);
	gpa_memsets_shrink(&m->set);
	bool gthread = opts && opts->threads > 1 &&
		       pthread_create(&gj.th, NULL, build_gpu_main, &gj) == 0;
	int ret = sort_tables(m) || sort_memory(m) || link_correlation(m, opts && (opts->drop & GPA_DROP_CORR)) || link_nvtx(m) ||
			  gpa_stacks_link(m) || gpa_nccl_link(m) || gpa_graphs_flag_calls(m)
		      ? -GP_ERR_NOMEM
		      : 0;
	/* the links are made: correlation ids are read by exports alone */
	if (!ret && opts && (opts->drop & GPA_DROP_CORR)) {
		free(m->kern.corr); /* the NCCL operations' copy */
		m->kern.corr = NULL;
		if (!m->mem.corr) {
			free(m->api.corr);
			m->api.corr = NULL;
		}
	}
	if (gthread) {
		pthread_join(gj.th, NULL);
	} else if (!ret) {
		gj.ret = build_gpu(m);
	}
	/* implausible GPU ops leave the timelines before anything counts them */
	uint64_t t = gp_clock_monotonic_ns();
	if (ret || gj.ret || gpa_sanity_prepare(m)) {
		return -GP_ERR_NOMEM;
	}
	gp_debug("sanity pass: %.1f ms, %" PRIu64 " outliers, %" PRIu64 " GPU ops left out",
		 (double)(gp_clock_monotonic_ns() - t) / 1e6, m->bad.outliers,
		 m->bad.outlier_gpu + m->bad.long_gpu);
	gpa_graphs_count_ops(m);
	return 0;
}

int gpa_model_load(struct gpa_model *m, const char *const *paths, size_t npaths,
		   const struct gpa_load_opts *opts, char *errbuf, size_t errlen)
{
	uint64_t total = 0, done = 0, records = 0;
	GP_VEC(struct file_rows) rows = {0};
	/* functions, shapes, kernel sites and API sites, while loading */
	struct gp_u64map maps[4] = {GP_U64MAP_INIT, GP_U64MAP_INIT, GP_U64MAP_INIT, GP_U64MAP_INIT};
	int ret = 0;

	memset(m, 0, sizeof(*m));
	gp_strbuf_init(&m->strs.text);
	for (size_t i = 0; i < GP_ARRAY_SIZE(maps); i++) {
		if (gp_u64map_reserve(&maps[i], 1024)) {
			for (size_t j = 0; j < GP_ARRAY_SIZE(maps); j++) {
				gp_u64map_release(&maps[j]);
			}
			snprintf(errbuf, errlen, "out of memory");
			return -GP_ERR_NOMEM;
		}
	}
	/* an input given twice (the same file, or bytes) is read once: m->bad says which */
	const char **kept = malloc((npaths ? npaths : 1) * sizeof(*kept));
	bool *keep = malloc((npaths ? npaths : 1) * sizeof(*keep));
	size_t nkept = 0;
	if (!kept || !keep || gpa_sanity_unique_inputs(m, paths, npaths, keep)) {
		free(kept);
		free(keep);
		snprintf(errbuf, errlen, "out of memory");
		ret = -GP_ERR_NOMEM;
		goto fail_maps;
	}
	for (size_t i = 0; i < npaths; i++) {
		if (keep[i]) {
			kept[nkept++] = paths[i];
		}
	}
	free(keep);
	paths = kept;
	npaths = nkept;
	for (size_t i = 0; i < npaths; i++) {
		struct stat sb;
		if (!gpa_input_stat(paths[i], &sb)) {
			total += (uint64_t)sb.st_size;
		}
	}
	/* Several Kineto inputs: converted on worker threads, each taken in its turn. */
	struct gpa_import_ahead *ahead =
		gpa_import_ahead_start(paths, npaths, opts ? opts->threads : 0, errlen);
	for (size_t i = 0; i < npaths && !ret; i++) {
		struct gpa_nsys_process *procs = NULL;
		size_t nprocs = 0, main = 0;
		enum gpa_input_format fmt = GPA_INPUT_UNKNOWN;

		/* An nsys export of several processes: each is a process of the model. */
		if (!gpa_input_detect(paths[i], &fmt, errbuf, errlen) && fmt == GPA_INPUT_NSYS &&
		    gpa_nsys_processes(paths[i], &procs, &nprocs, &main, errbuf, errlen)) {
			nprocs = 0; /* the import proper says what is wrong */
		}
		for (size_t k = 0; k < (nprocs > 1 ? nprocs : 1) && !ret; k++) {
			struct gpa_nsys_import_opts one = {.one_process = true};
			struct file_rows fr = {m->kern.n, m->copy.n, m->set.n, m->api.n,
					       m->sync.n, m->nvtx.n, m->ovh.n};
			ret = gp_vec_push(&rows, fr);
			if (ret) {
				snprintf(errbuf, errlen, "out of memory");
				break;
			}
			one.process = nprocs > 1 ? procs[k].key : 0;
			ret = load_file(m, paths[i], nprocs > 1 ? &one : NULL, opts, maps, &done,
					total, &records, ahead, i, errbuf, errlen);
		}
		free(procs);
	}
	gpa_import_ahead_free(ahead);
	free(kept);
fail_maps:
	for (size_t i = 0; i < GP_ARRAY_SIZE(maps); i++) {
		gp_u64map_release(&maps[i]);
	}
	if (ret) {
		gp_vec_free(&rows);
		goto fail;
	}
	/*
	 * One timeline: with several files, each is shifted by its anchor onto
	 * CLOCK_REALTIME when every file has one; a single file keeps its clock.
	 */
	m->aligned = m->procs.n > 0;
	for (size_t i = 0; i < m->procs.n; i++) {
		m->aligned &= m->procs.v[i].aligned;
	}
	if (m->aligned && m->procs.n > 1) {
		/* kernel and API starts are offsets from their blocks' bases: shifted as 64-bit values */
		uint64_t *ks = decode_starts(&m->kern_starts, m->kern.start_off, m->kern.n);
		uint64_t *as = decode_starts(&m->api_starts, m->api.start_off, m->api.n);
		for (size_t i = 0; ks && as && i < m->procs.n; i++) {
			struct file_ctx f = {.m = m, .offset = m->procs.v[i].clock_offset};
			f.k0 = rows.v[i].k0;
			f.c0 = rows.v[i].c0;
			f.s0 = rows.v[i].s0;
			f.a0 = rows.v[i].a0;
			f.y0 = rows.v[i].y0;
			f.n0 = rows.v[i].n0;
			f.o0 = rows.v[i].o0;
			shift_file(&f, i + 1 < m->procs.n ? &rows.v[i + 1] : NULL, ks, as);
		}
		ret = ks && as ? 0 : -GP_ERR_NOMEM;
		if (!ret) {
			ret = encode_starts(&m->kern_starts, m->kern.start_off, ks, m->kern.n);
		}
		if (!ret) {
			ret = encode_starts(&m->api_starts, m->api.start_off, as, m->api.n);
		}
		free(ks);
		free(as);
		if (ret) {
			gp_vec_free(&rows);
			snprintf(errbuf, errlen, "out of memory building the model");
			goto fail;
		}
	} else {
		for (size_t i = 0; i < m->procs.n; i++) {
			m->procs.v[i].clock_offset = 0;
		}
	}
	gp_vec_free(&rows);
	ret = -GP_ERR_NOMEM;
	for (size_t i = 0; i < m->procs.n; i++) {
		m->events += m->procs.v[i].events;
	}
	if (build_indexes(m, opts)) {
		snprintf(errbuf, errlen, "out of memory building the model");
		goto fail;
	}
	span(m);
	gpa_sanity_span(m);
	gp_debug("model of %zu files: %" PRIu64 " events; %zu kernels, %zu copies, %zu memsets, "
		 "%zu API calls, %zu syncs, %zu NVTX ranges (%zu kernels and %zu calls of 4.3 s "
		 "or more); %s", m->procs.n, m->events, m->kern.n,
		 m->copy.n, m->set.n, m->api.n, m->sync.n, m->nvtx.n, m->kern_long.n, m->api_long.n,
		 m->aligned ? "aligned on CLOCK_REALTIME" : "one clock per file");
	return 0;
fail:
	gpa_model_release(m);
	return ret;
}

void gpa_model_release(struct gpa_model *m)
{
	gpa_sanity_release(&m->bad);
	for (size_t i = 0; i < m->procs.n; i++) {
		free(m->procs.v[i].path);
	}
	gp_vec_free(&m->procs);
	gp_vec_free(&m->devs);
	gp_vec_free(&m->threads);
	gp_vec_free(&m->funcs);
	gp_vec_free(&m->shapes);
	gp_vec_free(&m->ksites);
	gp_vec_free(&m->asites);
	gp_vec_free(&m->strs.off);
	gp_strbuf_release(&m->strs.text);
	free(m->strs.slots);
	gpa_kernels_free(&m->kern);
	gpa_memcpys_free(&m->copy);
	gpa_memsets_free(&m->set);
	gpa_apis_free(&m->api);
	gpa_syncs_free(&m->sync);
	gp_vec_free(&m->evrec);
	gpa_nvtxs_free(&m->nvtx);
	gpa_overheads_free(&m->ovh);
	gpa_gpus_free(&m->gpu);
	gp_vec_free(&m->kern_long);
	gp_vec_free(&m->api_long);
	gp_vec_free(&m->kern_starts.base);
	gp_vec_free(&m->kern_starts.far);
	gp_vec_free(&m->api_starts.base);
	gp_vec_free(&m->api_starts.far);
	gpa_stacks_free(m->stacks);
	gpa_nccl_free(m->nccl);
	gpa_mems_free(&m->mem);
	gp_vec_free(&m->mem_where);
	memset(m, 0, sizeof(*m));
}

uint32_t gpa_model_work_devices(const struct gpa_model *m, uint32_t *first)
{
	uint32_t n = 0;

	if (first) {
		*first = GPA_NONE;
	}
	for (size_t d = 0; d < m->devs.n; d++) {
		if (!m->devs.v[d].gpu_count) {
			continue;
		}
		if (first && *first == GPA_NONE) {
			*first = (uint32_t)d;
		}
		n++;
	}
	return n;
}

uint32_t gpa_gpu_stream(const struct gpa_model *m, size_t i)
{
	uint32_t r = gpa_gpu_row(m, i);

	switch (gpa_gpu_kind(m, i)) {
	case GPA_GPU_KERNEL:
		return gpa_kern_stream(m, r);
	case GPA_GPU_MEMCPY:
		return m->copy.stream[r];
	case GPA_GPU_MEMSET:
		return m->set.stream[r];
	default:
		GP_BUG("GPU operation %zu has kind %u", i, gpa_gpu_kind(m, i));
	}
}

/* ------------------------------------------------------------ inputs */

/*
 * File names in natural order: runs of digits compare as numbers, so
 * rank2.gpz comes before rank10.gpz and the ranks load in numeric order.
 */
static int cmp_str(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;

	while (*x && *y) {
		if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
			const char *ex, *ey;
			while (*x == '0' && isdigit((unsigned char)x[1])) {
				x++;
			}
			while (*y == '0' && isdigit((unsigned char)y[1])) {
				y++;
			}
			for (ex = x; isdigit((unsigned char)*ex); ex++) {
			}
			for (ey = y; isdigit((unsigned char)*ey); ey++) {
			}
			if (ex - x != ey - y) {
				return ex - x < ey - y ? -1 : 1;
			}
			int c = strncmp(x, y, (size_t)(ex - x));
			if (c) {
				return c;
			}
			x = ex;
			y = ey;
			continue;
		}
		if (*x != *y) {
			return (unsigned char)*x < (unsigned char)*y ? -1 : 1;
		}
		x++;
		y++;
	}
	if (*x || *y) {
		return *x ? 1 : -1;
	}
	/* Equal but for leading zeros: any fixed order will do. */
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool gpa_is_trace_name(const char *name)
{
	return has_suffix(name, ".gpz") || has_suffix(name, ".json") ||
	       has_suffix(name, ".json.gz") || has_suffix(name, ".sqlite");
}

/* A FIFO, socket or device in a directory (through links): never one of its traces. */
static bool is_special(const struct dirent *de, const char *path)
{
	struct stat sb;

	if (de->d_type == DT_REG || de->d_type == DT_DIR) {
		return false;
	}
	return !stat(path, &sb) && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode);
}

int gpa_expand_inputs(const char *const *args, size_t nargs, char ***out, size_t *nout,
		      char *errbuf, size_t errlen)
{
	GP_VEC(char *) v = {0};
	int ret = 0;

	for (size_t i = 0; i < nargs && !ret; i++) {
		struct stat sb;
		if (stat(args[i], &sb) || !S_ISDIR(sb.st_mode)) {
			/* A stream is read once, into a temporary every reader then opens. */
			if (gpa_input_is_stream(args[i])) {
				ret = gpa_stream_spool(args[i], errbuf, errlen);
				if (ret) {
					break;
				}
			}
			char *s = strdup(args[i]);
			if (!s || gp_vec_push(&v, s)) {
				free(s);
				ret = -GP_ERR_NOMEM;
			}
			continue;
		}
		DIR *d = opendir(args[i]);
		if (!d) {
			snprintf(errbuf, errlen, "%s: cannot open directory: %s", args[i],
				 strerror(errno));
			ret = -GP_ERR_IO;
			break;
		}
		size_t first = v.n;
		struct dirent *de;
		while ((de = readdir(d))) {
			size_t len = strlen(de->d_name);
			if (len < 5 || !gpa_is_trace_name(de->d_name)) {
				continue;
			}
			struct gp_strbuf sb2 = GP_STRBUF_INIT;
			gp_strbuf_addf(&sb2, "%s/%s", args[i], de->d_name);
			char *s = sb2.failed ? NULL : gp_strbuf_detach(&sb2, NULL);
			gp_strbuf_release(&sb2);
			/* A FIFO would block the run, and is read by whoever opens it first. */
			if (s && is_special(de, s)) {
				gpa_stream_note(GPA_STREAM_SKIPPED, s);
				free(s);
				continue;
			}
			if (!s || gp_vec_push(&v, s)) {
				free(s);
				ret = -GP_ERR_NOMEM;
				break;
			}
		}
		closedir(d);
		if (!ret && v.n == first) {
			snprintf(errbuf, errlen, "%s: no traces in the directory (.gpz, .json, .json.gz, "
						 ".sqlite)", args[i]);
			ret = -GP_ERR_NOTFOUND;
		}
		if (!ret) {
			gp_qsort(v.v + first, v.n - first, sizeof(char *), cmp_str);
		}
	}
	if (ret) {
		if (ret == -GP_ERR_NOMEM) {
			snprintf(errbuf, errlen, "out of memory");
		}
		for (size_t i = 0; i < v.n; i++) {
			free(v.v[i]);
		}
		gp_vec_free(&v);
		return ret;
	}
	*out = v.v;
	*nout = v.n;
	return 0;
}
