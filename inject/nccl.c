/* SPDX-License-Identifier: MIT */
/*
 * nccl.c - the NCCL profiler plugin (ncclProfiler_v4, _v5, _v6), the queue
 * NCCL operations take to the writer, and the writer's conversion.
 *
 * NCCL loads this library as its profiler plugin when NCCL_PROFILER_PLUGIN
 * names it (`gpuprof record` sets that). Per communicator NCCL calls init;
 * then, on application threads and on its proxy thread, startEvent,
 * stopEvent and recordEventState. Those are hot paths (STYLE.md 8.3): no
 * malloc, no lock, no stdio, errno preserved, and they always return
 * ncclSuccess.
 *
 * Events live in a fixed table of slots. A slot is FREE, LIVE (started, not
 * stopped) or DONE (stopped, kept because NCCL may still name it as a
 * parent: a collective's kernel-channel events start after the collective
 * itself was stopped at enqueue). The allocator walks the table from a
 * rotating cursor and takes a FREE or DONE slot with a compare-and-swap, so
 * a DONE slot is reused only after about a table's worth of newer events.
 * When none is found within a few probes the event is dropped and counted;
 * its handle is a shared dummy that every callback recognises.
 *
 * What becomes a record:
 *   Coll / P2p (and v6 CeColl) at stopEvent: one NCCL record (its host
 *   start: the parent CollApi/P2pApi event's start when there is one;
 *   `enqueued`/`end`: the stop). KernelCh at stopEvent: one NCCL_CHANNEL
 *   record with the GPU globaltimer readings NCCL gave at start and at the
 *   KernelChStop state; the writer converts them to the trace clock.
 *   CollApi / P2pApi (v5+) push a CUPTI external correlation id (CUSTOM2)
 *   for their duration; KernelLaunch pushes the thread's last API id, so
 *   kernels launched at ncclGroupEnd link to the group's last operation.
 *
 * Parents are checked before use: a handle must point at a slot of our
 * table, of the expected kind. Proxy events (never requested, but handled)
 * may come from another process under PXN: their parentObj is never read.
 *
 * The queue: inject/queue.h's bounded multi-producer single-consumer ring;
 * the writer is the only consumer.
 */
#include "base/compat.h"
#include "inject/inject.h"
#include "inject/queue.h"
#include "inject/nccl-abi.h"

#include <sys/syscall.h>
#include <unistd.h>

#define GPI_EXPORT __attribute__((visibility("default")))

/* ------------------------------------------------------------ the queue */

#define QCAP 8192 /* entries; power of two */

static _Atomic uint64_t q_seq[QCAP];
static struct gpi_nccl_ev q_ev[QCAP];
static struct gpi_queue_ends q_ends;
static const struct gpi_queue queue = GPI_QUEUE_INIT(q_seq, q_ev, &q_ends);
static _Atomic uint64_t next_id;
_Atomic int gpi_nccl_plugin_active;

uint64_t gpi_nccl_next_id(void)
{
	return atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed) + 1;
}

bool gpi_nccl_push(const struct gpi_nccl_ev *ev)
{
	if (atomic_load_explicit(&gpi_s.state, memory_order_relaxed) != GPI_RUNNING) {
		gpi_queue_drop(&queue);
		return false;
	}
	enum gpi_queue_push r = gpi_queue_push(&queue, ev);
	if (r == GPI_QUEUE_WAKE) {
		gpi_session_wake();
	}
	return r != GPI_QUEUE_FULL;
}

bool gpi_nccl_has_data(void)
{
	return gpi_queue_has_data(&queue);
}

uint64_t gpi_nccl_take_dropped(void)
{
	return gpi_queue_take_dropped(&queue);
}

uint32_t gpi_nccl_tid(void)
{
	static __thread uint32_t tid __attribute__((tls_model("initial-exec")));

	if (GP_UNLIKELY(!tid)) {
		tid = (uint32_t)syscall(SYS_gettid);
	}
	return tid;
}

