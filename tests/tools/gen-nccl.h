/* SPDX-License-Identifier: MIT */
/*
 * gen-nccl.h - multi-rank traces with NCCL operations, a planted straggler
 * and known overlap (tracegen --nccl; the layout is in gen-nccl.c).
 */
#ifndef GP_GEN_NCCL_H
#define GP_GEN_NCCL_H

#include "tests/tools/gen.h"

struct gen_nccl_opts {
	uint32_t steps;
	uint32_t rank, world_size;
	int64_t straggler; /* the rank that arrives late, -1 none */
	uint64_t late_ns;  /* how late it arrives after the step's 1 ms mark (400 us) */
	uint32_t fill;	   /* extra short compute kernels per step */
	bool names_only;   /* no NCCL or EXTCORR records: kernels known by name only */
	bool sync;	   /* the host waits for the AllReduce (cudaStreamSynchronize) */
	bool no_seq;	   /* NCCL records without sequence numbers (matched by order) */
	uint64_t clock_off_ns; /* rank r's clock anchor says r * this later than it is */
	int64_t slow_rank; /* the rank whose compute kernels take slow_factor times as long, -1 */
	double slow_factor;
};

void gen_nccl_opts_default(struct gen_nccl_opts *o);
/* Writes one rank's trace. Returns 0 or a writer error. */
int gen_nccl_write(struct gpt_writer *w, const struct gen_nccl_opts *o, struct gen_stats *st);

#endif
