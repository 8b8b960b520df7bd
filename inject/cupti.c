/* SPDX-License-Identifier: MIT */
/*
 * cupti.c - CUPTI: loading it, setting it up inside InitializeInjection,
 * its callbacks, and the writer's side of its buffers.
 *
 * libcupti is opened with dlopen (GPUPROF_CUPTI_PATH, else the soname, else
 * the toolkit's usual places), so a missing or refusing CUPTI leaves the
 * program running untraced (fail open). Setup order follows
 * reference/cupti.md: subscribe first; our timestamp callback before any
 * kind is enabled; buffer callbacks; attributes; CONCURRENT_KERNEL first.
 *
 * Callbacks run on application threads or CUPTI's worker: they take no
 * lock, allocate nothing and only hand buffers over (pool.c) or note
 * capture windows. No gpuprof lock is ever held while calling CUPTI.
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <cupti.h>
#include <dlfcn.h>

struct gpi_cupti_fns {
	void *lib;
	CUptiResult (*GetVersion)(uint32_t *);
	CUptiResult (*GetResultString)(CUptiResult, const char **);
	CUptiResult (*Subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
	CUptiResult (*Subscribe_v2)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *,
				    CUpti_SubscriberParams *);
	CUptiResult (*Unsubscribe)(CUpti_SubscriberHandle);
	CUptiResult (*EnableCallback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
				      CUpti_CallbackId);
	CUptiResult (*GetCallbackName)(CUpti_CallbackDomain, uint32_t, const char **);
	CUptiResult (*ActivityRegisterCallbacks)(CUpti_BuffersCallbackRequestFunc,
						 CUpti_BuffersCallbackCompleteFunc);
	CUptiResult (*ActivityRegisterTimestampCallback)(CUpti_TimestampCallbackFunc);
	CUptiResult (*ActivityEnable)(CUpti_ActivityKind);
	CUptiResult (*ActivityDisable)(CUpti_ActivityKind);
	CUptiResult (*ActivityEnableAndDump)(CUpti_ActivityKind);
	CUptiResult (*ActivityEnableDriverApi)(CUpti_CallbackId, uint8_t);
	CUptiResult (*ActivityEnableRuntimeApi)(CUpti_CallbackId, uint8_t);
	CUptiResult (*ActivitySetAttribute)(CUpti_ActivityAttribute, size_t *, void *);
	CUptiResult (*ActivityFlushAll)(uint32_t);
	CUptiResult (*ActivityFlushPeriod)(uint32_t);
	CUptiResult (*ActivityGetNextRecord)(uint8_t *, size_t, CUpti_Activity **);
	CUptiResult (*ActivityGetNumDroppedRecords)(CUcontext, uint32_t, size_t *);
	CUptiResult (*GetTimestamp)(uint64_t *);
	CUptiResult (*SetThreadIdType)(CUpti_ActivityThreadIdType);
	CUptiResult (*ActivityPushExternalCorrelationId)(CUpti_ExternalCorrelationKind, uint64_t);
	CUptiResult (*ActivityPopExternalCorrelationId)(CUpti_ExternalCorrelationKind, uint64_t *);
	CUptiResult (*ActivityEnableCudaEventDeviceTimestamps)(uint8_t);
};

static struct gpi_cupti_fns fns;
struct gpi_cupti_fns *gpi_cupti = &fns;
_Atomic int gpi_cupti_state;
uint32_t gpi_cupti_version;
struct gpi_windows gpi_windows;

static CUpti_SubscriberHandle subscriber;
static _Atomic int setup_once;
static gpi_next_record_fn next_record_override;
static uint32_t enabled_kinds[32];
static unsigned nenabled;

/* ------------------------------------------------------------- loading */

static const char *result_str(CUptiResult r)
{
	const char *s = NULL;

	if (fns.GetResultString && fns.GetResultString(r, &s) == CUPTI_SUCCESS && s) {
		return s;
	}
	return "CUPTI_ERROR";
}

