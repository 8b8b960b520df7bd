/* SPDX-License-Identifier: MIT */
/*
 * steps.c - training steps: from NVTX ranges, profiler start/stop ranges or
 * the whole trace; GPU work assigned to the step that launched it.
 */
#define GP_LOG_TAG "analyze/steps"
#include "base/compat.h"
#include "analyze/steps.h"
#include "analyze/model.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t interp(const uint64_t *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)pos;
	double frac = pos - (double)lo;

	if (lo + 1 >= n) {
		return v[n - 1];
	}
	/* Exact in integers when frac is 0; else rounded to the nearest ns. */
	return v[lo] + (uint64_t)((double)(v[lo + 1] - v[lo]) * frac + 0.5);
}

void gpa_dist_of(uint64_t *vals, size_t n, struct gpa_dist *d)
{
	memset(d, 0, sizeof(*d));
	if (!n) {
		return;
	}
	gp_qsort(vals, n, sizeof(*vals), cmp_u64);
	d->min = vals[0];
	d->max = vals[n - 1];
	d->median = interp(vals, n, 0.5);
	d->p90 = interp(vals, n, 0.9);
	for (size_t i = 0; i < n; i++) {
		d->sum += vals[i];
	}
}

static int64_t number_of(const char *name, int64_t ordinal)
{
	const char *h = strrchr(name, '#');
	char *end;

	if (h && h[1] >= '0' && h[1] <= '9') {
		long long v = strtoll(h + 1, &end, 10);
		if (!*end) {
			return v;
		}
	}
	return ordinal;
}

/*
 * Marks the NVTX ranges whose names match re; returns how many, or SIZE_MAX
 * out of memory (never "none match" for want of memory).
 */
static size_t match_names(const struct gpa_model *m, pcre2_code *re, uint8_t *match_by_str)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	size_t n = 0;

	if (!md) {
		return SIZE_MAX;
	}
	/* Names repeat: decide once per distinct string. 0 unknown, 1 no, 2 yes. */
	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		uint32_t s = gpa_nvtx_name(m, i);
		if (!match_by_str[s]) {
			const char *t = gpa_model_str(m, s);
			int rc = pcre2_match(re, (PCRE2_SPTR)t, strlen(t), 0, 0, md, NULL);
			if (rc == PCRE2_ERROR_NOMEMORY) {
				pcre2_match_data_free(md);
				return SIZE_MAX;
			}
			match_by_str[s] = rc >= 0 ? 2 : 1;
		}
		n += match_by_str[s] == 2;
	}
	pcre2_match_data_free(md);
	return n;
}

static int nvtx_steps(const struct gpa_model *m, pcre2_code *re, const uint8_t *yes,
		      struct gpa_steps *out)
{
	int64_t ordinal = 0;

	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		if (yes[gpa_nvtx_name(m, i)] != 2 || gpa_nvtx_type(m, i) == GPT_NVTX_MARK) {
			continue;
		}
		/*
		 * Only the outermost matching range of a nest is a step. An ancestor
		 * that ends before it does not hold it: ProfilerStep#N+1 begins inside
		 * profiler.step(), a frame that began inside ProfilerStep#N.
		 */
		bool nested = false;
		for (uint32_t p = gpa_nvtx_parent(m, i); p != GPA_NONE; p = gpa_nvtx_parent(m, p)) {
			if (yes[gpa_nvtx_name(m, p)] == 2 &&
			    gpa_nvtx_end(m, p) >= gpa_nvtx_end(m, i)) {
				nested = true;
				break;
			}
		}
		if (nested) {
			continue;
		}
		struct gpa_step st = {
			.proc = m->threads.v[gpa_nvtx_thread(m, i)].proc,
			.nvtx = (uint32_t)i,
			.name = gpa_nvtx_name(m, i),
			.start = gpa_nvtx_start(m, i),
			.end = gpa_nvtx_end(m, i),
		};
		st.number = number_of(gpa_model_str(m, st.name), ordinal++);
		if (gp_vec_push(&out->v, st)) {
			return -GP_ERR_NOMEM;
		}
	}
	(void)re;
	return 0;
}

/* ------------------------------------------------ steps from repeating ranges */

/* GPU time by process and placement time (each op at its launch call's start). */
struct work {
	uint64_t *t, *cum; /* by process, then t; cum[i]: time of the ops before i */
	uint64_t *kcum;    /* the same over kernels only */
	size_t *first;     /* per process */
	uint64_t total, ktotal;
};

struct tkv {
	uint64_t a, b, c;
	uint32_t row;
};

static int cmp_tkv(const void *x, const void *y)
{
	const struct tkv *p = x, *q = y;

	if (p->a != q->a) {
		return p->a < q->a ? -1 : 1;
	}
	if (p->b != q->b) {
		return p->b < q->b ? -1 : 1;
	}
	if (p->c != q->c) {
		return p->c < q->c ? -1 : 1;
	}
	return p->row < q->row ? -1 : p->row > q->row;
}

static uint64_t op_api_start(const struct gpa_model *m, size_t g, bool *linked);

