/* SPDX-License-Identifier: MIT */
/*
 * MFU arithmetic against hand-computed cases, the peak table lookup for
 * every row and for unknown parts, and device-file parsing (analyze/mfu.c,
 * analyze/devices.c).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/mfu.h"
#include "analyze/steps.h"
#include "tests/unit/test.h"

#include <math.h>
#include <stdio.h>

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) <= 1e-9 * fabs((double)(b)))

TEST(mfu_flops_per_token)
{
	/* 7e9 params, no attention: 6N = 4.2e10 per token. */
	struct gpa_mfu_opts o = {.params = 7e9};
	CHECK(NEAR(gpa_mfu_flops_per_token(&o, false), 4.2e10));
	/* PaLM attention term: 12 L h T = 12 * 32 * 4096 * 2048 = 3221225472. */
	o.attention = true;
	o.layers = 32;
	o.hidden = 4096;
	o.seq_len = 2048;
	CHECK(NEAR(gpa_mfu_flops_per_token(&o, false), 4.2e10 + 3221225472.0));
	/* HFU without recompute is MFU; with it 8N + 16 L h T. */
	CHECK(NEAR(gpa_mfu_flops_per_token(&o, true), 4.2e10 + 3221225472.0));
	o.recompute = true;
	CHECK(NEAR(gpa_mfu_flops_per_token(&o, true), 5.6e10 + 16.0 * 32 * 4096 * 2048));
	/* Inference: 2N + 4 L h T. */
	o.inference = true;
	CHECK(NEAR(gpa_mfu_flops_per_token(&o, false), 1.4e10 + 4.0 * 32 * 4096 * 2048));
}

static void model_with(struct gpa_model *m, const char *name, unsigned maj, unsigned min,
		       uint32_t sms, uint64_t mem, uint32_t clock_khz)
{
	memset(m, 0, sizeof(*m));
	struct gpa_dev d = {.cc_major = (uint8_t)maj, .cc_minor = (uint8_t)min, .num_sms = sms,
			    .global_mem_bytes = mem, .core_clock_khz = clock_khz};
	REQUIRE(!gp_vec_push(&m->devs, d));
	m->devs.v[0].name = gpa_model_intern(m, name);
}

TEST(peaks_every_row)
{
	size_t n;
	const struct gpa_devrow *rows = gpa_devices_builtin(&n);
	CHECK(n >= 18);
	/* The name NVIDIA gives each part finds its own row. */
	static const char *const names[] = {
		"NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB", "NVIDIA A100-PCIE-40GB",
		"NVIDIA A100 80GB PCIe", "NVIDIA H100 80GB HBM3",  "NVIDIA H100 PCIe",
		"NVIDIA H100 NVL",       "NVIDIA H200",            "NVIDIA H200 NVL",
		"NVIDIA H20",            "NVIDIA L4",              "NVIDIA L40S",
		"NVIDIA A10",            "NVIDIA GeForce RTX 4090", "NVIDIA B200",
		"NVIDIA GB200",          "NVIDIA B300 SXM6 AC",    "NVIDIA GB300",
	};
	REQUIRE(n == GP_ARRAY_SIZE(names));
	for (size_t i = 0; i < n; i++) {
		struct gpa_model m;
		struct gpa_peaks p;
		model_with(&m, names[i], rows[i].cc_major, rows[i].cc_minor, rows[i].sms,
			   (uint64_t)rows[i].mem_gib << 30, 1500000);
		CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
		if (p.source != GPA_PEAK_TABLE || strcmp(p.name, rows[i].name)) {
			TFAIL("%s matched %s", names[i], p.name);
		}
		CHECK(p.tflops[GPA_DT_BF16] == rows[i].tflops[GPA_DT_BF16]);
		CHECK(p.mem_gbps == rows[i].mem_gbps);
		gpa_model_release(&m);
	}
}

