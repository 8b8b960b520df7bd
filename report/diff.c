/* SPDX-License-Identifier: MIT */
/*
 * diff.c - renders a gpa_diff_result: aligned text, Markdown (capped for
 * CI step summaries), JSON and JUnit XML through libxml2. Formats only.
 */
#include "base/compat.h"
#include "analyze/diff.h"
#include "report/report.h"
#include "report/diff.h"

#include <libxml/xmlwriter.h>
#include <math.h>
#include <stdio.h>

static const char *samples_desc(enum gpa_diff_samples s)
{
	switch (s) {
	case GPA_DIFF_STEPS:
		return "per-step values pooled across runs";
	case GPA_DIFF_RUN_MEDIANS:
		return "one per run: the median of its steps (runs differ in step count)";
	case GPA_DIFF_WHOLE_RUNS:
		return "one per run: no steps found, each whole run is one sample";
	}
	return "?";
}

static const char *samples_key(enum gpa_diff_samples s)
{
	static const char *const k[] = {"steps", "run-medians", "whole-runs"};
	return (unsigned)s < GP_ARRAY_SIZE(k) ? k[s] : "?";
}

static const char *correction_name(enum gpa_diff_correction c)
{
	static const char *const k[] = {"benjamini-hochberg", "holm", "none"};
	return (unsigned)c < GP_ARRAY_SIZE(k) ? k[c] : "?";
}

static void fmt_value(struct gp_strbuf *sb, const struct gpr_display *disp,
		      const struct gpa_diff_metric *m, double v)
{
	if (!isfinite(v) || v < 0) {
		gp_strbuf_adds(sb, "-");
		return;
	}
	switch (m->unit) {
	case GPA_DIFF_NS:
		gpr_fmt_ns(sb, disp, (uint64_t)llround(v));
		break;
	case GPA_DIFF_BYTES:
		gpr_fmt_bytes(sb, (uint64_t)llround(v));
		break;
	case GPA_DIFF_RATIO:
		gp_strbuf_addf(sb, "%.2f%%", v * 100);
		break;
	}
}

static void fmt_change(struct gp_strbuf *sb, double d)
{
	if (isnan(d)) {
		gp_strbuf_adds(sb, "-");
	} else if (isinf(d)) {
		gp_strbuf_adds(sb, d > 0 ? "+inf" : "-inf");
	} else {
		gp_strbuf_addf(sb, "%+.2f%%", d * 100);
	}
}

static void fmt_ci(struct gp_strbuf *sb, const struct gpa_diff_metric *m)
{
	gp_strbuf_addch(sb, '[');
	fmt_change(sb, m->ci_lo);
	gp_strbuf_adds(sb, ", ");
	fmt_change(sb, m->ci_hi);
	gp_strbuf_addch(sb, ']');
}

static void fmt_p(struct gp_strbuf *sb, double p)
{
	if (p < 0.0001) {
		gp_strbuf_adds(sb, "<0.0001");
	} else {
		gp_strbuf_addf(sb, "%.4f", p);
	}
}

static void fmt_verdict(struct gp_strbuf *sb, const struct gpa_diff_metric *m)
{
	gp_strbuf_adds(sb, gpa_verdict_name(m->verdict));
	if (m->verdict == GPA_VERDICT_INCONCLUSIVE) {
		gp_strbuf_addf(sb, " (need %s%" PRIu32 " more run%s)", m->more_runs >= 1000 ? ">= " : "",
			       m->more_runs, m->more_runs == 1 ? "" : "s");
	}
}

/* The cells of one metric row, in column order. */
enum { C_METRIC, C_BASE, C_CAND, C_CHANGE, C_CI, C_P, C_VERDICT, C_GATE, C__N };

static void row_cells(const struct gpa_diff_metric *m, const struct gpr_display *disp,
		      struct gp_strbuf cell[C__N])
{
	for (int i = 0; i < C__N; i++) {
		gp_strbuf_reset(&cell[i]);
	}
	gp_strbuf_adds(&cell[C_METRIC], m->name);
	fmt_value(&cell[C_BASE], disp, m, m->med_a);
	fmt_value(&cell[C_CAND], disp, m, m->med_b);
	fmt_change(&cell[C_CHANGE], m->delta);
	fmt_ci(&cell[C_CI], m);
	fmt_p(&cell[C_P], m->q);
	fmt_verdict(&cell[C_VERDICT], m);
	gp_strbuf_adds(&cell[C_GATE], m->gated ? "yes" : "");
}

static const struct gpr_col cols[C__N] = {
	{"Metric", GPR_COL_ELIDE, "metric"},
	{"Baseline", GPR_COL_NUM | GPR_COL_LEFT, "baseline"},
	{"Candidate", 0, "candidate"},
	{"Change", 0, "change"},
	{"95% CI", 0, "ci95"},
	{"p (adj)", 0, "p_adjusted"},
	{"Verdict", 0, "verdict"},
	{"Gate", 0, "gate"},
};

