/* SPDX-License-Identifier: MIT */
/*
 * conv.c - the writer thread's conversion of CUPTI activity records into
 * trace records, with the caches that keep it fast: API names by callback
 * id, kernel names (mangled and demangled) by CUPTI's shared name pointer.
 *
 * Writer thread only: allocates freely, never runs on an application
 * thread. The field mapping is documented in docs/recording.md.
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <cupti.h>
#include <dlfcn.h>

#define API_SEEN_SLOTS 65536 /* power of two */

struct api_seen {
	uint32_t corr;
	uint64_t start;
};

struct kname_slot {
	const char *ptr; /* CUPTI's pointer; NULL: empty */
	char *copy;	 /* our copy, to notice a pointer reused for another name */
	uint32_t name_id, dem_id;
};

void gpi_conv_init(struct gpi_conv *cv, struct gpt_writer *w)
{
	memset(cv, 0, sizeof(*cv));
	cv->w = w;
	cv->first_ts = UINT64_MAX;
}

void gpi_conv_release(struct gpi_conv *cv)
{
	for (int d = 0; d < 3; d++) {
		free(cv->api_names[d]);
	}
	for (size_t i = 0; i < cv->knames_cap; i++) {
		free(cv->knames[i].copy);
	}
	free(cv->knames);
	free(cv->tids);
	free(cv->api_seen);
	memset(cv, 0, sizeof(*cv));
}

void gpi_conv_add(struct gpi_conv *cv, enum gpt_kind kind, const void *rec)
{
	int ret;

	if (!cv->w) {
		return;
	}
	if (kind == GPT_KIND_LOSS) {
		/* counted also when the file takes no more: said at exit (session.c) */
		const struct gpt_loss *l = rec;
		if (l->cause < GPT_LOSS__MAX) {
			cv->lost[l->cause] += l->count;
		}
	}
	if (cv->err) {
		cv->refused++;
		return;
	}
	ret = gpt_writer_add(cv->w, kind, rec);
	if (ret) {
		cv->err = ret;
		cv->refused++;
		gpi_dbg("writer: %s", gpt_writer_last_error(cv->w));
		return;
	}
	cv->records++;
}

uint32_t gpi_conv_intern_len(struct gpi_conv *cv, const char *s, size_t len)
{
	uint32_t id = 0;

	if (cv->w && !cv->err && s && len) {
		int ret = gpt_writer_intern(cv->w, s, len, &id);
		if (ret) {
			cv->err = ret;
		}
	}
	return id;
}

uint32_t gpi_conv_intern_msg(struct gpi_conv *cv, const char *s, size_t len, uint64_t *num)
{
	uint32_t id = 0;

	*num = 0;
	if (cv->w && !cv->err && s && len) {
		int ret = gpt_writer_intern_numbered(cv->w, s, len, &id, num);
		if (ret) {
			cv->err = ret;
		}
	}
	return id;
}

uint32_t gpi_conv_intern(struct gpi_conv *cv, const char *s)
{
	return gpi_conv_intern_len(cv, s, s ? strlen(s) : 0);
}

void gpi_conv_note_tid(struct gpi_conv *cv, uint32_t tid)
{
	/* A handful of threads call CUDA; a linear scan of the recent ones is enough. */
	for (size_t i = cv->tids_n; i-- > 0;) {
		if (cv->tids[i] == tid) {
			return;
		}
	}
	if (cv->tids_n == cv->tids_cap) {
		size_t nc = cv->tids_cap ? cv->tids_cap * 2 : 16;
		uint32_t *n = realloc(cv->tids, nc * sizeof(*n));
		if (!n) {
			return;
		}
		cv->tids = n;
		cv->tids_cap = nc;
	}
	cv->tids[cv->tids_n++] = tid;
}

/* ---------------------------------------------------------------- capture */

/* GPUPROF_CAPTURE's delay and duration, relative to the session start. */
static bool in_delay_window(uint64_t ts)
{
	const struct gpi_config *c = &gpi_s.cfg;

	if (c->delay_ns && ts < gpi_s.start_ts + c->delay_ns) {
		return false;
	}
	if (c->duration_ns && ts > gpi_s.start_ts + c->delay_ns + c->duration_ns) {
		return false;
	}
	return true;
}

