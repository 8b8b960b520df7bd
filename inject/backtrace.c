/* SPDX-License-Identifier: MIT */
/*
 * backtrace.c - CPU call stacks at launch API calls (GPUPROF_BACKTRACE=N).
 *
 * At the enter site of a kernel launch, graph launch, memcpy or memset API
 * call (CUPTI callback, application thread) the thread's stack is walked
 * into a small array on the stack: by frame pointers, every pointer checked
 * against the thread's stack bounds before it is read, or by libunwind's
 * unw_backtrace (DWARF CFI; dlopen'ed, so nothing links against it). Frames
 * inside this library are dropped. The frames are then interned, outermost
 * first, into the node table: a node is (parent node, pc), found through an
 * open-addressing index, so a stack already seen costs no new memory and is
 * named by the id of its innermost node. Both tables are one anonymous
 * mapping sized at start (pages are committed when touched); when the node
 * table is full the stack keeps its outer frames and is counted
 * (GPT_LOSS_STACK_TABLE). The (correlation id, node) pair goes through a
 * bounded multi-producer queue (Vyukov's, one compare-and-swap) to the
 * writer; when it is full the stack is dropped and counted
 * (GPT_LOSS_STACK_QUEUE). No lock, no malloc, errno preserved. The one
 * exception: a thread's first capture asks glibc for its stack bounds
 * (pthread_getattr_np), once.
 *
 * A nested call (the driver's cuLaunchKernel inside cudaLaunchKernel) reuses
 * the outer call's stack without walking again, so both API records have
 * it. Node ids start at 1 and a parent's id is always below its child's
 * (a parent is interned before its child).
 *
 * The writer (gpi_bt_drain) writes MODULE records for the loaded objects
 * (dl_iterate_phdr; again whenever the loader's add count changes), the
 * nodes that became ready since the last drain, in id order, the queued
 * STACK records, and LOSS records for what was dropped.
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NODES_MAX (1u << 18)	 /* 262144 frames (16 bytes each: 4 MiB, committed when used) */
#define INDEX_SLOTS (1u << 19)	 /* twice the nodes: short probes */
#define PROBES 64
#define QUEUE_CELLS (1u << 15)	 /* 32768 stacks between two drains */
#define MODULES_MAX 4096
#define GPI_BT_CBID_MAX 4096

struct node {
	uint64_t pc;
	uint32_t parent;
	_Atomic uint32_t ready;
};

struct cell {
	_Atomic uint64_t seq;
	uint64_t ts;
	uint32_t corr, tid, node;
	uint16_t depth;
	uint8_t flags, method;
};

bool gpi_bt_on;
static unsigned max_depth;
static int method; /* enum gpt_stack_method */
static struct node *nodes;	      /* [1 .. NODES_MAX] */
static _Atomic uint32_t *index_slots; /* node ids, 0 empty */
static _Atomic uint32_t nnodes;	      /* ids handed out (may exceed NODES_MAX) */
static struct cell *cells;
static _Atomic uint64_t q_head;	      /* producers */
static uint64_t q_tail;		      /* the writer */
static _Atomic uint64_t lost_queue, lost_table;
static uintptr_t self_lo, self_hi; /* this library's text, skipped */
static int (*unw_backtrace_fn)(void **, int);
static uint8_t wanted[3][(GPI_BT_CBID_MAX + 7) / 8];

/* Per thread: stack bounds (0: not read yet, 1: unknown) and the outer call's stack. */
struct bt_tls {
	uintptr_t lo, hi;
	uint32_t tid;
	uint32_t outer_node; /* node of the runtime call we are inside, 0 none */
	uint16_t outer_depth;
	uint8_t outer_flags;
	uint8_t outer_level; /* nesting of wanted calls */
	uint8_t busy;	     /* re-entry guard */
};
static __thread struct bt_tls tls __attribute__((tls_model("initial-exec")));

/* ------------------------------------------------------------- setup */

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t me = (uintptr_t)arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) {
			continue;
		}
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (me >= lo && me < hi) {
			self_lo = lo;
			self_hi = hi;
			return 1;
		}
	}
	return 0;
}

