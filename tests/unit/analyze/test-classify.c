/* SPDX-License-Identifier: MIT */
/*
 * Tests of the shared classification on small written traces: steps from
 * repeating annotations (never Python frames or CPU ops, never a step
 * without GPU work), data-loader ranges and their conflicting evidence, and
 * communication kernels (records, launching CPU op, kernel names, peer
 * copies) as gaps, comm and breakdown all see them. Times in us (U()).
 */
#include "base/compat.h"
#include "analyze/breakdown.h"
#include "analyze/comm.h"
#include "analyze/commclass.h"
#include "analyze/gaps.h"
#include "analyze/model.h"
#include "analyze/steps.h"
#include "tests/unit/test.h"

#include <stdio.h>

#define U(x) ((uint64_t)(x) * 1000u)
#define TID 100

struct tw {
	struct gpt_writer *w;
	char path[512];
	uint32_t corr;
};

static void tw_open(struct tw *t, const char *name)
{
	snprintf(t->path, sizeof(t->path), "%s/%s", test_tmpdir(), name);
	CHECK_EQ_I(gpt_writer_open(t->path, NULL, &t->w), 0);
	struct gpt_process p = {.pid = 7, .rank = -1, .phase = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_PROCESS, &p), 0);
	t->corr = 1;
}

static uint32_t S(struct tw *t, const char *s)
{
	uint32_t id = 0;
	CHECK_EQ_I(gpt_writer_intern_cstr(t->w, s, &id), 0);
	return id;
}

/* A push/pop range [a, b) us on TID in domain dom ("" NVTX, "cpu_op", "python_function"...). */
static void range(struct tw *t, uint64_t a, uint64_t b, const char *dom, const char *name)
{
	struct gpt_nvtx n = {.start = U(a), .end = U(b), .type = GPT_NVTX_PUSH_POP,
			     .domain = *dom ? S(t, dom) : 0, .message = S(t, name),
			     .start_tid = TID, .end_tid = TID};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_NVTX, &n), 0);
}

/* A launch call at a us (1 us long) and its kernel [s, e) on stream st. */
static void launch(struct tw *t, uint64_t a, uint64_t s, uint64_t e, uint32_t st, const char *k)
{
	uint32_t c = t->corr++;
	struct gpt_api api = {.start = U(a), .end = U(a + 1), .tid = TID,
			      .domain = GPT_API_RUNTIME, .name = S(t, "cudaLaunchKernel"),
			      .correlation = c};
	struct gpt_kernel kr = {.start = U(s), .end = U(e), .device = 0, .stream = st,
				.correlation = c, .name = S(t, k), .grid_x = 1, .grid_y = 1,
				.grid_z = 1, .block_x = 32, .block_y = 1, .block_z = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_API, &api), 0);
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_KERNEL, &kr), 0);
}

static void load(struct tw *t, struct gpa_model *m)
{
	char err[256] = "";
	const char *paths[] = {t->path};

	CHECK_EQ_I(gpt_writer_close(t->w), 0);
	if (gpa_model_load(m, paths, 1, NULL, err, sizeof(err))) {
		TFAIL("load: %s", err);
	}
}

/* ------------------------------------------------------------------ steps */

/*
 * Three "decode" annotations hold all GPU work; four Python frames named like
 * iterations (the fallback pattern of old) and two CPU ops hold none or
 * little. Steps: the three decode ranges.
 */
