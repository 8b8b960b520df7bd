/* SPDX-License-Identifier: MIT */
/*
 * breakdown.c - HTA's temporal breakdown, per-stream idle breakdown,
 * kernel-type shares and communication-computation overlap, per process.
 *
 * Every GPU op of a process becomes one interval [s, e) with its classes
 * (enum gpa_bd_class). Sorted by start, intervals are merged the way HTA
 * merges them (a new group starts when an op starts after the largest end
 * seen so far), over all ops for busy time and per class for the class
 * unions; a sweep over the class unions gives the time under each exact set
 * of classes. Per stream, the gap before each op is host wait when its
 * launch call started after the previous op ended, else kernel wait when
 * shorter than the threshold, else other.
 *
 * By default times are exact ns, every op counts, sync records are not GPU
 * work and memcpy/memset are memory by their record kind. The flags switch
 * on HTA's quirks one by one (docs/hta-parity.md has the numbers).
 */
#include "base/compat.h"
#include "analyze/breakdown.h"
#include "analyze/commclass.h"
#include "analyze/model.h"

#include <math.h>
#include <strings.h>

#define NO_LAUNCH INT64_MIN

struct ev {
	int64_t s, e;
	int64_t te;      /* end in the kernel-type table (GPA_BD_INT_DUR) */
	int64_t rt;      /* start of the launch call, NO_LAUNCH when none */
	uint32_t proc;
	uint32_t stream;
	uint32_t seq;    /* input order, for stable sorts */
	uint8_t cls;     /* enum gpa_bd_class bits */
	uint8_t is_sync;
};

struct point {
	int64_t t;
	int delta;
};

struct ev_vec {
	struct ev *v;
	size_t n, cap;
};

struct point_vec {
	struct point *v;
	size_t n, cap;
};

void gpa_breakdown_opts_init(struct gpa_breakdown_opts *o)
{
	o->flags = 0;
	o->kernel_wait_ns = 30000;
	o->comm = NULL;
}

const char *gpa_bd_class_name(unsigned cls)
{
	switch (cls) {
	case GPA_BD_COMP:
		return "computation";
	case GPA_BD_COMM:
		return "communication";
	case GPA_BD_MEM:
		return "memory";
	default:
		return "other";
	}
}