static uint32_t nwindows(void)
{
	uint32_t n = atomic_load_explicit(&gpi_windows.n, memory_order_acquire);
	return n > GPI_MAX_WINDOWS ? GPI_MAX_WINDOWS : n;
}

bool gpi_capture_keep(uint64_t ts)
{
	uint32_t n;

	if (ts == 0) {
		return true; /* no timestamp (forced flush): keep what cannot be placed */
	}
	if (!in_delay_window(ts)) {
		return false;
	}
	if (gpi_s.cfg.capture == GPI_CAPTURE_ALL) {
		return true;
	}
	n = nwindows();
	for (uint32_t i = 0; i < n; i++) {
		uint64_t s = atomic_load_explicit(&gpi_windows.start[i], memory_order_relaxed);
		uint64_t e = atomic_load_explicit(&gpi_windows.end[i], memory_order_relaxed);
		if (s && ts >= s && (!e || ts <= e)) {
			return true;
		}
	}
	return false;
}

bool gpi_capture_keep_gpu(uint64_t ts, uint32_t corr, uint64_t api_start)
{
	uint32_t n;

	if (gpi_s.cfg.capture == GPI_CAPTURE_ALL || !corr) {
		return gpi_capture_keep(ts);
	}
	if (api_start) {
		/* the call that launched it is known: inside if the call was */
		return gpi_capture_keep(api_start) && (!ts || in_delay_window(ts));
	}
	n = nwindows();
	/* launched by a call inside a window: in, whenever it ran */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t lo = atomic_load_explicit(&gpi_windows.corr_lo[i], memory_order_relaxed);
		uint32_t hi = atomic_load_explicit(&gpi_windows.corr_hi[i], memory_order_relaxed);
		bool closed = atomic_load_explicit(&gpi_windows.end[i], memory_order_relaxed) != 0;
		if (lo && corr >= lo && (!closed || (hi && corr <= hi))) {
			return !ts || in_delay_window(ts);
		}
	}
	/* otherwise by when it ran, unless it was launched before or after the window */
	for (uint32_t i = 0; i < n && ts; i++) {
		uint64_t s = atomic_load_explicit(&gpi_windows.start[i], memory_order_relaxed);
		uint64_t e = atomic_load_explicit(&gpi_windows.end[i], memory_order_relaxed);
		uint32_t lo = atomic_load_explicit(&gpi_windows.corr_lo[i], memory_order_relaxed);
		uint32_t hi = atomic_load_explicit(&gpi_windows.corr_hi[i], memory_order_relaxed);
		uint8_t exact = atomic_load_explicit(&gpi_windows.exact[i], memory_order_relaxed);
		if (!s || ts < s || (e && ts > e)) {
			continue;
		}
		/* only exact bounds say it was launched before or after the window */
		if (((exact & GPI_WIN_LO_EXACT) && lo && corr < lo) ||
		    (e && (exact & GPI_WIN_HI_EXACT) && hi && corr > hi)) {
			continue;
		}
		return in_delay_window(ts);
	}
	return false;
}

void gpi_capture_note_api(uint64_t start, uint32_t corr)
{
	uint32_t n = atomic_load_explicit(&gpi_windows.n, memory_order_acquire);

	if ((gpi_s.cfg.capture == GPI_CAPTURE_ALL && !(gpi_s.cfg.kinds & GPI_K_SYNC)) || !corr) {
		return;
	}
	if (n > GPI_MAX_WINDOWS) {
		n = GPI_MAX_WINDOWS;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t s = atomic_load_explicit(&gpi_windows.start[i], memory_order_relaxed);
		uint64_t e = atomic_load_explicit(&gpi_windows.end[i], memory_order_relaxed);
		if (!s || start < s || (e && start > e)) {
			continue;
		}
		uint32_t lo = atomic_load(&gpi_windows.corr_lo[i]);
		uint32_t hi = atomic_load(&gpi_windows.corr_hi[i]);
		if (!lo || corr < lo) {
			atomic_store(&gpi_windows.corr_lo[i], corr);
		}
		if (e && (!hi || corr > hi)) {
			atomic_store(&gpi_windows.corr_hi[i], corr);
		} else if (!e && hi < corr) {
			atomic_store(&gpi_windows.corr_hi[i], corr);
		}
	}
}