TEST(steps_from_repeating_annotation)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_steps s;
	char err[256];

	tw_open(&t, "steps-repeat.gpz");
	for (int i = 0; i < 4; i++) {
		range(&t, 5 + i * 2, 6 + i * 2, "python_function", "torch/utils/_pytree.py(1): tree_iter");
	}
	for (int i = 0; i < 3; i++) {
		uint64_t b = 100 + (uint64_t)i * 100;
		range(&t, b, b + 50, "user_annotation", "decode");
		range(&t, b + 10, b + 20, "cpu_op", "aten::mm");
		launch(&t, b + 11, b + 12, b + 60, 1, "gemm");
	}
	/* A fourth decode with no GPU work is no step. */
	range(&t, 500, 550, "user_annotation", "decode");
	load(&t, &m);
	CHECK(m.nvtx.n == 11);
	for (size_t i = 0; i < m.nvtx.n; i++) {
		const char *d = gpa_model_str(&m, m.nvtx.domain[i]);
		uint8_t want = !strcmp(d, "python_function") ? GPA_RANGE_PYTHON
			       : !strcmp(d, "cpu_op")       ? GPA_RANGE_CPU_OP
							    : GPA_RANGE_ANNOTATION;
		CHECK_EQ_U(m.nvtx.origin[i], want);
	}
	REQUIRE(!gpa_steps_find(&m, NULL, &s, err, sizeof(err)));
	CHECK_EQ_U(s.source, GPA_STEPS_REPEAT);
	CHECK_EQ_U(s.v.n, 3);
	for (size_t i = 0; i < s.v.n; i++) {
		CHECK_STR(gpa_model_str(&m, s.v.v[i].name), "decode");
		CHECK_EQ_U(s.v.v[i].gpu_ops, 1);
	}
	CHECK_EQ_U(s.unassigned_ops, 0);
	gpa_steps_release(&s);
	/* A named pattern still takes any range, Python frames included. */
	REQUIRE(!gpa_steps_find(&m, "tree_iter", &s, err, sizeof(err)));
	CHECK_EQ_U(s.source, GPA_STEPS_NVTX);
	CHECK_EQ_U(s.v.n, 4);
	gpa_steps_release(&s);
	gpa_model_release(&m);
}

/* Repeating annotations that hold under half the GPU time, or only Python frames: none. */
TEST(steps_whole_trace_without_evidence)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_steps s;
	char err[256];

	tw_open(&t, "steps-none.gpz");
	for (int i = 0; i < 3; i++) {
		uint64_t b = 100 + (uint64_t)i * 100;
		range(&t, b, b + 10, "user_annotation", "log_metrics");
		launch(&t, b + 1, b + 2, b + 5, 1, "fill");          /* 3 us inside */
		launch(&t, b + 20, b + 21, b + 60, 1, "gemm");       /* 39 us outside */
		range(&t, b + 19, b + 70, "python_function", "train.py(3): step");
	}
	load(&t, &m);
	REQUIRE(!gpa_steps_find(&m, NULL, &s, err, sizeof(err)));
	CHECK_EQ_U(s.source, GPA_STEPS_WHOLE);
	CHECK_EQ_U(s.v.n, 1);
	gpa_steps_release(&s);
	gpa_model_release(&m);
}

/*
 * PyTorch opens ProfilerStep#N+1 inside profiler.step(), a Python frame that
 * began inside ProfilerStep#N: the frame's parent is step N, step N+1's
 * parent the frame. Step N+1 is not nested in step N all the same.
 */
TEST(steps_profiler_step_opened_inside_a_frame)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_steps s;
	char err[256];

	tw_open(&t, "steps-crossing.gpz");
	for (int i = 0; i < 3; i++) {
		char name[32];
		uint64_t b = 100 + (uint64_t)i * 100;
		snprintf(name, sizeof(name), "ProfilerStep#%d", i);
		range(&t, b, b + 98, "user_annotation", name);
		launch(&t, b + 10, b + 11, b + 50, 1, "gemm");
		range(&t, b + 95, b + 105, "python_function",
		      "torch/profiler/profiler.py(811): step");
	}
	load(&t, &m);
	/* As the model nests them: step 1 in the first frame, that frame in step 0. */
	size_t s1 = 0;
	while (s1 < m.nvtx.n && strcmp(gpa_model_str(&m, m.nvtx.name[s1]), "ProfilerStep#1")) {
		s1++;
	}
	REQUIRE(s1 < m.nvtx.n && m.nvtx.parent[s1] != GPA_NONE);
	uint32_t frame = m.nvtx.parent[s1];
	REQUIRE(m.nvtx.parent[frame] != GPA_NONE);
	CHECK_STR(gpa_model_str(&m, m.nvtx.name[m.nvtx.parent[frame]]), "ProfilerStep#0");
	REQUIRE(!gpa_steps_find(&m, NULL, &s, err, sizeof(err)));
	CHECK_EQ_U(s.source, GPA_STEPS_NVTX);
	CHECK_EQ_U(s.v.n, 3);
	CHECK_EQ_U(s.unassigned_ops, 0);
	gpa_steps_release(&s);
	gpa_model_release(&m);
}

