/* SPDX-License-Identifier: MIT */
/*
 * mfu.h - model FLOPs and bandwidth utilization (analyze/mfu.c, docs/mfu.md),
 * with what they are measured against: the device peak table and user device
 * files (analyze/devices.c) and the roofline of user rules (analyze/roofline.c).
 */
#ifndef GPA_MFU_H
#define GPA_MFU_H

#include "analyze/model.h"

/*
 * A copy timed in whole microseconds (traces of 1 us resolution) and shorter
 * than GPA_MFU_QUANTUM_MIN_NS is never a slow copy: its bandwidth is known
 * only to within the quantum (10 % or worse).
 */
#define GPA_MFU_QUANTUM_NS 1000u
#define GPA_MFU_QUANTUM_MIN_NS 10000u

struct gpa_steps;

/* ------------------------------------------------------------ device peaks */

/* Data types of the peak table. */
enum gpa_dtype {
	GPA_DT_FP64 = 0,    /* vector FP64 */
	GPA_DT_FP64_TC = 1, /* FP64 tensor core */
	GPA_DT_TF32 = 2,
	GPA_DT_BF16 = 3,    /* BF16 and FP16 tensor core, FP32 accumulate */
	GPA_DT_FP8 = 4,
	GPA_DT_INT8 = 5,    /* TOPS */
	GPA_DT_FP4 = 6,
	GPA_DT__COUNT = 7,
};

/* "fp64", "fp64-tc", "tf32", "bf16"/"fp16", "fp8", "int8", "fp4"; -1 when unknown. */
int gpa_dtype_parse(const char *s);
const char *gpa_dtype_name(enum gpa_dtype dt);

enum gpa_peak_source {
	GPA_PEAK_NONE = 0,     /* nothing known about the device */
	GPA_PEAK_TABLE = 1,    /* a row of the built-in table */
	GPA_PEAK_USER = 2,     /* a row of the user's device file */
	GPA_PEAK_ESTIMATE = 3, /* SMs x FLOP/clock/SM x clock: an estimate */
};

/* One GPU model: a row of the built-in table or of a user file. */
struct gpa_devrow {
	char key[32], name[64], patterns[160];
	uint8_t cc_major, cc_minor;
	uint32_t sms, mem_gib, boost_mhz;
	double tflops[GPA_DT__COUNT]; /* dense; 0: no such path */
	double mem_gbps;              /* GB/s */
	double nvlink_gbps;           /* total bidirectional GB/s; 0 none */
	uint8_t pcie_gen;             /* x16 host link generation; 0 none */
	bool disputed;                /* sources disagree: verify on the device */
	const char *source;           /* the document the figures come from; NULL: a device file */
	const char *note;             /* what the source leaves out ("" none); NULL: a device file */
};

/* The built-in table (analyze/devices.def). */
const struct gpa_devrow *gpa_devices_builtin(size_t *n);

/* Peaks of one device, from the table, a user file, overrides or an estimate. */
struct gpa_peaks {
	enum gpa_peak_source source;
	const char *name;             /* the row's name, "estimate" or "unknown"; static or borrowed */
	bool disputed, overridden;    /* overridden: --peak-tflops / --peak-bw applied */
	bool by_numbers;              /* the row was picked by CC, SMs and memory: a vague name */
	const char *recorded;         /* the trace's own name for the device ("" none); borrowed */
	const char *also;             /* by_numbers: another row with the same numbers; NULL none */
	const char *doc;              /* the row's source document; NULL when not a table row */
	double scale;                 /* compute scale for partial devices (MIG): SMs / row SMs */
	double tflops[GPA_DT__COUNT];
	double mem_gbps;
	double nvlink_gbps;           /* total bidirectional; per direction is half */
	double pcie_gbps;             /* per direction, x16 */
	uint8_t pcie_gen;
};

/* What the command line can change. */
struct gpa_peak_opts {
	const char *device;           /* --device NAME: a table key or name fragment */
	double peak_tflops;           /* --peak-tflops: the chosen dtype's peak; 0 keep */
	enum gpa_dtype dtype;         /* the dtype peak_tflops sets */
	double peak_gbps;             /* --peak-bw: memory bandwidth GB/s; 0 keep */
	const struct gpa_devrow *user; /* rows of a --device-file, tried before the table */
	size_t nuser;
};

