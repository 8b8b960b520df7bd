/* SPDX-License-Identifier: MIT */
/*
 * fake-cublas.c - a stand-in libcublas.so.13 for the GEMM interposition
 * tests, built against the toolkit's cublas_api.h: handles and the GEMM
 * entry points the recorder wraps. Each checks its arguments as cuBLAS
 * does (negative sizes, leading dimensions too small) and launches one
 * kernel through the program's fake CUDA runtime (fake-cublaslt.c).
 * cublasGemmStridedBatchedEx runs through cublasLtMatmul, as cuBLAS may:
 * the recorder must still write one record for it, not two.
 */
#include "base/compat.h"
#include "tests/fakecublas/fake-cublas.h"

#include <cublasLt.h>
#include <cublas_api.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t *h)
{
	static int one;
	if (!h) {
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	*h = (cublasHandle_t)&one;
	return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t h)
{
	return h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

static cublasStatus_t check(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
			    int n, int k, int lda, int ldb, int ldc)
{
	int ar = ta == CUBLAS_OP_N ? m : k, br = tb == CUBLAS_OP_N ? k : n;

	if (!h) {
		return CUBLAS_STATUS_NOT_INITIALIZED;
	}
	if (m < 0 || n < 0 || k < 0 || lda < (ar > 1 ? ar : 1) || ldb < (br > 1 ? br : 1) ||
	    ldc < (m > 1 ? m : 1)) {
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	return CUBLAS_STATUS_SUCCESS;
}

static const char *tt(cublasOperation_t ta, cublasOperation_t tb)
{
	return ta == CUBLAS_OP_N ? (tb == CUBLAS_OP_N ? "nn" : "nt")
				 : (tb == CUBLAS_OP_N ? "tn" : "tt");
}

static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
			   int n, int k, int lda, int ldb, int ldc)
{
	cublasStatus_t r = check(h, ta, tb, m, n, k, lda, ldb, ldc);
	if (r == CUBLAS_STATUS_SUCCESS) {
		fakecublas_run(tt(ta, tb), 2.0 * m * n * (double)k);
	}
	return r;
}

EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
				   int m, int n, int k, const void *alpha, const void *A,
				   cudaDataType Atype, int lda, const void *B, cudaDataType Btype,
				   int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
				   cublasComputeType_t ct, cublasGemmAlgo_t algo)
{
	(void)alpha, (void)A, (void)Atype, (void)B, (void)Btype, (void)beta, (void)C, (void)Ctype;
	(void)ct, (void)algo;
	return gemm(h, ta, tb, m, n, k, lda, ldb, ldc);
}

EXPORT cublasStatus_t cublasSgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
				     int m, int n, int k, const float *alpha, const float *A,
				     int lda, const float *B, int ldb, const float *beta, float *C,
				     int ldc)
{
	(void)alpha, (void)A, (void)B, (void)beta, (void)C;
	return gemm(h, ta, tb, m, n, k, lda, ldb, ldc);
}

/* cublas_api.h declares it for C++ only (__half): pointers are all C needs. */
EXPORT cublasStatus_t cublasHgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
				  int m, int n, int k, const void *alpha, const void *A, int lda,
				  const void *B, int ldb, const void *beta, void *C, int ldc)
{
	(void)alpha, (void)A, (void)B, (void)beta, (void)C;
	return gemm(h, ta, tb, m, n, k, lda, ldb, ldc);
}

/* Through cuBLASLt: one strided-batched layout per matrix. */
EXPORT cublasStatus_t cublasGemmStridedBatchedEx(
	cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
	const void *alpha, const void *A, cudaDataType Atype, int lda, long long int sA,
	const void *B, cudaDataType Btype, int ldb, long long int sB, const void *beta, void *C,
	cudaDataType Ctype, int ldc, long long int sC, int batch, cublasComputeType_t ct,
	cublasGemmAlgo_t algo)
{
	cublasStatus_t r = check(h, ta, tb, m, n, k, lda, ldb, ldc);
	cublasLtHandle_t lt;
	cublasLtMatmulDesc_t d;
	cublasLtMatrixLayout_t la, lb, lc;
	int32_t t[2] = {ta, tb};
	long long s[3] = {sA, sB, sC};

	(void)algo;
	if (r != CUBLAS_STATUS_SUCCESS || batch < 0) {
		return r != CUBLAS_STATUS_SUCCESS ? r : CUBLAS_STATUS_INVALID_VALUE;
	}
	cublasLtCreate(&lt);
	cublasLtMatmulDescCreate(&d, ct, CUDA_R_32F);
	cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t[0], sizeof(t[0]));
	cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &t[1], sizeof(t[1]));
	cublasLtMatrixLayoutCreate(&la, Atype, ta == CUBLAS_OP_N ? m : k,
				   ta == CUBLAS_OP_N ? k : m, lda);
	cublasLtMatrixLayoutCreate(&lb, Btype, tb == CUBLAS_OP_N ? k : n,
				   tb == CUBLAS_OP_N ? n : k, ldb);
	cublasLtMatrixLayoutCreate(&lc, Ctype, m, n, ldc);
	cublasLtMatrixLayout_t all[3] = {la, lb, lc};
	for (int i = 0; i < 3; i++) {
		int64_t st = s[i];
		cublasLtMatrixLayoutSetAttribute(all[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
						 sizeof(batch));
		cublasLtMatrixLayoutSetAttribute(all[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
						 &st, sizeof(st));
	}
	r = cublasLtMatmul(lt, d, alpha, A, la, B, lb, beta, C, lc, C, lc, NULL, NULL, 0, NULL);
	cublasLtMatrixLayoutDestroy(la);
	cublasLtMatrixLayoutDestroy(lb);
	cublasLtMatrixLayoutDestroy(lc);
	cublasLtMatmulDescDestroy(d);
	cublasLtDestroy(lt);
	return r;
}
