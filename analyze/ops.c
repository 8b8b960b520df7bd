/* SPDX-License-Identifier: MIT */
/*
 * ops.c - GPU work by the leaf CPU operator that launched it (ops.h,
 * docs/ops.md). A kernel, copy or memset goes to its launching API call
 * (by correlation, model.c), the call to the innermost NVTX push/pop range
 * enclosing it on its thread (model.c), and from there up the parent links
 * to the first range that is a CPU operator: the leaf. An aten::linear
 * whose kernel aten::addmm launched counts once, under aten::addmm. Each
 * call's GPU time is the sum of its GPU ops' durations; its FLOPs and bytes
 * come from op-models.c, once per unique (name, inputs).
 */
#include "base/compat.h"
#include "analyze/ops.h"
#include "analyze/steps.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A CPU operator call that launched GPU work. */
struct call {
	uint32_t nvtx;
	uint32_t group;
	uint64_t ns;
	uint32_t ops;
};

uint32_t gpa_ops_leaf(const struct gpa_model *m, size_t i)
{
	uint32_t api = gpa_gpu_api(m, i);
	uint32_t r = api == GPA_NONE ? GPA_NONE : m->api.nvtx[api];

	for (int hops = 0; r != GPA_NONE && hops < 1024; hops++) {
		if (m->nvtx.origin[r] == GPA_RANGE_CPU_OP) {
			return r;
		}
		r = m->nvtx.parent[r];
	}
	return GPA_NONE;
}

bool gpa_ops_any(const struct gpa_model *m)
{
	for (size_t r = 0; r < m->nvtx.n; r++) {
		if (m->nvtx.origin[r] == GPA_RANGE_CPU_OP) {
			return true;
		}
	}
	return false;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void dist(double *v, size_t n, struct gpa_op_dist *d)
{
	double sum = 0;

	if (!n) {
		return;
	}
	gp_qsort(v, n, sizeof(*v), cmp_double);
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
	}
	d->mean = sum / (double)n;
	d->min = v[0];
	d->max = v[n - 1];
	d->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Roofline placement of a row from its totals and the device peaks. */
static void place(struct gpa_op_row *r, const struct gpa_peaks *pk)
{
	r->bound = 0;
	r->roof_pct = -1;
	r->peak_tflops = r->perf.dtype >= 0 ? pk->tflops[r->perf.dtype] : 0;
	r->peak_tbps = pk->mem_gbps / 1000;
	if (!r->modelled || !r->gpu_ns || r->bytes <= 0) {
		return;
	}
	double ai = r->flops / r->bytes;
	double achieved = r->flops / (double)r->gpu_ns / 1000; /* FLOP/ns = GFLOP/s; /1000 TFLOP/s */
	double tbps = r->bytes / (double)r->gpu_ns / 1000;    /* B/ns = GB/s; /1000 TB/s */
	if (r->peak_tbps <= 0) {
		return;
	}
	if (r->peak_tflops > 0 && r->flops > 0) {
		r->ridge = r->peak_tflops / r->peak_tbps;
		r->bound = ai >= r->ridge ? 1 : 2;
		double roof = ai >= r->ridge ? r->peak_tflops : ai * r->peak_tbps;
		r->roof_pct = 100 * achieved / roof;
	} else if (r->flops == 0) {
		r->bound = 2;
		r->roof_pct = 100 * tbps / r->peak_tbps;
	}
}

/* Per-call rates and time quantiles of one group's calls c[0..n). */
static int group_stats(struct gpa_op_row *r, const struct call *c, size_t n)
{
	double *tf = malloc(sizeof(double) * (n ? n : 1) * 2);
	uint64_t *ns = malloc(sizeof(uint64_t) * (n ? n : 1));
	size_t k = 0;

	if (!tf || !ns) {
		free(tf);
		free(ns);
		return -GP_ERR_NOMEM;
	}
	double *tb = tf + n;
	for (size_t i = 0; i < n; i++) {
		ns[i] = c[i].ns;
		if (r->perf.kind != GPA_OPK_NONE && c[i].ns) {
			tf[k] = r->perf.flops / (double)c[i].ns / 1000;
			tb[k] = r->perf.bytes / (double)c[i].ns / 1000;
			k++;
		}
	}
	dist(tf, k, &r->tflops);
	dist(tb, k, &r->tbps);
	gp_qsort(ns, n, sizeof(*ns), cmp_u64);
	if (n) {
		r->gpu_ns_min = ns[0];
		r->gpu_ns_max = ns[n - 1];
		r->gpu_ns_median = n % 2 ? ns[n / 2] : (ns[n / 2 - 1] + ns[n / 2]) / 2;
	}
	free(tf);
	free(ns);
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct gpa_op_row *x = a, *y = b;
	if (x->gpu_ns != y->gpu_ns) {
		return x->gpu_ns > y->gpu_ns ? -1 : 1;
	}
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->args ? x->args : "", y->args ? y->args : "");
}

