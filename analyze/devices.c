/* SPDX-License-Identifier: MIT */
/*
 * devices.c - the GPU peak table (devices.def), matching a recorded device
 * to a row, the estimate for unknown parts, and user device files
 * (docs/mfu.md).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/mfu.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const struct gpa_devrow builtin[] = {
#define X(k, nm, pat, maj, min, sm, mem, mhz, f64, f64tc, tf32, bf16, fp8, int8, fp4, bw, nvl,    \
	  pcie, disp, src, nt)                                                                     \
	{.key = #k, .name = nm, .patterns = pat, .cc_major = maj, .cc_minor = min, .sms = sm,     \
	 .mem_gib = mem, .boost_mhz = mhz, .tflops = {f64, f64tc, tf32, bf16, fp8, int8, fp4},    \
	 .mem_gbps = bw, .nvlink_gbps = nvl, .pcie_gen = pcie, .disputed = disp, .source = src,   \
	 .note = nt},
#include "analyze/devices.def"
#undef X
};

static const char *const dtype_names[GPA_DT__COUNT] = {"fp64", "fp64-tc", "tf32", "bf16",
						       "fp8",  "int8",    "fp4"};

const struct gpa_devrow *gpa_devices_builtin(size_t *n)
{
	*n = GP_ARRAY_SIZE(builtin);
	return builtin;
}

int gpa_dtype_parse(const char *s)
{
	if (!strcmp(s, "fp16")) {
		return GPA_DT_BF16;
	}
	for (int i = 0; i < GPA_DT__COUNT; i++) {
		if (!strcmp(s, dtype_names[i])) {
			return i;
		}
	}
	return -1;
}

const char *gpa_dtype_name(enum gpa_dtype dt)
{
	return (unsigned)dt < GPA_DT__COUNT ? dtype_names[dt] : "?";
}

double gpa_pcie_gbps(unsigned gen)
{
	switch (gen) {
	case 3:
		return 15.75;
	case 4:
		return 31.5;
	case 5:
		return 63.0;
	case 6:
		return 126.0;
	default:
		return 0;
	}
}

/* Length of the longest '|'-separated pattern of pats found in name at word boundaries. */
static size_t pattern_match(const char *name, const char *pats)
{
	size_t best = 0;

	while (*pats) {
		const char *end = strchr(pats, '|');
		size_t n = end ? (size_t)(end - pats) : strlen(pats);
		for (const char *p = name; n && *p; p++) {
			if (p != name && isalnum((unsigned char)p[-1])) {
				continue;
			}
			if (strncasecmp(p, pats, n) || isalnum((unsigned char)p[n])) {
				continue;
			}
			if (n > best) {
				best = n;
			}
			break;
		}
		pats += n + (end ? 1 : 0);
	}
	return best;
}

/*
 * A name that says no model: no digit in it ("AMD Radeon Graphics", "NVIDIA
 * Graphics Device") or none at all. Such a device is matched by its numbers.
 */
bool gpa_device_name_is_vague(const char *name)
{
	if (!name) {
		return true;
	}
	for (const char *p = name; *p; p++) {
		if (isdigit((unsigned char)*p)) {
			return false;
		}
	}
	return true;
}

/*
 * How well row r fits a device of sms SMs and mem bytes, after its name
 * matched len characters: the same SM count first, then the longer name
 * fragment, then the closer memory size. Higher is better.
 */
static double fit(const struct gpa_devrow *r, size_t len, uint32_t sms, uint64_t mem)
{
	double gib = (double)mem / (1024.0 * 1024 * 1024);
	double d = mem ? fabs((double)r->mem_gib - gib) : 0;

	return (sms && r->sms == sms ? 1e9 : 0) + (double)len * 1e5 - (d < 1e5 ? d : 1e5);
}

static const struct gpa_devrow *match_rows(const struct gpa_devrow *rows, size_t n,
					   const char *name, unsigned maj, unsigned min,
					   uint32_t sms, uint64_t mem, bool *by_numbers,
					   const struct gpa_devrow **also)
{
	const struct gpa_devrow *best = NULL;
	double best_fit = -INFINITY;
	bool vague = gpa_device_name_is_vague(name);

	/*
	 * A named device matches by name; where several rows match (a vague
	 * name such as "NVIDIA A100-PG509-200" or "AMD Instinct MI250X / MI250"),
	 * the SM count and memory size decide between them.
	 */
	for (size_t i = 0; i < n && !vague; i++) {
		const struct gpa_devrow *r = &rows[i];
		if (maj && (r->cc_major != maj || r->cc_minor != min)) {
			continue;
		}
		size_t len = pattern_match(name, r->patterns);
		if (len && fit(r, len, sms, mem) > best_fit) {
			best_fit = fit(r, len, sms, mem);
			best = r;
		}
	}
	if (best || !maj || !sms || !vague) {
		return best;
	}
	/*
	 * A name that says no model: the same architecture and SM count, the
	 * closest memory size. A named device that matches no row is not
	 * guessed from its numbers: a new part may share an old one's
	 * architecture, SMs and memory but not its peaks.
	 */
	for (size_t i = 0; i < n; i++) {
		const struct gpa_devrow *r = &rows[i];
		if (r->cc_major != maj || r->cc_minor != min || r->sms != sms) {
			continue;
		}
		if (fit(r, 0, sms, mem) > best_fit) {
			best_fit = fit(r, 0, sms, mem);
			best = r;
			*also = NULL;
		} else if (fit(r, 0, sms, mem) == best_fit && !*also) {
			*also = r; /* another part with the same numbers */
		}
	}
	*by_numbers = best != NULL;
	return best;
}

