/* SPDX-License-Identifier: MIT */
/*
 * model-load.c - loading traces into the model: each file's chunks are
 * taken into struct-of-arrays tables (model-take.c), the files are placed
 * on one timeline by their clock anchors, then the tables are sorted and
 * the indexes built (model-sort.c, model-link.c).
 */
#define GP_LOG_TAG "analyze/model-load"
#include "base/compat.h"
#include "analyze/model-internal.h"
#include "analyze/sanity.h"
#include "import/import.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>

/* First rows of one file in each table (rows are in file order until sorted). */
struct file_rows {
	size_t k0, c0, s0, a0, y0, n0, o0;
};

/* Tables with an end column; kernels and API calls move their start alone. */
#define SHIFT_(tab, from, to)                                                                      \
	for (size_t i_ = (from); i_ < (to); i_++) {                                                \
		(tab).start[i_] += d;                                                              \
		(tab).end[i_] += d;                                                                \
	}
#define SHIFT_START_(starts, from, to)                                                             \
	for (size_t i_ = (from); i_ < (to); i_++) {                                                \
		(starts)[i_] += d;                                                                 \
	}

/*
 * Moves one file's rows onto the model timeline; next: the next file's first
 * rows; ks, as: the kernels' and API calls' starts, decoded.
 */
static void shift_file(struct file_ctx *f, const struct file_rows *next, uint64_t *ks,
		       uint64_t *as)
{
	struct gpa_model *m = f->m;
	uint64_t d = (uint64_t)f->offset;

	SHIFT_START_(ks, f->k0, next ? next->k0 : m->kern.n);
	SHIFT_(m->copy, f->c0, next ? next->c0 : m->copy.n);
	SHIFT_(m->set, f->s0, next ? next->s0 : m->set.n);
	SHIFT_START_(as, f->a0, next ? next->a0 : m->api.n);
	SHIFT_(m->sync, f->y0, next ? next->y0 : m->sync.n);
	SHIFT_(m->nvtx, f->n0, next ? next->n0 : m->nvtx.n);
	SHIFT_(m->ovh, f->o0, next ? next->o0 : m->ovh.n);
}

/*
 * What a damaged file kept: where it was cut, where the first corrupt chunk
 * was. A file that was damaged and gave no record at all is an error: the
 * analyses would report an empty run as if it were one.
 */
static int damage(struct gpt_reader *r, const struct gpt_reader_status *st, struct gpa_proc *p,
		  char *errbuf, size_t errlen)
{
	size_t np;
	const struct gpt_problem *pr = gpt_reader_problems(r, &np);

	p->truncated = st->truncated;
	p->truncated_at = st->truncated_at;
	p->has_footer = st->has_footer;
	p->corrupt_chunks = st->problems;
	p->records = 0;
	for (size_t k = 0; k < GPT_KIND__MAX; k++) {
		p->records += st->records[k];
	}
	for (size_t i = 0; i < np; i++) {
		if (pr[i].err != -GP_ERR_TRUNCATED) {
			p->corrupt_at = pr[i].offset;
			break;
		}
	}
	if (p->records || (!st->truncated && !st->problems)) {
		return 0;
	}
	if (np) {
		snprintf(errbuf, errlen, "%s: no records could be read: chunk %" PRIu32
			 " at offset %" PRIu64 ": %s", p->path, pr[0].chunk_index, pr[0].offset,
			 pr[0].reason);
	} else {
		snprintf(errbuf, errlen, "%s: no records could be read: %s at offset %" PRIu64,
			 p->path, st->truncated ? "truncated" : "corrupt",
			 st->truncated ? st->truncated_at : p->corrupt_at);
	}
	return st->truncated ? -GP_ERR_TRUNCATED : -GP_ERR_FORMAT;
}

/* nsys: one process of an export (NULL: the whole input as one process). */
/* ahead: inputs converted on worker threads (NULL: none), of which path is number idx. */
/*
 * The pages of the columns a file will fill, faulted in on a thread of their
 * own: the calling thread, which takes every record into the columns, is
 * what a load waits for (the decoding threads are mostly idle), and a
 * quarter to a third of its time went to the kernel zeroing the pages it
 * touched first. The columns are filled front to back together, so they
 * are faulted in together, a slice of each at a time, ahead of the writer.
 */
