/* SPDX-License-Identifier: MIT */
/*
 * Tests of the idle-gap analysis on small hand-written traces, each gap
 * with its cause and time worked out by hand (times in microseconds, U()).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/gaps.h"
#include "analyze/steps.h"
#include "tests/tools/gen.h"
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

static void api(struct tw *t, uint64_t start, uint64_t end, const char *name, uint32_t corr)
{
	struct gpt_api a = {.start = start, .end = end, .tid = TID, .domain = GPT_API_RUNTIME,
			    .name = S(t, name), .correlation = corr};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_API, &a), 0);
}

static void kernel(struct tw *t, uint64_t start, uint64_t end, uint32_t dev, uint32_t stream,
		   uint32_t corr, const char *name)
{
	struct gpt_kernel k = {.start = start, .end = end, .device = dev, .stream = stream,
			       .correlation = corr, .name = S(t, name), .grid_x = 1, .grid_y = 1,
			       .grid_z = 1, .block_x = 32, .block_y = 1, .block_z = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_KERNEL, &k), 0);
}

/* A launch call [a, a + 10 us) on thread TID and its kernel [s, e) on device 0, stream 1. */
static void launch(struct tw *t, uint64_t a, uint64_t s, uint64_t e, uint32_t corr)
{
	api(t, U(a), U(a + 10), "cudaLaunchKernel", corr);
	kernel(t, U(s), U(e), 0, 1, corr, "k");
}

static void nvtx(struct tw *t, uint64_t start, uint64_t end, const char *name, uint8_t type)
{
	struct gpt_nvtx n = {.start = start, .end = end, .type = type, .message = S(t, name),
			     .start_tid = TID, .end_tid = TID};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_NVTX, &n), 0);
}

static void sync_rec(struct tw *t, uint64_t start, uint64_t end, uint8_t type, uint32_t corr,
		     uint32_t stream)
{
	struct gpt_sync s = {.start = start, .end = end, .type = type, .correlation = corr,
			     .stream = stream};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_SYNC, &s), 0);
}

static void overhead(struct tw *t, uint64_t start, uint64_t end, uint32_t kind)
{
	struct gpt_overhead o = {.start = start, .end = end, .overhead_kind = kind};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_OVERHEAD, &o), 0);
}

struct run {
	struct gpa_model m;
	struct gpa_steps s;
	struct gpa_gaps g;
	bool loaded, stepped;
};

/* Sums that must always hold: busy + idle = window, causes and buckets add up. */
static void check_sums(const struct gpa_gap_totals *t)
{
	uint64_t c = 0, n = 0, h = 0, hn = 0;

	CHECK_EQ_U(t->busy + t->idle, t->window);
	for (int k = 0; k < GPA_GAP__COUNT; k++) {
		c += t->cause_ns[k];
		n += t->cause_n[k];
	}
	for (int b = 0; b < GPA_GAP_BUCKETS; b++) {
		h += t->hist_ns[b];
		hn += t->hist_n[b];
	}
	CHECK_EQ_U(c, t->idle);
	CHECK_EQ_U(h, t->idle);
	CHECK_EQ_U(n, t->gaps);
	CHECK_EQ_U(hn, t->gaps);
}

static void check_invariants(const struct gpa_gaps *g)
{
	struct gpa_gap_totals sum = {0};

	check_sums(&g->all);
	for (size_t i = 0; i < g->devs.n; i++) {
		const struct gpa_gaps_dev *d = &g->devs.v[i];
		check_sums(&d->t);
		CHECK_EQ_U(d->t.window, d->last - d->first);
		/* The step stretches of a device partition its window. */
		uint64_t at = d->first, idle = 0, gaps = 0, ops = 0;
		bool any = false;
		for (size_t k = 0; k < g->steps.n; k++) {
			const struct gpa_gaps_step *s = &g->steps.v[k];
			if (s->dev != d->dev) {
				continue;
			}
			any = true;
			CHECK_EQ_U(s->start, at);
			check_sums(&s->t);
			at = s->end;
			idle += s->t.idle;
			gaps += s->t.gaps;
			ops += s->t.ops;
		}
		if (any) {
			CHECK_EQ_U(at, d->last);
			CHECK_EQ_U(idle, d->t.idle);
			CHECK_EQ_U(gaps, d->t.gaps);
			CHECK_EQ_U(ops, d->t.ops);
		}
		sum.window += d->t.window;
		sum.idle += d->t.idle;
	}
	CHECK_EQ_U(sum.window, g->all.window);
	CHECK_EQ_U(sum.idle, g->all.idle);
	for (size_t i = 0; i < g->top.n; i++) {
		const struct gpa_gap *gp = &g->top.v[i];
		CHECK(gp->start < gp->end);
		CHECK(gp->cause_ns <= gp->end - gp->start);
		CHECK(gp->cause < GPA_GAP__COUNT);
		if (i) {
			CHECK(g->top.v[i - 1].end - g->top.v[i - 1].start >= gp->end - gp->start);
		}
	}
}