unsigned gpi_nccl_type_size(unsigned dt)
{
	/* ncclInt8 .. ncclFloat8e5m2 (nccl.h 2.28) */
	static const uint8_t size[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
	return dt < GP_ARRAY_SIZE(size) ? size[dt] : 0;
}

/* ------------------------------------------------- plugin: communicators */

#define MAX_COMMS 512

struct pctx {
	uint64_t hash;
	char name[64];
	int nnodes, nranks, rank;
	int version;
	_Atomic int live;
};

static struct pctx comms[MAX_COMMS];
static _Atomic uint32_t ncomms;
static struct pctx overflow_comm; /* past MAX_COMMS: shared, hash 0 */
static _Atomic uint64_t foreign_proxy;
static pid_t my_pid;

/* ------------------------------------------------------ plugin: events */

#define NSLOTS 8192
#define PROBES 32

enum slot_state { S_FREE = 0, S_LIVE = 1, S_DONE = 2 };
enum slot_kind { K_NONE = 0, K_OP = 1, K_API = 2, K_CH = 3 };

struct slot {
	_Atomic uint32_t state;
	uint8_t kind;
	uint8_t graph;
	bool pushed; /* API: whether an external id was pushed */
	struct pctx *ctx;
	uint64_t ext_id, start;
	void *stream;
	struct gpi_nccl_ev ev;
};

static struct slot slots[NSLOTS];
static _Atomic uint64_t cursor;

/* Handles that are not slots: dropped events, events we do not follow, launches. */
static char h_ignored, h_dropped, h_launch_pushed, h_launch;

static __thread uint64_t tls_last_ext __attribute__((tls_model("initial-exec")));

static struct slot *slot_of(void *h)
{
	uintptr_t p = (uintptr_t)h, b = (uintptr_t)slots;

	if (p < b || p >= b + sizeof(slots) || (p - b) % sizeof(struct slot)) {
		return NULL;
	}
	return (struct slot *)h;
}

static struct slot *slot_get(uint8_t kind)
{
	uint64_t c = atomic_fetch_add_explicit(&cursor, 1, memory_order_relaxed);

	for (unsigned i = 0; i < PROBES; i++) {
		struct slot *s = &slots[(c + i * 61) % NSLOTS];
		uint32_t st = atomic_load_explicit(&s->state, memory_order_relaxed);
		if (st == S_LIVE) {
			continue;
		}
		if (atomic_compare_exchange_strong_explicit(&s->state, &st, S_LIVE,
							    memory_order_acquire,
							    memory_order_relaxed)) {
			s->kind = kind;
			s->graph = 0;
			s->pushed = false;
			s->ctx = NULL;
			s->ext_id = s->start = 0;
			s->stream = NULL;
			return s;
		}
	}
	gpi_queue_drop(&queue);
	return NULL;
}

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t i = 0;

	if (src) {
		for (; i + 1 < size && src[i]; i++) {
			dst[i] = src[i];
		}
	}
	dst[i] = '\0';
}

/* The parent API slot of an op, when the handle is one of ours and still an API event. */
static struct slot *api_parent(void *parent)
{
	struct slot *p = slot_of(parent);

	if (!p || p->kind != K_API || atomic_load(&p->state) == S_FREE) {
		return NULL;
	}
	return p;
}

static void op_common(struct slot *s, struct pctx *cx, int rank, void *parent)
{
	struct gpi_nccl_ev *e = &s->ev;
	struct slot *api = api_parent(parent);

	memset(e, 0, sizeof(*e));
	e->kind = GPI_NCCL_OP;
	e->source = GPT_NCCL_SRC_PLUGIN;
	e->datatype = GPI_NCCL_DT_UNKNOWN;
	e->op_id = gpi_nccl_next_id();
	e->comm_hash = cx->hash;
	e->rank = rank;
	e->nranks = cx->nranks;
	e->nodes = cx->nnodes;
	e->root = e->peer = -1;
	e->tid = gpi_nccl_tid();
	e->ctx = cx == &overflow_comm ? 0 : (uint16_t)(cx - comms + 1);
	e->start = gpi_now();
	if (api) {
		/* read the parent, then check it was not reused meanwhile */
		uint64_t ext = api->ext_id, start = api->start;
		void *stream = api->stream;
		uint8_t graph = api->graph;
		if (api->kind == K_API && atomic_load(&api->state) != S_FREE) {
			e->ext_id = ext;
			e->start = start ? start : e->start;
			e->stream_handle = (uint64_t)(uintptr_t)stream;
			e->flags |= graph ? GPT_NCCL_GRAPH_CAPTURED : 0;
		}
	}
	s->ctx = cx;
}

