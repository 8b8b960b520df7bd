/* SPDX-License-Identifier: MIT */
/*
 * stats.c - the `nsys stats` reports on the model: per-name summaries of
 * kernels, memory operations, API calls and NVTX ranges, the NVTX GPU
 * projection, and the GPU trace order.
 *
 * Grouping never hashes strings per event: rows map to groups through
 * arrays indexed by function row or string id, and only the few distinct
 * names are compared as strings. Values are bucketed by group with one
 * counting pass (8 bytes per event), then each group's median is found by
 * selection, so a report is linear in events plus n log n over names.
 */
#include "base/compat.h"
#include "analyze/stats.h"
#include "analyze/sanity.h"
#include "analyze/model.h"

#include <math.h>

/* ------------------------------------------------------------- names */

static const char *const report_names[GPA_STATS__COUNT] = {
	[GPA_STATS_KERN_SUM] = "cuda_gpu_kern_sum",
	[GPA_STATS_MEM_TIME_SUM] = "cuda_gpu_mem_time_sum",
	[GPA_STATS_MEM_SIZE_SUM] = "cuda_gpu_mem_size_sum",
	[GPA_STATS_API_SUM] = "cuda_api_sum",
	[GPA_STATS_NVTX_SUM] = "nvtx_sum",
	[GPA_STATS_NVTX_GPU_PROJ_SUM] = "nvtx_gpu_proj_sum",
	[GPA_STATS_GPU_TRACE] = "cuda_gpu_trace",
};

const char *gpa_stats_report_name(unsigned report)
{
	return report < GPA_STATS__COUNT ? report_names[report] : NULL;
}

int gpa_stats_report_parse(const char *name)
{
	for (unsigned i = 0; i < GPA_STATS__COUNT; i++) {
		if (!strcmp(name, report_names[i])) {
			return (int)i;
		}
	}
	return -1;
}

/* ENUM_CUDA_MEMCPY_OPER labels; CUPTI's memcpy kinds have the same numbers. */
static const char *const memcpy_names[] = {
	"[CUDA memcpy Unknown]",
	"[CUDA memcpy Host-to-Device]",
	"[CUDA memcpy Device-to-Host]",
	"[CUDA memcpy Host-to-Array]",
	"[CUDA memcpy Array-to-Host]",
	"[CUDA memcpy Array-to-Array]",
	"[CUDA memcpy Array-to-Device]",
	"[CUDA memcpy Device-to-Array]",
	"[CUDA memcpy Device-to-Device]",
	"[CUDA memcpy Host-to-Host]",
	"[CUDA memcpy Peer-to-Peer]",
	"[CUDA memcpy Unified Host-to-Device]",
	"[CUDA memcpy Unified Device-to-Host]",
	"[CUDA memcpy Unified Device-to-Device]",
};

const char *gpa_stats_memcpy_name(unsigned copy_kind)
{
	return copy_kind < GP_ARRAY_SIZE(memcpy_names) ? memcpy_names[copy_kind] : memcpy_names[0];
}

/*
 * ENUM_CUDA_MEM_KIND labels. nsys numbers them from PAGEABLE = 0; the
 * trace keeps CUPTI's numbers, where 0 is UNKNOWN and PAGEABLE is 1.
 */
static const char *const mem_kind_names[] = {
	"Unknown", "Pageable", "Pinned", "Device", "Array", "Managed", "Device Static",
	"Managed Static",
};

const char *gpa_stats_mem_kind_name(unsigned mem_kind)
{
	return mem_kind < GP_ARRAY_SIZE(mem_kind_names) ? mem_kind_names[mem_kind] : "Unknown";
}

/* ------------------------------------------------------- kernel names */

static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

/* Skips one <template-args> ("I...E") of a mangled name, nested ones and literals included. */
static const char *skip_template_args(const char *p)
{
	size_t depth = 0;

	do {
		if (*p >= '1' && *p <= '9') {
			size_t len = 0;
			while (*p >= '0' && *p <= '9' && len < (1u << 20)) {
				len = len * 10 + (size_t)(*p++ - '0');
			}
			if (strnlen(p, len) < len) {
				return NULL;
			}
			p += len;
			continue;
		}
		if (!*p) {
			return NULL;
		}
		if (*p == 'I' || *p == 'N' || *p == 'L' || *p == 'X') {
			depth++;
		} else if (*p == 'E') {
			depth--;
		}
		p++;
	} while (depth);
	return p;
}

/*
 * Itanium mangling: _Z <source-name> or _Z N [qualifiers] <prefix>... E, with
 * <source-name> = <length><identifier>: the last identifier of the name.
 */
static size_t mangled_base(const char *name, const char **start)
{
	const char *p = name + 2, *best = NULL;
	size_t best_len = 0;
	bool nested = *p == 'N';

	if (nested) {
		p++;
		while (*p == 'r' || *p == 'V' || *p == 'K') {
			p++;
		}
	}
	while (p) {
		if (p[0] == 'S' && p[1] == 't') {
			p += 2; /* std:: */
			continue;
		}
		if (nested && p[0] == 'S' && best) {
			break; /* a substitution after a name: not a prefix we follow */
		}
		if (*p == 'L') {
			p++; /* internal linkage */
		}
		if (*p == 'I' && best && nested) {
			p = skip_template_args(p);
			continue;
		}
		if (*p < '1' || *p > '9') {
			break;
		}
		size_t len = 0;
		while (*p >= '0' && *p <= '9' && len < (1u << 20)) {
			len = len * 10 + (size_t)(*p++ - '0');
		}
		if (strnlen(p, len) < len) {
			return 0;
		}
		best = p;
		best_len = len;
		p += len;
		if (!nested) {
			break;
		}
	}
	if (!best) {
		return 0;
	}
	*start = best;
	return best_len;
}

