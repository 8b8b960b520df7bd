/* SPDX-License-Identifier: MIT */
/*
 * model-take.c - one take_<kind> per record kind the model keeps, behind
 * take_kind[]: each appends a chunk's records to its table, mapping the
 * file's string ids, threads, devices, functions, launch configurations and
 * sites to the model's (interned once across files).
 */
#define GP_LOG_TAG "analyze/model-take"
#include "base/compat.h"
#include "analyze/model-internal.h"
#include "analyze/file-info.h"

#include <stdio.h>

/* The file's strings: its reader's, or those of the writer an import hands its chunks through. */
static uint32_t file_string_ids(const struct file_ctx *f)
{
	return f->r ? gpt_reader_string_ids(f->r) : gpt_writer_string_ids(f->w);
}

static const char *file_string(const struct file_ctx *f, uint32_t id)
{
	return f->r ? gpt_reader_string(f->r, id) : id ? gpt_writer_string(f->w, id) : "";
}

static uint32_t map_str(struct file_ctx *f, uint32_t id)
{
	if (id == 0) {
		return 0;
	}
	if (id > file_string_ids(f)) {
		/* Not defined (yet): no table up to an id the file picked at will. */
		char buf[48];
		snprintf(buf, sizeof(buf), "<missing string %" PRIu32 ">", id);
		return gpa_model_intern(f->m, buf);
	}
	if (id >= f->remap.n) {
		size_t old = f->remap.n;
		if (gp_vec_reserve(&f->remap, (size_t)id + 1)) {
			return GPA_NONE;
		}
		for (size_t i = old; i <= id; i++) {
			f->remap.v[i] = GPA_NONE;
		}
		f->remap.n = (size_t)id + 1;
	}
	if (f->remap.v[id] == GPA_NONE) {
		const char *s = file_string(f, id);
		char buf[48];
		if (!s) {
			snprintf(buf, sizeof(buf), "<missing string %" PRIu32 ">", id);
			s = buf;
		}
		f->remap.v[id] = gpa_model_intern(f->m, s);
	}
	return f->remap.v[id];
}

/* Per file name id: its function and last launch configuration. */
static struct fcache *func_cache(struct file_ctx *f, uint32_t name)
{
	if (name > file_string_ids(f)) {
		f->fc_undefined = (struct fcache){GPA_NONE, 0, GPA_NONE};
		return &f->fc_undefined;
	}
	if (name >= f->fcache.n) {
		size_t old = f->fcache.n;
		if (gp_vec_reserve(&f->fcache, (size_t)name + 1)) {
			return NULL;
		}
		for (size_t i = old; i <= name; i++) {
			f->fcache.v[i] = (struct fcache){GPA_NONE, 0, GPA_NONE};
		}
		f->fcache.n = (size_t)name + 1;
	}
	return &f->fcache.v[name];
}

/* The function row for a (mangled, demangled) pair of file string ids. */
static uint32_t map_func(struct file_ctx *f, uint32_t name, uint32_t demangled)
{
	uint64_t key = ((uint64_t)name << 32) | demangled;
	uint32_t fn = gpa_map_row(&f->funcs, key);

	if (fn != GPA_NONE) {
		return fn;
	}
	struct gpa_func gf = {map_str(f, name), map_str(f, demangled)};
	if (gf.name == GPA_NONE || gf.demangled == GPA_NONE) {
		return GPA_NONE;
	}
	/* The same pair from another file is the same function. */
	uint64_t mkey = ((uint64_t)gf.name << 32) | gf.demangled;
	fn = gpa_map_row(&f->m_funcs[0], mkey);
	if (fn == GPA_NONE) {
		if (gp_vec_push(&f->m->funcs, gf) ||
		    gp_u64map_put(&f->m_funcs[0], mkey, (uint32_t)(f->m->funcs.n - 1)) < 0) {
			return GPA_NONE;
		}
		fn = (uint32_t)(f->m->funcs.n - 1);
	}
	return gp_u64map_put(&f->funcs, key, fn) < 0 ? GPA_NONE : fn;
}

