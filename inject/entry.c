/* SPDX-License-Identifier: MIT */
/*
 * entry.c - the library's exported entry points, and nothing else.
 *
 *   InitializeInjection       called by the CUDA driver inside cuInit when
 *                             CUDA_INJECTION64_PATH names this library;
 *                             all CUPTI work starts here.
 *   InitializeInjectionNvtx2  called by every NVTX instance (one per shared
 *                             object using NVTX) when NVTX_INJECTION64_PATH
 *                             names this library; idempotent.
 *
 * Loaded with LD_PRELOAD, the constructor only arranges for the driver and
 * NVTX to call those (it sets the two variables when they are unset) and
 * never touches CUDA or CUPTI. inject.map exports exactly these symbols.
 */
#include "base/compat.h"
#include "inject/inject.h"

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#define GPI_EXPORT __attribute__((visibility("default")))

GPI_EXPORT int InitializeInjection(void);
GPI_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table);

GPI_EXPORT int InitializeInjection(void)
{
	int saved = errno;

	if (gpi_session_start()) {
		gpi_cupti_setup();
	}
	errno = saved;
	return 1; /* fail open: the driver always gets success */
}

GPI_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
	int saved = errno;
	int ret = gpi_nvtx_init((const void *(*)(uint32_t))get_export_table);

	errno = saved;
	return ret;
}

/* Whether LD_PRELOAD names this library (by path or file name). */
static bool preloaded(const char *self)
{
	const char *pre = getenv("LD_PRELOAD");
	const char *base = strrchr(self, '/');

	base = base ? base + 1 : self;
	return pre && *base && strstr(pre, base);
}

__attribute__((constructor)) static void on_load(void)
{
	const char *self = gpi_self_path();

	if (!self[0] || !preloaded(self)) {
		return;
	}
	/* The program is still single-threaded here: setenv is safe. */
	if (!getenv("CUDA_INJECTION64_PATH")) {
		setenv("CUDA_INJECTION64_PATH", self, 0);
	}
	if (!getenv("NVTX_INJECTION64_PATH")) {
		setenv("NVTX_INJECTION64_PATH", self, 0);
	}
}
