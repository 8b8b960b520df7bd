/* SPDX-License-Identifier: MIT */
/*
 * comm.h - communication tables (report/comm.c, docs/comm.md).
 */
#ifndef GPR_COMM_H
#define GPR_COMM_H

#include "report/report.h"

struct gpa_comm;
struct gpa_comm_rank;
struct gpa_model;
struct gpa_steps;

enum gpr_comm_tables {
	GPR_COMM_COLLS = 1 << 0,   /* collectives by type and size: bandwidth */
	GPR_COMM_EXPOSED = 1 << 1, /* exposed communication per device and step */
	GPR_COMM_RANKS = 1 << 2,   /* arrival and waiting per rank */
	GPR_COMM_ALL = 7,
};

/*
 * Fills t (initialized here; caller releases) with one table (a single
 * GPR_COMM_* bit) of c; totals_only keeps the per-device totals of the
 * exposed table. Returns 0 or -GP_ERR_API for a bad table.
 */
int gpr_comm_table(struct gpr_table *t, unsigned table, const struct gpa_model *m,
		   const struct gpa_steps *steps, const struct gpa_comm *c, bool totals_only);
/*
 * t as a section (gpr_table_section); in text and Markdown, a table with no
 * rows is one line instead: its title and why. t is released.
 */
int gpr_section_or_why(struct gpr_table *t, enum gpr_format f, const struct gpr_display *d,
		       const char *title, const char *key, bool first, const char *why,
		       struct gp_strbuf *o);
/* "rank R (pid P)", or "pid P" when the rank is not known: a process of c's ranks. */
void gpr_comm_rank_label(struct gp_strbuf *sb, const struct gpa_model *m,
			 const struct gpa_comm_rank *r);
/* "unknown", "nothing material", "found": an enum gpa_coll_evidence (or gpa_job_evidence). */
const char *gpr_evidence_name(uint8_t ev);
/* Whether c found any NCCL operation or communication kernel. */
bool gpr_comm_has_data(const struct gpa_comm *c);
/*
 * Appends the summary and the tables in mask 'tables': text and Markdown
 * (summary lines, then a title and a table per section), CSV (tables
 * separated by blank lines), JSON (one object: "summary", then one array
 * per table).
 */
int gpr_comm_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		    unsigned tables, const struct gpa_model *m, const struct gpa_steps *steps,
		    const struct gpa_comm *c);

#endif /* GPR_COMM_H */
