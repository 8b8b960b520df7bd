/* SPDX-License-Identifier: MIT */
/*
 * flame.c - flame-graph trees: every GPU op (or API call) adds its duration
 * to the path process -> [step] -> thread -> NVTX ranges -> [CPU stack] ->
 * leaf. Contexts repeat, so the node of each NVTX range instance is
 * remembered and an op costs one hash lookup for its leaf (plus one per CPU
 * frame). Differential trees merge two trees by frame names.
 */
#include "base/compat.h"
#include "analyze/commclass.h"
#include "analyze/flame.h"
#include "analyze/model.h"
#include "analyze/stacks.h"
#include "analyze/gaps.h"
#include "analyze/stats.h"
#include "analyze/steps.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <pcre2.h>
#include <stdio.h>

/*
 * Bounds whatever a trace holds: NVTX ranges nested deeper than MAX_NVTX
 * levels and CPU frames past MAX_CPU fold into the frame above them, so a
 * path is at most a few frames plus MAX_NVTX + MAX_CPU deep (node depths
 * are 16 bits; report/flame-speedscope.c sizes its path buffer above MAX_DEPTH).
 */
#define MAX_NVTX 1024
#define MAX_CPU 1024
#define MAX_DEPTH 4096
#define MAX_CHAIN 65537 /* NVTX nesting levels are 16 bits in the model */

void gpa_flame_opts_init(struct gpa_flame_opts *o)
{
	*o = (struct gpa_flame_opts){.weight = GPA_FLAME_GPU_TIME, .kname = GPA_KNAME_DEMANGLED,
				     .device = -1, .rank = -1};
}

/* ---------------------------------------------------------------- names */

static int name_rehash(struct gpa_flame *f)
{
	size_t n = f->nname_slots ? f->nname_slots * 2 : 1024;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < f->nname_slots; i++) {
		uint32_t v = f->name_slots[i];
		if (v) {
			const char *t = f->names.buf + v - 1;
			size_t h = gp_hash_bytes(t, strlen(t)) & (n - 1);
			while (s[h]) {
				h = (h + 1) & (n - 1);
			}
			s[h] = v;
		}
	}
	free(f->name_slots);
	f->name_slots = s;
	f->nname_slots = n;
	return 0;
}

/* Interns s[0..len) as given (already clean); returns its offset or UINT32_MAX. */
static uint32_t intern_raw(struct gpa_flame *f, const char *s, size_t len)
{
	size_t h;

	if ((f->nnames + 1) * 2 > f->nname_slots && name_rehash(f)) {
		return UINT32_MAX;
	}
	h = gp_hash_bytes(s, len) & (f->nname_slots - 1);
	for (;;) {
		uint32_t v = f->name_slots[h];
		if (!v) {
			break;
		}
		const char *t = f->names.buf + v - 1;
		if (!strncmp(t, s, len) && t[len] == '\0') {
			return v - 1;
		}
		h = (h + 1) & (f->nname_slots - 1);
	}
	if (f->names.len + len + 1 >= UINT32_MAX - 1) {
		return UINT32_MAX;
	}
	uint32_t off = (uint32_t)f->names.len;
	gp_strbuf_add(&f->names, s, len);
	gp_strbuf_addch(&f->names, '\0');
	if (f->names.failed) {
		return UINT32_MAX;
	}
	f->name_slots[h] = off + 1;
	f->nnames++;
	return off;
}

/* Interns a name made safe for folded lines: ';' -> ':', control characters -> ' '. */
static uint32_t intern(struct gpa_flame *f, const char *s)
{
	size_t len = strlen(s);
	bool clean = len > 0;

	for (size_t i = 0; i < len && clean; i++) {
		unsigned char c = (unsigned char)s[i];
		clean = c != ';' && c >= 0x20 && c != 0x7f;
	}
	if (clean) {
		return intern_raw(f, s, len);
	}
	if (!len) {
		return intern_raw(f, "[unknown]", 9);
	}
	char stackbuf[256];
	char *t = len < sizeof(stackbuf) ? stackbuf : malloc(len + 1);
	if (!t) {
		return UINT32_MAX;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		t[i] = c == ';' ? ':' : (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
	}
	uint32_t off = intern_raw(f, t, len);
	if (t != stackbuf) {
		free(t);
	}
	return off;
}

/* ---------------------------------------------------------------- nodes */

/*
 * The child of parent named name (an offset), created with kind and cat if
 * new. On failure neither the tree nor the node map changes.
 */
static uint32_t child(struct gpa_flame *f, uint32_t parent, uint32_t name, uint8_t kind,
		      uint8_t cat)
{
	uint64_t key = ((uint64_t)parent << 32) | name;
	const uint64_t *found;

	if (name == UINT32_MAX || parent == GPA_NONE) {
		return GPA_NONE;
	}
	found = gp_u64map_find(&f->node_ids, key);
	if (found) {
		return (uint32_t)*found;
	}
	if (f->nodes.n >= GPA_NONE - 1 || f->nodes.v[parent].depth >= MAX_DEPTH) {
		return GPA_NONE;
	}
	struct gpa_flame_node d = {
		.name = name,
		.parent = parent,
		.child = GPA_NONE,
		.next = f->nodes.v[parent].child,
		.depth = (uint16_t)(f->nodes.v[parent].depth + 1),
		.kind = kind,
		.category = cat,
	};
	if (gp_vec_push(&f->nodes, d)) {
		return GPA_NONE;
	}
	uint32_t id = (uint32_t)(f->nodes.n - 1);
	if (gp_u64map_put(&f->node_ids, key, id) < 0) {
		f->nodes.n--;
		return GPA_NONE;
	}
	f->nodes.v[parent].child = id;
	return id;
}

static int tree_init(struct gpa_flame *f)
{
	memset(f, 0, sizeof(*f));
	gp_strbuf_init(&f->names);
	if (intern_raw(f, "all", 3) != 0) {
		return -GP_ERR_NOMEM;
	}
	struct gpa_flame_node root = {.parent = GPA_NONE, .child = GPA_NONE, .next = GPA_NONE};
	if (gp_vec_push(&f->nodes, root) || gp_u64map_reserve(&f->node_ids, 512)) {
		return -GP_ERR_NOMEM;
	}
	return 0;
}

static int by_name(const void *a, const void *b, void *names)
{
	return strcmp((const char *)names + *(const uint32_t *)a,
		      (const char *)names + *(const uint32_t *)b);
}

/*
 * Totals from selves (parents come before children), then children linked
 * in name order. Sorting pairs (name offset, node) keeps the comparison on
 * names alone.
 */
static int tree_finish(struct gpa_flame *f)
{
	struct gpa_flame_node *v = f->nodes.v;
	uint32_t *buf;
	size_t cap = 64;

	for (size_t i = f->nodes.n; i-- > 1;) {
		v[v[i].parent].total += v[i].total;
		v[v[i].parent].total0 += v[i].total0;
		v[v[i].parent].count += v[i].count;
	}
	buf = malloc(cap * 2 * sizeof(*buf));
	if (!buf) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < f->nodes.n; i++) {
		size_t n = 0;
		for (uint32_t c = v[i].child; c != GPA_NONE; c = v[c].next) {
			if (n == cap) {
				uint32_t *nb = realloc(buf, cap * 4 * sizeof(*buf));
				if (!nb) {
					free(buf);
					return -GP_ERR_NOMEM;
				}
				buf = nb;
				cap *= 2;
			}
			buf[2 * n] = v[c].name;
			buf[2 * n + 1] = c;
			n++;
		}
		if (n < 2) {
			continue;
		}
		qsort_r(buf, n, 2 * sizeof(*buf), by_name, f->names.buf);
		v[i].child = buf[1];
		for (size_t k = 0; k < n; k++) {
			v[buf[2 * k + 1]].next = k + 1 < n ? buf[2 * k + 3] : GPA_NONE;
		}
	}
	free(buf);
	return 0;
}

