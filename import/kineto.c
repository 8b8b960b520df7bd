// SPDX-License-Identifier: MIT
/*
 * kineto.c - converts a PyTorch profiler (Kineto) Chrome-trace JSON
 * file, plain or gzip-compressed, into gpuprof records (docs/import.md).
 *
 * The JSON is read as a stream by the pull tokenizer in json-scan.c (gzip
 * inflated with ISA-L); values under keys the importer does not use are
 * skipped by the tokenizer without being decoded. Memory holds the current
 * event's fields, a reusable name buffer and a small list of thread and
 * process names, never the document. Timestamps are converted from the
 * number's decimal text, never through a double, so nanoseconds survive.
 *
 * Kineto writes "baseTimeNanoseconds" after "traceEvents". When the first
 * event's time is relative (below 1e14 us, i.e. not an epoch time) and no
 * base has been seen yet, the file is scanned once for the key before any
 * record is written; the value the parser finally reads must match.
 */
#define GP_LOG_TAG "import/kineto"
#include "base/compat.h"
#include "import/import.h"
#include "import/import-test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "import/json-scan.h"
#include "import/json-raw.h"
#include <pthread.h>
#include <time.h>
#include <sys/stat.h>

#define CHUNK (256u << 10)
#define MAX_DEPTH 64
#define MAX_STR (1u << 20)       /* longest string kept (event name, thread name) */
#define MAX_SIG 4096             /* longest CPU op signature kept; longer ones are dropped */
#define MAX_META 65536           /* thread/process name metadata events kept */
#define REL_TS_LIMIT_US 100000000000000LL /* 1e14 us: below this a ts is not epoch time */
#define BASE_KEY "\"baseTimeNanoseconds\""
/*
 * process.settings of a trace whose times were epoch microseconds with
 * decimals and no baseTimeNanoseconds (early-2024 Kineto): HTA reads those
 * as doubles, and breakdown --compat hta does the same (GPA_BD_F64_TS).
 */
#define KINETO_EPOCH_DECIMALS GPA_KINETO_SETTINGS_EPOCH_DECIMALS

enum ctx {
	C_SKIP = 0,   /* a container whose contents are ignored */
	C_TOP,        /* the top-level object */
	C_EVENTS,     /* traceEvents array */
	C_EVENT,      /* one event object */
	C_ARGS,       /* the event's args object */
	C_DIM,        /* args.grid or args.block */
	C_DEVS,       /* deviceProperties array */
	C_DEV,        /* one device object */
	C_DIST,       /* distributedInfo object */
	C_SIG,        /* an array of a CPU op's recorded inputs (args."Input Dims", ...) */
};

/* Keys of interest; K_NONE for every other key. */
enum key {
	K_NONE = 0,
	/* top level */
	K_TRACE_EVENTS, K_DEVICE_PROPS, K_DIST_INFO, K_BASE_TIME,
	K_CUPTI_VERSION, K_CUDA_RUNTIME_VERSION, K_CUDA_DRIVER_VERSION,
	/* event */
	K_PH, K_CAT, K_NAME, K_PID, K_TID, K_TS, K_DUR, K_ARGS,
	K_FLOW_ID, /* "id" of a flow event (ph "s", "f") */
	/* args */
	K_CORRELATION, K_DEVICE, K_STREAM, K_CONTEXT, K_REGISTERS, K_SMEM, K_GRID, K_BLOCK,
	K_BYTES, K_CBID, K_ARG_NAME,
	K_IN_NELEMS, K_OUT_NELEMS, K_GROUP_SIZE, K_SEQ, /* NCCL collective args (numbers) */
	K_GRAPH_ID, K_GRAPH_NODE_ID, /* a kernel run by a CUDA graph (newer PyTorch) */
	K_WAIT_STREAM, K_WAIT_REC_CORR, /* cuda_sync: the awaited event's stream and recording */
	/* "[memory]" instant events: the allocator's report (numbers) */
	K_M_ADDR, K_M_BYTES, K_M_TOTAL_ALLOC, K_M_TOTAL_RES, K_M_DEV_ID, K_M_DEV_TYPE,
	K_EXTERNAL_ID,
	K_COLL_NAME, K_DTYPE, K_PG_NAME, /* NCCL collective args (strings) */
	/* args: the source's occupancy estimate (kept apart from a[]) */
	K_OCC_PCT, K_BLOCKS_SM, K_WARPS_SM,
	/* args: a CPU op's recorded inputs (record_shapes), kept as its signature */
	K_IN_DIMS, K_IN_TYPE, K_IN_STRIDES, K_CONCRETE,
	/* device */
	K_D_ID, K_D_NAME, K_D_TOTAL_MEM, K_D_CC_MAJOR, K_D_CC_MINOR, K_D_MAX_THREADS_BLOCK,
	K_D_MAX_THREADS_SM, K_D_REGS_BLOCK, K_D_REGS_SM, K_D_WARP, K_D_SMEM_BLOCK, K_D_SMEM_SM,
	K_D_SMEM_OPTIN, K_D_NUM_SMS,
	/* distributedInfo */
	K_RANK, K_WORLD_SIZE,
};

enum cat {
	CAT_OTHER = 0,
	CAT_KERNEL,
	CAT_MEMCPY,
	CAT_MEMSET,
	CAT_RUNTIME,
	CAT_DRIVER,
	CAT_CPU_OP,
	CAT_USER_ANNOTATION,
	CAT_PYTHON_FUNCTION,
	CAT_GPU_USER_ANNOTATION,
	CAT_SYNC,
	CAT_INSTANT, /* "cpu_instant_event": PyTorch's "[memory]" events among others */
	CAT_FLOW,    /* "ac2g": a flow from a launch call to its GPU op, id = the correlation */
};

/* Argument numbers seen in the current event (bit per K_ value minus K_CORRELATION). */
struct ev {
	char ph;
	enum cat cat;
	bool has_ts, has_dur, has_name, has_pid, has_tid, tid_is_str, has_ph, has_cat;
	int64_t ts, dur;       /* nanoseconds, before the base is added */
	int64_t pid, tid;
	uint32_t have;         /* bit (k - K_CORRELATION) for args seen */
	int64_t a[K_EXTERNAL_ID - K_CORRELATION + 1];
	int64_t grid[3], block[3];
	uint32_t occ_bp, blocks_sm_milli, warps_sm_milli; /* the source's occupancy; 0 none */
	size_t name_len, argname_len;
	size_t cat_len;
	/* NCCL collective args ("Collective name", "dtype", "Process Group Name") */
	size_t coll_len, dtype_len;
	uint64_t pg_hash;
	bool has_pg;
	int64_t flow_id; /* a flow's "id" (has_flow_id) */
	bool has_flow_id;
	/* Text read only up to its length above: not cleared for each event. */
	char cat_str[32];      /* the category as written, for NVTX domains */
	char coll[32], dtype[32];
};

struct meta {
	int64_t pid, tid;
	uint32_t name;
	bool is_process;
};

/* An "ac2g" flow's end: at (pid, tid, ts), the event of correlation id. */
struct flow {
	int64_t pid, tid, ts;
	uint32_t id;
};

/*
 * A launch call or GPU op without a "correlation" arg, held until the end of
 * the file, where a flow at its (pid, tid, ts) gives it one (take_flows).
 */
struct held {
	int64_t pid, tid, ts;
	enum gpt_kind kind;
	bool rebase; /* timed while the base was pending: add it if it came meanwhile */
	union {
		struct gpt_kernel k;
		struct gpt_memcpy c;
		struct gpt_memset s;
		struct gpt_api a;
		struct gpt_sync y;
	} r;
};

struct imp {
	const char *path;
	struct gpt_writer *w;
	char *err;
	size_t errlen;
	int ret;               /* first error, negative */

	enum ctx stack[MAX_DEPTH];
	enum key key[MAX_DEPTH]; /* current key of each object */
	int dim_idx[MAX_DEPTH];
	int depth;             /* stack[depth - 1] is the innermost container */
	bool seen_events;
	uint64_t fast_taken;   /* events the fast path read */
	uint64_t fast_resumes; /* times it handed the scan to the token loop */
	struct side *side;     /* parses part of each buffer of events; NULL: none */
	uint64_t side_taken;   /* events of fast_taken the side thread read */
	/*
	 * Whether the side thread pays: a few buffers read without it and a few
	 * with it, timed; the faster way for the next many, then again
	 * (side_choose). Either way the import is the same.
	 */
	unsigned probe_at;     /* buffers since the last choice */
	double probe_ns[2];    /* per byte: alone, with the side thread; 0 not measured */
	bool side_on;          /* the way chosen */
	uint64_t side_buffers; /* buffers read with the side thread */
	struct batch *defer;   /* the side thread's own imp: events closed go here, not to w */

	struct ev ev;
	char *name, *argname;  /* MAX_STR + 1 bytes each */

	/* top level */
	bool have_base, base_decided, base_prescanned;
	int64_t base, base_used;
	/*
	 * Relative times whose base is not known yet (it usually follows
	 * traceEvents): the writer holds the records, timed relative, until
	 * the end of the file or until it holds HOLD_MAX bytes.
	 */
	bool base_pending;
	bool pending_decimals; /* epoch_decimals' test, seen while pending */
	uint64_t pending_end;  /* the largest end time while pending */
	int64_t rank, world;
	bool have_rank, have_world;
	uint32_t cupti_version, rt_version, drv_version;

	/* device being read */
	struct gpt_device dev;
	int64_t dev_max_threads_sm;
	bool dev_has_id;

	/* process */
	bool have_pid;
	int64_t pid;
	uint64_t first_ts;
	bool have_first_ts;
	struct meta *metas;
	size_t nmeta, metacap;

	/* ops without a correlation and the flows that may give them one */
	struct flow *flows;
	size_t nflows, flowcap;
	struct held *held;
	size_t nheld, heldcap;
	bool holding; /* add() keeps the record in held rather than writing it */
	int64_t last_pid, last_tid, last_ts; /* the last event that had a correlation */
	bool have_last;

	uint64_t events;       /* records written from traceEvents */
	bool epoch_decimals;   /* an epoch-microsecond ts with decimals and no base (HTA's doubles) */
	uint32_t dom[CAT_INSTANT + 1]; /* interned NVTX domain per category */

	/*
	 * The current event's recorded inputs (see sig_open): one section per
	 * key (D, T, S, C), joined into sig in that order when the event ends;
	 * sec_len 0 none; sig_bad: too long or not arrays of scalars.
	 */
	char sec[4][MAX_SIG];
	size_t sec_len[4];
	int sec_cur;
	char sig[4 * MAX_SIG + 4];
	bool sig_bad;
	uint64_t sigs_dropped; /* CPU op signatures dropped as too long or malformed */
};