const struct gpa_devrow *gpa_device_match(const char *name, unsigned cc_major, unsigned cc_minor,
					  uint32_t sms, uint64_t mem_bytes,
					  const struct gpa_devrow *user, size_t nuser, bool *by_numbers,
					  const struct gpa_devrow **also)
{
	bool numbers = false;
	const struct gpa_devrow *other = NULL;
	const struct gpa_devrow *r =
		match_rows(user, nuser, name, cc_major, cc_minor, sms, mem_bytes, &numbers, &other);
	if (!r) {
		r = match_rows(builtin, GP_ARRAY_SIZE(builtin), name, cc_major, cc_minor, sms,
			       mem_bytes, &numbers, &other);
	}
	if (by_numbers) {
		*by_numbers = numbers;
	}
	if (also) {
		*also = other;
	}
	return r;
}

/* A row chosen by --device: its key, or a name/pattern fragment. */
const struct gpa_devrow *gpa_device_find(const char *want, const struct gpa_devrow *user,
					 size_t nuser)
{
	for (int pass = 0; pass < 2; pass++) {
		const struct gpa_devrow *rows = pass ? builtin : user;
		size_t n = pass ? GP_ARRAY_SIZE(builtin) : nuser;
		for (size_t i = 0; i < n; i++) {
			if (!strcasecmp(rows[i].key, want) || !strcasecmp(rows[i].name, want)) {
				return &rows[i];
			}
		}
		size_t best = 0;
		const struct gpa_devrow *r = NULL;
		for (size_t i = 0; i < n; i++) {
			size_t len = pattern_match(want, rows[i].patterns);
			if (len > best) {
				best = len;
				r = &rows[i];
			}
		}
		if (r) {
			return r;
		}
	}
	return NULL;
}

/* Dense BF16/FP16 tensor FLOP per clock per SM by architecture (docs/mfu.md). */
static double bf16_per_clock(unsigned maj, unsigned min, const char *name)
{
	/*
	 * AMD parts report the gfx target as their compute capability (gfx90a
	 * is 9.0, like Hopper): NVIDIA's rates say nothing about them.
	 */
	if (name && (strcasestr(name, "AMD") || strcasestr(name, "Radeon") ||
		     strcasestr(name, "Instinct"))) {
		return 0;
	}
	switch (maj) {
	case 7:
		return 1024;
	case 8:
		if (min == 0) {
			return 2048;
		}
		/* GeForce parts run FP16 with FP32 accumulation at half the datacenter rate. */
		return name && strcasestr(name, "geforce") ? 512 : 1024;
	case 9:
		return min == 0 ? 4096 : 0; /* 9.4, 9.5: AMD CDNA 3 and 4 */
	case 10:
	case 11:
		return 8192;
	case 12:
		return 512;
	default:
		return 0;
	}
}

static void from_row(struct gpa_peaks *p, const struct gpa_devrow *r, uint32_t sms)
{
	p->name = r->name;
	p->disputed = r->disputed;
	p->scale = 1;
	if (sms && r->sms && sms < r->sms) {
		p->scale = (double)sms / r->sms; /* a MIG slice */
	}
	for (int i = 0; i < GPA_DT__COUNT; i++) {
		p->tflops[i] = r->tflops[i] * p->scale;
	}
	p->mem_gbps = r->mem_gbps;
	p->nvlink_gbps = r->nvlink_gbps;
	p->pcie_gen = r->pcie_gen;
	p->pcie_gbps = gpa_pcie_gbps(r->pcie_gen);
}

