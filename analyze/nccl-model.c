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
 * Memory: the operations, one index per kernel row, and hash maps of the
 * records while linking.
 */
#include "base/compat.h"
#include "analyze/model-internal.h"

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

/*
 * Rows by (process, 64-bit id): one map per process, as a process index and
 * a 64-bit id do not fit one 64-bit key. The first row put under an id stays.
 */
struct proc_maps {
	struct gp_u64map *by_proc;
	size_t nprocs;
};

static int maps_init(struct proc_maps *pm, size_t nprocs)
{
	pm->by_proc = calloc(nprocs ? nprocs : 1, sizeof(*pm->by_proc));
	pm->nprocs = nprocs;
	return pm->by_proc ? 0 : -GP_ERR_NOMEM;
}

static void maps_release(struct proc_maps *pm)
{
	for (size_t p = 0; pm->by_proc && p < pm->nprocs; p++) {
		gp_u64map_release(&pm->by_proc[p]);
	}
	free(pm->by_proc);
	*pm = (struct proc_maps){0};
}

static int maps_put(struct proc_maps *pm, uint32_t proc, uint64_t id, uint32_t row)
{
	return gp_u64map_get_or_insert(&pm->by_proc[proc], id, row, NULL) < 0 ? -GP_ERR_NOMEM : 0;
}

static uint32_t maps_get(const struct proc_maps *pm, uint32_t proc, uint64_t id)
{
	return (uint32_t)gp_u64map_get(&pm->by_proc[proc], id, GPA_NONE);
}

/* (process, correlation id) as one key: both are 32 bits. */
static uint64_t corr_key(uint32_t proc, uint32_t corr)
{
	return ((uint64_t)proc << 32) | corr;
}

/* The op of a kernel's correlation id in process proc, or GPA_NONE. */
static uint32_t corr_op(const struct gp_u64map *corr, uint32_t proc, uint32_t c)
{
	return c ? (uint32_t)gp_u64map_get(corr, corr_key(proc, c), GPA_NONE) : GPA_NONE;
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
	struct proc_maps ops = {0};
	struct gp_u64map corr = GP_U64MAP_INIT;
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
	if (maps_init(&ops, m->procs.n)) {
		goto out;
	}
	for (size_t i = 0; i < n->ops.n; i++) {
		if (n->ops.v[i].op_id &&
		    maps_put(&ops, n->ops.v[i].proc, n->ops.v[i].op_id, (uint32_t)i)) {
			goto out;
		}
	}
	for (size_t i = 0; i < n->ch.n; i++) {
		const struct gpa_nccl_chan *c = &n->ch.v[i];
		uint32_t o = maps_get(&ops, c->proc, c->op_id);
		if (o != GPA_NONE) {
			uint64_t d = (uint64_t)m->procs.v[c->proc].clock_offset;
			widen(&n->ops.v[o], c->start + d, c->end + d, GPA_NCCL_GPU_CHANNELS);
		}
	}

	/* kernels: correlation id -> external id -> op, per process */
	if (n->ext.n && n->ops.n && m->kern.n) {
		maps_release(&ops);
		if (maps_init(&ops, m->procs.n) || gp_u64map_reserve(&corr, n->ext.n)) {
			goto out;
		}
		for (size_t i = 0; i < n->ops.n; i++) {
			if (n->ops.v[i].ext_id &&
			    maps_put(&ops, n->ops.v[i].proc, n->ops.v[i].ext_id, (uint32_t)i)) {
				goto out;
			}
		}
		for (size_t i = 0; i < n->ext.n; i++) {
			const struct gpa_nccl_ext *e = &n->ext.v[i];
			uint32_t o = maps_get(&ops, e->proc, e->ext);
			uint64_t key = corr_key(e->proc, e->corr);
			/* the first op of a correlation id stays */
			if (o != GPA_NONE && gp_u64map_get_or_insert(&corr, key, o, NULL) < 0) {
				goto out;
			}
		}
		n->kern_op = malloc(m->kern.n * sizeof(*n->kern_op));
		if (!n->kern_op) {
			goto out;
		}
		for (size_t k = 0; k < m->kern.n; k++) {
			uint32_t proc = m->devs.v[gpa_kern_dev(m, k)].proc;
			uint32_t o = corr_op(&corr, proc, gpa_col_opt(m->kern.corr, k));
			n->kern_op[k] = o;
			if (o != GPA_NONE) {
				struct gpa_nccl_op *op = &n->ops.v[o];
				op->kernels++;
				op->dev = gpa_kern_dev(m, k);
				n->kernels_linked++;
				widen(op, gpa_kern_start(m, k), gpa_kern_end(m, k), GPA_NCCL_GPU_KERNELS);
			}
		}
	}
	ret = 0;
out:
	maps_release(&ops);
	gp_u64map_release(&corr);
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
