/* SPDX-License-Identifier: MIT */
/*
 * launches.c - launch and queue analytics (docs/launches.md).
 */
#include "base/compat.h"
#include "analyze/breakdown.h"
#include "analyze/launches.h"
#include "analyze/overview.h"

#include <math.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gpa_launches_opts_init(struct gpa_launches_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->runtime_cutoff_ns = 50000;
	o->delay_cutoff_ns = 100000;
	o->kernel_wait_ns = 30000;
	o->max_queue = 1024;
	o->top = 10;
}

const char *gpa_idle_cat_name(unsigned cat)
{
	static const char *const names[] = {"host_wait", "kernel_wait", "other"};

	return cat < GP_ARRAY_SIZE(names) ? names[cat] : "unknown";
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double quant(const uint64_t *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)pos;

	if (lo + 1 >= n) {
		return (double)v[n - 1];
	}
	return (double)v[lo] + ((double)v[lo + 1] - (double)v[lo]) * (pos - (double)lo);
}

void gpa_launch_dist_of(uint64_t *v, size_t n, struct gpa_launch_dist *d)
{
	double ss = 0;

	memset(d, 0, sizeof(*d));
	d->n = n;
	if (!n) {
		return;
	}
	gp_qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		d->sum += v[i];
	}
	d->mean = (double)d->sum / (double)n;
	for (size_t i = 0; i < n; i++) {
		ss += ((double)v[i] - d->mean) * ((double)v[i] - d->mean);
	}
	d->std = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	d->min = (double)v[0];
	d->max = (double)v[n - 1];
	d->p25 = quant(v, n, 0.25);
	d->p50 = quant(v, n, 0.5);
	d->p75 = quant(v, n, 0.75);
	d->p90 = quant(v, n, 0.9);
}

/* The same over doubles (bandwidths). */
static int cmp_f64(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void dist_f64(double *v, size_t n, struct gpa_launch_dist *d)
{
	double s = 0;

	memset(d, 0, sizeof(*d));
	d->n = n;
	if (!n) {
		return;
	}
	gp_qsort(v, n, sizeof(*v), cmp_f64);
	for (size_t i = 0; i < n; i++) {
		s += v[i];
	}
	d->mean = s / (double)n;
	d->min = v[0];
	d->max = v[n - 1];
	double pos = 0.5 * (double)(n - 1);
	size_t lo = (size_t)pos;
	d->p50 = lo + 1 < n ? v[lo] + (v[lo + 1] - v[lo]) * (pos - (double)lo) : v[n - 1];
}

/* One GPU op, flattened. */
struct op {
	uint64_t start, end, bytes;
	uint64_t api_start, api_end; /* api_end 0: no launch call */
	uint64_t key;                /* proc << 48 | dev << 32 | stream */
	const char *name;
	uint8_t kind, copy_kind;
	bool graph, other_api; /* other_api: the call does not match opts.api_regex */
};

/* Per model string id: 0 not tried, 1 a launch call name that matches, 2 one that does not. */
struct api_filter {
	pcre2_code *re;
	pcre2_match_data *md;
	uint8_t *verdict;
};

static bool api_matches(const struct gpa_model *m, struct api_filter *f, uint32_t name)
{
	if (!f->re) {
		return true;
	}
	if (!f->verdict[name]) {
		const char *s = gpa_model_str(m, name);
		int rc = pcre2_match(f->re, (PCRE2_SPTR)s, strlen(s), 0, 0, f->md, NULL);
		f->verdict[name] = rc >= 0 ? 1 : 2;
	}
	return f->verdict[name] == 1;
}

static int filter_init(const struct gpa_model *m, const char *pat, struct api_filter *f,
		       char *errbuf, size_t errlen)
{
	int errcode;
	PCRE2_SIZE erroff;

	memset(f, 0, sizeof(*f));
	if (!pat) {
		return 0;
	}
	f->re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &errcode, &erroff,
			      NULL);
	if (!f->re && errcode == PCRE2_ERROR_HEAP_FAILED) {
		snprintf(errbuf, errlen, "out of memory");
		return -GP_ERR_NOMEM;
	}
	if (!f->re) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(errcode, msg, sizeof(msg));
		snprintf(errbuf, errlen, "bad launch-call pattern '%s' at offset %zu: %s", pat,
			 (size_t)erroff, (char *)msg);
		return -GP_ERR_API;
	}
	f->md = pcre2_match_data_create_from_pattern(f->re, NULL);
	f->verdict = calloc(m->strs.off.n + 2, 1);
	return f->md && f->verdict ? 0 : -GP_ERR_NOMEM;
}

