/* SPDX-License-Identifier: MIT */
/*
 * Tests of the Nsight Systems SQLite import: a tiny export built here with
 * the exact nsys column names, every field read back from the .gpz; the
 * real exports in ../shared/anchors/nsys (counts against SELECT count(*));
 * and inputs that are not exports or hold bad rows.
 */
#include "base/compat.h"
#include "import/import.h"
#include "tests/unit/test.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>

#define GTID(pid, tid) ((uint64_t)((uint64_t)(pid) * 0x1000000u + (tid) + ((uint64_t)1 << 56)))
#define GPID(pid) ((uint64_t)((uint64_t)(pid) * 0x1000000u + ((uint64_t)1 << 56)))

static const char schema[] =
	"CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);"
	"CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);"
	"CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT,"
	" localTime TEXT);"
	"CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
	"CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,"
	" busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER,"
	" memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, uuid TEXT,"
	" luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxswDevPath TEXT, ctrlDevPath TEXT,"
	" revision INTEGER, nodeMask INTEGER, constantMemory INTEGER, maxIPC INTEGER,"
	" maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER,"
	" maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, threadsPerWarp INTEGER,"
	" asyncEngines INTEGER, maxWarpsPerSm INTEGER, maxBlocksPerSm INTEGER,"
	" maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER, maxBlockDimY INTEGER,"
	" maxBlockDimZ INTEGER, maxGridDimX INTEGER, maxGridDimY INTEGER, maxGridDimZ INTEGER,"
	" computeMajor INTEGER, computeMinor INTEGER, smMajor INTEGER, smMinor INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
	" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
	" demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,"
	" launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,"
	" gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,"
	" blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,"
	" staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,"
	" localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,"
	" gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,"
	" sharedMemoryLimitConfig INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
	" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
	" bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER,"
	" srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER,"
	" dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER,"
	" virtualAddress INTEGER, copyCount INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
	" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
	" value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,"
	" nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL,"
	" end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
	" greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,"
	" globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL,"
	" eventSyncId INTEGER);"
	"CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
	" rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,"
	" endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,"
	" int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,"
	" floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);";

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		TFAIL("sql failed: %s: %s", msg ? msg : "?", sql);
	}
	sqlite3_free(msg);
}

static sqlite3 *db_create(const char *path)
{
	sqlite3 *db = NULL;

	remove(path);
	CHECK_EQ_I(sqlite3_open(path, &db), SQLITE_OK);
	return db;
}

/* The tiny export: pid 4242 (main, tid 4243), pid 77 with one kernel. */
static void make_export(const char *path)
{
	sqlite3 *db = db_create(path);
	char sql[4096];

	exec(db, schema);
	exec(db, "INSERT INTO StringIds VALUES (1, '_Z6kernelPf'), (2, 'kernel(float*)'),"
		 " (3, 'kernel'), (4, 'cudaLaunchKernel_v7000'), (5, 'cuMemAlloc_v2'),"
		 " (6, 'main-thread'), (7, 'registered range'), (8, 'plain'), (9, 'other-thread'),"
		 " (10, 'cudaMemcpy')");
	snprintf(sql, sizeof(sql),
		 "INSERT INTO ThreadNames VALUES (6, 0, %" PRIu64 "), (9, 0, %" PRIu64 ");"
		 "INSERT INTO PROCESSES VALUES (%" PRIu64 ", 4242, './train'), (%" PRIu64
		 ", 77, 'other'), (%" PRIu64 ", 5, 'idle');",
		 GTID(4242, 4243), GTID(999, 1000), GPID(4242), GPID(77), GPID(5));
	exec(db, sql);
	exec(db, "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1776781226557295056, '', '');"
		 "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.25.0'),"
		 " ('EXPORT_PRODUCT_VERSION', '2026.2.1.210')");
	exec(db, "INSERT INTO TARGET_INFO_GPU VALUES (281474976710656, 0, 'NVIDIA Test GPU',"
		 " '0000:1a:03.0', 1, 5242880, 10736893952, 760080000000, 1710000000, 68, 0,"
		 " '554a6988-03dd-6206-3dd1-f43fb60a3ed0', 0, 'GA102', 3, '', '', 161, 0, 65536, 4,"
		 " 65536, 49152, 101376, 102400, 65536, 32, 2, 48, 16, 1024, 1024, 1024, 64,"
		 " 2147483647, 65535, 65535, 8, 6, 8, 6)");
	snprintf(sql, sizeof(sql),
		 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000000000123, 1000000005678, 3, 11,"
		 " NULL, 13, 21, %" PRIu64 ", 2, 3, 1, 2, 1, 40, 120, 2, 3, 256, 4, 1, 1024, 2048,"
		 " 16, 4096, -7, 65536, 99, 1),"
		 " (1000000006000, 1000000007000, 3, 11, NULL, 13, 22, %" PRIu64 ", 3, 3, NULL, NULL,"
		 " NULL, 8, 1, 1, 1, 32, 1, 1, 0, 0, 0, 0, 8, NULL, NULL, NULL)",
		 GPID(4242), GPID(77));
	exec(db, sql);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (2000, 3000, 3, 11, NULL, 14, 23,"
		 " %" PRIu64 ", 1048576, 10, NULL, 2, 2, 3, 11, 4, 12, NULL, 5, NULL, 2);"
		 "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (4000, 4500, 3, 11, NULL, 15, 24,"
		 " %" PRIu64 ", 255, 4096, NULL, 2);"
		 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
		 " (100, 200, 0, %" PRIu64 ", 21, 4, 0, NULL),"
		 " (300, 400, 1, %" PRIu64 ", 0, 5, 2, NULL),"
		 " (500, 600, 67, %" PRIu64 ", 0, 10, 0, NULL);"
		 "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (5000, 5600, 3, 11, NULL, 13,"
		 " 25, %" PRIu64 ", 3, 17, 123456789012);",
		 GPID(4242), GPID(4242), GTID(4242, 4243), GTID(4242, 4244), GTID(4242, 4243),
		 GPID(4242));
	exec(db, sql);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES"
		 " (10, NULL, 75, 'MyDomain', %" PRIu64 ", 5);"
		 "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, category, color, text,"
		 " globalTid, endGlobalTid, textId, domainId, uint64Value, doubleValue) VALUES"
		 " (50, 900, 59, NULL, 2, 4278190335, 'plain push', %" PRIu64 ", NULL, NULL, 0, 77,"
		 " NULL),"
		 " (60, 950, 60, 31, NULL, -16776961, NULL, %" PRIu64 ", %" PRIu64 ", 7, 5, NULL,"
		 " 2.5),"
		 " (70, NULL, 34, NULL, NULL, NULL, 'mark', %" PRIu64 ", NULL, NULL, 9, NULL, NULL);",
		 GTID(4242, 4243), GTID(4242, 4243), GTID(4242, 4243), GTID(4242, 4244),
		 GTID(4242, 4243));
	exec(db, sql);
	sqlite3_close(db);
}

