/* SPDX-License-Identifier: MIT */
/*
 * export.h - the exports, written to a path: Perfetto (Chrome trace event JSON and
 * protobuf) and an Nsight Systems-compatible SQLite file
 * (report/export-*.c, docs/perfetto.md, docs/export.md).
 */
#ifndef GPR_EXPORT_H
#define GPR_EXPORT_H

#include "report/report.h"

struct gpa_critpath;
struct gpa_model;

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

#endif /* GPR_EXPORT_H */
