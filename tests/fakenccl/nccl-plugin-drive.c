/* SPDX-License-Identifier: MIT */
/*
 * nccl-plugin-drive - plays NCCL's part against the profiler plugin of
 * libgpuprof-inject.so: dlopens the library, resolves ncclProfiler_vN and
 * calls init / startEvent / stopEvent / recordEventState / finalize with
 * descriptors shaped as NCCL fills them, from several threads at once.
 *
 * usage: nccl-plugin-drive [-v 4|5|6] [-t THREADS] [-n OPS] [-x SLOTS] [-e EXPECT] LIB
 *
 * Each thread owns one communicator (hash 0xc0de0000 + thread, rank =
 * thread) and issues OPS AllReduces (v5/v6: under a CollApi event; two
 * kernel channels each, GPU times 5 us apart) and a Send every fifth op.
 * It also hands the plugin hostile input: proxy events from "another
 * process" (PXN) with a garbage parent, unknown event types, stopEvent and
 * recordEventState on handles that are not the plugin's, and NULL.
 * -x N: instead, start N collectives without stopping any, then stop them
 * all (fills the event table: what does not fit must be counted as lost).
 * EXPECT gets "ops N", "channels N", "send N" lines for the test to check.
 */
#include "base/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "inject/nccl-abi.h"

#include <dlfcn.h>
#include <getopt.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

