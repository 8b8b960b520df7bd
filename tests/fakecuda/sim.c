/* SPDX-License-Identifier: MIT */
/*
 * sim.c - the simulated CUDA program (sim.h).
 *
 * Every record is first made in trace terms (a struct gpt_*) with each
 * field set to a seeded pseudo-random value, then turned into the CUPTI
 * struct the real library would write (the mapping documented in
 * docs/recording.md, written here in the CUPTI direction), and handed to
 * the fake CUPTI. If CUPTI stored it, the trace record is expected.
 */
#include "base/compat.h"
#include "tests/fakecuda/fake.h"
#include "tests/fakecuda/rectext.h"
#include "tests/fakecuda/sim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct {
	CUresult (*cuInit)(unsigned);
	int (*has_cupti)(void);
	int (*kind_enabled)(int);
	uint32_t (*api_enter)(int, uint32_t, const char *);
	void (*api_exit)(int, uint32_t, const char *, uint32_t);
	int (*emit)(const void *, size_t);
	uint64_t (*timestamp)(void);
	void (*drop)(uint64_t);
	void (*deliver)(void);
	CUresult (*prof_start)(void);
	CUresult (*prof_stop)(void);
} drv;
static bool have_driver;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *expect;
static struct gp_rng rng;
static uint64_t dropped;
static char **strs;
static uint32_t nstrs, capstrs;
static uint32_t graph_ids = 100, node_ids = 5000;
static int64_t grid_ids = 1;

static void expect_devices(void);

static __thread bool ext_pending;
static __thread unsigned ext_kind;
static __thread uint64_t ext_id;

const char *const sim_kernel_names[SIM_NKERNELS] = {
	"_Z6vecAddPKfS0_Pfi",
	"_ZN7cutlass6KernelINS_4gemm6kernel4GemmINS1_11threadblock12MmaPipelinedEEEEEvNT_6ParamsE",
	"_Z19gemm_kernel_128x128ILi128ELi128EEvPKfS1_Pfiii",
	"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_"
	"addIfEESt5arrayIPcLm3EEEEviT0_T1_",
	"triton_poi_fused_add_mul_0",
	"ncclDevKernel_AllReduce_Sum_f32_RING_LL",
};
static const char *const demangled[SIM_NKERNELS] = {
	"vecAdd(float const*, float const*, float*, int)",
	"void "
	"cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaPipelined> >"
	"(cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaPipelined>::Params)",
	"void gemm_kernel_128x128<128, 128>(float const*, float const*, float*, int, int, int)",
	"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
	"std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
	"",
	"",
};

uint32_t sim_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

#define SYM(field, name) *(void **)&drv.field = dlsym(h, name)

bool sim_init(const char *expect_path, uint64_t seed)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);

	gp_rng_seed(&rng, seed);
	if (expect_path) {
		expect = fopen(expect_path, "w");
	}
	if (!h) {
		return false;
	}
	SYM(cuInit, "cuInit");
	SYM(has_cupti, "fakecuda_has_cupti");
	SYM(kind_enabled, "fakecuda_kind_enabled");
	SYM(api_enter, "fakecuda_api_enter");
	SYM(api_exit, "fakecuda_api_exit");
	SYM(emit, "fakecuda_emit");
	SYM(timestamp, "fakecuda_timestamp");
	SYM(drop, "fakecuda_drop");
	SYM(deliver, "fakecuda_deliver");
	SYM(prof_start, "cuProfilerStart");
	SYM(prof_stop, "cuProfilerStop");
	have_driver = drv.cuInit && drv.api_enter && drv.emit && drv.timestamp;
	return have_driver;
}

bool sim_have_driver(void)
{
	return have_driver;
}

void sim_cuinit(void)
{
	if (!have_driver) {
		return;
	}
	drv.cuInit(0);
	if (drv.has_cupti() && drv.kind_enabled(CUPTI_ACTIVITY_KIND_DEVICE)) {
		expect_devices();
	}
}

bool sim_cupti_active(void)
{
	return have_driver && drv.has_cupti();
}

uint64_t sim_now(void)
{
	return have_driver ? drv.timestamp() : gp_clock_realtime_ns();
}

/* ------------------------------------------------------------ helpers */

static uint32_t str_id_locked(const char *s)
{
	if (!s || !*s) {
		return 0;
	}
	for (uint32_t i = 0; i < nstrs; i++) {
		if (!strcmp(strs[i], s)) {
			return i + 1;
		}
	}
	if (nstrs == capstrs) {
		capstrs = capstrs ? capstrs * 2 : 64;
		strs = realloc(strs, capstrs * sizeof(*strs));
	}
	strs[nstrs] = strdup(s);
	return ++nstrs;
}

static const char *str_of(void *ctx, uint32_t id)
{
	(void)ctx;
	return id && id <= nstrs ? strs[id - 1] : NULL;
}

static void expect_locked(enum gpt_kind kind, const void *rec, const uint16_t *skip)
{
	static bool kseen[GPT_KIND__MAX];
	struct gp_strbuf sb = GP_STRBUF_INIT;

	if (!expect) {
		return;
	}
	if (!kseen[kind]) {
		kseen[kind] = true;
		fprintf(expect, "K %s\n", gpt_kind_info(kind)->name);
	}
	rt_format(&sb, gpt_kind_info(kind), rec, str_of, NULL, skip);
	fprintf(expect, "R %s\n", sb.buf);
	gp_strbuf_release(&sb);
}

static int api_result = -1; /* sim_set_api_result: -1 random */

void sim_set_api_result(int v)
{
	api_result = v;
}

static uint64_t rnd(uint64_t n)
{
	uint64_t v;

	pthread_mutex_lock(&mu);
	v = gp_rng_below(&rng, n);
	pthread_mutex_unlock(&mu);
	return v;
}