/* Loads t, finds steps, analyzes with every gap listed (or opts). */
static int run_open(struct run *r, struct tw *t, const struct gpa_gaps_opts *opts)
{
	struct gpa_gaps_opts o;
	char err[256] = "";
	const char *paths[] = {t->path};
	int ret;

	memset(r, 0, sizeof(*r));
	CHECK_EQ_I(gpt_writer_close(t->w), 0);
	ret = gpa_model_load(&r->m, paths, 1, NULL, err, sizeof(err));
	if (ret) {
		TFAIL("load: %s", err);
		return ret;
	}
	r->loaded = true;
	ret = gpa_steps_find(&r->m, NULL, &r->s, err, sizeof(err));
	if (ret) {
		TFAIL("steps: %s", err);
		return ret;
	}
	r->stepped = true;
	if (!opts) {
		gpa_gaps_opts_init(&o);
		o.min_gap_ns = 0;
		o.top = SIZE_MAX;
		opts = &o;
	}
	ret = gpa_gaps_analyze(&r->m, &r->s, opts, &r->g, err, sizeof(err));
	if (ret) {
		TFAIL("gaps: %s", err);
		return ret;
	}
	check_invariants(&r->g);
	return 0;
}

static void run_close(struct run *r)
{
	gpa_gaps_release(&r->g);
	if (r->stepped) {
		gpa_steps_release(&r->s);
	}
	if (r->loaded) {
		gpa_model_release(&r->m);
	}
}

/* The listed gap starting at start (us), or NULL. */
static const struct gpa_gap *gap_at(const struct run *r, uint64_t start_ns)
{
	for (size_t i = 0; i < r->g.top.n; i++) {
		if (r->g.top.v[i].start == start_ns) {
			return &r->g.top.v[i];
		}
	}
	TFAIL("no gap starting at %" PRIu64 " ns", start_ns);
	return NULL;
}

static const char *api_name(const struct run *r, uint32_t row)
{
	return row == GPA_NONE ? "(none)" : gpa_model_str(&r->m, gpa_api_name(&r->m, row));
}

static const char *nvtx_name(const struct run *r, uint32_t row)
{
	return row == GPA_NONE ? "(none)" : gpa_model_str(&r->m, r->m.nvtx.name[row]);
}

/*
 * K1 [20, 100); the thread sits in cudaDeviceSynchronize [15, 1000) (with
 * its CUPTI context-sync record), then launches K2 [1005, 1015) which runs
 * [1020, 1100). Gap [100, 1020): sync 900, CPU 5, launch 10 + 5 queued.
 */
TEST(gaps_host_sync)
{
	struct tw t;
	struct run r;

	tw_open(&t, "sync.gpz");
	launch(&t, 0, 20, 100, 1);
	api(&t, U(15), U(1000), "cudaDeviceSynchronize", 2);
	sync_rec(&t, U(15), U(1000), 4, 2, UINT32_MAX);
	api(&t, U(1005), U(1015), "cudaLaunchKernel", 3);
	kernel(&t, U(1020), U(1100), 0, 1, 3, "k");
	if (!run_open(&r, &t, NULL)) {
		CHECK_EQ_U(r.g.all.window, U(1080));
		CHECK_EQ_U(r.g.all.busy, U(160));
		CHECK_EQ_U(r.g.all.gaps, 1);
		const struct gpa_gap *g = gap_at(&r, U(100));
		if (g) {
			CHECK_EQ_U(g->end, U(1020));
			CHECK_EQ_U(g->cause, GPA_GAP_SYNC);
			CHECK_EQ_U(g->cause_ns, U(900));
			CHECK_STR(api_name(&r, g->ev_api), "cudaDeviceSynchronize");
			CHECK_EQ_U(r.m.threads.v[g->thread].tid, TID);
			CHECK(!g->queued);
			CHECK_EQ_U(g->drain, GPA_NONE);
		}
		CHECK_EQ_U(r.g.all.cause_ns[GPA_GAP_SYNC], U(920));
	}
	run_close(&r);
}

