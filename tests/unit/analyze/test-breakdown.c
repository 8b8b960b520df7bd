/* SPDX-License-Identifier: MIT */
/*
 * Tests of the HTA breakdowns (analyze/breakdown.c) on tiny hand-written
 * traces, every number worked out by hand (times in microseconds, U()).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/breakdown.h"
#include "tests/unit/test.h"

#include <stdio.h>

#define U(x) ((uint64_t)(x) * 1000u)
#define TID 100

struct tw {
	struct gpt_writer *w;
	char path[512];
};

static void tw_open(struct tw *t, const char *name)
{
	snprintf(t->path, sizeof(t->path), "%s/%s", test_tmpdir(), name);
	CHECK_EQ_I(gpt_writer_open(t->path, NULL, &t->w), 0);
	struct gpt_process p = {.pid = 7, .rank = -1, .phase = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_PROCESS, &p), 0);
}

static uint32_t S(struct tw *t, const char *s)
{
	uint32_t id = 0;
	CHECK_EQ_I(gpt_writer_intern_cstr(t->w, s, &id), 0);
	return id;
}

static void api(struct tw *t, uint64_t start, const char *name, uint32_t corr)
{
	struct gpt_api a = {.start = start, .end = start + U(1), .tid = TID,
			    .domain = GPT_API_RUNTIME, .name = S(t, name), .correlation = corr};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_API, &a), 0);
}

static void kernel(struct tw *t, uint64_t start, uint64_t end, uint32_t stream, uint32_t corr,
		   const char *name)
{
	struct gpt_kernel k = {.start = start, .end = end, .stream = stream, .correlation = corr,
			       .name = S(t, name), .grid_x = 1, .grid_y = 1, .grid_z = 1,
			       .block_x = 32, .block_y = 1, .block_z = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_KERNEL, &k), 0);
}

static void memcpy_rec(struct tw *t, uint64_t start, uint64_t end, uint32_t stream, uint32_t corr)
{
	struct gpt_memcpy c = {.start = start, .end = end, .stream = stream, .correlation = corr,
			       .bytes = 4096, .copy_kind = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_MEMCPY, &c), 0);
}

static void sync_rec(struct tw *t, uint64_t start, uint64_t end, uint32_t stream)
{
	struct gpt_sync s = {.start = start, .end = end, .type = 3, .stream = stream};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_SYNC, &s), 0);
}

static void step(struct tw *t, uint64_t start, uint64_t end, const char *name)
{
	struct gpt_nvtx n = {.start = start, .end = end, .type = GPT_NVTX_PUSH_POP,
			     .message = S(t, name), .start_tid = TID, .end_tid = TID};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_NVTX, &n), 0);
}

struct run {
	struct gpa_model m;
	struct gpa_breakdown b;
	bool loaded;
};

static int run_open(struct run *r, struct tw *t, unsigned flags)
{
	struct gpa_breakdown_opts o;
	char err[256] = "";
	const char *paths[] = {t->path};
	int ret;

	memset(r, 0, sizeof(*r));
	if (t->w) {
		CHECK_EQ_I(gpt_writer_close(t->w), 0);
		t->w = NULL;
	}
	ret = gpa_model_load(&r->m, paths, 1, NULL, err, sizeof(err));
	if (ret) {
		TFAIL("load: %s", err);
		return ret;
	}
	r->loaded = true;
	gpa_breakdown_opts_init(&o);
	o.flags = flags;
	ret = gpa_breakdown_compute(&r->m, &o, &r->b);
	CHECK_EQ_I(ret, 0);
	for (size_t i = 0; i < r->b.ranks.n; i++) {
		const struct gpa_bd_rank *k = &r->b.ranks.v[i];
		CHECK_EQ_I(k->idle + k->compute + k->non_compute, k->span);
		CHECK_EQ_I(k->busy + k->idle, k->span);
	}
	return ret;
}

static void run_close(struct run *r)
{
	gpa_breakdown_release(&r->b);
	if (r->loaded) {
		gpa_model_release(&r->m);
	}
}

static const struct gpa_bd_stream *find_stream(const struct gpa_breakdown *b, uint32_t stream)
{
	for (size_t i = 0; i < b->streams.n; i++) {
		if (b->streams.v[i].stream == stream) {
			return &b->streams.v[i];
		}
	}
	TFAIL("no stream %u", (unsigned)stream);
	return NULL;
}

TEST(breakdown_classify_names)
{
	CHECK_EQ_U(gpa_bd_classify("ncclKernel_AllReduce_RING_LL_Sum_float", 0), GPA_BD_COMM);
	CHECK_EQ_U(gpa_bd_classify("ncclDevKernel_AllGather_RING_LL", GPA_BD_NAME_ONLY),
		   GPA_BD_COMM);
	CHECK_EQ_U(gpa_bd_classify("void foo<ncclKernel_x>()", GPA_BD_NAME_ONLY), GPA_BD_COMM);
	CHECK_EQ_U(gpa_bd_classify("hipFooKernel", GPA_BD_NAME_ONLY), GPA_BD_COMM);
	CHECK_EQ_U(gpa_bd_classify("Memcpy HtoD (Pageable -> Device)", 0), GPA_BD_MEM);
	CHECK_EQ_U(gpa_bd_classify("Memset (Device)", GPA_BD_NAME_ONLY), GPA_BD_MEM);
	CHECK_EQ_U(gpa_bd_classify("dma_copy", GPA_BD_NAME_ONLY), GPA_BD_MEM);
	CHECK_EQ_U(gpa_bd_classify("void at::native::vectorized_elementwise_kernel<4>", 0),
		   GPA_BD_COMP);
	/* HTA's "other": sync records, launch calls, names merely containing Memcpy/Sync */
	CHECK_EQ_U(gpa_bd_classify("Stream Sync", GPA_BD_NAME_ONLY), 0);
	CHECK_EQ_U(gpa_bd_classify("Stream Wait Event", GPA_BD_NAME_ONLY), 0);
	CHECK_EQ_U(gpa_bd_classify("cudaLaunchKernel", GPA_BD_NAME_ONLY), 0);
	CHECK_EQ_U(gpa_bd_classify("my_cudaMemcpy_kernel", GPA_BD_NAME_ONLY), 0);
	/* custom communication: only HTA misses it */
	CHECK_EQ_U(gpa_bd_classify("deep_ep::internode_nccl_dispatch", GPA_BD_NAME_ONLY),
		   GPA_BD_COMP);
	CHECK_EQ_U(gpa_bd_classify("deep_ep::internode_nccl_dispatch", 0), GPA_BD_COMM);
	CHECK_EQ_U(gpa_bd_classify("nvshmemi_alltoall_kernel", 0), GPA_BD_COMM);
	CHECK_EQ_U(gpa_bd_classify("rcclAllReduceKernel", 0), GPA_BD_COMM);
	CHECK(!strcmp(gpa_bd_class_name(GPA_BD_COMM), "communication"));
	CHECK(!strcmp(gpa_bd_idle_name(GPA_BD_KERNEL_WAIT), "kernel_wait"));
	CHECK(gpa_bd_idle_name(GPA_BD_IDLE__COUNT) == NULL);
}

