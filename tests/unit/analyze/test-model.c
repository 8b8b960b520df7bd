/* SPDX-License-Identifier: MIT */
/*
 * Tests of the analysis model and steps on small hand-written traces with
 * answers worked out by hand.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/steps.h"
#include "tests/tools/gen.h"
#include "tests/unit/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

struct tw {
	struct gpt_writer *w;
	char path[512];
};

static void tw_open(struct tw *t, const char *name)
{
	snprintf(t->path, sizeof(t->path), "%s/%s", test_tmpdir(), name);
	CHECK_EQ_I(gpt_writer_open(t->path, NULL, &t->w), 0);
}

static uint32_t S(struct tw *t, const char *s)
{
	uint32_t id = 0;
	CHECK_EQ_I(gpt_writer_intern_cstr(t->w, s, &id), 0);
	return id;
}

static void add_api(struct tw *t, uint64_t start, uint64_t end, uint32_t tid, const char *name,
		    uint32_t corr, uint8_t domain)
{
	struct gpt_api a = {.start = start, .end = end, .tid = tid, .domain = domain,
			    .name = S(t, name), .correlation = corr};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_API, &a), 0);
}

static void add_kernel(struct tw *t, uint64_t start, uint64_t end, uint32_t dev, uint32_t stream,
		       uint32_t corr, const char *name, int32_t grid)
{
	struct gpt_kernel k = {.start = start, .end = end, .device = dev, .stream = stream,
			       .correlation = corr, .name = S(t, name), .grid_x = grid,
			       .grid_y = 1, .grid_z = 1, .block_x = 128, .block_y = 1, .block_z = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_KERNEL, &k), 0);
}

static void add_nvtx(struct tw *t, uint64_t start, uint64_t end, uint32_t tid, const char *name)
{
	struct gpt_nvtx n = {.start = start, .end = end, .type = GPT_NVTX_PUSH_POP,
			     .message = S(t, name), .start_tid = tid, .end_tid = tid};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_NVTX, &n), 0);
}

static void add_proc(struct tw *t, uint32_t pid, int32_t rank)
{
	struct gpt_process p = {.pid = pid, .rank = rank, .world_size = 2, .host = S(t, "h"),
				.phase = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_PROCESS, &p), 0);
}

static void add_clock(struct tw *t, uint64_t ts, uint64_t realtime)
{
	struct gpt_clock c = {.ts = ts, .realtime = realtime, .phase = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_CLOCK, &c), 0);
}

static void tw_close(struct tw *t)
{
	CHECK_EQ_I(gpt_writer_close(t->w), 0);
}

static int load1(struct gpa_model *m, const char *path)
{
	char err[256] = "";
	const char *paths[] = {path};
	int ret = gpa_model_load(m, paths, 1, NULL, err, sizeof(err));
	if (ret) {
		TFAIL("load: %s", err);
	}
	return ret;
}

/*
 * Two threads; kernels written out of start order on two streams; NVTX
 * nesting outer(0..1000) > inner(100..500) on thread 7; runtime and driver
 * calls sharing a correlation id.
 */
TEST(model_links_and_orders)
{
	struct tw t;
	struct gpa_model m;

	tw_open(&t, "a.gpz");
	add_proc(&t, 100, -1);
	add_nvtx(&t, 100, 500, 7, "inner");
	add_nvtx(&t, 0, 1000, 7, "outer");
	add_api(&t, 150, 190, 7, "cudaLaunchKernel", 1, GPT_API_RUNTIME);
	add_api(&t, 160, 180, 7, "cuLaunchKernel", 1, GPT_API_DRIVER);
	add_api(&t, 600, 640, 7, "cudaLaunchKernel", 2, GPT_API_RUNTIME);
	add_api(&t, 2000, 2040, 9, "cudaLaunchKernel", 3, GPT_API_RUNTIME);
	add_kernel(&t, 3000, 3500, 0, 14, 3, "k3", 10);
	add_kernel(&t, 200, 900, 0, 13, 1, "k1", 10);
	add_kernel(&t, 700, 800, 0, 14, 2, "k1", 10);
	add_kernel(&t, 710, 720, 1, 20, 99, "k1", 20); /* no API: corr 99 unknown */
	tw_close(&t);
	REQUIRE(load1(&m, t.path) == 0);

	CHECK_EQ_U(m.kern.n, 4);
	CHECK_EQ_U(m.api.n, 4);
	CHECK_EQ_U(m.nvtx.n, 2);
	CHECK_EQ_U(m.devs.n, 2);
	CHECK_EQ_U(m.threads.n, 2);
	/* Kernels keep file order; the device timelines are sorted by start. */
	CHECK_EQ_U(gpa_kern_start(&m, 0), 3000);
	CHECK_EQ_U(gpa_kern_start(&m, 1), 200);
	for (size_t i = 1; i < m.gpu.n; i++) {
		CHECK(gpa_gpu_dev(&m, i - 1) < gpa_gpu_dev(&m, i) ||
		      (gpa_gpu_dev(&m, i - 1) == gpa_gpu_dev(&m, i) && gpa_gpu_start(&m, i - 1) <= gpa_gpu_start(&m, i)));
	}
	/* k1 launched twice with the same shape on device 0, once with another on device 1. */
	CHECK_EQ_U(m.funcs.n, 2);
	CHECK_EQ_U(m.shapes.n, 2);
	CHECK_EQ_U(gpa_kern_func(&m, 1), gpa_kern_func(&m, 2));
	CHECK_STR(gpa_model_str(&m, m.funcs.v[gpa_kern_func(&m, 1)].name), "k1");
	/* Correlation: the runtime call (outer, earlier) wins over the driver call. */
	REQUIRE(m.kern.api[1] != GPA_NONE);
	CHECK_STR(gpa_model_str(&m, gpa_api_name(&m, m.kern.api[1])), "cudaLaunchKernel");
	CHECK_EQ_U(gpa_api_start(&m, m.kern.api[1]), 150);
	CHECK_EQ_U(m.kern.api[3], GPA_NONE); /* the device-1 kernel with corr 99 */
	CHECK_EQ_U(gpa_api_start(&m, m.kern.api[0]), 2000);
	/* NVTX: outer first, inner's parent is outer, depth 0 and 1. */
	CHECK_STR(gpa_model_str(&m, m.nvtx.name[0]), "outer");
	CHECK_EQ_U(m.nvtx.parent[0], GPA_NONE);
	CHECK_EQ_U(m.nvtx.parent[1], 0);
	CHECK_EQ_U(m.nvtx.depth[1], 1);
	/* API calls: in inner, in outer only, and on thread 9 in none. */
	CHECK_EQ_U(m.api.nvtx[0], 1);
	CHECK_EQ_U(m.api.nvtx[1], 1);
	CHECK_EQ_U(m.api.nvtx[2], 0);
	CHECK_EQ_U(m.api.nvtx[3], GPA_NONE);
	/* Device timelines: device 0 has 3 ops in start order, device 1 one. */
	CHECK_EQ_U(m.devs.v[0].gpu_count, 3);
	CHECK_EQ_U(m.devs.v[1].gpu_count, 1);
	CHECK_EQ_U(gpa_gpu_start(&m, m.devs.v[0].gpu_first), 200);
	CHECK_EQ_U(gpa_gpu_start(&m, m.devs.v[0].gpu_first + 2), 3000);
	CHECK_EQ_U(gpa_gpu_start(&m, m.devs.v[1].gpu_first), 710);
	CHECK_EQ_U(gpa_gpu_stream(&m, m.devs.v[1].gpu_first), 20);
	CHECK_EQ_U(m.t0, 0);
	CHECK_EQ_U(m.t1, 3500);
	gpa_model_release(&m);
}