static uint64_t api_start_of(const struct gpi_conv *cv, uint32_t corr)
{
	const struct api_seen *a;

	if (!cv->api_seen || !corr) {
		return 0;
	}
	a = &cv->api_seen[corr & (API_SEEN_SLOTS - 1)];
	return a->corr == corr ? a->start : 0;
}

static void api_seen_note(struct gpi_conv *cv, uint32_t corr, uint64_t start)
{
	if (gpi_s.cfg.capture == GPI_CAPTURE_ALL || !corr) {
		return;
	}
	if (!cv->api_seen && !(cv->api_seen = calloc(API_SEEN_SLOTS, sizeof(*cv->api_seen)))) {
		return;
	}
	cv->api_seen[corr & (API_SEEN_SLOTS - 1)] = (struct api_seen){corr, start};
}

/* Activity on the GPU: judged by the API call that launched it. */
static bool keep_gpu(struct gpi_conv *cv, uint64_t start, uint64_t end, uint32_t corr)
{
	if (!gpi_capture_keep_gpu(start, corr, api_start_of(cv, corr))) {
		cv->filtered++;
		return false;
	}
	cv->events++;
	if (start && start < cv->first_ts) {
		cv->first_ts = start;
	}
	if (end > cv->last_ts) {
		cv->last_ts = end;
	}
	return true;
}

static bool keep_event(struct gpi_conv *cv, uint64_t start, uint64_t end)
{
	if (!gpi_capture_keep(start)) {
		cv->filtered++;
		return false;
	}
	cv->events++;
	if (start && start < cv->first_ts) {
		cv->first_ts = start;
	}
	if (end > cv->last_ts) {
		cv->last_ts = end;
	}
	return true;
}

/* ------------------------------------------------------------------ names */

uint32_t gpi_conv_demangled(struct gpi_conv *cv, const char *mangled)
{
	char *out;
	int status = 0;
	uint32_t id;

	if (strncmp(mangled, "_Z", 2)) {
		return 0;
	}
	if (!cv->demangle_state) {
		/* The C++ runtime is usually loaded already; if not, load it privately. */
		cv->demangle = (char *(*)(const char *, char *, size_t *, int *))gpi_dlsym(
			RTLD_DEFAULT, "__cxa_demangle");
		if (!cv->demangle) {
			void *h = gpi_dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
			if (h) {
				cv->demangle = (char *(*)(const char *, char *, size_t *,
							  int *))gpi_dlsym(h, "__cxa_demangle");
			}
		}
		cv->demangle_state = cv->demangle ? 1 : 2;
		gpi_dbg("demangler %s", cv->demangle ? "found" : "not available");
	}
	if (!cv->demangle) {
		return 0;
	}
	out = cv->demangle(mangled, NULL, NULL, &status);
	if (!out || status) {
		free(out);
		return 0;
	}
	id = gpi_conv_intern(cv, out);
	free(out);
	return id;
}

static struct kname_slot *kname_lookup(struct gpi_conv *cv, const char *ptr)
{
	size_t mask, i;

	if (cv->knames_n * 2 >= cv->knames_cap) {
		size_t nc = cv->knames_cap ? cv->knames_cap * 2 : 256;
		struct kname_slot *ns = calloc(nc, sizeof(*ns));
		if (!ns) {
			return NULL;
		}
		for (size_t k = 0; k < cv->knames_cap; k++) {
			struct kname_slot *o = &cv->knames[k];
			if (!o->ptr) {
				continue;
			}
			size_t j = (size_t)gp_hash_u64((uintptr_t)o->ptr) & (nc - 1);
			while (ns[j].ptr) {
				j = (j + 1) & (nc - 1);
			}
			ns[j] = *o;
		}
		free(cv->knames);
		cv->knames = ns;
		cv->knames_cap = nc;
	}
	mask = cv->knames_cap - 1;
	for (i = (size_t)gp_hash_u64((uintptr_t)ptr) & mask; cv->knames[i].ptr;
	     i = (i + 1) & mask) {
		if (cv->knames[i].ptr == ptr) {
			return &cv->knames[i];
		}
	}
	return &cv->knames[i];
}

