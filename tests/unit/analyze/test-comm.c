/* SPDX-License-Identifier: MIT */
/*
 * Tests of the NCCL model (analyze/nccl-model.c) and the communication
 * analysis (analyze/comm.c) on tiny hand-written traces, every number
 * worked out by hand (times in microseconds, U()).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/comm.h"
#include "tests/unit/test.h"

#include <stdio.h>

#define U(x) ((uint64_t)(x) * 1000u)

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

static void kernel(struct tw *t, uint64_t start, uint64_t end, uint32_t stream, uint32_t corr,
		   const char *name)
{
	struct gpt_kernel k = {.start = start, .end = end, .stream = stream, .correlation = corr,
			       .name = S(t, name), .grid_x = 1, .grid_y = 1, .grid_z = 1,
			       .block_x = 32, .block_y = 1, .block_z = 1};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_KERNEL, &k), 0);
}

static void op(struct tw *t, uint64_t start, uint64_t op_id, uint64_t ext, const char *func)
{
	struct gpt_nccl r = {.start = start, .end = start + U(5), .func = S(t, func), .count = 256,
			     .datatype = 7, .bytes = 1024, .root = -1, .peer = -1,
			     .comm_hash = 42, .nranks = 4, .external_id = ext, .seq = op_id,
			     .source = GPT_NCCL_SRC_PLUGIN, .op_id = op_id};
	CHECK_EQ_I(gpt_writer_add(t->w, GPT_KIND_NCCL, &r), 0);
}

static void load(struct tw *t, struct gpa_model *m)
{
	char err[256] = "";
	const char *paths[] = {t->path};

	CHECK_EQ_I(gpt_writer_close(t->w), 0);
	t->w = NULL;
	if (gpa_model_load(m, paths, 1, NULL, err, sizeof(err))) {
		TFAIL("load: %s", err);
	}
}

TEST(comm_canonical_and_factors)
{
	unsigned mult;

	CHECK_STR(gpa_comm_canonical("AllReduce"), "AllReduce");
	CHECK_STR(gpa_comm_canonical("nccl:all_reduce"), "AllReduce");
	CHECK_STR(gpa_comm_canonical("_reduce_scatter_base"), "ReduceScatter");
	CHECK_STR(gpa_comm_canonical("ncclBcast"), "Broadcast");
	CHECK_STR(gpa_comm_canonical("all_gather_into_tensor_coalesced"), "AllGather");
	CHECK_STR(gpa_comm_canonical("Reduce"), "Reduce");
	CHECK(gpa_comm_canonical("barrier") == NULL);
	CHECK(gpa_comm_bus_factor("AllReduce", 8, &mult) == 1.75 && mult == 1);
	CHECK(gpa_comm_bus_factor("AllGather", 4, &mult) == 0.75 && mult == 4);
	CHECK(gpa_comm_bus_factor("ReduceScatter", 2, &mult) == 0.5 && mult == 2);
	CHECK(gpa_comm_bus_factor("Send", 8, &mult) == 1 && mult == 1);
	CHECK(gpa_comm_bus_factor("AllReduce", 1, &mult) == 0);
	CHECK(gpa_comm_link_peak_gbps(NULL, 0) == 0);
	CHECK_STR(gpa_comm_bucket_name(0), "<64KiB");
	CHECK(gpa_comm_bucket_name(GPA_COMM_BUCKETS) == NULL);
}

/*
 * Op 1 has two channels [100, 300) and [150, 400): GPU [100, 400). Op 2 is
 * tied to kernel corr 77 [500, 650) by a CUSTOM2 external correlation; a
 * CUSTOM0 record with the same numbers (Kineto's) must not tie anything.
 */
