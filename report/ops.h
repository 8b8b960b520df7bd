/* SPDX-License-Identifier: MIT */
/*
 * ops.h - the tables and roofline of 'gpuprof ops' (report/ops.c,
 * report/ops-svg.c; docs/ops.md).
 */
#ifndef GPR_OPS_H
#define GPR_OPS_H

#include "report/report.h"

struct gpa_ops;
enum gpr_ops_tables {
	GPR_OPS_NAMES = 1 << 0, /* operators by name */
	GPR_OPS_ARGS = 1 << 1,  /* operators by name and unique inputs */
	GPR_OPS_ALL = (1 << 2) - 1,
	GPR_OPS_BRIEF = 1 << 2, /* the report's section: by name, fewer columns */
};
/* Fills t (caller releases) with one GPR_OPS_* table. 0 or -GP_ERR_NOMEM. */
int gpr_ops_table(struct gpr_table *t, unsigned which, const struct gpa_ops *o);
/* The tables in mask: text and Markdown after a summary, CSV, or one JSON object (gpuprof-ops/2). */
int gpr_ops_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		   unsigned mask, const struct gpa_ops *o);
/*
 * The "implausible data" sentence when operators ran faster than the device's
 * peak (o->implausible), appended to out without a newline; nothing otherwise.
 * 0 or -GP_ERR_NOMEM.
 */
int gpr_ops_implausible(struct gp_strbuf *out, const struct gpa_ops *o);
/*
 * The operators of o->by_args on the device's roofline as one SVG document
 * (report/ops-svg.c): log-log FLOP/byte against achieved TFLOP/s, the
 * memory roof, a compute roof and ridge per data type, at most 200 points.
 * Appends nothing when no row has a FLOP model and GPU time; times in the
 * points' tips as d says. 0 or -GP_ERR_NOMEM.
 */
int gpr_ops_roofline_svg(struct gp_strbuf *out, const struct gpr_display *d,
			 const struct gpa_ops *o);

#endif
