/* SPDX-License-Identifier: MIT */
/*
 * nvtx.c - our NVTX v3 injection: InitializeInjectionNvtx2's work, the hot
 * paths, and the writer's side that turns per-thread events into ranges.
 *
 * Hot paths (push, pop, start, end, mark): one thread-local pointer to the
 * thread's buffer (a single-producer, single-consumer chain of blocks from
 * the pool's shared NVTX blocks), a tick from the CPU counter, the event
 * copied into the current block and its length published with a release
 * store. No malloc, no lock, no stdio, no system call, errno preserved; an
 * initial-exec TLS guard drops re-entry (a signal handler that uses NVTX
 * while the thread is inside one of us). A thread's first event claims a
 * free buffer and a block with compare-and-swaps and registers a thread-exit
 * destructor; a full block is followed by a free one (compare-and-swap, once
 * per block); when none is free the event is dropped and counted
 * (GPT_LOSS_NVTX_BUFFER).
 *
 * Registration calls (domains, registered strings) are cold: they allocate
 * and take reg_mu. Handles are never freed, so the writer may read them at
 * any time. Lock order: reg_mu is a leaf; it is never held with start_mu.
 *
 * The writer drains every chain (gpi_nvtx_drain), returns read blocks,
 * pairs pushes with pops per thread and domain and starts with ends by id
 * (ends may come from another thread, and may be drained first), and
 * converts ticks to the trace clock.
 */
#include "base/compat.h"
#include "inject/inject.h"

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <wchar.h>

#define MAX_MSG 2048 /* longer messages are cut (bytes of UTF-8) */
#define DOMAIN_MAGIC 0x6770646fu
#define RSTR_MAGIC 0x67707273u

enum ev_type {
	EV_PAD = 0,
	EV_PUSH = 1,
	EV_POP = 2,
	EV_START = 3,
	EV_END = 4,
	EV_MARK = 5,
	EV_NAME = 6, /* id names a thread, category, device, context or stream */
	EV_PUSH_SHORT = 7, /* nvtxRangePushA/W: struct ev_short, no domain, no attributes */
	EV_POP_SHORT = 8,  /* nvtxRangePop: struct ev_short without a message */
};

enum name_kind {
	NAME_THREAD = 1,
	NAME_CATEGORY = 2,
	NAME_DEVICE = 3,
	NAME_CONTEXT = 4,
	NAME_STREAM = 5,
};

enum msg_type {
	MSG_NONE = 0,
	MSG_INLINE = 1,	    /* UTF-8 bytes follow the event */
	MSG_REGISTERED = 2, /* 'handle' is a struct rstr * */
};

#define EVF_TRIGGER 0x1 /* the range that opened the NVTX capture window */

/* One event in a ring; sizes are multiples of 8. */
struct ev {
	uint32_t size;
	uint8_t type;
	uint8_t mtype;
	uint8_t flags;
	uint8_t name_kind;
	uint64_t tick;
	const struct domain *domain;
	uint64_t id;	 /* range id (start/end), category, thread, device... */
	uint64_t handle; /* registered string; second id for names */
};

/*
 * The short form of the commonest pair, nvtxRangePushA + nvtxRangePop:
 * 16 bytes and the message (a pop 16), against 64 and 24 in the full form,
 * so a block holds twice the ranges and the writer reads half the bytes.
 */
struct ev_short {
	uint32_t size;
	uint8_t type;
	uint8_t flags;
	uint16_t msglen;
	uint64_t tick;
	char msg[];
};

struct ev_attr {
	struct ev h;
	uint64_t payload;
	uint32_t category;
	uint32_t color;
	uint8_t color_type;
	uint8_t payload_type;
	uint16_t msglen;
	uint32_t pad;
	char msg[];
};

struct domain {
	uint32_t magic;
	char *name;
	bool capture; /* matches GPUPROF_CAPTURE's domain */
};

struct rstr {
	uint32_t magic;
	const struct domain *domain;
	char *text;
	bool capture; /* matches GPUPROF_CAPTURE's range name */
};

enum tb_state {
	TB_FREE = 0,
	TB_ACTIVE = 1,
	TB_DEAD = 2, /* its thread ended; the writer drains and frees it */
};

struct open_range {
	const struct domain *domain;
	uint64_t start;
	uint32_t message;
	uint64_t message_num; /* a flight ring's pattern number, 0 none */
	uint32_t category, color;
	uint8_t color_type, payload_type, flags;
	uint64_t payload;
};

/*
 * Thread buffers are chains of blocks from one shared set (the NVTX quarter
 * of the pool), so a busy thread may hold many blocks while idle threads
 * hold one: the budget goes where the events are. A block starts with its
 * header: 'used' (bytes written, published with a release store after each
 * event) and 'next' (the block the producer moved on to, or BLK_NONE). The
 * producer links a new block only after its last event in the old one, so
 * once the writer sees 'next' it knows 'used' is final, reads the rest and
 * puts the block back on the free stack. Free blocks form a lock-free stack
 * (index and a tag against ABA in one 64-bit word): producers pop, the
 * writer pushes. A thread that finds no free block drops the event (counted).
 *
 * The producer's fields and the writer's sit on separate cache lines.
 */
#define BLK_NONE UINT32_MAX
#define BLK_HDR 64u

struct blk_hdr {
	_Atomic uint32_t used; /* bytes written, header included */
	_Atomic uint32_t next; /* the following block, BLK_NONE until linked */
};

struct tbuf {
	/* the producer's line */
	_Alignas(64) uint8_t *cur; /* the block being written */
	uint32_t off;		   /* bytes written in cur */
	uint32_t depth;		   /* push depth, all domains */
	uint32_t index;
	uint32_t tid;
	uint64_t pthread;
	_Atomic uint32_t first; /* the thread's first block, published once claimed */
	/* the writer's line */
	_Alignas(64) uint32_t rd; /* the block being read, BLK_NONE before the first */
	uint32_t rd_off;
	_Atomic int state;
	struct open_range *open;
	size_t nopen, capopen;
	bool announced;
};

static struct tbuf *tbufs;
/* Published with a release store once tbufs is ready; the writer may look any time. */
static _Atomic uint32_t ntbufs_pub;
#define ntbufs atomic_load_explicit(&ntbufs_pub, memory_order_acquire)
static _Atomic uint32_t tb_generation; /* bumped whenever a buffer is freed */
static pthread_key_t tb_key;
static bool nvtx_on;
static _Atomic uint64_t dropped;
static _Atomic int init_state; /* 0 fresh, 1 in progress, 2 done ok, 3 declined */
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;

/* The blocks: nblk of blk_bytes each from blk_base; the free stack. */
static uint8_t *blk_base;
static uint32_t nblk, blk_bytes;
static _Atomic uint32_t *blk_link; /* the free stack's next, by block */
static _Atomic uint64_t blk_top;   /* tag << 32 | top block (BLK_NONE: empty) */
static _Atomic uint32_t blk_nfree;
static _Atomic bool pressure; /* the writer was woken because blocks run short */

static void pending_reset_after_fork(void);
struct pending;
static struct pending *pend; /* start/end ranges waiting for their other half (writer) */
static const void *mcache_w;  /* the trace writer the message cache is for (writer) */

static __thread struct tbuf *tls_buf __attribute__((tls_model("initial-exec")));
static __thread uint32_t tls_gen __attribute__((tls_model("initial-exec")));
static __thread uint8_t tls_guard __attribute__((tls_model("initial-exec")));

/* NVTX capture (GPI_CAPTURE_NVTX): armed until the first matching range starts. */
static _Atomic bool cap_armed;
static struct tbuf *_Atomic cap_tbuf;
static uint32_t cap_depth;
static const struct domain *cap_domain;
static _Atomic uint64_t cap_range_id;

