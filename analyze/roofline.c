/* SPDX-License-Identifier: MIT */
/*
 * roofline.c - kernels placed against the device roofline where their FLOPs
 * and bytes are known from user rules: a kernel-name pattern and formulas
 * over the launch dimensions (docs/mfu.md). Without a rule a kernel is not
 * placed: a trace has no FLOP or byte counters, and nothing is guessed.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/mfu.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_RULES 256
#define MAX_EXPR 512

struct rule {
	char pattern[256];
	char flops[MAX_EXPR], bytes[MAX_EXPR];
	int dtype; /* -1: the analysis's */
	pcre2_code *re;
};

struct gpa_roof_rules {
	struct rule *v;
	size_t n;
	pcre2_match_data *md;
};

/* ---- expressions: numbers, launch variables, + - * / and parentheses */

struct vars {
	double grid_x, grid_y, grid_z, block_x, block_y, block_z, regs, smem;
};

struct ex {
	const char *s;
	const struct vars *v;
	bool bad;
	int depth;
};

static double ex_sum(struct ex *e);

static void skip_ws(struct ex *e)
{
	while (*e->s == ' ' || *e->s == '\t') {
		e->s++;
	}
}

static double ex_atom(struct ex *e)
{
	skip_ws(e);
	if (*e->s == '(') {
		if (++e->depth > 32) {
			e->bad = true;
			return NAN;
		}
		e->s++;
		double v = ex_sum(e);
		skip_ws(e);
		if (*e->s != ')') {
			e->bad = true;
			return NAN;
		}
		e->s++;
		e->depth--;
		return v;
	}
	if (*e->s == '-') {
		e->s++;
		return -ex_atom(e);
	}
	if (isdigit((unsigned char)*e->s) || *e->s == '.') {
		char *end;
		double v = strtod(e->s, &end);
		if (end == e->s) {
			e->bad = true;
			return NAN;
		}
		e->s = end;
		return v;
	}
	static const struct {
		const char *name;
		size_t off;
	} names[] = {
		{"grid_x", offsetof(struct vars, grid_x)},   {"grid_y", offsetof(struct vars, grid_y)},
		{"grid_z", offsetof(struct vars, grid_z)},   {"block_x", offsetof(struct vars, block_x)},
		{"block_y", offsetof(struct vars, block_y)}, {"block_z", offsetof(struct vars, block_z)},
		{"regs", offsetof(struct vars, regs)},       {"smem", offsetof(struct vars, smem)},
	};
	const char *p = e->s;
	while (isalnum((unsigned char)*p) || *p == '_') {
		p++;
	}
	size_t n = (size_t)(p - e->s);
	const struct vars *v = e->v;
	double r = NAN;
	if (n == 4 && !strncmp(e->s, "grid", 4)) {
		r = v->grid_x * v->grid_y * v->grid_z;
	} else if (n == 5 && !strncmp(e->s, "block", 5)) {
		r = v->block_x * v->block_y * v->block_z;
	} else if (n == 7 && !strncmp(e->s, "threads", 7)) {
		r = v->grid_x * v->grid_y * v->grid_z * v->block_x * v->block_y * v->block_z;
	} else {
		for (size_t i = 0; i < GP_ARRAY_SIZE(names); i++) {
			if (strlen(names[i].name) == n && !strncmp(e->s, names[i].name, n)) {
				r = *(const double *)((const char *)v + names[i].off);
			}
		}
	}
	if (!n || isnan(r)) {
		e->bad = true;
		return NAN;
	}
	e->s = p;
	return r;
}

static double ex_prod(struct ex *e)
{
	double v = ex_atom(e);
	for (;;) {
		skip_ws(e);
		char op = *e->s;
		if (op != '*' && op != '/') {
			return v;
		}
		e->s++;
		double w = ex_atom(e);
		v = op == '*' ? v * w : v / w;
	}
}

