/* SPDX-License-Identifier: MIT */
/*
 * Tests of the critical path and its what-if on small hand-written traces;
 * every step time and category below is worked out by hand (times in
 * microseconds, U()).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/commclass.h"
#include "analyze/critpath.h"
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
	struct gpt_api a = {.start = U(start), .end = U(end), .tid = TID,
			    .domain = GPT_API_RUNTIME, .name = S(t, name), .correlation = corr};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_API, &a), 0);
}

/* A launch call [a, b) and its kernel [s, e) on device 0. */
static void launch(struct tw *t, uint64_t a, uint64_t b, uint64_t s, uint64_t e, uint32_t stream,
		   uint32_t corr, const char *name)
{
	api(t, a, b, "cudaLaunchKernel", corr);
	struct gpt_kernel k = {.start = U(s), .end = U(e), .device = 0, .stream = stream,
			       .correlation = corr, .name = S(t, name), .grid_x = 1, .grid_y = 1,
			       .grid_z = 1, .block_x = 32, .block_y = 1, .block_z = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_KERNEL, &k), 0);
}

struct run {
	struct gpa_model m;
	struct gpa_steps s;
	struct gpa_commclass cc;
	struct gpa_critpath cp;
};

/* Loads t and analyzes it with the what-if (NULL patterns: none). */
static int run_open(struct run *r, struct tw *t, const char *speed, double f, const char *rm)
{
	char err[256] = "";
	const char *paths[] = {t->path};
	struct gpa_critpath_opts o = {.speedup_regex = speed, .speedup = f, .remove_regex = rm,
				      .top = 10};

	memset(r, 0, sizeof(*r));
	CHECK_EQ_I(gpt_writer_close(t->w), 0);
	if (gpa_model_load(&r->m, paths, 1, NULL, err, sizeof(err)) ||
	    gpa_steps_find(&r->m, NULL, &r->s, err, sizeof(err)) ||
	    gpa_commclass_compute(&r->m, NULL, &r->cc, err, sizeof(err))) {
		TFAIL("load: %s", err);
		return -1;
	}
	o.comm = &r->cc;
	int ret = gpa_critpath_analyze(&r->m, &r->s, &o, &r->cp, err, sizeof(err));
	if (ret) {
		TFAIL("critpath: %s", err);
		return ret;
	}
	/* Every ns of each step lands in exactly one category. */
	for (size_t i = 0; i < r->cp.steps.n; i++) {
		const struct gpa_cp_step *st = &r->cp.steps.v[i];
		uint64_t a = 0, b = 0;
		for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
			a += st->now.cat_ns[k];
			b += st->what_if.cat_ns[k];
		}
		CHECK_EQ_U(a, st->now.end - st->start);
		CHECK_EQ_U(b, st->what_if.end - st->start);
	}
	return 0;
}

static void run_close(struct run *r)
{
	gpa_critpath_release(&r->cp);
	gpa_commclass_release(&r->cc);
	gpa_steps_release(&r->s);
	gpa_model_release(&r->m);
}

/*
 * Launch A [0,10) -> K1 [20,120) on stream 1; launch B [10,20) -> K2 [30,50)
 * on stream 2; cudaDeviceSynchronize [20,125) waits for K1. Path: launch
 * edge 0..20, K1 100, the sync's tail 5: 125 us.
 */
static void two_kernels(struct tw *t)
{
	launch(t, 0, 10, 20, 120, 1, 1, "k_long");
	launch(t, 10, 20, 30, 50, 2, 2, "k_short");
	api(t, 20, 125, "cudaDeviceSynchronize", 3);
}

TEST(critpath_kernel_on_path)
{
	struct tw t;
	struct run r;

	tw_open(&t, "cp1.gpz");
	two_kernels(&t);
	REQUIRE(run_open(&r, &t, "k_long", 4, NULL) == 0);
	REQUIRE(r.cp.steps.n == 1);
	const struct gpa_cp_step *st = &r.cp.steps.v[0];
	CHECK_EQ_U(st->start, U(0));
	CHECK_EQ_U(st->now.end, U(125));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_KERNEL], U(100));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_LAUNCH], U(20));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_CPU], U(0));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_SYNC], U(5));
	CHECK_EQ_U(gpa_cp_bound(&st->now), GPA_CP_KERNEL);
	/* K1 four times faster: 25 us; the sync returns at 50, K2 ends at 50 too. */
	CHECK_EQ_U(st->matched, 1);
	CHECK_EQ_U(st->what_if.end, U(50));
	CHECK_EQ_U(st->what_if.cat_ns[GPA_CP_KERNEL], U(25));
	CHECK_EQ_U(st->what_if.cat_ns[GPA_CP_LAUNCH], U(20));
	CHECK_EQ_U(st->what_if.cat_ns[GPA_CP_SYNC], U(5));
	/* The longest segment is K1 itself. */
	const struct gpa_cp_seg *g = &r.cp.segs.v[st->now.top_first];
	CHECK_EQ_U(g->end - g->start, U(100));
	CHECK_EQ_U(g->kind, 1);
	run_close(&r);
}

