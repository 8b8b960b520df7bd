/* SPDX-License-Identifier: MIT */
/*
 * flight.c - what a flight recording was saved for, and its slow step
 * against the median step of the same file (analyze/flight.h).
 *
 * The comparison feeds diff's explanation engine: per step the critical
 * path's time by category (path.<category>) and the GPU's idle time by
 * cause (idle.<cause>); the other steps of the process are the baseline,
 * the slow step the candidate. With one candidate sample there is no test:
 * a metric is "regressed" when the slow step's value is above every other
 * step's and above their median by the minimum effect, "improved" the other
 * way round, else unchanged. Names (NVTX ranges, kernels) whose time in the
 * slow step grew most over their median per step are listed beside it.
 */
#define GP_LOG_TAG "analyze/flight"
#include "base/compat.h"
#include "analyze/flight.h"
#include "analyze/commclass.h"
#include "analyze/critpath.h"
#include "analyze/gaps.h"
#include "analyze/steps.h"

#include <math.h>

#define MIN_EFFECT 0.02
#define MAX_NAMES 64

static uint64_t key_u64(const char *st, const char *key)
{
	const char *p = strstr(st, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* "trigger=slow-step; trigger_ts=...; ...; what=TEXT" (trace/FORMAT.md, PROCESS phase 3). */
static int parse_status(const char *st, struct gpa_flight_info *fi)
{
	const char *t = strstr(st, "trigger="), *what = strstr(st, "; what=");

	if (!t || !what) {
		return -GP_ERR_FORMAT;
	}
	size_t n = strcspn(t + 8, ";");
	if (n >= sizeof(fi->trigger)) {
		n = sizeof(fi->trigger) - 1;
	}
	memcpy(fi->trigger, t + 8, n);
	fi->trigger[n] = '\0';
	fi->trigger_ts = key_u64(st, "trigger_ts=");
	fi->step_start = key_u64(st, "step_start=");
	fi->step_end = key_u64(st, "step_end=");
	fi->median_ns = key_u64(st, "median_ns=");
	fi->window_start = key_u64(st, "window_start=");
	fi->dropped_chunks = key_u64(st, "dropped_chunks=");
	fi->dropped_records = key_u64(st, "dropped_records=");
	fi->suppressed = key_u64(st, "suppressed=");
	free(fi->what);
	fi->what = strdup(what + 7);
	fi->is_flight = fi->what != NULL;
	return fi->what ? 0 : -GP_ERR_NOMEM;
}

int gpa_flight_of_model(const struct gpa_model *m, struct gpa_flight_info *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t p = 0; p < m->procs.n; p++) {
		if (!m->procs.v[p].flight) {
			continue;
		}
		int ret = parse_status(gpa_model_str(m, m->procs.v[p].flight), out);
		if (ret == -GP_ERR_NOMEM) {
			return ret;
		}
		if (out->is_flight) {
			out->proc = (uint32_t)p;
			break;
		}
	}
	gp_debug("%s", out->is_flight ? out->trigger : "not a flight recording");
	return 0;
}

void gpa_flight_info_release(struct gpa_flight_info *fi)
{
	free(fi->what);
	memset(fi, 0, sizeof(*fi));
}

void gpa_flight_cmp_release(struct gpa_flight_cmp *cmp)
{
	gpa_diff_result_release(&cmp->res);
	gp_vec_free(&cmp->grew);
	memset(cmp, 0, sizeof(*cmp));
}

/* The slow step: the one whose times the trigger gave (model clock), else the longest. */
static uint32_t pick_step(const struct gpa_model *m, const struct gpa_steps *steps,
			  const struct gpa_flight_info *fi)
{
	uint32_t best = GPA_NONE;
	uint64_t best_w = 0;

	for (size_t i = 0; i < steps->v.n; i++) {
		const struct gpa_step *s = &steps->v.v[i];
		int64_t off = s->proc < m->procs.n ? m->procs.v[s->proc].clock_offset : 0;
		if (fi && fi->step_start && s->start == fi->step_start + (uint64_t)off &&
		    s->end >= fi->step_end + (uint64_t)off) {
			return (uint32_t)i;
		}
		if (s->end - s->start > best_w) {
			best_w = s->end - s->start;
			best = (uint32_t)i;
		}
	}
	return best;
}

/* One metric: baseline v[0..n) but the slow step's slot, candidate v[slow]. */
static int add_metric(struct gpa_flight_cmp *c, const char *name, const double *v, size_t n,
		      size_t slow, double floor_ns)
{
	double *base = malloc(n * sizeof(double));
	size_t nb = 0;
	double sum = 0, mx = -INFINITY, mn = INFINITY;

	if (!base) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (i != slow) {
			base[nb++] = v[i];
			sum += v[i];
			mx = v[i] > mx ? v[i] : mx;
			mn = v[i] < mn ? v[i] : mn;
		}
	}
	struct gpa_diff_metric mt = {.unit = GPA_DIFF_NS, .na = nb, .nb = 1, .mean_a = sum / nb,
				     .mean_b = v[slow], .med_b = v[slow], .min_effect = MIN_EFFECT};
	mt.med_a = gpa_median(base, nb);
	free(base);
	mt.delta = mt.med_a > 0 ? mt.med_b / mt.med_a - 1 : (mt.med_b > 0 ? INFINITY : 0);
	mt.ci_lo = mt.ci_hi = mt.delta;
	mt.p = mt.q = NAN;
	double moved = fabs(mt.mean_b - mt.mean_a);
	if (v[slow] > mx && mt.delta > MIN_EFFECT && moved >= floor_ns) {
		mt.verdict = GPA_VERDICT_REGRESSED;
	} else if (v[slow] < mn && mt.delta < -MIN_EFFECT && moved >= floor_ns) {
		mt.verdict = GPA_VERDICT_IMPROVED;
	}
	mt.name = strdup(name);
	if (!mt.name || gp_vec_push(&c->res.metrics, mt)) {
		free(mt.name);
		return -GP_ERR_NOMEM;
	}
	return 0;
}

