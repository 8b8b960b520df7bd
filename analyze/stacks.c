/* SPDX-License-Identifier: MIT */
/*
 * stacks.c - CPU call stacks captured at API calls, symbolized lazily.
 *
 * Loading keeps the STACK_NODE, STACK and MODULE records of every file as
 * they come. gpa_stacks_link (once the API table is sorted) checks and
 * joins them: nodes are found by (process, id); a node whose parent id is
 * not below its own id, or whose parent is missing, is counted and becomes
 * an outermost frame (ids only go down along a chain, so no chain can loop);
 * a duplicate id is counted and ignored. Each STACK record is joined to the
 * API rows with its correlation id in its process; one that names a
 * missing node is counted and skipped. Walks stop after GPA_STACK_MAX_FRAMES
 * frames whatever a file says.
 *
 * A frame's name is found when it is first asked for: the module of its
 * process whose address range holds the pc, that module's ELF symbols (read
 * once; a module whose file's build-id differs from the recorded one is not
 * trusted), the function containing pc - 1 (pcs are return addresses), its
 * demangled name. Else "module+0xOFF" (OFF: the pc's offset from the load
 * base, the ELF address) or "0xPC" outside every module. Names are model
 * strings, so they live as long as the model.
 */
#include "base/compat.h"
#include "analyze/model-internal.h"
#include "analyze/stacks.h"
#include "analyze/symbolize.h"

#include <stdio.h>

struct rawnode {
	uint64_t pc;
	uint32_t proc, id, parent;
};

struct rawstack {
	uint32_t proc, corr, node;
};

struct snode {
	uint64_t pc;
	uint32_t proc;
	uint32_t parent; /* node index or GPA_NONE */
	uint32_t name;	 /* model string id, 0 until asked for */
};

struct smod {
	uint32_t proc, path, build_id;
	uint64_t base, lo, hi;
	struct gpa_symtab *syms; /* loaded when first needed */
	int state;		 /* 0 not tried, 1 symbols, 2 none (missing, unreadable, other build) */
};

struct gpa_stacks {
	GP_VEC(struct rawnode) raw;
	GP_VEC(struct rawstack) rstk;
	GP_VEC(struct smod) mods;
	struct snode *nodes; /* by raw index */
	uint32_t *api_node;  /* per API row: innermost node or GPA_NONE */
	size_t napi;
	struct gpa_stack_info info;
	/* the frames of the last API row asked for, outermost first */
	uint32_t cache_api;
	uint32_t cache_n;
	uint32_t cache[GPA_STACK_MAX_FRAMES];
};

static struct gpa_stacks *get(struct gpa_model *m)
{
	if (!m->stacks) {
		m->stacks = calloc(1, sizeof(*m->stacks));
		if (m->stacks) {
			m->stacks->cache_api = GPA_NONE;
		}
	}
	return m->stacks;
}

int gpa_stacks_add_node(struct gpa_model *m, uint32_t proc, const struct gpt_stack_node *r)
{
	struct gpa_stacks *s = get(m);
	struct rawnode n = {.pc = r->pc, .proc = proc, .id = r->id, .parent = r->parent};

	return s ? gp_vec_push(&s->raw, n) : -GP_ERR_NOMEM;
}

int gpa_stacks_add_stack(struct gpa_model *m, uint32_t proc, const struct gpt_stack *r)
{
	struct gpa_stacks *s = get(m);
	struct rawstack k = {.proc = proc, .corr = r->correlation, .node = r->node};

	return s ? gp_vec_push(&s->rstk, k) : -GP_ERR_NOMEM;
}

int gpa_stacks_add_module(struct gpa_model *m, uint32_t proc, const struct gpt_module *r,
			  uint32_t path, uint32_t build_id)
{
	struct gpa_stacks *s = get(m);
	struct smod mo = {.proc = proc,
			  .path = path,
			  .build_id = build_id,
			  .base = r->base,
			  .lo = r->lo,
			  .hi = r->hi};

	if (!s) {
		return -GP_ERR_NOMEM;
	}
	if (r->hi <= r->lo) {
		s->info.bad_modules++;
		return 0;
	}
	return gp_vec_push(&s->mods, mo);
}

