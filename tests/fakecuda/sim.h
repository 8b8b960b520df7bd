/* SPDX-License-Identifier: MIT */
/*
 * sim.h - a simulated CUDA program on top of the fake driver (fake.h).
 *
 * sim_init dlopens libcuda.so.1 as libcudart does; without one the program
 * still runs (every call does nothing), which is the "no driver" case.
 * Each call plays what the CUDA runtime and CUPTI would do for it: an API
 * call (enter and exit callbacks, a correlation id, the API record) and the
 * GPU-side records, every field filled with a seeded pseudo-random value.
 * Records CUPTI accepted are written to the expectation file in trace terms
 * (rectext.h) for check-trace; records CUPTI dropped are counted ("D n").
 *
 * Thread-safe: programs call it from many threads.
 */
#ifndef SIM_H
#define SIM_H

#include "trace/trace.h"

/* Opens the expectation file (NULL: none). Returns true when a driver was found. */
bool sim_init(const char *expect_path, uint64_t seed);
bool sim_have_driver(void);
/* cuInit: the driver loads CUDA_INJECTION64_PATH. */
void sim_cuinit(void);
/* Whether the fake CUPTI is active (an injection library enabled some kind). */
bool sim_cupti_active(void);

/* Metadata records CUPTI would write when a context or stream is created. */
void sim_context(uint32_t ctx, uint32_t dev);
void sim_stream(uint32_t stream, uint32_t ctx);

/* Mangled kernel names with their demangled forms ("" when not demangled). */
#define SIM_NKERNELS 6
extern const char *const sim_kernel_names[SIM_NKERNELS];

/* cudaLaunchKernel and its kernel; name NULL: one of sim_kernel_names. Returns the correlation. */
uint32_t sim_launch(uint32_t dev, uint32_t ctx, uint32_t stream, const char *name);
/* cudaGraphLaunch: nodes kernels that share its correlation id, with graph ids. */
uint32_t sim_graph_launch(uint32_t dev, uint32_t ctx, uint32_t stream, unsigned nodes);
/* A copy of a CUpti_ActivityMemcpyKind (1..10) through cudaMemcpy(Async). */
void sim_memcpy(uint32_t dev, uint32_t ctx, uint32_t stream, unsigned copy_kind, uint64_t bytes,
		bool async);
/* cudaMemcpyPeerAsync: a MEMCPY2 record. */
void sim_p2p(uint32_t src_dev, uint32_t dst_dev, uint32_t ctx, uint32_t stream, uint64_t bytes);
void sim_memset(uint32_t dev, uint32_t ctx, uint32_t stream, uint64_t bytes);
/* cudaMalloc: a MEMORY2 allocation tied to the call; sim_free releases the newest one. */
void sim_malloc(uint32_t dev, uint32_t ctx, uint64_t bytes);
void sim_free(void);
/* A MEMORY_POOL record (op: 1 created, 2 destroyed, 3 trimmed) from cudaMemPoolCreate. */
void sim_mempool(uint32_t dev, unsigned op, uint64_t size);
/* type: 1 event, 2 stream wait event, 3 stream, 4 context (device) synchronize. */
void sim_sync(unsigned type, uint32_t ctx, uint32_t stream, uint64_t wait_ns);
/* cudaEventRecord on stream and its CUDA_EVENT record (timed by the device or by the call);
 * the next event sync or stream wait (sim_sync types 1, 2) waits for it */
void sim_event_record(uint32_t dev, uint32_t ctx, uint32_t stream, bool device_time);
/* An OVERHEAD record (CUPTI's own perturbation). */
void sim_overhead(void);
/* The calling thread's next API call carries this external correlation id. */
void sim_extcorr(unsigned kind, uint64_t id);
/* A kernel whose timing CUPTI never got (start = end = 0, as after a forced flush). */
void sim_incomplete_kernel(uint32_t dev, uint32_t ctx, uint32_t stream);
/* Records CUPTI lost on its own. */
void sim_drop(uint64_t n);
/* CUPTI's worker delivers every buffer now. */
void sim_deliver(void);
/* cudaProfilerStart/Stop (runtime record plus the driver callbacks). */
void sim_profiler_start(void);
void sim_profiler_stop(void);
/* The fake CUPTI clock (the injection library's, once it registered one). */
uint64_t sim_now(void);

/*
 * Realistic work for demos: kernels and copies queue on their stream's
 * timeline (start when the stream is free, after a launch latency) with
 * plausible launch configurations; sim_wait_stream blocks the host until
 * the stream's work is done, as cudaStreamSynchronize does.
 */
struct sim_kernel {
	const char *name;
	int32_t grid[3], block[3];
	uint16_t regs;
	int32_t static_smem, dynamic_smem;
	uint64_t dur_ns;
};
uint32_t sim_launch_kernel(uint32_t dev, uint32_t ctx, uint32_t stream, const struct sim_kernel *k);
void sim_copy_timed(uint32_t dev, uint32_t ctx, uint32_t stream, unsigned copy_kind,
		    unsigned src_kind, unsigned dst_kind, uint64_t bytes, double gb_per_s,
		    bool async);
/* cudaStreamSynchronize (stream != 0) or cudaDeviceSynchronize (0) that waits for real. */
void sim_wait_stream(uint32_t dev, uint32_t ctx, uint32_t stream);

/* Expectations written by programs that know them (NVTX): strings by text. */
void sim_expect_name(unsigned type, const char *domain, uint64_t id, const char *name);
void sim_expect_nvtx(const struct gpt_nvtx *r, const char *domain, const char *message);
/* A directive line for check-trace ("C msg corr": API record inside NVTX range). */
GP_PRINTF(1, 2) void sim_directive(const char *fmt, ...);
/* Writes the drop count and closes the expectation file. */
void sim_finish(void);

uint32_t sim_gettid(void);
/* The return value of the API records made from now on; -1 (the default): random, mostly 0. */
void sim_set_api_result(int v);

#endif