#define SYM(name, required)                                                                        \
	do {                                                                                       \
		*(void **)&fns.name = gpi_dlsym(fns.lib, "cupti" #name);                           \
		if (!fns.name && (required)) {                                                     \
			missing = "cupti" #name;                                                   \
		}                                                                                  \
	} while (0)

static int load_cupti(char *errbuf, size_t errlen)
{
	const char *cands[8];
	unsigned n = 0;
	const char *missing = NULL;
	const char *err = "not found";

	if (gpi_s.cfg.cupti_path[0]) {
		cands[n++] = gpi_s.cfg.cupti_path;
	} else {
		cands[n++] = "libcupti.so.13";
		cands[n++] = "/usr/local/cuda/lib64/libcupti.so.13";
		cands[n++] = "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13";
	}
	for (unsigned i = 0; i < n && !fns.lib; i++) {
		fns.lib = dlopen(cands[i], RTLD_NOW | RTLD_LOCAL);
		if (!fns.lib) {
			const char *e = dlerror();
			if (i == 0 && e) {
				err = e;
			}
		}
	}
	if (!fns.lib) {
		gpi_fmt(errbuf, errlen, "cannot load libcupti.so.13 (%s)", err);
		return -1;
	}
	SYM(GetVersion, false);
	SYM(GetResultString, false);
	SYM(Subscribe, true);
	SYM(Subscribe_v2, false);
	SYM(Unsubscribe, true);
	SYM(EnableCallback, true);
	SYM(GetCallbackName, false);
	SYM(ActivityRegisterCallbacks, true);
	SYM(ActivityRegisterTimestampCallback, false);
	SYM(ActivityEnable, true);
	SYM(ActivityDisable, true);
	SYM(ActivityEnableAndDump, false);
	SYM(ActivityEnableDriverApi, false);
	SYM(ActivityEnableRuntimeApi, false);
	SYM(ActivitySetAttribute, false);
	SYM(ActivityFlushAll, true);
	SYM(ActivityFlushPeriod, false);
	SYM(ActivityGetNextRecord, true);
	SYM(ActivityGetNumDroppedRecords, false);
	SYM(GetTimestamp, false);
	SYM(SetThreadIdType, false);
	SYM(ActivityPushExternalCorrelationId, false);
	SYM(ActivityPopExternalCorrelationId, false);
	SYM(ActivityEnableCudaEventDeviceTimestamps, false);
	if (missing) {
		gpi_fmt(errbuf, errlen, "libcupti lacks %s", missing);
		return -1;
	}
	return 0;
}

/* ----------------------------------------------------------- callbacks */

static uint64_t CUPTIAPI timestamp_cb(void)
{
	return gp_clock_monotonic_ns();
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	int saved = errno;
	int st = atomic_load_explicit(&gpi_s.state, memory_order_acquire);

	*max_records = 0;
	if (st != GPI_RUNNING && st != GPI_STOPPING) {
		*buffer = NULL;
		*size = 0;
	} else {
		*buffer = gpi_pool_get(size);
	}
	errno = saved;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				      size_t valid)
{
	int saved = errno;

	(void)ctx;
	(void)stream;
	(void)size;
	if (buffer && gpi_pool_complete(buffer, valid)) {
		gpi_session_wake();
	}
	errno = saved;
}

void gpi_window_open(uint64_t ts, uint32_t corr)
{
	uint32_t n = atomic_load(&gpi_windows.n);

	if (n && n <= GPI_MAX_WINDOWS && !atomic_load(&gpi_windows.end[n - 1])) {
		return; /* already open */
	}
	if (n >= GPI_MAX_WINDOWS) {
		return;
	}
	atomic_store(&gpi_windows.start[n], ts);
	atomic_store(&gpi_windows.end[n], 0);
	/* calls after the one that opened the window are inside it */
	atomic_store(&gpi_windows.corr_lo[n], corr ? corr + 1 : 0);
	atomic_store(&gpi_windows.corr_hi[n], 0);
	atomic_store(&gpi_windows.exact[n], corr ? GPI_WIN_LO_EXACT : 0);
	atomic_store_explicit(&gpi_windows.n, n + 1, memory_order_release);
	gpi_dbg("capture window %u opens at %llu", n, (unsigned long long)ts);
}

void gpi_window_close(uint64_t ts, uint32_t corr)
{
	uint32_t n = atomic_load(&gpi_windows.n);

	if (!n || n > GPI_MAX_WINDOWS || atomic_load(&gpi_windows.end[n - 1])) {
		return;
	}
	if (corr) {
		atomic_store(&gpi_windows.corr_hi[n - 1], corr - 1);
		atomic_fetch_or(&gpi_windows.exact[n - 1], GPI_WIN_HI_EXACT);
	}
	atomic_store(&gpi_windows.end[n - 1], ts);
	gpi_dbg("capture window %u closes at %llu", n - 1, (unsigned long long)ts);
}

static void CUPTIAPI api_callback(void *userdata, CUpti_CallbackDomain domain,
				  CUpti_CallbackId cbid, const void *data)
{
	const CUpti_CallbackData *cd = data;
	int saved = errno;

	(void)userdata;
	if (atomic_load_explicit(&gpi_cupti_state, memory_order_relaxed) != GPI_CUPTI_ACTIVE) {
		return;
	}
	if (gpi_bt_on) {
		if (cd->callbackSite == CUPTI_API_ENTER) {
			gpi_bt_api_enter((int)domain, cbid, cd->correlationId);
		} else {
			gpi_bt_api_exit((int)domain, cbid);
		}
	}
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
		switch (cbid) {
		case CUPTI_DRIVER_TRACE_CBID_cuProfilerStart:
			if (cd->callbackSite == CUPTI_API_EXIT &&
			    gpi_s.cfg.capture == GPI_CAPTURE_PROFILER_API) {
				gpi_window_open(gpi_now(), cd->correlationId);
			}
			break;
		case CUPTI_DRIVER_TRACE_CBID_cuProfilerStop:
			if (cd->callbackSite == CUPTI_API_ENTER &&
			    gpi_s.cfg.capture == GPI_CAPTURE_PROFILER_API) {
				gpi_window_close(gpi_now(), cd->correlationId);
				gpi_session_wake();
			}
			break;
		case CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy:
		case CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2:
		case CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset:
		case CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2:
		case CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease:
		case CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease_v2:
			/* a context's records leave before it goes (reference/cupti.md 1.3) */
			if (cd->callbackSite == CUPTI_API_ENTER) {
				fns.ActivityFlushAll(0);
			}
			break;
		default:
			break;
		}
	} else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
		   cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020 &&
		   cd->callbackSite == CUPTI_API_ENTER) {
		fns.ActivityFlushAll(0);
	}
	errno = saved;
}