TEST(critpath_kernel_off_path)
{
	struct tw t;
	struct run r;

	tw_open(&t, "cp2.gpz");
	two_kernels(&t);
	REQUIRE(run_open(&r, &t, "k_short", 10, NULL) == 0);
	const struct gpa_cp_step *st = &r.cp.steps.v[0];
	CHECK_EQ_U(st->now.end, U(125));
	CHECK_EQ_U(st->what_if.end, U(125)); /* K2 is off the path: nothing gained */
	run_close(&r);
}

TEST(critpath_remove_moves_path)
{
	struct tw t;
	struct run r;

	tw_open(&t, "cp3.gpz");
	two_kernels(&t);
	REQUIRE(run_open(&r, &t, NULL, 0, "k_long") == 0);
	const struct gpa_cp_step *st = &r.cp.steps.v[0];
	/* Without K1 the path is A 10, launch edge of K2 from B's start 20, K2 20. */
	CHECK_EQ_U(st->what_if.end, U(50));
	CHECK_EQ_U(st->what_if.cat_ns[GPA_CP_KERNEL], U(20));
	CHECK_EQ_U(st->what_if.cat_ns[GPA_CP_LAUNCH], U(30));
	run_close(&r);
}

/*
 * K2 on stream 2 waits for K1 on stream 1 (an event the graph infers): it
 * starts 2 us after K1 ends although launched long before.
 */
TEST(critpath_two_streams)
{
	struct tw t;
	struct run r;

	tw_open(&t, "cp4.gpz");
	launch(&t, 0, 10, 10, 100, 1, 1, "producer");
	launch(&t, 10, 20, 102, 132, 2, 2, "consumer");
	api(&t, 20, 137, "cudaDeviceSynchronize", 3);
	REQUIRE(run_open(&r, &t, "producer", 2, NULL) == 0);
	const struct gpa_cp_step *st = &r.cp.steps.v[0];
	CHECK_EQ_U(st->now.end, U(137));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_WAIT_STREAM], U(2));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_KERNEL], U(120));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_LAUNCH], U(10));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_CPU], U(0));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_SYNC], U(5));
	/* producer 45 us: ends at 55, consumer 57..87, sync returns at 92. */
	CHECK_EQ_U(st->what_if.end, U(92));
	run_close(&r);
}

/*
 * A host sync after the kernel ended waits for nothing: CPU bound. The
 * ProfilerStep range ends 20 us after the sync returns.
 */
TEST(critpath_host_bound_step)
{
	struct tw t;
	struct run r;

	tw_open(&t, "cp5.gpz");
	struct gpt_nvtx n = {.start = U(0), .end = U(80), .type = GPT_NVTX_PUSH_POP,
			     .message = S(&t, "ProfilerStep#1"), .start_tid = TID, .end_tid = TID};
	CHECK_EQ_I(gpt_writer_add(t.w, GPT_KIND_NVTX, &n), 0);
	launch(&t, 0, 10, 15, 25, 1, 1, "k");
	api(&t, 50, 60, "cudaStreamSynchronize", 2);
	REQUIRE(run_open(&r, &t, "k", 10, NULL) == 0);
	REQUIRE(r.cp.steps.n == 1);
	const struct gpa_cp_step *st = &r.cp.steps.v[0];
	CHECK_EQ_U(st->now.end, U(80));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_CPU], U(60));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_SYNC], U(10));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_LAUNCH], U(10));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_KERNEL], U(0));
	CHECK_EQ_U(gpa_cp_bound(&st->now), GPA_CP_CPU);
	CHECK_EQ_U(st->what_if.end, U(80));
	run_close(&r);
}