TEST(peaks_values_and_fallbacks)
{
	struct gpa_model m;
	struct gpa_peaks p;
	char err[256];

	/* H100 SXM: 989.5 BF16, 3350 GB/s, NVLink 900 total, PCIe gen 5 = 63 GB/s a direction. */
	model_with(&m, "NVIDIA H100 80GB HBM3", 9, 0, 132, 80ull << 30, 1980000);
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK(p.tflops[GPA_DT_BF16] == 989.5 && p.tflops[GPA_DT_FP8] == 1979);
	CHECK(p.mem_gbps == 3350 && p.nvlink_gbps == 900 && p.pcie_gbps == 63.0);
	/* A MIG slice with 66 of 132 SMs: half the compute. */
	m.devs.v[0].num_sms = 66;
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK(NEAR(p.tflops[GPA_DT_BF16], 989.5 / 2));
	gpa_model_release(&m);
	/* Unknown name, no matching SM count: estimate 132 x 4096 x 1.83 GHz = 989.4 TF. */
	model_with(&m, "Mystery GPU", 9, 0, 132, 0, 1830000);
	m.devs.v[0].num_sms = 131;
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK_EQ_I(p.source, GPA_PEAK_ESTIMATE);
	CHECK_STR(p.name, "Mystery GPU");
	CHECK(NEAR(p.tflops[GPA_DT_BF16], 131 * 4096 * 1.83e9 / 1e12));
	gpa_model_release(&m);
	/* A GeForce 8.6 part: half the tensor rate with FP32 accumulation (RTX 3080: 68 SMs). */
	model_with(&m, "NVIDIA GeForce RTX 3080", 8, 6, 68, 10ull << 30, 1710000);
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK_EQ_I(p.source, GPA_PEAK_ESTIMATE);
	CHECK(NEAR(p.tflops[GPA_DT_BF16], 68 * 512 * 1.71e9 / 1e12));
	/* Unknown CC and no clock: nothing. */
	m.devs.v[0].cc_major = 13;
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK_EQ_I(p.source, GPA_PEAK_NONE);
	CHECK(p.tflops[GPA_DT_BF16] == 0);
	/* Overrides. */
	struct gpa_peak_opts o = {.device = "a100_sxm_80", .dtype = GPA_DT_BF16};
	CHECK_EQ_I(gpa_device_peaks_opts(&m, 0, &o, &p, err, sizeof(err)), 0);
	CHECK(p.tflops[GPA_DT_BF16] == 312 && p.mem_gbps == 2039);
	o.peak_tflops = 100;
	o.peak_gbps = 1000;
	CHECK_EQ_I(gpa_device_peaks_opts(&m, 0, &o, &p, err, sizeof(err)), 0);
	CHECK(p.tflops[GPA_DT_BF16] == 100 && p.mem_gbps == 1000 && p.overridden);
	o.device = "no-such-gpu";
	CHECK_EQ_I(gpa_device_peaks_opts(&m, 0, &o, &p, err, sizeof(err)), -GP_ERR_NOTFOUND);
	CHECK_CONTAINS(err, "unknown device 'no-such-gpu'");
	gpa_model_release(&m);
}

TEST(devices_file)
{
	struct gpa_devrow *rows;
	size_t n;
	char err[256];
	const char good[] = "# my parts\n"
			    "name=\"Lab GPU\" match=\"LabGPU 9000\" cc=9.0 sms=100 bf16=500 "
			    "mem_bw=2000 pcie_gen=5\n\n";
	CHECK_EQ_I(gpa_devices_parse("f", good, strlen(good), &rows, &n, err, sizeof(err)), 0);
	REQUIRE(n == 1);
	CHECK_STR(rows[0].name, "Lab GPU");
	CHECK(rows[0].tflops[GPA_DT_BF16] == 500 && rows[0].mem_gbps == 2000);
	const struct gpa_devrow *r = gpa_device_match("NVIDIA LabGPU 9000", 9, 0, 100, 0, rows, n);
	CHECK(r == &rows[0]);
	free(rows);
	static const struct {
		const char *text, *err;
	} bad[] = {
		{"name=x bf16=-1\n", "f:1: peak TFLOP/s must be a number"},
		{"name=x bf16=nan\n", "f:1: peak TFLOP/s must be a number"},
		{"name=x bf16=0\n", "f:1: peak TFLOP/s must be a number"},
		{"name=x bf16=1e300\n", "f:1: peak TFLOP/s must be a number"},
		{"name=x\n", "f:1: a device needs a peak or mem_bw"},
		{"bf16=5\n", "f:1: a device needs name="},
		{"\nname=x wat=5\n", "f:2: unknown key 'wat'"},
		{"name=\"x bf16=5\n", "f:1: unterminated quote"},
		{"name=x cc=nine bf16=1\n", "f:1: bad compute capability"},
		{"# nothing\n", "f: no device in the file"},
		{"name=x bf16\n", "f:1: expected key=value"},
	};
	for (size_t i = 0; i < GP_ARRAY_SIZE(bad); i++) {
		CHECK_EQ_I(gpa_devices_parse("f", bad[i].text, strlen(bad[i].text), &rows, &n, err,
					     sizeof(err)),
			   -GP_ERR_FORMAT);
		CHECK_CONTAINS(err, bad[i].err);
	}
	char nul[] = "name=x\0 bf16=1\n";
	CHECK_EQ_I(gpa_devices_parse("f", nul, sizeof(nul) - 1, &rows, &n, err, sizeof(err)),
		   -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "f:1: NUL byte in line");
}

