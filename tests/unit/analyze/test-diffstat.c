/* SPDX-License-Identifier: MIT */
/*
 * Tests of the regression statistics (analyze/diffstat.c) and of
 * gpa_diff on generated runs (analyze/diff.c).
 *
 * Where the expected values come from:
 * - exact Mann-Whitney p for completely separated samples: 2 / C(m + n, m),
 *   the minimum p-values golang/perf's benchmath lists (n = 3: 0.1,
 *   4: 0.0286, 5: 0.0079);
 * - the other exact p-values: enumerating every assignment of ranks to the
 *   first sample with python3's itertools.combinations (an independent
 *   method: the code uses the counting recursion);
 * - normal-approximation p-values: the tie-corrected formula of the
 *   reference section 5.2 evaluated with python3's math.erfc on the
 *   mid-ranks worked out by hand;
 * - Benjamini-Hochberg and Holm: worked by hand (R's p.adjust gives the same).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/diff.h"
#include "tests/tools/gen.h"
#include "tests/unit/test.h"

#include <math.h>
#include <stdio.h>

#define CHECK_NEAR(a, b, tol)                                                                      \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(fabs(a_ - b_) <= (tol))) {                                                   \
			TFAIL("%s ~ %s: %.10g != %.10g", #a, #b, a_, b_);                          \
		}                                                                                  \
	} while (0)

static double mwu_p(const double *a, size_t na, const double *b, size_t nb, bool *exact,
		    double *u1)
{
	struct gpa_mwu u;

	CHECK_EQ_I(gpa_mwu_test(a, na, b, nb, &u), 0);
	if (exact) {
		*exact = u.exact;
	}
	if (u1) {
		*u1 = u.u1;
	}
	return u.p;
}

TEST(mwu_exact_separated)
{
	double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
	bool exact;
	double u1;

	CHECK_NEAR(mwu_p(a, 3, b, 3, &exact, &u1), 0.1, 1e-12);
	CHECK(exact);
	CHECK_NEAR(u1, 0, 0);
	CHECK_NEAR(mwu_p(a, 4, b, 4, NULL, NULL), 2.0 / 70, 1e-12);
	CHECK_NEAR(mwu_p(a, 5, b, 5, NULL, NULL), 2.0 / 252, 1e-12);
	/* symmetric: swapping the samples gives U1' = mn - U1 and the same p */
	CHECK_NEAR(mwu_p(b, 5, a, 5, NULL, &u1), 2.0 / 252, 1e-12);
	CHECK_NEAR(u1, 25, 0);
}

TEST(mwu_exact_overlap)
{
	double a[] = {1, 3, 5, 7}, b[] = {2, 4, 6, 8, 10};
	double c[] = {1.1, 2.2, 3.3, 4.4, 5.5, 6.6}, d[] = {3.5, 4.5, 7.7, 8.8, 9.9, 10.1, 11.2};
	double u1;
	bool exact;

	CHECK_NEAR(mwu_p(a, 4, b, 5, &exact, &u1), 0.4126984126984127, 1e-12);
	CHECK(exact);
	CHECK_NEAR(u1, 6, 0);
	CHECK_NEAR(mwu_p(c, 6, d, 7, NULL, &u1), 0.022144522144522144, 1e-12);
	CHECK_NEAR(u1, 5, 0);
	/* identical samples cannot be told apart */
	CHECK_NEAR(mwu_p(a, 4, a, 4, NULL, NULL), 1, 0);
}

TEST(mwu_normal_ties_and_large)
{
	double a[] = {1, 2, 2, 3, 3, 3, 4}, b[] = {3, 4, 4, 5, 5, 6, 7, 7};
	double x[25], y[25], u1;
	bool exact = true;

	CHECK_NEAR(mwu_p(a, 7, b, 8, &exact, &u1), 0.004793348746185464, 1e-12);
	CHECK(!exact); /* ties force the normal approximation */
	CHECK_NEAR(u1, 3.5, 0);
	for (int i = 0; i < 25; i++) {
		x[i] = 1 + i;
		y[i] = 20 + i;
	}
	CHECK_NEAR(mwu_p(x, 25, y, 25, &exact, &u1), 1.1616573603137588e-08, 1e-15);
	CHECK(!exact); /* more than 20 per side */
	CHECK_NEAR(u1, 18, 0);
	/* all values equal: no evidence */
	double z[] = {5, 5, 5, 5};
	CHECK_NEAR(mwu_p(z, 4, z, 4, NULL, NULL), 1, 0);
	CHECK_NEAR(mwu_p(z, 0, z, 4, NULL, NULL), 1, 0);
}