/* A sync that waits: the host sync call ends when the kernel does. */
TEST(critpath_host_sync_waits)
{
	struct tw t;
	struct run r;

	tw_open(&t, "cp6.gpz");
	launch(&t, 0, 10, 12, 212, 1, 1, "k");
	api(&t, 10, 215, "cudaStreamSynchronize", 2);
	api(&t, 230, 240, "cudaFree", 3);
	REQUIRE(run_open(&r, &t, "k", 2, NULL) == 0);
	const struct gpa_cp_step *st = &r.cp.steps.v[0];
	/* launch 12, kernel 200, sync tail 3, host 15 + cudaFree 10 */
	CHECK_EQ_U(st->now.end, U(240));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_KERNEL], U(200));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_LAUNCH], U(12));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_CPU], U(25));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_SYNC], U(3));
	/* kernel 100: sync returns at 115, cudaFree ends at 140 */
	CHECK_EQ_U(st->what_if.end, U(140));
	run_close(&r);
}

/* A sync record as CUPTI writes it: type 5 is a cudaEventRecord's (FORMAT.md). */
static void sync_rec(struct tw *t, uint64_t start, uint64_t end, uint8_t type, uint32_t corr,
		     uint32_t stream, uint64_t sync_id)
{
	struct gpt_sync y = {.start = U(start), .end = U(end), .type = type, .correlation = corr,
			     .context = 1, .stream = stream, .event_id = 1, .event_sync_id = sync_id};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_SYNC, &y), 0);
}

/*
 * Two streams joined by an event, in CUPTI's terms (event sync ids): launch
 * A [0,10) -> K_A [20,120) on stream 1; cudaEventRecord [10,12) on stream 1
 * (id 77); cudaStreamWaitEvent [12,14) of stream 2 on it; launch B [14,20)
 * -> K_B [121,141) on stream 2; launch C [20,22) -> K_C [25,121) on stream
 * 3, which ends after K_A (the inference alone would pick it); then
 * cudaEventRecord [22,23) on stream 2 (id 88) and cudaEventSynchronize
 * [23,145) on it. Path: launch 0..20, K_A 100, the event 1, K_B 20, the
 * sync's tail 4: 145 us.
 */
TEST(critpath_event_edges)
{
	struct tw t;
	struct run r;

	tw_open(&t, "cp8.gpz");
	launch(&t, 0, 10, 20, 120, 1, 1, "k_a");
	api(&t, 10, 12, "cudaEventRecord", 2);
	sync_rec(&t, 120, 120, 5, 2, 1, 77);
	api(&t, 12, 14, "cudaStreamWaitEvent", 3);
	sync_rec(&t, 12, 14, 2, 3, 2, 77);
	launch(&t, 14, 20, 121, 141, 2, 4, "k_b");
	launch(&t, 20, 22, 25, 121, 3, 5, "k_c");
	api(&t, 22, 23, "cudaEventRecord", 7);
	sync_rec(&t, 141, 141, 5, 7, 2, 88);
	api(&t, 23, 145, "cudaEventSynchronize", 6);
	sync_rec(&t, 23, 145, 1, 6, 0, 88);
	REQUIRE(run_open(&r, &t, "k_a", 4, NULL) == 0);
	/* the model: the event records are not syncs; the waits name their recording */
	REQUIRE(r.m.sync.n == 2);
	REQUIRE(r.m.evrec.n == 2);
	for (size_t i = 0; i < r.m.sync.n; i++) {
		uint32_t want = r.m.sync.type[i] == 2 ? 2 : 7;
		CHECK_EQ_U(r.m.sync.rec_corr[i], want);
		CHECK_EQ_U(r.m.sync.rec_stream[i], r.m.sync.type[i] == 2 ? 1 : 2);
		REQUIRE(r.m.sync.rec_api[i] != GPA_NONE);
		CHECK_EQ_U(r.m.api.corr[r.m.sync.rec_api[i]], want);
	}
	REQUIRE(r.cp.steps.n == 1);
	const struct gpa_cp_step *st = &r.cp.steps.v[0];
	CHECK_EQ_U(st->now.end, U(145));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_LAUNCH], U(20));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_KERNEL], U(120));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_WAIT_STREAM], U(1));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_CPU], U(0));
	CHECK_EQ_U(st->now.cat_ns[GPA_CP_SYNC], U(4));
	/*
	 * K_A four times faster (25 us): K_B follows the event at 46 and ends
	 * at 66, the sync returns at 70; K_C, unchanged, now ends the step at 121.
	 */
	CHECK_EQ_U(st->what_if.end, U(121));
	CHECK_EQ_U(st->what_if.cat_ns[GPA_CP_KERNEL], U(96));
	run_close(&r);
}