void gpa_flame_release(struct gpa_flame *f)
{
	if (!f) {
		return;
	}
	gp_strbuf_release(&f->names);
	gp_vec_free(&f->nodes);
	gp_u64map_release(&f->node_ids);
	free(f->name_slots);
	free(f->op_node);
	memset(f, 0, sizeof(*f));
}

/* -------------------------------------------------------------- building */

/*
 * Leaf slots: where builder.leaf_name, leaf_ok and leaf_cat memoize a leaf.
 * API time: one per model string (the call's name). GPU time: one per
 * function (kernels), then one per copy kind (memcpys; copy_kind is a byte,
 * so COPY_KINDS of them), then one for all memsets.
 */
#define COPY_KINDS 256
#define LEAF_COPY(m, kind) ((m)->funcs.n + (kind))
#define LEAF_MEMSET(m) ((m)->funcs.n + COPY_KINDS)
#define GPU_LEAF_SLOTS(m) ((m)->funcs.n + COPY_KINDS + 1)
_Static_assert(sizeof(gpa_copy_copy_kind(NULL, 0)) == 1, "COPY_KINDS: a byte's values");

struct builder {
	struct gpa_model *m;
	const struct gpa_flame_opts *o;
	struct gpa_flame *f;
	const struct gpa_classifier *cls;
	pcre2_code *leaf_re, *nvtx_re;
	pcre2_match_data *md;
	uint32_t *proc_node;  /* per process; GPA_NONE: filtered out or not made yet */
	uint8_t *proc_ok;
	uint32_t *range_node; /* per NVTX range: its node under range_base */
	uint32_t *range_base;
	uint8_t *step_range;  /* BY_STEP: per NVTX range, 1 when it is a step (its frame is the step's) */
	uint8_t *range_ok;    /* nvtx filter: 0 unknown, 1 no, 2 yes (it or an ancestor matches) */
	uint8_t *str_match;   /* per model string: 0 unknown, 1 no, 2 yes */
	uint32_t *leaf_name;  /* per leaf slot (below): name offset + 1; 0 unknown */
	uint8_t *leaf_ok, *leaf_cat;
	uint8_t *func_comm;   /* per function: some kernel of it is communication (commclass.h) */
	/*
	 * CPU frame names -> tree names, keyed by the string's offset in the
	 * model's string table (frames are model strings, interned as they are
	 * symbolized: the table may move, offsets stay).
	 */
	struct gp_u64map cpu;
	uint32_t *thread_node; /* per thread, without steps */
	uint32_t *role;       /* NO_IDS: per thread, its place by first launch in its
			       * process (0 the main thread); GPA_NONE without launches */
	uint32_t *chain;      /* MAX_CHAIN: an NVTX range's ancestors */
	int err;
};

static bool re_match(struct builder *b, pcre2_code *re, const char *s)
{
	return pcre2_match(re, (PCRE2_SPTR)s, strlen(s), 0, 0, b->md, NULL) >= 0;
}

static uint32_t cpu_name(struct builder *b, const char *s)
{
	const struct gp_strbuf *text = &b->m->strs.text;
	const uint64_t *found;
	uint64_t key;

	if (!s) {
		return intern(b->f, "[unknown]");
	}
	if (s < text->buf || s >= text->buf + text->len) {
		return intern(b->f, s); /* not in the table: by content */
	}
	key = (uint64_t)(s - text->buf);
	found = gp_u64map_find(&b->cpu, key);
	if (found) {
		return (uint32_t)*found;
	}
	uint32_t off = intern(b->f, s);
	if (off != UINT32_MAX && gp_u64map_put(&b->cpu, key, off) < 0) {
		return UINT32_MAX;
	}
	return off;
}

/* The process frame, or GPA_NONE when the process is filtered out. */
static uint32_t proc_node(struct builder *b, uint32_t proc)
{
	if (b->proc_node[proc] != GPA_NONE || !b->proc_ok[proc]) {
		return b->proc_node[proc];
	}
	const struct gpa_proc *p = &b->m->procs.v[proc];
	char name[64];
	if (p->rank >= 0) {
		snprintf(name, sizeof(name), "rank %" PRId32, p->rank);
	} else if (b->o->flags & GPA_FLAME_NO_IDS) {
		snprintf(name, sizeof(name), "process");
	} else {
		snprintf(name, sizeof(name), "pid %" PRIu32, p->pid);
	}
	b->proc_node[proc] = child(b->f, 0, intern(b->f, name), GPA_FRAME_PROCESS, GPA_CAT_OTHER);
	if (b->proc_node[proc] == GPA_NONE) {
		b->err = -GP_ERR_NOMEM;
	}
	return b->proc_node[proc];
}