static void filter_release(struct api_filter *f)
{
	pcre2_match_data_free(f->md);
	pcre2_code_free(f->re);
	free(f->verdict);
}

static void op_of(const struct gpa_model *m, size_t i, struct api_filter *f, struct op *o)
{
	uint32_t r = gpa_gpu_row(m, i), api = gpa_gpu_api(m, i), stream = 0;
	uint16_t dev = gpa_gpu_dev(m, i);

	memset(o, 0, sizeof(*o));
	o->start = gpa_gpu_start(m, i);
	o->end = gpa_gpu_end(m, i);
	o->kind = gpa_gpu_kind(m, i);
	if (o->kind == GPA_GPU_KERNEL) {
		const struct gpa_func *f = &m->funcs.v[gpa_kern_func(m, r)];
		stream = gpa_kern_stream(m, r);
		o->name = gpa_model_str(m, f->demangled ? f->demangled : f->name);
	} else if (o->kind == GPA_GPU_MEMCPY) {
		stream = gpa_copy_stream(m, r);
		o->bytes = gpa_copy_bytes(m, r);
		o->copy_kind = gpa_copy_copy_kind(m, r);
		o->name = gpa_copy_kind_name(o->copy_kind);
	} else {
		stream = gpa_set_stream(m, r);
		o->bytes = gpa_set_bytes(m, r);
		o->name = "memset";
	}
	o->key = (uint64_t)gpa_dev_proc(m, dev) << 48 | (uint64_t)dev << 32 | stream;
	if (api != GPA_NONE) {
		o->api_start = gpa_api_start(m, api);
		o->api_end = gpa_api_end(m, api) > o->api_start ? gpa_api_end(m, api) : o->api_start;
		o->graph = (gpa_api_flags(m, api) & GPA_API_GRAPH_LAUNCH) != 0;
		o->other_api = !api_matches(m, f, gpa_api_name(m, api));
	}
}

struct lrec {
	const char *name;
	uint64_t cpu, delay, gpu;
};