/* ---------------------------------------------------- steps from the training loop */

#define FETCH "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
#define ZERO_GRAD "Optimizer.zero_grad#SGD.zero_grad"
#define OPT_STEP "Optimizer.step#SGD.step"

/*
 * One training-loop iteration at b us: a DataLoader fetch, the input copy,
 * zero_grad, a "forward" annotation around the model's kernel (most GPU
 * time), the optimizer step with its kernel, and a logging kernel after it.
 * Four launches, all before b + 1000.
 */
static void loop_iteration(struct tw *t, uint64_t b, bool fetch, bool zero_grad, bool step)
{
	if (fetch) {
		range(t, b, b + 50, "user_annotation", FETCH);
	}
	launch(t, b + 60, b + 61, b + 70, 1, "copy_kernel");
	if (zero_grad) {
		range(t, b + 100, b + 110, "user_annotation", ZERO_GRAD);
	}
	range(t, b + 150, b + 450, "user_annotation", "forward");
	launch(t, b + 200, b + 201, b + 900, 1, "gemm");
	if (step) {
		range(t, b + 500, b + 600, "user_annotation", OPT_STEP);
	}
	launch(t, b + 510, b + 901, b + 950, 1, "sgd");
	launch(t, b + 800, b + 951, b + 960, 1, "log");
}

/*
 * Four iterations marked only by the loop's annotations, a set-up kernel
 * before them and an evaluation kernel well after: four steps, each from its
 * fetch to the next; the last ends at its optimizer step's end plus the
 * 400 us the others ran after theirs. The "forward" annotation holds most
 * GPU work but is not named like a step: the loop's iterations win.
 */
TEST(steps_from_training_loop)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_steps s;
	char err[256];

	tw_open(&t, "steps-loop.gpz");
	launch(&t, 10, 11, 12, 1, "setup");
	for (int i = 0; i < 4; i++) {
		loop_iteration(&t, 1000 + (uint64_t)i * 1000, true, true, true);
	}
	launch(&t, 6000, 6001, 6002, 1, "eval");
	load(&t, &m);
	REQUIRE(!gpa_steps_find(&m, NULL, &s, err, sizeof(err)));
	CHECK_EQ_U(s.source, GPA_STEPS_LOOP);
	REQUIRE(s.v.n == 4);
	for (size_t i = 0; i < s.v.n; i++) {
		const struct gpa_step *st = &s.v.v[i];
		CHECK_STR(gpa_model_str(&m, st->name), FETCH);
		CHECK_EQ_I(st->number, (int64_t)i);
		CHECK_EQ_U(st->start, U(1000 + i * 1000));
		CHECK_EQ_U(st->end, i < 3 ? U(2000 + i * 1000) : U(5000));
		CHECK_EQ_U(st->gpu_ops, 4);
	}
	CHECK_EQ_U(s.unassigned_ops, 2); /* set-up and evaluation */
	gpa_steps_release(&s);
	/* The ranges alone give the same steps. */
	REQUIRE(!gpa_steps_find_ranges(&m, NULL, &s, err, sizeof(err)));
	CHECK_EQ_U(s.source, GPA_STEPS_LOOP);
	CHECK_EQ_U(s.v.n, 4);
	gpa_steps_release(&s);
	gpa_model_release(&m);
}

/*
 * Without a fetch, zero_grad opens each iteration (the input copy before it
 * counts in the iteration before); with optimizer steps alone, each
 * iteration ends with its step, the first beginning at the first launch.
 */
