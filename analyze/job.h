/* SPDX-License-Identifier: MIT */
/*
 * job.h - one job report from many ranks' traces (docs/cluster.md). Each
 * trace is loaded and analysed alone; what the job report needs of it is
 * kept in a compact per-rank summary (struct gpa_rank_sum: steps, busy and
 * idle by cause, kernel statistics, collectives keyed by communicator and
 * sequence, findings). Summaries travel as bytes (gpa_rank_sum_pack, a
 * versioned little-endian format) and are merged into the job
 * (gpa_job_merge). The single-process run and an MPI run use the same
 * path, so both give the same answer byte for byte.
 */
#ifndef GPA_JOB_H
#define GPA_JOB_H

#include "analyze/model.h"
#include "analyze/gaps.h"
#include "analyze/coll-match.h"

struct gpa_steps;
struct gpa_commclass;
struct gpa_comm;
struct gpa_findings;

/* The byte format's magic and version (docs/cluster.md). */
#define GPA_JOB_MAGIC "GPJS"
#define GPA_JOB_VERSION 2

/* Bounds that keep a summary compact whatever the trace holds. */
#define GPA_RANK_KERNELS 32	 /* kernels kept, by total GPU time */
#define GPA_RANK_STRINGS 4096	 /* names in one summary's table */
#define GPA_RANK_FINDINGS 8	 /* findings kept, by recoverable time */
#define GPA_RANK_STEPS 1000000	 /* steps kept */
#define GPA_RANK_COLLS 10000000 /* collectives kept */

struct gpa_rank_step {
	int64_t number;
	uint64_t start, end; /* the step's CPU range, the summary's timeline */
	uint64_t busy;	     /* GPU busy inside it */
};

/* A compute kernel by name, device and launch configuration: what is compared across ranks. */
struct gpa_rank_kernel {
	uint32_t name;	 /* index in gpa_rank_sum.strs */
	uint32_t device; /* index in gpa_rank_sum.strs: the device's name */
	int32_t grid[3], block[3];
	uint64_t count, total, min, max;
};

struct gpa_rank_coll {
	uint64_t hash, seq; /* communicator hash (stream id by stream), sequence number or order */
	uint8_t by;	    /* enum gpa_coll_by */
	bool gpu_end;	    /* end is the GPU's: ranks' ends of one collective coincide */
	uint32_t func;	    /* strs index: the collective's canonical name */
	uint64_t bytes;
	/* host start (by order: the GPU start when known); the GPU end when known, else the host's */
	uint64_t arrival, end;
	uint32_t doing;	       /* strs index: the last compute kernel started before arrival */
	uint64_t idle_before;  /* arrival minus the latest end of GPU work begun before it */
};

struct gpa_rank_finding {
	uint8_t cat, cause, conf;
	uint64_t cost_ns, count;
};

/* What the job report needs of one rank's trace. */
struct gpa_rank_sum {
	uint32_t file;	 /* its place in the job's file list */
	bool ok;	 /* false: the file could not be analysed (error says why) */
	char *path, *error, *host;
	int32_t rank, world_size;
	bool aligned;	      /* the trace had a clock anchor */
	int64_t clock_offset; /* onto CLOCK_REALTIME when aligned */
	uint64_t t0, t1, events;
	GP_VEC(char *) strs;
	GP_VEC(struct gpa_rank_step) steps;
	uint64_t window, busy, idle;
	uint64_t cause_ns[GPA_GAP__COUNT];
	uint64_t comm_ns, exposed_ns;
	uint64_t compute_ns; /* every compute kernel's time, summed */
	GP_VEC(struct gpa_rank_kernel) kernels; /* by total, longest first */
	GP_VEC(struct gpa_rank_coll) colls;	/* by arrival */
	GP_VEC(struct gpa_rank_finding) findings;
};

/* The analyses of one single-file model that a summary reads (all required). */
struct gpa_rank_in {
	const struct gpa_model *m;
	const struct gpa_steps *steps;
	const struct gpa_gaps *gaps;
	const struct gpa_commclass *cc;
	const struct gpa_comm *comm;
	const struct gpa_findings *findings;
};

/*
 * Fills *out (zeroed by the call) from the analyses of a model of one file.
 * Returns 0 or -GP_ERR_NOMEM (out released).
 */
int gpa_rank_sum_build(const struct gpa_rank_in *in, uint32_t file, struct gpa_rank_sum *out);
/* A summary for a file that could not be analysed: path and one-line reason. */
int gpa_rank_sum_failed(uint32_t file, const char *path, const char *error,
			struct gpa_rank_sum *out);
void gpa_rank_sum_release(struct gpa_rank_sum *s);

/* Appends the summaries as one blob (magic, version, count, records) to out. */
int gpa_rank_sums_pack(const struct gpa_rank_sum *s, size_t n, struct gp_strbuf *out);
/*
 * Reads a blob of what (a name for messages), appending its summaries to
 * *v (caller releases each and frees the array). Returns 0, -GP_ERR_FORMAT
 * with the place in errbuf, -GP_ERR_NOMEM.
 */
int gpa_rank_sums_unpack(const void *buf, size_t len, const char *what, struct gpa_rank_sum **v,
			 size_t *n, size_t *cap, char *errbuf, size_t errlen);

/* ---- the job */

struct gpa_job_dist {
	uint64_t n, min, median, p90, max;
};

