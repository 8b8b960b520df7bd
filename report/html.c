/* SPDX-License-Identifier: MIT */
/*
 * html.c - `gpuprof report --format html`: one self-contained page.
 *
 * The page is an HTML document built as a libxml2 tree and serialised by
 * libxml2's HTML writer. Every report table is a real HTML table (readable
 * with scripting off); the script embedded from report/html/report.js makes
 * them sortable and filterable and draws the timeline and charts from a JSON
 * blob in <script type="application/json" id="gp-data">. Formats only: every
 * number arrives computed, except which events the timeline embeds.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/comm.h"
#include "analyze/gaps.h"
#include "analyze/memory.h"
#include "analyze/mfu.h"
#include "analyze/occupancy.h"
#include "analyze/overview.h"
#include "analyze/stats.h"
#include "analyze/steps.h"
#include "report/memory.h"
#include "report/ops.h"
#include "report/report.h"
#include "report/critpath.h"
#include "report/gaps.h"
#include "report/html.h"
#include "report/summary.h"

#include <libxml/HTMLtree.h>
#include <libxml/tree.h>

/* report/html/report.{js,css}, embedded at build time (Makefile, scripts/embed.sh). */
extern const char gpr_html_js[];
extern const char gpr_html_css[];

void gpr_html_opts_init(struct gpr_html_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->max_events = 200000;
}

/* ---- strings: every byte sequence that is not UTF-8 becomes U+FFFD */

static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;

	if (c < 0x80) {
		return 1;
	} else if (c >= 0xC2 && c <= 0xDF) {
		len = 2, min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3, min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4, min = 0x10000;
	} else {
		return 0;
	}
	if (n < len) {
		return 0;
	}
	unsigned cp = c & (0x7F >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			return 0;
		}
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
		return 0;
	}
	return len;
}

/* Appends s[0..n) with invalid UTF-8 replaced and, when lt, '<' as \u003c (JSON). */
static void add_clean(struct gp_strbuf *sb, const char *s, size_t n, bool lt)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		size_t l = u[i] ? utf8_len(u + i, n - i) : 0;
		if (l && !(lt && u[i] == '<')) {
			i += l;
			continue;
		}
		gp_strbuf_add(sb, s + run, i - run);
		gp_strbuf_adds(sb, lt && u[i] == '<' ? "\\u003c" : "\xEF\xBF\xBD");
		run = ++i;
	}
	gp_strbuf_add(sb, s + run, i - run);
}

static void json_str(struct gp_strbuf *sb, const char *s)
{
	gp_strbuf_add_json_str(sb, s, strlen(s));
}

/* ---- the timeline data */

enum lane_kind { LANE_GPU = 0, LANE_NVTX = 1, LANE_API = 2 };

struct lane {
	uint64_t key;
	uint32_t proc, a, b; /* GPU: device, stream; NVTX, API: thread, tid */
	uint8_t kind;
};

struct tl {
	const struct gpa_model *m;
	GP_VEC(struct lane) lanes;
	uint32_t *slot; /* open addressing on lane keys: lane index + 1 */
	size_t nslot;
	GP_VEC(const char *) names; /* short labels */
	GP_VEC(const char *) full;  /* full names; NULL when the same */
	GP_VEC(char *) owned;
	uint32_t *func_name;  /* by func row */
	uint32_t *str_name;   /* by model string id */
	uint32_t copy_name[256];
	uint32_t set_name;
	size_t nstrs;
	bool failed;
};

static uint32_t lane_of(struct tl *t, uint8_t kind, uint32_t proc, uint32_t a, uint32_t b)
{
	uint64_t key = ((uint64_t)kind << 62) ^ ((uint64_t)proc << 40) ^ ((uint64_t)a << 20) ^ b;
	uint64_t h = gp_hash_u64(key);

	if (t->lanes.n * 2 >= t->nslot) {
		size_t n = t->nslot ? t->nslot * 2 : 64;
		uint32_t *s = calloc(n, sizeof(*s));
		if (!s) {
			t->failed = true;
			return 0;
		}
		for (size_t i = 0; i < t->lanes.n; i++) {
			size_t j = gp_hash_u64(t->lanes.v[i].key) & (n - 1);
			while (s[j]) {
				j = (j + 1) & (n - 1);
			}
			s[j] = (uint32_t)i + 1;
		}
		free(t->slot);
		t->slot = s;
		t->nslot = n;
	}
	size_t j = h & (t->nslot - 1);
	while (t->slot[j]) {
		const struct lane *l = &t->lanes.v[t->slot[j] - 1];
		if (l->key == key && l->kind == kind && l->proc == proc && l->a == a && l->b == b) {
			return t->slot[j] - 1;
		}
		j = (j + 1) & (t->nslot - 1);
	}
	struct lane l = {.key = key, .proc = proc, .a = a, .b = b, .kind = kind};
	if (gp_vec_push(&t->lanes, l)) {
		t->failed = true;
		return 0;
	}
	t->slot[j] = (uint32_t)t->lanes.n;
	return (uint32_t)t->lanes.n - 1;
}

static uint32_t add_name(struct tl *t, const char *label, const char *full)
{
	if (gp_vec_push(&t->names, label) || gp_vec_push(&t->full, full)) {
		t->failed = true;
		return 0;
	}
	return (uint32_t)t->names.n - 1;
}

static uint32_t kernel_name(struct tl *t, uint32_t func)
{
	if (t->func_name[func] != UINT32_MAX) {
		return t->func_name[func];
	}
	const struct gpa_func *f = &t->m->funcs.v[func];
	const char *full = gpa_model_str(t->m, f->demangled ? f->demangled : f->name);
	const char *base;
	size_t len = gpa_kernel_base_name(full, &base);
	char *label = NULL;

	if (len != strlen(full)) {
		label = strndup(base, len);
		if (!label || gp_vec_push(&t->owned, label)) {
			free(label);
			t->failed = true;
			return 0;
		}
	}
	t->func_name[func] = add_name(t, label ? label : full, label ? full : NULL);
	return t->func_name[func];
}

static uint32_t str_name(struct tl *t, uint32_t id)
{
	if (id >= t->nstrs) {
		id = 0;
	}
	if (t->str_name[id] == UINT32_MAX) {
		const char *s = gpa_model_str(t->m, id);
		t->str_name[id] = add_name(t, *s ? s : "(unnamed)", NULL);
	}
	return t->str_name[id];
}

static uint32_t copy_name(struct tl *t, uint8_t kind)
{
	if (t->copy_name[kind] == UINT32_MAX) {
		t->copy_name[kind] = add_name(t, gpa_stats_memcpy_name(kind), NULL);
	}
	return t->copy_name[kind];
}