static struct pctx *ctx_of(void *context)
{
	uintptr_t p = (uintptr_t)context, b = (uintptr_t)comms;

	if (p >= b && p < b + sizeof(comms) && (p - b) % sizeof(struct pctx) == 0) {
		return (struct pctx *)context;
	}
	return &overflow_comm;
}

/* startEvent for every version; d is v5-shaped (v4's union sits at the same offset). */
static void *start_event(void *context, uint64_t type, const struct gpi_nccl_descr_v5 *d,
			 int version)
{
	struct pctx *cx = ctx_of(context);
	struct slot *s;

	switch (type) {
	case GPI_NCCL_EV_COLL_API:
	case GPI_NCCL_EV_P2P_API: {
		if (version < 5 || !(s = slot_get(K_API))) {
			return &h_dropped;
		}
		bool coll = type == GPI_NCCL_EV_COLL_API;
		s->ctx = cx;
		s->start = gpi_now();
		s->ext_id = gpi_nccl_next_id();
		s->stream = coll ? d->coll_api.stream : d->p2p_api.stream;
		s->graph = coll ? d->coll_api.graph_captured : d->p2p_api.graph_captured;
		s->pushed = gpi_nccl_extcorr_push(s->ext_id);
		tls_last_ext = s->ext_id;
		return s;
	}
	case GPI_NCCL_EV_KERNEL_LAUNCH:
		if (tls_last_ext && gpi_nccl_extcorr_push(tls_last_ext)) {
			return &h_launch_pushed;
		}
		return &h_launch;
	case GPI_NCCL_EV_COLL: {
		if (!(s = slot_get(K_OP))) {
			return &h_dropped;
		}
		op_common(s, cx, d->rank, d->parent);
		struct gpi_nccl_ev *e = &s->ev;
		e->seq = d->coll.seq;
		e->count = d->coll.count;
		e->root = d->coll.root;
		e->nchannels = d->coll.nchannels;
		e->nwarps = d->coll.nwarps;
		copy_str(e->func, sizeof(e->func), d->coll.func);
		copy_str(e->dtype, sizeof(e->dtype), d->coll.datatype);
		copy_str(e->algo, sizeof(e->algo), d->coll.algo);
		copy_str(e->proto, sizeof(e->proto), d->coll.proto);
		return s;
	}
	case GPI_NCCL_EV_P2P: {
		if (!(s = slot_get(K_OP))) {
			return &h_dropped;
		}
		op_common(s, cx, d->rank, d->parent);
		struct gpi_nccl_ev *e = &s->ev;
		e->flags |= GPT_NCCL_P2P;
		e->count = d->p2p.count;
		e->peer = d->p2p.peer;
		e->nchannels = d->p2p.nchannels;
		copy_str(e->func, sizeof(e->func), d->p2p.func);
		copy_str(e->dtype, sizeof(e->dtype), d->p2p.datatype);
		return s;
	}
	case GPI_NCCL_EV_CE_COLL: {
		if (version < 6 || !(s = slot_get(K_OP))) {
			return &h_dropped;
		}
		op_common(s, cx, d->rank, d->parent);
		struct gpi_nccl_ev *e = &s->ev;
		e->seq = d->ce_coll.seq;
		e->count = d->ce_coll.count;
		e->root = d->ce_coll.root;
		e->stream_handle = e->stream_handle ? e->stream_handle
						    : (uint64_t)(uintptr_t)d->ce_coll.stream;
		copy_str(e->func, sizeof(e->func), d->ce_coll.func);
		copy_str(e->dtype, sizeof(e->dtype), d->ce_coll.datatype);
		copy_str(e->algo, sizeof(e->algo), "CE");
		return s;
	}
	case GPI_NCCL_EV_KERNEL_CH: {
		struct slot *op = slot_of(d->parent);
		if (!op || op->kind != K_OP || atomic_load(&op->state) == S_FREE) {
			return &h_ignored;
		}
		if (!(s = slot_get(K_CH))) {
			return &h_dropped;
		}
		struct gpi_nccl_ev *e = &s->ev;
		uint64_t op_id = op->ev.op_id;
		memset(e, 0, sizeof(*e));
		e->kind = GPI_NCCL_CHANNEL;
		e->comm_hash = op->ev.comm_hash;
		e->seq = op->ev.seq;
		e->rank = op->ev.rank;
		e->op_id = op_id;
		if (op->ev.op_id != op_id || op->kind != K_OP) {
			atomic_store_explicit(&s->state, S_FREE, memory_order_release);
			return &h_ignored; /* the parent was reused while we read it */
		}
		e->channel = d->kernel_ch.channel_id;
		e->gpu_start = d->kernel_ch.ptimer;
		e->start = gpi_now();
		return s;
	}
	case GPI_NCCL_EV_PROXY_OP:
		/* Under PXN the parent may live in another process: never read it. */
		if (d->proxy_op.pid != my_pid) {
			atomic_fetch_add_explicit(&foreign_proxy, 1, memory_order_relaxed);
		}
		return &h_ignored;
	default:
		return &h_ignored;
	}
}

