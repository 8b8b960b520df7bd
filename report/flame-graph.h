/* SPDX-License-Identifier: MIT */
/*
 * flame-graph.h - flame graphs: folded stacks, SVG, speedscope (report/flame*.c,
 * docs/flame.md).
 */
#ifndef GPR_FLAME_GRAPH_H
#define GPR_FLAME_GRAPH_H

#include "report/report.h"

struct gpa_model;
struct gpa_flame;

/*
 * Appends f as folded stacks, flamegraph.pl's and inferno's input: one line
 * "frame;frame;...;leaf COUNT" per stack with a weight of its own, in tree
 * order (frame names compared byte by byte), root excluded; differential
 * trees give "STACK BEFORE AFTER" (difffolded.pl's output). Counts are
 * integer ns and sum to the root's total. Returns 0 or -GP_ERR_NOMEM.
 */
int gpr_flame_folded(struct gp_strbuf *out, const struct gpa_flame *f);

struct gpr_flame_svg_opts {
	const char *title;       /* NULL: from the tree's weight ("GPU Time Flame Graph") */
	const char *subtitle;    /* NULL: none */
	unsigned width;          /* image width in px (1200) */
	unsigned frame_height;   /* px per frame (16) */
	unsigned font_size;      /* px (12) */
	double min_width;        /* frames narrower than this many px are left out (0.1) */
	bool inverted;           /* icicle: root on top */
};

/* flamegraph.pl's defaults. */
void gpr_flame_svg_opts_init(struct gpr_flame_svg_opts *o);

/*
 * Appends f as a self-contained interactive SVG (written through libxml2):
 * frames sized by weight and coloured by category (leaves) or kind; in a
 * differential tree sized by the "after" weight and coloured red (grew) or
 * blue (shrank) by how much. Each frame has a title "NAME (TIME ns, SHARE%,
 * N launches)"; clicking zooms, a search (Ctrl-F, URL parameter s=REGEX)
 * highlights matches and prints the matched share; x/y URL parameters
 * restore a zoom. Frames narrower than min_width px (with all below them)
 * are left out, so the size is bounded by width / min_width frames per
 * level. Names that are not valid UTF-8 get U+FFFD. Returns 0,
 * -GP_ERR_NOMEM, or -GP_ERR_API for absurd options (reason in errbuf).
 */
int gpr_flame_svg(struct gp_strbuf *out, const struct gpa_flame *f,
		  const struct gpr_flame_svg_opts *o, char *errbuf, size_t errlen);

enum gpr_speedscope_type {
	GPR_SPEEDSCOPE_SAMPLED = 0, /* one profile: each stack a sample weighted by its ns */
	GPR_SPEEDSCOPE_EVENTED = 1, /* a timeline per device and stream (needs KEEP_OPS and m) */
};

/*
 * Appends f as a speedscope file (https://www.speedscope.app/file-format-schema.json):
 * shared frames, then one "sampled" profile in nanoseconds, or one
 * "evented" profile per device and stream with each GPU op's stack opened
 * at its start and closed at its end (times from m->t0, kept
 * non-decreasing). name names the file. Returns 0, -GP_ERR_API (evented
 * without op nodes, or a differential tree), -GP_ERR_NOMEM.
 */
int gpr_flame_speedscope(struct gp_strbuf *out, const struct gpa_flame *f,
			 const struct gpa_model *m, enum gpr_speedscope_type type, const char *name);

#endif /* GPR_FLAME_GRAPH_H */
