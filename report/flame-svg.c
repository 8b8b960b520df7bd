/* SPDX-License-Identifier: MIT */
/*
 * flame-svg.c - flame trees as interactive SVG, written through libxml2's
 * text writer so that names full of <>&"' always come out escaped. The
 * layout follows flamegraph.pl's (frames per depth, widths by weight, a
 * title, a details line, Reset Zoom / Search / ic controls); colours say
 * what a frame is; the script is flame-svg-js.c.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/flame.h"
#include "report/report.h"
#include "report/flame-graph.h"
#include "report/flame.h"

#include <libxml/xmlwriter.h>
#include <stdio.h>

extern const char gpr_flame_svg_js_[];

#define XPAD 10
/* The details line until a frame is hovered (the script puts it back on mouseout). */
#define DETAILS_HINT "Hover a frame for its time, click to zoom; Search (Ctrl-F) highlights names"
#define FONT_W 0.59 /* average glyph width / font size, as flamegraph.pl assumes */

void gpr_flame_svg_opts_init(struct gpr_flame_svg_opts *o)
{
	*o = (struct gpr_flame_svg_opts){.width = 1200, .frame_height = 16, .font_size = 12,
					 .min_width = 0.1};
}

struct svg {
	xmlTextWriterPtr w;
	const struct gpa_flame *f;
	const struct gpr_flame_svg_opts *o;
	struct gp_strbuf tmp; /* scratch: cleaned names, titles */
	int err;
	/* the layout (see layout()) */
	double *x;	  /* per node: left edge */
	uint8_t *drawn;	  /* per node: wide enough to draw (and its parent drawn) */
	double per_unit;  /* px per unit of weight */
	unsigned maxdepth; /* of the frames drawn */
	uint64_t maxd;	  /* differential: largest |after - before| of the frames drawn */
	unsigned height, ypad1, ypad2;
};

void gpr_flame_add_utf8_(struct gp_strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + len;

	while (p < e) {
		unsigned c = *p;
		size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
				    : (c & 0xf8) == 0xf0 ? 4 : 0;
		uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
		bool ok = n > 0 && (size_t)(e - p) >= n;
		for (size_t i = 1; ok && i < n; i++) {
			ok = (p[i] & 0xc0) == 0x80;
			cp = (cp << 6) | (p[i] & 0x3f);
		}
		if (ok) {
			static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
			ok = cp >= min[n] && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) &&
			     cp != 0xfffe && cp != 0xffff && (cp >= 0x20 || cp == '\t');
		}
		if (ok) {
			gp_strbuf_add(sb, p, n);
			p += n;
		} else {
			gp_strbuf_adds(sb, "\xef\xbf\xbd");
			p++;
		}
	}
}

static void check(struct svg *s, int rc)
{
	if (rc < 0 && !s->err) {
		s->err = -GP_ERR_NOMEM;
	}
}

static void attr(struct svg *s, const char *name, const char *value)
{
	check(s, xmlTextWriterWriteAttribute(s->w, BAD_CAST name, BAD_CAST value));
}

GP_PRINTF(3, 4) static void attrf(struct svg *s, const char *name, const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	attr(s, name, buf);
}

static void start(struct svg *s, const char *el)
{
	check(s, xmlTextWriterStartElement(s->w, BAD_CAST el));
}

static void end(struct svg *s)
{
	check(s, xmlTextWriterEndElement(s->w));
}

/* <text> with attributes already given by the caller, then text (raw bytes, cleaned). */
static void text_el(struct svg *s, const char *id, double x, double y, const char *anchor,
		    const char *cls, const char *txt)
{
	start(s, "text");
	if (id) {
		attr(s, "id", id);
	}
	if (cls) {
		attr(s, "class", cls);
	}
	attrf(s, "x", "%.2f", x);
	attrf(s, "y", "%.2f", y);
	if (anchor) {
		attr(s, "text-anchor", anchor);
	}
	gp_strbuf_reset(&s->tmp);
	gpr_flame_add_utf8_(&s->tmp, txt, strlen(txt));
	check(s, xmlTextWriterWriteString(s->w, BAD_CAST s->tmp.buf));
	end(s);
}

