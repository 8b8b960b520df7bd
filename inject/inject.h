/* SPDX-License-Identifier: MIT */
/*
 * inject.h - private to inject/: the pieces of libgpuprof-inject.so.
 *
 * The library is built with -fvisibility=hidden and a version script, so
 * every gpi_ symbol here is internal; only the entry points in entry.c are
 * exported. STYLE.md section 8 is the contract every file here obeys.
 *
 * Threads and what they may do:
 *   application threads  NVTX hot paths (nvtx.c), CUPTI API callbacks and
 *                        buffer callbacks (cupti.c): no malloc, no locks, no
 *                        stdio, errno preserved.
 *   the writer thread    everything heavy: converts CUPTI buffers and NVTX
 *                        events, owns the gpt_writer, writes the file. All
 *                        signals blocked (session.c).
 *   cold paths           InitializeInjection, InitializeInjectionNvtx2,
 *                        NVTX registration calls, atexit: may allocate and
 *                        take the two gpuprof mutexes (never nested, never
 *                        held across a CUPTI call):
 *                          session.c start_mu   starting/stopping the session
 *                          nvtx.c    reg_mu     domains and registered strings
 */
#ifndef GPI_INJECT_H
#define GPI_INJECT_H

#include "base/base.h"
#include "trace/trace.h"

#include <pthread.h>
#include <stdatomic.h>

#define GPI_PATH_MAX 1024

/* ------------------------------------------------------------ log.c */

extern bool gpi_debug_on;

/*
 * A signal-safe formatter: %s %c %d %i %u %x %p %% with the l, ll, z
 * length modifiers and a '-' free field width ("%5u", "%08x"). Always
 * NUL-terminates; returns the length written.
 */
size_t gpi_vfmt(char *buf, size_t size, const char *fmt, va_list ap);
GP_PRINTF(3, 4) size_t gpi_fmt(char *buf, size_t size, const char *fmt, ...);

/* GPUPROF_DEBUG=1: "gpuprof[pid]: debug: ..." on stderr. Signal-safe. */
GP_PRINTF(1, 2) void gpi_dbg_(const char *fmt, ...);
#define gpi_dbg(...)                                                                               \
	do {                                                                                       \
		if (GP_UNLIKELY(gpi_debug_on)) {                                                   \
			gpi_dbg_(__VA_ARGS__);                                                     \
		}                                                                                  \
	} while (0)

/*
 * The one line the library ever prints without GPUPROF_DEBUG: "gpuprof:
 * warning: ..." on stderr, at most once per process. Signal-safe.
 */
GP_PRINTF(1, 2) void gpi_warn_once(const char *fmt, ...);
/*
 * The same line every time it is called, for the few events that happen at
 * most once per trace whatever else was said (the name of the trace changed
 * because another program has it; writes failed). Signal-safe.
 */
GP_PRINTF(1, 2) void gpi_warn(const char *fmt, ...);

/*
 * dlsym/dlopen that clear the thread's dlerror() state afterwards: glibc
 * keeps the message of a failed lookup in a per-thread buffer until the
 * next dlerror(), which leak checkers report for the writer thread.
 */
void *gpi_dlsym(void *handle, const char *name);
void *gpi_dlopen(const char *path, int flags);

/* write() all of buf, retrying on EINTR. Signal-safe. */
void gpi_write_all(int fd, const void *buf, size_t len);

/* --------------------------------------------------------- config.c */

enum gpi_kind_bit {
	GPI_K_KERNEL = 1u << 0,
	GPI_K_MEMCPY = 1u << 1,
	GPI_K_MEMSET = 1u << 2,
	GPI_K_RUNTIME = 1u << 3,
	GPI_K_DRIVER = 1u << 4,
	GPI_K_SYNC = 1u << 5,
	GPI_K_OVERHEAD = 1u << 6,
	GPI_K_EXTCORR = 1u << 7,
	GPI_K_NVTX = 1u << 8,
	GPI_K_MEMORY = 1u << 9, /* MEMORY2 and MEMORY_POOL */
	GPI_K_GEMM = 1u << 10,	/* cuBLAS/cuBLASLt GEMM shapes (gemm.c, preloaded only) */
	GPI_K_ALL = (1u << 11) - 1,
};

