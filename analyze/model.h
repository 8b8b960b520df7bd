/* SPDX-License-Identifier: MIT */
/*
 * model.h - the in-memory model every analysis reads: all records of all
 * input traces in struct-of-arrays tables on one timeline. API calls, sync,
 * NVTX and overhead records are sorted by start; kernels, copies and sets
 * keep file order and are reached in time order through gpa_model.gpu.
 * The indexes analyses need:
 *
 *   GPU op (kernel, memcpy, memset) -> launching API call -> thread
 *   API call -> innermost NVTX push/pop range of its thread at that moment
 *   NVTX range -> its parent range
 *   device -> its GPU ops in start order (gpa_model.gpu)
 *
 * Times are nanoseconds on the model's timeline: with several files, each
 * file's trace clock shifted by its first clock anchor onto CLOCK_REALTIME
 * when every file has one; a single file (or any file without an anchor)
 * keeps the clock it was recorded with. Nothing is rounded. Strings from
 * all files are interned into one table (gpa_model_str). Every analysis
 * header includes this one.
 */
#ifndef GPA_MODEL_H
#define GPA_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "trace/trace.h"
#include "analyze/nccl-model.h"

#define GPA_NONE UINT32_MAX /* "no row" in index columns */

/*
 * Kernels and API calls keep a 32-bit duration, not an end: end - start, or
 * GPA_DUR_LONG for a duration of 2^32 - 1 ns (4.3 s) or more, which is then
 * in the table's long list (gpa_model.kern_long, api_long). Read them with
 * gpa_kern_dur/gpa_kern_end and gpa_api_dur/gpa_api_end.
 */
#define GPA_DUR_LONG UINT32_MAX

/*
 * Kernels and API calls keep their start in 32 bits too: an offset from a
 * base per block of 64 rows (row >> GPA_START_BLOCK_SHIFT; gpa_starts.base:
 * the block's first start less 2^31, or 0), so a row may start up to 2.1 s
 * either side of its block's first; one that does not is GPA_START_FAR,
 * its start in the far list (gpa_starts.far, by row). Read them with
 * gpa_kern_start and gpa_api_start.
 */
#define GPA_START_BLOCK_SHIFT 6
#define GPA_START_FAR UINT32_MAX

/* X(type, column): the columns of each table. */
/*
 * Kernels' and API calls' columns come in two lists: the encoded ones, read
 * through the hand-written accessors of this file, and the plain ones,
 * which get generated accessors (model-access.h) like the other tables'.
 */
#define GPA_KERNEL_CODED_COLS_(X)                                                                  \
	X(uint32_t, start_off) /* start - its block's base, GPA_START_FAR: gpa_kern_start */       \
	X(uint32_t, dur)       /* end - start, GPA_DUR_LONG: in gpa_model.kern_long */             \
	X(uint32_t, site)      /* row in gpa_model.ksites: gpa_kern_func, _shape, _stream, _dev */
#define GPA_KERNEL_PLAIN_COLS_(X)                                                                  \
	X(uint32_t, api)       /* launching API row or GPA_NONE */
#define GPA_KERNEL_COLS(X) GPA_KERNEL_CODED_COLS_(X) GPA_KERNEL_PLAIN_COLS_(X)

#define GPA_MEMCPY_COLS(X)                                                                         \
	X(uint64_t, start)                                                                         \
	X(uint64_t, end)                                                                           \
	X(uint64_t, bytes)                                                                         \
	X(uint32_t, stream)                                                                        \
	X(uint32_t, corr)                                                                          \
	X(uint32_t, rcorr)     /* runtime API correlation id, 0 when none */                       \
	X(uint32_t, api)                                                                           \
	X(uint16_t, dev)                                                                           \
	X(uint8_t, copy_kind)  /* CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP... */  \
	X(uint8_t, src_kind)                                                                       \
	X(uint8_t, dst_kind)                                                                       \
	X(uint8_t, flags)

#define GPA_MEMSET_COLS(X)                                                                         \
	X(uint64_t, start)                                                                         \
	X(uint64_t, end)                                                                           \
	X(uint64_t, bytes)                                                                         \
	X(uint32_t, stream)                                                                        \
	X(uint32_t, corr)                                                                          \
	X(uint32_t, api)                                                                           \
	X(uint16_t, dev)                                                                           \
	X(uint8_t, memory_kind)