TEST(steps_from_training_loop_families)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_steps s;
	char err[256];

	tw_open(&t, "steps-loop-zg.gpz");
	for (int i = 0; i < 3; i++) {
		loop_iteration(&t, 1000 + (uint64_t)i * 1000, false, true, true);
	}
	load(&t, &m);
	REQUIRE(!gpa_steps_find(&m, NULL, &s, err, sizeof(err)));
	CHECK_EQ_U(s.source, GPA_STEPS_LOOP);
	REQUIRE(s.v.n == 3);
	CHECK_STR(gpa_model_str(&m, s.v.v[0].name), ZERO_GRAD);
	CHECK_EQ_U(s.v.v[0].start, U(1100));
	CHECK_EQ_U(s.v.v[1].start, U(2100));
	/* Its step's end + the 500 us after the others' (2100 - 1600), cut at the thread's last call. */
	CHECK_EQ_U(s.v.v[2].end, U(3801));
	CHECK_EQ_U(s.v.v[0].gpu_ops, 4); /* three of its own, the next one's copy */
	CHECK_EQ_U(s.unassigned_ops, 1); /* the first copy */
	gpa_steps_release(&s);
	gpa_model_release(&m);

	tw_open(&t, "steps-loop-opt.gpz");
	for (int i = 0; i < 3; i++) {
		loop_iteration(&t, 1000 + (uint64_t)i * 1000, false, false, true);
	}
	load(&t, &m);
	REQUIRE(!gpa_steps_find(&m, NULL, &s, err, sizeof(err)));
	CHECK_EQ_U(s.source, GPA_STEPS_LOOP);
	REQUIRE(s.v.n == 3);
	CHECK_STR(gpa_model_str(&m, s.v.v[0].name), OPT_STEP);
	CHECK_EQ_U(s.v.v[0].start, U(1060));
	CHECK_EQ_U(s.v.v[0].end, U(1600));
	CHECK_EQ_U(s.v.v[1].start, U(1600));
	CHECK_EQ_U(s.v.v[2].end, U(3600));
	CHECK_EQ_U(s.unassigned_ops, 1); /* the last log kernel, after the last step */
	gpa_steps_release(&s);
	gpa_model_release(&m);
}

/*
 * NVTX ranges (nsys with emit_nvtx) count as the profiler's annotations do;
 * Python frames never do, whatever their name: two optimizer.py zero_grad
 * frames per iteration would disagree with the fetches. Without an
 * optimizer step the last iteration ends after the median iteration or at
 * the thread's last call, whichever is first.
 */
TEST(steps_from_training_loop_nvtx_not_frames)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_steps s;
	char err[256];

	tw_open(&t, "steps-loop-nvtx.gpz");
	for (int i = 0; i < 3; i++) {
		uint64_t b = 1000 + (uint64_t)i * 1000;
		range(&t, b, b + 50, "", FETCH);
		range(&t, b + 100, b + 110, "python_function",
		      "torch/optim/optimizer.py(939): zero_grad");
		range(&t, b + 120, b + 130, "python_function",
		      "torch/optim/optimizer.py(939): zero_grad");
		launch(&t, b + 200, b + 201, b + 800, 1, "gemm");
	}
	load(&t, &m);
	REQUIRE(!gpa_steps_find(&m, NULL, &s, err, sizeof(err)));
	CHECK_EQ_U(s.source, GPA_STEPS_LOOP);
	REQUIRE(s.v.n == 3);
	CHECK_EQ_U(s.v.v[0].start, U(1000));
	CHECK_EQ_U(s.v.v[0].end, U(2000));
	CHECK_EQ_U(s.v.v[2].start, U(3000));
	CHECK_EQ_U(s.v.v[2].end, U(3201)); /* the last launch call's end, before 3000 + 1000 */
	CHECK_EQ_U(s.unassigned_ops, 0);
	gpa_steps_release(&s);
	gpa_model_release(&m);
}

/*
 * Weak evidence is no steps: one iteration; two fetches per optimizer step
 * (gradient accumulation, or an evaluation loop: which is the iteration is
 * unknown). A repeating annotation named like a step, or ProfilerStep#N,
 * wins over the loop's annotations.
 */
