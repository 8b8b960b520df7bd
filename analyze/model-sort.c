/* SPDX-License-Identifier: MIT */
/*
 * model-sort.c - every table sorted by start time (radix sort, linear in
 * rows, or a merge of the few sorted runs a trace's rows come in), and the
 * device timelines: every kernel, copy and memset by (device, start).
 */
#define GP_LOG_TAG "analyze/model-sort"
#include "base/compat.h"
#include "analyze/model-internal.h"

#include <stdio.h>

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
int gpa_model_sort_memory(struct gpa_model *m)
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

/* Rows of NVTX ranges that start together: longer (later end) first, then by row. */
static int nvtx_tie_cmp(const void *a, const void *b, void *ctx)
{
	const uint64_t *end = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (end[x] != end[y]) {
		return end[x] > end[y] ? -1 : 1;
	}
	return x < y ? -1 : x > y;
}

/* Groups of tied starts up to this long are put in order by insertion. */
#define NVTX_TIE_INSERT 16

/*
 * perm (rows stably by start) with every run of equal starts put in order
 * of end descending, ties by row: the order (start, end descending, row).
 */
static void nvtx_order_ties(const struct gpa_nvtxs *t, uint32_t *perm)
{
	for (size_t i = 0, j; i < t->n; i = j) {
		uint64_t s = t->start[perm[i]];
		bool sorted = true;
		for (j = i + 1; j < t->n && t->start[perm[j]] == s; j++) {
			sorted = sorted && nvtx_tie_cmp(&perm[j - 1], &perm[j], t->end) < 0;
		}
		if (sorted) {
			continue;
		}
		if (j - i > NVTX_TIE_INSERT) {
			qsort_r(perm + i, j - i, sizeof(*perm), nvtx_tie_cmp, t->end);
			continue;
		}
		for (size_t a = i + 1; a < j; a++) {
			uint32_t v = perm[a];
			size_t b = a;
			for (; b > i && nvtx_tie_cmp(&perm[b - 1], &v, t->end) > 0; b--) {
				perm[b] = perm[b - 1];
			}
			perm[b] = v;
		}
	}
}

/*
 * NVTX rows by start, and at one start the enclosing (later-ending) range
 * first, ties by row: one stable sort by start, then the few tied starts
 * ordered among themselves, then one permutation; none when the rows are in
 * that order already (checked first, without allocating). perm: room for
 * the rows; scratch/most as the tables' permute.
 */
static int sort_nvtx(struct gpa_nvtxs *t, uint32_t *perm, void **scratch, size_t *most)
{
	size_t i = 1;
	bool moved;
	int ret;

	gpa_nvtxs_shrink(t);
	while (i < t->n && (t->start[i - 1] < t->start[i] ||
			    (t->start[i - 1] == t->start[i] && t->end[i - 1] >= t->end[i]))) {
		i++;
	}
	if (i >= t->n) {
		return 0;
	}
	ret = sort_perm(t->start, t->n, perm, &moved);
	if (ret) {
		return ret;
	}
	nvtx_order_ties(t, perm);
	gpa_nvtxs_permute(t, perm, scratch, most);
	return 0;
}

int gpa_model_sort_tables(struct gpa_model *m)
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
			ret = v ? gpa_starts_encode(&m->api_starts, m->api.start_off, v, m->api.n)
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
	ret = sort_nvtx(&m->nvtx, perm, &scratch, &most);
out:
	free(perm);
	free(scratch);
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
int gpa_model_build_gpu(struct gpa_model *m)
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

void gpa_model_span(struct gpa_model *m)
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
