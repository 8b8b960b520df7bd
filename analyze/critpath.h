/* SPDX-License-Identifier: MIT */
/*
 * critpath.h - the critical path of each step and what-if re-timing
 * (analyze/critpath.c, docs/critical-path.md).
 *
 * Per step (or one window) a dependency graph of the step's work: top-level
 * CPU API calls in order per thread (calls nested in another call of the
 * same thread belong to it); a launch call -> the kernel, copy or memset it
 * launched (correlation); the order of each stream; a host synchronization
 * (a CUPTI SYNC record's call, a *Synchronize call, a synchronous copy) ->
 * the GPU work it waited for (the latest op, of its stream for a stream
 * sync, that ended while the call was blocked); an event's recording (the
 * last op launched on its stream before cudaEventRecord) -> the first op
 * launched on a stream after its cudaStreamWaitEvent, and -> the end of a
 * cudaEventSynchronize it held (gpa_syncs rec_corr, analyze/model.h); where
 * no event is known, a GPU op that started later than its launch and its
 * stream allowed -> the op of another stream of its device that ended last
 * before it (an inferred cross-stream dependency); a GPU op the host polled
 * (event/stream queries) or spun on (a host gap ending just after it) -> the
 * first call after the wait. With several ranks'
 * traces, a collective's kernel waits for the last other rank to arrive
 * (the same communicator, collective and sequence number, as `comm`
 * matches them; a rank arrives when its kernel starts): that time is
 * "wait-rank", and the what-if keeps the other ranks' arrivals.
 *
 * Every edge has a lag taken from the trace: the CPU time between two calls
 * of a thread is kept whatever changes; the edge that set a node's start in
 * the recorded trace keeps the recorded lag, the others their least one
 * (0 on a stream; a launch's call duration). Earliest-start propagation over
 * this DAG reproduces the trace exactly; with kernels made faster or removed
 * it gives the new step time. The critical path is traced back from the
 * last node to end, and every ns of the step lands in one category.
 */
#ifndef GPA_CRITPATH_H
#define GPA_CRITPATH_H

#include "analyze/model.h"

struct gpa_steps;
struct gpa_commclass;

enum gpa_cp_cat {
	GPA_CP_CPU = 0,         /* API calls and host time between them */
	GPA_CP_LAUNCH = 1,      /* launch calls and launch latency to the GPU op's start */
	GPA_CP_KERNEL = 2,      /* compute kernels */
	GPA_CP_COPY = 3,        /* memcpy and memset */
	GPA_CP_COMM = 4,        /* communication kernels and peer copies (analyze/commclass.h) */
	GPA_CP_WAIT_STREAM = 5, /* a GPU op waiting for another stream's op */
	GPA_CP_WAIT_RANK = 6,   /* a collective's kernel waiting for the last rank to arrive */
	GPA_CP_IDLE = 7,        /* a stream that waited for nothing the graph shows */
	GPA_CP_SYNC = 8,        /* synchronize and query calls, and the host's latency in
				 * seeing a GPU op it waited for finish */
	GPA_CP_DATA = 9,        /* host time inside data-loader ranges (opts.data_regex) */
	GPA_CP_WARMUP = 10,     /* one-off start-up: context creation, module and library
				 * loading, the first call of a process */
	GPA_CP__COUNT = 11,
};

/* Stable key of a category ("launch-overhead"); "unknown" when out of range. */
const char *gpa_cp_cat_name(unsigned cat);

struct gpa_critpath_opts {
	const struct gpa_commclass *comm; /* borrowed; required */
	const char *speedup_regex;        /* kernels, CPU ops taking speedup times less; NULL none */
	double speedup;                   /* > 0 */
	const char *remove_regex;         /* kernels, CPU ops removed (duration 0); NULL none */
	const char *data_regex;           /* data-loader range names; NULL GPA_GAP_DATA_PATTERN */
	bool window;                      /* one window instead of the steps */
	uint64_t win_start, win_end;      /* model timeline, end exclusive */
	size_t top;                       /* longest path segments kept per step */
	bool keep_path;                   /* keep every event on each path (gpa_critpath.path) */
	/*
	 * critical-path --mpi: per gpa_nccl op of the model, the last other
	 * rank's arrival (0 none; gpa_cp_match_arrivals) instead of matching
	 * the model's own processes; borrowed, nop_last entries. NULL: matched
	 * within the model.
	 */
	const uint64_t *op_last;
	size_t nop_last;
	/*
	 * Threads for the steps (0 or 1: the calling thread): with 2 or more,
	 * the steps are split in two runs of about as many GPU ops, the later
	 * run on a thread of its own; the result is the same.
	 */
	unsigned threads;
};

