/* SPDX-License-Identifier: MIT */
/*
 * diff.c - two sets of runs compared metric by metric (docs/diff.md). Each
 * run's model is reduced to per-step samples as it is added (so the model
 * can be freed before the next run loads): step wall time, GPU busy, idle
 * by cause, the critical path's time by category, time per kernel family,
 * copies, communication and exposed communication, MFU. gpa_diff_compute
 * then tests every metric (diffstat.c), adjusts for multiple comparisons,
 * gives verdicts and explains the step time's change (diff-explain.c).
 */
#include "base/compat.h"
#include "base/le.h"
#include "analyze/commclass.h"
#include "analyze/critpath.h"
#include "analyze/diff.h"
#include "analyze/model.h"
#include "analyze/breakdown.h"
#include "analyze/gaps.h"
#include "analyze/ops.h"
#include "analyze/sanity.h"
#include "analyze/stats.h"
#include "analyze/steps.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fnmatch.h>
#include <math.h>
#include <pcre2.h>
#include <stdio.h>

/* ---- kernel-name normalization */

struct krule {
	pcre2_code *re;
	char *repl;
};

struct gpa_kname_rules {
	GP_VEC(struct krule) v;
	pcre2_match_data *md;
};

static const char *const default_rules[][2] = {
	/* a return type in front of a demangled name */
	{"^(?:void|int|float|double|bool|unsigned|auto)\\s+", ""},
	{"\\(anonymous namespace\\)::", ""},
	{"<unnamed>::", ""},
	/* the parameter list at the end, with nested parentheses */
	{"(\\((?:[^()]++|(?1))*+\\))\\s*(?:const)?\\s*$", ""},
	/* template arguments, nested */
	{"(<(?:[^<>]++|(?1))*+>)", ""},
	/* architecture prefixes and suffixes: sm80_, sm_90a_, ampere_, _sm90a */
	{"(?i)(?<![0-9a-z])(?:sm_?[0-9]{2,3}[a-z]?|maxwell|pascal|volta|turing|ampere|ada|hopper|"
	 "blackwell)_",
	 ""},
	{"(?i)_sm_?[0-9]{2,3}[a-z]?(?![0-9a-z])", ""},
	/* hashes: 0x-prefixed or at least 12 hexadecimal digits with a digit among them */
	{"(?i)_?(?<![0-9a-z])(?:0x[0-9a-f]{6,}|(?=[a-f]*[0-9])[0-9a-f]{12,})(?![0-9a-z])", ""},
	/* tile and cluster sizes: 128x128x64 */
	{"[0-9]+(?:x[0-9]+)+", "N"},
	/* an instance number at the end (triton_poi_fused_add_0) */
	{"_[0-9]+$", ""},
	{"__+", "_"},
	{"^_+|_+$", ""},
};

int gpa_kname_rules_add(struct gpa_kname_rules *r, const char *regex, const char *repl,
			char *errbuf, size_t errlen)
{
	int errcode;
	PCRE2_SIZE erroff;
	struct krule k;

	k.re = pcre2_compile((PCRE2_SPTR)regex, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &errcode,
			     &erroff, NULL);
	if (!k.re && errcode == PCRE2_ERROR_HEAP_FAILED) {
		snprintf(errbuf, errlen, "out of memory");
		return -GP_ERR_NOMEM;
	}
	if (!k.re) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(errcode, msg, sizeof(msg));
		snprintf(errbuf, errlen, "bad regex '%s' at offset %zu: %s", regex, (size_t)erroff,
			 (const char *)msg);
		return -GP_ERR_API;
	}
	k.repl = strdup(repl);
	if (!k.repl || gp_vec_push(&r->v, k)) {
		pcre2_code_free(k.re);
		free(k.repl);
		snprintf(errbuf, errlen, "out of memory");
		return -GP_ERR_NOMEM;
	}
	return 0;
}

int gpa_kname_rules_new(bool with_defaults, struct gpa_kname_rules **out)
{
	struct gpa_kname_rules *r = calloc(1, sizeof(*r));
	char err[256];

	*out = NULL;
	if (!r) {
		return -GP_ERR_NOMEM;
	}
	r->md = pcre2_match_data_create(16, NULL);
	if (!r->md) {
		free(r);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; with_defaults && i < GP_ARRAY_SIZE(default_rules); i++) {
		int ret = gpa_kname_rules_add(r, default_rules[i][0], default_rules[i][1], err,
					      sizeof(err));
		if (ret) {
			gpa_kname_rules_free(r);
			return ret == -GP_ERR_NOMEM ? ret : -GP_ERR_API;
		}
	}
	*out = r;
	return 0;
}

void gpa_kname_rules_free(struct gpa_kname_rules *r)
{
	if (!r) {
		return;
	}
	for (size_t i = 0; i < r->v.n; i++) {
		pcre2_code_free(r->v.v[i].re);
		free(r->v.v[i].repl);
	}
	gp_vec_free(&r->v);
	pcre2_match_data_free(r->md);
	free(r);
}

/* name normalized by r, matching into md (a comparison's own, so rules can be shared by threads) */
static char *normalize_md(const struct gpa_kname_rules *r, const char *name,
			  pcre2_match_data *md)
{
	const char *base = name;
	size_t len = strlen(name);
	char *cur, *next;

	if (name[0] == '_' && name[1] == 'Z') {
		len = gpa_kernel_base_name(name, &base); /* mangled without a demangled name */
	}
	cur = strndup(base, len);
	for (size_t i = 0; cur && i < r->v.n; i++) {
		const struct krule *k = &r->v.v[i];
		PCRE2_SIZE outlen = strlen(cur) * 2 + 64;
		uint32_t flags = PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH;
		int rc;

		next = malloc(outlen);
		if (!next) {
			break;
		}
		rc = pcre2_substitute(k->re, (PCRE2_SPTR)cur, PCRE2_ZERO_TERMINATED, 0, flags,
				      md, NULL, (PCRE2_SPTR)k->repl, PCRE2_ZERO_TERMINATED,
				      (PCRE2_UCHAR *)next, &outlen);
		if (rc == PCRE2_ERROR_NOMEMORY) {
			char *big = realloc(next, outlen);
			if (!big) {
				free(next);
				break;
			}
			next = big;
			rc = pcre2_substitute(k->re, (PCRE2_SPTR)cur, PCRE2_ZERO_TERMINATED, 0,
					      flags, md, NULL, (PCRE2_SPTR)k->repl,
					      PCRE2_ZERO_TERMINATED, (PCRE2_UCHAR *)next, &outlen);
		}
		if (rc < 0) { /* a rule that cannot apply (match limit): keep the name */
			free(next);
			continue;
		}
		free(cur);
		cur = next;
	}
	if (cur && !cur[0]) {
		free(cur);
		cur = strndup(base, len); /* rules ate everything: keep the name as it was */
	}
	return cur;
}

char *gpa_kname_normalize(const struct gpa_kname_rules *r, const char *name)
{
	return normalize_md(r, name, r->md);
}

/* ---- options */

static const char *const fixed_metrics[] = {
	"step.wall",  "gpu.busy",  "idle.total",   "copy.time",
	"copy.bytes", "comm.time", "comm.exposed", "mfu",
};