/* 0 <= v < 1 from a name, so colours stay put between runs. */
static double name_hash(const char *name)
{
	return (double)(gp_hash_bytes(name, strlen(name)) >> 11) / 9007199254740992.0;
}

/* A colour by what the frame is; leaves by category. */
static void frame_colour(const struct gpa_flame_node *n, const char *name, char *buf, size_t len)
{
	double v = name_hash(name);
	int r, g, b;

	switch (n->kind) {
	case GPA_FRAME_KERNEL:
	case GPA_FRAME_MEMCPY:
	case GPA_FRAME_MEMSET:
		switch (n->category) {
		case GPA_CAT_GEMM: /* hot red-orange */
			r = 225 + (int)(30 * v), g = 60 + (int)(80 * v), b = 40 + (int)(25 * v);
			break;
		case GPA_CAT_ATTENTION: /* purple */
			r = 160 + (int)(40 * v), g = 100 + (int)(40 * v), b = 225 + (int)(30 * v);
			break;
		case GPA_CAT_COMM: /* blue */
			r = 60 + (int)(50 * v), g = 140 + (int)(50 * v), b = 225 + (int)(30 * v);
			break;
		case GPA_CAT_ELEMENTWISE: /* green */
			r = 90 + (int)(60 * v), g = 195 + (int)(45 * v), b = 80 + (int)(40 * v);
			break;
		case GPA_CAT_COPY: /* yellow-brown */
			r = 215 + (int)(35 * v), g = 185 + (int)(35 * v), b = 55 + (int)(45 * v);
			break;
		default: /* orange-tan */
			r = 235 + (int)(20 * v), g = 160 + (int)(40 * v), b = 110 + (int)(40 * v);
			break;
		}
		break;
	case GPA_FRAME_NVTX: /* aqua */
		r = 110 + (int)(60 * v), g = 200 + (int)(30 * v), b = 205 + (int)(30 * v);
		break;
	case GPA_FRAME_CPU: /* pale yellow-green */
		r = 195 + (int)(30 * v), g = 215 + (int)(25 * v), b = 115 + (int)(45 * v);
		break;
	case GPA_FRAME_API: /* salmon */
		r = 240, g = 145 + (int)(45 * v), b = 140 + (int)(40 * v);
		break;
	default: /* grey: root, process, step, thread */
		r = g = b = 195 + (int)(30 * v);
		break;
	}
	snprintf(buf, len, "rgb(%d,%d,%d)", r, g, b);
}

/* flamegraph.pl's differential colouring: red grew, blue shrank, by |delta| / max. */
static void diff_colour(int64_t delta, uint64_t maxd, char *buf, size_t len)
{
	int c = maxd ? (int)(210.0 * (double)(delta < 0 ? -delta : delta) / (double)maxd) : 0;

	if (delta > 0) {
		snprintf(buf, len, "rgb(255,%d,%d)", 255 - c, 255 - c);
	} else if (delta < 0) {
		snprintf(buf, len, "rgb(%d,%d,255)", 255 - c, 255 - c);
	} else {
		snprintf(buf, len, "rgb(250,250,250)");
	}
}

static void add_count(struct gp_strbuf *sb, uint64_t n)
{
	char d[32];
	int len = snprintf(d, sizeof(d), "%" PRIu64, n);

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0) {
			gp_strbuf_addch(sb, ',');
		}
		gp_strbuf_addch(sb, d[i]);
	}
}

static void add_pct(struct gp_strbuf *sb, uint64_t num, uint64_t den)
{
	if (!den) {
		gp_strbuf_adds(sb, "0.00%");
		return;
	}
	gp_strbuf_addf(sb, "%.2f%%", 100.0 * (double)num / (double)den);
}