static int cmp_lrec(const void *a, const void *b)
{
	const struct lrec *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int cmp_name_rows(const void *a, const void *b)
{
	const struct gpa_launch_name *x = a, *y = b;

	if (x->cpu.n != y->cpu.n) {
		return x->cpu.n > y->cpu.n ? -1 : 1;
	}
	return strcmp(x->name, y->name);
}

static bool is_short(const struct gpa_launches_opts *o, const struct lrec *r)
{
	return r->cpu <= o->runtime_cutoff_ns && r->gpu < r->cpu;
}

/* Distributions of the launches in recs[0..n) into cpu, delay, gpu; scratch holds n. */
static void dists(const struct lrec *recs, size_t n, uint64_t *scratch, struct gpa_launch_dist *c,
		  struct gpa_launch_dist *d, struct gpa_launch_dist *g)
{
	for (size_t i = 0; i < n; i++) {
		scratch[i] = recs[i].cpu;
	}
	gpa_launch_dist_of(scratch, n, c);
	for (size_t i = 0; i < n; i++) {
		scratch[i] = recs[i].delay;
	}
	gpa_launch_dist_of(scratch, n, d);
	for (size_t i = 0; i < n; i++) {
		scratch[i] = recs[i].gpu;
	}
	gpa_launch_dist_of(scratch, n, g);
}

static int per_launch(const struct op *ops, size_t n, struct gpa_launches *l)
{
	struct lrec *recs = calloc(n ? n : 1, sizeof(*recs));
	uint64_t *scratch = calloc(n ? n : 1, sizeof(*scratch));
	size_t nr = 0;
	int ret = -GP_ERR_NOMEM;

	if (!recs || !scratch) {
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct op *o = &ops[i];
		if (!o->api_end) {
			l->unlinked++;
			continue;
		}
		if (o->graph) {
			l->graph_ops++;
			continue;
		}
		if (o->other_api) {
			l->other_api++;
			continue;
		}
		struct lrec *r = &recs[nr++];
		r->name = o->name;
		r->cpu = o->api_end - o->api_start;
		r->delay = o->start > o->api_end ? o->start - o->api_end : 0;
		r->gpu = o->end > o->start ? o->end - o->start : 0;
		l->short_kernels += is_short(&l->opts, r);
		l->cpu_outliers += r->cpu > l->opts.runtime_cutoff_ns;
		l->delay_outliers += r->delay > l->opts.delay_cutoff_ns;
	}
	dists(recs, nr, scratch, &l->cpu, &l->delay, &l->gpu);
	gp_qsort(recs, nr, sizeof(*recs), cmp_lrec);
	for (size_t i = 0, j; i < nr; i = j) {
		struct gpa_launch_name row = {.name = recs[i].name};
		for (j = i; j < nr && !strcmp(recs[j].name, recs[i].name); j++) {
			row.short_kernels += is_short(&l->opts, &recs[j]);
		}
		dists(recs + i, j - i, scratch, &row.cpu, &row.delay, &row.gpu);
		if (gp_vec_push(&l->names, row)) {
			goto out;
		}
	}
	l->names_total = l->names.n;
	gp_qsort(l->names.v, l->names.n, sizeof(*l->names.v), cmp_name_rows);
	if (l->names.n > l->opts.top) {
		l->names.n = l->opts.top;
	}
	ret = 0;
out:
	free(recs);
	free(scratch);
	return ret;
}

/* A queue change: +1 at a launch call's start, -1 at its op's start. */
struct qev {
	uint64_t key, ts;
	int delta;
};

static int cmp_qev(const void *a, const void *b)
{
	const struct qev *x = a, *y = b;

	if (x->key != y->key) {
		return x->key < y->key ? -1 : 1;
	}
	if (x->ts != y->ts) {
		return x->ts < y->ts ? -1 : 1;
	}
	return x->delta - y->delta; /* an op starting leaves before a launch joins */
}

static void queue_stats(const struct qev *ev, size_t n, uint64_t *scratch,
			const struct gpa_launches_opts *o, struct gpa_launch_queue *q)
{
	int64_t len = 0;

	for (size_t i = 0; i < n; i++) {
		len += ev[i].delta;
		if (len < 0) {
			len = 0; /* an op whose launch call started after it: none queued */
		}
		scratch[i] = (uint64_t)len;
		q->max_len = (uint64_t)len > q->max_len ? (uint64_t)len : q->max_len;
		if (i + 1 < n) {
			uint64_t d = ev[i + 1].ts - ev[i].ts;
			q->weighted_sum += (uint64_t)len * d;
			q->blocked_ns += (uint64_t)len >= o->max_queue ? d : 0;
		}
	}
	q->span_ns = ev[n - 1].ts - ev[0].ts;
	gpa_launch_dist_of(scratch, n, &q->len);
}

/* Per process: first launch call or op start (lo) and last op end (hi). */
static void proc_windows(const struct op *ops, size_t n, uint64_t *lo, uint64_t *hi)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t p = (uint32_t)(ops[i].key >> 48);
		uint64_t s = ops[i].api_end && ops[i].api_start < ops[i].start ? ops[i].api_start
									     : ops[i].start;
		lo[p] = s < lo[p] ? s : lo[p];
		hi[p] = ops[i].end > hi[p] ? ops[i].end : hi[p];
	}
}

static int queues(const struct op *ops, size_t n, size_t nprocs, struct gpa_launches *l)
{
	struct qev *ev = calloc(2 * n + 1, sizeof(*ev));
	uint64_t *scratch = calloc(2 * n + 1, sizeof(*scratch));
	uint64_t *lo = calloc(nprocs + 1, sizeof(*lo)), *hi = calloc(nprocs + 1, sizeof(*hi));
	size_t ne = 0;
	int ret = -GP_ERR_NOMEM;

	if (!ev || !scratch || !lo || !hi) {
		goto out;
	}
	for (size_t p = 0; p <= nprocs; p++) {
		lo[p] = UINT64_MAX;
	}
	proc_windows(ops, n, lo, hi);
	for (size_t i = 0; i < n; i++) {
		if (!ops[i].api_end || ops[i].other_api || ops[i].graph) {
			continue; /* a graph launch is one call for many ops: not one entry each */
		}
		ev[ne++] = (struct qev){ops[i].key, ops[i].api_start, 1};
		ev[ne++] = (struct qev){ops[i].key, ops[i].start, -1};
	}
	gp_qsort(ev, ne, sizeof(*ev), cmp_qev);
	for (size_t i = 0, j; i < ne; i = j) {
		struct gpa_launch_queue q = {0};
		for (j = i; j < ne && ev[j].key == ev[i].key; j++) {
		}
		q.proc = (uint32_t)(ev[i].key >> 48);
		q.dev = (uint16_t)(ev[i].key >> 32);
		q.stream = (uint32_t)ev[i].key;
		queue_stats(ev + i, j - i, scratch, &l->opts, &q);
		q.window_ns = hi[q.proc] > lo[q.proc] ? hi[q.proc] - lo[q.proc] : 0;
		if (gp_vec_push(&l->queues, q)) {
			goto out;
		}
	}
	ret = 0;
out:
	free(ev);
	free(scratch);
	free(lo);
	free(hi);
	return ret;
}