/*
 * The peaks of model device index dev (gpa_model.devs), matched on name,
 * compute capability, SM count and memory size; unknown parts get an
 * estimate from SMs x clock (source GPA_PEAK_ESTIMATE). Without options:
 * gpa_device_peaks(m, dev, &p). Returns 0; -GP_ERR_NOTFOUND when --device
 * names nothing (errbuf), -GP_ERR_API for a bad dev.
 */
int gpa_device_peaks_opts(const struct gpa_model *m, uint32_t dev, const struct gpa_peak_opts *o,
			  struct gpa_peaks *out, char *errbuf, size_t errlen);
int gpa_device_peaks(const struct gpa_model *m, uint32_t dev, struct gpa_peaks *out);
/* The row --device NAME names: a key, a name or a name fragment (user rows first); NULL none. */
const struct gpa_devrow *gpa_device_find(const char *want, const struct gpa_devrow *user,
					 size_t nuser);
/*
 * Matches a device description against rows (user first, then built-in); NULL
 * none. A device with a name matches by name, the SM count and memory size
 * deciding between rows the name matches equally; cc, SMs and memory alone
 * pick a row only for a device whose name says no model (no name, or no digit
 * in it: gpa_device_name_is_vague), and then *by_numbers is set and *also
 * names another row with the same numbers, if any (both may be NULL).
 */
const struct gpa_devrow *gpa_device_match(const char *name, unsigned cc_major, unsigned cc_minor,
					  uint32_t sms, uint64_t mem_bytes,
					  const struct gpa_devrow *user, size_t nuser, bool *by_numbers,
					  const struct gpa_devrow **also);
/* True for a device name that names no model: NULL, empty, or without a digit. */
bool gpa_device_name_is_vague(const char *name);
/* PCIe x16 bandwidth per direction, GB/s (128b/130b encoding): gen 3 15.75, 4 31.5, 5 63, 6 126. */
double gpa_pcie_gbps(unsigned gen);

/*
 * Parses a device file (docs/mfu.md): one device per line of key=value
 * fields, '#' comments. Untrusted: errors name the file, line and problem.
 * Returns 0 with *rows (caller frees) or -GP_ERR_FORMAT / -GP_ERR_NOMEM.
 */
int gpa_devices_parse(const char *path, const char *text, size_t len, struct gpa_devrow **rows,
		      size_t *nrows, char *errbuf, size_t errlen);

/* ---------------------------------------------------------------- roofline */

/* User rules: a kernel-name pattern and FLOP and byte formulas (docs/mfu.md). */
struct gpa_roof_rules;
/* Parses a rules file (untrusted: errors name file, line, problem). Caller frees. */
int gpa_roof_rules_parse(const char *path, const char *text, size_t len,
			 struct gpa_roof_rules **out, char *errbuf, size_t errlen);
void gpa_roof_rules_free(struct gpa_roof_rules *rs);

enum gpa_roof_bound {
	GPA_ROOF_MEMORY = 1,   /* below the ridge */
	GPA_ROOF_COMPUTE = 2,  /* above it */
	GPA_ROOF_LATENCY = 3,  /* under 5 us a launch: not placed */
	GPA_ROOF_NO_VALUE = 4, /* the formulas gave no finite positive value */
	GPA_ROOF_NO_PEAK = 5,  /* the device has no peak for the datatype or no bandwidth */
	GPA_ROOF_IMPLAUSIBLE = 6, /* faster than the peak (efficiency > 1): not placed */
};

/* One kernel and launch configuration with a rule. Per launch: flops, bytes. */
struct gpa_roof_row {
	uint32_t func, shape, rule;
	enum gpa_dtype dtype;
	uint64_t launches, gpu_ns;
	double flops, bytes, ai;          /* FLOP/byte */
	double attainable_tflops;         /* min(peak x grid share, ai x bandwidth) */
	double achieved_tflops;
	double efficiency;                /* speed-of-light time / actual time */
	enum gpa_roof_bound bound;
};

struct gpa_roofline {
	double peak_tflops, bw_gbps, ridge; /* of the analysis's datatype; ridge in FLOP/byte */
	GP_VEC(struct gpa_roof_row) rows;   /* by GPU time, largest first */
	uint64_t matched_ns, unmatched_ns, unmatched_launches;
};

/* Places every kernel a rule matches (first matching rule wins). rs may be NULL (nothing placed). */
int gpa_roofline_analyze(const struct gpa_model *m, const struct gpa_roof_rules *rs,
			 const struct gpa_peaks *pk, enum gpa_dtype dtype, struct gpa_roofline *out,
			 char *errbuf, size_t errlen);