#define GPA_API_CODED_COLS_(X)                                                                     \
	X(uint32_t, start_off) /* start - its block's base, GPA_START_FAR: gpa_api_start */        \
	X(uint32_t, dur)      /* end - start, GPA_DUR_LONG: in gpa_model.api_long */               \
	X(uint32_t, site)     /* row in gpa_model.asites: gpa_api_name, gpa_api_thread */
#define GPA_API_PLAIN_COLS_(X)                                                                     \
	X(uint32_t, corr)     /* NULL when the load dropped it (GPA_DROP_CORR) */                 \
	X(uint32_t, nvtx)     /* innermost enclosing NVTX push/pop range or GPA_NONE */
#define GPA_API_COLS(X) GPA_API_CODED_COLS_(X) GPA_API_PLAIN_COLS_(X)

#define GPA_SYNC_COLS(X)                                                                           \
	X(uint64_t, start)                                                                         \
	X(uint64_t, end)                                                                           \
	X(uint32_t, corr)                                                                          \
	X(uint32_t, stream)                                                                        \
	X(uint32_t, api)                                                                           \
	X(uint32_t, proc)                                                                          \
	X(uint32_t, context)                                                                       \
	X(uint32_t, event_id)                                                                      \
	X(uint32_t, dev_id)  /* CUDA device ordinal the source named, GPA_NONE when it did not */  \
	X(uint64_t, sync_id) /* CUPTI's event sync id; 0 none */                                   \
	X(uint32_t, rec_corr) /* types 1, 2: the awaited cudaEventRecord call's correlation; 0 */  \
	X(uint32_t, rec_stream) /* with rec_corr: the stream the event was recorded on */          \
	X(uint32_t, rec_api) /* with rec_corr: that call's api row, GPA_NONE when not loaded */    \
	X(uint8_t, type) /* 1 event, 2 stream-wait-event, 3 stream, 4 context */

#define GPA_NVTX_COLS(X)                                                                           \
	X(uint64_t, start)                                                                         \
	X(uint64_t, end)                                                                           \
	X(uint32_t, name)                                                                          \
	X(uint32_t, domain)                                                                        \
	X(uint32_t, thread)  /* thread that started it */                                          \
	X(uint32_t, parent)  /* enclosing push/pop range on the same thread, or GPA_NONE */        \
	X(uint32_t, color)                                                                         \
	X(uint16_t, depth)   /* nesting level from the parent links, 0 outermost */                \
	X(uint8_t, type)     /* enum gpt_nvtx_type */                                              \
	X(uint8_t, origin)   /* enum gpa_range_origin */

#define GPA_OVERHEAD_COLS(X)                                                                       \
	X(uint64_t, start)                                                                         \
	X(uint64_t, end)                                                                           \
	X(uint32_t, kind)                                                                          \
	X(uint32_t, proc)

/*
 * What made a range. NVTX ranges of any domain are the user's; the Kineto
 * importer (import/kineto.c) writes each PyTorch profiler event category as
 * an NVTX domain of the same name, and the model reads those back: CPU ops
 * ("cpu_op", older "Operator"), record_function annotations
 * ("user_annotation"), Python frames ("python_function") and annotations
 * projected onto a stream ("gpu_user_annotation").
 */
enum gpa_range_origin {
	GPA_RANGE_NVTX = 0,           /* an NVTX range (gpuprof record, nsys) */
	GPA_RANGE_ANNOTATION = 1,     /* a PyTorch record_function / user annotation */
	GPA_RANGE_CPU_OP = 2,         /* a PyTorch CPU operator */
	GPA_RANGE_PYTHON = 3,         /* a Python function frame */
	GPA_RANGE_GPU_ANNOTATION = 4, /* an annotation projected onto a GPU stream */
};

/* The origin a range of NVTX domain name `domain` has ("" for the default domain). */
enum gpa_range_origin gpa_range_origin_of(const char *domain);

/*
 * One GPU operation of any kind, sorted by (device, start): the device
 * timelines. An index only: its kind and row in the kind's table in one
 * value (gpa_gpu_kind, gpa_gpu_row); start and end are read from the
 * kind's table (gpa_gpu_start, gpa_gpu_end), the device from the devices'
 * ranges of rows (gpa_gpu_dev), none of them copied.
 */
#define GPA_GPU_COLS(X)                                                                            \
	X(uint32_t, op) /* kind << GPA_GPU_KIND_SHIFT | row in the kind's table */

