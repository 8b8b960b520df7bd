/* SPDX-License-Identifier: MIT */
/*
 * critpath.c - renders a critical-path analysis (analyze/critpath.c): per
 * step its time, bound and composition, the composition over all steps, and
 * the longest segments of each path with their events. Formats only; times
 * are exact integer nanoseconds, starts counted from the first event.
 */
#include "base/compat.h"
#include "analyze/critpath.h"
#include "analyze/model.h"
#include "analyze/steps.h"
#include "report/report.h"
#include "report/critpath.h"

static const struct gpr_col step_cols[] = {
	{"Step", GPR_COL_LEFT, "step"},
	{"Start (ns)", GPR_COL_NUM | GPR_COL_DETAIL, "start_ns"},
	{"Time (ns)", GPR_COL_NUM, "time_ns"},
	{"Bound", GPR_COL_LEFT, "bound"},
	{"cpu (ns)", GPR_COL_NUM, "cpu_ns"},
	{"launch-overhead (ns)", GPR_COL_NUM, "launch_overhead_ns"},
	{"kernel (ns)", GPR_COL_NUM, "kernel_ns"},
	{"copy (ns)", GPR_COL_NUM, "copy_ns"},
	{"communication (ns)", GPR_COL_NUM, "communication_ns"},
	{"wait-stream (ns)", GPR_COL_NUM | GPR_COL_DETAIL, "wait_stream_ns"},
	{"wait-rank (ns)", GPR_COL_NUM | GPR_COL_DETAIL, "wait_rank_ns"},
	{"idle (ns)", GPR_COL_NUM, "idle_ns"},
	{"synchronization (ns)", GPR_COL_NUM | GPR_COL_DETAIL, "synchronization_ns"},
	{"data-loading (ns)", GPR_COL_NUM | GPR_COL_DETAIL, "data_loading_ns"},
	{"warm-up (ns)", GPR_COL_NUM | GPR_COL_DETAIL, "warm_up_ns"},
	{"What-if time (ns)", GPR_COL_NUM, "what_if_time_ns"},
	{"Saved (ns)", GPR_COL_NUM, "saved_ns"},
	{"What-if bound", GPR_COL_LEFT, "what_if_bound"},
};

static const struct gpr_col comp_cols[] = {
	{"Category", GPR_COL_LEFT, "category"},
	{"Time (ns)", GPR_COL_NUM, "time_ns"},
	{"% of path", GPR_COL_NUM, "path_pct"},
	{"What-if (ns)", GPR_COL_NUM, "what_if_ns"},
	{"What-if %", GPR_COL_NUM, "what_if_pct"},
};

static const struct gpr_col seg_cols[] = {
	{"Step", GPR_COL_LEFT, "step"},
	{"Path", GPR_COL_LEFT, "path"},
	{"Start (ns)", GPR_COL_NUM, "start_ns"},
	{"Duration (ns)", GPR_COL_NUM, "duration_ns"},
	{"Category", GPR_COL_LEFT, "category"},
	{"Event", GPR_COL_LEFT | GPR_COL_NAME, "event"},
};

/* Where names and the first event come from: a model, or names resolved elsewhere. */
struct src {
	const struct gpa_model *m;
	const struct gpa_steps *steps;
	const struct gpr_cp_names *nm; /* not NULL: m and steps are */
};

static void step_label(struct gpr_table *t, const struct src *src, const struct gpa_critpath *cp,
		       const struct gpa_cp_step *s)
{
	const struct gpa_model *m = src->m;
	const struct gpa_steps *steps = src->steps;

	if (src->nm) {
		gpr_table_cell(t, src->nm->step[s - cp->steps.v]);
		return;
	}
	if (s->step == GPA_NONE || !steps) {
		gpr_table_cell(t, "window");
		return;
	}
	const struct gpa_step *st = &steps->v.v[s->step];
	if (st->name) {
		gpr_table_cell(t, gpa_model_str(m, st->name));
	} else {
		gpr_table_cellf(t, "process %" PRIu32, m->procs.v[st->proc].pid);
	}
}

static uint64_t rel(const struct src *src, uint64_t t)
{
	uint64_t t0 = src->nm ? src->nm->t0 : src->m->t0;

	return t > t0 ? t - t0 : 0;
}

