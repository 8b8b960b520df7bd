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

/* ------------------------------------------------------------- overview */

/* Copies and sets by direction: what the memory-traffic section shows. */
struct gpa_traffic {
	uint8_t copy_kind;   /* CUpti_ActivityMemcpyKind; 0 for memset */
	uint64_t count, bytes;
	uint64_t time_ns;    /* sum of durations */
};

struct gpa_overview {
	uint64_t first_ns, last_ns; /* model span */
	uint64_t events;
	uint64_t kernels, copies, sets, api_calls, nvtx_ranges;
	uint64_t kernel_time_ns;    /* sum of kernel durations (not a union) */
	GP_VEC(struct gpa_traffic) traffic; /* by total time, descending */
	GP_VEC(char *) warnings;    /* sentences, in a stable order */
};

/*
 * What was traced, memory traffic and the warnings a report must show
 * (records lost, files cut short or corrupt, steps not found, GPU ops
 * outside every step or without their launch call, unaligned clocks).
 * steps may be NULL.
 */
int gpa_overview_build(const struct gpa_model *m, const struct gpa_steps *steps,
		       struct gpa_overview *out);
void gpa_overview_release(struct gpa_overview *o);
/* "Host-to-Device", "Device-to-Host", ... or "memset" for 0. */
const char *gpa_copy_kind_name(unsigned kind);

/* ---------------------------------------------------------------- stats */
/*
 * The `nsys stats` reports computed on the model (docs/stats.md): summaries
 * of kernels, memory operations, API calls and NVTX ranges, the NVTX GPU
 * projection, and the GPU trace. Durations are in ns and sizes in bytes,
 * exact; rounding and units are the renderer's business.
 */

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

/* ------------------------------------------------------------ end stats */

/* ------------------------------------------------------------------ gaps */
/* Section owned by analyze/gaps.c: idle gaps on each device and their causes. */

/*
 * Why a device was idle. Each gap gets exactly one: the cause that accounts
 * for most of its time (docs/gaps.md). Host-side causes describe what the
 * thread that launched the op ending the gap was doing; queued causes apply
 * once that launch call had returned.
 */
enum gpa_gap_cause {
	GPA_GAP_PROFILER = 0,   /* a CUPTI overhead record: buffer flush, instrumentation */
	GPA_GAP_SYNC = 1,       /* blocked in a host synchronization (stream/event/device sync,
				 * synchronous memcpy, CUPTI SYNC records of those) */
	GPA_GAP_DATA = 2,       /* inside a data-loader NVTX range (opts.data_regex) */
	GPA_GAP_MEMORY = 3,     /* inside memory management: cudaMalloc, cudaFree, host
				 * registration */
	GPA_GAP_JIT = 4,        /* module load, JIT, graph instantiation, lazy function loading */
	GPA_GAP_LAUNCH = 5,     /* inside launch calls, or the device's latency for queued work */
	GPA_GAP_CPU = 6,        /* busy outside CUDA calls (Python, framework) */
	GPA_GAP_COMM = 7,       /* queued work waiting on NCCL (a kernel named nccl*) */
	GPA_GAP_DEPENDENCY = 8, /* queued work waiting on another stream or an event */
	GPA_GAP_STRAGGLER = 9,  /* waiting on a slower rank; NEEDSWORK: never assigned yet */
	GPA_GAP_UNKNOWN = 10,   /* the op ending the gap has no recorded launch call */
	GPA_GAP__COUNT = 11,
};

/* Stable key of a cause ("host-sync"); "unknown" when out of range. */
const char *gpa_gap_cause_name(unsigned cause);

/*
 * Gap-length histogram: bucket b holds gaps with gpa_gap_bucket_lo[b] <=
 * length < gpa_gap_bucket_lo[b + 1] ns: <1 us, 1-10 us, 10-100 us,
 * 100 us-1 ms, 1-10 ms, 10-100 ms, >= 100 ms.
 */
#define GPA_GAP_BUCKETS 7
extern const uint64_t gpa_gap_bucket_lo[GPA_GAP_BUCKETS];

/* Default data-loader pattern (PCRE2) for NVTX range names. */
#define GPA_GAP_DATA_PATTERN                                                                       \
	"(?i)data.?loader|__next__|fetch|collate|prefetch|(^|[^a-z0-9])inputs?($|[^a-z0-9_])"

struct gpa_gaps_opts {
	int64_t device;        /* CUDA device ordinal (in every process) to analyze; -1 all */
	uint64_t min_gap_ns;   /* gaps this long or longer are listed (totals count every gap) */
	size_t top;            /* longest gaps kept in gpa_gaps.top; 0 none, SIZE_MAX all */
	uint64_t latency_ns;   /* queued gaps shorter than this are launch latency */
	const char *data_regex; /* data-loader NVTX names; NULL: GPA_GAP_DATA_PATTERN */
};

/* Defaults: every device, min_gap 10 us, top 10, latency 30 us, the default pattern. */
void gpa_gaps_opts_init(struct gpa_gaps_opts *o);

/* Totals over one stretch of a device timeline (or a sum of them). All times in ns. */
struct gpa_gap_totals {
	uint64_t window;   /* length of the stretch */
	uint64_t busy;     /* covered by at least one kernel, memcpy or memset */
	uint64_t idle;     /* window - busy: the sum of all gaps */
	uint64_t ops;      /* GPU ops starting in the stretch */
	uint64_t gaps;     /* idle gaps (every one, however short) */
	uint64_t listed, listed_ns; /* gaps of at least min_gap_ns, and their time */
	uint64_t longest;
	uint64_t cause_ns[GPA_GAP__COUNT], cause_n[GPA_GAP__COUNT]; /* whole gaps, by cause */
	uint64_t hist_n[GPA_GAP_BUCKETS], hist_ns[GPA_GAP_BUCKETS];
};

