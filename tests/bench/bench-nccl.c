/* SPDX-License-Identifier: MIT */
/*
 * bench-nccl - the cost gpuprof adds to one NCCL collective
 * (docs/comm.md, docs/performance.md).
 *
 *   bench-nccl plugin LIB [N]  drives ncclProfiler_v5 of LIB as NCCL 2.28
 *                              does for one non-grouped AllReduce: CollApi
 *                              start, Coll start, KernelLaunch start/stop,
 *                              Coll stop, CollApi stop, then two kernel
 *                              channels (start, KernelChStop, stop). Prints
 *                              ns per collective (best of 5 rounds of N),
 *                              the queue drained by the writer meanwhile.
 *   bench-nccl app [N]         calls ncclAllReduce N times through whatever
 *                              libnccl.so.2 is linked (tests: the fake one);
 *                              run it with and without LD_PRELOAD of the
 *                              library for the interposition cost
 *                              (tests/bench/bench-nccl.sh).
 */
#include "base/compat.h"
#include "base/base.h"
#include "inject/nccl-abi.h"

#include <dlfcn.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now(void)
{
	return gp_clock_monotonic_ns();
}

static int plugin(const char *lib, unsigned n)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "bench-nccl: %s\n", dlerror());
		return 1;
	}
	const struct gpi_nccl_profiler_v5 *p = dlsym(h, "ncclProfiler_v5");
	if (!p) {
		fprintf(stderr, "bench-nccl: no ncclProfiler_v5\n");
		return 1;
	}
	void *ctx;
	int mask;
	if (p->init(&ctx, 0x1234, &mask, "bench", 1, 8, 0, NULL)) {
		return 1;
	}
	uint64_t best = UINT64_MAX;
	for (int round = 0; round < 5; round++) {
		uint64_t t0 = now(), t = 0;
		for (unsigned i = 0; i < n; i++) {
			struct gpi_nccl_descr_v5 d = {.type = GPI_NCCL_EV_COLL_API};
			void *api, *coll, *kl, *ch;
			d.coll_api.func = "AllReduce";
			d.coll_api.count = 1 << 20;
			d.coll_api.datatype = "ncclBfloat16";
			d.coll_api.root = -1;
			d.coll_api.stream = (void *)0x100;
			p->start_event(ctx, &api, &d);
			memset(&d, 0, sizeof(d));
			d.type = GPI_NCCL_EV_COLL;
			d.parent = api;
			d.coll.seq = i + 1;
			d.coll.func = "AllReduce";
			d.coll.count = 1 << 20;
			d.coll.root = -1;
			d.coll.datatype = "ncclBfloat16";
			d.coll.nchannels = 2;
			d.coll.nwarps = 16;
			d.coll.algo = "RING";
			d.coll.proto = "SIMPLE";
			p->start_event(ctx, &coll, &d);
			struct gpi_nccl_descr_v5 k = {.type = GPI_NCCL_EV_KERNEL_LAUNCH};
			p->start_event(ctx, &kl, &k);
			p->stop_event(kl);
			p->stop_event(coll);
			p->stop_event(api);
			for (int c = 0; c < 2; c++) {
				struct gpi_nccl_descr_v5 kc = {.type = GPI_NCCL_EV_KERNEL_CH, .parent = coll};
				kc.kernel_ch.channel_id = (uint8_t)c;
				kc.kernel_ch.ptimer = 1000 + i;
				p->start_event(ctx, &ch, &kc);
				union gpi_nccl_state_args a = {.kernel_ch = {.ptimer = 2000 + i}};
				p->record_event_state(ch, 22, &a);
				p->stop_event(ch);
			}
			if ((i & 1023) == 1023) {
				/* let the writer drain the queue; the pause is not counted */
				struct timespec ts = {0, 2000000};
				t += now() - t0;
				nanosleep(&ts, NULL);
				t0 = now();
			}
		}
		t += now() - t0;
		best = t < best ? t : best;
	}
	p->finalize(ctx);
	printf("nccl plugin (v5, 1 collective + 2 channels): %.0f ns per collective\n",
	       (double)best / n);
	return 0;
}

static int app(unsigned n)
{
	ncclUniqueId id;
	ncclComm_t comm;
	cudaStream_t st = (cudaStream_t)(uintptr_t)0x100;

	if (ncclGetUniqueId(&id) || ncclCommInitRank(&comm, 1, id, 0)) {
		fprintf(stderr, "bench-nccl: no communicator\n");
		return 1;
	}
	uint64_t best = UINT64_MAX;
	for (int round = 0; round < 5; round++) {
		uint64_t t0 = now(), t = 0;
		for (unsigned i = 0; i < n; i++) {
			ncclAllReduce(NULL, NULL, 1 << 20, ncclBfloat16, ncclSum, comm, st);
			if ((i & 1023) == 1023) {
				struct timespec ts = {0, 2000000};
				t += now() - t0;
				nanosleep(&ts, NULL);
				t0 = now();
			}
		}
		t += now() - t0;
		best = t < best ? t : best;
	}
	ncclCommDestroy(comm);
	printf("%.1f\n", (double)best / n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "plugin")) {
		return plugin(argv[2], argc > 3 ? (unsigned)atoi(argv[3]) : 200000);
	}
	if (argc >= 2 && !strcmp(argv[1], "app")) {
		return app(argc > 2 ? (unsigned)atoi(argv[2]) : 200000);
	}
	fprintf(stderr, "usage: bench-nccl plugin LIB [N] | app [N]\n");
	return 2;
}
