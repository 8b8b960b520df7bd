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
 */
#ifndef GPR_REPORT_H
#define GPR_REPORT_H

#include "base/base.h"
#include "analyze/mfu.h" /* enum gpa_dtype */

/* Analysis results, borrowed by the renderers (analyze/NAME.h). */
struct gpa_breakdown;
struct gpa_critpath;
struct gpa_comm;
struct gpa_devrow;
struct gpa_diff_result;
struct gpa_file_info;
struct gpa_findings;
struct gpa_flame;
struct gpa_gap;
struct gpa_gaps;
struct gpa_mfu;
struct gpa_model;
struct gpa_occupancy;
struct gpa_overview;
struct gpa_stats;
struct gpa_steps;

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
/* A percentage cell (gpr_fmt_pct): empty when den is 0. */
void gpr_table_cell_pct(struct gpr_table *t, uint64_t num, uint64_t den);
size_t gpr_table_rows(const struct gpr_table *t);
/*
 * Writes t as one section of a multi-table document and releases it: text
 * "\n<title>\n\n" then the table, Markdown "\n### <title>\n\n", JSON
 * ",\n\"<key>\":" then the array (the caller opened the object), CSV a blank
 * line between tables (first: the first section). Returns gpr_table_render's result.
 */
int gpr_table_section(struct gpr_table *t, enum gpr_format fmt, const char *title,
		      const char *key, bool first, struct gp_strbuf *out);
/* Renders into out; for JSON the array alone. Returns -GP_ERR_NOMEM or 0. */
int gpr_table_render(const struct gpr_table *t, enum gpr_format fmt, struct gp_strbuf *out);

/* ---- formatting helpers shared by renderers (report/format.c, docs/units.md) */

/*
 * How text and Markdown show numbers and names, for the whole process: the
 * command line sets it once (--timeunit ns, --wide, the terminal's width).
 * The default (all zero) is scaled units and names never shortened.
 */
struct gpr_display {
	bool exact;     /* times as exact integer nanoseconds */
	bool wide;      /* names whole, whatever the width */
	unsigned width; /* columns text tables fit into; 0: no limit */
};

void gpr_display_set(const struct gpr_display *d);
const struct gpr_display *gpr_display_get(void);

/*
 * A duration for people, 3 or 4 significant digits in the unit that keeps it
 * under 1000: "850 ns", "15.2 µs", "431.8 ms", "1.234 s"; "N ns" exactly when
 * the display is exact.
 */
void gpr_fmt_ns(struct gp_strbuf *sb, uint64_t ns);
/* Exact seconds with nine decimals, for text inside JSON: 1234567890 -> "1.234567890 s". */
void gpr_fmt_secs(struct gp_strbuf *sb, uint64_t ns);
/* The scaled form alone, whatever the display (a fraction of a ns rounds; negative: "-"). */
void gpr_fmt_time_human(struct gp_strbuf *sb, double ns);
/*
 * A table cell of a column with GPR_COL_NS, _COUNT or _BYTES in flags, as
 * text shows it: appends it and returns true, or false when the cell stays
 * as it is (not a number, or an exact display of times).
 */
bool gpr_fmt_cell(struct gp_strbuf *sb, const char *cell, unsigned flags);
/* A header as text shows it ("Time (ns)" -> "Time" for scaled times); false: unchanged. */
bool gpr_fmt_header(struct gp_strbuf *sb, const char *name, unsigned flags);
/* Display width of UTF-8 text in code points. */
size_t gpr_text_width(const char *s);
/*
 * Wraps the text sb holds from offset from on (one line, no newline) at spaces
 * so that no line is wider than the display (nothing without a width); new
 * lines start with indent spaces.
 */
void gpr_text_wrap(struct gp_strbuf *sb, size_t from, size_t indent);
/* gpr_text_wrap for every line from offset from on. */
void gpr_text_wrap_lines(struct gp_strbuf *sb, size_t from, size_t indent);
/*
 * name in at most maxw columns (0: no limit; the display's wide: whole): whole
 * when it fits, else its identifying part (scope and function, without return
 * type, template arguments and parameters), else that with its middle elided
 * by "…".
 */
