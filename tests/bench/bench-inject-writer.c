/* SPDX-License-Identifier: MIT */
/*
 * bench-inject-writer - the writer thread's throughput: CUPTI activity
 * buffers (laid out as CUPTI writes them) converted to trace records,
 * column-encoded, deflated and written to a file, the work the writer does
 * per record (docs/recording.md). The record mix is a training step's: per
 * launch a runtime API record and a kernel record; a copy and its API call
 * every eighth launch; a synchronization every 64.
 *
 * usage: bench-inject-writer [RECORDS]
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <cupti.h>
#include <stdio.h>
#include <unistd.h>

#define BUF_BYTES (4u << 20)

static size_t rec_size(const CUpti_Activity *a)
{
	switch (a->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return sizeof(CUpti_ActivitySynchronization2);
	default:
		return sizeof(CUpti_ActivityAPI);
	}
}

/* cuptiActivityGetNextRecord, as the fake libcupti implements it */
static int next_record(uint8_t *buf, size_t valid, void **rec)
{
	size_t off = *rec ? (size_t)((uint8_t *)*rec - buf) + rec_size(*rec) : 0;

	if (off >= valid || !((CUpti_Activity *)(buf + off))->kind) {
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	}
	*rec = buf + off;
	return CUPTI_SUCCESS;
}

static const char *const names[] = {
	"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
	"segment_k_off_kernel__5x_cublas",
	"_ZN5flash29flash_fwd_kernel_bf16_hdim128ILi4ELb0EEEvNS_16Flash_fwd_paramsE",
	"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_"
	"addIfEESt5arrayIPcLm3EEEEviT0_T1_",
	"_Z21layer_norm_fwd_kernelILi1024EEvPKfS1_S1_Pfi",
	"triton_poi_fused_gelu_mul_0",
	"_Z25multi_tensor_apply_kernelI18TensorListMetadataILi4EE11AdamFunctorIfEJfffffiEEvmPViT_"
	"T0_DpT1_",
};

/* Fills a buffer; returns the bytes used and the records in *n. */
static size_t fill(uint8_t *buf, uint64_t *clock, uint32_t *corr, uint64_t *n)
{
	size_t off = 0;
	struct gp_rng rng;

	gp_rng_seed(&rng, *corr);
	*n = 0;
	for (;;) {
		uint32_t c = ++*corr;
		size_t need = sizeof(CUpti_ActivityAPI) * 2 + sizeof(CUpti_ActivityKernel10) +
			      sizeof(CUpti_ActivityMemcpy6) +
			      sizeof(CUpti_ActivitySynchronization2);
		if (off + need > BUF_BYTES) {
			break;
		}
		CUpti_ActivityAPI a = {.kind = CUPTI_ACTIVITY_KIND_RUNTIME,
				       .cbid = 211,
				       .start = *clock,
				       .end = *clock + 2500 + gp_rng_below(&rng, 900),
				       .processId = 4242,
				       .threadId = 4243,
				       .correlationId = c};
		memcpy(buf + off, &a, sizeof(a));
		off += sizeof(a);
		CUpti_ActivityKernel10 k = {0};
		k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		k.start = *clock + 5000 + gp_rng_below(&rng, 20000);
		k.end = k.start + 10000 + gp_rng_below(&rng, 200000);
		k.completed = k.end;
		k.deviceId = 0;
		k.contextId = 1;
		k.streamId = 7;
		k.gridX = 264;
		k.gridY = k.gridZ = 1;
		k.blockX = 384;
		k.blockY = k.blockZ = 1;
		k.registersPerThread = 168;
		k.dynamicSharedMemory = 98304;
		k.correlationId = c;
		k.gridId = c;
		k.name = names[c % 6];
		k.sharedMemoryExecuted = 233472;
		k.channelID = 3;
		k.channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
		k.clusterX = k.clusterY = k.clusterZ = 1;
		memcpy(buf + off, &k, sizeof(k));
		off += sizeof(k);
		*n += 2;
		if (c % 8 == 0) {
			a.cbid = 41;
			a.correlationId = ++*corr;
			memcpy(buf + off, &a, sizeof(a));
			off += sizeof(a);
			CUpti_ActivityMemcpy6 m = {.kind = CUPTI_ACTIVITY_KIND_MEMCPY,
						   .copyKind = 1,
						   .srcKind = 2,
						   .dstKind = 3,
						   .flags = 1,
						   .bytes = 1 << 20,
						   .start = k.end + 1000,
						   .end = k.end + 40000,
						   .contextId = 1,
						   .streamId = 13,
						   .correlationId = *corr,
						   .copyCount = 1};
			memcpy(buf + off, &m, sizeof(m));
			off += sizeof(m);
			*n += 2;
		}
		if (c % 64 == 0) {
			CUpti_ActivitySynchronization2 s = {
				.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
				.type = 3,
				.start = *clock,
				.end = *clock + 150000,
				.correlationId = c,
				.contextId = 1,
				.streamId = 7,
				.cudaEventId = UINT32_MAX};
			memcpy(buf + off, &s, sizeof(s));
			off += sizeof(s);
			*n += 1;
		}
		*clock += 4000 + gp_rng_below(&rng, 3000);
	}
	return off;
}