/* Fills every field of a trace record with a random value of its type. */
static void randomize(enum gpt_kind kind, void *rec)
{
	const struct gpt_kind_info *ki = gpt_kind_info(kind);

	for (size_t i = 0; i < ki->nfields; i++) {
		const struct gpt_field *f = &ki->fields[i];
		uint64_t v;
		/*
		 * Kernel fields 45-47 come only from imported traces (CUPTI has no
		 * such field): they stay zero, and drawing no number for them keeps
		 * the scenarios' random sequence what the tests were written for.
		 */
		if (kind == GPT_KIND_KERNEL && f->id >= 45 && f->id <= 47) {
			gpt_field_set(f, rec, 0);
			continue;
		}
		switch (f->type) {
		case GPT_TY_u8:
			v = 1 + rnd(250);
			break;
		case GPT_TY_u16:
			v = 1 + rnd(60000);
			break;
		case GPT_TY_i32:
			v = 1 + rnd(1u << 30);
			break;
		case GPT_TY_u32:
			v = 1 + rnd(UINT32_MAX - 1);
			break;
		case GPT_TY_str:
			v = 0;
			break;
		default:
			v = 1 + rnd(1ULL << 62);
			break;
		}
		gpt_field_set(f, rec, v);
	}
}

/* Hands a record to CUPTI; writes the expectation if it was stored. */
static int emit(const void *cupti, size_t size, enum gpt_kind kind, const void *rec)
{
	int r;

	if (!have_driver) {
		return 0;
	}
	r = drv.emit(cupti, size);
	pthread_mutex_lock(&mu);
	if (r > 0) {
		expect_locked(kind, rec, NULL);
	} else if (r < 0) {
		dropped++;
	}
	pthread_mutex_unlock(&mu);
	return r;
}

static uint32_t intern(const char *s)
{
	uint32_t id;

	pthread_mutex_lock(&mu);
	id = str_id_locked(s);
	pthread_mutex_unlock(&mu);
	return id;
}

/*
 * The DEVICE records the fake CUPTI writes (fake_device_fill) as the trace
 * should hold them: CUPTI's fields plus the driver attributes the library
 * queries (fake_device_attr) and two architectural constants.
 */
static void expect_devices(void)
{
	int n = fake_ndevices();

	pthread_mutex_lock(&mu);
	for (int i = 0; i < n; i++) {
		CUpti_ActivityDevice5 d;
		struct gpt_device r = {0};
		fake_device_fill(i, &d);
		r.id = d.id;
		r.name = str_id_locked(d.name);
		free((void *)d.name);
		for (int b = 0; b < 8; b++) {
			r.uuid_hi = (r.uuid_hi << 8) | (uint8_t)d.uuid.bytes[b];
			r.uuid_lo = (r.uuid_lo << 8) | (uint8_t)d.uuid.bytes[8 + b];
			r.mig_uuid_hi = (r.mig_uuid_hi << 8) | (uint8_t)d.migUuid.bytes[b];
			r.mig_uuid_lo = (r.mig_uuid_lo << 8) | (uint8_t)d.migUuid.bytes[8 + b];
		}
		r.cc_major = (uint8_t)d.computeCapabilityMajor;
		r.cc_minor = (uint8_t)d.computeCapabilityMinor;
		r.num_sms = d.numMultiprocessors;
		r.warp_size = d.numThreadsPerWarp;
		r.max_warps_per_sm = d.maxWarpsPerMultiprocessor;
		r.max_blocks_per_sm = d.maxBlocksPerMultiprocessor;
		r.max_threads_per_block = d.maxThreadsPerBlock;
		r.max_regs_per_sm = d.maxRegistersPerMultiprocessor;
		r.max_regs_per_block = d.maxRegistersPerBlock;
		r.max_regs_per_thread = 255;
		r.max_smem_per_sm = d.maxSharedMemoryPerMultiprocessor;
		r.max_smem_per_block = d.maxSharedMemoryPerBlock;
		r.max_smem_per_block_optin = (uint64_t)fake_device_attr(i, 97);
		r.reserved_smem_per_block = (uint32_t)fake_device_attr(i, 111);
		r.global_mem_bytes = d.globalMemorySize;
		r.global_mem_bw_kbps = d.globalMemoryBandwidth;
		r.l2_bytes = d.l2CacheSize;
		r.constant_mem_bytes = d.constantMemorySize;
		r.core_clock_khz = d.coreClockRate;
		r.mem_clock_khz = (uint32_t)fake_device_attr(i, 36);
		r.mem_bus_width_bits = (uint32_t)fake_device_attr(i, 37);
		r.num_memcpy_engines = d.numMemcpyEngines;
		r.max_ipc = d.maxIPC;
		r.max_block_dim_x = d.maxBlockDimX;
		r.max_block_dim_y = d.maxBlockDimY;
		r.max_block_dim_z = d.maxBlockDimZ;
		r.max_grid_dim_x = d.maxGridDimX;
		r.max_grid_dim_y = d.maxGridDimY;
		r.max_grid_dim_z = d.maxGridDimZ;
		r.ecc_enabled = (uint8_t)d.eccEnabled;
		r.concurrent_kernels = 1;
		r.is_mig = d.isMigEnabled;
		r.gpu_instance_id = d.gpuInstanceId;
		r.compute_instance_id = d.computeInstanceId;
		r.numa_id = -1;
		r.pci_domain = (uint32_t)fake_device_attr(i, 50);
		r.pci_bus = (uint32_t)fake_device_attr(i, 33);
		r.pci_device = (uint32_t)fake_device_attr(i, 34);
		r.max_barriers_per_block = 16;
		r.max_threads_per_sm = (uint32_t)fake_device_attr(i, 39);
		expect_locked(GPT_KIND_DEVICE, &r, NULL);
	}
	pthread_mutex_unlock(&mu);
}

