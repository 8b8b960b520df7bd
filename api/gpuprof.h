/* SPDX-License-Identifier: MIT */
/*
 * gpuprof.h - the C API of libgpuprof.so (docs/api.md): open traces, read
 * the model's tables as typed column arrays, run the analyses and read
 * their results as the JSON documents `gpuprof <command> --format json`
 * writes (the same renderer writes both), close.
 *
 * Errors: every call that can fail returns 0 or a negative enum
 * gpuprof_status and keeps one line saying why: gpuprof_open's in a
 * thread-local last error (gpuprof_last_error), a handle's in the handle
 * (gpuprof_trace_error). Nothing exits, aborts on bad input, or prints.
 *
 * Threads: one handle may be used from several threads; its calls are
 * serialized by a lock the handle holds. Different handles share nothing.
 */
#ifndef GPUPROF_H
#define GPUPROF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GPUPROF_EXPORT __attribute__((visibility("default")))
#else
#define GPUPROF_EXPORT
#endif

/*
 * The version of this header's API: raised when a declaration changes in a
 * way that breaks callers; new functions and tables keep it.
 */
#define GPUPROF_API_VERSION 1

/* Error codes, negated in return values (the numbers of gpuprof's own errors). */
enum gpuprof_status {
	GPUPROF_OK = 0,
	GPUPROF_ERR_NOMEM = 1,     /* out of memory, or a limit on memory was hit */
	GPUPROF_ERR_IO = 2,        /* a file could not be opened, read or written */
	GPUPROF_ERR_FORMAT = 3,    /* an input is not what its format allows */
	GPUPROF_ERR_VERSION = 4,   /* an input written by a newer, incompatible version */
	GPUPROF_ERR_TRUNCATED = 5, /* an input ends before a complete unit */
	GPUPROF_ERR_API = 6,       /* a bad argument: NULL, an unknown name, a bad pattern */
	GPUPROF_ERR_CHECKSUM = 8,  /* an input's stored CRC does not match its bytes */
	GPUPROF_ERR_NOTFOUND = 9,  /* a name or id that does not exist */
	GPUPROF_ERR_RANGE = 10,    /* a value outside what the format or API allows */
};

/* The library's version, "1.0.0" (the gpuprof command's). Static. */
GPUPROF_EXPORT const char *gpuprof_version(void);
/* GPUPROF_API_VERSION of the library loaded (compare with the header's). */
GPUPROF_EXPORT int gpuprof_api_version(void);
/* A static, lower-case description of a status (positive or negative). */
GPUPROF_EXPORT const char *gpuprof_strerror(int status);

/* ------------------------------------------------------------------ open */

/*
 * How traces are opened and read: the options of `gpuprof report`. Set it
 * with gpuprof_open_opts_init, then change what differs. Strings are
 * borrowed for the gpuprof_open call only (the handle keeps copies).
 */
struct gpuprof_open_opts {
	/* threads decoding chunks and running analyses: 0 one per core, else 1 to 256 */
	unsigned threads;
	/* --step: NVTX ranges that are steps (PCRE2); NULL the default */
	const char *step_regex;
	/* --data-loader: range names that are data loading (PCRE2); NULL the default */
	const char *data_loader_regex;
	/* --comm-kernel: kernel names that are communication (PCRE2), any number */
	const char *const *comm_kernel_regex;
	size_t ncomm_kernel_regex;
	/* --allow-unrelated: traces that are not of one run analysed together */
	int allow_unrelated;
};

GPUPROF_EXPORT void gpuprof_open_opts_init(struct gpuprof_open_opts *o);

struct gpuprof_trace;

/*
 * Opens npaths inputs as one trace (*out; close with gpuprof_close): .gpz
 * files, Kineto JSON (.json, .json.gz), nsys SQLite exports, directories of
 * traces, as `gpuprof report PATH...` reads them. o NULL: the defaults.
 * Returns 0, or a negative enum gpuprof_status with the reason in
 * gpuprof_last_error() (*out NULL); patterns are checked here.
 */
GPUPROF_EXPORT int gpuprof_open(const char *const *paths, size_t npaths,
				const struct gpuprof_open_opts *o, struct gpuprof_trace **out);
/*
 * The reason the calling thread's last failed gpuprof_open gave, "" when none:
 * "run.gpz: not a gpuprof trace (.gpz), Kineto JSON or nsys SQLite file", the
 * message the command prints after "gpuprof: error: ". Valid until that thread's
 * next gpuprof_open.
 */
GPUPROF_EXPORT const char *gpuprof_last_error(void);
/* The reason t's last failed call gave, "" when none; valid until t's next call. */
GPUPROF_EXPORT const char *gpuprof_trace_error(struct gpuprof_trace *t);
/* Frees t and everything it handed out; NULL does nothing. */
GPUPROF_EXPORT void gpuprof_close(struct gpuprof_trace *t);

/* ---------------------------------------------------------------- tables */

enum gpuprof_type {
	GPUPROF_U8 = 1,
	GPUPROF_U16 = 2,
	GPUPROF_U32 = 3,
	GPUPROF_U64 = 4,
	GPUPROF_I32 = 5,
	GPUPROF_I64 = 6,
	/* uint32_t string ids: gpuprof_string(t, id); 0 is "" */
	GPUPROF_STR = 7,
	/* const char *, never NULL */
	GPUPROF_CSTR = 8,
};