static void kernel_names(struct gpi_conv *cv, const char *name, uint32_t *name_id, uint32_t *dem_id)
{
	struct kname_slot *s;

	*name_id = *dem_id = 0;
	if (!name) {
		return;
	}
	s = kname_lookup(cv, name);
	if (s && s->ptr && !strcmp(s->copy, name)) {
		*name_id = s->name_id;
		*dem_id = s->dem_id;
		return;
	}
	*name_id = gpi_conv_intern(cv, name);
	*dem_id = gpi_conv_demangled(cv, name);
	if (!s) {
		return;
	}
	char *copy = strdup(name);
	if (!copy) {
		return;
	}
	if (!s->ptr) {
		cv->knames_n++;
	}
	free(s->copy);
	s->ptr = name;
	s->copy = copy;
	s->name_id = *name_id;
	s->dem_id = *dem_id;
}

static uint32_t api_name(struct gpi_conv *cv, int domain, uint32_t cbid)
{
	char buf[128];
	const char *name;

	if (domain < 1 || domain > 2) {
		return 0;
	}
	if (cbid >= cv->api_names_n[domain]) {
		uint32_t nn = cbid + 64;
		uint32_t *n = realloc(cv->api_names[domain], nn * sizeof(*n));
		if (!n) {
			return 0;
		}
		memset(n + cv->api_names_n[domain], 0, (nn - cv->api_names_n[domain]) * sizeof(*n));
		cv->api_names[domain] = n;
		cv->api_names_n[domain] = nn;
	}
	if (cv->api_names[domain][cbid]) {
		return cv->api_names[domain][cbid];
	}
	name = gpi_cupti_callback_name(domain == GPT_API_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API
								 : CUPTI_CB_DOMAIN_DRIVER_API,
				       cbid, buf, sizeof(buf));
	if (!name) {
		gpi_fmt(buf, sizeof(buf), "%s#%u", domain == GPT_API_RUNTIME ? "cuda" : "cu", cbid);
		name = buf;
	}
	return cv->api_names[domain][cbid] = gpi_conv_intern(cv, name);
}

static void uuid_split(const CUuuid *u, uint64_t *hi, uint64_t *lo)
{
	const uint8_t *b = (const uint8_t *)u->bytes;

	*hi = *lo = 0;
	for (int i = 0; i < 8; i++) {
		*hi = (*hi << 8) | b[i];
		*lo = (*lo << 8) | b[8 + i];
	}
}

/* -------------------------------------------------------------- records */

