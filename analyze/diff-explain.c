/* SPDX-License-Identifier: MIT */
/*
 * diff-explain.c - why the candidate is faster or slower (docs/diff.md#the-
 * first-line-and-its-causes): the direction from step.wall's verdict, the
 * critical path's categories (path.<category>) ranked by their share of the
 * mean path change, host-side categories paired with the GPU idle cause
 * that moved with them, then kernel-level changes. Reads only the metrics
 * of a result, so a category the critical path gains flows through.
 */
#include "base/compat.h"
#include "analyze/diff.h"

#include <math.h>
#include <string.h>

const char *gpa_diff_direction_name(unsigned d)
{
	static const char *const k[] = {"no material change", "faster", "slower", "inconclusive"};
	return d < GP_ARRAY_SIZE(k) ? k[d] : "unknown";
}

static bool prefixed(const char *name, const char *prefix)
{
	return !strncmp(name, prefix, strlen(prefix));
}

/*
 * Whether a path category is the GPU doing the step's work (kernels, copies,
 * communication, one stream or rank waiting for another); every other
 * category (host CPU work, launch overhead, idle, and categories added
 * later such as data loading) is time the GPU may sit idle in.
 */
static bool gpu_work(const char *cat)
{
	return prefixed(cat, "kernel") || prefixed(cat, "copy") || prefixed(cat, "comm") ||
	       prefixed(cat, "wait-");
}

static double mean_delta(const struct gpa_diff_metric *m)
{
	return m->mean_b - m->mean_a;
}

static int cmp_share(const void *x, const void *y)
{
	const struct gpa_diff_cause *a = x, *b = y;
	double ka = isnan(a->share) ? fabs(a->delta_ns) : a->share;
	double kb = isnan(b->share) ? fabs(b->delta_ns) : b->share;

	if (ka != kb) {
		return ka > kb ? -1 : 1;
	}
	return strcmp(a->metric, b->metric);
}

static int cmp_size(const void *x, const void *y)
{
	const struct gpa_diff_cause *a = x, *b = y;

	if (fabs(a->delta_ns) != fabs(b->delta_ns)) {
		return fabs(a->delta_ns) > fabs(b->delta_ns) ? -1 : 1;
	}
	return strcmp(a->metric, b->metric);
}

static enum gpa_diff_direction direction_of(enum gpa_verdict v)
{
	switch (v) {
	case GPA_VERDICT_UNCHANGED:
		return GPA_DIFF_SAME;
	case GPA_VERDICT_IMPROVED:
		return GPA_DIFF_FASTER;
	case GPA_VERDICT_REGRESSED:
		return GPA_DIFF_SLOWER;
	case GPA_VERDICT_INCONCLUSIVE:
		return GPA_DIFF_UNDECIDED;
	}
	GP_BUG("verdict %d", (int)v);
}

/* Whether an idle cause and a path category name one thing ("cpu", "cpu-bound"). */
static bool akin(const char *idle_cause, const char *cat)
{
	return strstr(idle_cause, cat) || strstr(cat, idle_cause);
}

/*
 * The idle cause (not idle.total, not used) that moved most in the same
 * direction as c: pass 0 only causes akin to c's category, pass 1 any, by
 * half to twice as much. SIZE_MAX when none.
 */
static size_t idle_for(const struct gpa_diff_result *r, const struct gpa_diff_cause *c,
		       const bool *used, int pass)
{
	size_t best = SIZE_MAX;

	for (size_t j = 0; j < r->metrics.n; j++) {
		const struct gpa_diff_metric *m = &r->metrics.v[j];
		double dj = mean_delta(m), ratio = dj / c->delta_ns;
		if (used[j] || !prefixed(m->name, "idle.") || !strcmp(m->name, "idle.total") ||
		    !(ratio > 0)) {
			continue;
		}
		if (pass == 0 ? !akin(m->name + 5, c->metric + 5) : ratio < 0.5 || ratio > 2) {
			continue;
		}
		if (best == SIZE_MAX || fabs(dj) > fabs(mean_delta(&r->metrics.v[best]))) {
			best = j;
		}
	}
	return best;
}

/*
 * Pairs host-side categories with the GPU idle cause that moved with them:
 * first by name (launch-overhead with launch-overhead, cpu with cpu-bound),
 * then, in rank order, with any idle cause of half to twice the change; each
 * idle cause explains one category at most.
 */