/*
 * The device timelines hold only an index: their start and end come from the
 * kind's table, in (device, start, file order). Kernels alternating between
 * two interleaved streams make hundreds of sorted runs (the radix sort); a
 * few out-of-order ones on the other device (the merge of runs); ties keep
 * file order. API return values are a column only once one is nonzero.
 * Durations of 4.3 s and more go to the long lists, which follow the API
 * rows when they are sorted.
 */
TEST(model_timeline_order_and_optional_return)
{
	enum { N = 400 };
	struct tw t;
	struct gpa_model m;

	tw_open(&t, "timeline.gpz");
	for (uint32_t i = 0; i < N; i++) {
		/* device 0: starts 1000 + 10 i on even rows, 995 + 10 i on odd rows, out of order */
		uint64_t s = 1000 + 10 * (uint64_t)i - (i % 2 ? 5 : 0) + (i % 4 == 1 ? 20 : 0);
		add_kernel(&t, s, s + 3, 0, 1 + i % 2, i + 1, "k", (int32_t)i + 1);
	}
	add_kernel(&t, 500, 510, 1, 1, 0, "late", 1001);
	add_kernel(&t, 300, 310, 1, 1, 0, "early", 1002);
	add_kernel(&t, 300, 320, 1, 2, 0, "tie", 1003); /* same start as "early": after it */
	struct gpt_memcpy mc = {.start = 400, .end = 450, .device = 1, .stream = 3, .bytes = 64,
				.copy_kind = 1};
	CHECK_EQ_I(gpt_writer_add(t.w, GPT_KIND_MEMCPY, &mc), 0);
	struct gpt_api a = {.start = 50, .end = 60, .tid = 7, .name = S(&t, "cudaMalloc"),
			    .return_value = 2};
	CHECK_EQ_I(gpt_writer_add(t.w, GPT_KIND_API, &a), 0);
	add_api(&t, 10, 20, 7, "cudaFree", 0, GPT_API_RUNTIME);
	add_kernel(&t, 600, 600 + 6000000000ULL, 1, 1, 0, "long", 1004);
	add_api(&t, 5, 5 + 5000000000ULL, 7, "cudaStreamSynchronize", 0, GPT_API_RUNTIME);
	add_api(&t, 60, 60 + 4294967295ULL, 7, "cudaDeviceSynchronize", 0, GPT_API_RUNTIME);
	add_api(&t, 70, 70 + 4294967294ULL, 7, "cudaEventSynchronize", 0, GPT_API_RUNTIME);
	tw_close(&t);
	REQUIRE(load1(&m, t.path) == 0);
	REQUIRE(m.devs.n == 2);
	CHECK_EQ_U(m.gpu.n, N + 5);
	for (size_t d = 0; d < m.devs.n; d++) {
		size_t f = m.devs.v[d].gpu_first, c = m.devs.v[d].gpu_count;
		for (size_t i = f + 1; i < f + c; i++) {
			CHECK(gpa_gpu_start(&m, i - 1) <= gpa_gpu_start(&m, i));
			if (gpa_gpu_start(&m, i - 1) == gpa_gpu_start(&m, i) &&
			    gpa_gpu_kind(&m, i - 1) == gpa_gpu_kind(&m, i)) {
				CHECK(gpa_gpu_row(&m, i - 1) < gpa_gpu_row(&m, i)); /* file order on ties */
			}
			if (d == 0) { /* every kernel of device 0 ran 3 ns */
				CHECK_EQ_U(gpa_gpu_end(&m, i) - gpa_gpu_start(&m, i), 3);
			}
		}
	}
	/* device 1 (the second seen): early, tie, the copy, late, long */
	size_t f = m.devs.v[1].gpu_first;
	REQUIRE(m.devs.v[1].gpu_count == 5);
	CHECK_EQ_U(gpa_gpu_end(&m, f + 4), 600 + 6000000000ULL);
	CHECK_EQ_U(m.t1, 600 + 6000000000ULL);
	CHECK_EQ_U(m.kern_long.n, 1);
	CHECK_EQ_U(gpa_gpu_start(&m, f), 300);
	CHECK_EQ_U(gpa_gpu_end(&m, f), 310);
	CHECK_EQ_U(gpa_gpu_end(&m, f + 1), 320);
	CHECK_EQ_U(gpa_gpu_kind(&m, f + 2), GPA_GPU_MEMCPY);
	CHECK_EQ_U(gpa_gpu_start(&m, f + 2), 400);
	CHECK_EQ_U(gpa_gpu_end(&m, f + 2), 450);
	CHECK_EQ_U(gpa_gpu_start(&m, f + 3), 500);
	/* device 0: every kernel once, by start */
	size_t f0 = m.devs.v[0].gpu_first;
	REQUIRE(m.devs.v[0].gpu_count == N);
	CHECK_EQ_U(gpa_gpu_start(&m, f0), 1000);
	/* API rows by start: the 5 s sync (5), cudaFree (10), cudaMalloc (50), whose return
	 * is kept, then the calls of 2^32 - 1 ns (long) and 2^32 - 2 ns (not) */
	REQUIRE(m.api.n == 5);
	REQUIRE(m.api.ret != NULL);
	CHECK_EQ_U(gpa_col_opt(m.api.ret, 1), 0);
	CHECK_EQ_U(gpa_col_opt(m.api.ret, 2), 2);
	CHECK_EQ_U(gpa_api_start(&m, 0), 5);
	CHECK_EQ_U(m.api.dur[0], GPA_DUR_LONG);
	CHECK_EQ_U(gpa_api_end(&m, 0), 5 + 5000000000ULL);
	CHECK_EQ_U(gpa_api_dur(&m, 1), 10);
	CHECK_EQ_U(gpa_api_end(&m, 2), 60);
	CHECK_EQ_U(m.api.dur[3], GPA_DUR_LONG);
	CHECK_EQ_U(gpa_api_dur(&m, 3), 4294967295ULL);
	CHECK_EQ_U(m.api.dur[4], 4294967294ULL);
	CHECK_EQ_U(gpa_api_end(&m, 4), 70 + 4294967294ULL);
	CHECK_EQ_U(m.api_long.n, 2);
	gpa_model_release(&m);

	/* Every call successful: no column at all. */
	tw_open(&t, "ok.gpz");
	add_api(&t, 10, 20, 7, "cudaFree", 0, GPT_API_RUNTIME);
	add_api(&t, 30, 40, 7, "cudaFree", 0, GPT_API_RUNTIME);
	tw_close(&t);
	REQUIRE(load1(&m, t.path) == 0);
	CHECK(m.api.ret == NULL);
	CHECK_EQ_U(gpa_col_opt(m.api.ret, 1), 0);
	gpa_model_release(&m);
}