enum gpi_fork_mode {
	GPI_FORK_CHILD = 0, /* a forked child records into its own file */
	GPI_FORK_OFF = 1,   /* a forked child records nothing */
};

enum gpi_capture {
	GPI_CAPTURE_ALL = 0,	      /* the whole run */
	GPI_CAPTURE_PROFILER_API = 1, /* inside cudaProfilerStart/Stop */
	GPI_CAPTURE_NVTX = 2,	      /* inside the first NVTX range with this name */
};

enum gpi_clock_src {
	GPI_CLOCK_AUTO = 0,
	GPI_CLOCK_TSC = 1,	 /* NVTX stamps the CPU counter; the writer converts */
	GPI_CLOCK_MONOTONIC = 2, /* NVTX calls clock_gettime */
};

enum gpi_bt_method {
	GPI_BT_AUTO = 0,   /* libunwind when it loads, else frame pointers */
	GPI_BT_FP = 1,	   /* frame-pointer walk */
	GPI_BT_UNWIND = 2, /* libunwind's unw_backtrace */
};
#define GPI_BT_DEFAULT_DEPTH 16
#define GPI_BT_MAX_DEPTH 64

#define GPI_DEFAULT_PATTERN "gpuprof-%h-%p.gpz"
#define GPI_DEFAULT_FLUSH_MS 200
#define GPI_DEFAULT_BUFFER_MB 64

struct gpi_config {
	char output[GPI_PATH_MAX]; /* pattern: %p %h %r %q{VAR} %% */
	uint32_t kinds;		   /* enum gpi_kind_bit */
	uint32_t flush_ms;
	uint64_t buffer_bytes; /* the whole pool: CUPTI buffers and NVTX thread buffers */
	enum gpi_fork_mode fork_mode;
	enum gpi_capture capture;
	char capture_nvtx[256];		/* GPI_CAPTURE_NVTX: the range message */
	char capture_nvtx_domain[128];	/* and its domain ("" any) */
	uint64_t delay_ns, duration_ns; /* 0: none */
	uint32_t exit_timeout_ms;	/* how long exit waits for the writer */
	enum gpi_clock_src clock;
	bool debug;
	bool quiet;		/* GPUPROF_QUIET=1: no line on stderr for losses at exit */
	char cupti_path[GPI_PATH_MAX];
	char manifest[GPI_PATH_MAX];
	uint32_t backtrace;	  /* frames captured at launch API calls; 0 off */
	uint8_t backtrace_method; /* enum gpi_bt_method */
	/* the flight recorder (flight.c): flight_window_ns 0 is off */
	uint64_t flight_window_ns, flight_bytes, flight_after_ns, flight_cooldown_ns;
	double flight_slow_k;	  /* a step over k x the median of the last flight_steps */
	uint32_t flight_steps;
	uint32_t flight_triggers; /* 1 << enum gpi_flight_trig */
	int flight_signal;	  /* 0: none */
	char flight_step[256];	  /* POSIX extended regex of step range names; "" the default */
	char flight_dir[GPI_PATH_MAX]; /* shared directory for triggers across ranks; "" none */
};

enum gpi_flight_trig {
	GPI_FLIGHT_SLOW_STEP = 0,
	GPI_FLIGHT_SIGNAL = 1, /* the signal, or `gpuprof trigger` */
	GPI_FLIGHT_CUDA_ERROR = 2,
	GPI_FLIGHT_CRASH = 3,
	GPI_FLIGHT_EXIT = 4,
	GPI_FLIGHT_RANK = 5,
	GPI_FLIGHT_NCCL_ERROR = 6, /* an NCCL call's error, or its communicator's async error */
	GPI_FLIGHT__COUNT = 7,
};
#define GPI_FLIGHT_DEFAULT_TRIGGERS                                                                \
	((1u << GPI_FLIGHT_SLOW_STEP) | (1u << GPI_FLIGHT_SIGNAL) | (1u << GPI_FLIGHT_CUDA_ERROR) | \
	 (1u << GPI_FLIGHT_CRASH) | (1u << GPI_FLIGHT_RANK) | (1u << GPI_FLIGHT_NCCL_ERROR))
#define GPI_FLIGHT_DEFAULT_STEP "^(ProfilerStep#[0-9]+|([Tt]rain_?)?[Ss]tep[ _#:]?[0-9]*)$"

