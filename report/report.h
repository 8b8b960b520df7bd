/* SPDX-License-Identifier: MIT */
/*
 * report.h - the public header of report/: renderers of analysis results.
 * Renderers format only and decide nothing. Most are plain functions, one or
 * a few per analysis, that append to a string buffer the caller writes out:
 * tabular results fill a struct gpr_table, which renders the same layout as
 * aligned text, CSV, JSON or Markdown; the report, diff, flame graph and
 * HTML renderers write their own formats. `gpuprof info` alone goes through
 * a sink per output format (struct gpr_sink and its ops table). The two
 * exports (Perfetto JSON, nsys-compatible SQLite) are the only renderers
 * that write a file themselves, at a path the caller gives.
 *
 * This header holds what every renderer shares: the output formats, the
 * sink, tables, formatting helpers, time units and the implausible-data
 * notes. Each renderer's functions are in a header of its concern, which
 * includes this one: report/summary.h (the report), html.h, job.h,
 * stats.h, gaps.h, comm.h, launches.h, breakdown.h, occupancy.h, mfu.h,
 * critpath.h, diff.h, flame-graph.h, export.h, ops.h, memory.h, verdict.h.
 */
#ifndef GPR_REPORT_H
#define GPR_REPORT_H

#include "base/base.h"

/* Analysis results, borrowed by the renderers (analyze/NAME.h). */
struct gpa_file_info;
struct gpa_model;

enum gpr_format {
	GPR_FORMAT_TEXT = 0,
	GPR_FORMAT_JSON = 1,
	GPR_FORMAT_CSV = 2,
	GPR_FORMAT_MARKDOWN = 3,
};

/* "text", "table" (same as text), "json", "csv", "markdown"/"md"; -1 when unknown. */
int gpr_format_parse(const char *name);

struct gpr_sink;

/*
 * How text and Markdown show numbers and names. A command resolves it once
 * from its options (--timeunit, --wide, the terminal's width) and passes it
 * to the renderers, which pass it to the helpers below; nothing keeps it
 * process-wide, so two callers with different displays do not interfere.
 * NULL, like the all-zero struct, is the default: scaled units, names whole,
 * no width limit.
 */
struct gpr_display {
	bool exact;     /* times as exact integer nanoseconds */
	uint64_t scale; /* 1000, 1e6, 1e9: times in us, ms or s, exact decimals; 0: not fixed */
	bool wide;      /* names whole, whatever the width */
	unsigned width; /* columns text tables fit into; 0: no limit */
};

struct gpr_sink_ops {
	const char *name;
	/* Called once before the first result and once after the last. */
	void (*begin)(struct gpr_sink *s);
	void (*file_info)(struct gpr_sink *s, const struct gpa_file_info *fi);
	void (*end)(struct gpr_sink *s);
};

struct gpr_sink {
	const struct gpr_sink_ops *ops;
	struct gp_strbuf *out;             /* borrowed; where the text goes */
	const struct gpr_display *display; /* borrowed; NULL: the default */
	unsigned items;                    /* results rendered so far */
};

/* A sink for fmt writing into out, text as d says (both borrowed until the sink is freed). */
int gpr_sink_new(enum gpr_format fmt, const struct gpr_display *d, struct gp_strbuf *out,
		 struct gpr_sink **sink);
void gpr_sink_free(struct gpr_sink *s);

/* ---- tables: one layout, rendered as aligned text, CSV, JSON or Markdown */

enum gpr_col_flags {
	GPR_COL_NUM = 1 << 0,   /* right-aligned; a JSON number (cells must be valid numbers) */
	GPR_COL_LEFT = 1 << 1,  /* left-aligned even if numeric */
	/*
	 * What the cells hold, for text and Markdown (CSV and JSON print cells as
	 * they are): NS nanoseconds, shown in scaled units ("15.2 µs") unless the
	 * display is exact, the header's " (ns)" dropped then (a header ending in
	 * " (ns)" sets it by itself); COUNT integers with thousands separators;
	 * BYTES bytes in KiB, MiB, GiB; NAME a kernel or range name that text
	 * shortens to fit the display width (gpr_fmt_name_fit).
	 */
	GPR_COL_NS = 1 << 2,
	GPR_COL_COUNT = 1 << 3,
	GPR_COL_BYTES = 1 << 4,
	GPR_COL_NAME = 1 << 5,
	GPR_COL_ELIDE = 1 << 6, /* free text cut between words to fit (gpr_fmt_elide_words) */
	/* HTML: a secondary column, shown in the row's expandable "Details" cell. */
	GPR_COL_DETAIL = 1 << 7,
	GPR_COL_FLOPS = 1 << 8, /* floating-point operations: "346.0 GFLOP" in text */
	/* with _BYTES or _FLOPS: the cells count millions (a header's " (MB)"), billions ("GFLOPs") */
	GPR_COL_E6 = 1 << 9,
	GPR_COL_E9 = 1 << 10,
};

