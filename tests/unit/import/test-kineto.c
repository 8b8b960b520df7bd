// SPDX-License-Identifier: MIT
/*
 * Tests of the Kineto JSON importer on small hand-written traces: every
 * record it writes is read back from the .gpz and compared field by field.
 */
#include "base/compat.h"
#include "import/import.h"
#include "import/import-test.h"
#include "tests/unit/test.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define MAXR 16

struct got {
	struct gpt_reader *r;
	int ret;
	char err[512];
	struct gpt_kernel k[MAXR];
	struct gpt_memcpy c[MAXR];
	struct gpt_memset s[MAXR];
	struct gpt_api a[MAXR];
	struct gpt_sync y[MAXR];
	struct gpt_nvtx n[MAXR];
	struct gpt_process p[MAXR];
	struct gpt_device d[MAXR];
	struct gpt_thread t[MAXR];
	struct gpt_clock clk[MAXR];
	struct gpt_nccl nc_[MAXR];
	struct gpt_extcorr x[MAXR];
	size_t nk, nc, ns, na, ny, nn, np, nd, nt, nclk, nnccl, nx;
};

static void write_file(const char *path, const char *text, bool gz)
{
	if (gz) {
		gzFile f = gzopen(path, "wb");
		REQUIRE(f != NULL);
		CHECK(gzwrite(f, text, (unsigned)strlen(text)) == (int)strlen(text));
		gzclose(f);
	} else {
		FILE *f = fopen(path, "wb");
		REQUIRE(f != NULL);
		fputs(text, f);
		fclose(f);
	}
}

#define TAKE(arr, n, type)                                                                         \
	for (uint32_t i = 0; i < ch.count && (n) < MAXR; i++) {                                    \
		memcpy(&(arr)[(n)++], (const char *)ch.records + i * sizeof(type), sizeof(type));  \
	}

/* Imports text (gzip-compressed when gz) and reads every record back into g. */
static void import(struct got *g, const char *text, bool gz)
{
	char json[600], gpz[600];
	struct gpt_writer *w = NULL;
	struct gpt_chunk ch;
	int rc;

	memset(g, 0, sizeof(*g));
	snprintf(json, sizeof(json), "%s/in.json%s", test_tmpdir(), gz ? ".gz" : "");
	snprintf(gpz, sizeof(gpz), "%s/out.gpz", test_tmpdir());
	write_file(json, text, gz);
	REQUIRE(gpt_writer_open(gpz, NULL, &w) == 0);
	g->ret = gpa_import_kineto(json, w, g->err, sizeof(g->err));
	CHECK_EQ_I(gpt_writer_close(w), 0);
	REQUIRE(gpt_reader_open(gpz, &g->r) == 0);
	while ((rc = gpt_reader_next(g->r, &ch)) == 1) {
		switch (ch.kind) {
		case GPT_KIND_KERNEL: TAKE(g->k, g->nk, struct gpt_kernel); break;
		case GPT_KIND_MEMCPY: TAKE(g->c, g->nc, struct gpt_memcpy); break;
		case GPT_KIND_MEMSET: TAKE(g->s, g->ns, struct gpt_memset); break;
		case GPT_KIND_API: TAKE(g->a, g->na, struct gpt_api); break;
		case GPT_KIND_SYNC: TAKE(g->y, g->ny, struct gpt_sync); break;
		case GPT_KIND_NVTX: TAKE(g->n, g->nn, struct gpt_nvtx); break;
		case GPT_KIND_PROCESS: TAKE(g->p, g->np, struct gpt_process); break;
		case GPT_KIND_DEVICE: TAKE(g->d, g->nd, struct gpt_device); break;
		case GPT_KIND_THREAD: TAKE(g->t, g->nt, struct gpt_thread); break;
		case GPT_KIND_CLOCK: TAKE(g->clk, g->nclk, struct gpt_clock); break;
		case GPT_KIND_NCCL: TAKE(g->nc_, g->nnccl, struct gpt_nccl); break;
		case GPT_KIND_EXTCORR: TAKE(g->x, g->nx, struct gpt_extcorr); break;
		default: break;
		}
	}
	CHECK_EQ_I(rc, 0);
}

static const char *S(struct got *g, uint32_t id)
{
	return gpt_reader_string(g->r, id);
}

static void done(struct got *g)
{
	gpt_reader_free(g->r);
}

