/* SPDX-License-Identifier: MIT */
/*
 * flight.c - the opening of `gpuprof report` on a flight recording: why it
 * was saved, and the slow step against the median step (analyze/flight.h),
 * in text and Markdown, and as the report JSON's "flight" object.
 */
#include "base/compat.h"
#include "report/flight.h"
#include "analyze/flight.h"
#include "analyze/steps.h"

#include <math.h>

static void signed_ns(struct gp_strbuf *o, const struct gpr_display *d, double ns)
{
	gp_strbuf_addch(o, ns < 0 ? '-' : '+');
	gpr_fmt_ns(o, d, (uint64_t)fabs(ns));
}

static void causes(struct gp_strbuf *o, const struct gpr_display *d, const struct gpa_flight_cmp *c,
		   const char *ind)
{
	const struct gpa_diff_explain *e = &c->res.explain;
	size_t shown = 0;

	gp_strbuf_addf(o, "%scritical path of the slow step against the median step, %s:\n", ind,
		       e->shifted ? "largest change first" : "by share of the change");
	for (size_t i = 0; i < e->causes.n && shown < GPA_FLIGHT_TOP; i++) {
		const struct gpa_diff_cause *k = &e->causes.v[i];
		if (k->verdict != GPA_VERDICT_REGRESSED && k->verdict != GPA_VERDICT_IMPROVED) {
			continue;
		}
		gp_strbuf_addf(o, "%s  %-18s ", ind, k->metric + 5);
		signed_ns(o, d, k->delta_ns);
		if (!e->shifted && !isnan(k->share)) {
			gp_strbuf_addf(o, " (%.1f%% of the change)", 100 * k->share);
		}
		if (k->idle) {
			gp_strbuf_addf(o, "; GPU %s ", k->idle);
			signed_ns(o, d, k->idle_ns);
		}
		gp_strbuf_addch(o, '\n');
		shown++;
	}
	if (!shown) {
		gp_strbuf_addf(o, "%s  no category beyond every other step's\n", ind);
	}
}

static void grew(struct gp_strbuf *o, const struct gpr_display *d, const struct gpa_flight_cmp *c,
		 const char *ind)
{
	if (!c->grew.n) {
		return;
	}
	gp_strbuf_addf(o, "%sgrew most in the slow step:\n", ind);
	for (size_t i = 0; i < c->grew.n; i++) {
		const struct gpa_flight_grew *g = &c->grew.v[i];
		gp_strbuf_addf(o, "%s  %s '%s' ", ind, g->kernel ? "kernel" : "NVTX range", g->name);
		gpr_fmt_ns(o, d, g->slow_ns);
		gp_strbuf_adds(o, " (median step ");
		gpr_fmt_ns(o, d, g->median_ns);
		gp_strbuf_adds(o, ")\n");
	}
}

int gpr_flight_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		      const struct gpa_flight_info *fi, const struct gpa_flight_cmp *cmp,
		      const struct gpa_model *m, const struct gpa_steps *steps)
{
	const char *ind = fmt == GPR_FORMAT_MARKDOWN ? "    " : "  ";

	if (fmt == GPR_FORMAT_MARKDOWN) {
		gp_strbuf_adds(out, "## Flight recording\n\n");
	}
	gp_strbuf_addf(out, "Flight recording saved on %s: %s\n", fi->trigger,
		       fi->what ? fi->what : "");
	gp_strbuf_addf(out, "%s%llu records left the ring before the save; %llu triggers fell in "
			    "the cool-down\n",
		       ind, (unsigned long long)fi->dropped_records,
		       (unsigned long long)fi->suppressed);
	if (cmp && cmp->have) {
		const struct gpa_step *s = &steps->v.v[cmp->step];
		const char *name = s->name ? gpa_model_str(m, s->name) : NULL;
		gp_strbuf_addf(out, "Slow step %s: ", name ? name : "(unnamed)");
		gpr_fmt_ns(out, d, cmp->slow_ns);
		gp_strbuf_adds(out, " against a median of ");
		gpr_fmt_ns(out, d, cmp->median_ns);
		gp_strbuf_addf(out, " over the %zu other steps (", cmp->normal);
		signed_ns(out, d, (double)cmp->slow_ns - (double)cmp->median_ns);
		gp_strbuf_adds(out, ")\n");
		causes(out, d, cmp, ind);
		grew(out, d, cmp, ind);
	} else {
		gp_strbuf_addf(out, "%sno slow step to compare: fewer than %d steps in the file\n", ind,
			       GPA_FLIGHT_MIN_NORMAL + 1);
	}
	gp_strbuf_addch(out, '\n');
	return out->failed ? -GP_ERR_NOMEM : 0;
}

static void json_str(struct gp_strbuf *o, const char *s)
{
	if (s) {
		gp_strbuf_add_json_str(o, s, strlen(s));
	} else {
		gp_strbuf_adds(o, "null");
	}
}