/* One idle gap [start, end) on one device, with its cause and evidence. */
struct gpa_gap {
	uint64_t start, end;
	uint64_t cause_ns;  /* of the gap, the time the cause accounts for */
	uint16_t dev;       /* model device */
	uint8_t cause;      /* enum gpa_gap_cause */
	bool queued;        /* the op's launch call had returned before the gap began */
	uint32_t step;      /* gpa_steps.v index of the stretch it lies in, or GPA_NONE */
	uint32_t op;        /* gpa_model.gpu row that ends the gap */
	uint32_t prev_op;   /* gpa_model.gpu row whose end began it */
	uint32_t launch;    /* api row that launched op, or GPA_NONE */
	uint32_t thread;    /* its model thread, or GPA_NONE */
	uint32_t context;   /* innermost NVTX range around the launch call, or GPA_NONE */
	/* Evidence; GPA_NONE where not applicable: */
	uint32_t ev_api;    /* SYNC, MEMORY, JIT, LAUNCH: the call with most time in the gap;
			     * LAUNCH when queued, DEPENDENCY without ev_sync: the launch call */
	uint32_t ev_nvtx;   /* DATA: the range; CPU: innermost range on the thread mid-gap */
	uint32_t ev_ovh;    /* PROFILER, JIT: the overhead record (gpa_model.ovh row) */
	uint32_t ev_kernel; /* COMM: the NCCL kernel waited on (gpa_model.kern row) */
	uint32_t ev_sync;   /* DEPENDENCY: the stream-wait-event record (gpa_model.sync row) */
	uint32_t drain;     /* api row of a host sync on the thread inside the gap, when the
			     * cause is another one (the sync let the queue run dry) */
};

struct gpa_gaps_dev {
	uint16_t dev;             /* model device */
	uint64_t first, last;     /* its window: first GPU op start, last GPU op end */
	struct gpa_gap_totals t;
};

/*
 * A step's stretch of one device timeline: from the start of the gap before
 * its first GPU op (or that op's start) to where the next step's stretch
 * begins (the last one ends with the window). Stretches partition each
 * device window, so per-step figures add up to the device's.
 */
struct gpa_gaps_step {
	uint32_t step;            /* gpa_steps.v index; GPA_NONE: work before the first step */
	uint16_t dev;
	uint64_t start, end;
	struct gpa_gap_totals t;
};

struct gpa_gaps {
	uint64_t min_gap_ns, latency_ns; /* the options in effect */
	size_t top_n;
	char *data_pattern;
	struct gpa_gap_totals all;       /* summed over the devices analyzed */
	GP_VEC(struct gpa_gaps_dev) devs;   /* devices with GPU ops, model order */
	GP_VEC(struct gpa_gaps_step) steps; /* by device, then time; empty without steps */
	GP_VEC(struct gpa_gap) top;         /* the longest listed gaps, longest first */
};

/*
 * Finds the idle gaps of every device (or opts->device): per device the
 * window runs from its first GPU op's start to its last one's end, busy is
 * the union of kernel, memcpy and memset intervals (SYNC records are not
 * GPU work), and every gap gets one cause with its evidence. steps may be
 * NULL (no per-step stretches; gap.step is GPA_NONE). O(n log n) in GPU ops
 * and API calls. Fills *out (release with gpa_gaps_release, also after an
 * error). Returns 0; -GP_ERR_API for a bad data-loader pattern;
 * -GP_ERR_NOTFOUND when opts->device matches no device; -GP_ERR_NOMEM;
 * the reason in errbuf.
 */
int gpa_gaps_analyze(const struct gpa_model *m, const struct gpa_steps *steps,
		     const struct gpa_gaps_opts *opts, struct gpa_gaps *out, char *errbuf,
		     size_t errlen);
void gpa_gaps_release(struct gpa_gaps *g);

/* ------------------------------------------------------------ end gaps */

/* ------------------------------------------------------------ breakdown */

/*
 * Temporal breakdown, per-stream idle breakdown, kernel-type shares and
 * communication-computation overlap (analyze/breakdown.c,
 * docs/hta-parity.md): the analyses of Holistic Trace Analysis (HTA),
 * exact in ns by default, or with HTA's quirks (enum gpa_bd_flags) so that
 * its numbers are reproduced.
 */

/* Kernel classes, as bits: a set of them labels each instant of busy time. */
enum gpa_bd_class {
	GPA_BD_COMP = 1 << 0, /* computation */
	GPA_BD_COMM = 1 << 1, /* communication (NCCL, RCCL, HCCL, NVSHMEM) */
	GPA_BD_MEM = 1 << 2,  /* memcpy, memset, DMA */
	GPA_BD_CLASSES = 8,   /* sets 0..7; 0 is "other" (sync records) */
};

/* HTA's quirks, each on its own; GPA_BD_COMPAT_HTA is all of them. */
enum gpa_bd_flags {
	GPA_BD_ROUND_US = 1 << 0,  /* every op shrunk to whole us: ceil start, floor end */
	GPA_BD_LAST_STEP = 1 << 1, /* with >= 2 ProfilerStep#N ranges in a process, drop the ops
				    * launched in the last one or later and ops with no launch */
	GPA_BD_SYNC_BUSY = 1 << 2, /* cuda_sync records with a stream count as busy, non-compute */
	GPA_BD_NAME_ONLY = 1 << 3, /* classes from HTA's name regexes alone */
	GPA_BD_F64_TS = 1 << 4,    /* with ROUND_US: round the file's ts as HTA's doubles hold
				    * them (0.25 us steps at epoch magnitudes); right only for
				    * files of epoch us without baseTimeNanoseconds */
	GPA_BD_INT_DUR = 1 << 5,   /* kernel-type table: each op's duration cut to whole us */
	GPA_BD_COMPAT_HTA = 0x2f,  /* all but F64_TS, which depends on the file */
	GPA_BD_COMPAT_HTA_NOROUND = GPA_BD_COMPAT_HTA & ~GPA_BD_ROUND_US,
};

struct gpa_breakdown_opts {
	unsigned flags;          /* enum gpa_bd_flags */
	int64_t kernel_wait_ns;  /* idle intervals shorter than this are kernel wait (30 us) */
};

/* Defaults: exact (no flags), kernel wait below 30 us. */
void gpa_breakdown_opts_init(struct gpa_breakdown_opts *o);

/* Idle categories of one stream's gaps (HTA's idle_time_breakdown). */
enum gpa_bd_idle {
	GPA_BD_HOST_WAIT = 0,   /* the op was launched after the stream had drained */
	GPA_BD_KERNEL_WAIT = 1, /* queued, gap shorter than kernel_wait_ns */
	GPA_BD_OTHER_WAIT = 2,  /* queued, longer gap: events, other streams */
	GPA_BD_IDLE__COUNT = 3,
};

/* One process (rank). Times in ns, signed: HTA's rounding can make them negative. */
struct gpa_bd_rank {
	uint32_t proc;
	int32_t rank;           /* from the trace, 0 when it has none (as HTA) */
	uint64_t ops;           /* ops counted (after the last-step filter) */
	int64_t span;           /* last merged end - first merged start */
	int64_t busy, idle, compute, non_compute;
	int64_t comm;           /* union of communication ops */
	int64_t overlap;        /* communication under computation */
	int64_t type_ns[GPA_BD_CLASSES]; /* busy time by the exact set of classes running */
};