/* A modern (2024) trace: relative fractional ts, base at the end, every category. */
static const char modern[] =
	"{\n"
	"  \"schemaVersion\": 1,\n"
	"  \"deviceProperties\": [\n"
	"    {\"id\": 0, \"name\": \"NVIDIA H100\", \"totalGlobalMem\": 85029158912,\n"
	"     \"computeMajor\": 9, \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024,\n"
	"     \"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536,\n"
	"     \"regsPerMultiprocessor\": 65536, \"warpSize\": 32, \"sharedMemPerBlock\": 49152,\n"
	"     \"sharedMemPerMultiprocessor\": 233472, \"numSms\": 132,\n"
	"     \"sharedMemPerBlockOptin\": 232448}\n"
	"  ],\n"
	"  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8,\n"
	"     \"pg_config\": [{\"pg_name\": \"0\", \"ranks\": [0, 1]}]},\n"
	"  \"cuda_runtime_version\": 12040,\n"
	"  \"traceEvents\": [\n"
	"  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#7\", \"pid\": 4242,"
	" \"tid\": 4243, \"ts\": 1000.5, \"dur\": 100.25, \"args\": {\"External id\": 1}},\n"
	"  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 4242, \"tid\": 4243,"
	" \"ts\": 1001.001, \"dur\": 10, \"args\": {\"Input Dims\": [[2, 3], [3, 4]]}},\n"
	"  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 4242,"
	" \"tid\": 4243, \"ts\": 1002, \"dur\": 3.5, \"args\": {\"cbid\": 211, \"correlation\": 99,"
	" \"External id\": 2}},\n"
	"  {\"ph\": \"s\", \"id\": 99, \"pid\": 4242, \"tid\": 4243, \"ts\": 1002, \"cat\": \"ac2g\","
	" \"name\": \"ac2g\"},\n"
	"  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sgemm_128x64\", \"pid\": 0, \"tid\": 7,"
	" \"ts\": 1005.123, \"dur\": 20.001, \"args\": {\"queued\": 0, \"device\": 0, \"context\": 1,"
	" \"stream\": 7, \"correlation\": 99, \"registers per thread\": 128, \"shared memory\": 8192,"
	" \"blocks per SM\": 0.5, \"grid\": [66, 2, 1], \"block\": [256, 1, 1],"
	" \"est. achieved occupancy %\": 25}},\n"
	"  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\","
	" \"pid\": 0, \"tid\": 7, \"ts\": 1030, \"dur\": 2, \"args\": {\"device\": 0, \"context\": 1,"
	" \"stream\": 7, \"correlation\": 100, \"bytes\": 4096, \"memory bandwidth (GB/s)\": 2.048}},\n"
	"  {\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0,"
	" \"tid\": 7, \"ts\": 1033, \"dur\": 0.5, \"args\": {\"device\": 0, \"stream\": 7,"
	" \"correlation\": 101, \"bytes\": 512}},\n"
	"  {\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Sync\", \"pid\": 0, \"tid\": 7,"
	" \"ts\": 1040, \"dur\": 5, \"args\": {\"cuda_sync_kind\": \"stream\", \"stream\": 7,"
	" \"correlation\": 102, \"device\": 0}},\n"
	"  {\"ph\": \"X\", \"cat\": \"cuda_driver\", \"name\": \"cuLaunchKernelEx\", \"pid\": 4242,"
	" \"tid\": 4244, \"ts\": 1050, \"dur\": 1, \"args\": {\"correlation\": 103}},\n"
	"  {\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"## fwd ##\", \"pid\": 0,"
	" \"tid\": 7, \"ts\": 1005, \"dur\": 30, \"args\": {\"External id\": 1}},\n"
	"  {\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"ProfilerStep#7\","
	" \"pid\": 0, \"tid\": 7, \"ts\": 1005, \"dur\": 90, \"args\": {}},\n"
	"  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(10): step\","
	" \"pid\": 4242, \"tid\": 4243, \"ts\": 999, \"dur\": 200, \"args\": {\"Python id\": 1}},\n"
	"  {\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", \"pid\": \"Spans\","
	" \"tid\": \"PyTorch Profiler\", \"ts\": 990, \"dur\": 300},\n"
	"  {\"ph\": \"X\", \"cat\": \"something_new\", \"name\": \"x\", \"pid\": 1, \"tid\": 1,"
	" \"ts\": 1, \"dur\": 1, \"args\": {\"deep\": {\"er\": [1, {\"a\": null}]}}},\n"
	"  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"s\": \"t\","
	" \"pid\": 4242, \"tid\": 4243, \"ts\": 1001},\n"
	"  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 990, \"pid\": 4242, \"tid\": 0,"
	" \"args\": {\"name\": \"python3.11\"}},\n"
	"  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 990, \"pid\": 4242, \"tid\": 4243,"
	" \"args\": {\"name\": \"thread 4243 (python3.11)\"}},\n"
	"  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 990, \"pid\": 0, \"tid\": 7,"
	" \"args\": {\"name\": \"stream 7\"}}\n"
	"  ],\n"
	"  \"traceName\": \"t.json\", \"displayTimeUnit\": \"ms\",\n"
	"  \"baseTimeNanoseconds\": 1711964646000000000\n"
	"}\n";

#define B 1711964646000000000ull

