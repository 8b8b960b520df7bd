/* SPDX-License-Identifier: MIT */
/*
 * fake-cupti.c - a fake libcupti.so.13 for testing the injection library
 * without a GPU (reference/cupti.md section 8.1).
 *
 * Built against the real CUPTI headers, with the real library's soname and
 * symbol version node. It implements the calls the injection library makes:
 * subscription and callbacks, activity kinds and per-cbid filters, the
 * buffer callbacks (records are stored in the client's buffers exactly as
 * CUPTI lays them out, 8-byte aligned, walked with cuptiActivityGetNextRecord),
 * a worker thread that delivers completed buffers every flush period, forced
 * and unforced flushes, dropped-record counts, the timestamp callback,
 * attributes and thread id types.
 *
 * Behaviour for tests, from the environment:
 *   FAKECUPTI_FAIL=NAME[:CODE]  the call NAME returns CODE (default 999)
 *   FAKECUPTI_HOLDER=NAME       another profiler holds CUPTI: subscribing
 *                               fails with MULTIPLE_SUBSCRIBERS (NAME reported)
 *   FAKECUPTI_LOG=PATH          append the name of every CUPTI call to PATH
 *   FAKECUPTI_SHUFFLE=SEED      deliver completed buffers in random order
 *   FAKECUPTI_VERSION=N         what cuptiGetVersion reports
 */
#include "tests/fakecuda/fake.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_CBID 2048
#define MAX_QUEUE 4096

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static bool subscribed;
static CUpti_CallbackFunc sub_fn;
static void *sub_data;
static uint8_t cb_on[8][MAX_CBID];
static uint8_t kind_on[CUPTI_ACTIVITY_KIND_COUNT + 8];
static uint8_t api_off[3][MAX_CBID]; /* [domain][cbid]: per-cbid activity filter */
static CUpti_BuffersCallbackRequestFunc buf_req;
static CUpti_BuffersCallbackCompleteFunc buf_done;
static CUpti_TimestampCallbackFunc ts_fn;
static uint8_t per_thread = 1;
static uint32_t flush_period_ms;
static uint64_t dropped;
static uint32_t next_corr = 1;
static CUpti_ActivityThreadIdType tid_type;

struct buf {
	uint8_t *mem;
	size_t size, used;
};
static struct buf global_cur;
static __thread struct buf tls_cur;
static struct buf *thread_bufs[1024]; /* per-thread current buffers, for flushes */
static int nthread_bufs;

static struct buf queue[MAX_QUEUE];
static int nqueue;
static pthread_t worker;
static bool worker_started;
static unsigned shuffle_seed;

/* ------------------------------------------------------- test controls */

static void log_call(const char *name)
{
	const char *path = getenv("FAKECUPTI_LOG");
	if (path) {
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			char line[128];
			int n = snprintf(line, sizeof(line), "%s\n", name);
			if (write(fd, line, (size_t)n) < 0) {
				/* nothing to do */
			}
			close(fd);
		}
	}
}

/* The configured failure for this call, or CUPTI_SUCCESS. */
static CUptiResult fail(const char *name)
{
	const char *f = getenv("FAKECUPTI_FAIL");
	size_t n = strlen(name);

	log_call(name);
	if (f && !strncmp(f, name, n) && (f[n] == '\0' || f[n] == ':')) {
		return (CUptiResult)(f[n] == ':' ? atoi(f + n + 1) : CUPTI_ERROR_UNKNOWN);
	}
	return CUPTI_SUCCESS;
}
#define FAIL(name)                                                                                 \
	do {                                                                                       \
		CUptiResult r_ = fail(name);                                                       \
		if (r_ != CUPTI_SUCCESS) {                                                         \
			return r_;                                                                 \
		}                                                                                  \
	} while (0)