/* "+780 us", "-35.0 ms": a signed duration. */
static void fmt_sns(struct gp_strbuf *sb, const struct gpr_display *disp, double ns)
{
	gp_strbuf_addch(sb, ns < 0 ? '-' : '+');
	gpr_fmt_ns(sb, disp, (uint64_t)llround(fabs(ns)));
}

static void fmt_abs_ns(struct gp_strbuf *sb, const struct gpr_display *disp, double ns)
{
	gpr_fmt_ns(sb, disp, (uint64_t)llround(fabs(ns)));
}

/*
 * The first line: faster or slower per step (step.wall's verdict), by how
 * much, with the interval and adjusted p that decided it.
 */
static void first_line(struct gp_strbuf *out, const struct gpr_display *disp,
		       const struct gpa_diff_result *r, bool md)
{
	static const char *const word[] = {"NO MATERIAL CHANGE", "FASTER", "SLOWER",
					   "INCONCLUSIVE"};
	const struct gpa_diff_explain *e = &r->explain;
	const char *b = md ? "**" : "";

	if (e->step == SIZE_MAX) {
		gp_strbuf_addf(out, "%sNO STEP TIME%s: neither side has a step time to compare.\n", b,
			       b);
		return;
	}
	const struct gpa_diff_metric *m = &r->metrics.v[e->step];
	gp_strbuf_addf(out, "%s%s%s %s: ", b, word[e->direction], b,
		       e->whole ? "per run (no steps: each whole run)" : "per step");
	fmt_sns(out, disp, e->change_ns);
	gp_strbuf_adds(out, " (");
	fmt_change(out, m->delta);
	gp_strbuf_adds(out, "), ");
	fmt_value(out, disp, m, m->med_a);
	gp_strbuf_adds(out, " -> ");
	fmt_value(out, disp, m, m->med_b);
	gp_strbuf_adds(out, "; 95% CI ");
	fmt_ci(out, m);
	gp_strbuf_adds(out, ", p (adj) ");
	fmt_p(out, m->q);
	if (e->direction == GPA_DIFF_SAME) {
		gp_strbuf_addf(out, "; inside the minimum effect of %g%%", m->min_effect * 100);
	} else if (e->direction == GPA_DIFF_UNDECIDED) {
		gp_strbuf_adds(out, "; the evidence does not separate the runs: ");
		fmt_verdict(out, m);
	}
	gp_strbuf_adds(out, ".\n");
}

/* One cause: what moved, by how much, its share of the change and its own verdict. */
static void cause_phrase(struct gp_strbuf *out, const struct gpr_display *disp,
			 const struct gpa_diff_cause *c, bool shifted, bool md)
{
	const char *q = md ? "`" : "";
	const char *cat = c->metric + 5; /* "path." */

	if (c->idle) {
		gp_strbuf_addf(out, "%s idle %s by ", c->idle + 5, c->idle_ns < 0 ? "fell" : "rose");
		fmt_abs_ns(out, disp, c->idle_ns);
		gp_strbuf_addf(out, " (on the critical path: %s%s%s ", q, cat, q);
		fmt_sns(out, disp, c->delta_ns);
		gp_strbuf_adds(out, ")");
	} else {
		gp_strbuf_addf(out, "%s%s%s time on the critical path %s by ", q, cat, q,
			       c->delta_ns < 0 ? "fell" : "rose");
		fmt_abs_ns(out, disp, c->delta_ns);
	}
	if (shifted) {
		/* no change to share out */
	} else if (isfinite(c->share) && c->share >= 0.5) {
		gp_strbuf_addf(out, ", most of the step-time change (%.0f%%)", c->share * 100);
	} else if (isfinite(c->share) && c->share > 0) {
		gp_strbuf_addf(out, ", %.0f%% of the step-time change", c->share * 100);
	} else if (isfinite(c->share)) {
		gp_strbuf_addf(out, ", against the change (%.0f%%)", c->share * 100);
	}
	gp_strbuf_addf(out, " [%s]", gpa_verdict_name(c->verdict));
}

/* Whether a cause is worth a line: 1% of the baseline step, and 5% of a change to explain. */
static bool material(const struct gpa_diff_result *r, const struct gpa_diff_cause *c)
{
	const struct gpa_diff_explain *e = &r->explain;
	double step = e->step != SIZE_MAX ? r->metrics.v[e->step].med_a : 0;

	if (fabs(c->delta_ns) < 0.01 * step || c->delta_ns == 0) {
		return false;
	}
	if (e->shifted || !isfinite(c->share)) {
		return true;
	}
	return fabs(c->share) >= 0.05;
}

#define CAUSES_MAX 6
#define KERNELS_MAX 8