/*
 * Kernels of many streams of one device, each stream in order, the streams
 * interleaved in the file (as CUPTI's buffers hand them over), with equal
 * starts across streams: the timeline is the stable order by (start, file
 * order), found by merging the streams' runs at once (5 streams) or pairwise (12), or, past 63
 * streams, by the radix sort. The answer is the test's own insertion sort.
 */
static void check_streams(unsigned nstreams)
{
	enum { N = 1200 };
	struct tw t;
	struct gpa_model m;
	uint64_t start[N], next[80];
	uint32_t order[N];
	uint64_t x = 12345;

	REQUIRE(nstreams <= 80);
	for (unsigned s = 0; s < nstreams; s++) {
		next[s] = 1000 + 7 * (uint64_t)(s % 2); /* even streams start together */
	}
	tw_open(&t, "streams.gpz");
	for (uint32_t i = 0; i < N; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned s = (unsigned)(x >> 33) % nstreams;
		start[i] = next[s];
		next[s] += 50 + (x >> 20) % 3 * 25; /* in order on its stream */
		add_kernel(&t, start[i], start[i] + 40, 0, 100 + s, i + 1, "k", 1);
	}
	tw_close(&t);
	for (uint32_t i = 0; i < N; i++) { /* stable: a row passes only strictly later starts */
		uint32_t j = i;
		while (j > 0 && start[order[j - 1]] > start[i]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	REQUIRE(load1(&m, t.path) == 0);
	REQUIRE(m.gpu.n == N);
	size_t bad = 0;
	for (uint32_t i = 0; i < N; i++) {
		bad += gpa_gpu_row(&m, i) != order[i];
	}
	CHECK_EQ_U(bad, 0);
	gpa_model_release(&m);
}

TEST(model_timeline_interleaved_streams)
{
	check_streams(5);
	check_streams(12);
	check_streams(70);
}

/*
 * Correlation without an index: one thread's calls with rising ids (gaps
 * between them) found from kernels met in no order, ids below, above and
 * between the calls' finding none; the same trace with a second thread
 * (ids no longer rising with the rows: the index) links the same. NVTX
 * ranges nested on two threads, interleaved in time: each call's innermost
 * range is the deepest of its thread's ranges holding its start.
 */
TEST(model_corr_search_and_nvtx_sweep)
{
	for (int threads = 1; threads <= 2; threads++) {
		struct tw t;
		struct gpa_model m;
		const uint32_t n = 300;

		tw_open(&t, threads == 1 ? "rise1.gpz" : "rise2.gpz");
		for (uint32_t i = 0; i < n; i++) {
			uint32_t tid = threads == 2 && i % 5 == 4 ? 8 : 7;
			/* thread 8's call is made a little before the id order says */
			uint64_t at = 1000 * (uint64_t)i + (tid == 8 ? 0 : 10);
			add_api(&t, at, at + 5, tid, "cudaLaunchKernel", 3 * i + 5, GPT_API_RUNTIME);
		}
		/* per thread: a range per 40 calls, one inside per 10, one inside that */
		for (uint32_t tid = 7; tid <= 8; tid++) {
			for (uint64_t a = 0; a < 1000 * (uint64_t)n; a += 40000) {
				add_nvtx(&t, a + tid, a + 39000, tid, "outer");
				for (uint64_t b = a + 500; b < a + 39000; b += 10000) {
					add_nvtx(&t, b, b + 7000, tid, "mid");
					add_nvtx(&t, b + 2000, b + 3000, tid, "in");
				}
			}
		}
		for (uint32_t k = 0; k < 2 * n; k++) {
			uint32_t x = k * 2654435761u % (3 * n + 20);
			add_kernel(&t, 1000 * (uint64_t)k, 1000 * (uint64_t)k + 50, k % 2, 1, x, "k", 1);
		}
		tw_close(&t);
		REQUIRE(load1(&m, t.path) == 0);
		REQUIRE(m.kern.n == 2 * n && m.api.n == n);
		for (uint32_t k = 0; k < 2 * n; k++) {
			uint32_t x = k * 2654435761u % (3 * n + 20), a = m.kern.api[k];
			if (x >= 5 && (x - 5) % 3 == 0 && (x - 5) / 3 < n) {
				REQUIRE(a != GPA_NONE);
				CHECK_EQ_U(m.api.corr[a], x);
			} else {
				CHECK_EQ_U(a, GPA_NONE);
			}
		}
		for (size_t a = 0; a < m.api.n; a++) {
			uint64_t s = gpa_api_start(&m, a);
			uint32_t th = gpa_api_thread(&m, a), want = GPA_NONE;
			for (size_t r = 0; r < m.nvtx.n; r++) {
				if (m.nvtx.thread[r] == th && m.nvtx.start[r] <= s && s < m.nvtx.end[r] &&
				    (want == GPA_NONE || m.nvtx.depth[r] > m.nvtx.depth[want])) {
					want = (uint32_t)r;
				}
			}
			CHECK_EQ_U(m.api.nvtx[a], want);
		}
		gpa_model_release(&m);
	}
}

/*
 * Kernels keep their function, configuration, stream and device as one
 * site, API calls their name and thread: many sites (more than the load's
 * caches hold, met in no order) each read back as written, each kept once.
 */
TEST(model_sites)
{
	static const char *const names[] = {"k_a", "k_b", "k_c", "k_d", "k_e"};
	static const char *const calls[] = {"cudaLaunchKernel", "cuLaunchKernel", "cudaMemcpyAsync"};
	struct tw t;
	struct gpa_model m;
	const size_t n = 6000;

	tw_open(&t, "sites.gpz");
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = i * 2654435761u; /* the order the sites come in: scattered */
		add_api(&t, 100 * (uint64_t)i, 100 * (uint64_t)i + 10, 100 + x % 7,
			calls[x % 3], i + 1, GPT_API_RUNTIME);
		add_kernel(&t, 100 * (uint64_t)i + 20, 100 * (uint64_t)i + 60, x % 3,
			   x % 400 + (x % 2 ? 0x7fff0000u : 0), i + 1, names[x % 5],
			   (int32_t)(x % 4) + 1);
	}
	tw_close(&t);
	REQUIRE(load1(&m, t.path) == 0);
	REQUIRE(m.kern.n == n && m.api.n == n);
	/* distinct (stream, device, name, grid) and (name, thread) combinations */
	uint8_t *seen = calloc(3u * 400 * 2 * 5 * 4, 1);
	uint8_t aseen[3 * 7] = {0};
	size_t want = 0, awant = 0;
	REQUIRE(seen != NULL);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = i * 2654435761u;
		size_t key = (((x % 3) * 400 + x % 400) * 2 + x % 2) * 20 + (x % 5) * 4 + x % 4;
		want += !seen[key];
		seen[key] = 1;
		awant += !aseen[(x % 3) * 7 + x % 7];
		aseen[(x % 3) * 7 + x % 7] = 1;
		CHECK_EQ_U(gpa_kern_stream(&m, i), x % 400 + (x % 2 ? 0x7fff0000u : 0));
		CHECK_EQ_U(m.devs.v[gpa_kern_dev(&m, i)].id, x % 3);
		CHECK_STR(gpa_model_str(&m, m.funcs.v[gpa_kern_func(&m, i)].name), names[x % 5]);
		CHECK_EQ_U(m.shapes.v[gpa_kern_shape(&m, i)].grid_x, x % 4 + 1);
		CHECK_STR(gpa_model_str(&m, gpa_api_name(&m, i)), calls[x % 3]);
		CHECK_EQ_U(m.threads.v[gpa_api_thread(&m, i)].tid, 100 + x % 7);
		CHECK_EQ_U(m.kern.api[i], i);
	}
	CHECK_EQ_U(m.ksites.n, want);
	CHECK_EQ_U(m.asites.n, awant);
	CHECK(want > 2 * 256); /* more than the caches hold */
	free(seen);
	gpa_model_release(&m);
}

