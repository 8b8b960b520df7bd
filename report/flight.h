/* SPDX-License-Identifier: MIT */
/*
 * flight.h - the renderers of a flight recording's opening section and
 * JSON object (report/flight.c).
 */
#ifndef GPR_FLIGHT_H
#define GPR_FLIGHT_H

#include "report/report.h"

struct gpa_flight_info;
struct gpa_flight_cmp;
struct gpa_steps;

/*
 * The opening of `gpuprof report` on a flight recording (text or Markdown):
 * the trigger, then the slow step against the median step, its critical
 * path's categories ranked as diff ranks them, and the names that grew.
 * cmp may be NULL or without a comparison. Returns 0 or -GP_ERR_NOMEM.
 */
int gpr_flight_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		      const struct gpa_flight_info *fi, const struct gpa_flight_cmp *cmp,
		      const struct gpa_model *m, const struct gpa_steps *steps);

/*
 * ,"flight":{...} for the report's JSON (docs/report.md, schema 1.6): the
 * trigger, its time and step on the model's clock, what left the ring, and
 * "comparison" (null without one): the slow step against the median step,
 * the categories ranked as the text ranks them, the names that grew.
 * ,"flight":null when fi is NULL or not a flight recording.
 */
void gpr_flight_json(struct gp_strbuf *o, const struct gpa_flight_info *fi,
		     const struct gpa_flight_cmp *cmp, const struct gpa_model *m,
		     const struct gpa_steps *steps);

#endif /* GPR_FLIGHT_H */