static uint32_t map_shape(struct file_ctx *f, const struct gpa_shape *sh)
{
	uint64_t h = gp_hash_bytes(sh, sizeof(*sh));
	uint32_t i = gpa_map_row(f->m_shapes, h);

	if (i != GPA_NONE && !memcmp(&f->m->shapes.v[i], sh, sizeof(*sh))) {
		return i;
	}
	if (gp_vec_push(&f->m->shapes, *sh)) {
		return GPA_NONE;
	}
	i = (uint32_t)(f->m->shapes.n - 1);
	/* On a (rare) hash collision the newer shape just is not found again. */
	if (gp_u64map_get_or_insert(f->m_shapes, h, i, NULL) < 0) {
		return GPA_NONE;
	}
	return i;
}

static uint32_t map_thread(struct file_ctx *f, uint32_t tid)
{
	uint32_t t = gpa_map_row(&f->threads, tid);

	if (t != GPA_NONE) {
		return t;
	}
	struct gpa_thread th = {.proc = f->proc, .tid = tid};
	if (gp_vec_push(&f->m->threads, th) ||
	    gp_u64map_put(&f->threads, tid, (uint32_t)(f->m->threads.n - 1)) < 0) {
		return GPA_NONE;
	}
	return (uint32_t)(f->m->threads.n - 1);
}

static uint32_t map_dev(struct file_ctx *f, uint32_t id)
{
	struct gpa_model *m = f->m;

	for (size_t i = m->devs.n; i-- > 0;) {
		if (m->devs.v[i].proc != f->proc) {
			break;
		}
		if (m->devs.v[i].id == id) {
			return (uint32_t)i;
		}
	}
	if (m->devs.n >= UINT16_MAX) {
		return GPA_NONE;
	}
	/* A device seen only through its activity: a placeholder until its record comes. */
	struct gpa_dev d = {.proc = f->proc, .id = id};
	if (gp_vec_push(&m->devs, d)) {
		return GPA_NONE;
	}
	return (uint32_t)(m->devs.n - 1);
}

/* The kernel site row holding *ks: an equal one, or a new one. */
static uint32_t map_ksite(struct file_ctx *f, const struct gpa_ksite *ks)
{
	struct gpa_model *m = f->m;
	uint32_t h = ks->func * 0x9e3779b1u ^ ks->shape * 0x85ebca6bu ^ ks->stream * 0xc2b2ae35u ^
		     ks->dev * 0x27d4eb2fu;
	struct kcache *c = &f->kc[h >> 24 & (SITE_CACHE - 1)];

	if (c->site != GPA_NONE && !memcmp(&c->k, ks, sizeof(*ks))) {
		return c->site;
	}
	/* Keyed by a hash of the four values; an unequal site under it: the next key. */
	for (uint64_t key = gp_hash_bytes(ks, sizeof(*ks));; key++) {
		uint32_t i = gpa_map_row(f->m_ksites, key);
		if (i == GPA_NONE) {
			if (m->ksites.n >= GPA_NONE - 1 || gp_vec_push(&m->ksites, *ks) ||
			    gp_u64map_put(f->m_ksites, key, (uint32_t)(m->ksites.n - 1)) < 0) {
				return GPA_NONE;
			}
			i = (uint32_t)(m->ksites.n - 1);
		} else if (memcmp(&m->ksites.v[i], ks, sizeof(*ks))) {
			continue;
		}
		c->k = *ks;
		c->site = i;
		return i;
	}
}