static void conv_kernel(struct gpi_conv *cv, const CUpti_ActivityKernel10 *k)
{
	struct gpt_kernel r = {0};

	if (!keep_gpu(cv, k->start, k->end, k->correlationId)) {
		return;
	}
	r.start = k->start;
	r.end = k->end;
	r.completed = k->completed;
	r.queued = k->queued;
	r.submitted = k->submitted;
	r.device = k->deviceId;
	r.context = k->contextId;
	r.stream = k->streamId;
	r.correlation = k->correlationId;
	kernel_names(cv, k->name, &r.name, &r.demangled);
	r.grid_x = k->gridX;
	r.grid_y = k->gridY;
	r.grid_z = k->gridZ;
	r.block_x = k->blockX;
	r.block_y = k->blockY;
	r.block_z = k->blockZ;
	r.cluster_x = k->clusterX;
	r.cluster_y = k->clusterY;
	r.cluster_z = k->clusterZ;
	r.cluster_sched_policy = (uint8_t)k->clusterSchedulingPolicy;
	r.registers = k->registersPerThread;
	r.static_smem = k->staticSharedMemory;
	r.dynamic_smem = k->dynamicSharedMemory;
	r.local_mem_per_thread = k->localMemoryPerThread;
	r.local_mem_total = k->localMemoryTotal_v2 ? k->localMemoryTotal_v2 : k->localMemoryTotal;
	r.smem_executed = k->sharedMemoryExecuted;
	r.smem_carveout_requested = k->sharedMemoryCarveoutRequested;
	r.smem_carveout_is_requested = k->isSharedMemoryCarveoutRequested;
	r.cache_config_requested = k->cacheConfig.config.requested;
	r.cache_config_executed = k->cacheConfig.config.executed;
	r.smem_config = k->sharedMemoryConfig;
	r.partitioned_gc_requested = (uint8_t)k->partitionedGlobalCacheRequested;
	r.partitioned_gc_executed = (uint8_t)k->partitionedGlobalCacheExecuted;
	r.shmem_limit_config = (uint8_t)k->shmemLimitConfig;
	r.launch_type = k->launchType;
	r.graph_id = k->graphId;
	r.graph_node_id = k->graphNodeId;
	r.grid_id = k->gridId;
	r.channel_id = k->channelID;
	r.channel_type = (uint8_t)k->channelType;
	r.max_potential_cluster_size = k->maxPotentialClusterSize;
	r.max_active_clusters = k->maxActiveClusters;
	r.is_device_launched = k->isDeviceLaunched;
	gpi_conv_add(cv, GPT_KIND_KERNEL, &r);
}

static void conv_memcpy(struct gpi_conv *cv, const CUpti_ActivityMemcpy6 *m)
{
	struct gpt_memcpy r = {0};

	if (!keep_gpu(cv, m->start, m->end, m->correlationId)) {
		return;
	}
	r.start = m->start;
	r.end = m->end;
	r.device = m->deviceId;
	r.context = m->contextId;
	r.stream = m->streamId;
	r.correlation = m->correlationId;
	r.runtime_correlation = m->runtimeCorrelationId;
	r.bytes = m->bytes;
	r.copy_kind = m->copyKind;
	r.src_kind = m->srcKind;
	r.dst_kind = m->dstKind;
	r.flags = m->flags;
	/* a copy that is not peer-to-peer runs on one device and context */
	r.src_device = r.dst_device = m->deviceId;
	r.src_context = r.dst_context = m->contextId;
	r.graph_id = m->graphId;
	r.graph_node_id = m->graphNodeId;
	r.channel_id = m->channelID;
	r.channel_type = (uint8_t)m->channelType;
	r.is_device_launched = m->isDeviceLaunched;
	r.copy_count = m->copyCount > UINT32_MAX ? UINT32_MAX : (uint32_t)m->copyCount;
	gpi_conv_add(cv, GPT_KIND_MEMCPY, &r);
}

static void conv_p2p(struct gpi_conv *cv, const CUpti_ActivityMemcpyPtoP4 *m)
{
	struct gpt_memcpy r = {0};

	if (!keep_gpu(cv, m->start, m->end, m->correlationId)) {
		return;
	}
	r.start = m->start;
	r.end = m->end;
	r.device = m->deviceId;
	r.context = m->contextId;
	r.stream = m->streamId;
	r.correlation = m->correlationId;
	r.bytes = m->bytes;
	r.copy_kind = m->copyKind;
	r.src_kind = m->srcKind;
	r.dst_kind = m->dstKind;
	r.flags = m->flags;
	r.src_device = m->srcDeviceId;
	r.src_context = m->srcContextId;
	r.dst_device = m->dstDeviceId;
	r.dst_context = m->dstContextId;
	r.graph_id = m->graphId;
	r.graph_node_id = m->graphNodeId;
	r.channel_id = m->channelID;
	r.channel_type = (uint8_t)m->channelType;
	r.copy_count = 1;
	r.is_p2p = 1;
	gpi_conv_add(cv, GPT_KIND_MEMCPY, &r);
}