TEST(median_quantile)
{
	double v[] = {5, 1, 4, 2, 3}, w[] = {4, 1, 3, 2};
	double s[] = {10, 20, 30, 40, 50};

	CHECK_NEAR(gpa_median(v, 5), 3, 0);
	CHECK_NEAR(gpa_median(w, 4), 2.5, 0);
	CHECK_NEAR(gpa_quantile_sorted(s, 5, 0.025), 11, 1e-12);
	CHECK_NEAR(gpa_quantile_sorted(s, 5, 0.975), 49, 1e-12);
	CHECK_NEAR(gpa_quantile_sorted(s, 5, 0.5), 30, 0);
}

/*
 * Many equal values (a critical-path category that is zero in most of a
 * flight file's 10^5-10^6 steps): the median is exact and takes linear time;
 * a two-way partition took quadratic time here (minutes for 350,000 steps).
 */
TEST(median_many_equal)
{
	size_t n = 2000001;
	double *v = malloc(n * sizeof(*v)), *w = malloc(n * sizeof(*w));

	REQUIRE(v && w);
	for (size_t i = 0; i < n; i++) {
		v[i] = i % 1000 == 7 ? (double)(i % 13) + 1 : 0;
		w[i] = (double)(i % 3);
	}
	CHECK_NEAR(gpa_median(v, n), 0, 0);
	CHECK_NEAR(gpa_median(w, n), 1, 0);
	CHECK_NEAR(gpa_median(w, n - 1), 1, 0);
	for (size_t i = 0; i < n; i++) {
		v[i] = i < n / 2 ? 5 : 9;
	}
	CHECK_NEAR(gpa_median(v, n - 1), 7, 0); /* even: halfway between the middle two */
	CHECK_NEAR(gpa_median(v, n), 9, 0);
	free(v);
	free(w);
}

TEST(adjust_bh_holm)
{
	double p[] = {0.01, 0.04, 0.03, 0.005}, q[4];

	CHECK_EQ_I(gpa_adjust_bh(p, 4, q), 0);
	CHECK_NEAR(q[0], 0.02, 1e-12);
	CHECK_NEAR(q[1], 0.04, 1e-12);
	CHECK_NEAR(q[2], 0.04, 1e-12);
	CHECK_NEAR(q[3], 0.02, 1e-12);
	CHECK_EQ_I(gpa_adjust_holm(p, 4, q), 0);
	CHECK_NEAR(q[0], 0.03, 1e-12);
	CHECK_NEAR(q[1], 0.06, 1e-12);
	CHECK_NEAR(q[2], 0.06, 1e-12);
	CHECK_NEAR(q[3], 0.02, 1e-12);
	/* in place, and capped at 1 */
	double r[] = {0.5, 0.9, 0.7};
	CHECK_EQ_I(gpa_adjust_holm(r, 3, r), 0);
	CHECK_NEAR(r[0], 1, 0);
	CHECK_NEAR(r[1], 1, 0);
}