static size_t record_size(CUpti_ActivityKind k)
{
	switch (k) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		return sizeof(CUpti_ActivityMemcpyPtoP4);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return sizeof(CUpti_ActivityMemset4);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER:
		return sizeof(CUpti_ActivityAPI);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return sizeof(CUpti_ActivitySynchronization2);
	case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
		return sizeof(CUpti_ActivityCudaEvent2);
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
		return sizeof(CUpti_ActivityExternalCorrelation);
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		return sizeof(CUpti_ActivityOverhead3);
	case CUPTI_ACTIVITY_KIND_DEVICE:
		return sizeof(CUpti_ActivityDevice5);
	case CUPTI_ACTIVITY_KIND_CONTEXT:
		return sizeof(CUpti_ActivityContext3);
	case CUPTI_ACTIVITY_KIND_STREAM:
		return sizeof(CUpti_ActivityStream);
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		return sizeof(CUpti_ActivityMemory4);
	case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
		return sizeof(CUpti_ActivityMemoryPool3);
	default:
		return 0;
	}
}

/* ------------------------------------------------------------- buffers */

/* Queues a buffer for delivery; mu held. */
static void complete_locked(struct buf *b)
{
	if (!b->mem) {
		return;
	}
	if (nqueue < MAX_QUEUE) {
		queue[nqueue++] = *b;
	}
	b->mem = NULL;
	b->size = b->used = 0;
	pthread_cond_signal(&cv);
}

/* Delivers queued buffers on the calling thread; takes and drops mu. */
static void deliver_queue(void)
{
	struct buf local[MAX_QUEUE];
	int n;

	pthread_mutex_lock(&mu);
	n = nqueue;
	memcpy(local, queue, sizeof(queue[0]) * (size_t)n);
	nqueue = 0;
	pthread_mutex_unlock(&mu);
	if (shuffle_seed) {
		for (int i = n - 1; i > 0; i--) {
			int j = (int)(rand_r(&shuffle_seed) % (unsigned)(i + 1));
			struct buf t = local[i];
			local[i] = local[j];
			local[j] = t;
		}
	}
	for (int i = 0; i < n; i++) {
		if (buf_done) {
			buf_done(NULL, 0, local[i].mem, local[i].size, local[i].used);
		}
	}
}

static void *worker_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint32_t ms = flush_period_ms ? flush_period_ms : 50;
		ts.tv_nsec += (long)(ms % 1000) * 1000000L;
		ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&cv, &mu, &ts);
		if (nqueue) {
			pthread_mutex_unlock(&mu);
			deliver_queue();
			pthread_mutex_lock(&mu);
		}
	}
	return NULL;
}

static void start_worker_locked(void)
{
	if (!worker_started) {
		pthread_attr_t a;
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		worker_started = pthread_create(&worker, &a, worker_main, NULL) == 0;
		pthread_attr_destroy(&a);
	}
}

static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

/* A thread with a per-thread buffer ends: its buffer is complete. */
static void thread_gone(void *arg)
{
	struct buf *b = arg;

	pthread_mutex_lock(&mu);
	complete_locked(b);
	for (int i = 0; i < nthread_bufs; i++) {
		if (thread_bufs[i] == b) {
			thread_bufs[i] = thread_bufs[--nthread_bufs];
			break;
		}
	}
	pthread_mutex_unlock(&mu);
}

static void make_key(void)
{
	pthread_key_create(&tls_key, thread_gone);
}

static struct buf *current_locked(void)
{
	if (!per_thread) {
		return &global_cur;
	}
	pthread_once(&tls_once, make_key);
	if (!pthread_getspecific(tls_key) && nthread_bufs < 1024) {
		pthread_setspecific(tls_key, &tls_cur);
		thread_bufs[nthread_bufs++] = &tls_cur;
	}
	return &tls_cur;
}