/* The API site row of a call named by file string id name on thread tid. */
static uint32_t map_asite(struct file_ctx *f, uint32_t name, uint32_t tid)
{
	struct gpa_model *m = f->m;
	struct acache *c = &f->ac[(name * 0x9e3779b1u ^ tid * 0x85ebca6bu) >> 24 & (SITE_CACHE - 1)];

	if (c->site != GPA_NONE && c->name == name && c->tid == tid) {
		return c->site;
	}
	struct gpa_asite as = {map_str(f, name), map_thread(f, tid), 0};
	if (as.name == GPA_NONE || as.thread == GPA_NONE) {
		return GPA_NONE;
	}
	uint64_t key = (uint64_t)as.name << 32 | as.thread;
	uint32_t i = gpa_map_row(f->m_asites, key);
	if (i == GPA_NONE) {
		if (m->asites.n >= GPA_NONE - 1 || gp_vec_push(&m->asites, as) ||
		    gp_u64map_put(f->m_asites, key, (uint32_t)(m->asites.n - 1)) < 0) {
			return GPA_NONE;
		}
		i = (uint32_t)(m->asites.n - 1);
	}
	*c = (struct acache){name, tid, i};
	return i;
}

#define CHECK_ID(x)                                                                                \
	do {                                                                                       \
		if ((x) == GPA_NONE) {                                                             \
			return -GP_ERR_NOMEM;                                                      \
		}                                                                                  \
	} while (0)

/*
 * One take_<kind> per record kind the model keeps, behind take_kind[]: each
 * appends a chunk's count records (info->size bytes apart) to its table.
 */
typedef int (*take_fn)(struct file_ctx *f, const struct gpt_chunk *ch);

/* A kernel's launch configuration as the shape table keeps it. */
static void kernel_shape(const struct gpt_kernel *k, struct gpa_shape *sh)
{
	memset(sh, 0, sizeof(*sh)); /* padding too: shapes are hashed as bytes */
	sh->grid_x = k->grid_x;
	sh->grid_y = k->grid_y;
	sh->grid_z = k->grid_z;
	sh->block_x = k->block_x;
	sh->block_y = k->block_y;
	sh->block_z = k->block_z;
	sh->static_smem = k->static_smem;
	sh->dynamic_smem = k->dynamic_smem;
	sh->regs = k->registers;
	sh->carveout = k->smem_carveout_is_requested && k->smem_carveout_requested <= 100
			       ? (int8_t)k->smem_carveout_requested
			       : -1;
	sh->cache_config = k->cache_config_requested;
	sh->optin = k->shmem_limit_config == 1;
	sh->cluster_x = k->cluster_x;
	sh->cluster_y = k->cluster_y;
	sh->cluster_z = k->cluster_z;
	sh->src_occupancy_bp = k->src_occupancy_bp;
	sh->src_blocks_per_sm_milli = k->src_blocks_per_sm_milli;
	sh->src_warps_per_sm_milli = k->src_warps_per_sm_milli;
}

/* An end before its start is counted (analyze/sanity.c) and cut to the start. */
static uint64_t end_of(struct file_ctx *f, uint64_t start, uint64_t end)
{
	if (end >= start) {
		return end;
	}
	f->m->procs.v[f->proc].negative_durations++;
	return start;
}

/* Row r of a dur column: d, or GPA_DUR_LONG with d in the table's long list (rows come in order). */
static int set_dur(struct gpa_long_durs *l, uint32_t *col, size_t r, uint64_t d)
{
	if (d < GPA_DUR_LONG) {
		col[r] = (uint32_t)d;
		return 0;
	}
	col[r] = GPA_DUR_LONG;
	struct gpa_long_dur e = {(uint32_t)r, d};
	return gp_vec_push(l, e);
}