/* ---------------------------------------------------------------- setup */

static void fail_open(const char *why)
{
	gpi_status_add("CUPTI off: %s", why);
	gpi_warn_once("%s: GPU activity is not traced; the program runs normally", why);
	gpi_dbg("cupti: fail open: %s", why);
	atomic_store(&gpi_cupti_state, GPI_CUPTI_FAILED);
}

/* Undoes what a failed setup did, so CUPTI is left as we found it. */
static void undo(void)
{
	for (unsigned i = 0; i < nenabled; i++) {
		fns.ActivityDisable((CUpti_ActivityKind)enabled_kinds[i]);
	}
	nenabled = 0;
	if (subscriber) {
		fns.Unsubscribe(subscriber);
		subscriber = NULL;
	}
}

/* Kinds CUPTI refused, for one status entry. */
static char refused_kinds[256];
static CUptiResult refused_result;

static bool enable_kind(CUpti_ActivityKind kind, const char *name, bool dump)
{
	CUptiResult r;

	if (dump && fns.ActivityEnableAndDump) {
		r = fns.ActivityEnableAndDump(kind);
		if (r == CUPTI_SUCCESS) {
			goto ok;
		}
		gpi_status_add(
			"cuptiActivityEnableAndDump(%s) failed: %s; existing ones not recorded",
			name, result_str(r));
	}
	r = fns.ActivityEnable(kind);
	if (r != CUPTI_SUCCESS) {
		size_t n = strlen(refused_kinds);
		gpi_fmt(refused_kinds + n, sizeof(refused_kinds) - n, "%s%s", n ? "," : "", name);
		refused_result = r;
		gpi_dbg("cupti: enable %s: %s", name, result_str(r));
		return false;
	}
ok:
	if (nenabled < GP_ARRAY_SIZE(enabled_kinds)) {
		enabled_kinds[nenabled++] = kind;
	}
	return true;
}

