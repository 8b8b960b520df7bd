/* SPDX-License-Identifier: MIT */
/*
 * fake-cublaslt.c - a stand-in libcublasLt.so.13 for the GEMM interposition
 * tests, built against the toolkit's cublasLt.h: handles, matmul
 * descriptors and matrix layouts with the attributes the recorder reads,
 * and cublasLtMatmul, which checks its shapes as the real library does and
 * "launches" one kernel through the program's fake CUDA runtime: it calls
 * fakecublas_launch(name, ns) in the program (found with dlsym; a program
 * without one launches nothing). The kernel runs for 2·m·n·k·batch / 400
 * TFLOP/s, so a test knows each GEMM's FLOPs and time. No GPU.
 */
#include "base/compat.h"
#include "tests/fakecublas/fake-cublas.h"

#include <cublasLt.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

struct desc {
	int32_t compute, scale, transa, transb, epilogue;
};

struct layout {
	uint32_t type;
	int32_t order, batch;
	uint64_t rows, cols;
	int64_t ld, stride;
};

/* The descriptors live in the opaque storage cuBLASLt gives them (as large as ours or larger). */
_Static_assert(sizeof(struct desc) <= sizeof(cublasLtMatmulDescOpaque_t), "desc");
_Static_assert(sizeof(struct layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout");

void fakecublas_run(const char *what, double flops)
{
	/* CUPTI keeps a kernel's name pointer: the names live as long as the process */
	static const char *const names[4] = {
		"sm90_xmma_gemm_nn_tilesize128x128x64_fake_cublas",
		"sm90_xmma_gemm_nt_tilesize128x128x64_fake_cublas",
		"sm90_xmma_gemm_tn_tilesize128x128x64_fake_cublas",
		"sm90_xmma_gemm_tt_tilesize128x128x64_fake_cublas",
	};
	static void (*launch)(const char *, uint64_t);
	static int looked;

	if (!looked) {
		*(void **)&launch = dlsym(RTLD_DEFAULT, "fakecublas_launch");
		looked = 1;
	}
	if (launch) {
		launch(names[(what[0] == 't') * 2 + (what[1] == 't')],
		       (uint64_t)(flops / FAKECUBLAS_FLOP_PER_NS));
	}
}

EXPORT cublasStatus_t cublasLtCreate(cublasLtHandle_t *h)
{
	static int one;
	if (!h) {
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	*h = (cublasLtHandle_t)&one;
	return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtDestroy(cublasLtHandle_t h)
{
	return h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

EXPORT cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d, cublasComputeType_t ct,
					       cudaDataType_t scale)
{
	struct desc *x = calloc(1, sizeof(cublasLtMatmulDescOpaque_t));
	if (!d || !x) {
		free(x);
		return CUBLAS_STATUS_ALLOC_FAILED;
	}
	x->compute = ct;
	x->scale = scale;
	*d = (cublasLtMatmulDesc_t)x;
	return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d)
{
	free(d);
	return CUBLAS_STATUS_SUCCESS;
}

static int32_t *desc_field(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a)
{
	struct desc *x = (struct desc *)d;
	switch (a) {
	case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: return &x->compute;
	case CUBLASLT_MATMUL_DESC_SCALE_TYPE: return &x->scale;
	case CUBLASLT_MATMUL_DESC_TRANSA: return &x->transa;
	case CUBLASLT_MATMUL_DESC_TRANSB: return &x->transb;
	case CUBLASLT_MATMUL_DESC_EPILOGUE: return &x->epilogue;
	default: return NULL;
	}
}

EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d,
						     cublasLtMatmulDescAttributes_t a,
						     const void *buf, size_t size)
{
	int32_t *f = d ? desc_field(d, a) : NULL;
	if (!f || !buf || size != sizeof(*f) || a == CUBLASLT_MATMUL_DESC_COMPUTE_TYPE) {
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	memcpy(f, buf, size);
	return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t d,
						     cublasLtMatmulDescAttributes_t a, void *buf,
						     size_t size, size_t *written)
{
	int32_t *f = d ? desc_field(d, a) : NULL;
	if (!f) {
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	if (written) {
		*written = sizeof(*f);
	}
	if (!buf || size != sizeof(*f)) {
		return size || !written ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_SUCCESS;
	}
	memcpy(buf, f, size);
	return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, cudaDataType type,
						 uint64_t rows, uint64_t cols, int64_t ld)
{
	struct layout *x = calloc(1, sizeof(cublasLtMatrixLayoutOpaque_t));
	if (!l || !x) {
		free(x);
		return CUBLAS_STATUS_ALLOC_FAILED;
	}
	*x = (struct layout){.type = (uint32_t)type, .batch = 1, .rows = rows, .cols = cols, .ld = ld};
	*l = (cublasLtMatrixLayout_t)x;
	return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l)
{
	free(l);
	return CUBLAS_STATUS_SUCCESS;
}

static void *layout_field(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t a, size_t *sz)
{
	struct layout *x = (struct layout *)l;
	switch (a) {
	case CUBLASLT_MATRIX_LAYOUT_TYPE: *sz = 4; return &x->type;
	case CUBLASLT_MATRIX_LAYOUT_ORDER: *sz = 4; return &x->order;
	case CUBLASLT_MATRIX_LAYOUT_ROWS: *sz = 8; return &x->rows;
	case CUBLASLT_MATRIX_LAYOUT_COLS: *sz = 8; return &x->cols;
	case CUBLASLT_MATRIX_LAYOUT_LD: *sz = 8; return &x->ld;
	case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: *sz = 4; return &x->batch;
	case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: *sz = 8; return &x->stride;
	default: return NULL;
	}
}

EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l,
						       cublasLtMatrixLayoutAttribute_t a,
						       const void *buf, size_t size)
{
	size_t sz = 0;
	void *f = l ? layout_field(l, a, &sz) : NULL;
	if (!f || !buf || size != sz) {
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	memcpy(f, buf, size);
	return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t l,
						       cublasLtMatrixLayoutAttribute_t a, void *buf,
						       size_t size, size_t *written)
{
	size_t sz = 0;
	void *f = l ? layout_field(l, a, &sz) : NULL;
	if (!f) {
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	if (written) {
		*written = sz;
	}
	if (!buf || size != sz) {
		return size || !written ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_SUCCESS;
	}
	memcpy(buf, f, size);
	return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t d,
				     const void *alpha, const void *A, cublasLtMatrixLayout_t Ad,
				     const void *B, cublasLtMatrixLayout_t Bd, const void *beta,
				     const void *C, cublasLtMatrixLayout_t Cd, void *D,
				     cublasLtMatrixLayout_t Dd, const cublasLtMatmulAlgo_t *algo,
				     void *ws, size_t wss, cudaStream_t stream)
{
	(void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)D, (void)algo, (void)ws;
	(void)wss, (void)stream;
	if (!h) {
		return CUBLAS_STATUS_NOT_INITIALIZED;
	}
	if (!d || !Ad || !Bd || !Cd) {
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	const struct desc *x = (const void *)d;
	const struct layout *a = (const void *)Ad, *b = (const void *)Bd;
	const struct layout *o = (const void *)(Dd ? Dd : Cd);
	uint64_t m = o->rows, n = o->cols;
	uint64_t am = x->transa == CUBLAS_OP_N ? a->rows : a->cols;
	uint64_t k = x->transa == CUBLAS_OP_N ? a->cols : a->rows;
	uint64_t bk = x->transb == CUBLAS_OP_N ? b->rows : b->cols;
	uint64_t bn = x->transb == CUBLAS_OP_N ? b->cols : b->rows;
	if (am != m || bk != k || bn != n || a->batch != o->batch || b->batch != o->batch) {
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	fakecublas_run(x->transa == CUBLAS_OP_N ? (x->transb == CUBLAS_OP_N ? "nn" : "nt")
						: (x->transb == CUBLAS_OP_N ? "tn" : "tt"),
		       2.0 * (double)m * (double)n * (double)k * (double)o->batch);
	return CUBLAS_STATUS_SUCCESS;
}
