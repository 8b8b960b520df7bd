/* SPDX-License-Identifier: MIT */
/*
 * job.c - the job report from the ranks' summaries (analyze/job.h,
 * docs/cluster.md): step time per rank and per step, collectives matched
 * by communicator and sequence (skew, stragglers, what the late rank was
 * doing), idle causes per rank, and ranks whose kernels run slower than the
 * same kernels on their peers. Everything is ordered by file and value, so
 * the answer does not depend on which process analysed which file.
 */
#include "base/compat.h"
#include "analyze/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gpa_job_release(struct gpa_job *j)
{
	if (!j) {
		return;
	}
	for (size_t i = 0; i < j->nsums; i++) {
		gpa_rank_sum_release(&j->sums[i]);
	}
	free(j->sums);
	gp_vec_free(&j->ranks);
	gp_vec_free(&j->steps);
	gp_vec_free(&j->colls);
	gp_vec_free(&j->slow);
	memset(j, 0, sizeof(*j));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_sum(const void *a, const void *b)
{
	const struct gpa_rank_sum *x = a, *y = b;

	return x->file < y->file ? -1 : x->file > y->file;
}

/* Distribution of v (sorted here). */
static void dist_of(uint64_t *v, size_t n, struct gpa_job_dist *d)
{
	memset(d, 0, sizeof(*d));
	if (!n) {
		return;
	}
	gp_qsort(v, n, sizeof(*v), cmp_u64);
	d->n = n;
	d->min = v[0];
	d->max = v[n - 1];
	d->median = v[(n - 1) / 2];
	d->p90 = v[(n * 9 + 9) / 10 - 1];
}

static int64_t shift_of(const struct gpa_job *j, const struct gpa_rank_sum *s)
{
	return j->aligned ? s->clock_offset : 0;
}

/* Per rank: its steps' durations. */
static int rank_steps(struct gpa_job *j)
{
	size_t most = 1;

	for (size_t i = 0; i < j->ranks.n; i++) {
		most = j->ranks.v[i].s->steps.n > most ? j->ranks.v[i].s->steps.n : most;
	}
	uint64_t *v = malloc(most * sizeof(*v));
	if (!v) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < j->ranks.n; i++) {
		const struct gpa_rank_sum *s = j->ranks.v[i].s;
		for (size_t k = 0; k < s->steps.n; k++) {
			const struct gpa_rank_step *st = &s->steps.v[k];
			v[k] = st->end > st->start ? st->end - st->start : 0;
		}
		dist_of(v, s->steps.n, &j->ranks.v[i].step);
	}
	free(v);
	return 0;
}

struct stepk {
	int64_t number;
	uint64_t dur;
	uint32_t rank;
};

static int cmp_stepk(const void *a, const void *b)
{
	const struct stepk *x = a, *y = b;

	if (x->number != y->number) {
		return x->number < y->number ? -1 : 1;
	}
	if (x->dur != y->dur) {
		return x->dur < y->dur ? -1 : 1;
	}
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Per step number: its median and slowest rank; the trend from the first to the second half. */
static int job_steps(struct gpa_job *j)
{
	size_t n = 0, at = 0;
	struct stepk *k;

	for (size_t i = 0; i < j->ranks.n; i++) {
		n += j->ranks.v[i].s->steps.n;
	}
	k = malloc((n ? n : 1) * sizeof(*k));
	if (!k) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < j->ranks.n; i++) {
		const struct gpa_rank_sum *s = j->ranks.v[i].s;
		for (size_t q = 0; q < s->steps.n; q++) {
			const struct gpa_rank_step *st = &s->steps.v[q];
			k[at++] = (struct stepk){st->number, st->end > st->start ? st->end - st->start : 0,
						 i};
		}
	}
	gp_qsort(k, n, sizeof(*k), cmp_stepk);
	for (size_t a = 0; a < n;) {
		size_t b = a + 1;
		while (b < n && k[b].number == k[a].number) {
			b++;
		}
		struct gpa_job_step js = {.number = k[a].number, .ranks = (uint32_t)(b - a),
					  .median = k[a + (b - a - 1) / 2].dur, .max = k[b - 1].dur,
					  .slowest = k[b - 1].rank};
		for (size_t q = a; q < b; q++) { /* the first rank with the longest time */
			if (k[q].dur == js.max && k[q].rank < js.slowest) {
				js.slowest = k[q].rank;
			}
		}
		if (gp_vec_push(&j->steps, js)) {
			free(k);
			return -GP_ERR_NOMEM;
		}
		a = b;
	}
	free(k);
	size_t half = j->steps.n / 2;
	if (half) {
		uint64_t e = 0, l = 0;
		for (size_t i = 0; i < half; i++) {
			e += j->steps.v[i].median;
			l += j->steps.v[j->steps.n - half + i].median;
		}
		j->early_ns = e / half;
		j->late_ns = l / half;
	}
	return 0;
}