static double normal(struct gp_rng *r)
{
	double u = gp_rng_double(r), v = gp_rng_double(r);
	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* The 95 % interval of the change of medians covers the true change about 95 % of the time. */
TEST(bootstrap_coverage)
{
	struct gp_rng rng;
	double a[30], b[30];
	size_t oa[2] = {0, 30}, ob[2] = {0, 30};
	struct gpa_sample sa = {a, oa, 1}, sb = {b, ob, 1};
	struct gpa_boot_opts bo = {.reps = 1000, .level = 0.95};
	int covered = 0, trials = 200;

	gp_rng_seed(&rng, 42);
	for (int t = 0; t < trials; t++) {
		double lo, hi;
		for (int i = 0; i < 30; i++) {
			a[i] = 100 * (1 + 0.1 * normal(&rng));
			b[i] = 110 * (1 + 0.1 * normal(&rng));
		}
		bo.seed = (uint64_t)t + 1;
		CHECK_EQ_I(gpa_boot_ratio_ci(&sa, &sb, &bo, &lo, &hi), 0);
		covered += lo <= 0.1 && 0.1 <= hi;
	}
	/* binomial(200, 0.95): 180..199 holds with probability > 99.9 % */
	if (covered < 180 || covered > 199) {
		TFAIL("coverage %d of %d", covered, trials);
	}
	/* same seed, same interval */
	double l1, h1, l2, h2;
	bo.seed = 7;
	CHECK_EQ_I(gpa_boot_ratio_ci(&sa, &sb, &bo, &l1, &h1), 0);
	CHECK_EQ_I(gpa_boot_ratio_ci(&sa, &sb, &bo, &l2, &h2), 0);
	CHECK(l1 == l2 && h1 == h2);
}

TEST(verdict_rule)
{
	struct gpa_verdict_in in = {.delta = 0.05, .ci_lo = 0.03, .ci_hi = 0.07, .p = 0.001,
				    .alpha = 0.05, .min_effect = 0.02, .na = 100, .nb = 100,
				    .runs_a = 10, .runs_b = 10, .min_samples = 4};
	uint32_t more;

	CHECK_EQ_I(gpa_verdict_decide(&in, &more), GPA_VERDICT_REGRESSED);
	in.higher_better = true; /* the same numbers are an improvement of MFU */
	CHECK_EQ_I(gpa_verdict_decide(&in, &more), GPA_VERDICT_IMPROVED);
	in.higher_better = false;
	in.p = 0.2; /* not significant, interval beyond the floor: more runs */
	CHECK_EQ_I(gpa_verdict_decide(&in, &more), GPA_VERDICT_INCONCLUSIVE);
	in = (struct gpa_verdict_in){.delta = 0.005, .ci_lo = -0.01, .ci_hi = 0.015, .p = 0.01,
				     .alpha = 0.05, .min_effect = 0.02, .na = 100, .nb = 100,
				     .runs_a = 10, .runs_b = 10, .min_samples = 4};
	CHECK_EQ_I(gpa_verdict_decide(&in, &more), GPA_VERDICT_UNCHANGED);
	/* straddling the floor: half-width 0.02, estimate 0.01 from it -> 10 * 4 = 40 runs */
	in.delta = 0.01;
	in.ci_lo = -0.01;
	in.ci_hi = 0.03;
	in.p = 0.3;
	CHECK_EQ_I(gpa_verdict_decide(&in, &more), GPA_VERDICT_INCONCLUSIVE);
	CHECK_EQ_U(more, 30);
	/* too few samples: 1 per run, 2 runs -> 2 more runs reach 4 */
	in.na = in.nb = 2;
	in.runs_a = in.runs_b = 2;
	CHECK_EQ_I(gpa_verdict_decide(&in, &more), GPA_VERDICT_INCONCLUSIVE);
	CHECK_EQ_U(more, 2);
}

/*
 * The generator's noise model, sampled directly: per-step step time =
 * base x run factor (1 + N(0, 0.5 %)) x step factor (1 + N(0, 2 %)) x the
 * kernel-level noise left after summing a step's kernels (1 + N(0, 0.5 %)).
 */
static void model_side(struct gp_rng *r, double *v, size_t *off, double scale)
{
	for (int run = 0; run < 10; run++) {
		double rf = 1 + 0.005 * normal(r);
		off[run] = (size_t)run * 10;
		for (int s = 0; s < 10; s++) {
			v[run * 10 + s] =
				14.5e6 * scale * rf * (1 + 0.02 * normal(r)) * (1 + 0.005 * normal(r));
		}
	}
	off[10] = 100;
}

static enum gpa_verdict model_verdict(uint64_t seed, double scale)
{
	struct gp_rng r;
	double a[100], b[100], ta[100], tb[100];
	size_t oa[11], ob[11];
	struct gpa_sample sa = {a, oa, 10}, sb = {b, ob, 10};
	struct gpa_boot_opts bo = {.reps = 2000, .level = 0.95, .seed = seed};
	struct gpa_mwu u;
	struct gpa_verdict_in in = {.alpha = 0.05, .min_effect = 0.02, .na = 100, .nb = 100,
				    .runs_a = 10, .runs_b = 10, .min_samples = 4};

	gp_rng_seed(&r, seed * 7919);
	model_side(&r, a, oa, 1);
	model_side(&r, b, ob, scale);
	memcpy(ta, a, sizeof(a));
	memcpy(tb, b, sizeof(b));
	in.delta = gpa_median(tb, 100) / gpa_median(ta, 100) - 1;
	gpa_mwu_test(a, 100, b, 100, &u);
	in.p = u.p;
	gpa_boot_ratio_ci(&sa, &sb, &bo, &in.ci_lo, &in.ci_hi);
	return gpa_verdict_decide(&in, NULL);
}

TEST(model_aa_false_regressions)
{
	int regressed = 0;

	for (uint64_t seed = 1; seed <= 200; seed++) {
		regressed += model_verdict(seed, 1) == GPA_VERDICT_REGRESSED;
	}
	/* alpha 5 %: at most 10 of 200 */
	if (regressed > 10) {
		TFAIL("A/A: %d of 200 seeds regressed", regressed);
	}
}

TEST(model_ab_detects_5pct)
{
	int detected = 0;

	for (uint64_t seed = 1; seed <= 200; seed++) {
		detected += model_verdict(seed, 1.05) == GPA_VERDICT_REGRESSED;
	}
	if (detected < 190) {
		TFAIL("A/B +5%%: detected in %d of 200 seeds", detected);
	}
}

TEST(kname_normalize)
{
	struct gpa_kname_rules *r;
	static const char *const cases[][2] = {
		{"void gemm_kernel_128x128<128, 128>(float const*, float const*, float*, int)",
		 "gemm_kernel_N"},
		{"void gemm_kernel_256x128<256, 128>(float const*, float const*, float*, int)",
		 "gemm_kernel_N"},
		{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_kernel",
		 "xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesizeN_kernel"},
		{"sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x32_kernel",
		 "xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesizeN_kernel"},
		{"ampere_sgemm_128x64_tn", "sgemm_N_tn"},
		{"fused_attention_sm90a", "fused_attention"},
		{"void at::native::(anonymous namespace)::softmax_warp_forward<float, 10>(float*)",
		 "at::native::softmax_warp_forward"},
		{"triton_poi_fused_add_mul_sigmoid_0", "triton_poi_fused_add_mul_sigmoid"},
		{"my_kernel_0x1f2e3d4c5b", "my_kernel"},
		{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
		 "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"},
		{"_Z11vec_add_f32PKfS0_Pfi", "vec_add_f32"},
	};
	char err[256];

	REQUIRE(gpa_kname_rules_new(true, &r) == 0);
	for (size_t i = 0; i < GP_ARRAY_SIZE(cases); i++) {
		char *n = gpa_kname_normalize(r, cases[i][0]);
		CHECK_STR(n, cases[i][1]);
		free(n);
	}
	/* user rules apply after the built-in ones */
	CHECK_EQ_I(gpa_kname_rules_add(r, "^gemm_kernel_N$", "gemm", err, sizeof(err)), 0);
	char *n = gpa_kname_normalize(r, "void gemm_kernel_64x64<64, 64>(float*)");
	CHECK_STR(n, "gemm");
	free(n);
	CHECK_EQ_I(gpa_kname_rules_add(r, "(", "", err, sizeof(err)), -GP_ERR_API);
	CHECK_CONTAINS(err, "bad regex");
	gpa_kname_rules_free(r);
}

/* ---- whole runs: generated traces through gpa_diff */

static int load_gen(const struct gen_opts *go, struct gpa_model *m)
{
	char path[512];
	struct gpt_writer *w;
	struct gen_stats gs;
	const char *p = path;
	char err[256];

	snprintf(path, sizeof(path), "%s/run.gpz", test_tmpdir());
	if (gpt_writer_open(path, NULL, &w) || gen_write(w, go, &gs) || gpt_writer_close(w)) {
		return -1;
	}
	return gpa_model_load(m, &p, 1, NULL, err, sizeof(err));
}

static void run_opts(struct gen_opts *go, uint64_t seed)
{
	gen_opts_default(go);
	go->seed = seed;
	go->steps = 8;
	go->kernels_per_step = 48;
	go->nvtx_depth = 1;
	go->same_kernels = true;
	go->step_jitter = 0.02;
	go->run_jitter = 0.005;
}

/* 10 runs per side; side b with its kernels slowed as given. */
static int trace_diff(uint64_t seed, double slowdown, const char *slow_re, double slow_f,
		      struct gpa_diff_result *res)
{
	static const char *const fail_on[] = {"step.wall", "kernel.*"};
	struct gpa_diff_opts o;
	struct gpa_diff *d;
	char err[256];
	int ret = 0;

	gpa_diff_opts_init(&o);
	o.boot.reps = 1000;
	o.boot.seed = seed;
	o.fail_on = fail_on;
	o.nfail_on = 2;
	if (gpa_diff_new(&o, &d, err, sizeof(err))) {
		return -1;
	}
	for (int side = 0; side < 2 && !ret; side++) {
		for (int run = 0; run < 10 && !ret; run++) {
			struct gen_opts go;
			struct gpa_model m;
			run_opts(&go, seed * 1000 + (uint64_t)side * 100 + (uint64_t)run);
			if (side) {
				go.slowdown = slowdown;
				go.slow_regex = slow_re;
				go.slow_factor = slow_f;
			}
			ret = load_gen(&go, &m);
			if (!ret) {
				ret = gpa_diff_add_run(d, side, &m, "run", err, sizeof(err));
				gpa_model_release(&m);
			}
		}
	}
	if (!ret) {
		ret = gpa_diff_compute(d, res);
	}
	gpa_diff_free(d);
	return ret;
}

static const struct gpa_diff_metric *metric(const struct gpa_diff_result *r, const char *name)
{
	for (size_t i = 0; i < r->metrics.n; i++) {
		if (!strcmp(r->metrics.v[i].name, name)) {
			return &r->metrics.v[i];
		}
	}
	return NULL;
}

/* A/A on real traces: no gated metric (step time and every kernel family) regresses. */
TEST(traces_aa)
{
	int false_fail = 0;

	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct gpa_diff_result r;
		REQUIRE(trace_diff(seed, 0, NULL, 0, &r) == 0);
		CHECK_EQ_I(r.samples, GPA_DIFF_STEPS);
		false_fail += r.regressed_gated > 0;
		gpa_diff_result_release(&r);
	}
	/* 20 seeds at a family-wise 5 %: more than 3 would have probability < 2 % */
	if (false_fail > 3) {
		TFAIL("A/A: %d of 20 seeds failed the gate", false_fail);
	}
}

