/* SPDX-License-Identifier: MIT */
/*
 * fake-cublas.h - what the fake libcublas.so.13 and libcublasLt.so.13 share
 * (tests/fakecublas/).
 */
#ifndef FAKE_CUBLAS_H
#define FAKE_CUBLAS_H

/* The simulated GPU's GEMM rate: 400 TFLOP/s. */
#define FAKECUBLAS_FLOP_PER_NS 400000.0

/* Launches one kernel named after `what` lasting flops / the rate (libcublasLt exports it). */
void fakecublas_run(const char *what, double flops);

#endif