/* Stores one record; mu held. 1 stored, -1 dropped. */
static int store_locked(const void *rec, size_t size)
{
	struct buf *b = current_locked();

	if (b->mem && b->used + size > b->size) {
		complete_locked(b);
	}
	if (!b->mem) {
		uint8_t *mem = NULL;
		size_t bsize = 0, maxrec = 0;
		if (buf_req) {
			/* CUPTI calls the request callback without its own locks held */
			pthread_mutex_unlock(&mu);
			buf_req(&mem, &bsize, &maxrec);
			pthread_mutex_lock(&mu);
		}
		if (!mem || bsize < size) {
			dropped++;
			return -1;
		}
		if (b->mem) {
			/* another thread filled the slot meanwhile (global buffer): complete it */
			complete_locked(b);
		}
		b->mem = mem;
		b->size = bsize;
		b->used = 0;
		start_worker_locked();
	}
	memcpy(b->mem + b->used, rec, size);
	b->used += (size + 7) & ~(size_t)7;
	if (b->used > b->size) {
		b->used = b->size;
	}
	return 1;
}

/* ----------------------------------------------------- the driver side */

static uint64_t now_ns(void)
{
	struct timespec ts;

	if (ts_fn) {
		return ts_fn();
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void callback(int domain, uint32_t cbid, const char *name, uint32_t corr, int site)
{
	CUpti_CallbackFunc fn;
	void *data;

	pthread_mutex_lock(&mu);
	fn = subscribed && domain < 8 && cbid < MAX_CBID && cb_on[domain][cbid] ? sub_fn : NULL;
	data = sub_data;
	pthread_mutex_unlock(&mu);
	if (fn) {
		uint64_t corr_data = 0;
		CUpti_CallbackData cd = {
			.callbackSite = (CUpti_ApiCallbackSite)site,
			.functionName = name,
			.correlationData = &corr_data,
			.correlationId = corr,
		};
		fn(data, (CUpti_CallbackDomain)domain, cbid, &cd);
	}
}

/*
 * External correlation ids pushed on this thread, per kind: as CUPTI does,
 * each API call made while one is pushed gets an EXTERNAL_CORRELATION
 * record tying the innermost id of each kind to the call's correlation.
 */
#define EXT_KINDS 8
#define EXT_DEPTH 32
static __thread uint64_t ext_stack[EXT_KINDS][EXT_DEPTH];
static __thread int ext_n[EXT_KINDS];

static int h_emit(const void *rec, size_t size);

static uint32_t h_api_enter(int domain, uint32_t cbid, const char *name)
{
	uint32_t corr;

	pthread_mutex_lock(&mu);
	corr = next_corr++;
	pthread_mutex_unlock(&mu);
	for (int k = 0; k < EXT_KINDS; k++) {
		if (ext_n[k]) {
			CUpti_ActivityExternalCorrelation x = {
				.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
				.externalKind = (CUpti_ExternalCorrelationKind)k,
				.externalId = ext_stack[k][ext_n[k] - 1],
				.correlationId = corr,
			};
			h_emit(&x, sizeof(x));
		}
	}
	callback(domain, cbid, name, corr, CUPTI_API_ENTER);
	return corr;
}

static void h_api_exit(int domain, uint32_t cbid, const char *name, uint32_t corr)
{
	callback(domain, cbid, name, corr, CUPTI_API_EXIT);
}

static int h_emit(const void *rec, size_t size)
{
	const CUpti_Activity *a = rec;
	int ret;

	pthread_mutex_lock(&mu);
	if ((unsigned)a->kind >= sizeof(kind_on) || !kind_on[a->kind]) {
		pthread_mutex_unlock(&mu);
		return 0;
	}
	if (a->kind == CUPTI_ACTIVITY_KIND_RUNTIME || a->kind == CUPTI_ACTIVITY_KIND_DRIVER) {
		const CUpti_ActivityAPI *api = rec;
		int d = a->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? 2 : 1;
		if (api->cbid < MAX_CBID && api_off[d][api->cbid]) {
			pthread_mutex_unlock(&mu);
			return 0;
		}
	}
	ret = store_locked(rec, size);
	pthread_mutex_unlock(&mu);
	return ret;
}

static void h_drop(uint64_t n)
{
	pthread_mutex_lock(&mu);
	dropped += n;
	pthread_mutex_unlock(&mu);
}

/* Completes every buffer being filled; mu held. */
static void complete_all_locked(void)
{
	complete_locked(&global_cur);
	for (int i = 0; i < nthread_bufs; i++) {
		complete_locked(thread_bufs[i]);
	}
}

static void h_deliver(void)
{
	pthread_mutex_lock(&mu);
	complete_all_locked();
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

static int h_kind_enabled(int kind)
{
	return kind >= 0 && (unsigned)kind < sizeof(kind_on) && kind_on[kind];
}

EXPORT const struct fakecupti_hooks fakecupti_hooks = {
	.kind_enabled = h_kind_enabled,
	.version = 1,
	.api_enter = h_api_enter,
	.api_exit = h_api_exit,
	.emit = h_emit,
	.timestamp = now_ns,
	.drop = h_drop,
	.deliver = h_deliver,
};

/* ------------------------------------------------------------ the API */

EXPORT CUptiResult cuptiGetVersion(uint32_t *version)
{
	const char *v = getenv("FAKECUPTI_VERSION");
	FAIL("cuptiGetVersion");
	*version = v ? (uint32_t)atoi(v) : CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetResultString(CUptiResult result, const char **str)
{
	switch ((int)result) {
	case CUPTI_SUCCESS:
		*str = "CUPTI_SUCCESS";
		break;
	case CUPTI_ERROR_INVALID_PARAMETER:
		*str = "CUPTI_ERROR_INVALID_PARAMETER";
		break;
	case CUPTI_ERROR_NOT_INITIALIZED:
		*str = "CUPTI_ERROR_NOT_INITIALIZED";
		break;
	case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
		*str = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
		break;
	case CUPTI_ERROR_NOT_SUPPORTED:
		*str = "CUPTI_ERROR_NOT_SUPPORTED";
		break;
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
		*str = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
		break;
	default:
		*str = "CUPTI_ERROR_UNKNOWN";
		break;
	}
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetLastError(void)
{
	return CUPTI_SUCCESS;
}

static CUptiResult subscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc fn, void *data,
			     CUpti_SubscriberParams *p)
{
	const char *holder = getenv("FAKECUPTI_HOLDER");

	if (holder && *holder) {
		if (p && p->oldSubscriberName && p->oldSubscriberSize) {
			snprintf(p->oldSubscriberName, p->oldSubscriberSize, "%s", holder);
		}
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	}
	pthread_mutex_lock(&mu);
	if (subscribed) {
		pthread_mutex_unlock(&mu);
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	}
	subscribed = true;
	sub_fn = fn;
	sub_data = data;
	*s = (CUpti_SubscriberHandle)&subscribed;
	pthread_mutex_unlock(&mu);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc fn, void *data)
{
	FAIL("cuptiSubscribe");
	return subscribe(s, fn, data, NULL);
}

EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *s, CUpti_CallbackFunc fn, void *data,
				     CUpti_SubscriberParams *p)
{
	FAIL("cuptiSubscribe");
	return subscribe(s, fn, data, p);
}

EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle s)
{
	FAIL("cuptiUnsubscribe");
	pthread_mutex_lock(&mu);
	if (s == (CUpti_SubscriberHandle)&subscribed) {
		subscribed = false;
		memset(cb_on, 0, sizeof(cb_on));
	}
	pthread_mutex_unlock(&mu);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle s,
				       CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	FAIL("cuptiEnableCallback");
	if (!subscribed || s != (CUpti_SubscriberHandle)&subscribed || domain >= 8 ||
	    cbid >= MAX_CBID) {
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	cb_on[domain][cbid] = enable ? 1 : 0;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle s,
				     CUpti_CallbackDomain domain)
{
	FAIL("cuptiEnableDomain");
	if (!subscribed || s != (CUpti_SubscriberHandle)&subscribed || domain >= 8) {
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	memset(cb_on[domain], enable ? 1 : 0, MAX_CBID);
	return CUPTI_SUCCESS;
}

/* Names as the real library gives them (with the _vNNNN suffix of runtime calls). */
static const struct {
	int domain;
	uint32_t cbid;
	const char *name;
} names[] = {
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel_v7000"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy_v3020"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync_v3020"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000, "cudaMemcpyPeerAsync_v4000"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, "cudaMemsetAsync_v3020"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize_v3020"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize_v3020"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, "cudaEventSynchronize_v3020"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, "cudaStreamWaitEvent_v3020"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, "cudaEventRecord_v3020"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, "cudaGraphLaunch_v10000"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, "cudaProfilerStart_v4000"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000, "cudaProfilerStop_v4000"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, "cudaGetDevice_v3020"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc_v3020"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, "cudaFree_v3020"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaMemPoolCreate_v11020, "cudaMemPoolCreate_v11020"},
	{2, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020, "cudaDeviceReset_v3020"},
	{1, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel"},
	{1, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, "cuProfilerStart"},
	{1, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop, "cuProfilerStop"},
	{1, CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent, "cuCtxGetCurrent"},
	{1, CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2, "cuCtxDestroy_v2"},
};

EXPORT CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
					const char **name)
{
	FAIL("cuptiGetCallbackName");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].domain == (int)domain && names[i].cbid == cbid) {
			*name = names[i].name;
			return CUPTI_SUCCESS;
		}
	}
	return CUPTI_ERROR_INVALID_PARAMETER;
}

EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
						  CUpti_BuffersCallbackCompleteFunc done)
{
	FAIL("cuptiActivityRegisterCallbacks");
	if (!req || !done) {
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	pthread_mutex_lock(&mu);
	buf_req = req;
	buf_done = done;
	const char *s = getenv("FAKECUPTI_SHUFFLE");
	shuffle_seed = s ? (unsigned)atoi(s) : 0;
	pthread_mutex_unlock(&mu);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc fn)
{
	FAIL("cuptiActivityRegisterTimestampCallback");
	ts_fn = fn;
	return CUPTI_SUCCESS;
}

/* Names handed out in DEVICE records; the client frees them, if it ever gets them. */
static const char *device_names[64];
static int ndevice_names;

static void dump_devices(void)
{
	int n = fake_ndevices();
	for (int i = 0; i < n; i++) {
		CUpti_ActivityDevice5 d;
		fake_device_fill(i, &d);
		if (ndevice_names < 64) {
			device_names[ndevice_names++] = d.name;
		}
		pthread_mutex_lock(&mu);
		if (store_locked(&d, sizeof(d)) < 0) {
			free((void *)d.name);
		}
		pthread_mutex_unlock(&mu);
	}
}

EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
	FAIL("cuptiActivityEnable");
	if ((unsigned)kind >= sizeof(kind_on) || !record_size(kind)) {
		return CUPTI_ERROR_NOT_SUPPORTED;
	}
	pthread_mutex_lock(&mu);
	kind_on[kind] = 1;
	if (kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
		memset(api_off[2], 0, MAX_CBID);
	} else if (kind == CUPTI_ACTIVITY_KIND_DRIVER) {
		memset(api_off[1], 0, MAX_CBID);
	}
	pthread_mutex_unlock(&mu);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnableAndDump(CUpti_ActivityKind kind)
{
	FAIL("cuptiActivityEnableAndDump");
	CUptiResult r = cuptiActivityEnable(kind);
	if (r == CUPTI_SUCCESS && kind == CUPTI_ACTIVITY_KIND_DEVICE) {
		dump_devices();
	}
	return r;
}

EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind)
{
	FAIL("cuptiActivityDisable");
	if ((unsigned)kind < sizeof(kind_on)) {
		kind_on[kind] = 0;
	}
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnableContext(CUcontext ctx, CUpti_ActivityKind kind)
{
	(void)ctx;
	return cuptiActivityEnable(kind);
}

EXPORT CUptiResult cuptiActivityDisableContext(CUcontext ctx, CUpti_ActivityKind kind)
{
	(void)ctx;
	return cuptiActivityDisable(kind);
}

EXPORT CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable)
{
	FAIL("cuptiActivityEnableRuntimeApi");
	if (cbid >= MAX_CBID) {
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	api_off[2][cbid] = !enable;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable)
{
	FAIL("cuptiActivityEnableDriverApi");
	if (cbid >= MAX_CBID) {
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	api_off[1][cbid] = !enable;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute attr, size_t *size,
					     void *value)
{
	FAIL("cuptiActivitySetAttribute");
	if (attr == CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER && *size >= 1) {
		per_thread = *(uint8_t *)value;
	}
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityGetAttribute(CUpti_ActivityAttribute attr, size_t *size,
					     void *value)
{
	FAIL("cuptiActivityGetAttribute");
	if (attr == CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER && *size >= 1) {
		*(uint8_t *)value = per_thread;
	}
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	FAIL("cuptiActivityFlushAll");
	(void)flag;
	/* Both flavours return the buffers being filled: the fake's records are all complete. */
	pthread_mutex_lock(&mu);
	complete_all_locked();
	pthread_mutex_unlock(&mu);
	deliver_queue();
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityFlushPeriod(uint32_t ms)
{
	FAIL("cuptiActivityFlushPeriod");
	flush_period_ms = ms;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid,
					      CUpti_Activity **record)
{
	size_t off;

	if (!*record) {
		off = 0;
	} else {
		size_t sz = record_size((*record)->kind);
		if (!sz) {
			return CUPTI_ERROR_INVALID_KIND;
		}
		off = (size_t)((uint8_t *)*record - buffer) + ((sz + 7) & ~(size_t)7);
	}
	if (off + sizeof(CUpti_Activity) > valid) {
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	}
	CUpti_Activity *a = (CUpti_Activity *)(buffer + off);
	size_t sz = record_size(a->kind);
	if (!sz || off + sz > valid) {
		return a->kind == CUPTI_ACTIVITY_KIND_INVALID ? CUPTI_ERROR_MAX_LIMIT_REACHED
							      : CUPTI_ERROR_INVALID_KIND;
	}
	*record = a;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext ctx, uint32_t stream, size_t *n)
{
	FAIL("cuptiActivityGetNumDroppedRecords");
	(void)ctx;
	(void)stream;
	pthread_mutex_lock(&mu);
	*n = (size_t)dropped;
	dropped = 0;
	pthread_mutex_unlock(&mu);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetTimestamp(uint64_t *ts)
{
	FAIL("cuptiGetTimestamp");
	*ts = now_ns();
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType type)
{
	FAIL("cuptiSetThreadIdType");
	tid_type = type;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetThreadIdType(CUpti_ActivityThreadIdType *type)
{
	*type = tid_type;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
							  uint64_t id)
{
	if ((unsigned)kind >= EXT_KINDS || ext_n[kind] == EXT_DEPTH) {
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	ext_stack[kind][ext_n[kind]++] = id;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
							 uint64_t *id)
{
	if ((unsigned)kind >= EXT_KINDS) {
		return CUPTI_ERROR_INVALID_PARAMETER;
	}
	if (!ext_n[kind]) {
		return CUPTI_ERROR_QUEUE_EMPTY;
	}
	ext_n[kind]--;
	if (id) {
		*id = ext_stack[kind][ext_n[kind]];
	}
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiFinalize(void)
{
	FAIL("cuptiFinalize");
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetDeviceId(CUcontext ctx, uint32_t *id)
{
	(void)ctx;
	*id = 0;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetContextId(CUcontext ctx, uint32_t *id)
{
	*id = (uint32_t)(uintptr_t)ctx;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetStreamIdEx(CUcontext ctx, CUstream stream, uint8_t per_thread_stream,
				      uint32_t *id)
{
	(void)ctx;
	(void)per_thread_stream;
	*id = (uint32_t)(uintptr_t)stream;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetGraphNodeId(CUgraphNode node, uint64_t *id)
{
	*id = (uint64_t)(uintptr_t)node;
	return CUPTI_SUCCESS;
}
