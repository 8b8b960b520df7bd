/* SPDX-License-Identifier: MIT */
/*
 * coll-match.c - collectives matched across ranks (analyze/coll-match.h):
 *
 *   Taking: a rank's NCCL records with communicator hash and sequence
 *     number are keyed by both; a rank whose records carry none (PyTorch
 *     traces before 2024, imports) by their order per communicator, arriving
 *     at the GPU start when known; a rank without NCCL records (nsys exports,
 *     name rules only) by the order of its communication kernels per stream,
 *     arriving at the kernel's start.
 *   Matching: one key on two ranks or more is one collective; matched by
 *     order, its kind and size must agree. Its arrivals give skew = last -
 *     first; the last arrival makes each other rank wait (last - its
 *     arrival), charged to it. The GPU ends of one collective coincide on
 *     every rank (it completes when the last rank joins), so on aligned
 *     clocks they lie within GPA_COLL_END_NS: a group beyond is left out,
 *     and when most are, the clocks (or the traces' coverage) disagree and
 *     nothing is matched.
 *   Straggler: the rank last most often (ties: the most wait caused), when
 *     last in half the groups or more with a median lead over the next
 *     arrival of GPA_COLL_STRAGGLER_NS or more.
 */
#include "base/compat.h"
#include "analyze/coll-match.h"
#include "analyze/commclass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gpa_coll_by_name(uint8_t by)
{
	switch (by) {
	case GPA_COLL_SEQ:
		return "sequence number";
	case GPA_COLL_ORDER_COMM:
		return "order per communicator";
	case GPA_COLL_ORDER_STREAM:
		return "order per stream";
	default:
		GP_BUG("collective key %u", by);
	}
}

/* ---- taking a model's collectives */

/* What the rank of each process (or the one rank) holds: which rule takes its collectives. */
struct unit {
	bool ops, seq; /* NCCL collective records; some with communicator and sequence number */
};

static bool has_key(const struct gpa_nccl_op *op)
{
	return op->comm_hash && op->seq && !(op->flags & GPT_NCCL_P2P);
}

typedef GP_VEC(struct gpa_coll_src) src_vec;

/* The rank of process p: itself when each process is one, else the model's one. */
static uint32_t unit_of(const struct gpa_model *m, bool per_proc, uint32_t p)
{
	return per_proc && p < m->procs.n ? p : 0;
}

