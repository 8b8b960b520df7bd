/* SPDX-License-Identifier: MIT */
/*
 * diff.h - `gpuprof diff` results (report/diff.c, docs/diff.md).
 */
#ifndef GPR_DIFF_H
#define GPR_DIFF_H

#include "report/report.h"

struct gpa_diff_result;

/*
 * `gpuprof diff` results (docs/diff.md): a terminal table, Markdown for a CI
 * step summary or pull-request comment, JSON, and JUnit XML (written
 * through libxml2), all worst first. Each returns 0 or -GP_ERR_NOMEM.
 */

/* Default cap of the Markdown output: GitHub refuses step summaries over 1 MiB. */
#define GPR_DIFF_MARKDOWN_MAX (1000 * 1000)

/* Times in the sentences of every format (JSON's "explain" too) as d says. */
int gpr_diff_text(struct gp_strbuf *out, const struct gpr_display *d,
		  const struct gpa_diff_result *r);
/* Stops adding rows, with a note saying how many were left out, before max_bytes. */
int gpr_diff_markdown(struct gp_strbuf *out, const struct gpr_display *d,
		      const struct gpa_diff_result *r, size_t max_bytes);
int gpr_diff_json(struct gp_strbuf *out, const struct gpr_display *d,
		  const struct gpa_diff_result *r);
/* One test case per gated metric: regressed -> failure, inconclusive -> skipped. */
int gpr_diff_junit(struct gp_strbuf *out, const struct gpr_display *d,
		   const struct gpa_diff_result *r);

#endif /* GPR_DIFF_H */
