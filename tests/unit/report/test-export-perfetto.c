/* SPDX-License-Identifier: MIT */
/*
 * Tests of the Chrome trace event (Perfetto) export on small hand-written
 * traces: exact microsecond times, every event kind, errors, and output
 * larger than the write buffer.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "report/report.h"
#include "report/export.h"
#include "tests/unit/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct gpt_writer *w;

static uint32_t S(const char *s)
{
	uint32_t id = 0;
	CHECK_EQ_I(gpt_writer_intern_cstr(w, s, &id), 0);
	return id;
}

static void add(enum gpt_kind kind, const void *rec)
{
	CHECK_EQ_I(gpt_writer_add(w, kind, rec), 0);
}

static void add_api(uint64_t start, uint64_t end, uint32_t corr)
{
	struct gpt_api a = {.start = start, .end = end, .tid = 77, .domain = GPT_API_RUNTIME,
			    .cbid = 211, .name = S("cudaLaunchKernel"), .correlation = corr};
	add(GPT_KIND_API, &a);
}

static void add_kernel(uint64_t start, uint64_t end, uint32_t stream, uint32_t corr)
{
	struct gpt_kernel k = {.start = start, .end = end, .device = 0, .stream = stream,
			       .correlation = corr, .name = S("gemm\"k"), .grid_x = 8, .grid_y = 2,
			       .grid_z = 1, .block_x = 128, .block_y = 1, .block_z = 1,
			       .registers = 40, .dynamic_smem = 1024};
	add(GPT_KIND_KERNEL, &k);
}

static void add_nvtx(uint64_t start, uint64_t end, uint8_t type, const char *name)
{
	struct gpt_nvtx n = {.start = start, .end = end, .type = type, .message = S(name),
			     .start_tid = 77, .end_tid = 77};
	add(GPT_KIND_NVTX, &n);
}

static void begin(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", test_tmpdir(), name);
	CHECK_EQ_I(gpt_writer_open(path, NULL, &w), 0);
	struct gpt_process p = {.pid = 4242, .rank = -1, .host = S("h"), .cmdline = S("run"),
				.phase = 1};
	struct gpt_device d = {.id = 0, .name = S("NVIDIA H100")};
	struct gpt_thread t = {.tid = 77, .name = S("main")};
	add(GPT_KIND_PROCESS, &p);
	add(GPT_KIND_DEVICE, &d);
	add(GPT_KIND_THREAD, &t);
}

static void end_load(struct gpa_model *m, const char *path)
{
	char err[256] = "";
	const char *paths[] = {path};

	CHECK_EQ_I(gpt_writer_close(w), 0);
	w = NULL;
	if (gpa_model_load(m, paths, 1, NULL, err, sizeof(err))) {
		TFAIL("load: %s", err);
	}
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f) {
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(len + 1);
	if (buf && fread(buf, 1, len, f) != len) {
		free(buf);
		buf = NULL;
	}
	if (buf) {
		buf[len] = '\0';
	}
	fclose(f);
	return buf;
}

/*
 * Occurrences of needle in hay. One pass: repeated strstr would be
 * quadratic under ASan, whose strstr measures the whole rest of hay.
 */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, k = strlen(needle);

	for (const char *p = hay; *p; p++) {
		if (!strncmp(p, needle, k)) {
			n++;
		}
	}
	return n;
}