/* A category counts when it moved by 1 % of the step's change, and at least 1 us. */
static double floor_of(const struct gpa_flight_cmp *c)
{
	const struct gpa_diff_metric *w = c->res.metrics.n ? &c->res.metrics.v[0] : NULL;
	double f = w ? fabs(w->mean_b - w->mean_a) / 100 : 0;

	return f > 1000 ? f : 1000;
}

/* The steps of the slow step's process, in order: their gpa_steps.v indexes. */
static size_t proc_steps(const struct gpa_steps *steps, uint32_t proc, uint32_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < steps->v.n; i++) {
		if (steps->v.v[i].proc == proc) {
			idx[n++] = (uint32_t)i;
		}
	}
	return n;
}

static size_t slot_of(const uint32_t *idx, size_t n, uint32_t step)
{
	for (size_t i = 0; i < n; i++) {
		if (idx[i] == step) {
			return i;
		}
	}
	return SIZE_MAX;
}

/* step.wall and path.<category> per step, from the critical path. */
static int path_metrics(const struct gpa_model *m, const struct gpa_steps *steps,
			const struct gpa_commclass *cc, struct gpa_flight_cmp *c, const uint32_t *idx,
			size_t n, size_t slow, char *errbuf, size_t errlen)
{
	struct gpa_critpath_opts po = {.comm = cc};
	struct gpa_critpath cp = {0};
	double *v = calloc((size_t)(GPA_CP__COUNT + 1) * n, sizeof(double));
	char name[64];
	int ret = v ? gpa_critpath_analyze(m, steps, &po, &cp, errbuf, errlen) : -GP_ERR_NOMEM;

	for (size_t i = 0; !ret && i < cp.steps.n; i++) {
		const struct gpa_cp_step *st = &cp.steps.v[i];
		size_t k = st->step == GPA_NONE ? SIZE_MAX : slot_of(idx, n, st->step);
		if (k == SIZE_MAX) {
			continue;
		}
		const struct gpa_step *sp = &steps->v.v[st->step];
		v[k] = (double)(sp->end - sp->start);
		for (unsigned cat = 0; cat < GPA_CP__COUNT; cat++) {
			v[(cat + 1) * n + k] = (double)st->now.cat_ns[cat];
		}
	}
	if (!ret) {
		ret = add_metric(c, "step.wall", v, n, slow, 0);
	}
	double fl = floor_of(c);
	for (unsigned cat = 0; !ret && cat < GPA_CP__COUNT; cat++) {
		snprintf(name, sizeof(name), "path.%s", gpa_cp_cat_name(cat));
		ret = add_metric(c, name, v + (cat + 1) * n, n, slow, fl);
	}
	gpa_critpath_release(&cp);
	free(v);
	return ret;
}

