// SPDX-License-Identifier: MIT
// common.h - shared by the CUDA samples: error checks, NVTX, timing, and
// the ground-truth lines tests/gpu/run.sh compares each trace with:
//
//   GT kernel SUBSTRING N        N launches of kernels whose name contains SUBSTRING
//   GT kernels_min N             at least N kernels in all (libraries add their own)
//   GT memcpy N BYTES            N copies moving BYTES in all
//   GT memset N                  N memsets
//   GT memset_min N              at least N memsets (libraries add their own)
//   GT nvtx MESSAGE N            N NVTX ranges or marks with this message
//   GT api NAME N                at least N calls of this runtime function
//   GT config SUBSTRING grid block regs static_smem dynamic_smem
//                                a kernel's launch configuration as CUPTI must report it
//   GT loop_ms X                 wall time of the measured part (for the overhead figure)
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#define CK(call)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
				cudaGetErrorString(e_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

struct NvtxRange {
	explicit NvtxRange(const char *name) { nvtxRangePushA(name); }
	~NvtxRange() { nvtxRangePop(); }
};

static inline double now_ms()
{
	using namespace std::chrono;
	return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

static inline int arg_int(int argc, char **argv, const char *flag, int def)
{
	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], flag)) {
			return atoi(argv[i + 1]);
		}
	}
	return def;
}
