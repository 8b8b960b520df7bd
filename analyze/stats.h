/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the `nsys stats` reports computed on the model (docs/stats.md):
 * summaries of kernels, memory operations, API calls and NVTX ranges, the NVTX
 * GPU projection, and the GPU trace (analyze/stats.c). Durations are in ns and
 * sizes in bytes, exact; rounding and units are the renderer's business. Also
 * the names a kernel goes by (enum gpa_kernel_name), which flame graphs, diffs
 * and reports share.
 */
#ifndef GPA_STATS_H
#define GPA_STATS_H

#include "analyze/model.h"

enum gpa_stats_report {
	GPA_STATS_KERN_SUM = 0,          /* cuda_gpu_kern_sum */
	GPA_STATS_MEM_TIME_SUM = 1,      /* cuda_gpu_mem_time_sum */
	GPA_STATS_MEM_SIZE_SUM = 2,      /* cuda_gpu_mem_size_sum */
	GPA_STATS_API_SUM = 3,           /* cuda_api_sum */
	GPA_STATS_NVTX_SUM = 4,          /* nvtx_sum */
	GPA_STATS_NVTX_GPU_PROJ_SUM = 5, /* nvtx_gpu_proj_sum */
	GPA_STATS_GPU_TRACE = 6,         /* cuda_gpu_trace */
	GPA_STATS__COUNT = 7,
};

/* The nsys name of a report ("cuda_gpu_kern_sum"); NULL when out of range. */
const char *gpa_stats_report_name(unsigned report);
/* A report by its nsys name; -1 when unknown. */
int gpa_stats_report_parse(const char *name);

/* The name a kernel goes by (nsys: default, :base, :mangled). */
enum gpa_kernel_name {
	GPA_KNAME_DEMANGLED = 0, /* demangled; the recorded name when none was recorded */
	GPA_KNAME_SHORT = 1,     /* the function alone: no scope, template arguments, parameters */
	GPA_KNAME_MANGLED = 2,   /* as recorded */
};

/*
 * The base name inside a kernel name, demangled ("void ns::k<int>(float*)"
 * -> "k") or Itanium-mangled ("_ZN2ns1kIiEEvPf" -> "k"): sets *start to it
 * and returns its length. Names it cannot parse come back whole.
 */
size_t gpa_kernel_base_name(const char *name, const char **start);

/* "[CUDA memcpy Host-to-Device]" for a CUpti_ActivityMemcpyKind (nsys's labels). */
const char *gpa_stats_memcpy_name(unsigned copy_kind);
#define GPA_STATS_MEMSET_NAME "[CUDA memset]"
/* "Pageable", "Pinned", "Device", ... for a CUpti_ActivityMemoryKind; "Unknown" else. */
const char *gpa_stats_mem_kind_name(unsigned mem_kind);

/* One group of values (durations in ns or sizes in bytes). */
struct gpa_stats_summary {
	uint64_t count;
	uint64_t total;
	uint64_t min, max;
	uint64_t median2; /* twice the median, exact: the two middle values summed when even */
	double stddev;    /* sample standard deviation (n - 1); 0 for one value */
};

/* One row of a summary report. */
struct gpa_stats_row {
	const char *name;   /* kernel, operation, API call or range; borrowed from the result */
	uint8_t style;      /* NVTX reports: GPT_NVTX_PUSH_POP or GPT_NVTX_START_END; else 0 */
	struct gpa_stats_summary s; /* nvtx_gpu_proj_sum: of the projected durations */
	/* nvtx_gpu_proj_sum only: sums over the instances in s.count */
	uint64_t range_total;  /* their CPU durations */
	uint64_t gpu_ops;      /* GPU ops they enclose */
	uint64_t level_sum;    /* their nesting levels (0 outermost) */
	uint64_t child_sum;    /* their direct child ranges that enclose GPU ops */
};

/*
 * A computed report. Summary reports fill rows, sorted as nsys does: total
 * descending, then count ascending, then name. cuda_gpu_trace fills order:
 * the model's GPU ops by start time, read through the model.
 */
struct gpa_stats {
	enum gpa_stats_report report;
	enum gpa_kernel_name kname;
	GP_VEC(struct gpa_stats_row) rows;
	uint64_t grand_total;      /* sum of the rows' totals: the base of "Time (%)" */
	uint32_t *order;           /* cuda_gpu_trace: rows of gpa_model.gpu by (start, device) */
	size_t norder;
	uint64_t origin;           /* cuda_gpu_trace: Start is relative to it (gpa_model.t0) */
	const char **func_names;   /* per gpa_model.funcs row: its name under kname (kernel reports) */
	GP_VEC(char *) owned;      /* private: strings the result owns */
};

/*
 * Computes one report over the model into *out (zeroed by the call; release
 * with gpa_stats_release, also after an error). The result borrows strings
 * from the model: keep the model until the result is released. An empty
 * model gives an empty report. Returns 0, -GP_ERR_API for a bad report or
 * kernel-name mode, or -GP_ERR_NOMEM.
 */
int gpa_stats_compute(const struct gpa_model *m, enum gpa_stats_report report,
		      enum gpa_kernel_name kname, struct gpa_stats *out);
void gpa_stats_release(struct gpa_stats *st);

/*
 * Summarizes n values (reordered in place): count, total, min, max, exact
 * median and sample standard deviation, as nsys's median() and stdev().
 */
void gpa_stats_summarize(uint64_t *vals, size_t n, struct gpa_stats_summary *s);

#endif /* GPA_STATS_H */