/* "NAME (1,234 ns, 12.34%, 5 launches)"; differential: "NAME (after A ns, before B ns, +D%)". */
static void title_of(struct svg *s, uint32_t i, struct gp_strbuf *t)
{
	const struct gpa_flame *f = s->f;
	const struct gpa_flame_node *n = &f->nodes.v[i];
	const char *name = gpa_flame_name(f, i);

	gp_strbuf_reset(t);
	gpr_flame_add_utf8_(t, name, strlen(name));
	gp_strbuf_adds(t, " (");
	if (f->diff) {
		gp_strbuf_adds(t, "after ");
		add_count(t, n->total);
		gp_strbuf_adds(t, " ns, before ");
		add_count(t, n->total0);
		gp_strbuf_adds(t, " ns per step, ");
		if (n->total0) {
			double d = 100.0 * ((double)n->total - (double)n->total0) / (double)n->total0;
			gp_strbuf_addf(t, "%+.2f%%", d);
		} else {
			gp_strbuf_adds(t, "new");
		}
		gp_strbuf_adds(t, ")");
		return;
	}
	add_count(t, n->total);
	gp_strbuf_adds(t, " ns, ");
	add_pct(t, n->total, f->nodes.v[0].total);
	gp_strbuf_adds(t, ", ");
	add_count(t, n->count);
	gp_strbuf_adds(t, f->weight == GPA_FLAME_API_TIME ? (n->count == 1 ? " call)" : " calls)")
						     : (n->count == 1 ? " launch)" : " launches)"));
}

/* Code points in s[0, len). */
static size_t utf8_chars(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	}
	return n;
}

/*
 * The part of a kernel name a narrow frame shows, s[*from, *to): without a
 * leading "void ", then without the parameter list "(...)" at its end, then
 * without the namespaces and classes before its own name, each step taken
 * only while the rest does not fit in fit characters. Template arguments
 * stay: they tell instances apart. flame-svg-js.c's short_name() is the same.
 */
static void short_name(const char *s, size_t fit, size_t *from, size_t *to)
{
	size_t a = 0, b = strlen(s);

	if (!strncmp(s, "void ", 5)) {
		a = 5;
	}
	if (utf8_chars(s + a, b - a) > fit && b > a && s[b - 1] == ')') {
		int depth = 0;
		for (size_t i = b; i-- > a;) {
			depth += s[i] == ')' ? 1 : s[i] == '(' ? -1 : 0;
			if (!depth) {
				b = i > a ? i : b; /* "(anonymous)" alone stays */
				break;
			}
		}
	}
	if (utf8_chars(s + a, b - a) > fit) {
		int depth = 0;
		size_t own = a;
		for (size_t i = a; i + 1 < b; i++) {
			depth += (s[i] == '<' || s[i] == '(') ? 1 : (s[i] == '>' || s[i] == ')') ? -1 : 0;
			if (!depth && s[i] == ':' && s[i + 1] == ':') {
				own = i + 2;
			}
		}
		a = own < b ? own : a;
	}
	*from = a;
	*to = b;
}

/*
 * The label that fits w px: the name's distinguishing part (short_name), cut
 * after a word (at "_", "::", "<", ",", " ") with ".." when still too long,
 * or nothing.
 */
static void label_of(const char *name, double w, unsigned font, struct gp_strbuf *out)
{
	size_t fit = w > 6 ? (size_t)((w - 6) / (font * FONT_W)) : 0;
	size_t a, b, chars = 0, cut = 0, word = 0;

	gp_strbuf_reset(out);
	if (fit < 3) {
		return;
	}
	short_name(name, fit, &a, &b);
	if (utf8_chars(name + a, b - a) <= fit) {
		gpr_flame_add_utf8_(out, name + a, b - a);
		return;
	}
	/* Where fit - 2 code points end, and the last word end at or before it. */
	for (size_t i = a; i < b && chars <= fit - 2; i++) {
		if (((unsigned char)name[i] & 0xc0) != 0x80) {
			if (i > a && strchr("_:<, ", name[i - 1]) && name[i] != ':') {
				word = i;
			}
			cut = i;
			chars++;
		}
	}
	if (word && utf8_chars(name + a, word - a) * 2 >= fit - 2) {
		cut = word;
	}
	gpr_flame_add_utf8_(out, name + a, cut - a);
	gp_strbuf_adds(out, "..");
}

