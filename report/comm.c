/* SPDX-License-Identifier: MIT */
/*
 * report/comm.c - the tables of a communication analysis (gpuprof comm, the
 * report's Communication sections). Formats only.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/comm.h"
#include "analyze/steps.h"
#include "report/report.h"
#include "report/comm.h"

static const struct gpr_col coll_cols[] = {
	{"Collective", GPR_COL_LEFT, "collective"},
	{"Size", GPR_COL_LEFT, "size"},
	{"Ranks", GPR_COL_NUM, "ranks"},
	{"Count", GPR_COL_NUM | GPR_COL_COUNT, "count"},
	{"Time (ns)", GPR_COL_NUM, "time_ns"},
	{"Avg (ns)", GPR_COL_NUM, "avg_ns"},
	{"Bytes", GPR_COL_NUM | GPR_COL_BYTES, "bytes"},
	{"algbw (GB/s)", GPR_COL_NUM, "algbw_gb_per_s"},
	{"busbw (GB/s)", GPR_COL_NUM, "busbw_gb_per_s"},
	{"Peak (GB/s)", GPR_COL_NUM, "peak_gb_per_s"},
	{"busbw/peak (%)", GPR_COL_NUM, "busbw_of_peak_pct"},
	{"GPU timed (%)", GPR_COL_NUM, "gpu_timed_pct"},
};

static const struct gpr_col dev_cols[] = {
	{"Process", GPR_COL_LEFT, "process"},
	{"Device", GPR_COL_NUM, "device"},
	{"Step", GPR_COL_LEFT, "step"},
	{"Comm kernels", GPR_COL_NUM | GPR_COL_COUNT, "comm_kernels"},
	{"Comm (ns)", GPR_COL_NUM, "comm_ns"},
	{"Overlapped (ns)", GPR_COL_NUM, "overlapped_ns"},
	{"Exposed (ns)", GPR_COL_NUM, "exposed_ns"},
	{"Overlap (%)", GPR_COL_NUM, "overlap_pct"},
	{"Compute (ns)", GPR_COL_NUM, "compute_ns"},
};

static const struct gpr_col rank_cols[] = {
	{"Rank", GPR_COL_NUM, "rank"},
	{"Process", GPR_COL_LEFT, "process"},
	{"Matched by", GPR_COL_LEFT, "matched_by"},
	{"Matched", GPR_COL_NUM | GPR_COL_COUNT, "matched"},
	{"Last", GPR_COL_NUM, "last"},
	{"Wait caused (ns)", GPR_COL_NUM, "wait_caused_ns"},
	{"Waited (ns)", GPR_COL_NUM, "waited_ns"},
	{"Mean lateness (ns)", GPR_COL_NUM, "mean_lateness_ns"},
};

static void proc_label(struct gpr_table *t, const struct gpa_model *m, uint32_t p)
{
	const struct gpa_proc *pr = &m->procs.v[p];

	if (pr->rank >= 0) {
		gpr_table_cellf(t, "rank %" PRId32, pr->rank);
	} else {
		gpr_table_cellf(t, "pid %" PRIu32, pr->pid);
	}
}

static void fill_colls(struct gpr_table *t, const struct gpa_model *m, const struct gpa_comm *c)
{
	gpr_table_init(t, coll_cols, GP_ARRAY_SIZE(coll_cols));
	for (size_t i = 0; i < c->colls.n; i++) {
		const struct gpa_comm_coll *x = &c->colls.v[i];
		const char *raw = gpa_model_str(m, x->func);
		const char *canon = gpa_comm_canonical(raw);
		gpr_table_cell(t, canon ? canon : (*raw ? raw : "?"));
		gpr_table_cell(t, gpa_comm_bucket_name(x->bucket));
		gpr_table_cellf(t, "%" PRId32, x->nranks);
		gpr_table_cellf(t, "%" PRIu64, x->count);
		gpr_table_cellf(t, "%" PRIu64, x->time);
		gpr_table_cellf(t, "%" PRIu64, x->count ? x->time / x->count : 0);
		gpr_table_cellf(t, "%" PRIu64, x->bytes);
		if (x->data && x->bw_time) {
			gpr_table_cellf(t, "%.2f", x->algbw);
			gpr_table_cellf(t, "%.2f", x->busbw);
		} else { /* sizes or times unknown (imported without payloads) */
			gpr_table_cell(t, "");
			gpr_table_cell(t, "");
		}
		if (x->peak > 0) {
			gpr_table_cellf(t, "%.1f", x->peak);
			gpr_table_cellf(t, "%.1f", 100.0 * x->busbw / x->peak);
		} else {
			gpr_table_cell(t, "");
			gpr_table_cell(t, "");
		}
		gpr_table_cell_pct(t, x->gpu_known, x->count);
	}
}

