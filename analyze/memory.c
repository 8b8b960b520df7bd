/* SPDX-License-Identifier: MIT */
/*
 * memory.c - GPU memory over time, its peaks and their owners, leaks,
 * fragmentation and churn (analyze/memory.h, docs/memory.md).
 *
 * One pass over the model's memory events (by time) keeps, per pool, the
 * bytes allocated after each event (the source's total when it gave one,
 * else the previous value plus or minus the event's size) and the live
 * allocations by address, so that each allocation learns which event
 * released it. Everything else reads those two arrays: what was live at
 * the peak is every allocation of the pool made at or before the peak event
 * and released after it (or never).
 */
#define GP_LOG_TAG "analyze/memory"
#include "base/compat.h"
#include "analyze/memory.h"
#include "analyze/steps.h"

#include <stdlib.h>
#include <string.h>

void gpa_memory_opts_init(struct gpa_memory_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->top = 10;
}

const char *gpa_mem_phase_name(unsigned phase)
{
	static const char *const names[] = {"unknown", "forward", "backward", "optimizer"};
	return phase < GP_ARRAY_SIZE(names) ? names[phase] : "unknown";
}

/* ------------------------------------------------------------ owners */

/* The phase a range's own name says, 0xff when it says none. */
static uint8_t name_phase(const char *s)
{
	if (strstr(s, "Backward") || strstr(s, "backward")) {
		return GPA_MEM_PHASE_BACKWARD;
	}
	if (strstr(s, "Optimizer") || strstr(s, "optimizer")) {
		return GPA_MEM_PHASE_OPTIMIZER;
	}
	if (strstr(s, "forward") || strstr(s, "Forward")) {
		return GPA_MEM_PHASE_FORWARD;
	}
	return 0xff;
}

struct owners {
	uint32_t *outer;  /* per NVTX row: outermost CPU op of its chain, else the row itself */
	uint8_t *phase;   /* per NVTX row: innermost phase of its chain; 0xfe not known yet */
};

/*
 * Fills the memo of row r and of the rows above it not yet known,
 * iteratively (a file may nest ranges deeply). path: scratch.
 */
static int owner_fill(const struct gpa_model *m, struct owners *o, uint32_t r, uint32_t *path)
{
	size_t n = 0;

	while (r != GPA_NONE && o->phase[r] == 0xfe && n < m->nvtx.n) {
		path[n++] = r;
		r = m->nvtx.parent[r];
	}
	while (n) {
		uint32_t x = path[--n], p = m->nvtx.parent[x];
		uint8_t ph = name_phase(gpa_model_str(m, m->nvtx.name[x]));
		uint8_t pph = p != GPA_NONE && o->phase[p] != 0xfe ? o->phase[p] : 0xff;
		uint32_t pout = p != GPA_NONE && o->phase[p] != 0xfe ? o->outer[p] : GPA_NONE;
		o->phase[x] = ph != 0xff ? ph : pph;
		if (pout != GPA_NONE && m->nvtx.origin[pout] == GPA_RANGE_CPU_OP) {
			o->outer[x] = pout;
		} else {
			o->outer[x] = x;
		}
	}
	return 0;
}

/* Groups rows by thread: rows[first[t] .. first[t + 1]) in their order. */
static int group_by_thread(const uint32_t *thread, size_t n, size_t stride, size_t nth,
			   uint32_t **rows, size_t **first)
{
	size_t *f = calloc(nth + 2, sizeof(*f));
	uint32_t *r = malloc((n ? n : 1) * sizeof(*r));

	if (!f || !r) {
		free(f);
		free(r);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t t = *(const uint32_t *)((const char *)thread + i * stride);
		f[(t < nth ? t : nth) + 1]++;
	}
	for (size_t t = 0; t <= nth; t++) {
		f[t + 1] += f[t];
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t t = *(const uint32_t *)((const char *)thread + i * stride);
		r[f[t < nth ? t : nth]++] = (uint32_t)i;
	}
	memmove(f + 1, f, nth * sizeof(*f));
	f[0] = 0;
	*rows = r;
	*first = f;
	return 0;
}