bool gpa_diff_metric_pattern_ok(const char *pattern)
{
	char name[64];

	if (!strncmp(pattern, "kernel.", 7) || !fnmatch(pattern, "kernel.any_family", 0)) {
		return true;
	}
	if (!strncmp(pattern, "op.", 3) || !fnmatch(pattern, "op.any_operator", 0)) {
		return true;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(fixed_metrics); i++) {
		if (!fnmatch(pattern, fixed_metrics[i], 0)) {
			return true;
		}
	}
	for (unsigned c = 0; c < GPA_GAP__COUNT; c++) {
		snprintf(name, sizeof(name), "idle.%s", gpa_gap_cause_name(c));
		if (!fnmatch(pattern, name, 0)) {
			return true;
		}
	}
	for (unsigned c = 0; c < GPA_CP__COUNT; c++) {
		snprintf(name, sizeof(name), "path.%s", gpa_cp_cat_name(c));
		if (!fnmatch(pattern, name, 0)) {
			return true;
		}
	}
	return false;
}

void gpa_diff_metric_names(struct gp_strbuf *sb)
{
	for (size_t i = 0; i < GP_ARRAY_SIZE(fixed_metrics); i++) {
		gp_strbuf_addf(sb, "%s%s", i ? ", " : "", fixed_metrics[i]);
	}
	for (unsigned c = 0; c < GPA_GAP__COUNT; c++) {
		gp_strbuf_addf(sb, ", idle.%s", gpa_gap_cause_name(c));
	}
	for (unsigned c = 0; c < GPA_CP__COUNT; c++) {
		gp_strbuf_addf(sb, ", path.%s", gpa_cp_cat_name(c));
	}
	gp_strbuf_adds(sb, ", kernel.FAMILY, op.OPERATOR");
}

void gpa_diff_opts_init(struct gpa_diff_opts *o)
{
	static const char *const fail_on[] = {"step.wall"};

	*o = (struct gpa_diff_opts){
		.alpha = 0.05,
		.min_effect = 0.02,
		.min_samples = 4,
		.boot = {.reps = 10000, .level = 0.95, .seed = 1},
		.correction = GPA_DIFF_BH,
		.fail_on = fail_on,
		.nfail_on = 1,
	};
}

/* ---- accumulating runs */

/* One metric's values, per side, run after run. */
struct series {
	char *name;
	enum gpa_diff_unit unit;
	bool higher_better;
	bool kernel;        /* a kernel family */
	bool present[2];    /* kernel families: launched in some run of the side */
	GP_VEC(double) v[2];
	size_t runs_filled[2];
};

/* What tells two runs apart; equal prints are the same trace given twice. */
struct run_print {
	uint64_t t0, t1, events, kernels, apis, procs_hash;
	char *label;
};

struct gpa_diff {
	const struct gpa_diff_opts *o;
	struct gpa_kname_rules *own_rules;
	const struct gpa_kname_rules *rules;
	pcre2_match_data *md;      /* the rules' matches: this comparison's own */
	GP_VEC(struct series) s;
	GP_VEC(size_t) nsteps[2];  /* per run */
	enum gpa_step_source source[2];
	bool whole[2];             /* every run of the side without steps */
	GP_VEC(char *) warnings;
	GP_VEC(struct run_print) prints; /* per run added, to find a run given twice */
	uint32_t *slots;           /* series by name: index + 1, 0 empty */
	size_t nslots;
	size_t pre_warnings;       /* warnings of the last run added before its print was checked */
};

int gpa_diff_new(const struct gpa_diff_opts *opts, struct gpa_diff **out, char *errbuf,
		 size_t errlen)
{
	struct gpa_diff *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d) {
		snprintf(errbuf, errlen, "out of memory");
		return -GP_ERR_NOMEM;
	}
	d->o = opts;
	d->rules = opts->rules;
	d->whole[0] = d->whole[1] = true;
	d->md = pcre2_match_data_create(16, NULL);
	if (!d->md) {
		free(d);
		snprintf(errbuf, errlen, "out of memory");
		return -GP_ERR_NOMEM;
	}
	if (!d->rules) {
		int ret = gpa_kname_rules_new(true, &d->own_rules);
		if (ret) {
			pcre2_match_data_free(d->md);
			free(d);
			snprintf(errbuf, errlen, "cannot compile the kernel-name rules");
			return ret;
		}
		d->rules = d->own_rules;
	}
	*out = d;
	return 0;
}

void gpa_diff_free(struct gpa_diff *d)
{
	if (!d) {
		return;
	}
	for (size_t i = 0; i < d->s.n; i++) {
		free(d->s.v[i].name);
		gp_vec_free(&d->s.v[i].v[0]);
		gp_vec_free(&d->s.v[i].v[1]);
	}
	gp_vec_free(&d->s);
	gp_vec_free(&d->nsteps[0]);
	gp_vec_free(&d->nsteps[1]);
	for (size_t i = 0; i < d->warnings.n; i++) {
		free(d->warnings.v[i]);
	}
	gp_vec_free(&d->warnings);
	for (size_t i = 0; i < d->prints.n; i++) {
		free(d->prints.v[i].label);
	}
	gp_vec_free(&d->prints);
	pcre2_match_data_free(d->md);
	free(d->slots);
	gpa_kname_rules_free(d->own_rules);
	free(d);
}

GP_PRINTF(2, 3) static void warn(struct gpa_diff *d, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		s = NULL;
	}
	va_end(ap);
	if (s && gp_vec_push(&d->warnings, s)) {
		free(s);
	}
}

static int series_rehash(struct gpa_diff *d, size_t nslots)
{
	uint32_t *slots = calloc(nslots, sizeof(uint32_t));

	if (!slots) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < d->s.n; i++) {
		const char *nm = d->s.v[i].name;
		size_t h = gp_hash_bytes(nm, strlen(nm)) & (nslots - 1);
		while (slots[h]) {
			h = (h + 1) & (nslots - 1);
		}
		slots[h] = (uint32_t)i + 1;
	}
	free(d->slots);
	d->slots = slots;
	d->nslots = nslots;
	return 0;
}

/* The series named name, created on first use; GPA_NONE when out of memory. */
static uint32_t series_get(struct gpa_diff *d, const char *name, enum gpa_diff_unit unit)
{
	size_t h = 0;

	if (d->nslots) {
		h = gp_hash_bytes(name, strlen(name)) & (d->nslots - 1);
		for (; d->slots[h]; h = (h + 1) & (d->nslots - 1)) {
			if (!strcmp(d->s.v[d->slots[h] - 1].name, name)) {
				return d->slots[h] - 1;
			}
		}
	}
	if ((d->s.n + 1) * 2 > d->nslots && series_rehash(d, d->nslots ? d->nslots * 2 : 64)) {
		return GPA_NONE;
	}
	struct series s = {.name = strdup(name), .unit = unit};
	if (!s.name || gp_vec_push(&d->s, s)) {
		free(s.name);
		return GPA_NONE;
	}
	h = gp_hash_bytes(name, strlen(name)) & (d->nslots - 1);
	while (d->slots[h]) {
		h = (h + 1) & (d->nslots - 1);
	}
	d->slots[h] = (uint32_t)d->s.n;
	return (uint32_t)(d->s.n - 1);
}