bool gpi_bt_init(const struct gpi_config *c)
{
	size_t nbytes = (size_t)(NODES_MAX + 1) * sizeof(struct node);
	size_t ibytes = (size_t)INDEX_SLOTS * sizeof(uint32_t);
	size_t qbytes = (size_t)QUEUE_CELLS * sizeof(struct cell);
	uint8_t *base;

	if (!c->backtrace || gpi_bt_on) {
		return gpi_bt_on;
	}
	max_depth = c->backtrace > GPI_BT_MAX_DEPTH ? GPI_BT_MAX_DEPTH : c->backtrace;
	if (c->backtrace_method != GPI_BT_FP) {
		void *h = gpi_dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
		if (h) {
			*(void **)&unw_backtrace_fn = gpi_dlsym(h, "unw_backtrace");
			/*
			 * libunwind's default global cache takes a lock and masks
			 * signals (two system calls) around every lookup; a cache
			 * per thread needs neither.
			 */
			int (*set_policy)(void *, int);
			void **as = gpi_dlsym(h, "_ULx86_64_local_addr_space");
			*(void **)&set_policy = gpi_dlsym(h, "_ULx86_64_set_caching_policy");
			if (set_policy && as && *as) {
				set_policy(*as, 2 /* UNW_CACHE_PER_THREAD */);
			}
		}
		if (!unw_backtrace_fn && c->backtrace_method == GPI_BT_UNWIND) {
			gpi_status_add("backtrace: libunwind.so.8 not usable; frame pointers used");
		}
	}
	method = unw_backtrace_fn ? GPT_STACK_UNWIND : GPT_STACK_FP;
	base = mmap(NULL, nbytes + ibytes + qbytes, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		gpi_status_add("backtrace: cannot map its tables; no call stacks");
		return false;
	}
	nodes = (struct node *)base;
	index_slots = (_Atomic uint32_t *)(base + nbytes);
	cells = (struct cell *)(base + nbytes + ibytes);
	for (uint32_t i = 0; i < QUEUE_CELLS; i++) {
		atomic_init(&cells[i].seq, i);
	}
	dl_iterate_phdr(find_self, (void *)(uintptr_t)&gpi_bt_init);
	gpi_dbg("backtrace: %u frames by %s", max_depth,
		method == GPT_STACK_UNWIND ? "libunwind" : "frame pointers");
	gpi_bt_on = true;
	return true;
}

int gpi_bt_method(void)
{
	return gpi_bt_on ? method : 0;
}

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

bool gpi_bt_wants(int domain, uint32_t cbid, const char *name)
{
	static const char *const prefixes[] = {"cudaLaunch", "cuLaunch", "cudaGraphLaunch",
					       "cuGraphLaunch", "cudaMemcpy", "cuMemcpy",
					       "cudaMemset", "cuMemset"};

	if (domain < 1 || domain > 2 || cbid >= GPI_BT_CBID_MAX || !name) {
		return false;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(prefixes); i++) {
		if (has_prefix(name, prefixes[i])) {
			wanted[domain][cbid / 8] |= (uint8_t)(1u << (cbid % 8));
			return true;
		}
	}
	return false;
}

static inline bool is_wanted(int domain, uint32_t cbid)
{
	return domain >= 1 && domain <= 2 && cbid < GPI_BT_CBID_MAX &&
	       (wanted[domain][cbid / 8] >> (cbid % 8)) & 1;
}

/* ---------------------------------------------------------- capture */

/* The thread's stack bounds, read once (the first capture on the thread). */
static void read_bounds(void)
{
	pthread_attr_t a;
	void *addr = NULL;
	size_t size = 0;

	tls.lo = tls.hi = 1;
	tls.tid = (uint32_t)syscall(SYS_gettid);
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		if (pthread_attr_getstack(&a, &addr, &size) == 0 && addr && size) {
			tls.lo = (uintptr_t)addr;
			tls.hi = (uintptr_t)addr + size;
		}
		pthread_attr_destroy(&a);
	}
}