/* Copy kinds in table order: memset first, then by CUpti kind. */
static int copies(const struct op *ops, size_t n, struct gpa_launches *l)
{
	double *v = calloc(n ? n : 1, sizeof(*v));
	int ret = -GP_ERR_NOMEM;

	if (!v) {
		return ret;
	}
	for (unsigned kind = 0; kind < 256; kind++) {
		struct gpa_launch_copy c = {0};
		size_t nv = 0;
		for (size_t i = 0; i < n; i++) {
			const struct op *o = &ops[i];
			bool match = kind == 0 ? o->kind == GPA_GPU_MEMSET
					       : o->kind == GPA_GPU_MEMCPY && o->copy_kind == kind;
			if (!match) {
				continue;
			}
			uint64_t d = o->end > o->start ? o->end - o->start : 0;
			c.bytes += o->bytes;
			if (!d) {
				c.zero_dur++;
				continue;
			}
			v[nv++] = (double)o->bytes / (double)d; /* bytes per ns = GB/s */
		}
		if (!nv && !c.zero_dur) {
			continue;
		}
		c.kind = kind == 0 ? "memset" : gpa_copy_kind_name(kind);
		dist_f64(v, nv, &c.gbps);
		if (gp_vec_push(&l->copies, c)) {
			goto out;
		}
	}
	ret = 0;
out:
	free(v);
	return ret;
}