static gpi_nccl_result stop_event(void *h)
{
	int saved = errno;
	struct slot *s;

	if (h == &h_launch_pushed) {
		gpi_nccl_extcorr_pop(true);
	} else if ((s = slot_of(h)) && atomic_load(&s->state) == S_LIVE) {
		switch (s->kind) {
		case K_API:
			gpi_nccl_extcorr_pop(s->pushed);
			s->pushed = false;
			atomic_store_explicit(&s->state, S_DONE, memory_order_release);
			break;
		case K_OP:
			s->ev.end = s->ev.enqueued = gpi_now();
			if (s->ev.end < s->ev.start) {
				s->ev.start = s->ev.end;
			}
			gpi_nccl_push(&s->ev);
			atomic_store_explicit(&s->state, S_DONE, memory_order_release);
			break;
		case K_CH:
			s->ev.end = gpi_now();
			gpi_nccl_push(&s->ev);
			atomic_store_explicit(&s->state, S_FREE, memory_order_release);
			break;
		default:
			break;
		}
	}
	errno = saved;
	return 0;
}

static gpi_nccl_result record_event_state(void *h, gpi_nccl_state st, union gpi_nccl_state_args *a)
{
	struct slot *s = slot_of(h);

	if (s && a && st == GPI_NCCL_ST_KERNEL_CH_STOP && s->kind == K_CH &&
	    atomic_load_explicit(&s->state, memory_order_relaxed) == S_LIVE) {
		s->ev.gpu_end = a->kernel_ch.ptimer;
	}
	return 0;
}

static gpi_nccl_result start_v5(void *ctx, void **handle, struct gpi_nccl_descr_v5 *d, int version)
{
	int saved = errno;
	void *h = &h_ignored;

	if (d && atomic_load_explicit(&gpi_s.state, memory_order_relaxed) == GPI_RUNNING) {
		h = start_event(ctx, d->type, d, version);
	}
	if (handle) {
		*handle = h;
	}
	errno = saved;
	return 0;
}

static gpi_nccl_result p_start_v5(void *ctx, void **handle, struct gpi_nccl_descr_v5 *d)
{
	return start_v5(ctx, handle, d, 5);
}

static gpi_nccl_result p_start_v6(void *ctx, void **handle, struct gpi_nccl_descr_v5 *d)
{
	return start_v5(ctx, handle, d, 6);
}

_Static_assert(offsetof(struct gpi_nccl_descr_v4, coll) == offsetof(struct gpi_nccl_descr_v5, coll),
	       "v4 and v5 descriptor unions differ in offset");
_Static_assert(offsetof(struct gpi_nccl_descr_v4, parent) ==
		       offsetof(struct gpi_nccl_descr_v5, parent),
	       "v4 and v5 parent offsets differ");

static gpi_nccl_result p_start_v4(void *ctx, void **handle, struct gpi_nccl_descr_v4 *d)
{
	int saved = errno;
	void *h = &h_ignored;

	if (d && atomic_load_explicit(&gpi_s.state, memory_order_relaxed) == GPI_RUNNING) {
		/* Same layout from .parent on; only the type's width differs. */
		h = start_event(ctx, d->type, (const struct gpi_nccl_descr_v5 *)(const void *)d, 4);
	}
	if (handle) {
		*handle = h;
	}
	errno = saved;
	return 0;
}