/* ----------------------------------------------------------- buffers */

static inline uint8_t *blk_at(uint32_t i)
{
	return blk_base + (size_t)i * blk_bytes;
}

static inline struct blk_hdr *blk_hdr(uint32_t i)
{
	return (struct blk_hdr *)blk_at(i);
}

static inline uint32_t blk_index(const uint8_t *p)
{
	return (uint32_t)((size_t)(p - blk_base) / blk_bytes);
}

/* A free block, ready to write (BLK_NONE when none is left). Lock-free. */
static uint32_t blk_pop(void)
{
	uint64_t top = atomic_load_explicit(&blk_top, memory_order_acquire);

	for (;;) {
		uint32_t i = (uint32_t)top;
		if (i == BLK_NONE) {
			return BLK_NONE;
		}
		uint32_t nx = atomic_load_explicit(&blk_link[i], memory_order_relaxed);
		uint64_t want = ((top >> 32) + 1) << 32 | nx;
		if (atomic_compare_exchange_weak_explicit(&blk_top, &top, want,
							  memory_order_acquire,
							  memory_order_acquire)) {
			atomic_fetch_sub_explicit(&blk_nfree, 1, memory_order_relaxed);
			struct blk_hdr *h = blk_hdr(i);
			atomic_store_explicit(&h->used, BLK_HDR, memory_order_relaxed);
			atomic_store_explicit(&h->next, BLK_NONE, memory_order_relaxed);
			return i;
		}
	}
}

/* Gives a block back (the writer, or a claim that found no thread buffer). */
static void blk_push(uint32_t i)
{
	uint64_t top = atomic_load_explicit(&blk_top, memory_order_relaxed);

	for (;;) {
		atomic_store_explicit(&blk_link[i], (uint32_t)top, memory_order_relaxed);
		uint64_t want = ((top >> 32) + 1) << 32 | i;
		if (atomic_compare_exchange_weak_explicit(&blk_top, &top, want,
							  memory_order_release,
							  memory_order_relaxed)) {
			atomic_fetch_add_explicit(&blk_nfree, 1, memory_order_relaxed);
			return;
		}
	}
}

/* All blocks free (at start, and in a fork child but for keep). */
static void blk_reset(uint32_t keep)
{
	atomic_store(&blk_top, (uint64_t)BLK_NONE);
	atomic_store(&blk_nfree, 0);
	for (uint32_t i = nblk; i-- > 0;) {
		if (i != keep) {
			blk_push(i);
		}
	}
}

static void tb_thread_exit(void *arg)
{
	struct tbuf *b = arg;

	if (b) {
		atomic_store_explicit(&b->state, TB_DEAD, memory_order_release);
	}
	tls_buf = NULL;
}

/* Claims a buffer and its first block for the calling thread (its first event). Lock-free. */
static struct tbuf *tb_claim(void)
{
	int saved = errno;
	struct tbuf *ret = NULL;
	uint32_t gen = atomic_load_explicit(&tb_generation, memory_order_acquire);

	if (tls_gen == gen + 1) {
		return NULL; /* failed before and nothing was freed since */
	}
	uint32_t blk = blk_pop();
	if (blk == BLK_NONE) {
		errno = saved;
		return NULL; /* no block now; one may be free at the next event */
	}
	for (uint32_t i = 0; i < ntbufs && !ret; i++) {
		struct tbuf *b = &tbufs[i];
		int expect = TB_FREE;
		if (atomic_load_explicit(&b->state, memory_order_relaxed) == TB_FREE &&
		    atomic_compare_exchange_strong(&b->state, &expect, TB_ACTIVE)) {
			b->tid = (uint32_t)syscall(SYS_gettid);
			b->pthread = (uint64_t)pthread_self();
			b->depth = 0;
			b->cur = blk_at(blk);
			b->off = BLK_HDR;
			atomic_store_explicit(&b->first, blk, memory_order_release);
			tls_buf = b;
			/* A key below PTHREAD_KEY_2NDLEVEL_SIZE: glibc does not allocate here. */
			pthread_setspecific(tb_key, b);
			ret = b;
		}
	}
	if (!ret) {
		blk_push(blk);
		tls_gen = gen + 1;
	}
	errno = saved;
	return ret;
}

static inline struct tbuf *tb_get(void)
{
	struct tbuf *b = tls_buf;

	if (GP_LIKELY(b != NULL)) {
		return b;
	}
	return tb_claim();
}

/* The current block is full: moves to a fresh one, linked after it. */
__attribute__((noinline)) static bool tb_next_block(struct tbuf *b)
{
	uint32_t nb = blk_pop();

	if (nb == BLK_NONE) {
		return false;
	}
	/* after the last event's release store: the writer sees 'used' final */
	atomic_store_explicit(&((struct blk_hdr *)b->cur)->next, nb, memory_order_release);
	b->cur = blk_at(nb);
	b->off = BLK_HDR;
	if (atomic_load_explicit(&blk_nfree, memory_order_relaxed) < nblk / 2 &&
	    !atomic_load_explicit(&pressure, memory_order_relaxed)) {
		/* half the blocks in use: wake the writer early (one non-blocking write) */
		atomic_store_explicit(&pressure, true, memory_order_relaxed);
		gpi_session_wake();
	}
	return true;
}

/* Room for size bytes in the thread's block, or NULL (no free block). */
static inline void *ring_reserve(struct tbuf *b, uint32_t size, uint64_t *headp)
{
	(void)headp;
	if (GP_UNLIKELY(b->off + size > blk_bytes) && !tb_next_block(b)) {
		return NULL;
	}
	return b->cur + b->off;
}

static inline void ring_commit(struct tbuf *b, uint64_t head, uint32_t size)
{
	(void)head;
	b->off += size;
	atomic_store_explicit(&((struct blk_hdr *)b->cur)->used, b->off, memory_order_release);
}

static inline void drop(void)
{
	atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
}

/* --------------------------------------------------------- messages */

/* Copies a wide string as UTF-8; returns bytes written (at most max). */
static size_t wide_to_utf8(const wchar_t *w, char *out, size_t max)
{
	size_t n = 0;

	for (; *w; w++) {
		uint32_t c = (uint32_t)*w;
		char tmp[4];
		size_t k;
		if (c < 0x80) {
			tmp[0] = (char)c;
			k = 1;
		} else if (c < 0x800) {
			tmp[0] = (char)(0xc0 | (c >> 6));
			tmp[1] = (char)(0x80 | (c & 0x3f));
			k = 2;
		} else if (c < 0x10000) {
			tmp[0] = (char)(0xe0 | (c >> 12));
			tmp[1] = (char)(0x80 | ((c >> 6) & 0x3f));
			tmp[2] = (char)(0x80 | (c & 0x3f));
			k = 3;
		} else if (c < 0x110000) {
			tmp[0] = (char)(0xf0 | (c >> 18));
			tmp[1] = (char)(0x80 | ((c >> 12) & 0x3f));
			tmp[2] = (char)(0x80 | ((c >> 6) & 0x3f));
			tmp[3] = (char)(0x80 | (c & 0x3f));
			k = 4;
		} else {
			tmp[0] = '?';
			k = 1;
		}
		if (n + k > max) {
			break;
		}
		memcpy(out + n, tmp, k);
		n += k;
	}
	return n;
}

static size_t wide_utf8_len(const wchar_t *w)
{
	char tmp[MAX_MSG];
	return wide_to_utf8(w, tmp, sizeof(tmp));
}

/* The message of an event, described before it is copied. */
struct msg {
	int type; /* enum msg_type */
	const char *a;
	const wchar_t *w;
	const struct rstr *reg;
	size_t len; /* inline bytes */
};

