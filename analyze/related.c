/* SPDX-License-Identifier: MIT */
/*
 * related.c - whether traces given together are one run (analyze/related.h).
 * Three rules, each of which a real job or program never breaks: every trace
 * was recording within GPA_RELATED_GAP_NS of another one (ranks run at the
 * same time; profiler windows of one run are seconds apart, not hours), the
 * traces that name a world size name the same one, and no two traces name
 * the same rank, unless they are profiling windows of one process (the same
 * pid on one host) or processes of one host that recorded at the same time
 * (a rank's program and a helper process it started, which inherits its
 * launcher's variables).
 */
#include "base/compat.h"
#include "analyze/related.h"
#include "analyze/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "3.2 hours", "41 days", "4.6 years": a gap of an hour or more, in words. */
static void fmt_gap(uint64_t ns, char *buf, size_t len)
{
	double s = (double)ns / 1e9;

	if (s >= 365.25 * 86400) {
		snprintf(buf, len, "%.1f years", s / (365.25 * 86400));
	} else if (s >= 2 * 86400) {
		snprintf(buf, len, "%.0f days", s / 86400);
	} else {
		snprintf(buf, len, "%.1f hours", s / 3600);
	}
}

static int cmp_t0(const void *a, const void *b, void *arg)
{
	const struct gpa_related_in *v = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (v[x].t0 != v[y].t0) {
		return v[x].t0 < v[y].t0 ? -1 : 1;
	}
	return x < y ? -1 : x > y;
}

static bool is_timed(const struct gpa_related_in *r)
{
	return r->timed && r->t1 >= r->t0;
}

static bool has_rank(const struct gpa_related_in *r)
{
	return r->rank >= 0;
}

/* The indexes of v[0, n) that keep, sorted by cmp (into *k of them); NULL out of memory. */
static uint32_t *sorted(const struct gpa_related_in *v, size_t n,
			bool (*keep)(const struct gpa_related_in *),
			int (*cmp)(const void *, const void *, void *), size_t *k)
{
	uint32_t *o = malloc((n ? n : 1) * sizeof(*o));

	*k = 0;
	if (!o) {
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (keep(&v[i])) {
			o[(*k)++] = (uint32_t)i;
		}
	}
	qsort_r(o, *k, sizeof(*o), cmp, (void *)v);
	return o;
}

/* 1 when the timed traces split where one starts over the gap after all before it ended. */
static int far_apart(const struct gpa_related_in *v, size_t n, char *errbuf, size_t errlen)
{
	size_t k;
	uint32_t *o = sorted(v, n, is_timed, cmp_t0, &k);
	int ret = 0;

	if (!o) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 1, end = 0; i < k && !ret; i++) { /* end: the trace that ends last so far */
		const struct gpa_related_in *a = &v[o[end]], *b = &v[o[i]];
		if (b->t0 > a->t1 && b->t0 - a->t1 > GPA_RELATED_GAP_NS && strcmp(a->path, b->path)) {
			char gap[64];
			fmt_gap(b->t0 - a->t1, gap, sizeof(gap));
			snprintf(errbuf, errlen, "'%s' and '%s' are not one run: the second began %s "
				 "after the first ended", a->path, b->path, gap);
			ret = 1;
		}
		end = b->t1 > a->t1 ? i : end;
	}
	free(o);
	return ret;
}

static int cmp_rank(const void *a, const void *b, void *arg)
{
	const struct gpa_related_in *v = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (v[x].rank != v[y].rank) {
		return v[x].rank < v[y].rank ? -1 : 1;
	}
	return x < y ? -1 : x > y;
}

static const char *host_of(const struct gpa_related_in *r)
{
	return r->host ? r->host : "";
}

/*
 * Whether a and b, naming one rank, may be one run of it: one file, two
 * windows of one process (its pid on one host, or on hosts neither names),
 * or processes of one named host recording at the same time.
 */
static bool one_rank(const struct gpa_related_in *a, const struct gpa_related_in *b)
{
	bool same_host = !strcmp(host_of(a), host_of(b));

	return !strcmp(a->path, b->path) || (a->pid && a->pid == b->pid && same_host) ||
	       (same_host && *host_of(a) && a->timed && b->timed && a->t0 <= b->t1 &&
		b->t0 <= a->t1);
}

