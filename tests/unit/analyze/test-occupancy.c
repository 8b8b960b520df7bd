/* SPDX-License-Identifier: MIT */
/*
 * The occupancy calculator (analyze/occupancy-calc.c) on the golden table
 * of measured cases (docs/occupancy.md): blocks per SM, occupancy and
 * limiter bits per architecture; then the what-if answers worked out by
 * hand. The oracle test (tests/unit/occupancy) covers random configurations.
 */
#include "base/compat.h"
#include "analyze/occupancy-calc.h"
#include "tests/unit/test.h"

struct golden {
	uint32_t regs, threads, dyn;
	/* per column of ccs: blocks, occupancy in basis points (rounded to the nearest), limiter bits */
	uint32_t blocks[8], bp[8], lim[8];
};

static const unsigned ccs[8][2] = {{7, 0}, {7, 5}, {8, 0}, {8, 6}, {8, 9}, {9, 0}, {10, 0}, {12, 0}};

static const struct golden table[] = {
	{32, 256, 0, {8, 4, 8, 6, 6, 8, 8, 6}, {10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000},
	 {0x03, 0x01, 0x03, 0x01, 0x01, 0x03, 0x03, 0x01}},
	{64, 256, 0, {4, 4, 4, 4, 4, 4, 4, 4}, {5000, 10000, 5000, 6667, 6667, 5000, 5000, 6667},
	 {0x02, 0x03, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02}},
	{40, 96, 0, {16, 10, 16, 16, 16, 16, 16, 16}, {7500, 9375, 7500, 10000, 10000, 7500, 7500, 10000},
	 {0x02, 0x01, 0x02, 0x0b, 0x03, 0x02, 0x02, 0x03}},
	{32, 256, 48 * 1024, {2, 1, 3, 2, 2, 4, 4, 2}, {2500, 2500, 3750, 3333, 3333, 5000, 5000, 3333},
	 {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}},
	{255, 256, 0, {1, 1, 1, 1, 1, 1, 1, 1}, {1250, 2500, 1250, 1667, 1667, 1250, 1250, 1667},
	 {0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02}},
	{16, 64, 0, {32, 16, 32, 16, 24, 32, 32, 24}, {10000, 10000, 10000, 6667, 10000, 10000, 10000, 10000},
	 {0x09, 0x09, 0x09, 0x08, 0x09, 0x09, 0x09, 0x19}},
};

static void setup(unsigned major, unsigned minor, struct gpa_occ_dev *d, struct gpa_occ_func *f,
		  struct gpa_occ_state *s)
{
	REQUIRE(!gpa_occ_dev_defaults(d, major, minor));
	d->num_sms = 100;
	memset(f, 0, sizeof(*f));
	f->optin = true;
	f->max_dynamic_smem = d->smem_per_block_optin;
	f->barriers = 1;
	s->carveout = -1;
	s->cache_config = 0;
}

TEST(occ_golden_table)
{
	for (size_t i = 0; i < GP_ARRAY_SIZE(table); i++) {
		for (size_t c = 0; c < 8; c++) {
			struct gpa_occ_dev d;
			struct gpa_occ_func f;
			struct gpa_occ_state s;
			struct gpa_occ_result r;
			setup(ccs[c][0], ccs[c][1], &d, &f, &s);
			f.regs = table[i].regs;
			CHECK_EQ_I(gpa_occ_compute(&d, &f, &s, table[i].threads, table[i].dyn, &r), 0);
			if (r.blocks != table[i].blocks[c] || gpa_occ_bp(&r) != table[i].bp[c] ||
			    r.limiters != table[i].lim[c]) {
				TFAIL("row %zu cc %u.%u: got %u/%u/0x%x want %u/%u/0x%x", i, ccs[c][0],
				      ccs[c][1], r.blocks, gpa_occ_bp(&r), r.limiters,
				      table[i].blocks[c], table[i].bp[c], table[i].lim[c]);
			}
		}
	}
}

