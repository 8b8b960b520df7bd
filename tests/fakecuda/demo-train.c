/* SPDX-License-Identifier: MIT */
/*
 * demo-train - a training loop played on the fake CUDA stack for `make
 * demo`: per step an NVTX ProfilerStep#N range, a data loader that is
 * slow every fifth step, a pinned host-to-device batch copy on a copy
 * stream with a host synchronization, forward and backward GEMMs,
 * attention and elementwise kernels on the compute stream, an optimizer
 * step, and loss.item() (a pageable device-to-host copy that waits for the
 * GPU). GPU time is simulated: kernels queue on their stream's timeline and
 * host synchronizations really wait for it. No GPU is used.
 *
 * usage: demo-train [STEPS]
 */
#include "base/compat.h"
#include "tests/fakecuda/sim.h"

#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <time.h>

#define COMPUTE 7
#define COPY 13

static void sleep_us(unsigned us)
{
	struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000L};
	nanosleep(&ts, NULL);
}

static const struct sim_kernel gemm_fwd = {
	"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
	"segment_k_off_kernel__5x_cublas",
	{264, 1, 1},
	{384, 1, 1},
	168,
	0,
	98304,
	180000};
static const struct sim_kernel gemm_bwd = {
	"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
	"segment_k_off_kernel__5x_cublas",
	{132, 2, 1},
	{384, 1, 1},
	168,
	0,
	196608,
	310000};
static const struct sim_kernel attn_fwd = {
	"_ZN5flash29flash_fwd_kernel_bf16_hdim128ILi4ELb0EEEvNS_16Flash_fwd_paramsE",
	{1024, 1, 1},
	{128, 1, 1},
	255,
	0,
	65536,
	260000};
static const struct sim_kernel attn_bwd = {
	"_ZN5flash29flash_bwd_kernel_bf16_hdim128ILi4ELb0EEEvNS_16Flash_bwd_paramsE",
	{1024, 1, 1},
	{256, 1, 1},
	255,
	0,
	98304,
	480000};
static const struct sim_kernel layer_norm = {"_Z21layer_norm_fwd_kernelILi1024EEvPKfS1_S1_Pfi",
					     {8192, 1, 1},
					     {256, 1, 1},
					     36,
					     8192,
					     0,
					     26000};
static const struct sim_kernel add = {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_"
				      "15CUDAFunctor_addIfEESt5arrayIPcLm3EEEEviT0_T1_",
				      {4096, 1, 1},
				      {128, 1, 1},
				      26,
				      0,
				      0,
				      12500};
static const struct sim_kernel gelu = {
	"triton_poi_fused_gelu_mul_0", {2048, 1, 1}, {128, 1, 1}, 24, 0, 0, 9000};
static const struct sim_kernel adam = {
	"_Z25multi_tensor_apply_kernelI18TensorListMetadataILi4EE11AdamFunctorIfEJfffffiEEvmPViT_"
	"T0_DpT1_",
	{320, 1, 1},
	{512, 1, 1},
	64,
	0,
	0,
	95000};

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 20;
	bool gpu;

	sim_init(NULL, 42);
	sim_cuinit();
	gpu = sim_cupti_active();
	sim_context(1, 0);
	sim_stream(COMPUTE, 1);
	sim_stream(COPY, 1);
	nvtxNameOsThreadA(sim_gettid(), "train-main");
	for (int s = 0; s < steps; s++) {
		char name[64];
		snprintf(name, sizeof(name), "ProfilerStep#%d", s);
		nvtxRangePushA(name);

		nvtxRangePushA("data_loader");
		sleep_us(s % 5 == 4 ? 40000 : 3000); /* every fifth batch is slow to load */
		nvtxRangePop();

		nvtxRangePushA("h2d_batch");
		sim_copy_timed(0, 1, COPY, 1 /* HtoD */, 2 /* pinned */, 3 /* device */, 64 << 20,
			       25.0, true);
		sim_wait_stream(0, 1, COPY); /* a deliberate host synchronization */
		nvtxRangePop();

		nvtxRangePushA("forward");
		for (int l = 0; l < 4; l++) {
			sim_launch_kernel(0, 1, COMPUTE, &layer_norm);
			sim_launch_kernel(0, 1, COMPUTE, &gemm_fwd);
			sim_launch_kernel(0, 1, COMPUTE, &attn_fwd);
			sim_launch_kernel(0, 1, COMPUTE, &add);
			sim_launch_kernel(0, 1, COMPUTE, &gemm_fwd);
			sim_launch_kernel(0, 1, COMPUTE, &gelu);
			sleep_us(150); /* Python between layers */
		}
		nvtxRangePop();

		nvtxRangePushA("backward");
		for (int l = 0; l < 4; l++) {
			sim_launch_kernel(0, 1, COMPUTE, &gelu);
			sim_launch_kernel(0, 1, COMPUTE, &gemm_bwd);
			sim_launch_kernel(0, 1, COMPUTE, &gemm_bwd);
			sim_launch_kernel(0, 1, COMPUTE, &attn_bwd);
			sim_launch_kernel(0, 1, COMPUTE, &add);
			sim_launch_kernel(0, 1, COMPUTE, &layer_norm);
			sleep_us(200);
		}
		nvtxRangePop();

		nvtxRangePushA("optimizer");
		for (int k = 0; k < 4; k++) {
			sim_launch_kernel(0, 1, COMPUTE, &adam);
		}
		nvtxRangePop();

		/* loss.item(): a synchronous pageable copy that waits for the whole step */
		sim_copy_timed(0, 1, COMPUTE, 2 /* DtoH */, 3 /* device */, 1 /* pageable */, 4,
			       1.0, false);
		nvtxRangePop();
	}
	sim_wait_stream(0, 1, 0);
	printf("demo-train: %d training steps on a simulated GPU (fake CUDA driver%s; no GPU "
	       "used)\n",
	       steps, gpu ? " and CUPTI" : ", untraced");
	return 0;
}