void gpr_fmt_name_fit(struct gp_strbuf *sb, const char *name, size_t maxw);
/* s in at most maxw columns (0: no limit), its middle elided by "…" when longer. */
void gpr_fmt_elide(struct gp_strbuf *sb, const char *s, size_t maxw);
/* Free text: whole words from the start then "…" (half of maxw or more), else gpr_fmt_elide. */
void gpr_fmt_elide_words(struct gp_strbuf *sb, const char *s, size_t maxw);
/* Bytes in binary units: "1.50 GiB", "512 B". */
void gpr_fmt_bytes(struct gp_strbuf *sb, uint64_t bytes);
/* A count with thousands separators: 1234567 -> "1,234,567". */
void gpr_fmt_count(struct gp_strbuf *sb, uint64_t n);
/* num / den as a percentage with two decimals, rounded half up; nothing when den is 0. */
void gpr_fmt_pct(struct gp_strbuf *sb, uint64_t num, uint64_t den);
/* A CUDA version number (13000 -> "13.0"); "unknown" for 0. */
void gpr_fmt_cuda_version(struct gp_strbuf *sb, uint32_t v);

/* ---- stats: the nsys `stats` reports (docs/stats.md) */

enum gpr_time_unit {
	GPR_TIME_NS = 0,
	GPR_TIME_US = 1,
	GPR_TIME_MS = 2,
	GPR_TIME_S = 3,
	GPR_TIME_AUTO = 4, /* text and Markdown in scaled units (gpr_fmt_cell); else as NS */
};

/* "nsec" or "ns", "usec", "msec", "sec" or "seconds" (nsys's spellings), "auto"; -1 unknown. */
int gpr_time_unit_parse(const char *name);

/*
 * Renders computed stats reports, one after another, as one document: text
 * (a title line, then an aligned table, per report), CSV (one header row
 * and its rows per report, blank lines between), Markdown (a heading and a
 * pipe table per report) or JSON ({"reports": [{"report", "title",
 * "timeunit", "rows": [...]}, ...]}). Cells follow gpr_table's conventions
 * (empty cells are JSON null). Output comes in parts so that a trace of
 * millions of GPU ops never sits in memory twice:
 *
 *   gpr_stats_writer_new(fmt, unit, &w);
 *   for each report: gpr_stats_writer_start(w, m, st);
 *                    while ((r = gpr_stats_writer_next(w, &out)) > 0) { write out; reset out; }
 *   gpr_stats_writer_finish(w, &out); gpr_stats_writer_free(w);
 *
 * Times are printed in the chosen unit with every digit the value has:
 * integer nanoseconds exactly (3, 6 or 9 decimals in us, ms, s), averages,
 * medians and standard deviations rounded half away from zero to 0.1 ns (one
 * more decimal). Sizes are in MB of 10^6 bytes on the same rules.
 */
struct gpr_stats_writer;

int gpr_stats_writer_new(enum gpr_format fmt, enum gpr_time_unit unit,
			 struct gpr_stats_writer **out);
void gpr_stats_writer_free(struct gpr_stats_writer *w);
/* Starts the next report; m and st are borrowed until _next returns 0. */
int gpr_stats_writer_start(struct gpr_stats_writer *w, const struct gpa_model *m,
			   const struct gpa_stats *st);
/*
 * Appends the next part of the current report to out: returns 1 while more
 * follows, 0 once the report is complete, -GP_ERR_API without a started
 * report, -GP_ERR_NOMEM.
 */
int gpr_stats_writer_next(struct gpr_stats_writer *w, struct gp_strbuf *out);
/* Ends the document (JSON's closing brackets) after the last report. */
int gpr_stats_writer_finish(struct gpr_stats_writer *w, struct gp_strbuf *out);

/* ---- end stats */

/* ---- gaps: idle gaps and their causes (report/gaps.c, docs/gaps.md) */