static void set_attr(CUpti_ActivityAttribute attr, const char *name, size_t size, void *value)
{
	CUptiResult r;

	if (!fns.ActivitySetAttribute) {
		return;
	}
	r = fns.ActivitySetAttribute(attr, &size, value);
	if (r != CUPTI_SUCCESS) {
		gpi_status_add("cuptiActivitySetAttribute(%s) failed: %s", name, result_str(r));
	}
}

/* cbids whose records cost more than they tell (as Kineto and nsys do) */
static const CUpti_CallbackId noisy_runtime[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
};
static const CUpti_CallbackId noisy_driver[] = {
	CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
	CUPTI_DRIVER_TRACE_CBID_cuCtxSetCurrent,
	CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,
	CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState,
	CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute,
	CUPTI_DRIVER_TRACE_CBID_cuFuncGetAttribute,
	CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,
	CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,
	CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,
};

static void measure_offset(void)
{
	/* CUPTI keeps its own clock: express ours in it. */
	int64_t best = 0;
	uint64_t spread = UINT64_MAX;

	for (int i = 0; i < 5 && fns.GetTimestamp; i++) {
		uint64_t a = gp_clock_monotonic_ns(), c = 0;
		fns.GetTimestamp(&c);
		uint64_t b = gp_clock_monotonic_ns();
		if (c && b - a < spread) {
			spread = b - a;
			best = (int64_t)(c - (a + (b - a) / 2));
		}
	}
	atomic_store(&gpi_clock_offset, best);
}

/*
 * Subscribes to CUPTI, which tells whether another tool holds it; false
 * with the reason in errbuf when that or the call fails.
 */
static bool subscribe(char *errbuf, size_t errlen)
{
	CUptiResult r;

	if (fns.Subscribe_v2) {
		char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = "";
		CUpti_SubscriberParams p = {
			.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
			.subscriberName = "gpuprof",
			.oldSubscriberName = old,
			.oldSubscriberSize = sizeof(old),
		};
		r = fns.Subscribe_v2(&subscriber, (CUpti_CallbackFunc)api_callback, NULL, &p);
		if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
			gpi_fmt(errbuf, errlen, "CUPTI is already in use by %s (%s)",
				old[0] ? old : "another profiler", result_str(r));
			subscriber = NULL;
			return false;
		}
	} else {
		r = fns.Subscribe(&subscriber, (CUpti_CallbackFunc)api_callback, NULL);
	}
	if (r != CUPTI_SUCCESS) {
		subscriber = NULL;
		if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
			gpi_fmt(errbuf, errlen, "CUPTI is already in use by another profiler (%s)",
				result_str(r));
		} else {
			gpi_fmt(errbuf, errlen, "cuptiSubscribe failed (%s)", result_str(r));
		}
		return false;
	}
	return true;
}

/* Our clock in CUPTI's records, else the offset of CUPTI's own; before any kind is enabled. */
static void use_our_clock(void)
{
	CUptiResult r = fns.ActivityRegisterTimestampCallback
				? fns.ActivityRegisterTimestampCallback(timestamp_cb)
				: CUPTI_ERROR_NOT_SUPPORTED;

	if (r != CUPTI_SUCCESS) {
		gpi_status_add(
			"cuptiActivityRegisterTimestampCallback failed: %s; CUPTI's clock used",
			result_str(r));
		measure_offset();
	}
}

/* Thread ids that match gettid() (NVTX, /proc). */
static void use_system_thread_ids(void)
{
	CUptiResult r;

	if (fns.SetThreadIdType) {
		r = fns.SetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
		if (r != CUPTI_SUCCESS) {
			gpi_status_add("cuptiSetThreadIdType failed: %s", result_str(r));
		}
	}
}

/*
 * Global (not per-thread) buffers from our pool, zeroed by the writer;
 * false with the reason in errbuf when CUPTI refuses the buffer callbacks.
 */
