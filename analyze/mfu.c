/* SPDX-License-Identifier: MIT */
/*
 * mfu.c - model and hardware FLOPs utilization per step, memory bandwidth
 * utilization, copy bandwidth against the link, slow copies (docs/mfu.md).
 */
#include "base/compat.h"
#include "analyze/mfu.h"
#include "analyze/model.h"
#include "analyze/ops.h"
#include "analyze/steps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_OUTLIERS 20

double gpa_mfu_flops_per_token(const struct gpa_mfu_opts *o, bool hardware)
{
	double n = o->params;
	double att = o->attention ? o->layers * o->hidden * o->seq_len : 0;

	if (o->inference) {
		/* Forward only: 2 FLOP per parameter, 4 L h T for QK^T and AV. */
		return 2 * n + 4 * att;
	}
	/* Forward 2N + 4LhT, backward twice that; a recomputed forward adds one more. */
	if (hardware && o->recompute) {
		return 8 * n + 16 * att;
	}
	return 6 * n + 12 * att;
}

static int check(double v, const char *name, double max, char *errbuf, size_t errlen)
{
	if (v == 0) {
		return 0; /* not given */
	}
	if (!isfinite(v) || v < 0 || v > max) {
		snprintf(errbuf, errlen, "%s must be a finite number > 0 and <= %g, got %g", name,
			 max, v);
		return -GP_ERR_API;
	}
	return 0;
}

static double median(double *v, size_t n)
{
	if (!n) {
		return -1;
	}
	for (size_t i = 1; i < n; i++) { /* insertion sort: step counts are small */
		double x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--) {
			v[j] = v[j - 1];
		}
		v[j] = x;
	}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median of the positive values of v[0..n), sorted in scratch (n slots); 0 none. */
static double median_pos(const double *v, size_t n, double *scratch)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (v[i] > 0) {
			scratch[k++] = v[i];
		}
	}
	return k ? median(scratch, k) : 0;
}

static double link_of(const struct gpa_peaks *p, uint8_t kind, const char **name)
{
	switch (kind) {
	case 1: /* HtoD */
	case 2: /* DtoH */
	case 3: /* HtoA */
	case 4: /* AtoH */
		*name = p->pcie_gen ? "PCIe" : "";
		return p->pcie_gbps;
	case 8: /* DtoD: every byte is read and written */
		*name = p->mem_gbps > 0 ? "memory (read+write)" : "";
		return p->mem_gbps / 2;
	case GPT_COPY_KIND_PTOP:
		*name = p->nvlink_gbps > 0 ? "NVLink" : "";
		return p->nvlink_gbps / 2;
	default:
		*name = "";
		return 0;
	}
}

static int by_gbps(const void *pa, const void *pb)
{
	const struct gpa_copy_outlier *a = pa, *b = pb;

	if (a->gbps != b->gbps) {
		return a->gbps < b->gbps ? -1 : 1;
	}
	return a->row < b->row ? -1 : a->row > b->row;
}