struct gpuprof_column {
	const char *name;      /* "start", "dur", "name"... */
	enum gpuprof_type type;
	const void *data;      /* rows values of type; NULL only when rows is 0 */
};

struct gpuprof_table {
	const char *name;      /* "kernels", "api", ... */
	size_t rows, ncols;
	const struct gpuprof_column *cols;
};

/*
 * The names of the tables gpuprof_table knows, NULL-terminated: kernels,
 * api, copies, memsets, nvtx, sync, overheads, memory_events, steps, devices,
 * processes, threads. Static.
 */
GPUPROF_EXPORT const char *const *gpuprof_table_names(void);
/*
 * Table `name` of t (*out, owned by t until gpuprof_close). Columns the
 * model stores as they are point into it (no copy); the others (kernel and
 * API starts and durations, which the model encodes, names and ids kept per
 * launch site) are computed at the first call into buffers t owns.
 * Times are nanoseconds on the model's timeline. Returns 0, -GPUPROF_ERR_API
 * for an unknown name, -GPUPROF_ERR_NOMEM.
 */
GPUPROF_EXPORT int gpuprof_table(struct gpuprof_trace *t, const char *name,
				 const struct gpuprof_table **out);
/* String id of a GPUPROF_STR column as text ("" for 0 or an unknown id); borrowed from t. */
GPUPROF_EXPORT const char *gpuprof_string(struct gpuprof_trace *t, uint32_t id);
/* Ids 0 to gpuprof_string_count(t) - 1 are valid. */
GPUPROF_EXPORT size_t gpuprof_string_count(struct gpuprof_trace *t);

/* -------------------------------------------------------------- analyses */

enum gpuprof_analysis {
	GPUPROF_REPORT = 1,        /* gpuprof report --format json */
	GPUPROF_GAPS = 2,          /* gpuprof gaps --format json */
	GPUPROF_CRITICAL_PATH = 3, /* gpuprof critical-path --format json */
	GPUPROF_OPS = 4,           /* gpuprof ops --format json */
	GPUPROF_MEMORY = 5,        /* gpuprof memory --format json */
	GPUPROF_BREAKDOWN = 6,     /* gpuprof breakdown --format json (HTA's breakdowns, exact) */
	GPUPROF_BREAKDOWN_HTA = 7, /* gpuprof breakdown --compat hta --format json */
	/* gpuprof breakdown --compat hta-noround (HTA with HTA_DISABLE_NS_ROUNDING=1) */
	GPUPROF_BREAKDOWN_HTA_NOROUND = 8,
};

/*
 * Runs analysis a on t with t's options and the command's defaults, and
 * hands its result as the JSON document the command writes, byte for byte
 * (*json, NUL-terminated, *len bytes without the NUL; caller frees with
 * gpuprof_free). Its tables are its top-level arrays of objects, keyed as
 * the command's JSON schema keys them (docs/report.md, docs/gaps.md...).
 * Returns 0 or a negative enum gpuprof_status (gpuprof_trace_error).
 */
GPUPROF_EXPORT int gpuprof_analyze(struct gpuprof_trace *t, enum gpuprof_analysis a, char **json,
				   size_t *len);
/*
 * Compares trace a (the baseline) with b (the candidate) as `gpuprof diff
 * --json FILE A -- B` does, each trace one run, with the handles' step and
 * data-loader patterns and the command's defaults, and hands the JSON it
 * writes (*json, *len as gpuprof_analyze). a and b may not be the same
 * handle. Returns 0 or a negative enum gpuprof_status, the reason in
 * gpuprof_trace_error(b).
 */
GPUPROF_EXPORT int gpuprof_diff(struct gpuprof_trace *a, struct gpuprof_trace *b, char **json,
				size_t *len);
/*
 * How much an analysis lists (gpuprof_analyze_opts). Zeroed, it is the
 * command's defaults; size is sizeof(struct gpuprof_analysis_opts) as the
 * caller was built, so fields added later read as their defaults.
 */
struct gpuprof_analysis_opts {
	size_t size;
	/*
	 * Rows of the listing tables, as the command's --top: the longest gaps
	 * and the kernels (report, gaps), path segments per step
	 * (critical-path), operators per table (ops). 0 the command's default,
	 * -1 all, else at most this many.
	 */
	int64_t top;
	/* Gaps listed from this length (report, gaps), as --min-gap; 0 the default (10 us). */
	int64_t min_gap_ns;
};

/*
 * gpuprof_analyze with options o (NULL: the defaults). Options an analysis
 * does not take are ignored (memory and breakdown take none). A negative
 * top other than -1, or a negative min_gap_ns, is refused with
 * -GPUPROF_ERR_API.
 */
GPUPROF_EXPORT int gpuprof_analyze_opts(struct gpuprof_trace *t, enum gpuprof_analysis a,
					const struct gpuprof_analysis_opts *o, char **json,
					size_t *len);
/* Frees what gpuprof_analyze and gpuprof_diff handed out; NULL does nothing. */
GPUPROF_EXPORT void gpuprof_free(void *p);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROF_H */
