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
	/* The name each part reports (nvidia-smi, hipDeviceProp) finds its own row. */
	static const char *const names[] = {
		"Tesla V100-SXM2-16GB",    "Tesla V100-SXM2-32GB",    "Tesla V100-PCIE-16GB",
		"Tesla V100-PCIE-32GB",    "Tesla V100S-PCIE-32GB",   "Tesla T4",
		"NVIDIA GeForce RTX 2080 Ti", "NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB",
		"NVIDIA A100-PCIE-40GB",   "NVIDIA A100 80GB PCIe",   "NVIDIA A30",
		"NVIDIA A10",              "NVIDIA A10G",             "NVIDIA A16",
		"NVIDIA A2",               "NVIDIA A40",              "NVIDIA RTX A6000",
		"NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3090 Ti", "NVIDIA L4",
		"NVIDIA L40",              "NVIDIA L40S",             "NVIDIA RTX 6000 Ada Generation",
		"NVIDIA GeForce RTX 4090", "NVIDIA H100 80GB HBM3",   "NVIDIA H100 PCIe",
		"NVIDIA H100 NVL",         "NVIDIA H800",             "NVIDIA H800 PCIe",
		"NVIDIA H20",              "NVIDIA GH200 480GB",      "NVIDIA GH200 144G HBM3e",
		"NVIDIA H200",             "NVIDIA H200 NVL",         "NVIDIA B100",
		"NVIDIA B200",             "NVIDIA GB200",            "NVIDIA B300 SXM6 AC",
		"NVIDIA GB300",            "NVIDIA GeForce RTX 5090", "AMD Instinct MI100",
		"AMD Instinct MI210",      "AMD Instinct MI250",      "AMD Instinct MI250X",
		"AMD Instinct MI300A",     "AMD Instinct MI300X",     "AMD Instinct MI325X",
		"AMD Instinct MI355X",
	};
	REQUIRE(n == GP_ARRAY_SIZE(names));
	for (size_t i = 0; i < n; i++) {
		struct gpa_model m;
		struct gpa_peaks p;
		model_with(&m, names[i], rows[i].cc_major, rows[i].cc_minor, rows[i].sms,
			   (uint64_t)rows[i].mem_gib << 30, 1500000);
		CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
		if (p.source != GPA_PEAK_TABLE || strcmp(p.name, rows[i].name) || p.by_numbers) {
			TFAIL("%s matched %s", names[i], p.name);
		}
		CHECK(p.tflops[GPA_DT_BF16] == rows[i].tflops[GPA_DT_BF16]);
		CHECK(p.mem_gbps == rows[i].mem_gbps);
		CHECK(p.doc == rows[i].source);
		gpa_model_release(&m);
	}
}

/* The datatypes' order of speed: each path is at least as fast as the wider one. */
static void check_row_rates(const struct gpa_devrow *r)
{
	const double *t = r->tflops;
	if (t[GPA_DT_TF32] > 0 && t[GPA_DT_BF16] > 0 && t[GPA_DT_TF32] > t[GPA_DT_BF16]) {
		TFAIL("%s: TF32 %g over BF16 %g", r->key, t[GPA_DT_TF32], t[GPA_DT_BF16]);
	}
	if (t[GPA_DT_FP8] > 0 && t[GPA_DT_FP8] < t[GPA_DT_BF16]) {
		TFAIL("%s: FP8 %g under BF16 %g", r->key, t[GPA_DT_FP8], t[GPA_DT_BF16]);
	}
	if (t[GPA_DT_FP4] > 0 && t[GPA_DT_FP4] < t[GPA_DT_FP8]) {
		TFAIL("%s: FP4 %g under FP8 %g", r->key, t[GPA_DT_FP4], t[GPA_DT_FP8]);
	}
	if (t[GPA_DT_FP64] > 0 && t[GPA_DT_BF16] > 0 && t[GPA_DT_FP64] > t[GPA_DT_BF16]) {
		TFAIL("%s: FP64 %g over BF16 %g", r->key, t[GPA_DT_FP64], t[GPA_DT_BF16]);
	}
	if (t[GPA_DT_FP8] > 0 && r->cc_major == 8 && r->cc_minor < 9) {
		TFAIL("%s: FP8 on a part before Ada", r->key);
	}
	if (t[GPA_DT_FP4] > 0 && r->cc_major < 10 && !strstr(r->name, "MI3")) {
		TFAIL("%s: FP4 on a part before Blackwell / CDNA 3", r->key);
	}
}

/*
 * Every row's units and sources: TFLOP/s within what any part reaches
 * (1e5, i.e. 100 PF dense), GB/s of memory between 100 and 20000,
 * NVLink under 10000, a known PCIe generation; a source naming a vendor
 * document (datasheet, whitepaper, technical brief, specifications), a note
 * for every row without a vendor datasheet, and no two rows with one key.
 */
