/* SPDX-License-Identifier: MIT */
/*
 * gaps.c - idle gaps on each device timeline, and why the device was idle.
 *
 * One pass per device over its GPU ops in start order keeps the running end
 * of the busy union (kernels, memcpys, memsets; SYNC records are host
 * waits, not GPU work); each time the next op starts after it, [end, start)
 * is a gap. The op that ends the gap leads to its launch call and thread.
 * Over the part of the gap before that call returned ("host side") lie the
 * thread's API calls by class, its data-loader NVTX ranges and the CUPTI
 * overhead records; the part after it ("queued") is what the op waited on
 * once submitted. Every instant goes to the highest-precedence explanation
 * active then, and the gap to the cause with the most time (docs/gaps.md).
 *
 * Lookups use indexes built once (counting sorts by thread and process,
 * two small sorts) and binary searches: O(n log n) in all.
 */
#include "base/compat.h"
#include "analyze/commclass.h"
#include "analyze/gaps.h"
#include "analyze/model.h"
#include "analyze/steps.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

const uint64_t gpa_gap_bucket_lo[GPA_GAP_BUCKETS] = {
	0, 1000, 10000, 100000, 1000000, 10000000, 100000000,
};

static const char *const cause_names[GPA_GAP__COUNT] = {
	[GPA_GAP_PROFILER] = "profiler-overhead",
	[GPA_GAP_SYNC] = "host-sync",
	[GPA_GAP_DATA] = "data-loading",
	[GPA_GAP_MEMORY] = "memory-mgmt",
	[GPA_GAP_JIT] = "jit-module-load",
	[GPA_GAP_LAUNCH] = "launch-overhead",
	[GPA_GAP_CPU] = "cpu-bound",
	[GPA_GAP_COMM] = "communication",
	[GPA_GAP_DEPENDENCY] = "dependency",
	[GPA_GAP_STRAGGLER] = "straggler",
	[GPA_GAP_UNKNOWN] = "unknown",
};

const char *gpa_gap_cause_name(unsigned cause)
{
	return cause < GPA_GAP__COUNT ? cause_names[cause] : "unknown";
}

/*
 * The causes intervals stand for (API calls, NVTX ranges, overhead records),
 * highest precedence first: an instant of a gap's host side goes to the first
 * of them with an interval there (docs/gaps.md's table order), so a sync
 * inside a data-loader range is a sync while it lasts. Written out, so that
 * the enum's order does not decide it.
 */
static const uint8_t span_precedence[] = {
	GPA_GAP_PROFILER, GPA_GAP_SYNC, GPA_GAP_DATA, GPA_GAP_MEMORY, GPA_GAP_JIT, GPA_GAP_LAUNCH,
};

/* A gap goes to the cause with the most time; ties go to the one listed first here. */
static const uint8_t tie_order[] = {
	GPA_GAP_PROFILER, GPA_GAP_SYNC, GPA_GAP_DATA, GPA_GAP_MEMORY, GPA_GAP_JIT, GPA_GAP_LAUNCH,
	GPA_GAP_CPU, GPA_GAP_COMM, GPA_GAP_DEPENDENCY, GPA_GAP_STRAGGLER, GPA_GAP_UNKNOWN,
};
_Static_assert(sizeof(tie_order) == GPA_GAP__COUNT, "tie_order lists every cause once");

void gpa_gaps_opts_init(struct gpa_gaps_opts *o)
{
	*o = (struct gpa_gaps_opts){
		.device = -1,
		.min_gap_ns = 10000,
		.top = 10,
		.latency_ns = 30000,
		.data_regex = NULL,
		.comm = NULL,
	};
}

/* ------------------------------------------------------ API call classes */

#define CLS_NONE 0xff  /* a CUDA call that explains nothing by itself: CPU time */
#define CLS_UNSET 0xfe /* not classified yet */

/* Prefixes, so that _v2, _ptsz, _ptds and CUPTI's _v3020-style suffixes match too. */
static const char *const sync_names[] = {
	"cudaDeviceSynchronize", "cudaThreadSynchronize", "cudaStreamSynchronize",
	"cudaEventSynchronize",  "cuCtxSynchronize",      "cuStreamSynchronize",
	"cuEventSynchronize",
};
static const char *const memory_names[] = {
	"cudaMalloc",         "cudaFree",           "cudaHostAlloc",     "cudaHostRegister",
	"cudaHostUnregister", "cudaMemPool",        "cuMemAlloc",        "cuMemFree",
	"cuMemHostAlloc",     "cuMemHostRegister",  "cuMemHostUnregister", "cuMemCreate",
	"cuMemRelease",       "cuMemMap",           "cuMemUnmap",        "cuMemAddressReserve",
	"cuMemAddressFree",   "cuMemSetAccess",     "cuMemPool",         "cuArrayCreate",
	"cuArrayDestroy",
};
static const char *const jit_names[] = {
	"cuModuleLoad",        "cuModuleUnload",     "cuModuleGetFunction", "cuLibraryLoad",
	"cuLibraryUnload",     "cuLibraryGetKernel", "cuLibraryGetModule",  "cuKernelGetFunction",
	"cuLinkCreate",        "cuLinkAddData",      "cuLinkAddFile",       "cuLinkComplete",
	"cudaGraphInstantiate", "cuGraphInstantiate", "cudaGraphExecUpdate", "cuGraphExecUpdate",
	"cudaLibraryLoad",     "cudaGetFuncBySymbol", "cudaGetKernel",
};
static const char *const launch_names[] = {
	"cudaLaunch", "cuLaunch", "cudaGraphLaunch", "cuGraphLaunch", "cudaMemset", "cuMemset",
	"cudaMemPrefetchAsync", "cuMemPrefetchAsync",
};

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (has_prefix(s, list[i])) {
			return true;
		}
	}
	return false;
}

/* The cause an API call's own time stands for, or CLS_NONE. */
static uint8_t classify_api(const char *name)
{
	if (in_list(name, sync_names, GP_ARRAY_SIZE(sync_names))) {
		return GPA_GAP_SYNC;
	}
	/* cudaMemcpy, cudaMemcpy2D, cuMemcpyDtoH_v2...: synchronous unless *Async. */
	if (has_prefix(name, "cudaMemcpy") || has_prefix(name, "cuMemcpy")) {
		return strstr(name, "Async") ? GPA_GAP_LAUNCH : GPA_GAP_SYNC;
	}
	if (in_list(name, memory_names, GP_ARRAY_SIZE(memory_names))) {
		return GPA_GAP_MEMORY;
	}
	if (in_list(name, jit_names, GP_ARRAY_SIZE(jit_names))) {
		return GPA_GAP_JIT;
	}
	if (in_list(name, launch_names, GP_ARRAY_SIZE(launch_names))) {
		return GPA_GAP_LAUNCH;
	}
	return CLS_NONE;
}

