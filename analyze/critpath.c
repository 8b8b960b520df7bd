/* SPDX-License-Identifier: MIT */
/*
 * critpath.c - the critical path of each step and what-if re-timing
 * (analyze/critpath.h has the graph and its rules; docs/critical-path.md).
 *
 * Each node has two points, its start S and its end E. Start edges come
 * from another node's end (or, for a launch, from the launch call's start);
 * a host synchronization has an end edge from the GPU op it waited for.
 * Each re-timing walks the points depth first over their predecessors
 * (retime()), so the graph keeps no successor lists and no order; the path
 * is traced back along the edge that set each point.
 */
#include "base/compat.h"
#include "analyze/critpath.h"
#include "analyze/commclass.h"
#include "analyze/gaps.h"
#include "analyze/model.h"
#include "analyze/steps.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_API = 0, N_GPU = 1, N_END = 2 };
#define B_ROOT 3
/*
 * Graphs of at most this many nodes keep each node's recorded times beside
 * it (24 bytes a node) rather than reading them from the model's encoded
 * columns at every look; a larger graph (one window over a whole trace)
 * reads the model.
 */
#define REC_MAX (1u << 20)
#define RADIX_BITS 11
/* Fewer GPU ops than this in the steps: one thread (a second would cost more than it saves). */
#define SPLIT_MIN_OPS 65536
#define WALK_MAX 256 /* ops looked at, at most, for one wait or cross-stream edge */
#define NAME_SYNC 1u   /* a *Synchronize call */
#define NAME_ASYNC 2u  /* an *Async call */
#define NAME_QUERY 4u  /* an event or stream query: a host polling the GPU */
#define NAME_WARM 8u   /* one-off start-up: context, module and library loading */
#define NAME_SEEN 128u /* looked at */
/*
 * A host gap ending within SPIN_EPS_NS after a GPU op finished, when that op
 * was already running as the gap began and the gap is at least SPIN_GAP_NS,
 * is the host spinning on the GPU (a flag a kernel sets), not host work.
 */
#define SPIN_EPS_NS 10000
#define SPIN_GAP_NS 20000
/*
 * Launch latency: a GPU op that starts later than this after its launch call
 * returned, with its stream free, waited for something the graph does not
 * show (an event, another process, a device-wide wait): the rest is idle.
 */
#define LAUNCH_LAT_MAX_NS 1000000
/* The first call of a process lasting this long creates its context (lazy start-up). */
#define WARM_FIRST_NS 1000000
#define WARM_PATTERN                                                                               \
	"^(cu|hip)(Init|CtxCreate|DevicePrimaryCtxRetain|ModuleLoad|LibraryLoad|"                 \
	"ModuleGetFunction|LibraryGetKernel|GetProcAddress)|^(cuda|hip)GetDriverEntryPoint|"       \
	"^cudaDeviceReset"

/*
 * One node of the graph, 28 bytes: a window over a whole trace holds one a
 * call and one a GPU op. The recorded times are read from the model
 * (rec_s, rec_e); only the re-timed end is kept, the re-timed start is
 * recomputed from the edges when needed (start_of).
 */
struct node {
	uint64_t ne;   /* re-timed end */
	uint32_t p[3]; /* API, END: {thread, the GPU op it waited for (API only), -};
			* GPU: start edges {launch, stream, other stream} */
	uint32_t row;  /* api row, gpu row, or GPA_NONE */
	uint32_t kind : 2, cat : 4;
	uint32_t ob : 2;    /* the start edge that set the recorded start, or B_ROOT */
	uint32_t bs : 2;    /* re-timed: the start edge that set the start */
	uint32_t be : 1;    /* re-timed: 1 when the waited-for op set the end */
	uint32_t chg : 2;   /* 0 unchanged, 1 sped up, 2 removed */
	uint32_t carry : 4; /* GPU: 1 + the category of the op before it on its stream, outside
			     * the graph, that held it past its launch; 0 none */
	uint32_t ev : 1;    /* API: its wait came from event ids; GPU: p[2] is an event's edge */
	uint32_t mark : 4;  /* retime(): the state of its start (bits 0-1) and end (2-3) */
	uint32_t poll : 1;  /* API: a poll answered "not yet", passed over by a later call */
} __attribute__((packed, aligned(4)));

#define W_SLOT 1 /* an API node's p[] slot of the GPU op it waited for */

/* Host time inside data-loader ranges of one process. */
struct drange {
	uint32_t proc;
	uint64_t s, e;
};

/* A GPU node on its stream, by the time its launch call began. */
struct streamkey {
	uint64_t stream; /* proc << 32 | stream id */
	uint64_t t;
	uint32_t idx;
};

/* A CPU op the what-if changes, on its thread (merged per thread and change). */
struct cpuspan {
	uint32_t thread;
	uint8_t chg; /* 1 sped up, 2 removed */
	uint64_t s, e;
};

/* A node's recorded start and end, and a GPU op's device and stream, read from the model once. */
struct rec {
	uint64_t s, e;
	uint32_t stream; /* GPU: gpa_gpu_stream */
	uint16_t dev;    /* GPU: gpa_gpu_dev */
};

struct ctx {
	const struct gpa_model *m;
	const struct gpa_critpath_opts *o;
	pcre2_code *sp, *rm;
	pcre2_match_data *md;
	uint8_t *func_chg;  /* per func: 0 not looked at, else chg + 1 */
	uint8_t *name_flag; /* per string id: NAME_*, NAME_SEEN once looked at */
	pcre2_code *warm;   /* WARM_PATTERN */
	uint32_t *first_api; /* per process: its first API row, or GPA_NONE */
	uint32_t *first_k;   /* per function: its first kernel row, or GPA_NONE */
	/* data-loader ranges, per process merged and sorted: (proc, start, end) */
	GP_VEC(struct drange) data;
	struct gp_u64map syncs; /* api row -> sync row */
	bool have_rec;          /* some sync names the event recording it waits for */
	uint64_t *op_last;      /* per NCCL op: the last other rank's arrival; NULL none */
	uint32_t *tlast, *tstamp, stamp;
	GP_VEC(struct node) n;
	GP_VEC(struct rec) rec; /* per node of n, when the graph has at most REC_MAX nodes */
	bool recs;              /* this graph keeps rec */
	GP_VEC(uint32_t) amap;
	GP_VEC(uint32_t) byend;     /* the GPU nodes by (recorded end, index) */
	GP_VEC(uint64_t) endt;      /* their recorded ends, when the graph keeps rec */
	GP_VEC(uint64_t) ktmp;      /* radix_by_end's scratch */
	GP_VEC(uint32_t) itmp;
	GP_VEC(struct cpuspan) cpu; /* by (thread, chg, start), disjoint within each */
	bool wi;                    /* re-timing with the what-if */
	GP_VEC(struct streamkey) bystream;
	GP_VEC(uint32_t) stack; /* retime(): points still to time */
	uint64_t end_t;         /* the END node's time */
	uint32_t last_node;     /* retime(): the node whose start was timed last, */
	uint64_t last_ns;       /* and that start (its end is most often timed next) */
	GP_VEC(struct gpa_cp_seg) path; /* the longest segments of the path being traced */
	struct gpa_critpath *out;       /* the result (keep_path appends to out->path) */
	size_t path_mark;               /* out->path.n when the path being traced began */
	size_t nsegs;                   /* segments of that path */
	uint64_t copy_ns[GPA_CPC__COUNT], pageable_ns; /* its copies by direction */
	struct gp_u64map streams;
};

/* The recorded start of v from the model (the END node's time). */
static uint64_t model_s(const struct ctx *c, const struct node *v)
{
	if (v->kind == N_API) {
		return gpa_api_start(c->m, v->row);
	}
	return v->kind == N_GPU ? gpa_gpu_start(c->m, v->row) : c->end_t;
}

/* The recorded end of v from the model, never before its start. */
static uint64_t model_e(const struct ctx *c, const struct node *v)
{
	uint64_t s = model_s(c, v), e = c->end_t;

	if (v->kind == N_API) {
		e = gpa_api_end(c->m, v->row);
	} else if (v->kind == N_GPU) {
		e = gpa_gpu_end(c->m, v->row);
	}
	return e < s ? s : e;
}

/* v's recorded times as add_node kept them, or NULL (a graph too large to keep them). */
static const struct rec *rec_of(const struct ctx *c, const struct node *v)
{
	size_t i = ((uintptr_t)v - (uintptr_t)c->n.v) / sizeof(*v);

	return i < c->rec.n ? &c->rec.v[i] : NULL;
}

/* The recorded start of v (the model's, the END node's time). */
static uint64_t rec_s(const struct ctx *c, const struct node *v)
{
	const struct rec *r = rec_of(c, v);

	return r ? r->s : model_s(c, v);
}

/* The recorded end of v, never before its start. */
static uint64_t rec_e(const struct ctx *c, const struct node *v)
{
	const struct rec *r = rec_of(c, v);

	return r ? r->e : model_e(c, v);
}

/* The device and stream of GPU node v. */
static uint16_t op_dev(const struct ctx *c, const struct node *v)
{
	const struct rec *r = rec_of(c, v);

	return r ? r->dev : gpa_gpu_dev(c->m, v->row);
}

static uint32_t op_stream(const struct ctx *c, const struct node *v)
{
	const struct rec *r = rec_of(c, v);

	return r ? r->stream : gpa_gpu_stream(c->m, v->row);
}

/* The GPU op an API node waited for, or GPA_NONE. */
static uint32_t waited(const struct node *v)
{
	return v->kind == N_API ? v->p[W_SLOT] : GPA_NONE;
}

static const char *const cat_names[GPA_CP__COUNT] = {
	"cpu",  "launch-overhead", "kernel",       "copy",    "communication", "wait-stream",
	"wait-rank", "idle",       "synchronization", "data-loading", "warm-up",
};

const char *gpa_cp_cat_name(unsigned cat)
{
	return cat < GPA_CP__COUNT ? cat_names[cat] : "unknown";
}

unsigned gpa_cp_bound(const struct gpa_cp_path *p)
{
	unsigned best = 0;

	for (unsigned k = 1; k < GPA_CP__COUNT; k++) {
		if (p->cat_ns[k] > p->cat_ns[best]) {
			best = k;
		}
	}
	return best;
}

/* ------------------------------------------------------------ names */

static pcre2_code *compile(const char *what, const char *pat, char *errbuf, size_t errlen)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code,
				       &off, NULL);

	if (!re && code == PCRE2_ERROR_HEAP_FAILED) {
		snprintf(errbuf, errlen, "out of memory");
	} else if (!re) {
		PCRE2_UCHAR msg[128];
		pcre2_get_error_message(code, msg, sizeof(msg));
		snprintf(errbuf, errlen, "bad %s pattern '%s': %s at offset %zu", what, pat,
			 (const char *)msg, (size_t)off);
	}
	return re;
}

static bool re_match(const struct ctx *c, pcre2_code *re, const char *s)
{
	return re && pcre2_match(re, (PCRE2_SPTR)s, strlen(s), 0, 0, c->md, NULL) >= 0;
}

