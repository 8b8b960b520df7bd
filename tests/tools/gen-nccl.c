/* SPDX-License-Identifier: MIT */
/*
 * gen-nccl.c - multi-rank traces with NCCL operations whose answers are
 * known (tracegen --nccl): per step and rank, on one device,
 *
 *   NVTX ProfilerStep#s             [T, T + 3 ms)             T = base + s * 4 ms
 *   compute kernel  "gemm", stream 7  [T + 100 us, T + 1100 us)
 *   AllReduce call (NCCL record)    arrives at a_r = T + 1000 us + r * 10 us,
 *                                   the straggler at T + 1000 us + late
 *   its NCCL kernel, stream 13      [a_r + 10 us, A + 1010 us), A = the last arrival:
 *                                   every rank's kernel ends when the last one's
 *                                   1 ms transfer does
 *   compute kernel  "gemm", stream 7  [T + 1500 us, T + 1800 us)
 *   --nccl-sync: cudaStreamSynchronize(13) [T + 1460 us, A + 1015 us), a SYNC
 *                                   record of it: the host waits for the AllReduce
 *   filler kernels (--nccl-fill N)  N short kernels on stream 7 after T + 2500 us
 *
 * (--slow-rank R: rank R's compute kernels, gemm and filler, last F times as
 * long, starting where they do: a slow GPU; its arrivals do not move)
 *
 * so per step: comm kernel time 1000 us + (A - a_r) on rank r, of which
 * overlapped = (1100 - 1010 - 10 r) + 300 us, the rest exposed; the
 * straggler arrives last every step and the others wait A - a_r for it.
 * The AllReduce moves 16 MiB (4 Mi floats): with the fastest rank's 1 ms,
 * algbw = 16.777216 GB/s, busbw = algbw * 2 (n - 1) / n. Records link the
 * kernel to the operation through CUSTOM2 external correlation, as the
 * recording library writes them; --nccl-names leaves the NCCL and EXTCORR
 * records out (kernels then found by name only); --nccl-no-seq writes the
 * records without sequence numbers (PyTorch traces before 2024), so they
 * are matched by their order per communicator. --clock-off NS moves rank r's
 * clock anchors r * NS later than the truth: aligned on them, the ranks'
 * AllReduce ends no longer coincide (the clock check's case).
 */
#include "base/compat.h"
#include "tests/tools/gen-nccl.h"

#define US 1000ull
#define BASE_TS 1000000000ull
#define REALTIME 1767225600000000000ull

struct ng {
	struct gpt_writer *w;
	struct gen_stats *st;
	int err;
	uint32_t corr;
	uint32_t s_gemm, s_fill, s_nccl_k, s_launch, s_allreduce, s_ring, s_simple, s_step, s_comm;
	uint32_t s_sync;
};

static void add(struct ng *g, enum gpt_kind k, const void *rec, bool event)
{
	if (!g->err) {
		g->err = gpt_writer_add(g->w, k, rec);
		g->st->records[k]++;
		g->st->events += event;
	}
}

static uint32_t intern(struct ng *g, const char *s)
{
	uint32_t id = 0;

	if (!g->err) {
		g->err = gpt_writer_intern_cstr(g->w, s, &id);
	}
	return id;
}

static void kernel(struct ng *g, uint64_t s, uint64_t e, uint32_t stream, uint32_t name,
		   uint32_t corr)
{
	struct gpt_kernel k = {.start = s, .end = e, .device = 0, .context = 1, .stream = stream,
			       .correlation = corr, .name = name, .grid_x = 132, .grid_y = 1,
			       .grid_z = 1, .block_x = 256, .block_y = 1, .block_z = 1,
			       .registers = 64, .grid_id = corr};
	add(g, GPT_KIND_KERNEL, &k, true);
}

static uint32_t launch(struct ng *g, uint64_t at, uint64_t dur, uint32_t tid)
{
	struct gpt_api a = {.start = at, .end = at + dur, .tid = tid, .domain = GPT_API_RUNTIME,
			    .cbid = 211, .name = g->s_launch, .correlation = ++g->corr};
	add(g, GPT_KIND_API, &a, true);
	return g->corr;
}

void gen_nccl_opts_default(struct gen_nccl_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->steps = 4;
	o->world_size = 1;
	o->straggler = -1;
	o->late_ns = 400 * US;
	o->slow_rank = -1;
	o->slow_factor = 1.3;
}

/* A compute kernel's duration on rank r: slow_factor times d on the slow rank. */
static uint64_t dur(const struct gen_nccl_opts *o, uint32_t r, uint64_t d)
{
	return (int64_t)r == o->slow_rank ? (uint64_t)((double)d * o->slow_factor + 0.5) : d;
}

static uint64_t arrival(const struct gen_nccl_opts *o, uint64_t t, uint32_t r)
{
	return t + 1000 * US + ((int64_t)r == o->straggler ? o->late_ns : r * 10 * US);
}

