/* SPDX-License-Identifier: MIT */
/*
 * sanity.h - data no trace of a real run holds: durations that are negative
 * or longer than a day, kernel launches without any kernel record, and the
 * same trace given twice (analyze/sanity.c). The report, diff and the other
 * commands show each as a warning with its count; nothing is dropped.
 */
#ifndef GPA_SANITY_H
#define GPA_SANITY_H

#include "analyze/model.h"

/* A single GPU operation or API call longer than this is absurd: 24 hours. */
#define GPA_SANITY_MAX_NS (24ull * 3600 * 1000000000)

struct gpa_sanity {
	uint64_t negative;      /* records whose end was before their start (kept as 0 ns) */
	uint64_t absurd;        /* GPU operations and API calls longer than GPA_SANITY_MAX_NS */
	uint64_t absurd_max_ns; /* the longest of them */
	uint64_t launches_without_kernels; /* kernel launch calls of processes with no kernel */
	uint32_t procs_without_kernels;    /* those processes */
	uint32_t duplicates;               /* inputs identical to an earlier one (counted twice) */
	uint32_t first_duplicate, first_duplicate_of; /* process rows, GPA_NONE when none */
};

/* Fills *out from the model; never fails. */
void gpa_sanity_check(const struct gpa_model *m, struct gpa_sanity *out);
/* Whether an API call name launches a kernel ("cudaLaunchKernel_v7000", "cuLaunchKernelEx"). */
bool gpa_api_is_kernel_launch(const char *name);

#endif /* GPA_SANITY_H */