/*
 * A load that drops columns (gpa_load_opts.drop) leaves them NULL and links
 * the same: every kernel to its call. api.corr stays when memory events
 * name calls by correlation.
 */
TEST(model_drop_columns)
{
	struct tw t;
	struct gpa_model full, lean;
	const char *paths[1];
	char err[256] = "";
	struct gpa_load_opts lo = {.drop = GPA_DROP_API_IDS | GPA_DROP_CORR | GPA_DROP_SHAPES};

	tw_open(&t, "drop.gpz");
	for (uint32_t i = 0; i < 50; i++) {
		add_api(&t, 100 * (uint64_t)i, 100 * (uint64_t)i + 10, 7, "cudaLaunchKernel", i + 1,
			GPT_API_RUNTIME);
		add_kernel(&t, 100 * (uint64_t)i + 20, 100 * (uint64_t)i + 60, 0, 1, 50 - i, "k",
			   (int32_t)(i % 3) + 1);
	}
	tw_close(&t);
	paths[0] = t.path;
	REQUIRE(load1(&full, t.path) == 0);
	REQUIRE(gpa_model_load(&lean, paths, 1, &lo, err, sizeof(err)) == 0);
	CHECK(full.kern.corr != NULL && full.api.corr != NULL && full.api.cbid == NULL);
	CHECK(full.api.domain != NULL);
	CHECK(lean.kern.corr == NULL);
	CHECK(lean.api.corr == NULL);
	CHECK(lean.api.cbid == NULL);
	CHECK(lean.api.domain == NULL);
	/* three launch configurations, none when they are dropped */
	CHECK_EQ_U(full.shapes.n, 3);
	CHECK_EQ_U(gpa_kern_shape(&full, 0), 0);
	CHECK_EQ_U(full.shapes.v[gpa_kern_shape(&full, 4)].grid_x, 2);
	CHECK_EQ_U(lean.shapes.n, 0);
	/* a site per configuration (one function, stream and device); one without them */
	CHECK_EQ_U(full.ksites.n, 3);
	CHECK_EQ_U(lean.ksites.n, 1);
	CHECK_EQ_U(full.asites.n, 1);
	for (size_t k = 0; k < 50; k++) {
		CHECK_EQ_U(gpa_kern_shape(&lean, k), 0);
		CHECK_EQ_U(gpa_kern_func(&lean, k), gpa_kern_func(&full, k));
		CHECK_EQ_U(gpa_kern_stream(&lean, k), 1);
		CHECK_EQ_U(full.shapes.v[gpa_kern_shape(&full, k)].grid_x, k % 3 + 1);
	}
	REQUIRE(lean.kern.n == 50 && full.kern.n == 50);
	for (size_t k = 0; k < 50; k++) {
		CHECK_EQ_U(lean.kern.api[k], full.kern.api[k]);
		CHECK_EQ_U(full.api.corr[full.kern.api[k]], full.kern.corr[k]);
	}
	CHECK_EQ_U(gpa_col_opt8(full.api.domain, 3), GPT_API_RUNTIME);
	CHECK_EQ_U(gpa_col_opt8(lean.api.domain, 3), 0);
	gpa_model_release(&full);
	gpa_model_release(&lean);

	/* memory events with a correlation id: api.corr is kept for them */
	tw_open(&t, "dropmem.gpz");
	add_api(&t, 10, 20, 7, "cudaMalloc", 9, GPT_API_RUNTIME);
	struct gpt_memory mr = {.ts = 15, .op = GPT_MEMORY_ALLOC, .address = 4096, .bytes = 64,
				.device_type = 1, .correlation = 9};
	CHECK_EQ_I(gpt_writer_add(t.w, GPT_KIND_MEMORY, &mr), 0);
	tw_close(&t);
	paths[0] = t.path;
	REQUIRE(gpa_model_load(&lean, paths, 1, &lo, err, sizeof(err)) == 0);
	CHECK(lean.mem.corr != NULL);
	REQUIRE(lean.api.corr != NULL);
	CHECK_EQ_U(lean.api.corr[0], 9);
	CHECK(lean.kern.corr == NULL);
	gpa_model_release(&lean);
}