void gpa_stacks_free(struct gpa_stacks *s)
{
	if (!s) {
		return;
	}
	for (size_t i = 0; i < s->mods.n; i++) {
		gpa_symtab_release(s->mods.v[i].syms);
		free(s->mods.v[i].syms);
	}
	gp_vec_free(&s->raw);
	gp_vec_free(&s->rstk);
	gp_vec_free(&s->mods);
	free(s->nodes);
	free(s->api_node);
	free(s);
}

/* ------------------------------------------------------------- link */

/* The row stored under key, or GPA_NONE. */
static uint32_t row_of(const struct gp_u64map *h, uint64_t key)
{
	return (uint32_t)gp_u64map_get(h, key, GPA_NONE);
}

static uint64_t key2(uint32_t a, uint32_t b)
{
	return ((uint64_t)a << 32) | b;
}

static int cmp_mod(const void *a, const void *b)
{
	const struct smod *x = a, *y = b;

	if (x->proc != y->proc) {
		return x->proc < y->proc ? -1 : 1;
	}
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int gpa_stacks_link(struct gpa_model *m)
{
	struct gpa_stacks *s = m->stacks;
	struct gp_u64map ids = GP_U64MAP_INIT, corrs = GP_U64MAP_INIT;
	int ret = -GP_ERR_NOMEM;

	if (!s) {
		return 0;
	}
	if (s->raw.n > UINT32_MAX - 2 || s->rstk.n > UINT32_MAX - 2) {
		return -GP_ERR_NOMEM;
	}
	s->nodes = malloc((s->raw.n ? s->raw.n : 1) * sizeof(*s->nodes));
	s->napi = m->api.n;
	s->api_node = malloc((s->napi ? s->napi : 1) * sizeof(*s->api_node));
	if (!s->nodes || !s->api_node || gp_u64map_reserve(&ids, s->raw.n) ||
	    gp_u64map_reserve(&corrs, s->rstk.n)) {
		goto out;
	}
	/* nodes by (process, id) */
	for (size_t i = 0; i < s->raw.n; i++) {
		const struct rawnode *r = &s->raw.v[i];
		s->nodes[i] = (struct snode){.pc = r->pc, .proc = r->proc, .parent = GPA_NONE};
		uint64_t key = key2(r->proc, r->id);
		int added = r->id ? gp_u64map_get_or_insert(&ids, key, i, NULL) : 0;
		if (added < 0) {
			goto out;
		}
		if (!added) {
			s->info.bad_nodes++; /* id 0 or a duplicate: the first one stays */
		}
	}
	s->info.nodes = s->raw.n;
	for (size_t i = 0; i < s->raw.n; i++) {
		const struct rawnode *r = &s->raw.v[i];
		if (!r->parent) {
			continue;
		}
		uint32_t p = r->parent < r->id ? row_of(&ids, key2(r->proc, r->parent)) : GPA_NONE;
		if (p == GPA_NONE) {
			s->info.bad_parents++; /* missing, or not below the node's id */
		} else {
			s->nodes[i].parent = p;
		}
	}
	/* stacks by (process, correlation id) */
	for (size_t i = 0; i < s->rstk.n; i++) {
		const struct rawstack *k = &s->rstk.v[i];
		if (!k->node) {
			continue; /* nothing captured */
		}
		uint32_t n = row_of(&ids, key2(k->proc, k->node));
		if (n == GPA_NONE) {
			s->info.bad_stacks++;
			continue;
		}
		int added = gp_u64map_get_or_insert(&corrs, key2(k->proc, k->corr), n, NULL);
		if (added < 0) {
			goto out;
		}
		if (added) {
			s->info.stacks++; /* else the first stack of the correlation id stays */
		}
	}
	for (size_t i = 0; i < s->napi; i++) {
		uint32_t proc = m->threads.v[gpa_api_thread(m, i)].proc;
		s->api_node[i] = m->api.corr[i] ? row_of(&corrs, key2(proc, m->api.corr[i]))
						: GPA_NONE;
		s->info.api_rows += s->api_node[i] != GPA_NONE;
	}
	gp_qsort(s->mods.v, s->mods.n, sizeof(*s->mods.v), cmp_mod);
	s->info.modules = s->mods.n;
	gp_vec_free(&s->raw);
	gp_vec_free(&s->rstk);
	ret = 0;
out:
	gp_u64map_release(&ids);
	gp_u64map_release(&corrs);
	return ret;
}

/* ------------------------------------------------------- symbolizing */

static struct smod *find_module(struct gpa_stacks *s, uint32_t proc, uint64_t pc)
{
	size_t lo = 0, hi = s->mods.n;

	/* the last module of proc starting at or below pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct smod *x = &s->mods.v[mid];
		if (x->proc < proc || (x->proc == proc && x->lo <= pc)) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	/* ranges may overlap in a damaged file: look back a little */
	for (size_t k = lo, steps = 0; k-- > 0 && steps < 8; steps++) {
		struct smod *x = &s->mods.v[k];
		if (x->proc != proc) {
			break;
		}
		if (pc >= x->lo && pc < x->hi) {
			return x;
		}
	}
	return NULL;
}

static const struct gpa_symtab *module_syms(struct gpa_model *m, struct smod *mo)
{
	char err[512];

	if (mo->state == 0) {
		mo->state = 2;
		mo->syms = calloc(1, sizeof(*mo->syms));
		if (mo->syms && !gpa_symtab_read(gpa_model_str(m, mo->path), mo->syms, err,
						 sizeof(err))) {
			const char *want = gpa_model_str(m, mo->build_id);
			if (!*want || !mo->syms->build_id[0] || !strcmp(want, mo->syms->build_id)) {
				mo->state = 1;
			} else {
				m->stacks->info.build_id_mismatch++;
			}
		} else {
			m->stacks->info.unreadable_modules++;
		}
	}
	return mo->state == 1 ? mo->syms : NULL;
}

static uint32_t frame_name(struct gpa_model *m, struct snode *n)
{
	struct gpa_stacks *s = m->stacks;
	char buf[1024], dem[2048];
	struct smod *mo;

	if (n->name) {
		return n->name;
	}
	mo = find_module(s, n->proc, n->pc);
	if (!mo) {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, n->pc);
	} else {
		const struct gpa_symtab *t = module_syms(m, mo);
		uint64_t off = 0;
		/* a return address: the call is the instruction before it */
		uint64_t addr = n->pc - mo->base - (n->pc > mo->lo ? 1 : 0);
		const char *sym = t ? gpa_symtab_lookup(t, addr, &off) : NULL;
		if (sym) {
			snprintf(buf, sizeof(buf), "%s", gpa_demangle(sym, dem, sizeof(dem)));
		} else {
			const char *path = gpa_model_str(m, mo->path);
			const char *slash = strrchr(path, '/');
			snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, slash ? slash + 1 : path,
				 n->pc - mo->base);
		}
	}
	uint32_t id = gpa_model_intern(m, buf);
	n->name = id == GPA_NONE ? 0 : id;
	return n->name;
}