/* Imports src into a fresh .gpz and opens that; the import's result in *ret. */
static struct gpt_reader *import(const char *src, const char *name, int *ret,
				 struct gpa_nsys_import_stats *st, char *err, size_t errlen)
{
	struct gpt_writer *w = NULL;
	struct gpt_reader *r = NULL;
	char out[512];

	snprintf(out, sizeof(out), "%s/%s.gpz", test_tmpdir(), name);
	if (gpt_writer_open(out, NULL, &w)) {
		TFAIL("cannot open %s", out);
		return NULL;
	}
	*ret = gpa_import_nsys_ex(src, w, st, err, errlen);
	CHECK_EQ_I(gpt_writer_close(w), 0);
	CHECK_EQ_I(gpt_reader_open(out, &r), 0);
	return r;
}

/* Copies the first record of kind into rec; returns how many there were. */
static uint64_t first_of(struct gpt_reader *r, enum gpt_kind kind, void *rec, size_t size,
			 size_t nth)
{
	struct gpt_chunk c;
	uint64_t n = 0;

	while (gpt_reader_next(r, &c) == 1) {
		if (c.kind != kind) {
			continue;
		}
		if (nth >= n && nth < n + c.count) {
			memcpy(rec, (const char *)c.records + (nth - n) * size, size);
		}
		n += c.count;
	}
	return n;
}

static struct gpt_reader *reopen(struct gpt_reader *r)
{
	char path[512];

	snprintf(path, sizeof(path), "%s", gpt_reader_name(r));
	gpt_reader_free(r);
	r = NULL;
	CHECK_EQ_I(gpt_reader_open(path, &r), 0);
	return r;
}

#define STR(r, id) gpt_reader_string_or((r), (id), "(missing)")

/* The import's counts of the tiny export. */
static void check_stats(const struct gpa_nsys_import_stats *st)
{
	CHECK_EQ_U(st->kernels, 2);
	CHECK_EQ_U(st->memcpys, 1);
	CHECK_EQ_U(st->memsets, 1);
	CHECK_EQ_U(st->api, 2);
	CHECK_EQ_U(st->skipped_api, 1);
	CHECK_EQ_U(st->syncs, 1);
	CHECK_EQ_U(st->nvtx, 3);
	CHECK_EQ_U(st->skipped_nvtx, 1);
	CHECK_EQ_U(st->threads, 1);
	CHECK_EQ_U(st->skipped_threads, 1);
	CHECK_EQ_U(st->main_pid, 4242);
	CHECK_EQ_U(st->processes, 2);
}

/* The process record. */
static struct gpt_reader *check_process(struct gpt_reader *r)
{
	struct gpt_process p = {0};

	CHECK_EQ_U(first_of(r, GPT_KIND_PROCESS, &p, sizeof(p), 0), 1);
	CHECK_EQ_U(p.pid, 4242);
	CHECK_STR(STR(r, p.exe), "./train");
	CHECK_EQ_U(p.start_realtime, 1776781226557295056ull);
	CHECK_STR(STR(r, p.settings), "import=nsys schema=3.25.0 nsys=2026.2.1.210");
	CHECK_EQ_I(p.rank, -1);
	CHECK_EQ_U(p.phase, 1);
	return r;
}

/* The device record, from TARGET_INFO_GPU. */
static struct gpt_reader *check_device(struct gpt_reader *r)
{
	struct gpt_device d = {0};

