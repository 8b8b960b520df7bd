/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the nsys `stats` reports as one document, in parts (report/stats.c, docs/stats.md).
 */
#ifndef GPR_STATS_H
#define GPR_STATS_H

#include "report/report.h"

struct gpa_model;
struct gpa_stats;

/*
 * Renders computed stats reports, one after another, as one document: text
 * (a title line, then an aligned table, per report), CSV (one header row
 * and its rows per report, blank lines between), Markdown (a heading and a
 * pipe table per report) or JSON ({"reports": [{"report", "title",
 * "timeunit", "rows": [...]}, ...]}). Cells follow gpr_table's conventions
 * (empty cells are JSON null). Output comes in parts so that a trace of
 * millions of GPU ops never sits in memory twice:
 *
 *   gpr_stats_writer_new(fmt, display, unit, &w);
 *   for each report: gpr_stats_writer_start(w, m, st);
 *                    while ((r = gpr_stats_writer_next(w, &out)) > 0) { write out; reset out; }
 *   gpr_stats_writer_finish(w, &out); gpr_stats_writer_free(w);
 *
 * Times are printed in the chosen unit with every digit the value has:
 * integer nanoseconds exactly (3, 6 or 9 decimals in us, ms, s), averages,
 * medians and standard deviations rounded half away from zero to 0.1 ns (one
 * more decimal). Sizes are in MB of 10^6 bytes on the same rules.
 */
struct gpr_stats_writer;

/* d: how text and Markdown read (copied; NULL the default). */
int gpr_stats_writer_new(enum gpr_format fmt, const struct gpr_display *d, enum gpr_time_unit unit,
			 struct gpr_stats_writer **out);
void gpr_stats_writer_free(struct gpr_stats_writer *w);
/* Starts the next report; m and st are borrowed until _next returns 0. */
int gpr_stats_writer_start(struct gpr_stats_writer *w, const struct gpa_model *m,
			   const struct gpa_stats *st);
/*
 * Appends the next part of the current report to out: returns 1 while more
 * follows, 0 once the report is complete, -GP_ERR_API without a started
 * report, -GP_ERR_NOMEM.
 */
int gpr_stats_writer_next(struct gpr_stats_writer *w, struct gp_strbuf *out);
/* Ends the document (JSON's closing brackets) after the last report. */
int gpr_stats_writer_finish(struct gpr_stats_writer *w, struct gp_strbuf *out);

#endif /* GPR_STATS_H */