typedef const char *(*gpi_getenv_fn)(const char *name);

/*
 * Reads the GPUPROF_* variables through getenv_fn into c (defaults for the
 * unset ones). A bad value is replaced by its default and described in errbuf
 * (which stays "" when all is well). Never fails.
 */
void gpi_config_load(struct gpi_config *c, gpi_getenv_fn getenv_fn, char *errbuf,
		     size_t errlen);

/* The settings in effect as "k=v k=v". */
void gpi_config_describe(const struct gpi_config *c, char *buf, size_t size);

/* Parses a kinds list ("all,-driver", "kernel,memcpy,nvtx"); -1 on a bad word. */
int gpi_parse_kinds(const char *s, uint32_t *out);

/* Parses a flight trigger list ("slow-step,signal", "-rank", "+exit"); -1 on a bad word. */
int gpi_parse_flight_triggers(const char *s, uint32_t *out);

/* Parses a capture spec: all, cudaProfilerApi, nvtx:NAME[@DOMAIN], delay:S, duration:S. */
int gpi_parse_capture(const char *s, struct gpi_config *c);

/* Where this process sits in a distributed launch. */
struct gpi_rank {
	int rank, local_rank, world_size, local_world_size; /* -1 unknown */
	const char *launcher;				    /* "torchrun", ..., "none" */
};
void gpi_detect_rank(gpi_getenv_fn getenv_fn, struct gpi_rank *r);

/*
 * Expands an output pattern: %p pid, %h host, %r rank (0 when not a rank),
 * %q{VAR} the variable's value ("" unset), %% a percent. Returns 0 or -1
 * when the result does not fit or the pattern is malformed.
 */
int gpi_expand_pattern(const char *pattern, unsigned pid, const char *host, int rank,
		       gpi_getenv_fn getenv_fn, char *out, size_t size);

/* Inserts ".SUFFIX" before a trailing ".gpz" (or appends it). -1 when it does not fit. */
int gpi_path_add_suffix(char *path, size_t size, const char *suffix);

/* ----------------------------------------------------------- clock */

/* The trace clock: CLOCK_MONOTONIC nanoseconds, plus an offset when CUPTI keeps its own clock. */
extern _Atomic int64_t gpi_clock_offset;
static inline uint64_t gpi_now(void)
{
	return gp_clock_monotonic_ns() +
	       (uint64_t)atomic_load_explicit(&gpi_clock_offset, memory_order_relaxed);
}

/* The NVTX hot path's stamp: CPU ticks (TSC, CNTVCT) or monotonic ns (see gpi_tick_is_tsc). */
extern bool gpi_tick_is_tsc;
static inline uint64_t gpi_tick(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (GP_LIKELY(gpi_tick_is_tsc)) {
		uint32_t lo, hi;
		__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		return ((uint64_t)hi << 32) | lo;
	}
#elif defined(__aarch64__)
	if (GP_LIKELY(gpi_tick_is_tsc)) {
		uint64_t v;
		__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
		return v;
	}
#endif
	return gp_clock_monotonic_ns();
}

/* Picks the tick source (cold). */
void gpi_tick_init(enum gpi_clock_src src);

/* Converts ticks to the trace clock from anchor pairs the writer takes. Writer thread only. */
struct gpi_tickconv {
	uint64_t t0, n0; /* first anchor: ticks, trace ns */
	uint64_t t1, n1; /* latest anchor */
	double slope;	 /* ns per tick over [t0, t1] */
};
void gpi_tickconv_init(struct gpi_tickconv *tc);
void gpi_tickconv_anchor(struct gpi_tickconv *tc);
uint64_t gpi_tickconv_ns(const struct gpi_tickconv *tc, uint64_t tick);

/* ----------------------------------------------------------- pool.c */

/*
 * The bounded pool: one anonymous mapping of GPUPROF_BUFFER_MB, cut into
 * CUPTI activity buffers (three quarters) and NVTX thread buffers (one
 * quarter). Slots change state with atomics only.
 */
enum gpi_slot_state {
	GPI_SLOT_FREE = 0,
	GPI_SLOT_CUPTI = 1, /* handed to CUPTI */
	GPI_SLOT_FULL = 2,  /* returned by CUPTI, waiting for the writer */
	GPI_SLOT_BUSY = 3,  /* the writer is converting it */
};

