// SPDX-License-Identifier: MIT
/*
 * ahead.c - Kineto inputs of one load converted on worker threads, ahead of
 * the input the caller is reading (import.h, "Conversion ahead").
 *
 * One job per input; a worker takes the lowest Kineto input not started,
 * as long as it is fewer than nth inputs past the one the caller is reading
 * (the window bounds the converted traces waiting: each holds an unlinked
 * temporary file and an open reader). Every job writes only its own slot;
 * the slots, the cursor and the window move under one mutex.
 */
#define GP_LOG_TAG "import/ahead"
#include "base/compat.h"
#include "base/base.h"
#include "import/import.h"
#include "trace/trace.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORKERS 16

enum job_state {
	J_SKIP,    /* not a Kineto input: the caller opens it */
	J_WAITING, /* not started */
	J_RUNNING,
	J_DONE,
	J_TAKEN,
};

struct job {
	enum job_state state;
	int ret;
	struct gpt_reader *r;
	char *err; /* errlen bytes: the message the caller's buffer would have held */
};

struct gpa_import_ahead {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const char *const *paths;
	struct job *jobs;
	size_t n;
	size_t next;     /* no job below it is waiting */
	size_t consumed; /* inputs the caller has taken or opened itself */
	size_t window;   /* jobs started at most this far past consumed */
	size_t errlen;
	bool stop;
	pthread_t th[MAX_WORKERS];
	size_t nth;
};

/* The next job to run, or n; under the mutex. */
static size_t next_job(struct gpa_import_ahead *a)
{
	while (a->next < a->n && a->jobs[a->next].state != J_WAITING) {
		a->next++;
	}
	return a->next;
}

static void *worker(void *arg)
{
	struct gpa_import_ahead *a = arg;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		size_t i = next_job(a);
		while (!a->stop && i < a->n && i >= a->consumed + a->window) {
			pthread_cond_wait(&a->cv, &a->mu);
			i = next_job(a);
		}
		if (a->stop || i >= a->n) {
			break;
		}
		struct job *j = &a->jobs[i];
		j->state = J_RUNNING;
		pthread_mutex_unlock(&a->mu);
		struct gpt_reader *r = NULL;
		int ret = 1; /* no memory for the message: the caller converts it itself */
		j->err = malloc(a->errlen);
		if (j->err) {
			j->err[0] = 0;
			ret = gpa_input_open(a->paths[i], &r, NULL, j->err, a->errlen);
		}
		if (ret) {
			gpt_reader_free(r);
			r = NULL;
		}
		pthread_mutex_lock(&a->mu);
		j->r = r;
		j->ret = ret;
		j->state = J_DONE;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* Marks jobs[i] eligible when paths[i] is a Kineto trace; the count of them. */
static size_t mark_jobs(struct gpa_import_ahead *a)
{
	size_t k = 0;
	char err[256];

	for (size_t i = 0; i < a->n; i++) {
		enum gpa_input_format fmt = GPA_INPUT_UNKNOWN;
		if (!gpa_input_detect(a->paths[i], &fmt, err, sizeof(err)) &&
		    fmt == GPA_INPUT_KINETO) {
			a->jobs[i].state = J_WAITING;
			k++;
		}
	}
	return k;
}

struct gpa_import_ahead *gpa_import_ahead_start(const char *const *paths, size_t n,
						unsigned threads, size_t errlen)
{
	struct gpa_import_ahead *a;
	size_t k;

	if (threads < 2 || n < 2 || !paths) {
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a || !(a->jobs = calloc(n, sizeof(*a->jobs)))) {
		free(a);
		return NULL;
	}
	a->paths = paths;
	a->n = n;
	a->errlen = errlen ? errlen : 1;
	k = mark_jobs(a);
	a->nth = threads < k ? threads : k;
	if (a->nth > MAX_WORKERS) {
		a->nth = MAX_WORKERS;
	}
	a->window = a->nth;
	if (k < 2 || pthread_mutex_init(&a->mu, NULL)) {
		free(a->jobs);
		free(a);
		return NULL;
	}
	if (pthread_cond_init(&a->cv, NULL)) {
		pthread_mutex_destroy(&a->mu);
		free(a->jobs);
		free(a);
		return NULL;
	}
	size_t started = 0;
	for (; started < a->nth; started++) {
		if (pthread_create(&a->th[started], NULL, worker, a)) {
			break;
		}
	}
	a->nth = started;
	if (!started) {
		gpa_import_ahead_free(a);
		return NULL;
	}
	gp_debug("%zu Kineto inputs converted on %zu worker threads", k, started);
	return a;
}

int gpa_import_ahead_take(struct gpa_import_ahead *a, size_t i, struct gpt_reader **r,
			  char *errbuf, size_t errlen)
{
	int ret = 1;

	if (!a || i >= a->n) {
		return 1;
	}
	pthread_mutex_lock(&a->mu);
	struct job *j = &a->jobs[i];
	if (j->state != J_SKIP && j->state != J_TAKEN) {
		while (j->state != J_DONE) {
			pthread_cond_wait(&a->cv, &a->mu);
		}
		*r = j->r;
		j->r = NULL;
		ret = j->ret;
		if (ret < 0 && errlen) {
			snprintf(errbuf, errlen, "%s", j->err);
		}
		j->state = J_TAKEN;
	}
	if (a->consumed < i + 1) {
		a->consumed = i + 1;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return ret;
}

void gpa_import_ahead_free(struct gpa_import_ahead *a)
{
	if (!a) {
		return;
	}
	if (a->nth) {
		pthread_mutex_lock(&a->mu);
		a->stop = true;
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
		for (size_t t = 0; t < a->nth; t++) {
			pthread_join(a->th[t], NULL);
		}
	}
	for (size_t i = 0; i < a->n; i++) {
		gpt_reader_free(a->jobs[i].r);
		free(a->jobs[i].err);
	}
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a->jobs);
	free(a);
}