/*
 * A call whose name says nothing is a host sync when a CUPTI SYNC record
 * (stream sync) links to it; a stream-wait-event record does not block the
 * host, so the same shape with type 2 is CPU time.
 */
TEST(gaps_sync_record_marks_call)
{
	struct tw t;
	struct run r;

	tw_open(&t, "syncrec.gpz");
	launch(&t, 0, 20, 100, 1);
	api(&t, U(20), U(800), "cuWrapperWait", 2);
	sync_rec(&t, U(20), U(800), 3, 2, 1);
	launch(&t, 810, 830, 900, 3);
	api(&t, U(905), U(1800), "cuOtherWait", 4);
	sync_rec(&t, U(905), U(1800), 2, 4, 1);
	launch(&t, 1810, 1830, 1900, 5);
	if (!run_open(&r, &t, NULL)) {
		const struct gpa_gap *g = gap_at(&r, U(100));
		if (g) {
			CHECK_EQ_U(g->cause, GPA_GAP_SYNC);
			CHECK_EQ_U(g->cause_ns, U(700));
			CHECK_STR(api_name(&r, g->ev_api), "cuWrapperWait");
		}
		g = gap_at(&r, U(900));
		if (g) {
			CHECK_EQ_U(g->cause, GPA_GAP_CPU);
			CHECK_EQ_U(g->cause_ns, U(910));
		}
	}
	run_close(&r);
}

/*
 * K1 [20, 100); a cudaStreamSynchronize returns at 105; DataLoader.__next__
 * [200, 5200); K2 launched [5300, 5310), runs [5320, 5400). Gap [100, 5320):
 * data loading 5000 of 5220, with the sync that drained the queue noted.
 * A start/end range named fetch_batch covers the second gap. With a pattern
 * that matches neither, both are CPU-bound inside the range.
 */
TEST(gaps_data_loader)
{
	struct tw t;
	struct run r;

	for (int pass = 0; pass < 2; pass++) {
		struct gpa_gaps_opts o;
		tw_open(&t, pass ? "dl2.gpz" : "dl.gpz");
		launch(&t, 0, 20, 100, 1);
		api(&t, U(50), U(105), "cudaStreamSynchronize", 2);
		nvtx(&t, U(200), U(5200), "DataLoader.__next__", GPT_NVTX_PUSH_POP);
		launch(&t, 5300, 5320, 5400, 3);
		nvtx(&t, U(5450), U(8450), "fetch_batch", GPT_NVTX_START_END);
		launch(&t, 8460, 8480, 8500, 4);
		gpa_gaps_opts_init(&o);
		o.min_gap_ns = 0;
		o.top = SIZE_MAX;
		o.data_regex = pass ? "^loader$" : NULL;
		if (run_open(&r, &t, &o)) {
			run_close(&r);
			return;
		}
		const struct gpa_gap *g = gap_at(&r, U(100));
		if (g && !pass) {
			CHECK_EQ_U(g->end, U(5320));
			CHECK_EQ_U(g->cause, GPA_GAP_DATA);
			CHECK_EQ_U(g->cause_ns, U(5000));
			CHECK_STR(nvtx_name(&r, g->ev_nvtx), "DataLoader.__next__");
			CHECK_STR(api_name(&r, g->drain), "cudaStreamSynchronize");
		} else if (g) {
			CHECK_EQ_U(g->cause, GPA_GAP_CPU);
			CHECK_EQ_U(g->cause_ns, U(5195));
			CHECK_STR(nvtx_name(&r, g->ev_nvtx), "DataLoader.__next__");
		}
		g = gap_at(&r, U(5400));
		if (g && !pass) {
			CHECK_EQ_U(g->cause, GPA_GAP_DATA);
			CHECK_EQ_U(g->cause_ns, U(3000));
			CHECK_STR(nvtx_name(&r, g->ev_nvtx), "fetch_batch");
		} else if (g) {
			CHECK_EQ_U(g->cause, GPA_GAP_CPU);
		}
		run_close(&r);
	}
}