/*
 * Events a recorder tied to their API call by correlation (CUPTI MEMORY2:
 * no thread of its own): the innermost NVTX range around that call.
 */
static int ranges_by_call(const struct gpa_model *m, uint32_t *own)
{
	struct gp_u64map calls = GP_U64MAP_INIT;
	bool any = false;
	int ret = 0;

	for (size_t i = 0; i < m->mem.n && !any; i++) {
		any = m->mem.v[i].thread == GPA_NONE && m->mem.v[i].corr;
	}
	if (!any) {
		return 0;
	}
	for (size_t a = 0; a < m->api.n && !ret; a++) {
		if (!m->api.corr[a] || m->api.thread[a] >= m->threads.n) {
			continue;
		}
		uint64_t key = (uint64_t)m->threads.v[m->api.thread[a]].proc << 32 | m->api.corr[a];
		ret = gp_u64map_put(&calls, key, a + 1) < 0 ? -GP_ERR_NOMEM : 0;
	}
	for (size_t i = 0; i < m->mem.n && !ret; i++) {
		const struct gpa_mem_ev *e = &m->mem.v[i];
		if (e->thread != GPA_NONE || !e->corr) {
			continue;
		}
		uint64_t row = gp_u64map_get(&calls, (uint64_t)e->proc << 32 | e->corr, 0);
		own[i] = row ? m->api.nvtx[row - 1] : GPA_NONE;
	}
	gp_u64map_release(&calls);
	return ret;
}

/* own[i]: the innermost push/pop range of event i's thread around its time, or GPA_NONE. */
static int event_ranges(const struct gpa_model *m, uint32_t *own)
{
	size_t nth = m->threads.n;
	uint32_t *nrows = NULL, *erows = NULL, *stack = NULL;
	size_t *nfirst = NULL, *efirst = NULL;
	int ret;

	for (size_t i = 0; i < m->mem.n; i++) {
		own[i] = GPA_NONE;
	}
	if (!m->nvtx.n) {
		return 0;
	}
	ret = group_by_thread(m->nvtx.thread, m->nvtx.n, sizeof(uint32_t), nth, &nrows, &nfirst);
	if (!ret) {
		ret = group_by_thread(&m->mem.v[0].thread, m->mem.n, sizeof(m->mem.v[0]), nth, &erows,
				      &efirst);
	}
	if (!ret) {
		stack = malloc(m->nvtx.n * sizeof(*stack));
		ret = stack ? 0 : -GP_ERR_NOMEM;
	}
	for (size_t t = 0; !ret && t < nth; t++) {
		size_t ni = nfirst[t], ne = nfirst[t + 1], ei = efirst[t], ee = efirst[t + 1];
		size_t sp = 0;
		while (ei < ee) {
			uint32_t er = erows[ei];
			uint64_t ts = m->mem.v[er].ts;
			if (ni < ne && m->nvtx.start[nrows[ni]] <= ts) {
				uint32_t nr = nrows[ni++];
				if (m->nvtx.type[nr] != GPT_NVTX_PUSH_POP ||
				    m->nvtx.origin[nr] == GPA_RANGE_GPU_ANNOTATION) {
					continue;
				}
				while (sp && m->nvtx.end[stack[sp - 1]] < m->nvtx.start[nr]) {
					sp--;
				}
				stack[sp++] = nr;
				continue;
			}
			while (sp && m->nvtx.end[stack[sp - 1]] < ts) {
				sp--;
			}
			own[er] = sp ? stack[sp - 1] : GPA_NONE;
			ei++;
		}
	}
	free(nrows);
	free(erows);
	free(nfirst);
	free(efirst);
	free(stack);
	return ret ? ret : ranges_by_call(m, own);
}

/* ------------------------------------------------------------ the pass */

struct pool_state {
	uint64_t cur, res;
	bool has_res;
	struct gp_u64map live; /* address -> event index + 1; 0 released */
};

