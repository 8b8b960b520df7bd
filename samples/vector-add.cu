// SPDX-License-Identifier: MIT
// vector-add - the smallest traced program: copies in, a kernel per
// iteration inside an NVTX range, a memset, copies out; prints its ground
// truth (common.h).
//
// usage: vector-add [--n ELEMENTS] [--iters N]
#include <cstring>
#include <vector>

#include "common.h"

__global__ void vec_add(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		c[i] = a[i] + b[i];
	}
}

int main(int argc, char **argv)
{
	const int n = arg_int(argc, argv, "--n", 1 << 20);
	const int iters = arg_int(argc, argv, "--iters", 50);
	const size_t bytes = (size_t)n * sizeof(float);
	std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n);
	float *da, *db, *dc;

	CK(cudaSetDevice(0));
	{
		NvtxRange r("setup");
		CK(cudaMalloc(&da, bytes));
		CK(cudaMalloc(&db, bytes));
		CK(cudaMalloc(&dc, bytes));
		CK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
		CK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
		CK(cudaMemset(dc, 0, bytes));
	}
	double t0 = now_ms();
	for (int i = 0; i < iters; i++) {
		NvtxRange r("iteration");
		vec_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
		CK(cudaGetLastError());
	}
	CK(cudaDeviceSynchronize());
	double t1 = now_ms();
	{
		NvtxRange r("verify");
		CK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
	}
	for (int i = 0; i < n; i++) {
		if (c[i] != 3.0f) {
			fprintf(stderr, "wrong result at %d: %f\n", i, c[i]);
			return 1;
		}
	}
	CK(cudaFree(da));
	CK(cudaFree(db));
	CK(cudaFree(dc));
	printf("vector-add: %d iterations of %d elements ok\n", iters, n);
	printf("GT kernel vec_add %d\n", iters);
	printf("GT kernels_min %d\n", iters);
	printf("GT memcpy 3 %zu\n", 3 * bytes);
	printf("GT memset 1\n");
	printf("GT nvtx iteration %d\n", iters);
	printf("GT nvtx setup 1\n");
	printf("GT nvtx verify 1\n");
	cudaFuncAttributes fa;
	CK(cudaFuncGetAttributes(&fa, vec_add));
	printf("GT config vec_add %d 256 %d %zu 0\n", (n + 255) / 256, fa.numRegs, fa.sharedSizeBytes);
	printf("GT api cudaLaunchKernel %d\n", iters);
	printf("GT loop_ms %.3f\n", t1 - t0);
	return 0;
}