/* First row in [lo, hi) of the sorted key array with key >= v. */
static size_t lower(const uint64_t *key, size_t lo, size_t hi, uint64_t v)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (key[mid] < v) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/*
 * The first row in [lo, hi) of a table in start order (the API calls, or a
 * device's span of the timeline) whose start, read by start_of, is v or later.
 */
static size_t lower_by(const struct gpa_model *m,
		       uint64_t (*start_of)(const struct gpa_model *, size_t), size_t lo, size_t hi,
		       uint64_t v)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (start_of(m, mid) < v) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/* The window a step's timeline shows: its CPU range and the GPU work it launched. */
static void step_window(const struct gpa_step *s, uint64_t *w0, uint64_t *w1)
{
	*w0 = s->start;
	*w1 = s->end;
	if (s->gpu_ops && s->gpu_start < *w0) {
		*w0 = s->gpu_start;
	}
	if (s->gpu_ops && s->gpu_end > *w1) {
		*w1 = s->gpu_end;
	}
}

/* Events of process proc starting in [w0, w1): GPU ops, API calls, NVTX ranges. */
static size_t count_window(const struct gpa_model *m, uint32_t proc, uint64_t w0, uint64_t w1)
{
	size_t n = 0;

	for (size_t d = 0; d < m->devs.n; d++) {
		const struct gpa_dev *dv = &m->devs.v[d];
		if (dv->proc != proc) {
			continue;
		}
		size_t a = dv->gpu_first, b = dv->gpu_first + dv->gpu_count;
		n += lower_by(m, gpa_gpu_start, a, b, w1) - lower_by(m, gpa_gpu_start, a, b, w0);
	}
	/* API and NVTX tables hold every process: an overestimate with several. */
	n += lower_by(m, gpa_api_start, 0, gpa_api_rows(m), w1) -
	     lower_by(m, gpa_api_start, 0, gpa_api_rows(m), w0);
	n += lower(gpa_nvtx_start_col(m), 0, gpa_nvtx_rows(m), w1) -
	     lower(gpa_nvtx_start_col(m), 0, gpa_nvtx_rows(m), w0);
	return n;
}

static uint32_t thread_proc(const struct gpa_model *m, uint32_t th)
{
	return th < m->threads.n ? m->threads.v[th].proc : UINT32_MAX;
}

/* One embedded view: the columns of its events. */
struct view {
	GP_VEC(uint32_t) lane, name, extra;
	GP_VEC(uint64_t) t, d;
};

static void view_add(struct tl *t, struct view *v, uint32_t lane, uint64_t s, uint64_t e,
		     uint64_t w0, uint32_t name, uint32_t extra)
{
	if (gp_vec_push(&v->lane, lane) || gp_vec_push(&v->t, s - w0) ||
	    gp_vec_push(&v->d, e > s ? e - s : 0) || gp_vec_push(&v->name, name) ||
	    gp_vec_push(&v->extra, extra)) {
		t->failed = true;
	}
}

static void view_release(struct view *v)
{
	gp_vec_free(&v->lane);
	gp_vec_free(&v->name);
	gp_vec_free(&v->extra);
	gp_vec_free(&v->t);
	gp_vec_free(&v->d);
}

static void collect(struct tl *t, struct view *v, uint32_t proc, uint64_t w0, uint64_t w1,
		    uint32_t step_nvtx)
{
	const struct gpa_model *m = t->m;

	for (size_t d = 0; d < m->devs.n; d++) {
		const struct gpa_dev *dv = &m->devs.v[d];
		if (dv->proc != proc) {
			continue;
		}
		size_t a = dv->gpu_first, b = dv->gpu_first + dv->gpu_count;
		for (size_t g = lower_by(m, gpa_gpu_start, a, b, w0); g < b && gpa_gpu_start(m, g) < w1; g++) {
			uint32_t r = gpa_gpu_row(m, g), stream, name;
			switch (gpa_gpu_kind(m, g)) {
			case GPA_GPU_KERNEL:
				stream = gpa_kern_stream(m, r);
				name = kernel_name(t, gpa_kern_func(m, r));
				break;
			case GPA_GPU_MEMCPY:
				stream = gpa_copy_stream(m, r);
				name = copy_name(t, gpa_copy_copy_kind(m, r));
				break;
			default:
				stream = gpa_set_stream(m, r);
				if (t->set_name == UINT32_MAX) {
					t->set_name = add_name(t, GPA_STATS_MEMSET_NAME, NULL);
				}
				name = t->set_name;
				break;
			}
			view_add(t, v, lane_of(t, LANE_GPU, proc, (uint32_t)d, stream), gpa_gpu_start(m, g),
				 gpa_gpu_end(m, g), w0, name, gpa_gpu_kind(m, g));
		}
	}
	for (size_t i = lower_by(m, gpa_api_start, 0, gpa_api_rows(m), w0);
	     i < gpa_api_rows(m) && gpa_api_start(m, i) < w1; i++) {
		uint32_t th = gpa_api_thread(m, i);
		if (thread_proc(m, th) != proc) {
			continue;
		}
		view_add(t, v, lane_of(t, LANE_API, proc, th, m->threads.v[th].tid), gpa_api_start(m, i),
			 gpa_api_end(m, i), w0, str_name(t, gpa_api_name(m, i)), 0);
	}
	/* The ranges enclosing the step's own range started before the window. */
	for (uint32_t r = step_nvtx, hops = 0; r != GPA_NONE && r < gpa_nvtx_rows(m) && hops < 256;
	     r = gpa_nvtx_parent(m, r), hops++) {
		uint32_t th = gpa_nvtx_thread(m, r);
		if (gpa_nvtx_start(m, r) < w0 && thread_proc(m, th) == proc) {
			uint64_t s = gpa_nvtx_start(m, r);
			view_add(t, v, lane_of(t, LANE_NVTX, proc, th, m->threads.v[th].tid), w0,
				 gpa_nvtx_end(m, r) > s ? gpa_nvtx_end(m, r) : w0, w0,
				 str_name(t, gpa_nvtx_name(m, r)), gpa_nvtx_depth(m, r));
		}
	}
	for (size_t i = lower(gpa_nvtx_start_col(m), 0, gpa_nvtx_rows(m), w0);
	     i < gpa_nvtx_rows(m) && gpa_nvtx_start(m, i) < w1; i++) {
		uint32_t th = gpa_nvtx_thread(m, i);
		if (thread_proc(m, th) != proc) {
			continue;
		}
		view_add(t, v, lane_of(t, LANE_NVTX, proc, th, m->threads.v[th].tid),
			 gpa_nvtx_start(m, i), gpa_nvtx_end(m, i), w0,
			 str_name(t, gpa_nvtx_name(m, i)), gpa_nvtx_depth(m, i));
	}
}