static void check_modern(struct got *g)
{
	CHECK_EQ_I(g->ret, 0);
	CHECK_STR(g->err, "");

	REQUIRE(g->nk == 1);
	CHECK_EQ_U(g->k[0].start, B + 1005123);
	CHECK_EQ_U(g->k[0].end, B + 1005123 + 20001);
	CHECK_EQ_U(g->k[0].device, 0);
	CHECK_EQ_U(g->k[0].context, 1);
	CHECK_EQ_U(g->k[0].stream, 7);
	CHECK_EQ_U(g->k[0].correlation, 99);
	CHECK_STR(S(g, g->k[0].name), "sgemm_128x64");
	CHECK_EQ_I(g->k[0].grid_x, 66);
	CHECK_EQ_I(g->k[0].grid_y, 2);
	CHECK_EQ_I(g->k[0].grid_z, 1);
	CHECK_EQ_I(g->k[0].block_x, 256);
	CHECK_EQ_I(g->k[0].block_y, 1);
	CHECK_EQ_I(g->k[0].block_z, 1);
	CHECK_EQ_U(g->k[0].registers, 128);
	CHECK_EQ_I(g->k[0].static_smem, 8192);

	REQUIRE(g->nc == 1);
	CHECK_EQ_U(g->c[0].start, B + 1030000);
	CHECK_EQ_U(g->c[0].end, B + 1032000);
	CHECK_EQ_U(g->c[0].bytes, 4096);
	CHECK_EQ_U(g->c[0].copy_kind, 1); /* HtoD */
	CHECK_EQ_U(g->c[0].src_kind, 1);  /* pageable */
	CHECK_EQ_U(g->c[0].dst_kind, 3);  /* device */
	CHECK_EQ_U(g->c[0].correlation, 100);
	CHECK_EQ_U(g->c[0].stream, 7);

	REQUIRE(g->ns == 1);
	CHECK_EQ_U(g->s[0].start, B + 1033000);
	CHECK_EQ_U(g->s[0].end, B + 1033500);
	CHECK_EQ_U(g->s[0].bytes, 512);
	CHECK_EQ_U(g->s[0].memory_kind, 3);
	CHECK_EQ_U(g->s[0].correlation, 101);

	REQUIRE(g->na == 2);
	CHECK_EQ_U(g->a[0].start, B + 1002000);
	CHECK_EQ_U(g->a[0].end, B + 1005500);
	CHECK_EQ_U(g->a[0].tid, 4243);
	CHECK_EQ_U(g->a[0].domain, GPT_API_RUNTIME);
	CHECK_EQ_U(g->a[0].cbid, 211);
	CHECK_EQ_U(g->a[0].correlation, 99);
	CHECK_STR(S(g, g->a[0].name), "cudaLaunchKernel");
	CHECK_EQ_U(g->a[1].domain, GPT_API_DRIVER);
	CHECK_EQ_U(g->a[1].tid, 4244);
	CHECK_STR(S(g, g->a[1].name), "cuLaunchKernelEx");

	REQUIRE(g->ny == 1);
	CHECK_EQ_U(g->y[0].type, 3);
	CHECK_EQ_U(g->y[0].stream, 7);
	CHECK_EQ_U(g->y[0].correlation, 102);
	CHECK_EQ_U(g->y[0].end - g->y[0].start, 5000);

	REQUIRE(g->nn == 4);
	CHECK_STR(S(g, g->n[0].message), "ProfilerStep#7");
	CHECK_STR(S(g, g->n[0].domain), "user_annotation");
	CHECK_EQ_U(g->n[0].type, GPT_NVTX_PUSH_POP);
	CHECK_EQ_U(g->n[0].start, B + 1000500);
	CHECK_EQ_U(g->n[0].end, B + 1100750);
	CHECK_EQ_U(g->n[0].start_tid, 4243);
	CHECK_EQ_U(g->n[0].end_tid, 4243);
	CHECK_STR(S(g, g->n[1].message), "aten::mm");
	CHECK_STR(S(g, g->n[1].domain), "cpu_op");
	CHECK_EQ_U(g->n[1].start, B + 1001001);
	CHECK_STR(S(g, g->n[2].message), "## fwd ##");
	CHECK_STR(S(g, g->n[2].domain), "gpu_user_annotation");
	CHECK_EQ_U(g->n[2].type, GPT_NVTX_START_END);
	CHECK_EQ_U(g->n[2].start_tid, 0);
	CHECK_EQ_U(g->n[2].payload, 7);
	CHECK_STR(S(g, g->n[3].domain), "python_function");

	REQUIRE(g->np == 1);
	CHECK_EQ_U(g->p[0].pid, 4242);
	CHECK_EQ_I(g->p[0].rank, 3);
	CHECK_EQ_I(g->p[0].world_size, 8);
	CHECK_EQ_U(g->p[0].cuda_runtime_version, 12040);
	CHECK_STR(S(g, g->p[0].exe), "python3.11");
	CHECK_EQ_U(g->p[0].ts, B + 999000);

	REQUIRE(g->nd == 1);
	CHECK_EQ_U(g->d[0].id, 0);
	CHECK_STR(S(g, g->d[0].name), "NVIDIA H100");
	CHECK_EQ_U(g->d[0].cc_major, 9);
	CHECK_EQ_U(g->d[0].cc_minor, 0);
	CHECK_EQ_U(g->d[0].num_sms, 132);
	CHECK_EQ_U(g->d[0].global_mem_bytes, 85029158912ull);
	CHECK_EQ_U(g->d[0].warp_size, 32);
	CHECK_EQ_U(g->d[0].max_threads_per_block, 1024);
	CHECK_EQ_U(g->d[0].max_threads_per_sm, 2048);
	CHECK_EQ_U(g->d[0].max_warps_per_sm, 64);
	CHECK_EQ_U(g->d[0].max_regs_per_block, 65536);
	CHECK_EQ_U(g->d[0].max_smem_per_block, 49152);
	CHECK_EQ_U(g->d[0].max_smem_per_sm, 233472);
	CHECK_EQ_U(g->d[0].max_smem_per_block_optin, 232448);

	REQUIRE(g->nt == 1); /* the stream's "thread" name is not a thread */
	CHECK_EQ_U(g->t[0].tid, 4243);
	CHECK_STR(S(g, g->t[0].name), "thread 4243 (python3.11)");

	REQUIRE(g->nclk == 1);
	CHECK_EQ_U(g->clk[0].ts, g->clk[0].realtime);
	CHECK_EQ_U(g->clk[0].ts, B + 999000);
}

TEST(kineto_modern_plain)
{
	struct got g;

	import(&g, modern, false);
	check_modern(&g);
	done(&g);
}

TEST(kineto_modern_gzip)
{
	struct got g;

	import(&g, modern, true);
	check_modern(&g);
	done(&g);
}

/* Absolute epoch microseconds with three decimals: nanoseconds kept exactly. */
TEST(kineto_fractional_exact)
{
	struct got g;

	import(&g, "{\"traceEvents\": [\n"
		   "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7,"
		   " \"ts\": 1712345678901.123, \"dur\": 0.999, \"args\": {\"correlation\": 5}},\n"
		   "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7,"
		   " \"ts\": 1712345678901999.0, \"dur\": 1.0005, \"args\": {}},\n"
		   "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7,"
		   " \"ts\": 1.7123456789011234e15, \"dur\": 1e-3, \"args\": {}},\n"
		   "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7,"
		   " \"ts\": 1712345678901000.0004, \"dur\": 0.0006, \"args\": {}}\n"
		   "]}",
	       false);
	CHECK_EQ_I(g.ret, 0);
	REQUIRE(g.nk == 4);
	CHECK_EQ_U(g.k[0].start, 1712345678901123ull);
	CHECK_EQ_U(g.k[0].end, 1712345678901123ull + 999);
	CHECK_EQ_U(g.k[0].correlation, 5);
	CHECK_EQ_U(g.k[1].start, 1712345678901999000ull);
	CHECK_EQ_U(g.k[1].end - g.k[1].start, 1001); /* 1000.5 ns rounds up */
	CHECK_EQ_U(g.k[2].start, 1712345678901123400ull);
	CHECK_EQ_U(g.k[2].end - g.k[2].start, 1);
	CHECK_EQ_U(g.k[3].start, 1712345678901000000ull);
	CHECK_EQ_U(g.k[3].end - g.k[3].start, 1);
	/* The earliest time (20 days after 1970) is not a wall-clock time: no anchor. */
	CHECK_EQ_U(g.nclk, 0);
	CHECK_EQ_U(g.p[0].rank, -1);
	done(&g);
}

