/* SPDX-License-Identifier: MIT */
/*
 * Tests of flame-graph trees and kernel classification on small
 * hand-written traces whose stacks and weights are worked out by hand
 * (times in microseconds, U()).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/flame.h"
#include "analyze/steps.h"
#include "tests/unit/test.h"

#include <stdarg.h>
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

static void kernel(struct tw *t, uint64_t start, uint64_t end, uint32_t corr, const char *name)
{
	struct gpt_kernel k = {.start = start, .end = end, .device = 0, .stream = 1,
			       .correlation = corr, .name = S(t, name), .grid_x = 1, .grid_y = 1,
			       .grid_z = 1, .block_x = 32, .block_y = 1, .block_z = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_KERNEL, &k), 0);
}

static void nvtx(struct tw *t, uint64_t start, uint64_t end, const char *name)
{
	struct gpt_nvtx n = {.start = start, .end = end, .type = GPT_NVTX_PUSH_POP,
			     .message = S(t, name), .start_tid = TID, .end_tid = TID};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_NVTX, &n), 0);
}

/*
 * The trace most tests use:
 *   step [0, 1000) > fwd [10, 500)
 *   k1 launched at 20 in fwd, runs [100, 150)       -> step;fwd;k1 50 us
 *   k2 launched at 600 in step, runs [700, 800)     -> step;k2 100 us
 *   k1 launched at 610 in step, runs [800, 830)     -> step;k1 30 us
 *   k3 with no launch call, runs [900, 950)         -> [no launch call];k3 50 us
 */
static void write_basic(struct tw *t, const char *name)
{
	tw_open(t, name);
	nvtx(t, U(0), U(1000), "step");
	nvtx(t, U(10), U(500), "fwd");
	api(t, U(20), U(25), "cudaLaunchKernel", 1);
	kernel(t, U(100), U(150), 1, "k1");
	api(t, U(600), U(604), "cudaLaunchKernel", 2);
	kernel(t, U(700), U(800), 2, "k2");
	api(t, U(610), U(613), "cudaLaunchKernel", 3);
	kernel(t, U(800), U(830), 3, "k1");
	kernel(t, U(900), U(950), 99, "k3");
	CHECK_EQ_I(gpt_writer_close(t->w), 0);
}

static int load(struct gpa_model *m, const char *path)
{
	char err[256] = "";
	const char *paths[] = {path};
	int ret = gpa_model_load(m, paths, 1, NULL, err, sizeof(err));
	if (ret) {
		TFAIL("load: %s", err);
	}
	return ret;
}

/* The node at a path of names below the root, or GPA_NONE. */
static uint32_t at(const struct gpa_flame *f, ...)
{
	va_list ap;
	const char *name;
	uint32_t n = 0;

	va_start(ap, f);
	while ((name = va_arg(ap, const char *)) != NULL && n != GPA_NONE) {
		uint32_t c = f->nodes.v[n].child;
		while (c != GPA_NONE && strcmp(gpa_flame_name(f, c), name)) {
			c = f->nodes.v[c].next;
		}
		n = c;
	}
	va_end(ap);
	return n;
}

/* Invariants of every tree: totals are self plus children, children in name order. */
static void check_tree(const struct gpa_flame *f)
{
	uint64_t selves = 0;

	for (size_t i = 0; i < f->nodes.n; i++) {
		const struct gpa_flame_node *n = &f->nodes.v[i];
		uint64_t sum = n->self, sum0 = n->self0;
		const char *prev = NULL;
		for (uint32_t c = n->child; c != GPA_NONE; c = f->nodes.v[c].next) {
			sum += f->nodes.v[c].total;
			sum0 += f->nodes.v[c].total0;
			CHECK_EQ_U(f->nodes.v[c].parent, i);
			CHECK_EQ_U(f->nodes.v[c].depth, n->depth + 1);
			if (prev) {
				CHECK(strcmp(prev, gpa_flame_name(f, c)) < 0);
			}
			prev = gpa_flame_name(f, c);
		}
		CHECK_EQ_U(sum, n->total);
		CHECK_EQ_U(sum0, n->total0);
		selves += n->self;
	}
	CHECK_EQ_U(selves, f->nodes.v[0].total);
}

static int build(struct gpa_model *m, const struct gpa_flame_opts *o, struct gpa_flame *f)
{
	char err[256] = "";
	int ret = gpa_flame_build(m, o, f, err, sizeof(err));
	if (ret) {
		TFAIL("build: %d %s", ret, err);
	} else {
		check_tree(f);
	}
	return ret;
}

