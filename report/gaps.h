/* SPDX-License-Identifier: MIT */
/*
 * gaps.h - idle gaps and their causes (report/gaps.c, docs/gaps.md).
 */
#ifndef GPR_GAPS_H
#define GPR_GAPS_H

#include "report/report.h"

struct gpa_gap;
struct gpa_gaps;
struct gpa_model;
struct gpa_steps;

/* The tables of a gaps result, as a mask. */
enum gpr_gaps_tables {
	GPR_GAPS_DEVICES = 1 << 0,   /* per device: window, busy, idle, busy %, gaps */
	GPR_GAPS_CAUSES = 1 << 1,    /* idle by cause: time, share, count */
	GPR_GAPS_HISTOGRAM = 1 << 2, /* gap lengths in log-scale buckets */
	GPR_GAPS_LONGEST = 1 << 3,   /* the longest gaps with cause, evidence, step, context */
	GPR_GAPS_STEPS = 1 << 4,     /* per device and step */
	GPR_GAPS_DEFAULT = GPR_GAPS_DEVICES | GPR_GAPS_CAUSES | GPR_GAPS_HISTOGRAM |
			   GPR_GAPS_LONGEST,
};

/* "devices", "causes", "histogram", "gaps", "steps" -> one GPR_GAPS_* bit; -1 when unknown. */
int gpr_gaps_table_parse(const char *name);
/* A cause in words ("host synchronization"); "unknown" when out of range. */
const char *gpr_gap_cause_label(unsigned cause);
/* Appends what explains one gap, in words: "cudaStreamSynchronize on thread 42 (python3)". */
void gpr_gap_evidence(struct gp_strbuf *sb, const struct gpa_model *m, const struct gpa_gap *g);
/* Appends a device's label: its ordinal, after "RANK:" (or "pPID:") with several processes. */
void gpr_gap_device_label(struct gp_strbuf *sb, const struct gpa_model *m, uint16_t dev);

/*
 * Fills t (initialized here; caller releases with gpr_table_release) with
 * one table (a single GPR_GAPS_* bit) of g. m and steps are those g was
 * computed from; steps may be NULL. Times are exact integer nanoseconds,
 * starts relative to the model's first event (m->t0); percentages have two
 * decimals. Returns 0, -GP_ERR_API for a bad table, -GP_ERR_NOMEM.
 */
int gpr_gaps_table(struct gpr_table *t, unsigned table, const struct gpa_model *m,
		   const struct gpa_steps *steps, const struct gpa_gaps *g);

/*
 * Appends the tables in mask 'tables' to out: text (a summary line, then a
 * title and an aligned table per section), Markdown (headings and pipe
 * tables), CSV (one header row and its rows per table, blank lines between)
 * or JSON (one object: "options", "totals", then one array per table).
 */
int gpr_gaps_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		    unsigned tables, const struct gpa_model *m, const struct gpa_steps *steps,
		    const struct gpa_gaps *g);

#endif /* GPR_GAPS_H */