/* "causes": the critical path's categories that moved, as the text lists them. */
static void causes_json(struct gp_strbuf *o, const struct gpa_flight_cmp *c)
{
	const struct gpa_diff_explain *e = &c->res.explain;
	size_t shown = 0;

	gp_strbuf_adds(o, ",\"causes\":[");
	for (size_t i = 0; i < e->causes.n && shown < GPA_FLIGHT_TOP; i++) {
		const struct gpa_diff_cause *k = &e->causes.v[i];
		if (k->verdict != GPA_VERDICT_REGRESSED && k->verdict != GPA_VERDICT_IMPROVED) {
			continue;
		}
		gp_strbuf_adds(o, shown++ ? ",{\"category\":" : "{\"category\":");
		json_str(o, k->metric + 5);
		gp_strbuf_addf(o, ",\"delta_ns\":%.0f,\"share_pct\":", k->delta_ns);
		if (!e->shifted && !isnan(k->share)) {
			gp_strbuf_addf(o, "%.1f", 100 * k->share);
		} else {
			gp_strbuf_adds(o, "null");
		}
		gp_strbuf_adds(o, ",\"idle_cause\":");
		json_str(o, k->idle);
		gp_strbuf_addf(o, ",\"idle_delta_ns\":%.0f}", k->idle ? k->idle_ns : 0.0);
	}
	gp_strbuf_addf(o, "],\"ranked_by\":\"%s\"", e->shifted ? "change" : "share");
}

/* "comparison": null, or the slow step against the median step. */
static void cmp_json(struct gp_strbuf *o, const struct gpa_flight_cmp *c,
		     const struct gpa_model *m, const struct gpa_steps *steps)
{
	gp_strbuf_adds(o, ",\"comparison\":");
	if (!c || !c->have) {
		gp_strbuf_adds(o, "null");
		return;
	}
	const struct gpa_step *s = &steps->v.v[c->step];
	gp_strbuf_adds(o, "{\"step\":");
	json_str(o, s->name ? gpa_model_str(m, s->name) : NULL);
	gp_strbuf_addf(o, ",\"step_start_ns\":%" PRIu64 ",\"slow_ns\":%" PRIu64
			  ",\"median_ns\":%" PRIu64 ",\"other_steps\":%zu",
		       s->start, c->slow_ns, c->median_ns, c->normal);
	causes_json(o, c);
	gp_strbuf_adds(o, ",\"grew\":[");
	for (size_t i = 0; i < c->grew.n; i++) {
		const struct gpa_flight_grew *g = &c->grew.v[i];
		gp_strbuf_adds(o, i ? ",{\"name\":" : "{\"name\":");
		json_str(o, g->name);
		gp_strbuf_addf(o, ",\"kind\":\"%s\",\"slow_ns\":%" PRIu64 ",\"median_ns\":%" PRIu64 "}",
			       g->kernel ? "kernel" : "nvtx", g->slow_ns, g->median_ns);
	}
	gp_strbuf_adds(o, "]}");
}

void gpr_flight_json(struct gp_strbuf *o, const struct gpa_flight_info *fi,
		     const struct gpa_flight_cmp *cmp, const struct gpa_model *m,
		     const struct gpa_steps *steps)
{
	gp_strbuf_adds(o, ",\"flight\":");
	if (!fi || !fi->is_flight) {
		gp_strbuf_adds(o, "null");
		return;
	}
	int64_t off = fi->proc < m->procs.n ? m->procs.v[fi->proc].clock_offset : 0;
	gp_strbuf_adds(o, "{\"trigger\":");
	json_str(o, fi->trigger);
	gp_strbuf_adds(o, ",\"what\":");
	json_str(o, fi->what);
	gp_strbuf_addf(o, ",\"trigger_ns\":%" PRIu64 ",\"step_start_ns\":", fi->trigger_ts + off);
	if (fi->step_start) {
		gp_strbuf_addf(o, "%" PRIu64 ",\"step_end_ns\":%" PRIu64, fi->step_start + off,
			       fi->step_end + off);
	} else {
		gp_strbuf_adds(o, "null,\"step_end_ns\":null");
	}
	gp_strbuf_addf(o, ",\"median_step_ns\":%" PRIu64 ",\"window_start_ns\":", fi->median_ns);
	if (fi->window_start) {
		gp_strbuf_addf(o, "%" PRIu64, fi->window_start + off);
	} else {
		gp_strbuf_adds(o, "null");
	}
	gp_strbuf_addf(o, ",\"dropped_chunks\":%" PRIu64 ",\"dropped_records\":%" PRIu64
			  ",\"suppressed_triggers\":%" PRIu64,
		       fi->dropped_chunks, fi->dropped_records, fi->suppressed);
	cmp_json(o, cmp, m, steps);
	gp_strbuf_addch(o, '}');
}
