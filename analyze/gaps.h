/* SPDX-License-Identifier: MIT */
/*
 * gaps.h - idle gaps on each device and their causes (analyze/gaps.c,
 * docs/gaps.md).
 */
#ifndef GPA_GAPS_H
#define GPA_GAPS_H

#include "analyze/model.h"

struct gpa_steps;
struct gpa_commclass;

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
	GPA_GAP_DATA = 2,       /* inside a data-loader range (opts.data_regex) */
	GPA_GAP_MEMORY = 3,     /* inside memory management: cudaMalloc, cudaFree, host
				 * registration */
	GPA_GAP_JIT = 4,        /* module load, JIT, graph instantiation, lazy function loading */
	GPA_GAP_LAUNCH = 5,     /* inside launch calls, or the device's latency for queued work */
	GPA_GAP_CPU = 6,        /* busy outside CUDA calls (Python, framework) */
	GPA_GAP_COMM = 7,       /* queued work waiting on communication (analyze/commclass.h) */
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

/*
 * Default data-loader pattern (PCRE2) for range names: the PyTorch DataLoader
 * iterator's annotation ("enumerate(DataLoader)#_...Iter.__next__"), Python
 * frames of torch/utils/data/, and ranges a user named as loading
 * ("data_loading", "DataLoader", "load_batch", "fetch_batch", "next_batch").
 * Never a bare word such as "input" or "fetch": inference harnesses name
 * their model calls so.
 */
#define GPA_GAP_DATA_PATTERN "(?i)enumerate\\(DataLoader\\)|torch/utils/data/|data.?load|(load|fetch|next|get).?batch"

/*
 * Data-loader ranges during which a GPU of the same process was busy for at
 * least this share of their time are conflicting evidence (gpa_gaps.data_conflict).
 */
#define GPA_GAP_DATA_CONFLICT_PCT 50

struct gpa_gaps_opts {
	int64_t device;        /* CUDA device ordinal (in every process) to analyze; -1 all */
	uint64_t min_gap_ns;   /* gaps this long or longer are listed (totals count every gap) */
	size_t top;            /* longest gaps kept in gpa_gaps.top; 0 none, SIZE_MAX all */
	uint64_t latency_ns;   /* queued gaps shorter than this are launch latency */
	const char *data_regex; /* data-loader range names; NULL: GPA_GAP_DATA_PATTERN */
	const struct gpa_commclass *comm; /* borrowed; NULL: computed with the defaults */
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
	uint32_t ev_kernel; /* COMM: the communication kernel waited on (gpa_model.kern row) */
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
	/*
	 * The data-loader ranges (every device of their process, whatever
	 * opts.device): how many, the time they cover (their union per
	 * process, summed), and of that the time a GPU of the same process was
	 * busy. Loading while the GPU works is not what kept it idle: with
	 * data_conflict set (busy >= GPA_GAP_DATA_CONFLICT_PCT % of the
	 * ranges' time), idle blamed on data loading is to be trusted less.
	 */
	uint64_t data_ranges, data_range_ns, data_gpu_busy_ns;
	bool data_conflict;
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

#endif /* GPA_GAPS_H */