static int work_build(const struct gpa_model *m, struct work *w)
{
	size_t n = gpa_gpu_rows(m), np = m->procs.n;
	struct tkv *kv = malloc((n ? n : 1) * sizeof(*kv));

	memset(w, 0, sizeof(*w));
	w->t = malloc((n ? n : 1) * sizeof(*w->t));
	w->cum = malloc((n + 1) * sizeof(*w->cum));
	w->kcum = malloc((n + 1) * sizeof(*w->kcum));
	w->first = calloc(np + 1, sizeof(*w->first));
	if (!kv || !w->t || !w->cum || !w->kcum || !w->first) {
		free(kv);
		return -GP_ERR_NOMEM;
	}
	for (size_t g = 0; g < n; g++) {
		bool linked;
		kv[g] = (struct tkv){gpa_dev_proc(m, gpa_gpu_dev(m, g)), op_api_start(m, g, &linked),
				     gpa_gpu_end(m, g) - gpa_gpu_start(m, g), (uint32_t)g};
	}
	gp_qsort(kv, n, sizeof(*kv), cmp_tkv);
	w->cum[0] = 0;
	w->kcum[0] = 0;
	for (size_t i = 0; i < n; i++) {
		w->t[i] = kv[i].b;
		w->cum[i + 1] = w->cum[i] + kv[i].c;
		w->kcum[i + 1] = w->kcum[i] + (gpa_gpu_kind(m, kv[i].row) == GPA_GPU_KERNEL ? kv[i].c : 0);
		w->first[kv[i].a + 1]++;
	}
	for (size_t p = 0; p < np; p++) {
		w->first[p + 1] += w->first[p];
	}
	w->total = w->cum[n];
	w->ktotal = w->kcum[n];
	free(kv);
	return 0;
}

static void work_release(struct work *w)
{
	free(w->t);
	free(w->cum);
	free(w->kcum);
	free(w->first);
}

/* First index of process p's ops placed at or after t. */
static size_t work_seek(const struct work *w, uint32_t p, uint64_t t)
{
	size_t lo = w->first[p], hi = w->first[p + 1];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->t[mid] < t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/* GPU time of process p's ops placed in [a, b); *kern: of its kernels. */
static uint64_t work_in(const struct work *w, uint32_t p, uint64_t a, uint64_t b, uint64_t *kern)
{
	size_t lo = work_seek(w, p, a), hi = work_seek(w, p, b);

	*kern += w->kcum[hi] - w->kcum[lo];
	return w->cum[hi] - w->cum[lo];
}

/* Ops of process p placed in [a, b) (their count, not time). */
static size_t ops_in(const struct work *w, uint32_t p, uint64_t a, uint64_t b)
{
	return work_seek(w, p, b) - work_seek(w, p, a);
}

static bool is_candidate(const struct gpa_model *m, size_t i)
{
	uint8_t o = gpa_nvtx_origin(m, i);

	if (o != GPA_RANGE_NVTX && o != GPA_RANGE_ANNOTATION) {
		return false;
	}
	if (gpa_nvtx_type(m, i) == GPT_NVTX_MARK || gpa_nvtx_end(m, i) <= gpa_nvtx_start(m, i) ||
	    !gpa_nvtx_name(m, i)) {
		return false;
	}
	/* Only the outermost range of a name: none of its enclosing ranges has it. */
	for (uint32_t p = gpa_nvtx_parent(m, i); p != GPA_NONE; p = gpa_nvtx_parent(m, p)) {
		if (gpa_nvtx_name(m, p) == gpa_nvtx_name(m, i)) {
			return false;
		}
	}
	return true;
}

/* One name's ranges: how many hold GPU work, and the GPU time their union holds. */
struct name_score {
	size_t first, n; /* its candidates in the sorted array */
	size_t with_work;
	uint64_t covered, kcovered; /* GPU time and kernel time held */
	bool steplike;
};

static void score_name(const struct gpa_model *m, const struct work *w, const struct tkv *kv,
		       struct name_score *sc)
{
	uint64_t us = 0, ue = 0;
	uint32_t up = GPA_NONE;

	sc->with_work = 0;
	sc->covered = 0;
	sc->kcovered = 0;
	for (size_t k = sc->first; k < sc->first + sc->n; k++) {
		uint32_t r = kv[k].row, p = (uint32_t)kv[k].b;
		uint64_t s = gpa_nvtx_start(m, r), e = gpa_nvtx_end(m, r);
		sc->with_work += ops_in(w, p, s, e) > 0;
		/* Ranges of one name can overlap across threads: count their union once. */
		if (p == up && s <= ue) {
			ue = e > ue ? e : ue;
			continue;
		}
		if (up != GPA_NONE) {
			sc->covered += work_in(w, up, us, ue, &sc->kcovered);
		}
		up = p;
		us = s;
		ue = e;
	}
	if (up != GPA_NONE) {
		sc->covered += work_in(w, up, us, ue, &sc->kcovered);
	}
}

static bool better(const struct name_score *a, const struct name_score *b)
{
	if (a->steplike != b->steplike) {
		return a->steplike;
	}
	if (a->covered != b->covered) {
		return a->covered > b->covered;
	}
	return a->with_work > b->with_work;
}

/* Steps from the best repeating annotation, if one qualifies (steps.h); *named: named like a step. */
static int repeat_steps(const struct gpa_model *m, pcre2_code *steplike, struct gpa_steps *out,
			bool *named)
{
	struct work w;
	struct tkv *kv = NULL;
	pcre2_match_data *md = NULL;
	size_t n = 0;
	int ret = work_build(m, &w);

	if (ret || !w.total) {
		goto out;
	}
	ret = -GP_ERR_NOMEM;
	kv = malloc((gpa_nvtx_rows(m) ? gpa_nvtx_rows(m) : 1) * sizeof(*kv));
	md = pcre2_match_data_create_from_pattern(steplike, NULL);
	if (!kv || !md) {
		goto out;
	}
	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		if (is_candidate(m, i)) {
			kv[n++] = (struct tkv){gpa_nvtx_name(m, i),
					       m->threads.v[gpa_nvtx_thread(m, i)].proc,
					       gpa_nvtx_start(m, i), (uint32_t)i};
		}
	}
	gp_qsort(kv, n, sizeof(*kv), cmp_tkv);
	struct name_score best = {0}, sc;
	bool found = false;
	for (size_t i = 0; i < n; i = sc.first + sc.n) {
		sc = (struct name_score){.first = i};
		while (i + sc.n < n && kv[i + sc.n].a == kv[i].a) {
			sc.n++;
		}
		if (sc.n < GPA_STEP_MIN_REPEAT) {
			continue;
		}
		score_name(m, &w, kv, &sc);
		/* Most GPU time, or most kernel time (input copies often sit between steps). */
		if (sc.with_work < GPA_STEP_MIN_REPEAT ||
		    (sc.covered * 100 < w.total * (uint64_t)GPA_STEP_MIN_COVER_PCT &&
		     (!w.ktotal || sc.kcovered * 100 < w.ktotal * (uint64_t)GPA_STEP_MIN_COVER_PCT))) {
			continue;
		}
		const char *t = gpa_model_str(m, (uint32_t)kv[i].a);
		sc.steplike = pcre2_match(steplike, (PCRE2_SPTR)t, strlen(t), 0, 0, md, NULL) >= 0;
		if (!found || better(&sc, &best)) {
			best = sc;
			found = true;
		}
	}
	ret = 0;
	*named = found && best.steplike;
	int64_t ordinal = 0;
	for (size_t k = best.first; found && k < best.first + best.n; k++) {
		uint32_t r = kv[k].row, p = (uint32_t)kv[k].b;
		if (!ops_in(&w, p, gpa_nvtx_start(m, r), gpa_nvtx_end(m, r))) {
			continue; /* never a step without GPU work */
		}
		struct gpa_step st = {.proc = p,
				      .nvtx = r,
				      .name = gpa_nvtx_name(m, r),
				      .start = gpa_nvtx_start(m, r),
				      .end = gpa_nvtx_end(m, r)};
		st.number = number_of(gpa_model_str(m, st.name), ordinal++);
		if (gp_vec_push(&out->v, st)) {
			ret = -GP_ERR_NOMEM;
			break;
		}
	}
out:
	pcre2_match_data_free(md);
	free(kv);
	work_release(&w);
	return ret;
}