struct gpi_slot {
	_Atomic int state;
	uint8_t *mem;
	size_t valid;
	size_t dirty; /* bytes from the start that may be non-zero (the writer's) */
	uint64_t seq; /* completion order */
};

struct gpi_pool {
	uint8_t *base;
	size_t bytes;
	struct gpi_slot *slots;
	uint32_t nslots;
	size_t slot_bytes;
	uint8_t *nvtx_base; /* NVTX thread buffers */
	uint32_t nvtx_nbuf;
	size_t nvtx_buf_bytes;
	_Atomic uint64_t seq;
	_Atomic uint64_t refused; /* buffer requests refused (pool exhausted) */
	_Atomic uint64_t refused_bytes;
	_Atomic uint64_t refused_seen; /* writer: refusals already accounted */
};

extern struct gpi_pool gpi_pool;

/* Maps the pool (cold). 0 or -GP_ERR_NOMEM. */
int gpi_pool_init(uint64_t bytes);
/* CUPTI's bufferRequested: a free slot or NULL (counted). Lock-free. */
uint8_t *gpi_pool_get(size_t *size);
/* CUPTI's bufferCompleted: hands the buffer to the writer. Lock-free; returns false if not ours. */
bool gpi_pool_complete(uint8_t *buf, size_t valid);
/* Writer: collects FULL slots in completion order into out (up to max); marks them BUSY. */
uint32_t gpi_pool_collect(struct gpi_slot **out, uint32_t max);
/* Writer: zeroes a converted slot and frees it. */
void gpi_pool_release(struct gpi_slot *s);
/* Slots still handed to CUPTI. */
uint32_t gpi_pool_outstanding(void);
/* In a forked child: every buffer is free, the parent's are not its own. */
void gpi_pool_atfork_child(void);

/* --------------------------------------------------------- conv.c */

/*
 * The writer's conversion state: CUPTI activity records and NVTX events to
 * trace records, with caches for names. Writer thread only.
 */
struct gpi_conv {
	struct gpt_writer *w;
	int err;	   /* first writer error */
	uint64_t records;  /* records added */
	uint64_t events;   /* activity records among them */
	uint64_t filtered; /* records outside the capture window */
	uint64_t first_ts, last_ts;
	uint64_t unknown_kinds;
	uint64_t untimed;  /* event records with neither a device time nor a seen call */
	uint64_t refused; /* records not added: the writer had failed for good */
	uint64_t lost[GPT_LOSS__MAX]; /* the counts of the LOSS records added, by cause */
	/* API names by domain and cbid */
	uint32_t *api_names[3];
	uint32_t api_names_n[3];
	/* kernel name cache: CUPTI shares one name pointer per kernel */
	struct kname_slot *knames;
	size_t knames_cap, knames_n;
	/* threads seen (tids) */
	uint32_t *tids;
	size_t tids_cap, tids_n;
	/* devices seen */
	uint32_t devices_seen[64];
	uint32_t ndevices_seen;
	/* start time of recent API calls by correlation id (direct-mapped) */
	struct api_seen *api_seen;
	/* __cxa_demangle, looked up lazily */
	int demangle_state;
	char *(*demangle)(const char *, char *, size_t *, int *);
};

void gpi_conv_init(struct gpi_conv *cv, struct gpt_writer *w);
void gpi_conv_release(struct gpi_conv *cv);
/* Adds a record (writer errors are kept in cv->err). */
void gpi_conv_add(struct gpi_conv *cv, enum gpt_kind kind, const void *rec);
/*
 * An NVTX message's id: in a flight ring (gpt_writer_opts.number_names) a
 * name with a changing number is its pattern's id and *num the number.
 */
uint32_t gpi_conv_intern_msg(struct gpi_conv *cv, const char *s, size_t len, uint64_t *num);
uint32_t gpi_conv_intern(struct gpi_conv *cv, const char *s);
uint32_t gpi_conv_intern_len(struct gpi_conv *cv, const char *s, size_t len);
/* Notes a thread id so a THREAD record is written for it. */
void gpi_conv_note_tid(struct gpi_conv *cv, uint32_t tid);
/* Whether a record starting at ts is inside the capture window (metadata always is). */
bool gpi_capture_keep(uint64_t ts);

