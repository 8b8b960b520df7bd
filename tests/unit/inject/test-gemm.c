/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for inject/gemm.c: the signature text of each kind of call
 * (read back by the analyzer's GEMM model), the gemm kind word, and the
 * interposers failing open when no cuBLAS follows them (this binary links
 * none): they return CUBLAS_STATUS_NOT_INITIALIZED and queue nothing.
 */
#include "base/compat.h"
#include "inject/inject.h"
#include "tests/unit/test.h"

#include <cublasLt.h>
#include <cublas_api.h>

TEST(gemm_signature_ex)
{
	struct gpi_gemm_ev e = {
		.func = GPI_GEMM_EX, .transa = CUBLAS_OP_N, .transb = CUBLAS_OP_T,
		.atype = CUDA_R_16BF, .btype = CUDA_R_16BF, .ctype = CUDA_R_32F,
		.compute = CUBLAS_COMPUTE_32F_FAST_TF32, .m = 1024, .n = 512, .k = 256, .batch = 1,
		.lda = 1024, .ldb = 512, .ldc = 1024,
	};
	char buf[512];

	gpi_gemm_signature(&e, buf, sizeof(buf));
	CHECK_STR(buf, "D=[[1024,256],[256,512],[1024,512],[],[],[]] "
		       "T=[\"c10::BFloat16\",\"c10::BFloat16\",\"float\",\"str\",\"str\",\"str\"] "
		       "S=[[1,1024],[512,1],[1,1024],[],[],[]] "
		       "C=[\"\",\"\",\"\",\"N\",\"T\",\"32F_FAST_TF32\"]");
	CHECK_STR(gpi_gemm_name(GPI_GEMM_EX), "cublasGemmEx");
}

TEST(gemm_signature_batched_row_major_and_unknown_types)
{
	struct gpi_gemm_ev e = {
		.func = GPI_GEMM_LT_MATMUL, .transa = CUBLAS_OP_T, .transb = CUBLAS_OP_N,
		.atype = CUDA_R_8F_E4M3, .btype = CUDA_C_32F, .ctype = CUDA_R_16F, .compute = 12345,
		.m = 8, .n = 4, .k = 2, .batch = 3, .lda = 8, .ldb = 2, .ldc = 4,
		.order_a = 1, .order_b = 0, .order_c = 1, .stride_a = 16, .stride_b = 8,
		.stride_c = 32,
	};
	char buf[512];

	gpi_gemm_signature(&e, buf, sizeof(buf));
	/* op(A) = A^T of a row-major A: column stride ld; complex keeps its CUDA name */
	CHECK_STR(buf, "D=[[3,8,2],[3,2,4],[3,8,4],[],[],[]] "
		       "T=[\"c10::Float8_e4m3fn\",\"cudaDataType(4)\",\"c10::Half\",\"str\",\"str\",\"str\"] "
		       "S=[[16,1,8],[8,1,2],[32,4,1],[],[],[]] "
		       "C=[\"\",\"\",\"\",\"T\",\"N\",\"12345\"]");
	/* a blocked order: no strides at all */
	e.order_b = -1;
	gpi_gemm_signature(&e, buf, sizeof(buf));
	CHECK(!strstr(buf, "S="));
	/* cut to fit, always terminated */
	size_t n = gpi_gemm_signature(&e, buf, 20);
	CHECK_EQ_U(n, 19);
	CHECK_EQ_U(strlen(buf), 19);
}

TEST(gemm_kind_word)
{
	uint32_t k = 0;

	CHECK_EQ_I(gpi_parse_kinds("-gemm", &k), 0);
	CHECK_EQ_U(k, GPI_K_ALL & ~GPI_K_GEMM);
	CHECK_EQ_I(gpi_parse_kinds("kernel,gemm", &k), 0);
	CHECK_EQ_U(k, GPI_K_KERNEL | GPI_K_GEMM);
}

TEST(gemm_interposers_fail_open_without_cublas)
{
	float one = 1;
	cublasLtMatmulDescOpaque_t d;
	cublasLtMatrixLayoutOpaque_t l;

	CHECK_EQ_I(cublasGemmEx(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, NULL, CUDA_R_32F, 4,
				NULL, CUDA_R_32F, 4, &one, NULL, CUDA_R_32F, 4, CUBLAS_COMPUTE_32F,
				CUBLAS_GEMM_DEFAULT),
		   CUBLAS_STATUS_NOT_INITIALIZED);
	CHECK_EQ_I(cublasSgemm_v2(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, NULL, 4, NULL, 4,
				  &one, NULL, 4),
		   CUBLAS_STATUS_NOT_INITIALIZED);
	CHECK_EQ_I(cublasGemmStridedBatchedEx(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, NULL,
					      CUDA_R_32F, 4, 16, NULL, CUDA_R_32F, 4, 16, &one,
					      NULL, CUDA_R_32F, 4, 16, 2, CUBLAS_COMPUTE_32F,
					      CUBLAS_GEMM_DEFAULT),
		   CUBLAS_STATUS_NOT_INITIALIZED);
	CHECK_EQ_I(cublasLtMatmul(NULL, &d, &one, NULL, &l, NULL, &l, &one, NULL, &l, NULL, &l,
				  NULL, NULL, 0, NULL),
		   CUBLAS_STATUS_NOT_INITIALIZED);
	CHECK(!gpi_gemm_has_data());
	CHECK_EQ_U(gpi_gemm_take_dropped(), 0);
}
