/* SPDX-License-Identifier: MIT */
/*
 * Tests of what the model takes from imported traces: the processes of an
 * nsys export kept apart, correlation within a process, profiler overhead.
 * On the real exports in ../shared/anchors (skipped when absent).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "tests/unit/test.h"

#include <sqlite3.h>
#include <stdio.h>

static bool load_anchor(struct gpa_model *m, const char *sub, const char *file)
{
	const char *dir = test_anchors(sub);
	char path[PATH_MAX], err[512];
	const char *p = path;

	if (!dir) {
		printf("  (no anchors directory: skipped)\n");
		return false;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (gpa_model_load(m, &p, 1, NULL, err, sizeof(err))) {
		TFAIL("%s: %s", path, err);
		return false;
	}
	return true;
}

/* One number from a query on an anchor. */
static int64_t query(const char *sub, const char *file, const char *sql)
{
	char path[PATH_MAX];
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int64_t n = -1;

	snprintf(path, sizeof(path), "%s/%s", test_anchors(sub), file);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
		n = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

/* The process of the thread that made API call a. */
static uint32_t api_proc(const struct gpa_model *m, uint32_t a)
{
	return m->threads.v[gpa_api_thread(m, a)].proc;
}

/*
 * Two ranks, one GPU each, in one export: two processes, each device's work
 * launched from its own process only, every launch found, busy under 100 %.
 */
TEST(model_nsys_two_processes)
{
	struct gpa_model m;

	if (!load_anchor(&m, "nsys", "mfu_2gpu_before.sqlite")) {
		return;
	}
	CHECK_EQ_U(m.procs.n, 2);
	CHECK_EQ_U(m.procs.v[0].pid, 144);
	CHECK_EQ_U(m.procs.v[1].pid, 145);
	CHECK_EQ_U(m.devs.n, 2);
	size_t linked[2] = {0, 0};
	for (size_t i = 0; i < m.kern.n; i++) {
		uint32_t p = gpa_dev_proc(&m, gpa_kern_dev(&m, i));
		if (m.kern.api[i] == GPA_NONE) {
			continue;
		}
		linked[p]++;
		CHECK_EQ_U(api_proc(&m, m.kern.api[i]), p);
		/* a launch comes before its kernel: no flow arrow runs backwards */
		CHECK(gpa_api_start(&m, m.kern.api[i]) <= gpa_kern_start(&m, i));
	}
	/* every kernel whose launch the export holds in the same process, and no other */
	CHECK_EQ_U(linked[0] + linked[1],
		   (uint64_t)query("nsys", "mfu_2gpu_before.sqlite",
				   "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE EXISTS"
				   " (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE"
				   " r.correlationId = k.correlationId AND"
				   " (r.globalTid >> 24) = (k.globalPid >> 24))"));
	CHECK(linked[0] > 0 && linked[1] > 0);
	for (size_t i = 0; i < m.copy.n; i++) {
		if (m.copy.api[i] != GPA_NONE) {
			CHECK_EQ_U(api_proc(&m, m.copy.api[i]), gpa_dev_proc(&m, m.copy.dev[i]));
		}
	}
	for (size_t d = 0; d < m.devs.n; d++) {
		const struct gpa_dev *dv = &m.devs.v[d];
		uint64_t busy = 0, lo = UINT64_MAX, hi = 0, cover = 0;
		CHECK(dv->gpu_count > 0);
		for (uint32_t k = dv->gpu_first; k < dv->gpu_first + dv->gpu_count; k++) {
			uint64_t s = gpa_gpu_start(&m, k), e = gpa_gpu_end(&m, k);
			lo = s < lo ? s : lo;
			if (e > cover) {
				busy += e - (s > cover ? s : cover);
				cover = e;
			}
			hi = e > hi ? e : hi;
		}
		CHECK(busy <= hi - lo);
	}
	/* PROFILER_OVERHEAD rows, three per rank, each in its own process */
	size_t ovh[2] = {0, 0};
	for (size_t i = 0; i < m.ovh.n; i++) {
		ovh[m.ovh.proc[i]]++;
	}
	CHECK_EQ_U(ovh[0], 3);
	CHECK_EQ_U(ovh[1], 3);
	gpa_model_release(&m);
}

/* A single-process export stays one process with everything in it. */
TEST(model_nsys_one_process)
{
	struct gpa_model m;

	if (!load_anchor(&m, "nsys", "saxpy-mpi-cuda_nsys_perlmutter0.sqlite")) {
		return;
	}
	CHECK_EQ_U(m.procs.n, 1);
	CHECK_EQ_U(m.procs.v[0].pid, 1230493);
	CHECK_EQ_U(m.kern.n, 5);
	gpa_model_release(&m);
}

/* The synthetic export lacks contextId and starts before 0: it loads, every launch linked. */
TEST(model_nsys_synthetic)
{
	struct gpa_model m;

	if (!load_anchor(&m, "nsys-synthetic", "healthy_1pct.sqlite")) {
		return;
	}
	CHECK_EQ_U(m.procs.n, 1);
	CHECK_EQ_U(m.kern.n, 400);
	for (size_t i = 0; i < m.kern.n; i++) {
		CHECK(m.kern.api[i] != GPA_NONE);
	}
	gpa_model_release(&m);
}

/* ------------------------------------------------------------- graphs */

static uint32_t str_of(struct gpt_writer *w, const char *s)
{
	uint32_t id = 0;
	CHECK_EQ_I(gpt_writer_intern_cstr(w, s, &id), 0);
	return id;
}

static void api_at(struct gpt_writer *w, uint64_t t, uint32_t tid, const char *name, uint32_t c)
{
	struct gpt_api a = {.start = t, .end = t + 10, .tid = tid, .domain = GPT_API_RUNTIME,
			    .name = str_of(w, name), .correlation = c};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_API, &a), 0);
}