TEST(flame_gpu_time_stacks)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_flame f;
	struct gpa_flame_opts o;
	uint32_t n;

	write_basic(&t, "basic.gpz");
	REQUIRE(!load(&m, t.path));
	gpa_flame_opts_init(&o);
	REQUIRE(!build(&m, &o, &f));
	CHECK_EQ_U(f.nodes.v[0].total, U(50 + 100 + 30 + 50));
	CHECK_EQ_U(f.ops, 4);
	CHECK_EQ_U(f.unlinked, 1);
	CHECK_EQ_U(f.filtered, 0);
	n = at(&f, "pid 7", "tid 100", "step", "fwd", "k1", NULL);
	REQUIRE(n != GPA_NONE);
	CHECK_EQ_U(f.nodes.v[n].self, U(50));
	CHECK_EQ_U(f.nodes.v[n].count, 1);
	CHECK_EQ_U(f.nodes.v[n].kind, GPA_FRAME_KERNEL);
	n = at(&f, "pid 7", "tid 100", "step", "k1", NULL);
	REQUIRE(n != GPA_NONE);
	CHECK_EQ_U(f.nodes.v[n].self, U(30));
	n = at(&f, "pid 7", "tid 100", "step", NULL);
	CHECK_EQ_U(f.nodes.v[n].total, U(180));
	CHECK_EQ_U(f.nodes.v[n].count, 3);
	CHECK_EQ_U(f.nodes.v[n].kind, GPA_FRAME_NVTX);
	n = at(&f, "pid 7", "[no launch call]", "k3", NULL);
	REQUIRE(n != GPA_NONE);
	CHECK_EQ_U(f.nodes.v[n].self, U(50));
	/* Children come in byte order: '[' before 't'. */
	n = at(&f, "pid 7", NULL);
	CHECK_STR(gpa_flame_name(&f, f.nodes.v[n].child), "[no launch call]");
	gpa_flame_release(&f);

	/* Without NVTX the kernels sit under the thread. */
	o.flags = GPA_FLAME_NO_NVTX;
	REQUIRE(!build(&m, &o, &f));
	n = at(&f, "pid 7", "tid 100", "k1", NULL);
	REQUIRE(n != GPA_NONE);
	CHECK_EQ_U(f.nodes.v[n].self, U(80));
	CHECK_EQ_U(f.nodes.v[n].count, 2);
	gpa_flame_release(&f);
	gpa_model_release(&m);
}

TEST(flame_filters)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_flame f;
	struct gpa_flame_opts o;
	char err[256];

	write_basic(&t, "filters.gpz");
	REQUIRE(!load(&m, t.path));
	gpa_flame_opts_init(&o);
	o.leaf_regex = "^k1$";
	REQUIRE(!build(&m, &o, &f));
	CHECK_EQ_U(f.nodes.v[0].total, U(80));
	CHECK_EQ_U(f.ops, 2);
	CHECK_EQ_U(f.filtered, 2);
	CHECK(at(&f, "pid 7", "tid 100", "step", "k2", NULL) == GPA_NONE);
	gpa_flame_release(&f);

	/* Ops count when a matching range is open anywhere on their stack. */
	o.leaf_regex = NULL;
	o.nvtx_regex = "^fwd$";
	REQUIRE(!build(&m, &o, &f));
	CHECK_EQ_U(f.nodes.v[0].total, U(50));
	CHECK_EQ_U(f.filtered, 3);
	gpa_flame_release(&f);
	o.nvtx_regex = "^st";
	REQUIRE(!build(&m, &o, &f));
	CHECK_EQ_U(f.nodes.v[0].total, U(180));
	gpa_flame_release(&f);

	o.nvtx_regex = "(";
	CHECK_EQ_I(gpa_flame_build(&m, &o, &f, err, sizeof(err)), -GP_ERR_API);
	CHECK_CONTAINS(err, "bad NVTX pattern");
	gpa_flame_release(&f);
	o.nvtx_regex = NULL;
	o.device = 3;
	CHECK_EQ_I(gpa_flame_build(&m, &o, &f, err, sizeof(err)), -GP_ERR_NOTFOUND);
	CHECK_CONTAINS(err, "no device 3");
	gpa_flame_release(&f);
	o.device = 0;
	REQUIRE(!build(&m, &o, &f));
	CHECK_EQ_U(f.nodes.v[0].total, U(230));
	gpa_flame_release(&f);
	o.rank = 2;
	CHECK_EQ_I(gpa_flame_build(&m, &o, &f, err, sizeof(err)), -GP_ERR_NOTFOUND);
	CHECK_CONTAINS(err, "rank 2");
	gpa_flame_release(&f);
	gpa_model_release(&m);
}