/* Pads a series with zeros for runs of a side it had no values for, up to run 'upto'. */
static int series_fill(struct gpa_diff *d, struct series *s, int side, size_t upto)
{
	for (; s->runs_filled[side] < upto; s->runs_filled[side]++) {
		size_t n = d->nsteps[side].v[s->runs_filled[side]];
		for (size_t k = 0; k < n; k++) {
			if (gp_vec_push(&s->v[side], 0.0)) {
				return -GP_ERR_NOMEM;
			}
		}
	}
	return 0;
}

/* Appends the values of the current run (the side's last) to a series. */
static int series_put(struct gpa_diff *d, uint32_t idx, int side, const double *vals, size_t n)
{
	struct series *s = &d->s.v[idx];
	size_t run = d->nsteps[side].n - 1;
	int ret = series_fill(d, s, side, run);

	if (ret) {
		return ret;
	}
	for (size_t k = 0; k < n; k++) {
		if (gp_vec_push(&s->v[side], vals[k])) {
			return -GP_ERR_NOMEM;
		}
	}
	s->runs_filled[side] = run + 1;
	return 0;
}

/* Per-step accumulators of one run, one row of n per metric. */
struct acc {
	uint32_t *idx;    /* series index per row */
	double *v;        /* rows x n */
	size_t rows, cap, n;
	uint32_t *row_of; /* per series index: row + 1, 0 none yet */
	size_t nrow_of;
};

static double *acc_row(struct gpa_diff *d, struct acc *a, const char *name,
		       enum gpa_diff_unit unit, uint32_t *row_out)
{
	uint32_t idx = series_get(d, name, unit);

	if (idx == GPA_NONE) {
		return NULL;
	}
	if (idx >= a->nrow_of) {
		size_t n = d->nslots; /* more than there are series */
		uint32_t *ro = realloc(a->row_of, n * sizeof(*ro));
		if (!ro) {
			return NULL;
		}
		memset(ro + a->nrow_of, 0, (n - a->nrow_of) * sizeof(*ro));
		a->row_of = ro;
		a->nrow_of = n;
	}
	if (a->row_of[idx]) {
		size_t r = a->row_of[idx] - 1;
		if (row_out) {
			*row_out = (uint32_t)r;
		}
		return a->v + r * a->n;
	}
	if (a->rows == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 32;
		uint32_t *ni = realloc(a->idx, cap * sizeof(*ni));
		if (!ni) {
			return NULL;
		}
		a->idx = ni;
		double *nv = realloc(a->v, cap * (a->n ? a->n : 1) * sizeof(double));
		if (!nv) {
			return NULL;
		}
		a->v = nv;
		a->cap = cap;
	}
	a->idx[a->rows] = idx;
	a->row_of[idx] = (uint32_t)a->rows + 1;
	memset(a->v + a->rows * a->n, 0, a->n * sizeof(double));
	if (row_out) {
		*row_out = (uint32_t)a->rows;
	}
	return a->v + a->rows++ * a->n;
}

struct run_ctx {
	const struct gpa_model *m;
	struct gpa_steps steps;
	struct gpa_commclass comm; /* which ops are communication (analyze/commclass.h) */
	uint32_t *ord;    /* per steps.v row: the run's step ordinal, or GPA_NONE */
	size_t n;         /* steps in the run */
	bool by_op;       /* kernels inside CPU operators count by operator (--by op) */
};

/* Steps of the run: per process, after skip_steps; the run has the fewest any process has. */
static int run_steps(struct gpa_diff *d, struct run_ctx *c, const char *label, char *errbuf,
		     size_t errlen)
{
	const struct gpa_steps *st = &c->steps;
	size_t nmin = SIZE_MAX, nmax = 0, skip = d->o->skip_steps;
	bool whole = st->source == GPA_STEPS_WHOLE;

	c->ord = malloc((st->v.n ? st->v.n : 1) * sizeof(uint32_t));
	if (!c->ord) {
		return -GP_ERR_NOMEM;
	}
	if (whole) {
		skip = 0;
	}
	for (size_t i = 0; i < st->v.n;) {
		size_t j = i;
		while (j < st->v.n && st->v.v[j].proc == st->v.v[i].proc) {
			j++;
		}
		size_t cnt = j - i > skip ? j - i - skip : 0;
		nmin = cnt < nmin ? cnt : nmin;
		nmax = cnt > nmax ? cnt : nmax;
		for (size_t k = i; k < j; k++) {
			c->ord[k] = k - i < skip ? GPA_NONE : (uint32_t)(k - i - skip);
		}
		i = j;
	}
	if (nmin == SIZE_MAX || nmin == 0) {
		snprintf(errbuf, errlen, "%s: no steps left after skipping %zu (it has %zu)", label,
			 skip, nmax + skip);
		return -GP_ERR_FORMAT;
	}
	if (nmin != nmax) {
		warn(d, "%s: processes have different step counts (%zu to %zu); the first %zu of each "
			"are compared", label, nmin, nmax, nmin);
	}
	for (size_t k = 0; k < st->v.n; k++) {
		if (c->ord[k] != GPA_NONE && c->ord[k] >= nmin) {
			c->ord[k] = GPA_NONE;
		}
	}
	c->n = nmin;
	return 0;
}

static int put_acc(struct gpa_diff *d, int side, const struct acc *a)
{
	for (size_t r = 0; r < a->rows; r++) {
		int ret = series_put(d, a->idx[r], side, a->v + r * a->n, a->n);
		if (ret) {
			return ret;
		}
	}
	return 0;
}

/* A growing list of disjoint intervals, merged as ops arrive in start order. */
struct ivals {
	uint64_t *s, *e;
	uint32_t *k; /* step ordinal of the interval's first op */
	size_t n;
};

static void ivals_add(struct ivals *v, uint64_t s, uint64_t e, uint32_t k)
{
	if (v->n && s <= v->e[v->n - 1]) {
		if (e > v->e[v->n - 1]) {
			v->e[v->n - 1] = e;
		}
		return;
	}
	v->s[v->n] = s;
	v->e[v->n] = e;
	v->k[v->n++] = k;
}

/*
 * Exposed communication per step: on each device, the union of
 * communication kernels minus the union of computation kernels on the same
 * device (HTA's overlap merges all devices of a process, so a collective on
 * one GPU can hide under another GPU's compute there), each merged
 * communication interval counted in the step of its first kernel.
 */
