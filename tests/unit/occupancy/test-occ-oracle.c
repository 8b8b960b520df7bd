/* SPDX-License-Identifier: MIT */
/*
 * Our occupancy calculator (analyze/occupancy-calc.c) against the CUDA
 * toolkit's cuda_occupancy.h, the driver-equivalent calculator, used here
 * as an oracle only (it is included from the installed toolkit, never
 * copied). Built only when the header is installed (Makefile). For every
 * compute capability we cover, random configurations - block size,
 * registers, static and dynamic shared memory, opt-in and its dynamic
 * limit, carve-out preference or legacy cache config, barriers, virtual
 * resources - must give the same blocks per SM, the same per-resource
 * limits, the same limiter bits, the same allocations and the same errors.
 */
#include "base/compat.h"
#include "analyze/occupancy-calc.h"
#include "tests/unit/test.h"

#include <cuda_occupancy.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#define CONFIGS_PER_CC 30000

static const unsigned ccs[][2] = {{7, 0}, {7, 2}, {7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9},
				  {9, 0}, {10, 0}, {10, 1}, {10, 3}, {11, 0}, {12, 0}, {12, 1}};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (uint32_t)(rng % n) : 0;
}

static void to_oracle(const struct gpa_occ_dev *d, const struct gpa_occ_func *f,
		      const struct gpa_occ_state *s, cudaOccDeviceProp *p, cudaOccFuncAttributes *a,
		      cudaOccDeviceState *st)
{
	memset(p, 0, sizeof(*p));
	memset(a, 0, sizeof(*a));
	memset(st, 0, sizeof(*st));
	p->computeMajor = d->cc_major;
	p->computeMinor = d->cc_minor;
	p->maxThreadsPerBlock = (int)d->max_threads_per_block;
	p->maxThreadsPerMultiprocessor = (int)d->max_threads_per_sm;
	p->regsPerBlock = (int)d->regs_per_block;
	p->regsPerMultiprocessor = (int)d->regs_per_sm;
	p->warpSize = (int)d->warp_size;
	p->sharedMemPerBlock = d->smem_per_block;
	p->sharedMemPerMultiprocessor = d->smem_per_sm;
	p->numSms = (int)d->num_sms;
	p->sharedMemPerBlockOptin = d->smem_per_block_optin;
	p->reservedSharedMemPerBlock = d->reserved_smem_per_block;
	a->maxThreadsPerBlock = (int)d->max_threads_per_block;
	a->numRegs = (int)f->regs;
	a->sharedSizeBytes = f->static_smem;
	a->partitionedGCConfig = PARTITIONED_GC_OFF;
	a->shmemLimitConfig = f->optin ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
	a->maxDynamicSharedSizeBytes = f->max_dynamic_smem;
	a->numBlockBarriers = (int)f->barriers;
	a->virtualResourceCount = (int)f->virtual_resources;
	st->cacheConfig = (cudaOccCacheConfig)s->cache_config;
	st->carveoutConfig = s->carveout;
}

static uint32_t lim(int v)
{
	return v == INT_MAX ? GPA_OCC_UNLIMITED : (uint32_t)v;
}

/* Compares one configuration; returns true when both agree. */
static bool agree(const struct gpa_occ_dev *d, const struct gpa_occ_func *f,
		  const struct gpa_occ_state *s, uint32_t bs, uint32_t dyn, bool verbose)
{
	cudaOccDeviceProp p;
	cudaOccFuncAttributes a;
	cudaOccDeviceState st;
	cudaOccResult want;
	struct gpa_occ_result got;

	to_oracle(d, f, s, &p, &a, &st);
	memset(&want, 0, sizeof(want));
	cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&want, &p, &a, &st, (int)bs, dyn);
	int ret = gpa_occ_compute(d, f, s, bs, dyn, &got);
	bool ok;
	if (e != CUDA_OCC_SUCCESS) {
		ok = ret == -(int)e;
	} else {
		ok = !ret && got.blocks == (uint32_t)want.activeBlocksPerMultiprocessor &&
		     got.limiters == want.limitingFactors &&
		     got.limit_regs == lim(want.blockLimitRegs) &&
		     got.limit_smem == lim(want.blockLimitSharedMem) &&
		     got.limit_warps == lim(want.blockLimitWarps) &&
		     got.limit_blocks == lim(want.blockLimitBlocks) &&
		     got.limit_barriers == lim(want.blockLimitBarriers) &&
		     got.limit_virtual == lim(want.blockLimitVirtual) &&
		     got.regs_per_block == (uint32_t)want.allocatedRegistersPerBlock &&
		     got.smem_per_block == (uint32_t)want.allocatedSharedMemPerBlock;
	}
	if (!ok && verbose) {
		TFAIL("cc %u.%u bs %u regs %u static %u dyn %u optin %d maxdyn %u carveout %d "
		      "cache %u bars %u virt %u: oracle err %d blocks %d lim 0x%x (r %d s %d w %d "
		      "b %d bar %d v %d) regs %d smem %zu; ours ret %d blocks %u lim 0x%x (r %u s %u "
		      "w %u b %u bar %u v %u) regs %u smem %u",
		      d->cc_major, d->cc_minor, bs, f->regs, f->static_smem, dyn, f->optin,
		      f->max_dynamic_smem, s->carveout, s->cache_config, f->barriers,
		      f->virtual_resources, (int)e, want.activeBlocksPerMultiprocessor,
		      want.limitingFactors, want.blockLimitRegs, want.blockLimitSharedMem,
		      want.blockLimitWarps, want.blockLimitBlocks, want.blockLimitBarriers,
		      want.blockLimitVirtual, want.allocatedRegistersPerBlock,
		      want.allocatedSharedMemPerBlock, ret, got.blocks, got.limiters,
		      got.limit_regs, got.limit_smem, got.limit_warps, got.limit_blocks,
		      got.limit_barriers, got.limit_virtual, got.regs_per_block, got.smem_per_block);
	}
	return ok;
}

