/* SPDX-License-Identifier: MIT */
/*
 * verdict.c - what bounds the step, from the critical path (verdict.h).
 */
#include "base/compat.h"
#include "analyze/verdict.h"
#include "analyze/model.h"
#include "analyze/steps.h"

#include <stdlib.h>
#include <string.h>

const char *gpa_bound_name(unsigned b)
{
	static const char *const names[GPA_BOUND__COUNT] = {
		[GPA_BOUND_NO_GPU] = "no-gpu-work",  [GPA_BOUND_UNKNOWN] = "unknown",
		[GPA_BOUND_COMPUTE] = "compute",     [GPA_BOUND_COPY] = "copy",
		[GPA_BOUND_COMM] = "communication",  [GPA_BOUND_HOST] = "host",
		[GPA_BOUND_DATA] = "data-loading",   [GPA_BOUND_LAUNCH] = "launch-overhead",
		[GPA_BOUND_SYNC] = "synchronization", [GPA_BOUND_DEPEND] = "dependency",
		[GPA_BOUND_WARMUP] = "warm-up",      [GPA_BOUND_MIXED] = "mixed",
	};

	return b < GPA_BOUND__COUNT ? names[b] : "unknown";
}

unsigned gpa_bound_of_cat(unsigned cat)
{
	static const uint8_t group[GPA_CP__COUNT] = {
		[GPA_CP_CPU] = GPA_BOUND_HOST,        [GPA_CP_LAUNCH] = GPA_BOUND_LAUNCH,
		[GPA_CP_KERNEL] = GPA_BOUND_COMPUTE,  [GPA_CP_COPY] = GPA_BOUND_COPY,
		[GPA_CP_COMM] = GPA_BOUND_COMM,       [GPA_CP_WAIT_STREAM] = GPA_BOUND_DEPEND,
		[GPA_CP_WAIT_RANK] = GPA_BOUND_COMM,  [GPA_CP_IDLE] = GPA_BOUND_DEPEND,
		[GPA_CP_SYNC] = GPA_BOUND_SYNC,       [GPA_CP_DATA] = GPA_BOUND_DATA,
		[GPA_CP_WARMUP] = GPA_BOUND_WARMUP,
	};

	return cat < GPA_CP__COUNT ? group[cat] : GPA_BOUND_UNKNOWN;
}

static uint64_t path_len(const struct gpa_cp_path *p)
{
	uint64_t sum = 0;

	for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
		sum += p->cat_ns[k];
	}
	return sum;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Marks warm-up steps in warm[]: a step whose path is mostly warm-up time,
 * and a process's first step when GPA_VERDICT_WARM_STEPS steps follow it and
 * its path is GPA_VERDICT_WARM_RATIO times their median.
 */
static int mark_warm(const struct gpa_critpath *cp, bool whole, bool *warm)
{
	size_t n = cp->steps.n;
	uint64_t *len = malloc((n + 1) * sizeof(uint64_t));

	if (!len) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gpa_cp_step *s = &cp->steps.v[i];
		uint64_t l = path_len(&s->now);
		/* a whole trace keeps its steady part: only its warm-up time is left out */
		warm[i] = l && s->step != GPA_NONE && !whole &&
			  s->now.cat_ns[GPA_CP_WARMUP] * 2 >= l;
	}
	for (size_t i = 0; i < n;) { /* runs of one process, in step order */
		size_t j = i + 1, k = 0;
		while (j < n && cp->steps.v[j].proc == cp->steps.v[i].proc) {
			j++;
		}
		for (size_t q = i + 1; q < j; q++) {
			len[k++] = path_len(&cp->steps.v[q].now);
		}
		if (k >= GPA_VERDICT_WARM_STEPS && cp->steps.v[i].step != GPA_NONE && !whole) {
			qsort(len, k, sizeof(*len), cmp_u64);
			uint64_t med = len[k / 2];
			warm[i] |= path_len(&cp->steps.v[i].now) >= med * GPA_VERDICT_WARM_RATIO && med;
		}
		i = j;
	}
	free(len);
	return 0;
}