static void fill_devs(struct gpr_table *t, const struct gpa_model *m, const struct gpa_steps *st,
		      const struct gpa_comm *c, bool totals_only)
{
	gpr_table_init(t, dev_cols, GP_ARRAY_SIZE(dev_cols));
	for (size_t i = 0; i < c->devs.n; i++) {
		const struct gpa_comm_dev *d = &c->devs.v[i];
		if (totals_only && d->step != GPA_NONE) {
			continue;
		}
		proc_label(t, m, m->devs.v[d->dev].proc);
		gpr_table_cellf(t, "%" PRIu32, m->devs.v[d->dev].id);
		if (d->step == GPA_NONE) {
			gpr_table_cell(t, "all");
		} else if (st && d->step < st->v.n) {
			gpr_table_cellf(t, "%" PRId64, st->v.v[d->step].number);
		} else {
			gpr_table_cell(t, "?");
		}
		gpr_table_cellf(t, "%" PRIu64, d->kernels);
		gpr_table_cellf(t, "%" PRIu64, d->comm);
		gpr_table_cellf(t, "%" PRIu64, d->overlap);
		gpr_table_cellf(t, "%" PRIu64, d->exposed);
		gpr_table_cell_pct(t, d->overlap, d->comm);
		gpr_table_cellf(t, "%" PRIu64, d->compute);
	}
}

struct rank_key {
	int32_t rank;
	uint32_t pid;
	size_t i;
};

/* Ranks in numeric order (0, 1, 2, ..., 10), then by pid. */
static int cmp_rank_key(const void *a, const void *b)
{
	const struct rank_key *x = a, *y = b;

	if (x->rank != y->rank) {
		return x->rank < y->rank ? -1 : 1;
	}
	if (x->pid != y->pid) {
		return x->pid < y->pid ? -1 : 1;
	}
	return x->i < y->i ? -1 : x->i > y->i;
}

static void fill_ranks(struct gpr_table *t, const struct gpa_model *m, const struct gpa_comm *c)
{
	struct rank_key *keys = calloc(c->ranks.n ? c->ranks.n : 1, sizeof(*keys));

	gpr_table_init(t, rank_cols, GP_ARRAY_SIZE(rank_cols));
	if (!keys) {
		t->failed = true;
		return;
	}
	for (size_t i = 0; i < c->ranks.n; i++) {
		keys[i] = (struct rank_key){c->ranks.v[i].rank, m->procs.v[c->ranks.v[i].proc].pid, i};
	}
	gp_qsort(keys, c->ranks.n, sizeof(*keys), cmp_rank_key);
	for (size_t k = 0; k < c->ranks.n; k++) {
		const struct gpa_comm_rank *r = &c->ranks.v[keys[k].i];
		if (!r->matched) {
			continue;
		}
		if (r->rank >= 0) {
			gpr_table_cellf(t, "%" PRId32, r->rank);
		} else {
			gpr_table_cell(t, ""); /* not known: the process says which */
		}
		gpr_table_cellf(t, "pid %" PRIu32, m->procs.v[r->proc].pid);
		gpr_table_cell(t, gpa_coll_by_name(r->by));
		gpr_table_cellf(t, "%" PRIu64, r->matched);
		gpr_table_cellf(t, "%" PRIu64, r->last);
		gpr_table_cellf(t, "%" PRIu64, r->caused);
		gpr_table_cellf(t, "%" PRIu64, r->waited);
		gpr_table_cellf(t, "%" PRIu64, r->late_sum / r->matched);
	}
	free(keys);
}