/* CUpti_ActivityOverheadKind values that are the driver's work, not the profiler's. */
static uint8_t classify_overhead(uint32_t kind)
{
	switch (kind) {
	case 1:       /* DRIVER_COMPILER */
	case 4 << 16: /* RUNTIME_TRIGGERED_MODULE_LOADING */
	case 5 << 16: /* LAZY_FUNCTION_LOADING */
		return GPA_GAP_JIT;
	default:
		return GPA_GAP_PROFILER;
	}
}

/* ----------------------------------------------------------------- state */

enum span_kind {
	SPAN_API = 0,
	SPAN_NVTX = 1,
	SPAN_OVH = 2,
};

struct ev {
	uint64_t t;
	int8_t d;    /* +1 opens, -1 closes */
	uint8_t cls; /* enum gpa_gap_cause, one of span_precedence[] */
};

struct best {
	uint64_t len;
	uint32_t src;
	uint8_t kind; /* enum span_kind */
};

struct kv {
	uint64_t a, b; /* sort keys */
	uint32_t row;
};

struct ctx {
	const struct gpa_model *m;
	const struct gpa_steps *steps;
	uint64_t min_gap, latency;
	/*
	 * API calls are read from the table (in start order) picking a thread's:
	 * atop, a bit per API row: it starts at or after the end of every
	 * earlier call of its thread, so no earlier call reaches past its start;
	 * afirst: each thread's first row (UINT32_MAX: none).
	 */
	uint8_t *atop;
	uint32_t *afirst;
	uint8_t *scls;  /* per string id: the cause an API call so named stands for, CLS_NONE,
			 * or CLS_UNSET until first asked */
	uint32_t *blocking; /* API rows with an event, stream or context SYNC record, sorted */
	size_t nblocking;
	/* push/pop NVTX ranges by thread */
	uint32_t *prows;
	size_t *pfirst;
	/* start/end NVTX ranges with data-loader names, by thread; smax: running max end */
	uint32_t *srows;
	size_t *sfirst;
	uint64_t *smax;
	uint8_t *dl;    /* per string id: 0 not looked at, 1 no, 2 a data-loader name */
	/* overhead records by process; omax: running max end */
	uint32_t *orows;
	size_t *ofirst;
	uint64_t *omax;
	/* communication kernels (gpa_model.kern rows) by process, by end */
	uint32_t *nrows;
	size_t *nfirst;
	const struct gpa_commclass *cc;
	struct gpa_commclass own_cc; /* when the caller gave none */
	/* search cursors for the device being swept: of the API rows, per thread, per process */
	size_t acur, *pcur, *scur, *ocur, *ncur;
	/* stream-wait-event SYNC records by process, then stream and start */
	uint32_t *wrows;
	size_t *wfirst;
	/* per gap */
	GP_VEC(struct ev) ev;
	struct best best[GPA_GAP__COUNT]; /* by cause; only span_precedence[]'s are set */
	bool nomem;
	/* the result being built */
	struct gpa_gaps *out;
	size_t top;
};

/* Groups rows by key (< nkeys; GPA_NONE leaves a row out) keeping row order. */
static int group(const uint32_t *keys, size_t n, size_t nkeys, uint32_t **rows, size_t **first)
{
	size_t *cnt = calloc(nkeys + 1, sizeof(*cnt));
	size_t *pos = malloc((nkeys + 1) * sizeof(*pos));
	uint32_t *r;
	size_t total = 0;

	if (!cnt || !pos) {
		free(cnt);
		free(pos);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (keys[i] != GPA_NONE) {
			cnt[keys[i] + 1]++;
			total++;
		}
	}
	for (size_t k = 0; k < nkeys; k++) {
		cnt[k + 1] += cnt[k];
	}
	r = gp_malloc_big((total ? total : 1) * sizeof(*r));
	if (!r) {
		free(cnt);
		free(pos);
		return -GP_ERR_NOMEM;
	}
	memcpy(pos, cnt, (nkeys + 1) * sizeof(*pos));
	for (size_t i = 0; i < n; i++) {
		if (keys[i] != GPA_NONE) {
			r[pos[keys[i]]++] = (uint32_t)i;
		}
	}
	free(pos);
	*rows = r;
	*first = cnt;
	return 0;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_kv(const void *x, const void *y)
{
	const struct kv *a = x, *b = y;

	if (a->a != b->a) {
		return a->a < b->a ? -1 : 1;
	}
	if (a->b != b->b) {
		return a->b < b->b ? -1 : 1;
	}
	return a->row < b->row ? -1 : a->row > b->row;
}

/* Rows sorted by (proc, key) from kvs (a = proc, b = key); first[] per process. */
static int sorted_by_proc(struct kv *kvs, size_t n, size_t nprocs, uint32_t **rows, size_t **first)
{
	size_t *f = calloc(nprocs + 1, sizeof(*f));
	uint32_t *r = malloc((n ? n : 1) * sizeof(*r));

	if (!f || !r) {
		free(f);
		free(r);
		return -GP_ERR_NOMEM;
	}
	gp_qsort(kvs, n, sizeof(*kvs), cmp_kv);
	for (size_t i = 0; i < n; i++) {
		r[i] = kvs[i].row;
		f[kvs[i].a + 1]++;
	}
	for (size_t p = 0; p < nprocs; p++) {
		f[p + 1] += f[p];
	}
	*rows = r;
	*first = f;
	return 0;
}

static int cmp_comm_end(const void *x, const void *y, void *arg)
{
	const struct gpa_model *m = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	uint32_t pa = gpa_dev_proc(m, gpa_kern_dev(m, a)), pb = gpa_dev_proc(m, gpa_kern_dev(m, b));
	uint64_t ea = gpa_kern_end(m, a), eb = gpa_kern_end(m, b);

	if (pa != pb) {
		return pa < pb ? -1 : 1;
	}
	if (ea != eb) {
		return ea < eb ? -1 : 1;
	}
	return a < b ? -1 : a > b;
}

/* c->nrows, c->nfirst: the communication kernels by process, then end, then row. */
static int comm_by_end(struct ctx *c, size_t np)
{
	const struct gpa_model *m = c->m;
	size_t n = 0;

	for (size_t i = 0; i < gpa_kern_rows(m); i++) {
		n += c->cc->kern[i] != GPA_COMM_NOT;
	}
	c->nrows = malloc((n ? n : 1) * sizeof(*c->nrows));
	c->nfirst = calloc(np + 1, sizeof(*c->nfirst));
	if (!c->nrows || !c->nfirst) {
		return -GP_ERR_NOMEM;
	}
	n = 0;
	for (size_t i = 0; i < gpa_kern_rows(m); i++) {
		if (c->cc->kern[i] != GPA_COMM_NOT) {
			c->nrows[n++] = (uint32_t)i;
			c->nfirst[gpa_dev_proc(m, gpa_kern_dev(m, i)) + 1]++;
		}
	}
	if (n > 1) {
		qsort_r(c->nrows, n, sizeof(*c->nrows), cmp_comm_end, (void *)m);
	}
	for (size_t p = 0; p < np; p++) {
		c->nfirst[p + 1] += c->nfirst[p];
	}
	return 0;
}

static int compile(const char *pat, pcre2_code **re, char *errbuf, size_t errlen)
{
	int errcode;
	PCRE2_SIZE erroff;

	*re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &errcode, &erroff,
			    NULL);
	if (!*re && errcode == PCRE2_ERROR_HEAP_FAILED) {
		snprintf(errbuf, errlen, "out of memory");
		return -GP_ERR_NOMEM;
	}
	if (!*re) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(errcode, msg, sizeof(msg));
		snprintf(errbuf, errlen, "bad data-loader pattern '%s' at offset %zu: %s", pat,
			 (size_t)erroff, (char *)msg);
		return -GP_ERR_API;
	}
	return 0;
}