static int exposed_comm(struct run_ctx *c, double *row)
{
	const struct gpa_model *m = c->m;
	size_t most = 0;
	struct ivals comp, comm;
	int ret = -GP_ERR_NOMEM;

	for (size_t dv = 0; dv < m->devs.n; dv++) {
		most = m->devs.v[dv].gpu_count > most ? m->devs.v[dv].gpu_count : most;
	}
	comp.s = malloc((most + 1) * sizeof(uint64_t));
	comp.e = malloc((most + 1) * sizeof(uint64_t));
	comp.k = malloc((most + 1) * sizeof(uint32_t));
	comm.s = malloc((most + 1) * sizeof(uint64_t));
	comm.e = malloc((most + 1) * sizeof(uint64_t));
	comm.k = malloc((most + 1) * sizeof(uint32_t));
	if (!comp.s || !comp.e || !comp.k || !comm.s || !comm.e || !comm.k) {
		goto out;
	}
	for (size_t dv = 0; dv < m->devs.n; dv++) {
		size_t first = m->devs.v[dv].gpu_first, end = first + m->devs.v[dv].gpu_count;
		comp.n = comm.n = 0;
		for (size_t i = first; i < end; i++) {
			bool is_comm = gpa_commclass_gpu(&c->comm, m, i);
			if (gpa_gpu_kind(m, i) != GPA_GPU_KERNEL && !is_comm) {
				continue;
			}
			uint32_t st = gpa_step_of(&c->steps, i);
			uint32_t k = st == GPA_NONE ? GPA_NONE : c->ord[st];
			if (is_comm) {
				ivals_add(&comm, gpa_gpu_start(m, i), gpa_gpu_end(m, i), k);
			} else {
				ivals_add(&comp, gpa_gpu_start(m, i), gpa_gpu_end(m, i), k);
			}
		}
		for (size_t i = 0, j = 0; i < comm.n; i++) {
			uint64_t covered = 0;
			while (j < comp.n && comp.e[j] <= comm.s[i]) {
				j++;
			}
			for (size_t q = j; q < comp.n && comp.s[q] < comm.e[i]; q++) {
				uint64_t lo = comp.s[q] > comm.s[i] ? comp.s[q] : comm.s[i];
				uint64_t hi = comp.e[q] < comm.e[i] ? comp.e[q] : comm.e[i];
				covered += hi - lo;
			}
			if (comm.k[i] != GPA_NONE) {
				row[comm.k[i]] += (double)(comm.e[i] - comm.s[i] - covered);
			}
		}
	}
	ret = 0;
out:
	free(comp.s);
	free(comp.e);
	free(comp.k);
	free(comm.s);
	free(comm.e);
	free(comm.k);
	return ret;
}

/* The op.<name> rows of one run (--by op): (name, inputs) -> accumulator row. */
struct op_rows {
	struct gp_u64map row;
	struct gp_strbuf name;
	bool inputs; /* GPA_DIFF_BY_OP_INPUTS */
};

/* The row of kernel i: its leaf operator's when it has one (and by_op), else its family's. */
static uint32_t kernel_row(struct gpa_diff *d, struct run_ctx *c, struct acc *a,
			   struct op_rows *o, const uint32_t *fam, size_t i)
{
	const struct gpa_model *m = c->m;
	uint32_t r = c->by_op ? gpa_ops_leaf(m, i) : GPA_NONE, row;
	uint32_t args = r != GPA_NONE && o->inputs ? gpa_nvtx_args(m, r) : 0;
	uint64_t *v;

	if (r == GPA_NONE) {
		return fam[gpa_kern_func(m, gpa_gpu_row(m, i))];
	}
	int added = gp_u64map_get_or_insert(&o->row, ((uint64_t)gpa_nvtx_name(m, r) << 32) | args,
					    GPA_NONE, &v);
	if (added <= 0) {
		return added < 0 ? GPA_NONE : (uint32_t)*v;
	}
	gp_strbuf_reset(&o->name);
	gp_strbuf_addf(&o->name, "op.%s", gpa_model_str(m, gpa_nvtx_name(m, r)));
	if (args) {
		gp_strbuf_addf(&o->name, " (%s)", gpa_model_str(m, args));
	}
	if (o->name.failed || !acc_row(d, a, o->name.buf, GPA_DIFF_NS, &row)) {
		return GPA_NONE;
	}
	*v = row;
	d->s.v[a->idx[row]].kernel = true;
	return row;
}

/* Kernel families, copies and communication, per step. */
static int kernels_and_copies(struct gpa_diff *d, struct run_ctx *c, int side, struct acc *a)
{
	const struct gpa_model *m = c->m;
	uint32_t *fam = malloc((m->funcs.n ? m->funcs.n : 1) * sizeof(uint32_t));
	uint8_t *comm = malloc(m->funcs.n ? m->funcs.n : 1);
	uint32_t row_ct = 0, row_cb = 0, row_comm = GPA_NONE;
	struct gp_strbuf name = GP_STRBUF_INIT;
	struct op_rows ops = {.row = GP_U64MAP_INIT, .name = GP_STRBUF_INIT,
			      .inputs = d->o->by == GPA_DIFF_BY_OP_INPUTS};
	int ret = -GP_ERR_NOMEM;

	if (!fam || !comm || !acc_row(d, a, "copy.time", GPA_DIFF_NS, &row_ct) ||
	    !acc_row(d, a, "copy.bytes", GPA_DIFF_BYTES, &row_cb)) {
		goto out;
	}
	/* comm[f]: some kernel of function f is communication (analyze/commclass.h). */
	memset(comm, 0, m->funcs.n ? m->funcs.n : 1);
	for (size_t k = 0; k < gpa_kern_rows(m); k++) {
		comm[gpa_kern_func(m, k)] |= c->comm.kern[k] != GPA_COMM_NOT;
	}
	for (size_t f = 0; f < m->funcs.n; f++) {
		const struct gpa_func *fn = &m->funcs.v[f];
		const char *raw = gpa_model_str(m, fn->name);
		const char *nm = fn->demangled ? gpa_model_str(m, fn->demangled) : raw;
		char *norm = normalize_md(d->rules, nm, d->md);
		uint32_t row;

		if (!norm) {
			goto out;
		}
		gp_strbuf_reset(&name);
		gp_strbuf_addf(&name, "kernel.%s", norm);
		free(norm);
		if (!acc_row(d, a, name.buf, GPA_DIFF_NS, &row)) {
			goto out;
		}
		fam[f] = row;
		d->s.v[a->idx[row]].kernel = true;
		if (comm[f] && !acc_row(d, a, "comm.time", GPA_DIFF_NS, &row_comm)) {
			goto out;
		}
	}
	for (size_t i = 0; i < gpa_gpu_rows(m); i++) {
		uint32_t st = gpa_step_of(&c->steps, i), row = gpa_gpu_row(m, i);
		double dur = (double)(gpa_gpu_end(m, i) - gpa_gpu_start(m, i));
		uint32_t kr = GPA_NONE;
		if (gpa_gpu_kind(m, i) == GPA_GPU_KERNEL) {
			kr = kernel_row(d, c, a, &ops, fam, i);
			if (kr == GPA_NONE) {
				goto out;
			}
			d->s.v[a->idx[kr]].present[side] = true;
		}
		if (st == GPA_NONE || c->ord[st] == GPA_NONE) {
			continue;
		}
		size_t k = c->ord[st];
		switch (gpa_gpu_kind(m, i)) {
		case GPA_GPU_KERNEL: {
			a->v[kr * a->n + k] += dur;
			if (c->comm.kern[row] != GPA_COMM_NOT) {
				a->v[row_comm * a->n + k] += dur;
			}
			break;
		}
		case GPA_GPU_MEMCPY:
			if (c->comm.copy[row] != GPA_COMM_NOT) {
				if (row_comm == GPA_NONE &&
				    !acc_row(d, a, "comm.time", GPA_DIFF_NS, &row_comm)) {
					goto out;
				}
				a->v[row_comm * a->n + k] += dur;
			}
			a->v[row_ct * a->n + k] += dur;
			a->v[row_cb * a->n + k] += (double)gpa_copy_bytes(m, row);
			break;
		default:
			break;
		}
	}
	ret = 0;
	if (row_comm != GPA_NONE) {
		uint32_t row_exp;
		if (!acc_row(d, a, "comm.exposed", GPA_DIFF_NS, &row_exp)) {
			ret = -GP_ERR_NOMEM;
			goto out;
		}
		ret = exposed_comm(c, a->v + row_exp * a->n);
	}
out:
	gp_strbuf_release(&name);
	gp_strbuf_release(&ops.name);
	gp_u64map_release(&ops.row);
	free(fam);
	free(comm);
	return ret;
}