TEST(flame_api_time_and_steps)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_flame f;
	struct gpa_flame_opts o;
	struct gpa_steps st;
	char err[256];
	uint32_t n;

	write_basic(&t, "api.gpz");
	REQUIRE(!load(&m, t.path));
	gpa_flame_opts_init(&o);
	o.weight = GPA_FLAME_API_TIME;
	REQUIRE(!build(&m, &o, &f));
	CHECK_EQ_U(f.nodes.v[0].total, U(5 + 4 + 3));
	n = at(&f, "pid 7", "tid 100", "step", "cudaLaunchKernel", NULL);
	REQUIRE(n != GPA_NONE);
	CHECK_EQ_U(f.nodes.v[n].self, U(7));
	CHECK_EQ_U(f.nodes.v[n].count, 2);
	CHECK_EQ_U(f.nodes.v[n].kind, GPA_FRAME_API);
	gpa_flame_release(&f);

	/* By step: the step frame goes under the process and leaves the NVTX stack. One range
	 * does not repeat, so it is a step only when named. */
	REQUIRE(!gpa_steps_find(&m, "^step$", &st, err, sizeof(err)));
	CHECK_EQ_U(st.v.n, 1);
	gpa_flame_opts_init(&o);
	o.flags = GPA_FLAME_BY_STEP;
	o.steps = &st;
	REQUIRE(!build(&m, &o, &f));
	n = at(&f, "pid 7", "step", "tid 100", "fwd", "k1", NULL);
	REQUIRE(n != GPA_NONE);
	CHECK_EQ_U(f.nodes.v[n].self, U(50));
	n = at(&f, "pid 7", "step", "tid 100", "k2", NULL);
	REQUIRE(n != GPA_NONE);
	CHECK_EQ_U(f.nodes.v[n].self, U(100));
	gpa_flame_release(&f);
	o.steps = NULL;
	CHECK_EQ_I(gpa_flame_build(&m, &o, &f, err, sizeof(err)), -GP_ERR_API);
	gpa_flame_release(&f);
	gpa_steps_release(&st);
	gpa_model_release(&m);
}

TEST(flame_names_are_folded_safe)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_flame f;
	struct gpa_flame_opts o;

	tw_open(&t, "names.gpz");
	nvtx(&t, U(0), U(100), "a;b\nc");
	api(&t, U(1), U(2), "cudaLaunchKernel", 1);
	kernel(&t, U(10), U(20), 1, "void k<1>(int;\tx)");
	CHECK_EQ_I(gpt_writer_close(t.w), 0);
	REQUIRE(!load(&m, t.path));
	gpa_flame_opts_init(&o);
	REQUIRE(!build(&m, &o, &f));
	CHECK(at(&f, "pid 7", "tid 100", "a:b c", "void k<1>(int: x)", NULL) != GPA_NONE);
	for (size_t i = 0; i < f.nodes.n; i++) {
		CHECK(!strpbrk(gpa_flame_name(&f, (uint32_t)i), ";\n\r\t"));
	}
	gpa_flame_release(&f);
	gpa_model_release(&m);
}

TEST(flame_diff_per_step)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_flame a, b, d;
	struct gpa_flame_opts o;
	uint32_t n;

	write_basic(&t, "diff.gpz");
	REQUIRE(!load(&m, t.path));
	gpa_flame_opts_init(&o);
	o.leaf_regex = "^k1$";
	REQUIRE(!build(&m, &o, &a)); /* before: k1 only */
	o.leaf_regex = NULL;
	REQUIRE(!build(&m, &o, &b)); /* after: everything, over 2 "steps" */
	REQUIRE(!gpa_flame_diff(&a, 1, &b, 2, &d));
	check_tree(&d);
	CHECK(d.diff);
	n = at(&d, "pid 7", "tid 100", "step", "fwd", "k1", NULL);
	REQUIRE(n != GPA_NONE);
	CHECK_EQ_U(d.nodes.v[n].self0, U(50));
	CHECK_EQ_U(d.nodes.v[n].self, U(25));
	n = at(&d, "pid 7", "tid 100", "step", "k2", NULL);
	REQUIRE(n != GPA_NONE);
	CHECK_EQ_U(d.nodes.v[n].self0, 0);
	CHECK_EQ_U(d.nodes.v[n].self, U(50));
	CHECK_EQ_U(d.nodes.v[n].count, 1);
	CHECK_EQ_U(d.nodes.v[0].total0, U(80));
	CHECK_EQ_U(d.nodes.v[0].total, U(115));
	CHECK_EQ_U(d.nodes.v[0].count, 4);
	gpa_flame_release(&d);
	CHECK_EQ_I(gpa_flame_diff(&a, 0, &b, 1, &d), -GP_ERR_API);
	gpa_flame_release(&d);
	gpa_flame_release(&a);
	gpa_flame_release(&b);
	gpa_model_release(&m);
}