/*
 * Kernel and API starts are 32-bit offsets from a base per block of 64 rows:
 * starts more than 2.1 s before or after their block's first (and the calls'
 * after they are sorted) are kept exactly in the far lists.
 */
TEST(model_starts_far_from_their_block)
{
	enum { N = 150 };
	static const uint64_t odd[] = {1000, 9000000000ULL, 4999999999ULL, 18446744073709551000ULL};
	uint64_t ks[N], as[N];
	struct tw t;
	struct gpa_model m;

	tw_open(&t, "far.gpz");
	for (uint32_t i = 0; i < N; i++) {
		ks[i] = 5000000000ULL + 1000 * (uint64_t)i;
		as[i] = 4000000000ULL + 3000 * (uint64_t)(N - i); /* calls in reverse: sorted anew */
		if (i % 37 == 5) {
			ks[i] = odd[(i / 37) % 4];
			as[i] = odd[(i / 37 + 1) % 4];
		}
		add_kernel(&t, ks[i], ks[i] + 7, 0, 1, 0, "k", 1);
		add_api(&t, as[i], as[i] + 3, 7, "cudaFree", 0, GPT_API_RUNTIME);
	}
	tw_close(&t);
	REQUIRE(load1(&m, t.path) == 0);
	REQUIRE(m.kern.n == N && m.api.n == N);
	size_t kfar = 0, afar = 0;
	for (uint32_t i = 0; i < N; i++) {
		CHECK_EQ_U(gpa_kern_start(&m, i), ks[i]); /* kernels keep file order */
		CHECK_EQ_U(gpa_kern_end(&m, i), ks[i] + 7);
		kfar += m.kern.start_off[i] == GPA_START_FAR;
		afar += m.api.start_off[i] == GPA_START_FAR;
	}
	CHECK_EQ_U(kfar, m.kern_starts.far.n);
	CHECK_EQ_U(afar, m.api_starts.far.n);
	CHECK(kfar >= 3); /* 1000, 9e9 and 2^64 - 616 are far from 5e9 */
	CHECK(afar >= 2);
	/* the calls by start: every start once, in order, each with its own end */
	for (uint32_t i = 0; i < N; i++) {
		CHECK_EQ_U(gpa_api_end(&m, i) - gpa_api_start(&m, i), 3);
		if (i) {
			CHECK(gpa_api_start(&m, i - 1) <= gpa_api_start(&m, i));
		}
		size_t seen = 0, want = 0;
		for (uint32_t j = 0; j < N; j++) {
			seen += as[j] == gpa_api_start(&m, i);
		}
		for (uint32_t j = 0; j < N; j++) {
			want += gpa_api_start(&m, j) == gpa_api_start(&m, i);
		}
		CHECK_EQ_U(seen, want);
	}
	CHECK_EQ_U(gpa_api_start(&m, 0), 1000);
	CHECK_EQ_U(gpa_api_start(&m, N - 1), 18446744073709551000ULL);
	CHECK_EQ_U(m.t0, 1000);
	gpa_model_release(&m);
}