/* What the what-if does to kernel row k: 0 nothing, 1 speed up, 2 remove. */
static uint8_t kernel_change(struct ctx *c, uint32_t k)
{
	uint32_t f = gpa_kern_func(c->m, k);

	if (!c->sp && !c->rm) {
		return 0;
	}
	if (!c->func_chg[f]) {
		const struct gpa_func *fn = &c->m->funcs.v[f];
		const char *raw = gpa_model_str(c->m, fn->name);
		const char *dem = fn->demangled ? gpa_model_str(c->m, fn->demangled) : raw;
		uint8_t v = 0;
		if (re_match(c, c->rm, raw) || re_match(c, c->rm, dem)) {
			v = 2;
		} else if (re_match(c, c->sp, raw) || re_match(c, c->sp, dem)) {
			v = 1;
		}
		c->func_chg[f] = (uint8_t)(v + 1);
	}
	return (uint8_t)(c->func_chg[f] - 1);
}

static unsigned name_flags(struct ctx *c, uint32_t name)
{
	if (!c->name_flag[name]) {
		const char *s = gpa_model_str(c->m, name);
		unsigned v = NAME_SEEN;
		if (strstr(s, "Synchronize")) {
			v |= NAME_SYNC;
		}
		if (strstr(s, "Async")) {
			v |= NAME_ASYNC;
		}
		if (strstr(s, "Query")) {
			v |= NAME_QUERY;
		}
		if (c->warm && re_match(c, c->warm, s)) {
			v |= NAME_WARM;
		}
		c->name_flag[name] = (uint8_t)v;
	}
	return c->name_flag[name] & ~NAME_SEEN;
}

/* ------------------------------------------------------------ CPU ops */

static int cmp_cpuspan(const void *a, const void *b)
{
	const struct cpuspan *x = a, *y = b;

	if (x->thread != y->thread) {
		return x->thread < y->thread ? -1 : 1;
	}
	if (x->chg != y->chg) {
		return x->chg < y->chg ? -1 : 1;
	}
	return x->s < y->s ? -1 : x->s > y->s;
}

/*
 * The CPU ops (PyTorch operators, origin GPA_RANGE_CPU_OP) whose name the
 * what-if matches, merged per thread: nested matches count once.
 */
static int collect_cpu_ops(struct ctx *c)
{
	const struct gpa_model *m = c->m;
	uint8_t *seen = calloc(m->strs.off.n + 2, 1);
	size_t k = 0;

	if (!seen) {
		return -GP_ERR_NOMEM;
	}
	for (size_t r = 0; r < gpa_nvtx_rows(m); r++) {
		uint32_t name = gpa_nvtx_name(m, r);
		if (gpa_nvtx_origin(m, r) != GPA_RANGE_CPU_OP ||
		    gpa_nvtx_end(m, r) <= gpa_nvtx_start(m, r) || name > m->strs.off.n) {
			continue;
		}
		if (!seen[name]) {
			const char *str = gpa_model_str(c->m, name);
			uint8_t v = re_match(c, c->rm, str) ? 2 : re_match(c, c->sp, str) ? 1 : 0;
			seen[name] = (uint8_t)(v + 1);
		}
		if (seen[name] > 1) {
			struct cpuspan sp = {gpa_nvtx_thread(m, r), (uint8_t)(seen[name] - 1),
					     gpa_nvtx_start(m, r), gpa_nvtx_end(m, r)};
			if (gp_vec_push(&c->cpu, sp)) {
				free(seen);
				return -GP_ERR_NOMEM;
			}
		}
	}
	free(seen);
	if (!c->cpu.n) {
		return 0;
	}
	qsort(c->cpu.v, c->cpu.n, sizeof(*c->cpu.v), cmp_cpuspan);
	for (size_t i = 1; i < c->cpu.n; i++) {
		struct cpuspan *last = &c->cpu.v[k], *x = &c->cpu.v[i];
		if (x->thread == last->thread && x->chg == last->chg && x->s <= last->e) {
			last->e = x->e > last->e ? x->e : last->e;
		} else {
			c->cpu.v[++k] = *x;
		}
	}
	c->cpu.n = k + 1;
	return 0;
}

/* The ns of [a, b) on thread th inside matched CPU ops changed by chg. */
static uint64_t cpu_overlap(const struct ctx *c, uint32_t th, uint8_t chg, uint64_t a, uint64_t b)
{
	size_t lo = 0, hi = c->cpu.n;
	uint64_t sum = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cpuspan *x = &c->cpu.v[mid];
		if (x->thread < th || (x->thread == th && (x->chg < chg ||
							     (x->chg == chg && x->e <= a)))) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	for (; lo < c->cpu.n; lo++) {
		const struct cpuspan *x = &c->cpu.v[lo];
		if (x->thread != th || x->chg != chg || x->s >= b) {
			break;
		}
		uint64_t s = x->s > a ? x->s : a, e = x->e < b ? x->e : b;
		sum += e > s ? e - s : 0;
	}
	return sum;
}

/* The host time [a, b) of thread th takes under the what-if. */
static uint64_t cpu_retimed(const struct ctx *c, uint32_t th, uint64_t a, uint64_t b)
{
	if (!c->wi || !c->cpu.n || b <= a) {
		return b > a ? b - a : 0;
	}
	uint64_t rm = cpu_overlap(c, th, 2, a, b), sp = cpu_overlap(c, th, 1, a, b);
	uint64_t d = b - a, cut = rm + sp - (uint64_t)((double)sp / c->o->speedup + 0.5);

	return cut < d ? d - cut : 0;
}

/* The thread of an API or END node (END: its thread predecessor's). */
static uint32_t node_thread(const struct ctx *c, const struct node *v)
{
	if (v->kind == N_END) {
		v = v->p[0] != GPA_NONE ? &c->n.v[v->p[0]] : v;
	}
	return v->kind == N_API ? gpa_api_thread(c->m, v->row) : GPA_NONE;
}

/* ------------------------------------------------------------ other ranks */

struct collkey {
	uint64_t hash, seq;
	uint32_t func, idx;
};