static int idle_by_cause(struct gpa_diff *d, struct run_ctx *c, struct acc *a, char *errbuf,
			 size_t errlen)
{
	struct gpa_gaps_opts go;
	struct gpa_gaps g;
	char name[64];
	int ret;

	gpa_gaps_opts_init(&go);
	go.top = 0;
	go.data_regex = d->o->data_regex;
	go.comm = &c->comm;
	ret = gpa_gaps_analyze(c->m, &c->steps, &go, &g, errbuf, errlen);
	if (ret) {
		gpa_gaps_release(&g);
		return ret;
	}
	double *idle = acc_row(d, a, "idle.total", GPA_DIFF_NS, NULL);
	for (size_t i = 0; idle && i < g.steps.n; i++) {
		const struct gpa_gaps_step *s = &g.steps.v[i];
		if (s->step == GPA_NONE || c->ord[s->step] == GPA_NONE) {
			continue;
		}
		size_t k = c->ord[s->step];
		idle = acc_row(d, a, "idle.total", GPA_DIFF_NS, NULL);
		if (!idle) {
			break;
		}
		idle[k] += (double)s->t.idle;
		for (unsigned cause = 0; cause < GPA_GAP__COUNT; cause++) {
			if (!s->t.cause_ns[cause]) {
				continue;
			}
			snprintf(name, sizeof(name), "idle.%s", gpa_gap_cause_name(cause));
			double *row = acc_row(d, a, name, GPA_DIFF_NS, NULL);
			if (!row) {
				idle = NULL;
				break;
			}
			row[k] += (double)s->t.cause_ns[cause];
		}
	}
	gpa_gaps_release(&g);
	return idle ? 0 : -GP_ERR_NOMEM;
}

/*
 * The critical path's time by category per step (path.<category>): in a run
 * of several processes, the path of the process whose step is the slowest
 * (the one step.wall reads), so the categories add up to its step.
 */
static int path_by_cat(struct gpa_diff *d, struct run_ctx *c, struct acc *a, char *errbuf,
		       size_t errlen)
{
	struct gpa_critpath_opts po = {.comm = &c->comm};
	struct gpa_critpath cp;
	uint32_t row[GPA_CP__COUNT];
	char name[64];
	double *best = calloc(c->n ? c->n : 1, sizeof(double));
	int ret = best ? gpa_critpath_analyze(c->m, &c->steps, &po, &cp, errbuf, errlen)
		       : -GP_ERR_NOMEM;

	for (unsigned k = 0; !ret && k < GPA_CP__COUNT; k++) {
		snprintf(name, sizeof(name), "path.%s", gpa_cp_cat_name(k));
		if (!acc_row(d, a, name, GPA_DIFF_NS, &row[k])) {
			ret = -GP_ERR_NOMEM;
		}
	}
	for (size_t i = 0; !ret && i < cp.steps.n; i++) {
		const struct gpa_cp_step *st = &cp.steps.v[i];
		if (st->step == GPA_NONE || c->ord[st->step] == GPA_NONE) {
			continue;
		}
		const struct gpa_step *sp = &c->steps.v.v[st->step];
		size_t o = c->ord[st->step];
		double w = (double)(sp->end - sp->start);
		if (best[o] > 0 && w <= best[o]) {
			continue;
		}
		best[o] = w;
		for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
			a->v[row[k] * a->n + o] = (double)st->now.cat_ns[k];
		}
	}
	if (best) {
		gpa_critpath_release(&cp);
	}
	free(best);
	return ret;
}

/* Warns when rp is a run added before; keeps it (with a copy of label) for the next runs. */
static void check_print(struct gpa_diff *d, struct run_print *rp, const char *label)
{
	for (size_t i = 0; i < d->prints.n; i++) {
		const struct run_print *o = &d->prints.v[i];
		if (o->t0 == rp->t0 && o->t1 == rp->t1 && o->events == rp->events &&
		    o->kernels == rp->kernels && o->apis == rp->apis &&
		    o->procs_hash == rp->procs_hash) {
			warn(d,
			     "%s is the same run as %s (same processes, times and record counts): "
			     "it is counted twice",
			     label, o->label);
			break;
		}
	}
	rp->label = strdup(label);
	if (rp->label && gp_vec_push(&d->prints, *rp)) {
		free(rp->label);
	}
}

struct sanity_say {
	struct gpa_diff *d;
	const char *label;
};

static int say_sanity(void *data, const char *sentence)
{
	struct sanity_say *w = data;

	warn(w->d, "%s: %s", w->label, sentence);
	return 0;
}

/*
 * The run's implausible data (analyze/sanity.h) and whether it is a run added
 * before (same processes, times and counts): warnings, since each would
 * skew the comparison. Out of memory loses a warning, nothing else.
 */
static void sanity_warnings(struct gpa_diff *d, const struct gpa_model *m, const char *label)
{
	struct gpa_sanity s;
	struct run_print rp = {.t0 = m->t0,
			       .t1 = m->t1,
			       .events = m->events,
			       .kernels = gpa_kern_rows(m),
			       .apis = gpa_api_rows(m),
			       .procs_hash = 1469598103934665603ull /* FNV-1a basis */};

	gpa_sanity_check(m, &s);
	gpa_sanity_warnings(m, &s, say_sanity, &(struct sanity_say){d, label});
	for (size_t p = 0; p < m->procs.n; p++) {
		const char *host = gpa_model_str(m, m->procs.v[p].host);
		rp.procs_hash = (rp.procs_hash ^ m->procs.v[p].pid) * 1099511628211ull;
		for (; *host; host++) {
			rp.procs_hash = (rp.procs_hash ^ (unsigned char)*host) * 1099511628211ull;
		}
	}
	d->pre_warnings = d->warnings.n;
	check_print(d, &rp, label);
}