struct ctx {
	const struct gpa_model *m;
	const struct gpa_memory_opts *o;
	struct gpa_memory *r;
	struct pool_state *st;
	size_t nst;
	uint32_t *free_of; /* per event: the event that released it, GPA_NONE */
	uint32_t *own;     /* per event: the owning range (outermost CPU op or innermost range) */
	uint8_t *phase;    /* per event */
};

static uint32_t pool_of(struct ctx *c, const struct gpa_mem_ev *e)
{
	struct gpa_memory *r = c->r;
	bool host = e->flags & GPT_MEMORY_HOST;

	for (size_t i = r->pools.n; i-- > 0;) {
		const struct gpa_mem_pool *p = &r->pools.v[i];
		if (p->proc == e->proc && p->dev_id == e->dev_id && p->host == host &&
		    p->dev_type == e->dev_type) {
			return (uint32_t)i;
		}
	}
	struct gpa_mem_pool p = {.proc = e->proc, .dev_id = e->dev_id, .dev_type = e->dev_type,
				 .host = host, .first_ts = e->ts};
	if (!host) {
		for (size_t d = 0; d < c->m->devs.n; d++) {
			if (c->m->devs.v[d].proc == e->proc && c->m->devs.v[d].id == e->dev_id) {
				p.capacity = c->m->devs.v[d].global_mem_bytes;
			}
		}
	}
	if (gp_vec_push(&r->pools, p)) {
		return GPA_NONE;
	}
	if (r->pools.n > c->nst) {
		size_t n = c->nst ? c->nst * 2 : 8;
		struct pool_state *s = realloc(c->st, n * sizeof(*s));
		if (!s) {
			return GPA_NONE;
		}
		memset(s + c->nst, 0, (n - c->nst) * sizeof(*s));
		c->st = s;
		c->nst = n;
	}
	return (uint32_t)(r->pools.n - 1);
}

static int one_event(struct ctx *c, size_t i)
{
	const struct gpa_mem_ev *e = &c->m->mem.v[i];
	uint32_t pi = pool_of(c, e);
	struct gpa_mem_pool *p;
	struct pool_state *s;

	if (pi == GPA_NONE) {
		return -GP_ERR_NOMEM;
	}
	p = &c->r->pools.v[pi];
	s = &c->st[pi];
	p->events++;
	p->last_ts = e->ts;
	if (e->op == GPT_MEMORY_ALLOC) {
		p->allocs++;
		p->alloc_bytes += e->bytes;
		if (!(e->flags & GPT_MEMORY_HAS_TOTALS)) {
			s->cur += e->bytes;
		}
		if (e->addr && gp_u64map_put(&s->live, e->addr, i + 1) < 0) {
			return -GP_ERR_NOMEM;
		}
	} else {
		uint64_t *v = e->addr ? gp_u64map_find(&s->live, e->addr) : NULL;
		p->frees++;
		p->free_bytes += e->bytes;
		if (!(e->flags & GPT_MEMORY_HAS_TOTALS)) {
			s->cur = s->cur > e->bytes ? s->cur - e->bytes : 0;
		}
		if (v && *v) {
			c->free_of[*v - 1] = (uint32_t)i;
			*v = 0;
		} else {
			p->unmatched_frees++;
		}
	}
	if (e->flags & GPT_MEMORY_HAS_TOTALS) {
		s->cur = e->total_alloc;
	} else {
		p->rebuilt = true;
	}
	if (e->flags & GPT_MEMORY_HAS_RESERVED) {
		s->res = e->total_res;
		s->has_res = p->has_reserved = true;
		if (s->res > p->max_reserved) {
			p->max_reserved = s->res;
		}
	}
	c->r->ev_alloc[i] = s->cur;
	c->r->ev_pool[i] = pi;
	if (s->cur > p->peak || p->events == 1) {
		p->peak = s->cur;
		p->peak_ts = e->ts;
		p->peak_event = (uint32_t)i;
		p->peak_reserved = s->has_res ? s->res : 0;
		p->peak_phase = e->op == GPT_MEMORY_ALLOC ? c->phase[i] : GPA_MEM_PHASE_UNKNOWN;
	}
	return 0;
}