	r = reopen(r);
	CHECK_EQ_U(first_of(r, GPT_KIND_DEVICE, &d, sizeof(d), 0), 1);
	CHECK_EQ_U(d.id, 3); /* cuDevice */
	CHECK_STR(STR(r, d.name), "NVIDIA Test GPU");
	CHECK_EQ_U(d.uuid_hi, 0x554a698803dd6206ull);
	CHECK_EQ_U(d.uuid_lo, 0x3dd1f43fb60a3ed0ull);
	CHECK_EQ_U(d.cc_major, 8);
	CHECK_EQ_U(d.cc_minor, 6);
	CHECK_EQ_U(d.num_sms, 68);
	CHECK_EQ_U(d.warp_size, 32);
	CHECK_EQ_U(d.max_warps_per_sm, 48);
	CHECK_EQ_U(d.max_blocks_per_sm, 16);
	CHECK_EQ_U(d.max_threads_per_block, 1024);
	CHECK_EQ_U(d.max_threads_per_sm, 1536);
	CHECK_EQ_U(d.max_regs_per_sm, 65536);
	CHECK_EQ_U(d.max_regs_per_block, 65536);
	CHECK_EQ_U(d.max_smem_per_sm, 102400);
	CHECK_EQ_U(d.max_smem_per_block, 49152);
	CHECK_EQ_U(d.max_smem_per_block_optin, 101376);
	CHECK_EQ_U(d.global_mem_bytes, 10736893952ull);
	CHECK_EQ_U(d.global_mem_bw_kbps, 760080000ull);
	CHECK_EQ_U(d.l2_bytes, 5242880);
	CHECK_EQ_U(d.constant_mem_bytes, 65536);
	CHECK_EQ_U(d.core_clock_khz, 1710000);
	CHECK_EQ_U(d.num_memcpy_engines, 2);
	CHECK_EQ_U(d.max_ipc, 4);
	CHECK_EQ_U(d.max_block_dim_x, 1024);
	CHECK_EQ_U(d.max_block_dim_z, 64);
	CHECK_EQ_U(d.max_grid_dim_x, 2147483647);
	CHECK_EQ_U(d.max_grid_dim_z, 65535);
	CHECK_EQ_U(d.pci_domain, 0);
	CHECK_EQ_U(d.pci_bus, 0x1a);
	CHECK_EQ_U(d.pci_device, 3);
	CHECK_EQ_I(d.numa_id, -1);
	return r;
}

/* The named thread. */
static struct gpt_reader *check_thread(struct gpt_reader *r)
{
	struct gpt_thread th = {0};

	r = reopen(r);
	CHECK_EQ_U(first_of(r, GPT_KIND_THREAD, &th, sizeof(th), 0), 1);
	CHECK_EQ_U(th.tid, 4243);
	CHECK_STR(STR(r, th.name), "main-thread");
	return r;
}

/* Both kernels: every field of the first; the second has no mangled name. */
static struct gpt_reader *check_kernels(struct gpt_reader *r)
{
	struct gpt_kernel k = {0};

	r = reopen(r);
	CHECK_EQ_U(first_of(r, GPT_KIND_KERNEL, &k, sizeof(k), 0), 2);
	CHECK_EQ_U(k.start, 1000000000123ull);
	CHECK_EQ_U(k.end, 1000000005678ull);
	CHECK_EQ_U(k.device, 3);
	CHECK_EQ_U(k.context, 11);
	CHECK_EQ_U(k.stream, 13);
	CHECK_EQ_U(k.correlation, 21);
	CHECK_STR(STR(r, k.name), "_Z6kernelPf");
	CHECK_STR(STR(r, k.demangled), "kernel(float*)");
	CHECK_EQ_U(k.launch_type, 2);
	CHECK_EQ_U(k.cache_config_executed, 1);
	CHECK_EQ_U(k.registers, 40);
	CHECK_EQ_I(k.grid_x, 120);
	CHECK_EQ_I(k.grid_y, 2);
	CHECK_EQ_I(k.grid_z, 3);
	CHECK_EQ_I(k.block_x, 256);
	CHECK_EQ_I(k.block_y, 4);
	CHECK_EQ_I(k.block_z, 1);
	CHECK_EQ_I(k.static_smem, 1024);
	CHECK_EQ_I(k.dynamic_smem, 2048);
	CHECK_EQ_U(k.local_mem_per_thread, 16);
	CHECK_EQ_U(k.local_mem_total, 4096);
	CHECK_EQ_I(k.grid_id, -7);
	CHECK_EQ_U(k.smem_executed, 65536);
	CHECK_EQ_U(k.graph_node_id, 99);
	CHECK_EQ_U(k.shmem_limit_config, 1);
	r = reopen(r);
	first_of(r, GPT_KIND_KERNEL, &k, sizeof(k), 1);
	CHECK_STR(STR(r, k.name), "kernel"); /* no mangled name: the demangled one */
	CHECK_EQ_U(k.demangled, 0);
	CHECK_EQ_U(k.correlation, 22);
	CHECK_EQ_U(k.registers, 8);
	CHECK_EQ_U(k.smem_executed, 0);
	return r;
}

/* The copy, with nsys memory kinds mapped to CUPTI's. */
static struct gpt_reader *check_memcpy(struct gpt_reader *r)
{
	struct gpt_memcpy m = {0};

	r = reopen(r);
	CHECK_EQ_U(first_of(r, GPT_KIND_MEMCPY, &m, sizeof(m), 0), 1);
	CHECK_EQ_U(m.start, 2000);
	CHECK_EQ_U(m.end, 3000);
	CHECK_EQ_U(m.device, 3);
	CHECK_EQ_U(m.context, 11);
	CHECK_EQ_U(m.stream, 14);
	CHECK_EQ_U(m.correlation, 23);
	CHECK_EQ_U(m.bytes, 1048576);
	CHECK_EQ_U(m.copy_kind, 10);
	/* nsys ENUM_CUDA_MEM_KIND 2 (device) is CUPTI's CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 3. */
	CHECK_EQ_U(m.src_kind, 3);
	CHECK_EQ_U(m.dst_kind, 3);
	CHECK_EQ_U(m.src_device, 3);
	CHECK_EQ_U(m.src_context, 11);
	CHECK_EQ_U(m.dst_device, 4);
	CHECK_EQ_U(m.dst_context, 12);
	CHECK_EQ_U(m.graph_node_id, 5);
	CHECK_EQ_U(m.copy_count, 2);
	CHECK_EQ_U(m.is_p2p, 1);
	return r;
}