int gpa_diff_add_run(struct gpa_diff *d, int side, const struct gpa_model *m, const char *label,
		     char *errbuf, size_t errlen)
{
	struct run_ctx c = {.m = m};
	struct acc a = {0};
	int ret;

	if (side != 0 && side != 1) {
		return -GP_ERR_API;
	}
	ret = gpa_steps_find(m, d->o->step_regex, &c.steps, errbuf, errlen);
	if (ret) {
		return ret;
	}
	sanity_warnings(d, m, label);
	ret = run_steps(d, &c, label, errbuf, errlen);
	if (!ret) {
		struct gpa_commclass_opts co = {d->o->comm_rules, d->o->ncomm_rules};
		ret = gpa_commclass_compute(m, &co, &c.comm, errbuf, errlen);
	}
	if (ret) {
		goto out;
	}
	ret = -GP_ERR_NOMEM;
	if (gp_vec_push(&d->nsteps[side], c.n)) {
		goto out;
	}
	if (d->nsteps[side].n == 1) {
		d->source[side] = c.steps.source;
	}
	if (c.steps.source != GPA_STEPS_WHOLE) {
		d->whole[side] = false;
	}
	a.n = c.n;

	double *wall = acc_row(d, &a, "step.wall", GPA_DIFF_NS, NULL);
	double *busy = wall ? acc_row(d, &a, "gpu.busy", GPA_DIFF_NS, NULL) : NULL;
	if (!busy) {
		goto out;
	}
	wall = acc_row(d, &a, "step.wall", GPA_DIFF_NS, NULL);
	for (size_t i = 0; i < c.steps.v.n; i++) {
		const struct gpa_step *s = &c.steps.v.v[i];
		if (c.ord[i] == GPA_NONE) {
			continue;
		}
		double w = (double)(s->end - s->start);
		if (w > wall[c.ord[i]]) {
			wall[c.ord[i]] = w; /* the slowest process sets the step */
		}
		busy[c.ord[i]] += (double)s->gpu_busy;
	}
	if (d->o->flops_per_step > 0 && d->o->peak_flops > 0) {
		size_t ndev = 0;
		for (size_t i = 0; i < m->devs.n; i++) {
			ndev += m->devs.v[i].gpu_count > 0;
		}
		uint32_t row;
		double *mfu = acc_row(d, &a, "mfu", GPA_DIFF_RATIO, &row);
		if (!mfu) {
			goto out;
		}
		d->s.v[a.idx[row]].higher_better = true;
		wall = acc_row(d, &a, "step.wall", GPA_DIFF_NS, NULL);
		for (size_t k = 0; k < c.n; k++) {
			double t = wall[k] * 1e-9 * d->o->peak_flops * (double)(ndev ? ndev : 1);
			mfu[k] = t > 0 ? d->o->flops_per_step / t : 0;
		}
	}
	if (d->o->by != GPA_DIFF_BY_KERNEL) {
		c.by_op = gpa_ops_any(m);
		if (!c.by_op) {
			warn(d, "%s: no CPU operators (PyTorch profiler cpu_op events): its kernels are "
				"compared by kernel family", label);
		}
	}
	ret = kernels_and_copies(d, &c, side, &a);
	if (!ret) {
		ret = idle_by_cause(d, &c, &a, errbuf, errlen);
	}
	if (!ret && !d->o->no_path) {
		ret = path_by_cat(d, &c, &a, errbuf, errlen);
	}
	if (!ret) {
		ret = put_acc(d, side, &a);
	}
	if (ret == -GP_ERR_NOMEM) {
		snprintf(errbuf, errlen, "out of memory");
	}
out:
	free(a.idx);
	free(a.v);
	free(a.row_of);
	free(c.ord);
	gpa_commclass_release(&c.comm);
	gpa_steps_release(&c.steps);
	return ret;
}

/* ---- comparing */

void gpa_diff_result_release(struct gpa_diff_result *r)
{
	for (size_t i = 0; i < r->metrics.n; i++) {
		free(r->metrics.v[i].name);
	}
	gp_vec_free(&r->metrics);
	for (size_t i = 0; i < r->new_kernels.n; i++) {
		free(r->new_kernels.v[i]);
	}
	gp_vec_free(&r->new_kernels);
	for (size_t i = 0; i < r->vanished_kernels.n; i++) {
		free(r->vanished_kernels.v[i]);
	}
	gp_vec_free(&r->vanished_kernels);
	for (size_t i = 0; i < r->warnings.n; i++) {
		free(r->warnings.v[i]);
	}
	gp_vec_free(&r->warnings);
	gp_vec_free(&r->explain.causes);
	gp_vec_free(&r->explain.kernels);
}

static bool matches_any(const char *const *pats, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		if (!fnmatch(pats[i], name, 0)) {
			return true;
		}
	}
	return false;
}

/* Worst first: verdict severity, then how bad the change is. */
static int cmp_metric(const void *x, const void *y)
{
	const struct gpa_diff_metric *a = x, *b = y;
	double ba = a->higher_better ? -a->delta : a->delta;
	double bb = b->higher_better ? -b->delta : b->delta;

	if (a->verdict != b->verdict) {
		static const int rank[] = {[GPA_VERDICT_REGRESSED] = 0,
					   [GPA_VERDICT_INCONCLUSIVE] = 1,
					   [GPA_VERDICT_UNCHANGED] = 2, [GPA_VERDICT_IMPROVED] = 3};
		return rank[a->verdict] - rank[b->verdict];
	}
	if (a->gated != b->gated) {
		return a->gated ? -1 : 1;
	}
	if (ba != bb && !(isnan(ba) && isnan(bb))) {
		return isnan(bb) || ba > bb ? -1 : 1;
	}
	return strcmp(a->name, b->name);
}

/* One side of a series as a sample: per-step values, or per-run medians. */
static int make_sample(struct gpa_diff *d, struct series *s, int side, bool medians,
		       double **vals, size_t **off, struct gpa_sample *out)
{
	size_t runs = d->nsteps[side].n, k = 0, src = 0;
	int ret = series_fill(d, s, side, runs);

	if (ret) {
		return ret;
	}
	*off = malloc((runs + 1) * sizeof(size_t));
	*vals = malloc((s->v[side].n ? s->v[side].n : 1) * sizeof(double));
	if (!*off || !*vals) {
		return -GP_ERR_NOMEM;
	}
	(*off)[0] = 0;
	for (size_t r = 0; r < runs; r++) {
		size_t n = d->nsteps[side].v[r];
		if (medians && n > 1) {
			memcpy(*vals + k, s->v[side].v + src, n * sizeof(double));
			(*vals)[k] = gpa_median(*vals + k, n);
			k++;
		} else {
			memcpy(*vals + k, s->v[side].v + src, n * sizeof(double));
			k += n;
		}
		src += n;
		(*off)[r + 1] = k;
	}
	*out = (struct gpa_sample){.v = *vals, .off = *off, .nruns = runs};
	return 0;
}

static double threshold_for(const struct gpa_diff_opts *o, const char *name)
{
	double e = o->min_effect;

	for (size_t i = 0; i < o->nthresholds; i++) {
		if (!fnmatch(o->thresholds[i].pattern, name, 0)) {
			e = o->thresholds[i].min_effect;
		}
	}
	return e;
}

static int compare_one(struct gpa_diff *d, struct series *s, bool medians,
		       struct gpa_diff_metric *mt)
{
	double *va = NULL, *vb = NULL, *tmp = NULL;
	size_t *oa = NULL, *ob = NULL;
	struct gpa_sample a, b;
	struct gpa_mwu u;
	int ret;