/* ------------------------------------------------------------ grouping */

static int owner_cmp(const void *a, const void *b)
{
	const struct gpa_mem_owner *x = a, *y = b;

	if (x->bytes != y->bytes) {
		return x->bytes > y->bytes ? -1 : 1;
	}
	if (x->count != y->count) {
		return x->count > y->count ? -1 : 1;
	}
	return x->name < y->name ? -1 : x->name > y->name;
}

typedef GP_VEC(struct gpa_mem_owner) owner_vec;

/*
 * Groups by owner the allocations of pool pi made in [t0, t1] at or before
 * event `upto` and live after event `upto` (released later or never); keeps
 * the top. *total: distinct owners; *bytes: their bytes.
 */
static int group_live(struct ctx *c, uint32_t pi, uint64_t t0, uint64_t t1, size_t upto,
		      owner_vec *out, uint64_t *total, uint64_t *bytes)
{
	const struct gpa_model *m = c->m;
	struct gp_u64map idx = GP_U64MAP_INIT;
	int ret = 0;

	*bytes = 0;
	for (size_t i = 0; i <= upto && i < m->mem.n && !ret; i++) {
		const struct gpa_mem_ev *e = &m->mem.v[i];
		if (c->r->ev_pool[i] != pi || e->op != GPT_MEMORY_ALLOC || e->ts < t0 || e->ts > t1 ||
		    !e->addr || (c->free_of[i] != GPA_NONE && c->free_of[i] <= upto)) {
			continue;
		}
		uint32_t name = c->own[i] == GPA_NONE ? 0 : m->nvtx.name[c->own[i]];
		uint64_t key = ((uint64_t)c->phase[i] << 32 | name) + 1, *slot;
		ret = gp_u64map_get_or_insert(&idx, key, out->n, &slot);
		if (ret < 0) {
			break;
		}
		if (ret == 1) {
			struct gpa_mem_owner o = {.name = name, .phase = c->phase[i]};
			if (gp_vec_push(out, o)) {
				ret = -GP_ERR_NOMEM;
				break;
			}
		}
		ret = 0;
		out->v[*slot].bytes += e->bytes;
		out->v[*slot].count++;
		*bytes += e->bytes;
	}
	gp_u64map_release(&idx);
	if (ret) {
		return -GP_ERR_NOMEM;
	}
	*total = out->n;
	gp_qsort(out->v, out->n, sizeof(*out->v), owner_cmp);
	if (out->n > c->o->top) {
		out->n = c->o->top;
	}
	return 0;
}

/* ------------------------------------------------------------ steps, leak */

/*
 * A step's stretch for memory: from its start to its end or the next step's
 * start, whichever comes first (a step's end includes its GPU work, which
 * may run into the next step's CPU range).
 */
static int pool_steps(struct ctx *c, uint32_t pi)
{
	const struct gpa_model *m = c->m;
	const struct gpa_steps *st = c->o->steps;
	struct gpa_mem_pool *p = &c->r->pools.v[pi];
	size_t k = 0, i;
	uint64_t last = 0;

	if (!st) {
		return 0;
	}
	for (size_t s = 0; s < st->v.n; s++) {
		const struct gpa_step *x = &st->v.v[s];
		if (x->proc != p->proc) {
			continue;
		}
		struct gpa_mem_step ms = {.step = (uint32_t)s, .number = x->number,
					  .start = x->start, .end = x->end};
		if (p->steps.n && p->steps.v[p->steps.n - 1].end >= x->start) {
			p->steps.v[p->steps.n - 1].end = x->start ? x->start - 1 : 0;
		}
		if (gp_vec_push(&p->steps, ms)) {
			return -GP_ERR_NOMEM;
		}
	}
	for (i = 0; i < m->mem.n; i++) {
		const struct gpa_mem_ev *e = &m->mem.v[i];
		if (c->r->ev_pool[i] != pi) {
			continue;
		}
		while (k < p->steps.n && p->steps.v[k].end < e->ts) {
			p->steps.v[k++].end_live = last;
		}
		last = c->r->ev_alloc[i];
		if (k >= p->steps.n || e->ts < p->steps.v[k].start) {
			continue;
		}
		struct gpa_mem_step *ms = &p->steps.v[k];
		if (!ms->has_events || last > ms->peak) {
			ms->peak = last;
			ms->peak_ts = e->ts;
		}
		ms->has_events = true;
		if (e->op == GPT_MEMORY_ALLOC) {
			ms->allocs++;
			ms->alloc_bytes += e->bytes;
			uint32_t f = c->free_of[i];
			if (f != GPA_NONE && m->mem.v[f].ts <= ms->end) {
				ms->churn++;
				ms->churn_bytes += e->bytes;
			}
		}
	}
	for (; k < p->steps.n; k++) {
		p->steps.v[k].end_live = last;
	}
	return 0;
}

