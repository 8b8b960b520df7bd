/* SPDX-License-Identifier: MIT */
/*
 * PyTorch operators recorded as NVTX ranges under emit_nvtx() (analyze/
 * ops-nvtx.c): the range text parsed into an operator name and a signature
 * of its sizes, hostile texts refused, FLOPs from sizes alone, and a trace
 * whose NVTX ranges become CPU operators the operator analysis models.
 */
#include "base/compat.h"
#include "analyze/model-internal.h"
#include "analyze/ops.h"
#include "tests/unit/test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses text; checks the name and the signature (want_sig NULL: not an operator). */
static void parses(const char *text, const char *want_name, const char *want_sig)
{
	struct gp_strbuf sig = GP_STRBUF_INIT;
	size_t len = 0;
	int r = gpa_ops_nvtx_parse(text, &len, &sig);

	if (!want_sig) {
		CHECK_EQ_I(r, 0);
		CHECK_EQ_U(sig.len, 0);
	} else {
		CHECK_EQ_I(r, 1);
		CHECK_EQ_U(len, strlen(want_name));
		CHECK(!strncmp(text, want_name, len));
		CHECK_STR(sig.len ? sig.buf : "", want_sig);
	}
	gp_strbuf_release(&sig);
}

TEST(ops_nvtx_forms)
{
	/* PyTorch's util.cpp getNvtxStr: name, seq, op_id, sizes, input_op_ids */
	parses("aten::addmm, seq = 12, op_id = 34, sizes = [[8, 4], [8, 16], [16, 4], [], []], "
	       "input_op_ids = [(30,0), (31,0), (0,0)]",
	       "aten::addmm", "D=[[8,4],[8,16],[16,4],[],[]]");
	/* the legacy profiler: name, seq, sizes */
	parses("aten::mm, seq = 3, sizes = [[64, 128], [128, 32]]", "aten::mm",
	       "D=[[64,128],[128,32]]");
	/* no sequence number (sequence_nr -1): name and sizes */
	parses("aten::relu, sizes = [[1024]]", "aten::relu", "D=[[1024]]");
	/* record_shapes off: an operator without sizes */
	parses("aten::add, seq = 7", "aten::add", "");
	parses("aten::add, op_id = 9", "aten::add", "");
	/* no inputs at all */
	parses("aten::empty, seq = 1, sizes = []", "aten::empty", "D=[]");
	/* backward functions and names with ", " before the fields */
	parses("autograd::engine::evaluate_function: AddmmBackward0, seq = 12, sizes = [[8, 16]]",
	       "autograd::engine::evaluate_function: AddmmBackward0", "D=[[8,16]]");
	parses("a, b, seq = 1", "a, b", "");
}

TEST(ops_nvtx_refused)
{
	/* user ranges */
	parses("forward", NULL, NULL);
	parses("layer 1, block 2", NULL, NULL);
	parses("", NULL, NULL);
	/* the legacy profiler's nameless form (sequence_nr < 0 with sizes) */
	parses(", sizes = [[8, 4]]", NULL, NULL);
	/* fields out of order, repeated, unknown, or with text after them */
	parses("aten::mm, sizes = [[8]], seq = 1", NULL, NULL);
	parses("aten::mm, seq = 1, seq = 2", NULL, NULL);
	parses("aten::mm, seq = 1, flops = 9", NULL, NULL);
	parses("aten::mm, seq = 1 ", NULL, NULL);
	parses("aten::mm, seq = 1, sizes = [[8, 4]] tail", NULL, NULL);
	/* malformed numbers and shapes */
	parses("aten::mm, seq = ", NULL, NULL);
	parses("aten::mm, seq = -1", NULL, NULL);
	parses("aten::mm, seq = 1x", NULL, NULL);
	parses("aten::mm, seq = 1234567890123456789", NULL, NULL);
	parses("aten::mm, sizes = [[8, -4]]", NULL, NULL);
	parses("aten::mm, sizes = [[8,4]]", NULL, NULL);
	parses("aten::mm, sizes = [[8, 4], [8]", NULL, NULL);
	parses("aten::mm, sizes = [[8, 4]", NULL, NULL);
	parses("aten::mm, sizes = [[[8]]]", NULL, NULL);
	parses("aten::mm, sizes = [[8, ]]", NULL, NULL);
	parses("aten::mm, sizes = [8, 4]", NULL, NULL);
	parses("aten::mm, sizes = ", NULL, NULL);
	parses("aten::mm, seq = 1, input_op_ids = [(1,0)", NULL, NULL);
	parses("aten::mm, seq = 1, input_op_ids = [(1,0)]]", NULL, NULL);
	parses("aten::mm, seq = 1, input_op_ids = [\"x\"]", NULL, NULL);
}