/* ------------------------------------------- steps from the training loop's annotations */

enum loop_family {
	FAM_FETCH,
	FAM_ZERO_GRAD,
	FAM_STEP,
	FAM_N
};

/* One outermost loop annotation. */
struct marker {
	uint64_t start, end;
	uint32_t proc, thread, row, name;
	uint8_t fam;
};

/* More loop annotation names than this on one thread: no telling which is the iteration. */
#define LOOP_MAX_NAMES 8

static int cmp_marker(const void *a, const void *b)
{
	const struct marker *x = a, *y = b;

	if (x->proc != y->proc) {
		return x->proc < y->proc ? -1 : 1;
	}
	if (x->thread != y->thread) {
		return x->thread < y->thread ? -1 : 1;
	}
	if (x->start != y->start) {
		return x->start < y->start ? -1 : 1;
	}
	return x->row < y->row ? -1 : x->row > y->row;
}

struct loop_ctx {
	const struct gpa_model *m;
	struct work w;
	GP_VEC(struct marker) mk;
	GP_VEC(struct gpa_step) it; /* the iterations found, by process */
	uint8_t *fam;               /* per string id: 0 not decided, 1 none, 2 + family */
	uint64_t covered, kcovered;
};

/* Decides the family of every range name (ctx->fam); 0 or -GP_ERR_NOMEM. */
static int name_families(struct loop_ctx *c)
{
	static const char *const pat[FAM_N] = {GPA_LOOP_PATTERN_FETCH, GPA_LOOP_PATTERN_ZERO_GRAD,
					       GPA_LOOP_PATTERN_STEP};
	const struct gpa_model *m = c->m;
	pcre2_code *re[FAM_N] = {0};
	pcre2_match_data *md = NULL;
	int ret = -GP_ERR_NOMEM, errcode;
	PCRE2_SIZE erroff;

	for (int f = 0; f < FAM_N; f++) {
		re[f] = pcre2_compile((PCRE2_SPTR)pat[f], PCRE2_ZERO_TERMINATED, PCRE2_UTF,
				      &errcode, &erroff, NULL);
		if (!re[f]) {
			goto out; /* constant patterns (the unit tests use them): out of memory */
		}
	}
	md = pcre2_match_data_create_from_pattern(re[0], NULL);
	if (!md) {
		goto out;
	}
	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		uint32_t s = gpa_nvtx_name(m, i);
		if (c->fam[s]) {
			continue;
		}
		const char *t = gpa_model_str(m, s);
		c->fam[s] = 1;
		for (int f = 0; s && f < FAM_N && c->fam[s] == 1; f++) {
			if (pcre2_match(re[f], (PCRE2_SPTR)t, strlen(t), 0, 0, md, NULL) >= 0) {
				c->fam[s] = (uint8_t)(2 + f);
			}
		}
	}
	ret = 0;
out:
	pcre2_match_data_free(md);
	for (int f = 0; f < FAM_N; f++) {
		pcre2_code_free(re[f]);
	}
	return ret;
}

/* Whether nvtx row i is a loop annotation: a user annotation or NVTX range of a loop name. */
static bool is_marker(const struct loop_ctx *c, size_t i)
{
	const struct gpa_model *m = c->m;
	uint8_t o = gpa_nvtx_origin(m, i);

	return c->fam[gpa_nvtx_name(m, i)] >= 2 &&
	       (o == GPA_RANGE_NVTX || o == GPA_RANGE_ANNOTATION) &&
	       gpa_nvtx_type(m, i) != GPT_NVTX_MARK && gpa_nvtx_end(m, i) >= gpa_nvtx_start(m, i);
}