TEST(comm_model_channels_and_kernels)
{
	struct tw t;
	struct gpa_model m;

	tw_open(&t, "chan.gpz");
	op(&t, U(10), 1, 0, "AllReduce");
	op(&t, U(20), 2, 9, "AllGather");
	struct gpt_nccl_channel c1 = {.start = U(100), .end = U(300), .op_id = 1};
	struct gpt_nccl_channel c2 = {.start = U(150), .end = U(400), .op_id = 1, .channel = 1};
	CHECK_EQ_I(gpt_writer_add(t.w, GPT_KIND_NCCL_CHANNEL, &c1), 0);
	CHECK_EQ_I(gpt_writer_add(t.w, GPT_KIND_NCCL_CHANNEL, &c2), 0);
	struct gpt_extcorr e0 = {.external_kind = 3, .external_id = 1, .correlation = 78};
	struct gpt_extcorr e1 = {.external_kind = 5, .external_id = 9, .correlation = 77};
	CHECK_EQ_I(gpt_writer_add(t.w, GPT_KIND_EXTCORR, &e0), 0);
	CHECK_EQ_I(gpt_writer_add(t.w, GPT_KIND_EXTCORR, &e1), 0);
	kernel(&t, U(500), U(650), 13, 77, "ncclDevKernel_AllGather_RING_LL");
	kernel(&t, U(700), U(750), 13, 78, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
	load(&t, &m);
	CHECK(m.nccl != NULL);
	CHECK_EQ_U(m.nccl->ops.n, 2);
	const struct gpa_nccl_op *a = &m.nccl->ops.v[0], *b = &m.nccl->ops.v[1];
	CHECK_EQ_U(a->op_id, 1);
	CHECK_EQ_U(a->gpu_from, GPA_NCCL_GPU_CHANNELS);
	CHECK_EQ_U(a->gpu_start, U(100));
	CHECK_EQ_U(a->gpu_end, U(400));
	CHECK_EQ_U(a->kernels, 0);
	CHECK_EQ_U(b->gpu_from, GPA_NCCL_GPU_KERNELS);
	CHECK_EQ_U(b->gpu_start, U(500));
	CHECK_EQ_U(b->gpu_end, U(650));
	CHECK_EQ_U(b->kernels, 1);
	CHECK_EQ_U(m.nccl->kernels_linked, 1);

	/*
	 * Comm kernels: the linked one by record; the unlinked NCCL-named one
	 * is not communication in a process whose kernels link to records.
	 */
	struct gpa_comm c;
	char err[256];
	CHECK_EQ_I(gpa_comm_analyze(&m, NULL, &c, err, sizeof(err)), 0);
	CHECK_EQ_U(c.by_record, 1);
	CHECK_EQ_U(c.by_name, 0);
	CHECK_EQ_U(c.ops, 2);
	CHECK_EQ_U(c.ops_gpu, 2);
	CHECK_EQ_U(c.colls.n, 2);
	/* AllReduce: 1024 B in 300 us; busbw = algbw * 2 * 3 / 4 */
	for (size_t i = 0; i < c.colls.n; i++) {
		const struct gpa_comm_coll *x = &c.colls.v[i];
		if (!strcmp(gpa_model_str(&m, x->func), "AllReduce")) {
			CHECK_EQ_U(x->time, U(300));
			CHECK(x->algbw > 0.0034133 && x->algbw < 0.0034134);
			CHECK(x->busbw > 1.5 * 0.0034133 && x->busbw < 1.5 * 0.0034134);
		} else {
			/* AllGather: S = 1024 * 4 in 150 us */
			CHECK_EQ_U(x->data, 4096);
			CHECK_EQ_U(x->time, U(150));
		}
	}
	gpa_comm_release(&c);
	gpa_model_release(&m);

	/* Loaded without the correlation columns (as report loads): the same links. */
	const char *paths[] = {t.path};
	struct gpa_load_opts lo = {.drop = GPA_DROP_API_IDS | GPA_DROP_CORR | GPA_DROP_SHAPES};
	REQUIRE(gpa_model_load(&m, paths, 1, &lo, err, sizeof(err)) == 0);
	REQUIRE(m.nccl != NULL && m.nccl->ops.n == 2);
	CHECK(m.kern.corr == NULL);
	CHECK_EQ_U(m.nccl->kernels_linked, 1);
	CHECK_EQ_U(m.nccl->ops.v[1].gpu_from, GPA_NCCL_GPU_KERNELS);
	CHECK_EQ_U(m.nccl->ops.v[1].kernels, 1);
	CHECK_EQ_U(m.nccl->kern_op[0], 1);
	CHECK_EQ_U(m.nccl->kern_op[1], GPA_NONE);
	gpa_model_release(&m);
}

/*
 * No NCCL records: kernels by name. comm [0, 100) on stream 2 and
 * nvshmem [200, 220); compute [50, 80) and [90, 150) on stream 1:
 * C = 120, C & K = 30 + 10 = 40, exposed 80.
 */
TEST(comm_exposed_by_hand)
{
	struct tw t;
	struct gpa_model m;
	struct gpa_comm c;
	char err[256];

	tw_open(&t, "exp.gpz");
	kernel(&t, U(1), U(101), 2, 1, "ncclKernel_AllReduce_RING_LL_Sum_float");
	kernel(&t, U(51), U(81), 1, 2, "gemm_kernel");
	kernel(&t, U(91), U(151), 1, 3, "gemm_kernel");
	kernel(&t, U(201), U(221), 2, 4, "nvshmemi_transfer_kernel");
	load(&t, &m);
	CHECK_EQ_I(gpa_comm_analyze(&m, NULL, &c, err, sizeof(err)), 0);
	CHECK_EQ_U(c.by_name, 2);
	CHECK_EQ_U(c.by_record, 0);
	CHECK_EQ_U(c.ident, GPA_COMM_BY_NAMES);
	CHECK_EQ_U(c.devs.n, 1);
	CHECK_EQ_U(c.devs.v[0].comm, U(120));
	CHECK_EQ_U(c.devs.v[0].overlap, U(40));
	CHECK_EQ_U(c.devs.v[0].exposed, U(80));
	CHECK_EQ_U(c.devs.v[0].compute, U(90));
	CHECK_EQ_U(c.devs.v[0].kernels, 2);
	gpa_comm_release(&c);

	/* a user rule makes the GEMMs communication: nothing left to overlap */
	const char *rules[] = {"^gemm"};
	struct gpa_comm_opts o;
	gpa_comm_opts_init(&o);
	o.kernel_rules = rules;
	o.nkernel_rules = 1;
	CHECK_EQ_I(gpa_comm_analyze(&m, &o, &c, err, sizeof(err)), 0);
	CHECK_EQ_U(c.by_name, 4);
	CHECK_EQ_U(c.devs.v[0].overlap, 0);
	CHECK_EQ_U(c.devs.v[0].comm, U(170));
	gpa_comm_release(&c);
	const char *bad[] = {"("};
	o.kernel_rules = bad;
	CHECK_EQ_I(gpa_comm_analyze(&m, &o, &c, err, sizeof(err)), -GP_ERR_API);
	CHECK_CONTAINS(err, "bad kernel rule");
	gpa_model_release(&m);
}
