/* SPDX-License-Identifier: MIT */
/*
 * The model's column accessors (analyze/model-access.h) on a hand-written
 * trace: each reads the row the load put there, an optional column reads 0
 * where the column is absent and its value where it is present, and the
 * row counts are the tables'.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "tests/unit/test.h"

#include <stdio.h>

static void add(struct gpt_writer *w, enum gpt_kind kind, const void *rec)
{
	CHECK_EQ_I(gpt_writer_add(w, kind, rec), 0);
}

TEST(model_access_reads_rows_and_optional_columns)
{
	char path[512], err[256] = "";
	struct gpt_writer *w = NULL;
	struct gpa_model m;
	uint32_t name = 0;

	snprintf(path, sizeof(path), "%s/access.gpz", test_tmpdir());
	REQUIRE(gpt_writer_open(path, NULL, &w) == 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "range", &name), 0);
	/* copies written out of order: the table keeps file order, the timeline sorts */
	struct gpt_memcpy c1 = {.start = 500, .end = 700, .device = 0, .stream = 3, .bytes = 4096,
				.copy_kind = 1, .graph_id = 0};
	struct gpt_memcpy c2 = {.start = 100, .end = 150, .device = 0, .stream = 4, .bytes = 64,
				.copy_kind = 2, .graph_id = 17};
	add(w, GPT_KIND_MEMCPY, &c1);
	add(w, GPT_KIND_MEMCPY, &c2);
	struct gpt_memset s1 = {.start = 200, .end = 260, .device = 0, .stream = 3, .bytes = 128,
				.memory_kind = 2};
	add(w, GPT_KIND_MEMSET, &s1);
	/* outer(0..1000) encloses inner(10..20) on thread 7 */
	struct gpt_nvtx outer = {.start = 0, .end = 1000, .type = GPT_NVTX_PUSH_POP,
				 .message = name, .start_tid = 7, .end_tid = 7};
	struct gpt_nvtx inner = {.start = 10, .end = 20, .type = GPT_NVTX_PUSH_POP,
				 .message = name, .start_tid = 7, .end_tid = 7};
	add(w, GPT_KIND_NVTX, &inner);
	add(w, GPT_KIND_NVTX, &outer);
	struct gpt_sync y = {.start = 800, .end = 900, .type = 3, .stream = 3};
	add(w, GPT_KIND_SYNC, &y);
	CHECK_EQ_I(gpt_writer_close(w), 0);

	const char *paths[] = {path};
	REQUIRE(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) == 0);
	CHECK_EQ_U(gpa_copy_rows(&m), 2);
	CHECK_EQ_U(gpa_set_rows(&m), 1);
	CHECK_EQ_U(gpa_nvtx_rows(&m), 2);
	CHECK_EQ_U(gpa_sync_rows(&m), 1);
	CHECK_EQ_U(gpa_kern_rows(&m), 0);
	CHECK_EQ_U(gpa_api_rows(&m), 0);
	CHECK_EQ_U(gpa_mem_rows(&m), 0);
	CHECK_EQ_U(gpa_gpu_rows(&m), 3);
	/* copies in file order */
	CHECK_EQ_U(gpa_copy_start(&m, 0), 500);
	CHECK_EQ_U(gpa_copy_end(&m, 0), 700);
	CHECK_EQ_U(gpa_copy_bytes(&m, 0), 4096);
	CHECK_EQ_U(gpa_copy_stream(&m, 1), 4);
	CHECK_EQ_U(gpa_copy_copy_kind(&m, 1), 2);
	/* the graph column exists (one copy has an id): the other row reads 0 */
	REQUIRE(gpa_copy_has_graph(&m));
	CHECK_EQ_U(gpa_copy_graph(&m, 0), 0);
	CHECK_EQ_U(gpa_copy_graph(&m, 1), 17);
	CHECK_EQ_U(gpa_copy_graph_col(&m)[1], 17);
	/* no memset has one: the column is absent and reads 0 */
	CHECK(!gpa_set_has_graph(&m));
	CHECK(gpa_set_graph_col(&m) == NULL);
	CHECK_EQ_U(gpa_set_graph(&m, 0), 0);
	/* a whole column is the rows, in row order, as the row accessor reads them */
	const uint64_t *starts = gpa_copy_start_col(&m);
	REQUIRE(starts != NULL);
	CHECK_EQ_U(starts[0], 500);
	CHECK_EQ_U(starts[1], 100);
	CHECK_EQ_U(gpa_set_bytes(&m, 0), 128);
	CHECK_EQ_U(gpa_set_memory_kind(&m, 0), 2);
	/* NVTX sorted by start: outer first, inner its child one level down */
	CHECK_EQ_U(gpa_nvtx_start(&m, 0), 0);
	CHECK_EQ_U(gpa_nvtx_end(&m, 1), 20);
	CHECK_EQ_U(gpa_nvtx_parent(&m, 0), GPA_NONE);
	CHECK_EQ_U(gpa_nvtx_parent(&m, 1), 0);
	CHECK_EQ_U(gpa_nvtx_depth(&m, 1), 1);
	CHECK_EQ_U(gpa_nvtx_name(&m, 1), gpa_nvtx_name(&m, 0));
	CHECK(!strcmp(gpa_model_str(&m, gpa_nvtx_name(&m, 0)), "range"));
	CHECK_EQ_U(gpa_nvtx_args(&m, 0), 0); /* absent: no CPU operator arguments */
	CHECK(!gpa_nvtx_has_args(&m));
	CHECK_EQ_U(gpa_nvtx_thread_col(&m)[1], gpa_nvtx_thread(&m, 1));
	CHECK(!gpa_api_has_ret(&m) && !gpa_kern_has_corr(&m));
	CHECK_EQ_U(gpa_sync_type(&m, 0), 3);
	CHECK_EQ_U(gpa_sync_stream(&m, 0), 3);
	CHECK_EQ_U(gpa_sync_api(&m, 0), GPA_NONE); /* no API call has its correlation id */
	/* the timeline: the second copy (100) first, then the memset (200), then the first copy */
	CHECK_EQ_U(gpa_gpu_op(&m, 0), (uint32_t)GPA_GPU_MEMCPY << GPA_GPU_KIND_SHIFT | 1);
	CHECK_EQ_U(gpa_gpu_op(&m, 1), (uint32_t)GPA_GPU_MEMSET << GPA_GPU_KIND_SHIFT | 0);
	CHECK_EQ_U(gpa_gpu_start(&m, 2), gpa_copy_start(&m, 0));
	gpa_model_release(&m);
}