/* The memset. */
static struct gpt_reader *check_memset(struct gpt_reader *r)
{
	struct gpt_memset ms = {0};

	r = reopen(r);
	CHECK_EQ_U(first_of(r, GPT_KIND_MEMSET, &ms, sizeof(ms), 0), 1);
	CHECK_EQ_U(ms.start, 4000);
	CHECK_EQ_U(ms.end, 4500);
	CHECK_EQ_U(ms.stream, 15);
	CHECK_EQ_U(ms.correlation, 24);
	CHECK_EQ_U(ms.value, 255);
	CHECK_EQ_U(ms.bytes, 4096);
	CHECK_EQ_U(ms.memory_kind, 3);
	return r;
}

/* The runtime and driver calls. */
static struct gpt_reader *check_api(struct gpt_reader *r)
{
	struct gpt_api a = {0};

	r = reopen(r);
	CHECK_EQ_U(first_of(r, GPT_KIND_API, &a, sizeof(a), 0), 2);
	CHECK_EQ_U(a.start, 100);
	CHECK_EQ_U(a.end, 200);
	CHECK_EQ_U(a.tid, 4243);
	CHECK_EQ_U(a.domain, GPT_API_RUNTIME);
	CHECK_STR(STR(r, a.name), "cudaLaunchKernel_v7000");
	CHECK_EQ_U(a.correlation, 21);
	CHECK_EQ_U(a.return_value, 0);
	r = reopen(r);
	first_of(r, GPT_KIND_API, &a, sizeof(a), 1);
	CHECK_EQ_U(a.tid, 4244);
	CHECK_EQ_U(a.domain, GPT_API_DRIVER);
	CHECK_STR(STR(r, a.name), "cuMemAlloc_v2");
	CHECK_EQ_U(a.return_value, 2);
	return r;
}

/* The synchronization. */
static struct gpt_reader *check_sync(struct gpt_reader *r)
{
	struct gpt_sync sy = {0};

	r = reopen(r);
	CHECK_EQ_U(first_of(r, GPT_KIND_SYNC, &sy, sizeof(sy), 0), 1);
	CHECK_EQ_U(sy.start, 5000);
	CHECK_EQ_U(sy.end, 5600);
	CHECK_EQ_U(sy.type, 3);
	CHECK_EQ_U(sy.correlation, 25);
	CHECK_EQ_U(sy.context, 11);
	CHECK_EQ_U(sy.stream, 13);
	CHECK_EQ_U(sy.event_id, 17);
	CHECK_EQ_U(sy.event_sync_id, 123456789012ull);
	return r;
}

/* The push/pop range, the registered start/end range and the mark. */
static struct gpt_reader *check_nvtx(struct gpt_reader *r)
{
	struct gpt_nvtx n = {0};

	r = reopen(r);
	CHECK_EQ_U(first_of(r, GPT_KIND_NVTX, &n, sizeof(n), 0), 3);
	CHECK_EQ_U(n.start, 50);
	CHECK_EQ_U(n.end, 900);
	CHECK_EQ_U(n.type, GPT_NVTX_PUSH_POP);
	CHECK_EQ_U(n.domain, 0);
	CHECK_STR(STR(r, n.message), "plain push");
	CHECK_EQ_U(n.category, 2);
	CHECK_EQ_U(n.color, 0xff0000ffu);
	CHECK_EQ_U(n.color_type, 1);
	CHECK_EQ_U(n.payload_type, 1);
	CHECK_EQ_U(n.payload, 77);
	CHECK_EQ_U(n.start_tid, 4243);
	CHECK_EQ_U(n.end_tid, 4243);
	CHECK_EQ_U(n.range_id, 0);
	r = reopen(r);
	first_of(r, GPT_KIND_NVTX, &n, sizeof(n), 1);
	CHECK_EQ_U(n.type, GPT_NVTX_START_END);
	CHECK_STR(STR(r, n.domain), "MyDomain");
	CHECK_STR(STR(r, n.message), "registered range");
	CHECK_EQ_U(n.color, 0xff0000ffu); /* -16776961 is the same ARGB stored signed */
	CHECK_EQ_U(n.payload_type, 3);
	double dv;
	memcpy(&dv, &n.payload, sizeof(dv));
	CHECK(dv == 2.5);
	CHECK_EQ_U(n.start_tid, 4243);
	CHECK_EQ_U(n.end_tid, 4244);
	CHECK_EQ_U(n.range_id, 31);
	r = reopen(r);
	first_of(r, GPT_KIND_NVTX, &n, sizeof(n), 2);
	CHECK_EQ_U(n.type, GPT_NVTX_MARK);
	CHECK_EQ_U(n.start, 70);
	CHECK_EQ_U(n.end, 70);
	CHECK_STR(STR(r, n.domain), "9"); /* no create event: named by number */
	CHECK_EQ_U(n.color_type, 0);
	return r;
}

/* The domain name. */
static struct gpt_reader *check_names(struct gpt_reader *r)
{
	struct gpt_name nm = {0};

	r = reopen(r);
	CHECK_EQ_U(first_of(r, GPT_KIND_NAME, &nm, sizeof(nm), 0), 1);
	CHECK_EQ_U(nm.type, GPT_NAME_DOMAIN);
	CHECK_EQ_U(nm.id, 5);
	CHECK_STR(STR(r, nm.name), "MyDomain");
	return r;
}