static int take_kernel(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_kernels *t = &f->m->kern;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_kernels_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_kernel *k = (const void *)rec;
		size_t r = t->n++;
		uint32_t dev = map_dev(f, k->device);
		CHECK_ID(dev);
		if (gpa_starts_set(&f->m->kern_starts, t->start_off, r, k->start) ||
		    set_dur(&f->m->kern_long, t->dur, r, end_of(f, k->start, k->end) - k->start)) {
			return -GP_ERR_NOMEM;
		}
		struct fcache *fc = func_cache(f, k->name);
		if (!fc) {
			return -GP_ERR_NOMEM;
		}
		if (fc->fn == GPA_NONE || fc->demangled != k->demangled) {
			fc->fn = map_func(f, k->name, k->demangled);
			fc->demangled = k->demangled;
			fc->shape = GPA_NONE;
			CHECK_ID(fc->fn);
		}
		struct gpa_ksite ks = {.func = fc->fn, .stream = k->stream, .dev = dev};
		if (!(f->drop & GPA_DROP_SHAPES)) {
			struct gpa_shape sh;
			kernel_shape(k, &sh);
			/* Launches of one kernel mostly repeat its last configuration. */
			if (fc->shape == GPA_NONE ||
			    memcmp(&f->m->shapes.v[fc->shape], &sh, sizeof(sh))) {
				fc->shape = map_shape(f, &sh);
				CHECK_ID(fc->shape);
			}
			ks.shape = fc->shape;
		}
		t->site[r] = map_ksite(f, &ks);
		CHECK_ID(t->site[r]);
		/* Without a column of their own, the ids wait in api until linked. */
		if (f->drop & GPA_DROP_CORR) {
			t->api[r] = k->correlation;
		} else {
			t->api[r] = GPA_NONE;
			SET_OPT_(t, corr, r, k->correlation);
		}
		SET_OPT_(t, graph, r, k->graph_id);
	}
	return 0;
}

static int take_memcpy(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_memcpys *t = &f->m->copy;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_memcpys_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_memcpy *c = (const void *)rec;
		size_t r = t->n++;
		uint32_t dev = map_dev(f, c->device);
		CHECK_ID(dev);
		t->start[r] = c->start;
		t->end[r] = end_of(f, c->start, c->end);
		t->bytes[r] = c->bytes;
		t->stream[r] = c->stream;
		t->corr[r] = c->correlation;
		t->rcorr[r] = c->runtime_correlation;
		t->api[r] = GPA_NONE;
		SET_OPT_(t, graph, r, c->graph_id);
		t->dev[r] = (uint16_t)dev;
		t->copy_kind[r] = c->is_p2p && !c->copy_kind ? GPT_COPY_KIND_PTOP : c->copy_kind;
		t->src_kind[r] = c->src_kind;
		t->dst_kind[r] = c->dst_kind;
		t->flags[r] = c->flags;
	}
	return 0;
}

static int take_memset(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_memsets *t = &f->m->set;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_memsets_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_memset *s = (const void *)rec;
		size_t r = t->n++;
		uint32_t dev = map_dev(f, s->device);
		CHECK_ID(dev);
		t->start[r] = s->start;
		t->end[r] = end_of(f, s->start, s->end);
		t->bytes[r] = s->bytes;
		t->stream[r] = s->stream;
		t->corr[r] = s->correlation;
		t->api[r] = GPA_NONE;
		SET_OPT_(t, graph, r, s->graph_id);
		t->dev[r] = (uint16_t)dev;
		t->memory_kind[r] = s->memory_kind;
	}
	return 0;
}

static int take_api(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_apis *t = &f->m->api;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_apis_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_api *a = (const void *)rec;
		size_t r = t->n++;
		if (gpa_starts_set(&f->m->api_starts, t->start_off, r, a->start) ||
		    set_dur(&f->m->api_long, t->dur, r, end_of(f, a->start, a->end) - a->start)) {
			return -GP_ERR_NOMEM;
		}
		t->site[r] = map_asite(f, a->name, a->tid);
		CHECK_ID(t->site[r]);
		if (!(f->drop & GPA_DROP_API_IDS)) {
			SET_OPT_(t, cbid, r, a->cbid);
			SET_OPT_(t, domain, r, a->domain);
		}
		t->corr[r] = a->correlation;
		t->nvtx[r] = GPA_NONE;
		SET_OPT_(t, ret, r, a->return_value);
	}
	return 0;
}