const char *gpa_bd_idle_name(unsigned cat)
{
	static const char *const names[GPA_BD_IDLE__COUNT] = {"host_wait", "kernel_wait", "other"};

	return cat < GPA_BD_IDLE__COUNT ? names[cat] : NULL;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool contains_ci(const char *s, const char *needle)
{
	size_t n = strlen(needle);

	for (; *s; s++) {
		if (!strncasecmp(s, needle, n)) {
			return true;
		}
	}
	return false;
}

/* HTA's regex "cuda.*LaunchKernel" under re.match. */
static bool is_cuda_launch(const char *name)
{
	return starts(name, "cuda") && strstr(name + 4, "LaunchKernel");
}

unsigned gpa_bd_classify(const char *name, unsigned flags)
{
	static const char *const not_comp_prefix[] = {
		"nccl",    "Stream Wait Event", "runFunction",	     "hip",
		"job_exe", "packet",		"pe_exe",	     "cpum_exe_subgraph",
		"hccl",    "collective_subgraph_execution",
	};
	static const char *const not_comp_sub[] = {"Memcpy", "Memset", "dma", "Sync"};

	if (starts(name, "nccl") || starts(name, "hip") || starts(name, "hccl") ||
	    strstr(name, "ncclKernel")) {
		return GPA_BD_COMM;
	}
	if (!(flags & GPA_BD_NAME_ONLY) &&
	    (contains_ci(name, "nccl") || contains_ci(name, "rccl") ||
	     contains_ci(name, "nvshmem"))) {
		return GPA_BD_COMM;
	}
	if (starts(name, "Memcpy") || starts(name, "hipMemcpy") || starts(name, "Memset") ||
	    starts(name, "hipMemset") || starts(name, "dma")) {
		return GPA_BD_MEM;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(not_comp_prefix); i++) {
		if (starts(name, not_comp_prefix[i])) {
			return 0;
		}
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(not_comp_sub); i++) {
		if (strstr(name, not_comp_sub[i])) {
			return 0;
		}
	}
	return is_cuda_launch(name) ? 0 : GPA_BD_COMP;
}

/* Whole microseconds of a file's own clock (model time - offset): HTA's rounding. */
static int64_t ceil_us(int64_t t, int64_t off)
{
	int64_t r = t - off, q = r / 1000;

	if (r % 1000 > 0) {
		q++;
	}
	return q * 1000 + off;
}

static int64_t floor_us(int64_t t, int64_t off)
{
	int64_t r = t - off, q = r / 1000;

	if (r % 1000 < 0) {
		q--;
	}
	return q * 1000 + off;
}

/*
 * HTA's rounding of one op: ts and ts + dur as Python floats of the file's
 * microseconds (flags & GPA_BD_F64_TS: at epoch magnitudes a double keeps
 * only quarter microseconds), then ceil(start), floor(end).
 */
static void round_op(unsigned flags, int64_t off, int64_t *s, int64_t *e)
{
	int64_t raw = *s - off, dur = *e - *s;
	double ts, end;

	if (!(flags & GPA_BD_F64_TS)) {
		*s = ceil_us(*s, off);
		*e = floor_us(*e, off);
		return;
	}
	ts = (double)((long double)raw / 1000.0L);
	end = ts + (double)dur / 1000.0;
	*s = (int64_t)ceil(ts) * 1000 + off;
	*e = (int64_t)floor(end) * 1000 + off;
}

static int cmp_ev_time(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->proc != y->proc) {
		return x->proc < y->proc ? -1 : 1;
	}
	if (x->s != y->s) {
		return x->s < y->s ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_ev_stream(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->stream != y->stream) {
		return x->stream < y->stream ? -1 : 1;
	}
	if (x->s != y->s) {
		return x->s < y->s ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

/* Per process: the start of the last ProfilerStep#N, when there are >= 2 distinct names. */
static int last_steps(const struct gpa_model *m, int64_t *last)
{
	size_t np = m->procs.n;
	uint32_t *first_name = calloc(np ? np : 1, sizeof(*first_name));
	bool *two = calloc(np ? np : 1, sizeof(*two));

	if (!first_name || !two) {
		free(first_name);
		free(two);
		return -GP_ERR_NOMEM;
	}
	for (size_t p = 0; p < np; p++) {
		last[p] = INT64_MIN;
	}
	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		uint32_t th = gpa_nvtx_thread(m, i), p;
		const char *name = gpa_model_str(m, gpa_nvtx_name(m, i));

		if (th == GPA_NONE || th >= m->threads.n || !starts(name, "ProfilerStep#")) {
			continue;
		}
		p = m->threads.v[th].proc;
		if (!first_name[p]) {
			first_name[p] = gpa_nvtx_name(m, i);
		} else if (first_name[p] != gpa_nvtx_name(m, i)) {
			two[p] = true;
		}
		if ((int64_t)gpa_nvtx_start(m, i) > last[p]) {
			last[p] = (int64_t)gpa_nvtx_start(m, i);
		}
	}
	for (size_t p = 0; p < np; p++) {
		if (!two[p]) {
			last[p] = INT64_MIN;
		}
	}
	free(first_name);
	free(two);
	return 0;
}

/* One op into *out unless filtered; api is its launch row or GPA_NONE. */
static int add_op(const struct gpa_model *m, unsigned flags, const int64_t *last,
		  struct ev_vec *out, uint32_t proc, uint64_t s, uint64_t e, uint32_t api,
		  uint32_t stream, uint8_t cls, bool is_sync)
{
	int64_t off = m->procs.v[proc].clock_offset;
	/* HTA reads epoch microseconds with decimals as doubles: so do we, per file */
	if ((flags & GPA_BD_ROUND_US) && m->procs.v[proc].ts_epoch_decimals) {
		flags |= GPA_BD_F64_TS;
	}
	struct ev v = {.s = (int64_t)s, .e = (int64_t)e, .rt = NO_LAUNCH, .proc = proc,
		       .stream = stream, .seq = (uint32_t)out->n, .cls = cls,
		       .is_sync = is_sync};

	if (api != GPA_NONE) {
		int64_t end = (int64_t)gpa_api_end(m, api);
		v.rt = (int64_t)gpa_api_start(m, api);
		if (flags & GPA_BD_ROUND_US) {
			round_op(flags, off, &v.rt, &end);
		}
	}
	if ((flags & GPA_BD_LAST_STEP) && last[proc] != INT64_MIN) {
		int64_t step = last[proc], end = step;
		if (flags & GPA_BD_ROUND_US) {
			round_op(flags, off, &step, &end);
		}
		if (v.rt == NO_LAUNCH || v.rt >= step) {
			return 0;
		}
	}
	if (flags & GPA_BD_ROUND_US) {
		round_op(flags, off, &v.s, &v.e);
	}
	v.te = v.e;
	if (flags & GPA_BD_INT_DUR) {
		v.te = v.s + (v.e - v.s) / 1000 * 1000;
	}
	return gp_vec_push(out, v);
}

/*
 * The classes of kernel row `row`: HTA's name regexes with NAME_ONLY; else
 * communication exactly when the shared classification says so
 * (analyze/commclass.h), and every other kernel work (compute, or memory
 * for a kernel named like a copy).
 */
static uint8_t kernel_class(const struct gpa_model *m, unsigned flags,
			    const struct gpa_commclass *cc, uint32_t row)
{
	uint8_t cls = (uint8_t)gpa_bd_classify(
		gpa_model_str(m, m->funcs.v[gpa_kern_func(m, row)].name), flags);

	if (flags & GPA_BD_NAME_ONLY) {
		return cls;
	}
	if (cc->kern[row] != GPA_COMM_NOT) {
		return GPA_BD_COMM;
	}
	return cls == GPA_BD_MEM ? GPA_BD_MEM : GPA_BD_COMP;
}

static int collect(const struct gpa_model *m, unsigned flags, const struct gpa_commclass *cc,
		   const int64_t *last, struct ev_vec *out)
{
	int ret = 0;

	for (size_t i = 0; i < gpa_gpu_rows(m) && !ret; i++) {
		uint32_t row = gpa_gpu_row(m, i), proc = gpa_dev_proc(m, gpa_gpu_dev(m, i));
		uint32_t api, stream;
		uint8_t cls;

		switch (gpa_gpu_kind(m, i)) {
		case GPA_GPU_KERNEL:
			api = gpa_kern_api(m, row);
			stream = gpa_kern_stream(m, row);
			cls = kernel_class(m, flags, cc, row);
			break;
		case GPA_GPU_MEMCPY:
			api = gpa_copy_api(m, row);
			stream = gpa_copy_stream(m, row);
			/* A peer copy between GPUs is communication (not under HTA's names). */
			cls = !(flags & GPA_BD_NAME_ONLY) && cc->copy[row] ? GPA_BD_COMM : GPA_BD_MEM;
			break;
		case GPA_GPU_MEMSET:
			api = gpa_set_api(m, row);
			stream = gpa_set_stream(m, row);
			cls = GPA_BD_MEM;
			break;
		default:
			continue;
		}
		ret = add_op(m, flags, last, out, proc, gpa_gpu_start(m, i), gpa_gpu_end(m, i), api,
			     stream, cls, false);
	}
	/*
	 * HTA counts cuda_sync events whose stream is not -1 as GPU events. The
	 * importer stores stream -1 as 0, so stream 0 stands for "none" here.
	 */
	for (size_t i = 0; (flags & GPA_BD_SYNC_BUSY) && i < gpa_sync_rows(m) && !ret; i++) {
		if (!gpa_sync_stream(m, i) || gpa_sync_proc(m, i) >= m->procs.n) {
			continue;
		}
		ret = add_op(m, flags, last, out, gpa_sync_proc(m, i), gpa_sync_start(m, i),
			     gpa_sync_end(m, i), gpa_sync_api(m, i), gpa_sync_stream(m, i), 0,
			     true);
	}
	return ret;
}

/*
 * HTA's interval merge over the ops in v[0..n) (sorted by start) having a
 * class in want (0: every op): a group ends when an op starts after the
 * largest end seen so far. Sums the group lengths, stores the first start
 * and the last group's end, and appends +-bit points per group when pts.
 * te: use the kernel-type table's ends.
 */
static int merge(const struct ev *v, size_t n, unsigned want, bool te, int bit, int64_t *sum,
		 int64_t *first, int64_t *last, struct point_vec *pts)
{
	bool any = false, started = false;
	int64_t gs = 0, ge = 0, gmax = 0, e;

	*sum = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && want && !(v[i].cls & want)) {
			continue;
		}
		if (any && (i == n || v[i].s > gmax)) {
			*sum += ge - gs;
			*last = ge;
			if (pts && (gp_vec_push(pts, ((struct point){gs, bit})) ||
				    gp_vec_push(pts, ((struct point){ge, -bit})))) {
				return -GP_ERR_NOMEM;
			}
			any = false;
		}
		if (i == n) {
			break;
		}
		if (!any) {
			if (!started) {
				*first = v[i].s;
				gmax = te ? v[i].te : v[i].e;
				started = true;
			}
			gs = v[i].s;
			ge = te ? v[i].te : v[i].e;
			gmax = ge > gmax ? ge : gmax;
			any = true;
			continue;
		}
		e = te ? v[i].te : v[i].e;
		ge = e > ge ? e : ge;
		gmax = e > gmax ? e : gmax;
	}
	return 0;
}