static inline void msg_from_attr(const nvtxEventAttributes_t *at, struct msg *m)
{
	m->a = NULL;
	m->w = NULL;
	m->reg = NULL;
	m->len = 0;
	m->type = MSG_NONE;
	switch (at->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		if (at->message.ascii) {
			m->a = at->message.ascii;
			m->len = strnlen(m->a, MAX_MSG);
			m->type = MSG_INLINE;
		}
		break;
	case NVTX_MESSAGE_TYPE_UNICODE:
		if (at->message.unicode) {
			m->w = at->message.unicode;
			m->len = wide_utf8_len(m->w);
			m->type = MSG_INLINE;
		}
		break;
	case NVTX_MESSAGE_TYPE_REGISTERED: {
		const struct rstr *r = (const struct rstr *)at->message.registered;
		if (r && r->magic == RSTR_MAGIC) {
			m->reg = r;
			m->type = MSG_REGISTERED;
		}
		break;
	}
	default:
		break;
	}
}

static inline bool msg_matches_capture(const struct msg *m, const struct domain *d)
{
	const struct gpi_config *c = &gpi_s.cfg;

	if (c->capture_nvtx_domain[0] ? !(d && d->capture) : false) {
		return false;
	}
	if (m->type == MSG_REGISTERED) {
		return m->reg->capture;
	}
	if (m->a) {
		return m->len == strlen(c->capture_nvtx) && !memcmp(m->a, c->capture_nvtx, m->len);
	}
	if (m->w) {
		char tmp[MAX_MSG];
		size_t n = wide_to_utf8(m->w, tmp, sizeof(tmp));
		return n == strlen(c->capture_nvtx) && !memcmp(tmp, c->capture_nvtx, n);
	}
	return false;
}

/* ------------------------------------------------------------- events */

/* Fills and commits a short push (EV_PUSH_SHORT) at e. */
static inline void emit_short(struct tbuf *b, uint64_t head, uint32_t size, uint8_t flags,
			      const struct msg *m, struct ev_short *e)
{
	e->size = size;
	e->type = EV_PUSH_SHORT;
	e->flags = flags;
	e->msglen = (uint16_t)(m->type == MSG_INLINE ? m->len : 0);
	e->tick = gpi_tick();
	if (m->a) {
		memcpy(e->msg, m->a, m->len);
	} else if (m->w) {
		wide_to_utf8(m->w, e->msg, m->len);
	}
	ring_commit(b, head, size);
}

/*
 * Writes one range or mark event. Returns the push depth for EV_PUSH, 0
 * otherwise, or -1 when the event was dropped.
 */
static inline int emit_attr(uint8_t type, const struct domain *dom, const nvtxEventAttributes_t *at,
			    const struct msg *m, uint64_t id)
{
	struct tbuf *b;
	struct ev_attr *e;
	uint64_t head;
	uint32_t size;
	uint8_t flags = 0;
	int depth = 0;

	if (GP_UNLIKELY(!nvtx_on) || GP_UNLIKELY(tls_guard)) {
		return -1;
	}
	tls_guard = 1;
	b = tb_get();
	if (GP_UNLIKELY(!b)) {
		drop();
		tls_guard = 0;
		return -1;
	}
	if (GP_UNLIKELY(atomic_load_explicit(&cap_armed, memory_order_relaxed)) &&
	    type != EV_MARK && msg_matches_capture(m, dom)) {
		bool expect = true;
		if (atomic_compare_exchange_strong(&cap_armed, &expect, false)) {
			flags |= EVF_TRIGGER;
			gpi_window_open(gpi_now(), 0);
			if (type == EV_PUSH) {
				cap_depth = b->depth;
				cap_domain = dom;
				atomic_store(&cap_tbuf, b);
			} else {
				atomic_store(&cap_range_id, id);
			}
		}
	}
	const bool brief = !at && !dom && type == EV_PUSH && m->type != MSG_REGISTERED;
	size = (uint32_t)(((brief ? sizeof(struct ev_short) : sizeof(*e)) +
			   (m->type == MSG_INLINE ? m->len : 0) + 7) &
			  ~(size_t)7);
	e = ring_reserve(b, size, &head);
	if (GP_UNLIKELY(!e)) {
		drop();
		if (type == EV_PUSH) {
			depth = (int)b->depth++; /* keep the nesting right for the pop */
		}
		tls_guard = 0;
		return type == EV_PUSH ? depth : -1;
	}
	if (brief) {
		emit_short(b, head, size, flags, m, (struct ev_short *)e);
		depth = (int)b->depth++;
		tls_guard = 0;
		return depth;
	}
	e->h.size = size;
	e->h.type = type;
	e->h.flags = flags;
	e->h.mtype = (uint8_t)m->type;
	e->h.tick = gpi_tick();
	e->h.domain = dom;
	e->h.id = id;
	e->h.handle = (uint64_t)(uintptr_t)m->reg;
	if (at) {
		e->payload = at->payload.ullValue;
		e->category = at->category;
		e->color = at->color;
		e->color_type = (uint8_t)at->colorType;
		e->payload_type = (uint8_t)at->payloadType;
	} else {
		e->payload = 0;
		e->category = 0;
		e->color = 0;
		e->color_type = 0;
		e->payload_type = 0;
	}
	e->msglen = (uint16_t)(m->type == MSG_INLINE ? m->len : 0);
	if (m->type == MSG_INLINE) {
		if (m->a) {
			memcpy(e->msg, m->a, m->len);
		} else {
			wide_to_utf8(m->w, e->msg, m->len);
		}
	}
	ring_commit(b, head, size);
	if (type == EV_PUSH) {
		depth = (int)b->depth++;
	}
	tls_guard = 0;
	return depth;
}

/* Writes a pop or an end. */
static inline int emit_end(uint8_t type, const struct domain *dom, uint64_t id)
{
	struct tbuf *b;
	struct ev *e;
	uint64_t head;
	int depth = 0;

	if (GP_UNLIKELY(!nvtx_on) || GP_UNLIKELY(tls_guard)) {
		return -1;
	}
	tls_guard = 1;
	b = tb_get();
	if (GP_UNLIKELY(!b)) {
		drop();
		tls_guard = 0;
		return -1;
	}
	/* a pop needs no id: its event stops before that field; nor a domain, if none */
	const bool brief = type == EV_POP && !dom;
	const uint32_t size = brief		? sizeof(struct ev_short)
			      : type == EV_POP ? offsetof(struct ev, id)
						: sizeof(*e);
	e = ring_reserve(b, size, &head);
	if (GP_LIKELY(e != NULL) && brief) {
		struct ev_short *sh = (struct ev_short *)e;
		sh->size = size;
		sh->type = EV_POP_SHORT;
		sh->flags = 0;
		sh->msglen = 0;
		sh->tick = gpi_tick();
		ring_commit(b, head, size);
	} else if (GP_LIKELY(e != NULL)) {
		e->size = size;
		e->type = type;
		e->mtype = MSG_NONE;
		e->flags = 0;
		e->tick = gpi_tick();
		e->domain = dom;
		if (type != EV_POP) {
			e->id = id;
		}
		ring_commit(b, head, size);
	} else {
		drop();
	}
	if (type == EV_POP) {
		if (b->depth) {
			b->depth--;
		}
		depth = (int)b->depth;
		if (GP_UNLIKELY(atomic_load_explicit(&cap_tbuf, memory_order_relaxed) == b) &&
		    depth == (int)cap_depth && dom == cap_domain) {
			atomic_store(&cap_tbuf, NULL);
			gpi_window_close(gpi_now(), 0);
			gpi_session_wake();
		}
	} else if (GP_UNLIKELY(id &&
			       atomic_load_explicit(&cap_range_id, memory_order_relaxed) == id)) {
		atomic_store(&cap_range_id, 0);
		gpi_window_close(gpi_now(), 0);
		gpi_session_wake();
	}
	tls_guard = 0;
	return depth;
}