static const char css[] =
	"text { font-family: Verdana, sans-serif; fill: rgb(0,0,0); }\n"
	"#title { text-anchor: middle; font-size: 17px; }\n"
	"#subtitle { text-anchor: middle; fill: rgb(160,160,160); }\n"
	"#search, #ignorecase, #unzoom { fill: rgb(0,60,170); cursor: pointer; }\n"
	"#search:hover, #ignorecase:hover, #unzoom:hover { text-decoration: underline; }\n"
	"#search.show { font-weight: bold; }\n"
	"#ignorecase { opacity: 0.5; }\n"
	"#ignorecase.on { opacity: 1; font-weight: bold; }\n"
	"#unzoom.off { opacity: 0.35; cursor: default; text-decoration: none; }\n"
	"#details { fill: rgb(80,80,80); }\n"
	"#frames > *:hover { stroke: black; stroke-width: 0.5; cursor: pointer; }\n"
	".hide { display: none; }\n"
	".parent { opacity: 0.5; }\n"
	".legend { font-size: 11px; }\n";

/* Positions (children left to right in name order), which frames are wide enough, the height. */
static void layout(struct svg *s)
{
	const struct gpa_flame *f = s->f;
	const struct gpa_flame_node *v = f->nodes.v;
	unsigned font = s->o->font_size;
	uint64_t total = f->nodes.n ? v[0].total : 0;

	s->per_unit = total ? ((double)s->o->width - 2 * XPAD) / (double)total : 0;
	if (f->nodes.n) {
		s->x[0] = XPAD;
		s->drawn[0] = total > 0;
	}
	for (size_t i = 0; i < f->nodes.n; i++) {
		double cx = s->x[i];
		for (uint32_t c = v[i].child; c != GPA_NONE; c = v[c].next) {
			s->x[c] = cx;
			cx += (double)v[c].total * s->per_unit;
			s->drawn[c] = s->drawn[i] &&
				      (double)v[c].total * s->per_unit >= s->o->min_width &&
				      v[c].total > 0;
			if (s->drawn[c]) {
				s->maxdepth = v[c].depth > s->maxdepth ? v[c].depth : s->maxdepth;
				if (f->diff) {
					int64_t d = (int64_t)(v[c].total - v[c].total0);
					uint64_t a = d < 0 ? (uint64_t)-d : (uint64_t)d;
					s->maxd = a > s->maxd ? a : s->maxd;
				}
			}
		}
	}
	s->ypad1 = font * 3;
	s->ypad2 = font + 12; /* the details line right under the root: no empty band */
	s->height = (s->maxdepth + 1) * s->o->frame_height + s->ypad1 + s->ypad2 +
		    (f->diff ? 0 : font + 6);
}

