/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "tests/tools/gen.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>

struct kname {
	const char *mangled, *demangled;
	uint32_t base_ns; /* typical duration */
	int32_t grid, block;
	uint16_t regs;
	int32_t smem;
};

/* A realistic pool: GEMMs, attention, elementwise, reductions, NCCL. */
static const struct kname knames[] = {
	{"_Z19gemm_kernel_128x128ILi128ELi128EEvPKfS1_Pfiii", "void gemm_kernel_128x128<128, 128>(float const*, float const*, float*, int, int, int)", 180000, 432, 256, 128, 49152},
	{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", NULL, 240000, 528, 384, 168, 98304},
	{"ampere_sgemm_128x64_tn", NULL, 95000, 256, 128, 122, 32768},
	{"_ZN5flash29flash_fwd_kernel_bf16_hdim128ILi4ELb0EEEvNS_16Flash_fwd_paramsE", "void flash::flash_fwd_kernel_bf16_hdim128<4, false>(flash::Flash_fwd_params)", 310000, 1024, 128, 255, 65536},
	{"_ZN5flash29flash_bwd_kernel_bf16_hdim128ILi4ELb0EEEvNS_16Flash_bwd_paramsE", "void flash::flash_bwd_kernel_bf16_hdim128<4, false>(flash::Flash_bwd_params)", 520000, 1024, 256, 255, 98304},
	{"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_", "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)", 4200, 1024, 128, 16, 0},
	{"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEEEviT0_T1_", "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)", 12500, 4096, 128, 26, 0},
	{"_ZN2at6native13reduce_kernelILi512ELi1EEEvPfi", "void at::native::reduce_kernel<512, 1>(float*, int)", 21000, 264, 512, 40, 16},
	{"_ZN2at6native12_GLOBAL__N_120softmax_warp_forwardIfffLi10ELb0ELb0EEEvPT0_PKT_iiiPKbib", "void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>(float*, float const*, int, int, int, bool const*, int, bool)", 38000, 2048, 128, 32, 0},
	{"_Z21layer_norm_fwd_kernelILi1024EEvPKfS1_S1_Pfi", "void layer_norm_fwd_kernel<1024>(float const*, float const*, float const*, float*, int)", 26000, 8192, 256, 36, 8192},
	{"_Z25multi_tensor_apply_kernelI18TensorListMetadataILi4EE11AdamFunctorIfEJfffffiEEvmPViT_T0_DpT1_", NULL, 95000, 320, 512, 64, 0},
	{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", NULL, 850000, 16, 640, 96, 0},
	{"_Z11vec_add_f32PKfS0_Pfi", "vec_add_f32(float const*, float const*, float*, int)", 2600, 3907, 256, 16, 0},
	{"triton_poi_fused_add_mul_sigmoid_0", NULL, 7800, 2048, 128, 24, 0},
	{"triton_red_fused_native_layer_norm_1", NULL, 17400, 4096, 256, 40, 1024},
	{"_ZN7cutlass6KernelINS_4gemm6kernel4GemmINS1_11threadblock12MmaPipelinedEEEEEvNT_6ParamsE", NULL, 150000, 640, 256, 230, 73728},
};

static const char *const phases[] = {"forward", "backward", "optimizer", "loss", "attention",
				     "mlp", "embedding", "allreduce"};

void gen_opts_default(struct gen_opts *o)
{
	*o = (struct gen_opts){
		.seed = 1,
		.steps = 10,
		.kernels_per_step = 200,
		.copies_per_step = 4,
		.streams = 2,
		.devices = 1,
		.nvtx_depth = 2,
		.world_size = 1,
		.gap_ns = 0,
		.sync_wake_ns = 2000,
		.start_ns = 1700000000000000000ULL,
	};
}

struct gen {
	struct gpt_writer *w;
	const struct gen_opts *o;
	struct gen_stats *st;
	struct gp_rng rng;
	uint64_t cpu;              /* host clock */
	uint64_t *stream_free;     /* per device x stream: when the GPU is free */
	uint32_t corr;
	uint32_t kname_id[GP_ARRAY_SIZE(knames)], kdem_id[GP_ARRAY_SIZE(knames)];
	uint32_t api_launch, api_memcpy, api_sync, api_memset, api_malloc;
	uint32_t phase_id[GP_ARRAY_SIZE(phases)];
	uint32_t tid;
	int err;
	double step_factor, run_factor;       /* noise in effect */
	double kfactor[GP_ARRAY_SIZE(knames)]; /* injected slowdown per kernel */
	struct gp_rng seq;                     /* kernel choice with same_kernels */
};

static void add(struct gen *g, enum gpt_kind k, const void *rec, bool event);

/*
 * n allocator events in the step that began at start, 1 ns apart, on the
 * host thread: allocations of 4-28 KiB, every other event releasing the
 * oldest live one once 16 are live (16 stay live at the step's end), with
 * the totals after each event, as PyTorch writes them.
 */
static void memory_events(struct gen *g, uint32_t step, uint64_t start, uint32_t n)
{
	uint64_t total = 0, t = start + 1, base = 0x7f0000000000ULL + ((uint64_t)step << 32);
	uint32_t made = 0, freed = 0;

	for (uint32_t j = 0; j < n; j++) {
		bool release = j % 2 == 1 && made - freed >= 16;
		uint32_t k = release ? freed++ : made++;
		uint64_t bytes = 4096ull * (1 + k % 7);
		struct gpt_memory m = {.ts = t++, .memory_kind = 3, .address = base + 32768ull * k,
				       .bytes = bytes, .tid = g->tid, .device_type = 1,
				       .flags = GPT_MEMORY_HAS_TOTALS | GPT_MEMORY_HAS_RESERVED};
		m.op = release ? GPT_MEMORY_FREE : GPT_MEMORY_ALLOC;
		total = release ? total - bytes : total + bytes;
		m.total_allocated = total;
		m.total_reserved = 1ull << 30;
		add(g, GPT_KIND_MEMORY, &m, true);
	}
}

static void add(struct gen *g, enum gpt_kind k, const void *rec, bool event)
{
	if (g->err) {
		return;
	}
	g->err = gpt_writer_add(g->w, k, rec);
	g->st->records[k]++;
	if (event) {
		g->st->events++;
	}
}

static uint32_t intern(struct gen *g, const char *s)
{
	uint32_t id = 0;

	if (!g->err) {
		g->err = gpt_writer_intern_cstr(g->w, s, &id);
	}
	return id;
}

static uint64_t jitter(struct gen *g, uint64_t base, unsigned pct)
{
	uint64_t span = base * pct / 100 + 1;
	return base - span / 2 + gp_rng_below(&g->rng, span);
}

/* A standard normal draw (Box-Muller). */
static double normal(struct gen *g)
{
	double u = gp_rng_double(&g->rng), v = gp_rng_double(&g->rng);
	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* 1 + N(0, sd), kept positive. */
static double noise_factor(struct gen *g, double sd)
{
	double f = 1 + sd * normal(g);
	return f < 0.05 ? 0.05 : f;
}

static void api(struct gen *g, uint64_t start, uint64_t dur, uint32_t name, uint32_t cbid,
		uint32_t corr)
{
	struct gpt_api a = {
		.start = start,
		.end = start + dur,
		.tid = g->tid,
		.domain = GPT_API_RUNTIME,
		.cbid = cbid,
		.name = name,
		.correlation = corr,
	};
	add(g, GPT_KIND_API, &a, true);
}

/* Queue GPU work of length dur on a stream no earlier than 'ready'; returns its start. */
static uint64_t gpu_slot(struct gen *g, unsigned dev, unsigned s, uint64_t ready, uint64_t dur)
{
	uint64_t *f = &g->stream_free[dev * g->o->streams + s];
	uint64_t start = ready > *f ? ready : *f;

	start += 1000 + gp_rng_below(&g->rng, 3000); /* launch latency */
	*f = start + dur;
	return start;
}

static void kernel(struct gen *g, unsigned dev, unsigned s)
{
	unsigned ki = (unsigned)gp_rng_below(g->o->same_kernels ? &g->seq : &g->rng,
					     GP_ARRAY_SIZE(knames));
	const struct kname *kn = &knames[ki];
	uint64_t api_start = g->cpu, api_dur = jitter(g, 4500, 40);
	uint64_t dur = jitter(g, kn->base_ns, 20);

	if (g->kfactor[ki] != 1 || g->step_factor != 1 || g->run_factor != 1) {
		double f = (double)dur * g->kfactor[ki] * g->step_factor * g->run_factor;
		dur = f < 1 ? 1 : (uint64_t)llround(f);
	}
	uint32_t corr = ++g->corr;

	api(g, api_start, api_dur, g->api_launch, 211, corr);
	uint64_t start = gpu_slot(g, dev, s, api_start + api_dur / 2, dur);
	struct gpt_kernel k = {
		.start = start,
		.end = start + dur,
		.device = dev,
		.context = 1 + dev,
		.stream = 7 + s,
		.correlation = corr,
		.name = g->kname_id[ki],
		.demangled = g->kdem_id[ki],
		.grid_x = kn->grid,
		.grid_y = 1,
		.grid_z = 1,
		.block_x = kn->block,
		.block_y = 1,
		.block_z = 1,
		.cluster_x = 1,
		.cluster_y = 1,
		.cluster_z = 1,
		.registers = kn->regs,
		.static_smem = kn->smem > 49152 ? 0 : kn->smem,
		.dynamic_smem = kn->smem > 49152 ? kn->smem : 0,
		.smem_executed = 233472,
		.cache_config_requested = 0,
		.launch_type = 0,
		.grid_id = (int64_t)corr,
		.channel_type = 1,
		.local_mem_total = 0,
	};
	add(g, GPT_KIND_KERNEL, &k, true);
	g->cpu = api_start + api_dur + jitter(g, 1500, 80);
}

static void copy(struct gen *g, unsigned dev, unsigned i)
{
	static const uint8_t kinds[][3] = {{1, 2, 3}, {2, 3, 2}, {1, 1, 3}, {8, 3, 3}};
	unsigned kk = i % GP_ARRAY_SIZE(kinds);
	uint64_t bytes = (uint64_t)(1 + gp_rng_below(g->o->same_kernels ? &g->seq : &g->rng, 64))
			 << 20;
	uint64_t dur = bytes / 25; /* ~25 GB/s */

	if (g->o->slowdown > 0 && g->o->slowdown != 1) {
		dur = (uint64_t)llround((double)dur * g->o->slowdown);
	}
	uint64_t api_start = g->cpu, api_dur = jitter(g, 6000, 40);
	uint32_t corr = ++g->corr;

	api(g, api_start, api_dur, g->api_memcpy, 41, corr);
	uint64_t start = gpu_slot(g, dev, 0, api_start + api_dur / 2, dur);
	struct gpt_memcpy m = {
		.start = start,
		.end = start + dur,
		.device = dev,
		.context = 1 + dev,
		.stream = 7,
		.correlation = corr,
		.runtime_correlation = corr,
		.bytes = bytes,
		.copy_kind = kinds[kk][0],
		.src_kind = kinds[kk][1],
		.dst_kind = kinds[kk][2],
		.flags = 1,
		.src_device = dev,
		.dst_device = dev,
		.copy_count = 1,
	};
	add(g, GPT_KIND_MEMCPY, &m, true);
	g->cpu = api_start + api_dur + jitter(g, 1500, 80);
}

static void extra_kinds(struct gen *g, unsigned dev, uint32_t step)
{
	uint64_t t = g->cpu;
	uint32_t corr = ++g->corr;

	api(g, t, 3000, g->api_memset, 43, corr);
	uint64_t s = gpu_slot(g, dev, 0, t + 1500, 2000);
	struct gpt_memset ms = {.start = s, .end = s + 2000, .device = dev, .context = 1 + dev,
				.stream = 7, .correlation = corr, .value = 0, .bytes = 1 << 20,
				.flags = 1, .memory_kind = 3};
	add(g, GPT_KIND_MEMSET, &ms, true);
	struct gpt_extcorr ec = {.external_kind = 5, .external_id = 1000 + step, .correlation = corr};
	add(g, GPT_KIND_EXTCORR, &ec, true);
	uint64_t ns = gpu_slot(g, dev, 0, t + 2000, 400000);
	struct gpt_nccl nc = {.start = ns, .end = ns + 400000, .func = intern(g, "AllReduce"),
			      .count = 1 << 24, .datatype = 9, .bytes = 1 << 25, .root = -1,
			      .peer = -1, .comm_hash = 0x5eedc0ffee, .rank = (int32_t)g->o->rank,
			      .nranks = (int32_t)g->o->world_size, .algorithm = intern(g, "RING"),
			      .protocol = intern(g, "LL128"), .channels = 16, .stream = 7,
			      .device = dev, .external_id = 1000 + step, .seq = step, .tid = g->tid,
			      .reduce_op = 0, .source = 1};
	add(g, GPT_KIND_NCCL, &nc, true);
	struct gpt_overhead oh = {.start = t, .end = t + 25000, .overhead_kind = 1 << 16,
				  .object_kind = 1, .object_id0 = 4242, .object_id1 = g->tid};
	add(g, GPT_KIND_OVERHEAD, &oh, true);
	double util = 0.5 + 0.5 * gp_rng_double(&g->rng);
	struct gpt_metric me = {.ts = t, .device = dev, .metric = intern(g, "sm__throughput.pct")};
	memcpy(&me.value_bits, &util, sizeof(util));
	add(g, GPT_KIND_METRIC, &me, true);
	struct gpt_memory mem = {.ts = t, .op = 1 + (step & 1), .memory_kind = 3,
				 .address = 0x7f0000000000ULL + ((uint64_t)step << 21),
				 .bytes = 2 << 20, .device = dev, .context = 1 + dev,
				 .stream = UINT32_MAX, .correlation = corr, .pc = 0x401000};
	add(g, GPT_KIND_MEMORY, &mem, true);
	uint64_t gs = gpu_slot(g, dev, 0, t + 3000, 50000);
	struct gpt_graph gr = {.start = gs, .end = gs + 50000, .device = dev, .context = 1 + dev,
			       .stream = 7, .correlation = corr, .graph_id = 3, .end_device = dev,
			       .end_context = 1 + dev};
	add(g, GPT_KIND_GRAPH, &gr, true);
	g->cpu += 30000;
}

/* NVTX ranges are written when they end, as the injected library does. */
static void phase(struct gen *g, unsigned depth, uint32_t step, unsigned nk, unsigned nc)
{
	uint64_t start = g->cpu;
	struct gp_rng *shape = g->o->same_kernels ? &g->seq : &g->rng;
	unsigned pi = (unsigned)gp_rng_below(shape, GP_ARRAY_SIZE(phases));

	if (depth < g->o->nvtx_depth && nk >= 4) {
		unsigned parts = 2 + (unsigned)gp_rng_below(shape, 2);
		for (unsigned p = 0; p < parts; p++) {
			unsigned k = p + 1 == parts ? nk - (nk / parts) * p : nk / parts;
			unsigned c = p + 1 == parts ? nc - (nc / parts) * p : nc / parts;
			phase(g, depth + 1, step, k, c);
		}
	} else {
		for (unsigned d = 0; d < g->o->devices; d++) {
			for (unsigned i = 0; i < nk; i++) {
				kernel(g, d, i % g->o->streams);
			}
			for (unsigned i = 0; i < nc; i++) {
				copy(g, d, i);
			}
		}
	}
	if (depth == 0) {
		return;
	}
	struct gpt_nvtx n = {
		.start = start,
		.end = g->cpu,
		.type = GPT_NVTX_PUSH_POP,
		.message = g->phase_id[pi],
		.color = 0xff76b900u,
		.color_type = 1,
		.start_tid = g->tid,
		.end_tid = g->tid,
		.depth = (uint16_t)depth,
	};
	(void)step;
	add(g, GPT_KIND_NVTX, &n, true);
}

/* cudaStreamSynchronize until every stream of every device is done, plus the wake-up. */
static void host_sync(struct gen *g)
{
	uint64_t gpu_done = 0;

	for (size_t i = 0; i < (size_t)g->o->devices * g->o->streams; i++) {
		if (g->stream_free[i] > gpu_done) {
			gpu_done = g->stream_free[i];
		}
	}
	uint32_t corr = ++g->corr;
	uint64_t sync_end = (gpu_done > g->cpu ? gpu_done : g->cpu) + g->o->sync_wake_ns;
	api(g, g->cpu, sync_end - g->cpu, g->api_sync, 131, corr);
	struct gpt_sync sy = {.start = g->cpu, .end = sync_end, .type = 3, .correlation = corr,
			      .context = 1, .stream = 7, .event_id = UINT32_MAX,
			      .event_sync_id = UINT64_MAX};
	add(g, GPT_KIND_SYNC, &sy, true);
	g->cpu = sync_end + 500;
}

static void metadata(struct gen *g)
{
	const struct gen_opts *o = g->o;
	struct gpt_process p = {
		.ts = o->start_ns,
		.pid = 4242 + o->rank,
		.ppid = 4000,
		.host = intern(g, "gen-host"),
		.exe = intern(g, "/usr/bin/python3"),
		.cmdline = intern(g, "python3 train.py --steps 10"),
		.rank = (int32_t)o->rank,
		.local_rank = (int32_t)o->rank,
		.world_size = (int32_t)o->world_size,
		.local_world_size = (int32_t)o->world_size,
		.launcher = intern(g, o->world_size > 1 ? "torchrun" : "none"),
		.start_realtime = 1767225600000000000ULL,
		.cuda_driver_version = 13000,
		.cuda_runtime_version = 13000,
		.cupti_version = 130001,
		.gpuprof_version = intern(g, "generated"),
		.settings = intern(g, "generator=1"),
		.exit_status = -1,
		.phase = 1,
	};
	add(g, GPT_KIND_PROCESS, &p, false);
	for (uint32_t d = 0; d < o->devices; d++) {
		struct gpt_device dv = {
			.id = d, .name = intern(g, "NVIDIA H200"), .uuid_hi = 0x1234 + d,
			.uuid_lo = 0xabcdef, .cc_major = 9, .cc_minor = 0, .num_sms = 132,
			.warp_size = 32, .max_warps_per_sm = 64, .max_blocks_per_sm = 32,
			.max_threads_per_block = 1024, .max_regs_per_sm = 65536,
			.max_regs_per_block = 65536, .max_regs_per_thread = 255,
			.max_smem_per_sm = 233472, .max_smem_per_block = 49152,
			.max_smem_per_block_optin = 232448, .reserved_smem_per_block = 1024,
			.global_mem_bytes = 150754820096ULL, .global_mem_bw_kbps = 4800000000ULL,
			.l2_bytes = 52428800, .constant_mem_bytes = 65536, .core_clock_khz = 1980000,
			.mem_clock_khz = 2619000, .mem_bus_width_bits = 6144, .num_memcpy_engines = 7,
			.max_ipc = 4, .max_block_dim_x = 1024, .max_block_dim_y = 1024,
			.max_block_dim_z = 64, .max_grid_dim_x = 2147483647, .max_grid_dim_y = 65535,
			.max_grid_dim_z = 65535, .ecc_enabled = 1, .concurrent_kernels = 1,
			.gpu_instance_id = UINT32_MAX, .compute_instance_id = UINT32_MAX,
			.numa_id = -1, .pci_bus = 0x18 + d, .max_barriers_per_block = 16,
			.max_threads_per_sm = 2048,
		};
		add(g, GPT_KIND_DEVICE, &dv, false);
		struct gpt_context c = {.id = 1 + d, .device = d, .null_stream = 7, .compute_api_kind = 1};
		add(g, GPT_KIND_CONTEXT, &c, false);
		for (uint32_t s = 0; s < o->streams; s++) {
			struct gpt_stream st = {.id = 7 + s, .context = 1 + d, .flags = s ? 1 : 2};
			add(g, GPT_KIND_STREAM, &st, false);
		}
	}
	struct gpt_thread t = {.ts = o->start_ns, .tid = g->tid, .name = intern(g, "python3"),
			       .pthread = 0x7f1234567700ULL};
	add(g, GPT_KIND_THREAD, &t, false);
	struct gpt_clock ck = {.ts = o->start_ns, .realtime = 1767225600000000000ULL,
			       .monotonic = 5000000000ULL, .monotonic_raw = 4999000000ULL,
			       .phase = 1, .uncertainty = 60};
	add(g, GPT_KIND_CLOCK, &ck, false);
	if (o->all_kinds) {
		struct gpt_name nm = {.type = GPT_NAME_CATEGORY, .domain = intern(g, "gen"), .id = 1,
				      .name = intern(g, "compute")};
		add(g, GPT_KIND_NAME, &nm, false);
	}
}

int gen_write(struct gpt_writer *w, const struct gen_opts *o, struct gen_stats *st)
{
	struct gen g = {.w = w, .o = o, .st = st};
	static const char *const api_names[] = {"cudaLaunchKernel", "cudaMemcpyAsync",
						"cudaStreamSynchronize", "cudaMemsetAsync",
						"cudaMalloc"};
	char buf[64];

	memset(st, 0, sizeof(*st));
	if (!o->devices || !o->streams) {
		return -GP_ERR_API;
	}
	gp_rng_seed(&g.rng, o->seed);
	gp_rng_seed(&g.seq, 0x5eed);
	g.step_factor = g.run_factor = 1;
	for (size_t i = 0; i < GP_ARRAY_SIZE(knames); i++) {
		g.kfactor[i] = o->slowdown > 0 ? o->slowdown : 1;
	}
	if (o->slow_regex) {
		regex_t re;
		if (regcomp(&re, o->slow_regex, REG_EXTENDED | REG_NOSUB)) {
			return -GP_ERR_API;
		}
		for (size_t i = 0; i < GP_ARRAY_SIZE(knames); i++) {
			if (!regexec(&re, knames[i].mangled, 0, NULL, 0) ||
			    (knames[i].demangled && !regexec(&re, knames[i].demangled, 0, NULL, 0))) {
				g.kfactor[i] *= o->slow_factor;
			}
		}
		regfree(&re);
	}
	if (o->run_jitter > 0) {
		g.run_factor = noise_factor(&g, o->run_jitter);
	}
	g.cpu = o->start_ns;
	g.tid = 4242 + o->rank;
	g.stream_free = calloc((size_t)o->devices * o->streams, sizeof(uint64_t));
	if (!g.stream_free) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(knames); i++) {
		g.kname_id[i] = intern(&g, knames[i].mangled);
		g.kdem_id[i] = knames[i].demangled ? intern(&g, knames[i].demangled) : 0;
	}
	g.api_launch = intern(&g, api_names[0]);
	g.api_memcpy = intern(&g, api_names[1]);
	g.api_sync = intern(&g, api_names[2]);
	g.api_memset = intern(&g, api_names[3]);
	g.api_malloc = intern(&g, api_names[4]);
	for (size_t i = 0; i < GP_ARRAY_SIZE(phases); i++) {
		g.phase_id[i] = intern(&g, phases[i]);
	}
	metadata(&g);
	st->first_ts = o->start_ns;
	for (uint32_t step = 0; step < o->steps && !g.err; step++) {
		uint64_t start = g.cpu;
		if (o->step_jitter > 0) {
			g.step_factor = noise_factor(&g, o->step_jitter);
		}
		if (o->same_kernels) {
			gp_rng_seed(&g.seq, 0x5eed); /* the same sequence every step */
		}
		if (o->load_ns) {
			/* A data-loading stall inside the step: the host fetches, the GPU waits. */
			struct gpt_nvtx dl = {
				.start = g.cpu, .end = g.cpu + o->load_ns, .type = GPT_NVTX_PUSH_POP,
				.message = intern(&g, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"),
				.start_tid = g.tid, .end_tid = g.tid};
			add(&g, GPT_KIND_NVTX, &dl, true);
			g.cpu += o->load_ns;
		}
		if (o->item_sync) {
			/* loss.item(): the host waits for the first half before queuing the rest. */
			uint32_t k1 = o->kernels_per_step / 2, c1 = o->copies_per_step / 2;
			phase(&g, 0, step, k1, c1);
			host_sync(&g);
			phase(&g, 0, step, o->kernels_per_step - k1, o->copies_per_step - c1);
		} else {
			phase(&g, 0, step, o->kernels_per_step, o->copies_per_step);
		}
		if (o->all_kinds) {
			for (unsigned d = 0; d < o->devices; d++) {
				extra_kinds(&g, d, step);
			}
		}
		/* The step ends with a host synchronization on every stream. */
		host_sync(&g);
		if (o->memory_per_step) {
			memory_events(&g, step, start, o->memory_per_step);
			g.cpu = g.cpu > start + o->memory_per_step + 2 ? g.cpu
								      : start + o->memory_per_step + 2;
		}
		snprintf(buf, sizeof(buf), "ProfilerStep#%" PRIu32, step);
		struct gpt_nvtx n = {.start = start, .end = g.cpu, .type = GPT_NVTX_PUSH_POP,
				     .message = intern(&g, buf), .start_tid = g.tid,
				     .end_tid = g.tid};
		add(&g, GPT_KIND_NVTX, &n, true);
		if (o->gap_ns) {
			/* A slow data loader: the host is busy, the GPU idle. */
			struct gpt_nvtx dl = {.start = g.cpu, .end = g.cpu + o->gap_ns,
					      .type = GPT_NVTX_PUSH_POP,
					      .message = intern(&g, "DataLoader.__next__"),
					      .start_tid = g.tid, .end_tid = g.tid};
			add(&g, GPT_KIND_NVTX, &dl, true);
		}
		g.cpu += o->gap_ns;
		if (o->all_kinds) {
			struct gpt_loss l = {.ts = g.cpu, .cause = GPT_LOSS_CUPTI_DROPPED,
					     .count = step, .device = 0};
			add(&g, GPT_KIND_LOSS, &l, false);
		}
	}
	struct gpt_clock ck = {.ts = g.cpu, .realtime = 1767225600000000000ULL + (g.cpu - o->start_ns),
			       .monotonic = 5000000000ULL + (g.cpu - o->start_ns),
			       .monotonic_raw = 4999000000ULL + (g.cpu - o->start_ns),
			       .phase = 2, .uncertainty = 60};
	add(&g, GPT_KIND_CLOCK, &ck, false);
	st->last_ts = g.cpu;
	free(g.stream_free);
	return g.err;
}