/* The last event of pool pi at or before t; GPA_NONE when none. */
static size_t last_event_by(struct ctx *c, uint32_t pi, uint64_t t)
{
	size_t best = GPA_NONE;

	for (size_t i = 0; i < c->m->mem.n && c->m->mem.v[i].ts <= t; i++) {
		if (c->r->ev_pool[i] == pi) {
			best = i;
		}
	}
	return best;
}

/*
 * A leak: bytes live at step end rise at every step (the first step left
 * out as warm-up when there are four or more); the sites are what those
 * steps allocated and still held at the last one's end.
 */
static int pool_leak(struct ctx *c, uint32_t pi)
{
	struct gpa_mem_pool *p = &c->r->pools.v[pi];
	size_t n = p->steps.n, from = n >= 4 ? 1 : 0;
	uint64_t total, bytes;

	if (n < 3) {
		return 0;
	}
	for (size_t k = from + 1; k < n; k++) {
		if (p->steps.v[k].end_live <= p->steps.v[k - 1].end_live) {
			return 0;
		}
	}
	p->leak = true;
	p->leak_per_step = (p->steps.v[n - 1].end_live - p->steps.v[from].end_live) / (n - 1 - from);
	size_t upto = last_event_by(c, pi, p->steps.v[n - 1].end);
	if (upto == GPA_NONE) {
		return 0;
	}
	return group_live(c, pi, p->steps.v[from + 1 < n ? from + 1 : from].start,
			  p->steps.v[n - 1].end, upto, (owner_vec *)&p->leak_sites, &total, &bytes);
}

/* ------------------------------------------------------------ API calls */

static bool is_mm_call(const char *s)
{
	static const char *const pre[] = {
		"cudaMalloc", "cudaFree", "cudaHostAlloc", "cudaHostRegister", "cudaHostUnregister",
		"cuMemAlloc", "cuMemFree", "cuMemCreate", "cuMemRelease", "cuMemMap", "cuMemUnmap",
		"cuMemAddressReserve", "cuMemAddressFree", "cuMemHostAlloc", "cuMemHostRegister",
		"cuMemHostUnregister", "cuMemPoolTrimTo", "hipMalloc", "hipFree", "hipHostMalloc",
		"hipHostFree", "hipHostRegister",
	};
	for (size_t i = 0; i < GP_ARRAY_SIZE(pre); i++) {
		if (!strncmp(s, pre[i], strlen(pre[i]))) {
			return true;
		}
	}
	return false;
}

static void mm_calls(const struct gpa_model *m, struct gpa_memory *r)
{
	uint32_t last_name = GPA_NONE;
	bool last_mm = false;

	for (size_t i = 0; i < m->api.n; i++) {
		if (m->api.name[i] != last_name) {
			last_name = m->api.name[i];
			last_mm = is_mm_call(gpa_model_str(m, last_name));
		}
		if (!last_mm) {
			continue;
		}
		uint64_t d = m->api.end[i] - m->api.start[i];
		r->mm_calls++;
		r->mm_ns += d;
		if (d > r->mm_longest || r->mm_calls == 1) {
			r->mm_longest = d;
			r->mm_longest_name = last_name;
		}
	}
}