/* A sync inside a data-loader range: each instant goes to the sync (higher precedence). */
TEST(gaps_precedence_by_instant)
{
	struct tw t;
	struct run r;

	tw_open(&t, "prec.gpz");
	launch(&t, 0, 20, 100, 1);
	nvtx(&t, U(100), U(1000), "DataLoader.__next__", GPT_NVTX_PUSH_POP);
	api(&t, U(200), U(900), "cudaEventSynchronize", 2);
	launch(&t, 1000, 1020, 1100, 3);
	if (!run_open(&r, &t, NULL)) {
		const struct gpa_gap *g = gap_at(&r, U(100));
		if (g) {
			CHECK_EQ_U(g->cause, GPA_GAP_SYNC);
			CHECK_EQ_U(g->cause_ns, U(700));
			CHECK_STR(api_name(&r, g->ev_api), "cudaEventSynchronize");
		}
	}
	run_close(&r);
}

/* cudaMalloc [90, 900) while the GPU drains: memory management 800 of 825. */
TEST(gaps_memory_management)
{
	struct tw t;
	struct run r;

	tw_open(&t, "malloc.gpz");
	launch(&t, 0, 20, 100, 1);
	api(&t, U(90), U(900), "cudaMalloc", 2);
	launch(&t, 910, 925, 1000, 3);
	if (!run_open(&r, &t, NULL)) {
		const struct gpa_gap *g = gap_at(&r, U(100));
		if (g) {
			CHECK_EQ_U(g->end, U(925));
			CHECK_EQ_U(g->cause, GPA_GAP_MEMORY);
			CHECK_EQ_U(g->cause_ns, U(800));
			CHECK_STR(api_name(&r, g->ev_api), "cudaMalloc");
		}
	}
	run_close(&r);
}

/* cuModuleLoadData, and a lazy-function-loading overhead record: both JIT / module load. */
TEST(gaps_jit_module_load)
{
	struct tw t;
	struct run r;

	tw_open(&t, "jit.gpz");
	launch(&t, 0, 20, 100, 1);
	api(&t, U(100), U(700), "cuModuleLoadData", 2);
	launch(&t, 710, 725, 800, 3);
	overhead(&t, U(800), U(1500), 5u << 16);
	launch(&t, 1500, 1520, 1600, 4);
	if (!run_open(&r, &t, NULL)) {
		const struct gpa_gap *g = gap_at(&r, U(100));
		if (g) {
			CHECK_EQ_U(g->cause, GPA_GAP_JIT);
			CHECK_EQ_U(g->cause_ns, U(600));
			CHECK_STR(api_name(&r, g->ev_api), "cuModuleLoadData");
		}
		g = gap_at(&r, U(800));
		if (g) {
			CHECK_EQ_U(g->cause, GPA_GAP_JIT);
			CHECK_EQ_U(g->cause_ns, U(700));
			CHECK(g->ev_ovh != GPA_NONE);
		}
	}
	run_close(&r);
}

/* A CUPTI buffer flush [110, 900) on the host while the GPU waits: profiler overhead. */
TEST(gaps_profiler_overhead)
{
	struct tw t;
	struct run r;

	tw_open(&t, "ovh.gpz");
	launch(&t, 0, 20, 100, 1);
	overhead(&t, U(110), U(900), 1u << 16);
	launch(&t, 950, 970, 1000, 2);
	if (!run_open(&r, &t, NULL)) {
		const struct gpa_gap *g = gap_at(&r, U(100));
		if (g) {
			CHECK_EQ_U(g->cause, GPA_GAP_PROFILER);
			CHECK_EQ_U(g->cause_ns, U(790));
			REQUIRE(g->ev_ovh != GPA_NONE);
			CHECK_EQ_U(r.m.ovh.kind[g->ev_ovh], 1u << 16);
		}
	}
	run_close(&r);
}

/*
 * Queued work: K2 on stream 2 was launched at 30 after a cudaStreamWaitEvent
 * on stream 2, and starts at 500 while the GPU idles from 100: a dependency
 * (400 us). K3, queued on stream 1, starts 5 us after K2 ends: launch latency.
 * K4 on stream 1, queued, starts 100 us after K3 with no wait recorded: a
 * dependency with the launch call as evidence.
 */