/* A name for a thread, category or CUDA object; cold but may come from any thread. */
static void emit_name(uint8_t kind, const struct domain *dom, uint64_t id, uint64_t id2,
		      const char *a, const wchar_t *w)
{
	struct msg m = {.type = MSG_INLINE, .a = a, .w = w};
	struct tbuf *b;
	struct ev_attr *e;
	uint64_t head;
	uint32_t size;

	if (!nvtx_on || tls_guard || (!a && !w)) {
		return;
	}
	tls_guard = 1;
	m.len = a ? strnlen(a, MAX_MSG) : wide_utf8_len(w);
	b = tb_get();
	size = (uint32_t)((sizeof(*e) + m.len + 7) & ~(size_t)7);
	if (!b || !(e = ring_reserve(b, size, &head))) {
		drop();
		tls_guard = 0;
		return;
	}
	memset(e, 0, sizeof(*e));
	e->h.size = size;
	e->h.type = EV_NAME;
	e->h.name_kind = kind;
	e->h.mtype = MSG_INLINE;
	e->h.tick = gpi_tick();
	e->h.domain = dom;
	e->h.id = id;
	e->h.handle = id2;
	e->msglen = (uint16_t)m.len;
	if (a) {
		memcpy(e->msg, a, m.len);
	} else {
		wide_to_utf8(w, e->msg, m.len);
	}
	ring_commit(b, head, size);
	tls_guard = 0;
}

static inline uint64_t new_range_id(void)
{
	/* per-thread id spaces: no shared counter on the hot path */
	static __thread uint64_t next __attribute__((tls_model("initial-exec")));
	struct tbuf *b = tb_get();
	uint64_t idx = b ? b->index + 1 : 0;

	return (idx << 40) | (++next & ((1ULL << 40) - 1));
}

/* ------------------------------------------------------ the NVTX API */

static const struct domain *dom_of(nvtxDomainHandle_t h)
{
	const struct domain *d = (const struct domain *)h;
	return d && d->magic == DOMAIN_MAGIC ? d : NULL;
}

static void NVTX_API x_DomainMarkEx(nvtxDomainHandle_t dh, const nvtxEventAttributes_t *at)
{
	struct msg m;

	if (at) {
		msg_from_attr(at, &m);
		emit_attr(EV_MARK, dom_of(dh), at, &m, 0);
	}
}

static void NVTX_API x_MarkEx(const nvtxEventAttributes_t *at)
{
	x_DomainMarkEx(NULL, at);
}

static void NVTX_API x_MarkA(const char *s)
{
	struct msg m = {
		.type = s ? MSG_INLINE : MSG_NONE, .a = s, .len = s ? strnlen(s, MAX_MSG) : 0};

	emit_attr(EV_MARK, NULL, NULL, &m, 0);
}

static void NVTX_API x_MarkW(const wchar_t *s)
{
	struct msg m = {.type = s ? MSG_INLINE : MSG_NONE, .w = s, .len = s ? wide_utf8_len(s) : 0};

	emit_attr(EV_MARK, NULL, NULL, &m, 0);
}

static nvtxRangeId_t NVTX_API x_DomainRangeStartEx(nvtxDomainHandle_t dh,
						   const nvtxEventAttributes_t *at)
{
	struct msg m;
	uint64_t id;

	if (!at || !nvtx_on) {
		return 0;
	}
	msg_from_attr(at, &m);
	id = new_range_id();
	if (emit_attr(EV_START, dom_of(dh), at, &m, id) < 0 && !tls_buf) {
		id = 0;
	}
	return id;
}

static nvtxRangeId_t NVTX_API x_RangeStartEx(const nvtxEventAttributes_t *at)
{
	return x_DomainRangeStartEx(NULL, at);
}

static nvtxRangeId_t NVTX_API x_RangeStartA(const char *s)
{
	struct msg m = {
		.type = s ? MSG_INLINE : MSG_NONE, .a = s, .len = s ? strnlen(s, MAX_MSG) : 0};
	uint64_t id;

	if (!nvtx_on) {
		return 0;
	}
	id = new_range_id();
	emit_attr(EV_START, NULL, NULL, &m, id);
	return id;
}

static nvtxRangeId_t NVTX_API x_RangeStartW(const wchar_t *s)
{
	struct msg m = {.type = s ? MSG_INLINE : MSG_NONE, .w = s, .len = s ? wide_utf8_len(s) : 0};
	uint64_t id;

	if (!nvtx_on) {
		return 0;
	}
	id = new_range_id();
	emit_attr(EV_START, NULL, NULL, &m, id);
	return id;
}

static void NVTX_API x_DomainRangeEnd(nvtxDomainHandle_t dh, nvtxRangeId_t id)
{

	if (id) {
		emit_end(EV_END, dom_of(dh), id);
	}
}

static void NVTX_API x_RangeEnd(nvtxRangeId_t id)
{
	x_DomainRangeEnd(NULL, id);
}

static int NVTX_API x_DomainRangePushEx(nvtxDomainHandle_t dh, const nvtxEventAttributes_t *at)
{
	int d;
	struct msg m;

	if (!at) {
		return -1;
	}
	msg_from_attr(at, &m);
	d = emit_attr(EV_PUSH, dom_of(dh), at, &m, 0);
	return d;
}

static int NVTX_API x_RangePushEx(const nvtxEventAttributes_t *at)
{
	return x_DomainRangePushEx(NULL, at);
}

static int NVTX_API x_RangePushA(const char *s)
{
	int d;
	struct msg m = {
		.type = s ? MSG_INLINE : MSG_NONE, .a = s, .len = s ? strnlen(s, MAX_MSG) : 0};

	d = emit_attr(EV_PUSH, NULL, NULL, &m, 0);
	return d;
}

static int NVTX_API x_RangePushW(const wchar_t *s)
{
	int d;
	struct msg m = {.type = s ? MSG_INLINE : MSG_NONE, .w = s, .len = s ? wide_utf8_len(s) : 0};

	d = emit_attr(EV_PUSH, NULL, NULL, &m, 0);
	return d;
}

static int NVTX_API x_DomainRangePop(nvtxDomainHandle_t dh)
{
	int d;

	d = emit_end(EV_POP, dom_of(dh), 0);
	return d;
}

static int NVTX_API x_RangePop(void)
{
	return x_DomainRangePop(NULL);
}

static void NVTX_API x_DomainNameCategoryA(nvtxDomainHandle_t dh, uint32_t cat, const char *name)
{
	emit_name(NAME_CATEGORY, dom_of(dh), cat, 0, name, NULL);
}

static void NVTX_API x_DomainNameCategoryW(nvtxDomainHandle_t dh, uint32_t cat, const wchar_t *name)
{
	emit_name(NAME_CATEGORY, dom_of(dh), cat, 0, NULL, name);
}

static void NVTX_API x_NameCategoryA(uint32_t cat, const char *name)
{
	x_DomainNameCategoryA(NULL, cat, name);
}

static void NVTX_API x_NameCategoryW(uint32_t cat, const wchar_t *name)
{
	x_DomainNameCategoryW(NULL, cat, name);
}

static void NVTX_API x_NameOsThreadA(uint32_t tid, const char *name)
{
	emit_name(NAME_THREAD, NULL, tid, 0, name, NULL);
}

static void NVTX_API x_NameOsThreadW(uint32_t tid, const wchar_t *name)
{
	emit_name(NAME_THREAD, NULL, tid, 0, NULL, name);
}

static void NVTX_API x_NameCuDeviceA(nvtx_CUdevice dev, const char *name)
{
	emit_name(NAME_DEVICE, NULL, (uint64_t)(uint32_t)dev, 0, name, NULL);
}

