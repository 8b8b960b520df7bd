/* SPDX-License-Identifier: MIT */
/*
 * diff.h - regression statistics (analyze/diffstat.c) and the comparison of
 * two sets of runs (analyze/diff.c), docs/diff.md. Pure computation: samples
 * in, verdicts out.
 */
#ifndef GPA_DIFF_H
#define GPA_DIFF_H

#include "analyze/model.h"
#include "analyze/steps.h"

/* The Mann-Whitney U test of two samples. */
struct gpa_mwu {
	double u1;    /* U of the first sample: pairs (a, b) with a > b, ties counted 1/2 */
	double z;     /* normal approximation's z with continuity correction (0 when exact) */
	double p;     /* two-sided p-value */
	bool exact;   /* from the permutation distribution (no ties, both sizes <= 20) */
};

/* Largest sample size per side for which the exact distribution is used. */
#define GPA_MWU_EXACT_MAX 20

/*
 * Two-sided Mann-Whitney U test of a (na values) against b (nb values).
 * Exact when neither sample has more than GPA_MWU_EXACT_MAX values and the
 * pooled sample has no ties: p = 2 P(U <= min(U1, na nb - U1)), capped at 1.
 * Otherwise the normal approximation with mid-ranks, the tie-corrected
 * variance and a continuity correction of 1/2. Empty samples give p = 1.
 * Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_mwu_test(const double *a, size_t na, const double *b, size_t nb, struct gpa_mwu *out);

/* The median of n values (reordered in place); the mean of the middle two when n is even. */
double gpa_median(double *v, size_t n);

/* The q-quantile (0..1) of n sorted values, interpolating linearly between order statistics. */
double gpa_quantile_sorted(const double *sorted, size_t n, double q);

/*
 * One side of a comparison: values grouped by run. Run r holds
 * v[off[r]] .. v[off[r + 1] - 1]; off has nruns + 1 entries.
 */
struct gpa_sample {
	const double *v;
	const size_t *off;
	size_t nruns;
};

struct gpa_boot_opts {
	unsigned reps;  /* resamples (10000) */
	double level;   /* confidence level (0.95) */
	uint64_t seed;  /* the base/ RNG's seed: same seed, same interval */
};

/*
 * Percentile bootstrap interval of med(b) / med(a) - 1 at o->level: each
 * resample draws runs with replacement, then values with replacement inside
 * each drawn run (a two-stage bootstrap, so run-to-run variation counts;
 * with one run per side it is the ordinary bootstrap), independently for a
 * and b. A zero baseline median makes a resample +inf (or 0 when both are
 * zero). Returns 0, -GP_ERR_API for an empty side or 0 reps, -GP_ERR_NOMEM.
 */
int gpa_boot_ratio_ci(const struct gpa_sample *a, const struct gpa_sample *b,
		      const struct gpa_boot_opts *o, double *lo, double *hi);

/*
 * Adjusted p-values for n tests, written to q (may alias p): Benjamini-
 * Hochberg (false discovery rate) or Holm (family-wise error rate).
 * Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_adjust_bh(const double *p, size_t n, double *q);
int gpa_adjust_holm(const double *p, size_t n, double *q);

enum gpa_verdict {
	GPA_VERDICT_UNCHANGED = 0,
	GPA_VERDICT_IMPROVED = 1,
	GPA_VERDICT_INCONCLUSIVE = 2,
	GPA_VERDICT_REGRESSED = 3,
};

/* "unchanged", "improved", "inconclusive", "regressed". */
const char *gpa_verdict_name(unsigned v);

/* What a verdict is decided from. The change is med(b)/med(a) - 1 and its interval. */
struct gpa_verdict_in {
	double delta, ci_lo, ci_hi;
	double p;              /* adjusted for multiple comparisons */
	double alpha;
	double min_effect;     /* relative change below which nothing matters (0.02) */
	bool higher_better;    /* MFU: a drop is the regression */
	size_t na, nb;         /* samples per side */
	size_t runs_a, runs_b; /* runs per side */
	size_t min_samples;    /* fewer samples on a side: inconclusive (4) */
};