static int build_index(struct ctx *c, pcre2_code *re)
{
	const struct gpa_model *m = c->m;
	size_t nstr = m->strs.off.n + 2, nth = m->threads.n, np = m->procs.n;
	uint32_t *keys;
	size_t nkeys = 0;
	int ret = -GP_ERR_NOMEM;

	/* Few rows are looked at per gap: classes are found when asked, per name. */
	keys = malloc((gpa_nvtx_rows(m) ? gpa_nvtx_rows(m) : 1) * sizeof(*keys));
	c->scls = malloc(nstr);
	c->dl = calloc(nstr, 1);
	c->blocking = malloc((gpa_sync_rows(m) ? gpa_sync_rows(m) : 1) * sizeof(*c->blocking));
	if (!keys || !c->scls || !c->dl || !c->blocking) {
		goto out;
	}
	memset(c->scls, CLS_UNSET, nstr);
	for (size_t i = 0; i < gpa_sync_rows(m); i++) {
		/* Event, stream and context syncs block the host; stream-wait-event does not. */
		if (gpa_sync_api(m, i) != GPA_NONE && gpa_sync_type(m, i) != 2) {
			c->blocking[nkeys++] = gpa_sync_api(m, i);
		}
	}
	gp_qsort(c->blocking, nkeys, sizeof(*c->blocking), cmp_u32);
	c->nblocking = nkeys;
	c->atop = calloc(gpa_api_rows(m) / 8 + 1, 1);
	c->afirst = malloc((nth ? nth : 1) * sizeof(*c->afirst));
	uint64_t *reach = calloc(nth ? nth : 1, sizeof(*reach));
	if (!c->atop || !c->afirst || !reach) {
		free(reach);
		goto out;
	}
	memset(c->afirst, 0xff, (nth ? nth : 1) * sizeof(*c->afirst));
	for (size_t r = 0; r < gpa_api_rows(m); r++) {
		uint32_t t = gpa_api_thread(m, r);
		bool first = c->afirst[t] == UINT32_MAX;
		if (first) {
			c->afirst[t] = (uint32_t)r;
		}
		if (first || gpa_api_start(m, r) >= reach[t]) {
			c->atop[r / 8] |= (uint8_t)(1u << (r % 8));
		}
		reach[t] = gpa_api_end(m, r) > reach[t] ? gpa_api_end(m, r) : reach[t];
	}
	free(reach);
	/* NVTX: data-loader names, push/pop ranges and data-loader start/end ranges by thread. */
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	if (!md) {
		goto out;
	}
	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		uint32_t s = gpa_nvtx_name(m, i);
		if (!c->dl[s]) {
			const char *t = gpa_model_str(m, s);
			int rc = pcre2_match(re, (PCRE2_SPTR)t, strlen(t), 0, 0, md, NULL);
			c->dl[s] = rc >= 0 ? 2 : 1;
		}
	}
	pcre2_match_data_free(md);
	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		keys[i] =
			gpa_nvtx_type(m, i) == GPT_NVTX_PUSH_POP ? gpa_nvtx_thread(m, i) : GPA_NONE;
	}
	if (group(keys, gpa_nvtx_rows(m), nth, &c->prows, &c->pfirst)) {
		goto out;
	}
	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		bool yes = gpa_nvtx_type(m, i) == GPT_NVTX_START_END &&
			   c->dl[gpa_nvtx_name(m, i)] == 2;
		keys[i] = yes ? gpa_nvtx_thread(m, i) : GPA_NONE;
	}
	if (group(keys, gpa_nvtx_rows(m), nth, &c->srows, &c->sfirst)) {
		goto out;
	}
	c->smax = malloc((c->sfirst[nth] ? c->sfirst[nth] : 1) * sizeof(*c->smax));
	if (!c->smax) {
		goto out;
	}
	for (size_t t = 0; t < nth; t++) {
		uint64_t reach = 0;
		for (size_t k = c->sfirst[t]; k < c->sfirst[t + 1]; k++) {
			uint64_t e = gpa_nvtx_end(m, c->srows[k]);
			reach = e > reach ? e : reach;
			c->smax[k] = reach;
		}
	}
	/* Overhead records by process. */
	if (group(gpa_ovh_proc_col(m), gpa_ovh_rows(m), np, &c->orows, &c->ofirst)) {
		goto out;
	}
	c->omax = malloc((gpa_ovh_rows(m) ? gpa_ovh_rows(m) : 1) * sizeof(*c->omax));
	if (!c->omax) {
		goto out;
	}
	for (size_t p = 0; p < np; p++) {
		uint64_t reach = 0;
		for (size_t k = c->ofirst[p]; k < c->ofirst[p + 1]; k++) {
			uint64_t e = gpa_ovh_end(m, c->orows[k]);
			reach = e > reach ? e : reach;
			c->omax[k] = reach;
		}
	}
	c->pcur = malloc((nth + 1) * sizeof(*c->pcur));
	c->scur = malloc((nth + 1) * sizeof(*c->scur));
	c->ocur = malloc((np + 1) * sizeof(*c->ocur));
	c->ncur = malloc((np + 1) * sizeof(*c->ncur));
	if (!c->pcur || !c->scur || !c->ocur || !c->ncur) {
		goto out;
	}
	/* Communication kernels by process and end (their rows sorted as they are) */
	if (comm_by_end(c, np)) {
		goto out;
	}
	/* stream-wait-event records by process, stream, start */
	GP_VEC(struct kv) kvs = {0};
	if (gp_vec_reserve(&kvs, gpa_sync_rows(m) ? gpa_sync_rows(m) : 1)) {
		goto out;
	}
	ret = 0;
	for (size_t i = 0; !ret && i < gpa_sync_rows(m); i++) {
		if (gpa_sync_type(m, i) == 2) {
			struct kv e = {gpa_sync_proc(m, i), ((uint64_t)gpa_sync_stream(m, i) << 32),
				       (uint32_t)i};
			if (gp_vec_push(&kvs, e)) {
				ret = -GP_ERR_NOMEM;
			}
		}
	}
	/* Key b: stream in the high half; rows are start-sorted, so row order breaks ties. */
	if (!ret) {
		ret = sorted_by_proc(kvs.v, kvs.n, np, &c->wrows, &c->wfirst);
	}
	gp_vec_free(&kvs);
