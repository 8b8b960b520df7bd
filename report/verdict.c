/* SPDX-License-Identifier: MIT */
/*
 * verdict.c - the report's first sentence and its JSON (report/verdict.h).
 */
#include "base/compat.h"
#include "report/verdict.h"
#include "report/report.h"

#include <inttypes.h>
#include <string.h>

static void dur(struct gp_strbuf *o, const struct gpr_display *d, uint64_t ns, bool full)
{
	if (full) {
		gpr_fmt_secs(o, ns);
	} else {
		gpr_fmt_ns(o, d, ns);
	}
}

/* The copies' direction when one holds most of the copy time on the path. */
static const char *copy_what(const struct gpa_bound_verdict *v)
{
	static const char *const what[GPA_CDIR__COUNT] = {
		"host-to-device copies are", "device-to-host copies are",
		"device-to-device copies are", "copies and memsets are"};
	uint64_t all = 0;
	unsigned best = GPA_CDIR_OTHER;

	for (unsigned d = 0; d < GPA_CDIR__COUNT; d++) {
		all += v->copy_ns[d];
		if (v->copy_ns[d] > v->copy_ns[best]) {
			best = d;
		}
	}
	return all && v->copy_ns[best] * 2 > all ? what[best] : "copies are";
}

/* What the bound's time is, with its verb: "... are X% of the critical path". */
static const char *bound_what(const struct gpa_bound_verdict *v)
{
	switch (v->bound) {
	case GPA_BOUND_COMPUTE:
		return "compute kernels are";
	case GPA_BOUND_COPY:
		return copy_what(v);
	case GPA_BOUND_COMM:
		return "communication and waiting for other ranks are";
	case GPA_BOUND_HOST:
		return "host work (CPU code and non-launch CUDA calls) is";
	case GPA_BOUND_DATA:
		return "data loading on the host is";
	case GPA_BOUND_LAUNCH:
		return "launch calls and launch latency are";
	case GPA_BOUND_SYNC:
		return "synchronize and query calls are";
	default:
		return "GPU work waiting on other streams is";
	}
}

/* "(median step 12.30 ms over 10 steps; 1 warm-up step, 3.2 s, left out)" */
static void scope(struct gp_strbuf *o, const struct gpr_display *d,
		  const struct gpa_bound_verdict *v, bool full)
{
	uint32_t steady = v->steps - v->warm_steps;

	if (v->whole && v->cover_bp < GPA_VERDICT_COVER_BP) {
		gp_strbuf_adds(o, " (the whole trace, as the steps cover only ");
		gpr_fmt_pct(o, v->cover_bp, 10000);
		gp_strbuf_adds(o, "% of it");
	} else if (v->whole) {
		gp_strbuf_adds(o, " (the whole trace");
	} else {
		gp_strbuf_adds(o, " (median step ");
		dur(o, d, v->step_median_ns, full);
		gp_strbuf_addf(o, " over %" PRIu32 " step%s", steady, steady == 1 ? "" : "s");
	}
	if (v->warm_ns) {
		gp_strbuf_adds(o, "; warm-up ");
		dur(o, d, v->warm_ns, full);
		if (v->warm_steps) {
			gp_strbuf_addf(o, " in %" PRIu32 " step%s", v->warm_steps,
				       v->warm_steps == 1 ? "" : "s");
		}
		gp_strbuf_adds(o, " left out");
	}
	gp_strbuf_adds(o, ")");
}

/* "; GPU time on the path: compute 2.00%, copies 95.00%, communication 0.00%" */
static void gpu_split(struct gp_strbuf *o, const struct gpa_bound_verdict *v)
{
	uint64_t comm = v->cat_ns[GPA_CP_COMM] + v->cat_ns[GPA_CP_WAIT_RANK];

	gp_strbuf_adds(o, "; GPU time on the path: compute ");
	gpr_fmt_pct(o, v->cat_ns[GPA_CP_KERNEL], v->path_ns);
	gp_strbuf_adds(o, "%, copies ");
	gpr_fmt_pct(o, v->cat_ns[GPA_CP_COPY], v->path_ns);
	gp_strbuf_adds(o, "%, communication ");
	gpr_fmt_pct(o, comm, v->path_ns);
	gp_strbuf_adds(o, "%.");
}

