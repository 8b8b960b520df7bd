/* SPDX-License-Identifier: MIT */
/*
 * stream.c - inputs that can be read only once: "-", pipes, FIFOs and
 * character devices. Each is copied, once per process, into a private
 * temporary file with no name (base: gp_tmpfile), which every reader then
 * opens as it opens a file: the format is sniffed, a .gpz read with pread,
 * a Kineto trace split among threads, an nsys export opened by SQLite.
 * docs/reliability.md, "Streams as inputs".
 */
#define GP_LOG_TAG "import/stream"
#include "base/compat.h"
#include "import/import.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct spooled {
	char *path;  /* as given */
	int fd;      /* the copy; -1 when copying failed */
	char *name;  /* the copy's name, for SQLite (which opens by name); else NULL */
	char *err;   /* why it failed, said again to a later caller */
	unsigned cleanup; /* name in the list a signal removes (gp_cleanup_add) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static GP_VEC(struct spooled) spools;
static gpa_stream_note_fn note_fn;

void gpa_stream_set_note(gpa_stream_note_fn fn)
{
	note_fn = fn;
}

void gpa_stream_note(enum gpa_stream_event ev, const char *path)
{
	if (note_fn) {
		note_fn(ev, path);
	}
}

/* "-", /dev/stdin, /dev/fd/N, /proc/self/fd/N: the descriptor; else -1. */
static int fd_alias(const char *p)
{
	static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/"};
	char *end;

	if (!strcmp(p, "-") || !strcmp(p, "/dev/stdin")) {
		return STDIN_FILENO;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(dirs); i++) {
		size_t n = strlen(dirs[i]);
		if (!strncmp(p, dirs[i], n) && p[n] >= '0' && p[n] <= '9') {
			long v = strtol(p + n, &end, 10);
			if (!*end && v <= INT_MAX) {
				return (int)v;
			}
		}
	}
	return -1;
}

bool gpa_input_is_stream(const char *path)
{
	struct stat sb;

	if (!strcmp(path, "-")) {
		return true;
	}
	if (stat(path, &sb)) {
		return false;
	}
	return S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode) || S_ISSOCK(sb.st_mode);
}

/* A named copy is removed, and forgotten by the signal handler. */
static void drop_name(struct spooled *s)
{
	if (s->name) {
		unlink(s->name);
		gp_cleanup_remove(s->cleanup);
		free(s->name);
		s->name = NULL;
	}
}

void gpa_stream_release_all(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < spools.n; i++) {
		drop_name(&spools.v[i]);
		if (spools.v[i].fd >= 0) {
			close(spools.v[i].fd);
		}
		free(spools.v[i].path);
		free(spools.v[i].err);
	}
	gp_vec_free(&spools);
	pthread_mutex_unlock(&lock);
}

static struct spooled *find(const char *path)
{
	for (size_t i = 0; i < spools.n; i++) {
		if (!strcmp(spools.v[i].path, path)) {
			return &spools.v[i];
		}
	}
	return NULL;
}

/* fd, now read blocking; -1 (fd closed) if that cannot be set. */
static int blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/*
 * A FIFO opened without blocking: is there a writer? The first bytes are
 * read into b (*n of them), kept for the copy. With no writer yet, the
 * wait is said (GPA_STREAM_WAITING), then the FIFO opened again, blocking.
 */
static int wait_writer(const char *path, int fd, unsigned char *b, size_t cap, size_t *n)
{
	ssize_t got = read(fd, b, cap);

	if (got > 0) {
		*n = (size_t)got;
	} else if (got == 0) {
		/* No writer (or one that left having written nothing): wait for the next. */
		gpa_stream_note(GPA_STREAM_WAITING, path);
		int bfd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		int err = errno;
		close(fd);
		errno = err;
		return bfd;
	} else if (errno != EAGAIN && errno != EWOULDBLOCK) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return blocking(fd);
}