int gpr_comm_table(struct gpr_table *t, unsigned table, const struct gpa_model *m,
		   const struct gpa_steps *steps, const struct gpa_comm *c, bool totals_only)
{
	switch (table) {
	case GPR_COMM_COLLS:
		fill_colls(t, m, c);
		return 0;
	case GPR_COMM_EXPOSED:
		fill_devs(t, m, steps, c, totals_only);
		return 0;
	case GPR_COMM_RANKS:
		fill_ranks(t, m, c);
		return 0;
	default:
		gpr_table_init(t, coll_cols, 0);
		return -GP_ERR_API;
	}
}

void gpr_comm_rank_label(struct gp_strbuf *sb, const struct gpa_model *m,
			 const struct gpa_comm_rank *r)
{
	if (r->rank >= 0) {
		gp_strbuf_addf(sb, "rank %" PRId32 " (pid %" PRIu32 ")", r->rank,
			       m->procs.v[r->proc].pid);
	} else {
		gp_strbuf_addf(sb, "pid %" PRIu32, m->procs.v[r->proc].pid);
	}
}

const char *gpr_evidence_name(uint8_t ev)
{
	switch (ev) {
	case GPA_COLL_NONE:
		return "unknown";
	case GPA_COLL_NOTHING:
		return "nothing material";
	case GPA_COLL_FOUND:
		return "found";
	default:
		GP_BUG("evidence %u", ev);
	}
}

int gpr_section_or_why(struct gpr_table *t, enum gpr_format f, const struct gpr_display *d,
		       const char *title, const char *key, bool first, const char *why,
		       struct gp_strbuf *o)
{
	if (f == GPR_FORMAT_JSON || f == GPR_FORMAT_CSV || gpr_table_rows(t)) {
		return gpr_table_section(t, f, d, title, key, first, o);
	}
	size_t from = o->len;
	gpr_table_release(t);
	gp_strbuf_addf(o, "\n%s%s: none: %s\n", f == GPR_FORMAT_MARKDOWN ? "### " : "", title,
		       why);
	if (f == GPR_FORMAT_TEXT) {
		gpr_text_wrap_lines(o, d, from, 2); /* within COLUMNS, as every sentence */
	}
	return 0;
}

bool gpr_comm_has_data(const struct gpa_comm *c)
{
	return gpa_comm_present(c);
}

static const char *ident_name(enum gpa_comm_ident i)
{
	switch (i) {
	case GPA_COMM_BY_RECORDS:
		return "NCCL records";
	case GPA_COMM_BY_NAMES:
		return "name rules";
	case GPA_COMM_BY_BOTH:
		return "NCCL records, then name rules";
	case GPA_COMM_BY_NONE:
		return "none found";
	}
	GP_BUG("communication found by %d", (int)i);
}

/* "sequence number", or the loosest order, said as such. */
static void matched_by(struct gp_strbuf *o, const struct gpa_comm *c)
{
	gp_strbuf_addf(o, " by %s%s", gpa_coll_by_name(c->match.by),
		       c->match.by != GPA_COLL_SEQ ? " (no sequence numbers)" : "");
}