/* The three largest groups of a mixed path. */
static void mixed(struct gp_strbuf *o, const struct gpa_bound_verdict *v)
{
	uint64_t g[GPA_BOUND__COUNT] = {0};
	bool used[GPA_BOUND__COUNT] = {false};

	for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
		if (k != GPA_CP_WARMUP) {
			g[gpa_bound_of_cat(k)] += v->cat_ns[k];
		}
	}
	gp_strbuf_adds(o, "no single bound: ");
	for (unsigned n = 0; n < 3; n++) {
		unsigned best = 0;
		for (unsigned b = 1; b < GPA_BOUND__COUNT; b++) {
			if (!used[b] && (used[best] || g[b] > g[best])) {
				best = b;
			}
		}
		used[best] = true;
		gp_strbuf_addf(o, "%s%s ", n ? ", " : "", gpa_bound_name(best));
		gpr_fmt_pct(o, g[best], v->path_ns);
		gp_strbuf_adds(o, "%");
	}
	gp_strbuf_adds(o, " of the critical path");
}

void gpr_verdict_sentence(struct gp_strbuf *o, const struct gpr_display *d,
			  const struct gpa_bound_verdict *v, bool full)
{
	switch (v->bound) {
	case GPA_BOUND_NO_GPU:
		gp_strbuf_adds(o, "Bound: nothing to judge: no GPU work in the trace.");
		return;
	case GPA_BOUND_UNKNOWN:
		gp_strbuf_addf(o, "Bound: unknown: too little GPU work (%" PRIu64 " operation%s) to "
				  "name one.", v->gpu_ops, v->gpu_ops == 1 ? "" : "s");
		return;
	case GPA_BOUND_WARMUP:
		gp_strbuf_adds(o, "Bound: warm-up: one-off start-up (context, modules, first calls) is "
				  "the whole critical path (");
		dur(o, d, v->warm_ns, full);
		gp_strbuf_adds(o, "): no steady state to judge.");
		return;
	case GPA_BOUND_MIXED:
		gp_strbuf_adds(o, "Bound: ");
		mixed(o, v);
		break;
	default:
		gp_strbuf_addf(o, "Bound: %s-bound: %s ", gpa_bound_name(v->bound), bound_what(v));
		gpr_fmt_pct(o, (uint64_t)v->share_bp * v->path_ns / 10000, v->path_ns);
		gp_strbuf_adds(o, "% of the critical path");
	}
	scope(o, d, v, full);
	gpu_split(o, v);
}

void gpr_verdict_json(struct gp_strbuf *o, const struct gpa_bound_verdict *v)
{
	static const char *const dirs[GPA_CDIR__COUNT] = {"h2d", "d2h", "d2d", "other"};
	struct gp_strbuf tmp = GP_STRBUF_INIT;

	gp_strbuf_addf(o, ",\"bound\":{\"bound\":\"%s\",\"share_pct\":", gpa_bound_name(v->bound));
	gpr_fmt_pct(o, v->share_bp, 10000);
	gp_strbuf_addf(o, ",\"path_ns\":%" PRIu64 ",\"steps\":%" PRIu32 ",\"warm_up_steps\":%" PRIu32
			  ",\"warm_up_ns\":%" PRIu64 ",\"step_median_ns\":%" PRIu64
			  ",\"host_before_gpu_ns\":%" PRIu64 ",\"step_wall_ns\":%" PRIu64
			  ",\"step_gpu_busy_ns\":%" PRIu64 ",\"whole_trace\":%s,\"steps_cover_pct\":",
		       v->path_ns, v->steps, v->warm_steps, v->warm_ns, v->step_median_ns,
		       v->prelude_ns, v->wall_ns, v->busy_ns, v->whole ? "true" : "false");
	gpr_fmt_pct(o, v->cover_bp, 10000);
	gp_strbuf_adds(o, ",\"path\":{");
	for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
		if (k) {
			gp_strbuf_addch(o, ',');
		}
		gpr_json_key(o, gpa_cp_cat_name(k), "_ns"); /* "data_loading_ns" */
		gp_strbuf_addf(o, "%" PRIu64, v->cat_ns[k]);
	}
	gp_strbuf_adds(o, "},\"copies_on_path\":{");
	for (unsigned d = 0; d < GPA_CDIR__COUNT; d++) {
		gp_strbuf_addf(o, "%s\"%s_ns\":%" PRIu64, d ? "," : "", dirs[d], v->copy_ns[d]);
	}
	gp_strbuf_addf(o, ",\"pageable_ns\":%" PRIu64 "},\"text\":", v->copy_pageable_ns);
	gpr_verdict_sentence(&tmp, NULL, v, true);
	gp_strbuf_add_json_str(o, tmp.buf ? tmp.buf : "", tmp.len);
	gp_strbuf_release(&tmp);
	gp_strbuf_addch(o, '}');
}