static void json_u64s(struct gp_strbuf *o, const char *key, const uint64_t *v, size_t n)
{
	gp_strbuf_addf(o, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++) {
		gp_strbuf_addf(o, i ? ",%" PRIu64 : "%" PRIu64, v[i]);
	}
	gp_strbuf_addch(o, ']');
}

static void json_u32s(struct gp_strbuf *o, const char *key, const uint32_t *v, size_t n)
{
	gp_strbuf_addf(o, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++) {
		gp_strbuf_addf(o, i ? ",%" PRIu32 : "%" PRIu32, v[i]);
	}
	gp_strbuf_addch(o, ']');
}

struct wall_idx {
	uint64_t wall;
	uint32_t i;
};

static int cmp_wall(const void *x, const void *y)
{
	const struct wall_idx *a = x, *b = y;

	if (a->wall != b->wall) {
		return a->wall < b->wall ? -1 : 1;
	}
	return a->i < b->i ? -1 : a->i > b->i;
}

/* The order steps are embedded in: representative (median wall), slowest, fastest, the rest. */
static uint32_t *embed_order(const struct gpa_steps *s)
{
	size_t n = s->v.n, k = 0;
	struct wall_idx *byw = malloc(n * sizeof(*byw));
	uint32_t *order = malloc(n * sizeof(*order));
	uint8_t *used = calloc(n, 1);

	if (!byw || !order || !used) {
		free(byw);
		free(order);
		free(used);
		return NULL;
	}
	/* Picked among the steps that hold GPU work, when some do: never an empty first view. */
	size_t nw = 0;
	for (size_t i = 0; i < n; i++) {
		if (s->v.v[i].gpu_ops) {
			byw[nw++] = (struct wall_idx){s->v.v[i].end - s->v.v[i].start, (uint32_t)i};
		}
	}
	for (size_t i = 0; !nw && i < n; i++) {
		byw[i] = (struct wall_idx){s->v.v[i].end - s->v.v[i].start, (uint32_t)i};
	}
	nw = nw ? nw : n;
	gp_qsort(byw, nw, sizeof(*byw), cmp_wall);
	uint32_t first[3] = {byw[(nw - 1) / 2].i, byw[nw - 1].i, byw[0].i};
	for (unsigned j = 0; j < 3; j++) {
		if (!used[first[j]]) {
			used[first[j]] = 1;
			order[k++] = first[j];
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (!used[i]) {
			order[k++] = (uint32_t)i;
		}
	}
	free(byw);
	free(used);
	return order;
}

static void add_gaps(struct gp_strbuf *o, const struct gpa_model *m, const struct gpa_gaps *g,
		     uint32_t proc, uint64_t w0, uint64_t w1)
{
	bool first = true;

	gp_strbuf_adds(o, ",\"gaps\":[");
	for (size_t i = 0; g && i < g->top.n; i++) {
		const struct gpa_gap *gp = &g->top.v[i];
		if (gp->end <= w0 || gp->start >= w1 || gp->dev >= m->devs.n ||
		    m->devs.v[gp->dev].proc != proc) {
			continue;
		}
		uint64_t s = gp->start > w0 ? gp->start : w0, e = gp->end < w1 ? gp->end : w1;
		gp_strbuf_addf(o, "%s%u,%" PRIu64 ",%" PRIu64 ",%u", first ? "" : ",", gp->dev, s - w0,
			       e - s, gp->cause);
		first = false;
	}
	gp_strbuf_addch(o, ']');
}

static const char *lane_kind_name[] = {"gpu", "nvtx", "api"};

static void step_label(struct gp_strbuf *o, const struct gpa_model *m, const struct gpa_step *s)
{
	const struct gpa_proc *p = &m->procs.v[s->proc];
	struct gp_strbuf sb = GP_STRBUF_INIT;

	if (m->procs.n > 1) {
		if (p->rank >= 0) {
			gp_strbuf_addf(&sb, "rank %" PRId32 " ", p->rank);
		} else {
			gp_strbuf_addf(&sb, "pid %" PRIu32 " ", p->pid);
		}
	}
	if (s->name) {
		gp_strbuf_adds(&sb, gpa_model_str(m, s->name));
	} else {
		gp_strbuf_adds(&sb, "whole trace");
	}
	json_str(o, sb.failed ? "?" : sb.buf);
	o->failed |= sb.failed; /* out of memory: the page is not written with a "?" */
	gp_strbuf_release(&sb);
}

/* The latest end in [w0, w1] keeping the window's event count within budget (past w0). */
static uint64_t fit_window(const struct gpa_model *m, uint32_t proc, uint64_t w0, uint64_t w1,
			   size_t budget)
{
	uint64_t lo = w0, hi = w1;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;
		if (count_window(m, proc, w0, mid) <= budget) {
			lo = mid;
		} else {
			hi = mid - 1;
		}
	}
	return lo > w0 ? lo : w0 + 1;
}

/*
 * The "views" entries: steps in embedding order until max_events are spent,
 * each a step's window of events; embedded[step] is its view's index, -1 none.
 */
static void views_json(struct tl *t, struct gp_strbuf *views, const struct gpa_steps *st,
		       const uint32_t *order, const struct gpr_html_opts *opts, int32_t *embedded)
{
	const struct gpa_model *m = t->m;
	size_t budget = opts->max_events;
	unsigned nviews = 0;

	for (size_t i = 0; i < st->v.n; i++) {
		embedded[i] = -1;
	}
	for (size_t k = 0; k < st->v.n && budget && !t->failed; k++) {
		uint32_t si = order[k];
		const struct gpa_step *s = &st->v.v[si];
		uint64_t w0, w1, cut;
		size_t n;

		step_window(s, &w0, &w1);
		n = count_window(m, s->proc, w0, w1);
		cut = w1;
		if (n > budget) {
			if (nviews) {
				continue; /* only the first view is cut to fit */
			}
			cut = fit_window(m, s->proc, w0, w1, budget);
		}
		struct view v = {0};
		collect(t, &v, s->proc, w0, cut, s->nvtx);
		budget = v.t.n < budget ? budget - v.t.n : 0;
		gp_strbuf_addf(views,
			       "%s{\"step\":%u,\"start\":%" PRIu64 ",\"end\":%" PRIu64
			       ",\"cut\":%s,\"window_end\":%" PRIu64,
			       nviews ? "," : "", si, w0 - m->t0, cut - m->t0,
			       cut < w1 ? "true" : "false", w1 - m->t0);
		json_u32s(views, "lane", v.lane.v, v.lane.n);
		json_u64s(views, "t", v.t.v, v.t.n);
		json_u64s(views, "d", v.d.v, v.d.n);
		json_u32s(views, "n", v.name.v, v.name.n);
		json_u32s(views, "x", v.extra.v, v.extra.n);
		add_gaps(views, m, opts->shade, s->proc, w0, cut);
		gp_strbuf_addch(views, '}');
		view_release(&v);
		embedded[si] = (int32_t)nviews++;
	}
}

