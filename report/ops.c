/* SPDX-License-Identifier: MIT */
/*
 * ops.c - renders gpuprof ops (analyze/ops.h, docs/ops.md): operators by
 * name and by unique inputs, with FLOPs, bytes, achieved rates and their
 * place on the device's roofline.
 */
#include "base/compat.h"
#include "analyze/ops.h"
#include "report/ops.h"
#include "report/report.h"

#include <inttypes.h>
#include <string.h>

static const struct gpr_col name_cols[] = {
	{"Operator", GPR_COL_NAME, "operator"},
	{"Model", 0, "model"},
	{"Calls", GPR_COL_NUM | GPR_COL_COUNT, "calls"},
	{"GPU Ops", GPR_COL_NUM | GPR_COL_COUNT, "gpu_ops"},
	{"GPU Time (ns)", GPR_COL_NUM | GPR_COL_NS, "gpu_time_ns"},
	{"GFLOPs", GPR_COL_NUM | GPR_COL_FLOPS | GPR_COL_E9, "gflop"},
	{"Data Moved (MB)", GPR_COL_NUM | GPR_COL_BYTES | GPR_COL_E6, "data_moved_mb"},
	{"FLOPs/Byte", GPR_COL_NUM, "flop_per_byte"},
	{"TFLOP/s", GPR_COL_NUM, "tflop_per_s"},
	{"TB/s", GPR_COL_NUM, "tb_per_s"},
	{"Peak TFLOP/s", GPR_COL_NUM, "peak_tflop_per_s"},
	{"Bound", 0, "bound"},
	{"% Roofline", GPR_COL_NUM, "roofline_pct"},
};

static const struct gpr_col args_cols[] = {
	{"Operator", GPR_COL_NAME, "operator"},
	{"Inputs", GPR_COL_ELIDE, "inputs"},
	{"Model", 0, "model"},
	{"Type", 0, "type"},
	{"Calls", GPR_COL_NUM | GPR_COL_COUNT, "calls"},
	{"GPU Time (ns)", GPR_COL_NUM | GPR_COL_NS, "gpu_time_ns"},
	{"Median Time (ns)", GPR_COL_NUM | GPR_COL_NS, "median_time_ns"},
	{"GFLOPs", GPR_COL_NUM | GPR_COL_FLOPS | GPR_COL_E9, "gflop"},
	{"Data Moved (MB)", GPR_COL_NUM | GPR_COL_BYTES | GPR_COL_E6, "data_moved_mb"},
	{"FLOPs/Byte", GPR_COL_NUM, "flop_per_byte"},
	{"TFLOP/s Mean", GPR_COL_NUM, "tflop_per_s_mean"},
	{"TFLOP/s Median", GPR_COL_NUM, "tflop_per_s_median"},
	{"TFLOP/s Min", GPR_COL_NUM, "tflop_per_s_min"},
	{"TFLOP/s Max", GPR_COL_NUM, "tflop_per_s_max"},
	{"TB/s Mean", GPR_COL_NUM, "tb_per_s_mean"},
	{"TB/s Median", GPR_COL_NUM, "tb_per_s_median"},
	{"TB/s Min", GPR_COL_NUM, "tb_per_s_min"},
	{"TB/s Max", GPR_COL_NUM, "tb_per_s_max"},
	{"Peak TFLOP/s", GPR_COL_NUM, "peak_tflop_per_s"},
	{"Bound", 0, "bound"},
	{"% Roofline", GPR_COL_NUM, "roofline_pct"},
};

/* A number cell, "" when unknown (shown empty, JSON null). */
static void num(struct gpr_table *t, bool known, double v, int prec)
{
	if (known) {
		gpr_table_cellf(t, "%.*f", prec, v);
	} else {
		gpr_table_cell(t, "");
	}
}

static const char *bound_name(int b)
{
	return b == 1 ? "compute" : b == 2 ? "memory" : "";
}