static void NVTX_API x_NameCuDeviceW(nvtx_CUdevice dev, const wchar_t *name)
{
	emit_name(NAME_DEVICE, NULL, (uint64_t)(uint32_t)dev, 0, NULL, name);
}

static void NVTX_API x_NameCudaDeviceA(int dev, const char *name)
{
	x_NameCuDeviceA(dev, name);
}

static void NVTX_API x_NameCudaDeviceW(int dev, const wchar_t *name)
{
	x_NameCuDeviceW(dev, name);
}

static nvtxStringHandle_t register_string(nvtxDomainHandle_t dh, const char *a, const wchar_t *w)
{
	int saved = errno;
	struct rstr *r;
	char buf[MAX_MSG + 1];
	size_t n;

	if (!a && !w) {
		return NULL;
	}
	if (a) {
		n = strnlen(a, MAX_MSG);
		memcpy(buf, a, n);
	} else {
		n = wide_to_utf8(w, buf, MAX_MSG);
	}
	buf[n] = '\0';
	r = calloc(1, sizeof(*r));
	if (!r || !(r->text = strdup(buf))) {
		free(r);
		errno = saved;
		return NULL;
	}
	r->magic = RSTR_MAGIC;
	r->domain = dom_of(dh);
	r->capture = gpi_s.cfg.capture == GPI_CAPTURE_NVTX && !strcmp(buf, gpi_s.cfg.capture_nvtx);
	errno = saved;
	return (nvtxStringHandle_t)r;
}

static nvtxStringHandle_t NVTX_API x_DomainRegisterStringA(nvtxDomainHandle_t dh, const char *s)
{
	return register_string(dh, s, NULL);
}

static nvtxStringHandle_t NVTX_API x_DomainRegisterStringW(nvtxDomainHandle_t dh, const wchar_t *s)
{
	return register_string(dh, NULL, s);
}

/*
 * Domains are interned by name so that every NVTX instance (one per shared
 * object) that creates "NCCL" gets the same handle.
 */
static struct domain **domains;
static size_t ndomains, capdomains;

static nvtxDomainHandle_t create_domain(const char *a, const wchar_t *w)
{
	int saved = errno;
	char buf[MAX_MSG + 1];
	size_t n;
	struct domain *d = NULL;

	if (!a && !w) {
		return NULL;
	}
	if (a) {
		n = strnlen(a, MAX_MSG);
		memcpy(buf, a, n);
	} else {
		n = wide_to_utf8(w, buf, MAX_MSG);
	}
	buf[n] = '\0';
	pthread_mutex_lock(&reg_mu);
	for (size_t i = 0; i < ndomains; i++) {
		if (!strcmp(domains[i]->name, buf)) {
			d = domains[i];
			goto out;
		}
	}
	if (ndomains == capdomains) {
		size_t nc = capdomains ? capdomains * 2 : 16;
		struct domain **nd = realloc(domains, nc * sizeof(*nd));
		if (!nd) {
			goto out;
		}
		domains = nd;
		capdomains = nc;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->name = strdup(buf))) {
		free(d);
		d = NULL;
		goto out;
	}
	d->magic = DOMAIN_MAGIC;
	d->capture = gpi_s.cfg.capture_nvtx_domain[0] &&
		     !strcmp(buf, gpi_s.cfg.capture_nvtx_domain);
	domains[ndomains++] = d;
out:
	pthread_mutex_unlock(&reg_mu);
	errno = saved;
	return (nvtxDomainHandle_t)d;
}

static nvtxDomainHandle_t NVTX_API x_DomainCreateA(const char *name)
{
	return create_domain(name, NULL);
}

static nvtxDomainHandle_t NVTX_API x_DomainCreateW(const wchar_t *name)
{
	return create_domain(NULL, name);
}

static void NVTX_API x_DomainDestroy(nvtxDomainHandle_t dh)
{
	(void)dh; /* handles stay valid: events naming them may still be in a ring */
}

static nvtxResourceHandle_t NVTX_API x_DomainResourceCreate(nvtxDomainHandle_t dh,
							    nvtxResourceAttributes_t *attr)
{
	static int dummy;
	(void)dh;
	(void)attr;
	return (nvtxResourceHandle_t)&dummy;
}

static void NVTX_API x_DomainResourceDestroy(nvtxResourceHandle_t h)
{
	(void)h;
}

static void NVTX_API x_Initialize(const void *reserved)
{
	(void)reserved;
}

/* ------------------------------------------------------------ init */

static bool fill_table(int (*get_table)(NvtxCallbackModule, NvtxFunctionTable *, unsigned *),
		       NvtxCallbackModule mod, const unsigned *ids, void *const *fns, size_t n)
{
	NvtxFunctionTable table = NULL;
	unsigned size = 0;

	if (!get_table(mod, &table, &size) || !table) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (ids[i] < size && table[ids[i]]) {
			*table[ids[i]] = (NvtxFunctionPointer)fns[i];
		}
	}
	return true;
}

static void tb_init(void)
{
	uint32_t n = gpi_pool.nvtx_nbuf;
	/* every active thread holds a block: never more threads than blocks */
	struct tbuf *t = calloc(n, sizeof(*t));
	_Atomic uint32_t *link = calloc(n, sizeof(*link));

	if (!t || !link || gpi_pool.nvtx_buf_bytes < 4096) {
		free(t);
		free(link);
		return;
	}
	blk_base = gpi_pool.nvtx_base;
	blk_bytes = (uint32_t)gpi_pool.nvtx_buf_bytes;
	nblk = n;
	blk_link = link;
	blk_reset(BLK_NONE);
	for (uint32_t i = 0; i < n; i++) {
		t[i].index = i;
		t[i].rd = BLK_NONE;
		atomic_init(&t[i].first, BLK_NONE);
	}
	tbufs = t;
	atomic_store_explicit(&ntbufs_pub, n, memory_order_release);
}