size_t gpa_kernel_base_name(const char *name, const char **start)
{
	size_t n = strlen(name), end = n, depth = 0, begin = 0;

	*start = name;
	if (name[0] == '_' && name[1] == 'Z') {
		size_t len = mangled_base(name, start);
		if (len) {
			return len;
		}
		*start = name;
		return n;
	}
	/* The parameter list: the first top-level '(' right after a name or template list. */
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool after_name = i && (is_ident(name[i - 1]) || name[i - 1] == '>' ||
					(i >= 10 && !strncmp(name + i - 10, "operator()", 10)));
		if (c == '(' && !depth && after_name) {
			if (i >= 8 && !strncmp(name + i - 8, "operator", 8) && name[i + 1] == ')') {
				i++; /* the name operator() */
				continue;
			}
			end = i;
			break;
		}
		if (c == '<' || c == '(' || c == '[') {
			depth++;
		} else if ((c == '>' || c == ')' || c == ']') && depth) {
			depth--;
		}
	}
	/* The last top-level component: after the last "::" or space. */
	depth = 0;
	for (size_t i = 0; i < end; i++) {
		char c = name[i];
		if (c == '<' || c == '(' || c == '[') {
			depth++;
		} else if ((c == '>' || c == ')' || c == ']') && depth) {
			depth--;
		} else if (!depth && c == ':' && name[i + 1] == ':') {
			begin = i + 2;
			i++;
		} else if (!depth && c == ' ') {
			begin = i + 1;
		}
	}
	/* Without its template arguments. */
	size_t stop = begin;
	while (stop < end && name[stop] != '<') {
		stop++;
	}
	if (stop == begin) {
		return n; /* nothing recognizable: the whole name */
	}
	*start = name + begin;
	return stop - begin;
}

/* ------------------------------------------------------------ summaries */

/*
 * The summary of n values of type T (a 64-bit and a 32-bit version: most
 * durations fit 32 bits and need half the memory): count, total, extremes,
 * standard deviation and the exact median, found by moving the k-th
 * smallest value to v[k] (introselect: quickselect with a median-of-3 pivot,
 * sorting what is left when it degenerates).
 */