struct gpa_bd_stream {
	uint32_t proc;
	int32_t rank;
	uint32_t stream;
	uint64_t ops;
	int64_t idle_ns[GPA_BD_IDLE__COUNT];
	uint64_t idle_n[GPA_BD_IDLE__COUNT]; /* intervals per category */
};

struct gpa_breakdown {
	unsigned flags;
	GP_VEC(struct gpa_bd_rank) ranks;     /* processes with GPU ops, in model order */
	GP_VEC(struct gpa_bd_stream) streams; /* by process, then stream */
	int64_t type_ns[GPA_BD_CLASSES];      /* summed over ranks */
};

/* The classes of a kernel name: HTA's regexes, plus (without NAME_ONLY) more libraries. */
unsigned gpa_bd_classify(const char *name, unsigned flags);
/* "computation", "communication", "memory", "other" for one bit or 0. */
const char *gpa_bd_class_name(unsigned cls);
/* "host_wait", "kernel_wait", "other" (HTA's names); NULL when out of range. */
const char *gpa_bd_idle_name(unsigned cat);

/*
 * Computes every table over m (borrowed during the call). Fills *out
 * (caller releases with gpa_breakdown_release, also after an error).
 * Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_breakdown_compute(const struct gpa_model *m, const struct gpa_breakdown_opts *o,
			  struct gpa_breakdown *out);
void gpa_breakdown_release(struct gpa_breakdown *b);

/* ------------------------------------------------------------ end breakdown */

/* ----------------------------------------------------------------- diff */
/*
 * Regression statistics (analyze/diffstat.c) and the comparison of two sets
 * of runs (analyze/diff.c), docs/diff.md. Pure computation: samples in,
 * verdicts out.
 */

/* The Mann-Whitney U test of two samples. */
struct gpa_mwu {
	double u1;    /* U of the first sample: pairs (a, b) with a > b, ties counted 1/2 */
	double z;     /* normal approximation's z with continuity correction (0 when exact) */
	double p;     /* two-sided p-value */
	bool exact;   /* from the permutation distribution (no ties, both sizes <= 20) */
};

/* Largest sample size per side for which the exact distribution is used. */
#define GPA_MWU_EXACT_MAX 20

/*
 * Two-sided Mann-Whitney U test of a (na values) against b (nb values).
 * Exact when neither sample has more than GPA_MWU_EXACT_MAX values and the
 * pooled sample has no ties: p = 2 P(U <= min(U1, na nb - U1)), capped at 1.
 * Otherwise the normal approximation with mid-ranks, the tie-corrected
 * variance and a continuity correction of 1/2. Empty samples give p = 1.
 * Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_mwu_test(const double *a, size_t na, const double *b, size_t nb, struct gpa_mwu *out);

/* The median of n values (reordered in place); the mean of the middle two when n is even. */
double gpa_median(double *v, size_t n);

/* The q-quantile (0..1) of n sorted values, interpolating linearly between order statistics. */
double gpa_quantile_sorted(const double *sorted, size_t n, double q);

/*
 * One side of a comparison: values grouped by run. Run r holds
 * v[off[r]] .. v[off[r + 1] - 1]; off has nruns + 1 entries.
 */
struct gpa_sample {
	const double *v;
	const size_t *off;
	size_t nruns;
};

struct gpa_boot_opts {
	unsigned reps;  /* resamples (10000) */
	double level;   /* confidence level (0.95) */
	uint64_t seed;  /* the base/ RNG's seed: same seed, same interval */
};

/*
 * Percentile bootstrap interval of med(b) / med(a) - 1 at o->level: each
 * resample draws runs with replacement, then values with replacement inside
 * each drawn run (a two-stage bootstrap, so run-to-run variation counts;
 * with one run per side it is the ordinary bootstrap), independently for a
 * and b. A zero baseline median makes a resample +inf (or 0 when both are
 * zero). Returns 0, -GP_ERR_API for an empty side or 0 reps, -GP_ERR_NOMEM.
 */
int gpa_boot_ratio_ci(const struct gpa_sample *a, const struct gpa_sample *b,
		      const struct gpa_boot_opts *o, double *lo, double *hi);

/*
 * Adjusted p-values for n tests, written to q (may alias p): Benjamini-
 * Hochberg (false discovery rate) or Holm (family-wise error rate).
 * Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_adjust_bh(const double *p, size_t n, double *q);
int gpa_adjust_holm(const double *p, size_t n, double *q);

enum gpa_verdict {
	GPA_VERDICT_UNCHANGED = 0,
	GPA_VERDICT_IMPROVED = 1,
	GPA_VERDICT_INCONCLUSIVE = 2,
	GPA_VERDICT_REGRESSED = 3,
};

/* "unchanged", "improved", "inconclusive", "regressed". */
const char *gpa_verdict_name(unsigned v);

/* What a verdict is decided from. The change is med(b)/med(a) - 1 and its interval. */
struct gpa_verdict_in {
	double delta, ci_lo, ci_hi;
	double p;              /* adjusted for multiple comparisons */
	double alpha;
	double min_effect;     /* relative change below which nothing matters (0.02) */
	bool higher_better;    /* MFU: a drop is the regression */
	size_t na, nb;         /* samples per side */
	size_t runs_a, runs_b; /* runs per side */
	size_t min_samples;    /* fewer samples on a side: inconclusive (4) */
};

/*
 * regressed: p < alpha and the whole interval lies beyond +min_effect in the
 * bad direction; improved: the same in the good direction; unchanged: the
 * interval lies inside (-min_effect, +min_effect); anything else (and fewer
 * than min_samples on a side) is inconclusive, and *more_runs (may be
 * NULL) estimates the runs per side to add: the interval's half-width
 * shrinks as 1/sqrt(runs), so runs * (half-width / distance of the
 * estimate from the nearest threshold)^2 runs are needed (at most 1000;
 * below min_samples, what reaches it).
 */
enum gpa_verdict gpa_verdict_decide(const struct gpa_verdict_in *in, uint32_t *more_runs);

/* ---- comparing runs */

enum gpa_diff_unit {
	GPA_DIFF_NS = 0,    /* nanoseconds per step */
	GPA_DIFF_BYTES = 1, /* bytes per step */
	GPA_DIFF_RATIO = 2, /* a fraction (MFU) */
};

/* How the samples of a comparison were formed. */
enum gpa_diff_samples {
	GPA_DIFF_STEPS = 0,       /* per-step values, pooled across runs */
	GPA_DIFF_RUN_MEDIANS = 1, /* one per run: the median of its steps (step counts differ) */
	GPA_DIFF_WHOLE_RUNS = 2,  /* one per run: traces without steps, the whole run is one */
};

