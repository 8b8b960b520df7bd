/* SPDX-License-Identifier: MIT */
/*
 * findings.h - ranked findings (analyze/findings.c, docs/report.md): what
 * costs step time, an upper bound of what fixing it could recover, the
 * events behind it, how sure the analysis is and what to run next.
 *
 * Findings decide nothing about classification themselves: they read the
 * results of the other analyses (gap causes, communication, occupancy, copy
 * bandwidth, roofline) through struct gpa_findings_in, so a better
 * classifier there changes the findings without touching this code.
 */
#ifndef GPA_FINDINGS_H
#define GPA_FINDINGS_H

#include "analyze/critpath.h"
#include "analyze/model.h"

struct gpa_comm;
struct gpa_memory;
struct gpa_gaps;
struct gpa_mfu;
struct gpa_occupancy;
struct gpa_steps;
struct gpa_bound_verdict;

/*
 * Memory findings (from gpa_memory; they cost no GPU time and do not enter
 * the ranking): a peak at or above GPA_FINDING_MEM_PEAK_PCT % of the
 * device's memory; bytes live at step end rising at every step by at least
 * GPA_FINDING_MEM_LEAK_BYTES a step; reserved minus allocated at the peak
 * of at least GPA_FINDING_MEM_FRAG_BYTES and GPA_FINDING_MEM_FRAG_PCT % of
 * what was reserved.
 */
#define GPA_FINDING_MEM_PEAK_PCT 75
#define GPA_FINDING_MEM_LEAK_BYTES (1ull << 20)
#define GPA_FINDING_MEM_FRAG_BYTES (256ull << 20)
#define GPA_FINDING_MEM_FRAG_PCT 25

enum gpa_mem_finding_kind {
	GPA_MEMF_PEAK = 1, /* bytes: the peak, of: capacity */
	GPA_MEMF_LEAK = 2, /* bytes: growth per step, of: steps */
	GPA_MEMF_FRAG = 3, /* bytes: reserved - allocated at the peak, of: reserved */
};

struct gpa_mem_finding {
	uint8_t kind;     /* enum gpa_mem_finding_kind */
	uint8_t phase;    /* GPA_MEMF_PEAK: enum gpa_mem_phase of the peak */
	uint32_t pool;    /* gpa_memory.pools index */
	uint64_t bytes, of;
	uint32_t owner;   /* model string id of the top owner (peak) or site (leak); 0 none */
	uint64_t owner_bytes;
};

/* A finding is material when its bound reaches this share of GPU time (basis points). */
#define GPA_FINDING_MATERIAL_BP 500
/* ... and major from this share. */
#define GPA_FINDING_MAJOR_BP 2000
/* Kernels shorter than this count as small (launch-bound finding). */
#define GPA_FINDING_SMALL_KERNEL_NS 10000
/* Launch-bound needs this many gaps of cause launch overhead, averaging at most... */
#define GPA_FINDING_LAUNCH_GAPS 20
#define GPA_FINDING_LAUNCH_GAP_NS 50000
/* With fewer GPU operations than this, every finding has low confidence. */
#define GPA_FINDING_FEW_OPS 20
/* Hot kernel groups: at least this share of kernel time (basis points)... */
#define GPA_FINDING_HOT_BP 500
/* ... with a theoretical occupancy under this (basis points) are low-occupancy. */
#define GPA_FINDING_LOW_OCC_BP 2500
/* Host-device copies under this many bytes count as small. */
#define GPA_FINDING_SMALL_COPY_BYTES 65536
/* Host work before the steps' first GPU ops is a finding from this share of their wall time. */
#define GPA_FINDING_PRELUDE_PCT 10
/* Events kept as evidence per finding. */
#define GPA_FINDING_EVENTS 3
/* Idle mostly inside stream captures: at least this share of it (and the rest not material). */
#define GPA_FINDING_CAPTURE_PCT 50

enum gpa_finding_cat {
	GPA_FIND_IDLE = 0,        /* idle by one cause (gpa_finding.cause) */
	GPA_FIND_COMM = 1,        /* communication not overlapped with compute */
	GPA_FIND_STRAGGLER = 2,   /* other ranks wait for one rank */
	GPA_FIND_LAUNCH = 3,      /* launch-bound: small kernels launched one by one */
	GPA_FIND_OCCUPANCY = 4,   /* low theoretical occupancy on hot kernels */
	GPA_FIND_COPIES = 5,      /* pageable or small host-device copies */
	GPA_FIND_MEMORY = 6,      /* memory-bound kernels below the roofline (with --roofline) */
	GPA_FIND_PROFILER = 7,    /* idle caused by the profiler itself */
	GPA_FIND_COPY_BOUND = 8,  /* copies are the step's bound (the verdict) */
	GPA_FIND_PRELUDE = 9,     /* host work before a step's first GPU op */
	GPA_FIND_WARMUP = 10,     /* one-off start-up on the path, left out of the verdict */
	GPA_FIND_OLD_ARCH = 11,   /* kernels built for an architecture two generations older */
	GPA_FIND__COUNT = 12,
};

/* Stable key of a category ("idle", "exposed-communication", ...). */
const char *gpa_finding_cat_name(unsigned cat);

enum gpa_confidence {
	GPA_CONF_LOW = 0,
	GPA_CONF_MEDIUM = 1,
	GPA_CONF_HIGH = 2,
};

/* "low", "medium", "high". */
const char *gpa_confidence_name(unsigned c);