TEST(nsys_fields)
{
	char src[512], err[512];
	struct gpa_nsys_import_stats st;
	struct gpt_reader *r;
	int ret;

	snprintf(src, sizeof(src), "%s/tiny.sqlite", test_tmpdir());
	make_export(src);
	r = import(src, "tiny", &ret, &st, err, sizeof(err));
	CHECK_EQ_I(ret, 0);
	CHECK_STR(err, "");
	REQUIRE(r);
	check_stats(&st);
	r = check_process(r);
	r = check_device(r);
	r = check_thread(r);
	r = check_kernels(r);
	r = check_memcpy(r);
	r = check_memset(r);
	r = check_api(r);
	r = check_sync(r);
	r = check_nvtx(r);
	r = check_names(r);
	gpt_reader_free(r);
}

/*
 * CUPTI_ACTIVITY_KIND_CUDA_EVENT rows: sync records of type 5 (an event
 * record), timed by their device timestamp; a row without one is left out.
 */
TEST(nsys_cuda_event)
{
	char src[512], err[512], sql[1024];
	struct gpa_nsys_import_stats st;
	struct gpt_sync sy = {0};
	struct gpt_reader *r;
	sqlite3 *db;
	int ret;

	snprintf(src, sizeof(src), "%s/events.sqlite", test_tmpdir());
	make_export(src);
	REQUIRE(sqlite3_open(src, &db) == SQLITE_OK);
	snprintf(sql, sizeof(sql),
		 "CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (timestamp INTEGER,"
		 " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
		 " streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
		 " eventId INTEGER NOT NULL, eventSyncId INTEGER);"
		 "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES"
		 " (4900, 3, 11, NULL, 14, 30, %" PRIu64 ", 17, 123456789012),"
		 " (0, 3, 11, NULL, 14, 31, %" PRIu64 ", 18, 123456789013);",
		 GPID(4242), GPID(4242));
	exec(db, sql);
	sqlite3_close(db);
	r = import(src, "events", &ret, &st, err, sizeof(err));
	CHECK_EQ_I(ret, 0);
	REQUIRE(r);
	/* the type 3 sync of the tiny export (5000), then the event record (4900) */
	CHECK_EQ_U(first_of(r, GPT_KIND_SYNC, &sy, sizeof(sy), 1), 2);
	if (sy.type != 5) {
		r = reopen(r);
		first_of(r, GPT_KIND_SYNC, &sy, sizeof(sy), 0);
	}
	CHECK_EQ_U(sy.type, 5);
	CHECK_EQ_U(sy.start, 4900);
	CHECK_EQ_U(sy.end, 4900);
	CHECK_EQ_U(sy.correlation, 30);
	CHECK_EQ_U(sy.context, 11);
	CHECK_EQ_U(sy.stream, 14);
	CHECK_EQ_U(sy.event_id, 17);
	CHECK_EQ_U(sy.event_sync_id, 123456789012ull);
	CHECK_EQ_U(sy.device_plus1, 4);
	gpt_reader_free(r);
}

/* Builds a file with sql run on the tiny export (NULL: bytes written as they are). */
static int import_bad(const char *name, const char *sql, const char *bytes, size_t len,
		      char *err, size_t errlen)
{
	char src[512];
	struct gpt_writer *w = NULL;
	char out[512];
	int ret;

	snprintf(src, sizeof(src), "%s/%s", test_tmpdir(), name);
	if (bytes) {
		FILE *f = fopen(src, "wb");

		if (!f) {
			TFAIL("cannot create %s", src);
			return 0;
		}
		if (len) {
			CHECK_EQ_U(fwrite(bytes, 1, len, f), len);
		}
		fclose(f);
	} else {
		sqlite3 *db;

		make_export(src);
		CHECK_EQ_I(sqlite3_open(src, &db), SQLITE_OK);
		exec(db, sql);
		sqlite3_close(db);
	}
	snprintf(out, sizeof(out), "%s/%s.gpz", test_tmpdir(), name);
	CHECK_EQ_I(gpt_writer_open(out, NULL, &w), 0);
	ret = gpa_import_nsys(src, w, err, errlen);
	gpt_writer_close(w);
	return ret;
}

TEST(nsys_not_an_export)
{
	char err[512];
	int ret;

	ret = import_bad("text.sqlite", NULL, "hello, this is text\n", 20, err, sizeof(err));
	CHECK_EQ_I(ret, -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "text.sqlite: not a readable SQLite database");

	ret = import_bad("empty.sqlite", NULL, "", 0, err, sizeof(err));
	CHECK_EQ_I(ret, -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "empty.sqlite: not an Nsight Systems export (no "
			    "CUPTI_ACTIVITY_KIND_KERNEL or StringIds table)");

	char src[512];
	sqlite3 *db;
	snprintf(src, sizeof(src), "%s/other.sqlite", test_tmpdir());
	db = db_create(src);
	exec(db, "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1)");
	sqlite3_close(db);
	struct gpt_writer *w = NULL;
	char out[512];
	snprintf(out, sizeof(out), "%s/other.gpz", test_tmpdir());
	CHECK_EQ_I(gpt_writer_open(out, NULL, &w), 0);
	ret = gpa_import_nsys(src, w, err, sizeof(err));
	gpt_writer_close(w);
	CHECK_EQ_I(ret, -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "other.sqlite: not an Nsight Systems export (no "
			    "CUPTI_ACTIVITY_KIND_KERNEL or StringIds table)");

	snprintf(out, sizeof(out), "%s/missing.gpz", test_tmpdir());
	CHECK_EQ_I(gpt_writer_open(out, NULL, &w), 0);
	ret = gpa_import_nsys("/nonexistent/x.sqlite", w, err, sizeof(err));
	gpt_writer_close(w);
	CHECK_EQ_I(ret, -GP_ERR_IO);
	CHECK_CONTAINS(err, "/nonexistent/x.sqlite: cannot open");
}