/* The base given before the events, PyTorch 1.8 names: "Kernel", "stream 7", "Runtime". */
TEST(kineto_old_era_and_early_base)
{
	struct got g;

	import(&g, "{\"baseTimeNanoseconds\": 1000000000,\n\"traceEvents\": [\n"
		   "{\"ph\": \"X\", \"cat\": \"Runtime\", \"name\": \"cudaLaunchKernel\","
		   " \"pid\": 77, \"tid\": 78, \"ts\": 5, \"dur\": 1,"
		   " \"args\": {\"correlation\": 3, \"external id\": 9}},\n"
		   "{\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"old\", \"pid\": 1,"
		   " \"tid\": \"stream 7\", \"ts\": 10, \"dur\": 2, \"args\": {\"correlation\": 3}},\n"
		   "{\"ph\": \"X\", \"cat\": \"Memcpy\", \"name\": \"Memcpy DtoH (Device -> Pinned)\","
		   " \"pid\": 1, \"tid\": \"stream 7\", \"ts\": 12, \"dur\": 2,"
		   " \"args\": {\"bytes\": 8}},\n"
		   "{\"ph\": \"X\", \"cat\": \"Operator\", \"name\": \"aten::add\", \"pid\": 77,"
		   " \"tid\": 78, \"ts\": 4, \"dur\": 3}\n"
		   "]}",
	       false);
	CHECK_EQ_I(g.ret, 0);
	REQUIRE(g.nk == 1 && g.na == 1 && g.nc == 1 && g.nn == 1);
	CHECK_EQ_U(g.k[0].start, 1000010000ull);
	CHECK_EQ_U(g.k[0].stream, 7);
	CHECK_EQ_U(g.k[0].device, 1);
	CHECK_EQ_U(g.k[0].correlation, 3);
	CHECK_EQ_U(g.a[0].tid, 78);
	CHECK_EQ_U(g.c[0].copy_kind, 2);
	CHECK_EQ_U(g.c[0].src_kind, 3);
	CHECK_EQ_U(g.c[0].dst_kind, 2);
	CHECK_STR(S(&g, g.n[0].domain), "Operator");
	CHECK_EQ_U(g.p[0].pid, 77);
	done(&g);
}

static void bad(const char *text, bool gz, int want, const char *msg)
{
	struct got g;

	import(&g, text, gz);
	CHECK_EQ_I(g.ret, want);
	CHECK_CONTAINS(g.err, "in.json");
	CHECK_CONTAINS(g.err, msg);
	done(&g);
}

TEST(kineto_bad_input)
{
	bad("", false, -GP_ERR_FORMAT, "line 1");
	bad("hello world", false, -GP_ERR_FORMAT, "line 1");
	bad("[1, 2, 3]", false, -GP_ERR_FORMAT, "top level is not an object");
	bad("{\"schemaVersion\": 1}", false, -GP_ERR_FORMAT, "no \"traceEvents\"");
	bad("{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\",\n",
	    false, -GP_ERR_TRUNCATED, "line 3");
	bad("{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\",\n",
	    true, -GP_ERR_TRUNCATED, "ends early");
	bad("{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
	    " \"ts\": \"12\", \"dur\": 1}]}", false, -GP_ERR_FORMAT, "line 2");
	bad("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
	    " \"ts\": 12, \"dur\": 1},\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
	    " \"ts\": 12}]}", false, -GP_ERR_FORMAT, "line 2");
	bad("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
	    " \"ts\": 1e400, \"dur\": 1}]}", false, -GP_ERR_RANGE, "bad \"ts\"");
	bad("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
	    " \"ts\": 99999999999999999999, \"dur\": 1}]}", false, -GP_ERR_RANGE, "bad \"ts\"");
	bad("{\"traceEvents\": {}}", false, -GP_ERR_FORMAT, "must be an array");
	bad("{\"traceEvents\": [1]}", false, -GP_ERR_FORMAT, "must be objects");
	bad("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": [1], \"name\": \"k\"}]}", false,
	    -GP_ERR_FORMAT, "\"cat\" must be");
	bad("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1,"
	    " \"dur\": 1}]} trailing", false, -GP_ERR_FORMAT, "line 1");
	bad("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
	    " \"ts\": 5, \"dur\": 1}], \"baseTimeNanoseconds\": \"soon\"}", false,
	    -GP_ERR_FORMAT, "baseTimeNanoseconds");
	bad("{\"traceEvents\": [], \"distributedInfo\": {\"rank\": 99999999999}}", false,
	    -GP_ERR_RANGE, "absurd rank");
	/* gzip magic with garbage behind it */
	bad("\x1f\x8b garbage", false, -GP_ERR_FORMAT, "gzip");

	char deep[300];
	memset(deep, '[', sizeof(deep) - 1);
	deep[0] = '{';
	memcpy(deep + 1, "\"a\":", 4);
	deep[sizeof(deep) - 1] = 0;
	bad(deep, false, -GP_ERR_FORMAT, "nesting");
}

TEST(kineto_missing_file)
{
	struct gpt_writer *w = NULL;
	char err[256], gpz[600];

	snprintf(gpz, sizeof(gpz), "%s/o.gpz", test_tmpdir());
	REQUIRE(gpt_writer_open(gpz, NULL, &w) == 0);
	CHECK_EQ_I(gpa_import_kineto("/nonexistent/x.json", w, err, sizeof(err)), -GP_ERR_IO);
	CHECK_CONTAINS(err, "/nonexistent/x.json");
	CHECK_EQ_I(gpa_import_kineto(NULL, w, err, sizeof(err)), -GP_ERR_API);
	gpt_writer_close(w);
}

/* A file several MiB long with long names, to cross read-chunk boundaries. */
TEST(kineto_many_events)
{
	char json[600], gpz[600], err[512];
	struct gpt_writer *w = NULL;
	struct gpt_writer_stats st;
	FILE *f;
	const int n = 20000;

	snprintf(json, sizeof(json), "%s/big.json", test_tmpdir());
	snprintf(gpz, sizeof(gpz), "%s/big.gpz", test_tmpdir());
	f = fopen(json, "w");
	REQUIRE(f != NULL);
	fputs("{\"traceEvents\":[", f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kernel_%0200d\","
			   "\"pid\":0,\"tid\":7,\"ts\":%d.%03d,\"dur\":1.5,\"args\":{\"correlation\":%d}}",
			i ? ",\n" : "", i % 100, 1700000000 + i, i % 1000, i);
	}
	fputs("],\"baseTimeNanoseconds\":1711964646000000000}", f);
	fclose(f);
	REQUIRE(gpt_writer_open(gpz, NULL, &w) == 0);
	CHECK_EQ_I(gpa_import_kineto(json, w, err, sizeof(err)), 0);
	CHECK_EQ_I(gpt_writer_flush(w), 0);
	gpt_writer_get_stats(w, &st);
	CHECK_EQ_U(st.records[GPT_KIND_KERNEL], n);
	CHECK_EQ_U(st.strings <= 110, 1);
	gpt_writer_close(w);
}

/*
 * Relative times with "baseTimeNanoseconds" after the events: n kernels
 * (ts i us + 0.5 us, dur 1.25 us) and a CPU op, converted, every record's
 * times read back exactly. With few records the writer holds them until the
 * base comes; past the importer's 4 MiB bound (30,000 kernels: 200 bytes
 * each) it reads ahead for the base instead. Both must give the same times.
 */
