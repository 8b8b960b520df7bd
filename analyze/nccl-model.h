/* SPDX-License-Identifier: MIT */
/*
 * nccl-model.h - the NCCL operations of the model (analyze/nccl-model.c):
 * one table for every source (plugin, interposition, Kineto, nsys), linked
 * to their channels and kernels. model.h includes it.
 */
#ifndef GPA_NCCL_MODEL_H
#define GPA_NCCL_MODEL_H

#include <stdint.h>

#include "base/base.h"
#include "trace/trace.h"

struct gpa_model;

/* How an operation's GPU interval is known. */
enum gpa_nccl_gpu_from {
	GPA_NCCL_GPU_NONE = 0,     /* not known: host times only */
	GPA_NCCL_GPU_RECORD = 1,   /* the record's gpu_start/gpu_end */
	GPA_NCCL_GPU_CHANNELS = 2, /* its NCCL_CHANNEL records (plugin) */
	GPA_NCCL_GPU_KERNELS = 3,  /* its kernels, through external correlation */
};

/* One NCCL operation of any source (plugin, interposition, Kineto, nsys). */
struct gpa_nccl_op {
	uint64_t start, end;         /* host side, model timeline */
	uint64_t gpu_start, gpu_end; /* 0 when not known */
	uint64_t bytes, count, comm_hash, seq, ext_id, op_id;
	uint32_t proc;
	uint32_t func, algo, proto, comm_name; /* model string ids */
	uint32_t kernels;                      /* kernels linked to it */
	int32_t rank, nranks, root, peer;
	uint32_t dev;                          /* model device of its kernels, GPA_NONE */
	uint8_t source, flags, datatype, gpu_from;
};

struct gpa_nccl_ext {
	uint32_t proc, corr;
	uint64_t ext;
};

struct gpa_nccl_chan {
	uint32_t proc;
	uint64_t op_id, start, end;
};

struct gpa_nccl {
	GP_VEC(struct gpa_nccl_op) ops; /* by start once linked */
	uint32_t *kern_op;              /* per gpa_model.kern row: its op, or GPA_NONE */
	uint64_t channels;              /* NCCL_CHANNEL records loaded */
	uint64_t kernels_linked;        /* kernels tied to an op */
	GP_VEC(struct gpa_nccl_ext) ext;  /* while loading */
	GP_VEC(struct gpa_nccl_chan) ch;  /* while loading */
};

/* Frees what nccl-model.c kept for the model (NULL: nothing; the load fills it). */
void gpa_nccl_free(struct gpa_nccl *n);

#endif /* GPA_NCCL_MODEL_H */