static double ex_sum(struct ex *e)
{
	double v = ex_prod(e);
	for (;;) {
		skip_ws(e);
		char op = *e->s;
		if (op != '+' && op != '-') {
			return v;
		}
		e->s++;
		double w = ex_prod(e);
		v = op == '+' ? v + w : v - w;
	}
}

/* The value of expression s; false when it does not parse. */
static bool eval(const char *s, const struct vars *v, double *out)
{
	struct ex e = {.s = s, .v = v};
	double r = ex_sum(&e);
	skip_ws(&e);
	if (e.bad || *e.s) {
		return false;
	}
	*out = r;
	return true;
}

/* ---- rules files */

static int parse_rule(const char *path, size_t ln, char *s, struct rule *r, char *errbuf,
		      size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->dtype = -1;
	for (;;) {
		char *key, *val;
		int kv = gp_kv_next(&s, &key, &val, path, ln, errbuf, errlen);
		if (kv < 0) {
			return kv;
		}
		if (!kv) {
			break;
		}
		char *dst = !strcmp(key, "pattern") ? r->pattern
			    : !strcmp(key, "flops") ? r->flops
			    : !strcmp(key, "bytes") ? r->bytes
						    : NULL;
		if (!strcmp(key, "dtype")) {
			r->dtype = gpa_dtype_parse(val);
			if (r->dtype < 0) {
				return gp_kv_error(errbuf, errlen, path, ln, "unknown datatype", val);
			}
			continue;
		}
		if (!dst) {
			return gp_kv_error(errbuf, errlen, path, ln, "unknown key", key);
		}
		size_t cap = dst == r->pattern ? sizeof(r->pattern) : MAX_EXPR;
		if (!*val || strlen(val) >= cap) {
			return gp_kv_error(errbuf, errlen, path, ln, "empty or too long", key);
		}
		memcpy(dst, val, strlen(val) + 1);
	}
	if (!r->pattern[0] && !r->flops[0] && !r->bytes[0] && r->dtype < 0) {
		return 1;
	}
	if (!r->pattern[0] || !r->flops[0] || !r->bytes[0]) {
		return gp_kv_error(errbuf, errlen, path, ln, "a rule needs pattern=, flops= and bytes=", NULL);
	}
	struct vars one = {1, 1, 1, 1, 1, 1, 1, 1};
	double x;
	if (!eval(r->flops, &one, &x)) {
		return gp_kv_error(errbuf, errlen, path, ln, "bad flops formula", r->flops);
	}
	if (!eval(r->bytes, &one, &x)) {
		return gp_kv_error(errbuf, errlen, path, ln, "bad bytes formula", r->bytes);
	}
	int code;
	PCRE2_SIZE off;
	r->re = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code, &off,
			      NULL);
	if (!r->re && code == PCRE2_ERROR_HEAP_FAILED) {
		snprintf(errbuf, errlen, "out of memory");
		return -GP_ERR_NOMEM;
	}
	if (!r->re) {
		PCRE2_UCHAR msg[120];
		pcre2_get_error_message(code, msg, sizeof(msg));
		snprintf(errbuf, errlen, "%s:%zu: bad pattern '%.60s' at offset %zu: %s", path, ln,
			 r->pattern, (size_t)off, (char *)msg);
		return -GP_ERR_FORMAT;
	}
	return 0;
}

int gpa_roof_rules_parse(const char *path, const char *text, size_t len,
			 struct gpa_roof_rules **out, char *errbuf, size_t errlen)
{
	struct gpa_roof_rules *rs = calloc(1, sizeof(*rs));
	char line[GP_KV_LINE_MAX + 1];
	size_t ln = 0, pos = 0;
	int ret = 0;