/* The causes of the change, ranked, then the kernel-level changes. */
static void causes(struct gp_strbuf *out, const struct gpr_display *disp,
		   const struct gpa_diff_result *r, bool md)
{
	const struct gpa_diff_explain *e = &r->explain;
	const char *li = md ? "- " : "  ";
	size_t shown = 0;

	if (!e->causes.n) {
		return;
	}
	if (md) {
		gp_strbuf_adds(out, "\n");
	}
	gp_strbuf_addf(out, "%s (critical path per %s, mean change ",
		       e->shifted ? "What moved"
		       : e->direction == GPA_DIFF_UNDECIDED ? "Where the undecided change comes from"
							      : "Why",
		       e->whole ? "run" : "step");
	fmt_sns(out, disp, e->path_ns);
	if (!e->shifted) {
		gp_strbuf_adds(out, "; causes by share of the change):\n");
	} else if (e->direction == GPA_DIFF_SAME) {
		gp_strbuf_adds(out, "; largest first):\n");
	} else {
		gp_strbuf_adds(out, "; the composition shifted, largest first):\n");
	}
	if (md) {
		gp_strbuf_adds(out, "\n");
	}
	for (size_t i = 0; i < e->causes.n && shown < CAUSES_MAX; i++) {
		if (!material(r, &e->causes.v[i])) {
			continue;
		}
		gp_strbuf_adds(out, li);
		cause_phrase(out, disp, &e->causes.v[i], e->shifted, md);
		gp_strbuf_adds(out, ".\n");
		shown++;
	}
	if (!shown) {
		gp_strbuf_addf(out, "%snothing material moved on the critical path.\n", li);
	}
	if (!e->kernels.n) {
		return;
	}
	gp_strbuf_addf(out, "%sKernel-level changes (GPU time per %s; they move the %s only "
			    "through the critical path above):\n%s",
		       md ? "\n" : "", e->whole ? "run" : "step", e->whole ? "run" : "step",
		       md ? "\n" : "");
	for (size_t i = 0; i < e->kernels.n && i < KERNELS_MAX; i++) {
		const struct gpa_diff_cause *c = &e->kernels.v[i];
		gp_strbuf_addf(out, "%s%s%s%s ", li, md ? "`" : "", c->metric, md ? "`" : "");
		fmt_sns(out, disp, c->delta_ns);
		gp_strbuf_adds(out, " (");
		fmt_change(out, c->change);
		gp_strbuf_addf(out, ") [%s%s%s%s].\n", gpa_verdict_name(c->verdict),
			       c->off_path ? "; off the critical path: " : "",
			       c->off_path ? c->path : "",
			       c->off_path ? " unchanged" : "");
	}
	if (e->kernels.n > KERNELS_MAX) {
		gp_strbuf_addf(out, "%s... and %zu more (the table has them).\n", li,
			       e->kernels.n - KERNELS_MAX);
	}
}

/*
 * The causes, when they fit: Markdown under a cap (max_bytes, 0 none; the
 * output began at start) keeps room for the method lines and the table's
 * closing lines; over it, one line says where the causes are.
 */
static void causes_capped(struct gp_strbuf *out, const struct gpr_display *disp,
			  const struct gpa_diff_result *r, bool md, size_t start, size_t max_bytes)
{
	struct gp_strbuf c = GP_STRBUF_INIT;
	size_t keep = 1000; /* the method lines, the table's first rows, the closing lines */

	causes(&c, disp, r, md);
	if (!max_bytes || out->len - start + c.len + keep <= max_bytes) {
		gp_strbuf_add(out, c.buf ? c.buf : "", c.len);
	} else if (c.len) {
		gp_strbuf_adds(out, "\n*The causes are over the output cap: the text and JSON "
				    "outputs have them.*\n");
	}
	out->failed |= c.failed;
	gp_strbuf_release(&c);
}