static int take_sync(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_syncs *t = &f->m->sync;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_syncs_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_sync *s = (const void *)rec;
		if (s->type == 5) {
			struct gpa_evrec e = {f->proc, s->correlation, s->stream, s->event_id,
					      s->event_sync_id};
			if (gp_vec_push(&f->m->evrec, e)) {
				return -GP_ERR_NOMEM;
			}
			continue;
		}
		size_t r = t->n++;
		t->start[r] = s->start;
		t->end[r] = end_of(f, s->start, s->end);
		t->corr[r] = s->correlation;
		t->stream[r] = s->stream;
		t->api[r] = GPA_NONE;
		t->proc[r] = f->proc;
		t->context[r] = s->context;
		t->event_id[r] = s->event_id;
		t->dev_id[r] = s->device_plus1 ? s->device_plus1 - 1 : GPA_NONE;
		t->sync_id[r] = s->event_sync_id;
		t->rec_corr[r] = s->record_correlation;
		t->rec_stream[r] = s->record_stream;
		t->rec_api[r] = GPA_NONE;
		t->type[r] = s->type;
	}
	return 0;
}

static int take_nvtx(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_nvtxs *t = &f->m->nvtx;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_nvtxs_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_nvtx *n = (const void *)rec;
		size_t r = t->n++;
		t->start[r] = n->start;
		t->end[r] = n->end < n->start ? n->start : n->end;
		t->name[r] = map_str(f, n->message);
		t->domain[r] = map_str(f, n->domain);
		CHECK_ID(t->name[r]);
		CHECK_ID(t->domain[r]);
		t->thread[r] = map_thread(f, n->start_tid);
		CHECK_ID(t->thread[r]);
		t->parent[r] = GPA_NONE;
		t->color[r] = n->color;
		t->depth[r] = 0;
		t->type[r] = n->type;
		if (n->args) {
			uint32_t a = map_str(f, n->args);
			CHECK_ID(a);
			SET_OPT_(t, args, r, a);
		} else {
			SET_OPT_(t, args, r, 0u);
		}
		/* Domains repeat: decide once per run of the same one. */
		if (r == 0 || t->domain[r] != t->domain[r - 1]) {
			t->origin[r] = (uint8_t)gpa_range_origin_of(gpa_model_str(f->m, t->domain[r]));
		} else {
			t->origin[r] = t->origin[r - 1];
		}
	}
	return 0;
}

enum gpa_range_origin gpa_range_origin_of(const char *domain)
{
	if (!strcmp(domain, "cpu_op") || !strcmp(domain, "Operator")) {
		return GPA_RANGE_CPU_OP;
	}
	if (!strcmp(domain, "user_annotation")) {
		return GPA_RANGE_ANNOTATION;
	}
	if (!strcmp(domain, "python_function")) {
		return GPA_RANGE_PYTHON;
	}
	if (!strcmp(domain, "gpu_user_annotation")) {
		return GPA_RANGE_GPU_ANNOTATION;
	}
	return GPA_RANGE_NVTX;
}

static int take_overhead(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_overheads *t = &f->m->ovh;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	if (gpa_overheads_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_overhead *o = (const void *)rec;
		size_t r = t->n++;
		t->start[r] = o->start;
		t->end[r] = o->end < o->start ? o->start : o->end;
		t->kind[r] = o->overhead_kind;
		t->proc[r] = f->proc;
	}
	return 0;
}

static int take_process(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_proc *p = &f->m->procs.v[f->proc];
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_process *pr = (const void *)rec;
		if (pr->phase == 2 && p->pid) {
			continue;
		}
		p->pid = pr->pid;
		p->rank = pr->rank;
		p->world_size = pr->world_size;
		p->host = map_str(f, pr->host);
		p->cmdline = map_str(f, pr->cmdline);
		const char *st = pr->settings ? file_string(f, pr->settings) : NULL;
		p->ts_epoch_decimals = st && strcmp(st, GPA_KINETO_SETTINGS_EPOCH_DECIMALS) == 0;
		CHECK_ID(p->host);
		CHECK_ID(p->cmdline);
		if (pr->phase == 3 && pr->status) { /* a flight save's trigger: the last one wins */
			p->flight = map_str(f, pr->status);
			CHECK_ID(p->flight);
		}
	}
	return 0;
}