/* 1 when two traces name the same rank and are not processes of one run of it. */
static int same_rank(const struct gpa_related_in *v, size_t n, char *errbuf, size_t errlen)
{
	size_t k;
	uint32_t *o = sorted(v, n, has_rank, cmp_rank, &k);
	int ret = 0;

	if (!o) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < k && !ret; i++) {
		for (size_t j = i + 1; j < k && v[o[j]].rank == v[o[i]].rank && !ret; j++) {
			const struct gpa_related_in *a = &v[o[i]], *b = &v[o[j]];
			if (!one_rank(a, b)) {
				snprintf(errbuf, errlen, "'%s' and '%s' are not one run: both are rank %d",
					 a->path, b->path, a->rank);
				ret = 1;
			}
		}
	}
	free(o);
	return ret;
}

int gpa_related_check(const struct gpa_related_in *v, size_t n, char *errbuf, size_t errlen)
{
	const struct gpa_related_in *w = NULL; /* the first that names a world size */

	for (size_t i = 0; i < n; i++) {
		if (v[i].world_size <= 0) {
			continue;
		}
		if (!w) {
			w = &v[i];
		} else if (v[i].world_size != w->world_size && strcmp(v[i].path, w->path)) {
			snprintf(errbuf, errlen, "'%s' and '%s' are not one run: they name jobs of "
				 "%d and %d ranks", w->path, v[i].path, w->world_size,
				 v[i].world_size);
			return 1;
		}
	}
	int ret = far_apart(v, n, errbuf, errlen);
	return ret ? ret : same_rank(v, n, errbuf, errlen);
}

static void widen(struct gpa_related_in *r, uint64_t a, uint64_t e)
{
	if (!r->timed) {
		r->t0 = a;
		r->t1 = e;
		r->timed = true;
		return;
	}
	r->t0 = a < r->t0 ? a : r->t0;
	r->t1 = e > r->t1 ? e : r->t1;
}

int gpa_related_model(const struct gpa_model *m, char *errbuf, size_t errlen)
{
	size_t np = m->procs.n;
	struct gpa_related_in *v;
	int ret;

	if (np < 2) {
		return 0;
	}
	v = calloc(np, sizeof(*v));
	if (!v) {
		return -GP_ERR_NOMEM;
	}
	for (size_t p = 0; p < np; p++) {
		bool dup = m->bad.dup_of && m->bad.dup_of[p] != GPA_NONE;
		v[p].path = m->procs.v[p].path ? m->procs.v[p].path : "";
		v[p].rank = dup ? -1 : m->procs.v[p].rank;
		v[p].world_size = m->procs.v[p].world_size;
		v[p].host = gpa_model_str(m, m->procs.v[p].host);
		v[p].pid = m->procs.v[p].pid;
	}
	if (m->aligned) { /* else each file keeps its own clock: nothing to compare */
		for (size_t i = 0; i < gpa_gpu_rows(m); i++) {
			widen(&v[gpa_dev_proc(m, gpa_gpu_dev(m, i))], gpa_gpu_start(m, i),
			      gpa_gpu_end(m, i));
		}
		for (size_t i = 0; i < gpa_api_rows(m); i++) {
			uint32_t p = m->threads.v[gpa_api_thread(m, i)].proc;
			uint64_t a = gpa_api_start(m, i), e = gpa_api_end(m, i);
			if (gpa_plausible(m, p, a, e)) {
				widen(&v[p], a, e);
			}
		}
	}
	ret = gpa_related_check(v, np, errbuf, errlen);
	free(v);
	return ret;
}

int gpa_related_sums(const struct gpa_rank_sum *s, size_t n, char *errbuf, size_t errlen)
{
	struct gpa_related_in *v = calloc(n ? n : 1, sizeof(*v));
	bool aligned = true;
	size_t k = 0;
	int ret;

	if (!v) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		aligned &= !s[i].ok || s[i].aligned;
	}
	for (size_t i = 0; i < n; i++) {
		if (!s[i].ok) {
			continue;
		}
		uint64_t sh = (uint64_t)s[i].clock_offset;
		/* no pid in a summary: two windows of one process are told apart by host only */
		bool named = s[i].host && *s[i].host;
		v[k++] = (struct gpa_related_in){.path = s[i].path, .rank = named ? s[i].rank : -1,
						 .world_size = s[i].world_size,
						 .timed = aligned && s[i].t1 > s[i].t0,
						 .t0 = s[i].t0 + sh, .t1 = s[i].t1 + sh,
						 .host = s[i].host};
	}
	ret = gpa_related_check(v, k, errbuf, errlen);
	free(v);
	return ret;
}
