/* SPDX-License-Identifier: MIT */
/*
 * analyze.h - the public header of analyze/: pure computation over traces.
 * Nothing here prints or exits; results are plain structs the caller owns.
 */
#ifndef GPA_ANALYZE_H
#define GPA_ANALYZE_H

#include "base/base.h"
#include "trace/trace.h"

#include "analyze/model.h"

/* ------------------------------------------------------------ file info */

struct gpa_device_info {
	uint32_t id;
	char *name;
	uint8_t cc_major, cc_minor;
	uint32_t num_sms;
	uint64_t global_mem_bytes;
	uint64_t global_mem_bw_kbps;
	uint32_t core_clock_khz;
};

struct gpa_problem {
	uint32_t chunk_index;
	uint64_t offset;
	int err;
	char *reason;
};

/* What `gpuprof info` shows about one trace file. */
struct gpa_file_info {
	char *path;
	uint16_t major, minor;
	uint64_t file_bytes;
	uint64_t chunks, strings;
	bool has_footer, truncated;
	uint64_t truncated_at;
	uint64_t problem_count;           /* corrupt chunks skipped */
	GP_VEC(struct gpa_problem) problems; /* corruption and truncation, in file order */

	bool has_process;
	struct {
		uint32_t pid, ppid;
		char *host, *exe, *cmdline, *launcher, *gpuprof_version, *settings, *status;
		int32_t rank, local_rank, world_size, local_world_size;
		uint32_t driver_version, runtime_version, cupti_version, nccl_version;
		bool has_exit;
		int32_t exit_status;
	} process;

	GP_VEC(struct gpa_device_info) devices;
	uint64_t records[GPT_KIND__MAX];
	uint64_t events;                  /* activity records: not metadata */
	bool has_span;                    /* some activity record has a time */
	uint64_t first_ts, last_ts;       /* over activity records */
	uint64_t start_realtime;          /* CLOCK_REALTIME at first_ts, 0 if unknown */
	uint64_t losses[GPT_LOSS__MAX];   /* records lost by cause */
	uint64_t loss_total;
	uint64_t overhead_ns;             /* sum of OVERHEAD record durations */
};

/* Whether records of this kind are activity (counted as events) or metadata. */
bool gpa_kind_is_event(enum gpt_kind kind);

/*
 * Reads a whole trace and fills *out (caller releases with
 * gpa_file_info_release, also after an error). Returns 0 when the file could
 * be read to its end (corrupt chunks and truncation are reported in *out),
 * or a negative error with the reason in errbuf.
 */
int gpa_file_info_read(const char *path, struct gpa_file_info *out, char *errbuf,
		       size_t errlen);
void gpa_file_info_release(struct gpa_file_info *fi);

/* Name of a record kind ("kernel"); NULL for numbers that are not record kinds. */
const char *gpa_kind_name(unsigned kind);
/* Name of a loss cause ("cupti-dropped"); "unknown" when out of range. */
const char *gpa_loss_cause_name(unsigned cause);

/* ---------------------------------------------------------------- steps */

enum gpa_step_source {
	GPA_STEPS_NVTX = 1,     /* NVTX ranges matching the step pattern */
	GPA_STEPS_PROFILER = 2, /* cudaProfilerStart/Stop ranges */
	GPA_STEPS_WHOLE = 3,    /* no steps found: the whole trace of each process */
};

struct gpa_step {
	uint32_t proc;
	uint32_t nvtx;          /* the NVTX range, or GPA_NONE */
	uint32_t name;          /* model string id; 0 for whole-trace steps */
	int64_t number;         /* N of "...#N" when the name has one, else the ordinal */
	uint64_t start, end;    /* the CPU range that defines the step */
	uint32_t gpu_ops;       /* GPU ops launched inside it */
	uint64_t gpu_start, gpu_end; /* first start and last end of those ops (0 when none) */
	uint64_t gpu_busy;      /* their union, per device, summed over devices */
};

/* Order statistics of one per-step quantity, in ns. */
struct gpa_dist {
	uint64_t min, max, median, p90, sum;
};

struct gpa_steps {
	enum gpa_step_source source;
	char *pattern;                /* the regex used, for NVTX steps */
	GP_VEC(struct gpa_step) v;    /* by process, then start */
	uint32_t *gpu_step;           /* per gpa_model.gpu row: its step or GPA_NONE */
	uint64_t unassigned_ops;      /* GPU ops launched outside every step */
	uint64_t unlinked_ops;        /* GPU ops with no API call: placed by their own start */
	struct gpa_dist wall, busy;   /* over all steps */
};

/* The default step pattern (PCRE2): ProfilerStep#N, else ranges named like steps. */
#define GPA_STEP_PATTERN_PROFILER "^ProfilerStep#[0-9]+$"
#define GPA_STEP_PATTERN_DEFAULT "(?i)(^|[^a-z])(step|iteration|iter)([^a-z]|$)"

/*
 * Finds the steps: NVTX ranges matching regex (NULL: ProfilerStep#N if any
 * range is so named, else GPA_STEP_PATTERN_DEFAULT; only the outermost
 * matching range of a nest counts), else cudaProfilerStart/Stop ranges,
 * else one step per process spanning its records. Every GPU op is assigned
 * to the step whose CPU range contains the start of the API call that
 * launched it (ops without one: their own start). The last step is kept
 * like any other. Returns 0, or -GP_ERR_API for a bad regex (message in
 * errbuf), -GP_ERR_NOMEM.
 */
int gpa_steps_find(const struct gpa_model *m, const char *regex, struct gpa_steps *out,
		   char *errbuf, size_t errlen);
void gpa_steps_release(struct gpa_steps *s);

/* Fills d from n values (sorted in place). Median and p90 interpolate linearly. */
void gpa_dist_of(uint64_t *vals, size_t n, struct gpa_dist *d);

#endif /* GPA_ANALYZE_H */