int main(int argc, char **argv)
{
	uint64_t want = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000;
	/* "flight": the writer fills a flight ring (256 MiB, 60 s) instead of the file */
	bool flight = argc > 2 && !strcmp(argv[2], "flight");
	struct gpt_ring *ring = NULL;
	struct gpt_writer_opts wo = {.level = -1};
	char path[PATH_MAX];
	struct gpt_writer *w;
	struct gpi_conv cv;
	uint64_t clock = 1700000000000000000ULL, done = 0, n;
	uint32_t corr = 0;
	uint64_t fill_ns = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/bench-writer-XXXXXX.gpz", gp_tmpdir());
	fd = mkstemps(path, 4);

	if (flight && (gpt_ring_new(256ull << 20, 60ull * 1000000000, &ring) || fd < 0)) {
		fprintf(stderr, "bench-inject-writer: no ring\n");
		return 1;
	}
	wo.sink = flight ? gpt_ring_sink : NULL;
	wo.sink_ctx = ring;
	wo.number_names = flight; /* as the library's ring writer */
	if (fd < 0 || gpt_writer_open_fd(flight ? -1 : fd, path, &wo, &w)) {
		fprintf(stderr, "bench-inject-writer: cannot open %s\n", path);
		return 1;
	}
	/* the real pool: buffers handed out, completed, collected, converted, zeroed */
	if (gpi_pool_init(64ULL << 20) || gpi_pool.slot_bytes < BUF_BYTES) {
		fprintf(stderr, "bench-inject-writer: no pool\n");
		return 1;
	}
	gpi_conv_init(&cv, w);
	gpi_cupti_set_next_record(next_record);
	uint64_t t0 = gp_clock_monotonic_ns();
	while (done < want) {
		size_t size;
		uint8_t *buf = gpi_pool_get(&size);
		struct gpi_slot *slots[4];
		if (!buf) {
			fprintf(stderr, "bench-inject-writer: pool exhausted\n");
			return 1;
		}
		uint64_t f0 = gp_clock_monotonic_ns();
		size_t used = fill(buf, &clock, &corr, &n); /* what CUPTI does, not timed */
		fill_ns += gp_clock_monotonic_ns() - f0;
		gpi_pool_complete(buf, used);
		uint32_t got = gpi_pool_collect(slots, 4);
		for (uint32_t i = 0; i < got; i++) {
			gpi_conv_cupti_buffer(&cv, slots[i]->mem, slots[i]->valid);
			gpi_pool_release(slots[i]);
		}
		done += n;
	}
	/* a ring's writer stays open until the save: it names the patterns */
	int ret = flight ? gpt_writer_flush(w) : gpt_writer_close(w);
	uint64_t total = gp_clock_monotonic_ns() - t0 - fill_ns, save_ns = 0;
	struct gpt_ring_stats rs = {0};
	if (flight && !ret) {
		char err[256];
		uint64_t s0 = gp_clock_monotonic_ns();
		gpt_ring_get_stats(ring, &rs);
		ret = gpt_ring_save_fd(ring, w, fd, path, err, sizeof(err));
		save_ns = gp_clock_monotonic_ns() - s0;
		gpt_writer_close(w);
		gpt_ring_free(ring);
	}
	if (ret || cv.err) {
		fprintf(stderr, "bench-inject-writer: writer error %d\n", ret ? ret : cv.err);
		return 1;
	}
	FILE *f = fopen(path, "rb");
	long bytes = 0;
	if (f) {
		fseek(f, 0, SEEK_END);
		bytes = ftell(f);
		fclose(f);
	}
	unlink(path);
	double rate = (double)done / ((double)total / 1e9);
	printf("bench-inject-writer: %" PRIu64 " CUPTI records through the pool, converted, "
	       "encoded, compressed and %s\n",
	       done, flight ? "kept in the flight ring" : "written");
	if (flight) {
		printf("  ring: %.1f MiB held (bound 256 MiB), %" PRIu64 " records dropped whole; "
		       "save of the ring %.0f ms\n",
		       (double)(rs.ring_bytes + rs.pinned_bytes) / 1048576.0, rs.dropped_records,
		       (double)save_ns / 1e6);
	}
	printf("  %.2f M records/s on one thread (%.0f ns/record), %.1f bytes/record on disk\n",
	       rate / 1e6, 1e9 / rate, (double)bytes / (double)done);
	printf("  budget: 5 M records/s: %s\n", rate >= 5e6 ? "met" : "NOT MET");
	gpi_conv_release(&cv);
	return 0;
}
