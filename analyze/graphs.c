/* SPDX-License-Identifier: MIT */
/*
 * graphs.c - CUDA and HIP graphs in the model: which API calls launch a graph,
 * begin or end a stream capture, or were made under capture (and so ran
 * nothing on the GPU), and which GPU ops a graph ran. model.h says what the
 * analyses get.
 */
#include "base/compat.h"
#include "analyze/model-internal.h"

#include <stdlib.h>

/* name starts with one of the prefixes and goes on with nothing, "_" (a variant, a version) */
static bool api_is(const char *name, const char *const *prefixes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(prefixes[i]);
		if (!strncmp(name, prefixes[i], len) && (name[len] == '\0' || name[len] == '_')) {
			return true;
		}
	}
	return false;
}

static uint8_t api_kind(const char *name)
{
	static const char *const launch[] = {"cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch"};
	static const char *const begin[] = {
		"cudaStreamBeginCapture", "cuStreamBeginCapture", "hipStreamBeginCapture",
		"cudaStreamBeginCaptureToGraph", "cuStreamBeginCaptureToGraph",
		"hipStreamBeginCaptureToGraph",
	};
	static const char *const end[] = {"cudaStreamEndCapture", "cuStreamEndCapture",
					  "hipStreamEndCapture"};

	if (api_is(name, launch, GP_ARRAY_SIZE(launch))) {
		return GPA_API_GRAPH_LAUNCH;
	}
	if (api_is(name, begin, GP_ARRAY_SIZE(begin))) {
		return GPA_API_CAPTURE | 0x80; /* 0x80: a begin, cleared below */
	}
	if (api_is(name, end, GP_ARRAY_SIZE(end))) {
		return GPA_API_CAPTURE;
	}
	return 0;
}

uint32_t gpa_gpu_graph(const struct gpa_model *m, size_t i)
{
	uint32_t r = gpa_gpu_row(m, i), g, api;

	switch (gpa_gpu_kind(m, i)) {
	case GPA_GPU_KERNEL:
		g = gpa_col_opt(m->kern.graph, r);
		break;
	case GPA_GPU_MEMCPY:
		g = gpa_col_opt(m->copy.graph, r);
		break;
	default:
		g = gpa_col_opt(m->set.graph, r);
		break;
	}
	if (g) {
		return g;
	}
	api = gpa_gpu_api(m, i);
	return api != GPA_NONE && (gpa_api_flags(m, api) & GPA_API_GRAPH_LAUNCH) ? 0 : GPA_GRAPH_NONE;
}

int gpa_graphs_flag_calls(struct gpa_model *m)
{
	size_t nstr = m->strs.off.n + 1;
	uint8_t *kind = calloc(nstr, 1);     /* per API name: api_kind + 1, 0 not yet */
	uint8_t *capturing = calloc(m->threads.n + 1, 1); /* per thread: inside a capture */

	if (!kind || !capturing) {
		free(kind);
		free(capturing);
		return -GP_ERR_NOMEM;
	}
	/* What a call is by its name: on its site. */
	for (size_t s = 0; s < m->asites.n; s++) {
		uint32_t name = m->asites.v[s].name;
		if (!kind[name]) {
			kind[name] = (uint8_t)(api_kind(gpa_model_str(m, name)) + 1);
		}
		uint8_t k = (uint8_t)(kind[name] - 1);
		m->asites.v[s].flags = (uint8_t)((k & ~0x80) | ((k & 0x80) ? GPA_API_CAPTURE_BEGIN : 0));
	}
	/* API rows are in start order: a thread's calls after its begin and before its end. */
	for (size_t i = 0; i < m->api.n; i++) {
		uint32_t t = gpa_api_thread(m, i);
		uint8_t k = m->asites.v[m->api.site[i]].flags;
		if (k & GPA_API_CAPTURE) {
			capturing[t] = (k & GPA_API_CAPTURE_BEGIN) != 0;
			m->captures += (k & GPA_API_CAPTURE_BEGIN) != 0;
			continue;
		}
		if (capturing[t]) {
			if (!m->api.captured) {
				m->api.captured = calloc(m->api.n, 1);
				if (!m->api.captured) {
					free(kind);
					free(capturing);
					return -GP_ERR_NOMEM;
				}
			}
			m->api.captured[i] = GPA_API_CAPTURED;
			m->captured_apis++;
		} else if (k & GPA_API_GRAPH_LAUNCH) {
			m->graph_launches++;
		}
	}
	free(kind);
	free(capturing);
	return 0;
}

void gpa_graphs_count_ops(struct gpa_model *m)
{
	bool launches = false;

	for (size_t i = 0; i < m->api.n && !launches; i++) {
		launches = (gpa_api_flags(m, i) & GPA_API_GRAPH_LAUNCH) != 0;
	}
	/* no graph id and no graph launch: no op is a graph's (the usual case, in one pass) */
	if (!launches && !m->kern.graph && !m->copy.graph && !m->set.graph) {
		return;
	}
	for (size_t i = 0; i < m->gpu.n; i++) {
		m->graph_ops += gpa_gpu_graph(m, i) != GPA_GRAPH_NONE;
	}
}

