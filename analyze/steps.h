/* SPDX-License-Identifier: MIT */
/*
 * steps.h - training steps (analyze/steps.c): ProfilerStep#N ranges (or the
 * ranges a user's pattern names), else annotations that repeat and hold most
 * of the GPU work, else the training loop's own annotations (DataLoader
 * fetch, zero_grad, optimizer step), else cudaProfilerStart/Stop ranges,
 * else one step per process; every GPU op is assigned to the step it was
 * launched in.
 */
#ifndef GPA_STEPS_H
#define GPA_STEPS_H

#include "analyze/model.h"

enum gpa_step_source {
	GPA_STEPS_NVTX = 1,     /* NVTX ranges matching the step pattern */
	GPA_STEPS_PROFILER = 2, /* cudaProfilerStart/Stop ranges */
	GPA_STEPS_WHOLE = 3,    /* no steps found: the whole trace of each process */
	GPA_STEPS_REPEAT = 4,   /* an annotation that repeats and holds most GPU work */
	GPA_STEPS_LOOP = 5,     /* iterations between the training loop's own annotations */
};

struct gpa_step {
	uint32_t proc;
	uint32_t nvtx;          /* the NVTX range, or GPA_NONE */
	uint32_t name;          /* model string id; 0 for whole-trace steps */
	int64_t number;         /* N of "...#N" when the name has one, else the ordinal */
	uint64_t start, end;    /* the CPU range that defines the step */
	uint32_t gpu_ops;       /* GPU ops launched inside it */
	uint64_t gpu_start, gpu_end; /* first start and last end of those ops (0 when none) */
	uint64_t gpu_busy;      /* on its devices, GPU busy within [start, end], summed */
	uint32_t gpu_devices;   /* the devices that ran them */
};

/* Order statistics of one per-step quantity, in ns. */
struct gpa_dist {
	uint64_t min, max, median, p90, sum;
};

struct gpa_steps {
	enum gpa_step_source source;
	char *pattern;                /* the regex used, for NVTX steps */
	GP_VEC(struct gpa_step) v;    /* by process, then start */
	/*
	 * Per gpa_model.gpu row: its step or GPA_NONE, read with gpa_step_of;
	 * in 16 bits (UINT16_MAX: none) when there are fewer than 65535 steps,
	 * else in 32. Both NULL when no op was assigned (gpa_steps_assigned).
	 */
	uint16_t *gpu_step16;
	uint32_t *gpu_step;
	uint64_t unassigned_ops;      /* GPU ops launched outside every step */
	uint64_t unlinked_ops;        /* GPU ops with no API call: placed by their own start */
	struct gpa_dist wall, busy;   /* over all steps */
};

/* Whether the steps' GPU ops were assigned to them (gpa_step_of may be called). */
static inline bool gpa_steps_assigned(const struct gpa_steps *s)
{
	return s->gpu_step16 || s->gpu_step;
}

/* The step of gpa_model.gpu row g, GPA_NONE when none. */
static inline uint32_t gpa_step_of(const struct gpa_steps *s, size_t g)
{
	if (s->gpu_step16) {
		return s->gpu_step16[g] == UINT16_MAX ? GPA_NONE : s->gpu_step16[g];
	}
	return s->gpu_step[g];
}

/*
 * What a step's busy % divides gpu_busy by: its wall (end - start) times the
 * devices that ran its work; gpu_busy lies within the wall on each of them,
 * so the share is per device and never over 100 %. 0 for a step without GPU
 * work.
 */
uint64_t gpa_step_busy_basis(const struct gpa_step *s);

/* The default step pattern (PCRE2): ProfilerStep#N. */
#define GPA_STEP_PATTERN_PROFILER "^ProfilerStep#[0-9]+$"
/* Among repeating annotations that qualify as steps, names like these are preferred. */
#define GPA_STEP_PATTERN_DEFAULT "(?i)(^|[^a-z])(step|iteration|iter)([^a-z]|$)"