/*
 * regressed: p < alpha and the whole interval lies beyond +min_effect in the
 * bad direction; improved: the same in the good direction; unchanged: the
 * interval lies inside (-min_effect, +min_effect); anything else (and fewer
 * than min_samples on a side) is inconclusive, and *more_runs (may be
 * NULL) estimates the runs per side to add: the interval's half-width
 * shrinks as 1/sqrt(runs), so runs * (half-width / distance of the
 * estimate from the nearest threshold)^2 runs are needed (at most 1000;
 * below min_samples, what reaches it).
 */
enum gpa_verdict gpa_verdict_decide(const struct gpa_verdict_in *in, uint32_t *more_runs);

/* ------------------------------------------------------ comparing runs */

enum gpa_diff_unit {
	GPA_DIFF_NS = 0,    /* nanoseconds per step */
	GPA_DIFF_BYTES = 1, /* bytes per step */
	GPA_DIFF_RATIO = 2, /* a fraction (MFU) */
};

/* How the samples of a comparison were formed. */
enum gpa_diff_samples {
	GPA_DIFF_STEPS = 0,       /* per-step values, pooled across runs */
	GPA_DIFF_RUN_MEDIANS = 1, /* one per run: the median of its steps (step counts differ) */
	GPA_DIFF_WHOLE_RUNS = 2,  /* one per run: traces without steps, the whole run is one */
};

enum gpa_diff_correction {
	GPA_DIFF_BH = 0,   /* Benjamini-Hochberg over every compared metric */
	GPA_DIFF_HOLM = 1, /* Holm over every compared metric */
	GPA_DIFF_NONE = 2,
};

/* A per-metric minimum effect: the last matching pattern (fnmatch) wins. */
struct gpa_diff_threshold {
	char *pattern;
	double min_effect;
};

/* Kernel-name normalization rules: PCRE2 substitutions applied in order. */
struct gpa_kname_rules;

/*
 * The built-in rules (docs/diff.md): drop the return type, parameter list
 * and template arguments, architecture prefixes and suffixes (sm80_, _sm90a,
 * ampere_), tile sizes (128x128x64 -> N), hexadecimal hashes and a trailing
 * instance number (triton_..._0). with_defaults false starts empty.
 */
int gpa_kname_rules_new(bool with_defaults, struct gpa_kname_rules **out);
void gpa_kname_rules_free(struct gpa_kname_rules *r);
/* Appends a rule: every match of regex (PCRE2) becomes repl ($1 refers to groups). */
int gpa_kname_rules_add(struct gpa_kname_rules *r, const char *regex, const char *repl,
			char *errbuf, size_t errlen);
/* The family of a kernel name (demangled when it can be). Caller frees. NULL on no memory. */
char *gpa_kname_normalize(const struct gpa_kname_rules *r, const char *name);

/* What kernel time is grouped by (--by). */
enum gpa_diff_by {
	GPA_DIFF_BY_KERNEL = 0,    /* kernel.<family>: normalized kernel names */
	GPA_DIFF_BY_OP = 1,        /* op.<name>: the leaf CPU operator that launched the kernel */
	GPA_DIFF_BY_OP_INPUTS = 2, /* op.<name> (<inputs>): the operator and its recorded inputs */
};

struct gpa_diff_opts {
	const char *step_regex;      /* NULL: the default step pattern */
	const char *data_regex;      /* data-loader names for idle causes; NULL: the default */
	uint32_t skip_steps;         /* warm-up steps dropped at the start of every process */
	double alpha;                /* 0.05 */
	double min_effect;           /* 0.02 */
	size_t min_samples;          /* 4 */
	struct gpa_boot_opts boot;
	enum gpa_diff_correction correction;
	double flops_per_step;       /* with peak_flops: the mfu metric; 0 none */
	double peak_flops;           /* per GPU, FLOP/s */
	const struct gpa_diff_threshold *thresholds; /* borrowed */
	size_t nthresholds;
	const char *const *fail_on;  /* fnmatch patterns of gating metrics; borrowed */
	size_t nfail_on;
	/*
	 * Borrowed; NULL: the built-in rules. Only read by a comparison (each
	 * matches into its own data), so comparisons on several threads can
	 * share them (diff's workers do).
	 */
	const struct gpa_kname_rules *rules;
	/*
	 * GPA_DIFF_BY_OP*: a kernel launched inside a CPU operator counts in
	 * op.<name> instead of its family; kernels outside operators, and every
	 * kernel of a run without CPU operators (with a warning), stay in
	 * kernel.<family>.
	 */
	enum gpa_diff_by by;
	/*
	 * No critical path per step: no path.<category> metrics, so no causes
	 * (the first line stands). It costs about a quarter of a CPU-second per
	 * million events of a run (docs/diff.md#performance).
	 */
	bool no_path;
	/* extra PCRE2 patterns of communication kernels (analyze/commclass.h); borrowed */
	const char *const *comm_rules;
	size_t ncomm_rules;
};

