/* SPDX-License-Identifier: MIT */
/*
 * occupancy.c - theoretical occupancy of every kernel launch of a model,
 * grouped by kernel, launch configuration and device; per-step
 * time-weighted occupancy; waves and the tail effect (docs/occupancy.md).
 *
 * The occupancy of a launch depends only on its configuration and its
 * device, so it is computed once per distinct (kernel, configuration,
 * device) group and every launch is one hash lookup plus sums.
 */
#include "base/compat.h"
#include "analyze/occupancy.h"
#include "analyze/model.h"
#include "analyze/occupancy-calc.h"
#include "analyze/steps.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>

struct slot {
	uint32_t func, shape; /* func GPA_NONE: empty */
	uint16_t dev;
	uint32_t group;
};

struct builder {
	const struct gpa_model *m;
	const struct gpa_occ_opts *o;
	struct gpa_occupancy *out;
	struct slot *slots;
	size_t nslots, used;
	int8_t *func_ok;        /* per func: 0 unknown, 1 match, -1 no match */
	struct gpa_occ_dev *devs;
	int8_t *dev_state;      /* 0 not yet, 1 known, 2 defaults, -1 unknown CC */
	pcre2_code *re;
	pcre2_match_data *md;
};

static uint64_t hash3(uint32_t a, uint32_t b, uint16_t c)
{
	uint64_t h = ((uint64_t)a << 32 | b) ^ ((uint64_t)c << 17);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static int grow(struct builder *b)
{
	size_t n = b->nslots ? b->nslots * 2 : 1024;
	struct slot *s = malloc(n * sizeof(*s));

	if (!s) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		s[i].func = GPA_NONE;
	}
	for (size_t i = 0; i < b->nslots; i++) {
		if (b->slots[i].func == GPA_NONE) {
			continue;
		}
		size_t j = hash3(b->slots[i].func, b->slots[i].shape, b->slots[i].dev) & (n - 1);
		while (s[j].func != GPA_NONE) {
			j = (j + 1) & (n - 1);
		}
		s[j] = b->slots[i];
	}
	free(b->slots);
	b->slots = s;
	b->nslots = n;
	return 0;
}

bool gpa_occ_dev_from_model(const struct gpa_model *m, uint16_t dev, struct gpa_occ_dev *d,
			    bool *defaults)
{
	const struct gpa_dev *md = &m->devs.v[dev];

	*defaults = true;
	if (gpa_occ_dev_defaults(d, md->cc_major, md->cc_minor)) {
		return false;
	}
	d->num_sms = md->num_sms;
	if (!md->has_device_record) {
		return true;
	}
	/* Recorded limits win; what the record lacks stays the architecture's. */
	bool all = true;
#define TAKE(dst, src)                                                                             \
	do {                                                                                       \
		if ((src) && (src) <= UINT32_MAX) {                                                \
			d->dst = (uint32_t)(src);                                                  \
		} else {                                                                           \
			all = false;                                                               \
		}                                                                                  \
	} while (0)
	TAKE(warp_size, md->warp_size);
	uint64_t threads_sm = md->max_threads_per_sm
				      ? md->max_threads_per_sm
				      : (uint64_t)md->max_warps_per_sm * d->warp_size;
	TAKE(max_threads_per_sm, threads_sm);
	TAKE(max_threads_per_block, md->max_threads_per_block);
	TAKE(max_blocks_per_sm, md->max_blocks_per_sm);
	TAKE(regs_per_sm, md->max_regs_per_sm);
	TAKE(regs_per_block, md->max_regs_per_block);
	TAKE(smem_per_sm, md->max_smem_per_sm);
	TAKE(smem_per_block, md->max_smem_per_block);
	TAKE(smem_per_block_optin, md->max_smem_per_block_optin);
#undef TAKE
	if (md->reserved_smem_per_block) {
		d->reserved_smem_per_block = md->reserved_smem_per_block;
	}
	*defaults = !all;
	return true;
}

static bool func_matches(struct builder *b, uint32_t func)
{
	if (!b->re) {
		return true;
	}
	if (!b->func_ok[func]) {
		const struct gpa_func *f = &b->m->funcs.v[func];
		const char *name = gpa_model_str(b->m, f->demangled ? f->demangled : f->name);
		int rc = pcre2_match(b->re, (PCRE2_SPTR)name, strlen(name), 0, 0, b->md, NULL);
		b->func_ok[func] = rc >= 0 ? 1 : -1;
	}
	return b->func_ok[func] > 0;
}