static bool use_our_buffers(char *errbuf, size_t errlen)
{
	uint8_t zero = 1, per_thread = 0;
	CUptiResult r;

	set_attr(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, "PER_THREAD_ACTIVITY_BUFFER",
		 sizeof(per_thread), &per_thread);
	set_attr(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, "ZEROED_OUT_ACTIVITY_BUFFER",
		 sizeof(zero), &zero);
	r = fns.ActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (r != CUPTI_SUCCESS) {
		gpi_fmt(errbuf, errlen, "cuptiActivityRegisterCallbacks failed (%s)", result_str(r));
		return false;
	}
	return true;
}

/* Callbacks: capture control and flushing before contexts go away. */
static void enable_control_callbacks(const struct gpi_config *c)
{
	static const struct {
		CUpti_CallbackDomain dom;
		CUpti_CallbackId cbid;
	} cbs[] = {
		{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart},
		{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop},
		{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy},
		{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2},
		{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset},
		{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2},
		{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease},
		{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease_v2},
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020},
	};
	CUptiResult r;

	for (size_t i = 0; i < GP_ARRAY_SIZE(cbs); i++) {
		r = fns.EnableCallback(1, subscriber, cbs[i].dom, cbs[i].cbid);
		if (r != CUPTI_SUCCESS) {
			gpi_status_add("cuptiEnableCallback(%u) failed: %s", (unsigned)cbs[i].cbid,
				       result_str(r));
			if (i < 2 && c->capture == GPI_CAPTURE_PROFILER_API) {
				gpi_status_add("cudaProfilerStart/Stop capture cannot work");
			}
			break;
		}
	}
}

/* Call stacks at launch, memcpy and memset calls (GPUPROF_BACKTRACE). */
static void enable_backtrace_callbacks(void)
{
	static const struct {
		CUpti_CallbackDomain dom;
		uint32_t n;
	} doms[] = {{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE},
		    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE}};
	unsigned on = 0;

	for (size_t d = 0; d < GP_ARRAY_SIZE(doms); d++) {
		for (uint32_t cb = 1; cb < doms[d].n; cb++) {
			const char *name = NULL;
			if (fns.GetCallbackName(doms[d].dom, cb, &name) != CUPTI_SUCCESS ||
			    !gpi_bt_wants((int)doms[d].dom, cb, name)) {
				continue;
			}
			if (fns.EnableCallback(1, subscriber, doms[d].dom, cb) == CUPTI_SUCCESS) {
				on++;
			}
		}
	}
	gpi_dbg("backtrace: callbacks on %u API calls", on);
	if (!on) {
		gpi_status_add("backtrace: no launch API callback could be enabled");
	}
}

/*
 * The activity kinds asked for; CONCURRENT_KERNEL first (reference/cupti.md
 * 7.4). False with the reason in errbuf when CUPTI refuses every one.
 */