static int take_device(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_device *d = (const void *)rec;
		uint32_t di = map_dev(f, d->id);
		CHECK_ID(di);
		struct gpa_dev *md = &f->m->devs.v[di];
		md->name = map_str(f, d->name);
		CHECK_ID(md->name);
		md->cc_major = d->cc_major;
		md->cc_minor = d->cc_minor;
		md->num_sms = d->num_sms;
		md->global_mem_bytes = d->global_mem_bytes;
		md->global_mem_bw_kbps = d->global_mem_bw_kbps;
		md->warp_size = d->warp_size;
		md->max_warps_per_sm = d->max_warps_per_sm;
		md->max_threads_per_sm = d->max_threads_per_sm;
		md->max_blocks_per_sm = d->max_blocks_per_sm;
		md->max_threads_per_block = d->max_threads_per_block;
		md->max_regs_per_sm = d->max_regs_per_sm;
		md->max_regs_per_block = d->max_regs_per_block;
		md->max_smem_per_sm = d->max_smem_per_sm;
		md->max_smem_per_block = d->max_smem_per_block;
		md->max_smem_per_block_optin = d->max_smem_per_block_optin;
		md->reserved_smem_per_block = d->reserved_smem_per_block;
		md->core_clock_khz = d->core_clock_khz;
		md->mem_clock_khz = d->mem_clock_khz;
		md->mem_bus_width_bits = d->mem_bus_width_bits;
		md->has_device_record = true;
	}
	return 0;
}

static int take_thread(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_thread *th = (const void *)rec;
		uint32_t ti = map_thread(f, th->tid);
		CHECK_ID(ti);
		uint32_t name = map_str(f, th->name);
		CHECK_ID(name);
		f->m->threads.v[ti].name = name;
	}
	return 0;
}

static int take_clock(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_clock *c = (const void *)rec;
		if (!f->have_anchor && c->realtime) {
			f->have_anchor = true;
			f->offset = (int64_t)(c->realtime - c->ts);
		}
	}
	return 0;
}

static int take_loss(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_proc *p = &f->m->procs.v[f->proc];
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_loss *l = (const void *)rec;
		p->losses[l->cause < GPT_LOSS__MAX ? l->cause : 0] += l->count;
	}
	return 0;
}