/* Unknown part: SMs x FLOP/clock/SM x clock, said to be an estimate. */
static void estimate(const struct gpa_dev *d, const char *name, struct gpa_peaks *out)
{
	double per_clock = bf16_per_clock(d->cc_major, d->cc_minor, name);

	if (!d->num_sms || !d->core_clock_khz || !per_clock) {
		return;
	}
	double bf16 = d->num_sms * per_clock * (d->core_clock_khz * 1e3) / 1e12;
	out->source = GPA_PEAK_ESTIMATE;
	out->name = *name ? name : "unknown GPU";
	out->tflops[GPA_DT_BF16] = bf16;
	if (d->cc_major >= 8) {
		out->tflops[GPA_DT_TF32] = bf16 / 2; /* TF32 came with Ampere */
	}
	if (d->cc_major * 10 + d->cc_minor >= 75) {
		out->tflops[GPA_DT_INT8] = bf16 * 2;
	}
	if (d->cc_major * 10 + d->cc_minor >= 89) {
		out->tflops[GPA_DT_FP8] = bf16 * 2;
	}
	if (d->cc_major >= 10) {
		out->tflops[GPA_DT_FP4] = bf16 * 4;
	}
}

int gpa_device_peaks_opts(const struct gpa_model *m, uint32_t dev, const struct gpa_peak_opts *o,
			  struct gpa_peaks *out, char *errbuf, size_t errlen)
{
	static const struct gpa_peak_opts none = {.dtype = GPA_DT_BF16};

	memset(out, 0, sizeof(*out));
	out->name = "unknown";
	out->scale = 1;
	if (!o) {
		o = &none;
	}
	if (dev >= m->devs.n && !o->device) {
		if (m->devs.n) {
			return -GP_ERR_API;
		}
	}
	const struct gpa_dev *d = dev < m->devs.n ? &m->devs.v[dev] : NULL;
	const struct gpa_devrow *r = NULL;
	const struct gpa_devrow *also = NULL;
	bool by_numbers = false;
	if (o->device) {
		r = gpa_device_find(o->device, o->user, o->nuser);
		if (!r) {
			snprintf(errbuf, errlen,
				 "unknown device '%s' ('gpuprof devices' lists the known ones)",
				 o->device);
			return -GP_ERR_NOTFOUND;
		}
	} else if (d) {
		r = gpa_device_match(gpa_model_str(m, d->name), d->cc_major, d->cc_minor, d->num_sms,
				     d->global_mem_bytes, o->user, o->nuser, &by_numbers, &also);
	}
	out->recorded = d ? gpa_model_str(m, d->name) : "";
	if (r) {
		from_row(out, r, o->device || !d ? 0 : d->num_sms);
		out->source = r >= builtin && r < builtin + GP_ARRAY_SIZE(builtin) ? GPA_PEAK_TABLE
										    : GPA_PEAK_USER;
		out->by_numbers = by_numbers;
		out->doc = r->source;
		if (also) {
			/* Two parts with the same numbers: the name is a guess, the peaks too
			 * unless they are the same. */
			out->also = also->name;
			out->disputed |= memcmp(also->tflops, r->tflops, sizeof(r->tflops)) ||
					 also->mem_gbps != r->mem_gbps;
		}
	} else if (d) {
		estimate(d, gpa_model_str(m, d->name), out);
	}
	if (out->source == GPA_PEAK_NONE && d && *out->recorded) {
		out->name = out->recorded; /* unknown peaks, but the trace names it */
	}
	if (d && !out->mem_gbps && d->global_mem_bw_kbps) {
		out->mem_gbps = (double)d->global_mem_bw_kbps * 1e3 / 1e9;
	}
	if (o->peak_tflops > 0) {
		out->tflops[o->dtype] = o->peak_tflops;
		out->overridden = true;
	}
	if (o->peak_gbps > 0) {
		out->mem_gbps = o->peak_gbps;
		out->overridden = true;
	}
	return 0;
}

int gpa_device_peaks(const struct gpa_model *m, uint32_t dev, struct gpa_peaks *out)
{
	char err[128];

	return gpa_device_peaks_opts(m, dev, NULL, out, err, sizeof(err));
}

/* ---- user device files */

#define MAX_ROWS 1024

static bool parse_num(const char *v, double lo, double hi, double *out)
{
	char *end;

	if (!*v) {
		return false;
	}
	errno = 0;
	double x = strtod(v, &end);
	if (errno || *end || !isfinite(x) || x < lo || x > hi) {
		return false;
	}
	*out = x;
	return true;
}