#define PREFAULT_SLICES 64
#define PREFAULT_MIN_BYTES (16u << 20) /* less is not worth a thread */

struct prefault {
	struct {
		char *p;
		size_t n;
	} r[64];
	size_t nr, bytes;
	atomic_bool stop;
	pthread_t th;
	bool running;
};

#define PREFAULT_COL_(type, col)                                                                   \
	if (t->col && p->nr < GP_ARRAY_SIZE(p->r) && t->cap > n0) {                                \
		p->r[p->nr].p = (char *)t->col + n0 * sizeof(type);                                \
		p->r[p->nr].n = (t->cap - n0) * sizeof(type);                                      \
		p->bytes += p->r[p->nr++].n;                                                       \
	}
#define PREFAULT_TABLE_(tname, COLS, OPT)                                                          \
	static void tname##_prefault(struct prefault *p, const struct tname *t, size_t n0)         \
	{                                                                                          \
		COLS(PREFAULT_COL_)                                                                \
		OPT(PREFAULT_COL_)                                                                 \
	}
PREFAULT_TABLE_(gpa_kernels, GPA_KERNEL_COLS, GPA_KERNEL_OPT_COLS_)
PREFAULT_TABLE_(gpa_apis, GPA_API_COLS, GPA_API_OPT_COLS_)
PREFAULT_TABLE_(gpa_gpus, GPA_GPU_COLS, GPA_GPU_OPT_COLS_)

static void *prefault_main(void *arg)
{
	struct prefault *p = arg;

	for (size_t s = 0; s < PREFAULT_SLICES && !atomic_load(&p->stop); s++) {
		for (size_t i = 0; i < p->nr; i++) {
			size_t a = p->r[i].n * s / PREFAULT_SLICES;
			size_t b = p->r[i].n * (s + 1) / PREFAULT_SLICES;
			gp_prefault(p->r[i].p + a, b - a);
		}
	}
	return NULL;
}

/* Starts faulting in the kernel and API rows from k0 and a0 on (when large and threads > 1). */
static void prefault_start(struct prefault *p, const struct gpa_model *m, size_t k0, size_t a0,
			   unsigned threads)
{
	p->nr = p->bytes = 0;
	atomic_init(&p->stop, false);
	p->running = false;
	gpa_kernels_prefault(p, &m->kern, k0);
	gpa_apis_prefault(p, &m->api, a0);
	/* the timeline's index, built after the load: its rows' pages too */
	gpa_gpus_prefault(p, &m->gpu, k0 + m->copy.n + m->set.n);
	if (threads > 1 && p->bytes >= PREFAULT_MIN_BYTES) {
		p->running = pthread_create(&p->th, NULL, prefault_main, p) == 0;
	}
}

static void prefault_stop(struct prefault *p)
{
	if (p->running) {
		atomic_store(&p->stop, true);
		pthread_join(p->th, NULL);
		p->running = false;
	}
}

/* An input its importer hands over (gpa_input_take): the chunks go to the model as they come. */
struct taking {
	struct file_ctx *f;
	uint64_t *records; /* of every file so far */
	uint64_t taken;    /* of this one */
	uint64_t done, total; /* the import's progress: bytes of the input read, in all */
	const struct gp_progress_cb *user; /* the caller's progress, told the same */
	bool nomem;
};

static void take_progress(const struct gp_progress *p, void *data)
{
	struct taking *t = data;

	t->done = p->done;
	t->total = p->total;
	gp_progress_call(t->user, p);
}

/*
 * Room for the rows of a large table the rest of the input will bring, as
 * many again per byte as so far, when the table is full: one or two
 * reallocations where growing by half each time copies the rows over and
 * over (12 % of a load's time on the replicated trace). Never more than 64
 * times the rows so far; too much is given back by the shrink after the
 * take, and was never touched.
 */
