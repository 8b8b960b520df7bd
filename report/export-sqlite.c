/* SPDX-License-Identifier: MIT */
/*
 * export-sqlite.c - writes the model as the subset of an Nsight Systems
 * SQLite export that user SQL and nsys-style reports read (schema 3.24.14
 * column sets, reference/nsys.md section 1.5): StringIds, the metadata and
 * target-info tables, the CUDA activity tables, NVTX_EVENTS and the enum
 * tables. One transaction, one prepared statement per table. Times are
 * nanoseconds relative to the model's first event. docs/export.md has the
 * column mapping and the columns we cannot fill.
 */
#include "base/compat.h"
#include "base/outfile.h"
#include "analyze/model.h"
#include "analyze/stats.h"
#include "report/report.h"
#include "report/export.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

#define SCHEMA_VERSION "3.24.14"
#define VM_BIT (1ull << 48) /* nsys puts VM id 1 in every globalPid/globalTid */

struct exp {
	sqlite3 *db;
	const struct gpa_model *m;
	const char *path;
	char *errbuf;
	size_t errlen;
	uint64_t t0;
	sqlite3_stmt *str_ins;
	uint32_t *smap;      /* model string id -> StringIds id + 1; 0 not written yet */
	int64_t next_sid;
	uint64_t *proc_gpid; /* per model process: its globalPid */
	int64_t *func_short; /* per model function: StringIds id of its base name */
};

static const char schema[] =
	"CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);\n"
	"CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);\n"
	"CREATE TABLE ANALYSIS_DETAILS (globalVid INTEGER NOT NULL, duration INTEGER NOT NULL, "
	"startTime INTEGER NOT NULL, stopTime INTEGER NOT NULL);\n"
	"CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, "
	"localTime TEXT, systemClockNs INTEGER);\n"
	"CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, "
	"busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, "
	"memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, "
	"uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxswDevPath TEXT, "
	"ctrlDevPath TEXT, revision INTEGER, nodeMask INTEGER, constantMemory INTEGER, "
	"maxIPC INTEGER, maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, "
	"maxShmemPerBlockOptin INTEGER, maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, "
	"threadsPerWarp INTEGER, asyncEngines INTEGER, maxWarpsPerSm INTEGER, "
	"maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER, "
	"maxBlockDimY INTEGER, maxBlockDimZ INTEGER, maxGridDimX INTEGER, maxGridDimY INTEGER, "
	"maxGridDimZ INTEGER, computeMajor INTEGER, computeMinor INTEGER, smMajor INTEGER, "
	"smMinor INTEGER);\n"
	"CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);\n"
	"CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);\n"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, "
	"deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, "
	"streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
	"demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, "
	"launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, "
	"gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, "
	"blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, "
	"staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL, "
	"localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, "
	"gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER, "
	"sharedMemoryLimitConfig INTEGER, qmdBulkReleaseDone INTEGER, qmdPreexitDone INTEGER, "
	"qmdLastCtaDone INTEGER, graphId INTEGER, clusterX INTEGER, clusterY INTEGER, "
	"clusterZ INTEGER, clusterSchedulingPolicy INTEGER, maxPotentialClusterSize INTEGER, "
	"maxActiveClusters INTEGER, sharedMemoryRequestedPercentage INTEGER);\n"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, "
	"deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, "
	"streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
	"bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, "
	"srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, "
	"dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER, "
	"virtualAddress INTEGER, copyCount INTEGER);\n"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, "
	"deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, "
	"streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
	"value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);\n"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, "
	"eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, "
	"nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);\n"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, "
	"end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, "
	"greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, "
	"globalPid INTEGER, deprecatedSyncType INTEGER, syncType INTEGER NOT NULL, "
	"eventId INTEGER NOT NULL, eventSyncId INTEGER);\n"
	"CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, "
	"eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER, "
	"text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, "
	"uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, "
	"int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, "
	"binaryData TEXT);\n";

/* The enum tables: id, name, label. */
struct enum_row {
	int id;
	const char *name, *label;
};