TEST(gaps_queued_dependency)
{
	struct tw t;
	struct run r;

	tw_open(&t, "dep.gpz");
	launch(&t, 0, 20, 100, 1);
	api(&t, U(15), U(18), "cudaStreamWaitEvent", 2);
	sync_rec(&t, U(15), U(18), 2, 2, 2);
	api(&t, U(30), U(40), "cudaLaunchKernel", 3);
	kernel(&t, U(500), U(600), 0, 2, 3, "k2");
	launch(&t, 50, 605, 700, 4);
	launch(&t, 70, 800, 900, 5);
	if (!run_open(&r, &t, NULL)) {
		const struct gpa_gap *g = gap_at(&r, U(100));
		if (g) {
			CHECK(g->queued);
			CHECK_EQ_U(g->cause, GPA_GAP_DEPENDENCY);
			CHECK_EQ_U(g->cause_ns, U(400));
			REQUIRE(g->ev_sync != GPA_NONE);
			CHECK_EQ_U(r.m.sync.stream[g->ev_sync], 2);
			CHECK_STR(api_name(&r, r.m.sync.api[g->ev_sync]), "cudaStreamWaitEvent");
		}
		g = gap_at(&r, U(600));
		if (g) {
			CHECK(g->queued);
			CHECK_EQ_U(g->cause, GPA_GAP_LAUNCH);
			CHECK_EQ_U(g->cause_ns, U(5));
		}
		g = gap_at(&r, U(700));
		if (g) {
			CHECK_EQ_U(g->cause, GPA_GAP_DEPENDENCY);
			CHECK_EQ_U(g->ev_sync, GPA_NONE);
			CHECK_EQ_U(r.m.api.corr[g->ev_api], 5);
		}
	}
	run_close(&r);
}

/*
 * Communication: an NCCL kernel on stream 3 ends at 300; K2, queued long
 * before on stream 1, starts at 350: waiting on NCCL. The same shape on the
 * NCCL kernel's own stream is only a dependency.
 */
