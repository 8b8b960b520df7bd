/* SPDX-License-Identifier: MIT */
/*
 * sanity.h - data no trace of a real run holds: durations that are negative
 * or longer than a day, records starting far away from the rest of the
 * trace, kernel launches without any kernel record, and the same trace
 * given twice (analyze/sanity.c). Every command shows each as a warning with
 * its count (gpa_sanity_warnings). What would distort windows and busy time
 * is kept out of the device timelines (gpa_model.gpu) and of the span of
 * the plausible records (gpa_model.bad): GPU operations starting far away or
 * lasting more than a day, and those of a process given twice; an input
 * that is the same file or the same bytes as an earlier one is not read.
 * Everything else stays in the model.
 */
#ifndef GPA_SANITY_H
#define GPA_SANITY_H

#include "analyze/model.h"

struct gpa_sanity {
	uint64_t negative;      /* records whose end was before their start (kept as 0 ns) */
	uint64_t absurd;        /* GPU operations and API calls longer than GPA_SANITY_MAX_NS */
	uint64_t absurd_max_ns; /* the longest of them */
	uint64_t absurd_gpu;    /* the GPU operations among them (left out of the timelines) */
	uint64_t outliers;      /* records starting far from the bulk (gpa_implausible) */
	uint64_t outlier_gpu;   /* the GPU operations among them (left out of the timelines) */
	uint64_t outlier_far_ns; /* the farthest of them from the plausible records */
	uint64_t launches_without_kernels; /* kernel launch calls of processes with no kernel */
	uint32_t procs_without_kernels;    /* those processes */
	uint32_t duplicates;      /* duplicate_files + duplicate_procs */
	uint32_t duplicate_files; /* inputs not read: the same file or bytes as an earlier one */
	uint32_t duplicate_procs; /* processes repeating an earlier one (GPU ops left out) */
	uint32_t first_duplicate, first_duplicate_of; /* process rows, GPA_NONE when none */
};

/* Whether the device timelines keep a GPU op of device dev (what gpa_sanity_prepare leaves). */
static inline bool gpa_sanity_keeps(const struct gpa_model *m, uint32_t dev, uint64_t start,
				    uint64_t end)
{
	uint32_t p = m->devs.v[dev].proc;

	return gpa_plausible(m, p, start, end) && !(m->bad.dup_of && m->bad.dup_of[p] != GPA_NONE);
}

/*
 * Which of paths[0, n) to read: keep[i] false for an input that is an
 * earlier kept one again, the same file (device and inode: directly,
 * through a link or a directory) or a regular file with the same bytes,
 * each recorded in m->bad.dup_inputs. Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_sanity_unique_inputs(struct gpa_model *m, const char *const *paths, size_t n, bool *keep);
/*
 * Once the device timelines are built (model.c): finds outliers and
 * processes given twice, takes implausible GPU operations out of the
 * timelines and sets m->bad. Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_sanity_prepare(struct gpa_model *m);
/* m->bad.t0, t1 once m->t0, t1 are known (model.c): the span of the plausible records. */
void gpa_sanity_span(struct gpa_model *m);
/* Frees what m->bad holds; the model's release calls it. */
void gpa_sanity_release(struct gpa_implausible *b);

/* Fills *out from the model; never fails. */
void gpa_sanity_check(const struct gpa_model *m, struct gpa_sanity *out);
/*
 * Calls fn with each warning sentence that *s calls for, in a stable
 * order, with its counts and what was left out; stops at fn's first
 * non-zero return and returns it (0 when all went, or none was due).
 */
int gpa_sanity_warnings(const struct gpa_model *m, const struct gpa_sanity *s,
			int (*fn)(void *data, const char *sentence), void *data);
/* Whether *s calls for any warning. */
bool gpa_sanity_any(const struct gpa_sanity *s);
/* Whether an API call name launches a kernel ("cudaLaunchKernel_v7000", "cuLaunchKernelEx"). */
bool gpa_api_is_kernel_launch(const char *name);

#endif /* GPA_SANITY_H */
