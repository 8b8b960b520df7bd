/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what libgpuprof's files share, and the calls the gpuprof
 * command makes through the library (its report is built here, so the
 * command and gpuprof_analyze(GPUPROF_REPORT) run one code path). Not
 * installed, not exported from libgpuprof.so.
 */
#ifndef GPUPROF_API_INTERNAL_H
#define GPUPROF_API_INTERNAL_H

#include <pthread.h>

#include "api/gpuprof.h"
#include "analyze/report.h"
#include "analyze/steps.h"
#include "report/summary.h"

/* The tables gpuprof_table knows, in gpuprof_table_names() order. */
enum api_table {
	API_KERNELS,
	API_API,
	API_COPIES,
	API_MEMSETS,
	API_NVTX,
	API_SYNC,
	API_OVERHEADS,
	API_MEMORY,
	API_STEPS,
	API_DEVICES,
	API_PROCESSES,
	API_THREADS,
	API_TABLES
};

/* One table handed out, with the buffers it owns (freed at close). */
struct api_table_buf {
	struct gpuprof_table t;
	struct gpuprof_column *cols;
	void **owned; /* computed columns */
	size_t nowned;
	bool built;
};

struct gpuprof_trace {
	pthread_mutex_t lock;
	struct gpa_model m;
	char *label;                   /* the first path opened: the run's name in a diff */
	char *step_regex, *data_regex; /* owned copies; NULL: the defaults */
	char **comm;                   /* owned copies */
	size_t ncomm;
	unsigned threads;
	struct gpa_steps steps;        /* found at the first analysis that needs them */
	bool has_steps;
	struct api_table_buf tables[API_TABLES];
	struct gpuprof_analysis_opts aopts; /* the analysis in progress (under lock) */
	char err[1024];
};

/* n, or def when the caller left it 0: a top as gpuprof_analysis_opts says, -1 all. */
size_t api_top(const struct gpuprof_trace *t, size_t def);

/* What `gpuprof report` shows beyond the analyses' options. */
struct gpuprof_report_args {
	struct gpa_report_opts ro; /* gpa_report_opts_init, then the command's options */
	size_t top_kernels, max_steps;
	enum gpa_dtype mfu_dtype;
};

/* The command's defaults: top 10 kernels, 50 step rows, BF16 for MFU. */
void gpuprof_report_args_init(struct gpuprof_report_args *a);

/*
 * Builds the report of m (gpa_report_build: *r, caller frees with
 * gpa_report_free) and the parts its renderers read (*p, pointing into *r
 * and m). Returns 0 or a negative enum gp_err with one line in errbuf.
 */
int gpuprof_report_compute(struct gpa_model *m, const struct gpuprof_report_args *a,
			   struct gpa_report **r, struct gpr_report_parts *p, char *errbuf,
			   size_t errlen);

/* t's steps (found once with t's step pattern); NULL with t->err said. */
const struct gpa_steps *api_steps(struct gpuprof_trace *t, int *ret);
/* Frees every table t handed out. */
void api_tables_release(struct gpuprof_trace *t);
/* The comparison of a and b into out (JSON); 0 or a negative enum gp_err with b->err said. */
int api_diff_json(struct gpuprof_trace *a, struct gpuprof_trace *b, struct gp_strbuf *out);
/* Runs analysis a on t into out (JSON); 0 or a negative enum gp_err with t->err said. */
int api_analysis_json(struct gpuprof_trace *t, enum gpuprof_analysis a, struct gp_strbuf *out);

#endif /* GPUPROF_API_INTERNAL_H */