/* The "steps" entries: every step, with the index of its view (-1: none). */
static void steps_json(struct gp_strbuf *o, const struct gpa_model *m, const struct gpa_steps *st,
		       const int32_t *embedded)
{
	for (size_t i = 0; i < st->v.n; i++) {
		const struct gpa_step *s = &st->v.v[i];
		gp_strbuf_addf(o, "%s{\"label\":", i ? "," : "");
		step_label(o, m, s);
		gp_strbuf_addf(o,
			       ",\"number\":%" PRId64 ",\"proc\":%" PRIu32 ",\"start\":%" PRIu64
			       ",\"wall\":%" PRIu64 ",\"busy\":%" PRIu64 ",\"ops\":%" PRIu32
			       ",\"view\":%" PRId32 "}",
			       s->number, s->proc, s->start - m->t0, s->end - s->start, s->gpu_busy,
			       s->gpu_ops, embedded[i]);
	}
}

/*
 * A thread's name for its lane label, which names the thread id already:
 * "thread 4045 (python3.8)" (as PyTorch's profiler names threads) reads
 * "python3.8", "thread 4045" nothing.
 */
static void thread_label(const char *tn, uint32_t tid, char *out, size_t len)
{
	char pre[32];
	size_t n = (size_t)snprintf(pre, sizeof(pre), "thread %" PRIu32, tid);
	size_t tl = strlen(tn);

	if (!strncmp(tn, pre, n) && (!tn[n] || (tn[n] == ' ' && tn[n + 1] == '(' &&
						tn[tl - 1] == ')'))) {
		tn = tn[n] ? tn + n + 2 : tn + n;
		tl = tl > n + 2 ? tl - n - 3 : 0;
	}
	snprintf(out, len, "%.*s", (int)tl, tn);
}

/* The "lanes" entries: what each lane is, and its label. */
static void lanes_json(struct gp_strbuf *o, const struct tl *t)
{
	const struct gpa_model *m = t->m;

	for (size_t i = 0; i < t->lanes.n; i++) {
		const struct lane *l = &t->lanes.v[i];
		struct gp_strbuf lab = GP_STRBUF_INIT;
		const struct gpa_proc *pr = &m->procs.v[l->proc];

		if (m->procs.n > 1) {
			if (pr->rank >= 0) {
				gp_strbuf_addf(&lab, "rank %" PRId32 " ", pr->rank);
			} else {
				gp_strbuf_addf(&lab, "pid %" PRIu32 " ", pr->pid);
			}
		}
		if (l->kind == LANE_GPU) {
			gp_strbuf_addf(&lab, "GPU %" PRIu32 " stream %" PRIu32, m->devs.v[l->a].id, l->b);
		} else {
			char tn[256];
			thread_label(gpa_model_str(m, m->threads.v[l->a].name), l->b, tn, sizeof(tn));
			gp_strbuf_addf(&lab, "%s %" PRIu32 "%s%s%s", l->kind == LANE_NVTX ? "NVTX" : "CUDA",
				       l->b, *tn ? " (" : "", tn, *tn ? ")" : "");
		}
		gp_strbuf_addf(o, "%s{\"kind\":\"%s\",\"proc\":%" PRIu32 ",\"a\":%" PRIu32
				  ",\"b\":%" PRIu32 ",\"dev\":%" PRId64 ",\"label\":",
			       i ? "," : "", lane_kind_name[l->kind], l->proc, l->a, l->b,
			       l->kind == LANE_GPU ? (int64_t)l->a : (int64_t)-1);
		json_str(o, lab.failed ? "?" : lab.buf);
		o->failed |= lab.failed;
		gp_strbuf_addch(o, '}');
		gp_strbuf_release(&lab);
	}
}

/* Array items: each string, null for NULL. */
static void json_strs(struct gp_strbuf *o, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i) {
			gp_strbuf_addch(o, ',');
		}
		if (v[i]) {
			json_str(o, v[i]);
		} else {
			gp_strbuf_adds(o, "null");
		}
	}
}

/*
 * "timeline": {"steps": [...], "views": [...], "lanes": [...], "names": [...],
 * "full": [...]}; times relative to m->t0 (steps) or to the view start (events).
 */
static int timeline_json(struct gp_strbuf *o, const struct gpr_report_parts *p,
			 const struct gpr_html_opts *opts)
{
	const struct gpa_model *m = p->m;
	const struct gpa_steps *st = p->steps;
	struct tl t = {.m = m};
	int32_t *embedded = NULL;
	uint32_t *order = NULL;
	struct gp_strbuf views = GP_STRBUF_INIT;

	t.nstrs = m->strs.off.n + 1;
	t.func_name = malloc((m->funcs.n + 1) * sizeof(uint32_t));
	t.str_name = malloc(t.nstrs * sizeof(uint32_t));
	embedded = malloc((st->v.n + 1) * sizeof(*embedded));
	order = st->v.n ? embed_order(st) : NULL;
	if (!t.func_name || !t.str_name || !embedded || (st->v.n && !order)) {
		t.failed = true;
		goto out;
	}
	memset(t.func_name, 0xFF, (m->funcs.n + 1) * sizeof(uint32_t));
	memset(t.str_name, 0xFF, t.nstrs * sizeof(uint32_t));
	memset(t.copy_name, 0xFF, sizeof(t.copy_name));
	t.set_name = UINT32_MAX;
	views_json(&t, &views, st, order, opts, embedded);
	if (t.failed) {
		goto out;
	}

	gp_strbuf_addf(o, ",\"timeline\":{\"max_events\":%zu,\"steps\":[", opts->max_events);
	steps_json(o, m, st, embedded);
	gp_strbuf_adds(o, "],\"views\":[");
	gp_strbuf_add(o, views.buf, views.len);
	gp_strbuf_adds(o, "],\"lanes\":[");
	lanes_json(o, &t);
	gp_strbuf_adds(o, "],\"names\":["); /* short labels */
	json_strs(o, t.names.v, t.names.n);
	gp_strbuf_adds(o, "],\"full\":["); /* full names; null when the same */
	json_strs(o, t.full.v, t.full.n);
	gp_strbuf_adds(o, "]}");
out:
	for (size_t i = 0; i < t.owned.n; i++) {
		free(t.owned.v[i]);
	}
	gp_vec_free(&t.owned);
	gp_vec_free(&t.names);
	gp_vec_free(&t.full);
	gp_vec_free(&t.lanes);
	free(t.slot);
	free(t.func_name);
	free(t.str_name);
	free(embedded);
	free(order);
	bool failed = t.failed || views.failed;
	gp_strbuf_release(&views);
	return failed ? -GP_ERR_NOMEM : 0;
}