static int parse_line(const char *path, size_t ln, char *s, struct gpa_devrow *r, char *errbuf,
		      size_t errlen)
{
	bool has_name = false, has_value = false;

	memset(r, 0, sizeof(*r));
	for (;;) {
		char *key, *val;
		int kv = gp_kv_next(&s, &key, &val, path, ln, errbuf, errlen);
		if (kv < 0) {
			return kv;
		}
		if (!kv) {
			break;
		}
		double x;
		int dt = gpa_dtype_parse(key);
		if (!strcmp(key, "name") || !strcmp(key, "match") || !strcmp(key, "key")) {
			size_t cap = !strcmp(key, "name")    ? sizeof(r->name)
				     : !strcmp(key, "match") ? sizeof(r->patterns)
							     : sizeof(r->key);
			if (!*val || strlen(val) >= cap) {
				return gp_kv_error(errbuf, errlen, path, ln, "empty or too long", key);
			}
			memcpy(!strcmp(key, "name")    ? r->name
			       : !strcmp(key, "match") ? r->patterns
						       : r->key,
			       val, strlen(val) + 1);
			has_name |= !strcmp(key, "name");
		} else if (dt >= 0) {
			if (!parse_num(val, 0, 1e6, &x) || x == 0) {
				return gp_kv_error(errbuf, errlen, path, ln,
					    "peak TFLOP/s must be a number in (0, 1e6], got", val);
			}
			r->tflops[dt] = x;
			has_value = true;
		} else if (!strcmp(key, "mem_bw") || !strcmp(key, "nvlink")) {
			if (!parse_num(val, 0, 1e6, &x) || x == 0) {
				return gp_kv_error(errbuf, errlen, path, ln,
					    "bandwidth GB/s must be a number in (0, 1e6], got", val);
			}
			*(!strcmp(key, "mem_bw") ? &r->mem_gbps : &r->nvlink_gbps) = x;
			has_value = true;
		} else if (!strcmp(key, "cc")) {
			unsigned maj, min;
			char c;
			if (sscanf(val, "%u.%u%c", &maj, &min, &c) != 2 || !maj || maj > 99 ||
			    min > 9) {
				return gp_kv_error(errbuf, errlen, path, ln, "bad compute capability", val);
			}
			r->cc_major = (uint8_t)maj;
			r->cc_minor = (uint8_t)min;
		} else if (!strcmp(key, "sms") || !strcmp(key, "mem_gib") ||
			   !strcmp(key, "boost_mhz") || !strcmp(key, "pcie_gen") ||
			   !strcmp(key, "disputed")) {
			double hi = !strcmp(key, "pcie_gen") ? 7 : !strcmp(key, "disputed") ? 1 : 1e6;
			if (!parse_num(val, 0, hi, &x) || x != floor(x)) {
				return gp_kv_error(errbuf, errlen, path, ln, "bad whole number for", key);
			}
			if (!strcmp(key, "sms")) {
				r->sms = (uint32_t)x;
			} else if (!strcmp(key, "mem_gib")) {
				r->mem_gib = (uint32_t)x;
			} else if (!strcmp(key, "boost_mhz")) {
				r->boost_mhz = (uint32_t)x;
			} else if (!strcmp(key, "pcie_gen")) {
				r->pcie_gen = (uint8_t)x;
			} else {
				r->disputed = x != 0;
			}
		} else {
			return gp_kv_error(errbuf, errlen, path, ln, "unknown key", key);
		}
	}
	if (!has_name && !has_value && !r->key[0] && !r->patterns[0]) {
		return 1; /* blank or comment */
	}
	if (!has_name) {
		return gp_kv_error(errbuf, errlen, path, ln, "a device needs name=", NULL);
	}
	if (!has_value) {
		return gp_kv_error(errbuf, errlen, path, ln, "a device needs a peak or mem_bw", NULL);
	}
	if (!r->patterns[0]) {
		memcpy(r->patterns, r->name, sizeof(r->name));
	}
	if (!r->key[0]) {
		snprintf(r->key, sizeof(r->key), "%.31s", r->name);
	}
	return 0;
}

int gpa_devices_parse(const char *path, const char *text, size_t len, struct gpa_devrow **rows,
		      size_t *nrows, char *errbuf, size_t errlen)
{
	GP_VEC(struct gpa_devrow) v = {0};
	char line[GP_KV_LINE_MAX + 1];
	size_t ln = 0, pos = 0;
	int ret = 0;

	*rows = NULL;
	*nrows = 0;
	while (!ret && (ret = gp_kv_line(path, text, len, &pos, &ln, line, errbuf, errlen)) > 0) {
		ret = 0;
		struct gpa_devrow r;
		int pr = parse_line(path, ln, line, &r, errbuf, errlen);
		if (pr < 0) {
			ret = pr;
			break;
		}
		if (pr > 0) {
			continue;
		}
		if (v.n >= MAX_ROWS) {
			ret = gp_kv_error(errbuf, errlen, path, ln, "more than 1024 devices", NULL);
			break;
		}
		if (gp_vec_push(&v, r)) {
			snprintf(errbuf, errlen, "out of memory");
			ret = -GP_ERR_NOMEM;
		}
	}
	if (!ret && !v.n) {
		snprintf(errbuf, errlen, "%s: no device in the file", path);
		ret = -GP_ERR_FORMAT;
	}
	if (ret) {
		gp_vec_free(&v);
		return ret;
	}
	*rows = v.v;
	*nrows = v.n;
	return 0;
}