/* The document up to the frames: <svg>, gradient, style, scripts, background, title, controls. */
static void write_head(struct svg *s)
{
	const struct gpa_flame *f = s->f;
	const struct gpr_flame_svg_opts *o = s->o;
	unsigned font = o->font_size, height = s->height;
	char buf[256];

	check(s, xmlTextWriterStartDocument(s->w, "1.0", "UTF-8", "no"));
	start(s, "svg");
	attr(s, "version", "1.1");
	attrf(s, "width", "%u", o->width);
	attrf(s, "height", "%u", height);
	attrf(s, "viewBox", "0 0 %u %u", o->width, height);
	attr(s, "onload", "init(evt)");
	attrf(s, "font-size", "%u", font);
	attr(s, "xmlns", "http://www.w3.org/2000/svg");
	attr(s, "xmlns:xlink", "http://www.w3.org/1999/xlink");

	start(s, "defs");
	start(s, "linearGradient");
	attr(s, "id", "background");
	attr(s, "y1", "0");
	attr(s, "y2", "1");
	attr(s, "x1", "0");
	attr(s, "x2", "0");
	start(s, "stop");
	attr(s, "stop-color", f->diff ? "#eeeeee" : "#eeeeee");
	attr(s, "offset", "5%");
	end(s);
	start(s, "stop");
	attr(s, "stop-color", f->diff ? "#e0e0ff" : "#eeeeb0");
	attr(s, "offset", "95%");
	end(s);
	end(s);
	end(s);
	start(s, "style");
	attr(s, "type", "text/css");
	check(s, xmlTextWriterWriteString(s->w, BAD_CAST css));
	end(s);
	start(s, "script");
	attr(s, "type", "text/ecmascript");
	snprintf(buf, sizeof(buf), "\nvar WIDTH = %u, XPAD = %d, FONTSIZE = %u, FONTW = %.2f, "
				   "INVERTED = %d;\n",
		 o->width, XPAD, font, FONT_W, o->inverted ? 1 : 0);
	check(s, xmlTextWriterWriteCDATA(s->w, BAD_CAST buf));
	end(s);
	start(s, "script");
	attr(s, "type", "text/ecmascript");
	check(s, xmlTextWriterWriteCDATA(s->w, BAD_CAST gpr_flame_svg_js_));
	end(s);

	start(s, "rect");
	attr(s, "x", "0");
	attr(s, "y", "0");
	attrf(s, "width", "%u", o->width);
	attrf(s, "height", "%u", height);
	attr(s, "fill", "url(#background)");
	end(s);
	const char *title = o->title ? o->title
			    : f->diff ? "Differential GPU Time Flame Graph"
			    : f->weight == GPA_FLAME_API_TIME ? "CUDA API Time Flame Graph"
			    : f->weight == GPA_FLAME_WALL_SHARE ? "GPU Wall-Time Share Flame Graph"
							       : "GPU Time Flame Graph";
	text_el(s, "title", o->width / 2.0, font * 2, NULL, NULL, title);
	if (o->subtitle) {
		text_el(s, "subtitle", o->width / 2.0, font * 3, NULL, NULL, o->subtitle);
	}
	text_el(s, "details", XPAD, height - s->ypad2 / 2.0 + 4, NULL, NULL, DETAILS_HINT);
	text_el(s, "unzoom", XPAD, font * 2, NULL, "off", "Reset Zoom");
	text_el(s, "search", o->width - XPAD - 100, font * 2, NULL, NULL, "Search");
	text_el(s, "ignorecase", o->width - XPAD - 16, font * 2, NULL, NULL, "ic");
	text_el(s, "matched", o->width - XPAD - 100, height - s->ypad2 / 2.0 + 4, NULL, "hide",
		" ");
}

/* A legend of the leaf categories (not for differential graphs: there colour is change). */
static void write_legend(struct svg *s)
{
	unsigned font = s->o->font_size;
	double lx = XPAD;
	double ly = s->height - s->ypad2 - (s->maxdepth + 1) * s->o->frame_height - font - 4;
	char buf[256];

	if (s->o->inverted) {
		ly = s->ypad1 + (s->maxdepth + 1) * s->o->frame_height + 4;
	}
	for (unsigned c = 1; c <= GPA_CAT__COUNT; c++) {
		unsigned cat = c % GPA_CAT__COUNT; /* other last */
		struct gpa_flame_node n = {.kind = GPA_FRAME_KERNEL, .category = (uint8_t)cat};
		frame_colour(&n, "", buf, sizeof(buf));
		start(s, "rect");
		attrf(s, "x", "%.2f", lx);
		attrf(s, "y", "%.2f", ly);
		attrf(s, "width", "%u", font);
		attrf(s, "height", "%u", font);
		attr(s, "fill", buf);
		end(s);
		text_el(s, NULL, lx + font + 4, ly + font - 2, NULL, "legend",
			gpa_category_name(cat));
		lx += font + 4 + 11 * 0.6 * (strlen(gpa_category_name(cat)) + 2);
	}
}