TEST(mfu_step_arithmetic)
{
	struct gpa_model m;
	struct gpa_steps st = {0};
	struct gpa_mfu u;
	char err[256];

	/* One H100 SXM, two steps of 1 s and 2 s, 494.75e12 FLOPs per step: 50 % and 25 %. */
	model_with(&m, "NVIDIA H100 80GB HBM3", 9, 0, 132, 80ull << 30, 1980000);
	struct gpa_step s0 = {.start = 0, .end = 1000000000}, s1 = {.start = 1000000000,
								    .end = 3000000000ull};
	REQUIRE(!gp_vec_push(&st.v, s0) && !gp_vec_push(&st.v, s1));
	struct gpa_mfu_opts o = {.flops_per_step = 494.75e12, .recompute = true,
				 .bytes_per_step = 1675e9, .dtype = GPA_DT_BF16};
	CHECK_EQ_I(gpa_mfu_analyze(&m, &st, &o, &u, err, sizeof(err)), 0);
	REQUIRE(u.steps.n == 2);
	CHECK(NEAR(u.steps.v[0].mfu, 0.5) && NEAR(u.steps.v[1].mfu, 0.25));
	CHECK(NEAR(u.steps.v[0].hfu, 0.5 * 4 / 3));
	CHECK(NEAR(u.steps.v[0].mbu, 0.5) && NEAR(u.steps.v[1].mbu, 0.25));
	CHECK(NEAR(u.mfu_median, 0.375));
	gpa_mfu_release(&u);
	/* Bad parameters are refused with a reason. */
	o.flops_per_step = NAN;
	CHECK_EQ_I(gpa_mfu_analyze(&m, &st, &o, &u, err, sizeof(err)), -GP_ERR_API);
	CHECK_CONTAINS(err, "--flops-per-step must be a finite number");
	o.flops_per_step = -5;
	CHECK_EQ_I(gpa_mfu_analyze(&m, &st, &o, &u, err, sizeof(err)), -GP_ERR_API);
	o.flops_per_step = 1e30;
	CHECK_EQ_I(gpa_mfu_analyze(&m, &st, &o, &u, err, sizeof(err)), -GP_ERR_API);
	o.flops_per_step = 1e12;
	o.params = 1e9;
	CHECK_EQ_I(gpa_mfu_analyze(&m, &st, &o, &u, err, sizeof(err)), -GP_ERR_API);
	CHECK_CONTAINS(err, "not both");
	o.flops_per_step = 0;
	CHECK_EQ_I(gpa_mfu_analyze(&m, &st, &o, &u, err, sizeof(err)), -GP_ERR_API);
	CHECK_CONTAINS(err, "--tokens-per-step");
	gp_vec_free(&st.v);
	gpa_model_release(&m);
}

