/* SPDX-License-Identifier: MIT */
/*
 * Launch and queue analytics (analyze/launches.c) on a hand-made trace whose
 * answers are worked out below.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/launches.h"
#include "tests/unit/test.h"

#include <math.h>
#include <stdio.h>

#define U(x) ((uint64_t)(x) * 1000u)
#define TID 100

struct tw {
	struct gpt_writer *w;
	char path[512];
};

static uint32_t S(struct tw *t, const char *s)
{
	uint32_t id = 0;
	CHECK_EQ_I(gpt_writer_intern_cstr(t->w, s, &id), 0);
	return id;
}

static void api(struct tw *t, uint64_t a, uint64_t b, const char *name, uint32_t corr)
{
	struct gpt_api r = {.start = U(a), .end = U(b), .tid = TID, .domain = GPT_API_RUNTIME,
			    .name = S(t, name), .correlation = corr};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_API, &r), 0);
}

static void kernel(struct tw *t, uint64_t s, uint64_t e, uint32_t corr, const char *name)
{
	struct gpt_kernel k = {.start = U(s), .end = U(e), .stream = 1, .correlation = corr,
			       .name = S(t, name), .grid_x = 1, .grid_y = 1, .grid_z = 1,
			       .block_x = 32, .block_y = 1, .block_z = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_KERNEL, &k), 0);
}

static void gpu_annotation(struct tw *t, uint64_t s, uint64_t e, const char *name)
{
	struct gpt_nvtx n = {.start = U(s), .end = U(e), .type = GPT_NVTX_START_END,
			     .domain = S(t, "gpu_user_annotation"), .message = S(t, name)};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_NVTX, &n), 0);
}

/*
 * Stream 1 (times in us):
 *   corr 1 cudaLaunchKernel [0,10)    kernel a [12,15)   call 10 delay 2   gpu 3  short
 *   corr 2 cudaLaunchKernel [11,19)   kernel a [20,60)   call 8  delay 1   gpu 40
 *   corr 3 cudaLaunchKernel [20,90)   kernel b [95,100)  call 70 delay 5   gpu 5  (call outlier)
 *   corr 4 cudaMemcpyAsync  [101,105) HtoD 6000 B [300,303): call 4 delay 195 gpu 3 short,
 *          delay outlier, 2 GB/s
 */
static void write_trace(struct tw *t)
{
	snprintf(t->path, sizeof(t->path), "%s/launches.gpz", test_tmpdir());
	CHECK_EQ_I(gpt_writer_open(t->path, NULL, &t->w), 0);
	struct gpt_process p = {.pid = 7, .rank = -1, .phase = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_PROCESS, &p), 0);
	api(t, 0, 10, "cudaLaunchKernel", 1);
	kernel(t, 12, 15, 1, "a");
	api(t, 11, 19, "cudaLaunchKernel", 2);
	kernel(t, 20, 60, 2, "a");
	api(t, 20, 90, "cudaLaunchKernel", 3);
	kernel(t, 95, 100, 3, "b");
	api(t, 101, 105, "cudaMemcpyAsync", 4);
	struct gpt_memcpy c = {.start = U(300), .end = U(303), .stream = 1, .correlation = 4,
			       .bytes = 6000, .copy_kind = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_MEMCPY, &c), 0);
	gpu_annotation(t, 0, 10, "opt");
	gpu_annotation(t, 50, 70, "opt");
	CHECK_EQ_I(gpt_writer_close(t->w), 0);
}

static bool near(double a, double b)
{
	if (fabs(a - b) > 1e-6 * (fabs(b) + 1)) {
		TFAIL("%.9g != %.9g", a, b);
		return false;
	}
	return true;
}