/* Converts one CUPTI activity buffer. */
void gpi_conv_cupti_buffer(struct gpi_conv *cv, uint8_t *buf, size_t valid);
/* Converts one CUPTI activity record (the kinds listed in docs/recording.md). */
void gpi_conv_cupti_record(struct gpi_conv *cv, const void *rec);
/* Demangles an Itanium C++ name; 0 when it is not one or no demangler is available. */
uint32_t gpi_conv_demangled(struct gpi_conv *cv, const char *mangled);

/* ---------------------------------------------------------- cupti.c */

/* The CUPTI entry points the library uses, resolved with dlsym. */
struct gpi_cupti_fns;
extern struct gpi_cupti_fns *gpi_cupti;

enum gpi_cupti_state {
	GPI_CUPTI_NONE = 0,	/* InitializeInjection never ran */
	GPI_CUPTI_ACTIVE = 1,	/* subscribed and recording */
	GPI_CUPTI_FAILED = 2,	/* fail-open: see the session status */
	GPI_CUPTI_INACTIVE = 3, /* forked child, or stopped */
};
extern _Atomic int gpi_cupti_state;
extern uint32_t gpi_cupti_version;

/* InitializeInjection's work (cold). Never fails: on error CUPTI stays off. */
void gpi_cupti_setup(void);
/* Writer: cuptiActivityFlushAll (forced or not). No gpuprof lock held. */
void gpi_cupti_flush(bool forced);
/* Writer: records CUPTI dropped since the last call (cuptiActivityGetNumDroppedRecords). */
uint64_t gpi_cupti_take_dropped(void);
/* Writer: cuptiGetCallbackName with the _vNNNN suffix removed; NULL when unknown. */
const char *gpi_cupti_callback_name(int domain, uint32_t cbid, char *buf, size_t size);
/* Fork child: forget CUPTI (never call it again in this process). */
void gpi_cupti_forget(void);
/* Tests and benchmarks: iterate records with this instead of CUPTI's. */
typedef int (*gpi_next_record_fn)(uint8_t *buf, size_t valid, void **rec);
void gpi_cupti_set_next_record(gpi_next_record_fn fn);

/* Capture windows from cudaProfilerStart/Stop and NVTX; read by gpi_capture_keep. */
#define GPI_MAX_WINDOWS 256
struct gpi_windows {
	_Atomic uint32_t n; /* windows opened */
	_Atomic uint64_t start[GPI_MAX_WINDOWS];
	_Atomic uint64_t end[GPI_MAX_WINDOWS]; /* 0 while open */
	/*
	 * Correlation ids of the API calls made inside the window (0: not
	 * known yet): from the cudaProfilerStart/Stop callbacks, or learned by
	 * the writer from API records. GPU work is judged by the call that
	 * launched it, not by when it ran.
	 */
	_Atomic uint32_t corr_lo[GPI_MAX_WINDOWS];
	_Atomic uint32_t corr_hi[GPI_MAX_WINDOWS];
	/*
	 * GPI_WIN_LO_EXACT, GPI_WIN_HI_EXACT: the bound came from the call at
	 * the window's edge. Otherwise it is only the lowest / highest id seen
	 * so far, and GPU work whose call was not converted yet is not judged
	 * by it (CUPTI may hand over a kernel before the call that launched it).
	 */
	_Atomic uint8_t exact[GPI_MAX_WINDOWS];
};
#define GPI_WIN_LO_EXACT 0x1
#define GPI_WIN_HI_EXACT 0x2
extern struct gpi_windows gpi_windows;
/* corr: the correlation id of the API call at the window's edge, 0 when unknown. */
void gpi_window_open(uint64_t ts, uint32_t corr);
void gpi_window_close(uint64_t ts, uint32_t corr);
/*
 * Whether GPU work launched by API call corr, starting at ts, is inside a
 * capture window. api_start: when that call started, 0 if unknown.
 */
bool gpi_capture_keep_gpu(uint64_t ts, uint32_t corr, uint64_t api_start);
/* Writer: an API call [start, end] with corr was kept; windows learn their corr range. */
void gpi_capture_note_api(uint64_t start, uint32_t corr);

