/* SPDX-License-Identifier: MIT */
/*
 * nccl-model.c - NCCL operations in the model, whatever recorded them (the
 * profiler plugin, interposition, the Kineto and nsys importers).
 *
 * Loading collects NCCL, NCCL_CHANNEL and EXTCORR records per process.
 * Linking (after the kernel table and device timelines exist):
 *   - times move onto the model timeline with their file's clock offset;
 *   - an operation's GPU interval comes from the record itself, else from
 *     its channels (earliest start, latest stop), else from its kernels;
 *   - kernels tie to operations through CUPTI external correlation: the
 *     EXTCORR record (kind CUSTOM2, the id gpuprof pushes around NCCL
 *     launches) maps the launch's correlation id to the operation's
 *     external id, per process. Several operations of one group may share
 *     a launch; the kernel goes to the one whose id was pushed.
 * Memory: the operations, one index per kernel row, and hash tables sized
 * to the records while linking.
 */
#include "base/compat.h"
#include "analyze/model.h"

#define EXT_KIND_CUSTOM2 5 /* CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 */

static struct gpa_nccl *get(struct gpa_model *m)
{
	if (!m->nccl) {
		m->nccl = calloc(1, sizeof(*m->nccl));
	}
	return m->nccl;
}

int gpa_nccl_add_op(struct gpa_model *m, uint32_t proc, const struct gpt_nccl *r, uint32_t func,
		    uint32_t algo, uint32_t proto, uint32_t comm_name)
{
	struct gpa_nccl *n = get(m);
	struct gpa_nccl_op op = {
		.start = r->start,
		.end = r->end < r->start ? r->start : r->end,
		.gpu_start = r->gpu_start,
		.gpu_end = r->gpu_end,
		.bytes = r->bytes,
		.count = r->count,
		.comm_hash = r->comm_hash,
		.seq = r->seq,
		.ext_id = r->external_id,
		.op_id = r->op_id,
		.proc = proc,
		.func = func,
		.algo = algo,
		.proto = proto,
		.comm_name = comm_name,
		.rank = r->rank,
		.nranks = r->nranks,
		.root = r->root,
		.peer = r->peer,
		.dev = GPA_NONE,
		.source = r->source,
		.flags = r->flags,
		.datatype = r->datatype,
	};

	if (!n) {
		return -GP_ERR_NOMEM;
	}
	if (op.gpu_start && op.gpu_end >= op.gpu_start) {
		op.gpu_from = GPA_NCCL_GPU_RECORD;
	} else {
		op.gpu_start = op.gpu_end = 0;
	}
	return gp_vec_push(&n->ops, op);
}

int gpa_nccl_add_channel(struct gpa_model *m, uint32_t proc, const struct gpt_nccl_channel *r)
{
	struct gpa_nccl *n = get(m);
	struct gpa_nccl_chan c = {.proc = proc, .op_id = r->op_id, .start = r->start,
				  .end = r->end < r->start ? r->start : r->end};

	if (!n) {
		return -GP_ERR_NOMEM;
	}
	n->channels++;
	return r->op_id && r->start ? gp_vec_push(&n->ch, c) : 0;
}

int gpa_nccl_add_extcorr(struct gpa_model *m, uint32_t proc, const struct gpt_extcorr *r)
{
	struct gpa_nccl_ext e = {.proc = proc, .corr = r->correlation, .ext = r->external_id};

	if (r->external_kind != EXT_KIND_CUSTOM2 || !r->correlation) {
		return 0; /* Kineto's CUSTOM0/1 ids and the like are not ours */
	}
	struct gpa_nccl *n = get(m);
	return n ? gp_vec_push(&n->ext, e) : -GP_ERR_NOMEM;
}

/* ---- a small open-addressing map: (proc, 64-bit key) -> row */

struct map {
	uint64_t *key;
	uint32_t *proc, *val;
	size_t mask;
};

static int map_init(struct map *h, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n) {
		cap *= 2;
	}
	h->key = calloc(cap, sizeof(*h->key));
	h->proc = calloc(cap, sizeof(*h->proc));
	h->val = malloc(cap * sizeof(*h->val));
	h->mask = cap - 1;
	if (!h->key || !h->proc || !h->val) {
		return -GP_ERR_NOMEM;
	}
	memset(h->val, 0xff, cap * sizeof(*h->val));
	return 0;
}

static void map_free(struct map *h)
{
	free(h->key);
	free(h->proc);
	free(h->val);
}

static size_t map_slot(const struct map *h, uint32_t proc, uint64_t key)
{
	size_t i = gp_hash_u64(key ^ ((uint64_t)proc << 48) ^ proc) & h->mask;

	while (h->val[i] != GPA_NONE && (h->key[i] != key || h->proc[i] != proc)) {
		i = (i + 1) & h->mask;
	}
	return i;
}