/* A/B on real traces: +5 % on every kernel is a step-time regression in every seed. */
TEST(traces_ab_step)
{
	int detected = 0;

	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct gpa_diff_result r;
		REQUIRE(trace_diff(seed, 1.05, NULL, 0, &r) == 0);
		const struct gpa_diff_metric *m = metric(&r, "step.wall");
		REQUIRE(m != NULL);
		detected += m->verdict == GPA_VERDICT_REGRESSED;
		if (!(m->delta > 0.03 && m->delta < 0.07)) { TFAIL("seed %d delta %g [%g, %g] %s", (int)seed, m->delta, m->ci_lo, m->ci_hi, gpa_verdict_name(m->verdict)); }
		gpa_diff_result_release(&r);
	}
	if (detected < 19) {
		TFAIL("A/B +5%%: step.wall regressed in %d of 20 seeds", detected);
	}
}

/* One family 40 % slower: that family regresses, is the worst kernel, and no other does. */
TEST(traces_ab_kernel_attribution)
{
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct gpa_diff_result r;
		const struct gpa_diff_metric *worst = NULL;
		int others = 0;

		REQUIRE(trace_diff(seed, 0, "flash_bwd", 1.4, &r) == 0);
		for (size_t i = 0; i < r.metrics.n; i++) {
			const struct gpa_diff_metric *m = &r.metrics.v[i];
			if (strncmp(m->name, "kernel.", 7)) {
				continue;
			}
			if (!worst) {
				worst = m; /* worst first */
			} else if (m->verdict == GPA_VERDICT_REGRESSED) {
				others++;
			}
		}
		REQUIRE(worst != NULL);
		CHECK_STR(worst->name, "kernel.flash::flash_bwd_kernel_bf16_hdim128");
		CHECK_EQ_I(worst->verdict, GPA_VERDICT_REGRESSED);
		CHECK(worst->delta > 0.3 && worst->delta < 0.5);
		CHECK_EQ_I(others, 0);
		gpa_diff_result_release(&r);
	}
}

