/* SPDX-License-Identifier: MIT */
/*
 * breakdown.h - HTA's temporal, idle, kernel-type and overlap tables (report/breakdown.c).
 */
#ifndef GPR_BREAKDOWN_H
#define GPR_BREAKDOWN_H

#include "report/report.h"

struct gpa_breakdown;

enum gpr_bd_tables {
	GPR_BD_TEMPORAL = 1 << 0, /* per rank: idle, compute, non-compute, span */
	GPR_BD_IDLE = 1 << 1,     /* per rank and stream: host / kernel / other wait */
	GPR_BD_TYPES = 1 << 2,    /* busy time by the set of kernel classes running */
	GPR_BD_OVERLAP = 1 << 3,  /* per rank: communication under computation */
	GPR_BD_ALL = 0xf,
};

/* "temporal", "idle", "types", "overlap" -> one GPR_BD_* bit; -1 when unknown. */
int gpr_bd_table_parse(const char *name);

/*
 * Fills t (initialized here; caller releases with gpr_table_release) with
 * one table (a single GPR_BD_* bit) of b. Column names are HTA's; times are
 * microseconds with three decimals (exact ns), percentages rounded as HTA
 * rounds them. Returns 0, -GP_ERR_API for a bad table, -GP_ERR_NOMEM.
 */
int gpr_breakdown_table(struct gpr_table *t, unsigned table, const struct gpa_breakdown *b);

/*
 * Appends the tables in mask to out: text and Markdown (a title and a table
 * per section), CSV (header and rows per table, blank lines between) or
 * JSON (one object: "compat", then one array per table, keyed by its name).
 */
int gpr_breakdown_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
			 unsigned tables, const struct gpa_breakdown *b);

#endif /* GPR_BREAKDOWN_H */