TEST(peaks_every_row_units_and_sources)
{
	size_t n;
	const struct gpa_devrow *rows = gpa_devices_builtin(&n);
	for (size_t i = 0; i < n; i++) {
		const struct gpa_devrow *r = &rows[i];
		bool any = false;
		for (int d = 0; d < GPA_DT__COUNT; d++) {
			if (r->tflops[d] < 0 || r->tflops[d] > 1e5) {
				TFAIL("%s: %s %g TFLOP/s out of range", r->key,
				      gpa_dtype_name((enum gpa_dtype)d), r->tflops[d]);
			}
			any |= r->tflops[d] > 0;
		}
		if (!any && !r->disputed) {
			TFAIL("%s: no peak and not marked disputed", r->key);
		}
		if (r->mem_gbps < 100 || r->mem_gbps > 20000) {
			TFAIL("%s: memory %g GB/s is not GB/s", r->key, r->mem_gbps);
		}
		if (r->nvlink_gbps < 0 || r->nvlink_gbps > 10000 || r->pcie_gen > 6 ||
		    (r->pcie_gen && r->pcie_gen < 3)) {
			TFAIL("%s: link %g GB/s, PCIe gen %u", r->key, r->nvlink_gbps, r->pcie_gen);
		}
		if (!r->cc_major || !r->mem_gib || r->mem_gib > 1024) {
			TFAIL("%s: CC %u.%u, %u GiB", r->key, r->cc_major, r->cc_minor, r->mem_gib);
		}
		if (r->boost_mhz && (r->boost_mhz < 500 || r->boost_mhz > 3500)) {
			TFAIL("%s: clock %u MHz", r->key, r->boost_mhz);
		}
		check_row_rates(r);
		if (!r->source || !r->note) {
			TFAIL("%s: no source or note", r->key);
			continue;
		}
		if (strlen(r->source) > 78) { /* fits the 120-column Utilization table */
			TFAIL("%s: source of %zu characters", r->key, strlen(r->source));
		}
		bool vendor = (!strncmp(r->source, "NVIDIA ", 7) || !strncmp(r->source, "AMD ", 4)) &&
			      (strstr(r->source, "datasheet") || strstr(r->source, "whitepaper") ||
			       strstr(r->source, "technical brief") || strstr(r->source, "specifications"));
		if (!vendor && !(r->disputed && *r->note)) {
			TFAIL("%s: source '%s' names no vendor document", r->key, r->source);
		}
		if (r->disputed && !*r->note) {
			TFAIL("%s: disputed without a note saying why", r->key);
		}
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(rows[j].key, r->key) || !strcmp(rows[j].name, r->name)) {
				TFAIL("%s: key or name twice", r->key);
			}
		}
	}
}

/* The name of the row a device of these numbers (memory in GiB) matches; "" none. */
static const char *matched(const char *name, unsigned maj, unsigned min, uint32_t sms,
			   uint64_t gib)
{
	const struct gpa_devrow *r = gpa_device_match(name, maj, min, sms, gib << 30, NULL, 0,
						      NULL, NULL);
	return r ? r->name : "";
}

/* Where the peaks of a CC 9.0 device of 80 GB come from; its name is kept when not a row's. */
static enum gpa_peak_source source_of(const char *name, uint32_t sms, uint32_t clock_khz)
{
	struct gpa_model m;
	struct gpa_peaks p;

	model_with(&m, name, 9, 0, sms, 80ull << 30, clock_khz);
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	if (p.source != GPA_PEAK_TABLE && p.source != GPA_PEAK_USER) {
		CHECK_STR(p.name, name);
	}
	gpa_model_release(&m);
	return p.source;
}