static void step_table(struct gpr_table *t, const struct src *src, const struct gpa_critpath *cp)
{
	gpr_table_init(t, step_cols, GP_ARRAY_SIZE(step_cols) - (cp->what_if ? 0 : 3));
	for (size_t i = 0; i < cp->steps.n; i++) {
		const struct gpa_cp_step *s = &cp->steps.v[i];
		uint64_t now = s->now.end - s->start, wi = s->what_if.end - s->start;
		step_label(t, src, cp, s);
		gpr_table_cellf(t, "%" PRIu64, rel(src, s->start));
		gpr_table_cellf(t, "%" PRIu64, now);
		gpr_table_cell(t, gpa_cp_cat_name(gpa_cp_bound(&s->now)));
		for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
			gpr_table_cellf(t, "%" PRIu64, s->now.cat_ns[k]);
		}
		if (cp->what_if) {
			gpr_table_cellf(t, "%" PRIu64, wi);
			gpr_table_cellf(t, "%" PRId64, (int64_t)(now - wi));
			gpr_table_cell(t, gpa_cp_cat_name(gpa_cp_bound(&s->what_if)));
		}
	}
}

static void comp_table(struct gpr_table *t, const struct gpa_critpath *cp)
{
	uint64_t sum[2][GPA_CP__COUNT] = {{0}}, tot[2] = {0, 0};

	for (size_t i = 0; i < cp->steps.n; i++) {
		for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
			sum[0][k] += cp->steps.v[i].now.cat_ns[k];
			sum[1][k] += cp->steps.v[i].what_if.cat_ns[k];
			tot[0] += cp->steps.v[i].now.cat_ns[k];
			tot[1] += cp->steps.v[i].what_if.cat_ns[k];
		}
	}
	gpr_table_init(t, comp_cols, GP_ARRAY_SIZE(comp_cols) - (cp->what_if ? 0 : 2));
	for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
		gpr_table_cell(t, gpa_cp_cat_name(k));
		gpr_table_cellf(t, "%" PRIu64, sum[0][k]);
		gpr_table_cell_pct(t, sum[0][k], tot[0]);
		if (cp->what_if) {
			gpr_table_cellf(t, "%" PRIu64, sum[1][k]);
			gpr_table_cell_pct(t, sum[1][k], tot[1]);
		}
	}
}

static const char *event_name(const struct src *src, const struct gpa_critpath *cp,
			      const struct gpa_cp_seg *g)
{
	const struct gpa_model *m = src->m;

	if (src->nm) {
		return src->nm->seg[g - cp->segs.v];
	}
	return gpa_cp_seg_name(m, g);
}

static void seg_rows(struct gpr_table *t, const struct src *src, const struct gpa_critpath *cp,
		     const struct gpa_cp_step *s, const struct gpa_cp_path *p, const char *which)
{
	for (size_t k = 0; k < p->top_n; k++) {
		const struct gpa_cp_seg *g = &cp->segs.v[p->top_first + k];
		step_label(t, src, cp, s);
		gpr_table_cell(t, which);
		gpr_table_cellf(t, "%" PRIu64, rel(src, g->start));
		gpr_table_cellf(t, "%" PRIu64, g->end - g->start);
		gpr_table_cell(t, gpa_cp_cat_name(g->cat));
		gpr_table_cellf(t, "%s%s", g->edge ? "before " : "", event_name(src, cp, g));
	}
}

static void seg_table(struct gpr_table *t, const struct src *src, const struct gpa_critpath *cp)
{
	gpr_table_init(t, seg_cols, GP_ARRAY_SIZE(seg_cols));
	for (size_t i = 0; i < cp->steps.n; i++) {
		seg_rows(t, src, cp, &cp->steps.v[i], &cp->steps.v[i].now, "now");
		if (cp->what_if) {
			seg_rows(t, src, cp, &cp->steps.v[i], &cp->steps.v[i].what_if, "what-if");
		}
	}
}

