// SPDX-License-Identifier: MIT
// nccl-allreduce - NCCL on one GPU: a single-rank communicator runs
// AllReduces of several sizes, a Broadcast and an AllGather, each inside an
// NVTX "iteration" range, then prints its ground truth (common.h) including
// "GT nccl FUNC N": N NCCL operations of that function must be recorded
// (through the profiler plugin that gpuprof record names in
// NCCL_PROFILER_PLUGIN).
//
// usage: nccl-allreduce [--iters N]
#include <nccl.h>

#include "common.h"

#define NK(call)                                                                                   \
	do {                                                                                       \
		ncclResult_t r_ = (call);                                                          \
		if (r_ != ncclSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
				ncclGetErrorString(r_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

int main(int argc, char **argv)
{
	const int iters = arg_int(argc, argv, "--iters", 20);
	const size_t max_count = 16u << 20; // floats: 64 MiB
	ncclComm_t comm;
	int dev = 0;
	float *buf, *out;
	cudaStream_t st;

	CK(cudaSetDevice(dev));
	CK(cudaStreamCreate(&st));
	CK(cudaMalloc(&buf, max_count * sizeof(float)));
	CK(cudaMalloc(&out, max_count * sizeof(float)));
	CK(cudaMemset(buf, 0, max_count * sizeof(float)));
	NK(ncclCommInitAll(&comm, 1, &dev));
	CK(cudaDeviceSynchronize());
	double t0 = now_ms();
	for (int i = 0; i < iters; i++) {
		NvtxRange r("iteration");
		size_t count = (size_t)1024 << (2 * (i % 8)); // 4 KiB .. 64 MiB
		if (count > max_count) {
			count = max_count;
		}
		NK(ncclAllReduce(buf, out, count, ncclFloat32, ncclSum, comm, st));
	}
	NK(ncclBroadcast(buf, out, 1 << 20, ncclFloat32, 0, comm, st));
	NK(ncclAllGather(buf, out, 1 << 20, ncclFloat32, comm, st));
	CK(cudaStreamSynchronize(st));
	double t1 = now_ms();
	NK(ncclCommDestroy(comm));
	CK(cudaFree(buf));
	CK(cudaFree(out));
	CK(cudaStreamDestroy(st));
	printf("GT nccl AllReduce %d\n", iters);
	printf("GT nccl Broadcast 1\n");
	printf("GT nccl AllGather 1\n");
	printf("GT nvtx iteration %d\n", iters);
	printf("GT loop_ms %.3f\n", t1 - t0);
	return 0;
}