TEST(occ_golden_extra)
{
	struct gpa_occ_dev d;
	struct gpa_occ_func f;
	struct gpa_occ_state s;
	struct gpa_occ_result r;

	/* CC 9.0, 255 registers, 1024 threads: the register hardware check refuses it. */
	setup(9, 0, &d, &f, &s);
	f.regs = 255;
	CHECK_EQ_I(gpa_occ_compute(&d, &f, &s, 1024, 0, &r), 0);
	CHECK_EQ_U(r.blocks, 0);
	CHECK_EQ_U(r.limiters & GPA_OCC_LIMIT_REGISTERS, GPA_OCC_LIMIT_REGISTERS);
	/* 8.7 is 8.6 for warps and blocks, 8.0 for shared memory: 48 KiB -> 3 blocks. */
	setup(8, 7, &d, &f, &s);
	f.regs = 32;
	CHECK_EQ_I(gpa_occ_compute(&d, &f, &s, 256, 48 * 1024, &r), 0);
	CHECK_EQ_U(r.blocks, 3);
	/* Carve-out preference 0 (max L1) on 9.0: a block needing smem raises it. */
	setup(9, 0, &d, &f, &s);
	f.regs = 16;
	s.carveout = 0;
	CHECK_EQ_I(gpa_occ_compute(&d, &f, &s, 64, 0, &r), 0);
	/* 1 KiB reserved -> 8 KiB carve-out, 8 blocks, shared-memory limited. */
	CHECK_EQ_U(r.smem_per_sm, 8 * 1024);
	CHECK_EQ_U(r.blocks, 8);
	CHECK_EQ_U(r.limiters, GPA_OCC_LIMIT_SMEM);
	/* Bad input. */
	CHECK_EQ_I(gpa_occ_compute(&d, &f, &s, 0, 0, &r), -GPA_OCC_EINVAL);
	s.carveout = 101;
	CHECK_EQ_I(gpa_occ_compute(&d, &f, &s, 64, 0, &r), -GPA_OCC_EINVAL);
	CHECK_EQ_I(gpa_occ_dev_defaults(&d, 13, 0), -GPA_OCC_EUNKNOWN);
	CHECK_EQ_I(gpa_occ_dev_defaults(&d, 6, 1), -GPA_OCC_EUNKNOWN);
}

TEST(occ_whatif)
{
	struct gpa_occ_dev d;
	struct gpa_occ_func f;
	struct gpa_occ_state s;
	struct gpa_occ_whatif w;
	char buf[64];

	/* 9.0, 64 regs x 256 threads: 4 blocks (50 %). 56 regs -> 7*256=... per warp
	 * 56*32=1792 regs, 16384/1792 = 9 warps per sub-partition, 36 warps, 4 blocks;
	 * 48 regs: 1536 per warp, 10 per sub-partition, 40 warps, 5 blocks. */
	setup(9, 0, &d, &f, &s);
	f.regs = 64;
	CHECK_EQ_I(gpa_occ_whatif(&d, &f, &s, 256, 0, &w), 0);
	CHECK_EQ_U(w.regs_for_more, 48);
	CHECK_EQ_U(w.regs_blocks, 5);
	/* No dynamic smem: nothing to shrink. */
	CHECK(!w.has_smem_for_more);
	/* Best block size at 64 regs: 32 warps fit whatever the size; the largest size wins. */
	CHECK_EQ_U(w.best_blocks * w.best_block_size, 1024);
	CHECK_EQ_U(w.best_block_size, 1024);
	/* Shared memory: 32 regs, 256 threads, 48 KiB dyn on 9.0 = 4 blocks (49 KiB each in 228).
	 * 5 blocks need <= 45.6 KiB each: 46592 B incl. the reserved KiB -> 45568 dyn. */
	f.regs = 32;
	CHECK_EQ_I(gpa_occ_whatif(&d, &f, &s, 256, 48 * 1024, &w), 0);
	CHECK(w.has_smem_for_more);
	CHECK_EQ_U(w.smem_for_more, 45568);
	CHECK_EQ_U(w.smem_blocks, 5);
	CHECK_STR(gpa_occ_limiter_str(GPA_OCC_LIMIT_REGISTERS | GPA_OCC_LIMIT_WARPS, buf,
				      sizeof(buf)),
		  "warps+registers");
	CHECK_STR(gpa_occ_limiter_str(0, buf, sizeof(buf)), "none");
}