/* The tables of a gaps result, as a mask. */
enum gpr_gaps_tables {
	GPR_GAPS_DEVICES = 1 << 0,   /* per device: window, busy, idle, busy %, gaps */
	GPR_GAPS_CAUSES = 1 << 1,    /* idle by cause: time, share, count */
	GPR_GAPS_HISTOGRAM = 1 << 2, /* gap lengths in log-scale buckets */
	GPR_GAPS_LONGEST = 1 << 3,   /* the longest gaps with cause, evidence, step, context */
	GPR_GAPS_STEPS = 1 << 4,     /* per device and step */
	GPR_GAPS_DEFAULT = GPR_GAPS_DEVICES | GPR_GAPS_CAUSES | GPR_GAPS_HISTOGRAM |
			   GPR_GAPS_LONGEST,
};

/* "devices", "causes", "histogram", "gaps", "steps" -> one GPR_GAPS_* bit; -1 when unknown. */
int gpr_gaps_table_parse(const char *name);
/* A cause in words ("host synchronization"); "unknown" when out of range. */
const char *gpr_gap_cause_label(unsigned cause);
/* Appends what explains one gap, in words: "cudaStreamSynchronize on thread 42 (python3)". */
void gpr_gap_evidence(struct gp_strbuf *sb, const struct gpa_model *m, const struct gpa_gap *g);
/* Appends a device's label: its ordinal, after "RANK:" (or "pPID:") with several processes. */
void gpr_gap_device_label(struct gp_strbuf *sb, const struct gpa_model *m, uint16_t dev);

/*
 * Fills t (initialized here; caller releases with gpr_table_release) with
 * one table (a single GPR_GAPS_* bit) of g. m and steps are those g was
 * computed from; steps may be NULL. Times are exact integer nanoseconds,
 * starts relative to the model's first event (m->t0); percentages have two
 * decimals. Returns 0, -GP_ERR_API for a bad table, -GP_ERR_NOMEM.
 */
int gpr_gaps_table(struct gpr_table *t, unsigned table, const struct gpa_model *m,
		   const struct gpa_steps *steps, const struct gpa_gaps *g);

/*
 * Appends the tables in mask 'tables' to out: text (a summary line, then a
 * title and an aligned table per section), Markdown (headings and pipe
 * tables), CSV (one header row and its rows per table, blank lines between)
 * or JSON (one object: "options", "totals", then one array per table).
 */
int gpr_gaps_render(struct gp_strbuf *out, enum gpr_format fmt, unsigned tables,
		    const struct gpa_model *m, const struct gpa_steps *steps,
		    const struct gpa_gaps *g);

/* ---- end gaps */

/* ---- communication (report/comm.c, docs/comm.md) */

enum gpr_comm_tables {
	GPR_COMM_COLLS = 1 << 0,   /* collectives by type and size: bandwidth */
	GPR_COMM_EXPOSED = 1 << 1, /* exposed communication per device and step */
	GPR_COMM_RANKS = 1 << 2,   /* arrival and waiting per rank */
	GPR_COMM_ALL = 7,
};

/*
 * Fills t (initialized here; caller releases) with one table (a single
 * GPR_COMM_* bit) of c; totals_only keeps the per-device totals of the
 * exposed table. Returns 0 or -GP_ERR_API for a bad table.
 */
int gpr_comm_table(struct gpr_table *t, unsigned table, const struct gpa_model *m,
		   const struct gpa_steps *steps, const struct gpa_comm *c, bool totals_only);
/* Whether c found any NCCL operation or communication kernel. */
bool gpr_comm_has_data(const struct gpa_comm *c);
/*
 * Appends the summary and the tables in mask 'tables': text and Markdown
 * (summary lines, then a title and a table per section), CSV (tables
 * separated by blank lines), JSON (one object: "summary", then one array
 * per table).
 */
int gpr_comm_render(struct gp_strbuf *out, enum gpr_format fmt, unsigned tables,
		    const struct gpa_model *m, const struct gpa_steps *steps, const struct gpa_comm *c);

/* ---- implausible data, every command (report/sanity.c, docs/reliability.md) */
struct gpa_sanity;
/* "sanity":{counts} into o. */
void gpr_sanity_json(struct gp_strbuf *o, const struct gpa_sanity *s);
/* m's implausible-data warnings added to out, a JSON object or Markdown; 0 or -GP_ERR_NOMEM. */
int gpr_sanity_append(struct gp_strbuf *out, enum gpr_format fmt, const struct gpa_model *m);
/* The same for an output written in pieces: out is the last, closing the JSON object. */
int gpr_sanity_append_end(struct gp_strbuf *out, enum gpr_format fmt, const struct gpa_model *m);