/* NCCL records: keyed by sequence number where the rank has them, else by order. */
static int take_ops(const struct gpa_model *m, const struct unit *u, bool per_proc, size_t max,
		    src_vec *v)
{
	for (size_t i = 0; i < m->nccl->ops.n && v->n < max; i++) {
		const struct gpa_nccl_op *op = &m->nccl->ops.v[i];
		uint32_t p = unit_of(m, per_proc, op->proc);
		if (op->flags & GPT_NCCL_P2P || (u[p].seq && !has_key(op))) {
			continue; /* each rank's peer differs: no order to share */
		}
		struct gpa_coll_src c = {.hash = op->comm_hash, .seq = u[p].seq ? op->seq : 0,
					 .by = u[p].seq ? GPA_COLL_SEQ : GPA_COLL_ORDER_COMM,
					 .func = gpa_model_str(m, op->func), .bytes = op->bytes,
					 .arrival = op->start, .end = op->end, .host_at = op->start,
					 .dev = op->dev, .proc = p, .op = (uint32_t)i};
		if (op->gpu_from != GPA_NCCL_GPU_NONE) {
			c.arrival = u[p].seq ? op->start : op->gpu_start;
			c.end = op->gpu_end;
			c.gpu_end = true;
		}
		if (gp_vec_push(v, c)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int cmp_kern_src(const void *a, const void *b)
{
	const struct gpa_coll_src *x = a, *y = b;

	if (x->proc != y->proc) {
		return x->proc < y->proc ? -1 : 1;
	}
	if (x->hash != y->hash) {
		return x->hash < y->hash ? -1 : 1;
	}
	if (x->arrival != y->arrival) {
		return x->arrival < y->arrival ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq; /* the kernel row, until numbered */
}

/* One stream's run of communication kernels in a rank's sorted list. */
struct srun {
	uint32_t proc, stream;
	uint64_t first; /* its first kernel's start */
	size_t from, to;
};

static int cmp_srun(const void *a, const void *b)
{
	const struct srun *x = a, *y = b;

	if (x->proc != y->proc) {
		return x->proc < y->proc ? -1 : 1;
	}
	if (x->first != y->first) {
		return x->first < y->first ? -1 : 1;
	}
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

/*
 * Each rank's communication streams in the order they first communicate:
 * ranks number their streams as they please (rank 0's NCCL stream 7 is rank
 * 1's stream 15), so a kernel's key is its stream's place in that order
 * (upper 32 bits; gpa_coll_stream_place) with the stream's id below it.
 */
static int stream_places(src_vec *v, size_t from)
{
	GP_VEC(struct srun) runs = {0};

	for (size_t i = from; i < v->n; i++) {
		const struct gpa_coll_src *c = &v->v[i];
		struct srun *l = runs.n ? &runs.v[runs.n - 1] : NULL;
		if (l && l->proc == c->proc && l->stream == c->hash) {
			l->to = i + 1;
			continue;
		}
		struct srun r = {c->proc, (uint32_t)c->hash, c->arrival, i, i + 1};
		if (gp_vec_push(&runs, r)) {
			gp_vec_free(&runs);
			return -GP_ERR_NOMEM;
		}
	}
	gp_qsort(runs.v, runs.n, sizeof(*runs.v), cmp_srun);
	for (size_t i = 0, place = 0; i < runs.n; i++) {
		place = i && runs.v[i].proc == runs.v[i - 1].proc ? place + 1 : 1;
		for (size_t k = runs.v[i].from; k < runs.v[i].to; k++) {
			v->v[k].hash = (uint64_t)place << 32 | runs.v[i].stream;
		}
	}
	gp_vec_free(&runs);
	return 0;
}

/* Communication kernels of ranks without NCCL records: by their order per stream. */
static int take_kernels(const struct gpa_model *m, const struct gpa_commclass *cc,
			const struct unit *u, bool per_proc, size_t max, src_vec *v)
{
	size_t from = v->n;

	for (size_t g = 0; g < gpa_gpu_rows(m); g++) {
		if (gpa_gpu_kind(m, g) != GPA_GPU_KERNEL || !gpa_commclass_gpu(cc, m, g)) {
			continue;
		}
		uint32_t k = gpa_gpu_row(m, g), dev = gpa_kern_dev(m, k);
		uint32_t p = unit_of(m, per_proc, dev < m->devs.n ? m->devs.v[dev].proc : 0);
		if (u[p].ops) {
			continue;
		}
		const char *fn = gpa_model_str(m, m->funcs.v[gpa_kern_func(m, k)].name);
		struct gpa_coll_src c = {.hash = gpa_kern_stream(m, k), .seq = k,
					 .by = GPA_COLL_ORDER_STREAM, .func = fn,
					 .arrival = gpa_kern_start(m, k), .end = gpa_kern_end(m, k),
					 .host_at = gpa_kern_start(m, k), .gpu_end = true,
					 .dev = dev, .proc = p, .op = GPA_NONE};
		if (gp_vec_push(v, c)) {
			return -GP_ERR_NOMEM;
		}
	}
	gp_qsort(v->v + from, v->n - from, sizeof(*v->v), cmp_kern_src);
	v->n = v->n > max ? max : v->n;
	return stream_places(v, from);
}

/* Collectives keyed by order: the n-th of each rank and key gets seq n, in the order taken. */
static int number_by_order(src_vec *v)
{
	struct gp_u64map next = GP_U64MAP_INIT;
	int ret = 0;

	for (size_t i = 0; i < v->n && !ret; i++) {
		struct gpa_coll_src *c = &v->v[i];
		uint64_t *at;
		if (c->by == GPA_COLL_SEQ) {
			continue;
		}
		if (i && c->proc != v->v[i - 1].proc) {
			gp_u64map_clear(&next);
		}
		if (gp_u64map_get_or_insert(&next, c->hash, 0, &at) < 0) {
			ret = -GP_ERR_NOMEM;
		} else {
			c->seq = ++*at;
		}
	}
	gp_u64map_release(&next);
	return ret;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct gpa_coll_src *x = a, *y = b;

	if (x->proc != y->proc) {
		return x->proc < y->proc ? -1 : 1;
	}
	if (x->op != y->op) {
		return x->op < y->op ? -1 : 1; /* NCCL records in their order, kernels after */
	}
	if (x->hash != y->hash) {
		return x->hash < y->hash ? -1 : 1;
	}
	if (x->arrival != y->arrival) {
		return x->arrival < y->arrival ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq; /* kernels: the row, until numbered */
}

int gpa_coll_take(const struct gpa_model *m, const struct gpa_commclass *cc, bool per_proc,
		  size_t max, struct gpa_coll_src **out, size_t *nout)
{
	size_t nunits = per_proc && m->procs.n ? m->procs.n : 1;
	struct unit *u = calloc(nunits, sizeof(*u));
	src_vec v = {0};
	int ret = -GP_ERR_NOMEM;

	*out = NULL;
	*nout = 0;
	if (!u) {
		return ret;
	}
	for (size_t i = 0; m->nccl && i < m->nccl->ops.n; i++) {
		const struct gpa_nccl_op *op = &m->nccl->ops.v[i];
		uint32_t p = unit_of(m, per_proc, op->proc);
		u[p].ops |= !(op->flags & GPT_NCCL_P2P); /* point-to-point only: its kernels */
		u[p].seq |= has_key(op);
	}
	if ((m->nccl && take_ops(m, u, per_proc, max, &v)) ||
	    take_kernels(m, cc, u, per_proc, max, &v)) {
		goto out;
	}
	if (per_proc) { /* one rank after the other: numbered per rank */
		gp_qsort(v.v, v.n, sizeof(*v.v), cmp_proc);
	}
	ret = number_by_order(&v);
	if (!ret) {
		*out = v.v;
		*nout = v.n;
		v.v = NULL;
	}
out:
	gp_vec_free(&v);
	free(u);
	return ret;
}

/* ---- matching across ranks */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorted here), 0 when empty. */
static uint64_t median(uint64_t *v, size_t n)
{
	if (!n) {
		return 0;
	}
	gp_qsort(v, n, sizeof(*v), cmp_u64);
	return v[(n - 1) / 2];
}

/* The part of a hash that is the key: by stream, the stream's place, not its id. */
static uint64_t key_hash(uint8_t by, uint64_t hash)
{
	return by == GPA_COLL_ORDER_STREAM ? hash >> 32 : hash;
}

/* Same key: by, hash, seq, and the collective's name unless matched by order (checked after). */
static int cmp_key(const struct gpa_coll_ev *x, const struct gpa_coll_ev *y)
{
	if (x->by != y->by) {
		return x->by < y->by ? -1 : 1;
	}
	uint64_t hx = key_hash(x->by, x->hash), hy = key_hash(y->by, y->hash);

	if (hx != hy) {
		return hx < hy ? -1 : 1;
	}
	if (x->seq != y->seq) {
		return x->seq < y->seq ? -1 : 1;
	}
	return x->by == GPA_COLL_SEQ ? strcmp(x->func, y->func) : 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct gpa_coll_ev *x = a, *y = b;
	int c = cmp_key(x, y);

	if (c) {
		return c;
	}
	if (x->arrival != y->arrival) {
		return x->arrival < y->arrival ? -1 : 1;
	}
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int cmp_group(const void *a, const void *b)
{
	const struct gpa_coll_group *x = a, *y = b;

	if (x->skew != y->skew) {
		return x->skew > y->skew ? -1 : 1;
	}
	if (x->by != y->by) {
		return x->by < y->by ? -1 : 1;
	}
	if (x->hash != y->hash) {
		return x->hash < y->hash ? -1 : 1;
	}
	if (x->seq != y->seq) {
		return x->seq < y->seq ? -1 : 1;
	}
	return strcmp(x->func, y->func);
}

/* End of the group of k[a]. */
static size_t group_end(const struct gpa_coll_ev *k, size_t n, size_t a)
{
	size_t b = a + 1;

	while (b < n && !cmp_key(&k[a], &k[b])) {
		b++;
	}
	return b;
}

/*
 * A group [a, b) of one key: -1 when matched by order but its kinds or
 * sizes differ; else the spread of its GPU ends (0 when not all known),
 * *timed whether they are.
 */
static int64_t group_check(const struct gpa_coll_ev *k, size_t a, size_t b, bool *timed)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	*timed = true;
	for (size_t i = a; i < b; i++) {
		if (k[i].by != GPA_COLL_SEQ &&
		    (strcmp(k[i].func, k[a].func) ||
		     (k[i].bytes && k[a].bytes && k[i].bytes != k[a].bytes))) {
			return -1;
		}
		*timed &= k[i].gpu_end;
		lo = k[i].end < lo ? k[i].end : lo;
		hi = k[i].end > hi ? k[i].end : hi;
	}
	return *timed ? (int64_t)(hi - lo) : 0;
}

/*
 * First pass: which groups are kept (kind and size agree), how many have
 * GPU ends and how many of those lie beyond GPA_COLL_END_NS; the clocks
 * disagree when most do.
 */
static int check_ends(struct gpa_coll_check *chk, const struct gpa_coll_ev *k, size_t n)
{
	uint64_t *v = malloc((n ? n : 1) * sizeof(*v));
	size_t nv = 0;

	if (!v) {
		return -GP_ERR_NOMEM;
	}
	for (size_t a = 0, b; a < n; a = b) {
		bool timed;
		b = group_end(k, n, a);
		int64_t spread = b - a >= 2 ? group_check(k, a, b, &timed) : 0;
		if (b - a < 2 || spread < 0) {
			chk->mismatched += spread < 0;
			continue;
		}
		if (timed) {
			v[nv++] = (uint64_t)spread;
			chk->ends_far += (uint64_t)spread > GPA_COLL_END_NS;
		}
	}
	chk->ends_checked = nv;
	chk->end_spread_median = median(v, nv);
	chk->clocks_disagree = nv && 2 * chk->ends_far > nv;
	free(v);
	return 0;
}

/* One matched group [a, b) of k: its skew and last rank, the ranks' shares. */
static int one_group(struct gpa_coll_match *x, const struct gpa_coll_ev *k, size_t a, size_t b,
		     uint64_t spread)
{
	const struct gpa_coll_ev *l = &k[b - 1];
	struct gpa_coll_group g = {.hash = l->hash, .seq = l->seq, .by = l->by, .func = l->func,
				   .a = a, .b = b, .ranks = (uint32_t)(b - a),
				   .first = k[a].arrival, .skew = l->arrival - k[a].arrival,
				   .margin = l->arrival - k[b - 2].arrival,
				   .end_spread = spread, .last = l->rank};
	struct gpa_coll_rank *lr = &x->ranks[l->rank];

	lr->last++;
	for (size_t i = a; i < b; i++) {
		struct gpa_coll_rank *r = &x->ranks[k[i].rank];
		r->matched++;
		r->waited += l->arrival - k[i].arrival;
		r->late_sum += k[i].arrival - k[a].arrival;
		if (i != b - 1) {
			lr->caused += l->arrival - k[i].arrival;
		}
	}
	x->chk.groups++;
	return gp_vec_push(&x->groups, g);
}

/* The rank last most often, when it is last in half the collectives by a clear margin. */
static int straggler(struct gpa_coll_match *x)
{
	uint32_t best = GPA_NONE;

	x->straggler = GPA_NONE;
	x->straggler_at = GPA_NONE;
	if (x->chk.nranks < 2 || !x->chk.groups) {
		x->straggler_ev = GPA_COLL_NONE;
		return 0;
	}
	x->straggler_ev = GPA_COLL_NOTHING;
	for (uint32_t i = 0; i < x->chk.nranks; i++) {
		const struct gpa_coll_rank *r = &x->ranks[i];
		const struct gpa_coll_rank *b = best == GPA_NONE ? NULL : &x->ranks[best];
		if (r->last &&
		    (!b || r->last > b->last || (r->last == b->last && r->caused > b->caused))) {
			best = i;
		}
	}
	if (best == GPA_NONE || 2 * x->ranks[best].last < x->chk.groups) {
		return 0;
	}
	uint64_t *v = malloc(x->ranks[best].last * sizeof(*v));
	size_t n = 0;
	if (!v) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < x->groups.n; i++) {
		const struct gpa_coll_group *c = &x->groups.v[i];
		if (c->last != best) {
			continue;
		}
		v[n++] = c->margin;
		if (x->straggler_at == GPA_NONE ||
		    c->margin > x->groups.v[x->straggler_at].margin) {
			x->straggler_at = i;
		}
	}
	uint64_t med = median(v, n);
	free(v);
	if (med >= GPA_COLL_STRAGGLER_NS) {
		x->straggler = best;
		x->straggler_margin = med;
		x->straggler_ev = GPA_COLL_FOUND;
	} else {
		x->straggler_at = GPA_NONE;
	}
	return 0;
}

static int match_groups(struct gpa_coll_match *x, const struct gpa_coll_ev *k, size_t n)
{
	int ret = check_ends(&x->chk, k, n);

	for (size_t a = 0, b; a < n && !ret; a = b) {
		bool timed;
		b = group_end(k, n, a);
		int64_t spread = b - a >= 2 ? group_check(k, a, b, &timed) : 0;
		if (b - a >= 2 && spread >= 0 && !x->chk.clocks_disagree &&
		    (uint64_t)spread <= GPA_COLL_END_NS) {
			ret = one_group(x, k, a, b, (uint64_t)spread);
		} else if (x->chk.nranks > 1 && b - a < 2) {
			x->chk.unmatched++;
		}
	}
	return ret;
}

int gpa_coll_match(struct gpa_coll_ev *ev, size_t n, uint32_t nranks, struct gpa_coll_match *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	out->straggler = GPA_NONE;
	out->straggler_at = GPA_NONE;
	out->chk.nranks = nranks;
	out->chk.colls = n;
	out->ranks = calloc(nranks ? nranks : 1, sizeof(*out->ranks));
	if (!out->ranks) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		out->chk.by = ev[i].by > out->chk.by ? ev[i].by : out->chk.by;
	}
	gp_qsort(ev, n, sizeof(*ev), cmp_ev);
	ret = match_groups(out, ev, n);
	if (!ret) {
		gp_qsort(out->groups.v, out->groups.n, sizeof(*out->groups.v), cmp_group);
		ret = straggler(out);
	}
	if (ret) {
		gpa_coll_match_release(out);
	}
	return ret;
}

void gpa_coll_match_release(struct gpa_coll_match *x)
{
	if (!x) {
		return;
	}
	gp_vec_free(&x->groups);
	free(x->ranks);
	memset(x, 0, sizeof(*x));
	x->straggler = GPA_NONE;
	x->straggler_at = GPA_NONE;
}

const char *gpa_coll_why_unmatched(const struct gpa_coll_check *c, char *buf, size_t len)
{
	if (c->groups) {
		snprintf(buf, len, "%s", "");
	} else if (c->nranks < 2) {
		snprintf(buf, len, "fewer than two ranks were analysed");
	} else if (!c->colls) {
		snprintf(buf, len, "no rank recorded a collective (no NCCL records, no "
				   "communication kernels)");
	} else if (c->clocks_disagree) {
		snprintf(buf, len, "the clocks disagree: %" PRIu64 " of %" PRIu64 " collectives "
			 "matched by %s end more than %llu ms apart across ranks (median %.3f ms), "
			 "where a collective ends at once on every rank: collectives are missing "
			 "from some traces or their clocks are not aligned", c->ends_far,
			 c->ends_checked, gpa_coll_by_name(c->by), GPA_COLL_END_NS / 1000000,
			 (double)c->end_spread_median / 1e6);
	} else if (c->mismatched) {
		snprintf(buf, len, "the ranks' collectives differ in kind or size at the same "
				   "place in their order (%" PRIu64 " times)", c->mismatched);
	} else {
		snprintf(buf, len, "no collective was found on two ranks");
	}
	return buf;
}