static void conv_memset(struct gpi_conv *cv, const CUpti_ActivityMemset4 *m)
{
	struct gpt_memset r = {0};

	if (!keep_gpu(cv, m->start, m->end, m->correlationId)) {
		return;
	}
	r.start = m->start;
	r.end = m->end;
	r.device = m->deviceId;
	r.context = m->contextId;
	r.stream = m->streamId;
	r.correlation = m->correlationId;
	r.value = m->value;
	r.bytes = m->bytes;
	r.flags = (uint8_t)m->flags;
	r.memory_kind = (uint8_t)m->memoryKind;
	r.graph_id = m->graphId;
	r.graph_node_id = m->graphNodeId;
	r.channel_id = m->channelID;
	r.channel_type = (uint8_t)m->channelType;
	r.is_device_launched = m->isDeviceLaunched;
	gpi_conv_add(cv, GPT_KIND_MEMSET, &r);
}

/* MEMORY2 (CUpti_ActivityMemory4 since CUDA 12): an allocation or a release. */
static void conv_memory(struct gpi_conv *cv, const CUpti_ActivityMemory4 *m)
{
	struct gpt_memory r = {0};

	if (m->memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION &&
	    m->memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) {
		cv->unknown_kinds++;
		return;
	}
	if (!keep_event(cv, m->timestamp, m->timestamp)) {
		return;
	}
	r.ts = m->timestamp;
	r.op = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION
		       ? GPT_MEMORY_ALLOC
		       : GPT_MEMORY_FREE;
	r.memory_kind = (uint8_t)m->memoryKind;
	r.address = m->address;
	r.bytes = m->bytes;
	r.device = m->deviceId;
	r.context = m->contextId;
	r.stream = m->streamId;
	r.correlation = m->correlationId;
	r.pc = m->PC;
	r.is_async = (uint8_t)(m->isAsync != 0);
	r.pool_type = (uint8_t)m->memoryPoolConfig.memoryPoolType;
	r.device_type = 1;
	gpi_conv_add(cv, GPT_KIND_MEMORY, &r);
}

static void conv_memory_pool(struct gpi_conv *cv, const CUpti_ActivityMemoryPool3 *p)
{
	struct gpt_memory_pool r = {0};

	if (!keep_event(cv, p->timestamp, p->timestamp)) {
		return;
	}
	r.ts = p->timestamp;
	r.op = (uint8_t)p->memoryPoolOperationType;
	r.pool_type = (uint8_t)p->memoryPoolType;
	r.address = p->address;
	r.size = p->size;
	r.release_threshold = p->releaseThreshold;
	r.utilized_size = p->utilizedSize;
	r.min_bytes_to_keep = p->minBytesToKeep;
	r.device = p->deviceId;
	r.correlation = p->correlationId;
	r.is_managed = p->isManagedPool;
	gpi_conv_add(cv, GPT_KIND_MEMORY_POOL, &r);
}

static void conv_api(struct gpi_conv *cv, const CUpti_ActivityAPI *a, int domain)
{
	struct gpt_api r = {0};

	api_seen_note(cv, a->correlationId, a->start);
	if (!keep_event(cv, a->start, a->end)) {
		return;
	}
	r.start = a->start;
	r.end = a->end;
	r.tid = a->threadId;
	r.domain = (uint8_t)domain;
	r.cbid = a->cbid;
	r.name = api_name(cv, domain, a->cbid);
	r.correlation = a->correlationId;
	r.return_value = a->returnValue;
	gpi_capture_note_api(a->start, a->correlationId);
	gpi_conv_note_tid(cv, a->threadId);
	gpi_conv_add(cv, GPT_KIND_API, &r);
	if (gpi_flight_on && r.return_value) {
		gpi_flight_note_api(cv, &r);
	}
}

static void conv_sync(struct gpi_conv *cv, const CUpti_ActivitySynchronization2 *s)
{
	struct gpt_sync r = {0};

	if (!keep_event(cv, s->start, s->end)) {
		return;
	}
	r.start = s->start;
	r.end = s->end;
	r.type = (uint8_t)s->type;
	r.correlation = s->correlationId;
	r.context = s->contextId;
	r.stream = s->streamId;
	r.event_id = s->cudaEventId;
	r.event_sync_id = s->cudaEventSyncId;
	r.return_value = s->returnValue;
	gpi_conv_add(cv, GPT_KIND_SYNC, &r);
}

