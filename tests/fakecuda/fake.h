/* SPDX-License-Identifier: MIT */
/*
 * fake.h - what the fake CUDA stack's three parts share.
 *
 *   libcupti.so.13 (fake-cupti.c)  the CUPTI API, built against the real
 *       headers; stores the records it is given in the client's buffers,
 *       runs a worker thread that delivers them, counts drops, and can be
 *       told to fail any call (FAKECUPTI_FAIL). It exports
 *       fakecupti_hooks, through which the fake driver plays CUPTI's
 *       internal side.
 *   libcuda.so.1 (fake-cuda.c)     the driver: cuInit loads
 *       CUDA_INJECTION64_PATH and calls InitializeInjection, as the real one
 *       does; device queries; and the fakecuda_* simulation calls, which
 *       reach CUPTI through fakecupti_hooks when the fake libcupti is the
 *       one loaded (with the real libcupti, or none, they do nothing).
 *   sim.c (in each test program)    dlopens libcuda.so.1 as libcudart
 *       does and plays a CUDA program: API calls with correlation ids,
 *       kernels, copies... Each record CUPTI accepted is written to an
 *       expectation file in trace terms (check-trace compares).
 *
 * Device attributes come from formulas here so every part agrees.
 */
#ifndef FAKE_H
#define FAKE_H

#include <cupti.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct fakecupti_hooks {
	int version;
	/* An API call's enter site: a new correlation id, subscriber callbacks. */
	uint32_t (*api_enter)(int domain, uint32_t cbid, const char *name);
	/* Its exit site: subscriber callbacks. */
	void (*api_exit)(int domain, uint32_t cbid, const char *name, uint32_t corr);
	/* Stores an activity record: 1 stored, 0 kind or cbid off, -1 dropped (no buffer). */
	int (*emit)(const void *rec, size_t size);
	/* CUPTI's clock: the client's timestamp callback, else CLOCK_REALTIME. */
	uint64_t (*timestamp)(void);
	/* Counts records CUPTI lost on its own (device buffers full). */
	void (*drop)(uint64_t n);
	/* Completes the buffers being filled and lets the worker deliver them now. */
	void (*deliver)(void);
	/* Whether an activity kind is enabled. */
	int (*kind_enabled)(int kind);
};

#define FAKE_DRIVER_VERSION 13000

static inline int fake_ndevices(void)
{
	const char *v = getenv("FAKECUDA_DEVICES");
	int n = v ? atoi(v) : 1;
	return n < 1 ? 1 : n > 16 ? 16 : n;
}

/* CUdevice_attribute values the injection library queries (cuda.h). */
static inline int fake_device_attr(int dev, int attr)
{
	switch (attr) {
	case 33: /* PCI bus */
		return 0x17 + dev;
	case 34: /* PCI device */
		return 0;
	case 50: /* PCI domain */
		return 0;
	case 36: /* memory clock, kHz */
		return 2619000;
	case 37: /* bus width */
		return 5120;
	case 39: /* threads per SM */
		return 2048;
	case 97: /* optin shared memory per block */
		return 232448;
	case 111: /* reserved shared memory per block */
		return 1024;
	case 16: /* SM count */
		return 132;
	case 75: /* cc major */
		return 9;
	case 76: /* cc minor */
		return 0;
	default:
		return 1000 + attr;
	}
}

/* The DEVICE record CUPTI would write for a device (an H100-like part). */
static inline void fake_device_fill(int dev, CUpti_ActivityDevice5 *d)
{
	memset(d, 0, sizeof(*d));
	d->kind = CUPTI_ACTIVITY_KIND_DEVICE;
	d->flags = CUPTI_ACTIVITY_FLAG_DEVICE_CONCURRENT_KERNELS;
	d->globalMemoryBandwidth = 3352320000ULL; /* kB/s */
	d->globalMemorySize = 85520809984ULL + (uint64_t)dev;
	d->constantMemorySize = 65536;
	d->l2CacheSize = 52428800;
	d->numThreadsPerWarp = 32;
	d->coreClockRate = 1980000;
	d->numMemcpyEngines = 5;
	d->numMultiprocessors = 132;
	d->maxIPC = 4;
	d->maxWarpsPerMultiprocessor = 64;
	d->maxBlocksPerMultiprocessor = 32;
	d->maxSharedMemoryPerMultiprocessor = 233472;
	d->maxRegistersPerMultiprocessor = 65536;
	d->maxRegistersPerBlock = 65536;
	d->maxSharedMemoryPerBlock = 49152;
	d->maxThreadsPerBlock = 1024;
	d->maxBlockDimX = 1024;
	d->maxBlockDimY = 1024;
	d->maxBlockDimZ = 64;
	d->maxGridDimX = 2147483647;
	d->maxGridDimY = 65535;
	d->maxGridDimZ = 65535;
	d->computeCapabilityMajor = 9;
	d->computeCapabilityMinor = 0;
	d->id = (uint32_t)dev;
	d->eccEnabled = 1;
	for (int i = 0; i < 16; i++) {
		d->uuid.bytes[i] = (char)(0x10 * dev + i + 1);
		d->migUuid.bytes[i] = (char)(0xa0 + i);
	}
	d->isCudaVisible = 1;
	d->isMigEnabled = (uint8_t)(dev == 1);
	d->gpuInstanceId = dev == 1 ? 3 : UINT32_MAX;
	d->computeInstanceId = dev == 1 ? 1 : UINT32_MAX;
	d->isNumaNode = 0;
	d->numaId = 0;
	/* the name is malloc'ed: the client frees it */
	static const char base[] = "NVIDIA H100 80GB HBM3 (fake)";
	char *n = (char *)malloc(sizeof(base) + 4);
	if (n) {
		memcpy(n, base, sizeof(base));
		if (dev) {
			n[sizeof(base) - 2] = '\0';
			strcat(n, dev == 1 ? " #1)" : " #n)");
		}
	}
	d->name = n;
}

#endif /* FAKE_H */