/* alpha 0.05, min effect 2 %, 4 samples, 10000 resamples at 95 %, seed 1, BH, gate step.wall. */
void gpa_diff_opts_init(struct gpa_diff_opts *o);

/*
 * Whether the fnmatch pattern can match a metric diff computes: one of the
 * fixed names (step.wall, gpu.busy, idle.total, idle.<cause>, path.<category>
 * of the critical path, copy.time, copy.bytes, comm.time, comm.exposed, mfu),
 * a kernel family (kernel.*) or an operator (op.*).
 * A pattern that cannot ("step.wal") would gate nothing.
 */
bool gpa_diff_metric_pattern_ok(const char *pattern);
/* The names gpa_diff_metric_pattern_ok accepts, for a message: "step.wall, gpu.busy, ...". */
void gpa_diff_metric_names(struct gp_strbuf *sb);

struct gpa_diff_metric {
	char *name;             /* "step.wall", "kernel.gemm_kernel", "idle.cpu-bound" */
	enum gpa_diff_unit unit;
	bool higher_better;
	bool gated;             /* matched a fail_on pattern */
	size_t na, nb;          /* samples */
	double med_a, med_b;
	double mean_a, mean_b;  /* means of the samples: they add up across metrics (causes) */
	double delta;           /* med_b / med_a - 1; +inf when med_a is 0 < med_b */
	double ci_lo, ci_hi;    /* bootstrap interval of delta */
	double p, q;            /* Mann-Whitney p, and adjusted for multiple comparisons */
	bool exact;
	double min_effect;
	enum gpa_verdict verdict;
	uint32_t more_runs;     /* inconclusive: runs per side to add (estimate) */
};

/* The headline's reading of the step time (step.wall) per step. */
enum gpa_diff_direction {
	GPA_DIFF_SAME = 0,         /* unchanged: the interval lies inside the minimum effect */
	GPA_DIFF_FASTER = 1,       /* step.wall improved */
	GPA_DIFF_SLOWER = 2,       /* step.wall regressed */
	GPA_DIFF_UNDECIDED = 3,    /* inconclusive: the evidence does not separate the runs */
};

/* "no material change", "faster", "slower", "inconclusive". */
const char *gpa_diff_direction_name(unsigned d);

/*
 * One reason the step time moved: a category of the critical path, an idle
 * cause or a kernel-level metric, with the change of its mean per step.
 */
struct gpa_diff_cause {
	const char *metric;     /* "path.cpu", "idle.data-loading", "kernel.gemm": borrowed
				 * from gpa_diff_result.metrics */
	const char *idle;       /* a host-side path category: the idle cause (metric name)
				 * that moved most with it, or NULL */
	double delta_ns;        /* mean candidate - mean baseline, ns per step */
	double idle_ns;         /* the idle cause's change, ns per step */
	double share;           /* delta_ns / gpa_diff_explain.path_ns (NAN when that is 0) */
	double change;          /* the metric's change of medians (gpa_diff_metric.delta) */
	enum gpa_verdict verdict; /* the metric's own verdict */
	bool host;              /* a path category where the GPU can sit idle (not GPU work) */
	const char *path;       /* a kernel-level change: the path category its time runs in
				 * (path.kernel, path.copy, path.communication); static */
	bool off_path;          /* ... and that category was found unchanged: the change
				 * did not move the step */
};