static void kernel_at(struct gpt_writer *w, uint64_t t, uint32_t c, uint32_t graph)
{
	struct gpt_kernel k = {.start = t, .end = t + 50, .stream = 7, .correlation = c,
			       .name = str_of(w, "k"), .grid_x = 1, .grid_y = 1, .grid_z = 1,
			       .block_x = 32, .block_y = 1, .block_z = 1, .graph_id = graph};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, &k), 0);
}

/*
 * Thread 1: a plain launch (corr 1, one kernel); a capture (begin, a launch
 * that runs nothing, end); a graph launch (corr 5) whose three kernels and
 * one copy share its correlation id, one kernel with graph id 9; thread 2:
 * a second graph launch (corr 8, one kernel), not captured, though thread 1
 * was capturing at that time.
 */
TEST(model_graphs)
{
	char path[512], err[256];
	const char *p = path;
	struct gpt_writer *w = NULL;
	struct gpa_model m;

	snprintf(path, sizeof(path), "%s/graphs.gpz", test_tmpdir());
	REQUIRE(gpt_writer_open(path, NULL, &w) == 0);
	api_at(w, 100, 1, "cudaLaunchKernel_v7000", 1);
	api_at(w, 200, 1, "cudaStreamBeginCapture_v10000", 2);
	api_at(w, 250, 2, "cudaGraphLaunch_v10000", 8);
	api_at(w, 300, 1, "cudaLaunchKernel_v7000", 3);
	api_at(w, 400, 1, "cudaStreamEndCapture_v10000", 4);
	api_at(w, 500, 1, "cudaGraphLaunch_v10000", 5);
	kernel_at(w, 150, 1, 0);
	kernel_at(w, 600, 5, 0);
	kernel_at(w, 700, 5, 9);
	kernel_at(w, 800, 5, 0);
	kernel_at(w, 900, 8, 0);
	struct gpt_memcpy c = {.start = 1000, .end = 1100, .stream = 7, .correlation = 5,
			       .bytes = 64, .copy_kind = 8};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_MEMCPY, &c), 0);
	REQUIRE(gpt_writer_close(w) == 0);
	REQUIRE(gpa_model_load(&m, &p, 1, NULL, err, sizeof(err)) == 0);

	CHECK_EQ_U(m.graph_launches, 2);
	CHECK_EQ_U(m.captures, 1);
	CHECK_EQ_U(m.captured_apis, 1);
	CHECK_EQ_U(m.graph_ops, 5); /* 3 + 1 kernels and the copy */
	for (size_t i = 0; i < m.api.n; i++) {
		const char *name = gpa_model_str(&m, gpa_api_name(&m, i));
		bool captured = gpa_api_start(&m, i) == 300;
		CHECK_EQ_I(!!(gpa_api_flags(&m, i) & GPA_API_CAPTURED), captured);
		CHECK_EQ_I(!!(gpa_api_flags(&m, i) & GPA_API_GRAPH_LAUNCH),
			   strstr(name, "GraphLaunch") != NULL);
		CHECK_EQ_I(!!(gpa_api_flags(&m, i) & GPA_API_CAPTURE), strstr(name, "Capture") != NULL);
	}
	for (size_t i = 0; i < m.gpu.n; i++) {
		uint32_t g = gpa_gpu_graph(&m, i), api = gpa_gpu_api(&m, i);
		REQUIRE(api != GPA_NONE);
		uint64_t launch = gpa_api_start(&m, api);
		if (gpa_gpu_start(&m, i) == 150) {
			CHECK_EQ_U(g, GPA_GRAPH_NONE);
		} else if (gpa_gpu_start(&m, i) == 700) {
			CHECK_EQ_U(g, 9);
		} else {
			CHECK_EQ_U(g, 0); /* by a graph launch, no id in the record */
		}
		/* the graph's work belongs to its launch and that launch's thread */
		if (gpa_gpu_start(&m, i) == 900) {
			CHECK_EQ_U(launch, 250);
			CHECK_EQ_U(m.threads.v[gpa_api_thread(&m, api)].tid, 2);
		} else if (gpa_gpu_start(&m, i) >= 600) {
			CHECK_EQ_U(launch, 500);
		}
	}
	gpa_model_release(&m);
}