/* ---- a run's samples as bytes (diff --mpi) */

/* Two comparisons of the same 3 + 3 runs: one fed models, one fed their packed samples. */
TEST(run_pack_same_result)
{
	struct gpa_diff_opts o;
	struct gpa_diff *direct, *packed;
	struct gpa_diff_result a, b;
	struct gp_strbuf blob = GP_STRBUF_INIT;
	char err[256];

	gpa_diff_opts_init(&o);
	o.boot.reps = 500;
	REQUIRE(gpa_diff_new(&o, &direct, err, sizeof(err)) == 0);
	REQUIRE(gpa_diff_new(&o, &packed, err, sizeof(err)) == 0);
	for (int i = 0; i < 6; i++) {
		struct gen_opts go;
		struct gpa_model m;
		struct gpa_diff *one;
		int side = i < 3 ? 0 : 1;
		run_opts(&go, 77 + (uint64_t)(i == 4 ? 3 : i)); /* runs 3 and 4: the same trace */
		go.slowdown = side ? 1.1 : 0;
		REQUIRE(load_gen(&go, &m) == 0);
		REQUIRE(gpa_diff_add_run(direct, side, &m, i == 4 ? "again" : "run", err,
					 sizeof(err)) == 0);
		REQUIRE(gpa_diff_new(&o, &one, err, sizeof(err)) == 0);
		REQUIRE(gpa_diff_add_run(one, side, &m, i == 4 ? "again" : "run", err,
					 sizeof(err)) == 0);
		gpa_model_release(&m);
		gp_strbuf_reset(&blob);
		REQUIRE(gpa_diff_run_pack(one, &blob) == 0);
		/* a comparison of two runs is not one run's record */
		if (i == 5) {
			CHECK_EQ_I(gpa_diff_run_unpack(one, 1, blob.buf, blob.len, "x", err,
						       sizeof(err)), 0);
			struct gp_strbuf two = GP_STRBUF_INIT;
			CHECK_EQ_I(gpa_diff_run_pack(one, &two), -GP_ERR_API);
			gp_strbuf_release(&two);
		}
		gpa_diff_free(one);
		/* the wrong side is refused */
		struct gpa_diff *tmp;
		REQUIRE(gpa_diff_new(&o, &tmp, err, sizeof(err)) == 0);
		CHECK_EQ_I(gpa_diff_run_unpack(tmp, !side, blob.buf, blob.len, "r", err,
					       sizeof(err)), -GP_ERR_FORMAT);
		gpa_diff_free(tmp);
		REQUIRE(gpa_diff_run_unpack(packed, side, blob.buf, blob.len, "r", err,
					    sizeof(err)) == 0);
	}
	REQUIRE(gpa_diff_compute(direct, &a) == 0);
	REQUIRE(gpa_diff_compute(packed, &b) == 0);
	REQUIRE(a.metrics.n == b.metrics.n && a.metrics.n > 3);
	for (size_t i = 0; i < a.metrics.n; i++) {
		const struct gpa_diff_metric *x = &a.metrics.v[i], *y = &b.metrics.v[i];
		CHECK_STR(x->name, y->name);
		CHECK(x->med_a == y->med_a && x->med_b == y->med_b && x->p == y->p);
		CHECK(x->ci_lo == y->ci_lo && x->ci_hi == y->ci_hi && x->verdict == y->verdict);
	}
	REQUIRE(a.warnings.n == b.warnings.n && a.warnings.n > 0);
	for (size_t i = 0; i < a.warnings.n; i++) {
		CHECK_STR(a.warnings.v[i], b.warnings.v[i]);
	}
	CHECK_CONTAINS(a.warnings.v[0], "again is the same run as run");
	gpa_diff_result_release(&a);
	gpa_diff_result_release(&b);
	gpa_diff_free(direct);
	gpa_diff_free(packed);
	gp_strbuf_release(&blob);
}