/*
 * compute [0,10) s1, nccl [5,20) s2, memcpy [30,40) s3, compute [50,60) s1:
 * busy [0,20) [30,40) [50,60) = 40 of a 60 us span; compute 20; comm 15 of
 * which 5 under compute.
 */
TEST(breakdown_temporal_types_overlap)
{
	struct tw t;
	struct run r;

	tw_open(&t, "bd-temporal.gpz");
	api(&t, 0, "cudaLaunchKernel", 1);
	kernel(&t, U(0), U(10), 1, 1, "gemm");
	api(&t, U(1), "cudaLaunchKernel", 2);
	kernel(&t, U(5), U(20), 2, 2, "ncclKernel_AllReduce");
	api(&t, U(2), "cudaMemcpyAsync", 3);
	memcpy_rec(&t, U(30), U(40), 3, 3);
	api(&t, U(3), "cudaLaunchKernel", 4);
	kernel(&t, U(50), U(60), 1, 4, "gemm");
	if (run_open(&r, &t, 0) == 0 && r.b.ranks.n == 1) {
		const struct gpa_bd_rank *k = &r.b.ranks.v[0];
		CHECK_EQ_I(k->rank, 0);
		CHECK_EQ_U(k->ops, 4);
		CHECK_EQ_I(k->span, U(60));
		CHECK_EQ_I(k->busy, U(40));
		CHECK_EQ_I(k->idle, U(20));
		CHECK_EQ_I(k->compute, U(20));
		CHECK_EQ_I(k->non_compute, U(20));
		CHECK_EQ_I(k->comm, U(15));
		CHECK_EQ_I(k->overlap, U(5));
		CHECK_EQ_I(r.b.type_ns[GPA_BD_COMP], U(15));
		CHECK_EQ_I(r.b.type_ns[GPA_BD_COMP | GPA_BD_COMM], U(5));
		CHECK_EQ_I(r.b.type_ns[GPA_BD_COMM], U(10));
		CHECK_EQ_I(r.b.type_ns[GPA_BD_MEM], U(10));
		CHECK_EQ_I(r.b.type_ns[GPA_BD_COMP | GPA_BD_MEM], 0);
		CHECK_EQ_U(r.b.streams.n, 3);
	} else {
		CHECK_EQ_U(r.b.ranks.n, 1);
	}
	run_close(&r);
}