/* The step containing time t in process proc: its index, or GPA_NONE. */
static uint32_t step_at(const struct gpa_steps *s, uint32_t proc, uint64_t t)
{
	size_t lo = 0, hi = s->v.n;

	/* Steps are sorted by (process, start): the last one starting at or before t. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct gpa_step *x = &s->v.v[mid];
		if (x->proc < proc || (x->proc == proc && x->start <= t)) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo && s->v.v[lo - 1].proc == proc && s->v.v[lo - 1].end >= t) {
		return (uint32_t)(lo - 1);
	}
	return GPA_NONE;
}

static uint32_t step_name(struct builder *b, const char *name);

static uint32_t step_node(struct builder *b, uint32_t parent, uint32_t step)
{
	const struct gpa_step *st;
	char name[64];

	if (step == GPA_NONE) {
		return child(b->f, parent, intern(b->f, "[outside steps]"), GPA_FRAME_STEP,
			     GPA_CAT_OTHER);
	}
	st = &b->o->steps->v.v[step];
	if (st->name) {
		return child(b->f, parent, step_name(b, gpa_model_str(b->m, st->name)),
			     GPA_FRAME_STEP, GPA_CAT_OTHER);
	}
	snprintf(name, sizeof(name), "step %" PRId64, st->number);
	if (b->o->flags & GPA_FLAME_NO_IDS) {
		snprintf(name, sizeof(name), "step *");
	}
	return child(b->f, parent, intern(b->f, name), GPA_FRAME_STEP, GPA_CAT_OTHER);
}

/*
 * A thread's name without its OS id: the decimal tid, where it stands as a
 * whole number in the name (Kineto names threads "thread 2568503
 * (python3.8)"), is cut out with the space before it.
 */
static void name_without_tid(char *out, size_t len, const char *tn, uint32_t tid)
{
	char id[16];
	size_t n = (size_t)snprintf(id, sizeof(id), "%" PRIu32, tid), o = 0;

	for (const char *p = tn; *p && o + 1 < len;) {
		bool whole = !strncmp(p, id, n) && !(p > tn && isdigit((unsigned char)p[-1])) &&
			     !isdigit((unsigned char)p[n]);
		if (whole) {
			p += n;
			if (o && out[o - 1] == ' ' && *p == ' ') {
				p++;
			}
			continue;
		}
		out[o++] = *p++;
	}
	while (o && out[o - 1] == ' ') {
		o--;
	}
	out[o] = 0;
}

static uint32_t thread_node(struct builder *b, uint32_t parent, uint32_t thread)
{
	const struct gpa_thread *t = &b->m->threads.v[thread];
	const char *tn = gpa_model_str(b->m, t->name);
	char name[320], base[280];

	if (b->o->flags & GPA_FLAME_NO_IDS) {
		/* matched across runs by role, never by OS id (docs/flame.md) */
		name_without_tid(base, sizeof(base), tn, t->tid);
		uint32_t r = b->role ? b->role[thread] : GPA_NONE;
		if (r == 0) {
			snprintf(name, sizeof(name), "%s main", *base ? base : "thread");
		} else if (r != GPA_NONE) {
			snprintf(name, sizeof(name), "%s side %" PRIu32, *base ? base : "thread", r);
		} else {
			snprintf(name, sizeof(name), "%s", *base ? base : "thread");
		}
	} else if (*tn) {
		snprintf(name, sizeof(name), "%.255s tid %" PRIu32, tn, t->tid);
	} else {
		snprintf(name, sizeof(name), "tid %" PRIu32, t->tid);
	}
	return child(b->f, parent, intern(b->f, name), GPA_FRAME_THREAD, GPA_CAT_OTHER);
}

/*
 * The frame name of a step range: every run of digits as '*'
 * ("ProfilerStep#*"), so that the steps of a run (and of two runs) merge into
 * one frame; as recorded only with BY_STEP (a frame per step) and ids kept.
 */
static uint32_t step_name(struct builder *b, const char *name)
{
	char buf[512];
	size_t n = 0;

	if ((b->o->flags & GPA_FLAME_BY_STEP) && !(b->o->flags & GPA_FLAME_NO_IDS)) {
		return intern(b->f, name);
	}
	for (const char *p = name; *p && n < sizeof(buf) - 1; p++) {
		if (*p >= '0' && *p <= '9') {
			if (!n || buf[n - 1] != '*') {
				buf[n++] = '*';
			}
			continue;
		}
		buf[n++] = *p;
	}
	buf[n] = '\0';
	return intern(b->f, buf);
}

/* Whether range r or one of its ancestors matches the NVTX filter. */
static bool range_ok(struct builder *b, uint32_t r)
{
	size_t n = 0;

	while (r != GPA_NONE && !b->range_ok[r] && n < MAX_CHAIN) {
		b->chain[n++] = r;
		r = gpa_nvtx_parent(b->m, r);
	}
	bool ok = r != GPA_NONE && b->range_ok[r] == 2;
	while (n--) {
		uint32_t x = b->chain[n];
		uint32_t s = gpa_nvtx_name(b->m, x);
		if (!b->str_match[s]) {
			b->str_match[s] = re_match(b, b->nvtx_re, gpa_model_str(b->m, s)) ? 2 : 1;
		}
		ok = ok || b->str_match[s] == 2;
		b->range_ok[x] = ok ? 2 : 1;
	}
	return ok;
}

/*
 * The node of NVTX range r (with its ancestors) under base, remembered per
 * range: a range instance lies under one base unless steps split it.
 */
static uint32_t range_node(struct builder *b, uint32_t base, uint32_t r)
{
	size_t n = 0;
	uint32_t node = base;

	while (r != GPA_NONE && n < MAX_CHAIN) {
		if (b->range_base[r] == base) {
			node = b->range_node[r];
			break;
		}
		b->chain[n++] = r;
		r = gpa_nvtx_parent(b->m, r);
	}
	while (n--) {
		uint32_t x = b->chain[n];
		if (gpa_nvtx_depth(b->m, x) >= MAX_NVTX) {
			/* too deep: folds into the range above */
		} else if (!b->step_range || !b->step_range[x]) {
			node = child(b->f, node,
				     intern(b->f, gpa_model_str(b->m, gpa_nvtx_name(b->m, x))),
				     GPA_FRAME_NVTX, GPA_CAT_OTHER);
		} else if (!(b->o->flags & GPA_FLAME_BY_STEP)) {
			node = child(b->f, node,
				     step_name(b, gpa_model_str(b->m, gpa_nvtx_name(b->m, x))),
				     GPA_FRAME_NVTX, GPA_CAT_OTHER);
		}
		if (node == GPA_NONE) {
			b->err = -GP_ERR_NOMEM;
			return GPA_NONE;
		}
		b->range_base[x] = base;
		b->range_node[x] = node;
	}
	return node;
}

/*
 * The context node of API call a (process -> [step] -> thread -> NVTX ->
 * [CPU stack]), or GPA_NONE when filtered out (b->err says whether it was
 * an error).
 */
static uint32_t api_context(struct builder *b, uint32_t a, uint32_t step)
{
	struct gpa_model *m = b->m;
	uint32_t thread = gpa_api_thread(m, a);
	uint32_t r = gpa_api_nvtx(m, a);
	uint32_t proc = m->threads.v[thread].proc;
	uint32_t node = proc_node(b, proc);

	if (node == GPA_NONE) {
		return GPA_NONE;
	}
	if (b->nvtx_re && !range_ok(b, r)) {
		return GPA_NONE;
	}
	if (b->o->flags & GPA_FLAME_BY_STEP) {
		node = thread_node(b, step_node(b, node, step), thread);
	} else {
		if (b->thread_node[thread] == GPA_NONE) {
			b->thread_node[thread] = thread_node(b, node, thread);
		}
		node = b->thread_node[thread];
	}
	if (node != GPA_NONE && !(b->o->flags & GPA_FLAME_NO_NVTX)) {
		node = range_node(b, node, r);
	}
	if (node != GPA_NONE && (b->o->flags & GPA_FLAME_CPU_STACKS)) {
		uint32_t depth = gpa_api_stack_depth(m, a);
		depth = depth < MAX_CPU ? depth : MAX_CPU;
		for (uint32_t i = 0; i < depth && node != GPA_NONE; i++) {
			node = child(b->f, node, cpu_name(b, gpa_api_stack_frame(m, a, i)),
				     GPA_FRAME_CPU, GPA_CAT_OTHER);
		}
	}
	if (node == GPA_NONE) {
		b->err = -GP_ERR_NOMEM;
	}
	return node;
}

/* Leaf name (offset + 1) and filter verdict of a name memoized in slot i. */
static void leaf_of(struct builder *b, size_t i, const char *name, uint8_t cat_default)
{
	uint32_t off = intern(b->f, name);

	if (off == UINT32_MAX) {
		b->err = -GP_ERR_NOMEM;
		return;
	}
	b->leaf_name[i] = off + 1;
	b->leaf_ok[i] = !b->leaf_re || re_match(b, b->leaf_re, b->f->names.buf + off);
	b->leaf_cat[i] = cat_default != GPA_CAT_OTHER
				 ? cat_default
				 : (uint8_t)gpa_classify(b->cls, b->f->names.buf + off);
}

static const char *kernel_name(const struct gpa_model *m, uint32_t func, enum gpa_kernel_name k,
			       char *buf, size_t len)
{
	const struct gpa_func *fn = &m->funcs.v[func];
	const char *mangled = gpa_model_str(m, fn->name);
	const char *dem = fn->demangled ? gpa_model_str(m, fn->demangled) : mangled;
	const char *s;
	size_t n;

	if (k == GPA_KNAME_MANGLED) {
		return mangled;
	}
	if (k != GPA_KNAME_SHORT) {
		return dem;
	}
	n = gpa_kernel_base_name(dem, &s);
	if (n >= len) {
		n = len - 1;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

/* Adds GPU op row g of gpa_model.gpu with weight w. */
static void add_gpu_op(struct builder *b, size_t g, uint64_t w)
{
	struct gpa_model *m = b->m;
	struct gpa_flame *f = b->f;
	uint32_t row = gpa_gpu_row(m, g), api, leaf, node;
	uint8_t kind = gpa_gpu_kind(m, g), fkind, cat;
	size_t slot;
	char buf[1024];

	switch (kind) {
	case GPA_GPU_KERNEL:
		api = gpa_kern_api(m, row);
		slot = gpa_kern_func(m, row);
		fkind = GPA_FRAME_KERNEL;
		if (!b->leaf_name[slot]) {
			leaf_of(b, slot, kernel_name(m, (uint32_t)slot, b->o->kname, buf, sizeof(buf)),
				b->func_comm && b->func_comm[slot] ? GPA_CAT_COMM : GPA_CAT_OTHER);
		}
		break;
	case GPA_GPU_MEMCPY:
		api = gpa_copy_api(m, row);
		slot = LEAF_COPY(m, gpa_copy_copy_kind(m, row));
		fkind = GPA_FRAME_MEMCPY;
		if (!b->leaf_name[slot]) {
			leaf_of(b, slot, gpa_stats_memcpy_name(gpa_copy_copy_kind(m, row)),
				GPA_CAT_COPY);
		}
		break;
	default:
		api = gpa_set_api(m, row);
		slot = LEAF_MEMSET(m);
		fkind = GPA_FRAME_MEMSET;
		if (!b->leaf_name[slot]) {
			leaf_of(b, slot, GPA_STATS_MEMSET_NAME, GPA_CAT_COPY);
		}
		break;
	}
	if (b->err) {
		return;
	}
	if (!b->leaf_ok[slot]) {
		f->filtered++;
		return;
	}
	leaf = b->leaf_name[slot] - 1;
	cat = b->leaf_cat[slot];
	if (api != GPA_NONE) {
		uint32_t step = GPA_NONE;
		if (b->o->flags & GPA_FLAME_BY_STEP) {
			step = gpa_steps_assigned(b->o->steps) ? gpa_step_of(b->o->steps, g) : GPA_NONE;
		}
		node = api_context(b, api, step);
	} else {
		uint32_t proc = gpa_dev_proc(m, gpa_gpu_dev(m, g));
		node = proc_node(b, proc);
		if (b->nvtx_re) {
			node = GPA_NONE; /* no launch call: no NVTX range can enclose it */
		}
		if (node != GPA_NONE) {
			if (b->o->flags & GPA_FLAME_BY_STEP) {
				node = step_node(b, node,
						 gpa_steps_assigned(b->o->steps)
							 ? gpa_step_of(b->o->steps, g)
							 : GPA_NONE);
			}
			node = child(f, node, intern(f, "[no launch call]"), GPA_FRAME_OTHER,
				     GPA_CAT_OTHER);
			if (node == GPA_NONE) {
				b->err = -GP_ERR_NOMEM;
			}
			f->unlinked++;
		}
	}
	if (node == GPA_NONE) {
		f->filtered += !b->err;
		return;
	}
	node = child(f, node, leaf, fkind, cat);
	if (node == GPA_NONE) {
		b->err = -GP_ERR_NOMEM;
		return;
	}
	f->nodes.v[node].total += w;
	f->nodes.v[node].count++;
	f->ops++;
	if (f->op_node) {
		f->op_node[g] = node;
	}
}

static void add_api_call(struct builder *b, uint32_t a)
{
	struct gpa_model *m = b->m;
	struct gpa_flame *f = b->f;
	uint32_t s = gpa_api_name(m, a), node;

	if (!b->leaf_name[s]) {
		leaf_of(b, s, gpa_model_str(m, s), GPA_CAT_OTHER);
		if (b->err) {
			return;
		}
		b->leaf_cat[s] = GPA_CAT_OTHER;
	}
	if (!b->leaf_ok[s]) {
		f->filtered++;
		return;
	}
	uint32_t step = GPA_NONE;
	if (b->o->flags & GPA_FLAME_BY_STEP) {
		step = step_at(b->o->steps, m->threads.v[gpa_api_thread(m, a)].proc, gpa_api_start(m, a));
	}
	node = api_context(b, a, step);
	if (node == GPA_NONE) {
		f->filtered += !b->err;
		return;
	}
	node = child(f, node, b->leaf_name[s] - 1, GPA_FRAME_API, GPA_CAT_OTHER);
	if (node == GPA_NONE) {
		b->err = -GP_ERR_NOMEM;
		return;
	}
	f->nodes.v[node].total += gpa_api_dur(m, a);
	f->nodes.v[node].count++;
	f->ops++;
}

/* ------------------------------------------------------------ wall share */

struct end_ev {
	uint64_t end;
	uint32_t i; /* op index within the device */
};

static void heap_push(struct end_ev *h, size_t *n, struct end_ev e)
{
	size_t k = (*n)++;

	while (k) {
		size_t p = (k - 1) / 2;
		if (h[p].end < e.end || (h[p].end == e.end && h[p].i < e.i)) {
			break;
		}
		h[k] = h[p];
		k = p;
	}
	h[k] = e;
}

static struct end_ev heap_pop(struct end_ev *h, size_t *n)
{
	struct end_ev top = h[0], e = h[--*n];
	size_t k = 0;

	for (;;) {
		size_t c = 2 * k + 1;
		if (c >= *n) {
			break;
		}
		if (c + 1 < *n && (h[c + 1].end < h[c].end ||
				   (h[c + 1].end == h[c].end && h[c + 1].i < h[c].i))) {
			c++;
		}
		if (e.end < h[c].end || (e.end == h[c].end && e.i < h[c].i)) {
			break;
		}
		h[k] = h[c];
		k = c;
	}
	if (*n) {
		h[k] = e;
	}
	return top;
}

/*
 * The wall share of each of a device's ops (rows first .. first + count of
 * gpa_model.gpu, in start order): a sweep over starts and ends splits every
 * busy instant equally among the ops running, in 32.32 fixed point (128-bit
 * accumulator, so no trace's span overflows it). Shares are rounded down;
 * what rounding lost goes to the op with the largest share, so they sum
 * exactly to the device's busy time (the union of its ops). O(n log n).
 */
static int wall_shares(const struct gpa_model *m, size_t first, size_t count, uint64_t *share)
{
	struct end_ev *h = malloc((count + 1) * sizeof(*h));
	unsigned __int128 *a0 = malloc((count + 1) * sizeof(*a0));
	unsigned __int128 acc = 0;
	uint64_t last = 0, busy = 0, sum = 0;
	size_t i = 0, hn = 0, best = 0;

	if (!h || !a0) {
		free(h);
		free(a0);
		return -GP_ERR_NOMEM;
	}
	while (i < count || hn) {
		uint64_t next = i < count ? gpa_gpu_start(m, first + i) : UINT64_MAX;
		bool is_end = hn && h[0].end <= next;
		uint64_t t = is_end ? h[0].end : next;
		if (hn && t > last) {
			uint64_t dt = t - last;
			/* 64-bit division when it fits (nearly always): 128-bit is slow */
			acc += dt < (1ull << 32) ? (dt << 32) / hn
						 : ((unsigned __int128)dt << 32) / hn;
			busy += dt;
		}
		last = t > last ? t : last;
		if (is_end) {
			struct end_ev e = heap_pop(h, &hn);
			share[e.i] = (uint64_t)((acc - a0[e.i]) >> 32);
		} else {
			uint64_t s = gpa_gpu_start(m, first + i), e = gpa_gpu_end(m, first + i);
			a0[i] = acc;
			heap_push(h, &hn, (struct end_ev){e > s ? e : s, (uint32_t)i});
			i++;
		}
	}
	for (i = 0; i < count; i++) {
		sum += share[i];
		best = share[i] > share[best] ? i : best;
	}
	if (count) {
		share[best] += busy - sum;
	}
	free(h);
	free(a0);
	return 0;
}

/* "[GPU idle]" -> cause frames under each process: the gaps of its devices. */
static int add_idle(struct builder *b, char *errbuf, size_t errlen)
{
	struct gpa_gaps_opts go;
	struct gpa_gaps g;
	int ret;

	gpa_gaps_opts_init(&go);
	go.device = b->o->device;
	go.top = 0;
	go.data_regex = b->o->data_regex;
	go.comm = b->o->comm;
	ret = gpa_gaps_analyze(b->m, NULL, &go, &g, errbuf, errlen);
	if (ret == -GP_ERR_NOTFOUND) {
		ret = 0; /* the device has no GPU ops: no idle time either */
	}
	for (size_t d = 0; !ret && d < g.devs.n; d++) {
		uint32_t proc = gpa_dev_proc(b->m, g.devs.v[d].dev);
		uint32_t node = proc_node(b, proc), idle;
		if (node == GPA_NONE) {
			continue;
		}
		idle = child(b->f, node, intern(b->f, "[GPU idle]"), GPA_FRAME_OTHER, GPA_CAT_OTHER);
		for (unsigned c = 0; c < GPA_GAP__COUNT && idle != GPA_NONE; c++) {
			if (!g.devs.v[d].t.cause_ns[c]) {
				continue;
			}
			uint32_t n = child(b->f, idle, intern(b->f, gpa_gap_cause_name(c)),
					   GPA_FRAME_OTHER, GPA_CAT_OTHER);
			if (n == GPA_NONE) {
				idle = GPA_NONE;
				break;
			}
			b->f->nodes.v[n].total += g.devs.v[d].t.cause_ns[c];
		}
		if (idle == GPA_NONE) {
			ret = -GP_ERR_NOMEM;
		}
	}
	gpa_gaps_release(&g);
	return ret ? ret : b->err;
}

static int compile(const char *pat, const char *what, pcre2_code **re, char *errbuf,
		   size_t errlen)
{
	int errcode;
	PCRE2_SIZE erroff;

	*re = NULL;
	if (!pat) {
		return 0;
	}
	*re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &errcode, &erroff,
			    NULL);
	if (!*re && errcode == PCRE2_ERROR_HEAP_FAILED) {
		snprintf(errbuf, errlen, "out of memory");
		return -GP_ERR_NOMEM;
	}
	if (!*re) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(errcode, msg, sizeof(msg));
		snprintf(errbuf, errlen, "bad %s pattern '%s' at offset %zu: %s", what, pat,
			 (size_t)erroff, (char *)msg);
		return -GP_ERR_API;
	}
	return 0;
}

struct thread_first {
	uint64_t first;
	uint32_t proc, thread;
};

static int cmp_first(const void *x, const void *y)
{
	const struct thread_first *a = x, *b = y;

	if (a->proc != b->proc) {
		return a->proc < b->proc ? -1 : 1;
	}
	if (a->first != b->first) {
		return a->first < b->first ? -1 : 1;
	}
	return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/*
 * NO_IDS: each thread's role in its process, the order of its first launch
 * (the call of the first GPU op it launched): 0 the main thread, then side
 * threads 1, 2, ...; threads that launched nothing keep their name alone.
 * Two runs of one program name the same thread alike whatever ids the OS
 * gave them.
 */
static int thread_roles(struct builder *b)
{
	const struct gpa_model *m = b->m;
	size_t nt = m->threads.n;
	struct thread_first *v = malloc((nt + 1) * sizeof(*v));

	b->role = malloc((nt + 1) * sizeof(*b->role));
	if (!v || !b->role) {
		free(v);
		return -GP_ERR_NOMEM;
	}
	for (size_t t = 0; t < nt; t++) {
		v[t] = (struct thread_first){UINT64_MAX, m->threads.v[t].proc, (uint32_t)t};
		b->role[t] = GPA_NONE;
	}
	for (size_t g = 0; g < gpa_gpu_rows(m); g++) {
		uint32_t a = gpa_gpu_api(m, g);
		if (a == GPA_NONE) {
			continue;
		}
		uint32_t t = gpa_api_thread(m, a);
		uint64_t s = gpa_api_start(m, a);
		if (t < nt && s < v[t].first) {
			v[t].first = s;
		}
	}
	gp_qsort(v, nt, sizeof(*v), cmp_first);
	for (size_t i = 0, k = 0; i < nt; i++) {
		k = i && v[i].proc == v[i - 1].proc ? k + 1 : 0;
		if (v[i].first != UINT64_MAX) {
			b->role[v[i].thread] = (uint32_t)k;
		}
	}
	free(v);
	return 0;
}

/* The builder's tables, nleaf leaf slots; builder_release frees them, also on failure. */
static int builder_alloc(struct builder *b, size_t nleaf)
{
	const struct gpa_model *m = b->m;
	size_t nstr = m->strs.off.n + 2;

	b->md = pcre2_match_data_create(4, NULL);
	b->chain = malloc(MAX_CHAIN * sizeof(*b->chain));
	/* per process, thread and NVTX range (+ 1: never a zero-size allocation) */
	b->proc_node = malloc((m->procs.n + 1) * sizeof(*b->proc_node));
	b->proc_ok = calloc(m->procs.n + 1, 1);
	b->thread_node = malloc((m->threads.n + 1) * sizeof(*b->thread_node));
	b->range_node = malloc((gpa_nvtx_rows(m) + 1) * sizeof(*b->range_node));
	b->range_base = malloc((gpa_nvtx_rows(m) + 1) * sizeof(*b->range_base));
	b->range_ok = calloc(gpa_nvtx_rows(m) + 1, 1);
	if (b->o->steps) {
		b->step_range = calloc(gpa_nvtx_rows(m) + 1, 1);
	}
	/* per model string and leaf slot */
	b->str_match = calloc(nstr, 1);
	b->leaf_name = calloc(nleaf, sizeof(*b->leaf_name));
	b->leaf_ok = calloc(nleaf, 1);
	b->leaf_cat = calloc(nleaf, 1);
	if (!b->md || !b->chain || !b->proc_node || !b->proc_ok || !b->thread_node ||
	    !b->range_node || !b->range_base || !b->range_ok || (b->o->steps && !b->step_range) ||
	    !b->str_match || !b->leaf_name || !b->leaf_ok || !b->leaf_cat) {
		return -GP_ERR_NOMEM;
	}
	if ((b->o->flags & GPA_FLAME_NO_IDS) && thread_roles(b)) {
		return -GP_ERR_NOMEM;
	}
	memset(b->proc_node, 0xff, (m->procs.n + 1) * sizeof(*b->proc_node));
	memset(b->thread_node, 0xff, (m->threads.n + 1) * sizeof(*b->thread_node));
	memset(b->range_base, 0xff, (gpa_nvtx_rows(m) + 1) * sizeof(*b->range_base));
	if (b->o->steps) {
		const struct gpa_steps *st = b->o->steps;
		for (size_t i = 0; i < st->v.n; i++) {
			if (st->v.v[i].nvtx < gpa_nvtx_rows(m)) {
				b->step_range[st->v.v[i].nvtx] = 1;
			}
		}
	}
	return 0;
}

static void builder_release(struct builder *b)
{
	free(b->func_comm);
	pcre2_code_free(b->leaf_re);
	pcre2_code_free(b->nvtx_re);
	pcre2_match_data_free(b->md);
	free(b->proc_node);
	free(b->proc_ok);
	free(b->thread_node);
	free(b->role);
	free(b->range_node);
	free(b->range_base);
	free(b->range_ok);
	free(b->step_range);
	free(b->chain);
	free(b->str_match);
	free(b->leaf_name);
	free(b->leaf_ok);
	free(b->leaf_cat);
	gp_u64map_release(&b->cpu);
}

/* The processes the rank filter keeps (proc_ok); an error when it keeps none. */
static int pick_procs(struct builder *b, char *errbuf, size_t errlen)
{
	const struct gpa_model *m = b->m;
	bool any_proc = false;

	for (size_t p = 0; p < m->procs.n; p++) {
		b->proc_ok[p] = b->o->rank < 0 || m->procs.v[p].rank == b->o->rank;
		any_proc = any_proc || b->proc_ok[p];
	}
	if (!any_proc && b->o->rank >= 0) {
		snprintf(errbuf, errlen, "no process has rank %" PRId64, b->o->rank);
		return -GP_ERR_NOTFOUND;
	}
	return 0;
}

/* Every GPU op of the devices the options keep, weighted by GPU time or wall share. */
static int add_gpu_ops(struct builder *b, char *errbuf, size_t errlen)
{
	const struct gpa_flame_opts *o = b->o;
	struct gpa_model *m = b->m;
	struct gpa_flame *out = b->f;
	bool any_dev = o->device < 0;
	uint64_t *share = NULL;
	int ret = 0;

	if (o->weight == GPA_FLAME_WALL_SHARE) {
		size_t most = 1;
		for (size_t d = 0; d < m->devs.n; d++) {
			most = m->devs.v[d].gpu_count > most ? m->devs.v[d].gpu_count : most;
		}
		share = malloc(most * sizeof(*share));
		if (!share) {
			return -GP_ERR_NOMEM;
		}
	}
	if (o->flags & GPA_FLAME_KEEP_OPS) {
		out->op_node = malloc((gpa_gpu_rows(m) + 1) * sizeof(*out->op_node));
		if (!out->op_node) {
			free(share);
			return -GP_ERR_NOMEM;
		}
		memset(out->op_node, 0xff, (gpa_gpu_rows(m) + 1) * sizeof(*out->op_node));
	}
	for (size_t d = 0; d < m->devs.n && !b->err && !ret; d++) {
		const struct gpa_dev *dv = &m->devs.v[d];
		if (o->device >= 0 && dv->id != (uint64_t)o->device) {
			continue;
		}
		any_dev = true;
		if (!b->proc_ok[dv->proc]) {
			out->filtered += dv->gpu_count;
			continue;
		}
		if (o->weight == GPA_FLAME_WALL_SHARE) {
			ret = wall_shares(m, dv->gpu_first, dv->gpu_count, share);
			if (ret) {
				break;
			}
		}
		for (size_t g = dv->gpu_first; g < dv->gpu_first + dv->gpu_count && !b->err; g++) {
			uint64_t w = gpa_gpu_end(m, g) - gpa_gpu_start(m, g);
			if (o->weight == GPA_FLAME_WALL_SHARE) {
				w = share[g - dv->gpu_first];
			}
			add_gpu_op(b, g, w);
		}
	}
	free(share);
	if (!ret && !any_dev) {
		snprintf(errbuf, errlen, "no device %" PRId64 " in the trace%s", o->device,
			 m->procs.n == 1 ? "" : "s");
		ret = -GP_ERR_NOTFOUND;
	}
	return ret;
}

/* Functions with a communication kernel: their frames are coloured as communication. */
static int comm_funcs(struct builder *b, char *errbuf, size_t errlen)
{
	const struct gpa_model *m = b->m;
	struct gpa_commclass own = {0};
	const struct gpa_commclass *cc = b->o->comm;
	int ret = 0;

	if (!cc) {
		ret = gpa_commclass_compute(m, NULL, &own, errbuf, errlen);
		cc = &own;
	}
	b->func_comm = ret ? NULL : calloc(m->funcs.n ? m->funcs.n : 1, 1);
	if (!ret && !b->func_comm) {
		ret = -GP_ERR_NOMEM;
	}
	for (size_t k = 0; !ret && k < gpa_kern_rows(m); k++) {
		b->func_comm[gpa_kern_func(m, k)] |= cc->kern[k] != GPA_COMM_NOT;
	}
	gpa_commclass_release(&own);
	return ret;
}

/* -------------------------------------------------------- repeated layers */

/* name with every run of digits as '*' into buf; whether it had any. */
static bool layer_name(const char *name, char *buf, size_t len)
{
	size_t n = 0;
	bool digits = false;

	for (const char *p = name; *p && n + 1 < len; p++) {
		if (*p >= '0' && *p <= '9') {
			if (!digits || buf[n - 1] != '*') {
				buf[n++] = '*';
			}
			digits = true;
			continue;
		}
		buf[n++] = *p;
	}
	buf[n] = '\0';
	return digits;
}

static bool layer_kind(uint8_t kind)
{
	return kind == GPA_FRAME_NVTX || kind == GPA_FRAME_CPU;
}

struct layers {
	uint64_t *sub;  /* per node: the shape below it, names with '*' for digits */
	uint64_t *key;  /* per node: its group among its siblings; 0 none */
	uint32_t *map;  /* per node: its node in the merged tree */
	bool *inside;   /* per node: in a merged layer (names below read with '*') */
	struct gp_u64map groups; /* key -> siblings in the group */
};

/* Shapes bottom-up (children follow their parents), then the sibling groups. */
static int layer_groups(const struct gpa_flame *f, struct layers *l)
{
	char buf[512];

	for (size_t i = f->nodes.n; i-- > 0;) {
		uint64_t h = 0x6a09e667f3bcc908ull;
		for (uint32_t c = f->nodes.v[i].child; c != GPA_NONE; c = f->nodes.v[c].next) {
			layer_name(gpa_flame_name(f, c), buf, sizeof(buf));
			/* a sum: the order of children (sorted by their own names) does not matter */
			h += gp_hash_u64(gp_hash_bytes(buf, strlen(buf)) ^ (l->sub[c] * 31));
		}
		l->sub[i] = h;
	}
	for (size_t i = 1; i < f->nodes.n; i++) {
		const struct gpa_flame_node *d = &f->nodes.v[i];
		if (!layer_kind(d->kind) || !layer_name(gpa_flame_name(f, (uint32_t)i), buf,
							 sizeof(buf))) {
			continue;
		}
		uint64_t k = gp_hash_u64(gp_hash_bytes(buf, strlen(buf)) ^ gp_hash_u64(d->parent)) ^
			     l->sub[i];
		uint64_t *n = gp_u64map_find(&l->groups, k | 1);
		l->key[i] = k | 1;
		if (gp_u64map_put(&l->groups, k | 1, n ? *n + 1 : 1) < 0) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

/* Node i's name in the merged tree into buf. */
static const char *merged_name(const struct gpa_flame *f, struct layers *l, size_t i, char *buf,
			       size_t len)
{
	const struct gpa_flame_node *d = &f->nodes.v[i];
	const char *name = gpa_flame_name(f, (uint32_t)i);
	uint64_t *n = l->key[i] ? gp_u64map_find(&l->groups, l->key[i]) : NULL;

	l->inside[i] = l->inside[d->parent];
	if (n && *n > 1) {
		l->inside[i] = true;
		layer_name(name, buf, len - 24);
		snprintf(buf + strlen(buf), 24, " \u00d7%" PRIu64, *n);
		return buf;
	}
	if (l->inside[i] && layer_kind(d->kind) && layer_name(name, buf, len)) {
		return buf;
	}
	return name;
}

/* f's stacks into out, repeated layers as one frame. */
static int layers_copy(const struct gpa_flame *f, struct layers *l, struct gpa_flame *out)
{
	char buf[512];

	out->nodes.v[0].count = f->nodes.v[0].count;
	for (size_t i = 1; i < f->nodes.n; i++) {
		const struct gpa_flame_node *s = &f->nodes.v[i];
		const char *name = merged_name(f, l, i, buf, sizeof(buf));
		uint32_t c = child(out, l->map[s->parent], intern_raw(out, name, strlen(name)),
				   s->kind, s->category);
		if (c == GPA_NONE) {
			return -GP_ERR_NOMEM;
		}
		l->map[i] = c;
		struct gpa_flame_node *d = &out->nodes.v[c];
		d->self += s->self;
		d->self0 += s->self0;
		/* own counts, summed again by tree_finish (as merge() does) */
		d->count += s->count;
		out->nodes.v[l->map[s->parent]].count -= s->count;
	}
	for (size_t i = 0; i < out->nodes.n; i++) {
		out->nodes.v[i].total = out->nodes.v[i].self;
		out->nodes.v[i].total0 = out->nodes.v[i].self0;
	}
	return tree_finish(out);
}

/*
 * GPA_FLAME_MERGE_LAYERS: sibling frames whose names differ only in their
 * numbers ("layers.0" ... "layers.35") and whose stacks below have the same
 * shape become one frame ("layers.* ×36") with the sum of their weights.
 */
static int merge_layers(struct gpa_flame *f)
{
	struct layers l = {.groups = GP_U64MAP_INIT};
	struct gpa_flame out;
	size_t n = f->nodes.n;
	int ret = tree_init(&out);

	l.sub = calloc(n, sizeof(*l.sub));
	l.key = calloc(n, sizeof(*l.key));
	l.map = calloc(n, sizeof(*l.map));
	l.inside = calloc(n, sizeof(*l.inside));
	if (!ret && (!l.sub || !l.key || !l.map || !l.inside)) {
		ret = -GP_ERR_NOMEM;
	}
	if (!ret) {
		ret = layer_groups(f, &l);
	}
	if (!ret) {
		ret = layers_copy(f, &l, &out);
	}
	if (!ret) {
		out.weight = f->weight;
		out.diff = f->diff;
		out.ops = f->ops;
		out.filtered = f->filtered;
		out.unlinked = f->unlinked;
		out.steps0 = f->steps0;
		out.steps = f->steps;
		gpa_flame_release(f);
		*f = out;
	} else {
		gpa_flame_release(&out);
	}
	free(l.sub);
	free(l.key);
	free(l.map);
	free(l.inside);
	gp_u64map_release(&l.groups);
	return ret;
}

int gpa_flame_build(struct gpa_model *m, const struct gpa_flame_opts *o, struct gpa_flame *out,
		    char *errbuf, size_t errlen)
{
	struct builder b = {.m = m, .o = o, .f = out};
	struct gpa_classifier *own_cls = NULL;
	int ret;

	if (errlen) {
		errbuf[0] = '\0';
	}
	ret = tree_init(out);
	if (ret) {
		return ret;
	}
	out->weight = o->weight;
	if ((o->flags & GPA_FLAME_BY_STEP) && !o->steps) {
		snprintf(errbuf, errlen, "grouping by step needs the steps");
		return -GP_ERR_API;
	}
	ret = compile(o->leaf_regex, o->weight == GPA_FLAME_API_TIME ? "API" : "kernel", &b.leaf_re,
		      errbuf, errlen);
	if (!ret) {
		ret = compile(o->nvtx_regex, "NVTX", &b.nvtx_re, errbuf, errlen);
	}
	if (ret) {
		goto out;
	}
	b.cls = o->classifier;
	if (!b.cls) {
		ret = gpa_classifier_new(NULL, NULL, &own_cls, errbuf, errlen);
		if (ret) {
			goto out;
		}
		b.cls = own_cls;
	}
	if (o->weight != GPA_FLAME_API_TIME) {
		ret = comm_funcs(&b, errbuf, errlen);
		if (ret) {
			goto out;
		}
	}
	ret = builder_alloc(&b, o->weight == GPA_FLAME_API_TIME ? m->strs.off.n + 2
								: GPU_LEAF_SLOTS(m));
	if (!ret) {
		ret = pick_procs(&b, errbuf, errlen);
	}
	if (ret) {
		goto out;
	}
	if (o->weight == GPA_FLAME_API_TIME) {
		for (size_t a = 0; a < gpa_api_rows(m) && !b.err; a++) {
			add_api_call(&b, (uint32_t)a);
		}
	} else {
		ret = add_gpu_ops(&b, errbuf, errlen);
		if (ret) {
			goto out;
		}
	}
	ret = b.err;
	if (!ret && o->weight == GPA_FLAME_WALL_SHARE && !o->leaf_regex && !o->nvtx_regex) {
		ret = add_idle(&b, errbuf, errlen);
	}
	if (!ret) {
		for (size_t i = 0; i < out->nodes.n; i++) {
			out->nodes.v[i].self = out->nodes.v[i].total;
		}
		ret = tree_finish(out);
	}
	/* (the per-op nodes of KEEP_OPS name the unmerged tree's frames) */
	if (!ret && (o->flags & GPA_FLAME_MERGE_LAYERS) && !out->op_node) {
		ret = merge_layers(out);
	}
out:
	gpa_classifier_free(own_cls);
	builder_release(&b);
	if (ret == -GP_ERR_NOMEM && errlen && !errbuf[0]) {
		snprintf(errbuf, errlen, "out of memory building the flame graph");
	}
	return ret;
}

/* ---------------------------------------------------------- differential */

static uint64_t per_step(uint64_t v, uint64_t n)
{
	return v / n + (v % n >= n - n / 2 ? 1 : 0);
}

/* Adds src's stacks into out: after (total/self) or before (total0/self0). */
static int merge(struct gpa_flame *out, const struct gpa_flame *src, uint64_t n, bool after)
{
	uint32_t *map = malloc((src->nodes.n + 1) * sizeof(*map));

	if (!map) {
		return -GP_ERR_NOMEM;
	}
	map[0] = 0;
	if (after && src->nodes.n) {
		out->nodes.v[0].count += src->nodes.v[0].count;
	}
	for (size_t i = 1; i < src->nodes.n; i++) {
		const struct gpa_flame_node *s = &src->nodes.v[i];
		const char *name = gpa_flame_name(src, (uint32_t)i);
		uint32_t c = child(out, map[s->parent], intern_raw(out, name, strlen(name)), s->kind,
				   s->category);
		if (c == GPA_NONE) {
			free(map);
			return -GP_ERR_NOMEM;
		}
		map[i] = c;
		struct gpa_flame_node *d = &out->nodes.v[c];
		if (d->category == GPA_CAT_OTHER) {
			d->category = s->category;
		}
		if (after) {
			d->self += per_step(s->self, n);
			/*
			 * Own count = inclusive count minus the children's: taking each
			 * node's count off its parent does that once the totals are
			 * summed again (exact in wrapping unsigned arithmetic).
			 */
			d->count += s->count;
			out->nodes.v[map[s->parent]].count -= s->count;
		} else {
			d->self0 += per_step(s->self, n);
		}
	}
	free(map);
	return 0;
}

int gpa_flame_diff(const struct gpa_flame *before, uint64_t n0, const struct gpa_flame *after,
		   uint64_t n1, struct gpa_flame *out)
{
	int ret;

	if (!n0 || !n1) {
		memset(out, 0, sizeof(*out));
		return -GP_ERR_API;
	}
	ret = tree_init(out);
	if (!ret) {
		ret = merge(out, before, n0, false);
	}
	if (!ret) {
		ret = merge(out, after, n1, true);
	}
	if (ret) {
		return ret;
	}
	out->diff = true;
	out->weight = after->weight;
	out->steps0 = n0;
	out->steps = n1;
	out->ops = after->ops;
	for (size_t i = 0; i < out->nodes.n; i++) {
		out->nodes.v[i].total = out->nodes.v[i].self;
		out->nodes.v[i].total0 = out->nodes.v[i].self0;
	}
	return tree_finish(out);
}