/* ---- report: the one-stop answer (report/summary.c, docs/report.md) */

/* ---- launch and queue analytics (report/launches.c, docs/launches.md) */
struct gpa_launches;
enum gpr_launch_tables {
	GPR_LAUNCH_SUMMARY = 1 << 0, /* call, delay and GPU duration distributions, counts */
	GPR_LAUNCH_NAMES = 1 << 1,   /* the same per kernel name (top N by launches) */
	GPR_LAUNCH_QUEUES = 1 << 2,  /* queue length per stream, time blocked on a full queue */
	GPR_LAUNCH_COPIES = 1 << 3,  /* copy bandwidth per kind */
	GPR_LAUNCH_IDLE = 1 << 4,    /* idle intervals per stream and category */
	GPR_LAUNCH_ANNOTS = 1 << 5,  /* GPU-side user annotations */
	GPR_LAUNCH_ALL = (1 << 6) - 1,
	GPR_LAUNCH_BRIEF = 1 << 6,   /* the report's section: call, delay, short kernels */
};

/* "summary", "kernels", "queues", "copies", "idle", "annotations" -> a bit; -1 unknown. */
int gpr_launches_table_parse(const char *name);
/* Fills t (caller releases) with one GPR_LAUNCH_* table. 0, -GP_ERR_API, -GP_ERR_NOMEM. */
int gpr_launches_table(struct gpr_table *t, unsigned table, const struct gpa_model *m,
		       const struct gpa_launches *l);
/* The tables in mask: text, Markdown, CSV, or one JSON object (schema gpuprof-launches/1). */
int gpr_launches_render(struct gp_strbuf *out, enum gpr_format fmt, unsigned mask,
			const struct gpa_model *m, const struct gpa_launches *l);

struct gpr_report_parts {
	const struct gpa_model *m;
	const struct gpa_steps *steps;
	const struct gpa_overview *ov;
	const struct gpa_gaps *gaps;
	const struct gpa_stats *kernels; /* a cuda_gpu_kern_sum result */
	size_t top_kernels;              /* kernel rows shown */
	size_t max_steps;                /* step rows shown in text and Markdown (JSON: all) */
	/* Kernel efficiency (docs/occupancy.md, docs/mfu.md); NULL or empty: sections left out. */
	const struct gpa_occupancy *occ; /* "Theoretical occupancy" (top_kernels groups) */
	const struct gpa_mfu *mfu;       /* "Utilization" (with FLOPs or bytes), "Copy bandwidth" */
	enum gpa_dtype mfu_dtype;
	const struct gpa_comm *comm;     /* Communication sections when it has data; NULL: none */
	const struct gpa_memory *memory; /* "GPU memory" when it has events; NULL: none */
	const struct gpa_findings *findings; /* the Findings section; NULL: none */
	const struct gpa_bound_verdict *verdict;   /* the headline's bound (critical path); NULL: none */
	const struct gpa_launches *launches; /* the Launches section; NULL or no launches: none */
	/* "Top operators by GPU time" (report/ops.c); NULL or no recorded shapes: none */
	const struct gpa_ops *ops;
};

/*
 * Renders the report: what was traced; the step table and its
 * distribution; GPU busy and idle by cause; the top kernels by GPU time;
 * memory traffic; the longest gaps; warnings. Text, Markdown or JSON (one
 * object, schema in docs/report.md).
 */
int gpr_report_render(struct gp_strbuf *out, enum gpr_format fmt,
		      const struct gpr_report_parts *p);

/*
 * Calls fn for each section table of the report, in order (the tables the
 * text, Markdown and JSON renderings show; fmt picks the JSON row limits):
 * title for people, key as in the JSON. Stops at the first non-zero return
 * and returns it; -GP_ERR_NOMEM when a table could not be built.
 */