/*
 * One stream: A [10,20) launched at 0; B [22,30) launched at 5 (queued,
 * gap 2 < 30: kernel wait); C [110,120) launched at 100 > 30 (host wait
 * 80); D [200,210) launched at 105 < 120, gap 80 >= 30: other.
 */
TEST(breakdown_idle_categories)
{
	struct tw t;
	struct run r;

	tw_open(&t, "bd-idle.gpz");
	api(&t, U(0), "cudaLaunchKernel", 1);
	api(&t, U(5), "cudaLaunchKernel", 2);
	api(&t, U(100), "cudaLaunchKernel", 3);
	api(&t, U(105), "cudaLaunchKernel", 4);
	kernel(&t, U(10), U(20), 7, 1, "a");
	kernel(&t, U(22), U(30), 7, 2, "b");
	kernel(&t, U(110), U(120), 7, 3, "c");
	kernel(&t, U(200), U(210), 7, 4, "d");
	if (run_open(&r, &t, 0) == 0) {
		const struct gpa_bd_stream *s = find_stream(&r.b, 7);
		if (s) {
			CHECK_EQ_U(s->ops, 4);
			CHECK_EQ_I(s->idle_ns[GPA_BD_KERNEL_WAIT], U(2));
			CHECK_EQ_I(s->idle_ns[GPA_BD_HOST_WAIT], U(80));
			CHECK_EQ_I(s->idle_ns[GPA_BD_OTHER_WAIT], U(80));
			CHECK_EQ_U(s->idle_n[GPA_BD_KERNEL_WAIT], 1);
			CHECK_EQ_U(s->idle_n[GPA_BD_HOST_WAIT], 1);
			CHECK_EQ_U(s->idle_n[GPA_BD_OTHER_WAIT], 1);
		}
	}
	run_close(&r);
}

/*
 * HTA's rounding: [1.2, 3.7) becomes [2, 3); the sub-us [10.1, 10.6)
 * becomes [11, 10], a group of length -1 us. Span 10 - 2 = 8 us, busy
 * 1 - 1 = 0, all idle. Exact: span 9.4 us, busy 3 us.
 */
TEST(breakdown_round_us)
{
	struct tw t;
	struct run r;

	tw_open(&t, "bd-round.gpz");
	api(&t, 0, "cudaLaunchKernel", 1);
	api(&t, U(1), "cudaLaunchKernel", 2);
	kernel(&t, 1200, 3700, 7, 1, "a");
	kernel(&t, 10100, 10600, 7, 2, "b");
	if (run_open(&r, &t, 0) == 0 && r.b.ranks.n == 1) {
		CHECK_EQ_I(r.b.ranks.v[0].span, 9400);
		CHECK_EQ_I(r.b.ranks.v[0].busy, 3000);
		CHECK_EQ_I(r.b.ranks.v[0].compute, 3000);
	}
	run_close(&r);
	if (run_open(&r, &t, GPA_BD_ROUND_US) == 0 && r.b.ranks.n == 1) {
		const struct gpa_bd_rank *k = &r.b.ranks.v[0];
		CHECK_EQ_I(k->span, U(8));
		CHECK_EQ_I(k->busy, 0);
		CHECK_EQ_I(k->idle, U(8));
		CHECK_EQ_I(k->compute, 0);
		CHECK_EQ_I(k->non_compute, 0);
	}
	run_close(&r);
	/* the kernel-type table cuts durations to whole us: 2.5 -> 2, 0.5 -> 0 */
	if (run_open(&r, &t, GPA_BD_INT_DUR) == 0) {
		CHECK_EQ_I(r.b.type_ns[GPA_BD_COMP], U(2));
		CHECK_EQ_I(r.b.ranks.v[0].compute, 3000);
	}
	run_close(&r);
}