static int cmp_op_stream(const void *a, const void *b)
{
	const struct op *x = a, *y = b;

	if (x->key != y->key) {
		return x->key < y->key ? -1 : 1;
	}
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Per stream: gaps between an op and the previous one, by HTA's idle categories. */
static int idle(struct op *ops, size_t n, struct gpa_launches *l)
{
	uint64_t *v[GPA_IDLE__COUNT];
	size_t nv[GPA_IDLE__COUNT];
	int ret = -GP_ERR_NOMEM;

	gp_qsort(ops, n, sizeof(*ops), cmp_op_stream);
	for (unsigned c = 0; c < GPA_IDLE__COUNT; c++) {
		v[c] = calloc(n ? n : 1, sizeof(*v[c]));
	}
	if (!v[0] || !v[1] || !v[2]) {
		goto out;
	}
	for (size_t i = 0, j; i < n; i = j) {
		memset(nv, 0, sizeof(nv));
		for (j = i + 1; j < n && ops[j].key == ops[i].key; j++) {
			const struct op *o = &ops[j], *p = &ops[j - 1];
			if (o->start <= p->end) {
				continue;
			}
			uint64_t gap = o->start - p->end;
			unsigned c = o->api_end && o->api_start > p->end ? GPA_IDLE_HOST_WAIT
				     : gap < l->opts.kernel_wait_ns ? GPA_IDLE_KERNEL_WAIT
								    : GPA_IDLE_OTHER;
			v[c][nv[c]++] = gap;
		}
		for (unsigned c = 0; c < GPA_IDLE__COUNT; c++) {
			struct gpa_launch_idle row = {.proc = (uint32_t)(ops[i].key >> 48),
						      .dev = (uint16_t)(ops[i].key >> 32),
						      .stream = (uint32_t)ops[i].key,
						      .cat = (uint8_t)c};
			gpa_launch_dist_of(v[c], nv[c], &row.gap);
			if (gp_vec_push(&l->idle, row)) {
				goto out;
			}
		}
	}
	ret = 0;
out:
	for (unsigned c = 0; c < GPA_IDLE__COUNT; c++) {
		free(v[c]);
	}
	return ret;
}

struct arec {
	const char *name;
	uint64_t dur;
};

static int cmp_arec(const void *a, const void *b)
{
	return strcmp(((const struct arec *)a)->name, ((const struct arec *)b)->name);
}

static int cmp_annot(const void *a, const void *b)
{
	const struct gpa_launch_annot *x = a, *y = b;

	if (x->dur.sum != y->dur.sum) {
		return x->dur.sum > y->dur.sum ? -1 : 1;
	}
	return strcmp(x->name, y->name);
}

/*
 * HTA's last-step filter: keeps the ops launched before the process's last
 * ProfilerStep#N (with >= 2 of them), compacting ops; *cut gets the cut for
 * GPU annotations (one process only: they name no thread), else INT64_MAX.
 */
static int last_step_filter(const struct gpa_model *m, struct op *ops, size_t *n,
			    struct gpa_launches *l, int64_t *cut)
{
	int64_t *last = calloc(m->procs.n + 1, sizeof(*last));
	size_t k = 0;

	*cut = INT64_MAX;
	if (!last || gpa_bd_last_step_starts(m, last)) {
		free(last);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < *n; i++) {
		int64_t step = last[ops[i].key >> 48];
		if (step != INT64_MIN && (!ops[i].api_end || (int64_t)ops[i].api_start >= step)) {
			l->dropped++;
			continue;
		}
		ops[k++] = ops[i];
	}
	*n = k;
	if (m->procs.n == 1 && last[0] != INT64_MIN) {
		*cut = last[0];
	}
	free(last);
	return 0;
}

static int annots(const struct gpa_model *m, int64_t cut, struct gpa_launches *l)
{
	struct arec *r = calloc(gpa_nvtx_rows(m) + 1, sizeof(*r));
	uint64_t *scratch = calloc(gpa_nvtx_rows(m) + 1, sizeof(*scratch));
	size_t nr = 0;
	int ret = -GP_ERR_NOMEM;

	if (!r || !scratch) {
		goto out;
	}
	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		if (gpa_nvtx_origin(m, i) != GPA_RANGE_GPU_ANNOTATION ||
		    (int64_t)gpa_nvtx_start(m, i) >= cut) {
			continue;
		}
		uint64_t s = gpa_nvtx_start(m, i), e = gpa_nvtx_end(m, i);
		r[nr++] = (struct arec){gpa_model_str(m, gpa_nvtx_name(m, i)), e > s ? e - s : 0};
	}
	gp_qsort(r, nr, sizeof(*r), cmp_arec);
	for (size_t i = 0, j; i < nr; i = j) {
		struct gpa_launch_annot a = {.name = r[i].name};
		size_t k = 0;
		for (j = i; j < nr && !strcmp(r[j].name, r[i].name); j++) {
			scratch[k++] = r[j].dur;
		}
		gpa_launch_dist_of(scratch, k, &a.dur);
		if (gp_vec_push(&l->annots, a)) {
			goto out;
		}
	}
	gp_qsort(l->annots.v, l->annots.n, sizeof(*l->annots.v), cmp_annot);
	ret = 0;
out:
	free(r);
	free(scratch);
	return ret;
}

/* ---- brief: the report's figures in linear time, 4 bytes per GPU op */

/*
 * One distribution of the brief path, built without keeping its values:
 * count, sum and extremes and a histogram of the values' high 16 bits in a
 * first pass over the ops; then, the mean known, the squared deviations and
 * a histogram of the low 16 bits within each bucket that holds one of the
 * eight ranks the four interpolated quantiles need, in a second. Exactly the
 * figures of sorting the values (the test compares with the full path).
 */
struct bdist {
	uint64_t n, sum;
	uint32_t min, max;
	double mean, ss;
	size_t *h1;          /* 65536: values by high 16 bits */
	double pos[4];       /* the quantiles' positions */
	size_t rk[8], idx[8]; /* the eight ranks ascending; idx: which of them */
	uint32_t bucket[8];  /* each rank's high 16 bits */
	size_t within[8];    /* its rank among its bucket's values */
	uint32_t distinct[8], nd; /* the buckets that hold ranks */
	uint32_t *h2[8];     /* 65536 each: their values by low 16 bits */
	uint32_t val[8];     /* the ranks' values, by idx */
};