/* Every cut of a record, and flipped bytes, are refused or read without harm. */
TEST(run_unpack_damaged)
{
	struct gpa_diff_opts o;
	struct gpa_diff *one;
	struct gen_opts go;
	struct gpa_model m;
	struct gp_strbuf blob = GP_STRBUF_INIT;
	char err[256];

	gpa_diff_opts_init(&o);
	run_opts(&go, 5);
	go.steps = 2;
	go.kernels_per_step = 4;
	REQUIRE(load_gen(&go, &m) == 0);
	REQUIRE(gpa_diff_new(&o, &one, err, sizeof(err)) == 0);
	REQUIRE(gpa_diff_add_run(one, 0, &m, "run", err, sizeof(err)) == 0);
	gpa_model_release(&m);
	REQUIRE(gpa_diff_run_pack(one, &blob) == 0);
	gpa_diff_free(one);
	for (size_t len = 0; len < blob.len; len++) {
		struct gpa_diff *d;
		REQUIRE(gpa_diff_new(&o, &d, err, sizeof(err)) == 0);
		CHECK_EQ_I(gpa_diff_run_unpack(d, 0, blob.buf, len, "cut", err, sizeof(err)),
			   -GP_ERR_FORMAT);
		CHECK_CONTAINS(err, "cut: ");
		gpa_diff_free(d);
	}
	unsigned char *b = malloc(blob.len);
	REQUIRE(b != NULL);
	for (size_t at = 0; at < blob.len; at++) {
		struct gpa_diff *d;
		memcpy(b, blob.buf, blob.len);
		b[at] ^= 0xff;
		REQUIRE(gpa_diff_new(&o, &d, err, sizeof(err)) == 0);
		int ret = gpa_diff_run_unpack(d, 0, b, blob.len, "flip", err, sizeof(err));
		if (ret != 0 && ret != -GP_ERR_FORMAT) {
			TFAIL("byte %zu flipped: %d %s", at, ret, err);
		}
		gpa_diff_free(d);
	}
	free(b);
	gp_strbuf_release(&blob);
}