/* ----------------------------------------------------------- nvtx.c */

/* NVTX injection (InitializeInjectionNvtx2's work). 1 on success, 0 to decline. */
int gpi_nvtx_init(const void *(*get_export_table)(uint32_t));
/* Writer: drains every thread buffer into the trace. */
void gpi_nvtx_drain(struct gpi_conv *cv, const struct gpi_tickconv *tc);
/* Writer, at the end: open ranges become records ending at end_ts; returns how many. */
uint64_t gpi_nvtx_finish(struct gpi_conv *cv, uint64_t end_ts);
/* Events dropped because a thread buffer was full or none was free. */
uint64_t gpi_nvtx_take_dropped(void);
/* Whether some thread buffer holds events. */
bool gpi_nvtx_has_data(void);
/* Fork child: keep only the calling thread's buffer, emptied. */
void gpi_nvtx_atfork_child(void);
/* Turns the hot paths into no-ops (fork with GPUPROF_FORK=off, or after the end). */
void gpi_nvtx_disable(void);

/* -------------------------------------------------------- session.c */

enum gpi_state {
	GPI_OFF = 0,	  /* not started */
	GPI_RUNNING = 1,  /* writer thread running */
	GPI_STOPPING = 2, /* final flush in progress */
	GPI_DONE = 3,	  /* trace closed */
	GPI_DISABLED = 4, /* nothing will be recorded in this process */
};

struct gpi_session {
	_Atomic int state;
	struct gpi_config cfg;
	char cfg_err[256];
	char path[GPI_PATH_MAX]; /* the trace file; "" until opened */
	unsigned pid;
	int wake_fd;	/* eventfd: wakes the writer */
	int done_fd[2]; /* pipe: the writer says it has finished */
	pthread_t writer;
	bool writer_started;
	bool lazy_open; /* forked child: open the file at the first event */
	bool is_fork_child;
	_Atomic int exit_signal; /* a fatal signal is being handled */
	_Atomic int crashing;	 /* ... and it is a crash: write what is held first */
	_Atomic int writer_tid;	 /* the writer thread's id, for the crash handler */
	_Atomic int stop_requested;
	uint64_t start_ts;
	/* Why tracing is partial or off, for the PROCESS record ("" when fine). */
	char status[512];
	_Atomic int status_lock; /* spin flag for status appends (cold paths only) */
};

extern struct gpi_session gpi_s;

/*
 * Starts the session once per process (cold; idempotent and thread-safe):
 * reads the configuration, maps the pool, starts the writer thread and
 * installs the exit, signal and fork handlers. false when disabled.
 */
bool gpi_session_start(void);
/* Appends "; text" to the status (cold paths). */
GP_PRINTF(1, 2) void gpi_status_add(const char *fmt, ...);
/* Wakes the writer (signal-safe). */
void gpi_session_wake(void);
/* Finishes the trace: from atexit, a destructor or a signal handler. */
void gpi_session_finish(void);

/*
 * Creates a trace file at path (made unique: the pid added when the name
 * exists), listed in the manifest. Its descriptor, or -1, said once.
 */
int gpi_session_create(char *path, size_t size);

/* The library's own path (dladdr), "" if unknown. */
const char *gpi_self_path(void);

/* ----------------------------------------------------------- meta.c */

#define GPI_PROCESS_FLIGHT 3 /* the phase of a flight save's trigger record */
/* Writer: the PROCESS record (phase 1 start, 2 close). */
void gpi_meta_process(struct gpi_conv *cv, int phase, int exit_status);
/* Same with the status given (a flight save's trigger, phase 3) instead of the session's. */
void gpi_meta_process_status(struct gpi_conv *cv, int phase, int exit_status,
			     const char *status);
/* Writer: a CLOCK anchor record. */
void gpi_meta_clock(struct gpi_conv *cv, int phase);
/* Writer: completes a DEVICE record with driver attributes (cuDeviceGetAttribute). */
void gpi_meta_device_attrs(struct gpt_device *d);
/* Writer: THREAD records for every thread seen (names from /proc). */
void gpi_meta_threads(struct gpi_conv *cv);
/* Writer: LOSS records for drops since the last call. */
void gpi_meta_losses(struct gpi_conv *cv, uint64_t cupti_dropped);
/* The host name (cached). */
const char *gpi_hostname(void);

