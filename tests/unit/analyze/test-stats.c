/* SPDX-License-Identifier: MIT */
/*
 * test-stats.c - the `nsys stats` reports (analyze/stats.c) on traces
 * written here record by record, with every expected value worked out by
 * hand in the comments: summaries, medians and standard deviations, name
 * modes, memory operations, API version suffixes, NVTX ranges and their GPU
 * projection, several processes and devices, empty traces.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/stats.h"
#include "tests/tools/gen.h"
#include "tests/unit/test.h"

#include <math.h>
#include <stdio.h>

/* ------------------------------------------------------------ helpers */

/* A trace written record by record into the test's scratch directory. */
struct tb {
	struct gpt_writer *w;
	char path[512];
	int err;
};

static void tb_open(struct tb *t, const char *name, uint32_t pid)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s/%s", test_tmpdir(), name);
	t->err = gpt_writer_open(t->path, NULL, &t->w);
	if (!t->err) {
		struct gpt_process p = {.pid = pid, .rank = -1, .phase = 1};
		t->err = gpt_writer_add(t->w, GPT_KIND_PROCESS, &p);
	}
}

static uint32_t tb_str(struct tb *t, const char *s)
{
	uint32_t id = 0;

	if (!t->err && s) {
		t->err = gpt_writer_intern_cstr(t->w, s, &id);
	}
	return id;
}

static void tb_add(struct tb *t, enum gpt_kind k, const void *rec)
{
	if (!t->err) {
		t->err = gpt_writer_add(t->w, k, rec);
	}
}

static void tb_device(struct tb *t, uint32_t id, const char *name)
{
	struct gpt_device d = {.id = id, .name = tb_str(t, name)};
	tb_add(t, GPT_KIND_DEVICE, &d);
}

static void tb_kernel(struct tb *t, uint32_t dev, uint32_t stream, uint32_t corr, uint64_t start,
		      uint64_t end, const char *mangled, const char *demangled)
{
	struct gpt_kernel k = {.start = start, .end = end, .device = dev, .stream = stream,
			       .correlation = corr, .name = tb_str(t, mangled),
			       .demangled = tb_str(t, demangled), .grid_x = 2, .grid_y = 1,
			       .grid_z = 1, .block_x = 64, .block_y = 1, .block_z = 1,
			       .registers = 32};
	tb_add(t, GPT_KIND_KERNEL, &k);
}

static void tb_memcpy(struct tb *t, uint32_t dev, uint32_t corr, uint8_t kind, uint64_t bytes,
		      uint64_t start, uint64_t end)
{
	struct gpt_memcpy c = {.start = start, .end = end, .device = dev, .stream = 7,
			       .correlation = corr, .runtime_correlation = corr, .bytes = bytes,
			       .copy_kind = kind, .src_kind = 2, .dst_kind = 3};
	tb_add(t, GPT_KIND_MEMCPY, &c);
}

static void tb_memset(struct tb *t, uint32_t dev, uint32_t corr, uint64_t bytes, uint64_t start,
		      uint64_t end)
{
	struct gpt_memset s = {.start = start, .end = end, .device = dev, .stream = 7,
			       .correlation = corr, .bytes = bytes, .memory_kind = 3};
	tb_add(t, GPT_KIND_MEMSET, &s);
}

static void tb_api(struct tb *t, uint32_t tid, uint32_t corr, uint64_t start, uint64_t end,
		   const char *name)
{
	struct gpt_api a = {.start = start, .end = end, .tid = tid, .domain = GPT_API_RUNTIME,
			    .name = tb_str(t, name), .correlation = corr};
	tb_add(t, GPT_KIND_API, &a);
}

static void tb_nvtx(struct tb *t, uint32_t tid, uint8_t type, uint64_t start, uint64_t end,
		    const char *name, const char *domain)
{
	struct gpt_nvtx n = {.start = start, .end = end, .type = type, .message = tb_str(t, name),
			     .domain = tb_str(t, domain), .start_tid = tid, .end_tid = tid};
	tb_add(t, GPT_KIND_NVTX, &n);
}

static int tb_close(struct tb *t)
{
	int ret = gpt_writer_close(t->w);
	return t->err ? t->err : ret;
}

static int load(struct gpa_model *m, const char *p1, const char *p2)
{
	const char *paths[2] = {p1, p2};
	char err[512];
	int ret = gpa_model_load(m, paths, p2 ? 2 : 1, NULL, err, sizeof(err));

	if (ret) {
		TFAIL("load: %s", err);
	}
	return ret;
}

/* The row named name (and style, when not 0), or NULL. */
static const struct gpa_stats_row *row_named(const struct gpa_stats *st, const char *name,
					     uint8_t style)
{
	for (size_t i = 0; i < st->rows.n; i++) {
		if (!strcmp(st->rows.v[i].name, name) && (!style || st->rows.v[i].style == style)) {
			return &st->rows.v[i];
		}
	}
	return NULL;
}

#define CHECK_NEAR(a, b, eps)                                                                      \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(fabs(a_ - b_) <= (eps))) {                                                   \
			TFAIL("%s ~= %s: %.9f != %.9f", #a, #b, a_, b_);                           \
		}                                                                                  \
	} while (0)

/* ---------------------------------------------------------- summaries */

