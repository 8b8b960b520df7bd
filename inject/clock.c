/* SPDX-License-Identifier: MIT */
/*
 * clock.c - the trace clock and the NVTX hot path's tick.
 *
 * The trace clock is CLOCK_MONOTONIC in nanoseconds: CUPTI gets it through
 * the timestamp callback, so GPU and API records, NVTX events and our own
 * records share one time base. clock_gettime costs about 30 ns in a VM,
 * which alone would exceed the NVTX budget of 40 ns per push+pop pair, so
 * the NVTX hot path stamps the CPU's invariant counter (TSC on x86,
 * CNTVCT on arm64) and the writer converts ticks to nanoseconds with anchor
 * pairs it reads itself: the slope over the whole run, the offset from the
 * latest anchor. Without an invariant counter NVTX reads the clock directly.
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <stdio.h>
#include <time.h>

_Atomic int64_t gpi_clock_offset;
bool gpi_tick_is_tsc;

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
static bool have_invariant_counter(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) {
		return false;
	}
	__get_cpuid(0x80000007u, &a, &b, &c, &d);
	if (d & (1u << 8)) {
		return true;
	}
	/*
	 * Hypervisors often hide the invariant bit while exposing a stable
	 * counter; Linux says so with constant_tsc and nonstop_tsc.
	 */
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	bool ok = false;
	if (!f) {
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "flags", 5)) {
			ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
			break;
		}
	}
	fclose(f);
	return ok;
}
#elif defined(__aarch64__)
static bool have_invariant_counter(void)
{
	return true; /* the generic timer's virtual count runs at a constant rate */
}
#else
static bool have_invariant_counter(void)
{
	return false;
}
#endif

void gpi_tick_init(enum gpi_clock_src src)
{
	switch (src) {
	case GPI_CLOCK_MONOTONIC:
		gpi_tick_is_tsc = false;
		break;
	case GPI_CLOCK_TSC:
	case GPI_CLOCK_AUTO:
	default:
		gpi_tick_is_tsc = have_invariant_counter();
		break;
	}
}

/* One anchor: the tick read between two clock reads, keeping the tightest of a few tries. */
static void anchor(uint64_t *tick, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 3; i++) {
		uint64_t a = gpi_now();
		uint64_t t = gpi_tick();
		uint64_t b = gpi_now();
		if (b - a < best) {
			best = b - a;
			*tick = t;
			*ns = a + (b - a) / 2;
		}
	}
}

void gpi_tickconv_init(struct gpi_tickconv *tc)
{
	anchor(&tc->t0, &tc->n0);
	tc->t1 = tc->t0;
	tc->n1 = tc->n0;
	tc->slope = 1.0;
	if (gpi_tick_is_tsc) {
		/* A first slope from a short calibration; later anchors refine it. */
		struct timespec req = {0, 2000000};
		uint64_t t, n;
		nanosleep(&req, NULL);
		anchor(&t, &n);
		if (t > tc->t0) {
			tc->slope = (double)(n - tc->n0) / (double)(t - tc->t0);
		}
		tc->t1 = t;
		tc->n1 = n;
	}
}

void gpi_tickconv_anchor(struct gpi_tickconv *tc)
{
	uint64_t t, n;

	if (!gpi_tick_is_tsc) {
		return;
	}
	anchor(&t, &n);
	/* Keep the slope from long spans: short ones carry the clock reads' jitter. */
	if (t > tc->t0 && n > tc->n0 && t - tc->t0 > 1000000) {
		tc->slope = (double)(n - tc->n0) / (double)(t - tc->t0);
	}
	tc->t1 = t;
	tc->n1 = n;
}

uint64_t gpi_tickconv_ns(const struct gpi_tickconv *tc, uint64_t tick)
{
	if (!gpi_tick_is_tsc) {
		/* ticks are monotonic nanoseconds already; apply the CUPTI offset */
		return tick +
		       (uint64_t)atomic_load_explicit(&gpi_clock_offset, memory_order_relaxed);
	}
	double d = ((double)(int64_t)(tick - tc->t1)) * tc->slope;
	return (uint64_t)((int64_t)tc->n1 + (int64_t)d);
}
