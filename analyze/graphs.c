/* SPDX-License-Identifier: MIT */
/*
 * graphs.c - CUDA and HIP graphs in the model: which API calls launch a graph,
 * begin or end a stream capture, or were made under capture (and so ran
 * nothing on the GPU), and which GPU ops a graph ran. model.h says what the
 * analyses get.
 */
#include "base/compat.h"
#include "analyze/model.h"

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

uint32_t gpa_gpu_api(const struct gpa_model *m, size_t i)
{
	uint32_t r = m->gpu.row[i];

	switch (m->gpu.kind[i]) {
	case GPA_GPU_KERNEL:
		return m->kern.api[r];
	case GPA_GPU_MEMCPY:
		return m->copy.api[r];
	default:
		return m->set.api[r];
	}
}

uint32_t gpa_gpu_graph(const struct gpa_model *m, size_t i)
{
	uint32_t r = m->gpu.row[i], g, api;

	switch (m->gpu.kind[i]) {
	case GPA_GPU_KERNEL:
		g = m->kern.graph[r];
		break;
	case GPA_GPU_MEMCPY:
		g = m->copy.graph[r];
		break;
	default:
		g = m->set.graph[r];
		break;
	}
	if (g) {
		return g;
	}
	api = gpa_gpu_api(m, i);
	return api != GPA_NONE && (m->api.flags[api] & GPA_API_GRAPH_LAUNCH) ? 0 : GPA_GRAPH_NONE;
}

int gpa_graphs_link(struct gpa_model *m)
{
	size_t nstr = m->strs.off.n + 1;
	uint8_t *kind = calloc(nstr, 1);     /* per API name: api_kind + 1, 0 not yet */
	uint8_t *capturing = calloc(m->threads.n + 1, 1); /* per thread: inside a capture */

	if (!kind || !capturing) {
		free(kind);
		free(capturing);
		return -GP_ERR_NOMEM;
	}
	/* API rows are in start order: a thread's calls after its begin and before its end. */
	for (size_t i = 0; i < m->api.n; i++) {
		uint32_t name = m->api.name[i], t = m->api.thread[i];
		if (!kind[name]) {
			kind[name] = (uint8_t)(api_kind(gpa_model_str(m, name)) + 1);
		}
		uint8_t k = (uint8_t)(kind[name] - 1);
		m->api.flags[i] = (uint8_t)(k & ~0x80);
		if (k & GPA_API_CAPTURE) {
			capturing[t] = (k & 0x80) != 0;
			m->captures += (k & 0x80) != 0;
			continue;
		}
		if (capturing[t]) {
			m->api.flags[i] |= GPA_API_CAPTURED;
			m->captured_apis++;
		} else if (k & GPA_API_GRAPH_LAUNCH) {
			m->graph_launches++;
		}
	}
	for (size_t i = 0; i < m->gpu.n; i++) {
		m->graph_ops += gpa_gpu_graph(m, i) != GPA_GRAPH_NONE;
	}
	free(kind);
	free(capturing);
	return 0;
}