/* "gaps": idle by cause and the gap-length histogram, over all devices analyzed. */
static void gaps_json(struct gp_strbuf *o, const struct gpa_gaps *g)
{
	gp_strbuf_adds(o, ",\"idle\":{\"window\":");
	gp_strbuf_addf(o, "%" PRIu64 ",\"busy\":%" PRIu64 ",\"idle\":%" PRIu64 ",\"causes\":[",
		       g->all.window, g->all.busy, g->all.idle);
	for (unsigned c = 0; c < GPA_GAP__COUNT; c++) {
		gp_strbuf_addf(o, "%s{\"cause\":%u,\"key\":\"%s\",\"label\":", c ? "," : "", c,
			       gpa_gap_cause_name(c));
		json_str(o, gpr_gap_cause_label(c));
		gp_strbuf_addf(o, ",\"ns\":%" PRIu64 ",\"n\":%" PRIu64 "}", g->all.cause_ns[c],
			       g->all.cause_n[c]);
	}
	gp_strbuf_adds(o, "],\"hist\":[");
	for (unsigned b = 0; b < GPA_GAP_BUCKETS; b++) {
		gp_strbuf_addf(o, "%s{\"lo\":%" PRIu64 ",\"hi\":", b ? "," : "", gpa_gap_bucket_lo[b]);
		if (b + 1 < GPA_GAP_BUCKETS) {
			gp_strbuf_addf(o, "%" PRIu64, gpa_gap_bucket_lo[b + 1]);
		} else {
			gp_strbuf_adds(o, "null");
		}
		gp_strbuf_addf(o, ",\"n\":%" PRIu64 ",\"ns\":%" PRIu64 "}", g->all.hist_n[b],
			       g->all.hist_ns[b]);
	}
	gp_strbuf_adds(o, "]}");
}

static void add_base64(struct gp_strbuf *sb, const char *data, size_t n)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *u = (const unsigned char *)data;
	char q[4];

	if (gp_strbuf_grow(sb, (n + 2) / 3 * 4 + 1)) {
		return;
	}
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)u[i] << 16;
		if (i + 1 < n) {
			v |= (uint32_t)u[i + 1] << 8;
		}
		if (i + 2 < n) {
			v |= u[i + 2];
		}
		q[0] = abc[v >> 18];
		q[1] = abc[(v >> 12) & 63];
		q[2] = i + 1 < n ? abc[(v >> 6) & 63] : '=';
		q[3] = i + 2 < n ? abc[v & 63] : '=';
		gp_strbuf_add(sb, q, 4);
	}
}

/* ---- the document */

struct doc {
	xmlDocPtr doc;
	xmlNodePtr nav, main;
	xmlNodePtr tmp_parent; /* where finding_item adds */
	struct gp_strbuf tmp;
	struct gp_strbuf cell; /* a formatted cell or header */
	const struct gpr_display *disp; /* how cells read (the report's display) */
	bool failed;
};

/* A child element with text (cleaned to UTF-8); text may be NULL. */
static xmlNodePtr el(struct doc *d, xmlNodePtr parent, const char *name, const char *text)
{
	xmlNodePtr n = xmlNewChild(parent, NULL, BAD_CAST name, NULL);

	if (!n) {
		d->failed = true;
		return parent;
	}
	if (text) {
		gp_strbuf_reset(&d->tmp);
		add_clean(&d->tmp, text, strlen(text), false);
		xmlNodePtr tx = xmlNewText(BAD_CAST(d->tmp.failed ? "" : d->tmp.buf));
		if (!tx || d->tmp.failed || !xmlAddChild(n, tx)) {
			xmlFreeNode(tx);
			d->failed = true;
		}
	}
	return n;
}

static void attr(struct doc *d, xmlNodePtr n, const char *name, const char *value)
{
	gp_strbuf_reset(&d->tmp);
	add_clean(&d->tmp, value, strlen(value), false);
	if (d->tmp.failed || !xmlNewProp(n, BAD_CAST name, BAD_CAST d->tmp.buf)) {
		d->failed = true;
	}
}

/* Raw text (script, style): the HTML writer does not escape those elements. */
static xmlNodePtr raw(struct doc *d, xmlNodePtr parent, const char *name, const char *text,
		      size_t len)
{
	xmlNodePtr n = xmlNewChild(parent, NULL, BAD_CAST name, NULL);
	xmlNodePtr tx = n ? xmlNewTextLen(BAD_CAST text, (int)len) : NULL;

	if (!n || !tx || !xmlAddChild(n, tx)) {
		xmlFreeNode(tx);
		d->failed = true;
	}
	return n ? n : parent;
}

static xmlNodePtr section(struct doc *d, const char *id, const char *title)
{
	xmlNodePtr s = el(d, d->main, "section", NULL);
	char href[160];

	attr(d, s, "id", id);
	el(d, s, "h2", title);
	snprintf(href, sizeof(href), "#%s", id);
	xmlNodePtr li = el(d, d->nav, "li", NULL);
	xmlNodePtr a = el(d, li, "a", title);
	attr(d, a, "href", href);
	return s;
}

static xmlNodePtr header_cell(struct doc *d, xmlNodePtr tr, const char *name);

/* A column's flags with GPR_COL_NS for a header ending in " (ns)", as text tables do. */
static unsigned html_col_flags(const struct gpr_col *col)
{
	size_t n = strlen(col->name);

	return col->flags | (n >= 5 && !strcmp(col->name + n - 5, " (ns)") ? GPR_COL_NS : 0);
}

/*
 * A cell as people read it (times scaled, counts with separators, bytes in KiB..., by the
 * formatting text uses); a number keeps its exact value in data-v, which sorting reads.
 */
static xmlNodePtr table_cell(struct doc *d, xmlNodePtr tr, const struct gpr_table *t, size_t r,
			     size_t c)
{
	const char *cell = t->cells.v[r * t->ncols + c];
	unsigned fl = html_col_flags(&t->cols[c]);
	bool ch;

	gp_strbuf_reset(&d->cell);
	ch = cell && gpr_fmt_cell(&d->cell, d->disp, cell, fl) && !d->cell.failed;
	xmlNodePtr td = el(d, tr, "td", ch ? d->cell.buf : cell);
	if (t->cols[c].flags & GPR_COL_NAME) {
		attr(d, td, "class", "name");
		attr(d, td, "title", cell ? cell : "");
	} else if ((t->cols[c].flags & GPR_COL_NUM) && !(t->cols[c].flags & GPR_COL_LEFT)) {
		attr(d, td, "class", "num");
	}
	if (ch) {
		attr(d, td, "data-v", cell);
	}
	return td;
}

