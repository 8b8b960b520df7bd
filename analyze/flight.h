/* SPDX-License-Identifier: MIT */
/*
 * flight.h - flight recordings (docs/flight-recorder.md): what triggered a
 * save, from the flight PROCESS record (phase 3, trace/FORMAT.md) the model
 * keeps, and the slow step compared with the median step of the same file
 * through diff's explanation engine (analyze/diff-explain.c).
 */
#ifndef GPA_FLIGHT_H
#define GPA_FLIGHT_H

#include "analyze/diff.h"
#include "analyze/model.h"

struct gpa_steps;
struct gpa_commclass;

/* The trigger record of a flight recording; zeroed (is_flight false) for any other trace. */
struct gpa_flight_info {
	bool is_flight;
	char trigger[32];         /* "slow-step", "signal", "cuda-error", "nccl-error", "crash", "exit", "rank" */
	char *what;               /* the trigger in words; caller frees with _release */
	uint64_t trigger_ts;      /* trace clock */
	uint64_t step_start, step_end, median_ns; /* slow-step: the step, the median it beat */
	uint64_t window_start;    /* the oldest record kept (trace clock), 0 unknown */
	uint64_t dropped_chunks, dropped_records; /* left the ring before the save */
	uint64_t suppressed;      /* triggers within the cool-down before this save */
	uint32_t proc;            /* the model's process that carries it */
};

/*
 * The flight trigger the model's files carry (gpa_proc.flight: the last
 * save's record of a file), of the first process that has one; is_flight
 * false when none does. A status that does not parse is no trigger. 0 or
 * -GP_ERR_NOMEM.
 */
int gpa_flight_of_model(const struct gpa_model *m, struct gpa_flight_info *out);
void gpa_flight_info_release(struct gpa_flight_info *fi);

/* A name whose time per step grew in the slow step (an NVTX range or a kernel). */
struct gpa_flight_grew {
	const char *name;     /* model string; borrowed from the model */
	bool kernel;          /* a kernel's name, else an NVTX range's */
	uint64_t slow_ns;     /* in the slow step */
	uint64_t median_ns;   /* median over the other steps */
};

struct gpa_flight_cmp {
	bool have;              /* a slow step and at least GPA_FLIGHT_MIN_NORMAL others */
	uint32_t step;          /* gpa_steps.v index of the slow step */
	size_t normal;          /* the steps it is compared with */
	uint64_t slow_ns, median_ns; /* step wall times */
	/*
	 * step.wall, path.<category> and idle.<cause>: the other steps are the
	 * baseline (med_a, mean_a), the slow step the candidate (one sample);
	 * explain ranks the categories as diff does.
	 */
	struct gpa_diff_result res;
	GP_VEC(struct gpa_flight_grew) grew; /* largest growth first, at most GPA_FLIGHT_TOP */
};
#define GPA_FLIGHT_MIN_NORMAL 2
#define GPA_FLIGHT_TOP 5

/*
 * Picks the slow step (the one the trigger names, else the longest) and
 * compares it with the other steps of its process. cmp->have is false when
 * there are too few steps. Release with gpa_flight_cmp_release (also after
 * an error). 0, -GP_ERR_NOMEM, or an analysis error with errbuf.
 */
int gpa_flight_compare(const struct gpa_model *m, const struct gpa_steps *steps,
		       const struct gpa_commclass *cc, const struct gpa_flight_info *fi,
		       struct gpa_flight_cmp *cmp, char *errbuf, size_t errlen);
void gpa_flight_cmp_release(struct gpa_flight_cmp *cmp);

#endif /* GPA_FLIGHT_H */