/* A metric of a hand-made result: medians and means of each side, a verdict. */
static void put_metric(struct gpa_diff_result *r, const char *name, double a, double b,
		       enum gpa_verdict v)
{
	struct gpa_diff_metric m = {.name = strdup(name), .med_a = a, .med_b = b, .mean_a = a,
				    .mean_b = b, .delta = a > 0 ? b / a - 1 : 0, .verdict = v};

	REQUIRE(m.name != NULL);
	REQUIRE(gp_vec_push(&r->metrics, m) == 0);
}

/*
 * gpa_diff_explain on known numbers: the step fell by 30 (of 100); the path's
 * cpu time fell by 28 and kernel time by 2, and data-loading idle fell by 27
 * while launch-overhead idle rose: the top cause is cpu (93 %) paired with
 * data-loading idle (the same direction, by name none is akin to cpu);
 * launch-overhead on the path, paired by name, is against the change; a
 * kernel family that regressed is a kernel-level change.
 */
TEST(explain_ranks_causes_by_share)
{
	struct gpa_diff_result r = {.samples = GPA_DIFF_STEPS};

	put_metric(&r, "step.wall", 100, 70, GPA_VERDICT_IMPROVED);
	put_metric(&r, "path.kernel", 40, 38, GPA_VERDICT_INCONCLUSIVE);
	put_metric(&r, "path.cpu", 50, 22, GPA_VERDICT_IMPROVED);
	put_metric(&r, "path.launch-overhead", 10, 10.5, GPA_VERDICT_INCONCLUSIVE);
	put_metric(&r, "idle.data-loading", 27, 0, GPA_VERDICT_IMPROVED);
	put_metric(&r, "idle.launch-overhead", 1, 1.4, GPA_VERDICT_INCONCLUSIVE);
	put_metric(&r, "idle.total", 28, 1.4, GPA_VERDICT_IMPROVED);
	put_metric(&r, "kernel.gemm", 20, 25, GPA_VERDICT_REGRESSED);
	put_metric(&r, "kernel.same", 5, 5, GPA_VERDICT_UNCHANGED);
	REQUIRE(gpa_diff_explain(&r) == 0);
	const struct gpa_diff_explain *e = &r.explain;
	CHECK_EQ_I(e->direction, GPA_DIFF_FASTER);
	CHECK(!e->shifted);
	CHECK_NEAR(e->change_ns, -30, 1e-9);
	CHECK_NEAR(e->path_ns, -29.5, 1e-9);
	REQUIRE(e->causes.n == 3);
	CHECK_STR(e->causes.v[0].metric, "path.cpu");
	CHECK_NEAR(e->causes.v[0].share, 28 / 29.5, 1e-9);
	CHECK(e->causes.v[0].idle && !strcmp(e->causes.v[0].idle, "idle.data-loading"));
	CHECK_NEAR(e->causes.v[0].idle_ns, -27, 1e-9);
	CHECK_STR(e->causes.v[1].metric, "path.kernel");
	CHECK(e->causes.v[1].idle == NULL);
	CHECK_STR(e->causes.v[2].metric, "path.launch-overhead");
	CHECK(e->causes.v[2].share < 0);
	CHECK(e->causes.v[2].idle && !strcmp(e->causes.v[2].idle, "idle.launch-overhead"));
	REQUIRE(e->kernels.n == 1);
	CHECK_STR(e->kernels.v[0].metric, "kernel.gemm");
	CHECK_NEAR(e->kernels.v[0].delta_ns, 5, 1e-9);
	gpa_diff_result_release(&r);
}

