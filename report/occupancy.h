/* SPDX-License-Identifier: MIT */
/*
 * occupancy.h - theoretical occupancy tables (report/occupancy.c, docs/occupancy.md).
 */
#ifndef GPR_OCCUPANCY_H
#define GPR_OCCUPANCY_H

#include "report/report.h"

struct gpa_steps;
struct gpa_model;
struct gpa_occupancy;

enum gpr_occ_tables {
	GPR_OCC_KERNELS = 1, /* per kernel group: configuration, occupancy, limiter, waves, what-if */
	GPR_OCC_STEPS = 2,   /* per step: time-weighted occupancy */
};

/* Fills t (initialized here; caller releases) with one table of occ; at most top groups. */
int gpr_occupancy_table(struct gpr_table *t, unsigned which, const struct gpa_model *m,
			const struct gpa_steps *steps, const struct gpa_occupancy *occ, size_t top);
/* One sentence: launches, groups, time-weighted occupancy. */
void gpr_occupancy_headline(struct gp_strbuf *out, const struct gpa_occupancy *occ);
/* The `gpuprof occupancy` document: headline, kernel table, step table (when steps). */
int gpr_occupancy_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
			 const struct gpa_model *m, const struct gpa_steps *steps,
			 const struct gpa_occupancy *occ, size_t top);

#endif /* GPR_OCCUPANCY_H */
