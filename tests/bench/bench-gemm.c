/* SPDX-License-Identifier: MIT */
/*
 * bench-gemm - what recording GEMM shapes adds to one cuBLAS call
 * (docs/performance.md): cublasGemmEx and cublasLtMatmul through the fake
 * libcublas/libcublasLt (which check their arguments and launch nothing
 * here: this program has no fakecublas_launch), on the fake CUDA stack so
 * that an injected library has a running trace. Rounds of 1024 calls, each
 * followed by a 25 ms pause (not counted) in which the writer drains the
 * queue; prints the median over rounds of ns per call, for each entry point.
 * Run untraced, traced with GPUPROF_KINDS=all,-gemm and traced
 * (tests/bench/bench-gemm.sh).
 *
 * usage: bench-gemm [ROUNDS]
 */
#include "base/compat.h"
#include "tests/fakecuda/sim.h"

#include <cublasLt.h>
#include <cublas_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PER_ROUND 1024

static uint64_t ns_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void pause_ms(unsigned ms)
{
	struct timespec ts = {0, (long)ms * 1000000L};
	nanosleep(&ts, NULL);
}

struct lt {
	cublasLtHandle_t h;
	cublasLtMatmulDesc_t d;
	cublasLtMatrixLayout_t a, b, c;
};

static int one_round(int which, cublasHandle_t h, struct lt *lt)
{
	float one = 1, zero = 0;
	int bad = 0;

	for (int i = 0; i < PER_ROUND; i++) {
		cublasStatus_t r;
		if (which == 0) {
			r = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, 1024, 512, 256, &one, NULL,
					 CUDA_R_16BF, 1024, NULL, CUDA_R_16BF, 512, &zero, NULL,
					 CUDA_R_16BF, 1024, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
		} else {
			r = cublasLtMatmul(lt->h, lt->d, &one, NULL, lt->a, NULL, lt->b, &zero, NULL,
					   lt->c, NULL, lt->c, NULL, NULL, 0, NULL);
		}
		bad += r != CUBLAS_STATUS_SUCCESS;
	}
	return bad;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	static const char *const names[2] = {"cublasGemmEx", "cublasLtMatmul"};
	cublasHandle_t h;
	struct lt lt;
	double *v;

	if (rounds < 1 || !(v = calloc((size_t)rounds, sizeof(*v)))) {
		return 2;
	}
	sim_init(NULL, 3);
	sim_cuinit();
	if (cublasCreate_v2(&h) || cublasLtCreate(&lt.h) ||
	    cublasLtMatmulDescCreate(&lt.d, CUBLAS_COMPUTE_32F, CUDA_R_32F) ||
	    cublasLtMatrixLayoutCreate(&lt.a, CUDA_R_16BF, 2048, 768, 2048) ||
	    cublasLtMatrixLayoutCreate(&lt.b, CUDA_R_16BF, 768, 1024, 768) ||
	    cublasLtMatrixLayoutCreate(&lt.c, CUDA_R_16BF, 2048, 1024, 2048)) {
		fprintf(stderr, "bench-gemm: cuBLAS set-up failed\n");
		return 1;
	}
	for (int which = 0; which < 2; which++) {
		if (one_round(which, h, &lt)) { /* warm-up: resolves the targets */
			fprintf(stderr, "bench-gemm: %s failed\n", names[which]);
			return 1;
		}
		pause_ms(25);
		for (int r = 0; r < rounds; r++) {
			uint64_t t0 = ns_now();
			one_round(which, h, &lt);
			v[r] = (double)(ns_now() - t0) / PER_ROUND;
			pause_ms(25);
		}
		qsort(v, (size_t)rounds, sizeof(*v), cmp_d);
		printf("%s %.1f ns per call (median of %d rounds of %d; min %.1f, max %.1f)\n",
		       names[which], v[rounds / 2], rounds, PER_ROUND, v[0], v[rounds - 1]);
	}
	printf("calls %d\n", 2 * (rounds + 1) * PER_ROUND);
	free(v);
	return 0;
}
