/* SPDX-License-Identifier: MIT */
/*
 * mfu.c - tables of the MFU/MBU result and of the device peak table
 * (docs/mfu.md).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/mfu.h"
#include "analyze/overview.h"
#include "analyze/stats.h"
#include "analyze/steps.h"
#include "report/report.h"
#include "report/mfu.h"

#include <inttypes.h>

static void cell_g(struct gpr_table *t, double v, const char *fmt)
{
	if (v < 0) {
		gpr_table_cell(t, "");
	} else {
		gpr_table_cellf(t, fmt, v);
	}
}

static const char *source_name(enum gpa_peak_source s)
{
	switch (s) {
	case GPA_PEAK_TABLE:
		return "table";
	case GPA_PEAK_USER:
		return "device file";
	case GPA_PEAK_ESTIMATE:
		return "estimate from SMs x clock";
	case GPA_PEAK_NONE:
		return "unknown";
	}
	GP_BUG("peak source %d", (int)s);
}

/* The device, where its peaks come from, and for an unknown part how to give them. */
static void device_rows(struct gpr_table *t, const struct gpa_peaks *p)
{
	gpr_table_cell(t, "device");
	if (p->source == GPA_PEAK_NONE && !p->overridden) {
		gpr_table_cellf(t, "%s (%s: give --device or --peak-tflops, --peak-bw)", p->name,
				p->recorded && *p->recorded ? "not in the table" : "no device record");
	} else {
		gpr_table_cellf(t, "%s (%s%s%s%s)", p->name, source_name(p->source),
				p->by_numbers ? ", matched by CC and SMs" : "",
				p->disputed ? ", figures disputed: verify" : "",
				p->overridden ? ", overridden" : "");
	}
	if (p->by_numbers) {
		gpr_table_cell(t, "name in the trace");
		gpr_table_cell(t, *p->recorded ? p->recorded : "(none)");
	}
	if (p->also) {
		gpr_table_cell(t, "same CC, SMs and memory as");
		gpr_table_cell(t, p->also);
	}
	if (p->doc) {
		gpr_table_cell(t, "peaks from");
		gpr_table_cell(t, p->doc);
	}
}

/* The share of GPU time the operator models cover, and a warning below half. */
static void cover_rows(struct gpr_table *t, const char *what, double cover, const char *metric)
{
	gpr_table_cellf(t, "GPU time with a %s model (%%)", what);
	gpr_table_cellf(t, "%.2f", cover * 100);
	if (cover < 0.5) {
		gpr_table_cell(t, "warning");
		gpr_table_cellf(t, "%s is a lower bound: %s models cover %.1f %% of compute time",
				metric, what, cover * 100);
	}
}

static const struct gpr_col util_cols[] = {
	{"Metric", GPR_COL_LEFT, "metric"}, {"Value", GPR_COL_LEFT | GPR_COL_ELIDE, "value"}};
static const struct gpr_col step_cols[] = {
	{"Step", GPR_COL_LEFT, "step"},
	{"Wall (ns)", GPR_COL_NUM, "wall_ns"},
	{"MFU (%)", GPR_COL_NUM, "mfu_pct"},
	{"HFU (%)", GPR_COL_NUM, "hfu_pct"},   {"MBU (%)", GPR_COL_NUM, "mbu_pct"},
	{"TFLOP/s per GPU", GPR_COL_NUM, "tflop_per_s_per_gpu"}};
