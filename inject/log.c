/* SPDX-License-Identifier: MIT */
/*
 * log.c - the library's only output: a signal-safe formatter, the
 * GPUPROF_DEBUG=1 debug log and the one fail-open warning line.
 *
 * Everything here is async-signal-safe: fixed stack buffers, no stdio, no
 * malloc, write(2) retried on EINTR, errno preserved.
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <dlfcn.h>
#include <unistd.h>

bool gpi_debug_on;
static _Atomic int warned;

void gpi_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	int saved = errno;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	errno = saved;
}

static size_t put_num(char *buf, size_t size, size_t pos, unsigned long long v, unsigned base,
		      bool neg, unsigned width, char pad)
{
	char tmp[24];
	size_t n = 0;

	do {
		unsigned d = (unsigned)(v % base);
		tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v && n < sizeof(tmp));
	if (neg) {
		tmp[n++] = '-';
	}
	while (n < width && pos + 1 < size) {
		buf[pos++] = pad;
		width--;
	}
	while (n && pos + 1 < size) {
		buf[pos++] = tmp[--n];
	}
	return pos;
}

size_t gpi_vfmt(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t pos = 0;

	if (!size) {
		return 0;
	}
	for (const char *f = fmt; *f && pos + 1 < size; f++) {
		if (*f != '%') {
			buf[pos++] = *f;
			continue;
		}
		f++;
		char pad = ' ';
		unsigned width = 0;
		if (*f == '0') {
			pad = '0';
			f++;
		}
		while (*f >= '0' && *f <= '9') {
			width = width * 10 + (unsigned)(*f - '0');
			f++;
		}
		int lng = 0;
		bool z = false;
		while (*f == 'l') {
			lng++;
			f++;
		}
		if (*f == 'z') {
			z = true;
			f++;
		}
		switch (*f) {
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s) {
				s = "(null)";
			}
			size_t len = strlen(s);
			while (len < width && pos + 1 < size) {
				buf[pos++] = ' ';
				width--;
			}
			while (*s && pos + 1 < size) {
				buf[pos++] = *s++;
			}
			break;
		}
		case 'c':
			buf[pos++] = (char)va_arg(ap, int);
			break;
		case 'd':
		case 'i': {
			long long v = z		 ? (long long)va_arg(ap, ssize_t)
				      : lng >= 2 ? va_arg(ap, long long)
				      : lng == 1 ? va_arg(ap, long)
						 : va_arg(ap, int);
			unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v
						     : (unsigned long long)v;
			pos = put_num(buf, size, pos, u, 10, v < 0, width, pad);
			break;
		}
		case 'u':
		case 'x': {
			unsigned long long v = z	  ? va_arg(ap, size_t)
					       : lng >= 2 ? va_arg(ap, unsigned long long)
					       : lng == 1 ? va_arg(ap, unsigned long)
							  : va_arg(ap, unsigned);
			pos = put_num(buf, size, pos, v, *f == 'x' ? 16 : 10, false, width, pad);
			break;
		}
		case 'p': {
			uintptr_t v = (uintptr_t)va_arg(ap, void *);
			if (pos + 3 < size) {
				buf[pos++] = '0';
				buf[pos++] = 'x';
			}
			pos = put_num(buf, size, pos, v, 16, false, 0, ' ');
			break;
		}
		case '%':
			buf[pos++] = '%';
			break;
		case '\0':
			f--;
			break;
		default:
			buf[pos++] = '?';
			break;
		}
	}
	buf[pos] = '\0';
	return pos;
}

size_t gpi_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = gpi_vfmt(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

void gpi_dbg_(const char *fmt, ...)
{
	char buf[512];
	size_t n;
	va_list ap;
	int saved = errno;

	n = gpi_fmt(buf, sizeof(buf), "gpuprof[%u]: debug: ", (unsigned)getpid());
	va_start(ap, fmt);
	n += gpi_vfmt(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	buf[n++] = '\n';
	gpi_write_all(2, buf, n);
	errno = saved;
}

static void vwarn(const char *fmt, va_list ap)
{
	char buf[1024];
	size_t n;
	int saved = errno;

	n = gpi_fmt(buf, sizeof(buf), "gpuprof: warning: ");
	n += gpi_vfmt(buf + n, sizeof(buf) - n - 1, fmt, ap);
	buf[n++] = '\n';
	gpi_write_all(2, buf, n);
	errno = saved;
}

void gpi_warn_once(const char *fmt, ...)
{
	va_list ap;

	if (atomic_exchange(&warned, 1)) {
		return;
	}
	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void gpi_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void *gpi_dlsym(void *handle, const char *name)
{
	void *s = dlsym(handle, name);

	if (!s) {
		dlerror(); /* returns the message ... */
		dlerror(); /* ... and frees it */
	}
	return s;
}

void *gpi_dlopen(const char *path, int flags)
{
	void *h = dlopen(path, flags);

	if (!h) {
		dlerror();
		dlerror();
	}
	return h;
}