/* --------------------------------------------------------- flight.c */

/* Whether the flight recorder is on (GPUPROF_FLIGHT): chunks go to a ring, not the file. */
extern bool gpi_flight_on;
/* Cold, at session start after the configuration: the step pattern, signal, socket. */
void gpi_flight_init(void);
/* The writer's options for the ring (made on first use). 0 or -GP_ERR_NOMEM. */
int gpi_flight_writer_opts(struct gpt_writer_opts *wo);
/* The trigger socket the writer polls, -1 none. */
int gpi_flight_poll_fd(void);
/* Writer: a converted NVTX range (slow-step trigger) and API record (cuda-error trigger). */
void gpi_flight_note_range(struct gpi_conv *cv, const struct gpt_nvtx *r);
void gpi_flight_note_api(struct gpi_conv *cv, const struct gpt_api *r);
/*
 * Any thread (the NCCL interposers): call fn (a static string) returned
 * the error code, or reported it as its communicator's async error. Counts
 * and wakes the writer, which turns it into an nccl-error trigger. No lock,
 * no allocation; errno kept.
 */
void gpi_flight_nccl_error(const char *fn, int code);
/* Writer, every wake-up: signals, the socket, the shared directory, pending saves. */
void gpi_flight_poll(struct gpi_conv *cv, struct gpt_writer *w);
/*
 * Writer, at the end: with crashing, saves at once (before CUPTI is called);
 * otherwise saves a pending trigger, or the exit when asked.
 */
void gpi_flight_end(struct gpi_conv *cv, struct gpt_writer *w, int exit_signal, bool crashing);
/* Writer, after the end: frees the ring. */
void gpi_flight_release(void);
/* Fork child: the parent's ring and socket are not the child's. */
void gpi_flight_atfork_child(void);
/* The median of n values (n <= 1024), 0 when n is 0. */
uint64_t gpi_flight_median(const uint64_t *v, uint32_t n);
/* A trigger's name ("slow-step"). */
const char *gpi_flight_trig_name(unsigned t);

/* ------------------------------------------------------ backtrace.c */

/*
 * CPU call stacks at launch API calls (GPUPROF_BACKTRACE). Stacks are
 * interned into a bounded lock-free node table; each captured call goes
 * through a bounded lock-free queue to the writer. Hot path: no lock, no
 * malloc (the thread's first capture reads its stack bounds once).
 */
/* Cold, after the pool: maps the tables, picks the method. false: stays off. */
bool gpi_bt_init(const struct gpi_config *c);
/* Whether stacks are captured (gpi_bt_init succeeded). */
extern bool gpi_bt_on;
/* Whether CUPTI should call us for this API (cold: setup enables the callbacks). */
bool gpi_bt_wants(int domain, uint32_t cbid, const char *name);
/* API callback, enter and exit sites (application threads). */
void gpi_bt_api_enter(int domain, uint32_t cbid, uint32_t corr);
void gpi_bt_api_exit(int domain, uint32_t cbid);
/* Writer: new modules, new nodes, queued stacks and losses into the trace. */
void gpi_bt_drain(struct gpi_conv *cv);
/* Fork child: modules and nodes go into the child's file again. */
void gpi_bt_atfork_child(void);
/* Benchmarks and tests: one capture into pcs (innermost first); returns the depth. */
unsigned gpi_bt_walk(int method, uintptr_t *pcs, unsigned max);
/* The method in use (enum gpt_stack_method), 0 when off. */
int gpi_bt_method(void);

/* ----------------------------------------------------------- nccl.c */

/*
 * NCCL operations reach the writer through one bounded lock-free queue
 * (many producers: application and NCCL proxy threads; one consumer: the
 * writer). Both the profiler plugin (nccl.c) and the interposers
 * (nccl-interpose.c) fill these entries; a full queue drops and counts
 * (GPT_LOSS_NCCL_BUFFER).
 */
enum gpi_nccl_ev_kind {
	GPI_NCCL_OP = 1,
	GPI_NCCL_CHANNEL = 2,
};

