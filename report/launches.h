/* SPDX-License-Identifier: MIT */
/*
 * launches.h - launch and queue analytics (report/launches.c, docs/launches.md).
 */
#ifndef GPR_LAUNCHES_H
#define GPR_LAUNCHES_H

#include "report/report.h"

struct gpa_model;

struct gpa_launches;
enum gpr_launch_tables {
	GPR_LAUNCH_SUMMARY = 1 << 0, /* call, delay and GPU duration distributions, counts */
	GPR_LAUNCH_NAMES = 1 << 1,   /* the same per kernel name (top N by launches) */
	GPR_LAUNCH_QUEUES = 1 << 2,  /* queue length per stream, time blocked on a full queue */
	GPR_LAUNCH_COPIES = 1 << 3,  /* copy bandwidth per kind */
	GPR_LAUNCH_IDLE = 1 << 4,    /* idle intervals per stream and category */
	GPR_LAUNCH_ANNOTS = 1 << 5,  /* GPU-side user annotations */
	GPR_LAUNCH_ALL = (1 << 6) - 1,
	GPR_LAUNCH_BRIEF = 1 << 6,   /* the report's section: call, delay, short kernels */
};

/* "summary", "kernels", "queues", "copies", "idle", "annotations" -> a bit; -1 unknown. */
int gpr_launches_table_parse(const char *name);
/* Fills t (caller releases) with one GPR_LAUNCH_* table. 0, -GP_ERR_API, -GP_ERR_NOMEM. */
int gpr_launches_table(struct gpr_table *t, const struct gpr_display *d, unsigned table,
		       const struct gpa_model *m, const struct gpa_launches *l);
/* The tables in mask: text, Markdown, CSV, or one JSON object (schema gpuprof-launches/2). */
int gpr_launches_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
			unsigned mask, const struct gpa_model *m, const struct gpa_launches *l);

#endif /* GPR_LAUNCHES_H */