TEST(roofline_rules_and_placement)
{
	struct gpa_roof_rules *rs;
	char err[256];
	struct gpa_model m;
	struct gpa_peaks p;
	struct gpa_roofline r;

	static const struct {
		const char *text, *err;
	} bad[] = {
		{"pattern=x flops=1\n", "f:1: a rule needs pattern=, flops= and bytes="},
		{"pattern=x flops=\"2*(grid\" bytes=1\n", "f:1: bad flops formula"},
		{"pattern=x flops=1 bytes=warps\n", "f:1: bad bytes formula"},
		{"pattern=( flops=1 bytes=1\n", "f:1: bad pattern '('"},
		{"pattern=x flops=1 bytes=1 dtype=fp7\n", "f:1: unknown datatype 'fp7'"},
		{"pattern=x flops=1 bytes=1 color=red\n", "f:1: unknown key 'color'"},
		{"pattern=\"x flops=1 bytes=1\n", "f:1: unterminated quote"},
		{"pattern=x flops=1 bytes\n", "f:1: expected key=value, got 'bytes'"},
		{"# only a comment\n", "no rule in the file"},
	};
	for (size_t i = 0; i < GP_ARRAY_SIZE(bad); i++) {
		CHECK_EQ_I(gpa_roof_rules_parse("f", bad[i].text, strlen(bad[i].text), &rs, err,
						sizeof(err)),
			   -GP_ERR_FORMAT);
		CHECK_CONTAINS(err, bad[i].err);
	}
	/* Lines: a NUL byte, and one byte over the limit, are named by line number. */
	char nul[] = "# a rule\npattern=x\0 flops=1 bytes=1\n";
	CHECK_EQ_I(gpa_roof_rules_parse("f", nul, sizeof(nul) - 1, &rs, err, sizeof(err)),
		   -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "f:2: NUL byte in line");
	char *longl = malloc(GP_KV_LINE_MAX + 2);
	REQUIRE(longl);
	memset(longl, ' ', GP_KV_LINE_MAX + 1);
	longl[GP_KV_LINE_MAX + 1] = '\n';
	CHECK_EQ_I(gpa_roof_rules_parse("f", longl, GP_KV_LINE_MAX + 2, &rs, err, sizeof(err)),
		   -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "f:1: line longer than 4096 bytes");
	/* Exactly the limit is a line (here a blank one): no rule, not a length error. */
	CHECK_EQ_I(gpa_roof_rules_parse("f", longl + 1, GP_KV_LINE_MAX + 1, &rs, err, sizeof(err)),
		   -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "no rule in the file");
	free(longl);

	/* H100 SXM (989.5 TF bf16, 3350 GB/s: ridge 295.4), 1 ms a launch. */
	char path[512];
	struct gpt_writer *w;
	snprintf(path, sizeof(path), "%s/roof.gpz", test_tmpdir());
	REQUIRE(!gpt_writer_open(path, NULL, &w));
	struct gpt_process pr = {.pid = 7, .rank = -1, .phase = 1};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_PROCESS, &pr), 0);
	uint32_t sid[4];
	const char *const names[4] = {"NVIDIA H100 80GB HBM3", "my_gemm", "my_copy", "unknown_k"};
	for (int i = 0; i < 4; i++) {
		CHECK_EQ_I(gpt_writer_intern_cstr(w, names[i], &sid[i]), 0);
	}
	struct gpt_device dv = {.id = 0, .name = sid[0], .cc_major = 9, .num_sms = 132,
				.global_mem_bytes = 80ull << 30};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_DEVICE, &dv), 0);
	const uint32_t fn[4] = {1, 1, 2, 3};
	for (int i = 0; i < 4; i++) {
		struct gpt_kernel k = {.start = 1000000 + (uint64_t)i * 2000000, .stream = 7,
				       .correlation = (uint32_t)i + 1, .name = sid[fn[i]],
				       .grid_x = fn[i] == 2 ? 66 : 264, .grid_y = 1, .grid_z = 1,
				       .block_x = fn[i] == 2 ? 128 : 256, .block_y = 1, .block_z = 1};
		k.end = k.start + 1000000;
		CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, &k), 0);
	}
	REQUIRE(!gpt_writer_close(w));
	const char *paths[] = {path};
	REQUIRE(!gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)));
	const char rules[] = "pattern=gemm flops=\"grid * 1e9\" bytes=\"grid * 1e6\"\n"
			     "pattern=copy flops=0 bytes=\"threads * 8 * 1000\"\n";
	CHECK_EQ_I(gpa_roof_rules_parse("f", rules, strlen(rules), &rs, err, sizeof(err)), 0);
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK_EQ_I(gpa_roofline_analyze(&m, rs, &p, GPA_DT_BF16, &r, err, sizeof(err)), 0);
	CHECK(NEAR(r.ridge, 989.5e12 / 3350e9));
	REQUIRE(r.rows.n == 2);
	CHECK_EQ_U(r.unmatched_launches, 1);
	CHECK_EQ_U(r.matched_ns, 3000000);
	CHECK_EQ_U(r.unmatched_ns, 1000000);
	/* gemm: 264e9 FLOP, 264e6 B a launch: AI 1000 > ridge: compute bound, full roof;
	 * achieved 2 x 264e9 / 2 ms = 264 TF; speed of light 264e9/989.5e12 per launch. */
	const struct gpa_roof_row *g = &r.rows.v[0];
	CHECK_EQ_U(g->launches, 2);
	CHECK(NEAR(g->ai, 1000));
	CHECK_EQ_I(g->bound, GPA_ROOF_COMPUTE);
	CHECK(NEAR(g->attainable_tflops, 989.5));
	CHECK(NEAR(g->achieved_tflops, 264));
	CHECK(NEAR(g->efficiency, 264e9 / 989.5e12 / 1e-3));
	/* copy: 0 FLOPs, 66 x 128 x 8000 B: memory bound; the grid of 66 uses half the SMs. */
	const struct gpa_roof_row *c = &r.rows.v[1];
	CHECK_EQ_I(c->bound, GPA_ROOF_MEMORY);
	CHECK(NEAR(c->bytes, 66.0 * 128 * 8000));
	CHECK(NEAR(c->efficiency, c->bytes / 3350e9 / 1e-3));
	gpa_roofline_release(&r);
	gpa_roof_rules_free(rs);
	gpa_model_release(&m);
}