/* ---------------------------------------------------------- API calls */

struct api_call {
	int domain;
	uint32_t cbid;
	const char *cupti_name; /* as cuptiGetCallbackName gives it */
	uint32_t corr;
	uint64_t start;
};

/* The trace's name for a CUPTI callback name: without its _vNNNN suffix. */
static void strip_version(const char *in, char *out, size_t size)
{
	size_t n = strlen(in), i = n;

	while (i > 0 && in[i - 1] >= '0' && in[i - 1] <= '9') {
		i--;
	}
	if (i < n && i >= 3 && in[i - 1] == 'v' && in[i - 2] == '_') {
		n = i - 2;
	}
	if (n >= size) {
		n = size - 1;
	}
	memcpy(out, in, n);
	out[n] = '\0';
}

static void api_begin(struct api_call *c, int domain, uint32_t cbid, const char *name)
{
	c->domain = domain;
	c->cbid = cbid;
	c->cupti_name = name;
	c->start = sim_now();
	c->corr = have_driver ? drv.api_enter(domain, cbid, name) : 0;
	if (ext_pending) {
		/* CUPTI writes the external correlation before the API record */
		CUpti_ActivityExternalCorrelation x = {
			.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
			.externalKind = (CUpti_ExternalCorrelationKind)ext_kind,
			.externalId = ext_id,
			.correlationId = c->corr,
		};
		struct gpt_extcorr r = {
			.external_kind = (uint8_t)ext_kind,
			.external_id = ext_id,
			.correlation = c->corr,
		};
		emit(&x, sizeof(x), GPT_KIND_EXTCORR, &r);
		ext_pending = false;
	}
}

static void api_end(struct api_call *c)
{
	char name[128];
	struct gpt_api r;
	CUpti_ActivityAPI a;

	if (!have_driver) {
		return;
	}
	drv.api_exit(c->domain, c->cbid, c->cupti_name, c->corr);
	strip_version(c->cupti_name, name, sizeof(name));
	randomize(GPT_KIND_API, &r);
	r.start = c->start;
	r.end = sim_now() + 1;
	r.tid = sim_gettid();
	r.domain = c->domain == 2 ? GPT_API_RUNTIME : GPT_API_DRIVER;
	r.cbid = c->cbid;
	r.name = intern(name);
	r.correlation = c->corr;
	r.return_value = api_result >= 0 ? (uint32_t)api_result : (uint32_t)rnd(3);
	memset(&a, 0, sizeof(a));
	a.kind = c->domain == 2 ? CUPTI_ACTIVITY_KIND_RUNTIME : CUPTI_ACTIVITY_KIND_DRIVER;
	a.cbid = r.cbid;
	a.start = r.start;
	a.end = r.end;
	a.processId = (uint32_t)getpid();
	a.threadId = r.tid;
	a.correlationId = r.correlation;
	a.returnValue = r.return_value;
	emit(&a, sizeof(a), GPT_KIND_API, &r);
}

void sim_extcorr(unsigned kind, uint64_t id)
{
	ext_pending = true;
	ext_kind = kind;
	ext_id = id;
}

/* ---------------------------------------------------------- metadata */

void sim_context(uint32_t ctx, uint32_t dev)
{
	struct gpt_context r;
	CUpti_ActivityContext3 c;

	randomize(GPT_KIND_CONTEXT, &r);
	r.id = ctx;
	r.device = dev;
	r.compute_api_kind = (uint8_t)(1 + rnd(2));
	r.is_green = (uint8_t)rnd(2);
	r.num_sms = (uint32_t)rnd(65536);
	r.null_stream = (uint32_t)rnd(65536);
	r.cig_mode = (uint8_t)rnd(3);
	memset(&c, 0, sizeof(c));
	c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
	c.contextId = r.id;
	c.deviceId = r.device;
	c.computeApiKind = r.compute_api_kind;
	c.nullStreamId = (uint16_t)r.null_stream;
	c.parentContextId = r.parent;
	c.isGreenContext = r.is_green;
	c.numMultiprocessors = (uint16_t)r.num_sms;
	c.cigMode = (CUpti_ContextCigMode)r.cig_mode;
	emit(&c, sizeof(c), GPT_KIND_CONTEXT, &r);
}

void sim_stream(uint32_t stream, uint32_t ctx)
{
	struct gpt_stream r;
	CUpti_ActivityStream s;
	static const CUpti_ActivityStreamFlag flags[3] = {
		CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT,
		CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING,
		CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL,
	};

	randomize(GPT_KIND_STREAM, &r);
	r.id = stream;
	r.context = ctx;
	r.priority = -(int32_t)rnd(6);
	r.flags = (uint8_t)rnd(3);
	r.name = 0;
	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_STREAM;
	s.contextId = ctx;
	s.streamId = stream;
	s.priority = (uint32_t)r.priority;
	s.flag = flags[r.flags];
	s.correlationId = r.correlation;
	emit(&s, sizeof(s), GPT_KIND_STREAM, &r);
}

/* ------------------------------------------------------------- kernels */