/* The distribution of ranks' median steps, and the slowest ranks. */
static int rank_spread(struct gpa_job *j)
{
	uint64_t *v = malloc((j->ranks.n ? j->ranks.n : 1) * sizeof(*v));
	size_t n = 0;

	if (!v) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < j->ranks.n; i++) {
		if (j->ranks.v[i].step.n) {
			v[n++] = j->ranks.v[i].step.median;
		}
	}
	dist_of(v, n, &j->rank_median);
	free(v);
	for (uint32_t i = 0; i < j->ranks.n; i++) {
		const struct gpa_job_rank *r = &j->ranks.v[i];
		if (!r->step.n) {
			continue;
		}
		uint32_t at = j->nslowest;
		while (at > 0 && j->ranks.v[j->slowest[at - 1]].step.median < r->step.median) {
			at--;
		}
		if (at >= 5) {
			continue;
		}
		uint32_t last = j->nslowest < 5 ? j->nslowest : 4;
		memmove(&j->slowest[at + 1], &j->slowest[at], (last - at) * sizeof(j->slowest[0]));
		j->slowest[at] = i;
		j->nslowest = j->nslowest < 5 ? j->nslowest + 1 : 5;
	}
	return 0;
}

/* ---- collectives across ranks: the matcher gpuprof comm uses too (analyze/coll-match.c) */

/* Every rank's collectives on the job's timeline; tag: the collective's index on its rank. */
static struct gpa_coll_ev *collect(const struct gpa_job *j, size_t *pn)
{
	size_t n = 0, at = 0;
	struct gpa_coll_ev *k;

	for (size_t i = 0; i < j->ranks.n; i++) {
		n += j->ranks.v[i].s->colls.n;
	}
	k = malloc((n ? n : 1) * sizeof(*k));
	if (!k) {
		return NULL;
	}
	for (uint32_t i = 0; i < j->ranks.n; i++) {
		const struct gpa_rank_sum *s = j->ranks.v[i].s;
		uint64_t sh = (uint64_t)shift_of(j, s);
		for (size_t q = 0; q < s->colls.n; q++) {
			const struct gpa_rank_coll *c = &s->colls.v[q];
			k[at++] = (struct gpa_coll_ev){
				.hash = c->hash, .seq = c->seq, .by = c->by, .gpu_end = c->gpu_end,
				.func = s->strs.v[c->func], .bytes = c->bytes,
				.arrival = c->arrival + sh, .end = c->end + sh, .rank = i,
				.tag = (uint32_t)q};
		}
	}
	*pn = n;
	return k;
}

/* The matcher's answer in the job's terms: what the last rank ran before each arrival. */
static int take_match(struct gpa_job *j, const struct gpa_coll_match *x,
		      const struct gpa_coll_ev *k)
{
	for (size_t i = 0; i < x->groups.n; i++) {
		const struct gpa_coll_group *g = &x->groups.v[i];
		const struct gpa_coll_ev *l = &k[g->b - 1];
		const struct gpa_rank_sum *s = j->ranks.v[l->rank].s;
		const struct gpa_rank_coll *rc = &s->colls.v[l->tag];
		struct gpa_job_coll c = {.hash = g->hash, .seq = g->seq, .by = g->by,
					 .end_spread = g->end_spread, .func = g->func,
					 .ranks = g->ranks, .first = g->first, .skew = g->skew,
					 .margin = g->margin, .last = g->last,
					 .doing = s->strs.v[rc->doing],
					 .idle_before = rc->idle_before};
		if (gp_vec_push(&j->colls, c)) {
			return -GP_ERR_NOMEM;
		}
	}
	for (size_t i = 0; i < j->ranks.n; i++) {
		struct gpa_job_rank *r = &j->ranks.v[i];
		const struct gpa_coll_rank *q = &x->ranks[i];
		r->matched = q->matched;
		r->last = q->last;
		r->caused = q->caused;
		r->waited = q->waited;
		r->late_sum = q->late_sum;
	}
	j->groups = x->chk.groups;
	j->unmatched = x->chk.unmatched;
	j->by = x->chk.by;
	j->mismatched = x->chk.mismatched;
	j->ends_checked = x->chk.ends_checked;
	j->ends_far = x->chk.ends_far;
	j->end_spread_median = x->chk.end_spread_median;
	j->clocks_disagree = x->chk.clocks_disagree;
	j->straggler_ev = x->straggler_ev;
	j->straggler = x->straggler;
	j->straggler_margin = x->straggler_margin;
	j->straggler_at = x->straggler_at;
	return 0;
}

