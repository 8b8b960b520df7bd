/* SPDX-License-Identifier: MIT */
/*
 * occupancy-calc.c - theoretical occupancy from launch configuration and
 * device limits (docs/occupancy.md has the rules and their sources).
 *
 * Per launch the number of resident blocks per SM is the smallest of what
 * warps, registers, shared memory, the block-slot count, (CC >= 10) virtual
 * resources and (CC >= 9) block barriers allow. The traps that make a naive
 * calculator disagree with the driver are all here: registers are allocated
 * per warp in units of 256 and split over four SM sub-partitions; the
 * hardware check rounds a block's warps up to a multiple of four; shared
 * memory is allocated in 256 B (7.x) or 128 B (8.0+) units including 1 KiB
 * reserved per block (8.0+), against a carve-out snapped up to a legal size
 * (and raised when one block needs more than the preferred carve-out).
 */
#include "base/compat.h"
#include "analyze/occupancy-calc.h"

#include <stdio.h>
#include <string.h>

#define KIB 1024u

static uint32_t div_up(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

static uint64_t round_up(uint64_t a, uint64_t g)
{
	return (a + g - 1) / g * g;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static bool cc_known(unsigned major, unsigned minor)
{
	switch (major) {
	case 7:
	case 8:
	case 9:
		return true;
	case 10:
	case 11:
		return minor == 0 || minor == 1 || minor == 3;
	case 12:
		return minor == 0 || minor == 1;
	default:
		return false;
	}
}

/* The legal shared-memory carve-outs of an architecture, KiB, ascending. */
static const uint16_t *carveouts(unsigned major, unsigned minor, size_t *n)
{
	static const uint16_t volta[] = {0, 8, 16, 32, 64, 96};
	static const uint16_t turing[] = {32, 64};
	static const uint16_t ga100[] = {0, 8, 16, 32, 64, 100, 132, 164};
	static const uint16_t ga10x[] = {0, 8, 16, 32, 64, 100};
	static const uint16_t hopper[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

	switch (major) {
	case 7:
		if (minor == 5) {
			*n = GP_ARRAY_SIZE(turing);
			return turing;
		}
		*n = GP_ARRAY_SIZE(volta);
		return volta;
	case 8:
		if (minor == 0 || minor == 7) {
			*n = GP_ARRAY_SIZE(ga100);
			return ga100;
		}
		*n = GP_ARRAY_SIZE(ga10x);
		return ga10x;
	case 12:
		*n = GP_ARRAY_SIZE(ga10x);
		return ga10x;
	default: /* 9.x, 10.x, 11.x */
		*n = GP_ARRAY_SIZE(hopper);
		return hopper;
	}
}

/* Snaps bytes up to the next legal carve-out; false when none is large enough. */
static bool snap_carveout(unsigned major, unsigned minor, uint64_t bytes, uint64_t *out)
{
	size_t n;
	const uint16_t *c = carveouts(major, minor, &n);

	for (size_t i = 0; i < n; i++) {
		if (bytes <= (uint64_t)c[i] * KIB) {
			*out = (uint64_t)c[i] * KIB;
			return true;
		}
	}
	return false;
}

/* Resident-block slots per SM of the architecture. */
static uint32_t arch_max_blocks(unsigned major, unsigned minor)
{
	switch (major) {
	case 7:
		return minor == 5 ? 16 : 32;
	case 8:
		return minor == 0 ? 32 : minor == 9 ? 24 : 16;
	case 10:
		return minor == 1 ? 24 : 32;
	case 11:
		return minor == 0 ? 24 : 32;
	case 12:
		return 24;
	default:
		return 32;
	}
}

/* Block barriers per SM, per resident-block slot. */
static uint32_t barriers_per_slot(unsigned major, unsigned minor)
{
	if ((major == 10 && minor == 1) || (major == 11 && minor == 0) || major == 12) {
		return 1;
	}
	return 2;
}

int gpa_occ_dev_defaults(struct gpa_occ_dev *d, unsigned major, unsigned minor)
{
	memset(d, 0, sizeof(*d));
	if (!cc_known(major, minor)) {
		return -GPA_OCC_EUNKNOWN;
	}
	d->cc_major = (uint8_t)major;
	d->cc_minor = (uint8_t)minor;
	d->warp_size = 32;
	d->max_threads_per_block = 1024;
	d->regs_per_sm = 65536;
	d->regs_per_block = 65536;
	d->smem_per_block = 48 * KIB;
	d->max_blocks_per_sm = arch_max_blocks(major, minor);
	d->reserved_smem_per_block = major >= 8 ? KIB : 0;
	switch (major) {
	case 7:
		d->max_threads_per_sm = minor == 5 ? 1024 : 2048;
		d->smem_per_sm = minor == 5 ? 64 * KIB : 96 * KIB;
		d->smem_per_block_optin = d->smem_per_sm;
		return 0;
	case 8:
		d->max_threads_per_sm = minor == 0 ? 2048 : 1536;
		d->smem_per_sm = (minor == 0 || minor == 7) ? 164 * KIB : 100 * KIB;
		break;
	case 9:
	case 10:
		d->max_threads_per_sm = (major == 10 && minor == 1) ? 1536 : 2048;
		d->smem_per_sm = 228 * KIB;
		break;
	case 11:
		d->max_threads_per_sm = minor == 0 ? 1536 : 2048;
		d->smem_per_sm = 228 * KIB;
		break;
	default: /* 12.x */
		d->max_threads_per_sm = 1536;
		d->smem_per_sm = 100 * KIB;
		break;
	}
	d->smem_per_block_optin = d->smem_per_sm - KIB;
	return 0;
}

static uint32_t regs_limit(const struct gpa_occ_dev *d, const struct gpa_occ_func *f,
			   uint32_t warps, struct gpa_occ_result *r)
{
	/* Registers go to warps in units of 256; a block's warps count in fours for the check. */
	uint64_t per_warp = round_up((uint64_t)f->regs * d->warp_size, 256);
	uint64_t per_block = per_warp * warps;
	uint64_t assumed = per_warp * round_up(warps, 4);

	r->regs_per_block = per_block > UINT32_MAX ? UINT32_MAX : (uint32_t)per_block;
	if (assumed > d->regs_per_block || per_block > d->regs_per_block || f->regs > 256) {
		return 0;
	}
	if (!per_warp) {
		return GPA_OCC_UNLIMITED;
	}
	/* Each of the four sub-partitions holds whole warps. */
	uint64_t warps_fit = (uint64_t)(d->regs_per_sm / 4) / per_warp * 4;
	return (uint32_t)(warps_fit / warps);
}

/* Shared memory per SM the launch's preference asks for; false when invalid. */
static bool smem_preference(const struct gpa_occ_dev *d, const struct gpa_occ_state *s,
			    uint64_t *out)
{
	int pref = s->carveout;

	if (pref < -1 || pref > 100) {
		return false;
	}
	if (pref == -1) {
		switch (s->cache_config) {
		case 1:
			pref = 100;
			break;
		case 2:
			pref = 0;
			break;
		case 3:
			pref = 50;
			break;
		default:
			break;
		}
	}
	uint64_t bytes = pref == -1 ? d->smem_per_sm : (uint64_t)pref * d->smem_per_sm / 100;
	return snap_carveout(d->cc_major, d->cc_minor, bytes, out);
}

static int smem_limit(const struct gpa_occ_dev *d, const struct gpa_occ_func *f,
		      const struct gpa_occ_state *s, uint32_t dyn_smem, struct gpa_occ_result *r,
		      uint32_t *limit)
{
	uint64_t gran = d->cc_major >= 8 ? 128 : 256;
	uint64_t fixed = (uint64_t)f->static_smem + d->reserved_smem_per_block;
	uint64_t alloc = round_up(fixed + dyn_smem, gran);
	uint64_t most = fixed + f->max_dynamic_smem;
	uint64_t cap, pref, per_sm;

	r->smem_per_block = alloc > UINT32_MAX ? UINT32_MAX : (uint32_t)alloc;
	if (!smem_preference(d, s, &pref)) {
		return -GPA_OCC_EINVAL;
	}
	cap = (f->optin && most > d->smem_per_block) ? d->smem_per_block_optin : d->smem_per_block;
	if (d->cc_major >= 8) {
		cap += d->reserved_smem_per_block;
	}
	if ((f->optin && dyn_smem > f->max_dynamic_smem) || alloc > cap) {
		*limit = 0;
		r->smem_per_sm = (uint32_t)pref;
		return 0;
	}
	per_sm = pref;
	if (pref < alloc && !snap_carveout(d->cc_major, d->cc_minor, alloc, &per_sm)) {
		return -GPA_OCC_EINVAL;
	}
	r->smem_per_sm = (uint32_t)per_sm;
	*limit = alloc ? (uint32_t)(per_sm / alloc) : GPA_OCC_UNLIMITED;
	return 0;
}

int gpa_occ_compute(const struct gpa_occ_dev *d, const struct gpa_occ_func *f,
		    const struct gpa_occ_state *s, uint32_t block_size, uint32_t dyn_smem,
		    struct gpa_occ_result *r)
{
	uint32_t warps, b;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!cc_known(d->cc_major, d->cc_minor)) {
		return -GPA_OCC_EUNKNOWN;
	}
	if (!block_size || !d->warp_size || d->max_threads_per_sm < d->warp_size ||
	    !d->max_threads_per_block || !d->regs_per_sm || !d->regs_per_block ||
	    !d->smem_per_block || !d->smem_per_sm || block_size > INT32_MAX ||
	    dyn_smem > INT32_MAX || f->static_smem > INT32_MAX) {
		return -GPA_OCC_EINVAL;
	}
	warps = div_up(block_size, d->warp_size);
	r->warps_per_block = warps;
	r->max_warps = d->max_threads_per_sm / d->warp_size;

	r->limit_regs = regs_limit(d, f, warps, r);
	r->limit_warps = block_size > d->max_threads_per_block ? 0 : r->max_warps / warps;
	r->limit_blocks = d->max_blocks_per_sm ? d->max_blocks_per_sm
					       : arch_max_blocks(d->cc_major, d->cc_minor);
	ret = smem_limit(d, f, s, dyn_smem, r, &r->limit_smem);
	if (ret) {
		memset(r, 0, sizeof(*r));
		return ret;
	}
	r->limit_virtual = GPA_OCC_UNLIMITED;
	if (d->cc_major >= 10 && f->virtual_resources) {
		r->limit_virtual = 128 / f->virtual_resources;
	}
	b = min_u32(min_u32(r->limit_regs, r->limit_smem),
		    min_u32(r->limit_warps, min_u32(r->limit_blocks, r->limit_virtual)));
	r->limiters = (b == r->limit_warps ? GPA_OCC_LIMIT_WARPS : 0) |
		      (b == r->limit_regs ? GPA_OCC_LIMIT_REGISTERS : 0) |
		      (b == r->limit_smem ? GPA_OCC_LIMIT_SMEM : 0) |
		      (b == r->limit_blocks ? GPA_OCC_LIMIT_BLOCKS : 0) |
		      (b == r->limit_virtual ? GPA_OCC_LIMIT_VIRTUAL : 0);
	r->limit_barriers = GPA_OCC_UNLIMITED;
	if (d->cc_major >= 9 && f->barriers) {
		uint32_t avail = r->limit_blocks * barriers_per_slot(d->cc_major, d->cc_minor);
		r->limit_barriers = avail / f->barriers;
		b = min_u32(b, r->limit_barriers);
		if (b == r->limit_barriers) {
			r->limiters |= GPA_OCC_LIMIT_BARRIERS;
		}
	}
	r->blocks = b;
	r->active_warps = b * warps;
	return 0;
}

uint32_t gpa_occ_bp(const struct gpa_occ_result *r)
{
	if (!r->max_warps) {
		return 0;
	}
	/* to the nearest basis point: 2/3 is 66.67 %, not 66.66 % */
	return (uint32_t)(((uint64_t)r->active_warps * 10000 + r->max_warps / 2) / r->max_warps);
}

int gpa_occ_whatif(const struct gpa_occ_dev *d, const struct gpa_occ_func *f,
		   const struct gpa_occ_state *s, uint32_t block_size, uint32_t dyn_smem,
		   struct gpa_occ_whatif *w)
{
	struct gpa_occ_result base, r;
	struct gpa_occ_func g;
	int ret;

	memset(w, 0, sizeof(*w));
	ret = gpa_occ_compute(d, f, s, block_size, dyn_smem, &base);
	if (ret) {
		return ret;
	}
	/* Fewer registers: the largest count that adds a block. */
	g = *f;
	for (uint32_t regs = f->regs; regs-- > 1;) {
		g.regs = regs;
		if (!gpa_occ_compute(d, &g, s, block_size, dyn_smem, &r) && r.blocks > base.blocks) {
			w->regs_for_more = regs;
			w->regs_blocks = r.blocks;
			break;
		}
	}
	/* Less shared memory (static part kept, dynamic part shrunk). */
	uint32_t gran = d->cc_major >= 8 ? 128 : 256;
	for (uint64_t dyn = dyn_smem; dyn > 0;) {
		dyn = dyn > gran ? dyn - gran : 0;
		if (!gpa_occ_compute(d, f, s, block_size, (uint32_t)dyn, &r) &&
		    r.blocks > base.blocks) {
			w->has_smem_for_more = true;
			w->smem_for_more = f->static_smem + (uint32_t)dyn;
			w->smem_blocks = r.blocks;
			break;
		}
	}
	/* The block size with the most resident threads, scanning down by warps. */
	uint64_t best = 0;
	uint32_t top = d->max_threads_per_block - d->max_threads_per_block % d->warp_size;
	for (uint32_t bs = top; bs >= d->warp_size && bs > 0; bs -= d->warp_size) {
		if (gpa_occ_compute(d, f, s, bs, dyn_smem, &r)) {
			continue;
		}
		if ((uint64_t)r.blocks * bs > best) {
			best = (uint64_t)r.blocks * bs;
			w->best_block_size = bs;
			w->best_blocks = r.blocks;
			w->best_bp = gpa_occ_bp(&r);
		}
	}
	return 0;
}

const char *gpa_occ_limiter_str(uint32_t limiters, char *buf, size_t len)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{GPA_OCC_LIMIT_WARPS, "warps"},       {GPA_OCC_LIMIT_REGISTERS, "registers"},
		{GPA_OCC_LIMIT_SMEM, "shared memory"}, {GPA_OCC_LIMIT_BLOCKS, "blocks"},
		{GPA_OCC_LIMIT_BARRIERS, "barriers"}, {GPA_OCC_LIMIT_VIRTUAL, "virtual resources"},
	};
	size_t used = 0;

	if (!len) {
		return buf;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < GP_ARRAY_SIZE(names); i++) {
		if (!(limiters & names[i].bit)) {
			continue;
		}
		int n = snprintf(buf + used, len - used, "%s%s", used ? "+" : "", names[i].name);
		if (n < 0 || (size_t)n >= len - used) {
			break;
		}
		used += (size_t)n;
	}
	if (!used) {
		snprintf(buf, len, "none");
	}
	return buf;
}
