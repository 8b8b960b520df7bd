/* SPDX-License-Identifier: MIT */
/*
 * job.c - the job report of many ranks (analyze/job.h) as text, Markdown
 * and JSON (schema "gpuprof-job/2", docs/cluster.md).
 */
#include "base/compat.h"
#include "analyze/job.h"
#include "analyze/findings.h"
#include "report/report.h"
#include "report/job.h"
#include "report/comm.h"

#include <stdlib.h>
#include <string.h>

/* What identifies a rank: its launcher rank, else its file number. */
static long long rank_id(const struct gpa_rank_sum *s)
{
	return s->rank >= 0 ? (long long)s->rank : (long long)s->file;
}

static void head_text(struct gp_strbuf *o, enum gpr_format f, const struct gpr_display *d,
		      const struct gpa_job *j)
{
	const char *h = f == GPR_FORMAT_MARKDOWN ? "## " : "";

	gp_strbuf_addf(o, "%sJob: %zu trace%s, %zu rank%s analysed, %" PRIu64 " failed; %s\n", h,
		       j->nsums, j->nsums == 1 ? "" : "s", j->ranks.n, j->ranks.n == 1 ? "" : "s",
		       j->failed,
		       j->aligned ? "clocks aligned on CLOCK_REALTIME" : "one clock per trace");
	if (j->rank_median.n) {
		gp_strbuf_adds(o, "\nStep time per rank (median of each rank's steps): min ");
		gpr_fmt_ns(o, d, j->rank_median.min);
		gp_strbuf_adds(o, ", median ");
		gpr_fmt_ns(o, d, j->rank_median.median);
		gp_strbuf_adds(o, ", p90 ");
		gpr_fmt_ns(o, d, j->rank_median.p90);
		gp_strbuf_adds(o, ", max ");
		gpr_fmt_ns(o, d, j->rank_median.max);
		gp_strbuf_adds(o, "\n");
	}
	if (j->early_ns && j->late_ns) {
		gp_strbuf_adds(o, "Trend: first half of steps ");
		gpr_fmt_ns(o, d, j->early_ns);
		gp_strbuf_adds(o, ", second half ");
		gpr_fmt_ns(o, d, j->late_ns);
		gp_strbuf_addf(o, " (%+.1f%%)\n",
			       100.0 * ((double)j->late_ns - (double)j->early_ns) / (double)j->early_ns);
	}
}

/* "AllReduce seq 3 (comm 0123456789abcdef)", "AllReduce #3 on stream 13". */
static void coll_name(struct gp_strbuf *o, const struct gpa_job_coll *c)
{
	switch (c->by) {
	case GPA_COLL_SEQ:
		gp_strbuf_addf(o, "%s seq %" PRIu64 " (comm %016" PRIx64 ")", c->func, c->seq,
			       c->hash);
		break;
	case GPA_COLL_ORDER_COMM:
		gp_strbuf_addf(o, "%s #%" PRIu64 " of comm %016" PRIx64, c->func, c->seq, c->hash);
		break;
	default:
		gp_strbuf_addf(o, "%s #%" PRIu64 " on stream %" PRIu32, c->func, c->seq,
			       gpa_coll_stream_id(c->hash));
		break;
	}
}

/* The communicator cell: its hash, or the stream collectives were matched on. */
static void comm_cell(struct gpr_table *t, const struct gpa_job_coll *c)
{
	if (c->by == GPA_COLL_ORDER_STREAM) {
		gpr_table_cellf(t, "stream %" PRIu32, gpa_coll_stream_id(c->hash));
	} else {
		gpr_table_cellf(t, "%016" PRIx64, c->hash);
	}
}