/* One segment of a critical path: a node's own time or an edge's lag. */
struct gpa_cp_seg {
	uint64_t start, end;
	uint32_t row;  /* gpa_model.api row (API), gpa_model.gpu row (GPU), GPA_NONE */
	uint8_t cat;   /* enum gpa_cp_cat */
	uint8_t kind;  /* 0 an API call, 1 a GPU op, 2 no event (step edge) */
	bool edge;     /* a lag between two events rather than an event's own time */
};

/* Copies on a path by direction (gpa_cp_path.copy_ns). */
enum gpa_cp_copy { GPA_CPC_H2D = 0, GPA_CPC_D2H, GPA_CPC_D2D, GPA_CPC_OTHER, GPA_CPC__COUNT };

struct gpa_cp_path {
	uint64_t end;                  /* the step's end: the last node's */
	uint64_t cat_ns[GPA_CP__COUNT]; /* sums to end - gpa_cp_step.start */
	/* cat_ns[GPA_CP_COPY] by direction (memsets and held starts: other), and pageable */
	uint64_t copy_ns[GPA_CPC__COUNT], pageable_ns;
	size_t segs;                   /* segments on the path */
	size_t top_first, top_n;       /* its longest segments in gpa_critpath.segs */
	size_t path_first, path_n;     /* with keep_path: its events in order, in .path */
};

struct gpa_cp_step {
	uint32_t step;          /* gpa_steps.v index; GPA_NONE for a window */
	uint32_t proc;          /* GPA_NONE for a window */
	uint64_t start;
	uint32_t nodes;         /* API calls, GPU ops and the step's end */
	uint32_t matched;       /* kernels the what-if changed */
	struct gpa_cp_path now; /* as recorded */
	struct gpa_cp_path what_if; /* re-timed (equal to now without what-if) */
};

struct gpa_critpath {
	bool what_if;
	uint64_t cycles; /* nodes left out of a step's order (edges of bad data closing a cycle) */
	GP_VEC(struct gpa_cp_step) steps;
	GP_VEC(struct gpa_cp_seg) segs;
	GP_VEC(struct gpa_cp_seg) path; /* with keep_path: each path's events, first to last */
};

/*
 * Analyzes each step of steps (or o->window). Fills *out (release with
 * gpa_critpath_release, also after an error). Returns 0; -GP_ERR_API for
 * a bad pattern, a speedup <= 0 or no commclass (reason in errbuf);
 * -GP_ERR_NOMEM.
 */
int gpa_critpath_analyze(const struct gpa_model *m, const struct gpa_steps *steps,
			 const struct gpa_critpath_opts *o, struct gpa_critpath *out, char *errbuf,
			 size_t errlen);
void gpa_critpath_release(struct gpa_critpath *c);

/* ---- the cross-rank wait of ranks analysed apart (critical-path --mpi, docs/cluster.md) */

/* A collective's arrival on one rank, keyed as the analysis matches them across ranks. */
struct gpa_cp_arrival {
	uint64_t hash, seq;  /* communicator, sequence number */
	const char *func;    /* the collective's name; borrowed */
	uint64_t start;      /* its host start, job timeline */
	uint64_t t;          /* its arrival (first kernel's start, else GPU start, else call) */
	uint32_t proc;       /* the rank's place among the job's processes */
	uint32_t op;         /* its gpa_nccl op index in its own model */
	uint64_t last;       /* gpa_cp_match_arrivals: the last other rank's arrival; 0 none */
};

/*
 * The arrivals of m's matched collectives (not point-to-point), times plus
 * shift (onto the job's timeline), func borrowed from m; *out the caller
 * frees. Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_cp_arrivals(const struct gpa_model *m, int64_t shift, uint32_t proc,
		    struct gpa_cp_arrival **out, size_t *n);
/*
 * Sorts every rank's arrivals by collective and fills each one's last as
 * the analysis of one model holding every rank would (ops of a collective
 * in host start order, ties by proc).
 */
void gpa_cp_match_arrivals(struct gpa_cp_arrival *v, size_t n);

/* The event of a segment: an API call's or kernel's name, "memcpy", "memset", "step end". */
const char *gpa_cp_seg_name(const struct gpa_model *m, const struct gpa_cp_seg *g);

/* The category with the most time of p (the step's bound). */
unsigned gpa_cp_bound(const struct gpa_cp_path *p);

#endif /* GPA_CRITPATH_H */