/*
 * A device the trace names but the table lacks is not guessed from its
 * numbers (an H800 has the H100's CC, SMs and memory, not its peaks); a
 * device without a name is. Peaks unknown: the trace's own name, not "unknown".
 */
TEST(peaks_named_device_not_guessed)
{
	struct gpa_model m;
	struct gpa_peaks p;

	model_with(&m, "NVIDIA H800", 9, 0, 132, 80ull << 30, 1980000);
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK_EQ_I(p.source, GPA_PEAK_ESTIMATE);
	CHECK_STR(p.name, "NVIDIA H800");
	gpa_model_release(&m);
	model_with(&m, "", 9, 0, 132, 80ull << 30, 1980000);
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK_EQ_I(p.source, GPA_PEAK_TABLE);
	CHECK_STR(p.name, "H100 SXM 80GB");
	gpa_model_release(&m);
	/* A V100 (not in the table, no clock in the trace): no peaks, but its name. */
	model_with(&m, "Tesla V100-SXM2-32GB", 7, 0, 80, 32ull << 30, 0);
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK_EQ_I(p.source, GPA_PEAK_NONE);
	CHECK_STR(p.name, "Tesla V100-SXM2-32GB");
	gpa_model_release(&m);
	CHECK(gpa_device_find("h100_sxm", NULL, 0) != NULL);
	CHECK(gpa_device_find("H800", NULL, 0) == NULL);
}

/*
 * Eight devices described, one (the second) did work: MFU counts one GPU and
 * takes that GPU's peaks; a value over 100 % is refused with the likely cause.
 */
TEST(mfu_gpus_that_did_work)
{
	struct gpa_model m;
	struct gpa_steps st = {0};
	struct gpa_mfu u;
	char err[512];

	model_with(&m, "NVIDIA A100-SXM4-80GB", 8, 0, 108, 80ull << 30, 1410000);
	for (int i = 1; i < 8; i++) {
		struct gpa_dev d = m.devs.v[0];
		d.id = (uint32_t)i;
		REQUIRE(!gp_vec_push(&m.devs, d));
	}
	m.devs.v[0].name = gpa_model_intern(&m, "NVIDIA A100-SXM4-40GB"); /* no work: not used */
	m.devs.v[1].gpu_count = 10;
	uint32_t first;
	CHECK_EQ_U(gpa_model_work_devices(&m, &first), 1);
	CHECK_EQ_U(first, 1);
	struct gpa_step s0 = {.start = 0, .end = 1000000000};
	REQUIRE(!gp_vec_push(&st.v, s0));
	/* 156e12 FLOPs in 1 s on one A100 80GB (312 TF): 50 % */
	struct gpa_mfu_opts o = {.flops_per_step = 156e12, .dtype = GPA_DT_BF16};
	CHECK_EQ_I(gpa_mfu_analyze(&m, &st, &o, &u, err, sizeof(err)), 0);
	CHECK_EQ_U(u.gpus, 1);
	CHECK_STR(u.peaks.name, "A100 SXM4 80GB");
	CHECK(NEAR(u.steps.v[0].mfu, 0.5));
	gpa_mfu_release(&u);
	/* the FLOPs of 8 GPUs over one GPU: 400 %, refused */
	o.flops_per_step = 8 * 156e12;
	CHECK_EQ_I(gpa_mfu_analyze(&m, &st, &o, &u, err, sizeof(err)), -GP_ERR_API);
	CHECK_CONTAINS(err, "MFU of 400.0 % is over 100 %");
	CHECK_CONTAINS(err, "more GPUs than the 1 that did work");
	CHECK_CONTAINS(err, "--gpus");
	/* the job's GPU count given: 50 % again */
	o.gpus = 8;
	CHECK_EQ_I(gpa_mfu_analyze(&m, &st, &o, &u, err, sizeof(err)), 0);
	CHECK(NEAR(u.steps.v[0].mfu, 0.5));
	gpa_mfu_release(&u);
	/* bytes over the bandwidth: MBU refused, naming --peak-bw */
	o = (struct gpa_mfu_opts){.bytes_per_step = 3 * 2039e9, .dtype = GPA_DT_BF16};
	CHECK_EQ_I(gpa_mfu_analyze(&m, &st, &o, &u, err, sizeof(err)), -GP_ERR_API);
	CHECK_CONTAINS(err, "MBU of 300.0 % is over 100 %");
	CHECK_CONTAINS(err, "--peak-bw");
	gp_vec_free(&st.v);
	gpa_model_release(&m);
}
