/* SPDX-License-Identifier: MIT */
/*
 * model-link.c - the links the analyses follow, made once the tables are
 * sorted: each GPU op and sync to the API call with its correlation id,
 * NVTX nesting and the enclosing range of every API call (one sweep per
 * thread); then the steps of the other parts of the model (CPU operators
 * from NVTX ranges, stacks, NCCL operations, graphs, implausible records),
 * in the order gpa_model_build_indexes() runs them.
 */
#define GP_LOG_TAG "analyze/model-link"
#include "base/compat.h"
#include "analyze/model-internal.h"
#include "analyze/sanity.h"

#include <pthread.h>
#include <stdio.h>

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
	return gpa_map_row(&ci->map, corr);
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
	 * (gpa_nccl_link; gpa_model_build_indexes frees it after).
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

struct gpu_job {
	struct gpa_model *m;
	pthread_t th;
	int ret;
};

static void *build_gpu_main(void *arg)
{
	struct gpu_job *j = arg;

	j->ret = gpa_model_build_gpu(j->m);
	return NULL;
}

/*
 * What the analyses need once every file is read: CPU operators from NVTX,
 * the tables sorted, the links, the device timelines. -GP_ERR_NOMEM or 0.
 */
int gpa_model_build_indexes(struct gpa_model *m, const struct gpa_load_opts *opts)
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
	int ret = gpa_model_sort_tables(m) || gpa_model_sort_memory(m) || link_correlation(m, opts && (opts->drop & GPA_DROP_CORR)) || link_nvtx(m) ||
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
		gj.ret = gpa_model_build_gpu(m);
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