static void common_tail(struct gpr_table *t, const struct gpa_op_row *r)
{
	num(t, r->peak_tflops > 0 && r->modelled, r->peak_tflops, 1);
	gpr_table_cell(t, bound_name(r->bound));
	num(t, r->roof_pct >= 0, r->roof_pct, 1);
}

static void name_row(struct gpr_table *t, const struct gpa_op_row *r)
{
	bool mod = r->modelled > 0;

	gpr_table_cell(t, r->name);
	gpr_table_cell(t, gpa_op_kind_name(r->perf.kind));
	gpr_table_cellf(t, "%" PRIu64, r->count);
	gpr_table_cellf(t, "%" PRIu64, r->gpu_ops);
	gpr_table_cellf(t, "%" PRIu64, r->gpu_ns);
	num(t, mod, r->flops / 1e9, 3);
	num(t, mod && !r->perf.untyped, r->bytes / 1e6, 3);
	num(t, mod && r->bytes > 0, r->bytes > 0 ? r->flops / r->bytes : 0, 2);
	num(t, mod && r->tflops.mean > 0, r->tflops.mean, 3);
	num(t, mod && r->tbps.mean > 0, r->tbps.mean, 3);
	common_tail(t, r);
}

static void args_row(struct gpr_table *t, const struct gpa_op_row *r)
{
	bool mod = r->perf.kind != GPA_OPK_NONE, rate = mod && r->tflops.max > 0;
	bool brate = mod && r->tbps.max > 0;

	gpr_table_cell(t, r->name);
	gpr_table_cell(t, r->args && *r->args ? r->args : "(none recorded)");
	gpr_table_cell(t, mod ? gpa_op_kind_name(r->perf.kind) : r->perf.why);
	gpr_table_cell(t, r->perf.dtype_name);
	gpr_table_cellf(t, "%" PRIu64, r->count);
	gpr_table_cellf(t, "%" PRIu64, r->gpu_ns);
	gpr_table_cellf(t, "%" PRIu64, r->gpu_ns_median);
	num(t, mod, r->perf.flops / 1e9, 3);
	num(t, mod && !r->perf.untyped, r->perf.bytes / 1e6, 3);
	num(t, mod && r->perf.bytes > 0, r->perf.bytes > 0 ? r->perf.flops / r->perf.bytes : 0, 2);
	num(t, rate, r->tflops.mean, 3);
	num(t, rate, r->tflops.median, 3);
	num(t, rate, r->tflops.min, 3);
	num(t, rate, r->tflops.max, 3);
	num(t, brate, r->tbps.mean, 3);
	num(t, brate, r->tbps.median, 3);
	num(t, brate, r->tbps.min, 3);
	num(t, brate, r->tbps.max, 3);
	common_tail(t, r);
}

static const struct gpr_col brief_cols[] = {
	{"Operator", GPR_COL_NAME, "operator"},
	{"Model", 0, "model"},
	{"Calls", GPR_COL_NUM | GPR_COL_COUNT, "calls"},
	{"GPU Time (ns)", GPR_COL_NUM | GPR_COL_NS, "gpu_time_ns"},
	{"GFLOPs", GPR_COL_NUM | GPR_COL_FLOPS | GPR_COL_E9, "gflop"},
	{"TFLOP/s", GPR_COL_NUM, "tflop_per_s"},
	{"TB/s", GPR_COL_NUM, "tb_per_s"},
	{"Bound", 0, "bound"},
	{"% Roofline", GPR_COL_NUM, "roofline_pct"},
};

static void brief_row(struct gpr_table *t, const struct gpa_op_row *r)
{
	bool mod = r->modelled > 0;

	gpr_table_cell(t, r->name);
	gpr_table_cell(t, gpa_op_kind_name(r->perf.kind));
	gpr_table_cellf(t, "%" PRIu64, r->count);
	gpr_table_cellf(t, "%" PRIu64, r->gpu_ns);
	num(t, mod, r->flops / 1e9, 3);
	num(t, mod && r->tflops.mean > 0, r->tflops.mean, 3);
	num(t, mod && r->tbps.mean > 0, r->tbps.mean, 3);
	gpr_table_cell(t, bound_name(r->bound));
	num(t, r->roof_pct >= 0, r->roof_pct, 1);
}