static const struct gpr_col copy_cols[] = {
	{"Kind", GPR_COL_LEFT, "kind"},
	{"From", GPR_COL_LEFT, "from"},
	{"To", GPR_COL_LEFT, "to"},
	{"Count", GPR_COL_NUM | GPR_COL_COUNT, "count"},
	{"Bytes", GPR_COL_NUM | GPR_COL_BYTES, "bytes"},
	{"Time (ns)", GPR_COL_NUM, "time_ns"},
	{"Achieved (GB/s)", GPR_COL_NUM, "achieved_gb_per_s"}, {"Link", GPR_COL_LEFT, "link"},
	{"Link peak (GB/s)", GPR_COL_NUM, "link_peak_gb_per_s"},
	{"Of link (%)", GPR_COL_NUM, "of_link_pct"}
};
static const struct gpr_col slow_cols[] = {
	{"Start (ns)", GPR_COL_NUM, "start_ns"},
	{"Kind", GPR_COL_LEFT, "kind"},
	{"Bytes", GPR_COL_NUM | GPR_COL_BYTES, "bytes"},
	{"Time (ns)", GPR_COL_NUM, "time_ns"},
	{"GB/s", GPR_COL_NUM, "gb_per_s"},
	{"Why", GPR_COL_LEFT, "why"}
};
static const struct gpr_col roof_cols[] = {
	{"Kernel", GPR_COL_LEFT | GPR_COL_NAME, "kernel"},
	{"Grid", GPR_COL_LEFT | GPR_COL_DETAIL, "grid"},
	{"Launches", GPR_COL_NUM | GPR_COL_COUNT, "launches"},
	{"GPU Time (ns)", GPR_COL_NUM, "gpu_time_ns"},
	{"FLOPs/launch", GPR_COL_NUM | GPR_COL_FLOPS | GPR_COL_DETAIL, "flops_per_launch"},
	{"Bytes/launch", GPR_COL_NUM | GPR_COL_BYTES | GPR_COL_DETAIL, "bytes_per_launch"},
	{"FLOP/byte", GPR_COL_NUM, "flop_per_byte"},
	{"Ridge (FLOP/byte)", GPR_COL_NUM | GPR_COL_DETAIL, "ridge_flop_per_byte"},
	{"Bound", GPR_COL_LEFT, "bound"},
	{"Attainable (TFLOP/s)", GPR_COL_NUM | GPR_COL_DETAIL, "attainable_tflop_per_s"},
	{"Achieved (TFLOP/s)", GPR_COL_NUM, "achieved_tflop_per_s"},
	{"Speed of light (%)", GPR_COL_NUM, "speed_of_light_pct"}
};

static const char *bound_name(enum gpa_roof_bound b)
{
	switch (b) {
	case GPA_ROOF_MEMORY:
		return "memory";
	case GPA_ROOF_COMPUTE:
		return "compute";
	case GPA_ROOF_LATENCY:
		return "latency (< 5 \xc2\xb5s a launch: not placed)";
	case GPA_ROOF_NO_VALUE:
		return "formula gave no positive value";
	case GPA_ROOF_NO_PEAK:
		return "no peak for the datatype";
	case GPA_ROOF_IMPLAUSIBLE:
		return "implausible data: faster than the peak (the formula overstates the work)";
	}
	GP_BUG("roofline bound %d", (int)b);
}

static const struct gpr_col dev_cols[] = {
	{"Key", GPR_COL_LEFT, "key"},
	{"GPU", GPR_COL_LEFT, "gpu"},
	{"CC", GPR_COL_LEFT, "cc"},
	{"SMs", GPR_COL_NUM, "sms"},
	{"FP64", GPR_COL_NUM, "fp64_tflop_per_s"},
	{"FP64 TC", GPR_COL_NUM, "fp64_tc_tflop_per_s"},
	{"TF32", GPR_COL_NUM, "tf32_tflop_per_s"},
	{"BF16/FP16", GPR_COL_NUM, "bf16_fp16_tflop_per_s"},
	{"FP8", GPR_COL_NUM, "fp8_tflop_per_s"},
	{"INT8 (TOPS)", GPR_COL_NUM, "int8_tops"},
	{"FP4", GPR_COL_NUM, "fp4_tflop_per_s"},
	{"Memory (GB/s)", GPR_COL_NUM, "memory_gb_per_s"},
	{"NVLink (GB/s)", GPR_COL_NUM, "nvlink_gb_per_s"},
	{"PCIe gen", GPR_COL_NUM, "pcie_gen"},
	{"Verify", GPR_COL_LEFT, "verify"},
	{"Source", GPR_COL_LEFT | GPR_COL_ELIDE | GPR_COL_DETAIL, "source"},
	{"Note", GPR_COL_LEFT | GPR_COL_ELIDE | GPR_COL_DETAIL, "note"}};

