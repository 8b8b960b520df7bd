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
	return m->threads.v[m->api.thread[a]].proc;
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
		uint32_t p = gpa_dev_proc(&m, m.kern.dev[i]);
		if (m.kern.api[i] == GPA_NONE) {
			continue;
		}
		linked[p]++;
		CHECK_EQ_U(api_proc(&m, m.kern.api[i]), p);
		/* a launch comes before its kernel: no flow arrow runs backwards */
		CHECK(m.api.start[m.kern.api[i]] <= m.kern.start[i]);
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
			uint64_t s = m.gpu.start[k], e = m.gpu.end[k];
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