TEST(flame_classify_rules)
{
	struct gpa_classifier *c = NULL;
	char err[256] = "";

	REQUIRE(!gpa_classifier_new(NULL, NULL, &c, err, sizeof(err)));
	/* No built-in name rule says communication: the shared classification does. */
	CHECK_EQ_I(gpa_classify(c, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"), GPA_CAT_OTHER);
	CHECK_EQ_I(gpa_classify(c, "void flash::flash_fwd_kernel<4>(Flash_fwd_params)"),
		   GPA_CAT_ATTENTION);
	CHECK_EQ_I(gpa_classify(c, "ampere_sgemm_128x64_tn"), GPA_CAT_GEMM);
	CHECK_EQ_I(gpa_classify(c, "sm90_xmma_gemm_bf16bf16_bf16f32"), GPA_CAT_GEMM);
	CHECK_EQ_I(gpa_classify(c, "void at::native::vectorized_elementwise_kernel<4>()"),
		   GPA_CAT_ELEMENTWISE);
	CHECK_EQ_I(gpa_classify(c, "[CUDA memcpy Host-to-Device]"), GPA_CAT_COPY);
	CHECK_EQ_I(gpa_classify(c, "my_kernel"), GPA_CAT_OTHER);
	CHECK_EQ_I(gpa_classify(c, "\xff\xfe bad utf-8"), GPA_CAT_OTHER);
	gpa_classifier_free(c);

	/* User rules come first and override the built-in ones. */
	REQUIRE(!gpa_classifier_new("# mine\n\nattention ^my_\n  gemm   (?i)SGEMM\n"
				    "communication ^my_ar\n", "r.txt", &c, err, sizeof(err)));
	CHECK_EQ_I(gpa_classify(c, "my_kernel"), GPA_CAT_ATTENTION);
	CHECK_EQ_I(gpa_classify(c, "ampere_sgemm"), GPA_CAT_GEMM);
	CHECK_EQ_I(gpa_classify(c, "xmy_ar"), GPA_CAT_OTHER);
	CHECK_EQ_I(gpa_classify(c, "ncclKernel"), GPA_CAT_OTHER);
	gpa_classifier_free(c);
	/* A user's communication rule still colours (the first rule wins). */
	REQUIRE(!gpa_classifier_new("communication ^my_ar\n", "r.txt", &c, err, sizeof(err)));
	CHECK_EQ_I(gpa_classify(c, "my_ar_kernel"), GPA_CAT_COMM);
	gpa_classifier_free(c);

	CHECK_EQ_I(gpa_classifier_new("gemm x\nfoo bar\n", "r.txt", &c, err, sizeof(err)),
		   -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "r.txt: line 2: unknown category 'foo'");
	CHECK(c == NULL);
	CHECK_EQ_I(gpa_classifier_new("gemm (\n", "r.txt", &c, err, sizeof(err)), -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "r.txt: line 1: bad pattern");
	CHECK_EQ_I(gpa_classifier_new("gemm\n", "r.txt", &c, err, sizeof(err)), -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "no pattern");
	CHECK_STR(gpa_category_name(GPA_CAT_COMM), "communication");
	CHECK_EQ_I(gpa_category_parse("elementwise"), GPA_CAT_ELEMENTWISE);
	CHECK(gpa_category_name(GPA_CAT__COUNT) == NULL);
}

TEST(flame_categories_on_leaves)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_flame f;
	struct gpa_flame_opts o;
	uint32_t n;

	tw_open(&t, "cats.gpz");
	api(&t, U(1), U(2), "cudaLaunchKernel", 1);
	kernel(&t, U(10), U(20), 1, "ampere_sgemm_128x64_tn");
	api(&t, U(3), U(4), "cudaLaunchKernel", 2);
	kernel(&t, U(20), U(30), 2, "ncclDevKernel_AllGather");
	CHECK_EQ_I(gpt_writer_close(t.w), 0);
	REQUIRE(!load(&m, t.path));
	gpa_flame_opts_init(&o);
	REQUIRE(!build(&m, &o, &f));
	n = at(&f, "pid 7", "tid 100", "ampere_sgemm_128x64_tn", NULL);
	REQUIRE(n != GPA_NONE);
	CHECK_EQ_U(f.nodes.v[n].category, GPA_CAT_GEMM);
	n = at(&f, "pid 7", "tid 100", "ncclDevKernel_AllGather", NULL);
	REQUIRE(n != GPA_NONE);
	CHECK_EQ_U(f.nodes.v[n].category, GPA_CAT_COMM);
	CHECK_EQ_U(f.nodes.v[at(&f, "pid 7", NULL)].category, GPA_CAT_OTHER);
	gpa_flame_release(&f);
	gpa_model_release(&m);
}

TEST(flame_deep_nvtx_is_bounded)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_flame f;
	struct gpa_flame_opts o;
	unsigned maxd = 0;

	/* 1500 nested ranges around one launch: the frames stop at 1024 NVTX levels. */
	tw_open(&t, "deep.gpz");
	for (int i = 0; i < 1500; i++) {
		nvtx(&t, U(i), U(10000 - i), "r");
	}
	api(&t, U(5000), U(5001), "cudaLaunchKernel", 1);
	kernel(&t, U(6000), U(6010), 1, "k");
	CHECK_EQ_I(gpt_writer_close(t.w), 0);
	REQUIRE(!load(&m, t.path));
	gpa_flame_opts_init(&o);
	REQUIRE(!build(&m, &o, &f));
	CHECK_EQ_U(f.nodes.v[0].total, U(10));
	for (size_t i = 0; i < f.nodes.n; i++) {
		maxd = f.nodes.v[i].depth > maxd ? f.nodes.v[i].depth : maxd;
	}
	CHECK_EQ_U(maxd, 2 + 1024 + 1); /* process, thread, 1024 ranges, the kernel */
	gpa_flame_release(&f);
	o.nvtx_regex = "^r$";
	REQUIRE(!build(&m, &o, &f));
	CHECK_EQ_U(f.nodes.v[0].total, U(10));
	gpa_flame_release(&f);
	gpa_model_release(&m);
}

