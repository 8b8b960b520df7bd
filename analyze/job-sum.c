/* SPDX-License-Identifier: MIT */
/*
 * job-sum.c - one rank's summary for the job report (analyze/job.h): built
 * from the analyses of a single-file model, packed into and read back from
 * the byte format of docs/cluster.md.
 */
#include "base/compat.h"
#include "base/le.h"
#include "analyze/job.h"
#include "analyze/comm.h"
#include "analyze/commclass.h"
#include "analyze/findings.h"
#include "analyze/steps.h"

#include <stdlib.h>
#include <string.h>

void gpa_rank_sum_release(struct gpa_rank_sum *s)
{
	if (!s) {
		return;
	}
	free(s->path);
	free(s->error);
	free(s->host);
	for (size_t i = 0; i < s->strs.n; i++) {
		free(s->strs.v[i]);
	}
	gp_vec_free(&s->strs);
	gp_vec_free(&s->steps);
	gp_vec_free(&s->kernels);
	gp_vec_free(&s->colls);
	gp_vec_free(&s->findings);
	memset(s, 0, sizeof(*s));
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* The index of s in the summary's table (added when new); 0 ("") when the table is full. */
static int str_id(struct gpa_rank_sum *s, const char *str, uint32_t *id)
{
	for (size_t i = 0; i < s->strs.n; i++) {
		if (!strcmp(s->strs.v[i], str)) {
			*id = (uint32_t)i;
			return 0;
		}
	}
	*id = 0;
	if (s->strs.n >= GPA_RANK_STRINGS) {
		return 0;
	}
	char *d = strdup(str);
	if (!d || gp_vec_push(&s->strs, d)) {
		free(d);
		return -GP_ERR_NOMEM;
	}
	*id = (uint32_t)(s->strs.n - 1);
	return 0;
}

int gpa_rank_sum_failed(uint32_t file, const char *path, const char *error,
			struct gpa_rank_sum *out)
{
	memset(out, 0, sizeof(*out));
	out->file = file;
	out->rank = -1;
	out->path = dup_or_empty(path);
	out->error = dup_or_empty(error);
	out->host = dup_or_empty("");
	char *e = strdup("");
	if (!out->path || !out->error || !out->host || !e || gp_vec_push(&out->strs, e)) {
		free(e);
		gpa_rank_sum_release(out);
		return -GP_ERR_NOMEM;
	}
	return 0;
}

static int take_steps(const struct gpa_rank_in *in, struct gpa_rank_sum *s)
{
	for (size_t i = 0; i < in->steps->v.n && s->steps.n < GPA_RANK_STEPS; i++) {
		const struct gpa_step *st = &in->steps->v.v[i];
		struct gpa_rank_step r = {.number = st->number, .start = st->start, .end = st->end,
					  .busy = st->gpu_busy};
		if (gp_vec_push(&s->steps, r)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int cmp_kernel(const void *a, const void *b)
{
	const struct gpa_rank_kernel *x = a, *y = b;

	if (x->total != y->total) {
		return x->total > y->total ? -1 : 1;
	}
	if (x->name != y->name) {
		return x->name < y->name ? -1 : 1;
	}
	return memcmp(x->grid, y->grid, sizeof(x->grid) + sizeof(x->block));
}

/* Per (function, launch configuration): the key of a kernel row in a map. */
static uint64_t kernel_key(const struct gpa_model *m, size_t k)
{
	return ((uint64_t)gpa_kern_func(m, k) << 32) | gpa_kern_shape(m, k);
}

/*
 * Compute kernels (communication left out: their time is waiting) by function
 * and launch configuration; the device is the first launch's.
 */
static int take_kernels(const struct gpa_rank_in *in, struct gpa_rank_sum *s)
{
	const struct gpa_model *m = in->m;
	struct gp_u64map map = GP_U64MAP_INIT;
	GP_VEC(struct gpa_rank_kernel) per = {0};
	GP_VEC(size_t) first = {0}; /* a kernel row of each entry, for its name and shape */
	int ret = -GP_ERR_NOMEM;

	for (size_t k = 0; k < gpa_kern_rows(m); k++) {
		uint64_t *at;
		if (in->cc->kern[k] != GPA_COMM_NOT || gpa_kern_end(m, k) < gpa_kern_start(m, k)) {
			continue;
		}
		int added = gp_u64map_get_or_insert(&map, kernel_key(m, k), per.n, &at);
		struct gpa_rank_kernel z = {0};
		if (added < 0 || (added && (gp_vec_push(&per, z) || gp_vec_push(&first, k)))) {
			goto out;
		}
		struct gpa_rank_kernel *p = &per.v[*at];
		uint64_t d = gpa_kern_dur(m, k);
		p->min = !p->count || d < p->min ? d : p->min;
		p->max = d > p->max ? d : p->max;
		p->count++;
		p->total += d;
		s->compute_ns += d;
	}
	for (size_t i = 0; i < per.n; i++) {
		size_t k = first.v[i];
		const struct gpa_shape *sh = &m->shapes.v[gpa_kern_shape(m, k)];
		const struct gpa_dev *dv = &m->devs.v[gpa_kern_dev(m, k)];
		struct gpa_rank_kernel *p = &per.v[i];
		p->grid[0] = sh->grid_x, p->grid[1] = sh->grid_y, p->grid[2] = sh->grid_z;
		p->block[0] = sh->block_x, p->block[1] = sh->block_y, p->block[2] = sh->block_z;
		if (str_id(s, gpa_model_str(m, m->funcs.v[gpa_kern_func(m, k)].name), &p->name) ||
		    str_id(s, gpa_model_str(m, dv->name), &p->device)) {
			goto out;
		}
	}
	gp_qsort(per.v, per.n, sizeof(*per.v), cmp_kernel);
	for (size_t i = 0; i < per.n && s->kernels.n < GPA_RANK_KERNELS; i++) {
		if (gp_vec_push(&s->kernels, per.v[i])) {
			goto out;
		}
	}
	ret = 0;
out:
	gp_u64map_release(&map);
	gp_vec_free(&per);
	gp_vec_free(&first);
	return ret;
}

/* The device row range of dev in gpa_model.gpu. */
static void what_before(const struct gpa_rank_in *in, uint32_t dev, uint64_t at, uint32_t *kern,
			uint64_t *idle)
{
	const struct gpa_model *m = in->m;
	uint64_t end = 0;

	*kern = GPA_NONE;
	*idle = 0;
	if (dev == GPA_NONE || dev >= m->devs.n) {
		dev = GPA_NONE;
		gpa_model_work_devices(m, &dev);
		if (dev == GPA_NONE) {
			return;
		}
	}
	size_t lo = m->devs.v[dev].gpu_first, hi = lo + m->devs.v[dev].gpu_count;
	while (lo < hi) { /* first row starting at or after at */
		size_t mid = lo + (hi - lo) / 2;
		if (gpa_gpu_start(m, mid) < at) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	/* a few rows back: the latest end, and the last compute kernel begun */
	for (size_t g = lo, seen = 0; g-- > m->devs.v[dev].gpu_first && seen < 64; seen++) {
		end = gpa_gpu_end(m, g) > end ? gpa_gpu_end(m, g) : end;
		if (*kern == GPA_NONE && gpa_gpu_kind(m, g) == GPA_GPU_KERNEL &&
		    !gpa_commclass_gpu(in->cc, m, g)) {
			*kern = gpa_gpu_row(m, g);
		}
	}
	*idle = end && end < at ? at - end : 0;
}

/* One collective of s: its name canonical, what ran before it. */
static int add_coll(const struct gpa_rank_in *in, struct gpa_rank_sum *s, struct gpa_rank_coll *c,
		    const char *fn, uint32_t dev, uint64_t host_at)
{
	const struct gpa_model *m = in->m;
	const char *canon = gpa_comm_canonical(fn);
	uint32_t k;

	what_before(in, dev, host_at, &k, &c->idle_before);
	if (str_id(s, canon ? canon : fn, &c->func) ||
	    str_id(s, k == GPA_NONE ? "" : gpa_model_str(m, m->funcs.v[gpa_kern_func(m, k)].name),
		   &c->doing) ||
	    gp_vec_push(&s->colls, *c)) {
		return -GP_ERR_NOMEM;
	}
	return 0;
}

/*
 * The collectives to match across ranks, by the rules gpuprof comm uses
 * (gpa_coll_take): the trace is one rank.
 */
static int take_colls(const struct gpa_rank_in *in, struct gpa_rank_sum *s)
{
	struct gpa_coll_src *v;
	size_t n;
	int ret = gpa_coll_take(in->m, in->cc, false, GPA_RANK_COLLS, &v, &n);

	for (size_t i = 0; i < n && !ret; i++) {
		const struct gpa_coll_src *x = &v[i];
		struct gpa_rank_coll c = {.hash = x->hash, .seq = x->seq, .by = x->by,
					  .gpu_end = x->gpu_end, .bytes = x->bytes,
					  .arrival = x->arrival, .end = x->end};
		ret = add_coll(in, s, &c, x->func, x->dev, x->host_at);
	}
	free(v);
	return ret;
}

static int take_rest(const struct gpa_rank_in *in, struct gpa_rank_sum *s)
{
	const struct gpa_gap_totals *t = &in->gaps->all;

	s->window = t->window;
	s->busy = t->busy;
	s->idle = t->idle;
	memcpy(s->cause_ns, t->cause_ns, sizeof(s->cause_ns));
	for (size_t i = 0; i < in->comm->devs.n; i++) {
		const struct gpa_comm_dev *d = &in->comm->devs.v[i];
		if (d->step == GPA_NONE) {
			s->comm_ns += d->comm;
			s->exposed_ns += d->exposed;
		}
	}
	for (size_t i = 0; i < in->findings->v.n && s->findings.n < GPA_RANK_FINDINGS; i++) {
		const struct gpa_finding *f = &in->findings->v.v[i];
		struct gpa_rank_finding r = {.cat = f->cat, .cause = f->cause, .conf = f->conf,
					     .cost_ns = f->cost_ns, .count = f->count};
		if (gp_vec_push(&s->findings, r)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

int gpa_rank_sum_build(const struct gpa_rank_in *in, uint32_t file, struct gpa_rank_sum *out)
{
	const struct gpa_model *m = in->m;
	const struct gpa_proc *p = m->procs.n ? &m->procs.v[0] : NULL;
	int ret;

	ret = gpa_rank_sum_failed(file, p ? p->path : "", "", out);
	if (ret) {
		return ret;
	}
	out->ok = true;
	free(out->host);
	out->host = dup_or_empty(p ? gpa_model_str(m, p->host) : "");
	if (!out->host) {
		gpa_rank_sum_release(out);
		return -GP_ERR_NOMEM;
	}
	out->rank = p ? p->rank : -1;
	out->world_size = p ? p->world_size : 0;
	out->aligned = p && p->aligned;
	out->clock_offset = p ? p->anchor_offset : 0; /* a one-file model applies none */
	out->t0 = m->t0;
	out->t1 = m->t1;
	out->events = m->events;
	ret = take_steps(in, out);
	if (!ret) {
		ret = take_kernels(in, out);
	}
	if (!ret) {
		ret = take_colls(in, out);
	}
	if (!ret) {
		ret = take_rest(in, out);
	}
	if (ret) {
		gpa_rank_sum_release(out);
	}
	return ret;
}

/* ---- the byte format: little-endian integers, strings as u32 length + bytes */

static void pack_body(const struct gpa_rank_sum *s, struct gp_strbuf *o)
{
	gp_le_put(o, s->file, 4);
	gp_le_put(o, s->ok, 1);
	gp_le_put_str(o, s->path);
	gp_le_put_str(o, s->error);
	gp_le_put_str(o, s->host);
	gp_le_put(o, (uint32_t)s->rank, 4);
	gp_le_put(o, (uint32_t)s->world_size, 4);
	gp_le_put(o, s->aligned, 1);
	gp_le_put(o, (uint64_t)s->clock_offset, 8);
	gp_le_put(o, s->t0, 8);
	gp_le_put(o, s->t1, 8);
	gp_le_put(o, s->events, 8);
	gp_le_put(o, s->strs.n, 4);
	for (size_t i = 0; i < s->strs.n; i++) {
		gp_le_put_str(o, s->strs.v[i]);
	}
	gp_le_put(o, s->steps.n, 4);
	for (size_t i = 0; i < s->steps.n; i++) {
		const struct gpa_rank_step *st = &s->steps.v[i];
		gp_le_put(o, (uint64_t)st->number, 8);
		gp_le_put(o, st->start, 8);
		gp_le_put(o, st->end, 8);
		gp_le_put(o, st->busy, 8);
	}
	gp_le_put(o, s->window, 8);
	gp_le_put(o, s->busy, 8);
	gp_le_put(o, s->idle, 8);
	gp_le_put(o, GPA_GAP__COUNT, 1);
	for (unsigned c = 0; c < GPA_GAP__COUNT; c++) {
		gp_le_put(o, s->cause_ns[c], 8);
	}
	gp_le_put(o, s->comm_ns, 8);
	gp_le_put(o, s->exposed_ns, 8);
	gp_le_put(o, s->compute_ns, 8);
	gp_le_put(o, s->kernels.n, 4);
	for (size_t i = 0; i < s->kernels.n; i++) {
		const struct gpa_rank_kernel *k = &s->kernels.v[i];
		gp_le_put(o, k->name, 4);
		gp_le_put(o, k->device, 4);
		for (unsigned d = 0; d < 3; d++) {
			gp_le_put(o, (uint32_t)k->grid[d], 4);
		}
		for (unsigned d = 0; d < 3; d++) {
			gp_le_put(o, (uint32_t)k->block[d], 4);
		}
		gp_le_put(o, k->count, 8);
		gp_le_put(o, k->total, 8);
		gp_le_put(o, k->min, 8);
		gp_le_put(o, k->max, 8);
	}
	gp_le_put(o, s->colls.n, 4);
	for (size_t i = 0; i < s->colls.n; i++) {
		const struct gpa_rank_coll *c = &s->colls.v[i];
		gp_le_put(o, c->hash, 8);
		gp_le_put(o, c->seq, 8);
		gp_le_put(o, c->by, 1);
		gp_le_put(o, c->gpu_end, 1);
		gp_le_put(o, c->func, 4);
		gp_le_put(o, c->bytes, 8);
		gp_le_put(o, c->arrival, 8);
		gp_le_put(o, c->end, 8);
		gp_le_put(o, c->doing, 4);
		gp_le_put(o, c->idle_before, 8);
	}
	gp_le_put(o, s->findings.n, 4);
	for (size_t i = 0; i < s->findings.n; i++) {
		const struct gpa_rank_finding *f = &s->findings.v[i];
		gp_le_put(o, f->cat, 1);
		gp_le_put(o, f->cause, 1);
		gp_le_put(o, f->conf, 1);
		gp_le_put(o, f->cost_ns, 8);
		gp_le_put(o, f->count, 8);
	}
}

int gpa_rank_sums_pack(const struct gpa_rank_sum *s, size_t n, struct gp_strbuf *out)
{
	struct gp_strbuf body = GP_STRBUF_INIT;

	gp_strbuf_add(out, GPA_JOB_MAGIC, 4);
	gp_le_put(out, GPA_JOB_VERSION, 2);
	gp_le_put(out, 0, 2);
	gp_le_put(out, n, 4);
	for (size_t i = 0; i < n; i++) {
		gp_strbuf_reset(&body);
		pack_body(&s[i], &body);
		gp_le_put(out, body.len, 4);
		gp_strbuf_add(out, body.buf, body.len);
		if (body.failed) {
			out->failed = true;
		}
	}
	gp_strbuf_release(&body);
	return out->failed ? -GP_ERR_NOMEM : 0;
}

/* ---- reading: every length checked against what is left */

static void unpack_head(struct gp_le_rd *r, struct gpa_rank_sum *s)
{
	s->file = (uint32_t)gp_le_get(r, 4);
	s->ok = gp_le_get(r, 1) != 0;
	s->path = gp_le_get_str(r);
	s->error = gp_le_get_str(r);
	s->host = gp_le_get_str(r);
	s->rank = (int32_t)(uint32_t)gp_le_get(r, 4);
	s->world_size = (int32_t)(uint32_t)gp_le_get(r, 4);
	s->aligned = gp_le_get(r, 1) != 0;
	s->clock_offset = (int64_t)gp_le_get(r, 8);
	s->t0 = gp_le_get(r, 8);
	s->t1 = gp_le_get(r, 8);
	s->events = gp_le_get(r, 8);
	uint64_t n = gp_le_get(r, 4);
	if (!r->bad && !n) {
		r->bad = "empty string table";
	}
	if (gp_le_fits(r, n, 4) && gp_vec_reserve(&s->strs, n)) {
		r->bad = "out of memory";
	}
	for (uint64_t i = 0; !r->bad && i < n; i++) {
		char *str = gp_le_get_str(r);
		if (str) {
			s->strs.v[s->strs.n++] = str;
		}
	}
}

static uint32_t get_ref(struct gp_le_rd *r, const struct gpa_rank_sum *s)
{
	uint64_t v = gp_le_get(r, 4);

	if (!r->bad && v >= s->strs.n) {
		r->bad = "string index out of range";
	}
	return r->bad ? 0 : (uint32_t)v;
}

static void unpack_tables(struct gp_le_rd *r, struct gpa_rank_sum *s)
{
	uint64_t n = gp_le_get(r, 4);

	if (gp_le_fits(r, n, 32) && gp_vec_reserve(&s->steps, n)) {
		r->bad = "out of memory";
	}
	for (uint64_t i = 0; !r->bad && i < n; i++) {
		struct gpa_rank_step *st = &s->steps.v[s->steps.n++];
		st->number = (int64_t)gp_le_get(r, 8);
		st->start = gp_le_get(r, 8);
		st->end = gp_le_get(r, 8);
		st->busy = gp_le_get(r, 8);
	}
	s->window = gp_le_get(r, 8);
	s->busy = gp_le_get(r, 8);
	s->idle = gp_le_get(r, 8);
	n = gp_le_get(r, 1);
	for (uint64_t c = 0; !r->bad && c < n; c++) {
		uint64_t v = gp_le_get(r, 8);
		if (c < GPA_GAP__COUNT) { /* causes a newer writer added are left out */
			s->cause_ns[c] = v;
		}
	}
	s->comm_ns = gp_le_get(r, 8);
	s->exposed_ns = gp_le_get(r, 8);
	s->compute_ns = gp_le_get(r, 8);
	n = gp_le_get(r, 4);
	if (gp_le_fits(r, n, 64) && gp_vec_reserve(&s->kernels, n)) {
		r->bad = "out of memory";
	}
	for (uint64_t i = 0; !r->bad && i < n; i++) {
		struct gpa_rank_kernel *k = &s->kernels.v[s->kernels.n++];
		k->name = get_ref(r, s);
		k->device = get_ref(r, s);
		for (unsigned d = 0; d < 3; d++) {
			k->grid[d] = (int32_t)(uint32_t)gp_le_get(r, 4);
		}
		for (unsigned d = 0; d < 3; d++) {
			k->block[d] = (int32_t)(uint32_t)gp_le_get(r, 4);
		}
		k->count = gp_le_get(r, 8);
		k->total = gp_le_get(r, 8);
		k->min = gp_le_get(r, 8);
		k->max = gp_le_get(r, 8);
	}
	n = gp_le_get(r, 4);
	if (gp_le_fits(r, n, 58) && gp_vec_reserve(&s->colls, n)) {
		r->bad = "out of memory";
	}
	for (uint64_t i = 0; !r->bad && i < n; i++) {
		struct gpa_rank_coll *c = &s->colls.v[s->colls.n++];
		c->hash = gp_le_get(r, 8);
		c->seq = gp_le_get(r, 8);
		c->by = (uint8_t)gp_le_get(r, 1);
		c->gpu_end = gp_le_get(r, 1) != 0;
		if (!r->bad && (c->by >= GPA_COLL_BY__COUNT || c->seq == 0)) {
			r->bad = c->seq ? "unknown collective key" : "collective sequence 0";
		}
		c->func = get_ref(r, s);
		c->bytes = gp_le_get(r, 8);
		c->arrival = gp_le_get(r, 8);
		c->end = gp_le_get(r, 8);
		c->doing = get_ref(r, s);
		c->idle_before = gp_le_get(r, 8);
	}
	n = gp_le_get(r, 4);
	if (gp_le_fits(r, n, 19) && gp_vec_reserve(&s->findings, n)) {
		r->bad = "out of memory";
	}
	for (uint64_t i = 0; !r->bad && i < n; i++) {
		struct gpa_rank_finding *f = &s->findings.v[s->findings.n++];
		f->cat = (uint8_t)gp_le_get(r, 1);
		f->cause = (uint8_t)gp_le_get(r, 1);
		f->conf = (uint8_t)gp_le_get(r, 1);
		f->cost_ns = gp_le_get(r, 8);
		f->count = gp_le_get(r, 8);
	}
}

int gpa_rank_sums_unpack(const void *buf, size_t len, const char *what, struct gpa_rank_sum **v,
			 size_t *n, size_t *cap, char *errbuf, size_t errlen)
{
	struct gp_le_rd r = gp_le_rd_init(buf, len);
	uint64_t count;

	if (len < 12 || memcmp(buf, GPA_JOB_MAGIC, 4)) {
		snprintf(errbuf, errlen, "%s: not a rank summary blob", what);
		return -GP_ERR_FORMAT;
	}
	r.p += 4;
	if (gp_le_get(&r, 2) != GPA_JOB_VERSION) {
		snprintf(errbuf, errlen, "%s: rank summary version not %d", what, GPA_JOB_VERSION);
		return -GP_ERR_VERSION;
	}
	gp_le_get(&r, 2);
	count = gp_le_get(&r, 4);
	for (uint64_t i = 0; i < count; i++) {
		size_t at = (size_t)(r.p - (const unsigned char *)buf);
		uint64_t blen = gp_le_get(&r, 4);
		if (!gp_le_fits(&r, blen, 1)) {
			snprintf(errbuf, errlen, "%s: summary %" PRIu64 " at byte %zu: %s", what, i, at,
				 r.bad);
			return -GP_ERR_FORMAT;
		}
		if (*n == *cap) {
			size_t nc = *cap ? 2 * *cap : 16;
			void *nv = realloc(*v, nc * sizeof(**v));
			if (!nv) {
				return -GP_ERR_NOMEM;
			}
			*v = nv;
			*cap = nc;
		}
		struct gp_le_rd b = {.p = r.p, .end = r.p + blen};
		struct gpa_rank_sum *s = &(*v)[*n];
		memset(s, 0, sizeof(*s));
		unpack_head(&b, s);
		unpack_tables(&b, s);
		if (!b.bad && b.p != b.end) {
			b.bad = "bytes left over";
		}
		if (b.bad) {
			snprintf(errbuf, errlen, "%s: summary %" PRIu64 " at byte %zu: %s", what, i, at,
				 b.bad);
			gpa_rank_sum_release(s);
			return -GP_ERR_FORMAT;
		}
		(*n)++;
		r.p += blen;
	}
	if (r.p != r.end) {
		snprintf(errbuf, errlen, "%s: %zu bytes after the last summary", what,
			 (size_t)(r.end - r.p));
		return -GP_ERR_FORMAT;
	}
	return 0;
}