	*out = NULL;
	if (!rs || !(rs->v = calloc(MAX_RULES, sizeof(*rs->v)))) {
		free(rs);
		snprintf(errbuf, errlen, "out of memory");
		return -GP_ERR_NOMEM;
	}
	while (!ret && (ret = gp_kv_line(path, text, len, &pos, &ln, line, errbuf, errlen)) > 0) {
		ret = 0;
		if (rs->n >= MAX_RULES) {
			ret = gp_kv_error(errbuf, errlen, path, ln, "more than 256 rules", NULL);
			break;
		}
		int pr = parse_rule(path, ln, line, &rs->v[rs->n], errbuf, errlen);
		if (pr < 0) {
			ret = pr;
		} else if (!pr) {
			rs->n++;
		}
	}
	if (!ret && !rs->n) {
		ret = gp_kv_error(errbuf, errlen, path, ln, "no rule in the file", NULL);
	}
	if (!ret && !(rs->md = pcre2_match_data_create(4, NULL))) {
		snprintf(errbuf, errlen, "out of memory");
		ret = -GP_ERR_NOMEM;
	}
	if (ret) {
		gpa_roof_rules_free(rs);
		return ret;
	}
	*out = rs;
	return 0;
}

void gpa_roof_rules_free(struct gpa_roof_rules *rs)
{
	if (!rs) {
		return;
	}
	for (size_t i = 0; i < rs->n; i++) {
		pcre2_code_free(rs->v[i].re);
	}
	pcre2_match_data_free(rs->md);
	free(rs->v);
	free(rs);
}

/* ---- analysis */

static int by_time(const void *pa, const void *pb)
{
	const struct gpa_roof_row *a = pa, *b = pb;

	if (a->gpu_ns != b->gpu_ns) {
		return a->gpu_ns < b->gpu_ns ? 1 : -1;
	}
	return a->func != b->func ? (a->func < b->func ? -1 : 1) : (a->shape < b->shape ? -1 : a->shape > b->shape);
}