static void headline(struct gp_strbuf *out, const struct gpr_display *disp,
		     const struct gpa_diff_result *r, bool md, size_t start, size_t max_bytes)
{
	size_t n[4] = {0};
	const struct gpa_diff_explain *e = &r->explain;

	for (size_t i = 0; i < r->metrics.n; i++) {
		n[r->metrics.v[i].verdict]++;
	}
	first_line(out, disp, r, md);
	if (md) {
		gp_strbuf_adds(out, "\n");
	}
	if (r->regressed_gated) {
		gp_strbuf_addf(out, "%sREGRESSION%s: %zu gated metric%s regressed:", md ? "**" : "",
			       md ? "**" : "", r->regressed_gated, r->regressed_gated == 1 ? "" : "s");
		for (size_t i = 0; i < r->metrics.n; i++) {
			const struct gpa_diff_metric *m = &r->metrics.v[i];
			if (m->gated && m->verdict == GPA_VERDICT_REGRESSED) {
				gp_strbuf_addf(out, " %s%s%s ", md ? "`" : "", m->name, md ? "`" : "");
				fmt_change(out, m->delta);
			}
		}
		gp_strbuf_adds(out, "\n");
	} else {
		bool ungated = e->step != SIZE_MAX && e->direction == GPA_DIFF_SLOWER &&
			       !r->metrics.v[e->step].gated;
		gp_strbuf_addf(out, "%sNo regression%s in the gated metrics%s.\n", md ? "**" : "",
			       md ? "**" : "", ungated ? " (step.wall is not gated)" : "");
	}
	causes_capped(out, disp, r, md, start, max_bytes);
	if (md) {
		gp_strbuf_adds(out, "\n");
	}
	gp_strbuf_addf(out,
		       "%zu baseline run%s vs %zu candidate run%s; samples: %s. %zu metrics: %zu "
		       "regressed, %zu improved, %zu unchanged, %zu inconclusive.\n",
		       r->runs[0], r->runs[0] == 1 ? "" : "s", r->runs[1], r->runs[1] == 1 ? "" : "s",
		       samples_desc(r->samples), r->metrics.n, n[GPA_VERDICT_REGRESSED],
		       n[GPA_VERDICT_IMPROVED], n[GPA_VERDICT_UNCHANGED], n[GPA_VERDICT_INCONCLUSIVE]);
	if (md) {
		gp_strbuf_adds(out, "\n");
	}
	gp_strbuf_addf(out,
		       "Mann-Whitney U, p adjusted by %s, alpha %g; %g%% bootstrap interval of the "
		       "change of medians (%u resamples, seed %" PRIu64 ").\n",
		       correction_name(r->correction), r->alpha, r->boot.level * 100, r->boot.reps,
		       r->boot.seed);
}

static void name_list(struct gp_strbuf *out, const char *title, char **v, size_t n, bool md)
{
	if (!n) {
		return;
	}
	gp_strbuf_addf(out, md ? "\n%s (%zu):" : "\n%s (%zu):\n", title, n);
	for (size_t i = 0; i < n; i++) {
		if (md) {
			gp_strbuf_addf(out, "%s `%s`", i ? "," : "", v[i]);
		} else {
			gp_strbuf_addf(out, "  %s\n", v[i]);
		}
	}
	if (md) {
		gp_strbuf_adds(out, "\n");
	}
}

int gpr_diff_text(struct gp_strbuf *out, const struct gpr_display *disp,
		  const struct gpa_diff_result *r)
{
	struct gpr_table t;
	struct gp_strbuf cell[C__N];

	for (int i = 0; i < C__N; i++) {
		gp_strbuf_init(&cell[i]);
	}
	size_t from = out->len;
	headline(out, disp, r, false, from, 0);
	gpr_text_wrap_lines(out, disp, from, 2);
	gp_strbuf_adds(out, "\n");
	gpr_table_init(&t, cols, C__N);
	for (size_t i = 0; i < r->metrics.n; i++) {
		row_cells(&r->metrics.v[i], disp, cell);
		for (int c = 0; c < C__N; c++) {
			gpr_table_cell(&t, cell[c].buf);
		}
	}
	int ret = gpr_table_render(&t, GPR_FORMAT_TEXT, disp, out);
	gpr_table_release(&t);
	name_list(out, "New kernel families", r->new_kernels.v, r->new_kernels.n, false);
	name_list(out, "Vanished kernel families", r->vanished_kernels.v, r->vanished_kernels.n,
		  false);
	for (size_t i = 0; i < r->warnings.n; i++) {
		gp_strbuf_addch(out, '\n');
		size_t at = out->len;
		gp_strbuf_addf(out, "warning: %s", r->warnings.v[i]);
		gpr_text_wrap(out, disp, at, 2);
	}
	if (r->warnings.n) {
		gp_strbuf_adds(out, "\n");
	}
	for (int i = 0; i < C__N; i++) {
		gp_strbuf_release(&cell[i]);
	}
	return ret ? ret : (out->failed ? -GP_ERR_NOMEM : 0);
}

static void md_cell(struct gp_strbuf *sb, const char *s)
{
	gp_strbuf_adds(sb, " ");
	for (; *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '<' || *s == '>' || *s == '`' || *s == '*' ||
		    *s == '_') {
			gp_strbuf_addch(sb, '\\');
		}
		gp_strbuf_addch(sb, *s == '\n' ? ' ' : *s);
	}
	gp_strbuf_adds(sb, " |");
}

static void md_header(struct gp_strbuf *sb)
{
	gp_strbuf_adds(sb, "|");
	for (int c = 0; c < C__N; c++) {
		gp_strbuf_addf(sb, " %s |", cols[c].name);
	}
	gp_strbuf_adds(sb, "\n|");
	for (int c = 0; c < C__N; c++) {
		gp_strbuf_adds(sb, c == C_METRIC || c == C_VERDICT ? " --- |" : " ---: |");
	}
	gp_strbuf_adds(sb, "\n");
}