int gpr_report_each_table(const struct gpr_report_parts *p, enum gpr_format fmt,
			  int (*fn)(void *data, const char *title, const char *key,
				    const struct gpr_table *t),
			  void *data);
/* Appends the report's headline as plain text (its title line first). */
void gpr_report_headline(struct gp_strbuf *out, const struct gpr_report_parts *p);

/*
 * The Findings section (report/findings.c): text or Markdown (a title, the
 * verdict, then each finding with its bound, evidence, confidence and next
 * command); JSON (the "findings_summary" object and the "findings" array,
 * each after a comma, for the report's object). Nothing without p->findings.
 */
int gpr_findings_text(struct gp_strbuf *out, bool md, const struct gpr_report_parts *p);
int gpr_findings_json(struct gp_strbuf *out, const struct gpr_report_parts *p);
/* The verdict sentence: no GPU work, no material bottleneck, or the recoverable total. */
void gpr_findings_verdict(struct gp_strbuf *out, const struct gpr_report_parts *p);
/*
 * Calls fn for each material finding, largest first: head (title, bound,
 * severity, confidence) and its lines (counts, evidence events, confidence
 * reason and next command). Stops at the first non-zero return.
 */
int gpr_findings_each(const struct gpr_report_parts *p,
		      int (*fn)(void *data, const char *head, const char *const *lines,
				size_t nlines),
		      void *data);

/* ---- perfetto export: Chrome trace event JSON (report/export-perfetto.c, docs/perfetto.md) */

/*
 * Writes m to path ("-": stdout) as Chrome trace event JSON, which
 * ui.perfetto.dev and chrome://tracing load: {"traceEvents":[...],
 * "displayTimeUnit":"ns"}. CPU processes with API calls and NVTX ranges on
 * their threads; one pseudo-process per device with a track per stream for
 * kernels, copies and sets; flow arrows from launching API calls to their GPU
 * work; a "records lost" counter per process. Times are microseconds with
 * exactly three decimals from integer nanoseconds, relative to m->t0. The
 * output is streamed (a few MB buffered at a time). Returns 0, or
 * -GP_ERR_API (no model or path), -GP_ERR_IO, -GP_ERR_NOMEM with the reason
 * in errbuf. path is written as base/outfile.h says ("-" standard output):
 * on error it is as it was, but for what a device or FIFO already took.
 */
int gpr_export_perfetto(const struct gpa_model *m, const char *path, char *errbuf, size_t errlen);
/* The same, with progress (may be NULL): "exporting", API calls, NVTX ranges and GPU ops. */
/*
 * The pid each model process has in both Perfetto exports: its recorded pid,
 * or 1.. in model order when two share one (or one is 0 or in the GPU
 * range). Malloc'd, procs.n entries; NULL when out of memory.
 */
uint32_t *gpr_perfetto_pids(const struct gpa_model *m);
int gpr_export_perfetto_opts(const struct gpa_model *m, const char *path,
			     const struct gp_progress_cb *progress, char *errbuf, size_t errlen);
/*
 * The same, with the critical path of each step of cp (computed with
 * keep_path; NULL: none) as flows of the category "critical_path".
 */
int gpr_export_perfetto_path(const struct gpa_model *m, const char *path,
			     const struct gp_progress_cb *progress, const struct gpa_critpath *cp,
			     char *errbuf, size_t errlen);

/*
 * Writes m to path ("-": stdout) as a Perfetto protobuf trace (a Trace of
 * TracePackets, report/proto/perfetto-trace.proto): the same tracks, slices,
 * arguments, flows and loss counters as gpr_export_perfetto, with interned
 * names, timestamps in integer nanoseconds relative to m->t0. Streamed
 * packet by packet. progress (may be NULL): "exporting", events written of
 * all. Returns 0, or -GP_ERR_API (no model or
 * path), -GP_ERR_IO, -GP_ERR_NOMEM with the reason in errbuf; on error a
 * partly written file is removed.
 */
int gpr_export_pftrace(const struct gpa_model *m, const char *path,
		       const struct gp_progress_cb *progress, char *errbuf, size_t errlen);

/* ---- end perfetto export */

/* ---- sqlite export: an Nsight Systems-compatible SQLite file (report/export-sqlite.c) */

