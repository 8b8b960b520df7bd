/* SPDX-License-Identifier: MIT */
/*
 * memory.c - GPU memory over time, its peaks and their owners, leaks,
 * fragmentation and churn (analyze/memory.h, docs/memory.md).
 *
 * Two passes over the model's memory events (by time). The first keeps, per
 * pool, the bytes allocated after each event (the source's total when it
 * gave one, else the previous value plus or minus the event's size), the
 * live allocations by address (an open-addressing map that forgets an
 * address once released, so it holds the live set only), the event that
 * released each allocation, and each step's figures as the events go by.
 * The second reads only what the first found: what was live at the peak
 * (every allocation of the pool made at or before the peak event and
 * released after it, or never) and, for a leak, at the last step's end,
 * with the range that made each allocation, found by walking each thread's
 * ranges alongside the events that need one.
 */
#define GP_LOG_TAG "analyze/memory"
#include "base/compat.h"
#include "analyze/memory.h"
#include "analyze/gaps.h"
#include "analyze/steps.h"

#include <stdlib.h>
#include <string.h>

void gpa_memory_opts_init(struct gpa_memory_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->top = 10;
}

void gpa_memory_opts_gaps(struct gpa_memory_opts *o, const struct gpa_model *m,
			  const struct gpa_steps *steps)
{
	struct gpa_gaps_opts go;
	struct gpa_gaps g;
	char err[256];

	if (!gpa_gpu_rows(m)) {
		return;
	}
	gpa_gaps_opts_init(&go);
	go.top = 0;
	if (gpa_gaps_analyze(m, steps, &go, &g, err, sizeof(err))) {
		return;
	}
	o->gap_memory_ns = g.all.cause_ns[GPA_GAP_MEMORY];
	o->gap_known = true;
	gpa_gaps_release(&g);
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

	while (r != GPA_NONE && o->phase[r] == 0xfe && n < gpa_nvtx_rows(m)) {
		path[n++] = r;
		r = gpa_nvtx_parent(m, r);
	}
	while (n) {
		uint32_t x = path[--n], p = gpa_nvtx_parent(m, x);
		uint8_t ph = name_phase(gpa_model_str(m, gpa_nvtx_name(m, x)));
		uint8_t pph = p != GPA_NONE && o->phase[p] != 0xfe ? o->phase[p] : 0xff;
		uint32_t pout = p != GPA_NONE && o->phase[p] != 0xfe ? o->outer[p] : GPA_NONE;
		o->phase[x] = ph != 0xff ? ph : pph;
		if (pout != GPA_NONE && gpa_nvtx_origin(m, pout) == GPA_RANGE_CPU_OP) {
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

/* ------------------------------------------------------------ live addresses */

/*
 * Live allocations of one pool: address (never 0) -> value, open addressing
 * with linear probing and backward-shift removal, so a release leaves no
 * tombstone and the table stays as large as the most allocations ever live
 * at once, not as the addresses ever seen.
 */
struct addr_map {
	uint64_t *key, *val; /* key 0: empty */
	size_t n, mask;
};

static size_t addr_home(const struct addr_map *h, uint64_t key)
{
	return (size_t)gp_hash_u64(key) & h->mask;
}

static int addr_grow(struct addr_map *h)
{
	size_t cap = h->key ? (h->mask + 1) * 2 : 1024;
	struct addr_map g = {.key = calloc(cap, sizeof(uint64_t)),
			     .val = malloc(cap * sizeof(uint64_t)),
			     .mask = cap - 1};

	if (!g.key || !g.val) {
		free(g.key);
		free(g.val);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; h->key && i <= h->mask; i++) {
		if (h->key[i]) {
			size_t j = addr_home(&g, h->key[i]);
			while (g.key[j]) {
				j = (j + 1) & g.mask;
			}
			g.key[j] = h->key[i];
			g.val[j] = h->val[i];
		}
	}
	g.n = h->n;
	free(h->key);
	free(h->val);
	*h = g;
	return 0;
}

/* Sets key to val (replacing what it held). */
static int addr_put(struct addr_map *h, uint64_t key, uint64_t val)
{
	size_t j;

	if ((!h->key || (h->n + 1) * 2 > h->mask + 1) && addr_grow(h)) {
		return -GP_ERR_NOMEM;
	}
	for (j = addr_home(h, key); h->key[j] && h->key[j] != key; j = (j + 1) & h->mask) {
	}
	if (!h->key[j]) {
		h->key[j] = key;
		h->n++;
	}
	h->val[j] = val;
	return 0;
}

/* Removes key; its value in *val. Returns false when key is not there. */
static bool addr_take(struct addr_map *h, uint64_t key, uint64_t *val)
{
	size_t i, j;

	if (!h->key) {
		return false;
	}
	for (i = addr_home(h, key); h->key[i] != key; i = (i + 1) & h->mask) {
		if (!h->key[i]) {
			return false;
		}
	}
	*val = h->val[i];
	for (j = (i + 1) & h->mask; h->key[j]; j = (j + 1) & h->mask) {
		size_t home = addr_home(h, h->key[j]);
		/* the entry at j may move back to i unless its home lies in (i, j] */
		if (i <= j ? home > i && home <= j : home > i || home <= j) {
			continue;
		}
		h->key[i] = h->key[j];
		h->val[i] = h->val[j];
		i = j;
	}
	h->key[i] = 0;
	h->n--;
	return true;
}

static void addr_release(struct addr_map *h)
{
	free(h->key);
	free(h->val);
	memset(h, 0, sizeof(*h));
}

/* ------------------------------------------------------------ the first pass */

struct pool_state {
	uint64_t cur, res;
	bool has_res;
	struct addr_map live; /* address -> (step + 1) << 32 | allocating event */
	size_t k;             /* step cursor */
	uint64_t last;        /* allocated after the pool's previous event */
	uint64_t last_end;    /* end of its last step */
	uint32_t leak_upto;   /* its last event at or before last_end, GPA_NONE */
};

struct ctx {
	const struct gpa_model *m;
	const struct gpa_memory_opts *o;
	struct gpa_memory *r;
	GP_VEC(struct pool_state) st; /* by pool */
	uint32_t *pool_of;            /* per gpa_model.mem_where row: its pool, GPA_NONE */
	uint32_t *free_of;            /* per allocation event: the event that released it */
};

/*
 * The steps of a new pool's process. A step's stretch for memory: from its
 * start to its end or the next step's start, whichever comes first (a
 * step's end includes its GPU work, which may run into the next step's CPU
 * range).
 */
static int pool_steps(struct ctx *c, struct gpa_mem_pool *p)
{
	const struct gpa_steps *st = c->o->steps;

	for (size_t s = 0; st && s < st->v.n; s++) {
		const struct gpa_step *x = &st->v.v[s];
		if (x->proc != p->proc) {
			continue;
		}
		struct gpa_mem_step ms = {.step = (uint32_t)s,
					  .number = x->number,
					  .start = x->start,
					  .end = x->end};
		if (p->steps.n && p->steps.v[p->steps.n - 1].end >= x->start) {
			p->steps.v[p->steps.n - 1].end = x->start ? x->start - 1 : 0;
		}
		if (gp_vec_push(&p->steps, ms)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

/* The pool of event i's place, made on its first event; GPA_NONE out of memory. */
static uint32_t new_pool(struct ctx *c, size_t i)
{
	const struct gpa_model *m = c->m;
	struct gpa_memory *r = c->r;
	const struct gpa_mem_where *w = &m->mem_where.v[gpa_mem_where(m, i)];
	struct gpa_mem_pool p = {.proc = w->proc,
				 .dev_id = w->dev_id,
				 .dev_type = w->dev_type,
				 .host = w->host,
				 .first_ts = gpa_mem_ts(m, i)};
	struct pool_state s = {.leak_upto = GPA_NONE};

	if (!w->host) {
		for (size_t d = 0; d < m->devs.n; d++) {
			if (m->devs.v[d].proc == w->proc && m->devs.v[d].id == w->dev_id) {
				p.capacity = m->devs.v[d].global_mem_bytes;
			}
		}
	}
	if (pool_steps(c, &p) || gp_vec_push(&r->pools, p)) {
		gp_vec_free(&p.steps);
		return GPA_NONE;
	}
	if (gp_vec_push(&c->st, s)) {
		return GPA_NONE;
	}
	if (p.steps.n) {
		c->st.v[c->st.n - 1].last_end = p.steps.v[p.steps.n - 1].end;
	}
	/* A second pool: events need their pool written down (the first ones were in pool 0). */
	if (r->pools.n == 2) {
		r->ev_pool = calloc(gpa_mem_rows(m), sizeof(*r->ev_pool));
		if (!r->ev_pool) {
			return GPA_NONE;
		}
	}
	c->pool_of[gpa_mem_where(m, i)] = (uint32_t)(r->pools.n - 1);
	return (uint32_t)(r->pools.n - 1);
}

/* Event i against the steps of its pool: each step's peak, allocations, bytes live at its end. */
static uint32_t step_event(struct gpa_mem_pool *p, struct pool_state *s, const struct gpa_model *m,
			   size_t i)
{
	uint64_t ts = gpa_mem_ts(m, i);

	while (s->k < p->steps.n && p->steps.v[s->k].end < ts) {
		p->steps.v[s->k++].end_live = s->last;
	}
	s->last = s->cur;
	if (s->k >= p->steps.n || ts < p->steps.v[s->k].start) {
		return 0;
	}
	struct gpa_mem_step *ms = &p->steps.v[s->k];
	if (!ms->has_events || s->cur > ms->peak) {
		ms->peak = s->cur;
		ms->peak_ts = ts;
	}
	ms->has_events = true;
	if (gpa_mem_op(m, i) == GPT_MEMORY_ALLOC) {
		ms->allocs++;
		ms->alloc_bytes += gpa_mem_bytes(m, i);
	}
	return (uint32_t)s->k + 1;
}

/* A release: the allocation it ends learns so, and its step counts it when both fall in it. */
static void release(struct ctx *c, struct gpa_mem_pool *p, struct pool_state *s, size_t i)
{
	uint64_t v;

	if (!gpa_mem_addr(c->m, i) || !addr_take(&s->live, gpa_mem_addr(c->m, i), &v)) {
		p->unmatched_frees++;
		return;
	}
	uint32_t a = (uint32_t)v, k = (uint32_t)(v >> 32);
	c->free_of[a] = (uint32_t)i;
	if (k && gpa_mem_ts(c->m, i) <= p->steps.v[k - 1].end) {
		p->steps.v[k - 1].churn++;
		p->steps.v[k - 1].churn_bytes += gpa_mem_bytes(c->m, a);
	}
}

static int one_event(struct ctx *c, size_t i, uint32_t pi)
{
	struct gpa_mem_pool *p = &c->r->pools.v[pi];
	struct pool_state *s = &c->st.v[pi];
	uint8_t flags = gpa_mem_flags(c->m, i);
	bool alloc = gpa_mem_op(c->m, i) == GPT_MEMORY_ALLOC;

	p->events++;
	p->last_ts = gpa_mem_ts(c->m, i);
	if (alloc) {
		p->allocs++;
		p->alloc_bytes += gpa_mem_bytes(c->m, i);
		if (!(flags & GPT_MEMORY_HAS_TOTALS)) {
			s->cur += gpa_mem_bytes(c->m, i);
		}
	} else {
		p->frees++;
		p->free_bytes += gpa_mem_bytes(c->m, i);
		if (!(flags & GPT_MEMORY_HAS_TOTALS)) {
			s->cur = s->cur > gpa_mem_bytes(c->m, i) ? s->cur - gpa_mem_bytes(c->m, i)
								 : 0;
		}
		release(c, p, s, i);
	}
	if (flags & GPT_MEMORY_HAS_TOTALS) {
		s->cur = gpa_mem_total_alloc(c->m, i);
	} else {
		p->rebuilt = true;
	}
	if (flags & GPT_MEMORY_HAS_RESERVED) {
		s->res = gpa_mem_total_res(c->m, i);
		s->has_res = p->has_reserved = true;
		if (s->res > p->max_reserved) {
			p->max_reserved = s->res;
		}
	}
	if (s->cur > p->peak || p->events == 1) {
		p->peak = s->cur;
		p->peak_ts = gpa_mem_ts(c->m, i);
		p->peak_event = (uint32_t)i;
		p->peak_reserved = s->has_res ? s->res : 0;
	}
	uint64_t k = step_event(p, s, c->m, i);
	if (gpa_mem_ts(c->m, i) <= s->last_end) {
		s->leak_upto = (uint32_t)i;
	}
	if (alloc) {
		c->free_of[i] = GPA_NONE;
		if (gpa_mem_addr(c->m, i) &&
		    addr_put(&s->live, gpa_mem_addr(c->m, i), k << 32 | i)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

/*
 * Every event in time order. The bytes allocated after each event are the
 * model's own totals as long as every event carries one: only a trace with
 * an event without totals gets an array of its own.
 */
static int first_pass(struct ctx *c)
{
	const struct gpa_model *m = c->m;
	struct gpa_memory *r = c->r;
	uint32_t last_where = GPA_NONE, pi = GPA_NONE;
	int ret = 0;

	for (size_t i = 0; i < gpa_mem_rows(m) && !ret; i++) {
		if (gpa_mem_where(m, i) != last_where) {
			last_where = gpa_mem_where(m, i);
			pi = c->pool_of[last_where];
			if (pi == GPA_NONE && (pi = new_pool(c, i)) == GPA_NONE) {
				return -GP_ERR_NOMEM;
			}
		}
		if (r->ev_pool) {
			r->ev_pool[i] = pi;
		}
		ret = one_event(c, i, pi);
		if (!r->ev_alloc_own && !(gpa_mem_flags(m, i) & GPT_MEMORY_HAS_TOTALS)) {
			r->ev_alloc_own = malloc(gpa_mem_rows(m) * sizeof(*r->ev_alloc_own));
			if (!r->ev_alloc_own) {
				return -GP_ERR_NOMEM;
			}
			for (size_t j = 0; j < i; j++) {
				r->ev_alloc_own[j] = gpa_mem_total_alloc(m, j);
			}
		}
		if (r->ev_alloc_own) {
			r->ev_alloc_own[i] = c->st.v[pi].cur;
		}
	}
	r->ev_alloc = r->ev_alloc_own ? r->ev_alloc_own : gpa_mem_total_alloc_col(m);
	for (size_t q = 0; q < r->pools.n; q++) {
		struct gpa_mem_pool *p = &r->pools.v[q];
		struct pool_state *s = &c->st.v[q];
		for (; s->k < p->steps.n; s->k++) {
			p->steps.v[s->k].end_live = s->last;
		}
	}
	return ret;
}

/*
 * Events a recorder tied to their API call by correlation (CUPTI MEMORY2:
 * no thread of its own): the key of the call, (process, correlation), to
 * the innermost NVTX range around it + 1. Empty when no event needs it.
 */
static int ranges_by_call(const struct gpa_model *m, struct gp_u64map *calls)
{
	bool any = false;

	for (size_t i = 0; gpa_mem_has_corr(m) && i < gpa_mem_rows(m) && !any; i++) {
		any = gpa_mem_thread(m, i) == GPA_NONE && gpa_mem_corr(m, i);
	}
	for (size_t a = 0; any && a < gpa_api_rows(m); a++) {
		if (!gpa_api_corr(m, a) || gpa_api_thread(m, a) >= m->threads.n) {
			continue;
		}
		uint64_t key = (uint64_t)m->threads.v[gpa_api_thread(m, a)].proc << 32 |
			       gpa_api_corr(m, a);
		if (gp_u64map_put(calls, key, a + 1) < 0) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

/*
 * The ranges around events, found thread by thread in time order: each
 * thread's push/pop ranges by start, a cursor into them and a stack of the
 * open ones. Asking only for some events gives the same answers as asking
 * for all: a later question pops everything an earlier one would have.
 */
struct walker {
	const struct gpa_model *m;
	uint32_t *rows;  /* NVTX rows grouped by thread, in start order */
	size_t *first;   /* thread t: rows[first[t] .. first[t + 1]) */
	size_t *next;    /* per thread: its next row to consider */
	uint32_t *stack; /* per thread: stack[first[t] ..], sp[t] deep */
	size_t *sp;
	struct gp_u64map calls;
	struct owners memo;
	uint32_t *path;
};

static int walker_init(struct walker *w, const struct gpa_model *m)
{
	size_t nth = m->threads.n, nn = gpa_nvtx_rows(m);

	memset(w, 0, sizeof(*w));
	w->m = m;
	if (ranges_by_call(m, &w->calls)) {
		return -GP_ERR_NOMEM;
	}
	if (!nn) {
		return 0;
	}
	if (group_by_thread(gpa_nvtx_thread_col(m), nn, sizeof(uint32_t), nth, &w->rows,
			    &w->first)) {
		return -GP_ERR_NOMEM;
	}
	w->next = malloc((nth + 1) * sizeof(*w->next));
	w->sp = calloc(nth + 1, sizeof(*w->sp));
	w->stack = malloc(nn * sizeof(*w->stack));
	w->memo.outer = malloc(nn * sizeof(*w->memo.outer));
	w->memo.phase = malloc(nn);
	w->path = malloc(nn * sizeof(*w->path));
	if (!w->next || !w->sp || !w->stack || !w->memo.outer || !w->memo.phase || !w->path) {
		return -GP_ERR_NOMEM;
	}
	memcpy(w->next, w->first, (nth + 1) * sizeof(*w->next));
	memset(w->memo.phase, 0xfe, nn);
	return 0;
}

static void walker_release(struct walker *w)
{
	free(w->rows);
	free(w->first);
	free(w->next);
	free(w->sp);
	free(w->stack);
	free(w->memo.outer);
	free(w->memo.phase);
	free(w->path);
	gp_u64map_release(&w->calls);
}

/* The innermost push/pop range of thread t open at ts (not before the thread's last question). */
static uint32_t walker_range(struct walker *w, uint32_t t, uint64_t ts)
{
	uint32_t *stack = w->stack + w->first[t];
	size_t sp = w->sp[t], ni = w->next[t], ne = w->first[t + 1];

	for (; ni < ne && gpa_nvtx_start(w->m, w->rows[ni]) <= ts; ni++) {
		uint32_t nr = w->rows[ni];
		if (gpa_nvtx_type(w->m, nr) != GPT_NVTX_PUSH_POP ||
		    gpa_nvtx_origin(w->m, nr) == GPA_RANGE_GPU_ANNOTATION) {
			continue;
		}
		while (sp && gpa_nvtx_end(w->m, stack[sp - 1]) < gpa_nvtx_start(w->m, nr)) {
			sp--;
		}
		stack[sp++] = nr;
	}
	while (sp && gpa_nvtx_end(w->m, stack[sp - 1]) < ts) {
		sp--;
	}
	w->next[t] = ni;
	w->sp[t] = sp;
	return sp ? stack[sp - 1] : GPA_NONE;
}

/* The owner of event i (outermost CPU op, else innermost range; GPA_NONE) and its phase. */
static uint32_t walker_owner(struct walker *w, size_t i, uint8_t *phase)
{
	const struct gpa_model *m = w->m;
	uint32_t t = gpa_mem_thread(m, i), r = GPA_NONE;

	*phase = GPA_MEM_PHASE_UNKNOWN;
	if (t == GPA_NONE) {
		uint32_t corr = gpa_mem_corr(m, i);
		if (corr && gp_u64map_count(&w->calls)) {
			uint32_t proc = m->mem_where.v[gpa_mem_where(m, i)].proc;
			uint64_t row = gp_u64map_get(&w->calls, (uint64_t)proc << 32 | corr, 0);
			r = row ? gpa_api_nvtx(m, row - 1) : GPA_NONE;
		}
	} else if (gpa_nvtx_rows(m) && t < m->threads.n) {
		r = walker_range(w, t, gpa_mem_ts(m, i));
	}
	if (r == GPA_NONE || r >= gpa_nvtx_rows(m)) {
		return GPA_NONE;
	}
	if (w->memo.phase[r] == 0xfe) {
		owner_fill(m, &w->memo, r, w->path);
	}
	*phase = w->memo.phase[r] == 0xff ? GPA_MEM_PHASE_UNKNOWN : w->memo.phase[r];
	return w->memo.outer[r];
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

/* Bytes live at one moment grouped by owner, in order of the first allocation of each. */
struct group {
	owner_vec *out;
	struct gp_u64map idx; /* (phase, name) + 1 -> row of out */
	uint64_t bytes;
	size_t upto;     /* allocations at or before this event, live after it */
	uint64_t t0, t1; /* made in [t0, t1] */
	bool on;
};

static int group_add(struct group *g, uint32_t name, uint8_t phase, uint64_t bytes)
{
	uint64_t key = ((uint64_t)phase << 32 | name) + 1, *slot;
	int ret = gp_u64map_get_or_insert(&g->idx, key, g->out->n, &slot);

	if (ret < 0) {
		return -GP_ERR_NOMEM;
	}
	if (ret == 1) {
		struct gpa_mem_owner o = {.name = name, .phase = phase};
		if (gp_vec_push(g->out, o)) {
			return -GP_ERR_NOMEM;
		}
	}
	g->out->v[*slot].bytes += bytes;
	g->out->v[*slot].count++;
	g->bytes += bytes;
	return 0;
}

/* Keeps the top of a group, most bytes first; its count of owners before that in *total. */
static void group_done(struct group *g, size_t top, uint64_t *total)
{
	gp_u64map_release(&g->idx);
	*total = g->out->n;
	gp_qsort(g->out->v, g->out->n, sizeof(*g->out->v), owner_cmp);
	if (g->out->n > top) {
		g->out->n = top;
	}
}

/* Whether allocation i belongs to group g: made in its window, live after its moment. */
static bool group_has(const struct ctx *c, const struct group *g, size_t i)
{
	return g->on && i <= g->upto && gpa_mem_addr(c->m, i) && gpa_mem_ts(c->m, i) >= g->t0 &&
	       gpa_mem_ts(c->m, i) <= g->t1 &&
	       (c->free_of[i] == GPA_NONE || c->free_of[i] > g->upto);
}

/*
 * A leak: bytes live at step end rise at every step (the first step left
 * out as warm-up when there are four or more); the sites are what those
 * steps allocated and still held at the last one's end.
 */
static void pool_leak(struct ctx *c, uint32_t pi, struct group *g)
{
	struct gpa_mem_pool *p = &c->r->pools.v[pi];
	size_t n = p->steps.n, from = n >= 4 ? 1 : 0;

	if (n < 3) {
		return;
	}
	for (size_t k = from + 1; k < n; k++) {
		if (p->steps.v[k].end_live <= p->steps.v[k - 1].end_live) {
			return;
		}
	}
	p->leak = true;
	p->leak_per_step = (p->steps.v[n - 1].end_live - p->steps.v[from].end_live) / (n - 1 - from);
	g->upto = c->st.v[pi].leak_upto;
	g->on = g->upto != GPA_NONE;
	g->t0 = p->steps.v[from + 1 < n ? from + 1 : from].start;
	g->t1 = p->steps.v[n - 1].end;
}

/*
 * The second pass: per pool, what was live at its peak and, for a leak, at
 * its last step's end, by owner; the phase of the allocation that made the
 * peak. It stops at the last event any of them needs.
 */
static int second_pass(struct ctx *c)
{
	const struct gpa_model *m = c->m;
	struct gpa_memory *r = c->r;
	size_t np = r->pools.n, end = 0;
	struct group *g = calloc(2 * (np ? np : 1), sizeof(*g));
	struct walker w;
	int ret = walker_init(&w, m);

	for (size_t q = 0; g && q < np; q++) {
		struct gpa_mem_pool *p = &r->pools.v[q];
		g[2 * q] = (struct group){.out = (owner_vec *)&p->owners,
					  .upto = p->peak_event,
					  .t1 = UINT64_MAX,
					  .on = true};
		g[2 * q + 1].out = (owner_vec *)&p->leak_sites;
		pool_leak(c, (uint32_t)q, &g[2 * q + 1]);
		end = p->peak_event + 1 > end ? p->peak_event + 1 : end;
		end = g[2 * q + 1].on && g[2 * q + 1].upto + 1 > end ? g[2 * q + 1].upto + 1 : end;
	}
	ret = g ? ret : -GP_ERR_NOMEM;
	for (size_t i = 0; !ret && i < end && i < gpa_mem_rows(m); i++) {
		if (gpa_mem_op(m, i) != GPT_MEMORY_ALLOC) {
			continue;
		}
		uint32_t q = gpa_memory_pool_at(r, i);
		struct gpa_mem_pool *p = &r->pools.v[q];
		bool peak = group_has(c, &g[2 * q], i), leak = group_has(c, &g[2 * q + 1], i);
		if (!peak && !leak && i != p->peak_event) {
			continue;
		}
		uint8_t phase;
		uint32_t own = walker_owner(&w, i, &phase);
		uint32_t name = own == GPA_NONE ? 0 : gpa_nvtx_name(m, own);
		if (i == p->peak_event) {
			p->peak_phase = phase;
		}
		if (peak) {
			ret = group_add(&g[2 * q], name, phase, gpa_mem_bytes(m, i));
		}
		if (leak && !ret) {
			ret = group_add(&g[2 * q + 1], name, phase, gpa_mem_bytes(m, i));
		}
	}
	for (size_t q = 0; g && q < np; q++) {
		uint64_t total;
		struct gpa_mem_pool *p = &r->pools.v[q];
		p->live_seen = g[2 * q].bytes;
		group_done(&g[2 * q], c->o->top, &p->owners_total);
		group_done(&g[2 * q + 1], c->o->top, &total);
	}
	free(g);
	walker_release(&w);
	return ret;
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

	for (size_t i = 0; i < gpa_api_rows(m); i++) {
		if (gpa_api_name(m, i) != last_name) {
			last_name = gpa_api_name(m, i);
			last_mm = is_mm_call(gpa_model_str(m, last_name));
		}
		if (!last_mm) {
			continue;
		}
		uint64_t d = gpa_api_dur(m, i);
		r->mm_calls++;
		r->mm_ns += d;
		if (d > r->mm_longest || r->mm_calls == 1) {
			r->mm_longest = d;
			r->mm_longest_name = last_name;
		}
	}
}

/* ------------------------------------------------------------ entry */

int gpa_memory_analyze(const struct gpa_model *m, const struct gpa_memory_opts *o,
		       struct gpa_memory *out, char *errbuf, size_t errlen)
{
	struct ctx c = {.m = m, .o = o, .r = out};
	int ret = -GP_ERR_NOMEM;

	memset(out, 0, sizeof(*out));
	out->top = o->top;
	out->events = gpa_mem_rows(m);
	out->gap_memory_ns = o->gap_memory_ns;
	out->gap_known = o->gap_known;
	c.pool_of = malloc((m->mem_where.n ? m->mem_where.n : 1) * sizeof(*c.pool_of));
	c.free_of = malloc((gpa_mem_rows(m) ? gpa_mem_rows(m) : 1) * sizeof(*c.free_of));
	if (c.pool_of && c.free_of) {
		gp_prefault(c.free_of, gpa_mem_rows(m) * sizeof(*c.free_of));
		memset(c.pool_of, 0xff, m->mem_where.n * sizeof(*c.pool_of));
		ret = first_pass(&c);
	}
	for (size_t i = 0; i < c.st.n; i++) {
		addr_release(&c.st.v[i].live);
	}
	free(c.pool_of);
	if (!ret) {
		ret = second_pass(&c);
	}
	if (!ret) {
		mm_calls(m, out);
	}
	gp_vec_free(&c.st);
	free(c.free_of);
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
	free(r->ev_alloc_own);
	free(r->ev_pool);
	memset(r, 0, sizeof(*r));
}
