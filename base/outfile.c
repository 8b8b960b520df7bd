/* SPDX-License-Identifier: MIT */
/*
 * outfile.c - output files written without harming what is not ours
 * (outfile.h says what each kind of PATH gets).
 */
#include "base/compat.h"
#include "base/base.h"
#include "base/outfile.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINKS 40 /* as the kernel's ELOOP limit */

/* Where a path leads once symbolic links are followed. */
struct target {
	char *path;      /* the last name reached (allocated) */
	int fd;          /* >= 0: an inherited descriptor (standard output, /dev/fd/N) */
	bool exists;     /* st holds the file's lstat */
	bool proc_link;  /* a link in /proc that names no path (pipe:[N]): opened as is */
	struct stat st;
};

/* "-", /dev/stdout, /dev/fd/N, /proc/self/fd/N: the descriptor; else -1. */
static int fd_alias(const char *p)
{
	static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/"};
	char *end;

	if (!strcmp(p, "-") || !strcmp(p, "/dev/stdout")) {
		return STDOUT_FILENO;
	}
	if (!strcmp(p, "/dev/stderr")) {
		return STDERR_FILENO;
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

/* The folder part of p, with a trailing slash ("" for a bare name); allocated. */
static char *dir_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? strndup(p, (size_t)(s - p) + 1) : strdup("");
}

/* Follows path's symbolic links to what they lead to. */
static int resolve(const char *path, struct target *t, char *errbuf, size_t errlen)
{
	char link[PATH_MAX];

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->path = strdup(path);
	for (int hops = 0; t->path; hops++) {
		t->fd = fd_alias(t->path);
		if (t->fd >= 0) {
			return 0;
		}
		if (lstat(t->path, &t->st)) {
			if (errno == ENOENT) {
				return 0;
			}
			snprintf(errbuf, errlen, "%s: cannot write: %s", path, strerror(errno));
			return -GP_ERR_IO;
		}
		t->exists = true;
		if (!S_ISLNK(t->st.st_mode)) {
			return 0;
		}
		ssize_t n = readlink(t->path, link, sizeof(link) - 1);
		if (n < 0 || hops >= MAX_LINKS) {
			snprintf(errbuf, errlen, "%s: cannot write: %s", path,
				 n < 0 ? strerror(errno) : strerror(ELOOP));
			return -GP_ERR_IO;
		}
		link[n] = '\0';
		if (link[0] != '/' && !strncmp(t->path, "/proc/", 6)) {
			t->proc_link = true; /* "pipe:[N]", "socket:[N]": only open() gets there */
			return 0;
		}
		t->exists = false;
		char *dir = link[0] == '/' ? strdup("") : dir_of(t->path);
		free(t->path);
		t->path = NULL;
		if (dir && asprintf(&t->path, "%s%s", dir, link) < 0) {
			t->path = NULL;
		}
		free(dir);
	}
	snprintf(errbuf, errlen, "out of memory");
	return -GP_ERR_NOMEM;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			if (n == 0) {
				errno = EIO;
			}
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Creates a file of ours that did not exist, "PREFIX.tmp-PID-N"; its descriptor or -1. */
static int make_temp(struct gp_out *o, const char *prefix)
{
	for (unsigned i = 0; i < 100; i++) {
		char *name = NULL;
		if (asprintf(&name, "%s.tmp-%ld-%u", prefix, (long)getpid(), i) < 0) {
			errno = ENOMEM;
			return -1;
		}
		/* O_EXCL: never a file that was there, nor through a link planted under our name. */
		int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			o->tmp = name;
			o->tmp_id = gp_cleanup_add(name); /* a signal removes it (cli/signals.c) */
			return fd;
		}
		free(name);
		if (errno != EEXIST) {
			return -1;
		}
	}
	return -1;
}

/* The temporary beside dest, in its folder: a rename then replaces dest at once. */
static int make_temp_beside(struct gp_out *o, const char *dest)
{
	int fd = make_temp(o, dest);

	if (fd < 0 && errno == ENAMETOOLONG) {
		char *dir = dir_of(dest), *prefix = NULL;
		if (!dir || asprintf(&prefix, "%s.gpuprof", dir) < 0) {
			free(dir);
			errno = ENOMEM;
			return -1;
		}
		fd = make_temp(o, prefix);
		free(prefix);
		free(dir);
	}
	return fd;
}

/* The file was found a device, FIFO or descriptor: written where it is. */
static int open_in_place(struct gp_out *o, struct target *t, char *errbuf, size_t errlen)
{
	if (t->fd == STDOUT_FILENO) {
		o->kind = GP_OUT_STDOUT;
		fflush(stdout); /* what stdio holds goes first */
		o->fd = STDOUT_FILENO;
	} else {
		o->kind = GP_OUT_INPLACE;
		o->fd = t->fd >= 0 ? fcntl(t->fd, F_DUPFD_CLOEXEC, 3)
				   : open(t->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (o->fd < 0) {
			snprintf(errbuf, errlen, "%s: cannot open: %s", o->path, strerror(errno));
			return -GP_ERR_IO;
		}
	}
	if (o->flags & GP_OUT_BY_NAME) {
		o->copy_fd = o->fd;
		char *prefix = NULL;
		if (asprintf(&prefix, "%s/gpuprof-out", gp_tmpdir()) < 0) {
			snprintf(errbuf, errlen, "out of memory");
			return -GP_ERR_NOMEM;
		}
		o->fd = make_temp(o, prefix);
		free(prefix);
		if (o->fd < 0) {
			snprintf(errbuf, errlen, "%s: cannot create a temporary file in %s: %s",
				 o->path, gp_tmpdir(), strerror(errno));
			return -GP_ERR_IO;
		}
	}
	return 0;
}

int gp_out_open(struct gp_out *o, const char *path, unsigned flags, char *errbuf, size_t errlen)
{
	struct target t = {.fd = -1};
	int ret;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->copy_fd = -1;
	o->flags = flags;
	if (!path || !*path) {
		snprintf(errbuf, errlen, "no output path");
		return -GP_ERR_API;
	}
	o->path = strdup(path);
	ret = o->path ? resolve(path, &t, errbuf, errlen) : -GP_ERR_NOMEM;
	if (!ret && t.exists && S_ISDIR(t.st.st_mode)) {
		snprintf(errbuf, errlen, "%s: cannot write: %s", path, strerror(EISDIR));
		ret = -GP_ERR_IO;
	} else if (!ret && (t.fd >= 0 || t.proc_link || (t.exists && !S_ISREG(t.st.st_mode)))) {
		ret = open_in_place(o, &t, errbuf, errlen);
	} else if (!ret && t.exists && (flags & GP_OUT_NOCLOBBER)) {
		snprintf(errbuf, errlen, "%s: already exists", path);
		ret = -GP_ERR_IO;
	} else if (!ret) {
		o->kind = GP_OUT_RENAME;
		o->existed = t.exists;
		o->dest = t.path;
		t.path = NULL;
		o->fd = make_temp_beside(o, o->dest);
		if (o->fd < 0) {
			snprintf(errbuf, errlen, "%s: cannot create: %s", path, strerror(errno));
			ret = -GP_ERR_IO;
		} else if (t.exists) {
			/* The replacement keeps the permissions of the file it replaces. */
			(void)fchmod(o->fd, t.st.st_mode & 07777);
		}
	}
	if (ret == -GP_ERR_NOMEM) {
		snprintf(errbuf, errlen, "out of memory");
	}
	free(t.path);
	if (ret) {
		gp_out_abandon(o);
	}
	return ret;
}

const char *gp_out_name(const struct gp_out *o)
{
	return o->tmp ? o->tmp : o->path;
}

int gp_out_write(struct gp_out *o, const void *buf, size_t len, char *errbuf, size_t errlen)
{
	if (o->fd < 0 || write_all(o->fd, buf, len)) {
		snprintf(errbuf, errlen, "%s: cannot write: %s", o->path,
			 o->fd < 0 ? strerror(EBADF) : strerror(errno));
		return -GP_ERR_IO;
	}
	return 0;
}

/* GP_OUT_BY_NAME in place: the temporary's bytes to the device. */
static int copy_out(struct gp_out *o)
{
	char buf[65536];
	off_t off = 0;

	for (;;) {
		ssize_t n = pread(o->fd, buf, sizeof(buf), off);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return -1;
		}
		if (n == 0) {
			return 0;
		}
		if (write_all(o->copy_fd, buf, (size_t)n)) {
			return -1;
		}
		off += n;
	}
}

/* Our temporary is gone (renamed or removed): a signal has nothing to remove. */
static void forget_tmp(struct gp_out *o)
{
	gp_cleanup_remove(o->tmp_id);
	o->tmp_id = 0;
	free(o->tmp);
	o->tmp = NULL;
}

static void release(struct gp_out *o)
{
	gp_cleanup_remove(o->tmp_id);
	free(o->path);
	free(o->dest);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->copy_fd = -1;
}

/* Renames our temporary over dest; GP_OUT_NOCLOBBER never replaces a file made meanwhile. */
static int rename_over(struct gp_out *o)
{
	if (!(o->flags & GP_OUT_NOCLOBBER)) {
		return rename(o->tmp, o->dest);
	}
	if (!renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->dest, RENAME_NOREPLACE)) {
		return 0;
	}
	if (errno != EINVAL && errno != ENOSYS) {
		return -1;
	}
	/* A file system without RENAME_NOREPLACE: link() refuses an existing name too. */
	if (link(o->tmp, o->dest)) {
		return -1;
	}
	unlink(o->tmp);
	return 0;
}