/* A timeline op's kind is its top two bits: tables of up to 2^30 rows. */
#define GPA_GPU_KIND_SHIFT 30
#define GPA_GPU_ROW_MAX ((1u << GPA_GPU_KIND_SHIFT) - 1)

/* What an API call is to CUDA/HIP graphs (analyze/graphs.c). */
enum gpa_api_flags {
	GPA_API_GRAPH_LAUNCH = 1, /* cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch (any variant) */
	GPA_API_CAPTURED = 2,     /* made on a thread inside a stream capture: launches nothing */
	GPA_API_CAPTURE = 4,      /* begins or ends a stream capture */
	GPA_API_CAPTURE_BEGIN = 8, /* with GPA_API_CAPTURE: begins one */
};

enum gpa_gpu_kind {
	GPA_GPU_KERNEL = 1,
	GPA_GPU_MEMCPY = 2,
	GPA_GPU_MEMSET = 3,
};

/*
 * Optional columns: NULL until a row has a nonzero value (then allocated
 * with the table's capacity, earlier rows 0), so traces without them pay
 * nothing. Read them through gpa_col_opt.
 */
#define GPA_NO_COLS_(X)
/* The CUDA/HIP graph id a kernel, copy or memset record carries; 0 none (gpa_gpu_graph). */
#define GPA_GRAPH_COLS_(X) X(uint32_t, graph)
/*
 * Kernels: the graph id, and the correlation id (NULL when every kernel has
 * 0, or when the load dropped them: GPA_DROP_CORR): gpa_col_opt.
 */
#define GPA_KERNEL_OPT_COLS_(X) X(uint32_t, graph) X(uint32_t, corr)
/*
 * An API call's return value (CUresult, cudaError_t; 0 success), its
 * callback id and its enum gpt_api_domain (NULL when the load dropped them,
 * GPA_DROP_API_IDS): gpa_col_opt, gpa_col_opt8; GPA_API_CAPTURED when the
 * call was made inside a stream capture (NULL when none was): gpa_api_flags.
 */
#define GPA_API_OPT_COLS_(X)                                                                       \
	X(uint32_t, ret) X(uint32_t, cbid) X(uint8_t, domain) X(uint8_t, captured)
/* A CPU op's recorded inputs (NVTX field args, import/kineto.c): model string id; 0 none. */
#define GPA_NVTX_OPT_COLS_(X) X(uint32_t, args)
/* Each table has its list of optional columns, empty or not: a new one is one line. */
#define GPA_MEMCPY_OPT_COLS_(X) GPA_GRAPH_COLS_(X)
#define GPA_MEMSET_OPT_COLS_(X) GPA_GRAPH_COLS_(X)
#define GPA_SYNC_OPT_COLS_(X) GPA_NO_COLS_(X)
#define GPA_OVERHEAD_OPT_COLS_(X) GPA_NO_COLS_(X)
#define GPA_GPU_OPT_COLS_(X) GPA_NO_COLS_(X)

/* Row r of an optional uint32_t column (NULL: every row 0). */
static inline uint32_t gpa_col_opt(const uint32_t *col, size_t r)
{
	return col ? col[r] : 0;
}

/* Row r of an optional uint8_t column (NULL: every row 0). */
static inline uint8_t gpa_col_opt8(const uint8_t *col, size_t r)
{
	return col ? col[r] : 0;
}

/*
 * A cudaEventRecord call's record (sync records of type 5 in the trace): not
 * a synchronization, so kept apart from gpa_model.sync; the waits for it
 * take its correlation and stream (gpa_syncs rec_corr, rec_stream).
 */
struct gpa_evrec {
	uint32_t proc, corr, stream, event_id;
	uint64_t sync_id;
};

/* One input file: one traced process. */
struct gpa_proc {
	char *path;
	uint32_t pid;
	int32_t rank, world_size;
	uint32_t host, cmdline; /* model string ids */
	uint32_t flight;        /* the last flight trigger's status (process phase 3), 0 none */
	int64_t clock_offset;   /* added to this file's trace-clock times */
	int64_t anchor_offset;  /* its anchor's offset onto CLOCK_REALTIME, applied or not */
	bool ts_epoch_decimals; /* Kineto file of epoch us with decimals, no base (HTA doubles) */
	bool aligned;           /* had a clock anchor */
	bool truncated, has_footer;
	uint64_t truncated_at;  /* truncated: the first byte missing */
	uint64_t negative_durations; /* GPU ops, API and sync calls that ended before they began */
	uint64_t corrupt_chunks;
	uint64_t corrupt_at;    /* corrupt_chunks: the offset of the first */
	uint64_t records;       /* records read from the file, of every kind */
	uint64_t losses[GPT_LOSS__MAX];
	uint64_t events;
};