int gpr_ops_table(struct gpr_table *t, unsigned which, const struct gpa_ops *o)
{
	if (which == GPR_OPS_BRIEF) {
		gpr_table_init(t, brief_cols, GP_ARRAY_SIZE(brief_cols));
		for (size_t i = 0; i < o->by_name.n; i++) {
			brief_row(t, &o->by_name.v[i]);
		}
	} else if (which == GPR_OPS_NAMES) {
		gpr_table_init(t, name_cols, GP_ARRAY_SIZE(name_cols));
		for (size_t i = 0; i < o->by_name.n; i++) {
			name_row(t, &o->by_name.v[i]);
		}
	} else {
		gpr_table_init(t, args_cols, GP_ARRAY_SIZE(args_cols));
		for (size_t i = 0; i < o->by_args.n; i++) {
			args_row(t, &o->by_args.v[i]);
		}
	}
	return t->failed ? -GP_ERR_NOMEM : 0;
}

int gpr_ops_implausible(struct gp_strbuf *out, const struct gpa_ops *o)
{
	return gpa_ops_implausible_sentence(out, o);
}

/* The summary lines of text and Markdown. */
static void summary(struct gp_strbuf *out, const struct gpr_display *d, const struct gpa_ops *o)
{
	struct gp_strbuf a = GP_STRBUF_INIT, b = GP_STRBUF_INIT, c = GP_STRBUF_INIT;

	gpr_fmt_ns(&a, d, o->gpu_ns_in_ops);
	gpr_fmt_ns(&b, d, o->gpu_ns);
	gpr_fmt_ns(&c, d, o->gpu_ns_modelled);
	gp_strbuf_adds(out, "GPU ops in CPU operators: ");
	gpr_fmt_count(out, o->gpu_ops_in_ops);
	gp_strbuf_adds(out, " of ");
	gpr_fmt_count(out, o->gpu_ops);
	gp_strbuf_addf(out, " (%s of %s)\n", a.buf ? a.buf : "0", b.buf ? b.buf : "0");
	gp_strbuf_adds(out, "CPU operators with recorded shapes: ");
	gpr_fmt_count(out, o->cpu_ops_shaped);
	gp_strbuf_adds(out, " of ");
	gpr_fmt_count(out, o->cpu_ops);
	gp_strbuf_addf(out, "\nModelled: %s of GPU time, ", c.buf ? c.buf : "0");
	gpr_fmt_flops(out, o->flops);
	gp_strbuf_adds(out, ", ");
	gpr_fmt_bytes(out, (uint64_t)(o->bytes > 0 ? o->bytes + 0.5 : 0));
	gp_strbuf_adds(out, " moved\n");
	gp_strbuf_addf(out, "Device: %s (%.0f GB/s)\n", o->peaks.name ? o->peaks.name : "unknown",
		       o->peaks.mem_gbps);
	if (o->why_none) {
		size_t from = out->len;
		gp_strbuf_addf(out, "Note: %s", o->why_none);
		gpr_text_wrap(out, d, from, 2);
		gp_strbuf_adds(out, "\n");
	}
	if (o->implausible) {
		size_t from = out->len;
		gp_strbuf_adds(out, "Warning: ");
		gpr_ops_implausible(out, o);
		gpr_text_wrap(out, d, from, 2);
		gp_strbuf_adds(out, "\n");
	}
	gp_strbuf_release(&a);
	gp_strbuf_release(&b);
	gp_strbuf_release(&c);
}

