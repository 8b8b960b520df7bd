/* SPDX-License-Identifier: MIT */
/*
 * ops-svg.c - the operators on the device's roofline as an SVG chart (the
 * HTML report's "Operator roofline"; docs/ops.md). One point per operator
 * and set of inputs with a FLOP model: x its arithmetic intensity
 * (FLOP/byte), y its achieved TFLOP/s (the group's FLOPs over its GPU
 * time), both logarithmic; the memory roof (bandwidth x intensity), one
 * compute roof per data type the points use, and each ridge point. Written
 * through libxml2 like every XML output.
 */
#include "base/compat.h"
#include "analyze/ops.h"
#include "report/ops.h"
#include "report/report.h"
#include "report/svg.h"

#include <inttypes.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define W 760
#define H 490
#define LEFT 74
#define RIGHT 24
#define TOP 28
#define BOTTOM 90
#define MAX_POINTS 200
#define LABELLED 6

#define MAX_LABELS 32

struct svg {
	xmlDocPtr doc;
	xmlNodePtr root;
	bool failed;
	double lx0, lx1, ly0, ly1; /* log10 of the axes' ends */
	struct box { double x0, y0, x1, y1; } labels[MAX_LABELS]; /* placed so far */
	size_t nlabels;
	const struct gpr_display *d; /* how the tips' times read */
};

static double px(const struct svg *s, double x)
{
	return LEFT + (log10(x) - s->lx0) / (s->lx1 - s->lx0) * (W - LEFT - RIGHT);
}

static double py(const struct svg *s, double y)
{
	return TOP + (s->ly1 - log10(y)) / (s->ly1 - s->ly0) * (H - TOP - BOTTOM);
}

/* A row that can be drawn: a FLOP model, bytes, GPU time. */
static bool drawable(const struct gpa_op_row *r)
{
	return r->perf.kind != GPA_OPK_NONE && r->perf.flops > 0 && r->perf.bytes > 0 &&
	       r->gpu_ns > 0 && !r->implausible; /* faster than the peak: never drawn */
}

static double intensity(const struct gpa_op_row *r)
{
	return r->perf.flops / r->perf.bytes;
}

static double achieved(const struct gpa_op_row *r)
{
	return r->flops / (double)r->gpu_ns / 1000; /* FLOP/ns = GFLOP/s; /1000 TFLOP/s */
}

/* The axes' decades: every point, roof and ridge inside, half a decade spare. */
static void axes_range(struct svg *s, const struct gpa_ops *o, size_t n)
{
	double x0 = INFINITY, x1 = 0, y0 = INFINITY, y1 = 0;

	for (size_t i = 0; i < n; i++) {
		const struct gpa_op_row *r = &o->by_args.v[i];
		if (!drawable(r)) {
			continue;
		}
		double x = intensity(r), y = achieved(r);
		x0 = fmin(x0, x), x1 = fmax(x1, x);
		y0 = fmin(y0, y), y1 = fmax(y1, y);
		if (r->peak_tflops > 0 && r->peak_tbps > 0) {
			x1 = fmax(x1, r->peak_tflops / r->peak_tbps);
			y1 = fmax(y1, r->peak_tflops);
		}
	}
	s->lx0 = floor(log10(x0) - 0.3);
	s->lx1 = ceil(log10(x1) + 0.3);
	s->ly0 = floor(log10(y0) - 0.3);
	s->ly1 = ceil(log10(y1) + 0.3);
}

static void line(struct svg *s, xmlNodePtr g, double x0, double y0, double x1, double y1,
		 const char *cls)
{
	xmlNodePtr l = gpr_svg_node(&s->failed, g, "line", NULL);
	gpr_svg_prop(&s->failed, l, "x1", "%.1f", x0);
	gpr_svg_prop(&s->failed, l, "y1", "%.1f", y0);
	gpr_svg_prop(&s->failed, l, "x2", "%.1f", x1);
	gpr_svg_prop(&s->failed, l, "y2", "%.1f", y1);
	gpr_svg_prop(&s->failed, l, "class", "%s", cls);
}