struct gpa_dev {
	uint32_t proc;
	uint32_t id;   /* CUDA device ordinal in its process */
	uint32_t name; /* model string id */
	uint8_t cc_major, cc_minor;
	uint32_t num_sms;
	uint64_t global_mem_bytes, global_mem_bw_kbps;
	uint32_t gpu_first, gpu_count; /* its rows in gpa_model.gpu */
	/* Limits occupancy and peak estimates need (DEVICE record; 0 where unrecorded). */
	uint32_t warp_size, max_warps_per_sm, max_threads_per_sm, max_blocks_per_sm;
	uint32_t max_threads_per_block, max_regs_per_sm, max_regs_per_block;
	uint64_t max_smem_per_sm, max_smem_per_block, max_smem_per_block_optin;
	uint32_t reserved_smem_per_block;
	uint32_t core_clock_khz, mem_clock_khz, mem_bus_width_bits;
	bool has_device_record; /* a DEVICE record described it */
};

/* A kernel function: launches of one name share it. */
struct gpa_func {
	uint32_t name;      /* model string id, mangled as recorded */
	uint32_t demangled; /* model string id; 0 when the name is not mangled */
};

/* A launch configuration: launches with the same one share it. */
struct gpa_shape {
	int32_t grid_x, grid_y, grid_z;
	int32_t block_x, block_y, block_z;
	int32_t static_smem, dynamic_smem;
	uint16_t regs;
	/* Occupancy inputs beyond the dimensions (analyze/occupancy.c). */
	int8_t carveout;      /* requested shared-memory carve-out percent, -1 none */
	uint8_t cache_config; /* requested CUfunc_cache */
	uint8_t optin;        /* shmem_limit_config OPTIN */
	uint32_t cluster_x, cluster_y, cluster_z;
	/* What the source trace said about occupancy (Kineto), 0 none. */
	uint32_t src_occupancy_bp, src_blocks_per_sm_milli, src_warps_per_sm_milli;
};

struct gpa_thread {
	uint32_t proc;
	uint32_t tid;
	uint32_t name; /* model string id; 0 unknown */
};

/*
 * What the kernels of one launch site share, kept once (a kernel row holds
 * its row here: 4 bytes for the 14 of four columns).
 */
struct gpa_ksite {
	uint32_t func;   /* row in gpa_model.funcs */
	uint32_t shape;  /* row in gpa_model.shapes; 0 when the load dropped them (GPA_DROP_SHAPES) */
	uint32_t stream;
	uint32_t dev;    /* model device index */
};

/* What the API calls of one site share: name and thread, and what the name makes them. */
struct gpa_asite {
	uint32_t name;   /* model string id */
	uint32_t thread; /* model thread index */
	uint8_t flags;   /* enum gpa_api_flags but GPA_API_CAPTURED (analyze/graphs.c) */
};

/*
 * Allocations and releases of memory (MEMORY records: CUPTI MEMORY2, a
 * PyTorch profiler "[memory]" event, an nsys memory-usage row), on the
 * model timeline, sorted by time (ties keep load order). analyze/memory.c
 * reads them. Columns, as the other tables: ten million events are common.
 */
#define GPA_MEM_COLS(X)                                                                            \
	X(uint64_t, ts)                                                                            \
	X(uint64_t, addr)                                                                          \
	X(uint64_t, bytes)                                                                         \
	X(uint32_t, thread) /* model thread that made the call, GPA_NONE unknown */                \
	X(uint32_t, where)  /* row in gpa_model.mem_where: process and device */                   \
	X(uint8_t, op)      /* enum gpt_memory_op */                                               \
	X(uint8_t, flags)   /* enum gpt_memory_flags */
/* The source's totals after the event when flags say so; API correlation id (0 none). */
#define GPA_MEM_OPT_COLS_(X)                                                                       \
	X(uint64_t, total_alloc)                                                                   \
	X(uint64_t, total_res)                                                                     \
	X(uint32_t, corr)

/*
 * X(struct, gpa_model field, columns, optional columns): every table of
 * columns, once. It declares them (below), their functions
 * (model-internal.h, model.c), and bench-load and the checks of raw reads
 * (scripts/check-model-reads.sh, model-accessors.py) walk it.
 */