static void straggler_text(struct gp_strbuf *o, const struct gpr_display *d,
			   const struct gpa_job *j)
{
	gp_strbuf_addf(o, "\nStraggler: %s", gpr_evidence_name(j->straggler_ev));
	if (j->straggler_ev == GPA_JOB_FOUND) {
		const struct gpa_job_rank *r = &j->ranks.v[j->straggler];
		const struct gpa_job_coll *c = &j->colls.v[j->straggler_at];
		gp_strbuf_addf(o, ": rank %lld (%s) arrived last at %" PRIu64 " of %" PRIu64
			       " collectives, a median ", rank_id(r->s), r->s->path, r->last, j->groups);
		gpr_fmt_ns(o, d, j->straggler_margin);
		gp_strbuf_adds(o, " after the next rank; the others waited ");
		gpr_fmt_ns(o, d, r->caused);
		gp_strbuf_adds(o, " for it. Latest: ");
		coll_name(o, c);
		gp_strbuf_adds(o, ", ");
		gpr_fmt_ns(o, d, c->margin);
		gp_strbuf_adds(o, " late");
		if (c->doing[0]) {
			gp_strbuf_addf(o, ", last kernel before it %s", c->doing);
		}
		gp_strbuf_adds(o, ", GPU idle ");
		gpr_fmt_ns(o, d, c->idle_before);
		gp_strbuf_adds(o, " before it arrived");
	} else if (j->straggler_ev == GPA_JOB_NOTHING) {
		gp_strbuf_addf(o, " (no rank last in half of %" PRIu64 " collectives by %llu us or more)",
			       j->groups, GPA_JOB_STRAGGLER_NS / 1000);
	} else {
		char why[512];
		gp_strbuf_addf(o, " (%s)", gpa_job_why_unmatched(j, why, sizeof(why)));
	}
	gp_strbuf_adds(o, "\n");
	if (j->groups && (j->by != GPA_COLL_SEQ || j->ends_far)) {
		gp_strbuf_addf(o, "Collectives matched by %s%s; %" PRIu64 " of %" PRIu64
			       " timed on the GPU end within %llu ms of each other on every rank "
			       "(median spread ", gpa_coll_by_name(j->by),
			       j->by != GPA_COLL_SEQ ? " (the traces carry no sequence numbers)" : "",
			       j->ends_checked - j->ends_far, j->ends_checked,
			       GPA_JOB_END_NS / 1000000);
		gpr_fmt_ns(o, d, j->end_spread_median);
		gp_strbuf_adds(o, ")\n");
	}
}

static void slow_text(struct gp_strbuf *o, const struct gpa_job *j)
{
	gp_strbuf_addf(o, "Slow GPUs: %s", gpr_evidence_name(j->slow_ev));
	for (size_t i = 0; i < j->slow.n; i++) {
		const struct gpa_job_rank *r = &j->ranks.v[j->slow.v[i]];
		gp_strbuf_addf(o, "%s rank %lld (%s): kernels %.2fx their peers' time, worst %s %.2fx",
			       i ? ";" : ":", rank_id(r->s), r->s->path, r->ratio, r->s->strs.v[r->worst],
			       r->worst_ratio);
	}
	gp_strbuf_adds(o, "\n");
}

static const struct gpr_col failed_cols[] = {
	{"File", GPR_COL_LEFT, "file"},
	{"Problem", GPR_COL_LEFT, "problem"},
};

static const struct gpr_col rank_cols[] = {
	{"Rank", GPR_COL_NUM, "rank"},
	{"File", GPR_COL_LEFT | GPR_COL_ELIDE, "file"},
	{"Host", GPR_COL_LEFT, "host"},
	{"Steps", GPR_COL_NUM | GPR_COL_COUNT, "steps"},
	{"Median (ns)", GPR_COL_NUM | GPR_COL_NS, "median_ns"},
	{"P90 (ns)", GPR_COL_NUM | GPR_COL_NS, "p90_ns"},
	{"Max (ns)", GPR_COL_NUM | GPR_COL_NS, "max_ns"},
};

static void rank_row(struct gpr_table *t, const struct gpa_job_rank *r)
{
	gpr_table_cellf(t, "%lld", rank_id(r->s));
	gpr_table_cell(t, r->s->path);
	gpr_table_cell(t, r->s->host);
	gpr_table_cellf(t, "%" PRIu64, r->step.n);
	gpr_table_cellf(t, "%" PRIu64, r->step.median);
	gpr_table_cellf(t, "%" PRIu64, r->step.p90);
	gpr_table_cellf(t, "%" PRIu64, r->step.max);
}

static const struct gpr_col step_cols[] = {
	{"Step", GPR_COL_NUM, "step"},
	{"Ranks", GPR_COL_NUM | GPR_COL_COUNT, "ranks"},
	{"Median (ns)", GPR_COL_NUM | GPR_COL_NS, "median_ns"},
	{"Max (ns)", GPR_COL_NUM | GPR_COL_NS, "max_ns"},
	{"Slowest Rank", GPR_COL_NUM, "slowest_rank"},
};