/* idle.<cause> per step (summed over devices). */
static int idle_metrics(const struct gpa_model *m, const struct gpa_steps *steps,
			const struct gpa_commclass *cc, struct gpa_flight_cmp *c, const uint32_t *idx,
			size_t n, size_t slow, char *errbuf, size_t errlen)
{
	struct gpa_gaps_opts go;
	struct gpa_gaps g = {0};
	double *v = calloc((size_t)GPA_GAP__COUNT * n, sizeof(double));
	char name[64];
	int ret;

	gpa_gaps_opts_init(&go);
	go.top = 0;
	go.comm = cc;
	ret = v ? gpa_gaps_analyze(m, steps, &go, &g, errbuf, errlen) : -GP_ERR_NOMEM;
	for (size_t i = 0; !ret && i < g.steps.n; i++) {
		const struct gpa_gaps_step *s = &g.steps.v[i];
		size_t k = s->step == GPA_NONE ? SIZE_MAX : slot_of(idx, n, s->step);
		for (unsigned cause = 0; k != SIZE_MAX && cause < GPA_GAP__COUNT; cause++) {
			v[cause * n + k] += (double)s->t.cause_ns[cause];
		}
	}
	for (unsigned cause = 0; !ret && cause < GPA_GAP__COUNT; cause++) {
		snprintf(name, sizeof(name), "idle.%s", gpa_gap_cause_name(cause));
		ret = add_metric(c, name, v + cause * n, n, slow, floor_of(c));
	}
	gpa_gaps_release(&g);
	free(v);
	return ret;
}