int gpi_nvtx_init(const void *(*get_export_table)(uint32_t))
{
	const NvtxExportTableCallbacks *cbs;
	int st;

	if (!get_export_table) {
		return 0;
	}
	/* One setup per process; every later NVTX instance just fills its tables. */
	st = atomic_load(&init_state);
	if (st == 0) {
		int expect = 0;
		if (atomic_compare_exchange_strong(&init_state, &expect, 1)) {
			/* NVTX not wanted: decline before starting anything */
			const char *k = getenv("GPUPROF_KINDS");
			uint32_t kinds = GPI_K_ALL;
			if (k && *k && gpi_parse_kinds(k, &kinds)) {
				kinds = GPI_K_ALL;
			}
			bool ok = (kinds & GPI_K_NVTX) && gpi_session_start() &&
				  (gpi_s.cfg.kinds & GPI_K_NVTX);
			if (ok && pthread_key_create(&tb_key, tb_thread_exit)) {
				ok = false;
			}
			if (ok) {
				tb_init();
				if (gpi_s.cfg.capture == GPI_CAPTURE_NVTX) {
					atomic_store(&cap_armed, true);
				}
				nvtx_on = ntbufs > 0;
			}
			atomic_store(&init_state, nvtx_on ? 2 : 3);
			gpi_dbg("nvtx: %s (%u thread buffers)", nvtx_on ? "on" : "declined",
				ntbufs);
		}
	}
	while ((st = atomic_load(&init_state)) == 1) {
		sched_yield();
	}
	if (st != 2) {
		return 0;
	}
	cbs = (const NvtxExportTableCallbacks *)get_export_table(NVTX_ETID_CALLBACKS);
	if (!cbs || cbs->struct_size < sizeof(*cbs) || !cbs->GetModuleFunctionTable) {
		return 0;
	}
	const NvtxExportTableVersionInfo *vi =
		(const NvtxExportTableVersionInfo *)get_export_table(NVTX_ETID_VERSIONINFO);
	if (vi && vi->struct_size >= sizeof(*vi)) {
		if (vi->version < 2) {
			return 0;
		}
		if (vi->SetInjectionNvtxVersion) {
			vi->SetInjectionNvtxVersion(2);
		}
	}

	static const unsigned core_ids[] = {
		NVTX_CBID_CORE_MarkEx,	      NVTX_CBID_CORE_MarkA,
		NVTX_CBID_CORE_MarkW,	      NVTX_CBID_CORE_RangeStartEx,
		NVTX_CBID_CORE_RangeStartA,   NVTX_CBID_CORE_RangeStartW,
		NVTX_CBID_CORE_RangeEnd,      NVTX_CBID_CORE_RangePushEx,
		NVTX_CBID_CORE_RangePushA,    NVTX_CBID_CORE_RangePushW,
		NVTX_CBID_CORE_RangePop,      NVTX_CBID_CORE_NameCategoryA,
		NVTX_CBID_CORE_NameCategoryW, NVTX_CBID_CORE_NameOsThreadA,
		NVTX_CBID_CORE_NameOsThreadW,
	};
	void *const core_fns[] = {
		(void *)x_MarkEx,	 (void *)x_MarkA,	  (void *)x_MarkW,
		(void *)x_RangeStartEx,	 (void *)x_RangeStartA,	  (void *)x_RangeStartW,
		(void *)x_RangeEnd,	 (void *)x_RangePushEx,	  (void *)x_RangePushA,
		(void *)x_RangePushW,	 (void *)x_RangePop,	  (void *)x_NameCategoryA,
		(void *)x_NameCategoryW, (void *)x_NameOsThreadA, (void *)x_NameOsThreadW,
	};
	static const unsigned core2_ids[] = {
		NVTX_CBID_CORE2_DomainMarkEx,
		NVTX_CBID_CORE2_DomainRangeStartEx,
		NVTX_CBID_CORE2_DomainRangeEnd,
		NVTX_CBID_CORE2_DomainRangePushEx,
		NVTX_CBID_CORE2_DomainRangePop,
		NVTX_CBID_CORE2_DomainResourceCreate,
		NVTX_CBID_CORE2_DomainResourceDestroy,
		NVTX_CBID_CORE2_DomainNameCategoryA,
		NVTX_CBID_CORE2_DomainNameCategoryW,
		NVTX_CBID_CORE2_DomainRegisterStringA,
		NVTX_CBID_CORE2_DomainRegisterStringW,
		NVTX_CBID_CORE2_DomainCreateA,
		NVTX_CBID_CORE2_DomainCreateW,
		NVTX_CBID_CORE2_DomainDestroy,
		NVTX_CBID_CORE2_Initialize,
	};
	void *const core2_fns[] = {
		(void *)x_DomainMarkEx,
		(void *)x_DomainRangeStartEx,
		(void *)x_DomainRangeEnd,
		(void *)x_DomainRangePushEx,
		(void *)x_DomainRangePop,
		(void *)x_DomainResourceCreate,
		(void *)x_DomainResourceDestroy,
		(void *)x_DomainNameCategoryA,
		(void *)x_DomainNameCategoryW,
		(void *)x_DomainRegisterStringA,
		(void *)x_DomainRegisterStringW,
		(void *)x_DomainCreateA,
		(void *)x_DomainCreateW,
		(void *)x_DomainDestroy,
		(void *)x_Initialize,
	};
	static const unsigned cuda_ids[] = {NVTX_CBID_CUDA_NameCuDeviceA,
					    NVTX_CBID_CUDA_NameCuDeviceW};
	void *const cuda_fns[] = {(void *)x_NameCuDeviceA, (void *)x_NameCuDeviceW};
	static const unsigned cudart_ids[] = {NVTX_CBID_CUDART_NameCudaDeviceA,
					      NVTX_CBID_CUDART_NameCudaDeviceW};
	void *const cudart_fns[] = {(void *)x_NameCudaDeviceA, (void *)x_NameCudaDeviceW};

	if (!fill_table(cbs->GetModuleFunctionTable, NVTX_CB_MODULE_CORE, core_ids, core_fns,
			GP_ARRAY_SIZE(core_ids)) ||
	    !fill_table(cbs->GetModuleFunctionTable, NVTX_CB_MODULE_CORE2, core2_ids, core2_fns,
			GP_ARRAY_SIZE(core2_ids))) {
		return 0;
	}
	/* Optional modules: an old NVTX may not have them. */
	fill_table(cbs->GetModuleFunctionTable, NVTX_CB_MODULE_CUDA, cuda_ids, cuda_fns,
		   GP_ARRAY_SIZE(cuda_ids));
	fill_table(cbs->GetModuleFunctionTable, NVTX_CB_MODULE_CUDART, cudart_ids, cudart_fns,
		   GP_ARRAY_SIZE(cudart_ids));
	return 1;
}

void gpi_nvtx_disable(void)
{
	nvtx_on = false;
	atomic_store(&cap_armed, false);
}

uint64_t gpi_nvtx_take_dropped(void)
{
	return atomic_exchange(&dropped, 0);
}

bool gpi_nvtx_has_data(void)
{
	for (uint32_t i = 0; i < ntbufs; i++) {
		const struct tbuf *b = &tbufs[i];
		uint32_t blk = b->rd != BLK_NONE ? b->rd : atomic_load(&b->first);
		uint32_t off = b->rd != BLK_NONE ? b->rd_off : BLK_HDR;
		if (atomic_load_explicit(&b->state, memory_order_acquire) == TB_FREE ||
		    blk == BLK_NONE) {
			continue;
		}
		if (atomic_load(&blk_hdr(blk)->used) != off ||
		    atomic_load(&blk_hdr(blk)->next) != BLK_NONE) {
			return true;
		}
	}
	return false;
}

/* A fork child's copies of the parent writer's arrays: never used, kept reachable. */
static void **fork_orphans;

void gpi_nvtx_atfork_child(void)
{
	uint32_t k = 0;

	/* Only the forking thread exists now; reg_mu may have been held by a dead thread. */
	pthread_mutex_init(&reg_mu, NULL);
	fork_orphans = calloc(ntbufs + 2, sizeof(*fork_orphans));
	if (fork_orphans) {
		fork_orphans[k++] = pend;
	}
	/* The parent writes what was in the buffers; the child starts empty. */
	uint32_t keep = tls_buf ? blk_index(tls_buf->cur) : BLK_NONE;
	blk_reset(keep);
	atomic_store(&pressure, false);
	if (keep != BLK_NONE) {
		atomic_store(&blk_hdr(keep)->used, BLK_HDR);
		atomic_store(&blk_hdr(keep)->next, BLK_NONE);
		tls_buf->off = BLK_HDR;
	}
	for (uint32_t i = 0; i < ntbufs; i++) {
		struct tbuf *b = &tbufs[i];
		b->rd = BLK_NONE;
		atomic_store(&b->first, b == tls_buf ? keep : BLK_NONE);
		/* the writer's arrays belong to the parent's writer: leave them */
		if (fork_orphans && b->open) {
			fork_orphans[k++] = b->open;
		}
		b->open = NULL;
		b->nopen = b->capopen = 0;
		b->announced = false;
		if (b != tls_buf) {
			atomic_store(&b->state, TB_FREE);
		} else {
			b->tid = (uint32_t)syscall(SYS_gettid);
		}
	}
	atomic_fetch_add(&tb_generation, 1);
	pending_reset_after_fork();
	mcache_w = NULL; /* the child writes a file of its own */
}

/* ---------------------------------------------------- the writer side */

/* Start/end ranges whose other half has not been seen yet, by id. */
struct pending {
	uint64_t id; /* 0: empty */
	bool have_start, have_end;
	struct gpt_nvtx rec; /* start side filled when have_start */
	uint64_t end;
	uint32_t end_tid;
};
static struct pending *pend;
static size_t npend, cappend;