int gp_out_close(struct gp_out *o, char *errbuf, size_t errlen)
{
	int err = 0;

	if (o->copy_fd >= 0 && copy_out(o)) {
		err = errno ? errno : EIO;
	}
	if (o->kind != GP_OUT_STDOUT || o->copy_fd >= 0) {
		if (close(o->fd) && !err) {
			err = errno;
		}
	}
	o->fd = -1;
	if (o->copy_fd >= 0 && o->kind != GP_OUT_STDOUT && close(o->copy_fd) && !err) {
		err = errno;
	}
	o->copy_fd = -1;
	if (!err && o->kind == GP_OUT_RENAME) {
		if (rename_over(o)) {
			err = errno;
		} else {
			forget_tmp(o);
		}
	} else if (!err && o->tmp) {
		unlink(o->tmp);
		forget_tmp(o);
	}
	if (err) {
		if (err == EEXIST) {
			snprintf(errbuf, errlen, "%s: already exists", o->path);
		} else {
			snprintf(errbuf, errlen, "%s: cannot write: %s", o->path, strerror(err));
		}
		gp_out_abandon(o);
		return -GP_ERR_IO;
	}
	release(o);
	return 0;
}

void gp_out_abandon(struct gp_out *o)
{
	if (o->fd >= 0 && (o->kind != GP_OUT_STDOUT || o->tmp)) {
		close(o->fd);
	}
	if (o->copy_fd >= 0 && o->kind != GP_OUT_STDOUT) {
		close(o->copy_fd);
	}
	if (o->tmp) {
		unlink(o->tmp); /* ours alone: created with O_EXCL */
		forget_tmp(o);
	}
	release(o);
}

