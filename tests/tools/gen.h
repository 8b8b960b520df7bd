/* SPDX-License-Identifier: MIT */
/*
 * gen.h - the seeded trace generator shared by tracegen, unit tests and
 * benchmarks. It plays a training loop: per step an NVTX step range with
 * nested phase ranges, kernels launched round-robin on streams (each with
 * its cudaLaunchKernel API record and correlation id), host/device copies,
 * a host synchronization, and optional idle gaps between steps. The same
 * options and seed always give the same records.
 */
#ifndef GP_GEN_H
#define GP_GEN_H

#include "trace/trace.h"

struct gen_opts {
	uint64_t seed;
	uint32_t steps;            /* training steps */
	uint32_t kernels_per_step; /* kernel launches per step and device */
	uint32_t copies_per_step;  /* memcpy per step and device */
	uint32_t streams;          /* compute streams per device */
	uint32_t devices;
	uint32_t nvtx_depth;       /* phase nesting inside each step range (0: step range only) */
	uint32_t rank, world_size; /* process rank written in the PROCESS record */
	uint64_t gap_ns;           /* after each step: a DataLoader.__next__ NVTX range this long */
	uint64_t load_ns;          /* at the start of each step, inside its range: the
				    * DataLoader iterator's range this long (PyTorch's
				    * ProfilerStep holds fetching the batch) */
	uint64_t sync_wake_ns;     /* the step's closing stream sync returns this long after
				    * the GPU is done (blocking-sync wake-up latency; 2000) */
	bool item_sync;            /* also a host sync halfway through each step (loss.item()) */
	bool all_kinds;            /* also emit memset, NCCL, overhead, metric, memory, ... */
	uint64_t start_ns;         /* trace clock at the first event */
	/* Noise and injected slowdowns, for regression tests (all off by default): */
	double step_jitter;        /* per-step factor on kernel durations: 1 + N(0, this) */
	double run_jitter;         /* per-run factor on kernel durations: 1 + N(0, this) */
	double slowdown;           /* every kernel's and copy's duration times this (0, 1: none) */
	const char *slow_regex;    /* kernels whose name matches (POSIX ERE, mangled or
				    * demangled) ... */
	double slow_factor;        /* ... take this many times longer */
	bool same_kernels;         /* every step: the same kernel sequence and copy sizes */
	uint32_t memory_per_step;  /* allocator events per step (PyTorch-like, with totals); 0 */
};

void gen_opts_default(struct gen_opts *o);

struct gen_stats {
	uint64_t events;              /* activity records: everything but metadata */
	uint64_t records[GPT_KIND__MAX];
	uint64_t first_ts, last_ts;
};

/* Writes the whole trace to w (metadata first). Returns 0 or a writer error. */
int gen_write(struct gpt_writer *w, const struct gen_opts *o, struct gen_stats *st);

#endif
