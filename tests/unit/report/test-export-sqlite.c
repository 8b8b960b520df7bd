/* SPDX-License-Identifier: MIT */
/*
 * test-export-sqlite.c - gpr_export_sqlite on a trace written here: names
 * through StringIds, packed globalPid/globalTid, session-relative times,
 * refusing an existing file, no file left after an error.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "report/report.h"
#include "report/export.h"
#include "tests/unit/test.h"

#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

static int load_trace(struct gpa_model *m, char *gpz, size_t len)
{
	struct gpt_writer *w;
	struct gpt_process p = {.pid = 4242, .rank = -1, .phase = 1};
	struct gpt_device d = {.id = 3};
	struct gpt_kernel k = {.start = 5000, .end = 5600, .device = 3, .stream = 7,
			       .correlation = 11, .grid_x = 2, .grid_y = 1, .grid_z = 1,
			       .block_x = 64, .block_y = 1, .block_z = 1, .registers = 32};
	struct gpt_api a = {.start = 4000, .end = 4500, .tid = 77, .domain = GPT_API_RUNTIME,
			    .correlation = 11};
	const char *paths[1] = {gpz};
	char err[256];

	snprintf(gpz, len, "%s/k.gpz", test_tmpdir());
	if (gpt_writer_open(gpz, NULL, &w) || gpt_writer_add(w, GPT_KIND_PROCESS, &p) ||
	    gpt_writer_intern_cstr(w, "NVIDIA H200", &d.name) ||
	    gpt_writer_add(w, GPT_KIND_DEVICE, &d) ||
	    gpt_writer_intern_cstr(w, "_ZN2ns1kIiEEvPf", &k.name) ||
	    gpt_writer_intern_cstr(w, "void ns::k<int>(float*)", &k.demangled) ||
	    gpt_writer_add(w, GPT_KIND_KERNEL, &k) ||
	    gpt_writer_intern_cstr(w, "cudaLaunchKernel_v7000", &a.name) ||
	    gpt_writer_add(w, GPT_KIND_API, &a) || gpt_writer_close(w)) {
		return -1;
	}
	return gpa_model_load(m, paths, 1, NULL, err, sizeof(err));
}

static char *query(const char *db, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *s;
	char *out = NULL;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, sql, -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0)) {
			out = strdup((const char *)sqlite3_column_text(s, 0));
		}
		sqlite3_finalize(s);
	}
	sqlite3_close(h);
	return out ? out : strdup("(none)");
}

#define CHECK_SQL(db, sql, want)                                                                   \
	do {                                                                                       \
		char *got_ = query(db, sql);                                                       \
		CHECK_STR(got_, want);                                                             \
		free(got_);                                                                        \
	} while (0)

TEST(export_sqlite_kernel_and_api)
{
	struct gpa_model m;
	char gpz[512], out[512], err[512];

	REQUIRE(load_trace(&m, gpz, sizeof(gpz)) == 0);
	snprintf(out, sizeof(out), "%s/k.sqlite", test_tmpdir());
	CHECK_EQ_I(gpr_export_sqlite(&m, out, 0, err, sizeof(err)), 0);
	/* Names through StringIds; times from the first event (the API call at 4000). */
	CHECK_SQL(out, "SELECT d.value || '|' || s.value || '|' || g.value || '|' || k.start || '|' "
		       "|| k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds d ON "
		       "d.id = k.demangledName JOIN StringIds s ON s.id = k.shortName JOIN "
		       "StringIds g ON g.id = k.mangledName",
		  "void ns::k<int>(float*)|k|_ZN2ns1kIiEEvPf|1000|1600");
	CHECK_SQL(out, "SELECT deviceId || ',' || streamId || ',' || gridX || ',' || blockX || ',' || "
		       "registersPerThread FROM CUPTI_ACTIVITY_KIND_KERNEL", "3,7,2,64,32");
	/* PID and TID come back with the arithmetic of the nsys documentation. */
	CHECK_SQL(out, "SELECT (globalTid / 16777216 % 16777216) || ',' || (globalTid % 16777216) "
		       "|| ',' || s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON "
		       "s.id = r.nameId WHERE r.correlationId = 11",
		  "4242,77,cudaLaunchKernel_v7000");
	CHECK_SQL(out, "SELECT globalPid / 16777216 % 16777216 FROM CUPTI_ACTIVITY_KIND_KERNEL",
		  "4242");
	CHECK_SQL(out, "SELECT label FROM ENUM_CUDA_MEMCPY_OPER WHERE id = 10", "Peer-to-Peer");
	CHECK_SQL(out, "SELECT name FROM TARGET_INFO_GPU WHERE id = 3", "NVIDIA H200");

	/* An existing file is kept unless forced. */
	CHECK_EQ_I(gpr_export_sqlite(&m, out, 0, err, sizeof(err)), -GP_ERR_IO);
	CHECK_CONTAINS(err, "already exists");
	CHECK_SQL(out, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL", "1");
	CHECK_EQ_I(gpr_export_sqlite(&m, out, GPR_EXPORT_FORCE, err, sizeof(err)), 0);
	CHECK_SQL(out, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL", "1");

	/* An unwritable path fails with the path in the message and leaves nothing. */
	snprintf(out, sizeof(out), "%s/no/such/dir.sqlite", test_tmpdir());
	CHECK_EQ_I(gpr_export_sqlite(&m, out, 0, err, sizeof(err)), -GP_ERR_IO);
	CHECK_CONTAINS(err, "cannot create");
	CHECK(access(out, F_OK) != 0);
	CHECK_EQ_I(gpr_export_sqlite(&m, NULL, 0, err, sizeof(err)), -GP_ERR_API);
	gpa_model_release(&m);
}