int gpr_mfu_table(struct gpr_table *t, unsigned which, const struct gpa_model *m,
		  const struct gpa_steps *steps, const struct gpa_mfu *u, enum gpa_dtype dtype)
{
	switch (which) {
	case GPR_MFU_SUMMARY:
		gpr_table_init(t, util_cols, GP_ARRAY_SIZE(util_cols));
		device_rows(t, &u->peaks);
		gpr_table_cell(t, "GPUs");
		gpr_table_cellf(t, "%u", u->gpus);
		gpr_table_cellf(t, "peak %s (TFLOP/s per GPU)", gpa_dtype_name(dtype));
		cell_g(t, u->peaks.tflops[dtype] > 0 ? u->peaks.tflops[dtype] : -1, "%.6g");
		gpr_table_cell(t, "peak memory (GB/s per GPU)");
		cell_g(t, u->peaks.mem_gbps > 0 ? u->peaks.mem_gbps : -1, "%.6g");
		if (u->has_flops && u->flops_source == GPA_MFU_SRC_OPS) {
			gpr_table_cell(t, "FLOPs per step from");
			gpr_table_cell(t, "recorded operator shapes (gpuprof ops)");
			cover_rows(t, "FLOP", u->flops_cover, "MFU");
			gpr_table_cell(t, "model FLOPs, median step");
			gpr_table_cell_as(t, GPR_COL_FLOPS, "%.6g", u->flops_per_step);
		} else if (u->has_flops) {
			gpr_table_cell(t, "FLOPs per step from");
			gpr_table_cell(t, u->flops_source == GPA_MFU_SRC_GIVEN
						  ? "--flops-per-step"
						  : "the model description (--params, --tokens-per-step)");
			gpr_table_cell(t, "model FLOPs per step");
			gpr_table_cell_as(t, GPR_COL_FLOPS, "%.6g", u->flops_per_step);
			gpr_table_cell(t, "hardware FLOPs per step");
			gpr_table_cell_as(t, GPR_COL_FLOPS, "%.6g", u->hw_flops_per_step);
		}
		if (u->has_flops) {
			gpr_table_cell(t, "MFU, median step (%)");
			cell_g(t, u->mfu_median < 0 ? -1 : u->mfu_median * 100, "%.2f");
			gpr_table_cell(t, "HFU, median step (%)");
			cell_g(t, u->hfu_median < 0 ? -1 : u->hfu_median * 100, "%.2f");
		}
		if (u->has_bytes && u->bytes_source == GPA_MFU_SRC_OPS) {
			gpr_table_cell(t, "bytes per step from");
			gpr_table_cell(t, "recorded operator shapes (gpuprof ops)");
			cover_rows(t, "byte", u->bytes_cover, "MBU");
			gpr_table_cell(t, "bytes, median step");
			gpr_table_cell_as(t, GPR_COL_BYTES, "%.6g", u->bytes_per_step);
		}
		if (u->has_bytes) {
			gpr_table_cell(t, "MBU, median step (%)");
			cell_g(t, u->mbu_median < 0 ? -1 : u->mbu_median * 100, "%.2f");
		}
		if (u->roof.rows.n || u->roof.unmatched_launches) {
			uint64_t all = u->roof.matched_ns + u->roof.unmatched_ns;
			gpr_table_cell(t, "kernel time placed on the roofline (%)");
			gpr_table_cellf(t, "%.2f", all ? 100.0 * u->roof.matched_ns / all : 0.0);
		} else {
			gpr_table_cell(t, "roofline");
			gpr_table_cell(t, "not placed: a trace has no FLOP or byte counts; give "
					  "--roofline rules");
		}
		break;
	case GPR_MFU_STEPS:
		gpr_table_init(t, step_cols, GP_ARRAY_SIZE(step_cols));
		for (size_t i = 0; i < u->steps.n; i++) {
			const struct gpa_mfu_step *s = &u->steps.v[i];
			const struct gpa_step *st = &steps->v.v[s->step];
			if (st->name) {
				gpr_table_cell(t, gpa_model_str(m, st->name));
			} else {
				gpr_table_cellf(t, "#%" PRId64, st->number);
			}
			gpr_table_cellf(t, "%" PRIu64, s->wall_ns);
			cell_g(t, s->mfu < 0 ? -1 : s->mfu * 100, "%.2f");
			cell_g(t, s->hfu < 0 ? -1 : s->hfu * 100, "%.2f");
			cell_g(t, s->mbu < 0 ? -1 : s->mbu * 100, "%.2f");
			cell_g(t, s->mfu < 0 ? -1 : s->tflops_per_gpu, "%.3f");
		}
		break;
	case GPR_MFU_COPIES:
		gpr_table_init(t, copy_cols, GP_ARRAY_SIZE(copy_cols));
		for (size_t i = 0; i < u->copies.n; i++) {
			const struct gpa_copy_bw *b = &u->copies.v[i];
			gpr_table_cell(t, gpa_copy_kind_name(b->copy_kind));
			gpr_table_cell(t, gpa_stats_mem_kind_name(b->src_kind));
			gpr_table_cell(t, gpa_stats_mem_kind_name(b->dst_kind));
			gpr_table_cellf(t, "%" PRIu64, b->count);
			gpr_table_cellf(t, "%" PRIu64, b->bytes);
			gpr_table_cellf(t, "%" PRIu64, b->ns);
			gpr_table_cellf(t, "%.3f", b->gbps);
			gpr_table_cell(t, b->link);
			cell_g(t, b->link_gbps > 0 ? b->link_gbps : -1, "%.2f");
			cell_g(t, b->link_gbps > 0 ? b->gbps * 100 / b->link_gbps : -1, "%.2f");
		}
		break;
	case GPR_MFU_SLOW:
		gpr_table_init(t, slow_cols, GP_ARRAY_SIZE(slow_cols));
		for (size_t i = 0; i < u->outliers.n; i++) {
			const struct gpa_copy_outlier *o = &u->outliers.v[i];
			gpr_table_cellf(t, "%" PRIu64, gpa_copy_start(m, o->row) - m->t0);
			gpr_table_cell(t, gpa_copy_kind_name(gpa_copy_copy_kind(m, o->row)));
			gpr_table_cellf(t, "%" PRIu64, gpa_copy_bytes(m, o->row));
			gpr_table_cellf(t, "%" PRIu64,
					gpa_copy_end(m, o->row) - gpa_copy_start(m, o->row));
			gpr_table_cellf(t, "%.3f", o->gbps);
			gpr_table_cell(t, o->why);
		}
		break;
	case GPR_MFU_ROOFLINE:
		gpr_table_init(t, roof_cols, GP_ARRAY_SIZE(roof_cols));
		for (size_t i = 0; i < u->roof.rows.n; i++) {
			const struct gpa_roof_row *r = &u->roof.rows.v[i];
			const struct gpa_func *f = &m->funcs.v[r->func];
			const struct gpa_shape *sh = &m->shapes.v[r->shape];
			bool placed = r->bound == GPA_ROOF_MEMORY || r->bound == GPA_ROOF_COMPUTE;
			double peak = u->peaks.tflops[r->dtype], bw = u->peaks.mem_gbps;
			gpr_table_cell(t, gpa_model_str(m, f->demangled ? f->demangled : f->name));
			gpr_table_cellf(t, "%dx%dx%d", sh->grid_x, sh->grid_y, sh->grid_z);
			gpr_table_cellf(t, "%" PRIu64, r->launches);
			gpr_table_cellf(t, "%" PRIu64, r->gpu_ns);
			cell_g(t, r->bytes > 0 ? r->flops : -1, "%.6g");
			cell_g(t, r->bytes > 0 ? r->bytes : -1, "%.6g");
			cell_g(t, r->bytes > 0 ? r->ai : -1, "%.4g");
			cell_g(t, peak > 0 && bw > 0 ? peak * 1e3 / bw : -1, "%.4g");
			gpr_table_cell(t, bound_name(r->bound));
			cell_g(t, placed ? r->attainable_tflops : -1, "%.4g");
			cell_g(t, placed ? r->achieved_tflops : -1, "%.4g");
			cell_g(t, placed ? r->efficiency * 100 : -1, "%.2f");
		}
		break;
	default:
		gpr_table_init(t, util_cols, 0);
		return -GP_ERR_API;
	}
	return t->failed ? -GP_ERR_NOMEM : 0;
}