void gpa_roofline_release(struct gpa_roofline *r);

/* --------------------------------------------------------------------- MFU */

struct gpa_mfu_opts {
	double flops_per_step;    /* model FLOPs per step, all GPUs together; 0: from the model */
	double params;            /* N: non-embedding parameters (active, for MoE) */
	double layers, hidden, seq_len, tokens_per_step;
	bool attention;           /* add the 12 x layers x hidden x seq_len term per token */
	bool inference;           /* forward only: 2N (+ 4 L h T) per token */
	bool recompute;           /* full activation recomputation: HFU adds a forward pass */
	double bytes_per_step;    /* MBU: bytes moved per step, all GPUs together; 0 none */
	uint32_t gpus;            /* GPUs the step runs on; 0: the traced devices */
	enum gpa_dtype dtype;
	struct gpa_peak_opts peaks;
	const struct gpa_roof_rules *roofline; /* --roofline rules; NULL none */
};

/* Per step. */
struct gpa_mfu_step {
	uint32_t step;            /* gpa_steps.v index */
	uint64_t wall_ns;
	double mfu, hfu, mbu;     /* fractions; < 0 when not computable */
	double flops, bytes;      /* the step's FLOPs and bytes (SRC_OPS: its own; else the given) */
	double tflops_per_gpu;    /* achieved model TFLOP/s per GPU */
};

/* Copies of one kind and direction. */
struct gpa_copy_bw {
	uint8_t copy_kind, src_kind, dst_kind;
	uint64_t count, bytes, ns;
	double gbps;              /* bytes / ns summed */
	double link_gbps;         /* the link it used, per direction; 0 unknown */
	const char *link;         /* "PCIe gen 5", "NVLink", "HBM", "" */
};

/* A copy much slower than its group. */
struct gpa_copy_outlier {
	uint32_t row;             /* gpa_model.copy */
	double gbps;
	const char *why;          /* "pageable host memory", "small transfer", "slow" */
};

/* Where the FLOPs (bytes) per step came from. */
enum gpa_mfu_source {
	GPA_MFU_SRC_NONE = 0,
	GPA_MFU_SRC_GIVEN = 1,  /* --flops-per-step, --bytes-per-step */
	GPA_MFU_SRC_MODEL = 2,  /* the model description: --params, --tokens-per-step, ... */
	GPA_MFU_SRC_OPS = 3,    /* per step, the recorded operators' FLOPs and bytes (ops.h) */
};

struct gpa_mfu {
	struct gpa_peaks peaks;   /* of the first device */
	uint32_t gpus;
	double flops_per_step, hw_flops_per_step; /* 0 when not given; SRC_OPS: the median step's */
	double bytes_per_step;    /* SRC_OPS: the median step's; else as given */
	enum gpa_mfu_source flops_source, bytes_source;
	/* SRC_OPS: the share of GPU time (outside communication operators) whose
	 * operators have a FLOP (byte) model, 0 to 1; what the MFU (MBU) leaves out
	 * is the rest. Below 0.5 it is a warning. */
	double flops_cover, bytes_cover;
	bool has_flops, has_bytes;
	GP_VEC(struct gpa_mfu_step) steps;
	double mfu_median, hfu_median, mbu_median; /* < 0 when not computable */
	GP_VEC(struct gpa_copy_bw) copies;
	GP_VEC(struct gpa_copy_outlier) outliers; /* slowest first, at most 20 */
	struct gpa_roofline roof; /* with opts.roofline */
};

/*
 * Model FLOPs per token for training (6N + 12 L h T with attention, PaLM
 * appendix B) or inference (2N + 4 L h T); hardware FLOPs add a forward pass
 * with recompute (8N + 16 L h T). Exposed for tests.
 */
double gpa_mfu_flops_per_token(const struct gpa_mfu_opts *o, bool hardware);

/*
 * Step MFU/HFU/MBU, copy bandwidth by kind against the link, slow copies.
 * Checks the options (finite, positive, not absurd) and returns -GP_ERR_API
 * with the reason in errbuf when one is not; -GP_ERR_NOTFOUND for an unknown
 * --device; -GP_ERR_NOMEM.
 */
int gpa_mfu_analyze(const struct gpa_model *m, const struct gpa_steps *steps,
		    const struct gpa_mfu_opts *o, struct gpa_mfu *out, char *errbuf, size_t errlen);
void gpa_mfu_release(struct gpa_mfu *u);

#endif /* GPA_MFU_H */
