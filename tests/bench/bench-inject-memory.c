/* SPDX-License-Identifier: MIT */
/*
 * bench-inject-memory - the recorder's cost per allocation or release: CUPTI
 * MEMORY2 activity buffers (laid out as CUPTI writes them: cudaMalloc and
 * cudaFree pairs of 4 KiB to 16 MiB with their correlation ids, a few
 * hundred live at once) through the real buffer pool, converted to trace
 * records, column-encoded, deflated and written to a file: all the work the
 * injected library does per MEMORY2 record (docs/performance.md).
 *
 * Each run converts RECORDS records into a fresh file; the process CPU time
 * and the wall time of the whole run (filling the buffers, which is CUPTI's
 * part, left out) are divided by the records. REPS runs; the median, the
 * lowest and the highest are printed, so a loaded machine shows as spread
 * rather than as a wrong figure.
 *
 * usage: bench-inject-memory [RECORDS [REPS]]
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BUF_BYTES (4u << 20)
#define LIVE 256

/* cuptiActivityGetNextRecord, as the fake libcupti implements it (one record size here) */
static int next_record(uint8_t *buf, size_t valid, void **rec)
{
	size_t off = *rec ? (size_t)((uint8_t *)*rec - buf) + sizeof(CUpti_ActivityMemory4) : 0;

	if (off >= valid || !((CUpti_Activity *)(buf + off))->kind) {
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	}
	*rec = buf + off;
	return CUPTI_SUCCESS;
}

struct gen_state {
	uint64_t clock;
	uint32_t corr;
	uint64_t addr[LIVE], bytes[LIVE];
	uint32_t made;
	bool freed;
	struct gp_rng rng;
};

/* Fills a buffer with alternating allocations and releases; returns the bytes used. */
static size_t fill(uint8_t *buf, struct gen_state *g, uint64_t *n)
{
	size_t off = 0;

	*n = 0;
	while (off + sizeof(CUpti_ActivityMemory4) <= BUF_BYTES) {
		CUpti_ActivityMemory4 m = {0};
		uint32_t slot = g->made % LIVE;
		/* once LIVE are live: release the oldest, then allocate in its place */
		bool release = g->made >= LIVE && !g->freed;
		m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
		m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
		m.timestamp = g->clock;
		m.deviceId = 0;
		m.contextId = 1;
		m.streamId = 7;
		m.correlationId = ++g->corr;
		m.PC = 0x7f00deadbeefULL;
		if (release) {
			m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
			g->freed = true;
		} else {
			m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
			g->addr[slot] = 0x7f0000000000ULL + (uint64_t)g->made * 0x200000;
			g->bytes[slot] = 4096ull << gp_rng_below(&g->rng, 13);
			g->made++;
			g->freed = false;
		}
		m.address = g->addr[slot];
		m.bytes = g->bytes[slot];
		memcpy(buf + off, &m, sizeof(m));
		off += sizeof(m);
		g->clock += 800 + gp_rng_below(&g->rng, 4000);
		(*n)++;
	}
	return off;
}

static double now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One run: want records into a fresh file; ns per record of CPU and wall time. */
static int run(uint64_t want, double *cpu_ns, double *wall_ns, double *disk)
{
	char path[PATH_MAX];
	struct gpt_writer *w;
	struct gpi_conv cv;
	struct gen_state g = {.clock = 1700000000000000000ULL};
	uint64_t done = 0, n;
	double fill_cpu = 0, fill_wall = 0;
	int fd;

	gp_rng_seed(&g.rng, 42);
	snprintf(path, sizeof(path), "%s/bench-memory-XXXXXX.gpz", gp_tmpdir());
	fd = mkstemps(path, 4);
	if (fd < 0 || gpt_writer_open_fd(fd, path, NULL, &w)) {
		fprintf(stderr, "bench-inject-memory: cannot open %s\n", path);
		return -1;
	}
	gpi_conv_init(&cv, w);
	double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
	while (done < want) {
		size_t size;
		uint8_t *buf = gpi_pool_get(&size);
		struct gpi_slot *slots[4];
		if (!buf) {
			fprintf(stderr, "bench-inject-memory: pool exhausted\n");
			return -1;
		}
		double fc = now(CLOCK_PROCESS_CPUTIME_ID), fw = now(CLOCK_MONOTONIC);
		size_t used = fill(buf, &g, &n); /* what CUPTI does, not counted */
		fill_cpu += now(CLOCK_PROCESS_CPUTIME_ID) - fc;
		fill_wall += now(CLOCK_MONOTONIC) - fw;
		gpi_pool_complete(buf, used);
		uint32_t got = gpi_pool_collect(slots, 4);
		for (uint32_t i = 0; i < got; i++) {
			gpi_conv_cupti_buffer(&cv, slots[i]->mem, slots[i]->valid);
			gpi_pool_release(slots[i]);
		}
		done += n;
	}
	int ret = gpt_writer_close(w);
	*cpu_ns = (now(CLOCK_PROCESS_CPUTIME_ID) - c0 - fill_cpu) / (double)done;
	*wall_ns = (now(CLOCK_MONOTONIC) - w0 - fill_wall) / (double)done;
	if (ret || cv.err) {
		fprintf(stderr, "bench-inject-memory: writer error %d\n", ret ? ret : cv.err);
		return -1;
	}
	if (cv.events != done) {
		fprintf(stderr, "bench-inject-memory: %" PRIu64 " of %" PRIu64 " records kept\n",
			(uint64_t)cv.events, done);
		return -1;
	}
	struct stat st;
	*disk = stat(path, &st) ? 0 : (double)st.st_size / (double)done;
	unlink(path);
	gpi_conv_release(&cv);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t want = argc > 1 ? strtoull(argv[1], NULL, 10) : 4000000;
	int reps = argc > 2 ? atoi(argv[2]) : 9;
	double cpu[64], wall[64], disk = 0;

	if (reps < 1 || reps > 64 || !want) {
		fprintf(stderr, "usage: bench-inject-memory [RECORDS [REPS (1-64)]]\n");
		return 2;
	}
	if (gpi_pool_init(64ULL << 20) || gpi_pool.slot_bytes < BUF_BYTES) {
		fprintf(stderr, "bench-inject-memory: no pool\n");
		return 1;
	}
	gpi_cupti_set_next_record(next_record);
	for (int r = 0; r < reps; r++) {
		if (run(want, &cpu[r], &wall[r], &disk)) {
			return 1;
		}
	}
	qsort(cpu, (size_t)reps, sizeof(double), cmp_d);
	qsort(wall, (size_t)reps, sizeof(double), cmp_d);
	printf("bench-inject-memory: %" PRIu64 " CUPTI MEMORY2 records per run, %d runs: through "
	       "the pool, converted, encoded, compressed and written\n",
	       want, reps);
	printf("  per allocation or release: cpu %.1f ns median (%.1f-%.1f), wall %.1f ns median "
	       "(%.1f-%.1f); %.1f bytes/record on disk\n",
	       cpu[reps / 2], cpu[0], cpu[reps - 1], wall[reps / 2], wall[0], wall[reps - 1], disk);
	return 0;
}