enum gpa_diff_correction {
	GPA_DIFF_BH = 0,   /* Benjamini-Hochberg over every compared metric */
	GPA_DIFF_HOLM = 1, /* Holm over every compared metric */
	GPA_DIFF_NONE = 2,
};

/* A per-metric minimum effect: the last matching pattern (fnmatch) wins. */
struct gpa_diff_threshold {
	char *pattern;
	double min_effect;
};

/* Kernel-name normalization rules: PCRE2 substitutions applied in order. */
struct gpa_kname_rules;

/*
 * The built-in rules (docs/diff.md): drop the return type, parameter list
 * and template arguments, architecture prefixes and suffixes (sm80_, _sm90a,
 * ampere_), tile sizes (128x128x64 -> N), hexadecimal hashes and a trailing
 * instance number (triton_..._0). with_defaults false starts empty.
 */
int gpa_kname_rules_new(bool with_defaults, struct gpa_kname_rules **out);
void gpa_kname_rules_free(struct gpa_kname_rules *r);
/* Appends a rule: every match of regex (PCRE2) becomes repl ($1 refers to groups). */
int gpa_kname_rules_add(struct gpa_kname_rules *r, const char *regex, const char *repl,
			char *errbuf, size_t errlen);
/* The family of a kernel name (demangled when it can be). Caller frees. NULL on no memory. */
char *gpa_kname_normalize(const struct gpa_kname_rules *r, const char *name);

struct gpa_diff_opts {
	const char *step_regex;      /* NULL: the default step pattern */
	uint32_t skip_steps;         /* warm-up steps dropped at the start of every process */
	double alpha;                /* 0.05 */
	double min_effect;           /* 0.02 */
	size_t min_samples;          /* 4 */
	struct gpa_boot_opts boot;
	enum gpa_diff_correction correction;
	double flops_per_step;       /* with peak_flops: the mfu metric; 0 none */
	double peak_flops;           /* per GPU, FLOP/s */
	const struct gpa_diff_threshold *thresholds; /* borrowed */
	size_t nthresholds;
	const char *const *fail_on;  /* fnmatch patterns of gating metrics; borrowed */
	size_t nfail_on;
	const struct gpa_kname_rules *rules; /* borrowed; NULL: the built-in rules */
};

/* alpha 0.05, min effect 2 %, 4 samples, 10000 resamples at 95 %, seed 1, BH, gate step.wall. */
void gpa_diff_opts_init(struct gpa_diff_opts *o);

struct gpa_diff_metric {
	char *name;             /* "step.wall", "kernel.gemm_kernel", "idle.cpu-bound" */
	enum gpa_diff_unit unit;
	bool higher_better;
	bool gated;             /* matched a fail_on pattern */
	size_t na, nb;          /* samples */
	double med_a, med_b;
	double delta;           /* med_b / med_a - 1; +inf when med_a is 0 < med_b */
	double ci_lo, ci_hi;    /* bootstrap interval of delta */
	double p, q;            /* Mann-Whitney p, and adjusted for multiple comparisons */
	bool exact;
	double min_effect;
	enum gpa_verdict verdict;
	uint32_t more_runs;     /* inconclusive: runs per side to add (estimate) */
};

struct gpa_diff_result {
	size_t runs[2];                     /* baseline, candidate */
	enum gpa_diff_samples samples;
	enum gpa_step_source step_source[2]; /* of the first run of each side */
	enum gpa_diff_correction correction;
	double alpha;
	struct gpa_boot_opts boot;
	GP_VEC(struct gpa_diff_metric) metrics; /* worst first */
	GP_VEC(char *) new_kernels;         /* families only the candidate runs have */
	GP_VEC(char *) vanished_kernels;    /* families only the baseline runs have */
	GP_VEC(char *) warnings;
	size_t regressed_gated;             /* gated metrics that regressed */
};

struct gpa_diff;

/* A comparison in progress; opts (and what it points to) borrowed until _free. */
int gpa_diff_new(const struct gpa_diff_opts *opts, struct gpa_diff **out, char *errbuf,
		 size_t errlen);
void gpa_diff_free(struct gpa_diff *d);
/*
 * Extracts the per-step samples of one run (side 0 baseline, 1 candidate)
 * from m; the model may be released right after. label names the run in
 * messages. Returns 0, -GP_ERR_API for a bad step pattern, -GP_ERR_FORMAT
 * when --skip-steps leaves no step, -GP_ERR_NOMEM; the reason in errbuf.
 */
int gpa_diff_add_run(struct gpa_diff *d, int side, const struct gpa_model *m, const char *label,
		     char *errbuf, size_t errlen);
/* Compares the sides; fills *out (release with gpa_diff_result_release, also after an error). */
int gpa_diff_compute(struct gpa_diff *d, struct gpa_diff_result *out);
void gpa_diff_result_release(struct gpa_diff_result *r);

/* ------------------------------------------------------------- end diff */
/* ------------------------------------------------------- CPU call stacks */

/*
 * Frames of the CPU call stack captured at API call row `api`, outermost first;
 * 0 when none was captured. Symbolized lazily (function name demangled, or
 * "module+0xOFF" when unknown); the strings live as long as the model.
 */
uint32_t gpa_api_stack_depth(struct gpa_model *m, uint32_t api);
const char *gpa_api_stack_frame(struct gpa_model *m, uint32_t api, uint32_t i);

/* The raw pc of that frame (a return address); 0 when out of range. */
uint64_t gpa_api_stack_pc(struct gpa_model *m, uint32_t api, uint32_t i);

/* Frames one stack yields at most, whatever a file says. */
#define GPA_STACK_MAX_FRAMES 256

/* What the call-stack records of the model held, and what was skipped. */
struct gpa_stack_info {
	uint64_t nodes, stacks, modules; /* records kept (stacks: distinct calls) */
	uint64_t api_rows;               /* API rows with a stack */
	uint64_t bad_nodes;              /* id 0 or defined twice: ignored */
	uint64_t bad_parents;            /* parent missing or not below the id: cut there */
	uint64_t bad_stacks;             /* naming a node the file lacks: skipped */
	uint64_t bad_modules;            /* empty address range: skipped */
	uint64_t unreadable_modules;     /* module files missing or not ELF (so far) */
	uint64_t build_id_mismatch;      /* module files of another build (so far) */
};
void gpa_stacks_get_info(const struct gpa_model *m, struct gpa_stack_info *out);

/* ------------------------------------------------------- end CPU call stacks */