int gpr_diff_markdown(struct gp_strbuf *out, const struct gpr_display *disp,
		      const struct gpa_diff_result *r, size_t max_bytes)
{
	struct gp_strbuf cell[C__N], row = GP_STRBUF_INIT;
	size_t start = out->len, shown = 0, first_other = 0;
	/* room kept for the closing lines and the truncation note */
	size_t reserve = 600;

	for (int i = 0; i < C__N; i++) {
		gp_strbuf_init(&cell[i]);
	}
	gp_strbuf_adds(out, "## gpuprof diff\n\n");
	headline(out, disp, r, true, start, max_bytes);
	/* gated metrics first, in the open; everything in <details> */
	gp_strbuf_adds(out, "\n");
	md_header(out);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < r->metrics.n; i++) {
			const struct gpa_diff_metric *m = &r->metrics.v[i];
			if (pass == 0 && !m->gated) {
				continue;
			}
			if (pass == 1 && shown == first_other) {
				gp_strbuf_adds(out, "\n<details><summary>All metrics</summary>\n\n");
				md_header(out);
			}
			row_cells(m, disp, cell);
			gp_strbuf_reset(&row);
			gp_strbuf_adds(&row, "|");
			for (int c = 0; c < C__N; c++) {
				md_cell(&row, cell[c].buf);
			}
			gp_strbuf_adds(&row, "\n");
			if (max_bytes && out->len - start + row.len + reserve > max_bytes) {
				size_t total = r->metrics.n + first_other;
				gp_strbuf_addf(out,
					       "\n*Output capped at %zu bytes: %zu of %zu rows not "
					       "shown; the JSON output has them all.*\n",
					       max_bytes, total - shown, total);
				goto done;
			}
			gp_strbuf_add(out, row.buf, row.len);
			shown++;
		}
		if (pass == 0) {
			first_other = shown;
			if (!shown) {
				gp_strbuf_adds(out, "| *(no gated metric was compared)* |||||||\n");
			}
		}
	}
done:
	if (shown > first_other || r->metrics.n) {
		gp_strbuf_adds(out, "\n</details>\n");
	}
	/* the lists and warnings, each only while it fits under the cap */
	for (size_t part = 0; part < 2 + r->warnings.n; part++) {
		gp_strbuf_reset(&row);
		if (part == 0) {
			name_list(&row, "New kernel families", r->new_kernels.v,
				  r->new_kernels.n < 50 ? r->new_kernels.n : 50, true);
		} else if (part == 1) {
			name_list(&row, "Vanished kernel families", r->vanished_kernels.v,
				  r->vanished_kernels.n < 50 ? r->vanished_kernels.n : 50, true);
		} else {
			gp_strbuf_addf(&row, "\n> warning: %s\n", r->warnings.v[part - 2]);
		}
		if (!max_bytes || out->len - start + row.len <= max_bytes) {
			gp_strbuf_add(out, row.buf, row.len);
		}
	}
	gp_strbuf_release(&row);
	for (int i = 0; i < C__N; i++) {
		gp_strbuf_release(&cell[i]);
	}
	return out->failed || row.failed ? -GP_ERR_NOMEM : 0;
}

static void json_num(struct gp_strbuf *sb, double v)
{
	if (isfinite(v)) {
		gp_strbuf_addf(sb, "%.17g", v);
	} else {
		gp_strbuf_adds(sb, "null");
	}
}

static void json_key(struct gp_strbuf *sb, const char *k, bool comma)
{
	gp_strbuf_addf(sb, "%s\"%s\":", comma ? "," : "", k);
}

static void json_names(struct gp_strbuf *sb, const char *k, char **v, size_t n)
{
	json_key(sb, k, true);
	gp_strbuf_adds(sb, "[");
	for (size_t i = 0; i < n; i++) {
		if (i) {
			gp_strbuf_adds(sb, ",");
		}
		gp_strbuf_add_json_str(sb, v[i], strlen(v[i]));
	}
	gp_strbuf_adds(sb, "]");
}

static void json_causes(struct gp_strbuf *out, const char *key, const struct gpa_diff_cause *v,
			size_t n)
{
	json_key(out, key, true);
	gp_strbuf_adds(out, "[");
	for (size_t i = 0; i < n; i++) {
		const struct gpa_diff_cause *c = &v[i];
		gp_strbuf_adds(out, i ? ",{" : "{");
		json_key(out, "metric", false);
		gp_strbuf_add_json_str(out, c->metric, strlen(c->metric));
		json_key(out, "delta_ns", true);
		json_num(out, c->delta_ns);
		json_key(out, "share", true);
		json_num(out, c->share);
		json_key(out, "change", true);
		json_num(out, c->change);
		gp_strbuf_addf(out, ",\"verdict\":\"%s\"", gpa_verdict_name(c->verdict));
		if (c->off_path) {
			gp_strbuf_adds(out, ",\"off_path\":true");
		}
		if (c->idle) {
			json_key(out, "idle", true);
			gp_strbuf_add_json_str(out, c->idle, strlen(c->idle));
			json_key(out, "idle_delta_ns", true);
			json_num(out, c->idle_ns);
		}
		gp_strbuf_adds(out, "}");
	}
	gp_strbuf_adds(out, "]");
}