/* The outermost loop annotations (user annotations and NVTX ranges only), sorted. */
static int collect_markers(struct loop_ctx *c)
{
	const struct gpa_model *m = c->m;

	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		if (!is_marker(c, i)) {
			continue;
		}
		bool nested = false;
		for (uint32_t p = gpa_nvtx_parent(m, i); p != GPA_NONE && !nested;
		     p = gpa_nvtx_parent(m, p)) {
			nested = is_marker(c, p) && gpa_nvtx_end(m, p) >= gpa_nvtx_end(m, i);
		}
		if (nested) {
			continue; /* "## zero_grad ##" around Optimizer.zero_grad#...: one */
		}
		struct marker k = {gpa_nvtx_start(m, i),
				   gpa_nvtx_end(m, i),
				   m->threads.v[gpa_nvtx_thread(m, i)].proc,
				   gpa_nvtx_thread(m, i),
				   (uint32_t)i,
				   gpa_nvtx_name(m, i),
				   (uint8_t)(c->fam[gpa_nvtx_name(m, i)] - 2)};
		if (gp_vec_push(&c->mk, k)) {
			return -GP_ERR_NOMEM;
		}
	}
	gp_qsort(c->mk.v, c->mk.n, sizeof(*c->mk.v), cmp_marker);
	return 0;
}

/*
 * Whether every loop annotation name of v[0..n) occurs as often as the
 * others, give or take one (at most LOOP_MAX_NAMES names); *steps: how many
 * optimizer steps there are.
 */
static bool names_agree(const struct marker *v, size_t n, size_t *steps)
{
	uint32_t name[LOOP_MAX_NAMES];
	size_t cnt[LOOP_MAX_NAMES] = {0}, k = 0, lo = SIZE_MAX, hi = 0;

	*steps = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < k && name[j] != v[i].name) {
			j++;
		}
		if (j == LOOP_MAX_NAMES) {
			return false;
		}
		name[j] = v[i].name;
		k += j == k;
		cnt[j]++;
		*steps += v[i].fam == FAM_STEP;
	}
	for (size_t j = 0; j < k; j++) {
		lo = cnt[j] < lo ? cnt[j] : lo;
		hi = cnt[j] > hi ? cnt[j] : hi;
	}
	if (hi - lo > 1) {
		gp_debug(
			"process %u: loop annotations occur %zu to %zu times: no iterations from them",
			v[0].proc, lo, hi);
	}
	return hi - lo <= 1;
}

/*
 * The name of the annotation that delimits iterations (steps.h): the fetch
 * or zero_grad that comes first after an optimizer step (else the first in
 * the trace); with optimizer steps alone, the last of them (*closes: it
 * closes an iteration rather than opening one).
 */
static uint32_t top_name(const struct marker *v, size_t n, bool *closes)
{
	size_t step = SIZE_MAX, open = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		step = v[i].fam == FAM_STEP && step == SIZE_MAX ? i : step;
		open = v[i].fam != FAM_STEP && open == SIZE_MAX ? i : open;
	}
	*closes = open == SIZE_MAX;
	if (*closes) {
		return v[n - 1].name;
	}
	for (size_t j = step + 1; step != SIZE_MAX && j < n; j++) {
		if (v[j].fam != FAM_STEP && v[j].start >= v[step].end) {
			return v[j].name;
		}
	}
	return v[open].name;
}

/* The end of thread th's last API call or range. */
static uint64_t thread_end(const struct gpa_model *m, uint32_t th)
{
	uint64_t e = 0;

	for (size_t i = 0; i < gpa_api_rows(m); i++) {
		if (gpa_api_thread(m, i) == th && gpa_api_end(m, i) > e) {
			e = gpa_api_end(m, i);
		}
	}
	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		if (gpa_nvtx_thread(m, i) == th && gpa_nvtx_end(m, i) > e) {
			e = gpa_nvtx_end(m, i);
		}
	}
	return e;
}

/* One thread's loop annotations, and those that delimit its iterations. */
struct loop_thread {
	const struct marker *v;
	size_t n;
	size_t *top, ntop; /* indices in v of the delimiting annotations */
	size_t steps;      /* optimizer steps among v */
	bool closes;       /* the delimiting annotation is an optimizer step */
};

/*
 * The last end of the optimizer steps that start in [a, b); 0 none,
 * UINT64_MAX one lost its end. *from: where to look from in lt->v, moved
 * past b, so that calls over consecutive ranges take one pass.
 */
static uint64_t step_end_in(const struct loop_thread *lt, size_t *from, uint64_t a, uint64_t b)
{
	uint64_t e = 0;

	for (; *from < lt->n && lt->v[*from].start < b; ++*from) {
		const struct marker *s = &lt->v[*from];
		if (s->fam != FAM_STEP || s->start < a) {
			continue;
		}
		if (s->end == s->start) {
			return UINT64_MAX; /* no duration: the trace stopped inside it */
		}
		e = s->end > e ? s->end : e;
	}
	return e;
}

/*
 * Where the last iteration, opened at a, ends (0: it is incomplete): with
 * optimizer steps, at its step's end plus the median time earlier
 * iterations ran after theirs; without, after the median iteration; never
 * after the thread's last call.
 */
static int last_end(const struct loop_ctx *c, const struct loop_thread *lt, uint64_t a, uint64_t *b)
{
	size_t from = 0, n = 0;
	uint64_t te = thread_end(c->m, lt->v[0].thread), se = step_end_in(lt, &from, a, UINT64_MAX);
	uint64_t *after = malloc(lt->ntop * sizeof(*after));
	struct gpa_dist d;

	if (!after) {
		return -GP_ERR_NOMEM;
	}
	from = 0;
	for (size_t k = 0; k + 1 < lt->ntop; k++) {
		uint64_t s = lt->v[lt->top[k]].start, e = lt->v[lt->top[k + 1]].start;
		uint64_t x = lt->steps ? step_end_in(lt, &from, s, e) : s;
		if (x && x != UINT64_MAX && x <= e) {
			after[n++] = e - x;
		}
	}
	gpa_dist_of(after, n, &d);
	free(after);
	if (lt->steps && !se) {
		*b = 0; /* no optimizer step after it: cut short */
	} else if (se == UINT64_MAX || !n) {
		*b = te;
	} else {
		uint64_t from = lt->steps ? se : a;
		*b = te < from + d.median ? te : from + d.median;
	}
	*b = *b > a ? *b : 0;
	return 0;
}