	*mt = (struct gpa_diff_metric){0};
	ret = make_sample(d, s, 0, medians, &va, &oa, &a);
	if (!ret) {
		ret = make_sample(d, s, 1, medians, &vb, &ob, &b);
	}
	if (ret) {
		goto out;
	}
	mt->unit = s->unit;
	mt->higher_better = s->higher_better;
	mt->na = a.off[a.nruns];
	mt->nb = b.off[b.nruns];
	ret = -GP_ERR_NOMEM;
	tmp = malloc(((mt->na > mt->nb ? mt->na : mt->nb) + 1) * sizeof(double));
	mt->name = strdup(s->name);
	if (!tmp || !mt->name) {
		goto out;
	}
	for (size_t i = 0; i < mt->na; i++) {
		mt->mean_a += va[i] / (double)mt->na;
	}
	for (size_t i = 0; i < mt->nb; i++) {
		mt->mean_b += vb[i] / (double)mt->nb;
	}
	memcpy(tmp, va, mt->na * sizeof(double));
	mt->med_a = gpa_median(tmp, mt->na);
	memcpy(tmp, vb, mt->nb * sizeof(double));
	mt->med_b = gpa_median(tmp, mt->nb);
	mt->delta = mt->med_a > 0 ? mt->med_b / mt->med_a - 1 : (mt->med_b > 0 ? INFINITY : 0);
	ret = gpa_mwu_test(va, mt->na, vb, mt->nb, &u);
	if (ret) {
		goto out;
	}
	mt->p = mt->q = u.p;
	mt->exact = u.exact;
	if (mt->na && mt->nb) {
		struct gpa_boot_opts bo = d->o->boot;
		/* each metric its own stream, so adding metrics never moves another's interval */
		bo.seed = d->o->boot.seed ^ gp_hash_bytes(s->name, strlen(s->name));
		ret = gpa_boot_ratio_ci(&a, &b, &bo, &mt->ci_lo, &mt->ci_hi);
		if (ret) {
			goto out;
		}
	}
	mt->min_effect = threshold_for(d->o, s->name);
	mt->gated = matches_any(d->o->fail_on, d->o->nfail_on, s->name);
out:
	free(va);
	free(vb);
	free(oa);
	free(ob);
	free(tmp);
	return ret;
}

static bool all_zero(const struct series *s)
{
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; i < s->v[side].n; i++) {
			if (s->v[side].v[i] != 0) {
				return false;
			}
		}
	}
	return true;
}

int gpa_diff_compute(struct gpa_diff *d, struct gpa_diff_result *out)
{
	const struct gpa_diff_opts *o = d->o;
	bool medians = false, same = true;
	double *p = NULL;
	int ret = -GP_ERR_NOMEM;

	*out = (struct gpa_diff_result){.correction = o->correction, .alpha = o->alpha,
					.boot = o->boot};
	out->runs[0] = d->nsteps[0].n;
	out->runs[1] = d->nsteps[1].n;
	out->step_source[0] = d->source[0];
	out->step_source[1] = d->source[1];
	if (!out->runs[0] || !out->runs[1]) {
		return -GP_ERR_API;
	}
	for (int side = 0; side < 2; side++) {
		for (size_t r = 0; r < d->nsteps[side].n; r++) {
			same &= d->nsteps[side].v[r] == d->nsteps[0].v[0];
		}
	}
	if (d->whole[0] && d->whole[1]) {
		out->samples = GPA_DIFF_WHOLE_RUNS;
	} else if (!same) {
		out->samples = GPA_DIFF_RUN_MEDIANS;
		medians = true;
	} else {
		out->samples = GPA_DIFF_STEPS;
	}
	if (d->whole[0] != d->whole[1]) {
		warn(d, "one side has steps and the other has none: their samples differ in kind");
	}
	for (size_t i = 0; i < d->s.n; i++) {
		struct series *s = &d->s.v[i];
		struct gpa_diff_metric mt;
		if (s->kernel && s->present[0] != s->present[1]) {
			/* a family loses its "kernel." prefix; an operator keeps "op." */
			char *fam = strdup(s->name + (strncmp(s->name, "kernel.", 7) ? 0 : 7));
			int pr = !fam ? -GP_ERR_NOMEM
				      : s->present[1] ? gp_vec_push(&out->new_kernels, fam)
						      : gp_vec_push(&out->vanished_kernels, fam);
			if (pr) {
				free(fam);
				goto out;
			}
			continue;
		}
		if (all_zero(s)) {
			continue; /* an idle cause or family that never took time in counted steps */
		}
		ret = compare_one(d, s, medians, &mt);
		if (ret) {
			free(mt.name);
			goto out;
		}
		ret = -GP_ERR_NOMEM;
		if (gp_vec_push(&out->metrics, mt)) {
			free(mt.name);
			goto out;
		}
	}
	p = malloc((out->metrics.n ? out->metrics.n : 1) * sizeof(double));
	if (!p) {
		goto out;
	}
	for (size_t i = 0; i < out->metrics.n; i++) {
		p[i] = out->metrics.v[i].p;
	}
	if (o->correction == GPA_DIFF_BH) {
		ret = gpa_adjust_bh(p, out->metrics.n, p);
	} else if (o->correction == GPA_DIFF_HOLM) {
		ret = gpa_adjust_holm(p, out->metrics.n, p);
	} else {
		ret = 0;
	}
	if (ret) {
		goto out;
	}
	for (size_t i = 0; i < out->metrics.n; i++) {
		struct gpa_diff_metric *mt = &out->metrics.v[i];
		struct gpa_verdict_in in = {
			.delta = mt->delta, .ci_lo = mt->ci_lo, .ci_hi = mt->ci_hi,
			.p = p[i], .alpha = o->alpha, .min_effect = mt->min_effect,
			.higher_better = mt->higher_better, .na = mt->na, .nb = mt->nb,
			.runs_a = out->runs[0], .runs_b = out->runs[1],
			.min_samples = o->min_samples,
		};
		mt->q = p[i];
		mt->verdict = gpa_verdict_decide(&in, &mt->more_runs);
		if (mt->gated && mt->verdict == GPA_VERDICT_REGRESSED) {
			out->regressed_gated++;
		}
	}
	gp_qsort(out->metrics.v, out->metrics.n, sizeof(*out->metrics.v), cmp_metric);
	ret = gpa_diff_explain(out);
	if (ret) {
		goto out;
	}
	/* the warnings move to the result */
	out->warnings.v = d->warnings.v;
	out->warnings.n = d->warnings.n;
	out->warnings.cap = d->warnings.cap;
	d->warnings.v = NULL;
	d->warnings.n = d->warnings.cap = 0;
	ret = 0;
out:
	free(p);
	return ret;
}

/* ---- one run's samples as bytes: diff --mpi (docs/cluster.md) */

#define RUN_MAGIC "GPDR"
#define RUN_VERSION 1