__attribute__((noinline)) static unsigned fp_walk(uintptr_t *pcs, unsigned max)
{
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t lo = tls.lo, hi = tls.hi;
	unsigned n = 0;

	if (lo <= 1) {
		return 0;
	}
	while (n < max) {
		/* the two words at fp must lie inside this thread's stack */
		if (fp < lo || fp > hi - 2 * sizeof(uintptr_t) || (fp & (sizeof(uintptr_t) - 1))) {
			break;
		}
		uintptr_t next = ((const uintptr_t *)fp)[0];
		uintptr_t ret = ((const uintptr_t *)fp)[1];
		if (ret < 4096) {
			break;
		}
		pcs[n++] = ret;
		if (next <= fp) {
			break; /* frames only go up the stack: no loops */
		}
		fp = next;
	}
	return n;
}

unsigned gpi_bt_walk(int how, uintptr_t *pcs, unsigned max)
{
	if (!tls.hi) {
		read_bounds();
	}
	if (how == GPT_STACK_UNWIND && unw_backtrace_fn) {
		int n = unw_backtrace_fn((void **)pcs, (int)max);
		return n > 0 ? (unsigned)n : 0;
	}
	return fp_walk(pcs, max);
}

static inline uint32_t hash_node(uint32_t parent, uint64_t pc)
{
	uint64_t h = (pc ^ ((uint64_t)parent << 40) ^ parent) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 32);
}

/* The node (parent, pc): found, or added. 0 when the table is full. */
static uint32_t intern(uint32_t parent, uint64_t pc)
{
	uint32_t h = hash_node(parent, pc), mine = 0;

	for (uint32_t k = 0; k < PROBES; k++) {
		_Atomic uint32_t *slot = &index_slots[(h + k) & (INDEX_SLOTS - 1)];
		uint32_t id = atomic_load_explicit(slot, memory_order_acquire);
		if (!id) {
			if (!mine) {
				mine = atomic_fetch_add_explicit(&nnodes, 1, memory_order_relaxed) + 1;
				if (mine > NODES_MAX) {
					return 0;
				}
				nodes[mine].pc = pc;
				nodes[mine].parent = parent;
				atomic_store_explicit(&nodes[mine].ready, 1, memory_order_release);
			}
			uint32_t expect = 0;
			if (atomic_compare_exchange_strong_explicit(slot, &expect, mine,
								    memory_order_acq_rel,
								    memory_order_acquire)) {
				return mine;
			}
			id = expect; /* another thread took the slot: maybe with our node */
		}
		if (id <= NODES_MAX &&
		    atomic_load_explicit(&nodes[id].ready, memory_order_acquire) &&
		    nodes[id].pc == pc && nodes[id].parent == parent) {
			return id; /* ours, if any, stays a valid unindexed duplicate */
		}
	}
	if (!mine) {
		mine = atomic_fetch_add_explicit(&nnodes, 1, memory_order_relaxed) + 1;
		if (mine > NODES_MAX) {
			return 0;
		}
		nodes[mine].pc = pc;
		nodes[mine].parent = parent;
		atomic_store_explicit(&nodes[mine].ready, 1, memory_order_release);
	}
	return mine; /* a long probe run: valid, only not shared */
}

static void enqueue(uint32_t corr, uint32_t node, uint16_t depth, uint8_t flags)
{
	uint64_t pos = atomic_load_explicit(&q_head, memory_order_relaxed);
	struct cell *c;

	for (;;) {
		c = &cells[pos & (QUEUE_CELLS - 1)];
		uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
		int64_t dif = (int64_t)(seq - pos);
		if (dif == 0) {
			if (atomic_compare_exchange_weak_explicit(&q_head, &pos, pos + 1,
								  memory_order_relaxed,
								  memory_order_relaxed)) {
				break;
			}
		} else if (dif < 0) {
			atomic_fetch_add_explicit(&lost_queue, 1, memory_order_relaxed);
			return; /* full until the writer drains */
		} else {
			pos = atomic_load_explicit(&q_head, memory_order_relaxed);
		}
	}
	c->ts = gpi_now();
	c->corr = corr;
	c->tid = tls.tid;
	c->node = node;
	c->depth = depth;
	c->flags = flags;
	c->method = (uint8_t)method;
	atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
}