/* ----------------------------------------------------------------- flame */
/*
 * Flame graphs (analyze/flame.c, analyze/classify.c, docs/flame.md): a tree
 * of stacks weighted by GPU time (process -> thread -> NVTX ranges open at
 * the launch call -> CPU call stack -> kernel, copy or set) or by CUDA API
 * time (... -> API name). Frame names are the tree's own strings, so trees
 * built from different models compare by name (differential graphs).
 */

/* What a frame is. */
enum gpa_frame_kind {
	GPA_FRAME_ROOT = 0,
	GPA_FRAME_PROCESS = 1,
	GPA_FRAME_STEP = 2,
	GPA_FRAME_THREAD = 3,
	GPA_FRAME_NVTX = 4,
	GPA_FRAME_CPU = 5,     /* a CPU call stack frame */
	GPA_FRAME_KERNEL = 6,
	GPA_FRAME_MEMCPY = 7,
	GPA_FRAME_MEMSET = 8,
	GPA_FRAME_API = 9,     /* a CUDA API call (API-time graphs) */
	GPA_FRAME_OTHER = 10,  /* "[no launch call]" and the like */
};

/* Colour categories of leaf frames (classify.c); frames that are not leaves are OTHER. */
enum gpa_category {
	GPA_CAT_OTHER = 0,
	GPA_CAT_GEMM = 1,
	GPA_CAT_ATTENTION = 2,
	GPA_CAT_COMM = 3,
	GPA_CAT_ELEMENTWISE = 4,
	GPA_CAT_COPY = 5,
	GPA_CAT__COUNT = 6,
};

/* "other", "gemm", "attention", "communication", "elementwise", "copy"; NULL out of range. */
const char *gpa_category_name(unsigned cat);
/* A category by name; -1 when unknown. */
int gpa_category_parse(const char *name);

/*
 * Classification rules: an ordered list of (category, PCRE2 pattern); the
 * first pattern that matches a name gives its category. Rule text is one
 * rule a line, "CATEGORY REGEX", '#' starting a comment line; user rules
 * go before the built-in ones.
 */
struct gpa_classifier;

/*
 * A classifier with the rules of text (may be NULL: built-in rules only)
 * followed by the built-in ones. name names the text in errors
 * ("rules.txt: line 3: unknown category 'foo'"). Caller frees with
 * gpa_classifier_free. Returns 0, -GP_ERR_FORMAT (bad line or pattern,
 * reason in errbuf), -GP_ERR_NOMEM.
 */
int gpa_classifier_new(const char *text, const char *name, struct gpa_classifier **out,
		       char *errbuf, size_t errlen);
void gpa_classifier_free(struct gpa_classifier *c);
/* The category of a kernel name; GPA_CAT_OTHER when no rule matches. */
enum gpa_category gpa_classify(const struct gpa_classifier *c, const char *name);

enum gpa_flame_weight {
	GPA_FLAME_GPU_TIME = 0,   /* GPU ops, weight = their duration in ns */
	GPA_FLAME_API_TIME = 1,   /* CUDA API calls, weight = their duration in ns */
	GPA_FLAME_WALL_SHARE = 2, /* GPU ops, weight = their share of device busy time (each
				   * instant split equally among the ops running), plus, when
				   * nothing is filtered, "[GPU idle]" frames by gap cause:
				   * per device the weights sum to its window */
};

enum gpa_flame_flags {
	GPA_FLAME_NO_NVTX = 1 << 0,    /* leave NVTX ranges out */
	GPA_FLAME_CPU_STACKS = 1 << 1, /* add the CPU call stack captured at the API call */
	GPA_FLAME_BY_STEP = 1 << 2,    /* a step frame under the process (needs opts.steps);
					* the step's own range leaves the NVTX stack */
	GPA_FLAME_NO_IDS = 1 << 3,     /* "process"/thread name instead of pid and tid, and
					* step names (with opts.steps) with '*' for digits,
					* so runs of the same program compare */
	GPA_FLAME_KEEP_OPS = 1 << 4,   /* fill gpa_flame.op_node (timelines) */
};

struct gpa_flame_opts {
	enum gpa_flame_weight weight;
	unsigned flags;               /* enum gpa_flame_flags */
	enum gpa_kernel_name kname;   /* how kernel frames are named */
	const char *leaf_regex;       /* keep only ops (calls) whose leaf name matches; NULL all */
	const char *nvtx_regex;       /* keep only ops with a matching NVTX range open; NULL all */
	int64_t device;               /* CUDA device ordinal to keep; -1 all (GPU time only) */
	int64_t rank;                 /* process rank to keep; -1 all */
	const struct gpa_steps *steps; /* borrowed; needed by GPA_FLAME_BY_STEP */
	const struct gpa_classifier *classifier; /* NULL: built-in rules */
};

/* Defaults: GPU time, NVTX on, demangled names, no filter, every device and rank. */
void gpa_flame_opts_init(struct gpa_flame_opts *o);

/*
 * One frame: a path from the root. Children are linked in name order (byte
 * order) once the tree is finished. Weights are ns; in a differential tree
 * total/self are the second ("after") set and total0/self0 the first.
 */
struct gpa_flame_node {
	uint32_t name;            /* offset of the name in gpa_flame.names */
	uint32_t parent, child, next; /* node indexes; GPA_NONE ends a list */
	uint64_t total, self;     /* inclusive and own weight */
	uint64_t total0, self0;   /* differential trees: the "before" weights */
	uint64_t count;           /* ops (calls) ending here and below */
	uint16_t depth;           /* 0 for the root */
	uint8_t kind;             /* enum gpa_frame_kind */
	uint8_t category;         /* enum gpa_category */
};

struct gpa_flame {
	struct gp_strbuf names;   /* NUL-terminated names; offset 0 is "all" (the root) */
	GP_VEC(struct gpa_flame_node) nodes; /* 0 is the root; parents before children */
	uint32_t *slots;          /* private: (parent, name) -> node hash */
	size_t nslots;
	uint32_t *name_slots;     /* private: name -> offset hash */
	size_t nname_slots, nnames;
	enum gpa_flame_weight weight;
	bool diff;                /* total0/self0 hold the "before" weights */
	uint64_t ops;             /* ops (calls) counted */
	uint64_t filtered;        /* ops (calls) left out by the filters */
	uint64_t unlinked;        /* GPU ops with no launch call (under "[no launch call]") */
	uint64_t steps0, steps;   /* differential: the step counts each side was divided by */
	uint32_t *op_node;        /* KEEP_OPS: per gpa_model.gpu row its leaf node or GPA_NONE */
};