/*
 * ProfilerStep#1 [0,100), #2 [100,200): the kernel launched at 150 and the
 * one without a launch call are dropped under LAST_STEP.
 */
TEST(breakdown_last_step)
{
	struct tw t;
	struct run r;

	tw_open(&t, "bd-steps.gpz");
	step(&t, U(0), U(100), "ProfilerStep#1");
	step(&t, U(100), U(200), "ProfilerStep#2");
	api(&t, U(50), "cudaLaunchKernel", 1);
	api(&t, U(150), "cudaLaunchKernel", 2);
	kernel(&t, U(60), U(70), 7, 1, "a");
	kernel(&t, U(160), U(170), 7, 2, "b");
	kernel(&t, U(180), U(190), 7, 99, "c");
	if (run_open(&r, &t, 0) == 0 && r.b.ranks.n == 1) {
		CHECK_EQ_U(r.b.ranks.v[0].ops, 3);
		CHECK_EQ_I(r.b.ranks.v[0].span, U(130));
	}
	run_close(&r);
	if (run_open(&r, &t, GPA_BD_LAST_STEP) == 0 && r.b.ranks.n == 1) {
		CHECK_EQ_U(r.b.ranks.v[0].ops, 1);
		CHECK_EQ_I(r.b.ranks.v[0].span, U(10));
		CHECK_EQ_I(r.b.ranks.v[0].idle, 0);
	}
	run_close(&r);
}

/* One step name only: HTA filters nothing. */
TEST(breakdown_last_step_needs_two_steps)
{
	struct tw t;
	struct run r;

	tw_open(&t, "bd-onestep.gpz");
	step(&t, U(0), U(100), "ProfilerStep#1");
	api(&t, U(50), "cudaLaunchKernel", 1);
	kernel(&t, U(60), U(70), 7, 1, "a");
	kernel(&t, U(160), U(170), 7, 99, "c");
	if (run_open(&r, &t, GPA_BD_LAST_STEP) == 0 && r.b.ranks.n == 1) {
		CHECK_EQ_U(r.b.ranks.v[0].ops, 2);
	}
	run_close(&r);
}

/*
 * A Stream Sync on stream 7 [20,40) after a kernel [0,10): busy only with
 * SYNC_BUSY (non-compute, span grows to 40); the per-stream idle table
 * never counts sync records; stream 0 (Kineto's -1) never counts.
 */
TEST(breakdown_sync_busy)
{
	struct tw t;
	struct run r;

	tw_open(&t, "bd-sync.gpz");
	api(&t, 0, "cudaLaunchKernel", 1);
	kernel(&t, U(0), U(10), 7, 1, "a");
	sync_rec(&t, U(20), U(40), 7);
	sync_rec(&t, U(50), U(90), 0);
	if (run_open(&r, &t, 0) == 0 && r.b.ranks.n == 1) {
		CHECK_EQ_I(r.b.ranks.v[0].span, U(10));
		CHECK_EQ_U(r.b.ranks.v[0].ops, 1);
	}
	run_close(&r);
	if (run_open(&r, &t, GPA_BD_SYNC_BUSY) == 0 && r.b.ranks.n == 1) {
		const struct gpa_bd_rank *k = &r.b.ranks.v[0];
		const struct gpa_bd_stream *s = find_stream(&r.b, 7);
		CHECK_EQ_U(k->ops, 2);
		CHECK_EQ_I(k->span, U(40));
		CHECK_EQ_I(k->idle, U(10));
		CHECK_EQ_I(k->compute, U(10));
		CHECK_EQ_I(k->non_compute, U(20));
		if (s) {
			CHECK_EQ_U(s->ops, 1);
		}
	}
	run_close(&r);
}

TEST(breakdown_empty)
{
	struct tw t;
	struct run r;

	tw_open(&t, "bd-empty.gpz");
	api(&t, 0, "cudaMalloc", 0);
	if (run_open(&r, &t, GPA_BD_COMPAT_HTA) == 0) {
		CHECK_EQ_U(r.b.ranks.n, 0);
		CHECK_EQ_U(r.b.streams.n, 0);
	}
	run_close(&r);
	gpa_breakdown_release(NULL);
}