/* Time under each exact set of classes, from the class unions' points (sorted here). */
static void sweep(struct point_vec *pts, int64_t *type_ns)
{
	int run = 0;

	gp_qsort(pts->v, pts->n, sizeof(*pts->v), cmp_point);
	for (size_t i = 0; i + 1 < pts->n; i++) {
		run += pts->v[i].delta;
		if (run > 0 && run < GPA_BD_CLASSES) {
			type_ns[run] += pts->v[i + 1].t - pts->v[i].t;
		}
	}
}

static int rank_tables(const struct ev *v, size_t n, struct gpa_bd_rank *r)
{
	static const int bits[] = {GPA_BD_COMP, GPA_BD_COMM, GPA_BD_MEM};
	struct point_vec pts = {0}, tpts = {0};
	int64_t first = 0, last = 0, sum = 0, f = 0, l = 0, exact[GPA_BD_CLASSES] = {0};
	int ret;

	r->ops = n;
	ret = merge(v, n, 0, false, 0, &r->busy, &first, &last, NULL);
	r->span = last - first;
	r->idle = r->span - r->busy;
	for (size_t b = 0; b < GP_ARRAY_SIZE(bits) && !ret; b++) {
		ret = merge(v, n, (unsigned)bits[b], false, bits[b], &sum, &f, &l, &pts);
		if (bits[b] == GPA_BD_COMP) {
			r->compute = sum;
		} else if (bits[b] == GPA_BD_COMM) {
			r->comm = sum;
		}
		if (!ret) {
			ret = merge(v, n, (unsigned)bits[b], true, bits[b], &sum, &f, &l, &tpts);
		}
	}
	if (ret) {
		goto out;
	}
	r->non_compute = r->span - r->compute - r->idle;
	sweep(&pts, exact);
	sweep(&tpts, r->type_ns);
	r->overlap = exact[GPA_BD_COMP | GPA_BD_COMM] +
		     exact[GPA_BD_COMP | GPA_BD_COMM | GPA_BD_MEM];
out:
	gp_vec_free(&pts);
	gp_vec_free(&tpts);
	return ret;
}