/* Where the stream's bytes come from: a copy of our own descriptor, or path opened. */
static int source_open(const char *path, unsigned char *b, size_t cap, size_t *n)
{
	int alias = fd_alias(path);
	struct stat sb;
	int fd;

	*n = 0;
	if (alias >= 0) {
		return fcntl(alias, F_DUPFD_CLOEXEC, 3);
	}
	/* Non-blocking: a FIFO with no writer must not hang the open. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		return -1;
	}
	if (fstat(fd, &sb)) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	if (S_ISFIFO(sb.st_mode)) {
		return wait_writer(path, fd, b, cap, n);
	}
	return blocking(fd);
}

static int write_all(int fd, const unsigned char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			if (!w) {
				errno = ENOSPC;
			}
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Reads into b until it holds want bytes or the stream ends; -1 on a read error. */
static int fill(int fd, unsigned char *b, size_t want, size_t *n)
{
	while (*n < want) {
		ssize_t got = read(fd, b + *n, want - *n);
		if (got < 0 && errno == EINTR) {
			continue;
		}
		if (got < 0) {
			return -1;
		}
		if (!got) {
			break;
		}
		*n += (size_t)got;
	}
	return 0;
}

#define SNIFF_BYTES 16
#define COPY_BUF (1u << 20)

/*
 * Copies src to dst. Content no format claims stops at its first bytes,
 * which are enough for the reader to say what it is not: /dev/zero or
 * /dev/urandom are not read for ever.
 */
static int copy_stream(const char *path, int src, int dst, unsigned char *b, size_t n,
		       bool known, char *errbuf, size_t errlen)
{
	for (;;) {
		if (n && write_all(dst, b, n)) {
			snprintf(errbuf, errlen, "%s: cannot copy the stream into a temporary file "
				 "in %s: %s", path, gp_tmpdir(), strerror(errno));
			return -GP_ERR_IO;
		}
		if (!known) {
			return 0;
		}
		n = 0;
		if (fill(src, b, COPY_BUF, &n)) {
			snprintf(errbuf, errlen, "%s: cannot read: %s", path, strerror(errno));
			return -GP_ERR_IO;
		}
		if (!n) {
			return 0;
		}
	}
}

/*
 * SQLite opens a database by name, and resolves /proc/self/fd/N to the
 * name a file without one does not have: an export gets a named temporary,
 * private (0600), in the list a signal removes, removed at exit.
 */
static int named_tmp(struct spooled *s)
{
	int fd, err;

	if (asprintf(&s->name, "%s/gpuprof-stream-XXXXXX", gp_tmpdir()) < 0) {
		s->name = NULL;
		errno = ENOMEM;
		return -1;
	}
	fd = mkostemp(s->name, O_CLOEXEC);
	err = errno;
	if (fd < 0) {
		free(s->name);
		s->name = NULL;
	} else {
		s->cleanup = gp_cleanup_add(s->name);
	}
	errno = err;
	return fd;
}

/* The copy of path into a new temporary: its descriptor, or -1 with errbuf said. */
static int spool(const char *path, struct spooled *s, char *errbuf, size_t errlen)
{
	unsigned char *b = malloc(COPY_BUF);
	size_t n = 0;
	int src = -1, dst = -1, ret = -GP_ERR_NOMEM;
	enum gpa_input_format fmt;

	if (!b) {
		snprintf(errbuf, errlen, "out of memory");
		return -1;
	}
	src = source_open(path, b, COPY_BUF, &n);
	if (src < 0) {
		snprintf(errbuf, errlen, "%s: cannot open: %s", path, strerror(errno));
		goto out;
	}
	if (isatty(src)) {
		snprintf(errbuf, errlen, "%s: a terminal, not a trace: give a file, or pipe one in",
			 path);
		goto out;
	}
	ret = -GP_ERR_IO;
	if (fill(src, b, SNIFF_BYTES, &n)) {
		snprintf(errbuf, errlen, "%s: cannot read: %s", path, strerror(errno));
		goto out;
	}
	fmt = gpa_input_detect_bytes(b, n);
	dst = fmt == GPA_INPUT_NSYS ? named_tmp(s) : gp_tmpfile();
	if (dst < 0) {
		snprintf(errbuf, errlen, "%s: cannot create a temporary file in %s: %s", path,
			 gp_tmpdir(), strerror(errno));
		goto out;
	}
	ret = copy_stream(path, src, dst, b, n, fmt != GPA_INPUT_UNKNOWN, errbuf, errlen);
out:
	if (src >= 0) {
		close(src);
	}
	free(b);
	if (ret && dst >= 0) {
		close(dst);
		dst = -1;
	}
	if (ret) {
		drop_name(s);
	}
	return ret || dst < 0 ? -1 : dst;
}

int gpa_stream_spool(const char *path, char *errbuf, size_t errlen)
{
	struct spooled s = {0};
	int ret = 0;

	pthread_mutex_lock(&lock);
	struct spooled *old = find(path);
	if (old) {
		if (old->fd < 0) {
			snprintf(errbuf, errlen, "%s", old->err ? old->err : "out of memory");
			ret = -GP_ERR_IO;
		}
		pthread_mutex_unlock(&lock);
		return ret;
	}
	s.fd = spool(path, &s, errbuf, errlen);
	s.path = strdup(path);
	if (s.fd < 0) {
		s.err = strdup(errbuf);
		ret = -GP_ERR_IO;
	} else {
		gp_debug("%s: a stream, copied into a temporary file of %lld bytes", path,
			 (long long)lseek(s.fd, 0, SEEK_END));
	}
	if (!s.path || gp_vec_push(&spools, s)) {
		if (s.fd >= 0) {
			close(s.fd);
		}
		drop_name(&s);
		free(s.path);
		free(s.err);
		snprintf(errbuf, errlen, "out of memory");
		ret = -GP_ERR_NOMEM;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

/* The spooled copy of path: its descriptor, or -1. Under the lock. */
static int copy_fd(const char *path)
{
	const struct spooled *s = find(path);

	return s ? s->fd : -1;
}

int gpa_input_open_fd(const char *path)
{
	char proc[64];
	int fd;

	pthread_mutex_lock(&lock);
	fd = copy_fd(path);
	pthread_mutex_unlock(&lock);
	if (fd < 0) {
		return open(path, O_RDONLY | O_CLOEXEC);
	}
	/* A description of its own, so that readers on threads do not share an offset. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	int nfd = open(proc, O_RDONLY | O_CLOEXEC);
	if (nfd < 0) {
		nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3); /* no /proc: readers use pread */
		if (nfd >= 0) {
			(void)lseek(nfd, 0, SEEK_SET);
		}
	}
	return nfd;
}

const char *gpa_input_path(const char *path, char *buf, size_t len)
{
	int fd;

	pthread_mutex_lock(&lock);
	fd = copy_fd(path);
	pthread_mutex_unlock(&lock);
	if (fd < 0) {
		return path;
	}
	pthread_mutex_lock(&lock);
	const char *name = find(path)->name;
	pthread_mutex_unlock(&lock);
	if (name) {
		return name; /* stays until gpa_stream_release_all */
	}
	snprintf(buf, len, "/proc/self/fd/%d", fd);
	return buf;
}

int gpa_input_stat(const char *path, struct stat *sb)
{
	int fd;

	pthread_mutex_lock(&lock);
	fd = copy_fd(path);
	pthread_mutex_unlock(&lock);
	return fd < 0 ? stat(path, sb) : fstat(fd, sb);
}
