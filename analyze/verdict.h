/* SPDX-License-Identifier: MIT */
/*
 * verdict.h - what bounds the step, from the critical path (analyze/verdict.c,
 * docs/report.md "The verdict").
 *
 * The report's first sentence, the findings' bounds and diff's explanation
 * read one causal model: the critical path of each step (analyze/critpath.h).
 * The verdict sums the path's categories over the steady steps (warm-up
 * steps left out and shown apart), names the largest group as the bound
 * with its share of step time, and splits the GPU time on the path into
 * compute, copies (by direction) and communication.
 */
#ifndef GPA_VERDICT_H
#define GPA_VERDICT_H

#include "analyze/critpath.h"

struct gpa_steps;

enum gpa_bound {
	GPA_BOUND_NO_GPU = 0,   /* no GPU work: nothing to judge */
	GPA_BOUND_UNKNOWN = 1,  /* too little GPU work to name a bound */
	GPA_BOUND_COMPUTE = 2,  /* kernels */
	GPA_BOUND_COPY = 3,     /* memcpy and memset */
	GPA_BOUND_COMM = 4,     /* communication and waiting for other ranks */
	GPA_BOUND_HOST = 5,     /* host CPU work between CUDA calls */
	GPA_BOUND_DATA = 6,     /* data loading on the host */
	GPA_BOUND_LAUNCH = 7,   /* launch calls and launch latency */
	GPA_BOUND_SYNC = 8,     /* synchronize/query calls and their latency */
	GPA_BOUND_DEPEND = 9,   /* GPU ops waiting on other streams or nothing shown */
	GPA_BOUND_WARMUP = 10,  /* one-off start-up, with no steady part to judge */
	GPA_BOUND_MIXED = 11,   /* no group reaches GPA_VERDICT_MIN_BP of the path */
	GPA_BOUND__COUNT = 12,
};

/* A bound is named when its group holds at least this share of path time (basis points). */
#define GPA_VERDICT_MIN_BP 3500
/* With fewer GPU operations the bound is unknown. */
#define GPA_VERDICT_FEW_OPS 20
/* A process's first step is warm-up when its path is this many times its later steps' median. */
#define GPA_VERDICT_WARM_RATIO 2
/* ... and at least this many steps of the process follow it. */
#define GPA_VERDICT_WARM_STEPS 2

/* Copy directions: those of the critical path (enum gpa_cp_copy). */
enum gpa_copy_dir {
	GPA_CDIR_H2D = GPA_CPC_H2D,
	GPA_CDIR_D2H = GPA_CPC_D2H,
	GPA_CDIR_D2D = GPA_CPC_D2D,
	GPA_CDIR_OTHER = GPA_CPC_OTHER,
	GPA_CDIR__COUNT = GPA_CPC__COUNT,
};

struct gpa_bound_verdict {
	uint8_t bound;                   /* enum gpa_bound */
	uint32_t share_bp;               /* the bound's group's share of the steady path */
	uint64_t path_ns;                /* steady path time, summed over steady steps */
	uint64_t cat_ns[GPA_CP__COUNT];  /* steady path time by category */
	uint64_t all_ns[GPA_CP__COUNT];  /* every step's path time by category (findings' caps) */
	uint64_t copy_ns[GPA_CDIR__COUNT]; /* steady copy time on the path by direction */
	uint64_t copy_pageable_ns;       /* of which copies from or to pageable host memory */
	uint64_t warm_ns;                /* warm-up: the warm-up steps' path plus warm-up time */
	uint32_t steps, warm_steps;      /* steps analysed; of which warm-up (left out) */
	uint64_t step_median_ns;         /* median path time of the steady steps */
	uint64_t prelude_ns;             /* steady steps: host time before each first GPU op
					  * while the GPU had nothing to run */
	uint64_t wall_ns, busy_ns, busy_basis_ns; /* steady steps: wall, GPU busy, its basis */
	uint64_t gpu_ops;                /* GPU operations in the trace */
	bool whole;                      /* one window over the whole trace, no steps */
	/*
	 * The share of each process's span (its first step or GPU op to its
	 * last) that its steps cover, in basis points; 10000 for a whole trace.
	 * Below GPA_VERDICT_COVER_BP the paths leave out time the findings see.
	 */
	uint32_t cover_bp;
};

/* The steps' paths bound the findings only when the steps cover this much of the span. */
#define GPA_VERDICT_COVER_BP 9000

/* Stable key of a bound ("copy", "host", "none"...); "unknown" out of range. */
const char *gpa_bound_name(unsigned b);
/* The bound's group of critical-path category cat. */
unsigned gpa_bound_of_cat(unsigned cat);

/*
 * The verdict of cp, the critical path of the steps of m.
 * Fills *out. Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_verdict_build(const struct gpa_model *m, const struct gpa_steps *steps,
		       const struct gpa_critpath *cp, struct gpa_bound_verdict *out);

#endif /* GPA_VERDICT_H */