out:
	free(keys);
	return ret;
}

static void ctx_release(struct ctx *c)
{
	free(c->afirst);
	free(c->atop);
	free(c->scls);
	free(c->blocking);
	free(c->prows);
	free(c->pfirst);
	free(c->srows);
	free(c->sfirst);
	free(c->smax);
	free(c->dl);
	free(c->orows);
	free(c->ofirst);
	free(c->omax);
	free(c->nrows);
	free(c->nfirst);
	gpa_commclass_release(&c->own_cc);
	free(c->wrows);
	free(c->wfirst);
	free(c->pcur);
	free(c->scur);
	free(c->ocur);
	free(c->ncur);
	gp_vec_free(&c->ev);
}

/* What seek compares: an array of times, the kernels' ends or the API calls' starts. */
enum seek_by { BY_ARRAY, BY_KERN_END };

/*
 * First k in [*cur, hi) with key(rows[k]) >= t, key(r) being key[r] (by
 * BY_ARRAY) or the end of kernel row r. The gaps of one device come
 * in time order, so each search starts where the last one ended and
 * gallops forward: O(log distance), no cache misses from a full binary
 * search per gap. advance: move the cursor to the answer (only for
 * queries whose t never decreases during a device's sweep).
 */
static size_t seek(const struct gpa_model *m, enum seek_by by, const uint64_t *key,
		   const uint32_t *rows, size_t *cur, size_t hi, uint64_t t, bool advance)
{
	size_t lo = *cur, bound = 1, top;
#define KEY_(r)                                                                                    \
	(by == BY_ARRAY ? key[r] : gpa_kern_end(m, r))

	while (lo + bound <= hi && KEY_(rows[lo + bound - 1]) < t) {
		lo += bound;
		bound *= 2;
	}
	top = lo + bound < hi ? lo + bound : hi;
	while (lo < top) {
		size_t mid = lo + (top - lo) / 2;
		if (KEY_(rows[mid]) < t) {
			lo = mid + 1;
		} else {
			top = mid;
		}
	}
#undef KEY_
	if (advance) {
		*cur = lo;
	}
	return lo;
}

/* ------------------------------------------------------------ one gap */

/* Lays [a, b) clipped to [lo, hi) over the gap as cause cls; remembers the longest per cause. */
static void add_span(struct ctx *c, uint64_t a, uint64_t b, uint64_t lo, uint64_t hi, uint8_t cls,
		     enum span_kind kind, uint32_t src)
{
	a = a < lo ? lo : a;
	b = b > hi ? hi : b;
	if (a >= b) {
		return;
	}
	if (gp_vec_push(&c->ev, ((struct ev){a, 1, cls})) ||
	    gp_vec_push(&c->ev, ((struct ev){b, -1, cls}))) {
		c->nomem = true;
		return;
	}
	if (b - a > c->best[cls].len) {
		c->best[cls] = (struct best){b - a, src, (uint8_t)kind};
	}
}

static uint32_t op_api(const struct gpa_model *m, size_t g)
{
	uint32_t r = gpa_gpu_row(m, g);

	switch (gpa_gpu_kind(m, g)) {
	case GPA_GPU_KERNEL:
		return gpa_kern_api(m, r);
	case GPA_GPU_MEMCPY:
		return gpa_copy_api(m, r);
	case GPA_GPU_MEMSET:
		return gpa_set_api(m, r);
	default:
		GP_BUG("GPU operation %zu has kind %u", g, gpa_gpu_kind(m, g));
	}
}

/* The cause an API call's time stands for, or CLS_NONE. */
static uint8_t call_class(struct ctx *c, uint32_t r)
{
	const struct gpa_model *m = c->m;
	size_t lo = 0, hi = c->nblocking;
	uint32_t s = gpa_api_name(m, r);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->blocking[mid] < r) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo < c->nblocking && c->blocking[lo] == r) {
		return GPA_GAP_SYNC;
	}
	if (c->scls[s] == CLS_UNSET) {
		c->scls[s] = classify_api(gpa_model_str(m, s));
	}
	return c->scls[s];
}

/* The first API row at or after *cur starting at or after t (galloping from *cur, which moves there). */
static size_t seek_api(const struct gpa_model *m, size_t *cur, uint64_t t)
{
	size_t lo = *cur, bound = 1, top, hi = gpa_api_rows(m);

	while (lo + bound <= hi && gpa_api_start(m, lo + bound - 1) < t) {
		lo += bound;
		bound *= 2;
	}
	top = lo + bound < hi ? lo + bound : hi;
	while (lo < top) {
		size_t mid = lo + (top - lo) / 2;
		if (gpa_api_start(m, mid) < t) {
			lo = mid + 1;
		} else {
			top = mid;
		}
	}
	*cur = lo;
	return lo;
}

/*
 * The thread's API calls overlapping [h0, h1), by class; own: the launch
 * call of the op. Its calls are picked from the table's rows in start order.
 */