void gpi_bt_api_enter(int domain, uint32_t cbid, uint32_t corr)
{
	uintptr_t raw[GPI_BT_MAX_DEPTH + 8];
	unsigned n, skip = 0, depth;
	uint32_t node = 0;
	uint8_t flags = 0;

	if (!gpi_bt_on || !is_wanted(domain, cbid) || tls.busy) {
		return;
	}
	tls.busy = 1;
	if (tls.outer_level) {
		/* inside a call whose stack we have: the same stack, no second walk */
		if (tls.outer_level < 255) {
			tls.outer_level++;
		}
		enqueue(corr, tls.outer_node, tls.outer_depth, tls.outer_flags);
		tls.busy = 0;
		return;
	}
	/* a few more than asked: our own frames come first and are dropped */
	n = gpi_bt_walk(method, raw, max_depth + 8);
	while (skip < n && raw[skip] >= self_lo && raw[skip] < self_hi) {
		skip++; /* our own frames */
	}
	depth = n - skip;
	if (depth > max_depth) {
		depth = max_depth;
		flags |= GPT_STACK_CUT;
	}
	/* outermost first: raw[skip + depth - 1] down to raw[skip] */
	unsigned kept = 0;
	for (unsigned i = depth; i-- > 0;) {
		uint32_t id = intern(node, raw[skip + i]);
		if (!id) {
			flags |= GPT_STACK_TABLE_FULL;
			atomic_fetch_add_explicit(&lost_table, 1, memory_order_relaxed);
			break;
		}
		node = id;
		kept++;
	}
	tls.outer_node = node;
	tls.outer_depth = (uint16_t)kept;
	tls.outer_flags = flags;
	tls.outer_level = 1;
	enqueue(corr, node, (uint16_t)kept, flags);
	tls.busy = 0;
}

void gpi_bt_api_exit(int domain, uint32_t cbid)
{
	if (!gpi_bt_on || !is_wanted(domain, cbid) || !tls.outer_level) {
		return;
	}
	tls.outer_level--;
	if (!tls.outer_level) {
		tls.outer_node = 0;
	}
}

/* ------------------------------------------------------------ writer */

struct mod_seen {
	uintptr_t base;
	uint32_t name_hash;
};
static struct mod_seen mods[MODULES_MAX];
static uint32_t nmods;
static unsigned long long last_adds = ~0ull;
static uint32_t emitted; /* nodes written: ids 1..emitted */
static uint64_t lost_queue_seen, lost_table_seen;

struct mod_walk {
	struct gpi_conv *cv;
	bool check_only;
	bool changed;
};

static uint32_t fnv(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h = (h ^ (uint8_t)*s) * 16777619u;
	}
	return h;
}

/* The GNU build-id of a loaded object, from its PT_NOTE segments in memory. */
static void build_id_hex(const struct dl_phdr_info *info, char *out, size_t size)
{
	out[0] = '\0';
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE) {
			continue;
		}
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		size_t left = ph->p_memsz;
		while (left >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			size_t nsz = (nh->n_namesz + 3) & ~(size_t)3;
			size_t dsz = (nh->n_descsz + 3) & ~(size_t)3;
			if (nsz > left || dsz > left || sizeof(*nh) + nsz + dsz > left) {
				break;
			}
			const char *name = (const char *)(p + sizeof(*nh));
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4)) {
				const uint8_t *d = p + sizeof(*nh) + nsz;
				size_t o = 0;
				for (size_t k = 0; k < nh->n_descsz && o + 3 <= size; k++) {
					o += gpi_fmt(out + o, size - o, "%02x", d[k]);
				}
				return;
			}
			p += sizeof(*nh) + nsz + dsz;
			left -= sizeof(*nh) + nsz + dsz;
		}
	}
}