static void map_put(struct map *h, uint32_t proc, uint64_t key, uint32_t val)
{
	size_t i = map_slot(h, proc, key);

	if (h->val[i] == GPA_NONE) { /* the first one stays */
		h->key[i] = key;
		h->proc[i] = proc;
		h->val[i] = val;
	}
}

static uint32_t map_get(const struct map *h, uint32_t proc, uint64_t key)
{
	return h->val[map_slot(h, proc, key)];
}

static int cmp_op_start(const void *a, const void *b)
{
	const struct gpa_nccl_op *x = a, *y = b;

	if (x->start != y->start) {
		return x->start < y->start ? -1 : 1;
	}
	if (x->proc != y->proc) {
		return x->proc < y->proc ? -1 : 1;
	}
	return x->op_id < y->op_id ? -1 : x->op_id > y->op_id;
}

static void widen(struct gpa_nccl_op *op, uint64_t s, uint64_t e, uint8_t from)
{
	if (op->gpu_from == GPA_NCCL_GPU_NONE || op->gpu_from == from) {
		if (op->gpu_from == GPA_NCCL_GPU_NONE || s < op->gpu_start) {
			op->gpu_start = s;
		}
		if (op->gpu_from == GPA_NCCL_GPU_NONE || e > op->gpu_end) {
			op->gpu_end = e;
		}
		op->gpu_from = from;
	}
}

int gpa_nccl_link(struct gpa_model *m)
{
	struct gpa_nccl *n = m->nccl;
	struct map ops = {0}, corr = {0};
	int ret = -GP_ERR_NOMEM;

	if (!n) {
		return 0;
	}
	for (size_t i = 0; i < n->ops.n; i++) {
		struct gpa_nccl_op *op = &n->ops.v[i];
		uint64_t d = (uint64_t)m->procs.v[op->proc].clock_offset;
		op->start += d;
		op->end += d;
		if (op->gpu_from == GPA_NCCL_GPU_RECORD) {
			op->gpu_start += d;
			op->gpu_end += d;
		}
	}
	gp_qsort(n->ops.v, n->ops.n, sizeof(*n->ops.v), cmp_op_start);

	/* channels: by (process, op id) */
	if (map_init(&ops, n->ops.n)) {
		goto out;
	}
	for (size_t i = 0; i < n->ops.n; i++) {
		if (n->ops.v[i].op_id) {
			map_put(&ops, n->ops.v[i].proc, n->ops.v[i].op_id, (uint32_t)i);
		}
	}
	for (size_t i = 0; i < n->ch.n; i++) {
		const struct gpa_nccl_chan *c = &n->ch.v[i];
		uint32_t o = map_get(&ops, c->proc, c->op_id);
		if (o != GPA_NONE) {
			uint64_t d = (uint64_t)m->procs.v[c->proc].clock_offset;
			widen(&n->ops.v[o], c->start + d, c->end + d, GPA_NCCL_GPU_CHANNELS);
		}
	}

	/* kernels: correlation id -> external id -> op, per process */
	if (n->ext.n && n->ops.n && m->kern.n) {
		map_free(&ops);
		memset(&ops, 0, sizeof(ops));
		if (map_init(&ops, n->ops.n) || map_init(&corr, n->ext.n)) {
			goto out;
		}
		for (size_t i = 0; i < n->ops.n; i++) {
			if (n->ops.v[i].ext_id) {
				map_put(&ops, n->ops.v[i].proc, n->ops.v[i].ext_id, (uint32_t)i);
			}
		}
		for (size_t i = 0; i < n->ext.n; i++) {
			const struct gpa_nccl_ext *e = &n->ext.v[i];
			uint32_t o = map_get(&ops, e->proc, e->ext);
			if (o != GPA_NONE) {
				map_put(&corr, e->proc, e->corr, o);
			}
		}
		n->kern_op = malloc(m->kern.n * sizeof(*n->kern_op));
		if (!n->kern_op) {
			goto out;
		}
		for (size_t k = 0; k < m->kern.n; k++) {
			uint32_t proc = m->devs.v[m->kern.dev[k]].proc;
			uint32_t o = m->kern.corr[k] ? map_get(&corr, proc, m->kern.corr[k]) : GPA_NONE;
			n->kern_op[k] = o;
			if (o != GPA_NONE) {
				struct gpa_nccl_op *op = &n->ops.v[o];
				op->kernels++;
				op->dev = m->kern.dev[k];
				n->kernels_linked++;
				widen(op, m->kern.start[k], m->kern.end[k], GPA_NCCL_GPU_KERNELS);
			}
		}
	}
	ret = 0;
out:
	map_free(&ops);
	map_free(&corr);
	gp_vec_free(&n->ext);
	gp_vec_free(&n->ch);
	return ret;
}

void gpa_nccl_free(struct gpa_nccl *n)
{
	if (!n) {
		return;
	}
	gp_vec_free(&n->ops);
	gp_vec_free(&n->ext);
	gp_vec_free(&n->ch);
	free(n->kern_op);
	free(n);
}