static const struct gpi_nccl_profiler_v4 *p4;
static const struct gpi_nccl_profiler_v5 *p5;
static int version = 5, nthreads = 4, nops = 100;

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define CHECK_OK(x)                                                                                \
	do {                                                                                       \
		if ((x) != 0) {                                                                    \
			fprintf(stderr, "nccl-plugin-drive: %s returned non-zero\n", #x);          \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

static void *start(void *ctx, struct gpi_nccl_descr_v5 *d)
{
	void *h = NULL;

	if (version == 4) {
		struct gpi_nccl_descr_v4 d4;
		memset(&d4, 0, sizeof(d4));
		d4.type = (uint8_t)d->type;
		d4.parent = d->parent;
		d4.rank = d->rank;
		/* v4's union is v5's without the trailing parentGroup members */
		memcpy(&d4.coll, &d->coll, sizeof(d4) - offsetof(struct gpi_nccl_descr_v4, coll));
		CHECK_OK(p4->start_event(ctx, &h, &d4));
	} else {
		CHECK_OK(p5->start_event(ctx, &h, d));
	}
	return h;
}

static int init(void **ctx, uint64_t hash, const char *name, int rank)
{
	int mask = 0;
	if (version == 4) {
		CHECK_OK(p4->init(ctx, &mask, name, hash, 1, nthreads, rank, NULL));
	} else {
		CHECK_OK(p5->init(ctx, hash, &mask, name, 1, nthreads, rank, NULL));
	}
	return mask;
}

static const struct gpi_nccl_profiler_v5 *ops5(void)
{
	return p5;
}

static int stop(void *h)
{
	return version == 4 ? p4->stop_event(h) : ops5()->stop_event(h);
}

static int state(void *h, int st, union gpi_nccl_state_args *a)
{
	return version == 4 ? p4->record_event_state(h, st, a)
			    : ops5()->record_event_state(h, st, a);
}

static void *thread_main(void *arg)
{
	int t = (int)(intptr_t)arg;
	void *ctx = NULL;
	char name[32];

	snprintf(name, sizeof(name), "comm-%d", t);
	int mask = init(&ctx, 0xc0de0000ull + (uint64_t)t, name, t);
	if (!(mask & GPI_NCCL_EV_COLL) || !(mask & GPI_NCCL_EV_KERNEL_CH)) {
		fprintf(stderr, "nccl-plugin-drive: mask 0x%x lacks Coll or KernelCh\n", mask);
		exit(1);
	}
	for (int i = 0; i < nops; i++) {
		struct gpi_nccl_descr_v5 d;
		void *api = NULL;
		if (version >= 5) {
			memset(&d, 0, sizeof(d));
			d.type = GPI_NCCL_EV_COLL_API;
			d.rank = t;
			d.coll_api.func = "AllReduce";
			d.coll_api.count = 1024u * (unsigned)(i + 1);
			d.coll_api.datatype = "ncclFloat32";
			d.coll_api.root = -1;
			d.coll_api.stream = (void *)(uintptr_t)(0x1000 + t);
			api = start(ctx, &d);
		}
		memset(&d, 0, sizeof(d));
		d.type = GPI_NCCL_EV_COLL;
		d.parent = api;
		d.rank = t;
		d.coll.seq = (uint64_t)i + 1;
		d.coll.func = "AllReduce";
		d.coll.count = 1024u * (unsigned)(i + 1);
		d.coll.root = -1;
		d.coll.datatype = "ncclFloat32";
		d.coll.nchannels = 2;
		d.coll.nwarps = 16;
		d.coll.algo = "RING";
		d.coll.proto = "LL";
		void *coll = start(ctx, &d);
		/* kernel launch under the API (v5+) */
		if (version >= 5) {
			struct gpi_nccl_descr_v5 kl = {.type = GPI_NCCL_EV_KERNEL_LAUNCH, .rank = t};
			kl.kernel_launch.stream = (void *)(uintptr_t)(0x1000 + t);
			CHECK_OK(stop(start(ctx, &kl)));
		}
		CHECK_OK(stop(coll)); /* enqueued */
		if (api) {
			CHECK_OK(stop(api));
		}
		/* the proxy thread's part: channels start and stop after the enqueue */
		uint64_t g = realtime_ns();
		for (int ch = 0; ch < 2; ch++) {
			struct gpi_nccl_descr_v5 kc = {.type = GPI_NCCL_EV_KERNEL_CH, .parent = coll,
						       .rank = t};
			kc.kernel_ch.channel_id = (uint8_t)ch;
			kc.kernel_ch.ptimer = g + 1000u * (unsigned)ch;
			void *h = start(ctx, &kc);
			union gpi_nccl_state_args a = {.kernel_ch = {.ptimer = g + 5000 + 1000u * (unsigned)ch}};
			CHECK_OK(state(h, GPI_NCCL_ST_KERNEL_CH_STOP, &a));
			CHECK_OK(stop(h));
		}
		if (i % 5 == 0) {
			memset(&d, 0, sizeof(d));
			d.type = GPI_NCCL_EV_P2P;
			d.rank = t;
			d.p2p.func = "Send";
			d.p2p.count = 256;
			d.p2p.datatype = "ncclBfloat16";
			d.p2p.peer = (t + 1) % nthreads;
			d.p2p.nchannels = 1;
			CHECK_OK(stop(start(ctx, &d)));
		}
		/* hostile input: PXN proxy op from another process with a garbage parent */
		if (i % 10 == 0) {
			memset(&d, 0, sizeof(d));
			d.type = GPI_NCCL_EV_PROXY_OP;
			d.parent = (void *)(uintptr_t)0x10;
			d.proxy_op.pid = getpid() + 1;
			void *h = start(ctx, &d);
			union gpi_nccl_state_args a = {.proxy_step = {.trans_size = 1}};
			CHECK_OK(state(h, 20, &a));
			CHECK_OK(stop(h));
			d.type = 1u << 20; /* an event type from the future */
			CHECK_OK(stop(start(ctx, &d)));
			CHECK_OK(stop(NULL));
			CHECK_OK(stop((void *)(uintptr_t)0x1234));
			CHECK_OK(state((void *)name, GPI_NCCL_ST_KERNEL_CH_STOP, NULL));
		}
	}
	CHECK_OK(version == 4 ? p4->finalize(ctx) : ops5()->finalize(ctx));
	return NULL;
}

static void exhaust(int n)
{
	void *ctx = NULL;
	void **h = calloc((size_t)n, sizeof(*h));

	if (!h) {
		exit(1);
	}
	init(&ctx, 0xfeedull, "fill", 0);
	for (int i = 0; i < n; i++) {
		struct gpi_nccl_descr_v5 d = {.type = GPI_NCCL_EV_COLL, .rank = 0};
		d.coll.seq = (uint64_t)i + 1;
		d.coll.func = "AllGather";
		d.coll.count = 8;
		d.coll.datatype = "ncclInt8";
		h[i] = start(ctx, &d);
	}
	for (int i = 0; i < n; i++) {
		CHECK_OK(stop(h[i]));
	}
	free(h);
}

int main(int argc, char **argv)
{
	const char *expect = NULL;
	int fill = 0, c;

	while ((c = getopt(argc, argv, "v:t:n:x:e:")) != -1) {
		switch (c) {
		case 'v':
			version = atoi(optarg);
			break;
		case 't':
			nthreads = atoi(optarg);
			break;
		case 'n':
			nops = atoi(optarg);
			break;
		case 'x':
			fill = atoi(optarg);
			break;
		case 'e':
			expect = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc || (version != 4 && version != 5 && version != 6) || nthreads < 1 ||
	    nthreads > 64 || nops < 0) {
		fprintf(stderr, "usage: nccl-plugin-drive [-v 4|5|6] [-t N] [-n N] [-x N] [-e FILE] LIB\n");
		return 2;
	}
	void *lib = dlopen(argv[optind], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "nccl-plugin-drive: %s\n", dlerror());
		return 1;
	}
	char sym[32];
	snprintf(sym, sizeof(sym), "ncclProfiler_v%d", version);
	void *tab = dlsym(lib, sym);
	if (!tab) {
		fprintf(stderr, "nccl-plugin-drive: no %s\n", sym);
		return 1;
	}
	p4 = tab;
	p5 = tab;
	if (strcmp(*(const char *const *)tab, "gpuprof")) {
		fprintf(stderr, "nccl-plugin-drive: plugin name '%s'\n", *(const char *const *)tab);
		return 1;
	}
	if (fill) {
		exhaust(fill);
	} else {
		pthread_t th[64];
		for (int t = 0; t < nthreads; t++) {
			pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t);
		}
		for (int t = 0; t < nthreads; t++) {
			pthread_join(th[t], NULL);
		}
	}
	if (expect) {
		FILE *f = fopen(expect, "w");
		if (!f) {
			return 1;
		}
		int sends = fill ? 0 : nthreads * ((nops + 4) / 5);
		fprintf(f, "ops %d\nchannels %d\nsend %d\n", fill ? fill : nthreads * nops + sends,
			fill ? 0 : nthreads * nops * 2, sends);
		fclose(f);
	}
	return 0;
}