static int copies(const struct gpa_model *m, struct gpa_mfu *u)
{
	for (size_t i = 0; i < gpa_copy_rows(m); i++) {
		size_t g = 0;
		for (; g < u->copies.n; g++) {
			struct gpa_copy_bw *b = &u->copies.v[g];
			if (b->copy_kind == gpa_copy_copy_kind(m, i) &&
			    b->src_kind == gpa_copy_src_kind(m, i) &&
			    b->dst_kind == gpa_copy_dst_kind(m, i)) {
				break;
			}
		}
		if (g == u->copies.n) {
			struct gpa_copy_bw b = {.copy_kind = gpa_copy_copy_kind(m, i),
						.src_kind = gpa_copy_src_kind(m, i),
						.dst_kind = gpa_copy_dst_kind(m, i)};
			if (u->copies.n >= 64 || gp_vec_push(&u->copies, b)) {
				return -GP_ERR_NOMEM;
			}
		}
		struct gpa_copy_bw *b = &u->copies.v[g];
		b->count++;
		b->bytes += gpa_copy_bytes(m, i);
		b->ns += gpa_copy_end(m, i) - gpa_copy_start(m, i);
	}
	for (size_t g = 0; g < u->copies.n; g++) {
		struct gpa_copy_bw *b = &u->copies.v[g];
		b->gbps = b->ns ? (double)b->bytes / (double)b->ns : 0;
		b->link_gbps = link_of(&u->peaks, b->copy_kind, &b->link);
	}
	/* Slow copies: under half their group's bandwidth, or from pageable memory. */
	for (size_t i = 0; i < gpa_copy_rows(m); i++) {
		uint64_t ns = gpa_copy_end(m, i) - gpa_copy_start(m, i);
		if (!ns || !gpa_copy_bytes(m, i)) {
			continue;
		}
		double gbps = (double)gpa_copy_bytes(m, i) / (double)ns;
		const struct gpa_copy_bw *b = NULL;
		for (size_t g = 0; g < u->copies.n && !b; g++) {
			if (u->copies.v[g].copy_kind == gpa_copy_copy_kind(m, i) &&
			    u->copies.v[g].src_kind == gpa_copy_src_kind(m, i) &&
			    u->copies.v[g].dst_kind == gpa_copy_dst_kind(m, i)) {
				b = &u->copies.v[g];
			}
		}
		bool pageable = gpa_copy_src_kind(m, i) == 1 || gpa_copy_dst_kind(m, i) == 1;
		if (!pageable && gbps >= b->gbps / 2) {
			continue;
		}
		bool small = gpa_copy_bytes(m, i) < 64 * 1024;
		if (!pageable && !small && ns % GPA_MFU_QUANTUM_NS == 0 &&
		    ns < GPA_MFU_QUANTUM_MIN_NS) {
			continue; /* a few whole microseconds: timed too coarsely to call it slow */
		}
		struct gpa_copy_outlier o = {.row = (uint32_t)i, .gbps = gbps};
		o.why = pageable ? "pageable host memory"
			: small	 ? "small transfer (latency-bound)"
				 : "slow for its kind";
		if (gp_vec_push(&u->outliers, o)) {
			return -GP_ERR_NOMEM;
		}
	}
	if (u->outliers.n) {
		qsort(u->outliers.v, u->outliers.n, sizeof(*u->outliers.v), by_gbps);
		if (u->outliers.n > MAX_OUTLIERS) {
			u->outliers.n = MAX_OUTLIERS;
		}
	}
	return 0;
}

/*
 * A utilization over 100 % is impossible: the FLOPs or bytes per step, the GPU
 * count or the peak is wrong. Refused, naming the likely cause.
 */
static int refuse_over_100(const struct gpa_mfu *u, const struct gpa_mfu_opts *o,
			   uint32_t working, char *errbuf, size_t errlen)
{
	double worst = -1;
	const char *what = "MFU";

	for (size_t i = 0; i < u->steps.n; i++) {
		const struct gpa_mfu_step *s = &u->steps.v[i];
		if (s->mfu > worst) {
			worst = s->mfu;
			what = "MFU";
		}
		if (s->hfu > worst) {
			worst = s->hfu;
			what = "HFU";
		}
		if (s->mbu > worst) {
			worst = s->mbu;
			what = "MBU";
		}
	}
	if (!(worst > 1)) {
		return 0;
	}
	int n = snprintf(errbuf, errlen, "%s of %.1f %% is over 100 %%: ", what, worst * 100);
	if (n < 0 || (size_t)n >= errlen) {
		return -GP_ERR_API;
	}
	if (o->gpus && working && o->gpus < working) {
		snprintf(errbuf + n, errlen - n,
			 "--gpus %u is fewer than the %u GPUs that did work in the traces", o->gpus,
			 working);
	} else if (!o->gpus) {
		snprintf(errbuf + n, errlen - n,
			 "the %s per step are likely for more GPUs than the %u that did work in the "
			 "traces (give --gpus N for the job's GPU count), or the peak of %s is too "
			 "low (give --device or %s)",
			 what[1] == 'B' ? "bytes" : "FLOPs", working ? working : 1, u->peaks.name,
			 what[1] == 'B' ? "--peak-bw" : "--peak-tflops");
	} else {
		snprintf(errbuf + n, errlen - n,
			 "the %s per step are likely for more than %u GPUs, or the peak of %s is too "
			 "low (give --device or %s)",
			 what[1] == 'B' ? "bytes" : "FLOPs", o->gpus, u->peaks.name,
			 what[1] == 'B' ? "--peak-bw" : "--peak-tflops");
	}
	return -GP_ERR_API;
}

/* The share of GPU time outside communication that a model covers (ops.h). */
static double cover(uint64_t modelled, uint64_t compute)
{
	return compute ? (double)modelled / (double)compute : 0;
}

/*
 * FLOPs and bytes per step from the recorded operators (sf, sb, tmp: arrays
 * of steps->v.n), where not given and the device has the peak. Returns the
 * calls counted or -GP_ERR_NOMEM.
 */