/* ------------------------------------------------------------ entry */

static int prepare(struct ctx *c)
{
	const struct gpa_model *m = c->m;
	size_t n = m->mem.n ? m->mem.n : 1;
	struct owners o = {0};
	uint32_t *path = NULL;
	int ret = -GP_ERR_NOMEM;

	c->r->ev_alloc = malloc(n * sizeof(*c->r->ev_alloc));
	c->r->ev_pool = malloc(n * sizeof(*c->r->ev_pool));
	c->free_of = malloc(n * sizeof(*c->free_of));
	c->own = malloc(n * sizeof(*c->own));
	c->phase = calloc(n, 1);
	if (!c->r->ev_alloc || !c->r->ev_pool || !c->free_of || !c->own || !c->phase) {
		return -GP_ERR_NOMEM;
	}
	memset(c->free_of, 0xff, n * sizeof(*c->free_of));
	if (event_ranges(m, c->own)) {
		return -GP_ERR_NOMEM;
	}
	if (!m->nvtx.n) {
		return 0;
	}
	o.outer = malloc(m->nvtx.n * sizeof(*o.outer));
	o.phase = malloc(m->nvtx.n);
	path = malloc(m->nvtx.n * sizeof(*path));
	if (o.outer && o.phase && path) {
		memset(o.phase, 0xfe, m->nvtx.n);
		for (size_t i = 0; i < m->mem.n; i++) {
			uint32_t r = c->own[i];
			if (r == GPA_NONE) {
				continue;
			}
			if (o.phase[r] == 0xfe) {
				owner_fill(m, &o, r, path);
			}
			c->own[i] = o.outer[r];
			c->phase[i] = o.phase[r] == 0xff ? GPA_MEM_PHASE_UNKNOWN : o.phase[r];
		}
		ret = 0;
	}
	free(o.outer);
	free(o.phase);
	free(path);
	return ret;
}

int gpa_memory_analyze(const struct gpa_model *m, const struct gpa_memory_opts *o,
		       struct gpa_memory *out, char *errbuf, size_t errlen)
{
	struct ctx c = {.m = m, .o = o, .r = out};
	int ret;

	memset(out, 0, sizeof(*out));
	out->top = o->top;
	out->events = m->mem.n;
	out->gap_memory_ns = o->gap_memory_ns;
	out->gap_known = o->gap_known;
	ret = prepare(&c);
	for (size_t i = 0; !ret && i < m->mem.n; i++) {
		ret = one_event(&c, i);
	}
	for (uint32_t pi = 0; !ret && pi < out->pools.n; pi++) {
		struct gpa_mem_pool *p = &out->pools.v[pi];
		uint64_t t0 = 0, t1 = UINT64_MAX;
		ret = group_live(&c, pi, t0, t1, p->peak_event, (owner_vec *)&p->owners,
				 &p->owners_total, &p->live_seen);
		if (!ret) {
			ret = pool_steps(&c, pi);
		}
		if (!ret) {
			ret = pool_leak(&c, pi);
		}
	}
	if (!ret) {
		mm_calls(m, out);
	}
	for (size_t i = 0; i < c.nst; i++) {
		gp_u64map_release(&c.st[i].live);
	}
	free(c.st);
	free(c.free_of);
	free(c.own);
	free(c.phase);
	if (ret) {
		snprintf(errbuf, errlen, "out of memory analyzing memory events");
		gpa_memory_release(out);
		return ret;
	}
	gp_debug("%" PRIu64 " memory events in %zu pools", out->events, out->pools.n);
	return 0;
}

void gpa_memory_release(struct gpa_memory *r)
{
	for (size_t i = 0; i < r->pools.n; i++) {
		gp_vec_free(&r->pools.v[i].owners);
		gp_vec_free(&r->pools.v[i].steps);
		gp_vec_free(&r->pools.v[i].leak_sites);
	}
	gp_vec_free(&r->pools);
	free(r->ev_alloc);
	free(r->ev_pool);
	memset(r, 0, sizeof(*r));
}