/* The name of node i. */
static inline const char *gpa_flame_name(const struct gpa_flame *f, uint32_t i)
{
	return f->names.buf + f->nodes.v[i].name;
}

/*
 * Builds the flame tree of m into *out (zeroed here; release with
 * gpa_flame_release, also after an error). m is not const because CPU
 * call stacks are symbolized on demand. Names have ';' replaced by ':' and
 * control characters (newlines, tabs) by spaces, so folded lines stay
 * whole. Weights sum exactly: the root's total is the sum of every counted
 * op's duration. O(ops) hash lookups. Returns 0, -GP_ERR_API for a bad
 * pattern or BY_STEP without steps (reason in errbuf), -GP_ERR_NOTFOUND
 * when opts->device or opts->rank matches nothing, -GP_ERR_NOMEM.
 */
int gpa_flame_build(struct gpa_model *m, const struct gpa_flame_opts *opts, struct gpa_flame *out,
		    char *errbuf, size_t errlen);
void gpa_flame_release(struct gpa_flame *f);

/*
 * A differential tree: the union of before's and after's stacks, each
 * side's own weights divided by its step count (n0, n1 >= 1; rounded to
 * the nearest ns per stack, so "per step" figures compare), after's in
 * total/self and before's in total0/self0. Categories come from whichever
 * side has the frame. Returns 0, -GP_ERR_API (n0 or n1 zero), -GP_ERR_NOMEM.
 */
int gpa_flame_diff(const struct gpa_flame *before, uint64_t n0, const struct gpa_flame *after,
		   uint64_t n1, struct gpa_flame *out);

/* ------------------------------------------------------------- end flame */

/* ------------------------------------------------------------ occupancy */

#include "analyze/occupancy-calc.h"

struct gpa_occ_opts {
	const char *kernel_regex; /* PCRE2 on the demangled (else mangled) name; NULL all */
	int64_t device;           /* CUDA device ordinal; -1 every device */
	bool whatif;              /* fill gpa_occ_group.whatif (slower: per group) */
};

/* Launches of one kernel with one configuration on one device. */
struct gpa_occ_group {
	uint32_t func, shape;
	uint16_t dev;
	uint64_t launches, gpu_ns;
	int status;                 /* 0, or -GPA_OCC_E* when occupancy is unknown */
	bool dev_defaults;          /* device limits taken from the architecture, not recorded */
	struct gpa_occ_result res;
	uint32_t bp;                /* theoretical occupancy, basis points */
	uint32_t grid_bp;           /* grid-limited: min(blocks, grid / SMs) x warps / max warps */
	uint64_t grid_blocks;       /* blocks in the grid */
	uint32_t waves_milli;       /* grid / (blocks x SMs), x1000 */
	uint32_t tail_bp;           /* grid / (ceil(waves) x blocks x SMs): last-wave efficiency */
	struct gpa_occ_whatif whatif;
};

struct gpa_occ_step {
	uint32_t step;              /* gpa_steps.v index */
	uint64_t kernels, gpu_ns, known_ns;
	uint32_t weighted_bp;       /* time-weighted theoretical occupancy of its kernels */
};

struct gpa_occupancy {
	GP_VEC(struct gpa_occ_group) groups; /* by GPU time, largest first */
	GP_VEC(struct gpa_occ_step) steps;   /* empty without steps */
	uint64_t launches, unknown_launches; /* unknown: no occupancy (missing config, bad CC) */
	uint64_t gpu_ns, known_ns;
	uint32_t weighted_bp;                /* over every launch with a known occupancy */
};

/*
 * Theoretical occupancy of every kernel launch in m (matching o), grouped
 * by kernel, configuration and device; steps may be NULL. Device limits come
 * from the DEVICE record, else from the compute capability's defaults.
 * Returns 0, -GP_ERR_API for a bad regex (errbuf), -GP_ERR_NOMEM.
 */
int gpa_occupancy_analyze(const struct gpa_model *m, const struct gpa_steps *steps,
			  const struct gpa_occ_opts *o, struct gpa_occupancy *out, char *errbuf,
			  size_t errlen);
void gpa_occupancy_release(struct gpa_occupancy *occ);
/* The device limits of model device dev (recorded, else defaults); false when its CC is unknown. */
bool gpa_occ_dev_from_model(const struct gpa_model *m, uint16_t dev, struct gpa_occ_dev *d,
			    bool *defaults);

/* ------------------------------------------------------- end occupancy */

/* ------------------------------------------------------ device peaks */

/* Data types of the peak table. */
enum gpa_dtype {
	GPA_DT_FP64 = 0,    /* vector FP64 */
	GPA_DT_FP64_TC = 1, /* FP64 tensor core */
	GPA_DT_TF32 = 2,
	GPA_DT_BF16 = 3,    /* BF16 and FP16 tensor core, FP32 accumulate */
	GPA_DT_FP8 = 4,
	GPA_DT_INT8 = 5,    /* TOPS */
	GPA_DT_FP4 = 6,
	GPA_DT__COUNT = 7,
};

/* "fp64", "fp64-tc", "tf32", "bf16"/"fp16", "fp8", "int8", "fp4"; -1 when unknown. */
int gpa_dtype_parse(const char *s);
const char *gpa_dtype_name(enum gpa_dtype dt);

enum gpa_peak_source {
	GPA_PEAK_NONE = 0,     /* nothing known about the device */
	GPA_PEAK_TABLE = 1,    /* a row of the built-in table */
	GPA_PEAK_USER = 2,     /* a row of the user's device file */
	GPA_PEAK_ESTIMATE = 3, /* SMs x FLOP/clock/SM x clock: an estimate */
};

/* One GPU model: a row of the built-in table or of a user file. */
struct gpa_devrow {
	char key[32], name[64], patterns[160];
	uint8_t cc_major, cc_minor;
	uint32_t sms, mem_gib, boost_mhz;
	double tflops[GPA_DT__COUNT]; /* dense; 0: no such path */
	double mem_gbps;              /* GB/s */
	double nvlink_gbps;           /* total bidirectional GB/s; 0 none */
	uint8_t pcie_gen;             /* x16 host link generation; 0 none */
	bool disputed;                /* sources disagree: verify on the device */
};

/* The built-in table (analyze/devices.def). */
const struct gpa_devrow *gpa_devices_builtin(size_t *n);