/* "explain": the first line, its numbers, and the causes (docs/diff.md). */
static void json_explain(struct gp_strbuf *out, const struct gpr_display *disp,
			 const struct gpa_diff_result *r)
{
	const struct gpa_diff_explain *e = &r->explain;
	struct gp_strbuf line = GP_STRBUF_INIT;

	first_line(&line, disp, r, false);
	if (line.len && line.buf[line.len - 1] == '\n') {
		line.buf[--line.len] = 0;
	}
	json_key(out, "explain", true);
	gp_strbuf_adds(out, "{\"headline\":");
	gp_strbuf_add_json_str(out, line.buf ? line.buf : "", line.len);
	gp_strbuf_release(&line);
	gp_strbuf_addf(out, ",\"direction\":\"%s\",\"per\":\"%s\"",
		       gpa_diff_direction_name(e->direction), e->whole ? "run" : "step");
	if (e->step != SIZE_MAX) {
		const struct gpa_diff_metric *m = &r->metrics.v[e->step];
		json_key(out, "change_ns", true);
		json_num(out, e->change_ns);
		json_key(out, "change", true);
		json_num(out, m->delta);
		json_key(out, "ci", true);
		gp_strbuf_adds(out, "[");
		json_num(out, m->ci_lo);
		gp_strbuf_adds(out, ",");
		json_num(out, m->ci_hi);
		gp_strbuf_adds(out, "]");
		json_key(out, "p_adjusted", true);
		json_num(out, m->q);
	}
	json_key(out, "path_change_ns", true);
	json_num(out, e->path_ns);
	gp_strbuf_addf(out, ",\"ranked_by\":\"%s\"", e->shifted ? "size" : "share");
	json_causes(out, "causes", e->causes.v, e->causes.n);
	json_causes(out, "kernel_changes", e->kernels.v, e->kernels.n);
	gp_strbuf_adds(out, "}");
}

int gpr_diff_json(struct gp_strbuf *out, const struct gpr_display *disp,
		  const struct gpa_diff_result *r)
{
	static const char *const units[] = {"ns", "bytes", "ratio"};

	gp_strbuf_addf(out,
		       "{\"schema\":\"gpuprof-diff/1\","
		       "\"runs\":{\"baseline\":%zu,\"candidate\":%zu},\"samples\":\"%s\","
		       "\"test\":\"mann-whitney-u\",\"correction\":\"%s\",\"alpha\":",
		       r->runs[0], r->runs[1], samples_key(r->samples),
		       correction_name(r->correction));
	json_num(out, r->alpha);
	gp_strbuf_addf(out, ",\"bootstrap\":{\"resamples\":%u,\"level\":", r->boot.reps);
	json_num(out, r->boot.level);
	gp_strbuf_addf(out, ",\"seed\":%" PRIu64 "},\"regressed_gated\":%zu,\"metrics\":[",
		       r->boot.seed, r->regressed_gated);
	for (size_t i = 0; i < r->metrics.n; i++) {
		const struct gpa_diff_metric *m = &r->metrics.v[i];
		gp_strbuf_adds(out, i ? ",\n{" : "\n{");
		json_key(out, "name", false);
		gp_strbuf_add_json_str(out, m->name, strlen(m->name));
		gp_strbuf_addf(out, ",\"unit\":\"%s\",\"higher_is_better\":%s,\"gated\":%s",
			       units[m->unit], m->higher_better ? "true" : "false",
			       m->gated ? "true" : "false");
		gp_strbuf_addf(out, ",\"samples\":[%zu,%zu],\"baseline_median\":", m->na, m->nb);
		json_num(out, m->med_a);
		json_key(out, "candidate_median", true);
		json_num(out, m->med_b);
		json_key(out, "change", true);
		json_num(out, m->delta);
		json_key(out, "baseline_mean", true);
		json_num(out, m->mean_a);
		json_key(out, "candidate_mean", true);
		json_num(out, m->mean_b);
		json_key(out, "ci", true);
		gp_strbuf_adds(out, "[");
		json_num(out, m->ci_lo);
		gp_strbuf_adds(out, ",");
		json_num(out, m->ci_hi);
		gp_strbuf_adds(out, "]");
		json_key(out, "p", true);
		json_num(out, m->p);
		json_key(out, "p_adjusted", true);
		json_num(out, m->q);
		gp_strbuf_addf(out, ",\"exact\":%s,\"min_effect\":", m->exact ? "true" : "false");
		json_num(out, m->min_effect);
		gp_strbuf_addf(out, ",\"verdict\":\"%s\"", gpa_verdict_name(m->verdict));
		if (m->verdict == GPA_VERDICT_INCONCLUSIVE) {
			gp_strbuf_addf(out, ",\"more_runs\":%" PRIu32, m->more_runs);
		}
		gp_strbuf_adds(out, "}");
	}
	gp_strbuf_adds(out, "]");
	json_explain(out, disp, r);
	json_names(out, "new_kernels", r->new_kernels.v, r->new_kernels.n);
	json_names(out, "vanished_kernels", r->vanished_kernels.v, r->vanished_kernels.n);
	json_names(out, "warnings", r->warnings.v, r->warnings.n);
	gp_strbuf_adds(out, "}\n");
	return out->failed ? -GP_ERR_NOMEM : 0;
}