/* The row's secondary columns (GPR_COL_DETAIL): a closed <details> listing them. */
static void detail_cell(struct doc *d, xmlNodePtr tr, const struct gpr_table *t, size_t r,
			size_t ndetail)
{
	char summary[64];
	xmlNodePtr td = el(d, tr, "td", NULL);
	xmlNodePtr det = el(d, td, "details", NULL);

	attr(d, td, "class", "gp-more");
	snprintf(summary, sizeof(summary), "%zu more", ndetail);
	el(d, det, "summary", summary);
	xmlNodePtr dl = el(d, det, "dl", NULL);
	for (size_t c = 0; c < t->ncols; c++) {
		const char *cell = t->cells.v[r * t->ncols + c];
		unsigned fl = html_col_flags(&t->cols[c]);

		if (!(t->cols[c].flags & GPR_COL_DETAIL)) {
			continue;
		}
		gp_strbuf_reset(&d->cell);
		bool hc = gpr_fmt_header(&d->cell, d->disp, t->cols[c].name, fl) && !d->cell.failed;
		el(d, dl, "dt", hc ? d->cell.buf : t->cols[c].name);
		gp_strbuf_reset(&d->cell);
		bool ch = cell && gpr_fmt_cell(&d->cell, d->disp, cell, fl) && !d->cell.failed;
		el(d, dl, "dd", ch ? d->cell.buf : cell && *cell ? cell : "-");
	}
}

static int table_section(void *data, const char *title, const char *key,
			 const struct gpr_table *t)
{
	struct doc *d = data;
	char id[128];
	size_t rows = gpr_table_rows(t);

	snprintf(id, sizeof(id), "sec-%s", key);
	xmlNodePtr s = section(d, id, title);
	attr(d, s, "class", "gp-tables");
	if (!rows) {
		el(d, s, "p", "none");
		return d->failed ? -GP_ERR_NOMEM : 0;
	}
	xmlNodePtr tools = el(d, s, "div", NULL);
	attr(d, tools, "class", "gp-tools");
	xmlNodePtr in = el(d, tools, "input", NULL);
	attr(d, in, "type", "search");
	attr(d, in, "class", "gp-filter");
	attr(d, in, "placeholder", "filter rows");
	attr(d, in, "aria-label", "filter rows");
	xmlNodePtr cnt = el(d, tools, "span", NULL);
	attr(d, cnt, "class", "gp-count");

	xmlNodePtr wrap = el(d, s, "div", NULL);
	attr(d, wrap, "class", "gp-wrap");
	size_t ndetail = 0;
	for (size_t c = 0; c < t->ncols; c++) {
		ndetail += (t->cols[c].flags & GPR_COL_DETAIL) != 0;
	}
	xmlNodePtr tab = el(d, wrap, "table", NULL);
	attr(d, tab, "class", ndetail ? "gp-table gp-has-more" : "gp-table");
	attr(d, tab, "data-key", key);
	xmlNodePtr tr = el(d, el(d, tab, "thead", NULL), "tr", NULL);
	for (size_t c = 0; c < t->ncols; c++) {
		if (t->cols[c].flags & GPR_COL_DETAIL) {
			continue;
		}
		gp_strbuf_reset(&d->cell);
		bool ch = gpr_fmt_header(&d->cell, d->disp, t->cols[c].name,
					 html_col_flags(&t->cols[c]));
		xmlNodePtr th = header_cell(d, tr, ch && !d->cell.failed ? d->cell.buf : t->cols[c].name);
		d->failed |= ch && d->cell.failed;
		if ((t->cols[c].flags & GPR_COL_NUM) && !(t->cols[c].flags & GPR_COL_LEFT)) {
			attr(d, th, "class", "num");
		}
	}
	if (ndetail) {
		header_cell(d, tr, "Details");
	}
	xmlNodePtr body = el(d, tab, "tbody", NULL);
	for (size_t r = 0; r < rows && !d->failed; r++) {
		tr = el(d, body, "tr", NULL);
		for (size_t c = 0; c < t->ncols; c++) {
			if (!(t->cols[c].flags & GPR_COL_DETAIL)) {
				table_cell(d, tr, t, r, c);
			}
		}
		if (ndetail) {
			detail_cell(d, tr, t, r, ndetail);
		}
	}
	return d->failed ? -GP_ERR_NOMEM : 0;
}

/*
 * A column header whose words never break inside (not at a hyphen either):
 * each word a no-wrap span, the lines break only at the spaces between.
 */
static xmlNodePtr header_cell(struct doc *d, xmlNodePtr tr, const char *name)
{
	xmlNodePtr th = el(d, tr, "th", NULL);
	char word[128];

	for (const char *p = name; *p && !d->failed;) {
		size_t n = strcspn(p, " ");
		if (n >= sizeof(word)) {
			n = sizeof(word) - 1;
		}
		memcpy(word, p, n);
		word[n] = 0;
		attr(d, el(d, th, "span", word), "class", "w");
		p += n;
		if (*p == ' ') {
			xmlNodePtr sp = xmlNewText(BAD_CAST " ");
			if (!sp || !xmlAddChild(th, sp)) {
				xmlFreeNode(sp);
				d->failed = true;
			}
			p += strspn(p, " ");
		}
	}
	return th;
}

/* A placeholder the script draws into, with what to say without script. */
static void chart(struct doc *d, xmlNodePtr parent, const char *id, const char *caption)
{
	xmlNodePtr fig = el(d, parent, "figure", NULL);
	xmlNodePtr div = el(d, fig, "div", NULL);

	attr(d, div, "id", id);
	attr(d, div, "class", "gp-chart");
	el(d, fig, "figcaption", caption);
}

/*
 * The page's data blob into clean (escaped for a <script>): the report's
 * JSON, idle totals, the timeline. rep is scratch.
 */
static int data_blob(struct gp_strbuf *clean, struct gp_strbuf *rep,
		     const struct gpr_report_parts *p, const struct gpr_html_opts *o)
{
	struct gp_strbuf data = GP_STRBUF_INIT;
	int ret;

	ret = gpr_report_render(rep, GPR_FORMAT_JSON, p);
	if (ret) {
		goto out;
	}
	while (rep->len && (rep->buf[rep->len - 1] == '\n')) {
		rep->buf[--rep->len] = 0;
	}
	gp_strbuf_adds(&data, "{\"schema\":\"gpuprof-html/2\",\"report\":");
	gp_strbuf_add(&data, rep->buf, rep->len);
	gaps_json(&data, p->gaps);
	ret = timeline_json(&data, p, o);
	if (ret) {
		goto out;
	}
	gp_strbuf_addch(&data, '}');
	add_clean(clean, data.buf, data.len, true);
	if (data.failed || clean->failed) {
		ret = -GP_ERR_NOMEM;
	}
out:
	gp_strbuf_release(&data);
	return ret;
}