static void fill_group(struct builder *b, struct gpa_occ_group *g)
{
	const struct gpa_shape *sh = &b->m->shapes.v[g->shape];
	int8_t *st = &b->dev_state[g->dev];
	struct gpa_occ_dev *d = &b->devs[g->dev];

	if (!*st) {
		bool defaults;
		*st = gpa_occ_dev_from_model(b->m, g->dev, d, &defaults) ? (defaults ? 2 : 1) : -1;
		/* No compute capability in the trace: the GPU the user named, if any. */
		if (*st < 0 && b->o->gpu_cc_major &&
		    !gpa_occ_dev_defaults(d, b->o->gpu_cc_major, b->o->gpu_cc_minor)) {
			d->num_sms = b->m->devs.v[g->dev].num_sms ? b->m->devs.v[g->dev].num_sms
								  : b->o->gpu_sms;
			*st = 2;
		}
	}
	if (*st < 0) {
		g->status = -GPA_OCC_EUNKNOWN;
		return;
	}
	g->dev_defaults = *st == 2;
	uint64_t threads = (uint64_t)(sh->block_x > 0 ? sh->block_x : 0) *
			   (uint64_t)(sh->block_y > 0 ? sh->block_y : 0) *
			   (uint64_t)(sh->block_z > 0 ? sh->block_z : 0);
	struct gpa_occ_func f = {
		.regs = sh->regs,
		.static_smem = sh->static_smem > 0 ? (uint32_t)sh->static_smem : 0,
		.optin = sh->optin,
		.barriers = 1,
	};
	uint32_t dyn = sh->dynamic_smem > 0 ? (uint32_t)sh->dynamic_smem : 0;
	/* A launch that ran with more than the default cap must have opted in. */
	if ((uint64_t)f.static_smem + dyn > d->smem_per_block) {
		f.optin = true;
	}
	/* The function's dynamic limit is not recorded: an opted-in launch got what it used. */
	f.max_dynamic_smem = f.optin ? d->smem_per_block_optin : d->smem_per_block;
	if (dyn > f.max_dynamic_smem) {
		f.max_dynamic_smem = dyn;
	}
	struct gpa_occ_state s = {.carveout = sh->carveout, .cache_config = sh->cache_config};
	if (!threads || threads > UINT32_MAX) {
		g->status = -GPA_OCC_EINVAL;
		return;
	}
	g->status = gpa_occ_compute(d, &f, &s, (uint32_t)threads, dyn, &g->res);
	if (g->status) {
		return;
	}
	g->bp = gpa_occ_bp(&g->res);
	g->grid_blocks = (uint64_t)(sh->grid_x > 0 ? sh->grid_x : 0) *
			 (uint64_t)(sh->grid_y > 0 ? sh->grid_y : 0) *
			 (uint64_t)(sh->grid_z > 0 ? sh->grid_z : 0);
	uint64_t per_wave = (uint64_t)g->res.blocks * d->num_sms;
	if (per_wave && g->grid_blocks && g->res.max_warps) {
		uint64_t resident = g->grid_blocks < per_wave ? g->grid_blocks : per_wave;
		/* rounded to the nearest unit shown, not truncated: 29.6296 % is 29.63 */
		uint64_t den = (uint64_t)d->num_sms * g->res.max_warps;
		g->grid_bp =
			(uint32_t)((resident * g->res.warps_per_block * 10000 + den / 2) / den);
		uint64_t waves = (g->grid_blocks + per_wave - 1) / per_wave;
		uint64_t wm = (g->grid_blocks * 1000 + per_wave / 2) / per_wave;
		g->waves_milli = wm > UINT32_MAX ? UINT32_MAX : (uint32_t)wm;
		den = waves * per_wave;
		g->tail_bp = (uint32_t)((g->grid_blocks * 10000 + den / 2) / den);
	}
	if (b->o->whatif) {
		gpa_occ_whatif(d, &f, &s, (uint32_t)threads, dyn, &g->whatif);
	}
}

static int group_of(struct builder *b, uint32_t func, uint32_t shape, uint16_t dev,
		    uint32_t *out)
{
	if ((b->used + 1) * 2 > b->nslots && grow(b)) {
		return -GP_ERR_NOMEM;
	}
	size_t j = hash3(func, shape, dev) & (b->nslots - 1);
	for (;; j = (j + 1) & (b->nslots - 1)) {
		struct slot *s = &b->slots[j];
		if (s->func == GPA_NONE) {
			break;
		}
		if (s->func == func && s->shape == shape && s->dev == dev) {
			*out = s->group;
			return 0;
		}
	}
	struct gpa_occ_group g = {.func = func, .shape = shape, .dev = dev};
	fill_group(b, &g);
	if (gp_vec_push(&b->out->groups, g)) {
		return -GP_ERR_NOMEM;
	}
	b->slots[j] = (struct slot){func, shape, dev, (uint32_t)(b->out->groups.n - 1)};
	b->used++;
	*out = (uint32_t)(b->out->groups.n - 1);
	return 0;
}

static int by_time(const void *pa, const void *pb)
{
	const struct gpa_occ_group *a = pa, *b = pb;

	if (a->gpu_ns != b->gpu_ns) {
		return a->gpu_ns < b->gpu_ns ? 1 : -1;
	}
	if (a->launches != b->launches) {
		return a->launches < b->launches ? 1 : -1;
	}
	if (a->func != b->func) {
		return a->func < b->func ? -1 : 1;
	}
	if (a->shape != b->shape) {
		return a->shape < b->shape ? -1 : 1;
	}
	return (int)a->dev - (int)b->dev;
}