static const struct gpr_col late_cols[] = {
	{"Rank", GPR_COL_NUM, "rank"},
	{"Matched", GPR_COL_NUM | GPR_COL_COUNT, "matched"},
	{"Last", GPR_COL_NUM | GPR_COL_COUNT, "last"},
	{"Caused Wait (ns)", GPR_COL_NUM | GPR_COL_NS, "caused_wait_ns"},
	{"Waited (ns)", GPR_COL_NUM | GPR_COL_NS, "waited_ns"},
	{"Mean Lateness (ns)", GPR_COL_NUM | GPR_COL_NS, "mean_lateness_ns"},
	{"Comm (ns)", GPR_COL_NUM | GPR_COL_NS, "comm_ns"},
	{"Exposed Comm (ns)", GPR_COL_NUM | GPR_COL_NS, "exposed_comm_ns"},
};

static const struct gpr_col skew_cols[] = {
	{"Collective", GPR_COL_LEFT, "collective"},
	{"Communicator", GPR_COL_LEFT, "communicator"},
	{"Seq", GPR_COL_NUM, "seq"},
	{"Ranks", GPR_COL_NUM | GPR_COL_COUNT, "ranks"},
	{"Skew (ns)", GPR_COL_NUM | GPR_COL_NS, "skew_ns"},
	{"Last Rank", GPR_COL_NUM, "last_rank"},
	{"Margin (ns)", GPR_COL_NUM | GPR_COL_NS, "margin_ns"},
	{"Idle Before (ns)", GPR_COL_NUM | GPR_COL_NS, "idle_before_ns"},
	{"Last Kernel Before", GPR_COL_LEFT | GPR_COL_NAME, "last_kernel_before"},
};

static const struct gpr_col kern_cols[] = {
	{"Rank", GPR_COL_NUM, "rank"},
	{"Kernels Compared", GPR_COL_NUM | GPR_COL_COUNT, "kernels_compared"},
	{"Time vs Peers", GPR_COL_NUM, "time_vs_peers_ratio"},
	{"Slow", GPR_COL_LEFT, "slow"},
	{"Worst vs Peers", GPR_COL_NUM, "worst_vs_peers_ratio"},
	{"Worst Kernel", GPR_COL_LEFT | GPR_COL_NAME, "worst_kernel"},
};

/* How many rows of a long table text and Markdown show; JSON has all. */
#define TEXT_ROWS 10

static int steps_sections(struct gp_strbuf *o, enum gpr_format f, const struct gpr_display *d,
			  const struct gpa_job *j)
{
	struct gpr_table t;
	bool json = f == GPR_FORMAT_JSON;
	int ret;

	gpr_table_init(&t, rank_cols, sizeof(rank_cols) / sizeof(rank_cols[0]));
	if (json) {
		for (size_t i = 0; i < j->ranks.n; i++) {
			rank_row(&t, &j->ranks.v[i]);
		}
	} else {
		for (uint32_t i = 0; i < j->nslowest; i++) {
			rank_row(&t, &j->ranks.v[j->slowest[i]]);
		}
	}
	ret = gpr_table_section(&t, f, d,
				json ? "Step time per rank" : "Slowest ranks (median step)",
				"ranks", true, o);
	gpr_table_init(&t, step_cols, sizeof(step_cols) / sizeof(step_cols[0]));
	for (size_t i = 0; i < j->steps.n && (json || i < 5 * TEXT_ROWS); i++) {
		const struct gpa_job_step *s = &j->steps.v[i];
		gpr_table_cellf(&t, "%" PRId64, s->number);
		gpr_table_cellf(&t, "%" PRIu32, s->ranks);
		gpr_table_cellf(&t, "%" PRIu64, s->median);
		gpr_table_cellf(&t, "%" PRIu64, s->max);
		gpr_table_cellf(&t, "%lld", rank_id(j->ranks.v[s->slowest].s));
	}
	return ret | gpr_table_section(&t, f, d, "Steps across ranks", "steps", false, o);
}