/* Two processes whose clocks differ: their anchors put them on one timeline. */
TEST(model_aligns_processes_by_clock_anchor)
{
	struct tw a, b;
	struct gpa_model m;
	char err[256];

	tw_open(&a, "r0.gpz");
	add_proc(&a, 1, 0);
	add_clock(&a, 1000, 5000000000ULL); /* trace 1000 = realtime 5 s */
	add_kernel(&a, 2000, 2100, 0, 7, 0, "k", 1);
	tw_close(&a);
	tw_open(&b, "r1.gpz");
	add_proc(&b, 2, 1);
	add_clock(&b, 900000, 5000000500ULL); /* another clock base */
	add_kernel(&b, 901000, 901100, 0, 7, 0, "k", 1);
	tw_close(&b);

	const char *paths[] = {a.path, b.path};
	REQUIRE(gpa_model_load(&m, paths, 2, NULL, err, sizeof(err)) == 0);
	CHECK(m.aligned);
	CHECK_EQ_U(m.kern.n, 2);
	/* rank 0's kernel at realtime 5 s + 1000 ns, rank 1's at 5 s + 500 + 1000 ns */
	CHECK_EQ_U(gpa_kern_start(&m, 0), 5000001000ULL);
	CHECK_EQ_U(gpa_kern_start(&m, 1), 5000001500ULL);
	CHECK_EQ_U(gpa_gpu_start(&m, 0), 5000001000ULL);
	CHECK_EQ_U(gpa_kern_dur(&m, 1), 100);
	CHECK_EQ_U(m.procs.v[1].rank, 1);
	gpa_model_release(&m);

	/* One file keeps its own clock. */
	const char *one[] = {b.path};
	REQUIRE(gpa_model_load(&m, one, 1, NULL, err, sizeof(err)) == 0);
	CHECK_EQ_U(gpa_kern_start(&m, 0), 901000);
	/* ...and keeps the anchor's offset for whoever places it on a job's timeline */
	CHECK_EQ_I(m.procs.v[0].clock_offset, 0);
	CHECK_EQ_I(m.procs.v[0].anchor_offset, 5000000500LL - 900000);
	gpa_model_release(&m);
}

TEST(model_load_errors_name_the_file)
{
	struct gpa_model m;
	char err[256] = "", path[512];
	const char *paths[] = {path};

	snprintf(path, sizeof(path), "%s/none.gpz", test_tmpdir());
	CHECK(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) < 0);
	CHECK_CONTAINS(err, "none.gpz");
	CHECK_CONTAINS(err, "cannot open");

	snprintf(path, sizeof(path), "%s/text.gpz", test_tmpdir());
	FILE *f = fopen(path, "w");
	REQUIRE(f != NULL);
	fputs("not a trace at all", f);
	fclose(f);
	CHECK(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) < 0);
	CHECK_CONTAINS(err, "text.gpz: not a gpuprof trace");
}

/*
 * A step of each op kept in 16 bits below 65535 steps, in 32 at and above:
 * the same steps either way, the ops outside every step in neither.
 */
TEST(steps_of_ops_in_16_and_32_bits)
{
	static const uint32_t counts[] = {65534, 65535};

	for (size_t c = 0; c < 2; c++) {
		struct tw t;
		struct gpa_model m;
		struct gpa_steps s;
		char err[256];
		uint32_t n = counts[c];

		tw_open(&t, c ? "s32.gpz" : "s16.gpz");
		for (uint32_t i = 0; i < n; i++) {
			char name[32];
			snprintf(name, sizeof(name), "ProfilerStep#%u", i);
			add_nvtx(&t, 100 * (uint64_t)i, 100 * (uint64_t)i + 90, 7, name);
		}
		/* one op in the first step, one in the last, one between two steps */
		add_api(&t, 10, 20, 7, "cudaLaunchKernel", 1, GPT_API_RUNTIME);
		add_api(&t, 100 * (uint64_t)(n - 1) + 10, 100 * (uint64_t)(n - 1) + 20, 7,
			"cudaLaunchKernel", 2, GPT_API_RUNTIME);
		add_api(&t, 195, 196, 7, "cudaLaunchKernel", 3, GPT_API_RUNTIME);
		add_kernel(&t, 30, 40, 0, 7, 1, "a", 1);
		add_kernel(&t, 100 * (uint64_t)(n - 1) + 30, 100 * (uint64_t)(n - 1) + 40, 0, 7, 2, "a", 1);
		add_kernel(&t, 197, 198, 0, 7, 3, "a", 1);
		tw_close(&t);
		REQUIRE(load1(&m, t.path) == 0);
		REQUIRE(gpa_steps_find(&m, NULL, &s, err, sizeof(err)) == 0);
		REQUIRE(s.v.n == n);
		CHECK(c ? s.gpu_step != NULL && s.gpu_step16 == NULL
			: s.gpu_step16 != NULL && s.gpu_step == NULL);
		REQUIRE(m.gpu.n == 3);
		CHECK_EQ_U(gpa_step_of(&s, 0), 0);
		CHECK_EQ_U(gpa_step_of(&s, 1), GPA_NONE);
		CHECK_EQ_U(gpa_step_of(&s, 2), n - 1);
		CHECK_EQ_U(s.unassigned_ops, 1);
		gpa_steps_release(&s);
		gpa_model_release(&m);
	}
}

/*
 * Steps 0 [0,1000) and 1 [1000,2000) (the last one too). A kernel launched
 * in step 0 runs in step 1's time and still belongs to step 0; its GPU time
 * is busy time of step 1, whose wall it runs in.
 */
