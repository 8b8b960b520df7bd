/* SPDX-License-Identifier: MIT */
/*
 * ops.h - operations, not just kernels (analyze/ops.c, analyze/op-models.c,
 * docs/ops.md): every kernel, copy and memset goes to the leaf CPU operator
 * that launched it (the innermost PyTorch cpu_op range enclosing its launch
 * call on that thread); each operator's FLOPs and bytes come from its
 * recorded inputs (PyTorch record_shapes) through a stated performance
 * model; operators are summarised by name and by unique inputs, with
 * achieved TFLOP/s and TB/s against the device's roofline.
 */
#ifndef GPA_OPS_H
#define GPA_OPS_H

#include "analyze/mfu.h"
#include "analyze/model.h"

/* The performance model an operator was given. */
enum gpa_op_kind {
	GPA_OPK_NONE = 0,    /* no model: time only */
	GPA_OPK_GEMM = 1,
	GPA_OPK_CONV = 2,
	GPA_OPK_ATTN = 3,
	GPA_OPK_NORM = 4,
	GPA_OPK_SOFTMAX = 5,
	GPA_OPK_EMBEDDING = 6,
	GPA_OPK_UNARY = 7,
	GPA_OPK_BINARY = 8,
	GPA_OPK_REDUCE = 9,
	GPA_OPK_COPY = 10,
	GPA_OPK__COUNT = 11,
};

const char *gpa_op_kind_name(enum gpa_op_kind k);

/* FLOPs and bytes of one operator call. */
struct gpa_op_perf {
	enum gpa_op_kind kind;
	double flops;        /* 0 for data movement */
	double bytes;        /* minimum traffic: inputs read once, outputs written once */
	int dtype;           /* enum gpa_dtype whose peak applies; -1 unknown */
	char dtype_name[32];  /* the compute data type as recorded ("c10::BFloat16") */
	const char *why;     /* kind NONE: why no model (static text) */
	bool untyped;        /* sizes without data types (NVTX ranges): FLOPs only, bytes 0 */
};

/*
 * The performance model of operator `name` called with recorded inputs
 * `sig` (NVTX field args, trace/FORMAT.md; NULL or "" none). Returns 1 and
 * fills *out when a model applies; 0 with out->kind NONE and out->why when
 * none does (unknown operator, no shapes, shapes the model cannot read).
 */
int gpa_op_perf(const char *name, const char *sig, struct gpa_op_perf *out);

/* A distribution of per-call values. */
struct gpa_op_dist {
	double mean, median, min, max;
};

/* One row: an operator name, or a name with one set of inputs. */
struct gpa_op_row {
	const char *name;       /* borrowed from the model */
	const char *args;       /* the inputs (signature), "" none; by-name rows: NULL */
	uint64_t count;         /* calls that ran GPU work */
	uint64_t gpu_ops;       /* kernels, copies and memsets they launched */
	uint64_t gpu_ns;        /* Σ of their durations */
	struct gpa_op_perf perf; /* per call (by-args rows); kind and dtype for by-name rows */
	double flops, bytes;    /* totals over the calls */
	uint64_t modelled;      /* calls with a model (by-name rows mix) */
	struct gpa_op_dist tflops, tbps; /* achieved, per call (modelled calls only) */
	uint64_t gpu_ns_min, gpu_ns_max, gpu_ns_median;
	double peak_tflops;     /* device peak for the dtype; 0 unknown */
	double peak_tbps;       /* device memory bandwidth, TB/s; 0 unknown */
	double ridge;           /* FLOP/byte at which the roofs meet; 0 unknown */
	int bound;              /* 1 compute, 2 memory, 0 unknown */
	double roof_pct;        /* achieved / attainable at its FLOP/byte, %; <0 unknown */
	bool implausible;       /* faster than the device's peak: not placed (roof_pct < 0) */
};

/*
 * An operator whose achieved FLOP/s or bytes/s exceeds the device's peak: its
 * model or its recorded shapes and types are not what ran, or the device is
 * not the one matched. The by-inputs row furthest over its peak.
 */
struct gpa_op_implausible {
	const char *name, *args;  /* borrowed from the model */
	enum gpa_op_kind kind;
	bool compute;             /* FLOP/s over the dtype's peak; else bytes/s over memory */
	double achieved, peak;    /* TFLOP/s or TB/s */
};

struct gpa_ops_opts {
	size_t top;             /* rows kept per table, by GPU time; 0 all */
	struct gpa_peak_opts peaks;
};

struct gpa_ops {
	GP_VEC(struct gpa_op_row) by_name;  /* by GPU time, largest first */
	GP_VEC(struct gpa_op_row) by_args;
	uint64_t cpu_ops;          /* CPU operator ranges in the trace */
	uint64_t cpu_ops_shaped;   /* of those, with recorded inputs */
	uint64_t gpu_ops;          /* kernels, copies, memsets */
	uint64_t gpu_ops_in_ops;   /* of those, launched inside a CPU operator */
	uint64_t gpu_ns, gpu_ns_in_ops, gpu_ns_modelled;
	double flops, bytes;       /* Σ over modelled calls */
	size_t names_total, args_total; /* rows before --top */
	struct gpa_peaks peaks;    /* of the first device with work */
	uint64_t implausible;      /* by-inputs rows faster than the peak (never placed) */
	uint64_t implausible_ns;   /* their GPU time */
	struct gpa_op_implausible worst; /* implausible: the row furthest over its peak */
	const char *why_none;      /* no rows: why (static) */
};

/*
 * The leaf CPU operator of GPU row i (kernel, copy or memset): the NVTX
 * range (index into m->nvtx) of the innermost CPU operator enclosing its
 * launch call, GPA_NONE when it has none.
 */
uint32_t gpa_ops_leaf(const struct gpa_model *m, size_t i);

/* Whether the trace has CPU operator ranges (PyTorch profiler cpu_op events). */
bool gpa_ops_any(const struct gpa_model *m);

/*
 * The implausible-data warning of o, one sentence naming the operator
 * furthest over the device's peak and its model, appended to out; nothing
 * when no row was over the peak. `ops` prints it, and `report` lists it
 * among its warnings. Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_ops_implausible_sentence(struct gp_strbuf *out, const struct gpa_ops *o);

struct gpa_steps;

/* How much GPU time the operator models cover (gpa_ops_step_totals). */
struct gpa_ops_cover {
	uint64_t gpu_ns;   /* every kernel, copy and memset */
	uint64_t flops_ns; /* of which launched by operator calls with FLOPs from a model */
	uint64_t bytes_ns; /* ... with bytes from a model */
	uint64_t comm_ns;  /* of gpu_ns, launched by communication operators (no FLOPs by nature) */
};

/*
 * Model FLOPs and minimum bytes of each step (steps->v order, arrays of
 * steps->v.n the caller owns): the sum over the modelled leaf operator
 * calls that launched GPU work and began inside the step, on the step's
 * process (bytes all 0 when some call's are unknown, perf.untyped), and in
 * *cover (may be NULL) the GPU time the models cover, over the whole trace.
 * Returns the number of calls counted, or -GP_ERR_NOMEM.
 */
int gpa_ops_step_totals(const struct gpa_model *m, const struct gpa_steps *steps, double *flops,
			double *bytes, struct gpa_ops_cover *cover);

/* Fills *out (zeroed here). Returns 0, or a negative error with errbuf set. */
int gpa_ops_analyze(const struct gpa_model *m, const struct gpa_ops_opts *o, struct gpa_ops *out,
		    char *errbuf, size_t errlen);
void gpa_ops_release(struct gpa_ops *r);

#endif /* GPA_OPS_H */