int gpr_mfu_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		   const struct gpa_model *m, const struct gpa_steps *steps,
		   const struct gpa_mfu *u, enum gpa_dtype dtype)
{
	static const struct {
		unsigned which;
		const char *title, *key;
	} secs[] = {
		{GPR_MFU_SUMMARY, "Utilization", "utilization"},
		{GPR_MFU_STEPS, "Per step", "steps"},
		{GPR_MFU_COPIES, "Copy bandwidth by kind and memory", "copies"},
		{GPR_MFU_SLOW, "Slowest copies", "slow_copies"},
		{GPR_MFU_ROOFLINE, "Roofline (kernels with --roofline rules)", "roofline"},
	};
	int ret = 0;

	if (fmt == GPR_FORMAT_JSON) {
		gp_strbuf_adds(out, "{\"schema\":\"gpuprof-mfu/2\"");
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(secs) && !ret; i++) {
		struct gpr_table t;
		ret = gpr_mfu_table(&t, secs[i].which, m, steps, u, dtype);
		if (ret || t.failed) {
			ret = ret ? ret : -GP_ERR_NOMEM;
			gpr_table_release(&t);
			break;
		}
		if (fmt != GPR_FORMAT_JSON && !gpr_table_rows(&t)) {
			gpr_table_release(&t);
			continue;
		}
		ret = gpr_table_section(&t, fmt, d, secs[i].title, secs[i].key,
					fmt != GPR_FORMAT_JSON && i == 0, out);
	}
	if (!ret && fmt == GPR_FORMAT_JSON) {
		gp_strbuf_adds(out, "}\n");
	}
	return ret ? ret : (out->failed ? -GP_ERR_NOMEM : 0);
}