/* ---- JUnit */

/*
 * Text XML 1.0 can carry: invalid UTF-8 and control characters other than
 * tab, newline and carriage return (which a trace's kernel names may hold)
 * become '?'. The copy lives in sb.
 */
static const char *xml_safe(struct gp_strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	gp_strbuf_reset(sb);
	while (*p) {
		size_t len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3
					 : (*p & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = len > 0;
		for (size_t i = 1; ok && i < len; i++) {
			ok = (p[i] & 0xc0) == 0x80;
		}
		if (ok && len == 2 && *p < 0xc2) {
			ok = false; /* overlong */
		}
		if (ok && len == 1 && *p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') {
			ok = false;
		}
		if (!ok) {
			gp_strbuf_addch(sb, '?');
			p++;
			continue;
		}
		gp_strbuf_add(sb, p, len);
		p += len;
	}
	return sb->buf;
}

#define W(call)                                                                                    \
	do {                                                                                       \
		if ((call) < 0) {                                                                  \
			goto fail;                                                                 \
		}                                                                                  \
	} while (0)

static int attr_num(xmlTextWriterPtr w, const char *name, size_t n)
{
	return xmlTextWriterWriteFormatAttribute(w, BAD_CAST name, "%zu", n);
}

/* Numbers of a metric for a failure or skip text. */
static void numbers(struct gp_strbuf *sb, const struct gpr_display *disp,
		    const struct gpa_diff_metric *m)
{
	gp_strbuf_addf(sb, "%s: baseline median ", m->name);
	fmt_value(sb, disp, m, m->med_a);
	gp_strbuf_adds(sb, ", candidate median ");
	fmt_value(sb, disp, m, m->med_b);
	gp_strbuf_adds(sb, ", change ");
	fmt_change(sb, m->delta);
	gp_strbuf_adds(sb, ", 95% CI ");
	fmt_ci(sb, m);
	gp_strbuf_adds(sb, ", p (adjusted) ");
	fmt_p(sb, m->q);
	gp_strbuf_addf(sb, ", minimum effect %g%%, samples %zu vs %zu", m->min_effect * 100, m->na,
		       m->nb);
}

int gpr_diff_junit(struct gp_strbuf *out, const struct gpr_display *disp,
		   const struct gpa_diff_result *r)
{
	xmlBufferPtr buf = xmlBufferCreate();
	xmlTextWriterPtr w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
	struct gp_strbuf msg = GP_STRBUF_INIT, text = GP_STRBUF_INIT, safe = GP_STRBUF_INIT;
	size_t tests = 0, failures = 0, skipped = 0;
	int ret = -GP_ERR_NOMEM;

	if (!w) {
		goto fail;
	}
	for (size_t i = 0; i < r->metrics.n; i++) {
		const struct gpa_diff_metric *m = &r->metrics.v[i];
		tests += m->gated;
		failures += m->gated && m->verdict == GPA_VERDICT_REGRESSED;
		skipped += m->gated && m->verdict == GPA_VERDICT_INCONCLUSIVE;
	}
	W(xmlTextWriterSetIndent(w, 1));
	W(xmlTextWriterSetIndentString(w, BAD_CAST "  "));
	W(xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL));
	W(xmlTextWriterStartElement(w, BAD_CAST "testsuites"));
	W(xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST "gpuprof diff"));
	W(attr_num(w, "tests", tests));
	W(attr_num(w, "failures", failures));
	W(attr_num(w, "errors", 0));
	W(attr_num(w, "skipped", skipped));
	W(xmlTextWriterWriteAttribute(w, BAD_CAST "time", BAD_CAST "0"));
	W(xmlTextWriterStartElement(w, BAD_CAST "testsuite"));
	W(xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST "gpuprof.diff"));
	W(attr_num(w, "tests", tests));
	W(attr_num(w, "failures", failures));
	W(attr_num(w, "errors", 0));
	W(attr_num(w, "skipped", skipped));
	W(xmlTextWriterWriteAttribute(w, BAD_CAST "time", BAD_CAST "0"));
	W(xmlTextWriterStartElement(w, BAD_CAST "properties"));
	{
		char v[64];
		const char *props[][2] = {{"samples", samples_key(r->samples)},
					  {"correction", correction_name(r->correction)}};
		for (size_t i = 0; i < GP_ARRAY_SIZE(props); i++) {
			W(xmlTextWriterStartElement(w, BAD_CAST "property"));
			W(xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST props[i][0]));
			W(xmlTextWriterWriteAttribute(w, BAD_CAST "value", BAD_CAST props[i][1]));
			W(xmlTextWriterEndElement(w));
		}
		const char *numprops[] = {"baseline_runs", "candidate_runs"};
		for (size_t i = 0; i < 2; i++) {
			snprintf(v, sizeof(v), "%zu", r->runs[i]);
			W(xmlTextWriterStartElement(w, BAD_CAST "property"));
			W(xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST numprops[i]));
			W(xmlTextWriterWriteAttribute(w, BAD_CAST "value", BAD_CAST v));
			W(xmlTextWriterEndElement(w));
		}
		snprintf(v, sizeof(v), "%g", r->alpha);
		W(xmlTextWriterStartElement(w, BAD_CAST "property"));
		W(xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST "alpha"));
		W(xmlTextWriterWriteAttribute(w, BAD_CAST "value", BAD_CAST v));
		W(xmlTextWriterEndElement(w));
		W(xmlTextWriterStartElement(w, BAD_CAST "property"));
		W(xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST "direction"));
		W(xmlTextWriterWriteAttribute(
			w, BAD_CAST "value", BAD_CAST gpa_diff_direction_name(r->explain.direction)));
		W(xmlTextWriterEndElement(w));
		gp_strbuf_reset(&msg);
		first_line(&msg, disp, r, false);
		if (msg.len && msg.buf[msg.len - 1] == '\n') {
			msg.buf[--msg.len] = 0;
		}
		W(xmlTextWriterStartElement(w, BAD_CAST "property"));
		W(xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST "headline"));
		W(xmlTextWriterWriteAttribute(w, BAD_CAST "value", BAD_CAST xml_safe(&safe, msg.buf)));
		W(xmlTextWriterEndElement(w));
	}
	W(xmlTextWriterEndElement(w));
	for (size_t i = 0; i < r->metrics.n; i++) {
		const struct gpa_diff_metric *m = &r->metrics.v[i];
		if (!m->gated) {
			continue;
		}
		W(xmlTextWriterStartElement(w, BAD_CAST "testcase"));
		W(xmlTextWriterWriteAttribute(w, BAD_CAST "classname", BAD_CAST "gpuprof.diff"));
		W(xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST xml_safe(&safe, m->name)));
		/* time: the candidate's median in seconds for time metrics */
		W(xmlTextWriterWriteFormatAttribute(
			w, BAD_CAST "time", "%.9f",
			m->unit == GPA_DIFF_NS && isfinite(m->med_b) ? m->med_b * 1e-9 : 0.0));
		gp_strbuf_reset(&msg);
		gp_strbuf_reset(&text);
		numbers(&text, disp, m);
		if (m->verdict == GPA_VERDICT_REGRESSED) {
			gp_strbuf_addf(&msg, "%s regressed by ", m->name);
			fmt_change(&msg, m->delta);
			gp_strbuf_adds(&msg, " (95% CI ");
			fmt_ci(&msg, m);
			gp_strbuf_adds(&msg, ")");
			W(xmlTextWriterStartElement(w, BAD_CAST "failure"));
			W(xmlTextWriterWriteAttribute(w, BAD_CAST "message",
						      BAD_CAST xml_safe(&safe, msg.buf)));
			W(xmlTextWriterWriteAttribute(w, BAD_CAST "type", BAD_CAST "regression"));
			W(xmlTextWriterWriteString(w, BAD_CAST xml_safe(&safe, text.buf)));
			W(xmlTextWriterEndElement(w));
		} else if (m->verdict == GPA_VERDICT_INCONCLUSIVE) {
			fmt_verdict(&msg, m);
			W(xmlTextWriterStartElement(w, BAD_CAST "skipped"));
			W(xmlTextWriterWriteAttribute(w, BAD_CAST "message", BAD_CAST msg.buf));
			W(xmlTextWriterEndElement(w));
		}
		if (m->verdict != GPA_VERDICT_REGRESSED) {
			W(xmlTextWriterWriteElement(w, BAD_CAST "system-out",
						    BAD_CAST xml_safe(&safe, text.buf)));
		}
		W(xmlTextWriterEndElement(w));
	}
	gp_strbuf_reset(&text);
	if (gpr_diff_text(&text, disp, r)) {
		goto fail;
	}
	W(xmlTextWriterWriteElement(w, BAD_CAST "system-out", BAD_CAST xml_safe(&safe, text.buf)));
	W(xmlTextWriterEndElement(w)); /* testsuite */
	W(xmlTextWriterEndElement(w)); /* testsuites */
	W(xmlTextWriterEndDocument(w));
	xmlFreeTextWriter(w);
	w = NULL;
	gp_strbuf_add(out, xmlBufferContent(buf), (size_t)xmlBufferLength(buf));
	ret = out->failed ? -GP_ERR_NOMEM : 0;
fail:
	if (w) {
		xmlFreeTextWriter(w);
	}
	if (buf) {
		xmlBufferFree(buf);
	}
	gp_strbuf_release(&msg);
	gp_strbuf_release(&text);
	gp_strbuf_release(&safe);
	return ret;
}