static void bdist_add(struct bdist *d, uint32_t v)
{
	d->min = !d->n || v < d->min ? v : d->min;
	d->max = !d->n || v > d->max ? v : d->max;
	d->n++;
	d->sum += v;
	d->h1[v >> 16]++;
}

/* After the first pass: the ranks, their buckets, the second pass's histograms. */
static int bdist_plan(struct bdist *d)
{
	static const double qs[4] = {0.25, 0.5, 0.75, 0.9};
	size_t want[8], nr = 8;

	if (!d->n) {
		return 0;
	}
	d->mean = (double)d->sum / (double)d->n;
	for (int q = 0; q < 4; q++) {
		d->pos[q] = qs[q] * (double)(d->n - 1);
		size_t lo = (size_t)d->pos[q];
		want[2 * q] = lo;
		want[2 * q + 1] = lo + 1 < d->n ? lo + 1 : lo;
	}
	for (size_t r = 0; r < nr; r++) { /* ascending, stable */
		size_t j = r;
		while (j > 0 && d->rk[j - 1] > want[r]) {
			d->rk[j] = d->rk[j - 1];
			d->idx[j] = d->idx[j - 1];
			j--;
		}
		d->rk[j] = want[r];
		d->idx[j] = r;
	}
	size_t below = 0, r = 0;
	for (uint32_t h = 0; h < 65536 && r < nr; h++) {
		while (r < nr && d->rk[r] < below + d->h1[h]) {
			d->bucket[r] = h;
			d->within[r] = d->rk[r] - below;
			if (!d->nd || d->distinct[d->nd - 1] != h) {
				d->h2[d->nd] = calloc(65536, sizeof(*d->h2[0]));
				if (!d->h2[d->nd]) {
					return -GP_ERR_NOMEM;
				}
				d->distinct[d->nd++] = h;
			}
			r++;
		}
		below += d->h1[h];
	}
	return 0;
}

static void bdist_add2(struct bdist *d, uint32_t v)
{
	d->ss += ((double)v - d->mean) * ((double)v - d->mean);
	for (uint32_t b = 0; b < d->nd; b++) {
		if (d->distinct[b] == v >> 16) {
			d->h2[b][v & 0xffff]++;
			break;
		}
	}
}

/* After the second pass: the figures. */
static void bdist_finish(struct bdist *d, struct gpa_launch_dist *out)
{
	memset(out, 0, sizeof(*out));
	out->n = d->n;
	if (!d->n) {
		return;
	}
	out->sum = d->sum;
	out->min = d->min;
	out->max = d->max;
	out->mean = d->mean;
	out->std = d->n > 1 ? sqrt(d->ss / (double)(d->n - 1)) : 0;
	for (size_t r = 0, b = 0; r < 8 && b < d->nd; b++) {
		size_t below = 0;
		for (uint32_t lo = 0; lo < 65536 && r < 8 && d->bucket[r] == d->distinct[b]; lo++) {
			while (r < 8 && d->bucket[r] == d->distinct[b] &&
			       d->within[r] < below + d->h2[b][lo]) {
				d->val[d->idx[r++]] = d->distinct[b] << 16 | lo;
			}
			below += d->h2[b][lo];
		}
	}
	double p[4];
	for (int q = 0; q < 4; q++) {
		double a = d->val[2 * q], v = d->val[2 * q + 1];
		p[q] = a + (v - a) * (d->pos[q] - (double)(size_t)d->pos[q]);
	}
	out->p25 = p[0];
	out->p50 = p[1];
	out->p75 = p[2];
	out->p90 = p[3];
}

static void bdist_release(struct bdist *d)
{
	free(d->h1);
	for (uint32_t b = 0; b < d->nd; b++) {
		free(d->h2[b]);
	}
}

/*
 * One GPU op's launch figures for the brief path: false when it has none
 * (no call, or run by a graph launch: counted as the full path counts them).
 */