static const struct enum_row memcpy_oper[] = {
	{0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"},
	{1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"},
	{2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"},
	{3, "CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"},
	{4, "CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"},
	{5, "CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"},
	{6, "CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"},
	{7, "CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"},
	{8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"},
	{9, "CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"},
	{10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"},
	{11, "CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device"},
	{12, "CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host"},
	{13, "CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device"},
};

static const struct enum_row mem_kind[] = {
	{0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"},
	{1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"},
	{2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"},
	{3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"},
	{4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"},
	{5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"},
	{6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"},
	{7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"},
};

/*
 * The model keeps CUPTI's CUpti_ActivityMemoryKind (0 unknown, 1 pageable, ...
 * 7 managed static); nsys's ENUM_CUDA_MEM_KIND above starts at 0 = pageable
 * and puts unknown last (7).
 */
static int mem_kind_to_nsys(uint8_t k)
{
	return k >= 1 && k <= 7 ? k - 1 : 7;
}

static const struct enum_row event_type[] = {
	{33, "NvtxCategory", "NvtxCategory"},
	{34, "NvtxMark", "NvtxMark"},
	{39, "NvtxThread", "NvtxThread"},
	{59, "NvtxPushPopRange", "NvtxPushPopRange"},
	{60, "NvtxStartEndRange", "NvtxStartEndRange"},
	{75, "NvtxDomainCreate", "NvtxDomainCreate"},
	{76, "NvtxDomainDestroy", "NvtxDomainDestroy"},
};

static const struct enum_row event_class[] = {
	{0, "TRACE_PROCESS_EVENT_CUDA_RUNTIME", "CUDA runtime"},
	{1, "TRACE_PROCESS_EVENT_CUDA_DRIVER", "CUDA driver"},
	{13, "TRACE_PROCESS_EVENT_CUDA_EGL_DRIVER", "CUDA EGL driver"},
	{27, "TRACE_PROCESS_EVENT_OS_RUNTIME", "OSRT runtime"},
	{28, "TRACE_PROCESS_EVENT_CUDNN", "cuDNN"},
	{29, "TRACE_PROCESS_EVENT_CUBLAS", "cuBLAS"},
	{31, "TRACE_PROCESS_EVENT_OS_RUNTIME_START", "OSRT start"},
	{32, "TRACE_PROCESS_EVENT_OS_RUNTIME_FINISH", "OSRT finish"},
	{67, "TRACE_PROCESS_EVENT_CUDABACKTRACE", "CUDA backtrace"},
	{77, "TRACE_PROCESS_EVENT_CUDA_GRAPH_NODE_CREATION", "CUDA graph node creation"},
};

static const struct enum_row sync_type[] = {
	{0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown"},
	{1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", "Event sync"},
	{2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT", "Stream wait sync"},
	{3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream sync"},
	{4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE", "Context sync"},
};

static const struct enum_row dev_mem_oper[] = {
	{0, "CUDA_DEV_MEM_EVENT_OPR_ALLOCATION", "Allocation"},
	{1, "CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION", "Deallocation"},
};

GP_PRINTF(3, 4)
static int fail(struct exp *e, int err, const char *fmt, ...)
{
	if (e->errbuf && e->errlen) {
		va_list ap;
		int n = snprintf(e->errbuf, e->errlen, "%s: ", e->path);

		if (n >= 0 && (size_t)n < e->errlen) {
			va_start(ap, fmt);
			vsnprintf(e->errbuf + n, e->errlen - n, fmt, ap);
			va_end(ap);
		}
	}
	return -err;
}

static int db_fail(struct exp *e, const char *what)
{
	int code = sqlite3_errcode(e->db) & 0xff;

	return fail(e, code == SQLITE_NOMEM ? GP_ERR_NOMEM : GP_ERR_IO, "cannot write %s: %s",
		    what, sqlite3_errmsg(e->db));
}

static int exec(struct exp *e, const char *sql, const char *what)
{
	if (sqlite3_exec(e->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		return db_fail(e, what);
	}
	return 0;
}

static int prepare(struct exp *e, const char *sql, sqlite3_stmt **s, const char *what)
{
	if (sqlite3_prepare_v2(e->db, sql, -1, s, NULL) != SQLITE_OK) {
		return db_fail(e, what);
	}
	return 0;
}

/* Runs a bound insert and resets it for the next row. */
static int step(struct exp *e, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE) {
		return db_fail(e, what);
	}
	return 0;
}

static int64_t rel(const struct exp *e, uint64_t t)
{
	return t >= e->t0 ? (int64_t)(t - e->t0) : 0;
}

/* A StringIds id for text (not a model string). */
static int add_string(struct exp *e, const char *s, size_t len, int64_t *id)
{
	*id = e->next_sid++;
	sqlite3_bind_int64(e->str_ins, 1, *id);
	sqlite3_bind_text(e->str_ins, 2, s, (int)len, SQLITE_STATIC);
	return step(e, e->str_ins, "StringIds");
}

/* The StringIds id of model string sid, written the first time it is used. */
static int str_id(struct exp *e, uint32_t sid, int64_t *id)
{
	const char *s;
	int ret;

	if (e->smap[sid]) {
		*id = e->smap[sid] - 1;
		return 0;
	}
	s = gpa_model_str(e->m, sid);
	ret = add_string(e, s, strlen(s), id);
	if (!ret) {
		e->smap[sid] = (uint32_t)*id + 1;
	}
	return ret;
}

static int write_enum(struct exp *e, const char *table, const struct enum_row *rows, size_t n)
{
	char sql[256];
	sqlite3_stmt *s = NULL;
	int ret;

	snprintf(sql, sizeof(sql),
		 "CREATE TABLE %s (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT)", table);
	ret = exec(e, sql, table);
	if (ret) {
		return ret;
	}
	snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (?, ?, ?)", table);
	ret = prepare(e, sql, &s, table);
	for (size_t i = 0; i < n && !ret; i++) {
		sqlite3_bind_int(s, 1, rows[i].id);
		sqlite3_bind_text(s, 2, rows[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, rows[i].label, -1, SQLITE_STATIC);
		ret = step(e, s, table);
	}
	sqlite3_finalize(s);
	return ret;
}

static int write_meta(struct exp *e)
{
	static const char *const rows[][2] = {
		{"EXPORT_PRODUCT_NAME", "gpuprof"},
		{"EXPORT_PRODUCT_VERSION", NULL},
		{"EXPORT_SCHEMA_VERSION", SCHEMA_VERSION},
		{"EXPORT_SCHEMA_VERSION_MAJOR", "3"},
		{"EXPORT_SCHEMA_VERSION_MINOR", "24"},
		{"EXPORT_SCHEMA_VERSION_MICRO", "14"},
		{"EXPORT_PARAM_EXPORT_TYPE", "SQLite"},
		{"EXPORT_PARAM_LAZY", "false"},
		{"EXPORT_PARAM_TIME_NORMALIZE", "false"},
	};
	const struct gpa_model *m = e->m;
	sqlite3_stmt *s = NULL;
	int64_t dur = m->t1 > m->t0 ? (int64_t)(m->t1 - m->t0) : 0;
	char sql[256];
	int ret = prepare(e, "INSERT INTO META_DATA_EXPORT VALUES (?, ?)", &s, "META_DATA_EXPORT");

	for (size_t i = 0; i < GP_ARRAY_SIZE(rows) && !ret; i++) {
		sqlite3_bind_text(s, 1, rows[i][0], -1, SQLITE_STATIC);
#ifdef GP_VERSION
		sqlite3_bind_text(s, 2, rows[i][1] ? rows[i][1] : GP_VERSION, -1, SQLITE_STATIC);
#else
		if (rows[i][1]) {
			sqlite3_bind_text(s, 2, rows[i][1], -1, SQLITE_STATIC);
		}
#endif
		ret = step(e, s, "META_DATA_EXPORT");
	}
	sqlite3_finalize(s);
	if (ret) {
		return ret;
	}
	snprintf(sql, sizeof(sql), "INSERT INTO ANALYSIS_DETAILS VALUES (%llu, %" PRId64 ", 0, %" PRId64 ")",
		 (unsigned long long)VM_BIT, dur, dur);
	ret = exec(e, sql, "ANALYSIS_DETAILS");
	if (ret) {
		return ret;
	}
	/* The epoch of time 0 is known only when the model's timeline is CLOCK_REALTIME. */
	if (m->aligned && m->procs.n > 1) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (%" PRIu64 ", NULL, NULL, "
			 "NULL)", m->t0);
	} else {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (NULL, NULL, NULL, NULL)");
	}
	return exec(e, sql, "TARGET_INFO_SESSION_START_TIME");
}

/* globalPid per process: VM id 1, or higher when another file has the same pid. */
static int write_procs(struct exp *e)
{
	const struct gpa_model *m = e->m;
	sqlite3_stmt *s = NULL;
	int ret;

	e->proc_gpid = calloc(m->procs.n ? m->procs.n : 1, sizeof(*e->proc_gpid));
	if (!e->proc_gpid) {
		return fail(e, GP_ERR_NOMEM, "out of memory");
	}
	ret = prepare(e, "INSERT INTO PROCESSES VALUES (?, ?, ?)", &s, "PROCESSES");
	for (size_t i = 0; i < m->procs.n && !ret; i++) {
		const struct gpa_proc *p = &m->procs.v[i];
		const char *cmd = gpa_model_str(m, p->cmdline), *end, *base;
		uint64_t vm = 1;

		for (size_t j = 0; j < i; j++) {
			if (m->procs.v[j].pid == p->pid) {
				vm++;
			}
		}
		e->proc_gpid[i] = (vm << 48) | ((uint64_t)(p->pid & 0xffffff) << 24);
		/* The process name: the program's base name, as nsys has it. */
		end = cmd + strcspn(cmd, " ");
		base = end;
		while (base > cmd && base[-1] != '/') {
			base--;
		}
		sqlite3_bind_int64(s, 1, (int64_t)e->proc_gpid[i]);
		sqlite3_bind_int64(s, 2, p->pid);
		if (end > base) {
			sqlite3_bind_text(s, 3, base, (int)(end - base), SQLITE_STATIC);
		}
		ret = step(e, s, "PROCESSES");
	}
	sqlite3_finalize(s);
	return ret;
}

static uint64_t thread_gtid(const struct exp *e, uint32_t thread)
{
	const struct gpa_thread *t;

	if (thread == GPA_NONE || thread >= e->m->threads.n) {
		return 0;
	}
	t = &e->m->threads.v[thread];
	return e->proc_gpid[t->proc] | (t->tid & 0xffffff);
}

static int write_threads(struct exp *e)
{
	const struct gpa_model *m = e->m;
	sqlite3_stmt *s = NULL;
	int ret = prepare(e, "INSERT INTO ThreadNames VALUES (?, NULL, ?)", &s, "ThreadNames");

	for (size_t i = 0; i < m->threads.n && !ret; i++) {
		int64_t id;

		if (!m->threads.v[i].name) {
			continue;
		}
		ret = str_id(e, m->threads.v[i].name, &id);
		if (!ret) {
			sqlite3_bind_int64(s, 1, id);
			sqlite3_bind_int64(s, 2, (int64_t)thread_gtid(e, (uint32_t)i));
			ret = step(e, s, "ThreadNames");
		}
	}
	sqlite3_finalize(s);
	return ret;
}

/* Binds v at column i when it was recorded (not 0); NULL otherwise. */
static void bind_known(sqlite3_stmt *s, int i, uint64_t v)
{
	if (v) {
		sqlite3_bind_int64(s, i, (int64_t)v);
	}
}

/*
 * One row per CUDA device ordinal (several processes may share one). vmId is
 * the VM part of globalPid (1 << 48), as nsys writes it.
 */
static int write_gpus(struct exp *e)
{
	const struct gpa_model *m = e->m;
	sqlite3_stmt *s = NULL;
	int ret = prepare(e, "INSERT INTO TARGET_INFO_GPU (vmId, id, name, totalMemory, "
			  "memoryBandwidth, smCount, cuDevice, computeMajor, computeMinor, clockRate, "
			  "threadsPerWarp, maxWarpsPerSm, maxBlocksPerSm, maxThreadsPerBlock, "
			  "maxRegistersPerSm, maxRegistersPerBlock, maxShmemPerSm, maxShmemPerBlock, "
			  "maxShmemPerBlockOptin) VALUES (281474976710656, ?, ?, ?, ?, ?, ?, ?, ?, "
			  "?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &s, "TARGET_INFO_GPU");

	for (size_t i = 0; i < m->devs.n && !ret; i++) {
		const struct gpa_dev *d = &m->devs.v[i];
		bool dup = false;

		for (size_t j = 0; j < i; j++) {
			dup |= m->devs.v[j].id == d->id;
		}
		if (dup) {
			continue;
		}
		sqlite3_bind_int64(s, 1, d->id);
		if (d->name) {
			sqlite3_bind_text(s, 2, gpa_model_str(m, d->name), -1, SQLITE_STATIC);
		}
		bind_known(s, 3, d->global_mem_bytes);
		bind_known(s, 4, d->global_mem_bw_kbps * 1000);
		bind_known(s, 5, d->num_sms);
		sqlite3_bind_int64(s, 6, d->id);
		if (d->cc_major) {
			sqlite3_bind_int(s, 7, d->cc_major);
			sqlite3_bind_int(s, 8, d->cc_minor);
		}
		bind_known(s, 9, (uint64_t)d->core_clock_khz * 1000);
		bind_known(s, 10, d->warp_size);
		bind_known(s, 11, d->max_warps_per_sm);
		bind_known(s, 12, d->max_blocks_per_sm);
		bind_known(s, 13, d->max_threads_per_block);
		bind_known(s, 14, d->max_regs_per_sm);
		bind_known(s, 15, d->max_regs_per_block);
		bind_known(s, 16, d->max_smem_per_sm);
		bind_known(s, 17, d->max_smem_per_block);
		bind_known(s, 18, d->max_smem_per_block_optin);
		ret = step(e, s, "TARGET_INFO_GPU");
	}
	sqlite3_finalize(s);
	return ret;
}

/* Per function: the StringIds id of its base name ("k" of "void ns::k<int>(float*)"). */
static int func_short_names(struct exp *e)
{
	const struct gpa_model *m = e->m;

	e->func_short = calloc(m->funcs.n ? m->funcs.n : 1, sizeof(*e->func_short));
	if (!e->func_short) {
		return fail(e, GP_ERR_NOMEM, "out of memory");
	}
	for (size_t f = 0; f < m->funcs.n; f++) {
		const struct gpa_func *fn = &m->funcs.v[f];
		uint32_t dsid = fn->demangled ? fn->demangled : fn->name;
		const char *dem = gpa_model_str(m, dsid), *b;
		size_t len = gpa_kernel_base_name(dem, &b);
		int ret = 0;

		if (len == strlen(dem)) {
			ret = str_id(e, dsid, &e->func_short[f]);
		} else {
			size_t g;

			for (g = 0; g < f; g++) { /* same base name as an earlier function */
				const struct gpa_func *o = &m->funcs.v[g];
				const char *od = gpa_model_str(m, o->demangled ? o->demangled : o->name);
				const char *ob;
				size_t olen = gpa_kernel_base_name(od, &ob);

				if (olen == len && !memcmp(ob, b, len)) {
					e->func_short[f] = e->func_short[g];
					break;
				}
			}
			if (g == f) {
				ret = add_string(e, b, len, &e->func_short[f]);
			}
		}
		if (ret) {
			return ret;
		}
	}
	return 0;
}

static uint32_t dev_id(const struct gpa_model *m, uint16_t dev)
{
	return dev < m->devs.n ? m->devs.v[dev].id : 0;
}

static uint64_t dev_gpid(const struct exp *e, uint16_t dev)
{
	return dev < e->m->devs.n ? e->proc_gpid[e->m->devs.v[dev].proc] : 0;
}

/* Binds the leading start, end, deviceId, contextId (0: not recorded), streamId, corr, gpid. */
static void bind_gpu_op(struct exp *e, sqlite3_stmt *s, uint64_t start, uint64_t end, uint16_t dev,
			uint32_t stream, uint32_t corr)
{
	sqlite3_bind_int64(s, 1, rel(e, start));
	sqlite3_bind_int64(s, 2, rel(e, end));
	sqlite3_bind_int64(s, 3, dev_id(e->m, dev));
	sqlite3_bind_int64(s, 4, 0);
	sqlite3_bind_int64(s, 5, stream);
	sqlite3_bind_int64(s, 6, corr);
	sqlite3_bind_int64(s, 7, (int64_t)dev_gpid(e, dev));
}

static int write_kernels(struct exp *e)
{
	sqlite3_stmt *s = NULL;
	int ret = prepare(e, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, "
			  "contextId, streamId, correlationId, globalPid, demangledName, shortName, "
			  "mangledName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, "
			  "blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, "
			  "localMemoryTotal, gridId, sharedMemoryLimitConfig, clusterX, clusterY, "
			  "clusterZ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
			  "?, ?, 0, 0, 0, ?, ?, ?, ?)", &s, "CUPTI_ACTIVITY_KIND_KERNEL");

	for (size_t i = 0; i < gpa_kern_rows(e->m) && !ret; i++) {
		const struct gpa_func *fn = &e->m->funcs.v[gpa_kern_func(e->m, i)];
		const struct gpa_shape *sh = &e->m->shapes.v[gpa_kern_shape(e->m, i)];
		int64_t dem, mangled;

		ret = str_id(e, fn->demangled ? fn->demangled : fn->name, &dem);
		if (!ret) {
			ret = str_id(e, fn->name, &mangled);
		}
		if (ret) {
			break;
		}
		bind_gpu_op(e, s, gpa_kern_start(e->m, i), gpa_kern_end(e->m, i),
			    gpa_kern_dev(e->m, i), gpa_kern_stream(e->m, i),
			    gpa_kern_corr(e->m, i));
		sqlite3_bind_int64(s, 8, dem);
		sqlite3_bind_int64(s, 9, e->func_short[gpa_kern_func(e->m, i)]);
		/* nsys stores the name of an unmangled kernel here too, never NULL */
		sqlite3_bind_int64(s, 10, mangled);
		sqlite3_bind_int64(s, 11, sh->regs);
		sqlite3_bind_int64(s, 12, sh->grid_x);
		sqlite3_bind_int64(s, 13, sh->grid_y);
		sqlite3_bind_int64(s, 14, sh->grid_z);
		sqlite3_bind_int64(s, 15, sh->block_x);
		sqlite3_bind_int64(s, 16, sh->block_y);
		sqlite3_bind_int64(s, 17, sh->block_z);
		sqlite3_bind_int64(s, 18, sh->static_smem);
		sqlite3_bind_int64(s, 19, sh->dynamic_smem);
		sqlite3_bind_int64(s, 20, sh->optin); /* CUfunc_shmem_limit_config: 1 opt-in */
		sqlite3_bind_int64(s, 21, sh->cluster_x);
		sqlite3_bind_int64(s, 22, sh->cluster_y);
		sqlite3_bind_int64(s, 23, sh->cluster_z);
		ret = step(e, s, "CUPTI_ACTIVITY_KIND_KERNEL");
	}
	sqlite3_finalize(s);
	return ret;
}

static int write_memcpys(struct exp *e)
{
	sqlite3_stmt *s = NULL;
	int ret = prepare(e, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, "
			  "contextId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, "
			  "dstKind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &s,
			  "CUPTI_ACTIVITY_KIND_MEMCPY");

	for (size_t i = 0; i < gpa_copy_rows(e->m) && !ret; i++) {
		bind_gpu_op(e, s, gpa_copy_start(e->m, i), gpa_copy_end(e->m, i),
			    gpa_copy_dev(e->m, i), gpa_copy_stream(e->m, i),
			    gpa_copy_corr(e->m, i));
		sqlite3_bind_int64(s, 8, (int64_t)gpa_copy_bytes(e->m, i));
		sqlite3_bind_int64(s, 9, gpa_copy_copy_kind(e->m, i));
		sqlite3_bind_int64(s, 10, mem_kind_to_nsys(gpa_copy_src_kind(e->m, i)));
		sqlite3_bind_int64(s, 11, mem_kind_to_nsys(gpa_copy_dst_kind(e->m, i)));
		ret = step(e, s, "CUPTI_ACTIVITY_KIND_MEMCPY");
	}
	sqlite3_finalize(s);
	return ret;
}

static int write_memsets(struct exp *e)
{
	sqlite3_stmt *s = NULL;
	int ret = prepare(e, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, "
			  "contextId, streamId, correlationId, globalPid, value, bytes, memKind) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)", &s, "CUPTI_ACTIVITY_KIND_MEMSET");

	for (size_t i = 0; i < gpa_set_rows(e->m) && !ret; i++) {
		bind_gpu_op(e, s, gpa_set_start(e->m, i), gpa_set_end(e->m, i),
			    gpa_set_dev(e->m, i), gpa_set_stream(e->m, i), gpa_set_corr(e->m, i));
		sqlite3_bind_int64(s, 8, (int64_t)gpa_set_bytes(e->m, i));
		sqlite3_bind_int64(s, 9, mem_kind_to_nsys(gpa_set_memory_kind(e->m, i)));
		ret = step(e, s, "CUPTI_ACTIVITY_KIND_MEMSET");
	}
	sqlite3_finalize(s);
	return ret;
}

static int write_apis(struct exp *e)
{
	sqlite3_stmt *s = NULL;
	int ret = prepare(e, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, "
			  "globalTid, correlationId, nameId, returnValue) VALUES (?, ?, ?, ?, ?, ?, ?)",
			  &s, "CUPTI_ACTIVITY_KIND_RUNTIME");

	for (size_t i = 0; i < gpa_api_rows(e->m) && !ret; i++) {
		int64_t name;

		if (gpa_api_domain(e->m, i) != GPT_API_RUNTIME &&
		    gpa_api_domain(e->m, i) != GPT_API_DRIVER) {
			continue;
		}
		ret = str_id(e, gpa_api_name(e->m, i), &name);
		if (ret) {
			break;
		}
		sqlite3_bind_int64(s, 1, rel(e, gpa_api_start(e->m, i)));
		sqlite3_bind_int64(s, 2, rel(e, gpa_api_end(e->m, i)));
		sqlite3_bind_int(s, 3, gpa_api_domain(e->m, i) == GPT_API_DRIVER ? 1 : 0);
		sqlite3_bind_int64(s, 4, (int64_t)thread_gtid(e, gpa_api_thread(e->m, i)));
		sqlite3_bind_int64(s, 5, gpa_api_corr(e->m, i));
		sqlite3_bind_int64(s, 6, name);
		sqlite3_bind_int64(s, 7, gpa_api_ret(e->m, i));
		ret = step(e, s, "CUPTI_ACTIVITY_KIND_RUNTIME");
	}
	sqlite3_finalize(s);
	return ret;
}

/*
 * The device of a sync row: the one its source named (nsys); else the first
 * device of the process that ran work (CUPTI's sync records name only a
 * context), else its first device, else 0.
 */
static uint32_t sync_dev_id(const struct gpa_model *m, size_t i, uint32_t proc)
{
	uint32_t described = GPA_NONE;

	if (gpa_sync_dev_id(m, i) != GPA_NONE) {
		return gpa_sync_dev_id(m, i);
	}
	for (size_t d = 0; d < m->devs.n; d++) {
		if (m->devs.v[d].proc != proc) {
			continue;
		}
		if (m->devs.v[d].gpu_count) {
			return m->devs.v[d].id;
		}
		if (described == GPA_NONE) {
			described = m->devs.v[d].id;
		}
	}
	return described == GPA_NONE ? 0 : described;
}

static int write_syncs(struct exp *e)
{
	sqlite3_stmt *s = NULL;
	int ret = prepare(e, "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, "
			  "contextId, streamId, correlationId, globalPid, syncType, eventId) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", &s,
			  "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");

	for (size_t i = 0; i < gpa_sync_rows(e->m) && !ret; i++) {
		uint32_t proc = gpa_sync_proc(e->m, i) < e->m->procs.n ? gpa_sync_proc(e->m, i) : 0;

		sqlite3_bind_int64(s, 1, rel(e, gpa_sync_start(e->m, i)));
		sqlite3_bind_int64(s, 2, rel(e, gpa_sync_end(e->m, i)));
		sqlite3_bind_int64(s, 3, sync_dev_id(e->m, i, proc));
		sqlite3_bind_int64(s, 4, gpa_sync_context(e->m, i));
		sqlite3_bind_int64(s, 5, gpa_sync_stream(e->m, i));
		sqlite3_bind_int64(s, 6, gpa_sync_corr(e->m, i));
		sqlite3_bind_int64(s, 7, e->m->procs.n ? (int64_t)e->proc_gpid[proc] : 0);
		sqlite3_bind_int64(s, 8, gpa_sync_type(e->m, i));
		sqlite3_bind_int64(s, 9, gpa_sync_event_id(e->m, i));
		ret = step(e, s, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
	}
	sqlite3_finalize(s);
	return ret;
}

/*
 * NVTX: one NvtxDomainCreate row (eventType 75) per named domain, numbered
 * from 1 in order of first use (0 is the default domain), then the ranges
 * and marks with their text in textId.
 */
static int write_nvtx(struct exp *e)
{
	GP_VEC(uint32_t) doms = {0};
	sqlite3_stmt *s = NULL;
	int ret = prepare(e, "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, color, text, "
			  "globalTid, endGlobalTid, textId, domainId) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &s, "NVTX_EVENTS");

	for (size_t i = 0; i < gpa_nvtx_rows(e->m) && !ret; i++) {
		uint32_t d = gpa_nvtx_domain(e->m, i);
		size_t j;

		for (j = 0; d && j < doms.n && doms.v[j] != d; j++) {
		}
		if (!d || j < doms.n) {
			continue;
		}
		if (gp_vec_push(&doms, d)) {
			ret = fail(e, GP_ERR_NOMEM, "out of memory");
			break;
		}
		sqlite3_bind_int64(s, 1, rel(e, gpa_nvtx_start(e->m, i)));
		sqlite3_bind_int(s, 3, 75);
		sqlite3_bind_text(s, 6, gpa_model_str(e->m, d), -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 7, (int64_t)thread_gtid(e, gpa_nvtx_thread(e->m, i)));
		sqlite3_bind_int64(s, 10, (int64_t)doms.n);
		ret = step(e, s, "NVTX_EVENTS");
	}
	for (size_t i = 0; i < gpa_nvtx_rows(e->m) && !ret; i++) {
		int64_t text, gtid = (int64_t)thread_gtid(e, gpa_nvtx_thread(e->m, i)), dom = 0;
		int type = gpa_nvtx_type(e->m, i) == GPT_NVTX_MARK        ? 34
			   : gpa_nvtx_type(e->m, i) == GPT_NVTX_START_END ? 60
									  : 59;

		for (size_t j = 0; gpa_nvtx_domain(e->m, i) && j < doms.n; j++) {
			if (doms.v[j] == gpa_nvtx_domain(e->m, i)) {
				dom = (int64_t)j + 1;
				break;
			}
		}
		ret = str_id(e, gpa_nvtx_name(e->m, i), &text);
		if (ret) {
			break;
		}
		sqlite3_bind_int64(s, 1, rel(e, gpa_nvtx_start(e->m, i)));
		if (type != 34) {
			sqlite3_bind_int64(s, 2, rel(e, gpa_nvtx_end(e->m, i)));
		}
		sqlite3_bind_int(s, 3, type);
		if (type == 60) {
			sqlite3_bind_int64(s, 4, (int64_t)i + 1);
		}
		if (gpa_nvtx_color(e->m, i)) {
			sqlite3_bind_int64(s, 5, gpa_nvtx_color(e->m, i));
		}
		sqlite3_bind_int64(s, 7, gtid);
		sqlite3_bind_int64(s, 8, gtid);
		sqlite3_bind_int64(s, 9, text);
		sqlite3_bind_int64(s, 10, dom);
		ret = step(e, s, "NVTX_EVENTS");
	}
	sqlite3_finalize(s);
	gp_vec_free(&doms);
	return ret;
}

static int write_all(struct exp *e)
{
	int ret;

	ret = exec(e, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN", "the database");
	if (!ret) {
		ret = exec(e, schema, "the schema");
	}
	if (!ret) {
		ret = prepare(e, "INSERT INTO StringIds VALUES (?, ?)", &e->str_ins, "StringIds");
	}
	if (!ret) {
		ret = write_enum(e, "ENUM_CUDA_MEMCPY_OPER", memcpy_oper, GP_ARRAY_SIZE(memcpy_oper));
	}
	if (!ret) {
		ret = write_enum(e, "ENUM_CUDA_MEM_KIND", mem_kind, GP_ARRAY_SIZE(mem_kind));
	}
	if (!ret) {
		ret = write_enum(e, "ENUM_NSYS_EVENT_TYPE", event_type, GP_ARRAY_SIZE(event_type));
	}
	if (!ret) {
		ret = write_enum(e, "ENUM_NSYS_EVENT_CLASS", event_class, GP_ARRAY_SIZE(event_class));
	}
	if (!ret) {
		ret = write_enum(e, "ENUM_CUPTI_SYNC_TYPE", sync_type, GP_ARRAY_SIZE(sync_type));
	}
	if (!ret) {
		ret = write_enum(e, "ENUM_CUDA_DEV_MEM_EVENT_OPER", dev_mem_oper,
				 GP_ARRAY_SIZE(dev_mem_oper));
	}
	if (!ret) {
		ret = write_meta(e);
	}
	if (!ret) {
		ret = write_procs(e);
	}
	if (!ret) {
		ret = write_threads(e);
	}
	if (!ret) {
		ret = write_gpus(e);
	}
	if (!ret) {
		ret = func_short_names(e);
	}
	if (!ret) {
		ret = write_kernels(e);
	}
	if (!ret) {
		ret = write_memcpys(e);
	}
	if (!ret) {
		ret = write_memsets(e);
	}
	if (!ret) {
		ret = write_apis(e);
	}
	if (!ret) {
		ret = write_syncs(e);
	}
	if (!ret) {
		ret = write_nvtx(e);
	}
	if (!ret) {
		ret = exec(e, "COMMIT", "the database");
	}
	return ret;
}

int gpr_export_sqlite(const struct gpa_model *m, const char *path, unsigned flags, char *errbuf,
		      size_t errlen)
{
	struct exp e = {.m = m, .path = path ? path : "(null)", .errbuf = errbuf,
			.errlen = errlen, .next_sid = 1};
	struct gp_out out;
	int ret;

	if (errbuf && errlen) {
		errbuf[0] = '\0';
	}
	if (!m || !path || (flags & ~GPR_EXPORT_FORCE)) {
		return fail(&e, GP_ERR_API, "no model or no output path");
	}
	e.t0 = m->t0;
	/*
	 * SQLite writes a file of ours (base/outfile.h): a temporary beside path
	 * renamed over it at the end, or copied to a device, FIFO or standard
	 * output. Without --force an existing file is refused, also one made
	 * meanwhile (the rename does not replace it).
	 */
	ret = gp_out_open(&out, path, GP_OUT_BY_NAME | (flags & GPR_EXPORT_FORCE ? 0 : GP_OUT_NOCLOBBER),
			  errbuf, errlen);
	if (ret) {
		return ret;
	}
	e.smap = calloc(m->strs.off.n + 1, sizeof(*e.smap));
	if (!e.smap) {
		ret = fail(&e, GP_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (sqlite3_open_v2(gp_out_name(&out), &e.db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		ret = fail(&e, GP_ERR_IO, "cannot open: %s",
			   e.db ? sqlite3_errmsg(e.db) : "out of memory");
		goto out;
	}
	ret = write_all(&e);
out:
	sqlite3_finalize(e.str_ins);
	if (e.db && sqlite3_close(e.db) != SQLITE_OK && !ret) {
		ret = db_fail(&e, "the database");
	}
	free(e.smap);
	free(e.proc_gpid);
	free(e.func_short);
	if (ret) {
		gp_out_abandon(&out); /* removes only its own temporary */
	} else {
		ret = gp_out_close(&out, errbuf, errlen);
	}
	return ret;
}
