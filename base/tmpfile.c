/* SPDX-License-Identifier: MIT */
/*
 * tmpfile.c - private temporary files, and the list of the named ones a
 * signal must remove (docs/reliability.md, "Signals").
 */
#include "base/compat.h"
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gp_tmpfile(void)
{
	int fd = open(gp_tmpdir(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	char *name = NULL;
	int err;

	if (fd >= 0) {
		return fd;
	}
	/* No O_TMPFILE here (an old kernel, a file system without it): a name, removed at once. */
	if (asprintf(&name, "%s/gpuprof-tmp-XXXXXX", gp_tmpdir()) < 0) {
		errno = ENOMEM;
		return -1;
	}
	fd = mkostemp(name, O_CLOEXEC);
	err = errno;
	if (fd >= 0) {
		unlink(name);
	}
	free(name);
	errno = err;
	return fd;
}

/*
 * The named temporaries: fixed slots, so that the signal handler reads
 * them without locks or allocation. A slot is FREE, being FILLED by the
 * thread that took it, or LIVE (the handler removes its path).
 */
enum { SLOT_FREE, SLOT_FILLED, SLOT_LIVE };
#define CLEANUP_SLOTS 32

static struct {
	atomic_int state;
	char path[PATH_MAX];
} slots[CLEANUP_SLOTS];

unsigned gp_cleanup_add(const char *path)
{
	size_t len = strlen(path);

	if (len >= PATH_MAX) {
		return 0;
	}
	for (unsigned i = 0; i < CLEANUP_SLOTS; i++) {
		int free_state = SLOT_FREE;
		if (atomic_compare_exchange_strong(&slots[i].state, &free_state, SLOT_FILLED)) {
			memcpy(slots[i].path, path, len + 1);
			atomic_store(&slots[i].state, SLOT_LIVE);
			return i + 1;
		}
	}
	return 0; /* full: the path is still removed on every other way out */
}

void gp_cleanup_remove(unsigned id)
{
	if (id && id <= CLEANUP_SLOTS) {
		atomic_store(&slots[id - 1].state, SLOT_FREE);
	}
}

void gp_cleanup_run(void)
{
	int saved = errno;

	for (unsigned i = 0; i < CLEANUP_SLOTS; i++) {
		if (atomic_load(&slots[i].state) == SLOT_LIVE) {
			(void)unlink(slots[i].path);
		}
	}
	errno = saved;
}