static void text(struct svg *s, xmlNodePtr g, double x, double y, const char *anchor,
		 const char *cls, const char *str)
{
	xmlNodePtr t = gpr_svg_node(&s->failed, g, "text", str);
	gpr_svg_prop(&s->failed, t, "x", "%.1f", x);
	gpr_svg_prop(&s->failed, t, "y", "%.1f", y);
	if (anchor) {
		gpr_svg_prop(&s->failed, t, "text-anchor", "%s", anchor);
	}
	if (cls) {
		gpr_svg_prop(&s->failed, t, "class", "%s", cls);
	}
}

/* The width of an 11 px label: an upper bound of the usual sans-serif glyphs. */
static double label_w(const char *str)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		n += (*p & 0xc0) != 0x80;
	}
	return 6.6 * (double)n;
}

/*
 * Places a label of width w whose text starts at x on baseline y: false
 * (nothing placed) when it would leave the plot or overlap a label placed
 * before, so labels never cover each other: the ones that do not fit are
 * left out (the points' tooltips still name them).
 */
static bool place(struct svg *s, double x, double y, double w)
{
	struct box b = {x - 1, y - 11, x + w + 1, y + 3};

	if (b.x0 < LEFT || b.x1 > W - 2 || b.y0 < 2 || b.y1 > H - BOTTOM || s->nlabels == MAX_LABELS) {
		return false;
	}
	for (size_t i = 0; i < s->nlabels; i++) {
		const struct box *o = &s->labels[i];
		if (b.x0 < o->x1 && o->x0 < b.x1 && b.y0 < o->y1 && o->y0 < b.y1) {
			return false;
		}
	}
	s->labels[s->nlabels++] = b;
	return true;
}

/* Decade grid lines and their labels, the frame and the axis titles. */
static void grid(struct svg *s)
{
	xmlNodePtr g = gpr_svg_node(&s->failed, s->root, "g", NULL);
	double xr = W - RIGHT, yb = H - BOTTOM;
	char lab[32];

	for (double k = s->lx0; k <= s->lx1 + 1e-9; k++) {
		double x = px(s, pow(10, k));
		line(s, g, x, TOP, x, yb, "grid");
		snprintf(lab, sizeof(lab), "%g", pow(10, k));
		text(s, g, x, yb + 16, "middle", NULL, lab);
	}
	for (double k = s->ly0; k <= s->ly1 + 1e-9; k++) {
		double y = py(s, pow(10, k));
		line(s, g, LEFT, y, xr, y, "grid");
		snprintf(lab, sizeof(lab), "%g", pow(10, k));
		text(s, g, LEFT - 6, y + 4, "end", NULL, lab);
	}
	xmlNodePtr box = gpr_svg_node(&s->failed, g, "rect", NULL);
	gpr_svg_prop(&s->failed, box, "x", "%d", LEFT);
	gpr_svg_prop(&s->failed, box, "y", "%d", TOP);
	gpr_svg_prop(&s->failed, box, "width", "%d", W - LEFT - RIGHT);
	gpr_svg_prop(&s->failed, box, "height", "%d", H - TOP - BOTTOM);
	gpr_svg_prop(&s->failed, box, "class", "frame");
	text(s, g, (LEFT + xr) / 2, yb + 36, "middle", NULL, "arithmetic intensity (FLOP/byte)");
	xmlNodePtr t = gpr_svg_node(&s->failed, g, "text", "achieved TFLOP/s");
	gpr_svg_prop(&s->failed, t, "transform", "translate(16,%.0f) rotate(-90)", (TOP + yb) / 2);
	gpr_svg_prop(&s->failed, t, "text-anchor", "middle");
}