int gpa_diff_run_pack(const struct gpa_diff *d, struct gp_strbuf *out)
{
	int side = d->nsteps[0].n ? 0 : 1;
	size_t n;

	if (d->nsteps[0].n + d->nsteps[1].n != 1 || d->prints.n != 1) {
		return -GP_ERR_API;
	}
	n = d->nsteps[side].v[0];
	for (size_t i = 0; i < d->s.n; i++) {
		if (d->s.v[i].v[side].n != n) {
			return -GP_ERR_API;
		}
	}
	gp_strbuf_add(out, RUN_MAGIC, 4);
	gp_le_put(out, RUN_VERSION, 2);
	gp_le_put(out, (unsigned)side, 1);
	gp_le_put(out, (unsigned)d->source[side], 1);
	gp_le_put(out, n, 8);
	gp_le_put(out, d->pre_warnings, 4);
	gp_le_put(out, d->warnings.n, 4);
	for (size_t i = 0; i < d->warnings.n; i++) {
		gp_le_put_str(out, d->warnings.v[i]);
	}
	const struct run_print *rp = &d->prints.v[0];
	gp_le_put(out, rp->t0, 8);
	gp_le_put(out, rp->t1, 8);
	gp_le_put(out, rp->events, 8);
	gp_le_put(out, rp->kernels, 8);
	gp_le_put(out, rp->apis, 8);
	gp_le_put(out, rp->procs_hash, 8);
	gp_le_put_str(out, rp->label);
	gp_le_put(out, d->s.n, 4);
	for (size_t i = 0; i < d->s.n; i++) {
		const struct series *s = &d->s.v[i];
		gp_le_put_str(out, s->name);
		gp_le_put(out, s->unit, 1);
		gp_le_put(out, (s->higher_better ? 1u : 0) | (s->kernel ? 2u : 0) |
				       (s->present[side] ? 4u : 0), 1);
		for (size_t k = 0; k < n; k++) {
			gp_le_put_f64(out, s->v[side].v[k]);
		}
	}
	return out->failed ? -GP_ERR_NOMEM : 0;
}

/* The series of a record, added to d as gpa_diff_add_run adds a run's accumulators. */
static void unpack_series(struct gpa_diff *d, struct gp_le_rd *r, int side, size_t n)
{
	uint64_t ns = gp_le_get(r, 4);
	double *vals = NULL;

	/* every run has step.wall, and each series holds n values: checked before allocating */
	if (!r->bad && !ns) {
		r->bad = "no metric";
	}
	if (gp_le_fits(r, n, 8) && !(vals = malloc((n ? n : 1) * sizeof(double)))) {
		r->bad = "out of memory";
	}
	for (uint64_t i = 0; gp_le_fits(r, ns - i, 6) && i < ns; i++) {
		char *name = gp_le_get_str(r);
		unsigned unit = (unsigned)gp_le_get(r, 1), flags = (unsigned)gp_le_get(r, 1);
		if (!r->bad && (unit > GPA_DIFF_RATIO || flags > 7)) {
			r->bad = "bad unit or flags";
		}
		for (size_t k = 0; gp_le_fits(r, n - k, 8) && k < n; k++) {
			vals[k] = gp_le_get_f64(r);
		}
		uint32_t idx = r->bad ? GPA_NONE : series_get(d, name, (enum gpa_diff_unit)unit);
		free(name);
		if (!r->bad && idx == GPA_NONE) {
			r->bad = "out of memory";
		}
		if (r->bad) {
			break;
		}
		struct series *s = &d->s.v[idx];
		s->higher_better |= flags & 1;
		s->kernel |= (flags & 2) != 0;
		s->present[side] |= (flags & 4) != 0;
		if (series_put(d, idx, side, vals, n)) {
			r->bad = "out of memory";
		}
	}
	free(vals);
}

/* Header and warnings of a record; the run's step count in *n. */
static void unpack_head(struct gpa_diff *d, struct gp_le_rd *r, int side, size_t *n)
{
	unsigned ver, rside, source;
	uint64_t npre, nwarn;

	if (!gp_le_fits(r, 4, 1) || memcmp(r->p, RUN_MAGIC, 4)) {
		r->bad = r->bad ? r->bad : "not a run's samples";
		return;
	}
	r->p += 4;
	ver = (unsigned)gp_le_get(r, 2);
	rside = (unsigned)gp_le_get(r, 1);
	source = (unsigned)gp_le_get(r, 1);
	*n = (size_t)gp_le_get(r, 8);
	npre = gp_le_get(r, 4);
	nwarn = gp_le_get(r, 4);
	if (!r->bad && ver != RUN_VERSION) {
		r->bad = "another version of the format";
	} else if (!r->bad && ((int)rside != side || !source || source > GPA_STEPS_LOOP ||
			       !*n || npre > nwarn)) {
		r->bad = "bad side, step source or count";
	}
	d->pre_warnings = d->warnings.n + (size_t)npre;
	for (uint64_t i = 0; gp_le_fits(r, nwarn - i, 4) && i < nwarn; i++) {
		char *w = gp_le_get_str(r);
		if (w && gp_vec_push(&d->warnings, w)) {
			free(w);
			r->bad = "out of memory";
		}
	}
	if (!r->bad && gp_vec_push(&d->nsteps[side], *n)) {
		r->bad = "out of memory";
	}
	if (!r->bad && d->nsteps[side].n == 1) {
		d->source[side] = (enum gpa_step_source)source;
	}
	if (!r->bad && source != GPA_STEPS_WHOLE) {
		d->whole[side] = false;
	}
}

int gpa_diff_run_unpack(struct gpa_diff *d, int side, const void *buf, size_t len,
			const char *what, char *errbuf, size_t errlen)
{
	struct gp_le_rd r = gp_le_rd_init(buf, len);
	struct run_print rp = {0};
	size_t n = 0;

	if (side != 0 && side != 1) {
		return -GP_ERR_API;
	}
	unpack_head(d, &r, side, &n);
	rp.t0 = gp_le_get(&r, 8);
	rp.t1 = gp_le_get(&r, 8);
	rp.events = gp_le_get(&r, 8);
	rp.kernels = gp_le_get(&r, 8);
	rp.apis = gp_le_get(&r, 8);
	rp.procs_hash = gp_le_get(&r, 8);
	char *label = gp_le_get_str(&r);
	if (!r.bad) {
		/* the same-run warning goes between the run's own warnings, as in add_run */
		size_t post = d->warnings.n - d->pre_warnings;
		check_print(d, &rp, label);
		if (d->warnings.n > d->pre_warnings + post) {
			char *dup = d->warnings.v[d->warnings.n - 1];
			memmove(&d->warnings.v[d->pre_warnings + 1], &d->warnings.v[d->pre_warnings],
				post * sizeof(char *));
			d->warnings.v[d->pre_warnings] = dup;
		}
	}
	free(label);
	unpack_series(d, &r, side, n);
	if (!r.bad && r.p != r.end) {
		r.bad = "bytes after the record";
	}
	if (r.bad) {
		bool nomem = !strcmp(r.bad, "out of memory");
		snprintf(errbuf, errlen, "%s: %s", what, r.bad);
		return nomem ? -GP_ERR_NOMEM : -GP_ERR_FORMAT;
	}
	return 0;
}
