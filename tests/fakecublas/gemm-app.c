/* SPDX-License-Identifier: MIT */
/*
 * gemm-app - a program linked against libcublas.so.13 and libcublasLt.so.13
 * (the fakes in tests) on the fake CUDA stack, for the GEMM interposition
 * tests. Inside an NVTX range "step" it calls, on one stream:
 *   cublasGemmEx       bf16 N,T 1024x512x256, bf16 out, three times
 *   cublasGemmEx       bf16 N,N 4096x4096x1024, float out
 *   cublasGemmStridedBatchedEx  fp16 T,N 128x128x64, 16 batches (runs through cublasLtMatmul)
 *   cublasSgemm_v2     512x512x512
 *   cublasHgemm        256x256x256
 *   cublasLtMatmul     bf16 T,N 2048x1024x768, 2 batches, bf16 out
 *   cublasGemmEx       m = -1 (refused: CUBLAS_STATUS_INVALID_VALUE)
 * Kernels run at 400 TFLOP/s (fake-cublas.h). Prints each status and
 * "calls N" (the calls that succeeded).
 *
 * With "fork", a child forked after the rounds makes one round of its own
 * (printing "child calls N").
 *
 * usage: gemm-app [ROUNDS [fork]]
 */
#include "base/compat.h"
#include "tests/fakecuda/sim.h"

#include <cublasLt.h>
#include <cublas_api.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define STREAM 7

/* C++-only in cublas_api.h (__half). */
cublasStatus_t cublasHgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
			   int n, int k, const void *alpha, const void *A, int lda, const void *B,
			   int ldb, const void *beta, void *C, int ldc);

/* The fake cuBLAS launches its kernels through here (exported: -rdynamic). */
void fakecublas_launch(const char *name, uint64_t ns);
void fakecublas_launch(const char *name, uint64_t ns)
{
	struct sim_kernel k = {name, {132, 1, 1}, {256, 1, 1}, 128, 0, 65536, ns};
	sim_launch_kernel(0, 1, STREAM, &k);
}

static int calls;

static void report(const char *what, cublasStatus_t r)
{
	printf("%s %d\n", what, (int)r);
	calls += r == CUBLAS_STATUS_SUCCESS;
}

static void lt_matmul(cublasLtHandle_t lt)
{
	cublasLtMatmulDesc_t d;
	cublasLtMatrixLayout_t la, lb, ld;
	int32_t t = CUBLAS_OP_T, batch = 2;
	int64_t s[3] = {768 * 2048, 768 * 1024, 2048 * 1024};
	float one = 1, zero = 0;

	cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t));
	cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, 768, 2048, 768);
	cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, 768, 1024, 768);
	cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, 2048, 1024, 2048);
	cublasLtMatrixLayout_t all[3] = {la, lb, ld};
	for (int i = 0; i < 3; i++) {
		cublasLtMatrixLayoutSetAttribute(all[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
						 sizeof(batch));
		cublasLtMatrixLayoutSetAttribute(all[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
						 &s[i], sizeof(s[i]));
	}
	report("cublasLtMatmul", cublasLtMatmul(lt, d, &one, NULL, la, NULL, lb, &zero, NULL, ld,
						NULL, ld, NULL, NULL, 0, NULL));
	cublasLtMatrixLayoutDestroy(la);
	cublasLtMatrixLayoutDestroy(lb);
	cublasLtMatrixLayoutDestroy(ld);
	cublasLtMatmulDescDestroy(d);
}

static void round_of_gemms(cublasHandle_t h, cublasLtHandle_t lt)
{
	float one = 1, zero = 0;
	const cublasComputeType_t c32 = CUBLAS_COMPUTE_32F;

	for (int i = 0; i < 3; i++) {
		report("cublasGemmEx", cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, 1024, 512, 256,
						    &one, NULL, CUDA_R_16BF, 1024, NULL,
						    CUDA_R_16BF, 512, &zero, NULL, CUDA_R_16BF,
						    1024, c32, CUBLAS_GEMM_DEFAULT));
	}
	report("cublasGemmEx", cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4096, 4096, 1024, &one,
					    NULL, CUDA_R_16BF, 4096, NULL, CUDA_R_16BF, 1024,
					    &zero, NULL, CUDA_R_32F, 4096, c32,
					    CUBLAS_GEMM_DEFAULT));
	report("cublasGemmStridedBatchedEx",
	       cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, 128, 128, 64, &one, NULL,
					  CUDA_R_16F, 64, 8192, NULL, CUDA_R_16F, 64, 8192, &zero,
					  NULL, CUDA_R_16F, 128, 16384, 16, c32,
					  CUBLAS_GEMM_DEFAULT));
	report("cublasSgemm_v2", cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 512, 512, 512, &one,
						NULL, 512, NULL, 512, &zero, NULL, 512));
	report("cublasHgemm", cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 256, 256, 256, &one, NULL,
					  256, NULL, 256, &zero, NULL, 256));
	lt_matmul(lt);
	report("cublasGemmEx", cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 8, 8, &one, NULL,
					    CUDA_R_16BF, 8, NULL, CUDA_R_16BF, 8, &zero, NULL,
					    CUDA_R_16BF, 8, c32, CUBLAS_GEMM_DEFAULT));
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	bool do_fork = argc > 2 && !strcmp(argv[2], "fork");
	cublasHandle_t h;
	cublasLtHandle_t lt;

	sim_init(NULL, 11);
	sim_cuinit();
	sim_context(1, 0);
	sim_stream(STREAM, 1);
	if (cublasCreate_v2(&h) != CUBLAS_STATUS_SUCCESS || cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "gemm-app: no cuBLAS handle\n");
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		nvtxRangePushA("step");
		round_of_gemms(h, lt);
		nvtxRangePop();
	}
	if (do_fork) {
		/* a child right after the parent's calls: it records only its own */
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			calls = 0;
			round_of_gemms(h, lt);
			printf("child calls %d\n", calls);
			exit(0);
		}
		int st = 0;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "gemm-app: child failed\n");
			return 1;
		}
	}
	sim_wait_stream(0, 1, 0);
	cublasLtDestroy(lt);
	cublasDestroy_v2(h);
	printf("calls %d\n", calls);
	return 0;
}