TEST(steps_from_training_loop_weak_or_beaten)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_steps s;
	char err[256];

	tw_open(&t, "steps-loop-one.gpz");
	loop_iteration(&t, 1000, true, true, true);
	load(&t, &m);
	REQUIRE(!gpa_steps_find(&m, NULL, &s, err, sizeof(err)));
	CHECK(s.source != GPA_STEPS_LOOP);
	gpa_steps_release(&s);
	gpa_model_release(&m);

	tw_open(&t, "steps-loop-accum.gpz");
	for (int i = 0; i < 4; i++) {
		loop_iteration(&t, 1000 + (uint64_t)i * 1000, true, false, i % 2);
	}
	load(&t, &m);
	REQUIRE(!gpa_steps_find(&m, NULL, &s, err, sizeof(err)));
	CHECK(s.source != GPA_STEPS_LOOP);
	gpa_steps_release(&s);
	gpa_model_release(&m);

	static const enum gpa_step_source want[] = {GPA_STEPS_NVTX, GPA_STEPS_REPEAT};
	for (int k = 0; k < 2; k++) {
		tw_open(&t, "steps-loop-beaten.gpz");
		for (int i = 0; i < 4; i++) {
			char name[64];
			uint64_t b = 1000 + (uint64_t)i * 1000;
			if (k) {
				snprintf(name, sizeof(name), "train_step");
			} else {
				snprintf(name, sizeof(name), "ProfilerStep#%d", i);
			}
			range(&t, b, b + 999, "user_annotation", name);
			loop_iteration(&t, b, true, true, true);
		}
		load(&t, &m);
		REQUIRE(!gpa_steps_find(&m, NULL, &s, err, sizeof(err)));
		CHECK_EQ_U(s.source, want[k]);
		CHECK_EQ_U(s.v.n, 4);
		CHECK_EQ_U(s.v.v[0].start, U(1000));
		gpa_steps_release(&s);
		gpa_model_release(&m);
	}
}

/* ------------------------------------------------------------ data loading */

/*
 * An idle gap while the thread is inside the DataLoader iterator is data
 * loading; one inside a frame named run_on_input is not. The iterator range
 * also overlaps GPU work for longer than its idle part: conflicting evidence.
 */
TEST(data_loading_needs_a_loader)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_gaps g;
	struct gpa_gaps_opts o;
	char err[256];

	tw_open(&t, "data.gpz");
	launch(&t, 0, 1, 100, 1, "k0");
	/* loader [50, 160): GPU busy [50, 100) and [150, 160) */
	range(&t, 50, 160, "user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
	launch(&t, 149, 150, 200, 1, "k1");
	range(&t, 200, 400, "python_function", "harness.py(9): run_on_input");
	launch(&t, 399, 400, 500, 1, "k2");
	load(&t, &m);
	gpa_gaps_opts_init(&o);
	o.min_gap_ns = 0;
	o.top = SIZE_MAX;
	REQUIRE(!gpa_gaps_analyze(&m, NULL, &o, &g, err, sizeof(err)));
	CHECK_EQ_U(g.all.cause_ns[GPA_GAP_DATA], U(50));
	CHECK_EQ_U(g.all.cause_ns[GPA_GAP_CPU], U(200)); /* whole gaps by cause */
	CHECK_EQ_U(g.data_ranges, 1);
	CHECK_EQ_U(g.data_range_ns, U(110));
	CHECK_EQ_U(g.data_gpu_busy_ns, U(60));
	CHECK(g.data_conflict);
	gpa_gaps_release(&g);
	/* The user's pattern replaces the default; a bad one names the reason. */
	o.data_regex = "run_on_input";
	REQUIRE(!gpa_gaps_analyze(&m, NULL, &o, &g, err, sizeof(err)));
	CHECK_EQ_U(g.all.cause_ns[GPA_GAP_DATA], U(200));
	CHECK(!g.data_conflict);
	gpa_gaps_release(&g);
	o.data_regex = "(";
	CHECK_EQ_I(gpa_gaps_analyze(&m, NULL, &o, &g, err, sizeof(err)), -GP_ERR_API);
	CHECK_CONTAINS(err, "bad data-loader pattern");
	gpa_gaps_release(&g);
	gpa_model_release(&m);
}

/* ----------------------------------------------------------- communication */

/*
 * Stream 2: a symmetric-memory all-reduce launched by a symm_mem:: CPU op
 * under a generic name, a DeepEP internode kernel, a vLLM custom all-reduce;
 * a kernel launched in aten::add inside c10d is not communication; stream 1
 * runs GEMMs. A peer copy counts too.
 */