/* Fills the cache with the frames of API row api; returns their number. */
static uint32_t frames_of(struct gpa_model *m, uint32_t api)
{
	struct gpa_stacks *s = m->stacks;
	uint32_t tmp[GPA_STACK_MAX_FRAMES], n = 0;

	if (!s || !s->api_node || api >= s->napi || s->api_node[api] == GPA_NONE) {
		return 0;
	}
	if (s->cache_api == api) {
		return s->cache_n;
	}
	for (uint32_t i = s->api_node[api]; i != GPA_NONE && n < GPA_STACK_MAX_FRAMES;
	     i = s->nodes[i].parent) {
		tmp[n++] = i;
	}
	for (uint32_t k = 0; k < n; k++) {
		s->cache[k] = tmp[n - 1 - k];
	}
	s->cache_api = api;
	s->cache_n = n;
	return n;
}

uint32_t gpa_api_stack_depth(struct gpa_model *m, uint32_t api)
{
	return frames_of(m, api);
}

const char *gpa_api_stack_frame(struct gpa_model *m, uint32_t api, uint32_t i)
{
	uint32_t n = frames_of(m, api);

	if (i >= n) {
		return NULL;
	}
	return gpa_model_str(m, frame_name(m, &m->stacks->nodes[m->stacks->cache[i]]));
}

uint64_t gpa_api_stack_pc(struct gpa_model *m, uint32_t api, uint32_t i)
{
	uint32_t n = frames_of(m, api);

	return i < n ? m->stacks->nodes[m->stacks->cache[i]].pc : 0;
}

void gpa_stacks_get_info(const struct gpa_model *m, struct gpa_stack_info *out)
{
	memset(out, 0, sizeof(*out));
	if (m->stacks) {
		*out = m->stacks->info;
	}
}
