/* SPDX-License-Identifier: MIT */
/*
 * flame.h - flame graphs (analyze/flame.c, docs/flame.md): a tree of stacks
 * weighted by GPU time (process -> thread -> NVTX ranges open at the launch
 * call -> CPU call stack -> kernel, copy or set) or by CUDA API time (... ->
 * API name). Frame names are the tree's own strings, so trees built from
 * different models compare by name (differential graphs). Also the kernel
 * classifier (analyze/classify.c) that gives leaf frames their colour.
 */
#ifndef GPA_FLAME_H
#define GPA_FLAME_H

#include "analyze/model.h"
#include "analyze/stats.h"

struct gpa_steps;

/* What a frame is. */
enum gpa_frame_kind {
	GPA_FRAME_ROOT = 0,
	GPA_FRAME_PROCESS = 1,
	GPA_FRAME_STEP = 2,
	GPA_FRAME_THREAD = 3,
	GPA_FRAME_NVTX = 4,
	GPA_FRAME_CPU = 5,     /* a CPU call stack frame */
	GPA_FRAME_KERNEL = 6,
	GPA_FRAME_MEMCPY = 7,
	GPA_FRAME_MEMSET = 8,
	GPA_FRAME_API = 9,     /* a CUDA API call (API-time graphs) */
	GPA_FRAME_OTHER = 10,  /* "[no launch call]" and the like */
};

/* Colour categories of leaf frames (classify.c); frames that are not leaves are OTHER. */
enum gpa_category {
	GPA_CAT_OTHER = 0,
	GPA_CAT_GEMM = 1,
	GPA_CAT_ATTENTION = 2,
	GPA_CAT_COMM = 3,
	GPA_CAT_ELEMENTWISE = 4,
	GPA_CAT_COPY = 5,
	GPA_CAT__COUNT = 6,
};

/* "other", "gemm", "attention", "communication", "elementwise", "copy"; NULL out of range. */
const char *gpa_category_name(unsigned cat);
/* A category by name; -1 when unknown. */
int gpa_category_parse(const char *name);

/*
 * Classification rules: an ordered list of (category, PCRE2 pattern); the
 * first pattern that matches a name gives its category. Rule text is one
 * rule a line, "CATEGORY REGEX", '#' starting a comment line; user rules
 * go before the built-in ones.
 */
struct gpa_classifier;

/*
 * A classifier with the rules of text (may be NULL: built-in rules only)
 * followed by the built-in ones. name names the text in errors
 * ("rules.txt: line 3: unknown category 'foo'"). Caller frees with
 * gpa_classifier_free. Returns 0, -GP_ERR_FORMAT (bad line or pattern,
 * reason in errbuf), -GP_ERR_NOMEM.
 */
int gpa_classifier_new(const char *text, const char *name, struct gpa_classifier **out,
		       char *errbuf, size_t errlen);
void gpa_classifier_free(struct gpa_classifier *c);
/* The category of a kernel name; GPA_CAT_OTHER when no rule matches. */
enum gpa_category gpa_classify(const struct gpa_classifier *c, const char *name);

enum gpa_flame_weight {
	GPA_FLAME_GPU_TIME = 0,   /* GPU ops, weight = their duration in ns */
	GPA_FLAME_API_TIME = 1,   /* CUDA API calls, weight = their duration in ns */
	GPA_FLAME_WALL_SHARE = 2, /* GPU ops, weight = their share of device busy time (each
				   * instant split equally among the ops running), plus, when
				   * nothing is filtered, "[GPU idle]" frames by gap cause:
				   * per device the weights sum to its window */
};

enum gpa_flame_flags {
	GPA_FLAME_NO_NVTX = 1 << 0,    /* leave NVTX ranges out */
	GPA_FLAME_CPU_STACKS = 1 << 1, /* add the CPU call stack captured at the API call */
	GPA_FLAME_BY_STEP = 1 << 2,    /* a step frame under the process (needs opts.steps);
					* the step's own range leaves the NVTX stack */
	GPA_FLAME_NO_IDS = 1 << 3,     /* "process"/thread name instead of pid and tid, and
					* step names (with opts.steps) with '*' for digits,
					* so runs of the same program compare */
	GPA_FLAME_KEEP_OPS = 1 << 4,   /* fill gpa_flame.op_node (timelines) */
	GPA_FLAME_MERGE_LAYERS = 1 << 5, /* repeated layers as one frame: NVTX or CPU frames
					  * under one parent named alike but for their
					  * numbers, with stacks of one shape below
					  * ("layers.* ×36", names below with '*') */
};