static int comm_sections(struct gp_strbuf *o, enum gpr_format f, const struct gpr_display *d,
			 const struct gpa_job *j)
{
	struct gpr_table t;
	bool json = f == GPR_FORMAT_JSON;
	int ret;

	gpr_table_init(&t, late_cols, sizeof(late_cols) / sizeof(late_cols[0]));
	for (size_t i = 0; i < j->ranks.n; i++) {
		const struct gpa_job_rank *r = &j->ranks.v[i];
		if (!json && !r->last) {
			continue;
		}
		gpr_table_cellf(&t, "%lld", rank_id(r->s));
		gpr_table_cellf(&t, "%" PRIu64, r->matched);
		gpr_table_cellf(&t, "%" PRIu64, r->last);
		gpr_table_cellf(&t, "%" PRIu64, r->caused);
		gpr_table_cellf(&t, "%" PRIu64, r->waited);
		gpr_table_cellf(&t, "%" PRIu64, r->matched ? r->late_sum / r->matched : 0);
		gpr_table_cellf(&t, "%" PRIu64, r->s->comm_ns);
		gpr_table_cellf(&t, "%" PRIu64, r->s->exposed_ns);
	}
	char why[512];
	gpa_job_why_unmatched(j, why, sizeof(why));
	ret = gpr_section_or_why(&t, f, d,
				 json ? "Collectives per rank" : "Ranks that arrived last",
				 "collective_ranks", false, why, o);
	gpr_table_init(&t, skew_cols, sizeof(skew_cols) / sizeof(skew_cols[0]));
	for (size_t i = 0; i < j->colls.n && (json || i < TEXT_ROWS); i++) {
		const struct gpa_job_coll *c = &j->colls.v[i];
		gpr_table_cell(&t, c->func);
		comm_cell(&t, c);
		gpr_table_cellf(&t, "%" PRIu64, c->seq);
		gpr_table_cellf(&t, "%" PRIu32, c->ranks);
		gpr_table_cellf(&t, "%" PRIu64, c->skew);
		gpr_table_cellf(&t, "%lld", rank_id(j->ranks.v[c->last].s));
		gpr_table_cellf(&t, "%" PRIu64, c->margin);
		gpr_table_cellf(&t, "%" PRIu64, c->idle_before);
		gpr_table_cell(&t, c->doing);
	}
	return ret | gpr_section_or_why(&t, f, d, "Collective skew (largest first)", "collectives",
					false, why, o);
}

/* Idle by cause per rank: the causes some rank has, side by side. */
static int idle_section(struct gp_strbuf *o, enum gpr_format f, const struct gpr_display *d,
			const struct gpa_job *j)
{
	struct gpr_col cols[4 + GPA_GAP__COUNT];
	unsigned cause[GPA_GAP__COUNT], nc = 0;
	char names[GPA_GAP__COUNT][48], keys[GPA_GAP__COUNT][48];
	struct gpr_table t;

	cols[0] = (struct gpr_col){"Rank", GPR_COL_NUM, "rank"};
	cols[1] = (struct gpr_col){"Busy (ns)", GPR_COL_NUM | GPR_COL_NS, "busy_ns"};
	cols[2] = (struct gpr_col){"Idle (ns)", GPR_COL_NUM | GPR_COL_NS, "idle_ns"};
	cols[3] = (struct gpr_col){"Idle %", GPR_COL_NUM, "idle_pct"};
	for (unsigned c = 0; c < GPA_GAP__COUNT; c++) {
		bool any = f == GPR_FORMAT_JSON;
		for (size_t i = 0; i < j->ranks.n && !any; i++) {
			any = j->ranks.v[i].s->cause_ns[c] != 0;
		}
		if (any) {
			snprintf(names[nc], sizeof(names[nc]), "%s (ns)", gpa_gap_cause_name(c));
			/* "launch-overhead" -> "launch_overhead_ns" */
			snprintf(keys[nc], sizeof(keys[nc]), "%s_ns", gpa_gap_cause_name(c));
			for (char *k = keys[nc]; *k; k++) {
				*k = *k == '-' ? '_' : *k;
			}
			cols[4 + nc] =
				(struct gpr_col){names[nc], GPR_COL_NUM | GPR_COL_NS, keys[nc]};
			cause[nc++] = c;
		}
	}
	gpr_table_init(&t, cols, 4 + nc);
	for (size_t i = 0; i < j->ranks.n; i++) {
		const struct gpa_rank_sum *s = j->ranks.v[i].s;
		gpr_table_cellf(&t, "%lld", rank_id(s));
		gpr_table_cellf(&t, "%" PRIu64, s->busy);
		gpr_table_cellf(&t, "%" PRIu64, s->idle);
		gpr_table_cell_pct(&t, s->idle, s->window);
		for (unsigned c = 0; c < nc; c++) {
			gpr_table_cellf(&t, "%" PRIu64, s->cause_ns[cause[c]]);
		}
	}
	return gpr_table_section(&t, f, d, "GPU idle by cause per rank", "idle", false, o);
}