/*
 * Real inference traces (AMD, HIP graphs): a replay runs its kernels under
 * the hipGraphLaunch's correlation id; a capture's launches run nothing.
 */
TEST(model_graphs_tracelens)
{
	struct gpa_model m;

	if (!load_anchor(&m, "kineto/tracelens", "vllm_decode_full/graph_execution.json.gz")) {
		return;
	}
	CHECK(m.graph_launches >= 1);
	CHECK_EQ_U(m.captures, 0);
	CHECK(m.graph_ops > m.gpu.n / 2); /* most of a decode step is the graph */
	for (size_t i = 0; i < m.gpu.n; i++) {
		uint32_t api = gpa_gpu_api(&m, i);
		bool by_launch = api != GPA_NONE && (gpa_api_flags(&m, api) & GPA_API_GRAPH_LAUNCH);
		CHECK_EQ_I(gpa_gpu_graph(&m, i) != GPA_GRAPH_NONE, by_launch);
		if (by_launch) {
			CHECK(gpa_api_start(&m, api) <= gpa_gpu_start(&m, i));
		}
	}
	gpa_model_release(&m);

	if (!load_anchor(&m, "kineto/tracelens", "vllm_decode_full/"
			 "graph_capture_rank_0.pt.trace.json.gz")) {
		return;
	}
	CHECK_EQ_U(m.captures, 1);
	CHECK(m.captured_apis > 100); /* hundreds of launches recorded into the graph */
	CHECK_EQ_U(m.graph_launches, 0);
	for (size_t i = 0; i < m.gpu.n; i++) {
		uint32_t api = gpa_gpu_api(&m, i);
		/* nothing launched under capture ran */
		CHECK(api == GPA_NONE || !(gpa_api_flags(&m, api) & GPA_API_CAPTURED));
	}
	gpa_model_release(&m);
}
