/* SPDX-License-Identifier: MIT */
/*
 * report.h - the public header of report/: renderers of analysis results.
 * Renderers format only and decide nothing. Each output format is a sink
 * whose first member is struct gpr_sink (the ops table); output accumulates
 * in a string buffer the caller writes out, so rendering never does I/O.
 */
#ifndef GPR_REPORT_H
#define GPR_REPORT_H

#include "base/base.h"
#include "analyze/analyze.h"

enum gpr_format {
	GPR_FORMAT_TEXT = 0,
	GPR_FORMAT_JSON = 1,
	GPR_FORMAT_CSV = 2,
	GPR_FORMAT_MARKDOWN = 3,
};

/* "text", "table" (same as text), "json", "csv", "markdown"/"md"; -1 when unknown. */
int gpr_format_parse(const char *name);

struct gpr_sink;

struct gpr_sink_ops {
	const char *name;
	/* Called once before the first result and once after the last. */
	void (*begin)(struct gpr_sink *s);
	void (*file_info)(struct gpr_sink *s, const struct gpa_file_info *fi);
	void (*end)(struct gpr_sink *s);
};

struct gpr_sink {
	const struct gpr_sink_ops *ops;
	struct gp_strbuf *out; /* borrowed; where the text goes */
	unsigned items;        /* results rendered so far */
};

/* A sink for fmt writing into out (borrowed until the sink is freed). */
int gpr_sink_new(enum gpr_format fmt, struct gp_strbuf *out, struct gpr_sink **sink);
void gpr_sink_free(struct gpr_sink *s);

/* ---- tables: one layout, rendered as aligned text, CSV, JSON or Markdown */

enum gpr_col_flags {
	GPR_COL_NUM = 1 << 0,   /* right-aligned; a JSON number (cells must be valid numbers) */
	GPR_COL_LEFT = 1 << 1,  /* left-aligned even if numeric */
};

struct gpr_col {
	const char *name; /* header, e.g. "Total Time (ns)"; also the JSON key */
	unsigned flags;   /* enum gpr_col_flags */
};

/*
 * A table of string cells. Text output aligns columns under a header line
 * and a rule; CSV quotes per RFC 4180; JSON is an array of objects keyed by
 * the column names (numeric columns unquoted, "" cells in them -> null);
 * Markdown is a pipe table with '|' escaped. Build with _init, _cell*,
 * render, then _release.
 */
struct gpr_table {
	const struct gpr_col *cols; /* borrowed */
	size_t ncols;
	GP_VEC(char *) cells;       /* row-major, owned */
	bool failed;
};

void gpr_table_init(struct gpr_table *t, const struct gpr_col *cols, size_t ncols);
void gpr_table_release(struct gpr_table *t);
/* Appends the next cell (rows fill left to right, then wrap). */
GP_PRINTF(2, 3) void gpr_table_cellf(struct gpr_table *t, const char *fmt, ...);
void gpr_table_cell(struct gpr_table *t, const char *s);
size_t gpr_table_rows(const struct gpr_table *t);
/* Renders into out; for JSON the array alone. Returns -GP_ERR_NOMEM or 0. */
int gpr_table_render(const struct gpr_table *t, enum gpr_format fmt, struct gp_strbuf *out);

/* ---- formatting helpers shared by renderers */

/* Exact seconds with nine decimals: 1234567890 -> "1.234567890 s". */
void gpr_fmt_ns(struct gp_strbuf *sb, uint64_t ns);
/* A duration for people: "12.3 ms", "850 ns", "4.20 s" (for summaries, not data). */
void gpr_fmt_dur_human(struct gp_strbuf *sb, uint64_t ns);
/* Bytes in binary units: "1.50 GiB", "512 B". */
void gpr_fmt_bytes(struct gp_strbuf *sb, uint64_t bytes);
/* A count with thousands separators: 1234567 -> "1,234,567". */
void gpr_fmt_count(struct gp_strbuf *sb, uint64_t n);
/* A CUDA version number (13000 -> "13.0"); "unknown" for 0. */
void gpr_fmt_cuda_version(struct gp_strbuf *sb, uint32_t v);

#endif /* GPR_REPORT_H */