static int cmp_ratio(const void *a, const void *b, void *arg)
{
	const struct gpa_job *j = arg;
	const struct gpa_job_rank *x = &j->ranks.v[*(const uint32_t *)a];
	const struct gpa_job_rank *y = &j->ranks.v[*(const uint32_t *)b];

	if (x->ratio != y->ratio) {
		return x->ratio > y->ratio ? -1 : 1;
	}
	return x < y ? -1 : x > y;
}

static int kernel_section(struct gp_strbuf *o, enum gpr_format f, const struct gpr_display *d,
			  const struct gpa_job *j)
{
	bool json = f == GPR_FORMAT_JSON;
	uint32_t *ord = malloc((j->ranks.n ? j->ranks.n : 1) * sizeof(*ord));
	struct gpr_table t;

	if (!ord) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < j->ranks.n; i++) {
		ord[i] = i;
	}
	if (!json) {
		qsort_r(ord, j->ranks.n, sizeof(*ord), cmp_ratio, (void *)j);
	}
	gpr_table_init(&t, kern_cols, sizeof(kern_cols) / sizeof(kern_cols[0]));
	for (size_t i = 0, shown = 0; i < j->ranks.n && (json || shown < TEXT_ROWS / 2); i++) {
		const struct gpa_job_rank *r = &j->ranks.v[ord[i]];
		if (!r->compared) {
			continue;
		}
		shown++;
		gpr_table_cellf(&t, "%lld", rank_id(r->s));
		gpr_table_cellf(&t, "%" PRIu32, r->compared);
		gpr_table_cellf(&t, "%.4f", r->ratio);
		gpr_table_cell(&t, r->slow ? "yes" : "no");
		gpr_table_cellf(&t, "%.4f", r->worst_ratio);
		gpr_table_cell(&t, r->s->strs.v[r->worst]);
	}
	free(ord);
	const char *why = j->ranks.n < 2 ? "fewer than two ranks were analysed"
					 : "no compute kernel ran on two ranks with the same name, "
					   "device, launch configuration and launch count";
	const char *title = json ? "Kernels against peers" : "Kernels against peers (highest)";
	return gpr_section_or_why(&t, f, d, title, "kernels", false, why, o);
}

static void failed_section(struct gp_strbuf *o, enum gpr_format f, const struct gpr_display *d,
			   const struct gpa_job *j, int *ret)
{
	struct gpr_table t;

	gpr_table_init(&t, failed_cols, sizeof(failed_cols) / sizeof(failed_cols[0]));
	for (size_t i = 0; i < j->nsums; i++) {
		if (!j->sums[i].ok) {
			gpr_table_cell(&t, j->sums[i].path);
			gpr_table_cell(&t, j->sums[i].error);
		}
	}
	if (f == GPR_FORMAT_JSON || gpr_table_rows(&t)) {
		*ret |= gpr_table_section(&t, f, d, "Traces not analysed", "failed", false, o);
	} else {
		gpr_table_release(&t);
	}
}

