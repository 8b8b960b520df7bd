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
	uint32_t r = api == GPA_NONE ? GPA_NONE : gpa_api_nvtx(m, api);

	for (int hops = 0; r != GPA_NONE && hops < 1024; hops++) {
		if (gpa_nvtx_origin(m, r) == GPA_RANGE_CPU_OP) {
			return r;
		}
		r = gpa_nvtx_parent(m, r);
	}
	return GPA_NONE;
}

bool gpa_ops_any(const struct gpa_model *m)
{
	for (size_t r = 0; r < gpa_nvtx_rows(m); r++) {
		if (gpa_nvtx_origin(m, r) == GPA_RANGE_CPU_OP) {
			return true;
		}
	}
	return false;
}

/*
 * Whether a row ran faster than the device can: its FLOP/s over the peak of
 * its dtype or its bytes/s over the memory bandwidth (the roofline's roofs,
 * so never a point over 100 %). Marks the row and keeps the worst in out.
 */
static bool over_peak(struct gpa_op_row *r, double tflops, double tbps, struct gpa_ops *out)
{
	bool compute = r->peak_tflops > 0 && tflops > r->peak_tflops;
	bool memory = r->peak_tbps > 0 && tbps > r->peak_tbps;

	if (!compute && !memory) {
		return false;
	}
	double ratio = compute ? tflops / r->peak_tflops : tbps / r->peak_tbps;
	r->implausible = true;
	if (!out) {
		return true; /* a by-name row: its by-inputs rows were counted */
	}
	if (!out->implausible++ || ratio > out->worst.achieved / out->worst.peak) {
		out->worst = (struct gpa_op_implausible){
			.name = r->name, .args = r->args, .kind = r->perf.kind, .compute = compute,
			.achieved = compute ? tflops : tbps,
			.peak = compute ? r->peak_tflops : r->peak_tbps};
	}
	out->implausible_ns += r->gpu_ns;
	return true;
}

/*
 * Roofline placement of a row from its totals and the device peaks; a row
 * faster than the peaks is counted in out (by-inputs rows; NULL for by-name)
 * and not placed.
 */