static void relative_base(int n, const char *tail)
{
	char json[600], gpz[600], err[512];
	struct gpt_writer *w = NULL;
	struct gpt_reader *r = NULL;
	struct gpt_chunk ch;
	const uint64_t base = 1711964646000000000ull;
	FILE *f;
	int rc, nk = 0, nn = 0;

	snprintf(json, sizeof(json), "%s/rel.json", test_tmpdir());
	snprintf(gpz, sizeof(gpz), "%s/rel.gpz", test_tmpdir());
	f = fopen(json, "w");
	REQUIRE(f != NULL);
	fputs("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,"
	      "\"tid\":2,\"ts\":3.001,\"dur\":4}", f);
	for (int i = 0; i < n; i++) {
		fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,"
			   "\"tid\":7,\"ts\":%d.5,\"dur\":1.25,\"args\":{\"correlation\":%d}}",
			i % 10, 10 + i, i + 1);
	}
	fprintf(f, "]%s}", tail);
	fclose(f);
	REQUIRE(gpt_writer_open(gpz, NULL, &w) == 0);
	CHECK_EQ_I(gpa_import_kineto(json, w, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_EQ_I(gpt_writer_close(w), 0);
	REQUIRE(gpt_reader_open(gpz, &r) == 0);
	while ((rc = gpt_reader_next(r, &ch)) == 1) {
		for (uint32_t i = 0; i < ch.count; i++) {
			if (ch.kind == GPT_KIND_KERNEL) {
				const struct gpt_kernel *k = (const struct gpt_kernel *)ch.records + i;
				uint64_t want = base + (uint64_t)(10 + nk) * 1000 + 500;
				if (k->start != want || k->end != want + 1250 ||
				    k->correlation != (uint32_t)nk + 1) {
					CHECK_EQ_U(k->start, want);
					CHECK_EQ_U(k->end, want + 1250);
					CHECK_EQ_U(k->correlation, nk + 1);
					break;
				}
				nk++;
			} else if (ch.kind == GPT_KIND_NVTX) {
				const struct gpt_nvtx *v = (const struct gpt_nvtx *)ch.records + i;
				CHECK_EQ_U(v->start, base + 3001);
				CHECK_EQ_U(v->end, base + 7001);
				nn++;
			} else if (ch.kind == GPT_KIND_CLOCK) {
				const struct gpt_clock *c = (const struct gpt_clock *)ch.records + i;
				CHECK_EQ_U(c->ts, base + 3001);
			}
		}
	}
	CHECK_EQ_I(rc, 0);
	CHECK_EQ_I(nk, n);
	CHECK_EQ_I(nn, 1);
	gpt_reader_free(r);
}

TEST(kineto_relative_base_held)
{
	relative_base(3000, ",\"baseTimeNanoseconds\":1711964646000000000");
}

TEST(kineto_relative_base_read_ahead)
{
	relative_base(30000, ",\"baseTimeNanoseconds\":1711964646000000000");
}

/* A base that pushes a held time past INT64_MAX: the same error as without holding. */
TEST(kineto_relative_base_out_of_range)
{
	bad("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
	    " \"ts\": 5, \"dur\": 1}], \"baseTimeNanoseconds\": 9223372036854775000}", false,
	    -GP_ERR_RANGE, "timestamp out of range");
	bad("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
	    " \"ts\": 5, \"dur\": 1}], \"baseTimeNanoseconds\": -5001}", false,
	    -GP_ERR_RANGE, "timestamp out of range");
	/* the same base before the events is checked per event */
	bad("{\"baseTimeNanoseconds\": 9223372036854775000, \"traceEvents\": [{\"ph\": \"X\","
	    " \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 5, \"dur\": 1}]}", false,
	    -GP_ERR_RANGE, "timestamp out of range");
}

/*
 * An error while the writer holds relative-time records: the records before
 * it stay in the writer with the base a read ahead finds, as before holding.
 */
TEST(kineto_relative_base_error_keeps_records)
{
	struct got g;

	import(&g, "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
		   " \"pid\": 0, \"tid\": 7, \"ts\": 5, \"dur\": 1},\n{\"ph\": \"X\", \"cat\": \"kernel\","
		   " \"name\": [1]}], \"baseTimeNanoseconds\": 1000000000}", false);
	CHECK_EQ_I(g.ret, -GP_ERR_FORMAT);
	CHECK_CONTAINS(g.err, "line 2");
	REQUIRE(g.nk == 1);
	CHECK_EQ_U(g.k[0].start, 1000005000ull);
	CHECK_EQ_U(g.k[0].end, 1000006000ull);
	done(&g);
}

/* Epoch microseconds (pre-2024 traces): the trace clock is the wall clock. */
TEST(kineto_epoch_clock)
{
	struct got g;

	import(&g, "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\","
		   " \"pid\": 5, \"tid\": 6, \"ts\": 1695835535123456, \"dur\": 7}]}",
	       false);
	CHECK_EQ_I(g.ret, 0);
	REQUIRE(g.nclk == 1 && g.nn == 1);
	CHECK_EQ_U(g.clk[0].ts, 1695835535123456000ull);
	CHECK_EQ_U(g.clk[0].realtime, 1695835535123456000ull);
	CHECK_EQ_U(g.p[0].start_realtime, 1695835535123456000ull);
	done(&g);
}

/*
 * NCCL collective args: the CPU op becomes an NCCL record (source 3), its
 * kernel an EXTCORR (CUSTOM2) link from the kernel's correlation to the op.
 */
TEST(kineto_nccl_args)
{
	struct got g;

	import(&g,
	       "{\"distributedInfo\": {\"rank\": 1, \"world_size\": 2},\n"
	       "\"traceEvents\": [\n"
	       "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 5,"
	       " \"tid\": 6, \"ts\": 100.5, \"dur\": 10, \"args\": {\"External id\": 42,"
	       " \"Collective name\": \"allreduce\", \"In msg nelems\": 1000,"
	       " \"Out msg nelems\": 1000, \"Group size\": 2, \"dtype\": \"BFloat16\","
	       " \"Process Group Name\": \"0\", \"Process Group Ranks\": \"[0, 1]\","
	       " \"Seq\": 17}},\n"
	       "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\":"
	       " \"ncclKernel_AllReduce_RING_LL_Max_bfloat16(ncclDevComm*, unsigned long, ncclWork*)\","
	       " \"pid\": 0, \"tid\": 40, \"ts\": 105, \"dur\": 20, \"args\": {\"device\": 3,"
	       " \"stream\": 40, \"correlation\": 9, \"External id\": 42,"
	       " \"Collective name\": \"allreduce\", \"In msg nelems\": 1000,"
	       " \"Out msg nelems\": 1000, \"Group size\": 2, \"dtype\": \"BFloat16\","
	       " \"Process Group Name\": \"0\"}},\n"
	       "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 5,"
	       " \"tid\": 6, \"ts\": 200, \"dur\": 1, \"args\": {\"Collective name\": \"wait\"}},\n"
	       "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 5,"
	       " \"tid\": 6, \"ts\": 300, \"dur\": 1, \"args\": {\"Collective name\": \"reduce_scatter\","
	       " \"In msg nelems\": 800, \"Out msg nelems\": 400, \"dtype\": \"Short\","
	       " \"Process Group Name\": \"7\"}}\n"
	       "]}",
	       false);
	CHECK_EQ_I(g.ret, 0);
	REQUIRE(g.nnccl == 2);
	CHECK_STR(S(&g, g.nc_[0].func), "AllReduce");
	CHECK_EQ_U(g.nc_[0].start, 100500);
	CHECK_EQ_U(g.nc_[0].end, 110500);
	CHECK_EQ_U(g.nc_[0].count, 1000);
	CHECK_EQ_U(g.nc_[0].datatype, 9); /* ncclBfloat16 */
	CHECK_EQ_U(g.nc_[0].bytes, 2000);
	CHECK_EQ_I(g.nc_[0].rank, 1);
	CHECK_EQ_I(g.nc_[0].nranks, 2);
	CHECK_EQ_I(g.nc_[0].root, -1);
	CHECK_EQ_U(g.nc_[0].seq, 17);
	CHECK_EQ_U(g.nc_[0].external_id, 42);
	CHECK_EQ_U(g.nc_[0].tid, 6);
	CHECK_EQ_U(g.nc_[0].stream, 0);
	CHECK_EQ_U(g.nc_[0].reduce_op, 255);
	CHECK_EQ_U(g.nc_[0].source, 3);
	CHECK(g.nc_[0].comm_hash != 0);
	/* the kernel: a CUSTOM2 link from its correlation to the op's external id */
	REQUIRE(g.nx == 1);
	CHECK_EQ_U(g.x[0].external_kind, 5);
	CHECK_EQ_U(g.x[0].external_id, 42);
	CHECK_EQ_U(g.x[0].correlation, 9);
	/* "wait" is not an NCCL operation; reduce-scatter counts its output; Short is not an NCCL type */
	CHECK_STR(S(&g, g.nc_[1].func), "ReduceScatter");
	CHECK_EQ_U(g.nc_[1].count, 400);
	CHECK_EQ_U(g.nc_[1].datatype, 255);
	CHECK_EQ_U(g.nc_[1].bytes, 0);
	CHECK(g.nc_[1].comm_hash != g.nc_[0].comm_hash);
	/* the CPU ops are still NVTX ranges and the kernel a kernel */
	CHECK_EQ_U(g.nn, 3);
	CHECK_EQ_U(g.nk, 1);
	done(&g);
}

/* Epoch microseconds with decimals and no base are marked for HTA's doubles; others not. */
TEST(kineto_epoch_decimals_mark)
{
	struct got g;

	import(&g,
	       "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0,"
	       " \"tid\": 7, \"ts\": 1712195495519689.047, \"dur\": 2}]}",
	       false);
	CHECK_EQ_I(g.ret, 0);
	REQUIRE(g.np == 1);
	CHECK_STR(S(&g, g.p[0].settings), GPA_KINETO_SETTINGS_EPOCH_DECIMALS);
	done(&g);
	/* whole microseconds: doubles hold them exactly, no mark */
	import(&g,
	       "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0,"
	       " \"tid\": 7, \"ts\": 1712195495519689, \"dur\": 2}]}",
	       false);
	REQUIRE(g.np == 1);
	CHECK_STR(S(&g, g.p[0].settings), "pytorch-profiler");
	done(&g);
	/* relative decimals with a base: no mark */
	import(&g,
	       "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0,"
	       " \"tid\": 7, \"ts\": 5.5, \"dur\": 2}], \"baseTimeNanoseconds\": 1700000000000000000}",
	       false);
	REQUIRE(g.np == 1);
	CHECK_STR(S(&g, g.p[0].settings), "pytorch-profiler");
	done(&g);
}

/* ---- the fast path against the token loop */

struct both {
	int ret;
	char err[512];
	uint8_t *gpz; /* the written file, its "created" time and header CRC zeroed */
	size_t len;
};

static void read_whole(const char *path, uint8_t **p, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;

	*p = NULL;
	*len = 0;
	REQUIRE(f != NULL);
	REQUIRE(fstat(fileno(f), &st) == 0);
	*p = malloc((size_t)st.st_size + 1);
	REQUIRE(*p != NULL);
	*len = fread(*p, 1, (size_t)st.st_size, f);
	fclose(f);
}

/* Imports path with the fast path on or off into a plain level-0 file. */
static void import_with(const char *path, bool fast, struct both *b)
{
	struct gpt_writer_opts o = {.level = 0};
	struct gpt_writer *w = NULL;
	char gpz[600];

	snprintf(gpz, sizeof(gpz), "%s/fast%d.gpz", test_tmpdir(), fast);
	REQUIRE(gpt_writer_open(gpz, &o, &w) == 0);
	gpa_import_kineto_fast_path(fast);
	b->ret = gpa_import_kineto(path, w, b->err, sizeof(b->err));
	gpa_import_kineto_fast_path(true);
	gpt_writer_close(w); /* what was written before an error too */
	read_whole(gpz, &b->gpz, &b->len);
	if (b->len >= 32) {
		memset(b->gpz + 20, 0, 12);
	}
}

/* Both paths give the same result, message and bytes; returns whether they did. */
static bool same_both_ways(const char *path)
{
	struct both a, b;
	bool same;

	import_with(path, true, &a);
	import_with(path, false, &b);
	same = a.ret == b.ret && strcmp(a.err, b.err) == 0 && a.len == b.len &&
	       memcmp(a.gpz, b.gpz, a.len) == 0;
	if (!same) {
		printf("  %s: fast ret %d \"%s\" %zu bytes; token loop ret %d \"%s\" %zu bytes\n",
		       path, a.ret, a.err, a.len, b.ret, b.err, b.len);
	}
	free(a.gpz);
	free(b.gpz);
	return same;
}

static int anchor_files, anchor_differ;

static int each_anchor(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t n = strlen(path);

	(void)st;
	(void)ftw;
	if (type == FTW_F && ((n > 5 && strcmp(path + n - 5, ".json") == 0) ||
			      (n > 8 && strcmp(path + n - 8, ".json.gz") == 0))) {
		anchor_files++;
		anchor_differ += !same_both_ways(path);
	}
	return 0;
}

/* Every real Kineto trace: the fast path writes the very bytes the token loop does. */
TEST(kineto_fast_path_equals_token_loop_on_anchors)
{
	const char *dir = test_anchors("kineto");

	if (!dir) {
		printf("  (no anchors directory: skipped)\n");
		return;
	}
	anchor_files = anchor_differ = 0;
	CHECK_EQ_I(nftw(dir, each_anchor, 16, FTW_PHYS), 0);
	CHECK_EQ_I(anchor_files >= 20, 1);
	CHECK_EQ_I(anchor_differ, 0);
}

/*
 * Damaged JSON: the modern trace above and a real anchor (when there) cut
 * at many places and with bytes overwritten by characters that matter to a
 * JSON reader; each variant must give the same error, place and records
 * both ways. Deterministic (a fixed xorshift seed).
 */
static void damaged_both_ways(const uint8_t *text, size_t len, uint64_t seed, int *variants,
			      int *differ)
{
	static const uint8_t repl[] = {'"', '\\', '{', '}', '[', ']', ',', ':', '0', '-', '.',
				       'e', 'x', ' ', '\n', 0x01, 0x80, 0xc3, 0xff, 't'};
	char path[600];
	uint8_t *v = malloc(len + 1);
	uint64_t x = seed;

	REQUIRE(v != NULL);
	snprintf(path, sizeof(path), "%s/damaged.json", test_tmpdir());
	for (int i = 0; i < 160; i++) {
		size_t n = len;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		memcpy(v, text, len);
		if (i < 60) {
			n = (size_t)(x % len); /* cut */
		} else {
			for (int j = 0; j < 1 + i % 3; j++) { /* one to three bytes replaced */
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				v[x % len] = repl[(x >> 32) % sizeof(repl)];
			}
		}
		FILE *f = fopen(path, "wb");
		REQUIRE(f != NULL);
		CHECK_EQ_U(fwrite(v, 1, n, f), n);
		fclose(f);
		(*variants)++;
		*differ += !same_both_ways(path);
	}
	free(v);
}

TEST(kineto_fast_path_equals_token_loop_on_damaged_json)
{
	int variants = 0, differ = 0;
	const char *dir = test_anchors("kineto");

	damaged_both_ways((const uint8_t *)modern, strlen(modern), 0x9e3779b97f4a7c15ull,
			  &variants, &differ);
	if (dir) {
		/* a real trace of every event category, 2,245 events, decompressed here */
		char path[PATH_MAX];
		uint8_t *text = NULL;
		size_t len = 0, cap = 0;
		snprintf(path, sizeof(path),
			 "%s/hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz", dir);
		gzFile g = gzopen(path, "rb");
		if (g) {
			int got;
			do {
				if (cap - len < 65536) {
					cap = cap ? cap * 2 : 1 << 20;
					text = realloc(text, cap);
					REQUIRE(text != NULL);
				}
				got = gzread(g, text + len, 65536);
				len += got > 0 ? (size_t)got : 0;
			} while (got > 0);
			gzclose(g);
			damaged_both_ways(text, len, 0x2545f4914f6cdd1dull, &variants, &differ);
		}
		free(text);
	}
	CHECK_EQ_I(variants >= 160, 1);
	CHECK_EQ_I(differ, 0);
}

/* A kernel run by a CUDA graph carries "graph id" and "graph node id" in newer traces. */
TEST(kineto_graph_ids)
{
	struct got g;

	import(&g,
	       "{\"traceEvents\": [\n"
	       "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaGraphLaunch\", \"pid\": 5,"
	       " \"tid\": 6, \"ts\": 100, \"dur\": 10, \"args\": {\"correlation\": 9}},\n"
	       "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7,"
	       " \"ts\": 120, \"dur\": 5, \"args\": {\"device\": 0, \"stream\": 7,"
	       " \"correlation\": 9, \"graph id\": 3, \"graph node id\": 4294967301}},\n"
	       "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7,"
	       " \"ts\": 130, \"dur\": 5, \"args\": {\"device\": 0, \"stream\": 7,"
	       " \"correlation\": 10}}\n"
	       "]}",
	       false);
	CHECK_EQ_I(g.ret, 0);
	REQUIRE(g.nk == 2);
	CHECK_EQ_U(g.k[0].graph_id, 3);
	CHECK_EQ_U(g.k[0].graph_node_id, 4294967301ull);
	CHECK_EQ_U(g.k[1].graph_id, 0);
	CHECK_EQ_U(g.k[1].graph_node_id, 0);
	done(&g);
}

/*
 * A CPU op's recorded inputs become one signature string, sections in the
 * order D, T, S, C whatever the file's order, without blanks; an escaped
 * string goes through the token loop and keeps its escape; an object among
 * the inputs drops the signature; ops without inputs have none.
 */
TEST(kineto_cpu_op_signature)
{
	static const char text[] =
		"{\"traceEvents\": [\n"
		" {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1,"
		"  \"ts\": 10, \"dur\": 5, \"args\": {\"Concrete Inputs\": [\"\", \"\"],"
		"  \"Input type\": [\"float\", \"float\"], \"Input Dims\": [[64, 128], [128, 32]],"
		"  \"Input Strides\": [[128, 1], [32, 1]], \"External id\": 3}},\n"
		" {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::cat\", \"pid\": 1, \"tid\": 1,"
		"  \"ts\": 20, \"dur\": 5, \"args\": {\"Input Dims\": [[[2, 3], [2, 3]], []],"
		"  \"Input type\": [\"TensorList\", \"Scalar\"], \"Concrete Inputs\": [\"\", \"a\\\"b\"]}},\n"
		" {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::odd\", \"pid\": 1, \"tid\": 1,"
		"  \"ts\": 30, \"dur\": 5, \"args\": {\"Input Dims\": [{\"x\": 1}]}},\n"
		" {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::none\", \"pid\": 1, \"tid\": 1,"
		"  \"ts\": 40, \"dur\": 5, \"args\": {\"Input Dims\": null}},\n"
		" {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ann\", \"pid\": 1, \"tid\": 1,"
		"  \"ts\": 50, \"dur\": 5, \"args\": {\"Input Dims\": [[1]]}}\n"
		"]}\n";
	struct got g;

	import(&g, text, false);
	CHECK_EQ_I(g.ret, 0);
	REQUIRE(g.nn == 5);
	CHECK_STR(S(&g, g.n[0].args), "D=[[64,128],[128,32]] T=[\"float\",\"float\"] "
				      "S=[[128,1],[32,1]] C=[\"\",\"\"]");
	CHECK_STR(S(&g, g.n[1].args), "D=[[[2,3],[2,3]],[]] T=[\"TensorList\",\"Scalar\"] "
				      "C=[\"\",\"a\\\"b\"]");
	CHECK_EQ_U(g.n[2].args, 0);
	CHECK_EQ_U(g.n[3].args, 0);
	CHECK_EQ_U(g.n[4].args, 0); /* annotations keep no signature */
	done(&g);
}

/*
 * "ac2g" flows give a correlation to the launch calls and GPU ops that have
 * no "correlation" arg, whether the flow comes before or after its event;
 * an op with one keeps it; a flow of another category, or none, gives 0.
 */
TEST(kineto_ac2g_flows)
{
	struct got g;

	import(&g,
	       "{\"traceEvents\": [\n"
	       "{\"ph\": \"f\", \"id\": 8, \"pid\": 0, \"tid\": 7, \"ts\": 1080, \"cat\": \"ac2g\","
	       " \"name\": \"ac2g\", \"bp\": \"e\"},\n"
	       "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1,"
	       " \"tid\": 1, \"ts\": 1010, \"dur\": 10},\n"
	       "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kA\", \"pid\": 0, \"tid\": 7,"
	       " \"ts\": 1030, \"dur\": 50, \"args\": {\"stream\": 7}},\n"
	       "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kB\", \"pid\": 0, \"tid\": 7,"
	       " \"ts\": 1080, \"dur\": 70},\n"
	       "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kC\", \"pid\": 0, \"tid\": 7,"
	       " \"ts\": 1200, \"dur\": 5, \"args\": {\"correlation\": 3}},\n"
	       "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD\", \"pid\": 0,"
	       " \"tid\": 7, \"ts\": 1300, \"dur\": 5},\n"
	       "{\"ph\": \"s\", \"id\": 9, \"pid\": 0, \"tid\": 7, \"ts\": 1300, \"cat\": \"fwdbwd\","
	       " \"name\": \"fwdbwd\"},\n"
	       "{\"ph\": \"s\", \"id\": 7, \"pid\": 1, \"tid\": 1, \"ts\": 1010, \"cat\": \"ac2g\","
	       " \"name\": \"ac2g\"},\n"
	       "{\"ph\": \"f\", \"id\": 7, \"pid\": 0, \"tid\": 7, \"ts\": 1030, \"cat\": \"ac2g\","
	       " \"name\": \"ac2g\", \"bp\": \"e\"}\n"
	       "], \"baseTimeNanoseconds\": 1711964646000000000}",
	       false);
	CHECK_EQ_I(g.ret, 0);
	REQUIRE(g.na == 1 && g.nk == 3 && g.nc == 1);
	CHECK_EQ_U(g.a[0].correlation, 7);
	CHECK_EQ_U(g.a[0].start, 1711964646000000000ull + 1010000);
	for (size_t i = 0; i < g.nk; i++) {
		const char *n = S(&g, g.k[i].name);
		uint32_t want = strcmp(n, "kA") == 0 ? 7 : strcmp(n, "kB") == 0 ? 8 : 3;
		CHECK_EQ_U(g.k[i].correlation, want);
		if (want == 7) {
			CHECK_EQ_U(g.k[i].start, 1711964646000000000ull + 1030000);
			CHECK_EQ_U(g.k[i].end, 1711964646000000000ull + 1080000);
		}
	}
	CHECK_EQ_U(g.c[0].correlation, 0);
	CHECK_EQ_U(g.c[0].start, 1711964646000000000ull + 1300000);
	done(&g);
}

/* A held op timed before the base, which a read ahead settles mid-file, gets it too. */
TEST(kineto_ac2g_flows_base_read_ahead)
{
	char json[600], gpz[600], err[512];
	struct gpt_writer *w = NULL;
	struct gpt_reader *r = NULL;
	struct gpt_chunk ch;
	const uint64_t base = 1711964646000000000ull;
	FILE *f;
	int rc, found = 0;

	snprintf(json, sizeof(json), "%s/flow.json", test_tmpdir());
	snprintf(gpz, sizeof(gpz), "%s/flow.gpz", test_tmpdir());
	f = fopen(json, "w");
	REQUIRE(f != NULL);
	fputs("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"held\",\"pid\":0,"
	      "\"tid\":7,\"ts\":5,\"dur\":2}", f);
	for (int i = 0; i < 30000; i++) {
		fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
			   "\"tid\":7,\"ts\":%d,\"dur\":1,\"args\":{\"correlation\":%d}}",
			10 + i, i + 100);
	}
	fputs(",\n{\"ph\":\"f\",\"id\":42,\"pid\":0,\"tid\":7,\"ts\":5,\"cat\":\"ac2g\"}"
	      "],\"baseTimeNanoseconds\":1711964646000000000}", f);
	fclose(f);
	REQUIRE(gpt_writer_open(gpz, NULL, &w) == 0);
	CHECK_EQ_I(gpa_import_kineto(json, w, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_EQ_I(gpt_writer_close(w), 0);
	REQUIRE(gpt_reader_open(gpz, &r) == 0);
	while ((rc = gpt_reader_next(r, &ch)) == 1) {
		for (uint32_t i = 0; ch.kind == GPT_KIND_KERNEL && i < ch.count; i++) {
			const struct gpt_kernel *k = (const struct gpt_kernel *)ch.records + i;
			if (k->correlation == 42) {
				CHECK_EQ_U(k->start, base + 5000);
				CHECK_EQ_U(k->end, base + 7000);
				found++;
			}
		}
	}
	CHECK_EQ_I(rc, 0);
	CHECK_EQ_I(found, 1);
	gpt_reader_free(r);
}
