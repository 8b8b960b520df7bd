/* SPDX-License-Identifier: MIT */
/*
 * mfu.h - MFU/MBU, copy bandwidth, device peaks (report/mfu.c, docs/mfu.md).
 */
#ifndef GPR_MFU_H
#define GPR_MFU_H

#include "report/report.h"
#include "analyze/mfu.h" /* enum gpa_dtype */

struct gpa_steps;
struct gpa_devrow;
struct gpa_mfu;
struct gpa_model;

enum gpr_mfu_tables {
	GPR_MFU_SUMMARY = 1, /* device, peaks, FLOPs per step, median MFU/HFU/MBU */
	GPR_MFU_STEPS = 2,   /* per step */
	GPR_MFU_COPIES = 3,  /* copy bandwidth by kind against the link */
	GPR_MFU_SLOW = 4,    /* the slowest copies and why */
	GPR_MFU_ROOFLINE = 5, /* kernels placed on the roofline (with rules) */
};

/* Fills t (initialized here; caller releases) with one table of u. */
int gpr_mfu_table(struct gpr_table *t, unsigned which, const struct gpa_model *m,
		  const struct gpa_steps *steps, const struct gpa_mfu *u, enum gpa_dtype dtype);
/* The `gpuprof mfu` document: every non-empty table (JSON: all). */
int gpr_mfu_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		   const struct gpa_model *m, const struct gpa_steps *steps,
		   const struct gpa_mfu *u, enum gpa_dtype dtype);
/* The peak table (`gpuprof devices`). */
int gpr_devices_table(struct gpr_table *t, const struct gpa_devrow *rows, size_t n);

#endif /* GPR_MFU_H */