static void place(struct gpa_op_row *r, const struct gpa_peaks *pk, struct gpa_ops *out)
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
	if (over_peak(r, achieved, tbps, out) || r->peak_tbps <= 0) {
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

/* Sorts v[0..n) ascending: LSD radix on the bytes the largest value needs; tmp holds n. */
static void sort_u64(uint64_t *v, uint64_t *tmp, size_t n)
{
	uint64_t max = 0;

	for (size_t i = 0; i < n; i++) {
		max = v[i] > max ? v[i] : max;
	}
	for (unsigned shift = 0; shift < 64 && (max >> shift); shift += 8) {
		size_t at[257] = {0};
		for (size_t i = 0; i < n; i++) {
			at[((v[i] >> shift) & 0xff) + 1]++;
		}
		for (size_t b = 0; b < 256; b++) {
			at[b + 1] += at[b];
		}
		for (size_t i = 0; i < n; i++) {
			tmp[at[(v[i] >> shift) & 0xff]++] = v[i];
		}
		memcpy(v, tmp, n * sizeof(*v));
	}
}

/*
 * The distribution of x / ns[i] / 1000 over the non-zero times of ns
 * (sorted ascending, n of them): the rates fall as the times grow, so the
 * rates in ascending order are the times in descending order, summed in
 * that order for the mean.
 */
static void rate_dist(double x, const uint64_t *ns, size_t n, struct gpa_op_dist *d)
{
	size_t z = 0, k;
	double sum = 0;

	while (z < n && !ns[z]) {
		z++;
	}
	k = n - z; /* rate j (ascending) is time n - 1 - j */
	if (!k) {
		return;
	}
#define RATE(j) (x / (double)ns[n - 1 - (j)] / 1000)
	for (size_t j = 0; j < k; j++) {
		sum += RATE(j);
	}
	d->mean = sum / (double)k;
	d->min = RATE(0);
	d->max = RATE(k - 1);
	d->median = k % 2 ? RATE(k / 2) : (RATE(k / 2 - 1) + RATE(k / 2)) / 2;
#undef RATE
}

/* Per-call rates and time quantiles of one group from its calls' times ns[0..n) (sorted here). */
static void group_stats(struct gpa_op_row *r, uint64_t *ns, uint64_t *tmp, size_t n)
{
	sort_u64(ns, tmp, n);
	if (r->perf.kind != GPA_OPK_NONE) {
		rate_dist(r->perf.flops, ns, n, &r->tflops);
		rate_dist(r->perf.bytes, ns, n, &r->tbps);
	}
	if (n) {
		r->gpu_ns_min = ns[0];
		r->gpu_ns_max = ns[n - 1];
		r->gpu_ns_median = n % 2 ? ns[n / 2] : (ns[n / 2 - 1] + ns[n / 2]) / 2;
	}
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

/* Sums each leaf operator's GPU ops into calls (one per operator range with work). */
static int collect_calls(const struct gpa_model *m, struct gpa_ops *out, struct call **callsp,
			 size_t *ncalls)
{
	uint32_t *slot = malloc(sizeof(uint32_t) * (gpa_nvtx_rows(m) ? gpa_nvtx_rows(m) : 1));
	GP_VEC(struct call) calls = {0};

	if (!slot) {
		return -GP_ERR_NOMEM;
	}
	memset(slot, 0xff, sizeof(uint32_t) * gpa_nvtx_rows(m));
	/* at most one call per GPU op: reserve for a tenth of them, growing from there */
	if (gp_vec_reserve(&calls, gpa_gpu_rows(m) / 10 + 16)) {
		free(slot);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < gpa_gpu_rows(m); i++) {
		uint64_t d = gpa_gpu_end(m, i) - gpa_gpu_start(m, i);
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

/*
 * Each group's totals, and its calls' times in one array by group (a
 * counting sort: 8 bytes a call, file order kept within a group) for the
 * quantiles; groups in order, so the floating-point sums are too.
 */
static int group_totals(struct gpa_ops *out, const struct call *c, size_t n)
{
	size_t ng = out->by_args.n;
	size_t *at = calloc(ng + 1, sizeof(*at));
	uint64_t *ns = malloc(sizeof(uint64_t) * (n ? n : 1) * 2);

	if (!at || !ns) {
		free(at);
		free(ns);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct gpa_op_row *row = &out->by_args.v[c[i].group];
		row->count++;
		row->gpu_ops += c[i].ops;
		row->gpu_ns += c[i].ns;
		at[c[i].group + 1]++;
	}
	for (size_t g = 0; g < ng; g++) {
		at[g + 1] += at[g];
	}
	for (size_t i = 0; i < n; i++) {
		ns[at[c[i].group]++] = c[i].ns;
	}
	for (size_t g = 0, from = 0; g < ng; from = at[g++]) {
		struct gpa_op_row *row = &out->by_args.v[g];
		if (row->perf.kind != GPA_OPK_NONE) {
			row->modelled = row->count;
			row->flops = row->perf.flops * (double)row->count;
			row->bytes = row->perf.bytes * (double)row->count;
			out->flops += row->flops;
			out->bytes += row->bytes;
			out->gpu_ns_modelled += row->gpu_ns;
		}
		group_stats(row, ns + from, ns + n, at[g] - from);
		place(row, &out->peaks, out);
	}
	free(at);
	free(ns);
	return 0;
}

/* Groups calls by (name, inputs) into out->by_args, with their models. */
static int group_calls(const struct gpa_model *m, struct gpa_ops *out, struct call *c, size_t n)
{
	struct gp_u64map g = GP_U64MAP_INIT;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		uint32_t r = c[i].nvtx;
		uint64_t key = ((uint64_t)gpa_nvtx_name(m, r) << 32) | gpa_nvtx_args(m, r);
		uint64_t *v;
		int added = gp_u64map_get_or_insert(&g, key, out->by_args.n, &v);
		if (added < 0) {
			ret = -GP_ERR_NOMEM;
			break;
		}
		c[i].group = (uint32_t)*v;
		if (added) {
			struct gpa_op_row row = {0};
			row.name = gpa_model_str(m, gpa_nvtx_name(m, r));
			row.args = gpa_model_str(m, gpa_nvtx_args(m, r));
			gpa_op_perf(row.name, row.args, &row.perf);
			ret = gp_vec_push(&out->by_args, row);
		}
	}
	gp_u64map_release(&g);
	if (ret) {
		return ret;
	}
	return group_totals(out, c, n);
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
		place(r, &out->peaks, NULL);
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
	for (size_t r = 0; r < gpa_nvtx_rows(m); r++) {
		if (gpa_nvtx_origin(m, r) == GPA_RANGE_CPU_OP) {
			out->cpu_ops++;
			out->cpu_ops_shaped += gpa_nvtx_args(m, r) != 0;
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
		out->why_none = "the trace has no CPU operators (PyTorch profiler cpu_op events, "
				"or cuBLAS GEMMs recorded with gpuprof record --preload)";
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

/*
 * A communication operator (the CPU-op half of GPA_COMM_CPU_OP_PATTERN,
 * analyze/commclass.h): its kernels move data and have no FLOPs by nature.
 */
static bool is_comm_op(const char *n)
{
	static const char *const prefixes[] = {
		"record_param_comms", "c10d::", "_c10d_functional::", "c10d_functional::",
		"symm_mem::", "nccl", "rccl", "ProcessGroup",
	};
	for (size_t i = 0; i < GP_ARRAY_SIZE(prefixes); i++) {
		if (!strncasecmp(n, prefixes[i], strlen(prefixes[i]))) {
			return true;
		}
	}
	return false;
}

int gpa_ops_step_totals(const struct gpa_model *m, const struct gpa_steps *steps, double *flops,
			double *bytes, struct gpa_ops_cover *cover)
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
	if (cover) {
		memset(cover, 0, sizeof(*cover));
	}
	if (!steps->v.n || !gpa_nvtx_has_args(m) || !steps_sorted(steps)) {
		return 0;
	}
	ret = collect_calls(m, &tmp, &calls, &n);
	if (cover) {
		*cover = (struct gpa_ops_cover){.gpu_ns = tmp.gpu_ns};
	}
	for (size_t i = 0; i < n && !ret; i++) {
		uint32_t r = calls[i].nvtx, args = gpa_nvtx_args(m, r);
		uint64_t key = ((uint64_t)gpa_nvtx_name(m, r) << 32) | args, *v;
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
			gpa_op_perf(gpa_model_str(m, gpa_nvtx_name(m, r)), gpa_model_str(m, args),
				    &p);
			if ((ret = gp_vec_push(&models, p))) {
				break;
			}
		}
		const struct gpa_op_perf *p = &models.v[*v];
		if (cover && is_comm_op(gpa_model_str(m, gpa_nvtx_name(m, r)))) {
			cover->comm_ns += calls[i].ns;
		}
		if (cover && p->kind != GPA_OPK_NONE) {
			cover->flops_ns += p->flops > 0 ? calls[i].ns : 0;
			cover->bytes_ns += p->bytes > 0 && !p->untyped ? calls[i].ns : 0;
		}
		long s = step_of(steps, m->threads.v[gpa_nvtx_thread(m, r)].proc,
				 gpa_nvtx_start(m, r));
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

int gpa_ops_implausible_sentence(struct gp_strbuf *out, const struct gpa_ops *o)
{
	const struct gpa_op_implausible *w = &o->worst;

	if (!o->implausible) {
		return 0;
	}
	gp_strbuf_addf(out,
		       "implausible data: %" PRIu64 " operator%s with given inputs ran faster than "
		       "%s's peak, left off the roofline; the furthest: %s (%s model%s%s) at %.3g %s "
		       "over the peak's %.3g: its recorded shapes or types are not what ran, its "
		       "model overstates the %s,%s or the device is not %s (give --device)",
		       o->implausible, o->implausible == 1 ? "" : "s", o->peaks.name, w->name,
		       gpa_op_kind_name(w->kind), w->args && *w->args ? ", inputs " : "",
		       w->args && *w->args ? w->args : "", w->achieved,
		       w->compute ? "TFLOP/s" : "TB/s", w->peak, w->compute ? "work" : "bytes",
		       w->compute ? "" : " its data was still in the L2 cache,", o->peaks.name);
	return out->failed ? -GP_ERR_NOMEM : 0;
}