/* Matching across ranks: what matched and how, the clock check, the straggler or why none. */
static void across_text(struct gp_strbuf *o, const struct gpr_display *d, const struct gpa_model *m,
			const struct gpa_comm *c)
{
	char why[512];

	if (c->groups) {
		gp_strbuf_adds(o, "Matched across ranks");
		matched_by(o, c);
		gp_strbuf_adds(o, ": ");
		gpr_fmt_counted(o, c->groups, "collective", "collectives");
		gp_strbuf_adds(o, "; arrival skew max ");
		gpr_fmt_ns(o, d, c->skew_max);
		gp_strbuf_adds(o, ", mean ");
		gpr_fmt_ns(o, d, c->skew_sum / c->groups);
		gp_strbuf_adds(o, ".\n");
	}
	if (c->match.ends_checked) {
		gp_strbuf_addf(o, "Clock check: %" PRIu64 " of %" PRIu64 " collectives timed on "
			       "the GPU end within %llu ms on every rank (median spread ",
			       c->match.ends_checked - c->match.ends_far, c->match.ends_checked,
			       GPA_COLL_END_NS / 1000000);
		gpr_fmt_ns(o, d, c->match.end_spread_median);
		gp_strbuf_addf(o, ")%s.\n",
			       c->match.clocks_disagree ? ": the clocks disagree" : "");
	}
	gp_strbuf_adds(o, "Straggler: ");
	if (c->straggler_ev == GPA_COLL_FOUND) {
		const struct gpa_comm_rank *r = &c->ranks.v[c->straggler];
		gpr_comm_rank_label(o, m, r);
		gp_strbuf_addf(o, ", last in %" PRIu64 " of %" PRIu64 ", a median ", r->last,
			       c->groups);
		gpr_fmt_ns(o, d, c->straggler_margin);
		gp_strbuf_adds(o, " after the next rank; the others waited ");
		gpr_fmt_ns(o, d, r->caused);
		gp_strbuf_adds(o, " for it.\n");
	} else if (c->straggler_ev == GPA_COLL_NOTHING) {
		gp_strbuf_addf(o, "nothing material (no rank last in half of %" PRIu64
				  " collectives by %llu us or more).\n", c->groups,
			       GPA_COLL_STRAGGLER_NS / 1000);
	} else {
		gpa_coll_why_unmatched(&c->match, why, sizeof(why));
		gp_strbuf_addf(o, "unknown (%s).\n", why);
	}
	if (c->unmatched) {
		gp_strbuf_addf(o, "%" PRIu64 " collective%s found on one rank only.\n",
			       c->unmatched, c->unmatched == 1 ? "" : "s");
	}
}

static void summary_text(struct gp_strbuf *o, const struct gpr_display *d,
			 const struct gpa_model *m, const struct gpa_comm *c)
{
	gpr_fmt_counted(o, c->ops, "NCCL operation", "NCCL operations");
	gp_strbuf_adds(o, " (");
	gpr_fmt_count(o, c->p2p_ops);
	gp_strbuf_adds(o, " point-to-point), ");
	gpr_fmt_count(o, c->ops_gpu);
	gp_strbuf_adds(o, " with GPU times; ");
	gpr_fmt_counted(o, c->comm_kernels, "communication kernel", "communication kernels");
	if (c->comm_kernels) {
		gp_strbuf_addf(o, " (found by %s)", ident_name(c->ident));
	}
	gp_strbuf_adds(o, ".\n");
	if (c->host_colls) {
		gpr_fmt_counted(o, c->host_colls, "collective call", "collective calls");
		gp_strbuf_addf(o, " recorded on the host ('%s'%s): no GPU communication time of their own.\n",
			       gpa_model_str(m, c->host_name), c->host_colls == 1 ? "" : ", ...");
	}
	if (c->ops && !c->peak_known) {
		gp_strbuf_adds(o, "Link peak unknown: busbw is not compared with it.\n");
	}
	if (c->ranks.n > 1) {
		across_text(o, d, m, c);
	}
}

/* The JSON summary's keys on matching across ranks (schema gpuprof-comm/3, docs/comm.md). */
static void json_across(struct gp_strbuf *o, const struct gpa_comm *c)
{
	const struct gpa_coll_check *k = &c->match;
	char why[512];

	gp_strbuf_adds(o, ",\"matched_by\":");
	if (c->groups) {
		gp_strbuf_addf(o, "\"%s\"", gpa_coll_by_name(k->by));
	} else {
		gp_strbuf_adds(o, "null");
	}
	gp_strbuf_addf(o, ",\"mismatched\":%" PRIu64 ",\"clock_check\":{\"ends_checked\":%" PRIu64
			  ",\"ends_far\":%" PRIu64 ",\"end_spread_median_ns\":%" PRIu64
			  ",\"clocks_agree\":%s}",
		       k->mismatched, k->ends_checked, k->ends_far, k->end_spread_median,
		       k->clocks_disagree ? "false" : "true");
	gp_strbuf_addf(o, ",\"straggler\":{\"verdict\":\"%s\"", gpr_evidence_name(c->straggler_ev));
	if (c->straggler_ev == GPA_COLL_FOUND) {
		gp_strbuf_addf(o, ",\"margin_ns\":%" PRIu64, c->straggler_margin);
	} else if (c->straggler_ev == GPA_COLL_NONE) {
		gpa_coll_why_unmatched(k, why, sizeof(why));
		gp_strbuf_adds(o, ",\"why\":");
		gp_strbuf_add_json_str(o, why, strlen(why));
	}
	gp_strbuf_adds(o, "}");
}