static void thread_calls(struct ctx *c, uint32_t th, uint64_t h0, uint64_t h1, uint32_t own)
{
	const struct gpa_model *m = c->m;
	size_t k = seek_api(m, &c->acur, h0);

	/* Calls that started earlier and still run at h0: back to the nearest top-level one. */
	for (size_t r = k; r-- > c->afirst[th] && c->afirst[th] != UINT32_MAX;) {
		if (gpa_api_thread(m, r) != th) {
			continue;
		}
		uint8_t cls = r == own ? GPA_GAP_LAUNCH : call_class(c, (uint32_t)r);
		if (gpa_api_end(m, r) > h0 && cls != CLS_NONE) {
			add_span(c, gpa_api_start(m, r), gpa_api_end(m, r), h0, h1, cls, SPAN_API,
				 (uint32_t)r);
		}
		if (c->atop[r / 8] >> (r % 8) & 1) {
			break;
		}
	}
	for (size_t r = k; r < gpa_api_rows(m) && gpa_api_start(m, r) < h1; r++) {
		if (gpa_api_thread(m, r) != th) {
			continue;
		}
		uint8_t cls = r == own ? GPA_GAP_LAUNCH : call_class(c, (uint32_t)r);
		if (cls != CLS_NONE) {
			add_span(c, gpa_api_start(m, r), gpa_api_end(m, r), h0, h1, cls, SPAN_API,
				 (uint32_t)r);
		}
	}
}

/* Innermost push/pop range of the thread containing t, or GPA_NONE. */
static uint32_t nvtx_at(const struct ctx *c, uint32_t th, uint64_t t)
{
	const struct gpa_model *m = c->m;
	size_t lo = c->pfirst[th], hi = c->pfirst[th + 1];
	size_t k =
		seek(m, BY_ARRAY, gpa_nvtx_start_col(m), c->prows, &c->pcur[th], hi, t + 1, false);

	if (k == lo) {
		return GPA_NONE;
	}
	/* Ranges nest: those containing t are the last one started by t and its parents. */
	for (uint32_t r = c->prows[k - 1]; r != GPA_NONE; r = gpa_nvtx_parent(m, r)) {
		if (gpa_nvtx_end(m, r) > t) {
			return r;
		}
	}
	return GPA_NONE;
}

/* The thread's data-loader ranges overlapping [h0, h1). */
static void thread_data(struct ctx *c, uint32_t th, uint64_t h0, uint64_t h1)
{
	const struct gpa_model *m = c->m;
	size_t lo = c->pfirst[th], hi = c->pfirst[th + 1];
	size_t k =
		seek(m, BY_ARRAY, gpa_nvtx_start_col(m), c->prows, &c->pcur[th], hi, h0 + 1, true);

	/* Push/pop ranges running at h0: the chain of parents. */
	if (k > lo) {
		for (uint32_t r = c->prows[k - 1]; r != GPA_NONE; r = gpa_nvtx_parent(m, r)) {
			if (gpa_nvtx_end(m, r) > h0 && c->dl[gpa_nvtx_name(m, r)] == 2) {
				add_span(c, gpa_nvtx_start(m, r), gpa_nvtx_end(m, r), h0, h1,
					 GPA_GAP_DATA, SPAN_NVTX, r);
			}
		}
	}
	for (size_t j = k; j < hi && gpa_nvtx_start(m, c->prows[j]) < h1; j++) {
		uint32_t r = c->prows[j];
		if (c->dl[gpa_nvtx_name(m, r)] == 2) {
			add_span(c, gpa_nvtx_start(m, r), gpa_nvtx_end(m, r), h0, h1, GPA_GAP_DATA,
				 SPAN_NVTX, r);
		}
	}
	/* Start/end ranges need not nest: back while some earlier one still reaches h0. */
	lo = c->sfirst[th];
	hi = c->sfirst[th + 1];
	k = seek(m, BY_ARRAY, gpa_nvtx_start_col(m), c->srows, &c->scur[th], hi, h0, true);
	for (size_t j = k; j-- > lo && c->smax[j] > h0;) {
		uint32_t r = c->srows[j];
		add_span(c, gpa_nvtx_start(m, r), gpa_nvtx_end(m, r), h0, h1, GPA_GAP_DATA,
			 SPAN_NVTX, r);
	}
	for (size_t j = k; j < hi && gpa_nvtx_start(m, c->srows[j]) < h1; j++) {
		uint32_t r = c->srows[j];
		add_span(c, gpa_nvtx_start(m, r), gpa_nvtx_end(m, r), h0, h1, GPA_GAP_DATA,
			 SPAN_NVTX, r);
	}
}

/* The process's CUPTI overhead records overlapping [h0, h1). */
static void proc_overhead(struct ctx *c, uint32_t p, uint64_t h0, uint64_t h1)
{
	const struct gpa_model *m = c->m;
	size_t lo = c->ofirst[p], hi = c->ofirst[p + 1];
	size_t k = seek(m, BY_ARRAY, gpa_ovh_start_col(m), c->orows, &c->ocur[p], hi, h0, true);

	for (size_t j = k; j-- > lo && c->omax[j] > h0;) {
		uint32_t r = c->orows[j];
		uint8_t cls = classify_overhead(gpa_ovh_kind(m, r));
		add_span(c, gpa_ovh_start(m, r), gpa_ovh_end(m, r), h0, h1, cls, SPAN_OVH, r);
	}
	for (size_t j = k; j < hi && gpa_ovh_start(m, c->orows[j]) < h1; j++) {
		uint32_t r = c->orows[j];
		uint8_t cls = classify_overhead(gpa_ovh_kind(m, r));
		add_span(c, gpa_ovh_start(m, r), gpa_ovh_end(m, r), h0, h1, cls, SPAN_OVH, r);
	}
}

/*
 * NCCL evidence for a gap [g0, g1) ended by op on device dev: the op whose
 * end began the gap is an NCCL kernel on another stream, or an NCCL kernel
 * on another device of the process ends inside the gap (the latest such).
 * Returns its gpa_model.kern row or GPA_NONE.
 */
static uint32_t nccl_waited(const struct ctx *c, size_t op, size_t prev, uint64_t g0, uint64_t g1)
{
	const struct gpa_model *m = c->m;
	uint16_t dev = gpa_gpu_dev(m, op);
	uint32_t p = gpa_dev_proc(m, dev);

	if (gpa_gpu_kind(m, prev) == GPA_GPU_KERNEL && c->cc->kern[gpa_gpu_row(m, prev)] != GPA_COMM_NOT &&
	    gpa_gpu_stream(m, prev) != gpa_gpu_stream(m, op)) {
		return gpa_gpu_row(m, prev);
	}
	size_t hi = c->nfirst[p + 1], found = GPA_NONE;
	/* First NCCL kernel ending after g0. */
	size_t lo = seek(m, BY_KERN_END, NULL, c->nrows, &c->ncur[p], hi, g0 + 1, true);

	for (size_t j = lo; j < hi && gpa_kern_end(m, c->nrows[j]) <= g1; j++) {
		if (gpa_kern_dev(m, c->nrows[j]) != dev) {
			found = c->nrows[j];
		}
	}
	return (uint32_t)found;
}