struct gpr_col {
	const char *name; /* header, e.g. "Total Time (ns)": text, CSV, Markdown */
	unsigned flags;   /* enum gpr_col_flags */
	/*
	 * The JSON key, e.g. "total_time_ns": lower snake_case with the unit as a
	 * suffix (docs/json.md). Written here, never derived from the heading,
	 * so a heading may change without changing any JSON document.
	 */
	const char *json;
};

/*
 * A table of string cells. Text output aligns columns under a header line
 * and a rule; CSV quotes per RFC 4180; JSON is an array of objects keyed by
 * the columns' JSON keys (numeric columns unquoted, "" cells in them -> null);
 * Markdown is a pipe table with '|' escaped. Build with _init, _cell*,
 * render, then _release.
 */
struct gpr_table {
	const struct gpr_col *cols; /* borrowed */
	size_t ncols;
	GP_VEC(char *) cells;       /* row-major, owned */
	GP_VEC(unsigned) cflags;    /* per cell: what a typed cell holds (gpr_table_cell_as) */
	bool failed;
};

void gpr_table_init(struct gpr_table *t, const struct gpr_col *cols, size_t ncols);
void gpr_table_release(struct gpr_table *t);
/* Appends the next cell (rows fill left to right, then wrap). */
GP_PRINTF(2, 3) void gpr_table_cellf(struct gpr_table *t, const char *fmt, ...);
void gpr_table_cell(struct gpr_table *t, const char *s);
/*
 * A cell whose number is of the kind flags says (GPR_COL_NS, _COUNT, _BYTES,
 * _FLOPS), for a column whose rows hold different kinds (a key/value table):
 * text and Markdown show it in units, CSV and JSON as written.
 */
GP_PRINTF(3, 4) void gpr_table_cell_as(struct gpr_table *t, unsigned flags, const char *fmt, ...);
/* A percentage cell (gpr_fmt_pct): empty when den is 0. */
void gpr_table_cell_pct(struct gpr_table *t, uint64_t num, uint64_t den);
size_t gpr_table_rows(const struct gpr_table *t);
/*
 * Writes t as one section of a multi-table document and releases it: text
 * "\n<title>\n\n" then the table, Markdown "\n### <title>\n\n", JSON
 * ",\n\"<key>\":" then the array (the caller opened the object), CSV a blank
 * line between tables (first: the first section). Returns gpr_table_render's result.
 */
int gpr_table_section(struct gpr_table *t, enum gpr_format fmt, const struct gpr_display *d,
		      const char *title, const char *key, bool first, struct gp_strbuf *out);
/*
 * Renders into out, text and Markdown as d says (units, width, wide); for
 * JSON the array alone. Returns -GP_ERR_NOMEM or 0.
 */
int gpr_table_render(const struct gpr_table *t, enum gpr_format fmt, const struct gpr_display *d,
		     struct gp_strbuf *out);

/* ---- formatting helpers shared by renderers (report/format.c, docs/units.md) */

/* d, or the default display when d is NULL (never NULL). */
const struct gpr_display *gpr_display_or_default(const struct gpr_display *d);

/*
 * A duration for people, 3 or 4 significant digits in the unit that keeps it
 * under 1000: "850 ns", "15.2 µs", "431.8 ms", "1.234 s"; "N ns" exactly when
 * d is exact, exact decimals in d's fixed unit.
 */
void gpr_fmt_ns(struct gp_strbuf *sb, const struct gpr_display *d, uint64_t ns);
/* Exact seconds with nine decimals, for text inside JSON: 1234567890 -> "1.234567890 s". */
void gpr_fmt_secs(struct gp_strbuf *sb, uint64_t ns);
/* The scaled form alone, whatever the display (a fraction of a ns rounds; negative: "-"). */
void gpr_fmt_time_human(struct gp_strbuf *sb, double ns);
/*
 * A table cell of a column with GPR_COL_NS, _COUNT or _BYTES in flags, as
 * text shows it: appends it and returns true, or false when the cell stays
 * as it is (not a number, or an exact display of times).
 */
bool gpr_fmt_cell(struct gp_strbuf *sb, const struct gpr_display *d, const char *cell,
		  unsigned flags);