int gpa_occupancy_analyze(const struct gpa_model *m, const struct gpa_steps *steps,
			  const struct gpa_occ_opts *o, struct gpa_occupancy *out, char *errbuf,
			  size_t errlen)
{
	struct builder b = {.m = m, .o = o, .out = out};
	double *step_w = NULL, total_w = 0;
	int ret = -GP_ERR_NOMEM;

	memset(out, 0, sizeof(*out));
	if (o->kernel_regex) {
		int errcode;
		PCRE2_SIZE erroff;
		b.re = pcre2_compile((PCRE2_SPTR)o->kernel_regex, PCRE2_ZERO_TERMINATED, PCRE2_UTF,
				     &errcode, &erroff, NULL);
		if (!b.re && errcode == PCRE2_ERROR_HEAP_FAILED) {
			snprintf(errbuf, errlen, "out of memory");
			return -GP_ERR_NOMEM;
		}
		if (!b.re) {
			PCRE2_UCHAR msg[160];
			pcre2_get_error_message(errcode, msg, sizeof(msg));
			snprintf(errbuf, errlen, "bad kernel pattern '%s' at offset %zu: %s",
				 o->kernel_regex, (size_t)erroff, (char *)msg);
			return -GP_ERR_API;
		}
		b.md = pcre2_match_data_create_from_pattern(b.re, NULL);
		if (!b.md) {
			goto out;
		}
	}
	b.func_ok = calloc(m->funcs.n + 1, 1);
	b.devs = calloc(m->devs.n + 1, sizeof(*b.devs));
	b.dev_state = calloc(m->devs.n + 1, 1);
	if (!b.func_ok || !b.devs || !b.dev_state) {
		goto out;
	}
	if (steps && steps->v.n) {
		out->steps.v = calloc(steps->v.n, sizeof(*out->steps.v));
		step_w = calloc(steps->v.n, sizeof(*step_w));
		if (!out->steps.v || !step_w) {
			goto out;
		}
		out->steps.n = out->steps.cap = steps->v.n;
		for (size_t i = 0; i < steps->v.n; i++) {
			out->steps.v[i].step = (uint32_t)i;
		}
	}
	for (size_t i = 0; i < gpa_gpu_rows(m); i++) {
		if (gpa_gpu_kind(m, i) != GPA_GPU_KERNEL) {
			continue;
		}
		uint32_t row = gpa_gpu_row(m, i);
		uint16_t dev = gpa_kern_dev(m, row);
		if (o->device >= 0 && m->devs.v[dev].id != (uint64_t)o->device) {
			continue;
		}
		uint32_t func = gpa_kern_func(m, row);
		if (!func_matches(&b, func)) {
			continue;
		}
		uint32_t gi;
		if (group_of(&b, func, gpa_kern_shape(m, row), dev, &gi)) {
			goto out;
		}
		struct gpa_occ_group *g = &out->groups.v[gi];
		uint64_t ns = gpa_kern_dur(m, row);
		g->launches++;
		g->gpu_ns += ns;
		out->launches++;
		out->gpu_ns += ns;
		bool known = !g->status;
		if (known) {
			out->known_ns += ns;
			total_w += (double)g->bp * (double)ns;
		} else {
			out->unknown_launches++;
		}
		uint32_t st = steps && steps->v.n ? gpa_step_of(steps, i) : GPA_NONE;
		if (st != GPA_NONE) {
			struct gpa_occ_step *s = &out->steps.v[st];
			s->kernels++;
			s->gpu_ns += ns;
			if (known) {
				s->known_ns += ns;
				step_w[st] += (double)g->bp * (double)ns;
			}
		}
	}
	out->weighted_bp = out->known_ns ? (uint32_t)(total_w / (double)out->known_ns + 0.5) : 0;
	for (size_t i = 0; i < out->steps.n; i++) {
		struct gpa_occ_step *s = &out->steps.v[i];
		s->weighted_bp = s->known_ns ? (uint32_t)(step_w[i] / (double)s->known_ns + 0.5) : 0;
	}
	if (out->groups.n) {
		qsort(out->groups.v, out->groups.n, sizeof(*out->groups.v), by_time);
	}
	ret = 0;
out:
	if (ret) {
		snprintf(errbuf, errlen, "out of memory");
		gpa_occupancy_release(out);
	}
	free(step_w);
	free(b.slots);
	free(b.func_ok);
	free(b.devs);
	free(b.dev_state);
	pcre2_match_data_free(b.md);
	pcre2_code_free(b.re);
	return ret;
}

void gpa_occupancy_release(struct gpa_occupancy *occ)
{
	if (!occ) {
		return;
	}
	gp_vec_free(&occ->groups);
	gp_vec_free(&occ->steps);
	memset(occ, 0, sizeof(*occ));
}
