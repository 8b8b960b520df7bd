/* SPDX-License-Identifier: MIT */
/*
 * related.h - whether traces given together are one run (analyze/related.c).
 * Traces of one job or one program run at the same time and name the same
 * job; traces recorded hours or years apart on aligned clocks, or naming
 * jobs of different sizes, are runs of their own, and one timeline or one
 * job report of them means nothing. The commands refuse such inputs unless
 * told that they belong together (docs/cluster.md).
 */
#ifndef GPA_RELATED_H
#define GPA_RELATED_H

#include "analyze/model.h"

/* Traces are one run only if none starts more than this after all the others ended. */
#define GPA_RELATED_GAP_NS (3600ull * 1000000000)

/* What the check reads of one trace. */
struct gpa_related_in {
	const char *path;	 /* borrowed; traces of the same path are always one run */
	int32_t rank, world_size; /* world_size 0 or less: not known */
	bool timed;		 /* t0, t1 hold its span on a clock shared by every timed trace */
	uint64_t t0, t1;
	const char *host;	 /* borrowed; NULL or "" not known */
	uint32_t pid;		 /* 0 not known */
};

/*
 * Whether v[0, n) may be one run: 0 when they may, 1 when they are not
 * (errbuf says why in one line naming two of the files), -GP_ERR_NOMEM.
 * Traces too far apart on the shared clock (GPA_RELATED_GAP_NS), naming
 * different world sizes, or naming the same rank are not one run; two
 * traces of one rank are only one run as windows of one process (the same
 * pid on the same host, or on hosts not named) or as processes of one host
 * recording at the same time (a rank's program and a process it started).
 */
int gpa_related_check(const struct gpa_related_in *v, size_t n, char *errbuf, size_t errlen);

/*
 * As gpa_related_check, on the processes of a model: their spans are read
 * from its plausible GPU operations and API calls, on one clock when the
 * model aligned its files (gpa_model.aligned). A process that repeats an
 * earlier one (analyze/sanity.h) is left to the sanity warnings.
 */
int gpa_related_model(const struct gpa_model *m, char *errbuf, size_t errlen);

struct gpa_rank_sum;
/*
 * As gpa_related_check, on the summaries of a job's traces (analyze/job.h):
 * those analysed, on CLOCK_REALTIME when every one of them has an anchor.
 * A summary has no pid: the same-rank rule reads only traces that name
 * their host (two windows of one process, as Kineto writes them with no
 * host, cannot be told from two runs).
 */
int gpa_related_sums(const struct gpa_rank_sum *s, size_t n, char *errbuf, size_t errlen);

#endif /* GPA_RELATED_H */