struct gpi_nccl_ev {
	uint8_t kind; /* enum gpi_nccl_ev_kind */
	uint8_t source, flags, datatype, reduce_op, channel, nchannels, nwarps;
	int32_t root, peer, rank, nranks, nodes;
	uint32_t tid;
	uint16_t ctx; /* plugin communicator slot + 1 (its name); 0 none */
	uint64_t start, end, enqueued, count, bytes, comm_hash, seq, op_id, ext_id;
	uint64_t stream_handle, gpu_start, gpu_end;
	char func[24], dtype[16], algo[16], proto[16]; /* NUL-terminated, cut to fit */
};

#define GPI_NCCL_DT_UNKNOWN 0xff /* datatype not known as an ncclDataType_t (dtype names it) */

/* Whether a profiler plugin instance is live (the interposers then only pass through). */
extern _Atomic int gpi_nccl_plugin_active;
/* A new id for an operation (also its CUPTI external correlation id). Lock-free. */
uint64_t gpi_nccl_next_id(void);
/* Queues an entry; false (and counted) when the queue is full or tracing is off. Lock-free. */
bool gpi_nccl_push(const struct gpi_nccl_ev *ev);
/* The caller's thread id, cached in TLS. */
uint32_t gpi_nccl_tid(void);
/*
 * CUPTI external correlation (CUSTOM2) around NCCL launches (cupti.c): push
 * returns whether it pushed (false without CUPTI); pop takes that answer.
 */
bool gpi_nccl_extcorr_push(uint64_t id);
void gpi_nccl_extcorr_pop(bool pushed);
/* Bytes of one element of an ncclDataType_t, 0 unknown. */
unsigned gpi_nccl_type_size(unsigned dt);
/* Writer: converts queued entries into NCCL and NCCL_CHANNEL records. */
void gpi_nccl_drain(struct gpi_conv *cv);
/* Writer: entries dropped since the last call. */
uint64_t gpi_nccl_take_dropped(void);
/* Whether the queue holds entries. */
bool gpi_nccl_has_data(void);

/* ----------------------------------------------------------- gemm.c */

/*
 * cuBLAS and cuBLASLt GEMM calls (preloaded interposers) reach the writer
 * through a bounded lock-free queue like the NCCL one; the writer writes
 * each as an NVTX range of domain "cpu_op" whose args hold the shapes.
 */
enum gpi_gemm_func {
	GPI_GEMM_EX = 0,
	GPI_GEMM_STRIDED_BATCHED_EX = 1,
	GPI_GEMM_SGEMM = 2,
	GPI_GEMM_HGEMM = 3,
	GPI_GEMM_LT_MATMUL = 4,
	GPI_GEMM__COUNT = 5,
};

struct gpi_gemm_ev {
	uint64_t start, end, ext_id;
	uint32_t tid;
	uint8_t func;		      /* enum gpi_gemm_func */
	int8_t order_a, order_b, order_c; /* 0 column-major, 1 row-major, -1 other */
	int32_t transa, transb;	      /* cublasOperation_t */
	int32_t atype, btype, ctype;  /* cudaDataType */
	int32_t compute;	      /* cublasComputeType_t */
	int64_t m, n, k, batch;
	int64_t lda, ldb, ldc;
	int64_t stride_a, stride_b, stride_c; /* batch strides, elements */
};

/* Queues an entry; false (and counted) when the queue is full. Lock-free. */
bool gpi_gemm_push(const struct gpi_gemm_ev *ev);
bool gpi_gemm_has_data(void);
/* Writer: entries dropped since the last call. */
uint64_t gpi_gemm_take_dropped(void);
/* Writer: converts queued entries into NVTX records. */
void gpi_gemm_drain(struct gpi_conv *cv);
/* Fork child: the parent's queued calls are not the child's; forgets them. */
void gpi_gemm_atfork_child(void);
/* The entry point's name ("cublasGemmEx"). */
const char *gpi_gemm_name(unsigned func);
/*
 * The call's inputs as the Kineto importer writes a CPU operator's
 * (trace/FORMAT.md, nvtx field args): A, B and the output C, then transa,
 * transb and the compute type. Always NUL-terminated; returns the length.
 */
size_t gpi_gemm_signature(const struct gpi_gemm_ev *e, char *buf, size_t size);

#endif /* GPI_INJECT_H */