struct gpa_commclass;

struct gpa_flame_opts {
	enum gpa_flame_weight weight;
	unsigned flags;               /* enum gpa_flame_flags */
	enum gpa_kernel_name kname;   /* how kernel frames are named */
	const char *leaf_regex;       /* keep only ops (calls) whose leaf name matches; NULL all */
	const char *nvtx_regex;       /* keep only ops with a matching NVTX range open; NULL all */
	int64_t device;               /* CUDA device ordinal to keep; -1 all (GPU time only) */
	int64_t rank;                 /* process rank to keep; -1 all */
	const struct gpa_steps *steps; /* borrowed; needed by GPA_FLAME_BY_STEP */
	const struct gpa_classifier *classifier; /* NULL: built-in rules */
	const char *data_regex;       /* idle causes: data-loader names; NULL the default */
	const struct gpa_commclass *comm; /* borrowed; NULL: computed with the defaults */
};

/* Defaults: GPU time, NVTX on, demangled names, no filter, every device and rank. */
void gpa_flame_opts_init(struct gpa_flame_opts *o);

/*
 * One frame: a path from the root. Children are linked in name order (byte
 * order) once the tree is finished. Weights are ns; in a differential tree
 * total/self are the second ("after") set and total0/self0 the first.
 */
struct gpa_flame_node {
	uint32_t name;            /* offset of the name in gpa_flame.names */
	uint32_t parent, child, next; /* node indexes; GPA_NONE ends a list */
	uint64_t total, self;     /* inclusive and own weight */
	uint64_t total0, self0;   /* differential trees: the "before" weights */
	uint64_t count;           /* ops (calls) ending here and below */
	uint16_t depth;           /* 0 for the root */
	uint8_t kind;             /* enum gpa_frame_kind */
	uint8_t category;         /* enum gpa_category */
};

struct gpa_flame {
	struct gp_strbuf names;   /* NUL-terminated names; offset 0 is "all" (the root) */
	GP_VEC(struct gpa_flame_node) nodes; /* 0 is the root; parents before children */
	struct gp_u64map node_ids; /* private: parent << 32 | name -> node */
	uint32_t *name_slots;     /* private: name -> offset hash */
	size_t nname_slots, nnames;
	enum gpa_flame_weight weight;
	bool diff;                /* total0/self0 hold the "before" weights */
	uint64_t ops;             /* ops (calls) counted */
	uint64_t filtered;        /* ops (calls) left out by the filters */
	uint64_t unlinked;        /* GPU ops with no launch call (under "[no launch call]") */
	uint64_t steps0, steps;   /* differential: the step counts each side was divided by */
	uint32_t *op_node;        /* KEEP_OPS: per gpa_model.gpu row its leaf node or GPA_NONE */
};

/* The name of node i. */
static inline const char *gpa_flame_name(const struct gpa_flame *f, uint32_t i)
{
	return f->names.buf + f->nodes.v[i].name;
}

/*
 * Builds the flame tree of m into *out (zeroed here; release with
 * gpa_flame_release, also after an error). m is not const because CPU
 * call stacks are symbolized on demand. Names have ';' replaced by ':' and
 * control characters (newlines, tabs) by spaces, so folded lines stay
 * whole. Weights sum exactly: the root's total is the sum of every counted
 * op's duration. O(ops) hash lookups. Returns 0, -GP_ERR_API for a bad
 * pattern or BY_STEP without steps (reason in errbuf), -GP_ERR_NOTFOUND
 * when opts->device or opts->rank matches nothing, -GP_ERR_NOMEM.
 */
int gpa_flame_build(struct gpa_model *m, const struct gpa_flame_opts *opts, struct gpa_flame *out,
		    char *errbuf, size_t errlen);
void gpa_flame_release(struct gpa_flame *f);

/*
 * A differential tree: the union of before's and after's stacks, each
 * side's own weights divided by its step count (n0, n1 >= 1; rounded to
 * the nearest ns per stack, so "per step" figures compare), after's in
 * total/self and before's in total0/self0. Categories come from whichever
 * side has the frame. Returns 0, -GP_ERR_API (n0 or n1 zero), -GP_ERR_NOMEM.
 */
int gpa_flame_diff(const struct gpa_flame *before, uint64_t n0, const struct gpa_flame *after,
		   uint64_t n1, struct gpa_flame *out);

#endif /* GPA_FLAME_H */