/* ---- GPU idle inside stream captures */

struct win {
	uint32_t proc;
	uint64_t a, b;
};

static int cmp_win(const void *x, const void *y)
{
	const struct win *p = x, *q = y;

	if (p->proc != q->proc) {
		return p->proc < q->proc ? -1 : 1;
	}
	return p->a < q->a ? -1 : p->a > q->a;
}

/* Each thread's captures, begin call's start to end call's end (an open one: to the end). */
static int capture_windows(const struct gpa_model *m, struct win **out, size_t *n)
{
	uint64_t *open = calloc(m->threads.n + 1, sizeof(*open)); /* begin + 1, 0 none */
	GP_VEC(struct win) w = {0};
	int ret = open ? 0 : -GP_ERR_NOMEM;

	for (size_t i = 0; !ret && i < m->api.n; i++) {
		uint32_t t = gpa_api_thread(m, i);
		if (!(gpa_api_flags(m, i) & GPA_API_CAPTURE)) {
			continue;
		}
		if (gpa_api_flags(m, i) & GPA_API_CAPTURE_BEGIN) {
			open[t] = gpa_api_start(m, i) + 1;
		} else if (open[t]) {
			struct win x = {m->threads.v[t].proc, open[t] - 1, gpa_api_end(m, i)};
			ret = gp_vec_push(&w, x);
			open[t] = 0;
		}
	}
	for (size_t t = 0; !ret && t < m->threads.n; t++) {
		if (open[t]) {
			struct win x = {m->threads.v[t].proc, open[t] - 1, m->t1};
			ret = gp_vec_push(&w, x);
		}
	}
	free(open);
	if (ret) {
		gp_vec_free(&w);
		return ret;
	}
	gp_qsort(w.v, w.n, sizeof(*w.v), cmp_win);
	*out = w.v;
	*n = w.n;
	return 0;
}

/* Overlap of [a, b) with the sorted, disjoint windows from *k on (moved past those ending by a). */
static uint64_t overlap(const struct win *w, size_t n, size_t *k, uint64_t a, uint64_t b)
{
	uint64_t sum = 0;

	while (*k < n && w[*k].b <= a) {
		(*k)++;
	}
	for (size_t j = *k; j < n && w[j].a < b; j++) {
		uint64_t lo = w[j].a > a ? w[j].a : a, hi = w[j].b < b ? w[j].b : b;
		sum += hi > lo ? hi - lo : 0;
	}
	return sum;
}

/* Idle of device d inside the disjoint sorted windows w (its process's), within its window. */
static uint64_t dev_capture_idle(const struct gpa_model *m, const struct gpa_dev *d,
				 const struct win *w, size_t n)
{
	size_t g0 = d->gpu_first, g1 = d->gpu_first + d->gpu_count, k = 0;
	uint64_t first = gpa_gpu_start(m, g0), last = 0, inside = 0, busy = 0, cs = 0, ce = 0;

	for (size_t g = g0; g < g1; g++) {
		last = gpa_gpu_end(m, g) > last ? gpa_gpu_end(m, g) : last;
	}
	for (size_t j = 0; j < n; j++) {
		uint64_t lo = w[j].a > first ? w[j].a : first, hi = w[j].b < last ? w[j].b : last;
		inside += hi > lo ? hi - lo : 0;
	}
	for (size_t g = g0; g <= g1; g++) {
		if (g < g1 && g > g0 && gpa_gpu_start(m, g) <= ce) {
			ce = gpa_gpu_end(m, g) > ce ? gpa_gpu_end(m, g) : ce;
			continue;
		}
		if (g > g0) {
			busy += overlap(w, n, &k, cs, ce);
		}
		if (g < g1) {
			cs = gpa_gpu_start(m, g);
			ce = gpa_gpu_end(m, g);
		}
	}
	return inside > busy ? inside - busy : 0;
}

int gpa_capture_idle(const struct gpa_model *m, uint64_t *out)
{
	struct win *w = NULL;
	size_t n = 0;
	int ret;

	*out = 0;
	if (!m->captures) {
		return 0;
	}
	ret = capture_windows(m, &w, &n);
	if (ret) {
		return ret;
	}
	/* Merge each process's windows: disjoint and sorted. */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && w[k - 1].proc == w[i].proc && w[i].a <= w[k - 1].b) {
			w[k - 1].b = w[i].b > w[k - 1].b ? w[i].b : w[k - 1].b;
		} else {
			w[k++] = w[i];
		}
	}
	for (size_t d = 0; d < m->devs.n; d++) {
		const struct gpa_dev *dv = &m->devs.v[d];
		size_t lo = 0;
		while (lo < k && w[lo].proc != dv->proc) {
			lo++;
		}
		size_t hi = lo;
		while (hi < k && w[hi].proc == dv->proc) {
			hi++;
		}
		if (dv->gpu_count && hi > lo) {
			*out += dev_capture_idle(m, dv, w + lo, hi - lo);
		}
	}
	free(w);
	return 0;
}