/* A header as text shows it ("Time (ns)" -> "Time" for scaled times); false: unchanged. */
bool gpr_fmt_header(struct gp_strbuf *sb, const struct gpr_display *d, const char *name,
		    unsigned flags);
/* Display width of UTF-8 text in code points. */
size_t gpr_text_width(const char *s);
/*
 * Wraps the text sb holds from offset from on (one line, no newline) at spaces
 * so that no line is wider than d's width (nothing without a width); new
 * lines start with indent spaces.
 */
void gpr_text_wrap(struct gp_strbuf *sb, const struct gpr_display *d, size_t from, size_t indent);
/* gpr_text_wrap for every line from offset from on. */
void gpr_text_wrap_lines(struct gp_strbuf *sb, const struct gpr_display *d, size_t from,
			 size_t indent);
/*
 * name in at most maxw columns (0: no limit, as for a wide display): whole
 * when it fits, else its identifying part (scope and function, without return
 * type, template arguments and parameters), else that with its middle elided
 * by "…".
 */
void gpr_fmt_name_fit(struct gp_strbuf *sb, const char *name, size_t maxw);
/*
 * The names of a table's rows, each fitted as gpr_fmt_name_fit does, except
 * where two different names would then read the same: those keep the part
 * where they differ (template arguments, suffixes) after their identifying
 * part, and elide what they share. out[0..n) receives one string per name,
 * which the caller frees. Returns 0 or -GP_ERR_NOMEM (out then untouched).
 */
int gpr_fmt_names_fit(char **out, const char *const *names, size_t n, size_t maxw);
/* s in at most maxw columns (0: no limit), its middle elided by "…" when longer. */
void gpr_fmt_elide(struct gp_strbuf *sb, const char *s, size_t maxw);
/* Free text: whole words from the start then "…" (half of maxw or more), else gpr_fmt_elide. */
void gpr_fmt_elide_words(struct gp_strbuf *sb, const char *s, size_t maxw);
/* Bytes in binary units: "1.50 GiB", "512 B". */
void gpr_fmt_bytes(struct gp_strbuf *sb, uint64_t bytes);
/* Floating-point operations in SI units: 2.36053e11 -> "236.1 GFLOP", 812 -> "812 FLOP". */
void gpr_fmt_flops(struct gp_strbuf *sb, double flops);
/* A count with thousands separators: 1234567 -> "1,234,567". */
void gpr_fmt_count(struct gp_strbuf *sb, uint64_t n);
/* n and its noun, n with separators: (8921, "gap", "gaps") -> "8,921 gaps", 1 -> "1 gap". */
void gpr_fmt_counted(struct gp_strbuf *sb, uint64_t n, const char *one, const char *many);
/* num / den as a percentage with two decimals, rounded half up; nothing when den is 0. */
void gpr_fmt_pct(struct gp_strbuf *sb, uint64_t num, uint64_t den);
/*
 * A JSON key made from a name and a unit suffix, then ':': "data-loading", "_ns" ->
 * "data_loading_ns": (docs/json.md: keys are snake_case, the unit last). name holds
 * only lower-case letters, digits, '_' and '-' (an enum's name).
 */
void gpr_json_key(struct gp_strbuf *sb, const char *name, const char *suffix);
/* A CUDA version number (13000 -> "13.0"); "unknown" for 0. */
void gpr_fmt_cuda_version(struct gp_strbuf *sb, uint32_t v);

/* ---- time units of the stats reports and tables (docs/stats.md, docs/units.md) */

enum gpr_time_unit {
	GPR_TIME_NS = 0,
	GPR_TIME_US = 1,
	GPR_TIME_MS = 2,
	GPR_TIME_S = 3,
	GPR_TIME_AUTO = 4, /* text and Markdown in scaled units (gpr_fmt_cell); else as NS */
};

/* "nsec" or "ns", "usec", "msec", "sec" or "seconds" (nsys's spellings), "auto"; -1 unknown. */
int gpr_time_unit_parse(const char *name);

/* ---- implausible data, every command (report/sanity.c, docs/reliability.md) */
struct gpa_sanity;
/* "sanity":{counts} into o. */
void gpr_sanity_json(struct gp_strbuf *o, const struct gpa_sanity *s);
/* m's implausible-data warnings added to out, a JSON object or Markdown; 0 or -GP_ERR_NOMEM. */
int gpr_sanity_append(struct gp_strbuf *out, enum gpr_format fmt, const struct gpa_model *m);
/* The same for an output written in pieces: out is the last, closing the JSON object. */
int gpr_sanity_append_end(struct gp_strbuf *out, enum gpr_format fmt, const struct gpa_model *m);

#endif /* GPR_REPORT_H */