#define DEFINE_SUMMARY_(T, SFX)                                                                    \
	static void swap_##SFX(T *a, T *b)                                                         \
	{                                                                                          \
		T t = *a;                                                                          \
		*a = *b;                                                                           \
		*b = t;                                                                            \
	}                                                                                          \
	static int cmp_##SFX(const void *a, const void *b)                                         \
	{                                                                                          \
		T x = *(const T *)a, y = *(const T *)b;                                            \
		return x < y ? -1 : x > y;                                                         \
	}                                                                                          \
	static void select_kth_##SFX(T *v, size_t n, size_t k)                                     \
	{                                                                                          \
		size_t lo = 0, hi = n - 1, budget = 2 * 64;                                        \
		while (hi > lo) {                                                                  \
			if (!budget--) {                                                           \
				gp_qsort(v + lo, hi - lo + 1, sizeof(*v), cmp_##SFX);              \
				return;                                                            \
			}                                                                          \
			size_t mid = lo + (hi - lo) / 2;                                           \
			if (v[mid] < v[lo]) {                                                      \
				swap_##SFX(&v[mid], &v[lo]);                                       \
			}                                                                          \
			if (v[hi] < v[lo]) {                                                       \
				swap_##SFX(&v[hi], &v[lo]);                                        \
			}                                                                          \
			if (v[hi] < v[mid]) {                                                      \
				swap_##SFX(&v[hi], &v[mid]);                                       \
			}                                                                          \
			T pivot = v[mid];                                                          \
			size_t i = lo, j = hi;                                                     \
			/* Hoare partition: equal values split evenly, so runs of ties stay linear. */ \
			for (;;) {                                                                 \
				while (v[i] < pivot) {                                             \
					i++;                                                       \
				}                                                                  \
				while (v[j] > pivot) {                                             \
					j--;                                                       \
				}                                                                  \
				if (i >= j) {                                                      \
					break;                                                     \
				}                                                                  \
				swap_##SFX(&v[i], &v[j]);                                          \
				i++;                                                               \
				j--;                                                               \
			}                                                                          \
			/* v[lo..j] <= pivot <= v[j+1..hi] */                                      \
			if (k <= j) {                                                              \
				hi = j;                                                            \
			} else {                                                                   \
				lo = j + 1;                                                        \
			}                                                                          \
		}                                                                                  \
	}                                                                                          \
	static void summarize_##SFX(T *v, size_t n, struct gpa_stats_summary *s)                   \
	{                                                                                          \
		memset(s, 0, sizeof(*s));                                                          \
		if (!n) {                                                                          \
			return;                                                                    \
		}                                                                                  \
		s->count = n;                                                                      \
		s->min = UINT64_MAX;                                                               \
		for (size_t i = 0; i < n; i++) {                                                   \
			s->total += v[i];                                                          \
			s->min = v[i] < s->min ? v[i] : s->min;                                    \
			s->max = v[i] > s->max ? v[i] : s->max;                                    \
		}                                                                                  \
		if (n > 1) {                                                                       \
			long double mean = (long double)s->total / (long double)n, ss = 0;         \
			for (size_t i = 0; i < n; i++) {                                           \
				long double d = (long double)v[i] - mean;                          \
				ss += d * d;                                                       \
			}                                                                          \
			s->stddev = (double)sqrtl(ss / (long double)(n - 1));                      \
		}                                                                                  \
		size_t k = n / 2;                                                                  \
		select_kth_##SFX(v, n, k);                                                         \
		if (n & 1) {                                                                       \
			s->median2 = 2 * (uint64_t)v[k];                                           \
		} else {                                                                           \
			uint64_t lower = v[0];                                                     \
			for (size_t i = 1; i < k; i++) {                                           \
				lower = v[i] > lower ? v[i] : lower;                               \
			}                                                                          \
			s->median2 = lower + v[k];                                                 \
		}                                                                                  \
	}
DEFINE_SUMMARY_(uint64_t, u64)
DEFINE_SUMMARY_(uint32_t, u32)

void gpa_stats_summarize(uint64_t *v, size_t n, struct gpa_stats_summary *s)
{
	summarize_u64(v, n, s);
}

/* ------------------------------------------------------------- results */

static char *own(struct gpa_stats *st, const char *s, size_t len)
{
	char *c = strndup(s, len);

	if (!c || gp_vec_push(&st->owned, c)) {
		free(c);
		return NULL;
	}
	return c;
}

void gpa_stats_release(struct gpa_stats *st)
{
	for (size_t i = 0; i < st->owned.n; i++) {
		free(st->owned.v[i]);
	}
	gp_vec_free(&st->owned);
	gp_vec_free(&st->rows);
	free(st->order);
	free(st->func_names);
	memset(st, 0, sizeof(*st));
}

/* Group g's properties while a report is built. */
struct group {
	const char *name;
	uint8_t style;
	uint64_t range_total, gpu_ops, level_sum, child_sum;
};

struct named {
	const char *name;
	uint32_t idx;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * Gives each of n named items a group: equal names share one. group_of[i]
 * is item i's group; groups get their names in *names (borrowed from the
 * items). Returns the number of groups, or -1 when out of memory.
 */
static long group_by_name(const char *const *item_names, size_t n, uint32_t *group_of,
			  const char ***names)
{
	struct named *v = malloc((n ? n : 1) * sizeof(*v));
	const char **gn = malloc((n ? n : 1) * sizeof(*gn));
	long ng = 0;

	if (!v || !gn) {
		free(v);
		free(gn);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		v[i] = (struct named){item_names[i], (uint32_t)i};
	}
	gp_qsort(v, n, sizeof(*v), cmp_named);
	for (size_t i = 0; i < n; i++) {
		if (!i || strcmp(v[i].name, v[i - 1].name)) {
			gn[ng++] = v[i].name;
		}
		group_of[v[i].idx] = (uint32_t)(ng - 1);
	}
	free(v);
	*names = gn;
	return ng;
}

/* Display names of the model's kernel functions under the result's mode. */
static int func_names(const struct gpa_model *m, struct gpa_stats *st)
{
	st->func_names = malloc((m->funcs.n ? m->funcs.n : 1) * sizeof(*st->func_names));
	if (!st->func_names) {
		return -GP_ERR_NOMEM;
	}
	for (size_t f = 0; f < m->funcs.n; f++) {
		const struct gpa_func *fn = &m->funcs.v[f];
		const char *mangled = gpa_model_str(m, fn->name);
		const char *dem = fn->demangled ? gpa_model_str(m, fn->demangled) : mangled;
		switch (st->kname) {
		case GPA_KNAME_MANGLED:
			st->func_names[f] = mangled;
			break;
		case GPA_KNAME_SHORT: {
			const char *b;
			size_t len = gpa_kernel_base_name(dem, &b);
			st->func_names[f] = len == strlen(b) ? b : own(st, b, len);
			if (!st->func_names[f]) {
				return -GP_ERR_NOMEM;
			}
			break;
		}
		default:
			st->func_names[f] = dem;
			break;
		}
	}
	return 0;
}

/* The value of one event of a report and its group; false to skip it. */
struct source {
	const struct gpa_model *m;
	enum gpa_stats_report report;
	size_t n;                 /* events to look at */
	const uint32_t *group_of; /* kernels: by func; API calls: by string id */
	const uint32_t *nvtx_group; /* NVTX reports: by nvtx row (GPA_NONE: skip) */
	const uint64_t *proj_start, *proj_end; /* nvtx_gpu_proj_sum, by nvtx row */
};

enum { MEM_GROUP_MEMSET = GP_ARRAY_SIZE(memcpy_names), MEM_GROUPS };

static inline bool event_at(const struct source *c, size_t i, uint32_t *g, uint64_t *v)
{
	const struct gpa_model *m = c->m;

	switch (c->report) {
	case GPA_STATS_KERN_SUM:
		*g = c->group_of[gpa_kern_func(m, i)];
		*v = gpa_kern_dur(m, i);
		/* as the device timelines: implausible kernels would skew every share */
		return gpa_sanity_keeps(m, gpa_kern_dev(m, i), gpa_kern_start(m, i),
					gpa_kern_end(m, i));
	case GPA_STATS_MEM_TIME_SUM:
	case GPA_STATS_MEM_SIZE_SUM:
		if (i < gpa_copy_rows(m)) {
			unsigned k = gpa_copy_copy_kind(m, i);
			bool size = c->report == GPA_STATS_MEM_SIZE_SUM;
			*g = k < GP_ARRAY_SIZE(memcpy_names) ? k : 0;
			*v = size ? gpa_copy_bytes(m, i)
				  : gpa_copy_end(m, i) - gpa_copy_start(m, i);
			return gpa_sanity_keeps(m, gpa_copy_dev(m, i), gpa_copy_start(m, i),
						gpa_copy_end(m, i));
		}
		bool size = c->report == GPA_STATS_MEM_SIZE_SUM;
		i -= gpa_copy_rows(m);
		*g = MEM_GROUP_MEMSET;
		*v = size ? gpa_set_bytes(m, i) : gpa_set_end(m, i) - gpa_set_start(m, i);
		return gpa_sanity_keeps(m, gpa_set_dev(m, i), gpa_set_start(m, i),
					gpa_set_end(m, i));
	case GPA_STATS_API_SUM:
		*g = c->group_of[gpa_api_name(m, i)];
		*v = gpa_api_dur(m, i);
		return true;
	case GPA_STATS_NVTX_SUM:
		*g = c->nvtx_group[i];
		*v = gpa_nvtx_end(m, i) - gpa_nvtx_start(m, i);
		return *g != GPA_NONE;
	case GPA_STATS_NVTX_GPU_PROJ_SUM:
		*g = c->nvtx_group[i];
		*v = c->proj_end[i] - c->proj_start[i];
		return *g != GPA_NONE;
	default:
		return false;
	}
}

static int cmp_rows(const void *a, const void *b)
{
	const struct gpa_stats_row *x = a, *y = b;
	int c;

	if (x->s.total != y->s.total) {
		return x->s.total > y->s.total ? -1 : 1;
	}
	if (x->s.count != y->s.count) {
		return x->s.count < y->s.count ? -1 : 1;
	}
	c = strcmp(x->name, y->name);
	return c ? c : (x->style > y->style) - (x->style < y->style);
}

/*
 * Summaries of the 32-bit values of groups too large to collect: count,
 * total, extremes and the sum of squared deviations as summarize_u32 takes
 * them (in event order), and the median's one or two ranks by radix select:
 * a histogram of each rank's candidates by 12, then 10, then 10 bits, one
 * pass over the events each, nothing kept per value.
 */
#define BIG_GROUP 65536 /* more values than this: radix select, not collected */
#define SEL_BITS1 12
#define SEL_BITS 10

struct big {
	uint32_t g;
	uint64_t n, total;
	uint32_t min, max;
	long double mean, ss;
	size_t rank[2];     /* the median's ranks: k - 1 and k (n even), k and k (odd) */
	size_t within[2];   /* each rank's rank among the values under its prefix */
	uint32_t prefix[2]; /* the bits found so far */
	uint32_t *h;        /* 1 << SEL_BITS1 counts, then 2 x (1 << SEL_BITS) */
};

/* Ranks r of b found in histogram h of nb buckets: prefix extended by the bucket. */
static void big_pick(struct big *b, const uint32_t *h0, const uint32_t *h1, size_t nb, int bits)
{
	for (int r = 0; r < 2; r++) {
		const uint32_t *h = r ? h1 : h0;
		size_t below = 0, k = 0;
		while (k + 1 < nb && b->within[r] >= below + h[k]) {
			below += h[k++];
		}
		b->within[r] -= below;
		b->prefix[r] = b->prefix[r] << bits | (uint32_t)k;
	}
}

static int summarize_big(const struct source *c, const uint32_t *big_of, struct big *bigs, size_t nb,
			 struct gpa_stats_summary *sum)
{
	uint32_t g;
	uint64_t v;

	for (size_t j = 0; j < nb; j++) {
		bigs[j].h = calloc(1u << SEL_BITS1, sizeof(*bigs[j].h));
		if (!bigs[j].h) {
			return -GP_ERR_NOMEM;
		}
		bigs[j].min = UINT32_MAX;
	}
	for (size_t i = 0; i < c->n; i++) { /* totals, extremes, the top bits */
		if (event_at(c, i, &g, &v) && big_of[g] != GPA_NONE) {
			struct big *b = &bigs[big_of[g]];
			b->total += v;
			b->min = (uint32_t)v < b->min ? (uint32_t)v : b->min;
			b->max = (uint32_t)v > b->max ? (uint32_t)v : b->max;
			b->h[v >> (32 - SEL_BITS1)]++;
		}
	}
	for (size_t j = 0; j < nb; j++) {
		struct big *b = &bigs[j];
		size_t k = b->n / 2;
		b->mean = (long double)b->total / (long double)b->n;
		b->rank[0] = b->within[0] = b->n & 1 ? k : k - 1;
		b->rank[1] = b->within[1] = k;
		big_pick(b, b->h, b->h, 1u << SEL_BITS1, 0);
		memset(b->h, 0, 2 * (1u << SEL_BITS) * sizeof(*b->h)); /* fits: 2^11 <= 2^12 */
	}
	for (int level = 0; level < 2; level++) { /* the next bits; first the deviations too */
		int shift = level ? 0 : SEL_BITS, have = SEL_BITS1 + level * SEL_BITS;
		for (size_t i = 0; i < c->n; i++) {
			if (!event_at(c, i, &g, &v) || big_of[g] == GPA_NONE) {
				continue;
			}
			struct big *b = &bigs[big_of[g]];
			if (!level) {
				long double d = (long double)v - b->mean;
				b->ss += d * d;
			}
			uint32_t top = (uint32_t)(v >> (32 - have)), low = (v >> shift) & ((1u << SEL_BITS) - 1);
			for (int r = 0; r < 2; r++) {
				b->h[r * (1u << SEL_BITS) + low] += top == b->prefix[r];
			}
		}
		for (size_t j = 0; j < nb; j++) {
			struct big *b = &bigs[j];
			big_pick(b, b->h, b->h + (1u << SEL_BITS), 1u << SEL_BITS, SEL_BITS);
			memset(b->h, 0, 2 * (1u << SEL_BITS) * sizeof(*b->h));
		}
	}
	for (size_t j = 0; j < nb; j++) {
		const struct big *b = &bigs[j];
		struct gpa_stats_summary *s = &sum[b->g];
		s->count = b->n;
		s->total = b->total;
		s->min = b->min;
		s->max = b->max;
		s->stddev = b->n > 1 ? (double)sqrtl(b->ss / (long double)(b->n - 1)) : 0;
		s->median2 = (uint64_t)b->prefix[0] + b->prefix[1];
	}
	return 0;
}

/*
 * Buckets the events of c by group, summarizes each non-empty group into
 * st->rows. Values of 32 bits are collected a batch of groups at a time
 * (at most a few MiB of them, one pass over the events a batch) and groups
 * of more than BIG_GROUP values are not collected at all (summarize_big):
 * the same figures as collecting every value, in a bounded scratch.
 */
static int summarize_groups(const struct source *c, const struct group *groups, size_t ng,
			    struct gpa_stats *st)
{
	size_t *first = calloc(ng + 1, sizeof(*first));
	size_t *pos = malloc((ng + 1) * sizeof(*pos));
	struct gpa_stats_summary *sum = calloc(ng ? ng : 1, sizeof(*sum));
	uint32_t *big_of = malloc((ng ? ng : 1) * sizeof(*big_of));
	struct big *bigs = NULL;
	uint64_t *vals = NULL, most = 0;
	uint32_t *vals32 = NULL, g;
	uint64_t v;
	size_t nbig = 0;
	int ret = -GP_ERR_NOMEM;

	if (!first || !pos || !sum || !big_of) {
		goto out;
	}
	for (size_t i = 0; i < c->n; i++) {
		if (event_at(c, i, &g, &v)) {
			first[g + 1]++;
			most = v > most ? v : most;
		}
	}
	for (size_t k = 0; k < ng; k++) {
		big_of[k] = most <= UINT32_MAX && first[k + 1] > BIG_GROUP ? (uint32_t)nbig++ : GPA_NONE;
		first[k + 1] += first[k];
	}
	if (nbig) {
		bigs = calloc(nbig, sizeof(*bigs));
		if (!bigs) {
			goto out;
		}
		for (size_t k = 0; k < ng; k++) {
			if (big_of[k] != GPA_NONE) {
				bigs[big_of[k]].g = (uint32_t)k;
				bigs[big_of[k]].n = first[k + 1] - first[k];
			}
		}
		if (summarize_big(c, big_of, bigs, nbig, sum)) {
			goto out;
		}
	}
	/* the other groups' values, a batch of groups at a time (all at once in 64 bits) */
	size_t budget = most <= UINT32_MAX ? (size_t)1 << 20 : SIZE_MAX;
	size_t room = 0, small = 0; /* the largest group collected; all of them */
	for (size_t k = 0; k < ng; k++) {
		size_t cnt = big_of[k] == GPA_NONE ? first[k + 1] - first[k] : 0;
		room = cnt > room ? cnt : room;
		small += cnt;
	}
	room = room > budget ? room : budget;
	room = room < small ? room : small;
	if (most <= UINT32_MAX) {
		vals32 = gp_malloc_big((room ? room : 1) * sizeof(*vals32));
	} else {
		vals = gp_malloc_big((room ? room : 1) * sizeof(*vals));
	}
	if (!vals && !vals32) {
		goto out;
	}
	for (size_t k0 = 0; k0 < ng;) {
		size_t k1 = k0, held = 0; /* groups [k0, k1): held values */
		while (k1 < ng) {
			size_t cnt = big_of[k1] == GPA_NONE ? first[k1 + 1] - first[k1] : 0;
			if (held + cnt > room) {
				break;
			}
			pos[k1] = held;
			held += cnt;
			k1++;
		}
		if (!held) {
			k0 = k1;
			continue;
		}
		for (size_t i = 0; i < c->n; i++) {
			if (!event_at(c, i, &g, &v) || g < k0 || g >= k1 || big_of[g] != GPA_NONE) {
				continue;
			}
			if (vals32) {
				vals32[pos[g]++] = (uint32_t)v;
			} else {
				vals[pos[g]++] = v;
			}
		}
		for (size_t k = k0; k < k1; k++) {
			size_t cnt = big_of[k] == GPA_NONE ? first[k + 1] - first[k] : 0;
			if (!cnt) {
				continue;
			}
			if (vals32) {
				summarize_u32(vals32 + pos[k] - cnt, cnt, &sum[k]);
			} else {
				summarize_u64(vals + pos[k] - cnt, cnt, &sum[k]);
			}
		}
		k0 = k1;
	}
	for (size_t k = 0; k < ng; k++) {
		struct gpa_stats_row row = {.name = groups[k].name, .style = groups[k].style,
					    .range_total = groups[k].range_total,
					    .gpu_ops = groups[k].gpu_ops,
					    .level_sum = groups[k].level_sum,
					    .child_sum = groups[k].child_sum};
		if (first[k + 1] == first[k]) {
			continue;
		}
		row.s = sum[k];
		if (gp_vec_push(&st->rows, row)) {
			goto out;
		}
		st->grand_total += row.s.total;
	}
	if (st->rows.n) {
		gp_qsort(st->rows.v, st->rows.n, sizeof(*st->rows.v), cmp_rows);
	}
	ret = 0;
out:
	for (size_t j = 0; bigs && j < nbig; j++) {
		free(bigs[j].h);
	}
	free(bigs);
	free(big_of);
	free(sum);
	free(first);
	free(pos);
	free(vals);
	free(vals32);
	return ret;
}

/* ------------------------------------------------------------- reports */

static int kern_sum(const struct gpa_model *m, struct gpa_stats *st)
{
	struct source c = {.m = m, .report = st->report, .n = gpa_kern_rows(m)};
	uint32_t *group_of = malloc((m->funcs.n ? m->funcs.n : 1) * sizeof(*group_of));
	const char **names = NULL;
	struct group *groups = NULL;
	long ng;
	int ret = -GP_ERR_NOMEM;

	if (!group_of || func_names(m, st)) {
		goto out;
	}
	ng = group_by_name(st->func_names, m->funcs.n, group_of, &names);
	if (ng < 0) {
		goto out;
	}
	groups = calloc((size_t)ng + 1, sizeof(*groups));
	if (!groups) {
		goto out;
	}
	for (long k = 0; k < ng; k++) {
		groups[k].name = names[k];
	}
	c.group_of = group_of;
	ret = summarize_groups(&c, groups, (size_t)ng, st);
out:
	free(group_of);
	free(names);
	free(groups);
	return ret;
}

static int mem_sum(const struct gpa_model *m, struct gpa_stats *st)
{
	struct source c = {.m = m, .report = st->report, .n = gpa_copy_rows(m) + gpa_set_rows(m)};
	struct group groups[MEM_GROUPS] = {{0}};

	for (size_t k = 0; k < GP_ARRAY_SIZE(memcpy_names); k++) {
		groups[k].name = memcpy_names[k];
	}
	groups[MEM_GROUP_MEMSET].name = GPA_STATS_MEMSET_NAME;
	return summarize_groups(&c, groups, MEM_GROUPS, st);
}

/*
 * Runtime API names carry a version suffix ("cudaLaunchKernel_v7000"). nsys's
 * cuda_api_sum drops it only when the name's last six characters are "_v"
 * and four digits, so "cudaLaunchKernelExC_v11060" and
 * "cudaStreamGetCaptureInfo_v2_v11030" keep theirs; so do we.
 */
static size_t api_name_len(const char *s)
{
	size_t n = strlen(s);

	if (n <= 6 || s[n - 6] != '_' || s[n - 5] != 'v') {
		return n;
	}
	for (size_t i = n - 4; i < n; i++) {
		if (s[i] < '0' || s[i] > '9') {
			return n;
		}
	}
	return n - 6;
}

static int api_sum(const struct gpa_model *m, struct gpa_stats *st)
{
	size_t nstr = m->strs.off.n + 1;
	struct source c = {.m = m, .report = st->report, .n = gpa_api_rows(m)};
	uint32_t *group_of = malloc(nstr * sizeof(*group_of));
	GP_VEC(uint32_t) ids = {0};
	const char **item_names = NULL, **names = NULL;
	uint32_t *item_group = NULL;
	struct group *groups = NULL;
	long ng;
	int ret = -GP_ERR_NOMEM;

	if (!group_of) {
		goto out;
	}
	memset(group_of, 0xff, nstr * sizeof(*group_of));
	/* The distinct names, once each. */
	for (size_t i = 0; i < gpa_api_rows(m); i++) {
		uint32_t s = gpa_api_name(m, i);
		if (group_of[s] == GPA_NONE) {
			group_of[s] = 0;
			if (gp_vec_push(&ids, s)) {
				goto out;
			}
		}
	}
	item_names = malloc((ids.n ? ids.n : 1) * sizeof(*item_names));
	item_group = malloc((ids.n ? ids.n : 1) * sizeof(*item_group));
	if (!item_names || !item_group) {
		goto out;
	}
	for (size_t k = 0; k < ids.n; k++) {
		const char *s = gpa_model_str(m, ids.v[k]);
		size_t len = api_name_len(s);
		item_names[k] = len == strlen(s) ? s : own(st, s, len);
		if (!item_names[k]) {
			goto out;
		}
	}
	ng = group_by_name(item_names, ids.n, item_group, &names);
	if (ng < 0) {
		goto out;
	}
	for (size_t k = 0; k < ids.n; k++) {
		group_of[ids.v[k]] = item_group[k];
	}
	groups = calloc((size_t)ng + 1, sizeof(*groups));
	if (!groups) {
		goto out;
	}
	for (long k = 0; k < ng; k++) {
		groups[k].name = names[k];
	}
	c.group_of = group_of;
	ret = summarize_groups(&c, groups, (size_t)ng, st);
out:
	free(group_of);
	gp_vec_free(&ids);
	free(item_names);
	free(item_group);
	free(names);
	free(groups);
	return ret;
}

/*
 * NVTX ranges grouped by (name, domain, style): a chain per name string id,
 * almost always one link long.
 */
struct nvtx_key {
	uint32_t name, domain; /* string ids */
	uint32_t next;         /* the next group with this name, GPA_NONE */
	uint8_t type;          /* enum gpt_nvtx_type */
};

struct nvtx_groups {
	uint32_t *head; /* by name string id: its first group, GPA_NONE */
	GP_VEC(struct nvtx_key) keys;
};

static uint32_t nvtx_group_of(struct nvtx_groups *ng, uint32_t name, uint32_t domain,
			      uint8_t type)
{
	for (uint32_t g = ng->head[name]; g != GPA_NONE; g = ng->keys.v[g].next) {
		if (ng->keys.v[g].domain == domain && ng->keys.v[g].type == type) {
			return g;
		}
	}
	struct nvtx_key k = {name, domain, ng->head[name], type};
	if (gp_vec_push(&ng->keys, k)) {
		return GPA_NONE;
	}
	ng->head[name] = (uint32_t)(ng->keys.n - 1);
	return ng->head[name];
}

/*
 * Range names as nsys prints them: nvtx_sum shows the bare name for the
 * default domain and "domain:name" otherwise; nvtx_gpu_proj_sum always
 * prefixes the domain (":name" for the default one).
 */
static const char *range_name(const struct gpa_model *m, struct gpa_stats *st,
			      const struct nvtx_key *k, bool always_domain)
{
	const char *name = gpa_model_str(m, k->name), *dom = gpa_model_str(m, k->domain);
	struct gp_strbuf sb = GP_STRBUF_INIT;

	if (!k->domain && !always_domain) {
		return name;
	}
	gp_strbuf_addf(&sb, "%s:%s", dom, name);
	const char *r = sb.failed ? NULL : own(st, sb.buf, sb.len);
	gp_strbuf_release(&sb);
	return r;
}

/*
 * The NVTX GPU projection. A GPU op belongs to every range that contains
 * the API call that launched it, on the call's thread: its push/pop ranges
 * are api.nvtx and that range's ancestors; its start/end ranges are found
 * by scanning the thread's calls inside each of them. proj_start/proj_end
 * get the first op start and last op end, ops the number of ops.
 */
static int project(const struct gpa_model *m, uint64_t *proj_start, uint64_t *proj_end,
		   uint64_t *ops)
{
	bool any_start_end = false;
	int ret = -GP_ERR_NOMEM;
	size_t *tfirst = NULL;
	uint32_t *trows = NULL, *afirst = NULL, *aops = NULL;

	for (size_t r = 0; r < gpa_nvtx_rows(m); r++) {
		proj_start[r] = UINT64_MAX;
		proj_end[r] = 0;
		ops[r] = 0;
		any_start_end |= gpa_nvtx_type(m, r) == GPT_NVTX_START_END;
	}
#define PROJECT_(r, a, b)                                                                          \
	do {                                                                                       \
		proj_start[r] = (a) < proj_start[r] ? (a) : proj_start[r];                         \
		proj_end[r] = (b) > proj_end[r] ? (b) : proj_end[r];                               \
		ops[r]++;                                                                          \
	} while (0)
	for (size_t g = 0; g < gpa_gpu_rows(m); g++) {
		uint32_t row = gpa_gpu_row(m, g), a;
		switch (gpa_gpu_kind(m, g)) {
		case GPA_GPU_KERNEL:
			a = gpa_kern_api(m, row);
			break;
		case GPA_GPU_MEMCPY:
			a = gpa_copy_api(m, row);
			break;
		default:
			a = gpa_set_api(m, row);
			break;
		}
		if (a == GPA_NONE) {
			continue;
		}
		for (uint32_t r = gpa_api_nvtx(m, a); r != GPA_NONE; r = gpa_nvtx_parent(m, r)) {
			PROJECT_(r, gpa_gpu_start(m, g), gpa_gpu_end(m, g));
		}
	}
	if (!any_start_end || !gpa_api_rows(m)) {
		return 0;
	}
	/* Start/end ranges: the API calls of each thread in start order, their GPU ops. */
	size_t nth = m->threads.n;
	tfirst = calloc(nth + 2, sizeof(*tfirst));
	trows = malloc(gpa_api_rows(m) * sizeof(*trows));
	afirst = calloc(gpa_api_rows(m) + 2, sizeof(*afirst));
	aops = malloc((gpa_gpu_rows(m) ? gpa_gpu_rows(m) : 1) * sizeof(*aops));
	if (!tfirst || !trows || !afirst || !aops) {
		goto out;
	}
	for (size_t i = 0; i < gpa_api_rows(m); i++) {
		tfirst[gpa_api_thread(m, i) + 2]++;
	}
	for (size_t t = 0; t < nth; t++) {
		tfirst[t + 2] += tfirst[t + 1];
	}
	for (size_t i = 0; i < gpa_api_rows(m); i++) {
		trows[tfirst[gpa_api_thread(m, i) + 1]++] = (uint32_t)i;
	}
	/* tfirst[t] .. tfirst[t + 1] now index thread t's calls in trows. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t g = 0; g < gpa_gpu_rows(m); g++) {
			uint32_t row = gpa_gpu_row(m, g);
			uint32_t a = gpa_gpu_kind(m, g) == GPA_GPU_KERNEL   ? gpa_kern_api(m, row)
				     : gpa_gpu_kind(m, g) == GPA_GPU_MEMCPY ? gpa_copy_api(m, row)
									    : gpa_set_api(m, row);
			if (a == GPA_NONE) {
				continue;
			}
			if (!pass) {
				afirst[a + 2]++;
			} else {
				aops[afirst[a + 1]++] = (uint32_t)g;
			}
		}
		if (!pass) {
			for (size_t a = 0; a < gpa_api_rows(m); a++) {
				afirst[a + 2] += afirst[a + 1];
			}
		}
	}
	/* afirst[a] .. afirst[a + 1] index call a's ops in aops. */
	for (size_t r = 0; r < gpa_nvtx_rows(m); r++) {
		if (gpa_nvtx_type(m, r) != GPT_NVTX_START_END) {
			continue;
		}
		uint32_t t = gpa_nvtx_thread(m, r);
		size_t lo = tfirst[t], hi = tfirst[t + 1];
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (gpa_api_start(m, trows[mid]) < gpa_nvtx_start(m, r)) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		for (size_t i = lo; i < tfirst[t + 1]; i++) {
			uint32_t a = trows[i];
			if (gpa_api_start(m, a) > gpa_nvtx_end(m, r)) {
				break;
			}
			if (gpa_api_end(m, a) > gpa_nvtx_end(m, r)) {
				continue;
			}
			for (uint32_t k = afirst[a]; k < afirst[a + 1]; k++) {
				PROJECT_(r, gpa_gpu_start(m, aops[k]), gpa_gpu_end(m, aops[k]));
			}
		}
	}
#undef PROJECT_
	ret = 0;
out:
	free(tfirst);
	free(trows);
	free(afirst);
	free(aops);
	return ret;
}

static int nvtx_sum(const struct gpa_model *m, struct gpa_stats *st)
{
	bool proj = st->report == GPA_STATS_NVTX_GPU_PROJ_SUM;
	size_t nstr = m->strs.off.n + 1, nr = gpa_nvtx_rows(m) ? gpa_nvtx_rows(m) : 1;
	struct nvtx_groups ng = {0};
	struct source c = {.m = m, .report = st->report, .n = gpa_nvtx_rows(m)};
	uint32_t *rgroup = malloc(nr * sizeof(*rgroup));
	uint64_t *pstart = NULL, *pend = NULL, *ops = NULL, *nchild = NULL;
	struct group *groups = NULL;
	int ret = -GP_ERR_NOMEM;

	ng.head = malloc(nstr * sizeof(*ng.head));
	if (!rgroup || !ng.head) {
		goto out;
	}
	memset(ng.head, 0xff, nstr * sizeof(*ng.head));
	if (proj) {
		pstart = malloc(nr * sizeof(*pstart));
		pend = malloc(nr * sizeof(*pend));
		ops = malloc(nr * sizeof(*ops));
		nchild = calloc(nr, sizeof(*nchild));
		if (!pstart || !pend || !ops || !nchild || project(m, pstart, pend, ops)) {
			goto out;
		}
		for (size_t r = 0; r < gpa_nvtx_rows(m); r++) {
			if (ops[r] && gpa_nvtx_type(m, r) == GPT_NVTX_PUSH_POP &&
			    gpa_nvtx_parent(m, r) != GPA_NONE) {
				nchild[gpa_nvtx_parent(m, r)]++;
			}
		}
	}
	for (size_t r = 0; r < gpa_nvtx_rows(m); r++) {
		uint8_t type = gpa_nvtx_type(m, r);
		bool range = type == GPT_NVTX_PUSH_POP || type == GPT_NVTX_START_END;
		rgroup[r] = GPA_NONE;
		if (!range || (proj && !ops[r])) {
			continue;
		}
		rgroup[r] = nvtx_group_of(&ng, gpa_nvtx_name(m, r), gpa_nvtx_domain(m, r), type);
		if (rgroup[r] == GPA_NONE) {
			goto out;
		}
	}
	groups = calloc(ng.keys.n + 1, sizeof(*groups));
	if (!groups) {
		goto out;
	}
	for (size_t k = 0; k < ng.keys.n; k++) {
		groups[k].name = range_name(m, st, &ng.keys.v[k], proj);
		groups[k].style = ng.keys.v[k].type;
		if (!groups[k].name) {
			goto out;
		}
	}
	if (proj) {
		for (size_t r = 0; r < gpa_nvtx_rows(m); r++) {
			struct group *gr;
			if (rgroup[r] == GPA_NONE) {
				continue;
			}
			gr = &groups[rgroup[r]];
			gr->range_total += gpa_nvtx_end(m, r) - gpa_nvtx_start(m, r);
			gr->gpu_ops += ops[r];
			if (gpa_nvtx_type(m, r) == GPT_NVTX_PUSH_POP) {
				gr->level_sum += gpa_nvtx_depth(m, r);
			}
			gr->child_sum += nchild[r];
		}
	}
	c.nvtx_group = rgroup;
	c.proj_start = pstart;
	c.proj_end = pend;
	ret = summarize_groups(&c, groups, ng.keys.n, st);
out:
	free(rgroup);
	free(ng.head);
	gp_vec_free(&ng.keys);
	free(pstart);
	free(pend);
	free(ops);
	free(nchild);
	free(groups);
	return ret;
}

/* All GPU ops by start time: a merge of the per-device runs of gpa_model.gpu. */
static int gpu_trace(const struct gpa_model *m, struct gpa_stats *st)
{
	size_t nd = m->devs.n, nh = 0;
	uint32_t *heap = malloc((nd ? nd : 1) * sizeof(*heap)); /* devices, by their next op */
	uint32_t *next = malloc((nd ? nd : 1) * sizeof(*next));

	st->origin = m->t0;
	st->order = malloc((gpa_gpu_rows(m) ? gpa_gpu_rows(m) : 1) * sizeof(*st->order));
	if (!heap || !next || !st->order || func_names(m, st)) {
		free(heap);
		free(next);
		return -GP_ERR_NOMEM;
	}
#define HEAD_(d) gpa_gpu_start(m, next[d])
#define LESS_(a, b) (HEAD_(a) < HEAD_(b) || (HEAD_(a) == HEAD_(b) && (a) < (b)))
	for (uint32_t d = 0; d < nd; d++) {
		if (!m->devs.v[d].gpu_count) {
			continue;
		}
		next[d] = m->devs.v[d].gpu_first;
		/* sift up */
		size_t i = nh++;
		heap[i] = d;
		while (i && LESS_(heap[i], heap[(i - 1) / 2])) {
			uint32_t t = heap[i];
			heap[i] = heap[(i - 1) / 2];
			heap[(i - 1) / 2] = t;
			i = (i - 1) / 2;
		}
	}
	while (nh) {
		uint32_t d = heap[0];
		const struct gpa_dev *dv = &m->devs.v[d];
		st->order[st->norder++] = next[d]++;
		if (next[d] == dv->gpu_first + dv->gpu_count) {
			heap[0] = heap[--nh];
		}
		/* sift down */
		for (size_t i = 0;;) {
			size_t l = 2 * i + 1, r = l + 1, s = i;
			if (l < nh && LESS_(heap[l], heap[s])) {
				s = l;
			}
			if (r < nh && LESS_(heap[r], heap[s])) {
				s = r;
			}
			if (s == i) {
				break;
			}
			uint32_t t = heap[i];
			heap[i] = heap[s];
			heap[s] = t;
			i = s;
		}
	}
#undef LESS_
#undef HEAD_
	free(heap);
	free(next);
	return 0;
}

int gpa_stats_compute(const struct gpa_model *m, enum gpa_stats_report report,
		      enum gpa_kernel_name kname, struct gpa_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->report = report;
	out->kname = kname;
	if ((unsigned)kname > GPA_KNAME_MANGLED) {
		return -GP_ERR_API;
	}
	switch (report) {
	case GPA_STATS_KERN_SUM:
		return kern_sum(m, out);
	case GPA_STATS_MEM_TIME_SUM:
	case GPA_STATS_MEM_SIZE_SUM:
		return mem_sum(m, out);
	case GPA_STATS_API_SUM:
		return api_sum(m, out);
	case GPA_STATS_NVTX_SUM:
	case GPA_STATS_NVTX_GPU_PROJ_SUM:
		return nvtx_sum(m, out);
	case GPA_STATS_GPU_TRACE:
		return gpu_trace(m, out);
	default:
		return -GP_ERR_API;
	}
}