static void header(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		   const struct gpa_critpath *cp)
{
	uint64_t now = 0, wi = 0;

	for (size_t i = 0; i < cp->steps.n; i++) {
		now += cp->steps.v[i].now.end - cp->steps.v[i].start;
		wi += cp->steps.v[i].what_if.end - cp->steps.v[i].start;
	}
	switch (fmt) {
	case GPR_FORMAT_TEXT:
	case GPR_FORMAT_MARKDOWN:
		gp_strbuf_adds(out, fmt == GPR_FORMAT_TEXT ? "Critical path: " : "## Critical path\n\n");
		gp_strbuf_addf(out, "%zu step%s, ", cp->steps.n, cp->steps.n == 1 ? "" : "s");
		gpr_fmt_ns(out, d, now);
		if (cp->what_if) {
			gp_strbuf_adds(out, "; what-if ");
			gpr_fmt_ns(out, d, wi);
			gp_strbuf_adds(out, now >= wi ? " (saves " : " (costs ");
			gpr_fmt_ns(out, d, now >= wi ? now - wi : wi - now);
			gp_strbuf_addch(out, ')');
		}
		if (cp->cycles) {
			gp_strbuf_addf(out, "; %" PRIu64 " points left out of a cycle", cp->cycles);
		}
		gp_strbuf_adds(out, fmt == GPR_FORMAT_TEXT
					    ? "\nstarts are times from the first event\n"
					    : ". Starts are times from the first event.\n");
		break;
	case GPR_FORMAT_JSON:
		gp_strbuf_addf(out,
			       "{\"schema\":\"gpuprof-critical-path/2\","
			       "\"totals\":{\"steps\":%zu,\"time_ns\":%" PRIu64
			       ",\"what_if\":%s,\"what_if_time_ns\":%" PRIu64
			       ",\"cycle_points\":%" PRIu64 "}",
			       cp->steps.n, now, cp->what_if ? "true" : "false", wi, cp->cycles);
		break;
	case GPR_FORMAT_CSV:
		break;
	}
}

static int render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		  const struct src *src, const struct gpa_critpath *cp)
{
	static const struct {
		const char *key, *title;
	} secs[] = {
		{"steps", "Steps (time on the critical path by category)"},
		{"composition", "Composition over all steps"},
		{"segments", "Longest path segments"},
	};
	int ret = 0;

	if ((unsigned)fmt > GPR_FORMAT_MARKDOWN) {
		return -GP_ERR_API;
	}
	header(out, fmt, d, cp);
	for (size_t i = 0; i < GP_ARRAY_SIZE(secs) && !ret; i++) {
		struct gpr_table t;
		if (i == 0) {
			step_table(&t, src, cp);
		} else if (i == 1) {
			comp_table(&t, cp);
		} else {
			seg_table(&t, src, cp);
		}
		ret = gpr_table_section(&t, fmt, d, secs[i].title, secs[i].key, i == 0, out);
	}
	if (!ret && fmt == GPR_FORMAT_JSON) {
		gp_strbuf_adds(out, "}\n");
	}
	return !ret && out->failed ? -GP_ERR_NOMEM : ret;
}

int gpr_critpath_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
			const struct gpa_model *m, const struct gpa_steps *steps,
			const struct gpa_critpath *cp)
{
	struct src src = {.m = m, .steps = steps};

	return render(out, fmt, d, &src, cp);
}

int gpr_critpath_render_names(struct gp_strbuf *out, enum gpr_format fmt,
			      const struct gpr_display *d, const struct gpr_cp_names *nm,
			      const struct gpa_critpath *cp)
{
	struct src src = {.nm = nm};

	return render(out, fmt, d, &src, cp);
}

int gpr_critpath_each_table(const struct gpa_model *m, const struct gpa_steps *steps,
			    const struct gpa_critpath *cp,
			    int (*fn)(void *data, const char *title, const char *key,
				      const struct gpr_table *t),
			    void *data)
{
	static const struct {
		const char *key, *title;
	} secs[] = {
		{"critical-path-steps", "Critical path: time on it per step, by category"},
		{"critical-path-composition", "Critical path: composition over all steps"},
		{"critical-path-segments", "Critical path: longest segments"},
	};
	struct src src = {.m = m, .steps = steps};
	int ret = 0;

	for (size_t i = 0; i < GP_ARRAY_SIZE(secs) && !ret; i++) {
		struct gpr_table t;
		if (i == 0) {
			step_table(&t, &src, cp);
		} else if (i == 1) {
			comp_table(&t, cp);
		} else {
			seg_table(&t, &src, cp);
		}
		ret = t.failed ? -GP_ERR_NOMEM : fn(data, secs[i].title, secs[i].key, &t);
		gpr_table_release(&t);
	}
	return ret;
}