TEST(steps_assign_by_launch)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_steps s;
	char err[256];

	tw_open(&t, "s.gpz");
	add_nvtx(&t, 0, 1000, 7, "ProfilerStep#4");
	add_nvtx(&t, 1000, 2000, 7, "ProfilerStep#5");
	add_nvtx(&t, 1100, 1200, 7, "optimizer.step"); /* nested: not a step */
	add_api(&t, 100, 110, 7, "cudaLaunchKernel", 1, GPT_API_RUNTIME);
	add_api(&t, 900, 910, 7, "cudaLaunchKernel", 2, GPT_API_RUNTIME);
	add_api(&t, 1500, 1510, 7, "cudaLaunchKernel", 3, GPT_API_RUNTIME);
	add_kernel(&t, 200, 400, 0, 7, 1, "a", 1);
	add_kernel(&t, 1050, 1300, 0, 7, 2, "b", 1);  /* launched in step 4 */
	add_kernel(&t, 1250, 1600, 0, 8, 3, "c", 1);  /* overlaps b on another stream */
	tw_close(&t);
	REQUIRE(load1(&m, t.path) == 0);
	REQUIRE(gpa_steps_find(&m, NULL, &s, err, sizeof(err)) == 0);
	CHECK_EQ_I(s.source, GPA_STEPS_NVTX);
	REQUIRE(s.v.n == 2);
	CHECK_EQ_I(s.v.v[0].number, 4);
	CHECK_EQ_I(s.v.v[1].number, 5);
	CHECK_EQ_U(s.v.v[0].gpu_ops, 2);
	CHECK_EQ_U(s.v.v[1].gpu_ops, 1);
	/* step 4: [200,400) within its wall; b runs after it, in step 5's */
	CHECK_EQ_U(s.v.v[0].gpu_busy, 200);
	CHECK_EQ_U(s.v.v[0].gpu_end, 1300);
	/* step 5: the union of b and c, [1050,1600), whoever launched them */
	CHECK_EQ_U(s.v.v[1].gpu_busy, 550);
	CHECK(s.v.v[1].gpu_busy <= s.v.v[1].end - s.v.v[1].start);
	CHECK_EQ_U(s.unassigned_ops, 0);
	CHECK_EQ_U(s.wall.median, 1000);
	gpa_steps_release(&s);

	/* A pattern that matches the nested range only. */
	REQUIRE(gpa_steps_find(&m, "^optimizer", &s, err, sizeof(err)) == 0);
	REQUIRE(s.v.n == 1);
	CHECK_EQ_U(s.v.v[0].gpu_ops, 0);
	CHECK_EQ_U(s.unassigned_ops, 3);
	gpa_steps_release(&s);

	CHECK(gpa_steps_find(&m, "([", &s, err, sizeof(err)) == -GP_ERR_API);
	CHECK_CONTAINS(err, "bad step pattern");

	/* The steps alone: the same ranges, numbers and CPU times, no op assigned. */
	struct gpa_steps r;
	REQUIRE(gpa_steps_find(&m, NULL, &s, err, sizeof(err)) == 0);
	REQUIRE(gpa_steps_find_ranges(&m, NULL, &r, err, sizeof(err)) == 0);
	CHECK_EQ_I(r.source, s.source);
	REQUIRE(r.v.n == s.v.n);
	for (size_t i = 0; i < r.v.n; i++) {
		CHECK_EQ_U(r.v.v[i].nvtx, s.v.v[i].nvtx);
		CHECK_EQ_I(r.v.v[i].number, s.v.v[i].number);
		CHECK_EQ_U(r.v.v[i].start, s.v.v[i].start);
		CHECK_EQ_U(r.v.v[i].end, s.v.v[i].end);
		CHECK_EQ_U(r.v.v[i].gpu_ops, 0);
	}
	CHECK(!gpa_steps_assigned(&r));
	CHECK(gpa_steps_assigned(&s) && s.gpu_step16 != NULL);
	gpa_steps_release(&r);
	gpa_steps_release(&s);
	CHECK(gpa_steps_find_ranges(&m, "([", &r, err, sizeof(err)) == -GP_ERR_API);
	gpa_model_release(&m);
}

TEST(steps_fall_back_to_profiler_ranges_and_whole_trace)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_steps s;
	char err[256];

	tw_open(&t, "p.gpz");
	add_api(&t, 0, 10, 7, "cudaProfilerStart", 0, GPT_API_RUNTIME);
	add_api(&t, 20, 30, 7, "cudaLaunchKernel", 1, GPT_API_RUNTIME);
	add_api(&t, 500, 510, 7, "cudaProfilerStop", 0, GPT_API_RUNTIME);
	add_api(&t, 600, 610, 7, "cudaProfilerStart", 0, GPT_API_RUNTIME);
	add_api(&t, 700, 710, 7, "cudaLaunchKernel", 2, GPT_API_RUNTIME);
	add_kernel(&t, 40, 90, 0, 7, 1, "a", 1);
	add_kernel(&t, 720, 800, 0, 7, 2, "a", 1);
	tw_close(&t);
	REQUIRE(load1(&m, t.path) == 0);
	REQUIRE(gpa_steps_find(&m, NULL, &s, err, sizeof(err)) == 0);
	CHECK_EQ_I(s.source, GPA_STEPS_PROFILER);
	REQUIRE(s.v.n == 2);
	CHECK_EQ_U(s.v.v[0].start, 10);
	CHECK_EQ_U(s.v.v[0].end, 500);
	/* The range left open runs to the end: kept, not dropped. */
	CHECK_EQ_U(s.v.v[1].end, 800);
	CHECK_EQ_U(s.v.v[1].gpu_ops, 1);
	gpa_steps_release(&s);
	gpa_model_release(&m);

	tw_open(&t, "w.gpz");
	add_api(&t, 20, 30, 7, "cudaLaunchKernel", 1, GPT_API_RUNTIME);
	add_kernel(&t, 40, 90, 0, 7, 1, "a", 1);
	tw_close(&t);
	REQUIRE(load1(&m, t.path) == 0);
	REQUIRE(gpa_steps_find(&m, NULL, &s, err, sizeof(err)) == 0);
	CHECK_EQ_I(s.source, GPA_STEPS_WHOLE);
	REQUIRE(s.v.n == 1);
	CHECK_EQ_U(s.v.v[0].start, 20);
	CHECK_EQ_U(s.v.v[0].end, 90);
	CHECK_EQ_U(s.v.v[0].gpu_busy, 50);
	gpa_steps_release(&s);
	gpa_model_release(&m);
}