/* A PyTorch CPU operator [start, end) on the test's thread, as the Kineto importer writes it. */
static void cpu_op(struct tw *t, uint64_t start, uint64_t end, const char *name)
{
	struct gpt_nvtx n = {.start = U(start), .end = U(end), .type = GPT_NVTX_PUSH_POP,
			     .domain = S(t, "cpu_op"), .message = S(t, name), .start_tid = TID,
			     .end_tid = TID};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_NVTX, &n), 0);
}

/*
 * CPU ops as what-if targets: cudaMalloc [0,10); the CPU op aten::slow
 * [10,50) holds the thread with no call in it; inside aten::fast [50,64),
 * launch [50,60) -> k [62,70). Path: cpu 10 + 40, launch 12, kernel 8: 70
 * us. aten::slow four times faster: 10 us instead of 40, the launch at 20,
 * k at [32,40): 40. Removing it: 30. Speeding up aten::fast twice halves
 * the launch call, but the launch edge runs from the call's start (its
 * recorded lag, 12 us, set k's start): nothing moves.
 */
TEST(critpath_cpu_op_what_if)
{
	static const struct {
		const char *sp, *rm;
		double f;
		uint64_t end;
	} cases[] = {
		{"aten::slow", NULL, 4, 40},
		{NULL, "slow", 1, 30},
		{"^aten::fast$", NULL, 2, 70},
		{"no_such_op", NULL, 2, 70},
	};

	for (size_t i = 0; i < GP_ARRAY_SIZE(cases); i++) {
		struct tw t;
		struct run r;
		char name[32];

		snprintf(name, sizeof(name), "cp9-%zu.gpz", i);
		tw_open(&t, name);
		api(&t, 0, 10, "cudaMalloc", 1);
		cpu_op(&t, 10, 50, "aten::slow");
		cpu_op(&t, 50, 64, "aten::fast");
		launch(&t, 50, 60, 62, 70, 1, 2, "k");
		REQUIRE(run_open(&r, &t, cases[i].sp, cases[i].f, cases[i].rm) == 0);
		REQUIRE(r.cp.steps.n == 1);
		const struct gpa_cp_step *st = &r.cp.steps.v[0];
		CHECK_EQ_U(st->now.end, U(70));
		CHECK_EQ_U(st->now.cat_ns[GPA_CP_CPU], U(50));
		CHECK_EQ_U(st->now.cat_ns[GPA_CP_LAUNCH], U(12));
		CHECK_EQ_U(st->now.cat_ns[GPA_CP_KERNEL], U(8));
		CHECK_EQ_U(st->matched, 0);
		CHECK_EQ_U(st->what_if.end, U(cases[i].end));
		run_close(&r);
	}
}

TEST(critpath_bad_pattern)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_steps s;
	struct gpa_commclass cc;
	struct gpa_critpath cp;
	char err[256] = "";
	const char *paths[] = {t.path};

	tw_open(&t, "cp7.gpz");
	launch(&t, 0, 10, 12, 20, 1, 1, "k");
	CHECK_EQ_I(gpt_writer_close(t.w), 0);
	REQUIRE(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) == 0);
	REQUIRE(gpa_steps_find(&m, NULL, &s, err, sizeof(err)) == 0);
	REQUIRE(gpa_commclass_compute(&m, NULL, &cc, err, sizeof(err)) == 0);
	struct gpa_critpath_opts o = {.comm = &cc, .remove_regex = "(", .top = 3};
	CHECK_EQ_I(gpa_critpath_analyze(&m, &s, &o, &cp, err, sizeof(err)), -GP_ERR_API);
	CHECK_CONTAINS(err, "bad remove pattern '('");
	gpa_critpath_release(&cp);
	gpa_commclass_release(&cc);
	gpa_steps_release(&s);
	gpa_model_release(&m);
}