TEST(stats_summary_three_values)
{
	uint64_t v[] = {600, 100, 200};
	struct gpa_stats_summary s;

	gpa_stats_summarize(v, 3, &s);
	CHECK_EQ_U(s.count, 3);
	CHECK_EQ_U(s.total, 900);
	CHECK_EQ_U(s.min, 100);
	CHECK_EQ_U(s.max, 600);
	CHECK_EQ_U(s.median2, 400); /* median 200 */
	/* mean 300: sqrt((200^2 + 100^2 + 300^2) / (3 - 1)) = sqrt(70000) = 264.5751311... */
	CHECK_NEAR(s.stddev, 264.57513110645906, 1e-9);
}

TEST(stats_summary_even_single_equal_empty)
{
	uint64_t even[] = {4, 1, 3, 2}, one[] = {7}, same[] = {5, 5, 5, 5};
	struct gpa_stats_summary s;

	gpa_stats_summarize(even, 4, &s);
	CHECK_EQ_U(s.median2, 5); /* (2 + 3) / 2 = 2.5 */
	/* mean 2.5: sqrt((2.25 + 0.25 + 0.25 + 2.25) / 3) = sqrt(5 / 3) */
	CHECK_NEAR(s.stddev, sqrt(5.0 / 3.0), 1e-12);
	gpa_stats_summarize(one, 1, &s);
	CHECK_EQ_U(s.median2, 14);
	CHECK_NEAR(s.stddev, 0, 0); /* one instance: 0, as nsys prints */
	gpa_stats_summarize(same, 4, &s);
	CHECK_EQ_U(s.median2, 10);
	CHECK_NEAR(s.stddev, 0, 0);
	gpa_stats_summarize(NULL, 0, &s);
	CHECK_EQ_U(s.count, 0);
	CHECK_EQ_U(s.total, 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Selection agrees with sorting on random, tied, sorted and reversed inputs. */
TEST(stats_summary_matches_sorting)
{
	static uint64_t v[5000], ref[5000];
	struct gp_rng rng;
	struct gpa_stats_summary s;

	gp_rng_seed(&rng, 42);
	for (int round = 0; round < 400; round++) {
		size_t n = 1 + (size_t)gp_rng_below(&rng, round < 300 ? 64 : 5000);
		unsigned shape = (unsigned)round % 5;
		uint64_t spread = shape == 1 ? 3 : 1000000000000ull;
		long double sum = 0, ss = 0;
		for (size_t i = 0; i < n; i++) {
			v[i] = shape == 2 ? i : shape == 3 ? n - i : gp_rng_below(&rng, spread);
			sum += v[i];
		}
		memcpy(ref, v, n * sizeof(*v));
		qsort(ref, n, sizeof(*ref), cmp_u64);
		for (size_t i = 0; i < n; i++) {
			ss += ((long double)ref[i] - sum / n) * ((long double)ref[i] - sum / n);
		}
		gpa_stats_summarize(v, n, &s);
		uint64_t want = n & 1 ? 2 * ref[n / 2] : ref[n / 2 - 1] + ref[n / 2];
		if (s.median2 != want || s.min != ref[0] || s.max != ref[n - 1]) {
			TFAIL("round %d n=%zu: median2 %" PRIu64 " want %" PRIu64, round, n,
			      s.median2, want);
			return;
		}
		double sd = n > 1 ? (double)sqrtl(ss / (n - 1)) : 0;
		CHECK_NEAR(s.stddev, sd, sd * 1e-9);
	}
}

/* -------------------------------------------------------------- names */

TEST(stats_kernel_base_names)
{
	static const char *const cases[][2] = {
		/* demangled names from real nsys exports (shortName next to demangledName) */
		{"void at::native::vectorized_elementwise_kernel<(int)4, "
		 "at::native::FillFunctor<float>, std::array<char *, (unsigned long)1>>"
		 "(int, T2, T3)",
		 "vectorized_elementwise_kernel"},
		{"void at::native::<unnamed>::vectorized_layer_norm_kernel<float, float, (bool)0>("
		 "int, T2, const T1 *, const T1 *, const T1 *, T2 *, T2 *, T1 *)",
		 "vectorized_layer_norm_kernel"},
		{"void at::native::elementwise_kernel<(int)128, (int)4, void "
		 "at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::"
		 "TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() "
		 "(instance 12)]::operator ()() const>(at::TensorIteratorBase &)>(int, T3)",
		 "elementwise_kernel"},
		{"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)",
		 "ncclDevKernel_SendRecv"},
		{"nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN",
		 "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN"},
		{"saxpy(double *, double *, double *, double, int)", "saxpy"},
		{"void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<(int)128, (int)64>, "
		 "(bool)0>(flash::Flash_fwd_params)",
		 "flash_fwd_kernel"},
		/* GCC/c++filt spelling */
		{"void at::native::(anonymous namespace)::softmax_warp_forward<float, float, 10, "
		 "false>(float*, float const*, int)",
		 "softmax_warp_forward"},
		{"void gemm_kernel_128x128<128, 128>(float const*, float*, int)",
		 "gemm_kernel_128x128"},
		{"ns::Functor::operator()(int)", "operator()"},
		/* Itanium-mangled, when nothing demangled was recorded */
		{"_Z11vec_add_f32PKfS0_Pfi", "vec_add_f32"},
		{"_ZN5flash29flash_fwd_kernel_bf16_hdim128ILi4ELb0EEEvNS_16Flash_fwd_paramsE",
		 "flash_fwd_kernel_bf16_hdim128"},
		{"_Z25multi_tensor_apply_kernelI18TensorListMetadataILi4EEEvi",
		 "multi_tensor_apply_kernel"},
		{"_ZN7cutlass6KernelINS_4gemm6kernel4GemmIiEEEEvNT_6ParamsE", "Kernel"},
		{"_ZN2ns3fooIiE3barEv", "bar"}, /* ns::foo<int>::bar() */
		{"_ZN12_GLOBAL__N_16kernelEv", "kernel"}, /* (anonymous namespace)::kernel() */
		{"_ZNSt6vectorIiSaIiEE9push_backERKi", "push_back"},
		{"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_",
		 "vectorized_elementwise_kernel"},
		{"_Z99truncated", "_Z99truncated"}, /* a length past the end: whole */
		{"", ""},
	};

	for (size_t i = 0; i < GP_ARRAY_SIZE(cases); i++) {
		const char *start;
		size_t len = gpa_kernel_base_name(cases[i][0], &start);
		char got[256];
		snprintf(got, sizeof(got), "%.*s", (int)len, start);
		CHECK_STR(got, cases[i][1]);
	}
}

TEST(stats_names)
{
	for (unsigned r = 0; r < GPA_STATS__COUNT; r++) {
		CHECK_EQ_I(gpa_stats_report_parse(gpa_stats_report_name(r)), r);
	}
	CHECK(gpa_stats_report_name(GPA_STATS__COUNT) == NULL);
	CHECK_EQ_I(gpa_stats_report_parse("gpukernsum"), -1);
	CHECK_EQ_I(gpa_stats_report_parse("cuda_gpu_kern_sum"), GPA_STATS_KERN_SUM);
	CHECK_STR(gpa_stats_memcpy_name(1), "[CUDA memcpy Host-to-Device]");
	CHECK_STR(gpa_stats_memcpy_name(2), "[CUDA memcpy Device-to-Host]");
	CHECK_STR(gpa_stats_memcpy_name(8), "[CUDA memcpy Device-to-Device]");
	CHECK_STR(gpa_stats_memcpy_name(10), "[CUDA memcpy Peer-to-Peer]");
	CHECK_STR(gpa_stats_memcpy_name(99), "[CUDA memcpy Unknown]");
	/* CUPTI's memory kinds: 0 unknown, 1 pageable, 2 pinned, 3 device ... */
	CHECK_STR(gpa_stats_mem_kind_name(1), "Pageable");
	CHECK_STR(gpa_stats_mem_kind_name(2), "Pinned");
	CHECK_STR(gpa_stats_mem_kind_name(3), "Device");
	CHECK_STR(gpa_stats_mem_kind_name(0), "Unknown");
	CHECK_STR(gpa_stats_mem_kind_name(200), "Unknown");
}

TEST(stats_bad_arguments)
{
	struct gpa_model m;
	struct gpa_stats st;

	memset(&m, 0, sizeof(m));
	CHECK_EQ_I(gpa_stats_compute(&m, GPA_STATS__COUNT, GPA_KNAME_DEMANGLED, &st), -GP_ERR_API);
	gpa_stats_release(&st);
	CHECK_EQ_I(gpa_stats_compute(&m, GPA_STATS_KERN_SUM, (enum gpa_kernel_name)9, &st),
		   -GP_ERR_API);
	gpa_stats_release(&st);
}

/* ------------------------------------------------------------ kernels */

static const char A_INT_M[] = "_ZN2ns1aIiEEvi", A_INT[] = "void ns::a<int>(int)";
static const char A_FLT_M[] = "_ZN2ns1aIfEEvf", A_FLT[] = "void ns::a<float>(float)";

/*
 * ns::a<int> runs 100, 200 and 600 ns on two streams, overlapping;
 * ns::a<float> 50 ns; bkernel (no demangled name) 1000 ns.
 */
static int write_kernels(char *path, size_t len)
{
	struct tb t;

	tb_open(&t, "kernels.gpz", 11);
	tb_device(&t, 0, "NVIDIA H200");
	tb_kernel(&t, 0, 7, 1, 1000, 1100, A_INT_M, A_INT);
	tb_kernel(&t, 0, 8, 2, 1050, 1250, A_INT_M, A_INT); /* overlaps the first */
	tb_kernel(&t, 0, 7, 3, 1200, 1800, A_INT_M, A_INT);
	tb_kernel(&t, 0, 8, 4, 1300, 1350, A_FLT_M, A_FLT);
	tb_kernel(&t, 0, 7, 5, 2000, 3000, "bkernel", NULL);
	snprintf(path, len, "%s", t.path);
	return tb_close(&t);
}

TEST(stats_kern_sum_demangled)
{
	char path[512];
	struct gpa_model m;
	struct gpa_stats st;

	REQUIRE(write_kernels(path, sizeof(path)) == 0);
	REQUIRE(load(&m, path, NULL) == 0);
	REQUIRE(gpa_stats_compute(&m, GPA_STATS_KERN_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
	REQUIRE(st.rows.n == 3);
	/* By total: bkernel 1000, a<int> 900, a<float> 50; all 1950. */
	CHECK_STR(st.rows.v[0].name, "bkernel"); /* no demangled name: the recorded one */
	CHECK_EQ_U(st.rows.v[0].s.total, 1000);
	CHECK_STR(st.rows.v[1].name, A_INT);
	CHECK_EQ_U(st.rows.v[1].s.count, 3);
	CHECK_EQ_U(st.rows.v[1].s.total, 900);
	CHECK_EQ_U(st.rows.v[1].s.min, 100);
	CHECK_EQ_U(st.rows.v[1].s.max, 600);
	CHECK_EQ_U(st.rows.v[1].s.median2, 400);
	CHECK_NEAR(st.rows.v[1].s.stddev, sqrt(70000.0), 1e-9);
	CHECK_STR(st.rows.v[2].name, A_FLT);
	CHECK_EQ_U(st.grand_total, 1950);
	gpa_stats_release(&st);

	REQUIRE(gpa_stats_compute(&m, GPA_STATS_KERN_SUM, GPA_KNAME_MANGLED, &st) == 0);
	REQUIRE(st.rows.n == 3);
	CHECK_STR(st.rows.v[1].name, A_INT_M);
	CHECK_STR(st.rows.v[2].name, A_FLT_M);
	gpa_stats_release(&st);
	gpa_model_release(&m);
}

TEST(stats_kern_sum_short_names_merge)
{
	char path[512];
	struct gpa_model m;
	struct gpa_stats st;

	REQUIRE(write_kernels(path, sizeof(path)) == 0);
	REQUIRE(load(&m, path, NULL) == 0);
	REQUIRE(gpa_stats_compute(&m, GPA_STATS_KERN_SUM, GPA_KNAME_SHORT, &st) == 0);
	/* a<int> and a<float> are both "a": 100, 200, 600, 50. */
	REQUIRE(st.rows.n == 2);
	CHECK_STR(st.rows.v[0].name, "bkernel");
	CHECK_STR(st.rows.v[1].name, "a");
	CHECK_EQ_U(st.rows.v[1].s.count, 4);
	CHECK_EQ_U(st.rows.v[1].s.total, 950);
	CHECK_EQ_U(st.rows.v[1].s.min, 50);
	CHECK_EQ_U(st.rows.v[1].s.median2, 300); /* (100 + 200) / 2 */
	/* mean 237.5: sqrt((137.5^2 + 37.5^2 + 362.5^2 + 187.5^2) / 3) */
	CHECK_NEAR(st.rows.v[1].s.stddev, sqrt((18906.25 + 1406.25 + 131406.25 + 35156.25) / 3),
		   1e-9);
	gpa_stats_release(&st);
	gpa_model_release(&m);
}

TEST(stats_sub_microsecond)
{
	struct tb t;
	struct gpa_model m;
	struct gpa_stats st;

	tb_open(&t, "tiny.gpz", 12);
	tb_kernel(&t, 0, 7, 1, 10, 11, "k1", NULL);
	tb_kernel(&t, 0, 7, 2, 11, 13, "k1", NULL);
	tb_kernel(&t, 0, 7, 3, 13, 16, "k1", NULL);
	tb_kernel(&t, 0, 7, 4, 16, 16, "k0", NULL); /* zero length */
	REQUIRE(tb_close(&t) == 0);
	REQUIRE(load(&m, t.path, NULL) == 0);
	REQUIRE(gpa_stats_compute(&m, GPA_STATS_KERN_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
	REQUIRE(st.rows.n == 2);
	/* 1, 2, 3 ns: total 6, median 2, stddev sqrt((1 + 0 + 1) / 2) = 1 */
	CHECK_STR(st.rows.v[0].name, "k1");
	CHECK_EQ_U(st.rows.v[0].s.total, 6);
	CHECK_EQ_U(st.rows.v[0].s.median2, 4);
	CHECK_NEAR(st.rows.v[0].s.stddev, 1.0, 1e-12);
	CHECK_STR(st.rows.v[1].name, "k0");
	CHECK_EQ_U(st.rows.v[1].s.total, 0);
	CHECK_EQ_U(st.rows.v[1].s.count, 1);
	gpa_stats_release(&st);
	gpa_model_release(&m);
}

/*
 * Kernel durations are summarized in 32 bits when every one fits, in 64
 * when one does not (4.3 s or more): the same figures either way.
 */
TEST(stats_kern_sum_wide_and_narrow_values)
{
	static const uint64_t dur[2][4] = {{7, 4294967295ULL, 3, 1}, {7, 4294967296ULL, 3, 1}};
	for (int wide = 0; wide < 2; wide++) {
		struct tb t;
		struct gpa_model m;
		struct gpa_stats st;
		uint64_t at = 100, total = 0;
		tb_open(&t, wide ? "wide.gpz" : "narrow.gpz", 13);
		for (uint32_t i = 0; i < 4; i++) {
			tb_kernel(&t, 0, 7, i + 1, at, at + dur[wide][i], "k", NULL);
			at += dur[wide][i];
			total += dur[wide][i];
		}
		tb_kernel(&t, 0, 7, 9, at, at + 2, "other", NULL);
		REQUIRE(tb_close(&t) == 0);
		REQUIRE(load(&m, t.path, NULL) == 0);
		REQUIRE(gpa_stats_compute(&m, GPA_STATS_KERN_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
		const struct gpa_stats_row *k = row_named(&st, "k", 0);
		REQUIRE(k != NULL);
		CHECK_EQ_U(k->s.count, 4);
		CHECK_EQ_U(k->s.total, total);
		CHECK_EQ_U(k->s.min, 1);
		CHECK_EQ_U(k->s.max, dur[wide][1]);
		CHECK_EQ_U(k->s.median2, 10); /* 3 + 7 */
		const struct gpa_stats_row *o = row_named(&st, "other", 0);
		REQUIRE(o != NULL);
		CHECK_EQ_U(o->s.median2, 4);
		gpa_stats_release(&st);
		gpa_model_release(&m);
	}
}

/*
 * Groups of more than 65,536 values are summarized without collecting them
 * (radix select of the median's ranks) and the others a batch of about a
 * million values at a time: every figure must be the one of summarizing
 * each group's values collected in event order (gpa_stats_summarize). Two
 * large groups (values over the whole 32-bit range; a few values with many
 * ties, even and odd counts) and 40 groups of 30,000 (two batches).
 */
TEST(stats_kern_sum_large_groups_and_batches)
{
	enum { NSMALL = 40, SMALL = 30000, BIG_A = 70001, BIG_B = 66000 };
	static const size_t count[2] = {BIG_A, BIG_B};
	size_t ng = NSMALL + 2, total = BIG_A + BIG_B + (size_t)NSMALL * SMALL;
	uint64_t **vals = calloc(ng, sizeof(*vals));
	size_t *n = calloc(ng, sizeof(*n));
	struct tb t;
	struct gpa_model m;
	struct gpa_stats st;
	uint64_t x = 88172645463325252ULL;
	char name[32];

	REQUIRE(vals && n);
	for (size_t g = 0; g < ng; g++) {
		vals[g] = malloc((g < 2 ? count[g] : SMALL) * sizeof(**vals));
		REQUIRE(vals[g] != NULL);
	}
	tb_open(&t, "groups.gpz", 13);
	for (size_t i = 0; i < total; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* the groups' values interleave: a group by a random draw, while it has room */
		size_t g = (size_t)(x >> 40) % ng;
		while (n[g] == (g < 2 ? count[g] : SMALL)) {
			g = (g + 1) % ng;
		}
		uint64_t v = g == 0 ? (x & 0xffffffffu) : g == 1 ? (x >> 20) % 41 : (x >> 8) % 900000;
		vals[g][n[g]++] = v;
		snprintf(name, sizeof(name), "g%zu", g);
		tb_kernel(&t, 0, 7, (uint32_t)i + 1, 1000 * (uint64_t)i, 1000 * (uint64_t)i + v, name, NULL);
	}
	REQUIRE(tb_close(&t) == 0);
	REQUIRE(load(&m, t.path, NULL) == 0);
	REQUIRE(gpa_stats_compute(&m, GPA_STATS_KERN_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
	CHECK_EQ_U(st.rows.n, ng);
	for (size_t g = 0; g < ng; g++) {
		struct gpa_stats_summary want;
		snprintf(name, sizeof(name), "g%zu", g);
		const struct gpa_stats_row *r = row_named(&st, name, 0);
		REQUIRE(r != NULL);
		gpa_stats_summarize(vals[g], n[g], &want); /* reorders vals[g]: after the trace */
		CHECK_EQ_U(r->s.count, want.count);
		CHECK_EQ_U(r->s.total, want.total);
		CHECK_EQ_U(r->s.min, want.min);
		CHECK_EQ_U(r->s.max, want.max);
		CHECK_EQ_U(r->s.median2, want.median2);
		CHECK(r->s.stddev == want.stddev);
		free(vals[g]);
	}
	free(vals);
	free(n);
	gpa_stats_release(&st);
	gpa_model_release(&m);
}

/* ------------------------------------------------------------- memory */

TEST(stats_memops)
{
	struct tb t;
	struct gpa_model m;
	struct gpa_stats st;
	const struct gpa_stats_row *r;

	tb_open(&t, "mem.gpz", 13);
	tb_memcpy(&t, 0, 1, 1, 1000000, 100, 200);  /* HtoD 1 MB in 100 ns */
	tb_memcpy(&t, 0, 2, 1, 3000000, 300, 600);  /* HtoD 3 MB in 300 ns */
	tb_memcpy(&t, 0, 3, 2, 500, 700, 750);      /* DtoH 500 B in 50 ns */
	tb_memcpy(&t, 0, 4, 10, 2000000, 800, 1200); /* PtoP 2 MB in 400 ns */
	tb_memset(&t, 0, 5, 1000000, 1300, 1320);   /* memset 1 MB in 20 ns */
	REQUIRE(tb_close(&t) == 0);
	REQUIRE(load(&m, t.path, NULL) == 0);

	REQUIRE(gpa_stats_compute(&m, GPA_STATS_MEM_TIME_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
	REQUIRE(st.rows.n == 4);
	/* HtoD and PtoP tie at 400 ns: fewer instances first, as nsys orders. */
	CHECK_STR(st.rows.v[0].name, "[CUDA memcpy Peer-to-Peer]");
	CHECK_STR(st.rows.v[1].name, "[CUDA memcpy Host-to-Device]");
	CHECK_EQ_U(st.rows.v[1].s.total, 400);
	CHECK_EQ_U(st.rows.v[1].s.count, 2);
	CHECK_EQ_U(st.rows.v[1].s.median2, 400);
	CHECK_STR(st.rows.v[2].name, "[CUDA memcpy Device-to-Host]");
	CHECK_STR(st.rows.v[3].name, "[CUDA memset]");
	CHECK_EQ_U(st.rows.v[3].s.total, 20);
	CHECK_EQ_U(st.grand_total, 870);
	gpa_stats_release(&st);

	REQUIRE(gpa_stats_compute(&m, GPA_STATS_MEM_SIZE_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
	REQUIRE(st.rows.n == 4);
	CHECK_STR(st.rows.v[0].name, "[CUDA memcpy Host-to-Device]");
	CHECK_EQ_U(st.rows.v[0].s.total, 4000000);
	CHECK_EQ_U(st.rows.v[0].s.median2, 4000000); /* (1 MB + 3 MB) / 2 = 2 MB */
	CHECK_NEAR(st.rows.v[0].s.stddev, sqrt(2.0) * 1000000, 1e-3);
	r = row_named(&st, "[CUDA memset]", 0);
	REQUIRE(r != NULL);
	CHECK_EQ_U(r->s.total, 1000000);
	CHECK_STR(st.rows.v[3].name, "[CUDA memcpy Device-to-Host]");
	gpa_stats_release(&st);
	gpa_model_release(&m);
}

/* ---------------------------------------------------------------- API */

TEST(stats_api_sum_version_suffixes)
{
	struct tb t;
	struct gpa_model m;
	struct gpa_stats st;

	tb_open(&t, "api.gpz", 14);
	tb_api(&t, 100, 1, 0, 10, "cudaLaunchKernel_v7000");
	tb_api(&t, 100, 2, 20, 40, "cudaLaunchKernel_v7000");
	tb_api(&t, 100, 3, 50, 80, "cudaLaunchKernel_v7000");
	tb_api(&t, 101, 4, 60, 100, "cudaLaunchKernel"); /* another thread, no suffix */
	tb_api(&t, 100, 5, 90, 95, "cuLaunchKernel");
	tb_api(&t, 100, 6, 100, 107, "cudaLaunchKernelExC_v11060");
	tb_api(&t, 100, 7, 110, 111, "_v1"); /* nothing before the suffix: kept */
	tb_api(&t, 100, 8, 120, 122, "cudaStreamGetCaptureInfo_v2_v11030");
	REQUIRE(tb_close(&t) == 0);
	REQUIRE(load(&m, t.path, NULL) == 0);
	REQUIRE(gpa_stats_compute(&m, GPA_STATS_API_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
	REQUIRE(st.rows.n == 5);
	/* 10 + 20 + 30 + 40 */
	CHECK_STR(st.rows.v[0].name, "cudaLaunchKernel");
	CHECK_EQ_U(st.rows.v[0].s.count, 4);
	CHECK_EQ_U(st.rows.v[0].s.total, 100);
	CHECK_EQ_U(st.rows.v[0].s.median2, 50);
	/* nsys strips "_v" and four digits only: a five-digit suffix stays, as in its report */
	CHECK_STR(st.rows.v[1].name, "cudaLaunchKernelExC_v11060");
	CHECK_STR(st.rows.v[2].name, "cuLaunchKernel");
	CHECK_STR(st.rows.v[3].name, "cudaStreamGetCaptureInfo_v2_v11030");
	CHECK_STR(st.rows.v[4].name, "_v1");
	CHECK_EQ_U(st.grand_total, 115);
	gpa_stats_release(&st);
	gpa_model_release(&m);
}

/* --------------------------------------------------------------- NVTX */

/*
 * One thread (tid 100):
 *
 *   outer  push/pop  [1000, 10000]            GPU ops of calls 1, 2, 3, 5
 *     inner  push/pop  [2000, 4000]  call 1    kernel [3000, 3500]
 *     se     start/end [1500, 6000]  calls 1, 2 (call 5 ends after it)
 *     inner  push/pop  [5000, 7000]  calls 2, 5: memcpy [5500, 5600], kernel [6500, 6600]
 *     idle   push/pop  [8000, 8500]  no GPU work
 *            call 3 [9000, 9100]      kernel [9500, 12000]
 *   mark "m" at 3000 (not a range)
 *   dom:outer push/pop [20000, 21000] call 4: memset [20500, 20600]
 */
static int write_nvtx(char *path, size_t len)
{
	struct tb t;

	tb_open(&t, "nvtx.gpz", 15);
	tb_device(&t, 0, "NVIDIA H200");
	tb_nvtx(&t, 100, GPT_NVTX_PUSH_POP, 1000, 10000, "outer", NULL);
	tb_nvtx(&t, 100, GPT_NVTX_START_END, 1500, 6000, "se", NULL);
	tb_nvtx(&t, 100, GPT_NVTX_PUSH_POP, 2000, 4000, "inner", NULL);
	tb_nvtx(&t, 100, GPT_NVTX_MARK, 3000, 3000, "m", NULL);
	tb_nvtx(&t, 100, GPT_NVTX_PUSH_POP, 5000, 7000, "inner", NULL);
	tb_nvtx(&t, 100, GPT_NVTX_PUSH_POP, 8000, 8500, "idle", NULL);
	tb_nvtx(&t, 100, GPT_NVTX_PUSH_POP, 20000, 21000, "outer", "dom");
	tb_api(&t, 100, 1, 2100, 2200, "cudaLaunchKernel");
	tb_api(&t, 100, 2, 5100, 5200, "cudaMemcpyAsync");
	tb_api(&t, 100, 5, 5900, 6100, "cudaLaunchKernel");
	tb_api(&t, 100, 3, 9000, 9100, "cudaLaunchKernel");
	tb_api(&t, 100, 4, 20100, 20200, "cudaMemsetAsync");
	tb_kernel(&t, 0, 7, 1, 3000, 3500, "k1", NULL);
	tb_memcpy(&t, 0, 2, 1, 4096, 5500, 5600);
	tb_kernel(&t, 0, 7, 5, 6500, 6600, "k2", NULL);
	tb_kernel(&t, 0, 7, 3, 9500, 12000, "k3", NULL);
	tb_memset(&t, 0, 4, 64, 20500, 20600);
	snprintf(path, len, "%s", t.path);
	return tb_close(&t);
}

TEST(stats_nvtx_sum)
{
	char path[512];
	struct gpa_model m;
	struct gpa_stats st;

	REQUIRE(write_nvtx(path, sizeof(path)) == 0);
	REQUIRE(load(&m, path, NULL) == 0);
	REQUIRE(gpa_stats_compute(&m, GPA_STATS_NVTX_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
	/* outer 9000, se 4500, inner 2000 + 2000, dom:outer 1000, idle 500; no mark. */
	REQUIRE(st.rows.n == 5);
	CHECK_STR(st.rows.v[0].name, "outer");
	CHECK_EQ_U(st.rows.v[0].style, GPT_NVTX_PUSH_POP);
	CHECK_STR(st.rows.v[1].name, "se");
	CHECK_EQ_U(st.rows.v[1].style, GPT_NVTX_START_END);
	CHECK_EQ_U(st.rows.v[1].s.total, 4500);
	CHECK_STR(st.rows.v[2].name, "inner");
	CHECK_EQ_U(st.rows.v[2].s.count, 2);
	CHECK_EQ_U(st.rows.v[2].s.total, 4000);
	CHECK_NEAR(st.rows.v[2].s.stddev, 0, 0);
	CHECK_STR(st.rows.v[3].name, "dom:outer"); /* a named domain prefixes the name */
	CHECK_STR(st.rows.v[4].name, "idle");
	CHECK(row_named(&st, "m", 0) == NULL);
	CHECK_EQ_U(st.grand_total, 19000);
	gpa_stats_release(&st);
	gpa_model_release(&m);
}

TEST(stats_nvtx_gpu_projection)
{
	char path[512];
	struct gpa_model m;
	struct gpa_stats st;
	const struct gpa_stats_row *r;

	REQUIRE(write_nvtx(path, sizeof(path)) == 0);
	REQUIRE(load(&m, path, NULL) == 0);
	REQUIRE(gpa_stats_compute(&m, GPA_STATS_NVTX_GPU_PROJ_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
	/* idle encloses no GPU op: not listed. Names carry the domain, ":" for the default. */
	REQUIRE(st.rows.n == 4);
	CHECK(row_named(&st, ":idle", 0) == NULL);

	/* outer: ops of calls 1, 2, 5, 3: [3000, 12000] = 9000; both inner ranges are children. */
	r = &st.rows.v[0];
	CHECK_STR(r->name, ":outer");
	CHECK_EQ_U(r->s.total, 9000);
	CHECK_EQ_U(r->range_total, 9000);
	CHECK_EQ_U(r->gpu_ops, 4);
	CHECK_EQ_U(r->level_sum, 0);
	CHECK_EQ_U(r->child_sum, 2);

	/* se: calls 1 and 2 ([3000, 3500], [5500, 5600]) = 2600; call 5 ends outside it. */
	r = &st.rows.v[1];
	CHECK_STR(r->name, ":se");
	CHECK_EQ_U(r->style, GPT_NVTX_START_END);
	CHECK_EQ_U(r->s.total, 2600);
	CHECK_EQ_U(r->range_total, 4500);
	CHECK_EQ_U(r->gpu_ops, 2);

	/* inner: 500 ([3000, 3500]) and 1100 ([5500, 6600]); level 1 each. */
	r = &st.rows.v[2];
	CHECK_STR(r->name, ":inner");
	CHECK_EQ_U(r->s.count, 2);
	CHECK_EQ_U(r->s.total, 1600);
	CHECK_EQ_U(r->s.min, 500);
	CHECK_EQ_U(r->s.max, 1100);
	CHECK_EQ_U(r->s.median2, 1600);
	CHECK_NEAR(r->s.stddev, sqrt(2 * 300.0 * 300.0), 1e-9);
	CHECK_EQ_U(r->range_total, 4000);
	CHECK_EQ_U(r->gpu_ops, 3);
	CHECK_EQ_U(r->level_sum, 2);
	CHECK_EQ_U(r->child_sum, 0);

	r = &st.rows.v[3];
	CHECK_STR(r->name, "dom:outer");
	CHECK_EQ_U(r->s.total, 100);
	CHECK_EQ_U(r->gpu_ops, 1);
	gpa_stats_release(&st);
	gpa_model_release(&m);
}

/* ------------------------------------------- processes, devices, trace */

TEST(stats_two_processes_and_devices)
{
	struct tb a, b;
	struct gpa_model m;
	struct gpa_stats st;

	/* Neither file has a clock anchor: both keep their own clocks. */
	tb_open(&a, "rank0.gpz", 21);
	tb_device(&a, 0, "GPU-A");
	tb_device(&a, 1, "GPU-A");
	tb_kernel(&a, 0, 7, 1, 100, 200, "_Z1kv", "k()");
	tb_kernel(&a, 1, 7, 2, 150, 400, "_Z1kv", "k()");
	REQUIRE(tb_close(&a) == 0);
	tb_open(&b, "rank1.gpz", 22);
	tb_device(&b, 0, "GPU-B");
	tb_memcpy(&b, 0, 1, 8, 64, 50, 60);
	tb_kernel(&b, 0, 7, 2, 120, 130, "_Z1kv", "k()");
	REQUIRE(tb_close(&b) == 0);
	REQUIRE(load(&m, a.path, b.path) == 0);
	CHECK_EQ_U(m.devs.n, 3);

	/* One name across processes and devices: 100 + 250 + 10. */
	REQUIRE(gpa_stats_compute(&m, GPA_STATS_KERN_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
	REQUIRE(st.rows.n == 1);
	CHECK_STR(st.rows.v[0].name, "k()");
	CHECK_EQ_U(st.rows.v[0].s.count, 3);
	CHECK_EQ_U(st.rows.v[0].s.total, 360);
	CHECK_EQ_U(st.rows.v[0].s.median2, 200);
	gpa_stats_release(&st);

	/* The trace interleaves devices and processes by start. */
	REQUIRE(gpa_stats_compute(&m, GPA_STATS_GPU_TRACE, GPA_KNAME_SHORT, &st) == 0);
	REQUIRE(st.norder == 4);
	CHECK_EQ_U(st.origin, 50);
	static const uint64_t starts[] = {50, 100, 120, 150};
	for (size_t i = 0; i < 4; i++) {
		CHECK_EQ_U(gpa_gpu_start(&m, st.order[i]), starts[i]);
	}
	CHECK_EQ_U(gpa_gpu_kind(&m, st.order[0]), GPA_GPU_MEMCPY);
	CHECK_STR(gpa_model_str(&m, m.devs.v[gpa_gpu_dev(&m, st.order[0])].name), "GPU-B");
	CHECK_EQ_U(m.devs.v[gpa_gpu_dev(&m, st.order[3])].id, 1);
	CHECK_STR(st.func_names[gpa_kern_func(&m, gpa_gpu_row(&m, st.order[1]))], "k");
	gpa_stats_release(&st);
	gpa_model_release(&m);
}

TEST(stats_empty_trace)
{
	struct tb t;
	struct gpa_model m;
	struct gpa_stats st;

	tb_open(&t, "empty.gpz", 23);
	REQUIRE(tb_close(&t) == 0);
	REQUIRE(load(&m, t.path, NULL) == 0);
	for (unsigned r = 0; r < GPA_STATS__COUNT; r++) {
		for (unsigned k = 0; k <= GPA_KNAME_MANGLED; k++) {
			CHECK_EQ_I(gpa_stats_compute(&m, r, k, &st), 0);
			CHECK_EQ_U(st.rows.n, 0);
			CHECK_EQ_U(st.norder, 0);
			CHECK_EQ_U(st.grand_total, 0);
			gpa_stats_release(&st);
		}
	}
	gpa_model_release(&m);
}

/* ------------------------------------------------ a generated workload */

/* On a generated training loop every event is counted once, and steps enclose all GPU work. */
TEST(stats_generated_trace_totals)
{
	struct gen_opts go;
	struct gen_stats gs;
	struct gpt_writer *w;
	struct gpa_model m;
	struct gpa_stats st;
	char path[512];
	uint64_t sum, n;

	gen_opts_default(&go);
	go.steps = 3;
	go.kernels_per_step = 40;
	go.devices = 2;
	go.all_kinds = true;
	snprintf(path, sizeof(path), "%s/gen.gpz", test_tmpdir());
	REQUIRE(gpt_writer_open(path, NULL, &w) == 0);
	REQUIRE(gen_write(w, &go, &gs) == 0);
	REQUIRE(gpt_writer_close(w) == 0);
	REQUIRE(load(&m, path, NULL) == 0);

	REQUIRE(gpa_stats_compute(&m, GPA_STATS_KERN_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
	sum = n = 0;
	for (size_t i = 0; i < st.rows.n; i++) {
		sum += st.rows.v[i].s.total;
		n += st.rows.v[i].s.count;
		CHECK(!i || st.rows.v[i - 1].s.total >= st.rows.v[i].s.total);
		CHECK(st.rows.v[i].s.min * 2 <= st.rows.v[i].s.median2);
		CHECK(st.rows.v[i].s.median2 <= st.rows.v[i].s.max * 2);
	}
	CHECK_EQ_U(n, m.kern.n);
	CHECK_EQ_U(sum, st.grand_total);
	uint64_t want = 0;
	for (size_t i = 0; i < m.kern.n; i++) {
		want += gpa_kern_dur(&m, i);
	}
	CHECK_EQ_U(sum, want);
	gpa_stats_release(&st);

	REQUIRE(gpa_stats_compute(&m, GPA_STATS_MEM_SIZE_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
	n = 0;
	for (size_t i = 0; i < st.rows.n; i++) {
		n += st.rows.v[i].s.count;
	}
	CHECK_EQ_U(n, m.copy.n + m.set.n);
	gpa_stats_release(&st);

	REQUIRE(gpa_stats_compute(&m, GPA_STATS_API_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
	n = 0;
	for (size_t i = 0; i < st.rows.n; i++) {
		n += st.rows.v[i].s.count;
	}
	CHECK_EQ_U(n, m.api.n);
	gpa_stats_release(&st);

	/* Every op is launched inside a ProfilerStep range, each step once. */
	REQUIRE(gpa_stats_compute(&m, GPA_STATS_NVTX_GPU_PROJ_SUM, GPA_KNAME_DEMANGLED, &st) == 0);
	n = 0;
	for (size_t i = 0; i < st.rows.n; i++) {
		if (!strncmp(st.rows.v[i].name, ":ProfilerStep#", 14)) {
			n += st.rows.v[i].gpu_ops;
			CHECK_EQ_U(st.rows.v[i].s.count, 1);
			CHECK_EQ_U(st.rows.v[i].level_sum, 0);
		}
	}
	CHECK_EQ_U(n, m.gpu.n);
	gpa_stats_release(&st);

	REQUIRE(gpa_stats_compute(&m, GPA_STATS_GPU_TRACE, GPA_KNAME_DEMANGLED, &st) == 0);
	CHECK_EQ_U(st.norder, m.gpu.n);
	for (size_t i = 1; i < st.norder; i++) {
		if (gpa_gpu_start(&m, st.order[i - 1]) > gpa_gpu_start(&m, st.order[i])) {
			TFAIL("trace out of order at %zu", i);
			break;
		}
	}
	gpa_stats_release(&st);
	gpa_model_release(&m);
}