int gpr_devices_table(struct gpr_table *t, const struct gpa_devrow *rows, size_t n)
{
	gpr_table_init(t, dev_cols, GP_ARRAY_SIZE(dev_cols));
	for (size_t i = 0; i < n; i++) {
		const struct gpa_devrow *r = &rows[i];
		gpr_table_cell(t, r->key);
		gpr_table_cell(t, r->name);
		gpr_table_cellf(t, "%u.%u", r->cc_major, r->cc_minor);
		gpr_table_cellf(t, "%u", r->sms);
		for (int d = 0; d < GPA_DT__COUNT; d++) {
			cell_g(t, r->tflops[d] > 0 ? r->tflops[d] : -1, "%.6g");
		}
		cell_g(t, r->mem_gbps > 0 ? r->mem_gbps : -1, "%.6g");
		cell_g(t, r->nvlink_gbps > 0 ? r->nvlink_gbps : -1, "%.6g");
		cell_g(t, r->pcie_gen ? r->pcie_gen : -1, "%.0f");
		gpr_table_cell(t, r->disputed ? "yes" : "");
		gpr_table_cell(t, r->source ? r->source : "device file");
		gpr_table_cell(t, r->note ? r->note : "");
	}
	return t->failed ? -GP_ERR_NOMEM : 0;
}