/*
 * A cudaEventRecord call's record: which stream recorded which event (a
 * sync record of type 5, FORMAT.md). Timed by the device timestamp when
 * CUPTI has it, else by its call when that was seen; else dropped (counted).
 */
static void conv_cuda_event(struct gpi_conv *cv, const CUpti_ActivityCudaEvent2 *e)
{
	struct gpt_sync r = {0};
	uint64_t t = e->deviceTimestamp ? e->deviceTimestamp : api_start_of(cv, e->correlationId);

	if (!t) {
		cv->untimed++;
		return;
	}
	if (!keep_event(cv, t, t)) {
		return;
	}
	r.start = t;
	r.end = t;
	r.type = 5;
	r.correlation = e->correlationId;
	r.context = e->contextId;
	r.stream = e->streamId;
	r.event_id = e->eventId;
	r.event_sync_id = e->cudaEventSyncId;
	r.device_plus1 = e->deviceId + 1;
	gpi_conv_add(cv, GPT_KIND_SYNC, &r);
}

static void conv_extcorr(struct gpi_conv *cv, const CUpti_ActivityExternalCorrelation *e)
{
	struct gpt_extcorr r = {
		.external_kind = (uint8_t)e->externalKind,
		.external_id = e->externalId,
		.correlation = e->correlationId,
	};

	cv->events++;
	gpi_conv_add(cv, GPT_KIND_EXTCORR, &r);
}

static void conv_overhead(struct gpi_conv *cv, const CUpti_ActivityOverhead3 *o)
{
	struct gpt_overhead r = {0};

	if (!keep_event(cv, o->start, o->end)) {
		return;
	}
	r.start = o->start;
	r.end = o->end;
	r.overhead_kind = (uint32_t)o->overheadKind;
	r.object_kind = (uint8_t)o->objectKind;
	switch (o->objectKind) {
	case CUPTI_ACTIVITY_OBJECT_PROCESS:
	case CUPTI_ACTIVITY_OBJECT_THREAD:
		r.object_id0 = o->objectId.pt.processId;
		r.object_id1 = o->objectId.pt.threadId;
		break;
	default:
		r.object_id0 = o->objectId.dcs.deviceId;
		r.object_id1 = o->objectId.dcs.contextId;
		r.object_id2 = o->objectId.dcs.streamId;
		break;
	}
	r.correlation = o->correlationId;
	gpi_conv_add(cv, GPT_KIND_OVERHEAD, &r);
}