#define PRESIZE_(tab, reserve)                                                                     	if (m->tab.n + ch->count > m->tab.cap) {                                                   		double est = (double)(m->tab.n + ch->count) * ((double)t->total / (double)t->done); 		double most = 64.0 * (double)(m->tab.n + ch->count);                                		(void)reserve(&m->tab, (size_t)(est < most ? est : most) + ch->count);            	}
static void presize(struct taking *t, const struct gpt_chunk *ch)
{
	struct gpa_model *m = t->f->m;

	if (!t->done || t->total <= t->done) {
		return;
	}
	switch (ch->kind) {
	case GPT_KIND_NVTX:
		PRESIZE_(nvtx, gpa_nvtxs_reserve)
		break;
	case GPT_KIND_API:
		PRESIZE_(api, gpa_apis_reserve)
		break;
	case GPT_KIND_KERNEL:
		PRESIZE_(kern, gpa_kernels_reserve)
		break;
	default:
		break;
	}
}

static int take_rows(void *ctx, const struct gpt_writer *w, const struct gpt_chunk *ch)
{
	struct taking *t = ctx;
	int ret;

	t->f->w = w;
	presize(t, ch); /* a failure here is the take's own to report */
	ret = gpa_model_take_chunk(t->f, ch);
	if (ret) {
		t->nomem = true;
		return ret;
	}
	t->taken += ch->count;
	*t->records += ch->count;
	return 0;
}

/*
 * A Kineto or nsys input taken from its importer, with no temporary .gpz:
 * its process is what damage() finds in such a file, one closed cleanly.
 * 1 for a .gpz, which is read through a trace reader instead.
 */
static int take_input(struct file_ctx *f, const char *path, const struct gpa_input_opts *io,
		      uint64_t *done, uint64_t *records, char *errbuf, size_t errlen)
{
	struct taking t = {.f = f, .records = records, .user = io->progress};
	const struct gp_progress_cb cb = {.fn = take_progress, .data = &t};
	struct gpa_input_opts o = *io;
	o.progress = &cb;
	int ret = gpa_input_take(path, &o, take_rows, &t, errbuf, errlen);
	struct stat sb;

	if (t.nomem) {
		snprintf(errbuf, errlen, "%s: out of memory loading the trace", path);
		return -GP_ERR_NOMEM;
	}
	if (ret) {
		return ret;
	}
	/*
	 * Unlike a .gpz, whose chunk headers size the tables before the first
	 * record, an import's records grew them as they came: give back what
	 * the growth left behind before the sort needs its room (on the
	 * replicated trace of docs/performance.md, 191 MB of peak memory
	 * without, 158 with).
	 */
	gpa_nvtxs_shrink(&f->m->nvtx);
	gpa_apis_shrink(&f->m->api);
	gpa_kernels_shrink(&f->m->kern);
	gp_heap_trim();
	f->m->procs.v[f->proc].has_footer = true;
	f->m->procs.v[f->proc].records = t.taken;
	if (!gpa_input_stat(path, &sb)) {
		*done += (uint64_t)sb.st_size;
	}
	return 0;
}

/* The tables sized once from the chunk headers of f's reader: no growth while reading. */
static int reserve_file(struct gpa_model *m, struct gpt_reader *r)
{
	uint64_t counts[GPT_KIND__MAX];

	if (gpt_reader_count_records(r, counts)) {
		return 0;
	}
	return gpa_kernels_reserve(&m->kern, m->kern.n + counts[GPT_KIND_KERNEL]) ||
	       gpa_memcpys_reserve(&m->copy, m->copy.n + counts[GPT_KIND_MEMCPY]) ||
	       gpa_memsets_reserve(&m->set, m->set.n + counts[GPT_KIND_MEMSET]) ||
	       gpa_apis_reserve(&m->api, m->api.n + counts[GPT_KIND_API]) ||
	       gpa_syncs_reserve(&m->sync, m->sync.n + counts[GPT_KIND_SYNC]) ||
	       gpa_nvtxs_reserve(&m->nvtx, m->nvtx.n + counts[GPT_KIND_NVTX]) ||
	       gpa_overheads_reserve(&m->ovh, m->ovh.n + counts[GPT_KIND_OVERHEAD]) ||
	       gpa_mems_reserve(&m->mem, m->mem.n + counts[GPT_KIND_MEMORY]) ||
	       gpa_gpus_reserve(&m->gpu, m->kern.cap + m->copy.cap + m->set.cap);
}