static int match(struct gpa_job *j)
{
	size_t n = 0;
	struct gpa_coll_ev *k = collect(j, &n);
	struct gpa_coll_match x;
	int ret;

	if (!k) {
		return -GP_ERR_NOMEM;
	}
	ret = gpa_coll_match(k, n, (uint32_t)j->ranks.n, &x);
	if (!ret) {
		ret = take_match(j, &x, k);
		gpa_coll_match_release(&x);
	}
	free(k);
	if (ret) {
		return ret;
	}
	uint64_t *v = malloc((j->colls.n ? j->colls.n : 1) * sizeof(*v));
	if (!v) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < j->colls.n; i++) {
		v[i] = j->colls.v[i].skew;
	}
	dist_of(v, j->colls.n, &j->skew);
	free(v);
	return 0;
}

/* The checks of the job's matching, as the matcher states them. */
static struct gpa_coll_check job_check(const struct gpa_job *j)
{
	struct gpa_coll_check c = {.nranks = (uint32_t)j->ranks.n, .groups = j->groups,
				   .unmatched = j->unmatched, .by = j->by,
				   .mismatched = j->mismatched, .ends_checked = j->ends_checked,
				   .ends_far = j->ends_far,
				   .end_spread_median = j->end_spread_median,
				   .clocks_disagree = j->clocks_disagree};

	for (size_t i = 0; i < j->ranks.n; i++) {
		c.colls += j->ranks.v[i].s->colls.n;
	}
	return c;
}

const char *gpa_job_why_unmatched(const struct gpa_job *j, char *buf, size_t len)
{
	struct gpa_coll_check c = job_check(j);

	return gpa_coll_why_unmatched(&c, buf, len);
}

/* ---- kernels slower than the same kernels on the other ranks */

struct kernk {
	const char *name, *device;
	const int32_t *config; /* grid[3] then block[3] */
	uint32_t rank, name_id; /* name_id: the name's index in the rank's table */
	uint64_t count, total;
	double mean;
};

static int cmp_kernk_key(const struct kernk *x, const struct kernk *y)
{
	int c = strcmp(x->name, y->name);

	if (!c) {
		c = strcmp(x->device, y->device);
	}
	if (!c) {
		c = memcmp(x->config, y->config, 6 * sizeof(*x->config));
	}
	return c;
}