static void kernel_record(uint32_t dev, uint32_t ctx, uint32_t stream, const char *name,
			  uint32_t corr, uint32_t graph, uint64_t node, bool timed)
{
	struct gpt_kernel r;
	CUpti_ActivityKernel10 k;
	int which = -1;

	for (int i = 0; i < SIM_NKERNELS; i++) {
		if (!strcmp(name, sim_kernel_names[i])) {
			which = i;
		}
	}
	randomize(GPT_KIND_KERNEL, &r);
	uint64_t t = sim_now();
	r.start = timed ? t + 1000 + rnd(100000) : 0;
	r.end = timed ? r.start + 1 + rnd(5000000) : 0;
	r.completed = timed ? r.end + rnd(1000) : 0;
	r.queued = timed ? t - rnd(1000) : 0;
	r.submitted = timed ? t + rnd(1000) : 0;
	r.device = dev;
	r.context = ctx;
	r.stream = stream;
	r.correlation = corr;
	r.name = intern(name);
	r.demangled = which >= 0 ? intern(demangled[which]) : 0;
	r.cluster_sched_policy = (uint8_t)rnd(3);
	r.cache_config_requested = (uint8_t)rnd(16);
	r.cache_config_executed = (uint8_t)rnd(16);
	r.partitioned_gc_requested = (uint8_t)rnd(4);
	r.partitioned_gc_executed = (uint8_t)rnd(4);
	r.shmem_limit_config = (uint8_t)rnd(2);
	r.channel_type = (uint8_t)rnd(3);
	r.smem_carveout_is_requested = (uint8_t)rnd(2);
	r.launch_type = (uint8_t)rnd(4);
	r.graph_id = graph;
	r.graph_node_id = node;
	r.is_device_launched = (uint8_t)rnd(2);
	pthread_mutex_lock(&mu);
	r.grid_id = grid_ids++;
	pthread_mutex_unlock(&mu);
	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.cacheConfig.config.requested = r.cache_config_requested & 15;
	k.cacheConfig.config.executed = r.cache_config_executed & 15;
	k.sharedMemoryConfig = r.smem_config;
	k.registersPerThread = r.registers;
	k.partitionedGlobalCacheRequested =
		(CUpti_ActivityPartitionedGlobalCacheConfig)r.partitioned_gc_requested;
	k.partitionedGlobalCacheExecuted =
		(CUpti_ActivityPartitionedGlobalCacheConfig)r.partitioned_gc_executed;
	k.start = r.start;
	k.end = r.end;
	k.completed = r.completed;
	k.deviceId = r.device;
	k.contextId = r.context;
	k.streamId = r.stream;
	k.gridX = r.grid_x;
	k.gridY = r.grid_y;
	k.gridZ = r.grid_z;
	k.blockX = r.block_x;
	k.blockY = r.block_y;
	k.blockZ = r.block_z;
	k.staticSharedMemory = r.static_smem;
	k.dynamicSharedMemory = r.dynamic_smem;
	k.localMemoryPerThread = r.local_mem_per_thread;
	k.localMemoryTotal = (uint32_t)r.local_mem_total;
	k.localMemoryTotal_v2 = r.local_mem_total;
	k.correlationId = r.correlation;
	k.gridId = r.grid_id;
	k.name = sim_kernel_names[which >= 0 ? which : 0];
	if (which < 0) {
		k.name = name; /* the caller's string lives long enough (tests pass literals) */
	}
	k.queued = r.queued;
	k.submitted = r.submitted;
	k.launchType = r.launch_type;
	k.isSharedMemoryCarveoutRequested = r.smem_carveout_is_requested;
	k.sharedMemoryCarveoutRequested = r.smem_carveout_requested;
	k.sharedMemoryExecuted = r.smem_executed;
	k.graphNodeId = r.graph_node_id;
	k.shmemLimitConfig = (CUpti_FuncShmemLimitConfig)r.shmem_limit_config;
	k.graphId = r.graph_id;
	k.channelID = r.channel_id;
	k.channelType = (CUpti_ChannelType)r.channel_type;
	k.clusterX = r.cluster_x;
	k.clusterY = r.cluster_y;
	k.clusterZ = r.cluster_z;
	k.clusterSchedulingPolicy = r.cluster_sched_policy;
	k.maxPotentialClusterSize = r.max_potential_cluster_size;
	k.maxActiveClusters = r.max_active_clusters;
	k.isDeviceLaunched = r.is_device_launched;
	emit(&k, sizeof(k), GPT_KIND_KERNEL, &r);
}

uint32_t sim_launch(uint32_t dev, uint32_t ctx, uint32_t stream, const char *name)
{
	struct api_call c;

	if (!name) {
		name = sim_kernel_names[rnd(SIM_NKERNELS)];
	}
	api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel_v7000");
	api_end(&c);
	kernel_record(dev, ctx, stream, name, c.corr, 0, 0, true);
	return c.corr;
}

uint32_t sim_graph_launch(uint32_t dev, uint32_t ctx, uint32_t stream, unsigned nodes)
{
	struct api_call c;
	uint32_t graph;
	uint64_t node;

	pthread_mutex_lock(&mu);
	graph = graph_ids++;
	node = node_ids;
	node_ids += nodes;
	pthread_mutex_unlock(&mu);
	api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, "cudaGraphLaunch_v10000");
	api_end(&c);
	/* every kernel of a graph launch shares the launch's correlation id */
	for (unsigned i = 0; i < nodes; i++) {
		kernel_record(dev, ctx, stream, sim_kernel_names[i % SIM_NKERNELS], c.corr, graph,
			      node + i, true);
	}
	return c.corr;
}

void sim_incomplete_kernel(uint32_t dev, uint32_t ctx, uint32_t stream)
{
	struct api_call c;

	api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel_v7000");
	api_end(&c);
	kernel_record(dev, ctx, stream, sim_kernel_names[0], c.corr, 0, 0, false);
}

/* -------------------------------------------------------------- copies */