struct gpa_job_rank {
	const struct gpa_rank_sum *s; /* borrowed from the job */
	struct gpa_job_dist step;     /* its steps' durations */
	uint64_t matched, last;	      /* collectives matched on 2+ ranks; arrived last in */
	uint64_t caused;	      /* time the others waited for it when it came last */
	uint64_t waited;	      /* time it waited for the last arrival */
	uint64_t late_sum;	      /* its arrival after the first, summed */
	/* kernels against the same kernels' median on the other ranks */
	uint32_t compared;	 /* kernels compared (same name, device, configuration, count) */
	uint32_t slower;	 /* of those, the ones at least GPA_JOB_SLOW_EACH_PERMILLE slower */
	uint64_t covered;	 /* their time on this rank: against its compute_ns */
	double ratio;		 /* its time over the peers' for the same launches, weighted */
	uint32_t worst;		 /* strs index of the kernel furthest above its peers */
	double worst_ratio;
	bool slow;		 /* slower than its peers beyond noise */
};

struct gpa_job_step {
	int64_t number;
	uint32_t ranks;
	uint64_t median, max;
	uint32_t slowest; /* gpa_job.ranks index */
};

struct gpa_job_coll {
	uint64_t hash, seq;
	uint8_t by;	      /* enum gpa_coll_by */
	uint64_t end_spread;  /* latest GPU end minus the earliest; 0 when not all GPU-timed */
	const char *func;     /* borrowed */
	uint32_t ranks;
	uint64_t first;       /* earliest arrival, job timeline */
	uint64_t skew;	      /* last arrival minus first */
	uint64_t margin;      /* last arrival minus the one before it */
	uint32_t last;	      /* gpa_job.ranks index */
	const char *doing;    /* what the last rank ran before arriving; "" unknown */
	uint64_t idle_before; /* its idle time before arriving */
};

enum gpa_job_evidence {
	GPA_JOB_NONE = GPA_COLL_NONE,	    /* nothing to judge (fewer than 2 ranks) */
	GPA_JOB_NOTHING = GPA_COLL_NOTHING, /* judged: nothing material */
	GPA_JOB_FOUND = GPA_COLL_FOUND,
};

/* The matcher's bounds (analyze/coll-match.h), by the names the job report uses. */
#define GPA_JOB_END_NS GPA_COLL_END_NS
#define GPA_JOB_STRAGGLER_NS GPA_COLL_STRAGGLER_NS
/* A slow rank's kernels take this much longer than its peers' (per mille over 1000)... */
#define GPA_JOB_SLOW_PERMILLE 1100
/* ...and beyond this many median absolute deviations of all ranks' ratios... */
#define GPA_JOB_SLOW_MADS 4
/* ...and at least two thirds of its kernels compared are this much slower each. */
#define GPA_JOB_SLOW_EACH_PERMILLE 1050
/* ...and the kernels compared hold at least this share of the rank's compute time. */
#define GPA_JOB_SLOW_COVER_PCT 50
/* A kernel is compared on a rank when its launches are within this share of the peers' median. */
#define GPA_JOB_COUNT_PCT 10

struct gpa_job {
	struct gpa_rank_sum *sums; /* owned, by file */
	size_t nsums;
	uint64_t failed;	   /* files that could not be analysed */
	bool aligned;		   /* every rank on CLOCK_REALTIME */
	GP_VEC(struct gpa_job_rank) ranks;  /* analysed files, by file order */
	GP_VEC(struct gpa_job_step) steps;  /* by step number */
	struct gpa_job_dist rank_median;    /* over ranks: their median step */
	uint32_t slowest[5];		    /* ranks by median step, slowest first */
	uint32_t nslowest;
	uint64_t early_ns, late_ns;	    /* mean step of the first and second half of steps */
	GP_VEC(struct gpa_job_coll) colls;  /* matched collectives by skew, largest first */
	uint64_t groups, unmatched;
	uint8_t by;			    /* enum gpa_coll_by: the loosest key of a group */
	uint64_t mismatched;		    /* groups by order whose kinds or sizes differ */
	uint64_t ends_checked, ends_far;    /* groups timed on the GPU; ends beyond GPA_JOB_END_NS */
	uint64_t end_spread_median;	    /* over the groups checked */
	bool clocks_disagree;		    /* most checked groups' ends far apart: none used */
	struct gpa_job_dist skew;
	uint8_t straggler_ev;		    /* enum gpa_job_evidence */
	uint32_t straggler;		    /* gpa_job.ranks index, or GPA_NONE */
	uint64_t straggler_margin;	    /* median lead of its last arrivals over the next */
	uint32_t straggler_at;		    /* gpa_job.colls index of its latest arrival */
	uint8_t slow_ev;		    /* enum gpa_job_evidence */
	GP_VEC(uint32_t) slow;		    /* gpa_job.ranks indexes, slowest first */
};

/*
 * Merges summaries (taken over: the job frees them, also on error) into
 * *out, zeroed by the call. The result depends only on the summaries and
 * their file numbers, never on their order. Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_job_merge(struct gpa_rank_sum *sums, size_t n, struct gpa_job *out);
/*
 * Why no collective was matched (j->groups 0), one sentence into buf
 * ("" when some were); returns buf.
 */
const char *gpa_job_why_unmatched(const struct gpa_job *j, char *buf, size_t len);
void gpa_job_release(struct gpa_job *j);

#endif /* GPA_JOB_H */