/* What one evidence event refers to. */
enum gpa_fev_kind {
	GPA_FEV_GAP = 1,    /* row: index in gpa_gaps.top */
	GPA_FEV_DEVICE = 2, /* dev: a device's total (exposed communication) */
	GPA_FEV_RANK = 3,   /* row: index in gpa_comm.ranks */
	GPA_FEV_KERNEL = 4, /* row: index in gpa_occupancy.groups, or a gpa_model.funcs row
			     * when func_only (launch-bound, roofline) */
	GPA_FEV_COPY = 5,   /* row: gpa_model.copy row */
	GPA_FEV_ARCH = 6,   /* row: a gpa_model.funcs row; value_bp: its arch x 1000 + the
			     * device's (major x 10 + minor: sm100 and cc 10.0 are 100) */
};

struct gpa_finding_event {
	uint8_t kind;        /* enum gpa_fev_kind */
	bool func_only;      /* GPA_FEV_KERNEL: row is a gpa_model.funcs row */
	uint16_t dev;        /* model device, where one applies */
	uint32_t row;
	uint32_t step;       /* gpa_steps.v index, or GPA_NONE */
	uint64_t start;      /* model timeline; 0 when not an interval */
	uint64_t ns;         /* its time: a gap's length, a device's exposed time, ... */
	uint64_t count;      /* launches, operations, gaps behind it (0: one event) */
	uint32_t value_bp;   /* occupancy or efficiency in basis points, where one applies */
};

struct gpa_finding {
	uint8_t cat;               /* enum gpa_finding_cat */
	uint8_t cause;             /* GPA_FIND_IDLE: enum gpa_gap_cause */
	uint8_t conf;              /* enum gpa_confidence */
	bool material, major;
	uint64_t cost_ns;          /* upper bound of recoverable device time, ns */
	uint64_t count;            /* gaps, kernels, copies, operations behind it */
	uint64_t count_ns;         /* their time (for idle: the cost itself) */
	uint64_t aux, aux2;        /* category-specific: see docs/report.md */
	bool off_path;             /* nothing of its cause is on the critical path */
	uint64_t unbound_ns;       /* its own estimate, before the critical path bounded it */
	const char *conf_reason;   /* static sentence */
	const char *next;          /* static command line; TRACE stands for the inputs */
	struct gpa_finding_event ev[GPA_FINDING_EVENTS];
	size_t nev;
};

/* The analyses findings read; each may be NULL (its findings are skipped). */
struct gpa_findings_in {
	const struct gpa_model *m;          /* required */
	const struct gpa_steps *steps;
	const struct gpa_gaps *gaps;        /* idle by cause, the longest gaps; also the basis */
	const struct gpa_comm *comm;        /* exposed communication, stragglers */
	const struct gpa_occupancy *occ;    /* low occupancy on hot kernels */
	const struct gpa_mfu *mfu;          /* roofline (memory-bound kernels) */
	const struct gpa_memory *memory;    /* peaks near capacity, leaks, fragmentation */
	/*
	 * The verdict from the critical path: each finding's bound is at most
	 * its cause's time on the path, and copy-bound, host-prelude and
	 * warm-up findings come from it. NULL: bounds as estimated.
	 */
	const struct gpa_bound_verdict *verdict;
};

enum gpa_findings_verdict {
	GPA_VERDICT_NO_GPU = 0,      /* no GPU work: nothing to judge */
	GPA_VERDICT_NONE = 1,        /* no material bottleneck */
	GPA_VERDICT_MATERIAL = 2,    /* at least one material finding */
};

struct gpa_findings {
	const struct gpa_gaps *gaps;    /* borrowed from the input: what GPA_FEV_GAP rows index */
	uint64_t basis_ns;              /* GPU window summed over the devices with work */
	uint64_t total_ns;              /* material bounds summed, at most basis_ns */
	uint64_t minor_ns;              /* the bounds of findings below the threshold, summed */
	uint32_t threshold_bp;          /* GPA_FINDING_MATERIAL_BP */
	/*
	 * GPU idle inside stream captures when it is at least
	 * GPA_FINDING_CAPTURE_PCT % of all idle (the idle findings are then all
	 * minor: a capture is set-up, its replays run the work); 0 otherwise.
	 */
	uint64_t capture_idle_ns;
	uint8_t verdict;                /* enum gpa_findings_verdict */
	bool on_path;                   /* bounds capped by the critical path (path_ns) */
	uint64_t path_ns[GPA_CP__COUNT]; /* the path's time by category over every step */
	GP_VEC(struct gpa_finding) v;   /* material findings, largest bound first */
	GP_VEC(struct gpa_finding) minor; /* the others, largest first */
	const struct gpa_memory *memory; /* borrowed from the input: what mem rows index */
	GP_VEC(struct gpa_mem_finding) mem; /* memory findings, by pool then kind */
};

/*
 * Builds the ranked findings from the analyses in `in` (docs/report.md has
 * the rules and thresholds). Fills *out (release with gpa_findings_release,
 * also after an error). Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_findings_build(const struct gpa_findings_in *in, struct gpa_findings *out);
void gpa_findings_release(struct gpa_findings *f);

/* Whether kernel row k of m was run by a CUDA or HIP graph (a graph id or a graph launch). */
bool gpa_kernel_graph_launched(const struct gpa_model *m, uint32_t k);

#endif /* GPA_FINDINGS_H */
