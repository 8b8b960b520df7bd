/* SPDX-License-Identifier: MIT */
/*
 * fake-cuda.c - a fake libcuda.so.1: the part of the CUDA driver the
 * injection path touches, plus the calls a simulated program uses to make
 * CUPTI see work (see fake.h).
 *
 * cuInit does what the real driver does for tools: when
 * CUDA_INJECTION64_PATH is set it dlopens that library and calls its
 * InitializeInjection (twice with FAKECUDA_INIT_TWICE=1, to test
 * idempotence). FAKECUDA_DEVICES sets the device count.
 */
#include "tests/fakecuda/fake.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <cudaProfiler.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result;
static const struct fakecupti_hooks *hooks;
static uint32_t local_corr;

static void do_init(void)
{
	const char *path = getenv("CUDA_INJECTION64_PATH");

	if (!path || !*path) {
		return;
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		/* the real driver says nothing either; the program runs untraced */
		return;
	}
	int (*fn)(void) = (int (*)(void))dlsym(h, "InitializeInjection");
	if (!fn) {
		return;
	}
	init_result = fn();
	const char *twice = getenv("FAKECUDA_INIT_TWICE");
	if (twice && *twice == '1') {
		init_result = fn();
	}
}

static const struct fakecupti_hooks *get_hooks(void)
{
	if (!hooks) {
		void *h = dlopen("libcupti.so.13", RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			hooks = (const struct fakecupti_hooks *)dlsym(h, "fakecupti_hooks");
			dlclose(h);
		}
	}
	return hooks;
}

EXPORT CUresult cuInit(unsigned int flags)
{
	(void)flags;
	pthread_once(&init_once, do_init);
	return 0;
}

EXPORT CUresult cuDriverGetVersion(int *v)
{
	*v = FAKE_DRIVER_VERSION;
	return 0;
}

EXPORT CUresult cuDeviceGetCount(int *n)
{
	*n = fake_ndevices();
	return 0;
}

EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
	if (ordinal < 0 || ordinal >= fake_ndevices()) {
		return CUDA_ERROR_INVALID_DEVICE;
	}
	*dev = ordinal;
	return 0;
}

EXPORT CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute attr, CUdevice dev)
{
	if (dev < 0 || dev >= fake_ndevices()) {
		return CUDA_ERROR_INVALID_DEVICE;
	}
	*v = fake_device_attr(dev, (int)attr);
	return 0;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	snprintf(name, (size_t)len, "NVIDIA H100 80GB HBM3 (fake #%d)", dev);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuProfilerStart(void)
{
	const struct fakecupti_hooks *h = get_hooks();
	if (h) {
		uint32_t c =
			h->api_enter(1, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, "cuProfilerStart");
		h->api_exit(1, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, "cuProfilerStart", c);
	}
	return 0;
}

EXPORT CUresult cuProfilerStop(void)
{
	const struct fakecupti_hooks *h = get_hooks();
	if (h) {
		uint32_t c =
			h->api_enter(1, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop, "cuProfilerStop");
		h->api_exit(1, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop, "cuProfilerStop", c);
	}
	return 0;
}

/* ---------------------------------------------------- simulation calls */

EXPORT int fakecuda_has_cupti(void)
{
	return get_hooks() != NULL;
}

EXPORT int fakecuda_kind_enabled(int kind)
{
	const struct fakecupti_hooks *h = get_hooks();
	return h ? h->kind_enabled(kind) : 0;
}

EXPORT int fakecuda_injection_result(void)
{
	return init_result;
}

EXPORT uint32_t fakecuda_api_enter(int domain, uint32_t cbid, const char *name)
{
	const struct fakecupti_hooks *h = get_hooks();
	return h ? h->api_enter(domain, cbid, name)
		 : __atomic_add_fetch(&local_corr, 1, __ATOMIC_RELAXED);
}

EXPORT void fakecuda_api_exit(int domain, uint32_t cbid, const char *name, uint32_t corr)
{
	const struct fakecupti_hooks *h = get_hooks();
	if (h) {
		h->api_exit(domain, cbid, name, corr);
	}
}

EXPORT int fakecuda_emit(const void *rec, size_t size)
{
	const struct fakecupti_hooks *h = get_hooks();
	return h ? h->emit(rec, size) : 0;
}

EXPORT uint64_t fakecuda_timestamp(void)
{
	const struct fakecupti_hooks *h = get_hooks();
	struct timespec ts;

	if (h) {
		return h->timestamp();
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

EXPORT void fakecuda_drop(uint64_t n)
{
	const struct fakecupti_hooks *h = get_hooks();
	if (h) {
		h->drop(n);
	}
}

EXPORT void fakecuda_deliver(void)
{
	const struct fakecupti_hooks *h = get_hooks();
	if (h) {
		h->deliver();
	}
}