/* The CPU range of iteration k of lt (steps.h); *b 0 when it has none. */
static int iteration_at(const struct loop_ctx *c, const struct loop_thread *lt, size_t k,
			uint64_t *a, uint64_t *b)
{
	const struct marker *o = &lt->v[lt->top[k]];
	uint32_t p = o->proc;

	if (lt->closes) {
		bool any = c->w.first[p] < c->w.first[p + 1];
		*a = k ? lt->v[lt->top[k - 1]].end : any ? c->w.t[c->w.first[p]] : o->end;
		*b = o->end > *a ? o->end : 0;
		if (k + 1 == lt->ntop && o->end == o->start) {
			*b = thread_end(c->m, o->thread); /* the last step lost its end */
		}
		return 0;
	}
	*a = o->start;
	if (k + 1 < lt->ntop) {
		*b = lt->v[lt->top[k + 1]].start;
		return 0;
	}
	return last_end(c, lt, *a, b);
}

/* The iterations of one thread's loop annotations v[0..n); 0 or -GP_ERR_NOMEM. */
static int loop_process(struct loop_ctx *c, const struct marker *v, size_t n)
{
	struct loop_thread lt = {.v = v, .n = n};
	size_t base = c->it.n;
	uint64_t cov = 0, kcov = 0;
	uint32_t p = v[0].proc;
	int ret = 0;

	if (!names_agree(v, n, &lt.steps)) {
		return 0;
	}
	uint32_t top = top_name(v, n, &lt.closes);
	lt.top = malloc(n * sizeof(*lt.top));
	if (!lt.top) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i].name == top) {
			lt.top[lt.ntop++] = i;
		}
	}
	for (size_t k = 0; k < lt.ntop && !ret; k++) {
		uint64_t a, b;
		ret = iteration_at(c, &lt, k, &a, &b);
		if (ret || !b || !ops_in(&c->w, p, a, b)) {
			continue;
		}
		struct gpa_step st = {.proc = p,
				      .nvtx = v[lt.top[k]].row,
				      .name = top,
				      .number = (int64_t)(c->it.n - base),
				      .start = a,
				      .end = b};
		cov += work_in(&c->w, p, a, b, &kcov);
		ret = gp_vec_push(&c->it, st);
	}
	free(lt.top);
	if (ret || c->it.n - base < GPA_STEP_MIN_REPEAT) {
		c->it.n = base;
		return ret;
	}
	gp_debug("process %u: %zu iterations delimited by '%s'", p, c->it.n - base,
		 gpa_model_str(c->m, top));
	c->covered += cov;
	c->kcovered += kcov;
	return 0;
}

/* Steps from the training loop's annotations, if they qualify (steps.h). */
static int loop_steps(const struct gpa_model *m, struct gpa_steps *out)
{
	struct loop_ctx c = {.m = m};
	int ret;

	c.fam = calloc(m->strs.off.n + 2, 1);
	ret = c.fam ? name_families(&c) : -GP_ERR_NOMEM;
	ret = ret ? ret : collect_markers(&c);
	/* Too few loop annotations to delimit anything: no need to place the GPU work. */
	if (ret || c.mk.n < GPA_STEP_MIN_REPEAT) {
		goto out;
	}
	ret = work_build(m, &c.w);
	if (ret || !c.w.total) {
		goto out;
	}
	/* Per process, the thread that makes most of its loop annotations. */
	for (size_t i = 0, j; !ret && i < c.mk.n; i = j) {
		size_t best = i, best_n = 0;
		for (j = i; j < c.mk.n && c.mk.v[j].proc == c.mk.v[i].proc;) {
			size_t t = j;
			while (j < c.mk.n && c.mk.v[j].proc == c.mk.v[t].proc &&
			       c.mk.v[j].thread == c.mk.v[t].thread) {
				j++;
			}
			if (j - t > best_n) {
				best = t;
				best_n = j - t;
			}
		}
		ret = loop_process(&c, c.mk.v + best, best_n);
	}
	if (ret || c.it.n < GPA_STEP_MIN_REPEAT) {
		goto out;
	}
	if (c.covered * 100 < c.w.total * (uint64_t)GPA_STEP_MIN_COVER_PCT &&
	    (!c.w.ktotal || c.kcovered * 100 < c.w.ktotal * (uint64_t)GPA_STEP_MIN_COVER_PCT)) {
		gp_debug("loop iterations hold %" PRIu64 " of %" PRIu64
			 " ns of GPU time: too little",
			 c.covered, c.w.total);
		goto out;
	}
	out->v.v = c.it.v;
	out->v.n = c.it.n;
	out->v.cap = c.it.cap;
	c.it.v = NULL;
out:
	gp_vec_free(&c.it);
	gp_vec_free(&c.mk);
	free(c.fam);
	work_release(&c.w);
	return ret;
}