/* The last stream-wait-event record on the op's stream issued at or before t. */
static uint32_t stream_wait(const struct ctx *c, size_t op, uint64_t t)
{
	const struct gpa_model *m = c->m;
	uint32_t p = gpa_dev_proc(m, gpa_gpu_dev(m, op)), s = gpa_gpu_stream(m, op);
	size_t lo = c->wfirst[p], hi = c->wfirst[p + 1];
	uint32_t found = GPA_NONE;

	/* Rows are by stream then start: first row past (s, t). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t r = c->wrows[mid];
		if (gpa_sync_stream(m, r) < s ||
		    (gpa_sync_stream(m, r) == s && gpa_sync_start(m, r) <= t)) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo > c->wfirst[p] && gpa_sync_stream(m, c->wrows[lo - 1]) == s) {
		found = c->wrows[lo - 1];
	}
	return found;
}

static int cmp_ev(const void *x, const void *y)
{
	const struct ev *a = x, *b = y;

	return a->t < b->t ? -1 : a->t > b->t;
}

/* Classifies gap [g0, g1) that op ends and prev began; fills *gap. */
static void classify(struct ctx *c, size_t op, size_t prev, uint64_t g0, uint64_t g1,
		     struct gpa_gap *gap)
{
	const struct gpa_model *m = c->m;
	uint32_t a = op_api(m, op), th = GPA_NONE, nccl = GPA_NONE;
	uint64_t hq, ns[GPA_GAP__COUNT] = {0};
	uint8_t hbase, qbase = GPA_GAP_UNKNOWN;

	*gap = (struct gpa_gap){
		.start = g0, .end = g1, .dev = gpa_gpu_dev(m, op), .step = GPA_NONE,
		.op = (uint32_t)op, .prev_op = (uint32_t)prev, .launch = a, .thread = GPA_NONE,
		.context = GPA_NONE, .ev_api = GPA_NONE, .ev_nvtx = GPA_NONE,
		.ev_ovh = GPA_NONE, .ev_kernel = GPA_NONE, .ev_sync = GPA_NONE,
		.drain = GPA_NONE,
	};
	c->ev.n = 0;
	memset(c->best, 0, sizeof(c->best));
	/*
	 * Host side H = [g0, hq): until the launch call returned. Queued Q = [hq, g1).
	 * Without a launch call the whole gap is host side with no thread to look at.
	 */
	if (a != GPA_NONE) {
		th = gpa_api_thread(m, a);
		hq = gpa_api_end(m, a) < g0 ? g0 : gpa_api_end(m, a);
		hq = hq > g1 ? g1 : hq;
		hbase = GPA_GAP_CPU;
		gap->thread = th;
		gap->context = gpa_api_nvtx(m, a);
		gap->queued = gpa_api_end(m, a) <= g0;
	} else {
		hq = g1;
		nccl = nccl_waited(c, op, prev, g0, g1);
		hbase = nccl != GPA_NONE ? GPA_GAP_COMM : GPA_GAP_UNKNOWN;
	}
	if (hq < g1) {
		nccl = nccl_waited(c, op, prev, g0, g1);
		if (nccl != GPA_NONE) {
			qbase = GPA_GAP_COMM;
		} else if (g1 - hq < c->latency) {
			qbase = GPA_GAP_LAUNCH; /* the device starting queued work back to back */
		} else {
			qbase = GPA_GAP_DEPENDENCY;
		}
	}
	if (hq > g0) {
		proc_overhead(c, gpa_dev_proc(m, gap->dev), g0, hq);
		if (th != GPA_NONE) {
			thread_calls(c, th, g0, hq, a);
			thread_data(c, th, g0, hq);
		}
	}
	/* Each instant: the highest-precedence explanation active, else the base. */
	if (c->ev.n) {
		gp_qsort(c->ev.v, c->ev.n, sizeof(*c->ev.v), cmp_ev);
	}
	int cnt[GPA_GAP__COUNT] = {0}; /* intervals open now, by cause */
	size_t i = 0;
	for (uint64_t t = g0; t < g1;) {
		while (i < c->ev.n && c->ev.v[i].t <= t) {
			cnt[c->ev.v[i].cls] += c->ev.v[i].d;
			i++;
		}
		uint64_t next = g1;
		if (i < c->ev.n && c->ev.v[i].t < next) {
			next = c->ev.v[i].t;
		}
		if (hq > t && hq < next) {
			next = hq;
		}
		uint8_t cls = t < hq ? hbase : qbase;
		for (size_t k = 0; k < sizeof(span_precedence); k++) {
			if (cnt[span_precedence[k]] > 0) {
				cls = span_precedence[k];
				break;
			}
		}
		ns[cls] += next - t;
		t = next;
	}
	uint8_t win = tie_order[0];
	for (size_t k = 1; k < sizeof(tie_order); k++) {
		if (ns[tie_order[k]] > ns[win]) {
			win = tie_order[k];
		}
	}
	gap->cause = win;
	gap->cause_ns = ns[win];
	/* Evidence for the winner. */
	const struct best *b = &c->best[win];
	switch (win) {
	case GPA_GAP_PROFILER:
		gap->ev_ovh = b->src;
		break;
	case GPA_GAP_DATA:
		gap->ev_nvtx = b->src;
		break;
	case GPA_GAP_SYNC:
	case GPA_GAP_MEMORY:
	case GPA_GAP_JIT:
		if (b->kind == SPAN_OVH) {
			gap->ev_ovh = b->src;
		} else {
			gap->ev_api = b->src;
		}
		break;
	case GPA_GAP_LAUNCH:
		gap->ev_api = b->len ? b->src : a;
		break;
	case GPA_GAP_CPU:
		gap->ev_nvtx = nvtx_at(c, th, g0 + (hq - g0) / 2);
		break;
	case GPA_GAP_COMM:
		gap->ev_kernel = nccl;
		break;
	case GPA_GAP_DEPENDENCY:
		gap->ev_sync = stream_wait(c, op, gpa_api_start(m, a));
		if (gap->ev_sync == GPA_NONE) {
			gap->ev_api = a;
		}
		break;
	default:
		break;
	}
	if (win != GPA_GAP_SYNC && ns[GPA_GAP_SYNC]) {
		gap->drain = c->best[GPA_GAP_SYNC].src;
	}
}

/* ------------------------------------------------ conflicting evidence */

struct span3 {
	uint64_t p, s, e;
};

static int cmp_span3(const void *x, const void *y)
{
	const struct span3 *a = x, *b = y;

	if (a->p != b->p) {
		return a->p < b->p ? -1 : 1;
	}
	return a->s < b->s ? -1 : a->s > b->s;
}

/* Sorts v and merges overlapping spans of one process; returns the new count. */
static size_t merge_spans(struct span3 *v, size_t n)
{
	size_t k = 0;

	gp_qsort(v, n, sizeof(*v), cmp_span3);
	for (size_t i = 0; i < n; i++) {
		if (k && v[k - 1].p == v[i].p && v[i].s <= v[k - 1].e) {
			v[k - 1].e = v[i].e > v[k - 1].e ? v[i].e : v[k - 1].e;
		} else {
			v[k++] = v[i];
		}
	}
	return k;
}

/*
 * The data-loader ranges' time, and how much of it a GPU of the same process
 * was busy (gpa_gaps.data_*): both as unions per process, intersected.
 */
static int data_conflict(struct ctx *c)
{
	const struct gpa_model *m = c->m;
	struct gpa_gaps *out = c->out;
	struct span3 *r = NULL, *g = NULL;
	size_t nr = 0, ng = 0;
	uint8_t *want = NULL;
	int ret = -GP_ERR_NOMEM;

	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		nr += gpa_nvtx_type(m, i) != GPT_NVTX_MARK && c->dl[gpa_nvtx_name(m, i)] == 2;
	}
	out->data_ranges = nr;
	if (!nr) {
		return 0;
	}
	r = malloc(nr * sizeof(*r));
	want = calloc(m->procs.n ? m->procs.n : 1, 1);
	if (!r || !want) {
		goto out;
	}
	nr = 0;
	for (size_t i = 0; i < gpa_nvtx_rows(m); i++) {
		if (gpa_nvtx_type(m, i) != GPT_NVTX_MARK && c->dl[gpa_nvtx_name(m, i)] == 2) {
			uint32_t p = m->threads.v[gpa_nvtx_thread(m, i)].proc;
			r[nr++] = (struct span3){p, gpa_nvtx_start(m, i), gpa_nvtx_end(m, i)};
			want[p] = 1;
		}
	}
	for (size_t i = 0; i < gpa_gpu_rows(m); i++) {
		ng += want[gpa_dev_proc(m, gpa_gpu_dev(m, i))];
	}
	g = malloc((ng ? ng : 1) * sizeof(*g));
	if (!g) {
		goto out;
	}
	ng = 0;
	for (size_t i = 0; i < gpa_gpu_rows(m); i++) {
		uint32_t p = gpa_dev_proc(m, gpa_gpu_dev(m, i));
		if (want[p]) {
			g[ng++] = (struct span3){p, gpa_gpu_start(m, i), gpa_gpu_end(m, i)};
		}
	}
	nr = merge_spans(r, nr);
	ng = merge_spans(g, ng);
	for (size_t i = 0, j = 0; i < nr; i++) {
		out->data_range_ns += r[i].e - r[i].s;
		while (j < ng && (g[j].p < r[i].p || (g[j].p == r[i].p && g[j].e <= r[i].s))) {
			j++;
		}
		for (size_t k = j; k < ng && g[k].p == r[i].p && g[k].s < r[i].e; k++) {
			uint64_t s = g[k].s > r[i].s ? g[k].s : r[i].s;
			uint64_t e = g[k].e < r[i].e ? g[k].e : r[i].e;
			out->data_gpu_busy_ns += e > s ? e - s : 0;
		}
	}
	out->data_conflict = out->data_range_ns &&
			     out->data_gpu_busy_ns * 100 >=
				     out->data_range_ns * (uint64_t)GPA_GAP_DATA_CONFLICT_PCT;
	ret = 0;
out:
	free(r);
	free(g);
	free(want);
	return ret;
}

