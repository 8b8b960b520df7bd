/* SPDX-License-Identifier: MIT */
/*
 * overview.h - what was traced, memory traffic and the warnings a report must
 * show (analyze/overview.c).
 */
#ifndef GPA_OVERVIEW_H
#define GPA_OVERVIEW_H

#include "analyze/model.h"
#include "analyze/sanity.h"

struct gpa_steps;

/* Copies and sets by direction: what the memory-traffic section shows. */
struct gpa_traffic {
	uint8_t copy_kind;   /* CUpti_ActivityMemcpyKind; 0 for memset */
	uint64_t count, bytes;
	uint64_t time_ns;    /* sum of durations */
};

struct gpa_overview {
	uint64_t first_ns, last_ns; /* model span */
	uint64_t events;
	uint64_t kernels, copies, sets, api_calls, nvtx_ranges;
	uint64_t kernel_time_ns;    /* sum of kernel durations (not a union) */
	GP_VEC(struct gpa_traffic) traffic; /* by total time, descending */
	GP_VEC(char *) warnings;    /* sentences, in a stable order */
	struct gpa_sanity sanity;   /* implausible data; each count > 0 is also a warning */
};

/*
 * What was traced, memory traffic and the warnings a report must show
 * (records lost, files cut short or corrupt, steps not found, GPU ops
 * outside every step or without their launch call, unaligned clocks).
 * steps may be NULL.
 */
int gpa_overview_build(const struct gpa_model *m, const struct gpa_steps *steps,
		       struct gpa_overview *out);
void gpa_overview_release(struct gpa_overview *o);
/* Appends a copy of sentence to o's warnings. Returns 0 or -GP_ERR_NOMEM. */
int gpa_overview_warn(struct gpa_overview *o, const char *sentence);
/* "Host-to-Device", "Device-to-Host", ... or "memset" for 0. */
const char *gpa_copy_kind_name(unsigned kind);

#endif /* GPA_OVERVIEW_H */
