/* SPDX-License-Identifier: MIT */
/*
 * occupancy.h - theoretical occupancy of every kernel launch, grouped by kernel,
 * configuration and device (analyze/occupancy.c, docs/occupancy.md); the
 * calculator itself is analyze/occupancy-calc.h.
 */
#ifndef GPA_OCCUPANCY_H
#define GPA_OCCUPANCY_H

#include "analyze/model.h"
#include "analyze/occupancy-calc.h"

struct gpa_steps;

struct gpa_occ_opts {
	const char *kernel_regex; /* PCRE2 on the demangled (else mangled) name; NULL all */
	int64_t device;           /* CUDA device ordinal; -1 every device */
	bool whatif;              /* fill gpa_occ_group.whatif (slower: per group) */
	/*
	 * The GPU to assume for devices whose compute capability the trace lacks
	 * (an export without its device table): cc_major 0 none. Recorded
	 * values always win.
	 */
	uint8_t gpu_cc_major, gpu_cc_minor;
	uint32_t gpu_sms;
};

/* Launches of one kernel with one configuration on one device. */
struct gpa_occ_group {
	uint32_t func, shape;
	uint16_t dev;
	uint64_t launches, gpu_ns;
	int status;                 /* 0, or -GPA_OCC_E* when occupancy is unknown */
	bool dev_defaults;          /* device limits taken from the architecture, not recorded */
	struct gpa_occ_result res;
	uint32_t bp;                /* theoretical occupancy, basis points */
	uint32_t grid_bp;           /* grid-limited: min(blocks, grid / SMs) x warps / max warps */
	uint64_t grid_blocks;       /* blocks in the grid */
	uint32_t waves_milli;       /* grid / (blocks x SMs), x1000 */
	uint32_t tail_bp;           /* grid / (ceil(waves) x blocks x SMs): last-wave efficiency */
	struct gpa_occ_whatif whatif;
};

struct gpa_occ_step {
	uint32_t step;              /* gpa_steps.v index */
	uint64_t kernels, gpu_ns, known_ns;
	uint32_t weighted_bp;       /* time-weighted theoretical occupancy of its kernels */
};

struct gpa_occupancy {
	GP_VEC(struct gpa_occ_group) groups; /* by GPU time, largest first */
	GP_VEC(struct gpa_occ_step) steps;   /* empty without steps */
	uint64_t launches, unknown_launches; /* unknown: no occupancy (missing config, bad CC) */
	uint64_t gpu_ns, known_ns;
	uint32_t weighted_bp;                /* over every launch with a known occupancy */
};

/*
 * Theoretical occupancy of every kernel launch in m (matching o), grouped
 * by kernel, configuration and device; steps may be NULL. Device limits come
 * from the DEVICE record, else from the compute capability's defaults.
 * Returns 0, -GP_ERR_API for a bad regex (errbuf), -GP_ERR_NOMEM.
 */
int gpa_occupancy_analyze(const struct gpa_model *m, const struct gpa_steps *steps,
			  const struct gpa_occ_opts *o, struct gpa_occupancy *out, char *errbuf,
			  size_t errlen);
void gpa_occupancy_release(struct gpa_occupancy *occ);
/* The device limits of model device dev (recorded, else defaults); false when its CC is unknown. */
bool gpa_occ_dev_from_model(const struct gpa_model *m, uint16_t dev, struct gpa_occ_dev *d,
			    bool *defaults);

#endif /* GPA_OCCUPANCY_H */