TEST(gaps_communication_wait)
{
	struct tw t;
	struct run r;

	tw_open(&t, "comm.gpz");
	api(&t, U(0), U(10), "ncclAllReduce", 1);
	kernel(&t, U(20), U(300), 0, 3, 1, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
	launch(&t, 30, 350, 400, 2);
	api(&t, U(40), U(50), "cudaLaunchKernel", 3);
	kernel(&t, U(410), U(500), 0, 3, 3, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
	api(&t, U(60), U(70), "cudaLaunchKernel", 4);
	kernel(&t, U(600), U(700), 0, 3, 4, "k3");
	if (!run_open(&r, &t, NULL)) {
		const struct gpa_gap *g = gap_at(&r, U(300));
		if (g) {
			CHECK_EQ_U(g->cause, GPA_GAP_COMM);
			CHECK_EQ_U(g->cause_ns, U(50));
			REQUIRE(g->ev_kernel != GPA_NONE);
			CHECK_EQ_U(gpa_kern_end(&r.m, g->ev_kernel), U(300));
		}
		g = gap_at(&r, U(500));
		if (g) {
			CHECK_EQ_U(g->cause, GPA_GAP_DEPENDENCY);
		}
	}
	run_close(&r);
}

/*
 * Kernels of 2 us launched by 10 us calls 2 us apart: the GPU waits while
 * the next launch call runs (host side): launch overhead, 8 of each 10 us.
 */
TEST(gaps_back_to_back_launches)
{
	struct tw t;
	struct run r;

	tw_open(&t, "b2b.gpz");
	for (unsigned i = 0; i < 5; i++) {
		launch(&t, 12 * i, 12 * i + 8, 12 * i + 10, i + 1);
	}
	if (!run_open(&r, &t, NULL)) {
		CHECK_EQ_U(r.g.all.gaps, 4);
		CHECK_EQ_U(r.g.all.cause_n[GPA_GAP_LAUNCH], 4);
		CHECK_EQ_U(r.g.all.cause_ns[GPA_GAP_LAUNCH], U(40));
		const struct gpa_gap *g = gap_at(&r, U(10));
		if (g) {
			CHECK(!g->queued);
			CHECK_EQ_U(g->cause_ns, U(8)); /* 2 us between calls are CPU */
			CHECK_EQ_U(r.m.api.corr[g->ev_api], 2);
			CHECK_EQ_U(r.m.api.corr[g->launch], 2);
		}
	}
	run_close(&r);
}

/*
 * Streams overlap: no gap while any op runs, ops that abut leave none, a
 * memcpy counts as busy, and a sync record after the last op does not widen
 * the window (it is a host wait, not GPU work).
 */
TEST(gaps_overlapping_streams)
{
	struct tw t;
	struct run r;

	tw_open(&t, "overlap.gpz");
	launch(&t, 0, 0, 100, 1);
	api(&t, U(1), U(2), "cudaLaunchKernel", 2);
	kernel(&t, U(50), U(200), 0, 2, 2, "k2");
	launch(&t, 3, 150, 300, 3);
	api(&t, U(4), U(5), "cudaMemcpyAsync", 4);
	struct gpt_memcpy mc = {.start = U(300), .end = U(400), .device = 0, .stream = 2,
				.correlation = 4, .copy_kind = 1, .bytes = 1 << 20};
	CHECK_EQ_I(gpt_writer_add(t.w, GPT_KIND_MEMCPY, &mc), 0);
	api(&t, U(6), U(1000), "cudaStreamSynchronize", 5);
	sync_rec(&t, U(6), U(1000), 3, 5, 2);
	if (!run_open(&r, &t, NULL)) {
		CHECK_EQ_U(r.g.all.gaps, 0);
		CHECK_EQ_U(r.g.all.window, U(400));
		CHECK_EQ_U(r.g.all.busy, U(400));
		CHECK_EQ_U(r.g.all.ops, 4);
		CHECK_EQ_U(r.g.top.n, 0);
	}
	run_close(&r);
}

/*
 * Two devices: device 0 idles [100, 905) while device 1 runs an NCCL kernel
 * until 900 (the queued op on device 0 waits on it); device 1 has a 75 us
 * gap, 60 us of it CPU-bound inside NVTX 'forward'. --device selects one;
 * a missing one is an error.
 */
TEST(gaps_two_devices)
{
	struct tw t;
	struct run r;
	struct gpa_gaps_opts o;

	gpa_gaps_opts_init(&o);
	o.min_gap_ns = 0;
	o.top = SIZE_MAX;
	for (int pass = 0; pass < 3; pass++) {
		tw_open(&t, "two.gpz");
		launch(&t, 0, 20, 100, 1);
		launch(&t, 30, 905, 1000, 2);
		api(&t, U(40), U(50), "ncclAllReduce", 3);
		kernel(&t, U(100), U(900), 1, 9, 3, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL");
		nvtx(&t, U(900), U(960), "forward", GPT_NVTX_PUSH_POP);
		api(&t, U(960), U(970), "cudaLaunchKernel", 4);
		kernel(&t, U(975), U(1000), 1, 9, 4, "k1");
		o.device = pass == 0 ? -1 : pass == 1 ? 1 : 7;
		if (pass == 2) {
			char err[128] = "";
			const char *paths[] = {t.path};
			struct gpa_model m;
			struct gpa_gaps g;
			CHECK_EQ_I(gpt_writer_close(t.w), 0);
			REQUIRE(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) == 0);
			CHECK_EQ_I(gpa_gaps_analyze(&m, NULL, &o, &g, err, sizeof(err)),
				   -GP_ERR_NOTFOUND);
			CHECK_CONTAINS(err, "no device 7");
			gpa_gaps_release(&g);
			gpa_model_release(&m);
			break;
		}
		if (run_open(&r, &t, &o)) {
			run_close(&r);
			return;
		}
		if (pass == 0) {
			REQUIRE(r.g.devs.n == 2);
			CHECK_EQ_U(r.g.devs.v[0].t.window, U(980));
			CHECK_EQ_U(r.g.devs.v[0].t.idle, U(805));
			CHECK_EQ_U(r.g.devs.v[1].t.window, U(900));
			CHECK_EQ_U(r.g.devs.v[1].t.idle, U(75));
			CHECK_EQ_U(r.g.all.window, U(1880));
			const struct gpa_gap *g = gap_at(&r, U(100));
			if (g) {
				CHECK_EQ_U(g->dev, 0);
				CHECK_EQ_U(g->cause, GPA_GAP_COMM);
				REQUIRE(g->ev_kernel != GPA_NONE);
				CHECK_EQ_U(gpa_kern_dev(&r.m, g->ev_kernel), 1);
			}
			g = gap_at(&r, U(900));
			if (g) {
				CHECK_EQ_U(g->cause, GPA_GAP_CPU);
				CHECK_EQ_U(g->cause_ns, U(60));
				CHECK_STR(nvtx_name(&r, g->ev_nvtx), "forward");
			}
		} else {
			REQUIRE(r.g.devs.n == 1);
			CHECK_EQ_U(r.m.devs.v[r.g.devs.v[0].dev].id, 1);
			CHECK_EQ_U(r.g.all.idle, U(75));
			CHECK_EQ_U(r.g.top.n, 1);
		}
		run_close(&r);
	}
}

/* Gaps of 1 ns and 333 ns are counted exactly; the default list starts at 10 us. */
TEST(gaps_sub_microsecond)
{
	struct tw t;
	struct run r;

	tw_open(&t, "ns.gpz");
	api(&t, 0, 10, "cudaLaunchKernel", 1);
	kernel(&t, 1000, 2000, 0, 1, 1, "k");
	api(&t, 20, 30, "cudaLaunchKernel", 2);
	kernel(&t, 2001, 3000, 0, 1, 2, "k");
	api(&t, 40, 50, "cudaLaunchKernel", 3);
	kernel(&t, 3333, 4000, 0, 1, 3, "k");
	if (!run_open(&r, &t, NULL)) {
		CHECK_EQ_U(r.g.all.gaps, 2);
		CHECK_EQ_U(r.g.all.idle, 334);
		CHECK_EQ_U(r.g.all.busy, 2666);
		CHECK_EQ_U(r.g.all.hist_n[0], 2);
		CHECK_EQ_U(r.g.all.hist_ns[0], 334);
		CHECK_EQ_U(r.g.all.longest, 333);
		REQUIRE(r.g.top.n == 2);
		CHECK_EQ_U(r.g.top.v[0].end - r.g.top.v[0].start, 333);
		CHECK_EQ_U(r.g.top.v[1].end - r.g.top.v[1].start, 1);
		CHECK_EQ_U(r.g.top.v[1].cause, GPA_GAP_LAUNCH);
	}
	run_close(&r);
	/* Defaults: counted in totals, not listed. */
	tw_open(&t, "ns2.gpz");
	api(&t, 0, 10, "cudaLaunchKernel", 1);
	kernel(&t, 1000, 2000, 0, 1, 1, "k");
	api(&t, 20, 30, "cudaLaunchKernel", 2);
	kernel(&t, 2001, 3000, 0, 1, 2, "k");
	struct gpa_gaps_opts o;
	gpa_gaps_opts_init(&o);
	if (!run_open(&r, &t, &o)) {
		CHECK_EQ_U(r.g.all.gaps, 1);
		CHECK_EQ_U(r.g.all.listed, 0);
		CHECK_EQ_U(r.g.top.n, 0);
		CHECK_EQ_U(r.g.min_gap_ns, 10000);
	}
	run_close(&r);
}

/*
 * Steps: an op before the first step, ProfilerStep#0 and the last step
 * ProfilerStep#1, whose work runs after its CPU range ended. Each gap lies
 * in the stretch of the step whose first op it precedes; the last step and
 * its gap are kept.
 */
TEST(gaps_last_step_included)
{
	struct tw t;
	struct run r;

	tw_open(&t, "steps.gpz");
	launch(&t, 0, 20, 50, 1);
	nvtx(&t, U(100), U(1000), "ProfilerStep#0", GPT_NVTX_PUSH_POP);
	launch(&t, 110, 130, 400, 2);
	launch(&t, 120, 400, 600, 3);
	nvtx(&t, U(1000), U(1100), "ProfilerStep#1", GPT_NVTX_PUSH_POP);
	launch(&t, 1010, 1200, 1300, 4);
	launch(&t, 1020, 1400, 1500, 5);
	if (!run_open(&r, &t, NULL)) {
		REQUIRE(r.s.v.n == 2);
		REQUIRE(r.g.steps.n == 3);
		CHECK_EQ_U(r.g.steps.v[0].step, GPA_NONE);
		CHECK_EQ_U(r.g.steps.v[0].start, U(20));
		CHECK_EQ_U(r.g.steps.v[0].end, U(50));
		CHECK_EQ_U(r.g.steps.v[1].step, 0);
		CHECK_EQ_U(r.g.steps.v[1].start, U(50));
		CHECK_EQ_U(r.g.steps.v[1].end, U(600));
		CHECK_EQ_U(r.g.steps.v[1].t.idle, U(80));
		CHECK_EQ_U(r.g.steps.v[2].step, 1);
		CHECK_EQ_U(r.g.steps.v[2].start, U(600));
		CHECK_EQ_U(r.g.steps.v[2].end, U(1500));
		CHECK_EQ_U(r.g.steps.v[2].t.idle, U(700));
		CHECK_EQ_U(r.g.steps.v[2].t.gaps, 2);
		const struct gpa_gap *g = gap_at(&r, U(1300));
		if (g) {
			CHECK_EQ_U(g->step, 1);
			CHECK(g->queued);
			CHECK_STR(gpa_model_str(&r.m, r.m.nvtx.name[g->context]), "ProfilerStep#1");
		}
	}
	run_close(&r);
}

/* A kernel with no launch call recorded ends a gap: unknown, unless NCCL explains it. */
TEST(gaps_unknown_without_launch)
{
	struct tw t;
	struct run r;

	tw_open(&t, "unk.gpz");
	launch(&t, 0, 20, 100, 1);
	kernel(&t, U(500), U(600), 0, 1, 99, "graph_node");
	if (!run_open(&r, &t, NULL)) {
		const struct gpa_gap *g = gap_at(&r, U(100));
		if (g) {
			CHECK_EQ_U(g->cause, GPA_GAP_UNKNOWN);
			CHECK_EQ_U(g->launch, GPA_NONE);
			CHECK_EQ_U(g->thread, GPA_NONE);
		}
	}
	run_close(&r);
}

/* A bad data-loader pattern is an API error with the reason. */
TEST(gaps_bad_pattern)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_gaps g;
	struct gpa_gaps_opts o;
	char err[256] = "";
	const char *paths[1];

	tw_open(&t, "bad.gpz");
	launch(&t, 0, 20, 100, 1);
	CHECK_EQ_I(gpt_writer_close(t.w), 0);
	paths[0] = t.path;
	REQUIRE(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) == 0);
	gpa_gaps_opts_init(&o);
	o.data_regex = "(unclosed";
	CHECK_EQ_I(gpa_gaps_analyze(&m, NULL, &o, &g, err, sizeof(err)), -GP_ERR_API);
	CHECK_CONTAINS(err, "bad data-loader pattern");
	gpa_gaps_release(&g);
	gpa_model_release(&m);
}