/*
 * No change to share out: a step that did not move, and a path whose change
 * is not the step's (the composition shifted), rank by size without shares;
 * an inconclusive step time is undecided, whole runs say so.
 */
TEST(explain_shifted_composition)
{
	struct gpa_diff_result r = {.samples = GPA_DIFF_WHOLE_RUNS};

	put_metric(&r, "step.wall", 300, 299.4, GPA_VERDICT_INCONCLUSIVE);
	put_metric(&r, "path.kernel", 200, 175, GPA_VERDICT_INCONCLUSIVE);
	put_metric(&r, "path.cpu", 50, 61, GPA_VERDICT_INCONCLUSIVE);
	put_metric(&r, "path.communication", 50, 63.4, GPA_VERDICT_INCONCLUSIVE);
	put_metric(&r, "idle.cpu-bound", 40, 74, GPA_VERDICT_INCONCLUSIVE);
	REQUIRE(gpa_diff_explain(&r) == 0);
	const struct gpa_diff_explain *e = &r.explain;
	CHECK_EQ_I(e->direction, GPA_DIFF_UNDECIDED);
	CHECK(e->whole && e->shifted);
	REQUIRE(e->causes.n == 3);
	CHECK_STR(e->causes.v[0].metric, "path.kernel");
	CHECK_STR(e->causes.v[1].metric, "path.communication");
	CHECK_STR(e->causes.v[2].metric, "path.cpu");
	/* akin by name: cpu with cpu-bound, though it moved three times as much */
	CHECK(e->causes.v[2].idle && !strcmp(e->causes.v[2].idle, "idle.cpu-bound"));
	CHECK(e->causes.v[1].idle == NULL); /* communication is GPU work */
	gpa_diff_result_release(&r);

	/* steps, but the mean path moved four times as much as the mean step: shifted */
	struct gpa_diff_result s = {.samples = GPA_DIFF_STEPS};
	put_metric(&s, "step.wall", 100, 101, GPA_VERDICT_INCONCLUSIVE);
	put_metric(&s, "path.launch-overhead", 50, 46, GPA_VERDICT_INCONCLUSIVE);
	REQUIRE(gpa_diff_explain(&s) == 0);
	CHECK(s.explain.shifted && !s.explain.whole);
	gpa_diff_result_release(&s);

	/* no step time at all: nothing to read the direction from */
	struct gpa_diff_result t = {.samples = GPA_DIFF_STEPS};
	put_metric(&t, "gpu.busy", 10, 12, GPA_VERDICT_REGRESSED);
	REQUIRE(gpa_diff_explain(&t) == 0);
	CHECK(t.explain.step == SIZE_MAX && t.explain.direction == GPA_DIFF_SAME);
	CHECK_EQ_I(t.explain.causes.n, 0);
	gpa_diff_result_release(&t);
}

/*
 * A kernel family that regressed while the path's kernel time was found
 * unchanged did not move the step: off the path. One whose path category
 * is inconclusive is not said to be off it.
 */
TEST(explain_kernel_changes_off_path)
{
	struct gpa_diff_result r = {.samples = GPA_DIFF_STEPS};

	put_metric(&r, "step.wall", 100, 80, GPA_VERDICT_IMPROVED);
	put_metric(&r, "path.cpu", 60, 40, GPA_VERDICT_IMPROVED);
	put_metric(&r, "path.kernel", 40, 40, GPA_VERDICT_UNCHANGED);
	put_metric(&r, "path.copy", 1, 1.2, GPA_VERDICT_INCONCLUSIVE);
	put_metric(&r, "kernel.cudnn_conv", 8, 10, GPA_VERDICT_REGRESSED);
	put_metric(&r, "copy.time", 3, 4, GPA_VERDICT_REGRESSED);
	REQUIRE(gpa_diff_explain(&r) == 0);
	const struct gpa_diff_explain *e = &r.explain;
	REQUIRE(e->kernels.n == 2);
	CHECK_STR(e->kernels.v[0].metric, "kernel.cudnn_conv");
	CHECK(e->kernels.v[0].off_path);
	CHECK_STR(e->kernels.v[0].path, "path.kernel");
	CHECK_STR(e->kernels.v[1].metric, "copy.time");
	CHECK(!e->kernels.v[1].off_path);
	CHECK_STR(e->kernels.v[1].path, "path.copy");
	CHECK_STR(e->causes.v[0].metric, "path.cpu");
	gpa_diff_result_release(&r);
}