static int profiler_steps(const struct gpa_model *m, struct gpa_steps *out)
{
	int64_t ordinal = 0;
	/* open[proc]: start of the open range + 1, or 0 */
	uint64_t *open = calloc(m->procs.n ? m->procs.n : 1, sizeof(*open));

	if (!open) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < gpa_api_rows(m); i++) {
		const char *name = gpa_model_str(m, gpa_api_name(m, i));
		uint32_t p = m->threads.v[gpa_api_thread(m, i)].proc;
		bool start = !strcmp(name, "cudaProfilerStart") || !strcmp(name, "cuProfilerStart");
		bool stop = !strcmp(name, "cudaProfilerStop") || !strcmp(name, "cuProfilerStop");
		if (start && !open[p]) {
			open[p] = gpa_api_end(m, i) + 1;
		} else if (stop && open[p]) {
			struct gpa_step st = {.proc = p, .nvtx = GPA_NONE, .name = gpa_api_name(m, i),
					      .start = open[p] - 1, .end = gpa_api_start(m, i)};
			st.number = ordinal++;
			open[p] = 0;
			if (gp_vec_push(&out->v, st)) {
				free(open);
				return -GP_ERR_NOMEM;
			}
		}
	}
	/* A range still open at the end runs to the end of the trace: never dropped. */
	for (size_t p = 0; p < m->procs.n; p++) {
		if (open[p]) {
			struct gpa_step st = {.proc = (uint32_t)p, .nvtx = GPA_NONE,
					      .start = open[p] - 1, .end = m->t1, .number = ordinal++};
			if (gp_vec_push(&out->v, st)) {
				free(open);
				return -GP_ERR_NOMEM;
			}
		}
	}
	free(open);
	return 0;
}