/* <head>: encoding, viewport, generator, title and the style sheet. */
static int head_el(struct doc *d, xmlNodePtr html, const char *title)
{
	xmlNodePtr head = el(d, html, "head", NULL);

	/*
	 * The writer takes its output encoding from this http-equiv meta (it adds
	 * one); with none it turns non-ASCII into entities, inside scripts too.
	 */
	if (htmlSetMetaEncoding(d->doc, BAD_CAST "UTF-8")) {
		return -GP_ERR_NOMEM;
	}
	xmlNodePtr meta = el(d, head, "meta", NULL);
	attr(d, meta, "name", "viewport");
	attr(d, meta, "content", "width=device-width, initial-scale=1");
	meta = el(d, head, "meta", NULL);
	attr(d, meta, "name", "generator");
	attr(d, meta, "content", "gpuprof " GP_VERSION);
	el(d, head, "title", title);
	raw(d, head, "style", gpr_html_css, strlen(gpr_html_css));
	return 0;
}

/* <header>: the title and the headline's sentences; rep is scratch. */
static void header_el(struct doc *d, xmlNodePtr body, const char *title, struct gp_strbuf *rep,
		      const struct gpr_report_parts *p)
{
	xmlNodePtr hdr = el(d, body, "header", NULL);

	el(d, hdr, "h1", title);
	gp_strbuf_reset(rep);
	gpr_report_headline(rep, p);
	/* Skip the title line; one paragraph per sentence line. */
	char *line = rep->buf ? strchr(rep->buf, '\n') : NULL;
	while (line) {
		char *next = strchr(++line, '\n');
		if (next) {
			*next = 0;
		}
		if (*line) {
			xmlNodePtr para = el(d, hdr, "p", line);
			attr(d, para, "class", "headline");
		}
		line = next;
	}
}

static int finding_item(void *data, const char *head, const char *const *lines, size_t n)
{
	struct doc *d = data;
	xmlNodePtr li = el(d, d->tmp_parent, "li", NULL);

	el(d, li, "strong", head);
	xmlNodePtr ul = el(d, li, "ul", NULL);
	for (size_t i = 0; i < n; i++) {
		el(d, ul, "li", lines[i]);
	}
	return d->failed ? -GP_ERR_NOMEM : 0;
}

/* Findings first: the verdict, then each material finding with its evidence. */
static int findings_section(struct doc *d, const struct gpr_report_parts *p,
			    struct gp_strbuf *rep)
{
	if (!p->findings) {
		return 0;
	}
	xmlNodePtr s = section(d, "sec-findings", "Findings");
	gp_strbuf_reset(rep);
	gpr_findings_verdict(rep, p);
	xmlNodePtr v = el(d, s, "p", rep->buf);
	attr(d, v, "class", "gp-verdict");
	d->tmp_parent = el(d, s, "ol", NULL);
	attr(d, d->tmp_parent, "class", "gp-findings");
	return gpr_findings_each(p, finding_item, d);
}

static void warnings_section(struct doc *d, const struct gpr_report_parts *p)
{
	xmlNodePtr w = section(d, "sec-warnings", "Warnings");
	char est[GPR_ESTIMATES_MAX][256];
	size_t nest = gpr_report_estimates(p, est);

	if (!p->ov->warnings.n && !nest) {
		el(d, w, "p", "none");
		return;
	}
	xmlNodePtr ul = el(d, w, "ul", NULL);
	attr(d, ul, "class", "gp-warnings");
	for (size_t i = 0; i < p->ov->warnings.n; i++) {
		el(d, ul, "li", p->ov->warnings.v[i]);
	}
	for (size_t i = 0; i < nest; i++) {
		el(d, ul, "li", est[i]);
	}
}

/* The timeline's controls and box; the script draws it from the data blob. */
static void timeline_section(struct doc *d)
{
	xmlNodePtr tl = section(d, "sec-timeline", "Timeline");
	xmlNodePtr ctl = el(d, tl, "div", NULL);
	attr(d, ctl, "class", "gp-tools");
	xmlNodePtr lab = el(d, ctl, "label", "Step ");
	xmlNodePtr sel = el(d, lab, "select", NULL);
	attr(d, sel, "id", "gp-step");
	xmlNodePtr btn = el(d, ctl, "button", "Reset zoom");
	attr(d, btn, "id", "gp-reset");
	attr(d, btn, "type", "button");
	xmlNodePtr info = el(d, ctl, "span", NULL);
	attr(d, info, "id", "gp-tl-info");
	xmlNodePtr tlbox = el(d, tl, "div", NULL);
	attr(d, tlbox, "id", "gp-timeline");
	xmlNodePtr tip = el(d, tl, "div", NULL);
	attr(d, tip, "id", "gp-tip");
	attr(d, tip, "hidden", "hidden");
	el(d, tl, "p",
	   "Wheel or +/- to zoom, drag to pan, hover for details; GPU lanes are shaded where the "
	   "device was idle, coloured by cause.");
}

/*
 * The SVG keeps its own script and globals: it goes in a frame of its own,
 * as a data: URL, so nothing is fetched and nothing clashes.
 */
/* Allocated and reserved bytes over time, per device (report/memory-svg.c). */
static void memory_section(struct doc *d, const struct gpr_report_parts *p)
{
	struct gp_strbuf svg = GP_STRBUF_INIT, url = GP_STRBUF_INIT;
	xmlNodePtr sec;

	if (!p->memory || !p->memory->pools.n) {
		return;
	}
	sec = section(d, "sec-memory", "GPU memory over time");
	if (gpr_memory_svg(&svg, p->m, p->memory)) {
		d->failed = true;
	} else {
		gp_strbuf_adds(&url, "data:image/svg+xml;base64,");
		add_base64(&url, svg.buf, svg.len);
		char style[48];
		xmlNodePtr fr = el(d, sec, "iframe", NULL);
		attr(d, fr, "class", "gp-memory");
		attr(d, fr, "title", "allocated and reserved bytes over time, per device");
		attr(d, fr, "src", url.failed ? "" : url.buf);
		d->failed |= url.failed;
		snprintf(style, sizeof(style), "width: 740px; height: %zupx; border: 0",
			 p->memory->pools.n * 200 + 50);
		attr(d, fr, "style", style);
		d->failed |= url.failed;
	}
	el(d, sec, "p",
	   "Bytes allocated (and reserved by the caching allocator, where the trace says) "
	   "after each allocation or release; gpuprof memory has the peaks, what held them "
	   "and the growth across steps.");
	gp_strbuf_release(&svg);
	gp_strbuf_release(&url);
}