#define GPA_TABLES(X)                                                                              \
	X(gpa_kernels, kern, GPA_KERNEL_COLS, GPA_KERNEL_OPT_COLS_)                                \
	X(gpa_memcpys, copy, GPA_MEMCPY_COLS, GPA_MEMCPY_OPT_COLS_)                                \
	X(gpa_memsets, set, GPA_MEMSET_COLS, GPA_MEMSET_OPT_COLS_)                                 \
	X(gpa_apis, api, GPA_API_COLS, GPA_API_OPT_COLS_)                                          \
	X(gpa_syncs, sync, GPA_SYNC_COLS, GPA_SYNC_OPT_COLS_)                                      \
	X(gpa_nvtxs, nvtx, GPA_NVTX_COLS, GPA_NVTX_OPT_COLS_)                                      \
	X(gpa_overheads, ovh, GPA_OVERHEAD_COLS, GPA_OVERHEAD_OPT_COLS_)                           \
	X(gpa_gpus, gpu, GPA_GPU_COLS, GPA_GPU_OPT_COLS_)                                          \
	X(gpa_mems, mem, GPA_MEM_COLS, GPA_MEM_OPT_COLS_)

#define GPA_COL_PTR_(type, col) type *col;
#define GPA_DECLARE_TABLE_(tname, field, COLS, OPT)                                                \
	struct tname {                                                                             \
		size_t n, cap;                                                                     \
		COLS(GPA_COL_PTR_)                                                                 \
		OPT(GPA_COL_PTR_)                                                                  \
	};
GPA_TABLES(GPA_DECLARE_TABLE_)

/* Row r of an optional uint64_t column (NULL: every row 0). */
static inline uint64_t gpa_col_opt64(const uint64_t *col, size_t r)
{
	return col ? col[r] : 0;
}

/* Where memory events happened: one row per (process, device, host or not, device type). */
struct gpa_mem_where {
	uint32_t proc;
	uint32_t dev_id;  /* device ordinal in its process (0 for host memory) */
	uint8_t dev_type; /* the source's device type (records.h) */
	bool host;        /* GPT_MEMORY_HOST */
};

struct gpa_strtab {
	GP_VEC(uint32_t) off;  /* by id - 1 */
	struct gp_strbuf text;
	uint32_t *slots;       /* ids; 0 empty */
	size_t nslots;
};

/* A duration too long for a 32-bit dur column, by row. */
struct gpa_long_dur {
	uint32_t row;
	uint64_t dur;
};
struct gpa_long_durs {
	struct gpa_long_dur *v; /* by row */
	size_t n, cap;
};

/* The starts of a table of 32-bit start offsets (GPA_START_BLOCK_SHIFT). */
struct gpa_starts {
	GP_VEC(uint64_t) base;    /* per block of 64 rows */
	struct gpa_long_durs far; /* rows GPA_START_FAR: their starts (.dur), by row */
};

/* A single GPU operation or API call longer than this is absurd: 24 hours. */
#define GPA_SANITY_MAX_NS (24ull * 3600 * 1000000000)

/* An input not read: the same file (device and inode) or bytes as an earlier one. */
struct gpa_dup_input {
	char *path, *same_as;
	bool same_file;
};
/* Implausible data the load keeps out of the device timelines (analyze/sanity.h). */
struct gpa_implausible {
	uint64_t *lo, *hi;    /* by process: records starting outside are outliers; NULL none */
	uint64_t t0, t1;      /* span of the plausible records */
	uint64_t outliers, outlier_gpu, outlier_far_ns; /* records, GPU ops; farthest off */
	uint64_t long_gpu;    /* GPU ops longer than GPA_SANITY_MAX_NS */
	uint64_t absurd, absurd_max_ns, launches_nokern; /* counts of struct gpa_sanity */
	uint32_t procs_nokern;
	uint32_t *dup_of;     /* by process: the earlier process it repeats, or GPA_NONE */
	GP_VEC(struct gpa_dup_input) dup_inputs;
};

