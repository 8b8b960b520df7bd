/* SPDX-License-Identifier: MIT */
/*
 * outfile.h - the files commands write, written so that nothing of the
 * user's is harmed (docs/reliability.md, "Output files").
 *
 * What PATH is decides how it is written:
 *
 * - "-", /dev/stdout, /dev/fd/N, /proc/self/fd/N: the open descriptor
 *   itself (standard output for "-"), in place;
 * - a symbolic link: what it points to, by these same rules; the link stays;
 * - absent or a regular file: a temporary file in the same folder, renamed
 *   over PATH once complete, so a failed write leaves PATH as it was;
 * - a device, FIFO or socket: opened and written in place, never created,
 *   truncated beyond what open does, renamed or removed;
 * - a directory: refused.
 *
 * On any error the only file removed is the temporary this module created.
 * Not signal-safe: not for inject/. Our temporaries are in the list a
 * signal handler removes (gp_cleanup_run, base.h) while they exist.
 */
#ifndef GP_OUTFILE_H
#define GP_OUTFILE_H

#include "base/compat.h"

#include <stddef.h>

enum gp_out_flags {
	GP_OUT_NOCLOBBER = 1u << 0, /* refuse an existing regular file: "already exists" */
	GP_OUT_BY_NAME = 1u << 1,   /* the caller writes gp_out_name() itself (SQLite): a
				       device, FIFO or standard output gets a copy of a
				       temporary file at close */
};

enum gp_out_kind {
	GP_OUT_RENAME = 0, /* a temporary renamed over dest at close */
	GP_OUT_INPLACE,    /* a device, FIFO or inherited descriptor written in place */
	GP_OUT_STDOUT,     /* standard output ("-", /dev/stdout) */
};

struct gp_out {
	char *path;   /* as given, for messages */
	char *dest;   /* GP_OUT_RENAME: the file renamed over (symbolic links followed) */
	char *tmp;    /* our temporary file, or NULL */
	unsigned tmp_id; /* tmp in the list a signal removes (gp_cleanup_add), or 0 */
	int fd;       /* where the bytes go: the temporary, the device, or standard output */
	int copy_fd;  /* GP_OUT_BY_NAME in place: copied to at close; else -1 */
	enum gp_out_kind kind;
	unsigned flags;
	bool existed; /* GP_OUT_RENAME: dest was a regular file */
};

/*
 * Opens PATH for writing (flags: enum gp_out_flags). Returns 0, or a
 * negative enum gp_err with one line naming PATH in errbuf: -GP_ERR_IO
 * (cannot create, a directory, "already exists" under GP_OUT_NOCLOBBER),
 * -GP_ERR_NOMEM. On error nothing is left to release.
 */
int gp_out_open(struct gp_out *o, const char *path, unsigned flags, char *errbuf, size_t errlen);
/* The file a GP_OUT_BY_NAME caller opens: the temporary. Borrowed until close. */
const char *gp_out_name(const struct gp_out *o);
/* Writes all of buf; 0 or -GP_ERR_IO with the reason in errbuf. */
int gp_out_write(struct gp_out *o, const void *buf, size_t len, char *errbuf, size_t errlen);
/*
 * Finishes the file: closes it and renames the temporary over dest, or
 * copies it to the device. Returns 0, or -GP_ERR_IO (the temporary is
 * removed, PATH as it was). Releases o either way.
 */
int gp_out_close(struct gp_out *o, char *errbuf, size_t errlen);
/* Gives up: closes what was opened and removes only our temporary. Releases o. */
void gp_out_abandon(struct gp_out *o);
/* Opens, writes buf and closes: the whole of a small output. 0 or a negative error. */
int gp_out_write_file(const char *path, unsigned flags, const void *buf, size_t len,
		      char *errbuf, size_t errlen);

/*
 * Do a and b name the same file: the same string, both standard output,
 * the same existing file (device and inode, through symbolic links), or
 * the same place in the same folder for files yet to be made?
 */
bool gp_out_same(const char *a, const char *b);
/* Is PATH an existing regular file, through symbolic links ("--force" applies)? */
bool gp_out_is_regular(const char *path);

#endif /* GP_OUTFILE_H */
