/* SPDX-License-Identifier: MIT */
/*
 * memory.h - GPU memory over time (gpuprof memory, docs/memory.md): from
 * the model's memory events, per device of each process ("pool"): bytes
 * allocated and reserved after every event, the peak and what was live at
 * it grouped by the range that allocated it, each step's peak and bytes
 * live at its end (growth step over step: a leak, with the sites that
 * allocated what stayed), reserved minus allocated at the peak, the
 * allocations freed inside the step that made them, and the time spent in
 * memory-management calls.
 */
#ifndef GPA_MEMORY_H
#define GPA_MEMORY_H

#include "analyze/model.h"

struct gpa_steps;

struct gpa_memory_opts {
	const struct gpa_steps *steps; /* borrowed; NULL: no per-step figures */
	size_t top;                    /* owners kept at each peak and leak (10) */
	uint64_t gap_memory_ns;        /* idle GPU time the gap analysis blamed on memory
					* management; reported as given (0 none) */
	bool gap_known;                /* the gap analysis ran */
};

void gpa_memory_opts_init(struct gpa_memory_opts *o);
/*
 * Sets o's gap_memory_ns and gap_known from a gap analysis of m with the
 * default options (the idle GPU time it blames on memory management);
 * leaves them unset when m has no GPU work or that analysis fails.
 */
void gpa_memory_opts_gaps(struct gpa_memory_opts *o, const struct gpa_model *m,
			  const struct gpa_steps *steps);

/* The phase of a training step an allocation was made in, from its ranges' names. */
enum gpa_mem_phase {
	GPA_MEM_PHASE_UNKNOWN = 0,
	GPA_MEM_PHASE_FORWARD = 1,
	GPA_MEM_PHASE_BACKWARD = 2,
	GPA_MEM_PHASE_OPTIMIZER = 3,
};

/* Stable key of a phase ("backward"); "unknown" when out of range. */
const char *gpa_mem_phase_name(unsigned phase);

/* Bytes live at one moment that one range allocated. */
struct gpa_mem_owner {
	uint32_t name;  /* model string id of the allocating range; 0: no range on the thread */
	uint8_t phase;  /* enum gpa_mem_phase */
	uint64_t bytes;
	uint64_t count; /* allocations */
};

struct gpa_mem_step {
	uint32_t step;               /* gpa_steps.v index */
	int64_t number;
	uint64_t start, end;         /* its stretch: the step's start to its end or to just
				      * before the next step's start, whichever comes first */
	uint64_t peak, peak_ts;      /* most allocated inside it (0 when no event) */
	uint64_t end_live;           /* allocated at its end */
	uint64_t allocs, alloc_bytes;
	uint64_t churn, churn_bytes; /* allocations freed inside the step that made them */
	bool has_events;
};

struct gpa_mem_pool {
	uint32_t proc;
	uint32_t dev_id;             /* device ordinal in the process */
	uint8_t dev_type;            /* the source's device type */
	bool host;                   /* host (CPU) memory */
	bool rebuilt;                /* some event had no total: rebuilt from the sizes */
	bool has_reserved;           /* the source gave reserved totals */
	uint64_t events, allocs, frees, alloc_bytes, free_bytes;
	uint64_t unmatched_frees;    /* releases of addresses the trace never saw allocated */
	uint64_t first_ts, last_ts;
	uint64_t peak, peak_ts;      /* most allocated, its first time */
	uint32_t peak_event;         /* gpa_model.mem index */
	uint64_t peak_reserved;      /* reserved at the peak (has_reserved) */
	uint64_t max_reserved;
	uint8_t peak_phase;          /* phase of the allocation that reached the peak */
	uint64_t capacity;           /* the device's global memory, 0 unknown */
	uint64_t live_seen;          /* bytes live at the peak whose allocation the trace has */
	GP_VEC(struct gpa_mem_owner) owners; /* at the peak, most bytes first (top) */
	uint64_t owners_total;       /* distinct owners at the peak */
	GP_VEC(struct gpa_mem_step) steps;   /* the steps of its process, in order */
	/* Leak: bytes live at step end rising at every step (3 steps or more). */
	bool leak;
	uint64_t leak_per_step;      /* (last - first) / (steps - 1), bytes */
	GP_VEC(struct gpa_mem_owner) leak_sites; /* allocated in the steps, live at the last end */
};

struct gpa_memory {
	size_t top;
	uint64_t events;             /* memory events analyzed */
	GP_VEC(struct gpa_mem_pool) pools; /* by process, then host last, then device */
	/*
	 * Per gpa_model.mem event: its pool's bytes allocated after it, and its
	 * pool. Read them through gpa_memory_alloc_at and gpa_memory_pool_at:
	 * ev_alloc is the model's total_alloc column (borrowed: the model must
	 * outlive the result) when every event carries the source's total, else
	 * ev_alloc_own; ev_pool is NULL while there is one pool.
	 */
	const uint64_t *ev_alloc;
	uint64_t *ev_alloc_own;
	uint32_t *ev_pool;
	/* Memory-management API calls (cudaMalloc, cudaFree and friends). */
	uint64_t mm_calls, mm_ns, mm_longest;
	uint32_t mm_longest_name;    /* model string id */
	uint64_t gap_memory_ns;
	bool gap_known;
};

/* The bytes allocated in event i's pool after it. */
static inline uint64_t gpa_memory_alloc_at(const struct gpa_memory *r, size_t i)
{
	return r->ev_alloc ? r->ev_alloc[i] : 0;
}

/* The pool of event i (a gpa_memory.pools index). */
static inline uint32_t gpa_memory_pool_at(const struct gpa_memory *r, size_t i)
{
	return r->ev_pool ? r->ev_pool[i] : 0;
}

/*
 * Analyzes the model's memory events into *out (zeroed by the call).
 * Returns 0 or -GP_ERR_NOMEM (errbuf says so). A model without memory
 * events gives no pools. Release with gpa_memory_release.
 */
int gpa_memory_analyze(const struct gpa_model *m, const struct gpa_memory_opts *o,
		       struct gpa_memory *out, char *errbuf, size_t errlen);
void gpa_memory_release(struct gpa_memory *r);

#endif /* GPA_MEMORY_H */
