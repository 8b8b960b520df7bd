/* SPDX-License-Identifier: MIT */
/*
 * memory-svg.c - allocated and reserved bytes over time as an SVG chart
 * (the HTML report's "GPU memory over time"; docs/memory.md). One panel per
 * device: the time axis is cut into columns, each drawn at the largest
 * value inside it, so the peak is never smoothed away. Written through
 * libxml2 like every XML output.
 */
#include "base/compat.h"
#include "analyze/memory.h"
#include "report/memory.h"
#include "report/report.h"
#include "report/svg.h"

#include <libxml/tree.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COLS 600
#define PANEL_W 720
#define PANEL_H 160
#define LEFT 90
#define TOP 26

struct svg {
	xmlDocPtr doc;
	xmlNodePtr root;
	bool failed;
};

/* The column maxima of one pool: alloc[c], res[c] (UINT64_MAX: no event in c). */
static void columns(const struct gpa_model *m, const struct gpa_memory *r, uint32_t pi,
		    uint64_t *alloc, uint64_t *res)
{
	const struct gpa_mem_pool *p = &r->pools.v[pi];
	uint64_t span = p->last_ts > p->first_ts ? p->last_ts - p->first_ts : 1;

	for (size_t c = 0; c < COLS; c++) {
		alloc[c] = res[c] = UINT64_MAX;
	}
	for (size_t i = 0; i < gpa_mem_rows(m); i++) {
		if (gpa_memory_pool_at(r, i) != pi) {
			continue;
		}
		size_t c = (size_t)((double)(gpa_mem_ts(m, i) - p->first_ts) / (double)span *
				    (COLS - 1));
		uint64_t a = gpa_memory_alloc_at(r, i), v = gpa_mem_total_res(m, i);
		if (alloc[c] == UINT64_MAX || a > alloc[c]) {
			alloc[c] = a;
		}
		if ((gpa_mem_flags(m, i) & GPT_MEMORY_HAS_RESERVED) &&
		    (res[c] == UINT64_MAX || v > res[c])) {
			res[c] = v;
		}
	}
}

/* A step line through the columns (a column without events keeps the last value). */
static void series(struct svg *s, xmlNodePtr g, const uint64_t *v, uint64_t top, double y0,
		   const char *cls)
{
	struct gp_strbuf pts = GP_STRBUF_INIT;
	uint64_t last = UINT64_MAX;

	for (size_t c = 0; c < COLS; c++) {
		uint64_t x = v[c] != UINT64_MAX ? v[c] : last;
		if (x == UINT64_MAX) {
			continue;
		}
		last = x;
		double px = LEFT + (double)c * (PANEL_W - LEFT - 10) / (COLS - 1);
		double py = y0 + PANEL_H - (double)x / (double)top * PANEL_H;
		gp_strbuf_addf(&pts, "%s%.1f,%.1f", pts.len ? " " : "", px, py);
	}
	if (pts.len) {
		xmlNodePtr pl = gpr_svg_node(&s->failed, g, "polyline", NULL);
		gpr_svg_prop(&s->failed, pl, "class", "%s", cls); /* short; points (long) below */
		if (!xmlNewProp(pl, BAD_CAST "points", BAD_CAST pts.buf)) {
			s->failed = true;
		}
	}
	s->failed |= pts.failed;
	gp_strbuf_release(&pts);
}