TEST(commclass_every_source)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_commclass cc;
	char err[256];

	tw_open(&t, "comm.gpz");
	range(&t, 0, 10, "python_function", "symm_mem.py(1): all_reduce");
	range(&t, 1, 9, "cpu_op", "symm_mem::one_shot_all_reduce");
	launch(&t, 2, 10, 50, 2, "triton_poi_generic_0");
	launch(&t, 20, 30, 40, 1, "sm90_xmma_gemm");
	launch(&t, 41, 60, 90, 2, "void deep_ep::internode::cached_notify<8>(int*)");
	launch(&t, 42, 90, 100, 2, "void vllm::cross_device_reduce_1stage<float, 8>(float*)");
	range(&t, 43, 50, "cpu_op", "c10d::allreduce_");
	range(&t, 44, 49, "cpu_op", "aten::add");
	launch(&t, 45, 100, 110, 2, "elementwise_add");
	launch(&t, 55, 120, 125, 1, "triton_poi_generic_0");
	struct gpt_memcpy cp = {.start = U(130), .end = U(140), .device = 0, .stream = 3,
				.correlation = 999, .bytes = 4096,
				.copy_kind = GPT_COPY_KIND_PTOP};
	CHECK_EQ_I(gpt_writer_add(t.w, GPT_KIND_MEMCPY, &cp), 0);
	load(&t, &m);
	REQUIRE(!gpa_commclass_compute(&m, NULL, &cc, err, sizeof(err)));
	for (size_t k = 0; k < m.kern.n; k++) {
		const char *n = gpa_model_str(&m, m.funcs.v[gpa_kern_func(&m, k)].name);
		uint8_t want = GPA_COMM_NOT;
		if (gpa_kern_start(&m, k) == U(10)) {
			want = GPA_COMM_CPU_OP;
		} else if (strstr(n, "deep_ep") || strstr(n, "cross_device")) {
			want = GPA_COMM_NAME;
		}
		CHECK_EQ_U(cc.kern[k], want);
	}
	CHECK_EQ_U(cc.n[GPA_COMM_CPU_OP], 1);
	CHECK_EQ_U(cc.n[GPA_COMM_NAME], 2);
	CHECK_EQ_U(cc.n[GPA_COMM_PEER], 1);
	CHECK_EQ_U(cc.copy[0], GPA_COMM_PEER);

	/* comm and breakdown agree: C = [10, 50) + [60, 100) + [130, 140) = 90 us. */
	struct gpa_comm c;
	REQUIRE(!gpa_comm_analyze(&m, NULL, &c, err, sizeof(err)));
	CHECK_EQ_U(c.comm_kernels, 3);
	CHECK_EQ_U(c.by_cpu_op, 1);
	CHECK_EQ_U(c.peer_copies, 1);
	CHECK_EQ_U(c.devs.n, 1);
	CHECK_EQ_U(c.devs.v[0].comm, U(90));
	CHECK_EQ_U(c.devs.v[0].overlap, U(10));
	struct gpa_breakdown b;
	struct gpa_breakdown_opts bo;
	gpa_breakdown_opts_init(&bo);
	bo.comm = &cc;
	REQUIRE(!gpa_breakdown_compute(&m, &bo, &b));
	REQUIRE(b.ranks.n == 1);
	CHECK_EQ_I(b.ranks.v[0].comm, (int64_t)c.devs.v[0].comm);
	CHECK_EQ_I(b.ranks.v[0].overlap, (int64_t)c.devs.v[0].overlap);
	gpa_breakdown_release(&b);
	gpa_comm_release(&c);

	/* The gap [50, 60) before the DeepEP kernel follows communication on its stream. */
	struct gpa_gaps g;
	struct gpa_gaps_opts go;
	gpa_gaps_opts_init(&go);
	go.comm = &cc;
	go.min_gap_ns = 0;
	REQUIRE(!gpa_gaps_analyze(&m, NULL, &go, &g, err, sizeof(err)));
	CHECK(g.all.gaps > 0);
	gpa_gaps_release(&g);
	gpa_commclass_release(&cc);

	/* A bad user rule is an error with the reason. */
	const char *bad[] = {"(("};
	struct gpa_commclass_opts co = {bad, 1};
	CHECK_EQ_I(gpa_commclass_compute(&m, &co, &cc, err, sizeof(err)), -GP_ERR_API);
	CHECK_CONTAINS(err, "bad kernel rule");
	gpa_commclass_release(&cc);
	gpa_model_release(&m);
}