/* "implausible": null, or the count, GPU time and the furthest row (schema 1.1). */
static void implausible_json(struct gp_strbuf *out, const struct gpa_ops *o)
{
	gp_strbuf_adds(out, ",\"implausible\":");
	if (!o->implausible) {
		gp_strbuf_adds(out, "null");
		return;
	}
	gp_strbuf_addf(out, "{\"rows\":%" PRIu64 ",\"gpu_ns\":%" PRIu64 ",\"operator\":",
		       o->implausible, o->implausible_ns);
	gp_strbuf_add_json_str(out, o->worst.name, strlen(o->worst.name));
	gp_strbuf_adds(out, ",\"inputs\":");
	gp_strbuf_add_json_str(out, o->worst.args ? o->worst.args : "", o->worst.args ? strlen(o->worst.args) : 0);
	gp_strbuf_addf(out, ",\"model\":\"%s\",\"over\":\"%s\",\"achieved\":%.6g,"
			    "\"peak\":%.6g,\"message\":",
		       gpa_op_kind_name(o->worst.kind), o->worst.compute ? "tflops" : "tbps",
		       o->worst.achieved, o->worst.peak);
	struct gp_strbuf m = GP_STRBUF_INIT;
	gpr_ops_implausible(&m, o);
	gp_strbuf_add_json_str(out, m.buf ? m.buf : "", m.len);
	gp_strbuf_release(&m);
	gp_strbuf_adds(out, "}");
}

int gpr_ops_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		   unsigned mask, const struct gpa_ops *o)
{
	static const struct {
		unsigned bit;
		const char *title, *key;
	} tables[] = {
		{GPR_OPS_NAMES, "Operators by name", "by_name"},
		{GPR_OPS_ARGS, "Operators by unique inputs", "by_inputs"},
	};
	bool first = true;
	int ret = 0;

	if (fmt == GPR_FORMAT_JSON) {
		gp_strbuf_addf(out, "{\"schema\":\"gpuprof-ops/2\",\"totals\":{\"gpu_ops\":%" PRIu64
				    ",\"gpu_ops_in_ops\":%" PRIu64 ",\"gpu_ns\":%" PRIu64
				    ",\"gpu_in_ops_ns\":%" PRIu64 ",\"gpu_modelled_ns\":%" PRIu64
				    ",\"cpu_ops\":%" PRIu64 ",\"cpu_ops_shaped\":%" PRIu64
				    ",\"flops\":%.0f,\"bytes\":%.0f,\"names\":%zu,\"inputs\":%zu}",
			       o->gpu_ops, o->gpu_ops_in_ops, o->gpu_ns, o->gpu_ns_in_ops,
			       o->gpu_ns_modelled, o->cpu_ops, o->cpu_ops_shaped, o->flops, o->bytes,
			       o->names_total, o->args_total);
		gp_strbuf_addf(out, ",\"device\":{\"name\":\"%s\",\"mem_gb_per_s\":%.1f}",
			       o->peaks.name ? o->peaks.name : "unknown", o->peaks.mem_gbps);
		gp_strbuf_addf(out, ",\"note\":");
		if (o->why_none) {
			gp_strbuf_addf(out, "\"%s\"", o->why_none);
		} else {
			gp_strbuf_addf(out, "null");
		}
		implausible_json(out, o);
	} else if (fmt == GPR_FORMAT_TEXT || fmt == GPR_FORMAT_MARKDOWN) {
		summary(out, d, o);
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(tables) && !ret; i++) {
		struct gpr_table t;
		if (!(mask & tables[i].bit)) {
			continue;
		}
		ret = gpr_ops_table(&t, tables[i].bit, o);
		if (ret) {
			gpr_table_release(&t);
			break;
		}
		ret = gpr_table_section(&t, fmt, d, tables[i].title, tables[i].key,
					first && fmt == GPR_FORMAT_CSV, out);
		first = false;
	}
	if (fmt == GPR_FORMAT_JSON) {
		gp_strbuf_addf(out, "}\n");
	}
	return ret;
}