TEST(nsys_bad_rows)
{
	char err[512];
	int ret;

	/* CREATE TABLE AS drops the NOT NULL constraints (older schemas had none either). */
	ret = import_bad("nullstart.sqlite", "CREATE TABLE k AS SELECT * FROM"
			 " CUPTI_ACTIVITY_KIND_KERNEL; DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;"
			 " ALTER TABLE k RENAME TO CUPTI_ACTIVITY_KIND_KERNEL;"
			 " UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = NULL WHERE correlationId = 22",
			 NULL, 0, err, sizeof(err));
	CHECK_EQ_I(ret, -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "nullstart.sqlite: table CUPTI_ACTIVITY_KIND_KERNEL: row 2: "
			    "start is NULL");

	ret = import_bad("textgrid.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 'big'",
			 NULL, 0, err, sizeof(err));
	CHECK_EQ_I(ret, -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "table CUPTI_ACTIVITY_KIND_KERNEL: row 1: gridX is text, "
			    "not an integer");

	ret = import_bad("range.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET"
			 " sharedMemoryExecuted = -7", NULL, 0, err, sizeof(err));
	CHECK_EQ_I(ret, -GP_ERR_RANGE);
	CHECK_CONTAINS(err, "row 1: sharedMemoryExecuted = -7 is out of range");

	ret = import_bad("noname.sqlite", "DELETE FROM StringIds WHERE id = 4", NULL, 0, err,
			 sizeof(err));
	CHECK_EQ_I(ret, -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "table CUPTI_ACTIVITY_KIND_RUNTIME: row 1: nameId = 4 is not in "
			    "StringIds");

	ret = import_bad("nocol.sqlite", "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMCPY DROP COLUMN bytes",
			 NULL, 0, err, sizeof(err));
	CHECK_EQ_I(ret, -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "table CUPTI_ACTIVITY_KIND_MEMCPY: no column bytes");
}