/* <g id="frames">: each frame drawn, with its title (tooltip), rectangle and label. */
static void write_frames(struct svg *s)
{
	const struct gpa_flame *f = s->f;
	unsigned fh = s->o->frame_height, font = s->o->font_size;
	char buf[256];

	start(s, "g");
	attr(s, "id", "frames");
	for (size_t i = 0; i < f->nodes.n && !s->err; i++) {
		if (!s->drawn[i]) {
			continue;
		}
		const struct gpa_flame_node *n = &f->nodes.v[i];
		double w = (double)n->total * s->per_unit;
		double y = s->o->inverted
				   ? s->ypad1 + (double)n->depth * fh
				   : (double)s->height - s->ypad2 - (double)(n->depth + 1) * fh;
		const char *name = gpa_flame_name(f, (uint32_t)i);
		start(s, "g");
		start(s, "title");
		title_of(s, (uint32_t)i, &s->tmp);
		check(s, xmlTextWriterWriteString(s->w, BAD_CAST s->tmp.buf));
		end(s);
		start(s, "rect");
		attrf(s, "x", "%.2f", s->x[i]);
		attrf(s, "y", "%.1f", y);
		attrf(s, "width", "%.2f", w);
		attrf(s, "height", "%.1f", fh - 1.0);
		if (f->diff) {
			diff_colour((int64_t)(n->total - n->total0), s->maxd, buf, sizeof(buf));
		} else {
			frame_colour(n, name, buf, sizeof(buf));
		}
		attr(s, "fill", buf);
		attr(s, "rx", "2");
		attr(s, "ry", "2");
		end(s);
		start(s, "text");
		attrf(s, "x", "%.2f", s->x[i] + 3);
		attrf(s, "y", "%.1f", y + fh / 2.0 + font / 3.0 + 0.5);
		label_of(name, w, font, &s->tmp);
		check(s, xmlTextWriterWriteString(s->w, BAD_CAST s->tmp.buf));
		end(s);
		end(s);
	}
	end(s); /* frames */
}

int gpr_flame_svg(struct gp_strbuf *out, const struct gpa_flame *f,
		  const struct gpr_flame_svg_opts *o, char *errbuf, size_t errlen)
{
	struct svg s = {.f = f, .o = o};
	xmlBufferPtr xb = NULL;
	unsigned fh = o->frame_height, font = o->font_size;
	int ret = 0;

	if (o->width < 2 * XPAD + 10 || o->width > 1000000 || fh < 4 || fh > 1000 || font < 4 ||
	    font > 200 || !(o->min_width >= 0) || o->min_width > o->width) {
		snprintf(errbuf, errlen, "bad SVG size options");
		return -GP_ERR_API;
	}
	gp_strbuf_init(&s.tmp);
	s.x = calloc(f->nodes.n + 1, sizeof(*s.x));
	s.drawn = calloc(f->nodes.n + 1, 1);
	xb = xmlBufferCreate();
	if (!s.x || !s.drawn || !xb) {
		ret = -GP_ERR_NOMEM;
		goto out;
	}
	layout(&s);
	s.w = xmlNewTextWriterMemory(xb, 0);
	if (!s.w) {
		ret = -GP_ERR_NOMEM;
		goto out;
	}
	write_head(&s);
	if (!f->diff) {
		write_legend(&s);
	}
	write_frames(&s);
	end(&s); /* svg */
	check(&s, xmlTextWriterEndDocument(s.w));
	xmlFreeTextWriter(s.w);
	s.w = NULL;
	ret = s.err;
	if (!ret && !s.tmp.failed) {
		gp_strbuf_add(out, xmlBufferContent(xb), (size_t)xmlBufferLength(xb));
		ret = out->failed ? -GP_ERR_NOMEM : 0;
	} else if (!ret) {
		ret = -GP_ERR_NOMEM;
	}
out:
	if (s.w) {
		xmlFreeTextWriter(s.w);
	}
	if (xb) {
		xmlBufferFree(xb);
	}
	gp_strbuf_release(&s.tmp);
	free(s.x);
	free(s.drawn);
	if (ret == -GP_ERR_NOMEM) {
		snprintf(errbuf, errlen, "out of memory writing the SVG");
	}
	return ret;
}
