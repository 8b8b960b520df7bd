/* SPDX-License-Identifier: MIT */
/*
 * critpath.h - critical path (report/critpath.c, docs/critical-path.md).
 */
#ifndef GPR_CRITPATH_H
#define GPR_CRITPATH_H

#include "report/report.h"

struct gpa_critpath;
struct gpa_model;
struct gpa_steps;

/*
 * Renders a critical-path result: per step its time, bound and composition
 * (with the what-if's when there is one), the composition over all steps,
 * and each step's longest path segments with their events. Text, JSON, CSV
 * or Markdown, text and Markdown as d says. Returns 0, -GP_ERR_API for an
 * unknown format, -GP_ERR_NOMEM.
 */
int gpr_critpath_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
			const struct gpa_model *m, const struct gpa_steps *steps,
			const struct gpa_critpath *cp);
/* critical-path --mpi: the job's first event, per step its label, per segment its event */
struct gpr_cp_names {
	uint64_t t0;
	const char *const *step, *const *seg;
};
/* gpr_critpath_render with the names of nm (borrowed) instead of a model's. */
int gpr_critpath_render_names(struct gp_strbuf *out, enum gpr_format fmt,
			      const struct gpr_display *d, const struct gpr_cp_names *nm,
			      const struct gpa_critpath *cp);
/*
 * Calls fn for each table of a critical-path result (steps, composition,
 * segments; keys "critical-path-steps", ...), as the HTML report shows
 * them. Stops at the first non-zero return and returns it.
 */
int gpr_critpath_each_table(const struct gpa_model *m, const struct gpa_steps *steps,
			    const struct gpa_critpath *cp,
			    int (*fn)(void *data, const char *title, const char *key,
				      const struct gpr_table *t),
			    void *data);

#endif /* GPR_CRITPATH_H */