static uint64_t count_rows(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	uint64_t n = 0;

	CHECK_EQ_I(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
		n = (uint64_t)sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

TEST(nsys_anchors)
{
	const char *dir = test_anchors("nsys");
	struct dirent *e;
	int files = 0;
	DIR *d;

	if (!dir || !(d = opendir(dir))) {
		printf("  (no anchors directory: skipped)\n");
		return;
	}
	while ((e = readdir(d))) {
		struct gpa_nsys_import_stats st;
		struct gpt_reader_status rs;
		struct gpt_reader *r;
		char path[PATH_MAX], err[512];
		int ret;

		if (!strstr(e->d_name, ".sqlite")) {
			continue;
		}
		files++;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		r = import(path, e->d_name, &ret, &st, err, sizeof(err));
		CHECK_EQ_I(ret, 0);
		if (ret) {
			TFAIL("%s", err);
		}
		if (!r) {
			continue;
		}
		while (gpt_reader_next(r, &(struct gpt_chunk){0}) == 1) {
		}
		gpt_reader_get_status(r, &rs);
		CHECK_EQ_U(rs.records[GPT_KIND_KERNEL],
			   count_rows(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
		CHECK_EQ_U(rs.records[GPT_KIND_MEMCPY],
			   count_rows(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
		CHECK_EQ_U(rs.records[GPT_KIND_MEMSET],
			   count_rows(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET"));
		CHECK_EQ_U(rs.records[GPT_KIND_API],
			   count_rows(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"
				      " WHERE eventClass IN (0, 1)"));
		CHECK_EQ_U(rs.records[GPT_KIND_API] + st.skipped_api,
			   count_rows(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
		CHECK_EQ_U(rs.records[GPT_KIND_SYNC],
			   count_rows(path, "SELECT count(*) FROM"
				      " CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"));
		CHECK_EQ_U(rs.records[GPT_KIND_NVTX],
			   count_rows(path, "SELECT count(*) FROM NVTX_EVENTS"
				      " WHERE eventType IN (34, 59, 60)"));
		CHECK_EQ_U(rs.records[GPT_KIND_PROCESS], 1);
		CHECK_EQ_U(rs.problems, 0);
		gpt_reader_free(r);
	}
	closedir(d);
	CHECK(files >= 1);
}

TEST(nsys_truncated)
{
	const char *dir = test_anchors("nsys");
	char src[PATH_MAX], cut[PATH_MAX], err[512];
	struct gpt_writer *w = NULL;
	char *buf;
	FILE *f;
	long len;
	int ret;

	if (!dir) {
		printf("  (no anchors directory: skipped)\n");
		return;
	}
	snprintf(src, sizeof(src), "%s/mfu_2gpu_after.sqlite", dir);
	f = fopen(src, "rb");
	if (!f) {
		return;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc(len);
	REQUIRE(buf && fread(buf, 1, len, f) == (size_t)len);
	fclose(f);
	for (int i = 1; i <= 3; i++) {
		snprintf(cut, sizeof(cut), "%s/cut%d.sqlite", test_tmpdir(), i);
		f = fopen(cut, "wb");
		REQUIRE(f);
		fwrite(buf, 1, (size_t)(len * i / 4), f);
		fclose(f);
		snprintf(cut + strlen(cut), 8, ".gpz");
		CHECK_EQ_I(gpt_writer_open(cut, NULL, &w), 0);
		cut[strlen(cut) - 4] = '\0';
		ret = gpa_import_nsys(cut, w, err, sizeof(err));
		gpt_writer_close(w);
		/* Either an error naming the file, or the rows that are there. */
		if (ret) {
			CHECK(ret == -GP_ERR_FORMAT || ret == -GP_ERR_IO);
			CHECK_CONTAINS(err, cut);
		}
	}
	free(buf);
}

/* The processes of the tiny export: 4242 (main) and 77; one-process imports keep them apart. */
TEST(nsys_processes_apart)
{
	char src[512], err[512];
	struct gpa_nsys_process *ps = NULL;
	struct gpa_nsys_import_stats st;
	size_t n = 0, main = 9;

	snprintf(src, sizeof(src), "%s/procs.sqlite", test_tmpdir());
	make_export(src);
	CHECK_EQ_I(gpa_nsys_processes(src, &ps, &n, &main, err, sizeof(err)), 0);
	REQUIRE(n == 2);
	CHECK_EQ_U(ps[0].pid, 77); /* in pid order */
	CHECK_EQ_U(ps[1].pid, 4242);
	CHECK_EQ_U(ps[1].key, GPID(4242) >> 24);
	CHECK_EQ_U(main, 1);

	for (size_t i = 0; i < n; i++) {
		struct gpa_nsys_import_opts o = {.one_process = true, .process = ps[i].key};
		struct gpt_writer *w = NULL;
		struct gpt_reader *r = NULL;
		struct gpt_reader_status rs;
		struct gpt_process p = {0};
		char out[512];

		snprintf(out, sizeof(out), "%s/procs-%zu.gpz", test_tmpdir(), i);
		CHECK_EQ_I(gpt_writer_open(out, NULL, &w), 0);
		CHECK_EQ_I(gpa_import_nsys_opts(src, w, &o, &st, err, sizeof(err)), 0);
		CHECK_EQ_I(gpt_writer_close(w), 0);
		CHECK_EQ_I(gpt_reader_open(out, &r), 0);
		CHECK_EQ_U(first_of(r, GPT_KIND_PROCESS, &p, sizeof(p), 0), 1);
		CHECK_EQ_U(p.pid, ps[i].pid);
		r = reopen(r);
		while (gpt_reader_next(r, &(struct gpt_chunk){0}) == 1) {
		}
		gpt_reader_get_status(r, &rs);
		/* 77 has one kernel and nothing else; 4242 has the rest. */
		CHECK_EQ_U(rs.records[GPT_KIND_KERNEL], 1);
		CHECK_EQ_U(rs.records[GPT_KIND_MEMCPY], i ? 1 : 0);
		CHECK_EQ_U(rs.records[GPT_KIND_API], i ? 2 : 0);
		CHECK_EQ_U(rs.records[GPT_KIND_NVTX], i ? 3 : 0);
		CHECK_EQ_U(rs.records[GPT_KIND_THREAD], i ? 1 : 0);
		gpt_reader_free(r);
	}
	free(ps);
}

/* Rows that name no process (NULL globalPid) go to the main process only. */
TEST(nsys_unowned_rows_to_main)
{
	char err[512];
	int ret;

	ret = import_bad("unowned.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET globalPid = NULL",
			 NULL, 0, err, sizeof(err));
	CHECK_EQ_I(ret, 0);
	char src[512];
	snprintf(src, sizeof(src), "%s/unowned.sqlite", test_tmpdir());
	for (int k = 0; k < 2; k++) {
		struct gpa_nsys_import_opts o = {.one_process = true,
						 .process = (k ? GPID(4242) : GPID(77)) >> 24};
		struct gpa_nsys_import_stats st;
		struct gpt_writer *w = NULL;
		char out[512];

		snprintf(out, sizeof(out), "%s/unowned-%d.gpz", test_tmpdir(), k);
		CHECK_EQ_I(gpt_writer_open(out, NULL, &w), 0);
		CHECK_EQ_I(gpa_import_nsys_opts(src, w, &o, &st, err, sizeof(err)), 0);
		gpt_writer_close(w);
		CHECK_EQ_U(st.memsets, k ? 1 : 0);
	}
}

/* CUPTI_ACTIVITY_KIND_OVERHEAD and PROFILER_OVERHEAD rows become OVERHEAD records. */
TEST(nsys_overhead)
{
	char src[512], err[512], sql[1024];
	struct gpa_nsys_import_stats st;
	struct gpt_reader *r;
	sqlite3 *db;
	int ret;

	snprintf(src, sizeof(src), "%s/ovh.sqlite", test_tmpdir());
	make_export(src);
	CHECK_EQ_I(sqlite3_open(src, &db), SQLITE_OK);
	exec(db, "CREATE TABLE CUPTI_ACTIVITY_KIND_OVERHEAD (start INTEGER NOT NULL,"
		 " end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,"
		 " correlationId INTEGER, nameId INTEGER, overheadType INTEGER NOT NULL);"
		 "CREATE TABLE ENUM_CUPTI_OVERHEAD_TYPE (id INTEGER PRIMARY KEY, name TEXT,"
		 " label TEXT);"
		 "INSERT INTO ENUM_CUPTI_OVERHEAD_TYPE VALUES (2, 'OVERHEAD_DRIVER_COMPILER', ''),"
		 " (8, 'OVERHEAD_COMMAND_BUFFER_FULL', '');"
		 "CREATE TABLE PROFILER_OVERHEAD (start INTEGER NOT NULL, end INTEGER NOT NULL,"
		 " globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER);"
		 "INSERT INTO StringIds VALUES (40, 'CUPTI Buffer flush')");
	snprintf(sql, sizeof(sql),
		 "INSERT INTO CUPTI_ACTIVITY_KIND_OVERHEAD VALUES (7000, 7500, 103, %" PRIu64
		 ", 31, NULL, 8), (7600, 7700, 103, %" PRIu64 ", 32, NULL, 2);"
		 "INSERT INTO PROFILER_OVERHEAD VALUES (8000, 9000, %" PRIu64 ", 40, 0)",
		 GTID(4242, 4243), GTID(4242, 4243), GTID(4242, 4244));
	exec(db, sql);
	sqlite3_close(db);
	r = import(src, "ovh", &ret, &st, err, sizeof(err));
	CHECK_EQ_I(ret, 0);
	REQUIRE(r);
	CHECK_EQ_U(st.overheads, 3);
	struct gpt_overhead o = {0};
	CHECK_EQ_U(first_of(r, GPT_KIND_OVERHEAD, &o, sizeof(o), 0), 3);
	CHECK_EQ_U(o.start, 7000);
	CHECK_EQ_U(o.end, 7500);
	CHECK_EQ_U(o.overhead_kind, 6u << 16); /* CUPTI's COMMAND_BUFFER_FULL */
	CHECK_EQ_U(o.object_id0, 4242);
	CHECK_EQ_U(o.object_id1, 4243);
	CHECK_EQ_U(o.correlation, 31);
	r = reopen(r);
	first_of(r, GPT_KIND_OVERHEAD, &o, sizeof(o), 1);
	CHECK_EQ_U(o.overhead_kind, 1); /* DRIVER_COMPILER */
	r = reopen(r);
	first_of(r, GPT_KIND_OVERHEAD, &o, sizeof(o), 2);
	CHECK_EQ_U(o.overhead_kind, 1u << 16); /* CUPTI buffer flush */
	CHECK_EQ_U(o.object_id1, 4244);
	gpt_reader_free(r);
}

/*
 * A synthetic export: no contextId, registersPerThread, shared memory,
 * globalPid or eventClass columns, no demangledName (shortName only), an API
 * call before 0. It imports; times are shifted by the earliest one.
 */
TEST(nsys_missing_columns)
{
	char src[512], err[512];
	struct gpa_nsys_import_stats st;
	struct gpt_reader *r;
	sqlite3 *db;
	int ret;

	snprintf(src, sizeof(src), "%s/synthetic.sqlite", test_tmpdir());
	db = db_create(src);
	exec(db, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
		 "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, \"end\" INTEGER,"
		 " deviceId INTEGER, streamId INTEGER, correlationId INTEGER, shortName INTEGER,"
		 " gridX INTEGER);"
		 "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, \"end\" INTEGER,"
		 " correlationId INTEGER, globalTid INTEGER, nameId INTEGER);"
		 "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, \"end\" INTEGER,"
		 " deviceId INTEGER, bytes INTEGER);"
		 "INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'cudaLaunchKernel');"
		 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, 1000, 0, 7, 100, 1, 128);"
		 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (-3000, -500, 100, 1, 2);"
		 "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (2000, 2500, 0, 64);");
	sqlite3_close(db);
	r = import(src, "synthetic", &ret, &st, err, sizeof(err));
	CHECK_EQ_I(ret, 0);
	CHECK_STR(err, "");
	REQUIRE(r);
	CHECK_EQ_U(st.time_shift, 3000);
	struct gpt_kernel k = {0};
	CHECK_EQ_U(first_of(r, GPT_KIND_KERNEL, &k, sizeof(k), 0), 1);
	CHECK_EQ_U(k.start, 3000);
	CHECK_EQ_U(k.end, 4000);
	CHECK_EQ_U(k.context, 0);
	CHECK_EQ_U(k.stream, 7);
	CHECK_EQ_I(k.grid_x, 128);
	CHECK_STR(STR(r, k.name), "gemm");
	struct gpt_api a = {0};
	r = reopen(r);
	CHECK_EQ_U(first_of(r, GPT_KIND_API, &a, sizeof(a), 0), 1);
	CHECK_EQ_U(a.start, 0);
	CHECK_EQ_U(a.end, 2500);
	CHECK_EQ_U(a.correlation, 100);
	struct gpt_process p = {0};
	r = reopen(r);
	first_of(r, GPT_KIND_PROCESS, &p, sizeof(p), 0);
	CHECK_STR(STR(r, p.settings), "import=nsys time-shift=3000");
	gpt_reader_free(r);

	/* A kernel with no name column at all is an error naming the row. */
	db = NULL;
	CHECK_EQ_I(sqlite3_open(src, &db), SQLITE_OK);
	exec(db, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN shortName");
	sqlite3_close(db);
	r = import(src, "noname-kernel", &ret, &st, err, sizeof(err));
	CHECK_EQ_I(ret, -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "table CUPTI_ACTIVITY_KIND_KERNEL: row 1: no kernel name");
	gpt_reader_free(r);
}

/* The synthetic anchor (no contextId, an API call before 0) imports with every row. */
TEST(nsys_synthetic_anchor)
{
	const char *dir = test_anchors("nsys-synthetic");
	struct gpa_nsys_import_stats st;
	char path[PATH_MAX], err[512];
	struct gpt_reader *r;
	int ret;

	if (!dir) {
		printf("  (no anchors directory: skipped)\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/healthy_1pct.sqlite", dir);
	r = import(path, "healthy", &ret, &st, err, sizeof(err));
	CHECK_EQ_I(ret, 0);
	CHECK_STR(err, "");
	CHECK_EQ_U(st.kernels, count_rows(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
	CHECK_EQ_U(st.api, count_rows(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
	CHECK_EQ_U(st.time_shift,
		   (uint64_t)-(int64_t)count_rows(path, "SELECT min(start) FROM"
						  " CUPTI_ACTIVITY_KIND_RUNTIME"));
	gpt_reader_free(r);
}
