/* SPDX-License-Identifier: MIT */
/*
 * occupancy-calc.h - theoretical occupancy of a kernel launch, computed in
 * plain C from the launch configuration and the device limits, for compute
 * capabilities 7.0 through 12.x. No CUDA header is needed; the arithmetic is
 * the one the driver's occupancy API uses (docs/occupancy.md), and a test
 * checks it configuration by configuration against the toolkit's
 * cuda_occupancy.h when that header is installed. Included through
 * analyze/occupancy.h.
 */
#ifndef GPA_OCCUPANCY_CALC_H
#define GPA_OCCUPANCY_CALC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The device side. Sizes in bytes, counts per SM unless named otherwise. */
struct gpa_occ_dev {
	uint8_t cc_major, cc_minor;
	uint32_t warp_size;             /* 32 */
	uint32_t max_threads_per_sm;    /* warps per SM x warp size */
	uint32_t max_threads_per_block;
	uint32_t max_blocks_per_sm;     /* 0: the architecture's value */
	uint32_t regs_per_sm, regs_per_block;
	uint32_t smem_per_sm;           /* the largest carve-out */
	uint32_t smem_per_block;        /* the default per-block cap (48 KiB) */
	uint32_t smem_per_block_optin;  /* the cap for functions that opted in */
	uint32_t reserved_smem_per_block; /* taken by the system (1 KiB on CC >= 8.0) */
	uint32_t num_sms;
};

/* The kernel function side. */
struct gpa_occ_func {
	uint32_t regs;                /* registers per thread; 0: none used */
	uint32_t static_smem;         /* bytes */
	bool optin;                   /* shmemLimitConfig OPTIN (dynamic smem above 48 KiB allowed) */
	uint32_t max_dynamic_smem;    /* cudaFuncAttributeMaxDynamicSharedMemorySize, when optin */
	uint32_t barriers;            /* block barriers the function uses (1 for every kernel) */
	uint32_t virtual_resources;   /* CC >= 10 virtual resource count; 0: not limiting */
};

/* The launch-time state. */
struct gpa_occ_state {
	int carveout;         /* -1 driver default, else percent of smem_per_sm for shared memory */
	uint8_t cache_config; /* legacy preference when carveout is -1: 0 none, 1 shared, 2 L1, 3 equal */
};

/* Limiter bits: every limit equal to the final block count sets its bit. */
enum gpa_occ_limiter {
	GPA_OCC_LIMIT_WARPS = 0x01,
	GPA_OCC_LIMIT_REGISTERS = 0x02,
	GPA_OCC_LIMIT_SMEM = 0x04,
	GPA_OCC_LIMIT_BLOCKS = 0x08,
	GPA_OCC_LIMIT_BARRIERS = 0x10,
	GPA_OCC_LIMIT_VIRTUAL = 0x20,
};

#define GPA_OCC_UNLIMITED UINT32_MAX

struct gpa_occ_result {
	uint32_t blocks;          /* active blocks per SM */
	uint32_t warps_per_block;
	uint32_t active_warps;    /* blocks x warps_per_block */
	uint32_t max_warps;       /* per SM */
	uint32_t limiters;        /* enum gpa_occ_limiter bits */
	/* Blocks each resource allows; GPA_OCC_UNLIMITED when it does not limit. */
	uint32_t limit_warps, limit_regs, limit_smem, limit_blocks, limit_barriers, limit_virtual;
	uint32_t regs_per_block;  /* allocated */
	uint32_t smem_per_block;  /* allocated, with the reserved part */
	uint32_t smem_per_sm;     /* the carve-out the launch gets */
};

/* Errors of gpa_occ_compute (negative returns). */
enum gpa_occ_err {
	GPA_OCC_EINVAL = 1,  /* a zero or out-of-range input */
	GPA_OCC_EUNKNOWN = 2, /* compute capability outside 7.0-12.x */
};

/*
 * Fills *d with the limits of compute capability major.minor as the CUDA
 * documentation and the driver give them (docs/occupancy.md), with num_sms
 * left 0. Returns 0, or -GPA_OCC_EUNKNOWN for a capability not covered.
 */
int gpa_occ_dev_defaults(struct gpa_occ_dev *d, unsigned major, unsigned minor);

/*
 * Active blocks per SM of a launch of block_size threads with dyn_smem bytes
 * of dynamic shared memory. Returns 0 (*r filled), -GPA_OCC_EINVAL or
 * -GPA_OCC_EUNKNOWN (*r zeroed).
 */
int gpa_occ_compute(const struct gpa_occ_dev *d, const struct gpa_occ_func *f,
		    const struct gpa_occ_state *s, uint32_t block_size, uint32_t dyn_smem,
		    struct gpa_occ_result *r);

/* Occupancy in basis points (10000 = 100 %), rounded to the nearest; 0 when max_warps is 0. */
uint32_t gpa_occ_bp(const struct gpa_occ_result *r);

/* What would reach the next occupancy level. */
struct gpa_occ_whatif {
	uint32_t regs_for_more;      /* largest register count giving more blocks; 0 none */
	uint32_t regs_blocks;        /* blocks at that count */
	bool has_smem_for_more;
	uint32_t smem_for_more;      /* largest static+dynamic smem per block giving more blocks */
	uint32_t smem_blocks;
	uint32_t best_block_size;    /* most resident threads (largest block size wins ties) */
	uint32_t best_blocks;
	uint32_t best_bp;            /* its occupancy */
};

/* Fills *w for the launch of gpa_occ_compute's arguments. Returns gpa_occ_compute's result. */
int gpa_occ_whatif(const struct gpa_occ_dev *d, const struct gpa_occ_func *f,
		   const struct gpa_occ_state *s, uint32_t block_size, uint32_t dyn_smem,
		   struct gpa_occ_whatif *w);

/* The limiting resource in Nsight Compute's words ("registers", "shared memory", ...);
 * several joined with '+'; written into buf (at least 64 bytes). */
const char *gpa_occ_limiter_str(uint32_t limiters, char *buf, size_t len);

#endif