/* Calls c[0..n) ordered by group (ngroups of them), file order kept within one: a counting sort. */
static struct call *by_group(const struct call *c, size_t n, size_t ngroups)
{
	size_t *at = calloc(ngroups + 1, sizeof(*at));
	struct call *out = malloc(sizeof(*out) * (n ? n : 1));

	if (!at || !out) {
		free(at);
		free(out);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		at[c[i].group + 1]++;
	}
	for (size_t g = 0; g < ngroups; g++) {
		at[g + 1] += at[g];
	}
	for (size_t i = 0; i < n; i++) {
		out[at[c[i].group]++] = c[i];
	}
	free(at);
	return out;
}

/* Sums each leaf operator's GPU ops into calls (one per operator range with work). */
static int collect_calls(const struct gpa_model *m, struct gpa_ops *out, struct call **callsp,
			 size_t *ncalls)
{
	uint32_t *slot = malloc(sizeof(uint32_t) * (m->nvtx.n ? m->nvtx.n : 1));
	GP_VEC(struct call) calls = {0};

	if (!slot) {
		return -GP_ERR_NOMEM;
	}
	memset(slot, 0xff, sizeof(uint32_t) * m->nvtx.n);
	/* at most one call per GPU op: reserve for a tenth of them, growing from there */
	if (gp_vec_reserve(&calls, m->gpu.n / 10 + 16)) {
		free(slot);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < m->gpu.n; i++) {
		uint64_t d = m->gpu.end[i] - m->gpu.start[i];
		uint32_t r = gpa_ops_leaf(m, i);
		out->gpu_ops++;
		out->gpu_ns += d;
		if (r == GPA_NONE) {
			continue;
		}
		out->gpu_ops_in_ops++;
		out->gpu_ns_in_ops += d;
		if (slot[r] == UINT32_MAX) {
			struct call c = {.nvtx = r};
			if (gp_vec_push(&calls, c)) {
				free(slot);
				gp_vec_free(&calls);
				return -GP_ERR_NOMEM;
			}
			slot[r] = (uint32_t)(calls.n - 1);
		}
		calls.v[slot[r]].ns += d;
		calls.v[slot[r]].ops++;
	}
	free(slot);
	*callsp = calls.v;
	*ncalls = calls.n;
	return 0;
}

/* Groups calls by (name, inputs) into out->by_args, with their models. */
static int group_calls(const struct gpa_model *m, struct gpa_ops *out, struct call *c, size_t n)
{
	struct gp_u64map g = GP_U64MAP_INIT;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		uint32_t r = c[i].nvtx;
		uint64_t key = ((uint64_t)m->nvtx.name[r] << 32) | gpa_col_opt(m->nvtx.args, r);
		uint64_t *v;
		int added = gp_u64map_get_or_insert(&g, key, out->by_args.n, &v);
		if (added < 0) {
			ret = -GP_ERR_NOMEM;
			break;
		}
		c[i].group = (uint32_t)*v;
		if (added) {
			struct gpa_op_row row = {0};
			row.name = gpa_model_str(m, m->nvtx.name[r]);
			row.args = gpa_model_str(m, gpa_col_opt(m->nvtx.args, r));
			gpa_op_perf(row.name, row.args, &row.perf);
			ret = gp_vec_push(&out->by_args, row);
		}
	}
	gp_u64map_release(&g);
	if (ret) {
		return ret;
	}
	struct call *sorted = by_group(c, n, out->by_args.n);
	if (!sorted) {
		return -GP_ERR_NOMEM;
	}
	memcpy(c, sorted, sizeof(*c) * n);
	free(sorted);
	for (size_t i = 0, j; i < n; i = j) {
		struct gpa_op_row *row = &out->by_args.v[c[i].group];
		for (j = i; j < n && c[j].group == c[i].group; j++) {
			row->count++;
			row->gpu_ops += c[j].ops;
			row->gpu_ns += c[j].ns;
		}
		if (row->perf.kind != GPA_OPK_NONE) {
			row->modelled = row->count;
			row->flops = row->perf.flops * (double)row->count;
			row->bytes = row->perf.bytes * (double)row->count;
			out->flops += row->flops;
			out->bytes += row->bytes;
			out->gpu_ns_modelled += row->gpu_ns;
		}
		ret = group_stats(row, c + i, j - i);
		if (ret) {
			return ret;
		}
		place(row, &out->peaks);
	}
	return 0;
}

