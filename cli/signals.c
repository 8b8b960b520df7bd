/* SPDX-License-Identifier: MIT */
/*
 * signals.c - how a command ends on SIGINT, SIGTERM and SIGHUP, and what it
 * says about inputs that are streams (docs/reliability.md, "Signals",
 * "Streams as inputs").
 *
 * Temporaries: an import's and a stream's copy have no name (gp_tmpfile);
 * the named ones (an output's PATH.tmp-PID-N, base/outfile.c) are in the
 * cleanup list, which the handler empties. It then dies of the signal
 * itself, so the shell sees 128 + the signal (130, 143, 129).
 */
#include "base/compat.h"
#include "cli/cli.h"
#include "import/import.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

static const int signals[] = {SIGINT, SIGTERM, SIGHUP};

/* Async-signal-safe: unlink and re-raise only. */
static void on_signal(int sig)
{
	gp_cleanup_run();
	signal(sig, SIG_DFL);
	raise(sig); /* delivered once the handler returns: the process dies of it */
}

/* A note on stderr, as messages are written ("gpuprof: note: ..."). */
static void stream_note(enum gpa_stream_event ev, const char *path)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static GP_VEC(char *) said;
	bool again = false;

	if (ev == GPA_STREAM_WAITING) {
		fprintf(stderr, "gpuprof: %s: waiting for a writer\n", path);
		fflush(stderr);
		return;
	}
	/* A directory is expanded more than once (outputs are checked against it first). */
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < said.n && !again; i++) {
		again = !strcmp(said.v[i], path);
	}
	if (!again) {
		char *s = strdup(path);
		if (s && gp_vec_push(&said, s)) {
			free(s);
		}
		fprintf(stderr, "gpuprof: note: %s: not a regular file (a FIFO, socket or device): "
			"left out\n", path);
	}
	pthread_mutex_unlock(&lock);
}

/* fd, now blocking; -1 (closed) if that cannot be set. */
static int blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

FILE *cli_fopen_input(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat sb;
	int first = EOF;
	FILE *f;

	if (fd < 0) {
		return NULL;
	}
	if (!fstat(fd, &sb) && S_ISFIFO(sb.st_mode)) {
		unsigned char c;
		ssize_t got = read(fd, &c, 1);
		if (got == 1) {
			first = c;
		} else if (got == 0) {
			/* No writer yet: say so, then wait for one. */
			stream_note(GPA_STREAM_WAITING, path);
			close(fd);
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
			if (fd < 0) {
				return NULL;
			}
		}
	}
	fd = blocking(fd);
	f = fd < 0 ? NULL : fdopen(fd, "rb");
	if (!f) {
		if (fd >= 0) {
			close(fd);
		}
		return NULL;
	}
	if (first != EOF) {
		ungetc(first, f); /* one byte of push-back: always there */
	}
	return f;
}

void cli_signals_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < GP_ARRAY_SIZE(signals); i++) {
		sigaddset(&sa.sa_mask, signals[i]);
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(signals); i++) {
		struct sigaction old;
		/* A signal the shell has us ignore (a background job's SIGINT) stays ignored. */
		if (!sigaction(signals[i], NULL, &old) && old.sa_handler != SIG_IGN) {
			sigaction(signals[i], &sa, NULL);
		}
	}
	gpa_stream_set_note(stream_note);
	atexit(gpa_stream_release_all);
}
