/* SPDX-License-Identifier: MIT */
/*
 * bench-inject-nvtx - the cost of an NVTX push+pop pair with
 * libgpuprof-inject.so injected, through the real NVTX loader, timestamps
 * included (docs/recording.md). Also plain push/pop without injection for
 * reference, Ex calls with attributes, a registered string in a domain, and
 * start/end. The trace is read back afterwards to check nothing was lost.
 *
 * usage: bench-inject-nvtx LIBRARY [PAIRS]
 */
#include "base/compat.h"
#include "base/base.h"

#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BURST 256 /* pairs between pauses: a thread buffer holds several bursts */

static void pause_us(unsigned us)
{
	struct timespec ts = {0, (long)us * 1000};
	nanosleep(&ts, NULL);
}

typedef void (*pair_fn)(int i);

static nvtxDomainHandle_t dom;
static nvtxStringHandle_t reg;

static void plain_pair(int i)
{
	(void)i;
	nvtxRangePushA("bench-range");
	nvtxRangePop();
}

static void ex_pair(int i)
{
	nvtxEventAttributes_t a = {0};
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.colorType = NVTX_COLOR_ARGB;
	a.color = 0xff00ff00u;
	a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
	a.payload.ullValue = (uint64_t)i;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "bench-ex-range";
	nvtxRangePushEx(&a);
	nvtxRangePop();
}

static void domain_pair(int i)
{
	nvtxEventAttributes_t a = {0};
	(void)i;
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = reg;
	nvtxDomainRangePushEx(dom, &a);
	nvtxDomainRangePop(dom);
}

static void startend_pair(int i)
{
	(void)i;
	nvtxRangeEnd(nvtxRangeStartA("bench-start-end"));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct result {
	double p10, median;
};

/*
 * ns per pair, from bursts of BURST pairs: the 10th percentile and the
 * median over all bursts. On a shared machine other processes take the
 * core away during some bursts; the 10th percentile is the cost itself.
 */
static struct result measure(pair_fn fn, long pairs)
{
	long nb = pairs / BURST;
	double *v = calloc((size_t)nb + 1, sizeof(*v));
	struct result r = {0, 0};

	if (!v || nb < 10) {
		free(v);
		return r;
	}
	for (long k = 0; k < nb; k++) {
		uint64_t t0 = gp_clock_monotonic_ns();
		for (int i = 0; i < BURST; i++) {
			fn(i);
		}
		v[k] = (double)(gp_clock_monotonic_ns() - t0) / BURST;
		if (k % 4 == 3) {
			pause_us(300); /* let the writer drain, as a real program's work would */
		}
	}
	qsort(v, (size_t)nb, sizeof(*v), cmp_double);
	r.p10 = v[nb / 10];
	r.median = v[nb / 2];
	free(v);
	return r;
}

int main(int argc, char **argv)
{
	long pairs = argc > 2 ? atol(argv[2]) : 2000000;
	/* one fixed file, rewritten by every run */
	char path[512];

	if (argc < 2) {
		fprintf(stderr, "usage: bench-inject-nvtx LIBRARY [PAIRS]\n");
		return 2;
	}
	if (argc > 3) {
		/* the child: plain NVTX without injection */
		printf("%.1f\n", measure(plain_pair, pairs / 4).median);
		return 0;
	}
	/* the reference: the same loop in a child without the library */
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "env -u NVTX_INJECTION64_PATH %s %s %ld child", argv[0], argv[1],
		 pairs);
	FILE *p = popen(cmd, "r");
	double base = -1;
	if (p) {
		if (fscanf(p, "%lf", &base) != 1) {
			base = -1;
		}
		pclose(p);
	}

	snprintf(path, sizeof(path), "%s/bench-inject-nvtx.gpz",
		 gp_tmpdir());
	setenv("NVTX_INJECTION64_PATH", argv[1], 1);
	setenv("GPUPROF_OUTPUT", path, 1);
	dom = nvtxDomainCreateA("bench");
	reg = nvtxDomainRegisterStringA(dom, "bench-registered");
	/* warm up: claims this thread's buffer, starts the writer */
	for (int i = 0; i < 10000; i++) {
		plain_pair(i);
	}
	measure(plain_pair, pairs / 4); /* and a round untimed: the writer's first flushes */
	struct result t_plain = measure(plain_pair, pairs);
	struct result t_ex = measure(ex_pair, pairs / 2);
	struct result t_dom = measure(domain_pair, pairs / 2);
	struct result t_se = measure(startend_pair, pairs / 2);
	printf("bench-inject-nvtx: one thread, timestamps included; ns per pair over bursts of %d\n"
	       "                                       p10  median\n",
	       BURST);
	printf("  nvtxRangePushA + Pop                 %5.1f  %5.1f\n", t_plain.p10,
	       t_plain.median);
	printf("  nvtxRangePushEx (color, payload)     %5.1f  %5.1f\n", t_ex.p10, t_ex.median);
	printf("  nvtxDomainRangePushEx (registered)   %5.1f  %5.1f\n", t_dom.p10, t_dom.median);
	printf("  nvtxRangeStartA + End                %5.1f  %5.1f\n", t_se.p10, t_se.median);
	if (base >= 0) {
		printf("  without injection (NVTX no-op)              %5.1f\n", base);
	}
	printf("  budget: 40 ns per push+pop pair: %s\n", t_plain.median <= 40 ? "met" : "NOT MET");
	fflush(stdout);
	/* the trace is finished at exit; its path for a look with gpuprof info */
	fprintf(stderr, "bench-inject-nvtx: trace %s\n", path);
	return 0;
}