int gp_out_write_file(const char *path, unsigned flags, const void *buf, size_t len,
		      char *errbuf, size_t errlen)
{
	struct gp_out o;
	int ret = gp_out_open(&o, path, flags, errbuf, errlen);

	if (ret) {
		return ret;
	}
	ret = gp_out_write(&o, buf, len, errbuf, errlen);
	if (ret) {
		gp_out_abandon(&o);
		return ret;
	}
	return gp_out_close(&o, errbuf, errlen);
}

/* Where a file yet to be made would go: its folder's real path and its name. */
static char *place_of(const char *p)
{
	char *dir = dir_of(p), *real, *out = NULL;
	const char *base = strrchr(p, '/');

	if (!dir) {
		return NULL;
	}
	real = realpath(*dir ? dir : ".", NULL);
	if (real && asprintf(&out, "%s/%s", real, base ? base + 1 : p) < 0) {
		out = NULL;
	}
	free(real);
	free(dir);
	return out;
}

/* The device and inode of what t leads to; false when it does not exist. */
static bool node_of(const struct target *t, struct stat *st)
{
	if (t->fd >= 0) {
		return !fstat(t->fd, st);
	}
	return t->exists && !stat(t->path, st);
}

bool gp_out_same(const char *a, const char *b)
{
	struct target ta, tb;
	struct stat sa, sb;
	char err[8];
	bool same = !strcmp(a, b);

	if (same) {
		return true;
	}
	if (resolve(a, &ta, err, sizeof(err))) {
		free(ta.path);
		return false;
	}
	if (resolve(b, &tb, err, sizeof(err))) {
		free(ta.path);
		free(tb.path);
		return false;
	}
	if (ta.fd >= 0 && ta.fd == tb.fd) {
		same = true;
	} else if (node_of(&ta, &sa) && node_of(&tb, &sb)) {
		same = sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	} else if (!ta.exists && !tb.exists && ta.fd < 0 && tb.fd < 0 && ta.path && tb.path) {
		char *pa = place_of(ta.path), *pb = place_of(tb.path);
		same = pa && pb && !strcmp(pa, pb);
		free(pa);
		free(pb);
	}
	free(ta.path);
	free(tb.path);
	return same;
}

bool gp_out_is_regular(const char *path)
{
	struct stat st;

	return fd_alias(path) < 0 && !stat(path, &st) && S_ISREG(st.st_mode);
}