void sim_memcpy(uint32_t dev, uint32_t ctx, uint32_t stream, unsigned copy_kind, uint64_t bytes,
		bool async)
{
	struct api_call c;
	struct gpt_memcpy r;
	CUpti_ActivityMemcpy6 m;

	if (async) {
		api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
			  "cudaMemcpyAsync_v3020");
	} else {
		api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy_v3020");
	}
	api_end(&c);
	randomize(GPT_KIND_MEMCPY, &r);
	r.start = sim_now() + rnd(10000);
	r.end = r.start + 1 + rnd(1000000);
	r.device = r.src_device = r.dst_device = dev;
	r.context = r.src_context = r.dst_context = ctx;
	r.stream = stream;
	r.correlation = c.corr;
	r.bytes = bytes;
	r.copy_kind = (uint8_t)copy_kind;
	r.src_kind = (uint8_t)(1 + rnd(7));
	r.dst_kind = (uint8_t)(1 + rnd(7));
	r.flags = async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
	r.channel_type = (uint8_t)rnd(3);
	r.is_device_launched = (uint8_t)rnd(2);
	r.is_p2p = 0;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = r.copy_kind;
	m.srcKind = r.src_kind;
	m.dstKind = r.dst_kind;
	m.flags = r.flags;
	m.bytes = r.bytes;
	m.start = r.start;
	m.end = r.end;
	m.deviceId = dev;
	m.contextId = ctx;
	m.streamId = stream;
	m.correlationId = r.correlation;
	m.runtimeCorrelationId = r.runtime_correlation;
	m.graphNodeId = r.graph_node_id;
	m.graphId = r.graph_id;
	m.channelID = r.channel_id;
	m.channelType = (CUpti_ChannelType)r.channel_type;
	m.isDeviceLaunched = r.is_device_launched;
	m.copyCount = r.copy_count;
	emit(&m, sizeof(m), GPT_KIND_MEMCPY, &r);
}

void sim_p2p(uint32_t src_dev, uint32_t dst_dev, uint32_t ctx, uint32_t stream, uint64_t bytes)
{
	struct api_call c;
	struct gpt_memcpy r;
	CUpti_ActivityMemcpyPtoP4 m;

	api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000,
		  "cudaMemcpyPeerAsync_v4000");
	api_end(&c);
	randomize(GPT_KIND_MEMCPY, &r);
	r.start = sim_now() + rnd(10000);
	r.end = r.start + 1 + rnd(1000000);
	r.device = src_dev;
	r.context = ctx;
	r.stream = stream;
	r.correlation = c.corr;
	r.runtime_correlation = 0; /* MEMCPY2 records have one correlation id */
	r.bytes = bytes;
	r.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
	r.src_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	r.dst_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	r.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
	r.src_device = src_dev;
	r.dst_device = dst_dev;
	r.channel_type = (uint8_t)rnd(3);
	r.is_device_launched = 0;
	r.copy_count = 1;
	r.is_p2p = 1;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
	m.copyKind = r.copy_kind;
	m.srcKind = r.src_kind;
	m.dstKind = r.dst_kind;
	m.flags = r.flags;
	m.bytes = r.bytes;
	m.start = r.start;
	m.end = r.end;
	m.deviceId = r.device;
	m.contextId = r.context;
	m.streamId = r.stream;
	m.srcDeviceId = r.src_device;
	m.srcContextId = r.src_context;
	m.dstDeviceId = r.dst_device;
	m.dstContextId = r.dst_context;
	m.correlationId = r.correlation;
	m.graphNodeId = r.graph_node_id;
	m.graphId = r.graph_id;
	m.channelID = r.channel_id;
	m.channelType = (CUpti_ChannelType)r.channel_type;
	emit(&m, sizeof(m), GPT_KIND_MEMCPY, &r);
}

void sim_memset(uint32_t dev, uint32_t ctx, uint32_t stream, uint64_t bytes)
{
	struct api_call c;
	struct gpt_memset r;
	CUpti_ActivityMemset4 m;

	api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, "cudaMemsetAsync_v3020");
	api_end(&c);
	randomize(GPT_KIND_MEMSET, &r);
	r.start = sim_now() + rnd(10000);
	r.end = r.start + 1 + rnd(100000);
	r.device = dev;
	r.context = ctx;
	r.stream = stream;
	r.correlation = c.corr;
	r.bytes = bytes;
	r.flags = CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC;
	r.memory_kind = (uint8_t)(1 + rnd(7));
	r.channel_type = (uint8_t)rnd(3);
	r.is_device_launched = (uint8_t)rnd(2);
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	m.value = r.value;
	m.bytes = r.bytes;
	m.start = r.start;
	m.end = r.end;
	m.deviceId = dev;
	m.contextId = ctx;
	m.streamId = stream;
	m.correlationId = r.correlation;
	m.flags = r.flags;
	m.memoryKind = r.memory_kind;
	m.graphNodeId = r.graph_node_id;
	m.graphId = r.graph_id;
	m.channelID = r.channel_id;
	m.channelType = (CUpti_ChannelType)r.channel_type;
	m.isDeviceLaunched = r.is_device_launched;
	emit(&m, sizeof(m), GPT_KIND_MEMSET, &r);
}

/* ------------------------------------------------------ memory */

/* Live allocations, last first: sim_free releases the newest. */
static struct {
	uint64_t addr, bytes;
	uint32_t dev, ctx;
} allocs[4096];
static size_t nallocs;
static uint64_t next_addr = 0x7f0000000000ULL;

static void memory_record(uint32_t dev, uint32_t ctx, uint64_t addr, uint64_t bytes, bool alloc,
			  uint32_t corr)
{
	struct gpt_memory r = {0};
	CUpti_ActivityMemory4 m;

	r.ts = sim_now();
	r.op = alloc ? GPT_MEMORY_ALLOC : GPT_MEMORY_FREE;
	r.memory_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	r.address = addr;
	r.bytes = bytes;
	r.device = dev;
	r.context = ctx;
	r.stream = UINT32_MAX;
	r.correlation = corr;
	r.pc = 0x400000 + rnd(0x10000);
	r.device_type = 1;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
	m.memoryOperationType = alloc ? CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION
				      : CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
	m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.correlationId = corr;
	m.address = addr;
	m.bytes = bytes;
	m.timestamp = r.ts;
	m.PC = r.pc;
	m.processId = (uint32_t)getpid();
	m.deviceId = dev;
	m.contextId = ctx;
	m.streamId = UINT32_MAX;
	emit(&m, sizeof(m), GPT_KIND_MEMORY, &r);
}

