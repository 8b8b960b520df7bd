/* SPDX-License-Identifier: MIT */
/*
 * diffstat.c - the statistics behind `gpuprof diff` (docs/diff.md): the
 * Mann-Whitney U test (exact or normal with tie correction), medians and
 * quantiles, a two-stage percentile bootstrap of the ratio of medians,
 * Benjamini-Hochberg and Holm adjustments, and the verdict rule. Formulas
 * from the reference's section 5.2; nothing here knows what a GPU is.
 */
#include "base/compat.h"
#include "analyze/diff.h"

#include <math.h>

/* ---- ranks and the U test */

struct ranked {
	double v;
	bool first; /* from the first sample */
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	return a->v < b->v ? -1 : a->v > b->v;
}

/*
 * P(U <= u) under the null for sizes m, n with no ties: the counts follow
 * c(i, j, u) = c(i - 1, j, u - j) + c(i, j - 1, u), the largest value coming
 * from the first sample (beating all j of the second) or from the second.
 */
static int exact_cdf(size_t m, size_t n, size_t u, double *out)
{
	size_t umax = m * n, w = umax + 1;
	double *prev = calloc((n + 1) * w, sizeof(double));
	double *cur = calloc((n + 1) * w, sizeof(double));
	double below = 0, total = 0;

	if (!prev || !cur) {
		free(prev);
		free(cur);
		return -GP_ERR_NOMEM;
	}
	for (size_t j = 0; j <= n; j++) {
		prev[j * w] = 1; /* i = 0: only U = 0 */
	}
	for (size_t i = 1; i <= m; i++) {
		memset(cur, 0, (n + 1) * w * sizeof(double));
		cur[0] = 1; /* j = 0: only U = 0 */
		for (size_t j = 1; j <= n; j++) {
			for (size_t k = 0; k <= i * j; k++) {
				double c = cur[(j - 1) * w + k];
				if (k >= j) {
					c += prev[j * w + k - j];
				}
				cur[j * w + k] = c;
			}
		}
		double *t = prev;
		prev = cur;
		cur = t;
	}
	for (size_t k = 0; k <= umax; k++) {
		total += prev[n * w + k];
		if (k <= u) {
			below += prev[n * w + k];
		}
	}
	*out = below / total;
	free(prev);
	free(cur);
	return 0;
}

int gpa_mwu_test(const double *a, size_t na, const double *b, size_t nb, struct gpa_mwu *out)
{
	size_t n = na + nb;
	struct ranked *r;
	double r1 = 0, ties = 0;
	bool has_ties = false;

	*out = (struct gpa_mwu){.p = 1};
	if (!na || !nb) {
		return 0;
	}
	r = malloc(n * sizeof(*r));
	if (!r) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < na; i++) {
		r[i] = (struct ranked){a[i], true};
	}
	for (size_t i = 0; i < nb; i++) {
		r[na + i] = (struct ranked){b[i], false};
	}
	gp_qsort(r, n, sizeof(*r), cmp_ranked);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && r[j].v == r[i].v) {
			j++;
		}
		double mid = (double)(i + 1 + j) / 2; /* ranks i+1 .. j */
		double t = (double)(j - i);
		for (size_t k = i; k < j; k++) {
			if (r[k].first) {
				r1 += mid;
			}
		}
		if (j - i > 1) {
			has_ties = true;
			ties += t * t * t - t;
		}
		i = j;
	}
	free(r);
	out->u1 = r1 - (double)na * (double)(na + 1) / 2;
	double mn = (double)na * (double)nb;
	if (!has_ties && na <= GPA_MWU_EXACT_MAX && nb <= GPA_MWU_EXACT_MAX) {
		double u = fmin(out->u1, mn - out->u1), cdf;
		int ret = exact_cdf(na, nb, (size_t)llround(u), &cdf);
		if (ret) {
			return ret;
		}
		out->exact = true;
		out->p = fmin(1, 2 * cdf);
		return 0;
	}
	double nn = (double)n;
	double var = mn / 12 * ((nn + 1) - ties / (nn * (nn - 1)));
	if (var <= 0) {
		return 0; /* every value equal: no evidence either way */
	}
	out->z = (fabs(out->u1 - mn / 2) - 0.5) / sqrt(var);
	out->p = out->z <= 0 ? 1 : fmin(1, erfc(out->z / M_SQRT2));
	return 0;
}

