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

/*
 * Used by model.c while loading: records of process proc, string fields
 * already model ids. Each returns 0 or -GP_ERR_NOMEM. gpa_nccl_link runs
 * once the tables are built: times onto the model timeline, channels and
 * kernels (through CUSTOM2 external correlation) to their operations.
 */
int gpa_nccl_add_op(struct gpa_model *m, uint32_t proc, const struct gpt_nccl *r, uint32_t func,
		    uint32_t algo, uint32_t proto, uint32_t comm_name);
int gpa_nccl_add_channel(struct gpa_model *m, uint32_t proc, const struct gpt_nccl_channel *r);
int gpa_nccl_add_extcorr(struct gpa_model *m, uint32_t proc, const struct gpt_extcorr *r);
int gpa_nccl_link(struct gpa_model *m);
void gpa_nccl_free(struct gpa_nccl *n);

#endif /* GPA_NCCL_MODEL_H */
