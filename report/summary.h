/* SPDX-License-Identifier: MIT */
/*
 * summary.h - the report, the one-stop answer: its parts, text, Markdown and JSON, its
 * tables and findings (report/summary.c, report/findings.c, docs/report.md).
 */
#ifndef GPR_SUMMARY_H
#define GPR_SUMMARY_H

#include "report/report.h"
#include "analyze/mfu.h" /* enum gpa_dtype */

struct gpa_bound_verdict;
struct gpa_comm;
struct gpa_findings;
struct gpa_flight_cmp;
struct gpa_flight_info;
struct gpa_gaps;
struct gpa_launches;
struct gpa_memory;
struct gpa_mfu;
struct gpa_model;
struct gpa_occupancy;
struct gpa_ops;
struct gpa_overview;
struct gpa_stats;
struct gpa_steps;

struct gpr_report_parts {
	const struct gpa_model *m;
	const struct gpa_steps *steps;
	const struct gpa_overview *ov;
	const struct gpa_gaps *gaps;
	const struct gpa_stats *kernels; /* a cuda_gpu_kern_sum result */
	size_t top_kernels;              /* kernel rows shown */
	size_t max_steps;                /* step rows shown in text and Markdown (JSON: all) */
	/* Kernel efficiency (docs/occupancy.md, docs/mfu.md); NULL or empty: sections left out. */
	const struct gpa_occupancy *occ; /* "Theoretical occupancy" (top_kernels groups) */
	const struct gpa_mfu *mfu;       /* "Utilization" (with FLOPs or bytes), "Copy bandwidth" */
	enum gpa_dtype mfu_dtype;
	const struct gpa_comm *comm;     /* Communication sections when it has data; NULL: none */
	const struct gpa_memory *memory; /* "GPU memory" when it has events; NULL: none */
	const struct gpa_findings *findings; /* the Findings section; NULL: none */
	const struct gpa_bound_verdict *verdict;   /* the headline's bound (critical path); NULL: none */
	const struct gpa_launches *launches; /* the Launches section; NULL or no launches: none */
	/* "Top operators by GPU time" (report/ops.c); NULL or no recorded shapes: none */
	const struct gpa_ops *ops;
	/*
	 * A flight recording's trigger (NULL: not one) and its slow step against
	 * the median step (NULL: none): the opening section (report/flight.c).
	 */
	const struct gpa_flight_info *flight;
	const struct gpa_flight_cmp *flight_cmp;
	/* How text and Markdown read (units, width, --wide); borrowed, NULL: the default. */
	const struct gpr_display *display;
};

/*
 * Renders the report: what was traced; the step table and its
 * distribution; GPU busy and idle by cause; the top kernels by GPU time;
 * memory traffic; the longest gaps; warnings. Text, Markdown or JSON (one
 * object, schema in docs/report.md).
 */
int gpr_report_render(struct gp_strbuf *out, enum gpr_format fmt,
		      const struct gpr_report_parts *p);

/*
 * Calls fn for each section table of the report, in order (the tables the
 * text, Markdown and JSON renderings show; fmt picks the JSON row limits):
 * title for people, key as in the JSON. Stops at the first non-zero return
 * and returns it; -GP_ERR_NOMEM when a table could not be built.
 */
int gpr_report_each_table(const struct gpr_report_parts *p, enum gpr_format fmt,
			  int (*fn)(void *data, const char *title, const char *key,
				    const struct gpr_table *t),
			  void *data);
/* Appends the report's headline as plain text (its title line first). */
void gpr_report_headline(struct gp_strbuf *out, const struct gpr_report_parts *p);

/*
 * The warnings the report adds to the overview's (estimates the efficiency
 * sections made), one line each into est; returns how many. Every format
 * lists them after the overview's warnings.
 */
#define GPR_ESTIMATES_MAX 4
size_t gpr_report_estimates(const struct gpr_report_parts *p, char est[GPR_ESTIMATES_MAX][256]);

/*
 * The Findings section (report/findings.c): text or Markdown (a title, the
 * verdict, then each finding with its bound, evidence, confidence and next
 * command); JSON (the "findings_summary" object and the "findings" array,
 * each after a comma, for the report's object). Nothing without p->findings.
 */
int gpr_findings_text(struct gp_strbuf *out, bool md, const struct gpr_report_parts *p);
int gpr_findings_json(struct gp_strbuf *out, const struct gpr_report_parts *p);
/* The verdict sentence: no GPU work, no material bottleneck, or the recoverable total. */
void gpr_findings_verdict(struct gp_strbuf *out, const struct gpr_report_parts *p);
/*
 * Calls fn for each material finding, largest first: head (title, bound,
 * severity, confidence) and its lines (counts, evidence events, confidence
 * reason and next command). Stops at the first non-zero return.
 */
int gpr_findings_each(const struct gpr_report_parts *p,
		      int (*fn)(void *data, const char *head, const char *const *lines,
				size_t nlines),
		      void *data);

#endif /* GPR_SUMMARY_H */