struct gpa_model {
	struct gpa_strtab strs;
	GP_VEC(struct gpa_proc) procs;
	GP_VEC(struct gpa_dev) devs;
	GP_VEC(struct gpa_thread) threads;
	GP_VEC(struct gpa_func) funcs;
	GP_VEC(struct gpa_shape) shapes;
	GP_VEC(struct gpa_ksite) ksites; /* by gpa_kernels.site */
	GP_VEC(struct gpa_asite) asites; /* by gpa_apis.site */
	struct gpa_kernels kern;
	struct gpa_memcpys copy;
	struct gpa_memsets set;
	struct gpa_apis api;
	struct gpa_syncs sync;
	GP_VEC(struct gpa_evrec) evrec; /* event records, by (proc, sync_id) once loaded */
	struct gpa_nvtxs nvtx;
	struct gpa_overheads ovh;
	struct gpa_gpus gpu;
	struct gpa_long_durs kern_long, api_long; /* durations the dur columns cannot hold */
	struct gpa_starts kern_starts, api_starts; /* what the start_off columns are offsets from */
	struct gpa_stacks *stacks; /* CPU call stacks (stacks.c); NULL when no file has any */
	struct gpa_nccl *nccl;     /* NCCL operations (nccl-model.c); NULL when no file has any */
	struct gpa_mems mem;       /* memory events, by time */
	GP_VEC(struct gpa_mem_where) mem_where; /* by first appearance in load order */
	uint64_t t0, t1;     /* earliest start and latest end of any timed record */
	uint64_t events;     /* activity records loaded */
	/* CUDA/HIP graphs (analyze/graphs.c) */
	uint64_t graph_launches; /* graph-launch API calls outside a capture: replays */
	uint64_t graph_ops;      /* GPU ops a graph ran (gpa_gpu_graph != GPA_GRAPH_NONE) */
	uint64_t captures;       /* stream captures begun */
	uint64_t captured_apis;  /* API calls made inside a capture (they ran nothing) */
	bool aligned;        /* all processes placed by clock anchors */
	struct gpa_implausible bad; /* left out of gpu and of whole-trace windows */
};

/* A record of process p that windows and busy time take: in its bulk, at most a day long. */
static inline bool gpa_plausible(const struct gpa_model *m, uint32_t p, uint64_t start,
				 uint64_t end)
{
	return (!m->bad.lo || (start >= m->bad.lo[p] && start <= m->bad.hi[p])) &&
	       end - start <= GPA_SANITY_MAX_NS;
}

struct gpa_load_opts {
	/*
	 * Called now and then while loading: "importing" a Kineto or nsys file
	 * (its bytes or rows; its records go into the model as they are
	 * imported), "reading" a .gpz (bytes of all files, records read). fn
	 * NULL: silent.
	 */
	struct gp_progress_cb progress;
	/*
	 * Threads decoding each trace's chunks (gpt_reader_set_threads); 0 or
	 * 1: the calling thread alone. The model is the same either way.
	 */
	unsigned threads;
	/*
	 * Columns the caller will not read (enum gpa_drop), left out to save
	 * their memory; 0 keeps every column.
	 */
	unsigned drop;
};

/* Columns a command may do without (gpa_load_opts.drop); they are NULL in its model. */
enum gpa_drop {
	GPA_DROP_API_IDS = 1, /* api.cbid, api.domain: never stored */
	/*
	 * kern.corr never stored (a kernel's id waits in its api column until
	 * linked), api.corr freed once the load has linked every GPU op, stack
	 * and NCCL operation to its call (api.corr stays when memory events
	 * name calls by correlation: analyze/memory.c joins them).
	 */
	GPA_DROP_CORR = 2,
	GPA_DROP_SHAPES = 4, /* launch configurations not even interned: every ksite's shape 0 */
};

/*
 * Loads traces into *m (zeroed by the call). Returns 0, or a negative error
 * with the reason in errbuf (file and problem). Truncated files and corrupt
 * chunks load what can be read and are marked in their gpa_proc. On error
 * the model is released.
 */
int gpa_model_load(struct gpa_model *m, const char *const *paths, size_t npaths,
		   const struct gpa_load_opts *opts, char *errbuf, size_t errlen);
void gpa_model_release(struct gpa_model *m);

/* A model string ("" for 0). */
const char *gpa_model_str(const struct gpa_model *m, uint32_t id);
/* Interns s; 0 for empty; GPA_NONE when out of memory. */
uint32_t gpa_model_intern(struct gpa_model *m, const char *s);

/* ------------------------------------------------------- CPU call stacks */

/* Frees what stacks.c kept for the model (NULL: nothing). */
void gpa_stacks_free(struct gpa_stacks *s);

/* The accessors: gpa_copy_bytes(m, i), gpa_nvtx_rows(m), gpa_kern_start(m, i)... */
#include "analyze/model-access.h"

#endif /* GPA_MODEL_H */