TEST(launches_hand_computed)
{
	struct tw t = {0};
	struct gpa_model m;
	struct gpa_launches l;
	struct gpa_launches_opts o;
	const char *paths[1];
	char err[256] = "";

	write_trace(&t);
	paths[0] = t.path;
	REQUIRE(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) == 0);
	gpa_launches_opts_init(&o);
	o.max_queue = 2;
	REQUIRE(gpa_launches_analyze(&m, &o, &l, err, sizeof(err)) == 0);
	CHECK_EQ_U(l.cpu.n, 4);
	CHECK_EQ_U(l.short_kernels, 2);
	CHECK_EQ_U(l.cpu_outliers, 1);
	CHECK_EQ_U(l.delay_outliers, 1);
	/* calls 4, 8, 10, 70 us; delays 1, 2, 5, 195 us */
	near(l.cpu.mean, 23000);
	near(l.cpu.p50, 9000);
	CHECK_EQ_U(l.cpu.max, U(70));
	near(l.delay.mean, 50750);
	near(l.delay.p50, 3500);
	near(l.delay.p90, 138000); /* 5 + 0.7 * (195 - 5) */
	CHECK_EQ_U(l.delay.max, U(195));
	/* per name: a twice, b and the copy once */
	REQUIRE(l.names.n == 3);
	CHECK_STR(l.names.v[0].name, "a");
	CHECK_EQ_U(l.names.v[0].cpu.n, 2);
	CHECK_EQ_U(l.names.v[0].short_kernels, 1);
	near(l.names.v[0].delay.mean, 1500);
	/*
	 * Queue: +1@0 +1@11 -1@12 -1@20 +1@20 -1@95 +1@101 -1@300 -> 1 2 1 0 1 0 1 0 (the
	 * start at 20 leaves before the launch at 20 joins); at 2 (full) for [11, 12).
	 */
	REQUIRE(l.queues.n == 1);
	CHECK_EQ_U(l.queues.v[0].len.n, 8);
	near(l.queues.v[0].len.mean, 0.75);
	CHECK_EQ_U(l.queues.v[0].max_len, 2);
	CHECK_EQ_U(l.queues.v[0].blocked_ns, U(1));
	CHECK_EQ_U(l.queues.v[0].weighted_sum, U(11 + 2 + 8 + 75 + 199));
	/* the copy: 6000 B in 3000 ns */
	REQUIRE(l.copies.n == 1);
	CHECK_STR(l.copies.v[0].kind, "Host-to-Device");
	near(l.copies.v[0].gbps.mean, 2.0);
	/* gaps: 5 (kernel wait), 35 (other: call started before), 200 (host wait: call at 101) */
	REQUIRE(l.idle.n == GPA_IDLE__COUNT);
	CHECK_EQ_U(l.idle.v[GPA_IDLE_HOST_WAIT].gap.sum, U(200));
	CHECK_EQ_U(l.idle.v[GPA_IDLE_KERNEL_WAIT].gap.sum, U(5));
	CHECK_EQ_U(l.idle.v[GPA_IDLE_OTHER].gap.sum, U(35));
	/* annotations: 10 and 20 us */
	REQUIRE(l.annots.n == 1);
	CHECK_EQ_U(l.annots.v[0].dur.n, 2);
	CHECK_EQ_U(l.annots.v[0].dur.sum, U(30));
	near(l.annots.v[0].dur.std, 5000 * sqrt(2.0));
	gpa_launches_release(&l);

	/* Only cudaLaunchKernel: the copy is left out of the launches and the queue. */
	o.api_regex = "^cudaLaunchKernel$";
	REQUIRE(gpa_launches_analyze(&m, &o, &l, err, sizeof(err)) == 0);
	CHECK_EQ_U(l.cpu.n, 3);
	CHECK_EQ_U(l.other_api, 1);
	CHECK_EQ_U(l.queues.v[0].len.n, 6);
	gpa_launches_release(&l);
	o.api_regex = "(";
	CHECK_EQ_I(gpa_launches_analyze(&m, &o, &l, err, sizeof(err)), -GP_ERR_API);
	CHECK_CONTAINS(err, "bad launch-call pattern");
	gpa_model_release(&m);
}

static void same_dist(const struct gpa_launch_dist *a, const struct gpa_launch_dist *b)
{
	CHECK_EQ_U(a->n, b->n);
	CHECK_EQ_U(a->sum, b->sum);
	near(a->min, b->min);
	near(a->max, b->max);
	near(a->mean, b->mean);
	near(a->std, b->std);
	near(a->p25, b->p25);
	near(a->p50, b->p50);
	near(a->p75, b->p75);
	near(a->p90, b->p90);
}