static int mod_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct mod_walk *mw = arg;
	char exe[GPI_PATH_MAX];
	const char *name = info->dlpi_name;

	if (mw->check_only) {
		/* the first object carries the loader's counters */
		if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs) &&
		    info->dlpi_adds == last_adds) {
			return 1;
		}
		if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
			last_adds = info->dlpi_adds;
		}
		mw->changed = true;
		return 1;
	}
	if (!name || !*name) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		name = exe;
	}
	uint32_t h = fnv(name);
	for (uint32_t i = 0; i < nmods; i++) {
		if (mods[i].base == info->dlpi_addr && mods[i].name_hash == h) {
			return 0;
		}
	}
	if (nmods >= MODULES_MAX) {
		return 0;
	}
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD) {
			uintptr_t a = info->dlpi_addr + ph->p_vaddr;
			lo = a < lo ? a : lo;
			hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
		}
	}
	if (hi <= lo) {
		return 0;
	}
	char bid[130];
	build_id_hex(info, bid, sizeof(bid));
	mods[nmods].base = info->dlpi_addr;
	mods[nmods].name_hash = h;
	nmods++;
	struct gpt_module m = {
		.ts = gpi_now(),
		.id = nmods,
		.path = gpi_conv_intern(mw->cv, name),
		.base = info->dlpi_addr,
		.lo = lo,
		.hi = hi,
		.build_id = bid[0] ? gpi_conv_intern(mw->cv, bid) : 0,
	};
	gpi_conv_add(mw->cv, GPT_KIND_MODULE, &m);
	return 0;
}

void gpi_bt_atfork_child(void)
{
	/* the child's file starts empty: every module and node is written again */
	nmods = 0;
	last_adds = ~0ull;
	emitted = 0;
}

void gpi_bt_drain(struct gpi_conv *cv)
{
	if (!gpi_bt_on || !cv->w) {
		return;
	}
	/* modules: again whenever something was loaded */
	struct mod_walk mw = {.cv = cv, .check_only = true};
	dl_iterate_phdr(mod_cb, &mw);
	if (mw.changed) {
		mw.check_only = false;
		dl_iterate_phdr(mod_cb, &mw);
	}
	/* nodes, in id order, as far as they are ready */
	uint32_t n = atomic_load_explicit(&nnodes, memory_order_acquire);
	if (n > NODES_MAX) {
		n = NODES_MAX;
	}
	while (emitted < n &&
	       atomic_load_explicit(&nodes[emitted + 1].ready, memory_order_acquire)) {
		emitted++;
		struct gpt_stack_node r = {
			.id = emitted, .parent = nodes[emitted].parent, .pc = nodes[emitted].pc};
		gpi_conv_add(cv, GPT_KIND_STACK_NODE, &r);
	}
	/* queued stacks */
	for (;;) {
		struct cell *c = &cells[q_tail & (QUEUE_CELLS - 1)];
		if (atomic_load_explicit(&c->seq, memory_order_acquire) != q_tail + 1) {
			break;
		}
		struct gpt_stack r = {.ts = c->ts,
				      .correlation = c->corr,
				      .tid = c->tid,
				      .node = c->node,
				      .depth = c->depth,
				      .flags = c->flags,
				      .method = c->method};
		atomic_store_explicit(&c->seq, q_tail + QUEUE_CELLS, memory_order_release);
		q_tail++;
		if (gpi_capture_keep(r.ts)) {
			gpi_conv_add(cv, GPT_KIND_STACK, &r);
		}
	}
	/* losses since the last drain */
	uint64_t lq = atomic_load(&lost_queue), lt = atomic_load(&lost_table);
	if (lq != lost_queue_seen) {
		struct gpt_loss l = {
			.ts = gpi_now(), .cause = GPT_LOSS_STACK_QUEUE, .count = lq - lost_queue_seen};
		gpi_conv_add(cv, GPT_KIND_LOSS, &l);
		lost_queue_seen = lq;
	}
	if (lt != lost_table_seen) {
		struct gpt_loss l = {
			.ts = gpi_now(), .cause = GPT_LOSS_STACK_TABLE, .count = lt - lost_table_seen};
		gpi_conv_add(cv, GPT_KIND_LOSS, &l);
		lost_table_seen = lt;
	}
}