static void json_head(struct gp_strbuf *o, const struct gpa_job *j)
{
	gp_strbuf_addf(o, "{\"schema\":\"gpuprof-job/2\",\"traces\":%zu,\"analysed\":%zu,"
			  "\"not_analysed\":%" PRIu64 ",\"aligned\":%s",
		       j->nsums, j->ranks.n, j->failed, j->aligned ? "true" : "false");
	gp_strbuf_addf(o, ",\n\"step_median_over_ranks\":{\"n\":%" PRIu64 ",\"min\":%" PRIu64
			  ",\"median\":%" PRIu64 ",\"p90\":%" PRIu64 ",\"max\":%" PRIu64 "}",
		       j->rank_median.n, j->rank_median.min, j->rank_median.median,
		       j->rank_median.p90, j->rank_median.max);
	gp_strbuf_addf(o, ",\n\"trend\":{\"first_half_ns\":%" PRIu64 ",\"second_half_ns\":%" PRIu64
			  "}",
		       j->early_ns, j->late_ns);
	gp_strbuf_addf(o, ",\n\"skew\":{\"matched\":%" PRIu64 ",\"unmatched\":%" PRIu64
			  ",\"median\":%" PRIu64 ",\"p90\":%" PRIu64 ",\"max\":%" PRIu64,
		       j->groups, j->unmatched, j->skew.median, j->skew.p90, j->skew.max);
	gp_strbuf_addf(o, ",\"matched_by\":\"%s\",\"mismatched\":%" PRIu64
			  ",\"ends_checked\":%" PRIu64 ",\"ends_far\":%" PRIu64
			  ",\"end_spread_median_ns\":%" PRIu64 ",\"clocks_agree\":%s}",
		       gpa_coll_by_name(j->by), j->mismatched, j->ends_checked, j->ends_far,
		       j->end_spread_median, j->clocks_disagree ? "false" : "true");
	gp_strbuf_addf(o, ",\n\"straggler\":{\"verdict\":\"%s\"",
		       gpr_evidence_name(j->straggler_ev));
	if (j->straggler_ev == GPA_JOB_FOUND) {
		const struct gpa_job_rank *r = &j->ranks.v[j->straggler];
		const struct gpa_job_coll *c = &j->colls.v[j->straggler_at];
		gp_strbuf_addf(o, ",\"rank\":%lld,\"file\":", rank_id(r->s));
		gp_strbuf_add_json_str(o, r->s->path, strlen(r->s->path));
		gp_strbuf_addf(o, ",\"last\":%" PRIu64 ",\"margin_ns\":%" PRIu64 ",\"caused_ns\":%" PRIu64
			       ",\"at\":{\"collective\":",
			       r->last, j->straggler_margin, r->caused);
		gp_strbuf_add_json_str(o, c->func, strlen(c->func));
		gp_strbuf_adds(o, ",\"communicator\":\"");
		if (c->by == GPA_COLL_ORDER_STREAM) {
			gp_strbuf_addf(o, "stream %" PRIu32, gpa_coll_stream_id(c->hash));
		} else {
			gp_strbuf_addf(o, "%016" PRIx64, c->hash);
		}
		gp_strbuf_addf(o, "\",\"seq\":%" PRIu64 ",\"margin_ns\":%" PRIu64
			       ",\"idle_before_ns\":%" PRIu64 ",\"doing\":",
			       c->seq, c->margin, c->idle_before);
		gp_strbuf_add_json_str(o, c->doing, strlen(c->doing));
		gp_strbuf_adds(o, "}");
	} else if (j->straggler_ev == GPA_JOB_NONE) {
		char why[512];
		gpa_job_why_unmatched(j, why, sizeof(why));
		gp_strbuf_adds(o, ",\"why\":");
		gp_strbuf_add_json_str(o, why, strlen(why));
	}
	gp_strbuf_addf(o, "},\n\"slow_gpus\":{\"verdict\":\"%s\",\"ranks\":[",
		       gpr_evidence_name(j->slow_ev));
	for (size_t i = 0; i < j->slow.n; i++) {
		gp_strbuf_addf(o, "%s%lld", i ? "," : "", rank_id(j->ranks.v[j->slow.v[i]].s));
	}
	gp_strbuf_adds(o, "]}");
}

int gpr_job_render(struct gp_strbuf *o, enum gpr_format f, const struct gpr_display *d,
		   unsigned parts, const struct gpa_job *j)
{
	int ret = 0;

	if (f == GPR_FORMAT_JSON) {
		json_head(o, j);
	} else {
		head_text(o, f, d, j);
		if (parts & GPR_JOB_COMM) {
			straggler_text(o, d, j);
		}
		if (parts & GPR_JOB_KERNELS) {
			slow_text(o, j);
		}
	}
	failed_section(o, f, d, j, &ret);
	if (parts & GPR_JOB_STEPS) {
		ret |= steps_sections(o, f, d, j);
	}
	if (parts & GPR_JOB_COMM) {
		ret |= comm_sections(o, f, d, j);
	}
	if (parts & GPR_JOB_IDLE) {
		ret |= idle_section(o, f, d, j);
	}
	if (parts & GPR_JOB_KERNELS) {
		ret |= kernel_section(o, f, d, j);
	}
	if (f == GPR_FORMAT_JSON) {
		gp_strbuf_adds(o, "}\n");
	}
	return ret || o->failed ? -GP_ERR_NOMEM : 0;
}