static int cmp_kernk(const void *a, const void *b)
{
	const struct kernk *x = a, *y = b;
	int c = cmp_kernk_key(x, y);

	if (c) {
		return c;
	}
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u64p(const void *a, const void *b)
{
	return cmp_u64(a, b);
}

/* One kernel [a, b) across ranks: each rank with the peers' launch count against its median. */
static void kernel_group(struct gpa_job *j, const struct kernk *k, size_t a, size_t b,
			 double *means, uint64_t *counts, double *expect)
{
	size_t n = b - a;

	for (size_t q = a; q < b; q++) {
		means[q - a] = k[q].mean;
		counts[q - a] = k[q].count;
	}
	gp_qsort(means, n, sizeof(*means), cmp_double);
	gp_qsort(counts, n, sizeof(*counts), cmp_u64p);
	double med = means[(n - 1) / 2];
	uint64_t mc = counts[(n - 1) / 2];
	for (size_t q = a; q < b && med > 0; q++) {
		struct gpa_job_rank *r = &j->ranks.v[k[q].rank];
		uint64_t c = k[q].count, dc = c > mc ? c - mc : mc - c;
		if (dc * 100 > mc * GPA_JOB_COUNT_PCT) {
			continue; /* other work on this rank: not the same kernel load */
		}
		double ratio = k[q].mean / med;
		r->compared++;
		r->slower += ratio * 1000 >= GPA_JOB_SLOW_EACH_PERMILLE;
		expect[k[q].rank] += med * (double)k[q].count;
		r->ratio += (double)k[q].total;
		r->covered += k[q].total;
		if (ratio > r->worst_ratio) {
			r->worst_ratio = ratio;
			r->worst = k[q].name_id;
		}
	}
}

/* Per rank: its kernels' time over what its peers' median means predict for the same launches. */
static int kernel_ratios(struct gpa_job *j, double *expect)
{
	size_t n = 0, at = 0;
	struct kernk *k;
	double *means;
	uint64_t *counts;

	for (size_t i = 0; i < j->ranks.n; i++) {
		n += j->ranks.v[i].s->kernels.n;
	}
	k = malloc((n ? n : 1) * sizeof(*k));
	means = malloc((j->ranks.n ? j->ranks.n : 1) * sizeof(*means));
	counts = malloc((j->ranks.n ? j->ranks.n : 1) * sizeof(*counts));
	if (!k || !means || !counts) {
		free(k);
		free(means);
		free(counts);
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < j->ranks.n; i++) {
		const struct gpa_rank_sum *s = j->ranks.v[i].s;
		for (size_t q = 0; q < s->kernels.n; q++) {
			const struct gpa_rank_kernel *rk = &s->kernels.v[q];
			k[at++] = (struct kernk){s->strs.v[rk->name], s->strs.v[rk->device], rk->grid,
						 i, rk->name, rk->count, rk->total,
						 (double)rk->total / (double)rk->count};
		}
	}
	gp_qsort(k, n, sizeof(*k), cmp_kernk);
	for (size_t a = 0; a < n;) {
		size_t b = a + 1;
		while (b < n && !cmp_kernk_key(&k[b], &k[a])) {
			b++;
		}
		if (b - a >= 3) { /* a median of peers means something from three ranks on */
			kernel_group(j, k, a, b, means, counts, expect);
		}
		a = b;
	}
	free(k);
	free(means);
	free(counts);
	return 0;
}

static int cmp_slow(const void *a, const void *b, void *arg)
{
	const struct gpa_job *j = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	double rx = j->ranks.v[x].ratio, ry = j->ranks.v[y].ratio;

	if (rx != ry) {
		return rx > ry ? -1 : 1;
	}
	return x < y ? -1 : x > y;
}

/*
 * A rank is slow when its kernels take GPA_JOB_SLOW_PERMILLE / 1000 of its
 * peers' time or more, sit more than GPA_JOB_SLOW_MADS median absolute
 * deviations above the ranks' median ratio, two thirds of its kernels
 * compared are slower each, and those kernels hold half its compute time:
 * noise moves every rank a little, a slow GPU or a throttled node moves one
 * a lot, in all its kernels; a few shared kernels of unlike work are not
 * evidence.
 */
static int slow_kernels(struct gpa_job *j)
{
	double *expect = calloc(j->ranks.n ? j->ranks.n : 1, sizeof(*expect));
	double *v = malloc((j->ranks.n ? j->ranks.n : 1) * sizeof(*v));
	size_t n = 0;
	int ret = -GP_ERR_NOMEM;

	if (!expect || !v || kernel_ratios(j, expect)) {
		goto out;
	}
	for (size_t i = 0; i < j->ranks.n; i++) {
		struct gpa_job_rank *r = &j->ranks.v[i];
		r->ratio = r->compared && expect[i] > 0 ? r->ratio / expect[i] : 0;
		if (r->compared) {
			v[n++] = r->ratio;
		}
	}
	j->slow_ev = n >= 3 ? GPA_JOB_NOTHING : GPA_JOB_NONE;
	ret = 0;
	if (n < 3) {
		goto out;
	}
	gp_qsort(v, n, sizeof(*v), cmp_double);
	double med = v[(n - 1) / 2];
	for (size_t i = 0; i < n; i++) {
		v[i] = v[i] > med ? v[i] - med : med - v[i];
	}
	gp_qsort(v, n, sizeof(*v), cmp_double);
	double mad = v[(n - 1) / 2];
	for (uint32_t i = 0; i < j->ranks.n; i++) {
		const struct gpa_job_rank *r = &j->ranks.v[i];
		if (r->compared && r->ratio * 1000 >= GPA_JOB_SLOW_PERMILLE &&
		    r->ratio - med > GPA_JOB_SLOW_MADS * mad && 3 * r->slower >= 2 * r->compared &&
		    r->covered * 100 >= r->s->compute_ns * GPA_JOB_SLOW_COVER_PCT) {
			j->ranks.v[i].slow = true;
			if (gp_vec_push(&j->slow, i)) {
				ret = -GP_ERR_NOMEM;
				goto out;
			}
		}
	}
	if (j->slow.n) {
		j->slow_ev = GPA_JOB_FOUND;
		qsort_r(j->slow.v, j->slow.n, sizeof(*j->slow.v), cmp_slow, j);
	}
out:
	free(expect);
	free(v);
	return ret;
}

int gpa_job_merge(struct gpa_rank_sum *sums, size_t n, struct gpa_job *out)
{
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->sums = sums;
	out->nsums = n;
	gp_qsort(sums, n, sizeof(*sums), cmp_sum);
	out->aligned = true;
	for (size_t i = 0; i < n; i++) {
		if (!sums[i].ok) {
			out->failed++;
			continue;
		}
		out->aligned &= sums[i].aligned;
		struct gpa_job_rank r = {.s = &sums[i], .worst = 0};
		if (gp_vec_push(&out->ranks, r)) {
			ret = -GP_ERR_NOMEM;
			break;
		}
	}
	if (!out->ranks.n) {
		out->aligned = false;
	}
	if (!ret) {
		ret = rank_steps(out);
	}
	if (!ret) {
		ret = job_steps(out);
	}
	if (!ret) {
		ret = rank_spread(out);
	}
	if (!ret) {
		ret = match(out);
	}
	if (!ret) {
		ret = slow_kernels(out);
	}
	if (ret) {
		gpa_job_release(out);
	}
	return ret;
}
