/* SPDX-License-Identifier: MIT */
/*
 * flight.h - the renderer of a flight recording's opening section
 * (report/flight.c); report.h is at its size limit, so it has a header of
 * its own.
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
int gpr_flight_render(struct gp_strbuf *out, enum gpr_format fmt,
		      const struct gpa_flight_info *fi, const struct gpa_flight_cmp *cmp,
		      const struct gpa_model *m, const struct gpa_steps *steps);

#endif /* GPR_FLIGHT_H */