/* The copies on a steady step's path by direction. */
static void add_copies(const struct gpa_cp_path *p, struct gpa_bound_verdict *v)
{
	for (unsigned d = 0; d < GPA_CDIR__COUNT; d++) {
		v->copy_ns[d] += p->copy_ns[d];
	}
	v->copy_pageable_ns += p->pageable_ns;
}

/* A steady step's figures: its path, copies, host prelude, wall and busy time. */
static void add_step(const struct gpa_steps *steps, const struct gpa_cp_step *s,
		     struct gpa_bound_verdict *v)
{
	for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
		v->cat_ns[k] += s->now.cat_ns[k];
	}
	add_copies(&s->now, v);
	if (s->step == GPA_NONE || !steps || s->step >= steps->v.n) {
		return;
	}
	const struct gpa_step *st = &steps->v.v[s->step];
	v->wall_ns += st->end - st->start;
	v->busy_ns += st->gpu_busy;
	v->busy_basis_ns += gpa_step_busy_basis(st);
}

/*
 * Host time before each steady step's GPU work while the GPU had nothing to
 * run: from the later of the step's start and the end of the work of the
 * process's earlier steps, to its first GPU op's start. A GPU still busy with
 * earlier steps' work hides the host's time, and nothing is counted.
 */
static void add_preludes(const struct gpa_steps *steps, const struct gpa_critpath *cp,
			 const bool *warm, struct gpa_bound_verdict *v)
{
	uint32_t proc = GPA_NONE;
	uint64_t busy_until = 0;

	for (size_t i = 0; i < cp->steps.n; i++) {
		uint32_t si = cp->steps.v[i].step;
		if (si == GPA_NONE || si >= steps->v.n) {
			continue;
		}
		const struct gpa_step *st = &steps->v.v[si];
		if (st->proc != proc) {
			proc = st->proc;
			busy_until = 0;
		}
		uint64_t from = st->start > busy_until ? st->start : busy_until;
		if (!warm[i] && st->gpu_ops && st->gpu_start > from) {
			v->prelude_ns += st->gpu_start - from;
		}
		if (st->gpu_ops && st->gpu_end > busy_until) {
			busy_until = st->gpu_end;
		}
	}
}

/* The bound: the largest group of the steady path, when it holds enough of it. */
static void choose(struct gpa_bound_verdict *v)
{
	uint64_t group[GPA_BOUND__COUNT] = {0};
	unsigned best = GPA_BOUND_COMPUTE;

	for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
		if (k != GPA_CP_WARMUP) {
			v->path_ns += v->cat_ns[k];
			group[gpa_bound_of_cat(k)] += v->cat_ns[k];
		}
	}
	v->warm_ns += v->cat_ns[GPA_CP_WARMUP];
	if (!v->gpu_ops) {
		v->bound = GPA_BOUND_NO_GPU;
		return;
	}
	if (v->gpu_ops < GPA_VERDICT_FEW_OPS) {
		v->bound = GPA_BOUND_UNKNOWN;
		return;
	}
	if (!v->path_ns) {
		v->bound = v->warm_ns ? GPA_BOUND_WARMUP : GPA_BOUND_UNKNOWN;
		return;
	}
	for (unsigned b = 0; b < GPA_BOUND__COUNT; b++) {
		if (group[b] > group[best]) {
			best = b;
		}
	}
	v->share_bp = (uint32_t)((double)group[best] * 10000.0 / (double)v->path_ns + 0.5);
	v->bound = v->share_bp >= GPA_VERDICT_MIN_BP ? (uint8_t)best : GPA_BOUND_MIXED;
}