/* The slot of the step whose CPU range holds t (steps in start order), SIZE_MAX none. */
static size_t step_at(const struct gpa_steps *steps, const uint32_t *idx, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (steps->v.v[idx[mid]].start <= t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (!lo || t >= steps->v.v[idx[lo - 1]].end) {
		return SIZE_MAX;
	}
	return lo - 1;
}

struct names {
	uint32_t id[MAX_NAMES];
	bool kernel[MAX_NAMES];
	size_t n;
	double *v; /* [name][step slot] */
};

static size_t name_slot(struct names *nm, uint32_t id, bool kernel, bool add)
{
	for (size_t i = 0; i < nm->n; i++) {
		if (nm->id[i] == id && nm->kernel[i] == kernel) {
			return i;
		}
	}
	if (!add || nm->n == MAX_NAMES) {
		return SIZE_MAX;
	}
	nm->id[nm->n] = id;
	nm->kernel[nm->n] = kernel;
	return nm->n++;
}

/*
 * Adds every NVTX range (but the steps) and kernel to its step's time per
 * name; pass 0 collects the slow step's names, pass 1 every step's times.
 */
static void sum_names(const struct gpa_model *m, const struct gpa_steps *steps,
		      const uint32_t *idx, size_t n, size_t slow, struct names *nm, int pass)
{
	for (size_t r = 0; r < gpa_nvtx_rows(m); r++) {
		size_t k = step_at(steps, idx, n, gpa_nvtx_start(m, r));
		if (k == SIZE_MAX || (pass == 0 && k != slow) ||
		    gpa_nvtx_start(m, r) == steps->v.v[idx[k]].start) {
			continue;
		}
		size_t j = name_slot(nm, gpa_nvtx_name(m, r), false, pass == 0);
		if (j != SIZE_MAX && pass == 1) {
			nm->v[j * n + k] += (double)(gpa_nvtx_end(m, r) - gpa_nvtx_start(m, r));
		}
	}
	for (size_t r = 0; r < gpa_kern_rows(m); r++) {
		uint32_t api = gpa_kern_api(m, r);
		uint64_t t = api != GPA_NONE ? gpa_api_start(m, api) : gpa_kern_start(m, r);
		size_t k = step_at(steps, idx, n, t);
		if (k == SIZE_MAX || (pass == 0 && k != slow)) {
			continue;
		}
		size_t j = name_slot(nm, gpa_kern_func(m, r), true, pass == 0);
		if (j != SIZE_MAX && pass == 1) {
			nm->v[j * n + k] += (double)gpa_kern_dur(m, r);
		}
	}
}

static int cmp_grew(const void *x, const void *y)
{
	const struct gpa_flight_grew *a = x, *b = y;
	int64_t da = (int64_t)a->slow_ns - (int64_t)a->median_ns;
	int64_t db = (int64_t)b->slow_ns - (int64_t)b->median_ns;

	if (da != db) {
		return da > db ? -1 : 1;
	}
	return strcmp(a->name, b->name);
}

static int grew_names(const struct gpa_model *m, const struct gpa_steps *steps,
		      struct gpa_flight_cmp *c, const uint32_t *idx, size_t n, size_t slow)
{
	struct names nm = {.n = 0};
	double *base = malloc(n * sizeof(double));

	sum_names(m, steps, idx, n, slow, &nm, 0);
	nm.v = calloc(nm.n ? nm.n * n : 1, sizeof(double));
	if (!nm.v || !base) {
		free(nm.v);
		free(base);
		return -GP_ERR_NOMEM;
	}
	sum_names(m, steps, idx, n, slow, &nm, 1);
	/* a name counts when it grew by at least 1 % of the step's growth */
	const struct gpa_diff_metric *w = &c->res.metrics.v[0];
	double floor_ns = w->med_b > w->med_a ? (w->med_b - w->med_a) / 100 : 0;
	for (size_t j = 0; j < nm.n; j++) {
		size_t nb = 0;
		for (size_t k = 0; k < n; k++) {
			if (k != slow) {
				base[nb++] = nm.v[j * n + k];
			}
		}
		const struct gpa_func *f = nm.kernel[j] ? &m->funcs.v[nm.id[j]] : NULL;
		uint32_t sid = f ? (f->demangled ? f->demangled : f->name) : nm.id[j];
		struct gpa_flight_grew g = {.name = gpa_model_str(m, sid),
					    .kernel = nm.kernel[j],
					    .slow_ns = (uint64_t)nm.v[j * n + slow],
					    .median_ns = (uint64_t)gpa_median(base, nb)};
		if (g.name && (double)g.slow_ns > (double)g.median_ns + floor_ns &&
		    gp_vec_push(&c->grew, g)) {
			free(nm.v);
			free(base);
			return -GP_ERR_NOMEM;
		}
	}
	free(nm.v);
	free(base);
	gp_qsort(c->grew.v, c->grew.n, sizeof(*c->grew.v), cmp_grew);
	if (c->grew.n > GPA_FLIGHT_TOP) {
		c->grew.n = GPA_FLIGHT_TOP;
	}
	return 0;
}

int gpa_flight_compare(const struct gpa_model *m, const struct gpa_steps *steps,
		       const struct gpa_commclass *cc, const struct gpa_flight_info *fi,
		       struct gpa_flight_cmp *cmp, char *errbuf, size_t errlen)
{
	uint32_t *idx;
	int ret;

	memset(cmp, 0, sizeof(*cmp));
	cmp->step = pick_step(m, steps, fi);
	if (cmp->step == GPA_NONE) {
		return 0;
	}
	idx = malloc((steps->v.n + 1) * sizeof(*idx));
	if (!idx) {
		return -GP_ERR_NOMEM;
	}
	size_t n = proc_steps(steps, steps->v.v[cmp->step].proc, idx);
	size_t slow = slot_of(idx, n, cmp->step);
	if (n < GPA_FLIGHT_MIN_NORMAL + 1 || slow == SIZE_MAX) {
		free(idx);
		return 0;
	}
	cmp->normal = n - 1;
	cmp->res.samples = GPA_DIFF_STEPS;
	ret = path_metrics(m, steps, cc, cmp, idx, n, slow, errbuf, errlen);
	if (!ret) {
		ret = idle_metrics(m, steps, cc, cmp, idx, n, slow, errbuf, errlen);
	}
	if (!ret) {
		ret = grew_names(m, steps, cmp, idx, n, slow);
	}
	if (!ret) {
		ret = gpa_diff_explain(&cmp->res);
	}
	if (!ret) {
		const struct gpa_diff_metric *w = &cmp->res.metrics.v[0];
		cmp->slow_ns = (uint64_t)w->med_b;
		cmp->median_ns = (uint64_t)w->med_a;
		cmp->have = true;
	} else if (ret == -GP_ERR_NOMEM) {
		snprintf(errbuf, errlen, "out of memory");
	}
	free(idx);
	return ret;
}