static void panel(struct svg *s, const struct gpa_model *m, const struct gpa_memory *r, uint32_t pi,
		  double y0, uint64_t *alloc, uint64_t *res)
{
	const struct gpa_mem_pool *p = &r->pools.v[pi];
	uint64_t top = p->max_reserved > p->peak ? p->max_reserved : p->peak;
	struct gp_strbuf sb = GP_STRBUF_INIT;
	xmlNodePtr g = gpr_svg_node(&s->failed, s->root, "g", NULL);

	top = top ? top : 1;
	columns(m, r, pi, alloc, res);
	gpr_memory_device_name(&sb, m, p);
	gp_strbuf_adds(&sb, ": peak ");
	gpr_fmt_bytes(&sb, p->peak);
	gp_strbuf_adds(&sb, " allocated");
	if (p->has_reserved) {
		gp_strbuf_adds(&sb, ", up to ");
		gpr_fmt_bytes(&sb, p->max_reserved);
		gp_strbuf_adds(&sb, " reserved");
	}
	gp_strbuf_adds(&sb, p->rebuilt ? " (totals rebuilt from the events)" : "");
	xmlNodePtr t = gpr_svg_node(&s->failed, g, "text", sb.failed ? "" : sb.buf);
	s->failed |= sb.failed;
	gpr_svg_prop(&s->failed, t, "x", "%d", LEFT);
	gpr_svg_prop(&s->failed, t, "y", "%.0f", y0 - 8);
	gp_strbuf_reset(&sb);
	gpr_fmt_bytes(&sb, top);
	t = gpr_svg_node(&s->failed, g, "text", sb.failed ? "" : sb.buf);
	s->failed |= sb.failed;
	gpr_svg_prop(&s->failed, t, "x", "%d", LEFT - 6);
	gpr_svg_prop(&s->failed, t, "y", "%.0f", y0 + 10);
	gpr_svg_prop(&s->failed, t, "text-anchor", "end");
	t = gpr_svg_node(&s->failed, g, "text", "0");
	gpr_svg_prop(&s->failed, t, "x", "%d", LEFT - 6);
	gpr_svg_prop(&s->failed, t, "y", "%.0f", y0 + PANEL_H);
	gpr_svg_prop(&s->failed, t, "text-anchor", "end");
	xmlNodePtr box = gpr_svg_node(&s->failed, g, "rect", NULL);
	gpr_svg_prop(&s->failed, box, "x", "%d", LEFT);
	gpr_svg_prop(&s->failed, box, "y", "%.0f", y0);
	gpr_svg_prop(&s->failed, box, "width", "%d", PANEL_W - LEFT - 10);
	gpr_svg_prop(&s->failed, box, "height", "%d", PANEL_H);
	gpr_svg_prop(&s->failed, box, "class", "frame");
	if (p->has_reserved) {
		series(s, g, res, top, y0, "reserved");
	}
	series(s, g, alloc, top, y0, "allocated");
	s->failed |= sb.failed;
	gp_strbuf_release(&sb);
}

int gpr_memory_svg(struct gp_strbuf *out, const struct gpa_model *m, const struct gpa_memory *r)
{
	struct svg s = {0};
	uint64_t *alloc = malloc(COLS * sizeof(*alloc)), *res = malloc(COLS * sizeof(*res));
	double h = (double)r->pools.n * (PANEL_H + TOP + 14) + 30;
	xmlChar *buf = NULL;
	int len = 0;

	s.doc = xmlNewDoc(BAD_CAST "1.0");
	s.root = s.doc ? xmlNewNode(NULL, BAD_CAST "svg") : NULL;
	if (!alloc || !res || !s.root) {
		s.failed = true;
		goto out;
	}
	xmlDocSetRootElement(s.doc, s.root);
	gpr_svg_prop(&s.failed, s.root, "xmlns", "http://www.w3.org/2000/svg");
	gpr_svg_prop(&s.failed, s.root, "width", "%d", PANEL_W);
	gpr_svg_prop(&s.failed, s.root, "height", "%.0f", h);
	gpr_svg_node(&s.failed, s.root, "style",
	     "text{font:12px sans-serif;fill:#333}.frame{fill:none;stroke:#bbb}"
	     "polyline{fill:none;stroke-width:1.5}.allocated{stroke:#1f77b4}"
	     ".reserved{stroke:#ff7f0e;stroke-dasharray:4 2}");
	for (uint32_t pi = 0; pi < r->pools.n; pi++) {
		panel(&s, m, r, pi, TOP + (double)pi * (PANEL_H + TOP + 14), alloc, res);
	}
	xmlNodePtr key = gpr_svg_node(&s.failed, s.root, "text",
			      "blue: allocated, orange dashed: reserved; each column drawn at "
			      "its largest value");
	gpr_svg_prop(&s.failed, key, "x", "%d", LEFT);
	gpr_svg_prop(&s.failed, key, "y", "%.0f", h - 8);
	if (!s.failed) {
		xmlDocDumpMemory(s.doc, &buf, &len);
		if (buf && len > 0) {
			gp_strbuf_add(out, buf, (size_t)len);
		} else {
			s.failed = true;
		}
	}
out:
	xmlFree(buf);
	if (s.doc) {
		xmlFreeDoc(s.doc);
	} else if (s.root) {
		xmlFreeNode(s.root);
	}
	free(alloc);
	free(res);
	return s.failed || out->failed ? -GP_ERR_NOMEM : 0;
}
