/* SPDX-License-Identifier: MIT */
/*
 * flight.c - the opening of `gpuprof report` on a flight recording: why it
 * was saved, and the slow step against the median step (analyze/flight.h).
 */
#include "base/compat.h"
#include "report/flight.h"
#include "analyze/flight.h"
#include "analyze/steps.h"

#include <math.h>

static void signed_ns(struct gp_strbuf *o, double ns)
{
	gp_strbuf_addch(o, ns < 0 ? '-' : '+');
	gpr_fmt_ns(o, (uint64_t)fabs(ns));
}

static void causes(struct gp_strbuf *o, const struct gpa_flight_cmp *c, const char *ind)
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
		signed_ns(o, k->delta_ns);
		if (!e->shifted && !isnan(k->share)) {
			gp_strbuf_addf(o, " (%.1f%% of the change)", 100 * k->share);
		}
		if (k->idle) {
			gp_strbuf_addf(o, "; GPU %s ", k->idle);
			signed_ns(o, k->idle_ns);
		}
		gp_strbuf_addch(o, '\n');
		shown++;
	}
	if (!shown) {
		gp_strbuf_addf(o, "%s  no category beyond every other step's\n", ind);
	}
}

static void grew(struct gp_strbuf *o, const struct gpa_flight_cmp *c, const char *ind)
{
	if (!c->grew.n) {
		return;
	}
	gp_strbuf_addf(o, "%sgrew most in the slow step:\n", ind);
	for (size_t i = 0; i < c->grew.n; i++) {
		const struct gpa_flight_grew *g = &c->grew.v[i];
		gp_strbuf_addf(o, "%s  %s '%s' ", ind, g->kernel ? "kernel" : "NVTX range", g->name);
		gpr_fmt_ns(o, g->slow_ns);
		gp_strbuf_adds(o, " (median step ");
		gpr_fmt_ns(o, g->median_ns);
		gp_strbuf_adds(o, ")\n");
	}
}

int gpr_flight_render(struct gp_strbuf *out, enum gpr_format fmt,
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
		gpr_fmt_ns(out, cmp->slow_ns);
		gp_strbuf_adds(out, " against a median of ");
		gpr_fmt_ns(out, cmp->median_ns);
		gp_strbuf_addf(out, " over the %zu other steps (", cmp->normal);
		signed_ns(out, (double)cmp->slow_ns - (double)cmp->median_ns);
		gp_strbuf_adds(out, ")\n");
		causes(out, cmp, ind);
		grew(out, cmp, ind);
	} else {
		gp_strbuf_addf(out, "%sno slow step to compare: fewer than %d steps in the file\n", ind,
			       GPA_FLIGHT_MIN_NORMAL + 1);
	}
	gp_strbuf_addch(out, '\n');
	return out->failed ? -GP_ERR_NOMEM : 0;
}
