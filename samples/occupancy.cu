// SPDX-License-Identifier: MIT
// occupancy - kernels with known register and shared-memory footprints
// (__launch_bounds__, -maxrregcount=64 for the file, static and dynamic
// shared memory, a dynamic-smem opt-in above 48 KiB). For each it prints
// cudaFuncGetAttributes and cudaOccupancyMaxActiveBlocksPerMultiprocessor,
// the ground truth for the trace's launch configuration and for gpuprof's
// own occupancy calculation.
//
// usage: occupancy [--reps N]
#include <cstring>

#include "common.h"

// A register-hungry loop the compiler cannot shrink.
#define HEAVY(T)                                                                                   \
	float acc[T];                                                                              \
	for (int k = 0; k < T; k++) {                                                              \
		acc[k] = x[(threadIdx.x + k) % n];                                                 \
	}                                                                                          \
	for (int r = 0; r < 8; r++) {                                                              \
		for (int k = 0; k < T; k++) {                                                      \
			acc[k] = acc[k] * 1.0001f + acc[(k + 1) % T];                              \
		}                                                                                  \
	}                                                                                          \
	float s = 0;                                                                               \
	for (int k = 0; k < T; k++) {                                                              \
		s += acc[k];                                                                       \
	}

__global__ void k_default(const float *x, float *y, int n)
{
	HEAVY(48)
	y[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void __launch_bounds__(256, 4) k_bounded(const float *x, float *y, int n)
{
	HEAVY(48)
	y[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void k_static_smem(const float *x, float *y, int n)
{
	__shared__ float tile[4096]; // 16 KiB
	tile[threadIdx.x] = x[threadIdx.x % n];
	__syncthreads();
	y[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

__global__ void k_dynamic_smem(const float *x, float *y, int n)
{
	extern __shared__ float dyn[];
	dyn[threadIdx.x] = x[threadIdx.x % n];
	__syncthreads();
	y[blockIdx.x * blockDim.x + threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x];
}

// The same body under its own name, launched with a small dynamic allocation.
__global__ void k_dynamic_small(const float *x, float *y, int n)
{
	extern __shared__ float dyn[];
	dyn[threadIdx.x] = x[threadIdx.x % n];
	__syncthreads();
	y[blockIdx.x * blockDim.x + threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x];
}

template <typename K>
static void run(const char *name, K kernel, int grid, int block, size_t dyn, const float *x,
		float *y, int n, int reps)
{
	cudaFuncAttributes fa;
	int active = 0;

	if (dyn > 48 * 1024) {
		CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
	}
	CK(cudaFuncGetAttributes(&fa, kernel));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, kernel, block, dyn));
	for (int i = 0; i < reps; i++) {
		kernel<<<grid, block, dyn>>>(x, y, n);
		CK(cudaGetLastError());
	}
	CK(cudaDeviceSynchronize());
	printf("occupancy: %-16s regs %3d static smem %6zu dynamic smem %6zu local %4zu block %4d: "
	       "%d blocks/SM\n",
	       name, fa.numRegs, fa.sharedSizeBytes, dyn, fa.localSizeBytes, block, active);
	printf("GT kernel %s %d\n", name, reps);
	printf("GT config %s %d %d %d %zu %zu\n", name, grid, block, fa.numRegs, fa.sharedSizeBytes,
	       dyn);
	printf("GT occupancy %s %d\n", name, active);
}

int main(int argc, char **argv)
{
	const int reps = arg_int(argc, argv, "--reps", 20);
	const int n = 1 << 20;
	float *x, *y;
	cudaDeviceProp p;

	CK(cudaSetDevice(0));
	CK(cudaGetDeviceProperties(&p, 0));
	CK(cudaMalloc(&x, n * sizeof(float)));
	CK(cudaMalloc(&y, n * sizeof(float)));
	CK(cudaMemset(x, 0, n * sizeof(float)));
	printf("occupancy: %s, cc %d.%d, %d SMs\n", p.name, p.major, p.minor, p.multiProcessorCount);
	double t0 = now_ms();
	run("k_default", k_default, 1024, 256, 0, x, y, n, reps);
	run("k_bounded", k_bounded, 1024, 256, 0, x, y, n, reps);
	run("k_static_smem", k_static_smem, 1024, 512, 0, x, y, n, reps);
	run("k_dynamic_smem", k_dynamic_smem, 1024, 256, 64 * 1024, x, y, n, reps);
	run("k_dynamic_small", k_dynamic_small, 2048, 128, 8 * 1024, x, y, n, reps);
	double t1 = now_ms();
	printf("GT memset 1\n");
	printf("GT loop_ms %.3f\n", t1 - t0);
	return 0;
}