/* Why a table of c has no rows, for the line that replaces it. */
static const char *why_empty(const struct gpa_comm *c, unsigned table, char *buf, size_t len)
{
	switch (table) {
	case GPR_COMM_COLLS:
		snprintf(buf, len, "no NCCL records%s", c->comm_kernels ? " (communication kernels "
			 "are found by name: their time is under Exposed communication)" : "");
		return buf;
	case GPR_COMM_EXPOSED:
		return "no communication kernels or peer copies on any device";
	default:
		return gpa_coll_why_unmatched(&c->match, buf, len);
	}
}

int gpr_comm_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		    unsigned tables, const struct gpa_model *m, const struct gpa_steps *steps,
		    const struct gpa_comm *c)
{
	static const struct {
		unsigned bit;
		const char *title, *key;
	} secs[] = {
		{GPR_COMM_COLLS, "Collectives", "collectives"},
		{GPR_COMM_EXPOSED, "Exposed communication", "exposed"},
		{GPR_COMM_RANKS, "Across ranks", "ranks"},
	};
	bool first = true;
	int ret = 0;

	if (fmt == GPR_FORMAT_JSON) {
		gp_strbuf_addf(out,
			       "{\"schema\":\"gpuprof-comm/3\","
			       "\"summary\":{\"ops\":%" PRIu64
			       ",\"p2p_ops\":%" PRIu64
			       ",\"ops_gpu\":%" PRIu64 ",\"comm_kernels\":%" PRIu64
			       ",\"by_record\":%" PRIu64 ",\"by_name\":%" PRIu64
			       ",\"matched\":%" PRIu64 ",\"unmatched\":%" PRIu64
			       ",\"skew_max_ns\":%" PRIu64 ",\"skew_mean_ns\":%" PRIu64
			       ",\"peak_known\":%s,\"straggler_rank\":",
			       c->ops, c->p2p_ops, c->ops_gpu, c->comm_kernels, c->by_record,
			       c->by_name, c->groups, c->unmatched, c->skew_max,
			       c->groups ? c->skew_sum / c->groups : 0, c->peak_known ? "true" : "false");
		if (c->straggler != GPA_NONE) {
			gp_strbuf_addf(out, "%" PRId32, c->ranks.v[c->straggler].rank);
		} else {
			gp_strbuf_adds(out, "null");
		}
		json_across(out, c);
		gp_strbuf_adds(out, "}");
	} else if (fmt == GPR_FORMAT_TEXT || fmt == GPR_FORMAT_MARKDOWN) {
		size_t from = out->len;
		summary_text(out, d, m, c);
		if (fmt == GPR_FORMAT_TEXT) {
			gpr_text_wrap_lines(out, d, from, 2);
		}
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(secs) && !ret; i++) {
		if (!(tables & secs[i].bit)) {
			continue;
		}
		struct gpr_table t;
		char why[512];
		ret = gpr_comm_table(&t, secs[i].bit, m, steps, c, false);
		if (!ret) {
			ret = gpr_section_or_why(&t, fmt, d, secs[i].title, secs[i].key,
						 fmt == GPR_FORMAT_CSV && first,
						 why_empty(c, secs[i].bit, why, sizeof(why)), out);
			first = false;
		} else {
			gpr_table_release(&t);
		}
	}
	if (fmt == GPR_FORMAT_JSON) {
		gp_strbuf_adds(out, "}\n");
	}
	return ret ? ret : (out->failed ? -GP_ERR_NOMEM : 0);
}