/* By-name rows: the by-args rows of each name summed. */
static int by_name(const struct gpa_model *m, struct gpa_ops *out)
{
	struct gp_u64map g = GP_U64MAP_INIT;
	int ret = 0;

	(void)m;
	for (size_t i = 0; i < out->by_args.n && !ret; i++) {
		const struct gpa_op_row *a = &out->by_args.v[i];
		uint64_t *v;
		int added = gp_u64map_get_or_insert(&g, (uint64_t)(uintptr_t)a->name,
						    out->by_name.n, &v);
		if (added < 0) {
			ret = -GP_ERR_NOMEM;
			break;
		}
		if (added) {
			struct gpa_op_row row = {.name = a->name, .perf = a->perf};
			row.perf.flops = row.perf.bytes = 0;
			row.gpu_ns_min = UINT64_MAX;
			if ((ret = gp_vec_push(&out->by_name, row))) {
				break;
			}
		}
		struct gpa_op_row *r = &out->by_name.v[*v];
		r->count += a->count;
		r->gpu_ops += a->gpu_ops;
		r->gpu_ns += a->gpu_ns;
		r->flops += a->flops;
		r->bytes += a->bytes;
		r->modelled += a->modelled;
		r->gpu_ns_min = a->gpu_ns_min < r->gpu_ns_min ? a->gpu_ns_min : r->gpu_ns_min;
		r->gpu_ns_max = a->gpu_ns_max > r->gpu_ns_max ? a->gpu_ns_max : r->gpu_ns_max;
		if (r->perf.kind == GPA_OPK_NONE && a->perf.kind != GPA_OPK_NONE) {
			r->perf = a->perf;
		}
	}
	gp_u64map_release(&g);
	for (size_t i = 0; i < out->by_name.n; i++) {
		struct gpa_op_row *r = &out->by_name.v[i];
		/* a name's rate: its modelled calls' totals over their time */
		double ns = 0;
		for (size_t k = 0; k < out->by_args.n; k++) {
			if (out->by_args.v[k].name == r->name && out->by_args.v[k].modelled) {
				ns += (double)out->by_args.v[k].gpu_ns;
			}
		}
		if (r->modelled && ns > 0) {
			r->tflops.mean = r->tflops.median = r->flops / ns / 1000;
			r->tbps.mean = r->tbps.median = r->bytes / ns / 1000;
		}
		uint64_t keep = r->gpu_ns;
		r->gpu_ns = (uint64_t)ns;
		place(r, &out->peaks);
		r->gpu_ns = keep;
		if (r->gpu_ns_min == UINT64_MAX) {
			r->gpu_ns_min = 0;
		}
	}
	return ret;
}

static bool any_untyped(const struct gpa_ops *out)
{
	for (size_t i = 0; i < out->by_args.n; i++) {
		if (out->by_args.v[i].perf.untyped) {
			return true;
		}
	}
	return false;
}

