/* SPDX-License-Identifier: MIT */
/*
 * failwrite - an LD_PRELOAD shim that makes writes to some files fail, for
 * the fault-injection tests (tests/e2e/t1100-faults.sh): a full disk or a
 * failing device under a recording program.
 *
 *   FAILWRITE_MATCH   substring of the file's path (/proc/self/fd/N) that
 *                     selects the files (default ".gpz")
 *   FAILWRITE_AFTER   bytes that succeed, over all selected files, before
 *                     the first failure (default 0); the write that crosses
 *                     the limit is cut short there, as on a full disk
 *   FAILWRITE_ERRNO   ENOSPC (default), EIO or EFBIG
 *   FAILWRITE_COUNT   failures before writes succeed again (default: never)
 *
 * write, pwrite, pwrite64 and writev are interposed; anything else passes.
 */
#include "base/compat.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

static _Atomic uint64_t written;
static _Atomic uint64_t failures;

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 10) : dflt;
}

static int fail_errno(void)
{
	const char *v = getenv("FAILWRITE_ERRNO");

	if (v && !strcmp(v, "EIO")) {
		return EIO;
	}
	if (v && !strcmp(v, "EFBIG")) {
		return EFBIG;
	}
	return ENOSPC;
}

static bool selected(int fd)
{
	const char *m = getenv("FAILWRITE_MATCH");
	char link[64], path[4096];
	ssize_t n;
	int saved = errno;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	errno = saved;
	if (n <= 0) {
		return false;
	}
	path[n] = '\0';
	return strstr(path, m && *m ? m : ".gpz") != NULL;
}

/*
 * How many of len bytes to let through: len, fewer (cut short at the
 * limit), or -1 with errno set (a failure).
 */
static ssize_t allow(int fd, size_t len)
{
	uint64_t after = env_u64("FAILWRITE_AFTER", 0);
	uint64_t count = env_u64("FAILWRITE_COUNT", UINT64_MAX);

	if (!len || !selected(fd)) {
		return (ssize_t)len;
	}
	uint64_t done = atomic_load(&written);
	if (done < after) {
		uint64_t room = after - done;
		size_t n = len < room ? len : (size_t)room;
		atomic_fetch_add(&written, n);
		return (ssize_t)n;
	}
	if (atomic_fetch_add(&failures, 1) >= count) {
		return (ssize_t)len; /* the fault has passed */
	}
	errno = fail_errno();
	return -1;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	static ssize_t (*real)(int, const void *, size_t);
	ssize_t n;

	if (!real) {
		real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	}
	n = allow(fd, len);
	return n < 0 ? -1 : real(fd, buf, (size_t)n);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);
	ssize_t n;

	if (!real) {
		real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	}
	n = allow(fd, len);
	return n < 0 ? -1 : real(fd, buf, (size_t)n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	return pwrite(fd, buf, len, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	static ssize_t (*real)(int, const struct iovec *, int);
	size_t len = 0;
	ssize_t n;

	if (!real) {
		real = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
	}
	for (int i = 0; i < cnt; i++) {
		len += iov[i].iov_len;
	}
	n = allow(fd, len);
	if (n < 0) {
		return -1;
	}
	if ((size_t)n == len) {
		return real(fd, iov, cnt);
	}
	/* cut short: the first n bytes, from as many buffers as they span */
	ssize_t total = 0;
	for (int i = 0; i < cnt && n > 0; i++) {
		size_t part = iov[i].iov_len < (size_t)n ? iov[i].iov_len : (size_t)n;
		ssize_t w = write(fd, iov[i].iov_base, part);
		if (w < 0) {
			return total ? total : -1;
		}
		total += w;
		n -= w;
	}
	return total;
}