/* Why the candidate is faster or slower (docs/diff.md#the-first-line-and-its-causes). */
struct gpa_diff_explain {
	enum gpa_diff_direction direction;
	bool whole;             /* no steps: "per step" is per run */
	size_t step;            /* index of step.wall in metrics; SIZE_MAX when absent */
	double change_ns;       /* median candidate - median baseline of step.wall */
	double path_ns;         /* the mean critical path's change per step: the sum of the
				 * categories' changes */
	bool shifted;           /* no change to share out (unchanged, whole runs, a path
				 * change not within half to twice the mean step change, or
				 * a cause over 150 % of it): causes ranked by size */
	GP_VEC(struct gpa_diff_cause) causes;  /* path categories, largest share first
						* (shifted: largest |change| first) */
	GP_VEC(struct gpa_diff_cause) kernels; /* kernel, operator, copy and communication
						* metrics that regressed or improved, largest
						* |change| first */
};

struct gpa_diff_result {
	size_t runs[2];                     /* baseline, candidate */
	enum gpa_diff_samples samples;
	enum gpa_step_source step_source[2]; /* of the first run of each side */
	enum gpa_diff_correction correction;
	double alpha;
	struct gpa_boot_opts boot;
	GP_VEC(struct gpa_diff_metric) metrics; /* worst first */
	GP_VEC(char *) new_kernels;         /* families (op.<name>: operators) only the candidate has */
	GP_VEC(char *) vanished_kernels;    /* families (op.<name>: operators) only the baseline has */
	GP_VEC(char *) warnings;
	size_t regressed_gated;             /* gated metrics that regressed */
	struct gpa_diff_explain explain;    /* the first line and its causes */
};

struct gpa_diff;

/* A comparison in progress; opts (and what it points to) borrowed until _free. */
int gpa_diff_new(const struct gpa_diff_opts *opts, struct gpa_diff **out, char *errbuf,
		 size_t errlen);
void gpa_diff_free(struct gpa_diff *d);
/*
 * Extracts the per-step samples of one run (side 0 baseline, 1 candidate)
 * from m; the model may be released right after. label names the run in
 * messages. Returns 0, -GP_ERR_API for a bad step pattern, -GP_ERR_FORMAT
 * when --skip-steps leaves no step, -GP_ERR_NOMEM; the reason in errbuf.
 */
int gpa_diff_add_run(struct gpa_diff *d, int side, const struct gpa_model *m, const char *label,
		     char *errbuf, size_t errlen);
/*
 * diff --mpi (docs/cluster.md): the samples of a run added alone to a
 * comparison of its own (d holds exactly one run), appended to out as one
 * record of bytes; 0, -GP_ERR_API when d holds another number of runs,
 * -GP_ERR_NOMEM. gpa_diff_run_unpack adds such a record to d on side 0 or 1
 * exactly as gpa_diff_add_run added the run (same samples, warnings and
 * order), so a comparison fed records in run order gives the same result.
 * It returns 0, -GP_ERR_FORMAT with what and the problem in errbuf,
 * -GP_ERR_NOMEM; on an error d is left part-way and only good to free.
 */
int gpa_diff_run_pack(const struct gpa_diff *d, struct gp_strbuf *out);
int gpa_diff_run_unpack(struct gpa_diff *d, int side, const void *buf, size_t len,
			const char *what, char *errbuf, size_t errlen);
/*
 * Fills r->explain from r->metrics (verdicts given): the direction from
 * step.wall, the path.<category> metrics ranked by their share of the
 * mean path change, each host-side category with the idle.<cause> that
 * moved most with it, then the kernel-level metrics that changed.
 * gpa_diff_compute calls it. Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_diff_explain(struct gpa_diff_result *r);

/* Compares the sides; fills *out (release with gpa_diff_result_release, also after an error). */
int gpa_diff_compute(struct gpa_diff *d, struct gpa_diff_result *out);
void gpa_diff_result_release(struct gpa_diff_result *r);

#endif /* GPA_DIFF_H */