int gpa_ops_analyze(const struct gpa_model *m, const struct gpa_ops_opts *o, struct gpa_ops *out,
		    char *errbuf, size_t errlen)
{
	struct call *calls = NULL;
	size_t ncalls = 0;
	uint32_t dev;
	int ret;

	memset(out, 0, sizeof(*out));
	for (size_t r = 0; r < m->nvtx.n; r++) {
		if (m->nvtx.origin[r] == GPA_RANGE_CPU_OP) {
			out->cpu_ops++;
			out->cpu_ops_shaped += gpa_col_opt(m->nvtx.args, r) != 0;
		}
	}
	gpa_model_work_devices(m, &dev);
	if (dev != GPA_NONE) {
		ret = gpa_device_peaks_opts(m, dev, &o->peaks, &out->peaks, errbuf, errlen);
		if (ret) {
			return ret;
		}
	}
	ret = collect_calls(m, out, &calls, &ncalls);
	if (!ret) {
		ret = group_calls(m, out, calls, ncalls);
	}
	free(calls);
	if (!ret) {
		ret = by_name(m, out);
	}
	if (ret) {
		gpa_ops_release(out);
		snprintf(errbuf, errlen, "out of memory");
		return ret;
	}
	if (!out->cpu_ops) {
		out->why_none = "the trace has no CPU operators (PyTorch profiler cpu_op events)";
	} else if (!out->gpu_ops_in_ops) {
		out->why_none = "no GPU work was launched inside a CPU operator";
	} else if (!out->cpu_ops_shaped) {
		out->why_none = "no operator has recorded shapes (profile with record_shapes=True): "
				"time only";
	} else if (any_untyped(out)) {
		out->why_none = "some operators have sizes without data types (NVTX ranges of "
				"emit_nvtx): FLOPs only, no bytes, peak or roofline";
	}
	gp_qsort(out->by_args.v, out->by_args.n, sizeof(*out->by_args.v), cmp_row);
	gp_qsort(out->by_name.v, out->by_name.n, sizeof(*out->by_name.v), cmp_row);
	out->names_total = out->by_name.n;
	out->args_total = out->by_args.n;
	if (o->top) {
		out->by_name.n = out->by_name.n < o->top ? out->by_name.n : o->top;
		out->by_args.n = out->by_args.n < o->top ? out->by_args.n : o->top;
	}
	return 0;
}

void gpa_ops_release(struct gpa_ops *r)
{
	gp_vec_free(&r->by_name);
	gp_vec_free(&r->by_args);
}

/* The step of process proc whose CPU range holds t, or -1 (steps of a process are in time order). */
static long step_of(const struct gpa_steps *steps, uint32_t proc, uint64_t t)
{
	size_t lo = 0, hi = steps->v.n;

	/* the last step starting at or before t; steps of several processes interleave */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (steps->v.v[mid].start <= t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	for (size_t i = lo; i-- > 0;) {
		const struct gpa_step *s = &steps->v.v[i];
		if (s->proc == proc && t < s->end) {
			return (long)i;
		}
		if (s->proc == proc) {
			return -1;
		}
	}
	return -1;
}

static bool steps_sorted(const struct gpa_steps *steps)
{
	for (size_t i = 1; i < steps->v.n; i++) {
		if (steps->v.v[i].start < steps->v.v[i - 1].start) {
			return false;
		}
	}
	return true;
}

int gpa_ops_step_totals(const struct gpa_model *m, const struct gpa_steps *steps, double *flops,
			double *bytes)
{
	struct gp_u64map perf = GP_U64MAP_INIT;
	GP_VEC(struct gpa_op_perf) models = {0};
	struct call *calls = NULL;
	struct gpa_ops tmp = {0};
	size_t n = 0;
	int counted = 0, ret;
	bool untyped = false;

	for (size_t i = 0; i < steps->v.n; i++) {
		flops[i] = bytes[i] = 0;
	}
	if (!steps->v.n || !m->nvtx.args || !steps_sorted(steps)) {
		return 0;
	}
	ret = collect_calls(m, &tmp, &calls, &n);
	for (size_t i = 0; i < n && !ret; i++) {
		uint32_t r = calls[i].nvtx, args = gpa_col_opt(m->nvtx.args, r);
		uint64_t key = ((uint64_t)m->nvtx.name[r] << 32) | args, *v;
		if (!args) {
			continue;
		}
		int added = gp_u64map_get_or_insert(&perf, key, models.n, &v);
		if (added < 0) {
			ret = -GP_ERR_NOMEM;
			break;
		}
		if (added) {
			struct gpa_op_perf p;
			gpa_op_perf(gpa_model_str(m, m->nvtx.name[r]), gpa_model_str(m, args), &p);
			if ((ret = gp_vec_push(&models, p))) {
				break;
			}
		}
		const struct gpa_op_perf *p = &models.v[*v];
		long s = step_of(steps, m->threads.v[m->nvtx.thread[r]].proc, m->nvtx.start[r]);
		if (p->kind != GPA_OPK_NONE && s >= 0) {
			flops[s] += p->flops;
			bytes[s] += p->bytes;
			untyped |= p->untyped;
			counted++;
		}
	}
	/* some calls' bytes unknown: no step's bytes are known */
	for (size_t i = 0; untyped && i < steps->v.n; i++) {
		bytes[i] = 0;
	}
	free(calls);
	gp_vec_free(&models);
	gp_u64map_release(&perf);
	return ret ? ret : counted;
}