/* Cut and mutated texts: 0 or 1, never a crash, a signature only with 1 (ASan in make check). */
TEST(ops_nvtx_hostile)
{
	static const char base[] = "aten::addmm, seq = 12, op_id = 34, sizes = [[8, 4], [8, 16], "
				   "[16, 4], [], []], input_op_ids = [(30,0), (31,0)]";
	static const char repl[] = {'[', ']', ',', ' ', '=', '(', ')', '0', '9', '-', 'x', 's'};
	struct gp_strbuf sig = GP_STRBUF_INIT;
	char v[sizeof(base)];
	uint64_t x = 2463534242ull;
	int ok = 0;

	for (int i = 0; i < 5000; i++) {
		size_t len = 0;
		memcpy(v, base, sizeof(base));
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (i % 3 == 0) {
			v[x % (sizeof(base) - 1)] = 0;
		} else {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v[x % (sizeof(base) - 1)] = repl[(x >> 32) % sizeof(repl)];
		}
		int r = gpa_ops_nvtx_parse(v, &len, &sig);
		CHECK(r == 0 || r == 1);
		CHECK(r == 1 || sig.len == 0);
		CHECK(r == 0 || (len > 0 && len < strlen(v)));
		/* a signature, when there is one, is one the models read */
		if (r == 1 && sig.len) {
			struct gpa_op_perf p;
			CHECK(gpa_op_perf("aten::addmm", sig.buf, &p) >= 0);
			CHECK(isfinite(p.flops) && p.flops >= 0 && p.bytes == 0);
		}
		ok += r;
	}
	CHECK(ok > 100);
	/* a long run of shapes: bounded, and refused past the signature's limit */
	struct gp_strbuf big = GP_STRBUF_INIT;
	gp_strbuf_adds(&big, "aten::cat, seq = 1, sizes = [");
	for (int i = 0; i < 20000; i++) {
		gp_strbuf_adds(&big, i ? ", [1, 2, 3]" : "[1, 2, 3]");
	}
	gp_strbuf_adds(&big, "]");
	size_t len;
	REQUIRE(!big.failed);
	CHECK_EQ_I(gpa_ops_nvtx_parse(big.buf, &len, &sig), 0);
	gp_strbuf_release(&big);
	gp_strbuf_release(&sig);
}

TEST(ops_nvtx_models_from_sizes)
{
	struct gpa_op_perf p;

	/* 2·M·K·N + M·N FLOPs are sizes alone; the bytes need types: 0, and no peak */
	CHECK_EQ_I(gpa_op_perf("aten::addmm", "D=[[32],[64,128],[128,32],[],[]]", &p), 1);
	CHECK_EQ_I(p.kind, GPA_OPK_GEMM);
	CHECK(p.flops == 526336);
	CHECK(p.bytes == 0 && p.untyped && p.dtype == -1 && !p.dtype_name[0]);
	/* a typed signature is not untyped */
	CHECK_EQ_I(gpa_op_perf("aten::mm", "D=[[64,128],[128,32]] T=[\"float\",\"float\"]", &p), 1);
	CHECK(!p.untyped && p.bytes == 57344);
	/* data movement without types: no model */
	CHECK_EQ_I(gpa_op_perf("aten::copy_", "D=[[1024],[1024],[]]", &p), 0);
	CHECK_EQ_I(p.kind, GPA_OPK_NONE);
	CHECK(p.why && strstr(p.why, "data types"));
	/* a recorded type that looks like the internal marker is not taken for it */
	CHECK_EQ_I(gpa_op_perf("aten::mm", "D=[[64,128],[128,32]] T=[\"\x01\",\"\x01\"]", &p), 0);
}