void sim_malloc(uint32_t dev, uint32_t ctx, uint64_t bytes)
{
	struct api_call c;
	uint64_t addr;

	api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc_v3020");
	pthread_mutex_lock(&mu);
	addr = next_addr;
	next_addr += (bytes + 0xfffff) & ~0xfffffULL;
	if (nallocs < GP_ARRAY_SIZE(allocs)) {
		allocs[nallocs].addr = addr;
		allocs[nallocs].bytes = bytes;
		allocs[nallocs].dev = dev;
		allocs[nallocs++].ctx = ctx;
	}
	pthread_mutex_unlock(&mu);
	memory_record(dev, ctx, addr, bytes, true, c.corr);
	api_end(&c);
}

void sim_free(void)
{
	struct api_call c;
	bool have;
	uint64_t addr = 0, bytes = 0;
	uint32_t dev = 0, ctx = 0;

	api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, "cudaFree_v3020");
	pthread_mutex_lock(&mu);
	have = nallocs > 0;
	if (have) {
		nallocs--;
		addr = allocs[nallocs].addr;
		bytes = allocs[nallocs].bytes;
		dev = allocs[nallocs].dev;
		ctx = allocs[nallocs].ctx;
	}
	pthread_mutex_unlock(&mu);
	if (have) {
		memory_record(dev, ctx, addr, bytes, false, c.corr);
	}
	api_end(&c);
}

void sim_mempool(uint32_t dev, unsigned op, uint64_t size)
{
	struct api_call c;
	struct gpt_memory_pool r = {0};
	CUpti_ActivityMemoryPool3 p;

	api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaMemPoolCreate_v11020,
		  "cudaMemPoolCreate_v11020");
	r.ts = sim_now();
	r.op = (uint8_t)op;
	r.pool_type = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
	r.address = 0x7e0000000000ULL;
	r.size = size;
	r.release_threshold = size / 2;
	r.utilized_size = size / 4;
	r.min_bytes_to_keep = op == 3 ? size / 8 : 0;
	r.device = dev;
	r.correlation = c.corr;
	memset(&p, 0, sizeof(p));
	p.kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
	p.memoryPoolOperationType = (CUpti_ActivityMemoryPoolOperationType)op;
	p.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
	p.correlationId = c.corr;
	p.processId = (uint32_t)getpid();
	p.deviceId = dev;
	p.minBytesToKeep = r.min_bytes_to_keep;
	p.address = r.address;
	p.size = r.size;
	p.releaseThreshold = r.release_threshold;
	p.timestamp = r.ts;
	p.utilizedSize = r.utilized_size;
	emit(&p, sizeof(p), GPT_KIND_MEMORY_POOL, &r);
	api_end(&c);
}

/* ------------------------------------------------------ synchronization */

/* The last event recorded (sim_event_record): what the next event wait waits for. */
static uint32_t last_event_id;
static uint64_t last_event_sync_id;

void sim_event_record(uint32_t dev, uint32_t ctx, uint32_t stream, bool device_time)
{
	struct api_call c;
	struct gpt_sync r = {0};
	CUpti_ActivityCudaEvent2 e;

	api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, "cudaEventRecord_v3020");
	memset(&e, 0, sizeof(e));
	e.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
	e.correlationId = c.corr;
	e.contextId = ctx;
	e.streamId = stream;
	e.eventId = ++last_event_id;
	e.deviceId = dev;
	e.cudaEventSyncId = last_event_sync_id = 1000 + rnd(1000) * 1000 + last_event_id;
	e.deviceTimestamp = device_time ? sim_now() : 0;
	r.start = r.end = device_time ? e.deviceTimestamp : c.start;
	r.type = 5;
	r.correlation = c.corr;
	r.context = ctx;
	r.stream = stream;
	r.event_id = e.eventId;
	r.event_sync_id = e.cudaEventSyncId;
	r.device_plus1 = dev + 1;
	if (device_time) {
		emit(&e, sizeof(e), GPT_KIND_SYNC, &r);
		api_end(&c);
	} else {
		/* without a device time the record takes its call's start: the call comes first */
		api_end(&c);
		emit(&e, sizeof(e), GPT_KIND_SYNC, &r);
	}
}

void sim_sync(unsigned type, uint32_t ctx, uint32_t stream, uint64_t wait_ns)
{
	static const struct {
		uint32_t cbid;
		const char *name;
	} apis[5] = {
		{0, ""},
		{CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, "cudaEventSynchronize_v3020"},
		{CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, "cudaStreamWaitEvent_v3020"},
		{CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
		 "cudaStreamSynchronize_v3020"},
		{CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
		 "cudaDeviceSynchronize_v3020"},
	};
	struct api_call c;
	struct gpt_sync r;
	CUpti_ActivitySynchronization2 s;

	if (type < 1 || type > 4) {
		type = 3;
	}
	api_begin(&c, 2, apis[type].cbid, apis[type].name);
	uint64_t start = sim_now();
	if (wait_ns) {
		struct timespec ts = {(time_t)(wait_ns / 1000000000), (long)(wait_ns % 1000000000)};
		nanosleep(&ts, NULL);
	}
	uint64_t end = sim_now();
	api_end(&c);
	randomize(GPT_KIND_SYNC, &r);
	r.start = start;
	r.end = end + 1;
	r.type = (uint8_t)type;
	r.correlation = c.corr;
	r.context = ctx;
	r.stream = stream;
	r.device_plus1 = 0; /* CUPTI's record names no device */
	r.record_correlation = 0; /* CUPTI's record names no recording call */
	r.record_stream = 0;
	if ((type == 1 || type == 2) && last_event_id) {
		r.event_id = last_event_id;
		r.event_sync_id = last_event_sync_id;
	}
	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	s.type = (CUpti_ActivitySynchronizationType)r.type;
	s.start = r.start;
	s.end = r.end;
	s.correlationId = r.correlation;
	s.contextId = r.context;
	s.streamId = r.stream;
	s.cudaEventId = r.event_id;
	s.cudaEventSyncId = r.event_sync_id;
	s.returnValue = r.return_value;
	emit(&s, sizeof(s), GPT_KIND_SYNC, &r);
}