/* Vague names: the SM count and memory decide; no name or no model in it: the numbers. */
TEST(peaks_vague_names)
{
	struct gpa_model m;
	struct gpa_peaks p;

	/* Meta's A100 boards report their board number: 108 SMs, 40 GB. */
	model_with(&m, "NVIDIA A100-PG509-200", 8, 0, 108, 42297524224ull, 0);
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK_STR(p.name, "A100 SXM4 40GB");
	CHECK(!p.by_numbers);
	gpa_model_release(&m);
	/* "NVIDIA H100" alone: 114 SMs is the PCIe card, 132 SMs and 80 GB the SXM. */
	CHECK_STR(matched("NVIDIA H100", 9, 0, 114, 80), "H100 PCIe 80GB");
	CHECK_STR(matched("NVIDIA H100", 9, 0, 132, 80), "H100 SXM 80GB");
	/* ROCm's name for both: the CU count decides (110 a GCD of an MI250X). */
	CHECK_STR(matched("AMD Instinct MI250X / MI250", 9, 0, 104, 64), "Instinct MI250 (per GCD)");
	CHECK_STR(matched("AMD Instinct MI250X / MI250", 9, 0, 110, 64), "Instinct MI250X (per GCD)");
	/* No model in the name: compute capability, CUs and memory, said so. */
	model_with(&m, "AMD Radeon Graphics", 9, 4, 304, 192ull << 30, 2100000);
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK_STR(p.name, "Instinct MI300X 192GB");
	CHECK(p.by_numbers && p.tflops[GPA_DT_BF16] == 1307.4);
	CHECK(p.also == NULL);
	/* 256 GB: the MI325X. */
	m.devs.v[0].global_mem_bytes = 256ull << 30;
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK_STR(p.name, "Instinct MI325X 256GB");
	gpa_model_release(&m);
	/* Two parts with the same numbers and peaks: both named, not disputed. */
	model_with(&m, "", 9, 0, 104, 64ull << 30, 1700000);
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK(p.by_numbers && p.also != NULL && !p.disputed);
	CHECK(p.tflops[GPA_DT_BF16] == 181);
	gpa_model_release(&m);
	/* A named part of no row is never taken for a row of the same numbers. */
	CHECK_STR(matched("NVIDIA H100 Future", 9, 0, 132, 80), "H100 SXM 80GB"); /* "H100" */
	CHECK_STR(matched("NVIDIA X900", 9, 0, 132, 80), "");
	CHECK_EQ_I(source_of("NVIDIA X900", 132, 0), GPA_PEAK_NONE);
	/* An AMD part of no row gets no NVIDIA estimate, even at CC 9.0 with a clock. */
	CHECK_EQ_I(source_of("AMD Instinct MI999", 100, 2000000), GPA_PEAK_NONE);
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
	const struct gpa_devrow *r = gpa_device_match("NVIDIA LabGPU 9000", 9, 0, 100, 0, rows, n, NULL, NULL);
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
	/* A rule that overstates the work: 264 x 1e13 FLOP a launch in 1 ms is 2640 PF/s,
	 * over the 989.5 TF peak: implausible, not placed (never over 100 %). */
	const char big[] = "pattern=gemm flops=\"grid * 1e13\" bytes=\"grid * 1e6\"\n";
	CHECK_EQ_I(gpa_roof_rules_parse("f", big, strlen(big), &rs, err, sizeof(err)), 0);
	CHECK_EQ_I(gpa_roofline_analyze(&m, rs, &p, GPA_DT_BF16, &r, err, sizeof(err)), 0);
	REQUIRE(r.rows.n == 1);
	CHECK_EQ_I(r.rows.v[0].bound, GPA_ROOF_IMPLAUSIBLE);
	CHECK(r.rows.v[0].efficiency > 1);
	gpa_roofline_release(&r);
	gpa_roof_rules_free(rs);
	gpa_model_release(&m);
}

/*
 * A device the trace names but the table lacks is not guessed from its
 * numbers (a new part may have an H100's CC, SMs and memory, not its peaks:
 * so did the H800 before it had a row); a device without a name is. Peaks
 * unknown: the trace's own name, not "unknown".
 */
TEST(peaks_named_device_not_guessed)
{
	struct gpa_model m;
	struct gpa_peaks p;

	CHECK_EQ_I(source_of("NVIDIA H900", 132, 1980000), GPA_PEAK_ESTIMATE);
	/* No name: the numbers, which fit the H100 SXM and the H800 SXM: said, and
	 * their peaks differ (FP64), so the figures are to verify. */
	model_with(&m, "", 9, 0, 132, 80ull << 30, 1980000);
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK_EQ_I(p.source, GPA_PEAK_TABLE);
	CHECK_STR(p.name, "H100 SXM 80GB");
	CHECK(p.by_numbers && p.also && !strcmp(p.also, "H800 SXM 80GB") && p.disputed);
	gpa_model_release(&m);
	/* A Pascal part (not in the table, no clock in the trace): no peaks, but its name. */
	model_with(&m, "Quadro GP100", 6, 0, 56, 16ull << 30, 0);
	CHECK_EQ_I(gpa_device_peaks(&m, 0, &p), 0);
	CHECK_EQ_I(p.source, GPA_PEAK_NONE);
	CHECK_STR(p.name, "Quadro GP100");
	gpa_model_release(&m);
	CHECK(gpa_device_find("h100_sxm", NULL, 0) != NULL);
	CHECK(gpa_device_find("H900", NULL, 0) == NULL);
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