/* ---- medians and quantiles */

static void swap_d(double *x, double *y)
{
	double t = *x;
	*x = *y;
	*y = t;
}

/*
 * Reorders v so that v[k] is the k-th smallest, none larger before it (Hoare's
 * select). The partition is three-way, so that many equal values (a category
 * that is zero in most steps) cost linear time, not quadratic.
 */
static void select_k(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (hi > lo) {
		size_t mid = lo + (hi - lo) / 2;
		/* median of three as the pivot */
		if (v[mid] < v[lo]) {
			swap_d(&v[mid], &v[lo]);
		}
		if (v[hi] < v[lo]) {
			swap_d(&v[hi], &v[lo]);
		}
		if (v[mid] < v[hi]) {
			swap_d(&v[mid], &v[hi]);
		}
		double pivot = v[hi];
		/* [lo, lt) below the pivot, [lt, i) equal to it, (gt, hi] above it */
		size_t lt = lo, i = lo, gt = hi + 1;
		while (i < gt) {
			if (v[i] < pivot) {
				swap_d(&v[i++], &v[lt++]);
			} else if (v[i] > pivot) {
				swap_d(&v[i], &v[--gt]);
			} else {
				i++;
			}
		}
		if (k < lt) {
			hi = lt - 1;
		} else if (k >= gt) {
			lo = gt;
		} else {
			return;
		}
	}
}

double gpa_median(double *v, size_t n)
{
	if (!n) {
		return 0;
	}
	size_t k = n / 2;
	select_k(v, n, k);
	if (n & 1) {
		return v[k];
	}
	double below = v[0];
	for (size_t i = 1; i < k; i++) {
		if (v[i] > below) {
			below = v[i];
		}
	}
	return (below + v[k]) / 2;
}

double gpa_quantile_sorted(const double *s, size_t n, double q)
{
	if (!n) {
		return 0;
	}
	double pos = q * (double)(n - 1);
	if (pos <= 0) {
		return s[0];
	}
	if (pos >= (double)(n - 1)) {
		return s[n - 1];
	}
	size_t i = (size_t)pos;
	double f = pos - (double)i;
	if (f == 0 || s[i] == s[i + 1]) {
		return s[i];
	}
	return s[i] + f * (s[i + 1] - s[i]);
}

/* ---- bootstrap */

static size_t side_max(const struct gpa_sample *s)
{
	size_t mx = 0;

	for (size_t r = 0; r < s->nruns; r++) {
		size_t len = s->off[r + 1] - s->off[r];
		if (len > mx) {
			mx = len;
		}
	}
	return mx;
}

/* One two-stage resample of a side into buf; returns its median. */
static double resample_median(const struct gpa_sample *s, struct gp_rng *rng, double *buf)
{
	size_t k = 0;

	for (size_t r = 0; r < s->nruns; r++) {
		size_t run = s->nruns == 1 ? 0 : (size_t)gp_rng_below(rng, s->nruns);
		size_t off = s->off[run], len = s->off[run + 1] - off;
		for (size_t i = 0; i < len; i++) {
			buf[k++] = s->v[off + (len == 1 ? 0 : gp_rng_below(rng, len))];
		}
	}
	return gpa_median(buf, k);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

int gpa_boot_ratio_ci(const struct gpa_sample *a, const struct gpa_sample *b,
		      const struct gpa_boot_opts *o, double *lo, double *hi)
{
	struct gp_rng rng;
	double *bufa, *bufb, *reps;
	size_t ma, mb;

	if (!a->nruns || !b->nruns || !o->reps || a->off[a->nruns] == 0 || b->off[b->nruns] == 0) {
		return -GP_ERR_API;
	}
	ma = side_max(a) * a->nruns;
	mb = side_max(b) * b->nruns;
	bufa = malloc(ma * sizeof(double));
	bufb = malloc(mb * sizeof(double));
	reps = malloc(o->reps * sizeof(double));
	if (!bufa || !bufb || !reps) {
		free(bufa);
		free(bufb);
		free(reps);
		return -GP_ERR_NOMEM;
	}
	gp_rng_seed(&rng, o->seed);
	for (unsigned i = 0; i < o->reps; i++) {
		double x = resample_median(a, &rng, bufa);
		double y = resample_median(b, &rng, bufb);
		reps[i] = x > 0 ? y / x - 1 : (y > 0 ? INFINITY : 0);
	}
	qsort(reps, o->reps, sizeof(double), cmp_double);
	*lo = gpa_quantile_sorted(reps, o->reps, (1 - o->level) / 2);
	*hi = gpa_quantile_sorted(reps, o->reps, 1 - (1 - o->level) / 2);
	free(bufa);
	free(bufb);
	free(reps);
	return 0;
}

/* ---- multiple comparisons */

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *x, const void *y)
{
	const struct pidx *a = x, *b = y;

	if (a->p != b->p) {
		return a->p < b->p ? -1 : 1;
	}
	return a->i < b->i ? -1 : a->i > b->i;
}

