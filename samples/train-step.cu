// SPDX-License-Identifier: MIT
// train-step - a multi-stream "training step": a pinned host-to-device
// batch copy on a copy stream the compute stream waits for (an event),
// cuBLAS GEMMs and elementwise kernels on the compute stream, a pageable
// device-to-host copy of the loss, deliberate host synchronizations, and a
// CPU stall inside an NVTX range. Prints its ground truth (common.h).
//
// usage: train-step [--steps N] [--dim D] [--stall-ms MS]
#include <cstring>
#include <cublas_v2.h>
#include <unistd.h>
#include <vector>

#include "common.h"

#define CB(call)                                                                                   \
	do {                                                                                       \
		cublasStatus_t s_ = (call);                                                        \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
			fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__,       \
				#call, (int)s_);                                                   \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

__global__ void relu_fwd(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n && x[i] < 0) {
		x[i] = 0;
	}
}

__global__ void sgd_update(float *w, const float *g, float lr, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		w[i] -= lr * g[i];
	}
}

__global__ void loss_reduce(const float *x, float *out, int n)
{
	__shared__ float part[256];
	float s = 0;
	for (int i = threadIdx.x; i < n; i += blockDim.x) {
		s += x[i];
	}
	part[threadIdx.x] = s;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k /= 2) {
		if (threadIdx.x < k) {
			part[threadIdx.x] += part[threadIdx.x + k];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		*out = part[0];
	}
}

int main(int argc, char **argv)
{
	const int steps = arg_int(argc, argv, "--steps", 200);
	const int d = arg_int(argc, argv, "--dim", 2048);
	const int stall_ms = arg_int(argc, argv, "--stall-ms", 2);
	const int layers = 4;
	const size_t mat = (size_t)d * d;
	const size_t batch_bytes = mat * sizeof(float);
	float *pinned, *w[layers], *g[layers], *act[layers + 1], *loss;
	std::vector<float> host_loss(1);
	cudaStream_t compute, copy;
	cudaEvent_t batch_ready;
	cublasHandle_t h;
	const float one = 1.0f, zero = 0.0f;

	CK(cudaSetDevice(0));
	CK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
	CK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
	CK(cudaEventCreateWithFlags(&batch_ready, cudaEventDisableTiming));
	CK(cudaMallocHost(&pinned, batch_bytes));
	for (size_t i = 0; i < mat; i++) {
		pinned[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
	}
	for (int l = 0; l < layers; l++) {
		CK(cudaMalloc(&w[l], batch_bytes));
		CK(cudaMalloc(&g[l], batch_bytes));
		CK(cudaMemsetAsync(w[l], 0, batch_bytes, compute));
		CK(cudaMemsetAsync(g[l], 0, batch_bytes, compute));
	}
	for (int l = 0; l <= layers; l++) {
		CK(cudaMalloc(&act[l], batch_bytes));
	}
	CK(cudaMalloc(&loss, sizeof(float)));
	CB(cublasCreate(&h));
	CB(cublasSetStream(h, compute));
	CK(cudaDeviceSynchronize());

	const int threads = 256, blocks = (int)((mat + threads - 1) / threads);
	int gemms = 0, relus = 0, sgds = 0, reduces = 0, stream_syncs = 0;
	double t0 = now_ms();
	for (int s = 0; s < steps; s++) {
		char name[32];
		snprintf(name, sizeof(name), "step");
		NvtxRange step(name);
		{
			NvtxRange r("h2d_batch");
			CK(cudaMemcpyAsync(act[0], pinned, batch_bytes, cudaMemcpyHostToDevice, copy));
			CK(cudaEventRecord(batch_ready, copy));
			CK(cudaStreamWaitEvent(compute, batch_ready, 0));
		}
		{
			NvtxRange r("forward");
			for (int l = 0; l < layers; l++) {
				CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, d, d, d, &one, w[l], d, act[l], d,
					       &zero, act[l + 1], d));
				gemms++;
				relu_fwd<<<blocks, threads, 0, compute>>>(act[l + 1], (int)mat);
				relus++;
			}
		}
		{
			NvtxRange r("backward");
			for (int l = layers - 1; l >= 0; l--) {
				CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, d, d, d, &one, act[l + 1], d,
					       act[l], d, &zero, g[l], d));
				gemms++;
			}
		}
		{
			NvtxRange r("optimizer");
			for (int l = 0; l < layers; l++) {
				sgd_update<<<blocks, threads, 0, compute>>>(w[l], g[l], 1e-6f, (int)mat);
				sgds++;
			}
		}
		loss_reduce<<<1, 256, 0, compute>>>(act[layers], loss, (int)mat);
		reduces++;
		/* loss.item(): pageable copy, then a deliberate host synchronization */
		CK(cudaMemcpyAsync(host_loss.data(), loss, sizeof(float), cudaMemcpyDeviceToHost,
				   compute));
		CK(cudaStreamSynchronize(compute));
		stream_syncs++;
		{
			NvtxRange r("cpu_stall"); /* the host does something slow while the GPU idles */
			usleep((useconds_t)stall_ms * 1000);
		}
	}
	CK(cudaDeviceSynchronize());
	double t1 = now_ms();
	CB(cublasDestroy(h));
	printf("train-step: %d steps, %d GEMMs of %dx%d, loss %g\n", steps, gemms, d, d,
	       (double)host_loss[0]);
	printf("GT kernel relu_fwd %d\n", relus);
	printf("GT kernel sgd_update %d\n", sgds);
	printf("GT kernel loss_reduce %d\n", reduces);
	printf("GT kernels_min %d\n", relus + sgds + reduces + gemms);
	printf("GT memcpy %d %zu\n", 2 * steps, (size_t)steps * (batch_bytes + sizeof(float)));
	printf("GT memset_min %d\n", 2 * layers); /* cuBLAS may add its own */
	printf("GT nvtx step %d\n", steps);
	printf("GT nvtx cpu_stall %d\n", steps);
	printf("GT api cudaStreamSynchronize %d\n", stream_syncs);
	printf("GT api cudaStreamWaitEvent %d\n", steps);
	printf("GT loop_ms %.3f\n", t1 - t0);
	return 0;
}
