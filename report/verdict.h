/* SPDX-License-Identifier: MIT */
/*
 * verdict.h - the report's first sentence: what bounds the step, from the
 * critical path (report/verdict.c; analyze/verdict.h computes it).
 */
#ifndef GPR_VERDICT_H
#define GPR_VERDICT_H

#include "analyze/verdict.h"
#include "base/base.h"

/*
 * "Bound: copy-bound: host-to-device copies are 95.00% of the critical path
 * (median step 12.30 ms over 10 steps); GPU time on the path: compute 2.00%,
 * copies 95.00%, communication 0.00%." One line, no newline; full: exact
 * seconds (JSON), else as d says (NULL: 3-4 digits).
 */
struct gpr_display;
void gpr_verdict_sentence(struct gp_strbuf *o, const struct gpr_display *d,
			  const struct gpa_bound_verdict *v, bool full);
/* ,"bound":{...}: the verdict's key, share, composition and sentence (docs/report.md). */
void gpr_verdict_json(struct gp_strbuf *o, const struct gpa_bound_verdict *v);

#endif /* GPR_VERDICT_H */