/* Takes every chunk of f's reader into the model, then what the file kept (damage()). */
static int read_chunks(struct file_ctx *f, const char *path, const struct gpa_load_opts *opts,
		       uint64_t *done, uint64_t total, uint64_t *records, char *errbuf,
		       size_t errlen)
{
	struct gpa_model *m = f->m;
	struct gpt_reader_status st;
	struct gpt_chunk ch;
	struct prefault pf = {.running = false};
	size_t k0 = m->kern.n, a0 = m->api.n;
	int ret;

	if (opts && gpt_reader_set_threads(f->r, opts->threads)) {
		gp_debug("%s: no worker threads (out of memory): reading on one", path);
	}
	if (reserve_file(m, f->r)) {
		snprintf(errbuf, errlen, "%s: out of memory loading the trace", path);
		return -GP_ERR_NOMEM;
	}
	prefault_start(&pf, m, k0, a0, opts ? opts->threads : 1);
	while ((ret = gpt_reader_next(f->r, &ch)) > 0) {
		ret = gpa_model_take_chunk(f, &ch);
		if (ret) {
			prefault_stop(&pf);
			snprintf(errbuf, errlen, "%s: out of memory loading the trace", path);
			return ret;
		}
		*records += ch.count;
		if (opts && opts->progress.fn) {
			struct gp_progress pg = {.what = "reading", .unit = "bytes",
						 .done = *done + ch.offset, .total = total,
						 .records = *records};
			gp_progress_call(&opts->progress, &pg);
		}
	}
	prefault_stop(&pf);
	if (ret < 0) {
		snprintf(errbuf, errlen, "%s", gpt_reader_last_error(f->r));
		return ret;
	}
	gpt_reader_get_status(f->r, &st);
	*done += st.file_bytes;
	return damage(f->r, &st, &m->procs.v[f->proc], errbuf, errlen);
}

static int load_file(struct gpa_model *m, const char *path, const struct gpa_nsys_import_opts *nsys,
		     const struct gpa_load_opts *opts, struct gp_u64map *maps, uint64_t *done,
		     uint64_t total, uint64_t *records, struct gpa_import_ahead *ahead, size_t idx,
		     char *errbuf, size_t errlen)
{
	struct file_ctx f = {.m = m, .m_funcs = &maps[0], .m_shapes = &maps[1],
			     .m_ksites = &maps[2], .m_asites = &maps[3],
			     .drop = opts ? opts->drop : 0};
	for (size_t i = 0; i < SITE_CACHE; i++) {
		f.kc[i].site = f.ac[i].site = GPA_NONE;
	}
	struct gpa_proc proc = {.rank = -1};
	int ret;

	proc.path = strdup(path);
	if (!proc.path || gp_vec_push(&m->procs, proc)) {
		free(proc.path);
		return -GP_ERR_NOMEM;
	}
	f.proc = (uint32_t)(m->procs.n - 1);
	if (gp_u64map_reserve(&f.threads, 64) || gp_u64map_reserve(&f.funcs, 256)) {
		gp_u64map_release(&f.threads);
		return -GP_ERR_NOMEM;
	}
	/* a Kineto or nsys input: taken from its importer (else converted ahead), a .gpz read */
	ret = gpa_import_ahead_take(ahead, idx, &f.r, errbuf, errlen);
	if (ret == 1) {
		struct gpa_input_opts io = {.nsys = nsys,
					    .progress = opts ? &opts->progress : NULL,
					    .threads = opts ? opts->threads : 1};
		ret = take_input(&f, path, &io, done, records, errbuf, errlen);
		if (ret == 1) {
			ret = gpa_input_open_opts(path, &io, &f.r, errbuf, errlen);
		}
	}
	if (!ret && f.r) {
		ret = read_chunks(&f, path, opts, done, total, records, errbuf, errlen);
	}
	if (!ret) {
		struct gpa_proc *p = &m->procs.v[f.proc];
		p->aligned = f.have_anchor;
		p->clock_offset = f.have_anchor ? f.offset : 0;
		p->anchor_offset = p->clock_offset;
	}
	gpt_reader_free(f.r);
	gp_u64map_release(&f.threads);
	gp_u64map_release(&f.funcs);
	gp_vec_free(&f.remap);
	gp_vec_free(&f.fcache);
	return ret;
}