static int whole_steps(const struct gpa_model *m, struct gpa_steps *out)
{
	for (size_t p = 0; p < m->procs.n; p++) {
		struct gpa_step st = {.proc = (uint32_t)p, .nvtx = GPA_NONE, .start = UINT64_MAX,
				      .number = (int64_t)p};
		bool any = false;
#define WIDEN_(tab, procof, START, END)                                                            \
	for (size_t i = 0; i < (tab).n; i++) {                                                     \
		if ((procof) != p || !gpa_plausible(m, (uint32_t)p, START, END)) {                 \
			continue;                                                                  \
		}                                                                                  \
		st.start = (START) < st.start ? (START) : st.start;                                \
		st.end = (END) > st.end ? (END) : st.end;                                          \
		any = true;                                                                        \
	}
		WIDEN_(m->kern, m->devs.v[gpa_kern_dev(m, i)].proc, gpa_kern_start(m, i), gpa_kern_end(m, i));
		WIDEN_(m->copy, m->devs.v[gpa_copy_dev(m, i)].proc, gpa_copy_start(m, i),
		       gpa_copy_end(m, i));
		WIDEN_(m->set, m->devs.v[gpa_set_dev(m, i)].proc, gpa_set_start(m, i),
		       gpa_set_end(m, i));
		WIDEN_(m->api, m->threads.v[gpa_api_thread(m, i)].proc, gpa_api_start(m, i), gpa_api_end(m, i));
		WIDEN_(m->nvtx, m->threads.v[gpa_nvtx_thread(m, i)].proc, gpa_nvtx_start(m, i),
		       gpa_nvtx_end(m, i));
#undef WIDEN_
		if (!any) {
			continue;
		}
		if (gp_vec_push(&out->v, st)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int cmp_step(const void *a, const void *b)
{
	const struct gpa_step *x = a, *y = b;

	if (x->proc != y->proc) {
		return x->proc < y->proc ? -1 : 1;
	}
	if (x->start != y->start) {
		return x->start < y->start ? -1 : 1;
	}
	return x->end > y->end ? -1 : x->end < y->end;
}

/* The step of process p containing time t, or GPA_NONE (steps sorted, per-process ranges). */
/*
 * The step of an op launched at t in process p, or GPA_NONE. *hint: the
 * position the last call found (SIZE_MAX none); ops come in launch order
 * mostly, so it is most often the answer again and saves the search.
 */
static uint32_t step_at(const struct gpa_steps *s, const size_t *pfirst, uint32_t p, uint64_t t,
			size_t *hint)
{
	size_t lo = pfirst[p], hi = pfirst[p + 1], h = *hint;

	/* Last step starting at or before t: lo = the first after it. */
	if (h >= lo && h <= hi && (h == lo || s->v.v[h - 1].start <= t) &&
	    (h == hi || s->v.v[h].start > t)) {
		lo = hi = h;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v.v[mid].start <= t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	*hint = lo;
	/* Steps can overlap when threads disagree: look back a little for a container. */
	for (size_t k = lo, back = 0; k-- > pfirst[p] && back < 4; back++) {
		if (t < s->v.v[k].end || (t == s->v.v[k].start)) {
			return (uint32_t)k;
		}
	}
	return GPA_NONE;
}

static uint64_t op_api_start(const struct gpa_model *m, size_t g, bool *linked)
{
	uint32_t r = gpa_gpu_row(m, g), a;

	switch (gpa_gpu_kind(m, g)) {
	case GPA_GPU_KERNEL:
		a = gpa_kern_api(m, r);
		break;
	case GPA_GPU_MEMCPY:
		a = gpa_copy_api(m, r);
		break;
	default:
		a = gpa_set_api(m, r);
		break;
	}
	*linked = a != GPA_NONE;
	return *linked ? gpa_api_start(m, a) : gpa_gpu_start(m, g);
}

uint64_t gpa_step_busy_basis(const struct gpa_step *s)
{
	if (!s->gpu_ops) {
		return 0;
	}
	return (s->end - s->start) * s->gpu_devices;
}

static int assign(const struct gpa_model *m, struct gpa_steps *s)
{
	size_t np = m->procs.n, ns = s->v.n;
	size_t *pfirst = calloc(np + 1, sizeof(*pfirst));
	struct cur {
		uint16_t last_dev; /* the device of the step's last op */
	} *cur = calloc(ns ? ns : 1, sizeof(*cur));

	if (ns < UINT16_MAX) {
		s->gpu_step16 = gp_malloc_big((gpa_gpu_rows(m) ? gpa_gpu_rows(m) : 1) *
					      sizeof(*s->gpu_step16));
	} else {
		s->gpu_step = gp_malloc_big((gpa_gpu_rows(m) ? gpa_gpu_rows(m) : 1) *
					    sizeof(*s->gpu_step));
	}
	if (!pfirst || !cur || !gpa_steps_assigned(s)) {
		free(pfirst);
		free(cur);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < ns; i++) {
		pfirst[s->v.v[i].proc + 1]++;
	}
	for (size_t p = 0; p < np; p++) {
		pfirst[p + 1] += pfirst[p];
	}
	/* gpu rows run by device, then start: per-step unions merge in one pass. */
	size_t hint = SIZE_MAX;
	for (size_t g = 0, dev = 0; g < gpa_gpu_rows(m); g++) {
		bool linked;
		uint64_t t = op_api_start(m, g, &linked);
		while (g >= (size_t)m->devs.v[dev].gpu_first + m->devs.v[dev].gpu_count) {
			dev++; /* rows come by device: the device of row g, as gpa_gpu_dev */
		}
		uint32_t p = m->devs.v[dev].proc;
		uint32_t k = step_at(s, pfirst, p, t, &hint);
		if (s->gpu_step16) {
			s->gpu_step16[g] = k == GPA_NONE ? UINT16_MAX : (uint16_t)k;
		} else {
			s->gpu_step[g] = k;
		}
		if (!linked) {
			s->unlinked_ops++;
		}
		if (k == GPA_NONE) {
			s->unassigned_ops++;
			continue;
		}
		struct gpa_step *st = &s->v.v[k];
		uint64_t a = gpa_gpu_start(m, g), e = gpa_gpu_end(m, g);
		if (!st->gpu_ops || a < st->gpu_start) {
			st->gpu_start = a;
		}
		if (!st->gpu_ops || e > st->gpu_end) {
			st->gpu_end = e;
		}
		struct cur *c = &cur[k];
		if (!st->gpu_ops || c->last_dev != dev) {
			st->gpu_devices++; /* rows come by device: each device once */
		}
		c->last_dev = (uint16_t)dev;
		st->gpu_ops++;
	}
	free(pfirst);
	free(cur);
	return 0;
}

struct busy_walk {
	struct gpa_steps *s;
	const uint32_t *stamp; /* per step: 1 + the last device that ran its work */
	const uint64_t *pmax;  /* per step: the latest end of its process's steps up to it */
	size_t lo, hi;         /* the device's process's steps, lo the first that may overlap */
	uint32_t dev;
};

/* Adds busy interval [a, e) of device w->dev to the steps it overlaps that ran work there. */
static void busy_add(struct busy_walk *w, uint64_t a, uint64_t e)
{
	while (w->lo < w->hi && w->pmax[w->lo] <= a) {
		w->lo++; /* every step up to lo ended before a */
	}
	for (size_t k = w->lo; k < w->hi && w->s->v.v[k].start < e; k++) {
		struct gpa_step *st = &w->s->v.v[k];
		uint64_t x = a > st->start ? a : st->start, y = e < st->end ? e : st->end;
		if (w->stamp[k] == w->dev + 1 && y > x) {
			st->gpu_busy += y - x;
		}
	}
}

/*
 * Each step's GPU busy: on every device that ran its work, the union of the
 * device's GPU intervals within the step's wall [start, end], whichever step
 * launched them, summed over those devices. It never exceeds the wall per
 * device: work a step launched that runs after it ended (a GPU behind its
 * host) is busy time of the steps it runs in, and a step during which the
 * GPU ran an earlier step's work was busy. Rows come by device, then start.
 */
static int step_busy(const struct gpa_model *m, struct gpa_steps *s)
{
	size_t np = m->procs.n, ns = s->v.n;
	size_t *pfirst = calloc(np + 1, sizeof(*pfirst));
	uint32_t *stamp = calloc(ns ? ns : 1, sizeof(*stamp));
	uint64_t *pmax = malloc((ns ? ns : 1) * sizeof(*pmax));

	if (!pfirst || !stamp || !pmax) {
		free(pfirst);
		free(stamp);
		free(pmax);
		return -GP_ERR_NOMEM;
	}
	for (size_t k = 0; k < ns; k++) {
		const struct gpa_step *st = &s->v.v[k];
		pfirst[st->proc + 1]++;
		pmax[k] = k && s->v.v[k - 1].proc == st->proc && pmax[k - 1] > st->end ? pmax[k - 1]
											: st->end;
		s->v.v[k].gpu_busy = 0;
	}
	for (size_t p = 0; p < np; p++) {
		pfirst[p + 1] += pfirst[p];
	}
	for (uint32_t dev = 0; dev < m->devs.n; dev++) {
		const struct gpa_dev *d = &m->devs.v[dev];
		size_t g0 = d->gpu_first, g1 = g0 + d->gpu_count;
		for (size_t g = g0; g < g1; g++) {
			uint32_t k = gpa_step_of(s, g);
			if (k != GPA_NONE) {
				stamp[k] = dev + 1;
			}
		}
		struct busy_walk w = {s, stamp, pmax, pfirst[d->proc], pfirst[d->proc + 1], dev};
		uint64_t ua = 0, ue = 0;
		for (size_t g = g0; g < g1; g++) {
			uint64_t a = gpa_gpu_start(m, g), e = gpa_gpu_end(m, g);
			if (g > g0 && a <= ue) {
				ue = e > ue ? e : ue;
				continue;
			}
			if (g > g0) {
				busy_add(&w, ua, ue);
			}
			ua = a;
			ue = e;
		}
		if (g1 > g0) {
			busy_add(&w, ua, ue);
		}
	}
	free(pfirst);
	free(stamp);
	free(pmax);
	return 0;
}

static int find(const struct gpa_model *m, const char *regex, bool assign_ops,
		struct gpa_steps *out, char *errbuf, size_t errlen);

/* out's steps (from repeating annotations, or none) replaced by loop iterations if any. */
static int prefer_loop(const struct gpa_model *m, struct gpa_steps *out)
{
	struct gpa_steps loop = {0};
	int ret = loop_steps(m, &loop);

	if (!ret && loop.v.n) {
		gp_vec_free(&out->v);
		out->v.v = loop.v.v;
		out->v.n = loop.v.n;
		out->v.cap = loop.v.cap;
		out->source = GPA_STEPS_LOOP;
		return 0;
	}
	gp_vec_free(&loop.v);
	return ret;
}

int gpa_steps_find(const struct gpa_model *m, const char *regex, struct gpa_steps *out,
		   char *errbuf, size_t errlen)
{
	return find(m, regex, true, out, errbuf, errlen);
}

int gpa_steps_find_ranges(const struct gpa_model *m, const char *regex, struct gpa_steps *out,
			  char *errbuf, size_t errlen)
{
	return find(m, regex, false, out, errbuf, errlen);
}

static int find(const struct gpa_model *m, const char *regex, bool assign_ops,
		struct gpa_steps *out, char *errbuf, size_t errlen)
{
	uint8_t *yes = NULL;
	pcre2_code *re = NULL;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	yes = calloc(m->strs.off.n + 2, 1);
	if (!yes) {
		return -GP_ERR_NOMEM;
	}
	const char *pat = regex ? regex : GPA_STEP_PATTERN_PROFILER;
	for (int attempt = 0; attempt < 2; attempt++) {
		int errcode;
		PCRE2_SIZE erroff;
		re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &errcode,
				   &erroff, NULL);
		if (!re && errcode == PCRE2_ERROR_HEAP_FAILED) {
			snprintf(errbuf, errlen, "out of memory");
			ret = -GP_ERR_NOMEM;
			goto out;
		}
		if (!re) {
			PCRE2_UCHAR msg[160];
			pcre2_get_error_message(errcode, msg, sizeof(msg));
			snprintf(errbuf, errlen, "bad step pattern '%s' at offset %zu: %s", pat,
				 (size_t)erroff, (char *)msg);
			ret = -GP_ERR_API;
			goto out;
		}
		if (attempt) {
			/* No ProfilerStep#N: annotations that repeat and hold most GPU work. */
			bool named = false;
			ret = repeat_steps(m, re, out, &named);
			out->source = GPA_STEPS_REPEAT;
			/* Unless one is named like a step, the training loop's annotations first. */
			ret = ret || named ? ret : prefer_loop(m, out);
			break;
		}
		memset(yes, 0, m->strs.off.n + 2);
		size_t matched = match_names(m, re, yes);
		if (matched == SIZE_MAX) {
			snprintf(errbuf, errlen, "out of memory");
			ret = -GP_ERR_NOMEM;
			goto out;
		}
		if (matched || regex) {
			out->pattern = strdup(pat);
			ret = out->pattern ? nvtx_steps(m, re, yes, out) : -GP_ERR_NOMEM;
			out->source = GPA_STEPS_NVTX;
			break;
		}
		pcre2_code_free(re);
		re = NULL;
		pat = GPA_STEP_PATTERN_DEFAULT;
	}
	if (!ret && !out->v.n) {
		free(out->pattern);
		out->pattern = NULL;
		out->source = GPA_STEPS_PROFILER;
		ret = profiler_steps(m, out);
	}
	if (!ret && !out->v.n) {
		out->source = GPA_STEPS_WHOLE;
		ret = whole_steps(m, out);
	}
	if (ret) {
		goto out;
	}
	gp_qsort(out->v.v, out->v.n, sizeof(*out->v.v), cmp_step);
	if (out->source == GPA_STEPS_NVTX) {
		gp_debug("%zu steps from NVTX ranges matching %s%s", out->v.n, out->pattern,
			 regex ? "" : " (a default pattern)");
	} else {
		gp_debug("%zu steps from %s", out->v.n,
			 out->source == GPA_STEPS_PROFILER ? "profiler start/stop ranges"
			 : out->source == GPA_STEPS_REPEAT ? "a repeating annotation"
			 : out->source == GPA_STEPS_LOOP   ? "the training loop's annotations"
							   : "the whole trace of each process");
	}
	if (!assign_ops) {
		goto out;
	}
	ret = assign(m, out);
	if (ret) {
		goto out;
	}
	/* A repeating range's iteration lasts until the GPU work launched inside it ends. */
	for (size_t i = 0; out->source == GPA_STEPS_REPEAT && i < out->v.n; i++) {
		struct gpa_step *st = &out->v.v[i];
		st->end = st->gpu_ops && st->gpu_end > st->end ? st->gpu_end : st->end;
	}
	ret = step_busy(m, out);
	if (ret) {
		goto out;
	}
	uint64_t *vals = malloc((out->v.n ? out->v.n : 1) * sizeof(*vals));
	if (!vals) {
		ret = -GP_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < out->v.n; i++) {
		vals[i] = out->v.v[i].end - out->v.v[i].start;
	}
	gpa_dist_of(vals, out->v.n, &out->wall);
	for (size_t i = 0; i < out->v.n; i++) {
		vals[i] = out->v.v[i].gpu_busy;
	}
	gpa_dist_of(vals, out->v.n, &out->busy);
	free(vals);
out:
	if (ret == -GP_ERR_NOMEM) {
		snprintf(errbuf, errlen, "out of memory finding steps");
	}
	if (ret) {
		gpa_steps_release(out);
	}
	pcre2_code_free(re);
	free(yes);
	return ret;
}

void gpa_steps_release(struct gpa_steps *s)
{
	free(s->pattern);
	gp_vec_free(&s->v);
	free(s->gpu_step16);
	free(s->gpu_step);
	memset(s, 0, sizeof(*s));
}