static int fail(struct imp *im, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Records the first error; the line is added by the caller that knows the position. */
static int fail(struct imp *im, int err, const char *fmt, ...)
{
	va_list ap;

	if (im->ret) {
		return 0;
	}
	im->ret = err;
	va_start(ap, fmt);
	vsnprintf(im->err, im->errlen, fmt, ap);
	va_end(ap);
	return 0;
}

/* ------------------------------------------------------------ numbers */

/* Parses an integer number text exactly; false for fractions, exponents, overflow. */
static bool parse_int(const char *s, size_t n, int64_t *out)
{
	bool neg = false;
	uint64_t v = 0;
	size_t i = 0;

	if (i < n && s[i] == '-') {
		neg = true;
		i++;
	}
	if (i == n) {
		return false;
	}
	if (n - i <= 18) {
		/* cannot overflow: no checks per digit */
		for (; i < n; i++) {
			unsigned d = (unsigned)(unsigned char)s[i] - '0';
			if (d > 9) {
				return false;
			}
			v = v * 10 + d;
		}
		*out = neg ? -(int64_t)v : (int64_t)v;
		return true;
	}
	for (; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';
		if (d > 9) {
			return false;
		}
		if (v > (UINT64_MAX - d) / 10) {
			return false;
		}
		v = v * 10 + d;
	}
	if (v > (uint64_t)INT64_MAX) {
		return false;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/*
 * Converts a JSON number of microseconds to integer nanoseconds exactly
 * from its decimal text: digits past the nanosecond are rounded half away
 * from zero (as HTA's round(ts * 1000)); exponents are allowed. False when
 * the result does not fit an int64.
 */
/*
 * The common forms, exactly: up to 16 integer digits, any decimals (those
 * past the nanosecond rounded half away from zero), no exponent. False
 * sends the text to the general parser below.
 */
static bool fast_us_to_ns(const char *s, size_t n, int64_t *out)
{
	size_t i = 0, start;
	uint64_t v = 0;
	unsigned frac = 0, nf = 0;
	bool neg = false;

	if (n && s[0] == '-') {
		neg = true;
		i = 1;
	}
	start = i;
	while (i < n && (unsigned)(unsigned char)s[i] - '0' < 10) {
		v = v * 10 + ((unsigned char)s[i] - '0');
		i++;
	}
	if (i == start || i - start > 16) {
		return false;
	}
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && nf < 3 && (unsigned)(unsigned char)s[i] - '0' < 10) {
			frac = frac * 10 + ((unsigned char)s[i] - '0');
			nf++;
			i++;
		}
		if (!nf) {
			return false;
		}
	}
	/* finer digits: round half away from zero on the first of them */
	unsigned up = 0;
	if (i < n && (unsigned)(unsigned char)s[i] - '0' < 10) {
		up = s[i] >= '5';
		while (i < n && (unsigned)(unsigned char)s[i] - '0' < 10) {
			i++;
		}
	}
	if (i != n) {
		return false; /* an exponent */
	}
	for (; nf < 3; nf++) {
		frac *= 10;
	}
	v = v * 1000 + frac + up; /* < 10^19 + 1: no wrap in 64 bits */
	if (v > (uint64_t)INT64_MAX) {
		return false;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

static bool parse_us_to_ns(const char *s, size_t n, int64_t *out)
{
	char dig[40];
	size_t nd = 0, i = 0;

	if (fast_us_to_ns(s, n, out)) {
		return true;
	}
	int point = -1;        /* digits before the decimal point */
	long exp10 = 0;
	bool neg = false, any = false;

	if (i < n && s[i] == '-') {
		neg = true;
		i++;
	}
	for (; i < n; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9') {
			any = true;
			if (nd == 0 && c == '0') {
				if (point >= 0) {
					exp10--; /* a zero after the point still scales */
				}
				continue;
			}
			if (nd >= sizeof(dig)) {
				if (point < 0) {
					return false; /* integer part too long */
				}
				continue; /* far fractional digits cannot matter */
			}
			dig[nd++] = c;
			if (point >= 0) {
				exp10--;
			}
		} else if (c == '.' && point < 0) {
			point = 0;
		} else if (c == 'e' || c == 'E') {
			int64_t e;
			const char *p = s + i + 1;
			size_t m = n - i - 1;
			if (m && *p == '+') {
				p++;
				m--;
			}
			if (!parse_int(p, m, &e) || e > 1000 || e < -1000) {
				return false;
			}
			exp10 += (long)e;
			break;
		} else {
			return false;
		}
	}
	if (!any) {
		return false;
	}
	/* value = dig * 10^exp10 us = dig * 10^(exp10 + 3) ns */
	exp10 += 3;
	uint64_t v = 0;
	long keep = exp10 >= 0 ? (long)nd : (long)nd + exp10;
	for (long k = 0; k < keep && k < (long)nd; k++) {
		unsigned d = (unsigned)(dig[k] - '0');
		if (v > (UINT64_MAX - d) / 10) {
			return false;
		}
		v = v * 10 + d;
	}
	if (exp10 >= 0) {
		for (long k = 0; k < exp10; k++) {
			if (v > UINT64_MAX / 10) {
				return false;
			}
			v *= 10;
		}
	} else if (keep >= 0 && keep < (long)nd && dig[keep] >= '5') {
		v++;
	}
	if (v > (uint64_t)INT64_MAX) {
		return false;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/* ------------------------------------------------------------ keys */

/* (the first byte before memcmp: most keys of a length differ there, and memcmp is a call) */
#define KEYIS(lit)                                                                                 \
	(n == sizeof(lit) - 1 && s[0] == (lit)[0] && memcmp(s, lit, sizeof(lit) - 1) == 0)

static enum key top_key(const unsigned char *s, size_t n)
{
	if (KEYIS("traceEvents")) {
		return K_TRACE_EVENTS;
	}
	if (KEYIS("deviceProperties")) {
		return K_DEVICE_PROPS;
	}
	if (KEYIS("distributedInfo")) {
		return K_DIST_INFO;
	}
	if (KEYIS("baseTimeNanoseconds")) {
		return K_BASE_TIME;
	}
	if (KEYIS("cupti_version")) {
		return K_CUPTI_VERSION;
	}
	if (KEYIS("cuda_runtime_version")) {
		return K_CUDA_RUNTIME_VERSION;
	}
	if (KEYIS("cuda_driver_version")) {
		return K_CUDA_DRIVER_VERSION;
	}
	return K_NONE;
}

static enum key event_key(const unsigned char *s, size_t n)
{
	switch (n) {
	case 2:
		if (s[0] == 'p' && s[1] == 'h') {
			return K_PH;
		}
		if (s[0] == 't' && s[1] == 's') {
			return K_TS;
		}
		if (s[0] == 'i' && s[1] == 'd') {
			return K_FLOW_ID;
		}
		return K_NONE;
	case 3:
		if (KEYIS("cat")) {
			return K_CAT;
		}
		if (KEYIS("pid")) {
			return K_PID;
		}
		if (KEYIS("tid")) {
			return K_TID;
		}
		if (KEYIS("dur")) {
			return K_DUR;
		}
		return K_NONE;
	case 4:
		if (KEYIS("name")) {
			return K_NAME;
		}
		if (KEYIS("args")) {
			return K_ARGS;
		}
		return K_NONE;
	default:
		return K_NONE;
	}
}

/* The NCCL collective metadata PyTorch puts on record_param_comms and NCCL kernels. */
static enum key nccl_args_key(const unsigned char *s, size_t n)
{
	switch (n) {
	case 3:
		return KEYIS("Seq") ? K_SEQ : K_NONE;
	case 5:
		return KEYIS("dtype") ? K_DTYPE : K_NONE;
	case 10:
		return KEYIS("Group size") ? K_GROUP_SIZE : K_NONE;
	case 13:
		return KEYIS("In msg nelems") ? K_IN_NELEMS : K_NONE;
	case 14:
		return KEYIS("Out msg nelems") ? K_OUT_NELEMS : K_NONE;
	case 15:
		return KEYIS("Collective name") ? K_COLL_NAME : K_NONE;
	case 18:
		return KEYIS("Process Group Name") ? K_PG_NAME : K_NONE;
	default:
		return K_NONE;
	}
}

/* The args of PyTorch's "[memory]" events, the same names in every release. */
static enum key mem_args_key(const unsigned char *s, size_t n)
{
	switch (n) {
	case 4:
		return KEYIS("Addr") ? K_M_ADDR : K_NONE;
	case 5:
		return KEYIS("Bytes") ? K_M_BYTES : K_NONE;
	case 9:
		return KEYIS("Device Id") ? K_M_DEV_ID : K_NONE;
	case 11:
		return KEYIS("Device Type") ? K_M_DEV_TYPE : K_NONE;
	case 14:
		return KEYIS("Total Reserved") ? K_M_TOTAL_RES : K_NONE;
	case 15:
		return KEYIS("Total Allocated") ? K_M_TOTAL_ALLOC : K_NONE;
	default:
		return K_NONE;
	}
}

static enum key args_key_base(const unsigned char *s, size_t n)
{
	switch (n) {
	case 4:
		if (KEYIS("grid")) {
			return K_GRID;
		}
		if (KEYIS("cbid")) {
			return K_CBID;
		}
		if (KEYIS("name")) {
			return K_ARG_NAME;
		}
		return K_NONE;
	case 5:
		if (KEYIS("block")) {
			return K_BLOCK;
		}
		if (KEYIS("bytes")) {
			return K_BYTES;
		}
		return K_NONE;
	case 6:
		if (KEYIS("device")) {
			return K_DEVICE;
		}
		if (KEYIS("stream")) {
			return K_STREAM;
		}
		return K_NONE;
	case 7:
		return KEYIS("context") ? K_CONTEXT : K_NONE;
	case 8:
		return KEYIS("graph id") ? K_GRAPH_ID : K_NONE;
	case 11:
		if (KEYIS("correlation")) {
			return K_CORRELATION;
		}
		if (KEYIS("External id") || KEYIS("external id")) {
			return K_EXTERNAL_ID;
		}
		return K_NONE;
	case 12:
		return KEYIS("warps per SM") ? K_WARPS_SM : K_NONE;
	case 13:
		if (KEYIS("blocks per SM")) {
			return K_BLOCKS_SM;
		}
		if (KEYIS("graph node id")) {
			return K_GRAPH_NODE_ID;
		}
		return KEYIS("shared memory") ? K_SMEM : K_NONE;
	case 14:
		return KEYIS("wait_on_stream") ? K_WAIT_STREAM : K_NONE;
	case 20:
		return KEYIS("registers per thread") ? K_REGISTERS : K_NONE;
	case 25:
		return KEYIS("est. achieved occupancy %") ? K_OCC_PCT : K_NONE;
	case 33:
		return KEYIS("wait_on_cuda_event_record_corr_id") ? K_WAIT_REC_CORR : K_NONE;
	default:
		return K_NONE;
	}
}

/* The inputs PyTorch records on CPU ops with record_shapes=True. */
static enum key sig_args_key(const unsigned char *s, size_t n)
{
	switch (n) {
	case 10:
		return KEYIS("Input Dims") ? K_IN_DIMS : KEYIS("Input type") ? K_IN_TYPE : K_NONE;
	case 13:
		return KEYIS("Input Strides") ? K_IN_STRIDES : K_NONE;
	case 15:
		return KEYIS("Concrete Inputs") ? K_CONCRETE : K_NONE;
	default:
		return K_NONE;
	}
}

/* Keys of an event's args: launch configuration, ids, NCCL collective metadata, inputs. */
static enum key args_key(const unsigned char *s, size_t n)
{
	enum key k = args_key_base(s, n);
	if (k == K_NONE && s[0] >= 'A' && s[0] <= 'Z') {
		k = mem_args_key(s, n);
	}
	if (k == K_NONE) {
		k = nccl_args_key(s, n);
	}
	return k != K_NONE ? k : sig_args_key(s, n);
}

static bool is_sig_key(enum key k)
{
	return k >= K_IN_DIMS && k <= K_CONCRETE;
}

static enum key dev_key(const unsigned char *s, size_t n)
{
	static const struct {
		const char *s;
		enum key k;
	} tab[] = {
		{"id", K_D_ID}, {"name", K_D_NAME}, {"totalGlobalMem", K_D_TOTAL_MEM},
		{"computeMajor", K_D_CC_MAJOR}, {"computeMinor", K_D_CC_MINOR},
		{"maxThreadsPerBlock", K_D_MAX_THREADS_BLOCK},
		{"maxThreadsPerMultiprocessor", K_D_MAX_THREADS_SM},
		{"regsPerBlock", K_D_REGS_BLOCK}, {"regsPerMultiprocessor", K_D_REGS_SM},
		{"warpSize", K_D_WARP}, {"sharedMemPerBlock", K_D_SMEM_BLOCK},
		{"sharedMemPerMultiprocessor", K_D_SMEM_SM},
		{"sharedMemPerBlockOptin", K_D_SMEM_OPTIN}, {"numSms", K_D_NUM_SMS},
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (strlen(tab[i].s) == n && memcmp(tab[i].s, s, n) == 0) {
			return tab[i].k;
		}
	}
	return K_NONE;
}

static enum cat cat_of(const unsigned char *s, size_t n)
{
	switch (n) {
	case 4:
		return KEYIS("ac2g") ? CAT_FLOW : CAT_OTHER;
	case 6:
		if (KEYIS("kernel") || KEYIS("Kernel") || KEYIS("Memcpy") || KEYIS("Memset")) {
			return s[0] == 'k' || s[0] == 'K' ? CAT_KERNEL
			       : s[3] == 'c'           ? CAT_MEMCPY
						       : CAT_MEMSET;
		}
		return KEYIS("cpu_op") ? CAT_CPU_OP : CAT_OTHER;
	case 7:
		return KEYIS("Runtime") ? CAT_RUNTIME : CAT_OTHER;
	case 8:
		if (KEYIS("Operator")) {
			return CAT_CPU_OP;
		}
		return CAT_OTHER;
	case 9:
		return KEYIS("cuda_sync") ? CAT_SYNC : CAT_OTHER;
	case 10:
		if (KEYIS("gpu_memcpy")) {
			return CAT_MEMCPY;
		}
		if (KEYIS("gpu_memset")) {
			return CAT_MEMSET;
		}
		return CAT_OTHER;
	case 11:
		return KEYIS("cuda_driver") ? CAT_DRIVER : CAT_OTHER;
	case 12:
		return KEYIS("cuda_runtime") ? CAT_RUNTIME : CAT_OTHER;
	case 15:
		if (KEYIS("user_annotation")) {
			return CAT_USER_ANNOTATION;
		}
		return KEYIS("python_function") ? CAT_PYTHON_FUNCTION : CAT_OTHER;
	case 17:
		return KEYIS("cpu_instant_event") ? CAT_INSTANT : CAT_OTHER;
	case 19:
		return KEYIS("gpu_user_annotation") ? CAT_GPU_USER_ANNOTATION : CAT_OTHER;
	default:
		return CAT_OTHER;
	}
}

/* ------------------------------------------------------------ names */

/* CUpti_ActivityMemcpyKind from "Memcpy HtoD (Pageable -> Device)". */
static uint8_t copy_kind(const char *name, size_t n)
{
	static const char *const kinds[] = {NULL,   "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					    "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
	const char *p = memchr(name, ' ', n);

	if (!p || (size_t)(name + n - p) < 5) {
		return 0;
	}
	for (unsigned k = 1; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (memcmp(p + 1, kinds[k], 4) == 0) {
			return (uint8_t)k;
		}
	}
	return 0;
}

/* CUpti_ActivityMemoryKind from a Kineto memory-kind word at p (length n). */
static uint8_t mem_kind(const char *p, size_t n)
{
	static const char *const kinds[] = {NULL,    "Pageable", "Pinned",        "Device",
					    "Array", "Managed",  "Device Static", "Managed Static"};

	for (unsigned k = 1; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (strlen(kinds[k]) == n && memcmp(p, kinds[k], n) == 0) {
			return (uint8_t)k;
		}
	}
	return 0;
}

/* The memory kinds in "(... -> ...)" or "(...)" of a memcpy/memset name. */
static void mem_kinds(const char *name, size_t n, uint8_t *src, uint8_t *dst)
{
	const char *o = memchr(name, '(', n);
	const char *c = o ? memchr(o, ')', (size_t)(name + n - o)) : NULL;
	const char *a;

	*src = *dst = 0;
	if (!c) {
		return;
	}
	o++;
	a = NULL;
	for (const char *q = o; q + 4 <= c; q++) {
		if (memcmp(q, " -> ", 4) == 0) {
			a = q;
			break;
		}
	}
	if (a) {
		*src = mem_kind(o, (size_t)(a - o));
		*dst = mem_kind(a + 4, (size_t)(c - a - 4));
	} else {
		*src = *dst = mem_kind(o, (size_t)(c - o));
	}
}

/* enum of the SYNC record's type from a cuda_sync event name. */
static uint8_t sync_type(const char *name, size_t n)
{
	if (n == 10 && memcmp(name, "Event Sync", 10) == 0) {
		return 1;
	}
	if (n == 17 && memcmp(name, "Stream Wait Event", 17) == 0) {
		return 2;
	}
	if (n == 11 && memcmp(name, "Stream Sync", 11) == 0) {
		return 3;
	}
	if (n == 12 && memcmp(name, "Context Sync", 12) == 0) {
		return 4;
	}
	return 0;
}

/* ------------------------------------------------------------ base time */

/*
 * Looks for the last "baseTimeNanoseconds": <int> in the (decompressed)
 * file. *found stays false when there is none.
 */
static int prescan_base(struct imp *im, int64_t *base, bool *found)
{
	enum { OVERLAP = 128 };
	struct gpa_json_file *f = NULL;
	char *buf;
	size_t have = 0;
	int ret = 0;
	char why[256];

	*found = false;
	if (gpa_json_file_open(im->path, &f, why, sizeof(why))) {
		return fail(im, -GP_ERR_IO, "cannot reopen: %s", why), im->ret;
	}
	buf = malloc(CHUNK + OVERLAP + 1);
	if (!buf) {
		gpa_json_file_close(f);
		return fail(im, -GP_ERR_NOMEM, "out of memory"), im->ret;
	}
	for (;;) {
		ssize_t got = gpa_json_file_read(f, buf + have, CHUNK);
		bool eof = got <= 0;
		if (got < 0) {
			break; /* the main parse reports the error with its position */
		}
		have += (size_t)got;
		buf[have] = 0;
		for (char *p = buf; (p = memmem(p, have - (size_t)(p - buf), BASE_KEY,
						sizeof(BASE_KEY) - 1));
		     p++) {
			char *q = p + sizeof(BASE_KEY) - 1, *d;
			while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') {
				q++;
			}
			if (*q != ':') {
				continue;
			}
			q++;
			while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') {
				q++;
			}
			d = q;
			while (*d == '-' || (*d >= '0' && *d <= '9')) {
				d++;
			}
			if (d > q && (*d || eof) && parse_int(q, (size_t)(d - q), base)) {
				*found = true;
			}
		}
		if (eof) {
			break;
		}
		if (have > OVERLAP) {
			memmove(buf, buf + have - OVERLAP, OVERLAP);
			have = OVERLAP;
		}
	}
	free(buf);
	gpa_json_file_close(f);
	return ret;
}

/*
 * Kineto writes "baseTimeNanoseconds" after traceEvents, so a trace with
 * relative times (PyTorch 2.x) learns its base only at its end. Reading
 * the file twice to find it first costs a second inflate and scan, about a
 * sixth of the import. Instead the writer holds the records of such a trace,
 * timed relative, and adds the base when it is known (gpt_writer_hold,
 * gpt_writer_release). What it holds is bounded: past HOLD_MAX bytes the
 * importer reads ahead for the base after all (prescan_base), as it did for
 * every such trace before.
 */
#define HOLD_MAX ((size_t)4 << 20)

/*
 * Decides the base before the first record with a time is written: the
 * top-level "baseTimeNanoseconds" when it came before the first event, none
 * for epoch times; for relative times without it yet, the decision waits
 * (base_pending: the writer holds the records) until the file's end or
 * HOLD_MAX (settle_base).
 */
static int decide_base(struct imp *im, int64_t first_ts)
{
	if (im->base_decided || im->base_pending) {
		return 0;
	}
	if (!im->have_base && first_ts < REL_TS_LIMIT_US * 1000) {
		int r = gpt_writer_hold(im->w);
		if (r == -GP_ERR_API) {
			/* the caller's writer has timed records pending: write them first */
			r = gpt_writer_flush(im->w);
			r = r ? r : gpt_writer_hold(im->w);
		}
		if (r) {
			return fail(im, r, "writing the trace: %s", gpt_writer_last_error(im->w)), -1;
		}
		im->base_pending = true;
		return 0;
	}
	im->base_decided = true;
	im->base_used = im->have_base ? im->base : 0;
	return 0;
}

/*
 * Ends the wait for the base: the top-level key if it came (at_end: the
 * file is read), else, with HOLD_MAX bytes held, the base found by reading
 * ahead (prescan_base); the writer then adds it to what it held.
 */
static int settle_base(struct imp *im, bool at_end)
{
	int64_t b;

	im->base_pending = false;
	im->base_decided = true;
	if (im->have_base) {
		im->base_used = im->base;
	} else if (!at_end) {
		bool found;
		if (prescan_base(im, &im->base, &found)) {
			return -1;
		}
		im->base_prescanned = found;
		im->base_used = found ? im->base : 0;
	}
	b = im->base_used;
	if (!b && im->pending_decimals) {
		im->epoch_decimals = true;
	}
	/* what the direct path checks per event: start + base >= 0, end + base <= INT64_MAX */
	if (im->have_first_ts &&
	    ((b > 0 && im->pending_end > (uint64_t)INT64_MAX - (uint64_t)b) ||
	     (b < 0 && (int64_t)im->first_ts + b < 0))) {
		return fail(im, -GP_ERR_RANGE, "timestamp out of range with "
					       "\"baseTimeNanoseconds\" %lld", (long long)b), -1;
	}
	if (im->have_first_ts) {
		im->first_ts = (uint64_t)((int64_t)im->first_ts + b);
	}
	int r = gpt_writer_release(im->w, b);
	if (r) {
		return fail(im, r, "writing the trace: %s", gpt_writer_last_error(im->w)), -1;
	}
	return 0;
}

/* ------------------------------------------------------------ records */

static uint32_t u32c(int64_t v)
{
	return v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int intern(struct imp *im, const char *s, size_t n, uint32_t *id)
{
	if (!im->w) {
		/* the side thread's imp: nothing is written there; the event is read again */
		return fail(im, -GP_ERR_API, "no writer"), -1;
	}
	int r = gpt_writer_intern(im->w, s, n, id);
	if (r) {
		return fail(im, r, "writing the trace: %s", gpt_writer_last_error(im->w)), -1;
	}
	return 0;
}

static int hold(struct imp *im, enum gpt_kind kind, const void *rec);

static int add(struct imp *im, enum gpt_kind kind, const void *rec)
{
	if (!im->w) {
		return fail(im, -GP_ERR_API, "no writer"), -1;
	}
	if (im->holding) {
		return hold(im, kind, rec);
	}
	int r = gpt_writer_add(im->w, kind, rec);
	if (r) {
		return fail(im, r, "writing the trace: %s", gpt_writer_last_error(im->w)), -1;
	}
	return 0;
}

#define ARG(k) (ev->a[(k) - K_CORRELATION])
#define HAS(k) (ev->have & (1u << ((k) - K_CORRELATION)))

static int add_meta(struct imp *im, bool is_process)
{
	struct ev *ev = &im->ev;
	struct meta *m;

	if (!ev->argname_len || !ev->has_pid || im->nmeta >= MAX_META) {
		return 0;
	}
	if (im->nmeta == im->metacap) {
		size_t cap = im->metacap ? im->metacap * 2 : 16;
		struct meta *nm = realloc(im->metas, cap * sizeof(*nm));
		if (!nm) {
			return fail(im, -GP_ERR_NOMEM, "out of memory"), -1;
		}
		im->metas = nm;
		im->metacap = cap;
	}
	m = &im->metas[im->nmeta];
	if (intern(im, im->argname, ev->argname_len, &m->name)) {
		return -1;
	}
	m->pid = ev->pid;
	m->tid = ev->has_tid && !ev->tid_is_str ? ev->tid : 0;
	m->is_process = is_process;
	im->nmeta++;
	return 0;
}

/* ------------------------------------------------------------ NCCL */

struct name_map {
	const char *from, *to;
};

/* c10d's collective names (and NCCL's) to NCCL function names; NULL: not an NCCL operation. */
static const char *nccl_func(const char *s, size_t n)
{
	static const struct name_map m[] = {
		{"allreduce", "AllReduce"}, {"all_reduce", "AllReduce"},
		{"broadcast", "Broadcast"}, {"reduce", "Reduce"},
		{"allgather", "AllGather"}, {"all_gather", "AllGather"},
		{"_allgather_base", "AllGather"}, {"allgather_into_tensor_coalesced", "AllGather"},
		{"allgather_coalesced", "AllGather"},
		{"reduce_scatter", "ReduceScatter"}, {"reducescatter", "ReduceScatter"},
		{"_reduce_scatter_base", "ReduceScatter"},
		{"reduce_scatter_tensor_coalesced", "ReduceScatter"},
		{"allreduce_coalesced", "AllReduce"},
		{"send", "Send"}, {"recv", "Recv"}, {"recvAnysource", "Recv"},
		{"all_to_all", "AllToAll"}, {"alltoall", "AllToAll"}, {"alltoall_base", "AllToAll"},
		{"all_to_allv", "AllToAll"}, {"gather", "Gather"}, {"scatter", "Scatter"},
		{"barrier", "Barrier"},
	};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		if (strlen(m[i].from) == n && memcmp(m[i].from, s, n) == 0) {
			return m[i].to;
		}
	}
	return NULL;
}

/* PyTorch scalar type names to ncclDataType_t; 255 when NCCL has no such type. */
static uint8_t nccl_dtype(const char *s, size_t n, unsigned *size)
{
	static const struct {
		const char *name;
		uint8_t type;
		uint8_t size;
	} m[] = {
		{"Char", 0, 1}, {"Byte", 1, 1}, {"Bool", 1, 1}, {"Int", 2, 4}, {"UInt32", 3, 4},
		{"Long", 4, 8}, {"UInt64", 5, 8}, {"Half", 6, 2}, {"Float", 7, 4}, {"Double", 8, 8},
		{"BFloat16", 9, 2}, {"Float8_e4m3fn", 10, 1}, {"Float8_e5m2", 11, 1},
	};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		if (strlen(m[i].name) == n && memcmp(m[i].name, s, n) == 0) {
			*size = m[i].size;
			return m[i].type;
		}
	}
	*size = 0;
	return 255;
}

/*
 * An NCCL record (source 3: imported from Kineto) for a CPU op carrying
 * "Collective name" (record_param_comms): the op's times and thread. Its
 * NCCL kernel, which carries the same args and External id, becomes an
 * EXTCORR record instead (see nccl_kernel_link), so each collective is one
 * NCCL record whose GPU time the model takes from its kernels.
 */
static int add_nccl(struct imp *im, uint64_t start, uint64_t end)
{
	struct ev *ev = &im->ev;
	struct gpt_nccl r = {0};
	const char *func = nccl_func(ev->coll, ev->coll_len);
	unsigned size = 0;

	if (!func) {
		return 0; /* "wait" and the like: not an NCCL operation */
	}
	if (intern(im, func, strlen(func), &r.func)) {
		return -1;
	}
	r.start = start;
	r.end = end;
	r.datatype = nccl_dtype(ev->dtype, ev->dtype_len, &size);
	/* NCCL's count: per-rank input, except reduce-scatter's per-rank output */
	if (strcmp(func, "ReduceScatter") == 0 && HAS(K_OUT_NELEMS)) {
		r.count = (uint64_t)(ARG(K_OUT_NELEMS) > 0 ? ARG(K_OUT_NELEMS) : 0);
	} else if (HAS(K_IN_NELEMS)) {
		r.count = (uint64_t)(ARG(K_IN_NELEMS) > 0 ? ARG(K_IN_NELEMS) : 0);
	} else if (HAS(K_OUT_NELEMS)) {
		r.count = (uint64_t)(ARG(K_OUT_NELEMS) > 0 ? ARG(K_OUT_NELEMS) : 0);
	}
	r.bytes = size && r.count <= UINT64_MAX / size ? r.count * size : 0;
	r.root = -1;
	r.peer = -1;
	r.comm_hash = ev->has_pg ? ev->pg_hash : 0;
	r.rank = im->have_rank ? (int32_t)im->rank : -1;
	r.nranks = HAS(K_GROUP_SIZE) && ARG(K_GROUP_SIZE) > 0 && ARG(K_GROUP_SIZE) <= INT32_MAX
			   ? (int32_t)ARG(K_GROUP_SIZE)
			   : 0;
	r.reduce_op = 255;
	r.external_id = HAS(K_EXTERNAL_ID) && ARG(K_EXTERNAL_ID) > 0 ? (uint64_t)ARG(K_EXTERNAL_ID)
								     : 0;
	r.seq = HAS(K_SEQ) && ARG(K_SEQ) > 0 ? (uint64_t)ARG(K_SEQ) : 0;
	r.tid = u32c(ev->tid);
	r.source = GPT_NCCL_SRC_KINETO;
	return add(im, GPT_KIND_NCCL, &r);
}

/*
 * An NCCL kernel carrying "Collective name": links its correlation id to the
 * collective's External id with an EXTCORR record of kind CUSTOM2, the kind
 * gpuprof's own NCCL capture uses, so the model finds the op's kernels.
 */
static int nccl_kernel_link(struct imp *im, uint32_t corr)
{
	struct ev *ev = &im->ev;
	struct gpt_extcorr x = {0};

	if (!nccl_func(ev->coll, ev->coll_len) || !corr || !HAS(K_EXTERNAL_ID) ||
	    ARG(K_EXTERNAL_ID) <= 0) {
		return 0;
	}
	x.external_kind = 5; /* CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 */
	x.external_id = (uint64_t)ARG(K_EXTERNAL_ID);
	x.correlation = corr;
	return add(im, GPT_KIND_EXTCORR, &x);
}

/*
 * The kernel's launch-configuration args (beyond grid and block) into its
 * record: one case per arg key kept by cb_number (see args_key_base).
 */
static void kernel_args(const struct ev *ev, struct gpt_kernel *k)
{
	for (enum key key = K_CORRELATION; key <= K_EXTERNAL_ID; key++) {
		if (!HAS(key)) {
			continue;
		}
		int64_t v = ARG(key);
		switch (key) {
		case K_REGISTERS:
			k->registers = (uint16_t)(v < 0 ? 0 : v > UINT16_MAX ? UINT16_MAX : v);
			break;
		case K_SMEM: /* Kineto's static + dynamic sum */
			k->static_smem = (int32_t)(v < 0 ? 0 : v > INT32_MAX ? INT32_MAX : v);
			break;
		case K_GRAPH_ID:
			k->graph_id = (uint32_t)(v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : v);
			break;
		case K_GRAPH_NODE_ID:
			k->graph_node_id = (uint64_t)(v < 0 ? 0 : v);
			break;
		default:
			break;
		}
	}
	/* the source's occupancy estimate ("est. achieved occupancy %", "blocks per SM", ...) */
	k->src_occupancy_bp = ev->occ_bp;
	k->src_blocks_per_sm_milli = ev->blocks_sm_milli;
	k->src_warps_per_sm_milli = ev->warps_sm_milli;
}

/* What every record of a closed event takes from it. */
struct ev_fields {
	uint64_t start, end;
	uint32_t name;
	/* GPU rows: pid = device, tid = stream; args say it explicitly in modern traces. */
	uint32_t device, stream, corr, context;
};

/* The closed event's start and end in ns on the trace's base, noting the first start. */
static int event_times(struct imp *im, uint64_t *start, uint64_t *end)
{
	struct ev *ev = &im->ev;

	if (decide_base(im, ev->ts)) {
		return -1;
	}
	/* before this event's records are timed, so that they all get the same base */
	if (im->base_pending && gpt_writer_held_bytes(im->w) > HOLD_MAX && settle_base(im, false)) {
		return -1;
	}
	if (ev->ts > INT64_MAX - im->base_used || ev->ts + im->base_used < 0 ||
	    (ev->dur > 0 && ev->ts + im->base_used > INT64_MAX - ev->dur)) {
		return fail(im, -GP_ERR_RANGE, "timestamp out of range"), -1;
	}
	*start = (uint64_t)(ev->ts + im->base_used);
	if (!im->base_used && ev->ts >= REL_TS_LIMIT_US * 1000 && ev->ts % 1000) {
		*(im->base_pending ? &im->pending_decimals : &im->epoch_decimals) = true;
	}
	/* a negative duration is kept as written: the model counts it (analyze/sanity.c) */
	if (ev->dur < 0 && ev->dur != INT64_MIN && (uint64_t)-ev->dur <= *start) {
		*end = *start - (uint64_t)-ev->dur;
	} else {
		*end = *start + (uint64_t)(ev->dur > 0 ? ev->dur : 0);
	}
	if (im->base_pending && *end > im->pending_end) {
		im->pending_end = *end;
	}
	if (!im->have_first_ts || *start < im->first_ts) {
		im->first_ts = *start;
		im->have_first_ts = true;
	}
	return 0;
}

static int add_kernel(struct imp *im, const struct ev_fields *f)
{
	struct ev *ev = &im->ev;
	struct gpt_kernel k = {0};

	k.start = f->start;
	k.end = f->end;
	k.device = f->device;
	k.context = f->context;
	k.stream = f->stream;
	k.correlation = f->corr;
	k.name = f->name;
	k.grid_x = (int32_t)ev->grid[0];
	k.grid_y = (int32_t)ev->grid[1];
	k.grid_z = (int32_t)ev->grid[2];
	k.block_x = (int32_t)ev->block[0];
	k.block_y = (int32_t)ev->block[1];
	k.block_z = (int32_t)ev->block[2];
	kernel_args(ev, &k);
	return add(im, GPT_KIND_KERNEL, &k);
}

static int add_memcpy(struct imp *im, const struct ev_fields *f)
{
	struct ev *ev = &im->ev;
	struct gpt_memcpy c = {0};

	c.start = f->start;
	c.end = f->end;
	c.device = f->device;
	c.context = f->context;
	c.stream = f->stream;
	c.correlation = f->corr;
	c.bytes = HAS(K_BYTES) && ARG(K_BYTES) > 0 ? (uint64_t)ARG(K_BYTES) : 0;
	c.copy_kind = copy_kind(im->name, ev->name_len);
	mem_kinds(im->name, ev->name_len, &c.src_kind, &c.dst_kind);
	c.is_p2p = c.copy_kind == GPT_COPY_KIND_PTOP;
	return add(im, GPT_KIND_MEMCPY, &c);
}

static int add_memset(struct imp *im, const struct ev_fields *f)
{
	struct ev *ev = &im->ev;
	struct gpt_memset s = {0};
	uint8_t dummy;

	s.start = f->start;
	s.end = f->end;
	s.device = f->device;
	s.context = f->context;
	s.stream = f->stream;
	s.correlation = f->corr;
	s.bytes = HAS(K_BYTES) && ARG(K_BYTES) > 0 ? (uint64_t)ARG(K_BYTES) : 0;
	mem_kinds(im->name, ev->name_len, &s.memory_kind, &dummy);
	return add(im, GPT_KIND_MEMSET, &s);
}

static int add_api(struct imp *im, const struct ev_fields *f)
{
	struct ev *ev = &im->ev;
	struct gpt_api a = {0};

	a.start = f->start;
	a.end = f->end;
	a.tid = u32c(ev->tid);
	a.domain = ev->cat == CAT_RUNTIME ? GPT_API_RUNTIME : GPT_API_DRIVER;
	a.cbid = u32c(HAS(K_CBID) ? ARG(K_CBID) : 0);
	a.name = f->name;
	a.correlation = f->corr;
	return add(im, GPT_KIND_API, &a);
}

static int add_sync(struct imp *im, const struct ev_fields *f)
{
	const struct ev *ev = &im->ev;
	struct gpt_sync s = {0};

	s.start = f->start;
	s.end = f->end;
	s.type = sync_type(im->name, im->ev.name_len);
	s.correlation = f->corr;
	s.context = f->context;
	s.stream = f->stream;
	/* the awaited event: HTA's cross-stream edges come from these */
	if (HAS(K_WAIT_REC_CORR) && ARG(K_WAIT_REC_CORR) > 0 && ARG(K_WAIT_REC_CORR) <= UINT32_MAX &&
	    HAS(K_WAIT_STREAM) && ARG(K_WAIT_STREAM) >= 0 && ARG(K_WAIT_STREAM) <= UINT32_MAX) {
		s.record_correlation = (uint32_t)ARG(K_WAIT_REC_CORR);
		s.record_stream = (uint32_t)ARG(K_WAIT_STREAM);
	}
	return add(im, GPT_KIND_SYNC, &s);
}

static size_t sig_join(struct imp *im);

/*
 * CPU ops, annotations and Python functions: NVTX ranges in the category's
 * domain, named as the file spells it ("cpu_op", "user_annotation",
 * "python_function", ...). The model tells the origins apart by these names
 * (gpa_range_origin_of, analyze/model.h): keep them as they are.
 */
static int add_range(struct imp *im, const struct ev_fields *f)
{
	struct ev *ev = &im->ev;
	struct gpt_nvtx n = {0};

	if (!im->dom[ev->cat] && intern(im, ev->cat_str, ev->cat_len, &im->dom[ev->cat])) {
		return -1;
	}
	n.start = f->start;
	n.end = f->end;
	n.domain = im->dom[ev->cat];
	n.message = f->name;
	if (ev->cat == CAT_GPU_USER_ANNOTATION) {
		/* A projection of a CPU range onto a stream: no CPU thread. */
		n.type = GPT_NVTX_START_END;
		n.payload_type = 1; /* unsigned 64-bit: the stream */
		n.payload = f->stream;
	} else {
		n.type = GPT_NVTX_PUSH_POP;
		n.start_tid = n.end_tid = u32c(ev->tid);
	}
	size_t sig_len = ev->cat == CAT_CPU_OP && !im->sig_bad ? sig_join(im) : 0;
	if (ev->cat == CAT_CPU_OP && im->sig_bad) {
		im->sigs_dropped++;
	} else if (sig_len && intern(im, im->sig, sig_len, &n.args)) {
		return -1;
	}
	return add(im, GPT_KIND_NVTX, &n);
}

static bool is_memory_event(const struct imp *im)
{
	return im->ev.has_name && im->ev.name_len == 8 && memcmp(im->name, "[memory]", 8) == 0;
}

/*
 * A "[memory]" event: one allocation (Bytes > 0) or release (Bytes < 0) of
 * the caching allocator, with its totals after it where the release has
 * them (PyTorch 1.10 on); "Device Type" 0 is host memory. One without a
 * time or "Bytes" says nothing and is passed over.
 */
static int add_memory(struct imp *im)
{
	struct ev *ev = &im->ev;
	struct gpt_memory r = {0};
	uint64_t end;
	int64_t b, dtype;

	if (!ev->has_ts || !HAS(K_M_BYTES)) {
		return 0;
	}
	ev->dur = 0;
	if (event_times(im, &r.ts, &end)) {
		return -1;
	}
	b = ARG(K_M_BYTES);
	r.op = b < 0 ? GPT_MEMORY_FREE : GPT_MEMORY_ALLOC;
	r.bytes = b < 0 ? (b == INT64_MIN ? (uint64_t)INT64_MAX + 1 : (uint64_t)-b) : (uint64_t)b;
	r.address = HAS(K_M_ADDR) ? (uint64_t)ARG(K_M_ADDR) : 0;
	dtype = HAS(K_M_DEV_TYPE) ? ARG(K_M_DEV_TYPE) : 1;
	r.device_type = (uint8_t)(dtype < 0 ? 255 : dtype > 254 ? 254 : dtype);
	r.device = HAS(K_M_DEV_ID) && ARG(K_M_DEV_ID) >= 0 ? u32c(ARG(K_M_DEV_ID)) : 0;
	if (dtype == 0) {
		r.flags |= GPT_MEMORY_HOST;
	}
	if (HAS(K_M_TOTAL_ALLOC) && ARG(K_M_TOTAL_ALLOC) >= 0) {
		r.total_allocated = (uint64_t)ARG(K_M_TOTAL_ALLOC);
		r.flags |= GPT_MEMORY_HAS_TOTALS;
	}
	if (HAS(K_M_TOTAL_RES) && ARG(K_M_TOTAL_RES) >= 0) {
		r.total_reserved = (uint64_t)ARG(K_M_TOTAL_RES);
		r.flags |= GPT_MEMORY_HAS_RESERVED;
	}
	r.memory_kind = dtype == 0 ? 0 : 3; /* CUPTI_ACTIVITY_MEMORY_KIND_DEVICE */
	r.tid = ev->has_tid ? u32c(ev->tid) : 0;
	if (add(im, GPT_KIND_MEMORY, &r)) {
		return -1;
	}
	im->events++;
	return 0;
}

/* The record of the event's category: 0 written, 1 a category without one, -1 failed. */
static int add_event_record(struct imp *im, const struct ev_fields *f)
{
	switch (im->ev.cat) {
	case CAT_KERNEL:
		return add_kernel(im, f) ? -1 : 0;
	case CAT_MEMCPY:
		return add_memcpy(im, f) ? -1 : 0;
	case CAT_MEMSET:
		return add_memset(im, f) ? -1 : 0;
	case CAT_RUNTIME:
	case CAT_DRIVER:
		return add_api(im, f) ? -1 : 0;
	case CAT_SYNC:
		return add_sync(im, f) ? -1 : 0;
	case CAT_CPU_OP:
	case CAT_USER_ANNOTATION:
	case CAT_PYTHON_FUNCTION:
	case CAT_GPU_USER_ANNOTATION:
		return add_range(im, f) ? -1 : 0;
	default:
		return 1;
	}
}

static int take_flow(struct imp *im);

/* Events that carry a correlation: launch calls, GPU ops, synchronizations. */
static bool has_corr_cat(enum cat c)
{
	return c == CAT_KERNEL || c == CAT_MEMCPY || c == CAT_MEMSET || c == CAT_RUNTIME ||
	       c == CAT_DRIVER || c == CAT_SYNC;
}

/* Writes the record for the event just closed. */
static int finish_event(struct imp *im)
{
	struct ev *ev = &im->ev;
	struct ev_fields f;
	int ret;

	if (ev->ph == 'M') {
		if (ev->has_name && ev->name_len == 11 && memcmp(im->name, "thread_name", 11) == 0) {
			return add_meta(im, false);
		}
		if (ev->has_name && ev->name_len == 12 && memcmp(im->name, "process_name", 12) == 0) {
			return add_meta(im, true);
		}
		return 0;
	}
	if ((ev->ph == 'i' || ev->ph == 'I') && is_memory_event(im)) {
		return add_memory(im);
	}
	if ((ev->ph == 's' || ev->ph == 'f') && ev->cat == CAT_FLOW) {
		return take_flow(im);
	}
	if (ev->ph != 'X' || ev->cat == CAT_OTHER) {
		return 0;
	}
	if (!ev->has_ts || !ev->has_dur) {
		return fail(im, -GP_ERR_FORMAT, "complete event without %s",
			    ev->has_ts ? "\"dur\"" : "\"ts\""), -1;
	}
	if (!ev->has_name) {
		return fail(im, -GP_ERR_FORMAT, "complete event without \"name\""), -1;
	}
	/*
	 * Kineto projects ProfilerStep#N onto the GPU too; kept, it would be a
	 * second step range for the same step.
	 */
	if (ev->cat == CAT_GPU_USER_ANNOTATION && ev->name_len >= 13 &&
	    memcmp(im->name, "ProfilerStep#", 13) == 0) {
		return 0;
	}
	f.name = 0;
	if (event_times(im, &f.start, &f.end) || intern(im, im->name, ev->name_len, &f.name)) {
		return -1;
	}
	f.device = u32c(HAS(K_DEVICE) ? ARG(K_DEVICE) : ev->has_pid ? ev->pid : 0);
	f.stream = u32c(HAS(K_STREAM) ? ARG(K_STREAM) : ev->has_tid ? ev->tid : 0);
	f.corr = u32c(HAS(K_CORRELATION) ? ARG(K_CORRELATION) : 0);
	f.context = u32c(HAS(K_CONTEXT) ? ARG(K_CONTEXT) : 0);
	/* no correlation: an "ac2g" flow at the same place may give it one at the end */
	im->holding = !HAS(K_CORRELATION) && has_corr_cat(ev->cat) && ev->has_pid && ev->has_tid;
	if (HAS(K_CORRELATION) && has_corr_cat(ev->cat)) {
		im->last_pid = ev->has_pid ? ev->pid : INT64_MIN;
		im->last_tid = ev->has_tid ? ev->tid : INT64_MIN;
		im->last_ts = ev->ts;
		im->have_last = ev->has_pid && ev->has_tid;
	} else if (has_corr_cat(ev->cat)) {
		im->have_last = false;
	}
	ret = add_event_record(im, &f);
	im->holding = false;
	if (ret) {
		return ret < 0 ? -1 : 0;
	}
	if (ev->coll_len && ev->cat == CAT_KERNEL && nccl_kernel_link(im, f.corr)) {
		return -1;
	}
	if (ev->coll_len && ev->cat != CAT_KERNEL && ev->cat != CAT_GPU_USER_ANNOTATION &&
	    add_nccl(im, f.start, f.end)) {
		return -1;
	}
	if (!im->have_pid && ev->has_pid && (ev->cat == CAT_RUNTIME || ev->cat == CAT_DRIVER ||
					     ev->cat == CAT_CPU_OP ||
					     ev->cat == CAT_USER_ANNOTATION)) {
		im->pid = ev->pid;
		im->have_pid = true;
	}
	im->events++;
	return 0;
}

static void finish_device(struct imp *im)
{
	struct gpt_device *d = &im->dev;

	if (d->warp_size && im->dev_max_threads_sm > 0) {
		d->max_warps_per_sm = u32c(im->dev_max_threads_sm / d->warp_size);
	}
	d->max_threads_per_sm = u32c(im->dev_max_threads_sm);
	if (im->dev_has_id) {
		add(im, GPT_KIND_DEVICE, d);
	}
}

/* ------------------------------------------------------------ events read ahead */

/*
 * An event the side thread read (struct side, below), for finish_event()
 * on the calling thread: the fields, where its name and argument name lie
 * in the batch's text, and where the scan stood after it (its '}', blanks
 * and a ',' when comma), which is where an error in finish_event() leaves
 * the scanner, as it would have had the calling thread read the event.
 */
struct pev {
	struct ev ev;
	size_t name_at, argname_at;
	size_t sec_at, sec_len[4]; /* its recorded inputs (see sig_put), after argname */
	bool sig_bad;
	const unsigned char *after;
	bool comma;
};

struct batch {
	struct pev *v;
	size_t n, cap;
	char *text;
	size_t tlen, tcap;
	bool nomem;
};

static int grow(void **p, size_t *cap, size_t want, size_t elem)
{
	if (want <= *cap) {
		return 0;
	}
	size_t nc = *cap ? *cap * 2 : 256;
	while (nc < want) {
		nc *= 2;
	}
	void *np = realloc(*p, nc * elem);
	if (!np) {
		return -1;
	}
	*p = np;
	*cap = nc;
	return 0;
}

/* ------------------------------------------------------------ flows */

/* A flow's end, kept for the ops without a correlation. */
static int take_flow(struct imp *im)
{
	const struct ev *ev = &im->ev;

	if (!ev->has_flow_id || ev->flow_id <= 0 || ev->flow_id > UINT32_MAX || !ev->has_ts ||
	    !ev->has_pid || !ev->has_tid) {
		return 0;
	}
	/* Kineto writes a flow just after its event: one that had a correlation needs none */
	if (im->have_last && ev->pid == im->last_pid && ev->tid == im->last_tid &&
	    ev->ts == im->last_ts) {
		return 0;
	}
	if (grow((void **)&im->flows, &im->flowcap, im->nflows + 1, sizeof(*im->flows))) {
		return fail(im, -GP_ERR_NOMEM, "out of memory"), -1;
	}
	im->flows[im->nflows++] = (struct flow){ev->pid, ev->tid, ev->ts, (uint32_t)ev->flow_id};
	return 0;
}

/* add() while holding: the record waits for take_flows(). */
static int hold(struct imp *im, enum gpt_kind kind, const void *rec)
{
	const struct ev *ev = &im->ev;
	struct held *h;

	if (grow((void **)&im->held, &im->heldcap, im->nheld + 1, sizeof(*im->held))) {
		return fail(im, -GP_ERR_NOMEM, "out of memory"), -1;
	}
	h = &im->held[im->nheld++];
	memset(h, 0, sizeof(*h));
	h->pid = ev->pid;
	h->tid = ev->tid;
	h->ts = ev->ts;
	h->kind = kind;
	h->rebase = im->base_pending;
	switch (kind) {
	case GPT_KIND_KERNEL: h->r.k = *(const struct gpt_kernel *)rec; break;
	case GPT_KIND_MEMCPY: h->r.c = *(const struct gpt_memcpy *)rec; break;
	case GPT_KIND_MEMSET: h->r.s = *(const struct gpt_memset *)rec; break;
	case GPT_KIND_API: h->r.a = *(const struct gpt_api *)rec; break;
	case GPT_KIND_SYNC: h->r.y = *(const struct gpt_sync *)rec; break;
	default:
		im->nheld--; /* not a kind with a correlation: written now */
		im->holding = false;
		return add(im, kind, rec);
	}
	return 0;
}

static int cmp_flow(const void *a, const void *b)
{
	const struct flow *x = a, *y = b;

	if (x->pid != y->pid) {
		return x->pid < y->pid ? -1 : 1;
	}
	if (x->tid != y->tid) {
		return x->tid < y->tid ? -1 : 1;
	}
	if (x->ts != y->ts) {
		return x->ts < y->ts ? -1 : 1;
	}
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The id of the first flow at (pid, tid, ts) in the sorted flows; 0 none. */
static uint32_t flow_at(const struct imp *im, int64_t pid, int64_t tid, int64_t ts)
{
	struct flow key = {pid, tid, ts, 0};
	size_t lo = 0, hi = im->nflows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_flow(&im->flows[mid], &key) < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo < im->nflows && im->flows[lo].pid == pid && im->flows[lo].tid == tid &&
	    im->flows[lo].ts == ts) {
		return im->flows[lo].id;
	}
	return 0;
}

/* Moves a held record's times by the base that came after they were taken (checked then). */
static void rebase(uint64_t *start, uint64_t *end, int64_t b)
{
	*start = (uint64_t)((int64_t)*start + b);
	*end = (uint64_t)((int64_t)*end + b);
}

/*
 * At the end of the file: each op held for want of a correlation takes the
 * id of an "ac2g" flow at its pid, tid and ts (Kineto puts the flow's start
 * on the launch call, its end on the GPU op), and is written.
 */
static int take_flows(struct imp *im)
{
	size_t linked = 0;

	if (im->nheld && im->nflows) {
		qsort(im->flows, im->nflows, sizeof(*im->flows), cmp_flow);
	}
	for (size_t i = 0; i < im->nheld; i++) {
		struct held *h = &im->held[i];
		uint32_t id = flow_at(im, h->pid, h->tid, h->ts);
		int64_t b = h->rebase && !im->base_pending ? im->base_used : 0;
		linked += id != 0;
		switch (h->kind) {
		case GPT_KIND_KERNEL:
			h->r.k.correlation = id;
			rebase(&h->r.k.start, &h->r.k.end, b);
			break;
		case GPT_KIND_MEMCPY:
			h->r.c.correlation = id;
			rebase(&h->r.c.start, &h->r.c.end, b);
			break;
		case GPT_KIND_MEMSET:
			h->r.s.correlation = id;
			rebase(&h->r.s.start, &h->r.s.end, b);
			break;
		case GPT_KIND_API:
			h->r.a.correlation = id;
			rebase(&h->r.a.start, &h->r.a.end, b);
			break;
		default:
			h->r.y.correlation = id;
			rebase(&h->r.y.start, &h->r.y.end, b);
			break;
		}
		if (add(im, h->kind, &h->r)) {
			im->nheld = 0;
			return -1;
		}
	}
	if (im->nheld) {
		gp_debug("%s: %zu events without a correlation, %zu linked by ac2g flows", im->path,
			 im->nheld, linked);
	}
	im->nheld = 0;
	return 0;
}

/* The side thread's cb_end_map() of an event: keeps it in the batch. 1, or 0 out of memory. */
static int defer_event(struct imp *im)
{
	struct batch *b = im->defer;
	const struct ev *ev = &im->ev;
	size_t secs = im->sec_len[0] + im->sec_len[1] + im->sec_len[2] + im->sec_len[3];
	size_t need = b->tlen + ev->name_len + ev->argname_len + 2 + secs;

	if (grow((void **)&b->v, &b->cap, b->n + 1, sizeof(*b->v)) ||
	    grow((void **)&b->text, &b->tcap, need, 1)) {
		b->nomem = true;
		return 0;
	}
	struct pev *pv = &b->v[b->n++];
	pv->ev = *ev;
	pv->name_at = b->tlen;
	memcpy(b->text + b->tlen, im->name, ev->name_len);
	b->tlen += ev->name_len;
	b->text[b->tlen++] = 0;
	pv->argname_at = b->tlen;
	memcpy(b->text + b->tlen, im->argname, ev->argname_len);
	b->tlen += ev->argname_len;
	b->text[b->tlen++] = 0;
	pv->sec_at = b->tlen;
	for (int i = 0; i < 4; i++) {
		pv->sec_len[i] = im->sec_len[i];
		memcpy(b->text + b->tlen, im->sec[i], im->sec_len[i]);
		b->tlen += im->sec_len[i];
	}
	pv->sig_bad = im->sig_bad;
	pv->after = NULL;
	pv->comma = false;
	return 1;
}

/* ------------------------------------------------------------ token handlers */

static enum ctx top(struct imp *im)
{
	return im->depth ? im->stack[im->depth - 1] : C_SKIP;
}

static enum key cur_key(struct imp *im)
{
	return im->depth ? im->key[im->depth - 1] : K_NONE;
}

static int push(struct imp *im, enum ctx c)
{
	if (im->depth >= MAX_DEPTH) {
		return fail(im, -GP_ERR_FORMAT, "nesting deeper than %d", MAX_DEPTH);
	}
	im->stack[im->depth] = c;
	im->key[im->depth] = K_NONE;
	im->dim_idx[im->depth] = 0;
	im->depth++;
	return 1;
}

static int wrong_type(struct imp *im, const char *what, const char *want)
{
	return fail(im, -GP_ERR_FORMAT, "\"%s\" must be %s", what, want);
}

static const char *key_name(enum key k)
{
	switch (k) {
	case K_TRACE_EVENTS: return "traceEvents";
	case K_DEVICE_PROPS: return "deviceProperties";
	case K_DIST_INFO: return "distributedInfo";
	case K_BASE_TIME: return "baseTimeNanoseconds";
	case K_PH: return "ph";
	case K_CAT: return "cat";
	case K_NAME: return "name";
	case K_TS: return "ts";
	case K_DUR: return "dur";
	case K_ARGS: return "args";
	default: return "value";
	}
}

/* A scalar of the wrong kind at a key that needs a number, string or container. */
static int scalar_check(struct imp *im, bool is_string)
{
	enum ctx c = top(im);
	enum key k = cur_key(im);

	if (c == C_TOP) {
		if (k == K_TRACE_EVENTS || k == K_DEVICE_PROPS) {
			return wrong_type(im, key_name(k), "an array");
		}
		if (k == K_BASE_TIME) {
			return wrong_type(im, key_name(k), "an integer");
		}
		if (k == K_DIST_INFO && is_string) {
			return wrong_type(im, key_name(k), "an object");
		}
	} else if (c == C_EVENTS) {
		return fail(im, -GP_ERR_FORMAT, "traceEvents entries must be objects");
	} else if (c == C_EVENT) {
		if (k == K_TS || k == K_DUR) {
			return wrong_type(im, key_name(k), "a number");
		}
		if (k == K_PH || k == K_CAT || (k == K_NAME && !is_string)) {
			return wrong_type(im, key_name(k), "a string");
		}
	}
	return 1;
}

/* ------------------------------------------------------------ CPU op signatures */

/*
 * A CPU op's recorded inputs become one string, its signature: for each of
 * "Input Dims", "Input type", "Input Strides" and "Concrete Inputs" present
 * as an array, in that order, a letter (D, T, S, C), '=' and the array as
 * compact JSON (no blanks; strings with '"', '\\' and control bytes
 * escaped), the sections separated by one space. Ops with the same inputs
 * share one interned string; analyze/ops.c reads it.
 */
static void sig_put(struct imp *im, const char *s, size_t n)
{
	size_t *len = &im->sec_len[im->sec_cur];

	if (im->sig_bad || *len + n > MAX_SIG) {
		im->sig_bad = true;
		return;
	}
	memcpy(im->sec[im->sec_cur] + *len, s, n);
	*len += n;
}

static const char sig_letters[4] = {'D', 'T', 'S', 'C'};

/* Section k's head "X=": a key seen twice keeps its last value, as JSON readers do. */
static void sig_start(struct imp *im, enum key k)
{
	char head[2] = {sig_letters[k - K_IN_DIMS], '='};

	im->sec_cur = (int)(k - K_IN_DIMS);
	im->sec_len[im->sec_cur] = 0;
	sig_put(im, head, 2);
}

/* The array of key k opens: its section starts. */
static int sig_open(struct imp *im, enum key k)
{
	sig_start(im, k);
	sig_put(im, "[", 1);
	return push(im, C_SIG);
}

/* The event's signature: its sections in the order D, T, S, C; its length, 0 none. */
static size_t sig_join(struct imp *im)
{
	size_t n = 0;

	for (int i = 0; i < 4; i++) {
		if (!im->sec_len[i]) {
			continue;
		}
		if (n) {
			im->sig[n++] = ' ';
		}
		memcpy(im->sig + n, im->sec[i], im->sec_len[i]);
		n += im->sec_len[i];
	}
	return n;
}

/* A new element of the innermost signature array: the ',' before all but the first. */
static void sig_elem(struct imp *im)
{
	if (im->dim_idx[im->depth - 1]++) {
		sig_put(im, ",", 1);
	}
}

static void sig_string(struct imp *im, const unsigned char *s, size_t n)
{
	sig_elem(im);
	sig_put(im, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		char esc[8];
		if (s[i] == '"' || s[i] == '\\') {
			esc[0] = '\\';
			esc[1] = (char)s[i];
			sig_put(im, esc, 2);
		} else if (s[i] < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", s[i]);
			sig_put(im, esc, 6);
		} else {
			sig_put(im, (const char *)s + i, 1);
		}
	}
	sig_put(im, "\"", 1);
}

/*
 * The fast path's copy of a whole array [v, q) without escapes: its bytes
 * less the blanks, which is what the token path writes from its tokens.
 */
static void sig_raw(struct imp *im, enum key k, const unsigned char *v, const unsigned char *q)
{
	bool in_str = false;

	sig_start(im, k);
	for (; v < q && !im->sig_bad; v++) {
		if (*v == '"') {
			in_str = !in_str;
		} else if (!in_str && (*v == ' ' || *v == '\t' || *v == '\n' || *v == '\r')) {
			continue;
		} else if (!in_str && *v == '{') {
			im->sig_bad = true; /* as the token path: arrays of scalars only */
		}
		sig_put(im, (const char *)v, 1);
	}
}

static int cb_null(void *ctx)
{
	struct imp *im = ctx;
	enum ctx c = top(im);
	enum key k = cur_key(im);

	if (c == C_SIG) {
		sig_elem(im);
		sig_put(im, "null", 4);
		return 1;
	}
	/* Some writers emit "dur": null or "args": null; treat as absent, except times. */
	if (c == C_EVENT && (k == K_NAME || k == K_ARGS || k == K_PID || k == K_TID)) {
		return 1;
	}
	if (c == C_TOP && k == K_DIST_INFO) {
		return 1;
	}
	return scalar_check(im, false);
}

static int cb_bool(void *ctx, int b)
{
	struct imp *im = ctx;

	if (top(im) == C_SIG) {
		sig_elem(im);
		sig_put(im, b ? "true" : "false", b ? 4 : 5);
		return 1;
	}
	return scalar_check(ctx, false);
}

static int cb_number(void *ctx, const char *s, size_t n)
{
	struct imp *im = ctx;
	struct ev *ev = &im->ev;
	enum ctx c = top(im);
	enum key k = cur_key(im);
	int64_t v;

	switch (c) {
	case C_SIG:
		sig_elem(im);
		sig_put(im, s, n);
		return 1;
	case C_EVENT:
		if (k == K_TS || k == K_DUR) {
			if (!parse_us_to_ns(s, n, &v)) {
				return fail(im, -GP_ERR_RANGE, "bad \"%s\" value '%.*s'", key_name(k),
					    (int)(n > 40 ? 40 : n), s);
			}
			if (k == K_TS) {
				ev->ts = v;
				ev->has_ts = true;
			} else {
				ev->dur = v;
				ev->has_dur = true;
			}
			return 1;
		}
		if (k == K_FLOW_ID) {
			ev->has_flow_id = parse_int(s, n, &ev->flow_id);
			return 1;
		}
		if (k == K_PID || k == K_TID) {
			if (!parse_int(s, n, &v)) {
				return 1; /* not an id we can use */
			}
			if (k == K_PID) {
				ev->pid = v;
				ev->has_pid = true;
			} else {
				ev->tid = v;
				ev->has_tid = true;
				ev->tid_is_str = false;
			}
			return 1;
		}
		return scalar_check(im, false);
	case C_ARGS:
		if ((k == K_OCC_PCT || k == K_BLOCKS_SM || k == K_WARPS_SM) &&
		    parse_us_to_ns(s, n, &v)) {
			/* Decimal x1000 (the microsecond parser does exactly that), clamped. */
			v = v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : v;
			if (k == K_OCC_PCT) {
				ev->occ_bp = (uint32_t)(v / 10);
			} else {
				*(k == K_BLOCKS_SM ? &ev->blocks_sm_milli : &ev->warps_sm_milli) =
					(uint32_t)v;
			}
			return 1;
		}
		if (k >= K_CORRELATION && k <= K_EXTERNAL_ID && k != K_GRID && k != K_BLOCK &&
		    k != K_ARG_NAME && parse_int(s, n, &v)) {
			ev->a[k - K_CORRELATION] = v;
			ev->have |= 1u << (k - K_CORRELATION);
		}
		return 1;
	case C_DIM: {
		int i = im->dim_idx[im->depth - 1]++;
		enum key dk = im->key[im->depth - 2];
		if (i < 3 && parse_int(s, n, &v)) {
			v = v < 0 ? 0 : v > INT32_MAX ? INT32_MAX : v;
			(dk == K_GRID ? ev->grid : ev->block)[i] = v;
		}
		return 1;
	}
	case C_DEV: {
		struct gpt_device *d = &im->dev;
		if (!parse_int(s, n, &v) || v < 0) {
			return 1;
		}
		switch (k) {
		case K_D_ID: d->id = u32c(v); im->dev_has_id = true; break;
		case K_D_TOTAL_MEM: d->global_mem_bytes = (uint64_t)v; break;
		case K_D_CC_MAJOR: d->cc_major = (uint8_t)(v > 255 ? 255 : v); break;
		case K_D_CC_MINOR: d->cc_minor = (uint8_t)(v > 255 ? 255 : v); break;
		case K_D_MAX_THREADS_BLOCK: d->max_threads_per_block = u32c(v); break;
		case K_D_MAX_THREADS_SM: im->dev_max_threads_sm = v; break;
		case K_D_REGS_BLOCK: d->max_regs_per_block = u32c(v); break;
		case K_D_REGS_SM: d->max_regs_per_sm = u32c(v); break;
		case K_D_WARP: d->warp_size = u32c(v); break;
		case K_D_SMEM_BLOCK: d->max_smem_per_block = (uint64_t)v; break;
		case K_D_SMEM_SM: d->max_smem_per_sm = (uint64_t)v; break;
		case K_D_SMEM_OPTIN: d->max_smem_per_block_optin = (uint64_t)v; break;
		case K_D_NUM_SMS: d->num_sms = u32c(v); break;
		default: break;
		}
		return 1;
	}
	case C_DIST:
		if ((k == K_RANK || k == K_WORLD_SIZE) && parse_int(s, n, &v)) {
			if (v < -1 || v > INT32_MAX) {
				return fail(im, -GP_ERR_RANGE, "absurd %s %lld",
					    k == K_RANK ? "rank" : "world_size", (long long)v);
			}
			if (k == K_RANK) {
				im->rank = v;
				im->have_rank = true;
			} else {
				im->world = v;
				im->have_world = true;
			}
		}
		return 1;
	case C_TOP:
		if (k == K_BASE_TIME) {
			if (!parse_int(s, n, &v)) {
				return wrong_type(im, "baseTimeNanoseconds", "an integer");
			}
			if (im->base_decided && v != im->base_used) {
				return fail(im, -GP_ERR_FORMAT,
					    "\"baseTimeNanoseconds\" %lld after events timed with "
					    "base %lld", (long long)v, (long long)im->base_used);
			}
			im->base = v;
			im->have_base = true;
			return 1;
		}
		if ((k == K_CUPTI_VERSION || k == K_CUDA_RUNTIME_VERSION ||
		     k == K_CUDA_DRIVER_VERSION) && parse_int(s, n, &v)) {
			uint32_t *p = k == K_CUPTI_VERSION	  ? &im->cupti_version
				      : k == K_CUDA_RUNTIME_VERSION ? &im->rt_version
								    : &im->drv_version;
			*p = u32c(v);
		}
		return scalar_check(im, false);
	default:
		return scalar_check(im, false);
	}
}

static int copy_str(struct imp *im, char *dst, size_t *len, const unsigned char *s, size_t n)
{
	if (n > MAX_STR) {
		return fail(im, -GP_ERR_RANGE, "string of %zu bytes (limit %u)", n, MAX_STR);
	}
	memcpy(dst, s, n);
	dst[n] = 0;
	*len = n;
	return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
	struct imp *im = ctx;
	struct ev *ev = &im->ev;
	enum ctx c = top(im);
	enum key k = cur_key(im);

	switch (c) {
	case C_SIG:
		sig_string(im, s, n);
		return 1;
	case C_EVENT:
		switch (k) {
		case K_PH:
			ev->ph = n ? (char)s[0] : 0;
			ev->has_ph = true;
			return 1;
		case K_CAT:
			ev->has_cat = true;
			ev->cat = cat_of(s, n);
			ev->cat_len = n < sizeof(ev->cat_str) ? n : 0;
			memcpy(ev->cat_str, s, ev->cat_len);
			return 1;
		case K_NAME:
			ev->has_name = true;
			return copy_str(im, im->name, &ev->name_len, s, n);
		case K_TID:
			/* PyTorch 1.8: "stream 7" on GPU rows. */
			ev->tid_is_str = true;
			if (n > 7 && memcmp(s, "stream ", 7) == 0) {
				int64_t v;
				if (parse_int((const char *)s + 7, n - 7, &v)) {
					ev->tid = v;
					ev->has_tid = true;
				}
			}
			return 1;
		case K_PID:
			return 1;
		default:
			return scalar_check(im, true);
		}
	case C_ARGS:
		if (k == K_ARG_NAME) {
			return copy_str(im, im->argname, &ev->argname_len, s, n);
		}
		if (k == K_COLL_NAME || k == K_DTYPE) {
			char *d = k == K_COLL_NAME ? ev->coll : ev->dtype;
			size_t *dl = k == K_COLL_NAME ? &ev->coll_len : &ev->dtype_len;
			*dl = n < sizeof(ev->coll) ? n : 0; /* longer: not a name we know */
			memcpy(d, s, *dl);
			return 1;
		}
		if (k == K_PG_NAME) {
			ev->pg_hash = gp_hash_bytes(s, n);
			ev->has_pg = true;
		}
		return 1;
	case C_DEV:
		if (k == K_D_NAME) {
			return intern(im, (const char *)s, n > MAX_STR ? MAX_STR : n, &im->dev.name)
				       ? 0
				       : 1;
		}
		return 1;
	default:
		return scalar_check(im, true);
	}
}

static int cb_map_key(void *ctx, const unsigned char *s, size_t n)
{
	struct imp *im = ctx;
	enum ctx c = top(im);
	enum key k = K_NONE;

	switch (c) {
	case C_TOP: k = top_key(s, n); break;
	case C_EVENT: k = event_key(s, n); break;
	case C_ARGS: k = args_key(s, n); break;
	case C_DEV: k = dev_key(s, n); break;
	case C_DIST:
		k = KEYIS("rank") ? K_RANK : KEYIS("world_size") ? K_WORLD_SIZE : K_NONE;
		break;
	default: break;
	}
	if (im->depth <= 0) {
		return fail(im, -GP_ERR_FORMAT, "a key outside any object"); /* the tokenizer prevents it */
	}
	im->key[im->depth - 1] = k;
	return 1;
}

static int cb_start_map(void *ctx)
{
	struct imp *im = ctx;
	enum ctx c = top(im);
	enum key k = cur_key(im);

	if (im->depth == 0) {
		return push(im, C_TOP);
	}
	switch (c) {
	case C_EVENTS: {
		struct ev *ev = &im->ev;
		memset(ev, 0, offsetof(struct ev, cat_str));
		memset(im->sec_len, 0, sizeof(im->sec_len));
		im->sig_bad = false;
		return push(im, C_EVENT);
	}
	case C_EVENT:
		if (k == K_ARGS) {
			return push(im, C_ARGS);
		}
		if (k == K_TS || k == K_DUR || k == K_PH || k == K_CAT || k == K_NAME) {
			return wrong_type(im, key_name(k), k == K_TS || k == K_DUR ? "a number"
										   : "a string");
		}
		return push(im, C_SKIP);
	case C_DEVS:
		memset(&im->dev, 0, sizeof(im->dev));
		im->dev_max_threads_sm = 0;
		im->dev_has_id = false;
		return push(im, C_DEV);
	case C_TOP:
		if (k == K_DIST_INFO) {
			return push(im, C_DIST);
		}
		if (k == K_TRACE_EVENTS || k == K_DEVICE_PROPS || k == K_BASE_TIME) {
			return scalar_check(im, false);
		}
		return push(im, C_SKIP);
	case C_SIG:
		im->sig_bad = true; /* an object among the inputs: not a signature we read */
		return push(im, C_SKIP);
	default:
		return push(im, C_SKIP);
	}
}

static int cb_end_map(void *ctx)
{
	struct imp *im = ctx;
	enum ctx c = top(im);

	im->depth--;
	if (c == C_EVENT) {
		if (im->defer) {
			return defer_event(im);
		}
		return finish_event(im) ? 0 : 1;
	}
	if (c == C_DEV) {
		finish_device(im);
		return im->ret ? 0 : 1;
	}
	return 1;
}

static int cb_start_array(void *ctx)
{
	struct imp *im = ctx;
	enum ctx c = top(im);
	enum key k = cur_key(im);

	if (im->depth == 0) {
		return fail(im, -GP_ERR_FORMAT, "the top level is not an object");
	}
	if (c == C_TOP && k == K_TRACE_EVENTS) {
		im->seen_events = true;
		return push(im, C_EVENTS);
	}
	if (c == C_TOP && k == K_DEVICE_PROPS) {
		return push(im, C_DEVS);
	}
	if (c == C_ARGS && (k == K_GRID || k == K_BLOCK)) {
		return push(im, C_DIM);
	}
	if (c == C_ARGS && is_sig_key(k)) {
		return sig_open(im, k);
	}
	if (c == C_SIG) {
		sig_elem(im);
		sig_put(im, "[", 1);
		return push(im, C_SIG);
	}
	if (c == C_TOP && (k == K_DIST_INFO || k == K_BASE_TIME)) {
		return scalar_check(im, true);
	}
	if (c == C_EVENT && k != K_ARGS && k != K_NONE && k != K_PID && k != K_TID) {
		return wrong_type(im, key_name(k), "a scalar");
	}
	if (c == C_EVENTS) {
		return fail(im, -GP_ERR_FORMAT, "traceEvents entries must be objects");
	}
	return push(im, C_SKIP);
}

static int cb_end_array(void *ctx)
{
	struct imp *im = ctx;

	if (top(im) == C_SIG) {
		sig_put(im, "]", 1);
	}
	im->depth--;
	return 1;
}

/* ------------------------------------------------------------ driver */

/* Rewrites errbuf as "FILE: line L (byte B): what"; line 0: found by reading the file again. */
static void locate(struct imp *im, uint64_t line, uint64_t offset)
{
	char what[256];

	if (!line && gpa_json_file_line(im->path, offset, &line)) {
		line = 0;
	}
	snprintf(what, sizeof(what), "%s", im->err);
	if (!line) {
		snprintf(im->err, im->errlen, "%s: byte %llu: %s", im->path,
			 (unsigned long long)offset, what);
		return;
	}
	snprintf(im->err, im->errlen, "%s: line %llu (byte %llu): %s", im->path,
		 (unsigned long long)line, (unsigned long long)offset, what);
}

static int write_tail(struct imp *im)
{
	struct gpt_process p = {0};
	uint32_t ts_ok = im->have_first_ts;

	p.ts = im->first_ts;
	p.pid = im->have_pid ? u32c(im->pid) : 0;
	p.rank = im->have_rank ? (int32_t)im->rank : -1;
	p.local_rank = -1;
	p.world_size = im->have_world ? (int32_t)im->world : 0;
	p.local_world_size = 0;
	p.cupti_version = im->cupti_version;
	p.cuda_runtime_version = im->rt_version;
	p.cuda_driver_version = im->drv_version;
	p.phase = 1;
	if (intern(im, "kineto", 6, &p.launcher) ||
	    intern(im, im->epoch_decimals ? KINETO_EPOCH_DECIMALS : "pytorch-profiler",
		   im->epoch_decimals ? strlen(KINETO_EPOCH_DECIMALS) : 16, &p.settings)) {
		return -1;
	}
	for (size_t i = 0; i < im->nmeta; i++) {
		const struct meta *m = &im->metas[i];
		if (m->is_process && im->have_pid && m->pid == im->pid && !p.exe) {
			p.exe = m->name;
		}
	}
	/* Epoch times: with a base, or absolute microseconds since 1970 (pre-2024 traces). */
	bool wall = im->base_used != 0 || (ts_ok && im->first_ts >= 100000000000000000ull);
	if (wall && ts_ok) {
		struct gpt_clock c = {.ts = im->first_ts, .realtime = im->first_ts, .phase = 1};
		p.start_realtime = im->first_ts;
		if (add(im, GPT_KIND_CLOCK, &c)) {
			return -1;
		}
	}
	if (add(im, GPT_KIND_PROCESS, &p)) {
		return -1;
	}
	for (size_t i = 0; i < im->nmeta; i++) {
		const struct meta *m = &im->metas[i];
		/* GPU rows (pid = device index) name streams, not threads. */
		if (m->is_process || (im->have_pid && m->pid != im->pid)) {
			continue;
		}
		struct gpt_thread t = {.ts = im->first_ts, .tid = u32c(m->tid), .name = m->name};
		if (add(im, GPT_KIND_THREAD, &t)) {
			return -1;
		}
	}
	return 0;
}

/* An event that will not become a record, known as soon as ph (and cat) are read. */
static bool unwanted(const struct imp *im)
{
	const struct ev *ev = &im->ev;

	if (!ev->has_ph || ev->ph == 'M') {
		return false;
	}
	if (ev->ph == 'i' || ev->ph == 'I') {
		/* "[memory]" only, with the category of its era or none (PyTorch 1.8) */
		return (ev->has_cat && ev->cat != CAT_INSTANT) || (ev->has_name && !is_memory_event(im));
	}
	if (ev->ph == 's' || ev->ph == 'f') {
		return ev->has_cat && ev->cat != CAT_FLOW; /* "ac2g" flows: read */
	}
	return ev->ph != 'X' || (ev->has_cat && ev->cat == CAT_OTHER);
}

/* Hands one token to its handler; 0 stops the parse (the handler said why). */
static int dispatch(struct imp *im, struct gpa_json_scan *sc, const struct gpa_json_tok *t)
{
	const unsigned char *u = (const unsigned char *)t->s;

	switch (t->type) {
	case GPA_JSON_NULL: return cb_null(im);
	case GPA_JSON_TRUE: return cb_bool(im, 1);
	case GPA_JSON_FALSE: return cb_bool(im, 0);
	case GPA_JSON_NUMBER: return cb_number(im, t->s, t->n);
	case GPA_JSON_STRING:
		if (!cb_string(im, u, t->n)) {
			return 0;
		}
		if (top(im) == C_EVENT && unwanted(im)) {
			/* flows, instants, counters...: nothing below is read */
			if (gpa_json_skip_rest(sc)) {
				return -1;
			}
			im->depth--;
		}
		return 1;
	case GPA_JSON_KEY:
		if (!cb_map_key(im, u, t->n)) {
			return 0;
		}
		/* a key nobody reads: pass over its value without decoding it */
		if (im->depth && im->key[im->depth - 1] == K_NONE) {
			return gpa_json_skip(sc) ? -1 : 1;
		}
		return 1;
	case GPA_JSON_BEGIN_OBJECT: return cb_start_map(im);
	case GPA_JSON_END_OBJECT: return cb_end_map(im);
	case GPA_JSON_BEGIN_ARRAY: return cb_start_array(im);
	case GPA_JSON_END_ARRAY: return cb_end_array(im);
	case GPA_JSON_EOF: break;
	}
	return 1;
}

/* ------------------------------------------------------------ fast path */

/*
 * Events wholly in the scanner's buffer are read straight from its bytes
 * with the readers of json-raw.h, calling the same handlers in the same
 * order as the token loop (dispatch) would, without a token per key and
 * value. Whatever this path does not take (anything running past the
 * buffer, an escape, a literal, an unexpected type, bad JSON) it hands to
 * the token loop at that very place (gpa_json_raw_resume), which goes on
 * from there as if it had read everything before itself; so is a handler's
 * failure, so that the error names the same place. The results: 2, the
 * object being read was closed (its handler ran); 1, the token loop goes
 * on; 0, a handler failed; -1, the scanner did (as dispatch()).
 */

/* The token loop alone when false: the fast path's reference, for the tests. */
static bool kineto_fast_path = true;

void gpa_import_kineto_fast_path(bool on)
{
	kineto_fast_path = on;
}

struct fast {
	struct gpa_json_scan *sc;
	uint64_t *resumes;	/* counts the hand-overs (struct imp) */
	const unsigned char *e;	/* end of the data in the buffer */
	size_t max;		/* the scanner's token limit */
	int depth;		/* the scanner's open containers at the first event */
	int nopen;		/* objects opened here: the event, its args */
};

/* Hands the scan to the token loop at p, st due there. */
static void fast_resume(struct fast *f, const unsigned char *p, enum gpa_json_raw_state st)
{
	++*f->resumes;
	if (f->sc) { /* NULL on the side thread: it stops, the event is read again */
		gpa_json_raw_resume(f->sc, p, f->nopen, st);
	}
}

/* Past a value's end at q, as the scanner goes on: blanks and a ','. */
static inline const unsigned char *fast_after(const unsigned char *q, bool *comma)
{
	q = jr_ws(q);
	*comma = *q == ',';
	return *comma ? q + 1 : q;
}

/* What is due after a value and maybe a ',' inside an object (in_obj) or the events. */
static inline enum gpa_json_raw_state fast_due(bool in_obj, bool comma)
{
	return !comma ? GPA_JSON_RAW_AFTER : in_obj ? GPA_JSON_RAW_KEY : GPA_JSON_RAW_VALUE;
}

/* "grid"/"block": an array of up to 8 numbers at v, whole in the buffer: past it, or NULL. */
static const unsigned char *fast_dims(struct fast *f, const unsigned char *v, const char **num,
				      size_t *len, int *cnt)
{
	const unsigned char *p = jr_ws(v + 1), *q;

	*cnt = 0;
	if (*p == ']') {
		return p + 1;
	}
	for (;;) {
		if (*cnt == 8 || !(q = jr_number(p, f->e, f->max))) {
			return NULL;
		}
		num[*cnt] = (const char *)p;
		len[*cnt] = (size_t)(q - p);
		++*cnt;
		p = jr_ws(q);
		if (*p == ']') {
			return p + 1;
		}
		if (*p != ',') {
			return NULL;
		}
		p = jr_ws(p + 1);
	}
}

/*
 * The members of the object whose '{' ended before *pp (opened here, its
 * start handler run), up to its '}'. On 2, *pp is past the '}' and what
 * follows it as fast_after() goes, *comma says whether a ',' did.
 */
static int fast_object(struct imp *im, struct fast *f, const unsigned char **pp, bool *comma)
{
	const unsigned char *p = *pp, *v, *q, *key;
	enum gpa_json_raw_state due = GPA_JSON_RAW_KEY_OR_END;
	size_t n;
	bool c;

	for (;;) {
		if (due != GPA_JSON_RAW_KEY) {
			q = jr_ws(p);
			if (*q == '}') {
				/* the '}' (sentinel: '"'), as the token loop takes it */
				f->nopen--;
				p = fast_after(q + 1, &c);
				if (!cb_end_map(im)) {
					fast_resume(f, p, fast_due(f->nopen > 0, c));
					return 0;
				}
				*pp = p;
				*comma = c;
				return 2;
			}
			if (due == GPA_JSON_RAW_AFTER) {
				fast_resume(f, p, due);
				return 1;
			}
		}
		v = jr_key(p, f->e, f->max, &key, &n);
		if (!v) {
			fast_resume(f, p, due);
			return 1;
		}
		cb_map_key(im, key, n); /* 1: im->depth > 0 here */
		enum key k = im->key[im->depth - 1];
		if (k == K_NONE) {
			/* a key nobody reads */
			q = jr_skip(v, f->e, false, false, JR_VALUE, f->depth + f->nopen, f->max);
			if (!q) {
				fast_resume(f, v, GPA_JSON_RAW_VALUE);
				return !f->sc ? 1 : gpa_json_skip(f->sc) ? -1 : 1;
			}
			p = fast_after(q, &c);
			due = fast_due(true, c);
			continue;
		}
		if (*v == '"' || *v == '-' || (unsigned)(*v - '0') < 10u) {
			int r;
			bool str = *v == '"';
			q = str ? jr_string(v, f->e, f->max) : jr_number(v, f->e, f->max);
			if (!q) {
				fast_resume(f, v, GPA_JSON_RAW_VALUE);
				return 1;
			}
			p = fast_after(q, &c);
			due = fast_due(true, c);
			r = str ? cb_string(im, v + 1, (size_t)(q - v - 2))
				: cb_number(im, (const char *)v, (size_t)(q - v));
			if (!r) {
				fast_resume(f, p, due);
				return 0;
			}
			if (str && top(im) == C_EVENT && unwanted(im)) {
				/* flows, instants, counters...: nothing below is read */
				q = jr_skip(p, f->e, true, true,
					    due == GPA_JSON_RAW_KEY ? JR_KEY : JR_AFTER,
					    f->depth + f->nopen, f->max);
				if (!q) {
					fast_resume(f, p, due);
					if (!f->sc) {
						return 1;
					}
					if (gpa_json_skip_rest(f->sc)) {
						return -1;
					}
					im->depth--;
					return 1;
				}
				f->nopen--;
				im->depth--;
				*pp = fast_after(q, comma);
				return 2;
			}
			continue;
		}
		if (*v == '{' && k == K_ARGS && top(im) == C_EVENT) {
			p = v + 1;
			f->nopen++;
			if (!cb_start_map(im)) {
				fast_resume(f, p, GPA_JSON_RAW_KEY_OR_END);
				return 0;
			}
			int r = fast_object(im, f, &p, &c);
			if (r != 2) {
				return r;
			}
			due = fast_due(true, c);
			continue;
		}
		if (*v == '[' && (k == K_GRID || k == K_BLOCK) && top(im) == C_ARGS) {
			const char *num[8];
			size_t len[8];
			int cnt;
			q = fast_dims(f, v, num, len, &cnt);
			if (q) {
				p = fast_after(q, &c);
				due = fast_due(true, c);
				/* these handlers only fail past MAX_DEPTH, which events do not reach */
				bool ok = cb_start_array(im);
				for (int i = 0; ok && i < cnt; i++) {
					ok = cb_number(im, num[i], len[i]);
				}
				if (!ok || !cb_end_array(im)) {
					fast_resume(f, p, due);
					return 0;
				}
				continue;
			}
		}
		if (*v == '[' && is_sig_key(k) && top(im) == C_ARGS) {
			q = jr_skip(v, f->e, false, false, JR_VALUE, f->depth + f->nopen, f->max);
			/* escapes: the token path, which decodes them */
			if (q && !memchr(v, '\\', (size_t)(q - v))) {
				sig_raw(im, k, v, q);
				p = fast_after(q, &c);
				due = fast_due(true, c);
				continue;
			}
		}
		/* anything else: from its value on, the token loop */
		fast_resume(f, v, GPA_JSON_RAW_VALUE);
		return 1;
	}
}

/*
 * Two threads over one buffer of events. The calling thread reads the
 * first part of the buffer as always; the side thread reads the rest, from an
 * event start found by a quick look for "}", "," and "{" with only blanks
 * between, parsing each event into a batch without writing anything. When
 * the calling thread's own reading reaches that very place, it was the start
 * of an event of traceEvents and the batch is good: the calling thread
 * writes its events in order (finish_event()) and goes on where the side thread
 * stopped. If it passes the place without stopping there (the comma was
 * inside a string or in an argument), the batch is dropped. The side thread stops
 * at the first event it cannot read whole from the buffer (an escape, the
 * end of the buffer, anything wrong, anything that would write): that event
 * is then read by the calling thread, so every message and every record is
 * the one the calling thread alone gives. The buffer does not move while the
 * side thread reads it: the calling thread waits for the side thread before it hands
 * the scan back to the token loop.
 */
static size_t kineto_split_min = 32u << 10;
static bool kineto_split_always; /* set by the tests' switch: no timing, every buffer split */

void gpa_import_kineto_split_min(size_t bytes)
{
	kineto_split_min = bytes;
	kineto_split_always = true;
}

struct side {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool job, done, quit;
	/* the job: events from s (a '{') to e, nesting as at the calling thread */
	const unsigned char *s, *e;
	int depth;
	size_t max;
	struct imp im; /* the side thread's own: no writer, events go to batch */
	char errsink[160]; /* its messages, never read: the event is read again */
	struct batch batch;
	uint64_t resumes, taken;
	const unsigned char *stop; /* after the last event read, or s */
	bool comma;                /* a ',' followed that event (true when none was read) */
};

static void side_read(struct side *h)
{
	struct imp *im = &h->im;
	struct fast f = {.sc = NULL, .resumes = &h->resumes, .e = h->e, .max = h->max,
			 .depth = h->depth};
	const unsigned char *p = h->s;
	int depth = im->depth;

	h->batch.n = h->batch.tlen = 0;
	h->batch.nomem = false;
	h->taken = 0;
	h->stop = p;
	h->comma = true;
	for (;;) {
		const unsigned char *q = jr_ws(p);
		size_t n0 = h->batch.n, t0 = h->batch.tlen;
		bool comma;

		if (*q != '{') {
			break;
		}
		p = q + 1;
		f.nopen = 1;
		im->ret = 0;
		int r = cb_start_map(im) ? fast_object(im, &f, &p, &comma) : 0;
		if (r != 2 || im->ret || h->batch.nomem) {
			h->batch.n = n0;
			h->batch.tlen = t0;
			break;
		}
		if (h->batch.n > n0) {
			h->batch.v[n0].after = p;
			h->batch.v[n0].comma = comma;
		}
		h->taken++;
		h->stop = p;
		h->comma = comma;
		if (!comma) {
			break;
		}
	}
	im->depth = depth;
	im->ret = 0;
}

static void *side_main(void *arg)
{
	struct side *h = arg;

	pthread_mutex_lock(&h->mu);
	for (;;) {
		while (!h->job && !h->quit) {
			pthread_cond_wait(&h->cv, &h->mu);
		}
		if (h->quit) {
			break;
		}
		pthread_mutex_unlock(&h->mu);
		side_read(h);
		pthread_mutex_lock(&h->mu);
		h->job = false;
		h->done = true;
		pthread_cond_broadcast(&h->cv);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

static void side_free(struct side *h)
{
	if (!h) {
		return;
	}
	pthread_mutex_lock(&h->mu);
	h->quit = true;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->th, NULL);
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
	free(h->im.name);
	free(h->im.argname);
	free(h->batch.v);
	free(h->batch.text);
	free(h);
}

/* A side thread for im, or NULL (no memory, no thread: the import reads on one). */
static struct side *side_new(struct imp *im)
{
	struct side *h = calloc(1, sizeof(*h));

	if (!h) {
		return NULL;
	}
	h->im.path = im->path;
	h->im.err = h->errsink;
	h->im.errlen = sizeof(h->errsink);
	h->im.defer = &h->batch;
	h->im.name = malloc(MAX_STR + 1);
	h->im.argname = malloc(MAX_STR + 1);
	if (!h->im.name || !h->im.argname || pthread_mutex_init(&h->mu, NULL)) {
		free(h->im.name);
		free(h->im.argname);
		free(h);
		return NULL;
	}
	if (pthread_cond_init(&h->cv, NULL)) {
		pthread_mutex_destroy(&h->mu);
		free(h->im.name);
		free(h->im.argname);
		free(h);
		return NULL;
	}
	if (pthread_create(&h->th, NULL, side_main, h)) {
		pthread_cond_destroy(&h->cv);
		pthread_mutex_destroy(&h->mu);
		free(h->im.name);
		free(h->im.argname);
		free(h);
		return NULL;
	}
	return h;
}

/* An event start ('{' after "}", "," and blanks) from t on, before e; NULL if none soon. */
static const unsigned char *find_split(const unsigned char *t, const unsigned char *e)
{
	const unsigned char *lim = t + (64u << 10) < e ? t + (64u << 10) : e;

	while (t < lim) {
		const unsigned char *c = memchr(t, ',', (size_t)(lim - t));
		if (!c) {
			return NULL;
		}
		const unsigned char *a = c, *q = jr_ws(c + 1);
		while (a > t && (a[-1] == ' ' || a[-1] == '\n' || a[-1] == '\r' || a[-1] == '\t')) {
			a--;
		}
		if (a > t && a[-1] == '}' && *q == '{' && q < e) {
			return q;
		}
		t = c + 1;
	}
	return NULL;
}

/* Hands the side thread the events from s to e; im's nesting is the events' own. */
static void side_post(struct side *h, const struct imp *im, const struct fast *f,
			const unsigned char *s)
{
	pthread_mutex_lock(&h->mu);
	h->s = s;
	h->e = f->e;
	h->depth = f->depth;
	h->max = f->max;
	memcpy(h->im.stack, im->stack, sizeof(im->stack));
	memcpy(h->im.key, im->key, sizeof(im->key));
	memcpy(h->im.dim_idx, im->dim_idx, sizeof(im->dim_idx));
	h->im.depth = im->depth;
	h->done = false;
	h->job = true;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

static void side_wait(struct side *h)
{
	pthread_mutex_lock(&h->mu);
	while (!h->done) {
		pthread_cond_wait(&h->cv, &h->mu);
	}
	pthread_mutex_unlock(&h->mu);
}

/*
 * Writes the side thread's events, as the calling thread writes those it reads.
 * 2 on success (*pp, *comma: where the side thread stopped), or as fast_object()
 * on an error in finish_event().
 */
static int side_take(struct imp *im, struct fast *f, struct side *h, const unsigned char **pp,
		       bool *comma)
{
	for (size_t i = 0; i < h->batch.n; i++) {
		const struct pev *pv = &h->batch.v[i];
		im->ev = pv->ev;
		memcpy(im->name, h->batch.text + pv->name_at, pv->ev.name_len);
		im->name[pv->ev.name_len] = 0;
		memcpy(im->argname, h->batch.text + pv->argname_at, pv->ev.argname_len);
		im->argname[pv->ev.argname_len] = 0;
		size_t at = pv->sec_at;
		for (int k = 0; k < 4; k++) {
			im->sec_len[k] = pv->sec_len[k];
			memcpy(im->sec[k], h->batch.text + at, pv->sec_len[k]);
			at += pv->sec_len[k];
		}
		im->sig_bad = pv->sig_bad;
		if (finish_event(im)) {
			f->nopen = 0;
			fast_resume(f, pv->after, fast_due(false, pv->comma));
			return 0;
		}
	}
	im->fast_taken += h->taken;
	im->side_taken += h->taken;
	*pp = h->stop;
	*comma = h->comma;
	return 2;
}

/* The events at the scan position while traceEvents is open; split: see above. */
static int fast_events_run(struct imp *im, struct fast *f, const unsigned char *p,
			   const unsigned char *split)
{
	bool taken = false, comma;

	for (;;) {
		const unsigned char *q = jr_ws(p);
		int r;

		if (split && q >= split) {
			side_wait(im->side);
			if (q == split) {
				r = side_take(im, f, im->side, &p, &comma);
				if (r != 2) {
					return r;
				}
				taken |= im->side->taken > 0;
				split = NULL;
				if (!comma) {
					fast_resume(f, p, GPA_JSON_RAW_AFTER);
					return 1;
				}
				continue;
			}
			split = NULL;
		}
		if (*q != '{') {
			if (taken) {
				fast_resume(f, p, GPA_JSON_RAW_VALUE);
			}
			return 1;
		}
		p = q + 1;
		f->nopen = 1;
		if (!cb_start_map(im)) {
			fast_resume(f, p, GPA_JSON_RAW_KEY_OR_END);
			return 0;
		}
		r = fast_object(im, f, &p, &comma);
		if (r != 2) {
			return r;
		}
		im->fast_taken++;
		taken = true;
		if (!comma) {
			fast_resume(f, p, GPA_JSON_RAW_AFTER);
			return 1;
		}
	}
}

/*
 * Of every SIDE_PERIOD buffers of events, the first SIDE_PROBE are read alone
 * and the next SIDE_PROBE with the side thread, each timed per byte; the
 * rest the faster way. Two threads only pay where the second one has a
 * core of its own: on a 2-vCPU VM both ran at about half speed while they
 * parsed together (docs/performance.md), so one was faster.
 */
#define SIDE_PROBE 3
#define SIDE_PERIOD 64

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Whether this buffer is read with the side thread. */
static bool side_choose(struct imp *im)
{
	unsigned k = im->probe_at++ % SIDE_PERIOD;

	if (kineto_split_always) {
		return true;
	}
	if (k == 0) {
		im->probe_ns[0] = im->probe_ns[1] = 0;
	}
	if (k < SIDE_PROBE) {
		return false;
	}
	if (k < 2 * SIDE_PROBE) {
		return true;
	}
	if (k == 2 * SIDE_PROBE) {
		im->side_on = im->probe_ns[1] > 0 && im->probe_ns[1] < im->probe_ns[0];
	}
	return im->side_on;
}

static int fast_events(struct imp *im, struct gpa_json_scan *sc)
{
	struct fast f = {.sc = sc, .resumes = &im->fast_resumes, .max = gpa_json_max_token(sc),
			 .depth = gpa_json_depth(sc)};
	const unsigned char *p, *split = NULL;
	enum gpa_json_raw_state st = gpa_json_raw(sc, &p, &f.e);

	/* an event and its args open here, a dims array inside those */
	if ((st != GPA_JSON_RAW_VALUE && st != GPA_JSON_RAW_VALUE_OR_END) ||
	    f.depth + 3 > GPA_JSON_MAX_DEPTH || im->depth + 3 > MAX_DEPTH) {
		return 1;
	}
	/* The side thread takes the last 70 % (it only parses; this thread also writes). */
	size_t bytes = (size_t)(f.e - p);
	bool with = false, timed = false;
	double t0 = 0;
	if (im->side && bytes >= kineto_split_min) {
		unsigned k = im->probe_at % SIDE_PERIOD;
		with = side_choose(im);
		timed = k < 2 * SIDE_PROBE;
		t0 = timed ? now_ns() : 0;
	}
	if (with && (split = find_split(p + bytes * 3 / 10, f.e))) {
		side_post(im->side, im, &f, split);
		im->side_buffers++;
	}
	int r = fast_events_run(im, &f, p, split);
	if (split) {
		side_wait(im->side); /* before the buffer moves */
	}
	if (timed && with == (split != NULL)) { /* the lower of the buffers' times per byte */
		double ns = (now_ns() - t0) / (double)bytes, *best = &im->probe_ns[with];
		*best = *best == 0 || ns < *best ? ns : *best;
	}
	return r;
}

/* The file read under the scanner, reporting progress every few megabytes. */
struct progress_read {
	struct gpa_json_file *f;
	struct gpt_writer *w;
	const struct gp_progress_cb *cb;
	uint64_t size, next;
};

static ssize_t read_with_progress(void *ctx, void *buf, size_t n)
{
	struct progress_read *pr = ctx;
	ssize_t got = gpa_json_file_read(pr->f, buf, n);
	uint64_t done = gpa_json_file_consumed(pr->f);

	if (got > 0 && done >= pr->next) {
		struct gpt_writer_stats ws;
		struct gp_progress pg = {.what = "importing", .unit = "bytes", .done = done,
					 .total = pr->size};

		gpt_writer_get_stats(pr->w, &ws);
		for (size_t k = 0; k < GPT_KIND__MAX; k++) {
			pg.records += ws.records[k];
		}
		gp_progress_call(pr->cb, &pg);
		pr->next = done + (4u << 20);
	}
	return got;
}

int gpa_import_kineto(const char *path, struct gpt_writer *w, char *errbuf, size_t errlen)
{
	return gpa_import_kineto_opts(path, w, NULL, errbuf, errlen);
}

int gpa_import_kineto_opts(const char *path, struct gpt_writer *w,
			   const struct gp_progress_cb *progress, char *errbuf, size_t errlen)
{
	return gpa_import_kineto_threads(path, w, progress, 1, errbuf, errlen);
}

int gpa_import_kineto_threads(const char *path, struct gpt_writer *w,
			      const struct gp_progress_cb *progress, unsigned threads, char *errbuf,
			      size_t errlen)
{
	char dummy[1];
	struct progress_read pr = {.w = w, .cb = progress};
	struct stat sb;
	struct imp im = {0};
	struct gpa_json_file *f = NULL;
	struct gpa_json_scan *sc = NULL;
	int r;

	if (!errbuf || !errlen) {
		errbuf = dummy;
		errlen = sizeof(dummy);
	}
	errbuf[0] = 0;
	if (!path || !w) {
		snprintf(errbuf, errlen, "gpa_import_kineto: no %s", path ? "writer" : "path");
		return -GP_ERR_API;
	}
	im.path = path;
	im.w = w;
	im.err = errbuf;
	im.errlen = errlen;

	r = gpa_json_file_open(path, &f, errbuf, errlen);
	if (r) {
		return r;
	}
	im.name = malloc(MAX_STR + 1);
	im.argname = malloc(MAX_STR + 1);
	pr.f = f;
	pr.size = !gpa_input_stat(path, &sb) ? (uint64_t)sb.st_size : 0;
	if (!im.name || !im.argname ||
	    gpa_json_scan_new(progress && progress->fn ? read_with_progress : gpa_json_file_read,
			      progress && progress->fn ? (void *)&pr : (void *)f, MAX_STR, &sc)) {
		fail(&im, -GP_ERR_NOMEM, "out of memory");
		snprintf(errbuf, errlen, "%s: out of memory", path);
		goto out;
	}
	gpa_json_scan_no_lines(sc); /* locate() counts them on error only */
	if (threads > 1 && gpa_json_file_read_ahead(f)) {
		gp_debug("%s: no inflater thread: the file is inflated as it is read", path);
	}
	if (threads > 1 && kineto_fast_path && !(im.side = side_new(&im))) {
		gp_debug("%s: no side thread: the events are read on one", path);
	}

	for (;;) {
		struct gpa_json_tok t;
		int ok;

		r = 0;
		ok = 1;
		if (im.depth && im.stack[im.depth - 1] == C_EVENTS && kineto_fast_path) {
			uint64_t resumes = im.fast_resumes;
			ok = fast_events(&im, sc);
			if (im.fast_resumes != resumes) {
				gp_trace("%s: the token loop goes on from byte %" PRIu64, path,
					 gpa_json_offset(sc));
			}
		}
		if (ok == 1) {
			r = gpa_json_next(sc, &t);
			if (!r && t.type == GPA_JSON_EOF) {
				break;
			}
			ok = r ? -1 : dispatch(&im, sc, &t);
		}
		if (ok == 1) {
			continue;
		}
		if (ok < 0 && !im.ret) {
			/* the tokenizer failed: bad JSON, or the file (gzip, read) behind it */
			int e = r ? r : -GP_ERR_FORMAT;
			const char *msg = gpa_json_error(sc);
			if (!r) {
				r = gpa_json_skip(sc);
				e = r ? r : e;
			}
			if (strcmp(msg, "read failed") == 0) {
				msg = gpa_json_file_error(f);
			}
			fail(&im, e, "%s", msg[0] ? msg : "malformed JSON");
		} else if (!im.ret) {
			fail(&im, -GP_ERR_FORMAT, "parse cancelled");
		}
		locate(&im, gpa_json_line(sc), gpa_json_offset(sc));
		goto out;
	}
	if (!im.seen_events) {
		fail(&im, -GP_ERR_FORMAT, "no \"traceEvents\" array");
		locate(&im, gpa_json_line(sc), gpa_json_offset(sc));
		goto out;
	}
	if (take_flows(&im)) {
		locate(&im, gpa_json_line(sc), gpa_json_offset(sc));
		goto out;
	}
	if (im.base_pending && settle_base(&im, true)) {
		locate(&im, gpa_json_line(sc), gpa_json_offset(sc));
		goto out;
	}
	if (im.base_prescanned && (!im.have_base || im.base != im.base_used)) {
		fail(&im, -GP_ERR_FORMAT, "\"baseTimeNanoseconds\" found by the scan is not the "
					  "top-level one");
		locate(&im, gpa_json_line(sc), gpa_json_offset(sc));
		goto out;
	}
	if (write_tail(&im)) {
		goto out;
	}
	gp_debug("%s: the fast path read %" PRIu64 " events (%" PRIu64 " on the side thread, in %"
		 PRIu64 " buffers of %u) and handed the scan to the token loop %" PRIu64 " times%s",
		 path, im.fast_taken, im.side_taken, im.side_buffers, im.probe_at, im.fast_resumes,
		 kineto_fast_path ? "" : " (fast path off)");
	if (im.sigs_dropped) {
		gp_debug("%s: recorded inputs of %" PRIu64 " CPU ops dropped (over %u bytes, or not "
			 "arrays of scalars)", path, im.sigs_dropped, MAX_SIG);
	}
out:
	if (im.nheld) {
		take_flows(&im); /* after an error too: records read before it are written */
	}
	if (im.base_pending) {
		/*
		 * An error while the writer held records: they stay in w as the
		 * records before an error always did, timed with the base that a
		 * read ahead finds (im.ret keeps the first error).
		 */
		settle_base(&im, false);
	}
	side_free(im.side);
	gpa_json_scan_free(sc);
	gpa_json_file_close(f);
	free(im.name);
	free(im.argname);
	free(im.metas);
	free(im.flows);
	free(im.held);
	return im.ret;
}