/* init: cold (communicator creation). Starts the session if CUDA has not yet. */
static gpi_nccl_result init_common(void **ctx, uint64_t hash, int *mask, const char *name,
				   int nnodes, int nranks, int rank, int version)
{
	int saved = errno;
	struct pctx *cx = &overflow_comm;

	if (mask) {
		*mask = 0;
	}
	if (ctx) {
		*ctx = cx;
	}
	if (!gpi_session_start()) {
		errno = saved;
		return 0; /* nothing requested: NCCL calls us no more */
	}
	my_pid = getpid();
	uint32_t i = atomic_fetch_add(&ncomms, 1);
	if (i < MAX_COMMS) {
		cx = &comms[i];
		cx->hash = hash;
		copy_str(cx->name, sizeof(cx->name), name);
		cx->nnodes = nnodes;
		cx->nranks = nranks;
		cx->rank = rank;
		cx->version = version;
		atomic_store(&cx->live, 1);
	} else {
		gpi_queue_drop(&queue);
	}
	if (ctx) {
		*ctx = cx;
	}
	if (mask) {
		*mask = GPI_NCCL_EV_COLL | GPI_NCCL_EV_P2P | GPI_NCCL_EV_KERNEL_CH;
		if (version >= 5) {
			*mask |= GPI_NCCL_EV_COLL_API | GPI_NCCL_EV_P2P_API |
				 GPI_NCCL_EV_KERNEL_LAUNCH;
		}
		if (version >= 6) {
			*mask |= GPI_NCCL_EV_CE_COLL;
		}
	}
	atomic_store(&gpi_nccl_plugin_active, 1);
	gpi_dbg("nccl plugin v%d: comm %llx rank %d/%d nodes %d", version,
		(unsigned long long)hash, rank, nranks, nnodes);
	errno = saved;
	return 0;
}

static gpi_nccl_result p_init_v4(void **ctx, int *mask, const char *name, uint64_t hash,
				 int nnodes, int nranks, int rank, gpi_nccl_logger log)
{
	(void)log;
	return init_common(ctx, hash, mask, name, nnodes, nranks, rank, 4);
}

static gpi_nccl_result p_init_v5(void **ctx, uint64_t id, int *mask, const char *name, int nnodes,
				 int nranks, int rank, gpi_nccl_logger log)
{
	(void)log;
	return init_common(ctx, id, mask, name, nnodes, nranks, rank, 5);
}

static gpi_nccl_result p_init_v6(void **ctx, uint64_t id, int *mask, const char *name, int nnodes,
				 int nranks, int rank, gpi_nccl_logger log)
{
	(void)log;
	return init_common(ctx, id, mask, name, nnodes, nranks, rank, 6);
}

static gpi_nccl_result p_finalize(void *ctx)
{
	struct pctx *cx = ctx_of(ctx);

	/* The slot stays: queued events may still name it. */
	atomic_store(&cx->live, 0);
	return 0;
}

GPI_EXPORT const struct gpi_nccl_profiler_v4 ncclProfiler_v4 = {
	"gpuprof", p_init_v4, p_start_v4, stop_event, record_event_state, p_finalize,
};
GPI_EXPORT const struct gpi_nccl_profiler_v5 ncclProfiler_v5 = {
	"gpuprof", p_init_v5, p_start_v5, stop_event, record_event_state, p_finalize,
};
GPI_EXPORT const struct gpi_nccl_profiler_v5 ncclProfiler_v6 = {
	"gpuprof", p_init_v6, p_start_v6, stop_event, record_event_state, p_finalize,
};

/* ---------------------------------------------------------- the writer */

static const char *const type_names[] = {
	"ncclInt8",    "ncclUint8",   "ncclInt32",	"ncclUint32",	  "ncclInt64",	    "ncclUint64",
	"ncclFloat16", "ncclFloat32", "ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2",
};

static unsigned type_from_name(const char *s)
{
	for (unsigned i = 0; i < GP_ARRAY_SIZE(type_names); i++) {
		if (!strcmp(s, type_names[i])) {
			return i;
		}
	}
	/* older spellings */
	if (!strcmp(s, "ncclChar")) {
		return 0;
	}
	if (!strcmp(s, "ncclInt") || !strcmp(s, "ncclInt32")) {
		return 2;
	}
	if (!strcmp(s, "ncclHalf")) {
		return 6;
	}
	if (!strcmp(s, "ncclFloat")) {
		return 7;
	}
	if (!strcmp(s, "ncclDouble")) {
		return 8;
	}
	return GPI_NCCL_DT_UNKNOWN;
}