/* Peaks of one device, from the table, a user file, overrides or an estimate. */
struct gpa_peaks {
	enum gpa_peak_source source;
	const char *name;             /* the row's name, "estimate" or "unknown"; static or borrowed */
	bool disputed, overridden;    /* overridden: --peak-tflops / --peak-bw applied */
	double scale;                 /* compute scale for partial devices (MIG): SMs / row SMs */
	double tflops[GPA_DT__COUNT];
	double mem_gbps;
	double nvlink_gbps;           /* total bidirectional; per direction is half */
	double pcie_gbps;             /* per direction, x16 */
	uint8_t pcie_gen;
};

/* What the command line can change. */
struct gpa_peak_opts {
	const char *device;           /* --device NAME: a table key or name fragment */
	double peak_tflops;           /* --peak-tflops: the chosen dtype's peak; 0 keep */
	enum gpa_dtype dtype;         /* the dtype peak_tflops sets */
	double peak_gbps;             /* --peak-bw: memory bandwidth GB/s; 0 keep */
	const struct gpa_devrow *user; /* rows of a --device-file, tried before the table */
	size_t nuser;
};

/*
 * The peaks of model device index dev (gpa_model.devs), matched on name,
 * compute capability, SM count and memory size; unknown parts get an
 * estimate from SMs x clock (source GPA_PEAK_ESTIMATE). Without options:
 * gpa_device_peaks(m, dev, &p). Returns 0; -GP_ERR_NOTFOUND when --device
 * names nothing (errbuf), -GP_ERR_API for a bad dev.
 */
int gpa_device_peaks_opts(const struct gpa_model *m, uint32_t dev, const struct gpa_peak_opts *o,
			  struct gpa_peaks *out, char *errbuf, size_t errlen);
int gpa_device_peaks(const struct gpa_model *m, uint32_t dev, struct gpa_peaks *out);
/* Matches a device description against rows (user first, then built-in); NULL none. */
const struct gpa_devrow *gpa_device_match(const char *name, unsigned cc_major, unsigned cc_minor,
					  uint32_t sms, uint64_t mem_bytes,
					  const struct gpa_devrow *user, size_t nuser);
/* PCIe x16 bandwidth per direction, GB/s (128b/130b encoding): gen 3 15.75, 4 31.5, 5 63, 6 126. */
double gpa_pcie_gbps(unsigned gen);

/*
 * Parses a device file (docs/mfu.md): one device per line of key=value
 * fields, '#' comments. Untrusted: errors name the file, line and problem.
 * Returns 0 with *rows (caller frees) or -GP_ERR_FORMAT / -GP_ERR_NOMEM.
 */
int gpa_devices_parse(const char *path, const char *text, size_t len, struct gpa_devrow **rows,
		      size_t *nrows, char *errbuf, size_t errlen);

/* -------------------------------------------------- end device peaks */

/* ---------------------------------------------------------- roofline */

/* User rules: a kernel-name pattern and FLOP and byte formulas (docs/mfu.md). */
struct gpa_roof_rules;
/* Parses a rules file (untrusted: errors name file, line, problem). Caller frees. */
int gpa_roof_rules_parse(const char *path, const char *text, size_t len,
			 struct gpa_roof_rules **out, char *errbuf, size_t errlen);
void gpa_roof_rules_free(struct gpa_roof_rules *rs);

enum gpa_roof_bound {
	GPA_ROOF_MEMORY = 1,   /* below the ridge */
	GPA_ROOF_COMPUTE = 2,  /* above it */
	GPA_ROOF_LATENCY = 3,  /* under 5 us a launch: not placed */
	GPA_ROOF_NO_VALUE = 4, /* the formulas gave no finite positive value */
	GPA_ROOF_NO_PEAK = 5,  /* the device has no peak for the datatype or no bandwidth */
};

/* One kernel and launch configuration with a rule. Per launch: flops, bytes. */
struct gpa_roof_row {
	uint32_t func, shape, rule;
	enum gpa_dtype dtype;
	uint64_t launches, gpu_ns;
	double flops, bytes, ai;          /* FLOP/byte */
	double attainable_tflops;         /* min(peak x grid share, ai x bandwidth) */
	double achieved_tflops;
	double efficiency;                /* speed-of-light time / actual time */
	enum gpa_roof_bound bound;
};

struct gpa_roofline {
	double peak_tflops, bw_gbps, ridge; /* of the analysis's datatype; ridge in FLOP/byte */
	GP_VEC(struct gpa_roof_row) rows;   /* by GPU time, largest first */
	uint64_t matched_ns, unmatched_ns, unmatched_launches;
};

/* Places every kernel a rule matches (first matching rule wins). rs may be NULL (nothing placed). */
int gpa_roofline_analyze(const struct gpa_model *m, const struct gpa_roof_rules *rs,
			 const struct gpa_peaks *pk, enum gpa_dtype dtype, struct gpa_roofline *out,
			 char *errbuf, size_t errlen);
void gpa_roofline_release(struct gpa_roofline *r);

/* ------------------------------------------------------ end roofline */

/* -------------------------------------------------------------- MFU */

struct gpa_mfu_opts {
	double flops_per_step;    /* model FLOPs per step, all GPUs together; 0: from the model */
	double params;            /* N: non-embedding parameters (active, for MoE) */
	double layers, hidden, seq_len, tokens_per_step;
	bool attention;           /* add the 12 x layers x hidden x seq_len term per token */
	bool inference;           /* forward only: 2N (+ 4 L h T) per token */
	bool recompute;           /* full activation recomputation: HFU adds a forward pass */
	double bytes_per_step;    /* MBU: bytes moved per step, all GPUs together; 0 none */
	uint32_t gpus;            /* GPUs the step runs on; 0: the traced devices */
	enum gpa_dtype dtype;
	struct gpa_peak_opts peaks;
	const struct gpa_roof_rules *roofline; /* --roofline rules; NULL none */
};

/* Per step. */
struct gpa_mfu_step {
	uint32_t step;            /* gpa_steps.v index */
	uint64_t wall_ns;
	double mfu, hfu, mbu;     /* fractions; < 0 when not computable */
	double tflops_per_gpu;    /* achieved model TFLOP/s per GPU */
};

/* Copies of one kind and direction. */
struct gpa_copy_bw {
	uint8_t copy_kind, src_kind, dst_kind;
	uint64_t count, bytes, ns;
	double gbps;              /* bytes / ns summed */
	double link_gbps;         /* the link it used, per direction; 0 unknown */
	const char *link;         /* "PCIe gen 5", "NVLink", "HBM", "" */
};

/* A copy much slower than its group. */
struct gpa_copy_outlier {
	uint32_t row;             /* gpa_model.copy */
	double gbps;
	const char *why;          /* "pageable host memory", "small transfer", "slow" */
};