static void pair_idle(const struct gpa_diff_result *r, struct gpa_diff_explain *e)
{
	bool *used = calloc(r->metrics.n + 1, sizeof(bool));

	if (!used) {
		return; /* the pairing is a refinement: without memory, none */
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < e->causes.n; i++) {
			struct gpa_diff_cause *c = &e->causes.v[i];
			if (!c->host || c->delta_ns == 0 || c->idle) {
				continue;
			}
			size_t best = idle_for(r, c, used, pass);
			if (best != SIZE_MAX) {
				used[best] = true;
				c->idle = r->metrics.v[best].name;
				c->idle_ns = mean_delta(&r->metrics.v[best]);
			}
		}
	}
	free(used);
}

static bool kernel_level(const char *name)
{
	return prefixed(name, "kernel.") || prefixed(name, "op.") || prefixed(name, "copy.time") ||
	       prefixed(name, "comm.");
}

/* The path category a kernel-level metric's time runs in, when it is on the path. */
static const char *path_of(const char *name)
{
	if (prefixed(name, "kernel.") || prefixed(name, "op.")) {
		return "path.kernel";
	}
	return prefixed(name, "copy.") ? "path.copy" : "path.communication";
}

/* Kernel-level changes whose path category was found unchanged did not move the step. */
static void mark_off_path(const struct gpa_diff_result *r, struct gpa_diff_explain *e)
{
	for (size_t i = 0; i < e->kernels.n; i++) {
		const char *cat = path_of(e->kernels.v[i].metric);
		e->kernels.v[i].path = cat;
		for (size_t j = 0; j < r->metrics.n; j++) {
			if (!strcmp(r->metrics.v[j].name, cat)) {
				e->kernels.v[i].off_path =
					r->metrics.v[j].verdict == GPA_VERDICT_UNCHANGED;
			}
		}
	}
}

int gpa_diff_explain(struct gpa_diff_result *r)
{
	struct gpa_diff_explain *e = &r->explain;

	gp_vec_free(&e->causes);
	gp_vec_free(&e->kernels);
	*e = (struct gpa_diff_explain){.step = SIZE_MAX,
				       .whole = r->samples == GPA_DIFF_WHOLE_RUNS};
	for (size_t i = 0; i < r->metrics.n; i++) {
		const struct gpa_diff_metric *m = &r->metrics.v[i];
		struct gpa_diff_cause c = {.metric = m->name, .delta_ns = mean_delta(m),
					   .change = m->delta, .verdict = m->verdict};
		if (!strcmp(m->name, "step.wall")) {
			e->step = i;
			e->change_ns = m->med_b - m->med_a;
			e->direction = direction_of(m->verdict);
		} else if (prefixed(m->name, "path.")) {
			c.host = !gpu_work(m->name + 5);
			e->path_ns += c.delta_ns;
			if (gp_vec_push(&e->causes, c)) {
				return -GP_ERR_NOMEM;
			}
		} else if (kernel_level(m->name) && (m->verdict == GPA_VERDICT_REGRESSED ||
						     m->verdict == GPA_VERDICT_IMPROVED)) {
			if (gp_vec_push(&e->kernels, c)) {
				return -GP_ERR_NOMEM;
			}
		}
	}
	for (size_t i = 0; i < e->causes.n; i++) {
		e->causes.v[i].share = e->path_ns != 0 ? e->causes.v[i].delta_ns / e->path_ns : NAN;
	}
	for (size_t i = 0; i < e->kernels.n; i++) {
		e->kernels.v[i].share = e->path_ns != 0 ? e->kernels.v[i].delta_ns / e->path_ns : NAN;
	}
	/*
	 * Shares rank the causes of a change; where the step barely moved (or a
	 * whole run is a fixed window) the composition shifted instead, and
	 * shares of a near-zero change mean nothing: rank by size.
	 */
	e->shifted = e->direction == GPA_DIFF_SAME || e->whole || e->path_ns == 0;
	if (e->step != SIZE_MAX) {
		/* the path must move with the step (means both) for shares of it to explain it */
		double ratio = e->path_ns / mean_delta(&r->metrics.v[e->step]);
		e->shifted |= !(ratio >= 0.5 && ratio <= 2);
	}
	for (size_t i = 0; i < e->causes.n; i++) {
		e->shifted |= fabs(e->causes.v[i].share) > 1.5;
	}
	gp_qsort(e->causes.v, e->causes.n, sizeof(*e->causes.v), e->shifted ? cmp_size : cmp_share);
	gp_qsort(e->kernels.v, e->kernels.n, sizeof(*e->kernels.v), cmp_size);
	pair_idle(r, e);
	mark_off_path(r, e);
	return 0;
}
