/* SPDX-License-Identifier: MIT */
/*
 * breakdown.h - temporal breakdown, per-stream idle breakdown, kernel-type
 * shares and communication-computation overlap (analyze/breakdown.c,
 * docs/hta-parity.md): the analyses of Holistic Trace Analysis (HTA), exact in
 * ns by default, or with HTA's quirks (enum gpa_bd_flags) so that its numbers
 * are reproduced.
 */
#ifndef GPA_BREAKDOWN_H
#define GPA_BREAKDOWN_H

#include "analyze/model.h"

/* Kernel classes, as bits: a set of them labels each instant of busy time. */
enum gpa_bd_class {
	GPA_BD_COMP = 1 << 0, /* computation */
	GPA_BD_COMM = 1 << 1, /* communication (analyze/commclass.h; HTA's names with NAME_ONLY) */
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

struct gpa_commclass;

struct gpa_breakdown_opts {
	unsigned flags;          /* enum gpa_bd_flags */
	int64_t kernel_wait_ns;  /* idle intervals shorter than this are kernel wait (30 us) */
	/*
	 * Which ops are communication (analyze/commclass.h), borrowed; NULL:
	 * computed with the defaults. Unused with GPA_BD_NAME_ONLY (HTA's names).
	 */
	const struct gpa_commclass *comm;
};

/* Defaults: exact (no flags), kernel wait below 30 us, the shared comm classification. */
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

/*
 * Per process (last has m->procs.n slots): the start of its last
 * ProfilerStep#N when it has >= 2 distinct ones, else INT64_MIN: HTA's
 * last-step filter (GPA_BD_LAST_STEP). 0 or -GP_ERR_NOMEM.
 */
int gpa_bd_last_step_starts(const struct gpa_model *m, int64_t *last);

#endif /* GPA_BREAKDOWN_H */