static struct pending *pending_find(uint64_t id, bool create)
{
	size_t mask, i;

	if (create && (npend + 1) * 2 > cappend) {
		size_t nc = cappend ? cappend * 2 : 1024;
		struct pending *np = calloc(nc, sizeof(*np));
		if (!np) {
			return NULL;
		}
		for (size_t k = 0; k < cappend; k++) {
			if (pend[k].id) {
				size_t j = (size_t)gp_hash_u64(pend[k].id) & (nc - 1);
				while (np[j].id) {
					j = (j + 1) & (nc - 1);
				}
				np[j] = pend[k];
			}
		}
		free(pend);
		pend = np;
		cappend = nc;
	}
	if (!cappend) {
		return NULL;
	}
	mask = cappend - 1;
	for (i = (size_t)gp_hash_u64(id) & mask; pend[i].id; i = (i + 1) & mask) {
		if (pend[i].id == id) {
			return &pend[i];
		}
	}
	if (!create) {
		return NULL;
	}
	pend[i].id = id;
	npend++;
	return &pend[i];
}

/* Removes an entry keeping the probe chains intact. */
static void pending_remove(struct pending *p)
{
	size_t mask = cappend - 1, i = (size_t)(p - pend), j = i;

	memset(p, 0, sizeof(*p));
	npend--;
	for (;;) {
		j = (j + 1) & mask;
		if (!pend[j].id) {
			break;
		}
		size_t k = (size_t)gp_hash_u64(pend[j].id) & mask;
		/* move pend[j] into the hole at i if its home is not in (i, j] */
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			pend[i] = pend[j];
			memset(&pend[j], 0, sizeof(pend[j]));
			i = j;
		}
	}
}

static void pending_reset_after_fork(void)
{
	pend = NULL; /* the parent's writer owned it */
	npend = cappend = 0;
}

static uint32_t domain_id(struct gpi_conv *cv, const struct domain *d)
{
	return d ? gpi_conv_intern(cv, d->name) : 0;
}

static void emit_range(struct gpi_conv *cv, struct gpt_nvtx *r, bool trigger)
{
	if (!trigger && !gpi_capture_keep(r->start)) {
		cv->filtered++;
		return;
	}
	cv->events++;
	if (r->start && r->start < cv->first_ts) {
		cv->first_ts = r->start;
	}
	if (r->end > cv->last_ts) {
		cv->last_ts = r->end;
	}
	gpi_conv_add(cv, GPT_KIND_NVTX, r);
	if (gpi_flight_on) {
		gpi_flight_note_range(cv, r);
	}
}

static uint32_t depth_in_domain(const struct tbuf *b, const struct domain *d)
{
	uint32_t n = 0;

	for (size_t i = 0; i < b->nopen; i++) {
		n += b->open[i].domain == d;
	}
	return n;
}

/*
 * The writer's cache of short messages and their string ids: a loop's
 * ranges repeat a few names, and a hit costs a compare of the bytes
 * instead of the string table's hash and probe. Direct-mapped, writer only;
 * cleared when the trace writer changes (a fork child's new file).
 */
#define MC_SLOTS 512
#define MC_BYTES 48
struct mc_ent {
	uint32_t id;
	uint16_t len;
	uint64_t num; /* a flight ring's pattern number (trace/names.c), 0 none */
	char s[MC_BYTES];
};
static struct mc_ent mcache[MC_SLOTS];

/* A message's string id, and in *num the number a flight ring keeps apart from it. */
static uint32_t intern_msg(struct gpi_conv *cv, const char *s, uint16_t len, uint64_t *num)
{
	*num = 0;
	if (!len || len > MC_BYTES || !cv->w) {
		return gpi_conv_intern_msg(cv, s, len, num);
	}
	if (mcache_w != cv->w) {
		memset(mcache, 0, sizeof(mcache));
		mcache_w = cv->w;
	}
	uint64_t a = 0, z = 0;
	size_t k = len < 8 ? len : 8;
	memcpy(&a, s, k);
	memcpy(&z, s + len - k, k);
	struct mc_ent *e = &mcache[gp_hash_u64(a ^ (z * 0x9e3779b97f4a7c15ULL) ^ len) % MC_SLOTS];
	if (e->id && e->len == len && !memcmp(e->s, s, len)) {
		*num = e->num;
		return e->id;
	}
	uint32_t id = gpi_conv_intern_msg(cv, s, len, num);
	if (id && !cv->err) {
		e->id = id;
		e->len = len;
		e->num = *num;
		memcpy(e->s, s, len);
	}
	return id;
}

static void fill_attr(struct gpi_conv *cv, struct gpt_nvtx *r, const struct ev_attr *e)
{
	r->domain = domain_id(cv, e->h.domain);
	r->message_num = 0;
	if (e->h.mtype == MSG_INLINE) {
		r->message = intern_msg(cv, e->msg, e->msglen, &r->message_num);
	} else if (e->h.mtype == MSG_REGISTERED) {
		const struct rstr *rs = (const struct rstr *)(uintptr_t)e->h.handle;
		r->message = gpi_conv_intern(cv, rs->text);
	}
	r->category = e->category;
	r->color = e->color;
	r->color_type = e->color_type;
	r->payload_type = e->payload_type;
	switch (e->payload_type) {
	case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
	case NVTX_PAYLOAD_TYPE_INT32:
	case NVTX_PAYLOAD_TYPE_FLOAT:
		r->payload = (uint32_t)e->payload; /* the union's other half is not the caller's */
		break;
	case 0:
		r->payload = 0;
		break;
	default:
		r->payload = e->payload;
		break;
	}
}

/*
 * Emits a push/pop range taken off b's open stack: ended at end_ts on thread
 * end_tid (0: never popped). Its depth counts the ranges still open below it.
 */
static void emit_pushed(struct gpi_conv *cv, struct tbuf *b, const struct open_range *o,
			uint64_t end_ts, uint32_t end_tid)
{
	struct gpt_nvtx r = {
		.start = o->start,
		.end = end_ts,
		.type = GPT_NVTX_PUSH_POP,
		.domain = domain_id(cv, o->domain),
		.message = o->message,
		.message_num = o->message_num,
		.category = o->category,
		.color = o->color,
		.color_type = o->color_type,
		.payload_type = o->payload_type,
		.payload = o->payload,
		.start_tid = b->tid,
		.end_tid = end_tid,
		.depth = (uint16_t)depth_in_domain(b, o->domain),
	};
	emit_range(cv, &r, o->flags & EVF_TRIGGER);
}

/* A push on b's open stack. */
static void open_push(struct tbuf *b, const struct open_range *o)
{
	if (b->nopen == b->capopen) {
		size_t nc = b->capopen ? b->capopen * 2 : 16;
		struct open_range *n = realloc(b->open, nc * sizeof(*n));
		if (!n) {
			return;
		}
		b->open = n;
		b->capopen = nc;
	}
	b->open[b->nopen++] = *o;
}

/* A pop: ends the innermost open push of the same domain. */
static void pop_range(struct gpi_conv *cv, struct tbuf *b, const struct domain *dom, uint64_t ts)
{
	for (size_t i = b->nopen; i-- > 0;) {
		if (b->open[i].domain != dom) {
			continue;
		}
		struct open_range o = b->open[i];
		memmove(&b->open[i], &b->open[i + 1], (b->nopen - i - 1) * sizeof(*b->open));
		b->nopen--;
		emit_pushed(cv, b, &o, ts, b->tid);
		break;
	}
}