TEST(dist_interpolates)
{
	uint64_t v[] = {40, 10, 30, 20};
	struct gpa_dist d;

	gpa_dist_of(v, 4, &d);
	CHECK_EQ_U(d.min, 10);
	CHECK_EQ_U(d.max, 40);
	CHECK_EQ_U(d.median, 25);
	CHECK_EQ_U(d.p90, 37); /* 30 + 0.7 * 10 */
	CHECK_EQ_U(d.sum, 100);
	uint64_t one[] = {7};
	gpa_dist_of(one, 1, &d);
	CHECK_EQ_U(d.median, 7);
	CHECK_EQ_U(d.p90, 7);
}

/* The generator's steps: every op assigned, and the model agrees with info's counts. */
TEST(model_on_generated_trace)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_steps s;
	struct gen_opts o;
	struct gen_stats gs;
	char err[256];

	gen_opts_default(&o);
	o.steps = 5;
	o.kernels_per_step = 50;
	o.devices = 2;
	o.gap_ns = 1000000;
	tw_open(&t, "g.gpz");
	REQUIRE(gen_write(t.w, &o, &gs) == 0);
	tw_close(&t);
	REQUIRE(load1(&m, t.path) == 0);
	CHECK_EQ_U(m.kern.n, gs.records[GPT_KIND_KERNEL]);
	CHECK_EQ_U(m.api.n, gs.records[GPT_KIND_API]);
	CHECK_EQ_U(m.events, gs.events);
	for (size_t i = 0; i < m.kern.n; i++) {
		if (m.kern.api[i] == GPA_NONE) {
			TFAIL("kernel %zu not linked", i);
			break;
		}
	}
	REQUIRE(gpa_steps_find(&m, NULL, &s, err, sizeof(err)) == 0);
	CHECK_EQ_U(s.v.n, 5);
	CHECK_EQ_U(s.unassigned_ops, 0);
	uint64_t ops = 0;
	for (size_t i = 0; i < s.v.n; i++) {
		ops += s.v.v[i].gpu_ops;
		CHECK(s.v.v[i].gpu_busy <= 2 * (s.v.v[i].gpu_end - s.v.v[i].gpu_start));
	}
	CHECK_EQ_U(ops, m.gpu.n);
	gpa_steps_release(&s);
	gpa_model_release(&m);
}

/* A step that launched nothing is listed with zero ops and zero busy time. */
TEST(steps_empty_step_is_kept)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_steps s;
	char err[256];

	tw_open(&t, "e.gpz");
	add_nvtx(&t, 0, 100, 7, "ProfilerStep#0");
	add_nvtx(&t, 100, 200, 7, "ProfilerStep#1");
	add_nvtx(&t, 200, 300, 7, "ProfilerStep#2");
	add_api(&t, 10, 20, 7, "cudaLaunchKernel", 1, GPT_API_RUNTIME);
	add_api(&t, 210, 220, 7, "cudaLaunchKernel", 2, GPT_API_RUNTIME);
	add_kernel(&t, 30, 31, 0, 7, 1, "a", 1); /* 1 ns: sub-microsecond stays exact */
	add_kernel(&t, 230, 290, 0, 7, 2, "a", 1);
	tw_close(&t);
	REQUIRE(load1(&m, t.path) == 0);
	REQUIRE(gpa_steps_find(&m, NULL, &s, err, sizeof(err)) == 0);
	REQUIRE(s.v.n == 3);
	CHECK_EQ_U(s.v.v[0].gpu_busy, 1);
	CHECK_EQ_U(s.v.v[1].gpu_ops, 0);
	CHECK_EQ_U(s.v.v[1].gpu_busy, 0);
	CHECK_EQ_U(s.v.v[2].gpu_busy, 60);
	CHECK_EQ_U(s.busy.min, 0);
	CHECK_EQ_U(s.busy.median, 1);
	CHECK_EQ_U(s.wall.sum, 300);
	gpa_steps_release(&s);
	gpa_model_release(&m);
}

/*
 * NVTX rows in file order with many tied starts (groups of about 25 and of
 * 1-3) and tied ends come out by start, the enclosing (later-ending) range
 * first, ties in file order; rows already in that order stay as they are.
 */
TEST(model_nvtx_order_with_tied_starts)
{
	struct tw t;
	struct gpa_model m;
	struct gp_rng rng;
	char name[32];

	gp_rng_seed(&rng, 38);
	tw_open(&t, "ties.gpz");
	for (int i = 0; i < 300; i++) {
		uint64_t s = i < 200 ? gp_rng_below(&rng, 8) * 100 : 1000 + gp_rng_below(&rng, 150);
		snprintf(name, sizeof(name), "%d", i);
		add_nvtx(&t, s, s + 1 + gp_rng_below(&rng, 4) * 10, 7, name);
	}
	tw_close(&t);
	REQUIRE(load1(&m, t.path) == 0);
	REQUIRE(m.nvtx.n == 300);
	int prev = atoi(gpa_model_str(&m, m.nvtx.name[0]));
	for (size_t i = 1; i < m.nvtx.n; i++) {
		int row = atoi(gpa_model_str(&m, m.nvtx.name[i]));
		uint64_t s0 = m.nvtx.start[i - 1], s1 = m.nvtx.start[i];
		uint64_t e0 = m.nvtx.end[i - 1], e1 = m.nvtx.end[i];
		CHECK(s0 < s1 || (s0 == s1 && (e0 > e1 || (e0 == e1 && prev < row))));
		prev = row;
	}
	gpa_model_release(&m);

	/* In order already: loaded as written. */
	tw_open(&t, "sorted.gpz");
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "%d", i);
		add_nvtx(&t, (uint64_t)(i / 4) * 10, (uint64_t)(i / 4) * 10 + 9 - (uint64_t)(i % 4) / 2,
			 7, name);
	}
	tw_close(&t);
	REQUIRE(load1(&m, t.path) == 0);
	REQUIRE(m.nvtx.n == 40);
	for (size_t i = 0; i < m.nvtx.n; i++) {
		CHECK_EQ_I(atoi(gpa_model_str(&m, m.nvtx.name[i])), (int)i);
	}
	gpa_model_release(&m);
}