int gpa_roofline_analyze(const struct gpa_model *m, const struct gpa_roof_rules *rs,
			 const struct gpa_peaks *pk, enum gpa_dtype dtype, struct gpa_roofline *out,
			 char *errbuf, size_t errlen)
{
	int16_t *rule_of = NULL; /* per func: -2 unknown, -1 none, else rule index */
	uint32_t *last = NULL;   /* per func: the row of its last launch, UINT32_MAX none */
	int ret = -GP_ERR_NOMEM;

	memset(out, 0, sizeof(*out));
	out->bw_gbps = pk->mem_gbps;
	out->peak_tflops = pk->tflops[dtype];
	out->ridge = out->bw_gbps > 0 ? out->peak_tflops * 1e12 / (out->bw_gbps * 1e9) : 0;
	if (!rs) {
		return 0;
	}
	rule_of = malloc((m->funcs.n + 1) * sizeof(*rule_of));
	last = malloc((m->funcs.n + 1) * sizeof(*last));
	if (!rule_of || !last) {
		goto out;
	}
	for (size_t i = 0; i <= m->funcs.n; i++) {
		rule_of[i] = -2;
		last[i] = UINT32_MAX;
	}
	for (size_t k = 0; k < gpa_kern_rows(m); k++) {
		uint32_t fn = gpa_kern_func(m, k);
		uint64_t ns = gpa_kern_dur(m, k);
		if (rule_of[fn] == -2) {
			const struct gpa_func *f = &m->funcs.v[fn];
			const char *name = gpa_model_str(m, f->demangled ? f->demangled : f->name);
			rule_of[fn] = -1;
			for (size_t r = 0; r < rs->n; r++) {
				if (pcre2_match(rs->v[r].re, (PCRE2_SPTR)name, strlen(name), 0, 0, rs->md,
						NULL) >= 0) {
					rule_of[fn] = (int16_t)r;
					break;
				}
			}
		}
		if (rule_of[fn] < 0) {
			out->unmatched_ns += ns;
			out->unmatched_launches++;
			continue;
		}
		out->matched_ns += ns;
		size_t g = last[fn];
		if (g == UINT32_MAX || out->rows.v[g].shape != gpa_kern_shape(m, k)) {
			for (g = 0; g < out->rows.n; g++) { /* one row per kernel and configuration */
				if (out->rows.v[g].func == fn && out->rows.v[g].shape == gpa_kern_shape(m, k)) {
					break;
				}
			}
		}
		if (g == out->rows.n) {
			if (out->rows.n >= 4096) {
				out->unmatched_ns += ns;
				out->unmatched_launches++;
				continue;
			}
			const struct rule *r = &rs->v[rule_of[fn]];
			const struct gpa_shape *sh = &m->shapes.v[gpa_kern_shape(m, k)];
			struct vars v = {sh->grid_x, sh->grid_y, sh->grid_z, sh->block_x, sh->block_y,
					 sh->block_z, sh->regs, (double)sh->static_smem + sh->dynamic_smem};
			struct gpa_roof_row row = {.func = fn, .shape = gpa_kern_shape(m, k),
						   .rule = (uint32_t)rule_of[fn],
						   .dtype = r->dtype >= 0 ? (enum gpa_dtype)r->dtype : dtype};
			if (!eval(r->flops, &v, &row.flops) || !eval(r->bytes, &v, &row.bytes) ||
			    !isfinite(row.flops) || !isfinite(row.bytes) || row.flops < 0 ||
			    row.bytes <= 0) {
				row.flops = row.bytes = -1;
			}
			if (gp_vec_push(&out->rows, row)) {
				goto out;
			}
		}
		last[fn] = (uint32_t)g;
		out->rows.v[g].launches++;
		out->rows.v[g].gpu_ns += ns;
	}
	for (size_t g = 0; g < out->rows.n; g++) {
		struct gpa_roof_row *r = &out->rows.v[g];
		const struct gpa_shape *sh = &m->shapes.v[r->shape];
		double peak = pk->tflops[r->dtype] * 1e12, bw = pk->mem_gbps * 1e9;
		if (r->bytes <= 0) {
			r->bound = GPA_ROOF_NO_VALUE;
			continue;
		}
		r->ai = r->flops / r->bytes;
		if (!(peak > 0) || !(bw > 0)) {
			r->bound = GPA_ROOF_NO_PEAK;
			continue;
		}
		/* A grid smaller than the SMs can use only part of the compute roof. */
		double grid = (double)sh->grid_x * sh->grid_y * sh->grid_z;
		uint32_t sms = m->devs.n ? m->devs.v[0].num_sms : 0;
		double part = sms && grid < sms ? grid / sms : 1;
		r->attainable_tflops = fmin(peak * part, r->ai * bw) / 1e12;
		double secs = (double)r->gpu_ns / 1e9;
		r->achieved_tflops = secs > 0 ? r->flops * r->launches / secs / 1e12 : 0;
		double tmin = fmax(r->flops / (peak * part), r->bytes / bw) * r->launches;
		r->efficiency = secs > 0 ? tmin / secs : 0;
		if (r->efficiency > 1) {
			/* faster than the roofs: the formula overstates the work; never placed */
			r->bound = GPA_ROOF_IMPLAUSIBLE;
		} else if (r->gpu_ns / r->launches < 5000) {
			r->bound = GPA_ROOF_LATENCY; /* a few microseconds: launch and latency bound */
		} else {
			r->bound = r->ai * bw < peak * part ? GPA_ROOF_MEMORY : GPA_ROOF_COMPUTE;
		}
	}
	if (out->rows.n) {
		qsort(out->rows.v, out->rows.n, sizeof(*out->rows.v), by_time);
	}
	ret = 0;
out:
	free(rule_of);
	free(last);
	if (ret) {
		snprintf(errbuf, errlen, "out of memory");
		gpa_roofline_release(out);
	}
	return ret;
}

void gpa_roofline_release(struct gpa_roofline *r)
{
	if (r) {
		gp_vec_free(&r->rows);
	}
}