/* The memory roof to the highest ridge, each data type's compute roof from its ridge. */
static void roofs(struct svg *s, const struct gpa_ops *o, size_t n)
{
	xmlNodePtr g = gpr_svg_node(&s->failed, s->root, "g", NULL);
	double tbps = o->peaks.mem_gbps / 1000, xmax = pow(10, s->lx1), top = 0;
	bool seen[GPA_DT__COUNT] = {0};
	char lab[96];

	if (tbps <= 0) {
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gpa_op_row *r = &o->by_args.v[i];
		int dt = r->perf.dtype;
		if (!drawable(r) || dt < 0 || dt >= GPA_DT__COUNT || seen[dt] ||
		    o->peaks.tflops[dt] <= 0) {
			continue;
		}
		seen[dt] = true;
		double peak = o->peaks.tflops[dt], ridge = peak / tbps;
		top = fmax(top, peak);
		line(s, g, px(s, ridge), py(s, peak), px(s, xmax), py(s, peak), "roof");
		line(s, g, px(s, ridge), py(s, peak), px(s, ridge), H - BOTTOM, "ridge");
		snprintf(lab, sizeof(lab), "%s %.0f TFLOP/s, ridge %.0f FLOP/B",
			 gpa_dtype_name((enum gpa_dtype)dt), peak, ridge);
		double w = label_w(lab), xr = px(s, xmax) - 4;
		/* above its roof, else below it; roofs close together keep one label */
		for (double dy = -5; dy < 20; dy += 18) {
			if (place(s, xr - w, py(s, peak) + dy, w)) {
				text(s, g, xr, py(s, peak) + dy, "end", "roof-label", lab);
				break;
			}
		}
	}
	/* the memory roof: from the left edge (or the bottom) to the highest compute roof */
	double x0 = pow(10, s->lx0), y0 = x0 * tbps;
	if (y0 < pow(10, s->ly0)) {
		y0 = pow(10, s->ly0);
		x0 = y0 / tbps;
	}
	double x1 = top > 0 ? top / tbps : xmax, y1 = x1 * tbps;
	if (y1 > pow(10, s->ly1)) {
		y1 = pow(10, s->ly1);
		x1 = y1 / tbps;
	}
	line(s, g, px(s, x0), py(s, y0), px(s, x1), py(s, y1), "roof");
	snprintf(lab, sizeof(lab), "memory %.2f TB/s", tbps);
	xmlNodePtr t = gpr_svg_node(&s->failed, g, "text", lab);
	double ang = atan2(py(s, y1) - py(s, y0), px(s, x1) - px(s, x0)) * 180 / M_PI;
	gpr_svg_prop(&s->failed, t, "transform", "translate(%.1f,%.1f) rotate(%.1f)", px(s, x0) + 8,
	     py(s, y0) - 6, ang);
	gpr_svg_prop(&s->failed, t, "class", "roof-label");
}

/* One point: its circle, a tooltip, and a label for the largest few. */
static void point(struct svg *s, xmlNodePtr g, const struct gpa_op_row *r, uint64_t total,
		  size_t rank)
{
	struct gp_strbuf tip = GP_STRBUF_INIT;
	double x = px(s, intensity(r)), y = py(s, achieved(r));
	double share = total ? (double)r->gpu_ns / (double)total : 0;
	xmlNodePtr c = gpr_svg_node(&s->failed, g, "circle", NULL);

	gpr_svg_prop(&s->failed, c, "cx", "%.1f", x);
	gpr_svg_prop(&s->failed, c, "cy", "%.1f", y);
	gpr_svg_prop(&s->failed, c, "r", "%.1f", 3 + 9 * sqrt(share));
	gpr_svg_prop(&s->failed, c, "class", "%s",
		     r->bound == 1 ? "compute" : r->bound == 2 ? "memory" : "unknown");
	gp_strbuf_addf(&tip, "%s %s\n%.2f FLOP/B, %.3f TFLOP/s", r->name,
		       r->args && *r->args ? r->args : "", intensity(r), achieved(r));
	if (r->roof_pct >= 0) {
		gp_strbuf_addf(&tip, ", %.1f%% of the roofline (%s-bound)", r->roof_pct,
			       r->bound == 1 ? "compute" : "memory");
	}
	gp_strbuf_addf(&tip, "\n%" PRIu64 " calls, ", r->count);
	gpr_fmt_ns(&tip, s->d, r->gpu_ns);
	gp_strbuf_addf(&tip, " GPU time (%.1f%%)", 100 * share);
	gpr_svg_node(&s->failed, c, "title", tip.failed ? "" : tip.buf);
	s->failed |= tip.failed;
	gp_strbuf_release(&tip);
	if (rank < LABELLED) {
		char lab[64];
		snprintf(lab, sizeof(lab), "%zu %.40s", rank + 1, r->name);
		double w = label_w(lab);
		/* right above, right below, left above, left below: the first free place */
		const double at[4][2] = {{x + 6, y - 6}, {x + 6, y + 14}, {x - 6 - w, y - 6},
					 {x - 6 - w, y + 14}};
		for (size_t k = 0; k < 4; k++) {
			if (place(s, at[k][0], at[k][1], w)) {
				text(s, g, at[k][0], at[k][1], NULL, "point-label", lab);
				break;
			}
		}
	}
}

