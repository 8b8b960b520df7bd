/* SPDX-License-Identifier: MIT */
/*
 * html.h - the HTML report: one self-contained page (report/html.c,
 * docs/html-report.md).
 */
#ifndef GPR_HTML_H
#define GPR_HTML_H

#include "report/summary.h"

struct gpa_critpath;
struct gpa_gaps;
struct gpa_ops;

struct gpr_html_opts {
	size_t max_events;            /* timeline events embedded, over all embedded steps */
	const char *title;            /* page title; NULL: "gpuprof report" */
	const struct gpa_gaps *shade; /* gaps shaded on the timeline (its top list); may be NULL */
	const char *flame_svg;        /* a flame graph (gpr_flame_svg) to embed; NULL: none */
	size_t flame_svg_len;
	const struct gpa_critpath *critpath; /* the Critical path section; NULL: none */
	const struct gpa_ops *roofline; /* "Operator roofline" (all input sets); NULL: none */
};

/* Defaults: 200,000 timeline events, no title, no shading. */
void gpr_html_opts_init(struct gpr_html_opts *o);

/*
 * Writes the report p as one HTML page into out: everything inline (styles,
 * script, data), nothing fetched. The page holds the headline, warnings, a
 * timeline of steps (the representative one first, then the slowest, the
 * fastest and others while the event budget lasts) with lanes per device
 * and stream, NVTX per thread and CUDA calls per thread, charts of step
 * time, idle by cause and gap lengths, the flame graph when given (its own
 * interactive SVG, in a frame of its own), and every report table as a
 * sortable, filterable HTML table (readable without script). The document is built
 * and serialised through libxml2. Returns 0, -GP_ERR_NOMEM, or -GP_ERR_API
 * with the reason in errbuf.
 */
int gpr_html_render(struct gp_strbuf *out, const struct gpr_report_parts *p,
		    const struct gpr_html_opts *o, char *errbuf, size_t errlen);

#endif /* GPR_HTML_H */