int gen_nccl_write(struct gpt_writer *w, const struct gen_nccl_opts *o, struct gen_stats *st)
{
	struct ng g = {.w = w, .st = st};
	uint32_t r = o->rank, n = o->world_size ? o->world_size : 1, tid = 7000 + r;

	memset(st, 0, sizeof(*st));
	struct gpt_process p = {
		.ts = BASE_TS, .pid = 7000 + r, .ppid = 6999, .host = intern(&g, "gen-host"),
		.exe = intern(&g, "/usr/bin/python3"), .cmdline = intern(&g, "python3 ddp.py"),
		.rank = (int32_t)r, .local_rank = (int32_t)r, .world_size = (int32_t)n,
		.local_world_size = (int32_t)n, .launcher = intern(&g, "torchrun"),
		.start_realtime = REALTIME, .nccl_version = 22809,
		.gpuprof_version = intern(&g, "generated"), .exit_status = -1, .phase = 1,
	};
	add(&g, GPT_KIND_PROCESS, &p, false);
	struct gpt_device dv = {.id = 0, .name = intern(&g, "NVIDIA H100 80GB HBM3"), .cc_major = 9,
				.num_sms = 132, .warp_size = 32, .max_warps_per_sm = 64,
				.max_blocks_per_sm = 32, .max_threads_per_block = 1024,
				.max_regs_per_sm = 65536, .max_regs_per_block = 65536,
				.max_regs_per_thread = 255, .max_smem_per_sm = 233472,
				.max_smem_per_block = 49152, .global_mem_bytes = 85899345920ull};
	add(&g, GPT_KIND_DEVICE, &dv, false);
	struct gpt_thread th = {.ts = BASE_TS, .tid = tid, .name = intern(&g, "python3")};
	add(&g, GPT_KIND_THREAD, &th, false);
	/* every rank on the same real-time base: the model aligns them exactly */
	uint64_t off = r * o->clock_off_ns;
	struct gpt_clock ck = {.ts = BASE_TS, .realtime = REALTIME + off, .monotonic = BASE_TS,
			       .phase = 1};
	add(&g, GPT_KIND_CLOCK, &ck, false);
	g.s_gemm = intern(&g, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64");
	g.s_fill = intern(&g, "vectorized_elementwise_kernel");
	g.s_nccl_k = intern(&g, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
	g.s_launch = intern(&g, "cudaLaunchKernel");
	g.s_allreduce = intern(&g, "AllReduce");
	g.s_ring = intern(&g, "RING");
	g.s_simple = intern(&g, "SIMPLE");
	g.s_comm = intern(&g, "default_pg");
	g.s_sync = o->sync ? intern(&g, "cudaStreamSynchronize") : 0;
	char name[32];
	for (uint32_t s = 0; s < o->steps && !g.err; s++) {
		uint64_t t = BASE_TS + 10 * US + (uint64_t)s * 4000 * US;
		snprintf(name, sizeof(name), "ProfilerStep#%" PRIu32, s);
		struct gpt_nvtx rng = {.start = t, .end = t + 3000 * US, .type = GPT_NVTX_PUSH_POP,
				       .message = intern(&g, name), .start_tid = tid,
				       .end_tid = tid};
		add(&g, GPT_KIND_NVTX, &rng, true);
		uint32_t c = launch(&g, t + 50 * US, 5 * US, tid);
		kernel(&g, t + 100 * US, t + 100 * US + dur(o, r, 1000 * US), 7, g.s_gemm, c);

		uint64_t a = arrival(o, t, r), last = 0;
		for (uint32_t q = 0; q < n; q++) {
			uint64_t x = arrival(o, t, q);
			last = x > last ? x : last;
		}
		uint64_t ext = 100000 + s;
		if (!o->names_only) {
			struct gpt_nccl op = {
				.start = a, .end = a + 20 * US, .func = g.s_allreduce,
				.count = 4u << 20, .datatype = 7, .bytes = 16u << 20, .root = -1,
				.peer = -1, .comm_hash = 0xabcdef0123ull, .rank = (int32_t)r,
				.nranks = (int32_t)n, .algorithm = g.s_ring, .protocol = g.s_simple,
				.channels = 8, .stream = 13, .external_id = ext,
				.seq = o->no_seq ? 0 : s + 1,
				.tid = tid, .source = GPT_NCCL_SRC_PLUGIN, .nodes = 1,
				.enqueued = a + 20 * US, .op_id = s + 1, .comm_name = g.s_comm,
			};
			add(&g, GPT_KIND_NCCL, &op, true);
		}
		c = launch(&g, a + 5 * US, 5 * US, tid);
		if (!o->names_only) {
			struct gpt_extcorr ec = {.external_kind = 5, .external_id = ext, .correlation = c};
			add(&g, GPT_KIND_EXTCORR, &ec, false);
		}
		kernel(&g, a + 10 * US, last + 1010 * US, 13, g.s_nccl_k, c);
		c = launch(&g, t + 1450 * US, 5 * US, tid);
		kernel(&g, t + 1500 * US, t + 1500 * US + dur(o, r, 300 * US), 7, g.s_gemm, c);
		if (o->sync) {
			struct gpt_api sa = {.start = t + 1460 * US, .end = last + 1015 * US,
					     .tid = tid, .domain = GPT_API_RUNTIME, .cbid = 131,
					     .name = g.s_sync, .correlation = ++g.corr};
			add(&g, GPT_KIND_API, &sa, true);
			struct gpt_sync sy = {.start = sa.start, .end = sa.end, .type = 3,
					      .correlation = g.corr, .context = 1, .stream = 13};
			add(&g, GPT_KIND_SYNC, &sy, true);
		}
		for (uint32_t f = 0; f < o->fill; f++) {
			uint64_t at = t + 2500 * US + (uint64_t)f * 400;
			c = launch(&g, at - 200, 150, tid);
			kernel(&g, at, at + dur(o, r, 300), 7, g.s_fill, c);
		}
	}
	uint64_t end = BASE_TS + (uint64_t)o->steps * 4000 * US + 10 * US;
	struct gpt_clock ck2 = {.ts = end, .realtime = REALTIME + off + (end - BASE_TS),
				.monotonic = end, .phase = 2};
	add(&g, GPT_KIND_CLOCK, &ck2, false);
	st->first_ts = BASE_TS;
	st->last_ts = end;
	return g.err;
}