/* v: one process's non-sync ops, re-sorted here by stream then start. */
static int stream_tables(const struct gpa_breakdown_opts *o, struct ev *v, size_t n,
			 const struct gpa_bd_rank *r, struct gpa_breakdown *out)
{
	gp_qsort(v, n, sizeof(*v), cmp_ev_stream);
	for (size_t i = 0; i < n;) {
		struct gpa_bd_stream st = {.proc = r->proc, .rank = r->rank, .stream = v[i].stream};
		size_t j = i + 1;

		for (; j < n && v[j].stream == v[i].stream; j++) {
			int64_t prev_end = v[j - 1].e, gap = v[j].s - prev_end;
			unsigned cat;

			if (v[j].rt != NO_LAUNCH && v[j].rt > prev_end) {
				cat = GPA_BD_HOST_WAIT;
			} else if (gap < o->kernel_wait_ns) {
				cat = GPA_BD_KERNEL_WAIT;
			} else {
				cat = GPA_BD_OTHER_WAIT;
			}
			st.idle_ns[cat] += gap;
			st.idle_n[cat]++;
		}
		st.ops = j - i;
		if (gp_vec_push(&out->streams, st)) {
			return -GP_ERR_NOMEM;
		}
		i = j;
	}
	return 0;
}

int gpa_breakdown_compute(const struct gpa_model *m, const struct gpa_breakdown_opts *o,
			  struct gpa_breakdown *out)
{
	struct ev_vec evs = {0}, tmp = {0};
	int64_t *last = calloc(m->procs.n ? m->procs.n : 1, sizeof(*last));
	struct gpa_commclass own = {0};
	const struct gpa_commclass *cc = o->comm;
	int ret = -GP_ERR_NOMEM;