/* Exports to NAME.json in the test folder and returns its text (caller frees). */
static char *export(const struct gpa_model *m, const char *name)
{
	char path[512], err[256] = "";

	snprintf(path, sizeof(path), "%s/%s.json", test_tmpdir(), name);
	CHECK_EQ_I(gpr_export_perfetto(m, path, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	return slurp(path);
}

TEST(perfetto_events_exact)
{
	struct gpa_model m;
	char path[512];

	begin("ev.gpz", path, sizeof(path));
	add_nvtx(1000, 9000000, GPT_NVTX_PUSH_POP, "step");
	add_api(1000, 3001, 1);
	add_kernel(1235567, 1240000, 7, 1);
	add_nvtx(2000, 5000, GPT_NVTX_START_END, "io");
	add_nvtx(2500, 2500, GPT_NVTX_MARK, "here");
	struct gpt_loss l = {.ts = 3000, .cause = GPT_LOSS_CUPTI_DROPPED, .count = 5};
	add(GPT_KIND_LOSS, &l);
	end_load(&m, path);

	char *s = export(&m, "ev");
	REQUIRE(s);
	CHECK(!strncmp(s, "{\"traceEvents\":[\n{", 18));
	CHECK_CONTAINS(s, "\n],\"displayTimeUnit\":\"ns\"}\n");
	CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":4242,\"name\":\"process_name\","
			  "\"args\":{\"name\":\"pid 4242 on h\"}}");
	CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":4242,\"tid\":77,\"name\":\"thread_name\","
			  "\"args\":{\"name\":\"main\"}}");
	CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":16777216,\"name\":\"process_name\","
			  "\"args\":{\"name\":\"GPU 0: NVIDIA H100\"}}");
	CHECK_CONTAINS(s, "{\"ph\":\"M\",\"pid\":16777216,\"tid\":7,\"name\":\"thread_name\","
			  "\"args\":{\"name\":\"Stream 7\"}}");
	/* 1234567 ns after t0 = 1234.567 us; 4433 ns long. */
	CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":16777216,\"tid\":7,\"ts\":1234.567,\"dur\":4.433,"
			  "\"cat\":\"kernel\",\"name\":\"gemm\\\"k\",\"args\":{\"correlation\":1,"
			  "\"stream\":7,\"device\":0,\"grid\":\"8x2x1\",\"block\":\"128x1x1\","
			  "\"registers\":40,\"static_smem\":0,\"dynamic_smem\":1024}}");
	CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":4242,\"tid\":77,\"ts\":0.000,\"dur\":2.001,"
			  "\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
			  "\"args\":{\"correlation\":1,\"cbid\":211,\"return\":0}}");
	/* The flow: from the API call's middle to the kernel's. */
	CHECK_CONTAINS(s, "{\"ph\":\"s\",\"pid\":4242,\"tid\":77,\"ts\":1.000,\"id\":1,"
			  "\"cat\":\"launch\",\"name\":\"launch\"}");
	CHECK_CONTAINS(s, "{\"ph\":\"f\",\"pid\":16777216,\"tid\":7,\"ts\":1236.783,\"id\":1,"
			  "\"cat\":\"launch\",\"name\":\"launch\",\"bp\":\"e\"}");
	CHECK_CONTAINS(s, "{\"ph\":\"X\",\"pid\":4242,\"tid\":77,\"ts\":0.000,\"dur\":8999.000,"
			  "\"cat\":\"nvtx\",\"name\":\"step\"}");
	CHECK_CONTAINS(s, "{\"ph\":\"b\",\"pid\":4242,\"tid\":77,\"ts\":1.000,\"id\":");
	CHECK_CONTAINS(s, "\"cat\":\"nvtx\",\"name\":\"io\"}");
	CHECK_EQ_U(count(s, "\"ph\":\"b\""), 1);
	CHECK_EQ_U(count(s, "\"ph\":\"e\""), 1);
	CHECK_CONTAINS(s, ",\"ts\":4.000,\"id\":");
	CHECK_CONTAINS(s, "{\"ph\":\"i\",\"pid\":4242,\"tid\":77,\"ts\":1.500,\"s\":\"t\","
			  "\"cat\":\"nvtx\",\"name\":\"here\"}");
	CHECK_CONTAINS(s, "{\"ph\":\"C\",\"pid\":4242,\"ts\":0.000,\"cat\":\"loss\","
			  "\"name\":\"records lost\",\"args\":{\"cupti-dropped\":5,");
	CHECK_EQ_U(count(s, "\"ph\":\"C\""), 2);
	free(s);
	gpa_model_release(&m);
}

TEST(perfetto_errors)
{
	struct gpa_model m;
	char path[512], out[600], err[256] = "";

	begin("err.gpz", path, sizeof(path));
	add_api(1000, 2000, 1);
	end_load(&m, path);
	snprintf(out, sizeof(out), "%s/no/such/dir/x.json", test_tmpdir());
	CHECK_EQ_I(gpr_export_perfetto(&m, out, err, sizeof(err)), -GP_ERR_IO);
	CHECK_CONTAINS(err, "x.json: cannot create: ");
	CHECK_EQ_I(gpr_export_perfetto(&m, NULL, err, sizeof(err)), -GP_ERR_API);
	CHECK_EQ_I(gpr_export_perfetto(NULL, out, err, sizeof(err)), -GP_ERR_API);
	gpa_model_release(&m);
}

TEST(perfetto_empty_model)
{
	struct gpa_model m;
	char path[512];

	begin("empty.gpz", path, sizeof(path));
	end_load(&m, path);
	char *s = export(&m, "empty");
	REQUIRE(s);
	CHECK_EQ_U(count(s, "\"ph\":\"X\""), 0);
	CHECK_CONTAINS(s, "\"process_name\"");
	CHECK_CONTAINS(s, "],\"displayTimeUnit\":\"ns\"}\n");
	free(s);
	gpa_model_release(&m);
}

/* More than the 4 MiB write buffer: every event arrives, in one valid sequence. */
TEST(perfetto_streams_large_output)
{
	struct gpa_model m;
	char path[512];
	const size_t n = 20000;

	begin("big.gpz", path, sizeof(path));
	for (size_t i = 0; i < n; i++) {
		add_api(1000 + i * 1000, 1500 + i * 1000, (uint32_t)i + 1);
	}
	for (size_t i = 0; i < n; i++) {
		add_kernel(2000 + i * 1000, 2900 + i * 1000, 7 + (uint32_t)(i % 3), (uint32_t)i + 1);
	}
	end_load(&m, path);
	REQUIRE(!test_failures);
	CHECK_EQ_U(m.kern.n, n);

	char *s = export(&m, "big");
	REQUIRE(s);
	CHECK(strlen(s) > (5u << 20));
	CHECK_EQ_U(count(s, "\"cat\":\"kernel\""), n);
	CHECK_EQ_U(count(s, "\"cat\":\"cuda_runtime\""), n);
	CHECK_EQ_U(count(s, "{\"ph\":\"s\""), n);
	CHECK_EQ_U(count(s, "{\"ph\":\"f\""), n);
	CHECK_EQ_U(count(s, "\"name\":\"thread_name\""), 4);
	/* Events are separated by ",\n" only: no lost or doubled separators at flushes. */
	CHECK_EQ_U(count(s, "\n{"), count(s, "{\"ph\""));
	CHECK_EQ_U(count(s, "}\n{"), 0);
	CHECK_EQ_U(count(s, ",,"), 0);
	/* The last kernel: 2000 + 19999000 - 1000 ns after t0. */
	CHECK_CONTAINS(s, "\"ts\":20000.000,\"dur\":0.900,\"cat\":\"kernel\"");
	free(s);
	gpa_model_release(&m);
}