static int from_ops(const struct gpa_model *m, const struct gpa_steps *steps, double peak,
		    double bw, double *sf, double *sb, double *tmp, struct gpa_mfu *out)
{
	size_t ns = steps->v.n;
	struct gpa_ops_cover cv;
	int c = gpa_ops_step_totals(m, steps, sf, sb, &cv);

	if (c <= 0) {
		return c;
	}
	if (!out->has_flops && peak > 0) {
		out->flops_source = GPA_MFU_SRC_OPS;
		out->has_flops = true;
		out->flops_per_step = out->hw_flops_per_step = median_pos(sf, ns, tmp);
		out->flops_cover = cover(cv.flops_ns, cv.gpu_ns - cv.comm_ns);
	}
	double mb = median_pos(sb, ns, tmp);
	if (mb > 0 && !out->has_bytes && bw > 0) { /* 0: bytes unknown (NVTX sizes) */
		out->bytes_source = GPA_MFU_SRC_OPS;
		out->has_bytes = true;
		out->bytes_per_step = mb;
		out->bytes_cover = cover(cv.bytes_ns, cv.gpu_ns - cv.comm_ns);
	}
	return c;
}

int gpa_mfu_analyze(const struct gpa_model *m, const struct gpa_steps *steps,
		    const struct gpa_mfu_opts *o, struct gpa_mfu *out, char *errbuf, size_t errlen)
{
	int ret;

	memset(out, 0, sizeof(*out));
	out->mfu_median = out->hfu_median = out->mbu_median = -1;
	if ((ret = check(o->flops_per_step, "--flops-per-step", 1e24, errbuf, errlen)) ||
	    (ret = check(o->params, "--params", 1e14, errbuf, errlen)) ||
	    (ret = check(o->layers, "--layers", 1e5, errbuf, errlen)) ||
	    (ret = check(o->hidden, "--hidden", 1e7, errbuf, errlen)) ||
	    (ret = check(o->seq_len, "--seq-len", 1e8, errbuf, errlen)) ||
	    (ret = check(o->tokens_per_step, "--tokens-per-step", 1e13, errbuf, errlen)) ||
	    (ret = check(o->bytes_per_step, "--bytes-per-step", 1e18, errbuf, errlen)) ||
	    (ret = check(o->peaks.peak_tflops, "--peak-tflops", 1e6, errbuf, errlen)) ||
	    (ret = check(o->peaks.peak_gbps, "--peak-bw", 1e6, errbuf, errlen))) {
		return ret;
	}
	if ((unsigned)o->dtype >= GPA_DT__COUNT || o->gpus > 1000000) {
		snprintf(errbuf, errlen, "bad datatype or GPU count");
		return -GP_ERR_API;
	}
	bool model = o->params > 0 || o->tokens_per_step > 0 || o->layers > 0 || o->hidden > 0 ||
		     o->seq_len > 0;
	if (o->flops_per_step > 0 && model) {
		snprintf(errbuf, errlen,
			 "give either --flops-per-step or a model description, not both");
		return -GP_ERR_API;
	}
	if (model && (!(o->params > 0) || !(o->tokens_per_step > 0))) {
		snprintf(errbuf, errlen, "a model description needs --params and --tokens-per-step");
		return -GP_ERR_API;
	}
	if (model && o->attention && (!(o->layers > 0) || !(o->hidden > 0) || !(o->seq_len > 0))) {
		snprintf(errbuf, errlen, "the attention term needs --layers, --hidden and --seq-len");
		return -GP_ERR_API;
	}
	/* The GPUs that did work: their count is the default, the first one's peaks are used. */
	uint32_t first, working = gpa_model_work_devices(m, &first);
	ret = gpa_device_peaks_opts(m, first != GPA_NONE ? first : 0, &o->peaks, &out->peaks,
				    errbuf, errlen);
	if (ret) {
		return ret;
	}
	out->gpus = o->gpus ? o->gpus : working ? working : 1;
	if (o->flops_per_step > 0) {
		out->flops_per_step = o->flops_per_step;
		out->hw_flops_per_step = o->recompute ? o->flops_per_step * 4 / 3 : o->flops_per_step;
	} else if (model) {
		out->flops_per_step = gpa_mfu_flops_per_token(o, false) * o->tokens_per_step;
		out->hw_flops_per_step = gpa_mfu_flops_per_token(o, true) * o->tokens_per_step;
	}
	out->has_flops = out->flops_per_step > 0;
	out->has_bytes = o->bytes_per_step > 0;
	out->flops_source = o->flops_per_step > 0 ? GPA_MFU_SRC_GIVEN
			    : model		  ? GPA_MFU_SRC_MODEL
						  : GPA_MFU_SRC_NONE;
	out->bytes_source = out->has_bytes ? GPA_MFU_SRC_GIVEN : GPA_MFU_SRC_NONE;
	out->bytes_per_step = o->bytes_per_step;
	double peak = out->peaks.tflops[o->dtype] * 1e12 * out->gpus;
	double bw = out->peaks.mem_gbps * 1e9 * out->gpus;
	size_t ns = steps ? steps->v.n : 0;
	double *tmp = calloc(5 * (ns ? ns : 1), sizeof(double));
	if (!tmp) {
		snprintf(errbuf, errlen, "out of memory");
		return -GP_ERR_NOMEM;
	}
	/* Nothing given: the recorded operators' FLOPs and bytes, where the device has peaks. */
	double *sf = tmp + 3 * ns, *sb = tmp + 4 * ns;
	if (ns && (!out->has_flops || !out->has_bytes) &&
	    from_ops(m, steps, peak, bw, sf, sb, tmp, out) < 0) {
		free(tmp);
		snprintf(errbuf, errlen, "out of memory");
		return -GP_ERR_NOMEM;
	}
	if (out->has_flops && !(peak > 0)) {
		snprintf(errbuf, errlen,
			 "no %s peak for the device (%s): give --device or --peak-tflops",
			 gpa_dtype_name(o->dtype), out->peaks.name);
		return -GP_ERR_API;
	}
	if (out->has_bytes && !(bw > 0)) {
		snprintf(errbuf, errlen, "no memory bandwidth for the device: give --peak-bw");
		return -GP_ERR_API;
	}
	size_t nm = 0, nh = 0, nb = 0;
	for (size_t i = 0; i < ns && (out->has_flops || out->has_bytes); i++) {
		const struct gpa_step *st = &steps->v.v[i];
		struct gpa_mfu_step s = {.step = (uint32_t)i, .wall_ns = st->end - st->start,
					 .mfu = -1, .hfu = -1, .mbu = -1};
		double secs = (double)s.wall_ns / 1e9;
		bool of = out->flops_source == GPA_MFU_SRC_OPS, ob = out->bytes_source == GPA_MFU_SRC_OPS;
		s.flops = of ? sf[i] : out->flops_per_step;
		s.bytes = ob ? sb[i] : out->bytes_per_step;
		if (secs > 0 && out->has_flops && s.flops > 0) {
			double hw = of ? s.flops : out->hw_flops_per_step;
			s.mfu = s.flops / secs / peak;
			s.hfu = hw / secs / peak;
			s.tflops_per_gpu = s.flops / secs / out->gpus / 1e12;
			tmp[nm++] = s.mfu;
			tmp[ns + nh++] = s.hfu;
		}
		if (secs > 0 && out->has_bytes && s.bytes > 0) {
			s.mbu = s.bytes / secs / bw;
			tmp[2 * ns + nb++] = s.mbu;
		}
		if (gp_vec_push(&out->steps, s)) {
			free(tmp);
			gpa_mfu_release(out);
			snprintf(errbuf, errlen, "out of memory");
			return -GP_ERR_NOMEM;
		}
	}
	out->mfu_median = median(tmp, nm);
	out->hfu_median = median(tmp + ns, nh);
	out->mbu_median = median(tmp + 2 * ns, nb);
	free(tmp);
	/* the recorded operators' figures are measured, not typed: nothing to refuse */
	bool measured = out->flops_source == GPA_MFU_SRC_OPS ||
			(out->bytes_source == GPA_MFU_SRC_OPS && out->flops_source == GPA_MFU_SRC_NONE);
	ret = measured ? 0 : refuse_over_100(out, o, working, errbuf, errlen);
	if (ret) {
		gpa_mfu_release(out);
		return ret;
	}
	if (copies(m, out)) {
		gpa_mfu_release(out);
		snprintf(errbuf, errlen, "out of memory");
		return -GP_ERR_NOMEM;
	}
	ret = gpa_roofline_analyze(m, o->roofline, &out->peaks, o->dtype, &out->roof, errbuf,
				   errlen);
	if (ret) {
		gpa_mfu_release(out);
	}
	return ret;
}

void gpa_mfu_release(struct gpa_mfu *u)
{
	if (!u) {
		return;
	}
	gp_vec_free(&u->steps);
	gp_vec_free(&u->copies);
	gp_vec_free(&u->outliers);
	gpa_roofline_release(&u->roof);
}
