/* SPDX-License-Identifier: MIT */
/*
 * launches.h - launch and queue analytics (analyze/launches.c,
 * docs/launches.md): per GPU op launched by a recorded API call, the CPU
 * time of the call and the delay until the op started; queue length per
 * stream; copy bandwidth per copy kind; idle intervals per stream; GPU-side
 * user annotations.
 */
#ifndef GPA_LAUNCHES_H
#define GPA_LAUNCHES_H

#include "analyze/model.h"

struct gpa_launches_opts {
	uint64_t runtime_cutoff_ns; /* launch calls longer are outliers; short kernels: call <= this */
	uint64_t delay_cutoff_ns;   /* launch delays longer are outliers */
	uint64_t kernel_wait_ns;    /* idle intervals shorter (queued work) are kernel waits */
	uint64_t max_queue;         /* a stream at this queue length or more is full */
	size_t top;                 /* per-name rows kept (by launch count) */
	const char *api_regex;      /* PCRE2: only ops of launch calls so named count in the
				     * per-launch figures and queues; NULL every call */
	bool last_step;             /* HTA's last-step filter (analyze/breakdown.h GPA_BD_LAST_STEP) */
	bool brief;                 /* only the overall counts and the cpu and delay
				     * distributions (report's section): no per-name rows,
				     * queues, copies, idle or annotations, no gpu distribution;
				     * linear time and 4 bytes per GPU op */
};

void gpa_launches_opts_init(struct gpa_launches_opts *o);

/* A distribution of nanosecond values: count, mean, std (n - 1), quantiles. */
struct gpa_launch_dist {
	uint64_t n;
	double mean, std;
	double min, p25, p50, p75, p90, max;
	uint64_t sum;
};

/* Launches of one kernel name (or one copy kind, or memset). */
struct gpa_launch_name {
	const char *name;
	uint64_t short_kernels;
	struct gpa_launch_dist cpu, delay, gpu;
};

/* Queue length of one stream: launched (call started) but not yet started GPU ops. */
struct gpa_launch_queue {
	uint32_t proc;
	uint16_t dev;
	uint32_t stream;
	struct gpa_launch_dist len; /* over the change points, not time weighted (as HTA) */
	uint64_t max_len;
	uint64_t blocked_ns;        /* time at queue length >= max_queue */
	uint64_t window_ns;         /* the process's span, for the relative figure */
	uint64_t weighted_sum;      /* Σ length × time (length-ns), for the time-weighted mean */
	uint64_t span_ns;           /* first to last change point */
};

/* Bandwidth of one copy kind (or memset), per op: bytes / duration in GB/s. */
struct gpa_launch_copy {
	const char *kind;
	uint64_t bytes, zero_dur;
	struct gpa_launch_dist gbps; /* values in GB/s (not ns) */
};

enum gpa_idle_cat {
	GPA_IDLE_HOST_WAIT = 0,   /* the launch call started after the previous op ended */
	GPA_IDLE_KERNEL_WAIT = 1, /* otherwise, shorter than kernel_wait_ns */
	GPA_IDLE_OTHER = 2,       /* otherwise */
	GPA_IDLE__COUNT = 3,
};
const char *gpa_idle_cat_name(unsigned cat);

/* Idle intervals of one stream and category: gaps between consecutive ops. */
struct gpa_launch_idle {
	uint32_t proc;
	uint16_t dev;
	uint32_t stream;
	uint8_t cat;
	struct gpa_launch_dist gap;
};

/* GPU-side user annotations (Kineto gpu_user_annotation) of one name. */
struct gpa_launch_annot {
	const char *name;
	struct gpa_launch_dist dur;
};

struct gpa_launches {
	struct gpa_launches_opts opts;
	uint64_t short_kernels;  /* call <= runtime cutoff and the op ran shorter than the call */
	uint64_t cpu_outliers;   /* call longer than runtime_cutoff_ns */
	uint64_t delay_outliers; /* delay longer than delay_cutoff_ns */
	uint64_t unlinked;       /* GPU ops without a launch call */
	uint64_t graph_ops;      /* ops a graph launch ran: not per-launch figures */
	uint64_t other_api;      /* ops launched by calls api_regex does not match: not counted */
	uint64_t dropped;        /* ops the last-step filter dropped: in no figure */
	struct gpa_launch_dist cpu, delay, gpu;
	uint64_t names_total;    /* distinct names before the top cut */
	GP_VEC(struct gpa_launch_name) names;   /* by launch count, then name */
	GP_VEC(struct gpa_launch_queue) queues; /* by process, device, stream */
	GP_VEC(struct gpa_launch_copy) copies;  /* by kind */
	GP_VEC(struct gpa_launch_idle) idle;    /* by process, device, stream, category */
	GP_VEC(struct gpa_launch_annot) annots; /* by total time, then name */
};

/*
 * Fills out (released with gpa_launches_release). 0, -GP_ERR_NOMEM, or
 * -GP_ERR_API for a bad api_regex (said in errbuf).
 */
int gpa_launches_analyze(const struct gpa_model *m, const struct gpa_launches_opts *o,
			 struct gpa_launches *out, char *errbuf, size_t errlen);
void gpa_launches_release(struct gpa_launches *l);

/* The distribution of n values (sorted in place). */
void gpa_launch_dist_of(uint64_t *v, size_t n, struct gpa_launch_dist *d);

#endif /* GPA_LAUNCHES_H */