	memset(out, 0, sizeof(*out));
	out->flags = o->flags;
	if (!last || last_steps(m, last)) {
		goto out;
	}
	if (!cc) {
		ret = gpa_commclass_compute(m, NULL, &own, NULL, 0);
		if (ret) {
			goto out;
		}
		cc = &own;
	}
	ret = collect(m, o->flags, cc, last, &evs);
	if (ret) {
		goto out;
	}
	gp_qsort(evs.v, evs.n, sizeof(*evs.v), cmp_ev_time);
	for (size_t i = 0; i < evs.n;) {
		uint32_t p = evs.v[i].proc;
		int32_t rank = m->procs.v[p].rank;
		struct gpa_bd_rank r = {.proc = p, .rank = rank < 0 ? 0 : rank};
		size_t j = i;

		while (j < evs.n && evs.v[j].proc == p) {
			j++;
		}
		ret = rank_tables(evs.v + i, j - i, &r);
		if (ret || (ret = gp_vec_push(&out->ranks, r))) {
			goto out;
		}
		for (unsigned c = 0; c < GPA_BD_CLASSES; c++) {
			out->type_ns[c] += r.type_ns[c];
		}
		tmp.n = 0;
		for (size_t k = i; k < j; k++) {
			if (!evs.v[k].is_sync && (ret = gp_vec_push(&tmp, evs.v[k]))) {
				goto out;
			}
		}
		ret = stream_tables(o, tmp.v, tmp.n, &r, out);
		if (ret) {
			goto out;
		}
		i = j;
	}
	ret = 0;
out:
	gp_vec_free(&evs);
	gp_vec_free(&tmp);
	gpa_commclass_release(&own);
	free(last);
	return ret;
}

void gpa_breakdown_release(struct gpa_breakdown *b)
{
	if (!b) {
		return;
	}
	gp_vec_free(&b->ranks);
	gp_vec_free(&b->streams);
}

int gpa_bd_last_step_starts(const struct gpa_model *m, int64_t *last)
{
	return last_steps(m, last);
}