TEST(flame_wall_share)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_flame f;
	struct gpa_flame_opts o;
	uint32_t n;

	/*
	 * a [100, 200) and b [150, 250) overlap for 50 us: each gets 50 alone
	 * and half of the overlap, 75; c [300, 310) after a 50 us gap. Busy 160,
	 * window 210, idle 50.
	 */
	tw_open(&t, "wall.gpz");
	api(&t, U(10), U(11), "cudaLaunchKernel", 1);
	kernel(&t, U(100), U(200), 1, "a");
	api(&t, U(12), U(13), "cudaLaunchKernel", 2);
	struct gpt_kernel k = {.start = U(150), .end = U(250), .device = 0, .stream = 2,
			       .correlation = 2, .name = S(&t, "b"), .grid_x = 1, .grid_y = 1,
			       .grid_z = 1, .block_x = 32, .block_y = 1, .block_z = 1};
	CHECK_EQ_I(gpt_writer_add(t.w, GPT_KIND_KERNEL, &k), 0);
	api(&t, U(14), U(15), "cudaLaunchKernel", 3);
	kernel(&t, U(300), U(310), 3, "c");
	CHECK_EQ_I(gpt_writer_close(t.w), 0);
	REQUIRE(!load(&m, t.path));
	gpa_flame_opts_init(&o);
	o.weight = GPA_FLAME_WALL_SHARE;
	REQUIRE(!build(&m, &o, &f));
	CHECK_EQ_U(f.nodes.v[0].total, U(210));
	n = at(&f, "pid 7", "tid 100", "a", NULL);
	REQUIRE(n != GPA_NONE);
	CHECK_EQ_U(f.nodes.v[n].self, U(75));
	CHECK_EQ_U(f.nodes.v[at(&f, "pid 7", "tid 100", "b", NULL)].self, U(75));
	CHECK_EQ_U(f.nodes.v[at(&f, "pid 7", "tid 100", "c", NULL)].self, U(10));
	n = at(&f, "pid 7", "[GPU idle]", NULL);
	REQUIRE(n != GPA_NONE);
	CHECK_EQ_U(f.nodes.v[n].total, U(50));
	gpa_flame_release(&f);

	/* Filtered: no idle branch (it would not add up to anything). */
	o.leaf_regex = "^[ab]$";
	REQUIRE(!build(&m, &o, &f));
	CHECK_EQ_U(f.nodes.v[0].total, U(150));
	CHECK(at(&f, "pid 7", "[GPU idle]", NULL) == GPA_NONE);
	gpa_flame_release(&f);
	gpa_model_release(&m);
}