enum gpr_export_flags {
	GPR_EXPORT_FORCE = 1 << 0, /* replace an existing output file */
};

/*
 * Writes m to a new SQLite file at path with the tables, columns, StringIds
 * indirection, packed globalPid/globalTid and enum tables of an nsys export
 * (schema 3.24.14 column sets; docs/export.md). Times are nanoseconds from
 * the model's first event. Refuses an existing regular file unless
 * GPR_EXPORT_FORCE. path is written as base/outfile.h says: "-", a device or
 * a FIFO get a copy of a temporary file. Returns 0, or a negative error with
 * "PATH: reason" in errbuf; on error path is as it was.
 */
int gpr_export_sqlite(const struct gpa_model *m, const char *path, unsigned flags, char *errbuf,
		      size_t errlen);

/* ---- end sqlite export */

/* ---- breakdown: HTA's temporal/idle/kernel-type/overlap tables (report/breakdown.c) */

enum gpr_bd_tables {
	GPR_BD_TEMPORAL = 1 << 0, /* per rank: idle, compute, non-compute, span */
	GPR_BD_IDLE = 1 << 1,     /* per rank and stream: host / kernel / other wait */
	GPR_BD_TYPES = 1 << 2,    /* busy time by the set of kernel classes running */
	GPR_BD_OVERLAP = 1 << 3,  /* per rank: communication under computation */
	GPR_BD_ALL = 0xf,
};

/* "temporal", "idle", "types", "overlap" -> one GPR_BD_* bit; -1 when unknown. */
int gpr_bd_table_parse(const char *name);

/*
 * Fills t (initialized here; caller releases with gpr_table_release) with
 * one table (a single GPR_BD_* bit) of b. Column names are HTA's; times are
 * microseconds with three decimals (exact ns), percentages rounded as HTA
 * rounds them. Returns 0, -GP_ERR_API for a bad table, -GP_ERR_NOMEM.
 */
int gpr_breakdown_table(struct gpr_table *t, unsigned table, const struct gpa_breakdown *b);

/*
 * Appends the tables in mask to out: text and Markdown (a title and a table
 * per section), CSV (header and rows per table, blank lines between) or
 * JSON (one object: "compat", then one array per table, keyed by its name).
 */
int gpr_breakdown_render(struct gp_strbuf *out, enum gpr_format fmt, unsigned tables,
			 const struct gpa_breakdown *b);

/* ---- end breakdown */

/* ---- html report: one self-contained page (report/html.c, docs/html-report.md) */

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

/* ---- end html report */

/* ------------------------------------------------------------------ diff */
/*
 * `gpuprof diff` results (docs/diff.md): a terminal table, Markdown for a CI
 * step summary or pull-request comment, JSON, and JUnit XML (written
 * through libxml2), all worst first. Each returns 0 or -GP_ERR_NOMEM.
 */

/* Default cap of the Markdown output: GitHub refuses step summaries over 1 MiB. */
#define GPR_DIFF_MARKDOWN_MAX (1000 * 1000)

int gpr_diff_text(struct gp_strbuf *out, const struct gpa_diff_result *r);
/* Stops adding rows, with a note saying how many were left out, before max_bytes. */
int gpr_diff_markdown(struct gp_strbuf *out, const struct gpa_diff_result *r, size_t max_bytes);
int gpr_diff_json(struct gp_strbuf *out, const struct gpa_diff_result *r);
/* One test case per gated metric: regressed -> failure, inconclusive -> skipped. */
int gpr_diff_junit(struct gp_strbuf *out, const struct gpa_diff_result *r);

/* -------------------------------------------------------------- end diff */
/* ---- flame graphs: folded stacks, SVG, speedscope (report/flame*.c, docs/flame.md) */

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

/* ---- end flame graphs */

/* ---- occupancy (report/occupancy.c, docs/occupancy.md) */

enum gpr_occ_tables {
	GPR_OCC_KERNELS = 1, /* per kernel group: configuration, occupancy, limiter, waves, what-if */
	GPR_OCC_STEPS = 2,   /* per step: time-weighted occupancy */
};

