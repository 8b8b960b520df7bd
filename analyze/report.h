/* SPDX-License-Identifier: MIT */
/*
 * report.h - what `gpuprof report` shows, computed in one call
 * (analyze/report.c, docs/report.md): which analyses, in which order, on
 * which thread. Text, Markdown, JSON, the HTML page and the job report
 * render the one result; a front end parses its options, calls
 * gpa_report_build and renders.
 */
#ifndef GPA_REPORT_H
#define GPA_REPORT_H

#include "analyze/model.h"
#include "analyze/comm.h"
#include "analyze/commclass.h"
#include "analyze/critpath.h"
#include "analyze/findings.h"
#include "analyze/flame.h"
#include "analyze/gaps.h"
#include "analyze/launches.h"
#include "analyze/memory.h"
#include "analyze/mfu.h"
#include "analyze/occupancy.h"
#include "analyze/ops.h"
#include "analyze/overview.h"
#include "analyze/stats.h"
#include "analyze/steps.h"
#include "analyze/verdict.h"

/* Which parts a report holds. */
enum gpa_report_kind {
	/*
	 * The report: steps, communication, gaps, overview, kernel summary,
	 * launches, memory, occupancy, MFU, operators, the verdict from the
	 * critical path, findings.
	 */
	GPA_REPORT_FULL = 0,
	/* GPA_REPORT_FULL and what the HTML page adds: shaded gaps, flame graph, critical path. */
	GPA_REPORT_PAGE = 1,
	/* One rank of the job report: steps, communication, gaps and findings only. */
	GPA_REPORT_RANK = 2,
};

/* Longest gaps a full report keeps for the findings' evidence (it lists gaps.top of them). */
#define GPA_REPORT_FINDING_GAPS 100

struct gpa_report_opts {
	enum gpa_report_kind kind;
	const char *step_regex;            /* --step; NULL: the default */
	const char *const *comm_rules;     /* --comm-kernel patterns, borrowed */
	size_t ncomm_rules;
	/* data_regex, min_gap_ns and top: the gaps listed; comm is set by the build */
	struct gpa_gaps_opts gaps;
	enum gpa_kernel_name kname;        /* the kernel summary's names */
	const struct gpa_mfu_opts *mfu;    /* FLOPs, bytes, peaks; borrowed; NULL: the defaults */
	size_t page_events;                /* GPA_REPORT_PAGE: timeline events (shades 4 x) */
	bool keep_layers;                  /* GPA_REPORT_PAGE: flame graph layers not merged */
	/* threads the analyses may use: 1 (or 0) all on the calling thread, more: up to 3 */
	unsigned threads;
};

/* Defaults: a full report, the default patterns and gaps, demangled names, one thread. */
void gpa_report_opts_init(struct gpa_report_opts *o);

/*
 * The result, one heap object: every analysis's result inside it, freed
 * together by gpa_report_free. Results a kind does not compute stay zeroed
 * (empty). Nothing points into the options after the build; much points into
 * the model, which must outlive the report.
 */
struct gpa_report {
	struct gpa_steps steps;
	struct gpa_commclass cc;
	struct gpa_gaps gaps;      /* at least GPA_REPORT_FINDING_GAPS longest (RANK: gaps.top) */
	struct gpa_gaps shown;     /* a view of gaps listing gaps.top of them: never released */
	struct gpa_comm comm;
	struct gpa_findings findings;
	/* GPA_REPORT_FULL and PAGE */
	struct gpa_overview ov;
	struct gpa_stats kernels;  /* cuda_gpu_kern_sum */
	struct gpa_launches launches;
	struct gpa_memory memory;
	struct gpa_occupancy occ;
	struct gpa_mfu mfu;
	struct gpa_ops ops;        /* the top 5 operators */
	struct gpa_bound_verdict verdict;
	/* GPA_REPORT_PAGE */
	struct gpa_gaps shade;     /* every gap of at least 1 us, up to 4 x page_events */
	struct gpa_flame flame;
	struct gpa_critpath critpath; /* five longest segments per step */
	struct gpa_ops roofline;   /* every input set; empty unless ops recorded shapes */
	bool has_roofline;
};

/*
 * Runs the report's analyses on m into a new report (*out; caller frees
 * with gpa_report_free). The result is the same on any number of threads:
 * when several analyses fail, the error is the one a single thread meets
 * first. Returns 0, or a negative enum gp_err with one line in errbuf (*out
 * NULL): -GP_ERR_API for a pattern the user gave, -GP_ERR_NOTFOUND for a
 * --device name not known, -GP_ERR_NOMEM, or what an analysis returned.
 * m is not const because the page's flame graph names frames through it.
 */
int gpa_report_build(struct gpa_model *m, const struct gpa_report_opts *o,
		     struct gpa_report **out, char *errbuf, size_t errlen);
/* Releases every result and the report; NULL does nothing. */
void gpa_report_free(struct gpa_report *r);

#endif /* GPA_REPORT_H */