static size_t drawn_rows(const struct gpa_ops *o, size_t *drawn, size_t *skipped,
			 uint64_t *total)
{
	size_t n = o->by_args.n < MAX_POINTS ? o->by_args.n : MAX_POINTS;

	*drawn = *skipped = 0;
	*total = 0;
	for (size_t i = 0; i < o->by_args.n; i++) {
		const struct gpa_op_row *r = &o->by_args.v[i];
		if (i < n && drawable(r)) {
			++*drawn;
			*total += r->gpu_ns;
		} else if (r->perf.kind != GPA_OPK_NONE) {
			++*skipped;
		}
	}
	return n;
}

static void key(struct svg *s, const struct gpa_ops *o, size_t drawn, size_t skipped)
{
	char buf[320];

	snprintf(buf, sizeof(buf),
		 "%zu operator input sets, area by GPU time (numbered by it); blue compute-bound, "
		 "orange memory-bound, grey no roof",
		 drawn);
	text(s, s->root, LEFT, H - 26, NULL, NULL, buf);
	if (o->peaks.mem_gbps <= 0) {
		snprintf(buf, sizeof(buf), "device peaks unknown (%s): no roofs drawn",
			 o->peaks.name ? o->peaks.name : "unknown");
	} else {
		snprintf(buf, sizeof(buf),
			 "roofs of %s; not drawn: %zu modelled input sets without FLOPs or bytes, or past %d",
			 o->peaks.name ? o->peaks.name : "unknown", skipped, MAX_POINTS);
	}
	text(s, s->root, LEFT, H - 8, NULL, NULL, buf);
}

int gpr_ops_roofline_svg(struct gp_strbuf *out, const struct gpr_display *d,
			 const struct gpa_ops *o)
{
	struct svg s = {.d = d};
	size_t drawn, skipped;
	uint64_t total;
	size_t n = drawn_rows(o, &drawn, &skipped, &total);
	xmlChar *buf = NULL;
	int len = 0;

	if (!drawn) {
		return 0;
	}
	s.doc = xmlNewDoc(BAD_CAST "1.0");
	s.root = s.doc ? xmlNewNode(NULL, BAD_CAST "svg") : NULL;
	if (!s.root) {
		s.failed = true;
		goto out;
	}
	xmlDocSetRootElement(s.doc, s.root);
	gpr_svg_prop(&s.failed, s.root, "xmlns", "http://www.w3.org/2000/svg");
	gpr_svg_prop(&s.failed, s.root, "width", "%d", W);
	gpr_svg_prop(&s.failed, s.root, "height", "%d", H);
	gpr_svg_prop(&s.failed, s.root, "class", "gp-roofline");
	gpr_svg_node(&s.failed, s.root, "style",
	     "text{font:12px sans-serif;fill:#333}.frame{fill:none;stroke:#bbb}"
	     ".grid{stroke:#eee}.roof{stroke:#222;stroke-width:2}"
	     ".ridge{stroke:#888;stroke-dasharray:4 3}.roof-label{font-size:11px;fill:#222}"
	     ".point-label{font-size:11px}circle{fill-opacity:.7;stroke:#333;stroke-width:.5}"
	     ".compute{fill:#1f77b4}.memory{fill:#ff7f0e}.unknown{fill:#999}");
	axes_range(&s, o, n);
	grid(&s);
	roofs(&s, o, n);
	xmlNodePtr g = gpr_svg_node(&s.failed, s.root, "g", NULL);
	gpr_svg_prop(&s.failed, g, "class", "points");
	/* largest first (the rows' order), so the smaller points stay visible on top */
	for (size_t i = 0, rank = 0; i < n; i++) {
		if (drawable(&o->by_args.v[i])) {
			point(&s, g, &o->by_args.v[i], total, rank++);
		}
	}
	key(&s, o, drawn, skipped);
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
	return s.failed || out->failed ? -GP_ERR_NOMEM : 0;
}