/* Fills t (initialized here; caller releases) with one table of occ; at most top groups. */
int gpr_occupancy_table(struct gpr_table *t, unsigned which, const struct gpa_model *m,
			const struct gpa_steps *steps, const struct gpa_occupancy *occ, size_t top);
/* One sentence: launches, groups, time-weighted occupancy. */
void gpr_occupancy_headline(struct gp_strbuf *out, const struct gpa_occupancy *occ);
/* The `gpuprof occupancy` document: headline, kernel table, step table (when steps). */
int gpr_occupancy_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpa_model *m,
			 const struct gpa_steps *steps, const struct gpa_occupancy *occ, size_t top);

/* ---- end occupancy */

/* ---- MFU/MBU, copy bandwidth, device peaks (report/mfu.c, docs/mfu.md) */

enum gpr_mfu_tables {
	GPR_MFU_SUMMARY = 1, /* device, peaks, FLOPs per step, median MFU/HFU/MBU */
	GPR_MFU_STEPS = 2,   /* per step */
	GPR_MFU_COPIES = 3,  /* copy bandwidth by kind against the link */
	GPR_MFU_SLOW = 4,    /* the slowest copies and why */
	GPR_MFU_ROOFLINE = 5, /* kernels placed on the roofline (with rules) */
};

/* Fills t (initialized here; caller releases) with one table of u. */
int gpr_mfu_table(struct gpr_table *t, unsigned which, const struct gpa_model *m,
		  const struct gpa_steps *steps, const struct gpa_mfu *u, enum gpa_dtype dtype);
/* The `gpuprof mfu` document: every non-empty table (JSON: all). */
int gpr_mfu_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpa_model *m,
		   const struct gpa_steps *steps, const struct gpa_mfu *u, enum gpa_dtype dtype);
/* The peak table (`gpuprof devices`). */
int gpr_devices_table(struct gpr_table *t, const struct gpa_devrow *rows, size_t n);

/* ---- end MFU */

/* ---- critical path (report/critpath.c, docs/critical-path.md) */

/*
 * Renders a critical-path result: per step its time, bound and composition
 * (with the what-if's when there is one), the composition over all steps,
 * and each step's longest path segments with their events. Text, JSON, CSV
 * or Markdown. Returns 0, -GP_ERR_API for an unknown format, -GP_ERR_NOMEM.
 */
int gpr_critpath_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpa_model *m,
			const struct gpa_steps *steps, const struct gpa_critpath *cp);
/* critical-path --mpi: the job's first event, per step its label, per segment its event */
struct gpr_cp_names {
	uint64_t t0;
	const char *const *step, *const *seg;
};
/* gpr_critpath_render with the names of nm (borrowed) instead of a model's. */
int gpr_critpath_render_names(struct gp_strbuf *out, enum gpr_format fmt,
			      const struct gpr_cp_names *nm, const struct gpa_critpath *cp);
/*
 * Calls fn for each table of a critical-path result (steps, composition,
 * segments; keys "critical-path-steps", ...), as the HTML report shows
 * them. Stops at the first non-zero return and returns it.
 */
int gpr_critpath_each_table(const struct gpa_model *m, const struct gpa_steps *steps,
			    const struct gpa_critpath *cp,
			    int (*fn)(void *data, const char *title, const char *key,
				      const struct gpr_table *t),
			    void *data);

/* ---- end critical path */

/* ---- the job report of many ranks (report/job.c, docs/cluster.md) */

struct gpa_job;
enum {
	GPR_JOB_STEPS = 1,   /* step time per rank and per step */
	GPR_JOB_COMM = 2,    /* stragglers, collective skew */
	GPR_JOB_IDLE = 4,    /* idle by cause per rank */
	GPR_JOB_KERNELS = 8, /* kernels against the same kernels on the peers */
	GPR_JOB_ALL = 15,
};
/* Renders the parts of a job as text, Markdown or JSON. Returns 0 or -GP_ERR_NOMEM. */
int gpr_job_render(struct gp_strbuf *out, enum gpr_format fmt, unsigned parts,
		   const struct gpa_job *j);

#endif /* GPR_REPORT_H */