/*
 * Without ProfilerStep#N, an annotation name gives the steps when its
 * outermost ranges (user annotations or NVTX ranges; never CPU-op or Python
 * frames) repeat: at least GPA_STEP_MIN_REPEAT of them hold GPU work launched
 * inside them, and together they hold at least GPA_STEP_MIN_COVER_PCT % of
 * the GPU time of all ops, or of the kernel time (each op placed at its
 * launch call). Only its ranges that hold GPU work are steps; each lasts
 * from its range's start to the later of its end and the end of the GPU
 * work launched inside it (a range around a launch is an iteration that
 * ends when its work does). Of several such names: one like
 * GPA_STEP_PATTERN_DEFAULT first, then the most GPU time, then the most ranges.
 */
#define GPA_STEP_MIN_REPEAT 2
#define GPA_STEP_MIN_COVER_PCT 50

/*
 * The annotations a training loop makes once per iteration (PyTorch names
 * them "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
 * "Optimizer.zero_grad#SGD.zero_grad", "Optimizer.step#SGD.step"), by family.
 */
#define GPA_LOOP_PATTERN_FETCH "(?i)^enumerate\\(dataloader\\)|dataloader.*(__next__|_next$)"
#define GPA_LOOP_PATTERN_ZERO_GRAD "(?i)(^|[^a-z0-9])zero_grad([^a-z0-9]|$)"
#define GPA_LOOP_PATTERN_STEP "(?i)(^|[^a-z0-9])optimizer[._]step([^a-z0-9]|$)"

/*
 * Without ProfilerStep#N and without a repeating annotation named like a
 * step, the training loop's own annotations delimit iterations
 * (GPA_STEPS_LOOP), one process at a time, on the thread that makes most of
 * them; only the outermost of nested loop annotations counts (user
 * annotations and NVTX ranges, never Python frames). Each loop annotation
 * name there must occur as often as the others, give or take one (a
 * DataLoader fetched twice per optimizer step is gradient accumulation, or
 * an evaluation loop: which one is the iteration is unknown, so none is).
 * The annotation that delimits them is the fetch or zero_grad that comes
 * first after an optimizer step (else the first in the trace): each
 * iteration runs from one to the next; the last ends at the end of the
 * optimizer step that follows it plus the median time the others ran after
 * their step (without optimizer steps: after the median iteration), never
 * after the thread's last call, and is dropped when no step follows it.
 * With optimizer steps alone, the last one's ends delimit them, the first
 * from the process's first GPU launch. At least GPA_STEP_MIN_REPEAT
 * iterations hold GPU work, and together they hold GPA_STEP_MIN_COVER_PCT %
 * of the GPU time or of the kernel time, as for repeating annotations.
 */
/*
 * Finds the steps: NVTX ranges matching regex (only the outermost matching
 * range of a nest counts); regex NULL: ProfilerStep#N ranges if any, else
 * repeating annotations as above when one is named like a step, else the
 * training loop's annotations, else any repeating annotation; then cudaProfilerStart/Stop ranges, else
 * one step per process spanning its records. Every GPU op is assigned
 * to the step whose CPU range contains the start of the API call that
 * launched it (ops without one: their own start). The last step is kept
 * like any other. Returns 0, or -GP_ERR_API for a bad regex (message in
 * errbuf), -GP_ERR_NOMEM.
 */
int gpa_steps_find(const struct gpa_model *m, const char *regex, struct gpa_steps *out,
		   char *errbuf, size_t errlen);
/*
 * As gpa_steps_find, the steps alone: which they are (their ranges, numbers,
 * names, CPU starts and ends), no op assigned to them (gpa_steps_assigned false) and no
 * per-step GPU figures; for a flame graph that only merges step ranges.
 */
int gpa_steps_find_ranges(const struct gpa_model *m, const char *regex, struct gpa_steps *out,
			  char *errbuf, size_t errlen);
void gpa_steps_release(struct gpa_steps *s);

/* Fills d from n values (sorted in place). Median and p90 interpolate linearly. */
void gpa_dist_of(uint64_t *vals, size_t n, struct gpa_dist *d);

#endif /* GPA_STEPS_H */