static void conv_device(struct gpi_conv *cv, const CUpti_ActivityDevice5 *d)
{
	struct gpt_device r = {0};

	r.id = d->id;
	r.name = gpi_conv_intern(cv, d->name);
	uuid_split(&d->uuid, &r.uuid_hi, &r.uuid_lo);
	r.cc_major = (uint8_t)d->computeCapabilityMajor;
	r.cc_minor = (uint8_t)d->computeCapabilityMinor;
	r.num_sms = d->numMultiprocessors;
	r.warp_size = d->numThreadsPerWarp;
	r.max_warps_per_sm = d->maxWarpsPerMultiprocessor;
	r.max_blocks_per_sm = d->maxBlocksPerMultiprocessor;
	r.max_threads_per_block = d->maxThreadsPerBlock;
	r.max_regs_per_sm = d->maxRegistersPerMultiprocessor;
	r.max_regs_per_block = d->maxRegistersPerBlock;
	r.max_smem_per_sm = d->maxSharedMemoryPerMultiprocessor;
	r.max_smem_per_block = d->maxSharedMemoryPerBlock;
	r.global_mem_bytes = d->globalMemorySize;
	r.global_mem_bw_kbps = d->globalMemoryBandwidth;
	r.l2_bytes = d->l2CacheSize;
	r.constant_mem_bytes = d->constantMemorySize;
	r.core_clock_khz = d->coreClockRate;
	r.num_memcpy_engines = d->numMemcpyEngines;
	r.max_ipc = d->maxIPC;
	r.max_block_dim_x = d->maxBlockDimX;
	r.max_block_dim_y = d->maxBlockDimY;
	r.max_block_dim_z = d->maxBlockDimZ;
	r.max_grid_dim_x = d->maxGridDimX;
	r.max_grid_dim_y = d->maxGridDimY;
	r.max_grid_dim_z = d->maxGridDimZ;
	r.ecc_enabled = (uint8_t)d->eccEnabled;
	r.concurrent_kernels = (d->flags & CUPTI_ACTIVITY_FLAG_DEVICE_CONCURRENT_KERNELS) ? 1 : 0;
	r.is_mig = d->isMigEnabled;
	r.gpu_instance_id = d->gpuInstanceId;
	r.compute_instance_id = d->computeInstanceId;
	uuid_split(&d->migUuid, &r.mig_uuid_hi, &r.mig_uuid_lo);
	r.numa_id = d->isNumaNode ? (int32_t)d->numaId : -1;
	r.max_threads_per_sm = d->maxWarpsPerMultiprocessor * d->numThreadsPerWarp;
	gpi_meta_device_attrs(&r);
	if (cv->ndevices_seen < GP_ARRAY_SIZE(cv->devices_seen)) {
		cv->devices_seen[cv->ndevices_seen++] = d->id;
	}
	gpi_conv_add(cv, GPT_KIND_DEVICE, &r);
}

static void conv_context(struct gpi_conv *cv, const CUpti_ActivityContext3 *c)
{
	struct gpt_context r = {
		.id = c->contextId,
		.device = c->deviceId,
		.null_stream = c->nullStreamId,
		.compute_api_kind = (uint8_t)c->computeApiKind,
		.parent = c->parentContextId,
		.is_green = c->isGreenContext,
		.num_sms = c->numMultiprocessors,
		.cig_mode = (uint8_t)c->cigMode,
	};

	gpi_conv_add(cv, GPT_KIND_CONTEXT, &r);
}

static void conv_stream(struct gpi_conv *cv, const CUpti_ActivityStream *s)
{
	struct gpt_stream r = {
		.id = s->streamId,
		.context = s->contextId,
		.priority = (int32_t)s->priority,
		.correlation = s->correlationId,
	};

	switch (s->flag) {
	case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING:
		r.flags = 1;
		break;
	case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL:
		r.flags = 2;
		break;
	default:
		r.flags = 0;
		break;
	}
	gpi_conv_add(cv, GPT_KIND_STREAM, &r);
}

void gpi_conv_cupti_record(struct gpi_conv *cv, const void *rec)
{
	const CUpti_Activity *a = rec;

	switch (a->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		conv_kernel(cv, rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		conv_memcpy(cv, rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		conv_p2p(cv, rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		conv_memset(cv, rec);
		break;
	case CUPTI_ACTIVITY_KIND_RUNTIME:
		conv_api(cv, rec, GPT_API_RUNTIME);
		break;
	case CUPTI_ACTIVITY_KIND_DRIVER:
		conv_api(cv, rec, GPT_API_DRIVER);
		break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		conv_sync(cv, rec);
		break;
	case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
		conv_cuda_event(cv, rec);
		break;
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
		conv_extcorr(cv, rec);
		break;
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		conv_overhead(cv, rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		conv_memory(cv, rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
		conv_memory_pool(cv, rec);
		break;
	case CUPTI_ACTIVITY_KIND_DEVICE:
		conv_device(cv, rec);
		/* "the client must free" the name (cupti_activity.h) */
		free((void *)((const CUpti_ActivityDevice5 *)rec)->name);
		break;
	case CUPTI_ACTIVITY_KIND_CONTEXT:
		conv_context(cv, rec);
		break;
	case CUPTI_ACTIVITY_KIND_STREAM:
		conv_stream(cv, rec);
		break;
	default:
		cv->unknown_kinds++;
		break;
	}
}