static bool enable_kinds(const struct gpi_config *c, char *errbuf, size_t errlen)
{
	static const struct {
		uint32_t bit;
		CUpti_ActivityKind kind;
		const char *name;
	} K[] = {
		{GPI_K_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"},
		{GPI_K_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"},
		{GPI_K_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2"},
		{GPI_K_MEMSET, CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET"},
		{GPI_K_RUNTIME, CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME"},
		{GPI_K_DRIVER, CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER"},
		{GPI_K_SYNC, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION"},
		{GPI_K_SYNC, CUPTI_ACTIVITY_KIND_CUDA_EVENT, "CUDA_EVENT"},
		{GPI_K_EXTCORR, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION"},
		{GPI_K_OVERHEAD, CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD"},
		{GPI_K_MEMORY, CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2"},
		{GPI_K_MEMORY, CUPTI_ACTIVITY_KIND_MEMORY_POOL, "MEMORY_POOL"},
	};
	unsigned kinds_ok = 0, kinds_wanted = 0;

	/* event records carry the time the event completed on the device (optional) */
	if ((c->kinds & GPI_K_SYNC) && fns.ActivityEnableCudaEventDeviceTimestamps) {
		(void)fns.ActivityEnableCudaEventDeviceTimestamps(1);
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(K); i++) {
		if (c->kinds & K[i].bit) {
			kinds_wanted++;
			kinds_ok += enable_kind(K[i].kind, K[i].name, false);
		}
	}
	if (kinds_wanted && !kinds_ok) {
		gpi_fmt(errbuf, errlen, "CUPTI refused every activity kind (%s)",
			result_str(refused_result));
		return false;
	}
	return true;
}

/* Enabling a whole API kind overrides earlier per-cbid settings: this filters after. */
static void filter_noisy_calls(const struct gpi_config *c)
{
	CUptiResult r;

	if ((c->kinds & GPI_K_RUNTIME) && fns.ActivityEnableRuntimeApi) {
		for (size_t i = 0; i < GP_ARRAY_SIZE(noisy_runtime); i++) {
			r = fns.ActivityEnableRuntimeApi(noisy_runtime[i], 0);
			if (r != CUPTI_SUCCESS) {
				gpi_status_add("cuptiActivityEnableRuntimeApi failed: %s",
					       result_str(r));
				break;
			}
		}
	}
	if ((c->kinds & GPI_K_DRIVER) && fns.ActivityEnableDriverApi) {
		for (size_t i = 0; i < GP_ARRAY_SIZE(noisy_driver); i++) {
			r = fns.ActivityEnableDriverApi(noisy_driver[i], 0);
			if (r != CUPTI_SUCCESS) {
				gpi_status_add("cuptiActivityEnableDriverApi failed: %s",
					       result_str(r));
				break;
			}
		}
	}
}

/* Metadata kinds, the flush period; then tracing is on. */
static void finish_setup(const struct gpi_config *c)
{
	CUptiResult r;

	/* Metadata: records for what exists already, then for what comes. */
	enable_kind(CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE", true);
	enable_kind(CUPTI_ACTIVITY_KIND_CONTEXT, "CONTEXT", true);
	enable_kind(CUPTI_ACTIVITY_KIND_STREAM, "STREAM", true);

	if (refused_kinds[0]) {
		gpi_status_add("cuptiActivityEnable failed (%s): %s not traced",
			       result_str(refused_result), refused_kinds);
	}
	if (fns.ActivityFlushPeriod) {
		r = fns.ActivityFlushPeriod(c->flush_ms);
		if (r != CUPTI_SUCCESS) {
			gpi_status_add("cuptiActivityFlushPeriod failed: %s", result_str(r));
		}
	}
	atomic_store(&gpi_cupti_state, GPI_CUPTI_ACTIVE);
	gpi_dbg("cupti: active, %u kinds", nenabled);
	gpi_session_wake();
}

void gpi_cupti_setup(void)
{
	const struct gpi_config *c = &gpi_s.cfg;
	char why[512];
	CUptiResult r;

	if (atomic_exchange(&setup_once, 1)) {
		return; /* the driver may call InitializeInjection more than once */
	}
	if (!(c->kinds & (GPI_K_ALL & ~GPI_K_NVTX))) {
		gpi_dbg("cupti: no CUDA kinds requested");
		return;
	}
	if (load_cupti(why, sizeof(why))) {
		fail_open(why);
		return;
	}
	if (fns.GetVersion && (r = fns.GetVersion(&gpi_cupti_version)) != CUPTI_SUCCESS) {
		gpi_cupti_version = 0;
		gpi_status_add("cuptiGetVersion failed: %s", result_str(r));
	}
	gpi_dbg("cupti: version %u", gpi_cupti_version);

	/* The order of reference/cupti.md: subscribe, clock, thread ids, buffers, callbacks, kinds. */
	if (!subscribe(why, sizeof(why))) {
		fail_open(why);
		return;
	}
	use_our_clock();
	use_system_thread_ids();
	if (!use_our_buffers(why, sizeof(why))) {
		undo();
		fail_open(why);
		return;
	}
	enable_control_callbacks(c);
	if (c->backtrace && fns.GetCallbackName && gpi_bt_init(c)) {
		enable_backtrace_callbacks();
	}
	if (!enable_kinds(c, why, sizeof(why))) {
		undo();
		fail_open(why);
		return;
	}
	filter_noisy_calls(c);
	finish_setup(c);
}

/* ---------------------------------------------------------------- writer */

/* Writer-side failures go into the status once each. */
static bool flush_failed, dropped_failed, names_failed;

void gpi_cupti_flush(bool forced)
{
	CUptiResult r;

	if (atomic_load(&gpi_cupti_state) != GPI_CUPTI_ACTIVE) {
		return;
	}
	r = fns.ActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
	if (r != CUPTI_SUCCESS && !flush_failed) {
		flush_failed = true;
		gpi_status_add("cuptiActivityFlushAll failed: %s", result_str(r));
	}
}

uint64_t gpi_cupti_take_dropped(void)
{
	size_t n = 0;

	if (atomic_load(&gpi_cupti_state) != GPI_CUPTI_ACTIVE ||
	    !fns.ActivityGetNumDroppedRecords) {
		return 0;
	}
	CUptiResult r = fns.ActivityGetNumDroppedRecords(NULL, 0, &n);
	if (r != CUPTI_SUCCESS) {
		if (!dropped_failed) {
			dropped_failed = true;
			gpi_status_add("cuptiActivityGetNumDroppedRecords failed: %s; CUPTI's "
				       "drops unknown",
				       result_str(r));
		}
		return 0;
	}
	return n;
}

const char *gpi_cupti_callback_name(int domain, uint32_t cbid, char *buf, size_t size)
{
	const char *name = NULL;
	size_t len;

	if (!fns.GetCallbackName || atomic_load(&gpi_cupti_state) == GPI_CUPTI_INACTIVE) {
		return NULL;
	}
	CUptiResult r = fns.GetCallbackName((CUpti_CallbackDomain)domain, cbid, &name);
	if (r != CUPTI_SUCCESS || !name) {
		if (r != CUPTI_ERROR_INVALID_PARAMETER && !names_failed) {
			names_failed = true;
			gpi_status_add("cuptiGetCallbackName failed: %s; API calls named by id",
				       result_str(r));
		}
		return NULL;
	}
	len = strlen(name);
	/* "cudaLaunchKernel_v7000" -> "cudaLaunchKernel" */
	size_t i = len;
	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') {
		i--;
	}
	if (i < len && i >= 3 && name[i - 1] == 'v' && name[i - 2] == '_') {
		len = i - 2;
	}
	if (len >= size) {
		len = size - 1;
	}
	memcpy(buf, name, len);
	buf[len] = '\0';
	return buf;
}

void gpi_cupti_forget(void)
{
	if (atomic_load(&gpi_cupti_state) == GPI_CUPTI_ACTIVE) {
		atomic_store(&gpi_cupti_state, GPI_CUPTI_INACTIVE);
	}
}

void gpi_cupti_set_next_record(gpi_next_record_fn fn)
{
	next_record_override = fn;
}

void gpi_conv_cupti_buffer(struct gpi_conv *cv, uint8_t *buf, size_t valid)
{
	void *rec = NULL;

	for (;;) {
		int r;
		if (next_record_override) {
			r = next_record_override(buf, valid, &rec);
		} else if (fns.ActivityGetNextRecord) {
			r = fns.ActivityGetNextRecord(buf, valid, (CUpti_Activity **)&rec);
		} else {
			return;
		}
		if (r == CUPTI_SUCCESS) {
			gpi_conv_cupti_record(cv, rec);
		} else {
			if (r != CUPTI_ERROR_MAX_LIMIT_REACHED) {
				gpi_dbg("cupti: buffer ends with %d", r);
			}
			return;
		}
	}
}

/* NCCL operations tie to their launches through CUSTOM2 external ids (docs/comm.md). */
bool gpi_nccl_extcorr_push(uint64_t id)
{
	return atomic_load_explicit(&gpi_cupti_state, memory_order_relaxed) == GPI_CUPTI_ACTIVE &&
	       fns.ActivityPushExternalCorrelationId && fns.ActivityPopExternalCorrelationId &&
	       fns.ActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, id) ==
		       CUPTI_SUCCESS;
}

void gpi_nccl_extcorr_pop(bool pushed)
{
	uint64_t id;

	if (pushed) {
		fns.ActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &id);
	}
}