static int take_stack_node(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		if (gpa_stacks_add_node(f->m, f->proc, (const void *)rec)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int take_stack(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		if (gpa_stacks_add_stack(f->m, f->proc, (const void *)rec)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int take_module(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_module *mo = (const void *)rec;
		uint32_t path = map_str(f, mo->path), bid = map_str(f, mo->build_id);
		CHECK_ID(path);
		CHECK_ID(bid);
		if (gpa_stacks_add_module(f->m, f->proc, mo, path, bid)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int take_nccl(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_nccl *r = (const void *)rec;
		uint32_t fn = map_str(f, r->func), al = map_str(f, r->algorithm);
		uint32_t pr = map_str(f, r->protocol), cn = map_str(f, r->comm_name);
		CHECK_ID(fn);
		CHECK_ID(al);
		CHECK_ID(pr);
		CHECK_ID(cn);
		if (gpa_nccl_add_op(f->m, f->proc, r, fn, al, pr, cn)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int take_nccl_channel(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		if (gpa_nccl_add_channel(f->m, f->proc, (const void *)rec)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int take_extcorr(struct file_ctx *f, const struct gpt_chunk *ch)
{
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;

	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		if (gpa_nccl_add_extcorr(f->m, f->proc, (const void *)rec)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

/* The row of gpa_model.mem_where for a memory event of this file; GPA_NONE out of memory. */
static uint32_t map_where(struct file_ctx *f, const struct gpt_memory *r)
{
	struct gpa_model *m = f->m;
	bool host = r->flags & GPT_MEMORY_HOST;

	for (size_t i = m->mem_where.n; i-- > 0;) {
		const struct gpa_mem_where *w = &m->mem_where.v[i];
		if (w->proc == f->proc && w->dev_id == r->device && w->dev_type == r->device_type &&
		    w->host == host) {
			return (uint32_t)i;
		}
	}
	struct gpa_mem_where w = {.proc = f->proc,
				  .dev_id = r->device,
				  .dev_type = r->device_type,
				  .host = host};
	if (m->mem_where.n >= GPA_NONE - 1 || gp_vec_push(&m->mem_where, w)) {
		return GPA_NONE;
	}
	return (uint32_t)(m->mem_where.n - 1);
}

/*
 * Memory events come in long runs from one thread and one device: the last
 * thread and place are kept, so most records cost no lookup.
 */
static int take_memory(struct file_ctx *f, const struct gpt_chunk *ch)
{
	struct gpa_mems *t = &f->m->mem;
	const uint8_t *rec = ch->records;
	size_t sz = ch->info->size;
	uint32_t last_tid = 0, last_thread = GPA_NONE, last_where = GPA_NONE;
	uint32_t wdev = 0;
	uint8_t wtype = 0, whost = 0;

	if (t->n + ch->count > UINT32_MAX - 1) {
		return -GP_ERR_NOMEM;
	}
	if (gpa_mems_reserve(t, t->n + ch->count)) {
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < ch->count; i++, rec += sz) {
		const struct gpt_memory *r = (const void *)rec;
		if (r->op != GPT_MEMORY_ALLOC && r->op != GPT_MEMORY_FREE) {
			continue; /* an operation this version does not know */
		}
		size_t k = t->n++;
		t->ts[k] = r->ts;
		t->addr[k] = r->address;
		t->bytes[k] = r->bytes;
		SET_OPT_(t, total_alloc, k, r->total_allocated);
		SET_OPT_(t, total_res, k, r->total_reserved);
		SET_OPT_(t, corr, k, r->correlation);
		if (!r->tid) {
			t->thread[k] = GPA_NONE;
		} else if (r->tid == last_tid && last_thread != GPA_NONE) {
			t->thread[k] = last_thread;
		} else {
			last_thread = map_thread(f, r->tid);
			CHECK_ID(last_thread);
			last_tid = r->tid;
			t->thread[k] = last_thread;
		}
		uint8_t host = (r->flags & GPT_MEMORY_HOST) != 0;
		if (last_where == GPA_NONE || r->device != wdev || r->device_type != wtype ||
		    host != whost) {
			last_where = map_where(f, r);
			CHECK_ID(last_where);
			wdev = r->device;
			wtype = r->device_type;
			whost = host;
		}
		t->where[k] = last_where;
		t->op[k] = r->op;
		t->flags[k] = r->flags;
	}
	return 0;
}

/* The kinds the model keeps; the others (contexts, streams, metrics...) are skipped. */
static const take_fn take_kind[GPT_KIND__MAX] = {
	[GPT_KIND_KERNEL] = take_kernel,
	[GPT_KIND_MEMCPY] = take_memcpy,
	[GPT_KIND_MEMSET] = take_memset,
	[GPT_KIND_API] = take_api,
	[GPT_KIND_SYNC] = take_sync,
	[GPT_KIND_NVTX] = take_nvtx,
	[GPT_KIND_OVERHEAD] = take_overhead,
	[GPT_KIND_PROCESS] = take_process,
	[GPT_KIND_DEVICE] = take_device,
	[GPT_KIND_THREAD] = take_thread,
	[GPT_KIND_CLOCK] = take_clock,
	[GPT_KIND_LOSS] = take_loss,
	[GPT_KIND_STACK_NODE] = take_stack_node,
	[GPT_KIND_STACK] = take_stack,
	[GPT_KIND_MODULE] = take_module,
	[GPT_KIND_NCCL] = take_nccl,
	[GPT_KIND_NCCL_CHANNEL] = take_nccl_channel,
	[GPT_KIND_EXTCORR] = take_extcorr,
	[GPT_KIND_MEMORY] = take_memory,
};

int gpa_model_take_chunk(struct file_ctx *f, const struct gpt_chunk *ch)
{
	take_fn take = (unsigned)ch->kind < GPT_KIND__MAX ? take_kind[ch->kind] : NULL;

	if (take) {
		int ret = take(f, ch);
		if (ret) {
			return ret;
		}
	}
	if (gpa_kind_is_event(ch->kind)) {
		f->m->procs.v[f->proc].events += ch->count;
	}
	return 0;
}