void sim_overhead(void)
{
	struct gpt_overhead r;
	CUpti_ActivityOverhead3 o;
	static const uint32_t kinds[] = {
		CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER,
		CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH,
		CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION,
		CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE,
	};

	randomize(GPT_KIND_OVERHEAD, &r);
	r.start = sim_now();
	r.end = r.start + 1 + rnd(100000);
	r.overhead_kind = kinds[rnd(4)];
	r.object_kind = (uint8_t)(1 + rnd(5));
	if (r.object_kind <= CUPTI_ACTIVITY_OBJECT_THREAD) {
		r.object_id2 = 0;
	}
	memset(&o, 0, sizeof(o));
	o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	o.overheadKind = (CUpti_ActivityOverheadKind)r.overhead_kind;
	o.objectKind = (CUpti_ActivityObjectKind)r.object_kind;
	if (r.object_kind <= CUPTI_ACTIVITY_OBJECT_THREAD) {
		o.objectId.pt.processId = r.object_id0;
		o.objectId.pt.threadId = r.object_id1;
	} else {
		o.objectId.dcs.deviceId = r.object_id0;
		o.objectId.dcs.contextId = r.object_id1;
		o.objectId.dcs.streamId = r.object_id2;
	}
	o.start = r.start;
	o.end = r.end;
	o.correlationId = r.correlation;
	emit(&o, sizeof(o), GPT_KIND_OVERHEAD, &r);
}

/* ------------------------------------------------------------- control */

void sim_drop(uint64_t n)
{
	if (have_driver && drv.drop && drv.has_cupti()) {
		drv.drop(n);
		pthread_mutex_lock(&mu);
		dropped += n;
		pthread_mutex_unlock(&mu);
	}
}

void sim_deliver(void)
{
	if (have_driver && drv.deliver) {
		drv.deliver();
	}
}

void sim_profiler_start(void)
{
	struct api_call c;

	api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000,
		  "cudaProfilerStart_v4000");
	if (have_driver && drv.prof_start) {
		drv.prof_start();
	}
	api_end(&c);
}

void sim_profiler_stop(void)
{
	struct api_call c;

	api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000, "cudaProfilerStop_v4000");
	if (have_driver && drv.prof_stop) {
		drv.prof_stop();
	}
	api_end(&c);
}

/* ------------------------------------------------------ realistic work */

struct timeline {
	uint32_t dev, stream;
	uint64_t free_at;
};
static struct timeline timelines[64];
static unsigned ntimelines;

/* Reserves [start, start + dur) on a stream no earlier than ready; mu held. */
static uint64_t slot_locked(uint32_t dev, uint32_t stream, uint64_t ready, uint64_t dur)
{
	struct timeline *tl = NULL;

	for (unsigned i = 0; i < ntimelines; i++) {
		if (timelines[i].dev == dev && timelines[i].stream == stream) {
			tl = &timelines[i];
		}
	}
	if (!tl && ntimelines < 64) {
		tl = &timelines[ntimelines++];
		tl->dev = dev;
		tl->stream = stream;
		tl->free_at = 0;
	}
	uint64_t start = ready + 3000 + gp_rng_below(&rng, 2000); /* launch latency */
	if (tl && tl->free_at > start) {
		start = tl->free_at + 500;
	}
	if (tl) {
		tl->free_at = start + dur;
	}
	return start;
}

uint32_t sim_launch_kernel(uint32_t dev, uint32_t ctx, uint32_t stream, const struct sim_kernel *kd)
{
	struct api_call c;
	struct gpt_kernel r = {0};
	CUpti_ActivityKernel10 k;

	api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel_v7000");
	api_end(&c);
	if (!have_driver) {
		return 0;
	}
	pthread_mutex_lock(&mu);
	r.start = slot_locked(dev, stream, sim_now(), kd->dur_ns);
	r.grid_id = grid_ids++;
	pthread_mutex_unlock(&mu);
	r.end = r.start + kd->dur_ns;
	r.completed = r.end;
	r.device = dev;
	r.context = ctx;
	r.stream = stream;
	r.correlation = c.corr;
	r.name = intern(kd->name);
	r.grid_x = kd->grid[0];
	r.grid_y = kd->grid[1];
	r.grid_z = kd->grid[2];
	r.block_x = kd->block[0];
	r.block_y = kd->block[1];
	r.block_z = kd->block[2];
	r.cluster_x = r.cluster_y = r.cluster_z = 1;
	r.registers = kd->regs;
	r.static_smem = kd->static_smem;
	r.dynamic_smem = kd->dynamic_smem;
	r.smem_executed = 233472;
	r.channel_type = CUPTI_CHANNEL_TYPE_COMPUTE;
	r.channel_id = 1 + stream % 8;
	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.registersPerThread = r.registers;
	k.start = r.start;
	k.end = r.end;
	k.completed = r.completed;
	k.deviceId = dev;
	k.contextId = ctx;
	k.streamId = stream;
	k.gridX = r.grid_x;
	k.gridY = r.grid_y;
	k.gridZ = r.grid_z;
	k.blockX = r.block_x;
	k.blockY = r.block_y;
	k.blockZ = r.block_z;
	k.staticSharedMemory = r.static_smem;
	k.dynamicSharedMemory = r.dynamic_smem;
	k.correlationId = c.corr;
	k.gridId = r.grid_id;
	k.name = kd->name;
	k.sharedMemoryExecuted = r.smem_executed;
	k.channelID = r.channel_id;
	k.channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
	k.clusterX = k.clusterY = k.clusterZ = 1;
	emit(&k, sizeof(k), GPT_KIND_KERNEL, &r);
	return c.corr;
}