static struct pidx *sorted_p(const double *p, size_t n)
{
	struct pidx *s = malloc((n ? n : 1) * sizeof(*s));

	if (s) {
		for (size_t i = 0; i < n; i++) {
			s[i] = (struct pidx){p[i], i};
		}
		gp_qsort(s, n, sizeof(*s), cmp_pidx);
	}
	return s;
}

int gpa_adjust_bh(const double *p, size_t n, double *q)
{
	struct pidx *s = sorted_p(p, n);
	double run = 1;

	if (!s) {
		return -GP_ERR_NOMEM;
	}
	/* q_(k) = min over j >= k of p_(j) n / j, capped at 1 */
	for (size_t k = n; k-- > 0;) {
		double v = s[k].p * (double)n / (double)(k + 1);
		if (v < run) {
			run = v;
		}
		q[s[k].i] = run;
	}
	free(s);
	return 0;
}

int gpa_adjust_holm(const double *p, size_t n, double *q)
{
	struct pidx *s = sorted_p(p, n);
	double run = 0;

	if (!s) {
		return -GP_ERR_NOMEM;
	}
	/* q_(k) = max over j <= k of (n - j + 1) p_(j), capped at 1 */
	for (size_t k = 0; k < n; k++) {
		double v = fmin(1, (double)(n - k) * s[k].p);
		if (v > run) {
			run = v;
		}
		q[s[k].i] = run;
	}
	free(s);
	return 0;
}

/* ---- verdicts */

const char *gpa_verdict_name(unsigned v)
{
	static const char *const names[] = {"unchanged", "improved", "inconclusive", "regressed"};

	return v < GP_ARRAY_SIZE(names) ? names[v] : "unknown";
}

#define MORE_RUNS_MAX 1000

enum gpa_verdict gpa_verdict_decide(const struct gpa_verdict_in *in, uint32_t *more_runs)
{
	double sign = in->higher_better ? -1 : 1, e = in->min_effect;
	double d = sign * in->delta;
	double lo = fmin(sign * in->ci_lo, sign * in->ci_hi);
	double hi = fmax(sign * in->ci_lo, sign * in->ci_hi);
	size_t runs = in->runs_a < in->runs_b ? in->runs_a : in->runs_b;
	uint32_t dummy;

	if (!more_runs) {
		more_runs = &dummy;
	}
	*more_runs = 0;
	if (in->na < in->min_samples || in->nb < in->min_samples) {
		/* samples per run on the smaller side decide how many runs reach the minimum */
		size_t n = in->na < in->nb ? in->na : in->nb;
		size_t per_run = runs && n >= runs ? n / runs : 1;
		size_t need = (in->min_samples + per_run - 1) / per_run;
		*more_runs = (uint32_t)(need > runs ? need - runs : 1);
		return GPA_VERDICT_INCONCLUSIVE;
	}
	if (in->p < in->alpha && lo > e) {
		return GPA_VERDICT_REGRESSED;
	}
	if (in->p < in->alpha && hi < -e) {
		return GPA_VERDICT_IMPROVED;
	}
	if (lo > -e && hi < e) {
		return GPA_VERDICT_UNCHANGED;
	}
	double half = (hi - lo) / 2, dist = fmin(fabs(d - e), fabs(d + e));
	double want = runs ? (double)runs : 1;
	if (isfinite(half) && isfinite(dist) && dist > 0) {
		want *= (half / dist) * (half / dist);
	} else {
		want = INFINITY;
	}
	if (!(want < MORE_RUNS_MAX + (double)runs)) {
		*more_runs = MORE_RUNS_MAX;
	} else {
		double more = ceil(want) - (double)runs;
		*more_runs = more < 1 ? 1 : (uint32_t)more;
	}
	return GPA_VERDICT_INCONCLUSIVE;
}