/*
 * The union of the steps' windows (each from the earlier of its start and its
 * first GPU op to the later of its end and its last GPU op: a step's work may
 * run after its CPU range) over each process's span, from its first step or
 * GPU op to its last.
 */
static uint32_t coverage(const struct gpa_model *m, const struct gpa_steps *steps)
{
	size_t np = m->procs.n;
	uint64_t *lo = malloc((np + 1) * sizeof(uint64_t)), *hi = calloc(np + 1, sizeof(uint64_t));
	uint64_t wall = 0, span = 0, until = 0;
	uint32_t bp = 10000, proc = GPA_NONE;

	if (!lo || !hi) {
		free(lo);
		free(hi);
		return bp; /* no figure: keep the paths as the bound */
	}
	memset(lo, 0xff, (np + 1) * sizeof(uint64_t));
	for (size_t i = 0; i < steps->v.n; i++) {
		const struct gpa_step *s = &steps->v.v[i];
		uint64_t a = s->start, b = s->end;
		if (s->gpu_ops) {
			a = s->gpu_start < a ? s->gpu_start : a;
			b = s->gpu_end > b ? s->gpu_end : b;
		}
		if (s->proc >= np) {
			continue;
		}
		if (s->proc != proc) { /* steps come by process, then start */
			proc = s->proc;
			until = 0;
		}
		wall += b > until ? b - (a > until ? a : until) : 0;
		until = b > until ? b : until;
		lo[s->proc] = a < lo[s->proc] ? a : lo[s->proc];
		hi[s->proc] = b > hi[s->proc] ? b : hi[s->proc];
	}
	for (size_t g = 0; g < gpa_gpu_rows(m); g++) {
		uint32_t p = gpa_dev_proc(m, gpa_gpu_dev(m, g));
		if (p < np) {
			uint64_t s = gpa_gpu_start(m, g), e = gpa_gpu_end(m, g);
			lo[p] = s < lo[p] ? s : lo[p];
			hi[p] = e > hi[p] ? e : hi[p];
		}
	}
	for (size_t p = 0; p < np; p++) {
		span += hi[p] > lo[p] ? hi[p] - lo[p] : 0;
	}
	if (span && wall < span) {
		bp = (uint32_t)((double)wall * 10000.0 / (double)span);
	}
	free(lo);
	free(hi);
	return bp;
}

int gpa_verdict_build(const struct gpa_model *m, const struct gpa_steps *steps,
		      const struct gpa_critpath *cp, struct gpa_bound_verdict *out)
{
	size_t n = cp->steps.n;
	bool *warm = calloc(n + 1, sizeof(bool));
	uint64_t *len = malloc((n + 1) * sizeof(uint64_t));
	size_t nlen = 0;
	bool whole = !steps || steps->source == GPA_STEPS_WHOLE;
	int ret = warm && len ? mark_warm(cp, whole, warm) : -GP_ERR_NOMEM;

	memset(out, 0, sizeof(*out));
	out->gpu_ops = gpa_gpu_rows(m);
	out->steps = (uint32_t)n;
	out->whole = whole;
	out->cover_bp = whole ? 10000 : coverage(m, steps);
	for (size_t i = 0; i < n && !ret; i++) {
		const struct gpa_cp_step *s = &cp->steps.v[i];
		out->whole |= s->step == GPA_NONE;
		for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
			out->all_ns[k] += s->now.cat_ns[k];
		}
		if (warm[i]) {
			out->warm_steps++;
			out->warm_ns += path_len(&s->now);
			continue;
		}
		add_step(steps, s, out);
		len[nlen++] = path_len(&s->now);
	}
	if (!ret && steps && !whole) {
		add_preludes(steps, cp, warm, out);
	}
	if (!ret && nlen) {
		qsort(len, nlen, sizeof(*len), cmp_u64);
		out->step_median_ns = len[nlen / 2];
	}
	if (!ret) {
		choose(out);
	}
	free(warm);
	free(len);
	return ret;
}