/*
 * The generator's training loop on two devices: invariants hold, and each
 * inter-step gap is data loading (exactly the 3 ms range), or, where a
 * device finished early, the host sync that waited on the other device
 * for longer than that.
 */
TEST(gaps_generated_trace)
{
	struct gen_opts go;
	struct gen_stats gs;
	struct tw t;
	struct run r;

	gen_opts_default(&go);
	go.steps = 6;
	go.kernels_per_step = 60;
	go.devices = 2;
	go.gap_ns = 3000000;
	go.all_kinds = true;
	snprintf(t.path, sizeof(t.path), "%s/gen.gpz", test_tmpdir());
	REQUIRE(gpt_writer_open(t.path, NULL, &t.w) == 0);
	REQUIRE(gen_write(t.w, &go, &gs) == 0);
	struct gpa_gaps_opts o;
	gpa_gaps_opts_init(&o);
	o.top = SIZE_MAX;
	o.min_gap_ns = 1000000;
	if (!run_open(&r, &t, &o)) {
		CHECK_EQ_U(r.g.devs.n, 2);
		/* Five gaps between six steps on each device. */
		CHECK_EQ_U(r.g.top.n, 10);
		CHECK(r.g.all.cause_n[GPA_GAP_DATA] >= 5);
		for (size_t i = 0; i < r.g.top.n; i++) {
			const struct gpa_gap *g = &r.g.top.v[i];
			CHECK(g->step != GPA_NONE && g->step > 0);
			if (g->cause == GPA_GAP_DATA) {
				CHECK_EQ_U(g->cause_ns, 3000000);
				CHECK_STR(nvtx_name(&r, g->ev_nvtx), "DataLoader.__next__");
				CHECK_STR(api_name(&r, g->drain), "cudaStreamSynchronize");
			} else {
				CHECK_EQ_U(g->cause, GPA_GAP_SYNC);
				CHECK(g->cause_ns > 3000000);
				CHECK_STR(api_name(&r, g->ev_api), "cudaStreamSynchronize");
			}
		}
		/* Every step of every device has a stretch. */
		CHECK_EQ_U(r.g.steps.n, 12);
	}
	run_close(&r);
}