struct gpa_mfu {
	struct gpa_peaks peaks;   /* of the first device */
	uint32_t gpus;
	double flops_per_step, hw_flops_per_step; /* 0 when not given */
	bool has_flops, has_bytes;
	GP_VEC(struct gpa_mfu_step) steps;
	double mfu_median, hfu_median, mbu_median; /* < 0 when not computable */
	GP_VEC(struct gpa_copy_bw) copies;
	GP_VEC(struct gpa_copy_outlier) outliers; /* slowest first, at most 20 */
	struct gpa_roofline roof; /* with opts.roofline */
};

/*
 * Model FLOPs per token for training (6N + 12 L h T with attention, PaLM
 * appendix B) or inference (2N + 4 L h T); hardware FLOPs add a forward pass
 * with recompute (8N + 16 L h T). Exposed for tests.
 */
double gpa_mfu_flops_per_token(const struct gpa_mfu_opts *o, bool hardware);

/*
 * Step MFU/HFU/MBU, copy bandwidth by kind against the link, slow copies.
 * Checks the options (finite, positive, not absurd) and returns -GP_ERR_API
 * with the reason in errbuf when one is not; -GP_ERR_NOTFOUND for an unknown
 * --device; -GP_ERR_NOMEM.
 */
int gpa_mfu_analyze(const struct gpa_model *m, const struct gpa_steps *steps,
		    const struct gpa_mfu_opts *o, struct gpa_mfu *out, char *errbuf, size_t errlen);
void gpa_mfu_release(struct gpa_mfu *u);

/* ---------------------------------------------------------- end MFU */
/* ------------------------------------------------------ communication */

/*
 * gpuprof comm (comm.c, docs/comm.md): NCCL operations by collective and
 * size, bandwidth with nccl-tests' bus factors, exposed communication per
 * device and step, and the same operation matched across ranks.
 */

/* Size buckets of an operation's message (the record's bytes). */
enum { GPA_COMM_BUCKETS = 5 };
/* "<64KiB", "64KiB-1MiB", "1-16MiB", "16-256MiB", ">=256MiB" */
const char *gpa_comm_bucket_name(unsigned b);

/* Canonical collective name ("AllReduce", ...) for a func as any source spells it; NULL unknown. */
const char *gpa_comm_canonical(const char *func);
/*
 * nccl-tests' bus bandwidth factor and data size of collective func over n
 * ranks: size = bytes * *mult, busbw = algbw * factor. Unknown: 1 and 1.
 */
double gpa_comm_bus_factor(const char *canonical, int n, unsigned *mult);

/*
 * The per-direction link peak of model device dev in GB/s, for busbw
 * efficiency: half the device table's bidirectional NVLink figure, else its
 * PCIe x16 figure; 0 when the device is not in the table (or a user file).
 */
double gpa_comm_link_peak_gbps(const struct gpa_model *m, uint32_t dev);

/* How communication kernels were told apart. */
enum gpa_comm_ident {
	GPA_COMM_BY_NONE = 0,
	GPA_COMM_BY_RECORDS = 1, /* NCCL records linked to kernels */
	GPA_COMM_BY_NAMES = 2,	 /* name rules only */
	GPA_COMM_BY_BOTH = 3,	 /* records where linked, names for the rest */
};

struct gpa_comm_opts {
	const struct gpa_steps *steps;	  /* borrowed; NULL: whole trace per device */
	const char *const *kernel_rules; /* extra PCRE2 patterns naming comm kernels */
	size_t nkernel_rules;
};

/* One collective type and size bucket. */
struct gpa_comm_coll {
	uint32_t func; /* model string id of the canonical (or recorded) name */
	uint8_t bucket;
	int32_t nranks;		  /* largest communicator seen */
	uint64_t count;		  /* operations */
	uint64_t time;		  /* their durations (GPU when known, else host), summed */
	uint64_t bw_time;	  /* time used for bandwidth: the fastest rank's, when matched */
	uint64_t bytes;		  /* messages, summed */
	uint64_t data;		  /* nccl-tests data size S, summed */
	uint64_t gpu_known;	  /* operations with a GPU interval */
	double algbw, busbw;	  /* GB/s (1e9 B/s) over the bucket: sum S / sum bw_time */
	double peak;		  /* link peak GB/s; 0 unknown */
};

/* Communication on one device in one step (step GPA_NONE: the device's total). */
struct gpa_comm_dev {
	uint32_t dev, step;
	uint64_t comm;	  /* |C|: union of communication kernel time */
	uint64_t overlap; /* |C intersect K|: with compute kernels running */
	uint64_t exposed; /* |C \ K| */
	uint64_t compute; /* |K| */
	uint64_t kernels; /* communication kernels */
};

/* One rank's part in operations matched across ranks. */
struct gpa_comm_rank {
	uint32_t proc;
	int32_t rank;
	uint64_t matched;   /* its operations matched on other ranks */
	uint64_t last;	    /* times it arrived last */
	uint64_t caused;    /* time the other ranks waited for it when it was last */
	uint64_t waited;    /* time it waited for the last arrival */
	uint64_t late_sum;  /* its arrival minus the first arrival, summed */
};

struct gpa_comm {
	GP_VEC(struct gpa_comm_coll) colls; /* by total time, longest first */
	GP_VEC(struct gpa_comm_dev) devs;   /* by device, then step; totals (step NONE) last */
	GP_VEC(struct gpa_comm_rank) ranks; /* by rank */
	uint64_t ops, p2p_ops;		    /* NCCL operations (and point-to-point among them) */
	uint64_t ops_gpu;		    /* with a GPU interval */
	uint64_t comm_kernels, by_record, by_name;
	enum gpa_comm_ident ident;
	uint64_t groups;	 /* operations matched across 2+ ranks */
	uint64_t unmatched;	 /* collectives with comm and seq found on one rank only */
	uint64_t skew_max, skew_sum;
	uint32_t straggler;	 /* gpa_comm.ranks index arriving last most often, or GPA_NONE */
	bool peak_known;
};

void gpa_comm_opts_init(struct gpa_comm_opts *o);
/*
 * Analyses the model's NCCL operations and communication kernels. Returns
 * 0, -GP_ERR_API for a bad kernel rule (reason in errbuf), -GP_ERR_NOMEM.
 */
int gpa_comm_analyze(const struct gpa_model *m, const struct gpa_comm_opts *o,
		     struct gpa_comm *out, char *errbuf, size_t errlen);
void gpa_comm_release(struct gpa_comm *c);

/* ------------------------------------------------------ end communication */

#endif /* GPA_ANALYZE_H */