/*
 * n launches with pseudo-random call times and delays (many equal), one
 * delay over 2^32 ns when huge; wide: every fifth delay up to 2^32 - 1 ns,
 * so the values spread over many of the brief path's 16-bit buckets.
 */
static void brief_trace(struct tw *t, size_t n, bool huge, bool wide)
{
	uint64_t x = 12345, now = 0;

	snprintf(t->path, sizeof(t->path), "%s/launches-brief.gpz", test_tmpdir());
	CHECK_EQ_I(gpt_writer_open(t->path, NULL, &t->w), 0);
	struct gpt_process p = {.pid = 7, .rank = -1, .phase = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_PROCESS, &p), 0);
	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		uint64_t call = 1 + (x >> 33) % 97, delay = (x >> 20) % 13 * 7, run = 1 + (x >> 40) % 50;
		if (huge && i == n / 2) {
			delay = (uint64_t)5 << 32;
		}
		if (wide && i % 5 == 0) {
			delay = (x >> 7) % 4294967296ULL;
		}
		struct gpt_api a = {.start = now, .end = now + call, .tid = TID,
				    .domain = GPT_API_RUNTIME, .correlation = (uint32_t)i + 1,
				    .name = S(t, "cudaLaunchKernel")};
		CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_API, &a), 0);
		struct gpt_kernel k = {.start = now + call + delay, .end = now + call + delay + run,
				       .stream = 1, .correlation = (uint32_t)i + 1,
				       .name = S(t, i % 3 ? "a" : "b"), .grid_x = 1, .grid_y = 1,
				       .grid_z = 1, .block_x = 32, .block_y = 1, .block_z = 1};
		CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_KERNEL, &k), 0);
		now = k.end + (huge && i == n / 2 ? 0 : 1);
	}
	CHECK_EQ_I(gpt_writer_close(t->w), 0);
}

/* The report's brief figures (selection, 32-bit values) equal the full path's (sorting). */
TEST(launches_brief_equals_full)
{
	static const size_t sizes[] = {3001, 1, 2, 3, 5, 4000};
	for (size_t c = 0; c < 2 * GP_ARRAY_SIZE(sizes); c++) {
		size_t n = sizes[c / 2];
		int huge = c % 2 && n == 3001, wide = n == 4000 && c % 2;
		struct tw t = {0};
		struct gpa_model m;
		struct gpa_launches full, brief;
		struct gpa_launches_opts o;
		const char *paths[1];
		char err[256] = "";

		brief_trace(&t, n, huge, wide);
		paths[0] = t.path;
		REQUIRE(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) == 0);
		gpa_launches_opts_init(&o);
		o.runtime_cutoff_ns = 40;
		o.delay_cutoff_ns = 50;
		REQUIRE(gpa_launches_analyze(&m, &o, &full, err, sizeof(err)) == 0);
		o.brief = true;
		REQUIRE(gpa_launches_analyze(&m, &o, &brief, err, sizeof(err)) == 0);
		CHECK_EQ_U(brief.cpu.n, n);
		same_dist(&brief.cpu, &full.cpu);
		same_dist(&brief.delay, &full.delay);
		CHECK_EQ_U(brief.short_kernels, full.short_kernels);
		CHECK_EQ_U(brief.cpu_outliers, full.cpu_outliers);
		CHECK_EQ_U(brief.delay_outliers, full.delay_outliers);
		CHECK_EQ_U(brief.unlinked, full.unlinked);
		CHECK_EQ_U(brief.graph_ops, full.graph_ops);
		CHECK(n < 3001 || (brief.short_kernels > 0 && brief.delay_outliers > 0));
		/* only the full path (or the brief one falling back to it) has per-name rows */
		CHECK_EQ_U(brief.names.n, huge ? full.names.n : 0);
		gpa_launches_release(&full);
		gpa_launches_release(&brief);
		gpa_model_release(&m);
	}
}