static void handle_event(struct gpi_conv *cv, struct tbuf *b, const struct ev *e,
			 const struct gpi_tickconv *tc)
{
	uint64_t ts = gpi_tickconv_ns(tc, e->tick);

	switch (e->type) {
	case EV_PUSH: {
		struct gpt_nvtx tmp = {0};
		fill_attr(cv, &tmp, (const struct ev_attr *)e);
		open_push(b, &(struct open_range){
				     .domain = e->domain,
				     .start = ts,
				     .message = tmp.message,
				     .message_num = tmp.message_num,
				     .category = tmp.category,
				     .color = tmp.color,
				     .color_type = tmp.color_type,
				     .payload_type = tmp.payload_type,
				     .payload = tmp.payload,
				     .flags = e->flags,
			     });
		break;
	}
	case EV_PUSH_SHORT: {
		const struct ev_short *sh = (const struct ev_short *)e;
		uint64_t num;
		uint32_t msg = intern_msg(cv, sh->msg, sh->msglen, &num);
		open_push(b, &(struct open_range){
				     .start = ts,
				     .message = msg,
				     .message_num = num,
				     .flags = sh->flags,
			     });
		break;
	}
	case EV_POP:
		pop_range(cv, b, e->domain, ts);
		break;
	case EV_POP_SHORT:
		pop_range(cv, b, NULL, ts);
		break;
	case EV_START: {
		struct pending *p = pending_find(e->id, true);
		if (!p) {
			return;
		}
		struct gpt_nvtx *r = &p->rec;
		fill_attr(cv, r, (const struct ev_attr *)e);
		r->start = ts;
		r->type = GPT_NVTX_START_END;
		r->start_tid = b->tid;
		r->range_id = e->id;
		r->depth = 0;
		p->have_start = true;
		if (p->have_end) {
			r->end = p->end;
			r->end_tid = p->end_tid;
			emit_range(cv, r, e->flags & EVF_TRIGGER);
			pending_remove(p);
		} else if (e->flags & EVF_TRIGGER) {
			p->end_tid = UINT32_MAX; /* marks the trigger until the end arrives */
		}
		break;
	}
	case EV_END: {
		struct pending *p = pending_find(e->id, true);
		if (!p) {
			return;
		}
		if (p->have_start) {
			bool trig = p->end_tid == UINT32_MAX;
			p->rec.end = ts;
			p->rec.end_tid = b->tid;
			emit_range(cv, &p->rec, trig);
			pending_remove(p);
		} else if (!p->have_end) {
			p->have_end = true;
			p->end = ts;
			p->end_tid = b->tid;
		}
		break;
	}
	case EV_MARK: {
		struct gpt_nvtx r = {0};
		fill_attr(cv, &r, (const struct ev_attr *)e);
		r.start = r.end = ts;
		r.type = GPT_NVTX_MARK;
		r.start_tid = r.end_tid = b->tid;
		emit_range(cv, &r, false);
		break;
	}
	case EV_NAME: {
		const struct ev_attr *a = (const struct ev_attr *)e;
		uint32_t name = gpi_conv_intern_len(cv, a->msg, a->msglen);
		switch (e->name_kind) {
		case NAME_THREAD: {
			struct gpt_thread t = {.ts = ts, .tid = (uint32_t)e->id, .name = name};
			if (t.tid == b->tid) {
				t.pthread = b->pthread;
			}
			gpi_conv_add(cv, GPT_KIND_THREAD, &t);
			break;
		}
		case NAME_CATEGORY:
		case NAME_DEVICE: {
			struct gpt_name n = {
				.type = e->name_kind == NAME_CATEGORY ? GPT_NAME_CATEGORY
								      : GPT_NAME_DEVICE,
				.domain = domain_id(cv, e->domain),
				.id = e->id,
				.name = name,
			};
			gpi_conv_add(cv, GPT_KIND_NAME, &n);
			break;
		}
		default:
			break;
		}
		break;
	}
	default:
		break;
	}
}

/* Events of b in block blk from *off up to 'used'. */
static void drain_block(struct gpi_conv *cv, struct tbuf *b, const struct gpi_tickconv *tc,
			uint32_t blk, uint32_t *off)
{
	const uint8_t *base = blk_at(blk);
	uint32_t used = atomic_load_explicit(&blk_hdr(blk)->used, memory_order_acquire);

	if (used > blk_bytes) {
		used = blk_bytes; /* cannot happen: never read past the block */
	}
	if (!b->announced && *off < used) {
		gpi_conv_note_tid(cv, b->tid);
		b->announced = true;
	}
	while (*off < used) {
		const struct ev *e = (const struct ev *)(base + *off);
		if (e->size < 8 || e->size > used - *off) {
			/* cannot happen; do not loop forever on a corrupt block */
			*off = used;
			break;
		}
		if (e->type != EV_PAD) {
			handle_event(cv, b, e, tc);
		}
		*off += e->size;
	}
}

/* Everything b's thread wrote so far; blocks read to their end go back to the free stack. */
static void drain_one(struct gpi_conv *cv, struct tbuf *b, const struct gpi_tickconv *tc)
{
	if (b->rd == BLK_NONE) {
		b->rd = atomic_load_explicit(&b->first, memory_order_acquire);
		b->rd_off = BLK_HDR;
		if (b->rd == BLK_NONE) {
			return;
		}
	}
	for (;;) {
		drain_block(cv, b, tc, b->rd, &b->rd_off);
		uint32_t nx = atomic_load_explicit(&blk_hdr(b->rd)->next, memory_order_acquire);
		if (nx == BLK_NONE) {
			break;
		}
		drain_block(cv, b, tc, b->rd, &b->rd_off); /* 'used' is final now */
		blk_push(b->rd);
		b->rd = nx;
		b->rd_off = BLK_HDR;
	}
}

/* Ranges of a thread that ended with pushes still open. */
static uint64_t close_open(struct gpi_conv *cv, struct tbuf *b, uint64_t end_ts)
{
	uint64_t n = b->nopen;

	while (b->nopen) {
		struct open_range o = b->open[--b->nopen];
		emit_pushed(cv, b, &o, end_ts, 0);
	}
	return n;
}

static uint64_t unfinished;

void gpi_nvtx_drain(struct gpi_conv *cv, const struct gpi_tickconv *tc)
{
	for (uint32_t i = 0; i < ntbufs; i++) {
		struct tbuf *b = &tbufs[i];
		int st = atomic_load_explicit(&b->state, memory_order_acquire);
		if (st == TB_FREE) {
			continue;
		}
		drain_one(cv, b, tc);
		if (st == TB_DEAD) {
			unfinished += close_open(cv, b, tc->n1);
			free(b->open);
			b->open = NULL;
			b->nopen = b->capopen = 0;
			b->announced = false;
			if (b->rd != BLK_NONE) {
				blk_push(b->rd);
			}
			b->rd = BLK_NONE;
			atomic_store(&b->first, BLK_NONE);
			atomic_store_explicit(&b->state, TB_FREE, memory_order_release);
			atomic_fetch_add(&tb_generation, 1);
		}
	}
	atomic_store_explicit(&pressure, false, memory_order_relaxed);
}

uint64_t gpi_nvtx_finish(struct gpi_conv *cv, uint64_t end_ts)
{
	uint64_t n = unfinished;

	unfinished = 0;
	for (uint32_t i = 0; i < ntbufs; i++) {
		struct tbuf *b = &tbufs[i];
		if (atomic_load(&b->state) != TB_FREE) {
			n += close_open(cv, b, end_ts);
		}
	}
	for (size_t i = 0; i < cappend; i++) {
		struct pending *p = &pend[i];
		if (!p->id) {
			continue;
		}
		if (p->have_start) {
			p->rec.end = end_ts;
			p->rec.end_tid = 0;
			emit_range(cv, &p->rec, p->end_tid == UINT32_MAX);
			n++;
		}
		/* an end without its start: the start was dropped or lies before the trace */
	}
	free(pend);
	pend = NULL;
	npend = cappend = 0;
	return n;
}