static void same_path(const struct gpa_cp_path *a, const struct gpa_cp_path *b)
{
	CHECK_EQ_U(a->end, b->end);
	for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
		CHECK_EQ_U(a->cat_ns[k], b->cat_ns[k]);
	}
	for (unsigned k = 0; k < GPA_CPC__COUNT; k++) {
		CHECK_EQ_U(a->copy_ns[k], b->copy_ns[k]);
	}
	CHECK_EQ_U(a->pageable_ns, b->pageable_ns);
	CHECK_EQ_U(a->segs, b->segs);
	CHECK_EQ_U(a->top_first, b->top_first);
	CHECK_EQ_U(a->top_n, b->top_n);
	CHECK_EQ_U(a->path_first, b->path_first);
	CHECK_EQ_U(a->path_n, b->path_n);
}

/* Steps, segments and events of two results, field by field. */
static void same_critpath(const struct gpa_critpath *a, const struct gpa_critpath *b)
{
	CHECK_EQ_U(a->cycles, b->cycles);
	REQUIRE(a->steps.n == b->steps.n);
	REQUIRE(a->segs.n == b->segs.n);
	REQUIRE(a->path.n == b->path.n);
	for (size_t i = 0; i < a->steps.n; i++) {
		const struct gpa_cp_step *x = &a->steps.v[i], *y = &b->steps.v[i];
		CHECK_EQ_U(x->step, y->step);
		CHECK_EQ_U(x->proc, y->proc);
		CHECK_EQ_U(x->start, y->start);
		CHECK_EQ_U(x->nodes, y->nodes);
		CHECK_EQ_U(x->matched, y->matched);
		same_path(&x->now, &y->now);
		same_path(&x->what_if, &y->what_if);
	}
	for (size_t i = 0; i < a->segs.n; i++) {
		CHECK_EQ_U(a->segs.v[i].start, b->segs.v[i].start);
		CHECK_EQ_U(a->segs.v[i].end, b->segs.v[i].end);
		CHECK_EQ_U(a->segs.v[i].row, b->segs.v[i].row);
		CHECK_EQ_U(a->segs.v[i].cat, b->segs.v[i].cat);
		CHECK_EQ_U(a->segs.v[i].kind, b->segs.v[i].kind);
	}
	for (size_t i = 0; i < a->path.n; i++) {
		CHECK_EQ_U(a->path.v[i].start, b->path.v[i].start);
		CHECK_EQ_U(a->path.v[i].end, b->path.v[i].end);
		CHECK_EQ_U(a->path.v[i].row, b->path.v[i].row);
	}
}

/*
 * The steps split over two threads give what one thread gives: steps in
 * order, each path's segments and events where one run puts them. The
 * trace has enough GPU ops (80,000) for the split, syncs halfway through
 * each step, and a what-if, so both halves hold every kind of edge.
 */
TEST(critpath_two_threads_same)
{
	struct tw t;
	struct gen_opts go;
	struct gen_stats gs;
	struct gpa_model m;
	struct gpa_steps s;
	struct gpa_commclass cc;
	struct gpa_critpath one, two;
	char err[256] = "";
	const char *paths[] = {t.path};

	tw_open(&t, "cp-threads.gpz");
	gen_opts_default(&go);
	go.steps = 40;
	go.kernels_per_step = 1000;
	go.devices = 2;
	go.item_sync = true;
	REQUIRE(gen_write(t.w, &go, &gs) == 0);
	CHECK_EQ_I(gpt_writer_close(t.w), 0);
	REQUIRE(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) == 0);
	REQUIRE(gpa_steps_find(&m, NULL, &s, err, sizeof(err)) == 0);
	REQUIRE(gpa_commclass_compute(&m, NULL, &cc, err, sizeof(err)) == 0);
	REQUIRE(s.v.n == 40);
	REQUIRE(gpa_gpu_rows(&m) >= 80000);
	for (int wi = 0; wi < 2; wi++) {
		struct gpa_critpath_opts o = {.comm = &cc, .top = 4, .keep_path = true};
		if (wi) {
			o.speedup_regex = "gemm";
			o.speedup = 2;
		}
		REQUIRE(gpa_critpath_analyze(&m, &s, &o, &one, err, sizeof(err)) == 0);
		o.threads = 2;
		REQUIRE(gpa_critpath_analyze(&m, &s, &o, &two, err, sizeof(err)) == 0);
		CHECK(one.steps.n == 40);
		CHECK(one.path.n > 0);
		same_critpath(&one, &two);
		gpa_critpath_release(&one);
		gpa_critpath_release(&two);
	}
	gpa_commclass_release(&cc);
	gpa_steps_release(&s);
	gpa_model_release(&m);
}