int gpa_model_load(struct gpa_model *m, const char *const *paths, size_t npaths,
		   const struct gpa_load_opts *opts, char *errbuf, size_t errlen)
{
	uint64_t total = 0, done = 0, records = 0;
	GP_VEC(struct file_rows) rows = {0};
	/* functions, shapes, kernel sites and API sites, while loading */
	struct gp_u64map maps[4] = {GP_U64MAP_INIT, GP_U64MAP_INIT, GP_U64MAP_INIT, GP_U64MAP_INIT};
	int ret = 0;

	memset(m, 0, sizeof(*m));
	gp_strbuf_init(&m->strs.text);
	for (size_t i = 0; i < GP_ARRAY_SIZE(maps); i++) {
		if (gp_u64map_reserve(&maps[i], 1024)) {
			for (size_t j = 0; j < GP_ARRAY_SIZE(maps); j++) {
				gp_u64map_release(&maps[j]);
			}
			snprintf(errbuf, errlen, "out of memory");
			return -GP_ERR_NOMEM;
		}
	}
	/* an input given twice (the same file, or bytes) is read once: m->bad says which */
	const char **kept = malloc((npaths ? npaths : 1) * sizeof(*kept));
	bool *keep = malloc((npaths ? npaths : 1) * sizeof(*keep));
	size_t nkept = 0;
	if (!kept || !keep || gpa_sanity_unique_inputs(m, paths, npaths, keep)) {
		free(kept);
		free(keep);
		snprintf(errbuf, errlen, "out of memory");
		ret = -GP_ERR_NOMEM;
		goto fail_maps;
	}
	for (size_t i = 0; i < npaths; i++) {
		if (keep[i]) {
			kept[nkept++] = paths[i];
		}
	}
	free(keep);
	paths = kept;
	npaths = nkept;
	for (size_t i = 0; i < npaths; i++) {
		struct stat sb;
		if (!gpa_input_stat(paths[i], &sb)) {
			total += (uint64_t)sb.st_size;
		}
	}
	/* Several Kineto inputs: converted on worker threads, each taken in its turn. */
	struct gpa_import_ahead *ahead =
		gpa_import_ahead_start(paths, npaths, opts ? opts->threads : 0, errlen);
	for (size_t i = 0; i < npaths && !ret; i++) {
		struct gpa_nsys_process *procs = NULL;
		size_t nprocs = 0;

		/* An nsys export of several processes: each is a process of the model. */
		gpa_input_processes(paths[i], &procs, &nprocs, errbuf, errlen);
		for (size_t k = 0; k < (nprocs > 1 ? nprocs : 1) && !ret; k++) {
			struct gpa_nsys_import_opts one = {.one_process = true};
			struct file_rows fr = {m->kern.n, m->copy.n, m->set.n, m->api.n,
					       m->sync.n, m->nvtx.n, m->ovh.n};
			ret = gp_vec_push(&rows, fr);
			if (ret) {
				snprintf(errbuf, errlen, "out of memory");
				break;
			}
			one.process = nprocs > 1 ? procs[k].key : 0;
			ret = load_file(m, paths[i], nprocs > 1 ? &one : NULL, opts, maps, &done,
					total, &records, ahead, i, errbuf, errlen);
		}
		free(procs);
	}
	gpa_import_ahead_free(ahead);
	free(kept);
fail_maps:
	for (size_t i = 0; i < GP_ARRAY_SIZE(maps); i++) {
		gp_u64map_release(&maps[i]);
	}
	if (ret) {
		gp_vec_free(&rows);
		goto fail;
	}
	/*
	 * One timeline: with several files, each is shifted by its anchor onto
	 * CLOCK_REALTIME when every file has one; a single file keeps its clock.
	 */
	m->aligned = m->procs.n > 0;
	for (size_t i = 0; i < m->procs.n; i++) {
		m->aligned &= m->procs.v[i].aligned;
	}
	if (m->aligned && m->procs.n > 1) {
		/* kernel and API starts are offsets from their blocks' bases: shifted as 64-bit values */
		uint64_t *ks = gpa_starts_decode(&m->kern_starts, m->kern.start_off, m->kern.n);
		uint64_t *as = gpa_starts_decode(&m->api_starts, m->api.start_off, m->api.n);
		for (size_t i = 0; ks && as && i < m->procs.n; i++) {
			struct file_ctx f = {.m = m, .offset = m->procs.v[i].clock_offset};
			f.k0 = rows.v[i].k0;
			f.c0 = rows.v[i].c0;
			f.s0 = rows.v[i].s0;
			f.a0 = rows.v[i].a0;
			f.y0 = rows.v[i].y0;
			f.n0 = rows.v[i].n0;
			f.o0 = rows.v[i].o0;
			shift_file(&f, i + 1 < m->procs.n ? &rows.v[i + 1] : NULL, ks, as);
		}
		ret = ks && as ? 0 : -GP_ERR_NOMEM;
		if (!ret) {
			ret = gpa_starts_encode(&m->kern_starts, m->kern.start_off, ks, m->kern.n);
		}
		if (!ret) {
			ret = gpa_starts_encode(&m->api_starts, m->api.start_off, as, m->api.n);
		}
		free(ks);
		free(as);
		if (ret) {
			gp_vec_free(&rows);
			snprintf(errbuf, errlen, "out of memory building the model");
			goto fail;
		}
	} else {
		for (size_t i = 0; i < m->procs.n; i++) {
			m->procs.v[i].clock_offset = 0;
		}
	}
	gp_vec_free(&rows);
	ret = -GP_ERR_NOMEM;
	for (size_t i = 0; i < m->procs.n; i++) {
		m->events += m->procs.v[i].events;
	}
	if (gpa_model_build_indexes(m, opts)) {
		snprintf(errbuf, errlen, "out of memory building the model");
		goto fail;
	}
	gpa_model_span(m);
	gpa_sanity_span(m);
	gp_debug("model of %zu files: %" PRIu64 " events; %zu kernels, %zu copies, %zu memsets, "
		 "%zu API calls, %zu syncs, %zu NVTX ranges (%zu kernels and %zu calls of 4.3 s "
		 "or more); %s", m->procs.n, m->events, m->kern.n,
		 m->copy.n, m->set.n, m->api.n, m->sync.n, m->nvtx.n, m->kern_long.n, m->api_long.n,
		 m->aligned ? "aligned on CLOCK_REALTIME" : "one clock per file");
	return 0;
fail:
	gpa_model_release(m);
	return ret;
}