/* The operators on the device's roofline (report/ops-svg.c); left out without models. */
static void roofline_section(struct doc *d, const struct gpa_ops *ops)
{
	struct gp_strbuf svg = GP_STRBUF_INIT, url = GP_STRBUF_INIT;

	if (!ops) {
		return;
	}
	if (gpr_ops_roofline_svg(&svg, d->disp, ops)) {
		d->failed = true;
	} else if (svg.len) {
		xmlNodePtr sec = section(d, "sec-roofline", "Operator roofline");
		gp_strbuf_adds(&url, "data:image/svg+xml;base64,");
		add_base64(&url, svg.buf, svg.len);
		xmlNodePtr fr = el(d, sec, "iframe", NULL);
		attr(d, fr, "class", "gp-roofline");
		attr(d, fr, "title", "operators on the device roofline");
		attr(d, fr, "src", url.failed ? "" : url.buf);
		d->failed |= url.failed;
		attr(d, fr, "style", "width: 780px; height: 510px; border: 0");
		el(d, sec, "p",
		   "Each point is one operator with one set of recorded inputs: its FLOPs per byte "
		   "of minimum traffic against the TFLOP/s it achieved over its GPU time. Points "
		   "under the sloped memory roof are memory-bound, under a flat compute roof "
		   "compute-bound; hover for figures (gpuprof ops has the tables, docs/ops.md the "
		   "models).");
		d->failed |= url.failed;
	}
	gp_strbuf_release(&svg);
	gp_strbuf_release(&url);
}

static void flame_section(struct doc *d, const char *svg_doc, size_t len)
{
	struct gp_strbuf url = GP_STRBUF_INIT;
	xmlNodePtr fl = section(d, "sec-flame", "GPU-time flame graph");

	gp_strbuf_adds(&url, "data:image/svg+xml;base64,");
	add_base64(&url, svg_doc, len);
	xmlNodePtr fr = el(d, fl, "iframe", NULL);
	attr(d, fr, "class", "gp-flame");
	attr(d, fr, "title", "GPU-time flame graph");
	attr(d, fr, "src", url.failed ? "" : url.buf);
	d->failed |= url.failed;
	/* As tall as the drawing: its height attribute, within reason. */
	const char *svg = memmem(svg_doc, len, "<svg ", 5);
	const char *h = svg ? memmem(svg, len - (size_t)(svg - svg_doc), " height=\"", 9) : NULL;
	long px = h ? strtol(h + 9, NULL, 10) : 0;
	char style[48];
	snprintf(style, sizeof(style), "height: %ldpx", px >= 60 && px <= 20000 ? px + 8 : 420);
	attr(d, fr, "style", style);
	el(d, fl, "p",
	   "Process, thread, NVTX ranges open at the launch call, then the kernel, copy or "
	   "memset; width is GPU time. Click a frame to zoom, Ctrl-F to search "
	   "(gpuprof flame writes it on its own, also as folded stacks or speedscope).");
	if (url.failed) {
		d->failed = true;
	}
	gp_strbuf_release(&url);
}

int gpr_html_render(struct gp_strbuf *out, const struct gpr_report_parts *p,
		    const struct gpr_html_opts *o, char *errbuf, size_t errlen)
{
	struct doc d = {.tmp = GP_STRBUF_INIT, .cell = GP_STRBUF_INIT, .disp = p->display};
	struct gp_strbuf rep = GP_STRBUF_INIT, clean = GP_STRBUF_INIT;
	xmlChar *mem = NULL;
	int size = 0, ret = 0;
	const char *title = o->title ? o->title : "gpuprof report";

	ret = data_blob(&clean, &rep, p, o);
	if (ret) {
		goto out;
	}
	d.doc = htmlNewDocNoDtD(NULL, NULL);
	if (!d.doc || !xmlCreateIntSubset(d.doc, BAD_CAST "html", NULL, NULL)) {
		ret = -GP_ERR_NOMEM;
		goto out;
	}
	xmlNodePtr html = xmlNewNode(NULL, BAD_CAST "html");
	if (!html) {
		ret = -GP_ERR_NOMEM;
		goto out;
	}
	xmlDocSetRootElement(d.doc, html);
	attr(&d, html, "lang", "en");
	ret = head_el(&d, html, title);
	if (ret) {
		goto out;
	}
	xmlNodePtr body = el(&d, html, "body", NULL);
	header_el(&d, body, title, &rep, p);
	d.nav = el(&d, el(&d, body, "nav", NULL), "ol", NULL);
	d.main = el(&d, body, "main", NULL);
	ret = findings_section(&d, p, &rep);
	if (ret) {
		goto out;
	}
	warnings_section(&d, p);
	timeline_section(&d);
	xmlNodePtr ch = section(&d, "sec-charts", "Steps and idle time");
	attr(&d, ch, "class", "gp-charts");
	chart(&d, ch, "gp-chart-steps", "Step wall time and GPU busy time, per step");
	chart(&d, ch, "gp-chart-idle", "GPU idle time by cause");
	chart(&d, ch, "gp-chart-hist", "Idle gaps by length");
	if (o->flame_svg && o->flame_svg_len) {
		flame_section(&d, o->flame_svg, o->flame_svg_len);
	}
	memory_section(&d, p);
	roofline_section(&d, o->roofline);
	ret = gpr_report_each_table(p, GPR_FORMAT_JSON, table_section, &d);
	if (!ret && o->critpath) {
		ret = gpr_critpath_each_table(p->m, p->steps, o->critpath, table_section, &d);
	}
	if (ret) {
		goto out;
	}

	xmlNodePtr ds = raw(&d, body, "script", clean.buf, clean.len);
	attr(&d, ds, "type", "application/json");
	attr(&d, ds, "id", "gp-data");
	raw(&d, body, "script", gpr_html_js, strlen(gpr_html_js));
	if (d.failed) {
		ret = -GP_ERR_NOMEM;
		goto out;
	}

	htmlDocDumpMemoryFormat(d.doc, &mem, &size, 0);
	if (!mem || size <= 0) {
		ret = -GP_ERR_NOMEM;
		goto out;
	}
	gp_strbuf_add(out, mem, (size_t)size);
	if (out->failed) {
		ret = -GP_ERR_NOMEM;
	}
out:
	if (ret == -GP_ERR_NOMEM) {
		snprintf(errbuf, errlen, "out of memory writing the HTML report");
	} else if (ret) {
		snprintf(errbuf, errlen, "the HTML report could not be written");
	}
	xmlFree(mem);
	if (d.doc) {
		xmlFreeDoc(d.doc);
	}
	gp_strbuf_release(&d.tmp);
	gp_strbuf_release(&d.cell);
	gp_strbuf_release(&rep);
	gp_strbuf_release(&clean);
	return ret;
}