static void random_config(const struct gpa_occ_dev *d, struct gpa_occ_func *f,
			  struct gpa_occ_state *s, uint32_t *bs, uint32_t *dyn)
{
	memset(f, 0, sizeof(*f));
	memset(s, 0, sizeof(*s));
	/* Mostly whole warps and legal sizes; now and then odd or too large. */
	switch (rnd(4)) {
	case 0:
		*bs = 1 + rnd(1100);
		break;
	default:
		*bs = 32 * (1 + rnd(32));
		break;
	}
	f->regs = rnd(8) ? rnd(256) + 1 : rnd(270);
	f->static_smem = rnd(3) ? rnd(4) * 1024 * rnd(4) + rnd(1024) * rnd(2) : rnd(64 * 1024);
	f->optin = rnd(2);
	uint32_t top = d->smem_per_block_optin + 4096;
	f->max_dynamic_smem = f->optin ? (rnd(2) ? d->smem_per_block_optin - f->static_smem % 4096
						 : rnd(top))
				       : 48 * 1024 - f->static_smem % 4096;
	*dyn = rnd(3) ? rnd(49 * 1024) : rnd(top);
	if (!rnd(6)) {
		*dyn = 0;
	}
	s->carveout = rnd(2) ? -1 : (int)rnd(101);
	if (!rnd(50)) {
		s->carveout = rnd(2) ? -2 : 101;
	}
	s->cache_config = (uint8_t)rnd(4);
	f->barriers = rnd(4) ? 1 : rnd(5);
	f->virtual_resources = rnd(5) ? 0 : rnd(40);
}

TEST(occ_oracle_random_per_cc)
{
	unsigned long total = 0, bad = 0;

	for (size_t c = 0; c < GP_ARRAY_SIZE(ccs); c++) {
		struct gpa_occ_dev d;
		REQUIRE(!gpa_occ_dev_defaults(&d, ccs[c][0], ccs[c][1]));
		d.num_sms = 100;
		d.max_blocks_per_sm = 0; /* the header always takes the architecture's value */
		unsigned long cc_bad = 0;
		for (unsigned i = 0; i < CONFIGS_PER_CC; i++) {
			struct gpa_occ_func f;
			struct gpa_occ_state s;
			uint32_t bs, dyn;
			random_config(&d, &f, &s, &bs, &dyn);
			total++;
			if (!agree(&d, &f, &s, bs, dyn, cc_bad < 5)) {
				cc_bad++;
			}
		}
		bad += cc_bad;
	}
	printf("# oracle: %lu configurations over %zu compute capabilities, %lu mismatches\n",
	       total, GP_ARRAY_SIZE(ccs), bad);
	CHECK_EQ_U(bad, 0);
	CHECK(total >= 10000ul * GP_ARRAY_SIZE(ccs));
}

/* Every block size and register count on every architecture, no shared memory. */
TEST(occ_oracle_exhaustive_block_regs)
{
	unsigned long bad = 0;

	for (size_t c = 0; c < GP_ARRAY_SIZE(ccs); c++) {
		struct gpa_occ_dev d;
		REQUIRE(!gpa_occ_dev_defaults(&d, ccs[c][0], ccs[c][1]));
		d.num_sms = 1;
		d.max_blocks_per_sm = 0;
		struct gpa_occ_func f = {.barriers = 1};
		struct gpa_occ_state s = {.carveout = -1};
		for (uint32_t bs = 1; bs <= 1024; bs += 7) {
			for (uint32_t r = 0; r <= 256; r += 3) {
				f.regs = r;
				if (!agree(&d, &f, &s, bs, 0, bad < 5)) {
					bad++;
				}
			}
		}
	}
	CHECK_EQ_U(bad, 0);
}

/* Unknown capabilities are refused by both. */
TEST(occ_oracle_unknown_cc)
{
	struct gpa_occ_dev d;
	REQUIRE(!gpa_occ_dev_defaults(&d, 9, 0));
	d.num_sms = 1;
	struct gpa_occ_func f = {.regs = 32, .barriers = 1};
	struct gpa_occ_state s = {.carveout = -1};
	d.cc_major = 13;
	CHECK(agree(&d, &f, &s, 256, 0, true));
	d.cc_major = 10;
	d.cc_minor = 2;
	CHECK(agree(&d, &f, &s, 256, 0, true));
	d.cc_major = 6;
	d.cc_minor = 0;
	CHECK(gpa_occ_compute(&d, &f, &s, 256, 0, &(struct gpa_occ_result){0}) ==
	      -GPA_OCC_EUNKNOWN);
}