void gpa_model_release(struct gpa_model *m)
{
	gpa_sanity_release(&m->bad);
	for (size_t i = 0; i < m->procs.n; i++) {
		free(m->procs.v[i].path);
	}
	gp_vec_free(&m->procs);
	gp_vec_free(&m->devs);
	gp_vec_free(&m->threads);
	gp_vec_free(&m->funcs);
	gp_vec_free(&m->shapes);
	gp_vec_free(&m->ksites);
	gp_vec_free(&m->asites);
	gp_vec_free(&m->strs.off);
	gp_strbuf_release(&m->strs.text);
	free(m->strs.slots);
	gpa_kernels_free(&m->kern);
	gpa_memcpys_free(&m->copy);
	gpa_memsets_free(&m->set);
	gpa_apis_free(&m->api);
	gpa_syncs_free(&m->sync);
	gp_vec_free(&m->evrec);
	gpa_nvtxs_free(&m->nvtx);
	gpa_overheads_free(&m->ovh);
	gpa_gpus_free(&m->gpu);
	gp_vec_free(&m->kern_long);
	gp_vec_free(&m->api_long);
	gp_vec_free(&m->kern_starts.base);
	gp_vec_free(&m->kern_starts.far);
	gp_vec_free(&m->api_starts.base);
	gp_vec_free(&m->api_starts.far);
	gpa_stacks_free(m->stacks);
	gpa_nccl_free(m->nccl);
	gpa_mems_free(&m->mem);
	gp_vec_free(&m->mem_where);
	memset(m, 0, sizeof(*m));
}