static bool brief_op(const struct gpa_model *m, size_t i, struct gpa_launches *l, uint64_t *cpu,
		     uint64_t *delay)
{
	uint32_t api = gpa_gpu_api(m, i);
	uint64_t as, ae, s = gpa_gpu_start(m, i), e = gpa_gpu_end(m, i);

	if (api == GPA_NONE) {
		l->unlinked++;
		return false;
	}
	if (gpa_api_flags(m, api) & GPA_API_GRAPH_LAUNCH) {
		l->graph_ops++;
		return false;
	}
	as = gpa_api_start(m, api);
	ae = gpa_api_end(m, api) > as ? gpa_api_end(m, api) : as;
	*cpu = ae - as;
	*delay = s > ae ? s - ae : 0;
	if (*cpu <= l->opts.runtime_cutoff_ns && (e > s ? e - s : 0) < *cpu) {
		l->short_kernels++;
	}
	return true;
}

/*
 * 0, 1 when a value does not fit 32 bits (the caller takes the full path), or
 * an error. Two passes over the ops, no array of values (bdist).
 */
static int brief(const struct gpa_model *m, struct gpa_launches *l)
{
	struct bdist d[2] = {{0}, {0}}; /* call time, launch delay */
	uint64_t cpu, delay;
	int ret = 0;

	d[0].h1 = calloc(65536, sizeof(*d[0].h1));
	d[1].h1 = calloc(65536, sizeof(*d[1].h1));
	if (!d[0].h1 || !d[1].h1) {
		ret = -GP_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < gpa_gpu_rows(m); i++) {
		if (!brief_op(m, i, l, &cpu, &delay)) {
			continue;
		}
		if (cpu > UINT32_MAX || delay > UINT32_MAX) {
			ret = 1;
			goto out;
		}
		bdist_add(&d[0], (uint32_t)cpu);
		bdist_add(&d[1], (uint32_t)delay);
		l->cpu_outliers += cpu > l->opts.runtime_cutoff_ns;
		l->delay_outliers += delay > l->opts.delay_cutoff_ns;
	}
	if (bdist_plan(&d[0]) || bdist_plan(&d[1])) {
		ret = -GP_ERR_NOMEM;
		goto out;
	}
	struct gpa_launches again = {.opts = l->opts}; /* the second pass counts nothing */
	for (size_t i = 0; i < gpa_gpu_rows(m); i++) {
		if (brief_op(m, i, &again, &cpu, &delay)) {
			bdist_add2(&d[0], (uint32_t)cpu);
			bdist_add2(&d[1], (uint32_t)delay);
		}
	}
	bdist_finish(&d[0], &l->cpu);
	bdist_finish(&d[1], &l->delay);
out:
	bdist_release(&d[0]);
	bdist_release(&d[1]);
	return ret;
}

int gpa_launches_analyze(const struct gpa_model *m, const struct gpa_launches_opts *o,
			 struct gpa_launches *out, char *errbuf, size_t errlen)
{
	struct api_filter f;
	struct op *ops;
	size_t n = gpa_gpu_rows(m);
	int64_t cut = INT64_MAX;
	int ret;

	memset(out, 0, sizeof(*out));
	out->opts = *o;
	if (o->brief && !o->api_regex && !o->last_step) {
		ret = brief(m, out);
		if (ret <= 0) {
			return ret;
		}
		memset(out, 0, sizeof(*out));
		out->opts = *o;
	}
	ret = filter_init(m, o->api_regex, &f, errbuf, errlen);
	ops = ret ? NULL : calloc(gpa_gpu_rows(m) + 1, sizeof(*ops));
	if (!ops) {
		filter_release(&f);
		return ret ? ret : -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < gpa_gpu_rows(m); i++) {
		op_of(m, i, &f, &ops[i]);
	}
	filter_release(&f);
	ret = o->last_step ? last_step_filter(m, ops, &n, out, &cut) : 0;
	if (!ret) {
		ret = per_launch(ops, n, out);
	}
	if (!ret) {
		ret = queues(ops, n, m->procs.n, out);
	}
	if (!ret) {
		ret = copies(ops, n, out);
	}
	if (!ret) {
		ret = idle(ops, n, out);
	}
	if (!ret) {
		ret = annots(m, cut, out);
	}
	free(ops);
	if (ret) {
		gpa_launches_release(out);
	}
	return ret;
}

void gpa_launches_release(struct gpa_launches *l)
{
	gp_vec_free(&l->names);
	gp_vec_free(&l->queues);
	gp_vec_free(&l->copies);
	gp_vec_free(&l->idle);
	gp_vec_free(&l->annots);
}