static uint32_t intern_opt(struct gpi_conv *cv, const char *s)
{
	return s[0] ? gpi_conv_intern(cv, s) : 0;
}

static void conv_op(struct gpi_conv *cv, struct gpi_nccl_ev *e)
{
	unsigned dt = e->datatype;

	if (dt == GPI_NCCL_DT_UNKNOWN && e->dtype[0]) {
		dt = type_from_name(e->dtype);
	}
	struct gpt_nccl r = {
		.start = e->start,
		.end = e->end,
		.func = intern_opt(cv, e->func),
		.count = e->count,
		.datatype = (uint8_t)dt,
		.bytes = e->bytes ? e->bytes : e->count * gpi_nccl_type_size(dt),
		.root = e->root,
		.peer = e->peer,
		.comm_hash = e->comm_hash,
		.rank = e->rank,
		.nranks = e->nranks,
		.algorithm = intern_opt(cv, e->algo),
		.protocol = intern_opt(cv, e->proto),
		.channels = e->nchannels,
		.external_id = e->ext_id,
		.seq = e->seq,
		.tid = e->tid,
		.reduce_op = e->reduce_op,
		.source = e->source,
		.nodes = e->nodes > 0 ? (uint32_t)e->nodes : 0,
		.enqueued = e->enqueued,
		.gpu_start = 0,
		.gpu_end = 0,
		.op_id = e->op_id,
		.warps = e->nwarps,
		.stream_handle = e->stream_handle,
		.flags = e->flags,
	};
	if (e->ctx && e->ctx <= MAX_COMMS && comms[e->ctx - 1].name[0]) {
		r.comm_name = gpi_conv_intern(cv, comms[e->ctx - 1].name);
	}
	if (e->tid) {
		gpi_conv_note_tid(cv, e->tid);
	}
	gpi_conv_add(cv, GPT_KIND_NCCL, &r);
}

/* GPU globaltimer to the trace clock: the globaltimer follows the host's real-time clock. */
static uint64_t gpu_to_trace(uint64_t g, int64_t off)
{
	if (!g) {
		return 0;
	}
	int64_t v = (int64_t)g - off;
	return v > 0 ? (uint64_t)v : 0;
}

static void conv_channel(struct gpi_conv *cv, const struct gpi_nccl_ev *e, int64_t off)
{
	struct gpt_nccl_channel r = {
		.op_id = e->op_id,
		.channel = e->channel,
		.comm_hash = e->comm_hash,
		.seq = e->seq,
		.rank = e->rank,
		.gpu_start = e->gpu_start,
		.gpu_end = e->gpu_end,
	};
	if (e->gpu_start) {
		r.start = gpu_to_trace(e->gpu_start, off);
		r.end = e->gpu_end >= e->gpu_start ? gpu_to_trace(e->gpu_end, off) : r.start;
	} else {
		/* no GPU timer: when the proxy saw it start and stop */
		r.start = e->start;
		r.end = e->end;
	}
	gpi_conv_add(cv, GPT_KIND_NCCL_CHANNEL, &r);
}

void gpi_nccl_drain(struct gpi_conv *cv)
{
	int64_t off = 0;
	bool have_off = false;

	struct gpi_nccl_ev e;

	while (gpi_queue_pop(&queue, &e)) {
		if (!have_off) {
			off = (int64_t)(gp_clock_realtime_ns() - gpi_now());
			have_off = true;
		}
		if (e.kind == GPI_NCCL_OP) {
			if (gpi_capture_keep(e.start)) {
				conv_op(cv, &e);
			}
		} else if (e.kind == GPI_NCCL_CHANNEL) {
			conv_channel(cv, &e, off);
		}
	}
	uint64_t f = atomic_exchange(&foreign_proxy, 0);
	if (f) {
		gpi_dbg("nccl: %llu proxy events from other processes (PXN), parents not read",
			(unsigned long long)f);
	}
}