void sim_copy_timed(uint32_t dev, uint32_t ctx, uint32_t stream, unsigned copy_kind,
		    unsigned src_kind, unsigned dst_kind, uint64_t bytes, double gb_per_s,
		    bool async)
{
	struct api_call c;
	struct gpt_memcpy r = {0};
	CUpti_ActivityMemcpy6 m;
	uint64_t dur = (uint64_t)((double)bytes / gb_per_s) + 1500;

	if (async) {
		api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
			  "cudaMemcpyAsync_v3020");
	} else {
		api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy_v3020");
	}
	if (!have_driver) {
		api_end(&c);
		return;
	}
	pthread_mutex_lock(&mu);
	r.start = slot_locked(dev, stream, sim_now(), dur);
	pthread_mutex_unlock(&mu);
	r.end = r.start + dur;
	if (!async) {
		/* a synchronous copy returns when it is done */
		uint64_t now = sim_now();
		if (r.end > now) {
			struct timespec ts = {0, (long)(r.end - now)};
			nanosleep(&ts, NULL);
		}
	}
	api_end(&c);
	r.device = r.src_device = r.dst_device = dev;
	r.context = r.src_context = r.dst_context = ctx;
	r.stream = stream;
	r.correlation = c.corr;
	r.bytes = bytes;
	r.copy_kind = (uint8_t)copy_kind;
	r.src_kind = (uint8_t)src_kind;
	r.dst_kind = (uint8_t)dst_kind;
	r.flags = async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
	r.copy_count = 1;
	r.channel_type = CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = r.copy_kind;
	m.srcKind = r.src_kind;
	m.dstKind = r.dst_kind;
	m.flags = r.flags;
	m.bytes = bytes;
	m.start = r.start;
	m.end = r.end;
	m.deviceId = dev;
	m.contextId = ctx;
	m.streamId = stream;
	m.correlationId = c.corr;
	m.channelType = CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
	m.copyCount = 1;
	emit(&m, sizeof(m), GPT_KIND_MEMCPY, &r);
}

void sim_wait_stream(uint32_t dev, uint32_t ctx, uint32_t stream)
{
	struct api_call c;
	struct gpt_sync r = {0};
	CUpti_ActivitySynchronization2 s;
	uint64_t until = 0;

	if (stream) {
		api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
			  "cudaStreamSynchronize_v3020");
	} else {
		api_begin(&c, 2, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
			  "cudaDeviceSynchronize_v3020");
	}
	uint64_t start = sim_now();
	pthread_mutex_lock(&mu);
	for (unsigned i = 0; i < ntimelines; i++) {
		if (timelines[i].dev == dev && (!stream || timelines[i].stream == stream) &&
		    timelines[i].free_at > until) {
			until = timelines[i].free_at;
		}
	}
	pthread_mutex_unlock(&mu);
	uint64_t now = sim_now();
	if (until > now) {
		uint64_t d = until - now;
		struct timespec ts = {(time_t)(d / 1000000000), (long)(d % 1000000000)};
		nanosleep(&ts, NULL);
	}
	uint64_t end = sim_now();
	api_end(&c);
	if (!have_driver) {
		return;
	}
	r.start = start;
	r.end = end;
	r.type = stream ? CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE
			: CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
	r.correlation = c.corr;
	r.context = ctx;
	r.stream = stream;
	r.event_id = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	r.event_sync_id = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	s.type = (CUpti_ActivitySynchronizationType)r.type;
	s.start = r.start;
	s.end = r.end;
	s.correlationId = c.corr;
	s.contextId = ctx;
	s.streamId = stream;
	s.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	s.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	emit(&s, sizeof(s), GPT_KIND_SYNC, &r);
}

void sim_expect_name(unsigned type, const char *domain, uint64_t id, const char *name)
{
	struct gpt_name r = {.type = (uint8_t)type, .id = id};

	pthread_mutex_lock(&mu);
	r.domain = str_id_locked(domain);
	r.name = str_id_locked(name);
	expect_locked(GPT_KIND_NAME, &r, NULL);
	pthread_mutex_unlock(&mu);
}

void sim_expect_nvtx(const struct gpt_nvtx *r, const char *domain, const char *message)
{
	static const uint16_t skip[] = {1, 2, 0}; /* start, end: the library's clock */
	struct gpt_nvtx c = *r;

	pthread_mutex_lock(&mu);
	c.domain = str_id_locked(domain);
	c.message = str_id_locked(message);
	expect_locked(GPT_KIND_NVTX, &c, skip);
	pthread_mutex_unlock(&mu);
}

void sim_directive(const char *fmt, ...)
{
	va_list ap;

	if (!expect) {
		return;
	}
	pthread_mutex_lock(&mu);
	va_start(ap, fmt);
	vfprintf(expect, fmt, ap);
	va_end(ap);
	fputc('\n', expect);
	pthread_mutex_unlock(&mu);
}

void sim_finish(void)
{
	pthread_mutex_lock(&mu);
	if (expect) {
		fprintf(expect, "D %" PRIu64 "\n", dropped);
		fclose(expect);
		expect = NULL;
	}
	pthread_mutex_unlock(&mu);
}
