/* SPDX-License-Identifier: MIT */
/*
 * failmalloc - an LD_PRELOAD shim that makes the Nth allocation fail, for
 * the allocation-failure tests (tests/e2e/t0021-alloc-faults.sh,
 * tests/tools/failmalloc-sweep.sh): every error path behind an allocation
 * is taken, in gpuprof's code and in the libraries it calls (libc's own
 * allocations, zlib, SQLite, libxml2, PCRE2...).
 *
 *   FAILMALLOC_N       the allocation (1 = the first after the program's
 *                      constructors start) that fails; 0 or unset: none
 *   FAILMALLOC_MODE    "once": only the Nth fails; "after" (default): the
 *                      Nth and every later one, as when memory runs out
 *   FAILMALLOC_REPORT  a file to which the allocations made and the failures
 *                      injected are written at exit ("allocs N failed M")
 *   FAILMALLOC_TRAP    1: raise SIGTRAP at the first failure, for a debugger's
 *                      backtrace (gdb -ex run -ex bt --args CMD)
 *
 * malloc, calloc, realloc, reallocarray, posix_memalign, aligned_alloc,
 * memalign and valloc are counted (a realloc to size 0 and a free are not);
 * strdup, asprintf, fopen and the rest reach them through libc. A failure
 * returns NULL with errno ENOMEM, as glibc does. Built without sanitizers:
 * under AddressSanitizer it is preloaded first (ASAN_OPTIONS=
 * verify_asan_link_order=0) and forwards to the sanitizer's allocator.
 */
#include "base/compat.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);

static _Atomic uint64_t allocs;
static _Atomic uint64_t failed;
static uint64_t fail_at;
static bool fail_once, trap;
static bool armed;

/* dlsym allocates: what it asks for before the real functions are known comes from here. */
static _Alignas(16) unsigned char boot[8192];
static size_t boot_used;

static bool in_boot(const void *p)
{
	return (const unsigned char *)p >= boot && (const unsigned char *)p < boot + sizeof(boot);
}

static void *boot_alloc(size_t n)
{
	size_t at = (boot_used + 15) & ~(size_t)15;

	if (at + n > sizeof(boot)) {
		return NULL;
	}
	boot_used = at + n;
	return boot + at;
}

static void resolve(void)
{
	static _Atomic int state; /* 0 not yet, 1 resolving, 2 done */
	int zero = 0;

	if (atomic_load(&state) == 2) {
		return;
	}
	if (!atomic_compare_exchange_strong(&state, &zero, 1)) {
		return; /* resolving on this thread (dlsym allocates): boot_alloc serves it */
	}
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	real_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	atomic_store(&state, 2);
}

/* Whether this allocation is to fail. */
static bool fail_now(void)
{
	if (!armed) {
		return false;
	}
	uint64_t n = atomic_fetch_add(&allocs, 1) + 1;
	if (fail_at && (fail_once ? n == fail_at : n >= fail_at)) {
		if (atomic_fetch_add(&failed, 1) == 0 && trap) {
			raise(SIGTRAP);
		}
		errno = ENOMEM;
		return true;
	}
	return false;
}

__attribute__((constructor(101))) static void failmalloc_init(void)
{
	const char *n = getenv("FAILMALLOC_N");
	const char *mode = getenv("FAILMALLOC_MODE");

	resolve();
	fail_at = n && *n ? strtoull(n, NULL, 10) : 0;
	fail_once = mode && !strcmp(mode, "once");
	trap = getenv("FAILMALLOC_TRAP") && !strcmp(getenv("FAILMALLOC_TRAP"), "1");
	armed = true;
}

__attribute__((destructor)) static void failmalloc_report(void)
{
	const char *path = getenv("FAILMALLOC_REPORT");
	char line[96];
	int fd, len;

	armed = false;
	if (!path || !*path) {
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		return;
	}
	len = snprintf(line, sizeof(line), "allocs %llu failed %llu\n",
		       (unsigned long long)atomic_load(&allocs),
		       (unsigned long long)atomic_load(&failed));
	if (len > 0 && write(fd, line, (size_t)len) < 0) {
		/* nothing to do: the sweep sees no report */
	}
	close(fd);
}

void *malloc(size_t n)
{
	resolve();
	if (!real_malloc) {
		return boot_alloc(n);
	}
	return fail_now() ? NULL : real_malloc(n);
}

void *calloc(size_t k, size_t n)
{
	resolve();
	if (!real_calloc) {
		return k && n > SIZE_MAX / k ? NULL : boot_alloc(k * n); /* boot is zeroed */
	}
	return fail_now() ? NULL : real_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
	resolve();
	if (in_boot(p)) {
		void *q = malloc(n);
		if (q) {
			memcpy(q, p, n < sizeof(boot) - (size_t)((unsigned char *)p - boot)
					     ? n
					     : sizeof(boot) - (size_t)((unsigned char *)p - boot));
		}
		return q;
	}
	if (!real_realloc) {
		return boot_alloc(n);
	}
	if (p && n == 0) {
		return real_realloc(p, n); /* a free */
	}
	return fail_now() ? NULL : real_realloc(p, n);
}

void *reallocarray(void *p, size_t k, size_t n)
{
	if (k && n > SIZE_MAX / k) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, k * n);
}

void free(void *p)
{
	if (!p || in_boot(p)) {
		return;
	}
	resolve();
	if (real_free) {
		real_free(p);
	}
}

int posix_memalign(void **out, size_t align, size_t n)
{
	resolve();
	if (fail_now()) {
		return ENOMEM;
	}
	return real_posix_memalign(out, align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	resolve();
	return fail_now() ? NULL : real_aligned_alloc(align, n);
}

void *memalign(size_t align, size_t n)
{
	resolve();
	return fail_now() ? NULL : real_memalign(align, n);
}

void *valloc(size_t n)
{
	return memalign((size_t)sysconf(_SC_PAGESIZE), n);
}