/* ------------------------------------------------------------ totals */

static unsigned bucket_of(uint64_t len)
{
	unsigned b = 0;

	while (b + 1 < GPA_GAP_BUCKETS && len >= gpa_gap_bucket_lo[b + 1]) {
		b++;
	}
	return b;
}

static void totals_gap(struct gpa_gap_totals *t, const struct gpa_gap *g, uint64_t min_gap)
{
	uint64_t len = g->end - g->start;
	unsigned b = bucket_of(len);

	t->gaps++;
	t->idle += len;
	if (len >= min_gap) {
		t->listed++;
		t->listed_ns += len;
	}
	t->longest = len > t->longest ? len : t->longest;
	t->cause_ns[g->cause] += len;
	t->cause_n[g->cause]++;
	t->hist_n[b]++;
	t->hist_ns[b] += len;
}

static void totals_sum(struct gpa_gap_totals *d, const struct gpa_gap_totals *s)
{
	d->window += s->window;
	d->busy += s->busy;
	d->idle += s->idle;
	d->ops += s->ops;
	d->gaps += s->gaps;
	d->listed += s->listed;
	d->listed_ns += s->listed_ns;
	d->longest = s->longest > d->longest ? s->longest : d->longest;
	for (int k = 0; k < GPA_GAP__COUNT; k++) {
		d->cause_ns[k] += s->cause_ns[k];
		d->cause_n[k] += s->cause_n[k];
	}
	for (int b = 0; b < GPA_GAP_BUCKETS; b++) {
		d->hist_n[b] += s->hist_n[b];
		d->hist_ns[b] += s->hist_ns[b];
	}
}

/* x ranks before y in the list of longest gaps. */
static bool longer(const struct gpa_gap *x, const struct gpa_gap *y)
{
	uint64_t a = x->end - x->start, b = y->end - y->start;

	if (a != b) {
		return a > b;
	}
	if (x->start != y->start) {
		return x->start < y->start;
	}
	return x->dev < y->dev;
}

/* Keeps the top N in a heap whose root is the one that ranks last. */
static int keep(struct ctx *c, const struct gpa_gap *g)
{
	struct gpa_gap *h = c->out->top.v;
	size_t n = c->out->top.n, i;

	if (!c->top || g->end - g->start < c->min_gap) {
		return 0;
	}
	if (n < c->top) {
		if (gp_vec_push(&c->out->top, *g)) {
			return -GP_ERR_NOMEM;
		}
		h = c->out->top.v;
		for (i = n; i && longer(&h[(i - 1) / 2], &h[i]); i = (i - 1) / 2) {
			struct gpa_gap t = h[i];
			h[i] = h[(i - 1) / 2];
			h[(i - 1) / 2] = t;
		}
		return 0;
	}
	if (!longer(g, &h[0])) {
		return 0;
	}
	h[0] = *g;
	for (i = 0;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;
		if (l < n && longer(&h[w], &h[l])) {
			w = l;
		}
		if (r < n && longer(&h[w], &h[r])) {
			w = r;
		}
		if (w == i) {
			break;
		}
		struct gpa_gap t = h[i];
		h[i] = h[w];
		h[w] = t;
		i = w;
	}
	return 0;
}