/* A trace whose NVTX ranges are PyTorch's emit_nvtx ranges: modelled as operators. */
TEST(ops_nvtx_trace)
{
	char path[512];
	struct gpt_writer *w;
	uint32_t lin, addmm, user, launch, kname;

	snprintf(path, sizeof(path), "%s/ops-nvtx.gpz", test_tmpdir());
	CHECK_EQ_I(gpt_writer_open(path, NULL, &w), 0);
	struct gpt_process pr = {.pid = 7, .rank = -1, .phase = 1};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_PROCESS, &pr), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "aten::linear, seq = 5, op_id = 1, sizes = [[64, 128], "
					     "[32, 128], [32]]", &lin), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "aten::addmm, op_id = 2, sizes = [[32], [64, 128], "
					     "[128, 32], [], []]", &addmm), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "my region, step 3", &user), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "cudaLaunchKernel", &launch), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(w, "gemm_kernel", &kname), 0);
	struct gpt_nvtx n0 = {.start = 0, .end = 300000, .type = GPT_NVTX_PUSH_POP,
			      .message = user, .start_tid = 100, .end_tid = 100};
	struct gpt_nvtx n1 = {.start = 1000, .end = 100000, .type = GPT_NVTX_PUSH_POP,
			      .message = lin, .start_tid = 100, .end_tid = 100};
	struct gpt_nvtx n2 = {.start = 10000, .end = 90000, .type = GPT_NVTX_PUSH_POP,
			      .message = addmm, .start_tid = 100, .end_tid = 100};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_NVTX, &n0), 0);
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_NVTX, &n1), 0);
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_NVTX, &n2), 0);
	for (int i = 0; i < 2; i++) {
		struct gpt_api a = {.start = i ? 200000 : 20000, .end = i ? 210000 : 30000,
				    .tid = 100, .domain = GPT_API_RUNTIME, .name = launch,
				    .correlation = (uint32_t)i + 1};
		struct gpt_kernel k = {.start = i ? 220000 : 40000, .end = i ? 225000 : 60000,
				       .stream = 7, .correlation = (uint32_t)i + 1, .name = kname,
				       .grid_x = 1, .grid_y = 1, .grid_z = 1, .block_x = 32,
				       .block_y = 1, .block_z = 1};
		CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_API, &a), 0);
		CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, &k), 0);
	}
	CHECK_EQ_I(gpt_writer_close(w), 0);

	struct gpa_model m;
	struct gpa_ops r;
	struct gpa_ops_opts o = {0};
	const char *paths[1] = {path};
	char err[256] = "";
	REQUIRE(gpa_model_load(&m, paths, 1, NULL, err, sizeof(err)) == 0);
	/* the user's range keeps its name and origin; PyTorch's become CPU operators */
	size_t ops = 0, users = 0;
	for (size_t i = 0; i < m.nvtx.n; i++) {
		const char *nm = gpa_model_str(&m, m.nvtx.name[i]);
		if (m.nvtx.origin[i] == GPA_RANGE_CPU_OP) {
			ops++;
			CHECK(!strcmp(nm, "aten::linear") || !strcmp(nm, "aten::addmm"));
		} else {
			users++;
			CHECK_STR(nm, "my region, step 3");
		}
	}
	CHECK_EQ_U(ops, 2);
	CHECK_EQ_U(users, 1);
	REQUIRE(gpa_ops_analyze(&m, &o, &r, err, sizeof(err)) == 0);
	CHECK_EQ_U(r.cpu_ops, 2);
	CHECK_EQ_U(r.cpu_ops_shaped, 2);
	CHECK_EQ_U(r.gpu_ops_in_ops, 1);
	/* the kernel is aten::addmm's (the leaf), with FLOPs from its sizes */
	REQUIRE(r.by_args.n == 1);
	CHECK_STR(r.by_args.v[0].name, "aten::addmm");
	CHECK_STR(r.by_args.v[0].args, "D=[[32],[64,128],[128,32],[],[]]");
	CHECK(r.by_args.v[0].perf.untyped && r.by_args.v[0].flops == 526336);
	CHECK(r.by_args.v[0].bound == 0 && r.by_args.v[0].roof_pct < 0);
	CHECK(r.why_none && strstr(r.why_none, "without data types"));
	gpa_ops_release(&r);
	gpa_model_release(&m);
}