static int cmp_collkey(const void *a, const void *b)
{
	const struct collkey *x = a, *y = b;

	if (x->hash != y->hash) {
		return x->hash < y->hash ? -1 : 1;
	}
	if (x->seq != y->seq) {
		return x->seq < y->seq ? -1 : 1;
	}
	if (x->func != y->func) {
		return x->func < y->func ? -1 : 1;
	}
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* When each NCCL op arrived: its first kernel's start, else its GPU start, else its call. */
static uint64_t *op_arrivals(const struct gpa_model *m)
{
	const struct gpa_nccl *n = m->nccl;
	uint64_t *arr = malloc(n->ops.n * sizeof(*arr));

	if (!arr) {
		return NULL;
	}
	for (size_t i = 0; i < n->ops.n; i++) {
		arr[i] = n->ops.v[i].gpu_start ? n->ops.v[i].gpu_start : n->ops.v[i].start;
	}
	for (size_t k = 0; n->kern_op && k < gpa_kern_rows(m); k++) {
		uint32_t op = n->kern_op[k];
		if (op < n->ops.n && gpa_kern_start(m, k) && gpa_kern_start(m, k) < arr[op]) {
			arr[op] = gpa_kern_start(m, k);
		}
	}
	return arr;
}

/*
 * Per NCCL op of a collective matched on two or more ranks, the latest
 * arrival of another rank (c->op_last; 0 where none).
 */
static int match_ranks(struct ctx *c)
{
	const struct gpa_model *m = c->m;
	const struct gpa_nccl *n = m->nccl;
	struct collkey *k;
	uint64_t *arr;
	size_t nk = 0;

	if (!n || !n->ops.n || !n->kern_op || m->procs.n < 2) {
		return 0;
	}
	k = malloc(n->ops.n * sizeof(*k));
	arr = op_arrivals(m);
	c->op_last = calloc(n->ops.n, sizeof(*c->op_last));
	if (!k || !arr || !c->op_last) {
		free(k);
		free(arr);
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < n->ops.n; i++) {
		const struct gpa_nccl_op *op = &n->ops.v[i];
		if (op->comm_hash && op->seq && !(op->flags & GPT_NCCL_P2P)) {
			k[nk++] = (struct collkey){op->comm_hash, op->seq, op->func, (uint32_t)i};
		}
	}
	if (nk) {
		qsort(k, nk, sizeof(*k), cmp_collkey);
	}
	for (size_t a = 0, b; a < nk; a = b) {
		uint64_t t1 = 0, t2 = 0; /* latest arrival, and latest of another process */
		uint32_t p1 = GPA_NONE;
		for (b = a; b < nk && k[b].hash == k[a].hash && k[b].seq == k[a].seq &&
			    k[b].func == k[a].func;
		     b++) {
			uint32_t p = n->ops.v[k[b].idx].proc;
			uint64_t t = arr[k[b].idx];
			if (t >= t1) {
				t2 = p != p1 ? t1 : t2;
				t1 = t;
				p1 = p;
			} else if (p != p1 && t > t2) {
				t2 = t;
			}
		}
		for (size_t i = a; i < b && t2; i++) {
			c->op_last[k[i].idx] = n->ops.v[k[i].idx].proc == p1 ? t2 : t1;
		}
	}
	free(k);
	free(arr);
	return 0;
}

int gpa_cp_arrivals(const struct gpa_model *m, int64_t shift, uint32_t proc,
		    struct gpa_cp_arrival **out, size_t *nout)
{
	const struct gpa_nccl *n = m->nccl;
	uint64_t *arr;
	size_t k = 0;

	*out = NULL;
	*nout = 0;
	if (!n || !n->ops.n) {
		return 0;
	}
	arr = op_arrivals(m);
	*out = malloc(n->ops.n * sizeof(**out));
	if (!arr || !*out) {
		free(arr);
		free(*out);
		*out = NULL;
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < n->ops.n; i++) {
		const struct gpa_nccl_op *op = &n->ops.v[i];
		if (op->comm_hash && op->seq && !(op->flags & GPT_NCCL_P2P)) {
			(*out)[k++] = (struct gpa_cp_arrival){
				.hash = op->comm_hash, .seq = op->seq,
				.func = gpa_model_str(m, op->func),
				.start = (uint64_t)((int64_t)op->start + shift),
				.t = (uint64_t)((int64_t)arr[i] + shift), .proc = proc,
				.op = (uint32_t)i};
		}
	}
	free(arr);
	*nout = k;
	return 0;
}

/* By collective, then as a model of every rank orders its ops (host start, then rank). */
static int cmp_arrival(const void *a, const void *b)
{
	const struct gpa_cp_arrival *x = a, *y = b;
	int c;

	if (x->hash != y->hash) {
		return x->hash < y->hash ? -1 : 1;
	}
	if (x->seq != y->seq) {
		return x->seq < y->seq ? -1 : 1;
	}
	if ((c = strcmp(x->func, y->func))) {
		return c;
	}
	if (x->start != y->start) {
		return x->start < y->start ? -1 : 1;
	}
	if (x->proc != y->proc) {
		return x->proc < y->proc ? -1 : 1;
	}
	return x->op < y->op ? -1 : x->op > y->op;
}

void gpa_cp_match_arrivals(struct gpa_cp_arrival *v, size_t n)
{
	if (n) {
		qsort(v, n, sizeof(*v), cmp_arrival);
	}
	/* the same walk as match_ranks */
	for (size_t a = 0, b; a < n; a = b) {
		uint64_t t1 = 0, t2 = 0;
		uint32_t p1 = GPA_NONE;
		for (b = a; b < n && v[b].hash == v[a].hash && v[b].seq == v[a].seq &&
			    !strcmp(v[b].func, v[a].func);
		     b++) {
			uint32_t p = v[b].proc;
			uint64_t t = v[b].t;
			if (t >= t1) {
				t2 = p != p1 ? t1 : t2;
				t1 = t;
				p1 = p;
			} else if (p != p1 && t > t2) {
				t2 = t;
			}
		}
		for (size_t i = a; i < b; i++) {
			v[i].last = !t2 ? 0 : v[i].proc == p1 ? t2 : t1;
		}
	}
}

/* The caller's last arrivals (critical-path --mpi), for a model with linked NCCL kernels. */
static int given_ranks(struct ctx *c)
{
	const struct gpa_nccl *n = c->m->nccl;

	if (!n || !n->ops.n || !n->kern_op || c->o->nop_last != n->ops.n) {
		return 0;
	}
	c->op_last = malloc(n->ops.n * sizeof(*c->op_last));
	if (!c->op_last) {
		return -GP_ERR_NOMEM;
	}
	memcpy(c->op_last, c->o->op_last, n->ops.n * sizeof(*c->op_last));
	return 0;
}

/* When the last other rank arrived at the collective GPU node v belongs to; 0 none. */
static uint64_t rank_wait(const struct ctx *c, const struct node *v)
{
	const struct gpa_model *m = c->m;

	if (!c->op_last || v->kind != N_GPU || gpa_gpu_kind(m, v->row) != GPA_GPU_KERNEL) {
		return 0;
	}
	uint32_t op = m->nccl->kern_op[gpa_gpu_row(m, v->row)];
	uint64_t t = op < m->nccl->ops.n ? c->op_last[op] : 0;
	uint64_t s = rec_s(c, v), e = rec_e(c, v);
	return t > s ? (t < e ? t : e) : 0;
}

/* ------------------------------------------------------------ building */

static int add_node(struct ctx *c, uint8_t kind, uint32_t row, uint8_t cat)
{
	struct node v = {.row = row, .kind = kind, .cat = cat, .ob = B_ROOT,
			 .p = {GPA_NONE, GPA_NONE, GPA_NONE}};
	struct rec r = {0};

	if (c->recs) {
		r.s = model_s(c, &v);
		r.e = model_e(c, &v);
		if (kind == N_GPU) {
			r.stream = gpa_gpu_stream(c->m, row);
			r.dev = gpa_gpu_dev(c->m, row);
		}
		if (gp_vec_push(&c->rec, r)) {
			return -GP_ERR_NOMEM;
		}
	}
	return gp_vec_push(&c->n, v);
}

/*
 * The category of API row r's own time: warm-up for start-up calls (by name,
 * or a process's first call lasting WARM_FIRST_NS: lazy context creation),
 * synchronization for synchronize and query calls, else CPU. A launch
 * call becomes launch overhead in add_gpu unless it is warm-up.
 */
static uint8_t api_cat(struct ctx *c, size_t r)
{
	const struct gpa_model *m = c->m;
	unsigned f = name_flags(c, gpa_api_name(m, r));
	uint32_t th = gpa_api_thread(m, r), p = m->threads.v[th].proc;

	if ((f & NAME_WARM) ||
	    (p < m->procs.n && c->first_api[p] == r && gpa_api_dur(m, r) >= WARM_FIRST_NS)) {
		return GPA_CP_WARMUP;
	}
	return (f & (NAME_SYNC | NAME_QUERY)) ? GPA_CP_SYNC : GPA_CP_CPU;
}

static size_t lower_bound_api(const struct gpa_model *m, uint64_t t)
{
	size_t lo = 0, hi = gpa_api_rows(m);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (gpa_api_start(m, mid) < t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/* Top-level API calls of proc (GPA_NONE: any) starting in [ws, we): nodes in thread order. */
static int add_apis(struct ctx *c, uint32_t proc, uint64_t ws, uint64_t we, size_t *lo_out)
{
	const struct gpa_model *m = c->m;
	size_t lo = lower_bound_api(m, ws), hi = lower_bound_api(m, we);

	*lo_out = lo;
	c->amap.n = 0;
	if (gp_vec_reserve(&c->amap, hi - lo + 1)) {
		return -GP_ERR_NOMEM;
	}
	c->amap.n = hi - lo;
	for (size_t r = lo; r < hi; r++) {
		uint32_t th = gpa_api_thread(m, r);
		c->amap.v[r - lo] = GPA_NONE;
		if (th >= m->threads.n || (proc != GPA_NONE && m->threads.v[th].proc != proc)) {
			continue;
		}
		bool have = c->tstamp[th] == c->stamp;
		if (have && gpa_api_start(m, r) < rec_e(c, &c->n.v[c->tlast[th]])) {
			c->amap.v[r - lo] = c->tlast[th]; /* nested in the thread's last call */
			continue;
		}
		uint32_t idx = (uint32_t)c->n.n;
		if (add_node(c, N_API, (uint32_t)r, api_cat(c, r))) {
			return -GP_ERR_NOMEM;
		}
		if (have) {
			c->n.v[idx].p[0] = c->tlast[th];
			c->n.v[idx].ob = 0;
		}
		c->tlast[th] = idx;
		c->tstamp[th] = c->stamp;
		c->amap.v[r - lo] = idx;
	}
	return 0;
}

static uint8_t gpu_cat(const struct ctx *c, size_t g)
{
	bool comm = gpa_commclass_gpu(c->o->comm, c->m, g);

	if (comm) {
		return GPA_CP_COMM;
	}
	return gpa_gpu_kind(c->m, g) == GPA_GPU_KERNEL ? GPA_CP_KERNEL : GPA_CP_COPY;
}

/*
 * Whether launch call a of GPU op g loaded its function's module: the first
 * launch of the function, lasting WARM_FIRST_NS (lazy module loading).
 */
static bool lazy_load(const struct ctx *c, size_t g, uint32_t a)
{
	const struct gpa_model *m = c->m;

	if (gpa_gpu_kind(m, g) != GPA_GPU_KERNEL || gpa_api_dur(m, a) < WARM_FIRST_NS) {
		return false;
	}
	uint32_t k = gpa_gpu_row(m, g);
	return c->first_k && c->first_k[gpa_kern_func(m, k)] == k;
}

/* GPU op row g as a node: its launch call and its stream predecessor. */
static int add_gpu(struct ctx *c, size_t g, size_t lo)
{
	const struct gpa_model *m = c->m;
	uint32_t idx = (uint32_t)c->n.n, a = gpa_gpu_api(m, g);
	uint64_t key = ((uint64_t)gpa_gpu_dev(m, g) << 32) | gpa_gpu_stream(m, g);
	uint64_t *prev;

	if (add_node(c, N_GPU, (uint32_t)g, gpu_cat(c, g))) {
		return -GP_ERR_NOMEM;
	}
	struct node *v = &c->n.v[idx];
	if (gpa_gpu_kind(m, g) == GPA_GPU_KERNEL) {
		v->chg = kernel_change(c, gpa_gpu_row(m, g));
	}
	if (a != GPA_NONE && a >= lo && a - lo < c->amap.n && c->amap.v[a - lo] != GPA_NONE) {
		struct node *l = &c->n.v[c->amap.v[a - lo]];
		uint64_t ve = rec_e(c, v);
		v->p[0] = c->amap.v[a - lo];
		l->cat = l->cat == GPA_CP_WARMUP || lazy_load(c, g, a) ? GPA_CP_WARMUP : GPA_CP_LAUNCH;
		/*
		 * A synchronous copy call waits for its copy; so does an "async"
		 * one that outlasts LAUNCH_LAT_MAX_NS and its copy (pageable memory).
		 */
		if (gpa_gpu_kind(m, g) == GPA_GPU_MEMCPY &&
		    (!(name_flags(c, gpa_api_name(m, a)) & NAME_ASYNC) ||
		     rec_e(c, l) - rec_s(c, l) > LAUNCH_LAT_MAX_NS) &&
		    ve > rec_s(c, l) && ve <= rec_e(c, l) &&
		    (l->p[W_SLOT] == GPA_NONE || rec_e(c, &c->n.v[l->p[W_SLOT]]) < ve)) {
			l->p[W_SLOT] = idx;
		}
	}
	prev = gp_u64map_find(&c->streams, key);
	if (prev) {
		v->p[1] = (uint32_t)*prev;
		*prev = idx;
	} else if (gp_u64map_put(&c->streams, key, idx) < 0) {
		return -GP_ERR_NOMEM;
	}
	return 0;
}

static int cmp_end(const void *a, const void *b, void *arg)
{
	const struct ctx *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t ex = rec_e(c, &c->n.v[x]), ey = rec_e(c, &c->n.v[y]);

	if (ex != ey) {
		return ex < ey ? -1 : 1;
	}
	return x < y ? -1 : x > y;
}

/*
 * byend and endt by (end, index): a stable radix sort of the ends above the
 * least, RADIX_BITS a pass, byend holding the nodes in index order before.
 */
static int radix_by_end(struct ctx *c)
{
	size_t n = c->byend.n, cnt[1u << RADIX_BITS];
	uint64_t lo = UINT64_MAX, hi = 0, *k = c->endt.v, *kt;
	uint32_t *v = c->byend.v, *vt;

	if (gp_vec_reserve(&c->ktmp, n) || gp_vec_reserve(&c->itmp, n)) {
		return -GP_ERR_NOMEM;
	}
	kt = c->ktmp.v;
	vt = c->itmp.v;
	for (size_t i = 0; i < n; i++) {
		lo = k[i] < lo ? k[i] : lo;
		hi = k[i] > hi ? k[i] : hi;
	}
	for (unsigned sh = 0; sh < 64 && ((hi - lo) >> sh); sh += RADIX_BITS) {
		size_t sum = 0;
		memset(cnt, 0, sizeof(cnt));
		for (size_t i = 0; i < n; i++) {
			cnt[((k[i] - lo) >> sh) & ((1u << RADIX_BITS) - 1)]++;
		}
		for (size_t b = 0; b < (1u << RADIX_BITS); b++) {
			size_t t = cnt[b];
			cnt[b] = sum;
			sum += t;
		}
		for (size_t i = 0; i < n; i++) {
			size_t at = cnt[((k[i] - lo) >> sh) & ((1u << RADIX_BITS) - 1)]++;
			kt[at] = k[i];
			vt[at] = v[i];
		}
		uint64_t *ks = k;
		uint32_t *vs = v;
		k = kt, v = vt, kt = ks, vt = vs;
	}
	if (k != c->endt.v) {
		memcpy(c->endt.v, k, n * sizeof(*k));
		memcpy(c->byend.v, v, n * sizeof(*v));
	}
	return 0;
}

/*
 * byend: the GPU nodes by (recorded end, index), sorted only when the graph
 * did not add them in that order; endt: their ends, when the graph keeps rec.
 */
static int sort_by_end(struct ctx *c)
{
	bool sorted = true;

	c->byend.n = 0;
	c->endt.n = 0;
	for (size_t i = 0; i < c->n.n; i++) {
		if (c->n.v[i].kind != N_GPU) {
			continue;
		}
		if (gp_vec_push(&c->byend, (uint32_t)i)) {
			return -GP_ERR_NOMEM;
		}
		size_t n = c->byend.n;
		if (sorted && n > 1 && cmp_end(&c->byend.v[n - 2], &c->byend.v[n - 1], c) > 0) {
			sorted = false;
		}
	}
	if (!c->recs || !c->byend.n) {
		if (!sorted) {
			qsort_r(c->byend.v, c->byend.n, sizeof(*c->byend.v), cmp_end, c);
		}
		return 0;
	}
	if (gp_vec_reserve(&c->endt, c->byend.n)) {
		return -GP_ERR_NOMEM;
	}
	for (size_t k = 0; k < c->byend.n; k++) {
		c->endt.v[k] = rec_e(c, &c->n.v[c->byend.v[k]]);
	}
	c->endt.n = c->byend.n;
	return sorted ? 0 : radix_by_end(c);
}

/* The recorded end of byend's k-th node. */
static uint64_t end_at(const struct ctx *c, size_t k)
{
	return c->endt.n ? c->endt.v[k] : rec_e(c, &c->n.v[c->byend.v[k]]);
}

/* Index in byend just past the last op ending at or before t. */
static size_t upper_bound_end(const struct ctx *c, uint64_t t)
{
	size_t lo = 0, hi = c->byend.n;

	if (c->endt.n) {
		/* without branches on the data (a conditional move): the answer is in [lo, lo + hi] */
		const uint64_t *a = c->endt.v;
		while (hi > 1) {
			size_t half = hi / 2;
			lo = a[lo + half] <= t ? lo + half : lo;
			hi -= half;
		}
		return lo + (a[lo] <= t);
	}

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (end_at(c, mid) <= t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/*
 * The op ending last in (after, until] that fits: same device as op `like`
 * on another stream (cross), or of proc on stream (wait; stream GPA_NONE any).
 */
static uint32_t find_op(const struct ctx *c, uint64_t after, uint64_t until, const struct node *like,
			uint32_t proc, uint32_t stream)
{
	const struct gpa_model *m = c->m;
	size_t i = upper_bound_end(c, until);
	uint16_t ldev = like ? op_dev(c, like) : 0;
	uint32_t lstream = like ? op_stream(c, like) : 0;

	for (unsigned k = 0; i > 0 && k < WALK_MAX; k++) {
		uint32_t idx = c->byend.v[--i];
		const struct node *x = &c->n.v[idx];
		if (end_at(c, i) <= after) {
			break;
		}
		if (like) {
			if (op_dev(c, x) == ldev && op_stream(c, x) != lstream) {
				return idx;
			}
		} else if (gpa_dev_proc(m, op_dev(c, x)) == proc &&
			   (stream == GPA_NONE || op_stream(c, x) == stream)) {
			return idx;
		}
	}
	return GPA_NONE;
}

/* The op before gpu row g on its stream (earlier rows of its device), or GPA_NONE. */
static uint32_t prev_on_stream(const struct ctx *c, uint32_t g)
{
	const struct gpa_model *m = c->m;
	uint32_t stream = gpa_gpu_stream(m, g);
	uint16_t dev = gpa_gpu_dev(m, g);

	for (unsigned k = 0; g > 0 && k < WALK_MAX; k++) {
		g--;
		if (gpa_gpu_dev(m, g) != dev) {
			break;
		}
		if (gpa_gpu_stream(m, g) == stream) {
			return g;
		}
	}
	return GPA_NONE;
}

/*
 * A GPU op with no stream predecessor in the graph that started after its
 * launch call had returned, while an earlier op of its stream (work of an
 * earlier step) still ran: its start is fixed, and the time before it is
 * that op's category.
 */
static void link_carry(struct ctx *c, struct node *v, int64_t t0)
{
	uint32_t q = prev_on_stream(c, v->row);

	if (q != GPA_NONE && gpa_gpu_end(c->m, q) > (uint64_t)(t0 < 0 ? 0 : t0) &&
	    gpa_gpu_end(c->m, q) <= rec_s(c, v) + 1000) {
		v->carry = (uint8_t)(1 + gpu_cat(c, q));
	}
}

/* ------------------------------------------------------------ event edges */

static int cmp_streamkey(const void *a, const void *b)
{
	const struct streamkey *x = a, *y = b;

	if (x->stream != y->stream) {
		return x->stream < y->stream ? -1 : 1;
	}
	if (x->t != y->t) {
		return x->t < y->t ? -1 : 1;
	}
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The GPU nodes of the graph by (proc, stream, launch time). */
static int index_streams(struct ctx *c)
{
	const struct gpa_model *m = c->m;

	c->bystream.n = 0;
	for (size_t i = 0; i < c->n.n; i++) {
		const struct node *v = &c->n.v[i];
		if (v->kind != N_GPU) {
			continue;
		}
		uint32_t g = v->row, a = gpa_gpu_api(m, g);
		struct streamkey k = {((uint64_t)gpa_dev_proc(m, gpa_gpu_dev(m, g)) << 32) |
					      gpa_gpu_stream(m, g),
				      a != GPA_NONE ? gpa_api_start(m, a) : gpa_gpu_start(m, g), (uint32_t)i};
		if (gp_vec_push(&c->bystream, k)) {
			return -GP_ERR_NOMEM;
		}
	}
	if (c->bystream.n) {
		qsort(c->bystream.v, c->bystream.n, sizeof(*c->bystream.v), cmp_streamkey);
	}
	return 0;
}

/*
 * The node of the first GPU op of (proc, stream) launched at or after t
 * (after: true), or of the last one launched before t; GPA_NONE.
 */
static uint32_t op_at(const struct ctx *c, uint32_t proc, uint32_t stream, uint64_t t, bool after)
{
	uint64_t key = ((uint64_t)proc << 32) | stream;
	size_t lo = 0, hi = c->bystream.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct streamkey *k = &c->bystream.v[mid];
		if (k->stream < key || (k->stream == key && k->t < t)) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (after) {
		return lo < c->bystream.n && c->bystream.v[lo].stream == key ? c->bystream.v[lo].idx
									     : GPA_NONE;
	}
	return lo > 0 && c->bystream.v[lo - 1].stream == key ? c->bystream.v[lo - 1].idx : GPA_NONE;
}

/*
 * Waits the trace ties to an event's recording (analyze/model.h, gpa_syncs
 * rec_corr): the GPU work before the cudaEventRecord call on its stream ->
 * the first op launched after a cudaStreamWaitEvent on the waiting stream,
 * or -> the end of a cudaEventSynchronize that it held.
 */
static int link_events(struct ctx *c)
{
	const struct gpa_model *m = c->m;
	int ret = 0;

	if (!c->have_rec) {
		return 0;
	}
	ret = index_streams(c);
	for (size_t i = 0; i < c->n.n && !ret; i++) {
		struct node *v = &c->n.v[i];
		if (v->kind != N_API) {
			continue;
		}
		uint64_t *sp = gp_u64map_find(&c->syncs, v->row);
		if (!sp || !gpa_sync_rec_corr(m, *sp) || gpa_sync_rec_api(m, *sp) == GPA_NONE) {
			continue;
		}
		size_t sr = *sp;
		uint32_t proc = gpa_sync_proc(m, sr), ra = gpa_sync_rec_api(m, sr);
		uint32_t src =
			op_at(c, proc, gpa_sync_rec_stream(m, sr), gpa_api_start(m, ra), false);
		if (gpa_sync_type(m, sr) == 1) {
			v->ev = 1; /* an event sync: it waited for src, or for nothing */
			uint64_t se = src != GPA_NONE ? rec_e(c, &c->n.v[src]) : 0;
			if (src != GPA_NONE && se > rec_s(c, v) && se <= rec_e(c, v)) {
				v->p[W_SLOT] = src;
			}
		} else if (gpa_sync_type(m, sr) == 2 && src != GPA_NONE) {
			uint32_t dst = op_at(c, proc, gpa_sync_stream(m, sr), rec_s(c, v), true);
			if (dst != GPA_NONE && dst != src) {
				c->n.v[dst].p[2] = src;
				c->n.v[dst].ev = 1;
			}
		}
	}
	return ret;
}

/* Host syncs -> the op they waited for; GPU ops: the edge that set their start. */
/* Whether GPU node v's launch call blocked until v ran (a synchronous copy waiting for it). */
static bool launch_blocked(const struct ctx *c, const struct node *v)
{
	return v->kind == N_GPU && v->p[0] != GPA_NONE &&
	       c->n.v[v->p[0]].p[W_SLOT] == (uint32_t)(v - c->n.v);
}

/* When GPU node g was handed to the GPU: its launch call's start, else its own start. */
static uint64_t submitted(const struct ctx *c, const struct node *g)
{
	uint64_t s = rec_s(c, g);

	if (g->p[0] != GPA_NONE && rec_s(c, &c->n.v[g->p[0]]) < s) {
		s = rec_s(c, &c->n.v[g->p[0]]);
	}
	return s;
}

/* The first of the run of query calls that ends with u (walking back its thread). */
static const struct node *query_run(struct ctx *c, const struct node *u, uint64_t *period)
{
	const struct node *q = u;

	*period = 0;
	for (unsigned k = 0; k < WALK_MAX && q->p[0] != GPA_NONE; k++) {
		const struct node *pq = &c->n.v[q->p[0]];
		if (pq->kind != N_API || !(name_flags(c, gpa_api_name(c->m, pq->row)) & NAME_QUERY)) {
			break;
		}
		if (q == u) {
			*period = rec_s(c, u) - rec_s(c, pq);
		}
		q = pq;
	}
	return q;
}

/*
 * A host that waited for a GPU op without a synchronize call: API node v
 * starts just after op g finished, g submitted (launched) before the host
 * began to wait. Polling (u, the call before v, a query that saw g running; the
 * wait began at the first query of the run) or a spin (a host gap of
 * SPIN_GAP_NS at least, ending within SPIN_EPS_NS of g's end). v's start
 * then has an edge from g's end (slot 2) that set it.
 */
static void link_spin(struct ctx *c, struct node *v)
{
	const struct gpa_model *m = c->m;

	if (v->p[0] == GPA_NONE || c->n.v[v->p[0]].kind != N_API) {
		return;
	}
	const struct node *u = &c->n.v[v->p[0]];
	uint64_t vs = rec_s(c, v), ue = rec_e(c, u), from, period;
	uint32_t proc = m->threads.v[gpa_api_thread(m, v->row)].proc, g, before = v->p[0];
	if (name_flags(c, gpa_api_name(m, u->row)) & NAME_QUERY) {
		const struct node *q1 = query_run(c, u, &period);
		from = rec_s(c, q1);
		before = q1->p[0];
		/* the loop went on to v: the next poll, or v straight after the answer */
		if ((vs > ue ? vs - ue : 0) > SPIN_GAP_NS &&
		    vs - rec_s(c, u) > 2 * period + SPIN_EPS_NS) {
			return;
		}
		g = find_op(c, rec_s(c, u), vs, NULL, proc, GPA_NONE);
	} else {
		if (vs < ue + SPIN_GAP_NS) {
			return;
		}
		from = ue;
		g = find_op(c, vs - SPIN_EPS_NS, vs, NULL, proc, GPA_NONE);
	}
	if (g != GPA_NONE && submitted(c, &c->n.v[g]) <= from) {
		/* the polls answered "not yet": v follows the call before them, and g */
		for (struct node *q = &c->n.v[v->p[0]]; before != v->p[0] && q->kind == N_API;) {
			q->poll = 1;
			if (q->p[0] == before || q->p[0] == GPA_NONE) {
				break;
			}
			q = &c->n.v[q->p[0]];
		}
		v->p[0] = before;
		v->p[2] = g;
		v->ob = 2;
	}
}

static void link_waits(struct ctx *c, uint64_t ws)
{
	const struct gpa_model *m = c->m;

	for (size_t i = 0; i < c->n.n; i++) {
		struct node *v = &c->n.v[i];
		if (v->kind == N_API && v->p[W_SLOT] == GPA_NONE && !v->ev) {
			uint32_t r = v->row, stream = GPA_NONE;
			uint64_t *sr = gp_u64map_find(&c->syncs, r);
			if (!sr && !(name_flags(c, gpa_api_name(m, r)) & NAME_SYNC)) {
				link_spin(c, v);
				continue;
			}
			if (sr && gpa_sync_type(m, *sr) == 3) {
				stream = gpa_sync_stream(m, *sr);
			}
			v->p[W_SLOT] = find_op(c, rec_s(c, v), rec_e(c, v), NULL,
					       m->threads.v[gpa_api_thread(m, r)].proc, stream);
			continue;
		}
		if (v->kind != N_GPU) {
			continue;
		}
		int64_t t0 = INT64_MIN, t1 = INT64_MIN, ready, vs = (int64_t)rec_s(c, v);
		if (v->p[0] != GPA_NONE) {
			const struct node *l = &c->n.v[v->p[0]];
			int64_t ls = (int64_t)rec_s(c, l), full = vs - ls;
			int64_t d = (int64_t)(rec_e(c, l) - (uint64_t)ls);
			/* a blocking call submits at once, then waits with the op's stream */
			t0 = launch_blocked(c, v) ? ls : ls + (full < d ? full : d);
		}
		if (v->p[1] != GPA_NONE) {
			t1 = (int64_t)rec_e(c, &c->n.v[v->p[1]]);
		}
		ready = t0 > t1 ? t0 : t1;
		if (ready == INT64_MIN) {
			ready = (int64_t)ws;
		}
		int64_t t2 = v->ev ? (int64_t)rec_e(c, &c->n.v[v->p[2]]) : INT64_MIN;
		if (!v->ev && v->p[1] == GPA_NONE && v->p[0] != GPA_NONE && vs > t0) {
			link_carry(c, v, t0);
		}
		if (!v->ev && vs > ready && !v->carry) {
			v->p[2] = find_op(c, ready < 0 ? 0 : (uint64_t)ready, (uint64_t)vs, v, 0, 0);
		}
		if (v->carry) {
			v->ob = B_ROOT;
		} else if (v->p[2] != GPA_NONE && (!v->ev || t2 >= ready)) {
			v->ob = 2;
		} else if (t0 != INT64_MIN || t1 != INT64_MIN) {
			v->ob = t0 >= t1 ? 0 : 1;
		}
	}
}

/* ------------------------------------------------------------ order and timing */

static uint32_t src_point(const struct node *v, unsigned slot)
{
	return v->p[slot] * 2u + (v->kind == N_GPU && slot == 0 ? 0u : 1u);
}

/*
 * Whether slot s of v is a start edge: a GPU op's three; an API node's
 * thread (0) and a GPU op it spun on (2); an END node's thread.
 */
static bool start_slot(const struct node *v, unsigned s)
{
	return v->p[s] != GPA_NONE && (v->kind == N_GPU || s != W_SLOT);
}

/* The lag of start edge slot of v: recorded for the edge that set its start, else the least. */
static int64_t lag_of(const struct ctx *c, const struct node *v, unsigned slot)
{
	const struct node *p = &c->n.v[v->p[slot]];
	bool launch = v->kind == N_GPU && slot == 0;
	uint64_t vs = rec_s(c, v), ps = rec_s(c, p), pe = rec_e(c, p);
	int64_t exact = (int64_t)vs - (int64_t)(launch ? ps : pe);

	if (v->kind == N_API && slot == 0 && v->ob == 2) {
		return exact < 0 ? exact : 0; /* the host waited on the GPU, not on its thread */
	}
	if (v->kind != N_GPU && exact > 0 && c->wi && c->cpu.n) {
		return (int64_t)cpu_retimed(c, node_thread(c, v), pe, vs);
	}
	if (slot == v->ob || v->kind != N_GPU) {
		return exact;
	}
	if (launch) {
		int64_t d = launch_blocked(c, v) ? 0 : (int64_t)(pe - ps);
		return exact < d ? exact : d;
	}
	return exact < 0 ? exact : 0;
}

static uint64_t new_dur(const struct ctx *c, const struct node *v, bool what_if)
{
	uint64_t s = rec_s(c, v), e = rec_e(c, v), d = e - s;

	if (waited(v) != GPA_NONE) {
		uint64_t tail = e - rec_e(c, &c->n.v[waited(v)]);
		return tail < d ? tail : d;
	}
	if (what_if && v->kind == N_API && c->cpu.n) {
		return cpu_retimed(c, gpa_api_thread(c->m, v->row), s, e);
	}
	if (!what_if || !v->chg) {
		return d;
	}
	if (v->chg == 2) {
		return 0;
	}
	return (uint64_t)((double)d / c->o->speedup + 0.5);
}

/* Point states in node.mark (2 bits a point: start, end). */
enum { P_NEW = 0, P_OPEN = 1, P_DONE = 2, P_OUT = 3 };

static unsigned pstate(const struct ctx *c, uint32_t pt)
{
	return (c->n.v[pt / 2].mark >> ((pt & 1) * 2)) & 3u;
}

static void set_pstate(struct ctx *c, uint32_t pt, unsigned st)
{
	struct node *v = &c->n.v[pt / 2];
	unsigned sh = (pt & 1) * 2;

	v->mark = (v->mark & ~(3u << sh)) | (st << sh);
}

/*
 * The re-timed start of v, from its edges (the ends of the points before it
 * are final once it can be timed); *bs: the edge that set it. A start left
 * out of the order (a cycle) keeps its recorded time.
 */
static uint64_t start_of(const struct ctx *c, const struct node *v, unsigned *bs)
{
	int64_t best = INT64_MIN;
	unsigned first = v->ob < 3 ? v->ob : 0;

	if ((v->mark & 3u) == P_OUT) {
		*bs = v->ob;
		return rec_s(c, v);
	}
	*bs = B_ROOT;
	if (v->carry) {
		best = (int64_t)rec_s(c, v); /* held by work outside the graph */
	}
	for (unsigned k = 0; k < 3; k++) {
		unsigned s = (first + k) % 3;
		if (!start_slot(v, s)) {
			continue;
		}
		const struct node *p = &c->n.v[v->p[s]];
		bool launch = v->kind == N_GPU && s == 0;
		unsigned pbs;
		int64_t t = (int64_t)(launch ? start_of(c, p, &pbs) : p->ne) + lag_of(c, v, s);
		if (t > best) {
			best = t;
			*bs = s;
		}
	}
	return *bs == B_ROOT && !v->carry ? rec_s(c, v) : (best < 0 ? 0 : (uint64_t)best);
}

/* Times point pt, whose predecessors are timed. */
static void time_point(struct ctx *c, uint32_t pt, bool what_if)
{
	struct node *v = &c->n.v[pt / 2];
	unsigned bs;
	uint64_t ns;

	if (!(pt & 1)) {
		c->last_ns = start_of(c, v, &bs);
		c->last_node = pt / 2;
		v->bs = bs & 3u;
		return;
	}
	ns = c->last_node == pt / 2 ? c->last_ns : start_of(c, v, &bs);
	uint64_t e = rec_e(c, v);
	v->ne = ns + new_dur(c, v, what_if);
	v->be = 0;
	uint64_t L = rank_wait(c, v);
	if (L && v->chg != 2) {
		/* the transfer after the last arrival, which the other ranks keep */
		uint64_t after = e - L;
		if (what_if && v->chg == 1) {
			after = (uint64_t)((double)after / c->o->speedup + 0.5);
		}
		v->ne = (ns > L ? ns : L) + after;
	}
	if (waited(v) != GPA_NONE) {
		const struct node *w = &c->n.v[waited(v)];
		uint64_t t = w->ne + (e - rec_e(c, w));
		if (t >= v->ne) {
			v->ne = t;
			v->be = 1;
		}
	}
}

/* The points pt waits for: its start edges, or its own start and the op it waited for. */
static unsigned preds_of(const struct ctx *c, uint32_t pt, uint32_t out[3])
{
	const struct node *v = &c->n.v[pt / 2];
	unsigned n = 0;

	if (pt & 1) {
		out[n++] = pt - 1;
		if (waited(v) != GPA_NONE) {
			out[n++] = waited(v) * 2u + 1;
		}
		return n;
	}
	for (unsigned s = 0; s < 3; s++) {
		if (start_slot(v, s)) {
			out[n++] = src_point(v, s);
		}
	}
	(void)c;
	return n;
}

/*
 * Re-times the points (2 i the start, 2 i + 1 the end of node i) in
 * dependency order, by a depth-first walk over each point's predecessors
 * (no successor lists): a point is timed once the points it waits for are.
 * A point on a cycle (bad data), or after one, is left out and keeps its
 * recorded time; returns how many were.
 */
static int retime(struct ctx *c, bool what_if, uint64_t *left_out)
{
	size_t np = c->n.n * 2;
	uint32_t pr[3];

	c->wi = what_if;
	c->last_node = GPA_NONE;
	for (size_t i = 0; i < c->n.n; i++) {
		struct node *v = &c->n.v[i];
		v->ne = rec_e(c, v);
		v->bs = v->ob;
		v->be = 0;
		v->mark = 0;
	}
	for (uint32_t root = 0; root < np; root++) {
		unsigned n = pstate(c, root) == P_NEW ? preds_of(c, root, pr) : 0, k = 0;
		if (pstate(c, root) != P_NEW) {
			continue;
		}
		while (k < n && pstate(c, pr[k]) == P_DONE) {
			k++;
		}
		if (k == n) { /* the points before it are timed: most points, in node order */
			time_point(c, root, what_if);
			set_pstate(c, root, P_DONE);
			continue;
		}
		c->stack.n = 0;
		if (gp_vec_push(&c->stack, root)) {
			return -GP_ERR_NOMEM;
		}
		while (c->stack.n) {
			uint32_t pt = c->stack.v[c->stack.n - 1];
			unsigned st = pstate(c, pt), n = preds_of(c, pt, pr);
			if (st == P_NEW) {
				set_pstate(c, pt, P_OPEN);
				for (unsigned k = 0; k < n; k++) {
					if (pstate(c, pr[k]) == P_NEW && gp_vec_push(&c->stack, pr[k])) {
						return -GP_ERR_NOMEM;
					}
				}
				continue;
			}
			c->stack.n--;
			if (st != P_OPEN) {
				continue; /* timed already */
			}
			bool out = false;
			for (unsigned k = 0; k < n; k++) {
				unsigned ps = pstate(c, pr[k]);
				out |= ps == P_OPEN || ps == P_OUT;
			}
			if (out) {
				set_pstate(c, pt, P_OUT);
				*left_out += 1;
			} else {
				time_point(c, pt, what_if);
				set_pstate(c, pt, P_DONE);
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------ the path */

static int cmp_seg_len(const void *a, const void *b)
{
	const struct gpa_cp_seg *x = a, *y = b;
	uint64_t lx = x->end - x->start, ly = y->end - y->start;

	if (lx != ly) {
		return lx > ly ? -1 : 1;
	}
	if (x->start != y->start) {
		return x->start < y->start ? -1 : 1;
	}
	if (x->edge != y->edge) {
		return x->edge ? 1 : -1;
	}
	return x->row < y->row ? -1 : x->row > y->row;
}

/*
 * Keeps the o->top longest segments in c->path, a heap whose root is the
 * shortest kept (so a path of a million segments costs top entries).
 */
static int top_push(struct ctx *c, struct gpa_cp_seg s)
{
	struct gpa_cp_seg *h;
	size_t i;

	if (!c->o->top) {
		return 0;
	}
	if (c->path.n < c->o->top) {
		if (gp_vec_push(&c->path, s)) {
			return -GP_ERR_NOMEM;
		}
		h = c->path.v;
		for (i = c->path.n - 1; i > 0 && cmp_seg_len(&h[i], &h[(i - 1) / 2]) > 0;
		     i = (i - 1) / 2) {
			struct gpa_cp_seg t = h[i];
			h[i] = h[(i - 1) / 2];
			h[(i - 1) / 2] = t;
		}
		return 0;
	}
	h = c->path.v;
	if (cmp_seg_len(&s, &h[0]) >= 0) {
		return 0;
	}
	h[0] = s;
	for (i = 0;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;
		if (l < c->path.n && cmp_seg_len(&h[l], &h[w]) > 0) {
			w = l;
		}
		if (r < c->path.n && cmp_seg_len(&h[r], &h[w]) > 0) {
			w = r;
		}
		if (w == i) {
			break;
		}
		struct gpa_cp_seg t = h[i];
		h[i] = h[w];
		h[w] = t;
		i = w;
	}
	return 0;
}

/* With keep_path: an event on the path being traced (from its end back). */
static int path_push(struct ctx *c, struct gpa_cp_seg s)
{
	struct gpa_critpath *out = c->out;
	size_t n = out->path.n;

	if (!c->o->keep_path || s.kind == 2) {
		return 0;
	}
	/* a node split in two (wait-rank) is one event */
	if (n > c->path_mark && out->path.v[n - 1].row == s.row &&
	    out->path.v[n - 1].kind == s.kind) {
		struct gpa_cp_seg *l = &out->path.v[n - 1];
		l->start = s.start < l->start ? s.start : l->start;
		l->end = s.end > l->end ? s.end : l->end;
		return 0;
	}
	s.edge = false;
	return gp_vec_push(&out->path, s);
}

/* The host time of [a, b) inside the data-loader ranges of proc. */
static uint64_t data_overlap(const struct ctx *c, uint32_t proc, uint64_t a, uint64_t b)
{
	size_t lo = 0, hi = c->data.n;
	uint64_t sum = 0;

	while (lo < hi) { /* the first range of proc ending after a */
		size_t mid = lo + (hi - lo) / 2;
		const struct drange *r = &c->data.v[mid];
		if (r->proc < proc || (r->proc == proc && r->e <= a)) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	for (size_t i = lo; i < c->data.n && c->data.v[i].proc == proc && c->data.v[i].s < b; i++) {
		uint64_t s = c->data.v[i].s > a ? c->data.v[i].s : a;
		uint64_t e = c->data.v[i].e < b ? c->data.v[i].e : b;
		sum += e > s ? e - s : 0;
	}
	return sum;
}

/* The process of a node: its thread's, or its device's. */
static uint32_t node_proc(const struct ctx *c, const struct node *v)
{
	uint32_t th = node_thread(c, v);

	if (th != GPA_NONE && th < c->m->threads.n) {
		return c->m->threads.v[th].proc;
	}
	return v->kind == N_GPU ? gpa_dev_proc(c->m, gpa_gpu_dev(c->m, v->row)) : GPA_NONE;
}

/* A copy's direction, and whether its host side is pageable memory (CUPTI memory kind 1). */
static unsigned copy_dir(const struct gpa_model *m, uint32_t g, bool *pageable)
{
	*pageable = false;
	if (g >= gpa_gpu_rows(m) || gpa_gpu_kind(m, g) != GPA_GPU_MEMCPY) {
		return GPA_CPC_OTHER;
	}
	uint32_t r = gpa_gpu_row(m, g);
	unsigned k = gpa_copy_copy_kind(m, r);
	*pageable = gpa_copy_src_kind(m, r) == 1 || gpa_copy_dst_kind(m, r) == 1;
	return k == 1 ? GPA_CPC_H2D : k == 2 ? GPA_CPC_D2H : k == 8 ? GPA_CPC_D2D : GPA_CPC_OTHER;
}

/* Copy time [a, b) of node v on the path being traced, by direction. */
static void copy_seg(struct ctx *c, const struct node *v, uint64_t a, uint64_t b, bool edge)
{
	bool pageable = false;
	unsigned d = v->kind == N_GPU && !edge ? copy_dir(c->m, v->row, &pageable) : GPA_CPC_OTHER;

	c->copy_ns[d] += b - a;
	c->pageable_ns += pageable ? b - a : 0;
}

static int seg(struct ctx *c, int64_t *cat, uint64_t a, uint64_t b, const struct node *v,
	       uint8_t kat, bool edge)
{
	struct gpa_cp_seg s = {.start = a, .end = b, .row = v->row, .cat = kat,
			       .kind = v->kind == N_END ? 2 : v->kind, .edge = edge};

	if (kat == GPA_CP_CPU && c->data.n && b > a) {
		/* host time inside a data-loader range is data loading */
		uint64_t d = data_overlap(c, node_proc(c, v), a, b);
		cat[GPA_CP_DATA] += (int64_t)d;
		cat[kat] -= (int64_t)d;
		s.cat = d * 2 >= b - a ? GPA_CP_DATA : kat;
	}
	cat[kat] += (int64_t)b - (int64_t)a;
	if (b <= a) {
		return 0;
	}
	if (kat == GPA_CP_COPY) {
		copy_seg(c, v, a, b, edge);
	}
	c->nsegs++;
	if (!edge && path_push(c, s)) {
		return -GP_ERR_NOMEM;
	}
	return top_push(c, s);
}

/* Walks back from the last end to the step's start and fills p. */
static int trace_back(struct ctx *c, uint64_t ws, struct gpa_cp_path *p, struct gpa_critpath *out)
{
	int64_t cat[GPA_CP__COUNT] = {0};
	uint32_t i = 0;
	size_t guard = c->n.n * 4 + 4;
	bool at_end = true;
	int ret = 0;

	c->path.n = 0;
	c->nsegs = 0;
	memset(c->copy_ns, 0, sizeof(c->copy_ns));
	c->pageable_ns = 0;
	c->out = out;
	c->path_mark = out->path.n;
	for (size_t k = 1; k < c->n.n; k++) {
		if (c->n.v[k].ne > c->n.v[i].ne && !c->n.v[k].poll) {
			i = (uint32_t)k;
		}
	}
	p->end = c->n.n ? c->n.v[i].ne : ws;
	while (c->n.n && guard-- && !ret) {
		const struct node *v = &c->n.v[i];
		unsigned bs;
		uint64_t ns = start_of(c, v, &bs);
		if (at_end) {
			if (v->be && waited(v) != GPA_NONE) {
				ret = seg(c, cat, c->n.v[waited(v)].ne, v->ne, v, GPA_CP_SYNC, false);
				i = waited(v);
				continue;
			}
			uint64_t L = rank_wait(c, v);
			uint64_t mid = L > ns ? (L < v->ne ? L : v->ne) : ns;
			ret = seg(c, cat, ns, mid, v, GPA_CP_WAIT_RANK, false);
			if (!ret) {
				ret = seg(c, cat, mid, v->ne, v, v->cat, false);
			}
			at_end = false;
			continue;
		}
		if (v->bs == B_ROOT) {
			uint8_t k = v->kind == N_GPU ? GPA_CP_IDLE : GPA_CP_CPU;
			if (v->carry) {
				k = (uint8_t)(v->carry - 1);
			}
			ret = seg(c, cat, ws < ns ? ws : ns, ns, v, k, true);
			break;
		}
		const struct node *q = &c->n.v[v->p[v->bs]];
		static const uint8_t gpu_edge[3] = {GPA_CP_LAUNCH, GPA_CP_IDLE, GPA_CP_WAIT_STREAM};
		uint8_t k = v->kind == N_GPU ? gpu_edge[v->bs] : v->bs == 2 ? GPA_CP_SYNC : GPA_CP_CPU;
		bool launch = v->kind == N_GPU && v->bs == 0;
		if (launch && q->cat == GPA_CP_WARMUP) {
			k = GPA_CP_WARMUP;
		}
		uint64_t qs = launch ? start_of(c, q, &bs) : 0;
		if (launch && ns > q->ne + LAUNCH_LAT_MAX_NS && k == GPA_CP_LAUNCH) {
			uint64_t lat = (q->ne > qs ? q->ne : qs) + LAUNCH_LAT_MAX_NS;
			ret = seg(c, cat, qs, lat, v, k, true);
			if (!ret) {
				ret = seg(c, cat, lat, ns, v, GPA_CP_IDLE, true);
			}
		} else {
			ret = seg(c, cat, launch ? qs : q->ne, ns, v, k, true);
		}
		if (!ret && launch) {
			/* the launch call is on the path, though its time counts as the edge's */
			struct gpa_cp_seg s = {.start = qs, .end = q->ne, .row = q->row,
					       .cat = k, .kind = N_API};
			ret = path_push(c, s);
		}
		i = v->p[v->bs];
		at_end = !launch;
	}
	for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
		p->cat_ns[k] = cat[k] > 0 ? (uint64_t)cat[k] : 0;
	}
	p->segs = c->nsegs;
	memcpy(p->copy_ns, c->copy_ns, sizeof(p->copy_ns));
	p->pageable_ns = c->pageable_ns;
	p->path_first = c->path_mark;
	p->path_n = out->path.n - c->path_mark;
	for (size_t a = p->path_first, b = out->path.n; b > a + 1; a++, b--) {
		struct gpa_cp_seg t = out->path.v[a]; /* traced from the end: reverse */
		out->path.v[a] = out->path.v[b - 1];
		out->path.v[b - 1] = t;
	}
	if (c->path.n) {
		qsort(c->path.v, c->path.n, sizeof(*c->path.v), cmp_seg_len);
	}
	p->top_first = out->segs.n;
	p->top_n = c->path.n;
	for (size_t k = 0; k < p->top_n && !ret; k++) {
		ret = gp_vec_push(&out->segs, c->path.v[k]);
	}
	return ret;
}

/* ------------------------------------------------------------ per step */

/*
 * Starts a graph: the API calls of proc in [ws, we), room for them, nops
 * GPU ops and the step's end; *lo for add_gpu.
 */
static int begin_graph(struct ctx *c, uint32_t proc, uint64_t ws, uint64_t we, size_t nops,
		       size_t *lo)
{
	size_t napi = lower_bound_api(c->m, we) - lower_bound_api(c->m, ws);

	c->n.n = 0;
	c->rec.n = 0;
	c->recs = napi + nops + 1 <= REC_MAX;
	c->stamp++;
	gp_u64map_clear(&c->streams);
	if (gp_vec_reserve(&c->n, napi + nops + 1) ||
	    (c->recs && gp_vec_reserve(&c->rec, napi + nops + 1))) {
		return -GP_ERR_NOMEM;
	}
	return add_apis(c, proc, ws, we, lo);
}

/*
 * Ends the graph begun by begin_graph and its GPU ops: the step's end, the
 * edges of waits, then the path as recorded and with the what-if. One
 * window over a whole trace frees each index once it has served.
 */
static int end_graph(struct ctx *c, struct gpa_cp_step *st, uint64_t ws, uint32_t end_thread,
		     uint64_t step_end, struct gpa_critpath *out)
{
	uint64_t ignored = 0;
	int ret = 0;

	if (c->o->window) {
		gp_vec_free(&c->amap);
	}
	c->end_t = step_end;
	if (end_thread != GPA_NONE && end_thread < c->m->threads.n &&
	    c->tstamp[end_thread] == c->stamp) {
		uint32_t idx = (uint32_t)c->n.n;
		ret = add_node(c, N_END, GPA_NONE, GPA_CP_CPU);
		if (!ret) {
			c->n.v[idx].p[0] = c->tlast[end_thread];
			c->n.v[idx].ob = 0;
		}
	}
	ret = ret ? ret : sort_by_end(c);
	if (ret) {
		return ret;
	}
	ret = link_events(c);
	if (ret) {
		return ret;
	}
	link_waits(c, ws);
	if (c->o->window) {
		gp_vec_free(&c->byend);
		gp_vec_free(&c->endt);
		gp_vec_free(&c->bystream);
	}
	st->start = ws;
	st->nodes = (uint32_t)c->n.n;
	ret = retime(c, false, &out->cycles);
	if (!ret) {
		ret = trace_back(c, ws, &st->now, out);
	}
	for (size_t i = 0; i < c->n.n; i++) {
		st->matched += c->n.v[i].chg != 0;
	}
	if (!ret && out->what_if) {
		ret = retime(c, true, &ignored);
		if (!ret) {
			ret = trace_back(c, ws, &st->what_if, out);
		}
	} else {
		st->what_if = st->now;
	}
	return ret;
}

/*
 * The GPU rows of each step, in row order: first[s] .. first[s + 1] count
 * them. A step's rows on one device lie in a span of the device's rows (its
 * ops start in turn), so where the spans hold at most SPAN_SLACK times the
 * rows, a step's rows are read from its spans, skipping the other steps'
 * (8 bytes a step and device); else from a list of every row by step (4
 * bytes a row: 20 MB for five million ops).
 */
struct opgroups {
	uint32_t *first; /* ns + 2 */
	uint32_t *list;  /* the rows by step; NULL with spans */
	uint32_t *span;  /* per step and device: its first row and one past its last */
	size_t ndev;
};
#define SPAN_SLACK 2

static void opgroups_release(struct opgroups *g)
{
	free(g->first);
	free(g->list);
	free(g->span);
}

/* The spans of each step's rows on each device; false (none kept) when they hold too many rows. */
static bool group_spans(const struct gpa_model *m, const struct gpa_steps *steps,
			struct opgroups *g)
{
	size_t ns = steps->v.n, nd = m->devs.n, next = 0, in_spans = 0;

	if (!nd || ns * nd * 2 > gpa_gpu_rows(m) ||
	    !(g->span = malloc(ns * nd * 2 * sizeof(uint32_t)))) {
		return false;
	}
	for (size_t k = 0; k < ns * nd; k++) {
		g->span[2 * k] = UINT32_MAX;
		g->span[2 * k + 1] = 0;
	}
	for (size_t d = 0; d < nd; d++) {
		const struct gpa_dev *dv = &m->devs.v[d];
		if (dv->gpu_first != next) {
			return false; /* not the devices' rows in turn */
		}
		for (uint32_t r = dv->gpu_first; r < dv->gpu_first + dv->gpu_count; r++) {
			uint32_t st = gpa_step_of(steps, r), *sp = &g->span[(st * nd + d) * 2];
			if (st < ns) {
				sp[0] = r < sp[0] ? r : sp[0];
				sp[1] = r + 1;
			}
		}
		next += dv->gpu_count;
	}
	for (size_t k = 0; k < ns * nd; k++) {
		in_spans += g->span[2 * k] < g->span[2 * k + 1] ? g->span[2 * k + 1] - g->span[2 * k]
								 : 0;
	}
	g->ndev = nd;
	return next == gpa_gpu_rows(m) && in_spans <= (size_t)SPAN_SLACK * g->first[ns] + 65536;
}

static int group_ops(const struct gpa_model *m, const struct gpa_steps *steps,
		     struct opgroups *g)
{
	size_t ns = steps->v.n;
	uint32_t *first = g->first = calloc(ns + 2, sizeof(uint32_t));

	if (!first) {
		return -GP_ERR_NOMEM;
	}
	for (size_t r = 0; r < gpa_gpu_rows(m); r++) {
		if (gpa_step_of(steps, r) < ns) {
			first[gpa_step_of(steps, r) + 2]++;
		}
	}
	for (size_t s = 0; s < ns; s++) {
		first[s + 2] += first[s + 1];
	}
	if (group_spans(m, steps, g)) {
		memmove(first, first + 1, (ns + 1) * sizeof(uint32_t));
		return 0;
	}
	free(g->span);
	g->span = NULL;
	g->list = malloc((gpa_gpu_rows(m) + 1) * sizeof(uint32_t));
	if (!g->list) {
		return -GP_ERR_NOMEM;
	}
	for (size_t r = 0; r < gpa_gpu_rows(m); r++) {
		if (gpa_step_of(steps, r) < ns) {
			g->list[first[gpa_step_of(steps, r) + 1]++] = (uint32_t)r;
		}
	}
	return 0;
}

/* Adds step s's GPU ops to the graph, in row order. */
static int add_step_ops(struct ctx *c, const struct opgroups *g, const struct gpa_steps *steps,
			size_t s, size_t lo)
{
	int ret = 0;

	if (g->list) {
		for (uint32_t k = g->first[s]; k < g->first[s + 1] && !ret; k++) {
			ret = add_gpu(c, g->list[k], lo);
		}
		return ret;
	}
	for (size_t d = 0; d < g->ndev && !ret; d++) {
		const uint32_t *sp = &g->span[(s * g->ndev + d) * 2];
		for (uint32_t r = sp[0]; r < sp[1] && !ret; r++) {
			if (gpa_step_of(steps, r) == s) {
				ret = add_gpu(c, r, lo);
			}
		}
	}
	return ret;
}

/* What each thread's context has of its own: caches, scratch, the graph. */
static void ctx_release_own(struct ctx *c)
{
	pcre2_match_data_free(c->md);
	free(c->func_chg);
	free(c->name_flag);
	free(c->tlast);
	free(c->tstamp);
	gp_u64map_release(&c->streams);
	gp_vec_free(&c->n);
	gp_vec_free(&c->rec);
	gp_vec_free(&c->amap);
	gp_vec_free(&c->byend);
	gp_vec_free(&c->endt);
	gp_vec_free(&c->ktmp);
	gp_vec_free(&c->itmp);
	gp_vec_free(&c->bystream);
	gp_vec_free(&c->stack);
	gp_vec_free(&c->path);
}

static void ctx_release(struct ctx *c)
{
	pcre2_code_free(c->sp);
	pcre2_code_free(c->rm);
	free(c->op_last);
	free(c->first_api);
	free(c->first_k);
	pcre2_code_free(c->warm);
	gp_vec_free(&c->data);
	gp_u64map_release(&c->syncs);
	gp_vec_free(&c->cpu);
	ctx_release_own(c);
}

/*
 * A context for another thread: what ctx_init read from the model and the
 * options is shared (read only while the steps run), the rest its own.
 * Release with ctx_release_own, also after an error.
 */
static int ctx_clone(struct ctx *b, const struct ctx *a)
{
	const struct gpa_model *m = a->m;

	*b = *a;
	memset(&b->streams, 0, sizeof(b->streams));
	memset(&b->n, 0, sizeof(b->n));
	memset(&b->rec, 0, sizeof(b->rec));
	memset(&b->amap, 0, sizeof(b->amap));
	memset(&b->byend, 0, sizeof(b->byend));
	memset(&b->endt, 0, sizeof(b->endt));
	memset(&b->ktmp, 0, sizeof(b->ktmp));
	memset(&b->itmp, 0, sizeof(b->itmp));
	memset(&b->bystream, 0, sizeof(b->bystream));
	memset(&b->stack, 0, sizeof(b->stack));
	memset(&b->path, 0, sizeof(b->path));
	b->stamp = 0;
	b->md = pcre2_match_data_create(4, NULL);
	b->func_chg = calloc(m->funcs.n + 1, 1);
	b->name_flag = calloc(m->strs.off.n + 2, 1);
	b->tlast = calloc(m->threads.n + 1, sizeof(uint32_t));
	b->tstamp = calloc(m->threads.n + 1, sizeof(uint32_t));
	if (!b->md || !b->func_chg || !b->name_flag || !b->tlast || !b->tstamp) {
		return -GP_ERR_NOMEM;
	}
	return 0;
}

/* Steps [s0, s1) of steps, their GPU rows in g, into out. */
static int run_range(struct ctx *c, const struct gpa_steps *steps, const struct opgroups *g,
		     size_t s0, size_t s1, struct gpa_critpath *out)
{
	const struct gpa_model *m = c->m;
	int ret = 0;

	for (size_t s = s0; s < s1 && !ret; s++) {
		const struct gpa_step *sp = &steps->v.v[s];
		struct gpa_cp_step st = {.step = (uint32_t)s, .proc = sp->proc};
		uint32_t th = sp->nvtx != GPA_NONE ? gpa_nvtx_thread(m, sp->nvtx) : GPA_NONE;
		size_t lo;
		ret = begin_graph(c, st.proc, sp->start, sp->end, g->first[s + 1] - g->first[s], &lo);
		if (!ret) {
			ret = add_step_ops(c, g, steps, s, lo);
		}
		if (!ret) {
			ret = end_graph(c, &st, sp->start, th, sp->end, out);
		}
		if (!ret) {
			ret = gp_vec_push(&out->steps, st);
		}
	}
	return ret;
}

/* The later steps, on a thread of their own with a context of their own. */
struct later {
	struct ctx c;
	const struct gpa_steps *steps;
	const struct opgroups *g;
	size_t s0, s1;
	struct gpa_critpath out;
	int ret;
};

static void *later_main(void *arg)
{
	struct later *l = arg;

	l->ret = run_range(&l->c, l->steps, l->g, l->s0, l->s1, &l->out);
	return NULL;
}

/* A path of the later run, its segments and events placed after the earlier run's. */
static void shift_path(struct gpa_cp_path *p, const struct gpa_critpath *out)
{
	p->top_first += out->segs.n;
	p->path_first += out->path.n;
}

/* Appends n elements at src to the vector vec: 0 or -GP_ERR_NOMEM. */
#define vec_append(vec, src, cnt)                                                                  \
	(gp_vec_reserve((vec), (vec)->n + (cnt))                                                   \
		 ? -GP_ERR_NOMEM                                                                   \
		 : ((cnt) ? memcpy((vec)->v + (vec)->n, (src), (cnt) * sizeof(*(vec)->v)) : NULL,  \
		    (vec)->n += (cnt), 0))

/* Appends the later run's steps, segments and events to out, as one run would have. */
static int join_later(struct gpa_critpath *out, struct gpa_critpath *l)
{
	for (size_t i = 0; i < l->steps.n; i++) {
		shift_path(&l->steps.v[i].now, out);
		shift_path(&l->steps.v[i].what_if, out);
	}
	out->cycles += l->cycles;
	if (vec_append(&out->steps, l->steps.v, l->steps.n) ||
	    vec_append(&out->segs, l->segs.v, l->segs.n) ||
	    vec_append(&out->path, l->path.v, l->path.n)) {
		return -GP_ERR_NOMEM;
	}
	return 0;
}

/* The first step of the later run: about half the GPU ops before it; 0 for one run. */
static size_t split_at(const struct ctx *c, const uint32_t *first, size_t ns)
{
	size_t h = 1;

	if (c->o->threads < 2 || ns < 2 || first[ns] < SPLIT_MIN_OPS) {
		return 0;
	}
	while (h < ns - 1 && first[h] < first[ns] / 2) {
		h++;
	}
	return h;
}

static int run_steps(struct ctx *c, const struct gpa_steps *steps, struct gpa_critpath *out)
{
	struct opgroups g = {0};
	size_t ns = steps->v.n, h = 0;
	struct later l = {.steps = steps, .g = &g, .s1 = ns};
	pthread_t th;
	bool cloned = false, threaded = false;
	int ret = group_ops(c->m, steps, &g);

	if (!ret) {
		h = split_at(c, g.first, ns);
	}
	if (h) {
		cloned = true;
		if (!ctx_clone(&l.c, c)) {
			l.s0 = h;
			l.out.what_if = out->what_if;
			threaded = pthread_create(&th, NULL, later_main, &l) == 0;
		}
	}
	if (!threaded) {
		h = ns;
	}
	if (!ret) {
		ret = run_range(c, steps, &g, 0, h, out);
	}
	if (threaded) {
		pthread_join(th, NULL);
		ret = ret ? ret : l.ret ? l.ret : join_later(out, &l.out);
	}
	if (cloned) {
		ctx_release_own(&l.c);
	}
	gpa_critpath_release(&l.out);
	opgroups_release(&g);
	return ret;
}

/* Whether GPU row g was launched (or, with no launch call, started) in [ws, we). */
static bool in_window(const struct gpa_model *m, size_t g, uint64_t ws, uint64_t we)
{
	uint32_t a = gpa_gpu_api(m, g);
	uint64_t t = a != GPA_NONE ? gpa_api_start(m, a) : gpa_gpu_start(m, g);

	return t >= ws && t < we;
}

/* One graph over the window, its GPU ops added as the rows are scanned (no list of them). */
static int run_window(struct ctx *c, struct gpa_critpath *out)
{
	const struct gpa_model *m = c->m;
	uint64_t ws = c->o->win_start, we = c->o->win_end;
	struct gpa_cp_step st = {.step = GPA_NONE, .proc = GPA_NONE};
	size_t nops = 0, lo;
	int ret;

	for (size_t g = 0; g < gpa_gpu_rows(m); g++) {
		nops += in_window(m, g, ws, we);
	}
	ret = begin_graph(c, GPA_NONE, ws, we, nops, &lo);
	for (size_t g = 0; g < gpa_gpu_rows(m) && !ret; g++) {
		if (in_window(m, g, ws, we)) {
			ret = add_gpu(c, g, lo);
		}
	}
	if (!ret) {
		ret = end_graph(c, &st, ws, GPA_NONE, we, out);
	}
	if (!ret) {
		ret = gp_vec_push(&out->steps, st);
	}
	return ret;
}

/* Each process's first API row and each function's first kernel row (warm-up). */
static int firsts(struct ctx *c)
{
	const struct gpa_model *m = c->m;

	c->first_api = malloc((m->procs.n + 1) * sizeof(uint32_t));
	c->first_k = malloc((m->funcs.n + 1) * sizeof(uint32_t));
	if (!c->first_api || !c->first_k) {
		return -GP_ERR_NOMEM;
	}
	memset(c->first_api, 0xff, (m->procs.n + 1) * sizeof(uint32_t));
	memset(c->first_k, 0xff, (m->funcs.n + 1) * sizeof(uint32_t));
	for (size_t r = 0; r < gpa_api_rows(m); r++) { /* by start */
		uint32_t th = gpa_api_thread(m, r);
		uint32_t p = th < m->threads.n ? m->threads.v[th].proc : GPA_NONE;
		if (p < m->procs.n && c->first_api[p] == GPA_NONE) {
			c->first_api[p] = (uint32_t)r;
		}
	}
	for (size_t k = 0; k < gpa_kern_rows(m); k++) {
		uint32_t f = gpa_kern_func(m, k);
		if (f < m->funcs.n &&
		    (c->first_k[f] == GPA_NONE || gpa_kern_start(m, k) < gpa_kern_start(m, c->first_k[f]))) {
			c->first_k[f] = (uint32_t)k;
		}
	}
	return 0;
}

static int cmp_drange(const void *a, const void *b)
{
	const struct drange *x = a, *y = b;

	if (x->proc != y->proc) {
		return x->proc < y->proc ? -1 : 1;
	}
	return x->s < y->s ? -1 : x->s > y->s;
}

/* The data-loader ranges (names matching opts.data_regex), merged per process. */
static int data_ranges(struct ctx *c, char *errbuf, size_t errlen)
{
	const struct gpa_model *m = c->m;
	const char *pat = c->o->data_regex ? c->o->data_regex : GPA_GAP_DATA_PATTERN;
	pcre2_code *re = compile("data-loader", pat, errbuf, errlen);
	uint8_t *seen = calloc(m->strs.off.n + 2, 1);
	int ret = 0;

	if (!re || !seen) {
		free(seen);
		pcre2_code_free(re);
		return re ? -GP_ERR_NOMEM : -GP_ERR_API;
	}
	for (size_t r = 0; r < gpa_nvtx_rows(m) && !ret; r++) {
		uint32_t name = gpa_nvtx_name(m, r), th = gpa_nvtx_thread(m, r);
		if (!seen[name]) {
			seen[name] = re_match(c, re, gpa_model_str(m, name)) ? 2 : 1;
		}
		if (seen[name] == 2 && th < m->threads.n &&
		    gpa_nvtx_end(m, r) > gpa_nvtx_start(m, r)) {
			struct drange d = {m->threads.v[th].proc, gpa_nvtx_start(m, r),
					   gpa_nvtx_end(m, r)};
			ret = gp_vec_push(&c->data, d);
		}
	}
	free(seen);
	pcre2_code_free(re);
	if (ret || !c->data.n) {
		return ret;
	}
	qsort(c->data.v, c->data.n, sizeof(*c->data.v), cmp_drange);
	size_t w = 0;
	for (size_t i = 1; i < c->data.n; i++) {
		struct drange *last = &c->data.v[w];
		if (c->data.v[i].proc == last->proc && c->data.v[i].s <= last->e) {
			last->e = c->data.v[i].e > last->e ? c->data.v[i].e : last->e;
		} else {
			c->data.v[++w] = c->data.v[i];
		}
	}
	c->data.n = w + 1;
	return 0;
}

static int ctx_init(struct ctx *c, const struct gpa_model *m, const struct gpa_critpath_opts *o,
		    char *errbuf, size_t errlen)
{
	c->m = m;
	c->o = o;
	if ((o->speedup_regex && !(c->sp = compile("speedup", o->speedup_regex, errbuf, errlen))) ||
	    (o->remove_regex && !(c->rm = compile("remove", o->remove_regex, errbuf, errlen)))) {
		return strcmp(errbuf, "out of memory") ? -GP_ERR_API : -GP_ERR_NOMEM;
	}
	c->md = pcre2_match_data_create(4, NULL);
	if (c->md && (c->sp || c->rm) && collect_cpu_ops(c)) {
		return -GP_ERR_NOMEM;
	}
	if (o->op_last ? given_ranks(c) : match_ranks(c)) {
		return -GP_ERR_NOMEM;
	}
	c->warm = compile("warm-up", WARM_PATTERN, errbuf, errlen);
	if (!c->md || !c->warm || firsts(c)) {
		return -GP_ERR_NOMEM;
	}
	int ret = data_ranges(c, errbuf, errlen);
	if (ret) {
		return ret;
	}
	c->func_chg = calloc(m->funcs.n + 1, 1);
	c->name_flag = calloc(m->strs.off.n + 2, 1);
	c->tlast = calloc(m->threads.n + 1, sizeof(uint32_t));
	c->tstamp = calloc(m->threads.n + 1, sizeof(uint32_t));
	if (!c->md || !c->func_chg || !c->name_flag || !c->tlast || !c->tstamp) {
		return -GP_ERR_NOMEM;
	}
	for (size_t r = 0; r < gpa_sync_rows(m); r++) {
		if (gpa_sync_api(m, r) != GPA_NONE &&
		    gp_u64map_put(&c->syncs, gpa_sync_api(m, r), r) < 0) {
			return -GP_ERR_NOMEM;
		}
		c->have_rec |= gpa_sync_rec_api(m, r) != GPA_NONE;
	}
	return 0;
}

int gpa_critpath_analyze(const struct gpa_model *m, const struct gpa_steps *steps,
			 const struct gpa_critpath_opts *o, struct gpa_critpath *out, char *errbuf,
			 size_t errlen)
{
	struct ctx c = {0};
	int ret;

	memset(out, 0, sizeof(*out));
	if (!m || !o || !o->comm || (!o->window && !steps) ||
	    ((o->speedup_regex && !(o->speedup > 0)))) {
		snprintf(errbuf, errlen, "critical path: bad arguments");
		return -GP_ERR_API;
	}
	out->what_if = o->speedup_regex || o->remove_regex;
	ret = ctx_init(&c, m, o, errbuf, errlen);
	if (!ret) {
		ret = o->window ? run_window(&c, out) : run_steps(&c, steps, out);
	}
	if (ret == -GP_ERR_NOMEM) {
		snprintf(errbuf, errlen, "out of memory");
	}
	ctx_release(&c);
	return ret;
}

void gpa_critpath_release(struct gpa_critpath *c)
{
	gp_vec_free(&c->steps);
	gp_vec_free(&c->segs);
	gp_vec_free(&c->path);
	memset(c, 0, sizeof(*c));
}

const char *gpa_cp_seg_name(const struct gpa_model *m, const struct gpa_cp_seg *g)
{
	if (g->kind == 0) {
		return gpa_model_str(m, gpa_api_name(m, g->row));
	}
	if (g->kind != 1) {
		return "step end";
	}
	uint32_t r = gpa_gpu_row(m, g->row);
	switch (gpa_gpu_kind(m, g->row)) {
	case GPA_GPU_KERNEL: {
		const struct gpa_func *f = &m->funcs.v[gpa_kern_func(m, r)];
		return gpa_model_str(m, f->demangled ? f->demangled : f->name);
	}
	case GPA_GPU_MEMCPY:
		return "memcpy";
	default:
		return "memset";
	}
}