static int cmp_longer(const void *x, const void *y)
{
	return longer(x, y) ? -1 : longer(y, x) ? 1 : 0;
}

/* ------------------------------------------------------------ devices */

static int open_stretch(struct ctx *c, uint32_t step, uint16_t dev, uint64_t start)
{
	struct gpa_gaps_step s = {.step = step, .dev = dev, .start = start, .end = start};

	return gp_vec_push(&c->out->steps, s);
}

static void close_stretch(struct ctx *c, uint64_t end)
{
	struct gpa_gaps_step *s = &c->out->steps.v[c->out->steps.n - 1];

	s->end = end;
	s->t.window = end - s->start;
	s->t.busy = s->t.window - s->t.idle;
}

static int scan_device(struct ctx *c, uint16_t d)
{
	const struct gpa_model *m = c->m;
	const struct gpa_dev *dv = &m->devs.v[d];
	size_t f = dv->gpu_first, e = f + dv->gpu_count;
	uint32_t cur = c->steps ? gpa_step_of(c->steps, f) : GPA_NONE;
	struct gpa_gaps_dev gd = {.dev = d, .first = gpa_gpu_start(m, f)};
	uint64_t busy_end = gpa_gpu_end(m, f);
	size_t prev = f;

	/* Searches restart for each device: its gaps come in time order. */
	c->acur = 0;
	memcpy(c->pcur, c->pfirst, m->threads.n * sizeof(*c->pcur));
	memcpy(c->scur, c->sfirst, m->threads.n * sizeof(*c->scur));
	memcpy(c->ocur, c->ofirst, m->procs.n * sizeof(*c->ocur));
	memcpy(c->ncur, c->nfirst, m->procs.n * sizeof(*c->ncur));
	if (c->steps && open_stretch(c, cur, d, gd.first)) {
		return -GP_ERR_NOMEM;
	}
	gd.t.ops = 1;
	if (c->steps) {
		c->out->steps.v[c->out->steps.n - 1].t.ops++;
	}
	for (size_t g = f + 1; g < e; g++) {
		uint64_t s = gpa_gpu_start(m, g);
		bool gap = s > busy_end;
		if (c->steps) {
			uint32_t k = gpa_step_of(c->steps, g);
			/* A later step's first op starts its stretch (with the gap before it). */
			if (k != GPA_NONE && (cur == GPA_NONE || k > cur)) {
				uint64_t b = gap ? busy_end : s;
				close_stretch(c, b);
				if (open_stretch(c, k, d, b)) {
					return -GP_ERR_NOMEM;
				}
				cur = k;
			}
			c->out->steps.v[c->out->steps.n - 1].t.ops++;
		}
		gd.t.ops++;
		if (gap) {
			struct gpa_gap gp;
			classify(c, g, prev, busy_end, s, &gp);
			if (c->nomem) {
				return -GP_ERR_NOMEM;
			}
			gp.step = c->steps ? cur : GPA_NONE;
			totals_gap(&gd.t, &gp, c->min_gap);
			if (c->steps) {
				struct gpa_gaps_step *st = &c->out->steps.v[c->out->steps.n - 1];
				totals_gap(&st->t, &gp, c->min_gap);
			}
			if (keep(c, &gp)) {
				return -GP_ERR_NOMEM;
			}
		}
		if (gpa_gpu_end(m, g) > busy_end) {
			busy_end = gpa_gpu_end(m, g);
			prev = g;
		}
	}
	if (c->steps) {
		close_stretch(c, busy_end);
	}
	gd.last = busy_end;
	gd.t.window = busy_end - gd.first;
	gd.t.busy = gd.t.window - gd.t.idle;
	totals_sum(&c->out->all, &gd.t);
	return gp_vec_push(&c->out->devs, gd);
}

int gpa_gaps_analyze(const struct gpa_model *m, const struct gpa_steps *steps,
		     const struct gpa_gaps_opts *opts, struct gpa_gaps *out, char *errbuf,
		     size_t errlen)
{
	struct gpa_gaps_opts defaults;
	struct ctx c = {.m = m, .steps = steps, .out = out};
	pcre2_code *re = NULL;
	bool any = false;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!opts) {
		gpa_gaps_opts_init(&defaults);
		opts = &defaults;
	}
	c.min_gap = opts->min_gap_ns;
	c.latency = opts->latency_ns;
	c.top = opts->top;
	out->min_gap_ns = opts->min_gap_ns;
	out->latency_ns = opts->latency_ns;
	out->top_n = opts->top;
	out->data_pattern = strdup(opts->data_regex ? opts->data_regex : GPA_GAP_DATA_PATTERN);
	if (!out->data_pattern) {
		ret = -GP_ERR_NOMEM;
		goto out;
	}
	for (size_t d = 0; d < m->devs.n; d++) {
		any |= opts->device < 0 || m->devs.v[d].id == opts->device;
	}
	if (!any && opts->device >= 0) {
		snprintf(errbuf, errlen, "no device %" PRId64 " in the trace", opts->device);
		ret = -GP_ERR_NOTFOUND;
		goto out;
	}
	ret = compile(out->data_pattern, &re, errbuf, errlen);
	if (ret) {
		goto out;
	}
	c.cc = opts->comm;
	if (!c.cc) {
		ret = gpa_commclass_compute(m, NULL, &c.own_cc, errbuf, errlen);
		if (ret) {
			goto out;
		}
		c.cc = &c.own_cc;
	}
	ret = build_index(&c, re);
	if (!ret) {
		ret = data_conflict(&c);
	}
	for (size_t d = 0; !ret && d < m->devs.n; d++) {
		if (m->devs.v[d].gpu_count &&
		    (opts->device < 0 || m->devs.v[d].id == opts->device)) {
			ret = scan_device(&c, (uint16_t)d);
		}
	}
	if (!ret && out->top.n) {
		gp_qsort(out->top.v, out->top.n, sizeof(*out->top.v), cmp_longer);
	}
out:
	if (ret == -GP_ERR_NOMEM) {
		snprintf(errbuf, errlen, "out of memory analyzing idle gaps");
	}
	pcre2_code_free(re);
	ctx_release(&c);
	return ret;
}

void gpa_gaps_release(struct gpa_gaps *g)
{
	free(g->data_pattern);
	gp_vec_free(&g->devs);
	gp_vec_free(&g->steps);
	gp_vec_free(&g->top);
	memset(g, 0, sizeof(*g));
}
