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

/* Marks the NVTX ranges whose names match re; returns how many. */
static size_t match_names(const struct gpa_model *m, pcre2_code *re, uint8_t *match_by_str)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	size_t n = 0;

	if (!md) {
		return 0;
	}
	/* Names repeat: decide once per distinct string. 0 unknown, 1 no, 2 yes. */
	for (size_t i = 0; i < m->nvtx.n; i++) {
		uint32_t s = m->nvtx.name[i];
		if (!match_by_str[s]) {
			const char *t = gpa_model_str(m, s);
			int rc = pcre2_match(re, (PCRE2_SPTR)t, strlen(t), 0, 0, md, NULL);
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

	for (size_t i = 0; i < m->nvtx.n; i++) {
		if (yes[m->nvtx.name[i]] != 2 || m->nvtx.type[i] == GPT_NVTX_MARK) {
			continue;
		}
		/* Only the outermost matching range of a nest is a step. */
		bool nested = false;
		for (uint32_t p = m->nvtx.parent[i]; p != GPA_NONE; p = m->nvtx.parent[p]) {
			if (yes[m->nvtx.name[p]] == 2) {
				nested = true;
				break;
			}
		}
		if (nested) {
			continue;
		}
		struct gpa_step st = {
			.proc = m->threads.v[m->nvtx.thread[i]].proc,
			.nvtx = (uint32_t)i,
			.name = m->nvtx.name[i],
			.start = m->nvtx.start[i],
			.end = m->nvtx.end[i],
		};
		st.number = number_of(gpa_model_str(m, st.name), ordinal++);
		if (gp_vec_push(&out->v, st)) {
			return -GP_ERR_NOMEM;
		}
	}
	(void)re;
	return 0;
}

static int profiler_steps(const struct gpa_model *m, struct gpa_steps *out)
{
	int64_t ordinal = 0;
	/* open[proc]: start of the open range + 1, or 0 */
	uint64_t *open = calloc(m->procs.n ? m->procs.n : 1, sizeof(*open));

	if (!open) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < m->api.n; i++) {
		const char *name = gpa_model_str(m, m->api.name[i]);
		uint32_t p = m->threads.v[m->api.thread[i]].proc;
		bool start = !strcmp(name, "cudaProfilerStart") || !strcmp(name, "cuProfilerStart");
		bool stop = !strcmp(name, "cudaProfilerStop") || !strcmp(name, "cuProfilerStop");
		if (start && !open[p]) {
			open[p] = m->api.end[i] + 1;
		} else if (stop && open[p]) {
			struct gpa_step st = {.proc = p, .nvtx = GPA_NONE, .name = m->api.name[i],
					      .start = open[p] - 1, .end = m->api.start[i]};
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
#define WIDEN_(tab, procof)                                                                        \
	for (size_t i = 0; i < (tab).n; i++) {                                                     \
		if ((procof) != p) {                                                               \
			continue;                                                                  \
		}                                                                                  \
		st.start = (tab).start[i] < st.start ? (tab).start[i] : st.start;                  \
		st.end = (tab).end[i] > st.end ? (tab).end[i] : st.end;                            \
		any = true;                                                                        \
	}
		WIDEN_(m->gpu, m->devs.v[m->gpu.dev[i]].proc);
		WIDEN_(m->api, m->threads.v[m->api.thread[i]].proc);
		WIDEN_(m->nvtx, m->threads.v[m->nvtx.thread[i]].proc);
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
static uint32_t step_at(const struct gpa_steps *s, const size_t *pfirst, uint32_t p, uint64_t t)
{
	size_t lo = pfirst[p], hi = pfirst[p + 1];

	/* Last step starting at or before t. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v.v[mid].start <= t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
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
	uint32_t r = m->gpu.row[g], a;

	switch (m->gpu.kind[g]) {
	case GPA_GPU_KERNEL:
		a = m->kern.api[r];
		break;
	case GPA_GPU_MEMCPY:
		a = m->copy.api[r];
		break;
	default:
		a = m->set.api[r];
		break;
	}
	*linked = a != GPA_NONE;
	return *linked ? m->api.start[a] : m->gpu.start[g];
}

static int assign(const struct gpa_model *m, struct gpa_steps *s)
{
	size_t np = m->procs.n, ns = s->v.n;
	size_t *pfirst = calloc(np + 1, sizeof(*pfirst));
	struct cur {
		uint64_t start, end;
		uint16_t dev;
		bool open;
	} *cur = calloc(ns ? ns : 1, sizeof(*cur));

	s->gpu_step = malloc((m->gpu.n ? m->gpu.n : 1) * sizeof(*s->gpu_step));
	if (!pfirst || !cur || !s->gpu_step) {
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
	for (size_t g = 0; g < m->gpu.n; g++) {
		bool linked;
		uint64_t t = op_api_start(m, g, &linked);
		uint32_t p = m->devs.v[m->gpu.dev[g]].proc;
		uint32_t k = step_at(s, pfirst, p, t);
		s->gpu_step[g] = k;
		if (!linked) {
			s->unlinked_ops++;
		}
		if (k == GPA_NONE) {
			s->unassigned_ops++;
			continue;
		}
		struct gpa_step *st = &s->v.v[k];
		uint64_t a = m->gpu.start[g], e = m->gpu.end[g];
		if (!st->gpu_ops || a < st->gpu_start) {
			st->gpu_start = a;
		}
		if (!st->gpu_ops || e > st->gpu_end) {
			st->gpu_end = e;
		}
		st->gpu_ops++;
		struct cur *c = &cur[k];
		if (c->open && c->dev == m->gpu.dev[g] && a <= c->end) {
			c->end = e > c->end ? e : c->end;
			continue;
		}
		if (c->open) {
			st->gpu_busy += c->end - c->start;
		}
		*c = (struct cur){a, e, m->gpu.dev[g], true};
	}
	for (size_t k = 0; k < ns; k++) {
		if (cur[k].open) {
			s->v.v[k].gpu_busy += cur[k].end - cur[k].start;
		}
	}
	free(pfirst);
	free(cur);
	return 0;
}

int gpa_steps_find(const struct gpa_model *m, const char *regex, struct gpa_steps *out,
		   char *errbuf, size_t errlen)
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
		if (!re) {
			PCRE2_UCHAR msg[160];
			pcre2_get_error_message(errcode, msg, sizeof(msg));
			snprintf(errbuf, errlen, "bad step pattern '%s' at offset %zu: %s", pat,
				 (size_t)erroff, (char *)msg);
			ret = -GP_ERR_API;
			goto out;
		}
		memset(yes, 0, m->strs.off.n + 2);
		if (match_names(m, re, yes) || regex) {
			break;
		}
		pcre2_code_free(re);
		re = NULL;
		pat = GPA_STEP_PATTERN_DEFAULT;
	}
	if (re) {
		out->pattern = strdup(pat);
		ret = out->pattern ? nvtx_steps(m, re, yes, out) : -GP_ERR_NOMEM;
		out->source = GPA_STEPS_NVTX;
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
	ret = assign(m, out);
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
	if (out->source == GPA_STEPS_NVTX) {
		gp_debug("%zu steps from NVTX ranges matching %s%s", out->v.n, out->pattern,
			 regex ? "" : " (a default pattern)");
	} else {
		gp_debug("%zu steps from %s", out->v.n,
			 out->source == GPA_STEPS_PROFILER ? "profiler start/stop ranges"
							   : "the whole trace of each process");
	}
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
	free(s->gpu_step);
	memset(s, 0, sizeof(*s));
}
